//! The model file: one self-describing, deterministic byte format.
//!
//! ```text
//! magic "TAW2VEC\0" | u32 version (1) | u32 header length | JSON header
//! | vocabulary: per word u32 byte length, UTF-8 bytes, u64 count (most frequent first)
//! | phrases: per phrase u32 byte length, the `_`-joined pair, f64 score
//! | vectors: vocab_size × num_dimensions f32 | u64 checksum of all preceding bytes
//! ```
//!
//! All integers and floats are little-endian. Reading checks the checksum first, then every
//! length against the bytes that are left, so a corrupt or foreign file gives an error,
//! never a panic or an allocation larger than the file.

use super::checksum::{Checksum, ChecksumWriter};
use super::error::{EmbeddingError, Result};
use super::model::Embedding;
use super::phraser::{Bigram, Phraser};
use super::settings::Settings;
use super::vocab::Vocabulary;
use serde::{Deserialize, Serialize};
use std::io::{BufWriter, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"TAW2VEC\0";
const VERSION: u32 = 1;
const FORMAT: &str = "ta word2vec embedding";
const MAX_HEADER: usize = 1 << 20;
/// Bytes of the shortest vocabulary entry and phrase entry.
const MIN_WORD_BYTES: usize = 4 + 8;
const MIN_PHRASE_BYTES: usize = 4 + 8;

#[derive(Serialize, Deserialize)]
struct Header {
    format: String,
    num_dimensions: usize,
    vocab_size: usize,
    phrases: usize,
    phraser_table_size: u64,
    settings: Settings,
}

impl Embedding {
    /// Writes the model file.
    pub fn write_to<W: Write>(&self, out: W) -> Result<()> {
        let mut out = ChecksumWriter {
            inner: out,
            checksum: Checksum::default(),
        };
        let header = Header {
            format: FORMAT.into(),
            num_dimensions: self.num_dimensions(),
            vocab_size: self.vocab_size(),
            phrases: self.phraser.bigrams().len(),
            phraser_table_size: self.phraser.table_size(),
            settings: self.settings.clone(),
        };
        let header = serde_json::to_vec(&header).map_err(|e| EmbeddingError::Format(e.to_string()))?;
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        out.write_all(&(header.len() as u32).to_le_bytes())?;
        out.write_all(&header)?;
        for (word, count) in self.vocabulary.words.iter().zip(&self.vocabulary.counts) {
            write_str(&mut out, word)?;
            out.write_all(&count.to_le_bytes())?;
        }
        for bigram in self.phraser.bigrams() {
            write_str(&mut out, &bigram.phrase)?;
            out.write_all(&bigram.score.to_le_bytes())?;
        }
        let mut buffer = Vec::with_capacity(1 << 16);
        for chunk in self.vectors.chunks(1 << 14) {
            buffer.clear();
            buffer.extend(chunk.iter().flat_map(|v| v.to_le_bytes()));
            out.write_all(&buffer)?;
        }
        let checksum = out.checksum.finish();
        out.inner.write_all(&checksum.to_le_bytes())?;
        out.flush()?;
        Ok(())
    }

    /// The model file as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = self.write_to(&mut bytes);
        bytes
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        self.write_to(BufWriter::new(std::fs::File::create(path)?))
    }

    pub fn load(path: &Path) -> Result<Embedding> {
        Embedding::from_bytes(&std::fs::read(path)?)
    }

    /// Reads a model file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Embedding> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(format_error("not a ta embedding model (bad magic bytes)"));
        }
        let (body, stored) = bytes.split_at(bytes.len().saturating_sub(8).max(MAGIC.len()));
        let stored = <[u8; 8]>::try_from(stored).map_err(|_| format_error("file too short"))?;
        if Checksum::of(body) != u64::from_le_bytes(stored) {
            return Err(format_error("checksum mismatch: the file is truncated or corrupt"));
        }
        let mut input = Reader {
            bytes: body,
            pos: MAGIC.len(),
        };
        let version = input.u32()?;
        if version != VERSION {
            return Err(format_error(&format!(
                "unsupported format version {version} (this build reads {VERSION})"
            )));
        }
        let header_len = input.u32()? as usize;
        if header_len > MAX_HEADER {
            return Err(format_error("header too large"));
        }
        let header: Header = serde_json::from_slice(input.take(header_len)?).map_err(|e| format_error(&format!("bad header: {e}")))?;
        check_header(&header, input.remaining())?;
        let mut vocabulary = Vocabulary {
            words: Vec::with_capacity(header.vocab_size),
            counts: Vec::with_capacity(header.vocab_size),
        };
        for _ in 0..header.vocab_size {
            vocabulary.words.push(input.string()?);
            vocabulary.counts.push(input.u64()?);
        }
        let mut bigrams = Vec::with_capacity(header.phrases);
        for _ in 0..header.phrases {
            bigrams.push(Bigram {
                phrase: input.string()?,
                score: f64::from_bits(input.u64()?),
            });
        }
        let vector_bytes = input.take(header.vocab_size * header.num_dimensions * 4)?;
        let vectors = vector_bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if input.remaining() != 0 {
            return Err(format_error("unexpected bytes after the vectors"));
        }
        let phraser = Phraser::new(header.settings.phraser.clone(), header.phraser_table_size, bigrams);
        Embedding::new(header.settings, vocabulary, vectors, phraser)
    }

    /// Writes the vectors in word2vec's binary format (`gensim.models.KeyedVectors.
    /// load_word2vec_format(path, binary=True)` reads it): a `"vocab_size dims\n"` line,
    /// then per word its bytes, a space, dims little-endian f32 and a newline.
    pub fn write_word2vec<W: Write>(&self, out: W) -> Result<()> {
        let mut out = BufWriter::new(out);
        writeln!(out, "{} {}", self.vocab_size(), self.num_dimensions())?;
        for (word, vector) in self.vocabulary.words.iter().zip(self.vectors.chunks_exact(self.num_dimensions())) {
            out.write_all(word.as_bytes())?;
            out.write_all(b" ")?;
            for value in vector {
                out.write_all(&value.to_le_bytes())?;
            }
            out.write_all(b"\n")?;
        }
        out.flush()?;
        Ok(())
    }
}

fn format_error(message: &str) -> EmbeddingError {
    EmbeddingError::Format(message.to_owned())
}

/// Checks the header's sizes against the bytes left, before anything is allocated.
fn check_header(header: &Header, remaining: usize) -> Result<()> {
    if header.format != FORMAT {
        return Err(format_error(&format!("unknown format {:?}", header.format)));
    }
    header.settings.validate()?;
    if header.num_dimensions != header.settings.num_dimensions {
        return Err(format_error("header and settings disagree on num_dimensions"));
    }
    let needed = (header.vocab_size as u128) * (MIN_WORD_BYTES as u128 + header.num_dimensions as u128 * 4)
        + header.phrases as u128 * MIN_PHRASE_BYTES as u128;
    if needed > remaining as u128 {
        return Err(format_error("the header promises more data than the file holds"));
    }
    Ok(())
}

fn write_str<W: Write>(out: &mut W, text: &str) -> std::io::Result<()> {
    out.write_all(&(text.len() as u32).to_le_bytes())?;
    out.write_all(text.as_bytes())
}

/// Bounds-checked little-endian reading.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8]> {
        if len > self.remaining() {
            return Err(format_error("unexpected end of file"));
        }
        let slice = &self.bytes[self.pos..self.pos + len];
        self.pos += len;
        Ok(slice)
    }

    fn u32(&mut self) -> Result<u32> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn u64(&mut self) -> Result<u64> {
        let mut array = [0; 8];
        array.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(array))
    }

    fn string(&mut self) -> Result<String> {
        let len = self.u32()? as usize;
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| format_error("a word is not valid UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::tiny;

    #[test]
    fn round_trips_exactly_and_deterministically() {
        let embedding = tiny();
        let bytes = embedding.to_bytes();
        assert_eq!(bytes, tiny().to_bytes());
        let loaded = Embedding::from_bytes(&bytes).unwrap();
        assert_eq!(loaded, embedding);
        assert_eq!(loaded.phrase_text("New York"), "new_york");
        assert_eq!(loaded.to_bytes(), bytes);
    }

    #[test]
    fn saves_and_loads_files() {
        let path = std::env::temp_dir().join(format!("ta-embedding-test-{}.bin", std::process::id()));
        tiny().save(&path).unwrap();
        let loaded = Embedding::load(&path);
        let _ = std::fs::remove_file(&path);
        assert_eq!(loaded.unwrap(), tiny());
    }

    #[test]
    fn rejects_every_truncation_and_every_flipped_byte() {
        let bytes = tiny().to_bytes();
        for len in 0..bytes.len() {
            assert!(Embedding::from_bytes(&bytes[..len]).is_err(), "prefix {len}");
        }
        for at in 0..bytes.len() {
            let mut corrupt = bytes.clone();
            corrupt[at] ^= 0x10;
            assert!(Embedding::from_bytes(&corrupt).is_err(), "byte {at}");
        }
    }

    #[test]
    fn rejects_foreign_input() {
        for input in [
            &b""[..],
            b"{\"vocab_size\": 3}",
            b"3 2\nking \x00\x00\x80?\x00\x00\x00\x00\n",
            &[0xff; 64],
        ] {
            assert!(matches!(Embedding::from_bytes(input), Err(EmbeddingError::Format(_))));
        }
    }

    /// A file with a valid checksum whose header lies about its sizes.
    fn sealed(header: &str, rest: &[u8]) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend(VERSION.to_le_bytes());
        bytes.extend((header.len() as u32).to_le_bytes());
        bytes.extend(header.as_bytes());
        bytes.extend(rest);
        let checksum = Checksum::of(&bytes);
        bytes.extend(checksum.to_le_bytes());
        bytes
    }

    #[test]
    fn rejects_lying_headers_without_allocating() {
        let settings = serde_json::to_string(&Settings::default()).unwrap();
        let huge = format!(
            r#"{{"format":"{FORMAT}","num_dimensions":100,"vocab_size":{},"phrases":0,"phraser_table_size":0,"settings":{settings}}}"#,
            u64::MAX / 2
        );
        let error = Embedding::from_bytes(&sealed(&huge, &[0; 100])).unwrap_err();
        assert!(error.to_string().contains("more data than the file holds"), "{error}");
        let mismatch = format!(
            r#"{{"format":"{FORMAT}","num_dimensions":3,"vocab_size":0,"phrases":0,"phraser_table_size":0,"settings":{settings}}}"#
        );
        assert!(Embedding::from_bytes(&sealed(&mismatch, &[])).is_err());
        let bad_word = format!(
            r#"{{"format":"{FORMAT}","num_dimensions":100,"vocab_size":1,"phrases":0,"phraser_table_size":0,"settings":{settings}}}"#
        );
        let mut rest = 2u32.to_le_bytes().to_vec();
        rest.extend([0xc3, 0x28]);
        rest.extend([0; 8 + 400]);
        let error = Embedding::from_bytes(&sealed(&bad_word, &rest)).unwrap_err();
        assert!(error.to_string().contains("UTF-8"), "{error}");
    }

    #[test]
    fn exports_word2vec_binary() {
        let mut out = Vec::new();
        tiny().write_word2vec(&mut out).unwrap();
        assert!(out.starts_with(b"4 2\nking \x00\x00\x80?\x00\x00\x00\x00\nqueen "));
        assert_eq!(out.len(), 4 + 4 * (1 + 8 + 1) + "kingqueennew_yorkapple".len());
    }
}
