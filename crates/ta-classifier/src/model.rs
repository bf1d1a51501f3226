//! A trained tagger model: settings, fitted vectorizers, selected columns and the linear
//! classifier; tags texts and lists its strongest features.

use super::logistic::sigmoid;
use super::text::{Hooks, ProcessorOptions, TextProcessor, Tokenization};
use super::vectorize::{Doc, Features, VectorizerKind};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// The classifier choice of a tagger, named as in the API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub enum ClassifierKind {
    #[serde(rename = "Logistic Regression")]
    LogisticRegression,
    #[serde(rename = "LinearSVC")]
    LinearSvc,
}

/// What a tagger is trained with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Field names; each example gives one text per field, in this order.
    pub fields: Vec<String>,
    pub vectorizer: VectorizerKind,
    pub classifier: ClassifierKind,
    /// Custom stop words (split on any whitespace), on top of the built-in list.
    pub stop_words: String,
    /// How texts become tokens; model files from before this setting split on whitespace.
    #[serde(default)]
    pub tokenization: Tokenization,
}

impl Settings {
    /// The tagger's text processor: stop words on, no sentence split.
    pub fn processor(&self) -> TextProcessor {
        TextProcessor::new(&ProcessorOptions {
            sentences: false,
            remove_stop_words: true,
            custom_stop_words: self.stop_words.clone(),
            tokenization: self.tokenization,
        })
    }
}

/// The linear decision function over the selected columns and its probability link.
#[derive(Clone, Debug, PartialEq)]
pub struct Linear {
    /// Selected feature columns (ascending) of the concatenated vectorizer output.
    pub columns: Vec<u32>,
    /// One weight per selected column.
    pub weights: Vec<f64>,
    pub intercept: f64,
    /// Platt's `(a, b)` for LinearSVC: `p(1) = 1 / (1 + exp(a f + b))`; logistic otherwise.
    pub platt: Option<(f64, f64)>,
}

impl Linear {
    /// Probability of class 1 for a decision value.
    pub fn probability(&self, decision: f64) -> f64 {
        match self.platt {
            Some((a, b)) => sigmoid(-(a * decision + b)),
            None => sigmoid(decision),
        }
    }
}

/// A feature with a positive coefficient, for `list_features`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Feature {
    pub feature: String,
    pub coefficient: f64,
}

/// A trained model.
#[derive(Clone, Debug)]
pub struct Model {
    pub(super) settings: Settings,
    pub(super) features: Features,
    pub(super) linear: Linear,
    processor: TextProcessor,
    weight_of: FxHashMap<u32, f64>,
}

impl PartialEq for Model {
    fn eq(&self, other: &Self) -> bool {
        self.settings == other.settings && self.features == other.features && self.linear == other.linear
    }
}

impl Model {
    /// Assembles a model from its parts (training or loading).
    pub(super) fn new(settings: Settings, features: Features, linear: Linear) -> Self {
        let weight_of = linear.columns.iter().copied().zip(linear.weights.iter().copied()).collect();
        Model {
            processor: settings.processor(),
            settings,
            features,
            linear,
            weight_of,
        }
    }

    /// The model with other custom stop words for tagging (a tagger's stop words may change
    /// after training and take effect at once).
    pub fn with_stop_words(mut self, stop_words: &str) -> Model {
        if self.settings.stop_words != stop_words {
            self.settings.stop_words = stop_words.to_string();
            self.processor = self.settings.processor();
        }
        self
    }

    /// The training settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Number of selected features (length of the weight vector).
    pub fn num_features(&self) -> usize {
        self.linear.weights.len()
    }

    /// Classifier weights, in selected-column order.
    pub fn coefficients(&self) -> &[f64] {
        &self.linear.weights
    }

    /// The decision value of already processed field tokens.
    pub fn decision(&self, doc: &Doc) -> f64 {
        let row = self.features.transform_one(doc);
        self.linear.intercept + row.iter().filter_map(|(c, v)| self.weight_of.get(c).map(|w| w * v)).sum::<f64>()
    }

    /// Label and probability of the predicted class for processed field tokens.
    pub fn tag_tokens(&self, doc: &Doc) -> (bool, f64) {
        let p = self.linear.probability(self.decision(doc));
        if p > 0.5 {
            (true, p)
        } else {
            (false, 1.0 - p)
        }
    }

    /// Tags one example given as one raw text per field (missing fields count as empty).
    pub fn tag(&self, fields: &[&str]) -> (bool, f64) {
        self.tag_with(fields, &Hooks::default())
    }

    /// [`Model::tag`] with hooks: the tagger's phraser, and the lemmatizer when the request asks
    /// for `lemmatize`.
    pub fn tag_with(&self, fields: &[&str], hooks: &Hooks) -> (bool, f64) {
        let doc: Doc = (0..self.settings.fields.len())
            .map(|f| self.processor.tokens(fields.get(f).copied().unwrap_or(""), hooks))
            .collect();
        self.tag_tokens(&doc)
    }

    /// Tags many examples in parallel, in order.
    pub fn tag_batch(&self, examples: &[Vec<String>], hooks: &Hooks) -> Vec<(bool, f64)> {
        examples
            .par_iter()
            .map(|fields| {
                let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
                self.tag_with(&fields, hooks)
            })
            .collect()
    }

    /// Names of the selected features (`<field>: <n-gram>` with several fields); `None` for
    /// hashing, which has no names.
    pub fn feature_names(&self) -> Option<Vec<String>> {
        self.linear
            .columns
            .iter()
            .map(|&c| self.features.feature_name(c as usize, &self.settings.fields))
            .collect()
    }

    /// Up to `size` features with a positive coefficient, strongest first, and how many
    /// there are in all; `None` for hashing.
    pub fn list_features(&self, size: usize) -> Option<(Vec<Feature>, usize)> {
        let names = self.feature_names()?;
        let mut positive: Vec<Feature> = names
            .into_iter()
            .zip(&self.linear.weights)
            .filter(|(_, &w)| w > 0.0)
            .map(|(feature, &coefficient)| Feature { feature, coefficient })
            .collect();
        positive.sort_by(|a, b| b.coefficient.total_cmp(&a.coefficient).then_with(|| a.feature.cmp(&b.feature)));
        let total = positive.len();
        positive.truncate(size);
        Some((positive, total))
    }
}
