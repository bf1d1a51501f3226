//! Tagger groups (api.md §7) against a real `ta serve`: create with value discovery and its
//! errors, members trained in the background (one failing while the others train), the
//! status, parameters and statistics, tag_text / tag_doc / tag_random_doc with candidates from
//! similar documents and entity matches, models_list, models_retrain, update, export/import,
//! delete and bulk_delete removing the members and their model files; and `ta tagger-group`
//! locally and through a server with identical output.
use crate::common;

use common::{normalize, ta, ta_stdin, Resp, Server};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

fn fact(value: &str) -> Value {
    json!({"fact": "TEEMA", "str_val": value, "doc_path": "text", "spans": "[[0, 0]]"})
}

/// Three topics (22 crime, 20 weather, 18 sport documents), each document also holding the
/// value `all` (every document: its tagger cannot train) and three crime documents `rare`
/// (too few for a tagger).
fn corpus() -> String {
    let topics: [(&str, usize, [&str; 4]); 3] = [
        (
            "crime",
            22,
            [
                "varas varastas poest telefoni",
                "politsei pidas varga kinni",
                "varas murdis korterisse sisse",
                "politsei otsib varast",
            ],
        ),
        (
            "weather",
            20,
            [
                "homme sajab vihma ja tuul on tugev",
                "ilm on päikeseline ja soe",
                "öösel on külm ja sajab lund",
                "tuul pöördub läände ja sajab",
            ],
        ),
        (
            "sport",
            18,
            [
                "korvpalli meeskond võitis mängu",
                "jalgpalli mäng lõppes viigiga",
                "sportlane jooksis maratoni ja võitis",
                "võistlus toimub staadionil ja meeskond mängib",
            ],
        ),
    ];
    let mut out = String::new();
    for (value, n, texts) in topics {
        for i in 0..n {
            let text = format!("{} {}", texts[i % 4], texts[(i + 1) % 4]);
            let mut facts = vec![fact(value), fact("all")];
            if value == "crime" && i < 3 {
                facts.push(fact("rare"));
            }
            out.push_str(&json!({"text": text, "texta_facts": facts}).to_string());
            out.push('\n');
        }
    }
    out
}

/// Every document holds the one value: its tagger has no negatives and fails.
fn uniform() -> String {
    (0..6)
        .map(|i| json!({"text": format!("tekst number {i}"), "texta_facts": [fact("only")]}).to_string() + "\n")
        .collect()
}

/// Language data whose only entity list names the tag `sport`, with the installed language
/// data's analysers (`$TA_MLP_DATA`, else the default data directory) linked in; `false`
/// when there are none to link (the test then expects the refusal).
fn entity_data(dir: &Path) -> bool {
    let lists = dir.join("mlp").join("entity_mapper");
    std::fs::create_dir_all(&lists).unwrap();
    std::fs::write(lists.join("topics.json"), r#"{"TOPIC": ["sport"]}"#).unwrap();
    let installed = std::env::var_os("TA_MLP_DATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(ta::engine::default_data_dir)
        .join("mlp");
    if !installed.join("lang").is_dir() {
        println!("skipped: tagger group tagging with lemmas and entities needs language data");
        return false;
    }
    for part in ["lang", "en", "et", "ru"] {
        std::os::unix::fs::symlink(installed.join(part), dir.join("mlp").join(part)).unwrap();
    }
    true
}

/// Polls a group until no member is created or training; returns it.
fn settle(s: &Server, t: &str, path: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let v = s.get(path, Some(t)).ok(200);
        let status = &v["tagger_status"];
        if status["training"] == 0 && status["created"] == 0 {
            return v;
        }
        assert!(Instant::now() < deadline, "members did not finish: {v}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn upload(s: &Server, t: &str, path: &str, bytes: Vec<u8>) -> Resp {
    let form =
        reqwest::blocking::multipart::Form::new().part("file", reqwest::blocking::multipart::Part::bytes(bytes).file_name("group.zip"));
    Resp::from(
        s.request("POST", path)
            .header("Authorization", format!("Token {t}"))
            .multipart(form)
            .send()
            .unwrap(),
    )
}

/// A figure in [0, 1].
fn fraction(v: &Value) -> bool {
    v.as_f64().is_some_and(|x| (0.0..=1.0).contains(&x))
}

fn create_body() -> Value {
    json!({"description": "topics", "fact_name": "TEEMA", "minimum_sample_size": 10,
           "tagger": {"fields": ["text"], "indices": [{"name": "topics"}]}})
}

#[test]
fn tagger_group_routes_and_errors() {
    let mlp = tempfile::tempdir().unwrap();
    let analysed = entity_data(mlp.path());
    let s = Server::start_env(&[("TA_MLP_DATA", mlp.path().to_str().unwrap())]);
    let t = s.admin_token();
    let t = t.as_str();
    let pk = s.create_project(t, "groups", &[])["id"].as_i64().unwrap();
    s.import_jsonl(t, pk, "topics", &corpus());
    s.import_jsonl(t, pk, "uniform", &uniform());
    let url = format!("/projects/{pk}/tagger_groups/");

    // Validation and value discovery.
    s.post(&url, Some(t), &json!({"description": "g", "fact_name": "TEEMA"}))
        .expect(400, json!({"tagger": ["This field is required."]}));
    s.post(&url, Some(t), &json!({"tagger": {"vectorizer": "Word2Vec Vectorizer"}}))
        .expect(
            400,
            json!({"description": ["This field is required."],
               "tagger": {"fields": ["This field is required."], "vectorizer": ["\"Word2Vec Vectorizer\" is not a valid choice."]}}),
        );
    s.post(&url, Some(t), &json!({"description": "g", "tagger": {"fields": ["nope"]}}))
        .expect(
            400,
            json!({"tagger": {"fields": ["Entered fields not in current project fields: {'text', 'texta_facts'}"]}}),
        );
    s.post(
        &url,
        Some(t),
        &json!({"description": "g", "fact_name": "NOPE", "tagger": {"fields": ["text"]}}),
    )
    .expect(400, json!({"error": "found no tags for fact name: NOPE"}));
    s.post(
        &url,
        Some(t),
        &json!({"description": "g", "minimum_sample_size": 61, "tagger": {"fields": ["text"]}}),
    )
    .expect(400, json!({"error": "found no tags for fact name: TEEMA"}));
    let empty = s.create_project(t, "empty", &[])["id"].as_i64().unwrap();
    s.post(
        &format!("/projects/{empty}/tagger_groups/"),
        Some(t),
        &json!({"description": "g", "tagger": {"fields": ["text"]}}),
    )
    // A project without indices has no fields either, which its validation says first.
    .expect(
        400,
        json!({"tagger": {"fields": ["Entered fields not in current project fields: set()"]}}),
    );
    s.get(&url, Some(t)).expect(200, json!({"count": 0, "results": []}));

    // Create: 201 at once, the members train in the background; `all` fails (no negatives).
    let created = s.post(&url, Some(t), &create_body()).ok(201);
    let id = created["id"].as_i64().unwrap();
    let status = &created["tagger_status"];
    assert_eq!(
        ["completed", "training", "created", "failed"]
            .iter()
            .map(|k| status[k].as_i64().unwrap())
            .sum::<i64>(),
        4,
        "{created}"
    );
    let group = settle(&s, t, &format!("{url}{id}/"));
    let stats = &group["tagger_statistics"];
    for key in ["avg_precision", "avg_recall", "avg_f1_score"] {
        assert!(fraction(&stats[key]), "{key}: {group}");
    }
    assert!(stats["sum_size"]["size"].as_f64().is_some_and(|x| x >= 0.0), "{group}");
    let mut shown = group.clone();
    shown["tagger_statistics"] = json!("<figures>");
    let expected_group = |description: &str| {
        json!({"id": id, "url": format!("{}{url}{id}/", s.base), "author_username": "admin",
               "description": description, "fact_name": "TEEMA", "num_tags": 4, "minimum_sample_size": 10,
               "tagger_status": {"total": 4, "completed": 3, "training": 0, "created": 0, "failed": 1},
               "tagger_params": {"fields": ["text"], "vectorizer": "Hashing Vectorizer", "classifier": "Logistic Regression"},
               "tagger_statistics": "<figures>"})
    };
    assert_eq!(shown, expected_group("topics"));
    assert_eq!(stats["sum_size"]["unit"], "mb");

    // The members: real taggers linked to the group, most documents first.
    let models = s.get(&format!("{url}{id}/models_list/"), Some(t)).ok(200);
    let member_ids: Vec<i64> = models.as_array().unwrap().iter().map(|m| m["id"].as_i64().unwrap()).collect();
    let member = |tag: &str| member_ids[["all", "crime", "weather", "sport"].iter().position(|x| *x == tag).unwrap()];
    let expected_models: Vec<Value> = [("all", "failed"), ("crime", "completed"), ("weather", "completed"), ("sport", "completed")]
        .iter()
        .map(|(tag, status)| {
            json!({"tag": tag, "id": member(tag), "url": format!("{}/projects/{pk}/taggers/{}/", s.base, member(tag)), "status": status})
        })
        .collect();
    assert_eq!(models, json!(expected_models));
    let crime = s.get(&format!("/projects/{pk}/taggers/{}/", member("crime")), Some(t)).ok(200);
    assert_eq!(
        (
            crime["tagger_groups"].clone(),
            crime["num_positives"].clone(),
            crime["fields"].clone()
        ),
        (json!(["topics"]), json!(22), json!(["text"]))
    );
    assert_eq!(
        crime["query"],
        r#"{"query": {"nested": {"path": "texta_facts", "query": {"bool": {"must": [{"term": {"texta_facts.fact": "TEEMA"}}, {"term": {"texta_facts.str_val": "crime"}}]}}}}}"#
    );
    let failed = s.get(&format!("/projects/{pk}/taggers/{}/", member("all")), Some(t)).ok(200);
    assert!(
        failed["task"]["errors"].as_str().unwrap().contains("no negative examples"),
        "{failed}"
    );

    // Lists: ordering by the group's own fields.
    let listed = s.get(&format!("{url}?ordering=-num_tags"), Some(t)).ok(200);
    assert_eq!(listed["count"], 1);
    assert_eq!(listed["results"][0]["id"], json!(id));

    // tag_text: the members that similar documents propose; positives only.
    let tag = |body: Value| s.post(&format!("{url}{id}/tag_text/"), Some(t), &body);
    let tags = tag(json!({"text": "varas murdis sisse ja politsei otsib varast", "lemmatize": false, "use_ner": false})).ok(200);
    assert_eq!(tags.as_array().unwrap().len(), 1, "{tags}");
    assert!(
        fraction(&tags[0]["probability"]) && tags[0]["probability"].as_f64().unwrap() > 0.5,
        "{tags}"
    );
    assert_eq!(
        tags,
        json!([{"tag": "crime", "probability": tags[0]["probability"], "tagger_id": member("crime"), "result": true}])
    );
    tag(json!({"text": "varas murdis sisse", "n_similar_docs": 0, "lemmatize": false, "use_ner": false})).expect(200, json!([]));
    // Defaults: lemmatized, with entities; `sport` is in the entity list, so it comes first
    // and its tagger does not run again. Without the language data that is a refusal.
    let sport = tag(json!({"text": "sport: korvpalli meeskond võitis mängu ja sportlane jooksis maratoni"}));
    if analysed {
        let tags = sport.ok(200);
        assert_eq!(
            tags[0],
            json!({"tag": "sport", "probability": 1.0, "tagger_id": member("sport"), "ner_match": true}),
            "{tags}"
        );
        assert!(tags.as_array().unwrap()[1..].iter().all(|x| x["tag"] != "sport"), "{tags}");
    } else {
        let detail = sport.ok(503)["detail"].as_str().unwrap().to_string();
        assert!(detail.starts_with("language data missing for language detection: "), "{detail}");
    }
    tag(json!({"lemmatize": false})).expect(400, json!({"text": ["This field is required."]}));
    tag(json!({"text": "x", "n_similar_docs": -1}))
        .expect(400, json!({"n_similar_docs": ["Ensure this value is greater than or equal to 0."]}));

    // tag_doc: the document's fields; the tagger's document checks.
    let doc = |body: Value| s.post(&format!("{url}{id}/tag_doc/"), Some(t), &body);
    let tags = doc(json!({"doc": {"text": "homme sajab vihma ja tuul on tugev"}, "use_ner": false, "lemmatize": false})).ok(200);
    assert_eq!(tags[0]["tag"], "weather", "{tags}");
    doc(json!({"doc": {}})).expect(400, json!({"detail": "no input document (dict) provided."}));
    doc(json!({"doc": {"other": "x"}})).expect(
        400,
        json!({"detail": "document does not contain required fields. required fields: ['text']"}),
    );

    // tag_random_doc: a document reduced to the members' fields, and its tags (lemmatized,
    // with entities: without the language data, a refusal).
    let random = s.post(
        &format!("{url}{id}/tag_random_doc/"),
        Some(t),
        &json!({"indices": [{"name": "topics"}]}),
    );
    if analysed {
        let random = random.ok(200);
        assert_eq!(
            random["document"].as_object().unwrap().keys().collect::<Vec<_>>(),
            ["text"],
            "{random}"
        );
        assert!(random["tags"].is_array(), "{random}");
    } else {
        let detail = random.ok(503)["detail"].as_str().unwrap().to_string();
        assert!(detail.starts_with("language data missing for language detection: "), "{detail}");
    }
    s.post(
        &format!("{url}{id}/tag_random_doc/"),
        Some(t),
        &json!({"indices": [{"name": "elsewhere"}]}),
    )
    .expect(400, json!(["Inserted indices ['elsewhere'] are not available to you."]));

    // Update: the description; what made the members stays.
    s.patch(&format!("{url}{id}/"), Some(t), &json!({"description": "teemad"})).ok(200);
    let mut shown = s.get(&format!("{url}{id}/"), Some(t)).ok(200);
    shown["tagger_statistics"] = json!("<figures>");
    assert_eq!(shown, expected_group("teemad"));
    s.patch(&format!("{url}{id}/"), Some(t), &json!({"fact_name": "OTHER", "tagger": {}}))
        .expect(
            400,
            json!({"fact_name": ["Cannot be changed after the group is created; create a new group."],
               "tagger": ["Cannot be changed after the group is created; create a new group."]}),
        );

    // Retrain: every member trains again.
    s.post(&format!("{url}{id}/models_retrain/"), Some(t), &json!({}))
        .expect(200, json!({"success": "retraining tasks created", "tagger_group_id": id}));
    let again = settle(&s, t, &format!("{url}{id}/"));
    assert_eq!(again["tagger_status"], group["tagger_status"]);

    // Export and import: the copy's members tag as the originals.
    let export = s.get(&format!("{url}{id}/export_model/"), Some(t));
    assert_eq!((export.status, export.header("content-type")), (200, "application/zip".to_string()));
    let imported = upload(&s, t, &format!("{url}import_model/"), export.bytes.clone()).ok(201);
    let copy = imported["id"].as_i64().unwrap();
    assert_eq!(
        (
            imported["description"].clone(),
            imported["num_tags"].clone(),
            imported["tagger_status"].clone()
        ),
        (
            json!("teemad"),
            json!(4),
            json!({"total": 4, "completed": 3, "training": 0, "created": 0, "failed": 0})
        )
    );
    let text = json!({"text": "politsei pidas varga kinni", "use_ner": false, "lemmatize": false});
    let original = tag(text.clone()).ok(200);
    let copied = s.post(&format!("{url}{copy}/tag_text/"), Some(t), &text).ok(200);
    assert_eq!(
        original.as_array().unwrap().len(),
        copied.as_array().unwrap().len(),
        "{original} {copied}"
    );
    for (a, b) in original.as_array().unwrap().iter().zip(copied.as_array().unwrap()) {
        assert_eq!((&a["tag"], &a["probability"]), (&b["tag"], &b["probability"]));
    }
    let refused = upload(&s, t, &format!("{url}import_model/"), b"not a zip".to_vec());
    assert_eq!(refused.status, 400, "{}", refused.text);

    // A group none of whose members trained.
    let body = json!({"description": "uniform", "minimum_sample_size": 1, "fact_name": "TEEMA",
                      "tagger": {"fields": ["text"], "indices": [{"name": "uniform"}]}});
    let lone = s.post(&url, Some(t), &body).ok(201)["id"].as_i64().unwrap();
    let lone_group = settle(&s, t, &format!("{url}{lone}/"));
    assert_eq!(
        lone_group["tagger_status"],
        json!({"total": 1, "completed": 0, "training": 0, "created": 0, "failed": 1})
    );
    assert_eq!(
        lone_group["tagger_statistics"],
        json!({"avg_precision": null, "avg_recall": null, "avg_f1_score": null, "sum_size": {"size": 0.0, "unit": "mb"}})
    );
    s.post(&format!("{url}{lone}/tag_text/"), Some(t), &json!({"text": "tekst"}))
        .expect(400, json!({"detail": "Model does not exist"}));
    s.get(&format!("{url}{lone}/export_model/"), Some(t))
        .expect(400, json!({"detail": "Model does not exist"}));

    // Applied to the index: each document gets the tags tag_text gives its text.
    let options = json!({"lemmatize": false, "use_ner": false});
    crate::apply::assert_apply_matches_tag_text(&s, t, pk, &format!("{url}{id}/"), options, |answer| {
        answer
            .as_array()
            .unwrap()
            .iter()
            .map(|tag| tag["tag"].as_str().unwrap().to_string())
            .collect()
    });

    // Delete: the members, their tasks and model files go with the group.
    let model_file = |tagger: i64| s.data_dir.join("models").join("taggers").join(format!("{tagger}.model"));
    assert!(model_file(member("crime")).exists());
    assert_eq!(s.delete(&format!("{url}{id}/"), Some(t)).status, 204);
    for m in &member_ids {
        s.get(&format!("/projects/{pk}/taggers/{m}/"), Some(t))
            .expect(404, json!({"detail": "Not found."}));
        assert!(!model_file(*m).exists(), "model file of {m} removed");
    }
    s.get(&format!("{url}{id}/"), Some(t)).expect(404, json!({"detail": "Not found."}));
    s.post(&format!("{url}bulk_delete/"), Some(t), &json!({"ids": [copy, lone, 999]}))
        .expect(
            200,
            json!({"num_deleted": 2 + 4 + 4, "deleted_types": {"tagger.TaggerGroup": 2, "tagger.Tagger": 4, "core.Task": 4}}),
        );
    s.post(&format!("{url}bulk_delete/"), Some(t), &json!({})).expect(
        400,
        json!({"error": "Must include key \"ids\" with an array of integers (private keys)"}),
    );
    s.get(&format!("/projects/{pk}/taggers/"), Some(t))
        .expect(200, json!({"count": 0, "results": []}));
}

#[test]
fn cli_trains_and_tags_locally_and_remotely_alike() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let topics = dir.path().join("topics.jsonl");
    let lone = dir.path().join("uniform.jsonl");
    std::fs::write(&topics, corpus()).unwrap();
    std::fs::write(&lone, uniform()).unwrap();
    ta(&data, &["project", "create", "--title", "p"]).ok();
    for (index, file) in [("topics", &topics), ("uniform", &lone)] {
        ta(
            &data,
            &[
                "import",
                "--project",
                "1",
                "--index",
                index,
                "--description",
                index,
                file.to_str().unwrap(),
            ],
        )
        .ok();
    }
    let create = |index: &str| {
        ta(
            &data,
            &[
                "tagger-group",
                "create",
                "--project",
                "1",
                "--description",
                "topics",
                "--fact",
                "TEEMA",
                "--field",
                "text",
                "--min-samples",
                "5",
                "--index",
                index,
            ],
        )
    };
    let group = create("topics").ok();
    assert_eq!(
        (group["id"].clone(), group["num_tags"].clone(), group["tagger_status"].clone()),
        (
            json!(1),
            json!(4),
            json!({"total": 4, "completed": 3, "training": 0, "created": 0, "failed": 1})
        ),
        "{group}"
    );
    // A group none of whose members trains is an error naming the first failure.
    let line = create("uniform").fails(3);
    assert!(
        line.starts_with("ta: error: no member of tagger group 2 trained: member only (tagger 5) failed:")
            && line.contains("no negative examples"),
        "{line}"
    );

    let text = "varas murdis sisse ja politsei otsib varast";
    // The members read the raw text, so the tests tag it without lemmas (the same answer
    // with or without language data).
    let local_tags = ta(&data, &["tagger-group", "tag-text", "1", text, "--no-ner", "--no-lemmatize"]).ok();
    assert_eq!(local_tags[0]["tag"], "crime", "{local_tags}");
    let lines = format!(
        "{}\n{{\"text\": \"homme sajab vihma ja tuul on tugev\"}}\n\n{{\"other\": 1}}\n",
        json!(text)
    );
    let stream = ["tagger-group", "tag", "1", "--no-lemmatize", "--no-ner"];
    let local_stream = ta_stdin(&data, &stream, &lines);
    let results: Vec<Value> = local_stream.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(results.len(), 4, "{local_stream}");
    assert_eq!(
        (results[0][0]["tag"].clone(), results[1][0]["tag"].clone()),
        (json!("crime"), json!("weather")),
        "{local_stream}"
    );
    assert_eq!(results[2], json!({"error": "{\"text\":[\"This field may not be blank.\"]}"}));
    assert_eq!(
        results[3],
        json!({"error": "document does not contain required fields. required fields: ['text']"})
    );
    // The options reach every line: no candidate members, no tags.
    let no_candidates = [&stream[..], &["--candidate-tags", "0"]].concat();
    let none = ta_stdin(&data, &no_candidates, &lines);
    assert_eq!(none.lines().take(2).collect::<Vec<_>>(), ["[]", "[]"], "{none}");
    let exported = dir.path().join("group.zip");
    ta(&data, &["tagger-group", "export", "1", "-o", exported.to_str().unwrap()]).ok();
    let shown = ta(&data, &["tagger-group", "show", "1"]).ok();
    let models = ta(&data, &["tagger-group", "models", "1"]).ok();

    let s = Server::start_in(&data, &[]);
    let token = s.admin_token();
    let remote_args = ["--server", s.base.as_str(), "--token", token.as_str()];
    let remote = |args: &[&str]| ta(&data, &[&remote_args[..], args].concat());
    let local_url = "http://127.0.0.1:8000/api/v1";
    assert_eq!(
        remote(&["tagger-group", "tag-text", "1", text, "--no-ner", "--no-lemmatize"]).ok(),
        local_tags
    );
    assert_eq!(ta_stdin(&data, &[&remote_args[..], &stream].concat(), &lines), local_stream);
    assert_eq!(ta_stdin(&data, &[&remote_args[..], &no_candidates].concat(), &lines), none);
    assert_eq!(
        remote(&["tagger-group", "show", "1"]).ok(),
        common::replace_in(&shown, local_url, &s.base)
    );
    assert_eq!(
        remote(&["tagger-group", "models", "1"]).ok(),
        common::replace_in(&models, local_url, &s.base)
    );
    let retrained = remote(&["tagger-group", "retrain", "1"]).ok();
    assert_eq!(normalize(&retrained)["tagger_status"], shown["tagger_status"]);
    let copy = remote(&["tagger-group", "import", exported.to_str().unwrap(), "--project", "1"]).ok();
    let copy_id = copy["id"].to_string();
    assert_eq!(copy["tagger_status"]["completed"], json!(3), "{copy}");
    let copy_tags = remote(&["tagger-group", "tag-text", copy_id.as_str(), text, "--no-ner", "--no-lemmatize"]).ok();
    assert_eq!(copy_tags[0]["probability"], local_tags[0]["probability"]);
    assert_eq!(remote(&["tagger-group", "list", "--project", "1"]).ok()["count"], json!(3));
    remote(&["tagger-group", "delete", "1"]).ok_empty();
    remote(&["tagger-group", "show", "1"]).fails(5);
}

trait OkEmpty {
    fn ok_empty(&self);
}

impl OkEmpty for common::CliOut {
    /// Exit 0 with nothing on stdout.
    #[track_caller]
    fn ok_empty(&self) {
        assert_eq!((self.code, self.stdout.as_str()), (0, ""), "{self:?}");
    }
}
