//! Parsing and validation of the `names` request field (`"Last, First"`).

use std::fmt;

/// Why a name was rejected. `Display` gives the message reported under the `names` field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameError {
    /// The (trimmed) name has no comma.
    MissingComma(String),
    /// The name has more than one comma (the reference crashed on these; ta rejects them).
    TooManyCommas(String),
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameError::MissingComma(name) => {
                write!(
                    f,
                    "Value '{name}' should be in format ['last_name, first_name']! Are you missing a comma?"
                )
            }
            NameError::TooManyCommas(name) => write!(
                f,
                "Value '{name}' should be in format ['last_name, first_name']! It contains more than one comma."
            ),
        }
    }
}

impl std::error::Error for NameError {}

/// One person: trimmed last and first name (either may hold several words or hyphenated parts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub last: String,
    pub first: String,
}

impl Name {
    /// `"First Last"`: the key under which the reference groups matches, and the base form for case endings.
    pub fn full(&self) -> String {
        format!("{} {}", self.first, self.last)
    }
}

/// Parsed, validated names in request order; built once per request and reused for every text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameList {
    names: Vec<Name>,
}

impl NameList {
    /// Trim each name and split it at its single comma; the first bad name gives the error.
    pub fn parse(names: &[String]) -> Result<NameList, NameError> {
        let names = names.iter().map(|raw| parse_one(raw.trim())).collect::<Result<_, _>>()?;
        Ok(NameList { names })
    }

    pub fn names(&self) -> &[Name] {
        &self.names
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

fn parse_one(name: &str) -> Result<Name, NameError> {
    let mut parts = name.split(',');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(last), Some(first), None) => Ok(Name {
            last: last.trim().to_string(),
            first: first.trim().to_string(),
        }),
        (_, None, _) => Err(NameError::MissingComma(name.to_string())),
        _ => Err(NameError::TooManyCommas(name.to_string())),
    }
}
