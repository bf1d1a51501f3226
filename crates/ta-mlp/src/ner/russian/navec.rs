//! Word vectors: navec's product-quantised embeddings (`pq.bin` in the navec tar, ner.md
//! §5.2), read in place from a mmap of the archive. A word's 300 numbers are 100 chunks of 3,
//! each a centroid of its chunk's codebook; the archive holds one centroid index per chunk
//! and word.

use std::fs::File;
use std::ops::Range;
use std::path::Path;

use memmap2::Mmap;

use super::tar::Members;

/// navec's `pq.bin`: the indexes stay in the mmap, the codebooks are copied out.
pub struct Navec {
    map: Mmap,
    /// Where the `vectors × qdim` centroid indexes lie in `map`.
    indexes: Range<usize>,
    qdim: usize,
    chunk: usize,
    centroids: usize,
    /// `qdim × centroids × chunk` numbers.
    codes: Vec<f32>,
}

impl Navec {
    /// Opens the navec archive at `path`; its `meta.json` id must be `id` (the one the model
    /// was trained with).
    pub fn open(path: &Path, id: &str) -> Result<Navec, String> {
        let what = path.display().to_string();
        let file = File::open(path).map_err(|e| format!("{what}: {e}"))?;
        // SAFETY: the data directory's files are not modified while ta runs
        let map = unsafe { Mmap::map(&file) }.map_err(|e| format!("{what}: {e}"))?;
        let members = Members::parse(&map, &what)?;
        let meta: serde_json::Value =
            serde_json::from_slice(&map[members.get("meta.json", &what)?]).map_err(|e| format!("{what}: meta.json: {e}"))?;
        if meta["id"] != id {
            return Err(format!("{what}: embeddings {} where the model wants {id}", meta["id"]));
        }
        let pq = members.get("pq.bin", &what)?;
        let bad = || format!("{what}: pq.bin is truncated or malformed");
        let header: Vec<usize> = map
            .get(pq.start..pq.start + 16)
            .ok_or_else(bad)?
            .chunks(4)
            .map(|b| u32_le(b) as usize)
            .collect();
        let (vectors, dim, qdim, centroids) = (header[0], header[1], header[2], header[3]);
        // one u8 index per chunk: 256 centroids
        if qdim == 0 || !dim.is_multiple_of(qdim) || centroids != 256 {
            return Err(bad());
        }
        let chunk = dim / qdim;
        let indexes = pq.start + 16..pq.start + 16 + vectors * qdim;
        let codes: Vec<f32> = map
            .get(indexes.end..pq.end)
            .ok_or_else(bad)?
            .chunks_exact(4)
            .map(|b| f32::from_bits(u32_le(b)))
            .collect();
        if codes.len() != qdim * centroids * chunk {
            return Err(bad());
        }
        Ok(Navec {
            map,
            indexes,
            qdim,
            chunk,
            centroids,
            codes,
        })
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.indexes.len() / self.qdim
    }

    /// Vector length.
    pub fn dim(&self) -> usize {
        self.qdim * self.chunk
    }

    /// Writes word `id`'s vector into `out` (`dim()` numbers).
    pub fn vector(&self, id: usize, out: &mut [f32]) {
        let row = &self.map[self.indexes.clone()][id * self.qdim..(id + 1) * self.qdim];
        for (q, (&c, dst)) in row.iter().zip(out.chunks_exact_mut(self.chunk)).enumerate() {
            let at = (q * self.centroids + c as usize) * self.chunk;
            dst.copy_from_slice(&self.codes[at..at + self.chunk]);
        }
    }
}

/// A little-endian u32 from 4 bytes.
pub fn u32_le(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}
