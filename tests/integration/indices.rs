//! Search indices end to end: dataset imports (multipart, background task, malformed rows),
//! documents, search actions, the index catalogue, regex `tag_random_doc` and
//! `apply_tagger_group` over HTTP against a real `ta serve`; and the CLI's `import`,
//! `search`, `doc` and `regex-tagger-group apply` in local and remote mode.
use crate::common;

use common::{normalize, ta, Server};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const CSV: &str = "text,label\nVaras peeti kinni.,politsei\nMaja põleng.,tuletõrje\n";

/// Upload `content` as `file_name` into a new import of `index`; returns the response.
fn upload(s: &Server, token: &str, pk: i64, index: &str, file_name: &str, content: &str) -> common::Resp {
    let form = reqwest::blocking::multipart::Form::new()
        .text("description", "imp")
        .text("index", index.to_string())
        .part(
            "file",
            reqwest::blocking::multipart::Part::text(content.to_string()).file_name(file_name.to_string()),
        );
    common::Resp::from(
        s.request("POST", &format!("/projects/{pk}/dataset_imports/"))
            .header("Authorization", format!("Token {token}"))
            .multipart(form)
            .send()
            .unwrap(),
    )
}

/// Poll a resource until its task has ended; returns the resource.
fn settle(s: &Server, token: &str, path: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let v = s.get(path, Some(token)).ok(200);
        if matches!(v["task"]["status"].as_str(), Some("completed" | "failed")) {
            return v;
        }
        assert!(Instant::now() < deadline, "task did not finish: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn setup() -> (Server, String, i64) {
    let s = Server::start();
    let token = s.admin_token();
    let pk = s.create_project(&token, "idx", &[])["id"].as_i64().unwrap();
    (s, token, pk)
}

#[test]
fn import_runs_in_background_and_attaches_index() {
    let (s, token, pk) = setup();
    let created = upload(&s, &token, pk, "news", "d.csv", CSV).ok(201);
    assert_eq!(created["task"]["status"], "created");
    let done = settle(&s, &token, &format!("/projects/{pk}/dataset_imports/1/"));
    assert_eq!(
        normalize(&done),
        json!({"id": 1, "url": format!("{}/projects/{pk}/dataset_imports/1/", s.base), "author_username": "admin",
               "description": "imp", "index": "news", "separator": ",", "num_documents": 2, "num_documents_success": 2,
               "task": {"id": 1, "status": "completed", "progress": 100.0, "step": "", "errors": "[]", "time_started": "<ts>",
                        "last_update": "<ts>", "time_completed": "<ts>", "total": 2, "num_processed": 2}})
    );
    s.get(&format!("/projects/{pk}/get_indices/"), Some(&token))
        .expect(200, json!({"indices": ["news"]}));
    s.get(&format!("/projects/{pk}/get_fields/"), Some(&token)).expect(
        200,
        json!([{"index": "news", "fields": [{"path": "label", "type": "text"}, {"path": "text", "type": "text"}]}]),
    );
}

#[test]
fn malformed_rows_are_counted_and_unknown_types_fail_the_task() {
    let (s, token, pk) = setup();
    upload(
        &s,
        &token,
        pk,
        "rows",
        "d.jsonl",
        "{\"text\": \"a\"}\nnot json\n{\"text\": \"b\"}\n",
    )
    .ok(201);
    let done = settle(&s, &token, &format!("/projects/{pk}/dataset_imports/1/"));
    assert_eq!(
        (done["num_documents"].clone(), done["num_documents_success"].clone()),
        (json!(3), json!(2))
    );
    assert_eq!(done["task"]["status"], "completed");
    let errors: Vec<String> = serde_json::from_str(done["task"]["errors"].as_str().unwrap()).unwrap();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].starts_with("line 2:"), "{errors:?}");

    upload(&s, &token, pk, "other", "d.pdf", "%PDF").ok(201);
    let failed = settle(&s, &token, &format!("/projects/{pk}/dataset_imports/2/"));
    assert_eq!(
        (failed["task"]["status"].clone(), failed["task"]["errors"].clone()),
        (json!("failed"), json!("[\"unknown file type\"]"))
    );
}

#[test]
fn import_validation() {
    let (s, token, pk) = setup();
    upload(&s, &token, pk, "Bad", "d.csv", CSV).expect(400, json!({"detail": "Uppercase characters are not allowed!"}));
    upload(&s, &token, pk, "ok", "d.csv", "").expect(400, json!({"file": ["The submitted file is empty."]}));
    s.post(
        &format!("/projects/{pk}/dataset_imports/"),
        Some(&token),
        &json!({"description": "x", "index": "ok", "file": "text"}),
    )
    .expect(
        400,
        json!({"file": ["The submitted data was not a file. Check the encoding type on the form."]}),
    );
    // A client cannot smuggle a server-side path in as an upload.
    let smuggled =
        json!({"description": "x", "index": "ok", "file": {"\u{0}upload": {"path": "/etc/hostname", "file_name": "h.csv", "owned": true}}});
    s.post(&format!("/projects/{pk}/dataset_imports/"), Some(&token), &smuggled).expect(
        400,
        json!({"file": ["The submitted data was not a file. Check the encoding type on the form."]}),
    );
    assert!(std::path::Path::new("/etc/hostname").exists());
}

#[test]
fn documents_and_search_actions() {
    let (s, token, pk) = setup();
    let p = format!("/projects/{pk}");
    let docs = json!({"documents": [
        {"_index": "docs", "_id": "a", "_source": {"text": "Varas peeti kinni", "meta": {"lang": "et"}}},
        {"_index": "docs", "_id": "b", "_source": {"text": "Maja põleng"}}]});
    s.post(&format!("{p}/elastic/documents/"), Some(&token), &docs).expect(
        200,
        json!({"errors": false, "items": [{"index": {"_index": "docs", "_id": "a", "result": "created", "status": 201}},
                                          {"index": {"_index": "docs", "_id": "b", "result": "created", "status": 201}}]}),
    );
    s.get(&format!("{p}/elastic/documents/docs/a/"), Some(&token)).expect(
        200,
        json!({"_index": "docs", "_type": "_doc", "_id": "a", "found": true, "_source": {"text": "Varas peeti kinni", "meta": {"lang": "et"}}}),
    );
    s.patch(&format!("{p}/elastic/documents/docs/b/"), Some(&token), &json!({"extra": 1}))
        .expect(
            200,
            json!({"_index": "docs", "_type": "_doc", "_id": "b", "found": true, "_source": {"text": "Maja põleng", "extra": 1}}),
        );
    s.post(
        &format!("{p}/search_by_query/"),
        Some(&token),
        &json!({"query": {"query": {"match": {"text": "varas"}}}}),
    )
    .expect(
        200,
        json!({"count": 1, "aggs": {}, "results": [{"highlight": {}, "doc": {"text": "Varas peeti kinni", "meta": {"lang": "et"}}}]}),
    );
    // highlighting as TEXTA's searcher asks for it: every field, whole values, its own tags
    let highlight = json!({"fields": {"*": {}}, "number_of_fragments": 0, "pre_tags": ["<TEXTA>"], "post_tags": ["</TEXTA>"]});
    s.post(
        &format!("{p}/search_by_query/"),
        Some(&token),
        &json!({"query": {"query": {"match": {"text": "varas"}}, "highlight": highlight}}),
    )
    .expect(
        200,
        json!({"count": 1, "aggs": {}, "results": [{"highlight": {"text": ["<TEXTA>Varas</TEXTA> peeti kinni"]},
                                                    "doc": {"text": "Varas peeti kinni", "meta": {"lang": "et"}}}]}),
    );
    s.post(
        &format!("{p}/search_by_query/"),
        Some(&token),
        &json!({"query": {"query": {"match_all": {}}, "highlight": {"fields": {"text": {}}, "tags_schema": "styled"}}}),
    )
    .expect(400, json!({"detail": "unsupported highlight option: tags_schema"}));
    s.post(&format!("{p}/search/"), Some(&token), &json!({"match_text": "põleng"}))
        .expect(200, json!([{"text": "Maja põleng", "extra": 1}]));
    let page = s.post(&format!("{p}/scroll/"), Some(&token), &json!({"documents_size": 1})).ok(200);
    assert_eq!(
        (page["total_documents"].clone(), page["returned_count"].clone()),
        (json!(2), json!(1))
    );
    let next = s
        .post(&format!("{p}/scroll/"), Some(&token), &json!({"scroll_id": page["scroll_id"]}))
        .ok(200);
    assert_eq!((next["returned_count"].clone(), next["scroll_id"].clone()), (json!(1), Value::Null));
    s.post(
        &format!("{p}/search_by_query/"),
        Some(&token),
        &json!({"query": {"query": {"percolate": {"field": "x"}}}}),
    )
    .expect(400, json!({"detail": "unsupported query clause: percolate"}));
    s.post(&format!("{p}/search_by_query/"), Some(&token), &json!({"indices": ["nope"]}))
        .expect(400, json!(["Inserted indices ['nope'] are not available to you."]));
    let deleted = s.delete(&format!("{p}/elastic/documents/docs/b/"), Some(&token));
    assert_eq!((deleted.status, deleted.text.as_str()), (204, ""));
    s.get(&format!("{p}/elastic/documents/docs/b/"), Some(&token))
        .expect(404, json!({"detail": "Not found."}));
    // The catalogue as TEXTA's Management page reads it: a plain list with the size in bytes
    // and the documents; closing and opening by its actions.
    let catalogue = s.get("/index/", Some(&token)).ok(200);
    let size = catalogue[0]["size"].as_u64().unwrap_or(0);
    assert!(size > 0, "{catalogue}");
    let url = format!("{}/index/1/", s.base);
    assert_eq!(
        catalogue,
        json!([{"id": 1, "url": url, "is_open": true, "name": "docs", "size": size, "doc_count": 1}])
    );
    s.get("/get_indices/", Some(&token)).expect(200, json!(["docs"]));
    s.patch("/index/1/close_index/", Some(&token), &json!({}))
        .expect(200, json!({"message": "Closed the index docs"}));
    s.get("/index/", Some(&token)).expect(
        200,
        json!([{"id": 1, "url": url, "is_open": false, "name": "docs", "size": 0, "doc_count": 0}]),
    );
    s.get("/get_indices/", Some(&token)).expect(200, json!([]));
    s.patch("/index/1/open_index/", Some(&token), &json!({}))
        .expect(200, json!({"message": "Opened the index docs"}));
    s.get("/index/1/", Some(&token))
        .expect(200, json!({"id": 1, "url": url, "is_open": true, "name": "docs"}));
    s.patch("/index/99/close_index/", Some(&token), &json!({}))
        .expect(404, json!({"detail": "Not found."}));
}

/// Elasticsearch date math in range bounds (`now-7d`, `now/d`, `<date>||/d`), rounding per
/// bound, and a clear 400 for a malformed expression.
#[test]
fn range_date_math() {
    use time::{format_description::well_known::Rfc3339, Duration as Span, OffsetDateTime};
    let (s, token, pk) = setup();
    let p = format!("/projects/{pk}");
    let now = OffsetDateTime::now_utc();
    let ago = |days: i64| (now - Span::days(days)).format(&Rfc3339).unwrap();
    let docs = json!({"documents": [
        {"_index": "dm", "_id": "recent", "_source": {"published": ago(2)}},
        {"_index": "dm", "_id": "old", "_source": {"published": ago(40)}}]});
    s.post(&format!("{p}/elastic/documents/"), Some(&token), &docs).ok(200);
    let ids = |range: Value| -> Vec<String> {
        let body = json!({"query": {"query": {"range": {"published": range}}}});
        let out = s.post(&format!("{p}/search_by_query/"), Some(&token), &body).ok(200);
        let mut ids: Vec<String> = out["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| if r["doc"]["published"] == json!(ago(2)) { "recent" } else { "old" }.to_string())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(json!({"gte": "now-7d"})), ["recent"]);
    assert_eq!(ids(json!({"lt": "now-7d/d"})), ["old"]);
    assert_eq!(ids(json!({"gte": "now-41d/d", "lte": "now-39d/d"})), ["old"]);
    // the day of `old`, whole: gte rounds down to its midnight, lte up to its last millisecond
    let day = &ago(40)[..10];
    assert_eq!(ids(json!({"gte": format!("{day}||/d"), "lte": format!("{day}||/d")})), ["old"]);
    // gt rounds up: everything after that day
    assert_eq!(ids(json!({"gt": format!("{day}||/d")})), ["recent"]);
    let bad = json!({"query": {"query": {"range": {"published": {"gte": "now-1x"}}}}});
    s.post(&format!("{p}/search_by_query/"), Some(&token), &bad)
        .expect(400, json!({"detail": "invalid date math: now-1x"}));
    let zoned = json!({"query": {"query": {"range": {"published": {"gte": "now-1d", "time_zone": "+02:00"}}}}});
    s.post(&format!("{p}/search_by_query/"), Some(&token), &zoned).expect(
        400,
        json!({"detail": "unsupported range option: time_zone \"+02:00\" (dates are UTC)"}),
    );
    assert_eq!(ids(json!({"gte": "now-7d", "time_zone": "UTC"})), ["recent"]);
}

/// `sort` and `aggs` in search_by_query: numbers descending with a missing value last,
/// keywords with paging, aggregations in the response's `aggs`, and a text field refused with
/// Elasticsearch's advice.
#[test]
fn search_by_query_sorts_and_aggregates() {
    let (s, token, pk) = setup();
    let p = format!("/projects/{pk}");
    let docs = json!({"documents": [
        {"_index": "st", "_id": "1", "_source": {"title": "beta", "n": 3}},
        {"_index": "st", "_id": "2", "_source": {"title": "alpha", "n": 10}},
        {"_index": "st", "_id": "3", "_source": {"title": "gamma"}}]});
    s.post(&format!("{p}/elastic/documents/"), Some(&token), &docs).ok(200);
    let titles = |query: Value| -> Vec<Value> {
        let out = s
            .post(&format!("{p}/search_by_query/"), Some(&token), &json!({ "query": query }))
            .ok(200);
        out["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["doc"]["title"].clone())
            .collect()
    };
    assert_eq!(
        titles(json!({"sort": [{"n": "desc"}]})),
        [json!("alpha"), json!("beta"), json!("gamma")]
    );
    assert_eq!(
        titles(json!({"sort": [{"n": {"order": "asc", "missing": "_first"}}]})),
        [json!("gamma"), json!("beta"), json!("alpha")]
    );
    assert_eq!(titles(json!({"sort": ["title.keyword"], "from": 1, "size": 1})), [json!("beta")]);
    let aggs = json!({"query": {"size": 0, "aggs": {
        "titles": {"terms": {"field": "title.keyword", "order": {"_key": "desc"}}},
        "top": {"max": {"field": "n"}}}}});
    let out = s.post(&format!("{p}/search_by_query/"), Some(&token), &aggs).ok(200);
    assert_eq!(
        out,
        json!({"count": 3, "results": [], "aggs": {
            "titles": {"buckets": [{"key": "gamma", "doc_count": 1}, {"key": "beta", "doc_count": 1}, {"key": "alpha", "doc_count": 1}],
                       "sum_other_doc_count": 0, "doc_count_error_upper_bound": 0},
            "top": {"value": 10.0}}})
    );
    let body = json!({"query": {"sort": [{"title": "asc"}]}});
    let err = s.post(&format!("{p}/search_by_query/"), Some(&token), &body).ok(400);
    assert!(err["detail"].as_str().unwrap().contains("use [title.keyword]"), "{err}");
}

/// The aggregations TEXTA's clients send that tantivy lacks: fact names and values through
/// `nested` on `texta_facts`, `filter`, and a calendar `date_histogram`.
#[test]
fn search_by_query_aggregates_facts_and_calendar_months() {
    let (s, token, pk) = setup();
    let p = format!("/projects/{pk}");
    let fact = |name: &str, value: &str| json!({"fact": name, "str_val": value, "doc_path": "text", "spans": "[[0, 0]]"});
    let docs = json!({"documents": [
        {"_index": "fa", "_id": "1", "_source": {"text": "a", "day": "2024-01-31T10:00:00Z", "texta_facts": [fact("PER", "Mari"), fact("LOC", "Tartu")]}},
        {"_index": "fa", "_id": "2", "_source": {"text": "b", "day": "2024-03-01T00:00:00Z", "texta_facts": [fact("PER", "Mari")]}},
        {"_index": "fa", "_id": "3", "_source": {"text": "c", "day": "2024-03-15T00:00:00Z"}}]});
    s.post(&format!("{p}/elastic/documents/"), Some(&token), &docs).ok(200);
    let aggs = json!({"query": {"size": 0, "aggs": {
        "facts": {"nested": {"path": "texta_facts"}, "aggs": {"names": {"terms": {"field": "texta_facts.fact"}}}},
        "march": {"filter": {"range": {"day": {"gte": "2024-03-01"}}}},
        "months": {"date_histogram": {"field": "day", "calendar_interval": "month"}}}}});
    let out = s.post(&format!("{p}/search_by_query/"), Some(&token), &aggs).ok(200);
    let month = |key: &str, millis: i64, n: u64| json!({"key_as_string": key, "key": millis, "doc_count": n});
    assert_eq!(
        out,
        json!({"count": 3, "results": [], "aggs": {
            "facts": {"doc_count": 3, "names": {"buckets": [{"key": "PER", "doc_count": 2}, {"key": "LOC", "doc_count": 1}],
                                                "sum_other_doc_count": 0, "doc_count_error_upper_bound": 0}},
            "march": {"doc_count": 2},
            "months": {"buckets": [
                month("2024-01-01T00:00:00.000Z", 1704067200000, 1),
                month("2024-02-01T00:00:00.000Z", 1706745600000, 0),
                month("2024-03-01T00:00:00.000Z", 1709251200000, 2)]}}})
    );
    let nested_in_histogram =
        json!({"query": {"aggs": {"t": {"histogram": {"field": "n", "interval": 1}, "aggs": {"f": {"nested": {"path": "texta_facts"}}}}}}});
    let err = s.post(&format!("{p}/search_by_query/"), Some(&token), &nested_in_histogram).ok(400);
    assert_eq!(
        err,
        json!({"detail": "unsupported aggs: a nested aggregation ([f]) inside a histogram aggregation; put it at the top level or \
                          inside nested, reverse_nested, filter, filters, global or terms"})
    );
}

#[test]
fn regex_random_doc_and_apply_group() {
    let (s, token, pk) = setup();
    let p = format!("/projects/{pk}");
    s.post(
        &format!("{p}/elastic/documents/"),
        Some(&token),
        &json!({"documents": [{"_index": "docs", "_id": "a", "_source": {"body": {"text": "varas tuli"}}}]}),
    )
    .ok(200);
    s.post(
        &format!("{p}/regex_taggers/"),
        Some(&token),
        &json!({"description": "politsei", "lexicon": ["varas"]}),
    )
    .ok(201);
    s.post(
        &format!("{p}/regex_tagger_groups/"),
        Some(&token),
        &json!({"description": "hädaabi", "regex_taggers": [1]}),
    )
    .ok(201);
    s.post(
        &format!("{p}/regex_taggers/1/tag_random_doc/"),
        Some(&token),
        &json!({"fields": ["body.text"]}),
    )
    .expect(
        200,
        // api.md's match (`str_val`, `span`, `field`) and the web client's fact in one.
        json!({"tagger_id": 1, "tag": "politsei", "result": true, "matches": [{"str_val": "varas", "span": [0, 5], "field": "body.text",
                   "fact": "politsei", "doc_path": "body.text", "spans": "[[0, 5]]", "source": "{\"regextagger_id\": 1}"}],
               "document": {"body.text": "varas tuli", "id": "a"}}),
    );
    s.post(
        &format!("{p}/regex_tagger_groups/1/tag_random_doc/"),
        Some(&token),
        &json!({"fields": ["body.text"]}),
    )
    .expect(
        200,
        json!({"tagger_group_id": 1, "tagger_group_tag": "hädaabi", "result": true,
                   "tags": [{"tag": "politsei", "tagger_id": 1, "matches": [{"str_val": "varas", "span": [0, 5], "field": "body.text"}]}],
                   "matches": [{"fact": "hädaabi", "str_val": "politsei", "doc_path": "body.text", "spans": "[[0, 5]]",
                                "source": "{\"regextaggergroup_id\": 1, \"regextagger_id\": 1}"}],
                   "document": {"body.text": "varas tuli", "id": "a"}}),
    );
    s.post(
        &format!("{p}/regex_tagger_groups/1/tag_random_doc/"),
        Some(&token),
        &json!({"fields": ["body.text"], "indices": [{"name": "nope"}]}),
    )
    .expect(400, json!(["Inserted indices ['nope'] are not available to you."]));
    s.post(
        &format!("{p}/regex_tagger_groups/1/apply_tagger_group/"),
        Some(&token),
        &json!({"description": "run", "fields": ["body.text"]}),
    )
    .expect(200, json!({"message": "Started process of applying RegexTaggerGroup with id: 1"}));
    let g = settle(&s, &token, &format!("{p}/regex_tagger_groups/1/"));
    assert_eq!(
        (
            g["task"]["status"].clone(),
            g["task"]["total"].clone(),
            g["task"]["num_processed"].clone()
        ),
        (json!("completed"), json!(1), json!(1))
    );
    s.get(&format!("{p}/elastic/documents/docs/a/"), Some(&token)).expect(
        200,
        json!({"_index": "docs", "_type": "_doc", "_id": "a", "found": true, "_source": {"body": {"text": "varas tuli"},
               "texta_facts": [{"fact": "hädaabi", "str_val": "politsei", "doc_path": "body.text", "spans": "[[0, 5]]"}]}}),
    );
    // get_facts and autocomplete_fact_values as TEXTA's web client calls them.
    s.post(&format!("{p}/get_facts/"), Some(&token), &json!({}))
        .expect(200, json!([{"name": "hädaabi", "values": ["politsei"]}]));
    s.post(
        &format!("{p}/get_facts/"),
        Some(&token),
        &json!({"indices": [{"name": "docs"}], "output_type": false}),
    )
    .expect(200, json!(["hädaabi"]));
    s.post(
        &format!("{p}/get_facts/"),
        Some(&token),
        &json!({"indices": [{"name": "elsewhere"}]}),
    )
    .expect(400, json!(["Inserted indices ['elsewhere'] are not available to you."]));
    let complete = |startswith: &str| {
        s.post(
            &format!("{p}/autocomplete_fact_values/"),
            Some(&token),
            &json!({"limit": 10, "startswith": startswith, "fact_name": "hädaabi"}),
        )
        .ok(200)
    };
    assert_eq!(
        (complete("pol"), complete(""), complete("tule")),
        (json!(["politsei"]), json!(["politsei"]), json!([]))
    );
    s.post(&format!("{p}/autocomplete_fact_values/"), Some(&token), &json!({"startswith": "p"}))
        .expect(400, json!({"fact_name": ["This field is required."]}));
}

#[test]
fn cli_import_search_doc_apply_local_and_remote() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    let file = data.join("d.csv");
    std::fs::write(&file, CSV).unwrap();
    ta(data, &["project", "create", "--title", "p", "--json"]).ok();
    let import_args = [
        "import",
        "--project",
        "1",
        "--index",
        "news",
        "--description",
        "d",
        file.to_str().unwrap(),
        "--json",
    ];
    let imported = ta(data, &import_args).ok();
    assert_eq!(
        (imported["num_documents_success"].clone(), imported["task"]["status"].clone()),
        (json!(2), json!("completed"))
    );
    assert!(file.exists(), "a local import must not remove the user's file");
    let hits = ta(data, &["search", "--project", "1", "varas"]);
    assert_eq!(hits.code, 0, "{hits:?}");
    let lines: Vec<Value> = hits.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["_source"], json!({"text": "Varas peeti kinni.", "label": "politsei"}));
    // The request body users copy from Elasticsearch works too: query and size, or aggs.
    let body = r#"{"query": {"match_all": {}}, "size": 1}"#;
    let hits = ta(data, &["search", "--project", "1", body]);
    assert_eq!((hits.code, hits.stdout.lines().count()), (0, 1), "{hits:?}");
    let body = r#"{"query": {"match": {"text": "varas"}}, "aggs": {"labels": {"terms": {"field": "label.keyword"}}}}"#;
    let answer = ta(data, &["search", "--project", "1", body]).ok();
    assert_eq!(answer["count"], json!(1), "{answer}");
    assert_eq!(answer["aggs"]["labels"]["buckets"][0]["key"], json!("politsei"), "{answer}");
    ta(
        data,
        &[
            "doc",
            "put",
            "--project",
            "1",
            "--index",
            "news",
            "--id",
            "x",
            "{\"text\": \"varas jälle\"}",
            "--json",
        ],
    )
    .ok();
    assert_eq!(
        ta(data, &["doc", "get", "--project", "1", "--index", "news", "x", "--json"]).ok()["_source"],
        json!({"text": "varas jälle"})
    );
    ta(
        data,
        &[
            "regex-tagger",
            "create",
            "--project",
            "1",
            "--description",
            "politsei",
            "--lexicon",
            "varas",
            "--json",
        ],
    )
    .ok();
    ta(
        data,
        &[
            "regex-tagger-group",
            "create",
            "--project",
            "1",
            "--description",
            "g",
            "--tagger",
            "1",
            "--json",
        ],
    )
    .ok();
    let applied = ta(
        data,
        &[
            "regex-tagger-group",
            "apply",
            "1",
            "--description",
            "run",
            "--field",
            "text",
            "--json",
        ],
    )
    .ok();
    assert_eq!(
        (applied["task"]["status"].clone(), applied["task"]["total"].clone()),
        (json!("completed"), json!(3))
    );
    let tagged = ta(
        data,
        &[
            "search",
            "--project",
            "1",
            "{\"nested\": {\"path\": \"texta_facts\", \"query\": {\"match_all\": {}}}}",
        ],
    );
    assert_eq!(tagged.stdout.lines().count(), 2, "{tagged:?}");
    ta(data, &["doc", "delete", "--project", "1", "--index", "news", "x"]);
    ta(data, &["doc", "get", "--project", "1", "--index", "news", "x"]).fails(5);

    // Remote: the same import against a server gives the same resource.
    let server = Server::start();
    let token = server.admin_token();
    server.create_project(&token, "p", &[]);
    let remote = common::ta_env(
        data,
        &import_args,
        &[("TA_SERVER", Some(server.origin.as_str())), ("TA_TOKEN", Some(token.as_str()))],
    )
    .ok();
    let local = replace_base(&normalize(&imported), "http://127.0.0.1:8000/api/v1", &server.base);
    assert_eq!(normalize(&remote), local);

    // Index management, local and remote alike.
    let remote_env = [("TA_SERVER", Some(server.origin.as_str())), ("TA_TOKEN", Some(token.as_str()))];
    let listed = ta(data, &["index", "list", "--json"]).ok();
    let size = listed[0]["size"].as_u64().unwrap_or(0);
    assert!(size > 0, "{listed}");
    assert_eq!(
        listed,
        json!([{"id": 1, "url": "http://127.0.0.1:8000/api/v1/index/1/", "is_open": true, "name": "news", "size": size, "doc_count": 2}])
    );
    // The size is the store's: the server's merges may change it between the two lists.
    let mut remote_listed = common::ta_env(data, &["index", "list", "--json"], &remote_env).ok();
    assert!(remote_listed[0]["size"].as_u64().unwrap_or(0) > 0, "{remote_listed}");
    remote_listed[0]["size"] = json!(size);
    assert_eq!(remote_listed, replace_base(&listed, "http://127.0.0.1:8000/api/v1", &server.base));
    let closed = ta(data, &["index", "update", "1", "--open", "false", "--json"]).ok();
    assert_eq!(closed["is_open"], json!(false));
    let remote_closed = common::ta_env(data, &["index", "update", "1", "--open", "false", "--json"], &remote_env).ok();
    assert_eq!(remote_closed, replace_base(&closed, "http://127.0.0.1:8000/api/v1", &server.base));
    let deleted = ta(data, &["index", "delete", "1"]);
    assert_eq!((deleted.code, deleted.stdout.as_str()), (0, ""), "{deleted:?}");
    ta(data, &["index", "show", "1"]).fails(5);
    ta(data, &["doc", "get", "--project", "1", "--index", "news", "x"]).fails(5);
}

fn replace_base(v: &Value, from: &str, to: &str) -> Value {
    common::replace_in(v, from, to)
}
