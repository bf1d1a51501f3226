//! The aggregation runner: runs the tantivy aggregations and counts that `aggs.rs` plans for a
//! search body's `aggs` over every searched index, and merges their results.

use std::sync::Arc;

use serde_json::{json, Value};
use tantivy::aggregation::agg_req::Aggregations;
use tantivy::aggregation::intermediate_agg_result::IntermediateAggregationResults;
use tantivy::aggregation::{AggContextParams, AggregationLimitsGuard, DistributedAggregationCollector};
use tantivy::collector::Count;
use tantivy::query::{BooleanQuery, Occur, Query};
use tantivy::Searcher;

use super::super::aggs;
use super::super::backend::{Result, SearchError};
use super::super::mapping::FieldTypes;
use super::{backend_err, lock, StoreIndex};

/// The search body's `aggs` over the documents matching `clause` in every index (see `aggs.rs`).
pub(super) fn run_aggs(handles: &[Arc<StoreIndex>], searchers: &[Searcher], clause: &Value, request: &Value) -> Result<Value> {
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

    fn all_docs(&self) -> Result<u64> {
        Ok(self.searchers.iter().map(Searcher::num_docs).sum())
    }
}
