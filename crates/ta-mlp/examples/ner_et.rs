//! Drives the Estonian recognizer for the NER checks (scripts/bench/mlp/ner/): JSONL in on
//! stdin, one JSON line out per input line.
//!
//! `ner_et DATA_DIR analysed`: each line holds estnltk's words (`text`, `words` as
//! `[start, end]`, `sentences` as word counts, `analyses` per word); out: `{"labels": [...],
//! "features": [[...]]}` from ta's feature extraction and CRF, and ta's own analyses of the
//! same words with the labels they give (`ta_analyses`, `ta_analyses_labels`).
//! `ner_et DATA_DIR text`: each line is `{"text": ...}`; out: ta's tokens, its entities as
//! `[first, last, type]` token runs and the seconds tokenizing and recognizing took.
//!
//! DATA_DIR holds `mlp/` (e.g. `$TA_MLP_DATA`).

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Instant;

use serde_json::{json, Value};
use ta_mlp::ner::estonian::{Analysis, EstonianNer, Word};
use ta_mlp::ner::Recognizer;
use ta_mlp::{Lang, MlpConfig, MlpEngine};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, data, mode] = &args[..] else {
        return Err("usage: ner_et DATA_DIR analysed|text".into());
    };
    let data = Path::new(data);
    let start = Instant::now();
    let ner = EstonianNer::load(&data.join("mlp/et/ner"))?;
    eprintln!("ner_et: recognizer loaded in {:.3} s", start.elapsed().as_secs_f64());
    let engine = (mode == "text").then(|| {
        let cfg = MlpConfig {
            languages: vec![Lang::Et],
            et_instances: 1,
            ..MlpConfig::default()
        };
        MlpEngine::load(data, cfg)
    });
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| e.to_string())?;
        let input: Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        let result = match &engine {
            Some(engine) => recognize(&ner, engine, &input),
            None => analysed(&ner, &input),
        }?;
        writeln!(out, "{result}").map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn text_of(input: &Value) -> Result<&str, String> {
    input["text"].as_str().ok_or_else(|| "a line without \"text\"".to_string())
}

/// Labels and feature strings for estnltk's words and analyses.
fn analysed(ner: &EstonianNer, input: &Value) -> Result<Value, String> {
    let text = text_of(input)?;
    let chars: Vec<char> = text.chars().collect();
    let spans = input["words"].as_array().ok_or("no \"words\"")?;
    let words: Vec<String> = spans
        .iter()
        .map(|s| {
            let (a, b) = (s[0].as_u64().unwrap_or(0) as usize, s[1].as_u64().unwrap_or(0) as usize);
            chars[a.min(chars.len())..b.min(chars.len())].iter().collect()
        })
        .collect();
    let analyses: Vec<Vec<Analysis>> = input["analyses"]
        .as_array()
        .ok_or("no \"analyses\"")?
        .iter()
        .map(|word| {
            word.as_array()
                .into_iter()
                .flatten()
                .map(|a| Analysis {
                    root_tokens: a["root_tokens"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|t| t.as_str().unwrap_or("").to_string())
                        .collect(),
                    ending: a["ending"].as_str().unwrap_or("").to_string(),
                    form: a["form"].as_str().unwrap_or("").to_string(),
                    partofspeech: a["partofspeech"].as_str().unwrap_or("").to_string(),
                })
                .collect()
        })
        .collect();
    let mut sentences: Vec<Vec<Word>> = Vec::new();
    let mut next = words.iter().zip(&analyses);
    for n in input["sentences"].as_array().ok_or("no \"sentences\"")? {
        let n = n.as_u64().unwrap_or(0) as usize;
        sentences.push(next.by_ref().take(n).map(|(text, analyses)| Word { text, analyses }).collect());
    }
    // the same words analysed by ta's Vabamorf instead
    let texts: Vec<Vec<&str>> = sentences.iter().map(|s| s.iter().map(|w| w.text).collect()).collect();
    let own = ner.analyse(&texts);
    let mut next = own.iter();
    let own_words: Vec<Vec<Word>> = texts
        .iter()
        .map(|s| {
            s.iter()
                .zip(next.by_ref())
                .map(|(text, analyses)| Word { text, analyses })
                .collect()
        })
        .collect();
    let own: Vec<Vec<Value>> = own
        .iter()
        .map(|word| {
            word.iter()
                .map(|a| json!({"root_tokens": a.root_tokens, "ending": a.ending, "form": a.form, "partofspeech": a.partofspeech}))
                .collect()
        })
        .collect();
    Ok(json!({
        "labels": ner.labels(&sentences),
        "features": ner.features(&sentences),
        "ta_analyses": own,
        "ta_analyses_labels": ner.labels(&own_words),
    }))
}

/// ta's tokens and entities for a raw text.
fn recognize(ner: &EstonianNer, engine: &MlpEngine, input: &Value) -> Result<Value, String> {
    let text = text_of(input)?;
    let start = Instant::now();
    let tokens = engine.tokenize(text, Lang::Et);
    let sentences: Vec<Vec<&str>> = tokens.iter().map(|s| s.iter().map(String::as_str).collect()).collect();
    let entities = ner.entities(&sentences);
    let seconds = start.elapsed().as_secs_f64();
    let entities: Vec<Value> = entities.iter().map(|e| json!([e.first, e.last, e.kind.fact()])).collect();
    Ok(json!({"tokens": tokens.concat(), "entities": entities, "seconds": seconds}))
}
