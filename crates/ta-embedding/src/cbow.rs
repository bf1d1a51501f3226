//! word2vec CBOW with negative sampling (gensim's `train_batch_cbow` with `cbow_mean=1`):
//! down-sampling, per-word reduced windows, the linear learning-rate decay over all words
//! of all epochs, and the worker loop, single-threaded or Hogwild over sentence ranges.

use super::hogwild::SharedRows;
use super::linalg;
use super::rng::Lcg;
use super::sampling;
use super::settings::Settings;
use super::vocab::EncodedCorpus;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

const EXP_TABLE_SIZE: usize = 1000;
const MAX_EXP: f32 = 6.0;
/// Words a worker trains between updates of the shared word counter (and progress ticks).
const TICK_WORDS: u64 = 10_000;

/// The sampled sigmoid of word2vec: entry i = σ((i / 1000 · 2 − 1) · 6).
fn exp_table() -> Vec<f32> {
    (0..EXP_TABLE_SIZE)
        .map(|i| {
            let e = ((i as f64 / EXP_TABLE_SIZE as f64 * 2.0 - 1.0) * f64::from(MAX_EXP)).exp();
            (e / (e + 1.0)) as f32
        })
        .collect()
}

/// Everything a worker needs, shared read-only.
pub(super) struct Cbow<'a> {
    settings: &'a Settings,
    corpus: &'a EncodedCorpus,
    noise: sampling::NoiseTable,
    keep: Option<Vec<u32>>,
    exp_table: Vec<f32>,
    total_words: f64,
}

/// Per-worker scratch buffers.
struct Scratch {
    kept: Vec<u32>,
    neu1: Vec<f32>,
    work: Vec<f32>,
}

impl<'a> Cbow<'a> {
    pub(super) fn new(settings: &'a Settings, counts: &[u64], corpus: &'a EncodedCorpus) -> Self {
        Cbow {
            settings,
            corpus,
            noise: sampling::NoiseTable::new(counts, settings.ns_exponent),
            keep: sampling::keep_thresholds(counts, settings.sample),
            exp_table: exp_table(),
            total_words: (corpus.raw_words() as f64 * settings.epochs as f64).max(1.0),
        }
    }

    /// Words (as the learning-rate schedule counts them) in the whole training run.
    pub(super) fn total_words(&self) -> f64 {
        self.total_words
    }

    fn alpha(&self, done: u64) -> f32 {
        let (start, end) = (f64::from(self.settings.alpha), f64::from(self.settings.min_alpha));
        (start - (start - end) * done as f64 / self.total_words).max(end) as f32
    }

    /// Splits the sentences into `parts` contiguous ranges of about equal word counts.
    pub(super) fn partition(&self, parts: usize) -> Vec<Range<usize>> {
        let total = self.corpus.ids.len().max(1);
        let mut ranges = Vec::with_capacity(parts);
        let mut start = 0;
        for part in 1..=parts {
            let goal = total * part / parts;
            let end = if part == parts {
                self.corpus.sentences()
            } else {
                self.corpus.ends.partition_point(|&e| e <= goal)
            };
            ranges.push(start..end.max(start));
            start = end.max(start);
        }
        ranges
    }

    /// Trains on `sentences` for every epoch. `done` counts words trained by all workers;
    /// `tick(done)` is called every few thousand words and stops the worker when false.
    /// Returns false when stopped. Uses AVX2 where the CPU has it (the same arithmetic in
    /// wider registers: results are identical).
    pub(super) fn run(
        &self,
        syn0: &SharedRows,
        syn1: &SharedRows,
        sentences: Range<usize>,
        seed: u64,
        done: &AtomicU64,
        tick: &mut dyn FnMut(u64) -> bool,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { self.run_avx2(syn0, syn1, sentences, seed, done, tick) };
        }
        self.run_portable(syn0, syn1, sentences, seed, done, tick)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_avx2(
        &self,
        syn0: &SharedRows,
        syn1: &SharedRows,
        sentences: Range<usize>,
        seed: u64,
        done: &AtomicU64,
        tick: &mut dyn FnMut(u64) -> bool,
    ) -> bool {
        self.run_portable(syn0, syn1, sentences, seed, done, tick)
    }

    #[inline(always)]
    fn run_portable(
        &self,
        syn0: &SharedRows,
        syn1: &SharedRows,
        sentences: Range<usize>,
        seed: u64,
        done: &AtomicU64,
        tick: &mut dyn FnMut(u64) -> bool,
    ) -> bool {
        let dims = self.settings.num_dimensions;
        let mut rng = Lcg::new(seed);
        let mut scratch = Scratch {
            kept: Vec::new(),
            neu1: vec![0.0; dims],
            work: vec![0.0; dims],
        };
        let mut local = 0;
        for _ in 0..self.settings.epochs {
            for s in sentences.clone() {
                let alpha = self.alpha(done.load(Ordering::Relaxed) + local);
                self.train_sentence(syn0, syn1, self.corpus.sentence(s), alpha, &mut rng, &mut scratch);
                local += u64::from(self.corpus.raw_lens[s]);
                if local >= TICK_WORDS {
                    let now = done.fetch_add(local, Ordering::Relaxed) + local;
                    local = 0;
                    if !tick(now) {
                        return false;
                    }
                }
            }
        }
        done.fetch_add(local, Ordering::Relaxed);
        true
    }

    #[inline(always)]
    fn train_sentence(&self, syn0: &SharedRows, syn1: &SharedRows, sentence: &[u32], alpha: f32, rng: &mut Lcg, scratch: &mut Scratch) {
        let mut kept = std::mem::take(&mut scratch.kept);
        kept.clear();
        for &word in sentence {
            if let Some(keep) = &self.keep {
                if u64::from(keep[word as usize]) < rng.next() {
                    continue;
                }
            }
            kept.push(word);
            if kept.len() == self.settings.max_sentence_len {
                break;
            }
        }
        let window = self.settings.window;
        for i in 0..kept.len() {
            let reduced = (rng.next() % window as u64) as usize;
            let context = i.saturating_sub(window - reduced)..(i + window + 1 - reduced).min(kept.len());
            scratch.neu1.fill(0.0);
            for m in context.clone().filter(|&m| m != i) {
                syn0.add_row_to(kept[m], 1.0, &mut scratch.neu1);
            }
            let count = context.len() - 1;
            if count == 0 {
                continue;
            }
            linalg::scale(1.0 / count as f32, &mut scratch.neu1);
            scratch.work.fill(0.0);
            self.negative_sampling(syn1, kept[i], alpha, rng, scratch);
            for m in context.filter(|&m| m != i) {
                syn0.add_to_row(kept[m], 1.0, &scratch.work);
            }
        }
        scratch.kept = kept;
    }

    /// One positive and `negative` noise targets: updates their output vectors and
    /// accumulates the error for the context words in `work`.
    #[inline(always)]
    fn negative_sampling(&self, syn1: &SharedRows, word: u32, alpha: f32, rng: &mut Lcg, scratch: &mut Scratch) {
        let Scratch { neu1, work, .. } = scratch;
        for d in 0..=self.settings.negative {
            let (target, label) = if d == 0 {
                (word, 1.0)
            } else {
                let target = self.noise.draw(rng.next());
                if target == word {
                    continue;
                }
                (target, 0.0)
            };
            let f_dot = syn1.dot(target, neu1);
            if f_dot <= -MAX_EXP || f_dot >= MAX_EXP {
                continue;
            }
            let index = ((f_dot + MAX_EXP) * (EXP_TABLE_SIZE as f32 / MAX_EXP / 2.0)) as usize;
            let f = self.exp_table[index.min(EXP_TABLE_SIZE - 1)];
            let g = (label - f) * alpha;
            syn1.add_row_to(target, g, work);
            syn1.add_to_row(target, g, neu1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::VocabularyBuilder;

    #[test]
    fn exp_table_is_the_sigmoid() {
        let table = exp_table();
        assert!((table[500] - 0.5).abs() < 1e-6);
        assert!(table[0] < 0.0025 && table[999] > 0.997);
    }

    fn corpus(sentences: usize) -> (Vec<u64>, EncodedCorpus) {
        let mut builder = VocabularyBuilder::default();
        for s in 0..sentences {
            builder.add_sentence((0..10).map(|w| format!("w{}", (s + w) % 7)).collect());
        }
        let (vocabulary, corpus) = builder.finish(1);
        (vocabulary.counts, corpus)
    }

    #[test]
    fn learning_rate_decays_linearly_to_the_floor() {
        let (counts, corpus) = corpus(10);
        let settings = Settings::default();
        let cbow = Cbow::new(&settings, &counts, &corpus);
        assert_eq!(cbow.total_words(), 500.0);
        assert_eq!(cbow.alpha(0), 0.025);
        assert!((cbow.alpha(250) - 0.01255).abs() < 1e-7);
        assert!((cbow.alpha(500) - 0.0001).abs() < 1e-9);
        assert!((cbow.alpha(900) - 0.0001).abs() < 1e-9);
    }

    #[test]
    fn partitions_cover_all_sentences() {
        let (counts, corpus) = corpus(9);
        let settings = Settings::default();
        let cbow = Cbow::new(&settings, &counts, &corpus);
        let whole = 0..9;
        assert_eq!(cbow.partition(1), [whole]);
        assert_eq!(cbow.partition(3), [0..3, 3..6, 6..9]);
        assert_eq!(cbow.partition(20).iter().map(|r| r.len()).sum::<usize>(), 9);
    }
}
