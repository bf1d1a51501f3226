//! Trained models over HTTP against a real `ta serve`. Embeddings (api.md §5): training from
//! index fields, predict_similar, phrase_text, the cascade to taggers, `threads`; the CLI's
//! `ta embedding` train, sentences, phrases and vocabulary. Taggers (api.md §6): create from an index with
//! background training, the figures, tag_text / tag_doc / tag_random_doc / list_features /
//! stop_words / retrain_tagger / multitag_text, training from a labelled file, the
//! validation messages; and the CLI's `ta tagger` in local and remote mode with identical
//! output.
use crate::common;

use common::{normalize, ta, Server};
use serde_json::{json, Value};

/// A small two-topic corpus: crime reports (label `crime`) and weather reports.
pub fn corpus() -> String {
    let crime = [
        "varas varastas poest telefoni",
        "politsei pidas varga kinni",
        "varas murdis korterisse sisse",
        "politsei otsib varast",
    ];
    let weather = [
        "homme sajab vihma ja tuul on tugev",
        "ilm on päikeseline ja soe",
        "öösel on külm ja sajab lund",
        "tuul pöördub läände ja sajab",
    ];
    let mut out = String::new();
    for i in 0..30 {
        for (label, texts) in [("crime", &crime), ("weather", &weather)] {
            let text = format!("{} {}", texts[i % 4], texts[(i + 1) % 4]);
            out.push_str(&json!({"text": text, "label": label}).to_string());
            out.push('\n');
        }
    }
    out
}

pub fn setup() -> (Server, String, i64) {
    let s = Server::start();
    let token = s.admin_token();
    let pk = s.create_project(&token, "models", &[])["id"].as_i64().unwrap();
    s.import_jsonl(&token, pk, "news", &corpus());
    (s, token, pk)
}

pub fn create_body() -> Value {
    json!({"description": "crime", "fields": ["text"], "vectorizer": "Count Vectorizer",
           "query": {"query": {"match": {"label": "crime"}}}, "indices": [{"name": "news"}]})
}

#[test]
fn tagger_trains_in_background_and_tags() {
    let (s, t, pk) = setup();
    let created = s.post(&format!("/projects/{pk}/taggers/"), Some(&t), &create_body()).ok(201);
    assert_eq!(created["task"]["status"], "created");
    assert_eq!(created["precision"], Value::Null);
    let id = created["id"].as_i64().unwrap();
    let done = s.settle(&t, &format!("/projects/{pk}/taggers/{id}/"));
    assert_eq!(done["task"]["status"], "completed", "{done}");
    let mut shown = normalize(&done);
    for key in ["precision", "recall", "f1_score", "num_features", "plot"] {
        assert!(!done[key].is_null(), "{key} filled: {done}");
        shown[key] = json!("<set>");
    }
    assert_eq!(
        shown,
        json!({"id": id, "url": format!("{}/projects/{pk}/taggers/{id}/", s.base), "author_username": "admin",
               "description": "crime", "query": "{\"query\": {\"match\": {\"label\": \"crime\"}}}", "fields": ["text"],
               "embedding": null, "vectorizer": "Count Vectorizer", "classifier": "Logistic Regression", "stop_words": "",
               "maximum_sample_size": 10000, "score_threshold": 0.0, "negative_multiplier": 1,
               "precision": "<set>", "recall": "<set>", "f1_score": "<set>", "num_features": "<set>",
               "num_positives": 30, "num_negatives": 30, "plot": "<set>", "task": shown["task"].clone(),
               "indices": [{"id": 1, "url": format!("{}/index/1/", s.base), "is_open": true, "name": "news"}],
               "tagger_groups": []})
    );
    let tag = |text: &str| {
        s.post(&format!("/projects/{pk}/taggers/{id}/tag_text/"), Some(&t), &json!({"text": text}))
            .ok(200)
    };
    let yes = tag("varas varastas telefoni");
    assert_eq!(
        (yes["tag"].clone(), yes["tagger_id"].clone(), yes["result"].clone()),
        (json!("crime"), json!(id), json!(true))
    );
    assert!(yes["probability"].as_f64().unwrap() > 0.5);
    let no = tag("homme sajab vihma");
    assert_eq!(no["result"], json!(false));
    assert!(
        no["probability"].as_f64().unwrap() >= 0.5,
        "probability of the predicted class: {no}"
    );

    let doc = s
        .post(
            &format!("/projects/{pk}/taggers/{id}/tag_doc/"),
            Some(&t),
            &json!({"doc": {"text": "politsei otsib varast"}}),
        )
        .ok(200);
    assert_eq!(doc["result"], json!(true));
    s.post(
        &format!("/projects/{pk}/taggers/{id}/tag_doc/"),
        Some(&t),
        &json!({"doc": {"other": "x"}}),
    )
    .expect(
        400,
        json!({"detail": "document does not contain required fields. required fields: ['text']"}),
    );
    s.post(&format!("/projects/{pk}/taggers/{id}/tag_doc/"), Some(&t), &json!({"doc": {}}))
        .expect(400, json!({"detail": "no input document (dict) provided."}));
    s.post(
        &format!("/projects/{pk}/taggers/{id}/tag_doc/"),
        Some(&t),
        &json!({"doc": {"text": " "}}),
    )
    .expect(400, json!({"detail": "no values in the input document."}));
    s.post(
        &format!("/projects/{pk}/taggers/{id}/tag_text/"),
        Some(&t),
        &json!({"lemmatize": false}),
    )
    .expect(400, json!({"text": ["This field is required."]}));

    let random = s
        .post(&format!("/projects/{pk}/taggers/{id}/tag_random_doc/"), Some(&t), &json!({}))
        .ok(200);
    assert!(
        random["document"]["text"].is_string() && random["prediction"]["tag"] == "crime",
        "{random}"
    );

    let features = s
        .get(&format!("/projects/{pk}/taggers/{id}/list_features/?size=1"), Some(&t))
        .ok(200);
    assert_eq!(features["showing_features"], json!(1), "{features}");
    assert!(features["total_features"].as_u64().unwrap() >= 1);
    let features = s.get(&format!("/projects/{pk}/taggers/{id}/list_features/"), Some(&t)).ok(200);
    let coefficients: Vec<f64> = features["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["coefficient"].as_f64().unwrap())
        .collect();
    assert!(
        coefficients.windows(2).all(|w| w[0] >= w[1]) && coefficients.iter().all(|c| *c > 0.0),
        "{features}"
    );

    s.get(&format!("/projects/{pk}/taggers/{id}/stop_words/"), Some(&t))
        .expect(200, json!({"stop_words": ""}));
    s.post(
        &format!("/projects/{pk}/taggers/{id}/stop_words/"),
        Some(&t),
        &json!({"text": "varas  politsei"}),
    )
    .expect(200, json!({"stop_words": "varas politsei"}));
    let multi = s
        .post(
            &format!("/projects/{pk}/taggers/multitag_text/"),
            Some(&t),
            &json!({"text": "politsei otsib varast", "hide_false": false}),
        )
        .ok(200);
    assert_eq!(multi.as_array().unwrap().len(), 1, "{multi}");

    s.post(&format!("/projects/{pk}/taggers/{id}/retrain_tagger/"), Some(&t), &json!({}))
        .expect(200, json!({"success": "retraining task created"}));
    let again = s.settle(&t, &format!("/projects/{pk}/taggers/{id}/"));
    assert_eq!(again["task"]["status"], "completed", "{again}");
    assert_eq!(again["stop_words"], "varas politsei");

    let png = s.get(&format!("/projects/{pk}/taggers/{id}/plot/"), Some(&t));
    assert_eq!((png.status, png.header("content-type")), (200, "image/png".to_string()));
    // The plot link carries its key: an <img> of another site (no credentials) loads it; a
    // plot without the key, with a wrong one or with another plot's key is refused.
    let link = again["plot"].as_str().unwrap();
    let (path, key) = link.strip_prefix(&s.base).unwrap().split_once("?key=").unwrap();
    assert_eq!(path, format!("/projects/{pk}/taggers/{id}/plot/"));
    assert_eq!(key.len(), 32, "{link}");
    let anonymous = s.get(&format!("{path}?key={key}"), None);
    assert_eq!((anonymous.status, anonymous.bytes.clone()), (200, png.bytes.clone()));
    let refused = json!({"detail": "Authentication credentials were not provided."});
    s.get(path, None).expect(403, refused.clone());
    s.get(&format!("{path}?key={}", "0".repeat(32)), None).expect(403, refused.clone());
    s.get(&format!("/projects/{pk}/taggers/{}/plot/?key={key}", id + 1), None)
        .expect(403, refused);
    // Export, then import into another project: the copy tags identically.
    let export = s.get(&format!("/projects/{pk}/taggers/{id}/export_model/"), Some(&t));
    assert_eq!((export.status, export.header("content-type")), (200, "application/zip".to_string()));
    let other = s.create_project(&t, "other", &[])["id"].as_i64().unwrap();
    let form = reqwest::blocking::multipart::Form::new().part(
        "file",
        reqwest::blocking::multipart::Part::bytes(export.bytes.clone()).file_name("tagger.zip"),
    );
    let imported = common::Resp::from(
        s.request("POST", &format!("/projects/{other}/taggers/import_model/"))
            .header("Authorization", format!("Token {t}"))
            .multipart(form)
            .send()
            .unwrap(),
    )
    .ok(201);
    assert_eq!(
        (imported["description"].clone(), imported["task"]["status"].clone()),
        (json!("crime"), json!("completed")),
        "{imported}"
    );
    let copy = imported["id"].as_i64().unwrap();
    for text in ["politsei otsib varast", "homme sajab vihma"] {
        let a = s
            .post(&format!("/projects/{pk}/taggers/{id}/tag_text/"), Some(&t), &json!({"text": text}))
            .ok(200);
        let b = s
            .post(
                &format!("/projects/{other}/taggers/{copy}/tag_text/"),
                Some(&t),
                &json!({"text": text}),
            )
            .ok(200);
        assert_eq!(
            (a["result"].clone(), a["probability"].clone()),
            (b["result"].clone(), b["probability"].clone())
        );
    }
    let junk = reqwest::blocking::multipart::Form::new().part(
        "file",
        reqwest::blocking::multipart::Part::bytes(b"not a zip".to_vec()).file_name("x.zip"),
    );
    let refused = common::Resp::from(
        s.request("POST", &format!("/projects/{other}/taggers/import_model/"))
            .header("Authorization", format!("Token {t}"))
            .multipart(junk)
            .send()
            .unwrap(),
    );
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert!(refused.text.contains("Not a ta model export"), "{}", refused.text);
    assert_eq!(s.delete(&format!("/projects/{pk}/taggers/{id}/"), Some(&t)).status, 204);
    s.post(&format!("/projects/{pk}/taggers/{id}/tag_text/"), Some(&t), &json!({"text": "x"}))
        .expect(404, json!({"detail": "Not found."}));
}

#[test]
fn tagger_validation_and_no_model() {
    let (s, t, pk) = setup();
    let url = format!("/projects/{pk}/taggers/");
    s.post(
        &url,
        Some(&t),
        &json!({"description": "x", "fields": ["text"], "vectorizer": "Word2Vec Vectorizer"}),
    )
    .expect(400, json!({"vectorizer": ["\"Word2Vec Vectorizer\" is not a valid choice."]}));
    s.post(&url, Some(&t), &json!({"fields": ["text"]}))
        .expect(400, json!({"description": ["This field is required."]}));
    s.post(&url, Some(&t), &json!({"description": "x", "fields": ["nope"]})).expect(
        400,
        json!({"fields": ["Entered fields not in current project fields: {'label', 'text'}"]}),
    );
    s.post(&url, Some(&t), &json!({"description": "x", "fields": ["text"], "embedding": 9}))
        .expect(400, json!({"embedding": ["Invalid pk \"9\" - object does not exist."]}));
    s.post(
        &url,
        Some(&t),
        &json!({"description": "x", "fields": ["text"], "negative_multiplier": 1.5}),
    )
    .expect(400, json!({"negative_multiplier": ["A valid integer is required."]}));
    // A query that matches nothing: the task fails with a message naming the problem.
    let body = json!({"description": "none", "fields": ["text"], "query": {"query": {"match": {"text": "zzzz"}}}});
    let id = s.post(&url, Some(&t), &body).ok(201)["id"].as_i64().unwrap();
    let failed = s.settle(&t, &format!("{url}{id}/"));
    assert_eq!(failed["task"]["status"], "failed");
    assert!(
        failed["task"]["errors"].as_str().unwrap().contains("no positive examples"),
        "{failed}"
    );
    s.post(&format!("{url}{id}/tag_text/"), Some(&t), &json!({"text": "varas"}))
        .expect(400, json!({"detail": "Model does not exist"}));
    s.post(&format!("{url}{id}/tag_random_doc/"), Some(&t), &json!({}))
        .expect(400, json!({"error": "model does not exist (yet?)"}));
    // A failed task runs again from its stored parameters: a new task of the same kind.
    let task = failed["task"]["id"].as_i64().unwrap();
    let retried = s.post(&format!("/tasks/{task}/retry/"), Some(&t), &json!({})).ok(200);
    assert_eq!(
        (retried["kind"].clone(), retried["project"].clone()),
        (json!("train_tagger"), json!(pk)),
        "{retried}"
    );
    assert_ne!(retried["id"], json!(task));
    let again = s.settle(&t, &format!("{url}{id}/"));
    assert_eq!(
        (again["task"]["id"].clone(), again["task"]["status"].clone()),
        (retried["id"].clone(), json!("failed"))
    );
    // Hashing has no feature names.
    let body = json!({"description": "h", "fields": ["text"], "query": {"query": {"match": {"label": "crime"}}}});
    let id = s.post(&url, Some(&t), &body).ok(201)["id"].as_i64().unwrap();
    let done = s.settle(&t, &format!("{url}{id}/"));
    assert_eq!(done["task"]["status"], "completed");
    let task = done["task"]["id"].as_i64().unwrap();
    s.post(&format!("/tasks/{task}/retry/"), Some(&t), &json!({})).expect(
        400,
        json!({"detail": format!("Only a failed task can be retried; task {task} is completed.")}),
    );
    s.get(&format!("{url}{id}/list_features/"), Some(&t)).expect(
        400,
        json!({"error": "Error loading feature names. Are you using HashingVectorizer? It does not support feature names!"}),
    );
}

/// `ta tagger train` of tagger `crime` in project 1 from the labelled `file` (count vectors).
pub fn train_from_file(data: &std::path::Path, file: &std::path::Path) -> Value {
    let file = file.to_str().unwrap();
    let args = [
        "tagger",
        "train",
        "--project",
        "1",
        "--description",
        "crime",
        "--field",
        "text",
        "--label-field",
        "label",
        "--positive",
        "crime",
        "--vectorizer",
        "count",
        "--file",
        file,
    ];
    ta(data, &args).ok()
}

#[test]
fn cli_trains_from_a_file_and_tags_locally_and_remotely_alike() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let file = dir.path().join("labelled.jsonl");
    std::fs::write(&file, corpus()).unwrap();
    ta(&data, &["init"]).ok();
    ta(&data, &["project", "create", "--title", "p"]).ok();
    let trained = train_from_file(&data, &file);
    assert_eq!(trained["task"]["status"], "completed", "{trained}");
    assert_eq!(
        (trained["num_positives"].clone(), trained["num_negatives"].clone()),
        (json!(30), json!(30))
    );
    let local = ta(&data, &["tagger", "tag-text", "1", "politsei otsib varast"]).ok();
    assert_eq!(local["result"], json!(true));

    let s = Server::start_in(&data, &[]);
    let token = s.admin_token();
    let remote_args = ["--server", s.base.as_str(), "--token", token.as_str()];
    let remote = |args: &[&str]| ta(&data, &[&remote_args[..], args].concat()).ok();
    assert_eq!(remote(&["tagger", "tag-text", "1", "politsei otsib varast"]), local);
    // Local links are built from TA_BASE_URL's default; the server's from its address.
    let exported = dir.path().join("crime.zip");
    ta(&data, &["tagger", "export", "1", "-o", exported.to_str().unwrap()]).ok();
    let copy = remote(&["tagger", "import", exported.to_str().unwrap(), "--project", "1"]);
    let copy_id = copy["id"].to_string();
    assert_eq!(
        remote(&["tagger", "tag-text", copy_id.as_str(), "politsei otsib varast"])["probability"],
        local["probability"]
    );
    let shown = ta(&data, &["tagger", "show", "1"]).ok();
    assert_eq!(
        remote(&["tagger", "show", "1"]),
        common::replace_in(&shown, "http://127.0.0.1:8000/api/v1", &s.base)
    );
    assert_eq!(
        remote(&["tagger", "features", "1", "--size", "2"]),
        ta(&data, &["tagger", "features", "1", "--size", "2"]).ok()
    );
    let lines = "{\"text\": \"politsei otsib varast\"}\nhomme sajab vihma\n";
    let tagged = common::ta_stdin(&data, &["tagger", "tag", "1"], lines);
    let results: Vec<Value> = tagged.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(
        results.iter().map(|r| r["result"].clone()).collect::<Vec<_>>(),
        vec![json!(true), json!(false)],
        "{tagged}"
    );
    assert_eq!(
        common::ta_stdin(&data, &[&remote_args[..], &["tagger", "tag", "1"]].concat(), lines),
        tagged
    );
    // --field reads another field in place of the tagger's, locally and remotely alike; a
    // count that differs from the tagger's fields is refused.
    let other = "{\"body\": \"politsei otsib varast\"}\n{\"body\": \"homme sajab vihma\"}\n{\"text\": \"x\"}\n";
    let by_field = common::ta_stdin(&data, &["tagger", "tag", "1", "--field", "body"], other);
    let results: Vec<Value> = by_field.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(
        (results[0]["result"].clone(), results[1]["result"].clone(), results[2].clone()),
        (
            json!(true),
            json!(false),
            json!({"error": "document does not contain required fields. required fields: ['body']"})
        ),
        "{by_field}"
    );
    assert_eq!(
        common::ta_stdin(
            &data,
            &[&remote_args[..], &["tagger", "tag", "1", "--field", "body"]].concat(),
            other
        ),
        by_field
    );
    let two = ["tagger", "tag", "1", "--field", "body", "--field", "text"];
    let refused =
        json!({"error": json!({"fields": ["Give one field for each of the tagger's 1 fields [\"text\"], in order."]}).to_string()});
    let local_two = common::ta_stdin(&data, &two, other);
    assert_eq!(local_two, format!("{refused}\n").repeat(3), "{local_two}");
    assert_eq!(common::ta_stdin(&data, &[&remote_args[..], &two].concat(), other), local_two);
}

#[test]
fn embedding_trains_and_serves_similar_words_and_phrases() {
    let (s, t, pk) = setup();
    let url = format!("/projects/{pk}/embeddings/");
    let body = json!({"description": "news", "fields": ["text"], "min_freq": 1, "num_dimensions": 20});
    let created = s.post(&url, Some(&t), &body).ok(201);
    assert_eq!(
        (created["task"]["status"].clone(), created["vocab_size"].clone()),
        (json!("created"), json!(0))
    );
    let id = created["id"].as_i64().unwrap();
    let done = s.settle(&t, &format!("{url}{id}/"));
    assert_eq!(done["task"]["status"], "completed", "{done}");
    let mut shown = normalize(&done);
    assert!(done["vocab_size"].as_i64().unwrap() > 10, "{done}");
    shown["vocab_size"] = json!("<set>");
    assert_eq!(
        shown,
        json!({"id": id, "url": format!("{}{url}{id}/", s.base), "author_username": "admin", "description": "news",
               "indices": [], "fields": ["text"], "query": "{\"query\": {\"match_all\": {}}}", "num_dimensions": 20,
               "max_documents": 0, "min_freq": 1, "vocab_size": "<set>", "task": shown["task"].clone()})
    );
    let similar = s
        .post(
            &format!("{url}{id}/predict_similar/"),
            Some(&t),
            &json!({"positives": ["varas"], "output_size": 3}),
        )
        .ok(200);
    let items = similar.as_array().unwrap();
    assert_eq!(items.len(), 3, "{similar}");
    assert!(
        items
            .iter()
            .all(|i| i["model"] == "news" && i["score"].is_number() && i["phrase"] != "varas"),
        "{similar}"
    );
    s.post(&format!("{url}{id}/predict_similar/"), Some(&t), &json!({"positives": ["zzzz"]}))
        .expect(200, json!([]));
    s.post(&format!("{url}{id}/predict_similar/"), Some(&t), &json!({}))
        .expect(400, json!({"positives": ["This field is required."]}));
    let phrased = s
        .post(
            &format!("{url}{id}/phrase_text/"),
            Some(&t),
            &json!({"text": "Politsei  otsib varast"}),
        )
        .ok(200);
    assert!(phrased.is_string(), "{phrased}");
    // A tagger that uses the embedding's phraser trains and tags; deleting the embedding
    // leaves the tagger without it.
    let mut tagger = create_body();
    tagger["embedding"] = json!(id);
    let tid = s.post(&format!("/projects/{pk}/taggers/"), Some(&t), &tagger).ok(201)["id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        s.settle(&t, &format!("/projects/{pk}/taggers/{tid}/"))["task"]["status"],
        "completed"
    );
    s.post(
        &format!("/projects/{pk}/taggers/{tid}/tag_text/"),
        Some(&t),
        &json!({"text": "varas"}),
    )
    .ok(200);
    assert_eq!(s.delete(&format!("{url}{id}/"), Some(&t)).status, 204);
    assert_eq!(
        s.get(&format!("/projects/{pk}/taggers/{tid}/"), Some(&t)).ok(200)["embedding"],
        Value::Null
    );
    s.post(&format!("{url}{id}/phrase_text/"), Some(&t), &json!({"text": "x"}))
        .expect(404, json!({"detail": "Not found."}));
}

/// `threads` (ta extension): an embedding trains on two threads; the field stays out of the
/// response (the reference's shape) but is kept with the settings, so the export carries it;
/// out of bounds is a field error.
#[test]
fn embedding_trains_on_several_threads() {
    let (s, t, pk) = setup();
    let url = format!("/projects/{pk}/embeddings/");
    let body = json!({"description": "news", "fields": ["text"], "min_freq": 1, "num_dimensions": 20, "threads": 2});
    let created = s.post(&url, Some(&t), &body).ok(201);
    let id = created["id"].as_i64().unwrap();
    let done = s.settle(&t, &format!("{url}{id}/"));
    assert_eq!(done["task"]["status"], "completed", "{done}");
    let keys: Vec<&String> = done.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "id",
            "url",
            "author_username",
            "description",
            "indices",
            "fields",
            "query",
            "num_dimensions",
            "max_documents",
            "min_freq",
            "vocab_size",
            "task"
        ]
    );
    assert!(done["vocab_size"].as_i64().unwrap() > 10, "{done}");
    let export = s.get(&format!("{url}{id}/export_model/"), Some(&t));
    assert_eq!(export.status, 200, "{}", export.text);
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(export.bytes)).unwrap();
    let header: Value = serde_json::from_reader(zip.by_name("model.json").unwrap()).unwrap();
    assert_eq!(header["config"]["threads"], 2, "{header}");
    for (threads, message) in [
        (json!(65), "Ensure this value is less than or equal to 64."),
        (json!(0), "Ensure this value is greater than or equal to 1."),
        (json!("many"), "A valid integer is required."),
    ] {
        let mut bad = body.clone();
        bad["threads"] = threads.clone();
        s.post(&url, Some(&t), &bad).expect(400, json!({"threads": [message]}));
        s.patch(&format!("{url}{id}/"), Some(&t), &json!({"threads": threads}))
            .expect(400, json!({"threads": [message]}));
    }
}

/// Lexicons and saved searches (gui.md §11): whole bodies over HTTP, and the CLI.
#[test]
fn lexicons_and_saved_searches() {
    let (s, t, pk) = setup();
    let lex = format!("/projects/{pk}/lexicons/");
    let created = s
        .post(&lex, Some(&t), &json!({"description": "kuriteod", "phrases": ["varas"]}))
        .ok(201);
    let id = created["id"].as_i64().unwrap();
    let expected = |phrases: Value, discarded: Value| {
        json!({"id": id, "url": format!("{}{lex}{id}/", s.base), "author_username": "admin", "description": "kuriteod",
               "phrases": phrases, "discarded_phrases": discarded})
    };
    assert_eq!(created, expected(json!(["varas"]), json!([])));
    s.patch(&format!("{lex}{id}/"), Some(&t), &json!({"discarded_phrases": ["vihm"]}))
        .expect(200, expected(json!(["varas"]), json!(["vihm"])));
    s.post(&lex, Some(&t), &json!({"phrases": []}))
        .expect(400, json!({"description": ["This field is required."]}));
    let searches = format!("/projects/{pk}/searches/");
    let saved = s
        .post(&searches, Some(&t), &json!({"description": "varas otsing", "query": {"query": {"match": {"text": "varas"}}}, "query_constraints": {"text": "varas"}}))
        .ok(201);
    let sid = saved["id"].as_i64().unwrap();
    assert_eq!(
        saved,
        json!({"id": sid, "url": format!("{}{searches}{sid}/", s.base), "author_username": "admin", "description": "varas otsing",
               "query": "{\"query\": {\"match\": {\"text\": \"varas\"}}}", "query_constraints": "{\"text\": \"varas\"}"})
    );
    // TEXTA's web client sends the query and its state as JSON strings and reads them back
    // as sent, from a plain list.
    let sent = r#"{"query":{"bool":{"must":[{"match":{"text":"varas"}}]}}}"#;
    let client = s
        .post(
            &searches,
            Some(&t),
            &json!({"description": "kliendi otsing", "query": sent, "query_constraints": "[]"}),
        )
        .ok(201);
    assert_eq!(
        (client["query"].as_str(), client["query_constraints"].as_str()),
        (Some(sent), Some("[]"))
    );
    let listed = s.get(&format!("{searches}?&ordering=-id&page=1&page_size=25"), Some(&t)).ok(200);
    assert_eq!(listed, json!([client, saved]));
    s.post(&searches, Some(&t), &json!({"description": "x", "query": "{not json"}))
        .ok(400);
    s.post(&format!("{searches}bulk_delete/"), Some(&t), &json!({"ids": [sid, client["id"]]}))
        .expect(200, json!({"num_deleted": 2, "deleted_types": {"core.Search": 2}}));
    s.get(&searches, Some(&t)).expect(200, json!([]));
}

/// `ta embedding train` from a JSONL corpus (no index): stdin locally, then the same model
/// answers alike through a server.
#[test]
fn cli_trains_an_embedding_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    ta(&data, &["project", "create", "--title", "p"]).ok();
    let out = common::ta_stdin(
        &data,
        &[
            "embedding",
            "train",
            "--project",
            "1",
            "--description",
            "e",
            "--field",
            "text",
            "--min-freq",
            "1",
            "--dims",
            "10",
        ],
        &corpus(),
    );
    let trained: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(trained["task"]["status"], "completed", "{trained}");
    assert!(trained["vocab_size"].as_i64().unwrap() > 10, "{trained}");
    let local = ta(&data, &["embedding", "similar", "1", "varas", "-n", "2"]).ok();
    assert_eq!(local.as_array().unwrap().len(), 2, "{local}");
    let s = Server::start_in(&data, &[]);
    let token = s.admin_token();
    assert_eq!(
        ta(
            &data,
            &[
                "--server",
                &s.base,
                "--token",
                &token,
                "embedding",
                "similar",
                "1",
                "varas",
                "-n",
                "2"
            ]
        )
        .ok(),
        local
    );
}

/// `ta embedding train --threads`, and looking inside a model: `sentences` (the processed
/// corpus, or phrased as word2vec reads it), `phrases` and `vocabulary`, whose counts are the
/// token counts of the phrased sentences; the same locally and through a server.
#[test]
fn cli_embedding_threads_sentences_phrases_and_vocabulary() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let corpus_file = dir.path().join("corpus.jsonl");
    // "kuri koer" 10 times among many rare words: a pair that passes the phraser's min_count
    // of 5 and scores above its threshold of 10.
    let mut text = corpus();
    for i in 0..10 {
        text.push_str(&format!("{}\n", json!({"text": format!("uudis{i} kuri koer haukus")})));
    }
    for i in 0..80 {
        text.push_str(&format!("{}\n", json!({"text": format!("sõna{i}a sõna{i}b")})));
    }
    std::fs::write(&corpus_file, text).unwrap();
    let file = corpus_file.to_str().unwrap();
    ta(&data, &["project", "create", "--title", "p"]).ok();
    let train = |threads: &str| {
        ta(
            &data,
            &[
                "embedding",
                "train",
                "--project",
                "1",
                "--description",
                "e",
                "--field",
                "text",
                "--min-freq",
                "1",
                "--dims",
                "10",
                "--file",
                file,
                "--threads",
                threads,
            ],
        )
    };
    let trained = train("2").ok();
    assert_eq!(trained["task"]["status"], "completed", "{trained}");
    let error = train("65").fails(3);
    assert!(error.contains("threads") && error.contains("64"), "{error}");

    let sentences = |args: &[&str]| -> Vec<Vec<String>> {
        let mut all = vec!["embedding", "sentences", "--field", "text", "--file", file];
        all.extend(args);
        let out = ta(&data, &all);
        assert_eq!(out.code, 0, "{out:?}");
        out.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    };
    let processed = sentences(&[]);
    assert_eq!(processed.len(), 150);
    assert_eq!(
        processed[0],
        ["varas", "varastas", "poest", "telefoni", "politsei", "pidas", "varga", "kinni"]
    );
    let phrased = sentences(&["--embedding", "1"]);
    assert_eq!(phrased.len(), processed.len());
    let phrases = ta(&data, &["embedding", "phrases", "1"]).ok();
    let joined: Vec<&str> = phrases.as_array().unwrap().iter().map(|p| p["phrase"].as_str().unwrap()).collect();
    assert_eq!(joined.len(), 13, "{phrases}");
    // (count(kuri koer) − min_count) / (count(kuri) · count(koer)) · table entries = 5 / 100 · 322
    assert!(
        phrases.as_array().unwrap().contains(&json!({"phrase": "kuri_koer", "score": 16.1})),
        "{phrases}"
    );
    assert!(
        phrases.as_array().unwrap().iter().all(|p| p["score"].as_f64().unwrap() > 10.0),
        "{phrases}"
    );
    assert!(
        phrased.iter().flatten().any(|token| joined.contains(&token.as_str())),
        "{phrased:?}"
    );
    let vocabulary = ta(&data, &["embedding", "vocabulary", "1"]).ok();
    let mut counts = std::collections::BTreeMap::<String, i64>::new();
    for token in phrased.iter().flatten() {
        *counts.entry(token.clone()).or_default() += 1;
    }
    let listed: std::collections::BTreeMap<String, i64> = vocabulary
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["word"].as_str().unwrap().to_owned(), w["count"].as_i64().unwrap()))
        .collect();
    assert_eq!(listed, counts);
    assert_eq!(
        vocabulary.as_array().unwrap().len(),
        trained["vocab_size"].as_i64().unwrap() as usize
    );

    let s = Server::start_in(&data, &[]);
    let token = s.admin_token();
    let remote = |args: &[&str]| {
        let mut all = vec!["--server", s.base.as_str(), "--token", token.as_str()];
        all.extend(args);
        ta(&data, &all)
    };
    assert_eq!(remote(&["embedding", "phrases", "1"]).ok(), phrases);
    assert_eq!(remote(&["embedding", "vocabulary", "1"]).ok(), vocabulary);
    let out = remote(&["embedding", "sentences", "--field", "text", "--file", file, "--embedding", "1"]);
    let remote_phrased: Vec<Vec<String>> = out.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(remote_phrased, phrased);
    let missing = ta(&data, &["embedding", "phrases", "9", "--project", "1"]).fails(5);
    assert!(missing.contains("Not found"), "{missing}");
}
