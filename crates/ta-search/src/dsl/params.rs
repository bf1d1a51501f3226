//! The pieces the query-DSL clauses are made of: field paths resolved to their JSON field
//! (`Target`), range bounds as terms, scoring and boosts, regex and fuzziness settings,
//! `minimum_should_match`, `field^boost` and the small JSON accessors with their messages.
use serde_json::{Map, Value};
use tantivy::query::{BoostQuery, ConstScoreQuery, RegexQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Term};
use tantivy::time::OffsetDateTime;
use tantivy::DateTime;

use super::super::backend::Result;
use super::super::date_math::{parse_date, parse_date_rounding};
use super::{bad, Q};

/// A field path resolved to the JSON field holding it.
pub(super) struct Target {
    pub(super) path: String,
    pub(super) keyword: bool,
}

impl Target {
    /// The target of a field path; one holding NUL (which ends a JSON path in the index's
    /// terms, so no field can be named with it) is a bad query.
    pub(super) fn of(path: &str) -> Result<Self> {
        if path.contains('\0') {
            return Err(bad(format!(
                "field names cannot contain the NUL character: {}",
                path.escape_debug()
            )));
        }
        if let Some(stripped) = path.strip_suffix(".keyword") {
            return Ok(Target {
                path: stripped.to_string(),
                keyword: true,
            });
        }
        let keyword = path.starts_with("texta_facts.");
        Ok(Target {
            path: path.to_string(),
            keyword,
        })
    }
}

#[derive(Clone, Copy)]
pub(super) enum ValueKind {
    Number,
    Date,
    Str,
}

/// A range bound as a term of the given kind, or None when the value is not of that kind.
/// Date bounds may use date math (`date_math.rs`).
pub(super) fn range_term(base: &Term, value: &Value, kind: ValueKind, now: OffsetDateTime, round_up: bool) -> Result<Option<Term>> {
    let mut term = base.clone();
    match (kind, value) {
        // All numeric bounds are f64: tantivy needs both bounds of one type.
        (ValueKind::Number, Value::Number(n)) => term.append_type_and_fast_value(n.as_f64().unwrap_or(f64::NAN)),
        (ValueKind::Number, Value::String(s)) => match s.parse::<f64>() {
            Ok(f) => term.append_type_and_fast_value(f),
            Err(_) => return Ok(None),
        },
        (ValueKind::Date, Value::String(s)) => match super::super::date_math::evaluate(s, now, round_up, parse_date)
            .map_err(bad)?
            .or_else(|| parse_date_rounding(s, round_up))
        {
            Some(date) => term.append_type_and_fast_value(DateTime::from_utc(date)),
            None => return Ok(None),
        },
        (ValueKind::Str, Value::String(s)) => term.append_type_and_str(s),
        (_, Value::Null) => return Ok(None),
        (ValueKind::Number, other) => return Err(bad(format!("unsupported range bound: {other}"))),
        _ => return Ok(None),
    }
    Ok(Some(term))
}

pub(super) fn scored_term(term: Term) -> Q {
    Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs))
}

pub(super) fn boosted(query: Q, boost: f32) -> Q {
    if boost == 1.0 {
        query
    } else {
        Box::new(BoostQuery::new(query, boost))
    }
}

pub(super) fn regex_query(pattern: &str, field: Field) -> Result<Q> {
    RegexQuery::from_pattern(pattern, field)
        .map(|q| Box::new(ConstScoreQuery::new(Box::new(q), 1.0)) as Q)
        .map_err(|e| bad(format!("invalid pattern: {e}")))
}

/// The term-dictionary prefix of a JSON path (segments joined by `\x01`).
pub(super) fn json_path_bytes(field: Field, path: &str) -> Vec<u8> {
    let term = Term::from_field_json_path(field, path, true);
    let bytes = term.serialized_value_bytes();
    bytes[..bytes.len().saturating_sub(1)].to_vec()
}

/// A regex matching exactly these term bytes (segments between `\x00`/`\x01` separators escaped).
pub(super) fn bytes_regex(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .split_inclusive(['\u{0}', '\u{1}'])
        .map(|part| match part.strip_suffix(['\u{0}', '\u{1}']) {
            Some(text) => format!("{}\\x{:02x}", escape_regex(text), part.as_bytes()[part.len() - 1]),
            None => escape_regex(part),
        })
        .collect()
}

/// Escapes regex metacharacters.
pub fn escape_regex(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~\"<>@".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Elasticsearch wildcard (`*`, `?`) to regex, other characters through `escape`.
pub(crate) fn wildcard_with(pattern: &str, escape: fn(&str) -> String) -> String {
    pattern
        .chars()
        .map(|c| match c {
            '*' => ".*".to_string(),
            '?' => ".".to_string(),
            other => escape(&other.to_string()),
        })
        .collect()
}

/// A simple_query_string in query_string terms: `|` is OR, a lone `+` AND; grouping,
/// fuzziness and slop marks become spaces; an open quote is closed.
pub(crate) fn simple_as_query_string(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let standalone = plain.ends_with(char::is_whitespace) || plain.is_empty();
        match c {
            '"' => {
                quoted = !quoted;
                plain.push(c);
            }
            '(' | ')' | '~' | '^' | '[' | ']' | '{' | '}' if !quoted => plain.push(' '),
            '|' if !quoted => plain.push_str(" OR "),
            '+' if !quoted && standalone && chars.peek().is_none_or(|n| n.is_whitespace()) => plain.push_str(" AND "),
            c => plain.push(c),
        }
    }
    if quoted {
        plain.push('"');
    }
    plain
}

/// Elasticsearch `fuzziness` as an edit distance: 0, 1, 2, or `AUTO` (`AUTO:3,6`: none up to
/// 2 characters, one up to 5, two beyond; other bounds may be given).
pub(super) fn fuzziness(setting: Option<&Value>, word: &str) -> Result<u8> {
    let text = setting.map(value_text).unwrap_or_else(|| "AUTO".into());
    let invalid = || bad(format!("invalid fuzziness: {text}"));
    let (low, high) = match text.as_str() {
        "0" | "1" | "2" => return text.parse().map_err(|_| invalid()),
        "AUTO" | "auto" => (3, 6),
        other => {
            let bounds = other.strip_prefix("AUTO:").ok_or_else(invalid)?;
            let (low, high) = bounds.split_once(',').ok_or_else(invalid)?;
            (
                low.trim().parse::<usize>().map_err(|_| invalid())?,
                high.trim().parse::<usize>().map_err(|_| invalid())?,
            )
        }
    };
    let length = word.chars().count();
    Ok(if length < low {
        0
    } else if length < high {
        1
    } else {
        2
    })
}

/// Elasticsearch `minimum_should_match`: `n`, `-n`, `p%`, `-p%` against `clauses` clauses.
pub(super) fn minimum_should_match(value: &Value, clauses: usize) -> Result<usize> {
    let text = value_text(value);
    let text = text.trim();
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let amount = match body.strip_suffix('%') {
        Some(pct) => {
            let pct: f64 = pct.parse().map_err(|_| bad(format!("invalid minimum_should_match: {text}")))?;
            (clauses as f64 * pct / 100.0).floor() as usize
        }
        None => body.parse().map_err(|_| bad(format!("invalid minimum_should_match: {text}")))?,
    };
    Ok(if negative { clauses.saturating_sub(amount) } else { amount })
}

/// Splits a query_string into terms: quoted phrases stay whole (with their quotes).
pub(crate) fn tokenize_query_string(text: &str) -> Result<Vec<String>> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    for c in text.chars() {
        match c {
            '"' => {
                in_quotes = !in_quotes;
                current.push(c);
            }
            c if c.is_whitespace() && !in_quotes => {
                if !current.is_empty() {
                    tokens.push(std::mem::take(&mut current));
                }
            }
            '(' | ')' | '[' | ']' | '{' | '}' | '~' | '^' if !in_quotes => {
                return Err(bad(format!("unsupported query_string syntax: {c}")));
            }
            c => current.push(c),
        }
    }
    if in_quotes {
        return Err(bad("unbalanced quotes in query_string"));
    }
    if !current.is_empty() {
        tokens.push(current);
    }
    Ok(tokens.into_iter().filter(|t| !matches!(t.as_str(), "+" | "-")).collect())
}

/// `field:value` (a colon before any quote), else None.
pub(super) fn split_field(token: &str) -> Option<(&str, &str)> {
    let colon = token.find(':')?;
    let quote = token.find('"').unwrap_or(usize::MAX);
    (colon < quote && colon > 0).then(|| (&token[..colon], &token[colon + 1..]))
}

pub(super) fn split_boost(field: &str) -> (&str, f32) {
    match field.split_once('^') {
        Some((path, boost)) => (path, boost.parse().unwrap_or(1.0)),
        None => (field, 1.0),
    }
}

pub(super) fn single(key: &str, value: &str) -> Map<String, Value> {
    Map::from_iter([(key.to_string(), Value::from(value))])
}

pub(crate) fn one_or_many(value: Option<&Value>) -> Vec<&Value> {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().collect(),
        Some(one) => vec![one],
    }
}

pub(super) fn as_object<'v>(name: &str, body: &'v Value) -> Result<&'v Map<String, Value>> {
    body.as_object()
        .ok_or_else(|| bad(format!("[{name}] query malformed, expected an object")))
}

pub(super) fn required<'v>(obj: &'v Map<String, Value>, key: &str) -> Result<&'v Value> {
    obj.get(key).ok_or_else(|| bad(format!("missing [{key}]")))
}

pub(super) fn required_str<'v>(obj: &'v Map<String, Value>, key: &str) -> Result<&'v str> {
    required(obj, key)?.as_str().ok_or_else(|| bad(format!("[{key}] must be a string")))
}

pub(crate) fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
