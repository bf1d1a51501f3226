//! Reading the English model's files: thinc's msgpack model (`model`: nodes, their attributes
//! and their msgpack-numpy parameters), the transition labels (`moves`) and the
//! `lexeme_norm` table (`lookups.bin`).

use rmpv::Value;

/// A float parameter: its shape and values in row-major order.
pub struct Array {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

/// One node of the model: its name, attributes (decoded) and parameters.
pub struct Node {
    pub name: String,
    pub attrs: Vec<(String, Value)>,
    pub params: Vec<(String, Array)>,
}

impl Node {
    /// A parameter, with an error naming the node when it is missing or of another shape.
    pub fn param(&self, name: &str, shape: &[usize]) -> Result<&[f32], String> {
        let array = self
            .params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, a)| a)
            .ok_or_else(|| format!("node {} has no parameter {name}", self.name))?;
        if array.shape != shape {
            return Err(format!(
                "node {} parameter {name} has shape {:?}, expected {shape:?}",
                self.name, array.shape
            ));
        }
        Ok(&array.data)
    }

    /// The shape of a parameter (empty when missing).
    pub fn shape(&self, name: &str) -> &[usize] {
        self.params.iter().find(|(n, _)| n == name).map_or(&[], |(_, a)| &a.shape)
    }

    /// An integer attribute.
    pub fn attr_int(&self, name: &str) -> Option<i64> {
        self.attrs.iter().find(|(n, _)| n == name).and_then(|(_, v)| v.as_i64())
    }
}

fn parse(bytes: &[u8], what: &str) -> Result<Value, String> {
    rmpv::decode::read_value(&mut &bytes[..]).map_err(|e| format!("not msgpack ({what}): {e}"))
}

fn get<'a>(map: &'a Value, key: &str) -> Option<&'a Value> {
    map.as_map()?
        .iter()
        .find(|(k, _)| match k {
            Value::String(s) => s.as_str() == Some(key),
            Value::Binary(b) => b == key.as_bytes(),
            _ => false,
        })
        .map(|(_, v)| v)
}

fn key_str(k: &Value) -> Option<String> {
    match k {
        Value::String(s) => s.as_str().map(str::to_string),
        Value::Binary(b) => String::from_utf8(b.clone()).ok(),
        _ => None,
    }
}

/// A msgpack-numpy array (`nd`, `type` `<f4`, `shape`, `data`).
fn array(v: &Value) -> Result<Array, String> {
    let dtype = get(v, "type").and_then(key_str).unwrap_or_default();
    if dtype != "<f4" {
        return Err(format!("parameter of type {dtype:?}, expected <f4"));
    }
    let shape: Vec<usize> = get(v, "shape")
        .and_then(Value::as_array)
        .ok_or("parameter without a shape")?
        .iter()
        .map(|d| d.as_u64().map(|d| d as usize))
        .collect::<Option<_>>()
        .ok_or("bad parameter shape")?;
    let raw = match get(v, "data") {
        Some(Value::Binary(b)) => b,
        _ => return Err("parameter without data".into()),
    };
    if raw.len() != shape.iter().product::<usize>() * 4 {
        return Err(format!("parameter data of {} bytes for shape {shape:?}", raw.len()));
    }
    let data = raw
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    Ok(Array { shape, data })
}

/// The nodes of a thinc model file, in its order.
pub fn read_model(bytes: &[u8]) -> Result<Vec<Node>, String> {
    let root = parse(bytes, "file")?;
    let list = |key: &str| get(&root, key).and_then(Value::as_array).ok_or_else(|| format!("no {key} list"));
    let (nodes, attrs, params) = (list("nodes")?, list("attrs")?, list("params")?);
    if nodes.len() != attrs.len() || nodes.len() != params.len() {
        return Err("nodes, attrs and params differ in length".into());
    }
    let mut out = Vec::with_capacity(nodes.len());
    for ((node, attrs), params) in nodes.iter().zip(attrs).zip(params) {
        let name = get(node, "name").and_then(key_str).ok_or("node without a name")?;
        let mut decoded = Vec::new();
        for (k, v) in attrs.as_map().map(Vec::as_slice).unwrap_or(&[]) {
            let key = key_str(k).ok_or("bad attribute name")?;
            // Attribute values are msgpack documents of their own.
            let value = match v {
                Value::Binary(b) => parse(b, "attribute")?,
                other => other.clone(),
            };
            decoded.push((key, value));
        }
        let mut arrays = Vec::new();
        for (k, v) in params.as_map().map(Vec::as_slice).unwrap_or(&[]) {
            let key = key_str(k).ok_or("bad parameter name")?;
            arrays.push((key.clone(), array(v).map_err(|e| format!("node {name} {key}: {e}"))?));
        }
        out.push(Node {
            name,
            attrs: decoded,
            params: arrays,
        });
    }
    Ok(out)
}

/// The transition classes of the `moves` file, in the model's output order: for each move
/// (B, I, L, U, O, numbered 1–5 as in spaCy) its labels by descending frequency, ties by
/// descending name; `O` only with the empty label.
pub fn read_moves(bytes: &[u8]) -> Result<Vec<(u8, String)>, String> {
    let root = parse(bytes, "file")?;
    let json = get(&root, "moves").and_then(key_str).ok_or("no moves entry")?;
    let table: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&json).map_err(|e| format!("{e}"))?;
    let mut actions: Vec<(u8, &serde_json::Map<String, serde_json::Value>)> = Vec::new();
    for (k, v) in &table {
        let action: u8 = k.parse().map_err(|_| format!("bad action {k:?}"))?;
        actions.push((action, v.as_object().ok_or("bad label table")?));
    }
    actions.sort_by_key(|(a, _)| *a);
    let mut out = Vec::new();
    for (action, labels) in actions.into_iter().filter(|(a, _)| *a != 0) {
        let mut sorted: Vec<(i64, &String)> = Vec::new();
        for (label, freq) in labels {
            match freq.as_i64() {
                Some(f) if f >= 0 => sorted.push((f, label)),
                _ => return Err(format!("unsupported frequency {freq} of {label:?}")),
            }
        }
        sorted.sort_by(|a, b| b.cmp(a));
        for (_, label) in sorted {
            if action != 5 || label.is_empty() {
                out.push((action, label.clone()));
            }
        }
    }
    Ok(out)
}

/// The `lexeme_norm` table of `lookups.bin`: id of a text → its norm.
pub fn read_norms(bytes: &[u8]) -> Result<Vec<(u64, String)>, String> {
    let root = parse(bytes, "file")?;
    let table = match get(&root, "lexeme_norm") {
        Some(Value::Binary(b)) => parse(b, "lexeme_norm table")?,
        Some(v) => v.clone(),
        None => return Err("no lexeme_norm table".into()),
    };
    let table = get(&table, "dict").cloned().unwrap_or(table);
    let map = table.as_map().ok_or("lexeme_norm is not a map")?;
    map.iter()
        .map(|(k, v)| match (k.as_u64(), key_str(v)) {
            (Some(k), Some(v)) => Ok((k, v)),
            _ => Err("bad lexeme_norm entry".to_string()),
        })
        .collect()
}

/// Token norms spaCy's tokenizer exceptions (`tokenizer`) give where ta's tokenizer makes the
/// same token: the pieces of one-piece exceptions (`Jan.` → `January`) and the clitics of
/// contractions (`n't` → `not`, `'re` → `are`), each with its most frequent norm; clitics
/// whose norm depends on the word before (`'s`, `'d`) keep the lexeme norm on a tie.
pub fn read_token_norms(bytes: &[u8]) -> Result<Vec<(String, String)>, String> {
    const ORTH: u64 = 65;
    const NORM: u64 = 67;
    let root = parse(bytes, "file")?;
    let exceptions = get(&root, "exceptions").and_then(Value::as_map).ok_or("no exceptions")?;
    let mut counts: std::collections::BTreeMap<String, Vec<(Option<String>, usize)>> = Default::default();
    for (_, pieces) in exceptions {
        let pieces = pieces.as_array().ok_or("bad exception")?;
        for piece in pieces {
            let attr = |id: u64| {
                piece
                    .as_map()?
                    .iter()
                    .find(|(k, _)| k.as_u64() == Some(id))
                    .and_then(|(_, v)| key_str(v))
            };
            let Some(orth) = attr(ORTH) else { continue };
            let clitic = orth.starts_with(['\'', '’']) || orth == "n't" || orth == "n’t";
            if pieces.len() == 1 || clitic {
                let norm = attr(NORM);
                let entry = counts.entry(orth).or_default();
                match entry.iter_mut().find(|(n, _)| *n == norm) {
                    Some((_, c)) => *c += 1,
                    None => entry.push((norm, 1)),
                }
            }
        }
    }
    let mut out = Vec::new();
    for (orth, mut norms) in counts {
        norms.sort_by_key(|(_, count)| std::cmp::Reverse(*count));
        if let [(Some(norm), top), rest @ ..] = norms.as_slice() {
            if rest.first().is_none_or(|(_, c)| c < top) {
                out.push((orth, norm.clone()));
            }
        }
    }
    Ok(out)
}
