//! k-means on sparse rows with Euclidean distance (`collection.md` §5.4 rule 5), after
//! scikit-learn 0.22's defaults:
//! - `KMeans`: k-means++ initialisation (2 + ⌊ln k⌋ candidates per centre), 10 restarts
//!   keeping the lowest inertia, at most 300 Lloyd iterations, stopping when the centres
//!   move less (in total squared distance) than 1e-4 × the mean variance of the features;
//!   an empty cluster takes the point farthest from its centre.
//! - `MiniBatchKMeans`: batches of 100 drawn with replacement, 3 initialisations on 300
//!   points judged on another 300, per-centre learning rates 1 / count, at most
//!   100 · n / 100 steps, stopping after 10 steps without a better smoothed inertia. (The
//!   random reassignment of rarely chosen centres is not done.)
//!
//! Centres are dense (`k × dim` `f64`); a point's distance to them is computed from its
//! stored entries only. Seeded: the same rows, k and seed give the same labels.
use crate::matrix::{reduce, Rows};
use crate::CHUNK;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The clustering algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Algorithm {
    KMeans,
    MiniBatchKMeans,
}

const RESTARTS: usize = 10;
const MAX_ITERATIONS: usize = 300;
const TOLERANCE: f64 = 1e-4;
const BATCH: usize = 100;
const MINIBATCH_INITS: usize = 3;
const MINIBATCH_MAX_ITERATIONS: usize = 100;
const NO_IMPROVEMENT: usize = 10;

/// The outcome: a label per row, the centres (`k × dim`), the sum of squared distances.
#[derive(Clone, Debug, PartialEq)]
pub struct Clustering {
    pub labels: Vec<usize>,
    pub centers: Vec<f64>,
    pub inertia: f64,
}

/// Clusters `x` into `k` clusters (1 ≤ k ≤ rows).
pub fn cluster(x: &Rows, k: usize, algorithm: Algorithm, seed: u64) -> Clustering {
    assert!(k >= 1 && k <= x.len(), "k must be between 1 and the number of rows");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let norms: Vec<f64> = (0..x.len()).map(|r| x.norm2(r)).collect();
    match algorithm {
        Algorithm::KMeans => {
            let tol = TOLERANCE * mean_variance(x);
            let seeds: Vec<u64> = (0..RESTARTS).map(|_| rng.random()).collect();
            let mut best: Option<Clustering> = None;
            for s in seeds {
                let mut run_rng = Xoshiro256PlusPlus::seed_from_u64(s);
                let all: Vec<usize> = (0..x.len()).collect();
                let centers = kmeans_plus_plus(x, &norms, &all, k, &mut run_rng);
                let c = lloyd(x, &norms, centers, k, tol);
                if best.as_ref().is_none_or(|b| c.inertia < b.inertia) {
                    best = Some(c);
                }
            }
            best.expect("at least one restart")
        }
        Algorithm::MiniBatchKMeans => minibatch(x, &norms, k, &mut rng),
    }
}

/// The mean over columns of each column's variance.
fn mean_variance(x: &Rows) -> f64 {
    let (n, d) = (x.len() as f64, x.dim());
    if d == 0 {
        return 0.0;
    }
    let (mut sum, mut sq) = (vec![0.0; d], vec![0.0; d]);
    for r in 0..x.len() {
        let (cols, vals) = x.row(r);
        for (&c, &v) in cols.iter().zip(vals) {
            sum[c as usize] += f64::from(v);
            sq[c as usize] += f64::from(v) * f64::from(v);
        }
    }
    sum.iter().zip(&sq).map(|(s, q)| q / n - (s / n).powi(2)).sum::<f64>() / d as f64
}

/// Squared norms of the `k` centres.
fn center_norms(centers: &[f64], k: usize) -> Vec<f64> {
    centers.chunks(centers.len() / k).map(|c| c.iter().map(|v| v * v).sum()).collect()
}

/// The nearest centre of each of `rows` and the squared distance to it.
fn assign(x: &Rows, norms: &[f64], rows: &[usize], centers: &[f64], k: usize) -> Vec<(usize, f64)> {
    let d = centers.len() / k;
    let cn = center_norms(centers, k);
    rows.par_iter()
        .with_min_len(CHUNK)
        .map(|&r| {
            let mut best = (0, f64::INFINITY);
            for (j, c) in centers.chunks(d).enumerate() {
                let dist = (norms[r] - 2.0 * x.dot(r, c) + cn[j]).max(0.0);
                if dist < best.1 {
                    best = (j, dist);
                }
            }
            best
        })
        .collect()
}

/// k-means++ over the points `among` (indices into `x`).
fn kmeans_plus_plus(x: &Rows, norms: &[f64], among: &[usize], k: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<f64> {
    let d = x.dim();
    let trials = 2 + (k as f64).ln() as usize;
    let dense = |r: usize| {
        let mut c = vec![0.0; d];
        x.add_to(r, 1.0, &mut c);
        c
    };
    let distances_to = |c: &[f64]| -> Vec<f64> {
        let cn: f64 = c.iter().map(|v| v * v).sum();
        among
            .par_iter()
            .with_min_len(CHUNK)
            .map(|&r| (norms[r] - 2.0 * x.dot(r, c) + cn).max(0.0))
            .collect()
    };
    let first = among[rng.random_range(0..among.len())];
    let mut centers = dense(first);
    let mut closest = distances_to(&centers[..]);
    let mut potential: f64 = closest.iter().sum();
    for _ in 1..k {
        let mut cumulative = Vec::with_capacity(closest.len());
        let mut acc = 0.0;
        for v in &closest {
            acc += v;
            cumulative.push(acc);
        }
        let mut best: Option<(f64, Vec<f64>, Vec<f64>)> = None;
        for _ in 0..trials {
            let target = rng.random::<f64>() * potential;
            let pick = cumulative.partition_point(|&c| c < target).min(among.len() - 1);
            let candidate = dense(among[pick]);
            let dist: Vec<f64> = distances_to(&candidate).into_iter().zip(&closest).map(|(a, &b)| a.min(b)).collect();
            let pot: f64 = dist.iter().sum();
            if best.as_ref().is_none_or(|b| pot < b.0) {
                best = Some((pot, candidate, dist));
            }
        }
        let (pot, candidate, dist) = best.expect("at least one trial");
        potential = pot;
        closest = dist;
        centers.extend(candidate);
    }
    centers
}

/// Sums of the points per label (`k × dim`) and their counts.
fn sums(x: &Rows, rows: &[usize], labels: &[usize], k: usize) -> (Vec<f64>, Vec<usize>) {
    let d = x.dim();
    let mut acc = reduce(rows.len(), k * d + k, &|i, acc| {
        let l = labels[i];
        x.add_to(rows[i], 1.0, &mut acc[l * d..(l + 1) * d]);
        acc[k * d + l] += 1.0;
    });
    let counts = acc.split_off(k * d).into_iter().map(|n| n as usize).collect();
    (acc, counts)
}

/// Lloyd iterations from `centers` until they settle (`tol`) or the iterations run out.
fn lloyd(x: &Rows, norms: &[f64], mut centers: Vec<f64>, k: usize, tol: f64) -> Clustering {
    let d = x.dim();
    let all: Vec<usize> = (0..x.len()).collect();
    for _ in 0..MAX_ITERATIONS {
        let assigned = assign(x, norms, &all, &centers, k);
        let labels: Vec<usize> = assigned.iter().map(|a| a.0).collect();
        let (mut next, counts) = sums(x, &all, &labels, k);
        // Empty clusters take the points farthest from their centres.
        let mut far: Vec<usize> = Vec::new();
        if counts.contains(&0) {
            far = all.clone();
            far.sort_by(|&a, &b| assigned[b].1.total_cmp(&assigned[a].1).then(a.cmp(&b)));
        }
        let mut far = far.into_iter();
        for j in 0..k {
            let c = &mut next[j * d..(j + 1) * d];
            if counts[j] == 0 {
                c.iter_mut().for_each(|v| *v = 0.0);
                if let Some(r) = far.next() {
                    x.add_to(r, 1.0, c);
                }
            } else {
                c.iter_mut().for_each(|v| *v /= counts[j] as f64);
            }
        }
        let shift: f64 = next.iter().zip(&centers).map(|(a, b)| (a - b).powi(2)).sum();
        centers = next;
        if shift <= tol {
            break;
        }
    }
    finish(x, norms, centers, k)
}

/// The labels and inertia of the final centres.
fn finish(x: &Rows, norms: &[f64], centers: Vec<f64>, k: usize) -> Clustering {
    let all: Vec<usize> = (0..x.len()).collect();
    let assigned = assign(x, norms, &all, &centers, k);
    Clustering {
        labels: assigned.iter().map(|a| a.0).collect(),
        inertia: assigned.iter().map(|a| a.1).sum(),
        centers,
    }
}

/// One mini-batch step: moves each centre towards its points of `batch` (learning rate
/// 1 / its count); returns the batch's inertia.
fn minibatch_step(x: &Rows, norms: &[f64], batch: &[usize], centers: &mut [f64], counts: &mut [usize], k: usize) -> f64 {
    let d = x.dim();
    let assigned = assign(x, norms, batch, centers, k);
    let labels: Vec<usize> = assigned.iter().map(|a| a.0).collect();
    let (s, n) = sums(x, batch, &labels, k);
    for j in (0..k).filter(|&j| n[j] > 0) {
        let old = counts[j] as f64;
        counts[j] += n[j];
        for (c, add) in centers[j * d..(j + 1) * d].iter_mut().zip(&s[j * d..(j + 1) * d]) {
            *c = (*c * old + add) / counts[j] as f64;
        }
    }
    assigned.iter().map(|a| a.1).sum()
}

fn minibatch(x: &Rows, norms: &[f64], k: usize, rng: &mut Xoshiro256PlusPlus) -> Clustering {
    let n = x.len();
    let init_size = (3 * BATCH).max(3 * k).min(n);
    let sample = |rng: &mut Xoshiro256PlusPlus| -> Vec<usize> { (0..init_size).map(|_| rng.random_range(0..n)).collect() };
    let validation = sample(rng);
    let mut best: Option<(f64, Vec<f64>, Vec<usize>)> = None;
    for _ in 0..MINIBATCH_INITS {
        let mut init = sample(rng);
        init.sort_unstable();
        init.dedup();
        let k_here = k.min(init.len());
        let mut centers = kmeans_plus_plus(x, norms, &init, k_here, rng);
        // A sample with fewer distinct points than k: the rest start at random points.
        while centers.len() < k * x.dim() {
            let mut c = vec![0.0; x.dim()];
            x.add_to(rng.random_range(0..n), 1.0, &mut c);
            centers.extend(c);
        }
        let mut counts = vec![0usize; k];
        minibatch_step(x, norms, &validation, &mut centers, &mut counts, k);
        let inertia: f64 = assign(x, norms, &validation, &centers, k).iter().map(|a| a.1).sum();
        if best.as_ref().is_none_or(|b| inertia < b.0) {
            best = Some((inertia, centers, counts));
        }
    }
    let (_, mut centers, mut counts) = best.expect("at least one initialisation");
    let steps = MINIBATCH_MAX_ITERATIONS * n / BATCH;
    let alpha = (BATCH as f64 * 2.0 / (n as f64 + 1.0)).min(1.0);
    let (mut ewa, mut ewa_min, mut stale) = (None::<f64>, f64::INFINITY, 0);
    for _ in 0..steps.max(1) {
        let batch: Vec<usize> = (0..BATCH.min(n)).map(|_| rng.random_range(0..n)).collect();
        let inertia = minibatch_step(x, norms, &batch, &mut centers, &mut counts, k) / batch.len() as f64;
        let smoothed = ewa.map_or(inertia, |e| e * (1.0 - alpha) + inertia * alpha);
        ewa = Some(smoothed);
        if smoothed < ewa_min {
            (ewa_min, stale) = (smoothed, 0);
        } else {
            stale += 1;
            if stale >= NO_IMPROVEMENT {
                break;
            }
        }
    }
    finish(x, norms, centers, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two blobs around (0, 0) and (10, 10), three points each.
    fn blobs() -> Rows {
        Rows::from_dense(
            2,
            [
                vec![0.1, 0.0],
                vec![10.0, 10.2],
                vec![0.0, 0.2],
                vec![9.9, 10.0],
                vec![0.2, 0.1],
                vec![10.1, 9.8],
            ],
        )
    }

    #[test]
    fn separable_blobs_get_a_cluster_each_with_either_algorithm() {
        for algorithm in [Algorithm::KMeans, Algorithm::MiniBatchKMeans] {
            let c = cluster(&blobs(), 2, algorithm, 10);
            let l = &c.labels;
            assert!(
                l[0] == l[2] && l[2] == l[4] && l[1] == l[3] && l[3] == l[5] && l[0] != l[1],
                "{algorithm:?} {l:?}"
            );
            assert!(c.inertia < 0.2, "{}", c.inertia);
            assert_eq!(c, cluster(&blobs(), 2, algorithm, 10));
        }
    }

    #[test]
    fn as_many_clusters_as_points_and_zero_rows() {
        let c = cluster(&blobs(), 6, Algorithm::KMeans, 10);
        let mut labels = c.labels.clone();
        labels.sort_unstable();
        assert_eq!(labels, [0, 1, 2, 3, 4, 5]);
        assert_eq!(c.inertia, 0.0);
        // Identical (zero) points still get a cluster.
        let zeros = Rows::from_dense(2, [vec![0.0, 0.0], vec![0.0, 0.0], vec![1.0, 0.0]]);
        let c = cluster(&zeros, 2, Algorithm::KMeans, 10);
        assert_eq!(c.labels[0], c.labels[1]);
        assert_ne!(c.labels[0], c.labels[2]);
    }
}
