//! Name anonymizer, output-compatible with `texta-anonymizer` 1.1.2 as used by TEXTA Toolkit
//! (`spec/anonymizer.md`).
//!
//! Given names `"Last, First"`, every occurrence of a name in a text — full name in either order, initials plus
//! last name, single first or last names, upper-case, letter-spaced, inflected (Estonian case endings) and,
//! optionally, misspelled forms — is replaced by random initials such as `K.A`, with the case ending carried
//! over (`Tammele` → `K.A-le`).
//!
//! Build an [`Anonymizer`] once per request from an [`AnonymizerConfig`] and a parsed [`NameList`]; it holds
//! the per-name matchers and is `Send + Sync`. Randomness is limited to the replacer draw
//! ([`Anonymizer::draw_replacers`]); callers may pass replacers explicitly for reproducible output.

mod extract;
mod fuzzy;
mod jaro;
mod names;
mod patterns;
mod presence;
mod program;
mod replace;
mod synth;
mod text;

#[cfg(test)]
mod conformance_tests;
#[cfg(test)]
mod tests;

use rayon::prelude::*;

use extract::NameExtractor;
use fuzzy::{PieceIndex, PieceIndexBuilder};
use patterns::RegexCache;
use presence::Presence;
use replace::{keyed, rewrite, NameMatches};

pub use names::{Name, NameError, NameList};

/// Anonymizer settings (the stored resource's fields; defaults as in the reference).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(default)]
pub struct AnonymizerConfig {
    pub replace_misspelled_names: bool,
    pub replace_single_last_names: bool,
    pub replace_single_first_names: bool,
    pub misspelling_threshold: f64,
    pub mimic_casing: bool,
    pub auto_adjust_threshold: bool,
}

impl Default for AnonymizerConfig {
    fn default() -> Self {
        AnonymizerConfig {
            replace_misspelled_names: true,
            replace_single_last_names: true,
            replace_single_first_names: true,
            misspelling_threshold: 0.9,
            mimic_casing: true,
            auto_adjust_threshold: false,
        }
    }
}

/// Caller-supplied replacers that do not fit the names or texts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplacerError {
    /// A replacer list must hold one replacer per name.
    #[error("replacers must hold one entry per name: expected {expected}, got {got}")]
    PerName { expected: usize, got: usize },
    /// `anonymize_texts` needs one list (consistent) or one list per text (not consistent).
    #[error("replacers must hold {expected} list(s) for this call, got {got}")]
    Lists { expected: usize, got: usize },
}

/// The number of distinct two-letter initials `X.Y`.
const POOL_SIZE: usize = 26 * 26;

/// A configured anonymizer for one list of names.
pub struct Anonymizer {
    names: Vec<Name>,
    extractors: Vec<NameExtractor>,
    threshold: f64,
    presence: Presence,
    pieces: PieceIndex,
    cache: RegexCache,
}

impl Anonymizer {
    pub fn new(cfg: &AnonymizerConfig, names: &NameList) -> Anonymizer {
        let mut pieces = PieceIndexBuilder::default();
        let extractors: Vec<NameExtractor> = names.names().iter().map(|n| NameExtractor::new(n, cfg, &mut pieces)).collect();
        Anonymizer {
            names: names.names().to_vec(),
            presence: Presence::new(extractors.iter().flat_map(NameExtractor::static_components)),
            pieces: pieces.build(),
            extractors,
            threshold: similarity_threshold(cfg, names.names()),
            cache: RegexCache::default(),
        }
    }

    /// The Jaro–Winkler threshold in effect (after auto-adjustment).
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// Draw one replacer per name: distinct `X.Y` initials, uniformly without replacement (as the reference).
    /// Beyond 676 names, where the reference fails, the pool is drawn again (initials then repeat).
    pub fn draw_replacers(&self) -> Vec<String> {
        let mut rng = rand::rng();
        let mut out = Vec::with_capacity(self.names.len());
        while out.len() < self.names.len() {
            let amount = (self.names.len() - out.len()).min(POOL_SIZE);
            out.extend(rand::seq::index::sample(&mut rng, POOL_SIZE, amount).iter().map(initials));
        }
        out
    }

    /// Anonymize one text. `replacers`: one per name (`replacers[i]` for `names[i]`), or `None` to draw them.
    pub fn anonymize_text(&self, text: &str, replacers: Option<&[String]>) -> Result<String, ReplacerError> {
        match replacers {
            Some(r) => {
                self.check_per_name(r)?;
                Ok(self.anonymize_with(text, r))
            }
            None => Ok(self.anonymize_with(text, &self.draw_replacers())),
        }
    }

    /// Anonymize many texts in parallel; output order = input order. `consistent`: one replacer per name for
    /// all texts (`replacers`, if given, holds exactly one list); otherwise a fresh draw per text (`replacers`,
    /// if given, holds one list per text).
    pub fn anonymize_texts(
        &self,
        texts: &[String],
        consistent: bool,
        replacers: Option<&[Vec<String>]>,
    ) -> Result<Vec<String>, ReplacerError> {
        let lists: Vec<Vec<String>> = match replacers {
            Some(given) => {
                self.check_lists(given, if consistent { 1 } else { texts.len() })?;
                given.to_vec()
            }
            None if consistent => vec![self.draw_replacers()],
            None => texts.iter().map(|_| self.draw_replacers()).collect(),
        };
        let pick = |k: usize| if consistent { &lists[0] } else { &lists[k] };
        Ok(texts
            .par_iter()
            .enumerate()
            .map(|(k, text)| self.anonymize_with(text, pick(k)))
            .collect())
    }

    fn check_per_name(&self, replacers: &[String]) -> Result<(), ReplacerError> {
        if replacers.len() == self.names.len() {
            Ok(())
        } else {
            Err(ReplacerError::PerName {
                expected: self.names.len(),
                got: replacers.len(),
            })
        }
    }

    fn check_lists(&self, lists: &[Vec<String>], expected: usize) -> Result<(), ReplacerError> {
        if lists.len() != expected {
            return Err(ReplacerError::Lists {
                expected,
                got: lists.len(),
            });
        }
        lists.iter().try_for_each(|l| self.check_per_name(l))
    }

    /// The per-text algorithm (spec §4) with validated replacers.
    fn anonymize_with(&self, text: &str, replacers: &[String]) -> String {
        let text = text.replace("&nbsp;", " ");
        let work: String = text.chars().filter(|&c| c != '(' && c != ')').collect();
        let hay = fuzzy::Haystack::new(&work);
        let pieces = self.pieces.find(&hay);
        let scan = self.presence.scan(&hay, &self.cache);
        let results = self
            .names
            .iter()
            .zip(&self.extractors)
            .zip(replacers)
            .map(|((name, extractor), replacer)| NameMatches {
                full_name: name.full(),
                matches: extractor.extract(&hay, &pieces, &scan, self.threshold, &self.cache),
                replacer,
            });
        rewrite(text, &keyed(results), &self.cache)
    }
}

/// `X.Y` for pool index `i`.
fn initials(i: usize) -> String {
    let letter = |k: usize| char::from(b'A' + k as u8);
    format!("{}.{}", letter(i / 26), letter(i % 26))
}

/// The misspelling threshold in effect: 1.0 without misspelled names, unless auto-adjustment (which starts from
/// `misspelling_threshold` regardless) raises it above the closest pair of different names' forms.
fn similarity_threshold(cfg: &AnonymizerConfig, names: &[Name]) -> f64 {
    if !cfg.auto_adjust_threshold {
        return if cfg.replace_misspelled_names {
            cfg.misspelling_threshold
        } else {
            1.0
        };
    }
    let forms: Vec<Vec<String>> = names.iter().map(|n| comparable_forms(cfg, n)).collect();
    let closest = forms
        .par_iter()
        .enumerate()
        .map(|(i, a)| forms[i + 1..].iter().map(|b| closest_pair(a, b)).fold(0.0, f64::max))
        .reduce(|| 0.0, f64::max);
    if closest > cfg.misspelling_threshold {
        (closest + 0.01).min(1.0)
    } else {
        cfg.misspelling_threshold
    }
}

/// `"First Last"`, plus the last name and its parts and the first name and its parts where single names count.
fn comparable_forms(cfg: &AnonymizerConfig, name: &Name) -> Vec<String> {
    let mut forms = vec![name.full()];
    if cfg.replace_single_last_names {
        forms.extend(text::combinations(&name.last));
    }
    if cfg.replace_single_first_names {
        forms.extend(text::combinations(&name.first));
    }
    forms.sort();
    forms.dedup();
    forms
}

/// Highest similarity below 1.0 between a form of `a` and a form of `b` (each pair compared in sorted order).
fn closest_pair(a: &[String], b: &[String]) -> f64 {
    let mut best = 0.0f64;
    for x in a {
        for y in b {
            let (p, q) = if x <= y { (x, y) } else { (y, x) };
            let s = jaro::jaro_winkler(p, q);
            if s < 1.0 && s > best {
                best = s;
            }
        }
    }
    best
}
