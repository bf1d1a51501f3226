//! What the embedded store's writer indexes: a document, or one of its fact documents, read
//! straight from its source's tree. tantivy indexes any type implementing its `Document`
//! trait without copying it, so no `TantivyDocument` is built for a write: building one
//! copied every string of a document twice (both views) and was about a tenth of an import's
//! CPU time, spent on the thread that feeds the writer.

use std::sync::Arc;

use sonic_rs::{JsonValueTrait, ValueRef};
use tantivy::schema::document::ReferenceValueLeaf;
use tantivy::schema::{Document, Field};

use super::doc_views::{fact_view, keyword_view, leaf_view, text_view, View};
use super::dsl::{StoreFields, KIND_DOC, KIND_FACT};
use super::mapping::FACTS_FIELD;
use super::source::Source;

/// A document and the fact documents that follow it share its id and source.
struct Shared {
    id: String,
    source: Source,
}

/// One document to index (see the module documentation).
pub struct StoreDoc {
    fields: StoreFields,
    shared: Arc<Shared>,
    /// `None` for the document itself, else the position of its fact in `texta_facts`.
    fact: Option<usize>,
}

/// A document's fields and values, at most five of them.
pub type FieldValues<'a> = std::iter::Flatten<std::array::IntoIter<Option<(Field, View<'a>)>, 5>>;

impl StoreDoc {
    /// The document `id` followed by one fact document per object in its `texta_facts` (a
    /// list of facts, or a single fact), as one group for the block join (`block_join.rs`).
    pub fn group(fields: StoreFields, id: String, source: Source) -> Vec<StoreDoc> {
        let facts: Vec<usize> = match source.tree().get(FACTS_FIELD).map(|facts| facts.as_ref()) {
            Some(ValueRef::Array(items)) => (0..items.len()).filter(|&n| items[n].is_object()).collect(),
            Some(ValueRef::Object(_)) => vec![0],
            _ => Vec::new(),
        };
        let shared = Arc::new(Shared { id, source });
        let doc = |fact| StoreDoc {
            fields,
            shared: shared.clone(),
            fact,
        };
        std::iter::once(doc(None)).chain(facts.into_iter().map(|n| doc(Some(n)))).collect()
    }

    /// The fact at position `n` of the source's `texta_facts`.
    fn fact(&self, n: usize) -> Option<&sonic_rs::Value> {
        let facts = self.shared.source.tree().get(FACTS_FIELD)?;
        match facts.as_ref() {
            ValueRef::Array(items) => items.get(n),
            _ => Some(facts),
        }
    }
}

impl Document for StoreDoc {
    type Value<'a> = View<'a>;
    type FieldsValuesIter<'a> = FieldValues<'a>;

    fn iter_fields_and_values(&self) -> FieldValues<'_> {
        let f = self.fields;
        let Shared { id, source } = &*self.shared;
        let kind = |kind: &'static str| leaf_view(ReferenceValueLeaf::Str(kind));
        let fields = match self.fact {
            None => [
                Some((f.id, leaf_view(ReferenceValueLeaf::Str(id)))),
                Some((f.kind, kind(KIND_DOC))),
                Some((f.source, leaf_view(ReferenceValueLeaf::Bytes(source.bytes())))),
                Some((f.text, text_view(source.tree()))),
                Some((f.kw, keyword_view(source.tree()))),
            ],
            Some(n) => [
                Some((f.kind, kind(KIND_FACT))),
                Some((f.parent, leaf_view(ReferenceValueLeaf::Str(id)))),
                self.fact(n).map(|fact| (f.kw, fact_view(fact))),
                None,
                None,
            ],
        };
        fields.into_iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tantivy::schema::document::Value as _;
    use tantivy::schema::OwnedValue;

    use super::*;
    use crate::tantivy_store::schema_fields;

    /// A document's fields and values as (field name, JSON) pairs.
    fn fields_of(doc: &StoreDoc) -> Vec<(String, serde_json::Value)> {
        let (schema, _) = schema_fields();
        doc.iter_fields_and_values()
            .map(|(field, value)| {
                let name = schema.get_field_name(field).to_string();
                (name, serde_json::to_value(OwnedValue::from(value.as_value())).unwrap())
            })
            .collect()
    }

    #[test]
    fn a_document_is_followed_by_one_fact_document_per_fact_object() {
        let (_, fields) = schema_fields();
        let text =
            r#"{"t": "Tere", "n": 5, "texta_facts": [{"fact": "PER", "str_val": "Mari"}, "odd", {"fact": "LOC", "str_val": "Tartu"}]}"#;
        let group = StoreDoc::group(fields, "a1".into(), Source::parse(text.as_bytes().to_vec()).unwrap());
        assert_eq!(group.len(), 3);
        let doc = fields_of(&group[0]);
        let names: Vec<&str> = doc.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["_id", "_kind", "_source", "text", "kw"]);
        assert_eq!(doc[0].1, json!("a1"));
        assert_eq!(doc[1].1, json!(KIND_DOC));
        assert_eq!(doc[3].1, json!({"t": "Tere", "n": null}));
        assert_eq!(doc[4].1, json!({"t": "Tere", "n": 5}));
        assert_eq!(
            fields_of(&group[2]),
            [
                ("_kind".to_string(), json!(KIND_FACT)),
                ("_parent".to_string(), json!("a1")),
                ("kw".to_string(), json!({"texta_facts": {"fact": "LOC", "str_val": "Tartu"}})),
            ]
        );
    }

    #[test]
    fn a_single_fact_object_is_one_fact_document() {
        let (_, fields) = schema_fields();
        let text = r#"{"texta_facts": {"fact": "PER", "str_val": "Mari"}}"#;
        let group = StoreDoc::group(fields, "b".into(), Source::parse(text.as_bytes().to_vec()).unwrap());
        assert_eq!(group.len(), 2);
        assert_eq!(
            fields_of(&group[1])[2].1,
            json!({"texta_facts": {"fact": "PER", "str_val": "Mari"}})
        );
    }
}
