//! Closed choices: a field that takes one of a few names is a Rust enum whose variants carry
//! their wire names once, in `#[serde(rename = "...")]`. This module reads those names back
//! from the enum's serde derive (in declaration order), so validation messages, OPTIONS
//! metadata, the GUI's selects and the CLI's values all come from that one place.
use serde::de::{self, DeserializeOwned, Visitor};
use serde::Serialize;
use std::fmt;

/// The wire names of enum `T`'s variants, in declaration order (empty for a non-enum).
pub fn names<T: DeserializeOwned>() -> &'static [&'static str] {
    match T::deserialize(Introspect) {
        Err(Found(variants)) => variants,
        Ok(_) => &[],
    }
}

/// The variant of `T` named `name` on the wire.
pub fn parse<T: DeserializeOwned>(name: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
}

/// The wire name of `value`.
pub fn name<T: Serialize + DeserializeOwned>(value: &T) -> &'static str {
    let wire = serde_json::to_value(value).ok();
    let wire = wire.as_ref().and_then(|v| v.as_str()).unwrap_or_default();
    names::<T>().iter().copied().find(|n| *n == wire).unwrap_or_default()
}

/// What the introspecting deserializer ends with: the variant names it was shown.
#[derive(Debug)]
struct Found(&'static [&'static str]);

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not an enum")
    }
}

impl std::error::Error for Found {}

impl de::Error for Found {
    fn custom<M: fmt::Display>(_: M) -> Self {
        Found(&[])
    }
}

/// A deserializer that answers nothing but learns the variants an enum asks for.
struct Introspect;

impl<'de> de::Deserializer<'de> for Introspect {
    type Error = Found;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Found> {
        Err(Found(&[]))
    }

    fn deserialize_enum<V: Visitor<'de>>(self, _name: &'static str, variants: &'static [&'static str], _: V) -> Result<V::Value, Found> {
        Err(Found(variants))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    enum Kind {
        #[serde(rename = "Hashing Vectorizer")]
        Hashing,
        #[serde(rename = "fastText")]
        FastText,
    }

    #[test]
    fn names_come_from_the_derive() {
        assert_eq!(names::<Kind>(), ["Hashing Vectorizer", "fastText"]);
        assert_eq!(parse::<Kind>("fastText"), Some(Kind::FastText));
        assert_eq!(parse::<Kind>("fasttext"), None);
        assert_eq!(name(&Kind::Hashing), "Hashing Vectorizer");
        assert!(names::<String>().is_empty());
    }
}
