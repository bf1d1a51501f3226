//! Embedded index store on tantivy: one tantivy index per ta index, in `<root>/<name>/`.
//!
//! Each document is stored whole (`_source`, the original JSON bytes) and indexed twice
//! through JSON fields (`doc_views.rs`): `text` (strings analyzed, with positions) and `kw`
//! (numbers, booleans, RFC 3339 dates, and strings of at most 256 characters kept whole, as
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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Instant;

use serde_json::{json, Map, Value};
use tantivy::aggregation::agg_req::Aggregations;
use tantivy::aggregation::intermediate_agg_result::IntermediateAggregationResults;
use tantivy::aggregation::{AggContextParams, AggregationCollector, AggregationLimitsGuard, DistributedAggregationCollector};
use tantivy::collector::{Count, TopDocs};
use tantivy::fastfield::AliveBitSet;
use tantivy::index::SegmentComponent;
use tantivy::indexer::{LogMergePolicy, MergePolicy, NoMergePolicy, UserOperation};
use tantivy::query::{BooleanQuery, ConstScoreQuery, EnableScoring, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, JsonObjectOptions, Schema, TextFieldIndexing, Value as _, STORED, STRING};
use tantivy::store::StoreReader;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{
    DocAddress, DocId, DocSet, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, SegmentReader, TantivyDocument, Term, TERMINATED,
};

use super::backend::{
    generate_id, query_clause, BackendInfo, BulkLoader, BulkResult, Doc, FactCounts, FactValueCount, Hit, IndexFields, Result,
    SearchBackend, SearchError,
};
use super::block_join::BlockJoin;
use super::dsl::{kind_query, DslContext, StoreFields, KIND_DOC, KIND_FACT};
use super::highlight::Highlighter;
use super::mapping::FieldTypes;
use super::source::Source;
use super::store_doc::StoreDoc;
use super::tokenizer::TextTokenizer;
use super::{aggs, sort};

const TEXT_TOKENIZER: &str = "ta_text";
const MAPPING_FILE: &str = "ta_fields.json";
const WRITER_MEMORY: usize = 128 << 20;
/// Names the on-disk format of an index (sstable term dictionaries, fact documents in blocks);
/// an index without this marker, or with another one, was written by an earlier ta and is
/// upgraded when first opened.
const FORMAT_FILE: &str = "ta_format";
/// Prefix of the directory holding an index's old files while it is upgraded.
const UPGRADE_PREFIX: &str = ".upgrading-";
const FORMAT: &str = "tantivy-0.27-sstable-blocks\n";

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
        if std::fs::read_to_string(dir.join(FORMAT_FILE)).ok().as_deref() != Some(FORMAT) || self.upgrade_dir(name).exists() {
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

    /// Where an index's files wait while `upgrade` rewrites it.
    fn upgrade_dir(&self, name: &str) -> PathBuf {
        self.root.join(format!("{UPGRADE_PREFIX}{name}"))
    }

    /// Rewrites an index written by an earlier ta in this one's format: every stored document
    /// is read back from the old segments' document stores (which need no term dictionary)
    /// and indexed anew with its facts. The old files wait aside until the new index is
    /// committed and marked, so an upgrade cut short starts again from them; nothing is lost.
    fn upgrade(&self, name: &str, dir: &Path) -> Result<()> {
        let old_dir = self.upgrade_dir(name);
        if old_dir.exists() {
            if dir.exists() {
                std::fs::remove_dir_all(dir).map_err(backend_err)?;
            }
        } else {
            std::fs::rename(dir, &old_dir).map_err(backend_err)?;
        }
        std::fs::create_dir_all(dir).map_err(backend_err)?;
        let index = Index::create_in_dir(dir, build_schema()).map_err(backend_err)?;
        let fresh = StoreIndex::new(name, dir.to_path_buf(), index)?;
        let old = Index::open_in_dir(&old_dir).map_err(backend_err)?;
        let field = |name: &str| old.schema().get_field(name).map_err(backend_err);
        let (id_field, source_field) = (field("_id")?, field("_source")?);
        fresh.with_writer(|writer| {
            for segment in old.searchable_segments().map_err(backend_err)? {
                let store = StoreReader::open(segment.open_read(SegmentComponent::Store).map_err(backend_err)?, 4).map_err(backend_err)?;
                let alive = match segment.meta().has_deletes() {
                    true => {
                        let bytes = segment.open_read(SegmentComponent::Delete).map_err(backend_err)?;
                        Some(AliveBitSet::open(bytes.read_bytes().map_err(backend_err)?))
                    }
                    false => None,
                };
                let mut batch = Vec::new();
                for doc in store.iter::<TantivyDocument>(alive.as_ref()) {
                    let doc = doc.map_err(backend_err)?;
                    let id = doc.get_first(id_field).and_then(|v| v.as_str());
                    let bytes = doc.get_first(source_field).and_then(|v| v.as_bytes());
                    // fact documents store nothing: they are rebuilt from their document
                    let (Some(id), Some(bytes)) = (id, bytes) else { continue };
                    batch.push(Pending {
                        id: id.to_string(),
                        source: Source::parse(bytes.to_vec()).map_err(backend_err)?,
                        replace: false,
                    });
                    if batch.len() >= 1000 {
                        fresh.add(writer, std::mem::take(&mut batch))?;
                    }
                }
                fresh.add(writer, batch)?;
            }
            fresh.commit(writer)
        })?;
        drop(fresh); // the writer and its lock go with it
        std::fs::write(dir.join(FORMAT_FILE), FORMAT).map_err(backend_err)?;
        std::fs::remove_dir_all(&old_dir).map_err(backend_err)
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
    /// the same id; records new field paths in the mapping file.
    fn add(&self, writer: &mut IndexWriter<StoreDoc>, docs: Vec<Pending>) -> Result<()> {
        let mut mapping = lock(&self.mapping);
        let mut changed = false;
        for Pending { id, source, replace } in docs {
            changed |= mapping.observe(source.tree());
            // one group: the document directly followed by its facts (`block_join.rs`)
            let mut group = Vec::new();
            if replace {
                group.push(UserOperation::Delete(Term::from_field_text(self.fields.id, &id)));
                group.push(UserOperation::Delete(Term::from_field_text(self.fields.parent, &id)));
            }
            group.extend(StoreDoc::group(self.fields, id, source).into_iter().map(UserOperation::Add));
            writer.run(group).map_err(backend_err)?;
        }
        if changed {
            mapping.save(&self.dir.join(MAPPING_FILE))?;
        }
        Ok(())
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

/// One hit of a search page before it is loaded: where it is, its score and `sort` array.
struct Found {
    index: usize,
    addr: DocAddress,
    score: Option<f32>,
    sort: Option<Value>,
}

/// Total matches, max score and the best `limit` hits by relevance (ties in index order).
fn relevance_page(
    handles: &[Arc<StoreIndex>],
    searchers: &[Searcher],
    clause: &Value,
    limit: usize,
) -> Result<(u64, Option<f32>, Vec<Found>)> {
    let mut total = 0u64;
    let mut candidates = Vec::new();
    for (ord, (handle, searcher)) in handles.iter().zip(searchers).enumerate() {
        let query = handle.doc_query(searcher, clause)?;
        let collector = (Count, TopDocs::with_limit(limit.max(1)).order_by_score());
        let (count, top) = searcher.search(&query, &collector).map_err(backend_err)?;
        total += count as u64;
        candidates.extend(top.into_iter().map(|(score, addr)| (score, ord, addr)));
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    candidates.truncate(limit);
    let max_score = candidates.first().map(|(score, _, _)| *score);
    let page = candidates
        .into_iter()
        .map(|(score, index, addr)| Found {
            index,
            addr,
            score: Some(score),
            sort: None,
        })
        .collect();
    Ok((total, max_score, page))
}

/// Total matches, max score (when `track`ed) and the first `limit` hits in `keys` order
/// (ties in index order). Keeps at most about twice `limit` candidates in memory.
fn sorted_page(
    handles: &[Arc<StoreIndex>],
    searchers: &[Searcher],
    clause: &Value,
    keys: &[sort::SortKey],
    track: bool,
    limit: usize,
) -> Result<(u64, Option<f32>, Vec<Found>)> {
    type Candidate = (Vec<sort::SortValue>, usize, DocAddress, f32);
    let order = |a: &Candidate, b: &Candidate| sort::compare(keys, &a.0, &b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2));
    let trim = |found: &mut Vec<Candidate>| {
        if found.len() > limit {
            if limit > 0 {
                found.select_nth_unstable_by(limit - 1, order);
            }
            found.truncate(limit);
        }
    };
    let (mut found, mut total, mut max_score): (Vec<Candidate>, u64, Option<f32>) = (Vec::new(), 0, None);
    for (ord, (handle, searcher)) in handles.iter().zip(searchers).enumerate() {
        let query = handle.doc_query(searcher, clause)?;
        let scoring = if track {
            EnableScoring::enabled_from_searcher(searcher)
        } else {
            EnableScoring::disabled_from_searcher(searcher)
        };
        let weight = query.weight(scoring).map_err(backend_err)?;
        for (segment_ord, segment) in searcher.segment_readers().iter().enumerate() {
            let columns = sort::SegmentColumns::open(segment, keys)?;
            let mut scorer = weight.scorer(segment, 1.0).map_err(backend_err)?;
            let alive = segment.alive_bitset();
            let mut doc = scorer.doc();
            while doc != TERMINATED {
                if alive.is_none_or(|bits| bits.is_alive(doc)) {
                    let score = if track { scorer.score() } else { 0.0 };
                    if track && max_score.is_none_or(|m| score > m) {
                        max_score = Some(score);
                    }
                    let values = columns.values(keys, doc, score, total);
                    total += 1;
                    found.push((values, ord, DocAddress::new(segment_ord as u32, doc), score));
                    if found.len() >= 2 * limit + 1024 {
                        trim(&mut found);
                    }
                }
                doc = scorer.advance();
            }
        }
    }
    trim(&mut found);
    found.sort_by(order);
    let page = found
        .into_iter()
        .map(|(values, index, addr, score)| Found {
            index,
            addr,
            score: track.then_some(score),
            sort: Some(sort::render(keys, values)),
        })
        .collect();
    Ok((total, max_score, page))
}

/// The search body's `aggs` over the documents matching `clause` in every index (see `aggs.rs`).
fn run_aggs(handles: &[Arc<StoreIndex>], searchers: &[Searcher], clause: &Value, request: &Value) -> Result<Value> {
    let runner = AggRunner {
        handles,
        searchers,
        mappings: handles.iter().map(|h| lock(&h.mapping).clone()).collect(),
    };
    aggs::aggregate(&runner, clause, request)
}

/// Runs tantivy aggregations and counts over aggregation scopes, for `aggs.rs`.
struct AggRunner<'a> {
    handles: &'a [Arc<StoreIndex>],
    searchers: &'a [Searcher],
    mappings: Vec<FieldTypes>,
}

impl AggRunner<'_> {
    /// Per index: the scope's documents (top-level ones, or fact documents).
    fn queries(&self, scope: &aggs::Scope) -> Result<Vec<Box<dyn Query>>> {
        self.handles
            .iter()
            .zip(self.searchers)
            .map(|(handle, searcher)| match &scope.facts {
                None => handle.doc_query(searcher, &scope.clause),
                Some(filters) => {
                    let mut parts = vec![(Occur::Must, handle.fact_docs_query(searcher, &scope.clause)?)];
                    for filter in filters {
                        parts.push((Occur::Must, handle.dsl(searcher).translate(filter)?));
                    }
                    Ok(Box::new(BooleanQuery::new(parts)) as Box<dyn Query>)
                }
            })
            .collect()
    }
}

impl aggs::Runner for AggRunner<'_> {
    fn mappings(&self) -> &[FieldTypes] {
        &self.mappings
    }

    fn run(&self, scope: &aggs::Scope, request: Aggregations) -> Result<Value> {
        let mut merged: Option<IntermediateAggregationResults> = None;
        for ((handle, searcher), query) in self.handles.iter().zip(self.searchers).zip(self.queries(scope)?) {
            let context = AggContextParams::new(AggregationLimitsGuard::default(), handle.index.tokenizers().clone());
            let collector = DistributedAggregationCollector::from_aggs(request.clone(), context);
            let part = searcher
                .search(&query, &collector)
                .map_err(|e| SearchError::BadQuery(format!("aggs: {e}")))?;
            match merged.as_mut() {
                Some(all) => all.merge_fruits(part).map_err(backend_err)?,
                None => merged = Some(part),
            }
        }
        let Some(merged) = merged else {
            return Ok(json!({}));
        };
        let result = merged
            .into_final_result(request, AggregationLimitsGuard::default())
            .map_err(|e| SearchError::BadQuery(format!("aggs: {e}")))?;
        serde_json::to_value(result).map_err(backend_err)
    }

    fn count(&self, scope: &aggs::Scope) -> Result<u64> {
        let mut total = 0;
        for (searcher, query) in self.searchers.iter().zip(self.queries(scope)?) {
            total += searcher.search(&query, &Count).map_err(backend_err)? as u64;
        }
        Ok(total)
    }
}

/// Per-document outcomes of a bulk write and the documents to store: ids generated where
/// absent, non-objects refused.
fn pending(docs: Vec<Doc>) -> (BulkResult, Vec<Pending>) {
    let mut results = Vec::with_capacity(docs.len());
    let mut valid = Vec::with_capacity(docs.len());
    for doc in docs {
        let replace = doc.id.is_some();
        let id = doc.id.unwrap_or_else(generate_id);
        match doc.source {
            Value::Object(source) => {
                results.push(Ok(id.clone()));
                valid.push(Pending {
                    id,
                    source: Source::from_map(&source),
                    replace,
                });
            }
            other => results.push(Err(format!("document [{id}] is not a JSON object: {other}"))),
        }
    }
    (results, valid)
}

/// A bulk load: documents go to the shared writer without a commit each time, and segment
/// merges are off until the last load of the index ends (merging while loading would rewrite
/// the same documents again and again); merges resume with the next commit after that.
struct TantivyLoader {
    handle: Arc<StoreIndex>,
}

impl TantivyLoader {
    fn start(handle: Arc<StoreIndex>) -> Result<Self> {
        handle.bulk_loads.fetch_add(1, Ordering::AcqRel);
        let loader = Self { handle };
        loader.handle.with_writer(|writer| {
            writer.set_merge_policy(Box::new(NoMergePolicy));
            Ok(())
        })?;
        Ok(loader)
    }
}

impl BulkLoader for TantivyLoader {
    fn add(&mut self, sources: Vec<Source>) -> Result<BulkResult> {
        let mut results = Vec::with_capacity(sources.len());
        let docs = sources
            .into_iter()
            .map(|source| {
                let id = generate_id();
                results.push(Ok(id.clone()));
                Pending {
                    id,
                    source,
                    replace: false,
                }
            })
            .collect();
        self.handle.with_writer(|writer| self.handle.add(writer, docs))?;
        Ok(results)
    }

    fn commit(&mut self) -> Result<()> {
        self.handle.with_writer(|writer| self.handle.commit(writer))
    }
}

impl Drop for TantivyLoader {
    /// The last load of the index to end restores the merge policy and starts the merges it
    /// asks for over the load's segments.
    fn drop(&mut self) {
        if self.handle.bulk_loads.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _ = self.handle.with_writer(|writer| {
                writer.set_merge_policy(Box::new(LogMergePolicy::default()));
                Ok(())
            });
            let _ = self.handle.start_merges();
        }
    }
}

/// Elasticsearch `_source` filtering: `false`, a path or list of paths, or
/// `{includes, excludes}`; paths may end in `*`.
fn filter_source(source: Value, spec: Option<&Value>) -> Value {
    let (includes, excludes): (Vec<&str>, Vec<&str>) = match spec {
        None | Some(Value::Bool(true)) => return source,
        Some(Value::Bool(false)) => return json!({}),
        Some(Value::String(one)) => (vec![one.as_str()], vec![]),
        Some(Value::Array(list)) => (list.iter().filter_map(Value::as_str).collect(), vec![]),
        Some(Value::Object(obj)) => {
            let list = |k: &str, alt: &str| -> Vec<&str> {
                let v = obj.get(k).or_else(|| obj.get(alt));
                match v {
                    Some(Value::String(s)) => vec![s.as_str()],
                    Some(Value::Array(l)) => l.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                }
            };
            (list("includes", "include"), list("excludes", "exclude"))
        }
        Some(_) => return source,
    };
    filter_object(source, "", &includes, &excludes)
}

fn filter_object(value: Value, prefix: &str, includes: &[&str], excludes: &[&str]) -> Value {
    let Value::Object(map) = value else {
        return value;
    };
    let mut out = Map::new();
    for (key, child) in map {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        if excludes.iter().any(|p| path_matches(p, &path)) {
            continue;
        }
        let included = includes.is_empty() || includes.iter().any(|p| path_matches(p, &path));
        if included {
            out.insert(key, filter_object(child, &path, &[], excludes));
        } else if includes.iter().any(|p| p.starts_with(&format!("{path}.")) || p.starts_with('*')) {
            let filtered = filter_object(child, &path, includes, excludes);
            if filtered.as_object().is_some_and(|o| !o.is_empty()) {
                out.insert(key, filtered);
            }
        }
    }
    Value::Object(out)
}

fn path_matches(pattern: &str, path: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => path.starts_with(prefix),
        None => pattern == path || path.starts_with(&format!("{pattern}.")),
    }
}

fn usize_param(body: &Value, key: &str, default: usize) -> Result<usize> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .map(|n| n as usize)
            .ok_or_else(|| SearchError::BadQuery(format!("[{key}] must be a non-negative integer"))),
    }
}

impl SearchBackend for TantivyBackend {
    fn info(&self) -> BackendInfo {
        BackendInfo {
            url: format!("embedded:{}", self.root.display()),
            alive: self.root.is_dir(),
            status: json!({
                "name": "ta-embedded",
                "cluster_name": "ta",
                "version": {"number": env!("CARGO_PKG_VERSION"), "build_flavor": "tantivy"},
                "tagline": "You Know, for Search",
            }),
        }
    }

    fn list_indices(&self) -> Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.root).map_err(backend_err)? {
            let entry = entry.map_err(backend_err)?;
            if entry.path().join("meta.json").exists() {
                let name = entry.file_name().to_str().map(str::to_string);
                // an index whose upgrade was cut short goes by its own name
                names.extend(name.map(|n| n.strip_prefix(UPGRADE_PREFIX).map(str::to_string).unwrap_or(n)));
            }
        }
        names.sort();
        names.dedup();
        Ok(names)
    }

    fn index_exists(&self, name: &str) -> Result<bool> {
        Ok(self.index_dir(name)?.join("meta.json").exists() || self.upgrade_dir(name).exists())
    }

    fn create_index(&self, name: &str) -> Result<()> {
        let dir = self.index_dir(name)?;
        let _guard = lock(&self.lifecycle);
        if dir.join("meta.json").exists() {
            return Ok(());
        }
        std::fs::create_dir_all(&dir).map_err(backend_err)?;
        std::fs::write(dir.join(FORMAT_FILE), FORMAT).map_err(backend_err)?;
        Index::create_in_dir(&dir, build_schema()).map_err(backend_err)?;
        Ok(())
    }

    fn delete_index(&self, name: &str) -> Result<()> {
        let dir = self.index_dir(name)?;
        let _guard = lock(&self.lifecycle);
        let removed = self.indices.write().unwrap_or_else(|p| p.into_inner()).remove(name);
        if let Some(handle) = removed {
            if let Some(writer) = lock(&handle.writer).take() {
                writer.wait_merging_threads().map_err(backend_err)?;
            }
        }
        let old_files = self.upgrade_dir(name);
        if !dir.join("meta.json").exists() && !old_files.exists() {
            return Err(SearchError::IndexNotFound(name.to_string()));
        }
        if old_files.exists() {
            std::fs::remove_dir_all(&old_files).map_err(backend_err)?;
        }
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(backend_err)?;
        }
        Ok(())
    }

    fn bulk_index(&self, index: &str, docs: Vec<Doc>) -> Result<BulkResult> {
        self.create_index(index)?;
        let (results, valid) = pending(docs);
        self.handle(index)?.write(valid)?;
        Ok(results)
    }

    fn start_merges(&self) -> Result<()> {
        for name in self.list_indices()? {
            // an index this build cannot read is reported when it is used
            if let Ok(handle) = self.handle(&name) {
                handle.start_merges()?;
            }
        }
        Ok(())
    }

    fn bulk_loader<'a>(&'a self, index: &str) -> Result<Box<dyn BulkLoader + 'a>> {
        self.create_index(index)?;
        Ok(Box::new(TantivyLoader::start(self.handle(index)?)?))
    }

    fn bulk_update(&self, index: &str, updates: Vec<(String, Map<String, Value>)>) -> Result<BulkResult> {
        let handle = self.handle(index)?;
        let searcher = handle.searcher()?;
        let mut pending: HashMap<String, Map<String, Value>> = HashMap::new();
        let mut order = Vec::new();
        let mut results = Vec::with_capacity(updates.len());
        for (id, partial) in updates {
            let current = match pending.remove(&id) {
                Some(doc) => Some(doc),
                None => match handle.find(&searcher, &id)? {
                    Some(addr) => handle.load_hit(&searcher, addr, None)?.source.as_object().cloned(),
                    None => None,
                },
            };
            let Some(mut merged) = current else {
                results.push(Err(format!("document missing: [{id}]")));
                continue;
            };
            merged.extend(partial);
            if !order.contains(&id) {
                order.push(id.clone());
            }
            pending.insert(id.clone(), merged);
            results.push(Ok(id));
        }
        let docs = order
            .into_iter()
            .filter_map(|id| {
                let source = Source::from_map(&pending.remove(&id)?);
                Some(Pending { id, source, replace: true })
            })
            .collect();
        handle.write(docs)?;
        Ok(results)
    }

    fn get_document(&self, index: &str, id: &str) -> Result<Option<Hit>> {
        let handle = self.handle(index)?;
        let searcher = handle.searcher()?;
        match handle.find(&searcher, id)? {
            Some(addr) => Ok(Some(handle.load_hit(&searcher, addr, None)?)),
            None => Ok(None),
        }
    }

    fn delete_document(&self, index: &str, id: &str) -> Result<bool> {
        let handle = self.handle(index)?;
        if handle.find(&handle.searcher()?, id)?.is_none() {
            return Ok(false);
        }
        handle.with_writer(|writer| {
            handle.delete_by_id(writer, id);
            handle.commit(writer)
        })?;
        Ok(true)
    }

    fn search(&self, indices: &[String], body: &Value) -> Result<Value> {
        let started = Instant::now();
        let from = usize_param(body, "from", 0)?;
        let size = usize_param(body, "size", 10)?;
        let clause = body.get("query").unwrap_or(&Value::Null);
        let handles = self.handles(indices)?;
        // checked against every index's mapping (a text field in any of them is refused)
        let mut keys = None;
        for handle in &handles {
            keys = sort::parse(body.get("sort"), &lock(&handle.mapping))?;
        }
        let highlighter = match body.get("highlight") {
            Some(spec) => Some(Highlighter::parse(spec, clause, text_analyzer())?),
            None => None,
        };
        let searchers = handles.iter().map(|h| h.searcher()).collect::<Result<Vec<Searcher>>>()?;
        // no page can hold more hits than the indices have documents (a huge `size` must not
        // size a collector)
        let stored: u64 = searchers.iter().map(|s| s.num_docs()).sum();
        let limit = from.saturating_add(size).min(usize::try_from(stored).unwrap_or(usize::MAX));
        let (total, max_score, page) = match keys {
            Some(keys) => {
                let track = sort::needs_scores(&keys) || body.get("track_scores") == Some(&Value::Bool(true));
                sorted_page(&handles, &searchers, clause, &keys, track, limit)?
            }
            None => relevance_page(&handles, &searchers, clause, limit)?,
        };
        let aggregations = match body.get("aggs").or_else(|| body.get("aggregations")) {
            Some(request) => Some(run_aggs(&handles, &searchers, clause, request)?),
            None => None,
        };
        let hits = page
            .into_iter()
            .skip(from)
            .take(size)
            .map(|found| {
                let mut hit = handles[found.index].load_hit(&searchers[found.index], found.addr, found.score)?;
                let highlight = highlighter.as_ref().and_then(|h| h.highlight(&hit.source));
                hit.source = filter_source(hit.source, body.get("_source"));
                let mut json = hit.to_json();
                if let Some(highlight) = highlight {
                    json["highlight"] = highlight;
                }
                if let Some(sort) = found.sort {
                    json["sort"] = sort;
                }
                Ok(json)
            })
            .collect::<Result<Vec<_>>>()?;
        let mut response = json!({
            "took": started.elapsed().as_millis() as u64,
            "timed_out": false,
            "_shards": {"total": handles.len(), "successful": handles.len(), "skipped": 0, "failed": 0},
            "hits": {"total": {"value": total, "relation": "eq"}, "max_score": max_score, "hits": hits},
        });
        if let Some(aggregations) = aggregations {
            response["aggregations"] = aggregations;
        }
        Ok(response)
    }

    fn count(&self, indices: &[String], query: &Value) -> Result<u64> {
        let clause = query_clause(query);
        self.handles(indices)?.iter().map(|h| h.count(clause)).sum()
    }

    fn scan(&self, indices: &[String], query: &Value, batch_size: usize, sink: &mut dyn FnMut(Vec<Hit>) -> Result<()>) -> Result<()> {
        let clause = query_clause(query);
        let batch_size = batch_size.max(1);
        for handle in self.handles(indices)? {
            let searcher = handle.searcher()?;
            let query = handle.doc_query(&searcher, clause)?;
            let mut batch = Vec::with_capacity(batch_size);
            let mut store: Option<(tantivy::index::SegmentId, tantivy::store::StoreReader)> = None;
            handle.for_each_match(&searcher, query.as_ref(), &mut |segment, doc| {
                let segment_id = segment.segment_id();
                if store.as_ref().is_none_or(|(id, _)| *id != segment_id) {
                    store = Some((segment_id, segment.get_store_reader(16).map_err(backend_err)?));
                }
                let (_, reader) = store.as_ref().expect("store reader just opened");
                let doc: TantivyDocument = reader.get(doc).map_err(backend_err)?;
                batch.push(handle.hit_from(doc, None)?);
                if batch.len() >= batch_size {
                    sink(std::mem::replace(&mut batch, Vec::with_capacity(batch_size)))?;
                }
                Ok(true)
            })?;
            if !batch.is_empty() {
                sink(batch)?;
            }
        }
        Ok(())
    }

    fn random_document(&self, indices: &[String]) -> Result<Option<Hit>> {
        let handles = self.handles(indices)?;
        let counts = handles.iter().map(|h| h.count(&Value::Null)).collect::<Result<Vec<_>>>()?;
        let total: u64 = counts.iter().sum();
        if total == 0 {
            return Ok(None);
        }
        let mut pick = rand::random_range(0..total);
        for (handle, count) in handles.iter().zip(counts) {
            if pick >= count {
                pick -= count;
                continue;
            }
            let searcher = handle.searcher()?;
            let query = kind_query(&handle.fields, KIND_DOC);
            let mut found = None;
            handle.for_each_match(&searcher, query.as_ref(), &mut |segment, doc| {
                if pick > 0 {
                    pick -= 1;
                    return Ok(true);
                }
                let reader = segment.get_store_reader(1).map_err(backend_err)?;
                found = Some(handle.hit_from(reader.get(doc).map_err(backend_err)?, None)?);
                Ok(false)
            })?;
            return Ok(found);
        }
        Ok(None)
    }

    fn fields(&self, indices: &[String]) -> Result<Vec<IndexFields>> {
        self.handles(indices)?
            .iter()
            .map(|h| {
                Ok(IndexFields {
                    index: h.name.clone(),
                    fields: lock(&h.mapping).to_infos(),
                })
            })
            .collect()
    }

    fn facts(&self, indices: &[String], query: &Value, values_per_name: usize) -> Result<Vec<FactCounts>> {
        let clause = query_clause(query);
        let mut merged: HashMap<String, (u64, HashMap<String, u64>)> = HashMap::new();
        for handle in self.handles(indices)? {
            handle.fact_counts(clause, values_per_name, &mut merged)?;
        }
        Ok(rank_facts(merged, values_per_name))
    }
}

impl StoreIndex {
    /// Adds the fact name/value counts of the documents matching `clause` to `merged`,
    /// through a terms aggregation over the fact documents.
    fn fact_counts(&self, clause: &Value, values_per_name: usize, merged: &mut HashMap<String, (u64, HashMap<String, u64>)>) -> Result<()> {
        let searcher = self.searcher()?;
        let facts = self.fact_docs_query(&searcher, clause)?;
        let shard_size = values_per_name + values_per_name / 2 + 10;
        let request: Aggregations = serde_json::from_value(json!({
            "names": {
                "terms": {"field": "kw.texta_facts.fact", "size": 100_000},
                "aggs": {"values": {"terms": {"field": "kw.texta_facts.str_val", "size": shard_size}}}
            }
        }))
        .map_err(backend_err)?;
        let context = AggContextParams::new(AggregationLimitsGuard::default(), self.index.tokenizers().clone());
        let result = searcher
            .search(&facts, &AggregationCollector::from_aggs(request, context))
            .map_err(backend_err)?;
        let result = serde_json::to_value(result).map_err(backend_err)?;
        for bucket in result["names"]["buckets"].as_array().into_iter().flatten() {
            let name = bucket_key(bucket);
            let entry = merged.entry(name).or_default();
            entry.0 += bucket["doc_count"].as_u64().unwrap_or(0);
            for value in bucket["values"]["buckets"].as_array().into_iter().flatten() {
                *entry.1.entry(bucket_key(value)).or_default() += value["doc_count"].as_u64().unwrap_or(0);
            }
        }
        Ok(())
    }

    /// Fact documents whose parent matches `clause` (all fact documents for match_all).
    fn fact_docs_query(&self, searcher: &Searcher, clause: &Value) -> Result<Box<dyn Query>> {
        let kind = kind_query(&self.fields, KIND_FACT);
        let is_match_all = clause.is_null() || clause.as_object().is_some_and(|o| o.is_empty() || o.contains_key("match_all"));
        if is_match_all {
            return Ok(kind);
        }
        let parents = self.doc_query(searcher, clause)?;
        let facts = BlockJoin::facts_of(parents, self.fields.kind);
        Ok(Box::new(BooleanQuery::intersection(vec![kind, Box::new(facts)])))
    }
}

fn bucket_key(bucket: &Value) -> String {
    match &bucket["key"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Orders names and values like an Elasticsearch terms aggregation (count desc, key asc) and
/// keeps `values_per_name` values per name.
fn rank_facts(merged: HashMap<String, (u64, HashMap<String, u64>)>, values_per_name: usize) -> Vec<FactCounts> {
    let mut names: Vec<FactCounts> = merged
        .into_iter()
        .map(|(name, (count, values))| {
            let mut values: Vec<FactValueCount> = values.into_iter().map(|(value, count)| FactValueCount { value, count }).collect();
            values.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(&b.value)));
            values.truncate(values_per_name);
            FactCounts { name, count, values }
        })
        .collect();
    names.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    names
}
