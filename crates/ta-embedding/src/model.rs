//! A trained embedding: vocabulary, vectors and phraser, with word look-up and the
//! `phrase_text` endpoint's behaviour.

use super::error::{EmbeddingError, Result};
use super::phraser::Phraser;
use super::settings::Settings;
use super::vocab::Vocabulary;
use rustc_hash::FxHashMap;
use std::sync::OnceLock;
use ta_text::pytext;

/// A trained word2vec embedding with its phraser.
#[derive(Debug)]
pub struct Embedding {
    pub(super) settings: Settings,
    pub(super) vocabulary: Vocabulary,
    pub(super) index: FxHashMap<String, u32>,
    /// Row-major, `vocab_size × num_dimensions`.
    pub(super) vectors: Vec<f32>,
    pub(super) phraser: Phraser,
    /// The vectors scaled to unit length, computed on first use by `most_similar`.
    pub(super) unit_vectors: OnceLock<Vec<f32>>,
}

impl PartialEq for Embedding {
    fn eq(&self, other: &Self) -> bool {
        self.settings == other.settings
            && self.vocabulary == other.vocabulary
            && self.vectors == other.vectors
            && self.phraser == other.phraser
    }
}

impl Embedding {
    /// Checks that the parts fit together (valid settings, unique words, one vector per word).
    pub fn new(settings: Settings, vocabulary: Vocabulary, vectors: Vec<f32>, phraser: Phraser) -> Result<Self> {
        settings.validate()?;
        let words = vocabulary.words.len();
        if vocabulary.counts.len() != words || vectors.len() != words.saturating_mul(settings.num_dimensions) {
            return Err(EmbeddingError::Format("vocabulary, counts and vectors differ in size".into()));
        }
        let mut index = FxHashMap::default();
        index.reserve(words);
        for (id, word) in vocabulary.words.iter().enumerate() {
            if index.insert(word.clone(), id as u32).is_some() {
                return Err(EmbeddingError::Format(format!("word {word:?} occurs twice in the vocabulary")));
            }
        }
        Ok(Embedding {
            settings,
            vocabulary,
            index,
            vectors,
            phraser,
            unit_vectors: OnceLock::new(),
        })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn num_dimensions(&self) -> usize {
        self.settings.num_dimensions
    }

    /// The number of vocabulary words (the API's `vocab_size`).
    pub fn vocab_size(&self) -> usize {
        self.vocabulary.words.len()
    }

    /// Vocabulary words, most frequent first.
    pub fn words(&self) -> &[String] {
        &self.vocabulary.words
    }

    /// Corpus counts of the vocabulary words, in `words()` order.
    pub fn counts(&self) -> &[u64] {
        &self.vocabulary.counts
    }

    pub fn phraser(&self) -> &Phraser {
        &self.phraser
    }

    /// All vectors, row-major in `words()` order.
    pub fn vectors(&self) -> &[f32] {
        &self.vectors
    }

    pub(super) fn word_id(&self, word: &str) -> Option<usize> {
        self.index.get(word).map(|&id| id as usize)
    }

    /// The vector of a vocabulary word.
    pub fn vector(&self, word: &str) -> Option<&[f32]> {
        let dims = self.settings.num_dimensions;
        self.word_id(word).map(|id| &self.vectors[id * dims..(id + 1) * dims])
    }

    /// The `phrase_text` endpoint: strip, lower-case, split on single spaces, phrase, drop
    /// empty tokens, join with spaces. No stop-word removal.
    pub fn phrase_text(&self, text: &str) -> String {
        let tokens = pytext::strip(text).to_lowercase().split(' ').map(str::to_owned).collect();
        let phrased: Vec<String> = self.phraser.phrase(tokens).into_iter().filter(|t| !t.is_empty()).collect();
        phrased.join(" ")
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::phraser::{Bigram, PhraserSettings};

    /// A 4-word, 2-dimensional embedding with the phrase `new york`.
    pub(crate) fn tiny() -> Embedding {
        let settings = Settings {
            num_dimensions: 2,
            ..Settings::default()
        };
        let words = ["king", "queen", "new_york", "apple"].map(String::from).to_vec();
        let vocabulary = Vocabulary {
            words,
            counts: vec![9, 8, 7, 6],
        };
        let vectors = vec![1.0, 0.0, 0.8, 0.6, 0.0, 2.0, -1.0, 0.0];
        let bigram = Bigram {
            phrase: "new_york".into(),
            score: 12.5,
        };
        let phraser = Phraser::new(PhraserSettings::default(), 40, vec![bigram]);
        Embedding::new(settings, vocabulary, vectors, phraser).unwrap()
    }

    #[test]
    fn looks_up_words() {
        let embedding = tiny();
        assert_eq!(embedding.vocab_size(), 4);
        assert_eq!(embedding.vector("queen"), Some(&[0.8, 0.6][..]));
        assert_eq!(embedding.vector("prince"), None);
    }

    #[test]
    fn phrase_text_follows_the_reference() {
        let embedding = tiny();
        assert_eq!(embedding.phrase_text("  I love New York\n"), "i love new_york");
        assert_eq!(embedding.phrase_text("new  york"), "new york");
        assert_eq!(embedding.phrase_text("new\nyork new york"), "new\nyork new_york");
        assert_eq!(embedding.phrase_text(" \t "), "");
    }

    #[test]
    fn rejects_inconsistent_parts() {
        let settings = Settings {
            num_dimensions: 2,
            ..Settings::default()
        };
        let vocabulary = Vocabulary {
            words: vec!["a".into(), "a".into()],
            counts: vec![1, 1],
        };
        assert!(Embedding::new(settings.clone(), vocabulary.clone(), vec![0.0; 4], Phraser::empty()).is_err());
        assert!(Embedding::new(settings, vocabulary, vec![0.0; 3], Phraser::empty()).is_err());
    }
}
