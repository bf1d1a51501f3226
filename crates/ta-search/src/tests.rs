//! Tests of the embedded backend through the `SearchBackend` trait: document round trips, every
//! DSL clause against a small corpus, nested facts, scans, aggregations, imports and crash
//! safety.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::source::Source;
use super::*;

mod aggs;
mod client;
mod imports;
use imports::{import, matching_in, write_file};

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let unique = format!("ta-search-{tag}-{}-{}", std::process::id(), generate_id());
        let dir = std::env::temp_dir().join(unique);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(name)
}

fn corpus() -> Vec<Doc> {
    let docs = [
        (
            "d1",
            json!({
                "text": "Varas peeti kinni eile õhtul.", "label": "politsei", "n": 5,
                "date": "2020-01-05T10:00:00Z", "a": {"b": "nested value here"},
                "texta_facts": [
                    {"fact": "PER", "str_val": "Mari Tamm", "doc_path": "text", "spans": "[[0, 5]]"},
                    {"fact": "LOC", "str_val": "Tallinn", "doc_path": "text", "spans": "[[6, 9]]"}
                ]
            }),
        ),
        (
            "d2",
            json!({
                "text": "Maja teisel korrusel toimus põleng.", "label": "tuletõrje", "n": 10,
                "date": "2021-03-01T00:00:00Z", "a": {"b": "other"},
                "texta_facts": [
                    {"fact": "PER", "str_val": "Jaan", "doc_path": "text", "spans": "[[0, 4]]"},
                    {"fact": "LOC", "str_val": "Mari Tamm", "doc_path": "text", "spans": "[[5, 9]]"}
                ]
            }),
        ),
        (
            "d3",
            json!({"text": "Ohver sai tõsise trauma.", "label": "kiirabi", "n": 2.5, "tags": ["x", "y"]}),
        ),
        ("d4", json!({"text": "Klient on teenusega rahul. Varas", "label": "muu"})),
    ];
    docs.into_iter()
        .map(|(id, source)| Doc {
            id: Some(id.into()),
            source,
        })
        .collect()
}

fn store(tag: &str) -> (TempDir, TantivyBackend) {
    let dir = TempDir::new(tag);
    let backend = TantivyBackend::open(&dir.0).unwrap();
    (dir, backend)
}

fn corpus_store(tag: &str) -> (TempDir, TantivyBackend) {
    let (dir, backend) = store(tag);
    let results = backend.bulk_index("corpus", corpus()).unwrap();
    assert!(results.iter().all(|r| r.is_ok()));
    (dir, backend)
}

fn ids(response: &Value) -> Vec<String> {
    let mut ids: Vec<String> = response["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

fn matching(backend: &TantivyBackend, query: Value) -> Vec<String> {
    let body = json!({"query": query, "size": 100});
    ids(&backend
        .search(&["corpus".to_string()], &body)
        .unwrap_or_else(|e| panic!("{query}: {e}")))
}

#[test]
fn every_dsl_clause_finds_the_expected_documents() {
    let (_dir, backend) = corpus_store("dsl");
    let cases = [
        (json!({"match_all": {}}), vec!["d1", "d2", "d3", "d4"]),
        (json!({}), vec!["d1", "d2", "d3", "d4"]),
        (json!({"match_none": {}}), vec![]),
        (json!({"match": {"text": "varas"}}), vec!["d1", "d4"]),
        (json!({"match": {"text": {"query": "Varas maja", "operator": "and"}}}), vec![]),
        (json!({"match": {"text": {"query": "varas kinni", "operator": "and"}}}), vec!["d1"]),
        (
            json!({"match": {"text": {"query": "varas kinni rahul", "minimum_should_match": 2}}}),
            vec!["d1", "d4"],
        ),
        (
            json!({"match": {"text": {"query": "varas kinni rahul", "minimum_should_match": "-34%"}}}),
            vec!["d1", "d4"],
        ),
        (json!({"match": {"a.b": "value"}}), vec!["d1"]),
        (json!({"match": {"n": 10}}), vec!["d2"]),
        (json!({"match_phrase": {"text": "peeti kinni"}}), vec!["d1"]),
        (json!({"match_phrase": {"text": "kinni peeti"}}), vec![]),
        (json!({"match_phrase": {"text": {"query": "varas kinni", "slop": 1}}}), vec!["d1"]),
        (json!({"match_phrase_prefix": {"text": "peeti kin"}}), vec!["d1"]),
        (json!({"match_phrase_prefix": {"text": "kinni pee"}}), vec![]),
        (json!({"match_phrase_prefix": {"text": {"query": "trau"}}}), vec!["d3"]),
        (json!({"match": {"text": {"query": "vras", "fuzziness": "AUTO"}}}), vec!["d1", "d4"]),
        (json!({"match": {"text": {"query": "vras", "fuzziness": 0}}}), vec![]),
        (json!({"fuzzy": {"label": {"value": "politse"}}}), vec!["d1"]),
        (json!({"fuzzy": {"label": {"value": "plitse", "fuzziness": 1}}}), vec![]),
        (json!({"simple_query_string": {"query": "varas + kinni"}}), vec!["d1"]),
        (json!({"simple_query_string": {"query": "(trauma | põleng) -maja"}}), vec!["d3"]),
        (
            json!({"simple_query_string": {"query": "\"teisel korrusel\"", "fields": ["text"]}}),
            vec!["d2"],
        ),
        (json!({"multi_match": {"query": "other", "fields": ["a.b", "text^2"]}}), vec!["d2"]),
        (json!({"multi_match": {"query": "trauma"}}), vec!["d3"]),
        (
            json!({"multi_match": {"query": "teisel korrusel", "type": "phrase", "fields": ["text"]}}),
            vec!["d2"],
        ),
        (json!({"term": {"label": "politsei"}}), vec!["d1"]),
        (json!({"term": {"label.keyword": {"value": "tuletõrje"}}}), vec!["d2"]),
        (json!({"term": {"text": "Varas"}}), vec![]),
        (json!({"term": {"n": 5}}), vec!["d1"]),
        (json!({"terms": {"label.keyword": ["muu", "kiirabi"]}}), vec!["d3", "d4"]),
        (json!({"range": {"n": {"gte": 3}}}), vec!["d1", "d2"]),
        (json!({"range": {"n": {"lt": 5}}}), vec!["d3"]),
        (json!({"range": {"n": {"gt": 2.5, "lte": 10}}}), vec!["d1", "d2"]),
        (json!({"range": {"date": {"gte": "2021-01-01"}}}), vec!["d2"]),
        (json!({"range": {"date": {"lt": "2021-01-01T00:00:00Z"}}}), vec!["d1"]),
        (json!({"range": {"label.keyword": {"gte": "p", "lt": "u"}}}), vec!["d1", "d2"]),
        (json!({"exists": {"field": "a.b"}}), vec!["d1", "d2"]),
        (json!({"exists": {"field": "a"}}), vec!["d1", "d2"]),
        (json!({"exists": {"field": "tags"}}), vec!["d3"]),
        (json!({"exists": {"field": "n"}}), vec!["d1", "d2", "d3"]),
        (json!({"prefix": {"text": "trau"}}), vec!["d3"]),
        (json!({"prefix": {"label.keyword": {"value": "tule"}}}), vec!["d2"]),
        (json!({"wildcard": {"text": {"value": "põ*ng"}}}), vec!["d2"]),
        (json!({"wildcard": {"label": "?uu"}}), vec!["d4"]),
        (json!({"wildcard": {"text": "p?leng"}}), vec!["d2"]),
        (json!({"wildcard": {"label.keyword": "tule*õ*"}}), vec!["d2"]),
        (json!({"wildcard": {"label.keyword": "*"}}), vec!["d1", "d2", "d3", "d4"]),
        (json!({"prefix": {"text": "põ"}}), vec!["d2"]),
        (json!({"query_string": {"query": "PÕ?ENG", "fields": ["text"]}}), vec!["d2"]),
        (json!({"regexp": {"label": {"value": "tule.*"}}}), vec!["d2"]),
        (json!({"regexp": {"label": "k[i]+rabi"}}), vec!["d3"]),
        (json!({"query_string": {"query": "varas AND kinni"}}), vec!["d1"]),
        (json!({"query_string": {"query": "varas -kinni"}}), vec!["d4"]),
        (json!({"query_string": {"query": "varas OR trauma"}}), vec!["d1", "d3", "d4"]),
        (json!({"query_string": {"query": "label:muu"}}), vec!["d4"]),
        (
            json!({"query_string": {"query": "\"teisel korrusel\"", "default_field": "text"}}),
            vec!["d2"],
        ),
        (json!({"query_string": {"query": "trau*", "fields": ["text"]}}), vec!["d3"]),
        (json!({"query_string": {"query": "NOT varas"}}), vec!["d2", "d3"]),
        (json!({"ids": {"values": ["d1", "d3", "missing"]}}), vec!["d1", "d3"]),
        (
            json!({"bool": {"must": {"match": {"text": "varas"}}, "must_not": [{"term": {"label.keyword": "muu"}}]}}),
            vec!["d1"],
        ),
        (
            json!({"bool": {"should": [{"term": {"label": "muu"}}, {"term": {"label": "kiirabi"}}]}}),
            vec!["d3", "d4"],
        ),
        (
            json!({"bool": {"should": [{"match": {"text": "varas"}}, {"match": {"text": "kinni"}}, {"match": {"text": "rahul"}}], "minimum_should_match": 2}}),
            vec!["d1", "d4"],
        ),
        (json!({"bool": {"must_not": {"match": {"text": "varas"}}}}), vec!["d2", "d3"]),
        (
            json!({"bool": {"filter": [{"range": {"n": {"gte": 1}}}], "should": [{"match": {"text": "maja"}}]}}),
            vec!["d1", "d2", "d3"],
        ),
        (json!({"bool": {}}), vec!["d1", "d2", "d3", "d4"]),
        (json!({"constant_score": {"filter": {"term": {"label": "muu"}}}}), vec!["d4"]),
        (
            json!({"dis_max": {"queries": [{"term": {"label": "muu"}}, {"term": {"label": "kiirabi"}}]}}),
            vec!["d3", "d4"],
        ),
        (
            json!({"nested": {"path": "texta_facts", "query": {"bool": {"must": [
            {"term": {"texta_facts.fact": "PER"}}, {"term": {"texta_facts.str_val": "Mari Tamm"}}]}}}}),
            vec!["d1"],
        ),
        (
            json!({"nested": {"path": "texta_facts", "query": {"match": {"texta_facts.str_val": "Mari Tamm"}}}}),
            vec!["d1", "d2"],
        ),
        (
            json!({"nested": {"path": "texta_facts", "query": {"term": {"texta_facts.fact": "ORG"}}}}),
            vec![],
        ),
        (json!({"term": {"texta_facts.fact": "PER"}}), vec![]),
    ];
    for (query, expected) in cases {
        assert_eq!(matching(&backend, query.clone()), expected, "query {query}");
    }
}

#[test]
fn unsupported_clauses_are_bad_queries_naming_the_clause() {
    let (_dir, backend) = corpus_store("bad");
    let err = backend
        .search(&["corpus".into()], &json!({"query": {"percolate": {"field": "x"}}}))
        .unwrap_err();
    assert!(
        matches!(&err, SearchError::BadQuery(m) if m == "unsupported query clause: percolate"),
        "{err}"
    );
    let err = backend
        .count(&["corpus".into()], &json!({"bool": {"must": {"geo_shape": {}}}}))
        .unwrap_err();
    assert!(matches!(&err, SearchError::BadQuery(m) if m.contains("geo_shape")), "{err}");
    let err = backend.search(&["nope".into()], &json!({})).unwrap_err();
    assert!(matches!(err, SearchError::IndexNotFound(name) if name == "nope"));
    let err = backend
        .count(&["corpus".into()], &json!({"regexp": {"label": "a".repeat(1001)}}))
        .unwrap_err();
    assert!(
        matches!(&err, SearchError::BadQuery(m) if m == "The length of regex [1001] used in the Regexp Query request has exceeded the allowed maximum of [1000]. This maximum can be set by changing the [index.max_regex_length] index level setting."),
        "{err}"
    );
}

/// A long wildcard term costs time linear in its length per term byte (the fuzzer's input:
/// as a regex, tantivy spent over a second building its automaton).
#[test]
fn long_wildcard_terms_answer_at_once() {
    let (_dir, backend) = corpus_store("long-wildcard");
    let query = format!("-~~~{}m{}*{}e{}aja", "%".repeat(60), "%".repeat(40), "%".repeat(50), "%".repeat(30));
    let start = std::time::Instant::now();
    let found = backend.count(&["corpus".into()], &json!({"simple_query_string": {"query": query}}));
    assert_eq!(found.unwrap(), 0, "no term holds the pattern");
    let many_stars = format!("{}p?l*ng{}", "*".repeat(100), "*".repeat(100));
    assert_eq!(matching(&backend, json!({"wildcard": {"text": many_stars}})), vec!["d2"]);
    assert!(start.elapsed() < std::time::Duration::from_millis(500), "{:?}", start.elapsed());
}

/// `more_like_this` keeps the text's terms that enough documents hold, scores documents by
/// them (BM25) and needs `minimum_should_match` of them.
#[test]
fn more_like_this_finds_documents_sharing_the_texts_frequent_terms() {
    let (_dir, backend) = store("mlt");
    let texts = [
        "varas varastas poest telefoni",
        "politsei otsis varast ja varas põgenes",
        "varas murdis sisse",
        "politsei pidas varga kinni",
        "varas ja politsei",
        "ilm on soe ja päikeseline",
        "homme sajab vihma ja ilm on külm",
        "ilm muutub tuuliseks",
        "ilm on ilus",
        "ilm ja vihm",
    ];
    let docs = texts
        .iter()
        .enumerate()
        .map(|(i, t)| Doc {
            id: Some(format!("m{i}")),
            source: json!({"text": t, "title": "x"}),
        })
        .collect();
    backend.bulk_index("mlt", docs).unwrap();
    let search = |mlt: Value| {
        let body = json!({"query": {"more_like_this": mlt}, "size": 20});
        let answer = backend.search(&["mlt".to_string()], &body).unwrap();
        answer["hits"]["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["_id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    // "varas" is in 4 documents, "ja" in 5, "politsei" in 3, "ilm" in 5.
    let found = search(json!({"fields": ["text"], "like": "varas ja politsei", "min_term_freq": 1, "min_doc_freq": 4}));
    assert_eq!(found.len(), 7, "politsei is too rare, one of varas and ja is enough: {found:?}");
    let mut best = found[..2].to_vec();
    best.sort();
    assert_eq!(best, ["m1", "m4"], "the documents with both terms score best: {found:?}");
    let found =
        search(json!({"fields": ["text"], "like": "varas ja", "min_term_freq": 1, "min_doc_freq": 4, "minimum_should_match": "100%"}));
    assert_eq!(found.len(), 2, "{found:?}");
    let mut found = search(json!({"fields": ["text"], "like": "varas varas ilm", "min_doc_freq": 1}));
    found.sort();
    assert_eq!(found, ["m0", "m1", "m2", "m4"], "min_term_freq 2 keeps only varas");
    assert!(
        search(json!({"fields": ["text"], "like": "varas", "min_term_freq": 1})).is_empty(),
        "min_doc_freq 5"
    );
    assert!(search(json!({"fields": ["title"], "like": "varas", "min_term_freq": 1, "min_doc_freq": 1})).is_empty());
    let err = backend
        .search(&["mlt".into()], &json!({"query": {"more_like_this": {"like": [{"_id": "m1"}]}}}))
        .unwrap_err();
    assert!(
        matches!(&err, SearchError::BadQuery(m) if m.contains("documents are not supported")),
        "{err}"
    );
}

#[test]
fn document_round_trips() {
    let (_dir, backend) = store("docs");
    let source = json!({"z": 1, "a": {"b": "x"}, "texta_facts": [{"fact": "F", "str_val": "v", "doc_path": "a.b", "spans": "[[0, 1]]", "sent_index": 0}]});
    let results = backend
        .bulk_index(
            "docs",
            vec![
                Doc {
                    id: Some("one".into()),
                    source: source.clone(),
                },
                Doc {
                    id: None,
                    source: json!({"k": "v"}),
                },
                Doc {
                    id: None,
                    source: json!([1]),
                },
            ],
        )
        .unwrap();
    assert_eq!(results[0], Ok("one".to_string()));
    let generated = results[1].clone().unwrap();
    assert_eq!(generated.len(), 20);
    assert!(results[2].is_err());

    let hit = backend.get_document("docs", "one").unwrap().unwrap();
    assert_eq!(hit.source, source);
    assert_eq!(serde_json::to_string(&hit.source).unwrap(), serde_json::to_string(&source).unwrap());
    assert!(backend.get_document("docs", &generated).unwrap().is_some());
    assert!(backend.get_document("docs", "missing").unwrap().is_none());

    let partial: Map<String, Value> = json!({"z": 2, "new": "field"}).as_object().unwrap().clone();
    backend.update_document("docs", "one", partial).unwrap();
    let updated = backend.get_document("docs", "one").unwrap().unwrap().source;
    assert_eq!(
        updated,
        json!({"z": 2, "a": {"b": "x"}, "texta_facts": source["texta_facts"], "new": "field"})
    );
    assert_eq!(
        backend
            .count(&["docs".into()], &json!({"query": {"match": {"new": "field"}}}))
            .unwrap(),
        1
    );
    assert!(backend.update_document("docs", "missing", Map::new()).is_err());

    assert!(backend.delete_document("docs", "one").unwrap());
    assert!(!backend.delete_document("docs", "one").unwrap());
    assert!(backend.get_document("docs", "one").unwrap().is_none());
    assert_eq!(backend.count(&["docs".into()], &json!({})).unwrap(), 1);
}

#[test]
fn replacing_a_document_replaces_its_facts() {
    let (_dir, backend) = store("replace");
    let with_fact = |value: &str| json!({"t": "x", "texta_facts": [{"fact": "F", "str_val": value}]});
    backend
        .bulk_index(
            "i",
            vec![Doc {
                id: Some("a".into()),
                source: with_fact("old"),
            }],
        )
        .unwrap();
    backend
        .bulk_index(
            "i",
            vec![Doc {
                id: Some("a".into()),
                source: with_fact("new"),
            }],
        )
        .unwrap();
    let nested = |v: &str| json!({"nested": {"path": "texta_facts", "query": {"term": {"texta_facts.str_val": v}}}});
    assert_eq!(backend.count(&["i".into()], &json!({})).unwrap(), 1);
    assert_eq!(backend.count(&["i".into()], &nested("old")).unwrap(), 0);
    assert_eq!(backend.count(&["i".into()], &nested("new")).unwrap(), 1);
    let facts = backend.facts(&["i".into()], &json!({}), 10).unwrap();
    assert_eq!(
        facts,
        vec![FactCounts {
            name: "F".into(),
            count: 1,
            values: vec![FactValueCount {
                value: "new".into(),
                count: 1
            }]
        }]
    );
}

#[test]
fn bulk_update_merges_many_documents_in_one_commit() {
    let (_dir, backend) = corpus_store("bulkupd");
    let facts = json!([{"fact": "TAG", "str_val": "yes", "doc_path": "text", "spans": "[[0, 0]]"}]);
    let updates: Vec<(String, Map<String, Value>)> = ["d3", "d4", "d3", "zz"]
        .iter()
        .map(|id| (id.to_string(), json!({"texta_facts": facts}).as_object().unwrap().clone()))
        .collect();
    let results = backend.bulk_update("corpus", updates).unwrap();
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 3);
    assert!(results[3].is_err());
    let tagged = json!({"nested": {"path": "texta_facts", "query": {"term": {"texta_facts.fact": "TAG"}}}});
    assert_eq!(matching(&backend, tagged), vec!["d3", "d4"]);
    assert_eq!(backend.count(&["corpus".into()], &json!({})).unwrap(), 4);
}

#[test]
fn search_response_is_elasticsearch_shaped() {
    let (_dir, backend) = corpus_store("shape");
    backend
        .bulk_index(
            "second",
            vec![Doc {
                id: Some("s1".into()),
                source: json!({"text": "varas varas varas"}),
            }],
        )
        .unwrap();
    let indices = vec!["corpus".to_string(), "second".to_string()];
    let body = json!({"query": {"match": {"text": "varas"}}, "size": 2, "_source": ["text"]});
    let response = backend.search(&indices, &body).unwrap();
    assert_eq!(response["timed_out"], json!(false));
    assert_eq!(response["hits"]["total"], json!({"value": 3, "relation": "eq"}));
    let hits = response["hits"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0]["_type"], json!("_doc"));
    let first = &hits[0]["_source"]["text"];
    assert_eq!(hits[0]["_source"].as_object().unwrap().len(), 1, "only the requested field");
    assert!(first.as_str().unwrap().to_lowercase().contains("varas"));
    assert_eq!(response["hits"]["max_score"], hits[0]["_score"]);
    assert!(hits[0]["_score"].as_f64().unwrap() >= hits[1]["_score"].as_f64().unwrap());

    // a huge page is bounded by the documents there are, not allocated
    let huge = backend
        .search(
            &indices,
            &json!({"query": {"match": {"text": "varas"}}, "from": u64::MAX, "size": u64::MAX}),
        )
        .unwrap();
    assert_eq!(
        (huge["hits"]["total"]["value"].clone(), huge["hits"]["hits"].clone()),
        (json!(3), json!([]))
    );
    let all = backend
        .search(
            &indices,
            &json!({"query": {"match": {"text": "varas"}}, "size": 1_000_000_000_000_000u64, "sort": ["_doc"]}),
        )
        .unwrap();
    assert_eq!(all["hits"]["hits"].as_array().unwrap().len(), 3);
    let page2 = backend
        .search(&indices, &json!({"query": {"match": {"text": "varas"}}, "from": 2, "size": 2}))
        .unwrap();
    let mut all = ids(&response);
    all.extend(ids(&page2));
    all.sort();
    assert_eq!(all, vec!["d1", "d4", "s1"]);
    let excluded = backend
        .search(
            &indices,
            &json!({"query": {"ids": {"values": ["d1"]}}, "_source": {"excludes": ["texta_facts", "a.*"]}}),
        )
        .unwrap();
    let source = &excluded["hits"]["hits"][0]["_source"];
    assert!(source.get("texta_facts").is_none() && source["a"] == json!({}) && source["n"] == json!(5));
}

/// Field sort as Elasticsearch: order, missing values, keyword/number/date keys, `sort`
/// arrays on the hits, no scores unless asked, paging, and text fields refused.
#[test]
fn field_sort_is_elasticsearch_shaped() {
    let (_dir, backend) = corpus_store("sort");
    let corpus = vec!["corpus".to_string()];
    let search = |body: Value| backend.search(&corpus, &body).unwrap_or_else(|e| panic!("{body}: {e}"));
    let order = |response: &Value| -> Vec<(String, Value)> {
        let hits = response["hits"]["hits"].as_array().unwrap();
        hits.iter()
            .map(|h| (h["_id"].as_str().unwrap().to_string(), h["sort"].clone()))
            .collect()
    };
    let by_n = search(json!({"sort": [{"n": {"order": "desc"}}]}));
    assert_eq!(
        order(&by_n),
        vec![
            ("d2".into(), json!([10])),
            ("d1".into(), json!([5])),
            ("d3".into(), json!([2])),
            ("d4".into(), json!([i64::MIN])),
        ]
    );
    assert_eq!(by_n["hits"]["max_score"], Value::Null);
    assert_eq!(by_n["hits"]["hits"][0]["_score"], Value::Null);
    assert_eq!(by_n["hits"]["total"], json!({"value": 4, "relation": "eq"}));
    let first = search(json!({"sort": {"n": {"order": "asc", "missing": "_first"}}, "size": 2}));
    // `n` is mapped `long` (first seen as 5), so 2.5 shows as 2, as Elasticsearch stores it
    assert_eq!(order(&first), vec![("d4".into(), json!([i64::MIN])), ("d3".into(), json!([2]))]);
    let labels = search(json!({"sort": ["label.keyword"], "from": 1, "size": 2}));
    assert_eq!(
        order(&labels),
        vec![("d4".into(), json!(["muu"])), ("d1".into(), json!(["politsei"]))]
    );
    let dates = search(json!({"query": {"exists": {"field": "date"}}, "sort": [{"date": "asc"}, "_doc"]}));
    let dates = order(&dates);
    assert_eq!((dates[0].0.as_str(), &dates[0].1[0]), ("d1", &json!(1578218400000i64)), "epoch ms");
    assert_eq!((dates[1].0.as_str(), &dates[1].1[0]), ("d2", &json!(1614556800000i64)));
    // `_doc` is the document's number in index order (segments as written)
    let mut numbers = [dates[0].1[1].as_u64().unwrap(), dates[1].1[1].as_u64().unwrap()];
    numbers.sort();
    assert_eq!(numbers, [0, 1]);
    let scored = search(json!({"query": {"match": {"text": "varas"}}, "sort": ["label.keyword"], "track_scores": true}));
    assert!(scored["hits"]["hits"][0]["_score"].as_f64().unwrap() > 0.0);
    assert!(scored["hits"]["max_score"].as_f64().unwrap() > 0.0);
    let err = backend.search(&corpus, &json!({"sort": [{"label": "asc"}]})).unwrap_err();
    assert!(
        matches!(&err, SearchError::BadQuery(m) if m.contains("use [label.keyword]")),
        "{err}"
    );
}

/// `aggs` in a search: Elasticsearch-shaped results under the request's names, across
/// indices, restricted to the query's documents; text fields and unknown kinds refused.
#[test]
fn scan_streams_in_batches() {
    let (_dir, backend) = corpus_store("scan");
    let mut sizes = Vec::new();
    let mut seen = Vec::new();
    backend
        .scan(&["corpus".into()], &json!({"query": {"match_all": {}}}), 3, &mut |batch| {
            sizes.push(batch.len());
            seen.extend(batch.into_iter().map(|h| h.id));
            Ok(())
        })
        .unwrap();
    seen.sort();
    assert_eq!(sizes, vec![3, 1]);
    assert_eq!(seen, vec!["d1", "d2", "d3", "d4"]);

    let mut count = 0;
    backend
        .scan(&["corpus".into()], &json!({"match": {"text": "varas"}}), 10, &mut |b| {
            count += b.len();
            Ok(())
        })
        .unwrap();
    assert_eq!(count, 2);
    let stop = backend.scan(&["corpus".into()], &json!({}), 1, &mut |_| Err(SearchError::Backend("stop".into())));
    assert!(matches!(stop, Err(SearchError::Backend(m)) if m == "stop"));
}

#[test]
fn random_document_and_empty_indices() {
    let (_dir, backend) = corpus_store("random");
    for _ in 0..10 {
        let hit = backend.random_document(&["corpus".into()]).unwrap().unwrap();
        assert!(["d1", "d2", "d3", "d4"].contains(&hit.id.as_str()));
        assert_eq!(hit.index, "corpus");
    }
    backend.create_index("empty").unwrap();
    backend.create_index("empty").unwrap();
    assert!(backend.random_document(&["empty".into()]).unwrap().is_none());
    assert_eq!(backend.list_indices().unwrap(), vec!["corpus", "empty"]);
    assert!(backend.index_exists("empty").unwrap());
    backend.delete_index("empty").unwrap();
    assert!(!backend.index_exists("empty").unwrap());
    assert!(matches!(backend.delete_index("empty"), Err(SearchError::IndexNotFound(_))));
    assert!(matches!(backend.create_index("../x"), Err(SearchError::InvalidIndexName(_))));
}

#[test]
fn fields_and_facts() {
    let (_dir, backend) = corpus_store("fields");
    let fields = backend.fields(&["corpus".into()]).unwrap();
    let listed: Vec<(&str, &str)> = fields[0].fields.iter().map(|f| (f.path.as_str(), f.field_type.as_str())).collect();
    assert_eq!(fields[0].index, "corpus");
    assert_eq!(
        listed,
        vec![
            ("a.b", "text"),
            ("date", "date"),
            ("label", "text"),
            ("n", "long"),
            ("tags", "text"),
            ("text", "text"),
            ("texta_facts", "fact"),
        ]
    );

    let facts = backend.facts(&["corpus".into()], &json!({"query": {"match_all": {}}}), 10).unwrap();
    type Summary = (String, u64, Vec<(String, u64)>);
    let summary: Vec<Summary> = facts
        .into_iter()
        .map(|f| (f.name, f.count, f.values.into_iter().map(|v| (v.value, v.count)).collect()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("LOC".into(), 2, vec![("Mari Tamm".into(), 1), ("Tallinn".into(), 1)]),
            ("PER".into(), 2, vec![("Jaan".into(), 1), ("Mari Tamm".into(), 1)]),
        ]
    );
    let only_d2 = backend.facts(&["corpus".into()], &json!({"match": {"text": "maja"}}), 1).unwrap();
    assert_eq!(only_d2.len(), 2);
    assert!(only_d2.iter().all(|f| f.values.len() == 1 && f.count == 1));
    assert_eq!(only_d2[1].values[0].value, "Jaan");
}

#[test]
fn documents_survive_without_close() {
    let dir = TempDir::new("crash");
    let backend = TantivyBackend::open(&dir.0).unwrap();
    backend.bulk_index("durable", corpus()).unwrap();
    std::mem::forget(backend); // no drop, no writer shutdown: as after kill -9
    let fresh = TantivyBackend::open(&dir.0).unwrap();
    assert_eq!(fresh.count(&["durable".into()], &json!({})).unwrap(), 4);
    assert_eq!(fresh.get_document("durable", "d1").unwrap().unwrap().source, corpus()[0].source);
    assert_eq!(fresh.fields(&["durable".into()]).unwrap()[0].fields.len(), 7);
}

#[test]
fn an_index_in_an_older_format_is_upgraded_in_place_with_its_facts() {
    let dir = TempDir::new("format");
    let before = TantivyBackend::open(&dir.0).unwrap();
    before.bulk_index("old", corpus()).unwrap();
    assert!(before.delete_document("old", "d4").unwrap()); // a deletion the upgrade must keep
    drop(before);
    std::fs::remove_file(dir.0.join("old").join("ta_format")).unwrap();
    let check = |backend: &TantivyBackend| {
        assert_eq!(backend.list_indices().unwrap(), ["old"]);
        assert_eq!(backend.count(&["old".into()], &json!({})).unwrap(), 3);
        assert_eq!(backend.get_document("old", "d1").unwrap().unwrap().source, corpus()[0].source);
        let nested = json!({"query": {"nested": {"path": "texta_facts", "query": {"term": {"texta_facts.str_val": "Mari Tamm"}}}}});
        let mut owners = ids(&backend.search(&["old".into()], &nested).unwrap());
        owners.sort();
        assert_eq!(owners, ["d1", "d2"]);
        assert!(!dir.0.join(".upgrading-old").exists());
    };
    let upgraded = TantivyBackend::open(&dir.0).unwrap();
    check(&upgraded);
    drop(upgraded);
    // an upgrade cut short (old files aside, the new index partial) starts again from the old files
    std::fs::remove_file(dir.0.join("old").join("ta_format")).unwrap();
    std::fs::rename(dir.0.join("old"), dir.0.join(".upgrading-old")).unwrap();
    std::fs::create_dir_all(dir.0.join("old")).unwrap();
    let resumed = TantivyBackend::open(&dir.0).unwrap();
    assert!(resumed.index_exists("old").unwrap());
    check(&resumed);
    resumed.delete_index("old").unwrap();
    assert_eq!(resumed.list_indices().unwrap(), Vec::<String>::new());
}

#[test]
fn info_reports_an_embedded_store() {
    let (dir, backend) = store("info");
    let info = backend.info();
    assert!(info.alive);
    assert_eq!(info.url, format!("embedded:{}", dir.0.display()));
    assert!(info.status.is_object());
}

#[test]
fn segments_of_an_import_merge_in_the_background_and_searches_see_the_result() {
    let (dir, backend) = store("merge");
    let lines: Vec<String> = (0..20).map(|i| format!("{{\"text\": \"rida {i}\", \"n\": {i}}}")).collect();
    let path = write_file(&dir, "rows.jsonl", &lines.join("\n"));
    import(&backend, "merged", &path, b','); // a commit every 2 rows: 10 segments
    let deadline = Instant::now() + Duration::from_secs(20);
    while backend.segment_counts("merged") != (1, 1) {
        assert!(
            Instant::now() < deadline,
            "the import's segments were not merged, or searches do not see the merge"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(matching_in(&backend, "merged", json!({"match": {"text": "rida"}})), 20);
    assert_eq!(matching_in(&backend, "merged", json!({"range": {"n": {"gte": 15}}})), 5);
}

#[test]
fn start_merges_merges_the_segments_an_ended_import_left() {
    let dir = TempDir::new("remerge");
    let backend = TantivyBackend::open(&dir.0).unwrap();
    let mut loader = backend.bulk_loader("left").unwrap();
    for n in 0..10 {
        loader
            .add(vec![Source::parse(json!({ "n": n }).to_string().into_bytes()).unwrap()])
            .unwrap();
        loader.commit().unwrap();
    }
    // the importing command ends before its merges run: what it left on disk, without its
    // writer's lock, is what the next process finds
    let ended = TempDir::new("remerge-ended");
    for entry in std::fs::read_dir(dir.0.join("left")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !name.ends_with(".lock") {
            std::fs::create_dir_all(ended.0.join("left")).unwrap();
            std::fs::copy(&path, ended.0.join("left").join(name)).unwrap();
        }
    }
    drop(loader);
    let fresh = TantivyBackend::open(&ended.0).unwrap();
    assert!(fresh.segment_counts("left").0 >= 8);
    fresh.start_merges().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while fresh.segment_counts("left") != (1, 1) {
        assert!(Instant::now() < deadline, "the segments were not merged");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(matching_in(&fresh, "left", json!({"range": {"n": {"gte": 0}}})), 10);
}

#[test]
fn documents_and_their_facts_stay_joined_across_segments_replacements_deletes_and_merges() {
    let (_dir, backend) = store("blocks");
    let index = vec!["blocks".to_string()];
    let fact = |name: &str, value: String| json!({"fact": name, "str_val": value, "doc_path": "t", "spans": "[[0, 0]]"});
    for i in 0..10 {
        let docs = vec![
            Doc {
                id: Some(format!("d{i}")),
                source: json!({"t": format!("doc {i}"), "texta_facts": [fact("PER", format!("p{i}")), fact("LOC", format!("l{i}"))]}),
            },
            Doc {
                id: Some(format!("bare{i}")),
                source: json!({"t": "no facts"}),
            },
        ];
        backend.bulk_index("blocks", docs).unwrap(); // a commit (a segment) each
    }
    let replaced = Doc {
        id: Some("d3".into()),
        source: json!({"t": "doc 3 again", "texta_facts": [fact("PER", "new".into())]}),
    };
    backend.bulk_index("blocks", vec![replaced]).unwrap();
    assert!(backend.delete_document("blocks", "d5").unwrap());
    let check = |backend: &TantivyBackend| {
        let owners = |value: &str| {
            let query = json!({"nested": {"path": "texta_facts", "query": {"term": {"texta_facts.str_val": value}}}});
            ids(&backend.search(&index, &json!({ "query": query })).unwrap())
        };
        assert_eq!(owners("p3"), Vec::<String>::new());
        assert_eq!(owners("new"), ["d3"]);
        assert_eq!(owners("p5"), Vec::<String>::new());
        assert_eq!(owners("l7"), ["d7"]);
        let all = json!({"size": 0, "aggs": {"f": {"nested": {"path": "texta_facts"}}}});
        assert_eq!(backend.search(&index, &all).unwrap()["aggregations"]["f"]["doc_count"], json!(17));
        let some = json!({"size": 0, "query": {"ids": {"values": ["d7", "d3", "bare1"]}},
                          "aggs": {"f": {"nested": {"path": "texta_facts"}, "aggs": {"v": {"terms": {"field": "texta_facts.str_val", "order": {"_key": "asc"}}}}}}});
        let aggs = backend.search(&index, &some).unwrap()["aggregations"].take();
        let keys: Vec<&str> = aggs["f"]["v"]["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["key"].as_str().unwrap())
            .collect();
        assert_eq!((aggs["f"]["doc_count"].clone(), keys), (json!(3), vec!["l7", "new", "p7"]));
    };
    check(&backend);
    backend.merge_all("blocks");
    let deadline = Instant::now() + Duration::from_secs(20);
    while backend.segment_counts("blocks") != (1, 1) {
        assert!(Instant::now() < deadline, "the merge is not seen");
        std::thread::sleep(Duration::from_millis(50));
    }
    check(&backend);
}

/// A field name holding the byte tantivy ends a JSON path with (NUL) names no indexed field:
/// a query clause on it is a bad query naming it instead of a misread term (the fuzzer's
/// panic in tantivy's `Term::typ`); sorts and aggregations see a field no document has; a
/// document with such a key is stored and found by its other fields.
#[test]
fn field_names_with_nul_are_bad_queries_and_break_nothing() {
    let (_dir, backend) = corpus_store("nul-fields");
    let doc = Doc {
        id: Some("nul".into()),
        source: json!({"text": "nul võti", "a\u{0}b": "peidus", "c\u{1}d": {"e\u{0}": 5}}),
    };
    assert!(backend.bulk_index("corpus", vec![doc]).unwrap().iter().all(|r| r.is_ok()));
    assert_eq!(matching(&backend, json!({"match": {"text": "võti"}})), vec!["nul"]);
    let path = "lag\u{0}00094600QQ";
    for query in [
        json!({"fuzzy": {path: {"value": "plitse"}}}),
        json!({"fuzzy": {"a\u{0}b": "peidus"}}),
        json!({"term": {path: "x"}}),
        json!({"term": {path: 5}}),
        json!({"terms": {path: ["x", 1]}}),
        json!({"match": {path: "peidus"}}),
        json!({"match_phrase": {path: "peidus here"}}),
        json!({"match_phrase_prefix": {path: "peidus he"}}),
        json!({"prefix": {path: "pe"}}),
        json!({"wildcard": {path: "pe*"}}),
        json!({"regexp": {path: "pe.*"}}),
        json!({"range": {path: {"gte": 1}}}),
        json!({"range": {path: {"gte": "2020-01-01"}}}),
        json!({"exists": {"field": path}}),
        json!({"multi_match": {"query": "peidus", "fields": [path, "text"]}}),
        json!({"query_string": {"query": format!("{path}:peidus")}}),
    ] {
        let found = backend.count(&["corpus".into()], &query);
        assert!(
            matches!(&found, Err(SearchError::BadQuery(m)) if m.starts_with("field names cannot contain the NUL character: ")),
            "{query}: {found:?}"
        );
    }
    // Sorting and aggregating read per-document values: a NUL path is a field no document has.
    let search = |body: Value| backend.search(&["corpus".into()], &body);
    let sorted = search(json!({"sort": [{path: "asc"}], "size": 10})).unwrap();
    assert_eq!(sorted["hits"]["hits"].as_array().unwrap().len(), 5);
    let terms = search(json!({"aggs": {"x": {"terms": {"field": path}}}})).unwrap();
    assert_eq!(terms["aggregations"]["x"]["buckets"], json!([]));
    let avg = search(json!({"aggs": {"x": {"avg": {"field": path}}}})).unwrap();
    assert_eq!(avg["aggregations"]["x"]["value"], Value::Null);
    let err = search(json!({"aggs": {"x": {"terms": {"field": "a\u{0}b"}}}})).unwrap_err();
    assert!(
        matches!(&err, SearchError::BadQuery(m) if m.ends_with("[a\0b] is a text field: use [a\0b.keyword]")),
        "{err}"
    );
}
