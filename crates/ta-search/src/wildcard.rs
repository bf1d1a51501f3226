//! Wildcard and prefix terms (`*` any string, `?` any one character) as an automaton over the
//! bytes of the term dictionary. Its state is the set of pattern positions reached, so one
//! input byte costs time linear in the pattern, whatever the pattern. Compiling such a pattern
//! to a regex instead made tantivy build a DFA first, whose construction grew with the pattern
//! times its states (a 200-character `simple_query_string` wildcard spent over a second there).
//!
//! Terms are valid UTF-8, so matching bytes is matching characters: a literal character's
//! first byte and `?`'s lead byte only ever meet a character boundary, and `*` may take any
//! bytes.

use std::sync::Arc;
use tantivy::query::{AutomatonWeight, EnableScoring, Query, Weight};
use tantivy::schema::Field;
use tantivy_fst::Automaton;

/// One element of a pattern.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Piece {
    Byte(u8),
    /// `?`: one UTF-8 encoded character.
    AnyChar,
    /// `*`: any bytes.
    AnyString,
}

/// A compiled pattern: a literal byte prefix (the term path) and the wildcard pieces.
#[derive(Debug)]
pub struct Wildcard {
    pieces: Vec<Piece>,
}

/// The automaton's state: a bitset over `(position, continuation bytes still owed)`, four
/// bits per position (`?` owes up to three continuation bytes after its lead byte).
pub type State = Vec<u64>;

impl Wildcard {
    /// `prefix` matched literally, then `pattern` with `*` and `?` as wildcards.
    pub fn new(prefix: &[u8], pattern: &str) -> Wildcard {
        let mut pieces: Vec<Piece> = prefix.iter().map(|&b| Piece::Byte(b)).collect();
        for c in pattern.chars() {
            match c {
                '*' => pieces.push(Piece::AnyString),
                '?' => pieces.push(Piece::AnyChar),
                c => pieces.extend(c.encode_utf8(&mut [0; 4]).bytes().map(Piece::Byte)),
            }
        }
        Wildcard { pieces }
    }

    /// `prefix` and `value` matched literally, then anything (a `prefix` query).
    pub fn prefix(prefix: &[u8], value: &str) -> Wildcard {
        let mut pieces: Vec<Piece> = prefix.iter().chain(value.as_bytes()).map(|&b| Piece::Byte(b)).collect();
        pieces.push(Piece::AnyString);
        Wildcard { pieces }
    }

    fn bit(position: usize, owed: usize) -> usize {
        position * 4 + owed
    }

    fn set(&self, state: &mut State, position: usize, owed: usize) {
        // Entering a `*` also reaches what follows it (zero bytes taken).
        let mut position = position;
        loop {
            let b = Self::bit(position, owed);
            state[b / 64] |= 1 << (b % 64);
            if owed == 0 && self.pieces.get(position) == Some(&Piece::AnyString) {
                position += 1;
            } else {
                break;
            }
        }
    }

    fn has(state: &State, position: usize, owed: usize) -> bool {
        let b = Self::bit(position, owed);
        state[b / 64] & (1 << (b % 64)) != 0
    }

    fn empty(&self) -> State {
        vec![0; (Self::bit(self.pieces.len(), 3) + 1).div_ceil(64)]
    }

    /// Whether the whole of `text` matches (the tests check the automaton against a regex).
    #[cfg(test)]
    fn matches(&self, text: &str) -> bool {
        let state = text.bytes().fold(self.start(), |s, b| self.accept(&s, b));
        self.is_match(&state)
    }
}

/// Continuation bytes that follow a UTF-8 lead byte; `None` for a continuation byte itself.
fn continuation_bytes(lead: u8) -> Option<usize> {
    match lead.leading_ones() {
        0 => Some(0),
        2 => Some(1),
        3 => Some(2),
        4 => Some(3),
        _ => None,
    }
}

impl Automaton for Wildcard {
    type State = State;

    fn start(&self) -> State {
        let mut state = self.empty();
        self.set(&mut state, 0, 0);
        state
    }

    fn is_match(&self, state: &State) -> bool {
        Self::has(state, self.pieces.len(), 0)
    }

    fn can_match(&self, state: &State) -> bool {
        state.iter().any(|&w| w != 0)
    }

    fn accept(&self, state: &State, byte: u8) -> State {
        let mut next = self.empty();
        for (word_index, &word) in state.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let b = word_index * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (position, owed) = (b / 4, b % 4);
                if owed > 0 {
                    // Inside a `?`: a continuation byte pays one of those owed.
                    if byte & 0xC0 == 0x80 {
                        match owed - 1 {
                            0 => self.set(&mut next, position + 1, 0),
                            left => self.set(&mut next, position, left),
                        }
                    }
                    continue;
                }
                match self.pieces.get(position) {
                    Some(Piece::Byte(expected)) if *expected == byte => self.set(&mut next, position + 1, 0),
                    Some(Piece::AnyString) => self.set(&mut next, position, 0),
                    Some(Piece::AnyChar) => match continuation_bytes(byte) {
                        Some(0) => self.set(&mut next, position + 1, 0),
                        Some(owed) => self.set(&mut next, position, owed),
                        None => {}
                    },
                    _ => {}
                }
            }
        }
        next
    }
}

/// A query for the terms of one field that a [`Wildcard`] matches (constant score is up to
/// the caller, as for tantivy's `RegexQuery`).
#[derive(Clone, Debug)]
pub struct WildcardQuery {
    field: Field,
    automaton: Arc<Wildcard>,
}

impl WildcardQuery {
    pub fn new(field: Field, automaton: Wildcard) -> WildcardQuery {
        WildcardQuery {
            field,
            automaton: Arc::new(automaton),
        }
    }
}

impl Query for WildcardQuery {
    fn weight(&self, _: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(AutomatonWeight::<Wildcard>::new(self.field, self.automaton.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The regex the pattern used to be compiled to (`*` = `.*`, `?` = `.`, whole term).
    fn regex_of(prefix: &str, pattern: &str) -> regex::Regex {
        let body: String = pattern
            .chars()
            .map(|c| match c {
                '*' => ".*".to_string(),
                '?' => ".".to_string(),
                c => regex::escape(&c.to_string()),
            })
            .collect();
        regex::Regex::new(&format!("(?s)^{}(?:{body})$", regex::escape(prefix))).unwrap()
    }

    #[test]
    fn matches_as_the_regex_did() {
        let alphabet = ['a', 'b', 'é', '€', '𝄞', '*', '?'];
        let texts = ["", "a", "ab", "ba", "aé", "é", "€€", "a𝄞b", "𝄞", "abab", "aéb€", "bbb", "a*?"];
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..3000 {
            let len = next() % 6;
            let pattern: String = (0..len).map(|_| alphabet[next() % alphabet.len()]).collect();
            let prefix = if next() % 3 == 0 { "p\u{1}q\u{0}s" } else { "" };
            let automaton = Wildcard::new(prefix.as_bytes(), &pattern);
            let re = regex_of(prefix, &pattern);
            for text in texts {
                let text = format!("{prefix}{text}");
                assert_eq!(automaton.matches(&text), re.is_match(&text), "{pattern:?} on {text:?}");
            }
            assert!(!automaton.matches(&format!("x{prefix}")) || re.is_match(&format!("x{prefix}")));
        }
    }

    #[test]
    fn prefix_takes_its_value_literally() {
        let p = Wildcard::prefix(b"f\x00s", "a*?");
        assert!(p.matches("f\x00sa*?"));
        assert!(p.matches("f\x00sa*?zzz"));
        assert!(!p.matches("f\x00sab"));
        assert!(!p.matches("g\x00sa*?"));
    }

    #[test]
    fn long_patterns_stay_linear() {
        let pattern = format!("-~~~{}m{}*{}e{}aja", "%".repeat(60), "%".repeat(40), "%".repeat(50), "%".repeat(30));
        let automaton = Wildcard::new(b"text\x00s", &pattern);
        let text = format!("text\x00s{}", "%".repeat(5000));
        let start = std::time::Instant::now();
        assert!(!automaton.matches(&text));
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
    }
}
