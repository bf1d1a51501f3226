//! The word vectors of a model: a frozen matrix, or a trainable one updated sparsely. Plain SGD leaves rows with
//! zero gradient unchanged, so updating only the rows a batch uses is exactly dense SGD, without building a
//! vocabulary-sized gradient for every batch. With Adam the rows a batch uses get Adam's update from moments kept
//! per value ("lazy" Adam: a row's moments advance only when the row is used).

use candle_core::{DType, Device, Tensor, Var};

use super::batch::Batch;
use super::error::Result;
use super::settings::Optimizer;

/// The embedding matrix (`[vocabulary, width]`, f32).
pub enum WordTable {
    /// Never changes.
    Frozen(Tensor),
    /// Row-major values updated by `update`.
    Trainable {
        values: Vec<f32>,
        width: usize,
        adam: Option<Moments>,
    },
}

/// Adam's first and second moments of every value, and the number of updates so far.
#[derive(Default)]
pub struct Moments {
    first: Vec<f32>,
    second: Vec<f32>,
    steps: i32,
}

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;

/// The rows of a trainable table one batch uses, as a leaf variable.
pub struct BatchRows {
    ids: Vec<u32>,
    var: Var,
}

impl WordTable {
    pub fn width(&self) -> usize {
        match self {
            Self::Frozen(t) => t.dims().get(1).copied().unwrap_or(0),
            Self::Trainable { width, .. } => *width,
        }
    }

    /// The whole matrix as a tensor without gradient tracking.
    pub fn tensor(&self, device: &Device) -> Result<Tensor> {
        Ok(match self {
            Self::Frozen(t) => t.clone(),
            Self::Trainable { values, width, .. } => Tensor::from_slice(values, (values.len() / width, *width), device)?,
        })
    }

    /// The trainable values (none for a frozen table).
    pub fn values(&self) -> Option<Vec<f32>> {
        match self {
            Self::Frozen(_) => None,
            Self::Trainable { values, .. } => Some(values.clone()),
        }
    }

    /// Replaces the trainable values (a frozen table stays as it is).
    pub fn set_values(&mut self, new: Vec<f32>) {
        if let Self::Trainable { values, .. } = self {
            *values = new;
        }
    }

    /// Word vectors of the batch's packed positions (`[positions, width]`) and, for a trainable table, the
    /// variable holding the rows used, whose gradient `update` applies.
    pub fn lookup(&self, batch: &Batch, device: &Device) -> Result<(Tensor, Option<BatchRows>)> {
        match self {
            Self::Frozen(t) => Ok((t.index_select(&Tensor::from_slice(&batch.ids, batch.ids.len(), device)?, 0)?, None)),
            Self::Trainable { values, width, .. } => {
                let mut ids = batch.ids.clone();
                ids.sort_unstable();
                ids.dedup();
                let rows: Vec<f32> = ids
                    .iter()
                    .flat_map(|&id| &values[id as usize * width..(id as usize + 1) * width])
                    .copied()
                    .collect();
                let var = Var::from_vec(rows, (ids.len(), *width), device)?;
                let local: Vec<u32> = batch.ids.iter().map(|id| ids.binary_search(id).unwrap_or(0) as u32).collect();
                let words = var
                    .as_tensor()
                    .index_select(&Tensor::from_vec(local, batch.ids.len(), device)?, 0)?;
                Ok((words, Some(BatchRows { ids, var })))
            }
        }
    }

    /// One step of `optimizer` on the rows a batch used.
    pub fn update(
        &mut self,
        rows: &BatchRows,
        grads: &candle_core::backprop::GradStore,
        learning_rate: f64,
        optimizer: Optimizer,
    ) -> Result<()> {
        let (Self::Trainable { values, width, adam }, Some(grad)) = (self, grads.get(rows.var.as_tensor())) else {
            return Ok(());
        };
        let grad: Vec<f32> = grad.to_dtype(DType::F32)?.flatten_all()?.to_vec1()?;
        let lr = learning_rate as f32;
        let width = *width;
        let moments = match optimizer {
            Optimizer::Sgd => None,
            Optimizer::Adam => {
                let m = adam.get_or_insert_with(|| Moments {
                    first: vec![0.0; values.len()],
                    second: vec![0.0; values.len()],
                    steps: 0,
                });
                m.steps += 1;
                Some(m)
            }
        };
        match moments {
            None => {
                for (&id, g) in rows.ids.iter().zip(grad.chunks(width)) {
                    for (v, &d) in values[id as usize * width..][..width].iter_mut().zip(g) {
                        *v -= lr * d;
                    }
                }
            }
            Some(m) => {
                let (c1, c2) = (1.0 - BETA1.powi(m.steps), 1.0 - BETA2.powi(m.steps));
                for (&id, g) in rows.ids.iter().zip(grad.chunks(width)) {
                    let at = id as usize * width;
                    for (k, &d) in g.iter().enumerate() {
                        let (first, second) = (&mut m.first[at + k], &mut m.second[at + k]);
                        *first = BETA1 * *first + (1.0 - BETA1) * d;
                        *second = BETA2 * *second + (1.0 - BETA2) * d * d;
                        values[at + k] -= lr * (*first / c1) / ((*second / c2).sqrt() + EPSILON);
                    }
                }
            }
        }
        Ok(())
    }
}
