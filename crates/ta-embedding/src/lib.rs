//! Word embeddings: the gensim-3-compatible bigram phraser, word2vec CBOW training with
//! negative sampling, nearest-neighbour queries, `phrase_text`, and the model file format.
//!
//! The module takes already tokenised sentences (the text processor is elsewhere) from a
//! source that can be replayed: it is read twice, once to count phrases and once to phrase
//! sentences and keep them as word ids for the training epochs. Memory while training:
//! the phrase count table (one entry per distinct token and adjacent pair), 4 bytes per
//! corpus token and 12 per sentence for the id corpus, and two `vocab × dims` f32 matrices.
//!
//! ```text
//! let settings = Settings { num_dimensions: 100, min_freq: 5, ..Settings::default() };
//! let embedding = train(&settings, 1, || sentences.iter().cloned(), &mut |_progress| true)?;
//! embedding.most_similar(&["new york"], &[], 10);   // [Similar { phrase, score }]
//! embedding.phrase_text("I love New York");          // "i love new_york"
//! let bytes = embedding.to_bytes();                  // Embedding::from_bytes(&bytes)?
//! ```

mod cbow;
mod checksum;
mod error;
mod format;
#[cfg(test)]
mod gensim_tests;
mod hogwild;
mod linalg;
mod model;
mod phraser;
mod rng;
mod sampling;
mod settings;
mod similar;
mod training;
mod vocab;

pub use error::{EmbeddingError, Result};
pub use model::Embedding;
pub use phraser::{Bigram, PhraseCounter, Phraser, PhraserSettings};
pub use settings::{Settings, MAX_DIMENSIONS, MAX_WEIGHT_BYTES};
pub use similar::Similar;
pub use training::{train, Progress, Step, MAX_WORKERS};
pub use vocab::Vocabulary;
