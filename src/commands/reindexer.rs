//! `ta reindexer`: copy the selected documents of indices into a new index (the `reindexer`
//! resource): create one (waiting for its run with a progress bar), and the standard list,
//! show and delete.
use super::mlp_index::{create, RunArgs};
use super::resources::{self, StandardCmd};
use super::Target;
use crate::engine::error::{Error, Result};
use crate::engine::resources::Kind;
use crate::engine::Engine;
use clap::Subcommand;
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
