//! The data sample of `models.md` 0.3: training examples drawn from a project's indices.
//! Positives are the documents matching a query (in the store's order, up to a maximum);
//! negatives a seeded uniform sample of the other documents of the same indices; the classes of
//! a fact are its values found by aggregation, counted in distinct documents.
//! Both are chosen and ordered by the documents' texts, never by their ids (random at import) or
//! by the order the store yields them in (which a multi-threaded import varies), so one
//! collection, however imported, always trains the same model.
use super::error::{Error, Result};
use super::lines::flat_get;
use super::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::{BinaryHeap, HashSet};

/// Seed of the negative sample (`models.md` 0.3 DECISION).
const SAMPLE_SEED: u64 = 42;
/// Documents read per batch while sampling.
pub const SCAN_BATCH: usize = 1000;
/// Most fact values considered as classes (the reference's aggregation size).
const MAX_FACT_VALUES: usize = 10_000;

/// A document's draw in the negative sample: the first 8 bytes of SHA-256 over the seed and its
/// field texts, uniform and the same on every run.
fn draw(texts: &[String]) -> u64 {
    let mut hasher = Sha256::new().chain_update(SAMPLE_SEED.to_le_bytes());
    for text in texts {
        hasher.update((text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    }
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first)
}

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
    /// Up to `max` documents of `indices` matching `query`, taken in the store's order and
    /// given in the order of their texts.
    pub fn sample_matching(&self, indices: &[String], query: &Value, fields: &[String], max: usize) -> Result<Drawn> {
        let mut taken: Vec<(DocKey, Vec<String>)> = Vec::new();
        self.scan_documents(indices, query, SCAN_BATCH, &mut |hits| {
            for hit in hits {
                if taken.len() < max {
                    taken.push(((hit.index.clone(), hit.id.clone()), field_texts(&hit.source, fields)));
                }
            }
            Ok(())
        })?;
        taken.sort_unstable_by(|a, b| a.1.cmp(&b.1));
        let keys = taken.iter().map(|(key, _)| key.clone()).collect();
        Ok(Drawn {
            texts: taken.into_iter().map(|(_, texts)| texts).collect(),
            keys,
        })
    }

    /// A seeded uniform sample of `want` documents of `indices` outside `exclude`: the `want`
    /// documents of smallest draw (every such text is equally likely, whatever the order the
    /// store yields them in), in draw order.
    pub fn sample_others(&self, indices: &[String], exclude: &HashSet<DocKey>, fields: &[String], want: usize) -> Result<Vec<Vec<String>>> {
        let mut kept: BinaryHeap<(u64, Vec<String>)> = BinaryHeap::with_capacity(want.min(1 << 20) + 1);
        self.scan_documents(indices, &json!({"query": {"match_all": {}}}), SCAN_BATCH, &mut |hits| {
            for hit in hits {
                if want == 0 || exclude.contains(&(hit.index.clone(), hit.id.clone())) {
                    continue;
                }
                let texts = field_texts(&hit.source, fields);
                let d = draw(&texts);
                if kept.len() < want {
                    kept.push((d, texts));
                } else if kept.peek().is_some_and(|top| (d, &texts) < (top.0, &top.1)) {
                    kept.pop();
                    kept.push((d, texts));
                }
            }
            Ok(())
        })?;
        Ok(kept.into_sorted_vec().into_iter().map(|(_, texts)| texts).collect())
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
