//! English tag refiner: a second greedy averaged perceptron that reads the textblob port's
//! tags in context (with the words, their shapes and the sentence start) and gives the final
//! PTB tag. The port was trained on newswire, where imperatives (`Click/VB`), sentence-initial
//! verbs (`Specifies/VBZ`) and relative `that/WDT` are rare; the refiner learns those from
//! silver-tagged sentences of other genres (see `scripts/mlp-train-en.sh`). The port itself is
//! unchanged, so its fidelity to textblob (A1) still holds; the refiner's output then goes
//! through the EWT post-rules like the port's did.
//!
//! File `en/refiner.bin` (`TAREF1`): classes, then feature → (class, weight) lists, weights
//! being the averaged perceptron's, rounded to 1e-3, small ones dropped ([`PRUNE_BELOW`]).
//! Training (`ta mlp train-en`) is deterministic: the same sentences give the same bytes.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::english::{Perceptron, Reader};
use super::SplitMix;

const MAGIC: &[u8] = b"TAREF1\n";

/// Averaged weights smaller than this are dropped when training ends by default
/// (`ta mlp train-en --prune-below`). On the shipped training set this takes the file from
/// 7.6 MB to 0.9 MB and A2 XPOS agreement from 97.2 % to 96.5 %.
pub const PRUNE_BELOW: f32 = 3.0;

/// The trained refiner.
pub struct Refiner {
    classes: Vec<String>,
    weights: FxHashMap<String, Vec<(u8, f32)>>,
}

/// Word shape: `d` digits, `x` lower, `X` upper, `Xx` capitalised, `xX` mixed case, `a`
/// letters with digits, `p` neither letters nor digits; `-` appended when it has a hyphen.
fn shape(word: &str) -> String {
    let (mut upper, mut lower, mut digit) = (false, false, false);
    for c in word.chars() {
        upper |= c.is_uppercase();
        lower |= c.is_lowercase();
        digit |= c.is_numeric();
    }
    let first_upper = word.chars().next().is_some_and(char::is_uppercase);
    let mut s = match (upper || lower, digit) {
        (false, true) => "d",
        (false, false) => "p",
        (true, true) => "a",
        _ if upper && !lower => "X",
        _ if !upper => "x",
        _ if first_upper && word.chars().skip(1).all(|c| !c.is_uppercase()) => "Xx",
        _ => "xX",
    }
    .to_string();
    if word.len() > 1 && word.contains('-') {
        s.push('-');
    }
    s
}

fn suffix(word: &str, n: usize) -> String {
    let count = word.chars().count();
    word.chars().skip(count.saturating_sub(n)).collect()
}

/// One sentence prepared for feature extraction.
struct Context<'a> {
    lower: Vec<String>,
    shapes: Vec<String>,
    base: &'a [String],
}

impl<'a> Context<'a> {
    fn new(words: &[&str], base: &'a [String]) -> Context<'a> {
        Context {
            lower: words.iter().map(|w| w.to_lowercase()).collect(),
            shapes: words.iter().map(|w| shape(w)).collect(),
            base,
        }
    }

    fn word(&self, i: isize) -> &str {
        match usize::try_from(i).ok().and_then(|i| self.lower.get(i)) {
            Some(w) => w,
            None if i < 0 => "<s>",
            None => "</s>",
        }
    }

    fn tag(&self, i: isize) -> &str {
        match usize::try_from(i).ok().and_then(|i| self.base.get(i)) {
            Some(t) => t,
            None if i < 0 => "<s>",
            None => "</s>",
        }
    }

    /// Features of word `i` given the refiner's own previous two tags.
    fn features(&self, i: usize, prev: &str, prev2: &str) -> Vec<String> {
        let k = i as isize;
        let (w, t) = (self.word(k), self.tag(k));
        let (tp, tn) = (self.tag(k - 1), self.tag(k + 1));
        let first = i == 0;
        let sh = &self.shapes[i];
        vec![
            "bias".to_string(),
            format!("t {t}"),
            format!("t-1 {tp}"),
            format!("t+1 {tn}"),
            format!("t-2 {}", self.tag(k - 2)),
            format!("t+2 {}", self.tag(k + 2)),
            format!("t-1 t {tp} {t}"),
            format!("t t+1 {t} {tn}"),
            format!("t-1 t t+1 {tp} {t} {tn}"),
            format!("p-1 {prev}"),
            format!("p-2 p-1 {prev2} {prev}"),
            format!("p-1 t {prev} {t}"),
            format!("w {w}"),
            format!("w t {w} {t}"),
            format!("w-1 {}", self.word(k - 1)),
            format!("w+1 {}", self.word(k + 1)),
            format!("w-1 t {} {t}", self.word(k - 1)),
            format!("w+1 t {} {t}", self.word(k + 1)),
            format!("s3 {}", suffix(w, 3)),
            format!("s2 t {} {t}", suffix(w, 2)),
            format!("sh t {sh} {t}"),
            format!("first t {first} {sh} {t}"),
            format!("first w {first} {w}"),
            format!("first w t+1 {first} {w} {tn}"),
        ]
    }
}

impl Refiner {
    /// Reads a `TAREF1` file.
    pub fn load(path: &Path) -> Result<Refiner, String> {
        let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut r = Reader::new(&data);
        if r.take(MAGIC.len())? != MAGIC {
            return Err(format!("{}: not a TAREF1 refiner file", path.display()));
        }
        let classes = (0..r.u32()?).map(|_| r.string()).collect::<Result<Vec<_>, _>>()?;
        let mut weights = FxHashMap::default();
        for _ in 0..r.u32()? {
            let feature = r.string()?;
            let per_class = (0..r.u16()?).map(|_| Ok((r.u8()?, r.f32()?))).collect::<Result<Vec<_>, String>>()?;
            if per_class.iter().any(|&(c, _)| c as usize >= classes.len()) {
                return Err(format!("{}: class index out of range", path.display()));
            }
            weights.insert(feature, per_class);
        }
        Ok(Refiner { classes, weights })
    }

    /// The file's bytes (deterministic: features in sorted order).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        let string = |out: &mut Vec<u8>, s: &str| {
            out.extend((s.len() as u16).to_le_bytes());
            out.extend(s.as_bytes());
        };
        out.extend((self.classes.len() as u32).to_le_bytes());
        for c in &self.classes {
            string(&mut out, c);
        }
        let mut features: Vec<_> = self.weights.iter().collect();
        features.sort_by(|a, b| a.0.cmp(b.0));
        out.extend((features.len() as u32).to_le_bytes());
        for (f, per_class) in features {
            string(&mut out, f);
            out.extend((per_class.len() as u16).to_le_bytes());
            for &(c, w) in per_class {
                out.push(c);
                out.extend(w.to_le_bytes());
            }
        }
        out
    }

    /// Final tags of one sentence from its words and the port's tags.
    pub fn refine(&self, words: &[&str], base: &[String]) -> Vec<String> {
        let cx = Context::new(words, base);
        let mut out: Vec<String> = Vec::with_capacity(words.len());
        let mut scores = vec![0.0f32; self.classes.len()];
        for i in 0..words.len() {
            let prev = if i >= 1 { out[i - 1].as_str() } else { "<s>" };
            let prev2 = if i >= 2 { out[i - 2].as_str() } else { "<s>" };
            scores.iter_mut().for_each(|s| *s = 0.0);
            for f in cx.features(i, prev, prev2) {
                for &(c, w) in self.weights.get(&f).into_iter().flatten() {
                    scores[c as usize] += w;
                }
            }
            out.push(self.classes[best(&scores)].clone());
        }
        out
    }
}

/// Index of the highest score (the first on ties).
fn best(scores: &[f32]) -> usize {
    let mut best = 0;
    for (i, s) in scores.iter().enumerate() {
        if *s > scores[best] {
            best = i;
        }
    }
    best
}

/// One training sentence: words, the port's tags, the silver tags.
pub struct Example {
    pub words: Vec<String>,
    pub base: Vec<String>,
    pub gold: Vec<String>,
}

/// Weight of one (feature, class) with what averaging needs.
#[derive(Default, Clone, Copy)]
struct Param {
    w: f64,
    total: f64,
    stamp: u64,
}

/// How to train.
#[derive(Debug, Clone, Copy)]
pub struct TrainOptions {
    /// Passes over the sentences.
    pub epochs: usize,
    /// Averaged weights of smaller magnitude are dropped.
    pub prune_below: f32,
}

/// Trains a refiner: `epochs` passes of the averaged perceptron over the examples, shuffled
/// with a fixed seed, so the same input gives the same file. `progress` is called after each
/// epoch with (epoch, share of tokens the current weights got right).
pub fn train(examples: &[Example], opts: TrainOptions, mut progress: impl FnMut(usize, f64)) -> Refiner {
    let mut classes: Vec<String> = examples.iter().flat_map(|e| e.gold.iter().cloned()).collect();
    classes.sort();
    classes.dedup();
    classes.truncate(u8::MAX as usize);
    let class_of: HashMap<&str, u8> = classes.iter().enumerate().map(|(i, c)| (c.as_str(), i as u8)).collect();
    let mut params: FxHashMap<String, Vec<(u8, Param)>> = FxHashMap::default();
    let mut step: u64 = 0;
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = SplitMix(0x7a5e_f1e5);
    let mut scores = vec![0.0f64; classes.len()];
    for epoch in 0..opts.epochs {
        let (mut right, mut seen) = (0usize, 0usize);
        for &e in &order {
            let ex = &examples[e];
            let words: Vec<&str> = ex.words.iter().map(String::as_str).collect();
            let cx = Context::new(&words, &ex.base);
            let mut out: Vec<u8> = Vec::with_capacity(words.len());
            for (i, gold) in ex.gold.iter().enumerate() {
                let prev = if i >= 1 { classes[out[i - 1] as usize].as_str() } else { "<s>" };
                let prev2 = if i >= 2 { classes[out[i - 2] as usize].as_str() } else { "<s>" };
                let features = cx.features(i, prev, prev2);
                scores.iter_mut().for_each(|s| *s = 0.0);
                for f in &features {
                    for (c, p) in params.get(f).into_iter().flatten() {
                        scores[*c as usize] += p.w;
                    }
                }
                let guess = (0..classes.len()).fold(0, |b, c| if scores[c] > scores[b] { c } else { b }) as u8;
                step += 1;
                let truth = class_of.get(gold.as_str()).copied().unwrap_or(guess);
                if truth != guess {
                    for f in features {
                        let list = params.entry(f).or_default();
                        for (class, delta) in [(truth, 1.0), (guess, -1.0)] {
                            let slot = match list.iter().position(|(c, _)| *c == class) {
                                Some(k) => k,
                                None => {
                                    list.push((class, Param::default()));
                                    list.len() - 1
                                }
                            };
                            let p = &mut list[slot].1;
                            p.total += (step - p.stamp) as f64 * p.w;
                            p.stamp = step;
                            p.w += delta;
                        }
                    }
                }
                right += (truth == guess) as usize;
                seen += 1;
                out.push(guess);
            }
        }
        progress(epoch + 1, right as f64 / seen.max(1) as f64);
        rng.shuffle(&mut order);
    }
    let mut weights = FxHashMap::default();
    for (f, list) in params {
        let mut averaged: Vec<(u8, f32)> = list
            .into_iter()
            .map(|(c, p)| {
                let total = p.total + (step - p.stamp) as f64 * p.w;
                (c, ((total / step.max(1) as f64) * 1000.0).round() as f32 / 1000.0)
            })
            .filter(|&(_, w)| w != 0.0 && w.abs() >= opts.prune_below)
            .collect();
        averaged.sort_by_key(|&(c, _)| c);
        // the file stores a feature's length in 16 bits; longer ones (a giant word) are dropped
        if !averaged.is_empty() && f.len() <= usize::from(u16::MAX) {
            weights.insert(f, averaged);
        }
    }
    Refiner { classes, weights }
}

/// `ta mlp train-en`: reads silver sentences (JSON lines `{"words": [...], "tags": [...]}`),
/// tags them with the port in `en_dir` (`tagger.bin`, state reset per sentence) and trains a
/// refiner on them. Lines whose words and tags differ in length are errors.
pub fn train_from_file(en_dir: &Path, silver: &Path, opts: TrainOptions, progress: impl FnMut(usize, f64)) -> Result<Refiner, String> {
    #[derive(serde::Deserialize)]
    struct Line {
        words: Vec<String>,
        tags: Vec<String>,
    }
    let port = Perceptron::load(&en_dir.join("tagger.bin"))?;
    let text = std::fs::read_to_string(silver).map_err(|e| format!("{}: {e}", silver.display()))?;
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = || format!("{} line {}", silver.display(), n + 1);
        let line: Line = serde_json::from_str(line).map_err(|e| format!("{}: {e}", at()))?;
        if line.words.len() != line.tags.len() {
            return Err(format!("{}: {} words but {} tags", at(), line.words.len(), line.tags.len()));
        }
        lines.push(line);
    }
    let examples: Vec<Example> = lines
        .into_par_iter()
        .map(|l| {
            let words: Vec<&str> = l.words.iter().map(String::as_str).collect();
            let base = port.tag(&[words]);
            Example {
                words: l.words,
                base,
                gold: l.tags,
            }
        })
        .collect();
    Ok(train(&examples, opts, progress))
}

#[cfg(test)]
mod tests {
    use super::{shape, train, Example, Refiner, TrainOptions};

    fn example(words: &str, base: &str, gold: &str) -> Example {
        let split = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        Example {
            words: split(words),
            base: split(base),
            gold: split(gold),
        }
    }

    #[test]
    fn shapes() {
        let got: Vec<String> = ["Click", "OK", "the", "B6", "42", "(", "zero-based", "iPhone"]
            .iter()
            .map(|w| shape(w))
            .collect();
        assert_eq!(got, ["Xx", "X", "x", "a", "d", "p", "x-", "xX"]);
    }

    #[test]
    fn learns_sentence_initial_imperatives_and_round_trips() {
        let mut data = Vec::new();
        for verb in ["Click", "Choose", "Select", "Open"] {
            data.push(example(&format!("{verb} the button ."), "NNP DT NN .", "VB DT NN ."));
            data.push(example(
                &format!("Then {} the menu .", verb.to_lowercase()),
                "RB VBP DT NN .",
                "RB VB DT NN .",
            ));
        }
        data.push(example("Smith bought the house .", "NNP VBD DT NN .", "NNP VBD DT NN ."));
        let opts = TrainOptions {
            epochs: 5,
            prune_below: 0.0,
        };
        let model = train(&data, opts, |_, _| {});
        let words = ["Press", "the", "key", "."];
        let base: Vec<String> = ["NNP", "DT", "NN", "."].map(String::from).to_vec();
        assert_eq!(model.refine(&words, &base), ["VB", "DT", "NN", "."]);
        let words = ["Jones", "sold", "the", "car", "."];
        let base: Vec<String> = ["NNP", "VBD", "DT", "NN", "."].map(String::from).to_vec();
        assert_eq!(model.refine(&words, &base), ["NNP", "VBD", "DT", "NN", "."]);

        let path = std::env::temp_dir().join(format!("ta-refiner-{}.bin", std::process::id()));
        std::fs::write(&path, model.to_bytes()).unwrap();
        let loaded = Refiner::load(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(loaded.to_bytes(), model.to_bytes());
        assert_eq!(loaded.refine(&words, &base), model.refine(&words, &base));

        // a word too long for the file's 16-bit lengths leaves the file readable
        let giant = "x".repeat(70_000);
        let data = vec![example(&format!("{giant} ."), "NN .", "NNP .")];
        let model = train(&data, opts, |_, _| {});
        std::fs::write(&path, model.to_bytes()).unwrap();
        let loaded = Refiner::load(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(loaded.to_bytes(), model.to_bytes());
    }
}
