//! `ta mlp-index` and `ta lang-index`: language processing and language detection over the
//! documents of indices (the `mlp_index` and `lang_index` resources): create a run (waiting
//! for it with a progress bar), retry one where it stopped, and the standard list, show and
//! delete.
use super::resources::{self, project_for, ProjectFlag, StandardCmd};
use super::{progress, Target};
use crate::engine::error::{Error, Result};
use crate::engine::mlp_index::Analyzer;
use crate::engine::resources::Kind;
use crate::engine::tasks::Observer;
use crate::engine::{Ctx, Engine};
use clap::{Args, Subcommand};
use serde::Serialize;
use serde_json::{json, Value};
use std::sync::Arc;

/// What selects the documents of a run.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Project id
    #[arg(long)]
    project: i64,
    /// Label of the run
    #[arg(long, default_value = "run")]
    description: String,
    /// Index (repeat for several) [default: all the project's open indices]
    #[arg(long = "index")]
    indices: Vec<String>,
    /// Elasticsearch query selecting the documents, as JSON [default: all]
    #[arg(long)]
    query: Option<String>,
}

/// Retry a run.
#[derive(Args, Debug)]
pub struct RetryArgs {
    /// Run id
    id: i64,
    #[command(flatten)]
    p: ProjectFlag,
}

#[derive(Subcommand, Debug)]
pub enum MlpIndexCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    /// Analyse fields of an index's documents: `<field>_mlp` beside each, facts in texta_facts (a task)
    Create {
        #[command(flatten)]
        run: RunArgs,
        /// Field to analyse (dotted path; repeat for several)
        #[arg(long = "field", required = true)]
        fields: Vec<String>,
        /// Analyzer to run (repeat for several) [default: all]
        #[arg(long = "analyzer", value_parser = super::choice::of::<Analyzer>())]
        analyzers: Vec<String>,
    },
    /// Go on with a finished or failed run: the selected documents still without output
    Retry(RetryArgs),
}

#[derive(Subcommand, Debug)]
pub enum LangIndexCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    /// Detect the language of a field of an index's documents: `<field>_mlp.language.detected` (a task)
    Create {
        #[command(flatten)]
        run: RunArgs,
        /// Field whose language is detected (dotted path)
        #[arg(long)]
        field: String,
    },
    /// Go on with a finished or failed run: the selected documents still without a language
    Retry(RetryArgs),
}

/// The engine call that creates a run (local mode).
pub(super) type Start<T> = fn(&Arc<Engine>, &Ctx, i64, &Value, Option<Observer>) -> Result<T>;
/// The engine call that retries a run (local mode).
type Resume<T> = fn(&Arc<Engine>, &Ctx, i64, i64, Option<Observer>) -> Result<T>;

/// Creates a run of `kind` with `body` added to the selection and waits for it.
pub(super) fn create<T: Serialize>(t: &Target, kind: Kind, run: &RunArgs, mut body: Value, local: Start<T>) -> Result<Value> {
    body["description"] = json!(run.description);
    body["indices"] = json!(run.indices);
    if let Some(q) = &run.query {
        body["query"] = serde_json::from_str(q).map_err(|e| Error::BadRequest(format!("--query is not JSON: {e}")))?;
    }
    let created = match t {
        Target::Local { engine, ctx } => {
            serde_json::to_value(local(engine, ctx, run.project, &body, Some(progress::observer()))?).map_err(Error::internal)?
        }
        Target::Remote(_) => t.request("POST", &format!("/projects/{}/{}/", run.project, kind.route()), Some(&body))?,
    };
    resources::trained(t, kind, run.project, &created)
}

/// Retries run `a.id` of `kind` and waits for it.
fn retry<T>(t: &Target, kind: Kind, a: &RetryArgs, local: Resume<T>) -> Result<Value> {
    let pk = project_for(t, &a.p, kind, a.id)?;
    resources::task_action(t, (kind, pk, a.id), ("retry", &json!({})), |e, ctx, observer| {
        local(e, ctx, pk, a.id, Some(observer)).map(drop)
    })
}

pub fn mlp_index(t: &Target, c: &MlpIndexCmd) -> Result<Option<Value>> {
    let out = match c {
        MlpIndexCmd::Standard(c) => return resources::run(t, Kind::MlpIndex, c),
        MlpIndexCmd::Create { run, fields, analyzers } => {
            let mut body = json!({ "fields": fields });
            if !analyzers.is_empty() {
                body["analyzers"] = json!(analyzers);
            }
            create(t, Kind::MlpIndex, run, body, Engine::create_mlp_index)?
        }
        MlpIndexCmd::Retry(a) => retry(t, Kind::MlpIndex, a, Engine::retry_mlp_index)?,
    };
    Ok(Some(out))
}

pub fn lang_index(t: &Target, c: &LangIndexCmd) -> Result<Option<Value>> {
    let out = match c {
        LangIndexCmd::Standard(c) => return resources::run(t, Kind::LangIndex, c),
        LangIndexCmd::Create { run, field } => create(t, Kind::LangIndex, run, json!({ "field": field }), Engine::create_lang_index)?,
        LangIndexCmd::Retry(a) => retry(t, Kind::LangIndex, a, Engine::retry_lang_index)?,
    };
    Ok(Some(out))
}
