//! Crash safety of training: a `ta serve` killed with SIGKILL while a tagger or a neural
//! tagger retrains marks the task failed on restart, the model trained before serves
//! unchanged with its figures, and no temporary model file is left behind.
use crate::common;

use common::Server;
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

/// `n` documents, half crime and half weather.
fn corpus(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        let (label, words) = if i % 2 == 0 {
            ("crime", "varas politsei vangla kohus")
        } else {
            ("weather", "vihm tuul päike lumi")
        };
        let text: Vec<&str> = words.split(' ').cycle().skip(i % 4).take(12).collect();
        out.push_str(&json!({"text": format!("{} doc{i}", text.join(" ")), "label": label}).to_string());
        out.push('\n');
    }
    out
}

/// What a killed retraining is checked with.
struct Case {
    /// The collection route, `taggers` or `torchtaggers`.
    route: &'static str,
    /// Documents imported.
    documents: usize,
    /// The create body (trains quickly).
    create: Value,
    /// The patch that makes the retraining long.
    long: Value,
    /// Whether the retraining is far enough along to be killed (by the task).
    under_way: fn(&Value) -> bool,
    /// The resource's figures of the trained model.
    figures: &'static [&'static str],
}

fn killed_retraining_keeps_the_earlier_model(case: Case) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut s = Server::start_in(&data, &[]);
    let t = s.admin_token();
    let pk = s.create_project(&t, "crash", &[])["id"].as_i64().unwrap();
    s.import_jsonl(&t, pk, "news", &corpus(case.documents));
    let url = format!("/projects/{pk}/{}/", case.route);
    let id = s.post(&url, Some(&t), &case.create).ok(201)["id"].as_i64().unwrap();
    let first = s.settle(&t, &format!("{url}{id}/"));
    assert_eq!(first["task"]["status"], "completed", "{first}");
    let probe = json!({"text": "varas politsei"});
    let before = s.post(&format!("{url}{id}/tag_text/"), Some(&t), &probe).ok(200);

    s.patch(&format!("{url}{id}/"), Some(&t), &case.long).ok(200);
    s.post(&format!("{url}{id}/retrain_tagger/"), Some(&t), &json!({})).ok(200);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let task = s.get(&format!("{url}{id}/"), Some(&t)).ok(200)["task"].clone();
        if (case.under_way)(&task) {
            break;
        }
        assert!(
            Instant::now() < deadline && task["status"] != "completed",
            "finished before the kill: {task}"
        );
        std::thread::sleep(Duration::from_millis(5));
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
    for figure in case.figures {
        assert_eq!(after[figure], first[figure], "{figure}: the stored figures are the earlier model's");
    }
    assert_eq!(s.post(&format!("{url}{id}/tag_text/"), Some(&t), &probe).ok(200), before);
    assert_eq!(temporary_files(&data.join("models").join(case.route)), Vec::<String>::new());
}

fn temporary_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("tmp"))
        .collect()
}

#[test]
fn killed_neural_training_fails_its_task_and_keeps_the_earlier_model() {
    killed_retraining_keeps_the_earlier_model(Case {
        route: "torchtaggers",
        documents: 200,
        create: json!({"description": "crime", "fields": ["text"], "model_architecture": "TextRNN", "num_epochs": 1,
                       "query": {"query": {"match": {"label": "crime"}}}}),
        // A thousand epochs, killed once they are under way.
        long: json!({"num_epochs": 1000}),
        under_way: |task| task["step"].as_str().is_some_and(|step| step.starts_with("epoch ")),
        figures: &["epoch_reports", "f1_score", "accuracy"],
    });
}

#[test]
fn killed_tagger_training_fails_its_task_and_keeps_the_earlier_model() {
    killed_retraining_keeps_the_earlier_model(Case {
        route: "taggers",
        documents: 40_000,
        create: json!({"description": "crime", "fields": ["text"], "maximum_sample_size": 100,
                       "query": {"query": {"match": {"label": "crime"}}}}),
        // Every document read and fitted, killed while the sample is read or fitted.
        long: json!({"maximum_sample_size": 40_000}),
        under_way: |task| task["status"] == "running" && task["step"] != "",
        figures: &["f1_score", "precision", "recall", "num_features", "num_positives", "num_negatives"],
    });
}
