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
