//! The reindexer (`collection.md` §3): a project resource whose run copies the documents of
//! indices that match a query (all of them, or a uniform random sample) into a new index,
//! keeping the chosen fields (a path keeps everything below it too) and renaming fields as
//! `field_type` asks, under fresh ids. The copying itself (`Copier`, `copy_documents`) is
//! shared with the index splitter: documents go to a staging index per target and reach
//! the targets only once the run has read everything, so a failed or killed run leaves
//! them empty.
use super::error::{Error, Result};
use super::index_runs::{Selection, MIN_BATCH};
use super::indices::{check_index_name, parse_index_refs};
use super::kinds::ResourceKind;
use super::pytext::{json_dumps, repr_list};
use super::resources::{resource_url, Kind, Resource};
use super::search::source::Source;
use super::search::{Hit, NameRuleOrder};
use super::tasks::{Observer, TaskHandle, TaskKind, TaskOut};
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::HashSet;
use std::sync::Arc;

/// The types a `field_type` item may name.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum FieldKind {
    Text,
    Keyword,
    Long,
    Float,
    Boolean,
    Date,
    Fact,
}

/// One `field_type` item: the field at `path` becomes `new_path_name` (when given), of type
/// `field_type`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct FieldType {
    pub path: String,
    pub field_type: FieldKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_path_name: Option<String>,
}

/// The reindexer on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ReindexerOut {
    pub id: i64,
    pub url: String,
    pub author_username: String,
    pub description: String,
    pub indices: Vec<String>,
    pub fields: Vec<String>,
    /// The selecting query, JSON-encoded: `"{\"query\": {...}}"`.
    pub query: String,
    pub new_index: String,
    pub random_size: i64,
    pub field_type: Vec<FieldType>,
    pub task: Option<TaskOut>,
}

/// The body that creates a reindexer (it cannot be changed afterwards).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct ReindexerIn {
    pub description: String,
    /// `["x"]` or `[{"name": "x"}]`: open indices of the project; all of them when empty.
    pub indices: Vec<Value>,
    /// Dotted paths to copy (each with everything below it); every field when empty.
    pub fields: Option<Vec<String>>,
    /// A search query (object or JSON string) selecting the documents; all by default.
    pub query: Option<Value>,
    /// The index the documents are copied into; must not exist.
    pub new_index: String,
    /// A uniform random sample of this many of the selected documents (0–10000; 0: all).
    pub random_size: Option<i64>,
    /// Fields renamed (and typed) in the new index.
    pub field_type: Option<Vec<FieldType>>,
}

/// What a reindexer keeps.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
struct Stored {
    indices: Vec<String>,
    fields: Vec<String>,
    /// The query clause.
    query: Value,
    new_index: String,
    random_size: i64,
    field_type: Vec<FieldType>,
}

/// Whether dotted `path` is `field` or lies below it.
fn under(path: &str, field: &str) -> bool {
    path.strip_prefix(field)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// The leaves of `value` by dotted path, in document order (arrays are leaves).
fn flatten(prefix: &str, value: &Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&path, v, out);
            }
        }
        leaf => out.push((prefix.to_string(), leaf.clone())),
    }
}

/// Sets `value` at dotted `path` of `doc`, making the objects on the way.
fn insert(doc: &mut Map<String, Value>, path: &str, value: Value) {
    match path.split_once('.') {
        None => {
            doc.insert(path.to_string(), value);
        }
        Some((head, rest)) => {
            let inner = doc.entry(head.to_string()).or_insert_with(|| json!({}));
            if !inner.is_object() {
                *inner = json!({});
            }
            if let Value::Object(m) = inner {
                insert(m, rest, value);
            }
        }
    }
}

/// How a document is copied (`collection.md` §3 rules 3–4): the selected paths (all when
/// none), renamed, unflattened.
#[derive(Clone, Debug, Default)]
pub struct Copier {
    fields: Vec<String>,
    /// (path, new path) of the renamed fields.
    renames: Vec<(String, String)>,
}

impl Copier {
    /// The copier of `fields` (empty: all) with the renames of `types` whose path is copied.
    pub fn new(fields: &[String], types: &[FieldType]) -> Copier {
        let copied = |path: &str| fields.is_empty() || fields.iter().any(|f| under(path, f));
        Copier {
            fields: fields.to_vec(),
            renames: types
                .iter()
                .filter(|t| copied(&t.path))
                .filter_map(|t| Some((t.path.clone(), t.new_path_name.clone()?)))
                .collect(),
        }
    }

    fn renamed(&self, path: String) -> String {
        match self.renames.iter().find(|(from, _)| under(&path, from)) {
            Some((from, to)) => format!("{to}{}", &path[from.len()..]),
            None => path,
        }
    }

    /// The copy of a document; None when no field is left.
    pub fn copy(&self, source: &Value) -> Option<Map<String, Value>> {
        let mut leaves = Vec::new();
        flatten("", source, &mut leaves);
        let mut out = Map::new();
        for (path, value) in leaves {
            if self.fields.is_empty() || self.fields.iter().any(|f| under(&path, f)) {
                insert(&mut out, &self.renamed(path), value);
            }
        }
        (!out.is_empty()).then_some(out)
    }
}

/// The types the new index declares (`collection.md` §3 rule 4): of each `field_type` item
/// whose path is copied (all are when `fields` is empty), its field's path in the copies
/// and its type.
fn declared_types(fields: &[String], types: &[FieldType]) -> Vec<(String, String)> {
    let copied = |path: &str| {
        fields.is_empty()
            || fields
                .iter()
                .any(|f| path == f || path.strip_prefix(f.as_str()).is_some_and(|rest| rest.starts_with('.')))
    };
    types
        .iter()
        .filter(|t| copied(&t.path))
        .map(|t| {
            let kind = serde_json::to_value(t.field_type).ok().and_then(|v| v.as_str().map(String::from));
            (t.new_path_name.clone().unwrap_or_else(|| t.path.clone()), kind.unwrap_or_default())
        })
        .collect()
}

/// Parses `field_type`: a list of `{path, field_type, new_path_name?}`.
fn parse_field_types(f: &mut Form) -> Vec<FieldType> {
    let Some(raw) = f.raw("field_type") else {
        return Vec::new();
    };
    let Some(items) = raw.as_array() else {
        f.fail(
            "field_type",
            format!("Expected a list of items but got type \"{}\".", super::validate::py_type(raw)),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        match item.get("field_type").and_then(Value::as_str) {
            Some(kind) if serde_json::from_value::<FieldKind>(json!(kind)).is_err() => {
                f.fail("field_type", format!("\"{kind}\" is not a valid field type."));
            }
            _ => match serde_json::from_value::<FieldType>(item.clone()) {
                Ok(t) => out.push(t),
                Err(_) => f.fail(
                    "field_type",
                    "Each item needs \"path\" and \"field_type\" strings (\"new_path_name\" optional).",
                ),
            },
        }
    }
    out
}

/// A uniform random choice of `min(amount, n)` of the numbers below `n`.
pub fn sample(n: u64, amount: u64) -> HashSet<u64> {
    rand::seq::index::sample(&mut rand::rng(), n as usize, amount.min(n) as usize)
        .iter()
        .map(|i| i as u64)
        .collect()
}

/// The staging index of target `i` of the run of resource `id` of `kind`.
fn staging_name(kind: Kind, id: i64, i: usize) -> String {
    format!("ta-staging-{}-{id}-{i}", kind.tag())
}

/// Where each copied document goes: the index of its target, or None (not copied).
pub type Route<'a> = dyn Fn(u64, &Hit) -> Option<usize> + Sync + 'a;

impl Engine {
    /// Copies the documents of `selection` into `targets` for the run of resource `owner`,
    /// `batch` documents at a time: `route` gets each document's ordinal in the scan and
    /// says which target it goes to; `total` is the number it sends somewhere (progress
    /// counts them). The targets show the copies only when the run ends: on the embedded
    /// store they are written directly and committed once (discarded if the run fails);
    /// elsewhere each target's copies go to a staging index first, each target gets its
    /// staging index's documents once the scan is over, and the staging indices are
    /// removed, also when the run fails.
    pub fn copy_documents(
        &self,
        pk: i64,
        (selection, total, batch): (&Selection, u64, usize),
        (targets, (kind, id)): (&[String], (Kind, i64)),
        copier: &Copier,
        route: &Route,
        h: &TaskHandle,
    ) -> Result<()> {
        h.set_total(total as i64)?;
        let staging: Vec<String> = (0..targets.len()).map(|i| staging_name(kind, id, i)).collect();
        let staging = staging.as_slice();
        let outcome = self.stage_and_publish(pk, (selection, total, batch), (targets, staging), copier, route, h);
        let cleared = staging.iter().try_for_each(|name| self.drop_index(name));
        outcome.and(cleared)
    }

    fn stage_and_publish(
        &self,
        pk: i64,
        (selection, total, batch): (&Selection, u64, usize),
        (targets, staging): (&[String], &[String]),
        copier: &Copier,
        route: &Route,
        h: &TaskHandle,
    ) -> Result<()> {
        if selection.indices.is_empty() {
            return Err(Error::BadRequest("no indices: the project has no open indices".into()));
        }
        // A store whose loads stay unseen until committed takes the copies directly: one
        // commit at the end publishes them, a failure discards them, a crash loses them.
        let direct = self.search.loads_wait_for_commit();
        let first = if direct { targets } else { staging };
        if !direct {
            for name in staging {
                self.drop_index(name)?;
                self.search.create_index(name)?;
            }
        }
        let percent = |done: u64| if total == 0 { 100.0 } else { done as f64 * 100.0 / total as f64 };
        h.progress(0, percent(0))?;
        let mut loaders = (first.iter())
            .map(|index| self.search.bulk_loader(index))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let (mut ordinal, mut done) = (0u64, 0u64);
        let copied = self.scan_documents(&selection.indices, &selection.query, batch, &mut |hits| {
            let open = self.project_indices(pk)?;
            let mut batches: Vec<Vec<Source>> = first.iter().map(|_| Vec::new()).collect();
            for hit in &hits {
                if !open.contains(&hit.index) {
                    return Err(Error::BadRequest(format!("index {} is not available", hit.index)));
                }
                if let Some(target) = route(ordinal, hit) {
                    done += 1;
                    if let Some(doc) = copier.copy(&hit.source) {
                        batches[target].push(Source::from_map(&doc));
                    }
                }
                ordinal += 1;
            }
            for (loader, docs) in loaders.iter_mut().zip(batches) {
                loaded(loader.add(docs)?)?;
            }
            h.progress(done as i64, percent(done))
        });
        let open = self.project_indices(pk)?;
        let gone = targets.iter().find(|t| !open.contains(*t));
        let copied = copied.and_then(|()| match gone {
            Some(target) => Err(Error::BadRequest(format!("index {target} is not available"))),
            None => Ok(()),
        });
        if let Err(e) = copied {
            for loader in &mut loaders {
                loader.discard()?;
            }
            return Err(e);
        }
        for loader in &mut loaders {
            loader.commit()?;
        }
        drop(loaders);
        if direct {
            return Ok(());
        }
        for (target, stage) in targets.iter().zip(staging) {
            let mut loader = self.search.bulk_loader(target)?;
            self.scan_documents(std::slice::from_ref(stage), &json!({"match_all": {}}), batch, &mut |hits| {
                let docs = hits.iter().filter_map(|hit| hit.source.as_object().map(Source::from_map)).collect();
                loaded(loader.add(docs)?)
            })?;
            loader.commit()?;
        }
        Ok(())
    }

    /// Removes the staging indices that copying runs killed with their process left
    /// behind (at open, once their tasks are failed).
    pub(super) fn drop_interrupted_staging(&self, interrupted: &[TaskKind]) -> Result<()> {
        for task in interrupted {
            let (kind, id, targets) = match task {
                TaskKind::Reindex { reindexer } => (Kind::Reindexer, *reindexer, 1),
                TaskKind::SplitIndex { splitter } => (Kind::IndexSplitter, *splitter, 2),
                _ => continue,
            };
            for i in 0..targets {
                self.drop_index(&staging_name(kind, id, i))?;
            }
        }
        Ok(())
    }

    /// Deletes index `name` from the store when it is there.
    fn drop_index(&self, name: &str) -> Result<()> {
        if self.search.index_exists(name)? {
            self.search.delete_index(name)?;
        }
        Ok(())
    }

    /// `indices` of a copying run (`required`: the field must be there): open indices of
    /// the project, all of them when empty.
    pub(crate) fn source_indices(&self, f: &mut Form, pk: i64, required: bool) -> Result<Vec<String>> {
        if required && f.raw("indices").is_none() {
            f.fail("indices", super::validate::REQUIRED);
        }
        let indices = parse_index_refs(f, "indices")?.unwrap_or_default();
        let project = self.project_indices(pk)?;
        if let Some(missing) = indices.iter().find(|i| !project.contains(i)) {
            f.fail(
                "indices",
                format!(
                    "Index \"{missing}\" is not contained in your project indices \"{}\"",
                    repr_list(&project)
                ),
            );
        }
        Ok(indices)
    }

    /// `fields` of a copying run: project field paths or objects above them; the message
    /// says what the fields are for (`re-index`, `add to new indices`).
    pub(crate) fn copied_fields(&self, f: &mut Form, pk: i64, purpose: &str) -> Result<Vec<String>> {
        let fields = f.strings("fields", List::OPTIONAL, Str::REQUIRED).unwrap_or_default();
        if !fields.is_empty() {
            let known = self.project_field_paths(pk)?;
            // A path names a field or the object above fields.
            if fields.iter().any(|x| !known.iter().any(|k| under(k, x))) {
                f.fail(
                    "fields",
                    format!(
                        "The fields you are attempting to {purpose} are not in current project fields: {}",
                        repr_list(&known)
                    ),
                );
            }
        }
        Ok(fields)
    }

    /// The name of an index a run creates (field `name`): the index-name rules (a
    /// violation aborts), and not an existing index (`exists` gives the message).
    pub(crate) fn new_index(&self, f: &mut Form, name: &str, exists: impl Fn(&str) -> String) -> Result<Option<String>> {
        let index = f.string(name, Str::REQUIRED.max(255));
        if let Some(index) = &index {
            check_index_name(index, NameRuleOrder::DatasetImport)?;
            if self.search.index_exists(index)? {
                f.fail(name, exists(index));
            }
        }
        Ok(index)
    }

    /// Creates the indices a run copies into, in project `pk`.
    pub(crate) fn create_targets(&self, pk: i64, targets: &[&str]) -> Result<()> {
        for index in targets {
            self.search.create_index(index)?;
            self.add_project_index(pk, index)?;
        }
        Ok(())
    }

    /// Refuses to run again into targets that already hold documents (a retry after a
    /// completed run).
    pub(crate) fn ensure_empty(&self, targets: &[String]) -> Result<()> {
        for index in targets {
            if self.count_documents(std::slice::from_ref(index), &json!({"match_all": {}}))? > 0 {
                return Err(Error::BadRequest(format!(
                    "{index} already holds the copied documents; run again into new indices."
                )));
            }
        }
        Ok(())
    }

    fn render_reindexer(&self, ctx: &Ctx, r: &Resource) -> Result<ReindexerOut> {
        let s: Stored = serde_json::from_value(r.config.clone()).unwrap_or_default();
        Ok(ReindexerOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::Reindexer, r.id),
            author_username: r.author_username.clone(),
            description: r.description.clone(),
            indices: s.indices,
            fields: s.fields,
            query: json_dumps(&json!({ "query": s.query })),
            new_index: s.new_index,
            random_size: s.random_size,
            field_type: s.field_type,
            task: self.linked_task(r)?,
        })
    }

    /// Starts the run of reindexer `id`.
    fn start_reindexer(self: &Arc<Self>, pk: i64, id: i64, observer: Option<Observer>) -> Result<i64> {
        let r = self.resource(Kind::Reindexer, pk, id)?;
        let s: Stored = serde_json::from_value(r.config).map_err(Error::internal)?;
        let engine = self.clone();
        let job = Box::new(move |h: &TaskHandle| {
            h.step("scrolling data")?;
            let selection = Selection {
                indices: s.indices.clone(),
                query: s.query.clone(),
            };
            let matches = engine.count_documents(&selection.indices, &selection.query)?;
            let sample = (s.random_size > 0).then(|| sample(matches, s.random_size as u64));
            let total = sample.as_ref().map_or(matches, |chosen| chosen.len() as u64);
            let route = |ordinal: u64, _: &Hit| sample.as_ref().is_none_or(|chosen| chosen.contains(&ordinal)).then_some(0);
            engine.copy_documents(
                pk,
                (&selection, total, MIN_BATCH),
                (std::slice::from_ref(&s.new_index), (Kind::Reindexer, id)),
                &Copier::new(&s.fields, &s.field_type),
                &route,
                h,
            )
        });
        let kind = TaskKind::Reindex { reindexer: id };
        let (task, ()) = self.start_linked_task((Kind::Reindexer, id), pk, &kind, job, observer, || Ok(()))?;
        Ok(task)
    }

    /// Creates a reindexer: its new index empty and in the project at once, and its run
    /// started (in the foreground with an observer: the local CLI).
    pub fn create_reindexer(self: &Arc<Self>, ctx: &Ctx, pk: i64, body: &Value, observer: Option<Observer>) -> Result<ReindexerOut> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let description = f.string("description", Str::REQUIRED.max(1000));
        let indices = self.source_indices(&mut f, pk, true)?;
        let fields = self.copied_fields(&mut f, pk, "re-index")?;
        let query = super::taggers::parse_query(&mut f);
        let new_index = self.new_index(&mut f, "new_index", |_| {
            "new_index already exists, choose a different name for your reindexed index".into()
        })?;
        let random_size = f.integer("random_size", false, Some(0), Some(10_000));
        let field_type = parse_field_types(&mut f);
        f.finish()?;
        let selection = self.selection(pk, Some(indices).filter(|i| !i.is_empty()), query)?;
        let stored = Stored {
            indices: selection.indices,
            fields,
            query: selection.query,
            new_index: new_index.unwrap_or_default(),
            random_size: random_size.unwrap_or(0),
            field_type,
        };
        self.create_targets(pk, &[&stored.new_index])?;
        self.search
            .declare_field_types(&stored.new_index, &declared_types(&stored.fields, &stored.field_type))?;
        let config = serde_json::to_value(&stored).map_err(Error::internal)?;
        let id = self.insert_resource(Kind::Reindexer, ctx, pk, &description.unwrap_or_default(), &config)?;
        self.start_reindexer(pk, id, observer)?;
        self.get_of::<Reindexers>(ctx, pk, id)
    }

    /// The run of a retried task: a failed run left the new index empty; one that copied
    /// documents is not repeated.
    pub(super) fn rerun_reindexer(self: &Arc<Self>, pk: i64, id: i64) -> Result<i64> {
        let r = self.idle_resource(Kind::Reindexer, pk, id)?;
        let s: Stored = serde_json::from_value(r.config).map_err(Error::internal)?;
        self.ensure_empty(std::slice::from_ref(&s.new_index))?;
        self.start_reindexer(pk, id, None)
    }
}

/// Bulk outcomes as a result: the first refused document fails the run.
fn loaded(results: super::search::BulkResult) -> Result<()> {
    results.into_iter().try_for_each(|r| r.map(drop).map_err(Error::Internal))
}

/// The reindexer kind (`/projects/{pk}/reindexer/`).
pub struct Reindexers;

impl ResourceKind for Reindexers {
    const KIND: Kind = Kind::Reindexer;
    const NOUN: &'static str = "reindexer";
    type Out = ReindexerOut;
    type In = ReindexerIn;
    const ORDER_KEYS: &'static [&'static str] = &["fields", "new_index", "indices", "random_size"];

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<ReindexerOut> {
        e.render_reindexer(ctx, r)
    }

    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<ReindexerOut> {
        e.create_reindexer(ctx, pk, body, None)
    }

    /// Only `description` changes (the catalogue serves no PUT or PATCH: 405, as the
    /// reference).
    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        super::mlp_index::update_description(e, Kind::Reindexer, r, body, mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rename(path: &str, to: &str) -> FieldType {
        FieldType {
            path: path.into(),
            field_type: FieldKind::Text,
            new_path_name: Some(to.into()),
        }
    }

    #[test]
    fn a_path_selects_everything_below_it_and_renames_apply_to_copied_fields() {
        let doc = json!({"comment": {"text": "x", "n": 2}, "title": "t", "texta_facts": [{"fact": "A"}], "commentary": 1});
        let all = Copier::new(&[], &[]);
        assert_eq!(Value::Object(all.copy(&doc).unwrap()), doc);
        let some = Copier::new(
            &["comment".into(), "texta_facts".into()],
            &[rename("comment.text", "body"), rename("title", "heading")],
        );
        assert_eq!(
            Value::Object(some.copy(&doc).unwrap()),
            json!({"body": "x", "comment": {"n": 2}, "texta_facts": [{"fact": "A"}]})
        );
        let nested = Copier::new(&["comment".into()], &[rename("comment", "notes.comment")]);
        assert_eq!(
            Value::Object(nested.copy(&doc).unwrap()),
            json!({"notes": {"comment": {"text": "x", "n": 2}}})
        );
        assert_eq!(Copier::new(&["missing".into()], &[]).copy(&doc), None);
    }
}
