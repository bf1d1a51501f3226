//! Limited-memory BFGS (10 correction pairs) with a backtracking Armijo line search, for smooth
//! convex objectives; stops when the largest gradient component is at most `gtol`.

const MEMORY: usize = 10;

/// Minimises `f`, which returns the value at `x` and writes the gradient into its second
/// argument; at most `max_iterations` iterations.
pub fn minimize(mut f: impl FnMut(&[f64], &mut [f64]) -> f64, mut x: Vec<f64>, max_iterations: usize, gtol: f64) -> Vec<f64> {
    let dim = x.len();
    let mut g = vec![0.0; dim];
    let mut fx = f(&x, &mut g);
    let mut pairs: Vec<(Vec<f64>, Vec<f64>, f64)> = Vec::with_capacity(MEMORY);
    let (mut x_new, mut g_new) = (vec![0.0; dim], vec![0.0; dim]);
    for iteration in 0..max_iterations {
        if max_abs(&g) <= gtol {
            break;
        }
        let direction = two_loop(&g, &pairs);
        let slope = dot(&direction, &g);
        let (direction, slope) = if slope < 0.0 {
            (direction, slope)
        } else {
            (g.iter().map(|v| -v).collect(), -dot(&g, &g))
        };
        let mut step = if iteration == 0 {
            1.0 / dot(&direction, &direction).sqrt()
        } else {
            1.0
        };
        let mut accepted = false;
        for _ in 0..50 {
            x_new
                .iter_mut()
                .zip(&x)
                .zip(&direction)
                .for_each(|((xn, xi), di)| *xn = xi + step * di);
            let f_new = f(&x_new, &mut g_new);
            if f_new <= fx + 1e-4 * step * slope {
                let s: Vec<f64> = x_new.iter().zip(&x).map(|(a, b)| a - b).collect();
                let y: Vec<f64> = g_new.iter().zip(&g).map(|(a, b)| a - b).collect();
                let sy = dot(&s, &y);
                if sy > 1e-12 * dot(&y, &y).max(f64::MIN_POSITIVE) {
                    if pairs.len() == MEMORY {
                        pairs.remove(0);
                    }
                    pairs.push((s, y, 1.0 / sy));
                }
                let converged = (fx - f_new) <= 64.0 * f64::EPSILON * fx.abs().max(f_new.abs()).max(1.0);
                std::mem::swap(&mut x, &mut x_new);
                std::mem::swap(&mut g, &mut g_new);
                fx = f_new;
                accepted = !converged;
                break;
            }
            step *= 0.5;
        }
        if !accepted {
            break;
        }
    }
    x
}

/// The L-BFGS search direction `-H g` from the stored correction pairs.
fn two_loop(g: &[f64], pairs: &[(Vec<f64>, Vec<f64>, f64)]) -> Vec<f64> {
    let mut q: Vec<f64> = g.to_vec();
    let mut alphas = vec![0.0; pairs.len()];
    for (k, (s, y, rho)) in pairs.iter().enumerate().rev() {
        alphas[k] = rho * dot(s, &q);
        q.iter_mut().zip(y).for_each(|(qi, yi)| *qi -= alphas[k] * yi);
    }
    if let Some((s, y, _)) = pairs.last() {
        let gamma = dot(s, y) / dot(y, y);
        q.iter_mut().for_each(|qi| *qi *= gamma);
    }
    for (k, (s, y, rho)) in pairs.iter().enumerate() {
        let beta = rho * dot(y, &q);
        q.iter_mut().zip(s).for_each(|(qi, si)| *qi += (alphas[k] - beta) * si);
    }
    q.iter_mut().for_each(|qi| *qi = -*qi);
    q
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimises_rosenbrock_and_quadratic() {
        let rosenbrock = |x: &[f64], g: &mut [f64]| {
            g[0] = -2.0 * (1.0 - x[0]) - 400.0 * x[0] * (x[1] - x[0] * x[0]);
            g[1] = 200.0 * (x[1] - x[0] * x[0]);
            (1.0 - x[0]).powi(2) + 100.0 * (x[1] - x[0] * x[0]).powi(2)
        };
        let x = minimize(rosenbrock, vec![-1.2, 1.0], 200, 1e-8);
        assert!((x[0] - 1.0).abs() < 1e-5 && (x[1] - 1.0).abs() < 1e-5, "{x:?}");
        let quadratic = |x: &[f64], g: &mut [f64]| {
            g.iter_mut()
                .zip(x)
                .enumerate()
                .for_each(|(i, (gi, xi))| *gi = (i + 1) as f64 * (xi - 3.0));
            x.iter().enumerate().map(|(i, xi)| 0.5 * (i + 1) as f64 * (xi - 3.0).powi(2)).sum()
        };
        let x = minimize(quadratic, vec![0.0; 20], 100, 1e-10);
        assert!(x.iter().all(|xi| (xi - 3.0).abs() < 1e-6), "{x:?}");
    }
}
