//! The two indexed views of a document, read lazily from its parsed tree (no copy), which
//! tantivy indexes directly (`store_doc.rs`):
//! `Kind::Text` feeds the analyzed `text` field with the string values that are not dates
//! (strings dynamic mapping calls dates, `mapping::looks_like_date`, read as UTC when they
//! have no offset, as Elasticsearch reads them); `Kind::Keyword` feeds the `kw` field with every typed value (numbers, booleans,
//! dates) and the strings of at most `KEYWORD_IGNORE_ABOVE` characters kept whole, as
//! Elasticsearch's `keyword` subfield with `ignore_above: 256`. Everything left out of a view
//! reads as null there, which tantivy skips. A document's top-level `texta_facts` are left
//! out of its views: each fact is indexed in a fact document of its own (`fact_view`).

use sonic_rs::value::object::Iter as EntryIter;
use sonic_rs::{JsonNumberTrait, Value, ValueRef};
use tantivy::schema::document::{ReferenceValue, ReferenceValueLeaf};
use tantivy::schema::Value as TantivyValue;
use tantivy::DateTime;

use super::date_math::parse_date;
use super::mapping::{looks_like_date, FACTS_FIELD};

/// Longest string (in characters) kept in the keyword view.
pub const KEYWORD_IGNORE_ABOVE: usize = 256;

/// Which values a view lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Keyword,
}

/// What a view shows.
#[derive(Debug, Clone)]
enum Node<'a> {
    /// A value as it is.
    Value(&'a Value),
    /// A leaf given directly (a document's id, kind or source bytes).
    Leaf(ReferenceValueLeaf<'a>),
    /// A document: an object without its top-level facts.
    Document(&'a Value),
    /// A fact, as the object `{"texta_facts": fact}`.
    Fact(&'a Value),
}

/// A view of one JSON value for one of the two indexed fields, or a plain leaf value.
#[derive(Debug, Clone)]
pub struct View<'a> {
    node: Node<'a>,
    kind: Kind,
}

/// The view of a document for the analyzed `text` field.
pub fn text_view(doc: &Value) -> View<'_> {
    View {
        node: Node::Document(doc),
        kind: Kind::Text,
    }
}

/// The view of a document for the keyword field `kw`.
pub fn keyword_view(doc: &Value) -> View<'_> {
    View {
        node: Node::Document(doc),
        kind: Kind::Keyword,
    }
}

/// A plain leaf value (for the schema's other fields).
pub fn leaf_view(leaf: ReferenceValueLeaf<'_>) -> View<'_> {
    View {
        node: Node::Leaf(leaf),
        kind: Kind::Keyword,
    }
}

/// The keyword view of a fact document: the fact under `texta_facts`.
pub fn fact_view(fact: &Value) -> View<'_> {
    View {
        node: Node::Fact(fact),
        kind: Kind::Keyword,
    }
}

impl<'a> TantivyValue<'a> for View<'a> {
    type ArrayIter = ArrayView<'a>;
    type ObjectIter = ObjectView<'a>;

    fn as_value(&self) -> ReferenceValue<'a, Self> {
        let (value, skip_facts) = match self.node {
            Node::Fact(fact) => {
                return ReferenceValue::Object(ObjectView {
                    entries: Entries::Fact(Some(fact)),
                    kind: self.kind,
                })
            }
            Node::Document(doc) => (doc, true),
            Node::Value(value) => (value, false),
            Node::Leaf(ref leaf) => return ReferenceValue::Leaf(leaf.clone()),
        };
        match value.as_ref() {
            ValueRef::Array(items) => ReferenceValue::Array(ArrayView {
                items: items.iter(),
                kind: self.kind,
            }),
            ValueRef::Object(object) => ReferenceValue::Object(ObjectView {
                entries: Entries::Object {
                    iter: object.iter(),
                    skip_facts,
                },
                kind: self.kind,
            }),
            leaf => ReferenceValue::Leaf(self.leaf(leaf)),
        }
    }
}

impl<'a> View<'a> {
    /// The leaf as tantivy reads JSON values (numbers as i64, else u64, else f64; strings
    /// that look like dates and parse as one become dates), then filtered for this view.
    fn leaf(&self, value: ValueRef<'a>) -> ReferenceValueLeaf<'a> {
        let leaf = match value {
            ValueRef::Bool(b) => ReferenceValueLeaf::Bool(b),
            ValueRef::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => ReferenceValueLeaf::I64(i),
                (None, Some(u), _) => ReferenceValueLeaf::U64(u),
                (None, None, Some(f)) => ReferenceValueLeaf::F64(f),
                _ => ReferenceValueLeaf::Null,
            },
            ValueRef::String(s) => match string_date(s) {
                Some(date) => ReferenceValueLeaf::Date(date),
                None => ReferenceValueLeaf::Str(s),
            },
            _ => ReferenceValueLeaf::Null,
        };
        let keep = match (&leaf, self.kind) {
            (ReferenceValueLeaf::Str(_), Kind::Text) => true,
            (_, Kind::Text) => false,
            (ReferenceValueLeaf::Str(s), Kind::Keyword) => s.len() <= KEYWORD_IGNORE_ABOVE || s.chars().count() <= KEYWORD_IGNORE_ABOVE,
            (_, Kind::Keyword) => true,
        };
        if keep {
            leaf
        } else {
            ReferenceValueLeaf::Null
        }
    }
}

/// A string that dynamic mapping calls a date, as a UTC date.
fn string_date(s: &str) -> Option<DateTime> {
    if !looks_like_date(s) {
        return None;
    }
    DateTime::try_from_utc(parse_date(s)?)
}

/// The elements of an array, in the same view.
#[derive(Clone)]
pub struct ArrayView<'a> {
    items: std::slice::Iter<'a, Value>,
    kind: Kind,
}

impl<'a> Iterator for ArrayView<'a> {
    type Item = View<'a>;

    fn next(&mut self) -> Option<View<'a>> {
        self.items.next().map(|value| View {
            node: Node::Value(value),
            kind: self.kind,
        })
    }
}

/// The entries of an object, in the same view.
pub struct ObjectView<'a> {
    entries: Entries<'a>,
    kind: Kind,
}

enum Entries<'a> {
    /// An object's entries, without `texta_facts` when `skip_facts` is set.
    Object { iter: EntryIter<'a>, skip_facts: bool },
    /// The one entry `texta_facts: fact`, until taken.
    Fact(Option<&'a Value>),
}

impl<'a> Iterator for ObjectView<'a> {
    type Item = (&'a str, View<'a>);

    fn next(&mut self) -> Option<(&'a str, View<'a>)> {
        let (key, value) = match &mut self.entries {
            Entries::Object { iter, skip_facts } => iter.find(|(key, _)| !(*skip_facts && *key == FACTS_FIELD))?,
            Entries::Fact(fact) => (FACTS_FIELD, fact.take()?),
        };
        let node = Node::Value(value);
        Some((key, View { node, kind: self.kind }))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tantivy::schema::OwnedValue;

    use sonic_rs::JsonContainerTrait;

    use super::*;

    fn tree(value: serde_json::Value) -> Value {
        sonic_rs::from_str(&value.to_string()).unwrap()
    }

    /// A view materialized as tantivy's owned value, nulls included, as JSON.
    fn owned(view: View<'_>) -> serde_json::Value {
        serde_json::to_value(OwnedValue::from(view.as_value())).unwrap()
    }

    #[test]
    fn views_split_a_document_by_value_type() {
        let long = "x".repeat(257);
        let doc = tree(json!({"t": "Tere", "n": 5, "f": 1.5, "b": true, "d": "2020-01-05T10:00:00Z", "a": ["x", 2, {"long": long}]}));
        assert_eq!(
            owned(text_view(&doc)),
            json!({"t": "Tere", "n": null, "f": null, "b": null, "d": null, "a": ["x", null, {"long": long}]})
        );
        assert_eq!(
            owned(keyword_view(&doc)),
            json!({"t": "Tere", "n": 5, "f": 1.5, "b": true, "d": "2020-01-05T10:00:00Z", "a": ["x", 2, {"long": null}]})
        );
    }

    #[test]
    fn numbers_read_as_tantivy_reads_json() {
        let doc = tree(json!({"i": -3, "u": u64::MAX, "f": 2.0}));
        let view = keyword_view(&doc);
        let leaves: Vec<_> = doc.as_object().unwrap().iter().map(|(_, v)| view.leaf(v.as_ref())).collect();
        assert!(
            matches!(leaves[..], [ReferenceValueLeaf::I64(-3), ReferenceValueLeaf::U64(u64::MAX), ReferenceValueLeaf::F64(f)] if f == 2.0)
        );
    }

    #[test]
    fn facts_are_left_to_fact_documents() {
        let doc = tree(json!({"t": "x", "texta_facts": [{"fact": "PER", "str_val": "Mari"}], "m": {"texta_facts": "kept"}}));
        assert_eq!(owned(keyword_view(&doc)), json!({"t": "x", "m": {"texta_facts": "kept"}}));
        let fact = tree(json!({"fact": "PER", "str_val": "Mari"}));
        assert_eq!(owned(fact_view(&fact)), json!({"texta_facts": {"fact": "PER", "str_val": "Mari"}}));
    }

    #[test]
    fn the_keyword_limit_counts_characters_not_bytes() {
        let null = Value::new_null();
        let view = keyword_view(&null);
        assert!(matches!(view.leaf(ValueRef::String(&"õ".repeat(256))), ReferenceValueLeaf::Str(_)));
        assert!(matches!(view.leaf(ValueRef::String(&"õ".repeat(257))), ReferenceValueLeaf::Null));
    }
}
