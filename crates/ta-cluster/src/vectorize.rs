//! Document vectors (`collection.md` §5.4 rule 4): counts or tf-idf over the dictionary,
//! optionally projected onto LSI topics, kept as a model that vectorizes documents added
//! later the same way; and the mean word vectors of an embedding.
use crate::dictionary::Dictionary;
use crate::matrix::Rows;
use crate::svd::right_singular_vectors;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How dictionary counts become a vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Weighting {
    /// Raw counts.
    Count,
    /// `tf · log2(N / df)`, each row L2-normalised (gensim `TfidfModel` defaults).
    TfIdf,
}

/// An LSI projection: `dim × topics` row-major.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lsi {
    pub topics: usize,
    pub projection: Vec<f32>,
}

/// What turns token lists into vectors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Model {
    pub dictionary: Dictionary,
    pub weighting: Weighting,
    /// `log2(N / df)` per dictionary id (tf-idf).
    pub idf: Vec<f32>,
    pub lsi: Option<Lsi>,
}

impl Model {
    /// Fits the dictionary (`keep_n` tokens), the weights and, with `lsi_topics`, an LSI
    /// projection (seeded) on `docs`.
    pub fn fit<S: AsRef<str> + Sync>(docs: &[Vec<S>], keep_n: usize, weighting: Weighting, lsi_topics: Option<usize>, seed: u64) -> Model {
        let dictionary = Dictionary::build(docs, keep_n);
        let n = docs.len() as f64;
        let idf = (0..dictionary.len() as u32)
            .map(|id| (n / f64::from(dictionary.df(id))).log2() as f32)
            .collect();
        let mut model = Model {
            dictionary,
            weighting,
            idf,
            lsi: None,
        };
        // an empty dictionary leaves nothing to project
        if let Some(topics) = lsi_topics.filter(|_| !model.dictionary.is_empty()) {
            let weighted = model.weighted(docs);
            let (projection, _, topics) = right_singular_vectors(&weighted, topics, seed);
            model.lsi = Some(Lsi { topics, projection });
        }
        model
    }

    /// Rebuilds lookups after the model was read back.
    pub fn loaded(mut self) -> Model {
        self.dictionary.index();
        self
    }

    /// The count or tf-idf rows of `docs`.
    fn weighted<S: AsRef<str> + Sync>(&self, docs: &[Vec<S>]) -> Rows {
        let rows: Vec<Vec<(u32, f32)>> = docs.par_iter().map(|doc| self.weighted_row(doc)).collect();
        let mut out = Rows::new(self.dictionary.len());
        rows.into_iter().for_each(|r| out.push(r));
        out
    }

    fn weighted_row<S: AsRef<str>>(&self, tokens: &[S]) -> Vec<(u32, f32)> {
        let bow = self.dictionary.bow(tokens);
        match self.weighting {
            Weighting::Count => bow.into_iter().map(|(id, n)| (id, n as f32)).collect(),
            Weighting::TfIdf => {
                let weighted: Vec<(u32, f64)> = bow
                    .into_iter()
                    .map(|(id, n)| (id, f64::from(n) * f64::from(self.idf[id as usize])))
                    .filter(|(_, w)| w.abs() > 1e-12)
                    .collect();
                let norm = weighted.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
                weighted.into_iter().map(|(id, w)| (id, (w / norm) as f32)).collect()
            }
        }
    }

    /// The vectors of `docs`, in order.
    pub fn transform<S: AsRef<str> + Sync>(&self, docs: &[Vec<S>]) -> Rows {
        let weighted = self.weighted(docs);
        let Some(lsi) = &self.lsi else {
            return weighted;
        };
        let k = lsi.topics;
        let rows: Vec<Vec<f32>> = (0..weighted.len())
            .into_par_iter()
            .map(|r| {
                let mut out = vec![0f64; k];
                let (cols, vals) = weighted.row(r);
                for (&c, &v) in cols.iter().zip(vals) {
                    let base = c as usize * k;
                    for (o, p) in out.iter_mut().zip(&lsi.projection[base..base + k]) {
                        *o += f64::from(v) * f64::from(*p);
                    }
                }
                out.into_iter().map(|v| v as f32).collect()
            })
            .collect();
        Rows::from_dense(k, rows)
    }
}

/// The embedding vector of each document (`dim` wide): the mean of the L2-normalised vectors
/// of its tokens that `lookup` knows, L2-normalised; zero when it knows none.
pub fn embedding_rows<S: AsRef<str> + Sync>(docs: &[Vec<S>], dim: usize, lookup: &(dyn Fn(&str) -> Option<Vec<f32>> + Sync)) -> Rows {
    let rows: Vec<Vec<f32>> = docs
        .par_iter()
        .map(|doc| {
            let mut sum = vec![0f64; dim];
            for v in doc.iter().filter_map(|t| lookup(t.as_ref())) {
                let norm = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
                if norm > 0.0 {
                    sum.iter_mut().zip(&v).for_each(|(s, x)| *s += f64::from(*x) / norm);
                }
            }
            let norm = sum.iter().map(|x| x * x).sum::<f64>().sqrt();
            sum.into_iter().map(|x| if norm > 0.0 { (x / norm) as f32 } else { 0.0 }).collect()
        })
        .collect();
    Rows::from_dense(dim, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(texts: &[&str]) -> Vec<Vec<String>> {
        texts.iter().map(|t| t.split_whitespace().map(String::from).collect()).collect()
    }

    #[test]
    fn tfidf_rows_are_log2_weighted_and_unit_length() {
        let corpus = docs(&["a a b", "b c", "c d", "d e"]);
        let m = Model::fit(&corpus, 100, Weighting::TfIdf, None, 10);
        let rows = m.transform(&corpus);
        // "a": df 1 of 4 → idf 2, tf 2 → 4; "b": df 2 → idf 1 → 1; normalised by √17.
        let (cols, vals) = rows.row(0);
        assert_eq!(cols, [0, 1]);
        assert!((vals[0] - 4.0 / 17f32.sqrt()).abs() < 1e-6 && (vals[1] - 1.0 / 17f32.sqrt()).abs() < 1e-6);
        let counts = Model::fit(&corpus, 100, Weighting::Count, None, 10).transform(&corpus);
        assert_eq!(counts.row(0).1, [2.0, 1.0]);
        // A document with no known token is a zero row.
        assert_eq!(m.transform(&docs(&["zzz"])).nnz(), 0);
    }

    #[test]
    fn lsi_projects_onto_the_topics_and_is_seeded() {
        let corpus = docs(&["a b", "a b", "a b c", "x y", "x y", "x y z"]);
        let m = Model::fit(&corpus, 100, Weighting::TfIdf, Some(2), 10);
        let rows = m.transform(&corpus);
        assert_eq!(rows.dim(), 2);
        assert_eq!(m, Model::fit(&corpus, 100, Weighting::TfIdf, Some(2), 10));
        // Documents of one vocabulary are close, of the two far apart.
        let cos = |a: usize, b: usize| rows.dot_rows(a, &rows, b) / (rows.norm2(a) * rows.norm2(b)).sqrt();
        assert!(cos(0, 2) > 0.9 && cos(3, 5) > 0.9 && cos(0, 3).abs() < 0.1, "{rows:?}");
    }

    #[test]
    fn an_empty_dictionary_gives_rows_without_dimensions_with_or_without_lsi() {
        // every token is in more than 80 % of the documents
        let corpus = docs(&["a b", "a b", "a b"]);
        for lsi in [None, Some(2)] {
            let m = Model::fit(&corpus, 100, Weighting::TfIdf, lsi, 10);
            assert!(m.dictionary.is_empty() && m.lsi.is_none());
            assert_eq!((m.transform(&corpus).dim(), m.transform(&corpus).nnz()), (0, 0));
        }
    }

    #[test]
    fn embedding_rows_average_the_known_words() {
        let lookup = |w: &str| match w {
            "a" => Some(vec![2.0, 0.0]),
            "b" => Some(vec![0.0, 5.0]),
            _ => None,
        };
        let rows = embedding_rows(&docs(&["a b q", "q"]), 2, &lookup);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert_eq!(rows.row(0).1, [h, h]);
        assert_eq!(rows.nnz(), 2);
    }
}
