//! Russian pipeline (mlp.md §10.5): the OpenCorpora dictionary (pymorphy3's top-ranked parse
//! per form) as an `fst` map form → analysis id, lemmas by suffix rewrite, UPOS from the
//! OpenCorpora tag.
//!
//! Data: `ru/forms.tsv` (form, cut, suffix, tag; sorted) from scripts/mlp-build-data.py. On
//! first load (or when the TSV is newer) it is compiled into `ru/forms.fst`, `ru/folded.fst`
//! (ё-forms under their е spelling), `ru/guess.fst` and `ru/analyses.json`, which later
//! loads read directly.
//!
//! Unknown words: like pymorphy's KnownSuffixAnalyzer, a suffix table learnt from the
//! dictionary at compile time. For every dictionary form and ending of 1–5 characters that
//! contains the whole form→lemma rewrite, the analysis of the form is counted under that
//! ending (closed classes excluded); `guess.fst` maps each ending seen at least twice to its
//! most frequent analysis. A Cyrillic word the dictionary lacks takes the analysis of its
//! longest known ending (shorter than the word itself).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, BufWriter};
use std::path::Path;

use fst::Map;

/// How `ru` tags are written: UPOS (ta default) or the reference's all-`X`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RuPos {
    #[default]
    Upos,
    X,
}

/// One distinct analysis: chars to cut from the form's end, suffix to add, UPOS.
type Analysis = (usize, String, String);

pub struct Russian {
    forms: Map<Vec<u8>>,
    /// Word ending → analysis for unknown words (see the module doc).
    guess: Map<Vec<u8>>,
    /// Forms spelled with `ё`, keyed by their `е` spelling (texts rarely write `ё`).
    folded: Map<Vec<u8>>,
    analyses: Vec<Analysis>,
    pos_mode: RuPos,
}

const SCONJ: &[&str] = &[
    "что",
    "чтобы",
    "если",
    "когда",
    "как",
    "потому",
    "хотя",
    "пока",
    "ли",
    "будто",
    "словно",
    "раз",
    "поскольку",
    "ибо",
    "чем",
    "дабы",
    "едва",
];

/// UPOS for an OpenCorpora tag (`NOUN,anim,masc,Name sing,nomn`) of a form with `lemma`.
fn upos(tag: &str, lemma: &str) -> &'static str {
    let grammemes: Vec<&str> = tag.split([',', ' ']).collect();
    let has = |g: &str| grammemes.contains(&g);
    match grammemes[0] {
        "NOUN" if has("Name") || has("Surn") || has("Patr") || has("Geox") || has("Orgn") => "PROPN",
        "NOUN" => "NOUN",
        "ADJF" if has("Apro") => "DET",
        "ADJF" | "ADJS" => "ADJ",
        "COMP" => "ADV",
        "VERB" | "INFN" | "PRTF" | "PRTS" | "GRND" if lemma == "быть" => "AUX",
        "VERB" | "INFN" | "PRTF" | "PRTS" | "GRND" => "VERB",
        "NUMR" | "NUMB" => "NUM",
        "ADVB" | "PRED" => "ADV",
        "NPRO" => "PRON",
        "PREP" => "ADP",
        "CONJ" if SCONJ.contains(&lemma) => "SCONJ",
        "CONJ" => "CCONJ",
        "PRCL" => "PART",
        "INTJ" => "INTJ",
        "PNCT" => "PUNCT",
        _ => "X",
    }
}

/// Compiled file names under `ru/`.
const FORMS_FST: &str = "forms.fst";
const FOLDED_FST: &str = "folded.fst";
const ANALYSES: &str = "analyses.json";
const GUESS_FST: &str = "guess.fst";

/// Longest word ending the guesser learns and matches, in characters.
const MAX_ENDING: usize = 5;
/// Longest unknown prefix before a dictionary word, and the shortest word after it.
const MAX_PREFIX: usize = 5;
const MIN_REST: usize = 3;
/// Endings seen fewer times than this are not kept.
const MIN_ENDING_COUNT: u32 = 2;

/// Whether unknown words may take an analysis of this UPOS (open classes only, as
/// pymorphy's productive paradigms).
fn productive(pos: &str) -> bool {
    matches!(pos, "NOUN" | "PROPN" | "ADJ" | "VERB" | "ADV")
}

/// Counts (ending, analysis) pairs over dictionary forms and keeps the best per ending.
#[derive(Default)]
struct EndingStats {
    counts: HashMap<(String, u64), u32>,
}

impl EndingStats {
    fn add(&mut self, form: &str, analysis: &Analysis, id: u64) {
        if !productive(&analysis.2) {
            return;
        }
        let chars: Vec<char> = form.chars().collect();
        for k in analysis.0.max(1)..=MAX_ENDING.min(chars.len().saturating_sub(1)) {
            let ending: String = chars[chars.len() - k..].iter().collect();
            *self.counts.entry((ending, id)).or_default() += 1;
        }
    }

    /// Ending → most frequent analysis id (ties: the smaller id), sorted for the fst.
    fn best(self) -> Vec<(String, u64)> {
        let mut best: HashMap<String, (u32, u64)> = HashMap::new();
        for ((ending, id), count) in self.counts {
            let entry = best.entry(ending).or_insert((0, u64::MAX));
            if count > entry.0 || (count == entry.0 && id < entry.1) {
                *entry = (count, id);
            }
        }
        let mut out: Vec<(String, u64)> = best
            .into_iter()
            .filter(|(_, (count, _))| *count >= MIN_ENDING_COUNT)
            .map(|(ending, (_, id))| (ending, id))
            .collect();
        out.sort();
        out
    }
}

fn write_map(path: &Path, entries: impl IntoIterator<Item = (String, u64)>) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let writer = BufWriter::new(std::fs::File::create(path).map_err(|e| err(&e))?);
    let mut builder = fst::MapBuilder::new(writer).map_err(|e| err(&e))?;
    for (key, id) in entries {
        builder.insert(key, id).map_err(|e| err(&e))?;
    }
    builder.finish().map_err(|e| err(&e))
}

fn read_map(path: &Path) -> Result<Map<Vec<u8>>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Map::new(bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Builds `forms.fst`, `folded.fst`, `guess.fst` and `analyses.json` from the sorted `forms.tsv`.
fn compile(dir: &Path) -> Result<(), String> {
    let entries = read_tsv(&dir.join("forms.tsv"))?;
    let mut folded: Vec<(String, u64)> = Vec::new();
    let mut analyses = Analyses::default();
    let mut endings = EndingStats::default();
    write_map(
        &dir.join(FORMS_FST),
        entries.map(|(form, analysis)| {
            let id = analyses.id(analysis.clone());
            endings.add(&form, &analysis, id);
            if form.contains('ё') {
                folded.push((form.replace('ё', "е"), id));
            }
            (form, id)
        }),
    )?;
    folded.sort();
    folded.dedup_by(|a, b| a.0 == b.0);
    write_map(&dir.join(FOLDED_FST), folded)?;
    write_map(&dir.join(GUESS_FST), endings.best())?;
    let json = serde_json::to_string(&analyses.list).map_err(|e| e.to_string())?;
    std::fs::write(dir.join(ANALYSES), json).map_err(|e| format!("{}: {e}", dir.join(ANALYSES).display()))
}

/// Distinct analyses with their ids.
#[derive(Default)]
struct Analyses {
    ids: HashMap<Analysis, u64>,
    list: Vec<Analysis>,
}

impl Analyses {
    fn id(&mut self, analysis: Analysis) -> u64 {
        let next = self.list.len() as u64;
        *self.ids.entry(analysis.clone()).or_insert_with(|| {
            self.list.push(analysis);
            next
        })
    }
}

/// Rows of `forms.tsv` as (form, analysis).
fn read_tsv(tsv: &Path) -> Result<impl Iterator<Item = (String, Analysis)>, String> {
    let file = std::fs::File::open(tsv).map_err(|e| format!("{}: {e}", tsv.display()))?;
    Ok(BufReader::new(file).lines().filter_map(|line| {
        let line = line.ok()?;
        let mut cols = line.split('\t');
        let (form, cut, suffix, tag) = (cols.next()?, cols.next()?, cols.next()?, cols.next()?);
        let cut: usize = cut.parse().ok()?;
        let keep = form.chars().count().saturating_sub(cut);
        let lemma: String = form.chars().take(keep).chain(suffix.chars()).collect();
        Some((form.to_string(), (cut, suffix.to_string(), upos(tag, &lemma).to_string())))
    }))
}

fn is_cyrillic_char(c: char) -> bool {
    ('\u{400}'..='\u{4ff}').contains(&c)
}

fn is_cyrillic_word(word: &str) -> bool {
    word.chars().any(is_cyrillic_char)
}

/// Tag for a token the dictionary does not know.
fn fallback_pos(word: &str) -> &'static str {
    if word.chars().all(|c| c.is_numeric() || "+-.,:/".contains(c)) && word.chars().any(|c| c.is_numeric()) {
        "NUM"
    } else if word.chars().all(|c| !c.is_alphanumeric()) {
        "PUNCT"
    } else if is_cyrillic_word(word) && !word.ends_with('.') && word.chars().all(|c| !c.is_ascii_alphanumeric()) {
        "NOUN"
    } else {
        "X"
    }
}

/// True when `compiled` is missing or older than its `source` (a rebuilt TSV).
fn is_stale(compiled: &Path, source: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(compiled), modified(source)) {
        (Some(c), Some(s)) => c < s,
        (Some(_), None) => false,
        (None, _) => true,
    }
}

impl Russian {
    pub fn load(dir: &Path, pos_mode: RuPos) -> Result<Russian, String> {
        let compiled = [FORMS_FST, FOLDED_FST, ANALYSES, GUESS_FST].map(|f| dir.join(f));
        if compiled.iter().any(|p| is_stale(p, &dir.join("forms.tsv"))) {
            compile(dir)?;
        }
        let json = std::fs::read_to_string(&compiled[2]).map_err(|e| format!("{}: {e}", compiled[2].display()))?;
        let analyses = serde_json::from_str(&json).map_err(|e| format!("{}: {e}", compiled[2].display()))?;
        Ok(Russian {
            forms: read_map(&compiled[0])?,
            folded: read_map(&compiled[1])?,
            guess: read_map(&compiled[3])?,
            analyses,
            pos_mode,
        })
    }

    /// (lemma, tag) per word of every sentence, flattened.
    pub fn analyze(&self, sentences: &[Vec<&str>]) -> Vec<(String, String)> {
        sentences.iter().flatten().map(|w| self.analyze_word(w)).collect()
    }

    /// Whether the dictionary has `word` (any case; `е` for `ё` allowed).
    pub fn knows(&self, word: &str) -> bool {
        let lower = word.to_lowercase();
        self.forms.contains_key(&lower) || self.folded.contains_key(&lower)
    }

    /// The dictionary's analysis id of an exact (lower-case) form.
    fn lookup(&self, lower: &str) -> Option<u64> {
        self.forms.get(lower).or_else(|| self.folded.get(lower))
    }

    fn analysis(&self, id: u64) -> Option<&Analysis> {
        self.analyses.get(id as usize)
    }

    /// An analysis for an all-Cyrillic word the dictionary lacks, as pymorphy's prefix and
    /// suffix analysers: first an unknown prefix of 1–5 characters before a dictionary word of
    /// 3+ characters with an open-class analysis (`автозамены` = `авто` + `замены`), then the
    /// longest known ending.
    fn guess_id(&self, lower: &str) -> Option<u64> {
        if !lower.chars().all(|c| is_cyrillic_char(c) && c.is_alphabetic()) {
            return None;
        }
        let chars: Vec<char> = lower.chars().collect();
        let prefixed = (1..=MAX_PREFIX.min(chars.len().saturating_sub(MIN_REST))).find_map(|k| {
            let rest: String = chars[k..].iter().collect();
            self.lookup(&rest).filter(|&id| self.analysis(id).is_some_and(|a| productive(&a.2)))
        });
        prefixed.or_else(|| {
            (1..=MAX_ENDING.min(chars.len().saturating_sub(1))).rev().find_map(|k| {
                let ending: String = chars[chars.len() - k..].iter().collect();
                self.guess.get(ending)
            })
        })
    }

    /// A hyphenated word the dictionary lacks: the last part is analysed; a Cyrillic noun
    /// before it takes its own lemma when the last part is a noun too (`клавиш-модификаторов`
    /// → `клавиша-модификатор`), other parts stay as written (`html-документ`, `8-байтовый`).
    fn analyze_hyphenated(&self, lower: &str) -> Option<(String, &'static str)> {
        let (left, right) = lower.rsplit_once('-')?;
        if left.is_empty() || right.is_empty() || !is_cyrillic_word(right) {
            return None;
        }
        let (lemma, pos) = self.analyze_lower(right);
        let noun = |p: &str| p == "NOUN" || p == "PROPN";
        let left_lemma = match self.lookup(left).and_then(|id| self.analysis(id)) {
            Some(a) if noun(&a.2) && noun(pos) && !left.contains('-') => rewrite(left, a),
            _ => left.to_string(),
        };
        Some((format!("{left_lemma}-{lemma}"), pos))
    }

    /// (lemma, UPOS) of a lower-cased word: dictionary, hyphenated, guessed, or fallback.
    fn analyze_lower(&self, lower: &str) -> (String, &'static str) {
        if !is_cyrillic_word(lower) {
            return (lower.to_string(), fallback_pos(lower));
        }
        if let Some(a) = self.lookup(lower).and_then(|id| self.analysis(id)) {
            return (rewrite(lower, a), upos_name(&a.2));
        }
        if let Some(found) = self.analyze_hyphenated(lower) {
            return found;
        }
        match self.guess_id(lower).and_then(|id| self.analysis(id)) {
            Some(a) => (rewrite(lower, a), upos_name(&a.2)),
            None => (lower.to_string(), fallback_pos(lower)),
        }
    }

    fn analyze_word(&self, word: &str) -> (String, String) {
        let lower = word.to_lowercase();
        let (lemma, pos) = if is_cyrillic_word(word) {
            self.analyze_lower(&lower)
        } else {
            (word.to_string(), fallback_pos(word))
        };
        let lemma: String = if lower.contains('ё') { lemma } else { lemma.replace('ё', "е") };
        let tag = match self.pos_mode {
            RuPos::Upos => pos.to_string(),
            RuPos::X => "X".to_string(),
        };
        (lemma, tag)
    }
}

/// Applies an analysis' lemma rewrite (cut characters, add a suffix) to a form.
fn rewrite(form: &str, (cut, suffix, _): &Analysis) -> String {
    let keep = form.chars().count().saturating_sub(*cut);
    form.chars().take(keep).chain(suffix.chars()).collect()
}

/// The static name of a stored UPOS string.
fn upos_name(pos: &str) -> &'static str {
    const ALL: [&str; 17] = [
        "NOUN", "PROPN", "ADJ", "DET", "ADV", "AUX", "VERB", "NUM", "PRON", "ADP", "SCONJ", "CCONJ", "PART", "INTJ", "PUNCT", "X", "SYM",
    ];
    ALL.iter().find(|p| **p == pos).copied().unwrap_or("X")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endings_keep_the_most_frequent_productive_analysis() {
        let noun: Analysis = (1, "а".into(), "NOUN".into());
        let verb: Analysis = (2, "ть".into(), "VERB".into());
        let pron: Analysis = (0, String::new(), "PRON".into());
        let mut stats = EndingStats::default();
        for form in ["лампы", "рамы", "мамы"] {
            stats.add(form, &noun, 0);
        }
        stats.add("делы", &verb, 1);
        stats.add("чьи", &pron, 2);
        let best: HashMap<String, u64> = stats.best().into_iter().collect();
        // "ы" and "мы" are endings of three noun forms; "елы" was seen once.
        assert_eq!(best.get("ы"), Some(&0));
        assert_eq!(best.get("мы"), Some(&0));
        assert_eq!(best.get("елы"), None);
        // the verb's endings were seen once each; pronouns are a closed class
        assert!(!best.values().any(|&id| id == 1 || id == 2));
        assert_eq!(upos("NOUN,inan,femn sing,nomn", "лампа"), "NOUN");
    }

    #[test]
    fn rewrites_and_fallbacks() {
        assert_eq!(rewrite("замены", &(1, "а".into(), "NOUN".into())), "замена");
        assert_eq!(rewrite("автозамены", &(1, "а".into(), "NOUN".into())), "автозамена");
        assert_eq!(upos_name("PROPN"), "PROPN");
        assert_eq!(fallback_pos("лист2"), "X");
        assert_eq!(fallback_pos("COMMANDСtrl"), "X");
        assert_eq!(fallback_pos("значик"), "NOUN");
        assert_eq!(fallback_pos("12,5"), "NUM");
    }
}
