//! The evaluator (`collection.md` §6): a project resource whose run compares the values of a
//! true fact with those of a predicted fact over the selected documents and keeps the scores
//! (`evaluation`): binary when both fact values are given (does a document hold the value?),
//! multilabel otherwise (the sets of values, over the sorted union of both facts' values).
//! The run reads the documents' facts batch by batch and keeps only counts. Per-class results
//! (multilabel) are filtered, averaged and ordered on request; the documents whose labels
//! differ are listed on request; the confusion matrix is drawn as a PNG.
use super::error::{Error, Result};
use super::evaluation::{Average, ClassScores, Counts, Scores, Tally};
use super::index_runs::Selection;
use super::indices::{parse_index_refs, IndexOut};
use super::kinds::ResourceKind;
use super::models::ModelFile;
use super::pytext::{json_dumps, repr, repr_list};
use super::resources::{resource_url, Kind, Resource};
use super::tasks::{Observer, TaskHandle, TaskKind, TaskOut};
use super::validate::{Form, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// Most values of each fact that become classes (one aggregation each).
const MAX_FACT_VALUES: usize = 10_000;

/// Whether the labels are one fact value each (`binary`) or the sets of values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum EvaluationType {
    Binary,
    Multilabel,
}

/// The evaluator on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct EvaluatorOut {
    pub id: i64,
    pub url: String,
    pub author_username: String,
    pub description: String,
    pub indices: Vec<IndexOut>,
    /// The selecting query, JSON-encoded: `"{\"query\": {...}}"`.
    pub query: String,
    pub true_fact: String,
    pub predicted_fact: String,
    pub true_fact_value: String,
    pub predicted_fact_value: String,
    pub average_function: Average,
    pub add_individual_results: bool,
    pub scroll_size: i64,
    pub es_timeout: i64,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1_score: Option<f64>,
    pub accuracy: Option<f64>,
    /// JSON-encoded: `[[tn, fp], [fn, tp]]` (binary) or the classes' matrix (multilabel).
    pub confusion_matrix: String,
    pub n_true_classes: Option<u64>,
    pub n_predicted_classes: Option<u64>,
    pub n_total_classes: Option<u64>,
    pub document_count: Option<u64>,
    pub evaluation_type: Option<EvaluationType>,
    pub scores_imprecise: Option<bool>,
    pub score_after_scroll: Option<bool>,
    /// The confusion matrix as a PNG, once the run has drawn one.
    pub plot: Option<String>,
    pub task: Option<TaskOut>,
}

/// The body that creates an evaluator (an update changes `description` only).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct EvaluatorIn {
    pub description: String,
    /// `[{"name": "x"}]` or `["x"]`: open indices of the project; all of them when empty.
    pub indices: Option<Vec<Value>>,
    /// A search query (object or JSON string) selecting the documents; all by default.
    pub query: Option<Value>,
    /// The fact holding the true labels.
    pub true_fact: String,
    /// The fact holding the predicted labels.
    pub predicted_fact: String,
    /// With `predicted_fact_value`: a binary evaluation of this value of `true_fact`.
    pub true_fact_value: Option<String>,
    /// With `true_fact_value`: a binary evaluation of this value of `predicted_fact`.
    pub predicted_fact_value: Option<String>,
    /// `binary` needs the fact values, `samples` forbids them (default `macro`).
    pub average_function: Option<Average>,
    /// Keep each class's scores (multilabel; default true).
    pub add_individual_results: Option<bool>,
    /// Documents read per batch (1–10000, default 500).
    pub scroll_size: Option<i64>,
    /// Seconds a search may take (default 10; Elasticsearch).
    pub es_timeout: Option<i64>,
}

/// Which classes `filtered_average` and `individual_results` take.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct ClassFilterIn {
    /// Least `tp + fp + fn` of a class (default 1).
    pub min_count: Option<i64>,
    /// Most `tp + fp + fn` of a class (default: no limit).
    pub max_count: Option<i64>,
    /// `{metric: {"min_score": f, "max_score": f}}` with metrics `precision`, `recall`,
    /// `f1_score`, `accuracy` and scores in [0, 1].
    #[schema(value_type = Object)]
    pub metric_restrictions: Option<Map<String, Value>>,
}

/// How `individual_results` orders the classes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OrderBy {
    #[default]
    Alphabetic,
    Count,
    Precision,
    Recall,
    F1Score,
    Accuracy,
}

/// The body of `individual_results`: the class filter and the order.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct IndividualResultsIn {
    #[serde(flatten)]
    pub filter: ClassFilterIn,
    pub order_by: Option<OrderBy>,
    /// Descending (default false).
    pub order_desc: Option<bool>,
}

/// The mean scores of the classes a filter takes, and how many there are.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct FilteredAverageOut {
    #[serde(flatten)]
    pub scores: Scores,
    pub count: usize,
}

/// The classes a filter takes, in the order asked, with their scores and count.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct IndividualResultsOut {
    pub total: usize,
    #[schema(value_type = Object)]
    pub filtered_results: Map<String, Value>,
}

/// The body of `misclassified_documents` (ta extension).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct MisclassifiedIn {
    /// Most documents listed (1–10000, default 100).
    pub size: Option<i64>,
    /// Only documents where this value is among exactly one of the true and predicted labels.
    pub label: Option<String>,
}

/// A document whose true and predicted labels differ.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct MisclassifiedDoc {
    pub id: String,
    pub index: String,
    /// The values of the true fact, sorted.
    #[serde(rename = "true")]
    pub truth: Vec<String>,
    /// The values of the predicted fact, sorted.
    pub predicted: Vec<String>,
}

/// `{"total", "documents"}` of `misclassified_documents`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct MisclassifiedOut {
    pub total: u64,
    pub documents: Vec<MisclassifiedDoc>,
}

/// `{"success"}` of reevaluate.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ReevaluateOut {
    pub success: String,
}

/// Scores kept as their shortest text (`"0.9473684210526315"`), which Rust reads back to
/// the same bits (serde_json's default float parser may miss the last one). Ordering a list by
/// a score compares these texts, which order as the numbers do: no exponent, and only `-1`,
/// `0.…` and `1` occur.
mod exact {
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(x) => s.serialize_some(&x.to_string()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|text| text.parse().map_err(D::Error::custom))
            .transpose()
    }
}

/// What a run found.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
struct Outcome {
    #[serde(with = "exact")]
    precision: Option<f64>,
    #[serde(with = "exact")]
    recall: Option<f64>,
    #[serde(with = "exact")]
    f1_score: Option<f64>,
    #[serde(with = "exact")]
    accuracy: Option<f64>,
    confusion_matrix: Vec<Vec<u64>>,
    /// The names of the matrix's rows and columns.
    matrix_labels: Vec<String>,
    n_true_classes: Option<u64>,
    n_predicted_classes: Option<u64>,
    n_total_classes: Option<u64>,
    document_count: Option<u64>,
}

/// What an evaluator keeps (the scores at the top, where list ordering finds them).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
struct Stored {
    indices: Vec<String>,
    /// The query clause.
    query: Value,
    true_fact: String,
    predicted_fact: String,
    true_fact_value: String,
    predicted_fact_value: String,
    average_function: Average,
    add_individual_results: bool,
    scroll_size: i64,
    es_timeout: i64,
    #[serde(flatten)]
    outcome: Outcome,
}

impl Stored {
    fn evaluation_type(&self) -> EvaluationType {
        if self.true_fact_value.is_empty() {
            EvaluationType::Multilabel
        } else {
            EvaluationType::Binary
        }
    }

    fn selection(&self) -> Selection {
        Selection {
            indices: self.indices.clone(),
            query: self.query.clone(),
        }
    }
}

fn stored(r: &Resource) -> Result<Stored> {
    serde_json::from_value(r.config.clone()).map_err(Error::internal)
}

/// The values of fact `fact` in a document's `texta_facts`.
fn fact_values<'a>(source: &'a Value, fact: &str) -> BTreeSet<&'a str> {
    let facts = source.get("texta_facts").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    facts
        .iter()
        .filter(|f| f.get("fact").and_then(Value::as_str) == Some(fact))
        .filter_map(|f| f.get("str_val").and_then(Value::as_str))
        .collect()
}

/// How a run turns a document into class indices.
enum Labeller {
    /// Class 0 when the document holds the fact's value.
    Binary { truth: String, predicted: String },
    /// The classes (by value) of each fact's values.
    Multilabel(HashMap<String, usize>),
}

impl Labeller {
    fn labels(&self, source: &Value, s: &Stored) -> (Vec<usize>, Vec<usize>) {
        let (truth, predicted) = (fact_values(source, &s.true_fact), fact_values(source, &s.predicted_fact));
        match self {
            Labeller::Binary { truth: t, predicted: p } => (
                truth.contains(t.as_str()).then_some(0).into_iter().collect(),
                predicted.contains(p.as_str()).then_some(0).into_iter().collect(),
            ),
            Labeller::Multilabel(classes) => {
                let of = |values: BTreeSet<&str>| {
                    let mut ids: Vec<usize> = values.iter().filter_map(|v| classes.get(*v).copied()).collect();
                    ids.sort_unstable();
                    ids
                };
                (of(truth), of(predicted))
            }
        }
    }
}

/// The per-class results of a run: each class's scores (multilabel with
/// `add_individual_results`). Its file keeps each class's `[tp, fp, fn]`.
type ClassResults = Vec<(String, ClassScores)>;

/// `min_count`, `max_count` and `metric_restrictions` of a class filter.
struct ClassFilter {
    min_count: u64,
    max_count: u64,
    /// (metric, min, max).
    restrictions: Vec<(String, f64, f64)>,
}

const METRICS: [&str; 4] = ["precision", "recall", "f1_score", "accuracy"];

fn metric(c: &ClassScores, name: &str) -> f64 {
    match name {
        "precision" => c.precision,
        "recall" => c.recall,
        "f1_score" => c.f1_score,
        _ => c.accuracy,
    }
}

impl ClassFilter {
    fn parse(f: &mut Form) -> ClassFilter {
        let min_count = f.integer("min_count", false, Some(0), None).unwrap_or(1) as u64;
        let max_count = f.integer("max_count", false, Some(0), None).map_or(u64::MAX, |n| n as u64);
        let mut restrictions = Vec::new();
        for (name, bounds) in f.object("metric_restrictions", false).into_iter().flatten() {
            if !METRICS.contains(&name.as_str()) {
                f.fail(
                    "metric_restrictions",
                    format!(
                        "{} is not a metric; choose from {}.",
                        repr(name),
                        repr_list(&METRICS.map(String::from))
                    ),
                );
                continue;
            }
            let Some(bounds) = bounds.as_object() else {
                f.fail(
                    "metric_restrictions",
                    format!(
                        "The restriction of {} must be an object with \"min_score\" and/or \"max_score\".",
                        repr(name)
                    ),
                );
                continue;
            };
            let mut score = |key: &str, default: f64| match bounds.get(key) {
                None => Some(default),
                Some(v) => match v.as_f64().filter(|x| (0.0..=1.0).contains(x)) {
                    Some(x) => Some(x),
                    None => {
                        f.fail(
                            "metric_restrictions",
                            format!("\"{key}\" of {} must be a number from 0 to 1.", repr(name)),
                        );
                        None
                    }
                },
            };
            if let (Some(low), Some(high)) = (score("min_score", 0.0), score("max_score", 1.0)) {
                restrictions.push((name.clone(), low, high));
            }
        }
        ClassFilter {
            min_count,
            max_count,
            restrictions,
        }
    }

    fn takes(&self, c: &ClassScores) -> bool {
        (self.min_count..=self.max_count).contains(&c.count)
            && (self.restrictions.iter()).all(|(name, low, high)| (*low..=*high).contains(&metric(c, name)))
    }
}

impl Engine {
    fn evaluator_results_file(&self, id: i64) -> std::path::PathBuf {
        self.model_file(Kind::Evaluator, id, "json")
    }

    fn render_evaluator(&self, ctx: &Ctx, r: &Resource) -> Result<EvaluatorOut> {
        let s = stored(r)?;
        let o = &s.outcome;
        let ran = o.document_count.is_some();
        let drawn = o.confusion_matrix.iter().any(|row| !row.is_empty());
        Ok(EvaluatorOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::Evaluator, r.id),
            author_username: r.author_username.clone(),
            description: r.description.clone(),
            indices: self.index_objects(ctx, &s.indices)?,
            query: json_dumps(&json!({ "query": s.query })),
            true_fact: s.true_fact.clone(),
            predicted_fact: s.predicted_fact.clone(),
            true_fact_value: s.true_fact_value.clone(),
            predicted_fact_value: s.predicted_fact_value.clone(),
            average_function: s.average_function,
            add_individual_results: s.add_individual_results,
            scroll_size: s.scroll_size,
            es_timeout: s.es_timeout,
            precision: o.precision,
            recall: o.recall,
            f1_score: o.f1_score,
            accuracy: o.accuracy,
            confusion_matrix: json_dumps(&json!(o.confusion_matrix)),
            n_true_classes: o.n_true_classes,
            n_predicted_classes: o.n_predicted_classes,
            n_total_classes: o.n_total_classes,
            document_count: o.document_count,
            evaluation_type: Some(s.evaluation_type()),
            scores_imprecise: ran.then_some(false),
            score_after_scroll: ran.then_some(false),
            plot: (ran && drawn).then(|| self.plot_url(ctx, Kind::Evaluator, r.project_id, r.id)),
            task: self.linked_task(r)?,
        })
    }

    /// Scores the selection of `s`: one pass over the documents' facts, progress after each
    /// batch.
    fn evaluate(&self, s: &Stored, h: &TaskHandle) -> Result<(Outcome, Vec<(String, Counts)>)> {
        let selection = s.selection();
        let total = self.count_documents(&selection.indices, &selection.query)?;
        h.set_total(total as i64)?;
        let percent = |done: u64| if total == 0 { 100.0 } else { done as f64 * 100.0 / total as f64 };
        h.progress(0, percent(0))?;
        let (labeller, classes, n_true, n_predicted) = match s.evaluation_type() {
            EvaluationType::Binary => {
                let labeller = Labeller::Binary {
                    truth: s.true_fact_value.clone(),
                    predicted: s.predicted_fact_value.clone(),
                };
                let labels = vec![format!("not {}", s.true_fact_value), s.true_fact_value.clone()];
                (labeller, labels, 2, 2)
            }
            EvaluationType::Multilabel => {
                let facts = self.search.facts(&selection.indices, &selection.query, MAX_FACT_VALUES)?;
                let values = |name: &str| -> BTreeSet<String> {
                    let fact = facts.iter().find(|f| f.name == name);
                    fact.map(|f| f.values.iter().map(|v| v.value.clone()).collect()).unwrap_or_default()
                };
                let (truth, predicted) = (values(&s.true_fact), values(&s.predicted_fact));
                let classes: Vec<String> = truth.union(&predicted).cloned().collect();
                let ids = classes.iter().enumerate().map(|(i, c)| (c.clone(), i)).collect();
                (Labeller::Multilabel(ids), classes, truth.len() as u64, predicted.len() as u64)
            }
        };
        let binary = matches!(labeller, Labeller::Binary { .. });
        let mut tally = Tally::new(if binary { 1 } else { classes.len() });
        let batch = usize::try_from(s.scroll_size).unwrap_or(1).max(1);
        self.scan_documents(&selection.indices, &selection.query, batch, &mut |hits| {
            for hit in &hits {
                let (truth, predicted) = labeller.labels(&hit.source, s);
                tally.add(&truth, &predicted);
            }
            h.progress(tally.documents() as i64, percent(tally.documents()))
        })?;
        let (scores, matrix, results) = if binary {
            let matrix = tally.class_scores(0).confusion_matrix.iter().map(|row| row.to_vec()).collect();
            (tally.binary_scores(s.average_function), matrix, Vec::new())
        } else {
            let results = match s.add_individual_results {
                true => classes.iter().cloned().zip(tally.counts().iter().copied()).collect(),
                false => Vec::new(),
            };
            (tally.multilabel_scores(s.average_function), tally.confusion(), results)
        };
        let drawn = matrix.iter().any(|row: &Vec<u64>| !row.is_empty());
        let outcome = Outcome {
            precision: Some(scores.precision),
            recall: Some(scores.recall),
            f1_score: Some(scores.f1_score),
            accuracy: Some(scores.accuracy),
            confusion_matrix: matrix,
            matrix_labels: if drawn { classes.clone() } else { Vec::new() },
            n_true_classes: Some(n_true),
            n_predicted_classes: Some(n_predicted),
            n_total_classes: Some(if binary { 2 } else { classes.len() as u64 }),
            document_count: Some(tally.documents()),
        };
        Ok((outcome, results))
    }

    /// Starts the run of evaluator `id` (in the foreground with an observer: the local CLI);
    /// `linked` runs once the task is linked, before the run.
    fn start_evaluator<T>(
        self: &Arc<Self>,
        pk: i64,
        id: i64,
        observer: Option<Observer>,
        linked: impl FnOnce() -> Result<T>,
    ) -> Result<(i64, T)> {
        let s = stored(&self.resource(Kind::Evaluator, pk, id)?)?;
        let engine = self.clone();
        let job = Box::new(move |h: &TaskHandle| {
            h.step("evaluating")?;
            let (outcome, results) = engine.evaluate(&s, h)?;
            let file = engine.evaluator_results_file(id);
            if results.is_empty() {
                let _ = std::fs::remove_file(&file);
            } else {
                let by_class: Map<String, Value> = (results.into_iter())
                    .map(|(class, c)| (class, json!([c.tp, c.fp, c.fn_])))
                    .collect();
                ModelFile::write(&file, Value::Object(by_class).to_string().as_bytes())?;
            }
            engine.edit_resource(Kind::Evaluator, pk, id, |r| {
                let mut s = stored(r)?;
                s.outcome = outcome;
                engine.store_config(Kind::Evaluator, id, &r.description, &s)
            })
        });
        let kind = TaskKind::Evaluate { evaluator: id };
        self.start_linked_task((Kind::Evaluator, id), pk, &kind, job, observer, linked)
    }

    /// The request-level checks of an evaluator (`non_field_errors`): the facts occur in
    /// the indices, both values or neither, each value a value of its fact, and the average
    /// function fits the evaluation.
    fn check_evaluation(&self, s: &Stored) -> Result<()> {
        let facts = if s.indices.is_empty() {
            Vec::new()
        } else {
            self.search.facts(&s.indices, &json!({"match_all": {}}), MAX_FACT_VALUES)?
        };
        let fact = |name: &str| facts.iter().find(|f| f.name == name);
        let refuse = |msg: String| Err(Error::Invalid(json!({ "non_field_errors": [msg] })));
        for name in [&s.true_fact, &s.predicted_fact] {
            if fact(name).is_none() {
                return refuse(format!(
                    "Fact {} not present in any of the selected indices ({}).",
                    repr(name),
                    repr_list(&s.indices)
                ));
            }
        }
        let (truth, predicted) = (&s.true_fact_value, &s.predicted_fact_value);
        if truth.is_empty() != predicted.is_empty() {
            return refuse(format!(
                "If one of the fact values is specified, the other one should be too. Current fact values: true_fact_value: {}, pred_fact_value: {}.",
                repr(truth),
                repr(predicted)
            ));
        }
        for (name, value) in [(&s.true_fact, truth), (&s.predicted_fact, predicted)] {
            let known = fact(name).is_some_and(|f| f.values.iter().any(|v| &v.value == value));
            if !value.is_empty() && !known {
                return refuse(format!(
                    "Fact value {} not in the list of fact values for fact {}.",
                    repr(value),
                    repr(name)
                ));
            }
        }
        match (s.evaluation_type(), s.average_function) {
            (EvaluationType::Multilabel, Average::Binary) => refuse(
                "Average function 'binary' can only be used for binary evaluation. Available average functions for non-binary evaluation are: ['micro', 'macro', 'samples', 'weighted']."
                    .into(),
            ),
            (EvaluationType::Binary, Average::Samples) => refuse(
                "Average function 'samples' can only be used for multilabel evaluation. Available average functions for binary evaluation are: ['binary', 'micro', 'macro', 'weighted']."
                    .into(),
            ),
            _ => Ok(()),
        }
    }

    /// Creates an evaluator and starts its run (in the foreground with an observer: the
    /// local CLI).
    pub fn create_evaluator(self: &Arc<Self>, ctx: &Ctx, pk: i64, body: &Value, observer: Option<Observer>) -> Result<EvaluatorOut> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let description = f.string("description", Str::REQUIRED.max(1000));
        let indices = parse_index_refs(&mut f, "indices")?;
        let query = super::taggers::parse_query(&mut f);
        let true_fact = f.string("true_fact", Str::REQUIRED);
        let predicted_fact = f.string("predicted_fact", Str::REQUIRED);
        let true_fact_value = f.string("true_fact_value", Str::OPTIONAL.blank());
        let predicted_fact_value = f.string("predicted_fact_value", Str::OPTIONAL.blank());
        let average_function = f.choice("average_function", false);
        let add_individual_results = f.boolean("add_individual_results");
        let scroll_size = f.integer("scroll_size", false, Some(1), Some(10_000));
        let es_timeout = f.integer("es_timeout", false, Some(1), None);
        f.finish()?;
        let selection = self.selection(pk, indices, query)?;
        let stored = Stored {
            indices: selection.indices,
            query: selection.query,
            true_fact: true_fact.unwrap_or_default(),
            predicted_fact: predicted_fact.unwrap_or_default(),
            true_fact_value: true_fact_value.unwrap_or_default(),
            predicted_fact_value: predicted_fact_value.unwrap_or_default(),
            average_function: average_function.unwrap_or_default(),
            add_individual_results: add_individual_results.unwrap_or(true),
            scroll_size: scroll_size.unwrap_or(500),
            es_timeout: es_timeout.unwrap_or(10),
            outcome: Outcome::default(),
        };
        self.check_evaluation(&stored)?;
        let config = serde_json::to_value(&stored).map_err(Error::internal)?;
        let id = self.insert_resource(Kind::Evaluator, ctx, pk, &description.unwrap_or_default(), &config)?;
        // The answer shows the run as it starts.
        let (_, created) = self.start_evaluator(pk, id, observer, || self.get_of::<Evaluators>(ctx, pk, id))?;
        Ok(created)
    }

    /// POST evaluators/{id}/reevaluate/: the run again, over the documents as they are now.
    pub fn reevaluate(self: &Arc<Self>, ctx: &Ctx, pk: i64, id: i64, observer: Option<Observer>) -> Result<ReevaluateOut> {
        self.check_project_access(ctx, pk)?;
        self.idle_resource(Kind::Evaluator, pk, id)?;
        self.start_evaluator(pk, id, observer, || Ok(()))?;
        Ok(ReevaluateOut {
            success: "Re-evaluation task created".into(),
        })
    }

    /// The run of a retried task (`/tasks/{id}/retry/`).
    pub(super) fn rerun_evaluator(self: &Arc<Self>, pk: i64, id: i64) -> Result<i64> {
        self.idle_resource(Kind::Evaluator, pk, id)?;
        Ok(self.start_evaluator(pk, id, None, || Ok(()))?.0)
    }

    /// The per-class results of a multilabel evaluator, in class order (none before its
    /// run, or without `add_individual_results`); 405 for a binary one.
    fn class_results(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<ClassResults> {
        self.check_project_access(ctx, pk)?;
        let s = stored(&self.resource(Kind::Evaluator, pk, id)?)?;
        if s.evaluation_type() == EvaluationType::Binary {
            return Err(Error::NotAllowed(
                "This operation is enabled only for multilabel evaluators.".into(),
            ));
        }
        let Ok(bytes) = std::fs::read(self.evaluator_results_file(id)) else {
            return Ok(Vec::new());
        };
        let by_class: Map<String, Value> = serde_json::from_slice(&bytes).map_err(Error::internal)?;
        let docs = s.outcome.document_count.unwrap_or(0);
        (by_class.into_iter())
            .map(|(class, counts)| {
                let [tp, fp, fn_] = serde_json::from_value::<[u64; 3]>(counts).map_err(Error::internal)?;
                Ok((class, ClassScores::of(Counts { tp, fp, fn_ }, docs)))
            })
            .collect()
    }

    /// GET|POST evaluators/{id}/filtered_average/: the mean scores of the classes the
    /// filter takes (0 each when it takes none).
    pub fn evaluator_filtered_average(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<FilteredAverageOut> {
        let results = self.class_results(ctx, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let filter = ClassFilter::parse(&mut f);
        f.finish()?;
        let taken: Vec<&ClassScores> = results.iter().map(|(_, c)| c).filter(|c| filter.takes(c)).collect();
        let mean = |name: &str| match taken.len() {
            0 => 0.0,
            n => super::evaluation::np_sum(&taken.iter().map(|c| metric(c, name)).collect::<Vec<_>>()) / n as f64,
        };
        Ok(FilteredAverageOut {
            scores: Scores {
                precision: mean("precision"),
                recall: mean("recall"),
                f1_score: mean("f1_score"),
                accuracy: mean("accuracy"),
            },
            count: taken.len(),
        })
    }

    /// GET|POST evaluators/{id}/individual_results/: the classes the filter takes, ordered.
    pub fn evaluator_individual_results(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<IndividualResultsOut> {
        let results = self.class_results(ctx, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let filter = ClassFilter::parse(&mut f);
        let order_by: OrderBy = f.choice("order_by", false).unwrap_or_default();
        let desc = f.boolean("order_desc").unwrap_or(false);
        f.finish()?;
        let mut taken: Vec<(String, ClassScores)> = results.into_iter().filter(|(_, c)| filter.takes(c)).collect();
        let key = |c: &ClassScores| match order_by {
            OrderBy::Alphabetic => 0.0,
            OrderBy::Count => c.count as f64,
            OrderBy::Precision => c.precision,
            OrderBy::Recall => c.recall,
            OrderBy::F1Score => c.f1_score,
            OrderBy::Accuracy => c.accuracy,
        };
        // Stable: classes with equal keys stay in class order, also when descending.
        taken.sort_by(|(x_name, x), (y_name, y)| {
            let order = key(x).total_cmp(&key(y)).then_with(|| match order_by {
                OrderBy::Alphabetic => x_name.cmp(y_name),
                _ => std::cmp::Ordering::Equal,
            });
            if desc {
                order.reverse()
            } else {
                order
            }
        });
        let filtered_results = (taken.into_iter())
            .map(|(class, scores)| Ok((class, serde_json::to_value(scores).map_err(Error::internal)?)))
            .collect::<Result<Map<_, _>>>()?;
        Ok(IndividualResultsOut {
            total: filtered_results.len(),
            filtered_results,
        })
    }

    /// POST evaluators/{id}/misclassified_documents/ (ta extension): the selected documents
    /// whose true and predicted labels differ (with `label`: that value is among exactly one
    /// of them), up to `size`, and how many there are.
    pub fn evaluator_misclassified(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<MisclassifiedOut> {
        self.check_project_access(ctx, pk)?;
        let s = stored(&self.resource(Kind::Evaluator, pk, id)?)?;
        let mut f = Form::new(body, Mode::Full)?;
        let size = f.integer("size", false, Some(1), Some(10_000)).unwrap_or(100) as usize;
        let label = f.string("label", Str::OPTIONAL);
        f.finish()?;
        let selection = s.selection();
        let (mut total, mut documents) = (0u64, Vec::new());
        let batch = usize::try_from(s.scroll_size).unwrap_or(1).max(1);
        self.scan_documents(&selection.indices, &selection.query, batch, &mut |hits| {
            for hit in hits {
                let (truth, predicted) = (fact_values(&hit.source, &s.true_fact), fact_values(&hit.source, &s.predicted_fact));
                let differ = match s.evaluation_type() {
                    EvaluationType::Binary => {
                        truth.contains(s.true_fact_value.as_str()) != predicted.contains(s.predicted_fact_value.as_str())
                    }
                    EvaluationType::Multilabel => truth != predicted,
                };
                let shown = label.as_deref().is_none_or(|l| truth.contains(l) != predicted.contains(l));
                if differ && shown {
                    total += 1;
                    if documents.len() < size {
                        documents.push(MisclassifiedDoc {
                            id: hit.id.clone(),
                            index: hit.index.clone(),
                            truth: truth.iter().map(|v| v.to_string()).collect(),
                            predicted: predicted.iter().map(|v| v.to_string()).collect(),
                        });
                    }
                }
            }
            Ok(())
        })?;
        Ok(MisclassifiedOut { total, documents })
    }

    /// The confusion matrix of evaluator `id`'s last run as a PNG (404 before a run, or
    /// when there were too many classes for a matrix); `GET evaluators/{id}/plot/`.
    pub(super) fn evaluator_png(&self, pk: i64, id: i64) -> Result<Vec<u8>> {
        let o = stored(&self.resource(Kind::Evaluator, pk, id)?)?.outcome;
        if !o.confusion_matrix.iter().any(|row| !row.is_empty()) {
            return Err(Error::not_found());
        }
        let matrix = (o.confusion_matrix.iter())
            .map(|row| row.iter().map(|&n| n as usize).collect())
            .collect();
        super::neural::confusion_png(&super::neural::Confusion { matrix }, &o.matrix_labels).map_err(Error::internal)
    }
}

/// The evaluator kind (`/projects/{pk}/evaluators/`).
pub struct Evaluators;

impl ResourceKind for Evaluators {
    const KIND: Kind = Kind::Evaluator;
    const NOUN: &'static str = "evaluator";
    type Out = EvaluatorOut;
    type In = EvaluatorIn;
    const ORDER_KEYS: &'static [&'static str] = &["f1_score", "precision", "recall"];

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<EvaluatorOut> {
        e.render_evaluator(ctx, r)
    }

    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<EvaluatorOut> {
        e.create_evaluator(ctx, pk, body, None)
    }

    /// Only `description` changes; `reevaluate` runs again.
    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        super::mlp_index::update_description(e, Kind::Evaluator, r, body, mode)
    }

    fn deleting(e: &Engine, r: &Resource) -> Result<()> {
        let _ = std::fs::remove_file(e.evaluator_results_file(r.id));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_documents_labels_are_its_fact_values_as_classes() {
        let doc = json!({"texta_facts": [
            {"fact": "GOLD", "str_val": "b"}, {"fact": "GOLD", "str_val": "a"}, {"fact": "GOLD", "str_val": "b"},
            {"fact": "PRED", "str_val": "a"}, {"fact": "PRED", "str_val": "unknown"}, {"fact": "OTHER", "str_val": "c"},
        ]});
        let s = Stored {
            true_fact: "GOLD".into(),
            predicted_fact: "PRED".into(),
            ..Stored::default()
        };
        let classes = [("a", 0), ("b", 1), ("c", 2)].map(|(c, i)| (c.to_string(), i));
        let multilabel = Labeller::Multilabel(classes.into_iter().collect());
        assert_eq!(multilabel.labels(&doc, &s), (vec![0, 1], vec![0]));
        let binary = Labeller::Binary {
            truth: "b".into(),
            predicted: "b".into(),
        };
        assert_eq!(binary.labels(&doc, &s), (vec![0], vec![]));
        assert_eq!(binary.labels(&json!({"text": "no facts"}), &s), (vec![], vec![]));
    }
}
