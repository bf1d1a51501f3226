//! The word2vec vocabulary and the corpus encoded as vocabulary ids. One pass over the
//! (phrased) sentences counts words and stores each sentence as ids in first-seen order;
//! `finish` keeps the words seen at least `min_count` times, sorts them by count
//! (descending, ties in first-seen order) and re-encodes the corpus without the others.

use rustc_hash::FxHashMap;

/// Vocabulary words, most frequent first, with their counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Vocabulary {
    pub words: Vec<String>,
    pub counts: Vec<u64>,
}

/// The training corpus as vocabulary ids: sentence `s` is `ids[ends[s - 1]..ends[s]]`
/// (out-of-vocabulary words removed); `raw_lens[s]` is its length before that, which is
/// what the learning-rate schedule counts (gensim's raw word count).
#[derive(Debug, Default)]
pub(super) struct EncodedCorpus {
    pub ids: Vec<u32>,
    pub ends: Vec<usize>,
    pub raw_lens: Vec<u32>,
}

impl EncodedCorpus {
    pub fn sentences(&self) -> usize {
        self.ends.len()
    }

    pub fn sentence(&self, s: usize) -> &[u32] {
        let start = if s == 0 { 0 } else { self.ends[s - 1] };
        &self.ids[start..self.ends[s]]
    }

    pub fn raw_words(&self) -> u64 {
        self.raw_lens.iter().map(|&n| u64::from(n)).sum()
    }
}

/// Counts words and encodes sentences in one pass.
#[derive(Default)]
pub(super) struct VocabularyBuilder {
    ids: FxHashMap<String, u32>,
    counts: Vec<u64>,
    corpus: EncodedCorpus,
}

impl VocabularyBuilder {
    /// Adds one sentence; empty sentences are skipped (gensim ignores them).
    pub fn add_sentence(&mut self, tokens: Vec<String>) {
        if tokens.is_empty() {
            return;
        }
        self.corpus.raw_lens.push(u32::try_from(tokens.len()).unwrap_or(u32::MAX));
        for token in tokens {
            let next = self.counts.len() as u32;
            let id = *self.ids.entry(token).or_insert(next);
            if id == next {
                self.counts.push(0);
            }
            self.counts[id as usize] += 1;
            self.corpus.ids.push(id);
        }
        self.corpus.ends.push(self.corpus.ids.len());
    }

    /// The vocabulary of words seen at least `min_count` times, and the corpus in its ids.
    pub fn finish(self, min_count: u64) -> (Vocabulary, EncodedCorpus) {
        let mut words: Vec<Option<String>> = vec![None; self.counts.len()];
        for (word, id) in self.ids {
            words[id as usize] = Some(word);
        }
        let mut kept: Vec<u32> = (0..self.counts.len() as u32)
            .filter(|&id| self.counts[id as usize] >= min_count)
            .collect();
        kept.sort_by(|&a, &b| self.counts[b as usize].cmp(&self.counts[a as usize]));
        let mut remap = vec![u32::MAX; self.counts.len()];
        let mut vocabulary = Vocabulary {
            words: Vec::with_capacity(kept.len()),
            counts: Vec::with_capacity(kept.len()),
        };
        for (new_id, &old_id) in kept.iter().enumerate() {
            remap[old_id as usize] = new_id as u32;
            vocabulary.words.push(words[old_id as usize].take().unwrap_or_default());
            vocabulary.counts.push(self.counts[old_id as usize]);
        }
        let mut corpus = self.corpus;
        let (mut write, mut start) = (0, 0);
        for end in corpus.ends.iter_mut() {
            for read in start..*end {
                let id = remap[corpus.ids[read] as usize];
                if id != u32::MAX {
                    corpus.ids[write] = id;
                    write += 1;
                }
            }
            start = *end;
            *end = write;
        }
        corpus.ids.truncate(write);
        corpus.ids.shrink_to_fit();
        (vocabulary, corpus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentence(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn sorts_by_count_then_first_seen_and_encodes() {
        let mut builder = VocabularyBuilder::default();
        builder.add_sentence(sentence("c b a rare"));
        builder.add_sentence(Vec::new());
        builder.add_sentence(sentence("a b c a"));
        builder.add_sentence(sentence("rare2 d"));
        builder.add_sentence(sentence("d"));
        let (vocabulary, corpus) = builder.finish(2);
        assert_eq!(vocabulary.words, ["a", "c", "b", "d"]);
        assert_eq!(vocabulary.counts, [3, 2, 2, 2]);
        assert_eq!(corpus.sentences(), 4);
        assert_eq!(corpus.sentence(0), [1, 2, 0]);
        assert_eq!(corpus.sentence(1), [0, 2, 1, 0]);
        assert_eq!(corpus.sentence(2), [3]);
        assert_eq!(corpus.sentence(3), [3]);
        assert_eq!(corpus.raw_lens, [4, 4, 2, 1]);
        assert_eq!(corpus.raw_words(), 11);
    }

    #[test]
    fn min_count_can_empty_the_vocabulary() {
        let mut builder = VocabularyBuilder::default();
        builder.add_sentence(sentence("a b"));
        let (vocabulary, corpus) = builder.finish(2);
        assert!(vocabulary.words.is_empty());
        assert!(corpus.ids.is_empty());
        assert_eq!(corpus.sentence(0), [0u32; 0]);
    }
}
