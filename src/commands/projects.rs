//! `ta project create|list|show|update|delete|indices`.
use super::Target;
use crate::engine::error::{Error, Result};
use clap::{Args, Subcommand};
use serde_json::{json, Map, Value};

#[derive(Subcommand, Debug)]
pub enum ProjectCmd {
    /// Create a project (superusers)
    Create(ProjectArgs),
    /// List projects
    List {
        /// Only titles containing this text
        #[arg(long)]
        title: Option<String>,
    },
    /// Show one project
    Show {
        /// Project id
        id: i64,
    },
    /// Change a project's title, members or indices (only the given ones)
    Update {
        /// Id of the resource
        id: i64,
        #[command(flatten)]
        args: ProjectArgs,
    },
    /// Delete a project and all its resources
    Delete {
        /// Project id
        id: i64,
    },
    /// The project's indices
    Indices {
        /// Project id
        id: i64,
    },
    /// The predictions the project's models kept for feedback, or remove them with --clear
    Feedback {
        /// Project id
        id: i64,
        /// Remove them
        #[arg(long)]
        clear: bool,
    },
}

#[derive(Args, Debug)]
pub struct ProjectArgs {
    /// Project title
    #[arg(long)]
    pub title: Option<String>,
    /// Member user name (repeat for several)
    #[arg(long = "user")]
    pub users: Vec<String>,
    /// Index name (repeat for several)
    #[arg(long = "index")]
    pub indices: Vec<String>,
}

/// Resolve user names to the user URLs the API takes.
fn user_urls(t: &Target, names: &[String]) -> Result<Vec<String>> {
    let users = t.request("GET", "/users/", None)?;
    names
        .iter()
        .map(|n| {
            users
                .as_array()
                .and_then(|a| a.iter().find(|u| u["username"] == json!(n)))
                .and_then(|u| u["url"].as_str().map(str::to_string))
                .ok_or_else(|| Error::NotFound(format!("No user named {n:?}.")))
        })
        .collect()
}

fn body(t: &Target, a: &ProjectArgs, full: bool) -> Result<Value> {
    let mut m = Map::new();
    if let Some(title) = &a.title {
        m.insert("title".into(), json!(title));
    }
    if full || !a.users.is_empty() {
        m.insert("users".into(), json!(user_urls(t, &a.users)?));
    }
    if full || !a.indices.is_empty() {
        m.insert("indices".into(), json!(a.indices));
    }
    Ok(Value::Object(m))
}

pub fn run(t: &Target, c: &ProjectCmd) -> Result<Option<Value>> {
    let out = match c {
        ProjectCmd::Create(a) => {
            let b = body(t, a, true)?;
            t.request("POST", "/projects/", Some(&b))?
        }
        ProjectCmd::List { title } => {
            let path = match title {
                Some(t) => format!(
                    "/projects/?title={}",
                    form_urlencoded::byte_serialize(t.as_bytes()).collect::<String>()
                ),
                None => "/projects/".into(),
            };
            t.request("GET", &path, None)?
        }
        ProjectCmd::Show { id } => t.request("GET", &format!("/projects/{id}/"), None)?,
        ProjectCmd::Update { id, args } => {
            let b = body(t, args, false)?;
            t.request("PATCH", &format!("/projects/{id}/"), Some(&b))?
        }
        ProjectCmd::Delete { id } => {
            t.request("DELETE", &format!("/projects/{id}/"), None)?;
            return Ok(None);
        }
        ProjectCmd::Indices { id } => t.request("GET", &format!("/projects/{id}/get_indices/"), None)?,
        ProjectCmd::Feedback { id, clear } => {
            let method = if *clear { "DELETE" } else { "GET" };
            t.request(method, &format!("/projects/{id}/feedback/"), None)?
        }
    };
    Ok(Some(out))
}
