//! Language processing over indices (`collection.md` §1) against a real `ta serve`: the
//! `mlp_index` resource writes `<field>_mlp` beside each field (nested objects, arrays of
//! strings joined, other values skipped), its task counts the documents, a retry goes on
//! where the run stopped, a `ta serve` killed mid-run keeps every committed batch and fails
//! the task; `/mlp/docs/`; the validation messages and the refusal without language data.
use crate::common;

use crate::mlp::have_data;
use common::Server;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn put_docs(s: &Server, t: &str, pk: i64, docs: Value) {
    s.post(
        &format!("/projects/{pk}/elastic/documents/"),
        Some(t),
        &json!({ "documents": docs }),
    )
    .ok(200);
}

fn doc(s: &Server, t: &str, pk: i64, id: &str) -> Value {
    s.get(&format!("/projects/{pk}/elastic/documents/news/{id}/"), Some(t)).ok(200)["_source"].clone()
}

#[test]
fn runs_over_the_selected_documents_and_a_retry_goes_on_where_it_stopped() {
    if !have_data() {
        return;
    }
    let s = Server::start();
    let t = s.admin_token();
    let pk = s.create_project(&t, "mlp", &[])["id"].as_i64().unwrap();
    put_docs(
        &s,
        &t,
        pk,
        json!([
            {"_index": "news", "_id": "a", "_source": {"text": "Kalle elab Tallinnas.", "comment": {"text": "The cats were sleeping."}, "n": 1,
                                                     "texta_facts": [{"fact": "X", "str_val": "y", "doc_path": "text", "spans": "[[0, 0]]"}]}},
            {"_index": "news", "_id": "b", "_source": {"text": ["Первый абзац.", "Второй абзац."], "n": 2}},
            {"_index": "news", "_id": "c", "_source": {"text": "Ei valitud.", "n": 3}},
            {"_index": "news", "_id": "long", "_source": {"text": "sõna ".repeat(200_001), "n": 0}},
        ]),
    );
    let p = format!("/projects/{pk}/mlp_index");
    let created = s
        .post(
            &format!("{p}/"),
            Some(&t),
            &json!({"description": "lemmas", "fields": ["text", "comment.text", "n"], "analyzers": ["lemmas", "lemmas"],
                    "query": "{\"query\": {\"range\": {\"n\": {\"lte\": 2}}}}", "indices": ["news"]}),
        )
        .ok(201);
    let mut shown = created.clone();
    shown["task"] = json!("<task>");
    assert_eq!(
        shown,
        json!({"id": 1, "url": format!("{}{p}/1/", s.base), "author_username": "admin",
               "indices": [{"id": 1, "url": format!("{}/index/1/", s.base), "is_open": true, "name": "news"}],
               "description": "lemmas", "task": "<task>", "query": {"query": {"range": {"n": {"lte": 2}}}},
               "fields": ["text", "comment.text", "n"], "analyzers": ["lemmas"]})
    );
    let done = s.settle(&t, &format!("{p}/1/"));
    assert_eq!(
        (
            &done["task"]["status"],
            &done["task"]["total"],
            &done["task"]["num_processed"],
            &done["task"]["errors"]
        ),
        (
            &json!("completed"),
            &json!(3),
            &json!(3),
            &json!("[\"news/long text: text longer than 1000000 characters\"]")
        )
    );
    assert!(doc(&s, &t, pk, "long").get("text_mlp").is_none());
    assert_eq!(
        doc(&s, &t, pk, "a"),
        json!({"text": "Kalle elab Tallinnas.",
               "comment": {"text": "The cats were sleeping.",
                           "text_mlp": {"text": "The cats were sleeping .", "lang": "en", "lemmas": "the cat be sleep ."}},
               "n": 1, "texta_facts": [{"fact": "X", "str_val": "y", "doc_path": "text", "spans": "[[0, 0]]"}],
               "text_mlp": {"text": "Kalle elab Tallinnas .", "lang": "et", "lemmas": "Kalle elama Tallinn ."}})
    );
    assert_eq!(doc(&s, &t, pk, "b")["text_mlp"]["lang"], "ru");
    assert!(doc(&s, &t, pk, "c").get("text_mlp").is_none(), "outside the query");
    let fields = s.get(&format!("/projects/{pk}/get_fields/"), Some(&t)).ok(200);
    assert!(
        fields[0]["fields"]
            .as_array()
            .unwrap()
            .contains(&json!({"path": "text_mlp.lemmas", "type": "text"})),
        "{fields}"
    );
    // A retry reads only the document still without output (the one too long) and counts on.
    s.post(&format!("{p}/1/retry/"), Some(&t), &json!({}))
        .expect(200, json!({"message": "Started retrying MLP worker with id: 1"}));
    let again = s.settle(&t, &format!("{p}/1/"));
    assert_eq!(
        (&again["task"]["status"], &again["task"]["total"], &again["task"]["num_processed"]),
        (&json!("completed"), &json!(4), &json!(4))
    );
    // Only the description changes.
    s.patch(&format!("{p}/1/"), Some(&t), &json!({"description": "renamed", "fields": ["n"]}))
        .ok(200);
    let renamed = s.get(&format!("{p}/1/"), Some(&t)).ok(200);
    assert_eq!(
        (&renamed["description"], &renamed["fields"]),
        (&json!("renamed"), &json!(["text", "comment.text", "n"]))
    );
    s.post(&format!("{p}/bulk_delete/"), Some(&t), &json!({"ids": [1]})).expect(
        200,
        json!({"num_deleted": 2, "deleted_types": {"core.Task": 1, "mlp.MLPWorker": 1}}),
    );
}

#[test]
fn mlp_docs_analyses_each_document_in_order() {
    if !have_data() {
        return;
    }
    let s = Server::start();
    let t = s.admin_token();
    let out = s
        .post(
            "/mlp/docs/",
            Some(&t),
            &json!({"docs": [{"a": {"b": "Tere hommikust!"}, "texta_facts": []}, {"x": 1}], "fields_to_parse": ["a.b"], "analyzers": ["lemmas"]}),
        )
        .ok(200);
    assert_eq!(
        out,
        json!([{"a": {"b": "Tere hommikust!", "b_mlp": {"text": "Tere hommikust !", "lang": "et", "lemmas": "tere hommikune !"}}, "texta_facts": []},
               {"x": 1}])
    );
}

#[test]
fn bad_requests_get_the_reference_messages() {
    let s = Server::start();
    let t = s.admin_token();
    let pk = s.create_project(&t, "mlp", &[])["id"].as_i64().unwrap();
    put_docs(&s, &t, pk, json!([{"_index": "news", "_id": "a", "_source": {"text": "x"}}]));
    let p = format!("/projects/{pk}/mlp_index/");
    let cases = [
        (json!({"description": "x"}), json!({"fields": ["This field is required."]})),
        (
            json!({"description": "x", "fields": ["nope"]}),
            json!({"fields": ["Entered fields not in current project fields: {'text'}"]}),
        ),
        (
            json!({"description": "x", "fields": ["text"], "analyzers": ["x"]}),
            json!({"analyzers": ["\"x\" is not a valid choice."]}),
        ),
        (json!({"fields": ["text"]}), json!({"description": ["This field is required."]})),
    ];
    for (body, expected) in cases {
        s.post(&p, Some(&t), &body).expect(400, expected);
    }
    let docs = [
        (json!({"fields_to_parse": ["a"]}), json!({"docs": ["This field is required."]})),
        (
            json!({"docs": [{"a": "x"}]}),
            json!({"fields_to_parse": ["This field is required."]}),
        ),
        (
            json!({"docs": ["x"], "fields_to_parse": ["a"]}),
            json!({"docs": {"0": ["Expected a dictionary of items but got type \"str\"."]}}),
        ),
    ];
    for (body, expected) in docs {
        s.post("/mlp/docs/", Some(&t), &body).expect(400, expected);
    }
    // The analyzer choices for TEXTA's web client.
    let options = s.call("OPTIONS", &p, Some(&t), None).ok(200);
    let values: Vec<&str> = options["actions"]["POST"]["analyzers"]["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["value"].as_str().unwrap())
        .collect();
    assert_eq!(
        values,
        [
            "lemmas",
            "pos_tags",
            "transliteration",
            "ner",
            "contacts",
            "entities",
            "namemail",
            "bounded"
        ]
    );
}

#[test]
fn without_language_data_a_run_is_refused() {
    let empty = tempfile::tempdir().unwrap();
    let s = Server::start_env(&[("TA_MLP_DATA", empty.path().to_str().unwrap())]);
    let t = s.admin_token();
    let pk = s.create_project(&t, "mlp", &[])["id"].as_i64().unwrap();
    put_docs(&s, &t, pk, json!([{"_index": "news", "_id": "a", "_source": {"text": "x"}}]));
    let r = s.post(
        &format!("/projects/{pk}/mlp_index/"),
        Some(&t),
        &json!({"description": "x", "fields": ["text"]}),
    );
    assert_eq!(r.status, 503, "{}", r.text);
    assert!(
        r.json()["detail"].as_str().unwrap().starts_with("language data missing"),
        "{}",
        r.text
    );
    assert_eq!(s.get(&format!("/projects/{pk}/mlp_index/"), Some(&t)).ok(200)["count"], 0);
}

/// A `ta serve` killed mid-run keeps what it committed; on restart the task is failed, and
/// a retry processes only the documents still without output.
#[test]
fn killed_run_keeps_committed_batches_and_a_retry_finishes_the_rest() {
    if !have_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut s = Server::start_in(&data, &[]);
    let t = s.admin_token();
    let pk = s.create_project(&t, "crash", &[])["id"].as_i64().unwrap();
    let docs: String = (0..2000)
        .map(|i| {
            json!({"text": format!("Dokument number {i} räägib Tallinna linnavalitsuse otsustest ja eelarvest aastal {}.", 2000 + i % 20)})
                .to_string()
                + "\n"
        })
        .collect();
    s.import_jsonl(&t, pk, "news", &docs);
    let path = format!("/projects/{pk}/mlp_index/1/");
    s.post(
        &format!("/projects/{pk}/mlp_index/"),
        Some(&t),
        &json!({"description": "x", "fields": ["text"], "analyzers": ["lemmas"]}),
    )
    .ok(201);
    let deadline = Instant::now() + Duration::from_secs(120);
    let committed = loop {
        let task = s.get(&path, Some(&t)).ok(200)["task"].clone();
        assert_ne!(task["status"], "completed", "the run ended before it could be killed: {task}");
        let done = task["num_processed"].as_u64().unwrap_or(0);
        if done > 0 {
            break done;
        }
        assert!(Instant::now() < deadline, "no batch committed in time: {task}");
        std::thread::sleep(Duration::from_millis(10));
    };
    s.kill();
    let s = Server::start_in(&data, &[]);
    let t = s.admin_token();
    let task = s.get(&path, Some(&t)).ok(200)["task"].clone();
    assert_eq!(
        (&task["status"], &task["errors"]),
        (&json!("failed"), &json!("[\"interrupted by restart\"]"))
    );
    let with_output = |s: &Server| {
        let body = json!({"query": {"query": {"exists": {"field": "text_mlp.lang"}}, "size": 0}});
        s.post(&format!("/projects/{pk}/search_by_query/"), Some(&t), &body).ok(200)["count"]
            .as_u64()
            .unwrap()
    };
    let kept = with_output(&s);
    assert!(kept >= committed, "committed {committed}, kept {kept}");
    s.post(&format!("/projects/{pk}/mlp_index/1/retry/"), Some(&t), &json!({})).ok(200);
    let done = s.settle(&t, &path);
    assert_eq!(done["task"]["status"], "completed", "{done}");
    assert_eq!(with_output(&s), 2000);
    // The retry read only what was left: its total is what the first run had done plus the rest.
    let processed = task["num_processed"].as_u64().unwrap();
    assert_eq!(done["task"]["total"].as_u64().unwrap(), processed + (2000 - kept));
    assert_eq!(done["task"]["num_processed"], done["task"]["total"]);
}

#[test]
fn language_detection_over_an_index_and_of_a_text() {
    if !have_data() {
        return;
    }
    let s = Server::start();
    let t = s.admin_token();
    let pk = s.create_project(&t, "lang", &[])["id"].as_i64().unwrap();
    put_docs(
        &s,
        &t,
        pk,
        json!([
            {"_index": "news", "_id": "a", "_source": {"text": "Eesti Vabariigi valitsus kogunes täna hommikul erakorralisele istungile.", "text_mlp": {"lemmas": "x"}}},
            {"_index": "news", "_id": "b", "_source": {"text": ["The government met this morning for an extraordinary session.", "Teine"]}},
            {"_index": "news", "_id": "c", "_source": {"text": "12345 ..."}},
            {"_index": "news", "_id": "d", "_source": {"other": 1}},
        ]),
    );
    let p = format!("/projects/{pk}/lang_index/");
    let created = s.post(&p, Some(&t), &json!({"description": "keel", "field": "text"})).ok(201);
    assert_eq!(
        (&created["field"], &created["query"], &created["indices"][0]["name"]),
        (&json!("text"), &json!({"query": {"match_all": {}}}), &json!("news"))
    );
    let done = s.settle(&t, &format!("{p}1/"));
    assert_eq!(
        (&done["task"]["status"], &done["task"]["num_processed"]),
        (&json!("completed"), &json!(4))
    );
    assert_eq!(
        doc(&s, &t, pk, "a")["text_mlp"],
        json!({"lemmas": "x", "language": {"detected": "et"}})
    );
    assert_eq!(doc(&s, &t, pk, "b")["text_mlp"], json!({"language": {"detected": "en"}}));
    assert_eq!(doc(&s, &t, pk, "c")["text_mlp"], json!({"language": {"detected": "UNK"}}));
    assert_eq!(doc(&s, &t, pk, "d"), json!({"other": 1}));
    s.post(&p, Some(&t), &json!({"description": "keel"}))
        .expect(400, json!({"field": ["This field is required."]}));
    s.post(
        "/mlp/detect_lang/",
        Some(&t),
        &json!({"text": "Eesti Vabariigi valitsus kogunes täna hommikul."}),
    )
    .expect(200, json!({"language_code": "et", "language": "estonian"}));
    s.post("/mlp/detect_lang/", Some(&t), &json!({"text": "12345"}))
        .expect(400, json!({"detail": "Could not detect the language!"}));
    s.post("/mlp/detect_lang/", Some(&t), &json!({}))
        .expect(400, json!({"text": ["This field is required."]}));
}
