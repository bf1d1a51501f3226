//! Operations of embeddings (`api.md` §5).
use super::regex::TextIn;
use super::{crud, op, Operation};
use crate::engine::embeddings::{Embeddings, SimilarOut};
use serde::Deserialize;

/// `{"positives", "negatives", "output_size"}` of predict_similar.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct SimilarIn {
    pub positives: Vec<String>,
    pub negatives: Option<Vec<String>>,
    /// How many (default 10).
    pub output_size: Option<i64>,
}

pub fn operations() -> Vec<Operation> {
    let mut ops = crud::operations::<Embeddings>();
    ops.extend([
        op!(Post "/projects/{project_pk}/embeddings/{id}/predict_similar/", "embeddings", "Words and phrases nearest to the positives (and away from the negatives)", [SimilarIn] => [Vec<SimilarOut>],
            |e, c| e.predict_similar(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/embeddings/{id}/phrase_text/", "embeddings", "The text with the embedding's phrases joined", [TextIn] => [String],
            |e, c| e.phrase_text(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
    ]);
    ops
}
