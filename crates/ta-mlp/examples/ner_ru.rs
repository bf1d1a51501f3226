//! The Russian NER for the bench (scripts/bench/mlp/ner/): reads JSONL on stdin, writes one
//! JSON line per input line, and the timing (load excluded) on stderr.
//!
//! `ner_ru DATA_DIR tags`: a line is a JSON list of tokens (one text); out: their BIO tags.
//! `ner_ru DATA_DIR texts`: a line is a JSON string (a text), tokenized by ta; out:
//! `{"tokens": [...], "entities": [[type, first, last], ...]}` (token indexes, inclusive).

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Instant;

use serde_json::{json, Value};
use ta_mlp::ner::russian::RussianNer;
use ta_mlp::ner::Recognizer;
use ta_mlp::{Lang, MlpConfig, MlpEngine};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, data, mode] = &args[..] else {
        return Err("usage: ner_ru DATA_DIR tags|texts".into());
    };
    let data = Path::new(data);
    let lines: Vec<Value> = std::io::stdin()
        .lock()
        .lines()
        .map(|l| serde_json::from_str(&l.map_err(|e| e.to_string())?).map_err(|e| e.to_string()))
        .collect::<Result<_, String>>()?;
    let started = Instant::now();
    let ner = RussianNer::load(&data.join("mlp/ru/ner"))?;
    let loaded = started.elapsed();
    let started = Instant::now();
    let out: Vec<Value> = match mode.as_str() {
        "tags" => lines
            .iter()
            .map(|l| {
                let tokens: Vec<&str> = l.as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                json!(ner.tags(&tokens))
            })
            .collect(),
        "texts" => {
            let cfg = MlpConfig {
                languages: vec![Lang::Ru],
                default_language: Lang::Ru,
                ..MlpConfig::default()
            };
            let engine = MlpEngine::load(data, cfg);
            let started = Instant::now();
            let out = lines
                .iter()
                .map(|l| {
                    let sentences = engine.tokenize(l.as_str().unwrap_or(""), Lang::Ru);
                    let sentences: Vec<Vec<&str>> = sentences.iter().map(|s| s.iter().map(String::as_str).collect()).collect();
                    let tokens: Vec<&str> = sentences.iter().flatten().copied().collect();
                    let entities: Vec<Value> = ner
                        .entities(&sentences)
                        .iter()
                        .map(|e| json!([e.kind.fact(), e.first, e.last]))
                        .collect();
                    json!({"tokens": tokens, "entities": entities})
                })
                .collect();
            eprintln!("tokenize+ner: {} texts in {:.3} s", lines.len(), started.elapsed().as_secs_f64());
            out
        }
        _ => return Err(format!("unknown mode {mode}")),
    };
    let elapsed = started.elapsed();
    eprintln!(
        "load: {:.3} s; {} lines in {:.3} s",
        loaded.as_secs_f64(),
        lines.len(),
        elapsed.as_secs_f64()
    );
    let mut stdout = std::io::stdout().lock();
    for v in out {
        writeln!(stdout, "{v}").map_err(|e| e.to_string())?;
    }
    Ok(())
}
