//! slovnet's NER network at inference (ner.md §5.2): convolution layers over the token
//! vectors (Conv1d with zero padding → ReLU → BatchNorm each), a linear projection to tag
//! scores, and CRF Viterbi decoding over the whole sequence.
//!
//! A long text is run in chunks: a token's scores depend only on its neighbours within the
//! layers' summed padding, so each chunk is computed with that many context tokens on both
//! sides and the scores are exactly those of one pass over the whole text, in flat memory.

use serde_json::Value;

use super::gemm::Packed;

/// Tokens whose scores one chunk computes.
const CHUNK: usize = 256;

/// Reads the numbers of a model.json weight (its `shape` and `array` id) from the pack.
pub type ReadArray<'a> = dyn Fn(&Value) -> Result<Vec<f32>, String> + 'a;

/// One encoder layer.
struct Layer {
    /// The convolution as a product with the `kernel × in` window of each token.
    conv: Packed,
    kernel: usize,
    padding: usize,
    input: usize,
    weight: Vec<f32>,
    norm_bias: Vec<f32>,
    mean: Vec<f32>,
    std: Vec<f32>,
}

/// The encoder, the projection and the CRF transitions.
pub struct Cnn {
    layers: Vec<Layer>,
    proj: Packed,
    /// `from × to`, row-major.
    transitions: Vec<f32>,
}

/// The `shape` list of a model.json weight.
fn shape(weight: &Value) -> Vec<usize> {
    weight["shape"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d.as_u64().map(|d| d as usize))
        .collect()
}

/// A matrix weight: its rows, columns and row-major numbers.
pub(super) fn matrix(weight: &Value, read: &ReadArray) -> Result<(usize, usize, Vec<f32>), String> {
    match shape(weight)[..] {
        [rows, cols] => Ok((rows, cols, read(weight)?)),
        _ => Err(format!("model.json: expected a matrix, got shape {}", weight["shape"])),
    }
}

/// A vector of `len` numbers.
fn vector(weight: &Value, len: usize, read: &ReadArray) -> Result<Vec<f32>, String> {
    let v = read(weight)?;
    if v.len() != len {
        return Err(format!("model.json: expected {len} numbers, got shape {}", weight["shape"]));
    }
    Ok(v)
}

impl Layer {
    fn from_json(layer: &Value, read: &ReadArray) -> Result<Layer, String> {
        let (conv, norm) = (&layer["conv"], &layer["norm"]);
        let [out, input, kernel] = shape(&conv["weight"])[..] else {
            return Err(format!("model.json: conv weight shape {}", conv["weight"]["shape"]));
        };
        let padding = conv["padding"].as_u64().unwrap_or(0) as usize;
        if kernel != 2 * padding + 1 {
            return Err(format!(
                "model.json: conv kernel {kernel} with padding {padding} changes the length"
            ));
        }
        let w = read(&conv["weight"])?;
        // window position k·input + i holds channel i of the token at offset k − padding
        let at = |row: usize, f: usize| w[(f * input + row % input) * kernel + row / input];
        Ok(Layer {
            conv: Packed::new(kernel * input, out, at, vector(&conv["bias"], out, read)?),
            kernel,
            padding,
            input,
            weight: vector(&norm["weight"], out, read)?,
            norm_bias: vector(&norm["bias"], out, read)?,
            mean: vector(&norm["mean"], out, read)?,
            std: vector(&norm["std"], out, read)?,
        })
    }

    /// The layer over `x` (`rows × input`), zero-padded at both ends.
    fn forward(&self, x: &[f32]) -> Vec<f32> {
        let rows = x.len() / self.input;
        let width = self.kernel * self.input;
        let mut windows = vec![0.0; rows * width];
        for (t, window) in windows.chunks_exact_mut(width).enumerate() {
            for (k, slot) in window.chunks_exact_mut(self.input).enumerate() {
                if let Some(s) = (t + k).checked_sub(self.padding).filter(|&s| s < rows) {
                    slot.copy_from_slice(&x[s * self.input..(s + 1) * self.input]);
                }
            }
        }
        let out = self.conv.cols();
        let mut y = vec![0.0; rows * out];
        self.conv.apply(&windows, &mut y);
        for row in y.chunks_exact_mut(out) {
            for (f, v) in row.iter_mut().enumerate() {
                *v = (v.max(0.0) - self.mean[f]) / self.std[f] * self.weight[f] + self.norm_bias[f];
            }
        }
        y
    }
}

impl Cnn {
    /// The network of model.json's `encoder` and `head`.
    pub fn from_json(model: &Value, read: &ReadArray) -> Result<Cnn, String> {
        let layers = model["encoder"]["layers"].as_array().ok_or("model.json: no encoder layers")?;
        let layers = layers.iter().map(|l| Layer::from_json(l, read)).collect::<Result<Vec<_>, _>>()?;
        let (rows, tags, proj) = matrix(&model["head"]["proj"]["weight"], read)?;
        let (from, to, transitions) = matrix(&model["head"]["crf"]["transitions"], read)?;
        let chained = layers.windows(2).all(|w| w[0].conv.cols() == w[1].input);
        if layers.is_empty() || !chained || layers.last().map(|l| l.conv.cols()) != Some(rows) || (from, to) != (tags, tags) || tags > 256 {
            return Err("model.json: the layers' sizes do not chain".into());
        }
        Ok(Cnn {
            proj: Packed::new(
                rows,
                tags,
                |i, j| proj[i * tags + j],
                vector(&model["head"]["proj"]["bias"], tags, read)?,
            ),
            layers,
            transitions,
        })
    }

    /// Numbers per token the network reads.
    pub fn input_dim(&self) -> usize {
        self.layers[0].input
    }

    /// Number of tags.
    pub fn tags(&self) -> usize {
        self.proj.cols()
    }

    /// The best tag sequence of `n` tokens; `fill(t, row)` writes token `t`'s input.
    pub fn tag(&self, n: usize, fill: impl Fn(usize, &mut [f32])) -> Vec<usize> {
        let margin: usize = self.layers.iter().map(|l| l.padding).sum();
        let (dim, tags) = (self.input_dim(), self.tags());
        let mut emissions = vec![0.0; n * tags];
        for start in (0..n).step_by(CHUNK) {
            let end = (start + CHUNK).min(n);
            let (from, to) = (start.saturating_sub(margin), (end + margin).min(n));
            let mut h = vec![0.0; (to - from) * dim];
            for (t, row) in h.chunks_exact_mut(dim).enumerate() {
                fill(from + t, row);
            }
            for layer in &self.layers {
                h = layer.forward(&h);
            }
            let width = h.len() / (to - from);
            self.proj.apply(
                &h[(start - from) * width..(end - from) * width],
                &mut emissions[start * tags..end * tags],
            );
        }
        self.viterbi(&emissions)
    }

    /// CRF decoding: the tag path of the highest total score (first best on ties).
    fn viterbi(&self, emissions: &[f32]) -> Vec<usize> {
        let tags = self.tags();
        let n = emissions.len() / tags;
        if n == 0 {
            return Vec::new();
        }
        let mut score = emissions[..tags].to_vec();
        let mut next = vec![0.0; tags];
        let mut back = vec![0u8; n * tags];
        for t in 1..n {
            for to in 0..tags {
                let (mut best, mut arg) = (f32::NEG_INFINITY, 0);
                for (from, s) in score.iter().enumerate() {
                    let v = s + self.transitions[from * tags + to];
                    if v > best {
                        (best, arg) = (v, from);
                    }
                }
                next[to] = best + emissions[t * tags + to];
                back[t * tags + to] = arg as u8;
            }
            std::mem::swap(&mut score, &mut next);
        }
        let mut best = argmax(&score);
        let mut path = vec![0; n];
        for t in (0..n).rev() {
            path[t] = best;
            best = back[t * tags + best] as usize;
        }
        path
    }
}

/// Index of the first largest number.
fn argmax(v: &[f32]) -> usize {
    let mut arg = 0;
    for (i, x) in v.iter().enumerate() {
        if *x > v[arg] {
            arg = i;
        }
    }
    arg
}
