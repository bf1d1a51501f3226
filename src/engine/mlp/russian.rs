//! Russian pipeline (mlp.md §10.5): the OpenCorpora dictionary (pymorphy3's top-ranked parse
//! per form) as an `fst` map form → analysis id, lemmas by suffix rewrite, UPOS from the
//! OpenCorpora tag.
//!
//! Data: `ru/forms.tsv` (form, cut, suffix, tag; sorted) from scripts/mlp-build-data.py. On
//! first load (or when the TSV is newer) it is compiled into `ru/forms.fst`, `ru/folded.fst`
//! (ё-forms under their е spelling) and `ru/analyses.json`, which later loads read directly.

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

/// Builds `forms.fst`, `folded.fst` and `analyses.json` from the sorted `forms.tsv`.
fn compile(dir: &Path) -> Result<(), String> {
    let entries = read_tsv(&dir.join("forms.tsv"))?;
    let mut folded: Vec<(String, u64)> = Vec::new();
    let mut analyses = Analyses::default();
    write_map(
        &dir.join(FORMS_FST),
        entries.map(|(form, analysis)| {
            let id = analyses.id(analysis);
            if form.contains('ё') {
                folded.push((form.replace('ё', "е"), id));
            }
            (form, id)
        }),
    )?;
    folded.sort();
    folded.dedup_by(|a, b| a.0 == b.0);
    write_map(&dir.join(FOLDED_FST), folded)?;
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

fn is_cyrillic_word(word: &str) -> bool {
    word.chars().any(|c| ('\u{400}'..='\u{4ff}').contains(&c))
}

/// Tag for a token the dictionary does not know.
fn fallback_pos(word: &str) -> &'static str {
    if word.chars().all(|c| c.is_numeric() || "+-.,:/".contains(c)) && word.chars().any(|c| c.is_numeric()) {
        "NUM"
    } else if word.chars().all(|c| !c.is_alphanumeric()) {
        "PUNCT"
    } else if is_cyrillic_word(word) && !word.ends_with('.') {
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
        let compiled = [FORMS_FST, FOLDED_FST, ANALYSES].map(|f| dir.join(f));
        if compiled.iter().any(|p| is_stale(p, &dir.join("forms.tsv"))) {
            compile(dir)?;
        }
        let json = std::fs::read_to_string(&compiled[2]).map_err(|e| format!("{}: {e}", compiled[2].display()))?;
        let analyses = serde_json::from_str(&json).map_err(|e| format!("{}: {e}", compiled[2].display()))?;
        Ok(Russian {
            forms: read_map(&compiled[0])?,
            folded: read_map(&compiled[1])?,
            analyses,
            pos_mode,
        })
    }

    /// (lemma, tag) per word of every sentence, flattened.
    pub fn analyze(&self, sentences: &[Vec<&str>]) -> Vec<(String, String)> {
        sentences.iter().flatten().map(|w| self.analyze_word(w)).collect()
    }

    fn analyze_word(&self, word: &str) -> (String, String) {
        let lower = word.to_lowercase();
        let id = self.forms.get(&lower).or_else(|| self.folded.get(&lower));
        let found = id.and_then(|id| self.analyses.get(id as usize));
        let (lemma, pos) = match found {
            Some((cut, suffix, pos)) if is_cyrillic_word(word) => {
                let keep = lower.chars().count().saturating_sub(*cut);
                (lower.chars().take(keep).chain(suffix.chars()).collect(), pos.as_str())
            }
            _ if is_cyrillic_word(word) => (lower.clone(), fallback_pos(word)),
            _ => (word.to_string(), fallback_pos(word)),
        };
        let lemma: String = if lower.contains('ё') { lemma } else { lemma.replace('ё', "е") };
        let tag = match self.pos_mode {
            RuPos::Upos => pos.to_string(),
            RuPos::X => "X".to_string(),
        };
        (lemma, tag)
    }
}
