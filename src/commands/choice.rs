//! Closed choices on the command line, from their one declaration (the enum's serde names,
//! `ta_text::choice`): a flag takes the wire name's first word in lower case (`tfidf` for
//! `TfIdf Vectorizer`, `linearsvc`, `textrnn`) or the wire name itself, in any case, and hands
//! the wire name on, so the CLI can never offer what the API refuses.
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use serde::de::DeserializeOwned;

/// The short form of a wire name: its first word in lower case.
fn short(name: &str) -> String {
    name.split_whitespace().next().unwrap_or(name).to_lowercase()
}

/// A value parser for the choices of `T`, yielding the wire name.
pub fn of<T: DeserializeOwned>() -> impl TypedValueParser<Value = String> {
    let names = ta_text::choice::names::<T>();
    let values = names.iter().map(|n| PossibleValue::new(short(n)).alias(*n).help(*n));
    PossibleValuesParser::new(values).map(move |s: String| {
        let given = s.to_lowercase();
        names
            .iter()
            .find(|n| short(n) == given || n.to_lowercase() == given)
            .map_or(s, |n| n.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::classifier::VectorizerKind;
    use clap::{Arg, Command};

    #[test]
    fn short_and_wire_names_give_the_wire_name() {
        let cmd = || Command::new("t").arg(Arg::new("v").long("v").value_parser(of::<VectorizerKind>()).ignore_case(true));
        for given in ["tfidf", "TfIdf Vectorizer", "TFIDF"] {
            let m = cmd().try_get_matches_from(["t", "--v", given]).unwrap();
            assert_eq!(m.get_one::<String>("v").map(String::as_str), Some("TfIdf Vectorizer"), "{given}");
        }
        assert!(cmd().try_get_matches_from(["t", "--v", "bag"]).is_err());
    }
}
