//! The topic analyzer (`collection.md` §5) against a real `ta serve`: two vocabularies give
//! two clusters with their significant words (whole `view_clusters` and cluster answers,
//! with and without the trailing slash); every cluster operation; the validation messages
//! and the failed runs; the same clusters on every run and with every vectorizer and
//! algorithm; the OPTIONS choices; the CLI locally and against the server.
use crate::common;
use crate::reindexer::put_docs;

use common::Server;
use serde_json::{json, Value};

const NO_WORDS: &str = "no words to cluster by: each is a stop word, a number, 1 character long or in over 80 % of documents";

/// Texts of the sport documents `s1`..`s6` and the cooking documents `c1`..`c6`.
const SPORT: [&str; 6] = [
    "Football goal team 2020",
    "football goal player 2020",
    "football team player 2020",
    "goal team stadium",
    "football player stadium",
    "goal team player",
];
const COOKING: [&str; 6] = [
    "recipe oven flour",
    "recipe oven sugar",
    "recipe flour sugar",
    "oven flour dough",
    "recipe sugar dough",
    "oven flour sugar",
];

fn sport_ids() -> Vec<String> {
    (1..=6).map(|i| format!("s{i}")).collect()
}

fn cooking_ids() -> Vec<String> {
    (1..=6).map(|i| format!("c{i}")).collect()
}

/// The twelve documents of index `topics`, sport and cooking interleaved.
fn corpus() -> Value {
    let mut docs = Vec::new();
    for i in 0..6 {
        docs.push(json!({"_index": "topics", "_id": format!("s{}", i + 1), "_source": {"text": SPORT[i], "kind": "sport"}}));
        docs.push(json!({"_index": "topics", "_id": format!("c{}", i + 1), "_source": {"text": COOKING[i], "kind": "cooking"}}));
    }
    Value::Array(docs)
}

/// A server with a project (1) holding index `topics`.
fn topics() -> (Server, String, i64) {
    let s = Server::start();
    let t = s.admin_token();
    let pk = s.create_project(&t, "topics", &[])["id"].as_i64().unwrap();
    put_docs(&s, &t, pk, corpus());
    (s, t, pk)
}

/// Creates a clustering with `extra` settings and waits for its run.
fn clustered(s: &Server, t: &str, pk: i64, extra: Value) -> Value {
    let mut body = json!({"description": "topics", "fields": ["text"], "num_cluster": 2, "indices": [{"name": "topics"}]});
    body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let created = s.post(&format!("/projects/{pk}/clustering/"), Some(t), &body).ok(201);
    let id = created["id"].as_i64().unwrap();
    s.settle(t, &format!("/projects/{pk}/clustering/{id}/"))
}

/// The document ids of each cluster of a view_clusters answer, sorted, in the answer's order.
fn partition(view: &Value) -> Vec<Vec<String>> {
    view["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let mut ids: Vec<String> = c["documents"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_str().unwrap().to_string())
                .collect();
            ids.sort();
            ids
        })
        .collect()
}

/// `v` with every `average_similarity` / `intracluster_similarity` rounded to 4 places.
fn rounded(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| match (k.as_str(), v.as_f64()) {
                    ("average_similarity" | "intracluster_similarity", Some(x)) => (k.clone(), json!((x * 10_000.0).round() / 10_000.0)),
                    _ => (k.clone(), rounded(v)),
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(rounded).collect()),
        other => other.clone(),
    }
}

/// The significant words of either cluster: four words in four of six documents each
/// (JLH 2/3 each, ties by key); "stadium" and "dough" are in two only, "2020" is filtered.
fn words(sport: bool) -> Value {
    let keys = if sport {
        ["football", "goal", "player", "team"]
    } else {
        ["flour", "oven", "recipe", "sugar"]
    };
    Value::Array(keys.iter().map(|k| json!({"key": k, "count": 4})).collect())
}

#[test]
fn two_vocabularies_give_two_clusters_with_their_significant_words() {
    let (s, t, pk) = topics();
    let p = format!("/projects/{pk}/clustering");
    let created = s
        .post(
            &format!("{p}/"),
            Some(&t),
            &json!({"description": "topics", "fields": ["text"], "num_cluster": 2, "indices": [{"name": "topics"}],
                    "query": "{\"query\": {\"match_all\": {}}}", "unknown": 1}),
        )
        .ok(201);
    let mut shown = created.clone();
    shown["task"] = json!("<task>");
    assert_eq!(
        shown,
        json!({"id": 1, "url": format!("{}{p}/1/", s.base), "description": "topics", "author_username": "admin",
               "query": "{\"query\": {\"match_all\": {}}}",
               "indices": [{"id": 1, "url": format!("{}/index/1/", s.base), "is_open": true, "name": "topics"}],
               "num_cluster": 2, "clustering_algorithm": "kmeans", "vectorizer": "TfIdf Vectorizer", "num_dims": 1000,
               "use_lsi": false, "num_topics": 50, "significant_words_filter": "[0-9]+", "display_fields": [],
               "stop_words": [], "ignored_ids": [], "fields": ["text"], "embedding": null, "document_limit": 100,
               "task": "<task>"})
    );
    let done = s.settle(&t, &format!("{p}/1/"));
    let mut task = done["task"].clone();
    for key in ["id", "time_started", "last_update", "time_completed"] {
        assert!(common::is_timestamp(task[key].as_str().unwrap_or("2020-01-01T00:00:00.000000Z")) || key == "id");
        task.as_object_mut().unwrap().remove(key);
    }
    assert_eq!(
        task,
        json!({"status": "completed", "progress": 100.0, "step": "", "errors": "[]", "total": 12, "num_processed": 12})
    );
    let view = s.get(&format!("{p}/1/view_clusters/"), Some(&t)).ok(200);
    assert_eq!(
        s.get(&format!("{p}/1/view_clusters"), Some(&t)).ok(200),
        view,
        "served without the slash"
    );
    // Clusters are saved in label order with ascending ids and listed newest first.
    let (first, second) = (
        view["clusters"][1]["id"].as_i64().unwrap(),
        view["clusters"][0]["id"].as_i64().unwrap(),
    );
    assert_eq!((first, second), (1, 2));
    let sport_first = view["clusters"][1]["documents"].as_array().unwrap().contains(&json!("s1"));
    let listed = |id: i64, sport: bool| {
        let docs: Vec<String> = corpus()
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["_id"].as_str().unwrap().to_string())
            .filter(|d| d.starts_with('s') == sport)
            .collect();
        json!({"id": id, "url": format!("{}{p}/1/clusters/{id}/", s.base), "document_count": 6,
               "average_similarity": "<similarity>", "significant_words": words(sport), "documents": docs})
    };
    let mut expected = json!({"cluster_count": 2, "clusters": [listed(2, !sport_first), listed(1, sport_first)]});
    for (i, c) in view["clusters"].as_array().unwrap().iter().enumerate() {
        let similarity = c["average_similarity"].as_f64().unwrap();
        assert!(similarity > 0.3 && similarity < 1.0, "{similarity}");
        expected["clusters"][i]["average_similarity"] = json!(similarity);
    }
    assert_eq!(view, expected);
    // The cluster with its documents, flattened, in the cluster's order.
    let sport_id = if sport_first { 1 } else { 2 };
    let detail = s.get(&format!("{p}/1/clusters/{sport_id}/"), Some(&t)).ok(200);
    let documents: Vec<Value> = (0..6)
        .map(|i| json!({"id": format!("s{}", i + 1), "index": "topics", "content": {"text": SPORT[i], "kind": "sport"}}))
        .collect();
    let similarity = view["clusters"][if sport_first { 1 } else { 0 }]["average_similarity"].clone();
    assert_eq!(
        detail,
        json!({"id": sport_id, "intracluster_similarity": similarity, "document_count": 6,
               "significant_words": words(true), "documents": documents})
    );
    // No listing of clusters; a cluster of another clustering is not found.
    s.get(&format!("{p}/1/clusters/"), Some(&t)).ok(404);
    clustered(&s, &t, pk, json!({}));
    s.get(&format!("{p}/2/clusters/{sport_id}/"), Some(&t)).ok(404);
    s.get(&format!("{p}/1/clusters/3/"), Some(&t)).ok(404);
    // Counted among the project's resources, and listed.
    assert_eq!(
        s.get(&format!("/projects/{pk}/get_resource_counts/"), Some(&t)).ok(200)["num_clusterings"],
        2
    );
    assert_eq!(s.get(&format!("{p}/?ordering=-id"), Some(&t)).ok(200)["results"][0]["id"], 2);
    assert_eq!(
        s.get(&format!("{p}/?ordering=indices__name,-num_cluster"), Some(&t)).ok(200)["count"],
        2
    );
    assert_eq!(
        s.get(&format!("/projects/{pk}/"), Some(&t)).ok(200)["resources"]["clustering"],
        format!("{}{p}/", s.base)
    );
}

/// The id of the sport cluster and of the cooking cluster of clustering `cid`.
fn cluster_ids(s: &Server, t: &str, pk: i64, cid: i64) -> (i64, i64) {
    let view = s.get(&format!("/projects/{pk}/clustering/{cid}/view_clusters/"), Some(t)).ok(200);
    let clusters = view["clusters"].as_array().unwrap();
    let holding = |doc: &str| {
        clusters
            .iter()
            .find(|c| c["documents"].as_array().unwrap().contains(&json!(doc)))
            .unwrap()["id"]
            .as_i64()
            .unwrap()
    };
    (holding("s1"), holding("c1"))
}

fn documents_of(s: &Server, t: &str, pk: i64, cid: i64, id: i64) -> Value {
    let view = s.get(&format!("/projects/{pk}/clustering/{cid}/view_clusters/"), Some(t)).ok(200);
    view["clusters"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap()["documents"].clone()
}

#[test]
fn cluster_operations_move_tag_ignore_and_delete_documents() {
    let (s, t, pk) = topics();
    clustered(&s, &t, pk, json!({}));
    let (sport, cooking) = cluster_ids(&s, &t, pk, 1);
    let c = |id: i64, action: &str| format!("/projects/{pk}/clustering/1/clusters/{id}/{action}");
    let msg = |m: &str| json!({ "message": m });
    // expand_cluster: c1 moves here from the other cluster; "x9" is added as it is.
    s.post(&c(sport, "expand_cluster/"), Some(&t), &json!({"ids": ["c1", "s1", "x9"]}))
        .expect(200, msg("Documents successfully added to the cluster!"));
    assert_eq!(
        documents_of(&s, &t, pk, 1, sport),
        json!(["s1", "s2", "s3", "s4", "s5", "s6", "c1", "x9"])
    );
    assert_eq!(documents_of(&s, &t, pk, 1, cooking), json!(["c2", "c3", "c4", "c5", "c6"]));
    // The figures follow: the sport words are still those of the cluster (c1 adds none).
    let detail = s.get(&c(sport, ""), Some(&t)).ok(200);
    assert_eq!(
        (detail["document_count"].clone(), detail["documents"].as_array().unwrap().len()),
        (json!(8), 7)
    );
    assert_eq!(detail["significant_words"], words(true));
    // transfer_documents: back to the cooking cluster; a cluster of no clustering is refused.
    s.post(
        &c(sport, "transfer_documents/"),
        Some(&t),
        &json!({"ids": ["c1"], "receiving_cluster_id": 99}),
    )
    .expect(400, json!({"receiving_cluster_id": ["Could not find cluster with ID: 99"]}));
    s.post(
        &c(sport, "transfer_documents/"),
        Some(&t),
        &json!({"ids": ["c1"], "receiving_cluster_id": cooking}),
    )
    .expect(200, msg("Documents successfully added to the cluster!"));
    assert_eq!(documents_of(&s, &t, pk, 1, cooking), json!(["c2", "c3", "c4", "c5", "c6", "c1"]));
    // remove_documents, add_documents (unknown ids ignored, the count of new ones).
    s.post(&c(sport, "remove_documents/"), Some(&t), &json!({"ids": ["x9", "s6"]}))
        .expect(200, msg("Documents successfully removed from the cluster!"));
    s.post(&c(sport, "add_documents/"), Some(&t), &json!({"ids": ["s6", "s1", "nope"]}))
        .expect(200, msg("1 new document(s) successfully added to the cluster!"));
    assert_eq!(documents_of(&s, &t, pk, 1, sport), json!(["s1", "s2", "s3", "s4", "s5", "s6"]));
    s.post(&c(sport, "add_documents/"), Some(&t), &json!({"ids": "s1"}))
        .expect(400, json!({"ids": ["Expected a list of items but got type \"str\"."]}));
    // PUT / PATCH: the ids that exist replace the list.
    s.patch(&c(cooking, ""), Some(&t), &json!({"document_ids": ["c2", "c1", "gone"]}))
        .expect(200, msg("Cluster has been updated successfully!"));
    assert_eq!(documents_of(&s, &t, pk, 1, cooking), json!(["c2", "c1"]));
    s.put(&c(cooking, ""), Some(&t), &json!({"document_ids": ["gone"]}))
        .expect(200, msg("Cluster has been updated successfully!"));
    let emptied = s.get(&c(cooking, ""), Some(&t)).ok(200);
    assert_eq!(
        emptied,
        json!({"id": cooking, "intracluster_similarity": 0.0, "document_count": 0, "significant_words": [], "documents": []})
    );
    // more_like_cluster: the cluster's own documents and the ignored ones left out.
    let like = s
        .post(
            &c(sport, "more_like_cluster/"),
            Some(&t),
            &json!({"min_doc_freq": 1, "include_meta": true, "size": 5}),
        )
        .ok(200);
    assert_eq!(like, json!([]), "every sport document is in the cluster");
    s.patch(&c(sport, ""), Some(&t), &json!({"document_ids": ["s1", "s2", "s3"]}))
        .ok(200);
    let like = s
        .post(&c(sport, "more_like_cluster/"), Some(&t), &json!({"min_doc_freq": 1}))
        .ok(200);
    let mut texts: Vec<&str> = like.as_array().unwrap().iter().map(|d| d["text"].as_str().unwrap()).collect();
    texts.sort();
    assert_eq!(texts, ["football player stadium", "goal team player", "goal team stadium"]);
    let meta = s
        .post(
            &c(sport, "more_like_cluster/"),
            Some(&t),
            &json!({"min_doc_freq": 1, "include_meta": true, "size": 1}),
        )
        .ok(200);
    assert_eq!(meta.as_array().unwrap().len(), 1);
    assert_eq!(meta[0]["_type"], "_doc");
    assert_eq!(meta[0]["_index"], "topics");
    // tag_cluster: a fact on each document, never twice; the ids join ignored_ids.
    let fact = json!({"fact": "TOPIC", "str_val": "sport", "doc_path": "text"});
    for _ in 0..2 {
        s.post(&c(sport, "tag_cluster/"), Some(&t), &fact)
            .expect(200, msg("Successfully added fact TOPIC to the documents!"));
    }
    let doc = s.get(&format!("/projects/{pk}/elastic/documents/topics/s2/"), Some(&t)).ok(200);
    assert_eq!(
        doc["_source"]["texta_facts"],
        json!([{"fact": "TOPIC", "str_val": "sport", "doc_path": "text", "spans": "[[0, 0]]"}])
    );
    s.post(
        &c(sport, "tag_cluster/"),
        Some(&t),
        &json!({"fact": "N", "str_val": "v", "doc_path": "text", "num_val": 3, "spans": "[[0, 4]]"}),
    )
    .ok(200);
    let doc = s.get(&format!("/projects/{pk}/elastic/documents/topics/s1/"), Some(&t)).ok(200);
    assert_eq!(
        doc["_source"]["texta_facts"][1],
        json!({"fact": "N", "str_val": "v", "doc_path": "text", "spans": "[[0, 4]]", "num_val": 3})
    );
    s.post(&c(sport, "tag_cluster/"), Some(&t), &json!({"fact": "X"})).expect(
        400,
        json!({"str_val": ["This field is required."], "doc_path": ["This field is required."]}),
    );
    let clustering = s.get(&format!("/projects/{pk}/clustering/1/"), Some(&t)).ok(200);
    assert_eq!(clustering["ignored_ids"], json!(["s1", "s2", "s3"]));
    // ignore_and_delete: the cooking cluster's ids (c2 only now) join them and it is gone.
    s.patch(&c(cooking, ""), Some(&t), &json!({"document_ids": ["c2"]})).ok(200);
    s.post(&c(cooking, "ignore_and_delete/"), Some(&t), &json!({}))
        .expect(200, msg("Deleted cluster and added it's documents to the ignored list."));
    s.get(&c(cooking, ""), Some(&t)).ok(404);
    let clustering = s.get(&format!("/projects/{pk}/clustering/1/"), Some(&t)).ok(200);
    assert_eq!(clustering["ignored_ids"], json!(["s1", "s2", "s3", "c2"]));
    // DELETE answers 200 with the reference's message.
    s.delete(&c(sport, ""), Some(&t)).expect(200, msg("Cluster deleted."));
    // retrain: clusters again without the ignored documents.
    s.post(&format!("/projects/{pk}/clustering/1/retrain/"), Some(&t), &json!({}))
        .expect(200, msg("Started re-clustering 'topics' cluster set! "));
    let done = s.settle(&t, &format!("/projects/{pk}/clustering/1/"));
    assert_eq!(
        (done["task"]["status"].clone(), done["task"]["total"].clone()),
        (json!("completed"), json!(8))
    );
    let view = s.get(&format!("/projects/{pk}/clustering/1/view_clusters/"), Some(&t)).ok(200);
    let mut parts = partition(&view);
    parts.sort();
    assert_eq!(parts, [vec!["c1", "c3", "c4", "c5", "c6"], vec!["s4", "s5", "s6"]]);
    // bulk_delete_clusters: ids as integers or strings, printed as the reference does.
    let ids: Vec<i64> = view["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    s.post(
        &format!("/projects/{pk}/clustering/1/bulk_delete_clusters/"),
        Some(&t),
        &json!({"ids": [ids[0], ids[1].to_string()]}),
    )
    .expect(200, msg(&format!("Deleted clusters withs ids ['{}', '{}'].", ids[0], ids[1])));
    assert_eq!(
        s.get(&format!("/projects/{pk}/clustering/1/view_clusters/"), Some(&t)).ok(200),
        json!({"cluster_count": 0, "clusters": []})
    );
    // bulk_delete of clusterings counts their clusters too.
    s.post(&format!("/projects/{pk}/clustering/1/retrain/"), Some(&t), &json!({}))
        .ok(200);
    s.settle(&t, &format!("/projects/{pk}/clustering/1/"));
    s.post(&format!("/projects/{pk}/clustering/bulk_delete/"), Some(&t), &json!({"ids": [1]}))
        .expect(
            200,
            json!({"num_deleted": 4, "deleted_types": {"core.Task": 1, "topic_analyzer.Cluster": 2, "topic_analyzer.ClusteringResult": 1}}),
        );
}

#[test]
fn settings_are_validated_and_bad_runs_fail_with_the_reason() {
    let (s, t, pk) = topics();
    let p = format!("/projects/{pk}/clustering/");
    let post = |body: Value| s.post(&p, Some(&t), &body);
    post(json!({"description": "d", "fields": ["text"], "significant_words_filter": "(["}))
        .expect(400, json!({"significant_words_filter": ["Given string is not a valid regex."]}));
    post(json!({"description": "d", "fields": ["text"], "vectorizer": "Embedding Vectorizer"}))
        .expect(400, json!({"embedding": ["Embedding Vectorizer needs an embedding."]}));
    post(json!({"description": "d", "fields": ["text"], "embedding": 9}))
        .expect(400, json!({"embedding": ["Invalid pk \"9\" - object does not exist."]}));
    post(json!({"description": "d", "fields": ["text"], "clustering_algorithm": "dbscan", "num_cluster": 1001, "document_limit": 0}))
        .expect(
            400,
            json!({"num_cluster": ["Ensure this value is less than or equal to 1000."],
                   "clustering_algorithm": ["\"dbscan\" is not a valid choice."],
                   "document_limit": ["Ensure this value is greater than or equal to 1."]}),
        );
    post(json!({"description": "d", "fields": ["nope"]})).expect(
        400,
        json!({"fields": ["Entered fields not in current project fields: {'kind', 'text'}"]}),
    );
    post(json!({"fields": ["text"]})).expect(400, json!({"description": ["This field is required."]}));
    post(json!({"description": "d", "fields": ["text"], "indices": ["other"]}))
        .expect(400, json!(["Inserted indices ['other'] are not available to you."]));
    post(json!({"description": "d", "fields": ["text"], "query": "{nope"})).expect(400, json!({"query": ["Value must be valid JSON."]}));
    // More clusters than documents, and no documents: failed runs with the reason.
    let failed = |extra: Value| {
        let done = clustered(&s, &t, pk, extra);
        assert_eq!(done["task"]["status"], "failed", "{done}");
        done["task"]["errors"].clone()
    };
    assert_eq!(
        failed(json!({"num_cluster": 10, "document_limit": 4})),
        json!("[\"num_cluster (10) is larger than the number of documents (4)\"]")
    );
    assert_eq!(
        failed(json!({"query": {"query": {"match": {"text": "nothing"}}}})),
        json!("[\"no documents found\"]")
    );
    // Every word filtered out (here as stop words, with and without LSI): no vectors to cluster.
    let all_words = json!(["football", "goal", "team", "player", "stadium", "recipe", "oven", "flour", "sugar", "dough"]);
    for use_lsi in [false, true] {
        assert_eq!(
            failed(json!({"stop_words": all_words, "use_lsi": use_lsi, "num_cluster": 1})),
            json!(format!("[\"{NO_WORDS}\"]"))
        );
    }
    // PATCH stores settings without clustering again.
    let id = clustered(&s, &t, pk, json!({}))["id"].as_i64().unwrap();
    let before = s.get(&format!("{p}{id}/view_clusters/"), Some(&t)).ok(200);
    let patched = s
        .patch(&format!("{p}{id}/"), Some(&t), &json!({"stop_words": ["goal"], "num_cluster": 3}))
        .ok(200);
    assert_eq!(
        (patched["stop_words"].clone(), patched["num_cluster"].clone()),
        (json!(["goal"]), json!(3))
    );
    assert_eq!(s.get(&format!("{p}{id}/view_clusters/"), Some(&t)).ok(200), before);
    // OPTIONS offers the choices the web client preselects.
    let options = s.call("OPTIONS", &p, Some(&t), None).ok(200);
    let choices = |field: &str| -> Vec<Value> {
        options["actions"]["POST"][field]["choices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["value"].clone())
            .collect()
    };
    assert_eq!(choices("clustering_algorithm"), [json!("kmeans"), json!("minibatchkmeans")]);
    assert_eq!(
        choices("vectorizer"),
        [json!("TfIdf Vectorizer"), json!("Count Vectorizer"), json!("Embedding Vectorizer")]
    );
}

#[test]
fn every_vectorizer_and_algorithm_separates_the_topics_the_same_way_each_run() {
    let (s, t, pk) = topics();
    let expected = {
        let mut parts = vec![cooking_ids(), sport_ids()];
        parts.iter_mut().for_each(|p| p.sort());
        parts.sort();
        parts
    };
    for extra in [
        json!({}),
        json!({"vectorizer": "Count Vectorizer"}),
        json!({"use_lsi": true, "num_topics": 2}),
        json!({"clustering_algorithm": "minibatchkmeans"}),
        json!({"num_cluster": 0}),
    ] {
        let views: Vec<Value> = (0..2)
            .map(|_| {
                let done = clustered(&s, &t, pk, extra.clone());
                assert_eq!(done["task"]["status"], "completed", "{done}");
                let view = s
                    .get(&format!("/projects/{pk}/clustering/{}/view_clusters/", done["id"]), Some(&t))
                    .ok(200);
                let ids: Vec<Value> = view["clusters"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c["documents"].clone())
                    .collect();
                json!(ids)
            })
            .collect();
        assert_eq!(views[0], views[1], "the same clusters on each run: {extra}");
        let mut parts: Vec<Vec<String>> = views[0]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let mut ids: Vec<String> = d.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
                ids.sort();
                ids
            })
            .collect();
        parts.sort();
        assert_eq!(parts, expected, "{extra}");
    }
}

/// `v` with each document id of the imported corpus (generated, 20 characters, ascending
/// in import order) replaced by its rank among them: `doc0`, `doc1`, ...
fn ranked_ids(answers: &[Value]) -> Vec<Value> {
    fn collect(v: &Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::String(s) if s.len() == 20 && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') => {
                out.insert(s.clone());
            }
            Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
            Value::Object(m) => m.values().for_each(|x| collect(x, out)),
            _ => {}
        }
    }
    let mut ids = std::collections::BTreeSet::new();
    answers.iter().for_each(|v| collect(v, &mut ids));
    let ids: Vec<String> = ids.into_iter().collect();
    answers
        .iter()
        .map(|v| {
            ids.iter()
                .enumerate()
                .fold(v.clone(), |v, (rank, id)| common::replace_in(&v, id, &format!("doc{rank}")))
        })
        .collect()
}

/// `ta topic-analyzer` locally and against a server: the same answers.
#[test]
fn cli_local_and_remote_give_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("topics.jsonl");
    let lines: String = (0..6)
        .flat_map(|i| {
            [
                json!({"text": SPORT[i], "kind": "sport"}),
                json!({"text": COOKING[i], "kind": "cooking"}),
            ]
        })
        .map(|d| d.to_string() + "\n")
        .collect();
    std::fs::write(&file, lines).unwrap();
    let server = Server::start();
    let token = server.admin_token();
    let remote_env = [("TA_SERVER", Some(server.origin.as_str())), ("TA_TOKEN", Some(token.as_str()))];
    let run = |data: &std::path::Path, env: &[(&str, Option<&str>)]| -> Vec<Value> {
        let ta = |args: &[&str]| common::ta_env(data, args, env);
        common::cli_project_with_index(data, env, "topics", &file);
        let created = ta(&[
            "topic-analyzer",
            "create",
            "--project",
            "1",
            "--description",
            "topics",
            "--field",
            "text",
            "--num-cluster",
            "2",
            "--vectorizer",
            "tfidf",
            "--algorithm",
            "kmeans",
            "--stop-word",
            "stadium",
            "--json",
        ])
        .ok();
        let too_many = ta(&[
            "topic-analyzer",
            "create",
            "--project",
            "1",
            "--field",
            "text",
            "--num-cluster",
            "20",
            "--json",
        ])
        .fails(3);
        let refused = ta(&["topic-analyzer", "create", "--project", "1", "--field", "nope", "--json"]).fails(3);
        let view = ta(&["topic-analyzer", "clusters", "1", "--json"]).ok();
        let first = view["clusters"][0]["id"].as_i64().unwrap().to_string();
        let second = view["clusters"][1]["id"].as_i64().unwrap().to_string();
        let detail = ta(&["topic-analyzer", "cluster", "1", &first, "--json"]).ok();
        let removed = ta(&["topic-analyzer", "remove-documents", "1", &first, "s-none", "--json"]).ok();
        let moved = ta(&["topic-analyzer", "set-documents", "1", &second, "--json"]).ok();
        let tagged = ta(&[
            "topic-analyzer",
            "tag-cluster",
            "1",
            &first,
            "--fact",
            "TOPIC",
            "--str-val",
            "t",
            "--doc-path",
            "text",
            "--json",
        ])
        .ok();
        let retrained = ta(&["topic-analyzer", "retrain", "1", "--json"]).ok();
        let listed = ta(&["topic-analyzer", "list", "--project", "1", "--json"]).ok();
        let deleted = ta(&["topic-analyzer", "delete-clusters", "1", &second, "--json"]).ok();
        vec![
            created,
            json!(too_many),
            json!(refused),
            view,
            detail,
            removed,
            moved,
            tagged,
            retrained,
            listed,
            deleted,
        ]
    };
    let local = ranked_ids(&run(dir.path(), &[]));
    let remote = ranked_ids(&run(dir.path(), &remote_env));
    let local: Vec<Value> = local
        .iter()
        .map(|v| common::replace_in(&common::normalize(&rounded(v)), "http://127.0.0.1:8000/api/v1", &server.base))
        .collect();
    let remote: Vec<Value> = remote.iter().map(|v| common::normalize(&rounded(v))).collect();
    assert_eq!(local, remote);
    assert_eq!(local[0]["task"]["status"], "completed");
    assert_eq!(
        local[1],
        json!("ta: error: task failed: [\"num_cluster (20) is larger than the number of documents (12)\"]")
    );
    assert_eq!(local[3]["cluster_count"], 2);
    assert_eq!(
        local[8]["ignored_ids"].as_array().unwrap().len(),
        6,
        "the tagged cluster's documents are ignored"
    );
}

/// While a run goes on, the clustering's operations are refused; `num_cluster: 0` finds
/// the two vocabularies of a larger corpus.
#[test]
fn operations_wait_for_the_run_and_zero_clusters_are_estimated() {
    let s = Server::start();
    let t = s.admin_token();
    let pk = s.create_project(&t, "busy", &[])["id"].as_i64().unwrap();
    // Eight of forty words of one of two topics each, drawn by a linear congruential generator.
    let mut state: u64 = 10;
    let mut draw = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % 40
    };
    let docs: Vec<Value> = (0..300)
        .map(|i: usize| {
            let topic = ["sport", "cook"][i % 2];
            let words: Vec<String> = (0..8).map(|_| format!("{topic}{}", draw())).collect();
            json!({"_index": "busy", "_id": format!("d{i}"), "_source": {"text": words.join(" ")}})
        })
        .collect();
    put_docs(&s, &t, pk, Value::Array(docs));
    let p = format!("/projects/{pk}/clustering/1");
    s.post(
        &format!("/projects/{pk}/clustering/"),
        Some(&t),
        &json!({"description": "busy", "fields": ["text"], "num_cluster": 0, "document_limit": 300}),
    )
    .ok(201);
    let busy = json!({"detail": "A task of this resource is still running."});
    s.post(&format!("{p}/retrain/"), Some(&t), &json!({})).expect(400, busy.clone());
    s.post(&format!("{p}/clusters/1/remove_documents/"), Some(&t), &json!({"ids": ["d1"]}))
        .expect(400, busy);
    let done = s.settle(&t, &format!("{p}/"));
    assert_eq!(
        (done["task"]["status"].clone(), done["num_cluster"].clone()),
        (json!("completed"), json!(0))
    );
    let view = s.get(&format!("{p}/view_clusters/"), Some(&t)).ok(200);
    assert_eq!(view["cluster_count"], 2, "{view}");
}
