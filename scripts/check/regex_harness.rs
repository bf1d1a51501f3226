//! Matcher harness for `regex_differential.py`: reads `{"config": {...}, "text": "..."}`
//! lines (config = the regex tagger request fields) and prints, per line, `{"matches": [...]}`
//! from the engine's `Matcher`, or `{"error": "..."}`. Compiled against the release
//! `libta.rlib` by `regex_differential.sh`.
use std::io::{BufRead, Write};
use ta::engine::regex_tagger::{Matcher, MatcherConfig};

fn main() {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in std::io::stdin().lock().lines() {
        let case: serde_json::Value = serde_json::from_str(&line.expect("readable input")).expect("a JSON case");
        let result = serde_json::from_value::<MatcherConfig>(case["config"].clone())
            .map_err(|e| e.to_string())
            .and_then(|cfg| Matcher::compile(&cfg).map_err(|e| e.to_string()))
            .and_then(|m| m.find(case["text"].as_str().unwrap_or_default()).map_err(|e| e.to_string()));
        let line = match result {
            Ok(matches) => serde_json::json!({ "matches": matches }),
            Err(e) => serde_json::json!({ "error": e }),
        };
        writeln!(out, "{line}").expect("writable output");
    }
}
