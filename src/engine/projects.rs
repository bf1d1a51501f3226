//! Projects: membership, the per-project permission rules, and the project resource.
use super::db::Cached;
use super::error::{Error, Result, NO_PERMISSION};
use super::resources::Kind;
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

const INSUFFICIENT_PROJECT: &str = "Insufficient permissions for this project.";
pub const INSUFFICIENT_RESOURCE: &str = "Insufficient permissions for this resource.";

/// Link names of a project's `resources` map, in the reference's order; `None` means the
/// link is not project-scoped. A project lists those whose path has an operation
/// ([`resource_links`]).
const RESOURCE_LINKS: &[(&str, Option<&str>)] = &[
    ("lexicons", None),
    ("reindexer", None),
    ("dataset_imports", None),
    ("searches", None),
    ("scroll", None),
    ("clustering", None),
    ("embeddings", None),
    ("embedding_clusters", None),
    ("taggers", None),
    ("tagger_groups", None),
    ("torchtaggers", None),
    ("regex_taggers", None),
    ("anonymizers", None),
    ("regex_tagger_groups", None),
    ("mlp_index", None),
    ("mlp_texts", Some("/mlp/texts/")),
    ("mlp_docs", Some("/mlp/docs/")),
];

/// The paths of [`RESOURCE_LINKS`] that some operation answers, relative to the API root
/// (`{pk}` for the project), in order.
fn resource_links() -> &'static [(&'static str, String)] {
    static LINKS: std::sync::OnceLock<Vec<(&str, String)>> = std::sync::OnceLock::new();
    LINKS.get_or_init(|| {
        RESOURCE_LINKS
            .iter()
            .map(|(name, fixed)| {
                (
                    *name,
                    fixed.map_or_else(|| format!("/projects/{{project_pk}}/{name}/"), str::to_string),
                )
            })
            .filter(|(_, path)| super::operations::declared(path))
            .collect()
    })
}

/// The project resource on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ProjectOut {
    pub url: String,
    pub id: i64,
    pub title: String,
    pub author_username: String,
    pub users: Vec<String>,
    pub indices: Vec<String>,
    #[schema(value_type = Object)]
    pub resources: Map<String, Value>,
}

/// Project create/update body (`users` are user URLs).
#[derive(Clone, Debug, Default, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ProjectIn {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub users: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indices: Option<Vec<String>>,
}

/// `{"indices": [...]}` of get_indices.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct IndicesOut {
    pub indices: Vec<String>,
}

struct ProjectFields {
    title: Option<String>,
    users: Option<Vec<i64>>,
    indices: Option<Vec<i64>>,
}

impl Engine {
    fn project_exists(&self, pk: i64) -> Result<bool> {
        self.db
            .with(|c| Ok(c.cached_row("SELECT EXISTS(SELECT 1 FROM projects WHERE id = ?1)", [pk], |r| r.get(0))?))
    }

    fn is_member(&self, pk: i64, user_id: i64) -> Result<bool> {
        self.db.with(|c| {
            Ok(c.cached_row(
                "SELECT EXISTS(SELECT 1 FROM project_users WHERE project_id = ?1 AND user_id = ?2)",
                [pk, user_id],
                |r| r.get(0),
            )?)
        })
    }

    /// Gate for everything under `/projects/{pk}/...`: members and superusers of an
    /// existing project pass; all others get the reference's 403.
    pub fn check_project_access(&self, ctx: &Ctx, pk: i64) -> Result<()> {
        let ok = self.project_exists(pk)? && (ctx.user.is_superuser || self.is_member(pk, ctx.user.id)?);
        if ok {
            Ok(())
        } else {
            Err(Error::Forbidden(INSUFFICIENT_RESOURCE.into()))
        }
    }

    /// Visible = superuser, or member; otherwise the project "does not exist" (404).
    fn visible_project(&self, ctx: &Ctx, pk: i64) -> Result<()> {
        if self.project_exists(pk)? && (ctx.user.is_superuser || self.is_member(pk, ctx.user.id)?) {
            Ok(())
        } else {
            Err(Error::not_found())
        }
    }

    fn render_project(&self, ctx: &Ctx, pk: i64) -> Result<ProjectOut> {
        let (title, author): (String, Option<String>) = self.db.with(|c| {
            Ok(c.cached_row(
                "SELECT p.title, u.username FROM projects p LEFT JOIN users u ON u.id = p.author_id WHERE p.id = ?1",
                [pk],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?)
        })?;
        let users = self
            .project_user_ids(pk)?
            .into_iter()
            .map(|id| format!("{}/users/{id}/", ctx.base_url))
            .collect();
        let indices = self.project_indices(pk)?;
        let base = format!("{}/projects/{pk}", ctx.base_url);
        let resources = resource_links()
            .iter()
            .map(|(name, path)| {
                let url = format!("{}{}", ctx.base_url, path.replace("{project_pk}", &pk.to_string()));
                (name.to_string(), Value::String(url))
            })
            .collect();
        Ok(ProjectOut {
            url: format!("{base}/"),
            id: pk,
            title,
            author_username: author.unwrap_or_default(),
            users,
            indices,
            resources,
        })
    }

    fn project_user_ids(&self, pk: i64) -> Result<Vec<i64>> {
        self.db.with(|c| {
            let mut st = c.prepare_cached("SELECT user_id FROM project_users WHERE project_id = ?1 ORDER BY user_id")?;
            let ids = st.query_map([pk], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
            Ok(ids)
        })
    }

    /// Names of the project's open indices, ascending index id.
    pub fn project_indices(&self, pk: i64) -> Result<Vec<String>> {
        self.db.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT i.name FROM project_indices pi JOIN indices i ON i.id = pi.index_id WHERE pi.project_id = ?1 AND i.is_open = 1 ORDER BY i.id",
            )?;
            let names = st.query_map([pk], |r| r.get(0))?.collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(names)
        })
    }

    /// Detach an index from a project (its data stays in the store).
    pub fn remove_project_index(&self, pk: i64, name: &str) -> Result<()> {
        self.db.with(|c| {
            c.execute(
                "DELETE FROM project_indices WHERE project_id = ?1 AND index_id IN (SELECT id FROM indices WHERE name = ?2)",
                params![pk, name],
            )?;
            Ok(())
        })
    }

    /// Register an index name in the store's catalogue (idempotent); returns its id.
    pub fn register_index(&self, name: &str) -> Result<i64> {
        self.db.with(|c| {
            c.execute("INSERT OR IGNORE INTO indices (name) VALUES (?1)", [name])?;
            Ok(c.cached_row("SELECT id FROM indices WHERE name = ?1", [name], |r| r.get(0))?)
        })
    }

    /// Attach an index to a project (registering it first).
    pub fn add_project_index(&self, pk: i64, name: &str) -> Result<()> {
        let id = self.register_index(name)?;
        self.db.with(|c| {
            Ok(c.execute(
                "INSERT OR IGNORE INTO project_indices (project_id, index_id) VALUES (?1, ?2)",
                [pk, id],
            )
            .map(|_| ())?)
        })
    }

    /// Catalogue id of an index that exists in the store (registering it on first sight).
    fn index_id(&self, name: &str) -> Result<Option<i64>> {
        if !self.search.index_exists(name)? {
            return Ok(None);
        }
        self.register_index(name).map(Some)
    }

    fn parse_project(&self, body: &Value, mode: Mode) -> Result<ProjectFields> {
        let mut f = Form::new(body, mode)?;
        let title = f.string("title", Str::REQUIRED.max(1000));
        let users = f.list_of("users", List::REQUIRED, |v| self.user_from_url(v));
        let names = f.strings("indices", List::OPTIONAL, Str::REQUIRED);
        let mut indices = None;
        if let Some(names) = names {
            let mut ids = Vec::new();
            let mut missing = Vec::new();
            for n in &names {
                match self.index_id(n)? {
                    Some(id) => ids.push(id),
                    None => missing.push(n.clone()),
                }
            }
            if missing.is_empty() {
                indices = Some(ids);
            } else {
                f.fail(
                    "indices",
                    format!(
                        "Indices in {} do not match with indices available in Elasticsearch!",
                        crate::engine::pytext::repr_list(&missing)
                    ),
                );
            }
        } else if mode == Mode::Full && f.raw("indices").is_none() {
            indices = Some(Vec::new());
        }
        f.finish().map_err(flatten_user_errors)?;
        Ok(ProjectFields { title, users, indices })
    }

    fn write_project(&self, pk: i64, p: &ProjectFields) -> Result<()> {
        self.db.tx(|tx| {
            if let Some(t) = &p.title {
                tx.execute("UPDATE projects SET title = ?1 WHERE id = ?2", params![t, pk])?;
            }
            if let Some(users) = &p.users {
                tx.execute("DELETE FROM project_users WHERE project_id = ?1", [pk])?;
                for u in users {
                    tx.execute(
                        "INSERT OR IGNORE INTO project_users (project_id, user_id) VALUES (?1, ?2)",
                        [pk, *u],
                    )?;
                }
            }
            if let Some(ids) = &p.indices {
                tx.execute("DELETE FROM project_indices WHERE project_id = ?1", [pk])?;
                for i in ids {
                    tx.execute(
                        "INSERT OR IGNORE INTO project_indices (project_id, index_id) VALUES (?1, ?2)",
                        [pk, *i],
                    )?;
                }
            }
            Ok(())
        })
    }

    /// GET /projects/ (plain array; `title` filter; `ordering`).
    pub fn list_projects(&self, ctx: &Ctx, query: &BTreeMap<String, String>) -> Result<Vec<ProjectOut>> {
        let order = super::resources::order_clause(
            query.get("ordering").map(String::as_str),
            &[
                ("id", "p.id"),
                ("title", "p.title"),
                ("users_count", "users_count"),
                ("indices_count", "indices_count"),
            ],
        );
        let title = query.get("title").cloned().unwrap_or_default();
        let ids: Vec<i64> = self.db.with(|c| {
            let sql = format!(
                "SELECT p.id,
                    (SELECT COUNT(*) FROM project_users x WHERE x.project_id = p.id) AS users_count,
                    (SELECT COUNT(*) FROM project_indices y WHERE y.project_id = p.id) AS indices_count
                 FROM projects p
                 WHERE (?1 OR EXISTS(SELECT 1 FROM project_users m WHERE m.project_id = p.id AND m.user_id = ?2))
                   AND instr(lower(p.title), lower(?3)) > 0
                 ORDER BY {order}"
            );
            let mut st = c.prepare_cached(&sql)?;
            let ids = st
                .query_map(params![ctx.user.is_superuser, ctx.user.id, title], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<i64>>>()?;
            Ok(ids)
        })?;
        ids.into_iter().map(|id| self.render_project(ctx, id)).collect()
    }

    /// POST /projects/ (superusers only).
    pub fn create_project(&self, ctx: &Ctx, body: &Value) -> Result<ProjectOut> {
        if !ctx.user.is_superuser {
            return Err(Error::Forbidden(NO_PERMISSION.into()));
        }
        let p = self.parse_project(body, Mode::Full)?;
        let pk = self.db.with(|c| {
            c.execute(
                "INSERT INTO projects (title, author_id) VALUES (?1, ?2)",
                params![p.title, ctx.user.id],
            )?;
            Ok(c.last_insert_rowid())
        })?;
        self.write_project(pk, &p)?;
        self.render_project(ctx, pk)
    }

    /// GET /projects/{pk}/.
    pub fn get_project(&self, ctx: &Ctx, pk: i64) -> Result<ProjectOut> {
        self.visible_project(ctx, pk)?;
        self.render_project(ctx, pk)
    }

    fn check_project_admin(&self, ctx: &Ctx, pk: i64) -> Result<()> {
        self.visible_project(ctx, pk)?;
        if ctx.user.is_superuser {
            Ok(())
        } else {
            Err(Error::Forbidden(INSUFFICIENT_PROJECT.into()))
        }
    }

    /// PUT (`Mode::Full`) or PATCH (`Mode::Partial`) /projects/{pk}/.
    pub fn update_project(&self, ctx: &Ctx, pk: i64, body: &Value, mode: Mode) -> Result<ProjectOut> {
        self.check_project_admin(ctx, pk)?;
        let p = self.parse_project(body, mode)?;
        self.write_project(pk, &p)?;
        self.render_project(ctx, pk)
    }

    /// DELETE /projects/{pk}/ — removes the project and all its resources (not index data).
    pub fn delete_project(&self, ctx: &Ctx, pk: i64) -> Result<()> {
        self.check_project_admin(ctx, pk)?;
        self.db
            .with(|c| Ok(c.execute("DELETE FROM projects WHERE id = ?1", [pk]).map(|_| ())?))
    }

    /// GET /projects/{pk}/get_fields/ — `[{"index", "fields": [{"path", "type"}]}]` per
    /// project index, `[]` for a project without indices.
    pub fn get_project_fields(&self, ctx: &Ctx, pk: i64) -> Result<Vec<crate::engine::search::IndexFields>> {
        self.check_project_access(ctx, pk)?;
        let indices = self.project_indices(pk)?;
        if indices.is_empty() {
            return Ok(Vec::new());
        }
        Ok(self.search.fields(&indices)?)
    }

    /// GET /projects/{pk}/get_resource_counts/: how many resources of each kind the project
    /// has, a kind counted by the route its resources are served at.
    pub fn get_resource_counts(&self, ctx: &Ctx, pk: i64) -> Result<ResourceCounts> {
        self.check_project_access(ctx, pk)?;
        let counts: Vec<(String, i64)> = self.db.with(|c| {
            let mut st = c.prepare_cached("SELECT kind, COUNT(*) FROM resources WHERE project_id = ?1 GROUP BY kind")?;
            let rows = st.query_map([pk], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })?;
        let n = |route: &str| {
            Kind::ALL
                .iter()
                .filter(|k| k.route() == route)
                .map(|k| counts.iter().find(|(tag, _)| tag == k.tag()).map_or(0, |(_, n)| *n))
                .sum()
        };
        Ok(ResourceCounts {
            num_lexicons: n("lexicons"),
            num_torchtaggers: n("torchtaggers"),
            num_taggers: n("taggers"),
            num_tagger_groups: n("tagger_groups"),
            num_embeddings: n("embeddings"),
            num_clusterings: n("clustering"),
            num_regex_taggers: n("regex_taggers"),
            num_regex_tagger_groups: n("regex_tagger_groups"),
            num_anonymizers: n("anonymizers"),
            num_mlp_workers: n("mlp_index"),
            num_reindexers: n("reindexer"),
            num_dataset_importers: n("dataset_imports"),
        })
    }

    /// GET /projects/{pk}/get_indices/.
    pub fn get_project_indices(&self, ctx: &Ctx, pk: i64) -> Result<IndicesOut> {
        self.check_project_access(ctx, pk)?;
        Ok(IndicesOut {
            indices: self.project_indices(pk)?,
        })
    }
}

/// The answer of get_resource_counts, in the reference's names.
#[derive(Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ResourceCounts {
    pub num_lexicons: i64,
    pub num_torchtaggers: i64,
    pub num_taggers: i64,
    pub num_tagger_groups: i64,
    pub num_embeddings: i64,
    /// Topic analyses (`clustering`).
    pub num_clusterings: i64,
    pub num_regex_taggers: i64,
    pub num_regex_tagger_groups: i64,
    pub num_anonymizers: i64,
    /// Language processing over indices (`mlp_index`).
    pub num_mlp_workers: i64,
    /// `reindexer`.
    pub num_reindexers: i64,
    /// Dataset imports (the reference counts reindexers here by mistake).
    pub num_dataset_importers: i64,
}

/// DRF renders a hyperlinked-list item error as a flat list (`{"users": ["msg"]}`), not
/// keyed by item index.
fn flatten_user_errors(e: Error) -> Error {
    match e {
        Error::Invalid(Value::Object(mut m)) => {
            if let Some(Value::Object(items)) = m.get("users").cloned() {
                let first = items.values().next().cloned().unwrap_or(Value::Array(vec![]));
                m.insert("users".into(), first);
            }
            Error::Invalid(Value::Object(m))
        }
        other => other,
    }
}
