//! The two indexed views of a document's JSON, read lazily from the parsed value (no copy):
//! `TextView` feeds the analyzed `text` field with the string values that are not RFC 3339
//! dates; `KeywordView` feeds the `kw` field with every typed value (numbers, booleans,
//! dates) and the strings of at most `KEYWORD_IGNORE_ABOVE` characters kept whole, as
//! Elasticsearch's `keyword` subfield with `ignore_above: 256`. Everything left out of a view
//! reads as null there, which tantivy skips.

use serde_json::Value;
use tantivy::schema::document::{ReferenceValue, ReferenceValueLeaf};
use tantivy::schema::Value as TantivyValue;

/// Longest string (in characters) kept in the keyword view.
pub const KEYWORD_IGNORE_ABOVE: usize = 256;

/// Which values a view lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Keyword,
}

/// A view of one JSON value for one of the two indexed fields.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    value: &'a Value,
    kind: Kind,
}

/// The view of `value` for the analyzed `text` field.
pub fn text_view(value: &Value) -> View<'_> {
    View { value, kind: Kind::Text }
}

/// The view of `value` for the keyword field `kw`.
pub fn keyword_view(value: &Value) -> View<'_> {
    View {
        value,
        kind: Kind::Keyword,
    }
}

impl<'a> TantivyValue<'a> for View<'a> {
    type ArrayIter = ArrayView<'a>;
    type ObjectIter = ObjectView<'a>;

    fn as_value(&self) -> ReferenceValue<'a, Self> {
        match self.value {
            Value::Array(items) => ReferenceValue::Array(ArrayView {
                items: items.iter(),
                kind: self.kind,
            }),
            Value::Object(map) => ReferenceValue::Object(ObjectView {
                entries: map.iter(),
                kind: self.kind,
            }),
            leaf => ReferenceValue::Leaf(self.leaf(leaf)),
        }
    }
}

impl<'a> View<'a> {
    /// The leaf as tantivy reads serde values (strings that are RFC 3339 dates become
    /// dates), then filtered for this view.
    fn leaf(&self, value: &'a Value) -> ReferenceValueLeaf<'a> {
        let leaf = match (&value).as_value() {
            ReferenceValue::Leaf(leaf) => leaf,
            _ => return ReferenceValueLeaf::Null,
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

/// The elements of an array, in the same view.
#[derive(Debug, Clone)]
pub struct ArrayView<'a> {
    items: std::slice::Iter<'a, Value>,
    kind: Kind,
}

impl<'a> Iterator for ArrayView<'a> {
    type Item = View<'a>;

    fn next(&mut self) -> Option<View<'a>> {
        self.items.next().map(|value| View { value, kind: self.kind })
    }
}

/// The entries of an object, in the same view.
#[derive(Debug, Clone)]
pub struct ObjectView<'a> {
    entries: serde_json::map::Iter<'a>,
    kind: Kind,
}

impl<'a> Iterator for ObjectView<'a> {
    type Item = (&'a str, View<'a>);

    fn next(&mut self) -> Option<(&'a str, View<'a>)> {
        self.entries
            .next()
            .map(|(key, value)| (key.as_str(), View { value, kind: self.kind }))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tantivy::schema::OwnedValue;

    use super::*;

    /// A view materialized as tantivy's owned value, nulls included.
    fn owned(view: View<'_>) -> OwnedValue {
        OwnedValue::from(view.as_value())
    }

    #[test]
    fn views_split_a_document_by_value_type() {
        let long = "x".repeat(257);
        let doc = json!({"t": "Tere", "n": 5, "f": 1.5, "b": true, "d": "2020-01-05T10:00:00Z", "a": ["x", 2, {"long": long}]});
        let text = serde_json::to_value(owned(text_view(&doc))).unwrap();
        assert_eq!(
            text,
            json!({"t": "Tere", "n": null, "f": null, "b": null, "d": null, "a": ["x", null, {"long": long}]})
        );
        let kw = serde_json::to_value(owned(keyword_view(&doc))).unwrap();
        assert_eq!(
            kw,
            json!({"t": "Tere", "n": 5, "f": 1.5, "b": true, "d": "2020-01-05T10:00:00Z", "a": ["x", 2, {"long": null}]})
        );
    }

    #[test]
    fn the_keyword_limit_counts_characters_not_bytes() {
        let fits = Value::from("õ".repeat(256));
        assert!(matches!(
            keyword_view(&fits).as_value(),
            ReferenceValue::Leaf(ReferenceValueLeaf::Str(_))
        ));
        let over = Value::from("õ".repeat(257));
        assert!(matches!(
            keyword_view(&over).as_value(),
            ReferenceValue::Leaf(ReferenceValueLeaf::Null)
        ));
    }
}
