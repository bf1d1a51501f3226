//! Port of langdetect 1.0.9 (mlp.md §5, §10.1) with its fixed-seed behaviour: the same
//! character normalisation, 1–3-gram features, 7 trials of random feature sampling and
//! CPython's Mersenne Twister (`random.seed(0)`, `gauss`, `choice`), so results match
//! `DetectorFactory.seed = 0`.
//!
//! Data: `lang/profiles.json` written by scripts/mlp-build-data.py.

use std::collections::HashMap;
use std::path::Path;

use regex::Regex;
use rustc_hash::FxHashMap;
use serde::Deserialize;

const ALPHA: f64 = 0.5;
const ALPHA_WIDTH: f64 = 0.05;
const ITERATION_LIMIT: usize = 1000;
const PROB_THRESHOLD: f64 = 0.1;
const CONV_THRESHOLD: f64 = 0.99999;
const BASE_FREQ: f64 = 10000.0;
const N_TRIAL: usize = 7;
const MAX_TEXT_LENGTH: usize = 10000;

#[derive(Deserialize)]
struct Profile {
    name: String,
    n_words: Vec<u64>,
    freq: HashMap<String, u64>,
}

#[derive(Deserialize)]
struct Tables {
    latin1_excluded: String,
    cjk_classes: Vec<String>,
    vi_to_normalize: String,
    vi_dmark: String,
    vi_normalized: Vec<String>,
}

#[derive(Deserialize)]
struct ProfileFile {
    profiles: Vec<Profile>,
    tables: Tables,
}

/// The detector: profiles and normalisation tables, read-only after load.
pub struct LangDetector {
    languages: Vec<String>,
    /// n-gram ([`gram_key`]) → probability per language
    word_probs: FxHashMap<u64, Vec<f64>>,
    latin1_excluded: Vec<char>,
    cjk_map: HashMap<char, char>,
    vi: VietnameseNormalizer,
    url: Regex,
    mail: Regex,
}

struct VietnameseNormalizer {
    pattern: Regex,
    alphabet: Vec<char>,
    marks: Vec<char>,
    normalized: Vec<Vec<char>>,
}

impl VietnameseNormalizer {
    fn new(t: &Tables) -> Result<Self, String> {
        let pattern = Regex::new(&format!("([{}])([{}])", t.vi_to_normalize, t.vi_dmark)).map_err(|e| e.to_string())?;
        Ok(VietnameseNormalizer {
            pattern,
            alphabet: t.vi_to_normalize.chars().collect(),
            marks: t.vi_dmark.chars().collect(),
            normalized: t.vi_normalized.iter().map(|s| s.chars().collect()).collect(),
        })
    }

    fn apply(&self, text: &str) -> String {
        self.pattern
            .replace_all(text, |caps: &regex::Captures| {
                let letter = caps[1].chars().next().unwrap_or(' ');
                let mark = caps[2].chars().next().unwrap_or(' ');
                let a = self.alphabet.iter().position(|&c| c == letter);
                let d = self.marks.iter().position(|&c| c == mark);
                match (a, d) {
                    (Some(a), Some(d)) => self.normalized[d].get(a).map_or(caps[0].to_string(), |c| c.to_string()),
                    _ => caps[0].to_string(),
                }
            })
            .into_owned()
    }
}

impl LangDetector {
    /// Loads `lang/profiles.json` under the MLP data directory.
    pub fn load(path: &Path) -> Result<LangDetector, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file: ProfileFile = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let n = file.profiles.len();
        let mut word_probs: FxHashMap<u64, Vec<f64>> = FxHashMap::default();
        for (index, profile) in file.profiles.iter().enumerate() {
            for (word, &count) in &profile.freq {
                let len = word.chars().count();
                if (1..=3).contains(&len) && !word.contains('\0') {
                    let probs = word_probs.entry(gram_key(word.chars())).or_insert_with(|| vec![0.0; n]);
                    probs[index] = count as f64 / profile.n_words[len - 1] as f64;
                }
            }
        }
        let cjk_map = file
            .tables
            .cjk_classes
            .iter()
            .flat_map(|class| {
                let representative = class.chars().next().unwrap_or(' ');
                class.chars().map(move |c| (c, representative))
            })
            .collect();
        Ok(LangDetector {
            languages: file.profiles.into_iter().map(|p| p.name).collect(),
            word_probs,
            latin1_excluded: file.tables.latin1_excluded.chars().collect(),
            cjk_map,
            vi: VietnameseNormalizer::new(&file.tables)?,
            url: Regex::new(r"https?://[-_.?&~;+=/#0-9A-Za-z]{1,2076}").expect("url pattern"),
            mail: Regex::new(r"[-_.0-9A-Za-z]{1,64}@[-_0-9A-Za-z]{1,255}[-_.0-9A-Za-z]{1,255}").expect("mail pattern"),
        })
    }

    /// `detect_langs`: the languages above probability 0.1, most probable first (empty when
    /// the text has no features).
    pub fn ranked(&self, text: &str) -> Vec<(&str, f64)> {
        let text = self.prepare(text);
        let ngrams = self.extract_ngrams(&text);
        if ngrams.is_empty() {
            return Vec::new();
        }
        let probs = self.detect_block(&ngrams);
        let mut ranked: Vec<(&str, f64)> = probs
            .iter()
            .zip(&self.languages)
            .filter(|(p, _)| **p > PROB_THRESHOLD)
            .map(|(p, l)| (l.as_str(), *p))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked
    }

    /// `Detector.append` + `cleaning_text`.
    fn prepare(&self, text: &str) -> Vec<char> {
        let text = self.url.replace_all(text, " ");
        let text = self.mail.replace_all(&text, " ");
        let text = self.vi.apply(&text);
        let mut out: Vec<char> = Vec::with_capacity(text.len());
        let mut prev = '\0';
        for c in text.chars().take(MAX_TEXT_LENGTH) {
            if c != ' ' || prev != ' ' {
                out.push(c);
            }
            prev = c;
        }
        remove_latin_if_minor(out)
    }

    fn normalize(&self, c: char) -> char {
        let cp = c as u32;
        match cp {
            0..=0x7f => {
                if c.is_ascii_alphabetic() {
                    c
                } else {
                    ' '
                }
            }
            0x80..=0xff => {
                if self.latin1_excluded.contains(&c) {
                    ' '
                } else {
                    c
                }
            }
            0x180..=0x24f => match c {
                '\u{219}' => '\u{15f}',
                '\u{21b}' => '\u{163}',
                _ => c,
            },
            0x2000..=0x206f => ' ',
            0x600..=0x6ff => {
                if c == '\u{6cc}' {
                    '\u{64a}'
                } else {
                    c
                }
            }
            0x1e00..=0x1eff => {
                if cp >= 0x1ea0 {
                    '\u{1ec3}'
                } else {
                    c
                }
            }
            0x3040..=0x309f => '\u{3042}',
            0x30a0..=0x30ff => '\u{30a2}',
            0x3100..=0x312f | 0x31a0..=0x31bf => '\u{3105}',
            0x4e00..=0x9fff => self.cjk_map.get(&c).copied().unwrap_or(c),
            0xac00..=0xd7af => '\u{ac00}',
            _ => c,
        }
    }

    /// `Detector._extract_ngrams` with `NGram.add_char`.
    fn extract_ngrams(&self, text: &[char]) -> Vec<&[f64]> {
        let mut result = Vec::new();
        let mut grams: Vec<char> = vec![' '];
        let mut capital_word = false;
        for &raw in text {
            let c = self.normalize(raw);
            let last = *grams.last().unwrap_or(&' ');
            if last == ' ' {
                grams = vec![' '];
                capital_word = false;
                if c == ' ' {
                    continue;
                }
            } else if grams.len() >= 3 {
                grams.remove(0);
            }
            grams.push(c);
            if !is_upper(c) {
                capital_word = false;
            } else if is_upper(last) {
                capital_word = true;
            }
            if capital_word {
                continue;
            }
            for n in 1..=3.min(grams.len()) {
                let gram = &grams[grams.len() - n..];
                if gram != [' '] {
                    if let Some(p) = self.word_probs.get(&gram_key(gram.iter().copied())) {
                        result.push(p.as_slice());
                    }
                }
            }
        }
        result
    }

    fn detect_block(&self, ngrams: &[&[f64]]) -> Vec<f64> {
        let n = self.languages.len();
        let mut lang_prob = vec![0.0; n];
        let mut rng = PyRandom::new(0);
        for _ in 0..N_TRIAL {
            let mut prob = vec![1.0 / n as f64; n];
            let alpha = ALPHA + rng.gauss() * ALPHA_WIDTH;
            let weight = alpha / BASE_FREQ;
            let mut i = 0;
            loop {
                let word = ngrams[rng.below(ngrams.len())];
                for (p, w) in prob.iter_mut().zip(word) {
                    *p *= weight + w;
                }
                if i % 5 == 0 && (normalize_probs(&mut prob) > CONV_THRESHOLD || i >= ITERATION_LIMIT) {
                    break;
                }
                i += 1;
            }
            for (total, p) in lang_prob.iter_mut().zip(&prob) {
                *total += p / N_TRIAL as f64;
            }
        }
        lang_prob
    }
}

/// An n-gram of up to three characters as a map key: 21 bits a character, in order. No
/// n-gram holds U+0000 (`normalize` turns control characters into spaces), so keys of
/// different n-grams differ.
fn gram_key(chars: impl IntoIterator<Item = char>) -> u64 {
    chars.into_iter().fold(0, |key, c| (key << 21) | c as u64)
}

/// Python's `str.isupper()` for one character.
fn is_upper(c: char) -> bool {
    c.is_uppercase()
}

/// `cleaning_text`: drop ASCII letters when non-Latin characters dominate. (The reference
/// compares a block number with a name, so every character ≥ U+0300 counts as non-Latin.)
fn remove_latin_if_minor(text: Vec<char>) -> Vec<char> {
    let latin = text.iter().filter(|&&c| ('A'..='z').contains(&c)).count();
    let non_latin = text.iter().filter(|&&c| c >= '\u{300}').count();
    if latin * 2 >= non_latin {
        return text;
    }
    text.into_iter().filter(|&c| !('A'..='z').contains(&c)).collect()
}

fn normalize_probs(prob: &mut [f64]) -> f64 {
    let sum: f64 = prob.iter().sum();
    let mut max = 0.0;
    for p in prob.iter_mut() {
        *p /= sum;
        if max < *p {
            max = *p;
        }
    }
    max
}

/// CPython's `random.Random` (MT19937) for the calls langdetect makes.
struct PyRandom {
    state: [u32; 624],
    index: usize,
    gauss_next: Option<f64>,
}

impl PyRandom {
    /// `random.seed(n)` for a small non-negative integer (`init_by_array([n])`).
    fn new(seed: u32) -> PyRandom {
        let mut r = PyRandom {
            state: [0; 624],
            index: 624,
            gauss_next: None,
        };
        r.init_genrand(19650218);
        let key = [seed];
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..624usize.max(key.len()) {
            let prev = r.state[i - 1] ^ (r.state[i - 1] >> 30);
            r.state[i] = (r.state[i] ^ prev.wrapping_mul(1664525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= 624 {
                r.state[0] = r.state[623];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..623 {
            let prev = r.state[i - 1] ^ (r.state[i - 1] >> 30);
            r.state[i] = (r.state[i] ^ prev.wrapping_mul(1566083941)).wrapping_sub(i as u32);
            i += 1;
            if i >= 624 {
                r.state[0] = r.state[623];
                i = 1;
            }
        }
        r.state[0] = 0x8000_0000;
        r
    }

    fn init_genrand(&mut self, seed: u32) {
        self.state[0] = seed;
        for i in 1..624 {
            let prev = self.state[i - 1] ^ (self.state[i - 1] >> 30);
            self.state[i] = 1812433253u32.wrapping_mul(prev).wrapping_add(i as u32);
        }
        self.index = 624;
    }

    fn next_u32(&mut self) -> u32 {
        if self.index >= 624 {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    fn twist(&mut self) {
        for i in 0..624 {
            let y = (self.state[i] & 0x8000_0000) | (self.state[(i + 1) % 624] & 0x7fff_ffff);
            let mut next = self.state[(i + 397) % 624] ^ (y >> 1);
            if y & 1 != 0 {
                next ^= 0x9908_b0df;
            }
            self.state[i] = next;
        }
        self.index = 0;
    }

    fn random(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)
    }

    fn gauss(&mut self) -> f64 {
        if let Some(z) = self.gauss_next.take() {
            return z;
        }
        let x2pi = self.random() * std::f64::consts::TAU;
        let g2rad = (-2.0 * (1.0 - self.random()).ln()).sqrt();
        self.gauss_next = Some(x2pi.sin() * g2rad);
        x2pi.cos() * g2rad
    }

    /// `_randbelow_with_getrandbits(n)` for `n < 2**32`.
    fn below(&mut self, n: usize) -> usize {
        let k = usize::BITS - n.leading_zeros();
        loop {
            let r = (self.next_u32() >> (32 - k)) as usize;
            if r < n {
                return r;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PyRandom;

    #[test]
    fn matches_cpython_random() {
        // Python: r = random.Random(0); r.random() -> 0.8444218515250481
        let mut r = PyRandom::new(0);
        assert_eq!(r.random(), 0.8444218515250481);
    }
}
