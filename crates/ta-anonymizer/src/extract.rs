//! Finding the variants of one name in a text (the reference's `NameExtractor.extract`): fuzzy variants, the
//! alternation, the similarity filter and the clean-up.

use std::sync::Arc;

use regex::Regex;

use super::fuzzy::{FuzzyWord, Haystack, PieceHits, PieceIndexBuilder};
use super::jaro::jaro_winkler;
use super::names::Name;
use super::patterns::{build, first_upper, Components, Literal, RegexCache, Shape};
use super::presence::Scan;
use super::program::Program;
use super::text::{combinations, is_word, lower, strip_trailing_non_word, word_chars_only, word_parts};
use super::AnonymizerConfig;

/// Edit budget ratios of the fuzzy search (`1 - 0.6` and `1 - 0.7` in the reference).
const LAST_NAME_BUDGET: f64 = 1.0 - 0.6;
const FIRST_NAME_BUDGET: f64 = 1.0 - 0.7;

/// Everything about one name that does not depend on the text.
pub(crate) struct NameExtractor {
    first_name: String,
    first_forms: Vec<String>,
    last_forms: Vec<String>,
    fuzzy_first: Vec<FuzzyWord>,
    fuzzy_last: Vec<FuzzyWord>,
    shape: Shape,
    /// Component patterns of the forms above (without fuzzy variants).
    components: Components,
    filter: MatchFilter,
}

impl NameExtractor {
    /// `pieces` collects the pieces of the name's fuzzy words.
    pub(crate) fn new(name: &Name, cfg: &AnonymizerConfig, pieces: &mut PieceIndexBuilder) -> NameExtractor {
        let first_forms = combinations(&name.first);
        let mut last_forms = combinations(&name.last);
        if cfg.mimic_casing {
            push_new(&mut last_forms, without_last_char(&name.last));
        }
        let mut fuzzy = |forms: &[String], ratio| -> Vec<FuzzyWord> {
            if cfg.replace_misspelled_names {
                forms.iter().map(|f| FuzzyWord::new(f, ratio, pieces)).collect()
            } else {
                Vec::new()
            }
        };
        let fuzzy_first = fuzzy(&first_forms, FIRST_NAME_BUDGET);
        let fuzzy_last = fuzzy(&combinations(&name.last), LAST_NAME_BUDGET);
        NameExtractor {
            first_name: name.first.clone(),
            fuzzy_first,
            fuzzy_last,
            components: Components::new(&first_forms, &last_forms, &name.first, Literal::Raw),
            first_forms,
            last_forms,
            shape: Shape {
                single_first: cfg.replace_single_first_names,
                single_last: cfg.replace_single_last_names,
                mimic_casing: cfg.mimic_casing,
            },
            filter: MatchFilter::new(name, cfg.mimic_casing),
        }
    }

    /// Component patterns known in advance (for the anonymizer's presence set).
    pub(crate) fn static_components(&self) -> impl Iterator<Item = &String> {
        self.components.all()
    }

    /// Cleaned, filtered matches of this name in `text` (parentheses already removed), longest first.
    /// `pieces`: the text's piece occurrences from the anonymizer's piece index.
    pub(crate) fn extract(
        &self,
        hay: &Haystack<'_>,
        pieces: &PieceHits,
        scan: &Scan<'_>,
        threshold: f64,
        cache: &RegexCache,
    ) -> Vec<String> {
        let Some(alternation) = self.alternation(hay, pieces, scan, cache) else {
            return Vec::new();
        };
        let mut hits: Vec<&str> = Vec::new();
        for (start, end) in alternation.spans(hay) {
            let hit = self.without_lookahead(&hay.text[start..end]);
            if !hit.is_empty() && !hits.contains(&hit) {
                hits.push(hit);
            }
        }
        let mut matches: Vec<String> = hits
            .into_iter()
            .filter(|h| self.filter.accepts(h, threshold))
            .map(strip_trailing_non_word)
            .filter(|h| h.chars().filter(|&c| is_word(c)).count() > 1)
            .map(str::to_string)
            .collect();
        matches.sort_by(|a, b| b.chars().count().cmp(&a.chars().count()).then_with(|| a.cmp(b)));
        matches
    }

    /// Without mimic_casing the alternation consumed the whitespace that the reference only looked ahead at.
    fn without_lookahead<'t>(&self, hit: &'t str) -> &'t str {
        if self.shape.mimic_casing {
            return hit;
        }
        let cut = hit.char_indices().last().map_or(0, |(i, _)| i);
        &hit[..cut]
    }

    /// The alternation for this text: static and fuzzy forms, reduced to alternatives that can match here.
    fn alternation(&self, hay: &Haystack<'_>, pieces: &PieceHits, scan: &Scan<'_>, cache: &RegexCache) -> Option<Alternation> {
        let new_first = self.new_fuzzy_forms(&self.first_forms, &self.fuzzy_first, hay, pieces);
        let new_last = self.new_fuzzy_forms(&self.last_forms, &self.fuzzy_last, hay, pieces);
        let mut components = self.components.clone();
        components.extend(&new_first, &new_last, Literal::Raw);
        let source = components.source(self.shape, &|p| scan.contains(p))?;
        if let Some(program) = Program::parse(&source) {
            return Some(Alternation::Program(program));
        }
        let regex = cache.get_or_compile(source.clone(), || {
            build(&source).ok().or_else(|| self.escaped_regex(&new_first, &new_last, scan))
        })?;
        Some(Alternation::Regex(regex))
    }

    /// Fallback when verbatim forms are not valid in the `regex` crate's dialect: all forms escaped, reduced to
    /// the alternatives that can match here like the verbatim alternation (unreduced, a long name's alternation
    /// took seconds to compile, even for an empty text).
    fn escaped_regex(&self, new_first: &[String], new_last: &[String], scan: &Scan<'_>) -> Option<Regex> {
        let mut components = Components::new(&self.first_forms, &self.last_forms, &self.first_name, Literal::Escaped);
        components.extend(new_first, new_last, Literal::Escaped);
        build(&components.source(self.shape, &|p| scan.contains(p))?).ok()
    }

    /// Fuzzy hits that are not already forms.
    fn new_fuzzy_forms(&self, forms: &[String], words: &[FuzzyWord], hay: &Haystack<'_>, pieces: &PieceHits) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for word in words {
            for hit in word.hits(hay, pieces, self.shape.mimic_casing) {
                if !forms.contains(&hit) {
                    push_new(&mut out, hit);
                }
            }
        }
        out
    }
}

/// A per-text alternation: a [`Program`], or a compiled regex for patterns outside the program's subset.
enum Alternation {
    Program(Program),
    Regex(Arc<Regex>),
}

impl Alternation {
    /// Byte spans of the non-overlapping leftmost-first matches.
    fn spans(&self, hay: &Haystack<'_>) -> Vec<(usize, usize)> {
        match self {
            Alternation::Program(p) => p.find_iter(hay).map(|(s, e)| (hay.byte_at[s], hay.byte_at[e])).collect(),
            Alternation::Regex(r) => r.find_iter(hay.text).map(|m| (m.start(), m.end())).collect(),
        }
    }
}

/// The reference's `_filter_matches`: a hit is kept if its lower-cased word characters start with a name
/// variation (mimic_casing) or are Jaro–Winkler-similar to one.
struct MatchFilter {
    /// Lower-cased variations; `.` (from initials) is a wildcard in the prefix test.
    variations: Vec<String>,
    prefix_test: bool,
}

impl MatchFilter {
    fn new(name: &Name, mimic_casing: bool) -> MatchFilter {
        let norm = |s: &str| lower(&word_chars_only(s));
        let first = norm(&name.first);
        let last = norm(&name.last);
        let mut variations = vec![first.clone(), last.clone(), format!("{first}{last}")];
        for initials in initials_forms(&name.first) {
            variations.push(format!("{}{last}", lower(&initials)));
        }
        variations.extend(combinations(&name.first).iter().map(|f| norm(f)));
        variations.extend(combinations(&name.last).iter().map(|f| norm(f)));
        let mut unique = Vec::new();
        for v in variations {
            push_new(&mut unique, v);
        }
        MatchFilter {
            variations: unique,
            prefix_test: mimic_casing,
        }
    }

    fn accepts(&self, hit: &str, threshold: f64) -> bool {
        let stripped = lower(&word_chars_only(hit));
        self.variations
            .iter()
            .any(|v| (self.prefix_test && wildcard_prefix(v, &stripped)) || jaro_winkler(&stripped, v) >= threshold)
    }
}

/// `re.match(variation, s)` for a variation made of word characters, `-` and wildcard `.`.
fn wildcard_prefix(variation: &str, s: &str) -> bool {
    let mut text = s.chars();
    variation.chars().all(|v| match text.next() {
        Some(c) => c == v || (v == '.' && c != '\n'),
        None => false,
    })
}

/// Initials of every first-name form without wildcards: `K.-J.`, `K-J`, `K.J.`, `KJ` (and per part).
fn initials_forms(first_name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for form in combinations(first_name) {
        let letters: Vec<String> = word_parts(&form).iter().map(|p| first_upper(p)).collect();
        let dotted: Vec<String> = letters.iter().map(|l| format!("{l}.")).collect();
        for candidate in [dotted.join("-"), letters.join("-"), dotted.concat(), letters.concat()] {
            push_new(&mut out, candidate);
        }
    }
    out
}

fn without_last_char(s: &str) -> String {
    let mut chars = s.chars();
    chars.next_back();
    chars.as_str().to_string()
}

fn push_new(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}
