//! Crash safety of training: a `ta serve` killed with SIGKILL while a neural tagger retrains
//! marks the task failed on restart, and the model trained before serves unchanged.
mod common;

use common::Server;
use serde_json::json;
use std::time::{Duration, Instant};

fn corpus() -> String {
    let mut out = String::new();
    for i in 0..200 {
        let (label, words) = if i % 2 == 0 {
            ("crime", "varas politsei vangla kohus")
        } else {
            ("weather", "vihm tuul päike lumi")
        };
        let text: Vec<&str> = words.split(' ').cycle().skip(i % 4).take(12).collect();
        out.push_str(&json!({"text": text.join(" "), "label": label}).to_string());
        out.push('\n');
    }
    out
}

#[test]
fn killed_training_fails_its_task_and_keeps_the_earlier_model() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut s = Server::start_in(&data, &[]);
    let t = s.admin_token();
    let pk = s.create_project(&t, "crash", &[])["id"].as_i64().unwrap();
    s.import_jsonl(&t, pk, "news", &corpus());
    let url = format!("/projects/{pk}/torchtaggers/");
    let body = json!({"description": "crime", "fields": ["text"], "model_architecture": "TextRNN", "num_epochs": 1,
                      "query": {"query": {"match": {"label": "crime"}}}});
    let id = s.post(&url, Some(&t), &body).ok(201)["id"].as_i64().unwrap();
    let first = s.settle(&t, &format!("{url}{id}/"));
    assert_eq!(first["task"]["status"], "completed", "{first}");
    let probe = json!({"text": "varas politsei"});
    let before = s.post(&format!("{url}{id}/tag_text/"), Some(&t), &probe).ok(200);

    // A long retraining, killed once its epochs are under way.
    s.patch(&format!("{url}{id}/"), Some(&t), &json!({"num_epochs": 1000})).ok(200);
    s.post(&format!("{url}{id}/retrain_tagger/"), Some(&t), &json!({})).ok(200);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let task = s.get(&format!("{url}{id}/"), Some(&t)).ok(200)["task"].clone();
        if task["step"].as_str().is_some_and(|step| step.starts_with("epoch ")) {
            break;
        }
        assert!(Instant::now() < deadline && task["status"] != "completed", "{task}");
        std::thread::sleep(Duration::from_millis(20));
    }
    s.kill();

    let s = Server::start_in(&data, &[]);
    let t = s.admin_token();
    let after = s.get(&format!("{url}{id}/"), Some(&t)).ok(200);
    assert_eq!(
        (after["task"]["status"].clone(), after["task"]["errors"].clone()),
        (json!("failed"), json!("[\"interrupted by restart\"]")),
        "{after}"
    );
    assert_eq!(
        after["epoch_reports"], first["epoch_reports"],
        "the stored figures are the earlier model's"
    );
    assert_eq!(s.post(&format!("{url}{id}/tag_text/"), Some(&t), &probe).ok(200), before);
    let leftovers: Vec<_> = std::fs::read_dir(data.join("models").join("torchtaggers"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
