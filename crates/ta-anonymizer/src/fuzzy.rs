//! Approximate search for misspelled name parts, reproducing the reference's
//! `(?<=^|\s)(WORD){1i+1d+1s<=K}\S{,6}(?=\s|$|\W)` with the `regex` module's first-match fuzzy semantics.
//!
//! At each candidate start (text start or after whitespace, left to right) a depth-first search runs in the
//! module's order: exact character first, then substitution, insertion, deletion; insertions are not allowed at
//! the position where the current search began (start of text or end of the previous hit). The first complete
//! match wins and the scan resumes at its end. Failed states are memoised. Two exact necessary conditions skip
//! most starts before the search: a piece filter (with at most K edits, one of K+1 pieces of the word occurs
//! unchanged near its place) and a banded edit-distance bound. The pieces of all words of an anonymizer are
//! found in one pass over the text ([`PieceIndex`]).

use aho_corasick::{AhoCorasick, MatchKind};

use super::text::{is_space, is_word};

/// One name part searched with an edit budget.
pub(crate) struct FuzzyWord {
    word: Vec<char>,
    budget: usize,
    /// The word's number in its [`PieceIndex`]; `None` when it has a wildcard (no piece filter).
    id: Option<usize>,
}

/// Collects the pieces of the fuzzy words of one anonymizer.
#[derive(Default)]
pub(crate) struct PieceIndexBuilder {
    patterns: Vec<String>,
    /// Per pattern: (word id, piece offset) of every piece with that text.
    owners: Vec<Vec<(usize, usize)>>,
    words: usize,
}

/// One automaton over all pieces of all words.
pub(crate) struct PieceIndex {
    automaton: Option<AhoCorasick>,
    owners: Vec<Vec<(usize, usize)>>,
    words: usize,
}

/// Piece occurrences in one text, per word: (character position, piece offset). `None`: the automaton could not
/// be built, every start is viable.
pub(crate) struct PieceHits(Option<Vec<Vec<(usize, usize)>>>);

impl PieceIndexBuilder {
    /// Register a word's pieces; its id.
    fn register(&mut self, pieces: Vec<(usize, String)>) -> usize {
        let id = self.words;
        self.words += 1;
        for (offset, piece) in pieces {
            let k = match self.patterns.iter().position(|p| *p == piece) {
                Some(k) => k,
                None => {
                    self.patterns.push(piece);
                    self.owners.push(Vec::new());
                    self.patterns.len() - 1
                }
            };
            self.owners[k].push((id, offset));
        }
        id
    }

    pub(crate) fn build(self) -> PieceIndex {
        let automaton = AhoCorasick::builder().match_kind(MatchKind::Standard).build(&self.patterns).ok();
        PieceIndex {
            automaton,
            owners: self.owners,
            words: self.words,
        }
    }
}

impl PieceIndex {
    /// Every (overlapping) piece occurrence in the text.
    pub(crate) fn find(&self, hay: &Haystack<'_>) -> PieceHits {
        let Some(automaton) = &self.automaton else {
            return PieceHits(None);
        };
        let mut hits = vec![Vec::new(); self.words];
        for m in automaton.find_overlapping_iter(hay.text) {
            for &(word, offset) in &self.owners[m.pattern().as_usize()] {
                hits[word].push((hay.char_at[m.start()], offset));
            }
        }
        PieceHits(Some(hits))
    }
}

/// A text prepared for fuzzy search and [`Program`](super::program::Program) matching: its characters, the
/// character index of every byte offset, the byte offset of every character index (and of the end), the
/// candidate starts (start of text or after whitespace), and which bytes and byte pairs occur.
pub(crate) struct Haystack<'a> {
    pub text: &'a str,
    pub chars: Vec<char>,
    pub char_at: Vec<usize>,
    pub byte_at: Vec<usize>,
    starts: Vec<usize>,
    bytes: [u64; 4],
    pairs: Vec<u64>,
}

impl<'a> Haystack<'a> {
    pub(crate) fn new(text: &'a str) -> Haystack<'a> {
        let mut char_at = vec![0; text.len() + 1];
        let mut byte_at = Vec::with_capacity(text.len() + 1);
        let mut chars = Vec::with_capacity(text.len());
        for (i, (b, c)) in text.char_indices().enumerate() {
            char_at[b] = i;
            byte_at.push(b);
            chars.push(c);
        }
        char_at[text.len()] = chars.len();
        byte_at.push(text.len());
        let starts = (0..chars.len()).filter(|&s| s == 0 || is_space(chars[s - 1])).collect();
        let mut bytes = [0u64; 4];
        let mut pairs = vec![0u64; 1 << 10];
        let raw = text.as_bytes();
        for (i, &b) in raw.iter().enumerate() {
            bytes[usize::from(b >> 6)] |= 1 << (b & 63);
            if let Some(&next) = raw.get(i + 1) {
                let pair = usize::from(b) << 8 | usize::from(next);
                pairs[pair >> 6] |= 1 << (pair & 63);
            }
        }
        Haystack {
            text,
            chars,
            char_at,
            byte_at,
            starts,
            bytes,
            pairs,
        }
    }

    /// A quick necessary condition for `needle` occurring in the text: its bytes and byte pairs all occur.
    pub(crate) fn may_contain(&self, needle: &str) -> bool {
        let raw = needle.as_bytes();
        raw.iter().all(|&b| self.bytes[usize::from(b >> 6)] & (1 << (b & 63)) != 0)
            && raw.windows(2).all(|w| {
                let pair = usize::from(w[0]) << 8 | usize::from(w[1]);
                self.pairs[pair >> 6] & (1 << (pair & 63)) != 0
            })
    }
}

/// Scratch state for one search at one start position.
struct Search<'a> {
    text: &'a [char],
    word: &'a [char],
    budget: usize,
    start: usize,
    anchor: usize,
    mimic: bool,
    failed: &'a mut [bool],
}

impl FuzzyWord {
    /// `budget_ratio`: 0.4 for last-name parts, 0.3 (as `1 - 0.7`) for first-name parts.
    pub(crate) fn new(word: &str, budget_ratio: f64, index: &mut PieceIndexBuilder) -> FuzzyWord {
        let word: Vec<char> = word.chars().collect();
        let budget = (word.len() as f64 * budget_ratio) as usize;
        let id = (!word.contains(&'.')).then(|| index.register(split_pieces(&word, budget + 1)));
        FuzzyWord { word, budget, id }
    }

    /// Distinct hits whose first character has the same case as the word's (`pieces`: from the word's index).
    pub(crate) fn hits(&self, hay: &Haystack<'_>, pieces: &PieceHits, mimic: bool) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let text = &hay.chars;
        for (s, e) in self.spans(hay, pieces, mimic) {
            if same_case(text[s], self.word[0]) {
                let hit: String = text[s..e].iter().collect();
                if !out.contains(&hit) {
                    out.push(hit);
                }
            }
        }
        out
    }

    fn spans(&self, hay: &Haystack<'_>, pieces: &PieceHits, mimic: bool) -> Vec<(usize, usize)> {
        let mut spans = Vec::new();
        if self.word.is_empty() {
            return spans;
        }
        let viable = self.viable_starts(hay, pieces);
        let text = &hay.chars;
        let width = self.word.len() + self.budget;
        let mut rows = (vec![0; width + 1], vec![0; width + 1]);
        let mut failed = vec![false; (width + 1) * (self.word.len() + 1) * (self.budget + 1)];
        let (mut pos, mut anchor) = (0, 0);
        for &s in &hay.starts {
            if s < pos || viable.as_ref().is_some_and(|v| !v[s]) || !self.may_match(&text[s..], &mut rows) {
                continue;
            }
            failed.fill(false);
            let mut search = Search {
                text,
                word: &self.word,
                budget: self.budget,
                start: s,
                anchor,
                mimic,
                failed: &mut failed,
            };
            if let Some(end) = search.go(s, 0, 0) {
                spans.push((s, end));
                pos = end;
                anchor = end;
            }
        }
        spans
    }

    /// Which start positions lie near an unchanged piece; `None` (all of them) for wildcard words.
    fn viable_starts(&self, hay: &Haystack<'_>, pieces: &PieceHits) -> Option<Vec<bool>> {
        let hits = &pieces.0.as_ref()?[self.id?];
        let n = hay.chars.len();
        let mut viable = vec![false; n + 1];
        for &(q, offset) in hits {
            let lo = q.saturating_sub(offset + self.budget);
            let hi = (q + self.budget).saturating_sub(offset).min(n);
            if lo <= hi {
                viable[lo..=hi].fill(true);
            }
        }
        Some(viable)
    }

    /// Necessary condition: some prefix of `text` is within `budget` edits of the word (banded DP, early exit).
    fn may_match(&self, text: &[char], (prev, cur): &mut (Vec<usize>, Vec<usize>)) -> bool {
        let width = (self.word.len() + self.budget).min(text.len());
        for (j, d) in prev.iter_mut().enumerate().take(width + 1) {
            *d = j;
        }
        for (i, &w) in self.word.iter().enumerate() {
            cur[0] = i + 1;
            let mut row_min = cur[0];
            for j in 1..=width {
                let sub = prev[j - 1] + usize::from(!chars_match(w, text[j - 1]));
                cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
                row_min = row_min.min(cur[j]);
            }
            if row_min > self.budget {
                return false;
            }
            std::mem::swap(prev, cur);
        }
        true
    }
}

impl Search<'_> {
    fn state(&self, t: usize, w: usize, e: usize) -> usize {
        ((t - self.start) * (self.word.len() + 1) + w) * (self.budget + 1) + e
    }

    /// First match end reachable from text position `t`, word position `w`, `e` edits spent.
    fn go(&mut self, t: usize, w: usize, e: usize) -> Option<usize> {
        let key = self.state(t, w, e);
        if self.failed[key] {
            return None;
        }
        let found = self.explore(t, w, e);
        if found.is_none() {
            self.failed[key] = true;
        }
        found
    }

    fn explore(&mut self, t: usize, w: usize, e: usize) -> Option<usize> {
        let more_text = t < self.text.len();
        let can_edit = e < self.budget;
        let can_insert = can_edit && more_text && t != self.anchor;
        if w == self.word.len() {
            return self.tail(t).or_else(|| if can_insert { self.go(t + 1, w, e + 1) } else { None });
        }
        if more_text && chars_match(self.word[w], self.text[t]) {
            if let Some(end) = self.go(t + 1, w + 1, e) {
                return Some(end);
            }
        }
        if !can_edit {
            return None;
        }
        let substituted = if more_text { self.go(t + 1, w + 1, e + 1) } else { None };
        substituted
            .or_else(|| if can_insert { self.go(t + 1, w, e + 1) } else { None })
            .or_else(|| self.go(t, w + 1, e + 1))
    }

    /// After the fuzzy group: greedy `\S{0,6}` (with mimic_casing) then the look-ahead `(?=\s|$|\W)`.
    fn tail(&self, t: usize) -> Option<usize> {
        let boundary = |p: usize| p == self.text.len() || !is_word(self.text[p]);
        let extra = if self.mimic {
            self.text[t..].iter().take(6).take_while(|&&c| !is_space(c)).count()
        } else {
            0
        };
        (0..=extra).rev().map(|j| t + j).find(|&p| boundary(p))
    }
}

/// `count` consecutive, nearly equal pieces of `word` with their character offsets.
fn split_pieces(word: &[char], count: usize) -> Vec<(usize, String)> {
    let count = count.min(word.len());
    (0..count)
        .map(|i| {
            let (from, to) = (i * word.len() / count, (i + 1) * word.len() / count);
            (from, word[from..to].iter().collect())
        })
        .collect()
}

/// A word character matches itself; `.` in a name is the regex wildcard (anything but a newline).
fn chars_match(word_char: char, text_char: char) -> bool {
    word_char == text_char || (word_char == '.' && text_char != '\n')
}

/// `_identical_casing`: both upper-case or both lower-case.
fn same_case(a: char, b: char) -> bool {
    (a.is_uppercase() && b.is_uppercase()) || (a.is_lowercase() && b.is_lowercase())
}
