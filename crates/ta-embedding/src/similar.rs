//! `most_similar`: the words closest by cosine to the mean of unit positive vectors and
//! negated unit negative vectors, by a brute-force scan of the unit-length matrix in
//! parallel chunks, each keeping only its best candidates.

use super::linalg;
use super::model::Embedding;
use super::phraser::DELIMITER;
use rayon::prelude::*;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Rows scored by one parallel task.
const CHUNK_ROWS: usize = 4096;

/// One neighbour: the phrase with `_` shown as spaces, and its cosine similarity.
#[derive(Clone, Debug, PartialEq)]
pub struct Similar {
    pub phrase: String,
    pub score: f32,
}

/// A candidate ordered by score, then by lower word id (better = greater).
#[derive(Clone, Copy, PartialEq)]
struct Candidate {
    score: f32,
    id: usize,
}

impl Eq for Candidate {}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score.total_cmp(&other.score).then(other.id.cmp(&self.id))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Embedding {
    fn unit_vectors(&self) -> &[f32] {
        self.unit_vectors.get_or_init(|| {
            let mut unit = self.vectors.clone();
            unit.par_chunks_mut(self.num_dimensions()).for_each(linalg::normalise);
            unit
        })
    }

    /// The `predict_similar` endpoint: inputs have spaces turned into `_`, words outside the
    /// vocabulary are dropped, and with no positive word left the answer is empty. The
    /// input words themselves are never returned. Best first; equal scores by frequency.
    pub fn most_similar<S: AsRef<str>>(&self, positives: &[S], negatives: &[S], output_size: usize) -> Vec<Similar> {
        let dims = self.num_dimensions();
        let lookup = |words: &[S]| -> Vec<usize> { words.iter().filter_map(|w| self.word_id(&w.as_ref().replace(' ', "_"))).collect() };
        let (positive, negative) = (lookup(positives), lookup(negatives));
        if positive.is_empty() || output_size == 0 {
            return Vec::new();
        }
        let unit = self.unit_vectors();
        let mut query = vec![0f32; dims];
        for (&id, sign) in positive.iter().map(|id| (id, 1.0)).chain(negative.iter().map(|id| (id, -1.0))) {
            linalg::axpy(sign, &unit[id * dims..(id + 1) * dims], &mut query);
        }
        linalg::normalise(&mut query);
        let mut excluded: Vec<usize> = positive.into_iter().chain(negative).collect();
        excluded.sort_unstable();
        let keep = output_size.min(self.vocab_size());
        let mut best: Vec<Candidate> = unit
            .par_chunks(CHUNK_ROWS * dims)
            .enumerate()
            .map(|(chunk, rows)| top_k(rows, dims, chunk * CHUNK_ROWS, &query, &excluded, keep))
            .reduce(Vec::new, |mut a, b| {
                a.extend(b);
                a
            });
        best.sort_unstable_by(|a, b| b.cmp(a));
        best.truncate(keep);
        best.into_iter()
            .map(|c| Similar {
                phrase: self.vocabulary.words[c.id].replace(DELIMITER, " "),
                score: c.score,
            })
            .collect()
    }
}

/// The best `keep` rows of one chunk (first row id `first`), skipping excluded ids.
fn top_k(rows: &[f32], dims: usize, first: usize, query: &[f32], excluded: &[usize], keep: usize) -> Vec<Candidate> {
    let mut heap = BinaryHeap::with_capacity(keep.min(rows.len() / dims) + 1);
    for (offset, row) in rows.chunks_exact(dims).enumerate() {
        let id = first + offset;
        let candidate = Candidate {
            score: linalg::dot(row, query),
            id,
        };
        if heap.len() == keep && heap.peek().is_some_and(|Reverse(worst)| candidate <= *worst) {
            continue;
        }
        if excluded.binary_search(&id).is_ok() {
            continue;
        }
        heap.push(Reverse(candidate));
        if heap.len() > keep {
            heap.pop();
        }
    }
    heap.into_iter().map(|Reverse(c)| c).collect()
}

#[cfg(test)]
mod tests {
    use crate::model::tests::tiny;

    fn phrases(result: &[super::Similar]) -> Vec<&str> {
        result.iter().map(|s| s.phrase.as_str()).collect()
    }

    #[test]
    fn ranks_by_cosine_and_excludes_inputs() {
        let embedding = tiny();
        let result = embedding.most_similar(&["king"], &[], 10);
        // king (1,0): queen 0.8, new_york 0, apple -1.
        assert_eq!(phrases(&result), ["queen", "new york", "apple"]);
        assert!((result[0].score - 0.8).abs() < 1e-6);
        assert_eq!(result[2].score, -1.0);
        assert_eq!(phrases(&embedding.most_similar(&["king"], &[], 1)), ["queen"]);
    }

    #[test]
    fn combines_unit_positives_and_negatives() {
        let embedding = tiny();
        // unit(new york) = (0, 1), minus unit(apple) = (1, 0): mean direction (1, 1)/sqrt 2.
        let result = embedding.most_similar(&["new york"], &["apple"], 10);
        assert_eq!(phrases(&result), ["queen", "king"]);
        assert!((result[0].score - 1.4 / 2f32.sqrt()).abs() < 1e-6);
        assert!((result[1].score - 1.0 / 2f32.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn drops_unknown_words() {
        let embedding = tiny();
        assert!(embedding.most_similar(&["prince"], &["king"], 10).is_empty());
        assert!(embedding.most_similar::<&str>(&[], &[], 10).is_empty());
        assert_eq!(embedding.most_similar(&["prince", "king"], &["nobody"], 10).len(), 3);
        assert!(embedding.most_similar(&["king"], &[], 0).is_empty());
        assert_eq!(embedding.most_similar(&["king"], &[], usize::MAX).len(), 3);
    }
}
