//! Tokenisation (lower-case, split on whitespace, cap the length) and the token vocabulary of a neural tagger.

use std::collections::HashMap;

/// Id of the unknown-token entry.
pub const UNK: u32 = 0;
/// Id of the padding entry.
pub const PAD: u32 = 1;
/// The two reserved entries, in id order.
pub const RESERVED: [&str; 2] = ["<unk>", "<pad>"];

/// Lower-cases `text`, splits it on any whitespace and keeps at most `max_tokens` tokens.
pub fn tokenize(text: &str, max_tokens: usize) -> Vec<String> {
    text.split_whitespace().take(max_tokens).map(str::to_lowercase).collect()
}

/// Token to id mapping: `<unk>` = 0, `<pad>` = 1, then tokens by descending frequency, ties alphabetical.
#[derive(Debug, Clone, PartialEq)]
pub struct Vocabulary {
    words: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Vocabulary {
    /// Builds the vocabulary from tokenised training texts (every token, minimum count 1).
    pub fn build<'a>(docs: impl IntoIterator<Item = &'a [String]>) -> Self {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for doc in docs {
            for token in doc {
                *counts.entry(token.as_str()).or_default() += 1;
            }
        }
        let mut ranked: Vec<(&str, usize)> = counts.into_iter().filter(|(w, _)| !RESERVED.contains(w)).collect();
        ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        let words: Vec<String> = RESERVED
            .iter()
            .copied()
            .chain(ranked.into_iter().map(|(w, _)| w))
            .map(str::to_string)
            .collect();
        let ids = words.iter().enumerate().map(|(id, w)| (w.clone(), id as u32)).collect();
        Self { words, ids }
    }

    /// Rebuilds a vocabulary from its words in id order; `None` if the reserved entries are missing or a word repeats.
    pub fn from_words(words: Vec<String>) -> Option<Self> {
        if words.len() < RESERVED.len() || words[..RESERVED.len()] != RESERVED || u32::try_from(words.len()).is_err() {
            return None;
        }
        let mut ids = HashMap::with_capacity(words.len());
        for (id, word) in words.iter().enumerate() {
            if ids.insert(word.clone(), id as u32).is_some() {
                return None;
            }
        }
        Some(Self { words, ids })
    }

    /// Number of entries, reserved ones included.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// The words in id order.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Ids of `tokens`; unknown tokens map to `<unk>`, and an empty document becomes a single `<unk>`.
    pub fn encode(&self, tokens: &[String]) -> Vec<u32> {
        if tokens.is_empty() {
            return vec![UNK];
        }
        tokens.iter().map(|t| self.ids.get(t).copied().unwrap_or(UNK)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenize_lowercases_splits_on_any_whitespace_and_caps() {
        assert_eq!(tokenize("  Hello\tWORLD\n\nÕun  ", 10), ["hello", "world", "õun"]);
        assert_eq!(tokenize("a b c d", 2), ["a", "b"]);
        assert!(tokenize(" \n\t", 5).is_empty());
    }

    #[test]
    fn vocabulary_orders_by_count_then_alphabet() {
        let docs = [tokenize("b a c b", 100), tokenize("c d <pad>", 100)];
        let vocab = Vocabulary::build(docs.iter().map(Vec::as_slice));
        assert_eq!(vocab.words(), ["<unk>", "<pad>", "b", "c", "a", "d"]);
        assert_eq!(vocab.encode(&tokenize("D zz b", 100)), [5, UNK, 2]);
        assert_eq!(vocab.encode(&[]), [UNK]);
    }

    #[test]
    fn from_words_rejects_missing_reserved_and_duplicates() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(Vocabulary::from_words(words(&["<unk>", "<pad>", "a"])).is_some());
        assert!(Vocabulary::from_words(words(&["<pad>", "<unk>", "a"])).is_none());
        assert!(Vocabulary::from_words(words(&["<unk>", "<pad>", "a", "a"])).is_none());
    }
}
