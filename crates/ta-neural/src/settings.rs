//! Training settings: the reference configuration per architecture, their bounds, and the learning-rate schedule.

use super::error::{NeuralError, Result};
use super::network::Architecture;

/// Upper bound of `epochs`.
pub const MAX_EPOCHS: usize = 1000;
/// Upper bound of `max_tokens`, `batch_size` and a frozen embedding's width.
pub const MAX_SIZE: usize = 100_000;
/// Width of a trainable embedding (used when no frozen one is given).
pub const TRAINABLE_DIM: usize = 100;

/// The update rule. Adam is the default: the reference's plain SGD takes about 120 steps in its 5 epochs on a
/// few thousand documents and leaves every architecture well short of a bag-of-words classifier, where Adam's
/// per-parameter step sizes reach it in the same steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    /// Adam (β 0.9/0.999, ε 1e-8, no weight decay; lazily per used row for trainable word vectors) at the
    /// architecture's Adam learning rate unless set; the same halving schedule.
    #[default]
    Adam,
    /// Plain SGD, no momentum or weight decay (the reference configuration).
    Sgd,
}

/// How to train. `TrainSettings::new` gives the reference configuration but for the optimizer (Adam).
#[derive(Debug, Clone, PartialEq)]
pub struct TrainSettings {
    pub architecture: Architecture,
    /// Number of epochs, 1 to `MAX_EPOCHS` (default 5).
    pub epochs: usize,
    /// Seed of the split, initialisation, shuffling and dropout (default 42).
    pub seed: u64,
    /// Tokens kept per document (default 2000).
    pub max_tokens: usize,
    /// Training batch size; `None` = the architecture's (128 or 64).
    pub batch_size: Option<usize>,
    /// Initial learning rate; `None` = the architecture's for the optimizer (SGD 0.5 or 0.25, Adam 0.03 or 0.01).
    pub learning_rate: Option<f64>,
    pub optimizer: Optimizer,
    /// Train on the first CUDA GPU (needs the `cuda` build feature).
    pub gpu: bool,
}

impl TrainSettings {
    pub fn new(architecture: Architecture) -> Self {
        Self {
            architecture,
            epochs: 5,
            seed: 42,
            max_tokens: 2000,
            batch_size: None,
            learning_rate: None,
            optimizer: Optimizer::default(),
            gpu: false,
        }
    }

    pub(super) fn batch_size(&self) -> usize {
        self.batch_size.unwrap_or(self.architecture.batch_size())
    }

    pub(super) fn learning_rate(&self) -> f64 {
        self.learning_rate.unwrap_or(match self.optimizer {
            Optimizer::Sgd => self.architecture.learning_rate(),
            Optimizer::Adam => self.architecture.adam_learning_rate(),
        })
    }

    pub(super) fn check(&self) -> Result<()> {
        let invalid = |name, reason: String| Err(NeuralError::InvalidSetting { name, reason });
        if !(1..=MAX_EPOCHS).contains(&self.epochs) {
            return invalid("num_epochs", format!("{} is not between 1 and {MAX_EPOCHS}", self.epochs));
        }
        if !(1..=MAX_SIZE).contains(&self.max_tokens) {
            return invalid("max_tokens", format!("{} is not between 1 and {MAX_SIZE}", self.max_tokens));
        }
        if !(1..=MAX_SIZE).contains(&self.batch_size()) {
            return invalid("batch_size", format!("{} is not between 1 and {MAX_SIZE}", self.batch_size()));
        }
        let lr = self.learning_rate();
        if !(lr.is_finite() && lr > 0.0) {
            return invalid("learning_rate", format!("{lr} is not a positive number"));
        }
        Ok(())
    }

    /// Learning rate of `epoch` (0-based): halved at the start of epoch ⌊E/3⌋ and of epoch ⌊2E/3⌋.
    pub fn learning_rate_at(&self, epoch: usize) -> f64 {
        let (first, second) = (self.epochs / 3, 2 * self.epochs / 3);
        let halvings = usize::from(epoch >= first) + usize::from(second != first && epoch >= second);
        self.learning_rate() / f64::from(1u32 << halvings)
    }
}
