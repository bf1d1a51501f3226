//! English NER (ner.md §5.3): a port of spaCy's `en_core_web_sm` 3.8.0 entity recognizer,
//! reading the package's own files from `<data_dir>/mlp/en/ner/` (`model`, `moves`,
//! `lookups.bin`, `tokenizer`): lexical attributes and their hashes (`lexeme`, `hash`), the encoder
//! (`tok2vec`), and the greedy BILUO transition parser (`parser`). The whole text is one
//! document, as spaCy runs it; sentence starts block entities across them. OntoNotes
//! `PERSON` becomes `PER`; `ORG`, `GPE`, `LOC` are kept and the other types dropped (§4).

mod hash;
mod lexeme;
mod parser;
mod tok2vec;
mod weights;

use std::path::Path;

use super::{Entity, EntityType, Recognizer};
use lexeme::Lexicon;
use parser::Parser;
use tok2vec::Tok2Vec;

/// The English recognizer, loaded once.
pub struct EnglishNer {
    lexicon: Lexicon,
    tok2vec: Tok2Vec,
    parser: Parser,
}

/// An entity with the model's own label (one of its 18 OntoNotes types).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labelled<'a> {
    /// First and last token (inclusive).
    pub first: usize,
    pub last: usize,
    pub label: &'a str,
}

impl EnglishNer {
    /// Reads `model`, `moves`, `lookups.bin` and `tokenizer` from `dir` (`<data_dir>/mlp/en/ner/`).
    pub fn load(dir: &Path) -> Result<EnglishNer, String> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|e| format!("English NER: {}: {e}", path.display()))
        };
        let context = |name: &'static str| move |e: String| format!("English NER: {name}: {e}");
        let nodes = weights::read_model(&read("model")?).map_err(context("model"))?;
        let moves = weights::read_moves(&read("moves")?).map_err(context("moves"))?;
        let norms = weights::read_norms(&read("lookups.bin")?).map_err(context("lookups.bin"))?;
        let token_norms = weights::read_token_norms(&read("tokenizer")?).map_err(context("tokenizer"))?;
        let tok2vec = Tok2Vec::load(&nodes).map_err(context("model"))?;
        let parser = Parser::load(&nodes, moves, tok2vec.out_width).map_err(context("model"))?;
        Ok(EnglishNer {
            lexicon: Lexicon::new(norms, token_norms),
            tok2vec,
            parser,
        })
    }

    /// The entities of one text given as tokens, with whether each starts a sentence.
    pub fn parse(&self, tokens: &[&str], sent_start: &[bool]) -> Vec<Labelled<'_>> {
        if tokens.is_empty() {
            return Vec::new();
        }
        let attrs: Vec<[u64; 4]> = tokens.iter().map(|t| self.lexicon.attrs(t)).collect();
        let is_space: Vec<bool> = tokens.iter().map(|t| Lexicon::is_space(t)).collect();
        let tokvecs = self.tok2vec.forward(&attrs);
        self.parser
            .parse(&tokvecs, sent_start, &is_space)
            .into_iter()
            .map(|s| Labelled {
                first: s.start,
                last: s.end - 1,
                label: &self.parser.labels[s.label],
            })
            .collect()
    }
}

impl Recognizer for EnglishNer {
    fn entities(&self, sentences: &[Vec<&str>]) -> Vec<Entity> {
        let tokens: Vec<&str> = sentences.iter().flatten().copied().collect();
        let mut sent_start = Vec::with_capacity(tokens.len());
        for sentence in sentences {
            sent_start.extend((0..sentence.len()).map(|i| i == 0));
        }
        self.parse(&tokens, &sent_start)
            .into_iter()
            .filter_map(|e| {
                let kind = EntityType::from_label(e.label)?;
                Some(Entity {
                    kind,
                    first: e.first,
                    last: e.last,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
