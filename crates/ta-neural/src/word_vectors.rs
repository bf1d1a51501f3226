//! The frozen-embedding input: any word-to-vector lookup, e.g. a word2vec model trained by ta.

use std::collections::HashMap;

use ta_embedding::Embedding;

/// Word vectors of a frozen embedding.
pub trait WordVectors {
    /// Width of every vector.
    fn dim(&self) -> usize;
    /// The vector of `word`, if known.
    fn vector(&self, word: &str) -> Option<&[f32]>;
}

/// A word-vector table held in memory.
#[derive(Debug, Clone, Default)]
pub struct WordVectorMap {
    pub dim: usize,
    pub vectors: HashMap<String, Vec<f32>>,
}

impl WordVectors for WordVectorMap {
    fn dim(&self) -> usize {
        self.dim
    }

    fn vector(&self, word: &str) -> Option<&[f32]> {
        self.vectors.get(word).map(Vec::as_slice)
    }
}

/// A word2vec model trained by ta (phrases such as `new_york` are looked up as the tokens they are).
impl WordVectors for Embedding {
    fn dim(&self) -> usize {
        self.num_dimensions()
    }

    fn vector(&self, word: &str) -> Option<&[f32]> {
        Embedding::vector(self, word)
    }
}
