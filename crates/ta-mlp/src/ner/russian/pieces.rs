//! ta's tokens as the model's tokens: the model was trained on razdel's tokens, which split
//! some of ta's tokens and join others, and it labels a text better when it sees them that
//! way. A dotted run of letters is split at its dots (`А.П.` → `А . П .`, `т.е.` → `т . е .`,
//! `www.ru` → `www . ru`), letters and digits are split apart (`A1` → `A 1`), and a run of
//! `-` tokens is one token (`- -` → `--`). The labels come back onto ta's tokens afterwards.

use std::borrow::Cow;
use std::ops::Range;

/// The model's tokens of a text, and which of them each of ta's tokens covers.
pub struct Pieces<'a> {
    pub tokens: Vec<Cow<'a, str>>,
    /// Per ta token, its model tokens (a joined run gives all its ta tokens the same one).
    covers: Vec<Range<usize>>,
}

impl<'a> Pieces<'a> {
    pub fn new(tokens: &[&'a str]) -> Pieces<'a> {
        let mut pieces = Pieces {
            tokens: Vec::with_capacity(tokens.len()),
            covers: Vec::with_capacity(tokens.len()),
        };
        let mut i = 0;
        while i < tokens.len() {
            let dashes = tokens[i..].iter().take_while(|t| **t == "-").count();
            if dashes > 1 {
                let at = pieces.tokens.len();
                pieces.tokens.push(Cow::Owned("-".repeat(dashes)));
                pieces.covers.extend(std::iter::repeat_n(at..at + 1, dashes));
                i += dashes;
                continue;
            }
            let start = pieces.tokens.len();
            split(tokens[i], |piece| pieces.tokens.push(Cow::Borrowed(piece)));
            pieces.covers.push(start..pieces.tokens.len());
            i += 1;
        }
        pieces
    }

    /// The BIO label of each of ta's tokens, given the model's `labels`: that of its first
    /// model token, or `B-` of the first entity label among them when that one is `O`; the
    /// later tokens of a joined run continue the first one's entity.
    pub fn labels<'l>(&self, labels: &[&'l str]) -> Vec<Cow<'l, str>> {
        let mut out: Vec<Cow<'l, str>> = Vec::with_capacity(self.covers.len());
        for (i, cover) in self.covers.iter().enumerate() {
            let joined = i > 0 && self.covers[i - 1] == *cover;
            let mine = &labels[cover.clone()];
            let label = match mine.iter().find(|l| l.contains('-')) {
                Some(l) if joined || !mine[0].contains('-') => Cow::Owned(format!("{}-{}", if joined { "I" } else { "B" }, &l[2..])),
                _ => Cow::Borrowed(mine.first().copied().unwrap_or("O")),
            };
            out.push(label);
        }
        out
    }
}

/// Calls `push` with the model tokens of one of ta's tokens (see the module doc).
fn split<'a>(token: &'a str, mut push: impl FnMut(&'a str)) {
    let letters_and_dots = token.contains('.') && token.chars().all(|c| c == '.' || c.is_alphabetic());
    let letters_and_digits =
        token.chars().all(char::is_alphanumeric) && token.chars().any(char::is_alphabetic) && token.chars().any(|c| c.is_numeric());
    if !letters_and_dots && !letters_and_digits {
        push(token);
        return;
    }
    // class of a character: a dot, a letter, a digit; a piece is a run of one class, dots one by one
    let class = |c: char| {
        if c == '.' {
            0
        } else if c.is_alphabetic() {
            1
        } else {
            2
        }
    };
    let mut start = 0;
    let mut chars = token.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let end = at + c.len_utf8();
        let next = chars.peek().map(|&(_, n)| class(n));
        if c == '.' || next != Some(class(c)) {
            push(&token[start..end]);
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(tokens: &[&str]) -> Vec<String> {
        Pieces::new(tokens).tokens.into_iter().map(Cow::into_owned).collect()
    }

    #[test]
    fn tokens_are_split_and_joined_as_the_model_was_trained() {
        assert_eq!(model(&["-", "-", "А.П.", "Чехов"]), ["--", "А", ".", "П", ".", "Чехов"]);
        assert_eq!(
            model(&["т.е.", "www.ru", "A1", "ROT13", "240i"]),
            ["т", ".", "е", ".", "www", ".", "ru", "A", "1", "ROT", "13", "240", "i"]
        );
        assert_eq!(model(&["-", "1.5", "СИЗО-6", "Москвы", "."]), ["-", "1.5", "СИЗО-6", "Москвы", "."]);
        assert!(model(&[]).is_empty());
    }

    #[test]
    fn labels_come_back_to_ta_tokens() {
        let pieces = Pieces::new(&["-", "-", "А.П.", "Чехов", "и", "Г."]);
        let labels = pieces.labels(&["O", "B-PER", "I-PER", "I-PER", "I-PER", "I-PER", "O", "B-PER", "O"]);
        assert_eq!(labels, ["O", "O", "B-PER", "I-PER", "O", "B-PER"]);
        let labels = pieces.labels(&["B-ORG", "O", "O", "B-PER", "I-PER", "I-PER", "O", "B-LOC", "I-LOC"]);
        assert_eq!(labels, ["B-ORG", "I-ORG", "B-PER", "I-PER", "O", "B-LOC"]);
    }
}
