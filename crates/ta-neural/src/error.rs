//! Errors of the neural tagger: bad training input, bad model files, cancellation and backend failures.

/// Everything that can go wrong while training, saving, loading or applying a neural tagger.
#[derive(Debug, thiserror::Error)]
pub enum NeuralError {
    #[error("at least two classes are needed, got {0}")]
    TooFewClasses(usize),
    #[error("no training examples")]
    NoExamples,
    #[error("too few examples to split into train, validation and test parts: {0} (at least {min} needed)", min = super::split::MIN_EXAMPLES)]
    TooFewExamples(usize),
    #[error("example {index} has class index {class}, but there are only {classes} classes")]
    ClassOutOfRange { index: usize, class: usize, classes: usize },
    #[error("class {0:?} has no examples")]
    EmptyClass(String),
    #[error("invalid setting {name}: {reason}")]
    InvalidSetting { name: &'static str, reason: String },
    #[error("embedding vector for {word:?} has {got} values, expected {expected}")]
    EmbeddingWidth { word: String, got: usize, expected: usize },
    #[error("the embedding has no vector for any word of the training texts (was it trained on other text?)")]
    NoWordVectors,
    #[error("GPU requested but {0}")]
    GpuUnavailable(String),
    #[error("training was cancelled")]
    Cancelled,
    #[error("not a valid neural tagger model: {0}")]
    InvalidModel(String),
    #[error("could not draw the plot: {0}")]
    Plot(String),
    #[error("tensor backend error: {0}")]
    Backend(#[from] candle_core::Error),
}

/// Result type of this module.
pub type Result<T, E = NeuralError> = std::result::Result<T, E>;
