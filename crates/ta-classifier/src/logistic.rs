//! Binary logistic regression as scikit-learn's `LogisticRegression(C=1, solver="lbfgs",
//! max_iter=100, tol=1e-4)`: mean log-loss + ||w||^2 / (2 C n), intercept unpenalised.

use super::lbfgs;
use super::sparse::Csr;

const C: f64 = 1.0;
const MAX_ITERATIONS: usize = 100;
const GRADIENT_TOLERANCE: f64 = 1e-4;

/// `ln(1 + e^x)` without overflow.
pub fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// Fits weights and intercept on rows `x` with labels `y` (true = class 1).
pub fn fit(x: &Csr, y: &[bool]) -> (Vec<f64>, f64) {
    let (n, dim) = (x.nrows(), x.ncols);
    let scale = 1.0 / n as f64;
    let l2 = 1.0 / (C * n as f64);
    let objective = |theta: &[f64], grad: &mut [f64]| {
        let (w, b) = theta.split_at(dim);
        grad.iter_mut().zip(w).for_each(|(g, wi)| *g = l2 * wi);
        grad[dim] = 0.0;
        let mut loss = 0.5 * l2 * w.iter().map(|v| v * v).sum::<f64>();
        for (r, &label) in y.iter().enumerate() {
            let z = x.dot_row(r, w) + b[0];
            let target = if label { 1.0 } else { 0.0 };
            loss += scale * if label { softplus(-z) } else { softplus(z) };
            let residual = scale * (sigmoid(z) - target);
            let (columns, values) = x.row(r);
            columns.iter().zip(values).for_each(|(&c, &v)| grad[c as usize] += residual * v);
            grad[dim] += residual;
        }
        loss
    };
    let mut theta = lbfgs::minimize(objective, vec![0.0; dim + 1], MAX_ITERATIONS, GRADIENT_TOLERANCE);
    let intercept = theta.pop().unwrap_or(0.0);
    (theta, intercept)
}
