//! Operations of the anonymizers and language processing (`api.md` §11–§12).
use super::{analyses_text, crud, op, Operation};
use crate::engine::anonymizers::Anonymizers;
use serde::Deserialize;
use serde_json::Value;

/// `{"text", "names", "replacers"}`: names as "Last, First"; replacers (ta extension) give
/// reproducible initials.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct AnonymizeTextIn {
    pub text: String,
    pub names: Vec<String>,
    pub replacers: Option<Vec<Vec<String>>>,
}

/// `{"texts", "names", "consistent_replacement", "replacers"}`.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct AnonymizeTextsIn {
    pub texts: Vec<String>,
    pub names: Vec<String>,
    pub consistent_replacement: Option<bool>,
    pub replacers: Option<Vec<Vec<String>>>,
}

/// `{"texts", "analyzers"}` of language processing.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct MlpIn {
    pub texts: Vec<String>,
    /// Default `["all"]`.
    pub analyzers: Option<Vec<String>>,
}

pub fn operations() -> Vec<Operation> {
    let mut ops = crud::operations::<Anonymizers>();
    ops.extend([
        op!(Post "/projects/{project_pk}/anonymizers/{id}/anonymize_text/", "anonymizers", "Anonymize one text", [AnonymizeTextIn] => [String],
            |e, c| e.anonymize_text(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/anonymizers/{id}/anonymize_texts/", "anonymizers", "Anonymize texts", [AnonymizeTextsIn] => [Vec<String>],
            |e, c| e.anonymize_texts(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        analyses_text(op!(Post "/mlp/texts/", "mlp", "Language processing (tokens, lemmas, POS tags, language, facts)", [MlpIn] => [Value],
            |e, c| Value::Array(e.mlp_texts(c.ctx()?, c.body)?))),
    ]);
    ops
}
