//! Applying models to an index (`collection.md` §2) over HTTP against a real `ta serve`:
//! regex taggers and taggers write their facts into the selected documents, a second run
//! replaces the first's facts instead of adding to them, the model keeps tagging while its
//! task shows the apply run, and bad requests get the reference's messages.
use crate::common;

use common::Server;
use serde_json::{json, Value};

/// Crime reports and weather reports, 20 of each, with ids.
fn corpus() -> String {
    let crime = [
        "varas varastas poest telefoni",
        "politsei pidas varga kinni",
        "varas murdis korterisse sisse",
    ];
    let weather = [
        "homme sajab vihma ja tuul on tugev",
        "ilm on päikeseline ja soe",
        "öösel on külm ja sajab lund",
    ];
    let mut out = String::new();
    for i in 0..20 {
        for (label, texts) in [("crime", &crime), ("weather", &weather)] {
            let text = format!("{} {}", texts[i % 3], texts[(i + 1) % 3]);
            out.push_str(&json!({"text": text, "label": label, "n": i}).to_string());
            out.push('\n');
        }
    }
    out
}

fn setup() -> (Server, String, i64) {
    let s = Server::start();
    let token = s.admin_token();
    let pk = s.create_project(&token, "apply", &[])["id"].as_i64().unwrap();
    s.import_jsonl(&token, pk, "news", &corpus());
    (s, token, pk)
}

/// Every document's facts of fact name `name`, keyed by the document's `label` and `n`.
fn facts_of(s: &Server, token: &str, pk: i64, name: &str) -> Vec<(String, i64, Vec<Value>)> {
    let hits = s
        .post(
            &format!("/projects/{pk}/search_by_query/"),
            Some(token),
            &json!({"query": {"query": {"match_all": {}}, "size": 100}}),
        )
        .ok(200);
    let mut out: Vec<(String, i64, Vec<Value>)> = hits["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let src = &h["doc"];
            let facts = src["texta_facts"]
                .as_array()
                .map(|f| f.iter().filter(|f| f["fact"] == name).cloned().collect())
                .unwrap_or_default();
            (src["label"].as_str().unwrap().to_string(), src["n"].as_i64().unwrap(), facts)
        })
        .collect();
    out.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    out
}

#[test]
fn regex_tagger_writes_match_facts_and_a_second_run_replaces_them() {
    let (s, t, pk) = setup();
    let p = format!("/projects/{pk}");
    s.post(
        &format!("{p}/regex_taggers/"),
        Some(&t),
        &json!({"description": "vargus", "lexicon": ["varas", "varga"]}),
    )
    .ok(201);
    assert!(s.get(&format!("{p}/regex_taggers/1/"), Some(&t)).ok(200).get("task").is_none());
    let apply = |body: Value| s.post(&format!("{p}/regex_taggers/1/apply_to_index/"), Some(&t), &body);
    apply(json!({"description": "run", "fields": ["text"], "indices": [{"name": "news"}],
                 "query": "{\"query\": {\"match\": {\"label\": \"crime\"}}}"}))
    .expect(201, json!({"message": "Started process of applying RegexTagger with id: 1"}));
    let done = s.settle(&t, &format!("{p}/regex_taggers/1/"));
    assert_eq!(
        (
            &done["task"]["status"],
            &done["task"]["total"],
            &done["task"]["num_processed"],
            &done["task"]["step"]
        ),
        (&json!("completed"), &json!(20), &json!(20), &json!(""))
    );
    let first = facts_of(&s, &t, pk, "vargus");
    // Fact name defaults to the description, the value to the match; spans in code points.
    let (label, n, facts) = &first[0];
    assert_eq!((label.as_str(), *n), ("crime", 0));
    // "varas varastas poest telefoni politsei pidas varga kinni": prefixes match.
    assert_eq!(
        facts,
        &vec![
            json!({"fact": "vargus", "str_val": "varas", "doc_path": "text", "spans": "[[0, 5]]"}),
            json!({"fact": "vargus", "str_val": "varastas", "doc_path": "text", "spans": "[[6, 14]]"}),
            json!({"fact": "vargus", "str_val": "varga", "doc_path": "text", "spans": "[[45, 50]]"}),
        ]
    );
    assert!(first.iter().filter(|(l, ..)| l == "weather").all(|(_, _, f)| f.is_empty()));
    // Applying again to every document with a new value replaces nothing of the first run
    // (other values), and applying that again adds nothing.
    for _ in 0..2 {
        apply(json!({"description": "again", "fields": ["text"], "new_fact_value": "VARGUS", "add_spans": false})).ok(201);
        s.settle(&t, &format!("{p}/regex_taggers/1/"));
    }
    let second = facts_of(&s, &t, pk, "vargus");
    let mut expected = first[0].2.clone();
    expected.push(json!({"fact": "vargus", "str_val": "VARGUS", "doc_path": "text", "spans": "[[0, 0]]"}));
    assert_eq!(second[0].2, expected);
    // The run without a value owns every value of its fact name on its fields: running it
    // again leaves only its own matches.
    apply(json!({"description": "run", "fields": ["text"]})).ok(201);
    s.settle(&t, &format!("{p}/regex_taggers/1/"));
    assert_eq!(
        facts_of(&s, &t, pk, "vargus"),
        first.iter().map(|(l, n, f)| (l.clone(), *n, f.clone())).collect::<Vec<_>>()
    );
    // The facts are searchable and countable at once.
    s.post(&format!("{p}/get_facts/"), Some(&t), &json!({}))
        .expect(200, json!([{"name": "vargus", "values": ["varas", "varga", "varastas"]}]));
}

#[test]
fn tagger_writes_its_positives_and_keeps_tagging_while_its_task_is_the_apply_run() {
    let (s, t, pk) = setup();
    let p = format!("/projects/{pk}");
    let body = json!({"description": "crime", "fields": ["text"], "vectorizer": "Count Vectorizer",
                      "query": {"query": {"match": {"label": "crime"}}}, "indices": [{"name": "news"}]});
    let id = s.post(&format!("{p}/taggers/"), Some(&t), &body).ok(201)["id"].as_i64().unwrap();
    let trained = s.settle(&t, &format!("{p}/taggers/{id}/"));
    assert_eq!(trained["task"]["status"], "completed");
    for _ in 0..2 {
        s.post(
            &format!("{p}/taggers/{id}/apply_to_index/"),
            Some(&t),
            &json!({"description": "topic", "new_fact_name": "TOPIC", "fields": ["text"], "bulk_size": 7}),
        )
        .expect(201, json!({"message": format!("Started process of applying Tagger with id: {id}")}));
        let done = s.settle(&t, &format!("{p}/taggers/{id}/"));
        assert_eq!(
            (&done["task"]["status"], &done["task"]["num_processed"]),
            (&json!("completed"), &json!(40))
        );
        assert_ne!(
            done["task"]["id"], trained["task"]["id"],
            "the apply run replaced the training task"
        );
        // Precision and the rest are still the training's.
        assert_eq!(done["precision"], trained["precision"]);
    }
    let facts = facts_of(&s, &t, pk, "TOPIC");
    for (label, n, f) in &facts {
        let expected = if label == "crime" {
            vec![json!({"fact": "TOPIC", "str_val": "crime", "doc_path": "text", "spans": "[[0, 0]]"})]
        } else {
            vec![]
        };
        assert_eq!(f, &expected, "{label} {n}");
    }
    let tagged = s
        .post(
            &format!("{p}/taggers/{id}/tag_text/"),
            Some(&t),
            &json!({"text": "varas murdis sisse"}),
        )
        .ok(200);
    assert_eq!(tagged["result"], true);
}

#[test]
fn bad_requests_get_the_reference_messages() {
    let (s, t, pk) = setup();
    let p = format!("/projects/{pk}");
    s.post(
        &format!("{p}/regex_taggers/"),
        Some(&t),
        &json!({"description": "vargus", "lexicon": ["varas"]}),
    )
    .ok(201);
    // A tagger whose training failed (no positives) has no model.
    let failed = s
        .post(
            &format!("{p}/taggers/"),
            Some(&t),
            &json!({"description": "none", "fields": ["text"], "query": {"query": {"match": {"label": "nothing"}}}}),
        )
        .ok(201);
    let failed = s.settle(&t, &format!("{p}/taggers/{}/", failed["id"]));
    assert_eq!(failed["task"]["status"], "failed");
    let cases = [
        (
            "taggers/1",
            json!({"description": "x", "fields": ["text"]}),
            json!({"new_fact_name": ["This field is required."]}),
        ),
        (
            "taggers/1",
            json!({"description": "x", "new_fact_name": "F", "fields": ["text"]}),
            json!({"detail": "Model does not exist"}),
        ),
        (
            "regex_taggers/1",
            json!({"description": "x"}),
            json!({"fields": ["This field is required."]}),
        ),
        (
            "regex_taggers/1",
            json!({"description": "x", "fields": ["nope"]}),
            json!({"fields": ["Entered fields not in current project fields: {'label', 'n', 'text'}"]}),
        ),
        (
            "regex_taggers/1",
            json!({"description": "x", "fields": ["text"], "query": "{"}),
            json!({"query": ["Value must be valid JSON."]}),
        ),
        (
            "regex_taggers/1",
            json!({"description": "x", "fields": ["text"], "indices": ["elsewhere"]}),
            json!(["Inserted indices ['elsewhere'] are not available to you."]),
        ),
        (
            "regex_taggers/1",
            json!({"description": "x", "fields": ["text"], "bulk_size": 0}),
            json!({"bulk_size": ["Ensure this value is greater than or equal to 1."]}),
        ),
        (
            "regex_taggers/9",
            json!({"description": "x", "fields": ["text"]}),
            json!({"detail": "Not found."}),
        ),
    ];
    for (model, body, expected) in cases {
        let r = s.post(&format!("{p}/{model}/apply_to_index/"), Some(&t), &body);
        assert_eq!(
            (r.json(), r.status),
            (expected.clone(), if expected["detail"] == "Not found." { 404 } else { 400 }),
            "{model} {body}"
        );
    }
    // A query the store refuses is the request's error, not a failed task.
    let r = s.post(
        &format!("{p}/regex_taggers/1/apply_to_index/"),
        Some(&t),
        &json!({"description": "x", "fields": ["text"], "query": {"query": {"no_such_clause": {}}}}),
    );
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.json()["detail"].is_string(), "{}", r.text);
    assert!(s.get(&format!("{p}/regex_taggers/1/"), Some(&t)).ok(200).get("task").is_none());
}

/// `ta regex-tagger apply`, `ta tagger apply` and `ta mlp-index create|retry` locally and
/// against a server: the same resources, the same documents afterwards.
#[test]
fn cli_apply_local_and_remote_give_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("news.jsonl");
    std::fs::write(&file, corpus()).unwrap();
    let server = Server::start();
    let token = server.admin_token();
    let remote_env = [("TA_SERVER", Some(server.origin.as_str())), ("TA_TOKEN", Some(token.as_str()))];
    let with_language = crate::mlp::have_data();
    let run = |data: &std::path::Path, env: &[(&str, Option<&str>)]| -> Vec<Value> {
        let ta = |args: &[&str]| common::ta_env(data, args, env);
        let file = file.to_str().unwrap();
        ta(&["project", "create", "--title", "p", "--json"]).ok();
        ta(&["import", "--project", "1", "--index", "news", "--description", "d", file, "--json"]).ok();
        ta(&[
            "regex-tagger",
            "create",
            "--project",
            "1",
            "--description",
            "vargus",
            "--lexicon",
            "varas",
            "--json",
        ])
        .ok();
        let mut outs = vec![ta(&[
            "regex-tagger",
            "apply",
            "1",
            "--field",
            "text",
            "--fact-value",
            "V",
            "--no-spans",
            "--json",
        ])
        .ok()];
        let query = r#"{"query": {"match": {"label": "crime"}}}"#;
        ta(&[
            "tagger",
            "create",
            "--project",
            "1",
            "--description",
            "crime",
            "--field",
            "text",
            "--query",
            query,
            "--json",
        ])
        .ok();
        outs.push(ta(&["tagger", "apply", "1", "--field", "text", "--fact-name", "TOPIC", "--json"]).ok());
        let failed = ta(&["tagger", "apply", "1", "--field", "nope", "--fact-name", "T"]).fails(3);
        outs.push(json!(failed));
        if with_language {
            outs.push(
                ta(&[
                    "mlp-index",
                    "create",
                    "--project",
                    "1",
                    "--field",
                    "text",
                    "--analyzer",
                    "lemmas",
                    "--json",
                ])
                .ok(),
            );
            outs.push(ta(&["mlp-index", "retry", "1", "--json"]).ok());
        }
        // Every document's source (ids are generated), in one order.
        let found = ta(&["search", "--project", "1", r#"{"match_all": {}}"#]);
        let mut docs: Vec<Value> = found
            .stdout
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["_source"].clone())
            .collect();
        docs.sort_by_key(|d| (d["label"].as_str().unwrap_or_default().to_string(), d["n"].as_i64()));
        outs.push(json!(docs));
        outs
    };
    let local = run(dir.path(), &[]);
    let remote = run(dir.path(), &remote_env);
    let local: Vec<Value> = local
        .iter()
        .map(|v| common::replace_in(&common::normalize(v), "http://127.0.0.1:8000/api/v1", &server.base))
        .collect();
    let remote: Vec<Value> = remote.iter().map(common::normalize).collect();
    assert_eq!(local, remote);
    assert_eq!(local[0]["task"]["num_processed"], 40, "{}", local[0]);
    assert_eq!(local[1]["task"]["status"], "completed", "{}", local[1]);
    let docs = local.last().unwrap().as_array().unwrap();
    let crime = docs.iter().find(|d| d["label"] == "crime").unwrap();
    assert!(
        crime["texta_facts"]
            .as_array()
            .unwrap()
            .contains(&json!({"fact": "TOPIC", "str_val": "crime", "doc_path": "text", "spans": "[[0, 0]]"})),
        "{crime}"
    );
}

/// Applies model `path` (`/projects/{p}/<kind>/{id}/`) over field `text` under fact name
/// `fact` with the extra request `options`, and checks the property of `collection.md`
/// §2.2 on every document: its facts of that name are exactly the values `tag_text` gives
/// its text (`expected`: the values from a tag_text answer).
pub fn assert_apply_matches_tag_text(s: &Server, t: &str, pk: i64, path: &str, options: Value, expected: impl Fn(&Value) -> Vec<String>) {
    let mut body = json!({"description": "apply", "new_fact_name": "APPLIED", "fields": ["text"]});
    body.as_object_mut()
        .unwrap()
        .extend(options.as_object().cloned().unwrap_or_default());
    s.post(&format!("{path}apply_to_index/"), Some(t), &body).ok(201);
    let done = s.settle(t, path);
    assert_eq!(done["task"]["status"], "completed", "{done}");
    let hits = s
        .post(
            &format!("/projects/{pk}/search_by_query/"),
            Some(t),
            &json!({"query": {"query": {"match_all": {}}, "size": 1000}}),
        )
        .ok(200);
    let mut positives = 0;
    for hit in hits["results"].as_array().unwrap() {
        let doc = &hit["doc"];
        let text = doc["text"].as_str().unwrap();
        let mut tag_body = json!({"text": text});
        tag_body
            .as_object_mut()
            .unwrap()
            .extend(options.as_object().cloned().unwrap_or_default());
        let answer = s.post(&format!("{path}tag_text/"), Some(t), &tag_body).ok(200);
        let want: Vec<Value> = expected(&answer)
            .iter()
            .map(|v| json!({"fact": "APPLIED", "str_val": v, "doc_path": "text", "spans": "[[0, 0]]"}))
            .collect();
        let got: Vec<Value> = doc["texta_facts"]
            .as_array()
            .map(|f| f.iter().filter(|f| f["fact"] == "APPLIED").cloned().collect())
            .unwrap_or_default();
        assert_eq!(got, want, "{text}: {answer}");
        positives += got.len();
    }
    assert!(positives > 0, "some document is tagged");
}

/// A resource runs one task at a time: a second apply (or a retrain) while the first runs is
/// refused, and the first is not disturbed.
#[test]
fn a_model_runs_one_task_at_a_time() {
    let s = Server::start();
    let t = s.admin_token();
    let pk = s.create_project(&t, "busy", &[])["id"].as_i64().unwrap();
    let docs: String = (0..3000)
        .map(|i| json!({"text": format!("varas number {i}")}).to_string() + "\n")
        .collect();
    s.import_jsonl(&t, pk, "news", &docs);
    let p = format!("/projects/{pk}/regex_taggers/");
    s.post(&p, Some(&t), &json!({"description": "vargus", "lexicon": ["varas"]}))
        .ok(201);
    let body = json!({"description": "run", "fields": ["text"], "bulk_size": 100});
    s.post(&format!("{p}1/apply_to_index/"), Some(&t), &body).ok(201);
    s.post(&format!("{p}1/apply_to_index/"), Some(&t), &body)
        .expect(400, json!({"detail": "A task of this resource is still running."}));
    let done = s.settle(&t, &format!("{p}1/"));
    assert_eq!(
        (&done["task"]["status"], &done["task"]["num_processed"]),
        (&json!("completed"), &json!(3000))
    );
    s.post(&format!("{p}1/apply_to_index/"), Some(&t), &body).ok(201);
    s.settle(&t, &format!("{p}1/"));
}

/// An index closed while a run writes into it fails the run with the reason; what was
/// committed before stays.
#[test]
fn an_index_closed_mid_run_fails_the_run() {
    let s = Server::start();
    let t = s.admin_token();
    let pk = s.create_project(&t, "closing", &[])["id"].as_i64().unwrap();
    let docs: String = (0..5000)
        .map(|i| json!({"text": format!("varas number {i}")}).to_string() + "\n")
        .collect();
    s.import_jsonl(&t, pk, "news", &docs);
    let p = format!("/projects/{pk}/regex_taggers/");
    s.post(&p, Some(&t), &json!({"description": "vargus", "lexicon": ["varas"]}))
        .ok(201);
    s.post(
        &format!("{p}1/apply_to_index/"),
        Some(&t),
        &json!({"description": "run", "fields": ["text"], "bulk_size": 100}),
    )
    .ok(201);
    s.patch("/index/1/", Some(&t), &json!({"is_open": false})).ok(200);
    let done = s.settle(&t, &format!("{p}1/"));
    assert_eq!(
        (&done["task"]["status"], &done["task"]["errors"]),
        (&json!("failed"), &json!("[\"index news is not available\"]")),
        "{done}"
    );
}

/// Lists order by their task's start, end and status too (`?ordering=-task__time_started`).
#[test]
fn lists_order_by_the_task() {
    let (s, t, pk) = setup();
    let p = format!("/projects/{pk}/regex_taggers/");
    for word in ["varas", "ilm"] {
        s.post(&p, Some(&t), &json!({"description": word, "lexicon": [word]})).ok(201);
    }
    // Applied in reverse order: the second tagger's run starts first.
    for id in [2, 1] {
        s.post(
            &format!("{p}{id}/apply_to_index/"),
            Some(&t),
            &json!({"description": "run", "fields": ["text"]}),
        )
        .ok(201);
        s.settle(&t, &format!("{p}{id}/"));
    }
    let ids = |ordering: &str| -> Vec<i64> {
        s.get(&format!("{p}?ordering={ordering}"), Some(&t)).ok(200)["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(
        (ids("task__time_started"), ids("-task__time_started"), ids("task__status")),
        (vec![2, 1], vec![1, 2], vec![1, 2])
    );
}

/// `ta regex-tagger apply` with the Elasticsearch backend, against the replay server of
/// `tests/fixtures/elastic/apply.json`: the fact mapping is put first, the documents are
/// scrolled, each batch's facts go in one bulk update, and the index is refreshed at the
/// run's commit.
#[test]
fn applies_on_elasticsearch_as_recorded() {
    use ta_search::elastic::replay::Mock;
    let dir = tempfile::tempdir().unwrap();
    let mock = Mock::start("apply.json", "regex_apply");
    let env = [("TA_SEARCH_URL", Some(mock.url.as_str()))];
    let ta = |args: &[&str]| {
        let out = common::ta_env(dir.path(), args, &env);
        assert_eq!(mock.failures(), Vec::<String>::new(), "{out:?}");
        out
    };
    ta(&["project", "create", "--title", "p", "--index", "news", "--json"]).ok();
    ta(&[
        "regex-tagger",
        "create",
        "--project",
        "1",
        "--description",
        "vargus",
        "--lexicon",
        "varas",
        "--json",
    ])
    .ok();
    let done = ta(&["regex-tagger", "apply", "1", "--field", "text", "--json"]).ok();
    assert_eq!(
        (&done["task"]["status"], &done["task"]["total"], &done["task"]["num_processed"]),
        (&json!("completed"), &json!(2), &json!(2))
    );
    mock.finish();
}
