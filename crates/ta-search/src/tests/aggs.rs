//! Aggregations through the embedded backend, answered in Elasticsearch's shapes: terms,
//! stats and histograms, the nested/filter/global/reverse_nested scopes and calendar
//! histograms.
use super::*;

#[test]
fn aggregations_are_elasticsearch_shaped() {
    let (_dir, backend) = corpus_store("aggs");
    backend
        .bulk_index(
            "second",
            vec![Doc {
                id: Some("s1".into()),
                source: json!({"label": "muu", "n": 1}),
            }],
        )
        .unwrap();
    let both = vec!["corpus".to_string(), "second".to_string()];
    let body = json!({
        "size": 0,
        "aggs": {
            "labels": {"terms": {"field": "label.keyword", "order": {"_key": "asc"}}},
            "n_stats": {"stats": {"field": "n"}}
        }
    });
    let response = backend.search(&both, &body).unwrap();
    assert_eq!(response["hits"]["hits"], json!([]));
    let labels = &response["aggregations"]["labels"];
    assert_eq!(
        labels["buckets"],
        json!([
            {"key": "kiirabi", "doc_count": 1}, {"key": "muu", "doc_count": 2},
            {"key": "politsei", "doc_count": 1}, {"key": "tuletõrje", "doc_count": 1}
        ])
    );
    assert_eq!(
        (labels["sum_other_doc_count"].clone(), labels["doc_count_error_upper_bound"].clone()),
        (json!(0), json!(0))
    );
    let stats = &response["aggregations"]["n_stats"];
    assert_eq!(
        (stats["count"].clone(), stats["min"].clone(), stats["max"].clone()),
        (json!(4), json!(1.0), json!(10.0))
    );
    let matched = json!({"query": {"match": {"text": "varas"}}, "aggs": {"labels": {"terms": {"field": "label.keyword"}}}});
    let response = backend.search(&both, &matched).unwrap();
    let mut keys: Vec<String> = response["aggregations"]["labels"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["key"].as_str().unwrap().to_string())
        .collect();
    keys.sort();
    assert_eq!(keys, ["muu", "politsei"], "only the matching documents, no fact documents");
    let err = backend
        .search(&both, &json!({"aggs": {"t": {"terms": {"field": "text"}}}}))
        .unwrap_err();
    assert!(
        matches!(&err, SearchError::BadQuery(m) if m.contains("use [text.keyword]")),
        "{err}"
    );
}

#[test]
fn scope_aggregations_and_calendar_histograms_are_elasticsearch_shaped() {
    let (_dir, backend) = corpus_store("scope-aggs");
    // a segment of its own without the date column
    let undated = Doc {
        id: Some("d5".into()),
        source: json!({"label": "muu"}),
    };
    backend.bulk_index("corpus", vec![undated]).unwrap();
    let corpus = vec!["corpus".to_string()];
    let body = json!({"size": 0, "aggs": {
        "facts": {"nested": {"path": "texta_facts"}, "aggs": {
            "names": {"terms": {"field": "texta_facts.fact", "order": {"_key": "asc"}}, "aggs": {
                "values": {"terms": {"field": "texta_facts.str_val", "order": {"_key": "asc"}}}
            }},
            "mari": {"filter": {"term": {"texta_facts.str_val": "Mari Tamm"}}, "aggs": {
                "docs": {"reverse_nested": {}, "aggs": {"labels": {"terms": {"field": "label.keyword", "order": {"_key": "asc"}}}}}
            }}
        }},
        "numbered": {"filter": {"exists": {"field": "n"}}, "aggs": {"most": {"max": {"field": "n"}}}},
        "split": {"filters": {"filters": {"thief": {"match": {"text": "varas"}}, "fire": {"match": {"text": "põleng"}}}}},
        "everything": {"global": {}},
        "yearly": {"date_histogram": {"field": "date", "calendar_interval": "year"}, "aggs": {"labels": {"terms": {"field": "label.keyword"}}}},
        "quarterly": {"date_histogram": {"field": "date", "calendar_interval": "quarter", "min_doc_count": 1}},
        "periods": {"date_range": {"field": "date", "ranges": [{"to": "2021-01-01"}, {"from": "2021-01-01||/y"}]}},
        "first": {"min": {"field": "date"}}
    }});
    let aggs = backend.search(&corpus, &body).unwrap()["aggregations"].take();
    let term = |key: &str, n: u64| json!({"key": key, "doc_count": n});
    let terms = |buckets: Vec<Value>| json!({"buckets": buckets, "sum_other_doc_count": 0, "doc_count_error_upper_bound": 0});
    assert_eq!(
        aggs,
        json!({
            "facts": {
                "doc_count": 4,
                "names": terms(vec![
                    json!({"key": "LOC", "doc_count": 2, "values": terms(vec![term("Mari Tamm", 1), term("Tallinn", 1)])}),
                    json!({"key": "PER", "doc_count": 2, "values": terms(vec![term("Jaan", 1), term("Mari Tamm", 1)])}),
                ]),
                "mari": {"doc_count": 2, "docs": {"doc_count": 2, "labels": terms(vec![term("politsei", 1), term("tuletõrje", 1)])}}
            },
            "numbered": {"doc_count": 3, "most": {"value": 10.0}},
            "split": {"buckets": {"thief": {"doc_count": 2}, "fire": {"doc_count": 1}}},
            "everything": {"doc_count": 5},
            "yearly": {"buckets": [
                {"key_as_string": "2020-01-01T00:00:00.000Z", "key": 1577836800000i64, "doc_count": 1, "labels": terms(vec![term("politsei", 1)])},
                {"key_as_string": "2021-01-01T00:00:00.000Z", "key": 1609459200000i64, "doc_count": 1, "labels": terms(vec![term("tuletõrje", 1)])}
            ]},
            "quarterly": {"buckets": [
                {"key_as_string": "2020-01-01T00:00:00.000Z", "key": 1577836800000i64, "doc_count": 1},
                {"key_as_string": "2021-01-01T00:00:00.000Z", "key": 1609459200000i64, "doc_count": 1}
            ]},
            "periods": {"buckets": [
                {"key": "*-2021-01-01T00:00:00.000Z", "to": 1609459200000.0, "to_as_string": "2021-01-01T00:00:00.000Z", "doc_count": 1},
                {"key": "2021-01-01T00:00:00.000Z-*", "from": 1609459200000.0, "from_as_string": "2021-01-01T00:00:00.000Z", "doc_count": 1}
            ]},
            "first": {"value": 1578218400000.0, "value_as_string": "2020-01-05T10:00:00.000Z"}
        })
    );
    let refused = |aggs: Value| match backend.search(&corpus, &json!({ "aggs": aggs })).unwrap_err() {
        SearchError::BadQuery(message) => message,
        other => panic!("{other}"),
    };
    assert_eq!(
        refused(json!({"h": {"histogram": {"field": "n", "interval": 5}, "aggs": {"f": {"nested": {"path": "texta_facts"}}}}})),
        "unsupported aggs: a nested aggregation ([f]) inside a histogram aggregation; put it at the top level or inside nested, \
         reverse_nested, filter, filters, global or terms"
    );
    assert_eq!(
        refused(json!({"r": {"reverse_nested": {}}})),
        "reverse_nested aggregation [r] must be inside a nested aggregation"
    );
    assert_eq!(
        refused(json!({"h": {"date_histogram": {"field": "date", "calendar_interval": "2M"}}})),
        "invalid calendar_interval: \"2M\""
    );
    assert_eq!(
        refused(json!({"h": {"date_histogram": {"field": "date", "calendar_interval": "minute"}}})),
        "date_histogram [h] would have more than 65536 buckets; use a longer interval"
    );
}
