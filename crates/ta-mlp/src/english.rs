//! English pipeline (mlp.md §10.4): Honnibal's greedy averaged perceptron with the
//! textblob-aptagger weights (PTB tags), the tag refiner (`refiner.rs`), EWT post-rules, and
//! spaCy's lookup-table lemmatizer.
//!
//! Data: `en/tagger.bin` and `en/lemma.json` written by scripts/mlp-build-data.py,
//! `en/refiner.bin` written by `ta mlp train-en` (scripts/mlp-train-en.sh).

use std::collections::HashMap;
use std::path::Path;

use rustc_hash::FxHashMap;
use serde::Deserialize;

use super::refiner::Refiner;

/// Averaged-perceptron weights: feature → (class index, weight) in the pickle's order.
pub struct Perceptron {
    classes: Vec<String>,
    tagdict: FxHashMap<String, u8>,
    weights: FxHashMap<String, Vec<(u8, f64)>>,
}

/// Little-endian reader of the tagger files.
pub(super) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, pos: 0 }
    }
    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or("truncated tagger file")?;
        let out = &self.data[self.pos..end];
        self.pos = end;
        Ok(out)
    }
    pub(super) fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    pub(super) fn u16(&mut self) -> Result<usize, String> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()) as usize)
    }
    pub(super) fn u32(&mut self) -> Result<usize, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()) as usize)
    }
    fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    pub(super) fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    pub(super) fn string(&mut self) -> Result<String, String> {
        let n = self.u16()?;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|e| e.to_string())
    }
}

const START: [&str; 2] = ["-START-", "-START2-"];
const END: [&str; 2] = ["-END-", "-END2-"];

impl Perceptron {
    /// Reads the `TAPT1` file.
    pub fn load(path: &Path) -> Result<Perceptron, String> {
        let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut r = Reader::new(&data);
        if r.take(6)? != b"TAPT1\n" {
            return Err(format!("{}: not a TAPT1 tagger file", path.display()));
        }
        let classes = (0..r.u32()?).map(|_| r.string()).collect::<Result<Vec<_>, _>>()?;
        let mut tagdict = FxHashMap::default();
        for _ in 0..r.u32()? {
            let word = r.string()?;
            tagdict.insert(word, r.u8()?);
        }
        let mut weights = FxHashMap::default();
        for _ in 0..r.u32()? {
            let feature = r.string()?;
            let per_class = (0..r.u16()?).map(|_| Ok((r.u8()?, r.f64()?))).collect::<Result<Vec<_>, String>>()?;
            weights.insert(feature, per_class);
        }
        Ok(Perceptron { classes, tagdict, weights })
    }

    /// Tags sentences; like textblob-aptagger the previous tags carry across sentences.
    pub fn tag(&self, sentences: &[Vec<&str>]) -> Vec<String> {
        let mut tags = Vec::new();
        let (mut prev, mut prev2) = (START[0].to_string(), START[1].to_string());
        for words in sentences {
            let context: Vec<String> = START
                .iter()
                .map(|s| s.to_string())
                .chain(words.iter().map(|w| normalize(w)))
                .chain(END.iter().map(|s| s.to_string()))
                .collect();
            for (i, word) in words.iter().enumerate() {
                let tag = match self.tagdict.get(*word) {
                    Some(&c) => self.classes[c as usize].clone(),
                    None => self.predict(&features(i, word, &context, &prev, &prev2)),
                };
                prev2 = std::mem::replace(&mut prev, tag.clone());
                tags.push(tag);
            }
        }
        tags
    }

    /// Highest score; ties go to the alphabetically last class, as `max((score, label))`.
    fn predict(&self, features: &[String]) -> String {
        let mut scores = vec![0.0f64; self.classes.len()];
        for f in features {
            for &(c, w) in self.weights.get(f).into_iter().flatten() {
                scores[c as usize] += w;
            }
        }
        let best = (0..self.classes.len())
            .max_by(|&a, &b| scores[a].total_cmp(&scores[b]).then_with(|| self.classes[a].cmp(&self.classes[b])))
            .unwrap_or(0);
        self.classes[best].clone()
    }
}

/// `PerceptronTagger._normalize`.
fn normalize(word: &str) -> String {
    let first = word.chars().next().unwrap_or(' ');
    if word.contains('-') && first != '-' {
        "!HYPHEN".into()
    } else if word.chars().count() == 4 && word.chars().all(|c| c.is_numeric()) {
        "!YEAR".into()
    } else if first.is_numeric() {
        "!DIGITS".into()
    } else {
        word.to_lowercase()
    }
}

fn suffix3(s: &str) -> String {
    let n = s.chars().count();
    s.chars().skip(n.saturating_sub(3)).collect()
}

/// `PerceptronTagger._get_features`, in its order (duplicate keys would add up; they cannot
/// occur because every feature name is distinct).
fn features(i: usize, word: &str, context: &[String], prev: &str, prev2: &str) -> Vec<String> {
    let i = i + 2;
    let first: String = word.chars().take(1).collect();
    vec![
        "bias".to_string(),
        format!("i suffix {}", suffix3(word)),
        format!("i pref1 {first}"),
        format!("i-1 tag {prev}"),
        format!("i-2 tag {prev2}"),
        format!("i tag+i-2 tag {prev} {prev2}"),
        format!("i word {}", context[i]),
        format!("i-1 tag+i word {prev} {}", context[i]),
        format!("i-1 word {}", context[i - 1]),
        format!("i-1 suffix {}", suffix3(&context[i - 1])),
        format!("i-2 word {}", context[i - 2]),
        format!("i+1 word {}", context[i + 1]),
        format!("i+1 suffix {}", suffix3(&context[i + 1])),
        format!("i+2 word {}", context[i + 2]),
    ]
}

/// EWT conventions on top of PTB tags (mlp.md §10.4).
fn ewt_tag(word: &str, tag: String) -> String {
    if word.contains('@') || word.starts_with("http://") || word.starts_with("https://") || word.starts_with("www.") {
        return "ADD".into();
    }
    match word {
        "(" | "[" | "{" => "-LRB-".into(),
        ")" | "]" | "}" => "-RRB-".into(),
        "-" | "‐" => "HYPH".into(),
        _ => tag,
    }
}

/// EWT tags a particle right before a preposition as an adverb (`come up/RB with`).
fn particles_before_prepositions(tags: &mut [String]) {
    for i in 1..tags.len() {
        if tags[i - 1] == "RP" && (tags[i] == "IN" || tags[i] == "TO") {
            tags[i - 1] = "RB".into();
        }
    }
}

/// EWT tags `to` as `TO` only as the infinitive marker: a `to` whose next word (past
/// adverbs) is not a verb is the preposition `IN` (`go to/IN the menu`, `to/TO come`).
fn prepositional_to(tags: &mut [String]) {
    for i in 0..tags.len() {
        if tags[i] != "TO" {
            continue;
        }
        let next = tags[i + 1..].iter().find(|t| !matches!(t.as_str(), "RB" | "RBR" | "RBS"));
        if !next.is_some_and(|t| t.starts_with("VB") || t == "MD") {
            tags[i] = "IN".into();
        }
    }
}

/// PTB/EWT quote tags, which the WSJ-trained tagger never saw as `"`: an opening quote is
/// ``` `` ```, a closing one `''`; straight quotes alternate within the text.
fn quotes(words: &[&str], tags: &mut [String]) {
    let mut open = false;
    for (word, tag) in words.iter().zip(tags.iter_mut()) {
        let opening = match *word {
            "“" | "«" | "„" => true,
            "”" | "»" => false,
            "\"" => !open,
            _ => continue,
        };
        open = opening;
        *tag = if opening { "``" } else { "''" }.into();
    }
}

#[derive(Deserialize)]
struct LemmaTables {
    lookup: HashMap<String, String>,
    index: HashMap<String, Vec<String>>,
    exc: HashMap<String, HashMap<String, Vec<String>>>,
    rules: HashMap<String, Vec<(String, String)>>,
}

/// spaCy lookup-table lemmatizer keyed by the coarse class of the PTB tag.
pub struct Lemmatizer {
    lookup: HashMap<String, String>,
    index: HashMap<String, std::collections::HashSet<String>>,
    exc: HashMap<String, HashMap<String, Vec<String>>>,
    rules: HashMap<String, Vec<(String, String)>>,
}

fn coarse_class(tag: &str) -> Option<&'static str> {
    match tag {
        t if t.starts_with("NN") => Some("noun"),
        t if t.starts_with("VB") || t == "MD" => Some("verb"),
        t if t.starts_with("JJ") => Some("adj"),
        t if t.starts_with("RB") => Some("adv"),
        _ => None,
    }
}

fn clitic_lemma(lower: &str, tag: &str) -> Option<&'static str> {
    Some(match (lower, tag) {
        ("n't", _) => "not",
        ("'s", "POS") => "'s",
        ("'s", _) => "be",
        ("'re", _) => "be",
        ("'m", _) => "be",
        ("'ll", _) => "will",
        ("'ve", _) => "have",
        ("'d", "MD") => "would",
        ("'d", _) => "have",
        ("ca", "MD") => "can",
        ("wo", "MD") => "will",
        _ => return None,
    })
}

impl Lemmatizer {
    pub fn load(path: &Path) -> Result<Lemmatizer, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let t: LemmaTables = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let index = t.index.into_iter().map(|(k, v)| (k, v.into_iter().collect())).collect();
        Ok(Lemmatizer {
            lookup: t.lookup,
            index,
            exc: t.exc,
            rules: t.rules,
        })
    }

    pub fn lemma(&self, word: &str, tag: &str) -> String {
        let keep_case = tag == "NNP" || tag == "NNPS";
        let lower = word.to_lowercase();
        if let Some(l) = clitic_lemma(&lower.replace('’', "'"), tag) {
            return l.into();
        }
        let form = if keep_case { word.to_string() } else { lower };
        match coarse_class(tag).filter(|_| !keep_case) {
            Some(class) => self.rule_lemma(&form, class),
            None => form,
        }
    }

    /// Exceptions, then rule outputs found in the index, then the lookup table, then rule
    /// outputs outside the index, then the word itself.
    fn rule_lemma(&self, word: &str, class: &str) -> String {
        if let Some(first) = self.exc.get(class).and_then(|e| e.get(word)).and_then(|v| v.first()) {
            return first.clone();
        }
        let index = self.index.get(class);
        let mut oov = None;
        for (old, new) in self.rules.get(class).into_iter().flatten() {
            let Some(stem) = word.strip_suffix(old.as_str()) else { continue };
            let form = format!("{stem}{new}");
            if form.is_empty() {
                continue;
            }
            if index.is_some_and(|ix| ix.contains(&form)) || !form.chars().all(char::is_alphabetic) {
                return form;
            }
            oov.get_or_insert(form);
        }
        self.lookup.get(word).cloned().or(oov).unwrap_or_else(|| word.to_string())
    }
}

/// The English pipeline: tagger, refiner, EWT rules, lemmatizer.
pub struct English {
    tagger: Perceptron,
    refiner: Refiner,
    lemmatizer: Lemmatizer,
}

impl English {
    pub fn load(dir: &Path) -> Result<English, String> {
        Ok(English {
            tagger: Perceptron::load(&dir.join("tagger.bin"))?,
            refiner: Refiner::load(&dir.join("refiner.bin"))?,
            lemmatizer: Lemmatizer::load(&dir.join("lemma.json"))?,
        })
    }

    /// (lemma, XPOS) per word of every sentence, flattened.
    pub fn analyze(&self, sentences: &[Vec<&str>]) -> Vec<(String, String)> {
        let words: Vec<&str> = sentences.iter().flatten().copied().collect();
        let raw = self.tagger.tag(sentences);
        let mut refined = Vec::with_capacity(raw.len());
        let mut start = 0;
        for sentence in sentences {
            let end = start + sentence.len();
            refined.extend(self.refiner.refine(sentence, &raw[start..end]));
            start = end;
        }
        let mut tags: Vec<String> = words.iter().zip(refined).map(|(w, t)| ewt_tag(w, t)).collect();
        particles_before_prepositions(&mut tags);
        prepositional_to(&mut tags);
        quotes(&words, &mut tags);
        words
            .iter()
            .zip(tags)
            .map(|(word, tag)| (self.lemmatizer.lemma(word, &tag), tag))
            .collect()
    }

    /// Raw PTB tags (for the WSJ fidelity benchmark).
    pub fn tag_raw(&self, sentences: &[Vec<&str>]) -> Vec<String> {
        self.tagger.tag(sentences)
    }
}

#[cfg(test)]
mod tests {
    use super::{prepositional_to, quotes};

    fn tags(list: &str) -> Vec<String> {
        list.split(' ').map(String::from).collect()
    }

    #[test]
    fn to_before_a_verb_stays_to() {
        let mut t = tags("JJ TO VB RB IN TO RB VB TO DT NN TO");
        prepositional_to(&mut t);
        assert_eq!(t, tags("JJ TO VB RB IN TO RB VB IN DT NN IN"));
    }

    #[test]
    fn quotes_alternate() {
        let words = ["Choose", "\"", "System", "\"", "or", "“", "x", "”"];
        let mut t = tags("VB NN NNP NNP CC JJ NN NN");
        quotes(&words, &mut t);
        assert_eq!(t, tags("VB `` NNP '' CC `` NN ''"));
    }
}
