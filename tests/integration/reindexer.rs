//! The reindexer (`collection.md` §3) against a real `ta serve`: the selected documents
//! copied into a new index (empty and in the project at create, its documents there when
//! the run completes) with the chosen fields (a path keeps what is below it), renames,
//! fresh ids and documents left without a field not written; a uniform random sample that
//! respects the query; the validation messages; no PUT or PATCH; a `ta serve` killed
//! mid-run leaves the new index empty; the CLI locally and against the server.
use crate::common;

use common::Server;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

pub(crate) fn put_docs(s: &Server, t: &str, pk: i64, docs: Value) {
    s.post(
        &format!("/projects/{pk}/elastic/documents/"),
        Some(t),
        &json!({ "documents": docs }),
    )
    .ok(200);
}

/// The sources of every document of `index`, sorted by their text.
pub(crate) fn sources(s: &Server, t: &str, pk: i64, index: &str) -> Vec<Value> {
    let body = json!({"indices": [index], "query": {"query": {"match_all": {}}, "size": 1000}});
    let found = s.post(&format!("/projects/{pk}/search_by_query/"), Some(t), &body).ok(200);
    let mut docs: Vec<Value> = found["results"].as_array().unwrap().iter().map(|r| r["doc"].clone()).collect();
    docs.sort_by_key(|d| d.to_string());
    docs
}

/// A project holding index `news`: four documents, three of module `smath`.
fn news() -> (Server, String, i64) {
    let s = Server::start();
    let t = s.admin_token();
    let pk = s.create_project(&t, "reindex", &[])["id"].as_i64().unwrap();
    put_docs(
        &s,
        &t,
        pk,
        json!([
            {"_index": "news", "_id": "a", "_source": {"text": "one", "module": "smath", "comment": {"text": "x", "n": 1},
                                                     "texta_facts": [{"fact": "X", "str_val": "y", "doc_path": "text", "spans": "[[0, 0]]"}]}},
            {"_index": "news", "_id": "b", "_source": {"text": "two", "module": "smath", "comment": {"text": "y"}}},
            {"_index": "news", "_id": "c", "_source": {"text": "three", "module": "other"}},
            {"_index": "news", "_id": "d", "_source": {"module": "smath", "n": 4}},
        ]),
    );
    (s, t, pk)
}

#[test]
fn copies_the_selected_fields_renamed_into_a_new_index_under_fresh_ids() {
    let (s, t, pk) = news();
    let p = format!("/projects/{pk}/reindexer");
    let created = s
        .post(
            &format!("{p}/"),
            Some(&t),
            &json!({"description": "math subset", "indices": [{"name": "news"}], "fields": ["text", "comment"],
                    "query": "{\"query\": {\"match\": {\"module\": \"smath\"}}}", "new_index": "news_smath",
                    "field_type": [{"path": "comment.text", "field_type": "text", "new_path_name": "remark"}]}),
        )
        .ok(201);
    let mut shown = created.clone();
    shown["task"] = json!("<task>");
    assert_eq!(
        shown,
        json!({"id": 1, "url": format!("{}{p}/1/", s.base), "author_username": "admin", "description": "math subset",
               "indices": ["news"], "fields": ["text", "comment"],
               "query": "{\"query\": {\"match\": {\"module\": \"smath\"}}}", "new_index": "news_smath", "random_size": 0,
               "field_type": [{"path": "comment.text", "field_type": "text", "new_path_name": "remark"}], "task": "<task>"})
    );
    let project = s.get(&format!("/projects/{pk}/"), Some(&t)).ok(200);
    assert_eq!(project["indices"], json!(["news", "news_smath"]), "in the project at create");
    let done = s.settle(&t, &format!("{p}/1/"));
    let mut task = done["task"].clone();
    for key in ["id", "time_started", "last_update", "time_completed"] {
        task.as_object_mut().unwrap().remove(key);
    }
    assert_eq!(
        task,
        json!({"status": "completed", "progress": 100.0, "step": "", "errors": "[]", "total": 3, "num_processed": 3})
    );
    // d had none of the fields: not written.
    assert_eq!(
        sources(&s, &t, pk, "news_smath"),
        vec![
            json!({"text": "one", "comment": {"n": 1}, "remark": "x"}),
            json!({"text": "two", "remark": "y"}),
        ]
    );
    s.get(&format!("/projects/{pk}/elastic/documents/news_smath/a/"), Some(&t)).ok(404);
    // field_type gives the new index's fields their types, renamed or not; a value that
    // does not fit (a word in a long field) is kept.
    s.post(
        &format!("{p}/"),
        Some(&t),
        &json!({"description": "typed", "indices": ["news"], "fields": ["text", "module"], "new_index": "typed",
                "field_type": [{"path": "module", "field_type": "keyword", "new_path_name": "category"},
                               {"path": "text", "field_type": "long"}, {"path": "n", "field_type": "date"}]}),
    )
    .ok(201);
    assert_eq!(s.settle(&t, &format!("{p}/2/"))["task"]["status"], "completed");
    let fields = s.get(&format!("/projects/{pk}/get_fields/"), Some(&t)).ok(200);
    let typed = fields.as_array().unwrap().iter().find(|i| i["index"] == "typed").unwrap();
    assert_eq!(
        typed["fields"],
        json!([{"path": "category", "type": "keyword"}, {"path": "text", "type": "long"}]),
        "n is not copied, so not declared"
    );
    assert!(sources(&s, &t, pk, "typed").contains(&json!({"text": "one", "category": "smath"})));
    assert_eq!(s.delete(&format!("{p}/2/"), Some(&t)).status, 204);
    // The source is untouched.
    assert_eq!(sources(&s, &t, pk, "news").len(), 4);
    // No change after create.
    for method in ["PUT", "PATCH"] {
        let r = s.call(method, &format!("{p}/1/"), Some(&t), Some(&json!({"description": "x"})));
        assert_eq!(
            (r.status, r.json()),
            (405, json!({"detail": format!("Method \"{method}\" not allowed.")}))
        );
    }
    // Deleting the reindexer keeps the new index.
    let r = s.delete(&format!("{p}/1/"), Some(&t));
    assert_eq!((r.status, r.text.as_str()), (204, ""));
    assert_eq!(sources(&s, &t, pk, "news_smath").len(), 2);
    s.get(&format!("{p}/"), Some(&t)).expect(200, json!({"count": 0, "results": []}));
}

#[test]
fn a_random_sample_respects_the_query_and_every_field_is_copied_by_default() {
    let (s, t, pk) = news();
    let p = format!("/projects/{pk}/reindexer");
    for (id, (size, index)) in [(2, "two_of_three"), (10, "all_three")].into_iter().enumerate() {
        s.post(
            &format!("{p}/"),
            Some(&t),
            &json!({"description": "sample", "indices": ["news"], "query": {"query": {"term": {"module": "smath"}}},
                    "new_index": index, "random_size": size}),
        )
        .ok(201);
        let done = s.settle(&t, &format!("{p}/{}/", id + 1));
        assert_eq!(
            (&done["task"]["status"], &done["task"]["total"], &done["query"]),
            (
                &json!("completed"),
                &json!(size.min(3)),
                &json!("{\"query\": {\"term\": {\"module\": \"smath\"}}}")
            )
        );
        let copied = sources(&s, &t, pk, index);
        assert_eq!(copied.len(), size.min(3) as usize);
        assert!(copied.iter().all(|d| d["module"] == "smath"), "{copied:?}");
    }
    assert_eq!(
        sources(&s, &t, pk, "all_three")[0],
        json!({"module": "smath", "n": 4}),
        "the whole document when no field is named"
    );
    s.post(&format!("{p}/bulk_delete/"), Some(&t), &json!({"ids": [1, 2]})).expect(
        200,
        json!({"num_deleted": 4, "deleted_types": {"core.Task": 2, "elastic.Reindexer": 2}}),
    );
}

#[test]
fn validation_messages() {
    let (s, t, pk) = news();
    let p = format!("/projects/{pk}/reindexer/");
    s.post(&p, Some(&t), &json!({})).expect(
        400,
        json!({"description": ["This field is required."], "indices": ["This field is required."],
               "new_index": ["This field is required."]}),
    );
    s.post(
        &p,
        Some(&t),
        &json!({"description": "x", "indices": ["news", "nope"], "fields": ["text", "ghost"], "query": "{not json",
                "new_index": "news", "random_size": 10001, "field_type": [{"path": "text", "field_type": "str"}]}),
    )
    .expect(
        400,
        json!({
            "indices": ["Index \"nope\" is not contained in your project indices \"['news']\""],
            "fields": ["The fields you are attempting to re-index are not in current project fields: ['comment.n', 'comment.text', 'module', 'n', 'text', 'texta_facts']"],
            "query": ["Value must be valid JSON."],
            "new_index": ["new_index already exists, choose a different name for your reindexed index"],
            "random_size": ["Ensure this value is less than or equal to 10000."],
            "field_type": ["\"str\" is not a valid field type."],
        }),
    );
    s.post(&p, Some(&t), &json!({"description": "x", "indices": ["news"], "new_index": "News"}))
        .expect(400, json!({"detail": "Uppercase characters are not allowed!"}));
    s.post(
        &p,
        Some(&t),
        &json!({"description": "x", "indices": ["news"], "new_index": "fresh", "query": {"query": {"no_such_query": {}}}}),
    )
    .ok(400);
    // Nothing was created by the refused requests.
    assert_eq!(s.get(&format!("/projects/{pk}/"), Some(&t)).ok(200)["indices"], json!(["news"]));
}

/// A `ta serve` killed mid-run: on restart the task is failed and the new index is empty.
#[test]
fn a_killed_run_leaves_the_new_index_empty() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut s = Server::start_in(&data, &[]);
    let t = s.admin_token();
    let pk = s.create_project(&t, "crash", &[])["id"].as_i64().unwrap();
    let docs: String = (0..20_000)
        .map(|i| json!({"text": format!("document {i} about the city budget"), "n": i}).to_string() + "\n")
        .collect();
    s.import_jsonl(&t, pk, "news", &docs);
    let path = format!("/projects/{pk}/reindexer/1/");
    s.post(
        &format!("/projects/{pk}/reindexer/"),
        Some(&t),
        &json!({"description": "x", "indices": ["news"], "new_index": "copy"}),
    )
    .ok(201);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let task = s.get(&path, Some(&t)).ok(200)["task"].clone();
        assert_ne!(task["status"], "completed", "the run ended before it could be killed: {task}");
        if task["num_processed"].as_u64().unwrap_or(0) > 0 {
            break;
        }
        assert!(Instant::now() < deadline, "no batch committed in time: {task}");
        std::thread::sleep(Duration::from_millis(10));
    }
    s.kill();
    let s = Server::start_in(&data, &[]);
    let t = s.admin_token();
    let task = s.get(&path, Some(&t)).ok(200)["task"].clone();
    assert_eq!(
        (&task["status"], &task["errors"]),
        (&json!("failed"), &json!("[\"interrupted by restart\"]"))
    );
    let count = |s: &Server| {
        let body = json!({"indices": ["copy"], "query": {"query": {"match_all": {}}, "size": 0}});
        s.post(&format!("/projects/{pk}/search_by_query/"), Some(&t), &body).ok(200)["count"].clone()
    };
    assert_eq!(count(&s), json!(0));
    let store: Vec<Value> = s
        .get("/index/", Some(&t))
        .ok(200)
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].clone())
        .collect();
    assert_eq!(store, vec![json!("news"), json!("copy")], "the staging index is gone");
    // A retry of the failed run copies everything.
    let retried = s.post(&format!("/tasks/{}/retry/", task["id"]), Some(&t), &json!({})).ok(200);
    assert_eq!(retried["kind"], "reindexer", "{retried}");
    assert_eq!(s.settle(&t, &path)["task"]["status"], "completed");
    assert_eq!(count(&s), json!(20_000));
}

/// `ta reindexer create|list` and `ta index-splitter create` locally and against a server:
/// the same answers, the same documents in the new index.
#[test]
fn cli_local_and_remote_give_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("news.jsonl");
    let lines: String = (0..30)
        .map(|i| json!({"text": format!("text {i}"), "module": if i % 3 == 0 { "smath" } else { "other" }, "n": i}).to_string() + "\n")
        .collect();
    std::fs::write(&file, lines).unwrap();
    let server = Server::start();
    let token = server.admin_token();
    let remote_env = [("TA_SERVER", Some(server.origin.as_str())), ("TA_TOKEN", Some(token.as_str()))];
    let run = |data: &std::path::Path, env: &[(&str, Option<&str>)]| -> Vec<Value> {
        let ta = |args: &[&str]| common::ta_env(data, args, env);
        common::cli_project_with_index(data, env, "news", &file);
        let created = ta(&[
            "reindexer",
            "create",
            "--project",
            "1",
            "--description",
            "math",
            "--index",
            "news",
            "--query",
            r#"{"query": {"match": {"module": "smath"}}}"#,
            "--new-index",
            "copy",
            "--field",
            "text",
            "--field",
            "n",
            "--field-type",
            "n:long:number",
            "--json",
        ])
        .ok();
        let refused = ta(&["reindexer", "create", "--project", "1", "--new-index", "copy", "--json"]).fails(3);
        let listed = ta(&["reindexer", "list", "--project", "1", "--json"]).ok();
        let split = ta(&[
            "index-splitter",
            "create",
            "--project",
            "1",
            "--index",
            "news",
            "--train-index",
            "train",
            "--test-index",
            "test",
            "--test-size",
            "30",
            "--field",
            "n",
            "--json",
        ])
        .ok();
        let found = ta(&["search", "--project", "1", "--index", "copy", r#"{"match_all": {}}"#]);
        let mut docs: Vec<Value> = found
            .stdout
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["_source"].clone())
            .collect();
        docs.sort_by_key(|d| d["number"].as_i64());
        vec![created, json!(refused), listed, json!(docs), split]
    };
    let local = run(dir.path(), &[]);
    let remote = run(dir.path(), &remote_env);
    let local: Vec<Value> = local
        .iter()
        .map(|v| common::replace_in(&common::normalize(v), "http://127.0.0.1:8000/api/v1", &server.base))
        .collect();
    let remote: Vec<Value> = remote.iter().map(common::normalize).collect();
    assert_eq!(local, remote);
    assert_eq!(
        (&local[0]["task"]["status"], &local[0]["task"]["num_processed"]),
        (&json!("completed"), &json!(10)),
        "{}",
        local[0]
    );
    let docs = local[3].as_array().unwrap();
    assert_eq!(docs.len(), 10);
    assert_eq!(docs[1], json!({"text": "text 3", "number": 3}));
    assert_eq!(
        (&local[4]["task"]["status"], &local[4]["task"]["total"]),
        (&json!("completed"), &json!(30)),
        "{}",
        local[4]
    );
}
