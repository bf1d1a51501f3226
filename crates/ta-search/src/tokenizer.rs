//! The analyzer of the `text` field, in one pass over the text: tokens are runs of Unicode
//! alphanumeric characters (tantivy's `SimpleTokenizer`), a token of `MAX_TOKEN_BYTES` bytes
//! or more is dropped but still counts for positions (`RemoveLongFilter`), and each token is
//! lower-cased character by character (`LowerCaser`). It gives exactly the tokens, offsets
//! and positions of that three-stage chain, which indices written before it hold; it only
//! reads the text once, and classifies and lower-cases characters of the Basic Multilingual
//! Plane through tables built once from the standard library's own answers.

use std::sync::OnceLock;

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Tokens of this many bytes (before lower-casing) or more are not indexed.
pub const MAX_TOKEN_BYTES: usize = 256;

/// See the module documentation.
#[derive(Clone, Default)]
pub struct TextTokenizer {
    token: Token,
}

impl Tokenizer for TextTokenizer {
    type TokenStream<'a> = TextTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> TextTokenStream<'a> {
        self.token.reset();
        TextTokenStream {
            text,
            cursor: 0,
            token: &mut self.token,
            tables: tables(),
        }
    }
}

pub struct TextTokenStream<'a> {
    text: &'a str,
    /// Byte offset where the search for the next token starts.
    cursor: usize,
    token: &'a mut Token,
    tables: &'static Tables,
}

impl TokenStream for TextTokenStream<'_> {
    fn advance(&mut self) -> bool {
        loop {
            let Some(start) = self.find(self.cursor, true) else {
                self.cursor = self.text.len();
                return false;
            };
            let end = self.find(start, false).unwrap_or(self.text.len());
            self.cursor = end;
            self.token.position = self.token.position.wrapping_add(1);
            if end - start >= MAX_TOKEN_BYTES {
                continue;
            }
            self.token.offset_from = start;
            self.token.offset_to = end;
            self.tables.lowercase_into(&self.text[start..end], &mut self.token.text);
            return true;
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

impl TextTokenStream<'_> {
    /// Offset of the first character from `from` that is (`alphanumeric`) or is not
    /// alphanumeric.
    fn find(&self, from: usize, alphanumeric: bool) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let mut at = from;
        while at < bytes.len() {
            let byte = bytes[at];
            let (is_alphanumeric, len) = if byte.is_ascii() {
                (byte.is_ascii_alphanumeric(), 1)
            } else {
                let c = self.text[at..].chars().next().expect("a character starts here");
                (self.tables.is_alphanumeric(c), c.len_utf8())
            };
            if is_alphanumeric == alphanumeric {
                return Some(at);
            }
            at += len;
        }
        None
    }
}

/// Per-character answers for the Basic Multilingual Plane.
struct Tables {
    /// Bit per character: `char::is_alphanumeric`.
    alphanumeric: Vec<u64>,
    /// The one-character lower case of each character, or 0 where `char::to_lowercase` gives
    /// more than one character or one outside the plane.
    lower: Vec<u16>,
}

const PLANE: usize = 1 << 16;

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut alphanumeric = vec![0u64; PLANE / 64];
        let mut lower = vec![0u16; PLANE];
        for (code, lower_slot) in lower.iter_mut().enumerate() {
            let Some(c) = char::from_u32(code as u32) else { continue };
            if c.is_alphanumeric() {
                alphanumeric[code / 64] |= 1 << (code % 64);
            }
            let mut lowered = c.to_lowercase();
            if let (Some(l), None) = (lowered.next(), lowered.next()) {
                *lower_slot = u16::try_from(u32::from(l)).unwrap_or(0);
            }
        }
        Tables { alphanumeric, lower }
    })
}

impl Tables {
    fn is_alphanumeric(&self, c: char) -> bool {
        let code = c as usize;
        if code < PLANE {
            self.alphanumeric[code / 64] & (1 << (code % 64)) != 0
        } else {
            c.is_alphanumeric()
        }
    }

    fn lowercase_into(&self, text: &str, out: &mut String) {
        out.clear();
        if text.is_ascii() {
            out.push_str(text);
            out.make_ascii_lowercase();
            return;
        }
        for c in text.chars() {
            match self.single_lower(c) {
                Some(l) => out.push(l),
                None => out.extend(c.to_lowercase()),
            }
        }
    }

    fn single_lower(&self, c: char) -> Option<char> {
        let lower = *self.lower.get(c as usize)?;
        (lower != 0).then(|| char::from_u32(u32::from(lower))).flatten()
    }
}

#[cfg(test)]
mod tests {
    use tantivy::tokenizer::{LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer};

    use super::*;

    fn tokens(mut analyzer: TextAnalyzer, text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            let t = stream.token();
            out.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
        }
        out
    }

    #[test]
    fn the_tables_agree_with_the_standard_library_on_every_character() {
        let tables = tables();
        for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
            assert_eq!(tables.is_alphanumeric(c), c.is_alphanumeric(), "{c:?}");
            let mut lowered = String::new();
            tables.lowercase_into(c.encode_utf8(&mut [0; 4]), &mut lowered);
            assert_eq!(lowered, c.to_lowercase().collect::<String>(), "{c:?}");
        }
    }

    #[test]
    fn tokens_offsets_and_positions_are_those_of_tantivys_chain() {
        let chain = || {
            TextAnalyzer::builder(SimpleTokenizer::default())
                .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
                .filter(LowerCaser)
                .build()
        };
        let long = "Ä".repeat(128);
        let texts = [
            String::new(),
            "  ,;  ".to_string(),
            "Hello, happy TAX payer!".to_string(),
            "Tallinna Ülikool ÕPPEJÕUD; Москва ПРИВЕТ мир 42x 3.14 ΣΟΦΟΣ".to_string(),
            format!("enne {long} {}x pärast", "a".repeat(255)),
            "İstanbul ǅemal ﬁnance 東京タワー 😀emoji٣٤ Ⅻ ⅻ".to_string(),
            "a\u{0301}b ß ẞ ǈ \u{10400}\u{10428} end".to_string(),
        ];
        for text in &texts {
            assert_eq!(
                tokens(TextAnalyzer::from(TextTokenizer::default()), text),
                tokens(chain(), text),
                "{text}"
            );
        }
    }
}
