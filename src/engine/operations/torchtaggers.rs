//! Operations of neural taggers (`api.md` §10).
use super::taggers::{IndicesIn, SuccessOut, TagTextIn};
use super::{crud, file_operation, op, plot_operation, Call, ImportIn, Operation, Reply};
use crate::engine::error::Result;
use crate::engine::torchtaggers::{TorchTagOut, TorchTaggerOut, TorchTaggers};
use crate::engine::Engine;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// `{"texts"}` of tag_texts (ta extension).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct TextsIn {
    /// At most 10000 texts, tagged in one batched pass.
    pub texts: Vec<String>,
}

/// The multipart form of train_file (ta extension).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct TorchTrainFileIn {
    pub description: String,
    /// Fields holding the text, joined with a space (dotted paths; repeat for several).
    pub fields: Vec<String>,
    /// Field holding each line's label; every distinct label is a class.
    pub label_field: String,
    /// With this, a binary model: `true` for this label, `false` for every other.
    pub positive: Option<String>,
    /// `TextRNN`, `fastText` or `RCNN`.
    pub model_architecture: String,
    pub num_epochs: Option<i64>,
    /// A trained embedding whose vectors are used frozen.
    pub embedding: Option<i64>,
    /// Seed of the split, initialisation, shuffling and dropout (default 42).
    pub seed: Option<i64>,
    /// `adam` (default: Adam at 0.03 for fastText, 0.01 otherwise, with the halving schedule)
    /// or `sgd` (the reference's plain SGD at the architecture's learning rate, which leaves
    /// the models under-trained at 5 epochs).
    pub optimizer: Option<String>,
    /// The labelled JSONL file.
    #[schema(value_type = String, format = Binary)]
    pub file: String,
}

fn export(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    let (pk, id) = (c.pk()?, c.id("id")?);
    Ok(Reply::File {
        content_type: "application/zip",
        name: format!("torchtagger-{id}.zip"),
        bytes: e.export_torchtagger(c.ctx()?, pk, id)?,
    })
}

pub fn operations() -> Vec<Operation> {
    let mut ops = crud::operations::<TorchTaggers>();
    ops.extend([
        op!(Post "/projects/{project_pk}/torchtaggers/{id}/tag_text/", "torchtaggers", "Tag one text: the predicted class and its probability", [TagTextIn] => [TorchTagOut],
            |e, c| e.torchtagger_tag_text(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/torchtaggers/{id}/tag_texts/", "torchtaggers", "Tag many texts in one batched pass (ta extension)", [TextsIn] => [Vec<TorchTagOut>],
            |e, c| e.torchtagger_tag_texts(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/torchtaggers/{id}/tag_random_doc/", "torchtaggers", "Tag a random document of the indices", [IndicesIn] => [Value],
            |e, c| e.torchtagger_tag_random_doc(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Post "/projects/{project_pk}/torchtaggers/{id}/retrain_tagger/", "torchtaggers", "Train again (a task)", [] => [SuccessOut],
            |e, c| e.retrain_torchtagger(c.ctx()?, c.pk()?, c.id("id")?)?),
        Operation {
            upload: true,
            ..op!(Post "/projects/{project_pk}/torchtaggers/train_file/", "torchtaggers", "Train a neural tagger from a labelled JSONL file (ta extension; a task)", [TorchTrainFileIn] => [TorchTaggerOut] 201,
                |e, c| e.train_torchtagger_file(c.ctx()?, c.pk()?, c.body, None)?)
        },
        plot_operation::<TorchTaggers>("The confusion matrix of the last training (PNG)"),
        file_operation("/projects/{project_pk}/torchtaggers/{id}/export_model/", "torchtaggers", "The neural tagger in one file (settings, model, plot) for import_model", export),
        Operation {
            upload: true,
            ..op!(Post "/projects/{project_pk}/torchtaggers/import_model/", "torchtaggers", "A new neural tagger from an export_model file", [ImportIn] => [TorchTaggerOut] 201,
                |e, c| e.import_torchtagger(c.ctx()?, c.pk()?, c.body)?)
        },
    ]);
    ops
}
