//! Fuzz target: the regex tagger's dialect parser and matcher (`Matcher::compile`, `find`)
//! with random lexicons, counter lexicons, settings and texts.
//!
//! Input: two setting bytes, then sections separated by U+001E (record separator): the
//! lexicon (one entry a line), the counter lexicon (one entry a line), and one or more
//! texts. Every match must lie inside its text (its span inverted by one only for a lone
//! whitespace character).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::time::Duration;
use ta::engine::regex_tagger::{MatchType, Matcher, MatcherConfig, Operator};

/// Builds the process-wide tables (the case-folding sets of fuzzy, case-insensitive entries) before
/// fuzzing starts: built once per process, they are no per-input cost.
fn warm_up() {
    let cfg = MatcherConfig {
        lexicon: vec!["line".into()],
        n_allowed_edits: 1,
        ..MatcherConfig::default()
    };
    Matcher::compile(&cfg).expect("valid lexicon").find("lines").expect("no timeout");
}

fuzz_target!(init: warm_up(), |data: &[u8]| {
    let [flags, counts, rest @ ..] = data else { return };
    let rest = String::from_utf8_lossy(rest);
    let mut sections = rest.split('\u{1e}');
    let lines = |s: Option<&str>| s.unwrap_or("").lines().map(String::from).collect::<Vec<_>>();
    let cfg = MatcherConfig {
        lexicon: lines(sections.next()),
        counter_lexicon: lines(sections.next()),
        operator: if flags & 1 == 0 { Operator::Or } else { Operator::And },
        match_type: match (flags >> 1) & 3 {
            1 => MatchType::Exact,
            2 => MatchType::Subword,
            _ => MatchType::Prefix,
        },
        return_fuzzy_match: flags & 8 != 0,
        ignore_case: flags & 16 != 0,
        ignore_punctuation: flags & 32 != 0,
        required_words: if flags & 64 != 0 { 0.5 } else { 1.0 },
        n_allowed_edits: i64::from(counts & 3),
        phrase_slop: i64::from((counts >> 2) & 7),
        counter_slop: i64::from(counts >> 5),
    };
    let Ok(matcher) = Matcher::compile(&cfg) else { return };
    // Well under libFuzzer's -timeout=1: a budget overrun is the engine's `Timeout` error.
    let matcher = matcher.with_timeout(Duration::from_millis(200));
    for text in sections {
        let chars = text.chars().count();
        if let Ok(matches) = matcher.find(text) {
            for m in matches {
                // A one-character whitespace match is trimmed from both ends into an inverted
                // span, as the reference answers (regex-tagger.md §4).
                let lone_space = m.span[0] == m.span[1] + 1 && m.str_val.is_empty();
                let ordered = m.span[0] <= m.span[1] || lone_space;
                assert!(ordered && m.span[0].max(m.span[1]) <= chars, "span {:?} outside a text of {chars} chars", m.span);
            }
        }
    }
});
