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

/// Runs `network` without dropout over `docs` in batches of `batch_size` (after sorting by length when
/// `by_length`), returning `(class, probability)` per document in input order.
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
    for chunk in order.chunks(batch_size.max(1)) {
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
