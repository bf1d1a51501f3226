//! Rule-based tokenizer and sentence splitter (mlp.md §10.2).
//!
//! Whitespace separates chunks; inside a chunk one leftmost-first regex picks URLs, e-mails,
//! dotted abbreviations, numbers with separators, (hyphenated) words and `.!?…` runs; any
//! other character (grapheme cluster) is a token of its own. Post-rules then merge
//! abbreviations from per-language lists, split English clitics PTB-style and split
//! digit-hyphen-digit runs outside Russian. Sentences break after `.!?…` tokens followed by an
//! upper-case letter or digit, and at blank lines.

use regex::Regex;
use unicode_segmentation::UnicodeSegmentation;

use super::Lang;

/// One token: its text and the byte range it came from in the normalised input.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub text: String,
    pub start: usize,
    pub end: usize,
}

/// Tokens grouped into sentences.
pub type Sentences = Vec<Vec<Token>>;

const TOKEN_PATTERN: &str = r#"(?x)
    (?:https?://|ftp://|www\.)[^\s<>"]*[^\s<>".,;:!?)\]'"]
  | [\p{L}\p{N}._%+\-]*[\p{L}\p{N}_%+\-]@[\p{L}\p{N}\-]+(?:\.[\p{L}\p{N}\-]+)+
  | ^\+\d+
  | (?:\p{L}{1,3}\.){2,}
  | \d+(?:[.,:/]\d+)+
  | [\p{L}\p{M}\p{N}]+(?:[-‐'’][\p{L}\p{M}\p{N}]+)*
  | [.!?…]+
"#;

const ABBREVIATIONS_EN: &[&str] = &[
    "mr.", "mrs.", "ms.", "dr.", "prof.", "sr.", "jr.", "st.", "vs.", "etc.", "inc.", "ltd.", "co.", "corp.", "jan.", "feb.", "mar.",
    "apr.", "jun.", "jul.", "aug.", "sep.", "sept.", "oct.", "nov.", "dec.", "no.", "fig.", "approx.", "dept.", "est.", "gen.", "gov.",
    "mt.",
];
const ABBREVIATIONS_ET: &[&str] = &[
    "nt.", "jne.", "jm.", "vt.", "lk.", "nr.", "tel.", "dr.", "prof.", "hr.", "pr.", "mnt.", "tn.", "pst.", "ca.", "u.", "s.", "a.", "v.",
    "kl.", "sh.", "jt.", "mh.", "vrd.", "so.", "ehk.", "jaan.", "veebr.", "apr.", "aug.", "sept.", "okt.", "nov.", "dets.", "tlk.",
    "toim.",
];
const ABBREVIATIONS_RU: &[&str] = &[
    "г.",
    "гг.",
    "т.",
    "д.",
    "ул.",
    "пр.",
    "см.",
    "стр.",
    "им.",
    "тел.",
    "руб.",
    "коп.",
    "млн.",
    "млрд.",
    "тыс.",
    "янв.",
    "февр.",
    "сент.",
    "окт.",
    "нояб.",
    "дек.",
    "проф.",
    "акад.",
    "др.",
    "рис.",
    "гл.",
    "ст.",
    "обл.",
    "р.",
    "кв.",
    "с.",
    "ч.",
];

const CLITICS: &[&str] = &["n't", "'s", "'re", "'ll", "'ve", "'d", "'m"];

/// A tokenizer for the three supported languages; build once and share.
pub struct Tokenizer {
    pattern: Regex,
    digit_hyphen: Regex,
}

impl Default for Tokenizer {
    fn default() -> Self {
        Tokenizer {
            pattern: Regex::new(TOKEN_PATTERN).expect("valid token pattern"),
            digit_hyphen: Regex::new(r"^\d+(?:-\d+)+$").expect("valid digit pattern"),
        }
    }
}

impl Tokenizer {
    /// Tokenizes normalised text into sentences of tokens.
    pub fn tokenize(&self, text: &str, lang: Lang) -> Sentences {
        let mut tokens = Vec::new();
        for (start, chunk) in chunks(text) {
            self.tokenize_chunk(chunk, start, lang, &mut tokens);
        }
        split_sentences(text, tokens)
    }

    fn tokenize_chunk(&self, chunk: &str, offset: usize, lang: Lang, out: &mut Vec<Token>) {
        let mut pieces = Vec::new();
        let mut pos = 0;
        for m in self.pattern.find_iter(chunk) {
            push_graphemes(&chunk[pos..m.start()], offset + pos, &mut pieces);
            self.push_match(m.as_str(), offset + m.start(), lang, &mut pieces);
            pos = m.end();
        }
        push_graphemes(&chunk[pos..], offset + pos, &mut pieces);
        out.extend(merge_abbreviations(pieces, lang));
    }

    fn push_match(&self, text: &str, start: usize, lang: Lang, out: &mut Vec<Token>) {
        if lang != Lang::Ru && self.digit_hyphen.is_match(text) {
            return split_keeping(text, start, '-', out);
        }
        if lang == Lang::En {
            return push_with_clitics(text, start, out);
        }
        out.push(token(text, start));
    }
}

fn token(text: &str, start: usize) -> Token {
    Token {
        text: text.to_string(),
        start,
        end: start + text.len(),
    }
}

/// Whitespace-separated chunks with their byte offsets.
fn chunks(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split(char::is_whitespace)
        .scan(0usize, move |pos, piece| {
            let start = *pos;
            *pos += piece.len() + text[start + piece.len()..].chars().next().map_or(0, char::len_utf8);
            Some((start, piece))
        })
        .filter(|(_, piece)| !piece.is_empty())
}

fn push_graphemes(s: &str, offset: usize, out: &mut Vec<Token>) {
    for (i, g) in s.grapheme_indices(true) {
        out.push(token(g, offset + i));
    }
}

fn split_keeping(text: &str, start: usize, sep: char, out: &mut Vec<Token>) {
    let mut pos = 0;
    for (i, _) in text.match_indices(sep) {
        out.push(token(&text[pos..i], start + pos));
        out.push(token(&text[i..i + sep.len_utf8()], start + i));
        pos = i + sep.len_utf8();
    }
    out.push(token(&text[pos..], start + pos));
}

/// PTB clitic split: `don't` → `do n't`, `can't` → `ca n't`, `John's` → `John 's`,
/// `cannot` → `can not`.
fn push_with_clitics(text: &str, start: usize, out: &mut Vec<Token>) {
    let normalized = text.replace('’', "'");
    let lower = normalized.to_lowercase();
    let cut = CLITICS
        .iter()
        .find(|c| lower.len() > c.len() && lower.ends_with(*c))
        .map(|c| text.len() - clitic_byte_len(text, c.chars().count()))
        .or_else(|| (lower == "cannot").then_some(3));
    match cut {
        Some(at) => {
            out.push(token(&text[..at], start));
            out.push(token(&text[at..], start + at));
        }
        None => out.push(token(text, start)),
    }
}

/// Byte length of the last `chars` characters of `text`.
fn clitic_byte_len(text: &str, chars: usize) -> usize {
    text.chars().rev().take(chars).map(char::len_utf8).sum()
}

fn abbreviations(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::En => ABBREVIATIONS_EN,
        Lang::Et => ABBREVIATIONS_ET,
        Lang::Ru => ABBREVIATIONS_RU,
    }
}

fn is_abbreviation(word: &str, lang: Lang) -> bool {
    let lower = word.to_lowercase();
    abbreviations(lang).contains(&lower.as_str())
}

/// Joins `word` + adjacent `.` when `word.` is a listed abbreviation.
fn merge_abbreviations(tokens: Vec<Token>, lang: Lang) -> Vec<Token> {
    let mut merged: Vec<Token> = Vec::with_capacity(tokens.len());
    for t in tokens {
        if let Some(prev) = merged.last_mut() {
            if t.text == "." && prev.end == t.start && is_abbreviation(&format!("{}.", prev.text), lang) {
                prev.text.push('.');
                prev.end = t.end;
                continue;
            }
        }
        merged.push(t);
    }
    merged
}

/// Only `.!?…` runs end sentences, so listed abbreviations (merged tokens) never do.
fn ends_sentence(t: &Token) -> bool {
    t.text.chars().all(|c| matches!(c, '.' | '!' | '?' | '…'))
}

fn starts_sentence(t: &Token) -> bool {
    t.text.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
}

/// Groups tokens into sentences (`.!?…` + capital/digit, or a blank line between tokens).
fn split_sentences(text: &str, tokens: Vec<Token>) -> Sentences {
    let mut sentences: Sentences = Vec::new();
    let mut current: Vec<Token> = Vec::new();
    for t in tokens {
        if let Some(prev) = current.last() {
            let gap = &text[prev.end..t.start];
            if gap.contains("\n\n") || (ends_sentence(prev) && !gap.is_empty() && starts_sentence(&t)) {
                sentences.push(std::mem::take(&mut current));
            }
        }
        current.push(t);
    }
    if !current.is_empty() {
        sentences.push(current);
    }
    sentences
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str, lang: Lang) -> Vec<String> {
        Tokenizer::default()
            .tokenize(text, lang)
            .into_iter()
            .flatten()
            .map(|t| t.text)
            .collect()
    }

    fn joined(text: &str, lang: Lang) -> String {
        words(text, lang).join(" ")
    }

    #[test]
    fn readme_sentences() {
        assert_eq!(
            joined("Test sencences are rather difficult to come up with.", Lang::En),
            "Test sencences are rather difficult to come up with ."
        );
        assert_eq!(
            joined("Лукашенко заявил о договоренности Москвы и Минска по нефти.", Lang::Ru),
            "Лукашенко заявил о договоренности Москвы и Минска по нефти ."
        );
        assert_eq!(
            joined("Звоните по телефону +7 495 123-45-67.", Lang::Ru),
            "Звоните по телефону +7 495 123-45-67 ."
        );
    }

    #[test]
    fn special_tokens() {
        assert_eq!(
            joined("Mail info@example.com or see https://x.ee/a?b=1.", Lang::En),
            "Mail info@example.com or see https://x.ee/a?b=1 ."
        );
        assert_eq!(
            joined("It costs 17.25 or 1,000 (COVID-19)...", Lang::En),
            "It costs 17.25 or 1,000 ( COVID-19 ) ..."
        );
        assert_eq!(
            joined("Mr. Smith can't go, John's dog won't.", Lang::En),
            "Mr. Smith ca n't go , John 's dog wo n't ."
        );
        assert_eq!(
            joined("66-aastane mees, nt. Mari jne.", Lang::Et),
            "66-aastane mees , nt. Mari jne."
        );
        assert_eq!(joined("т.е. в 2020 г. было", Lang::Ru), "т.е. в 2020 г. было");
        assert_eq!(joined("1990-2000 what?!", Lang::En), "1990 - 2000 what ?!");
        assert_eq!(joined("ok 👍🏽!", Lang::En), "ok 👍🏽 !");
    }

    #[test]
    fn sentences_split() {
        let s = Tokenizer::default().tokenize("Tere. Kuidas läheb? hästi\n\nUus", Lang::Et);
        assert_eq!(s.len(), 3);
    }
}
