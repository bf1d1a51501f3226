//! Regex (lexicon) tagger engine: a wire-compatible reimplementation of `texta-lexicon-matcher`
//! 2.0.0 as used by TEXTA Toolkit's regex taggers and regex tagger groups.
//!
//! * [`MatcherConfig`] holds every tagger parameter (defaults as in the API); [`Matcher::compile`]
//!   builds it once, [`Matcher::find`] returns the matches of one text.
//! * [`ops`] shapes endpoint results (tag_text, tag_doc, multitag, groups, apply_tagger_group).
//!
//! Self-contained: only `self::`/`super::` paths are used inside this module.

mod backtrack;
mod charset;
mod matcher;
pub mod ops;
mod prefilter;
mod syntax;

#[cfg(test)]
mod conformance_tests;
#[cfg(test)]
mod unit_tests;

pub use matcher::{Matcher, DEFAULT_TIMEOUT};

/// How lexicon entries are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Operator {
    #[default]
    Or,
    And,
}

/// Anchoring of an entry inside the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MatchType {
    #[default]
    Prefix,
    Exact,
    Subword,
}

/// All regex tagger parameters (wire names and defaults of `api.md` §8).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(default)]
pub struct MatcherConfig {
    pub lexicon: Vec<String>,
    pub counter_lexicon: Vec<String>,
    pub operator: Operator,
    pub match_type: MatchType,
    pub required_words: f64,
    pub phrase_slop: i64,
    pub counter_slop: i64,
    pub n_allowed_edits: i64,
    pub return_fuzzy_match: bool,
    pub ignore_case: bool,
    pub ignore_punctuation: bool,
}

impl Default for MatcherConfig {
    fn default() -> Self {
        MatcherConfig {
            lexicon: Vec::new(),
            counter_lexicon: Vec::new(),
            operator: Operator::Or,
            match_type: MatchType::Prefix,
            required_words: 1.0,
            phrase_slop: 0,
            counter_slop: 0,
            n_allowed_edits: 0,
            return_fuzzy_match: true,
            ignore_case: true,
            ignore_punctuation: true,
        }
    }
}

/// One match: lower-cased stripped text, code-point span, and (documents only) the field path.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct Match {
    pub str_val: String,
    pub span: [usize; 2],
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub field: Option<String>,
}

/// A configuration that cannot be compiled; `field` is `"lexicon"` or `"counter_lexicon"`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct CompileError {
    pub field: &'static str,
    pub message: String,
}

/// Matching failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    /// The per-text budget (time, or backtracking depth) was exhausted.
    #[error("regex tagger matching timed out")]
    Timeout,
}
