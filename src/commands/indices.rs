//! `ta import`, `ta search`, `ta doc ...`: load datasets into search indices, stream
//! matching documents, and manage single documents.
use super::{progress, Target};
use crate::engine::dataset_imports::Upload;
use crate::engine::error::{Error, Result};
use clap::{Args, Subcommand};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// Project id
    #[arg(long)]
    pub project: i64,
    /// Index to create (or add to)
    #[arg(long)]
    pub index: String,
    /// Description (also the tag a tagger assigns)
    #[arg(long)]
    pub description: String,
    /// CSV field separator
    #[arg(long, default_value = ",")]
    pub separator: String,
    /// The dataset: .jsonl/.json/.jsonlines, .csv, .xlsx or .xls
    pub file: PathBuf,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Project id
    #[arg(long)]
    pub project: i64,
    /// Index to search (repeat for several) [default: all project indices]
    #[arg(long = "index")]
    pub indices: Vec<String>,
    /// Stop after this many hits [default: all]
    #[arg(long)]
    pub limit: Option<usize>,
    /// Words to find in any field, an Elasticsearch query clause as JSON, or a whole request
    /// body (`{"query": …, "size": 10, "sort": …, "aggs": …}`; with aggs the answer is printed whole)
    pub query: String,
}

#[derive(Subcommand, Debug)]
pub enum DocCmd {
    /// Store a document (JSON object) in an index; the index joins the project
    Put {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Index name
        #[arg(long)]
        index: String,
        /// Document id [default: generated]
        #[arg(long)]
        id: Option<String>,
        /// The document, as a JSON object
        source: String,
    },
    /// Show a document
    Get {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Index name
        #[arg(long)]
        index: String,
        /// Id of the resource
        id: String,
    },
    /// Delete a document
    Delete {
        /// Project id
        #[arg(long)]
        project: i64,
        /// Index name
        #[arg(long)]
        index: String,
        /// Id of the resource
        id: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum IndexCmd {
    /// List the indices in the search store (superusers)
    List,
    /// Show an index
    Show {
        /// Index id
        id: i64,
    },
    /// Open or close an index (a closed index leaves project listings)
    Update {
        /// Id of the resource
        id: i64,
        /// true to open, false to close
        #[arg(long, action = clap::ArgAction::Set)]
        open: bool,
    },
    /// Delete an index and all its documents
    Delete {
        /// Index id
        id: i64,
    },
}

pub fn index(t: &Target, c: &IndexCmd) -> Result<Option<Value>> {
    let out = match c {
        IndexCmd::List => t.request("GET", "/index/", None)?,
        IndexCmd::Show { id } => t.request("GET", &format!("/index/{id}/"), None)?,
        IndexCmd::Update { id, open } => {
            let body = json!({ "is_open": open });
            t.request("PATCH", &format!("/index/{id}/"), Some(&body))?
        }
        IndexCmd::Delete { id } => {
            t.request("DELETE", &format!("/index/{id}/"), None)?;
            return Ok(None);
        }
    };
    Ok(Some(out))
}

pub fn import(t: &Target, a: &ImportArgs) -> Result<Option<Value>> {
    let path = format!("/projects/{}/dataset_imports/", a.project);
    let file_name = a.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match t {
        Target::Local { engine, ctx } => {
            let full = a
                .file
                .canonicalize()
                .map_err(|e| Error::BadRequest(format!("cannot read {}: {e}", a.file.display())))?;
            let body = json!({"description": a.description, "index": a.index, "separator": a.separator,
                              "file": Upload { path: full, file_name, owned: false }.to_value()});
            let out = engine.start_dataset_import(ctx, a.project, &body, Some(progress::observer()))?;
            progress::check(serde_json::to_value(out).map_err(Error::internal)?).map(Some)
        }
        Target::Remote(c) => {
            let form = reqwest::blocking::multipart::Form::new()
                .text("description", a.description.clone())
                .text("index", a.index.clone())
                .text("separator", a.separator.clone())
                .file("file", &a.file)
                .map_err(|e| Error::BadRequest(format!("cannot read {}: {e}", a.file.display())))?;
            let created = c.send_multipart(&path, form)?;
            let id = created["id"]
                .as_i64()
                .ok_or_else(|| Error::Internal("no import id in the answer".into()))?;
            progress::check(progress::follow(c, &format!("{path}{id}/"))?).map(Some)
        }
    }
}

/// The query of `ta search`: a JSON object as given, else the words in any field.
/// What the user gave `ta search`: plain words, one query clause, or a whole Elasticsearch
/// request body (`{"query": …, "size", "from", "sort", "aggs", "_source"}`, the form users copy
/// from Elasticsearch).
enum SearchInput {
    Body(serde_json::Map<String, Value>),
    Clause(Value),
}

fn search_input(q: &str) -> SearchInput {
    match serde_json::from_str::<Value>(q) {
        Ok(Value::Object(body)) if body.contains_key("query") || body.contains_key("aggs") || body.contains_key("aggregations") => {
            SearchInput::Body(body)
        }
        Ok(v @ Value::Object(_)) => SearchInput::Clause(v),
        _ => SearchInput::Clause(json!({"multi_match": {"query": q, "fields": ["*"], "operator": "and"}})),
    }
}

/// Stream every hit as one JSON line (`_index`, `_id`, `_source`), page by page; a request
/// body with aggregations prints the whole search answer (hits and aggs) instead.
pub fn search(t: &Target, a: &SearchArgs) -> Result<Option<Value>> {
    let (query, size) = match search_input(&a.query) {
        SearchInput::Body(body) if body.contains_key("aggs") || body.contains_key("aggregations") => {
            let request = json!({"indices": a.indices.iter().map(|n| json!({"name": n})).collect::<Vec<_>>(), "query": body});
            return t
                .request("POST", &format!("/projects/{}/search_by_query/", a.project), Some(&request))
                .map(Some);
        }
        SearchInput::Body(mut body) => {
            let size = body.remove("size").and_then(|v| v.as_u64()).map(|n| n as usize);
            (Value::Object(body), size)
        }
        SearchInput::Clause(clause) => (json!({"query": clause}), None),
    };
    let path = format!("/projects/{}/scroll/", a.project);
    let mut body = json!({"indices": a.indices, "query": query, "documents_size": 500, "with_meta": true});
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut left = a.limit.or(size).unwrap_or(usize::MAX);
    loop {
        let page = t.request("POST", &path, Some(&body))?;
        for hit in page["documents"].as_array().into_iter().flatten().take(left) {
            let line = json!({"_index": hit["_index"], "_id": hit["_id"], "_source": hit["_source"]});
            writeln!(out, "{line}").map_err(Error::internal)?;
            left -= 1;
        }
        match page["scroll_id"].as_str() {
            Some(id) if left > 0 => body = json!({"scroll_id": id, "documents_size": 500, "with_meta": true}),
            _ => break,
        }
    }
    out.flush().map_err(Error::internal)?;
    Ok(None)
}

pub fn doc(t: &Target, c: &DocCmd) -> Result<Option<Value>> {
    let out = match c {
        DocCmd::Put {
            project,
            index,
            id,
            source,
        } => {
            let source: Value = serde_json::from_str(source).map_err(|e| Error::BadRequest(format!("the document is not JSON: {e}")))?;
            let body = json!({"documents": [{"_index": index, "_id": id, "_source": source}]});
            t.request("POST", &format!("/projects/{project}/elastic/documents/"), Some(&body))?
        }
        DocCmd::Get { project, index, id } => t.request("GET", &format!("/projects/{project}/elastic/documents/{index}/{id}/"), None)?,
        DocCmd::Delete { project, index, id } => {
            t.request("DELETE", &format!("/projects/{project}/elastic/documents/{index}/{id}/"), None)?;
            return Ok(None);
        }
    };
    Ok(Some(out))
}
