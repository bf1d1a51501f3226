//! Aggregations (`aggs`) for the embedded store's search, in Elasticsearch's request and
//! response shapes.
//!
//! Most kinds run on tantivy's aggregation engine (terms, range, histogram, date_histogram
//! with `fixed_interval`, min, max, avg, sum, stats, percentiles, cardinality, top_hits, ...)
//! with each `field` mapped onto its `kw` fast column (`sort::fast_column`: `x.keyword`,
//! numbers, dates, booleans; text fields refused), one intermediate result per index merged
//! into the final one (`Runner`, implemented by the store).
//!
//! The kinds tantivy lacks are planned here, over *scopes* (the documents an aggregation
//! sees): `nested` on `texta_facts` (the fact documents of the matching documents),
//! `reverse_nested` (back to the documents having such facts), `filter`, `filters` and
//! `global`, each of which may hold any aggregations; `date_histogram` with a calendar
//! interval (`calendar.rs`); `significant_terms`, and `terms` holding any of these below it
//! (`terms.rs`: each bucket's planned aggregations run over the bucket's documents, and may
//! order the buckets). Date bounds of `range` and `date_range` take Elasticsearch's
//! milliseconds, dates and date math; `format` (a Joda pattern, `joda.rs`) writes the
//! `key_as_string` of date histograms and the `value_as_string` of min, max and avg of
//! dates. A planned kind under another tantivy kind (a `nested` inside `histogram`) is a bad
//! query naming both.

use serde_json::{json, Map, Value};
use tantivy::aggregation::agg_req::Aggregations;
use tantivy::time::macros::format_description;
use tantivy::time::{format_description::FormatItem, OffsetDateTime};

use super::backend::{Result, SearchError};
use super::date_math;
use super::mapping::{FieldTypes, FACTS_FIELD};
use super::sort::fast_column;

mod calendar;
mod terms;
use calendar::{calendar_histogram, calendar_unit, date_format, date_string};
pub use terms::jlh;

/// Elasticsearch's rendering of dates in results: three fractional digits.
const ES_FORMAT: &[FormatItem<'static>] = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

/// Epoch milliseconds as Elasticsearch's default date format (`strict_date_optional_time`)
/// renders them; an instant out of range stays a number.
pub fn es_date(millis: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .ok()
        .and_then(|at| at.format(ES_FORMAT).ok())
        .unwrap_or_else(|| millis.to_string())
}

/// The documents an aggregation sees: the top-level documents matching `clause`, or, with
/// `facts`, the fact documents of those documents that match every filter listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Scope {
    pub clause: Value,
    pub facts: Option<Vec<Value>>,
}

/// What a store provides: its field mappings, and tantivy aggregations and document counts
/// over a scope, across all the searched indices.
pub trait Runner {
    fn mappings(&self) -> &[FieldTypes];
    /// tantivy's final result (before `finish`) of `request` over the scope.
    fn run(&self, scope: &Scope, request: Aggregations) -> Result<Value>;
    fn count(&self, scope: &Scope) -> Result<u64>;
    /// Every indexed document, fact documents included (a significance background).
    fn all_docs(&self) -> Result<u64>;
}

fn bad(msg: impl Into<String>) -> SearchError {
    SearchError::BadQuery(msg.into())
}

/// The search body's `aggs` over the documents matching `clause`, in Elasticsearch's shape.
pub fn aggregate(runner: &dyn Runner, clause: &Value, request: &Value) -> Result<Value> {
    let scope = Scope {
        clause: clause.clone(),
        facts: None,
    };
    level(runner, &scope, request).map(Value::Object)
}

/// One aggregation of a request: its kind, the kind's body and its sub-aggregations.
struct Entry<'a> {
    kind: &'a str,
    body: &'a Value,
    subs: Option<&'a Value>,
}

fn entry<'a>(name: &str, spec: &'a Value) -> Result<Entry<'a>> {
    let obj = spec
        .as_object()
        .ok_or_else(|| bad(format!("aggregation [{name}] must be an object")))?;
    let subs = obj.get("aggs").or_else(|| obj.get("aggregations"));
    let mut kinds = obj.iter().filter(|(k, _)| !matches!(k.as_str(), "aggs" | "aggregations" | "meta"));
    let (kind, body) = kinds.next().ok_or_else(|| bad(format!("aggregation [{name}] has no type")))?;
    if let Some((other, _)) = kinds.next() {
        return Err(bad(format!("aggregation [{name}] has two types: [{kind}] and [{other}]")));
    }
    Ok(Entry { kind, body, subs })
}

/// Whether an entry is planned here (a scope kind, a calendar histogram, significant terms or
/// terms holding one of these), not by tantivy.
fn planned_here(e: &Entry) -> Result<bool> {
    Ok(matches!(
        e.kind,
        "nested" | "reverse_nested" | "filter" | "filters" | "global" | "significant_terms"
    ) || (e.kind == "date_histogram" && calendar_unit(e.body)?.is_some())
        || (e.kind == "terms" && terms::holds_planned(e)?))
}

/// The results of one level of aggregations over `scope`, in the request's order.
fn level(runner: &dyn Runner, scope: &Scope, request: &Value) -> Result<Map<String, Value>> {
    let requests = request.as_object().ok_or_else(|| bad("aggs must be an object"))?;
    let mut native = Map::new();
    let mut results = Map::new();
    for (name, spec) in requests {
        let e = entry(name, spec)?;
        if !planned_here(&e)? {
            if let Some(subs) = e.subs {
                refuse_planned(e.kind, subs)?;
            }
            native.insert(name.clone(), spec.clone());
            continue;
        }
        let result = match e.kind {
            "nested" => {
                let path = e.body.get("path").and_then(Value::as_str).unwrap_or_default();
                if path != FACTS_FIELD {
                    return Err(bad(format!("unsupported nested aggregation path: {path} (only {FACTS_FIELD})")));
                }
                if scope.facts.is_some() {
                    return Err(bad(format!("nested aggregation [{name}] is already inside {FACTS_FIELD}")));
                }
                let facts = Scope {
                    clause: scope.clause.clone(),
                    facts: Some(Vec::new()),
                };
                bucket(runner, &facts, e.subs)?
            }
            "reverse_nested" => {
                let Some(filters) = &scope.facts else {
                    return Err(bad(format!(
                        "reverse_nested aggregation [{name}] must be inside a nested aggregation"
                    )));
                };
                if e.body.get("path").is_some() {
                    return Err(bad(format!("reverse_nested aggregation [{name}]: a path is not supported")));
                }
                let having = json!({"nested": {"path": FACTS_FIELD, "query": {"bool": {"filter": filters}}}});
                let docs = Scope {
                    clause: both(&scope.clause, having),
                    facts: None,
                };
                bucket(runner, &docs, e.subs)?
            }
            "filter" => bucket(runner, &narrowed(scope, e.body), e.subs)?,
            "filters" => filters(runner, scope, name, &e)?,
            "global" => {
                let all = Scope {
                    clause: json!({"match_all": {}}),
                    facts: None,
                };
                bucket(runner, &all, e.subs)?
            }
            "terms" => terms::planned_terms(runner, scope, name, &e)?,
            "significant_terms" => terms::significant_terms(runner, scope, name, &e)?,
            _ => match calendar_unit(e.body)? {
                Some(unit) => calendar_histogram(runner, scope, name, &e, unit)?,
                None => return Err(bad(format!("aggregation [{name}] of type [{}] is not planned here", e.kind))),
            },
        };
        results.insert(name.clone(), result);
    }
    if !native.is_empty() {
        let native = Value::Object(native);
        let request = translate(&native, runner.mappings())?;
        if let Value::Object(found) = finish(&native, runner.run(scope, request)?, runner.mappings()) {
            results.extend(found);
        }
    }
    Ok(requests
        .keys()
        .filter_map(|name| results.remove(name).map(|r| (name.clone(), r)))
        .collect())
}

/// A planned kind under a tantivy kind is refused, naming both.
fn refuse_planned(parent: &str, subs: &Value) -> Result<()> {
    for (name, spec) in subs.as_object().ok_or_else(|| bad("aggs must be an object"))? {
        let e = entry(name, spec)?;
        if planned_here(&e)? {
            return Err(bad(format!(
                "unsupported aggs: a {} aggregation ([{name}]) inside a {parent} aggregation; put it at the top level or \
                 inside nested, reverse_nested, filter, filters, global or terms",
                e.kind
            )));
        }
        if let Some(inner) = e.subs {
            refuse_planned(e.kind, inner)?;
        }
    }
    Ok(())
}

fn both(clause: &Value, extra: Value) -> Value {
    json!({"bool": {"must": [clause, extra]}})
}

/// The scope further restricted by a query (on the facts, inside `nested`).
fn narrowed(scope: &Scope, filter: &Value) -> Scope {
    match &scope.facts {
        None => Scope {
            clause: both(&scope.clause, filter.clone()),
            facts: None,
        },
        Some(filters) => Scope {
            clause: scope.clause.clone(),
            facts: Some(filters.iter().chain([filter]).cloned().collect()),
        },
    }
}

/// A single-bucket result: the scope's document count and its sub-aggregations.
fn bucket(runner: &dyn Runner, scope: &Scope, subs: Option<&Value>) -> Result<Value> {
    let mut out = Map::new();
    out.insert("doc_count".into(), Value::from(runner.count(scope)?));
    if let Some(subs) = subs {
        out.extend(level(runner, scope, subs)?);
    }
    Ok(Value::Object(out))
}

/// `filters`: a bucket per query, keyed by name (an object of queries) or in order (an array).
fn filters(runner: &dyn Runner, scope: &Scope, name: &str, e: &Entry) -> Result<Value> {
    if let Some(option) = e.body.as_object().into_iter().flatten().map(|(k, _)| k).find(|k| *k != "filters") {
        return Err(bad(format!("unsupported filters aggregation option: {option}")));
    }
    let buckets = match e.body.get("filters") {
        Some(Value::Object(named)) => Value::Object(
            named
                .iter()
                .map(|(key, query)| Ok((key.clone(), bucket(runner, &narrowed(scope, query), e.subs)?)))
                .collect::<Result<_>>()?,
        ),
        Some(Value::Array(queries)) => Value::Array(
            queries
                .iter()
                .map(|query| bucket(runner, &narrowed(scope, query), e.subs))
                .collect::<Result<_>>()?,
        ),
        _ => {
            return Err(bad(format!(
                "filters aggregation [{name}] needs filters: an object or an array of queries"
            )))
        }
    };
    Ok(json!({ "buckets": buckets }))
}

fn millis(at: OffsetDateTime) -> i64 {
    i64::try_from(at.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

/// tantivy's date values are epoch nanoseconds.
fn nanos(at: OffsetDateTime) -> i64 {
    i64::try_from(at.unix_timestamp_nanos()).unwrap_or(i64::MAX)
}

fn from_nanos(value: f64) -> Option<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp_nanos(value as i128).ok()
}

/// The request with its fields mapped, checked against every index's mapping.
fn translate(aggs: &Value, mappings: &[FieldTypes]) -> Result<Aggregations> {
    let mapped = map_fields(aggs, mappings)?;
    serde_json::from_value(mapped).map_err(|e| SearchError::BadQuery(format!("unsupported aggs: {e}")))
}

/// Elasticsearch's shape for tantivy's results of `request` (as the client sent it), walked
/// side by side:
/// - a terms result always has `doc_count_error_upper_bound` (tantivy leaves it out at 0);
/// - a date histogram bucket's key is whole epoch milliseconds (tantivy gives a float), its
///   `key_as_string` in Elasticsearch's date format;
/// - a range over dates has one bucket per range (a segment without the column adds empty
///   twins keyed by numbers), `from`/`to` in milliseconds (tantivy: nanoseconds) and
///   Elasticsearch's strings and keys;
/// - min, max and avg of a date field are milliseconds with `value_as_string`.
fn finish(request: &Value, mut result: Value, mappings: &[FieldTypes]) -> Value {
    if let (Some(requests), Some(results)) = (request.as_object(), result.as_object_mut()) {
        for (name, spec) in requests {
            if let (Ok(e), Some(found)) = (entry(name, spec), results.get_mut(name)) {
                finish_one(&e, found, mappings);
            }
        }
    }
    result
}

fn finish_one(e: &Entry, result: &mut Value, mappings: &[FieldTypes]) {
    let Some(map) = result.as_object_mut() else { return };
    if map.contains_key("sum_other_doc_count") && !map.contains_key("doc_count_error_upper_bound") {
        map.insert("doc_count_error_upper_bound".into(), Value::from(0));
    }
    let field = e.body.get("field").and_then(Value::as_str).unwrap_or_default();
    let dated = e.kind == "date_range" || mappings.iter().any(|t| t.type_of(field) == Some("date"));
    // a bad format was refused when the request was translated
    let format = date_format(e.body).ok().flatten();
    match e.kind {
        "date_histogram" => {
            for bucket in map.get_mut("buckets").and_then(Value::as_array_mut).into_iter().flatten() {
                if let Some(millis) = bucket.get("key").and_then(Value::as_f64) {
                    bucket["key"] = Value::from(millis as i64);
                    bucket["key_as_string"] = Value::from(date_string(format.as_ref(), millis as i64));
                }
            }
        }
        "range" | "date_range" if dated => {
            if let Some(Value::Array(buckets)) = map.get_mut("buckets") {
                let custom: Vec<&Value> = e.body["ranges"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r.get("key"))
                    .collect();
                *buckets = date_range_buckets(std::mem::take(buckets), &custom);
            }
        }
        "min" | "max" | "avg" if dated => {
            if let Some(nanos) = map.get("value").and_then(Value::as_f64) {
                let millis = (nanos / 1e6).round();
                map.insert("value".into(), Value::from(millis));
                map.insert("value_as_string".into(), Value::from(date_string(format.as_ref(), millis as i64)));
            }
        }
        _ => {}
    }
    if let Some(subs) = e.subs {
        let buckets: Vec<&mut Value> = match map.get_mut("buckets") {
            Some(Value::Array(items)) => items.iter_mut().collect(),
            Some(Value::Object(named)) => named.values_mut().collect(),
            _ => Vec::new(),
        };
        for bucket in buckets {
            *bucket = finish(subs, std::mem::take(bucket), mappings);
        }
    }
}

/// Date range buckets: one per distinct range (the counted twin kept), bounds in milliseconds,
/// strings and keys as Elasticsearch writes them (a key the client gave is kept).
fn date_range_buckets(buckets: Vec<Value>, custom_keys: &[&Value]) -> Vec<Value> {
    let bounds = |b: &Value| (b.get("from").and_then(Value::as_f64), b.get("to").and_then(Value::as_f64));
    let mut kept: Vec<Value> = Vec::new();
    for bucket in buckets {
        match kept.iter_mut().find(|k| bounds(k) == bounds(&bucket)) {
            Some(twin) if twin["doc_count"].as_u64() < bucket["doc_count"].as_u64() => *twin = bucket,
            Some(_) => {}
            None => kept.push(bucket),
        }
    }
    for bucket in &mut kept {
        let Some(map) = bucket.as_object_mut() else { continue };
        let mut key = Vec::new();
        for (bound, text) in [("from", "from_as_string"), ("to", "to_as_string")] {
            match map.get(bound).and_then(Value::as_f64) {
                Some(nanos) => {
                    let millis = (nanos / 1e6).round() as i64;
                    map.insert(bound.into(), Value::from(millis as f64));
                    map.insert(text.into(), Value::from(es_date(millis)));
                    key.push(es_date(millis));
                }
                None => key.push("*".to_string()),
            }
        }
        if !map.get("key").is_some_and(|k| custom_keys.contains(&k)) {
            map.insert("key".into(), Value::from(key.join("-")));
        }
    }
    kept
}

/// The request in tantivy's terms: each `field` on its fast column, `date_range` and date
/// bounds of `range` in nanoseconds, the older fixed `interval` of `date_histogram` as
/// `fixed_interval`.
fn map_fields(value: &Value, mappings: &[FieldTypes]) -> Result<Value> {
    Ok(match value {
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (key, child) in map {
                let (key, child) = match (key.as_str(), child) {
                    ("field", Value::String(field)) => {
                        let mut column = None;
                        for types in mappings {
                            column = Some(fast_column(field, types)?.0);
                        }
                        (key.clone(), Value::String(column.unwrap_or_else(|| format!("kw.{field}"))))
                    }
                    ("range" | "date_range", Value::Object(body)) if body.contains_key("ranges") => {
                        let field = body.get("field").and_then(Value::as_str).unwrap_or_default();
                        let dated = key == "date_range" || mappings.iter().any(|t| t.type_of(field) == Some("date"));
                        let body = if dated { date_bounds(body)? } else { body.clone() };
                        ("range".to_string(), map_fields(&Value::Object(body), mappings)?)
                    }
                    ("date_histogram", Value::Object(body)) => {
                        let mut body = body.clone();
                        if let Some(interval) = body.shift_remove("interval") {
                            body.insert("fixed_interval".into(), interval);
                        }
                        // written by `finish`
                        body.shift_remove("format");
                        (key.clone(), map_fields(&Value::Object(body), mappings)?)
                    }
                    ("min" | "max" | "avg", Value::Object(body)) if body.contains_key("format") => {
                        let mut body = body.clone();
                        date_format(child)?;
                        body.shift_remove("format");
                        (key.clone(), map_fields(&Value::Object(body), mappings)?)
                    }
                    _ => (key.clone(), map_fields(child, mappings)?),
                };
                out.insert(key, child);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| map_fields(i, mappings)).collect::<Result<_>>()?),
        other => other.clone(),
    })
}

/// A date range body with its `from` and `to` (milliseconds, dates or date math) in
/// nanoseconds; `format` and `time_zone` other than UTC are refused.
fn date_bounds(body: &Map<String, Value>) -> Result<Map<String, Value>> {
    let mut body = body.clone();
    if let Some(zone) = body
        .get("time_zone")
        .filter(|z| !matches!(z.as_str(), Some("UTC" | "Z" | "+00:00")))
    {
        return Err(bad(format!("unsupported date range option: time_zone {zone} (dates are UTC)")));
    }
    if body.contains_key("format") {
        return Err(bad("unsupported date range option: format"));
    }
    body.shift_remove("time_zone");
    let now = OffsetDateTime::now_utc();
    if let Some(Value::Array(ranges)) = body.get_mut("ranges") {
        for range in ranges.iter_mut().filter_map(Value::as_object_mut) {
            for bound in ["from", "to"] {
                let at = match range.get(bound) {
                    None | Some(Value::Null) => continue,
                    Some(Value::Number(n)) => n
                        .as_i64()
                        .map(|ms| i128::from(ms) * 1_000_000)
                        .or_else(|| n.as_f64().map(|ms| (ms * 1e6) as i128))
                        .and_then(|ns| OffsetDateTime::from_unix_timestamp_nanos(ns).ok()),
                    Some(Value::String(s)) => date_math::evaluate(s, now, false, date_math::parse_date)
                        .map_err(bad)?
                        .or_else(|| date_math::parse_date(s)),
                    Some(_) => None,
                };
                let at = at.ok_or_else(|| bad(format!("invalid date range bound: {}", range[bound])))?;
                range.insert(bound.into(), Value::from(nanos(at)));
            }
        }
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::{map_fields, translate};
    use crate::mapping::FieldTypes;
    use serde_json::json;

    #[test]
    fn results_take_elasticsearch_shape() {
        let request = json!({"t": {"terms": {"field": "label.keyword"}}, "h": {"date_histogram": {"field": "d", "fixed_interval": "1d"}}});
        let tantivy = json!({"t": {"buckets": [], "sum_other_doc_count": 0},
                             "h": {"buckets": [{"key_as_string": "2020-01-01T00:00:00Z", "key": 1577836800000.0, "doc_count": 1}]}});
        assert_eq!(
            super::finish(&request, tantivy, &[]),
            json!({"t": {"buckets": [], "sum_other_doc_count": 0, "doc_count_error_upper_bound": 0},
                   "h": {"buckets": [{"key_as_string": "2020-01-01T00:00:00.000Z", "key": 1577836800000i64, "doc_count": 1}]}})
        );
    }

    #[test]
    fn fields_map_to_fast_columns_and_text_fields_are_refused() {
        let mut types = FieldTypes::default();
        types.observe(&sonic_rs::json!({"title": "x", "n": 1}));
        let request = json!({"by_label": {"terms": {"field": "label.keyword"}, "aggs": {"mean": {"avg": {"field": "n"}}}}});
        assert_eq!(
            map_fields(&request, std::slice::from_ref(&types)).unwrap(),
            json!({"by_label": {"terms": {"field": "kw.label"}, "aggs": {"mean": {"avg": {"field": "kw.n"}}}}})
        );
        assert!(translate(&request, std::slice::from_ref(&types)).is_ok());
        let err = translate(&json!({"t": {"terms": {"field": "title"}}}), std::slice::from_ref(&types)).unwrap_err();
        assert!(err.to_string().contains("use [title.keyword]"), "{err}");
        let err = translate(&json!({"f": {"nested": {"path": "texta_facts"}}}), &[types]).unwrap_err();
        assert!(err.to_string().contains("unsupported aggs"), "{err}");
    }
}
