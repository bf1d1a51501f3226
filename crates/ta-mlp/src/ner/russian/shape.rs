//! A token's shape (slovnet's `shape.py`, ner.md §5.2): the script or kind its start matches
//! (`RU`, `EN`, `NUM`, `PUNCT`, `OTHER`) and, for words, an outline of its letter case
//! (`RU_Xx`, `EN_XX`, …); a lone known punctuation character keeps its own shape
//! (`PUNCT_«`), any other punctuation run is `PUNCT_OTHER`.

use regex::Regex;
use rustc_hash::FxHashMap;

/// The punctuation characters with a shape of their own, in the vocabulary's order.
const PUNCTS: &str = "!#$%&()[]\\/*+,.:;<=>?@^_{|}~-‐−‒⁃–—―`\"'«»„“ʼʻ”№…";

/// Shape name → row of the model's shape table, and the start-of-token classifier.
pub struct Shapes {
    types: Regex,
    ids: FxHashMap<String, u32>,
    other: u32,
}

impl Shapes {
    /// The shapes of the vocabulary `names` (one per row); every shape the rule can give
    /// must be there.
    pub fn new(names: &[String]) -> Result<Shapes, String> {
        let ids: FxHashMap<String, u32> = names.iter().enumerate().map(|(i, n)| (n.clone(), i as u32)).collect();
        let words = ["RU", "EN"]
            .into_iter()
            .flat_map(|s| ["X", "x", "XX", "xx", "Xx", "Xx-Xx", "OTHER"].map(|o| format!("{s}_{o}")));
        let puncts = PUNCTS.chars().map(|c| format!("PUNCT_{c}"));
        let fixed = ["PUNCT_OTHER", "NUM", "OTHER"].map(String::from);
        if let Some(missing) = words.chain(puncts).chain(fixed).find(|n| !ids.contains_key(n)) {
            return Err(format!("shape {missing} is not in the vocabulary"));
        }
        let types = format!(
            r"(?i)^(?:(?P<RU>[а-яё]+)|(?P<EN>[a-z]+)|(?P<NUM>[+-]?\d+)|(?P<PUNCT>[{}]+))",
            regex::escape(PUNCTS)
        );
        Ok(Shapes {
            types: Regex::new(&types).map_err(|e| e.to_string())?,
            other: ids["OTHER"],
            ids,
        })
    }

    /// The shape row of `word`.
    pub fn id(&self, word: &str) -> u32 {
        self.ids.get(&self.name(word)).copied().unwrap_or(self.other)
    }

    /// The shape name of `word` (slovnet's `word_shape`).
    pub fn name(&self, word: &str) -> String {
        let kind = self
            .types
            .captures(word)
            .and_then(|c| ["RU", "EN", "NUM", "PUNCT"].into_iter().find(|g| c.name(g).is_some()));
        match kind {
            Some(script @ ("RU" | "EN")) => format!("{script}_{}", outline(word)),
            Some("PUNCT") => {
                let mut chars = word.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if PUNCTS.contains(c) => format!("PUNCT_{c}"),
                    _ => "PUNCT_OTHER".into(),
                }
            }
            Some(_) => "NUM".into(),
            None => "OTHER".into(),
        }
    }
}

/// The letter-case outline of a word: `X`/`x` (one letter), `XX`, `xx`, `Xx` (title case),
/// `Xx-Xx` (two title-case parts), else `OTHER`.
fn outline(word: &str) -> &'static str {
    if word.chars().nth(1).is_none() {
        return if is_upper(word) { "X" } else { "x" };
    }
    if is_upper(word) {
        "XX"
    } else if is_lower(word) {
        "xx"
    } else if is_title(word) {
        "Xx"
    } else if word.split_once('-').is_some_and(|(l, r)| is_title(l) && is_title(r)) {
        "Xx-Xx"
    } else {
        "OTHER"
    }
}

/// Python's `str.isupper`: a cased character, and none lower-case.
fn is_upper(s: &str) -> bool {
    s.chars().any(char::is_uppercase) && !s.chars().any(char::is_lowercase)
}

/// Python's `str.islower`: a cased character, and none upper-case.
fn is_lower(s: &str) -> bool {
    s.chars().any(char::is_lowercase) && !s.chars().any(char::is_uppercase)
}

/// Longer than one character, an upper-case first and a lower-case rest.
fn is_title(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => chars.as_str().chars().next().is_some() && c.is_uppercase() && is_lower(chars.as_str()),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes() -> Shapes {
        let words = ["RU", "EN"]
            .into_iter()
            .flat_map(|s| ["X", "x", "XX", "xx", "Xx", "Xx-Xx", "OTHER"].map(|o| format!("{s}_{o}")));
        let puncts = PUNCTS.chars().map(|c| format!("PUNCT_{c}"));
        let names: Vec<String> = std::iter::once("<pad>".to_string())
            .chain(words)
            .chain(puncts)
            .chain(["PUNCT_OTHER", "NUM", "OTHER"].map(String::from))
            .collect();
        assert_eq!(names.len(), 66);
        Shapes::new(&names).unwrap()
    }

    #[test]
    fn shapes_follow_the_rule() {
        let s = shapes();
        let cases = [
            ("Москва", "RU_Xx"),
            ("москвы", "RU_xx"),
            ("СИЗО-6", "RU_XX"),
            ("Ростов-на-Дону", "RU_OTHER"),
            ("Санкт-Петербург", "RU_Xx-Xx"),
            ("Я", "RU_X"),
            ("в", "RU_x"),
            ("ЁЖ", "RU_XX"),
            ("iPhone", "EN_OTHER"),
            ("NATO", "EN_XX"),
            ("2011-2020", "NUM"),
            ("-5", "NUM"),
            ("«", "PUNCT_«"),
            ("...", "PUNCT_OTHER"),
            ("-", "PUNCT_-"),
            ("§", "OTHER"),
            ("", "OTHER"),
        ];
        for (word, shape) in cases {
            assert_eq!(s.name(word), shape, "{word}");
        }
        assert_eq!(s.id("Москва"), 5);
        assert_eq!(s.id("§"), 65);
    }
}
