//! Training an embedding from a replayable sentence source: pass 1 counts phrases, pass 2
//! phrases the sentences, counts the vocabulary and keeps the corpus as word ids, then
//! CBOW trains on those ids for every epoch (one thread, or Hogwild workers).

use super::cbow::Cbow;
use super::error::{EmbeddingError, Result};
use super::hogwild::SharedRows;
use super::model::Embedding;
use super::phraser::PhraseCounter;
use super::rng::seeded_vector;
use super::settings::Settings;
use super::vocab::{EncodedCorpus, Vocabulary, VocabularyBuilder};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Sentences read between two progress reports in the corpus passes.
const REPORT_SENTENCES: u64 = 10_000;

/// The stage training is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Pass 1: counting words and word pairs.
    BuildingPhraser,
    /// Pass 2: phrasing sentences and counting the vocabulary.
    BuildingVocabulary,
    /// word2vec epochs over the kept corpus.
    Training,
}

/// A progress report: `sentences` read so far in a corpus pass, `fraction` (0 to 1) of the
/// training step done.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub step: Step,
    pub sentences: u64,
    pub fraction: f64,
}

/// The most training threads accepted.
pub const MAX_WORKERS: usize = 64;

/// Trains an embedding (phraser and word2vec vectors). `corpus` is called twice and must
/// give the same tokenised sentences each time. `progress` is called now and then; when it
/// returns false, training stops with [`EmbeddingError::Cancelled`]. With one worker the
/// result depends only on the corpus and the settings; more workers train Hogwild style
/// (lock-free, faster, not reproducible bit for bit).
pub fn train<F, I>(settings: &Settings, workers: usize, mut corpus: F, progress: &mut dyn FnMut(Progress) -> bool) -> Result<Embedding>
where
    F: FnMut() -> I,
    I: IntoIterator<Item = Vec<String>>,
{
    settings.validate()?;
    if !(1..=MAX_WORKERS).contains(&workers) {
        return Err(EmbeddingError::InvalidSetting(format!(
            "workers must be between 1 and {MAX_WORKERS}, got {workers}"
        )));
    }
    let mut counter = PhraseCounter::new(settings.phraser.clone());
    let mut tokens = 0;
    read(corpus(), Step::BuildingPhraser, progress, |sentence| {
        tokens += sentence.len();
        counter.add_sentence(&sentence);
    })?;
    if tokens == 0 {
        return Err(EmbeddingError::EmptyCorpus);
    }
    let phraser = counter.finish();
    let mut builder = VocabularyBuilder::default();
    read(corpus(), Step::BuildingVocabulary, progress, |sentence| {
        builder.add_sentence(phraser.phrase(sentence))
    })?;
    let (vocabulary, encoded) = builder.finish(settings.min_freq);
    if vocabulary.words.is_empty() {
        return Err(EmbeddingError::EmptyVocabulary {
            min_freq: settings.min_freq,
        });
    }
    settings.check_size(vocabulary.words.len())?;
    let vectors = train_vectors(settings, workers, &vocabulary, &encoded, progress)?;
    Embedding::new(settings.clone(), vocabulary, vectors, phraser)
}

fn read<I: IntoIterator<Item = Vec<String>>>(
    sentences: I,
    step: Step,
    progress: &mut dyn FnMut(Progress) -> bool,
    mut each: impl FnMut(Vec<String>),
) -> Result<()> {
    let mut read = 0;
    for sentence in sentences {
        each(sentence);
        read += 1;
        if read % REPORT_SENTENCES == 0
            && !progress(Progress {
                step,
                sentences: read,
                fraction: 0.0,
            })
        {
            return Err(EmbeddingError::Cancelled);
        }
    }
    Ok(())
}

/// A zero-filled vector, or an error instead of an abort when memory runs out.
fn zeros(len: usize) -> Result<Vec<f32>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| EmbeddingError::OutOfMemory { bytes: len as u128 * 4 })?;
    v.resize(len, 0.0);
    Ok(v)
}

fn train_vectors(
    settings: &Settings,
    workers: usize,
    vocabulary: &Vocabulary,
    corpus: &EncodedCorpus,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<Vec<f32>> {
    let dims = settings.num_dimensions;
    let mut syn0 = zeros(vocabulary.words.len() * dims)?;
    for (word, row) in vocabulary.words.iter().zip(syn0.chunks_exact_mut(dims)) {
        seeded_vector(word, settings.seed, row);
    }
    let mut syn1 = zeros(vocabulary.words.len() * dims)?;
    let cbow = Cbow::new(settings, &vocabulary.counts, corpus);
    let total = cbow.total_words();
    let report = |done: u64| Progress {
        step: Step::Training,
        sentences: corpus.sentences() as u64,
        fraction: done as f64 / total,
    };
    let done = AtomicU64::new(0);
    let (input, output) = (SharedRows::new(&mut syn0, dims), SharedRows::new(&mut syn1, dims));
    let finished = if workers == 1 {
        cbow.run(&input, &output, 0..corpus.sentences(), settings.seed, &done, &mut |now| {
            progress(report(now))
        })
    } else {
        let cancel = AtomicBool::new(false);
        std::thread::scope(|scope| -> Result<()> {
            let mut handles = Vec::with_capacity(workers);
            let mut spawn_error = None;
            for (worker, sentences) in cbow.partition(workers).into_iter().enumerate() {
                let (cbow, input, output, done, cancel) = (&cbow, &input, &output, &done, &cancel);
                let seed = settings.seed.wrapping_add((worker as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let spawned = std::thread::Builder::new()
                    .name(format!("word2vec-{worker}"))
                    .spawn_scoped(scope, move || {
                        cbow.run(input, output, sentences, seed, done, &mut |_| !cancel.load(Ordering::Relaxed))
                    });
                match spawned {
                    Ok(handle) => handles.push(handle),
                    Err(error) => {
                        cancel.store(true, Ordering::Relaxed);
                        spawn_error = Some(error);
                        break;
                    }
                }
            }
            loop {
                if !cancel.load(Ordering::Relaxed) && !progress(report(done.load(Ordering::Relaxed))) {
                    cancel.store(true, Ordering::Relaxed);
                }
                if handles.iter().all(|handle| handle.is_finished()) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            spawn_error.map_or(Ok(()), |error| Err(error.into()))
        })?;
        !cancel.load(Ordering::Relaxed)
    };
    if !finished {
        return Err(EmbeddingError::Cancelled);
    }
    progress(report(total as u64));
    Ok(syn0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A synthetic corpus: two topics whose words co-occur, plus the phrase "new york"
    /// (which scores above 10 thanks to the unique first token of every sentence).
    fn corpus() -> Vec<Vec<String>> {
        let topics = [
            ["cat", "dog", "pet", "fur", "paw", "tail"],
            ["car", "road", "wheel", "fuel", "drive", "lane"],
        ];
        let mut state = 7u64;
        let mut sentences = Vec::new();
        for s in 0..400 {
            let topic = &topics[s % 2];
            let mut sentence = vec![format!("id{s}")];
            sentence.extend((0..12).map(|_| {
                state = crate::rng::splitmix64(state);
                topic[(state % 6) as usize].to_owned()
            }));
            if s % 10 == 0 {
                sentence.extend(["new".to_owned(), "york".to_owned()]);
            }
            sentences.push(sentence);
        }
        sentences
    }

    fn train_on(sentences: &[Vec<String>], settings: &Settings) -> Result<Embedding> {
        train(settings, 1, || sentences.iter().cloned(), &mut |_| true)
    }

    fn small() -> Settings {
        Settings {
            num_dimensions: 16,
            epochs: 10,
            ..Settings::default()
        }
    }

    #[test]
    fn single_threaded_training_is_reproducible_to_the_byte() {
        let sentences = corpus();
        let first = train_on(&sentences, &small()).unwrap();
        let second = train_on(&sentences, &small()).unwrap();
        assert_eq!(first.to_bytes(), second.to_bytes());
        let other_seed = train_on(&sentences, &Settings { seed: 2, ..small() }).unwrap();
        assert_ne!(first.vectors(), other_seed.vectors());
    }

    #[test]
    fn learns_topics_and_phrases() {
        let embedding = train_on(&corpus(), &small()).unwrap();
        assert_eq!(embedding.vocab_size(), 13);
        assert!(embedding.words().contains(&"new_york".to_owned()));
        assert_eq!(embedding.phrase_text("I love New York"), "i love new_york");
        let similar = embedding.most_similar(&["cat"], &[], 5);
        let pets = ["dog", "pet", "fur", "paw", "tail"];
        assert!(
            similar.iter().filter(|s| pets.contains(&s.phrase.as_str())).count() >= 4,
            "{similar:?}"
        );
    }

    #[test]
    fn hogwild_training_runs_and_learns() {
        let sentences = corpus();
        let embedding = train(&small(), 2, || sentences.iter().cloned(), &mut |_| true).unwrap();
        assert_eq!(embedding.vocab_size(), 13);
        assert!(embedding.vectors().iter().all(|v| v.is_finite()));
        let similar = embedding.most_similar(&["car"], &[], 5);
        let cars = ["road", "wheel", "fuel", "drive", "lane"];
        assert!(
            similar.iter().filter(|s| cars.contains(&s.phrase.as_str())).count() >= 4,
            "{similar:?}"
        );
        let none = train(&small(), 0, || sentences.iter().cloned(), &mut |_| true);
        assert!(matches!(none, Err(EmbeddingError::InvalidSetting(_))));
    }

    #[test]
    fn reports_progress_and_can_be_cancelled() {
        let sentences: Vec<Vec<String>> = corpus().into_iter().cycle().take(20_000).collect();
        let mut reports = Vec::new();
        let settings = Settings { epochs: 1, ..small() };
        train(&settings, 1, || sentences.iter().cloned(), &mut |p| {
            reports.push(p);
            true
        })
        .unwrap();
        assert!(reports.iter().any(|p| p.step == Step::BuildingPhraser && p.sentences == 10_000));
        assert!(reports.iter().any(|p| p.step == Step::BuildingVocabulary));
        assert_eq!(reports.last().map(|p| (p.step, p.fraction)), Some((Step::Training, 1.0)));
        let fractions: Vec<f64> = reports.iter().filter(|p| p.step == Step::Training).map(|p| p.fraction).collect();
        assert!(fractions.windows(2).all(|w| w[0] <= w[1]));
        for workers in [1, 2] {
            let result = train(&settings, workers, || sentences.iter().cloned(), &mut |p| p.step != Step::Training);
            assert!(matches!(result, Err(EmbeddingError::Cancelled)));
        }
        let result = train(&settings, 1, || sentences.iter().cloned(), &mut |p| {
            p.step != Step::BuildingVocabulary
        });
        assert!(matches!(result, Err(EmbeddingError::Cancelled)));
    }

    #[test]
    fn clear_errors_for_bad_input() {
        let empty: Vec<Vec<String>> = vec![Vec::new(), Vec::new()];
        assert!(matches!(train_on(&empty, &small()), Err(EmbeddingError::EmptyCorpus)));
        let rare = vec![vec!["a".to_owned(), "b".to_owned()]];
        assert!(matches!(
            train_on(&rare, &small()),
            Err(EmbeddingError::EmptyVocabulary { min_freq: 5 })
        ));
        let huge = Settings {
            num_dimensions: 100_000,
            ..small()
        };
        assert!(matches!(train_on(&corpus(), &huge), Err(EmbeddingError::InvalidSetting(_))));
    }

    #[test]
    fn truncates_long_sentences() {
        let long = vec![(0..50).map(|i| format!("w{}", i % 5)).collect::<Vec<_>>(); 3];
        let settings = Settings {
            max_sentence_len: 7,
            sample: 0.0,
            ..small()
        };
        let embedding = train_on(&long, &settings).unwrap();
        assert_eq!(embedding.vocab_size(), 5);
    }
}
