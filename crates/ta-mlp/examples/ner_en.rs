//! Drives the English NER for the checks in scripts/bench/mlp/ner/: reads JSONL on stdin,
//! writes one JSON line per input line.
//!
//! - `{"tokens": [...], "sent_starts": [...]}` (the package's own tokens) →
//!   `{"ents": [[first, last, label], ...]}` with the model's own labels (N1).
//! - `{"text": "..."}` → ta's tokens and the recognizer's entities:
//!   `{"tokens": [...], "ents": [[first, last, fact], ...]}` (N2), after the whole input is read
//!   and timed; the time for all texts goes to stderr as `seconds <s>` (N3), and the model's
//!   load time as `load_seconds <s>`.
//!
//! Usage: `ner_en <data_dir>` (the directory holding `mlp/`).

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Instant;

use serde_json::{json, Value};
use ta_mlp::ner::english::EnglishNer;
use ta_mlp::ner::Recognizer;
use ta_mlp::{Lang, MlpConfig, MlpEngine};

fn main() -> Result<(), String> {
    let data = std::env::args().nth(1).ok_or("usage: ner_en <data_dir>")?;
    let data = Path::new(&data);
    let start = Instant::now();
    let ner = EnglishNer::load(&data.join("mlp/en/ner"))?;
    eprintln!("load_seconds {}", start.elapsed().as_secs_f64());
    let lines: Vec<Value> = std::io::stdin()
        .lock()
        .lines()
        .map(|l| serde_json::from_str(&l.map_err(|e| e.to_string())?).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    if lines.first().is_some_and(|l| l.get("text").is_some()) {
        let cfg = MlpConfig {
            languages: vec![Lang::En],
            default_language: Lang::En,
            ..Default::default()
        };
        let engine = MlpEngine::load(data, cfg);
        let start = Instant::now();
        let results: Vec<(Vec<Vec<String>>, Vec<_>)> = lines
            .iter()
            .map(|l| {
                let sentences = engine.tokenize(l["text"].as_str().unwrap_or(""), Lang::En);
                let refs: Vec<Vec<&str>> = sentences.iter().map(|s| s.iter().map(String::as_str).collect()).collect();
                let ents = ner.entities(&refs);
                (sentences, ents)
            })
            .collect();
        eprintln!("seconds {}", start.elapsed().as_secs_f64());
        for (sentences, ents) in results {
            let tokens: Vec<&String> = sentences.iter().flatten().collect();
            let ents: Vec<Value> = ents.iter().map(|e| json!([e.first, e.last, e.kind.fact()])).collect();
            writeln!(out, "{}", json!({"tokens": tokens, "ents": ents})).map_err(|e| e.to_string())?;
        }
    } else {
        for l in &lines {
            let tokens = strings(&l["tokens"]);
            let refs: Vec<&str> = tokens.iter().map(String::as_str).collect();
            let starts: Vec<bool> = l["sent_starts"]
                .as_array()
                .map(|a| a.iter().map(|b| b.as_bool().unwrap_or(false)).collect())
                .unwrap_or_else(|| vec![false; refs.len()]);
            let ents: Vec<Value> = ner
                .parse(&refs, &starts)
                .iter()
                .map(|e| json!([e.first, e.last, e.label]))
                .collect();
            writeln!(out, "{}", json!({"ents": ents})).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
