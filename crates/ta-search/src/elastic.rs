//! Distributed index store: `SearchBackend` over the REST API of an Elasticsearch 7/8 or
//! OpenSearch cluster (blocking HTTP, one request per operation).
//!
//! Indices are created with `texta_facts` mapped `nested` (TEXTA's fact mapping), so fact
//! queries and the nested fact aggregation behave as in TEXTA. Writes use `_bulk` with
//! `refresh=wait_for`: documents are durable and searchable once a call returns; a bulk load
//! (import) sends `_bulk` without waiting and refreshes the index at each commit. Scans use
//! the scroll API sorted on `_doc`. Credentials in the URL (`http://user:pass@host:9200`) are
//! sent as basic auth and never shown by `info()`. Error bodies map to `SearchError`:
//! `index_not_found_exception` → `IndexNotFound`, other 400s → `BadQuery` with the root
//! cause's reason.

use std::time::Duration;

use reqwest::blocking::{Client, RequestBuilder};
use reqwest::{Method, StatusCode, Url};
use serde_json::{json, Map, Value};

use super::backend::{
    generate_id, query_clause, BackendInfo, BulkLoader, BulkResult, Doc, FactCounts, FactValueCount, FieldInfo, Hit, IndexFields,
    ReadUpdate, Result, SearchBackend, SearchError,
};
use super::mapping::FACTS_FIELD;
use super::source::Source;

/// How long a scroll context lives between two batches.
const SCROLL_KEEP_ALIVE: &str = "2m";
/// Largest page Elasticsearch serves (`index.max_result_window`).
const MAX_PAGE: usize = 10_000;
/// Most fact names a fact aggregation returns.
const MAX_FACT_NAMES: usize = 10_000;

/// A request body: JSON, or newline-delimited JSON for `_bulk`.
enum Body {
    None,
    Json(Value),
    NdJson(String),
}

/// The Elasticsearch/OpenSearch backend; cheap to share behind an `Arc`.
pub struct ElasticBackend {
    /// Cluster root without credentials.
    base: Url,
    auth: Option<(String, Option<String>)>,
    http: Client,
}

fn backend_err(e: impl std::fmt::Display) -> SearchError {
    SearchError::Backend(e.to_string())
}

impl ElasticBackend {
    /// A backend for the cluster at `url` (`http(s)://[user:pass@]host:port[/prefix]`).
    /// Nothing is sent until the first operation.
    pub fn new(url: &str) -> Result<Self> {
        let mut base = Url::parse(url).map_err(|e| SearchError::Backend(format!("invalid search URL {url}: {e}")))?;
        if !matches!(base.scheme(), "http" | "https") || base.cannot_be_a_base() {
            return Err(SearchError::Backend(format!(
                "invalid search URL {url}: expected http(s)://host:port"
            )));
        }
        let auth = (!base.username().is_empty()).then(|| (base.username().to_string(), base.password().map(str::to_string)));
        let _ = base.set_username("");
        let _ = base.set_password(None);
        let http = Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(300))
            .build()
            .map_err(backend_err)?;
        Ok(Self { base, auth, http })
    }

    /// `base/seg1/seg2...?query`, each segment percent-encoded.
    fn url(&self, segments: &[&str], query: &[(&str, &str)]) -> Url {
        let mut url = self.base.clone();
        url.path_segments_mut()
            .expect("base URL checked in new()")
            .pop_if_empty()
            .extend(segments);
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        url
    }

    /// Sends a request; returns the status and the JSON body (Null when empty).
    fn send(&self, method: Method, url: Url, body: Body) -> Result<(StatusCode, Value)> {
        let mut request: RequestBuilder = self.http.request(method, url.clone());
        if let Some((user, password)) = &self.auth {
            request = request.basic_auth(user, password.as_deref());
        }
        request = match body {
            Body::None => request,
            Body::Json(value) => request.json(&value),
            Body::NdJson(text) => request.header("Content-Type", "application/x-ndjson").body(text),
        };
        let response = request
            .send()
            .map_err(|e| SearchError::Backend(format!("cannot reach {}: {e}", self.base)))?;
        let status = response.status();
        let bytes = response.bytes().map_err(backend_err)?;
        let value = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).map_err(|e| SearchError::Backend(format!("{url}: answer is not JSON ({e}), HTTP {status}")))?
        };
        Ok((status, value))
    }

    /// Sends a request and maps an error status to a `SearchError`.
    fn call(&self, method: Method, url: Url, body: Body) -> Result<Value> {
        let (status, value) = self.send(method, url, body)?;
        if status.is_success() {
            Ok(value)
        } else {
            Err(map_error(status, &value))
        }
    }

    /// `POST /{indices}/{endpoint}` with a JSON body.
    fn post(&self, indices: &[String], endpoint: &str, query: &[(&str, &str)], body: Value) -> Result<Value> {
        let target = indices.join(",");
        self.call(Method::POST, self.url(&[&target, endpoint], query), Body::Json(body))
    }

    /// `POST /{index}/_bulk` (with `refresh=wait_for` when `wait` is set) of `(id, JSON body
    /// line)` pairs under `action`; returns each item's id or error, in order.
    fn bulk(&self, index: &str, action: &str, lines: Vec<(String, String)>, wait: bool) -> Result<BulkResult> {
        if lines.is_empty() {
            return Ok(Vec::new());
        }
        let mut ndjson = String::new();
        for (id, source) in &lines {
            ndjson.push_str(&json!({ action: {"_id": id} }).to_string());
            ndjson.push('\n');
            ndjson.push_str(source);
            ndjson.push('\n');
        }
        let query: &[(&str, &str)] = if wait { &[("refresh", "wait_for")] } else { &[] };
        let url = self.url(&[index, "_bulk"], query);
        let response = self.call(Method::POST, url, Body::NdJson(ndjson))?;
        let items = response["items"].as_array().cloned().unwrap_or_default();
        if items.len() != lines.len() {
            return Err(SearchError::Backend(format!(
                "_bulk answered {} items for {} documents",
                items.len(),
                lines.len()
            )));
        }
        Ok(items
            .iter()
            .zip(&lines)
            .map(|(item, (id, _))| bulk_item(&item[action], id))
            .collect())
    }

    /// Indexes documents into an existing index (ids generated when absent), searchable once
    /// this returns.
    fn index_docs(&self, index: &str, docs: Vec<Doc>) -> Result<BulkResult> {
        let mut results = Vec::with_capacity(docs.len());
        let mut lines = Vec::with_capacity(docs.len());
        let mut slots = Vec::with_capacity(docs.len());
        for doc in docs {
            let id = doc.id.unwrap_or_else(generate_id);
            if doc.source.is_object() {
                slots.push(results.len());
                results.push(Ok(String::new()));
                lines.push((id, doc.source.to_string()));
            } else {
                results.push(Err(format!("document [{id}] is not a JSON object: {}", doc.source)));
            }
        }
        for (slot, outcome) in slots.into_iter().zip(self.bulk(index, "index", lines, true)?) {
            results[slot] = outcome;
        }
        Ok(results)
    }

    /// `POST /{index}/_refresh`: everything indexed so far becomes searchable.
    fn refresh(&self, index: &str) -> Result<()> {
        self.call(Method::POST, self.url(&[index, "_refresh"], &[]), Body::None).map(|_| ())
    }

    fn check_name(name: &str) -> Result<()> {
        let unusable = name.is_empty() || matches!(name, "." | "..") || name.contains([',', '*', '#', '\0']);
        if unusable {
            return Err(SearchError::InvalidIndexName(name.to_string()));
        }
        Ok(())
    }
}

/// One `_bulk` item: the document id, or `"{id}: {type}: {reason}"`.
fn bulk_item(item: &Value, id: &str) -> std::result::Result<String, String> {
    match item.get("error") {
        None | Some(Value::Null) => Ok(id.to_string()),
        Some(error) => Err(format!(
            "{id}: {}: {}",
            error["type"].as_str().unwrap_or("error"),
            error["reason"].as_str().unwrap_or("unknown reason")
        )),
    }
}

/// The `SearchError` of an Elasticsearch error answer.
fn map_error(status: StatusCode, body: &Value) -> SearchError {
    let error = &body["error"];
    let kind = error["type"].as_str().unwrap_or_default();
    let root = &error["root_cause"][0];
    let reason = root["reason"]
        .as_str()
        .or_else(|| error["reason"].as_str())
        .or_else(|| error.as_str())
        .unwrap_or("no reason given")
        .to_string();
    let index = || {
        error["index"]
            .as_str()
            .or_else(|| error["resource.id"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    match kind {
        "index_not_found_exception" => SearchError::IndexNotFound(index()),
        "invalid_index_name_exception" => SearchError::InvalidIndexName(index()),
        _ if status == StatusCode::BAD_REQUEST => SearchError::BadQuery(reason),
        _ => SearchError::Backend(format!("HTTP {}: {kind}: {reason}", status.as_u16())),
    }
}

/// `{"query": clause}`, or `{}` when the clause is null or empty (match_all).
fn query_body(query: &Value) -> Map<String, Value> {
    let clause = query_clause(query);
    let mut body = Map::new();
    if !clause.is_null() && clause.as_object().is_none_or(|o| !o.is_empty()) {
        body.insert("query".into(), clause.clone());
    }
    body
}

fn hit_from(value: &Value) -> Hit {
    Hit {
        index: value["_index"].as_str().unwrap_or_default().to_string(),
        id: value["_id"].as_str().unwrap_or_default().to_string(),
        score: value["_score"].as_f64().map(|s| s as f32),
        source: value.get("_source").cloned().unwrap_or_else(|| json!({})),
    }
}

fn hits_of(response: &Value) -> Vec<Hit> {
    response["hits"]["hits"].as_array().into_iter().flatten().map(hit_from).collect()
}

/// The index body TEXTA creates indices with: `texta_facts` nested, its members keywords.
fn index_settings() -> Value {
    json!({"mappings": {"properties": {FACTS_FIELD: {
        "type": "nested",
        "properties": {
            "doc_path": {"type": "keyword"},
            "fact": {"type": "keyword"},
            "num_val": {"type": "long"},
            "sent_index": {"type": "long"},
            "spans": {"type": "keyword"},
            "str_val": {"type": "keyword"}
        }
    }}}})
}

/// The Elasticsearch mapping of a declared field type: values that do not fit are kept in
/// `_source` and left unindexed (`ignore_malformed`) where the type allows it.
fn field_mapping(field_type: &str) -> Value {
    match field_type {
        "fact" => index_settings()["mappings"]["properties"][FACTS_FIELD].take(),
        "text" => json!({"type": "text", "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}}),
        "long" | "float" | "date" => json!({"type": field_type, "ignore_malformed": true}),
        other => json!({ "type": other }),
    }
}

/// Dotted field paths of a mapping's `properties`, alphabetical per level; object and nested
/// fields are descended into, `texta_facts` is one field of type `fact`, multi-fields
/// (`text.keyword`) are left out.
fn flatten_properties(properties: &Value, prefix: &str, out: &mut Vec<FieldInfo>) {
    let Some(map) = properties.as_object() else {
        return;
    };
    let mut names: Vec<&String> = map.keys().collect();
    names.sort();
    for name in names {
        let field = &map[name];
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        if path == FACTS_FIELD {
            out.push(FieldInfo {
                path,
                field_type: "fact".into(),
            });
        } else if let Some(children) = field.get("properties") {
            flatten_properties(children, &path, out);
        } else if let Some(kind) = field["type"].as_str() {
            out.push(FieldInfo {
                path,
                field_type: kind.to_string(),
            });
        }
    }
}

impl SearchBackend for ElasticBackend {
    fn info(&self) -> BackendInfo {
        let (alive, status) = match self.call(Method::GET, self.url(&[], &[]), Body::None) {
            Ok(root) => {
                let keep = ["name", "cluster_name", "cluster_uuid", "version", "tagline"];
                let status: Map<String, Value> = keep.iter().filter_map(|k| Some((k.to_string(), root.get(*k)?.clone()))).collect();
                (true, Value::Object(status))
            }
            Err(e) => (false, json!({"error": e.to_string()})),
        };
        BackendInfo {
            url: self.base.as_str().trim_end_matches('/').to_string(),
            alive,
            status,
        }
    }

    fn list_indices(&self) -> Result<Vec<String>> {
        let url = self.url(
            &["_cat", "indices"],
            &[("format", "json"), ("h", "index"), ("expand_wildcards", "open")],
        );
        let rows = self.call(Method::GET, url, Body::None)?;
        let mut names: Vec<String> = rows
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|row| row["index"].as_str())
            .filter(|name| !name.starts_with('.'))
            .map(str::to_string)
            .collect();
        names.sort();
        Ok(names)
    }

    fn index_exists(&self, name: &str) -> Result<bool> {
        Self::check_name(name)?;
        let (status, body) = self.send(Method::HEAD, self.url(&[name], &[]), Body::None)?;
        match status {
            StatusCode::OK => Ok(true),
            StatusCode::NOT_FOUND => Ok(false),
            other => Err(map_error(other, &body)),
        }
    }

    fn index_size(&self, name: &str) -> Result<u64> {
        Self::check_name(name)?;
        let (status, body) = self.send(Method::GET, self.url(&[name, "_stats", "store"], &[]), Body::None)?;
        if status != StatusCode::OK {
            return Err(map_error(status, &body));
        }
        body["_all"]["primaries"]["store"]["size_in_bytes"]
            .as_u64()
            .ok_or_else(|| SearchError::Backend(format!("_stats answered no store size: {body}")))
    }

    fn create_index(&self, name: &str) -> Result<()> {
        Self::check_name(name)?;
        let (status, body) = self.send(Method::PUT, self.url(&[name], &[]), Body::Json(index_settings()))?;
        let exists = body["error"]["type"] == "resource_already_exists_exception";
        if status.is_success() || exists {
            Ok(())
        } else {
            Err(map_error(status, &body))
        }
    }

    fn declare_field_types(&self, index: &str, types: &[(String, String)]) -> Result<()> {
        Self::check_name(index)?;
        let mut properties = Map::new();
        for (path, field_type) in types {
            let mut level = &mut properties;
            let mut segments = path.split('.').peekable();
            while let Some(name) = segments.next() {
                if segments.peek().is_none() {
                    level.insert(name.to_string(), field_mapping(field_type));
                    break;
                }
                let object = level.entry(name.to_string()).or_insert_with(|| json!({"properties": {}}));
                match object.get_mut("properties").and_then(Value::as_object_mut) {
                    Some(inner) => level = inner,
                    None => break,
                }
            }
        }
        let body = json!({ "properties": properties });
        self.call(Method::PUT, self.url(&[index, "_mapping"], &[]), Body::Json(body))
            .map(drop)
    }

    fn ensure_fact_mapping(&self, index: &str) -> Result<()> {
        Self::check_name(index)?;
        let mapping = index_settings()["mappings"].take();
        self.call(Method::PUT, self.url(&[index, "_mapping"], &[]), Body::Json(mapping))
            .map(drop)
    }

    fn delete_index(&self, name: &str) -> Result<()> {
        Self::check_name(name)?;
        self.call(Method::DELETE, self.url(&[name], &[]), Body::None).map(drop)
    }

    fn bulk_index(&self, index: &str, docs: Vec<Doc>) -> Result<BulkResult> {
        self.create_index(index)?;
        self.index_docs(index, docs)
    }

    fn bulk_loader<'a>(&'a self, index: &str) -> Result<Box<dyn BulkLoader + 'a>> {
        self.create_index(index)?;
        Ok(Box::new(ElasticLoader {
            backend: self,
            index: index.to_string(),
        }))
    }

    fn bulk_update(&self, index: &str, updates: Vec<(String, Map<String, Value>)>) -> Result<BulkResult> {
        Self::check_name(index)?;
        self.bulk(index, "update", update_lines(updates), true)
    }

    fn get_document(&self, index: &str, id: &str) -> Result<Option<Hit>> {
        Self::check_name(index)?;
        let (status, body) = self.send(Method::GET, self.url(&[index, "_doc", id], &[]), Body::None)?;
        match status {
            StatusCode::OK => Ok(Some(Hit {
                score: None,
                ..hit_from(&body)
            })),
            StatusCode::NOT_FOUND if body["found"] == false => Ok(None),
            other => Err(map_error(other, &body)),
        }
    }

    fn delete_document(&self, index: &str, id: &str) -> Result<bool> {
        Self::check_name(index)?;
        let url = self.url(&[index, "_doc", id], &[("refresh", "wait_for")]);
        let (status, body) = self.send(Method::DELETE, url, Body::None)?;
        match status {
            StatusCode::OK => Ok(true),
            StatusCode::NOT_FOUND if body["result"] == "not_found" => Ok(false),
            other => Err(map_error(other, &body)),
        }
    }

    fn search(&self, indices: &[String], body: &Value) -> Result<Value> {
        if indices.is_empty() {
            return Ok(
                json!({"took": 0, "timed_out": false, "hits": {"total": {"value": 0, "relation": "eq"}, "max_score": null, "hits": []}}),
            );
        }
        self.post(indices, "_search", &[], body.clone())
    }

    fn count(&self, indices: &[String], query: &Value) -> Result<u64> {
        if indices.is_empty() {
            return Ok(0);
        }
        let response = self.post(indices, "_count", &[], Value::Object(query_body(query)))?;
        response["count"]
            .as_u64()
            .ok_or_else(|| SearchError::Backend(format!("_count answered no count: {response}")))
    }

    fn scan(&self, indices: &[String], query: &Value, batch_size: usize, sink: &mut dyn FnMut(Vec<Hit>) -> Result<()>) -> Result<()> {
        if indices.is_empty() {
            return Ok(());
        }
        let mut body = query_body(query);
        body.insert("size".into(), json!(batch_size.clamp(1, MAX_PAGE)));
        body.insert("sort".into(), json!(["_doc"]));
        let mut page = self.post(indices, "_search", &[("scroll", SCROLL_KEEP_ALIVE)], Value::Object(body))?;
        let mut scroll_id = page["_scroll_id"].as_str().map(str::to_string);
        let outcome = loop {
            let hits = hits_of(&page);
            if hits.is_empty() {
                break Ok(());
            }
            if let Err(e) = sink(hits) {
                break Err(e);
            }
            let Some(id) = &scroll_id else {
                break Err(SearchError::Backend("scroll answered no _scroll_id".into()));
            };
            let next = json!({"scroll": SCROLL_KEEP_ALIVE, "scroll_id": id});
            match self.call(Method::POST, self.url(&["_search", "scroll"], &[]), Body::Json(next)) {
                Ok(next_page) => {
                    if let Some(id) = next_page["_scroll_id"].as_str() {
                        scroll_id = Some(id.to_string());
                    }
                    page = next_page;
                }
                Err(e) => break Err(e),
            }
        };
        if let Some(id) = scroll_id {
            let clear = json!({"scroll_id": [id]});
            let cleared = self.call(Method::DELETE, self.url(&["_search", "scroll"], &[]), Body::Json(clear));
            if outcome.is_ok() {
                cleared?;
            }
        }
        outcome
    }

    fn random_document(&self, indices: &[String]) -> Result<Option<Hit>> {
        if indices.is_empty() {
            return Ok(None);
        }
        let body = json!({
            "size": 1,
            "query": {"function_score": {"query": {"match_all": {}}, "random_score": {}}}
        });
        Ok(hits_of(&self.post(indices, "_search", &[], body)?)
            .into_iter()
            .next()
            .map(|hit| Hit { score: None, ..hit }))
    }

    fn fields(&self, indices: &[String]) -> Result<Vec<IndexFields>> {
        if indices.is_empty() {
            return Ok(Vec::new());
        }
        let target = indices.join(",");
        let mappings = self.call(Method::GET, self.url(&[&target, "_mapping"], &[]), Body::None)?;
        indices
            .iter()
            .map(|index| {
                let properties = mappings
                    .get(index)
                    .map(|m| &m["mappings"]["properties"])
                    .ok_or_else(|| SearchError::IndexNotFound(index.clone()))?;
                let mut fields = Vec::new();
                flatten_properties(properties, "", &mut fields);
                Ok(IndexFields {
                    index: index.clone(),
                    fields,
                })
            })
            .collect()
    }

    fn facts(&self, indices: &[String], query: &Value, values_per_name: usize) -> Result<Vec<FactCounts>> {
        if indices.is_empty() {
            return Ok(Vec::new());
        }
        let mut body = query_body(query);
        body.insert("size".into(), json!(0));
        body.insert(
            "aggs".into(),
            json!({"facts": {
                "nested": {"path": FACTS_FIELD},
                "aggs": {"names": {
                    "terms": {"field": format!("{FACTS_FIELD}.fact"), "size": MAX_FACT_NAMES},
                    "aggs": {"values": {"terms": {"field": format!("{FACTS_FIELD}.str_val"), "size": values_per_name.max(1)}}}
                }}
            }}),
        );
        let response = self.post(indices, "_search", &[], Value::Object(body))?;
        let buckets = |v: &Value| v["buckets"].as_array().cloned().unwrap_or_default();
        let key = |b: &Value| match &b["key"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        Ok(buckets(&response["aggregations"]["facts"]["names"])
            .iter()
            .map(|name| FactCounts {
                name: key(name),
                count: name["doc_count"].as_u64().unwrap_or(0),
                values: buckets(&name["values"])
                    .iter()
                    .take(values_per_name)
                    .map(|value| FactValueCount {
                        value: key(value),
                        count: value["doc_count"].as_u64().unwrap_or(0),
                    })
                    .collect(),
            })
            .collect())
    }
}

/// Bulk load over `_bulk` without waiting for refreshes (each request is durable in the
/// cluster's translog once answered); `commit` refreshes the index so the documents added so
/// far are searchable.
/// The `_bulk` lines of partial updates: each id with `{"doc": partial}`.
fn update_lines(updates: impl IntoIterator<Item = (String, Map<String, Value>)>) -> Vec<(String, String)> {
    updates
        .into_iter()
        .map(|(id, partial)| (id, json!({ "doc": partial }).to_string()))
        .collect()
}

struct ElasticLoader<'a> {
    backend: &'a ElasticBackend,
    index: String,
}

impl BulkLoader for ElasticLoader<'_> {
    fn add(&mut self, sources: Vec<Source>) -> Result<BulkResult> {
        let lines = sources
            .into_iter()
            .map(|source| Ok((generate_id(), String::from_utf8(source.into_bytes()).map_err(backend_err)?)))
            .collect::<Result<_>>()?;
        self.backend.bulk(&self.index, "index", lines, false)
    }

    fn update_read(&mut self, updates: Vec<ReadUpdate>) -> Result<BulkResult> {
        let partials = updates.into_iter().map(|(id, _, partial)| (id, partial));
        self.backend.bulk(&self.index, "update", update_lines(partials), false)
    }

    fn commit(&mut self) -> Result<()> {
        self.backend.refresh(&self.index)
    }

    fn discard(&mut self) -> Result<()> {
        Ok(())
    }
}

#[cfg(any(test, feature = "replay"))]
pub mod replay;
#[cfg(test)]
mod tests;
