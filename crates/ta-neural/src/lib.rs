//! Neural text classifiers ("torchtaggers"): fastText, TextRNN and RCNN trained with candle on the CPU (CUDA
//! optional), following `models.md` §4: raw lower-cased whitespace tokens, seeded 64/16/20 split, Adam (or the reference's
//! plain SGD) with the halving schedule, fastText's frozen vectors standardised, per-epoch validation reports, test-part metrics, batched inference and a self-describing
//! model file.
//!
//! ```text
//! let classes = vec!["true".to_string(), "false".to_string()];
//! let examples = [("cheap pills now", 0), ("meeting at noon", 1), ...];          // (text, class index)
//! let settings = TrainSettings::new("RCNN".parse()?);                              // epochs 5, seed 42, ...
//! let outcome = train(&examples, &classes, &settings, Some(&embedding), &mut |p| { ...; ControlFlow::Continue(()) })?;
//! outcome.epoch_reports[0].to_json();   // {"f1_score": "0.873", ...} on the validation part
//! outcome.test_scores.f1;               // macro F1 on the test part; outcome.confusion.matrix[true][predicted]
//! outcome.tagger.tag(&["some text"])?;  // [(class index, probability)]
//! let bytes = outcome.tagger.to_bytes()?;  // NeuralTagger::from_bytes(&bytes)?
//! ```

mod batch;
mod bilstm;
mod error;
mod metrics;
mod model_file;
mod network;
mod plot;
mod pooling;
mod real;
mod recurrence;
mod seeded;
mod settings;
mod split;
mod tagger;
mod train;
mod vocab;
mod word_vectors;
mod words;

#[cfg(test)]
mod tests;

pub use error::{NeuralError, Result};
pub use metrics::{round3, Confusion, EpochReport, Scores};
pub use network::Architecture;
pub use plot::confusion_png;
pub use settings::{Optimizer, TrainSettings, MAX_EPOCHS};
pub use tagger::NeuralTagger;
pub use train::{train, Progress, TrainOutcome};
pub use vocab::tokenize;
pub use word_vectors::{WordVectorMap, WordVectors};
