//! Training settings, with the reference's values as defaults, and their validation.

use super::error::{EmbeddingError, Result};
use super::phraser::PhraserSettings;
use serde::{Deserialize, Serialize};

/// The largest accepted vector size.
pub const MAX_DIMENSIONS: usize = 1000;
/// The most memory the two weight matrices of training may take.
pub const MAX_WEIGHT_BYTES: u64 = 16 << 30;

/// word2vec CBOW settings (gensim 3 as the reference calls it). Only `num_dimensions` and
/// `min_freq` are request fields; the rest are fixed by the reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub num_dimensions: usize,
    pub min_freq: u64,
    pub window: usize,
    pub negative: usize,
    pub epochs: usize,
    pub alpha: f32,
    pub min_alpha: f32,
    pub sample: f64,
    pub ns_exponent: f64,
    pub seed: u64,
    /// Longer sentences are cut after this many (kept) words.
    pub max_sentence_len: usize,
    pub phraser: PhraserSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            num_dimensions: 100,
            min_freq: 5,
            window: 5,
            negative: 5,
            epochs: 5,
            alpha: 0.025,
            min_alpha: 0.0001,
            sample: 1e-3,
            ns_exponent: 0.75,
            seed: 1,
            max_sentence_len: 10_000,
            phraser: PhraserSettings::default(),
        }
    }
}

impl Settings {
    pub fn validate(&self) -> Result<()> {
        let invalid = |message: String| Err(EmbeddingError::InvalidSetting(message));
        if !(1..=MAX_DIMENSIONS).contains(&self.num_dimensions) {
            return invalid(format!(
                "num_dimensions must be between 1 and {MAX_DIMENSIONS}, got {}",
                self.num_dimensions
            ));
        }
        if self.min_freq == 0 {
            return invalid("min_freq must be at least 1".into());
        }
        if !(1..=1000).contains(&self.window) || self.negative > 1000 || self.epochs > 10_000 {
            return invalid("window must be 1..=1000, negative and epochs at most 1000 and 10000".into());
        }
        let rates_ok = self.alpha.is_finite() && self.min_alpha.is_finite() && self.alpha > 0.0 && self.min_alpha >= 0.0;
        if !rates_ok || !self.sample.is_finite() || !self.ns_exponent.is_finite() {
            return invalid("alpha, min_alpha, sample and ns_exponent must be finite, alpha positive".into());
        }
        if self.max_sentence_len == 0 {
            return invalid("max_sentence_len must be positive".into());
        }
        if !self.phraser.threshold.is_finite() || self.phraser.max_vocab_size == 0 {
            return invalid("the phraser threshold must be finite and its table size positive".into());
        }
        Ok(())
    }

    /// Fails when `words` vectors (input and output weights) would take too much memory.
    pub fn check_size(&self, words: usize) -> Result<()> {
        let bytes = words as u128 * self.num_dimensions as u128 * 4 * 2;
        if bytes > u128::from(MAX_WEIGHT_BYTES) {
            return Err(EmbeddingError::TooLarge {
                bytes,
                limit: MAX_WEIGHT_BYTES,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_reference_values_and_valid() {
        let settings = Settings::default();
        assert!(settings.validate().is_ok());
        assert_eq!(
            (settings.num_dimensions, settings.min_freq, settings.window, settings.epochs),
            (100, 5, 5, 5)
        );
    }

    #[test]
    fn rejects_absurd_values() {
        for settings in [
            Settings {
                num_dimensions: 0,
                ..Settings::default()
            },
            Settings {
                num_dimensions: 1_000_000,
                ..Settings::default()
            },
            Settings {
                min_freq: 0,
                ..Settings::default()
            },
            Settings {
                alpha: f32::NAN,
                ..Settings::default()
            },
            Settings {
                max_sentence_len: 0,
                ..Settings::default()
            },
        ] {
            assert!(
                matches!(settings.validate(), Err(EmbeddingError::InvalidSetting(_))),
                "{settings:?}"
            );
        }
        assert!(Settings::default().check_size(1_000_000).is_ok());
        let wide = Settings {
            num_dimensions: 1000,
            ..Settings::default()
        };
        assert!(matches!(wide.check_size(100_000_000), Err(EmbeddingError::TooLarge { .. })));
    }
}
