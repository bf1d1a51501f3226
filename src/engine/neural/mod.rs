//! Neural text classifiers ("torchtaggers"): fastText, TextRNN and RCNN trained with candle on the CPU (CUDA
//! optional), following `models.md` §4: raw lower-cased whitespace tokens, seeded 64/16/20 split, plain SGD with
//! the halving schedule, per-epoch validation reports, test-part metrics, batched inference and a self-describing
//! model file.

mod batch;
mod bilstm;
mod error;
mod metrics;
mod model_file;
mod network;
mod pooling;
mod real;
mod recurrence;
mod seeded;
mod split;
mod tagger;
mod train;
mod vocab;
mod words;

#[cfg(test)]
mod tests;

pub use error::{NeuralError, Result};
pub use metrics::{round3, Confusion, EpochReport, Scores};
pub use network::Architecture;
pub use tagger::NeuralTagger;
pub use train::{train, Progress, TrainOutcome, TrainSettings, WordVectorMap, WordVectors, MAX_EPOCHS};
pub use vocab::tokenize;
