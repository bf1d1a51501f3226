//! Search indices as the API sees them: the index catalogue (`/index/`, `/get_indices`),
//! which indices a project may use, documents (`/projects/{pk}/elastic/documents/`), and the
//! project search actions (`search`, `search_by_query`, `scroll`). The store
//! itself is a `search::SearchBackend`.
use super::db::Cached;
use super::error::{Error, Result};
use super::pytext::repr_list as py_list;
use super::search::{self, Doc, Hit, NameRuleOrder, SearchError};
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use base64::Engine as _;
use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

impl From<SearchError> for Error {
    fn from(e: SearchError) -> Self {
        match e {
            SearchError::IndexNotFound(_) | SearchError::DocumentNotFound { .. } => Error::not_found(),
            SearchError::BadQuery(m) => Error::BadRequest(m),
            SearchError::InvalidIndexName(n) => Error::BadRequest(format!("Invalid index name: {n}")),
            SearchError::UnknownFileType => Error::BadRequest("unknown file type".into()),
            SearchError::Backend(m) => Error::Internal(m),
        }
    }
}

/// How the simple search matches its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TextMatch {
    /// Every word (default).
    Word,
    Phrase,
    Regex,
}

/// Whether every clause of the simple search must match, or any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Combine {
    Must,
    Should,
}

/// An index as the catalogue lists it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct IndexOut {
    pub id: i64,
    pub url: String,
    pub is_open: bool,
    pub name: String,
}

/// An index in the catalogue's list: with its size in the store (bytes) and its number of
/// documents (both 0 while closed, as the reference lists them).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct IndexListed {
    #[serde(flatten)]
    pub index: IndexOut,
    pub size: u64,
    pub doc_count: u64,
}

/// `{"message"}` of an index action.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct MessageOut {
    pub message: String,
}

/// Documents per scroll page by default, and the most allowed.
const SCROLL_SIZE: usize = 100;
const MAX_PAGE: usize = 10_000;
/// Most rows per import batch (one commit each; the import also ends a batch by input size).
const IMPORT_BATCH: usize = 50_000;

/// Validate an index name with the reference's rules; a violation aborts validation.
pub fn check_index_name(name: &str, order: NameRuleOrder) -> Result<()> {
    search::validate_index_name(name, order).map_err(Error::BadRequest)
}

/// Parse `indices: [{"name": ...}]` (the model form). Name-rule violations abort at once.
pub fn parse_index_objects(f: &mut Form, field: &str) -> Result<Option<Vec<String>>> {
    parse_indices(f, field, false)
}

/// As [`parse_index_objects`], also taking plain names (TEXTA's web client sends either).
pub fn parse_index_refs(f: &mut Form, field: &str) -> Result<Option<Vec<String>>> {
    parse_indices(f, field, true)
}

fn parse_indices(f: &mut Form, field: &str, names_too: bool) -> Result<Option<Vec<String>>> {
    let Some(items) = f.list_of(field, List::OPTIONAL, |v| match (v.get("name"), v) {
        (Some(n), _) => super::validate::char_field(n, Str::REQUIRED.max(255)).map(Option::unwrap_or_default),
        (None, Value::String(_)) if names_too => super::validate::char_field(v, Str::REQUIRED.max(255)).map(Option::unwrap_or_default),
        (None, _) => Err("This field is required.".into()),
    }) else {
        return Ok(None);
    };
    for name in &items {
        check_index_name(name, NameRuleOrder::IndicesField)?;
    }
    Ok(Some(items))
}

/// A 400 whose body is a bare list holding `msg`.
pub(crate) fn bare(msg: String) -> Error {
    Error::Invalid(json!([msg]))
}

impl Engine {
    /// The indices a project operation runs on: the given ones (each must belong to the
    /// project), or all project indices when none are given.
    pub fn resolve_indices(&self, pk: i64, given: Option<Vec<String>>) -> Result<Vec<String>> {
        let project = self.project_indices(pk)?;
        match given.filter(|g| !g.is_empty()) {
            None => Ok(project),
            Some(g) => {
                let missing: Vec<String> = g.iter().filter(|n| !project.contains(n)).cloned().collect();
                if missing.is_empty() {
                    Ok(g)
                } else {
                    Err(bare(format!("Inserted indices {} are not available to you.", py_list(&missing))))
                }
            }
        }
    }

    /// A random document of the given (or all project) indices, flattened, with the
    /// requested fields set to their text (or null); 400 when none exists.
    pub fn random_document(&self, pk: i64, given: Option<Vec<String>>) -> Result<Hit> {
        let indices = self.resolve_indices(pk, given)?;
        if indices.is_empty() {
            return Err(bare("No indices are available to you!".into()));
        }
        for name in &indices {
            if !self.search.index_exists(name)? {
                return Err(Error::BadRequestError(format!(
                    "One or more index from {} do not exist",
                    py_list(&indices)
                )));
            }
        }
        self.search
            .random_document(&indices)?
            .ok_or_else(|| Error::BadRequestError("No documents in the given indices.".into()))
    }

    /// Stream every document of `indices` matching `query` in batches.
    pub fn scan_documents(
        &self,
        indices: &[String],
        query: &Value,
        batch: usize,
        sink: &mut dyn FnMut(Vec<Hit>) -> Result<()>,
    ) -> Result<()> {
        let mut failure = None;
        let outcome = self.search.scan(indices, query, batch, &mut |hits| {
            sink(hits).map_err(|e| {
                let msg = e.to_string();
                failure = Some(e);
                SearchError::Backend(msg)
            })
        });
        match (outcome, failure) {
            (_, Some(e)) => Err(e),
            (r, None) => Ok(r?),
        }
    }

    pub fn count_documents(&self, indices: &[String], query: &Value) -> Result<u64> {
        Ok(self.search.count(indices, query)?)
    }

    pub fn update_documents(&self, index: &str, updates: Vec<(String, Map<String, Value>)>) -> Result<()> {
        for r in self.search.bulk_update(index, updates)? {
            r.map_err(Error::Internal)?;
        }
        Ok(())
    }

    /// Write documents into an index (created if missing).
    pub fn index_documents(&self, index: &str, docs: Vec<Doc>) -> Result<search::BulkResult> {
        Ok(self.search.bulk_index(index, docs)?)
    }

    /// Import a dataset file into `index`.
    pub fn import_into(
        &self,
        index: &str,
        path: &std::path::Path,
        kind: search::FileKind,
        separator: u8,
        progress: &mut dyn FnMut(search::ImportProgress),
    ) -> Result<search::ImportStats> {
        Ok(search::import_file(
            self.search.as_ref(),
            index,
            path,
            kind,
            separator,
            IMPORT_BATCH,
            progress,
        )?)
    }

    // ---- catalogue ----

    fn index_out(&self, ctx: &Ctx, id: i64, name: String, is_open: bool) -> IndexOut {
        IndexOut {
            url: format!("{}/index/{id}/", ctx.base_url),
            id,
            is_open,
            name,
        }
    }

    /// The catalogue objects of the named indices (as models render their `indices`).
    pub fn index_objects(&self, ctx: &Ctx, names: &[String]) -> Result<Vec<IndexOut>> {
        names
            .iter()
            .map(|name| {
                let id = self.register_index(name)?;
                let open: bool = self
                    .db
                    .with(|c| Ok(c.cached_row("SELECT is_open FROM indices WHERE id = ?1", [id], |r| r.get(0))?))?;
                Ok(self.index_out(ctx, id, name.clone(), open))
            })
            .collect()
    }

    /// Every field path of the project's indices (the `fields` rule of models).
    pub fn project_field_paths(&self, pk: i64) -> Result<Vec<String>> {
        let indices = self.project_indices(pk)?;
        if indices.is_empty() {
            return Ok(Vec::new());
        }
        let mut paths: Vec<String> = self
            .search
            .fields(&indices)?
            .into_iter()
            .flat_map(|i| i.fields.into_iter().map(|f| f.path))
            .collect();
        paths.sort();
        paths.dedup();
        Ok(paths)
    }

    /// GET /index/ — every index in the store (superusers), registering new ones.
    pub fn list_index_catalogue(&self, ctx: &Ctx) -> Result<Vec<IndexListed>> {
        self.index_catalogue(ctx)?
            .into_iter()
            .map(|index| {
                let (size, doc_count) = match index.is_open {
                    true => (
                        self.search.index_size(&index.name)?,
                        self.search.count(std::slice::from_ref(&index.name), &json!({"match_all": {}}))?,
                    ),
                    false => (0, 0),
                };
                Ok(IndexListed { index, size, doc_count })
            })
            .collect()
    }

    /// The indices of the store in the catalogue (superusers only).
    fn index_catalogue(&self, ctx: &Ctx) -> Result<Vec<IndexOut>> {
        if !ctx.user.is_superuser {
            return Err(Error::no_permission());
        }
        for name in self.search.list_indices()? {
            self.register_index(&name)?;
        }
        let rows: Vec<(i64, String, bool)> = self.db.with(|c| {
            let mut st = c.prepare_cached("SELECT id, name, is_open FROM indices ORDER BY id")?;
            let rows = st
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })?;
        let mut out = Vec::new();
        for (id, name, open) in rows {
            if self.search.index_exists(&name)? {
                out.push(self.index_out(ctx, id, name, open));
            }
        }
        Ok(out)
    }

    /// GET /index/{id}/.
    pub fn get_index(&self, ctx: &Ctx, id: i64) -> Result<IndexOut> {
        self.index_catalogue(ctx)?
            .into_iter()
            .find(|i| i.id == id)
            .ok_or_else(Error::not_found)
    }

    /// DELETE /index/{id}/ — removes the index and its documents from the store.
    pub fn delete_index(&self, ctx: &Ctx, id: i64) -> Result<()> {
        let idx = self.get_index(ctx, id)?;
        self.search.delete_index(&idx.name)?;
        self.db
            .with(|c| Ok(c.execute("DELETE FROM indices WHERE id = ?1", params![id]).map(|_| ())?))
    }

    /// PATCH /index/{id}/ — `{"is_open": bool}`; closed indices leave project listings.
    pub fn update_index(&self, ctx: &Ctx, id: i64, body: &Value) -> Result<IndexOut> {
        self.get_index(ctx, id)?;
        let mut f = Form::new(body, Mode::Partial)?;
        let open = f.boolean("is_open");
        f.finish()?;
        if let Some(open) = open {
            self.db.with(|c| {
                Ok(c.execute("UPDATE indices SET is_open = ?1 WHERE id = ?2", params![open, id])
                    .map(|_| ())?)
            })?;
        }
        self.get_index(ctx, id)
    }

    /// PATCH /index/{id}/open_index/ or close_index/: `{"message"}` naming what was done.
    pub fn set_index_open(&self, ctx: &Ctx, id: i64, open: bool) -> Result<MessageOut> {
        let index = self.update_index(ctx, id, &json!({ "is_open": open }))?;
        let done = if open { "Opened" } else { "Closed" };
        Ok(MessageOut {
            message: format!("{done} the index {}", index.name),
        })
    }

    /// GET /get_indices — index names in the store, for project creation.
    pub fn store_indices(&self, ctx: &Ctx) -> Result<Vec<String>> {
        Ok(self
            .index_catalogue(ctx)?
            .into_iter()
            .filter(|i| i.is_open)
            .map(|i| i.name)
            .collect())
    }

    // ---- documents ----

    /// POST /projects/{pk}/elastic/documents/ — `{"documents": [{"_index", "_id"?, "_source"}]}`.
    /// New indices are created and attached to the project. Answers like an
    /// Elasticsearch bulk call.
    pub fn insert_documents(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<Value> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let docs = f.list_of("documents", List::REQUIRED.non_empty().max(MAX_PAGE), |v| {
            let index = v
                .get("_index")
                .and_then(Value::as_str)
                .ok_or("Each document needs an \"_index\" string.")?;
            let source = v
                .get("_source")
                .filter(|s| s.is_object())
                .ok_or("Each document needs a \"_source\" object.")?;
            let id = match v.get("_id") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Number(n)) => Some(n.to_string()),
                Some(_) => return Err("\"_id\" must be a string or a number.".to_string()),
            };
            Ok((
                index.to_string(),
                Doc {
                    id,
                    source: source.clone(),
                },
            ))
        });
        f.finish()?;
        let docs = docs.unwrap_or_default();
        let mut by_index: Vec<(String, Vec<Doc>)> = Vec::new();
        for (index, doc) in docs {
            check_index_name(&index, NameRuleOrder::IndicesField)?;
            match by_index.iter_mut().find(|(i, _)| *i == index) {
                Some((_, list)) => list.push(doc),
                None => by_index.push((index, vec![doc])),
            }
        }
        let mut items = Vec::new();
        for (index, docs) in by_index {
            let results = self.search.bulk_index(&index, docs)?;
            self.add_project_index(pk, &index)?;
            for r in results {
                items.push(match r {
                    Ok(id) => json!({"index": {"_index": index, "_id": id, "result": "created", "status": 201}}),
                    Err(e) => json!({"index": {"_index": index, "status": 400, "error": e}}),
                });
            }
        }
        let errors = items.iter().any(|i| i["index"]["status"] != 201);
        Ok(json!({"errors": errors, "items": items}))
    }

    fn project_index(&self, pk: i64, index: &str) -> Result<()> {
        if self.project_indices(pk)?.iter().any(|i| i == index) {
            Ok(())
        } else {
            Err(Error::not_found())
        }
    }

    fn document_json(hit: Hit) -> Value {
        json!({"_index": hit.index, "_type": "_doc", "_id": hit.id, "found": true, "_source": hit.source})
    }

    /// GET /projects/{pk}/elastic/documents/{index}/{id}/.
    pub fn get_document(&self, ctx: &Ctx, pk: i64, index: &str, id: &str) -> Result<Value> {
        self.check_project_access(ctx, pk)?;
        self.project_index(pk, index)?;
        self.search
            .get_document(index, id)?
            .map(Self::document_json)
            .ok_or_else(Error::not_found)
    }

    /// PATCH /projects/{pk}/elastic/documents/{index}/{id}/ — merge top-level fields.
    pub fn patch_document(&self, ctx: &Ctx, pk: i64, index: &str, id: &str, body: &Value) -> Result<Value> {
        self.get_document(ctx, pk, index, id)?;
        let Value::Object(partial) = body else {
            return Err(Form::new(body, Mode::Partial).err().unwrap_or_else(Error::not_found));
        };
        let partial: Map<String, Value> = partial
            .iter()
            .filter(|(k, _)| !k.starts_with('\u{0}'))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self.search.update_document(index, id, partial)?;
        self.get_document(ctx, pk, index, id)
    }

    /// DELETE /projects/{pk}/elastic/documents/{index}/{id}/.
    pub fn delete_document(&self, ctx: &Ctx, pk: i64, index: &str, id: &str) -> Result<()> {
        self.check_project_access(ctx, pk)?;
        self.project_index(pk, index)?;
        if self.search.delete_document(index, id)? {
            Ok(())
        } else {
            Err(Error::not_found())
        }
    }

    // ---- search actions ----

    fn search_indices(&self, pk: i64, f: &mut Form) -> Result<Option<Vec<String>>> {
        let names = f.strings("indices", List::OPTIONAL, Str::REQUIRED);
        if f.has_errors() {
            return Ok(None);
        }
        let indices = self.resolve_indices(pk, names)?;
        if indices.is_empty() {
            return Err(Error::BadRequest("No indices supplied and project has no indices".into()));
        }
        Ok(Some(indices))
    }

    /// POST /projects/{pk}/search_by_query/ — `{query, indices}` →
    /// `{"count", "aggs", "results": [{"highlight", "doc"}]}`.
    pub fn search_by_query(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<Value> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let query = f
            .object("query", false)
            .cloned()
            .map(Value::Object)
            .unwrap_or_else(|| json!({"query": {"match_all": {}}}));
        let indices = self.search_indices(pk, &mut f)?;
        f.finish()?;
        let mut q = query;
        // a bare query clause (no search-body key at its top) is wrapped in one
        const BODY_KEYS: [&str; 9] = [
            "query",
            "size",
            "from",
            "sort",
            "_source",
            "track_scores",
            "aggs",
            "aggregations",
            "highlight",
        ];
        if !q.as_object().is_some_and(|o| BODY_KEYS.iter().any(|k| o.contains_key(*k))) {
            q = json!({"query": q});
        }
        let resp = self.search.search(&indices.unwrap_or_default(), &q)?;
        let results: Vec<Value> = resp["hits"]["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|h| json!({"highlight": h.get("highlight").cloned().unwrap_or_else(|| json!({})), "doc": h["_source"]}))
            .collect();
        let aggs = resp.get("aggregations").cloned().unwrap_or_else(|| json!({}));
        Ok(json!({"count": resp["hits"]["total"]["value"], "aggs": aggs, "results": results}))
    }

    /// POST /projects/{pk}/search/ — the simplified search: `match_text` as words, a phrase
    /// or a regex over `match_fields` of `match_indices`; returns the matching sources.
    pub fn simple_search(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<Vec<Value>> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let text = f.string("match_text", Str::REQUIRED);
        let kind = f.choice("match_type", false).unwrap_or(TextMatch::Word);
        let names = f.strings("match_indices", List::OPTIONAL, Str::REQUIRED);
        let fields = f.strings("match_fields", List::OPTIONAL, Str::REQUIRED).unwrap_or_default();
        let operator = f.choice("operator", false).unwrap_or(Combine::Must);
        let size = f.integer("size", false, Some(1), Some(MAX_PAGE as i64)).unwrap_or(10);
        f.finish()?;
        let indices = self.resolve_indices(pk, names)?;
        if indices.is_empty() {
            return Err(Error::BadRequest("No indices supplied and project has no indices".into()));
        }
        let text = text.unwrap_or_default();
        let fields = if fields.is_empty() { vec!["*".to_string()] } else { fields };
        let clauses: Vec<Value> = match kind {
            TextMatch::Regex => fields.iter().map(|fl| json!({"regexp": {fl: text}})).collect(),
            TextMatch::Phrase => vec![json!({"multi_match": {"query": text, "fields": fields, "type": "phrase"}})],
            TextMatch::Word => text
                .split_whitespace()
                .map(|w| json!({"multi_match": {"query": w, "fields": fields}}))
                .collect(),
        };
        let query = json!({"query": {"bool": {ta_text::choice::name(&operator): clauses}}, "size": size});
        let resp = self.search.search(&indices, &query)?;
        Ok(resp["hits"]["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|h| h["_source"].clone())
            .collect())
    }

    /// POST /projects/{pk}/scroll/ — pages through matching documents. The `scroll_id`
    /// returned carries the position; send it back for the next page.
    pub fn scroll(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<Value> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let names = f.strings("indices", List::OPTIONAL, Str::REQUIRED);
        let scroll_id = f.nullable_string("scroll_id", Str::OPTIONAL).flatten().filter(|s| !s.is_empty());
        let size = f
            .integer("documents_size", false, Some(1), Some(MAX_PAGE as i64))
            .unwrap_or(SCROLL_SIZE as i64) as usize;
        let query = f.object("query", false).cloned().map(Value::Object);
        let fields = f.strings("fields", List::OPTIONAL, Str::REQUIRED);
        let with_meta = f.boolean("with_meta").unwrap_or(false);
        f.finish()?;
        let (indices, query, from) = match scroll_id {
            Some(id) => {
                let (indices, query, from) = decode_scroll(&id)?;
                (self.resolve_indices(pk, Some(indices))?, query, from)
            }
            None => {
                let indices = self.resolve_indices(pk, names)?;
                (
                    indices,
                    query
                        .map(|q| search::query_clause(&q).clone())
                        .unwrap_or_else(|| json!({"match_all": {}})),
                    0,
                )
            }
        };
        let mut body = json!({"query": query, "from": from, "size": size});
        if let Some(fl) = &fields {
            body["_source"] = json!(fl);
        }
        let resp = self.search.search(&indices, &body)?;
        let hits = resp["hits"]["hits"].as_array().cloned().unwrap_or_default();
        let total = resp["hits"]["total"]["value"].as_u64().unwrap_or(0);
        let next = from + hits.len();
        let documents: Vec<Value> = hits.into_iter().map(|h| if with_meta { h } else { h["_source"].clone() }).collect();
        Ok(json!({
            "scroll_id": if (next as u64) < total { Value::String(encode_scroll(&indices, &query, next)) } else { Value::Null },
            "total_documents": total,
            "returned_count": documents.len(),
            "documents": documents,
        }))
    }
}

fn encode_scroll(indices: &[String], query: &Value, from: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json!({"i": indices, "q": query, "f": from}).to_string())
}

fn decode_scroll(id: &str) -> Result<(Vec<String>, Value, usize)> {
    let bad = || Error::field("scroll_id", "Invalid scroll id.");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(id).map_err(|_| bad())?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|_| bad())?;
    let indices: Vec<String> = serde_json::from_value(v["i"].clone()).map_err(|_| bad())?;
    let from = v["f"].as_u64().ok_or_else(bad)? as usize;
    Ok((indices, v["q"].clone(), from))
}
