//! Topic clustering of documents given as token lists (`collection.md` §5.4): a dictionary
//! as gensim's `filter_extremes` keeps it, count or tf-idf vectors (sparse rows of `f32`),
//! an optional LSI projection by a seeded truncated SVD, k-means (k-means++ initialisation,
//! restarts) and mini-batch k-means, the silhouette that estimates the number of clusters,
//! and a cluster's mean pairwise cosine similarity.
//!
//! Everything is deterministic for a seed; the heavy loops run on rayon over fixed chunks
//! whose partial results are combined in order, so the figures do not depend on threads.

pub mod dictionary;
pub mod kmeans;
pub mod matrix;
pub mod measures;
pub mod svd;
pub mod vectorize;

pub use dictionary::Dictionary;
pub use kmeans::{cluster, Algorithm, Clustering};
pub use matrix::Rows;
pub use measures::{estimate_k, mean_similarity, silhouette};
pub use vectorize::{Model, Weighting};

/// Fewest rows a rayon task takes in the per-row parallel maps.
pub(crate) const CHUNK: usize = 256;
