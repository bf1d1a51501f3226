//! Operations of tagger groups (`api.md` §7).
use super::taggers::IndicesIn;
use super::{analyses_text, crud, file_operation, op, Call, ImportIn, Operation, Reply};
use crate::engine::error::Result;
use crate::engine::tagger_groups::{GroupTag, MemberOut, RandomDocTags, RetrainOut, TaggerGroupOut, TaggerGroups};
use crate::engine::Engine;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// `{"text", ...}` of a group's tag_text.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct GroupTagTextIn {
    pub text: String,
    /// Lemmatize the text first (default true).
    pub lemmatize: Option<bool>,
    /// Add the tags whose value language processing finds as an entity (default true).
    pub use_ner: Option<bool>,
    /// Similar documents read for candidate tags (default 25).
    pub n_similar_docs: Option<i64>,
    /// Most candidate members run (default 25).
    pub n_candidate_tags: Option<i64>,
}

/// `{"doc", ...}` of a group's tag_doc: the document must hold every member field.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct GroupTagDocIn {
    #[schema(value_type = Object)]
    pub doc: Value,
    pub lemmatize: Option<bool>,
    pub use_ner: Option<bool>,
    pub n_similar_docs: Option<i64>,
    pub n_candidate_tags: Option<i64>,
}

fn export(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    let (pk, id) = (c.pk()?, c.id("id")?);
    Ok(Reply::File {
        content_type: "application/zip",
        name: format!("tagger-group-{id}.zip"),
        bytes: e.export_tagger_group(c.ctx()?, pk, id)?,
    })
}

pub fn operations() -> Vec<Operation> {
    let mut ops = crud::operations::<TaggerGroups>();
    ops.extend([
        analyses_text(op!(Post "/projects/{project_pk}/tagger_groups/{id}/tag_text/", "tagger_groups", "Tag one text with the members that similar documents propose", [GroupTagTextIn] => [Vec<GroupTag>],
            |e, c| e.tagger_group_tag_text(c.ctx()?, c.pk()?, c.id("id")?, c.body)?)),
        analyses_text(op!(Post "/projects/{project_pk}/tagger_groups/{id}/tag_doc/", "tagger_groups", "Tag a document's fields", [GroupTagDocIn] => [Vec<GroupTag>],
            |e, c| e.tagger_group_tag_doc(c.ctx()?, c.pk()?, c.id("id")?, c.body)?)),
        analyses_text(op!(Post "/projects/{project_pk}/tagger_groups/{id}/tag_random_doc/", "tagger_groups", "Tag a random document of the indices", [IndicesIn] => [RandomDocTags],
            |e, c| e.tagger_group_tag_random_doc(c.ctx()?, c.pk()?, c.id("id")?, c.body)?)),
        op!(Get "/projects/{project_pk}/tagger_groups/{id}/models_list/", "tagger_groups", "The member taggers and their training status", [] => [Vec<MemberOut>],
            |e, c| e.tagger_group_models(c.ctx()?, c.pk()?, c.id("id")?)?),
        op!(Post "/projects/{project_pk}/tagger_groups/{id}/models_retrain/", "tagger_groups", "Train every member again (tasks)", [] => [RetrainOut],
            |e, c| e.retrain_tagger_group(c.ctx()?, c.pk()?, c.id("id")?, None)?),
        file_operation("/projects/{project_pk}/tagger_groups/{id}/export_model/", "tagger_groups", "The group and its trained members in one file for import_model", export),
        Operation {
            upload: true,
            ..op!(Post "/projects/{project_pk}/tagger_groups/import_model/", "tagger_groups", "A new tagger group with its members from an export_model file", [ImportIn] => [TaggerGroupOut] 201,
                |e, c| e.import_tagger_group(c.ctx()?, c.pk()?, c.body)?)
        },
    ]);
    ops
}
