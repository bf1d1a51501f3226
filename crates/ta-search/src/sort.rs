//! Field sort for the embedded store's search, as Elasticsearch's `sort`: keys `_score`,
//! `_doc` and fields, each with `order` (`asc`/`desc`) and `missing` (`_last`, the default,
//! or `_first`); `unmapped_type` is accepted. Field values come from the `kw` fast columns:
//! keyword (`x.keyword`), number, date and boolean fields; an analysed text field cannot be
//! sorted on, as in Elasticsearch. A multi-valued field sorts by its smallest value ascending
//! and its largest descending (Elasticsearch's default `mode`).
//!
//! Hits carry `sort` arrays rendered as Elasticsearch does: strings, numbers, dates as epoch
//! milliseconds, booleans as 0/1, `_doc` as the hit's position among the matches in index
//! order; a missing number is the
//! largest or smallest long (whichever places it where `missing` says), a missing keyword null.

use std::cmp::Ordering;

use serde_json::{json, Value};
use tantivy::columnar::DynamicColumn;
use tantivy::{DocId, SegmentReader};

use super::backend::{Result, SearchError};
use super::mapping::{FieldTypes, FACTS_FIELD};

fn bad(msg: impl Into<String>) -> SearchError {
    SearchError::BadQuery(msg.into())
}

/// What a key sorts by.
#[derive(Debug, Clone, PartialEq)]
pub enum By {
    Score,
    Doc,
    /// A `kw` fast column (dotted path), whether it holds keywords, and the field's mapped
    /// type (`long`, `float`, ...), which decides how numbers are shown.
    Field {
        column: String,
        keyword: bool,
        mapped: Option<String>,
    },
}

/// One `sort` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct SortKey {
    pub by: By,
    pub desc: bool,
    pub missing_first: bool,
}

/// The parsed `sort` of a search body; `None` when it asks for plain relevance order.
pub fn parse(sort: Option<&Value>, types: &FieldTypes) -> Result<Option<Vec<SortKey>>> {
    let entries: Vec<&Value> = match sort {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(list)) => list.iter().collect(),
        Some(one) => vec![one],
    };
    let keys = entries.into_iter().map(|e| key(e, types)).collect::<Result<Vec<_>>>()?;
    let relevance = keys.iter().all(|k| k.by == By::Score && k.desc);
    Ok((!relevance).then_some(keys))
}

fn key(entry: &Value, types: &FieldTypes) -> Result<SortKey> {
    let (name, options) = match entry {
        Value::String(name) => (name.as_str(), None),
        Value::Object(map) if map.len() == 1 => {
            let (name, options) = map.iter().next().expect("one entry");
            (name.as_str(), Some(options))
        }
        other => return Err(bad(format!("invalid sort entry: {other}"))),
    };
    let by = match name {
        "_score" => By::Score,
        "_doc" => By::Doc,
        field => field_column(field, types)?,
    };
    let mut desc = by == By::Score;
    let mut missing_first = false;
    match options {
        None => {}
        Some(Value::String(order)) => desc = parse_order(order)?,
        Some(Value::Object(opts)) => {
            for (option, value) in opts {
                match (option.as_str(), value) {
                    ("order", Value::String(order)) => desc = parse_order(order)?,
                    ("missing", Value::String(m)) if m == "_last" || m == "_first" => missing_first = m == "_first",
                    ("unmapped_type", _) => {}
                    (option, value) => return Err(bad(format!("unsupported sort option for [{name}]: {option}: {value}"))),
                }
            }
        }
        Some(other) => return Err(bad(format!("invalid sort options for [{name}]: {other}"))),
    }
    Ok(SortKey { by, desc, missing_first })
}

fn parse_order(order: &str) -> Result<bool> {
    match order {
        "asc" => Ok(false),
        "desc" => Ok(true),
        other => Err(bad(format!("unknown sort order: {other}"))),
    }
}

fn field_column(field: &str, types: &FieldTypes) -> Result<By> {
    let (column, keyword, mapped) = fast_column(field, types)?;
    Ok(By::Field { column, keyword, mapped })
}

/// The `kw` fast column of a field named as in Elasticsearch (`x.keyword`, a number, date or
/// boolean field, a fact field): (column, holds keywords, mapped type). An analysed text
/// field has none, as in Elasticsearch, and is an error.
pub fn fast_column(field: &str, types: &FieldTypes) -> Result<(String, bool, Option<String>)> {
    if let Some(path) = field.strip_suffix(".keyword") {
        return Ok((format!("kw.{path}"), true, None));
    }
    let keyword = field.starts_with(&format!("{FACTS_FIELD}."));
    let mapped = types.type_of(field).map(String::from);
    if mapped.as_deref() == Some("text") && !keyword {
        return Err(bad(format!(
            "Text fields are not optimised for operations that require per-document field data like aggregations and \
             sorting, so these operations are disabled by default. Please use a keyword field instead. [{field}] \
             is a text field: use [{field}.keyword]"
        )));
    }
    Ok((format!("kw.{field}"), keyword, mapped))
}

/// A document's value for one key: what it compares by and how the hit shows it.
#[derive(Debug, Clone)]
pub enum SortValue {
    Missing,
    Num(f64, Value),
    Str(String),
}

/// The columns of one segment for the keys (opened once per segment).
pub struct SegmentColumns(Vec<Vec<DynamicColumn>>);

impl SegmentColumns {
    pub fn open(segment: &SegmentReader, keys: &[SortKey]) -> Result<SegmentColumns> {
        let fast = segment.fast_fields();
        let io = |e: std::io::Error| SearchError::Backend(e.to_string());
        keys.iter()
            .map(|k| match &k.by {
                By::Field { column, .. } => fast
                    .dynamic_column_handles(column)
                    .map_err(|e| SearchError::Backend(e.to_string()))?
                    .into_iter()
                    .map(|h| h.open().map_err(io))
                    .collect(),
                _ => Ok(Vec::new()),
            })
            .collect::<Result<Vec<_>>>()
            .map(SegmentColumns)
    }

    /// The values of `doc` (scored `score`, number `number` in the search's order) for `keys`.
    pub fn values(&self, keys: &[SortKey], doc: DocId, score: f32, number: u64) -> Vec<SortValue> {
        keys.iter()
            .zip(&self.0)
            .map(|(key, columns)| match key.by {
                By::Score => SortValue::Num(score as f64, json!(score)),
                By::Doc => SortValue::Num(number as f64, json!(number)),
                By::Field { ref mapped, .. } => {
                    let value = columns.iter().filter_map(|c| column_value(c, doc, key.desc)).reduce(|a, b| {
                        if (compare_values(&a, &b) == Ordering::Greater) == key.desc {
                            a
                        } else {
                            b
                        }
                    });
                    match (value, mapped.as_deref()) {
                        // a segment that also holds fractions keeps a long field's numbers as f64
                        (Some(SortValue::Num(v, _)), Some("long")) => SortValue::Num(v, json!(v as i64)),
                        (Some(value), _) => value,
                        (None, _) => SortValue::Missing,
                    }
                }
            })
            .collect()
    }
}

/// The smallest (ascending) or largest (descending) value of `doc` in one column.
fn column_value(column: &DynamicColumn, doc: DocId, desc: bool) -> Option<SortValue> {
    fn pick<T: PartialOrd>(values: impl Iterator<Item = T>, desc: bool) -> Option<T> {
        values.reduce(|a, b| if (a > b) == desc { a } else { b })
    }
    let num = |v: f64, shown: Value| SortValue::Num(v, shown);
    match column {
        DynamicColumn::I64(c) => pick(c.values_for_doc(doc), desc).map(|v| num(v as f64, json!(v))),
        DynamicColumn::U64(c) => pick(c.values_for_doc(doc), desc).map(|v| num(v as f64, json!(v))),
        DynamicColumn::F64(c) => pick(c.values_for_doc(doc), desc).map(|v| num(v, json!(v))),
        DynamicColumn::Bool(c) => pick(c.values_for_doc(doc), desc).map(|v| num(v as u8 as f64, json!(v as u8))),
        DynamicColumn::DateTime(c) => pick(c.values_for_doc(doc), desc).map(|v| {
            let millis = v.into_timestamp_millis();
            num(millis as f64, json!(millis))
        }),
        DynamicColumn::Str(c) => {
            let mut text = String::new();
            let ord = pick(c.term_ords(doc), desc)?;
            c.ord_to_str(ord, &mut text).ok()?;
            Some(SortValue::Str(text))
        }
        DynamicColumn::IpAddr(_) | DynamicColumn::Bytes(_) => None,
    }
}

/// Numbers before strings; missing values are placed by the key, not here.
fn compare_values(a: &SortValue, b: &SortValue) -> Ordering {
    match (a, b) {
        (SortValue::Num(x, _), SortValue::Num(y, _)) => x.total_cmp(y),
        (SortValue::Str(x), SortValue::Str(y)) => x.cmp(y),
        (SortValue::Num(..), SortValue::Str(_)) => Ordering::Less,
        (SortValue::Str(_), SortValue::Num(..)) => Ordering::Greater,
        (SortValue::Missing, SortValue::Missing) => Ordering::Equal,
        (SortValue::Missing, _) => Ordering::Greater,
        (_, SortValue::Missing) => Ordering::Less,
    }
}

/// The order of two documents' values under `keys`.
pub fn compare(keys: &[SortKey], a: &[SortValue], b: &[SortValue]) -> Ordering {
    for (key, (x, y)) in keys.iter().zip(a.iter().zip(b)) {
        let order = match (x, y) {
            (SortValue::Missing, SortValue::Missing) => Ordering::Equal,
            (SortValue::Missing, _) if key.missing_first => Ordering::Less,
            (SortValue::Missing, _) => Ordering::Greater,
            (_, SortValue::Missing) if key.missing_first => Ordering::Greater,
            (_, SortValue::Missing) => Ordering::Less,
            _ if key.desc => compare_values(y, x),
            _ => compare_values(x, y),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}

/// The hit's `sort` array.
pub fn render(keys: &[SortKey], values: Vec<SortValue>) -> Value {
    let shown = keys.iter().zip(values).map(|(key, value)| match value {
        SortValue::Num(_, shown) => shown,
        SortValue::Str(s) => Value::String(s),
        SortValue::Missing => match key.by {
            By::Field { keyword: true, .. } => Value::Null,
            // Elasticsearch's sentinels: the far end of the long range
            _ if key.desc != key.missing_first => json!(i64::MIN),
            _ => json!(i64::MAX),
        },
    });
    Value::Array(shown.collect())
}

/// Whether scores must be computed for `keys` (`track_scores` aside).
pub fn needs_scores(keys: &[SortKey]) -> bool {
    keys.iter().any(|k| k.by == By::Score)
}

#[cfg(test)]
mod tests {
    use super::{compare, parse, render, By, SortKey, SortValue};
    use crate::mapping::FieldTypes;
    use serde_json::json;
    use std::cmp::Ordering;

    fn types() -> FieldTypes {
        let mut t = FieldTypes::default();
        t.observe(&sonic_rs::json!({"title": "x", "n": 1, "when": "2024-01-01"}));
        t
    }

    #[test]
    fn parses_entries_and_refuses_text_fields() {
        let t = types();
        assert_eq!(parse(None, &t).unwrap(), None);
        assert_eq!(parse(Some(&json!(["_score"])), &t).unwrap(), None, "plain relevance");
        let keys = parse(
            Some(&json!([{"n": {"order": "desc", "missing": "_first"}}, "title.keyword", "_doc"])),
            &t,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            keys,
            vec![
                SortKey {
                    by: By::Field {
                        column: "kw.n".into(),
                        keyword: false,
                        mapped: Some("long".into())
                    },
                    desc: true,
                    missing_first: true
                },
                SortKey {
                    by: By::Field {
                        column: "kw.title".into(),
                        keyword: true,
                        mapped: None
                    },
                    desc: false,
                    missing_first: false
                },
                SortKey {
                    by: By::Doc,
                    desc: false,
                    missing_first: false
                },
            ]
        );
        let err = parse(Some(&json!({"title": "asc"})), &t).unwrap_err().to_string();
        assert!(err.contains("use [title.keyword]"), "{err}");
        let err = parse(Some(&json!({"n": {"mode": "avg"}})), &t).unwrap_err().to_string();
        assert!(err.contains("unsupported sort option for [n]: mode"), "{err}");
        assert!(parse(Some(&json!({"n": "up"})), &t).is_err());
    }

    #[test]
    fn missing_values_go_where_missing_says_and_render_as_sentinels() {
        let key = |desc, missing_first| SortKey {
            by: By::Field {
                column: "kw.n".into(),
                keyword: false,
                mapped: None,
            },
            desc,
            missing_first,
        };
        let one = [SortValue::Num(1.0, json!(1))];
        let none = [SortValue::Missing];
        assert_eq!(compare(&[key(false, false)], &none, &one), Ordering::Greater);
        assert_eq!(compare(&[key(true, false)], &none, &one), Ordering::Greater);
        assert_eq!(compare(&[key(true, true)], &none, &one), Ordering::Less);
        assert_eq!(render(&[key(false, false)], vec![SortValue::Missing]), json!([i64::MAX]));
        assert_eq!(render(&[key(true, false)], vec![SortValue::Missing]), json!([i64::MIN]));
        let two = [SortValue::Num(2.0, json!(2))];
        assert_eq!(compare(&[key(true, false)], &one, &two), Ordering::Greater);
    }
}
