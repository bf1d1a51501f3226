//! Operations of regex taggers and regex tagger groups (`api.md` §8–9).
use super::{crud, op, Operation};
use crate::engine::regex_facts::{GroupFactsOut, GroupTagTextOut, TagTextOut, TaggerFactsOut};
use crate::engine::regex_tagger::ops::{GroupMultiTagEntry, GroupTagResult, GroupTagTextsResult, MultiTagEntry, TagResult};
use crate::engine::regex_taggers::{DuplicateOut, RegexTaggerGroups, RegexTaggers};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `{"text"}`.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct TextIn {
    pub text: String,
}

/// `{"texts"}`.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct TextsIn {
    pub texts: Vec<String>,
}

/// `{"doc", "fields"}`: a document and the (dotted) fields to tag.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct DocIn {
    #[schema(value_type = Object)]
    pub doc: Value,
    pub fields: Vec<String>,
}

/// `{"text", "taggers"}`: the taggers to run (default: all of the project).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct MultitagIn {
    pub text: String,
    pub taggers: Option<Vec<i64>>,
}

/// `{"text", "tagger_groups"}`: the groups to run (default: all of the project).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct GroupMultitagIn {
    pub text: String,
    pub tagger_groups: Option<Vec<i64>>,
}

/// `{"indices", "fields"}` of tag_random_doc.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct RandomDocIn {
    pub indices: Option<Vec<IndexName>>,
    pub fields: Vec<String>,
}

/// `{"name"}` of an index.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct IndexName {
    pub name: String,
}

/// `{"description", "indices", "fields", "query"}` of apply_tagger_group.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct ApplyIn {
    pub description: String,
    pub indices: Option<Vec<IndexName>>,
    pub fields: Vec<String>,
    #[schema(value_type = Option<Object>)]
    pub query: Option<Value>,
}

pub fn operations() -> Vec<Operation> {
    let mut ops = crud::operations::<RegexTaggers>();
    ops.extend([
        op!(Post "/projects/{project_pk}/regex_taggers/{id}/tag_text/", "regex_taggers", "Tag one text (TEXTA's web client also gets the text and the matches as facts)", [TextIn] => [TagTextOut],
            |e, c| e.regex_tag_text(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/regex_taggers/{id}/tag_texts/", "regex_taggers", "Tag texts", [TextsIn] => [Vec<TagResult>],
            |e, c| e.regex_tag_texts(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/regex_taggers/{id}/tag_doc/", "regex_taggers", "Tag a document's fields", [DocIn] => [TagResult],
            |e, c| e.regex_tag_doc(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/regex_taggers/{id}/tag_random_doc/", "regex_taggers", "Tag a random document of the indices", [RandomDocIn] => [TaggerFactsOut],
            |e, c| e.regex_tag_random_doc(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/regex_taggers/{id}/duplicate/", "regex_taggers", "Copy a tagger (as `<description>_copy`)", [] => [DuplicateOut],
            |e, c| e.duplicate_regex_tagger(c.ctx()?, c.pk()?, c.id("id")?)?),
        op!(Post "/projects/{project_pk}/regex_taggers/multitag_text/", "regex_taggers", "Run several taggers over one text", [MultitagIn] => [Vec<MultiTagEntry>],
            |e, c| e.regex_multitag_text(c.ctx()?, c.pk()?, c.body)?),
    ]);
    ops.extend(crud::operations::<RegexTaggerGroups>());
    ops.extend([
        op!(Post "/projects/{project_pk}/regex_tagger_groups/{id}/tag_text/", "regex_tagger_groups", "Tag one text with every member (TEXTA's web client also gets the text and the matches as the group's facts)", [TextIn] => [GroupTagTextOut],
            |e, c| e.group_tag_text(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/regex_tagger_groups/{id}/tag_texts/", "regex_tagger_groups", "Tag texts with every member", [TextsIn] => [GroupTagTextsResult],
            |e, c| e.group_tag_texts(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/regex_tagger_groups/{id}/tag_doc/", "regex_tagger_groups", "Tag a document with every member", [DocIn] => [GroupTagResult],
            |e, c| e.group_tag_doc(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/regex_tagger_groups/{id}/tag_random_doc/", "regex_tagger_groups", "Tag a random document with every member", [RandomDocIn] => [GroupFactsOut],
            |e, c| e.group_tag_random_doc(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/regex_tagger_groups/{id}/simple_tag_text/", "regex_tagger_groups", "Descriptions of the matching members", [TextIn] => [Vec<String>],
            |e, c| e.group_simple_tag_text(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/regex_tagger_groups/{id}/apply_tagger_group/", "regex_tagger_groups", "Add the group's facts to the matching documents of indices (a task)", [ApplyIn] => [Value],
            |e, c| e.apply_tagger_group(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/regex_tagger_groups/multitag_text/", "regex_tagger_groups", "Run several groups over one text", [GroupMultitagIn] => [Vec<GroupMultiTagEntry>],
            |e, c| e.group_multitag_text(c.ctx()?, c.pk()?, c.body)?),
        op!(Post "/projects/{project_pk}/regex_tagger_groups/simple_multitag_text/", "regex_tagger_groups", "Group description → matching member descriptions", [GroupMultitagIn] => [Value],
            |e, c| Value::Object(e.group_simple_multitag_text(c.ctx()?, c.pk()?, c.body)?)),
    ]);
    ops
}
