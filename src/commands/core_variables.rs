//! `ta core-variable ...`: the settings kept in the state database (the search store's URL and
//! credentials), as TEXTA's Management page shows them; in effect when ta next opens its data
//! directory. Names are the declaration's (`engine::core_variables::Variable`).
use super::Target;
use crate::engine::core_variables::Variable;
use crate::engine::error::{Error, Result};
use clap::builder::PossibleValuesParser;
use clap::Subcommand;
use serde_json::{json, Value};

fn names() -> PossibleValuesParser {
    PossibleValuesParser::new(ta_text::choice::names::<Variable>())
}

#[derive(Subcommand, Debug)]
pub enum CoreVariableCmd {
    /// Every variable: its value, and what TA_SEARCH_URL gives it (superusers)
    List,
    /// Set a variable (ta uses it from its next start; --search-url wins over it)
    Set {
        /// The variable
        #[arg(value_parser = names())]
        name: String,
        /// Its value (a URL for TEXTA_ES_URL)
        value: String,
    },
    /// Unset a variable
    Unset {
        /// The variable
        #[arg(value_parser = names())]
        name: String,
    },
}

pub fn run(t: &Target, c: &CoreVariableCmd) -> Result<Option<Value>> {
    let (name, value) = match c {
        CoreVariableCmd::List => return t.request("GET", "/core_variables/", None).map(Some),
        CoreVariableCmd::Set { name, value } => (name, json!(value)),
        CoreVariableCmd::Unset { name } => (name, Value::Null),
    };
    let listed = t.request("GET", "/core_variables/", None)?;
    let row = listed
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["name"] == json!(name))
        .ok_or_else(|| Error::NotFound(format!("no core variable {name}")))?;
    let id = row["url"]
        .as_str()
        .unwrap_or_default()
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    t.request(
        "PATCH",
        &format!("/core_variables/{id}/"),
        Some(&json!({"name": name, "value": value})),
    )
    .map(Some)
}
