//! The network's matrix product with its weights packed once at load: `y = x · W + b` for
//! a few dozen token rows at a time, where a general GEMM would repack the weights on every
//! call. Weights are stored in panels of 16 output columns (input-major inside a panel), and
//! 4 rows × 16 columns are accumulated at once; on x86-64 with AVX2 and FMA the same code is
//! compiled for those instructions and chosen at run time.

/// Output columns per panel.
const PANEL: usize = 16;
/// Rows per block.
const ROWS: usize = 4;

/// A `k × n` weight matrix in panels, with its bias.
pub struct Packed {
    k: usize,
    n: usize,
    panels: Vec<f32>,
    bias: Vec<f32>,
}

impl Packed {
    /// Packs the matrix whose entry (row `i`, column `j`) is `at(i, j)`.
    pub fn new(k: usize, n: usize, at: impl Fn(usize, usize) -> f32, bias: Vec<f32>) -> Packed {
        let mut panels = vec![0.0; n.div_ceil(PANEL) * k * PANEL];
        for (p, panel) in panels.chunks_exact_mut(k * PANEL).enumerate() {
            for (i, row) in panel.chunks_exact_mut(PANEL).enumerate() {
                for (c, w) in row.iter_mut().enumerate().take(n.saturating_sub(p * PANEL)) {
                    *w = at(i, p * PANEL + c);
                }
            }
        }
        Packed { k, n, panels, bias }
    }

    /// Output columns.
    pub fn cols(&self) -> usize {
        self.n
    }

    /// `y = x · W + b` for the rows of `x` (`rows × k`, row-major) into `y` (`rows × n`).
    pub fn apply(&self, x: &[f32], y: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has the features the function is compiled for
            return unsafe { self.apply_fma(x, y) };
        }
        self.apply_with::<false>(x, y)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn apply_fma(&self, x: &[f32], y: &mut [f32]) {
        self.apply_with::<true>(x, y)
    }

    #[inline(always)]
    fn apply_with<const FMA: bool>(&self, x: &[f32], y: &mut [f32]) {
        let (k, n) = (self.k, self.n);
        assert!(x.len().is_multiple_of(k) && y.len() == x.len() / k * n, "matrix sizes");
        for (p, panel) in self.panels.chunks_exact(k * PANEL).enumerate() {
            let cols = p * PANEL..(p * PANEL + PANEL).min(n);
            let bias = &self.bias[cols.clone()];
            let store = |acc: &[f32; PANEL], y: &mut [f32]| {
                for ((o, a), b) in y[cols.clone()].iter_mut().zip(acc).zip(bias) {
                    *o = a + b;
                }
            };
            let mut xs = x.chunks_exact(ROWS * k);
            let mut ys = y.chunks_exact_mut(ROWS * n);
            for (x, y) in (&mut xs).zip(&mut ys) {
                let rows: [&[f32]; ROWS] = std::array::from_fn(|b| &x[b * k..(b + 1) * k]);
                for (acc, y) in block::<ROWS, FMA>(panel, rows).iter().zip(y.chunks_exact_mut(n)) {
                    store(acc, y);
                }
            }
            for (x, y) in xs.remainder().chunks_exact(k).zip(ys.into_remainder().chunks_exact_mut(n)) {
                store(&block::<1, FMA>(panel, [x])[0], y);
            }
        }
    }
}

/// `B` rows (each `k` long) times one panel (`k × PANEL`).
#[inline(always)]
fn block<const B: usize, const FMA: bool>(panel: &[f32], rows: [&[f32]; B]) -> [[f32; PANEL]; B] {
    let k = panel.len() / PANEL;
    assert!(rows.iter().all(|r| r.len() == k), "row length");
    let mut acc = [[0f32; PANEL]; B];
    for (i, w) in panel.chunks_exact(PANEL).enumerate() {
        let w: &[f32; PANEL] = w.try_into().expect("a panel row");
        for (acc, row) in acc.iter_mut().zip(rows) {
            let v = row[i];
            for (a, w) in acc.iter_mut().zip(w) {
                *a = if FMA { v.mul_add(*w, *a) } else { *a + v * w };
            }
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_product_is_the_matrix_product() {
        let (rows, k, n) = (7, 5, 19);
        let w = |i: usize, j: usize| (i * 31 + j * 7) as f32 % 5.0 - 2.0;
        let x: Vec<f32> = (0..rows * k).map(|v| (v % 11) as f32 - 5.0).collect();
        let bias: Vec<f32> = (0..n).map(|j| j as f32).collect();
        let packed = Packed::new(k, n, w, bias.clone());
        let mut y = vec![0.0; rows * n];
        packed.apply(&x, &mut y);
        for r in 0..rows {
            for j in 0..n {
                let want: f32 = bias[j] + (0..k).map(|i| x[r * k + i] * w(i, j)).sum::<f32>();
                assert_eq!(y[r * n + j], want, "({r}, {j})");
            }
        }
        packed.apply_with::<false>(&x, &mut y);
        assert_eq!(y[n + 3], bias[3] + (0..k).map(|i| x[k + i] * w(i, 3)).sum::<f32>());
    }
}
