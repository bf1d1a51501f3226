//! Operations that read whole indices and write into their documents (`collection.md`):
//! `apply_to_index` of the four model kinds, language processing over indices (`mlp_index`)
//! and of sent documents (`/mlp/docs/`), the reindexer and the index splitter.
use super::{analyses_text, crud, op, Method, Operation};
use crate::engine::apply::{ApplyIn, ApplyModel, ApplyOut};
use crate::engine::index_splitter::IndexSplitters;
use crate::engine::kinds::ResourceKind;
use crate::engine::lang_index::{DetectLangIn, DetectLangOut, LangIndexes};
use crate::engine::mlp_index::{MessageOut, MlpDocsIn, MlpIndexes};
use crate::engine::reindexer::Reindexers;
use serde_json::Value;

/// The standard operations of a kind whose resources cannot be changed: PUT and PATCH
/// answer 405, as in the reference.
fn unchangeable<K: ResourceKind>() -> impl Iterator<Item = Operation> {
    crud::operations::<K>()
        .into_iter()
        .filter(|o| !matches!(o.method, Method::Put | Method::Patch))
}

pub fn operations() -> Vec<Operation> {
    let mut ops: Vec<Operation> = crud::operations::<MlpIndexes>()
        .into_iter()
        .map(|o| if o.status == 201 { analyses_text(o) } else { o })
        .collect();
    ops.extend(
        crud::operations::<LangIndexes>()
            .into_iter()
            .map(|o| if o.status == 201 { analyses_text(o) } else { o }),
    );
    ops.extend(unchangeable::<Reindexers>());
    ops.extend(unchangeable::<IndexSplitters>());
    ops.extend([
        analyses_text(op!(Post "/projects/{project_pk}/mlp_index/{id}/retry/", "mlp_index", "Go on where the run stopped: the selected documents still without the output of a field (ta extension; a task)", [] => [MessageOut],
            |e, c| e.retry_mlp_index(c.ctx()?, c.pk()?, c.id("id")?, None)?)),
        analyses_text(op!(Post "/projects/{project_pk}/lang_index/{id}/retry/", "lang_index", "Go on where the run stopped: the selected documents still without a detected language (a task)", [] => [MessageOut],
            |e, c| e.retry_lang_index(c.ctx()?, c.pk()?, c.id("id")?, None)?)),
        analyses_text(op!(Post "/mlp/detect_lang/", "mlp", "The language of a text: its ISO 639-1 code and Elasticsearch's analyzer name", [DetectLangIn] => [DetectLangOut],
            |e, c| e.detect_lang(c.ctx()?, c.body)?)),
        analyses_text(op!(Post "/mlp/docs/", "mlp", "Documents with their fields analysed: <field>_mlp beside each, the facts in texta_facts", [MlpDocsIn] => [Value],
            |e, c| Value::Array(e.mlp_docs(c.ctx()?, c.body)?))),
        analyses_text(op!(Post "/projects/{project_pk}/taggers/{id}/apply_to_index/", "taggers", "Tag the fields of the selected documents and write the positive results as facts (a task)", [ApplyIn] => [ApplyOut] 201,
            |e, c| e.apply_to_index(c.ctx()?, ApplyModel::Tagger, (c.pk()?, c.id("id")?), c.body, None)?)),
        analyses_text(op!(Post "/projects/{project_pk}/tagger_groups/{id}/apply_to_index/", "tagger_groups", "Tag the fields of the selected documents with the group and write its tags as facts (a task)", [ApplyIn] => [ApplyOut] 201,
            |e, c| e.apply_to_index(c.ctx()?, ApplyModel::TaggerGroup, (c.pk()?, c.id("id")?), c.body, None)?)),
        op!(Post "/projects/{project_pk}/torchtaggers/{id}/apply_to_index/", "torchtaggers", "Tag the fields of the selected documents and write the predictions as facts (a task)", [ApplyIn] => [ApplyOut] 201,
            |e, c| e.apply_to_index(c.ctx()?, ApplyModel::TorchTagger, (c.pk()?, c.id("id")?), c.body, None)?),
        op!(Post "/projects/{project_pk}/regex_taggers/{id}/apply_to_index/", "regex_taggers", "Write the tagger's matches in the fields of the selected documents as facts (a task)", [ApplyIn] => [ApplyOut] 201,
            |e, c| e.apply_to_index(c.ctx()?, ApplyModel::RegexTagger, (c.pk()?, c.id("id")?), c.body, None)?),
    ]);
    ops
}
