//! Timestamps as the wire renders them: UTC, ISO 8601, six fractional digits, `Z`; and dates
//! in search results as Elasticsearch renders them (three fractional digits).
use time::{format_description::FormatItem, macros::format_description, OffsetDateTime};

const FORMAT: &[FormatItem<'static>] = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:6]Z");
const ES_FORMAT: &[FormatItem<'static>] = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

/// The current instant, rendered.
pub fn now() -> String {
    OffsetDateTime::now_utc().format(FORMAT).expect("timestamp formats")
}

/// Epoch milliseconds as Elasticsearch's default date format (`strict_date_optional_time`)
/// renders them; an instant out of range stays a number.
pub fn es_date(millis: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .ok()
        .and_then(|at| at.format(ES_FORMAT).ok())
        .unwrap_or_else(|| millis.to_string())
}
