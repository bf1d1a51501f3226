//! Generic storage of project resources (a description, a JSON configuration, an
//! optional task) and the list conventions every collection shares: pagination,
//! ordering and filtering exactly as the reference's DRF views do them.
use super::db::Cached;
use super::error::{Error, Result};
use super::{Ctx, Engine};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

/// A stored resource row.
#[derive(Clone, Debug)]
pub struct Resource {
    pub id: i64,
    pub project_id: i64,
    pub author_username: String,
    pub description: String,
    pub config: Value,
    pub task_id: Option<i64>,
}

/// One page of a paginated list: `{"count", "results"}` (no next/previous links).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Page<T> {
    pub count: usize,
    pub results: Vec<T>,
}

/// `{"num_deleted", "deleted_types"}` of bulk_delete.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct BulkDeleteOut {
    pub num_deleted: usize,
    #[schema(value_type = Object)]
    pub deleted_types: BTreeMap<String, usize>,
}

impl BulkDeleteOut {
    /// Counts `other`'s deletions in too.
    pub fn add(&mut self, other: BulkDeleteOut) {
        self.num_deleted += other.num_deleted;
        for (label, n) in other.deleted_types {
            *self.deleted_types.entry(label).or_default() += n;
        }
    }
}

/// Kinds of stored resources, with their wire route segment and reference model label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    RegexTagger,
    RegexTaggerGroup,
    Anonymizer,
    DatasetImport,
    Tagger,
    TaggerGroup,
    TorchTagger,
    Embedding,
    Lexicon,
    Search,
    MlpIndex,
    LangIndex,
    Reindexer,
    IndexSplitter,
    Evaluator,
    Clustering,
}

impl Kind {
    pub const ALL: [Kind; 16] = [
        Kind::RegexTagger,
        Kind::RegexTaggerGroup,
        Kind::Anonymizer,
        Kind::DatasetImport,
        Kind::Tagger,
        Kind::TaggerGroup,
        Kind::TorchTagger,
        Kind::Embedding,
        Kind::Lexicon,
        Kind::Search,
        Kind::MlpIndex,
        Kind::LangIndex,
        Kind::Reindexer,
        Kind::IndexSplitter,
        Kind::Evaluator,
        Kind::Clustering,
    ];

    /// The kind's names, in one place: its tag in the state database, its route segment and
    /// the reference's model label (bulk_delete's `deleted_types`).
    fn names(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Kind::RegexTagger => ("regex_tagger", "regex_taggers", "regex_tagger.RegexTagger"),
            Kind::RegexTaggerGroup => ("regex_tagger_group", "regex_tagger_groups", "regex_tagger.RegexTaggerGroup"),
            Kind::Anonymizer => ("anonymizer", "anonymizers", "anonymizer.Anonymizer"),
            Kind::DatasetImport => ("dataset_import", "dataset_imports", "dataset_import.DatasetImport"),
            Kind::Tagger => ("tagger", "taggers", "tagger.Tagger"),
            Kind::TaggerGroup => ("tagger_group", "tagger_groups", "tagger.TaggerGroup"),
            Kind::TorchTagger => ("torchtagger", "torchtaggers", "torchtagger.TorchTagger"),
            Kind::Embedding => ("embedding", "embeddings", "embedding.Embedding"),
            Kind::Lexicon => ("lexicon", "lexicons", "lexicon.Lexicon"),
            Kind::Search => ("search", "searches", "core.Search"),
            Kind::MlpIndex => ("mlp_index", "mlp_index", "mlp.MLPWorker"),
            Kind::LangIndex => ("lang_index", "lang_index", "mlp.ApplyLangWorker"),
            Kind::Reindexer => ("reindexer", "reindexer", "elastic.Reindexer"),
            Kind::IndexSplitter => ("index_splitter", "index_splitter", "elastic.IndexSplitter"),
            Kind::Evaluator => ("evaluator", "evaluators", "evaluator.Evaluator"),
            Kind::Clustering => ("clustering", "clustering", "topic_analyzer.ClusteringResult"),
        }
    }
    pub fn tag(self) -> &'static str {
        self.names().0
    }
    pub fn route(self) -> &'static str {
        self.names().1
    }
    pub fn model_label(self) -> &'static str {
        self.names().2
    }
}

/// Build an SQL ORDER BY from `?ordering=a,-b`, honouring only `allowed` (name → SQL
/// expression); ties and the default order are ascending id.
pub fn order_clause(ordering: Option<&str>, allowed: &[(&str, &str)]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for term in ordering.unwrap_or("").split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let (desc, name) = match term.strip_prefix('-') {
            Some(n) => (true, n),
            None => (false, term),
        };
        if let Some((_, sql)) = allowed.iter().find(|(n, _)| *n == name) {
            parts.push(format!("{sql} {}", if desc { "DESC" } else { "ASC" }));
        }
    }
    let id_col = allowed.iter().find(|(n, _)| *n == "id").map(|(_, s)| *s).unwrap_or("id");
    parts.push(format!("{id_col} ASC"));
    parts.join(", ")
}

/// Page window from `page` / `page_size`, per the conventions (30 default, 1000 cap).
pub fn page_window(query: &BTreeMap<String, String>, count: usize) -> Result<(usize, usize)> {
    let size = query
        .get("page_size")
        .and_then(|s| s.trim().parse::<i64>().ok())
        .filter(|n| *n > 0)
        .map(|n| n.min(1000) as usize)
        .unwrap_or(30);
    let pages = count.div_ceil(size).max(1);
    let page = match query.get("page").map(|s| s.trim()) {
        None => 1,
        Some("last") => pages,
        Some(p) => p
            .parse::<usize>()
            .ok()
            .filter(|n| *n >= 1 && *n <= pages)
            .ok_or_else(|| Error::NotFound("Invalid page.".into()))?,
    };
    Ok(((page - 1) * size, size))
}

/// Locks that let one edit of a resource at a time read, change and write its row (a PATCH,
/// a task storing its results). Without them two edits of one resource both read the same
/// row and the later write drops what the earlier one changed. Striped by kind and id, so
/// edits of different resources rarely wait for each other.
#[derive(Default)]
pub struct EditLocks([Mutex<()>; 32]);

impl EditLocks {
    fn stripe(&self, kind: Kind, id: i64) -> &Mutex<()> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (kind, id).hash(&mut h);
        &self.0[(h.finish() % self.0.len() as u64) as usize]
    }
}

const COLS: &str = "r.id, r.project_id, COALESCE(u.username, ''), r.description, r.config, r.task_id";

fn row(r: &rusqlite::Row) -> rusqlite::Result<Resource> {
    let config: String = r.get(4)?;
    Ok(Resource {
        id: r.get(0)?,
        project_id: r.get(1)?,
        author_username: r.get(2)?,
        description: r.get(3)?,
        config: serde_json::from_str(&config).unwrap_or(Value::Null),
        task_id: r.get(5)?,
    })
}

impl Engine {
    /// Insert a resource; returns its id.
    pub fn insert_resource(&self, kind: Kind, ctx: &Ctx, project: i64, description: &str, config: &Value) -> Result<i64> {
        self.db.tx(|tx| {
            tx.execute(
                "INSERT INTO sequences (kind, last) VALUES (?1, 1) ON CONFLICT(kind) DO UPDATE SET last = last + 1",
                [kind.tag()],
            )?;
            let id: i64 = tx.cached_row("SELECT last FROM sequences WHERE kind = ?1", [kind.tag()], |r| r.get(0))?;
            tx.execute(
                "INSERT INTO resources (kind, id, project_id, author_id, description, config) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![kind.tag(), id, project, ctx.user.id, description, config.to_string()],
            )?;
            Ok(id)
        })
    }

    /// Runs `edit` on the resource of `kind` in `project` as stored now (404 if there is none),
    /// while no other edit of it runs; `edit` writes what it changes (`store_config`).
    pub fn edit_resource<T>(&self, kind: Kind, project: i64, id: i64, edit: impl FnOnce(&Resource) -> Result<T>) -> Result<T> {
        let _alone = self.edits.stripe(kind, id).lock().unwrap_or_else(|p| p.into_inner());
        edit(&self.resource(kind, project, id)?)
    }

    /// A resource of `kind` in `project`, or 404.
    pub fn resource(&self, kind: Kind, project: i64, id: i64) -> Result<Resource> {
        self.db
            .with(|c| {
                Ok(c.cached_row(
                    &format!("SELECT {COLS} FROM resources r LEFT JOIN users u ON u.id = r.author_id WHERE r.kind = ?1 AND r.project_id = ?2 AND r.id = ?3"),
                    params![kind.tag(), project, id],
                    row,
                )
                .optional()?)
            })?
            .ok_or_else(Error::not_found)
    }

    /// Whether a resource of `kind` with this id exists in any project.
    pub fn resource_exists(&self, kind: Kind, id: i64) -> Result<bool> {
        self.db.with(|c| {
            Ok(c.cached_row(
                "SELECT EXISTS(SELECT 1 FROM resources WHERE kind = ?1 AND id = ?2)",
                params![kind.tag(), id],
                |r| r.get(0),
            )?)
        })
    }

    /// All resources of `kind` in `project` with the given ids (unknown ids dropped), ascending id.
    pub fn resources_by_ids(&self, kind: Kind, project: i64, ids: &[i64]) -> Result<Vec<Resource>> {
        Ok(self
            .all_resources(kind, project)?
            .into_iter()
            .filter(|r| ids.contains(&r.id))
            .collect())
    }

    /// All resources of `kind` in `project`, ascending id.
    pub fn all_resources(&self, kind: Kind, project: i64) -> Result<Vec<Resource>> {
        self.db.with(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT {COLS} FROM resources r LEFT JOIN users u ON u.id = r.author_id WHERE r.kind = ?1 AND r.project_id = ?2 ORDER BY r.id"
            ))?;
            let rows = st.query_map(params![kind.tag(), project], row)?.collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    /// One page of resources of `kind`, with the `description` and `task_status` filters and
    /// ordering on `id`, `author__username`, `description` and the configuration's
    /// `config_keys`.
    pub fn page_resources(
        &self,
        kind: Kind,
        project: i64,
        query: &BTreeMap<String, String>,
        config_keys: &[&str],
    ) -> Result<(usize, Vec<Resource>)> {
        let all = self.filtered_resources(kind, project, query, config_keys)?;
        let (offset, size) = page_window(query, all.len())?;
        let count = all.len();
        Ok((count, all.into_iter().skip(offset).take(size).collect()))
    }

    /// Every resource of a kind in a project, filtered and ordered by the list's query
    /// (`ordering` over the id, author, description, the task's start, end and status, and
    /// `config_keys`, where `x__name` orders by the first name of list `x`; `description`;
    /// `task_status`).
    pub fn filtered_resources(
        &self,
        kind: Kind,
        project: i64,
        query: &BTreeMap<String, String>,
        config_keys: &[&str],
    ) -> Result<Vec<Resource>> {
        let config: Vec<(&str, String)> = config_keys
            .iter()
            .map(|k| match k.strip_suffix("__name") {
                // A list of names (`indices__name`): ordered by its first.
                Some(list) => (*k, format!("json_extract(r.config, '$.{list}[0]')")),
                None => (*k, format!("json_extract(r.config, '$.{k}')")),
            })
            .collect();
        let mut allowed = vec![
            ("id", "r.id"),
            ("author__username", "u.username"),
            ("description", "r.description"),
            ("task__time_started", "(SELECT t.time_started FROM tasks t WHERE t.id = r.task_id)"),
            (
                "task__time_completed",
                "(SELECT t.time_completed FROM tasks t WHERE t.id = r.task_id)",
            ),
            ("task__status", "(SELECT t.status FROM tasks t WHERE t.id = r.task_id)"),
        ];
        allowed.extend(config.iter().map(|(k, sql)| (*k, sql.as_str())));
        let order = order_clause(query.get("ordering").map(String::as_str), &allowed);
        let filter = query.get("description").cloned().unwrap_or_default();
        let status = query.get("task_status").cloned().unwrap_or_default();
        self.db.with(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT {COLS} FROM resources r LEFT JOIN users u ON u.id = r.author_id
                 WHERE r.kind = ?1 AND r.project_id = ?2 AND instr(lower(r.description), lower(?3)) > 0
                   AND (?4 = '' OR EXISTS (SELECT 1 FROM tasks t WHERE t.id = r.task_id AND t.status = ?4))
                 ORDER BY {order}"
            ))?;
            let rows = st
                .query_map(params![kind.tag(), project, filter, status], row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    /// Stores a resource's description and its typed settings.
    pub fn store_config<S: Serialize>(&self, kind: Kind, id: i64, description: &str, config: &S) -> Result<()> {
        self.update_resource(kind, id, description, &serde_json::to_value(config).map_err(Error::internal)?)
    }

    pub fn update_resource(&self, kind: Kind, id: i64, description: &str, config: &Value) -> Result<()> {
        self.db.with(|c| {
            c.execute(
                "UPDATE resources SET description = ?1, config = ?2 WHERE kind = ?3 AND id = ?4",
                params![description, config.to_string(), kind.tag(), id],
            )?;
            Ok(())
        })
    }

    pub fn set_resource_task(&self, kind: Kind, id: i64, task: i64) -> Result<()> {
        self.db.with(|c| {
            Ok(c.execute(
                "UPDATE resources SET task_id = ?1 WHERE kind = ?2 AND id = ?3",
                params![task, kind.tag(), id],
            )
            .map(|_| ())?)
        })
    }

    pub fn delete_resource(&self, kind: Kind, project: i64, id: i64) -> Result<()> {
        self.resource(kind, project, id)?;
        self.db.with(|c| {
            Ok(
                c.execute("DELETE FROM resources WHERE kind = ?1 AND id = ?2", params![kind.tag(), id])
                    .map(|_| ())?,
            )
        })
    }

    /// Deletes the resources of `kind` in `project` with these ids (others are skipped) and
    /// their tasks; the counts as bulk_delete answers them.
    pub fn bulk_delete(&self, kind: Kind, project: i64, ids: &[i64]) -> Result<BulkDeleteOut> {
        let n = self.db.tx(|tx| {
            let (mut n, mut tasks) = (0, 0);
            for id in ids {
                let row: Option<Option<i64>> = tx
                    .cached_row(
                        "SELECT task_id FROM resources WHERE kind = ?1 AND project_id = ?2 AND id = ?3",
                        params![kind.tag(), project, id],
                        |r| r.get(0),
                    )
                    .optional()?;
                if let Some(task) = row {
                    n += tx.execute("DELETE FROM resources WHERE kind = ?1 AND id = ?2", params![kind.tag(), id])?;
                    if let Some(t) = task {
                        tasks += tx.execute("DELETE FROM tasks WHERE id = ?1", [t])?;
                    }
                }
            }
            Ok((n, tasks))
        })?;
        let mut types = BTreeMap::new();
        if n.0 > 0 {
            types.insert(kind.model_label().to_string(), n.0);
        }
        if n.1 > 0 {
            types.insert("core.Task".to_string(), n.1);
        }
        Ok(BulkDeleteOut {
            num_deleted: n.0 + n.1,
            deleted_types: types,
        })
    }

    /// Replace the member set (of `member_kind`) of a group resource.
    pub fn set_members(&self, owner: (Kind, i64), member_kind: Kind, members: &[i64]) -> Result<()> {
        self.db.tx(|tx| {
            tx.execute(
                "DELETE FROM resource_members WHERE owner_kind = ?1 AND owner_id = ?2 AND member_kind = ?3",
                params![owner.0.tag(), owner.1, member_kind.tag()],
            )?;
            for m in members {
                tx.execute(
                    "INSERT OR IGNORE INTO resource_members (owner_kind, owner_id, member_kind, member_id) VALUES (?1, ?2, ?3, ?4)",
                    params![owner.0.tag(), owner.1, member_kind.tag(), m],
                )?;
            }
            Ok(())
        })
    }

    /// Member ids (of `member_kind`) of a group, ascending.
    pub fn members(&self, owner: (Kind, i64), member_kind: Kind) -> Result<Vec<i64>> {
        self.db.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT member_id FROM resource_members WHERE owner_kind = ?1 AND owner_id = ?2 AND member_kind = ?3 ORDER BY member_id",
            )?;
            let ids = st
                .query_map(params![owner.0.tag(), owner.1, member_kind.tag()], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<i64>>>()?;
            Ok(ids)
        })
    }

    /// Groups (of `owner_kind`) containing `member`: `(id, description)`, ascending id.
    pub fn owners(&self, member: (Kind, i64), owner_kind: Kind) -> Result<Vec<(i64, String)>> {
        self.db.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT r.id, r.description FROM resource_members m JOIN resources r ON r.kind = m.owner_kind AND r.id = m.owner_id
                 WHERE m.member_kind = ?1 AND m.member_id = ?2 AND m.owner_kind = ?3 ORDER BY r.id",
            )?;
            let rows = st
                .query_map(params![member.0.tag(), member.1, owner_kind.tag()], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }
}

/// URL of a project resource.
pub fn resource_url(ctx: &Ctx, project: i64, kind: Kind, id: i64) -> String {
    format!("{}/projects/{project}/{}/{id}/", ctx.base_url, kind.route())
}
