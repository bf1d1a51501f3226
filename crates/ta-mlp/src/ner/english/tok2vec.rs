//! The English NER's own token encoder (spaCy `Tok2Vec.v2` with `MultiHashEmbed.v2` and
//! `MaxoutWindowEncoder.v2`, then the parser's `Linear` projection): four hash embeddings
//! summed over four bucket rows each, Maxout + LayerNorm, residual window-1 CNN blocks over the
//! text padded as thinc pads it, and a linear layer.

use super::hash::bucket_keys;
use super::weights::Node;

/// A hash embedding table.
struct HashEmbed {
    table: Vec<f32>,
    rows: usize,
    seed: u32,
}

/// Maxout (`W` nO × nP × nI, `b` nO × nP) followed by LayerNorm (`G`, `b`).
pub struct MaxoutNorm {
    w: Vec<f32>,
    b: Vec<f32>,
    gain: Vec<f32>,
    bias: Vec<f32>,
    n_out: usize,
    n_pieces: usize,
    n_in: usize,
}

/// The dot product, in eight lanes so the compiler vectorises it.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f32>() + tail
}

impl MaxoutNorm {
    fn load(maxout: &Node, norm: &Node, n_in: usize, n_out: usize) -> Result<MaxoutNorm, String> {
        let n_pieces = maxout.shape("W").get(1).copied().unwrap_or(0);
        Ok(MaxoutNorm {
            w: maxout.param("W", &[n_out, n_pieces, n_in])?.to_vec(),
            b: maxout.param("b", &[n_out, n_pieces])?.to_vec(),
            gain: norm.param("G", &[n_out])?.to_vec(),
            bias: norm.param("b", &[n_out])?.to_vec(),
            n_out,
            n_pieces,
            n_in,
        })
    }

    /// `out` = LayerNorm(Maxout(`x`)).
    fn forward(&self, x: &[f32], out: &mut [f32]) {
        for (o, y) in out.iter_mut().enumerate() {
            let mut best = f32::NEG_INFINITY;
            for p in 0..self.n_pieces {
                let row = (o * self.n_pieces + p) * self.n_in;
                let v = dot(&self.w[row..row + self.n_in], x) + self.b[o * self.n_pieces + p];
                if v > best {
                    best = v;
                }
            }
            *y = best;
        }
        let n = self.n_out as f32;
        let mean = out.iter().sum::<f32>() / n;
        let var = out.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n + 1e-8;
        let scale = 1.0 / var.sqrt();
        for ((y, g), b) in out.iter_mut().zip(&self.gain).zip(&self.bias) {
            *y = (*y - mean) * scale * g + b;
        }
    }
}

/// The encoder: token attribute ids in, one vector of `out_width` per token out.
pub struct Tok2Vec {
    embeds: Vec<HashEmbed>,
    reduce: MaxoutNorm,
    blocks: Vec<MaxoutNorm>,
    proj_w: Vec<f32>,
    proj_b: Vec<f32>,
    width: usize,
    pub out_width: usize,
}

impl Tok2Vec {
    /// The encoder from the model's nodes (hash embeddings, maxouts and layer norms in model
    /// order, the projection `linear` whose input is the encoder width).
    pub fn load(nodes: &[Node]) -> Result<Tok2Vec, String> {
        let named = |name: &'static str| nodes.iter().filter(move |n| n.name == name);
        let mut embeds = Vec::new();
        for node in named("hashembed") {
            let [rows, width] = node.shape("E") else {
                return Err("hashembed without a table".into());
            };
            let seed = node.attr_int("seed").ok_or("hashembed without a seed")?;
            embeds.push(HashEmbed {
                table: node.param("E", &[*rows, *width])?.to_vec(),
                rows: *rows,
                seed: seed as u32,
            });
        }
        if embeds.len() != 4 {
            return Err(format!("{} hash embeddings, expected 4", embeds.len()));
        }
        let width = embeds[0].table.len() / embeds[0].rows;
        let maxouts: Vec<&Node> = named("maxout").collect();
        let norms: Vec<&Node> = named("layernorm").collect();
        if maxouts.len() < 2 || maxouts.len() != norms.len() {
            return Err("maxout and layernorm layers missing".into());
        }
        let reduce = MaxoutNorm::load(maxouts[0], norms[0], 4 * width, width)?;
        let blocks = maxouts[1..]
            .iter()
            .zip(&norms[1..])
            .map(|(m, n)| MaxoutNorm::load(m, n, 3 * width, width))
            .collect::<Result<Vec<_>, _>>()?;
        let proj = named("linear")
            .find(|n| n.shape("W").get(1) == Some(&width))
            .ok_or("no projection layer")?;
        let out_width = proj.shape("W")[0];
        Ok(Tok2Vec {
            embeds,
            reduce,
            blocks,
            proj_w: proj.param("W", &[out_width, width])?.to_vec(),
            proj_b: proj.param("b", &[out_width])?.to_vec(),
            width,
            out_width,
        })
    }

    /// The vectors of a text's tokens (`[NORM, PREFIX, SUFFIX, SHAPE]` ids each), row-major.
    pub fn forward(&self, attrs: &[[u64; 4]]) -> Vec<f32> {
        let w = self.width;
        let n = attrs.len();
        // thinc pads the text with as many zero rows on each side as the encoder sees.
        let pad = self.blocks.len();
        let len = n + 2 * pad;
        let mut x = vec![0f32; len * w];
        let mut concat = vec![0f32; 4 * w];
        for (t, ids) in attrs.iter().enumerate() {
            concat.fill(0.0);
            for (c, (embed, &id)) in self.embeds.iter().zip(ids).enumerate() {
                let out = &mut concat[c * w..(c + 1) * w];
                for key in bucket_keys(id, embed.seed) {
                    let row = (key as usize % embed.rows) * w;
                    for (o, v) in out.iter_mut().zip(&embed.table[row..row + w]) {
                        *o += v;
                    }
                }
            }
            let row = (pad + t) * w;
            self.reduce.forward(&concat, &mut x[row..row + w]);
        }
        // Residual window blocks, updated in place. Block k (from 1) needs only rows
        // k..len-k: the others never reach a token's vector.
        let mut window = vec![0f32; 3 * w];
        let mut delta = vec![0f32; w];
        for (k, block) in self.blocks.iter().enumerate() {
            let (lo, hi) = (k + 1, len - k - 1);
            window[..w].copy_from_slice(&x[(lo - 1) * w..lo * w]);
            for r in lo..hi {
                window[w..].copy_from_slice(&x[r * w..(r + 2) * w]);
                block.forward(&window, &mut delta);
                window.copy_within(w..2 * w, 0);
                for (v, d) in x[r * w..(r + 1) * w].iter_mut().zip(&delta) {
                    *v += d;
                }
            }
        }
        let mut out = vec![0f32; n * self.out_width];
        for t in 0..n {
            let row = &x[(pad + t) * w..(pad + t + 1) * w];
            for (o, y) in out[t * self.out_width..(t + 1) * self.out_width].iter_mut().enumerate() {
                *y = dot(&self.proj_w[o * w..(o + 1) * w], row) + self.proj_b[o];
            }
        }
        out
    }
}
