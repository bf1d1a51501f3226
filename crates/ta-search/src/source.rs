//! Document sources as the stores take them in: the bytes of one JSON object, kept as the
//! stored `_source` (and sent as they are to Elasticsearch), with the tree sonic-rs parses
//! from them, which the embedded store indexes from. Imports never build `serde_json` values:
//! parsing lines into them, serializing them back and dropping them was a quarter of an
//! import's CPU time.

use serde_json::{Map, Value};
use sonic_rs::{JsonValueTrait, ValueRef};

/// One document's `_source`: valid JSON, an object, no key twice in any object.
pub struct Source {
    bytes: Vec<u8>,
    tree: sonic_rs::Value,
}

impl Source {
    /// Reads one JSON object. Surrounding whitespace is dropped. A key given twice in an
    /// object keeps its last value (in the place of its first), as serde_json and Python's
    /// `json` read it. The error says why the bytes are not a JSON object, in serde_json's
    /// words.
    pub fn parse(mut bytes: Vec<u8>) -> Result<Self, String> {
        let end = bytes.len() - bytes.iter().rev().take_while(|b| b.is_ascii_whitespace()).count();
        bytes.truncate(end);
        if too_deep(&bytes) {
            return Err(serde_reason(&bytes));
        }
        let tree: sonic_rs::Value = match sonic_rs::from_slice(&bytes) {
            Ok(tree) => tree,
            Err(_) => return Err(serde_reason(&bytes)),
        };
        if !tree.is_object() {
            return Err(NOT_AN_OBJECT.to_string());
        }
        if has_repeated_keys(&tree) {
            let value: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
            return Ok(Self::from_value(&value));
        }
        Ok(Self { bytes, tree })
    }

    /// The source of an object given as serde_json values. Neither step can fail for a
    /// serde_json object (string keys, finite numbers, nesting serde_json could read); the
    /// empty object they fall back to is never reached.
    pub fn from_map(map: &Map<String, Value>) -> Self {
        let bytes = serde_json::to_vec(map).unwrap_or_else(|_| b"{}".to_vec());
        // read back from the text, which keeps the key order (`sonic_rs::to_value` does not)
        let tree = sonic_rs::from_slice(&bytes).unwrap_or_else(|_| sonic_rs::Value::new_object());
        Self { bytes, tree }
    }

    fn from_value(value: &Value) -> Self {
        match value {
            Value::Object(map) => Self::from_map(map),
            _ => Self::from_map(&Map::new()),
        }
    }

    /// The JSON text.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The JSON text, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The parsed object.
    pub fn tree(&self) -> &sonic_rs::Value {
        &self.tree
    }
}

/// Why valid JSON is refused as a document.
pub const NOT_AN_OBJECT: &str = "not a JSON object";

/// serde_json's description of what is wrong with bytes sonic-rs refused (the same
/// messages as before sonic-rs read imports); both refuse the same inputs.
fn serde_reason(bytes: &[u8]) -> String {
    match serde_json::from_slice::<Value>(bytes) {
        Err(e) => e.to_string(),
        Ok(_) => "invalid JSON".to_string(),
    }
}

/// Deepest nesting of arrays and objects read, serde_json's recursion limit: sonic-rs has
/// none, and deeper trees would overflow the stack of the code that walks them.
const MAX_DEPTH: usize = 128;

/// Whether arrays and objects nest deeper than `MAX_DEPTH` (brackets inside strings do not
/// count); a quick count of opening brackets answers for nearly every document.
fn too_deep(bytes: &[u8]) -> bool {
    if bytes.iter().filter(|&&b| b == b'[' || b == b'{').count() <= MAX_DEPTH {
        return false;
    }
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Whether some object in the tree names a key twice.
fn has_repeated_keys(value: &sonic_rs::Value) -> bool {
    match value.as_ref() {
        ValueRef::Object(object) => {
            let keys: Vec<&str> = object.iter().map(|(k, _)| k).collect();
            let repeated = if keys.len() <= 16 {
                keys.iter().enumerate().any(|(i, k)| keys[..i].contains(k))
            } else {
                let mut seen = rustc_hash::FxHashSet::default();
                !keys.iter().all(|k| seen.insert(*k))
            };
            repeated || object.iter().any(|(_, v)| has_repeated_keys(v))
        }
        ValueRef::Array(items) => items.iter().any(has_repeated_keys),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use sonic_rs::JsonContainerTrait;

    use super::*;

    fn value(source: &Source) -> Value {
        serde_json::from_slice(source.bytes()).unwrap()
    }

    #[test]
    fn a_line_is_kept_as_given_without_surrounding_whitespace() {
        let source = Source::parse(b"{\"b\": 1, \"a\": [\"x\"]}  \r\n".to_vec()).unwrap();
        assert_eq!(source.bytes(), b"{\"b\": 1, \"a\": [\"x\"]}");
        assert_eq!(source.tree().as_object().map(|o| o.len()), Some(2));
    }

    #[test]
    fn repeated_keys_keep_the_last_value_in_the_first_place() {
        let source = Source::parse(br#"{"a": 1, "b": {"c": 1, "c": 2}, "a": 3}"#.to_vec()).unwrap();
        assert_eq!(value(&source), json!({"a": 3, "b": {"c": 2}}));
        assert_eq!(serde_json::to_string(&value(&source)).unwrap(), r#"{"a":3,"b":{"c":2}}"#);
        assert_eq!(source.tree().as_object().map(|o| o.len()), Some(2));
    }

    #[test]
    fn errors_read_as_serde_json_words_them() {
        assert_eq!(Source::parse(b"[1, 2]".to_vec()).err().unwrap(), "not a JSON object");
        assert_eq!(
            Source::parse(b"{\"a\": }".to_vec()).err().unwrap(),
            "expected value at line 1 column 7"
        );
        assert_eq!(
            Source::parse(b"{\"a\": \"\xff\"}".to_vec()).err().unwrap(),
            "invalid unicode code point at line 1 column 8"
        );
    }

    #[test]
    fn nesting_deeper_than_serde_json_reads_is_refused_not_a_crash() {
        let nested = |depth: usize| format!("{{\"a\": {}1{}}}", "[".repeat(depth), "]".repeat(depth)).into_bytes();
        assert!(Source::parse(nested(127)).is_ok());
        let err = Source::parse(nested(100_000)).err().unwrap();
        assert!(err.starts_with("recursion limit exceeded"), "{err}");
        let brackets_in_strings = format!("{{\"a\": \"{}\\\"{}\"}}", "[".repeat(500), "{".repeat(500));
        assert!(Source::parse(brackets_in_strings.into_bytes()).is_ok());
    }

    #[test]
    fn maps_become_sources() {
        let map = json!({"t": "x", "n": [1, 2.5]}).as_object().cloned().unwrap();
        let source = Source::from_map(&map);
        assert_eq!(source.bytes(), br#"{"t":"x","n":[1,2.5]}"#);
        assert_eq!(sonic_rs::to_string(source.tree()).unwrap(), r#"{"t":"x","n":[1,2.5]}"#);
        assert_eq!(value(&source), Value::Object(map));
    }
}
