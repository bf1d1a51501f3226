//! Linear SVM with hinge loss and L2 penalty (C = 1, intercept as a penalised constant column)
//! by liblinear's dual coordinate descent with shrinking, plus Platt's sigmoid fitted on
//! cross-validated decision values (Lin, Lin and Weng's Newton method).

use super::rng::Mt19937;
use super::sparse::Csr;
use super::split::Fold;
use rayon::prelude::*;

const C: f64 = 1.0;
const TOLERANCE: f64 = 1e-4;
const MAX_ITERATIONS: usize = 1000;

/// Fits weights and intercept (seed 42 for the coordinate order).
pub fn fit(x: &Csr, y: &[bool]) -> (Vec<f64>, f64) {
    let n = x.nrows();
    let sign: Vec<f64> = y.iter().map(|&l| if l { 1.0 } else { -1.0 }).collect();
    let qd: Vec<f64> = (0..n).map(|i| 1.0 + x.row(i).1.iter().map(|v| v * v).sum::<f64>()).collect();
    let mut w = vec![0.0; x.ncols];
    let mut bias = 0.0;
    let mut alpha = vec![0.0; n];
    let mut index: Vec<usize> = (0..n).collect();
    let mut active = n;
    let (mut pg_max_old, mut pg_min_old) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut rng = Mt19937::new(42);
    let mut iteration = 0;
    while iteration < MAX_ITERATIONS {
        let (mut pg_max_new, mut pg_min_new) = (f64::NEG_INFINITY, f64::INFINITY);
        for j in 0..active {
            let i = j + rng.interval((active - j - 1) as u32) as usize;
            index.swap(i, j);
        }
        let mut s = 0;
        while s < active {
            let i = index[s];
            let g = sign[i] * (x.dot_row(i, &w) + bias) - 1.0;
            let pg = if alpha[i] == 0.0 {
                if g > pg_max_old {
                    active -= 1;
                    index.swap(s, active);
                    continue;
                }
                g.min(0.0)
            } else if alpha[i] == C {
                if g < pg_min_old {
                    active -= 1;
                    index.swap(s, active);
                    continue;
                }
                g.max(0.0)
            } else {
                g
            };
            s += 1;
            pg_max_new = pg_max_new.max(pg);
            pg_min_new = pg_min_new.min(pg);
            if pg.abs() > 1e-12 {
                let old = alpha[i];
                alpha[i] = (old - g / qd[i]).clamp(0.0, C);
                let d = (alpha[i] - old) * sign[i];
                let (columns, values) = x.row(i);
                columns.iter().zip(values).for_each(|(&c, &v)| w[c as usize] += d * v);
                bias += d;
            }
        }
        iteration += 1;
        if pg_max_new - pg_min_new <= TOLERANCE {
            if active == n {
                break;
            }
            active = n;
            (pg_max_old, pg_min_old) = (f64::INFINITY, f64::NEG_INFINITY);
            continue;
        }
        pg_max_old = if pg_max_new <= 0.0 { f64::INFINITY } else { pg_max_new };
        pg_min_old = if pg_min_new >= 0.0 { f64::NEG_INFINITY } else { pg_min_new };
    }
    (w, bias)
}

/// Decision values of an SVM fitted on each fold's training rows, for that fold's test rows.
pub fn cross_val_decisions(x: &Csr, y: &[bool], folds: &[Fold]) -> Vec<f64> {
    let per_fold: Vec<Vec<(usize, f64)>> = folds
        .par_iter()
        .map(|(train, test)| {
            let labels: Vec<bool> = train.iter().map(|&i| y[i]).collect();
            let (w, b) = fit(&x.select_rows(train), &labels);
            test.iter().map(|&i| (i, x.dot_row(i, &w) + b)).collect()
        })
        .collect();
    let mut decisions = vec![0.0; x.nrows()];
    per_fold.into_iter().flatten().for_each(|(i, d)| decisions[i] = d);
    decisions
}

/// Platt's sigmoid `p(1) = 1 / (1 + exp(a f + b))` for decision values `f` and labels `y`.
pub fn fit_platt(f: &[f64], y: &[bool]) -> (f64, f64) {
    let positives = y.iter().filter(|&&l| l).count() as f64;
    let negatives = y.len() as f64 - positives;
    let (hi, lo) = ((positives + 1.0) / (positives + 2.0), 1.0 / (negatives + 2.0));
    let targets: Vec<f64> = y.iter().map(|&l| if l { hi } else { lo }).collect();
    let objective = |a: f64, b: f64| -> f64 {
        f.iter()
            .zip(&targets)
            .map(|(fi, t)| {
                let z = fi * a + b;
                if z >= 0.0 {
                    t * z + (-z).exp().ln_1p()
                } else {
                    (t - 1.0) * z + z.exp().ln_1p()
                }
            })
            .sum()
    };
    let (mut a, mut b) = (0.0, ((negatives + 1.0) / (positives + 1.0)).ln());
    let mut value = objective(a, b);
    for _ in 0..100 {
        let (mut h11, mut h22, mut h21, mut g1, mut g2) = (1e-12, 1e-12, 0.0, 0.0, 0.0);
        for (fi, t) in f.iter().zip(&targets) {
            let z = fi * a + b;
            let (p, q) = if z >= 0.0 {
                let e = (-z).exp();
                (e / (1.0 + e), 1.0 / (1.0 + e))
            } else {
                let e = z.exp();
                (1.0 / (1.0 + e), e / (1.0 + e))
            };
            let d2 = p * q;
            h11 += fi * fi * d2;
            h22 += d2;
            h21 += fi * d2;
            g1 += fi * (t - p);
            g2 += t - p;
        }
        if g1.abs() < 1e-5 && g2.abs() < 1e-5 {
            break;
        }
        let det = h11 * h22 - h21 * h21;
        let (da, db) = (-(h22 * g1 - h21 * g2) / det, -(-h21 * g1 + h11 * g2) / det);
        let gd = g1 * da + g2 * db;
        let mut step = 1.0;
        while step >= 1e-10 {
            let (na, nb) = (a + step * da, b + step * db);
            let new_value = objective(na, nb);
            if new_value < value + 1e-4 * step * gd {
                (a, b, value) = (na, nb, new_value);
                break;
            }
            step /= 2.0;
        }
        if step < 1e-10 {
            break;
        }
    }
    (a, b)
}
