//! Neural taggers (api.md §10) against a real `ta serve`: create with background training in
//! binary and fact mode, with a frozen embedding or learned word vectors; the figures and
//! epoch reports; tag_text, tag_texts, tag_random_doc, plot, retrain, export/import,
//! bulk delete; the validation messages and failed tasks; and `ta torchtagger` in local and
//! remote mode with identical output.
use crate::common;

use common::{normalize, ta, Server};
use serde_json::{json, Value};

const TOPICS: [(&str, [&str; 4]); 3] = [
    (
        "crime",
        [
            "varas varastas poest telefoni",
            "politsei pidas varga kinni",
            "varas murdis korterisse sisse",
            "politsei otsib varast",
        ],
    ),
    (
        "weather",
        [
            "homme sajab vihma ja tuul on tugev",
            "ilm on päikeseline ja soe",
            "öösel on külm ja sajab lund",
            "tuul pöördub läände ja sajab",
        ],
    ),
    (
        "sport",
        [
            "jalgpallur lõi värava",
            "korvpallimeeskond võitis mängu",
            "võistkond kaotas finaalis",
            "treener kiitis mängijaid",
        ],
    ),
];

/// Three topics, 30 documents each, the topic as `label` and as fact `TOPIC`.
fn corpus() -> String {
    let mut out = String::new();
    for i in 0..30 {
        for (label, texts) in &TOPICS {
            let text = format!("{} {}", texts[i % 4], texts[(i + 1) % 4]);
            let fact = json!({"fact": "TOPIC", "str_val": label, "doc_path": "text", "spans": "[[0, 0]]"});
            out.push_str(&json!({"text": text, "label": label, "texta_facts": [fact]}).to_string());
            out.push('\n');
        }
    }
    out
}

fn setup() -> (Server, String, i64) {
    let s = Server::start();
    let token = s.admin_token();
    let pk = s.create_project(&token, "neural", &[])["id"].as_i64().unwrap();
    s.import_jsonl(&token, pk, "news", &corpus());
    (s, token, pk)
}

fn is_score_string(v: &Value) -> bool {
    v.as_str()
        .and_then(|s| s.parse::<f64>().ok().filter(|_| s.len() == 5 && s.as_bytes()[1] == b'.'))
        .is_some()
}

/// The sample does not depend on the order a multi-threaded import stored the documents in.
#[test]
fn two_imports_of_one_corpus_train_the_same_model() {
    let trained: Vec<Value> = (0..2)
        .map(|_| {
            let (s, t, pk) = setup();
            let url = format!("/projects/{pk}/torchtaggers/");
            let body = json!({"description": "crime", "fields": ["text"], "model_architecture": "fastText", "num_epochs": 2,
                              "query": {"query": {"match": {"label": "crime"}}}});
            let id = s.post(&url, Some(&t), &body).ok(201)["id"].as_i64().unwrap();
            let done = s.settle(&t, &format!("{url}{id}/"));
            let tagged = s
                .post(&format!("{url}{id}/tag_text/"), Some(&t), &json!({"text": "jalgpallur lõi värava"}))
                .ok(200);
            json!([done["epoch_reports"], done["f1_score"], tagged["probability"]])
        })
        .collect();
    assert_eq!(trained[0], trained[1]);
}

#[test]
fn torchtagger_trains_tags_and_travels() {
    let (s, t, pk) = setup();
    let url = format!("/projects/{pk}/torchtaggers/");
    let body = json!({"description": "crime", "fields": ["text"], "model_architecture": "fastText", "num_epochs": 3,
                      "query": {"query": {"match": {"label": "crime"}}}, "indices": [{"name": "news"}]});
    let created = s.post(&url, Some(&t), &body).ok(201);
    let id = created["id"].as_i64().unwrap();
    let index = json!([{"id": 1, "url": format!("{}/index/1/", s.base), "is_open": true, "name": "news"}]);
    let expected = |figures: Value, plot: Value, task: Value, reports: Value| {
        let mut v = json!({"url": format!("{}/projects/{pk}/torchtaggers/{id}/", s.base), "author_username": "admin",
            "id": id, "description": "crime", "query": "{\"query\": {\"match\": {\"label\": \"crime\"}}}",
            "fields": ["text"], "embedding": null, "model_architecture": "fastText", "maximum_sample_size": 100000,
            "minimum_sample_size": 50, "num_epochs": 3, "plot": plot, "task": task, "fact_name": null,
            "epoch_reports": reports, "indices": index.clone()});
        for key in ["f1_score", "precision", "recall", "accuracy"] {
            v[key] = figures.clone();
        }
        v
    };
    let created = normalize(&created);
    assert_eq!(created["task"]["status"], "created");
    assert_eq!(created, expected(Value::Null, Value::Null, created["task"].clone(), json!([])));

    let done = s.settle(&t, &format!("{url}{id}/"));
    assert_eq!(done["task"]["status"], "completed", "{done}");
    let reports = done["epoch_reports"].as_array().unwrap();
    assert_eq!(reports.len(), 3, "{done}");
    for r in reports {
        let keys: Vec<&String> = r.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["f1_score", "precision", "recall", "accuracy", "training_loss"]);
        assert!(r.as_object().unwrap().values().all(is_score_string), "{r}");
    }
    for key in ["f1_score", "precision", "recall", "accuracy"] {
        let x = done[key].as_f64().unwrap();
        assert!((0.5..=1.0).contains(&x), "{key} = {x}: {done}");
    }
    let mut shown = normalize(&done);
    for key in ["f1_score", "precision", "recall", "accuracy"] {
        shown[key] = json!("<set>");
    }
    let plot = done["plot"].as_str().unwrap();
    assert!(
        plot.starts_with(&format!("{}/projects/{pk}/torchtaggers/{id}/plot/?key=", s.base)),
        "{plot}"
    );
    assert_eq!(s.get(plot.strip_prefix(&s.base).unwrap(), None).header("content-type"), "image/png");
    assert_eq!(
        shown,
        expected(
            json!("<set>"),
            json!(common::unkeyed(plot)),
            shown["task"].clone(),
            done["epoch_reports"].clone()
        )
    );
    assert_eq!(
        (
            done["task"]["total"].clone(),
            done["task"]["num_processed"].clone(),
            done["task"]["progress"].clone()
        ),
        (json!(3), json!(3), json!(100.0)),
        "one batch per epoch: {done}"
    );

    let tag = |text: &str| s.post(&format!("{url}{id}/tag_text/"), Some(&t), &json!({"text": text})).ok(200);
    let yes = tag("politsei otsib varast");
    assert_eq!(yes.as_object().unwrap().keys().collect::<Vec<_>>(), ["result", "probability"]);
    assert_eq!(yes["result"], "true", "{yes}");
    assert!(yes["probability"].as_f64().unwrap() > 0.5);
    assert_eq!(tag("jalgpallur lõi värava")["result"], "false");
    // feedback_enabled keeps the prediction under the torch tagger's feedback/
    let kept = s
        .post(
            &format!("{url}{id}/tag_text/"),
            Some(&t),
            &json!({"text": "politsei otsib varast", "feedback_enabled": true}),
        )
        .ok(200);
    let fid = kept["feedback"]["id"].as_str().unwrap();
    assert_eq!(kept["feedback"]["url"], format!("{}{url}{id}/feedback/", s.base));
    let listed = normalize(&s.get(&format!("{url}{id}/feedback/"), Some(&t)).ok(200));
    assert_eq!(
        listed,
        json!([{"id": fid, "model_type": "torchtagger.TorchTagger", "model_id": id, "input": "politsei otsib varast",
                "prediction": {"result": "true", "probability": yes["probability"]}, "correct_result": null,
                "time_created": "<ts>", "time_updated": null}])
    );
    let many = s
        .post(
            &format!("{url}{id}/tag_texts/"),
            Some(&t),
            &json!({"texts": ["politsei otsib varast", "", "jalgpallur lõi värava"]}),
        )
        .ok(200);
    assert_eq!(many[0], yes, "a batch tags as one text does");
    assert_eq!(
        many.as_array().unwrap().iter().map(|r| r["result"].clone()).collect::<Vec<_>>()[2],
        json!("false")
    );
    s.post(&format!("{url}{id}/tag_texts/"), Some(&t), &json!({"texts": vec![""; 10_001]}))
        .expect(400, json!({"texts": ["Ensure this field has no more than 10000 elements."]}));
    let random = s.post(&format!("{url}{id}/tag_random_doc/"), Some(&t), &json!({})).ok(200);
    assert!(
        random["document"]["text"].is_string() && ["true", "false"].contains(&random["prediction"]["result"].as_str().unwrap()),
        "{random}"
    );
    s.post(
        &format!("{url}{id}/tag_random_doc/"),
        Some(&t),
        &json!({"indices": [{"name": "nope"}]}),
    )
    .expect(400, json!(["Inserted indices ['nope'] are not available to you."]));
    let png = s.get(&format!("{url}{id}/plot/"), Some(&t));
    assert_eq!((png.status, png.header("content-type")), (200, "image/png".to_string()));
    assert_eq!(&png.bytes[1..4], b"PNG");

    s.post(&format!("{url}{id}/retrain_tagger/"), Some(&t), &json!({}))
        .expect(200, json!({"success": "retraining task created"}));
    let again = s.settle(&t, &format!("{url}{id}/"));
    assert_eq!(again["task"]["status"], "completed", "{again}");
    assert_eq!(again["epoch_reports"], done["epoch_reports"], "seeded: the same run again");
    assert_eq!(s.get(&format!("{url}?task_status=completed"), Some(&t)).ok(200)["count"], json!(1));
    assert_eq!(s.get(&format!("{url}?task_status=failed"), Some(&t)).ok(200)["count"], json!(0));

    // Export, then import into another project: the copy tags identically.
    let export = s.get(&format!("{url}{id}/export_model/"), Some(&t));
    assert_eq!((export.status, export.header("content-type")), (200, "application/zip".to_string()));
    let other = s.create_project(&t, "other", &[])["id"].as_i64().unwrap();
    let imported = s
        .upload(
            &format!("/projects/{other}/torchtaggers/import_model/"),
            &t,
            &[],
            export.bytes.clone(),
            "t.zip",
        )
        .ok(201);
    assert_eq!(
        (
            imported["description"].clone(),
            imported["task"]["status"].clone(),
            imported["f1_score"].clone()
        ),
        (json!("crime"), json!("completed"), done["f1_score"].clone()),
        "{imported}"
    );
    let copy = imported["id"].as_i64().unwrap();
    let copied = s
        .post(
            &format!("/projects/{other}/torchtaggers/{copy}/tag_text/"),
            Some(&t),
            &json!({"text": "politsei otsib varast"}),
        )
        .ok(200);
    assert_eq!(copied, yes);
    let junk = s.upload(
        &format!("/projects/{other}/torchtaggers/import_model/"),
        &t,
        &[],
        b"no".to_vec(),
        "x.zip",
    );
    assert_eq!(junk.status, 400, "{}", junk.text);
    let tagger_export = s.upload(
        &format!("/projects/{other}/torchtaggers/import_model/"),
        &t,
        &[],
        export.bytes.clone(),
        "t.zip",
    );
    assert_eq!(tagger_export.status, 201, "the same export imports twice");

    s.post(
        &format!("/projects/{other}/torchtaggers/bulk_delete/"),
        Some(&t),
        &json!({"ids": [copy]}),
    )
    .expect(
        200,
        json!({"num_deleted": 2, "deleted_types": {"core.Task": 1, "torchtagger.TorchTagger": 1}}),
    );
    assert_eq!(s.delete(&format!("{url}{id}/"), Some(&t)).status, 204);
    s.post(&format!("{url}{id}/tag_text/"), Some(&t), &json!({"text": "x"}))
        .expect(404, json!({"detail": "Not found."}));
}

#[test]
fn torchtagger_fact_mode_embeddings_and_failures() {
    let (s, t, pk) = setup();
    let url = format!("/projects/{pk}/torchtaggers/");
    let topics = s
        .post(
            &url,
            Some(&t),
            &json!({"description": "topics", "fields": ["text"], "model_architecture": "TextRNN", "num_epochs": 2,
                    "fact_name": "TOPIC", "minimum_sample_size": 10}),
        )
        .ok(201);
    let done = s.settle(&t, &format!("{url}{}/", topics["id"]));
    assert_eq!(done["task"]["status"], "completed", "{done}");
    assert_eq!(
        (done["fact_name"].clone(), done["epoch_reports"].as_array().unwrap().len()),
        (json!("TOPIC"), 2)
    );
    let result = s
        .post(
            &format!("{url}{}/tag_text/", topics["id"]),
            Some(&t),
            &json!({"text": "ilm on soe"}),
        )
        .ok(200)["result"]
        .clone();
    assert!(["crime", "weather", "sport"].contains(&result.as_str().unwrap()), "{result}");

    // Applied to the index: each document gets the class tag_text predicts for its text.
    crate::apply::assert_apply_matches_tag_text(&s, &t, pk, &format!("{url}{}/", topics["id"]), json!({}), |answer| {
        vec![answer["result"].as_str().unwrap().to_string()]
    });

    // One qualifying value: that value against the rest.
    let one = s
        .post(
            &url,
            Some(&t),
            &json!({"description": "one", "fields": ["text"], "model_architecture": "fastText", "num_epochs": 5,
                    "fact_name": "TOPIC", "minimum_sample_size": 10, "indices": [{"name": "news"}],
                    "maximum_sample_size": 20}),
        )
        .ok(201);
    assert_eq!(s.settle(&t, &format!("{url}{}/", one["id"]))["task"]["status"], "completed");

    // A frozen embedding trained on the same index.
    let embedding = s
        .post(
            &format!("/projects/{pk}/embeddings/"),
            Some(&t),
            &json!({"description": "e", "fields": ["text"], "min_freq": 1, "num_dimensions": 20}),
        )
        .ok(201);
    let e = s.settle(&t, &format!("/projects/{pk}/embeddings/{}/", embedding["id"]));
    assert_eq!(e["task"]["status"], "completed", "{e}");
    let rcnn = s
        .post(
            &url,
            Some(&t),
            &json!({"description": "rcnn", "fields": ["text"], "model_architecture": "RCNN", "num_epochs": 2,
                    "embedding": embedding["id"], "query": {"query": {"match": {"label": "weather"}}}}),
        )
        .ok(201);
    let trained = s.settle(&t, &format!("{url}{}/", rcnn["id"]));
    assert_eq!(
        (trained["task"]["status"].clone(), trained["embedding"].clone()),
        (json!("completed"), embedding["id"].clone()),
        "{trained}"
    );
    // Deleting the embedding unlinks it; the trained model keeps its own copy of the vectors.
    assert_eq!(
        s.delete(&format!("/projects/{pk}/embeddings/{}/", embedding["id"]), Some(&t))
            .status,
        204
    );
    let unlinked = s.get(&format!("{url}{}/", rcnn["id"]), Some(&t)).ok(200);
    assert_eq!(unlinked["embedding"], Value::Null);
    s.post(&format!("{url}{}/tag_text/", rcnn["id"]), Some(&t), &json!({"text": "sajab vihma"}))
        .ok(200);

    let failed = |body: Value| {
        let id = s.post(&url, Some(&t), &body).ok(201)["id"].clone();
        let v = s.settle(&t, &format!("{url}{id}/"));
        assert_eq!(v["task"]["status"], "failed", "{v}");
        (id, v["task"]["errors"].as_str().unwrap().to_string())
    };
    let (nope, errors) = failed(json!({"description": "x", "fields": ["text"], "model_architecture": "fastText",
                                        "fact_name": "NOPE"}));
    assert_eq!(errors, "[\"no classes found for fact name: NOPE\"]");
    let (_, errors) = failed(json!({"description": "x", "fields": ["text"], "model_architecture": "fastText",
                                     "query": {"query": {"match": {"label": "nothing"}}}}));
    assert_eq!(errors, "[\"no positive examples: the query matches no document\"]");
    s.post(&format!("{url}{nope}/tag_text/"), Some(&t), &json!({"text": "x"}))
        .expect(400, json!({"detail": "Model does not exist"}));
    s.get(&format!("{url}{nope}/plot/"), Some(&t))
        .expect(404, json!({"detail": "Not found."}));
    s.get(&format!("{url}{nope}/export_model/"), Some(&t))
        .expect(400, json!({"detail": "Model does not exist"}));
}

#[test]
fn torchtagger_validation() {
    let s = Server::start();
    let t = s.admin_token();
    let pk = s.create_project(&t, "v", &[])["id"].as_i64().unwrap();
    s.import_jsonl(&t, pk, "news", "{\"text\": \"a b\"}\n");
    let url = format!("/projects/{pk}/torchtaggers/");
    let refused = |body: Value, expected: Value| s.post(&url, Some(&t), &body).expect(400, expected);
    refused(
        json!({}),
        json!({"description": ["This field is required."], "fields": ["This field is required."],
               "model_architecture": ["This field is required."]}),
    );
    let base = json!({"description": "x", "fields": ["text"], "model_architecture": "fastText"});
    let with = |k: &str, v: Value| {
        let mut b = base.clone();
        b[k] = v;
        b
    };
    refused(
        with("model_architecture", json!("BERT")),
        json!({"model_architecture": ["\"BERT\" is not a valid choice."]}),
    );
    refused(
        with("num_epochs", json!(0)),
        json!({"num_epochs": ["Ensure this value is greater than or equal to 1."]}),
    );
    refused(
        with("num_epochs", json!(100_000)),
        json!({"num_epochs": ["Ensure this value is less than or equal to 1000."]}),
    );
    refused(
        with("embedding", json!(99)),
        json!({"embedding": ["Invalid pk \"99\" - object does not exist."]}),
    );
    refused(
        with("fields", json!(["nope"])),
        json!({"fields": ["Entered fields not in current project fields: {'text'}"]}),
    );
    let form = |extra: (&'static str, &'static str)| {
        let fields = [
            ("description", "d"),
            ("fields", "text"),
            ("label_field", "l"),
            ("model_architecture", "RCNN"),
            extra,
        ];
        s.upload(&format!("{url}train_file/"), &t, &fields, b"{}\n".to_vec(), "x.jsonl")
    };
    form(("optimizer", "momentum")).expect(400, json!({"optimizer": ["\"momentum\" is not a valid choice."]}));
    form(("seed", "-1")).expect(400, json!({"seed": ["Ensure this value is greater than or equal to 0."]}));
    let created = s.post(&url, Some(&t), &base).ok(201);
    let id = created["id"].as_i64().unwrap();
    s.post(&format!("{url}{id}/tag_text/"), Some(&t), &json!({}))
        .expect(400, json!({"text": ["This field is required."]}));
    let patched = s.patch(
        &format!("{url}{id}/"),
        Some(&t),
        &json!({"description": "renamed", "num_epochs": 2}),
    );
    assert_eq!(
        (patched.ok(200)["description"].clone(), patched.json()["num_epochs"].clone()),
        (json!("renamed"), json!(2))
    );
    // One document cannot be split into train, validation and test parts.
    let v = s.settle(&t, &format!("{url}{id}/"));
    assert_eq!(v["task"]["status"], "failed", "{v}");
    let outsider = s.register("outsider");
    s.get(&format!("{url}{id}/"), Some(&outsider))
        .expect(403, json!({"detail": "Insufficient permissions for this resource."}));
}

#[test]
fn cli_trains_from_a_file_and_tags_locally_and_remotely_alike() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let file = dir.path().join("labelled.jsonl");
    std::fs::write(&file, corpus()).unwrap();
    ta(&data, &["init"]).ok();
    ta(&data, &["project", "create", "--title", "p"]).ok();
    let train = |extra: &[&str]| {
        let args = [
            &[
                "torchtagger",
                "train",
                "--project",
                "1",
                "--description",
                "topics",
                "--field",
                "text",
            ][..],
            &["--label-field", "label", "--file", file.to_str().unwrap(), "--epochs", "3"],
            extra,
        ]
        .concat();
        ta(&data, &args).ok()
    };
    let multi = train(&["--architecture", "fastText"]);
    assert_eq!(multi["task"]["status"], "completed", "{multi}");
    let binary = train(&["--architecture", "fasttext", "--positive", "crime"]);
    assert_eq!(binary["task"]["status"], "completed", "{binary}");
    let adam = train(&[
        "--architecture",
        "RCNN",
        "--optimizer",
        "adam",
        "--seed",
        "7",
        "--positive",
        "crime",
    ]);
    assert_eq!(
        (adam["task"]["status"].clone(), adam["model_architecture"].clone()),
        (json!("completed"), json!("RCNN")),
        "{adam}"
    );
    let local = ta(&data, &["torchtagger", "tag-text", "1", "politsei otsib varast"]).ok();
    assert_eq!(local["result"], "crime", "{local}");
    assert_eq!(
        ta(&data, &["torchtagger", "tag-text", "2", "politsei otsib varast"]).ok()["result"],
        "true"
    );
    let one_class = dir.path().join("one.jsonl");
    std::fs::write(&one_class, "{\"text\": \"a\", \"label\": \"x\"}\n").unwrap();
    let err = ta(
        &data,
        &[
            "torchtagger",
            "train",
            "--project",
            "1",
            "--description",
            "d",
            "--field",
            "text",
            "--label-field",
            "label",
            "--architecture",
            "RCNN",
            "--file",
            one_class.to_str().unwrap(),
        ],
    )
    .fails(3);
    assert!(err.contains("at least two classes are needed"), "{err}");

    let s = Server::start_in(&data, &[]);
    let token = s.admin_token();
    let remote_args = ["--server", s.base.as_str(), "--token", token.as_str()];
    let remote = |args: &[&str]| ta(&data, &[&remote_args[..], args].concat()).ok();
    assert_eq!(remote(&["torchtagger", "tag-text", "1", "politsei otsib varast"]), local);
    let shown = ta(&data, &["torchtagger", "show", "1"]).ok();
    assert_eq!(
        remote(&["torchtagger", "show", "1"]),
        common::replace_in(&shown, "http://127.0.0.1:8000/api/v1", &s.base)
    );
    let lines = "{\"text\": \"politsei otsib varast\"}\nhomme sajab vihma\n{\"other\": 1}\n\"jalgpallur lõi värava\"\n";
    let tagged = common::ta_stdin(&data, &["torchtagger", "tag", "1"], lines);
    let results: Vec<Value> = tagged.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(
        results.iter().map(|r| r["result"].clone()).collect::<Vec<_>>(),
        vec![json!("crime"), json!("weather"), Value::Null, json!("sport")],
        "{tagged}"
    );
    assert_eq!(
        results[2],
        json!({"error": "document does not contain required fields. required fields: ['text']"})
    );
    assert_eq!(
        common::ta_stdin(&data, &[&remote_args[..], &["torchtagger", "tag", "1"]].concat(), lines),
        tagged
    );
    let exported = dir.path().join("topics.zip");
    ta(&data, &["torchtagger", "export", "1", "-o", exported.to_str().unwrap()]).ok();
    let copy = remote(&["torchtagger", "import", exported.to_str().unwrap(), "--project", "1"]);
    let copy_id = copy["id"].to_string();
    assert_eq!(
        remote(&["torchtagger", "tag-text", copy_id.as_str(), "politsei otsib varast"]),
        local
    );
    let remote_trained = ta(
        &data,
        &[
            &remote_args[..],
            &[
                "torchtagger",
                "train",
                "--project",
                "1",
                "--description",
                "topics",
                "--field",
                "text",
            ],
            &[
                "--label-field",
                "label",
                "--file",
                file.to_str().unwrap(),
                "--epochs",
                "3",
                "--architecture",
                "fastText",
            ],
        ]
        .concat(),
    )
    .ok();
    assert_eq!(
        (remote_trained["f1_score"].clone(), remote_trained["epoch_reports"].clone()),
        (multi["f1_score"].clone(), multi["epoch_reports"].clone()),
        "seeded training gives the same figures through a server"
    );
    let listed = remote(&["torchtagger", "list", "--project", "1"]);
    assert_eq!(listed["count"], json!(5));
    assert_eq!(ta(&data, &["torchtagger", "delete", "1"]).code, 0);
    assert_eq!(remote(&["torchtagger", "list", "--project", "1"])["count"], json!(4));
}
