//! Index-name validation with the reference's exact messages and rule orders
//! (`conventions.md` §9, reference `toolkit/elastic/validators.py`). Blank names and the
//! 255-character field limit are serializer field rules and stay with the caller.

/// Which caller validates: the orders differ in the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRuleOrder {
    /// Dataset import `index`: upper case, first character, banned characters, colon, wildcard.
    DatasetImport,
    /// `indices[].name` in models and apply actions: wildcard, colon, banned characters,
    /// first character, upper case.
    IndicesField,
}

const BANNED_FIRST: [char; 3] = ['-', '+', '_'];
const BANNED: [char; 11] = ['#', ' ', '/', '\\', '*', '?', '"', '>', '<', ',', '|'];
const MAX_NAME_BYTES: usize = 255;

type Rule = fn(&str) -> Option<String>;

/// Checks `name`; the error is the `detail` message of the first rule it breaks.
pub fn validate_index_name(name: &str, order: NameRuleOrder) -> Result<(), String> {
    let rules: [Rule; 5] = match order {
        NameRuleOrder::DatasetImport => [upper_case, first_character, banned_characters, colons, wildcards],
        NameRuleOrder::IndicesField => [wildcards, colons, banned_characters, first_character, upper_case],
    };
    rules
        .iter()
        .chain([dots as Rule, byte_length as Rule].iter())
        .find_map(|rule| rule(name))
        .map_or(Ok(()), Err)
}

fn upper_case(name: &str) -> Option<String> {
    (name.to_lowercase() != name).then(|| "Uppercase characters are not allowed!".to_string())
}

fn first_character(name: &str) -> Option<String> {
    let first = name.chars().next().filter(|c| BANNED_FIRST.contains(c))?;
    Some(format!("{first} is not allowed to be the first character of the index name!"))
}

fn banned_characters(name: &str) -> Option<String> {
    let banned = name.chars().find(|c| BANNED.contains(c))?;
    Some(format!("{banned} is amongst the banned characters for index names!"))
}

fn colons(name: &str) -> Option<String> {
    name.contains(':')
        .then(|| "':' symbols are not allowed in Index names!".to_string())
}

fn wildcards(name: &str) -> Option<String> {
    name.contains('*')
        .then(|| "Wildcards are not allowed in Index operations!".to_string())
}

fn dots(name: &str) -> Option<String> {
    matches!(name, "." | "..").then(|| "'.' and '..' are not allowed as index names!".to_string())
}

fn byte_length(name: &str) -> Option<String> {
    (name.len() > MAX_NAME_BYTES).then(|| "Index name must not be longer than 255 bytes!".to_string())
}

#[cfg(test)]
mod tests {
    use super::NameRuleOrder::{DatasetImport, IndicesField};
    use super::*;

    fn message(name: &str, order: NameRuleOrder) -> String {
        validate_index_name(name, order).unwrap_err()
    }

    #[test]
    fn accepts_valid_names() {
        assert_eq!(validate_index_name("conf_r1a2b3", DatasetImport), Ok(()));
        assert_eq!(validate_index_name("a.b-c+d", IndicesField), Ok(()));
    }

    #[test]
    fn dataset_import_order_and_messages() {
        assert_eq!(
            message("_start", DatasetImport),
            "_ is not allowed to be the first character of the index name!"
        );
        assert_eq!(message("UPPERCASE_INDEX", DatasetImport), "Uppercase characters are not allowed!");
        assert_eq!(
            message("wild*_index", DatasetImport),
            "* is amongst the banned characters for index names!"
        );
        assert_eq!(message("colon:index", DatasetImport), "':' symbols are not allowed in Index names!");
        assert_eq!(message("a b", DatasetImport), "  is amongst the banned characters for index names!");
        // upper case runs before the first-character rule
        assert_eq!(message("-A", DatasetImport), "Uppercase characters are not allowed!");
        // first banned character scanning left to right
        assert_eq!(
            message("a|b#c", DatasetImport),
            "| is amongst the banned characters for index names!"
        );
        assert_eq!(
            message("+x:y", DatasetImport),
            "+ is not allowed to be the first character of the index name!"
        );
    }

    #[test]
    fn indices_field_order() {
        assert_eq!(message("Bad", IndicesField), "Uppercase characters are not allowed!");
        assert_eq!(
            message("wild*_index", IndicesField),
            "Wildcards are not allowed in Index operations!"
        );
        assert_eq!(message("A:b", IndicesField), "':' symbols are not allowed in Index names!");
        assert_eq!(message("_a b", IndicesField), "  is amongst the banned characters for index names!");
        assert_eq!(
            message("_A", IndicesField),
            "_ is not allowed to be the first character of the index name!"
        );
    }

    #[test]
    fn additions_for_the_store() {
        assert_eq!(message(".", DatasetImport), "'.' and '..' are not allowed as index names!");
        assert_eq!(message("..", IndicesField), "'.' and '..' are not allowed as index names!");
        let long = "ä".repeat(128);
        assert_eq!(message(&long, DatasetImport), "Index name must not be longer than 255 bytes!");
        assert_eq!(validate_index_name(&"a".repeat(255), DatasetImport), Ok(()));
    }
}
