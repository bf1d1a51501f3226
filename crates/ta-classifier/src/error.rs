//! Errors of classifier training, tagging and model loading.

/// Everything that can go wrong in this module; messages are shown to users as they are.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum Error {
    #[error("no training data: the positive and the negative sample are both empty")]
    EmptyTrainingData,
    #[error("only one class in the training data: {0} sample is empty")]
    OneClass(&'static str),
    #[error("a training example has {got} field values but the tagger has {expected} fields")]
    FieldCount { expected: usize, got: usize },
    #[error("the tagger needs at least one field")]
    NoFields,
    #[error("empty vocabulary for field '{0}': no word or word pair occurs in at least 5 training documents")]
    EmptyVocabulary(String),
    #[error("too few examples: the training part of the 80/20 split must hold both classes")]
    TooFewExamples,
    #[error("not a classifier model file: {0}")]
    Corrupt(String),
    #[error("classifier model format version {0} is not supported")]
    Version(u32),
    #[error("plot rendering failed: {0}")]
    Plot(String),
}

/// Result with this module's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
