//! Runs the shared conformance cases (`conformance/regex_tagger*.jsonl`) through the engine API.
//!
//! Request texts are trimmed and blank-checked here the way the validation layer does it. Skipped
//! (pure generic-field validation, owned by the HTTP layer): `create` cases whose expected error
//! is a blank lexicon entry. `create` cases on `operator`/`match_type` are checked as
//! deserialization failures of [`MatcherConfig`]; regex and empty-lexicon errors via
//! [`Matcher::compile`]. Tagger ids are 1, 2, … and group ids 1, 2, … in creation order.

use serde_json::{json, Map, Value};

use super::ops::{self, Group, Member};
use super::{Matcher, MatcherConfig};

const CASE_FILES: [&str; 2] = [
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/conformance/regex_tagger.jsonl"),
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/conformance/regex_tagger_group.jsonl"),
];

enum Outcome {
    Pass,
    Skip,
    Fail(String),
}

struct Tagger {
    id: i64,
    description: String,
    matcher: Matcher,
}

#[test]
fn regex_conformance() {
    let (mut passed, mut skipped, mut failures) = (0, 0, Vec::new());
    for file in CASE_FILES {
        let content = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {}", file, e));
        for line in content.lines().filter(|l| !l.trim().is_empty()) {
            let case: Value = serde_json::from_str(line).expect("case is JSON");
            let id = case["id"].as_str().unwrap_or("?").to_string();
            match std::panic::catch_unwind(|| run_case(&case)) {
                Ok(Outcome::Pass) => passed += 1,
                Ok(Outcome::Skip) => skipped += 1,
                Ok(Outcome::Fail(diff)) => failures.push(format!("{}: {}", id, diff)),
                Err(_) => failures.push(format!("{}: panicked", id)),
            }
        }
    }
    for f in &failures {
        println!("FAIL {}", f);
    }
    println!(
        "regex conformance: {} passed, {} failed ({} skipped)",
        passed,
        failures.len(),
        skipped
    );
    assert!(failures.is_empty(), "{} conformance failures", failures.len());
}

fn run_case(case: &Value) -> Outcome {
    let endpoint = case["endpoint"].as_str().unwrap();
    if endpoint == "create" {
        return run_create(case);
    }
    let taggers: Vec<Tagger> = tagger_specs(case)
        .iter()
        .enumerate()
        .map(|(i, spec)| build_tagger(i as i64 + 1, spec))
        .collect();
    let ids = Ids {
        taggers: taggers.len(),
        groups: group_specs(case).len(),
    };
    let request = ids.substitute(&case["request"]);
    let expected = ids.substitute(&case["expected"]);
    let status = case["expected_status"].as_i64().unwrap();
    let actual = match endpoint {
        "tag_text" | "tag_texts" | "tag_doc" | "multitag_text" => run_tagger_endpoint(endpoint, &taggers, &request),
        _ => run_group_endpoint(endpoint, case, &ids, &taggers, &request),
    };
    compare(status, &expected, actual)
}

fn compare(status: i64, expected: &Value, actual: Result<Value, Value>) -> Outcome {
    match (status, actual) {
        (200, Ok(v)) if &v == expected => Outcome::Pass,
        (400, Err(e)) if keys(&e) == keys(expected) => Outcome::Pass,
        (_, Ok(v)) => Outcome::Fail(format!("\n  expected {} {}\n  actual   200 {}", status, expected, v)),
        (_, Err(e)) => Outcome::Fail(format!("\n  expected {} {}\n  actual   400 {}", status, expected, e)),
    }
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default();
    k.sort();
    k
}

fn run_create(case: &Value) -> Outcome {
    let request = &case["request"];
    let blank_entry = ["lexicon", "counter_lexicon"].iter().any(|f| {
        request[f]
            .as_array()
            .is_some_and(|a| a.iter().any(|e| e.as_str().is_some_and(|s| s.trim().is_empty())))
    });
    if blank_entry {
        return Outcome::Skip;
    }
    let result = match serde_json::from_value::<MatcherConfig>(request.clone()) {
        Err(e) => {
            let field = if e.to_string().contains("variant") {
                bad_choice_field(request)
            } else {
                "?"
            };
            Err(json!({ field: [e.to_string()] }))
        }
        Ok(cfg) => match Matcher::compile(&cfg) {
            Ok(_) => Ok(json!({})),
            Err(e) => Err(json!({ e.field: [e.message] })),
        },
    };
    compare(case["expected_status"].as_i64().unwrap(), &case["expected"], result)
}

/// The choice field holding an invalid value.
fn bad_choice_field(request: &Value) -> &'static str {
    let valid_operator = matches!(request["operator"].as_str(), None | Some("or" | "and"));
    if valid_operator {
        "match_type"
    } else {
        "operator"
    }
}

fn tagger_specs(case: &Value) -> Vec<Value> {
    match (&case["tagger"], &case["taggers"]) {
        (t, _) if t.is_object() => vec![t.clone()],
        (_, Value::Array(ts)) => ts.clone(),
        _ => Vec::new(),
    }
}

fn group_specs(case: &Value) -> Vec<Value> {
    match (&case["group"], &case["groups"]) {
        (g, _) if g.is_object() => vec![g.clone()],
        (_, Value::Array(gs)) => gs.clone(),
        _ => Vec::new(),
    }
}

fn build_tagger(id: i64, spec: &Value) -> Tagger {
    let cfg: MatcherConfig = serde_json::from_value(spec.clone()).expect("tagger config");
    let matcher = Matcher::compile(&cfg).expect("tagger compiles");
    Tagger {
        id,
        description: spec["description"].as_str().unwrap().to_string(),
        matcher,
    }
}

struct Ids {
    taggers: usize,
    groups: usize,
}

impl Ids {
    /// Replaces `$TAGGER_ID[i]`, `$GROUP_ID[i]` and `$GROUP_ID` placeholders by ids.
    fn substitute(&self, v: &Value) -> Value {
        let mut s = v.to_string();
        for i in 0..self.taggers {
            s = s.replace(&format!("\"$TAGGER_ID[{}]\"", i), &(i + 1).to_string());
        }
        for i in 0..self.groups.max(1) {
            s = s.replace(&format!("\"$GROUP_ID[{}]\"", i), &(i + 1).to_string());
        }
        s = s.replace("\"$GROUP_ID\"", "1").replace("$GROUP_ID", "1");
        serde_json::from_str(&s).unwrap()
    }
}

fn members(taggers: &[Tagger]) -> Vec<Member<'_>> {
    taggers.iter().map(|t| (t.id, t.description.as_str(), &t.matcher)).collect()
}

/// Validation-layer behaviour for `text`: trimmed, non-blank.
fn request_text(request: &Value) -> Result<String, Value> {
    let text = ta_text::pytext::strip(request["text"].as_str().unwrap_or(""));
    if text.is_empty() {
        return Err(json!({"text": ["This field may not be blank."]}));
    }
    Ok(text.to_string())
}

/// Validation-layer behaviour for `texts`: each trimmed, blank items rejected by index.
fn request_texts(request: &Value) -> Result<Vec<String>, Value> {
    let texts: Vec<String> = request["texts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| ta_text::pytext::strip(t.as_str().unwrap()).to_string())
        .collect();
    let blank: Map<String, Value> = texts
        .iter()
        .enumerate()
        .filter(|(_, t)| t.is_empty())
        .map(|(i, _)| (i.to_string(), json!(["This field may not be blank."])))
        .collect();
    if !blank.is_empty() {
        return Err(json!({ "texts": blank }));
    }
    Ok(texts)
}

fn fields(request: &Value) -> Vec<String> {
    serde_json::from_value(request["fields"].clone()).unwrap()
}

fn to_json<T: serde::Serialize>(v: T) -> Value {
    serde_json::to_value(v).unwrap()
}

fn run_tagger_endpoint(endpoint: &str, taggers: &[Tagger], request: &Value) -> Result<Value, Value> {
    let t = &taggers[0];
    let (id, tag, m) = (t.id, t.description.as_str(), &t.matcher);
    Ok(match endpoint {
        "tag_text" => to_json(ops::tag_text(id, tag, m, &request_text(request)?).unwrap()),
        "tag_texts" => to_json(ops::tag_texts(id, tag, m, &request_texts(request)?).unwrap()),
        "tag_doc" => to_json(ops::tag_doc(id, tag, m, &request["doc"], &fields(request)).unwrap()),
        _ => {
            let wanted: Vec<i64> = request["taggers"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_i64).collect())
                .unwrap_or_default();
            let selected: Vec<Member> = members(taggers)
                .into_iter()
                .filter(|(id, _, _)| wanted.is_empty() || wanted.contains(id))
                .collect();
            to_json(ops::multitag_text(&selected, &request_text(request)?).unwrap())
        }
    })
}

/// Members of each group (ascending tagger id), as (group id, description, members).
fn groups<'a>(case: &Value, ids: &Ids, taggers: &'a [Tagger]) -> Vec<(i64, String, Vec<Member<'a>>)> {
    group_specs(case)
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let spec = ids.substitute(spec);
            let wanted: Vec<i64> = spec["regex_taggers"].as_array().unwrap().iter().filter_map(Value::as_i64).collect();
            let members = members(taggers).into_iter().filter(|(id, _, _)| wanted.contains(id)).collect();
            (i as i64 + 1, spec["description"].as_str().unwrap().to_string(), members)
        })
        .collect()
}

fn run_group_endpoint(endpoint: &str, case: &Value, ids: &Ids, taggers: &[Tagger], request: &Value) -> Result<Value, Value> {
    let groups = groups(case, ids, taggers);
    let (gid, gdesc, members) = (groups[0].0, groups[0].1.as_str(), groups[0].2.as_slice());
    Ok(match endpoint {
        "group_tag_text" => to_json(ops::group_tag_text(gid, gdesc, members, &request_text(request)?).unwrap()),
        "group_tag_texts" => to_json(ops::group_tag_texts(gid, gdesc, members, &request_texts(request)?).unwrap()),
        "group_tag_doc" => to_json(ops::group_tag_doc(gid, gdesc, members, &request["doc"], &fields(request)).unwrap()),
        "group_multitag_text" => {
            let wanted: Vec<i64> = request["tagger_groups"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_i64).collect())
                .unwrap_or_default();
            let selected: Vec<Group> = groups
                .iter()
                .filter(|g| wanted.is_empty() || wanted.contains(&g.0))
                .map(|g| (g.0, g.1.as_str(), g.2.as_slice()))
                .collect();
            to_json(ops::group_multitag_text(&selected, &request_text(request)?).unwrap())
        }
        "apply_tagger_group" => apply(case, gid, gdesc, members, request),
        other => panic!("unknown endpoint {}", other),
    })
}

/// apply_tagger_group: the documents after the task, with `texta_facts` sorted for set comparison.
fn apply(case: &Value, gid: i64, gdesc: &str, members: &[Member], request: &Value) -> Value {
    let selected = |doc_id: &str| match &request["query"]["query"] {
        Value::Null => true,
        q if q.get("match_all").is_some() => true,
        q => q["ids"]["values"].as_array().expect("supported query").iter().any(|v| v == doc_id),
    };
    let fields = fields(request);
    let docs: Vec<Value> = case["index_documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|doc| {
            let mut doc = doc.clone();
            if selected(doc["id"].as_str().unwrap()) {
                ops::apply_group_to_doc(gdesc, members, &mut doc["source"], &fields).unwrap();
            }
            sort_facts(doc)
        })
        .collect();
    let message = format!("Started process of applying RegexTaggerGroup with id: {}", gid);
    let expected_docs: Vec<Value> = case["expected"]["documents_after"]
        .as_array()
        .unwrap()
        .iter()
        .cloned()
        .map(sort_facts)
        .collect();
    // The expected side is normalised the same way so that fact order does not matter.
    if docs == expected_docs {
        json!({"response": {"message": message}, "documents_after": case["expected"]["documents_after"]})
    } else {
        json!({"response": {"message": message}, "documents_after": docs})
    }
}

fn sort_facts(mut doc: Value) -> Value {
    if let Some(Value::Array(facts)) = doc["source"].get_mut("texta_facts") {
        facts.sort_by_key(|f| f.to_string());
    }
    doc
}
