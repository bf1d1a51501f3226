//! Embedded index store on tantivy: one tantivy index per ta index, in `<root>/<name>/`.
//!
//! Each document is stored whole (`_source`, the original JSON bytes) and indexed twice
//! through JSON fields (`doc_views.rs`): `text` (strings analyzed, with positions) and `kw`
//! (numbers, booleans, dates (`date_math::parse_date`), and strings of at most 256 characters kept whole, as
//! Elasticsearch's `keyword` subfield with `ignore_above: 256`; fast, for ranges, sorting
//! (`sort.rs`) and aggregations). Every `texta_facts` entry is also indexed as its own "fact
//! document" (kind `f`), added right after its document in one group, which gives `nested`
//! queries and fact aggregations Elasticsearch's semantics through block joins
//! (`block_join.rs`); `_parent` (the document's id) serves deletes. Fact fields are keywords
//! (TEXTA's fact mapping), so fact documents have `kw` only. The writer indexes both kinds
//! in place from the source's tree (`store_doc.rs`).
//! Writes commit per call, so documents survive a crash once a call returns; a bulk load
//! (dataset import) commits when its caller says and holds segment merges off until it ends.
//! The reader is reloaded on the first search after a commit, and by tantivy shortly after
//! any other change on disk (a background merge).
//!
//! This file is the core store: the open indices, their schema, reader and writer, writes,
//! commits and merges. The other jobs have a module each: `search_backend.rs` (the
//! `SearchBackend` trait: index lifecycle, document reads and writes), `paging.rs` (search pages
//! and scans), `agg_runner.rs` (aggregations), `source_filter.rs` (`_source` filtering),
//! `fact_counts.rs` (`facts`), `bulk.rs` (bulk writes and loads) and `upgrade.rs` (re-indexing
//! an index written in an earlier ta's format).

mod agg_runner;
mod bulk;
mod fact_counts;
mod paging;
mod search_backend;
mod source_filter;
mod upgrade;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use serde_json::Value;
use tantivy::collector::{Count, TopDocs};
use tantivy::indexer::{LogMergePolicy, MergePolicy, UserOperation};
use tantivy::query::{BooleanQuery, ConstScoreQuery, EnableScoring, Occur, Query, TermQuery, TermSetQuery};
use tantivy::schema::{IndexRecordOption, JsonObjectOptions, Schema, TextFieldIndexing, Value as _, STORED, STRING};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{
    DocAddress, DocId, DocSet, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, SegmentReader, TantivyDocument, Term, TERMINATED,
};

use super::backend::{Hit, Result, SearchError};
use super::dsl::{kind_query, DslContext, StoreFields, KIND_DOC};
use super::mapping::FieldTypes;
use super::source::Source;
use super::store_doc::StoreDoc;
use super::tokenizer::TextTokenizer;

const TEXT_TOKENIZER: &str = "ta_text";
const MAPPING_FILE: &str = "ta_fields.json";
const WRITER_MEMORY: usize = 128 << 20;

/// The embedded backend; cheap to share behind an `Arc`.
pub struct TantivyBackend {
    root: PathBuf,
    indices: RwLock<HashMap<String, Arc<StoreIndex>>>,
    /// Serializes index creation and deletion.
    lifecycle: Mutex<()>,
}

/// A document to write. `replace` is false for freshly generated ids, which cannot be stored
/// yet: their deletes are skipped, which spares the commit a term lookup per document.
struct Pending {
    id: String,
    source: Source,
    replace: bool,
}

struct StoreIndex {
    name: String,
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: StoreFields,
    writer: Mutex<Option<IndexWriter<StoreDoc>>>,
    mapping: Mutex<FieldTypes>,
    /// A commit happened since the reader was last reloaded.
    stale: AtomicBool,
    /// Bulk loads under way; segment merges wait until there are none.
    bulk_loads: AtomicUsize,
}

fn backend_err(e: impl std::fmt::Display) -> SearchError {
    SearchError::Backend(e.to_string())
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl TantivyBackend {
    /// Opens (creating if needed) a store rooted at `root`.
    pub fn open(root: impl Into<PathBuf>) -> Result<Self> {
        let root = root.into();
        std::fs::create_dir_all(&root).map_err(backend_err)?;
        Ok(Self {
            root,
            indices: RwLock::new(HashMap::new()),
            lifecycle: Mutex::new(()),
        })
    }

    fn index_dir(&self, name: &str) -> Result<PathBuf> {
        let safe = !name.is_empty() && !matches!(name, "." | "..") && !name.contains(['/', '\\', '\0']) && !name.starts_with('.');
        if !safe {
            return Err(SearchError::InvalidIndexName(name.to_string()));
        }
        Ok(self.root.join(name))
    }

    /// The open index, opening it from disk on first use.
    fn handle(&self, name: &str) -> Result<Arc<StoreIndex>> {
        if let Some(found) = self.indices.read().unwrap_or_else(|p| p.into_inner()).get(name) {
            return Ok(found.clone());
        }
        // index creation, deletion and upgrades wait for this; searches of open indices do not
        let _guard = lock(&self.lifecycle);
        if let Some(found) = self.indices.read().unwrap_or_else(|p| p.into_inner()).get(name) {
            return Ok(found.clone());
        }
        let dir = self.index_dir(name)?;
        if !dir.join("meta.json").exists() && !self.upgrade_dir(name).exists() {
            return Err(SearchError::IndexNotFound(name.to_string()));
        }
        if self.needs_upgrade(name, &dir) {
            self.upgrade(name, &dir).map_err(|e| {
                SearchError::Backend(format!(
                    "index [{name}] is in an earlier ta's format and could not be upgraded: {e}"
                ))
            })?;
        }
        let index = Index::open_in_dir(&dir).map_err(backend_err)?;
        let handle = Arc::new(StoreIndex::new(name, dir, index)?);
        let mut open = self.indices.write().unwrap_or_else(|p| p.into_inner());
        open.insert(name.to_string(), handle.clone());
        Ok(handle)
    }

    /// Segments of an index: committed on disk, and read by searches.
    #[cfg(test)]
    pub(super) fn segment_counts(&self, name: &str) -> (usize, usize) {
        let handle = self.handle(name).expect("open index");
        let on_disk = handle.index.searchable_segment_ids().expect("segment list").len();
        (on_disk, handle.searcher().expect("searcher").segment_readers().len())
    }

    /// Merges every segment of an index into one and waits for it.
    #[cfg(test)]
    pub(super) fn merge_all(&self, name: &str) {
        let handle = self.handle(name).expect("open index");
        let ids = handle.index.searchable_segment_ids().expect("segment list");
        handle
            .with_writer(|writer| writer.merge(&ids).wait().map(drop).map_err(backend_err))
            .expect("merge");
    }

    fn handles(&self, names: &[String]) -> Result<Vec<Arc<StoreIndex>>> {
        names.iter().map(|n| self.handle(n)).collect()
    }
}

fn build_schema() -> Schema {
    let mut builder = Schema::builder();
    builder.add_text_field("_id", STRING | STORED);
    builder.add_text_field("_kind", STRING);
    builder.add_text_field("_parent", STRING);
    builder.add_bytes_field("_source", STORED);
    let text = TextFieldIndexing::default()
        .set_tokenizer(TEXT_TOKENIZER)
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    builder.add_json_field(
        "text",
        JsonObjectOptions::default().set_indexing_options(text).set_expand_dots_enabled(),
    );
    let kw = TextFieldIndexing::default()
        .set_tokenizer("raw")
        .set_index_option(IndexRecordOption::Basic);
    builder.add_json_field(
        "kw",
        JsonObjectOptions::default()
            .set_indexing_options(kw)
            .set_expand_dots_enabled()
            .set_fast("raw"),
    );
    builder.build()
}

/// Analyzer of `text`: Unicode alphanumeric runs, lower-cased, tokens up to 255 bytes.
pub(super) fn text_analyzer() -> TextAnalyzer {
    TextAnalyzer::from(TextTokenizer::default())
}

/// The words of `text` as the `text` field indexes them (what a term query on a text
/// field matches), in order.
pub fn analyzed_words(text: &str) -> Vec<String> {
    use tantivy::tokenizer::TokenStream;
    let mut analyzer = text_analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut words = Vec::new();
    while let Some(token) = stream.next() {
        words.push(token.text.clone());
    }
    words
}

fn store_fields(schema: &Schema) -> Result<StoreFields> {
    let field = |name: &str| schema.get_field(name).map_err(backend_err);
    Ok(StoreFields {
        id: field("_id")?,
        kind: field("_kind")?,
        parent: field("_parent")?,
        source: field("_source")?,
        text: field("text")?,
        kw: field("kw")?,
    })
}

/// A new index's schema and its fields.
#[cfg(test)]
pub(super) fn schema_fields() -> (Schema, StoreFields) {
    let schema = build_schema();
    let fields = store_fields(&schema).expect("the schema has every field");
    (schema, fields)
}

impl StoreIndex {
    fn new(name: &str, dir: PathBuf, index: Index) -> Result<Self> {
        index.tokenizers().register(TEXT_TOKENIZER, text_analyzer());
        let fields = store_fields(&index.schema())?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()
            .map_err(backend_err)?;
        let mapping = FieldTypes::load(&dir.join(MAPPING_FILE))?;
        Ok(Self {
            name: name.to_string(),
            dir,
            index,
            reader,
            fields,
            writer: Mutex::new(None),
            mapping: Mutex::new(mapping),
            stale: AtomicBool::new(false),
            bulk_loads: AtomicUsize::new(0),
        })
    }

    /// A searcher over everything committed so far; a failed reload is an error (and is
    /// retried by the next call).
    fn searcher(&self) -> Result<Searcher> {
        if self.stale.swap(false, Ordering::AcqRel) {
            if let Err(e) = self.reader.reload() {
                self.stale.store(true, Ordering::Release);
                return Err(backend_err(e));
            }
        }
        Ok(self.reader.searcher())
    }

    fn dsl<'s>(&self, searcher: &'s Searcher) -> DslContext<'s> {
        DslContext {
            fields: self.fields,
            searcher,
            analyzer: text_analyzer(),
            text_paths: lock(&self.mapping).text_paths(),
        }
    }

    /// The user query restricted to top-level documents.
    fn doc_query(&self, searcher: &Searcher, clause: &Value) -> Result<Box<dyn Query>> {
        let user = self.dsl(searcher).translate(clause)?;
        Ok(Box::new(BooleanQuery::new(vec![
            (Occur::Must, user),
            (Occur::Must, Box::new(ConstScoreQuery::new(kind_query(&self.fields, KIND_DOC), 0.0))),
        ])))
    }

    fn with_writer<T>(&self, work: impl FnOnce(&mut IndexWriter<StoreDoc>) -> Result<T>) -> Result<T> {
        let mut guard = lock(&self.writer);
        if guard.is_none() {
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 4);
            *guard = Some(self.index.writer_with_num_threads(threads, WRITER_MEMORY).map_err(backend_err)?);
        }
        let writer = guard.as_mut().expect("writer just opened");
        let result = work(writer);
        if result.is_err() {
            let _ = writer.rollback();
        }
        result
    }

    /// Starts the merges the log merge policy asks for over the committed segments, unless a
    /// bulk load holds merges off. They run in the background (searchers pick up their result
    /// through the reader's reload on disk changes) and are dropped, harmlessly, if the
    /// process ends first.
    fn start_merges(&self) -> Result<()> {
        if self.bulk_loads.load(Ordering::Acquire) > 0 {
            return Ok(());
        }
        let segments = self.index.searchable_segment_metas().map_err(backend_err)?;
        let candidates = LogMergePolicy::default().compute_merge_candidates(&segments);
        if candidates.is_empty() {
            return Ok(());
        }
        self.with_writer(|writer| {
            for candidate in candidates {
                drop(writer.merge(&candidate.0));
            }
            Ok(())
        })
    }

    /// Writes the given documents, replacing stored ones with the same id, and commits.
    fn write(&self, docs: Vec<Pending>) -> Result<()> {
        self.with_writer(|writer| {
            self.add(writer, docs)?;
            self.commit(writer)
        })
    }

    /// Adds documents to the writer (durable at the next commit), replacing stored ones with
    /// the same id (of a batch's documents with one id, the last); records new field paths in
    /// the mapping file. The replaced documents and their facts go in one delete of a term
    /// set, which reads only the term dictionary blocks holding the ids.
    fn add(&self, writer: &mut IndexWriter<StoreDoc>, docs: Vec<Pending>) -> Result<()> {
        let mut mapping = lock(&self.mapping);
        let mut changed = false;
        let mut last: HashMap<&str, usize> = HashMap::new();
        for (i, d) in docs.iter().enumerate().filter(|(_, d)| d.replace) {
            last.insert(&d.id, i);
        }
        if !last.is_empty() {
            let terms = last.keys().flat_map(|id| {
                [
                    Term::from_field_text(self.fields.id, id),
                    Term::from_field_text(self.fields.parent, id),
                ]
            });
            writer.delete_query(Box::new(TermSetQuery::new(terms))).map_err(backend_err)?;
        }
        let kept: Vec<bool> = docs
            .iter()
            .enumerate()
            .map(|(i, d)| !d.replace || last.get(d.id.as_str()) == Some(&i))
            .collect();
        for (Pending { id, source, .. }, keep) in docs.into_iter().zip(kept) {
            if !keep {
                continue;
            }
            changed |= mapping.observe(source.tree());
            // one group: the document directly followed by its facts (`block_join.rs`)
            let group: Vec<_> = StoreDoc::group(self.fields, id, source)
                .into_iter()
                .map(UserOperation::Add)
                .collect();
            writer.run(group).map_err(backend_err)?;
        }
        if changed {
            mapping.save(&self.dir.join(MAPPING_FILE))?;
        }
        Ok(())
    }

    /// Declares field types (`SearchBackend::declare_field_types`) and saves the mapping.
    fn declare_types(&self, types: &[(String, String)]) -> Result<()> {
        let mut mapping = lock(&self.mapping);
        for (path, field_type) in types {
            mapping.declare(path, field_type);
        }
        mapping.save(&self.dir.join(MAPPING_FILE))
    }

    fn commit(&self, writer: &mut IndexWriter<StoreDoc>) -> Result<()> {
        writer.commit().map_err(backend_err)?;
        self.stale.store(true, Ordering::Release);
        Ok(())
    }

    fn delete_by_id(&self, writer: &IndexWriter<StoreDoc>, id: &str) {
        writer.delete_term(Term::from_field_text(self.fields.id, id));
        writer.delete_term(Term::from_field_text(self.fields.parent, id));
    }

    fn load_hit(&self, searcher: &Searcher, addr: DocAddress, score: Option<f32>) -> Result<Hit> {
        let doc: TantivyDocument = searcher.doc(addr).map_err(backend_err)?;
        self.hit_from(doc, score)
    }

    fn hit_from(&self, doc: TantivyDocument, score: Option<f32>) -> Result<Hit> {
        let id = doc
            .get_first(self.fields.id)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let bytes = doc.get_first(self.fields.source).and_then(|v| v.as_bytes()).unwrap_or(b"{}");
        let source = serde_json::from_slice(bytes).map_err(backend_err)?;
        Ok(Hit {
            index: self.name.clone(),
            id,
            score,
            source,
        })
    }

    fn find(&self, searcher: &Searcher, id: &str) -> Result<Option<DocAddress>> {
        let query = BooleanQuery::intersection(vec![
            Box::new(TermQuery::new(Term::from_field_text(self.fields.id, id), IndexRecordOption::Basic)),
            kind_query(&self.fields, KIND_DOC),
        ]);
        let top = searcher
            .search(&query, &TopDocs::with_limit(1).order_by_score())
            .map_err(backend_err)?;
        Ok(top.first().map(|(_, addr)| *addr))
    }

    /// Visits the matching live documents segment by segment, in doc id order.
    fn for_each_match(
        &self,
        searcher: &Searcher,
        query: &dyn Query,
        visit: &mut dyn FnMut(&SegmentReader, DocId) -> Result<bool>,
    ) -> Result<()> {
        let weight = query.weight(EnableScoring::disabled_from_searcher(searcher)).map_err(backend_err)?;
        for segment in searcher.segment_readers() {
            let mut scorer = weight.scorer(segment, 1.0).map_err(backend_err)?;
            let alive = segment.alive_bitset();
            let mut doc = scorer.doc();
            while doc != TERMINATED {
                if alive.is_none_or(|bits| bits.is_alive(doc)) && !visit(segment, doc)? {
                    return Ok(());
                }
                doc = scorer.advance();
            }
        }
        Ok(())
    }

    fn count(&self, clause: &Value) -> Result<u64> {
        let searcher = self.searcher()?;
        let query = self.doc_query(&searcher, clause)?;
        Ok(searcher.search(&query, &Count).map_err(backend_err)? as u64)
    }
}
