//! Python string semantics the reference relies on (`str.isspace`, `str.strip`), shared
//! by request validation and the matchers so that trimming agrees everywhere.

/// Python `str.isspace` for one character.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python `str.strip()`.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}
