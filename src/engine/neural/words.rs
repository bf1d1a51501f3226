//! The word vectors of a model: a frozen matrix, or a trainable one updated sparsely. Plain SGD leaves rows with
//! zero gradient unchanged, so updating only the rows a batch uses is exactly dense SGD, without building a
//! vocabulary-sized gradient for every batch.

use candle_core::{DType, Device, Tensor, Var};

use super::batch::Batch;
use super::error::Result;

/// The embedding matrix (`[vocabulary, width]`, f32).
pub enum WordTable {
    /// Never changes.
    Frozen(Tensor),
    /// Row-major values updated by `update`.
    Trainable { values: Vec<f32>, width: usize },
}

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
            Self::Trainable { values, width } => Tensor::from_slice(values, (values.len() / width, *width), device)?,
        })
    }

    /// Word vectors of the batch's packed positions (`[positions, width]`) and, for a trainable table, the
    /// variable holding the rows used, whose gradient `update` applies.
    pub fn lookup(&self, batch: &Batch, device: &Device) -> Result<(Tensor, Option<BatchRows>)> {
        match self {
            Self::Frozen(t) => Ok((t.index_select(&Tensor::from_slice(&batch.ids, batch.ids.len(), device)?, 0)?, None)),
            Self::Trainable { values, width } => {
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

    /// One SGD step on the rows a batch used.
    pub fn update(&mut self, rows: &BatchRows, grads: &candle_core::backprop::GradStore, learning_rate: f64) -> Result<()> {
        let (Self::Trainable { values, width }, Some(grad)) = (self, grads.get(rows.var.as_tensor())) else {
            return Ok(());
        };
        let grad: Vec<f32> = grad.to_dtype(DType::F32)?.flatten_all()?.to_vec1()?;
        let lr = learning_rate as f32;
        for (&id, g) in rows.ids.iter().zip(grad.chunks(*width)) {
            for (v, &d) in values[id as usize * *width..][..*width].iter_mut().zip(g) {
                *v -= lr * d;
            }
        }
        Ok(())
    }
}
