//! The three architectures (fastText, TextRNN, RCNN): parameter layout, PyTorch-style seeded initialisation and
//! the forward pass to log-probabilities.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::str::FromStr;

use candle_core::{DType, Device, Tensor, D};
use candle_nn::{Linear, Module, VarBuilder};
use serde::{Deserialize, Serialize};

use super::batch::Batch;
use super::bilstm::BiLstm;
use super::error::{NeuralError, Result};
use super::pooling::{pool, Pool};
use super::seeded::Seeded;
use super::vocab::PAD;

/// Drop probability of every dropout (the reference's `dropout_keep` = 0.8 used as a drop probability).
pub const DROPOUT: f64 = 0.8;
/// Name of the embedding matrix among the parameters.
pub const EMBEDDING: &str = "embedding";

/// A neural tagger architecture, in the reference's order of choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub enum Architecture {
    #[serde(rename = "TextRNN")]
    TextRnn,
    #[serde(rename = "fastText")]
    FastText,
    #[serde(rename = "RCNN")]
    Rcnn,
}

impl Architecture {
    pub const ALL: [Architecture; 3] = [Architecture::TextRnn, Architecture::FastText, Architecture::Rcnn];

    /// The API name: `TextRNN`, `fastText` or `RCNN`.
    pub fn name(self) -> &'static str {
        ta_text::choice::name(&self)
    }

    /// Training batch size of the reference configuration.
    pub fn batch_size(self) -> usize {
        match self {
            Self::TextRnn => 64,
            Self::FastText | Self::Rcnn => 128,
        }
    }

    /// Initial learning rate of the reference configuration (plain SGD).
    pub fn learning_rate(self) -> f64 {
        match self {
            Self::TextRnn => 0.25,
            Self::FastText | Self::Rcnn => 0.5,
        }
    }

    /// Initial learning rate under Adam: fastText, one linear map of standardised means, takes larger steps.
    pub fn adam_learning_rate(self) -> f64 {
        match self {
            Self::FastText => 0.03,
            Self::TextRnn | Self::Rcnn => 0.01,
        }
    }

    /// Shapes and initialisation bounds of all parameters except the embedding: `name -> (shape, bound)`,
    /// initialised U(-bound, bound) as PyTorch does for `nn.Linear` (1/sqrt(fan_in)) and `nn.LSTM` (1/sqrt(hidden)).
    pub fn parameter_shapes(self, embed_dim: usize, classes: usize) -> BTreeMap<String, (Vec<usize>, f64)> {
        let mut shapes = BTreeMap::new();
        let mut linear = |name: &str, input: usize, output: usize| {
            let bound = 1.0 / (input as f64).sqrt();
            shapes.insert(format!("{name}.weight"), (vec![output, input], bound));
            shapes.insert(format!("{name}.bias"), (vec![output], bound));
        };
        match self {
            Self::FastText => {
                linear("fc1", embed_dim, 10);
                linear("fc2", 10, classes);
            }
            Self::TextRnn => linear("fc", 4 * 32, classes),
            Self::Rcnn => {
                linear("linear", embed_dim + 2 * 64, 64);
                linear("fc", 64, classes);
            }
        }
        let lstm_layers: &[(usize, usize, usize)] = match self {
            Self::FastText => &[],
            Self::TextRnn => &[(0, embed_dim, 32), (1, 64, 32)],
            Self::Rcnn => &[(0, embed_dim, 64)],
        };
        for &(layer, input, hidden) in lstm_layers {
            for (name, shape) in BiLstm::parameter_shapes(layer, input, hidden) {
                shapes.insert(format!("lstm.{name}"), (shape, 1.0 / (hidden as f64).sqrt()));
            }
        }
        shapes
    }

    /// Seeded initial values of all parameters except the embedding, in name order.
    pub fn initial_parameters(
        self,
        embed_dim: usize,
        classes: usize,
        rng: &mut Seeded,
        dtype: DType,
        device: &Device,
    ) -> Result<BTreeMap<String, Tensor>> {
        self.parameter_shapes(embed_dim, classes)
            .into_iter()
            .map(|(name, (shape, bound))| Ok((name, rng.uniform(shape, bound, dtype, device)?)))
            .collect()
    }
}

impl fmt::Display for Architecture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Architecture {
    type Err = NeuralError;

    fn from_str(s: &str) -> Result<Self> {
        ta_text::choice::parse(s).ok_or_else(|| NeuralError::InvalidSetting {
            name: "model_architecture",
            reason: format!("{s:?} is not one of {}", ta_text::choice::names::<Self>().join(", ")),
        })
    }
}

/// A trainable embedding: N(0, 1) values with the `<pad>` row zero.
pub fn initial_embedding(vocab_size: usize, embed_dim: usize, rng: &mut Seeded, dtype: DType, device: &Device) -> Result<Tensor> {
    let values = rng.normal((vocab_size, embed_dim), dtype, device)?;
    let pad_row = Tensor::ones((vocab_size, 1), dtype, device)?
        .slice_assign(&[PAD as usize..PAD as usize + 1, 0..1], &Tensor::zeros((1, 1), dtype, device)?)?;
    Ok(values.broadcast_mul(&pad_row)?)
}

enum Layers {
    FastText {
        fc1: Linear,
        fc2: Linear,
    },
    TextRnn {
        lower: Box<BiLstm>,
        upper: Box<BiLstm>,
        fc: Linear,
    },
    Rcnn {
        lstm: Box<BiLstm>,
        linear: Linear,
        fc: Linear,
    },
}

/// The layers of one architecture above the word vectors.
pub struct Network {
    layers: Layers,
}

impl Network {
    /// Assembles the network from its parameters (without the embedding); shapes are checked.
    pub fn new(
        architecture: Architecture,
        embed_dim: usize,
        classes: usize,
        tensors: &HashMap<String, Tensor>,
        device: &Device,
    ) -> Result<Self> {
        let dtype = tensors.values().next().map_or(DType::F32, Tensor::dtype);
        let vb = VarBuilder::from_tensors(tensors.clone(), dtype, device);
        let linear = |name: &str, input: usize, output: usize| -> Result<Linear> {
            let vb = vb.pp(name);
            Ok(Linear::new(vb.get((output, input), "weight")?, Some(vb.get(output, "bias")?)))
        };
        let layers = match architecture {
            Architecture::FastText => Layers::FastText {
                fc1: linear("fc1", embed_dim, 10)?,
                fc2: linear("fc2", 10, classes)?,
            },
            Architecture::TextRnn => Layers::TextRnn {
                lower: Box::new(BiLstm::new(0, embed_dim, 32, &vb.pp("lstm"))?),
                upper: Box::new(BiLstm::new(1, 64, 32, &vb.pp("lstm"))?),
                fc: linear("fc", 128, classes)?,
            },
            Architecture::Rcnn => Layers::Rcnn {
                lstm: Box::new(BiLstm::new(0, embed_dim, 64, &vb.pp("lstm"))?),
                linear: linear("linear", embed_dim + 128, 64)?,
                fc: linear("fc", 64, classes)?,
            },
        };
        Ok(Self { layers })
    }

    /// Log-probabilities `[rows, classes]` for the rows of `batch`, given the word vectors of its packed positions
    /// (`[positions, embed_dim]`); dropout is applied when `dropout` is given.
    pub fn forward(&self, words: &Tensor, batch: &Batch, mut dropout: Option<&mut Seeded>) -> Result<Tensor> {
        let mut drop = |x: Tensor| -> Result<Tensor> {
            match dropout.as_deref_mut() {
                Some(rng) => rng.dropout(&x, DROPOUT),
                None => Ok(x),
            }
        };
        let logits = match &self.layers {
            Layers::FastText { fc1, fc2 } => fc2.forward(&fc1.forward(&pool(words, Pool::Mean, &batch.rows, &batch.lengths)?)?)?,
            Layers::TextRnn { lower, upper, fc } => {
                let first = lower.forward(words, batch)?;
                let second = upper.forward(&drop(first.sequence)?, batch)?;
                let last = Tensor::cat(
                    &[first.last_forward, first.last_backward, second.last_forward, second.last_backward],
                    1,
                )?;
                fc.forward(&drop(last)?)?
            }
            Layers::Rcnn { lstm, linear, fc } => {
                let context = lstm.forward(words, batch)?.sequence;
                let features = linear.forward(&Tensor::cat(&[&context, words], 1)?)?.tanh()?;
                fc.forward(&drop(pool(&features, Pool::Max, &batch.rows, &batch.lengths)?)?)?
            }
        };
        Ok(candle_nn::ops::log_softmax(&logits, D::Minus1)?)
    }
}
