//! Dynamic field mapping of an index, inferred from the documents like Elasticsearch's
//! dynamic mapping (first seen type wins): strings are `text` (or `date` when they look like
//! one), integers `long`, other numbers `float`, booleans `boolean`, objects are flattened to
//! dotted paths, and the top-level `texta_facts` list is `fact`. `get_fields` reads it.

use std::collections::BTreeMap;
use std::path::Path;

use rustc_hash::FxHashSet;
use sonic_rs::{JsonContainerTrait, JsonNumberTrait, Value, ValueRef};

use super::backend::{FieldInfo, SearchError};

/// Name of the nested fact list at the top level of a document.
pub const FACTS_FIELD: &str = "texta_facts";

/// Path (as segments, so ordering matches a mapping's per-level alphabetical order) → type.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FieldTypes {
    paths: BTreeMap<Vec<String>, String>,
    /// The same paths joined by `SEP`, so a document of known paths is checked without
    /// allocating.
    known: FxHashSet<String>,
}

/// Joins path segments in `known` (tantivy's JSON path separator too).
const SEP: char = '\u{1}';

impl FieldTypes {
    /// Reads the mapping saved by `save`, or an empty one when the file does not exist.
    pub fn load(file: &Path) -> Result<Self, SearchError> {
        let entries: Vec<(Vec<String>, String)> = match std::fs::read(file) {
            Ok(bytes) => {
                serde_json::from_slice(&bytes).map_err(|e| SearchError::Backend(format!("corrupt mapping {}: {e}", file.display())))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(SearchError::Backend(e.to_string())),
        };
        let mut types = Self::default();
        for (path, field_type) in entries {
            types.insert(path, &field_type);
        }
        Ok(types)
    }

    /// Writes the mapping atomically (temporary file + rename).
    pub fn save(&self, file: &Path) -> Result<(), SearchError> {
        let entries: Vec<(&Vec<String>, &String)> = self.paths.iter().collect();
        let bytes = serde_json::to_vec(&entries).map_err(|e| SearchError::Backend(e.to_string()))?;
        let tmp = file.with_extension("tmp");
        let io = |e: std::io::Error| SearchError::Backend(e.to_string());
        std::fs::write(&tmp, bytes).map_err(io)?;
        std::fs::File::open(&tmp).and_then(|f| f.sync_all()).map_err(io)?;
        std::fs::rename(&tmp, file).map_err(io)
    }

    /// Adds the paths of a document's source; returns whether anything new was seen.
    pub fn observe(&mut self, source: &Value) -> bool {
        let Some(map) = source.as_object() else {
            return false;
        };
        let mut changed = false;
        let mut path = String::new();
        for (key, value) in map.iter() {
            path.clear();
            path.push_str(key);
            changed |= if key == FACTS_FIELD {
                self.record(&path, "fact")
            } else {
                self.observe_value(&mut path, value)
            };
        }
        changed
    }

    /// Paths of `text` fields, dotted (used to expand queries that name no field).
    pub fn text_paths(&self) -> Vec<String> {
        self.paths
            .iter()
            .filter(|(_, t)| t.as_str() == "text")
            .map(|(p, _)| p.join("."))
            .collect()
    }

    /// The type of a dotted path, when seen.
    pub fn type_of(&self, dotted: &str) -> Option<&str> {
        self.paths.iter().find(|(p, _)| p.join(".") == dotted).map(|(_, t)| t.as_str())
    }

    pub fn to_infos(&self) -> Vec<FieldInfo> {
        self.paths
            .iter()
            .map(|(path, t)| FieldInfo {
                path: path.join("."),
                field_type: t.clone(),
            })
            .collect()
    }

    /// Records the leaves under `path` (segments joined by `SEP`; restored on return).
    fn observe_value(&mut self, path: &mut String, value: &Value) -> bool {
        match value.as_ref() {
            ValueRef::Null => false,
            ValueRef::Array(items) => items.iter().fold(false, |changed, item| self.observe_value(path, item) | changed),
            ValueRef::Object(map) => {
                let mut changed = false;
                for (key, child) in map.iter() {
                    let len = path.len();
                    path.push(SEP);
                    path.push_str(key);
                    changed |= self.observe_value(path, child);
                    path.truncate(len);
                }
                changed
            }
            leaf => self.record(path, leaf_type(leaf)),
        }
    }

    /// A joined path seen with `field_type`; whether it is new.
    fn record(&mut self, joined: &str, field_type: &str) -> bool {
        if self.known.contains(joined) {
            return false;
        }
        self.insert(joined.split(SEP).map(str::to_string).collect(), field_type)
    }

    /// Sets the type of the field at a dotted path, whatever was seen before.
    pub fn declare(&mut self, dotted: &str, field_type: &str) {
        let path: Vec<String> = dotted.split('.').map(String::from).collect();
        self.known.insert(path.join(&SEP.to_string()));
        self.paths.insert(path, field_type.to_string());
    }

    fn insert(&mut self, path: Vec<String>, field_type: &str) -> bool {
        if self.paths.contains_key(&path) {
            return false;
        }
        self.known.insert(path.join(&SEP.to_string()));
        self.paths.insert(path, field_type.to_string());
        true
    }
}

fn leaf_type(value: ValueRef<'_>) -> &'static str {
    match value {
        ValueRef::Bool(_) => "boolean",
        ValueRef::Number(n) if n.is_i64() || n.is_u64() => "long",
        ValueRef::Number(_) => "float",
        ValueRef::String(s) if looks_like_date(s) => "date",
        _ => "text",
    }
}

/// Elasticsearch's default dynamic date detection: `strict_date_optional_time`
/// (`yyyy-MM-dd['T'time]`) or `yyyy/MM/dd[ time]`.
pub fn looks_like_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 10 || !(b[4] == b'-' || b[4] == b'/') || b[7] != b[4] {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if !(digits(0..4) && digits(5..7) && digits(8..10)) {
        return false;
    }
    let month = (b[5] - b'0') * 10 + (b[6] - b'0');
    let day = (b[8] - b'0') * 10 + (b[9] - b'0');
    let time_sep = if b[4] == b'-' { b'T' } else { b' ' };
    let time_ok =
        b.len() == 10 || (b[10] == time_sep && b.len() > 11 && b[11..].iter().all(|c| c.is_ascii_digit() || b":.+-Z ".contains(c)));
    (1..=12).contains(&month) && (1..=31).contains(&day) && time_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use sonic_rs::json;

    #[test]
    fn infers_types_and_flattens() {
        let mut types = FieldTypes::default();
        assert!(types.observe(&json!({
            "text": "x", "n": 3, "f": 1.5, "ok": true, "when": "2020-01-02T10:00:00Z",
            "a": {"b": "y", "c": [1, 2]}, "texta_facts": [{"fact": "PER"}], "none": null
        })));
        assert!(!types.observe(&json!({"text": 5})));
        let infos: Vec<(String, String)> = types.to_infos().into_iter().map(|i| (i.path, i.field_type)).collect();
        let expected = [
            ("a.b", "text"),
            ("a.c", "long"),
            ("f", "float"),
            ("n", "long"),
            ("ok", "boolean"),
            ("text", "text"),
            ("texta_facts", "fact"),
            ("when", "date"),
        ];
        let expected: Vec<(String, String)> = expected.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
        assert_eq!(infos, expected);
        assert_eq!(types.text_paths(), vec!["a.b", "text"]);
        assert!(types.observe(&json!({"list": [1, {"inner": "x"}]})), "every array item is read");
        assert_eq!((types.type_of("list"), types.type_of("list.inner")), (Some("long"), Some("text")));
        assert!(!types.observe(&json!({"list": [{"inner": "y"}], "a": {"c": [4]}})));
    }

    #[test]
    fn date_detection() {
        assert!(looks_like_date("2020-09-23"));
        assert!(looks_like_date("2020/09/23 11:05:06"));
        assert!(!looks_like_date("2020-13-01"));
        assert!(!looks_like_date("2020-01-01 10:00"));
        assert!(!looks_like_date("hello world"));
    }

    #[test]
    fn save_and_load_round_trip() {
        let dir = std::env::temp_dir().join(format!("ta-mapping-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("fields.json");
        let mut types = FieldTypes::default();
        types.observe(&json!({"a": {"b.c": "x"}}));
        types.save(&file).unwrap();
        assert_eq!(FieldTypes::load(&file).unwrap(), types);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
