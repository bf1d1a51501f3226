//! Pooling of packed sequences into one row per document: mean (fastText) and max over time (RCNN), as one
//! operation each with its own backward pass, so padding is never materialised.

use std::sync::Arc;

use candle_core::backend::BackendStorage;
use candle_core::{CpuStorage, CustomOp1, DType, Device, Layout, Result, Shape, Tensor};

use super::real::{contiguous, output, Real};

/// How positions of one document are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pool {
    Mean,
    Max,
}

/// Pools `x` (`[positions, features]`) into `[documents, features]`; `rows[p]` is the document of position `p` and
/// `lengths[d]` the number of positions of document `d` (each at least 1).
pub fn pool(x: &Tensor, kind: Pool, rows: &Arc<Vec<u32>>, lengths: &Arc<Vec<usize>>) -> Result<Tensor> {
    let op = Pooling {
        kind,
        rows: rows.clone(),
        lengths: lengths.clone(),
    };
    x.to_device(&Device::Cpu)?.contiguous()?.apply_op1(op)?.to_device(x.device())
}

struct Pooling {
    kind: Pool,
    rows: Arc<Vec<u32>>,
    lengths: Arc<Vec<usize>>,
}

impl Pooling {
    fn forward<T: Real>(&self, x: &[T], features: usize) -> Vec<T> {
        let docs = self.lengths.len();
        match self.kind {
            Pool::Mean => {
                let mut out = vec![T::ZERO; docs * features];
                for (p, &d) in self.rows.iter().enumerate() {
                    let scale = T::from_f64(self.lengths[d as usize] as f64).recip();
                    for (o, &v) in out[d as usize * features..][..features]
                        .iter_mut()
                        .zip(&x[p * features..][..features])
                    {
                        *o += v * scale;
                    }
                }
                out
            }
            Pool::Max => self.argmax(x, features).into_iter().map(|p| x[p]).collect(),
        }
    }

    /// For every (document, feature), the flat index into `x` of its maximum (the first one on ties).
    fn argmax<T: Real>(&self, x: &[T], features: usize) -> Vec<usize> {
        let mut best: Vec<Option<usize>> = vec![None; self.lengths.len() * features];
        for (p, &d) in self.rows.iter().enumerate() {
            for f in 0..features {
                let slot = &mut best[d as usize * features + f];
                let at = p * features + f;
                if slot.is_none_or(|b| x[at] > x[b]) {
                    *slot = Some(at);
                }
            }
        }
        best.into_iter().map(|b| b.unwrap_or(0)).collect()
    }

    fn backward<T: Real>(&self, x: &[T], grad: &[T], features: usize) -> Vec<T> {
        let mut out = vec![T::ZERO; x.len()];
        match self.kind {
            Pool::Mean => {
                for (p, &d) in self.rows.iter().enumerate() {
                    let scale = T::from_f64(self.lengths[d as usize] as f64).recip();
                    for (o, &g) in out[p * features..][..features]
                        .iter_mut()
                        .zip(&grad[d as usize * features..][..features])
                    {
                        *o = g * scale;
                    }
                }
            }
            Pool::Max => {
                for (slot, p) in self.argmax(x, features).into_iter().enumerate() {
                    out[p] += grad[slot];
                }
            }
        }
        out
    }

    fn check(&self, positions: usize) -> Result<()> {
        if self.rows.len() != positions || self.rows.iter().any(|&d| d as usize >= self.lengths.len()) {
            candle_core::bail!("pooling: rows do not match the input");
        }
        Ok(())
    }
}

impl CustomOp1 for Pooling {
    fn name(&self) -> &'static str {
        "sequence-pooling"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let (positions, features) = layout.shape().dims2()?;
        self.check(positions)?;
        let shape = (self.lengths.len(), features);
        match storage.dtype() {
            DType::F32 => Ok(output(self.forward::<f32>(contiguous(storage, layout)?, features), shape)),
            DType::F64 => Ok(output(self.forward::<f64>(contiguous(storage, layout)?, features), shape)),
            other => candle_core::bail!("pooling: unsupported dtype {other:?}"),
        }
    }

    fn bwd(&self, arg: &Tensor, _res: &Tensor, grad_res: &Tensor) -> Result<Option<Tensor>> {
        let (_, features) = arg.dims2()?;
        let flat = |t: &Tensor| t.flatten_all()?.to_device(&Device::Cpu);
        let (x, g) = (flat(arg)?, flat(&grad_res.to_dtype(arg.dtype())?)?);
        let grad = match arg.dtype() {
            DType::F32 => Tensor::from_vec(
                self.backward::<f32>(&x.to_vec1()?, &g.to_vec1()?, features),
                arg.shape(),
                arg.device(),
            )?,
            DType::F64 => Tensor::from_vec(
                self.backward::<f64>(&x.to_vec1()?, &g.to_vec1()?, features),
                arg.shape(),
                arg.device(),
            )?,
            other => candle_core::bail!("pooling: unsupported dtype {other:?}"),
        };
        Ok(Some(grad))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_max_per_document() {
        let x = Tensor::new(&[[1.0f64, -2.0], [3.0, 5.0], [-1.0, 0.5], [7.0, -3.0]], &Device::Cpu).unwrap();
        let rows = Arc::new(vec![0, 1, 0, 0]);
        let lengths = Arc::new(vec![3, 1]);
        let mean = pool(&x, Pool::Mean, &rows, &lengths).unwrap().to_vec2::<f64>().unwrap();
        let expected = [[7.0 / 3.0, -4.5 / 3.0], [3.0, 5.0]];
        assert!(
            mean.iter()
                .flatten()
                .zip(expected.iter().flatten())
                .all(|(a, b)| (a - b).abs() < 1e-12),
            "{mean:?}"
        );
        let max = pool(&x, Pool::Max, &rows, &lengths).unwrap().to_vec2::<f64>().unwrap();
        assert_eq!(max, [[7.0, 0.5], [3.0, 5.0]]);
    }
}
