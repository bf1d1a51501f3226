//! `ta reindexer` and `ta index-splitter`: copy the selected documents of indices into a new
//! index, or share them between a train and a test index (the `reindexer` and
//! `index_splitter` resources): create one (waiting for its run with a progress bar), and
//! the standard list, show and delete.
use super::mlp_index::{create, RunArgs};
use super::resources::{self, StandardCmd};
use super::Target;
use crate::engine::error::{Error, Result};
use crate::engine::index_splitter::Distribution;
use crate::engine::resources::Kind;
use crate::engine::Engine;
use clap::{Args, Subcommand};
use serde_json::{json, Value};

#[derive(Subcommand, Debug)]
pub enum ReindexerCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    /// Copy the selected documents into a new index under fresh ids (a task)
    Create {
        #[command(flatten)]
        run: RunArgs,
        /// Index the documents are copied into (it must not exist)
        #[arg(long)]
        new_index: String,
        /// Field to copy, with everything below it (dotted path; repeat for several) [default: all]
        #[arg(long = "field")]
        fields: Vec<String>,
        /// Copy a uniform random sample of this many of the selected documents [default: all]
        #[arg(long)]
        random_size: Option<i64>,
        /// Rename and type a copied field: PATH:TYPE or PATH:TYPE:NEW_PATH (repeat for several)
        #[arg(long = "field-type")]
        field_types: Vec<String>,
    },
}

/// What an index split is made of.
#[derive(Args, Debug)]
pub struct SplitArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Index of the training documents (it must not exist)
    #[arg(long)]
    train_index: String,
    /// Index of the test documents (it must not exist)
    #[arg(long)]
    test_index: String,
    /// Field to copy, with everything below it (dotted path; repeat for several) [default: all]
    #[arg(long = "field")]
    fields: Vec<String>,
    /// How the documents are shared
    #[arg(long, default_value = "random", value_parser = super::choice::of::<Distribution>())]
    distribution: String,
    /// Test share: a percentage (random, original) or documents per label (equal, custom) [default: 20]
    #[arg(long)]
    test_size: Option<i64>,
    /// Fact whose values label the documents (not with random)
    #[arg(long)]
    fact: Option<String>,
    /// Only documents whose fact has this value
    #[arg(long)]
    str_val: Option<String>,
    /// Test documents of a label with custom: LABEL=COUNT (repeat for several)
    #[arg(long = "quota")]
    quotas: Vec<String>,
}

#[derive(Subcommand, Debug)]
pub enum IndexSplitterCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    /// Share the selected documents between a new train and a new test index (a task)
    Create(Box<SplitArgs>),
}

/// `PATH:TYPE[:NEW_PATH]` as a `field_type` item.
fn field_type(spec: &str) -> Result<Value> {
    match spec.split(':').collect::<Vec<_>>()[..] {
        [path, kind] => Ok(json!({"path": path, "field_type": kind})),
        [path, kind, new] => Ok(json!({"path": path, "field_type": kind, "new_path_name": new})),
        _ => Err(Error::BadRequest(format!(
            "--field-type {spec}: expected PATH:TYPE or PATH:TYPE:NEW_PATH"
        ))),
    }
}

pub fn run(t: &Target, c: &ReindexerCmd) -> Result<Option<Value>> {
    let out = match c {
        ReindexerCmd::Standard(c) => return resources::run(t, Kind::Reindexer, c),
        ReindexerCmd::Create {
            run,
            new_index,
            fields,
            random_size,
            field_types,
        } => {
            let mut body = json!({
                "new_index": new_index,
                "fields": fields,
                "field_type": field_types.iter().map(|s| field_type(s)).collect::<Result<Vec<_>>>()?,
            });
            if let Some(n) = random_size {
                body["random_size"] = json!(n);
            }
            create(t, Kind::Reindexer, run, body, Engine::create_reindexer)?
        }
    };
    Ok(Some(out))
}

/// `LABEL=COUNT` quotas as `custom_distribution`.
fn quotas(specs: &[String]) -> Result<Value> {
    let mut out = serde_json::Map::new();
    for spec in specs {
        let (label, count) = (spec.rsplit_once('='))
            .and_then(|(l, c)| Some((l, c.parse::<u64>().ok()?)))
            .ok_or_else(|| Error::BadRequest(format!("--quota {spec}: expected LABEL=COUNT")))?;
        out.insert(label.to_string(), json!(count));
    }
    Ok(Value::Object(out))
}

pub fn index_splitter(t: &Target, c: &IndexSplitterCmd) -> Result<Option<Value>> {
    let out = match c {
        IndexSplitterCmd::Standard(c) => return resources::run(t, Kind::IndexSplitter, c),
        IndexSplitterCmd::Create(a) => {
            let mut body = json!({
                "train_index": a.train_index,
                "test_index": a.test_index,
                "fields": a.fields,
                "distribution": a.distribution,
                "custom_distribution": quotas(&a.quotas)?,
            });
            for (key, value) in [
                ("test_size", json!(a.test_size)),
                ("fact", json!(a.fact)),
                ("str_val", json!(a.str_val)),
            ] {
                if !value.is_null() {
                    body[key] = value;
                }
            }
            create(t, Kind::IndexSplitter, &a.run, body, Engine::create_index_splitter)?
        }
    };
    Ok(Some(out))
}
