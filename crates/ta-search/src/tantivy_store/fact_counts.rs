//! Fact counts (`SearchBackend::facts`): the fact names and their most frequent values over the
//! documents matching a query, counted by terms aggregations over the fact documents.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Value};
use tantivy::aggregation::agg_req::Aggregations;
use tantivy::aggregation::{AggContextParams, AggregationCollector, AggregationLimitsGuard};
use tantivy::query::{BooleanQuery, Query};
use tantivy::Searcher;

use super::super::backend::{query_clause, FactCounts, FactValueCount, Result};
use super::super::block_join::BlockJoin;
use super::super::dsl::{kind_query, KIND_FACT};
use super::{backend_err, StoreIndex};

/// Fact names ranked by how many fact documents have them, with their `values_per_name` most
/// frequent values, over the documents matching `query` in every index.
pub(super) fn count_facts(handles: &[Arc<StoreIndex>], query: &Value, values_per_name: usize) -> Result<Vec<FactCounts>> {
    let clause = query_clause(query);
    let mut merged: HashMap<String, (u64, HashMap<String, u64>)> = HashMap::new();
    for handle in handles {
        handle.fact_counts(clause, values_per_name, &mut merged)?;
    }
    Ok(rank_facts(merged, values_per_name))
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
    pub(super) fn fact_docs_query(&self, searcher: &Searcher, clause: &Value) -> Result<Box<dyn Query>> {
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
