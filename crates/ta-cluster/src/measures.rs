//! Figures about clusters: the mean cosine silhouette and the number of clusters it picks
//! (`collection.md` §5.4 rule 6) and a cluster's mean pairwise cosine similarity (rule 8).
use crate::kmeans::{cluster, Algorithm};
use crate::matrix::Rows;
use rand::rngs::Xoshiro256PlusPlus;
use rand::SeedableRng;
use rayon::prelude::*;

/// Most documents the silhouette is computed on.
const SILHOUETTE_SAMPLE: usize = 2000;
/// Most clusters the estimate tries.
const MAX_ESTIMATE: usize = 30;

/// The mean of the full pairwise cosine-similarity matrix of the rows `members` (diagonal
/// included; a zero row has similarity 0 with everything): ‖Σ x̂‖² / n². 0 for none.
pub fn mean_similarity(x: &Rows, members: &[usize]) -> f64 {
    if members.is_empty() {
        return 0.0;
    }
    let mut sum = vec![0.0; x.dim()];
    for &r in members {
        let norm = x.norm2(r).sqrt();
        if norm > 0.0 {
            x.add_to(r, 1.0 / norm, &mut sum);
        }
    }
    sum.iter().map(|v| v * v).sum::<f64>() / (members.len() as f64).powi(2)
}

/// Cosine distances between all rows (row-major, `f32`).
fn cosine_distances(x: &Rows) -> Vec<f32> {
    let unit = x.normalized();
    let n = unit.len();
    (0..n)
        .into_par_iter()
        .flat_map_iter(|i| {
            let unit = &unit;
            (0..n).map(move |j| (1.0 - unit.dot_rows(i, unit, j)) as f32)
        })
        .collect()
}

/// The mean silhouette of `labels` (0..k) under the distances `dist` (n × n); a point alone
/// in its cluster scores 0.
fn mean_silhouette(dist: &[f32], labels: &[usize], k: usize) -> f64 {
    let n = labels.len();
    let mut sizes = vec![0usize; k];
    labels.iter().for_each(|&l| sizes[l] += 1);
    let scores: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|i| {
            if sizes[labels[i]] <= 1 {
                return 0.0;
            }
            let mut sums = vec![0.0f64; k];
            for j in 0..n {
                sums[labels[j]] += f64::from(dist[i * n + j]);
            }
            let a = sums[labels[i]] / (sizes[labels[i]] - 1) as f64;
            let b = (0..k)
                .filter(|&c| c != labels[i] && sizes[c] > 0)
                .map(|c| sums[c] / sizes[c] as f64)
                .fold(f64::INFINITY, f64::min);
            if !b.is_finite() || a.max(b) == 0.0 {
                0.0
            } else {
                (b - a) / a.max(b)
            }
        })
        .collect();
    scores.iter().sum::<f64>() / n as f64
}

/// The mean cosine silhouette of `labels` over the rows of `x`.
pub fn silhouette(x: &Rows, labels: &[usize]) -> f64 {
    let k = labels.iter().max().map_or(0, |m| m + 1);
    mean_silhouette(&cosine_distances(x), labels, k)
}

/// The number of clusters with the highest mean cosine silhouette among 2..=min(30, n / 5),
/// each clustering done on a seeded sample of at most 2000 rows; 1 when the range is empty.
pub fn estimate_k(x: &Rows, algorithm: Algorithm, seed: u64) -> usize {
    let n = x.len();
    let most = MAX_ESTIMATE.min(n / 5);
    if most < 2 {
        return 1;
    }
    let picked: Vec<usize> = if n > SILHOUETTE_SAMPLE {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut p = rand::seq::index::sample(&mut rng, n, SILHOUETTE_SAMPLE).into_vec();
        p.sort_unstable();
        p
    } else {
        (0..n).collect()
    };
    let sample = x.select(&picked);
    let dist = cosine_distances(&sample);
    let mut best = (2, f64::NEG_INFINITY);
    for k in 2..=most.min(sample.len()) {
        let labels = cluster(&sample, k, algorithm, seed).labels;
        let score = mean_silhouette(&dist, &labels, k);
        if score > best.1 {
            best = (k, score);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarity_is_the_mean_of_the_cosine_matrix() {
        let x = Rows::from_dense(2, [vec![1.0, 0.0], vec![0.0, 3.0], vec![2.0, 0.0], vec![0.0, 0.0]]);
        assert!((mean_similarity(&x, &[0, 2]) - 1.0).abs() < 1e-12);
        // [[1, 0], [0, 1]] → 0.5
        assert!((mean_similarity(&x, &[0, 1]) - 0.5).abs() < 1e-12);
        // A zero row: [[1, 0], [0, 0]] → 0.25
        assert!((mean_similarity(&x, &[0, 3]) - 0.25).abs() < 1e-12);
        assert_eq!(mean_similarity(&x, &[]), 0.0);
    }

    #[test]
    fn silhouette_and_the_estimated_number_of_clusters() {
        // Three directions, five points each.
        let rows: Vec<Vec<f32>> = (0..15)
            .map(|i| {
                let mut v = vec![0.05 * (i % 5) as f32; 3];
                v[i / 5] = 1.0;
                v
            })
            .collect();
        let x = Rows::from_dense(3, rows);
        let labels: Vec<usize> = (0..15).map(|i| i / 5).collect();
        assert!(silhouette(&x, &labels) > 0.9);
        let mixed: Vec<usize> = (0..15).map(|i| i % 3).collect();
        assert!(silhouette(&x, &mixed) < 0.0);
        // n / 5 = 3: k tried in 2..=3.
        assert_eq!(estimate_k(&x, Algorithm::KMeans, 10), 3);
        assert_eq!(
            estimate_k(&Rows::from_dense(3, vec![vec![1.0, 0.0, 0.0]; 9]), Algorithm::KMeans, 10),
            1
        );
    }
}
