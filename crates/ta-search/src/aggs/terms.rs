//! Term buckets planned here rather than by tantivy:
//! - `terms` holding aggregations tantivy lacks (`reverse_nested`, `filter`, `nested`,
//!   calendar histograms, ... at any depth below): tantivy finds the buckets (and their own
//!   sub-aggregations), then each planned one runs over the bucket's documents (the scope
//!   narrowed by the bucket's key). An `order` on such an aggregation (`"rev.doc_count"`,
//!   `"rev"`, `"rev>inner.value"`) sorts all the buckets by it, then by key ascending, as
//!   Elasticsearch breaks ties, before `size` keeps the first ones.
//! - `significant_terms`: the scope's terms scored against the whole index with
//!   Elasticsearch's default JLH heuristic (or `percentage`), each bucket with its `score` and
//!   `bg_count`; the background size counts every indexed document, fact documents included,
//!   as Lucene's `maxDoc` does under Elasticsearch's nested documents.

use std::cmp::Ordering;

use serde_json::{json, Map, Value};

use super::super::backend::Result;
use super::{bad, entry, finish, level, narrowed, planned_here, translate, Entry, Runner, Scope};

/// Most terms fetched when every bucket is needed (Elasticsearch's `search.max_buckets`).
const ALL_TERMS: u32 = 65_536;

/// Whether a `terms` aggregation has aggregations below it that are planned here.
pub(super) fn holds_planned(e: &Entry) -> Result<bool> {
    let Some(subs) = e.subs.and_then(Value::as_object) else {
        return Ok(false);
    };
    for (name, spec) in subs {
        if planned_here(&entry(name, spec)?)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// One `order` entry: a bucket path and whether it descends.
fn order_of(body: &Value) -> Result<Vec<(String, bool)>> {
    let entries: Vec<&Value> = match body.get("order") {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items.iter().collect(),
        Some(one) => vec![one],
    };
    let mut order = Vec::new();
    for item in entries {
        let map = item
            .as_object()
            .ok_or_else(|| bad(format!("[order] must be an object, got {item}")))?;
        for (path, direction) in map {
            let desc = match direction.as_str().map(str::to_ascii_lowercase).as_deref() {
                Some("desc") => true,
                Some("asc") => false,
                _ => return Err(bad(format!("Unknown terms order direction [{direction}] in terms aggregation"))),
            };
            order.push((path.clone(), desc));
        }
    }
    Ok(order)
}

/// The value a bucket path reads: `_count`, `_key`, or aggregation names joined by `>`, the
/// last one with an optional `.value`/`.doc_count`/metric key (a single-bucket aggregation
/// reads its `doc_count`).
fn path_value(bucket: &Value, path: &str) -> Result<Value> {
    match path {
        "_count" => return Ok(bucket["doc_count"].clone()),
        "_key" | "_term" => return Ok(bucket["key"].clone()),
        _ => {}
    }
    let invalid = |why: &str| bad(format!("Invalid aggregation order path [{path}]. {why}"));
    let mut at = bucket;
    let steps: Vec<&str> = path.split('>').collect();
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        let (name, key) = match step.split_once('.') {
            Some((name, key)) if last => (name, Some(key)),
            _ => (*step, None),
        };
        at = at
            .get(name)
            .ok_or_else(|| invalid(&format!("Cannot find an aggregation named [{name}]")))?;
        if at.get("buckets").is_some() {
            return Err(invalid(
                "Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket \
                 aggregations within the path and a final single-bucket or a metrics aggregation at the path end.",
            ));
        }
        if last {
            let key = match key {
                Some("_count") => "doc_count",
                Some(key) => key,
                None if at.get("doc_count").is_some() => "doc_count",
                None => "value",
            };
            return at
                .get(key)
                .cloned()
                .ok_or_else(|| invalid(&format!("Unknown value key [{key}] for aggregation [{name}]")));
        }
    }
    Err(invalid("It is empty"))
}

fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::String(a), Value::String(b)) => a.cmp(b),
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Greater,
        (_, Value::Null) => Ordering::Less,
        _ => a.as_f64().unwrap_or(f64::NAN).total_cmp(&b.as_f64().unwrap_or(f64::NAN)),
    }
}

/// The query narrowing a scope to one bucket of a term-keyed aggregation on `field`.
fn bucket_filter(runner: &dyn Runner, field: &str, bucket: &Value) -> Value {
    let dated = runner.mappings().iter().any(|t| t.type_of(field) == Some("date"));
    match (bucket.get("key_as_string"), &bucket["key"]) {
        (Some(text), _) if dated => json!({"range": {field: {"gte": text, "lte": text}}}),
        (Some(Value::String(text)), _) if matches!(text.as_str(), "true" | "false") => json!({"term": {field: text == "true"}}),
        (_, key) => json!({"term": {field: key}}),
    }
}

/// A `terms` aggregation with planned aggregations below it (see the module comment).
pub(super) fn planned_terms(runner: &dyn Runner, scope: &Scope, name: &str, e: &Entry) -> Result<Value> {
    let mut body = e
        .body
        .as_object()
        .cloned()
        .ok_or_else(|| bad(format!("terms aggregation [{name}] must be an object")))?;
    let field = body
        .get("field")
        .and_then(Value::as_str)
        .ok_or_else(|| bad(format!("terms aggregation [{name}] needs a field")))?
        .to_string();
    if body.contains_key("missing") || body.contains_key("script") {
        return Err(bad(format!(
            "unsupported terms option with nested, reverse_nested, filter or calendar aggregations below: missing/script ([{name}])"
        )));
    }
    let (mut native_subs, mut planned) = (Map::new(), Map::new());
    for (sub, spec) in e.subs.and_then(Value::as_object).into_iter().flatten() {
        if planned_here(&entry(sub, spec)?)? {
            planned.insert(sub.clone(), spec.clone());
        } else {
            native_subs.insert(sub.clone(), spec.clone());
        }
    }
    let order = order_of(e.body)?;
    let sorted_here = order
        .iter()
        .any(|(path, _)| planned.contains_key(path.split(['>', '.']).next().unwrap_or_default()));
    let size = match body.get("size") {
        None => 10,
        Some(v) => v
            .as_u64()
            .ok_or_else(|| bad(format!("[size] must be a positive integer in [{name}]")))?,
    };
    if sorted_here {
        for key in ["order", "size", "shard_size", "split_size", "segment_size"] {
            body.shift_remove(key);
        }
        body.insert("size".into(), Value::from(ALL_TERMS));
        body.insert("shard_size".into(), Value::from(ALL_TERMS));
    }
    let mut request = json!({ "terms": body });
    if !native_subs.is_empty() {
        request["aggs"] = Value::Object(native_subs);
    }
    let request = json!({ "t": request });
    let mut result = finish(
        &request,
        runner.run(scope, translate(&request, runner.mappings())?)?,
        runner.mappings(),
    )["t"]
        .take();
    let mut buckets = match result.get_mut("buckets").map(Value::take) {
        Some(Value::Array(buckets)) => buckets,
        _ => Vec::new(),
    };
    for bucket in &mut buckets {
        let within = narrowed(scope, &bucket_filter(runner, &field, bucket));
        let found = level(runner, &within, &Value::Object(planned.clone()))?;
        if let Some(map) = bucket.as_object_mut() {
            map.extend(found);
        }
    }
    if sorted_here {
        if result["sum_other_doc_count"].as_u64().unwrap_or(0) > 0 {
            return Err(bad(format!(
                "terms aggregation [{name}] has more than {ALL_TERMS} terms to order by a sub-aggregation; narrow the query"
            )));
        }
        let mut keyed = Vec::with_capacity(buckets.len());
        for bucket in buckets {
            let values = order
                .iter()
                .map(|(path, _)| path_value(&bucket, path))
                .collect::<Result<Vec<_>>>()?;
            keyed.push((values, bucket));
        }
        keyed.sort_by(|(a, x), (b, y)| {
            order
                .iter()
                .zip(a.iter().zip(b))
                .map(|((_, desc), (a, b))| if *desc { compare(b, a) } else { compare(a, b) })
                .find(|o| o.is_ne())
                .unwrap_or_else(|| compare(&x["key"], &y["key"]))
        });
        let kept = usize::try_from(size).unwrap_or(usize::MAX);
        let other: u64 = keyed.iter().skip(kept).map(|(_, b)| b["doc_count"].as_u64().unwrap_or(0)).sum();
        buckets = keyed.into_iter().take(kept).map(|(_, b)| b).collect();
        result["sum_other_doc_count"] = Value::from(other);
    }
    result["buckets"] = Value::Array(buckets);
    Ok(result)
}

/// `significant_terms` (see the module comment).
pub(super) fn significant_terms(runner: &dyn Runner, scope: &Scope, name: &str, e: &Entry) -> Result<Value> {
    let body = e
        .body
        .as_object()
        .ok_or_else(|| bad(format!("significant_terms aggregation [{name}] must be an object")))?;
    let mut percentage = false;
    for (key, value) in body {
        match key.as_str() {
            "field" | "size" | "shard_size" | "min_doc_count" | "shard_min_doc_count" | "jlh" => {}
            "percentage" => percentage = true,
            _ => return Err(bad(format!("unsupported significant_terms option: {key}"))),
        }
        if matches!(key.as_str(), "size" | "shard_size" | "min_doc_count" | "shard_min_doc_count") && value.as_u64().is_none() {
            return Err(bad(format!("[{key}] must be a non-negative integer in [{name}]")));
        }
    }
    let field = body
        .get("field")
        .and_then(Value::as_str)
        .ok_or_else(|| bad(format!("significant_terms aggregation [{name}] needs a field")))?;
    let size = body.get("size").and_then(Value::as_u64).unwrap_or(10);
    let min_doc_count = body.get("min_doc_count").and_then(Value::as_u64).unwrap_or(3);
    let request = json!({"t": {"terms": {"field": field, "size": ALL_TERMS, "shard_size": ALL_TERMS}}});
    let found = finish(
        &request,
        runner.run(scope, translate(&request, runner.mappings())?)?,
        runner.mappings(),
    );
    let subset_size = runner.count(scope)?;
    let superset_size = runner.all_docs()?;
    let background = Scope {
        clause: json!({"match_all": {}}),
        facts: scope.facts.as_ref().map(|_| Vec::new()),
    };
    let mut scored = Vec::new();
    for bucket in found["t"]["buckets"].as_array().into_iter().flatten() {
        let subset_freq = bucket["doc_count"].as_u64().unwrap_or(0);
        if subset_freq < min_doc_count {
            continue;
        }
        let superset_freq = runner.count(&narrowed(&background, &bucket_filter(runner, field, bucket)))?;
        let score = score(percentage, subset_freq, subset_size, superset_freq, superset_size);
        if score > 0.0 {
            scored.push((score, superset_freq, bucket));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| compare(&a.2["key"], &b.2["key"])));
    scored.truncate(usize::try_from(size).unwrap_or(usize::MAX));
    let mut buckets = Vec::with_capacity(scored.len());
    for (score, bg_count, bucket) in scored {
        let mut out = Map::new();
        out.insert("key".into(), bucket["key"].clone());
        out.insert("doc_count".into(), bucket["doc_count"].clone());
        out.insert("score".into(), Value::from(score));
        out.insert("bg_count".into(), Value::from(bg_count));
        if let Some(subs) = e.subs {
            out.extend(level(runner, &narrowed(scope, &bucket_filter(runner, field, bucket)), subs)?);
        }
        buckets.push(Value::Object(out));
    }
    Ok(json!({"doc_count": subset_size, "bg_count": superset_size, "buckets": buckets}))
}

/// Elasticsearch's significance heuristics: JLH (the default) or percentage.
fn score(percentage: bool, subset_freq: u64, subset_size: u64, superset_freq: u64, superset_size: u64) -> f64 {
    if percentage {
        return if superset_freq == 0 {
            0.0
        } else {
            subset_freq as f64 / superset_freq as f64
        };
    }
    jlh(subset_freq, subset_size, superset_freq, superset_size)
}

/// Elasticsearch's JLH score of a term found in `subset_freq` of `subset_size` documents
/// and in `superset_freq` of `superset_size` in the background; 0 when it is not more
/// frequent in the subset.
pub fn jlh(subset_freq: u64, subset_size: u64, superset_freq: u64, superset_size: u64) -> f64 {
    if subset_size == 0 || superset_size == 0 {
        return 0.0;
    }
    let subset = subset_freq as f64 / subset_size as f64;
    let superset = superset_freq.max(1) as f64 / superset_size as f64;
    let change = subset - superset;
    if change <= 0.0 {
        return 0.0;
    }
    change * (subset / superset)
}
