//! Which component patterns occur in a text: one `RegexSet` pass for the patterns known when the anonymizer
//! is built, a [`Program`] (or, outside its subset, a cached regex) for the patterns of fuzzy variants. Lets
//! the extractor drop alternatives that cannot match, which keeps the per-text alternations small (and usually
//! absent).

use std::collections::HashMap;

use regex::{RegexSet, RegexSetBuilder, SetMatches};

use super::fuzzy::Haystack;
use super::patterns::{build, RegexCache};
use super::program::Program;

/// The static component patterns of all names.
pub(crate) struct Presence {
    set: RegexSet,
    index: HashMap<String, usize>,
}

/// Presence answers for one text.
pub(crate) struct Scan<'a> {
    presence: &'a Presence,
    matched: SetMatches,
    hay: &'a Haystack<'a>,
    cache: &'a RegexCache,
}

impl Presence {
    /// Patterns that do not compile on their own are left out (and then count as present).
    pub(crate) fn new<'p>(patterns: impl Iterator<Item = &'p String>) -> Presence {
        let mut index = HashMap::new();
        let mut valid = Vec::new();
        for p in patterns {
            if !index.contains_key(p) && (Program::parse(p).is_some() || build(p).is_ok()) {
                index.insert(p.clone(), valid.len());
                valid.push(p.as_str());
            }
        }
        let set = RegexSetBuilder::new(&valid).size_limit(1 << 28).build();
        match set {
            Ok(set) => Presence { set, index },
            Err(_) => Presence {
                set: RegexSet::empty(),
                index: HashMap::new(),
            },
        }
    }

    pub(crate) fn scan<'a>(&'a self, hay: &'a Haystack<'a>, cache: &'a RegexCache) -> Scan<'a> {
        Scan {
            presence: self,
            matched: self.set.matches(hay.text),
            hay,
            cache,
        }
    }
}

impl Scan<'_> {
    /// Whether `pattern` matches somewhere in the text (`true` when that cannot be decided).
    pub(crate) fn contains(&self, pattern: &str) -> bool {
        if let Some(&i) = self.presence.index.get(pattern) {
            return self.matched.matched(i);
        }
        if let Some(program) = Program::parse(pattern) {
            return program.is_match(self.hay);
        }
        match self.cache.get_or_compile(pattern.to_string(), || build(pattern).ok()) {
            Some(re) => re.is_match(self.hay.text),
            None => true,
        }
    }
}
