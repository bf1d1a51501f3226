//! The LSTM recurrence as one fused operation with a hand-written backward pass (backpropagation through time).
//!
//! Input projections `x · W_ihᵀ + b` are ordinary tensor ops; this operation runs what must be sequential,
//! `z_t = g_t + h_{t-1} · W_hhᵀ`, gates i, f, g, o (PyTorch / candle-nn order), `c_t = f ⊙ c_{t-1} + i ⊙ g`,
//! `h_t = o ⊙ tanh(c_t)`, over packed sequences: step t holds the first `active[t]` rows of the batch (rows sorted
//! longest first), so each row stops at its own length. Unrolling candle-nn's `LSTM::step` instead builds ~20 graph
//! nodes per token (tens of seconds per RCNN batch on two cores, measured); the tests check this operation against
//! `candle_nn::rnn::LSTM` and finite differences. Independent directions run in parallel.

use std::any::Any;
use std::sync::{Arc, Mutex};

use candle_core::backend::BackendStorage;
use candle_core::{CpuStorage, CustomOp2, DType, Device, Layout, Result, Shape, Tensor};
use rayon::prelude::*;

use super::real::{contiguous, output, Real};

/// Runs `directions` independent LSTM recurrences: `gates` is `[directions, positions, 4 * hidden]` (projected
/// inputs, packed by step), `w_hh` is `[directions, 4 * hidden, hidden]`; the result holds the hidden state of
/// every packed position, `[directions, positions, hidden]`. The operation has a CPU kernel only; tensors on
/// another device make a round trip through the CPU.
pub fn lstm_recurrence(gates: &Tensor, w_hh: &Tensor, active: &Arc<Vec<usize>>) -> Result<Tensor> {
    let cpu = Device::Cpu;
    let op = Recurrence {
        active: active.clone(),
        saved: Mutex::new(None),
    };
    let out = gates
        .to_device(&cpu)?
        .contiguous()?
        .apply_op2(&w_hh.to_device(&cpu)?.contiguous()?, op)?;
    out.to_device(gates.device())
}

struct Recurrence {
    active: Arc<Vec<usize>>,
    /// The forward pass's gate activations and cell states (`Vec<Trace<T>>`), kept for the backward pass.
    saved: Mutex<Option<Box<dyn Any + Send>>>,
}

/// Shapes of one call.
struct Dims {
    directions: usize,
    positions: usize,
    hidden: usize,
}

/// Gate activations (`[positions, 4 * hidden]`: i, f, g, o) and cell states (`[positions, hidden]`) of one direction.
struct Trace<T> {
    acts: Vec<T>,
    cells: Vec<T>,
}

impl Recurrence {
    fn dims(&self, gates: &Layout, w_hh: &Layout) -> Result<Dims> {
        let (directions, positions, four_h) = gates.shape().dims3()?;
        let hidden = four_h / 4;
        if w_hh.shape().dims3()? != (directions, four_h, hidden) || four_h % 4 != 0 || self.active.iter().sum::<usize>() != positions {
            candle_core::bail!("lstm recurrence: inconsistent shapes {:?} {:?}", gates.shape(), w_hh.shape());
        }
        Ok(Dims {
            directions,
            positions,
            hidden,
        })
    }

    fn forward<T: Real>(&self, gates: &[T], w_hh: &[T], d: &Dims) -> Vec<T> {
        let (n, h) = (d.positions, d.hidden);
        let runs: Vec<(Vec<T>, Trace<T>)> = (0..d.directions)
            .into_par_iter()
            .map(|k| {
                forward_one(
                    &self.active,
                    &gates[k * n * 4 * h..][..n * 4 * h],
                    &w_hh[k * 4 * h * h..][..4 * h * h],
                    h,
                )
            })
            .collect();
        let mut hidden = Vec::with_capacity(d.directions * n * h);
        let mut traces = Vec::with_capacity(d.directions);
        for (hs, trace) in runs {
            hidden.extend(hs);
            traces.push(trace);
        }
        if let Ok(mut saved) = self.saved.lock() {
            *saved = Some(Box::new(traces));
        }
        hidden
    }

    /// Gradients of the gates and of `w_hh` given the gradient of every hidden state.
    fn backward<T: Real>(&self, gates: &[T], w_hh: &[T], hs: &[T], grad_h: &[T], d: &Dims) -> (Vec<T>, Vec<T>) {
        let (n, h) = (d.positions, d.hidden);
        let saved = self
            .saved
            .lock()
            .ok()
            .and_then(|mut s| s.take())
            .and_then(|b| b.downcast::<Vec<Trace<T>>>().ok());
        let traces: Vec<Trace<T>> = match saved {
            Some(traces) if traces.len() == d.directions => *traces,
            _ => (0..d.directions)
                .map(|k| {
                    forward_one(
                        &self.active,
                        &gates[k * n * 4 * h..][..n * 4 * h],
                        &w_hh[k * 4 * h * h..][..4 * h * h],
                        h,
                    )
                    .1
                })
                .collect(),
        };
        let parts: Vec<(Vec<T>, Vec<T>)> = traces
            .par_iter()
            .enumerate()
            .map(|(k, trace)| {
                backward_one(
                    &self.active,
                    trace,
                    &w_hh[k * 4 * h * h..][..4 * h * h],
                    &hs[k * n * h..][..n * h],
                    &grad_h[k * n * h..][..n * h],
                    h,
                )
            })
            .collect();
        let mut grad_gates = Vec::with_capacity(d.directions * n * 4 * h);
        let mut grad_w = Vec::with_capacity(d.directions * 4 * h * h);
        for (gg, gw) in parts {
            grad_gates.extend(gg);
            grad_w.extend(gw);
        }
        (grad_gates, grad_w)
    }
}

/// Forward pass of one direction: the hidden state of every position and the trace for the backward pass.
fn forward_one<T: Real>(active: &[usize], g: &[T], w: &[T], h: usize) -> (Vec<T>, Trace<T>) {
    let n = g.len() / (4 * h).max(1);
    let w_t = transpose(w, 4 * h, h);
    let mut hs = vec![T::ZERO; n * h];
    let mut acts = vec![T::ZERO; n * 4 * h];
    let mut cells = vec![T::ZERO; n * h];
    run_steps(active, |offset, prev, rows| {
        for r in 0..rows {
            let p = offset + r;
            let z = &mut acts[p * 4 * h..(p + 1) * 4 * h];
            z.copy_from_slice(&g[p * 4 * h..(p + 1) * 4 * h]);
            if let Some(q) = prev {
                axpy_rows(z, &hs[(q + r) * h..(q + r + 1) * h], &w_t);
            }
            for j in 0..h {
                let (i, f, gg, o) = (z[j].sigmoid(), z[h + j].sigmoid(), z[2 * h + j].tanh(), z[3 * h + j].sigmoid());
                (z[j], z[h + j], z[2 * h + j], z[3 * h + j]) = (i, f, gg, o);
                let c_prev = prev.map_or(T::ZERO, |q| cells[(q + r) * h + j]);
                let c = f * c_prev + i * gg;
                cells[p * h + j] = c;
                hs[p * h + j] = o * c.tanh();
            }
        }
    });
    (hs, Trace { acts, cells })
}

/// Backpropagation through time for one direction.
fn backward_one<T: Real>(active: &[usize], trace: &Trace<T>, w: &[T], hs: &[T], grad_h: &[T], h: usize) -> (Vec<T>, Vec<T>) {
    let (acts, cs) = (&trace.acts, &trace.cells);
    let n = cs.len() / h.max(1);
    let offsets = step_offsets(active);
    let mut grad_gates = vec![T::ZERO; n * 4 * h];
    let mut grad_w = vec![T::ZERO; 4 * h * h];
    // Carried from step t+1 to step t: gradients of h_t and c_t through the recurrence.
    let mut dh_carry = vec![T::ZERO; active.first().copied().unwrap_or(0) * h];
    let mut dc_carry = dh_carry.clone();
    for t in (0..active.len()).rev() {
        let (offset, rows) = (offsets[t], active[t]);
        let prev = t.checked_sub(1).map(|s| offsets[s]);
        let carried = active.get(t + 1).copied().unwrap_or(0);
        for r in 0..rows {
            let p = offset + r;
            let a = &acts[p * 4 * h..(p + 1) * 4 * h];
            let dz = &mut grad_gates[p * 4 * h..(p + 1) * 4 * h];
            for j in 0..h {
                let (i, f, gg, o) = (a[j], a[h + j], a[2 * h + j], a[3 * h + j]);
                let (dh_in, dc_in) = if r < carried {
                    (dh_carry[r * h + j], dc_carry[r * h + j])
                } else {
                    (T::ZERO, T::ZERO)
                };
                let dh = grad_h[p * h + j] + dh_in;
                let tc = cs[p * h + j].tanh();
                let dc = dc_in + dh * o * (T::ONE - tc * tc);
                let c_prev = prev.map_or(T::ZERO, |q| cs[(q + r) * h + j]);
                dz[j] = dc * gg * i * (T::ONE - i);
                dz[h + j] = dc * c_prev * f * (T::ONE - f);
                dz[2 * h + j] = dc * i * (T::ONE - gg * gg);
                dz[3 * h + j] = dh * tc * o * (T::ONE - o);
                dc_carry[r * h + j] = dc * f;
            }
            let dh_prev = &mut dh_carry[r * h..(r + 1) * h];
            dh_prev.fill(T::ZERO);
            if let Some(q) = prev {
                let h_prev = &hs[(q + r) * h..(q + r + 1) * h];
                for (j, &dzj) in dz.iter().enumerate() {
                    let w_row = &w[j * h..(j + 1) * h];
                    let gw_row = &mut grad_w[j * h..(j + 1) * h];
                    for k in 0..h {
                        dh_prev[k] += dzj * w_row[k];
                        gw_row[k] += dzj * h_prev[k];
                    }
                }
            }
        }
    }
    (grad_gates, grad_w)
}

/// Calls `step(offset, previous_offset, rows)` for every step in order.
fn run_steps(active: &[usize], mut step: impl FnMut(usize, Option<usize>, usize)) {
    let mut offset = 0;
    let mut prev = None;
    for &rows in active {
        step(offset, prev, rows);
        prev = Some(offset);
        offset += rows;
    }
}

fn step_offsets(active: &[usize]) -> Vec<usize> {
    active
        .iter()
        .scan(0, |offset, &rows| Some(std::mem::replace(offset, *offset + rows)))
        .collect()
}

/// `[rows, cols]` row-major to `[cols, rows]`.
fn transpose<T: Real>(m: &[T], rows: usize, cols: usize) -> Vec<T> {
    let mut t = vec![T::ZERO; m.len()];
    for r in 0..rows {
        for c in 0..cols {
            t[c * rows + r] = m[r * cols + c];
        }
    }
    t
}

/// `z += x · w_t` for one row `x` (`[k]`) and `w_t` (`[k, z.len()]`).
fn axpy_rows<T: Real>(z: &mut [T], x: &[T], w_t: &[T]) {
    let width = z.len();
    for (k, &xk) in x.iter().enumerate() {
        for (zj, &wj) in z.iter_mut().zip(&w_t[k * width..(k + 1) * width]) {
            *zj += xk * wj;
        }
    }
}

impl CustomOp2 for Recurrence {
    fn name(&self) -> &'static str {
        "lstm-recurrence"
    }

    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<(CpuStorage, Shape)> {
        let d = self.dims(l1, l2)?;
        let shape = (d.directions, d.positions, d.hidden);
        match s1.dtype() {
            DType::F32 => Ok(output(self.forward::<f32>(contiguous(s1, l1)?, contiguous(s2, l2)?, &d), shape)),
            DType::F64 => Ok(output(self.forward::<f64>(contiguous(s1, l1)?, contiguous(s2, l2)?, &d), shape)),
            other => candle_core::bail!("lstm recurrence: unsupported dtype {other:?}"),
        }
    }

    fn bwd(&self, gates: &Tensor, w_hh: &Tensor, res: &Tensor, grad_res: &Tensor) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let d = self.dims(gates.layout(), w_hh.layout())?;
        let device = gates.device();
        let flat = |t: &Tensor| t.flatten_all()?.to_device(&Device::Cpu);
        let (g, w, hs, gh) = (flat(gates)?, flat(w_hh)?, flat(res)?, flat(&grad_res.to_dtype(gates.dtype())?)?);
        let (grad_gates, grad_w) = match gates.dtype() {
            DType::F32 => {
                let (a, b) = self.backward::<f32>(&g.to_vec1()?, &w.to_vec1()?, &hs.to_vec1()?, &gh.to_vec1()?, &d);
                (
                    Tensor::from_vec(a, gates.shape(), device)?,
                    Tensor::from_vec(b, w_hh.shape(), device)?,
                )
            }
            DType::F64 => {
                let (a, b) = self.backward::<f64>(&g.to_vec1()?, &w.to_vec1()?, &hs.to_vec1()?, &gh.to_vec1()?, &d);
                (
                    Tensor::from_vec(a, gates.shape(), device)?,
                    Tensor::from_vec(b, w_hh.shape(), device)?,
                )
            }
            other => candle_core::bail!("lstm recurrence: unsupported dtype {other:?}"),
        };
        Ok((Some(grad_gates), Some(grad_w)))
    }
}
