//! The bigram phraser: gensim `Phrases` counting and scoring, and the greedy left-to-right
//! joining of adjacent token pairs into `a_b` tokens.
//!
//! Like gensim, counts live in one table keyed by the token or by the `_`-joined pair, a
//! phrase is identified by its joined string, and a joined key is scored with the counts of
//! its parts before the first and after the last `_`. For tokens without `_` (nearly all)
//! this is exactly the pair formula of spec 3.3; for tokens that contain `_` it reproduces
//! gensim's own (3.8 pseudo-corpus and 4.x) behaviour.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

/// The string that joins the two halves of a phrase.
pub const DELIMITER: char = '_';

/// Phrase detection settings (gensim `Phrases` defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhraserSettings {
    /// A pair must occur at least this often (it also offsets the score).
    pub min_count: u64,
    /// A pair becomes a phrase when its score is strictly above this.
    pub threshold: f64,
    /// When the count table grows past this many entries, rare entries are pruned (gensim).
    pub max_vocab_size: usize,
}

impl Default for PhraserSettings {
    fn default() -> Self {
        PhraserSettings {
            min_count: 5,
            threshold: 10.0,
            max_vocab_size: 40_000_000,
        }
    }
}

/// One detected phrase: the `_`-joined pair and its score.
#[derive(Clone, Debug, PartialEq)]
pub struct Bigram {
    pub phrase: String,
    pub score: f64,
}

/// Counts unigrams and adjacent pairs, sentence by sentence, as gensim's `Phrases` does,
/// and is pruned like gensim's when the table grows past `max_vocab_size`.
pub struct PhraseCounter {
    settings: PhraserSettings,
    counts: FxHashMap<String, u64>,
    min_reduce: u64,
    key: String,
}

impl PhraseCounter {
    pub fn new(settings: PhraserSettings) -> Self {
        PhraseCounter {
            settings,
            counts: FxHashMap::default(),
            min_reduce: 1,
            key: String::new(),
        }
    }

    pub fn add_sentence(&mut self, tokens: &[String]) {
        for (i, token) in tokens.iter().enumerate() {
            bump(&mut self.counts, token);
            if i > 0 {
                self.key.clear();
                self.key.push_str(&tokens[i - 1]);
                self.key.push(DELIMITER);
                self.key.push_str(token);
                bump(&mut self.counts, &self.key);
            }
        }
        if self.counts.len() > self.settings.max_vocab_size {
            let min_reduce = self.min_reduce;
            self.counts.retain(|_, count| *count >= min_reduce);
            self.min_reduce += 1;
        }
    }

    /// The count of a token or of a `_`-joined pair.
    pub fn count(&self, key: &str) -> u64 {
        self.counts.get(key).copied().unwrap_or(0)
    }

    /// gensim's `original_scorer`: `(count(ab) - min_count) / (count(a) * count(b)) * V`,
    /// V the number of entries in the table; `None` when a part is unknown.
    pub fn score(&self, first: &str, second: &str, joined: &str) -> Option<f64> {
        let (a, b, ab) = (self.count(first), self.count(second), self.count(joined));
        if a == 0 || b == 0 || ab == 0 {
            return None;
        }
        let numerator = (i128::from(ab) - i128::from(self.settings.min_count)) as f64;
        let denominator = (u128::from(a) * u128::from(b)) as f64;
        Some(numerator / denominator * self.counts.len() as f64)
    }

    /// Scores every joined key (gensim's `export_phrases`) and keeps those above the threshold.
    pub fn finish(self) -> Phraser {
        let mut bigrams = Vec::new();
        for key in self.counts.keys() {
            let (Some(first_end), Some(last_start)) = (key.find(DELIMITER), key.rfind(DELIMITER)) else {
                continue;
            };
            let (first, last) = (&key[..first_end], &key[last_start + DELIMITER.len_utf8()..]);
            match self.score(first, last, key) {
                Some(score) if score > self.settings.threshold => bigrams.push(Bigram {
                    phrase: key.clone(),
                    score,
                }),
                _ => {}
            }
        }
        Phraser::new(self.settings, self.counts.len() as u64, bigrams)
    }
}

fn bump(counts: &mut FxHashMap<String, u64>, key: &str) {
    match counts.get_mut(key) {
        Some(count) => *count += 1,
        None => {
            counts.insert(key.to_owned(), 1);
        }
    }
}

/// A frozen set of phrases (gensim's `FrozenPhrases`), applied greedily left to right.
#[derive(Clone, Debug)]
pub struct Phraser {
    settings: PhraserSettings,
    table_size: u64,
    bigrams: Vec<Bigram>,
    phrases: FxHashSet<String>,
    /// Every prefix of a phrase that ends before a `_`: tokens that can start a phrase.
    starts: FxHashSet<String>,
}

impl PartialEq for Phraser {
    fn eq(&self, other: &Self) -> bool {
        self.settings == other.settings && self.table_size == other.table_size && self.bigrams == other.bigrams
    }
}

impl Phraser {
    /// A phraser from its phrases (sorted here, so equal sets give equal phrasers).
    /// `table_size` is the V the scores were computed with, kept for the record.
    pub fn new(settings: PhraserSettings, table_size: u64, mut bigrams: Vec<Bigram>) -> Self {
        bigrams.sort_by(|x, y| x.phrase.cmp(&y.phrase));
        bigrams.dedup_by(|x, y| x.phrase == y.phrase);
        let phrases = bigrams.iter().map(|b| b.phrase.clone()).collect();
        let starts = bigrams
            .iter()
            .flat_map(|b| b.phrase.match_indices(DELIMITER).map(|(at, _)| b.phrase[..at].to_owned()))
            .collect();
        Phraser {
            settings,
            table_size,
            bigrams,
            phrases,
            starts,
        }
    }

    /// A phraser that joins nothing.
    pub fn empty() -> Self {
        Phraser::new(PhraserSettings::default(), 0, Vec::new())
    }

    pub fn settings(&self) -> &PhraserSettings {
        &self.settings
    }

    /// The number of distinct unigram and pair entries the scores were computed with.
    pub fn table_size(&self) -> u64 {
        self.table_size
    }

    /// The phrases, sorted.
    pub fn bigrams(&self) -> &[Bigram] {
        &self.bigrams
    }

    /// Joins adjacent pairs whose joined form is a phrase, greedily from the left: once
    /// `a b` is joined, `b` cannot also start a pair with the next token. As in gensim, an
    /// empty token never starts a pair and is dropped unless it ends the sentence.
    pub fn phrase(&self, tokens: Vec<String>) -> Vec<String> {
        let mut out = Vec::with_capacity(tokens.len());
        let mut start: Option<String> = None;
        let mut joined = String::new();
        for token in tokens {
            start = match start.take() {
                Some(first) if !first.is_empty() => {
                    if self.joins(&first, &token, &mut joined) {
                        out.push(std::mem::take(&mut joined));
                        None
                    } else {
                        out.push(first);
                        Some(token)
                    }
                }
                _ => Some(token),
            };
        }
        out.extend(start);
        out
    }

    /// Whether `first_second` is a phrase (left in `joined` when it is).
    fn joins(&self, first: &str, second: &str, joined: &mut String) -> bool {
        if !self.starts.contains(first) {
            return false;
        }
        joined.clear();
        joined.push_str(first);
        joined.push(DELIMITER);
        joined.push_str(second);
        self.phrases.contains(joined.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentence(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_owned).collect()
    }

    /// "new york" 7 times, "new" 1 more time alone, "york city" 6 of those times, and
    /// "big apple big apple" 6 times.
    fn counter() -> PhraseCounter {
        let mut counter = PhraseCounter::new(PhraserSettings::default());
        for _ in 0..6 {
            counter.add_sentence(&sentence("new york city"));
        }
        counter.add_sentence(&sentence("new york"));
        counter.add_sentence(&sentence("new"));
        for _ in 0..6 {
            counter.add_sentence(&sentence("big apple big apple"));
        }
        counter
    }

    #[test]
    fn counts_unigrams_and_pairs_exactly() {
        let counter = counter();
        assert_eq!(counter.count("new"), 8);
        assert_eq!(counter.count("york"), 7);
        assert_eq!(counter.count("city"), 6);
        assert_eq!(counter.count("new_york"), 7);
        assert_eq!(counter.count("york_city"), 6);
        assert_eq!(counter.count("big"), 12);
        assert_eq!(counter.count("big_apple"), 12);
        assert_eq!(counter.count("apple_big"), 6);
        // new york city big apple new_york york_city big_apple apple_big
        assert_eq!(counter.counts.len(), 9);
    }

    #[test]
    fn scores_like_gensim_original_scorer() {
        let counter = counter();
        // (7 - 5) / (8 * 7) * 9 = 0.3214...
        let score = counter.score("new", "york", "new_york").unwrap();
        assert!((score - 2.0 / 56.0 * 9.0).abs() < 1e-12);
        // (12 - 5) / (12 * 12) * 9 = 0.4375
        assert_eq!(counter.score("big", "apple", "big_apple"), Some(0.4375));
        assert_eq!(counter.score("new", "city", "new_city"), None);
    }

    #[test]
    fn threshold_is_strict_and_min_count_offsets() {
        // a and b 8 times each, "a b" 6 times: score = (6 - 5) / 64 * V, exactly 10 at V = 640.
        let build = |fillers: usize| {
            let mut counter = PhraseCounter::new(PhraserSettings::default());
            for _ in 0..6 {
                counter.add_sentence(&sentence("a b"));
            }
            for _ in 0..2 {
                counter.add_sentence(&sentence("a"));
                counter.add_sentence(&sentence("b"));
            }
            for i in 0..fillers {
                counter.add_sentence(&[format!("filler{i}")]);
            }
            counter
        };
        let counter = build(637);
        assert_eq!(counter.counts.len(), 640);
        assert_eq!(counter.score("a", "b", "a_b"), Some(10.0));
        assert!(counter.finish().bigrams().is_empty());

        let phraser = build(638).finish();
        assert_eq!(
            phraser.bigrams(),
            &[Bigram {
                phrase: "a_b".into(),
                score: 641.0 / 64.0
            }]
        );
        assert_eq!(phraser.table_size(), 641);
    }

    #[test]
    fn count_at_min_count_never_scores() {
        let mut counter = PhraseCounter::new(PhraserSettings::default());
        for _ in 0..5 {
            counter.add_sentence(&sentence("a b"));
        }
        for i in 0..10_000 {
            counter.add_sentence(&[format!("filler{i}")]);
        }
        assert_eq!(counter.score("a", "b", "a_b"), Some(0.0));
        assert!(counter.finish().bigrams().is_empty());
    }

    #[test]
    fn pruning_drops_rare_entries_like_gensim() {
        let settings = PhraserSettings {
            max_vocab_size: 4,
            ..PhraserSettings::default()
        };
        let mut counter = PhraseCounter::new(settings);
        counter.add_sentence(&sentence("a b"));
        counter.add_sentence(&sentence("a b"));
        assert_eq!(counter.counts.len(), 3);
        counter.add_sentence(&sentence("c d"));
        // 6 entries > 4: entries below min_reduce = 1 go (none), min_reduce becomes 2.
        assert_eq!(counter.counts.len(), 6);
        counter.add_sentence(&sentence("e"));
        // 7 > 4: entries below 2 go: c, d, c_d, e.
        assert_eq!(counter.counts.len(), 3);
        assert_eq!(counter.count("a_b"), 2);
    }

    fn phraser(phrases: &[&str]) -> Phraser {
        let bigrams = phrases
            .iter()
            .map(|p| Bigram {
                phrase: p.to_string(),
                score: 20.0,
            })
            .collect();
        Phraser::new(PhraserSettings::default(), 100, bigrams)
    }

    #[test]
    fn phrases_greedily_left_to_right() {
        let phraser = phraser(&["new_york", "york_city", "city_hall"]);
        assert_eq!(phraser.phrase(sentence("new york city hall")), sentence("new_york city_hall"));
        assert_eq!(phraser.phrase(sentence("in york city now")), sentence("in york_city now"));
        assert_eq!(phraser.phrase(sentence("new new york")), sentence("new new_york"));
        assert_eq!(phraser.phrase(sentence("york new")), sentence("york new"));
        // gensim drops an empty token that would start a pair, keeps a final one.
        assert_eq!(phraser.phrase(sentence("new  york")), sentence("new york"));
        assert_eq!(phraser.phrase(sentence("a  ")), sentence("a "));
        assert_eq!(phraser.phrase(Vec::new()), Vec::<String>::new());
        assert_eq!(Phraser::empty().phrase(sentence("new york")), sentence("new york"));
    }

    #[test]
    fn detects_and_applies_phrases_end_to_end() {
        let mut counter = PhraseCounter::new(PhraserSettings::default());
        for i in 0..20 {
            counter.add_sentence(&sentence(&format!("w{i} new york v{i}")));
        }
        // V = 20*2 + 2 unigrams + 20*2 + 1 pairs = 83; score = 15 / 400 * 83 = 3.1: too low.
        assert!(counter.finish().bigrams().is_empty());
        let mut counter = PhraseCounter::new(PhraserSettings::default());
        for i in 0..200 {
            counter.add_sentence(&sentence(&format!("w{i} x{i} new york v{i}")));
        }
        // V = 200*3 + 2 + 200*3 + 1 = 1203; score = 195 / 40000 * 1203 = 5.86: too low.
        assert!(counter.finish().bigrams().is_empty());
        let mut counter = PhraseCounter::new(PhraserSettings::default());
        for i in 0..20 {
            counter.add_sentence(&sentence(&format!("new york a{i} b{i} c{i} d{i} e{i} f{i} g{i} h{i} i{i} j{i}")));
        }
        // V = 202 unigrams + new_york + 20 york_aN + 180 more pairs = 403; score = 15 / 400 * 403.
        assert_eq!(counter.count("york_a0"), 1);
        let phraser = counter.finish();
        assert_eq!(phraser.table_size(), 403);
        assert_eq!(
            phraser.bigrams(),
            &[Bigram {
                phrase: "new_york".into(),
                score: 15.0 / 400.0 * 403.0
            }]
        );
        assert_eq!(phraser.phrase(sentence("i love new york")), sentence("i love new_york"));
    }

    #[test]
    fn underscore_tokens_share_entries_with_pairs() {
        let mut counter = PhraseCounter::new(PhraserSettings::default());
        counter.add_sentence(&sentence("a_b a b"));
        assert_eq!(counter.count("a_b"), 2);
        assert_eq!(counter.count("a_b_a"), 1);
    }

    #[test]
    fn underscore_keys_score_by_first_and_last_part_like_gensim() {
        // "x_y z" 6 times, x once, z 6 times: key x_y_z scores (6 - 5) / (1 * 6) * V with
        // V = x_y, z, x_y_z, x + 60 fillers = 64 (gensim ignores count(x_y) = 6 here).
        let mut counter = PhraseCounter::new(PhraserSettings::default());
        for _ in 0..6 {
            counter.add_sentence(&sentence("x_y z"));
        }
        counter.add_sentence(&sentence("x"));
        for i in 0..60 {
            counter.add_sentence(&[format!("filler{i}")]);
        }
        let phraser = counter.finish();
        assert_eq!(
            phraser.bigrams(),
            &[Bigram {
                phrase: "x_y_z".into(),
                score: 1.0 / 6.0 * 64.0
            }]
        );
        assert_eq!(phraser.phrase(sentence("x_y z")), sentence("x_y_z"));
        assert_eq!(phraser.phrase(sentence("x y_z")), sentence("x_y_z"));
        assert_eq!(phraser.phrase(sentence("x y z")), sentence("x y z"));
    }
}
