//! Concurrent writers (issue 15 §3): 32 clients of one real `ta serve`, each its own user,
//! register at once, then create, patch and delete regex taggers, lexicons, anonymizers and
//! saved searches in a shared project and in their own, patch fields of shared taggers
//! that other clients patch too, and start dataset imports into distinct indices, all at
//! the same time. Every answer must be the documented success, with the whole body as
//! expected; afterwards every surviving resource is listed exactly once with its last
//! patched values, deleted ones answer 404, ids of each kind are 1..=n with none twice,
//! every import ended `completed` with its description as patched while it ran and its
//! documents searchable, no task is left unfinished, and the server never said
//! "database is locked" or panicked.
//!
//! `CONCURRENT_WRITERS_ROUNDS` (default 2) sets how many rounds each client runs; raise it
//! for a heavier run by hand.
use crate::common;

use common::{normalize, Resp, Server};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

const CLIENTS: usize = 32;

/// Shared regex taggers; each has four writers, one per field of [`SHARED_FIELDS`].
const SHARED_TAGGERS: usize = CLIENTS / 4;

/// The fields of a shared tagger, each patched by exactly one client.
const SHARED_FIELDS: [&str; 4] = ["phrase_slop", "counter_slop", "n_allowed_edits", "counter_lexicon"];

fn rounds() -> usize {
    std::env::var("CONCURRENT_WRITERS_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2)
}

/// The resource kinds the clients write, with their bodies and whole answers.
#[derive(Clone, Copy, Debug)]
enum Res {
    RegexTagger,
    Lexicon,
    Anonymizer,
    Search,
}

const KINDS: [Res; 4] = [Res::RegexTagger, Res::Lexicon, Res::Anonymizer, Res::Search];

impl Res {
    fn route(self) -> &'static str {
        match self {
            Res::RegexTagger => "regex_taggers",
            Res::Lexicon => "lexicons",
            Res::Anonymizer => "anonymizers",
            Res::Search => "searches",
        }
    }

    /// The model label bulk_delete reports.
    fn label(self) -> &'static str {
        match self {
            Res::RegexTagger => "regex_tagger.RegexTagger",
            Res::Lexicon => "lexicon.Lexicon",
            Res::Anonymizer => "anonymizer.Anonymizer",
            Res::Search => "core.Search",
        }
    }

    fn create_body(self, tag: &str) -> Value {
        match self {
            Res::RegexTagger => json!({"description": tag, "lexicon": [tag]}),
            Res::Lexicon => json!({"description": tag, "phrases": [tag]}),
            Res::Anonymizer => json!({"description": tag, "mimic_casing": false}),
            Res::Search => json!({"description": tag, "query": {"query": {"match": {"text": tag}}}}),
        }
    }

    /// The `n`th patch (its fields answer as sent).
    fn patch_body(self, tag: &str, n: usize) -> Value {
        match self {
            Res::RegexTagger => json!({"lexicon": [tag, format!("p{n}")], "phrase_slop": n}),
            Res::Lexicon => json!({"phrases": [tag, format!("p{n}")], "discarded_phrases": [format!("d{n}")]}),
            Res::Anonymizer => json!({"misspelling_threshold": n as f64 / 10.0}),
            Res::Search => json!({"description": format!("{tag} p{n}")}),
        }
    }

    /// The whole answer for a resource created from `create_body(tag)`.
    fn created(self, url: &str, id: i64, author: &str, tag: &str) -> Value {
        match self {
            Res::RegexTagger => json!({"id": id, "url": url, "author_username": author, "description": tag,
                "lexicon": [tag], "counter_lexicon": [], "operator": "or", "match_type": "prefix", "required_words": 1.0,
                "phrase_slop": 0, "counter_slop": 0, "n_allowed_edits": 0, "return_fuzzy_match": true,
                "ignore_case": true, "ignore_punctuation": true, "tagger_groups": []}),
            Res::Lexicon => json!({"id": id, "url": url, "author_username": author, "description": tag,
                "phrases": [tag], "discarded_phrases": []}),
            Res::Anonymizer => json!({"id": id, "url": url, "description": tag, "replace_misspelled_names": true,
                "replace_single_last_names": true, "replace_single_first_names": true, "misspelling_threshold": 0.9,
                "mimic_casing": false, "auto_adjust_threshold": false}),
            Res::Search => json!({"id": id, "url": url, "author_username": author, "description": tag,
                "query": format!("{{\"query\": {{\"match\": {{\"text\": \"{tag}\"}}}}}}"), "query_constraints": "{}"}),
        }
    }
}

/// `base` with the keys of `patch` replaced.
fn merged(base: &Value, patch: &Value) -> Value {
    let mut out = base.clone();
    for (k, v) in patch.as_object().expect("patch is an object") {
        out[k] = v.clone();
    }
    out
}

/// A success with no sign of a locked database in the body.
#[track_caller]
fn ok(r: Resp, status: u16) -> Value {
    assert!(!r.text.contains("database is locked"), "locked: {}", r.text);
    r.ok(status)
}

/// What one client did to one resource: where it is and what it must answer (`None`: deleted).
struct Written {
    kind: Res,
    project: i64,
    id: i64,
    expected: Option<Value>,
}

/// An import a client started, and what it must look like once done.
struct Started {
    project: i64,
    id: i64,
    index: String,
    docs: usize,
    description: String,
}

/// One client's identity: its user and token, its own project.
struct Client {
    n: usize,
    username: String,
    token: String,
    project: i64,
}

/// Everything a client did.
#[derive(Default)]
struct Log {
    written: Vec<Written>,
    imports: Vec<Started>,
}

/// Client `c`'s `round`: four resources (own or shared project by turns), two patches
/// each, some deleted (by DELETE or bulk_delete), its field of a shared tagger, and an
/// import whose description it patches while the import runs.
fn round(s: &Server, c: &Client, shared: i64, shared_taggers: &[i64], round: usize, log: &mut Log) {
    let token = Some(c.token.as_str());
    for (k, kind) in KINDS.into_iter().enumerate() {
        let project = if (round + k).is_multiple_of(2) { c.project } else { shared };
        let tag = format!("c{}r{round}k{k}", c.n);
        let collection = format!("/projects/{project}/{}/", kind.route());
        let created = ok(s.post(&collection, token, &kind.create_body(&tag)), 201);
        let id = created["id"].as_i64().expect("id");
        let path = format!("{collection}{id}/");
        let mut expected = kind.created(&format!("{}{path}", s.base), id, &c.username, &tag);
        assert_eq!(created, expected);
        for n in 1..=2 {
            let patch = kind.patch_body(&tag, n);
            expected = merged(&expected, &patch);
            assert_eq!(ok(s.patch(&path, token, &patch), 200), expected);
        }
        let expected = match (c.n + round + k) % 3 {
            0 => {
                let r = s.delete(&path, token);
                assert_eq!((r.status, r.text.as_str()), (204, ""), "DELETE {path}");
                None
            }
            1 if round % 2 == 1 => {
                let deleted = ok(s.post(&format!("{collection}bulk_delete/"), token, &json!({"ids": [id]})), 200);
                assert_eq!(deleted, json!({"num_deleted": 1, "deleted_types": {kind.label(): 1}}));
                None
            }
            _ => Some(expected),
        };
        log.written.push(Written {
            kind,
            project,
            id,
            expected,
        });
    }

    let field = SHARED_FIELDS[c.n % 4];
    let value = if field == "counter_lexicon" {
        json!([format!("r{round}")])
    } else {
        json!(round)
    };
    let tagger = shared_taggers[c.n / 4];
    let answer = ok(
        s.patch(
            &format!("/projects/{shared}/regex_taggers/{tagger}/"),
            token,
            &json!({field: value}),
        ),
        200,
    );
    assert_eq!(answer[field], value, "my own field of shared tagger {tagger}");

    let project = if round.is_multiple_of(2) { c.project } else { shared };
    let index = format!("cw_{}_{round}", c.n);
    let docs = 1 + (c.n * 7 + round) % 5;
    let content: String = (0..docs)
        .map(|i| format!("{}\n", json!({"text": format!("{index} document {i}")})))
        .collect();
    let collection = format!("/projects/{project}/dataset_imports/");
    let created = ok(
        s.upload(
            &collection,
            &c.token,
            &[("description", "started"), ("index", &index)],
            content.into_bytes(),
            "d.jsonl",
        ),
        201,
    );
    let mut import = Started {
        project,
        id: created["id"].as_i64().expect("id"),
        index,
        docs,
        description: "started".into(),
    };
    assert_eq!(normalize(&created), import.body(s, &c.username, &created["task"]));
    import.description = format!("{} running", import.index);
    let patched = ok(s.patch(&import.path(), token, &json!({"description": import.description})), 200);
    assert_eq!(patched["description"], json!(import.description));
    log.imports.push(import);
}

impl Started {
    fn path(&self) -> String {
        format!("/projects/{}/dataset_imports/{}/", self.project, self.id)
    }

    /// The whole (normalised) answer with the task `task` (its id and status): just
    /// created, or completed with every document read.
    fn body(&self, s: &Server, author: &str, task: &Value) -> Value {
        let (task, docs) = match task["status"].as_str() {
            Some("completed") => (
                json!({"id": task["id"], "status": "completed", "progress": 100.0, "step": "", "errors": "[]",
                    "time_started": "<ts>", "last_update": "<ts>", "time_completed": "<ts>", "total": self.docs,
                    "num_processed": self.docs}),
                self.docs,
            ),
            _ => (
                json!({"id": task["id"], "status": "created", "progress": 0.0, "step": "", "errors": "[]",
                    "time_started": "<ts>", "last_update": null, "time_completed": null, "total": 0, "num_processed": 0}),
                0,
            ),
        };
        json!({"id": self.id, "url": format!("{}{}", s.base, self.path()), "author_username": author,
               "description": self.description, "index": self.index, "separator": ",", "num_documents": docs,
               "num_documents_success": docs, "task": task})
    }
}

#[test]
fn thirty_two_clients_write_at_once() {
    let started = std::time::Instant::now();
    let rounds = rounds();
    let s = Server::start();
    let admin = s.admin_token();

    // Registration and a project per client, all at once.
    let clients: Vec<Client> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..CLIENTS)
            .map(|n| {
                let (s, admin) = (&s, &admin);
                scope.spawn(move || {
                    let username = format!("client{n}");
                    let token = s.register(&username);
                    let me = s.me(&token);
                    let project = s.create_project(admin, &username, &[me["url"].as_str().unwrap()])["id"]
                        .as_i64()
                        .unwrap();
                    Client {
                        n,
                        username,
                        token,
                        project,
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("client set up")).collect()
    });
    let user_urls: Vec<String> = clients
        .iter()
        .map(|c| s.me(&c.token)["url"].as_str().unwrap().to_string())
        .collect();
    let urls: Vec<&str> = user_urls.iter().map(String::as_str).collect();
    let shared = s.create_project(&admin, "shared", &urls)["id"].as_i64().unwrap();
    let shared_taggers: Vec<i64> = (0..SHARED_TAGGERS)
        .map(|i| {
            let body = json!({"description": format!("shared{i}"), "lexicon": ["ühine"]});
            ok(s.post(&format!("/projects/{shared}/regex_taggers/"), Some(&admin), &body), 201)["id"]
                .as_i64()
                .unwrap()
        })
        .collect();

    // The writers.
    let barrier = std::sync::Barrier::new(CLIENTS);
    let logs: Vec<Log> = std::thread::scope(|scope| {
        let handles: Vec<_> = clients
            .iter()
            .map(|c| {
                let (s, barrier, shared_taggers) = (&s, &barrier, &shared_taggers);
                scope.spawn(move || {
                    let mut log = Log::default();
                    barrier.wait();
                    for r in 0..rounds {
                        round(s, c, shared, shared_taggers, r, &mut log);
                    }
                    log
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("client ran")).collect()
    });
    let written_at = started.elapsed();

    // Every resource as last written, or gone; every list holds exactly the survivors.
    let mut listed: BTreeMap<(i64, &str), BTreeSet<i64>> = BTreeMap::new();
    let mut ids: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for w in logs.iter().flat_map(|l| &l.written) {
        let path = format!("/projects/{}/{}/{}/", w.project, w.kind.route(), w.id);
        ids.entry(w.kind.route()).or_default().push(w.id);
        let entry = listed.entry((w.project, w.kind.route())).or_default();
        match &w.expected {
            Some(body) => {
                assert_eq!(ok(s.get(&path, Some(&admin)), 200), *body, "{path}");
                entry.insert(w.id);
            }
            None => s.get(&path, Some(&admin)).expect(404, json!({"detail": "Not found."})),
        }
    }
    for ((project, route), survivors) in &listed {
        let page = ok(s.get(&format!("/projects/{project}/{route}/?page_size=1000"), Some(&admin)), 200);
        // Saved searches are listed whole (a plain array), the rest in pages.
        let items = page.get("results").unwrap_or(&page);
        let mut on_page: Vec<i64> = items.as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
        if page.is_object() {
            assert_eq!(page["count"], json!(on_page.len()), "{route} of project {project}");
        }
        if *project == shared && *route == "regex_taggers" {
            on_page.retain(|id| !shared_taggers.contains(id));
        }
        assert_eq!(
            on_page,
            survivors.iter().copied().collect::<Vec<_>>(),
            "{route} of project {project}"
        );
    }
    // Ids count per kind: the clients got 1..=n between them, none twice.
    for (route, mut got) in ids {
        got.sort_unstable();
        let first = if route == "regex_taggers" { SHARED_TAGGERS as i64 + 1 } else { 1 };
        let want: Vec<i64> = (first..first + got.len() as i64).collect();
        assert_eq!(got, want, "ids of {route}");
    }

    // Shared taggers: every writer's field holds its last value.
    let last = rounds - 1;
    for (i, tagger) in shared_taggers.iter().enumerate() {
        let url = format!("/projects/{shared}/regex_taggers/{tagger}/");
        let base = Res::RegexTagger.created(&format!("{}{url}", s.base), *tagger, "admin", &format!("shared{i}"));
        let want = merged(
            &base,
            &json!({"lexicon": ["ühine"], "phrase_slop": last, "counter_slop": last, "n_allowed_edits": last,
                    "counter_lexicon": [format!("r{last}")]}),
        );
        assert_eq!(ok(s.get(&url, Some(&admin)), 200), want);
    }

    // Imports: each completed with its documents, its description as patched, its index
    // in its project.
    let mut project_indices: BTreeMap<i64, BTreeSet<String>> = BTreeMap::new();
    for (c, log) in clients.iter().zip(&logs) {
        for imp in &log.imports {
            let done = s.settle(&c.token, &imp.path());
            let completed = json!({"id": done["task"]["id"], "status": "completed"});
            assert_eq!(normalize(&done), imp.body(&s, &c.username, &completed));
            let query = json!({"query": {"query": {"match_all": {}}}, "indices": [imp.index]});
            let found = ok(
                s.post(&format!("/projects/{}/search_by_query/", imp.project), Some(&c.token), &query),
                200,
            );
            assert_eq!(found["count"], json!(imp.docs), "documents in {}", imp.index);
            project_indices.entry(imp.project).or_default().insert(imp.index.clone());
        }
    }
    for (project, want) in project_indices {
        let got: BTreeSet<String> =
            serde_json::from_value(ok(s.get(&format!("/projects/{project}/"), Some(&admin)), 200)["indices"].clone()).unwrap();
        assert_eq!(got, want, "indices of project {project}");
    }

    // Tasks: one per import, all ended.
    let tasks = ok(s.get("/tasks/", Some(&admin)), 200);
    let statuses: BTreeMap<String, usize> = tasks.as_array().unwrap().iter().fold(BTreeMap::new(), |mut m, t| {
        *m.entry(format!("{} {}", t["kind"].as_str().unwrap(), t["status"].as_str().unwrap()))
            .or_default() += 1;
        m
    });
    assert_eq!(
        statuses,
        BTreeMap::from([("dataset_import completed".to_string(), CLIENTS * rounds)])
    );

    let stderr = s.stderr();
    for bad in ["database is locked", "panicked", "could not record"] {
        assert!(!stderr.contains(bad), "server stderr has {bad:?}:\n{stderr}");
    }
    eprintln!(
        "{CLIENTS} clients x {rounds} rounds: written in {:.1?}, checked in {:.1?}",
        written_at,
        started.elapsed() - written_at
    );
}
