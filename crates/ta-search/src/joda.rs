//! Joda-Time date patterns, the `format` of Elasticsearch 6's date aggregations (`y`,
//! `MMM-y`, `d-M-y`, `yyyy-MM-dd`, ...), as `time` format descriptions: for rendering
//! `key_as_string` and `value_as_string`, and for reading dates written in the pattern
//! (`extended_bounds`). Dates are UTC and names English, Elasticsearch's defaults.
//!
//! Letters: `y`/`Y`/`u` year (`yy`: its last two digits), `x` week year, `M` month (`M`, `MM`,
//! `MMM` short name, `MMMM` full name), `w` week of week year, `D` day of year, `d` day of
//! month, `E` day name, `e` day number, `a` AM/PM, `H` hour of day, `h` hour of half day, `m`
//! minute, `s` second, `S` fraction of second, `Z` offset (`+0000`, `ZZ` `+00:00`, `ZZZ` `UTC`),
//! text in single quotes (`''` is a quote). Any other letter is refused as Joda refuses it;
//! other characters are literal.

use tantivy::time::OffsetDateTime;
use time::format_description::OwnedFormatItem;
use time::parsing::Parsed;

use super::date_math;

/// A Joda pattern ready to format and parse UTC dates.
#[derive(Debug, Clone)]
pub struct DatePattern {
    pattern: String,
    items: OwnedFormatItem,
}

impl DatePattern {
    /// The pattern, or Joda's message for a letter it does not know.
    pub fn new(pattern: &str) -> Result<Self, String> {
        let mut description = String::new();
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\'' {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                    description.push('\'');
                    continue;
                }
                while let Some(quoted) = chars.next() {
                    if quoted == '\'' && chars.next_if_eq(&'\'').is_none() {
                        break;
                    }
                    literal(&mut description, quoted);
                }
                continue;
            }
            if !c.is_ascii_alphabetic() {
                literal(&mut description, c);
                continue;
            }
            let mut count = 1;
            while chars.peek() == Some(&c) {
                chars.next();
                count += 1;
            }
            description.push_str(&component(c, count).ok_or_else(|| format!("Illegal pattern component: {c}"))?);
        }
        let items = time::format_description::parse_owned::<2>(&description).map_err(|e| format!("Invalid format: [{pattern}]: {e}"))?;
        Ok(DatePattern {
            pattern: pattern.to_string(),
            items,
        })
    }

    /// The instant written in the pattern (UTC).
    pub fn format(&self, at: OffsetDateTime) -> String {
        at.format(&self.items).unwrap_or_else(|_| at.unix_timestamp().to_string())
    }

    /// The instant a text written in the pattern denotes (the fields it leaves out at their
    /// least), `None` when it is not written so.
    pub fn parse(&self, text: &str) -> Option<OffsetDateTime> {
        let mut parsed = Parsed::new();
        let rest = parsed.parse_item(text.as_bytes(), &self.items).ok()?;
        rest.is_empty().then(|| date_math::from_parsed(&parsed, false)).flatten()
    }

    pub fn pattern(&self) -> &str {
        &self.pattern
    }
}

/// A literal character in a version 2 format description.
fn literal(description: &mut String, c: char) {
    if matches!(c, '[' | ']' | '\\') {
        description.push('\\');
    }
    description.push(c);
}

/// The format description of `count` repetitions of a pattern letter.
fn component(letter: char, count: usize) -> Option<String> {
    let padded = |name: &str| {
        if count == 1 {
            format!("[{name} padding:none]")
        } else {
            format!("[{name}]")
        }
    };
    Some(match letter {
        'y' | 'Y' | 'u' if count == 2 => "[year repr:last_two]".into(),
        'y' | 'Y' | 'u' if count < 4 => "[year padding:none]".into(),
        'y' | 'Y' | 'u' => "[year]".into(),
        'x' if count == 2 => "[year base:iso_week repr:last_two]".into(),
        'x' => "[year base:iso_week]".into(),
        'M' if count == 3 => "[month repr:short]".into(),
        'M' if count > 3 => "[month repr:long]".into(),
        'M' => padded("month"),
        'w' => padded("week_number repr:iso"),
        'D' => padded("ordinal"),
        'd' => padded("day"),
        'E' if count > 3 => "[weekday repr:long]".into(),
        'E' => "[weekday repr:short]".into(),
        'e' => "[weekday repr:monday]".into(),
        'a' => "[period]".into(),
        'H' => padded("hour"),
        'h' => padded("hour repr:12"),
        'm' => padded("minute"),
        's' => padded("second"),
        'S' => format!("[subsecond digits:{}]", count.min(9)),
        'Z' if count == 1 => "+0000".into(),
        'Z' if count == 2 => "+00:00".into(),
        'Z' => "UTC".into(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::DatePattern;
    use tantivy::time::{format_description::well_known::Rfc3339, OffsetDateTime};

    fn at(s: &str) -> OffsetDateTime {
        OffsetDateTime::parse(s, &Rfc3339).unwrap()
    }

    #[test]
    fn formats_as_joda_does() {
        let when = at("2020-09-01T07:05:09.250Z");
        let cases = [
            ("y", "2020"),
            ("MMM-y", "Sep-2020"),
            ("d-M-y", "1-9-2020"),
            ("yyyy-MM-dd", "2020-09-01"),
            ("MMM d, y", "Sep 1, 2020"),
            ("yy MMMM EEE EEEE", "20 September Tue Tuesday"),
            ("HH:mm:ss.SSS", "07:05:09.250"),
            ("h a", "7 AM"),
            ("yyyy-MM-dd'T'HH:mm:ssZZ", "2020-09-01T07:05:09+00:00"),
            ("'o''clock' [D]", "o'clock [245]"),
        ];
        for (pattern, want) in cases {
            assert_eq!(DatePattern::new(pattern).unwrap().format(when), want, "{pattern}");
        }
        assert_eq!(DatePattern::new("y-q").unwrap_err(), "Illegal pattern component: q");
    }

    #[test]
    fn parses_what_it_formats() {
        let cases = [
            ("y", "2019", "2019-01-01T00:00:00Z"),
            ("MMM-y", "Sep-2020", "2020-09-01T00:00:00Z"),
            ("d-M-y", "15-9-2020", "2020-09-15T00:00:00Z"),
            ("yyyy-MM-dd", "2020-09-15", "2020-09-15T00:00:00Z"),
        ];
        for (pattern, text, want) in cases {
            let parsed = DatePattern::new(pattern).unwrap().parse(text).map(|t| t.format(&Rfc3339).unwrap());
            assert_eq!(parsed.as_deref(), Some(want), "{pattern} {text}");
        }
        assert_eq!(DatePattern::new("y").unwrap().parse("2019-01-01T00:00:00.000Z"), None);
        assert_eq!(DatePattern::new("MMM-y").unwrap().parse("Foo-2020"), None);
    }
}
