//! Word n-gram (1, 2) vectorizers, one per field, as applied at tagging time: hashing
//! (scikit-learn's `HashingVectorizer`), counts and TF-IDF over a fitted vocabulary; and the
//! concatenated feature space of all fields.

use super::murmur::murmur3_x86_32;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Columns of one hashed field block.
pub const HASH_WIDTH: usize = 1 << 20;

/// The vectorizer choice of a tagger, named as in the API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub enum VectorizerKind {
    #[serde(rename = "Hashing Vectorizer")]
    Hashing,
    #[serde(rename = "Count Vectorizer")]
    Count,
    #[serde(rename = "TfIdf Vectorizer")]
    TfIdf,
}

/// One document: the processed tokens of each field, in field order.
pub type Doc = Vec<Vec<String>>;

/// Column and sign of an n-gram in a hashed block, as scikit-learn computes them.
pub fn hash_ngram(ngram: &str) -> (u32, f64) {
    let h = murmur3_x86_32(ngram.as_bytes(), 0) as i32;
    (
        (i64::from(h).unsigned_abs() % HASH_WIDTH as u64) as u32,
        if h >= 0 { 1.0 } else { -1.0 },
    )
}

/// Hashed entries of the unigrams and bigrams (`a b`) of `tokens`, unmerged.
pub fn hash_tokens(tokens: &[String]) -> Vec<(u32, f64)> {
    let mut entries: Vec<(u32, f64)> = tokens.iter().map(|t| hash_ngram(t)).collect();
    let mut bigram = String::new();
    for pair in tokens.windows(2) {
        bigram.clear();
        bigram.push_str(&pair[0]);
        bigram.push(' ');
        bigram.push_str(&pair[1]);
        entries.push(hash_ngram(&bigram));
    }
    entries
}

/// The key of an n-gram of word ids: a unigram `a` or a bigram `a b`.
pub fn ngram_key(first: u32, second: Option<u32>) -> u64 {
    (u64::from(first) << 32) | u64::from(second.unwrap_or(u32::MAX))
}

/// Word id of a token outside the vocabulary.
pub const UNKNOWN: u32 = u32::MAX;

/// Calls `f` with the key of every unigram, then every bigram, of a word-id sequence, skipping
/// n-grams with an [`UNKNOWN`] word.
pub fn for_each_key(ids: &[u32], mut f: impl FnMut(u64)) {
    ids.iter().filter(|&&a| a != UNKNOWN).for_each(|&a| f(ngram_key(a, None)));
    ids.windows(2)
        .filter(|p| p[0] != UNKNOWN && p[1] != UNKNOWN)
        .for_each(|p| f(ngram_key(p[0], Some(p[1]))));
}

/// Turns raw n-gram entries into a block row: sums duplicates (ascending columns), then
/// [`weigh`]s it.
pub fn finish_row(mut entries: Vec<(u32, f64)>, idf: Option<&[f64]>, normalise: bool) -> Vec<(u32, f64)> {
    entries.sort_unstable_by_key(|e| e.0);
    let mut out: Vec<(u32, f64)> = Vec::with_capacity(entries.len());
    for (c, v) in entries {
        match out.last_mut() {
            Some(last) if last.0 == c => last.1 += v,
            _ => out.push((c, v)),
        }
    }
    out.retain(|e| e.1 != 0.0);
    weigh(&mut out, idf, normalise);
    out
}

/// Applies idf weights to a block row (ascending, distinct, non-zero entries) and
/// L2-normalises it unless the block holds raw counts.
pub fn weigh(row: &mut [(u32, f64)], idf: Option<&[f64]>, normalise: bool) {
    if let Some(idf) = idf {
        row.iter_mut().for_each(|e| e.1 *= idf[e.0 as usize]);
    }
    let norm = row.iter().map(|e| e.1 * e.1).sum::<f64>().sqrt();
    if normalise && norm > 0.0 {
        row.iter_mut().for_each(|e| e.1 /= norm);
    }
}

/// The fitted vectorizer of one field. `terms` (the sorted vocabulary) is empty for hashing;
/// `idf` is set only for TF-IDF with `use_idf`.
#[derive(Clone, Debug)]
pub struct FieldVectorizer {
    pub kind: VectorizerKind,
    pub terms: Vec<String>,
    pub idf: Option<Vec<f64>>,
    /// Words of the vocabulary and the n-gram key -> column map over their ids.
    words: FxHashMap<String, u32>,
    columns: FxHashMap<u64, u32>,
}

impl PartialEq for FieldVectorizer {
    fn eq(&self, other: &Self) -> bool {
        (self.kind, &self.terms, &self.idf) == (other.kind, &other.terms, &other.idf)
    }
}

impl FieldVectorizer {
    /// Builds a vectorizer from its vocabulary (n-grams are tokens joined by one space; tokens
    /// hold no whitespace) and idf weights.
    pub fn from_parts(kind: VectorizerKind, terms: Vec<String>, idf: Option<Vec<f64>>) -> Self {
        let mut words = FxHashMap::default();
        let mut id = |w: &str| {
            let next = words.len() as u32;
            *words.entry(w.to_owned()).or_insert(next)
        };
        let columns = terms
            .iter()
            .enumerate()
            .map(|(c, term)| {
                let key = match term.split_once(' ') {
                    Some((a, b)) => ngram_key(id(a), Some(id(b))),
                    None => ngram_key(id(term), None),
                };
                (key, c as u32)
            })
            .collect();
        FieldVectorizer {
            kind,
            terms,
            idf,
            words,
            columns,
        }
    }

    /// Number of columns of this field's block.
    pub fn width(&self) -> usize {
        match self.kind {
            VectorizerKind::Hashing => HASH_WIDTH,
            _ => self.terms.len(),
        }
    }

    /// The block row of one field's tokens.
    pub fn transform(&self, tokens: &[String]) -> Vec<(u32, f64)> {
        let entries = match self.kind {
            VectorizerKind::Hashing => hash_tokens(tokens),
            _ => {
                let ids: Vec<u32> = tokens
                    .iter()
                    .map(|t| self.words.get(t.as_str()).copied().unwrap_or(UNKNOWN))
                    .collect();
                let mut entries = Vec::with_capacity(ids.len() * 2);
                for_each_key(&ids, |key| entries.extend(self.columns.get(&key).map(|&c| (c, 1.0))));
                entries
            }
        };
        finish_row(entries, self.idf.as_deref(), self.kind != VectorizerKind::Count)
    }
}

/// The fitted vectorizers of all fields; columns are the field blocks side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    pub fields: Vec<FieldVectorizer>,
}

impl Features {
    /// Total number of columns.
    pub fn width(&self) -> usize {
        self.fields.iter().map(FieldVectorizer::width).sum()
    }

    /// The feature row of one document.
    pub fn transform_one(&self, doc: &Doc) -> Vec<(u32, f64)> {
        let mut row = Vec::new();
        let mut offset = 0u32;
        for (field, tokens) in self.fields.iter().zip(doc) {
            row.extend(field.transform(tokens).into_iter().map(|(c, v)| (c + offset, v)));
            offset += field.width() as u32;
        }
        row
    }

    /// The name of column `column`: the n-gram, prefixed `<field>: ` when there are several
    /// fields; `None` for hashed columns.
    pub fn feature_name(&self, column: usize, field_names: &[String]) -> Option<String> {
        let mut offset = 0;
        for (field, name) in self.fields.iter().zip(field_names) {
            if column < offset + field.width() {
                let term = field.terms.get(column - offset)?;
                return Some(if self.fields.len() > 1 {
                    format!("{name}: {term}")
                } else {
                    term.clone()
                });
            }
            offset += field.width();
        }
        None
    }
}
