//! The `SearchBackend` trait every index store implements, the value types it speaks in, and
//! the error type. Bodies and responses are Elasticsearch-shaped `serde_json::Value`s so the
//! HTTP layer can pass them through unchanged.

use serde::Serialize;
use serde_json::{Map, Value};

use super::source::Source;

/// A document to index: `id` is generated (20 URL-safe characters, like Elasticsearch) when
/// absent; `source` is the JSON object stored and returned as `_source`.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    pub id: Option<String>,
    pub source: Value,
}

/// One search hit: index name, document id, score (None when not scored) and `_source`.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub index: String,
    pub id: String,
    pub score: Option<f32>,
    pub source: Value,
}

impl Hit {
    /// The Elasticsearch 7 hit object: `{_index, _type, _id, _score, _source}`.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "_index": self.index,
            "_type": "_doc",
            "_id": self.id,
            "_score": self.score,
            "_source": self.source,
        })
    }
}

/// Health of the store for `/health`: `status` is the store's own info object (opaque).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BackendInfo {
    pub url: String,
    pub alive: bool,
    pub status: Value,
}

/// One field of an index as `get_fields` lists it: dotted `path` and mapping `type`
/// (`text`, `keyword`, `long`, `float`, `boolean`, `date`, or `fact` for `texta_facts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct FieldInfo {
    pub path: String,
    #[serde(rename = "type")]
    pub field_type: String,
}

/// Fields of one index, in mapping order (alphabetical by path segments).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct IndexFields {
    pub index: String,
    pub fields: Vec<FieldInfo>,
}

/// Count of one fact value (`str_val`) under a fact name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FactValueCount {
    pub value: String,
    pub count: u64,
}

/// Fact name with its most frequent values (count descending, then value ascending, as an
/// Elasticsearch `terms` aggregation orders them). Names are in the same order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FactCounts {
    pub name: String,
    pub count: u64,
    pub values: Vec<FactValueCount>,
}

/// Errors of every backend.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The named index does not exist (Elasticsearch `index_not_found_exception`, HTTP 404).
    #[error("no such index [{0}]")]
    IndexNotFound(String),
    /// The named document does not exist in the index.
    #[error("document [{id}] not found in index [{index}]")]
    DocumentNotFound { index: String, id: String },
    /// The query or request body cannot be run; the message names the offending clause.
    #[error("{0}")]
    BadQuery(String),
    /// The index name cannot be used by this store.
    #[error("invalid index name [{0}]")]
    InvalidIndexName(String),
    /// A dataset file whose extension is none of the supported ones.
    #[error("unknown file type")]
    UnknownFileType,
    /// Storage, I/O or remote-cluster failure.
    #[error("search backend failure: {0}")]
    Backend(String),
}

pub type Result<T> = std::result::Result<T, SearchError>;

/// Per-document outcome of a bulk call: the document id, or an error message.
pub type BulkResult = Vec<std::result::Result<String, String>>;

/// An index store. Every method is blocking; call it from a worker thread, not the async
/// request runtime.
pub trait SearchBackend: Send + Sync {
    /// Location and liveness for `/health`.
    fn info(&self) -> BackendInfo;
    /// All index names, sorted.
    fn list_indices(&self) -> Result<Vec<String>>;
    fn index_exists(&self, name: &str) -> Result<bool>;
    /// Bytes the index takes in the store (its primary copy).
    fn index_size(&self, name: &str) -> Result<u64>;
    /// Creates the index; creating an existing index is a no-op.
    fn create_index(&self, name: &str) -> Result<()>;
    fn delete_index(&self, name: &str) -> Result<()>;
    /// Indexes (or replaces, by id) documents; durable once this returns.
    fn bulk_index(&self, index: &str, docs: Vec<Doc>) -> Result<BulkResult>;
    /// Starts a bulk load (a dataset import) into `index`, created if missing.
    fn bulk_loader<'a>(&'a self, index: &str) -> Result<Box<dyn BulkLoader + 'a>>;
    /// Whether what a bulk loader adds stays unseen until its commit, can be discarded, and
    /// is gone after a crash before the commit (the embedded store). A run that fills a new
    /// index then writes it directly and commits once; elsewhere it goes through a staging
    /// index.
    fn loads_wait_for_commit(&self) -> bool {
        false
    }
    /// Starts, in the background, the segment merges the store's merge policy asks for in
    /// every index (a long-running process calls it once it is up: an index imported by a
    /// command that ended may hold one segment per commit). Stores that merge by themselves
    /// do nothing.
    fn start_merges(&self) -> Result<()> {
        Ok(())
    }
    /// Gives fields of `index` their types before its documents arrive: dotted path → one of
    /// `text`, `keyword`, `long`, `float`, `boolean`, `date`, `fact` (a field of facts like
    /// `texta_facts`). Documents never change a declared type; a value that does not fit it
    /// stays in `_source` and is not indexed under that type.
    fn declare_field_types(&self, index: &str, types: &[(String, String)]) -> Result<()>;
    /// Makes `texta_facts` of `index` nested facts before a run writes facts into documents
    /// that may not have had any (TEXTA adds its fact mapping so); an index whose
    /// `texta_facts` is mapped otherwise is an error. The embedded store always has them.
    fn ensure_fact_mapping(&self, _index: &str) -> Result<()> {
        Ok(())
    }
    /// Merges each partial object into the stored `_source` (top-level keys replaced, like an
    /// Elasticsearch partial update); durable once this returns.
    fn bulk_update(&self, index: &str, updates: Vec<(String, Map<String, Value>)>) -> Result<BulkResult>;
    fn get_document(&self, index: &str, id: &str) -> Result<Option<Hit>>;
    fn delete_document(&self, index: &str, id: &str) -> Result<bool>;
    /// Runs an Elasticsearch search body (`query`, `from`, `size`, `sort`, `_source`) and
    /// returns an Elasticsearch-shaped response.
    fn search(&self, indices: &[String], body: &Value) -> Result<Value>;
    /// Number of documents matching `query` (a query clause, or `{"query": clause}`).
    fn count(&self, indices: &[String], query: &Value) -> Result<u64>;
    /// Streams every matching document in batches of at most `batch_size`, without holding
    /// the whole result in memory. An error from `sink` stops the scan and is returned.
    fn scan(&self, indices: &[String], query: &Value, batch_size: usize, sink: &mut dyn FnMut(Vec<Hit>) -> Result<()>) -> Result<()>;
    /// A uniformly drawn document of the given indices, or None when they are empty.
    fn random_document(&self, indices: &[String]) -> Result<Option<Hit>>;
    /// Field paths and types of each index, in the order of `indices`.
    fn fields(&self, indices: &[String]) -> Result<Vec<IndexFields>>;
    /// Fact names of matching documents with their `values_per_name` most frequent values.
    fn facts(&self, indices: &[String], query: &Value, values_per_name: usize) -> Result<Vec<FactCounts>>;

    /// Merges one partial object into a stored document.
    fn update_document(&self, index: &str, id: &str, partial: Map<String, Value>) -> Result<()> {
        let mut results = self.bulk_update(index, vec![(id.to_string(), partial)])?;
        match results.pop() {
            Some(Ok(_)) => Ok(()),
            _ => Err(SearchError::DocumentNotFound {
                index: index.into(),
                id: id.into(),
            }),
        }
    }
}

/// A document's id, its `_source` as just read, and the partial object to merge into it.
pub type ReadUpdate = (String, Value, Map<String, Value>);

/// A bulk load into one index. Documents added become durable and searchable at `commit`;
/// a store may defer housekeeping (the embedded store's segment merges) until the loader is
/// dropped. Other writers can use the index meanwhile.
pub trait BulkLoader: Send {
    /// Adds documents under generated ids; per-document outcomes as `bulk_index`.
    fn add(&mut self, sources: Vec<Source>) -> Result<BulkResult>;
    /// As [`SearchBackend::bulk_update`], for documents the caller has just read, durable at
    /// the next commit (a run over an index writes its batches through here and commits now
    /// and then, not after each). A store that rewrites whole documents merges each partial
    /// into the `_source` read instead of reading the document again (a change made between
    /// the read and this write is then overwritten); stores that merge by themselves send
    /// the partials.
    fn update_read(&mut self, updates: Vec<ReadUpdate>) -> Result<BulkResult>;
    /// Makes everything added so far durable.
    fn commit(&mut self) -> Result<()>;
    /// Drops what was added since the last commit, where the store can (see
    /// [`SearchBackend::loads_wait_for_commit`]); elsewhere it does nothing.
    fn discard(&mut self) -> Result<()>;
}

/// The query clause of `value`: the value of its `query` key when it has one (the form TEXTA
/// stores, `{"query": {...}}`), else `value` itself. Null or `{}` means match_all.
pub fn query_clause(value: &Value) -> &Value {
    match value.get("query") {
        Some(inner) => inner,
        None => value,
    }
}

/// A new Elasticsearch-style document id: 20 URL-safe base64 characters of 15 bytes, a
/// millisecond clock, 6 random bytes fixed per process and a sequence number. Like
/// Elasticsearch's time-based ids, consecutive ids share long prefixes, which keeps the id
/// term dictionary small and cheap to build; the clock never goes back, so ids are unique.
pub fn generate_id() -> String {
    use base64::Engine as _;
    use std::sync::{Mutex, OnceLock};
    static NODE: OnceLock<[u8; 6]> = OnceLock::new();
    static LAST: Mutex<(u64, u32)> = Mutex::new((0, 0));
    let node = NODE.get_or_init(rand::random);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let (millis, sequence) = {
        let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
        *last = match *last {
            (millis, sequence) if now <= millis && sequence < 0xFF_FFFF => (millis, sequence + 1),
            (millis, _) if now <= millis => (millis + 1, 0),
            _ => (now, 0),
        };
        *last
    };
    let mut bytes = [0u8; 15];
    bytes[..6].copy_from_slice(&millis.to_be_bytes()[2..]);
    bytes[6..12].copy_from_slice(node);
    bytes[12..].copy_from_slice(&sequence.to_be_bytes()[1..]);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}
