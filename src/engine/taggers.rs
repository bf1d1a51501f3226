//! Taggers (trained text classifiers) as project resources (`api.md` §6, `models.md` §1):
//! validation, storage, the training task (data sample from the project's indices or from
//! given examples, then `classifier::train`), the model files, and tagging. The learning
//! itself lives in `classifier`.
use super::classifier::{self, ClassifierKind, Hooks, Model, Settings, Tokenization, VectorizerKind};
use super::error::{Error, Result};
use super::feedback::FeedbackLink;
use super::indices::{parse_index_objects, IndexOut};
use super::kinds::ResourceKind;
use super::lines::flat_get;
use super::models::ModelFile;
use super::resources::{resource_url, Kind, Resource};
use super::sample::field_texts;
use super::tasks::{Observer, TaskHandle, TaskKind, TaskOut};
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;

/// The tagger resource on the wire, fields in the reference's order.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TaggerOut {
    pub id: i64,
    pub url: String,
    pub author_username: String,
    pub description: String,
    /// The query as a JSON string.
    pub query: String,
    pub fields: Vec<String>,
    pub embedding: Option<i64>,
    pub vectorizer: VectorizerKind,
    pub classifier: ClassifierKind,
    pub stop_words: String,
    pub maximum_sample_size: i64,
    pub score_threshold: f64,
    pub negative_multiplier: i64,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1_score: Option<f64>,
    pub num_features: Option<i64>,
    pub num_positives: Option<i64>,
    pub num_negatives: Option<i64>,
    pub plot: Option<String>,
    pub task: Option<TaskOut>,
    pub indices: Vec<IndexOut>,
    pub tagger_groups: Vec<String>,
}

/// The body that creates or changes a tagger.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TaggerIn {
    pub description: String,
    pub fields: Vec<String>,
    pub indices: Option<Vec<super::operations::regex::IndexName>>,
    /// Elasticsearch query whose matches are the positive examples (default: all documents).
    #[schema(value_type = Option<Object>)]
    pub query: Option<Value>,
    pub embedding: Option<i64>,
    /// Default: the first choice.
    pub vectorizer: Option<VectorizerKind>,
    /// Default: the first choice.
    pub classifier: Option<ClassifierKind>,
    pub maximum_sample_size: Option<i64>,
    pub score_threshold: Option<f64>,
    pub negative_multiplier: Option<i64>,
}

/// Figures filled in when training completes.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Metrics {
    pub precision: f64,
    pub recall: f64,
    pub f1_score: f64,
    pub num_features: i64,
    pub num_positives: i64,
    pub num_negatives: i64,
}

/// What is stored per tagger besides the description.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Stored {
    pub fields: Vec<String>,
    pub indices: Vec<String>,
    pub query: Value,
    pub embedding: Option<i64>,
    pub vectorizer: VectorizerKind,
    pub classifier: ClassifierKind,
    #[serde(default)]
    pub stop_words: String,
    pub maximum_sample_size: i64,
    pub score_threshold: f64,
    pub negative_multiplier: i64,
    #[serde(default)]
    pub metrics: Option<Metrics>,
}

impl Default for Stored {
    fn default() -> Self {
        Stored {
            fields: Vec::new(),
            indices: Vec::new(),
            query: match_all(),
            embedding: None,
            vectorizer: VectorizerKind::Hashing,
            classifier: ClassifierKind::LogisticRegression,
            stop_words: String::new(),
            maximum_sample_size: 10_000,
            score_threshold: 0.0,
            negative_multiplier: 1,
            metrics: None,
        }
    }
}

impl Stored {
    pub fn settings(&self) -> Settings {
        Settings {
            fields: self.fields.clone(),
            vectorizer: self.vectorizer,
            classifier: self.classifier,
            stop_words: self.stop_words.clone(),
            tokenization: Tokenization::Words,
        }
    }
}

pub fn match_all() -> Value {
    json!({"query": {"match_all": {}}})
}

pub fn stored(r: &Resource) -> Stored {
    serde_json::from_value(r.config.clone()).unwrap_or_default()
}

/// `query` as given: an object, or a JSON string holding one.
pub fn parse_query(f: &mut Form) -> Option<Value> {
    match f.raw("query")? {
        Value::Object(o) => Some(Value::Object(o.clone())),
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => Some(v),
            _ => {
                f.fail("query", "Value must be valid JSON.");
                None
            }
        },
        Value::Null => None,
        _ => {
            f.fail("query", "Value must be valid JSON.");
            None
        }
    }
}

impl Engine {
    /// Validates `fields` against the project's fields (`api.md` §5 rule).
    pub fn check_project_fields(&self, f: &mut Form, pk: i64, fields: &[String]) -> Result<()> {
        let known: Vec<String> = self.project_field_paths(pk)?.into_iter().collect();
        if fields.is_empty() || fields.iter().any(|x| !known.contains(x)) {
            let set = if known.is_empty() {
                "set()".to_string()
            } else {
                format!(
                    "{{{}}}",
                    known.iter().map(|k| super::pytext::repr(k)).collect::<Vec<_>>().join(", ")
                )
            };
            f.fail("fields", format!("Entered fields not in current project fields: {set}"));
        }
        Ok(())
    }

    /// `embedding` of a model body: absent (`None`), `null`, or the id of an embedding of
    /// project `pk` (else the reference's "Invalid pk" message).
    pub(crate) fn embedding_ref(&self, f: &mut Form, pk: i64) -> Option<Option<i64>> {
        match f.raw("embedding")? {
            Value::Null => Some(None),
            other => match other.as_i64().filter(|id| self.resource(Kind::Embedding, pk, *id).is_ok()) {
                Some(id) => Some(Some(id)),
                None => {
                    let shown = other.as_str().map_or_else(|| other.to_string(), str::to_string);
                    f.fail("embedding", format!("Invalid pk \"{shown}\" - object does not exist."));
                    None
                }
            },
        }
    }

    /// Validates a tagger body onto `base`.
    fn parse_tagger(&self, pk: i64, body: &Value, mode: Mode, base: &Stored, description: &str) -> Result<(String, Stored)> {
        let mut s = base.clone();
        let mut f = Form::new(body, mode)?;
        let description = f
            .string("description", Str::REQUIRED.max(1000))
            .unwrap_or_else(|| description.to_string());
        self.parse_tagger_settings(&mut f, pk, &mut s, true)?;
        f.finish()?;
        let indices = self.resolve_indices(pk, Some(s.indices.clone()))?;
        if s.indices.is_empty() && !indices.is_empty() {
            s.indices.clear();
        }
        Ok((description, s))
    }

    /// Validates the settings of a tagger body (all but `description`; `query` only
    /// `with_query`) onto `s`, recording field errors in `f`. A tagger group's `tagger` object
    /// is read by the same rules.
    pub(crate) fn parse_tagger_settings(&self, f: &mut Form, pk: i64, s: &mut Stored, with_query: bool) -> Result<()> {
        if let Some(fields) = f.strings("fields", List::REQUIRED, Str::REQUIRED) {
            self.check_project_fields(f, pk, &fields)?;
            s.fields = fields;
        }
        if let Some(indices) = parse_index_objects(f, "indices")? {
            s.indices = indices;
        }
        if with_query {
            if let Some(q) = parse_query(f) {
                s.query = q;
            }
        }
        if let Some(e) = self.embedding_ref(f, pk) {
            s.embedding = e;
        }
        if let Some(v) = f.choice("vectorizer", false) {
            s.vectorizer = v;
        }
        if let Some(v) = f.choice("classifier", false) {
            s.classifier = v;
        }
        if let Some(v) = f.integer("maximum_sample_size", false, Some(1), None) {
            s.maximum_sample_size = v;
        }
        if let Some(v) = f.number("score_threshold", false, None, None) {
            s.score_threshold = v;
        }
        if let Some(v) = f.integer("negative_multiplier", false, Some(1), Some(1000)) {
            s.negative_multiplier = v;
        }
        Ok(())
    }

    pub(crate) fn render_tagger_model(&self, ctx: &Ctx, r: &Resource) -> Result<TaggerOut> {
        let s = stored(r);
        let m = s.metrics.clone();
        let plot = self
            .model_file(Kind::Tagger, r.id, "png")
            .exists()
            .then(|| self.plot_url(ctx, Kind::Tagger, r.project_id, r.id));
        Ok(TaggerOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::Tagger, r.id),
            author_username: r.author_username.clone(),
            description: r.description.clone(),
            query: super::pytext::json_dumps(&s.query),
            fields: s.fields.clone(),
            embedding: s.embedding,
            vectorizer: s.vectorizer,
            classifier: s.classifier,
            stop_words: s.stop_words.clone(),
            maximum_sample_size: s.maximum_sample_size,
            score_threshold: s.score_threshold,
            negative_multiplier: s.negative_multiplier,
            precision: m.as_ref().map(|m| m.precision),
            recall: m.as_ref().map(|m| m.recall),
            f1_score: m.as_ref().map(|m| m.f1_score),
            num_features: m.as_ref().map(|m| m.num_features),
            num_positives: m.as_ref().map(|m| m.num_positives),
            num_negatives: m.as_ref().map(|m| m.num_negatives),
            plot,
            task: self.linked_task(r)?,
            indices: self.index_objects(ctx, &s.indices)?,
            tagger_groups: self
                .owners((Kind::Tagger, r.id), Kind::TaggerGroup)?
                .into_iter()
                .map(|(_, d)| d)
                .collect(),
        })
    }

    /// Validates and stores a tagger and starts its training: in the background (the answer
    /// shows the task `created`) or, with an observer (local CLI), in the foreground.
    pub fn create_tagger(self: &Arc<Self>, ctx: &Ctx, pk: i64, body: &Value, observer: Option<Observer>) -> Result<TaggerOut> {
        self.check_project_access(ctx, pk)?;
        let (description, s) = self.parse_tagger(pk, body, Mode::Full, &Stored::default(), "")?;
        let id = self.insert_resource(
            Kind::Tagger,
            ctx,
            pk,
            &description,
            &serde_json::to_value(&s).map_err(Error::internal)?,
        )?;
        let launched = self.launch_tagger_training(pk, id, None, observer, || self.get_of::<Taggers>(ctx, pk, id))?;
        Ok(launched.1)
    }

    /// Starts (or restarts) training of a stored tagger: a new task, run in the background or,
    /// with an observer (local CLI), in the foreground.
    pub fn start_tagger_training(
        self: &Arc<Self>,
        pk: i64,
        id: i64,
        examples: Option<Examples>,
        observer: Option<Observer>,
    ) -> Result<i64> {
        Ok(self.launch_tagger_training(pk, id, examples, observer, || Ok(()))?.0)
    }

    /// `start_tagger_training` with `linked` run once the new task is linked (`start_linked_task`).
    fn launch_tagger_training<T>(
        self: &Arc<Self>,
        pk: i64,
        id: i64,
        examples: Option<Examples>,
        observer: Option<Observer>,
        linked: impl FnOnce() -> Result<T>,
    ) -> Result<(i64, T)> {
        let task = match examples {
            Some(_) => TaskKind::TrainTaggerFromFile { tagger: id },
            None => TaskKind::TrainTagger { tagger: id },
        };
        self.launch_training((Kind::Tagger, id), pk, task, (Self::train_tagger, examples), observer, linked)
    }

    /// The training task: sample, train, write the model and plot atomically, store the
    /// figures. A failure leaves the previous model (if any) in place.
    fn train_tagger(&self, pk: i64, id: i64, examples: Option<Examples>, h: &TaskHandle) -> Result<()> {
        let r = self.resource(Kind::Tagger, pk, id)?;
        let mut s = stored(&r);
        let settings = s.settings();
        let Examples { positives, negatives } = match examples {
            Some(e) => e,
            None => self.sample_binary(
                &self.resolve_indices(pk, Some(s.indices.clone()))?,
                &s.query,
                &s.fields,
                (s.maximum_sample_size, s.negative_multiplier),
                h,
            )?,
        };
        h.step("training")?;
        let phraser = self.embedding_phraser(pk, s.embedding)?;
        let hooks = Hooks {
            lemmatize: None,
            phraser: phraser.as_deref(),
        };
        let mut report_progress = |step: &str, percent: u8| {
            let _ = h.step(step);
            let _ = h.progress(0, f64::from(percent));
        };
        let (model, report) =
            classifier::train(&positives, &negatives, &settings, &hooks, &mut report_progress).map_err(classifier_error)?;
        h.step("saving")?;
        let (bytes, png) = rayon::join(|| model.to_bytes(), || classifier::plot_png(&report, model.coefficients()));
        ModelFile::write(&self.model_file(Kind::Tagger, id, "model"), &bytes)?;
        if let Ok(png) = png {
            ModelFile::write(&self.model_file(Kind::Tagger, id, "png"), &png)?;
        }
        self.models.evict(Kind::Tagger, id);
        s.metrics = Some(Metrics {
            precision: report.precision,
            recall: report.recall,
            f1_score: report.f1,
            num_features: report.num_features as i64,
            num_positives: report.num_positives as i64,
            num_negatives: report.num_negatives as i64,
        });
        // Stop words and the description may have changed while training ran: keep the stored ones.
        self.edit_resource(Kind::Tagger, pk, id, |now| {
            s.stop_words = stored(now).stop_words;
            self.store_config(Kind::Tagger, id, &now.description, &s)
        })
    }

    /// Binary examples (`models.md` 0.3): positives are the documents of `indices` matching
    /// `query` (up to `max`, in the store's order); negatives a seeded uniform sample of the
    /// other documents of the same indices, `multiplier` times as many.
    pub(crate) fn sample_binary(
        &self,
        indices: &[String],
        query: &Value,
        fields: &[String],
        (max, multiplier): (i64, i64),
        h: &TaskHandle,
    ) -> Result<Examples> {
        if indices.is_empty() {
            return Err(Error::BadRequest("no indices: the project has no indices to train on".into()));
        }
        h.step("scrolling positives")?;
        let max = usize::try_from(max).unwrap_or(usize::MAX);
        let drawn = self.sample_matching(indices, query, fields, max)?;
        if drawn.texts.is_empty() {
            return Err(Error::BadRequest("no positive examples: the query matches no document".into()));
        }
        h.step("scrolling negative sample")?;
        let want = drawn.texts.len().saturating_mul(usize::try_from(multiplier).unwrap_or(1));
        let negatives = self.sample_others(indices, &drawn.keys, fields, want)?;
        if negatives.is_empty() {
            return Err(Error::BadRequest("no negative examples: every document matches the query".into()));
        }
        Ok(Examples {
            positives: drawn.texts,
            negatives,
        })
    }

    /// The loaded model of a tagger with its current stop words, or the reference's 400
    /// when it has none yet.
    pub fn tagger_model(&self, r: &Resource) -> Result<Arc<Model>> {
        let path = self.model_file(Kind::Tagger, r.id, "model");
        let stop_words = stored(r).stop_words;
        self.models
            .get_or_load(Kind::Tagger, r.id, &path, |bytes| {
                Model::from_bytes(bytes)
                    .map(|m| m.with_stop_words(&stop_words))
                    .map_err(classifier_error)
            })?
            .ok_or_else(|| Error::BadRequest("Model does not exist".into()))
    }

    /// A tagger ready to tag: its loaded model, stop words and phraser.
    pub fn prepared_tagger(&self, r: &Resource) -> Result<PreparedTagger> {
        let s = stored(r);
        Ok(PreparedTagger {
            model: self.tagger_model(r)?,
            phraser: self.embedding_phraser(r.project_id, s.embedding)?,
            id: r.id,
            tag: r.description.clone(),
            stored: s,
        })
    }

    /// Tags one example (a text per tagger field).
    pub fn tag_with_tagger(&self, r: &Resource, fields: &[&str], lemmatize: bool) -> Result<TagOut> {
        self.prepared_tagger(r)?.tag(self, fields, lemmatize)
    }

    /// Tags batch input lines (texts, or documents read at `fields`, default the tagger's
    /// own fields) in parallel, keeping input order; one JSON text per line, `{"error"}` for
    /// a bad line.
    pub fn tagger_tag_batch(&self, ctx: &Ctx, pk: i64, id: i64, lines: &[&str], fields: &[String]) -> Result<Vec<String>> {
        use rayon::prelude::*;
        self.check_project_access(ctx, pk)?;
        let t = self.prepared_tagger(&self.resource(Kind::Tagger, pk, id)?)?;
        // A wrong field count answers every document line, as tag_doc does remotely.
        let fields = fields_to_read(&t.stored.fields, (!fields.is_empty()).then(|| fields.to_vec()));
        Ok(lines
            .par_iter()
            .map(|line| {
                let out = match super::lines::BatchItem::parse(line) {
                    super::lines::BatchItem::Text(text) => match super::pytext::strip(&text) {
                        "" => Err(Error::field("text", super::validate::NOT_BLANK)),
                        text => t.tag(self, &vec![text; t.field_count()], false),
                    },
                    super::lines::BatchItem::Doc(doc) => (fields.clone())
                        .and_then(|fields| doc_texts(doc.as_object(), &fields))
                        .and_then(|texts| t.tag(self, &texts.iter().map(String::as_str).collect::<Vec<_>>(), false)),
                };
                match out {
                    Ok(v) => serde_json::to_string(&v).unwrap_or_default(),
                    Err(e) => json!({"error": e.to_string()}).to_string(),
                }
            })
            .collect())
    }

    /// The lemmas string of a text (ta's own lemmatizer); a 503 when its language's data is
    /// missing.
    pub fn lemmas(&self, text: &str) -> Result<String> {
        let analyzers = super::mlp::Analyzers {
            lemmas: true,
            ..Default::default()
        };
        let v = self.mlp().process(text.trim(), &analyzers).map_err(Error::Unavailable)?;
        Ok(v["text"]["lemmas"].as_str().unwrap_or(text).to_string())
    }
}

/// A tagger with its model loaded, for many tagging calls.
pub struct PreparedTagger {
    model: Arc<Model>,
    phraser: Option<Arc<dyn classifier::Phraser>>,
    id: i64,
    tag: String,
    stored: Stored,
}

impl PreparedTagger {
    /// How many texts one example has: one per field.
    pub fn field_count(&self) -> usize {
        self.stored.fields.len().max(1)
    }

    /// Label and probability of the predicted class for one text per field; with `lemmatize`,
    /// a text whose language data is missing fails the call.
    pub fn tag(&self, e: &Engine, fields: &[&str], lemmatize: bool) -> Result<TagOut> {
        let refused = std::sync::OnceLock::new();
        let lemmas = |t: &str| {
            e.lemmas(t).unwrap_or_else(|err| {
                let _ = refused.set(err);
                t.to_string()
            })
        };
        let hooks = Hooks {
            lemmatize: lemmatize.then_some(&lemmas as &(dyn Fn(&str) -> String + Sync)),
            phraser: self.phraser.as_deref(),
        };
        let (result, probability) = self.model.tag_with(fields, &hooks);
        if let Some(err) = refused.into_inner() {
            return Err(err);
        }
        Ok(TagOut {
            tag: self.tag.clone(),
            probability,
            tagger_id: self.id,
            result,
            feedback: None,
        })
    }
}

/// The document fields a tagger reads: its own, or `given` in their place (ta extension: one for each of its
/// fields, in order).
fn fields_to_read(own: &[String], given: Option<Vec<String>>) -> Result<Vec<String>> {
    match given {
        Some(given) if given.len() != own.len() => Err(Error::field(
            "fields",
            format!("Give one field for each of the tagger's {} fields {own:?}, in order.", own.len()),
        )),
        Some(given) => Ok(given),
        None => Ok(own.to_vec()),
    }
}

/// Labelled examples given directly (a file), instead of sampled from indices.
pub struct Examples {
    pub positives: Vec<Vec<String>>,
    pub negatives: Vec<Vec<String>>,
}

/// `{tag, probability, tagger_id, result}` of tag_text and tag_doc.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TagOut {
    pub tag: String,
    pub probability: f64,
    pub tagger_id: i64,
    pub result: bool,
    /// Where the prediction was kept, when asked with `feedback_enabled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<FeedbackLink>,
}

pub fn classifier_error(e: classifier::Error) -> Error {
    Error::BadRequest(e.to_string())
}

/// The tagger kind (`/projects/{pk}/taggers/`).
pub struct Taggers;

impl ResourceKind for Taggers {
    const KIND: Kind = Kind::Tagger;
    const NOUN: &'static str = "tagger";
    type Out = TaggerOut;
    type In = TaggerIn;

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<TaggerOut> {
        e.render_tagger_model(ctx, r)
    }

    /// Training starts in the background; the answer shows the task `created`.
    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<TaggerOut> {
        e.create_tagger(ctx, pk, body, None)
    }

    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        let (description, s) = e.parse_tagger(r.project_id, body, mode, &stored(r), &r.description)?;
        e.store_config(Kind::Tagger, r.id, &description, &s)
    }

    fn deleting(e: &Engine, r: &Resource) -> Result<()> {
        e.remove_model_files(Kind::Tagger, r.id);
        Ok(())
    }
}

/// `(lemmatize, feedback_enabled)` of the tagging actions' `{"text"|"doc", "lemmatize",
/// "feedback_enabled"}`.
fn parse_options(f: &mut Form) -> (bool, bool) {
    (
        f.boolean("lemmatize").unwrap_or(false),
        f.boolean("feedback_enabled").unwrap_or(false),
    )
}

/// The texts of a tag_doc document, with the reference's checks and messages.
pub(crate) fn doc_texts(doc: Option<&serde_json::Map<String, Value>>, fields: &[String]) -> Result<Vec<String>> {
    let doc = match doc {
        Some(d) if !d.is_empty() => Value::Object(d.clone()),
        _ => return Err(Error::BadRequest("no input document (dict) provided.".into())),
    };
    if fields.iter().any(|f| flat_get(&doc, f).is_none()) {
        let list = fields.iter().map(|f| super::pytext::repr(f)).collect::<Vec<_>>().join(", ");
        return Err(Error::BadRequest(format!(
            "document does not contain required fields. required fields: [{list}]"
        )));
    }
    let texts = field_texts(&doc, fields);
    if texts.iter().all(|t| t.trim().is_empty()) {
        return Err(Error::BadRequest("no values in the input document.".into()));
    }
    Ok(texts)
}

impl Engine {
    /// POST taggers/{id}/tag_text/.
    pub fn tagger_tag_text(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<TagOut> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::Tagger, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let text = f.string("text", super::regex_taggers::TEXT);
        let (lemmatize, feedback) = parse_options(&mut f);
        f.finish()?;
        let text = text.unwrap_or_default();
        // One text for every field, as the reference feeds tag_text.
        let fields = vec![text.as_str(); stored(&r).fields.len().max(1)];
        let out = self.tag_with_tagger(&r, &fields, lemmatize)?;
        self.with_feedback(ctx, &r, feedback, &Value::from(text.as_str()), out)
    }

    /// `out` with its feedback link when `enabled` (the prediction kept first).
    fn with_feedback(&self, ctx: &Ctx, r: &Resource, enabled: bool, input: &Value, mut out: TagOut) -> Result<TagOut> {
        if enabled {
            out.feedback = Some(self.keep_feedback(ctx, (Kind::Tagger, r), input, &out)?);
        }
        Ok(out)
    }

    /// POST taggers/{id}/tag_doc/.
    pub fn tagger_tag_doc(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<TagOut> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::Tagger, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let doc = f.object("doc", false);
        let (lemmatize, feedback) = parse_options(&mut f);
        let given = f.strings("fields", List::OPTIONAL.non_empty(), Str::REQUIRED);
        f.finish()?;
        let input = doc.map_or(Value::Null, |d| Value::Object(d.clone()));
        let texts = doc_texts(input.as_object(), &fields_to_read(&stored(&r).fields, given)?)?;
        let out = self.tag_with_tagger(&r, &texts.iter().map(String::as_str).collect::<Vec<_>>(), lemmatize)?;
        self.with_feedback(ctx, &r, feedback, &input, out)
    }

    /// POST taggers/{id}/tag_random_doc/ → `{document, prediction}`.
    pub fn tagger_tag_random_doc(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<Value> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::Tagger, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let indices = parse_index_objects(&mut f, "indices")?;
        f.finish()?;
        if self.tagger_model(&r).is_err() {
            return Err(Error::BadRequestError("model does not exist (yet?)".into()));
        }
        let s = stored(&r);
        let hit = self.random_document(pk, indices)?;
        let texts = field_texts(&hit.source, &s.fields);
        let prediction = self.tag_with_tagger(&r, &texts.iter().map(String::as_str).collect::<Vec<_>>(), false)?;
        let document = Value::Object(super::regex_tagger::ops::flatten(&hit.source));
        Ok(json!({"document": document, "prediction": prediction}))
    }

    /// GET taggers/{id}/list_features/?size=N.
    pub fn tagger_features(
        &self,
        ctx: &Ctx,
        pk: i64,
        id: i64,
        query: &std::collections::BTreeMap<String, String>,
    ) -> Result<super::operations::taggers::FeaturesOut> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::Tagger, pk, id)?;
        let size = query.get("size").and_then(|s| s.trim().parse::<usize>().ok()).unwrap_or(100);
        let model = self.tagger_model(&r)?;
        let (features, total) = model.list_features(size).ok_or_else(|| {
            Error::BadRequestError(
                "Error loading feature names. Are you using HashingVectorizer? It does not support feature names!".into(),
            )
        })?;
        Ok(super::operations::taggers::FeaturesOut {
            showing_features: features.len(),
            total_features: total,
            features,
        })
    }

    /// GET (`body` None) or POST `{text}` taggers/{id}/stop_words/.
    pub fn tagger_stop_words(&self, ctx: &Ctx, pk: i64, id: i64, body: Option<&Value>) -> Result<super::operations::taggers::StopWordsOut> {
        self.check_project_access(ctx, pk)?;
        let stop_words = self.edit_resource(Kind::Tagger, pk, id, |r| {
            let mut s = stored(r);
            if let Some(body) = body {
                let mut f = Form::new(body, Mode::Full)?;
                let text = f.string("text", Str::OPTIONAL.untrimmed());
                f.finish()?;
                s.stop_words = text.unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ");
                self.store_config(Kind::Tagger, id, &r.description, &s)?;
                self.models.evict(Kind::Tagger, id);
            }
            Ok(s.stop_words)
        })?;
        Ok(super::operations::taggers::StopWordsOut { stop_words })
    }

    /// POST taggers/{id}/retrain_tagger/: a new training task; the old model serves until the
    /// new one is written.
    pub fn retrain_tagger(self: &Arc<Self>, ctx: &Ctx, pk: i64, id: i64) -> Result<super::operations::taggers::SuccessOut> {
        self.check_project_access(ctx, pk)?;
        self.idle_resource(Kind::Tagger, pk, id)?;
        self.start_tagger_training(pk, id, None, None)?;
        Ok(super::operations::taggers::SuccessOut {
            success: "retraining task created".into(),
        })
    }

    /// POST taggers/multitag_text/ `{text, taggers, lemmatize, hide_false}`: every given (or
    /// every trained) tagger of the project over one text.
    pub fn tagger_multitag_text(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<Vec<TagOut>> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let text = f.string("text", super::regex_taggers::TEXT);
        let ids = f.pks("taggers", List::OPTIONAL);
        let (lemmatize, feedback) = parse_options(&mut f);
        let hide_false = f.boolean("hide_false").unwrap_or(true);
        f.finish()?;
        let original = Value::from(text.unwrap_or_default());
        let text = original.as_str().unwrap_or_default();
        let text = if lemmatize { self.lemmas(text)? } else { text.to_string() };
        let rows = match ids.filter(|i| !i.is_empty()) {
            Some(ids) => self.resources_by_ids(Kind::Tagger, pk, &ids)?,
            None => self.all_resources(Kind::Tagger, pk)?,
        };
        let mut out = Vec::new();
        for r in rows {
            let fields = vec![text.as_str(); stored(&r).fields.len().max(1)];
            match self.tag_with_tagger(&r, &fields, false) {
                Ok(t) if t.result || !hide_false => out.push(self.with_feedback(ctx, &r, feedback, &original, t)?),
                Ok(_) => {}
                Err(Error::BadRequest(m)) if m == "Model does not exist" => {}
                Err(e) => return Err(e),
            }
        }
        out.sort_by(|a, b| b.probability.total_cmp(&a.probability));
        Ok(out)
    }
}
