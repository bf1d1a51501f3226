//! The few dense vector operations training and queries need, written so the compiler
//! vectorises them (eight independent partial sums in the dot product).

const LANES: usize = 8;

#[inline(always)]
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut partial = [0f32; LANES];
    let (chunks_a, chunks_b) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = chunks_a.remainder().iter().zip(chunks_b.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in chunks_a.zip(chunks_b) {
        for lane in 0..LANES {
            partial[lane] += x[lane] * y[lane];
        }
    }
    partial.iter().sum::<f32>() + tail
}

/// `y += a * x`.
#[inline(always)]
pub(super) fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

#[inline(always)]
pub(super) fn scale(a: f32, x: &mut [f32]) {
    for xi in x.iter_mut() {
        *xi *= a;
    }
}

/// Scales `x` to unit length; a zero vector stays zero.
#[inline(always)]
pub(super) fn normalise(x: &mut [f32]) {
    let norm = dot(x, x).sqrt();
    if norm > 0.0 {
        scale(1.0 / norm, x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations() {
        let a: Vec<f32> = (1..=11).map(|i| i as f32).collect();
        assert_eq!(dot(&a, &a), 506.0);
        let mut y = vec![1.0; 11];
        axpy(2.0, &a, &mut y);
        assert_eq!(y[10], 23.0);
        let mut v = [3.0, 4.0];
        normalise(&mut v);
        assert_eq!(v, [0.6, 0.8]);
        let mut zero = [0.0; 3];
        normalise(&mut zero);
        assert_eq!(zero, [0.0; 3]);
    }
}
