//! slovnet's NER network at inference (ner.md §5.2): convolution layers over the token
//! vectors (Conv1d with zero padding → ReLU → BatchNorm each), a linear projection to tag
//! scores, and CRF Viterbi decoding over the whole sequence.
//!
//! A long text is run in chunks: a token's scores depend only on its neighbours within the
//! layers' summed padding, so each chunk is computed with that many context tokens on both
//! sides and the scores are exactly those of one pass over the whole text, in flat memory.

use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array1, Array2, ArrayView2, Axis};
use serde_json::Value;

/// Tokens whose scores one chunk computes.
const CHUNK: usize = 256;

/// Reads an array of model.json (its `shape` and `array` id) from the pack.
pub type ReadArray<'a> = dyn Fn(&Value) -> Result<Array1<f32>, String> + 'a;

/// One encoder layer.
struct Layer {
    /// Per kernel offset, the `in × out` weights.
    kernels: Vec<Array2<f32>>,
    bias: Array1<f32>,
    padding: usize,
    weight: Array1<f32>,
    norm_bias: Array1<f32>,
    mean: Array1<f32>,
    std: Array1<f32>,
}

/// The encoder, the projection and the CRF transitions.
pub struct Cnn {
    layers: Vec<Layer>,
    /// `in × tags`.
    proj: Array2<f32>,
    proj_bias: Array1<f32>,
    /// `from × to`.
    transitions: Array2<f32>,
    input_dim: usize,
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

/// A 2-D view of a read array whose model.json shape is `rows × cols`.
pub(super) fn matrix(weight: &Value, read: &ReadArray) -> Result<Array2<f32>, String> {
    match shape(weight)[..] {
        [rows, cols] => read(weight)?.into_shape_with_order((rows, cols)).map_err(|e| e.to_string()),
        _ => Err(format!("model.json: expected a matrix, got shape {}", weight["shape"])),
    }
}

/// A vector of `len` numbers.
fn vector(weight: &Value, len: usize, read: &ReadArray) -> Result<Array1<f32>, String> {
    let v = read(weight)?;
    if v.len() != len {
        return Err(format!("model.json: expected {len} numbers, got shape {}", weight["shape"]));
    }
    Ok(v)
}

impl Layer {
    fn from_json(layer: &Value, read: &ReadArray) -> Result<Layer, String> {
        let (conv, norm) = (&layer["conv"], &layer["norm"]);
        let [out, inp, kernel] = shape(&conv["weight"])[..] else {
            return Err(format!("model.json: conv weight shape {}", conv["weight"]["shape"]));
        };
        let padding = conv["padding"].as_u64().unwrap_or(0) as usize;
        if kernel != 2 * padding + 1 {
            return Err(format!(
                "model.json: conv kernel {kernel} with padding {padding} changes the length"
            ));
        }
        let w = read(&conv["weight"])?;
        let kernels = (0..kernel)
            .map(|k| Array2::from_shape_fn((inp, out), |(i, f)| w[(f * inp + i) * kernel + k]))
            .collect();
        Ok(Layer {
            kernels,
            bias: vector(&conv["bias"], out, read)?,
            padding,
            weight: vector(&norm["weight"], out, read)?,
            norm_bias: vector(&norm["bias"], out, read)?,
            mean: vector(&norm["mean"], out, read)?,
            std: vector(&norm["std"], out, read)?,
        })
    }

    fn input_dim(&self) -> usize {
        self.kernels[0].nrows()
    }

    /// The layer over `x` (tokens × in), zero-padded at both ends.
    fn forward(&self, x: ArrayView2<f32>) -> Array2<f32> {
        let n = x.nrows();
        let mut y = Array2::from_shape_fn((n, self.bias.len()), |(_, f)| self.bias[f]);
        for (k, w) in self.kernels.iter().enumerate() {
            // y[t] += x[t + k - padding] · w
            let (src, dst) = if k < self.padding {
                let d = (self.padding - k).min(n);
                (x.slice(s![..n - d, ..]), y.slice_mut(s![d.., ..]))
            } else {
                let d = (k - self.padding).min(n);
                (x.slice(s![d.., ..]), y.slice_mut(s![..n - d, ..]))
            };
            let mut dst = dst;
            general_mat_mul(1.0, &src, w, 1.0, &mut dst);
        }
        for mut row in y.axis_iter_mut(Axis(0)) {
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
        let proj = matrix(&model["head"]["proj"]["weight"], read)?;
        let transitions = matrix(&model["head"]["crf"]["transitions"], read)?;
        let first = layers.first().ok_or("model.json: no encoder layers")?;
        let last = layers.last().unwrap_or(first);
        let chained = layers.windows(2).all(|w| w[0].bias.len() == w[1].input_dim());
        let tags = proj.ncols();
        if !chained || proj.nrows() != last.bias.len() || transitions.dim() != (tags, tags) || tags > 256 {
            return Err("model.json: the layers' sizes do not chain".into());
        }
        Ok(Cnn {
            input_dim: first.input_dim(),
            proj_bias: vector(&model["head"]["proj"]["bias"], tags, read)?,
            layers,
            proj,
            transitions,
        })
    }

    /// Numbers per token the network reads.
    pub fn input_dim(&self) -> usize {
        self.input_dim
    }

    /// Number of tags.
    pub fn tags(&self) -> usize {
        self.proj.ncols()
    }

    /// The best tag sequence of `n` tokens; `fill(t, row)` writes token `t`'s input.
    pub fn tag(&self, n: usize, fill: impl Fn(usize, &mut [f32])) -> Vec<usize> {
        let margin: usize = self.layers.iter().map(|l| l.padding).sum();
        let mut emissions = Array2::zeros((n, self.tags()));
        for start in (0..n).step_by(CHUNK) {
            let end = (start + CHUNK).min(n);
            let (from, to) = (start.saturating_sub(margin), (end + margin).min(n));
            let mut x = Array2::zeros((to - from, self.input_dim));
            for (t, mut row) in x.axis_iter_mut(Axis(0)).enumerate() {
                fill(from + t, row.as_slice_mut().expect("a standard-layout row"));
            }
            let mut h = x;
            for layer in &self.layers {
                h = layer.forward(h.view());
            }
            let scores = h.slice(s![start - from..end - from, ..]).dot(&self.proj) + &self.proj_bias;
            emissions.slice_mut(s![start..end, ..]).assign(&scores);
        }
        self.viterbi(emissions.view())
    }

    /// CRF decoding: the tag path of the highest total score (first best on ties).
    fn viterbi(&self, emissions: ArrayView2<f32>) -> Vec<usize> {
        let (n, tags) = emissions.dim();
        if n == 0 {
            return Vec::new();
        }
        let mut score = emissions.row(0).to_vec();
        let mut next = vec![0.0; tags];
        let mut back = vec![0u8; n * tags];
        for t in 1..n {
            for to in 0..tags {
                let (mut best, mut arg) = (f32::NEG_INFINITY, 0);
                for (from, s) in score.iter().enumerate() {
                    let v = s + self.transitions[(from, to)];
                    if v > best {
                        (best, arg) = (v, from);
                    }
                }
                next[to] = best + emissions[(t, to)];
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
