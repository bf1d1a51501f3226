//! The evaluator (`collection.md` §6) against a real `ta serve`: an index whose documents hold
//! a true fact GOLD and a predicted fact PRED; binary and multilabel runs with their whole
//! answers (scores as scikit-learn 1.9 computes them on the same labels, see
//! `scripts/check/evaluator_sklearn.py`); per-class results filtered, averaged and ordered;
//! the 405 of binary evaluators; misclassified documents; reevaluate over changed documents;
//! the plot; description-only updates; every validation message; the CLI locally and against
//! the server.
use crate::common;
use crate::reindexer::put_docs;

use common::Server;
use serde_json::{json, Value};

/// (GOLD values, PRED values) of the six documents d0..d5.
const LABELS: [(&[&str], &[&str]); 6] = [
    (&["a", "b"], &["a"]),
    (&["b"], &["b", "c"]),
    (&["c"], &["c"]),
    (&[], &["a", "d"]),
    (&["a", "c"], &["a", "c"]),
    (&[], &[]),
];

fn facts(name: &str, values: &[&str]) -> Vec<Value> {
    (values.iter())
        .map(|v| json!({"fact": name, "str_val": v, "doc_path": "text", "spans": "[[0, 0]]"}))
        .collect()
}

/// The documents of `LABELS` for index `index`.
fn documents(index: &str) -> Vec<Value> {
    (LABELS.iter().enumerate())
        .map(|(i, (gold, pred))| {
            let facts = [facts("GOLD", gold), facts("PRED", pred)].concat();
            json!({"_index": index, "_id": format!("d{i}"), "_source": {"text": format!("text {i}"), "texta_facts": facts}})
        })
        .collect()
}

/// A project with index `preds` holding the six documents.
fn labelled() -> (Server, String, i64) {
    let s = Server::start();
    let t = s.admin_token();
    let pk = s.create_project(&t, "evaluate", &[])["id"].as_i64().unwrap();
    put_docs(&s, &t, pk, json!(documents("preds")));
    (s, t, pk)
}

/// The answer without its task, which is checked on its own.
fn without_task(v: &Value) -> Value {
    let mut v = v.clone();
    v.as_object_mut().unwrap().remove("task");
    if let Some(link) = v["plot"].as_str().and_then(common::unkeyed) {
        v["plot"] = json!(link);
    }
    v
}

/// An evaluator's answer: the settings sent, and the run's results (or their nulls).
fn evaluator(s: &Server, pk: i64, id: i64, settings: Value, results: Value) -> Value {
    let p = format!("{}/projects/{pk}/evaluators/{id}/", s.base);
    let mut v = json!({
        "id": id, "url": p, "author_username": "admin", "description": "eval",
        "indices": [{"id": 1, "url": format!("{}/index/1/", s.base), "is_open": true, "name": "preds"}],
        "query": "{\"query\": {\"match_all\": {}}}",
        "true_fact": "GOLD", "predicted_fact": "PRED", "true_fact_value": "", "predicted_fact_value": "",
        "average_function": "macro", "add_individual_results": true, "scroll_size": 500, "es_timeout": 10,
        "precision": null, "recall": null, "f1_score": null, "accuracy": null, "confusion_matrix": "[]",
        "n_true_classes": null, "n_predicted_classes": null, "n_total_classes": null, "document_count": null,
        "evaluation_type": "multilabel", "scores_imprecise": null, "score_after_scroll": null, "plot": null,
    });
    let o = v.as_object_mut().unwrap();
    o.extend(settings.as_object().unwrap().clone());
    if !results.is_null() {
        o.extend(results.as_object().unwrap().clone());
        o.insert("scores_imprecise".into(), json!(false));
        o.insert("score_after_scroll".into(), json!(false));
        o.insert("plot".into(), json!(format!("{p}plot/?key=<key>")));
    }
    v
}

/// Creates an evaluator with `body` (description `eval` added) and waits for its run.
fn run(s: &Server, t: &str, pk: i64, body: Value) -> Value {
    let mut body = body;
    body["description"] = json!("eval");
    let created = s.post(&format!("/projects/{pk}/evaluators/"), Some(t), &body).ok(201);
    let done = s.settle(t, &format!("/projects/{pk}/evaluators/{}/", created["id"]));
    let task = &done["task"];
    assert_eq!(
        (
            &task["status"],
            &task["step"],
            &task["total"],
            &task["num_processed"],
            &task["progress"]
        ),
        (&json!("completed"), &json!(""), &json!(6), &json!(6), &json!(100.0)),
        "{done}"
    );
    done
}

/// Runs `body` once with each average (evaluators 2, 3, ...) and checks precision, recall and
/// F1, and `accuracy`, which no average changes.
fn each_average(s: &Server, t: &str, pk: i64, body: &Value, averages: &[(&str, [f64; 3])], accuracy: f64) {
    for (i, (average, [precision, recall, f1])) in averages.iter().enumerate() {
        let mut b = body.clone();
        b["average_function"] = json!(average);
        let done = run(s, t, pk, b);
        let got = ["precision", "recall", "f1_score", "accuracy", "id"].map(|k| done[k].clone());
        assert_eq!(
            got,
            [json!(precision), json!(recall), json!(f1), json!(accuracy), json!(i + 2)],
            "{average}"
        );
    }
}

#[test]
fn a_binary_run_scores_one_value_of_each_fact() {
    let (s, t, pk) = labelled();
    let body = json!({"indices": [{"name": "preds"}], "true_fact": "GOLD", "predicted_fact": "PRED",
                      "true_fact_value": "a", "predicted_fact_value": "a", "average_function": "binary"});
    let mut created = body.clone();
    created["description"] = json!("eval");
    let created = s.post(&format!("/projects/{pk}/evaluators/"), Some(&t), &created).ok(201);
    let settings = json!({"true_fact_value": "a", "predicted_fact_value": "a", "average_function": "binary",
                          "evaluation_type": "binary"});
    // The answer of create comes before the run's results (the task may have started).
    assert_eq!(without_task(&created), evaluator(&s, pk, 1, settings.clone(), Value::Null));
    let done = s.settle(&t, &format!("/projects/{pk}/evaluators/1/"));
    // y_true [1, 0, 0, 0, 1, 0], y_pred [1, 0, 0, 1, 1, 0]: tn 3, fp 1, fn 0, tp 2.
    assert_eq!(
        without_task(&done),
        evaluator(
            &s,
            pk,
            1,
            settings.clone(),
            json!({"precision": 0.6666666666666666, "recall": 1.0, "f1_score": 0.8, "accuracy": 0.8333333333333334,
                   "confusion_matrix": "[[3, 1], [0, 2]]", "n_true_classes": 2, "n_predicted_classes": 2,
                   "n_total_classes": 2, "document_count": 6})
        )
    );
    // The other averages over both labels (scikit-learn's values).
    let averages = [
        ("micro", [0.8333333333333334, 0.8333333333333334, 0.8333333333333334]),
        ("macro", [0.8333333333333333, 0.875, 0.8285714285714285]),
        ("weighted", [0.8888888888888888, 0.8333333333333334, 0.8380952380952381]),
    ];
    each_average(&s, &t, pk, &body, &averages, 0.8333333333333334);
    // Per-class results are for multilabel evaluators only.
    let p = format!("/projects/{pk}/evaluators/1");
    let refusal = json!({"detail": "This operation is enabled only for multilabel evaluators."});
    for action in ["filtered_average", "individual_results"] {
        s.get(&format!("{p}/{action}/"), Some(&t)).expect(405, refusal.clone());
        s.post(&format!("{p}/{action}/"), Some(&t), &json!({})).expect(405, refusal.clone());
    }
    // Misclassified: d3 (a predicted, not true).
    s.post(&format!("{p}/misclassified_documents/"), Some(&t), &json!({})).expect(
        200,
        json!({"total": 1, "documents": [{"id": "d3", "index": "preds", "true": [], "predicted": ["a", "d"]}]}),
    );
    // The confusion matrix as a PNG.
    let plot = s.get(&format!("{p}/plot/"), Some(&t));
    assert_eq!((plot.status, plot.header("content-type")), (200, "image/png".to_string()));
    assert_eq!(&plot.bytes[..8], b"\x89PNG\r\n\x1a\n");
}

/// Per class (scikit-learn, each class's column as binary labels).
fn class(precision: f64, recall: f64, f1: f64, matrix: Value, count: u64) -> Value {
    json!({"precision": precision, "recall": recall, "f1_score": f1, "accuracy": 0.8333333333333334,
           "confusion_matrix": matrix, "count": count})
}

#[test]
fn a_multilabel_run_scores_the_sets_of_values() {
    let (s, t, pk) = labelled();
    let done = run(&s, &t, pk, json!({"true_fact": "GOLD", "predicted_fact": "PRED"}));
    // Classes a, b, c, d (sorted); first classes: a→a, b→b, c→c, none→a, a→a, none→a.
    assert_eq!(
        without_task(&done),
        evaluator(
            &s,
            pk,
            1,
            json!({}),
            json!({"precision": 0.5833333333333333, "recall": 0.625, "f1_score": 0.5666666666666667, "accuracy": 0.5,
                   "confusion_matrix": "[[4, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]]",
                   "n_true_classes": 3, "n_predicted_classes": 4, "n_total_classes": 4, "document_count": 6})
        )
    );
    let averages = [
        ("micro", [0.625, 0.8333333333333334, 0.7142857142857143]),
        ("weighted", [0.7777777777777777, 0.8333333333333334, 0.7555555555555555]),
        ("samples", [0.5833333333333334, 0.5833333333333334, 0.5555555555555555]),
    ];
    each_average(&s, &t, pk, &json!({"true_fact": "GOLD", "predicted_fact": "PRED"}), &averages, 0.5);
    let p = format!("/projects/{pk}/evaluators/1");
    let a = class(0.6666666666666666, 1.0, 0.8, json!([[3, 1], [0, 2]]), 3);
    let b = class(1.0, 0.5, 0.6666666666666666, json!([[4, 0], [1, 1]]), 2);
    let c = a.clone();
    let d = class(0.0, 0.0, 0.0, json!([[5, 1], [0, 0]]), 1);
    s.get(&format!("{p}/individual_results/"), Some(&t))
        .expect(200, json!({"total": 4, "filtered_results": {"a": a, "b": b, "c": c, "d": d}}));
    // By count, descending: ties keep class order.
    let ordered = s
        .post(
            &format!("{p}/individual_results/"),
            Some(&t),
            &json!({"order_by": "count", "order_desc": true, "min_count": 2}),
        )
        .ok(200);
    assert_eq!(ordered, json!({"total": 3, "filtered_results": {"a": a, "c": c, "b": b}}));
    let keys: Vec<&String> = ordered["filtered_results"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["a", "c", "b"]);
    // The means over all four classes, then over those with F1 from 0.7.
    s.get(&format!("{p}/filtered_average/"), Some(&t)).expect(
        200,
        json!({"precision": 0.5833333333333333, "recall": 0.625, "f1_score": 0.5666666666666667,
               "accuracy": 0.8333333333333334, "count": 4}),
    );
    s.post(
        &format!("{p}/filtered_average/"),
        Some(&t),
        &json!({"metric_restrictions": {"f1_score": {"min_score": 0.7}}}),
    )
    .expect(
        200,
        json!({"precision": 0.6666666666666666, "recall": 1.0, "f1_score": 0.8, "accuracy": 0.8333333333333334, "count": 2}),
    );
    s.post(&format!("{p}/filtered_average/"), Some(&t), &json!({"max_count": 0}))
        .expect(
            200,
            json!({"precision": 0.0, "recall": 0.0, "f1_score": 0.0, "accuracy": 0.0, "count": 0}),
        );
    // Misclassified: d0, d1, d3; with a label, those where it is on one side only.
    let doc = |id: &str, truth: &[&str], predicted: &[&str]| json!({"id": id, "index": "preds", "true": truth, "predicted": predicted});
    // (in the store's order, which is not the ids').
    let mut found = s.post(&format!("{p}/misclassified_documents/"), Some(&t), &json!({})).ok(200);
    found["documents"].as_array_mut().unwrap().sort_by_key(|d| d["id"].to_string());
    assert_eq!(
        found,
        json!({"total": 3, "documents": [doc("d0", &["a", "b"], &["a"]), doc("d1", &["b"], &["b", "c"]), doc("d3", &[], &["a", "d"])]})
    );
    let first = s
        .post(&format!("{p}/misclassified_documents/"), Some(&t), &json!({"size": 1}))
        .ok(200);
    assert_eq!((&first["total"], first["documents"].as_array().unwrap().len()), (&json!(3), 1));
    s.post(&format!("{p}/misclassified_documents/"), Some(&t), &json!({"label": "c"}))
        .expect(200, json!({"total": 1, "documents": [doc("d1", &["b"], &["b", "c"])]}));
    let plot = s.get(&format!("{p}/plot/"), Some(&t));
    assert_eq!((plot.status, &plot.bytes[..4]), (200, &b"\x89PNG"[..]));
    // Ordering by a score; the description filter.
    let listed = s.get(&format!("/projects/{pk}/evaluators/?ordering=-f1_score"), Some(&t)).ok(200);
    let ids: Vec<&Value> = listed["results"].as_array().unwrap().iter().map(|e| &e["id"]).collect();
    assert_eq!(ids, [&json!(3), &json!(2), &json!(1), &json!(4)]);
    assert_eq!(
        s.get(&format!("/projects/{pk}/evaluators/?description=nothing"), Some(&t)).ok(200)["count"],
        json!(0)
    );
}

#[test]
fn reevaluate_scores_the_documents_as_they_are_now() {
    let (s, t, pk) = labelled();
    run(
        &s,
        &t,
        pk,
        json!({"true_fact": "GOLD", "predicted_fact": "PRED", "average_function": "micro"}),
    );
    let p = format!("/projects/{pk}/evaluators/1/");
    // d3 and d0 corrected: now a, b, c match on every document but d1.
    let d0_facts = [facts("GOLD", &["a"]), facts("PRED", &["a"])].concat();
    put_docs(
        &s,
        &t,
        pk,
        json!([
            {"_index": "preds", "_id": "d3", "_source": {"text": "text 3"}},
            {"_index": "preds", "_id": "d0", "_source": {"text": "text 0", "texta_facts": d0_facts}},
        ]),
    );
    s.post(&format!("{p}reevaluate/"), Some(&t), &json!({}))
        .expect(200, json!({"success": "Re-evaluation task created"}));
    let done = s.settle(&t, &p);
    // tp 5 (a twice, b, c twice), fp 1 (c of d1), fn 0: micro P 5/6, R 1; five documents match.
    assert_eq!(
        (&done["precision"], &done["recall"], &done["accuracy"], &done["n_predicted_classes"]),
        (&json!(0.8333333333333334), &json!(1.0), &json!(0.8333333333333334), &json!(3)),
        "{done}"
    );
    assert_eq!(done["confusion_matrix"], "[[4, 0, 0], [0, 1, 0], [0, 0, 1]]");
    // Only the description changes; DELETE answers 204 empty; bulk_delete counts the task.
    let changed = s
        .patch(
            &p,
            Some(&t),
            &json!({"description": "renamed", "true_fact": "PRED", "average_function": "binary"}),
        )
        .ok(200);
    assert_eq!(
        (&changed["description"], &changed["true_fact"], &changed["average_function"]),
        (&json!("renamed"), &json!("GOLD"), &json!("micro"))
    );
    let replaced = s.put(&p, Some(&t), &json!({"description": "again"})).ok(200);
    assert_eq!(replaced["description"], "again");
    run(&s, &t, pk, json!({"true_fact": "GOLD", "predicted_fact": "PRED"}));
    let r = s.delete(&p, Some(&t));
    assert_eq!((r.status, r.text.as_str()), (204, ""));
    s.post(
        &format!("/projects/{pk}/evaluators/bulk_delete/"),
        Some(&t),
        &json!({"ids": [2, 3]}),
    )
    .expect(
        200,
        json!({"num_deleted": 2, "deleted_types": {"core.Task": 1, "evaluator.Evaluator": 1}}),
    );
    s.get(&format!("/projects/{pk}/evaluators/"), Some(&t))
        .expect(200, json!({"count": 0, "results": []}));
}

#[test]
fn validation_messages() {
    let (s, t, pk) = labelled();
    let p = format!("/projects/{pk}/evaluators/");
    s.post(&p, Some(&t), &json!({})).expect(
        400,
        json!({"description": ["This field is required."], "true_fact": ["This field is required."],
               "predicted_fact": ["This field is required."]}),
    );
    s.post(
        &p,
        Some(&t),
        &json!({"description": "x", "true_fact": "GOLD", "predicted_fact": "PRED", "query": "{not json",
                "average_function": "median", "scroll_size": 0, "add_individual_results": "maybe"}),
    )
    .expect(
        400,
        json!({"query": ["Value must be valid JSON."], "average_function": ["\"median\" is not a valid choice."],
               "add_individual_results": ["Must be a valid boolean."],
               "scroll_size": ["Ensure this value is greater than or equal to 1."]}),
    );
    s.post(
        &p,
        Some(&t),
        &json!({"description": "x", "indices": ["nope"], "true_fact": "GOLD", "predicted_fact": "PRED"}),
    )
    .expect(400, json!(["Inserted indices ['nope'] are not available to you."]));
    let cases = [
        (
            json!({"true_fact": "GOLD", "predicted_fact": "NOPE"}),
            "Fact 'NOPE' not present in any of the selected indices (['preds']).",
        ),
        (
            json!({"true_fact": "GOLD", "predicted_fact": "PRED", "true_fact_value": "a"}),
            "If one of the fact values is specified, the other one should be too. Current fact values: true_fact_value: 'a', pred_fact_value: ''.",
        ),
        (
            json!({"true_fact": "GOLD", "predicted_fact": "PRED", "true_fact_value": "", "predicted_fact_value": "b"}),
            "If one of the fact values is specified, the other one should be too. Current fact values: true_fact_value: '', pred_fact_value: 'b'.",
        ),
        (
            json!({"true_fact": "GOLD", "predicted_fact": "PRED", "true_fact_value": "d", "predicted_fact_value": "d"}),
            "Fact value 'd' not in the list of fact values for fact 'GOLD'.",
        ),
        (
            json!({"true_fact": "GOLD", "predicted_fact": "PRED", "average_function": "binary"}),
            "Average function 'binary' can only be used for binary evaluation. Available average functions for non-binary evaluation are: ['micro', 'macro', 'samples', 'weighted'].",
        ),
        (
            json!({"true_fact": "GOLD", "predicted_fact": "PRED", "true_fact_value": "a", "predicted_fact_value": "a", "average_function": "samples"}),
            "Average function 'samples' can only be used for multilabel evaluation. Available average functions for binary evaluation are: ['binary', 'micro', 'macro', 'weighted'].",
        ),
    ];
    for (body, message) in cases {
        let mut body = body;
        body["description"] = json!("x");
        s.post(&p, Some(&t), &body).expect(400, json!({"non_field_errors": [message]}));
    }
    s.get(&p, Some(&t)).expect(200, json!({"count": 0, "results": []}));
    // The bodies of the per-class actions.
    run(&s, &t, pk, json!({"true_fact": "GOLD", "predicted_fact": "PRED"}));
    let e = format!("{p}1/");
    s.post(
        &format!("{e}filtered_average/"),
        Some(&t),
        &json!({"min_count": -1, "metric_restrictions": {"f1": {}, "recall": {"max_score": 2}, "precision": 3}}),
    )
    .expect(
        400,
        json!({"min_count": ["Ensure this value is greater than or equal to 0."],
               "metric_restrictions": ["'f1' is not a metric; choose from ['precision', 'recall', 'f1_score', 'accuracy']."]}),
    );
    s.post(
        &format!("{e}filtered_average/"),
        Some(&t),
        &json!({"metric_restrictions": {"recall": {"max_score": 2}}}),
    )
    .expect(
        400,
        json!({"metric_restrictions": ["\"max_score\" of 'recall' must be a number from 0 to 1."]}),
    );
    s.post(
        &format!("{e}individual_results/"),
        Some(&t),
        &json!({"order_by": "size", "order_desc": "x"}),
    )
    .expect(
        400,
        json!({"order_by": ["\"size\" is not a valid choice."], "order_desc": ["Must be a valid boolean."]}),
    );
    s.post(&format!("{e}misclassified_documents/"), Some(&t), &json!({"size": 0}))
        .expect(400, json!({"size": ["Ensure this value is greater than or equal to 1."]}));
    // OPTIONS lists the average functions.
    let options = s.call("OPTIONS", &p, Some(&t), None).ok(200);
    let choices: Vec<&Value> = options["actions"]["POST"]["average_function"]["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["value"])
        .collect();
    assert_eq!(choices, ["binary", "micro", "macro", "samples", "weighted"]);
}

/// `ta evaluator ...` locally and against a server: the same answers.
#[test]
fn cli_local_and_remote_give_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("preds.jsonl");
    let lines: String = documents("preds").iter().map(|d| d["_source"].to_string() + "\n").collect();
    std::fs::write(&file, lines).unwrap();
    let server = Server::start();
    let token = server.admin_token();
    let remote_env = [("TA_SERVER", Some(server.origin.as_str())), ("TA_TOKEN", Some(token.as_str()))];
    let run = |data: &std::path::Path, env: &[(&str, Option<&str>)]| -> Vec<Value> {
        let ta = |args: &[&str]| common::ta_env(data, &[args, &["--json"]].concat(), env);
        ta(&["project", "create", "--title", "p"]).ok();
        ta(&[
            "import",
            "--project",
            "1",
            "--index",
            "preds",
            "--description",
            "d",
            file.to_str().unwrap(),
        ])
        .ok();
        let facts = ["--project", "1", "--true-fact", "GOLD", "--predicted-fact", "PRED"];
        let multilabel = ta(&[&["evaluator", "create", "--index", "preds"], &facts[..]].concat()).ok();
        let binary = ta(&[
            &["evaluator", "create", "--description", "binary", "--average", "weighted"],
            &facts[..],
            &["--true-fact-value", "b", "--predicted-fact-value", "b"],
        ]
        .concat())
        .ok();
        let refused = ta(&[&["evaluator", "create", "--average", "binary"], &facts[..]].concat()).fails(3);
        let not_multilabel = ta(&["evaluator", "filtered-average", "2"]).fails(3);
        let listed = ta(&["evaluator", "list", "--project", "1", "--ordering=-f1_score"]).ok();
        let average = ta(&["evaluator", "filtered-average", "1", "--restrict", "precision:0.5:1"]).ok();
        let results = ta(&[
            "evaluator",
            "individual-results",
            "1",
            "--order-by",
            "f1_score",
            "--desc",
            "--min-count",
            "2",
        ])
        .ok();
        let misclassified = ta(&["evaluator", "misclassified", "1", "--label", "b"]).ok();
        let again = ta(&["evaluator", "reevaluate", "2"]).ok();
        let plot = dir.path().join(if env.is_empty() { "local.png" } else { "remote.png" });
        let saved = ta(&["evaluator", "plot", "1", "--output", plot.to_str().unwrap()]).ok();
        assert!(saved["bytes"].as_u64().unwrap() > 1000, "{saved}");
        let gone = ta(&["evaluator", "bulk-delete", "--project", "1", "1", "2"]).ok();
        // Imported documents get fresh ids.
        let mut misclassified = misclassified;
        misclassified["documents"][0]["id"] = json!("<id>");
        vec![
            multilabel,
            binary,
            json!(refused),
            json!(not_multilabel),
            listed,
            average,
            results,
            misclassified,
            again,
            gone,
        ]
    };
    let local = common::same_both_ways(&run(dir.path(), &[]), &run(dir.path(), &remote_env), &server.base);
    assert_eq!(
        (&local[0]["task"]["status"], &local[0]["f1_score"], &local[1]["evaluation_type"]),
        (&json!("completed"), &json!(0.5666666666666667), &json!("binary")),
        "{}",
        local[0]
    );
    assert_eq!(
        local[3],
        json!("ta: error: This operation is enabled only for multilabel evaluators.")
    );
    assert_eq!(
        local[7],
        json!({"total": 1, "documents": [{"id": "<id>", "index": "preds", "true": ["a", "b"], "predicted": ["a"]}]})
    );
    assert_eq!(
        local[9],
        json!({"num_deleted": 4, "deleted_types": {"core.Task": 2, "evaluator.Evaluator": 2}})
    );
}
