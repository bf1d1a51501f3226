//! Elasticsearch date math for range bounds: an anchor (`now`, or a date followed by `||`),
//! then any of `+N<unit>`, `-N<unit>` and `/<unit>` (rounding), with units `y M w d h H m s`.
//! Rounding depends on the bound, as in Elasticsearch: `gte` and `lt` round down to the start
//! of the unit, `gt` and `lte` round up to its last millisecond, so `lte: now/d` includes all
//! of today and `gt: now/d` excludes it. Weeks start on Monday. Months and years clamp the
//! day (`2024-01-31||+1M` is February 29). All in UTC: a range with another `time_zone` is
//! refused (`dsl.rs`).
//!
//! Also the date strings Elasticsearch reads by default (`parse_date`): its
//! `strict_date_optional_time` and the `yyyy/MM/dd [HH:mm:ss]` form of dynamic mapping. A date
//! without an offset is UTC, as in Elasticsearch; a bound that rounds up (`gt`, `lte`) fills
//! the missing time of day with its last instant (`lte: "2020-09-01"` takes all of that day),
//! as Elasticsearch's range queries do.

use tantivy::time::{Date, Duration, Month, OffsetDateTime, Time, UtcOffset};
use time::format_description::BorrowedFormatItem;
use time::macros::format_description;
use time::parsing::Parsed;

/// `strict_date_optional_time`: a year, then optionally the month, the day, `T` and the time
/// (hour, minute, second, fraction), then optionally `Z` or an offset.
const ISO_DATE: &[BorrowedFormatItem<'static>] = format_description!(
    version = 2,
    "[year][optional [-[month][optional [-[day][optional [T[hour][optional [:[minute][optional [:[second][optional \
     [[first [.][,]][subsecond]]]]]]][optional [[first [Z][[offset_hour sign:mandatory][optional [:]][offset_minute]]]]]]]]]]]"
);

/// Dynamic mapping's other date form: `yyyy/MM/dd`, optionally ` HH:mm:ss` and an offset.
const SLASH_DATE: &[BorrowedFormatItem<'static>] = format_description!(
    version = 2,
    "[year]/[month]/[day][optional [ [hour]:[minute]:[second][optional [ [offset_hour sign:mandatory][offset_minute]]]]]"
);

/// The instant a date string denotes (see the module comment), `None` when it is none.
pub fn parse_date(s: &str) -> Option<OffsetDateTime> {
    parse_date_rounding(s, false)
}

/// `parse_date`, the missing time of day filled with its last instant when `round_up`.
pub fn parse_date_rounding(s: &str, round_up: bool) -> Option<OffsetDateTime> {
    [ISO_DATE, SLASH_DATE].into_iter().find_map(|items| {
        let mut parsed = Parsed::new();
        let rest = parsed.parse_items(s.as_bytes(), items).ok()?;
        rest.is_empty().then(|| from_parsed(&parsed, round_up)).flatten()
    })
}

/// The instant of parsed date parts, the parts left out at their least (January, the 1st,
/// midnight, UTC); with `round_up`, a time of day left out (in part) at its greatest
/// (23:59:59.999999999), as Elasticsearch fills missing fields of rounded-up bounds.
pub fn from_parsed(parsed: &Parsed, round_up: bool) -> Option<OffsetDateTime> {
    let (last_hour, last_minute, last_nano) = if round_up { (23, 59, 999_999_999) } else { (0, 0, 0) };
    let day = parsed.day().map_or(1, std::num::NonZero::get);
    let date = Date::from_calendar_date(parsed.year()?, parsed.month().unwrap_or(Month::January), day).ok()?;
    let hour = match (parsed.hour_24(), parsed.hour_12(), parsed.hour_12_is_pm()) {
        (Some(hour), _, _) => hour,
        (None, Some(hour), pm) => hour.get() % 12 + if pm == Some(true) { 12 } else { 0 },
        (None, None, _) => last_hour,
    };
    let minute = parsed.minute().unwrap_or(last_minute);
    let second = parsed.second().unwrap_or(last_minute);
    let time = Time::from_hms_nano(hour, minute, second, parsed.subsecond().unwrap_or(last_nano)).ok()?;
    let offset = match parsed.offset_hour() {
        Some(hours) => UtcOffset::from_hms(hours, parsed.offset_minute_signed().unwrap_or(0), 0).ok()?,
        None => UtcOffset::UTC,
    };
    Some(date.with_time(time).assume_offset(offset).to_offset(UtcOffset::UTC))
}

/// The instant `expr` denotes, `None` when it is no date math (no `now` anchor, no `||`);
/// an error names what is wrong. `parse_anchor` reads the date before `||`.
pub fn evaluate(
    expr: &str,
    now: OffsetDateTime,
    round_up: bool,
    parse_anchor: impl Fn(&str) -> Option<OffsetDateTime>,
) -> Result<Option<OffsetDateTime>, String> {
    let (mut at, mut ops) = if let Some(rest) = expr.strip_prefix("now") {
        (now, rest)
    } else if let Some((anchor, rest)) = expr.split_once("||") {
        let at = parse_anchor(anchor).ok_or_else(|| format!("invalid date in date math: {anchor}"))?;
        (at, rest)
    } else {
        return Ok(None);
    };
    let invalid = || format!("invalid date math: {expr}");
    while let Some(op) = ops.chars().next() {
        ops = &ops[op.len_utf8()..];
        match op {
            '+' | '-' => {
                let digits = ops.chars().take_while(char::is_ascii_digit).count();
                let amount: i64 = if digits == 0 {
                    1
                } else {
                    ops[..digits].parse().map_err(|_| invalid())?
                };
                ops = &ops[digits..];
                let unit = ops.chars().next().ok_or_else(invalid)?;
                ops = &ops[unit.len_utf8()..];
                let signed = if op == '-' { -amount } else { amount };
                at = add(at, signed, unit).ok_or_else(invalid)?;
            }
            '/' => {
                let unit = ops.chars().next().ok_or_else(invalid)?;
                ops = &ops[unit.len_utf8()..];
                let start = round_down(at, unit).ok_or_else(invalid)?;
                at = if round_up {
                    add(start, 1, unit).ok_or_else(invalid)? - Duration::milliseconds(1)
                } else {
                    start
                };
            }
            _ => return Err(invalid()),
        }
    }
    Ok(Some(at))
}

/// `at` moved by `amount` units; `None` for an unknown unit or a result out of range.
pub fn add(at: OffsetDateTime, amount: i64, unit: char) -> Option<OffsetDateTime> {
    let seconds_per_unit = match unit {
        'y' => return add_months(at, amount.checked_mul(12)?),
        'M' => return add_months(at, amount),
        'w' => 7 * 86_400,
        'd' => 86_400,
        'h' | 'H' => 3_600,
        'm' => 60,
        's' => 1,
        _ => return None,
    };
    at.checked_add(Duration::seconds(amount.checked_mul(seconds_per_unit)?))
}

/// Calendar months later (or earlier), the day clamped to the target month's length.
fn add_months(at: OffsetDateTime, months: i64) -> Option<OffsetDateTime> {
    let index = (i64::from(at.year()) * 12 + i64::from(u8::from(at.month())) - 1).checked_add(months)?;
    let year = i32::try_from(index.div_euclid(12)).ok()?;
    let month = Month::try_from(u8::try_from(index.rem_euclid(12) + 1).ok()?).ok()?;
    let day = at.day().min(month.length(year));
    let date = Date::from_calendar_date(year, month, day).ok()?;
    Some(at.replace_date(date))
}

pub fn round_down(at: OffsetDateTime, unit: char) -> Option<OffsetDateTime> {
    let midnight = at.replace_time(Time::MIDNIGHT);
    Some(match unit {
        'y' => midnight.replace_date(Date::from_calendar_date(at.year(), Month::January, 1).ok()?),
        'M' => midnight.replace_day(1).ok()?,
        'w' => midnight - Duration::days(i64::from(at.weekday().number_days_from_monday())),
        'd' => midnight,
        'h' | 'H' => at.replace_time(Time::from_hms(at.hour(), 0, 0).ok()?),
        'm' => at.replace_time(Time::from_hms(at.hour(), at.minute(), 0).ok()?),
        's' => at.replace_nanosecond(0).ok()?,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::evaluate;
    use tantivy::time::{format_description::well_known::Rfc3339, OffsetDateTime};

    fn at(s: &str) -> OffsetDateTime {
        OffsetDateTime::parse(s, &Rfc3339).unwrap()
    }

    fn eval(expr: &str, round_up: bool) -> Result<Option<String>, String> {
        let now = at("2024-03-13T15:42:07.250Z");
        let anchor = |s: &str| OffsetDateTime::parse(&format!("{s}T00:00:00Z"), &Rfc3339).ok();
        evaluate(expr, now, round_up, anchor).map(|t| t.map(|t| t.format(&Rfc3339).unwrap()))
    }

    #[test]
    fn anchors_arithmetic_and_rounding() {
        let cases = [
            ("now", false, "2024-03-13T15:42:07.25Z"),
            ("now-1d", false, "2024-03-12T15:42:07.25Z"),
            ("now+2h-30m", false, "2024-03-13T17:12:07.25Z"),
            ("now/d", false, "2024-03-13T00:00:00Z"),
            ("now/d", true, "2024-03-13T23:59:59.999Z"),
            ("now-1M/M", false, "2024-02-01T00:00:00Z"),
            ("now-1M/M", true, "2024-02-29T23:59:59.999Z"),
            ("now/w", false, "2024-03-11T00:00:00Z"),
            ("now/y", false, "2024-01-01T00:00:00Z"),
            ("now/H", false, "2024-03-13T15:00:00Z"),
            ("now/m", true, "2024-03-13T15:42:59.999Z"),
            ("2024-01-31||+1M", false, "2024-02-29T00:00:00Z"),
            ("2023-01-31||+1M", false, "2023-02-28T00:00:00Z"),
            ("2024-02-29||-1y", false, "2023-02-28T00:00:00Z"),
            ("2014-11-18||/M", true, "2014-11-30T23:59:59.999Z"),
        ];
        for (expr, up, want) in cases {
            assert_eq!(eval(expr, up), Ok(Some(want.to_string())), "{expr} up={up}");
        }
    }

    #[test]
    fn elasticsearch_date_strings_without_an_offset_are_utc() {
        let parsed = |s: &str| super::parse_date(s).map(|t| t.format(&Rfc3339).unwrap());
        let cases = [
            ("2020-09-01T10:00:00", Some("2020-09-01T10:00:00Z")),
            ("2020-09-01", Some("2020-09-01T00:00:00Z")),
            ("2020-09", Some("2020-09-01T00:00:00Z")),
            ("2020", Some("2020-01-01T00:00:00Z")),
            ("2020-09-01T10", Some("2020-09-01T10:00:00Z")),
            ("2020-09-01T10:30", Some("2020-09-01T10:30:00Z")),
            ("2020-09-01T10:00:00.250", Some("2020-09-01T10:00:00.25Z")),
            ("2019-01-01T00:00:00.000Z", Some("2019-01-01T00:00:00Z")),
            ("2020-09-01T10:00:00+02:00", Some("2020-09-01T08:00:00Z")),
            ("2020-09-01T10:00:00-0130", Some("2020-09-01T11:30:00Z")),
            ("2020/09/01", Some("2020-09-01T00:00:00Z")),
            ("2020/09/01 10:00:00", Some("2020-09-01T10:00:00Z")),
            ("2020-13-01", None),
            ("2020-02-30", None),
            ("2020-09-01T", None),
            ("2020-09-01 10:00", None),
            ("september", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(parsed(text).as_deref(), want, "{text}");
        }
        let rounded = |s: &str| super::parse_date_rounding(s, true).map(|t| t.format(&Rfc3339).unwrap());
        assert_eq!(rounded("2020-09-01").as_deref(), Some("2020-09-01T23:59:59.999999999Z"));
        assert_eq!(rounded("2020-09-01T10:00").as_deref(), Some("2020-09-01T10:00:59.999999999Z"));
        assert_eq!(rounded("2020-09-01T10:00:00.000Z").as_deref(), Some("2020-09-01T10:00:00Z"));
    }

    #[test]
    fn plain_dates_are_not_date_math_and_bad_math_is_an_error() {
        assert_eq!(eval("2024-03-13", false), Ok(None));
        assert_eq!(eval("now-1x", false), Err("invalid date math: now-1x".into()));
        assert_eq!(eval("now/", false), Err("invalid date math: now/".into()));
        assert_eq!(eval("now*2", false), Err("invalid date math: now*2".into()));
        assert_eq!(eval("junk||+1d", false), Err("invalid date in date math: junk".into()));
        // non-ASCII operators and amounts out of range are errors, not panics
        assert_eq!(eval("now€", false), Err("invalid date math: now€".into()));
        assert_eq!(
            eval("now+9223372036854775807d", false),
            Err("invalid date math: now+9223372036854775807d".into())
        );
        assert_eq!(
            eval("now-9223372036854775807M", false),
            Err("invalid date math: now-9223372036854775807M".into())
        );
        assert_eq!(eval("now+99999999999y", false), Err("invalid date math: now+99999999999y".into()));
    }
}
