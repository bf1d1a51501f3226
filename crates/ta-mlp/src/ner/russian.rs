//! Russian NER (ner.md §5.2): natasha's slovnet news NER (a CNN over navec word vectors and
//! token shapes, with a CRF), read at load straight from the package's two tar files in
//! `<data_dir>/mlp/ru/ner/`. The whole text is one sequence; labels `PER`, `LOC`, `ORG`.
//! ta's tokens reach the model split and joined the way its training tokens were
//! (`pieces.rs`).

mod cnn;
mod gemm;
mod navec;
mod pieces;
mod shape;
mod tar;
#[cfg(test)]
mod tests;

use std::io::Read;
use std::path::Path;

use flate2::read::GzDecoder;
use rustc_hash::FxHashMap;
use serde_json::Value;

use self::cnn::Cnn;
use self::navec::Navec;
use self::pieces::Pieces;
use self::shape::Shapes;
use self::tar::Members;
use super::{decode_bio, Entity, Recognizer};

/// The slovnet model pack (architecture, weights, vocabularies).
pub const MODEL_FILE: &str = "slovnet_ner_news_v1.tar";
/// The navec embeddings the model was trained with.
pub const NAVEC_FILE: &str = "navec_news_v1_1B_250K_300d_100q.tar";

/// The loaded model.
pub struct RussianNer {
    /// Lower-cased word → row of the embeddings.
    words: FxHashMap<Box<str>, u32>,
    unknown: u32,
    navec: Navec,
    shapes: Shapes,
    /// One row of `shape_dim` numbers per shape.
    shape_vectors: Vec<f32>,
    shape_dim: usize,
    cnn: Cnn,
    tags: Vec<String>,
}

impl RussianNer {
    /// Loads the model from `dir` (`<data_dir>/mlp/ru/ner`); an error names the missing or
    /// bad file.
    pub fn load(dir: &Path) -> Result<RussianNer, String> {
        let path = dir.join(MODEL_FILE);
        let what = path.display().to_string();
        let bytes = std::fs::read(&path).map_err(|e| format!("{what}: {e}"))?;
        let members = Members::parse(&bytes, &what)?;
        let member = |name: &str| members.get(name, &what).map(|r| &bytes[r]);
        let json =
            |name: &str| -> Result<Value, String> { serde_json::from_slice(member(name)?).map_err(|e| format!("{what}: {name}: {e}")) };
        let vocab = |name: &str| -> Result<Vec<String>, String> {
            let name = format!("vocabs/{name}.gz");
            let mut text = String::new();
            GzDecoder::new(member(&name)?)
                .read_to_string(&mut text)
                .map_err(|e| format!("{what}: {name}: {e}"))?;
            Ok(text.split('\n').map(String::from).collect())
        };
        let read = |weight: &Value| -> Result<Vec<f32>, String> {
            let name = format!(
                "arrays/{}.bin",
                weight["array"]
                    .as_u64()
                    .ok_or_else(|| format!("{what}: a weight without an array"))?
            );
            let raw = member(&name)?;
            let len: u64 = weight["shape"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| d.as_u64().unwrap_or(0))
                .product();
            if weight["dtype"] != "float32" || raw.len() as u64 != len * 4 {
                return Err(format!("{what}: {name} does not hold {} float32 numbers", weight["shape"]));
            }
            Ok(raw.chunks_exact(4).map(|b| f32::from_bits(navec::u32_le(b))).collect())
        };

        if json("meta.json")?["protocol"] != 1 {
            return Err(format!("{what}: meta.json: not protocol 1"));
        }
        let model = json("model.json")?;
        let in_pack = |e: String| format!("{what}: {e}");
        let cnn = Cnn::from_json(&model, &read).map_err(in_pack)?;
        let (shape_rows, shape_dim, shape_vectors) = cnn::matrix(&model["emb"]["shape"]["weight"], &read).map_err(in_pack)?;
        let shape_names = vocab("shape")?;
        let shapes = Shapes::new(&shape_names).map_err(in_pack)?;
        let tags = vocab("tag")?;
        let words = vocab("word")?;
        let unknown = words
            .iter()
            .position(|w| w == "<unk>")
            .ok_or_else(|| format!("{what}: no <unk> word"))? as u32;
        let navec_id = model["emb"]["word"]["id"]
            .as_str()
            .ok_or_else(|| format!("{what}: model.json names no embeddings"))?;
        let navec = Navec::open(&dir.join(NAVEC_FILE), navec_id)?;
        if navec.len() != words.len()
            || shape_rows != shape_names.len()
            || cnn.input_dim() != navec.dim() + shape_dim
            || tags.len() != cnn.tags()
        {
            return Err(format!("{what}: vocabularies, embeddings and network do not fit together"));
        }
        Ok(RussianNer {
            words: words.into_iter().enumerate().map(|(i, w)| (w.into_boxed_str(), i as u32)).collect(),
            unknown,
            navec,
            shapes,
            shape_vectors,
            shape_dim,
            cnn,
            tags,
        })
    }

    /// The BIO tag of every token of one text, given as one sequence of the model's own
    /// tokens (razdel's).
    pub fn tags(&self, tokens: &[&str]) -> Vec<&str> {
        let rows: Vec<(usize, usize)> = tokens
            .iter()
            .map(|t| {
                let word = self.words.get(t.to_lowercase().as_str()).copied().unwrap_or(self.unknown);
                (word as usize, self.shapes.id(t) as usize)
            })
            .collect();
        let dim = self.navec.dim();
        let path = self.cnn.tag(rows.len(), |t, row| {
            let (word, shape) = rows[t];
            self.navec.vector(word, &mut row[..dim]);
            row[dim..].copy_from_slice(&self.shape_vectors[shape * self.shape_dim..(shape + 1) * self.shape_dim]);
        });
        path.into_iter().map(|i| self.tags[i].as_str()).collect()
    }
}

impl Recognizer for RussianNer {
    fn entities(&self, sentences: &[Vec<&str>]) -> Vec<Entity> {
        let tokens: Vec<&str> = sentences.iter().flatten().copied().collect();
        let pieces = Pieces::new(&tokens);
        let model: Vec<&str> = pieces.tokens.iter().map(|t| t.as_ref()).collect();
        decode_bio(&pieces.labels(&self.tags(&model)))
    }
}
