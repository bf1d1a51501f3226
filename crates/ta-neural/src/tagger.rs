//! A trained neural tagger: vocabulary, classes, word vectors and network, and batched inference on raw texts.

use std::collections::{BTreeMap, HashMap};

use candle_core::{DType, Device, Tensor};
use rayon::prelude::*;

use super::batch::Batch;
use super::error::{NeuralError, Result};
use super::network::{Architecture, Network, EMBEDDING};
use super::vocab::{tokenize, Vocabulary};

/// A trained model ready to tag texts. Weights are plain tensors (no gradient tracking).
pub struct NeuralTagger {
    pub(super) architecture: Architecture,
    pub(super) classes: Vec<String>,
    pub(super) vocabulary: Vocabulary,
    pub(super) max_tokens: usize,
    pub(super) frozen_embedding: bool,
    /// All weights by name, the embedding under `EMBEDDING` (what the model file stores).
    pub(super) tensors: BTreeMap<String, Tensor>,
    embedding: Tensor,
    network: Network,
}

impl NeuralTagger {
    /// Assembles a tagger from detached weights, the embedding under `EMBEDDING` (checked against the
    /// architecture's shapes).
    pub(super) fn new(
        architecture: Architecture,
        classes: Vec<String>,
        vocabulary: Vocabulary,
        max_tokens: usize,
        frozen_embedding: bool,
        tensors: BTreeMap<String, Tensor>,
    ) -> Result<Self> {
        let embedding = tensors
            .get(EMBEDDING)
            .ok_or_else(|| NeuralError::InvalidModel("missing embedding".into()))?
            .clone();
        let (_, width) = embedding.dims2()?;
        let layers: HashMap<String, Tensor> = tensors
            .iter()
            .filter(|(k, _)| *k != EMBEDDING)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let network = Network::new(architecture, width, classes.len(), &layers, embedding.device())?;
        Ok(Self {
            architecture,
            classes,
            vocabulary,
            max_tokens,
            frozen_embedding,
            tensors,
            embedding,
            network,
        })
    }

    pub fn architecture(&self) -> Architecture {
        self.architecture
    }

    /// Class names; a prediction's class index points into this list.
    pub fn classes(&self) -> &[String] {
        &self.classes
    }

    /// Number of vocabulary entries, `<unk>` and `<pad>` included.
    pub fn vocabulary_size(&self) -> usize {
        self.vocabulary.len()
    }

    /// Width of the word vectors.
    pub fn embedding_dim(&self) -> usize {
        self.embedding.dims().get(1).copied().unwrap_or(0)
    }

    /// Whether the word vectors came from a frozen embedding (rather than being trained).
    pub fn frozen_embedding(&self) -> bool {
        self.frozen_embedding
    }

    /// Longest token sequence the model reads; longer texts are cut.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// Predicts each text's class: `(class index, probability)` in input order, batched by similar length.
    pub fn tag(&self, texts: &[&str]) -> Result<Vec<(usize, f32)>> {
        let docs: Vec<Vec<u32>> = texts
            .par_iter()
            .map(|t| self.vocabulary.encode(&tokenize(t, self.max_tokens)))
            .collect();
        let docs: Vec<&[u32]> = docs.iter().map(Vec::as_slice).collect();
        predict(&self.network, &self.embedding, &docs, self.architecture.batch_size(), true)
    }
}

/// Token positions one inference batch holds at most (unless a single document is longer): bounds the
/// activations held at once (RCNN keeps about 1.5 KB per position), whatever the documents' lengths.
const MAX_BATCH_POSITIONS: usize = 32_768;

/// Runs `network` without dropout over `docs` in batches of up to `batch_size` documents and
/// `MAX_BATCH_POSITIONS` tokens (after sorting by length when `by_length`), returning `(class, probability)`
/// per document in input order.
pub(super) fn predict(
    network: &Network,
    embedding: &Tensor,
    docs: &[&[u32]],
    batch_size: usize,
    by_length: bool,
) -> Result<Vec<(usize, f32)>> {
    let mut order: Vec<usize> = (0..docs.len()).collect();
    if by_length {
        order.sort_by_key(|&i| docs[i].len());
    }
    let mut out = vec![(0, 0.0); docs.len()];
    for chunk in batches(&order, docs, batch_size.max(1)) {
        let slices: Vec<&[u32]> = chunk.iter().map(|&i| docs[i]).collect();
        let batch = Batch::new(&slices, embedding.device())?;
        let ids = Tensor::from_slice(&batch.ids, batch.ids.len(), embedding.device())?;
        let log_probs = network.forward(&embedding.index_select(&ids, 0)?, &batch, None)?;
        let log_probs = log_probs.to_dtype(DType::F32)?.to_device(&Device::Cpu)?.to_vec2::<f32>()?;
        for (row, values) in log_probs.iter().enumerate() {
            let (class, best) = values
                .iter()
                .enumerate()
                .fold((0, f32::NEG_INFINITY), |acc, (c, &v)| if v > acc.1 { (c, v) } else { acc });
            out[chunk[batch.order[row]]] = (class, best.exp());
        }
    }
    Ok(out)
}

/// Consecutive runs of `order` with at most `size` documents and `MAX_BATCH_POSITIONS` tokens each (a longer
/// document alone).
fn batches<'o>(order: &'o [usize], docs: &[&[u32]], size: usize) -> Vec<&'o [usize]> {
    let mut out = Vec::new();
    let (mut start, mut positions) = (0, 0);
    for (i, &doc) in order.iter().enumerate() {
        let len = docs[doc].len();
        if i > start && (i - start == size || positions + len > MAX_BATCH_POSITIONS) {
            out.push(&order[start..i]);
            (start, positions) = (i, 0);
        }
        positions += len;
    }
    if start < order.len() {
        out.push(&order[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{batches, MAX_BATCH_POSITIONS};

    #[test]
    fn batches_are_cut_by_count_and_by_positions() {
        let short = vec![1u32; 10];
        let long = vec![1u32; MAX_BATCH_POSITIONS / 2 + 1];
        let huge = vec![1u32; MAX_BATCH_POSITIONS * 2];
        let docs: Vec<&[u32]> = vec![&short, &short, &short, &long, &long, &huge, &short];
        let order: Vec<usize> = (0..docs.len()).collect();
        let cut = batches(&order, &docs, 2);
        assert_eq!(cut, [&[0, 1][..], &[2, 3], &[4], &[5], &[6]]);
        assert_eq!(batches(&order[..3], &docs, 128), [&[0, 1, 2][..]]);
        assert!(batches(&[], &docs, 4).is_empty());
    }
}
