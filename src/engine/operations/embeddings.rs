//! Operations of embeddings (`api.md` §5).
use super::regex::TextIn;
use super::{crud, file_operation, op, Call, ImportIn, Operation, Reply};
use crate::engine::embeddings::{EmbeddingOut, Embeddings, SimilarOut};
use crate::engine::error::Result;
use crate::engine::Engine;
use serde::Deserialize;
use std::sync::Arc;

/// `{"positives", "negatives", "output_size"}` of predict_similar.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct SimilarIn {
    pub positives: Vec<String>,
    pub negatives: Option<Vec<String>>,
    /// How many (default 10).
    pub output_size: Option<i64>,
}

fn export(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    let (pk, id) = (c.pk()?, c.id("id")?);
    Ok(Reply::File {
        content_type: "application/zip",
        name: format!("embedding-{id}.zip"),
        bytes: e.export_embedding(c.ctx()?, pk, id)?,
    })
}

/// The multipart form of train_file (ta extension).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct TrainFileIn {
    pub description: String,
    /// Fields holding the text (dotted paths; repeat the form field for several).
    pub fields: Vec<String>,
    pub num_dimensions: Option<i64>,
    pub min_freq: Option<i64>,
    /// Training threads (ta extension; default 1, at most 64): 1 is reproducible bit for
    /// bit, more is faster on several cores but not reproducible.
    pub threads: Option<i64>,
    /// The JSONL corpus (a line that is a JSON string is a text of its own).
    #[schema(value_type = String, format = Binary)]
    pub file: String,
}

pub fn operations() -> Vec<Operation> {
    let mut ops = crud::operations::<Embeddings>();
    ops.extend([
        op!(Post "/projects/{project_pk}/embeddings/{id}/predict_similar/", "embeddings", "Words and phrases nearest to the positives (and away from the negatives)", [SimilarIn] => [Vec<SimilarOut>],
            |e, c| e.predict_similar(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/embeddings/{id}/phrase_text/", "embeddings", "The text with the embedding's phrases joined", [TextIn] => [String],
            |e, c| e.phrase_text(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        Operation {
            upload: true,
            ..op!(Post "/projects/{project_pk}/embeddings/train_file/", "embeddings", "Train an embedding on a JSONL corpus file (ta extension; a task)", [TrainFileIn] => [EmbeddingOut] 201,
                |e, c| e.train_embedding_file(c.ctx()?, c.pk()?, c.body, None)?)
        },
        file_operation("/projects/{project_pk}/embeddings/{id}/export_model/", "embeddings", "The embedding in one file (settings, vocabulary, vectors, phraser)", export),
        Operation {
            upload: true,
            ..op!(Post "/projects/{project_pk}/embeddings/import_model/", "embeddings", "A new embedding from an export_model file", [ImportIn] => [EmbeddingOut] 201,
                |e, c| e.import_embedding(c.ctx()?, c.pk()?, c.body)?)
        },
    ]);
    ops
}
