//! Model export files: one zip holding `model.json` (what the model is: its kind, description
//! and stored settings) and its files (the model, a plot). Reading checks the archive before
//! anything is stored: a foreign or corrupt file, a model of another kind, or entries larger
//! than the upload limit are refused with a message.
use super::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Cursor, Read, Write};

/// Format marker inside `model.json`.
const FORMAT: &str = "ta-model-export";
const VERSION: u32 = 1;

/// What `model.json` says.
#[derive(Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    kind: String,
    description: String,
    config: Value,
}

/// A read export: the model's kind, description, stored settings and files.
pub struct Archive {
    pub description: String,
    pub config: Value,
    pub files: BTreeMap<String, Vec<u8>>,
}

/// The export file of a model of `kind` (`tagger`, `embedding`, …).
pub fn write(kind: &str, description: &str, config: &Value, files: &[(&str, &[u8])]) -> Result<Vec<u8>> {
    let header = Header {
        format: FORMAT.into(),
        version: VERSION,
        kind: kind.into(),
        description: description.into(),
        config: config.clone(),
    };
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().last_modified_time(zip::DateTime::default());
    let mut add = |name: &str, bytes: &[u8]| -> zip::result::ZipResult<()> {
        zip.start_file(name, options)?;
        zip.write_all(bytes)?;
        Ok(())
    };
    add("model.json", &serde_json::to_vec_pretty(&header).map_err(Error::internal)?).map_err(Error::internal)?;
    for (name, bytes) in files {
        add(name, bytes).map_err(Error::internal)?;
    }
    Ok(zip.finish().map_err(Error::internal)?.into_inner())
}

fn bad(msg: impl std::fmt::Display) -> Error {
    Error::field("file", format!("Not a ta model export: {msg}"))
}

/// Reads an export of a model of `kind`; no entry may unpack to more than `limit` bytes.
pub fn read(bytes: &[u8], kind: &str, limit: u64) -> Result<Archive> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(bad)?;
    let mut files = BTreeMap::new();
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(bad)?;
        let name = entry.name().map_err(bad)?.to_string();
        if entry.size() > limit {
            return Err(bad(format!("entry {name} unpacks to more than {limit} bytes")));
        }
        // The declared size is only a claim: grow with what is really read.
        let mut data = Vec::new();
        entry.take(limit + 1).read_to_end(&mut data).map_err(bad)?;
        if data.len() as u64 > limit {
            return Err(bad(format!("entry {name} unpacks to more than {limit} bytes")));
        }
        files.insert(name, data);
    }
    let header: Header = files
        .remove("model.json")
        .ok_or_else(|| bad("no model.json"))
        .and_then(|h: Vec<u8>| serde_json::from_slice(&h).map_err(bad))?;
    if header.format != FORMAT {
        return Err(bad("model.json is not a ta export"));
    }
    if header.version != VERSION {
        return Err(bad(format!("export version {} is not supported", header.version)));
    }
    if header.kind != kind {
        return Err(Error::field(
            "file",
            format!("This is an export of kind '{}'; expected '{kind}'.", header.kind),
        ));
    }
    Ok(Archive {
        description: header.description,
        config: header.config,
        files,
    })
}

impl super::Engine {
    /// The upload of an import_model body, or the field error for a missing file.
    pub fn uploaded_export(&self, body: &Value, kind: &str) -> Result<Archive> {
        let upload = super::dataset_imports::Upload::from_body(body).ok_or_else(|| Error::field("file", "No file was submitted."))?;
        let bytes = std::fs::read(&upload.path).map_err(|e| bad(format!("cannot read the upload: {e}")));
        if upload.owned {
            let _ = std::fs::remove_file(&upload.path);
        }
        read(&bytes?, kind, self.config.max_upload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip_and_refusals() {
        let bytes = write("tagger", "spam", &json!({"fields": ["text"]}), &[("model.bin", b"abc")]).unwrap();
        assert_eq!(
            write("tagger", "spam", &json!({"fields": ["text"]}), &[("model.bin", b"abc")]).unwrap(),
            bytes,
            "deterministic"
        );
        let a = read(&bytes, "tagger", 1000).unwrap();
        assert_eq!(
            (a.description.as_str(), a.config.clone(), a.files["model.bin"].clone()),
            ("spam", json!({"fields": ["text"]}), b"abc".to_vec())
        );
        assert_eq!(
            read(&bytes, "embedding", 1000).err().unwrap().body(),
            json!({"file": ["This is an export of kind 'tagger'; expected 'embedding'."]})
        );
        assert!(read(b"not a zip", "tagger", 1000).is_err());
        assert!(read(&bytes[..bytes.len() / 2], "tagger", 1000).is_err());
        let big = write("tagger", "x", &json!({}), &[("model.bin", &[0u8; 5000])]).unwrap();
        assert!(read(&big, "tagger", 1000).is_err());
    }
}
