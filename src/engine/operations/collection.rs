//! Operations that read whole indices and write into their documents (`collection.md`):
//! `apply_to_index` of the four model kinds.
use super::{analyses_text, op, Operation};
use crate::engine::apply::{ApplyIn, ApplyModel, ApplyOut};

pub fn operations() -> Vec<Operation> {
    vec![
        analyses_text(op!(Post "/projects/{project_pk}/taggers/{id}/apply_to_index/", "taggers", "Tag the fields of the selected documents and write the positive results as facts (a task)", [ApplyIn] => [ApplyOut] 201,
            |e, c| e.apply_to_index(c.ctx()?, ApplyModel::Tagger, (c.pk()?, c.id("id")?), c.body, None)?)),
        analyses_text(op!(Post "/projects/{project_pk}/tagger_groups/{id}/apply_to_index/", "tagger_groups", "Tag the fields of the selected documents with the group and write its tags as facts (a task)", [ApplyIn] => [ApplyOut] 201,
            |e, c| e.apply_to_index(c.ctx()?, ApplyModel::TaggerGroup, (c.pk()?, c.id("id")?), c.body, None)?)),
        op!(Post "/projects/{project_pk}/torchtaggers/{id}/apply_to_index/", "torchtaggers", "Tag the fields of the selected documents and write the predictions as facts (a task)", [ApplyIn] => [ApplyOut] 201,
            |e, c| e.apply_to_index(c.ctx()?, ApplyModel::TorchTagger, (c.pk()?, c.id("id")?), c.body, None)?),
        op!(Post "/projects/{project_pk}/regex_taggers/{id}/apply_to_index/", "regex_taggers", "Write the tagger's matches in the fields of the selected documents as facts (a task)", [ApplyIn] => [ApplyOut] 201,
            |e, c| e.apply_to_index(c.ctx()?, ApplyModel::RegexTagger, (c.pk()?, c.id("id")?), c.body, None)?),
    ]
}
