//! Truncated SVD of a sparse matrix A (documents × terms), as LSI needs it: the top `k` right
//! singular vectors, found by seeded subspace iteration on AᵀA (a Gaussian start of
//! `k + OVERSAMPLE` columns, `POWER_ITERATIONS` products, each followed by a Gram-Schmidt
//! orthonormalisation), then the eigenvectors of the small projected matrix (Jacobi).
//! A is only read row by row, so memory is terms × (k + OVERSAMPLE), whatever the number
//! of documents. Components are fixed in sign (largest entry positive).
use crate::matrix::{reduce, Rows};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Extra columns of the random start (as randomized SVD's oversampling).
const OVERSAMPLE: usize = 10;
/// Products with AᵀA before the projection.
const POWER_ITERATIONS: usize = 4;

/// A column-major `rows × cols` matrix.
#[derive(Clone, Debug)]
struct Columns {
    rows: usize,
    data: Vec<f64>,
}

impl Columns {
    fn col(&self, j: usize) -> &[f64] {
        &self.data[j * self.rows..(j + 1) * self.rows]
    }
    fn cols(&self) -> usize {
        self.data.len() / self.rows.max(1)
    }
}

/// Row `r` of A times each column of `q`.
fn row_times(a: &Rows, r: usize, q: &Columns) -> Vec<f64> {
    (0..q.cols()).map(|j| a.dot(r, q.col(j))).collect()
}

/// AᵀA q.
fn gram_times(a: &Rows, q: &Columns) -> Columns {
    let (d, l) = (q.rows, q.cols());
    let data = reduce(a.len(), d * l, &|r, acc| {
        let t = row_times(a, r, q);
        let (cols, vals) = a.row(r);
        for (j, tj) in t.iter().enumerate() {
            for (&c, &v) in cols.iter().zip(vals) {
                acc[j * d + c as usize] += f64::from(v) * tj;
            }
        }
    });
    Columns { rows: d, data }
}

/// Orthonormal columns spanning those of `m` (modified Gram-Schmidt, twice); columns that
/// vanish become zero.
fn orthonormalize(m: &mut Columns) {
    let (d, l) = (m.rows, m.cols());
    for _ in 0..2 {
        for j in 0..l {
            for i in 0..j {
                let dot: f64 = (0..d).map(|x| m.data[i * d + x] * m.data[j * d + x]).sum();
                for x in 0..d {
                    m.data[j * d + x] -= dot * m.data[i * d + x];
                }
            }
            let norm = m.col(j).iter().map(|v| v * v).sum::<f64>().sqrt();
            for x in 0..d {
                m.data[j * d + x] = if norm > 1e-12 { m.data[j * d + x] / norm } else { 0.0 };
            }
        }
    }
}

/// Eigenvalues and eigenvectors (columns of the returned row-major matrix) of the symmetric
/// `n × n` row-major matrix `s`, by cyclic Jacobi rotations.
fn symmetric_eigen(mut s: Vec<f64>, n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut v = vec![0.0; n * n];
    (0..n).for_each(|i| v[i * n + i] = 1.0);
    for _ in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| s[i * n + j].powi(2))
            .sum();
        let scale: f64 = (0..n).map(|i| s[i * n + i].powi(2)).sum::<f64>().max(1e-300);
        if off <= 1e-22 * scale {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = s[p * n + q];
                if apq.abs() < 1e-300 {
                    continue;
                }
                let theta = (s[q * n + q] - s[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let sn = t * c;
                for k in 0..n {
                    let (akp, akq) = (s[k * n + p], s[k * n + q]);
                    s[k * n + p] = c * akp - sn * akq;
                    s[k * n + q] = sn * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (s[p * n + k], s[q * n + k]);
                    s[p * n + k] = c * apk - sn * aqk;
                    s[q * n + k] = sn * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - sn * vkq;
                    v[k * n + q] = sn * vkp + c * vkq;
                }
            }
        }
    }
    ((0..n).map(|i| s[i * n + i]).collect(), v)
}

/// The top `k` right singular vectors of `a` as a row-major `dim × k'` matrix (`k'` =
/// min(k, dim, rows)), with the singular values, largest first.
pub fn right_singular_vectors(a: &Rows, k: usize, seed: u64) -> (Vec<f32>, Vec<f64>, usize) {
    let d = a.dim();
    let k = k.min(d).min(a.len()).max(1);
    let l = (k + OVERSAMPLE).min(d).max(1);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut normal = || {
        let u1 = 1.0 - rng.random::<f64>();
        let u2 = rng.random::<f64>();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    };
    let mut q = Columns {
        rows: d,
        data: (0..d * l).map(|_| normal()).collect(),
    };
    orthonormalize(&mut q);
    for _ in 0..POWER_ITERATIONS {
        q = gram_times(a, &q);
        orthonormalize(&mut q);
    }
    // B = (AQ)ᵀ(AQ), l × l.
    let b = reduce(a.len(), l * l, &|r, acc| {
        let t = row_times(a, r, &q);
        for i in 0..l {
            for j in 0..l {
                acc[i * l + j] += t[i] * t[j];
            }
        }
    });
    let (values, vectors) = symmetric_eigen(b, l);
    let mut order: Vec<usize> = (0..l).collect();
    order.sort_by(|&x, &y| values[y].total_cmp(&values[x]));
    let mut out = vec![0f32; d * k];
    for (out_col, &e) in order.iter().take(k).enumerate() {
        let mut column: Vec<f64> = (0..d)
            .map(|x| (0..l).map(|j| q.data[j * d + x] * vectors[j * l + e]).sum())
            .collect();
        let largest = column.iter().copied().fold(0.0f64, |m, v| if v.abs() > m.abs() { v } else { m });
        if largest < 0.0 {
            column.iter_mut().for_each(|v| *v = -*v);
        }
        for (x, v) in column.into_iter().enumerate() {
            out[x * k + out_col] = v as f32;
        }
    }
    let singular = order.iter().take(k).map(|&e| values[e].max(0.0).sqrt()).collect();
    (out, singular, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_leading_singular_vectors() {
        // A = diag(3, 2, 1) padded with a zero row: right singular vectors e0, e1, e2.
        let a = Rows::from_dense(3, [vec![3.0, 0.0, 0.0], vec![0.0, 2.0, 0.0], vec![0.0, 0.0, 1.0], vec![0.0; 3]]);
        let (v, s, k) = right_singular_vectors(&a, 2, 10);
        assert_eq!(k, 2);
        assert!((s[0] - 3.0).abs() < 1e-6 && (s[1] - 2.0).abs() < 1e-6, "{s:?}");
        let expect = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
        for (got, want) in v.iter().zip(expect) {
            assert!((f64::from(*got) - want).abs() < 1e-5, "{v:?}");
        }
    }

    #[test]
    fn the_jacobi_eigenvalues_of_a_symmetric_matrix() {
        let (values, vectors) = symmetric_eigen(vec![2.0, 1.0, 1.0, 2.0], 2);
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        assert!((sorted[0] - 1.0).abs() < 1e-12 && (sorted[1] - 3.0).abs() < 1e-12);
        // Each column is a unit eigenvector.
        for c in 0..2 {
            let (x, y) = (vectors[c], vectors[2 + c]);
            assert!((x * x + y * y - 1.0).abs() < 1e-12);
            assert!((2.0 * x + y - values[c] * x).abs() < 1e-9);
        }
    }
}
