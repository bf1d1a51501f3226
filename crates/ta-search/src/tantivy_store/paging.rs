//! Search pages: a search body's hits (`from`/`size`, by relevance or by `sort`), with their
//! highlights, filtered `_source` and the body's aggregations; and scans, which stream every
//! matching document in batches (what scrolls are served from).

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};
use tantivy::collector::{Count, TopDocs};
use tantivy::query::EnableScoring;
use tantivy::{DocAddress, DocSet, Searcher, TantivyDocument, TERMINATED};

use super::super::backend::{Hit, Result, SearchError};
use super::super::highlight::Highlighter;
use super::super::sort;
use super::agg_runner::run_aggs;
use super::source_filter::filter_source;
use super::{backend_err, lock, text_analyzer, StoreIndex, TantivyBackend};

impl TantivyBackend {
    /// `SearchBackend::search`: one page of hits of a search body over `indices`.
    pub(super) fn search_page(&self, indices: &[String], body: &Value) -> Result<Value> {
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
}

impl StoreIndex {
    /// `SearchBackend::scan` over this index: every document matching `clause`, handed to
    /// `sink` in batches of `batch_size`.
    pub(super) fn scan(&self, clause: &Value, batch_size: usize, sink: &mut dyn FnMut(Vec<Hit>) -> Result<()>) -> Result<()> {
        let searcher = self.searcher()?;
        let query = self.doc_query(&searcher, clause)?;
        let mut batch = Vec::with_capacity(batch_size);
        let mut store: Option<(tantivy::index::SegmentId, tantivy::store::StoreReader)> = None;
        self.for_each_match(&searcher, query.as_ref(), &mut |segment, doc| {
            let segment_id = segment.segment_id();
            if store.as_ref().is_none_or(|(id, _)| *id != segment_id) {
                store = Some((segment_id, segment.get_store_reader(16).map_err(backend_err)?));
            }
            let (_, reader) = store.as_ref().expect("store reader just opened");
            let doc: TantivyDocument = reader.get(doc).map_err(backend_err)?;
            batch.push(self.hit_from(doc, None)?);
            if batch.len() >= batch_size {
                sink(std::mem::replace(&mut batch, Vec::with_capacity(batch_size)))?;
            }
            Ok(true)
        })?;
        if !batch.is_empty() {
            sink(batch)?;
        }
        Ok(())
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
