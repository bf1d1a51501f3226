//! Seeded randomness for initial weights, shuffling and dropout masks, so that training is reproducible on any device.

use candle_core::{DType, Device, Shape, Tensor};
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

use super::error::Result;

/// The one random stream of a training run.
pub struct Seeded(Xoshiro256PlusPlus);

impl Seeded {
    pub fn new(seed: u64) -> Self {
        Self(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// A tensor of independent U(-bound, bound) values.
    pub fn uniform(&mut self, shape: impl Into<Shape>, bound: f64, dtype: DType, device: &Device) -> Result<Tensor> {
        let shape = shape.into();
        let values: Vec<f64> = (0..shape.elem_count()).map(|_| self.0.random_range(-bound..=bound)).collect();
        Ok(Tensor::from_vec(values, shape, device)?.to_dtype(dtype)?)
    }

    /// A tensor of independent N(0, 1) values (Box-Muller).
    pub fn normal(&mut self, shape: impl Into<Shape>, dtype: DType, device: &Device) -> Result<Tensor> {
        let shape = shape.into();
        let values: Vec<f64> = (0..shape.elem_count()).map(|_| self.standard_normal()).collect();
        Ok(Tensor::from_vec(values, shape, device)?.to_dtype(dtype)?)
    }

    fn standard_normal(&mut self) -> f64 {
        let u1 = 1.0 - self.0.random::<f64>();
        let u2 = self.0.random::<f64>();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Applies inverted dropout: each value is zeroed with probability `p`, the others scaled by 1 / (1 - p).
    pub fn dropout(&mut self, x: &Tensor, p: f64) -> Result<Tensor> {
        let keep = 1.0 / (1.0 - p);
        let mask: Vec<f32> = (0..x.elem_count())
            .map(|_| if self.0.random::<f64>() < p { 0.0 } else { keep as f32 })
            .collect();
        let mask = Tensor::from_vec(mask, x.shape(), x.device())?.to_dtype(x.dtype())?;
        Ok((x * mask)?)
    }

    /// Shuffles `items` in place.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        items.shuffle(&mut self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropout_zeroes_or_scales_and_is_reproducible() {
        let x = Tensor::ones(1000, DType::F32, &Device::Cpu).unwrap();
        let a: Vec<f32> = Seeded::new(42).dropout(&x, 0.8).unwrap().to_vec1().unwrap();
        let b: Vec<f32> = Seeded::new(42).dropout(&x, 0.8).unwrap().to_vec1().unwrap();
        assert_eq!(a, b);
        assert!(a.iter().all(|&v| v == 0.0 || (v - 5.0).abs() < 1e-6));
        let kept = a.iter().filter(|&&v| v > 0.0).count();
        assert!((150..250).contains(&kept), "kept {kept}");
    }

    #[test]
    fn uniform_and_normal_have_expected_ranges() {
        let mut rng = Seeded::new(1);
        let u: Vec<f32> = rng.uniform(2000, 0.25, DType::F32, &Device::Cpu).unwrap().to_vec1().unwrap();
        assert!(u.iter().all(|v| v.abs() <= 0.25));
        let n: Vec<f32> = rng.normal(4000, DType::F32, &Device::Cpu).unwrap().to_vec1().unwrap();
        let mean = n.iter().sum::<f32>() / 4000.0;
        let var = n.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / 4000.0;
        assert!(mean.abs() < 0.08 && (var - 1.0).abs() < 0.1, "mean {mean} var {var}");
    }
}
