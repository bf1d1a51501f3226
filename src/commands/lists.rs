//! `ta lexicon ...` and `ta saved-search ...`: the word lists and saved searches the GUI
//! keeps, from the shell.
use super::resources::{self, project_for, ProjectFlag, StandardCmd};
use super::Target;
use crate::engine::error::{Error, Result};
use crate::engine::resources::Kind;
use clap::Subcommand;
use serde_json::{json, Map, Value};

#[derive(Subcommand, Debug)]
pub enum LexiconCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    /// Create a lexicon
    Create {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Name of the lexicon
        #[arg(long)]
        description: String,
        /// Word or phrase (repeat for several)
        #[arg(long = "phrase")]
        phrases: Vec<String>,
    },
    /// Replace a lexicon's phrases or discarded suggestions (only those given)
    Update {
        /// Lexicon id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
        /// Word or phrase (repeat for several; replaces the list)
        #[arg(long = "phrase")]
        phrases: Vec<String>,
        /// Turned-down suggestion (repeat for several; replaces the list)
        #[arg(long = "discard")]
        discarded: Vec<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum SavedSearchCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    /// Save an Elasticsearch query under a name
    Create {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Name of the search
        #[arg(long)]
        description: String,
        /// The query as JSON
        query: String,
    },
}

pub fn lexicon(t: &Target, c: &LexiconCmd) -> Result<Option<Value>> {
    let out = match c {
        LexiconCmd::Standard(c) => return resources::run(t, Kind::Lexicon, c),
        LexiconCmd::Create {
            project,
            description,
            phrases,
        } => {
            let b = json!({"description": description, "phrases": phrases});
            t.request("POST", &format!("/projects/{project}/lexicons/"), Some(&b))?
        }
        LexiconCmd::Update { id, p, phrases, discarded } => {
            let pk = project_for(t, p, Kind::Lexicon, *id)?;
            let mut b = Map::new();
            if !phrases.is_empty() {
                b.insert("phrases".into(), json!(phrases));
            }
            if !discarded.is_empty() {
                b.insert("discarded_phrases".into(), json!(discarded));
            }
            t.request("PATCH", &format!("/projects/{pk}/lexicons/{id}/"), Some(&Value::Object(b)))?
        }
    };
    Ok(Some(out))
}

pub fn saved_search(t: &Target, c: &SavedSearchCmd) -> Result<Option<Value>> {
    match c {
        SavedSearchCmd::Standard(c) => resources::run(t, Kind::Search, c),
        SavedSearchCmd::Create {
            project,
            description,
            query,
        } => {
            let query: Value = serde_json::from_str(query).map_err(|e| Error::BadRequest(format!("the query is not JSON: {e}")))?;
            let b = json!({"description": description, "query": query});
            t.request("POST", &format!("/projects/{project}/searches/"), Some(&b)).map(Some)
        }
    }
}
