//! Operations that read whole indices and write into their documents (`collection.md`):
//! `apply_to_index` of the four model kinds, language processing over indices (`mlp_index`)
//! and of sent documents (`/mlp/docs/`), the reindexer, the index splitter and the
//! evaluator.
use super::{analyses_text, applies_to_some, crud, op, plot_operation, Method, Operation};
use crate::engine::apply::{ApplyIn, ApplyModel, ApplyOut};
use crate::engine::evaluators::{
    ClassFilterIn, Evaluators, FilteredAverageOut, IndividualResultsIn, IndividualResultsOut, MisclassifiedIn, MisclassifiedOut,
    ReevaluateOut,
};
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

/// The evaluator's standard operations and actions (`collection.md` §6).
fn evaluator_operations() -> Vec<Operation> {
    let mut ops = crud::operations::<Evaluators>();
    ops.extend([
        applies_to_some(op!(Get "/projects/{project_pk}/evaluators/{id}/filtered_average/", "evaluators", "The mean scores of the classes with 1 or more documents (multilabel)", [] => [FilteredAverageOut],
            |e, c| e.evaluator_filtered_average(c.ctx()?, c.pk()?, c.id("id")?, &Value::Object(Default::default()))?)),
        applies_to_some(op!(Post "/projects/{project_pk}/evaluators/{id}/filtered_average/", "evaluators", "The mean scores of the classes a count range and score bounds take (multilabel)", [ClassFilterIn] => [FilteredAverageOut],
            |e, c| e.evaluator_filtered_average(c.ctx()?, c.pk()?, c.id("id")?, c.body)?)),
        applies_to_some(op!(Get "/projects/{project_pk}/evaluators/{id}/individual_results/", "evaluators", "Each class's scores, alphabetically (multilabel)", [] => [IndividualResultsOut],
            |e, c| e.evaluator_individual_results(c.ctx()?, c.pk()?, c.id("id")?, &Value::Object(Default::default()))?)),
        applies_to_some(op!(Post "/projects/{project_pk}/evaluators/{id}/individual_results/", "evaluators", "The scores of the classes a count range and score bounds take, ordered (multilabel)", [IndividualResultsIn] => [IndividualResultsOut],
            |e, c| e.evaluator_individual_results(c.ctx()?, c.pk()?, c.id("id")?, c.body)?)),
        op!(Post "/projects/{project_pk}/evaluators/{id}/reevaluate/", "evaluators", "Score again, over the documents as they are now (a task)", [] => [ReevaluateOut],
            |e, c| e.reevaluate(c.ctx()?, c.pk()?, c.id("id")?, None)?),
        op!(Post "/projects/{project_pk}/evaluators/{id}/misclassified_documents/", "evaluators", "The selected documents whose true and predicted labels differ (ta extension)", [MisclassifiedIn] => [MisclassifiedOut],
            |e, c| e.evaluator_misclassified(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        plot_operation::<Evaluators>("The confusion matrix of the last run (PNG)"),
    ]);
    ops
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
    ops.extend(evaluator_operations());
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
