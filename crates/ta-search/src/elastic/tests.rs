//! Tests of `ElasticBackend` against recorded Elasticsearch 7 answers, replayed by
//! [`super::replay::Mock`].

use serde_json::{json, Map, Value};

use super::replay::{scenario, Mock};
use super::*;
use crate::source::Source;
use std::net::TcpListener;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

#[test]
fn the_mock_refuses_requests_that_were_not_recorded() {
    let mock = Mock::start("indices.json", "exists");
    assert!(matches!(mock.backend().index_exists("other"), Err(SearchError::Backend(_))));
    let failures = mock.failures();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0].contains("HEAD /other"), "{failures:?}");
}

#[test]
fn info_reports_the_cluster_and_hides_credentials() {
    let mock = Mock::start("root.json", "info");
    let url = mock.url.replace("http://", "http://elastic:changeme@");
    let info = ElasticBackend::new(&url).unwrap().info();
    assert!(info.alive);
    assert_eq!(info.url, mock.url);
    assert_eq!(info.status["cluster_name"], "docker-cluster");
    assert_eq!(info.status["version"]["number"], "7.17.9");
    assert_eq!(info.status["tagline"], "You Know, for Search");
    let keys: Vec<&String> = info.status.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "cluster_name", "cluster_uuid", "version", "tagline"]);
    mock.finish();
}

#[test]
fn info_is_not_alive_when_refused_or_unreachable() {
    let mock = Mock::start("root.json", "unauthorized");
    let info = mock.backend().info();
    assert!(!info.alive);
    assert!(info.status["error"].as_str().unwrap().contains("security_exception"), "{info:?}");
    mock.finish();

    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let info = ElasticBackend::new(&url).unwrap().info();
    assert!(!info.alive);
    assert!(info.status["error"].as_str().unwrap().contains("cannot reach"), "{info:?}");
}

#[test]
fn bad_urls_are_refused() {
    for url in ["localhost:9200", "ftp://host", "not a url"] {
        assert!(matches!(ElasticBackend::new(url), Err(SearchError::Backend(_))), "{url}");
    }
}

#[test]
fn lists_indices_sorted_without_hidden_ones() {
    let mock = Mock::start("indices.json", "list");
    assert_eq!(mock.backend().list_indices().unwrap(), names(&["news_2020", "texts"]));
    mock.finish();
}

#[test]
fn index_exists_reads_the_head_status() {
    let mock = Mock::start("indices.json", "exists");
    let es = mock.backend();
    assert!(es.index_exists("texts").unwrap());
    assert!(!es.index_exists("missing").unwrap());
    mock.finish();
}

#[test]
fn create_index_maps_facts_nested_and_is_idempotent() {
    let mock = Mock::start("indices.json", "create");
    let es = mock.backend();
    es.create_index("texts").unwrap();
    es.create_index("texts").unwrap();
    assert!(matches!(es.create_index("Texts"), Err(SearchError::InvalidIndexName(n)) if n == "Texts"));
    for unusable in ["", "a,b", "a*", ".."] {
        assert!(
            matches!(es.create_index(unusable), Err(SearchError::InvalidIndexName(_))),
            "{unusable:?}"
        );
    }
    mock.finish();
}

#[test]
fn fact_mapping_is_added_before_facts_are_written_and_a_conflict_is_refused() {
    let mock = Mock::start("indices.json", "fact_mapping");
    let es = mock.backend();
    es.ensure_fact_mapping("texts").unwrap();
    let err = es.ensure_fact_mapping("flat").unwrap_err().to_string();
    assert!(err.contains("can't merge a non-nested mapping [texta_facts]"), "{err}");
    mock.finish();
}

#[test]
fn declared_types_go_into_the_mapping_as_objects_of_properties() {
    let mock = Mock::start("indices.json", "declare_types");
    let es = mock.backend();
    let types: Vec<(String, String)> = [("category", "keyword"), ("meta.when", "date"), ("meta.n", "long"), ("text", "text")]
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    es.declare_field_types("typed", &types).unwrap();
    mock.finish();
}

#[test]
fn delete_index_reports_a_missing_index() {
    let mock = Mock::start("indices.json", "delete");
    let es = mock.backend();
    es.delete_index("texts").unwrap();
    assert!(matches!(es.delete_index("missing"), Err(SearchError::IndexNotFound(n)) if n == "missing"));
    mock.finish();
}

#[test]
fn bulk_index_sends_ndjson_and_reports_each_document() {
    let mock = Mock::start("documents.json", "bulk_index");
    let docs = vec![
        Doc {
            id: Some("a1".into()),
            source: json!({"text": "Tere tulemast Tallinna", "n": 1}),
        },
        Doc {
            id: None,
            source: json!({"text": "generated id", "n": 2}),
        },
        Doc {
            id: Some("list".into()),
            source: json!([1, 2]),
        },
        Doc {
            id: Some("a3".into()),
            source: json!({"text": "bad number", "n": "many"}),
        },
    ];
    let results = mock.backend().bulk_index("texts", docs).unwrap();
    assert_eq!(results[0], Ok("a1".to_string()));
    let generated = results[1].clone().unwrap();
    assert_eq!(generated.len(), 20, "{generated}");
    assert!(results[2].as_ref().unwrap_err().contains("is not a JSON object"));
    assert_eq!(
        results[3],
        Err("a3: mapper_parsing_exception: failed to parse field [n] of type [long] in document with id 'a3'. Preview of field's value: 'many'".to_string())
    );
    mock.finish();
}

#[test]
fn bulk_loads_send_bulk_without_waiting_and_refresh_on_commit() {
    let mock = Mock::start("documents.json", "bulk_load");
    let backend = mock.backend();
    let mut loader = backend.bulk_loader("texts").unwrap();
    let docs = ["esimene", "teine"].map(|t| Source::parse(json!({"text": t}).to_string().into_bytes()).unwrap());
    let results = loader.add(docs.into()).unwrap();
    assert!(results.iter().all(|r| r.is_ok()), "{results:?}");
    loader.commit().unwrap();
    drop(loader);
    mock.finish();
}

#[test]
fn bulk_index_stops_on_an_unusable_index() {
    let mock = Mock::start("documents.json", "bulk_index_invalid_name");
    let doc = Doc {
        id: None,
        source: json!({"a": 1}),
    };
    assert!(matches!(
        mock.backend().bulk_index("Texts", vec![doc]),
        Err(SearchError::InvalidIndexName(_))
    ));
    mock.finish();
}

#[test]
fn bulk_update_merges_partials_and_reports_missing_documents() {
    let mock = Mock::start("documents.json", "bulk_update");
    let es = mock.backend();
    let results = es
        .bulk_update(
            "texts",
            vec![
                ("a1".into(), object(json!({"label": "greeting"}))),
                ("nope".into(), object(json!({"label": "x"}))),
            ],
        )
        .unwrap();
    assert_eq!(results[0], Ok("a1".to_string()));
    assert_eq!(
        results[1],
        Err("nope: document_missing_exception: [_doc][nope]: document missing".to_string())
    );
    let missing = es.update_document("texts", "nope", object(json!({"label": "x"})));
    assert!(matches!(missing, Err(SearchError::DocumentNotFound { id, .. }) if id == "nope"));
    assert_eq!(es.bulk_update("texts", Vec::new()).unwrap(), Vec::new());
    mock.finish();
}

#[test]
fn get_document_finds_misses_and_reports_missing_indices() {
    let mock = Mock::start("documents.json", "get");
    let es = mock.backend();
    let hit = es.get_document("texts", "a1").unwrap().unwrap();
    assert_eq!(
        hit,
        Hit {
            index: "texts".into(),
            id: "a1".into(),
            score: None,
            source: json!({"text": "Tere tulemast Tallinna", "n": 1, "label": "greeting"}),
        }
    );
    assert_eq!(es.get_document("texts", "a/b c").unwrap(), None);
    assert!(matches!(es.get_document("missing", "a1"), Err(SearchError::IndexNotFound(n)) if n == "missing"));
    mock.finish();
}

#[test]
fn delete_document_tells_whether_it_existed() {
    let mock = Mock::start("documents.json", "delete");
    let es = mock.backend();
    assert!(es.delete_document("texts", "a1").unwrap());
    assert!(!es.delete_document("texts", "a1").unwrap());
    mock.finish();
}

#[test]
fn search_passes_the_body_and_answer_through() {
    let mock = Mock::start("search.json", "search");
    let es = mock.backend();
    let body = json!({"query": {"match": {"text": "tallinna"}}, "size": 1, "_source": ["text"]});
    let response = es.search(&names(&["texts", "news_2020"]), &body).unwrap();
    assert_eq!(response, scenario("search.json", "search")[0]["response"]["body"]);
    assert_eq!(es.search(&[], &body).unwrap()["hits"]["total"]["value"], 0);
    mock.finish();
}

#[test]
fn errors_map_to_search_errors() {
    let mock = Mock::start("search.json", "bad_query");
    let es = mock.backend();
    let texts = names(&["texts"]);
    let unknown = es.search(&texts, &json!({"query": {"mtach": {"text": "x"}}}));
    assert!(matches!(unknown, Err(SearchError::BadQuery(m)) if m == "unknown query [mtach]"));
    let bad_value = es.count(&texts, &json!({"query": {"term": {"n": "abc"}}}));
    assert!(matches!(bad_value, Err(SearchError::BadQuery(m)) if m == "failed to create query: For input string: \"abc\""));
    let unavailable = es.search(&texts, &json!({"query": {"match_all": {}}}));
    assert!(
        matches!(&unavailable, Err(SearchError::Backend(m)) if m == "HTTP 503: search_phase_execution_exception: all shards failed"),
        "{unavailable:?}"
    );
    let missing = es.search(&names(&["missing"]), &json!({}));
    assert!(matches!(missing, Err(SearchError::IndexNotFound(n)) if n == "missing"));
    mock.finish();
}

#[test]
fn count_sends_the_query_clause_or_none() {
    let mock = Mock::start("search.json", "count");
    let es = mock.backend();
    assert_eq!(
        es.count(&names(&["texts"]), &json!({"query": {"match": {"text": "tallinna"}}}))
            .unwrap(),
        2
    );
    assert_eq!(es.count(&names(&["texts", "news_2020"]), &json!({"query": {}})).unwrap(), 1042);
    assert_eq!(es.count(&[], &Value::Null).unwrap(), 0);
    mock.finish();
}

#[test]
fn random_document_uses_random_score() {
    let mock = Mock::start("search.json", "random");
    let es = mock.backend();
    let hit = es.random_document(&names(&["texts"])).unwrap().unwrap();
    assert_eq!((hit.id.as_str(), hit.score), ("a3", None));
    assert_eq!(es.random_document(&names(&["empty"])).unwrap(), None);
    mock.finish();
}

#[test]
fn scan_scrolls_in_batches_and_clears_the_scroll() {
    let mock = Mock::start("scroll.json", "scan");
    let mut batches = Vec::new();
    mock.backend()
        .scan(&names(&["texts"]), &json!({"query": {"term": {"label": "x"}}}), 2, &mut |hits| {
            batches.push(hits.iter().map(|h| h.id.clone()).collect::<Vec<_>>());
            Ok(())
        })
        .unwrap();
    assert_eq!(batches, vec![names(&["d1", "d2"]), names(&["d3"])]);
    mock.finish();
}

#[test]
fn scan_stops_at_a_sink_error_and_still_clears_the_scroll() {
    let mock = Mock::start("scroll.json", "scan_stopped_by_sink");
    let outcome = mock.backend().scan(&names(&["texts"]), &Value::Null, 50_000, &mut |_| {
        Err(SearchError::Backend("sink full".into()))
    });
    assert!(matches!(outcome, Err(SearchError::Backend(m)) if m == "sink full"));
    mock.finish();
}

#[test]
fn fields_flatten_the_mapping_per_index() {
    let mock = Mock::start("mapping.json", "fields");
    let fields = mock.backend().fields(&names(&["texts", "news_2020"])).unwrap();
    let listed: Vec<(String, Vec<(String, String)>)> = fields
        .into_iter()
        .map(|f| (f.index, f.fields.into_iter().map(|i| (i.path, i.field_type)).collect()))
        .collect();
    let pairs = |list: &[(&str, &str)]| list.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect::<Vec<_>>();
    assert_eq!(
        listed,
        vec![
            (
                "texts".to_string(),
                pairs(&[
                    ("a.b", "text"),
                    ("a.c", "boolean"),
                    ("date", "date"),
                    ("n", "long"),
                    ("score", "float"),
                    ("text", "text"),
                    ("texta_facts", "fact"),
                ])
            ),
            ("news_2020".to_string(), pairs(&[("title", "text")])),
        ]
    );
    mock.finish();
}

#[test]
fn facts_come_from_the_nested_terms_aggregation() {
    let mock = Mock::start("mapping.json", "facts");
    let facts = mock
        .backend()
        .facts(&names(&["texts"]), &json!({"query": {"match": {"text": "tallinna"}}}), 2)
        .unwrap();
    let value = |v: &str, count| FactValueCount { value: v.into(), count };
    assert_eq!(
        facts,
        vec![
            FactCounts {
                name: "LOC".into(),
                count: 3,
                values: vec![value("Tallinn", 1), value("Tartu", 1)],
            },
            FactCounts {
                name: "PER".into(),
                count: 2,
                values: vec![value("Mari Tamm", 2)],
            },
        ]
    );
    mock.finish();
}
