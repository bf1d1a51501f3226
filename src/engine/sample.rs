//! The data sample of `models.md` 0.3: training examples drawn from a project's indices.
//! Positives are the documents matching a query (in the store's order, up to a maximum);
//! negatives a seeded uniform sample of the other documents of the same indices; the classes of
//! a fact are its values found by aggregation, counted in distinct documents.
use super::error::{Error, Result};
use super::lines::flat_get;
use super::Engine;
use rand::{RngExt, SeedableRng};
use serde_json::{json, Value};
use std::collections::HashSet;

/// Seed of the negative sample (`models.md` 0.3 DECISION).
const SAMPLE_SEED: u64 = 42;
/// Documents read per batch while sampling.
pub const SCAN_BATCH: usize = 1000;
/// Most fact values considered as classes (the reference's aggregation size).
const MAX_FACT_VALUES: usize = 10_000;

/// A document's place: (index, id).
pub type DocKey = (String, String);

/// Documents drawn by a query: each one's field texts, and the set of their keys.
#[derive(Default)]
pub struct Drawn {
    pub texts: Vec<Vec<String>>,
    pub keys: HashSet<DocKey>,
}

/// A document's text for each field (missing: `""`; non-strings in their JSON form).
pub fn field_texts(doc: &Value, fields: &[String]) -> Vec<String> {
    fields
        .iter()
        .map(|f| match flat_get(doc, f) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        })
        .collect()
}

/// The query of the documents holding fact `name` with value `value`.
pub fn fact_query(name: &str, value: &str) -> Value {
    json!({"query": {"nested": {"path": "texta_facts", "query": {"bool": {"must": [
        {"term": {"texta_facts.fact": name}},
        {"term": {"texta_facts.str_val": value}}
    ]}}}}})
}

impl Engine {
    /// Up to `max` documents of `indices` matching `query`, in the store's order.
    pub fn sample_matching(&self, indices: &[String], query: &Value, fields: &[String], max: usize) -> Result<Drawn> {
        let mut drawn = Drawn::default();
        self.scan_documents(indices, query, SCAN_BATCH, &mut |hits| {
            for hit in hits {
                if drawn.texts.len() < max {
                    drawn.keys.insert((hit.index.clone(), hit.id.clone()));
                    drawn.texts.push(field_texts(&hit.source, fields));
                }
            }
            Ok(())
        })?;
        Ok(drawn)
    }

    /// A seeded uniform sample of `want` documents of `indices` outside `exclude` (reservoir
    /// sampling: every such document is equally likely).
    pub fn sample_others(&self, indices: &[String], exclude: &HashSet<DocKey>, fields: &[String], want: usize) -> Result<Vec<Vec<String>>> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(SAMPLE_SEED);
        let (mut out, mut seen) = (Vec::with_capacity(want.min(1 << 20)), 0usize);
        self.scan_documents(indices, &json!({"query": {"match_all": {}}}), SCAN_BATCH, &mut |hits| {
            for hit in hits {
                if exclude.contains(&(hit.index.clone(), hit.id.clone())) {
                    continue;
                }
                seen += 1;
                if out.len() < want {
                    out.push(field_texts(&hit.source, fields));
                } else {
                    let j = rng.random_range(0..seen);
                    if j < want {
                        out[j] = field_texts(&hit.source, fields);
                    }
                }
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The values of fact `name` in `indices` held by at least `min` distinct documents, with
    /// that number, most documents first (ties: the store's term order); at most 10 000
    /// values are considered. The aggregation counts occurrences, an upper bound of the
    /// documents, so only values it leaves possible are counted exactly.
    pub fn fact_values(&self, indices: &[String], name: &str, min: u64) -> Result<Vec<(String, u64)>> {
        let body = json!({"size": 0, "aggs": {"facts": {"nested": {"path": "texta_facts"}, "aggs": {
            "named": {"filter": {"term": {"texta_facts.fact": name}}, "aggs": {
                "values": {"terms": {"field": "texta_facts.str_val", "size": MAX_FACT_VALUES}}
            }}
        }}}});
        let answer = self.search.search(indices, &body)?;
        let buckets = answer["aggregations"]["facts"]["named"]["values"]["buckets"]
            .as_array()
            .ok_or_else(|| Error::Internal("the fact aggregation gave no buckets".into()))?;
        let mut values = Vec::new();
        for b in buckets {
            if b["doc_count"].as_u64().unwrap_or(0) < min {
                continue;
            }
            let value = match &b["key"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let documents = self.search.count(indices, &fact_query(name, &value)["query"])?;
            if documents >= min {
                values.push((value, documents));
            }
        }
        values.sort_by_key(|v| std::cmp::Reverse(v.1));
        Ok(values)
    }
}
