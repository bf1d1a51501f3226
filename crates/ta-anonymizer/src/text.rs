//! Python-compatible string primitives used by the anonymizer.
//!
//! The reference builds its patterns with Python's `str.upper()`, `str.capitalize()`, `str.title()` and the
//! `regex` module's Unicode `\w` / `\s` classes; these helpers reproduce them on Rust strings (code points, full
//! case mappings).

/// `\w` of the `regex` module (same definition as the `regex` crate's): alphabetic, marks, decimal digits,
/// connector punctuation, join controls.
pub(crate) fn is_word(c: char) -> bool {
    use std::sync::OnceLock;
    static WORD: OnceLock<regex::Regex> = OnceLock::new();
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    let re = WORD.get_or_init(|| regex::Regex::new(r"^\w$").expect("static pattern"));
    let mut buf = [0u8; 4];
    re.is_match(c.encode_utf8(&mut buf))
}

/// `\s` (Unicode White_Space).
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// Cased for `str.title()`: a character with an upper-, lower- or titlecase form.
fn is_cased(c: char) -> bool {
    c.is_uppercase() || c.is_lowercase() || titlecase(c).is_some()
}

/// Titlecase mappings that differ from the uppercase mapping (digraphs, `ß`, Latin ligatures).
fn titlecase(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' => "Ss",
        'Ǆ' | 'ǅ' | 'ǆ' => "ǅ",
        'Ǉ' | 'ǈ' | 'ǉ' => "ǈ",
        'Ǌ' | 'ǋ' | 'ǌ' => "ǋ",
        'Ǳ' | 'ǲ' | 'ǳ' => "ǲ",
        'ﬀ' => "Ff",
        'ﬁ' => "Fi",
        'ﬂ' => "Fl",
        'ﬃ' => "Ffi",
        'ﬄ' => "Ffl",
        'ﬅ' | 'ﬆ' => "St",
        _ => return None,
    })
}

fn push_title(out: &mut String, c: char) {
    match titlecase(c) {
        Some(t) => out.push_str(t),
        None => out.extend(c.to_uppercase()),
    }
}

/// `str.upper()`.
pub(crate) fn upper(s: &str) -> String {
    s.to_uppercase()
}

/// `str.lower()` (with the final-sigma rule, as Python).
pub(crate) fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// `str.capitalize()`: first character titlecased, the rest lower-cased.
pub(crate) fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    let mut out = String::with_capacity(s.len());
    if let Some(c) = chars.next() {
        push_title(&mut out, c);
        out.push_str(&lower(chars.as_str()));
    }
    out
}

/// `str.title()`: titlecase after an uncased character, lowercase after a cased one.
pub(crate) fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut previous_cased = false;
    for c in s.chars() {
        if previous_cased {
            out.extend(c.to_lowercase());
        } else {
            push_title(&mut out, c);
        }
        previous_cased = is_cased(c);
    }
    out
}

/// `re.sub(r"\W+", "", s)`: keep word characters only.
pub(crate) fn word_chars_only(s: &str) -> String {
    s.chars().filter(|&c| is_word(c)).collect()
}

/// `[p for p in re.split(r"\W", s) if p.strip()]`: the word-character runs of `s`.
pub(crate) fn word_parts(s: &str) -> Vec<&str> {
    s.split(|c: char| !is_word(c)).filter(|p| !p.is_empty()).collect()
}

/// `re.sub(r"\W+$", "", s)`: strip the trailing non-word run.
pub(crate) fn strip_trailing_non_word(s: &str) -> &str {
    s.trim_end_matches(|c: char| !is_word(c))
}

/// Remove all whitespace (`re.sub(r"\s+", "", s)`).
pub(crate) fn without_space(s: &str) -> String {
    s.chars().filter(|&c| !is_space(c)).collect()
}

/// Name form and its `\W`-separated parts, de-duplicated, the whole form first (`_get_combinations`).
pub(crate) fn combinations(name: &str) -> Vec<String> {
    let mut out = vec![name.to_string()];
    for part in word_parts(name) {
        if !out.iter().any(|o| o == part) {
            out.push(part.to_string());
        }
    }
    out
}

/// Python's `len()` (code points).
pub(crate) fn py_len(s: &str) -> usize {
    s.chars().count()
}
