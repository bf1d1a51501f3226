//! The search bodies TEXTA's web client sends to `search_by_query` (texta-client.md §4.4),
//! answered by the embedded store as Elasticsearch answers them: the fact aggregation
//! (`reverse_nested` inside `terms`, ordered by it), date histograms with Joda `format`,
//! `interval` and `extended_bounds`, date bounds with `format`, dates without an offset as
//! UTC, the table, sort, simple-search and fact-query bodies, `significant_terms` and the
//! aggregations wrapped in `filter` as the client combines them with the search and saved
//! searches.
use super::*;

const START: &str = "<TEXTA_SEARCHER_HIGHLIGHT_START_TAG>";
const END: &str = "<TEXTA_SEARCHER_HIGHLIGHT_END_TAG>";

fn fact(name: &str, value: &str) -> Value {
    json!({"fact": name, "str_val": value, "doc_path": "text", "spans": "[[0, 0]]"})
}

/// Dates without an offset; Mari is PER four times in two documents, Jaan three times in three.
fn client_store(tag: &str) -> (TempDir, TantivyBackend, Vec<String>) {
    let (dir, backend) = store(tag);
    let docs = [
        (
            "c1",
            json!({"text": "Varas peeti kinni", "label": "politsei", "date": "2020-09-01T10:00:00",
                   "texta_facts": [fact("PER", "Mari"), fact("PER", "Jaan"), fact("LOC", "Tallinn")]}),
        ),
        (
            "c2",
            json!({"text": "Varas põgenes", "label": "politsei", "date": "2020-09-15",
                   "texta_facts": [fact("PER", "Mari"), fact("PER", "Mari"), fact("PER", "Mari"), fact("LOC", "Tartu")]}),
        ),
        (
            "c3",
            json!({"text": "Maja põles", "label": "tuletõrje", "date": "2019-12-31T23:00:00", "texta_facts": [fact("PER", "Jaan")]}),
        ),
        (
            "c4",
            json!({"text": "Rahulik päev", "label": "muu", "date": "2021-02-01", "texta_facts": [fact("PER", "Jaan")]}),
        ),
    ];
    let docs = docs
        .into_iter()
        .map(|(id, source)| Doc {
            id: Some(id.into()),
            source,
        })
        .collect();
    assert!(backend.bulk_index("client", docs).unwrap().iter().all(|r| r.is_ok()));
    (dir, backend, vec!["client".to_string()])
}

fn terms(buckets: Value) -> Value {
    json!({"doc_count_error_upper_bound": 0, "sum_other_doc_count": 0, "buckets": buckets})
}

fn fact_aggregation() -> Value {
    json!({"agg_fact": {"nested": {"path": "texta_facts"}, "aggs": {"agg_fact": {
        "terms": {"field": "texta_facts.fact", "size": 30},
        "aggs": {
            "top_reverse_nested": {"reverse_nested": {}},
            "agg_fact_val": {
                "terms": {"field": "texta_facts.str_val", "size": 30, "order": {"fact_val_reverse.doc_count": "desc"}},
                "aggs": {"fact_val_reverse": {"reverse_nested": {}}}
            }
        }
    }}}})
}

fn refused(backend: &TantivyBackend, indices: &[String], body: Value) -> String {
    match backend.search(indices, &body).unwrap_err() {
        SearchError::BadQuery(message) => message,
        other => panic!("{other}"),
    }
}

#[test]
fn fact_aggregation_counts_facts_and_reverse_nested_counts_documents() {
    let (_dir, backend, indices) = client_store("client-facts");
    let aggs = backend.search(&indices, &json!({"aggs": fact_aggregation(), "size": 0})).unwrap()["aggregations"].take();
    let value = |key: &str, facts: u64, docs: u64| json!({"key": key, "doc_count": facts, "fact_val_reverse": {"doc_count": docs}});
    assert_eq!(
        aggs,
        json!({"agg_fact": {"doc_count": 9, "agg_fact": terms(json!([
            {"key": "PER", "doc_count": 7, "top_reverse_nested": {"doc_count": 4},
             "agg_fact_val": terms(json!([value("Jaan", 3, 3), value("Mari", 4, 2)]))},
            {"key": "LOC", "doc_count": 2, "top_reverse_nested": {"doc_count": 2},
             "agg_fact_val": terms(json!([value("Tallinn", 1, 1), value("Tartu", 1, 1)]))}
        ]))}})
    );
    // ascending, and by key or count; size keeps the first, the rest counted as other
    let ordered = |order: Value| {
        let body = json!({"size": 0, "aggs": {"f": {"nested": {"path": "texta_facts"}, "aggs": {"v": {
            "terms": {"field": "texta_facts.str_val", "size": 2, "order": order},
            "aggs": {"r": {"reverse_nested": {}}}
        }}}}});
        let mut aggs = backend.search(&indices, &body).unwrap()["aggregations"].take();
        aggs["f"]["v"].take()
    };
    let value = |key: &str, facts: u64, docs: u64| json!({"key": key, "doc_count": facts, "r": {"doc_count": docs}});
    let two = |first: Value, second: Value, other: u64| json!({"doc_count_error_upper_bound": 0, "sum_other_doc_count": other, "buckets": [first, second]});
    assert_eq!(ordered(json!({"r": "asc"})), two(value("Tallinn", 1, 1), value("Tartu", 1, 1), 7));
    assert_eq!(
        ordered(json!({"r.doc_count": "desc"})),
        two(value("Jaan", 3, 3), value("Mari", 4, 2), 2)
    );
    assert_eq!(ordered(json!({"_count": "desc"})), two(value("Mari", 4, 2), value("Jaan", 3, 3), 2));
    assert_eq!(
        ordered(json!({"_key": "desc"})),
        two(value("Tartu", 1, 1), value("Tallinn", 1, 1), 7)
    );
    assert_eq!(
        ordered(json!([{"r._count": "asc"}, {"_key": "desc"}])),
        two(value("Tartu", 1, 1), value("Tallinn", 1, 1), 7)
    );
    let body = |order: Value| {
        json!({"aggs": {"f": {"nested": {"path": "texta_facts"}, "aggs": {"v": {
            "terms": {"field": "texta_facts.str_val", "order": order}, "aggs": {"r": {"reverse_nested": {}}}
        }}}}})
    };
    assert_eq!(
        refused(&backend, &indices, body(json!({"r.value": "desc"}))),
        "Invalid aggregation order path [r.value]. Unknown value key [value] for aggregation [r]"
    );
    assert_eq!(
        refused(&backend, &indices, body(json!({"r": "up"}))),
        "Unknown terms order direction [\"up\"] in terms aggregation"
    );
}

#[test]
fn date_histograms_take_the_clients_format_interval_and_extended_bounds() {
    let (_dir, backend, indices) = client_store("client-histo");
    let histogram = |gte: &str, lte: &str, histogram: Value| {
        let filter = json!({"bool": {"must": [{"bool": {"must": [
            {"range": {"date": {"gte": gte}}}, {"range": {"date": {"lte": lte}}}
        ]}}]}});
        let body = json!({"aggs": {"agg_histo": {"filter": filter, "aggs": {"agg_histo": {"date_histogram": histogram}}}}, "size": 0});
        backend.search(&indices, &body).unwrap()["aggregations"]["agg_histo"].take()
    };
    let bucket = |text: &str, key: i64, count: u64| json!({"key_as_string": text, "key": key, "doc_count": count});
    let yearly = histogram(
        "2019-01-01T00:00:00",
        "2021-01-01T00:00:00",
        json!({"format": "y", "field": "date", "interval": "year", "min_doc_count": 0, "extended_bounds": {"min": "2018", "max": "2021"}}),
    );
    assert_eq!(
        yearly,
        json!({"doc_count": 3, "agg_histo": {"buckets": [
            bucket("2018", 1_514_764_800_000, 0), bucket("2019", 1_546_300_800_000, 1),
            bucket("2020", 1_577_836_800_000, 2), bucket("2021", 1_609_459_200_000, 0)
        ]}})
    );
    // the client's own bodies: JavaScript dates, so ISO bounds with milliseconds and Z
    let monthly = histogram(
        "2020-08-01T00:00:00.000Z",
        "2020-09-30T00:00:00.000Z",
        json!({"format": "MMM-y", "field": "date", "interval": "month", "min_doc_count": 0,
               "extended_bounds": {"min": "2020-07-10T00:00:00.000Z", "max": "Oct-2020"}}),
    );
    assert_eq!(
        monthly,
        json!({"doc_count": 2, "agg_histo": {"buckets": [
            bucket("Jul-2020", 1_593_561_600_000, 0), bucket("Aug-2020", 1_596_240_000_000, 0),
            bucket("Sep-2020", 1_598_918_400_000, 2), bucket("Oct-2020", 1_601_510_400_000, 0)
        ]}})
    );
    // weeks start on Monday; `calendar_interval` is the newer name
    let weekly = histogram(
        "2020-08-01",
        "2020-09-30",
        json!({"format": "d-M-y", "field": "date", "calendar_interval": "1w", "min_doc_count": 0}),
    );
    assert_eq!(
        weekly,
        json!({"doc_count": 2, "agg_histo": {"buckets": [
            bucket("31-8-2020", 1_598_832_000_000, 1), bucket("7-9-2020", 1_599_436_800_000, 0),
            bucket("14-9-2020", 1_600_041_600_000, 1)
        ]}})
    );
    // `lte` on a day takes all of it (10:00 included); bounds in epoch milliseconds
    let daily = histogram(
        "2020-09-01",
        "2020-09-01",
        json!({"format": "d-M-y", "field": "date", "interval": "day", "min_doc_count": 0,
               "extended_bounds": {"min": 1_598_832_000_000i64, "max": 1_599_004_800_000i64}}),
    );
    assert_eq!(
        daily,
        json!({"doc_count": 1, "agg_histo": {"buckets": [
            bucket("31-8-2020", 1_598_832_000_000, 0), bucket("1-9-2020", 1_598_918_400_000, 1),
            bucket("2-9-2020", 1_599_004_800_000, 0)
        ]}})
    );
    // nothing matching: the bounds alone make the buckets; min_doc_count 1 drops them
    let empty = histogram(
        "2030-01-01",
        "2030-12-31",
        json!({"format": "y", "field": "date", "interval": "year", "min_doc_count": 0, "extended_bounds": {"min": "2019", "max": "2020"}}),
    );
    assert_eq!(
        empty,
        json!({"doc_count": 0, "agg_histo": {"buckets": [bucket("2019", 1_546_300_800_000, 0), bucket("2020", 1_577_836_800_000, 0)]}})
    );
    let sparse = histogram(
        "2019-01-01",
        "2021-12-31",
        json!({"field": "date", "interval": "year", "min_doc_count": 1, "extended_bounds": {"min": "2010-01-01", "max": "2030-01-01"}}),
    );
    assert_eq!(
        sparse,
        json!({"doc_count": 4, "agg_histo": {"buckets": [
            bucket("2019-01-01T00:00:00.000Z", 1_546_300_800_000, 1), bucket("2020-01-01T00:00:00.000Z", 1_577_836_800_000, 2),
            bucket("2021-01-01T00:00:00.000Z", 1_609_459_200_000, 1)
        ]}})
    );
    let body = |histogram: Value| json!({"aggs": {"h": {"date_histogram": histogram}}});
    assert_eq!(
        refused(
            &backend,
            &indices,
            body(json!({"field": "date", "interval": "year", "format": "y-q"}))
        ),
        "Illegal pattern component: q"
    );
    assert_eq!(
        refused(
            &backend,
            &indices,
            body(json!({"field": "date", "interval": "year", "format": "y", "extended_bounds": {"min": "soon", "max": "2020"}}))
        ),
        "failed to parse date field [soon] with format [y]"
    );
    assert_eq!(
        refused(
            &backend,
            &indices,
            body(json!({"field": "date", "interval": "year", "extended_bounds": {"min": "2021-01-01", "max": "2020-01-01"}}))
        ),
        "[extended_bounds.min][1609459200000] cannot be greater than [extended_bounds.max][1577836800000] for histogram aggregation [h]"
    );
}

#[test]
fn dates_without_an_offset_filter_and_aggregate_as_utc() {
    let (_dir, backend, indices) = client_store("client-dates");
    let body = json!({"aggs": {
        "min_date": {"min": {"field": "date", "format": "yyyy-MM-dd"}},
        "max_date": {"max": {"field": "date", "format": "yyyy-MM-dd"}}
    }, "size": 0});
    assert_eq!(
        backend.search(&indices, &body).unwrap()["aggregations"],
        json!({
            "min_date": {"value": 1_577_833_200_000.0, "value_as_string": "2019-12-31"},
            "max_date": {"value": 1_612_137_600_000.0, "value_as_string": "2021-02-01"}
        })
    );
    let fields = backend.fields(&indices).unwrap();
    let date_type = fields[0].fields.iter().find(|f| f.path == "date").map(|f| f.field_type.as_str());
    assert_eq!(date_type, Some("date"));
    let matching = |range: Value| ids(&backend.search(&indices, &json!({"query": {"range": {"date": range}}})).unwrap());
    assert_eq!(matching(json!({"gte": "2020-09-01T00:00:00", "lte": "2020-09-15"})), ["c1", "c2"]);
    assert_eq!(matching(json!({"gt": "2020-09-01T10:00:00"})), ["c2", "c4"]);
    assert_eq!(matching(json!({"lt": "2020-01-01T00:00:01+01:00"})), ["c3"]);
    assert_eq!(matching(json!({"gte": "2020"})), ["c1", "c2", "c4"]);
    let matched = backend
        .search(&indices, &json!({"query": {"match": {"date": "2020-09-15"}}}))
        .unwrap();
    assert_eq!(ids(&matched), ["c2"]);
}

#[test]
fn table_sort_simple_search_and_fact_query_bodies_run() {
    let (_dir, backend, indices) = client_store("client-table");
    let highlight = |fields: Value| json!({"pre_tags": [START], "post_tags": [END], "number_of_fragments": 0, "fields": fields});
    let table = json!({
        "query": {"bool": {"must": [], "filter": [], "must_not": [], "should": [], "minimum_should_match": 0}},
        "highlight": highlight(json!({})), "from": 0, "size": 2
    });
    let page = backend.search(&indices, &table).unwrap();
    assert_eq!(page["hits"]["total"]["value"], json!(4));
    assert_eq!(page["hits"]["hits"].as_array().map(Vec::len), Some(2));
    assert!(page["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .all(|hit| hit.get("highlight").is_none()));
    let sorted = |sort: Value| {
        let mut body = table.clone();
        body["size"] = json!(10);
        body["sort"] = sort;
        let hits = backend.search(&indices, &body).unwrap()["hits"]["hits"].take();
        hits.as_array()
            .unwrap()
            .iter()
            .map(|h| h["_id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        sorted(json!([{"text.keyword": {"order": "desc", "unmapped_type": "text"}}])),
        ["c2", "c1", "c4", "c3"]
    );
    assert_eq!(
        sorted(json!([{"date": {"order": "asc", "unmapped_type": "date"}}])),
        ["c3", "c1", "c2", "c4"]
    );
    let simple = json!({
        "query": {"multi_match": {"fields": ["text", "label"], "query": "varas kinni", "type": "best_fields", "operator": "and"}},
        "highlight": highlight(json!({"text": {}})), "from": 0, "size": 10
    });
    let found = backend.search(&indices, &simple).unwrap();
    assert_eq!(ids(&found), ["c1"]);
    assert_eq!(
        found["hits"]["hits"][0]["highlight"],
        json!({"text": [format!("{START}Varas{END} peeti {START}kinni{END}")]})
    );
    let facts = json!({"query": {"bool": {"must": [{"nested": {
        "path": "texta_facts",
        "query": {"bool": {"must": [{"match": {"texta_facts.fact": "PER"}}, {"match": {"texta_facts.str_val": "Mari"}}]}},
        "inner_hits": {"size": 100, "name": "PER_Mari_1"}
    }}], "filter": [], "must_not": [], "should": [], "minimum_should_match": 0}}, "from": 0, "size": 10});
    assert_eq!(ids(&backend.search(&indices, &facts).unwrap()), ["c1", "c2"]);
}

#[test]
fn significant_terms_score_against_the_whole_index() {
    let (_dir, backend, indices) = client_store("client-significant");
    let body = |options: Value| {
        let mut terms = json!({"field": "label.keyword", "size": 10});
        terms.as_object_mut().unwrap().extend(options.as_object().unwrap().clone());
        json!({"query": {"match": {"text": "varas"}}, "aggs": {"agg_term": {"significant_terms": terms}}, "size": 0})
    };
    // 4 documents and 9 fact documents in the background, as Lucene counts nested documents
    assert_eq!(
        backend.search(&indices, &body(json!({"min_doc_count": 1}))).unwrap()["aggregations"],
        json!({"agg_term": {"doc_count": 2, "bg_count": 13, "buckets": [
            {"key": "politsei", "doc_count": 2, "score": 5.5, "bg_count": 2}
        ]}})
    );
    assert_eq!(
        backend.search(&indices, &body(json!({}))).unwrap()["aggregations"],
        json!({"agg_term": {"doc_count": 2, "bg_count": 13, "buckets": []}})
    );
    assert_eq!(
        refused(&backend, &indices, body(json!({"gnd": {}}))),
        "unsupported significant_terms option: gnd"
    );
}

#[test]
fn aggregations_wrapped_in_filters_answer_as_the_client_combines_them() {
    let (_dir, backend, indices) = client_store("client-combined");
    let search =
        json!({"bool": {"must": [{"match": {"text": "varas"}}], "filter": [], "must_not": [], "should": [], "minimum_should_match": 0}});
    let combined = json!({"aggs": {"agg_fact": {"aggs": fact_aggregation(), "filter": search}}, "size": 0});
    let value = |key: &str, facts: u64, docs: u64| json!({"key": key, "doc_count": facts, "fact_val_reverse": {"doc_count": docs}});
    assert_eq!(
        backend.search(&indices, &combined).unwrap()["aggregations"],
        json!({"agg_fact": {"doc_count": 2, "agg_fact": {"doc_count": 7, "agg_fact": terms(json!([
            {"key": "PER", "doc_count": 5, "top_reverse_nested": {"doc_count": 2},
             "agg_fact_val": terms(json!([value("Mari", 4, 2), value("Jaan", 1, 1)]))},
            {"key": "LOC", "doc_count": 2, "top_reverse_nested": {"doc_count": 2},
             "agg_fact_val": terms(json!([value("Tallinn", 1, 1), value("Tartu", 1, 1)]))}
        ]))}}})
    );
    // a saved search: its query inside the current search, keyed by its description
    let everything = json!({"bool": {"must": [], "filter": [], "must_not": [], "should": [], "minimum_should_match": 0}});
    let simple = json!({"multi_match": {"fields": ["text"], "query": "põles", "type": "best_fields", "operator": "and"}});
    let labels = json!({"agg_term": {"terms": {"field": "label.keyword", "size": 10}}});
    let saved = json!({"aggs": {
        "fires": {"aggs": {"fires": {"aggs": labels, "filter": simple}}, "filter": everything},
        "agg_term": {"aggs": labels, "filter": simple}
    }, "size": 0});
    let fires = json!({"doc_count": 1, "agg_term": terms(json!([{"key": "tuletõrje", "doc_count": 1}]))});
    assert_eq!(
        backend.search(&indices, &saved).unwrap()["aggregations"],
        json!({"fires": {"doc_count": 4, "fires": fires}, "agg_term": fires})
    );
    // the client's aggregations nested in one another: a date histogram inside terms
    let nested = json!({"aggs": {"agg_term": {"terms": {"field": "label.keyword", "size": 1}, "aggs": {"agg_histo": {
        "filter": {"range": {"date": {"gte": "2020-01-01"}}},
        "aggs": {"agg_histo": {"date_histogram": {"format": "y", "field": "date", "interval": "year", "min_doc_count": 0}}}
    }}}}, "size": 0});
    assert_eq!(
        backend.search(&indices, &nested).unwrap()["aggregations"],
        json!({"agg_term": {"doc_count_error_upper_bound": 0, "sum_other_doc_count": 2, "buckets": [
            {"key": "politsei", "doc_count": 2, "agg_histo": {"doc_count": 2, "agg_histo": {"buckets": [
                {"key_as_string": "2020", "key": 1_577_836_800_000i64, "doc_count": 2}
            ]}}}
        ]}})
    );
}
