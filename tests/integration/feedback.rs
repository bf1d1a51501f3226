//! Feedback on predictions against a real `ta serve`: tag_text / tag_doc / multitag_text of a
//! tagger with `feedback_enabled` keep the prediction and answer `feedback: {id, url}`; the
//! model's `feedback/` lists, takes the correct result and removes; the project's
//! `feedback/`; records going with their model; and `ta tagger feedback` / `ta project
//! feedback` locally and remotely alike.
use crate::common;
use crate::models::{corpus, create_body, setup, train_from_file};

use common::{normalize, ta, Server};
use serde_json::{json, Value};

/// A record as listed, its id and time stamps left to the caller's `normalize`.
fn record(id: &str, tagger: i64, input: Value, prediction: Value, correct: Value) -> Value {
    json!({"id": id, "model_type": "tagger.Tagger", "model_id": tagger, "input": input, "prediction": prediction,
           "correct_result": correct, "time_created": "<ts>", "time_updated": if correct.is_null() { Value::Null } else { json!("<ts>") }})
}

#[test]
fn tagger_predictions_are_kept_and_corrected() {
    let (s, t, pk) = setup();
    let id = s.post(&format!("/projects/{pk}/taggers/"), Some(&t), &create_body()).ok(201)["id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        s.settle(&t, &format!("/projects/{pk}/taggers/{id}/"))["task"]["status"],
        "completed"
    );
    let base = format!("/projects/{pk}/taggers/{id}");
    let plain = s
        .post(&format!("{base}/tag_text/"), Some(&t), &json!({"text": "politsei otsib varast"}))
        .ok(200);
    assert!(plain.get("feedback").is_none(), "{plain}");

    let kept = s
        .post(
            &format!("{base}/tag_text/"),
            Some(&t),
            &json!({"text": "politsei otsib varast", "feedback_enabled": true}),
        )
        .ok(200);
    let first = kept["feedback"]["id"].as_str().unwrap().to_string();
    let url = format!("{}{base}/feedback/", s.base);
    let prediction = |v: &Value| json!({"tag": "crime", "probability": v["probability"], "tagger_id": id, "result": v["result"]});
    assert_eq!(
        kept,
        json!({"tag": "crime", "probability": plain["probability"], "tagger_id": id, "result": true,
                            "feedback": {"id": first, "url": url}})
    );
    let doc = json!({"text": "homme sajab vihma", "other": 1});
    let by_doc = s
        .post(
            &format!("{base}/tag_doc/"),
            Some(&t),
            &json!({"doc": doc, "feedback_enabled": true}),
        )
        .ok(200);
    let second = by_doc["feedback"]["id"].as_str().unwrap().to_string();
    assert_ne!(first, second);

    let listed = s.get(&format!("{base}/feedback/"), Some(&t)).ok(200);
    assert_eq!(
        normalize(&listed),
        json!([
            record(&first, id, json!("politsei otsib varast"), prediction(&kept), Value::Null),
            record(&second, id, doc.clone(), prediction(&by_doc), Value::Null)
        ])
    );

    let corrected = s
        .post(
            &format!("{base}/feedback/"),
            Some(&t),
            &json!({"feedback_id": second, "correct_result": "true"}),
        )
        .ok(200);
    assert_eq!(normalize(&corrected), record(&second, id, doc, prediction(&by_doc), json!("true")));
    s.post(
        &format!("{base}/feedback/"),
        Some(&t),
        &json!({"feedback_id": "nope", "correct_result": "x"}),
    )
    .expect(400, json!({"feedback_id": ["No feedback with id nope for this model."]}));
    s.post(&format!("{base}/feedback/"), Some(&t), &json!({})).expect(
        400,
        json!({"feedback_id": ["This field is required."], "correct_result": ["This field is required."]}),
    );
    s.get(&format!("/projects/{pk}/taggers/99/feedback/"), Some(&t)).ok(404);

    // multitag_text keeps one record per tagger answered
    let multi = s
        .post(
            &format!("/projects/{pk}/taggers/multitag_text/"),
            Some(&t),
            &json!({"text": "varas murdis sisse", "feedback_enabled": true}),
        )
        .ok(200);
    assert!(multi[0]["feedback"]["id"].is_string(), "{multi}");
    let project = s.get(&format!("/projects/{pk}/feedback/"), Some(&t)).ok(200);
    assert_eq!(project.as_array().unwrap().len(), 3, "{project}");

    s.delete(&format!("{base}/feedback/"), Some(&t))
        .expect(200, json!({"success": "Deleted 3 feedback record(s)."}));
    assert_eq!(s.get(&format!("{base}/feedback/"), Some(&t)).ok(200), json!([]));

    // records go with their model
    s.post(
        &format!("{base}/tag_text/"),
        Some(&t),
        &json!({"text": "varas", "feedback_enabled": true}),
    )
    .ok(200);
    assert_eq!(s.delete(&format!("{base}/"), Some(&t)).status, 204);
    assert_eq!(s.get(&format!("/projects/{pk}/feedback/"), Some(&t)).ok(200), json!([]));
    s.delete(&format!("/projects/{pk}/feedback/"), Some(&t))
        .expect(200, json!({"success": "Deleted 0 feedback record(s)."}));
}

#[test]
fn cli_feedback_locally_and_remotely_alike() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let file = dir.path().join("labelled.jsonl");
    std::fs::write(&file, corpus()).unwrap();
    ta(&data, &["project", "create", "--title", "p"]).ok();
    assert_eq!(train_from_file(&data, &file)["task"]["status"], "completed");
    let kept = ta(&data, &["tagger", "tag-text", "1", "politsei otsib varast", "--feedback"]).ok();
    let fid = kept["feedback"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        kept["feedback"]["url"],
        "http://127.0.0.1:8000/api/v1/projects/1/taggers/1/feedback/"
    );
    let given = ta(
        &data,
        &["tagger", "feedback", "1", "--feedback-id", &fid, "--correct-result", "false"],
    )
    .ok();
    assert_eq!(given["correct_result"], "false");
    let listed = ta(&data, &["tagger", "feedback", "1"]).ok();
    assert_eq!(listed, json!([given]));
    assert_eq!(ta(&data, &["project", "feedback", "1"]).ok(), listed);
    assert_eq!(ta(&data, &["tagger", "feedback", "1", "--correct-result", "x"]).code, 2);

    let s = Server::start_in(&data, &[]);
    let token = s.admin_token();
    let remote = |args: &[&str]| ta(&data, &[&["--server", s.base.as_str(), "--token", token.as_str()], args].concat());
    assert_eq!(remote(&["tagger", "feedback", "1"]).ok(), listed);
    let other = remote(&["tagger", "tag-text", "1", "homme sajab vihma", "--feedback"]).ok();
    assert_eq!(other["feedback"]["url"], format!("{}/projects/1/taggers/1/feedback/", s.base));
    assert_eq!(
        remote(&["tagger", "feedback", "1", "--clear"]).ok(),
        json!({"success": "Deleted 2 feedback record(s)."})
    );
    assert_eq!(remote(&["project", "feedback", "1"]).ok(), json!([]));
    assert_eq!(
        ta(&data, &["project", "feedback", "1", "--clear"]).ok(),
        json!({"success": "Deleted 0 feedback record(s)."})
    );
}
