//! Training (spec `models.md` 1.2): text processing, the 80/20 split, TF-IDF model selection,
//! vectorizing, L1 feature selection, the classifier, evaluation on the held-out part, and the
//! final fit on all examples.

use super::corpus::{Fitted, Prepared};
use super::error::{Error, Result};
use super::metrics::evaluate;
use super::model::{ClassifierKind, Linear, Model, Settings};
use super::select::select_features;
use super::split::{stratified_kfold, train_test_split, Fold};
use super::text::Hooks;
use super::vectorize::VectorizerKind;
use super::{logistic, svm};
use rayon::prelude::*;
use serde::Serialize;

const FOLDS: usize = 5;

/// Figures reported after training (spec 1.3), plus what the plot needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Binary precision of class 1 on the test part (0 when undefined).
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    /// Number of selected features.
    pub num_features: usize,
    pub num_positives: usize,
    pub num_negatives: usize,
    /// TF-IDF only: the `use_idf` that cross-validation chose.
    pub use_idf: Option<bool>,
    /// `[[true negatives, false positives], [false negatives, true positives]]` of the test part.
    pub confusion: [[usize; 2]; 2],
    /// ROC points `(false positive rate, true positive rate)` of the test part.
    pub roc: Vec<(f64, f64)>,
    pub auc: f64,
}

/// Trains a tagger. `positives` and `negatives` hold one text per field of `settings.fields`
/// for each example; `hooks` gives the embedding's phraser, if any (taggers train without
/// lemmatisation, spec 0.2, so `hooks.lemmatize` is normally `None`). `progress` is told the
/// current step and a percentage. Deterministic: the same input gives the same model.
///
/// The report's precision, recall, F1, confusion matrix and ROC are those of a model fitted
/// on the train part (80 %) and tested on the test part (20 %) of the split; the returned
/// model is the same pipeline fitted on all examples (its `num_features` is reported).
pub fn train(
    positives: &[Vec<String>],
    negatives: &[Vec<String>],
    settings: &Settings,
    hooks: &Hooks,
    progress: &mut dyn FnMut(&str, u8),
) -> Result<(Model, Report)> {
    validate(positives, negatives, settings)?;
    progress("processing texts", 0);
    let processor = settings.processor();
    let examples: Vec<&Vec<String>> = positives.iter().chain(negatives).collect();
    let labels: Vec<bool> = (0..examples.len()).map(|i| i < positives.len()).collect();
    let prepared = Prepared::new(settings.vectorizer, examples.len(), settings.fields.len(), |d, f, emit| {
        processor.for_each_token(&examples[d][f], hooks, emit)
    });
    let (train, test) = train_test_split(labels.len());
    if !(train.iter().any(|&i| labels[i]) && train.iter().any(|&i| !labels[i])) {
        return Err(Error::TooFewExamples);
    }
    let use_idf = match settings.vectorizer {
        VectorizerKind::TfIdf => {
            progress("selecting model", 10);
            Some(choose_use_idf(&prepared, &train, &labels, settings)?)
        }
        _ => None,
    };
    progress("training", 40);
    // The evaluated model (train part) and the returned model (all examples) are independent.
    let all: Vec<usize> = (0..labels.len()).collect();
    let use_idf_or_default = use_idf.unwrap_or(true);
    let (evaluated, returned) = rayon::join(
        || fit_pipeline(&prepared, &train, &labels, settings, use_idf_or_default),
        || fit_pipeline(&prepared, &all, &labels, settings, use_idf_or_default),
    );
    let (fitted, linear) = evaluated?;
    progress("evaluating", 90);
    let scores = decisions(&prepared, &fitted, &linear, &test);
    let predicted: Vec<bool> = scores.iter().map(|&s| linear.probability(s) > 0.5).collect();
    let gold: Vec<bool> = test.iter().map(|&i| labels[i]).collect();
    let e = evaluate(&gold, &predicted, &scores);
    let (fitted, linear) = returned?;
    let model = Model::new(settings.clone(), prepared.features(&fitted), linear);
    let report = Report {
        precision: e.precision,
        recall: e.recall,
        f1: e.f1,
        num_features: model.num_features(),
        num_positives: positives.len(),
        num_negatives: negatives.len(),
        use_idf,
        confusion: e.confusion,
        roc: e.roc,
        auc: e.auc,
    };
    progress("done", 100);
    Ok((model, report))
}

fn validate(positives: &[Vec<String>], negatives: &[Vec<String>], settings: &Settings) -> Result<()> {
    if settings.fields.is_empty() {
        return Err(Error::NoFields);
    }
    match (positives.is_empty(), negatives.is_empty()) {
        (true, true) => return Err(Error::EmptyTrainingData),
        (true, false) => return Err(Error::OneClass("the positive")),
        (false, true) => return Err(Error::OneClass("the negative")),
        _ => {}
    }
    let expected = settings.fields.len();
    match positives.iter().chain(negatives).find(|e| e.len() != expected) {
        Some(example) => Err(Error::FieldCount {
            expected,
            got: example.len(),
        }),
        None => Ok(()),
    }
}

/// Vectorizers, feature selection and classifier fitted on documents `docs`; `labels` holds
/// the label of every document.
fn fit_pipeline(prepared: &Prepared, docs: &[usize], labels: &[bool], settings: &Settings, use_idf: bool) -> Result<(Fitted, Linear)> {
    let fitted = prepared
        .fit(docs, use_idf)
        .map_err(|f| Error::EmptyVocabulary(settings.fields[f].clone()))?;
    let x = prepared.rows(&fitted, docs);
    let y: Vec<bool> = docs.iter().map(|&d| labels[d]).collect();
    let columns = select_features(&x, &y);
    let x = x.select_columns(&columns);
    let linear = match settings.classifier {
        ClassifierKind::LogisticRegression => {
            let (weights, intercept) = logistic::fit(&x, &y);
            Linear {
                columns,
                weights,
                intercept,
                platt: None,
            }
        }
        ClassifierKind::LinearSvc => {
            let decisions = svm::cross_val_decisions(&x, &y, &stratified_kfold(&y, FOLDS));
            let platt = svm::fit_platt(&decisions, &y);
            let (weights, intercept) = svm::fit(&x, &y);
            Linear {
                columns,
                weights,
                intercept,
                platt: Some(platt),
            }
        }
    };
    Ok((fitted, linear))
}

/// Decision values of documents `docs`.
fn decisions(prepared: &Prepared, fitted: &Fitted, linear: &Linear, docs: &[usize]) -> Vec<f64> {
    let x = prepared.rows(fitted, docs);
    let mut dense = vec![0.0; x.ncols];
    linear
        .columns
        .iter()
        .zip(&linear.weights)
        .for_each(|(&c, &w)| dense[c as usize] = w);
    (0..x.nrows()).map(|r| x.dot_row(r, &dense) + linear.intercept).collect()
}

/// TF-IDF's `use_idf` by 5-fold stratified cross-validated accuracy on documents `docs`; ties
/// go to `true`.
fn choose_use_idf(prepared: &Prepared, docs: &[usize], labels: &[bool], settings: &Settings) -> Result<bool> {
    let y: Vec<bool> = docs.iter().map(|&d| labels[d]).collect();
    let folds: Vec<Fold> = stratified_kfold(&y, FOLDS)
        .into_iter()
        .map(|(train, test)| (train.iter().map(|&i| docs[i]).collect(), test.iter().map(|&i| docs[i]).collect()))
        .collect();
    let runs: Vec<(bool, &Fold)> = [true, false].into_iter().flat_map(|c| folds.iter().map(move |f| (c, f))).collect();
    let accuracies = runs
        .par_iter()
        .map(|&(use_idf, (train, test))| {
            let (fitted, linear) = fit_pipeline(prepared, train, labels, settings, use_idf)?;
            let scores = decisions(prepared, &fitted, &linear, test);
            let correct = test
                .iter()
                .zip(scores)
                .filter(|&(&d, s)| (linear.probability(s) > 0.5) == labels[d])
                .count();
            Ok(correct as f64 / test.len().max(1) as f64)
        })
        .collect::<Result<Vec<f64>>>()?;
    let (with_idf, without) = accuracies.split_at(folds.len());
    Ok(with_idf.iter().sum::<f64>() >= without.iter().sum::<f64>())
}
