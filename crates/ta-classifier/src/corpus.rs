//! Training-side encoding of the documents: hashed rows are computed once; for count and
//! TF-IDF the n-grams that can enter a vocabulary (those in at least [`MIN_DF`] of all
//! documents) are ranked in term order once, so that a vocabulary can be fitted per
//! cross-validation fold with plain arrays and its rows come out in column order.

use super::sparse::Csr;
use super::vectorize::{for_each_key, weigh, Features, FieldVectorizer, VectorizerKind, HASH_WIDTH, UNKNOWN};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// An n-gram enters a vocabulary when this many training documents contain it.
pub const MIN_DF: u32 = 5;

/// All documents of one training run, ready for fitting vectorizers on any subset.
pub enum Prepared {
    /// Hashed rows of every document (hashing fits nothing).
    Hashed { rows: Csr, fields: usize },
    /// Per field: the candidate n-grams and each document's counts of them.
    Encoded { kind: VectorizerKind, fields: Vec<EncodedField> },
}

/// One field of [`Prepared::Encoded`]. The candidates are the n-grams in at least [`MIN_DF`]
/// of all documents (a subset's vocabulary holds no other), sorted by term, so that a rank
/// order is a term order; each document is its list of `(candidate rank, count)`, ascending.
pub struct EncodedField {
    terms: Vec<String>,
    docs: Vec<Vec<(u32, u32)>>,
}

/// One chunk of documents as tokenised in parallel: its own word numbering, each document as
/// its word ids, and per word the number of the chunk's documents containing it.
struct Chunk {
    words: Vec<String>,
    docs: Vec<Vec<u32>>,
    df: Vec<u32>,
}

impl Chunk {
    fn new(docs: std::ops::Range<usize>, tokens: &(impl Fn(usize, &mut dyn FnMut(&str)) + Sync)) -> Chunk {
        let mut ids: FxHashMap<String, u32> = FxHashMap::default();
        let (mut df, mut last_doc) = (Vec::new(), Vec::new());
        let docs = docs
            .map(|d| {
                let mut doc = Vec::new();
                tokens(d, &mut |t| {
                    let id = match ids.get(t) {
                        Some(&id) => id,
                        None => {
                            let id = df.len() as u32;
                            ids.insert(t.to_owned(), id);
                            df.push(0);
                            last_doc.push(usize::MAX);
                            id
                        }
                    };
                    if last_doc[id as usize] != d {
                        last_doc[id as usize] = d;
                        df[id as usize] += 1;
                    }
                    doc.push(id);
                });
                doc
            })
            .collect();
        let mut words = vec![String::new(); ids.len()];
        ids.into_iter().for_each(|(word, id)| words[id as usize] = word);
        Chunk { words, docs, df }
    }
}

/// Vectorizers fitted on a subset of documents: their vocabularies (none for hashing) and the
/// total number of columns.
pub struct Fitted {
    vocabularies: Vec<Vocabulary>,
    width: usize,
}

/// The vocabulary of one field: its candidate ranks (ascending, so columns follow term order),
/// the rank -> column map and the idf weights, if any.
struct Vocabulary {
    kept: Vec<u32>,
    columns: Vec<u32>,
    idf: Option<Vec<f64>>,
}

/// Column of an n-gram outside the vocabulary.
const NONE: u32 = u32::MAX;

/// Documents per chunk of the parallel encoding.
const CHUNK: usize = 256;

/// The n-gram of key `key` (`vectorize::ngram_key`) over `words`.
fn term(words: &[&str], key: u64) -> String {
    let (a, b) = ((key >> 32) as usize, key as u32);
    match words.get(b as usize) {
        Some(second) => format!("{} {second}", words[a]),
        None => words[a].to_owned(),
    }
}

/// `(item, count)` of the runs of equal items of a sorted sequence.
fn runs<T: PartialEq>(sorted: impl IntoIterator<Item = T>) -> Vec<(T, u32)> {
    let mut counted: Vec<(T, u32)> = Vec::new();
    for item in sorted {
        match counted.last_mut() {
            Some(last) if last.0 == item => last.1 += 1,
            _ => counted.push((item, 1)),
        }
    }
    counted
}

impl EncodedField {
    /// Encodes one field of documents `0..docs`, whose tokens `tokens(d, emit)` gives.
    fn new(docs: usize, tokens: impl Fn(usize, &mut dyn FnMut(&str)) + Sync) -> Self {
        // Chunks of documents are tokenised in parallel, each numbering its own words; the
        // numbering never shows (candidates are ordered by term), so any chunking gives the same.
        let chunks: Vec<Chunk> = (0..docs.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| Chunk::new(c * CHUNK..docs.min((c + 1) * CHUNK), &tokens))
            .collect();
        let mut word_ids: FxHashMap<&str, u32> = FxHashMap::default();
        let mut words: Vec<&str> = Vec::new();
        let mut word_df: Vec<u32> = Vec::new();
        let global: Vec<Vec<u32>> = chunks
            .iter()
            .map(|chunk| {
                chunk
                    .words
                    .iter()
                    .zip(&chunk.df)
                    .map(|(w, &df)| {
                        let id = *word_ids.entry(w.as_str()).or_insert_with(|| {
                            words.push(w.as_str());
                            word_df.push(0);
                            words.len() as u32 - 1
                        });
                        word_df[id as usize] += df;
                        id
                    })
                    .collect()
            })
            .collect();
        drop(word_ids);
        // Each document's distinct n-gram keys with their counts, ascending keys. An n-gram is
        // in no more documents than each of its words, so words under MIN_DF count as unknown:
        // no candidate is lost, and the rare n-grams are never sorted.
        let counted: Vec<Vec<(u64, u32)>> = chunks
            .par_iter()
            .zip(&global)
            .flat_map_iter(|(chunk, global)| {
                chunk.docs.iter().map(|local| {
                    let ids: Vec<u32> = local
                        .iter()
                        .map(|&i| global[i as usize])
                        .map(|g| if word_df[g as usize] >= MIN_DF { g } else { UNKNOWN })
                        .collect();
                    let mut keys = Vec::with_capacity(ids.len() * 2);
                    for_each_key(&ids, |key| keys.push(key));
                    keys.sort_unstable();
                    runs(keys)
                })
            })
            .collect();
        let mut all: Vec<u64> = counted.iter().flat_map(|doc| doc.iter().map(|e| e.0)).collect();
        all.par_sort_unstable();
        let mut candidates: Vec<(String, u64)> = runs(all)
            .into_iter()
            .filter(|&(_, df)| df >= MIN_DF)
            .map(|(key, _)| (term(&words, key), key))
            .collect();
        candidates.par_sort_unstable();
        let rank: FxHashMap<u64, u32> = candidates.iter().enumerate().map(|(r, (_, key))| (*key, r as u32)).collect();
        let docs = counted
            .par_iter()
            .map(|doc| {
                let mut ranked: Vec<(u32, u32)> = doc.iter().filter_map(|(key, count)| rank.get(key).map(|&r| (r, *count))).collect();
                ranked.sort_unstable();
                ranked
            })
            .collect();
        EncodedField {
            terms: candidates.into_iter().map(|(term, _)| term).collect(),
            docs,
        }
    }

    /// The vocabulary of documents `docs`; `None` when it is empty.
    fn fit(&self, kind: VectorizerKind, docs: &[usize], use_idf: bool) -> Option<Vocabulary> {
        let mut df = vec![0u32; self.terms.len()];
        for &d in docs {
            self.docs[d].iter().for_each(|&(rank, _)| df[rank as usize] += 1);
        }
        let mut columns = vec![NONE; self.terms.len()];
        let mut kept = Vec::new();
        for (rank, _) in df.iter().enumerate().filter(|(_, &n)| n >= MIN_DF) {
            columns[rank] = kept.len() as u32;
            kept.push(rank as u32);
        }
        if kept.is_empty() {
            return None;
        }
        let n = docs.len() as f64;
        let idf = (kind == VectorizerKind::TfIdf && use_idf).then(|| {
            kept.iter()
                .map(|&rank| ((1.0 + n) / (1.0 + f64::from(df[rank as usize]))).ln() + 1.0)
                .collect()
        });
        Some(Vocabulary { kept, columns, idf })
    }
}

impl Prepared {
    /// Encodes (or hashes) the `fields` fields of documents `0..docs`; `tokens(d, f, emit)` emits
    /// the tokens of field `f` of document `d` (called once for each, in parallel).
    pub fn new(kind: VectorizerKind, docs: usize, fields: usize, tokens: impl Fn(usize, usize, &mut dyn FnMut(&str)) + Sync) -> Self {
        match kind {
            VectorizerKind::Hashing => {
                let features = Features {
                    fields: (0..fields).map(|_| FieldVectorizer::from_parts(kind, Vec::new(), None)).collect(),
                };
                let hashed: Vec<Vec<(u32, f64)>> = (0..docs)
                    .into_par_iter()
                    .map(|d| {
                        let field_tokens = (0..fields).map(|f| {
                            let mut list = Vec::new();
                            tokens(d, f, &mut |t| list.push(t.to_owned()));
                            list
                        });
                        features.transform_one(&field_tokens.collect())
                    })
                    .collect();
                let mut rows = Csr::new(features.width());
                hashed.into_iter().for_each(|row| rows.push_row(row));
                Prepared::Hashed { rows, fields }
            }
            _ => Prepared::Encoded {
                kind,
                fields: (0..fields).map(|f| EncodedField::new(docs, |d, emit| tokens(d, f, emit))).collect(),
            },
        }
    }

    /// Fits the vectorizers on documents `docs`; `Err(field index)` for an empty vocabulary.
    pub fn fit(&self, docs: &[usize], use_idf: bool) -> Result<Fitted, usize> {
        match self {
            Prepared::Hashed { fields, .. } => Ok(Fitted {
                vocabularies: Vec::new(),
                width: fields * HASH_WIDTH,
            }),
            Prepared::Encoded { kind, fields } => {
                let vocabularies = fields
                    .iter()
                    .enumerate()
                    .map(|(f, field)| field.fit(*kind, docs, use_idf).ok_or(f))
                    .collect::<Result<Vec<_>, _>>()?;
                let width = vocabularies.iter().map(|v| v.kept.len()).sum();
                Ok(Fitted { vocabularies, width })
            }
        }
    }

    /// The fitted vectorizers as applied at tagging time.
    pub fn features(&self, fitted: &Fitted) -> Features {
        match self {
            Prepared::Hashed { fields, .. } => Features {
                fields: (0..*fields)
                    .map(|_| FieldVectorizer::from_parts(VectorizerKind::Hashing, Vec::new(), None))
                    .collect(),
            },
            Prepared::Encoded { kind, fields } => Features {
                fields: fields
                    .iter()
                    .zip(&fitted.vocabularies)
                    .map(|(field, v)| {
                        let terms = v.kept.iter().map(|&rank| field.terms[rank as usize].clone()).collect();
                        FieldVectorizer::from_parts(*kind, terms, v.idf.clone())
                    })
                    .collect(),
            },
        }
    }

    /// Feature rows of documents `docs` under fitted vectorizers.
    pub fn rows(&self, fitted: &Fitted, docs: &[usize]) -> Csr {
        match self {
            Prepared::Hashed { rows, .. } => rows.select_rows(docs),
            Prepared::Encoded { kind, fields } => {
                let mut out = Csr::new(fitted.width);
                let (mut row, mut block) = (Vec::new(), Vec::new());
                for &d in docs {
                    row.clear();
                    let mut offset = 0;
                    for (field, vocabulary) in fields.iter().zip(&fitted.vocabularies) {
                        // Ranks ascend, and so do the columns of the kept ones.
                        block.clear();
                        block.extend(field.docs[d].iter().filter_map(|&(rank, count)| {
                            let column = vocabulary.columns[rank as usize];
                            (column != NONE).then_some((column, f64::from(count)))
                        }));
                        weigh(&mut block, vocabulary.idf.as_deref(), *kind != VectorizerKind::Count);
                        row.extend(block.iter().map(|&(c, v)| (c + offset, v)));
                        offset += vocabulary.kept.len() as u32;
                    }
                    out.push_row(row.iter().copied());
                }
                out
            }
        }
    }
}
