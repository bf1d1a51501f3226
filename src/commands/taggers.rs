//! `ta tagger ...`: train text classifiers from index documents or from a labelled JSONL
//! file, tag one text or a JSONL stream, inspect features and stop words, retrain.
use super::apply::{self, ApplyArgs, FactValue};
use super::feedback::{self, FeedbackArgs};
use super::regex::BatchArgs;
use super::resources::{self, project_for, ProjectFlag, StandardCmd, TransferCmd};
use super::{batch, choice, progress, Target};
use crate::engine::apply::ApplyModel;
use crate::engine::classifier::{ClassifierKind, VectorizerKind};
use crate::engine::error::{Error, Result};
use crate::engine::resources::Kind;
use clap::{Args, Subcommand};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ModelArgs {
    /// Name of the tagger; also the tag it assigns
    #[arg(long)]
    pub description: String,
    #[command(flatten)]
    pub settings: SettingsArgs,
}

impl ModelArgs {
    fn body(&self) -> Map<String, Value> {
        let mut m = self.settings.body();
        m.insert("description".into(), json!(self.description));
        m
    }
}

/// What a tagger reads and how it learns (a tagger group's members share them).
#[derive(Args, Debug)]
pub struct SettingsArgs {
    /// Field holding the text (dotted path; repeat for several)
    #[arg(long = "field", required = true)]
    pub fields: Vec<String>,
    /// Feature extraction: hashing (2^20 hashed word n-grams per field; no feature names),
    /// count (n-grams in at least 5 documents) or tfidf (counts weighted by inverse document
    /// frequency) [default: the server's first]
    #[arg(long, value_parser = choice::of::<VectorizerKind>(), ignore_case = true)]
    pub vectorizer: Option<String>,
    /// Learning method: logistic (regression) or linearsvc (linear SVM with Platt
    /// probabilities) [default: the server's first]
    #[arg(long, value_parser = choice::of::<ClassifierKind>(), ignore_case = true)]
    pub classifier: Option<String>,
}

impl SettingsArgs {
    pub fn body(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("fields".into(), json!(self.fields));
        if let Some(v) = &self.vectorizer {
            m.insert("vectorizer".into(), json!(v));
        }
        if let Some(c) = &self.classifier {
            m.insert("classifier".into(), json!(c));
        }
        m
    }
}

/// Where a tagger's examples come from and how many.
#[derive(Args, Debug)]
pub struct SampleArgs {
    /// Index to sample from (repeat for several) [default: all project indices]
    #[arg(long = "index")]
    pub indices: Vec<String>,
    /// Most positives to sample
    #[arg(long)]
    pub maximum_sample_size: Option<i64>,
    /// Negatives per positive
    #[arg(long)]
    pub negative_multiplier: Option<i64>,
}

impl SampleArgs {
    /// Adds the given settings to a request body.
    pub fn add_to(&self, b: &mut Map<String, Value>) {
        b.insert(
            "indices".into(),
            json!(self.indices.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()),
        );
        if let Some(n) = self.maximum_sample_size {
            b.insert("maximum_sample_size".into(), json!(n));
        }
        if let Some(n) = self.negative_multiplier {
            b.insert("negative_multiplier".into(), json!(n));
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum TaggerCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    #[command(flatten)]
    Transfer(TransferCmd),
    /// Create a tagger and train it on index documents: those matching --query are the
    /// positives, a random sample of the others the negatives
    Create {
        /// Project id
        #[arg(long)]
        project: i64,
        #[command(flatten)]
        model: ModelArgs,
        #[command(flatten)]
        sample: SampleArgs,
        /// Elasticsearch query selecting the positives, as JSON [default: all documents]
        #[arg(long)]
        query: Option<String>,
    },
    /// Train a tagger from labelled JSONL (stdin, or --file), no index needed: lines whose
    /// --label-field equals --positive are positives, other labelled lines negatives
    Train {
        /// Project id
        #[arg(long)]
        project: i64,
        #[command(flatten)]
        model: ModelArgs,
        /// Field holding each line's label
        #[arg(long)]
        label_field: String,
        /// Label value of the positive class
        #[arg(long)]
        positive: String,
        /// Read the examples from this file instead of stdin
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// Tag one text
    TagText {
        /// Tagger id
        id: i64,
        /// The text
        text: String,
        #[command(flatten)]
        p: ProjectFlag,
        /// Lemmatize the text first
        #[arg(long)]
        lemmatize: bool,
        /// Keep the prediction for feedback (its id comes back as feedback.id; see `feedback`)
        #[arg(long)]
        feedback: bool,
    },
    /// Tag a JSONL stream from stdin (texts, or documents read at --field, default the
    /// tagger's fields), one result line per input line, in order
    Tag {
        #[command(flatten)]
        b: BatchArgs,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// The strongest features (not for the Hashing vectorizer)
    Features {
        /// Tagger id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
        /// How many
        #[arg(long, default_value_t = 100)]
        size: usize,
    },
    /// Show the tagger's own stop words, or replace them with --set
    StopWords {
        /// Tagger id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
        /// New stop words, separated by spaces
        #[arg(long)]
        set: Option<String>,
    },
    /// The predictions kept by `tag-text --feedback`: list them, give one's correct result,
    /// or remove them
    Feedback(FeedbackArgs),
    /// Train the tagger again (the old model serves until the new one is ready)
    Retrain {
        /// Tagger id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// Tag the fields of an index's documents and write the positive results as facts (a task)
    Apply {
        #[command(flatten)]
        a: ApplyArgs,
        #[command(flatten)]
        v: FactValue,
        /// Lemmatize the text before tagging
        #[arg(long)]
        lemmatize: bool,
    },
}

pub fn run(t: &Target, c: &TaggerCmd) -> Result<Option<Value>> {
    let out = match c {
        TaggerCmd::Standard(c) => return resources::run(t, Kind::Tagger, c),
        TaggerCmd::Transfer(c) => return resources::transfer(t, Kind::Tagger, c),
        TaggerCmd::Create {
            project,
            model,
            sample,
            query,
        } => {
            let mut b = model.body();
            sample.add_to(&mut b);
            if let Some(q) = query {
                b.insert(
                    "query".into(),
                    serde_json::from_str(q).map_err(|e| Error::BadRequest(format!("--query is not JSON: {e}")))?,
                );
            }
            let body = Value::Object(b);
            let created = match t {
                Target::Local { engine, ctx } => {
                    serde_json::to_value(engine.create_tagger(ctx, *project, &body, Some(progress::observer()))?)
                        .map_err(Error::internal)?
                }
                Target::Remote(_) => t.request("POST", &format!("/projects/{project}/taggers/"), Some(&body))?,
            };
            return resources::trained(t, Kind::Tagger, *project, &created).map(Some);
        }
        TaggerCmd::Train {
            project,
            model,
            label_field,
            positive,
            file,
        } => {
            let created = match t {
                Target::Local { engine, ctx } => {
                    let upload = resources::local_upload(engine, file.as_deref())?;
                    let mut b = model.body();
                    b.insert("label_field".into(), json!(label_field));
                    b.insert("positive".into(), json!(positive));
                    b.insert("file".into(), upload.to_value());
                    let out = engine.train_tagger_file(ctx, *project, &Value::Object(b), Some(progress::observer()))?;
                    serde_json::to_value(out).map_err(Error::internal)?
                }
                Target::Remote(c) => {
                    let mut form = reqwest::blocking::multipart::Form::new()
                        .text("description", model.description.clone())
                        .text("label_field", label_field.clone())
                        .text("positive", positive.clone());
                    for f in &model.settings.fields {
                        form = form.text("fields", f.clone());
                    }
                    if let Some(v) = &model.settings.vectorizer {
                        form = form.text("vectorizer", v.clone());
                    }
                    if let Some(cl) = &model.settings.classifier {
                        form = form.text("classifier", cl.clone());
                    }
                    let form = resources::file_part(form, file.as_deref())?;
                    c.send_multipart(&format!("/projects/{project}/taggers/train_file/"), form)?
                }
            };
            return resources::trained(t, Kind::Tagger, *project, &created).map(Some);
        }
        TaggerCmd::TagText {
            id,
            text,
            p,
            lemmatize,
            feedback,
        } => {
            let pk = project_for(t, p, Kind::Tagger, *id)?;
            t.request(
                "POST",
                &format!("/projects/{pk}/taggers/{id}/tag_text/"),
                Some(&json!({"text": text, "lemmatize": lemmatize, "feedback_enabled": feedback})),
            )?
        }
        TaggerCmd::Feedback(f) => feedback::run(t, Kind::Tagger, f)?,
        TaggerCmd::Tag { b, p } => {
            let pk = project_for(t, p, Kind::Tagger, b.id)?;
            tag_stream(t, pk, b)?;
            return Ok(None);
        }
        TaggerCmd::Features { id, p, size } => {
            let pk = project_for(t, p, Kind::Tagger, *id)?;
            t.request("GET", &format!("/projects/{pk}/taggers/{id}/list_features/?size={size}"), None)?
        }
        TaggerCmd::StopWords { id, p, set } => {
            let pk = project_for(t, p, Kind::Tagger, *id)?;
            let path = format!("/projects/{pk}/taggers/{id}/stop_words/");
            match set {
                Some(words) => t.request("POST", &path, Some(&json!({"text": words})))?,
                None => t.request("GET", &path, None)?,
            }
        }
        TaggerCmd::Apply { a, v, lemmatize } => {
            let extra = apply::options(&[
                ("new_fact_value", v.fact_value.clone().map(Value::from)),
                ("lemmatize", Some(json!(lemmatize))),
            ]);
            apply::run(t, ApplyModel::Tagger, a, extra)?
        }
        TaggerCmd::Retrain { id, p } => {
            let pk = project_for(t, p, Kind::Tagger, *id)?;
            resources::retrain(t, Kind::Tagger, pk, *id, |e, observer| {
                e.start_tagger_training(pk, *id, None, Some(observer))
            })?
        }
    };
    Ok(Some(out))
}

/// Tags a stream: locally through the engine's parallel batch, remotely one request per
/// line (in parallel) to the endpoints a single tag uses.
fn tag_stream(t: &Target, pk: i64, b: &BatchArgs) -> Result<()> {
    let base = format!("/projects/{pk}/taggers/{}", b.id);
    batch::run_lines(|lines| match t {
        Target::Local { engine, ctx } => engine.tagger_tag_batch(ctx, pk, b.id, lines, &b.fields),
        Target::Remote(c) => Ok(batch::per_line_requests(
            c,
            &base,
            lines,
            &Default::default(),
            (!b.fields.is_empty()).then_some(b.fields.as_slice()),
        )),
    })
}
