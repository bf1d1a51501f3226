//! Neural taggers ("torchtaggers") as project resources (`api.md` §10, `models.md` §4):
//! validation, storage, the training task (a binary or fact sample from the project's indices,
//! or labelled lines of a file, then `neural::train` with per-epoch progress), the model and
//! plot files, tagging one text or a batch, export and import. The networks live in `neural`.
use super::error::{Error, Result};
use super::feedback::FeedbackLink;
use super::indices::{parse_index_objects, IndexOut};
use super::kinds::ResourceKind;
use super::lines::flat_get;
use super::models::ModelFile;
use super::neural::{self, Architecture, EpochReport, NeuralError, NeuralTagger, TrainSettings, MAX_EPOCHS};
use super::resources::{resource_url, Kind, Resource};
use super::sample::{fact_query, field_texts};
use super::taggers::{match_all, parse_query};
use super::tasks::{Observer, TaskHandle, TaskKind, TaskOut};
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most texts one tag_texts request may carry.
pub const MAX_BATCH_TEXTS: usize = 10_000;
/// How often a running training writes its progress to the task.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// An epoch's validation figures as the resource shows them: strings of 3 decimals.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct EpochReportOut {
    pub f1_score: String,
    pub precision: String,
    pub recall: String,
    pub accuracy: String,
    pub training_loss: String,
}

impl From<&EpochReport> for EpochReportOut {
    fn from(r: &EpochReport) -> Self {
        let round = neural::round3;
        EpochReportOut {
            f1_score: round(r.scores.f1),
            precision: round(r.scores.precision),
            recall: round(r.scores.recall),
            accuracy: round(r.scores.accuracy),
            training_loss: round(r.training_loss),
        }
    }
}

/// The neural tagger resource on the wire, fields in the reference's order.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TorchTaggerOut {
    pub url: String,
    pub author_username: String,
    pub id: i64,
    pub description: String,
    /// The query as a JSON string.
    pub query: String,
    pub fields: Vec<String>,
    pub embedding: Option<i64>,
    pub f1_score: Option<f64>,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub accuracy: Option<f64>,
    pub model_architecture: Architecture,
    pub maximum_sample_size: i64,
    pub minimum_sample_size: i64,
    pub num_epochs: i64,
    pub plot: Option<String>,
    pub task: Option<TaskOut>,
    pub fact_name: Option<String>,
    pub epoch_reports: Vec<EpochReportOut>,
    pub indices: Vec<IndexOut>,
}

/// The body that creates or changes a neural tagger.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TorchTaggerIn {
    pub description: String,
    pub fields: Vec<String>,
    pub indices: Option<Vec<super::operations::regex::IndexName>>,
    /// Elasticsearch query whose matches are the positives (binary mode; default: all documents).
    #[schema(value_type = Option<Object>)]
    pub query: Option<Value>,
    /// A trained embedding whose vectors are used frozen; null: the tagger learns its own.
    pub embedding: Option<i64>,
    pub model_architecture: Architecture,
    /// Training epochs, 1 to 1000 (default 5).
    pub num_epochs: Option<i64>,
    /// Train one class per value of this fact instead of query-vs-rest.
    pub fact_name: Option<String>,
    /// Most documents per class (default 100000).
    pub maximum_sample_size: Option<i64>,
    /// Fewest documents a fact value needs to become a class (default 50).
    pub minimum_sample_size: Option<i64>,
}

/// Figures filled in when training completes (on the test part).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Metrics {
    pub f1_score: f64,
    pub precision: f64,
    pub recall: f64,
    pub accuracy: f64,
}

/// What is stored per neural tagger besides the description.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Stored {
    pub fields: Vec<String>,
    pub indices: Vec<String>,
    pub query: Value,
    pub embedding: Option<i64>,
    pub model_architecture: Architecture,
    pub num_epochs: i64,
    pub fact_name: Option<String>,
    pub maximum_sample_size: i64,
    pub minimum_sample_size: i64,
    #[serde(default)]
    pub metrics: Option<Metrics>,
    #[serde(default)]
    pub epoch_reports: Vec<EpochReportOut>,
    /// Seed of the split, initialisation, shuffling and dropout (`models.md` §4.3 DECISION);
    /// only train_file sets another.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// `adam` (default) or `sgd` (the reference's plain SGD); only train_file sets another.
    #[serde(default)]
    pub optimizer: neural::Optimizer,
}

fn default_seed() -> u64 {
    TrainSettings::new(Architecture::FastText).seed
}

impl Default for Stored {
    fn default() -> Self {
        Stored {
            fields: Vec::new(),
            indices: Vec::new(),
            query: match_all(),
            embedding: None,
            model_architecture: Architecture::TextRnn,
            num_epochs: 5,
            fact_name: None,
            maximum_sample_size: 100_000,
            minimum_sample_size: 50,
            metrics: None,
            epoch_reports: Vec::new(),
            seed: default_seed(),
            optimizer: neural::Optimizer::default(),
        }
    }
}

impl Stored {
    fn settings(&self) -> TrainSettings {
        TrainSettings {
            epochs: usize::try_from(self.num_epochs).unwrap_or(0),
            seed: self.seed,
            optimizer: self.optimizer,
            ..TrainSettings::new(self.model_architecture)
        }
    }
}

pub fn stored(r: &Resource) -> Stored {
    serde_json::from_value(r.config.clone()).unwrap_or_default()
}

/// Labelled texts ready for training: each text with its class index into `classes`.
pub struct Examples {
    pub texts: Vec<(String, usize)>,
    pub classes: Vec<String>,
}

/// `{"result", "probability"}` of tag_text.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TorchTagOut {
    /// The predicted class: `"true"`/`"false"`, or a fact value.
    pub result: String,
    pub probability: f64,
    /// Where the prediction was kept, when asked with `feedback_enabled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<FeedbackLink>,
}

pub fn neural_error(e: NeuralError) -> Error {
    match e {
        NeuralError::Backend(e) => Error::Internal(format!("tensor backend error: {e}")),
        other => Error::BadRequest(other.to_string()),
    }
}

/// Joins a document's training-field texts with one space, in the order of `fields`
/// (`models.md` 0.3 DECISION).
fn joined(doc: &Value, fields: &[String]) -> String {
    field_texts(doc, fields).join(" ")
}

/// The text of one batch input line: a text line as it is, a document's `fields` joined
/// (the document must hold them, as tag_doc of taggers requires).
pub fn batch_text(line: &str, fields: &[String]) -> Result<String> {
    match super::lines::BatchItem::parse(line) {
        super::lines::BatchItem::Text(text) => Ok(text),
        super::lines::BatchItem::Doc(doc) => Ok(super::taggers::doc_texts(doc.as_object(), fields)?.join(" ")),
    }
}

impl Engine {
    /// Validates a neural tagger body onto `base`.
    fn parse_torchtagger(&self, pk: i64, body: &Value, mode: Mode, base: &Stored, description: &str) -> Result<(String, Stored)> {
        let mut s = base.clone();
        let mut f = Form::new(body, mode)?;
        let description = f
            .string("description", Str::REQUIRED.max(1000))
            .unwrap_or_else(|| description.to_string());
        if let Some(fields) = f.strings("fields", List::REQUIRED, Str::REQUIRED) {
            self.check_project_fields(&mut f, pk, &fields)?;
            s.fields = fields;
        }
        if let Some(indices) = parse_index_objects(&mut f, "indices")? {
            s.indices = indices;
        }
        if let Some(q) = parse_query(&mut f) {
            s.query = q;
        }
        if let Some(e) = self.embedding_ref(&mut f, pk) {
            s.embedding = e;
        }
        if let Some(a) = f.choice("model_architecture", true) {
            s.model_architecture = a;
        }
        if let Some(n) = f.integer("num_epochs", false, Some(1), Some(MAX_EPOCHS as i64)) {
            s.num_epochs = n;
        }
        if let Some(name) = f.nullable_string("fact_name", Str::OPTIONAL.max(1000)) {
            s.fact_name = name.filter(|n| !n.is_empty());
        }
        if let Some(n) = f.integer("maximum_sample_size", false, Some(1), None) {
            s.maximum_sample_size = n;
        }
        if let Some(n) = f.integer("minimum_sample_size", false, Some(1), None) {
            s.minimum_sample_size = n;
        }
        f.finish()?;
        self.resolve_indices(pk, Some(s.indices.clone()))?;
        Ok((description, s))
    }

    fn render_torchtagger(&self, ctx: &Ctx, r: &Resource) -> Result<TorchTaggerOut> {
        let s = stored(r);
        let m = s.metrics.clone();
        let plot = self
            .model_file(Kind::TorchTagger, r.id, "png")
            .exists()
            .then(|| self.plot_url(ctx, Kind::TorchTagger, r.project_id, r.id));
        Ok(TorchTaggerOut {
            url: resource_url(ctx, r.project_id, Kind::TorchTagger, r.id),
            author_username: r.author_username.clone(),
            id: r.id,
            description: r.description.clone(),
            query: super::pytext::json_dumps(&s.query),
            fields: s.fields.clone(),
            embedding: s.embedding,
            f1_score: m.as_ref().map(|m| m.f1_score),
            precision: m.as_ref().map(|m| m.precision),
            recall: m.as_ref().map(|m| m.recall),
            accuracy: m.as_ref().map(|m| m.accuracy),
            model_architecture: s.model_architecture,
            maximum_sample_size: s.maximum_sample_size,
            minimum_sample_size: s.minimum_sample_size,
            num_epochs: s.num_epochs,
            plot,
            task: self.linked_task(r)?,
            fact_name: s.fact_name.clone(),
            epoch_reports: s.epoch_reports.clone(),
            indices: self.index_objects(ctx, &s.indices)?,
        })
    }

    /// Validates and stores a neural tagger and starts its training: in the background (the
    /// answer shows the task `created`) or, with an observer (local CLI), in the foreground.
    pub fn create_torchtagger(self: &Arc<Self>, ctx: &Ctx, pk: i64, body: &Value, observer: Option<Observer>) -> Result<TorchTaggerOut> {
        self.check_project_access(ctx, pk)?;
        let (description, s) = self.parse_torchtagger(pk, body, Mode::Full, &Stored::default(), "")?;
        let id = self.insert_resource(
            Kind::TorchTagger,
            ctx,
            pk,
            &description,
            &serde_json::to_value(&s).map_err(Error::internal)?,
        )?;
        let launched = self.launch_torchtagger_training(pk, id, None, observer, || self.get_of::<TorchTaggers>(ctx, pk, id))?;
        Ok(launched.1)
    }

    /// Starts (or restarts) training of a stored neural tagger as a new task; `examples`
    /// given (a file) instead of sampling the indices.
    pub fn start_torchtagger_training(
        self: &Arc<Self>,
        pk: i64,
        id: i64,
        examples: Option<Examples>,
        observer: Option<Observer>,
    ) -> Result<i64> {
        Ok(self.launch_torchtagger_training(pk, id, examples, observer, || Ok(()))?.0)
    }

    /// `start_torchtagger_training` with `linked` run once the new task is linked (`start_linked_task`).
    fn launch_torchtagger_training<T>(
        self: &Arc<Self>,
        pk: i64,
        id: i64,
        examples: Option<Examples>,
        observer: Option<Observer>,
        linked: impl FnOnce() -> Result<T>,
    ) -> Result<(i64, T)> {
        let task = match examples {
            Some(_) => TaskKind::TrainTorchTaggerFromFile { torchtagger: id },
            None => TaskKind::TrainTorchTagger { torchtagger: id },
        };
        self.launch_training(
            (Kind::TorchTagger, id),
            pk,
            task,
            (Self::train_torchtagger, examples),
            observer,
            linked,
        )
    }

    /// The training task: sample, train with per-epoch progress, write the model and plot
    /// atomically, store the figures. A failure leaves the previous model (if any) in place.
    fn train_torchtagger(&self, pk: i64, id: i64, examples: Option<Examples>, h: &TaskHandle) -> Result<()> {
        let r = self.resource(Kind::TorchTagger, pk, id)?;
        let mut s = stored(&r);
        let settings = s.settings();
        let Examples { texts, classes } = match examples {
            Some(e) => e,
            None => self.sample_torchtagger(pk, &s, h)?,
        };
        let embedding = match s.embedding {
            Some(e) => Some(
                self.embedding_model(pk, e)
                    .map_err(|_| Error::BadRequest(format!("embedding {e} has no trained model: train it first")))?,
            ),
            None => None,
        };
        h.step("training")?;
        let refs: Vec<(&str, usize)> = texts.iter().map(|(t, c)| (t.as_str(), *c)).collect();
        let (mut last_write, mut loss_sum, mut loss_n) = (Instant::now(), 0.0f64, 0usize);
        let mut progress = |p: neural::Progress| -> ControlFlow<()> {
            if let neural::Progress::Batch {
                epoch,
                epochs,
                batch,
                batches,
                loss,
            } = p
            {
                if batch == 0 {
                    (loss_sum, loss_n) = (0.0, 0);
                    if epoch == 0 && h.set_total((epochs * batches) as i64).is_err() {
                        return ControlFlow::Break(());
                    }
                }
                loss_sum += f64::from(loss);
                loss_n += 1;
                if batch + 1 == batches || last_write.elapsed() >= PROGRESS_EVERY {
                    last_write = Instant::now();
                    let done = epoch * batches + batch + 1;
                    let step = format!("epoch {}/{epochs}, loss {:.3}", epoch + 1, loss_sum / loss_n as f64);
                    let written = h
                        .step(&step)
                        .and_then(|_| h.progress(done as i64, 100.0 * done as f64 / (epochs * batches).max(1) as f64));
                    if written.is_err() {
                        return ControlFlow::Break(());
                    }
                }
            }
            ControlFlow::Continue(())
        };
        let vectors = embedding.as_deref().map(|e| e as &dyn neural::WordVectors);
        let outcome = neural::train(&refs, &classes, &settings, vectors, &mut progress).map_err(neural_error)?;
        h.step("saving")?;
        ModelFile::write(
            &self.model_file(Kind::TorchTagger, id, "model"),
            &outcome.tagger.to_bytes().map_err(neural_error)?,
        )?;
        if let Ok(png) = neural::confusion_png(&outcome.confusion, &classes) {
            ModelFile::write(&self.model_file(Kind::TorchTagger, id, "png"), &png)?;
        }
        self.models.evict(Kind::TorchTagger, id);
        let t = outcome.test_scores;
        s.metrics = Some(Metrics {
            f1_score: t.f1,
            precision: t.precision,
            recall: t.recall,
            accuracy: t.accuracy,
        });
        s.epoch_reports = outcome.epoch_reports.iter().map(EpochReportOut::from).collect();
        // The description may have changed while training ran: keep the stored one.
        self.edit_resource(Kind::TorchTagger, pk, id, |now| {
            self.store_config(Kind::TorchTagger, id, &now.description, &s)
        })
    }

    /// The training sample (`models.md` 0.3): binary (query vs a sample of the rest) or, with
    /// `fact_name`, one class per fact value held by at least `minimum_sample_size`
    /// documents, plus `false` when only one value qualifies.
    fn sample_torchtagger(&self, pk: i64, s: &Stored, h: &TaskHandle) -> Result<Examples> {
        let indices = self.resolve_indices(pk, Some(s.indices.clone()))?;
        let Some(fact) = &s.fact_name else {
            let binary = self.sample_binary(&indices, &s.query, &s.fields, (s.maximum_sample_size, 1), h)?;
            let join = |docs: Vec<Vec<String>>, class| docs.into_iter().map(move |d| (d.join(" "), class));
            let texts = join(binary.positives, 0).chain(join(binary.negatives, 1)).collect();
            return Ok(Examples {
                texts,
                classes: vec!["true".into(), "false".into()],
            });
        };
        if indices.is_empty() {
            return Err(Error::BadRequest("no indices: the project has no indices to train on".into()));
        }
        h.step("counting fact values")?;
        let min = u64::try_from(s.minimum_sample_size).unwrap_or(0);
        let values: Vec<String> = self.fact_values(&indices, fact, min)?.into_iter().map(|(v, _)| v).collect();
        if values.is_empty() {
            return Err(Error::BadRequest(format!("no classes found for fact name: {fact}")));
        }
        let max = usize::try_from(s.maximum_sample_size).unwrap_or(usize::MAX);
        let (mut texts, mut keys) = (Vec::new(), HashSet::new());
        for (class, value) in values.iter().enumerate() {
            h.step(&format!("scrolling class {}/{}", class + 1, values.len()))?;
            let drawn = self.sample_matching(&indices, &fact_query(fact, value), &s.fields, max)?;
            texts.extend(drawn.texts.into_iter().map(|d| (d.join(" "), class)));
            keys.extend(drawn.keys);
        }
        let mut classes = values;
        if classes.len() == 1 {
            h.step("scrolling negative sample")?;
            let negatives = self.sample_others(&indices, &keys, &s.fields, texts.len())?;
            if negatives.is_empty() {
                return Err(Error::BadRequest(format!(
                    "class \"false\" is empty: every document has fact {fact} = {}",
                    classes[0]
                )));
            }
            texts.extend(negatives.into_iter().map(|d| (d.join(" "), 1)));
            classes.push("false".into());
        }
        Ok(Examples { texts, classes })
    }

    /// The loaded model of a neural tagger, or the reference's 400 when it has none yet.
    pub fn torchtagger_model(&self, r: &Resource) -> Result<Arc<NeuralTagger>> {
        self.models
            .get_or_load(
                Kind::TorchTagger,
                r.id,
                &self.model_file(Kind::TorchTagger, r.id, "model"),
                |bytes| NeuralTagger::from_bytes(bytes).map_err(neural_error),
            )?
            .ok_or_else(|| Error::BadRequest("Model does not exist".into()))
    }

    /// Tags texts with a loaded model, in input order.
    fn torch_tag(model: &NeuralTagger, texts: &[&str]) -> Result<Vec<TorchTagOut>> {
        Ok(model
            .tag(texts)
            .map_err(neural_error)?
            .into_iter()
            .map(|(class, p)| TorchTagOut {
                result: model.classes()[class].clone(),
                // The f32's shortest decimal form: what a client parses back is this very number.
                probability: p.to_string().parse().unwrap_or(f64::from(p)),
                feedback: None,
            })
            .collect())
    }

    /// POST torchtaggers/{id}/tag_text/ `{text, lemmatize, feedback_enabled}` (`lemmatize`
    /// is accepted and ignored: the network reads raw text).
    pub fn torchtagger_tag_text(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<TorchTagOut> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::TorchTagger, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let text = f.string("text", super::regex_taggers::TEXT);
        let _lemmatize = f.boolean("lemmatize");
        let feedback = f.boolean("feedback_enabled").unwrap_or(false);
        f.finish()?;
        let text = text.unwrap_or_default();
        let model = self.torchtagger_model(&r)?;
        let mut out = Self::torch_tag(&model, &[text.as_str()])?
            .pop()
            .ok_or_else(|| Error::internal("no prediction"))?;
        if feedback {
            out.feedback = Some(self.keep_feedback(ctx, (Kind::TorchTagger, &r), &Value::from(text), &out)?);
        }
        Ok(out)
    }

    /// POST torchtaggers/{id}/tag_texts/ `{texts}` (ta extension): many texts in one
    /// batched pass, results in input order.
    pub fn torchtagger_tag_texts(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<Vec<TorchTagOut>> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::TorchTagger, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let texts = f.strings(
            "texts",
            List::REQUIRED.max(MAX_BATCH_TEXTS),
            Str::OPTIONAL.blank().untrimmed().max(super::regex_taggers::MAX_TEXT_CHARS),
        );
        f.finish()?;
        let texts = texts.unwrap_or_default();
        let model = self.torchtagger_model(&r)?;
        Self::torch_tag(&model, &texts.iter().map(String::as_str).collect::<Vec<_>>())
    }

    /// POST torchtaggers/{id}/tag_random_doc/ → `{document, prediction}`.
    pub fn torchtagger_tag_random_doc(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<Value> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::TorchTagger, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let indices = parse_index_objects(&mut f, "indices")?;
        f.finish()?;
        let model = self.torchtagger_model(&r)?;
        let hit = self.random_document(pk, indices)?;
        let text = joined(&hit.source, &stored(&r).fields);
        let prediction = Self::torch_tag(&model, &[text.as_str()])?.pop();
        let document = Value::Object(super::regex_tagger::ops::flatten(&hit.source));
        Ok(json!({"document": document, "prediction": prediction}))
    }

    /// POST torchtaggers/{id}/retrain_tagger/: a new training task; the old model serves
    /// until the new one is written.
    pub fn retrain_torchtagger(self: &Arc<Self>, ctx: &Ctx, pk: i64, id: i64) -> Result<super::operations::taggers::SuccessOut> {
        self.check_project_access(ctx, pk)?;
        self.idle_resource(Kind::TorchTagger, pk, id)?;
        self.start_torchtagger_training(pk, id, None, None)?;
        Ok(super::operations::taggers::SuccessOut {
            success: "retraining task created".into(),
        })
    }
}

/// What `train_file` reads from its form besides the file.
struct FileTraining {
    description: String,
    stored: Stored,
    label_field: String,
    /// With a positive label the model is binary (`true` = that label); without, every
    /// label is a class.
    positive: Option<String>,
}

/// Labelled texts from a JSONL file: each line's `fields` joined, its class the value at
/// `label_field` (lines without one are skipped); classes most frequent first.
fn read_examples(path: &std::path::Path, t: &FileTraining) -> Result<Examples> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).map_err(|e| Error::BadRequest(format!("cannot read the examples file: {e}")))?;
    let mut labelled: Vec<(String, String)> = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| Error::BadRequest(format!("examples file, line {}: {e}", n + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        let doc: Value =
            serde_json::from_str(&line).map_err(|e| Error::BadRequest(format!("examples file, line {}: not JSON: {e}", n + 1)))?;
        let label = match flat_get(&doc, &t.label_field) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => continue,
            Some(other) => other.to_string(),
        };
        let label = match &t.positive {
            Some(p) => (label == *p).to_string(),
            None => label,
        };
        labelled.push((joined(&doc, &t.stored.fields), label));
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, label) in &labelled {
        *counts.entry(label).or_default() += 1;
    }
    let classes: Vec<String> = match &t.positive {
        Some(_) => vec!["true".into(), "false".into()],
        None => {
            let mut by_count: Vec<(&str, usize)> = counts.iter().map(|(k, v)| (*k, *v)).collect();
            by_count.sort_by_key(|c| std::cmp::Reverse(c.1));
            by_count.into_iter().map(|(k, _)| k.to_string()).collect()
        }
    };
    if let Some(p) = &t.positive {
        if !counts.contains_key("true") {
            return Err(Error::field(
                "positive",
                format!("No line of the file has {} = {p}.", t.label_field),
            ));
        }
        if !counts.contains_key("false") {
            return Err(Error::field(
                "positive",
                format!("Every labelled line has {} = {p}: nothing to tell them from.", t.label_field),
            ));
        }
    }
    if classes.len() < 2 {
        return Err(Error::field(
            "label_field",
            format!(
                "The file's lines have {} distinct value(s) of {}; at least two classes are needed.",
                classes.len(),
                t.label_field
            ),
        ));
    }
    let index: BTreeMap<String, usize> = classes.iter().enumerate().map(|(i, c)| (c.clone(), i)).collect();
    let texts = labelled.into_iter().map(|(text, label)| (text, index[&label])).collect();
    Ok(Examples { texts, classes })
}

fn parse_file_training(e: &Engine, pk: i64, body: &Value, file_sent: bool) -> Result<FileTraining> {
    let mut f = Form::new(body, Mode::Full)?;
    let description = f.string("description", Str::REQUIRED.max(1000));
    let fields = f.strings("fields", List::REQUIRED.non_empty(), Str::REQUIRED);
    let label_field = f.string("label_field", Str::REQUIRED);
    let positive = f.string("positive", Str::OPTIONAL);
    let architecture = f.choice("model_architecture", true);
    let epochs = f.integer("num_epochs", false, Some(1), Some(MAX_EPOCHS as i64));
    let embedding = e.embedding_ref(&mut f, pk).flatten();
    let seed = f.integer("seed", false, Some(0), None);
    let optimizer = f.choice("optimizer", false);
    if !file_sent {
        f.fail("file", "No file was submitted.");
    }
    f.finish()?;
    let stored = Stored {
        fields: fields.unwrap_or_default(),
        model_architecture: architecture.unwrap_or(Architecture::TextRnn),
        num_epochs: epochs.unwrap_or(5),
        embedding,
        seed: seed.map_or_else(default_seed, |s| s as u64),
        optimizer: optimizer.unwrap_or_default(),
        ..Stored::default()
    };
    Ok(FileTraining {
        description: description.unwrap_or_default(),
        stored,
        label_field: label_field.unwrap_or_default(),
        positive: positive.filter(|p| !p.is_empty()),
    })
}

impl Engine {
    /// POST torchtaggers/train_file/ (ta extension, multipart): trains a neural tagger from a
    /// labelled JSONL file instead of index documents. With an observer (local CLI) training
    /// runs in the foreground and the answer carries the figures.
    pub fn train_torchtagger_file(
        self: &Arc<Self>,
        ctx: &Ctx,
        pk: i64,
        body: &Value,
        observer: Option<Observer>,
    ) -> Result<TorchTaggerOut> {
        self.check_project_access(ctx, pk)?;
        let upload = super::dataset_imports::Upload::from_body(body);
        let result = parse_file_training(self, pk, body, upload.is_some()).and_then(|t| {
            let path = upload.as_ref().map(|u| u.path.clone()).unwrap_or_default();
            let examples = read_examples(&path, &t)?;
            let id = self.insert_resource(
                Kind::TorchTagger,
                ctx,
                pk,
                &t.description,
                &serde_json::to_value(&t.stored).map_err(Error::internal)?,
            )?;
            self.start_torchtagger_training(pk, id, Some(examples), observer)?;
            self.get_of::<TorchTaggers>(ctx, pk, id)
        });
        if let Some(u) = upload.filter(|u| u.owned) {
            let _ = std::fs::remove_file(&u.path);
        }
        result
    }

    /// GET torchtaggers/{id}/export_model/: settings, model and plot in one file.
    pub fn export_torchtagger(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<Vec<u8>> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::TorchTagger, pk, id)?;
        self.export_trained(Kind::TorchTagger, &r)
    }

    /// POST torchtaggers/import_model/ (multipart `file`): a new neural tagger from an
    /// export; the model is checked before anything is stored.
    pub fn import_torchtagger(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<TorchTaggerOut> {
        self.check_project_access(ctx, pk)?;
        let archive = self.uploaded_export(body, "torchtagger")?;
        let model = archive
            .files
            .get("model.bin")
            .ok_or_else(|| Error::field("file", "The export holds no model."))?;
        NeuralTagger::from_bytes(model).map_err(|e| Error::field("file", e.to_string()))?;
        let mut s: Stored =
            serde_json::from_value(archive.config).map_err(|e| Error::field("file", format!("Unreadable neural tagger settings: {e}")))?;
        // Links to the exporting project's objects do not travel.
        s.embedding = None;
        s.indices.clear();
        let id = self.insert_resource(
            Kind::TorchTagger,
            ctx,
            pk,
            &archive.description,
            &serde_json::to_value(&s).map_err(Error::internal)?,
        )?;
        ModelFile::write(&self.model_file(Kind::TorchTagger, id, "model"), model)?;
        if let Some(plot) = archive.files.get("plot.png") {
            ModelFile::write(&self.model_file(Kind::TorchTagger, id, "png"), plot)?;
        }
        let task = self.create_task(&TaskKind::ImportModel, Some(pk))?;
        self.set_resource_task(Kind::TorchTagger, id, task)?;
        self.run_task(task, Box::new(|_| Ok(())), Some(Box::new(|_| {})));
        self.get_of::<TorchTaggers>(ctx, pk, id)
    }
}

/// The neural tagger kind (`/projects/{pk}/torchtaggers/`).
pub struct TorchTaggers;

impl ResourceKind for TorchTaggers {
    const KIND: Kind = Kind::TorchTagger;
    const NOUN: &'static str = "neural tagger";
    type Out = TorchTaggerOut;
    type In = TorchTaggerIn;

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<TorchTaggerOut> {
        e.render_torchtagger(ctx, r)
    }

    /// Training starts in the background; the answer shows the task `created`.
    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<TorchTaggerOut> {
        e.create_torchtagger(ctx, pk, body, None)
    }

    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        let (description, s) = e.parse_torchtagger(r.project_id, body, mode, &stored(r), &r.description)?;
        e.store_config(Kind::TorchTagger, r.id, &description, &s)
    }

    fn deleting(e: &Engine, r: &Resource) -> Result<()> {
        e.remove_model_files(Kind::TorchTagger, r.id);
        Ok(())
    }
}
