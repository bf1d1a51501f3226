//! Python string semantics the reference relies on (`str.isspace`, `str.strip`, `repr`),
//! shared by validation, the matchers and the messages that print Python values.

/// Python `str.isspace` for one character.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python `str.strip()`.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python `repr()` of a string: single quotes unless the text holds one and no double
/// quote; backslash escapes for the quote, `\\`, `\n`, `\r`, `\t` and other control characters.
pub fn repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python `repr()` of a list of strings: `['a', 'b']`.
pub fn repr_list(items: &[String]) -> String {
    format!("[{}]", items.iter().map(|s| repr(s)).collect::<Vec<_>>().join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reprs_like_python() {
        assert_eq!(repr("a'b"), "\"a'b\"");
        assert_eq!(repr("a'\"b\n"), "'a\\'\"b\\n'");
        assert_eq!(repr_list(&["x".into(), "y".into()]), "['x', 'y']");
    }
}

/// Python's `json.dumps(value)` with its defaults: `", "` and `": "` separators and
/// non-ASCII characters escaped (`\uXXXX`, surrogate pairs above the BMP); how the reference
/// renders JSON kept as text (a model's `query`).
pub fn json_dumps(value: &serde_json::Value) -> String {
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                w.write_all(b", ")
            }
        }
        fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                w.write_all(b", ")
            }
        }
        fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
            w.write_all(b": ")
        }
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
    if serde::Serialize::serialize(value, &mut ser).is_err() {
        return value.to_string();
    }
    let text = String::from_utf8(out).unwrap_or_default();
    let mut ascii = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            ascii.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                ascii.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    ascii
}

#[cfg(test)]
mod json_dumps_tests {
    use super::json_dumps;
    use serde_json::json;

    #[test]
    fn matches_python_json_dumps() {
        assert_eq!(json_dumps(&json!({"query": {"match_all": {}}})), r#"{"query": {"match_all": {}}}"#);
        assert_eq!(
            json_dumps(&json!({"a": [1, 2.5, "x"], "b": null})),
            r#"{"a": [1, 2.5, "x"], "b": null}"#
        );
        assert_eq!(json_dumps(&json!({"t": "päev 🚓"})), r#"{"t": "p\u00e4ev \ud83d\ude93"}"#);
    }
}
