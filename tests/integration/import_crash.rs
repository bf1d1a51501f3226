//! Crash safety of dataset imports: a `ta serve` killed with SIGKILL in the middle of a large
//! import keeps every batch it had committed, marks the import's task failed on restart, and
//! its index store opens and takes new documents as before.
use crate::common;

use common::Server;
use serde_json::{json, Value};
use std::io::Write;
use std::time::{Duration, Instant};

const INDEX: &str = "crash_idx";

/// A JSONL file of `docs` documents of about 400 bytes each.
fn jsonl(path: &std::path::Path, docs: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for i in 0..docs {
        let words: Vec<String> = (0..40).map(|w| format!("sõna{}", (i * 7 + w * 13) % 997)).collect();
        let doc = json!({"text": words.join(" "), "n": i, "label": format!("l{}", i % 5), "kind": "crash test document"});
        writeln!(out, "{doc}").unwrap();
    }
    out.flush().unwrap();
}

fn start_import(s: &Server, token: &str, pk: i64, file: &std::path::Path) -> i64 {
    let form = reqwest::blocking::multipart::Form::new()
        .text("description", "crash")
        .text("index", INDEX)
        .file("file", file)
        .unwrap();
    let created = common::Resp::from(
        s.request("POST", &format!("/projects/{pk}/dataset_imports/"))
            .header("Authorization", format!("Token {token}"))
            .multipart(form)
            .send()
            .unwrap(),
    )
    .ok(201);
    created["id"].as_i64().unwrap()
}

fn import_task(s: &Server, token: &str, pk: i64, id: i64) -> Value {
    s.get(&format!("/projects/{pk}/dataset_imports/{id}/"), Some(token)).ok(200)["task"].clone()
}

fn count(s: &Server, token: &str, pk: i64) -> u64 {
    let body = json!({"query": {"query": {"match_all": {}}, "size": 1}, "indices": [INDEX]});
    s.post(&format!("/projects/{pk}/search_by_query/"), Some(token), &body).ok(200)["count"]
        .as_u64()
        .unwrap()
}

#[test]
fn killed_import_keeps_committed_batches_and_fails_its_task() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.jsonl");
    jsonl(&file, 200_000);
    let data = dir.path().join("data");
    let mut s = Server::start_in(&data, &[]);
    let token = s.admin_token();
    let pk = s.create_project(&token, "crash", &[])["id"].as_i64().unwrap();
    let id = start_import(&s, &token, pk, &file);

    // Kill as soon as a batch has been reported (progress is reported after its commit).
    let deadline = Instant::now() + Duration::from_secs(300);
    let committed = loop {
        let task = import_task(&s, &token, pk, id);
        assert_ne!(task["status"], "completed", "the import ended before it could be killed: {task}");
        assert_ne!(task["status"], "failed", "{task}");
        let done = task["num_processed"].as_u64().unwrap_or(0);
        if done > 0 {
            break done;
        }
        assert!(Instant::now() < deadline, "no batch committed in time: {task}");
        std::thread::sleep(Duration::from_millis(20));
    };
    s.kill();

    let s = Server::start_in(&data, &[]);
    let token = s.admin_token();
    let task = import_task(&s, &token, pk, id);
    assert_eq!(task["status"], "failed", "{task}");
    assert!(task["errors"].as_str().unwrap().contains("interrupted by restart"), "{task}");

    // The partial index is in the store; attach it to the project and search it.
    let catalogue = s.get("/index/", Some(&token)).ok(200);
    assert!(catalogue.as_array().unwrap().iter().any(|i| i["name"] == INDEX), "{catalogue}");
    s.patch(&format!("/projects/{pk}/"), Some(&token), &json!({"indices": [INDEX]}))
        .ok(200);
    let kept = count(&s, &token, pk);
    assert!(kept >= committed && kept < 200_000, "kept {kept}, committed {committed}");

    // The store opens cleanly: a new import into the same index completes and adds to it.
    let small = dir.path().join("small.jsonl");
    jsonl(&small, 10);
    let again = start_import(&s, &token, pk, &small);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let task = import_task(&s, &token, pk, again);
        if task["status"] == "completed" {
            break;
        }
        assert_ne!(task["status"], "failed", "{task}");
        assert!(Instant::now() < deadline, "second import did not finish: {task}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(count(&s, &token, pk), kept + 10);
}
