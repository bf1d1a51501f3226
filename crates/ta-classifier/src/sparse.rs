//! A compressed sparse row matrix of `f64` (also used transposed, as columns), with the few
//! operations the pipeline needs.

/// CSR matrix: row `r` holds `indices[indptr[r]..indptr[r + 1]]` (ascending) and the same range
/// of `data`.
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    pub ncols: usize,
    pub indptr: Vec<usize>,
    pub indices: Vec<u32>,
    pub data: Vec<f64>,
}

impl Csr {
    /// An empty matrix with `ncols` columns and no rows.
    pub fn new(ncols: usize) -> Self {
        Csr {
            ncols,
            indptr: vec![0],
            indices: Vec::new(),
            data: Vec::new(),
        }
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.indptr.len() - 1
    }

    /// Appends a row given as entries with ascending, distinct columns.
    pub fn push_row(&mut self, entries: impl IntoIterator<Item = (u32, f64)>) {
        for (column, value) in entries {
            self.indices.push(column);
            self.data.push(value);
        }
        self.indptr.push(self.indices.len());
    }

    /// Columns and values of row `r`.
    pub fn row(&self, r: usize) -> (&[u32], &[f64]) {
        let range = self.indptr[r]..self.indptr[r + 1];
        (&self.indices[range.clone()], &self.data[range])
    }

    /// Dot product of row `r` with a dense vector.
    pub fn dot_row(&self, r: usize, w: &[f64]) -> f64 {
        let (columns, values) = self.row(r);
        columns.iter().zip(values).map(|(&c, &v)| w[c as usize] * v).sum()
    }

    /// The rows listed in `rows`, in that order.
    pub fn select_rows(&self, rows: &[usize]) -> Csr {
        let mut out = Csr::new(self.ncols);
        for &r in rows {
            let (columns, values) = self.row(r);
            out.push_row(columns.iter().copied().zip(values.iter().copied()));
        }
        out
    }

    /// Keeps the columns `kept` (ascending) and renumbers them `0..kept.len()`.
    pub fn select_columns(&self, kept: &[u32]) -> Csr {
        let mut new_index = vec![u32::MAX; self.ncols];
        for (i, &c) in kept.iter().enumerate() {
            new_index[c as usize] = i as u32;
        }
        let mut out = Csr::new(kept.len());
        for r in 0..self.nrows() {
            let (columns, values) = self.row(r);
            out.push_row(
                columns
                    .iter()
                    .zip(values)
                    .filter_map(|(&c, &v)| (new_index[c as usize] != u32::MAX).then_some((new_index[c as usize], v))),
            );
        }
        out
    }

    /// The transpose (a CSC view of `self`), built by counting sort, with each value `v` of row
    /// `r` replaced by `value(r, v)`.
    pub fn transpose(&self, value: impl Fn(usize, f64) -> f64) -> Csr {
        let mut counts = vec![0usize; self.ncols + 1];
        for &c in &self.indices {
            counts[c as usize + 1] += 1;
        }
        for c in 0..self.ncols {
            counts[c + 1] += counts[c];
        }
        let indptr = counts.clone();
        let mut indices = vec![0u32; self.indices.len()];
        let mut data = vec![0f64; self.data.len()];
        for r in 0..self.nrows() {
            let (columns, values) = self.row(r);
            for (&c, &v) in columns.iter().zip(values) {
                let slot = &mut counts[c as usize];
                indices[*slot] = r as u32;
                data[*slot] = value(r, v);
                *slot += 1;
            }
        }
        Csr {
            ncols: self.nrows(),
            indptr,
            indices,
            data,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> Csr {
        let mut m = Csr::new(4);
        m.push_row([(0, 1.0), (3, 2.0)]);
        m.push_row([]);
        m.push_row([(1, 3.0), (3, 4.0)]);
        m
    }

    #[test]
    fn transpose_and_select() {
        let m = example();
        let t = m.transpose(|_, v| v);
        assert_eq!((t.nrows(), t.ncols), (4, 3));
        assert_eq!(t.row(3), (&[0u32, 2][..], &[2.0, 4.0][..]));
        assert_eq!(t.transpose(|_, v| v), m);
        assert_eq!(m.transpose(|r, v| v * r as f64).row(3), (&[0u32, 2][..], &[0.0, 8.0][..]));
        assert_eq!(m.select_rows(&[2, 0]).row(0), (&[1u32, 3][..], &[3.0, 4.0][..]));
        assert_eq!(m.select_columns(&[1, 3]).row(2), (&[0u32, 1][..], &[3.0, 4.0][..]));
        assert_eq!(m.dot_row(2, &[1.0, 1.0, 1.0, 0.5]), 5.0);
    }
}
