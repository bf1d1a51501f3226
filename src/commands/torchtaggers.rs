//! `ta torchtagger ...`: neural taggers (fastText, TextRNN, RCNN) trained on index documents
//! or a labelled JSONL file; tag one text or a JSONL stream in batches, retrain, export and
//! import.
use super::apply::{self, ApplyArgs, FactValue};
use super::feedback::{self, FeedbackArgs};
use super::regex::BatchArgs;
use super::resources::{self, project_for, ProjectFlag, StandardCmd, TransferCmd};
use super::{batch, choice, progress, Target};
use crate::engine::apply::ApplyModel;
use crate::engine::error::{Error, Result};
use crate::engine::neural::{Architecture, Optimizer};
use crate::engine::resources::Kind;
use crate::engine::torchtaggers::batch_text;
use clap::{Args, Subcommand};
use rayon::prelude::*;
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// Texts per tag_texts request of a stream.
const STREAM_BATCH: usize = 512;

#[derive(Args, Debug)]
pub struct ModelArgs {
    /// Name of the neural tagger
    #[arg(long)]
    pub description: String,
    /// Field holding the text (dotted path; repeat for several: joined with a space)
    #[arg(long = "field", required = true)]
    pub fields: Vec<String>,
    /// Network architecture: textrnn (two-layer bidirectional LSTM), fasttext (mean of the
    /// word vectors, two linear layers; fastest) or rcnn (bidirectional LSTM with the word
    /// vectors, max-pooled)
    #[arg(long, value_parser = choice::of::<Architecture>(), ignore_case = true)]
    pub architecture: String,
    /// Training epochs (1 to 1000) [default: 5]
    #[arg(long)]
    pub epochs: Option<i64>,
}

impl ModelArgs {
    fn body(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("description".into(), json!(self.description));
        m.insert("fields".into(), json!(self.fields));
        m.insert("model_architecture".into(), json!(self.architecture));
        if let Some(n) = self.epochs {
            m.insert("num_epochs".into(), json!(n));
        }
        m
    }
}

#[derive(Subcommand, Debug)]
pub enum TorchTaggerCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    #[command(flatten)]
    Transfer(TransferCmd),
    /// Create a neural tagger and train it on index documents: those matching --query
    /// against a random sample of the others, or with --fact-name one class per fact value
    Create {
        /// Project id
        #[arg(long)]
        project: i64,
        #[command(flatten)]
        model: ModelArgs,
        /// Trained embedding whose vectors to use (frozen) [default: learn word vectors]
        #[arg(long)]
        embedding: Option<i64>,
        /// Index to sample from (repeat for several) [default: all project indices]
        #[arg(long = "index")]
        indices: Vec<String>,
        /// Elasticsearch query selecting the positives, as JSON [default: all documents]
        #[arg(long)]
        query: Option<String>,
        /// One class per value of this fact (values in at least --minimum-sample-size documents)
        #[arg(long)]
        fact_name: Option<String>,
        /// Most documents per class [default: 100000]
        #[arg(long)]
        maximum_sample_size: Option<i64>,
        /// Fewest documents a fact value needs to be a class [default: 50]
        #[arg(long)]
        minimum_sample_size: Option<i64>,
    },
    /// Train a neural tagger from labelled JSONL (stdin, or --file), no index needed: every
    /// value of --label-field is a class, or with --positive the model is that label vs the rest
    Train {
        /// Project id
        #[arg(long)]
        project: i64,
        #[command(flatten)]
        model: ModelArgs,
        /// Field holding each line's label
        #[arg(long)]
        label_field: String,
        /// Train a binary model: this label is `true`, every other `false`
        #[arg(long)]
        positive: Option<String>,
        /// Trained embedding whose vectors to use (frozen) [default: learn word vectors]
        #[arg(long)]
        embedding: Option<i64>,
        /// Seed of the split, initialisation, shuffling and dropout [default: 42]
        #[arg(long)]
        seed: Option<u64>,
        /// Update rule: adam (Adam at 0.03 for fastText, 0.01 otherwise) or sgd (the reference's plain SGD) [default: adam]
        #[arg(long, value_parser = choice::of::<Optimizer>(), ignore_case = true)]
        optimizer: Option<String>,
        /// Read the examples from this file instead of stdin
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// Tag one text: the predicted class and its probability
    TagText {
        /// Neural tagger id
        id: i64,
        /// The text
        text: String,
        #[command(flatten)]
        p: ProjectFlag,
        /// Keep the prediction for feedback (its id comes back as feedback.id; see `feedback`)
        #[arg(long)]
        feedback: bool,
    },
    /// The predictions kept by `tag-text --feedback`: list them, give one's correct result,
    /// or remove them
    Feedback(FeedbackArgs),
    /// Tag a JSONL stream from stdin in batches (texts, or documents read at --field,
    /// default the tagger's fields), one result line per input line, in order
    Tag {
        #[command(flatten)]
        b: BatchArgs,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// Train the neural tagger again (the old model serves until the new one is ready)
    Retrain {
        /// Neural tagger id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// Tag the fields of an index's documents and write the predictions as facts (a task)
    Apply {
        #[command(flatten)]
        a: ApplyArgs,
        #[command(flatten)]
        v: FactValue,
    },
}

pub fn run(t: &Target, c: &TorchTaggerCmd) -> Result<Option<Value>> {
    let out = match c {
        TorchTaggerCmd::Standard(c) => return resources::run(t, Kind::TorchTagger, c),
        TorchTaggerCmd::Transfer(c) => return resources::transfer(t, Kind::TorchTagger, c),
        TorchTaggerCmd::Create {
            project,
            model,
            embedding,
            indices,
            query,
            fact_name,
            maximum_sample_size,
            minimum_sample_size,
        } => {
            let mut b = model.body();
            b.insert(
                "indices".into(),
                json!(indices.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()),
            );
            if let Some(q) = query {
                b.insert(
                    "query".into(),
                    serde_json::from_str(q).map_err(|e| Error::BadRequest(format!("--query is not JSON: {e}")))?,
                );
            }
            for (key, value) in [
                ("embedding", embedding.map(|v| json!(v))),
                ("fact_name", fact_name.as_ref().map(|v| json!(v))),
                ("maximum_sample_size", maximum_sample_size.map(|v| json!(v))),
                ("minimum_sample_size", minimum_sample_size.map(|v| json!(v))),
            ] {
                if let Some(v) = value {
                    b.insert(key.into(), v);
                }
            }
            let body = Value::Object(b);
            let created = match t {
                Target::Local { engine, ctx } => {
                    serde_json::to_value(engine.create_torchtagger(ctx, *project, &body, Some(progress::observer()))?)
                        .map_err(Error::internal)?
                }
                Target::Remote(_) => t.request("POST", &format!("/projects/{project}/torchtaggers/"), Some(&body))?,
            };
            return resources::trained(t, Kind::TorchTagger, *project, &created).map(Some);
        }
        TorchTaggerCmd::Train {
            project,
            model,
            label_field,
            positive,
            embedding,
            seed,
            optimizer,
            file,
        } => {
            let mut b = model.body();
            b.insert("label_field".into(), json!(label_field));
            for (key, value) in [
                ("positive", positive.as_ref().map(|v| json!(v))),
                ("embedding", embedding.map(|v| json!(v))),
                ("seed", seed.map(|v| json!(v))),
                ("optimizer", optimizer.as_ref().map(|v| json!(v))),
            ] {
                if let Some(v) = value {
                    b.insert(key.into(), v);
                }
            }
            let created = match t {
                Target::Local { engine, ctx } => {
                    let upload = resources::local_upload(engine, file.as_deref())?;
                    b.insert("file".into(), upload.to_value());
                    let out = engine.train_torchtagger_file(ctx, *project, &Value::Object(b), Some(progress::observer()))?;
                    serde_json::to_value(out).map_err(Error::internal)?
                }
                Target::Remote(c) => {
                    let mut form = reqwest::blocking::multipart::Form::new();
                    for (key, value) in &b {
                        for item in value.as_array().cloned().unwrap_or_else(|| vec![value.clone()]) {
                            let text = item.as_str().map_or_else(|| item.to_string(), str::to_string);
                            form = form.text(key.clone(), text);
                        }
                    }
                    let form = resources::file_part(form, file.as_deref())?;
                    c.send_multipart(&format!("/projects/{project}/torchtaggers/train_file/"), form)?
                }
            };
            return resources::trained(t, Kind::TorchTagger, *project, &created).map(Some);
        }
        TorchTaggerCmd::TagText { id, text, p, feedback } => {
            let pk = project_for(t, p, Kind::TorchTagger, *id)?;
            t.request(
                "POST",
                &format!("/projects/{pk}/torchtaggers/{id}/tag_text/"),
                Some(&json!({"text": text, "feedback_enabled": feedback})),
            )?
        }
        TorchTaggerCmd::Feedback(f) => feedback::run(t, Kind::TorchTagger, f)?,
        TorchTaggerCmd::Tag { b, p } => {
            let pk = project_for(t, p, Kind::TorchTagger, b.id)?;
            tag_stream(t, pk, b)?;
            return Ok(None);
        }
        TorchTaggerCmd::Apply { a, v } => {
            let extra = apply::options(&[("new_fact_value", v.fact_value.clone().map(Value::from))]);
            apply::run(t, ApplyModel::TorchTagger, a, extra)?
        }
        TorchTaggerCmd::Retrain { id, p } => {
            let pk = project_for(t, p, Kind::TorchTagger, *id)?;
            resources::retrain(t, Kind::TorchTagger, pk, *id, |e, observer| {
                e.start_torchtagger_training(pk, *id, None, Some(observer))
            })?
        }
    };
    Ok(Some(out))
}

/// Tags a stream: each chunk's lines become texts (a bad line answers an error line), and
/// the texts go to tag_texts in batches, several batches at once; output keeps input order.
/// Locally and remotely alike, through the same operation.
fn tag_stream(t: &Target, pk: i64, b: &BatchArgs) -> Result<()> {
    let base = format!("/projects/{pk}/torchtaggers/{}/", b.id);
    let fields: Vec<String> = if b.fields.is_empty() {
        serde_json::from_value(t.request("GET", &base, None)?["fields"].clone()).map_err(Error::internal)?
    } else {
        b.fields.clone()
    };
    let path = format!("{base}tag_texts/");
    batch::run_lines(|lines| {
        let texts: Vec<Result<String>> = lines.par_iter().map(|line| batch_text(line, &fields)).collect();
        let good: Vec<&str> = texts.iter().filter_map(|r| r.as_deref().ok()).collect();
        let tagged: Vec<Value> = good
            .par_chunks(STREAM_BATCH)
            .map(|chunk| match t.request("POST", &path, Some(&json!({"texts": chunk})))? {
                Value::Array(results) if results.len() == chunk.len() => Ok(results),
                other => Err(Error::Internal(format!("tag_texts answered {other}"))),
            })
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .flatten()
            .collect();
        let mut tagged = tagged.into_iter();
        Ok(texts
            .into_iter()
            .map(|r| match r {
                Ok(_) => tagged.next().map(|v| v.to_string()).unwrap_or_default(),
                Err(e) => json!({"error": e.to_string()}).to_string(),
            })
            .collect())
    })
}
