//! The index splitter (`collection.md` §4) against a real `ta serve`: a random split puts
//! each selected document in exactly one of the train and test indices (test gets the
//! rounded share); labelled splits (`original`, `equal`, `custom`) take only documents
//! holding the fact, with each label's quota in `test`; the validation messages.
use crate::common;
use crate::reindexer::{put_docs, sources};

use common::Server;
use serde_json::{json, Value};

/// A project with index `news`: ten documents, six labelled by fact TOPIC (four `sport`,
/// two `news`).
fn labelled() -> (Server, String, i64) {
    let s = Server::start();
    let t = s.admin_token();
    let pk = s.create_project(&t, "split", &[])["id"].as_i64().unwrap();
    let docs: Vec<Value> = (0..10)
        .map(|i| {
            let mut source = json!({"text": format!("text {i}"), "n": i});
            let topic = match i {
                0..=3 => Some("sport"),
                4 | 5 => Some("news"),
                _ => None,
            };
            if let Some(topic) = topic {
                source["texta_facts"] = json!([{"fact": "TOPIC", "str_val": topic, "doc_path": "text", "spans": "[[0, 0]]"}]);
            }
            json!({"_index": "news", "_id": format!("d{i}"), "_source": source})
        })
        .collect();
    put_docs(&s, &t, pk, json!(docs));
    (s, t, pk)
}

/// The `n` of every document of `index`, sorted.
fn numbers(s: &Server, t: &str, pk: i64, index: &str) -> Vec<i64> {
    let mut n: Vec<i64> = sources(s, t, pk, index).iter().map(|d| d["n"].as_i64().unwrap()).collect();
    n.sort_unstable();
    n
}

/// The topics of `index`'s documents, counted: (sport, news).
fn topics(s: &Server, t: &str, pk: i64, index: &str) -> (usize, usize) {
    let docs = sources(s, t, pk, index);
    let count = |topic: &str| docs.iter().filter(|d| d["texta_facts"][0]["str_val"] == topic).count();
    (count("sport"), count("news"))
}

#[test]
fn a_random_split_puts_each_document_in_one_index() {
    let (s, t, pk) = labelled();
    let p = format!("/projects/{pk}/index_splitter");
    let created = s
        .post(
            &format!("{p}/"),
            Some(&t),
            &json!({"description": "split", "indices": [{"name": "news"}], "fields": ["n"], "train_index": "train",
                    "test_index": "test", "test_size": 25}),
        )
        .ok(201);
    let mut shown = created.clone();
    shown["task"] = json!("<task>");
    assert_eq!(
        shown,
        json!({"id": 1, "url": format!("{}{p}/1/", s.base), "author_username": "admin", "description": "split",
               "scroll_size": 500, "fields": ["n"], "query": "{\"query\": {\"match_all\": {}}}", "train_index": "train",
               "test_index": "test", "test_size": 25, "fact": null, "str_val": null, "distribution": "random",
               "custom_distribution": {}, "task": "<task>"})
    );
    assert_eq!(
        s.get(&format!("/projects/{pk}/"), Some(&t)).ok(200)["indices"],
        json!(["news", "train", "test"])
    );
    let done = s.settle(&t, &format!("{p}/1/"));
    assert_eq!(
        (
            &done["task"]["status"],
            &done["task"]["total"],
            &done["task"]["num_processed"],
            &done["task"]["step"]
        ),
        (&json!("completed"), &json!(10), &json!(10), &json!(""))
    );
    let (train, test) = (numbers(&s, &t, pk, "train"), numbers(&s, &t, pk, "test"));
    assert_eq!(test.len(), 3, "round_half_up(10 · 25 / 100)");
    let mut all = [train, test].concat();
    all.sort_unstable();
    assert_eq!(all, (0..10).collect::<Vec<_>>());
    assert_eq!(sources(&s, &t, pk, "test")[0].as_object().unwrap().len(), 1, "only n copied");
    let r = s.call("PATCH", &format!("{p}/1/"), Some(&t), Some(&json!({"description": "x"})));
    assert_eq!(r.status, 405);
    s.post(&format!("{p}/bulk_delete/"), Some(&t), &json!({"ids": [1]})).expect(
        200,
        json!({"num_deleted": 2, "deleted_types": {"core.Task": 1, "elastic.IndexSplitter": 1}}),
    );
}

#[test]
fn labelled_splits_fill_each_labels_quota() {
    let (s, t, pk) = labelled();
    let p = format!("/projects/{pk}/index_splitter");
    let cases = [
        ("original", json!({"test_size": 50}), (2, 1), (2, 1)),
        ("equal", json!({"test_size": 1}), (1, 1), (3, 1)),
        ("custom", json!({"custom_distribution": {"sport": 3, "other": 5}}), (3, 0), (1, 2)),
    ];
    for (i, (distribution, options, test, train)) in cases.into_iter().enumerate() {
        let mut body = json!({"description": distribution, "indices": ["news"], "fact": "TOPIC", "distribution": distribution,
                              "train_index": format!("{distribution}_train"), "test_index": format!("{distribution}_test")});
        body.as_object_mut().unwrap().extend(options.as_object().unwrap().clone());
        s.post(&format!("{p}/"), Some(&t), &body).ok(201);
        let done = s.settle(&t, &format!("{p}/{}/", i + 1));
        assert_eq!(
            (&done["task"]["status"], &done["task"]["total"]),
            (&json!("completed"), &json!(6)),
            "{distribution}: {done}"
        );
        assert_eq!(topics(&s, &t, pk, &format!("{distribution}_test")), test, "{distribution}");
        assert_eq!(topics(&s, &t, pk, &format!("{distribution}_train")), train, "{distribution}");
    }
    // str_val keeps only that label.
    s.post(
        &format!("{p}/"),
        Some(&t),
        &json!({"description": "news only", "indices": ["news"], "fact": "TOPIC", "str_val": "news", "distribution": "equal", "test_size": 1,
                "train_index": "n_train", "test_index": "n_test"}),
    )
    .ok(201);
    s.settle(&t, &format!("{p}/4/"));
    assert_eq!((topics(&s, &t, pk, "n_test"), topics(&s, &t, pk, "n_train")), ((0, 1), (0, 1)));
}

#[test]
fn validation_messages() {
    let (s, t, pk) = labelled();
    let p = format!("/projects/{pk}/index_splitter/");
    // The create form's metadata asks for exactly the fields the create requires.
    let options = s.call("OPTIONS", &p, Some(&t), None).ok(200);
    let required: Vec<&str> = options["actions"]["POST"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, f)| f["required"] == json!(true))
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(required, ["description", "test_index", "train_index"]);
    s.post(&p, Some(&t), &json!({})).expect(
        400,
        json!({"description": ["This field is required."], "train_index": ["This field is required."],
               "test_index": ["This field is required."]}),
    );
    s.post(
        &p,
        Some(&t),
        &json!({"description": "x", "indices": ["nope"], "fields": ["ghost"], "train_index": "news", "test_index": "t",
                "test_size": 101, "distribution": "weird"}),
    )
    .expect(
        400,
        json!({
            "indices": ["Index \"nope\" is not contained in your project indices \"['news']\""],
            "fields": ["The fields you are attempting to add to new indices are not in current project fields: ['n', 'text', 'texta_facts']"],
            "train_index": ["news already exists, choose a different name for your train index"],
            "distribution": ["\"weird\" is not a valid choice."],
        }),
    );
    s.post(
        &p,
        Some(&t),
        &json!({"description": "x", "train_index": "a", "test_index": "b", "test_size": 101}),
    )
    .expect(400, json!({"test_size": ["Ensure this value is less than or equal to 100."]}));
    for (body, message) in [
        (
            json!({"train_index": "a", "test_index": "a"}),
            "train_index and test_index must be different",
        ),
        (
            json!({"train_index": "a", "test_index": "b", "distribution": "custom", "fact": "TOPIC"}),
            "field custom_distribution can not be empty with custom label distribution",
        ),
        (
            json!({"train_index": "a", "test_index": "b", "distribution": "equal"}),
            "fact must be specified with \"custom\", \"equal\" or \"original\" distribution",
        ),
        (
            json!({"train_index": "a", "test_index": "b", "distribution": "original", "fact": ""}),
            "fact must be specified with \"custom\", \"equal\" or \"original\" distribution",
        ),
    ] {
        let mut body = body;
        body["description"] = json!("x");
        s.post(&p, Some(&t), &body).expect(400, json!({"non_field_errors": [message]}));
    }
    s.post(&p, Some(&t), &json!({"description": "x", "train_index": "A", "test_index": "b"}))
        .expect(400, json!({"detail": "Uppercase characters are not allowed!"}));
    assert_eq!(s.get(&format!("/projects/{pk}/"), Some(&t)).ok(200)["indices"], json!(["news"]));
}
