//! Feature selection: an L1-penalised squared-hinge linear SVM (C = 1, intercept as a penalised
//! constant column) solved by liblinear's primal coordinate descent (`solve_l1r_l2_svc`, CDN);
//! the columns whose weight reaches 1e-5 in magnitude are kept.

use super::rng::Mt19937;
use super::sparse::Csr;

const C: f64 = 1.0;
const TOLERANCE: f64 = 1e-4;
const MAX_ITERATIONS: usize = 1000;
const MAX_LINE_SEARCH: usize = 20;
const SIGMA: f64 = 0.01;
/// scikit-learn's `SelectFromModel` threshold for L1-penalised estimators.
pub const THRESHOLD: f64 = 1e-5;

/// The columns of `x` (ascending) that the L1 SVM keeps for labels `y`.
pub fn select_features(x: &Csr, y: &[bool]) -> Vec<u32> {
    let n = x.nrows();
    // Columns of the problem: the used columns of x, then the constant intercept column, all
    // multiplied by the label sign (liblinear's `x->value *= y[ind]`).
    let sign: Vec<f64> = y.iter().map(|&l| if l { 1.0 } else { -1.0 }).collect();
    let mut columns = x.transpose(|i, v| v * sign[i]);
    let used: Vec<u32> = (0..columns.nrows())
        .filter(|&j| columns.indptr[j + 1] > columns.indptr[j])
        .map(|j| j as u32)
        .collect();
    // Dropping the empty rows of the transpose moves no entry.
    columns.indptr = std::iter::once(0)
        .chain(used.iter().map(|&j| columns.indptr[j as usize + 1]))
        .collect();
    columns.push_row((0..n as u32).map(|i| (i, sign[i as usize])));
    let w = solve(&columns, n);
    used.into_iter()
        .zip(w)
        .filter(|(_, w)| w.abs() >= THRESHOLD)
        .map(|(j, _)| j)
        .collect()
}

/// liblinear's `solve_l1r_l2_svc` on label-signed columns (one problem column per row of
/// `columns`, over `n` examples); returns one weight per column.
fn solve(columns: &Csr, n: usize) -> Vec<f64> {
    let w_size = columns.nrows();
    let mut w = vec![0.0; w_size];
    let mut b = vec![1.0; n];
    let xj_sq: Vec<f64> = (0..w_size).map(|j| columns.row(j).1.iter().map(|v| C * v * v).sum()).collect();
    let mut index: Vec<usize> = (0..w_size).collect();
    let mut active = w_size;
    let mut gmax_old = f64::INFINITY;
    let mut gnorm1_init = 0.0;
    let mut rng = Mt19937::new(42);
    let mut iteration = 0;
    while iteration < MAX_ITERATIONS {
        let mut gmax_new: f64 = 0.0;
        let mut gnorm1_new = 0.0;
        for j in 0..active {
            let i = j + rng.interval((active - j - 1) as u32) as usize;
            index.swap(i, j);
        }
        let mut s = 0;
        while s < active {
            let j = index[s];
            let (rows, values) = columns.row(j);
            let (mut g_loss, h) = loss_gradient(rows, values, &b);
            g_loss *= 2.0;
            let g = g_loss;
            let h = (2.0 * h).max(1e-12);
            let (gp, gn) = (g + 1.0, g - 1.0);
            let violation = if w[j] == 0.0 {
                if gp < 0.0 {
                    -gp
                } else if gn > 0.0 {
                    gn
                } else if gp > gmax_old / n as f64 && gn < -gmax_old / n as f64 {
                    active -= 1;
                    index.swap(s, active);
                    continue;
                } else {
                    0.0
                }
            } else if w[j] > 0.0 {
                gp.abs()
            } else {
                gn.abs()
            };
            gmax_new = gmax_new.max(violation);
            gnorm1_new += violation;
            s += 1;

            let mut d = if gp < h * w[j] {
                -gp / h
            } else if gn > h * w[j] {
                -gn / h
            } else {
                -w[j]
            };
            if d.abs() < 1e-12 {
                continue;
            }
            let mut delta = (w[j] + d).abs() - w[j].abs() + g * d;
            let mut d_old = 0.0;
            let mut loss_old = 0.0;
            let mut steps = 0;
            while steps < MAX_LINE_SEARCH {
                let d_diff = d_old - d;
                let mut cond = (w[j] + d).abs() - w[j].abs() - SIGMA * delta;
                if xj_sq[j] * d * d + g_loss * d + cond <= 0.0 {
                    rows.iter().zip(values).for_each(|(&i, &v)| b[i as usize] += d_diff * v);
                    break;
                }
                let mut loss_new = 0.0;
                let first = steps == 0;
                for (&i, &v) in rows.iter().zip(values) {
                    // Branch-free, as above.
                    let bi = &mut b[i as usize];
                    let old = *bi;
                    *bi += d_diff * v;
                    let new = *bi;
                    if first {
                        loss_old += if old > 0.0 { C * old * old } else { 0.0 };
                    }
                    loss_new += if new > 0.0 { C * new * new } else { 0.0 };
                }
                cond += loss_new - loss_old;
                if cond <= 0.0 {
                    break;
                }
                d_old = d;
                d *= 0.5;
                delta *= 0.5;
                steps += 1;
            }
            w[j] += d;
            if steps >= MAX_LINE_SEARCH {
                recompute_margins(columns, &w, &mut b);
            }
        }
        if iteration == 0 {
            gnorm1_init = gnorm1_new;
        }
        iteration += 1;
        if gnorm1_new <= TOLERANCE * gnorm1_init {
            if active == w_size {
                break;
            }
            active = w_size;
            gmax_old = f64::INFINITY;
            continue;
        }
        gmax_old = gmax_new;
    }
    w
}

/// Of one column: `(-Σ C v_i b_i, Σ C v_i²)` over its examples with a positive margin term
/// `b_i`. Four interleaved partial sums (added pairwise at the end) instead of one: each sum
/// waited on the previous addition, which made this loop, the solver's hottest, latency-bound.
fn loss_gradient(rows: &[u32], values: &[f64], b: &[f64]) -> (f64, f64) {
    let (mut g, mut h) = ([0.0; 4], [0.0; 4]);
    let mut rows_4 = rows.chunks_exact(4);
    let mut values_4 = values.chunks_exact(4);
    for (r, v) in rows_4.by_ref().zip(values_4.by_ref()) {
        for k in 0..4 {
            // Branch-free form of `if b_i > 0 { ... }` (adding zeros changes no sum).
            let bi = b[r[k] as usize];
            let t = if bi > 0.0 { C * v[k] } else { 0.0 };
            g[k] -= t * bi;
            h[k] += t * v[k];
        }
    }
    for (&i, &v) in rows_4.remainder().iter().zip(values_4.remainder()) {
        let bi = b[i as usize];
        let t = if bi > 0.0 { C * v } else { 0.0 };
        g[0] -= t * bi;
        h[0] += t * v;
    }
    ((g[0] + g[1]) + (g[2] + g[3]), (h[0] + h[1]) + (h[2] + h[3]))
}

/// `b_i = 1 - y_i w.x_i` from scratch, after a failed line search.
fn recompute_margins(columns: &Csr, w: &[f64], b: &mut [f64]) {
    b.fill(1.0);
    for (j, &wj) in w.iter().enumerate().filter(|(_, wj)| **wj != 0.0) {
        let (rows, values) = columns.row(j);
        rows.iter().zip(values).for_each(|(&i, &v)| b[i as usize] -= wj * v);
    }
}
