//! Training-side encoding of the documents: hashed rows are computed once; for count and
//! TF-IDF every distinct n-gram gets an id once, so that a vocabulary (n-grams in at least
//! [`MIN_DF`] documents) can be fitted per cross-validation fold with plain arrays.

use super::sparse::Csr;
use super::vectorize::{finish_row, for_each_key, Doc, Features, FieldVectorizer, VectorizerKind};
use rustc_hash::FxHashMap;

/// An n-gram enters a vocabulary when this many training documents contain it.
pub const MIN_DF: u32 = 5;

/// All documents of one training run, ready for fitting vectorizers on any subset.
pub enum Prepared {
    /// Hashed rows of every document (hashing fits nothing).
    Hashed { rows: Csr, fields: usize },
    /// Per field: the n-gram table and each document's n-gram counts.
    Encoded { kind: VectorizerKind, fields: Vec<EncodedField> },
}

/// One field of [`Prepared::Encoded`]: every distinct n-gram of the documents has an id;
/// each document is its list of `(n-gram id, count)`.
pub struct EncodedField {
    words: Vec<String>,
    /// N-gram id -> key over word ids (`vectorize::ngram_key`).
    ngrams: Vec<u64>,
    docs: Vec<Vec<(u32, u32)>>,
}

/// Vectorizers fitted on a subset of documents, with their n-gram id -> column maps.
pub struct Fitted {
    pub features: Features,
    columns: Vec<Vec<u32>>,
}

/// Column of an n-gram outside the vocabulary.
const NONE: u32 = u32::MAX;

impl EncodedField {
    fn new<'a>(tokens: impl Iterator<Item = &'a [String]>) -> Self {
        let mut word_ids: FxHashMap<&str, u32> = FxHashMap::default();
        let mut words = Vec::new();
        let mut ngram_ids: FxHashMap<u64, u32> = FxHashMap::default();
        let mut ngrams = Vec::new();
        let docs = tokens
            .map(|tokens| {
                let ids: Vec<u32> = tokens
                    .iter()
                    .map(|t| {
                        *word_ids.entry(t.as_str()).or_insert_with(|| {
                            words.push(t.clone());
                            words.len() as u32 - 1
                        })
                    })
                    .collect();
                let mut doc = Vec::with_capacity(ids.len() * 2);
                for_each_key(&ids, |key| {
                    doc.push(*ngram_ids.entry(key).or_insert_with(|| {
                        ngrams.push(key);
                        ngrams.len() as u32 - 1
                    }))
                });
                doc.sort_unstable();
                let mut counted: Vec<(u32, u32)> = Vec::with_capacity(doc.len());
                for id in doc {
                    match counted.last_mut() {
                        Some(last) if last.0 == id => last.1 += 1,
                        _ => counted.push((id, 1)),
                    }
                }
                counted
            })
            .collect();
        EncodedField { words, ngrams, docs }
    }

    fn term(&self, key: u64) -> String {
        let (a, b) = ((key >> 32) as usize, key as u32);
        match self.words.get(b as usize) {
            Some(second) => format!("{} {second}", self.words[a]),
            None => self.words[a].clone(),
        }
    }

    /// The vocabulary of documents `docs`; `None` when it is empty.
    fn fit(&self, kind: VectorizerKind, docs: &[usize], use_idf: bool) -> Option<(FieldVectorizer, Vec<u32>)> {
        let mut df = vec![0u32; self.ngrams.len()];
        for &d in docs {
            self.docs[d].iter().for_each(|&(id, _)| df[id as usize] += 1);
        }
        let mut kept: Vec<(String, u32)> = df
            .iter()
            .enumerate()
            .filter(|(_, &n)| n >= MIN_DF)
            .map(|(id, _)| (self.term(self.ngrams[id]), id as u32))
            .collect();
        if kept.is_empty() {
            return None;
        }
        kept.sort_unstable();
        let n = docs.len() as f64;
        let idf = (kind == VectorizerKind::TfIdf && use_idf).then(|| {
            kept.iter()
                .map(|(_, id)| ((1.0 + n) / (1.0 + f64::from(df[*id as usize]))).ln() + 1.0)
                .collect()
        });
        let mut columns = vec![NONE; self.ngrams.len()];
        kept.iter().enumerate().for_each(|(c, (_, id))| columns[*id as usize] = c as u32);
        Some((
            FieldVectorizer::from_parts(kind, kept.into_iter().map(|(t, _)| t).collect(), idf),
            columns,
        ))
    }
}

impl Prepared {
    /// Encodes (or hashes) the fields of all documents.
    pub fn new(kind: VectorizerKind, docs: &[Doc], fields: usize) -> Self {
        match kind {
            VectorizerKind::Hashing => {
                let features = Features {
                    fields: (0..fields).map(|_| FieldVectorizer::from_parts(kind, Vec::new(), None)).collect(),
                };
                let mut rows = Csr::new(features.width());
                docs.iter().for_each(|d| rows.push_row(features.transform_one(d)));
                Prepared::Hashed { rows, fields }
            }
            _ => Prepared::Encoded {
                kind,
                fields: (0..fields)
                    .map(|f| EncodedField::new(docs.iter().map(|d| d[f].as_slice())))
                    .collect(),
            },
        }
    }

    /// Fits the vectorizers on documents `docs`; `Err(field index)` for an empty vocabulary.
    pub fn fit(&self, docs: &[usize], use_idf: bool) -> Result<Fitted, usize> {
        match self {
            Prepared::Hashed { fields, .. } => Ok(Fitted {
                features: Features {
                    fields: (0..*fields)
                        .map(|_| FieldVectorizer::from_parts(VectorizerKind::Hashing, Vec::new(), None))
                        .collect(),
                },
                columns: Vec::new(),
            }),
            Prepared::Encoded { kind, fields } => {
                let (vectorizers, columns) = fields
                    .iter()
                    .enumerate()
                    .map(|(f, field)| field.fit(*kind, docs, use_idf).ok_or(f))
                    .collect::<Result<Vec<_>, _>>()?
                    .into_iter()
                    .unzip();
                Ok(Fitted {
                    features: Features { fields: vectorizers },
                    columns,
                })
            }
        }
    }

    /// Feature rows of documents `docs` under fitted vectorizers.
    pub fn rows(&self, fitted: &Fitted, docs: &[usize]) -> Csr {
        match self {
            Prepared::Hashed { rows, .. } => rows.select_rows(docs),
            Prepared::Encoded { kind, fields } => {
                let mut out = Csr::new(fitted.features.width());
                for &d in docs {
                    let mut row = Vec::new();
                    let mut offset = 0;
                    for ((field, vectorizer), columns) in fields.iter().zip(&fitted.features.fields).zip(&fitted.columns) {
                        let entries = field.docs[d]
                            .iter()
                            .map(|&(id, count)| (columns[id as usize], f64::from(count)))
                            .filter(|&(column, _)| column != NONE)
                            .collect();
                        row.extend(
                            finish_row(entries, vectorizer.idf.as_deref(), *kind != VectorizerKind::Count)
                                .into_iter()
                                .map(|(c, v)| (c + offset, v)),
                        );
                        offset += vectorizer.width() as u32;
                    }
                    out.push_row(row);
                }
                out
            }
        }
    }
}
