//! The standard subcommands every resource kind has (`list`, `show`, `delete`,
//! `bulk-delete`), run through the kind's declared operations; each kind's own command enum
//! flattens them in. Also finds the project that holds a resource when `--project` is not
//! given.
use super::Target;
use crate::engine::dataset_imports::Upload;
use crate::engine::error::{Error, Result};
use crate::engine::resources::Kind;
use clap::{Args, Subcommand};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Which project: given, or the one holding the resource.
#[derive(Args, Debug)]
pub struct ProjectFlag {
    /// Project id [default: the project holding the resource]
    #[arg(long)]
    pub project: Option<i64>,
}

#[derive(Subcommand, Debug)]
pub enum StandardCmd {
    /// List the project's resources of this kind
    List {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Order by these fields (`-` before a field: descending), e.g. -id,description
        #[arg(long)]
        ordering: Option<String>,
    },
    /// Show one
    Show {
        /// Resource id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// Delete one
    Delete {
        /// Resource id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// Delete several at once (ids of other projects are skipped)
    BulkDelete {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Resource ids
        #[arg(required = true)]
        ids: Vec<i64>,
    },
}

/// `export` and `import` of a trained model kind.
#[derive(Subcommand, Debug)]
pub enum TransferCmd {
    /// Save the model (settings and trained files) to one file
    Export {
        /// Model id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
        /// File to write
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Create a model from a file written by `export`
    Import {
        /// The export file
        file: PathBuf,
        /// Project to create it in
        #[arg(long)]
        project: i64,
    },
}

/// Runs `export` or `import` for `kind`.
pub fn transfer(t: &Target, kind: Kind, c: &TransferCmd) -> Result<Option<Value>> {
    match c {
        TransferCmd::Export { id, p, output } => export(t, kind, *id, p, output),
        TransferCmd::Import { file, project } => import(t, kind, *project, file),
    }
}

/// Runs a standard subcommand for `kind`.
pub fn run(t: &Target, kind: Kind, c: &StandardCmd) -> Result<Option<Value>> {
    let route = kind.route();
    let out = match c {
        StandardCmd::List { project, ordering } => {
            let query = ordering.as_ref().map(|o| format!("?ordering={o}")).unwrap_or_default();
            t.request("GET", &format!("/projects/{project}/{route}/{query}"), None)?
        }
        StandardCmd::Show { id, p } => {
            let pk = project_for(t, p, kind, *id)?;
            t.request("GET", &format!("/projects/{pk}/{route}/{id}/"), None)?
        }
        StandardCmd::Delete { id, p } => {
            let pk = project_for(t, p, kind, *id)?;
            t.request("DELETE", &format!("/projects/{pk}/{route}/{id}/"), None)?;
            return Ok(None);
        }
        StandardCmd::BulkDelete { project, ids } => t.request(
            "POST",
            &format!("/projects/{project}/{route}/bulk_delete/"),
            Some(&json!({"ids": ids})),
        )?,
    };
    Ok(Some(out))
}

/// The project holding resource `id` when `--project` is not given.
/// A trained resource of `kind` once its training has ended, from the answer that created it:
/// locally training ran in the foreground already; remotely its task is followed with a bar.
/// A failed task is an error.
pub fn trained(t: &Target, kind: Kind, pk: i64, created: &Value) -> Result<Value> {
    let id = created["id"]
        .as_i64()
        .ok_or_else(|| Error::Internal(format!("no {} id in the answer", kind.tag())))?;
    let path = format!("/projects/{pk}/{}/{id}/", kind.route());
    let done = match t {
        Target::Local { .. } => t.request("GET", &path, None)?,
        Target::Remote(c) => super::progress::follow(c, &path)?,
    };
    super::progress::check(done)
}

/// Runs a task of resource `id` of `kind` and waits for it, returning the resource: locally
/// `start` runs it in the foreground with a bar; remotely `POST <id>/<action>/` with `body`
/// starts it, then the task is followed.
pub fn task_action(
    t: &Target,
    (kind, pk, id): (Kind, i64, i64),
    (action, body): (&str, &Value),
    start: impl FnOnce(&std::sync::Arc<crate::engine::Engine>, &crate::engine::Ctx, crate::engine::tasks::Observer) -> Result<()>,
) -> Result<Value> {
    let path = format!("/projects/{pk}/{}/{id}/", kind.route());
    match t {
        Target::Local { engine, ctx } => {
            start(engine, ctx, super::progress::observer())?;
            super::progress::check(t.request("GET", &path, None)?)
        }
        Target::Remote(c) => {
            c.send("POST", &format!("{path}{action}/"), Some(body))?;
            super::progress::check(super::progress::follow(c, &path)?)
        }
    }
}

/// Trains resource `id` of `kind` again and waits for it (`retrain_tagger`).
pub fn retrain(
    t: &Target,
    kind: Kind,
    pk: i64,
    id: i64,
    start: impl FnOnce(&std::sync::Arc<crate::engine::Engine>, crate::engine::tasks::Observer) -> Result<i64>,
) -> Result<Value> {
    task_action(t, (kind, pk, id), ("retrain_tagger", &json!({})), |e, _, observer| {
        start(e, observer).map(drop)
    })
}

pub fn project_for(t: &Target, p: &ProjectFlag, kind: Kind, id: i64) -> Result<i64> {
    if let Some(pk) = p.project {
        return Ok(pk);
    }
    match t {
        Target::Local { engine, ctx } => engine.project_of(ctx, kind, id),
        Target::Remote(c) => {
            let projects = c.send("GET", "/projects/", None)?;
            projects
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p["id"].as_i64())
                .find(|pk| c.send("GET", &format!("/projects/{pk}/{}/{id}/", kind.route()), None).is_ok())
                .ok_or_else(Error::not_found)
        }
    }
}

/// Saves the export file of model `id` of `kind` to `out`.
pub fn export(t: &Target, kind: Kind, id: i64, p: &ProjectFlag, out: &Path) -> Result<Option<Value>> {
    let pk = project_for(t, p, kind, id)?;
    let bytes = t.download(&format!("/projects/{pk}/{}/{id}/export_model/", kind.route()))?;
    std::fs::write(out, &bytes).map_err(|e| Error::BadRequest(format!("cannot write {}: {e}", out.display())))?;
    Ok(Some(json!({"file": out, "bytes": bytes.len()})))
}

/// Creates a model of `kind` in `project` from an export file.
pub fn import(t: &Target, kind: Kind, project: i64, file: &Path) -> Result<Option<Value>> {
    let path = format!("/projects/{project}/{}/import_model/", kind.route());
    let out = match t {
        Target::Local { .. } => {
            let full = file
                .canonicalize()
                .map_err(|e| Error::BadRequest(format!("cannot read {}: {e}", file.display())))?;
            let upload = Upload {
                path: full,
                file_name: file.display().to_string(),
                owned: false,
            };
            t.request("POST", &path, Some(&json!({"file": upload.to_value()})))?
        }
        Target::Remote(c) => {
            let form = reqwest::blocking::multipart::Form::new()
                .file("file", file)
                .map_err(|e| Error::BadRequest(format!("cannot read {}: {e}", file.display())))?;
            c.send_multipart(&path, form)?
        }
    };
    Ok(Some(out))
}

/// A file given to a local training command: the user's own path, or stdin kept in the
/// upload directory until the engine has read it.
pub fn local_upload(engine: &crate::engine::Engine, file: Option<&Path>) -> Result<Upload> {
    match file {
        Some(f) => Ok(Upload {
            path: f
                .canonicalize()
                .map_err(|e| Error::BadRequest(format!("cannot read {}: {e}", f.display())))?,
            file_name: f.display().to_string(),
            owned: false,
        }),
        None => {
            let path = engine
                .upload_dir()?
                .join(format!("{}-stdin.jsonl", crate::engine::passwords::random_string(16)));
            let mut out = std::fs::File::create(&path).map_err(Error::internal)?;
            std::io::copy(&mut std::io::stdin().lock(), &mut out).map_err(Error::internal)?;
            Ok(Upload {
                path,
                file_name: "stdin".into(),
                owned: true,
            })
        }
    }
}

/// The `file` part of a remote training form: the given file, or stdin streamed.
pub fn file_part(form: reqwest::blocking::multipart::Form, file: Option<&Path>) -> Result<reqwest::blocking::multipart::Form> {
    match file {
        Some(f) => form
            .file("file", f)
            .map_err(|e| Error::BadRequest(format!("cannot read {}: {e}", f.display()))),
        None => Ok(form.part(
            "file",
            reqwest::blocking::multipart::Part::reader(std::io::stdin()).file_name("stdin.jsonl"),
        )),
    }
}
