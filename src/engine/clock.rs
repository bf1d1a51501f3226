//! Timestamps as the wire renders them: UTC, ISO 8601, six fractional digits, `Z`.
use time::{format_description::FormatItem, macros::format_description, OffsetDateTime};

const FORMAT: &[FormatItem<'static>] = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:6]Z");

/// The current instant, rendered.
pub fn now() -> String {
    OffsetDateTime::now_utc().format(FORMAT).expect("timestamp formats")
}
