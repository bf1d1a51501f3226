//! Errors of embedding training and of reading model files.

/// What can go wrong while training an embedding or reading a model file.
#[derive(Debug, thiserror::Error)]
pub enum EmbeddingError {
    #[error("the corpus holds no tokens")]
    EmptyCorpus,
    #[error("no word occurs at least {min_freq} times: the vocabulary is empty")]
    EmptyVocabulary { min_freq: u64 },
    #[error("invalid setting: {0}")]
    InvalidSetting(String),
    #[error("the model would need {bytes} bytes of weights, more than the {limit} allowed")]
    TooLarge { bytes: u128, limit: u64 },
    #[error("could not allocate {bytes} bytes for the weights")]
    OutOfMemory { bytes: u128 },
    #[error("training was cancelled")]
    Cancelled,
    #[error("not a valid embedding model file: {0}")]
    Format(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

pub type Result<T> = std::result::Result<T, EmbeddingError>;
