//! Training: validation of the request, splits, vocabulary, embedding, the SGD loop with the halving schedule and
//! a class-weighted loss, per-epoch validation reports, progress and cancellation, the best validation epoch kept,
//! and the final test evaluation.

use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;

use candle_core::{DType, Device, Tensor, Var};
use candle_nn::{AdamW, Optimizer as _, ParamsAdamW, SGD};
use rayon::prelude::*;

use super::batch::Batch;
use super::error::{NeuralError, Result};
use super::metrics::{Confusion, EpochReport, Scores};
use super::network::{initial_embedding, Architecture, Network, EMBEDDING};
use super::seeded::Seeded;
use super::settings::{Optimizer, TrainSettings, MAX_SIZE, TRAINABLE_DIM};
use super::split::{split, MIN_EXAMPLES};
use super::tagger::{predict, NeuralTagger};
use super::vocab::{tokenize, Vocabulary};
use super::word_vectors::WordVectors;
use super::words::WordTable;

/// What the progress callback hears about.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// A training batch finished (0-based `epoch` and `batch`).
    Batch {
        epoch: usize,
        epochs: usize,
        batch: usize,
        batches: usize,
        loss: f32,
    },
    /// An epoch finished and was evaluated on the validation part.
    Epoch { epochs: usize, report: &'a EpochReport },
}

/// Everything a training run produces.
pub struct TrainOutcome {
    pub tagger: NeuralTagger,
    /// One report per epoch, on the validation part.
    pub epoch_reports: Vec<EpochReport>,
    /// Final scores on the test part.
    pub test_scores: Scores,
    /// Confusion matrix on the test part.
    pub confusion: Confusion,
    /// Sizes of the train, validation and test parts.
    pub split_sizes: [usize; 3],
}

/// Trains a tagger on `examples` (text, class index into `classes`). `progress` is called after every batch and
/// every epoch; returning `ControlFlow::Break` cancels the run with `NeuralError::Cancelled`.
pub fn train(
    examples: &[(&str, usize)],
    classes: &[String],
    settings: &TrainSettings,
    embedding: Option<&dyn WordVectors>,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<TrainOutcome> {
    check_examples(examples, classes)?;
    settings.check()?;
    if let Some(e) = embedding {
        if !(1..=MAX_SIZE).contains(&e.dim()) {
            return Err(NeuralError::InvalidSetting {
                name: "embedding",
                reason: format!("width {} is not between 1 and {MAX_SIZE}", e.dim()),
            });
        }
    }
    let device = Device::cuda_if_available(0)?;
    let device = match (settings.gpu, device.is_cuda()) {
        (true, false) => {
            return Err(NeuralError::GpuUnavailable(
                "no CUDA device (or built without the cuda feature)".into(),
            ))
        }
        (true, true) => device,
        (false, _) => Device::Cpu,
    };
    Run::new(examples, classes, settings, embedding, &device)?.train(progress)
}

fn check_examples(examples: &[(&str, usize)], classes: &[String]) -> Result<()> {
    if classes.len() < 2 {
        return Err(NeuralError::TooFewClasses(classes.len()));
    }
    if examples.is_empty() {
        return Err(NeuralError::NoExamples);
    }
    let mut counts = vec![0usize; classes.len()];
    for (index, &(_, class)) in examples.iter().enumerate() {
        *counts.get_mut(class).ok_or(NeuralError::ClassOutOfRange {
            index,
            class,
            classes: classes.len(),
        })? += 1;
    }
    if let Some(empty) = counts.iter().position(|&c| c == 0) {
        return Err(NeuralError::EmptyClass(classes[empty].clone()));
    }
    if examples.len() < MIN_EXAMPLES {
        return Err(NeuralError::TooFewExamples(examples.len()));
    }
    Ok(())
}

/// State of one training run.
struct Run<'a> {
    settings: &'a TrainSettings,
    classes: &'a [String],
    vocabulary: Vocabulary,
    docs: Vec<Vec<u32>>,
    targets: Vec<u32>,
    parts: [Vec<usize>; 3],
    /// Loss weight of each class: the train part's size over (classes × the class's count in it), so every class
    /// weighs the same in the loss however unbalanced the sample (a model that predicts one class gains nothing).
    class_weights: Vec<f32>,
    rng: Seeded,
    words: WordTable,
    vars: BTreeMap<String, Var>,
    device: Device,
}

impl<'a> Run<'a> {
    fn new(
        examples: &[(&str, usize)],
        classes: &'a [String],
        settings: &'a TrainSettings,
        embedding: Option<&dyn WordVectors>,
        device: &Device,
    ) -> Result<Self> {
        let tokens: Vec<Vec<String>> = examples.par_iter().map(|(text, _)| tokenize(text, settings.max_tokens)).collect();
        let parts = split(examples.len(), settings.seed).ok_or(NeuralError::TooFewExamples(examples.len()))?;
        let vocabulary = Vocabulary::build(parts.train.iter().map(|&i| tokens[i].as_slice()));
        let docs: Vec<Vec<u32>> = tokens.par_iter().map(|t| vocabulary.encode(t)).collect();
        drop(tokens);
        let mut rng = Seeded::new(settings.seed);
        let embed_dim = embedding.map_or(TRAINABLE_DIM, |e| e.dim());
        let initial = settings
            .architecture
            .initial_parameters(embed_dim, classes.len(), &mut rng, DType::F32, device)?;
        let words = match embedding {
            Some(vectors) => {
                let mut matrix = frozen_matrix(&vocabulary, vectors)?;
                if settings.architecture == Architecture::FastText {
                    standardize_means(&mut matrix, vectors.dim(), parts.train.iter().map(|&i| docs[i].as_slice()));
                }
                WordTable::Frozen(Tensor::from_vec(matrix, (vocabulary.len(), vectors.dim()), device)?)
            }
            None => {
                let values = initial_embedding(vocabulary.len(), embed_dim, &mut rng, DType::F32, &Device::Cpu)?;
                WordTable::Trainable {
                    values: values.flatten_all()?.to_vec1()?,
                    width: embed_dim,
                    adam: None,
                }
            }
        };
        let vars = initial
            .into_iter()
            .map(|(name, t)| Ok((name, Var::from_tensor(&t)?)))
            .collect::<Result<_>>()?;
        let targets: Vec<u32> = examples.iter().map(|&(_, c)| c as u32).collect();
        let class_weights = class_weights(parts.train.iter().map(|&i| targets[i] as usize), classes.len());
        Ok(Self {
            settings,
            classes,
            vocabulary,
            docs,
            targets,
            parts: [parts.train, parts.validation, parts.test],
            class_weights,
            rng,
            words,
            vars,
            device: device.clone(),
        })
    }

    /// The current parameters except the embedding; `detached` ones carry no gradient tracking (for evaluation
    /// and the final model).
    fn tensors(&self, detached: bool) -> BTreeMap<String, Tensor> {
        let tensor = |var: &Var| {
            if detached {
                var.as_tensor().detach()
            } else {
                var.as_tensor().clone()
            }
        };
        self.vars.iter().map(|(name, var)| (name.clone(), tensor(var))).collect()
    }

    fn network(&self, detached: bool) -> Result<Network> {
        let tensors: HashMap<String, Tensor> = self.tensors(detached).into_iter().collect();
        Network::new(
            self.settings.architecture,
            self.words.width(),
            self.classes.len(),
            &tensors,
            &self.device,
        )
    }

    fn train(mut self, progress: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Result<TrainOutcome> {
        let settings = self.settings;
        let network = self.network(false)?;
        let mut sgd = Updates::new(settings, self.vars.values().cloned().collect())?;
        let mut order = self.parts[0].clone();
        let batches = order.len().div_ceil(settings.batch_size());
        let mut epoch_reports = Vec::with_capacity(settings.epochs);
        let mut best: Option<(f64, Snapshot)> = None;
        for epoch in 0..settings.epochs {
            let learning_rate = settings.learning_rate_at(epoch);
            sgd.set_learning_rate(learning_rate);
            self.rng.shuffle(&mut order);
            let mut loss_sum = 0.0;
            for (batch, chunk) in order.chunks(settings.batch_size()).enumerate() {
                let loss = self.step(&network, &mut sgd, chunk, learning_rate)?;
                loss_sum += f64::from(loss);
                let event = Progress::Batch {
                    epoch,
                    epochs: settings.epochs,
                    batch,
                    batches,
                    loss,
                };
                if progress(event).is_break() {
                    return Err(NeuralError::Cancelled);
                }
            }
            let (scores, _) = self.evaluate(&self.parts[1], false)?;
            // Ties go to the later epoch (trained longer; small validation parts tie often).
            if best.as_ref().is_none_or(|(f1, _)| scores.f1 >= *f1) {
                best = Some((scores.f1, self.snapshot()?));
            }
            let report = EpochReport {
                epoch,
                scores,
                training_loss: loss_sum / batches as f64,
            };
            epoch_reports.push(report);
            if progress(Progress::Epoch {
                epochs: settings.epochs,
                report: &report,
            })
            .is_break()
            {
                return Err(NeuralError::Cancelled);
            }
        }
        if let Some((_, snapshot)) = best {
            self.restore(snapshot)?;
        }
        let (test_scores, confusion) = self.evaluate(&self.parts[2], true)?;
        let split_sizes = [self.parts[0].len(), self.parts[1].len(), self.parts[2].len()];
        let mut tensors = self.tensors(true);
        tensors.insert(EMBEDDING.to_string(), self.words.tensor(&self.device)?);
        let frozen = matches!(self.words, WordTable::Frozen(_));
        let tagger = NeuralTagger::new(
            settings.architecture,
            self.classes.to_vec(),
            self.vocabulary.clone(),
            settings.max_tokens,
            frozen,
            tensors,
        )?;
        Ok(TrainOutcome {
            tagger,
            epoch_reports,
            test_scores,
            confusion,
            split_sizes,
        })
    }

    /// One update on the examples `chunk`; returns the batch's mean loss.
    fn step(&mut self, network: &Network, sgd: &mut Updates, chunk: &[usize], learning_rate: f64) -> Result<f32> {
        let slices: Vec<&[u32]> = chunk.iter().map(|&i| self.docs[i].as_slice()).collect();
        let batch = Batch::new(&slices, &self.device)?;
        let targets: Vec<u32> = batch.order.iter().map(|&r| self.targets[chunk[r]]).collect();
        let targets = Tensor::from_vec(targets, batch.rows(), &self.device)?;
        let (words, rows) = self.words.lookup(&batch, &self.device)?;
        let log_probs = network.forward(&words, &batch, Some(&mut self.rng))?;
        let weights: Vec<f32> = batch
            .order
            .iter()
            .map(|&r| self.class_weights[self.targets[chunk[r]] as usize])
            .collect();
        let total: f32 = weights.iter().sum();
        let weights = Tensor::from_vec(weights, batch.rows(), &self.device)?.to_dtype(log_probs.dtype())?;
        let picked = log_probs.gather(&targets.unsqueeze(1)?, 1)?.squeeze(1)?;
        let loss = ((picked * weights)?.sum_all()? / f64::from(-total))?;
        let grads = loss.backward()?;
        sgd.step(&grads)?;
        if let Some(rows) = rows {
            self.words.update(&rows, &grads, learning_rate, self.settings.optimizer)?;
        }
        Ok(loss.to_dtype(DType::F32)?.to_scalar::<f32>()?)
    }

    /// A copy of the current parameters and trainable word vectors.
    fn snapshot(&self) -> Result<Snapshot> {
        let vars = self.vars.values().map(|v| Ok(v.as_tensor().copy()?)).collect::<Result<_>>()?;
        Ok(Snapshot {
            vars,
            words: self.words.values(),
        })
    }

    /// Puts back the parameters and word vectors of a snapshot.
    fn restore(&mut self, snapshot: Snapshot) -> Result<()> {
        for (var, value) in self.vars.values().zip(&snapshot.vars) {
            var.set(value)?;
        }
        if let Some(values) = snapshot.words {
            self.words.set_values(values);
        }
        Ok(())
    }

    /// Scores and confusion matrix on the examples `ids` (batched in their order, or sorted by length).
    fn evaluate(&self, ids: &[usize], by_length: bool) -> Result<(Scores, Confusion)> {
        let network = self.network(true)?;
        let docs: Vec<&[u32]> = ids.iter().map(|&i| self.docs[i].as_slice()).collect();
        let predicted = predict(
            &network,
            &self.words.tensor(&self.device)?,
            &docs,
            self.settings.batch_size(),
            by_length,
        )?;
        let confusion = Confusion::new(
            self.classes.len(),
            ids.iter().zip(&predicted).map(|(&i, &(p, _))| (self.targets[i] as usize, p)),
        );
        Ok((confusion.scores(), confusion))
    }
}

/// The parameters of one epoch (the best on the validation part so far).
struct Snapshot {
    /// In the order of `Run::vars`.
    vars: Vec<Tensor>,
    /// Trainable word vectors (none for a frozen table).
    words: Option<Vec<f32>>,
}

/// Loss weight of each of `classes` classes from the classes of the training examples: `n / (classes × count)`,
/// 1 for a class with no example.
fn class_weights(train: impl Iterator<Item = usize>, classes: usize) -> Vec<f32> {
    let mut counts = vec![0usize; classes];
    train.for_each(|c| counts[c] += 1);
    let n: usize = counts.iter().sum();
    counts
        .iter()
        .map(|&c| if c == 0 { 1.0 } else { n as f32 / (classes * c) as f32 })
        .collect()
}

/// The optimizer of the network's parameters.
enum Updates {
    Sgd(SGD),
    Adam(AdamW),
}

impl Updates {
    fn new(settings: &TrainSettings, vars: Vec<Var>) -> Result<Self> {
        Ok(match settings.optimizer {
            Optimizer::Sgd => Updates::Sgd(SGD::new(vars, settings.learning_rate())?),
            Optimizer::Adam => Updates::Adam(AdamW::new(
                vars,
                ParamsAdamW {
                    lr: settings.learning_rate(),
                    weight_decay: 0.0,
                    ..ParamsAdamW::default()
                },
            )?),
        })
    }

    fn set_learning_rate(&mut self, lr: f64) {
        match self {
            Updates::Sgd(o) => o.set_learning_rate(lr),
            Updates::Adam(o) => o.set_learning_rate(lr),
        }
    }

    fn step(&mut self, grads: &candle_core::backprop::GradStore) -> Result<()> {
        match self {
            Updates::Sgd(o) => o.step(grads)?,
            Updates::Adam(o) => o.step(grads)?,
        }
        Ok(())
    }
}

/// The frozen embedding matrix (row-major, `[vocabulary, width]`): the known vector of each vocabulary word, zeros
/// otherwise (`<unk>`, `<pad>` too).
fn frozen_matrix(vocabulary: &Vocabulary, vectors: &dyn WordVectors) -> Result<Vec<f32>> {
    let dim = vectors.dim();
    let mut matrix = vec![0f32; vocabulary.len() * dim];
    let mut known = 0usize;
    for (id, word) in vocabulary.words().iter().enumerate().skip(2) {
        if let Some(v) = vectors.vector(word) {
            known += 1;
            if v.len() != dim {
                return Err(NeuralError::EmbeddingWidth {
                    word: word.clone(),
                    got: v.len(),
                    expected: dim,
                });
            }
            matrix[id * dim..(id + 1) * dim].copy_from_slice(v);
        }
    }
    if known == 0 {
        return Err(NeuralError::NoWordVectors);
    }
    Ok(matrix)
}

/// Centres and scales every row of a frozen matrix (`width` columns) so that the mean vectors of the training
/// documents `docs` have mean 0 and deviation 1 in each column (a column that does not vary is only centred).
/// The mean over a document's tokens is linear, so a document's mean of the new rows is its old mean
/// standardised: for fastText, whose first layer is linear, this is a reparametrisation of that layer (the same
/// functions) under which descent is well conditioned. Raw word2vec means share one large common direction and
/// differ little around it, so the reference's few hundred steps leave the classifier far from its optimum.
fn standardize_means<'d>(matrix: &mut [f32], width: usize, docs: impl Iterator<Item = &'d [u32]>) {
    let (mut sum, mut squares, mut n) = (vec![0f64; width], vec![0f64; width], 0usize);
    let mut mean = vec![0f64; width];
    for doc in docs.filter(|d| !d.is_empty()) {
        mean.fill(0.0);
        for &id in doc {
            let row = &matrix[id as usize * width..(id as usize + 1) * width];
            mean.iter_mut().zip(row).for_each(|(m, &v)| *m += f64::from(v));
        }
        for ((s, q), m) in sum.iter_mut().zip(&mut squares).zip(&mean) {
            let m = m / doc.len() as f64;
            *s += m;
            *q += m * m;
        }
        n += 1;
    }
    if n == 0 {
        return;
    }
    let centre: Vec<f64> = sum.iter().map(|s| s / n as f64).collect();
    let scale: Vec<f64> = squares
        .iter()
        .zip(&centre)
        .map(|(q, c)| (q / n as f64 - c * c).max(0.0).sqrt())
        .map(|sd| if sd > 1e-12 { sd } else { 1.0 })
        .collect();
    for row in matrix.chunks_mut(width) {
        for ((v, c), sd) in row.iter_mut().zip(&centre).zip(&scale) {
            *v = ((f64::from(*v) - c) / sd) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{class_weights, standardize_means};

    #[test]
    fn class_weights_make_every_class_weigh_the_same() {
        // Three examples of class 0, one of class 1, none of class 2.
        assert_eq!(class_weights([0, 0, 1, 0].into_iter(), 3), [4.0 / 9.0, 4.0 / 3.0, 1.0]);
        assert_eq!(class_weights([1, 0].into_iter(), 2), [1.0, 1.0]);
    }

    #[test]
    fn standardised_rows_give_training_means_of_mean_zero_and_deviation_one() {
        // Rows: <unk>, <pad>, then three words of width 2; column 1 is the same in every document's mean.
        let mut matrix = vec![0.0, 0.0, 0.0, 0.0, 1.0, 5.0, 3.0, 5.0, 8.0, 5.0];
        let docs: [&[u32]; 3] = [&[2, 2], &[2, 3], &[4]];
        standardize_means(&mut matrix, 2, docs.iter().copied());
        let mean = |doc: &[u32], col: usize| doc.iter().map(|&id| matrix[id as usize * 2 + col]).sum::<f32>() / doc.len() as f32;
        let firsts: Vec<f32> = docs.iter().map(|d| mean(d, 0)).collect();
        let centre = firsts.iter().sum::<f32>() / 3.0;
        let deviation = (firsts.iter().map(|m| (m - centre).powi(2)).sum::<f32>() / 3.0).sqrt();
        assert!(centre.abs() < 1e-6 && (deviation - 1.0).abs() < 1e-6, "{firsts:?}");
        // A column that does not vary is only centred.
        assert!(docs.iter().all(|d| mean(d, 1).abs() < 1e-6));
        // Every row moves, the zero rows of unknown words too: they stand for the zero vector.
        assert_eq!(matrix[1], -5.0);
    }
}
