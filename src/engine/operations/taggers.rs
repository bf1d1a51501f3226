//! Operations of taggers (`api.md` §6 and Appendix A).
use super::regex::{IndexName, TextIn};
use super::{analyses_text, crud, file_operation, op, plot_operation, Call, ImportIn, Operation, QueryParam, Reply};
use crate::engine::classifier::Feature;
use crate::engine::error::Result;
use crate::engine::taggers::{TagOut, TaggerOut, Taggers};
use crate::engine::Engine;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// `{"text", "lemmatize"}` of tag_text.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct TagTextIn {
    pub text: String,
    /// Lemmatize the text first (default false).
    pub lemmatize: Option<bool>,
}

/// `{"doc", "lemmatize", "fields"}` of tag_doc: the document must hold every field read.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct TagDocIn {
    #[schema(value_type = Object)]
    pub doc: Value,
    pub lemmatize: Option<bool>,
    /// ta extension: read these document fields in place of the tagger's (one for each, in order).
    pub fields: Option<Vec<String>>,
}

/// `{"indices"}` of tag_random_doc.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct IndicesIn {
    pub indices: Option<Vec<IndexName>>,
}

/// `{"features", "total_features", "showing_features"}`.
#[derive(Serialize, Deserialize, utoipa::ToSchema)]
pub struct FeaturesOut {
    pub features: Vec<Feature>,
    pub total_features: usize,
    pub showing_features: usize,
}

/// `{"stop_words"}`.
#[derive(Serialize, Deserialize, utoipa::ToSchema)]
pub struct StopWordsOut {
    pub stop_words: String,
}

/// `{"success"}`.
#[derive(Serialize, Deserialize, utoipa::ToSchema)]
pub struct SuccessOut {
    pub success: String,
}

/// `{"text", "taggers"}` of the project's multitag_text.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct MultitagIn {
    pub text: String,
    pub taggers: Option<Vec<i64>>,
    pub lemmatize: Option<bool>,
    /// Keep only positive results (default true).
    pub hide_false: Option<bool>,
}

/// The multipart form of train_file (ta extension).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct TrainFileIn {
    pub description: String,
    /// Fields holding the text (dotted paths; repeat the form field for several).
    pub fields: Vec<String>,
    /// Field holding each line's label.
    pub label_field: String,
    /// The label value of the positive class; every other labelled line is a negative.
    pub positive: String,
    pub vectorizer: Option<String>,
    pub classifier: Option<String>,
    /// The labelled JSONL file.
    #[schema(value_type = String, format = Binary)]
    pub file: String,
}

fn export(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    let (pk, id) = (c.pk()?, c.id("id")?);
    Ok(Reply::File {
        content_type: "application/zip",
        name: format!("tagger-{id}.zip"),
        bytes: e.export_tagger(c.ctx()?, pk, id)?,
    })
}

pub fn operations() -> Vec<Operation> {
    let mut ops = crud::operations::<Taggers>();
    ops.extend([
        analyses_text(op!(Post "/projects/{project_pk}/taggers/{id}/tag_text/", "taggers", "Tag one text", [TagTextIn] => [TagOut],
            |e, c| e.tagger_tag_text(c.ctx()?, c.pk()?, c.id("id")?, c.body)?)),
        analyses_text(op!(Post "/projects/{project_pk}/taggers/{id}/tag_doc/", "taggers", "Tag a document's fields", [TagDocIn] => [TagOut],
            |e, c| e.tagger_tag_doc(c.ctx()?, c.pk()?, c.id("id")?, c.body)?)),
        analyses_text(op!(Post "/projects/{project_pk}/taggers/{id}/tag_random_doc/", "taggers", "Tag a random document of the indices", [IndicesIn] => [Value],
            |e, c| e.tagger_tag_random_doc(c.ctx()?, c.pk()?, c.id("id")?, c.body)?)),
        Operation {
            query: &[QueryParam {
                name: "size",
                description: "How many features (default 100)",
            }],
            ..op!(Get "/projects/{project_pk}/taggers/{id}/list_features/", "taggers", "The strongest features (?size=100; not for Hashing)", [] => [FeaturesOut],
                |e, c| e.tagger_features(c.ctx()?, c.pk()?, c.id("id")?, c.query)?)
        },
        op!(Get "/projects/{project_pk}/taggers/{id}/stop_words/", "taggers", "The tagger's own stop words", [] => [StopWordsOut],
            |e, c| e.tagger_stop_words(c.ctx()?, c.pk()?, c.id("id")?, None)?),
        op!(Post "/projects/{project_pk}/taggers/{id}/stop_words/", "taggers", "Replace the tagger's stop words: {text}", [TextIn] => [StopWordsOut],
            |e, c| e.tagger_stop_words(c.ctx()?, c.pk()?, c.id("id")?, Some(c.body))?),
        op!(Post "/projects/{project_pk}/taggers/{id}/retrain_tagger/", "taggers", "Train again (a task)", [] => [SuccessOut],
            |e, c| e.retrain_tagger(c.ctx()?, c.pk()?, c.id("id")?)?),
        Operation {
            upload: true,
            ..op!(Post "/projects/{project_pk}/taggers/train_file/", "taggers", "Train a tagger from a labelled JSONL file (ta extension; a task)", [TrainFileIn] => [TaggerOut] 201,
                |e, c| e.train_tagger_file(c.ctx()?, c.pk()?, c.body, None)?)
        },
        plot_operation::<Taggers>("The training plot (PNG): ROC curve, confusion matrix, coefficients"),
        file_operation("/projects/{project_pk}/taggers/{id}/export_model/", "taggers", "The tagger in one file (settings, model, plot) for import_model", export),
        Operation {
            upload: true,
            ..op!(Post "/projects/{project_pk}/taggers/import_model/", "taggers", "A new tagger from an export_model file", [ImportIn] => [TaggerOut] 201,
                |e, c| e.import_tagger(c.ctx()?, c.pk()?, c.body)?)
        },
        analyses_text(op!(Post "/projects/{project_pk}/taggers/multitag_text/", "taggers", "Run several taggers over one text", [MultitagIn] => [Vec<TagOut>],
            |e, c| e.tagger_multitag_text(c.ctx()?, c.pk()?, c.body)?)),
    ]);
    ops
}
