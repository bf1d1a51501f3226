//! The model file: magic, format version, a JSON header (settings, vocabularies, array
//! lengths) and little-endian arrays (idf, selected columns, weights, intercept and Platt
//! parameters). Deterministic; the loader checks every length against the input first.

use super::error::{Error, Result};
use super::model::{Linear, Model, Settings};
use super::vectorize::{Features, FieldVectorizer, VectorizerKind};
use serde::{Deserialize, Serialize};

const MAGIC: &[u8; 8] = b"ta-clsf\0";
const VERSION: u32 = 1;
const PREFIX: usize = MAGIC.len() + 4 + 8;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    settings: Settings,
    /// Per field: vocabulary (empty for hashing) and whether an idf array follows.
    fields: Vec<FieldHeader>,
    selected: usize,
    platt: bool,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldHeader {
    terms: Vec<String>,
    idf: bool,
}

/// Serialises a model.
pub fn to_bytes(model: &Model) -> Vec<u8> {
    let header = Header {
        settings: model.settings.clone(),
        fields: model
            .features
            .fields
            .iter()
            .map(|f| FieldHeader {
                terms: f.terms.clone(),
                idf: f.idf.is_some(),
            })
            .collect(),
        selected: model.linear.columns.len(),
        platt: model.linear.platt.is_some(),
    };
    let json = serde_json::to_vec(&header).unwrap_or_default();
    let mut out = Vec::with_capacity(PREFIX + json.len() + 12 * header.selected + 24);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(json.len() as u64).to_le_bytes());
    out.extend_from_slice(&json);
    for idf in model.features.fields.iter().filter_map(|f| f.idf.as_ref()) {
        idf.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    }
    model.linear.columns.iter().for_each(|c| out.extend_from_slice(&c.to_le_bytes()));
    model.linear.weights.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
    let (a, b) = model.linear.platt.unwrap_or((0.0, 0.0));
    [model.linear.intercept, a, b]
        .iter()
        .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    out
}

fn corrupt(what: &str) -> Error {
    Error::Corrupt(what.to_owned())
}

/// Reads arrays off the front of a byte slice.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into().unwrap_or([0; N])
    }
    fn f64s(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| f64::from_le_bytes(self.take())).collect()
    }
    fn u32s(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| u32::from_le_bytes(self.take())).collect()
    }
}

/// Loads a model written by [`to_bytes`]; rejects anything else with [`Error::Corrupt`] or
/// [`Error::Version`].
pub fn from_bytes(bytes: &[u8]) -> Result<Model> {
    if bytes.len() < PREFIX || &bytes[..8] != MAGIC {
        return Err(corrupt("missing classifier model header"));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().map_err(|_| corrupt("short header"))?);
    if version != VERSION {
        return Err(Error::Version(version));
    }
    let header_len = u64::from_le_bytes(bytes[12..20].try_into().map_err(|_| corrupt("short header"))?);
    let rest = &bytes[PREFIX..];
    let header_len = usize::try_from(header_len)
        .ok()
        .filter(|&n| n <= rest.len())
        .ok_or_else(|| corrupt("header longer than the file"))?;
    let header: Header = serde_json::from_slice(&rest[..header_len]).map_err(|e| Error::Corrupt(format!("bad header: {e}")))?;
    let arrays = &rest[header_len..];
    let idf_values: usize = header.fields.iter().filter(|f| f.idf).map(|f| f.terms.len()).sum();
    let expected = idf_values
        .checked_mul(8)
        .and_then(|n| n.checked_add(header.selected.checked_mul(12)?))
        .and_then(|n| n.checked_add(24));
    if expected != Some(arrays.len()) {
        return Err(corrupt("array data does not match the header"));
    }
    check_header(&header)?;
    let mut reader = Reader(arrays);
    let kind = header.settings.vectorizer;
    let fields = header
        .fields
        .into_iter()
        .map(|f| {
            let idf = f.idf.then(|| reader.f64s(f.terms.len()));
            FieldVectorizer::from_parts(kind, f.terms, idf)
        })
        .collect();
    let features = Features { fields };
    let columns = reader.u32s(header.selected);
    let weights = reader.f64s(header.selected);
    let [intercept, a, b] = reader.f64s(3).try_into().map_err(|_| corrupt("missing intercept"))?;
    if !columns.windows(2).all(|w| w[0] < w[1]) || columns.last().is_some_and(|&c| c as usize >= features.width()) {
        return Err(corrupt("selected columns out of order or range"));
    }
    let linear = Linear {
        columns,
        weights,
        intercept,
        platt: header.platt.then_some((a, b)),
    };
    Ok(Model::new(header.settings, features, linear))
}

fn check_header(header: &Header) -> Result<()> {
    if header.settings.fields.is_empty() || header.fields.len() != header.settings.fields.len() {
        return Err(corrupt("field count mismatch"));
    }
    let kind = header.settings.vectorizer;
    for field in &header.fields {
        let hashing = kind == VectorizerKind::Hashing;
        if hashing != field.terms.is_empty() || (field.idf && kind != VectorizerKind::TfIdf) {
            return Err(corrupt("vocabulary does not fit the vectorizer"));
        }
        if !field.terms.windows(2).all(|w| w[0] < w[1]) {
            return Err(corrupt("vocabulary not sorted"));
        }
    }
    Ok(())
}
