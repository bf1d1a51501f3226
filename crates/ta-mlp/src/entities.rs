//! List-based entities (`entities` analyzer; texta-mlp 1.4 `EntityMapper`): every
//! `<data_dir>/mlp/entity_mapper/*.json` file maps labels to phrases. Word n-grams of the
//! lower-cased text are looked up exactly; each hit is located by substring search, and hits
//! nested inside a longer hit of the same label are dropped.

use std::collections::HashMap;
use std::path::Path;

/// One entity hit: label, lower-cased phrase and code-point span.
pub struct EntityHit {
    pub label: String,
    pub value: String,
    pub span: (usize, usize),
}

/// Phrase → label lookup built from the entity-mapper files.
#[derive(Default)]
pub struct EntityMapper {
    phrases: HashMap<String, String>,
    labels: Vec<String>,
    longest: usize,
}

impl EntityMapper {
    /// Loads every `*.json` in `dir`; returns the mapper and the files loaded (sorted).
    pub fn load(dir: &Path) -> Result<(EntityMapper, Vec<std::path::PathBuf>), String> {
        let mut files: Vec<_> = match std::fs::read_dir(dir) {
            Ok(entries) => entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect(),
            Err(_) => return Ok((EntityMapper::default(), Vec::new())),
        };
        files.sort();
        let mut mapper = EntityMapper::default();
        for file in &files {
            let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let lists: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
            for (label, phrases) in lists {
                let phrases = phrases.as_array().into_iter().flatten().filter_map(|p| p.as_str());
                mapper.add(&label, phrases);
            }
        }
        Ok((mapper, files))
    }

    fn add<'a>(&mut self, label: &str, phrases: impl Iterator<Item = &'a str>) {
        if !self.labels.iter().any(|l| l == label) {
            self.labels.push(label.to_string());
        }
        for phrase in phrases {
            let phrase = phrase.trim().to_lowercase();
            self.longest = self.longest.max(phrase.split(' ').count());
            self.phrases.entry(phrase).or_insert_with(|| label.to_string());
        }
    }

    /// Finds the listed phrases in `text` (the tokenized text).
    pub fn map(&self, text: &str) -> Vec<EntityHit> {
        if self.phrases.is_empty() {
            return Vec::new();
        }
        let lower = text.to_lowercase();
        let words: Vec<&str> = lower.split(' ').collect();
        let mut found: Vec<(String, String)> = Vec::new();
        for n in 1..=self.longest.min(words.len()) {
            for gram in words.windows(n) {
                let gram = gram.join(" ");
                if let Some(label) = self.phrases.get(&gram) {
                    if !found.iter().any(|(l, g)| l == label && *g == gram) {
                        found.push((label.clone(), gram));
                    }
                }
            }
        }
        self.labels.iter().flat_map(|label| non_nested(&lower, label, &found)).collect()
    }
}

fn non_nested(text: &str, label: &str, found: &[(String, String)]) -> Vec<EntityHit> {
    let mut hits: Vec<EntityHit> = found
        .iter()
        .filter(|(l, _)| l == label)
        .flat_map(|(_, value)| {
            text.match_indices(value.as_str()).map(|(i, _)| EntityHit {
                label: label.to_string(),
                value: value.clone(),
                span: (text[..i].chars().count(), text[..i].chars().count() + value.chars().count()),
            })
        })
        .collect();
    hits.sort_by_key(|h| std::cmp::Reverse(h.value.chars().count()));
    let mut kept: Vec<EntityHit> = Vec::new();
    for hit in hits {
        if !kept.iter().any(|k| hit.span.0 >= k.span.0 && hit.span.1 <= k.span.1) {
            kept.push(hit);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_longest_phrases() {
        let mut m = EntityMapper::default();
        m.add("CURRENCY", ["euro", "Eesti kroon", "kroon"].into_iter());
        let hits = m.map("Maksin 5 euro ja 10 Eesti kroon .");
        let got: Vec<_> = hits.iter().map(|h| (h.value.as_str(), h.span)).collect();
        assert_eq!(got, vec![("eesti kroon", (20, 31)), ("euro", (9, 13))]);
    }
}
