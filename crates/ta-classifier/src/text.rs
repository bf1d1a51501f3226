//! The text processor "P" of the tagger pipeline (spec `models.md` 0.2): stripping, optional
//! sentence split, lemmatisation hook, Unicode lower-casing, tokenisation (on whitespace, or into
//! words), stop-word removal and an optional phraser.

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// Joins frequent word pairs into one token (implemented by the embedding module).
pub trait Phraser: Send + Sync {
    /// Returns the tokens with bigrams joined, greedy, left to right. Returned tokens must not
    /// contain whitespace (join words with `_`): vocabularies split n-grams on spaces.
    fn phrase(&self, tokens: Vec<String>) -> Vec<String>;
}

/// Call-time hooks of the processor: both optional, both owned by other modules.
#[derive(Clone, Copy, Default)]
pub struct Hooks<'a> {
    /// Replaces a text by its lemmas string (MLP); used when the caller asks to lemmatize.
    pub lemmatize: Option<&'a (dyn Fn(&str) -> String + Sync)>,
    /// The phraser of the tagger's embedding, if it has one.
    pub phraser: Option<&'a dyn Phraser>,
}

/// How a lower-cased text becomes tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tokenization {
    /// Split on runs of whitespace; punctuation stays attached (`word,`), as spec 0.2 step 4.
    #[default]
    Whitespace,
    /// Words: runs of letters, digits and `_` (Python's `\w+`), any script; punctuation and
    /// whitespace separate them and are dropped. So `файл,` `файл.` `(файл)` are one feature
    /// `файл`: on a few thousand texts of an inflected language, attached punctuation splits
    /// every word form again, and fewer of them reach a vectorizer's `min_df`.
    Words,
}

/// Options of one processor; see the table in spec 0.2 for the sets each user takes.
#[derive(Clone, Debug, Default)]
pub struct ProcessorOptions {
    /// Split a value on `\n` into several texts.
    pub sentences: bool,
    /// Remove built-in and custom stop words.
    pub remove_stop_words: bool,
    /// Custom stop words, one string split on any whitespace (lower-cased like the text).
    pub custom_stop_words: String,
    pub tokenization: Tokenization,
}

/// A configured text processor.
#[derive(Clone, Debug)]
pub struct TextProcessor {
    sentences: bool,
    stop_words: Option<FxHashSet<String>>,
    tokenization: Tokenization,
}

const BUILTIN_LISTS: [&str; 4] = [
    include_str!("resources/stopwords_en.txt"),
    include_str!("resources/stopwords_et.txt"),
    include_str!("resources/stopwords_ru.txt"),
    include_str!("resources/punctuation.txt"),
];

/// The built-in stop list: English, Estonian, Russian function words and 20 punctuation tokens.
pub fn builtin_stop_words() -> &'static FxHashSet<&'static str> {
    static LIST: OnceLock<FxHashSet<&'static str>> = OnceLock::new();
    LIST.get_or_init(|| {
        BUILTIN_LISTS
            .iter()
            .flat_map(|file| file.lines())
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .collect()
    })
}

/// Python's `str.isspace`: Unicode White_Space plus the four ASCII information separators.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// A character of a word under [`Tokenization::Words`]: Python's `\w` (alphanumeric or `_`).
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl TextProcessor {
    /// Builds a processor; custom stop words are lower-cased and split on any whitespace.
    pub fn new(options: &ProcessorOptions) -> Self {
        let stop_words = options.remove_stop_words.then(|| {
            options
                .custom_stop_words
                .to_lowercase()
                .split(is_space)
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect()
        });
        TextProcessor {
            sentences: options.sentences,
            stop_words,
            tokenization: options.tokenization,
        }
    }

    /// Processes one field value into token lists: one list per non-empty text (one text unless
    /// `sentences` is on). A list may be empty when every token was a stop word.
    pub fn process(&self, value: &str, hooks: &Hooks) -> Vec<Vec<String>> {
        self.texts(value).map(|text| self.process_text(text, hooks)).collect()
    }

    /// Processes one value and concatenates its token lists (the tagger's per-field tokens).
    pub fn tokens(&self, value: &str, hooks: &Hooks) -> Vec<String> {
        self.process(value, hooks).into_iter().flatten().collect()
    }

    /// Calls `emit` with each of the tokens [`tokens`](Self::tokens) returns, in order, without
    /// a string for each unless a phraser joins them (training encodes millions of tokens).
    pub fn for_each_token(&self, value: &str, hooks: &Hooks, emit: &mut dyn FnMut(&str)) {
        if hooks.phraser.is_some() {
            return self.tokens(value, hooks).iter().for_each(|t| emit(t));
        }
        self.texts(value).for_each(|text| self.plain_tokens(text, hooks, emit));
    }

    /// The non-empty texts of a value: the stripped value, or its lines when `sentences` is on.
    fn texts<'a>(&self, value: &'a str) -> impl Iterator<Item = &'a str> {
        let value = value.trim_matches(is_space);
        let texts: Vec<&str> = if self.sentences { value.split('\n').collect() } else { vec![value] };
        texts.into_iter().filter(|text| !text.is_empty())
    }

    fn process_text(&self, text: &str, hooks: &Hooks) -> Vec<String> {
        let mut tokens = Vec::new();
        self.plain_tokens(text, hooks, &mut |t| tokens.push(t.to_owned()));
        if let Some(phraser) = hooks.phraser {
            tokens = phraser.phrase(tokens);
            tokens.retain(|t| !t.is_empty());
        }
        tokens
    }

    /// The tokens of one text before the phraser: lemmatised (if asked), lower-cased, split on
    /// whitespace or into words, stop words removed.
    fn plain_tokens(&self, text: &str, hooks: &Hooks, emit: &mut dyn FnMut(&str)) {
        let lemmas;
        let text = match hooks.lemmatize {
            Some(lemmatize) => {
                lemmas = lemmatize(text);
                lemmas.as_str()
            }
            None => text,
        };
        let text = text.to_lowercase();
        let keep = |t: &&str| !t.is_empty() && !self.is_stop_word(t);
        match self.tokenization {
            Tokenization::Whitespace => text.split(is_space).filter(keep).for_each(emit),
            Tokenization::Words => text.split(|c: char| !is_word_char(c)).filter(keep).for_each(emit),
        }
    }

    fn is_stop_word(&self, token: &str) -> bool {
        self.stop_words
            .as_ref()
            .is_some_and(|custom| builtin_stop_words().contains(token) || custom.contains(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn processor(sentences: bool, remove_stop_words: bool, custom: &str) -> TextProcessor {
        TextProcessor::new(&ProcessorOptions {
            sentences,
            remove_stop_words,
            custom_stop_words: custom.into(),
            tokenization: Tokenization::Whitespace,
        })
    }

    #[test]
    fn words_drop_punctuation_in_any_script() {
        let p = TextProcessor::new(&ProcessorOptions {
            remove_stop_words: true,
            tokenization: Tokenization::Words,
            ..Default::default()
        });
        assert_eq!(
            p.tokens(
                "Выберите «Формат - Ячейки», и нажмите OK. See file_name.txt (3.5)!",
                &Hooks::default()
            ),
            ["выберите", "формат", "ячейки", "нажмите", "file_name", "txt", "3", "5"]
        );
        assert_eq!(
            p.tokens("Vali Vaade → Liigendus; ääristada…", &Hooks::default()),
            ["vali", "vaade", "liigendus", "ääristada"]
        );
        assert!(p.process(" -- ... ", &Hooks::default()).iter().all(Vec::is_empty));
    }

    #[test]
    fn splits_on_any_whitespace_and_lowercases() {
        let p = processor(false, false, "");
        assert_eq!(
            p.tokens("  Hello\tWORLD,\u{a0}Ünï\r\nΣΟΦΟΣ  ", &Hooks::default()),
            ["hello", "world,", "ünï", "σοφος"]
        );
        assert!(p.process(" \n\t ", &Hooks::default()).is_empty());
    }

    #[test]
    fn removes_builtin_and_custom_stop_words() {
        let p = processor(false, true, "Foo\nbar  baz");
        assert_eq!(
            p.tokens("The cat and ja kass и кот foo BAR quux … ?", &Hooks::default()),
            ["cat", "kass", "кот", "quux"]
        );
        assert!(builtin_stop_words().len() > 1800);
        assert!(!builtin_stop_words().iter().any(|w| w.starts_with('#') || w.is_empty()));
    }

    #[test]
    fn the_token_visitor_gives_the_tokens() {
        let lemmatize = |text: &str| text.replace("Cats", "Cat");
        let with_lemmas = Hooks {
            lemmatize: Some(&lemmatize),
            phraser: None,
        };
        for (sentences, stop) in [(false, false), (false, true), (true, true)] {
            let p = processor(sentences, stop, "quux");
            for text in ["", " \n ", "Cats and dogs\n\nthe QUUX\tΣΟΦΟΣ …", "  one  "] {
                for hooks in [Hooks::default(), with_lemmas] {
                    let mut seen = Vec::new();
                    p.for_each_token(text, &hooks, &mut |t| seen.push(t.to_owned()));
                    assert_eq!(seen, p.tokens(text, &hooks), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn sentences_hooks_and_empty_texts() {
        struct Joiner;
        impl Phraser for Joiner {
            fn phrase(&self, tokens: Vec<String>) -> Vec<String> {
                if tokens.len() >= 2 {
                    vec![format!("{}_{}", tokens[0], tokens[1]), String::new()]
                } else {
                    tokens
                }
            }
        }
        let lemmatize = |text: &str| text.replace("Cats", "Cat");
        let hooks = Hooks {
            lemmatize: Some(&lemmatize),
            phraser: Some(&Joiner),
        };
        let p = processor(true, false, "");
        assert_eq!(
            p.process("Cats sleep\n\nDogs\n", &hooks),
            vec![vec!["cat_sleep".to_string()], vec!["dogs".to_string()]]
        );
    }
}
