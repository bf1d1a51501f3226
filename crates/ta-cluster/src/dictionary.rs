//! The dictionary of a clustering: gensim's `Dictionary` built over the documents, then
//! `filter_extremes(no_below=1, no_above=0.8, keep_n)`.
//!
//! Ids are given as gensim gives them: documents in order, a document's new tokens in
//! sorted order. Tokens in more than `int(0.8 · documents)` documents are dropped; of the
//! rest, the `keep_n` with the highest document frequency stay (a stable sort, so ties keep
//! the order of their ids), renumbered in their old id order.
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Share of the documents a token may occur in at most.
const NO_ABOVE: f64 = 0.8;

/// Tokens and their document frequencies, ids `0..len`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Dictionary {
    terms: Vec<String>,
    dfs: Vec<u32>,
    #[serde(skip)]
    ids: FxHashMap<String, u32>,
}

impl Dictionary {
    /// The filtered dictionary of `docs`, at most `keep_n` tokens.
    pub fn build<S: AsRef<str>>(docs: &[Vec<S>], keep_n: usize) -> Dictionary {
        let mut ids: FxHashMap<&str, u32> = FxHashMap::default();
        let mut terms: Vec<&str> = Vec::new();
        let mut dfs: Vec<u32> = Vec::new();
        for doc in docs {
            let mut tokens: Vec<&str> = doc.iter().map(AsRef::as_ref).collect();
            tokens.sort_unstable();
            tokens.dedup();
            for token in tokens {
                let id = *ids.entry(token).or_insert_with(|| {
                    terms.push(token);
                    dfs.push(0);
                    (terms.len() - 1) as u32
                });
                dfs[id as usize] += 1;
            }
        }
        let most = (NO_ABOVE * docs.len() as f64) as u32;
        let mut good: Vec<usize> = (0..terms.len()).filter(|&i| dfs[i] <= most).collect();
        good.sort_by(|&a, &b| dfs[b].cmp(&dfs[a]));
        good.truncate(keep_n);
        good.sort_unstable();
        Dictionary::from_parts(
            good.iter().map(|&i| terms[i].to_string()).collect(),
            good.iter().map(|&i| dfs[i]).collect(),
        )
    }

    fn from_parts(terms: Vec<String>, dfs: Vec<u32>) -> Dictionary {
        let mut d = Dictionary {
            terms,
            dfs,
            ids: FxHashMap::default(),
        };
        d.index();
        d
    }

    /// Rebuilds the token lookup (after deserializing).
    pub fn index(&mut self) {
        self.ids = self.terms.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
    }

    pub fn len(&self) -> usize {
        self.terms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The token of id `id`.
    pub fn term(&self, id: u32) -> &str {
        &self.terms[id as usize]
    }

    /// Documents holding token `id`.
    pub fn df(&self, id: u32) -> u32 {
        self.dfs[id as usize]
    }

    /// A document's known tokens as (id, count), ascending id.
    pub fn bow<S: AsRef<str>>(&self, tokens: &[S]) -> Vec<(u32, u32)> {
        let mut counts: FxHashMap<u32, u32> = FxHashMap::default();
        for t in tokens {
            if let Some(&id) = self.ids.get(t.as_ref()) {
                *counts.entry(id).or_default() += 1;
            }
        }
        let mut bow: Vec<(u32, u32)> = counts.into_iter().collect();
        bow.sort_unstable();
        bow
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(texts: &[&str]) -> Vec<Vec<String>> {
        texts.iter().map(|t| t.split_whitespace().map(String::from).collect()).collect()
    }

    #[test]
    fn frequent_tokens_go_and_the_most_common_stay() {
        // 5 documents: at most int(0.8 * 5) = 4 may hold a token; "a" is in all of them.
        let d = Dictionary::build(&docs(&["a c b", "a b", "a b d", "a b e", "a f"]), 10);
        let terms: Vec<&str> = (0..d.len() as u32).map(|i| d.term(i)).collect();
        // Ids in first-seen order, a document's new tokens sorted.
        assert_eq!(terms, ["b", "c", "d", "e", "f"]);
        assert_eq!(d.df(0), 4);
        // keep_n 2: "b" (4) and the first of the ties, "c".
        let d = Dictionary::build(&docs(&["a c b", "a b", "a b d", "a b e", "a f"]), 2);
        assert_eq!((d.term(0), d.term(1), d.len()), ("b", "c", 2));
        assert_eq!(d.bow(&["c", "c", "zz", "b"]), [(0, 1), (1, 2)]);
    }
}
