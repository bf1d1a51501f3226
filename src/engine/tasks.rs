//! Background tasks as stored data. A task is a row (status, progress, step, errors,
//! timestamps, counters, and its `TaskKind`: what it does with which parameters); work runs
//! on a bounded worker pool off the request runtime and reports into its row through a
//! `TaskHandle`. Tasks found unfinished at start-up were interrupted and are marked failed;
//! a failed task can be retried from what its row holds (`Engine::retry_task`).
use super::db::{Cached, Db};
use super::error::{Error, Result};
use super::{clock, Ctx, Engine};
use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Where a task is in its life; the wire and the store use the lower-case names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TaskStatus {
    Created,
    Queued,
    Running,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    const ALL: [TaskStatus; 6] = [
        TaskStatus::Created,
        TaskStatus::Queued,
        TaskStatus::Running,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Created => "created",
            TaskStatus::Queued => "queued",
            TaskStatus::Running => "running",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the task has not ended yet.
    pub fn is_active(self) -> bool {
        matches!(self, TaskStatus::Created | TaskStatus::Queued | TaskStatus::Running)
    }

    /// The SQL list of the active statuses, for `status IN (...)`.
    fn active_sql() -> String {
        let names: Vec<String> = Self::ALL
            .iter()
            .filter(|s| s.is_active())
            .map(|s| format!("'{}'", s.as_str()))
            .collect();
        format!("({})", names.join(", "))
    }
}

impl rusqlite::types::FromSql for TaskStatus {
    fn column_result(v: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        let name = v.as_str()?;
        TaskStatus::ALL
            .into_iter()
            .find(|s| s.as_str() == name)
            .ok_or_else(|| rusqlite::types::FromSqlError::Other(format!("unknown task status {name}").into()))
    }
}

/// What a task does, with the parameters it needs to run again; stored in its row.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TaskKind {
    /// Import the upload of dataset import `import` (the upload is gone afterwards).
    DatasetImport { import: i64 },
    /// Train tagger `tagger` from its index sample.
    TrainTagger { tagger: i64 },
    /// Train tagger `tagger` from a labelled file (not kept).
    TrainTaggerFromFile { tagger: i64 },
    /// Train embedding `embedding`.
    TrainEmbedding { embedding: i64 },
    /// Train embedding `embedding` from a corpus file (not kept).
    TrainEmbeddingFromFile { embedding: i64 },
    /// Train neural tagger `torchtagger` from its index sample.
    TrainTorchTagger { torchtagger: i64 },
    /// Train neural tagger `torchtagger` from a labelled file (not kept).
    TrainTorchTaggerFromFile { torchtagger: i64 },
    /// Store an imported model.
    ImportModel,
    /// Apply regex tagger group `group` to indices, as user `user`.
    ApplyRegexTaggerGroup {
        group: i64,
        user: i64,
        indices: Vec<String>,
        fields: Vec<String>,
        query: serde_json::Value,
    },
    /// Language processing over indices by mlp_index `worker` (`resume`: a retry going on
    /// where the last run stopped).
    MlpIndex { worker: i64, resume: bool },
    /// Language detection over indices by lang_index `worker` (`resume`: a retry).
    LangIndex { worker: i64, resume: bool },
    /// Copy the selected documents into the new index of reindexer `reindexer`.
    Reindex { reindexer: i64 },
    /// Copy the selected documents into the train and test indices of index splitter `splitter`.
    SplitIndex { splitter: i64 },
    /// Score the predictions of evaluator `evaluator`.
    Evaluate { evaluator: i64 },
    /// Cluster the selected documents of topic analysis `clustering`.
    Cluster { clustering: i64 },
    /// Apply model `id` of kind `model` to indices, as user `user`.
    ApplyModel {
        model: super::apply::ApplyModel,
        id: i64,
        user: i64,
        request: Box<super::apply::ApplyRequest>,
    },
}

impl TaskKind {
    /// The kind's name (the `kind` of task listings).
    pub fn name(&self) -> &'static str {
        match self {
            TaskKind::DatasetImport { .. } => "dataset_import",
            TaskKind::TrainTagger { .. } => "train_tagger",
            TaskKind::TrainTaggerFromFile { .. } => "train_tagger_from_file",
            TaskKind::TrainEmbedding { .. } => "train_embedding",
            TaskKind::TrainEmbeddingFromFile { .. } => "train_embedding_from_file",
            TaskKind::TrainTorchTagger { .. } => "train_torchtagger",
            TaskKind::TrainTorchTaggerFromFile { .. } => "train_torchtagger_from_file",
            TaskKind::ImportModel => "import_model",
            TaskKind::ApplyRegexTaggerGroup { .. } => "apply_regex_tagger_group",
            TaskKind::ApplyModel { .. } => "apply_to_index",
            TaskKind::MlpIndex { .. } => "mlp_index",
            TaskKind::LangIndex { .. } => "lang_index",
            TaskKind::Reindex { .. } => "reindexer",
            TaskKind::SplitIndex { .. } => "index_splitter",
            TaskKind::Evaluate { .. } => "evaluator",
            TaskKind::Cluster { .. } => "clustering",
        }
    }
}

/// The task object on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TaskOut {
    pub id: i64,
    pub status: TaskStatus,
    pub progress: f64,
    pub step: String,
    pub errors: String,
    pub time_started: String,
    pub last_update: Option<String>,
    pub time_completed: Option<String>,
    pub total: i64,
    pub num_processed: i64,
}

/// A task row with its kind, for task listings.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TaskInfo {
    pub kind: String,
    pub project: Option<i64>,
    #[serde(flatten)]
    pub task: TaskOut,
}

const COLS: &str = "id, status, progress, step, errors, time_started, last_update, time_completed, total, num_processed, kind, project_id";

fn row(r: &Row) -> rusqlite::Result<TaskInfo> {
    Ok(TaskInfo {
        task: TaskOut {
            id: r.get(0)?,
            status: r.get(1)?,
            progress: r.get(2)?,
            step: r.get(3)?,
            errors: r.get(4)?,
            time_started: r.get(5)?,
            last_update: r.get(6)?,
            time_completed: r.get(7)?,
            total: r.get(8)?,
            num_processed: r.get(9)?,
        },
        kind: r.get(10)?,
        project: r.get(11)?,
    })
}

fn load(db: &Db, id: i64) -> Result<Option<TaskInfo>> {
    db.with(|c| {
        Ok(c.cached_row(&format!("SELECT {COLS} FROM tasks WHERE id = ?1"), [id], row)
            .optional()?)
    })
}

/// Append `msg` (cut to 100 characters) to a JSON-encoded error list, without duplicates.
fn push_error(errors: &str, msg: &str) -> String {
    let mut list: Vec<String> = serde_json::from_str(errors).unwrap_or_default();
    let msg: String = msg.chars().take(100).collect();
    if !list.contains(&msg) {
        list.push(msg);
    }
    serde_json::to_string(&list).unwrap_or_else(|_| "[]".into())
}

/// What a running job uses to report; every call commits to the task row.
pub struct TaskHandle {
    db: Arc<Db>,
    pub id: i64,
    observer: Option<Observer>,
}

impl TaskHandle {
    fn update(&self, sql: &str, p: impl rusqlite::Params) -> Result<()> {
        self.db.with(|c| Ok(c.execute(sql, p).map(|_| ())?))?;
        if let Some(obs) = &self.observer {
            if let Some(t) = load(&self.db, self.id)? {
                obs(&t.task);
            }
        }
        Ok(())
    }

    /// Enter a phase: status `running`, the given step label.
    pub fn step(&self, step: &str) -> Result<()> {
        self.update(
            "UPDATE tasks SET status = ?1, step = ?2, last_update = ?3 WHERE id = ?4",
            params![TaskStatus::Running.as_str(), step, clock::now(), self.id],
        )
    }

    /// Set the number of items to process.
    pub fn set_total(&self, total: i64) -> Result<()> {
        self.update(
            "UPDATE tasks SET total = ?1, last_update = ?2 WHERE id = ?3",
            params![total, clock::now(), self.id],
        )
    }

    /// Record items done and the percentage.
    pub fn progress(&self, num_processed: i64, percent: f64) -> Result<()> {
        self.update(
            "UPDATE tasks SET status = ?1, num_processed = ?2, progress = ?3, last_update = ?4 WHERE id = ?5",
            params![
                TaskStatus::Running.as_str(),
                num_processed,
                percent.clamp(0.0, 100.0),
                clock::now(),
                self.id
            ],
        )
    }

    /// Record a non-fatal error (e.g. a malformed row) without stopping.
    pub fn add_error(&self, msg: &str) -> Result<()> {
        let errors: String = self
            .db
            .with(|c| Ok(c.cached_row("SELECT errors FROM tasks WHERE id = ?1", [self.id], |r| r.get(0))?))?;
        self.update(
            "UPDATE tasks SET errors = ?1 WHERE id = ?2",
            params![push_error(&errors, msg), self.id],
        )
    }

    fn complete(&self) -> Result<()> {
        let now = clock::now();
        self.update(
            "UPDATE tasks SET status = ?1, progress = 100.0, step = '', last_update = ?2, time_completed = ?2 WHERE id = ?3",
            params![TaskStatus::Completed.as_str(), now, self.id],
        )
    }

    fn fail(&self, msg: &str) -> Result<()> {
        let errors: String = self
            .db
            .with(|c| Ok(c.cached_row("SELECT errors FROM tasks WHERE id = ?1", [self.id], |r| r.get(0))?))?;
        let now = clock::now();
        self.update(
            "UPDATE tasks SET status = ?1, errors = ?2, last_update = ?3, time_completed = ?3 WHERE id = ?4",
            params![TaskStatus::Failed.as_str(), push_error(&errors, msg), now, self.id],
        )
    }
}

/// Receives every update of a task run in the foreground (local CLI mode).
pub type Observer = Box<dyn Fn(&TaskOut) + Send + Sync>;

/// A unit of background work.
pub type Job = Box<dyn FnOnce(&TaskHandle) -> Result<()> + Send>;

/// Bounded pool that runs jobs off the request runtime.
pub struct TaskRunner {
    pool: rayon::ThreadPool,
}

impl TaskRunner {
    pub fn new(threads: usize) -> TaskRunner {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("ta-task-{i}"))
            .build()
            .expect("task pool starts");
        TaskRunner { pool }
    }
}

fn run_job(handle: &TaskHandle, job: Job) {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(handle)));
    let result = match outcome {
        Ok(Ok(())) => handle.complete(),
        Ok(Err(e)) => handle.fail(&match e {
            Error::Invalid(v) => v.to_string(),
            other => other.to_string(),
        }),
        Err(_) => handle.fail("task crashed"),
    };
    if let Err(e) = result {
        eprintln!("ta: could not record the end of task {}: {e}", handle.id);
    }
}

impl Engine {
    /// Mark tasks left unfinished by a previous process as failed; returns their kinds
    /// (those stored with their parameters).
    pub(super) fn fail_interrupted_tasks(&self) -> Result<Vec<TaskKind>> {
        let now = clock::now();
        let rows: Vec<(i64, String)> = self.db.with(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT id, params FROM tasks WHERE status IN {}",
                TaskStatus::active_sql()
            ))?;
            let rows = st
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })?;
        let kinds = rows.iter().filter_map(|(_, params)| serde_json::from_str(params).ok()).collect();
        for (id, _) in rows {
            let errors: String = self
                .db
                .with(|c| Ok(c.cached_row("SELECT errors FROM tasks WHERE id = ?1", [id], |r| r.get(0))?))?;
            self.db.with(|c| {
                c.execute(
                    "UPDATE tasks SET status = ?1, errors = ?2, last_update = ?3, time_completed = ?3 WHERE id = ?4",
                    params![TaskStatus::Failed.as_str(), push_error(&errors, "interrupted by restart"), now, id],
                )?;
                Ok(())
            })?;
        }
        Ok(kinds)
    }

    /// Create a task row in `created` state (committed before any response is sent).
    pub fn create_task(&self, kind: &TaskKind, project: Option<i64>) -> Result<i64> {
        let params_json = serde_json::to_string(kind).map_err(Error::internal)?;
        self.db.with(|c| {
            c.execute(
                "INSERT INTO tasks (kind, project_id, status, time_started, params) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![kind.name(), project, TaskStatus::Created.as_str(), clock::now(), params_json],
            )?;
            Ok(c.last_insert_rowid())
        })
    }

    /// The task object of `id`, if it exists.
    pub fn task(&self, id: i64) -> Result<Option<TaskOut>> {
        Ok(load(&self.db, id)?.map(|t| t.task))
    }

    /// The task a resource links to, if any.
    pub fn linked_task(&self, r: &super::resources::Resource) -> Result<Option<TaskOut>> {
        r.task_id.map_or(Ok(None), |t| self.task(t))
    }

    /// Starts `job` as a new task of `kind` linked to resource `(resource, id)` of project `pk`:
    /// `linked` runs once the link exists (so it sees the task `created`, as a create answer
    /// shows it), then the job runs as `run_task` runs it. Returns the task id and what
    /// `linked` gave.
    pub fn start_linked_task<T>(
        &self,
        (resource, id): (super::resources::Kind, i64),
        pk: i64,
        kind: &TaskKind,
        job: Job,
        observer: Option<Observer>,
        linked: impl FnOnce() -> Result<T>,
    ) -> Result<(i64, T)> {
        let task = self.create_task(kind, Some(pk))?;
        self.set_resource_task(resource, id, task)?;
        let out = linked()?;
        self.run_task(task, job, observer);
        Ok((task, out))
    }

    /// Run `job` for task `id`: in the background on the worker pool, or — when an
    /// observer is given (local CLI mode) — in the foreground, reporting each update.
    pub fn run_task(&self, id: i64, job: Job, observer: Option<Observer>) {
        let foreground = observer.is_some();
        let handle = TaskHandle {
            db: self.db.clone(),
            id,
            observer,
        };
        if foreground {
            run_job(&handle, job);
        } else {
            self.runner.pool.spawn(move || run_job(&handle, job));
        }
    }

    /// Runs `work` on the task pool and waits for it: a foreground batch of tasks (local CLI)
    /// that `work` runs in parallel, each reporting to its own observer.
    pub fn on_task_pool<R: Send>(&self, work: impl FnOnce() -> R + Send) -> R {
        self.runner.pool.install(work)
    }

    /// Tasks visible to the caller (all for superusers, else those of their projects).
    pub fn list_tasks(&self, ctx: &Ctx) -> Result<Vec<TaskInfo>> {
        self.db.with(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT {COLS} FROM tasks t WHERE ?1 OR EXISTS(SELECT 1 FROM project_users m WHERE m.project_id = t.project_id AND m.user_id = ?2) ORDER BY id"
            ))?;
            let rows = st.query_map(params![ctx.user.is_superuser, ctx.user.id], row)?.collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    /// One task, if visible to the caller.
    pub fn get_task(&self, ctx: &Ctx, id: i64) -> Result<TaskInfo> {
        self.list_tasks(ctx)?
            .into_iter()
            .find(|t| t.task.id == id)
            .ok_or_else(Error::not_found)
    }

    /// POST /tasks/{id}/retry/: runs a failed task again from what its row holds (a new task
    /// of the same kind, on the same resource); kinds whose input is gone say so.
    pub fn retry_task(self: &Arc<Self>, ctx: &Ctx, id: i64) -> Result<TaskInfo> {
        let info = self.get_task(ctx, id)?;
        if info.task.status != TaskStatus::Failed {
            return Err(Error::BadRequest(format!(
                "Only a failed task can be retried; task {id} is {}.",
                info.task.status.as_str()
            )));
        }
        let pk = info
            .project
            .ok_or_else(|| Error::BadRequest("This task belongs to no project.".into()))?;
        self.check_project_access(ctx, pk)?;
        let stored: String = self
            .db
            .with(|c| Ok(c.cached_row("SELECT params FROM tasks WHERE id = ?1", [id], |r| r.get(0))?))?;
        let kind: TaskKind = serde_json::from_str(&stored).map_err(|_| {
            Error::BadRequest(format!(
                "Task {id} was stored by an older ta without its parameters; start it anew."
            ))
        })?;
        let gone = |what: &str| Err(Error::BadRequest(format!("Task {id} cannot be retried: {what}.")));
        let new = match kind {
            TaskKind::TrainTagger { tagger } => {
                self.resource(super::resources::Kind::Tagger, pk, tagger)?;
                self.start_tagger_training(pk, tagger, None, None)?
            }
            TaskKind::TrainTorchTagger { torchtagger } => {
                self.resource(super::resources::Kind::TorchTagger, pk, torchtagger)?;
                self.start_torchtagger_training(pk, torchtagger, None, None)?
            }
            TaskKind::TrainEmbedding { embedding } => {
                self.resource(super::resources::Kind::Embedding, pk, embedding)?;
                self.start_embedding_training(pk, embedding, None)?
            }
            TaskKind::ApplyRegexTaggerGroup {
                group,
                user,
                indices,
                fields,
                query,
            } => {
                let user = self.user_by_id(user)?;
                let ctx = Ctx { user, ..ctx.clone() };
                self.launch_apply(&ctx, pk, group, indices, fields, query, None)?
            }
            TaskKind::MlpIndex { worker, .. } => self.rerun_mlp_index(pk, worker)?,
            TaskKind::LangIndex { worker, .. } => self.rerun_lang_index(pk, worker, None)?,
            TaskKind::Reindex { reindexer } => self.rerun_reindexer(pk, reindexer)?,
            TaskKind::SplitIndex { splitter } => self.rerun_index_splitter(pk, splitter)?,
            TaskKind::Evaluate { evaluator } => self.rerun_evaluator(pk, evaluator)?,
            TaskKind::Cluster { clustering } => self.rerun_clustering(pk, clustering)?,
            TaskKind::ApplyModel { model, id, user, request } => {
                let ctx = Ctx {
                    user: self.user_by_id(user)?,
                    ..ctx.clone()
                };
                self.ensure_idle(&self.resource(model.kind(), pk, id)?)?;
                self.launch_model_apply(&ctx, model, pk, id, *request, None)?
            }
            TaskKind::DatasetImport { .. } => return gone("the uploaded file is removed when an import ends; import it again"),
            TaskKind::TrainTaggerFromFile { .. } | TaskKind::TrainEmbeddingFromFile { .. } | TaskKind::TrainTorchTaggerFromFile { .. } => {
                return gone("the training file is not kept; train from it again")
            }
            TaskKind::ImportModel => return gone("an import runs once; import the file again"),
        };
        self.get_task(ctx, new)
    }

    /// Number of tasks not yet finished (health).
    pub fn active_tasks(&self) -> Result<i64> {
        self.db.with(|c| {
            Ok(c.cached_row(
                &format!("SELECT COUNT(*) FROM tasks WHERE status IN {}", TaskStatus::active_sql()),
                [],
                |r| r.get(0),
            )?)
        })
    }
}
