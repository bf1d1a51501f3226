//! `apply` of the model commands: a model's results written as facts into the documents of
//! indices (`apply_to_index`), with a progress bar, locally or against a server.
use super::resources::{self, project_for, ProjectFlag};
use super::Target;
use crate::engine::apply::ApplyModel;
use crate::engine::error::{Error, Result};
use clap::Args;
use serde_json::{json, Map, Value};

/// What every model's `apply` takes.
#[derive(Args, Debug)]
pub struct ApplyArgs {
    /// Model id
    pub id: i64,
    #[command(flatten)]
    pub p: ProjectFlag,
    /// Label of this run
    #[arg(long, default_value = "apply")]
    pub description: String,
    /// Fact name of the written facts (regex taggers: default their description)
    #[arg(long)]
    pub fact_name: Option<String>,
    /// Index (repeat for several) [default: all the project's open indices]
    #[arg(long = "index")]
    pub indices: Vec<String>,
    /// Field to tag (dotted path; repeat for several)
    #[arg(long = "field", required = true)]
    pub fields: Vec<String>,
    /// Elasticsearch query selecting the documents, as JSON [default: all]
    #[arg(long)]
    pub query: Option<String>,
    /// Documents written per batch (1–10000; at least 100 on the embedded store)
    #[arg(long)]
    pub bulk_size: Option<i64>,
}

/// The fact value flag of the models that take one.
#[derive(Args, Debug)]
pub struct FactValue {
    /// Fact value of the written facts [default: the model's description, or what it found]
    #[arg(long)]
    pub fact_value: Option<String>,
}

impl ApplyArgs {
    fn body(&self, extra: Map<String, Value>) -> Result<Value> {
        let mut body = json!({"description": self.description, "fields": self.fields, "indices": self.indices});
        if let Some(name) = &self.fact_name {
            body["new_fact_name"] = json!(name);
        }
        if let Some(q) = &self.query {
            body["query"] = serde_json::from_str(q).map_err(|e| Error::BadRequest(format!("--query is not JSON: {e}")))?;
        }
        if let Some(n) = self.bulk_size {
            body["bulk_size"] = json!(n);
        }
        body.as_object_mut().expect("an object").extend(extra);
        Ok(body)
    }
}

/// Applies model `a.id` of `model` with the kind's own options `extra`; the model as it is
/// when the run has ended.
pub fn run(t: &Target, model: ApplyModel, a: &ApplyArgs, extra: Map<String, Value>) -> Result<Value> {
    let kind = model.kind();
    let pk = project_for(t, &a.p, kind, a.id)?;
    let body = a.body(extra)?;
    resources::task_action(t, (kind, pk, a.id), ("apply_to_index", &body), |e, ctx, observer| {
        e.apply_to_index(ctx, model, (pk, a.id), &body, Some(observer)).map(drop)
    })
}

/// The options map of flags given as `(name, value)`; unset ones are left out.
pub fn options(pairs: &[(&str, Option<Value>)]) -> Map<String, Value> {
    pairs.iter().filter_map(|(k, v)| v.clone().map(|v| (k.to_string(), v))).collect()
}
