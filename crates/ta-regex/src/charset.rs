//! Character sets for the backtracking engine, derived from the `regex` crate so that both back
//! ends agree exactly on `\w`, `\s`, `\d`, Unicode properties and simple case folding.
//! Sets are built once per distinct class from the ranges the crate's parser resolves (scanning
//! every Unicode scalar value, or every cased one, only for a pattern that is not one class) and
//! cached.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::syntax::{emit_class, Class};

/// A set of characters: a short list (case-fold groups) or a bitmap over all code points.
#[derive(Debug)]
pub enum CharSet {
    Small(Vec<char>),
    Bits(Box<[u64]>),
}

impl CharSet {
    #[inline]
    pub fn contains(&self, c: char) -> bool {
        match self {
            CharSet::Small(v) => v.contains(&c),
            CharSet::Bits(b) => {
                let i = c as usize;
                b[i >> 6] & (1u64 << (i & 63)) != 0
            }
        }
    }

    fn from_ranges(ranges: &[(char, char)]) -> CharSet {
        let count: usize = ranges.iter().map(|&(a, b)| (b as usize - a as usize) + 1).sum();
        if count <= 8 {
            let chars = ranges.iter().flat_map(|&(a, b)| a..=b).collect();
            return CharSet::from_chars(chars);
        }
        let mut bits = vec![0u64; (0x110000 >> 6) + 1].into_boxed_slice();
        for i in ranges.iter().flat_map(|&(a, b)| a as usize..=b as usize) {
            bits[i >> 6] |= 1u64 << (i & 63);
        }
        CharSet::Bits(bits)
    }

    fn from_chars(mut chars: Vec<char>) -> CharSet {
        chars.sort_unstable();
        chars.dedup();
        if chars.len() <= 8 {
            return CharSet::Small(chars);
        }
        let mut bits = vec![0u64; (0x110000 >> 6) + 1].into_boxed_slice();
        for c in chars {
            bits[c as usize >> 6] |= 1u64 << (c as usize & 63);
        }
        CharSet::Bits(bits)
    }
}

/// Every Unicode scalar value, in order, as one string.
fn all_chars() -> &'static str {
    static ALL: OnceLock<String> = OnceLock::new();
    ALL.get_or_init(|| (0..0x110000u32).filter_map(char::from_u32).collect())
}

/// The non-ASCII characters whose simple case-fold group holds an ASCII character
/// (`ſ` ~ `s`, Kelvin sign ~ `k`; the module's `İ` ~ `i` is handled apart).
const FOLDS_INTO_ASCII: &str = "\u{17F}\u{212A}";

/// ASCII and [`FOLDS_INTO_ASCII`]: every character an ASCII character's fold group can contain.
fn ascii_fold_universe() -> &'static str {
    static UNIVERSE: OnceLock<String> = OnceLock::new();
    UNIVERSE.get_or_init(|| (0..0x80u8).map(char::from).chain(FOLDS_INTO_ASCII.chars()).collect())
}

/// Every character that changes under a case mapping, in order: the only characters a case
/// fold group of more than one member can contain.
fn cased_chars() -> &'static str {
    static CASED: OnceLock<String> = OnceLock::new();
    CASED.get_or_init(|| {
        let re = regex::Regex::new(r"\p{Changes_When_Casemapped}+").expect("valid property");
        re.find_iter(all_chars()).map(|m| m.as_str()).collect()
    })
}

/// Patterns the character-set cache holds before it starts afresh: patterns come from users'
/// lexicons, so the cache must not grow without bound.
const CACHE_CAPACITY: usize = 4096;

/// The set of characters of `universe` matched by a `regex`-crate single-character pattern,
/// cached by pattern (callers pass a universe that holds every character the pattern matches;
/// it is built only for a pattern whose ranges the parser does not resolve).
fn set_for_pattern<U: AsRef<str>>(pattern: &str, universe: impl FnOnce() -> U) -> Arc<CharSet> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<CharSet>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(set) = cache.lock().unwrap().get(pattern) {
        return set.clone();
    }
    let set = Arc::new(match class_ranges(pattern) {
        Some(ranges) => CharSet::from_ranges(&ranges),
        None => {
            let re = regex::Regex::new(&format!("(?:{})+", pattern)).expect("emitted class is valid");
            CharSet::from_chars(re.find_iter(universe().as_ref()).flat_map(|m| m.as_str().chars()).collect())
        }
    });
    let mut cache = cache.lock().unwrap();
    if cache.len() >= CACHE_CAPACITY {
        cache.clear();
    }
    cache.insert(pattern.to_string(), set.clone());
    set
}

/// The code-point ranges a single-character pattern matches, as the `regex` crate's own parser
/// (regex-syntax, which does its case folding and Unicode tables) resolves them: exact, and without
/// scanning a universe of characters. `None` for a pattern that is not one class or character.
fn class_ranges(pattern: &str) -> Option<Vec<(char, char)>> {
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    match hir.kind() {
        regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) => {
            Some(class.ranges().iter().map(|r| (r.start(), r.end())).collect())
        }
        regex_syntax::hir::HirKind::Literal(literal) => {
            let mut chars = std::str::from_utf8(&literal.0).ok()?.chars();
            let c = chars.next()?;
            chars.next().is_none().then(|| vec![(c, c)])
        }
        _ => None,
    }
}

/// Set of characters a class matches (`ci`: ignoring case).
pub fn class_set(class: &Class, ci: bool) -> Arc<CharSet> {
    let mut pattern = String::from(if ci { "(?i)" } else { "" });
    emit_class(class, &mut pattern);
    set_for_pattern(&pattern, all_chars)
}

/// The simple case-fold group of `c` (incl. the module's `İ`~`i`~`I` equivalence).
pub fn fold_set(c: char) -> Arc<CharSet> {
    if matches!(c, 'i' | 'I' | '\u{130}') {
        return set_for_pattern("[iI\u{130}]", cased_chars);
    }
    let pattern = format!("(?i:{})", regex::escape(&c.to_string()));
    if c.is_ascii() {
        return set_for_pattern(&pattern, ascii_fold_universe);
    }
    set_for_pattern(&pattern, || {
        let mut universe = String::from(c);
        universe.push_str(cased_chars());
        universe
    })
}

/// `\w` membership (Unicode, as the `regex` crate and the Python module define it).
pub fn is_word(c: char) -> bool {
    static WORD: OnceLock<Arc<CharSet>> = OnceLock::new();
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    WORD.get_or_init(|| set_for_pattern(r"\w", all_chars)).contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolved_ranges_match_what_the_regex_crate_matches() {
        for pattern in [
            r"\w",
            r"\d",
            r"\s",
            "[^a-z]",
            "(?i)[a-zä]",
            "(?i:ß)",
            "[iI\u{130}]",
            r"\p{Greek}",
            "(?i:k)",
            "(?i:1)",
            "ü",
        ] {
            let set = CharSet::from_ranges(&class_ranges(pattern).expect(pattern));
            let re = regex::Regex::new(&format!("^(?:{pattern})$")).unwrap();
            let mut buf = [0u8; 4];
            for c in all_chars().chars() {
                assert_eq!(set.contains(c), re.is_match(c.encode_utf8(&mut buf)), "{pattern} {c:?}");
            }
        }
    }

    #[test]
    fn word_and_space_classes() {
        assert!(is_word('õ') && is_word('東') && is_word('\u{200D}'));
        assert!(!is_word('²') && !is_word('½') && !is_word('😀'));
        let space = class_set(
            &Class::Set {
                items: vec![super::super::syntax::ClassItem::Perl(super::super::syntax::Perl::Space, false)],
                negated: false,
            },
            false,
        );
        assert!(space.contains('\u{a0}') && !space.contains('\u{200b}'));
    }

    #[test]
    fn simple_case_folding() {
        let k = fold_set('k');
        assert!(k.contains('K') && k.contains('\u{212A}'));
        let s = fold_set('σ');
        assert!(s.contains('ς') && s.contains('Σ'));
        assert!(!fold_set('ß').contains('s'));
        assert!(fold_set('i').contains('\u{130}') && !fold_set('i').contains('ı'));
    }

    #[test]
    fn non_ascii_folds_into_ascii() {
        let re = regex::Regex::new(r"(?i:[\x00-\x7F])").unwrap();
        let found: String = re.find_iter(all_chars()).map(|m| m.as_str()).filter(|m| !m.is_ascii()).collect();
        assert_eq!(found, FOLDS_INTO_ASCII);
    }

    #[test]
    fn fold_sets_equal_a_scan_of_every_character() {
        for c in ['k', 'S', 'ß', 'σ', 'θ', 'ι', 'ǅ', 'ж', 'Ꭰ', '\u{1E900}', '1', '東'] {
            let re = regex::Regex::new(&format!("(?i:{})", regex::escape(&c.to_string()))).unwrap();
            let scanned: Vec<char> = re.find_iter(all_chars()).flat_map(|m| m.as_str().chars()).collect();
            let CharSet::Small(fold) = &*fold_set(c) else {
                panic!("large fold set")
            };
            assert_eq!(fold, &scanned, "{c:?}");
        }
    }
}
