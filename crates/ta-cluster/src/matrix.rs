//! Document vectors as compressed sparse rows of `f32` (tf-idf rows hold a few dozen of a
//! thousand dimensions; LSI and embedding rows are stored full), and the few dense
//! operations clustering needs against them.
use rayon::prelude::*;

/// Rows of a `dim`-wide matrix, each a sorted list of (column, value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rows {
    dim: usize,
    starts: Vec<usize>,
    columns: Vec<u32>,
    values: Vec<f32>,
}

impl Rows {
    /// No rows yet, `dim` columns.
    pub fn new(dim: usize) -> Rows {
        Rows {
            dim,
            starts: vec![0],
            columns: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Rows from dense vectors of `dim` values each (zeros are not stored).
    pub fn from_dense(dim: usize, rows: impl IntoIterator<Item = Vec<f32>>) -> Rows {
        let mut out = Rows::new(dim);
        for row in rows {
            out.push(row.into_iter().enumerate().map(|(c, v)| (c as u32, v)));
        }
        out
    }

    /// Appends a row; entries must come in ascending column order; zeros are dropped.
    pub fn push(&mut self, entries: impl IntoIterator<Item = (u32, f32)>) {
        for (c, v) in entries {
            if v != 0.0 {
                self.columns.push(c);
                self.values.push(v);
            }
        }
        self.starts.push(self.columns.len());
    }

    /// Appends the rows of `other` (same width).
    pub fn extend(&mut self, other: &Rows) {
        for r in 0..other.len() {
            let (c, v) = other.row(r);
            self.push(c.iter().copied().zip(v.iter().copied()));
        }
    }

    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Row `r`: its columns and values.
    pub fn row(&self, r: usize) -> (&[u32], &[f32]) {
        let (a, b) = (self.starts[r], self.starts[r + 1]);
        (&self.columns[a..b], &self.values[a..b])
    }

    /// The rows at `picked`, in that order.
    pub fn select(&self, picked: &[usize]) -> Rows {
        let mut out = Rows::new(self.dim);
        for &r in picked {
            let (c, v) = self.row(r);
            out.push(c.iter().copied().zip(v.iter().copied()));
        }
        out
    }

    /// Squared Euclidean norm of row `r`.
    pub fn norm2(&self, r: usize) -> f64 {
        self.row(r).1.iter().map(|&v| f64::from(v) * f64::from(v)).sum()
    }

    /// Row `r` times the dense vector `w` (`dim` values).
    pub fn dot(&self, r: usize, w: &[f64]) -> f64 {
        let (c, v) = self.row(r);
        c.iter().zip(v).map(|(&c, &v)| f64::from(v) * w[c as usize]).sum()
    }

    /// Adds `scale` × row `r` to the dense vector `w`.
    pub fn add_to(&self, r: usize, scale: f64, w: &mut [f64]) {
        let (c, v) = self.row(r);
        for (&c, &v) in c.iter().zip(v) {
            w[c as usize] += scale * f64::from(v);
        }
    }

    /// The rows scaled to unit Euclidean length (zero rows stay zero).
    pub fn normalized(&self) -> Rows {
        let mut out = Rows::new(self.dim);
        for r in 0..self.len() {
            let norm = self.norm2(r).sqrt();
            let (c, v) = self.row(r);
            out.push(
                c.iter()
                    .zip(v)
                    .map(|(&c, &v)| (c, if norm > 0.0 { (f64::from(v) / norm) as f32 } else { 0.0 })),
            );
        }
        out
    }

    /// The dot product of rows `a` of `self` and `b` of `other`, both sorted by column.
    pub fn dot_rows(&self, a: usize, other: &Rows, b: usize) -> f64 {
        let ((ca, va), (cb, vb)) = (self.row(a), other.row(b));
        let (mut i, mut j, mut sum) = (0, 0, 0.0);
        while i < ca.len() && j < cb.len() {
            match ca[i].cmp(&cb[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    sum += f64::from(va[i]) * f64::from(vb[j]);
                    i += 1;
                    j += 1;
                }
            }
        }
        sum
    }
}

/// Accumulators held at once by a parallel sum, at most this many bytes together.
const ACCUMULATOR_BYTES: usize = 256 << 20;

/// Σ over i in 0..len of f(i) as a dense accumulator of `size` values: at most 32 chunks,
/// each with its own accumulator (fewer when accumulators are large), whose partial sums are
/// added in order, so the figures do not depend on the number of threads.
pub(crate) fn reduce(len: usize, size: usize, f: &(dyn Fn(usize, &mut [f64]) + Sync)) -> Vec<f64> {
    let chunks = (ACCUMULATOR_BYTES / (size * 8).max(1)).clamp(1, 32);
    let per = len.div_ceil(chunks).max(1);
    let parts: Vec<Vec<f64>> = (0..len)
        .step_by(per)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|start| {
            let mut acc = vec![0.0; size];
            for i in start..(start + per).min(len) {
                f(i, &mut acc);
            }
            acc
        })
        .collect();
    let mut total = vec![0.0; size];
    for part in parts {
        total.iter_mut().zip(part).for_each(|(t, p)| *t += p);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_keep_their_entries_and_products() {
        let mut m = Rows::new(4);
        m.push([(0, 1.0), (2, 2.0)]);
        m.push([]);
        m.push([(1, 0.0), (3, 3.0)]);
        assert_eq!((m.len(), m.nnz()), (3, 3));
        assert_eq!(m.row(2), (&[3u32][..], &[3.0f32][..]));
        assert_eq!(m.dot(0, &[1.0, 1.0, 0.5, 1.0]), 2.0);
        assert_eq!(m.norm2(0), 5.0);
        assert_eq!(m.dot_rows(0, &m, 0), 5.0);
        assert_eq!(m.dot_rows(0, &m, 2), 0.0);
        let n = m.normalized();
        assert!((n.norm2(0) - 1.0).abs() < 1e-6);
        assert_eq!(n.norm2(1), 0.0);
        assert_eq!(m.select(&[2, 0]).row(1), m.row(0));
        let d = Rows::from_dense(2, [vec![0.0, 1.0]]);
        assert_eq!(d.row(0), (&[1u32][..], &[1.0f32][..]));
    }
}
