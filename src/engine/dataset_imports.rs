//! Dataset imports: a project resource whose creation uploads a file (jsonl, csv, excel)
//! and starts a background task that streams it into a search index, counting malformed
//! rows; when done the index joins the project.
use super::error::{Error, Result};
use super::indices::check_index_name;
use super::kinds::ResourceKind;
use super::resources::{resource_url, Kind, Resource};
use super::search::{FileKind, NameRuleOrder};
use super::tasks::{Observer, TaskOut};
use super::validate::{Form, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file handed to an import: where it is, the name the client gave it, and whether the
/// import owns it (an upload, removed with the import) or merely reads it (a local path).
#[derive(Clone, Debug)]
pub struct Upload {
    pub path: PathBuf,
    pub file_name: String,
    pub owned: bool,
}

/// Key under which a face hands an upload to the engine inside a request body (faces strip
/// such keys from what clients send, so only they can set it).
pub const UPLOAD_MARKER: &str = "\u{0}upload";

impl Upload {
    /// The body value that carries this upload.
    pub fn to_value(&self) -> Value {
        json!({ UPLOAD_MARKER: {"path": self.path, "file_name": self.file_name, "owned": self.owned} })
    }

    /// The upload a face put in a request body's `file` field (the last one of a form list).
    pub fn from_body(body: &Value) -> Option<Upload> {
        match body.get("file")? {
            Value::Array(a) => a.last().and_then(Upload::from_value),
            other => Upload::from_value(other),
        }
    }

    fn from_value(v: &Value) -> Option<Upload> {
        let u = v.get(UPLOAD_MARKER)?;
        Some(Upload {
            path: PathBuf::from(u.get("path")?.as_str()?),
            file_name: u.get("file_name")?.as_str()?.to_string(),
            owned: u.get("owned")?.as_bool()?,
        })
    }
}

/// The dataset import resource on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct DatasetImportOut {
    pub id: i64,
    pub url: String,
    pub author_username: String,
    pub description: String,
    pub index: String,
    pub separator: String,
    pub num_documents: u64,
    pub num_documents_success: u64,
    pub task: Option<TaskOut>,
}

/// What is stored per import besides the description.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Stored {
    index: String,
    separator: String,
    num_documents: u64,
    num_documents_success: u64,
    file: PathBuf,
    file_name: String,
    owned: bool,
}

fn stored(r: &Resource) -> Stored {
    serde_json::from_value(r.config.clone()).unwrap_or_default()
}

fn remove_owned(file: &Path, owned: bool) {
    if owned {
        let _ = std::fs::remove_file(file);
    }
}

/// Validate the fields of a new import.
fn parse_new(body: &Value, upload: Option<&Upload>) -> Result<(String, String, String)> {
    let mut f = Form::new(body, Mode::Full)?;
    let file_sent = f.raw("file").is_some();
    let description = f.string("description", Str::REQUIRED.max(1000));
    let index = f.string("index", Str::REQUIRED);
    if let Some(i) = &index {
        check_index_name(i, NameRuleOrder::DatasetImport)?;
    }
    let separator = f
        .string("separator", Str::OPTIONAL.untrimmed().max(4))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| ",".into());
    match upload {
        None if file_sent => f.fail("file", "The submitted data was not a file. Check the encoding type on the form."),
        None => f.fail("file", "No file was submitted."),
        Some(u) if std::fs::metadata(&u.path).map(|m| m.len() == 0).unwrap_or(true) => f.fail("file", "The submitted file is empty."),
        Some(_) => {}
    }
    f.finish()?;
    Ok((description.unwrap_or_default(), index.unwrap_or_default(), separator))
}

impl Engine {
    /// Directory where uploads are streamed to.
    pub fn upload_dir(&self) -> Result<PathBuf> {
        let dir = self.config.data_dir.join("uploads");
        std::fs::create_dir_all(&dir).map_err(Error::internal)?;
        Ok(dir)
    }

    pub(crate) fn render_import(&self, ctx: &Ctx, r: &Resource) -> Result<DatasetImportOut> {
        let s = stored(r);
        Ok(DatasetImportOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::DatasetImport, r.id),
            author_username: r.author_username.clone(),
            description: r.description.clone(),
            index: s.index,
            separator: s.separator,
            num_documents: s.num_documents,
            num_documents_success: s.num_documents_success,
            task: self.linked_task(r)?,
        })
    }

    /// Validate, record the import and its task, and start the import: in the background,
    /// or in the foreground when `observer` is given (local CLI mode).
    pub fn start_dataset_import(
        self: &Arc<Self>,
        ctx: &Ctx,
        pk: i64,
        body: &Value,
        observer: Option<Observer>,
    ) -> Result<DatasetImportOut> {
        let upload = Upload::from_body(body);
        let checked = self.check_project_access(ctx, pk).and_then(|_| parse_new(body, upload.as_ref()));
        let (description, index, separator) = match checked {
            Ok(v) => v,
            Err(e) => {
                if let Some(u) = &upload {
                    remove_owned(&u.path, u.owned);
                }
                return Err(e);
            }
        };
        let upload = upload.expect("validated");
        let config = Stored {
            index,
            separator,
            file: upload.path.clone(),
            file_name: upload.file_name.clone(),
            owned: upload.owned,
            ..Default::default()
        };
        let id = self.insert_resource(
            Kind::DatasetImport,
            ctx,
            pk,
            &description,
            &serde_json::to_value(&config).map_err(Error::internal)?,
        )?;
        let task = self.create_task(&super::tasks::TaskKind::DatasetImport { import: id }, Some(pk))?;
        self.set_resource_task(Kind::DatasetImport, id, task)?;
        let engine = self.clone();
        let foreground = observer.is_some();
        let created = self.get_of::<DatasetImports>(ctx, pk, id)?;
        self.run_task(task, Box::new(move |h| engine.run_import(pk, id, h)), observer);
        if foreground {
            self.get_of::<DatasetImports>(ctx, pk, id)
        } else {
            Ok(created)
        }
    }

    /// The import job: stream the file into the index, record counts and row errors.
    /// Removes every file left in the upload directory: uploads are removed when their import
    /// ends, so what is there when `ta serve` starts (no import running) was left by a crash.
    pub fn sweep_uploads(&self) -> Result<usize> {
        let dir = self.upload_dir()?;
        let mut removed = 0;
        for entry in std::fs::read_dir(&dir).map_err(Error::internal)?.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_file()) && std::fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Imports the uploaded file, then removes it (an upload is read once).
    fn run_import(&self, pk: i64, id: i64, h: &super::tasks::TaskHandle) -> Result<()> {
        let r = self.resource(Kind::DatasetImport, pk, id)?;
        let s = stored(&r);
        let result = self.import_upload(pk, id, s.clone(), h);
        remove_owned(&s.file, s.owned);
        result
    }

    fn import_upload(&self, pk: i64, id: i64, mut s: Stored, h: &super::tasks::TaskHandle) -> Result<()> {
        h.step("importing dataset")?;
        let kind = FileKind::from_file_name(&s.file_name);
        if kind == FileKind::Unknown {
            return Err(Error::BadRequest("unknown file type".into()));
        }
        let sep = s.separator.bytes().next().unwrap_or(b',');
        let mut report = Ok(());
        let stats = self.import_into(&s.index, &s.file, kind, sep, &mut |p| {
            if report.is_ok() {
                report = h.progress(p.num_documents as i64, p.percent());
            }
        })?;
        report?;
        for e in &stats.errors {
            h.add_error(e)?;
        }
        s.num_documents = stats.num_documents;
        s.num_documents_success = stats.num_documents_success;
        // The description may have been changed while the import ran: keep the stored one.
        self.edit_resource(Kind::DatasetImport, pk, id, |now| {
            self.store_config(Kind::DatasetImport, id, &now.description, &s)
        })?;
        self.add_project_index(pk, &s.index)?;
        h.set_total(stats.num_documents as i64)?;
        h.progress(stats.num_documents as i64, 100.0)
    }
}

/// The body that creates a dataset import (a multipart form; only `description` changes later).
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DatasetImportIn {
    pub description: String,
    /// Index to import into (created when missing).
    pub index: String,
    /// CSV separator (default `,`).
    pub separator: Option<String>,
    /// The file: JSONL, CSV or Excel.
    #[schema(value_type = String, format = Binary)]
    pub file: String,
}

/// The dataset import kind (`/projects/{pk}/dataset_imports/`).
pub struct DatasetImports;

impl ResourceKind for DatasetImports {
    const KIND: Kind = Kind::DatasetImport;
    const NOUN: &'static str = "dataset import";
    const UPLOAD: bool = true;
    type Out = DatasetImportOut;
    type In = DatasetImportIn;

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<DatasetImportOut> {
        e.render_import(ctx, r)
    }

    /// The import runs in the background.
    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<DatasetImportOut> {
        e.start_dataset_import(ctx, pk, body, None)
    }

    /// Only `description` changes.
    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        let mut f = Form::new(body, mode)?;
        let description = f.string("description", Str::REQUIRED.max(1000));
        f.finish()?;
        e.update_resource(
            Kind::DatasetImport,
            r.id,
            description.as_deref().unwrap_or(&r.description),
            &r.config,
        )
    }

    /// Removes the uploaded file; an unfinished import's index leaves the project (its data
    /// stays in the store).
    fn deleting(e: &Engine, r: &Resource) -> Result<()> {
        let s = stored(r);
        let completed = match r.task_id {
            Some(t) => e.task(t)?.is_some_and(|t| t.status == super::tasks::TaskStatus::Completed),
            None => false,
        };
        if !completed {
            e.remove_project_index(r.project_id, &s.index)?;
        }
        remove_owned(&s.file, s.owned);
        Ok(())
    }
}
