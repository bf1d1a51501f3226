//! Replays the reference-generated engine cases (`tests/conformance/regex_tagger.jsonl`,
//! `regex_tagger_group.jsonl`, `anonymizer.jsonl`) through the HTTP API of a real
//! `ta serve`: a fresh project per case, the case's taggers/groups/anonymizer created over
//! HTTP, the endpoint called, and the response compared with the expected JSON.
use crate::common;

use common::Server;
use serde_json::{json, Value};

fn cases(file: &str) -> Vec<Value> {
    let path = format!("{}/tests/conformance/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("case is JSON"))
        .collect()
}

/// Replace `$TAGGER_ID[i]`, `$GROUP_ID`, `$GROUP_ID[i]` strings by the created ids.
fn substitute(v: &Value, taggers: &[i64], groups: &[i64]) -> Value {
    match v {
        Value::String(s) => {
            let id = |name: &str, ids: &[i64]| -> Option<i64> {
                if s == name {
                    return ids.first().copied();
                }
                let idx = s.strip_prefix(name)?.strip_prefix('[')?.strip_suffix(']')?.parse::<usize>().ok()?;
                ids.get(idx).copied()
            };
            match id("$TAGGER_ID", taggers).or_else(|| id("$GROUP_ID", groups)) {
                Some(i) => json!(i),
                None => Value::String(s.replace("$GROUP_ID", &groups.first().map(|g| g.to_string()).unwrap_or_default())),
            }
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute(x, taggers, groups)).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), substitute(x, taggers, groups))).collect()),
        other => other.clone(),
    }
}

struct Run<'a> {
    server: &'a Server,
    token: String,
    passed: usize,
    failed: Vec<String>,
    skipped: usize,
}

impl Run<'_> {
    fn create(&self, path: &str, body: &Value) -> i64 {
        let r = self.server.post(path, Some(&self.token), body);
        assert_eq!(r.status, 201, "{path}: {}", r.text);
        r.json()["id"].as_i64().expect("id")
    }

    fn case(&mut self, c: &Value) {
        let endpoint = c["endpoint"].as_str().unwrap_or_default();
        let pk = self.server.create_project(&self.token, "case", &[])["id"]
            .as_i64()
            .expect("project id");
        let p = format!("/projects/{pk}");
        let tagger_defs: Vec<Value> = match (&c["tagger"], &c["taggers"]) {
            _ if endpoint == "create" => vec![],
            (Value::Object(_), _) => vec![c["tagger"].clone()],
            (_, Value::Array(a)) => a.clone(),
            _ => vec![],
        };
        let taggers: Vec<i64> = tagger_defs.iter().map(|t| self.create(&format!("{p}/regex_taggers/"), t)).collect();
        let group_defs: Vec<Value> = match (&c["group"], &c["groups"]) {
            (Value::Object(_), _) => vec![c["group"].clone()],
            (_, Value::Array(a)) => a.clone(),
            _ => vec![],
        };
        let mut groups = Vec::new();
        for g in &group_defs {
            let body = substitute(g, &taggers, &groups);
            groups.push(self.create(&format!("{p}/regex_tagger_groups/"), &body));
        }
        let mut request = substitute(&c["request"], &taggers, &groups);
        let path = match endpoint {
            "create" => format!("{p}/regex_taggers/"),
            "tag_text" | "tag_texts" | "tag_doc" => {
                format!("{p}/regex_taggers/{}/{endpoint}/", taggers[0])
            }
            "multitag_text" => format!("{p}/regex_taggers/multitag_text/"),
            "group_multitag_text" => format!("{p}/regex_tagger_groups/multitag_text/"),
            e if e.starts_with("group_") => {
                format!("{p}/regex_tagger_groups/{}/{}/", groups[0], &e[6..])
            }
            "apply_tagger_group" => return self.apply(c, &p, groups[0], &request),
            "anonymize_text" | "anonymize_texts" => {
                let id = self.create(&format!("{p}/anonymizers/"), &c["anonymizer"]);
                request["replacers"] = c["replacers"].clone();
                format!("{p}/anonymizers/{id}/{endpoint}/")
            }
            other => panic!("unknown endpoint {other}"),
        };
        let r = self.server.post(&path, Some(&self.token), &request);
        let status = c["expected_status"].as_i64().unwrap_or(200) as u16;
        let expected = substitute(&c["expected"], &taggers, &groups);
        let ok = r.status == status
            && match status {
                400 => {
                    let mut got: Vec<String> = r.json().as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
                    let mut want: Vec<String> = expected.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
                    got.sort();
                    want.sort();
                    got == want
                }
                _ => r.json() == expected,
            };
        if ok {
            self.passed += 1;
        } else {
            self.failed.push(format!(
                "{}: {} {}\n  expected {} {}\n  got      {} {}",
                c["id"], path, request, status, expected, r.status, r.text
            ));
        }
    }
}

impl Run<'_> {
    /// Index the case's documents, apply the group, wait for its task, and compare every
    /// document afterwards (`texta_facts` as a set).
    fn apply(&mut self, c: &Value, p: &str, group: i64, request: &Value) {
        let index = request["indices"][0]["name"].as_str().expect("index name").to_string();
        let docs: Vec<Value> = c["index_documents"]
            .as_array()
            .expect("index_documents")
            .iter()
            .map(|d| json!({"_index": index, "_id": d["id"], "_source": d["source"]}))
            .collect();
        let r = self
            .server
            .post(&format!("{p}/elastic/documents/"), Some(&self.token), &json!({"documents": docs}));
        assert_eq!(r.status, 200, "index documents: {}", r.text);
        let path = format!("{p}/regex_tagger_groups/{group}/apply_tagger_group/");
        let r = self.server.post(&path, Some(&self.token), request);
        let expected = substitute(&c["expected"], &[], &[group]);
        let mut problems = Vec::new();
        if r.status != 200 || r.json() != expected["response"] {
            problems.push(format!("response {} {}", r.status, r.text));
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let g = self
                .server
                .get(&format!("{p}/regex_tagger_groups/{group}/"), Some(&self.token))
                .json();
            match g["task"]["status"].as_str() {
                Some("completed") => break,
                Some("failed") => {
                    problems.push(format!("task failed: {}", g["task"]["errors"]));
                    break;
                }
                _ if std::time::Instant::now() > deadline => {
                    problems.push("task did not finish".into());
                    break;
                }
                _ => std::thread::sleep(std::time::Duration::from_millis(50)),
            }
        }
        for d in expected["documents_after"].as_array().into_iter().flatten() {
            let id = d["id"].as_str().expect("doc id");
            let got = self
                .server
                .get(&format!("{p}/elastic/documents/{index}/{id}/"), Some(&self.token))
                .json();
            if normalise_facts(&got["_source"]) != normalise_facts(&d["source"]) {
                problems.push(format!("document {id}: expected {} got {}", d["source"], got["_source"]));
            }
        }
        if problems.is_empty() {
            self.passed += 1;
        } else {
            self.failed.push(format!("{}: {}", c["id"], problems.join("\n  ")));
        }
    }
}

/// A source with `texta_facts` sorted, so facts compare as a set.
fn normalise_facts(source: &Value) -> Value {
    let mut s = source.clone();
    if let Some(Value::Array(facts)) = s.get_mut("texta_facts") {
        facts.sort_by_key(|f| f.to_string());
    }
    s
}

#[test]
fn reference_cases_over_http() {
    let server = Server::start();
    let token = server.admin_token();
    let mut run = Run {
        server: &server,
        token,
        passed: 0,
        failed: Vec::new(),
        skipped: 0,
    };
    for file in ["regex_tagger.jsonl", "regex_tagger_group.jsonl", "anonymizer.jsonl"] {
        for c in cases(file) {
            run.case(&c);
        }
    }
    for f in &run.failed {
        eprintln!("FAILED {f}");
    }
    println!(
        "case conformance (http): {} passed, {} failed, {} skipped",
        run.passed,
        run.failed.len(),
        run.skipped
    );
    assert!(run.failed.is_empty(), "{} cases failed", run.failed.len());
}
