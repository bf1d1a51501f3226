//! `ta mlp-index`: language processing over the documents of indices (the `mlp_index`
//! resources): create a run (waiting for it with a progress bar), retry one where it
//! stopped, and the standard list, show and delete.
use super::resources::{self, project_for, ProjectFlag, StandardCmd};
use super::{progress, Target};
use crate::engine::error::{Error, Result};
use crate::engine::mlp_index::Analyzer;
use crate::engine::resources::Kind;
use clap::Subcommand;
use serde_json::{json, Value};

#[derive(Subcommand, Debug)]
pub enum MlpIndexCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    /// Analyse fields of an index's documents: `<field>_mlp` beside each, facts in texta_facts (a task)
    Create {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Label of the run
        #[arg(long, default_value = "mlp")]
        description: String,
        /// Index (repeat for several) [default: all the project's open indices]
        #[arg(long = "index")]
        indices: Vec<String>,
        /// Field to analyse (dotted path; repeat for several)
        #[arg(long = "field", required = true)]
        fields: Vec<String>,
        /// Elasticsearch query selecting the documents, as JSON [default: all]
        #[arg(long)]
        query: Option<String>,
        /// Analyzer to run (repeat for several) [default: all]
        #[arg(long = "analyzer", value_parser = super::choice::of::<Analyzer>())]
        analyzers: Vec<String>,
    },
    /// Go on with a finished or failed run: the selected documents still without output
    Retry {
        /// Run id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
    },
}

pub fn run(t: &Target, c: &MlpIndexCmd) -> Result<Option<Value>> {
    let out = match c {
        MlpIndexCmd::Standard(c) => return resources::run(t, Kind::MlpIndex, c),
        MlpIndexCmd::Create {
            project,
            description,
            indices,
            fields,
            query,
            analyzers,
        } => {
            let mut body = json!({"description": description, "indices": indices, "fields": fields});
            if !analyzers.is_empty() {
                body["analyzers"] = json!(analyzers);
            }
            if let Some(q) = query {
                body["query"] = serde_json::from_str(q).map_err(|e| Error::BadRequest(format!("--query is not JSON: {e}")))?;
            }
            let created = match t {
                Target::Local { engine, ctx } => serde_json::to_value(engine.create_mlp_index(ctx, *project, &body, Some(progress::observer()))?)
                    .map_err(Error::internal)?,
                Target::Remote(_) => t.request("POST", &format!("/projects/{project}/mlp_index/"), Some(&body))?,
            };
            resources::trained(t, Kind::MlpIndex, *project, &created)?
        }
        MlpIndexCmd::Retry { id, p } => {
            let pk = project_for(t, p, Kind::MlpIndex, *id)?;
            resources::task_action(t, (Kind::MlpIndex, pk, *id), ("retry", &json!({})), |e, ctx, observer| {
                e.retry_mlp_index(ctx, pk, *id, Some(observer)).map(drop)
            })?
        }
    };
    Ok(Some(out))
}
