//! `date_histogram` over calendar units (minute to year, UTC; `calendar_interval`, or the
//! older `interval` naming one: `year`, `1M`, `week`, ...), which tantivy lacks: a range
//! aggregation over the units from the one holding the least value to the one holding the
//! greatest, rendered as histogram buckets. As in Elasticsearch, weeks start on Monday,
//! `min_doc_count: 0` (the default) keeps the empty units between, `extended_bounds` (dates
//! in the aggregation's `format`, ISO dates, date math or epoch milliseconds) widens the span
//! when `min_doc_count` is 0, and `format` (a Joda pattern, `joda.rs`) writes `key_as_string`.

use serde_json::{json, Map, Value};
use tantivy::time::OffsetDateTime;

use super::super::backend::Result;
use super::super::date_math;
use super::super::dsl::value_text;
use super::super::joda::DatePattern;
use super::{bad, es_date, finish, from_nanos, millis, translate, Entry, Runner, Scope};

/// Most buckets a calendar date histogram may have (Elasticsearch's `search.max_buckets`).
const MAX_CALENDAR_BUCKETS: usize = 65_536;

/// The calendar unit of a date histogram (`calendar_interval`, or the older `interval` when
/// it names one) as a date-math unit and a count of it; `None` for a fixed interval.
pub(super) fn calendar_unit(body: &Value) -> Result<Option<(char, i64)>> {
    let unit = |name: &str| match name {
        "minute" | "1m" => Some(('m', 1)),
        "hour" | "1h" => Some(('h', 1)),
        "day" | "1d" => Some(('d', 1)),
        "week" | "1w" => Some(('w', 1)),
        "month" | "1M" => Some(('M', 1)),
        "quarter" | "1q" => Some(('M', 3)),
        "year" | "1y" => Some(('y', 1)),
        _ => None,
    };
    if let Some(interval) = body.get("calendar_interval") {
        let name = interval.as_str().unwrap_or_default();
        return unit(name)
            .map(Some)
            .ok_or_else(|| bad(format!("invalid calendar_interval: {interval}")));
    }
    Ok(body.get("interval").and_then(Value::as_str).and_then(unit))
}

/// The date pattern of an aggregation's `format`, when it has one.
pub(super) fn date_format(body: &Value) -> Result<Option<DatePattern>> {
    match body.get("format") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(pattern)) => DatePattern::new(pattern).map(Some).map_err(bad),
        Some(other) => Err(bad(format!("[format] must be a string, got {other}"))),
    }
}

/// A date as the aggregation writes it: in its `format`, else Elasticsearch's default.
pub(super) fn date_string(format: Option<&DatePattern>, millis: i64) -> String {
    match (format, OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)) {
        (Some(pattern), Ok(at)) => pattern.format(at),
        _ => es_date(millis),
    }
}

/// An `extended_bounds` end: epoch milliseconds, a date in the aggregation's format, an ISO
/// date or date math; anything else is Elasticsearch's parse failure.
fn bound(value: &Value, format: Option<&DatePattern>, round_up: bool) -> Result<OffsetDateTime> {
    let failed = || {
        let pattern = format.map_or("strict_date_optional_time||epoch_millis", DatePattern::pattern);
        bad(format!(
            "failed to parse date field [{}] with format [{pattern}]",
            value_text(value)
        ))
    };
    match value {
        Value::Number(n) => n
            .as_i64()
            .and_then(|ms| OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).ok())
            .ok_or_else(failed),
        Value::String(s) => {
            if let Some(at) = format.and_then(|pattern| pattern.parse(s)) {
                return Ok(at);
            }
            let now = OffsetDateTime::now_utc();
            match date_math::evaluate(s, now, round_up, date_math::parse_date).map_err(bad)? {
                Some(at) => Ok(at),
                None => date_math::parse_date(s)
                    .or_else(|| {
                        s.parse::<i64>()
                            .ok()
                            .and_then(|ms| OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).ok())
                    })
                    .ok_or_else(failed),
            }
        }
        _ => Err(failed()),
    }
}

/// The `extended_bounds` of a histogram, checked as Elasticsearch checks them.
fn extended_bounds(
    name: &str,
    body: &Map<String, Value>,
    format: Option<&DatePattern>,
) -> Result<Option<(OffsetDateTime, OffsetDateTime)>> {
    let Some(bounds) = body.get("extended_bounds") else {
        return Ok(None);
    };
    let bounds = bounds
        .as_object()
        .ok_or_else(|| bad(format!("[extended_bounds] of date_histogram [{name}] must be an object")))?;
    if let Some(key) = bounds.keys().find(|k| !matches!(k.as_str(), "min" | "max")) {
        return Err(bad(format!("[extended_bounds] unknown field [{key}]")));
    }
    let end = |key: &str, round_up: bool| {
        bounds
            .get(key)
            .filter(|v| !v.is_null())
            .map(|v| bound(v, format, round_up))
            .transpose()
    };
    let (Some(min), Some(max)) = (end("min", false)?, end("max", true)?) else {
        return Err(bad(format!("[extended_bounds] of date_histogram [{name}] needs both min and max")));
    };
    if min > max {
        return Err(bad(format!(
            "[extended_bounds.min][{}] cannot be greater than [extended_bounds.max][{}] for histogram aggregation [{name}]",
            millis(min),
            millis(max)
        )));
    }
    Ok(Some((min, max)))
}

/// `date_histogram` over calendar units: a range aggregation over the units from the one
/// holding the least value (or bound) to the one holding the greatest, rendered as histogram
/// buckets.
pub(super) fn calendar_histogram(runner: &dyn Runner, scope: &Scope, name: &str, e: &Entry, (unit, count): (char, i64)) -> Result<Value> {
    let body = e
        .body
        .as_object()
        .ok_or_else(|| bad(format!("date_histogram [{name}] must be an object")))?;
    for (key, value) in body {
        match key.as_str() {
            "field" | "calendar_interval" | "interval" | "min_doc_count" | "format" | "extended_bounds" => {}
            "time_zone" if matches!(value.as_str(), Some("UTC" | "Z" | "+00:00")) => {}
            _ => return Err(bad(format!("unsupported date_histogram option with a calendar interval: {key}"))),
        }
    }
    let field = body
        .get("field")
        .and_then(Value::as_str)
        .ok_or_else(|| bad(format!("date_histogram [{name}] needs a field")))?;
    let min_doc_count = match body.get("min_doc_count") {
        Some(v) => v.as_u64().ok_or_else(|| bad(format!("invalid min_doc_count: {v}")))?,
        None => 0,
    };
    let format = date_format(e.body)?;
    let extended = extended_bounds(name, body, format.as_ref())?.filter(|_| min_doc_count == 0);
    let data = json!({"least": {"min": {"field": field}}, "greatest": {"max": {"field": field}}});
    let data = runner.run(scope, translate(&data, runner.mappings())?)?;
    let invalid = || bad(format!("date_histogram [{name}]: dates out of range"));
    let data = match (data["least"]["value"].as_f64(), data["greatest"]["value"].as_f64()) {
        (Some(least), Some(greatest)) => Some((from_nanos(least).ok_or_else(invalid)?, from_nanos(greatest).ok_or_else(invalid)?)),
        _ => None,
    };
    let (least, greatest) = match (data, extended) {
        (Some((least, greatest)), Some((min, max))) => (least.min(min), greatest.max(max)),
        (Some(span), None) | (None, Some(span)) => span,
        (None, None) => return Ok(json!({"buckets": []})),
    };
    let mut start = date_math::round_down(least, unit).ok_or_else(invalid)?;
    if count == 3 {
        let into_quarter = (u8::from(start.month()) - 1) % 3;
        start = date_math::add(start, -i64::from(into_quarter), 'M').ok_or_else(invalid)?;
    }
    let mut edges = vec![start];
    while start <= greatest {
        start = date_math::add(start, count, unit).ok_or_else(invalid)?;
        edges.push(start);
        if edges.len() > MAX_CALENDAR_BUCKETS + 1 {
            return Err(bad(format!(
                "date_histogram [{name}] would have more than {MAX_CALENDAR_BUCKETS} buckets; use a longer interval"
            )));
        }
    }
    let ranges: Vec<Value> = edges
        .windows(2)
        .map(|w| json!({"from": millis(w[0]), "to": millis(w[1])}))
        .collect();
    let mut range = json!({"range": {"field": field, "ranges": ranges, "keyed": false}});
    if let Some(subs) = e.subs {
        range["aggs"] = subs.clone();
    }
    let units = json!({ "units": range });
    let result = finish(&units, runner.run(scope, translate(&units, runner.mappings())?)?, runner.mappings());
    let buckets = result["units"]["buckets"].as_array().cloned().unwrap_or_default();
    let buckets: Vec<Value> = buckets
        .into_iter()
        .filter(|b| b.get("from").is_some() && b.get("to").is_some()) // not the open ends
        .filter(|b| b["doc_count"].as_u64().unwrap_or(0) >= min_doc_count)
        .map(|b| {
            let millis = b["from"].as_f64().unwrap_or(0.0) as i64;
            let mut out = Map::new();
            out.insert("key_as_string".into(), Value::from(date_string(format.as_ref(), millis)));
            out.insert("key".into(), Value::from(millis));
            let Value::Object(rest) = b else { return Value::Object(out) };
            out.extend(
                rest.into_iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "key" | "from" | "to" | "from_as_string" | "to_as_string")),
            );
            Value::Object(out)
        })
        .collect();
    Ok(json!({ "buckets": buckets }))
}
