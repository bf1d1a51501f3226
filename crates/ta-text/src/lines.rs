//! Input lines of batch runs (`ta … < in.jsonl`): a JSON string or a bare line is a text, a
//! JSON object is a document. `BatchItem` is a line parsed whole; `SparseLine` is a line
//! parsed only as far as field lookups need (objects and strings, borrowed from the line
//! where they have no escapes), which is what a fast batch tagger wants. `DocTree` lets the
//! same field lookup run over either.

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// One input line of a batch run, parsed whole.
pub enum BatchItem {
    /// A text (from a JSON string, or the bare line).
    Text(String),
    /// A JSON object.
    Doc(Value),
}

impl BatchItem {
    pub fn parse(line: &str) -> BatchItem {
        match serde_json::from_str::<Value>(line) {
            Ok(Value::String(s)) => BatchItem::Text(s),
            Ok(v @ Value::Object(_)) => BatchItem::Doc(v),
            _ => BatchItem::Text(line.to_string()),
        }
    }
}

/// One input line parsed as far as field lookups need; same classification as
/// `BatchItem::parse`.
pub enum SparseLine<'a> {
    Text(Cow<'a, str>),
    Doc(Sparse<'a>),
}

impl<'a> SparseLine<'a> {
    pub fn parse(line: &'a str) -> SparseLine<'a> {
        let bare = || SparseLine::Text(Cow::Borrowed(line));
        match line.trim_start().as_bytes().first() {
            Some(b'{') => match serde_json::from_str::<Sparse>(line) {
                Ok(doc) => SparseLine::Doc(doc),
                Err(_) => bare(),
            },
            Some(b'"') => match serde_json::from_str::<Sparse>(line) {
                Ok(Sparse::Str(s)) => SparseLine::Text(s),
                _ => bare(),
            },
            _ => bare(),
        }
    }
}

/// A JSON value reduced to what field lookups read: strings, objects (entries in document
/// order, duplicates kept) and everything else as `Other`.
#[derive(Debug, PartialEq)]
pub enum Sparse<'a> {
    Str(Cow<'a, str>),
    Obj(Vec<(Cow<'a, str>, Sparse<'a>)>),
    Other,
}

impl<'de> Deserialize<'de> for Sparse<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SparseVisitor)
    }
}

struct SparseVisitor;

impl<'de> Visitor<'de> for SparseVisitor {
    type Value = Sparse<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Sparse::Str(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Sparse::Str(Cow::Owned(v.to_string())))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Sparse::Str(Cow::Owned(v)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(Key(key)) = map.next_key()? {
            entries.push((key, map.next_value()?));
        }
        Ok(Sparse::Obj(entries))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Sparse::Other)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Sparse::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Sparse::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Sparse::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Sparse::Other)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Sparse::Other)
    }
}

/// An object key, borrowed from the line when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match deserializer.deserialize_str(SparseVisitor)? {
            Sparse::Str(s) => Ok(Key(s)),
            _ => Err(serde::de::Error::custom("object key is not a string")),
        }
    }
}

/// A JSON document as field lookups see it.
pub trait DocTree {
    /// The entries of an object, in document order; None for other values.
    fn entries(&self) -> Option<impl Iterator<Item = (&str, &Self)>>;
    /// The string, for a string value.
    fn text(&self) -> Option<&str>;
}

impl DocTree for Value {
    fn entries(&self) -> Option<impl Iterator<Item = (&str, &Self)>> {
        self.as_object()
            .map(|m: &Map<String, Value>| m.iter().map(|(k, v)| (k.as_str(), v)))
    }

    fn text(&self) -> Option<&str> {
        self.as_str()
    }
}

impl DocTree for Sparse<'_> {
    fn entries(&self) -> Option<impl Iterator<Item = (&str, &Self)>> {
        match self {
            Sparse::Obj(entries) => Some(entries.iter().map(|(k, v)| (k.as_ref(), v))),
            _ => None,
        }
    }

    fn text(&self) -> Option<&str> {
        match self {
            Sparse::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// The value a flattened document (nested objects joined with `.`, later keys winning)
/// holds under `field`, found without flattening: the last non-object value in document
/// order whose dotted path is `field`. A document that is not an object is found under "".
pub fn flat_get<'a, D: DocTree>(doc: &'a D, field: &str) -> Option<&'a D> {
    fn walk<'a, D: DocTree>(entries: impl Iterator<Item = (&'a str, &'a D)>, path: &str, found: &mut Option<&'a D>) {
        for (k, v) in entries {
            let Some(rest) = path.strip_prefix(k) else {
                continue;
            };
            match (rest.strip_prefix('.'), v.entries()) {
                (Some(rest), Some(inner)) => walk(inner, rest, found),
                (_, Some(_)) => {}
                _ if rest.is_empty() => *found = Some(v),
                _ => {}
            }
        }
    }
    match doc.entries() {
        Some(entries) => {
            let mut found = None;
            walk(entries, field, &mut found);
            found
        }
        None => field.is_empty().then_some(doc),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sparse_lines_classify_like_whole_lines() {
        for line in [
            r#""a text""#,
            "bare words",
            r#"{"text": "x"}"#,
            "[1, 2]",
            "42",
            r#"{"broken": "#,
            r#""esc\"aped""#,
            "  {\"a\": 1}",
        ] {
            let whole = BatchItem::parse(line);
            match (SparseLine::parse(line), whole) {
                (SparseLine::Text(a), BatchItem::Text(b)) => assert_eq!(a, b, "{line}"),
                (SparseLine::Doc(_), BatchItem::Doc(_)) => {}
                _ => panic!("{line}: classified differently"),
            }
        }
    }

    #[test]
    fn sparse_keeps_strings_and_objects_borrowing_when_it_can() {
        let line = r#"{"a": {"b": "inner", "n": 1, "l": ["x"]}, "e": "t\u00e4", "z": null}"#;
        let SparseLine::Doc(doc) = SparseLine::parse(line) else { panic!() };
        let Sparse::Obj(entries) = &doc else { panic!() };
        assert_eq!(entries.len(), 3);
        assert!(matches!(flat_get(&doc, "a.b"), Some(Sparse::Str(Cow::Borrowed("inner")))));
        assert!(matches!(flat_get(&doc, "e"), Some(Sparse::Str(Cow::Owned(s))) if s == "tä"));
        assert_eq!(flat_get(&doc, "a.n"), Some(&Sparse::Other));
        assert_eq!(flat_get(&doc, "a.l"), Some(&Sparse::Other));
        assert_eq!(flat_get(&doc, "a"), None);
    }

    #[test]
    fn flat_get_agrees_between_values_and_sparse_lines() {
        let doc = json!({
            "a": {"b": "inner", "c": {"d": 1}}, "a.b": "dotted", "x.y": {"z": "first"},
            "x": {"y.z": "second", "y": {"z": "third"}}, "e": {}, "f": [1], "s": "top"
        });
        let line = doc.to_string();
        let SparseLine::Doc(sparse) = SparseLine::parse(&line) else {
            panic!()
        };
        for field in ["a.b", "a.c.d", "a.c", "x.y.z", "e", "f", "s", "a", "", "missing", "a.b.c"] {
            let from_value = flat_get(&doc, field).map(|v| v.as_str());
            let from_sparse = flat_get(&sparse, field).map(|v| v.text());
            assert_eq!(from_value, from_sparse, "{field}");
        }
    }
}
