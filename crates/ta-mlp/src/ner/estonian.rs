//! Estonian named entities (ner.md §5.1): estnltk 1.7.5's CRFsuite model, read by `crfs`
//! from a memory map, over estnltk's NER features (`features`) of ta's tokens analysed by
//! Vabamorf (every analysis left after disambiguation) and its gazetteer (`gazetteer`).
//! Labels: `PER`, `ORG`, `LOC` (cities and countries are `LOC`).
//!
//! Data, in `<data_dir>/mlp/et/ner/`: `model.bin`, `gazetteer.txt` (compiled to
//! `gazetteer.fst` on first load) and estnltk's two analysis-order tables (`morph`); the
//! Vabamorf lexicons `et.dct` and `et3.dct` one directory up. The recognizer holds its own
//! Vabamorf instances (one opens at load, more on demand when calls overlap, up to the core
//! count), so `entities` needs only the tokens.

mod features;
mod gazetteer;
mod morph;

use std::path::Path;

use memmap2::Mmap;

pub use self::features::{Analysis, Word};
use self::gazetteer::Gazetteer;
use self::morph::Reorderer;
use crate::estonian::Estonian;
use crate::ner::{decode_bio, Entity, Recognizer};

const MODEL: &str = "model.bin";

/// The CRF model over its memory map.
struct Crf {
    // declared first, so it is dropped before the map it borrows
    model: crfs::Model<'static>,
    _map: Mmap,
}

impl Crf {
    fn load(path: &Path) -> Result<Crf, String> {
        let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let file = std::fs::File::open(path).map_err(|e| err(&e))?;
        // SAFETY: the data files are not modified while ta runs (setup writes them once).
        let map = unsafe { Mmap::map(&file) }.map_err(|e| err(&e))?;
        // SAFETY: the bytes live in the mapping, which `Crf` owns and drops after `model`;
        // moving the `Mmap` does not move the mapped pages.
        let bytes: &'static [u8] = unsafe { std::slice::from_raw_parts(map.as_ptr(), map.len()) };
        let model = crfs::Model::new(bytes).map_err(|e| err(&e))?;
        model.tagger().map_err(|e| err(&e))?;
        if model.num_labels() == 0 {
            return Err(err(&"the model has no labels"));
        }
        Ok(Crf { model, _map: map })
    }
}

/// The Estonian recognizer; `labels` and `features` also take analyses from elsewhere (the
/// port-fidelity check feeds estnltk's own).
pub struct EstonianNer {
    crf: Crf,
    gazetteer: Gazetteer,
    morph: Estonian,
    reorderer: Reorderer,
}

impl EstonianNer {
    /// Reads `dir` (`<data_dir>/mlp/et/ner/`) and the Vabamorf lexicons in its parent.
    pub fn load(dir: &Path) -> Result<EstonianNer, String> {
        let model = dir.join(MODEL);
        if !model.is_file() {
            return Err(format!("{}: missing", model.display()));
        }
        let crf = Crf::load(&model)?;
        let gazetteer = Gazetteer::load(dir)?;
        let lexicons = dir.parent().unwrap_or(dir);
        let morph = Estonian::load(lexicons, 0)?;
        let reorderer = Reorderer::load(dir)?;
        Ok(EstonianNer {
            crf,
            gazetteer,
            morph,
            reorderer,
        })
    }

    /// The CRF feature strings of every word (sentences in order), flattened.
    pub fn features(&self, sentences: &[Vec<Word>]) -> Vec<Vec<String>> {
        let mut out: Vec<Vec<String>> = sentences.iter().flatten().map(|_| Vec::new()).collect();
        features::extract(sentences, &self.gazetteer, |i, f| out[i].push(f.to_string()));
        out
    }

    /// The BIO label of every word (sentences in order), flattened.
    pub fn labels(&self, sentences: &[Vec<Word>]) -> Vec<String> {
        let mut items: Vec<Vec<crfs::Attribute>> = sentences.iter().flatten().map(|_| Vec::new()).collect();
        features::extract(sentences, &self.gazetteer, |i, f| {
            // features the model never saw add nothing
            if self.crf.model.to_attr_id(f).is_some() {
                items[i].push(crfs::Attribute::new(f, 1.0));
            }
        });
        let Ok(tagger) = self.crf.model.tagger() else {
            return vec!["O".to_string(); items.len()];
        };
        let mut labels = Vec::with_capacity(items.len());
        let mut start = 0;
        for sentence in sentences {
            let xseq = &items[start..start + sentence.len()];
            match tagger.tag(xseq) {
                Ok(ys) if ys.len() == xseq.len() => labels.extend(ys.into_iter().map(str::to_string)),
                _ => labels.extend(std::iter::repeat_n("O".to_string(), xseq.len())),
            }
            start += sentence.len();
        }
        labels
    }

    /// Every word's analyses (sentences in order, flattened), in estnltk's order.
    pub fn analyse(&self, sentences: &[Vec<&str>]) -> Vec<Vec<Analysis>> {
        sentences
            .iter()
            .flatten()
            .zip(self.morph.analyses(sentences))
            .map(|(word, vm)| self.reorderer.analyses(word, &vm))
            .collect()
    }
}

impl Recognizer for EstonianNer {
    fn entities(&self, sentences: &[Vec<&str>]) -> Vec<Entity> {
        let analyses = self.analyse(sentences);
        if analyses.is_empty() {
            return Vec::new();
        }
        let mut next = analyses.iter();
        let words: Vec<Vec<Word>> = sentences
            .iter()
            .map(|s| s.iter().zip(next.by_ref()).map(|(text, a)| Word { text, analyses: a }).collect())
            .collect();
        decode_bio(&self.labels(&words))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use super::*;
    use crate::ner::EntityType::{self, Loc, Per};

    /// The recognizer from `$TA_MLP_DATA/mlp/et/ner` (or ta's default data directory);
    /// `None`, with a `skipped` line, when that data is not installed.
    fn ner() -> Option<&'static EstonianNer> {
        static NER: OnceLock<Option<EstonianNer>> = OnceLock::new();
        let ner = NER.get_or_init(|| {
            let data = match std::env::var("TA_MLP_DATA") {
                Ok(dir) => std::path::PathBuf::from(dir),
                Err(_) => dirs::data_dir()?.join("ta"),
            };
            let dir = data.join("mlp/et/ner");
            dir.join(MODEL)
                .is_file()
                .then(|| EstonianNer::load(&dir).unwrap_or_else(|e| panic!("{e}")))
        });
        if ner.is_none() {
            println!("skipped: no Estonian NER data (run scripts/setup.sh or set TA_MLP_DATA)");
        }
        ner.as_ref()
    }

    fn entities(ner: &EstonianNer, sentences: &[&[&str]]) -> Vec<(EntityType, usize, usize)> {
        let sentences: Vec<Vec<&str>> = sentences.iter().map(|s| s.to_vec()).collect();
        ner.entities(&sentences).into_iter().map(|e| (e.kind, e.first, e.last)).collect()
    }

    #[test]
    fn worked_example() {
        let Some(ner) = ner() else { return };
        let sentence: &[&str] = &["Mari", "Tamm", "kolis", "Tallinnast", "Tartusse", "."];
        assert_eq!(entities(ner, &[sentence]), [(Per, 0, 1), (Loc, 3, 3), (Loc, 4, 4)]);
    }

    #[test]
    fn odd_inputs_give_entities_without_panicking() {
        let Some(ner) = ner() else { return };
        assert!(entities(ner, &[]).is_empty());
        assert!(entities(ner, &[&[], &[]]).is_empty());
        assert!(entities(ner, &[&["123", "...", "%", "—", "\u{0}", " "]]).is_empty());
        let mixed: &[&str] = &["Путин", "kohtus", "Obamaga", "東京", "Tallinnas", "🙂", "."];
        for e in entities(ner, &[mixed, &["x"]]) {
            assert!(e.1 <= e.2 && e.2 < mixed.len());
        }
        let sentence: Vec<&str> = "Mari Tamm elab Tartus ja töötab Tallinnas ning sõidab sageli Riiga"
            .split(' ')
            .collect();
        let long: Vec<&[&str]> = std::iter::repeat_n(&sentence[..], 100_000 / sentence.len() + 1).collect();
        let found = entities(ner, &long);
        assert!(found.len() >= long.len() * 3, "{} entities", found.len());
        let one: Vec<&str> = long.concat();
        assert!(!entities(ner, &[&one[..20_000]]).is_empty());
    }
}
