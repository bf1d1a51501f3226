//! A streaming 64-bit checksum (FNV-1a over little-endian 8-byte words) that model files
//! end with, so a flipped or missing byte is caught before anything is parsed.

use super::rng::FNV_OFFSET;
use std::io::{self, Write};

const PRIME: u64 = 0x0100_0000_01B3;

#[derive(Clone, Debug)]
pub(super) struct Checksum {
    hash: u64,
    pending: [u8; 8],
    pending_len: usize,
    total: u64,
}

impl Default for Checksum {
    fn default() -> Self {
        Checksum {
            hash: FNV_OFFSET,
            pending: [0; 8],
            pending_len: 0,
            total: 0,
        }
    }
}

impl Checksum {
    pub(super) fn update(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.pending_len > 0 {
            let take = (8 - self.pending_len).min(bytes.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&bytes[..take]);
            self.pending_len += take;
            bytes = &bytes[take..];
            if self.pending_len < 8 {
                return;
            }
            self.mix(u64::from_le_bytes(self.pending));
            self.pending_len = 0;
        }
        let words = bytes.chunks_exact(8);
        let rest = words.remainder();
        for word in words {
            let mut array = [0; 8];
            array.copy_from_slice(word);
            self.mix(u64::from_le_bytes(array));
        }
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    fn mix(&mut self, word: u64) {
        self.hash = (self.hash ^ word).wrapping_mul(PRIME);
        self.hash ^= self.hash >> 29;
    }

    pub(super) fn finish(&self) -> u64 {
        let mut last = [0; 8];
        last[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
        let hash = (self.hash ^ u64::from_le_bytes(last)).wrapping_mul(PRIME);
        (hash ^ self.total).wrapping_mul(PRIME)
    }

    pub(super) fn of(bytes: &[u8]) -> u64 {
        let mut checksum = Checksum::default();
        checksum.update(bytes);
        checksum.finish()
    }
}

/// A writer that checksums what passes through it.
pub(super) struct ChecksumWriter<W> {
    pub(super) inner: W,
    pub(super) checksum: Checksum,
}

impl<W: Write> Write for ChecksumWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.checksum.update(&buf[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_equals_whole_and_detects_changes() {
        let data: Vec<u8> = (0..100u8).collect();
        let whole = Checksum::of(&data);
        let mut pieces = Checksum::default();
        for piece in data.chunks(3) {
            pieces.update(piece);
        }
        assert_eq!(pieces.finish(), whole);
        let mut changed = data.clone();
        changed[50] ^= 1;
        assert_ne!(Checksum::of(&changed), whole);
        assert_ne!(Checksum::of(&data[..99]), whole);
        assert_ne!(Checksum::of(&[0]), Checksum::of(&[0, 0]));
    }
}
