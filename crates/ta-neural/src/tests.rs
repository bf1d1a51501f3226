//! Module tests across layers: hand-computed forward passes, gradient checks, padding invariance, training on
//! separable data, reproducibility, the model file and the error cases.

use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;

use candle_core::{DType, Device, Tensor, Var};

use super::batch::Batch;
use super::network::{initial_embedding, Network, EMBEDDING};
use super::seeded::Seeded;
use super::*;

fn classes() -> Vec<String> {
    vec!["true".to_string(), "false".to_string()]
}

/// Separable data: class 0 texts contain "good", class 1 texts "bad", with shared filler words of varying length.
fn separable(n: usize) -> Vec<(String, usize)> {
    let filler = ["the", "a", "movie", "was", "plot", "and", "actors"];
    (0..n)
        .map(|i| {
            let words: Vec<&str> = (0..1 + i % 5).map(|k| filler[(i + k) % filler.len()]).collect();
            let class = i % 2;
            let marker = if class == 0 { "good" } else { "bad" };
            (format!("{} {marker} {}", words.join(" "), words[0].to_uppercase()), class)
        })
        .collect()
}

fn as_refs(data: &[(String, usize)]) -> Vec<(&str, usize)> {
    data.iter().map(|(t, c)| (t.as_str(), *c)).collect()
}

fn quiet(_: Progress) -> ControlFlow<()> {
    ControlFlow::Continue(())
}

fn train_small(arch: Architecture, data: &[(String, usize)], epochs: usize) -> Result<TrainOutcome> {
    let settings = TrainSettings {
        epochs,
        batch_size: Some(8),
        ..TrainSettings::new(arch)
    };
    train(&as_refs(data), &classes(), &settings, None, &mut quiet)
}

fn f64_tensor(values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape, &Device::Cpu).unwrap()
}

/// Word vectors of the batch's packed positions.
fn words(embedding: &Tensor, batch: &Batch) -> Tensor {
    embedding
        .index_select(&Tensor::new(batch.ids.as_slice(), &Device::Cpu).unwrap(), 0)
        .unwrap()
}

#[test]
fn fasttext_forward_matches_hand_computation() {
    // vocabulary of 4 words, width 2; fc1 is 10 x 2 but only rows 0 and 1 are non-zero.
    let embedding = f64_tensor(&[0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, -1.0], &[4, 2]);
    let mut fc1 = vec![0.0; 20];
    fc1[..4].copy_from_slice(&[1.0, 0.0, 0.0, 1.0]);
    let mut fc2 = vec![0.0; 20];
    fc2[0] = 1.0;
    fc2[11] = 1.0;
    let tensors: HashMap<String, Tensor> = [
        ("fc1.weight", f64_tensor(&fc1, &[10, 2])),
        ("fc1.bias", f64_tensor(&[0.0; 10], &[10])),
        ("fc2.weight", f64_tensor(&fc2, &[2, 10])),
        ("fc2.bias", f64_tensor(&[0.5, 0.0], &[2])),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let network = Network::new(Architecture::FastText, 2, 2, &tensors, &Device::Cpu).unwrap();
    let docs: [&[u32]; 2] = [&[2, 3], &[3]];
    let batch = Batch::new(&docs, &Device::Cpu).unwrap();
    let out = network
        .forward(&words(&embedding, &batch), &batch, None)
        .unwrap()
        .to_vec2::<f64>()
        .unwrap();
    // doc 0: mean (2, 0.5) -> logits (2.5, 0.5); doc 1: (3, -1) -> logits (3.5, -1)
    for (row, logits) in [(0, [2.5f64, 0.5]), (1, [3.5, -1.0])] {
        let norm = (logits[0].exp() + logits[1].exp()).ln();
        let r = batch.order.iter().position(|&o| o == row).unwrap();
        assert!((out[r][0] - (logits[0] - norm)).abs() < 1e-12 && (out[r][1] - (logits[1] - norm)).abs() < 1e-12);
    }
}

/// A network with vocabulary 6 and width 3, its parameters and embedding as variables.
fn tiny_network(arch: Architecture, dtype: DType) -> (BTreeMap<String, Var>, Network) {
    let mut rng = Seeded::new(7);
    let dev = Device::Cpu;
    let tensors = arch.initial_parameters(3, 2, &mut rng, dtype, &dev).unwrap();
    let mut vars: BTreeMap<String, Var> = tensors.iter().map(|(k, t)| (k.clone(), Var::from_tensor(t).unwrap())).collect();
    let map: HashMap<String, Tensor> = vars.iter().map(|(k, v)| (k.clone(), v.as_tensor().clone())).collect();
    let network = Network::new(arch, 3, 2, &map, &dev).unwrap();
    vars.insert(
        EMBEDDING.to_string(),
        Var::from_tensor(&initial_embedding(6, 3, &mut rng, dtype, &dev).unwrap()).unwrap(),
    );
    (vars, network)
}

fn loss_of(network: &Network, vars: &BTreeMap<String, Var>, batch: &Batch) -> Tensor {
    let targets = Tensor::new(&[0u32, 1, 1], &Device::Cpu).unwrap();
    let words = words(vars[EMBEDDING].as_tensor(), batch);
    candle_nn::loss::nll(&network.forward(&words, batch, None).unwrap(), &targets).unwrap()
}

#[test]
fn gradients_match_finite_differences() {
    let docs: [&[u32]; 3] = [&[2, 3, 4], &[5], &[4, 2]];
    let batch = Batch::new(&docs, &Device::Cpu).unwrap();
    for arch in Architecture::ALL {
        let (vars, network) = tiny_network(arch, DType::F64);
        let grads = loss_of(&network, &vars, &batch).backward().unwrap();
        for (name, var) in &vars {
            let grad: Vec<f64> = grads.get(var).unwrap().flatten_all().unwrap().to_vec1().unwrap();
            let original: Vec<f64> = var.flatten_all().unwrap().to_vec1().unwrap();
            for k in (0..original.len()).step_by(original.len().div_ceil(4)) {
                let at = |delta: f64| {
                    let mut values = original.clone();
                    values[k] += delta;
                    var.set(&Tensor::from_vec(values, var.shape(), &Device::Cpu).unwrap()).unwrap();
                    loss_of(&network, &vars, &batch).to_scalar::<f64>().unwrap()
                };
                let numeric = (at(1e-6) - at(-1e-6)) / 2e-6;
                at(0.0);
                assert!(
                    (numeric - grad[k]).abs() < 1e-6 * (1.0 + numeric.abs()),
                    "{arch} {name}[{k}]: numeric {numeric} autograd {}",
                    grad[k]
                );
            }
        }
    }
}

#[test]
fn predictions_do_not_depend_on_batch_company() {
    let docs: [&[u32]; 3] = [&[2, 3, 4, 5, 2], &[5], &[4, 2]];
    for arch in Architecture::ALL {
        let (vars, network) = tiny_network(arch, DType::F64);
        let run = |docs: &[&[u32]]| {
            let batch = Batch::new(docs, &Device::Cpu).unwrap();
            network
                .forward(&words(vars[EMBEDDING].as_tensor(), &batch), &batch, None)
                .unwrap()
                .to_vec2::<f64>()
                .unwrap()
        };
        let (together, alone) = (run(&docs), run(&docs[1..2]));
        // Row 2 of the sorted batch is the one-token document.
        assert!((together[2][0] - alone[0][0]).abs() < 1e-12, "{arch}");
    }
}

#[test]
fn every_architecture_learns_a_separable_set() {
    let data = separable(60);
    for arch in Architecture::ALL {
        let outcome = train_small(arch, &data, 6).unwrap();
        assert_eq!(outcome.test_scores.accuracy, 1.0, "{arch}: {:?}", outcome.epoch_reports);
        assert_eq!(outcome.split_sizes, [38, 10, 12]);
        assert_eq!(outcome.epoch_reports.len(), 6);
        let texts = ["what a good movie", "bad plot", "GOOD"];
        let tags = outcome.tagger.tag(&texts).unwrap();
        assert_eq!(tags.iter().map(|t| t.0).collect::<Vec<_>>(), [0, 1, 0], "{arch}");
        assert!(tags.iter().all(|&(_, p)| (0.5..=1.0).contains(&p)));
    }
}

#[test]
fn training_is_reproducible_and_the_model_file_round_trips() {
    let data = separable(40);
    let a = train_small(Architecture::Rcnn, &data, 2).unwrap();
    let b = train_small(Architecture::Rcnn, &data, 2).unwrap();
    let bytes = a.tagger.to_bytes().unwrap();
    assert_eq!(bytes, b.tagger.to_bytes().unwrap());
    let loaded = NeuralTagger::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.to_bytes().unwrap(), bytes);
    let texts: Vec<&str> = data.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(loaded.tag(&texts).unwrap(), a.tagger.tag(&texts).unwrap());
    assert_eq!(
        (loaded.architecture(), loaded.classes(), loaded.embedding_dim()),
        (Architecture::Rcnn, &classes()[..], 100)
    );
}

#[test]
fn corrupt_or_foreign_files_are_rejected() {
    let tagger = train_small(Architecture::FastText, &separable(20), 1).unwrap().tagger;
    let bytes = tagger.to_bytes().unwrap();
    for cut in (0..bytes.len()).step_by(97).chain([bytes.len() - 1]) {
        assert!(
            matches!(NeuralTagger::from_bytes(&bytes[..cut]), Err(NeuralError::InvalidModel(_))),
            "cut at {cut}"
        );
    }
    let mut extra = bytes.clone();
    extra.push(0);
    assert!(NeuralTagger::from_bytes(&extra).is_err());
    for (offset, value) in [(0, b'X'), (8, 9), (20, b'['), (bytes.len() / 2, 0xff)] {
        let mut bad = bytes.clone();
        bad[offset] = value;
        assert!(NeuralTagger::from_bytes(&bad).is_err(), "byte {offset}");
    }
    let mut huge = bytes[..12].to_vec();
    huge.extend_from_slice(&u64::MAX.to_le_bytes());
    huge.extend_from_slice(&super::model_file::fnv1a(&huge).to_le_bytes());
    assert!(matches!(NeuralTagger::from_bytes(&huge), Err(NeuralError::InvalidModel(m)) if m.contains("truncated header")));
    assert!(NeuralTagger::from_bytes(b"PK\x03\x04 a zip file").is_err());
}

#[test]
fn frozen_embedding_is_used_and_stays_frozen() {
    let data = separable(40);
    let mut vectors = WordVectorMap {
        dim: 4,
        ..Default::default()
    };
    vectors.vectors.insert("good".into(), vec![1.0, 0.0, 0.0, 0.0]);
    vectors.vectors.insert("bad".into(), vec![0.0, 1.0, 0.0, 0.0]);
    // RCNN reads the vectors as they are (fastText's are standardised, see train::tests).
    let settings = TrainSettings {
        epochs: 3,
        batch_size: Some(8),
        ..TrainSettings::new(Architecture::Rcnn)
    };
    let outcome = train(&as_refs(&data), &classes(), &settings, Some(&vectors), &mut quiet).unwrap();
    let tagger = outcome.tagger;
    assert!(tagger.frozen_embedding() && tagger.embedding_dim() == 4);
    let good = tagger.vocabulary.encode(&tokenize("good", 10))[0] as usize;
    let row: Vec<f32> = tagger.tensors[EMBEDDING].get(good).unwrap().to_vec1().unwrap();
    assert_eq!(row, [1.0, 0.0, 0.0, 0.0]);
    vectors.vectors.insert("movie".into(), vec![1.0]);
    let err = train(&as_refs(&data), &classes(), &settings, Some(&vectors), &mut quiet);
    assert!(matches!(err, Err(NeuralError::EmbeddingWidth { .. })));
    let unrelated = WordVectorMap {
        dim: 4,
        vectors: [("elsewhere".to_string(), vec![1.0; 4])].into_iter().collect(),
    };
    let err = train(&as_refs(&data), &classes(), &settings, Some(&unrelated), &mut quiet);
    assert!(matches!(err, Err(NeuralError::NoWordVectors)));
}

#[test]
fn progress_reports_batches_and_epochs_and_can_cancel() {
    let data = separable(40);
    let settings = TrainSettings {
        epochs: 3,
        batch_size: Some(8),
        ..TrainSettings::new(Architecture::FastText)
    };
    let mut events = Vec::new();
    train(&as_refs(&data), &classes(), &settings, None, &mut |p: Progress| {
        events.push(match p {
            Progress::Batch { epoch, batch, batches, .. } => (epoch, Some((batch, batches))),
            Progress::Epoch { report, .. } => (report.epoch, None),
        });
        ControlFlow::Continue(())
    })
    .unwrap();
    // 40 examples -> 26 train -> 4 batches of 8 per epoch, then the epoch report.
    assert_eq!(events.len(), 15);
    assert_eq!(events[3..5], [(0, Some((3, 4))), (0, None)]);
    let mut calls = 0;
    let cancelled = train(&as_refs(&data), &classes(), &settings, None, &mut |_: Progress| {
        calls += 1;
        if calls == 2 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    assert!(matches!(cancelled, Err(NeuralError::Cancelled)));
}

#[test]
fn bad_requests_are_errors() {
    let data = separable(20);
    let refs = as_refs(&data);
    let settings = TrainSettings::new(Architecture::FastText);
    let run = |examples: &[(&str, usize)], classes: &[String], settings: &TrainSettings| {
        train(examples, classes, settings, None, &mut quiet).err().unwrap()
    };
    assert!(matches!(run(&refs, &classes()[..1], &settings), NeuralError::TooFewClasses(1)));
    assert!(matches!(run(&[], &classes(), &settings), NeuralError::NoExamples));
    assert!(matches!(run(&refs[..4], &classes(), &settings), NeuralError::TooFewExamples(4)));
    assert!(matches!(
        run(&[("a", 0), ("b", 2)], &classes(), &settings),
        NeuralError::ClassOutOfRange { index: 1, .. }
    ));
    assert!(matches!(run(&[("a", 0), ("b", 0)], &classes(), &settings), NeuralError::EmptyClass(c) if c == "false"));
    for epochs in [0, MAX_EPOCHS + 1] {
        assert!(matches!(
            run(
                &refs,
                &classes(),
                &TrainSettings {
                    epochs,
                    ..settings.clone()
                }
            ),
            NeuralError::InvalidSetting { .. }
        ));
    }
    assert!(matches!(
        run(
            &refs,
            &classes(),
            &TrainSettings {
                learning_rate: Some(f64::NAN),
                ..settings.clone()
            }
        ),
        NeuralError::InvalidSetting { .. }
    ));
    assert!("LSTM".parse::<Architecture>().is_err());
    assert_eq!("TextRNN".parse::<Architecture>().unwrap(), Architecture::TextRnn);
}

#[test]
fn learning_rate_halves_at_a_third_and_two_thirds() {
    let adam = |a| TrainSettings::new(a).learning_rate_at(0);
    assert_eq!(
        [adam(Architecture::FastText), adam(Architecture::TextRnn), adam(Architecture::Rcnn)],
        [0.03, 0.01, 0.01]
    );
    let settings = TrainSettings {
        optimizer: Optimizer::Sgd,
        ..TrainSettings::new(Architecture::FastText)
    };
    let rates: Vec<f64> = (0..5).map(|e| settings.learning_rate_at(e)).collect();
    assert_eq!(rates, [0.5, 0.25, 0.25, 0.125, 0.125]);
    let one = TrainSettings {
        epochs: 1,
        ..settings.clone()
    };
    assert_eq!(one.learning_rate_at(0), 0.25);
    let two = TrainSettings { epochs: 2, ..settings };
    assert_eq!([two.learning_rate_at(0), two.learning_rate_at(1)], [0.25, 0.125]);
}

#[test]
fn adam_learns_a_separable_set_with_learned_and_frozen_vectors() {
    let data = separable(60);
    let mut vectors = WordVectorMap {
        dim: 4,
        ..Default::default()
    };
    vectors.vectors.insert("good".into(), vec![1.0, 0.0, 0.0, 0.0]);
    vectors.vectors.insert("bad".into(), vec![0.0, 1.0, 0.0, 0.0]);
    for arch in Architecture::ALL {
        let settings = TrainSettings {
            epochs: 20,
            batch_size: Some(8),
            optimizer: Optimizer::Adam,
            ..TrainSettings::new(arch)
        };
        for frozen in [None, Some(&vectors as &dyn WordVectors)] {
            let outcome = train(&as_refs(&data), &classes(), &settings, frozen, &mut quiet).unwrap();
            assert_eq!(outcome.test_scores.accuracy, 1.0, "{arch}: {:?}", outcome.epoch_reports);
        }
    }
}
