//! Runs every case of `tests/conformance/anonymizer.jsonl` through the engine API with the case's replacers.
//!
//! Requests are trimmed first, as the HTTP validation layer does (DRF `CharField`). Cases expecting a 400 on
//! `names` check that [`NameList::parse`] rejects the names; other 400 cases (blank `text`) belong to the
//! request validation layer and are skipped here.

use serde_json::Value;

use super::{Anonymizer, AnonymizerConfig, NameList};

const CASES: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/conformance/anonymizer.jsonl"));
const SKIPPED: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/conformance/skipped-shared.json"));

enum Outcome {
    Pass,
    Skip,
    Fail(String),
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

fn replacer_lists(case: &Value) -> Vec<Vec<String>> {
    case["replacers"]
        .as_array()
        .map(|a| a.iter().map(strings).collect())
        .unwrap_or_default()
}

fn run_case(case: &Value) -> Outcome {
    let request = &case["request"];
    let parsed = NameList::parse(&strings(&request["names"]));
    if case["expected_status"] != 200 {
        let on_names = case["expected"].get("names").is_some();
        return match (on_names, parsed) {
            (false, _) => Outcome::Skip,
            (true, Err(_)) => Outcome::Pass,
            (true, Ok(_)) => Outcome::Fail("names accepted, expected a validation error".into()),
        };
    }
    let names = match parsed {
        Ok(n) => n,
        Err(e) => return Outcome::Fail(format!("names rejected: {e}")),
    };
    let cfg: AnonymizerConfig = serde_json::from_value(case["anonymizer"].clone()).expect("anonymizer config");
    let anonymizer = Anonymizer::new(&cfg, &names);
    let replacers = replacer_lists(case);
    let got = match case["endpoint"].as_str() {
        Some("anonymize_text") => {
            let text = request["text"].as_str().unwrap_or_default().trim();
            anonymizer.anonymize_text(text, Some(&replacers[0])).map(Value::from)
        }
        _ => {
            let texts: Vec<String> = strings(&request["texts"]).iter().map(|t| t.trim().to_string()).collect();
            let consistent = request["consistent_replacement"].as_bool().unwrap_or(true);
            anonymizer.anonymize_texts(&texts, consistent, Some(&replacers)).map(Value::from)
        }
    };
    match got {
        Ok(v) if v == case["expected"] => Outcome::Pass,
        Ok(v) => Outcome::Fail(format!("\n    expected {}\n    got      {}", case["expected"], v)),
        Err(e) => Outcome::Fail(format!("replacers rejected: {e}")),
    }
}

#[test]
fn anonymizer_conformance() {
    let (mut passed, mut skipped, mut failures) = (0, Vec::new(), Vec::new());
    for line in CASES.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("case json");
        let id = case["id"].as_str().unwrap_or("?").to_string();
        match run_case(&case) {
            Outcome::Pass => passed += 1,
            Outcome::Skip => skipped.push(id),
            Outcome::Fail(diff) => failures.push(format!("{id}: {diff}")),
        }
    }
    println!("anonymizer conformance: {passed} passed, {} failed", failures.len());
    println!("skipped (request validation layer: blank text): {}", skipped.join(", "));
    for f in &failures {
        println!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} anonymizer conformance case(s) failed", failures.len());
}

/// Inputs on which the reference raised: names with two commas must be a validation error, not a crash.
#[test]
fn reference_crashes_are_validation_errors() {
    let skipped: Value = serde_json::from_str(SKIPPED).expect("skipped json");
    let cases = skipped["anonymizer.jsonl"].as_array().expect("anonymizer list");
    assert!(!cases.is_empty());
    for entry in cases {
        let names = strings(&entry["case"]["request"]["names"]);
        assert!(NameList::parse(&names).is_err(), "{}: names accepted", entry["id"]);
    }
}
