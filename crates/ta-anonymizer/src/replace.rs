//! Assigning matches to names and rewriting the text (the reference's `_organize_substitutions` and its
//! `re.sub` loop).
//!
//! Each match string is substituted everywhere in the text, as a regular expression (unescaped, as the
//! reference does: `.` in `M. Tamm` is a wildcard) and not bounded by word boundaries. Match strings without
//! regex syntax are replaced as plain substrings, which is the same thing, faster; the others run as a
//! [`Program`] (or, outside its subset, a cached regex). The replacement is literal.

use super::fuzzy::Haystack;
use super::patterns::{build, RegexCache};
use super::program::Program;
use super::synth::replacement;

/// The matches found for one name key (`"First Last"`) and the initials that replace them.
pub(crate) struct NameMatches<'a> {
    pub full_name: String,
    pub matches: Vec<String>,
    pub replacer: &'a str,
}

/// Collect per-name results under their `"First Last"` key; a repeated key takes the later name's matches and
/// replacer but keeps its first position (a Python dict).
pub(crate) fn keyed<'a>(results: impl IntoIterator<Item = NameMatches<'a>>) -> Vec<NameMatches<'a>> {
    let mut out: Vec<NameMatches<'a>> = Vec::new();
    for r in results {
        match out.iter_mut().find(|o| o.full_name == r.full_name) {
            Some(slot) => *slot = r,
            None => out.push(r),
        }
    }
    out
}

/// Names with more matches claim shared match strings first; the substitutions then run longest match first.
fn organise<'n, 'a>(mut names: Vec<&'n NameMatches<'a>>) -> Vec<(&'n str, &'n NameMatches<'a>)> {
    names.sort_by_key(|n| std::cmp::Reverse(n.matches.len()));
    let mut claimed: Vec<(&str, &NameMatches)> = Vec::new();
    for name in names {
        let before = claimed.len();
        for m in &name.matches {
            if !claimed[..before].iter().any(|(c, _)| c == m) {
                claimed.push((m.as_str(), name));
            }
        }
    }
    claimed.sort_by_key(|(m, _)| std::cmp::Reverse(m.chars().count()));
    claimed
}

/// Apply all substitutions to `text`.
pub(crate) fn rewrite(mut text: String, names: &[NameMatches<'_>], cache: &RegexCache) -> String {
    for (found, name) in organise(names.iter().collect()) {
        let with = replacement(found, &name.full_name, name.replacer);
        text = substitute(&text, found, &with, cache);
    }
    text
}

/// Characters that make a match string a pattern rather than a plain substring.
const REGEX_SYNTAX: &[char] = &['.', '^', '$', '*', '+', '?', '{', '}', '[', ']', '\\', '|', '(', ')'];

fn substitute(text: &str, pattern: &str, with: &str, cache: &RegexCache) -> String {
    if !pattern.contains(REGEX_SYNTAX) {
        return text.replace(pattern, with);
    }
    if let Some(program) = Program::parse(pattern) {
        return replace_all(text, &program, with);
    }
    match cache.get_or_compile(pattern.to_string(), || build(pattern).ok()) {
        Some(re) => re.replace_all(text, regex::NoExpand(with)).into_owned(),
        None => text.replace(pattern, with),
    }
}

/// `regex.replace_all(text, NoExpand(with))` for a program (whose matches are never empty).
fn replace_all(text: &str, program: &Program, with: &str) -> String {
    let hay = Haystack::new(text);
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in program.find_iter(&hay) {
        out.push_str(&text[last..hay.byte_at[start]]);
        out.push_str(with);
        last = hay.byte_at[end];
    }
    out.push_str(&text[last..]);
    out
}
