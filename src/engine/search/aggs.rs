//! Aggregations (`aggs`) for the embedded store's search: Elasticsearch's request with each
//! `field` mapped onto its `kw` fast column (`sort::fast_column`: `x.keyword`, numbers, dates,
//! booleans; text fields refused), run by tantivy's aggregation engine (terms, range,
//! histogram, date_histogram, min, max, avg, sum, stats, percentiles, cardinality, top_hits,
//! ...), one intermediate result per index merged into the final one. Results come back under
//! the request's names in Elasticsearch's shape. An aggregation tantivy lacks (`nested`,
//! `filter`, ...) is a bad query naming it.

use serde_json::{Map, Value};
use tantivy::aggregation::agg_req::Aggregations;

use super::backend::{Result, SearchError};
use super::mapping::FieldTypes;
use super::sort::fast_column;

/// The request with its fields mapped, checked against every index's mapping.
pub fn translate(aggs: &Value, mappings: &[FieldTypes]) -> Result<Aggregations> {
    let mapped = map_fields(aggs, mappings)?;
    serde_json::from_value(mapped).map_err(|e| SearchError::BadQuery(format!("unsupported aggs: {e}")))
}

/// Elasticsearch's shape for tantivy's results: a terms result always has
/// `doc_count_error_upper_bound` (tantivy leaves it out when it is 0), and a date bucket's
/// key is whole epoch milliseconds (tantivy gives a float).
pub fn finish(mut result: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if map.contains_key("sum_other_doc_count") && !map.contains_key("doc_count_error_upper_bound") {
                    map.insert("doc_count_error_upper_bound".into(), Value::from(0));
                }
                if map.contains_key("key_as_string") {
                    if let Some(millis) = map.get("key").and_then(Value::as_f64).filter(|k| k.fract() == 0.0) {
                        map.insert("key".into(), Value::from(millis as i64));
                    }
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut result);
    result
}

fn map_fields(value: &Value, mappings: &[FieldTypes]) -> Result<Value> {
    Ok(match value {
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (key, child) in map {
                let child = match (key.as_str(), child) {
                    ("field", Value::String(field)) => {
                        let mut column = None;
                        for types in mappings {
                            column = Some(fast_column(field, types)?.0);
                        }
                        Value::String(column.unwrap_or_else(|| format!("kw.{field}")))
                    }
                    _ => map_fields(child, mappings)?,
                };
                out.insert(key.clone(), child);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| map_fields(i, mappings)).collect::<Result<_>>()?),
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::{map_fields, translate};
    use crate::engine::search::mapping::FieldTypes;
    use serde_json::json;

    #[test]
    fn results_take_elasticsearch_shape() {
        let tantivy = json!({"t": {"buckets": [], "sum_other_doc_count": 0},
                             "h": {"buckets": [{"key_as_string": "2020-01-01T00:00:00Z", "key": 1577836800000.0, "doc_count": 1}]}});
        assert_eq!(
            super::finish(tantivy),
            json!({"t": {"buckets": [], "sum_other_doc_count": 0, "doc_count_error_upper_bound": 0},
                   "h": {"buckets": [{"key_as_string": "2020-01-01T00:00:00Z", "key": 1577836800000i64, "doc_count": 1}]}})
        );
    }

    #[test]
    fn fields_map_to_fast_columns_and_text_fields_are_refused() {
        let mut types = FieldTypes::default();
        types.observe(&json!({"title": "x", "n": 1}));
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
