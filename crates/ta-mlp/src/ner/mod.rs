//! Named entities (ner.md): the entity types and the facts they become, an entity as a run of
//! ta's tokens, the BIO decoding the CRF and CNN models share, and the recognizer each language
//! reads from `<data_dir>/mlp/<lang>/ner/` (`load`). `facts` turns entities into the `PER`,
//! `ORG`, `GPE`, `LOC` and `ADDR` facts.

pub mod english;
pub mod estonian;
pub mod facts;
pub mod russian;

use std::path::Path;

use crate::Lang;

/// An entity type, and the fact it becomes (ner.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntityType {
    Per,
    Org,
    Gpe,
    Loc,
}

impl EntityType {
    /// The fact name: `PER`, `ORG`, `GPE` or `LOC`.
    pub fn fact(self) -> &'static str {
        match self {
            EntityType::Per => "PER",
            EntityType::Org => "ORG",
            EntityType::Gpe => "GPE",
            EntityType::Loc => "LOC",
        }
    }

    /// The type of a model's label name (`PER`, `ORG`, `GPE`, `LOC`, any case); None for
    /// the types ta drops (`MISC`, `DATE`, …).
    pub fn from_label(label: &str) -> Option<EntityType> {
        match label.to_ascii_uppercase().as_str() {
            "PER" | "PERSON" => Some(EntityType::Per),
            "ORG" => Some(EntityType::Org),
            "GPE" => Some(EntityType::Gpe),
            "LOC" => Some(EntityType::Loc),
            _ => None,
        }
    }
}

/// One entity: its type and its first and last token (inclusive), counted over the whole text's
/// tokens (all sentences, in order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entity {
    pub kind: EntityType,
    pub first: usize,
    pub last: usize,
}

/// A language's recognizer: the entities of one text, given ta's tokens of it per sentence,
/// in token order.
pub trait Recognizer: Send + Sync {
    fn entities(&self, sentences: &[Vec<&str>]) -> Vec<Entity>;
}

/// A language's recognizer as loaded, or which model file is missing or bad, and why.
pub type Loaded = Result<Box<dyn Recognizer>, String>;

/// The recognizer of `lang` from `dir` (`<data_dir>/mlp/<lang>/ner/`).
pub fn load(lang: Lang, dir: &Path) -> Loaded {
    fn boxed<R: Recognizer + 'static>(loaded: Result<R, String>) -> Loaded {
        loaded.map(|r| Box::new(r) as Box<dyn Recognizer>)
    }
    match lang {
        Lang::En => boxed(english::EnglishNer::load(dir)),
        Lang::Et => boxed(estonian::EstonianNer::load(dir)),
        Lang::Ru => boxed(russian::RussianNer::load(dir)),
    }
}

/// Entities of a BIO label sequence (`O`, `B-X`, `I-X`) over tokens `0..labels.len()`: an
/// entity starts at a `B-` label, at an `I-` label after `O`, or where the type changes, and
/// runs to the last token of its type; labels of types ta drops end an entity and start none.
pub fn decode_bio<S: AsRef<str>>(labels: &[S]) -> Vec<Entity> {
    let mut out: Vec<Entity> = Vec::new();
    let mut open: Option<(Option<EntityType>, usize)> = None;
    for (i, label) in labels.iter().enumerate() {
        let label = label.as_ref();
        let (begins, name) = match label.split_once('-') {
            Some(("B", name)) => (true, name),
            Some(("I", name)) => (false, name),
            _ => {
                open = None;
                continue;
            }
        };
        let kind = EntityType::from_label(name);
        match open {
            Some((k, _)) if !begins && k == kind => {}
            _ => open = Some((kind, i)),
        }
        if let Some((Some(kind), start)) = open {
            match out.last_mut() {
                Some(e) if e.first == start => e.last = i,
                _ => out.push(Entity {
                    kind,
                    first: start,
                    last: i,
                }),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(labels: &[&str]) -> Vec<(&'static str, usize, usize)> {
        decode_bio(labels).into_iter().map(|e| (e.kind.fact(), e.first, e.last)).collect()
    }

    #[test]
    fn bio_runs_become_entities() {
        assert_eq!(
            decoded(&["B-PER", "I-PER", "O", "B-LOC", "B-LOC"]),
            [("PER", 0, 1), ("LOC", 3, 3), ("LOC", 4, 4)]
        );
        assert_eq!(decoded(&["O", "I-ORG", "I-ORG", "I-PER"]), [("ORG", 1, 2), ("PER", 3, 3)]);
        assert_eq!(decoded(&["B-MISC", "I-MISC", "I-PER", "O"]), [("PER", 2, 2)]);
        assert_eq!(decoded(&["B-PER", "I-MISC", "I-PER"]), [("PER", 0, 0), ("PER", 2, 2)]);
        assert!(decoded(&[]).is_empty());
    }
}
