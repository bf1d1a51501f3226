//! estnltk's NER gazetteer: lower-cased lemma phrases (`mari`, `tartu ülikool`) with their
//! labels (`peop`, `per`, `loc`, `org`, `fac`), as an `fst` map phrase → label bits.
//!
//! Data: `gazetteer.txt` (`phrase<TAB>label` lines, a phrase may repeat with other labels).
//! On first load (or when the text is newer) it is compiled into `gazetteer.fst`, which later
//! loads read directly; where that cannot be written the map is kept in memory.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use fst::Map;

/// The labels, in sorted order: bit `i` is `LABELS[i]`.
pub const LABELS: [&str; 5] = ["fac", "loc", "org", "peop", "per"];

const SOURCE: &str = "gazetteer.txt";
const COMPILED: &str = "gazetteer.fst";

/// A set of gazetteer labels (bits over `LABELS`); empty is no hit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Labels(pub u8);

impl Labels {
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The label names, sorted.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        LABELS
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, l)| *l)
    }
}

pub struct Gazetteer {
    map: Map<Vec<u8>>,
}

impl Gazetteer {
    /// Reads `dir/gazetteer.fst`, compiling it from `dir/gazetteer.txt` when missing or stale.
    pub fn load(dir: &Path) -> Result<Gazetteer, String> {
        let (source, compiled) = (dir.join(SOURCE), dir.join(COMPILED));
        if !is_stale(&compiled, &source) {
            let bytes = std::fs::read(&compiled).map_err(|e| format!("{}: {e}", compiled.display()))?;
            // the checksum too: a cut map can pass `new` and fail on lookup
            match Map::new(bytes).and_then(|map| map.as_fst().verify().map(|()| map)) {
                Ok(map) => return Ok(Gazetteer { map }),
                // not a whole map (a source without the text): said; with the text, compiled again
                Err(e) if !source.exists() => return Err(format!("{}: {e}", compiled.display())),
                Err(_) => {}
            }
        }
        let bytes = compile(&source)?;
        // Written under a name of this load's own, then renamed: loads in several processes
        // at once never read or publish a half-written map. A read-only data directory keeps
        // the map in memory only.
        static LOADS: AtomicU64 = AtomicU64::new(0);
        let tmp = compiled.with_extension(format!("fst.{}-{}.tmp", std::process::id(), LOADS.fetch_add(1, Relaxed)));
        if std::fs::write(&tmp, &bytes).is_ok() && std::fs::rename(&tmp, &compiled).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        let map = Map::new(bytes).map_err(|e| format!("{}: {e}", source.display()))?;
        Ok(Gazetteer { map })
    }

    /// The labels of a phrase (lemmas joined by one space).
    pub fn get(&self, phrase: &str) -> Labels {
        Labels(self.map.get(phrase).unwrap_or(0) as u8)
    }
}

/// True when `compiled` is missing, or older than an existing `source`.
fn is_stale(compiled: &Path, source: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(compiled), modified(source)) {
        (None, _) => true,
        (Some(c), Some(s)) => s > c,
        (Some(_), None) => false,
    }
}

/// The fst bytes of `gazetteer.txt`: each line's last tab separates the phrase from its label
/// (estnltk strips the line first); labels other than `LABELS` are ignored.
fn compile(source: &Path) -> Result<Vec<u8>, String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", source.display());
    let text = std::fs::read_to_string(source).map_err(|e| err(&e))?;
    let mut phrases: BTreeMap<&str, u8> = BTreeMap::new();
    for line in text.lines() {
        let Some((phrase, label)) = line.trim().rsplit_once('\t') else {
            continue;
        };
        if let Some(bit) = LABELS.iter().position(|l| *l == label) {
            *phrases.entry(phrase).or_default() |= 1 << bit;
        }
    }
    if phrases.is_empty() {
        return Err(err(&"no phrase<TAB>label lines"));
    }
    let mut builder = fst::MapBuilder::memory();
    for (phrase, bits) in phrases {
        builder.insert(phrase, u64::from(bits)).map_err(|e| err(&e))?;
    }
    builder.into_inner().map_err(|e| err(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_keep_every_label_and_compile_once() {
        let dir = std::env::temp_dir().join(format!("ta-gazetteer-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(SOURCE), "mari\tper\nmari\tloc\ntartu ülikool\torg\nx\ty\tpeop\nbad\n").unwrap();
        let g = Gazetteer::load(&dir).unwrap();
        assert_eq!(g.get("mari").names().collect::<Vec<_>>(), ["loc", "per"]);
        assert_eq!(g.get("tartu ülikool").names().collect::<Vec<_>>(), ["org"]);
        assert_eq!(g.get("x\ty").names().collect::<Vec<_>>(), ["peop"]);
        assert!(g.get("tartu").is_empty() && g.get("bad").is_empty());
        assert!(dir.join(COMPILED).is_file());
        assert_eq!(Gazetteer::load(&dir).unwrap().get("mari"), g.get("mari"));
        // a half-written map (another process's crash) is compiled again, and left whole
        let whole = std::fs::read(dir.join(COMPILED)).unwrap();
        std::fs::write(dir.join(COMPILED), &whole[..whole.len() / 2]).unwrap();
        assert_eq!(Gazetteer::load(&dir).unwrap().get("mari"), g.get("mari"));
        assert_eq!(std::fs::read(dir.join(COMPILED)).unwrap(), whole);
        // loads at once in several threads each publish a whole map
        std::fs::remove_file(dir.join(COMPILED)).unwrap();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| assert_eq!(Gazetteer::load(&dir).unwrap().get("mari"), g.get("mari")));
            }
        });
        assert_eq!(std::fs::read(dir.join(COMPILED)).unwrap(), whole);
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left.len(), 2, "{left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
