//! The per-name alternation of the reference (`NameExtractor.generate_pattern`), built as pattern strings that
//! run as a [`Program`](super::program::Program), plus a bounded cache of `regex` compilations for the patterns
//! outside the program's subset (alternations depend on the text).
//!
//! Name forms are inserted unescaped, as in the reference (`.` in a form is a wildcard). When a form does not
//! compile in the `regex` crate's dialect, the whole alternation is rebuilt with escaped forms instead.
//! Alternatives are ordered by pattern length, longest first; ties are broken lexicographically (the
//! reference's order there depends on Python's hash seed).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use regex::Regex;

use super::text::{capitalize, lower, py_len, title, upper, word_parts};

/// How raw name text enters a pattern.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Literal {
    /// Verbatim (the reference's behaviour).
    Raw,
    /// Escaped: the fallback when the verbatim pattern does not compile.
    Escaped,
}

impl Literal {
    fn apply(self, s: &str) -> String {
        match self {
            Literal::Raw => s.to_string(),
            Literal::Escaped => regex::escape(s),
        }
    }
}

/// Separators between the words of one name form in the UPPER / Title patterns.
const SEPARATOR: &str = r"(?:\s|-|–|–)+";

/// The pieces of one name's alternation: casing patterns of the first- and last-name forms, and the initials.
#[derive(Clone, Default)]
pub(crate) struct Components {
    pub first: Vec<String>,
    pub last: Vec<String>,
    pub initials: String,
}

/// Which alternatives exist (the anonymizer's flags).
#[derive(Clone, Copy)]
pub(crate) struct Shape {
    pub single_first: bool,
    pub single_last: bool,
    pub mimic_casing: bool,
}

impl Components {
    pub(crate) fn new(first_forms: &[String], last_forms: &[String], first_name: &str, lit: Literal) -> Components {
        Components {
            first: casing_patterns(first_forms, lit),
            last: casing_patterns(last_forms, lit),
            initials: initials_pattern(first_name, lit),
        }
    }

    /// Add the casing patterns of further forms (fuzzy variants).
    pub(crate) fn extend(&mut self, first_forms: &[String], last_forms: &[String], lit: Literal) {
        for p in casing_patterns(first_forms, lit) {
            push_new(&mut self.first, p);
        }
        for p in casing_patterns(last_forms, lit) {
            push_new(&mut self.last, p);
        }
    }

    /// Every component pattern.
    pub(crate) fn all(&self) -> impl Iterator<Item = &String> {
        self.first.iter().chain(&self.last).chain(std::iter::once(&self.initials))
    }

    /// The alternation source: alternatives whose components all pass `present` (an alternative with a
    /// component that occurs nowhere in the text can never match, so dropping it changes no result), longest
    /// first, then the tail (`\S*`, or one whitespace character standing for the reference's `(?=\s)`; the
    /// caller drops it from each hit). `None` when no alternative is left.
    pub(crate) fn source(&self, shape: Shape, present: &dyn Fn(&str) -> bool) -> Option<String> {
        let first = present_only(&self.first, present);
        let last = present_only(&self.last, present);
        let mut first_or_initials = first.clone();
        if present(&self.initials) {
            first_or_initials.push(&self.initials);
        }
        let mut alternatives = Vec::new();
        for (a, b) in [(&first_or_initials, &last), (&last, &first_or_initials)] {
            for x in a.iter() {
                alternatives.extend(b.iter().map(|y| format!(r"(?:{x}\s*{y})")));
            }
        }
        if shape.single_last {
            alternatives.extend(last.iter().map(|p| p.to_string()));
        }
        if shape.single_first {
            alternatives.extend(first.iter().map(|p| p.to_string()));
        }
        if alternatives.is_empty() {
            return None;
        }
        alternatives.sort_by(|a, b| py_len(b).cmp(&py_len(a)).then_with(|| a.cmp(b)));
        alternatives.dedup();
        let tail = if shape.mimic_casing { r"\S*" } else { r"\s" };
        Some(format!("(?:{}){tail}", alternatives.join("|")))
    }
}

fn present_only<'a>(list: &'a [String], present: &dyn Fn(&str) -> bool) -> Vec<&'a str> {
    list.iter().map(String::as_str).filter(|p| present(p)).collect()
}

fn push_new(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// UPPER, Title, spaced UPPER and spaced Title patterns of every form, de-duplicated.
fn casing_patterns(forms: &[String], lit: Literal) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for form in forms {
        for p in [
            joined_words(form, upper, lit),
            joined_words(form, capitalize, lit),
            spaced(&upper(form), lit),
            spaced(&title(form), lit),
        ] {
            push_new(&mut out, p);
        }
    }
    out
}

/// Words of `form` (split at whitespace and dashes) in the given casing; in multi-word forms, words of at most
/// three characters may also be lower case (`van der`).
fn joined_words(form: &str, case: fn(&str) -> String, lit: Literal) -> String {
    let words: Vec<&str> = form
        .split(|c: char| c.is_whitespace() || c == '-' || c == '–')
        .filter(|w| !w.is_empty())
        .collect();
    let multi = words.len() > 1;
    let cased: Vec<String> = words
        .iter()
        .map(|w| {
            if multi && py_len(w) <= 3 {
                format!("(?:{}|{})", lit.apply(&case(w)), lit.apply(&lower(w)))
            } else {
                lit.apply(&case(w))
            }
        })
        .collect();
    cased.join(SEPARATOR)
}

/// Every non-space character separated by `\s+` (`M\s+A\s+R\s+I`).
fn spaced(form: &str, lit: Literal) -> String {
    let chars: Vec<String> = form
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| lit.apply(c.encode_utf8(&mut [0; 4])))
        .collect();
    chars.join(r"\s+")
}

/// Initials of each first-name form: `M\s*\.?-?\s*L\s*\.?` for `Mari-Liis`, alternatives in one group.
fn initials_pattern(first_name: &str, lit: Literal) -> String {
    let alternatives: Vec<String> = super::text::combinations(first_name)
        .iter()
        .map(|form| {
            let initials: Vec<String> = word_parts(form)
                .iter()
                .map(|p| format!(r"{}\s*\.?", lit.apply(&first_upper(p))))
                .collect();
            initials.join(r"-?\s*")
        })
        .collect();
    format!("(?:{})", alternatives.join("|"))
}

/// `name[0].upper()`.
pub(crate) fn first_upper(part: &str) -> String {
    part.chars().next().map(|c| c.to_uppercase().collect()).unwrap_or_default()
}

/// Compile with generous size limits (the alternations of long names are large).
pub(crate) fn build(source: &str) -> Result<Regex, regex::Error> {
    regex::RegexBuilder::new(source).size_limit(1 << 28).build()
}

/// Bounded map from pattern source to compiled regex, shared by the worker threads of one anonymizer.
#[derive(Default)]
pub(crate) struct RegexCache {
    entries: Mutex<HashMap<String, Arc<Regex>>>,
}

const CACHE_CAPACITY: usize = 2048;

impl RegexCache {
    /// Cached regex for `key`, compiled with `make` on a miss (a full cache is emptied first: memory stays flat).
    pub(crate) fn get_or_compile(&self, key: String, make: impl FnOnce() -> Option<Regex>) -> Option<Arc<Regex>> {
        if let Some(hit) = self.lock().get(&key) {
            return Some(Arc::clone(hit));
        }
        let compiled = Arc::new(make()?);
        let mut entries = self.lock();
        if entries.len() >= CACHE_CAPACITY {
            entries.clear();
        }
        entries.insert(key, Arc::clone(&compiled));
        Some(compiled)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Regex>>> {
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
