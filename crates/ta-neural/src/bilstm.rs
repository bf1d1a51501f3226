//! Bidirectional LSTM layer over packed batches: the forward direction reads each document left to right, the
//! backward one reads it reversed within its own length, so padding never reaches any state and a document's
//! result does not depend on its batch. Parameters and gate order follow PyTorch's `nn.LSTM` (and candle-nn's
//! `LSTM`): `weight_ih_l{k}`, `weight_hh_l{k}`, `bias_ih_l{k}`, `bias_hh_l{k}`, with `_reverse` for the backward one.

use candle_core::Tensor;
use candle_nn::VarBuilder;

use super::batch::Batch;
use super::error::Result;
use super::recurrence::lstm_recurrence;

/// Outputs of one bidirectional layer.
pub struct BiOutput {
    /// Per-position `[forward, backward]` hidden states, `[positions, 2 * hidden]`, packed like the batch.
    pub sequence: Tensor,
    /// Final state of the forward direction (after the last token), `[rows, hidden]`.
    pub last_forward: Tensor,
    /// Final state of the backward direction (after the first token), `[rows, hidden]`.
    pub last_backward: Tensor,
}

/// Weights of one direction.
struct Direction {
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor,
    b_hh: Tensor,
}

/// The two directions of one layer.
pub struct BiLstm {
    forward: Direction,
    backward: Direction,
}

impl BiLstm {
    /// Shapes of the parameters of layer `layer`: `(name, shape)`.
    pub fn parameter_shapes(layer: usize, input: usize, hidden: usize) -> Vec<(String, Vec<usize>)> {
        let mut shapes = Vec::new();
        for suffix in ["", "_reverse"] {
            shapes.push((format!("weight_ih_l{layer}{suffix}"), vec![4 * hidden, input]));
            shapes.push((format!("weight_hh_l{layer}{suffix}"), vec![4 * hidden, hidden]));
            shapes.push((format!("bias_ih_l{layer}{suffix}"), vec![4 * hidden]));
            shapes.push((format!("bias_hh_l{layer}{suffix}"), vec![4 * hidden]));
        }
        shapes
    }

    /// Takes the parameters of layer `layer` from `vb` (shapes checked).
    pub fn new(layer: usize, input: usize, hidden: usize, vb: &VarBuilder) -> Result<Self> {
        let direction = |suffix: &str| -> Result<Direction> {
            Ok(Direction {
                w_ih: vb.get((4 * hidden, input), &format!("weight_ih_l{layer}{suffix}"))?,
                w_hh: vb.get((4 * hidden, hidden), &format!("weight_hh_l{layer}{suffix}"))?,
                b_ih: vb.get(4 * hidden, &format!("bias_ih_l{layer}{suffix}"))?,
                b_hh: vb.get(4 * hidden, &format!("bias_hh_l{layer}{suffix}"))?,
            })
        };
        Ok(Self {
            forward: direction("")?,
            backward: direction("_reverse")?,
        })
    }

    /// Runs both directions over `x` (`[positions, input]`, packed like `batch`).
    pub fn forward(&self, x: &Tensor, batch: &Batch) -> Result<BiOutput> {
        let project = |d: &Direction, x: &Tensor| -> Result<Tensor> { Ok(x.matmul(&d.w_ih.t()?)?.broadcast_add(&(&d.b_ih + &d.b_hh)?)?) };
        let gates = Tensor::stack(
            &[
                project(&self.forward, x)?,
                project(&self.backward, &x.index_select(&batch.reverse, 0)?)?,
            ],
            0,
        )?;
        let w_hh = Tensor::stack(&[&self.forward.w_hh, &self.backward.w_hh], 0)?;
        let states = lstm_recurrence(&gates, &w_hh, &batch.active)?;
        let (forward, reversed) = (states.get(0)?, states.get(1)?);
        Ok(BiOutput {
            last_forward: forward.index_select(&batch.last, 0)?,
            last_backward: reversed.index_select(&batch.last, 0)?,
            sequence: Tensor::cat(&[forward, reversed.index_select(&batch.reverse, 0)?], 1)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use candle_core::{DType, Device, Var};
    use candle_nn::rnn::{lstm, Direction as RnnDirection, LSTMConfig, RNN};

    use super::super::seeded::Seeded;
    use super::*;

    fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    /// Hand-written LSTM with input and hidden width 1: gates i, f, g, o with weights `w`, `u`, bias `b` each.
    fn scalar_lstm(xs: &[f64], w: [f64; 4], u: [f64; 4], b: [f64; 4]) -> Vec<f64> {
        let (mut h, mut c) = (0.0, 0.0);
        let mut out = Vec::new();
        for &x in xs {
            let z: Vec<f64> = (0..4).map(|k| w[k] * x + u[k] * h + b[k]).collect();
            c = sigmoid(z[1]) * c + sigmoid(z[0]) * z[2].tanh();
            h = sigmoid(z[3]) * c.tanh();
            out.push(h);
        }
        out
    }

    /// Packs per-document feature rows (`docs[d][t]`) the way `batch` lays them out.
    fn packed(batch: &Batch, docs: &[Vec<Vec<f64>>]) -> Tensor {
        let mut values: Vec<f64> = Vec::new();
        for (t, &a) in batch.active.iter().enumerate() {
            for r in 0..a {
                values.extend(&docs[batch.order[r]][t]);
            }
        }
        let width = docs[0][0].len();
        Tensor::from_vec(values, (batch.ids.len(), width), &Device::Cpu).unwrap()
    }

    #[test]
    fn matches_hand_computed_lstm_in_both_directions() {
        let dev = Device::Cpu;
        let (w, u, b) = ([0.5, -0.3, 0.8, 0.2], [0.1, 0.4, -0.6, 0.3], [0.05, 0.1, -0.02, 0.0]);
        let mut tensors = HashMap::new();
        for suffix in ["", "_reverse"] {
            tensors.insert(
                format!("weight_ih_l0{suffix}"),
                Tensor::new(&w, &dev).unwrap().reshape((4, 1)).unwrap(),
            );
            tensors.insert(
                format!("weight_hh_l0{suffix}"),
                Tensor::new(&u, &dev).unwrap().reshape((4, 1)).unwrap(),
            );
            tensors.insert(format!("bias_ih_l0{suffix}"), Tensor::new(&b, &dev).unwrap());
            tensors.insert(format!("bias_hh_l0{suffix}"), Tensor::zeros(4, DType::F64, &dev).unwrap());
        }
        let layer = BiLstm::new(0, 1, 1, &VarBuilder::from_tensors(tensors, DType::F64, &dev)).unwrap();
        let xs = [vec![1.0, 2.0], vec![3.0, 4.0, 5.0]];
        let docs: Vec<Vec<Vec<f64>>> = xs.iter().map(|d| d.iter().map(|&v| vec![v]).collect()).collect();
        let batch = Batch::new(&[&[2, 2], &[2, 2, 2]], &dev).unwrap();
        let out = layer.forward(&packed(&batch, &docs), &batch).unwrap();
        let seq = out.sequence.to_vec2::<f64>().unwrap();
        for (row, &doc) in batch.order.iter().enumerate() {
            let fwd = scalar_lstm(&xs[doc], w, u, b);
            let rev: Vec<f64> = xs[doc].iter().rev().copied().collect();
            let mut bwd = scalar_lstm(&rev, w, u, b);
            bwd.reverse();
            let mut position = row;
            for t in 0..xs[doc].len() {
                assert!(
                    (seq[position][0] - fwd[t]).abs() < 1e-12 && (seq[position][1] - bwd[t]).abs() < 1e-12,
                    "doc {doc} t {t}"
                );
                position += batch.active[t];
            }
            let last_f = out.last_forward.to_vec2::<f64>().unwrap()[row][0];
            let last_b = out.last_backward.to_vec2::<f64>().unwrap()[row][0];
            assert!((last_f - fwd[xs[doc].len() - 1]).abs() < 1e-12 && (last_b - bwd[0]).abs() < 1e-12);
        }
    }

    #[test]
    fn matches_candle_nn_lstm_values_and_gradients() {
        let dev = Device::Cpu;
        let (input, hidden) = (3, 4);
        let mut rng = Seeded::new(3);
        let mut tensors = HashMap::new();
        for (name, shape) in BiLstm::parameter_shapes(0, input, hidden) {
            tensors.insert(name, rng.uniform(shape, 0.5, DType::F64, &dev).unwrap());
        }
        let vars: HashMap<String, Var> = tensors.iter().map(|(k, t)| (k.clone(), Var::from_tensor(t).unwrap())).collect();
        let tracked: HashMap<String, Tensor> = vars.iter().map(|(k, v)| (k.clone(), v.as_tensor().clone())).collect();
        let vb = VarBuilder::from_tensors(tracked, DType::F64, &dev);
        let ours = BiLstm::new(0, input, hidden, &vb).unwrap();
        let reference = lstm(
            input,
            hidden,
            LSTMConfig {
                direction: RnnDirection::Forward,
                ..Default::default()
            },
            vb.clone(),
        )
        .unwrap();
        let xs: Vec<f64> = rng.uniform(4 * input, 1.0, DType::F64, &dev).unwrap().to_vec1().unwrap();
        let doc: Vec<Vec<f64>> = xs.chunks(input).map(<[f64]>::to_vec).collect();
        let batch = Batch::new(&[&[2; 4]], &dev).unwrap();
        let x = packed(&batch, &[doc]);
        let states = reference.seq(&x.unsqueeze(0).unwrap()).unwrap();
        let expected = reference.states_to_tensor(&states).unwrap().squeeze(0).unwrap();
        let out = ours.forward(&x, &batch).unwrap();
        let got = out.sequence.narrow(1, 0, hidden).unwrap();
        let diff = (&got - &expected)
            .unwrap()
            .abs()
            .unwrap()
            .max_all()
            .unwrap()
            .to_scalar::<f64>()
            .unwrap();
        assert!(diff < 1e-12, "values differ by {diff}");
        // Same loss through both implementations gives the same weight gradients.
        let probe = Tensor::new(&[0.3, -0.2, 0.7, 0.1], &dev).unwrap();
        let loss = |t: &Tensor| t.broadcast_mul(&probe).unwrap().sqr().unwrap().sum_all().unwrap();
        let ours_grad = loss(&got).backward().unwrap();
        let ref_grad = loss(&expected).backward().unwrap();
        for name in ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"] {
            let a = ours_grad.get(&vars[name]).unwrap();
            let b = ref_grad.get(&vars[name]).unwrap();
            let diff = (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f64>().unwrap();
            assert!(diff < 1e-12, "{name} gradients differ by {diff}");
        }
    }
}
