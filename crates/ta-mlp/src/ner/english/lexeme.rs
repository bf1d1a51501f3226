//! The four lexical attributes the English NER embeds, as spaCy computes them for a token's
//! text: `NORM` (the `lexeme_norm` table, then spaCy's base norms, else lower case), `PREFIX`
//! (first character), `SUFFIX` (last three characters) and `SHAPE`, each as a string id.

use rustc_hash::FxHashMap;

use super::hash::string_id;

/// spaCy's language-independent norms (`BASE_NORMS`), consulted after `lexeme_norm`.
const BASE_NORMS: &[(&str, &str)] = &[
    ("'s", "'s"),
    ("'S", "'s"),
    ("’s", "'s"),
    ("’S", "'s"),
    ("’", "'"),
    ("‘", "'"),
    ("´", "'"),
    ("`", "'"),
    ("”", "\""),
    ("“", "\""),
    ("''", "\""),
    ("``", "\""),
    ("´´", "\""),
    ("„", "\""),
    ("»", "\""),
    ("«", "\""),
    ("‘‘", "\""),
    ("’’", "\""),
    ("？", "?"),
    ("！", "!"),
    ("，", ","),
    ("；", ";"),
    ("：", ":"),
    ("。", "."),
    ("।", "."),
    ("…", "..."),
    ("—", "-"),
    ("–", "-"),
    ("--", "-"),
    ("---", "-"),
    ("——", "-"),
    ("€", "$"),
    ("£", "$"),
    ("¥", "$"),
    ("฿", "$"),
    ("US$", "$"),
    ("C$", "$"),
    ("A$", "$"),
    ("₺", "$"),
    ("₹", "$"),
    ("৳", "$"),
    ("₩", "$"),
    ("Mex$", "$"),
    ("₣", "$"),
    ("E£", "$"),
];

/// Token text → the ids of its attributes.
pub struct Lexicon {
    /// id of a token text → id of its norm (the tokenizer's token norms first, then
    /// `lexeme_norm`, then `BASE_NORMS`).
    norms: FxHashMap<u64, u64>,
}

impl Lexicon {
    /// A lexicon from the `lexeme_norm` table (id of a text → its norm) and the token norms of
    /// the tokenizer's exceptions (text → norm).
    pub fn new(lexeme_norm: impl IntoIterator<Item = (u64, String)>, token_norms: impl IntoIterator<Item = (String, String)>) -> Lexicon {
        let mut norms: FxHashMap<u64, u64> = BASE_NORMS.iter().map(|(text, norm)| (string_id(text), string_id(norm))).collect();
        norms.extend(lexeme_norm.into_iter().map(|(key, norm)| (key, string_id(&norm))));
        norms.extend(token_norms.into_iter().map(|(text, norm)| (string_id(&text), string_id(&norm))));
        Lexicon { norms }
    }

    /// `[NORM, PREFIX, SUFFIX, SHAPE]` ids of a token's text.
    pub fn attrs(&self, text: &str) -> [u64; 4] {
        let norm = match self.norms.get(&string_id(text)) {
            Some(&id) => id,
            None => string_id(&text.to_lowercase()),
        };
        let prefix = text.char_indices().nth(1).map_or(text, |(i, _)| &text[..i]);
        let n = text.chars().count();
        let suffix = text.char_indices().nth(n.saturating_sub(3)).map_or(text, |(i, _)| &text[i..]);
        [norm, string_id(prefix), string_id(suffix), string_id(&shape(text))]
    }

    /// Whether a token is whitespace (spaCy's `IS_SPACE`, Python's `str.isspace`).
    pub fn is_space(text: &str) -> bool {
        !text.is_empty() && text.chars().all(char::is_whitespace)
    }
}

/// spaCy's `word_shape`: letters as `X`/`x`, digits as `d`, other characters as themselves,
/// runs of one shape character cut after four; `LONG` for 100 characters or more.
fn shape(text: &str) -> String {
    if text.chars().count() >= 100 {
        return "LONG".to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = None;
    let mut seq = 0;
    for c in text.chars() {
        let s = if is_alpha(c) {
            if c.is_uppercase() {
                'X'
            } else {
                'x'
            }
        } else if is_digit(c) {
            'd'
        } else {
            c
        };
        if Some(s) == last {
            seq += 1;
        } else {
            seq = 0;
            last = Some(s);
        }
        if seq < 4 {
            out.push(s);
        }
    }
    out
}

/// Python's `str.isalpha` for one character (a letter, not a combining mark or number).
fn is_alpha(c: char) -> bool {
    c.is_alphabetic() && !c.is_numeric() && !is_mark(c)
}

/// Python's `str.isdigit` for one character: decimal digits and the superscript and
/// circled digits (approximated by the numeric characters that have a digit value).
fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric() && !c.is_alphabetic() && !is_fraction(c))
}

fn is_fraction(c: char) -> bool {
    matches!(c, '¼'..='¾' | '⅐'..='⅟' | '↉')
}

/// Combining marks the `Alphabetic` property includes but Python's letters do not
/// (the common combining blocks and Indic vowel signs).
fn is_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}' | '\u{0483}'..='\u{0489}' | '\u{0591}'..='\u{05C7}'
        | '\u{0610}'..='\u{061A}' | '\u{064B}'..='\u{065F}' | '\u{0900}'..='\u{0903}'
        | '\u{093A}'..='\u{094F}' | '\u{0E31}' | '\u{0E34}'..='\u{0E3A}' | '\u{0E47}'..='\u{0E4E}'
        | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}' | '\u{20D0}'..='\u{20FF}'
        | '\u{FE20}'..='\u{FE2F}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_follow_spacy() {
        assert_eq!(shape("Tallinn"), "Xxxxx");
        assert_eq!(shape("NATO-ga"), "XXXX-xx");
        assert_eq!(shape("2024"), "dddd");
        assert_eq!(shape("a.b.c"), "x.x.x");
        // Python's str semantics, as spaCy 3.8 shapes these.
        let spacy = [
            ("İstanbul", "Xxxxx"),
            ("ǅemal", "xxxx"),
            ("x²", "xd"),
            ("½", "½"),
            ("Ⅻ", "Ⅻ"),
            ("a\u{301}b", "x\u{301}x"),
            ("東京", "xx"),
            ("١٢٣", "ddd"),
            ("ΟΔΟΣ", "XXXX"),
            ("𝔘nicode", "Xxxxx"),
            ("①", "d"),
            ("x\u{903}y", "x\u{903}x"),
            ("ๆ", "x"),
        ];
        for (text, want) in spacy {
            assert_eq!(shape(text), want, "{text}");
        }
    }

    #[test]
    fn norms_prefixes_suffixes() {
        let lex = Lexicon::new(
            [(string_id("centre"), "center".to_string())],
            [("n't".to_string(), "not".to_string())],
        );
        let [norm, prefix, suffix, _] = lex.attrs("centre");
        assert_eq!(norm, string_id("center"));
        assert_eq!(prefix, string_id("c"));
        assert_eq!(suffix, string_id("tre"));
        assert_eq!(lex.attrs("Ab")[0], string_id("ab"));
        assert_eq!(lex.attrs("Ab")[2], string_id("Ab"));
        assert_eq!(lex.attrs("—")[0], string_id("-"));
        assert_eq!(lex.attrs("n't")[0], string_id("not"));
    }
}
