//! The model file: one deterministic byte blob made of `TANEURAL`, the format version (u32 LE), the JSON header
//! length (u64 LE), the JSON header (architecture, classes, vocabulary, dimensions, settings), the safetensors
//! length (u64 LE), the safetensors of the weights (f32, names sorted) and an FNV-1a 64 checksum of everything
//! before it (u64 LE). Loading checks every part and never trusts a size it reads.

use std::collections::{BTreeMap, HashSet};

use candle_core::{DType, Device, Tensor};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::error::{NeuralError, Result};
use super::network::{Architecture, EMBEDDING};
use super::settings::MAX_SIZE;
use super::tagger::NeuralTagger;
use super::vocab::Vocabulary;

const MAGIC: &[u8; 8] = b"TANEURAL";
const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    architecture: Architecture,
    classes: Vec<String>,
    vocabulary: Vec<String>,
    embedding_dim: usize,
    frozen_embedding: bool,
    max_tokens: usize,
}

impl NeuralTagger {
    /// Serialises the model; the same model always gives the same bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let header = Header {
            architecture: self.architecture,
            classes: self.classes.clone(),
            vocabulary: self.vocabulary.words().to_vec(),
            embedding_dim: self.embedding_dim(),
            frozen_embedding: self.frozen_embedding,
            max_tokens: self.max_tokens,
        };
        let header = serde_json::to_vec(&header).map_err(|e| NeuralError::InvalidModel(e.to_string()))?;
        let weights = safetensors_bytes(&self.tensors)?;
        let mut out = Vec::with_capacity(28 + header.len() + weights.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        for part in [&header, &weights] {
            out.extend_from_slice(&(part.len() as u64).to_le_bytes());
            out.extend_from_slice(part);
        }
        out.extend_from_slice(&fnv1a(&out).to_le_bytes());
        Ok(out)
    }

    /// Loads a model written by `to_bytes` onto the CPU; anything else is rejected with `InvalidModel`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let invalid = |what: &str| NeuralError::InvalidModel(what.to_string());
        if bytes.len() < MAGIC.len() + 4 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(invalid("not a ta neural tagger model (bad magic bytes)"));
        }
        let (body, checksum) = bytes.split_at(bytes.len().saturating_sub(8));
        if checksum != fnv1a(body).to_le_bytes() {
            return Err(invalid("checksum mismatch: the file is truncated or corrupt"));
        }
        let mut reader = Reader(&body[MAGIC.len()..]);
        let version = u32::from_le_bytes(reader.array().ok_or_else(|| invalid("file too short"))?);
        if version != VERSION {
            return Err(NeuralError::InvalidModel(format!(
                "unsupported format version {version} (expected {VERSION})"
            )));
        }
        let header = reader.part().ok_or_else(|| invalid("truncated header"))?;
        let weights = reader.part().ok_or_else(|| invalid("truncated weights"))?;
        if !reader.0.is_empty() {
            return Err(invalid("trailing bytes after the weights"));
        }
        let header: Header = serde_json::from_slice(header).map_err(|e| NeuralError::InvalidModel(format!("bad header: {e}")))?;
        let vocabulary = Vocabulary::from_words(header.vocabulary).ok_or_else(|| invalid("bad vocabulary"))?;
        if header.classes.len() < 2 || header.classes.iter().collect::<HashSet<_>>().len() != header.classes.len() {
            return Err(invalid("need at least two distinct classes"));
        }
        if !(1..=MAX_SIZE).contains(&header.embedding_dim) || !(1..=MAX_SIZE).contains(&header.max_tokens) {
            return Err(invalid("embedding width or token limit out of range"));
        }
        let tensors = candle_core::safetensors::load_buffer(weights, &Device::Cpu)
            .map_err(|e| NeuralError::InvalidModel(format!("bad weights: {e}")))?;
        let mut expected = header.architecture.parameter_shapes(header.embedding_dim, header.classes.len());
        expected.insert(EMBEDDING.to_string(), (vec![vocabulary.len(), header.embedding_dim], 0.0));
        if tensors.len() != expected.len() {
            return Err(NeuralError::InvalidModel(format!(
                "expected {} weight tensors, found {}",
                expected.len(),
                tensors.len()
            )));
        }
        let mut checked = BTreeMap::new();
        for (name, (shape, _)) in expected {
            let tensor = tensors
                .get(&name)
                .ok_or_else(|| NeuralError::InvalidModel(format!("missing weights {name}")))?;
            if tensor.dtype() != DType::F32 || tensor.dims() != shape.as_slice() {
                return Err(NeuralError::InvalidModel(format!(
                    "weights {name} have shape {:?} {:?}, expected F32 {shape:?}",
                    tensor.dtype(),
                    tensor.dims()
                )));
            }
            checked.insert(name, tensor.clone());
        }
        NeuralTagger::new(
            header.architecture,
            header.classes,
            vocabulary,
            header.max_tokens,
            header.frozen_embedding,
            checked,
        )
    }
}

/// A cursor over the input that never reads past its end.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    /// A part preceded by its u64 LE length.
    fn part(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(u64::from_le_bytes(self.array()?)).ok()?;
        self.take(len)
    }
}

/// FNV-1a, 64 bit.
pub(super) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Safetensors encoding of `tensors` as little-endian f32, in name order.
fn safetensors_bytes(tensors: &BTreeMap<String, Tensor>) -> Result<Vec<u8>> {
    let mut header = serde_json::Map::new();
    let mut data = Vec::new();
    for (name, tensor) in tensors {
        let values: Vec<f32> = tensor.to_device(&Device::Cpu)?.to_dtype(DType::F32)?.flatten_all()?.to_vec1()?;
        let start = data.len();
        data.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        header.insert(
            name.clone(),
            json!({"dtype": "F32", "shape": tensor.dims(), "data_offsets": [start, data.len()]}),
        );
    }
    let mut header = serde_json::to_vec(&header).map_err(|e| NeuralError::InvalidModel(e.to_string()))?;
    header.resize(header.len().div_ceil(8) * 8, b' ');
    let mut out = Vec::with_capacity(8 + header.len() + data.len());
    out.extend_from_slice(&(header.len() as u64).to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(&data);
    Ok(out)
}
