//! The members of an uncompressed tar archive (ustar, as Python's `tarfile` writes the
//! slovnet and navec packs): name → byte range, so a member is read in place from the
//! archive's bytes (a read file or a mmap).

use std::collections::HashMap;
use std::ops::Range;

const BLOCK: usize = 512;

/// Member names and where their contents lie in the archive.
#[derive(Debug)]
pub struct Members(HashMap<String, Range<usize>>);

impl Members {
    /// The regular-file members of `bytes`; `what` (the archive's path) names it in errors.
    pub fn parse(bytes: &[u8], what: &str) -> Result<Members, String> {
        let mut members = HashMap::new();
        let mut at = 0;
        while at + BLOCK <= bytes.len() {
            let header = &bytes[at..at + BLOCK];
            if header.iter().all(|&b| b == 0) {
                break;
            }
            let size = octal(&header[124..136]).ok_or_else(|| format!("{what}: bad tar header at byte {at}"))?;
            let start = at + BLOCK;
            let end = start.checked_add(size).filter(|&e| e <= bytes.len());
            let end = end.ok_or_else(|| format!("{what}: tar member at byte {at} runs past the end"))?;
            // '0' or NUL: a regular file; directories, links and pax headers are skipped
            if matches!(header[156], b'0' | 0) {
                let mut name = field(&header[0..100]);
                if &header[257..262] == b"ustar" && header[345] != 0 {
                    name = format!("{}/{name}", field(&header[345..500]));
                }
                members.insert(name, start..end);
            }
            at = start + size.div_ceil(BLOCK) * BLOCK;
        }
        Ok(Members(members))
    }

    /// The byte range of member `name`; `what` names the archive in the error.
    pub fn get(&self, name: &str, what: &str) -> Result<Range<usize>, String> {
        self.0.get(name).cloned().ok_or_else(|| format!("{what}: no member {name}"))
    }
}

/// A NUL-terminated header text field.
fn field(raw: &[u8]) -> String {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    String::from_utf8_lossy(&raw[..end]).into_owned()
}

/// A header's octal number (spaces and NULs around it allowed).
fn octal(raw: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(raw).ok()?.trim_matches(|c: char| c == '\0' || c == ' ');
    usize::from_str_radix(text, 8).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, size: usize) -> Vec<u8> {
        let mut h = vec![0u8; BLOCK];
        h[..name.len()].copy_from_slice(name.as_bytes());
        let size = format!("{size:011o}\0");
        h[124..136].copy_from_slice(size.as_bytes());
        h[156] = b'0';
        h[257..262].copy_from_slice(b"ustar");
        h
    }

    #[test]
    fn members_are_found_in_place() {
        let mut tar = header("meta.json", 3);
        tar.extend(b"abc");
        tar.resize(2 * BLOCK, 0);
        tar.extend(header("arrays/0.bin", 600));
        tar.extend(vec![7u8; 600]);
        tar.resize(5 * BLOCK, 0);
        tar.extend(vec![0u8; 2 * BLOCK]);
        let members = Members::parse(&tar, "t.tar").unwrap();
        assert_eq!(&tar[members.get("meta.json", "t.tar").unwrap()], b"abc");
        assert_eq!(members.get("arrays/0.bin", "t.tar").unwrap(), 3 * BLOCK..3 * BLOCK + 600);
        assert_eq!(members.get("x", "t.tar").unwrap_err(), "t.tar: no member x");
        let cut = &tar[..3 * BLOCK + 10];
        assert!(Members::parse(cut, "t.tar").unwrap_err().contains("runs past the end"));
    }
}
