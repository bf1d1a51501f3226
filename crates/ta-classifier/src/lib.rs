//! Text classifiers ("taggers", spec `models.md` 0.2 and 1): the text processor, n-gram
//! vectorizers (hashing, count, TF-IDF), L1-SVM feature selection, logistic regression or a
//! linear SVM with Platt probabilities, evaluation, and a versioned model file.
//!
//! * [`train`] turns positive and negative examples (one text per field) into a [`Model`] and
//!   a [`Report`]; [`Model::tag`] / [`Model::tag_batch`] apply it; [`Model::to_bytes`] and
//!   [`Model::from_bytes`] store it; [`plot_png`] draws the report.
//! * [`TextProcessor`] is the shared text processor "P", also for other models.
//!
//! Pure computation: no I/O; global state is only the embedded stop lists and the plot font,
//! registered once with `plotters` as "sans-serif". Self-contained:
//! only `self::`/`super::` paths are used inside this module.

mod corpus;
mod error;
mod format;
mod lbfgs;
mod logistic;
mod metrics;
mod model;
mod murmur;
mod plot;
pub use plot::{font_registered, FONT};
mod rng;
mod select;
mod sparse;
mod split;
mod svm;
mod text;
mod train;
mod vectorize;

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod model_tests;

pub use error::{Error, Result};
pub use model::{ClassifierKind, Feature, Model, Settings};
pub use plot::plot_png;
pub use text::{builtin_stop_words, Hooks, Phraser, ProcessorOptions, TextProcessor, Tokenization};
pub use train::{train, Report};
pub use vectorize::{Doc, VectorizerKind};

impl Model {
    /// The model file (deterministic: equal models give equal bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        format::to_bytes(self)
    }

    /// Loads a model file; corrupt or foreign input gives an error, never a panic.
    pub fn from_bytes(bytes: &[u8]) -> Result<Model> {
        format::from_bytes(bytes)
    }
}
