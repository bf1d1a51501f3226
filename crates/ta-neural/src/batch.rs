//! Packed batches: documents sorted by length (longest first) and laid out step by step, so that step t holds
//! token t of the first `active[t]` documents (like PyTorch's packed sequences). No padding is ever stored, and
//! every layer sees each document's real tokens only.

use std::sync::Arc;

use candle_core::{Device, Tensor};

use super::error::Result;

/// One batch ready for the network. Row `r` holds document `order[r]` of the slice it was built from.
pub struct Batch {
    /// Token ids of every packed position (step by step, rows in order within a step).
    pub ids: Vec<u32>,
    /// Real length of each row, non-increasing (each at least 1).
    pub lengths: Arc<Vec<usize>>,
    /// Position of each row in the input slice.
    pub order: Vec<usize>,
    /// Number of rows still running at each step.
    pub active: Arc<Vec<usize>>,
    /// Row of each packed position.
    pub rows: Arc<Vec<u32>>,
    /// For each packed position (r, t), the packed position of (r, length_r - 1 - t): reverses each row.
    pub reverse: Tensor,
    /// Packed position of each row's last token.
    pub last: Tensor,
}

impl Batch {
    /// Builds a batch from encoded documents (each non-empty).
    pub fn new(docs: &[&[u32]], device: &Device) -> Result<Self> {
        let mut order: Vec<usize> = (0..docs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(docs[i].len()));
        let lengths: Vec<usize> = order.iter().map(|&i| docs[i].len()).collect();
        let steps = lengths.first().copied().unwrap_or(0);
        let active: Vec<usize> = (0..steps).map(|t| lengths.partition_point(|&l| l > t)).collect();
        let offsets: Vec<usize> = active.iter().scan(0, |sum, &a| Some(std::mem::replace(sum, *sum + a))).collect();
        let position = |r: usize, t: usize| (offsets[t] + r) as u32;
        let mut ids = Vec::with_capacity(lengths.iter().sum());
        let mut rows = Vec::with_capacity(ids.capacity());
        let mut reverse = Vec::with_capacity(ids.capacity());
        for (t, &a) in active.iter().enumerate() {
            for r in 0..a {
                ids.push(docs[order[r]][t]);
                rows.push(r as u32);
                reverse.push(position(r, lengths[r] - 1 - t));
            }
        }
        let last: Vec<u32> = lengths.iter().enumerate().map(|(r, &l)| position(r, l - 1)).collect();
        Ok(Self {
            reverse: Tensor::from_vec(reverse, ids.len(), device)?,
            last: Tensor::from_vec(last, lengths.len(), device)?,
            ids,
            lengths: Arc::new(lengths),
            order,
            active: Arc::new(active),
            rows: Arc::new(rows),
        })
    }

    /// Number of documents.
    pub fn rows(&self) -> usize {
        self.lengths.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_packs_and_reverses_within_length() {
        let docs: [&[u32]; 3] = [&[5], &[2, 3, 4], &[7, 8]];
        let b = Batch::new(&docs, &Device::Cpu).unwrap();
        assert_eq!(b.order, [1, 2, 0]);
        assert_eq!(*b.lengths, [3, 2, 1]);
        assert_eq!(*b.active, [3, 2, 1]);
        assert_eq!(b.ids, [2, 7, 5, 3, 8, 4]);
        assert_eq!(*b.rows, [0, 1, 2, 0, 1, 0]);
        let reversed: Vec<u32> = b.reverse.to_vec1::<u32>().unwrap().iter().map(|&p| b.ids[p as usize]).collect();
        assert_eq!(reversed, [4, 8, 5, 3, 7, 2]);
        assert_eq!(b.last.to_vec1::<u32>().unwrap(), [5, 4, 2]);
    }
}
