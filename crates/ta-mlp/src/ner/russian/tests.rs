//! The Russian recognizer on ta's tokens: ner.md §4's worked example and the annotation
//! rules (case endings in, guillemets out), chunked long texts, and inputs that must not
//! panic. Skipped (one line) without the NER data; see `crate::tests::data_dir`.

use std::path::Path;
use std::sync::OnceLock;

use super::RussianNer;
use crate::ner::{Entity, Recognizer};
use crate::{Lang, MlpConfig, MlpEngine};

/// The model from `<data_dir>/mlp/ru/ner`, or `None` (test skipped) without data.
fn ner() -> Option<&'static RussianNer> {
    static NER: OnceLock<Option<RussianNer>> = OnceLock::new();
    crate::tests::or_skip(
        NER.get_or_init(|| {
            let dir = crate::tests::data_dir()?.join("mlp/ru/ner");
            dir.is_dir().then(|| RussianNer::load(&dir).unwrap_or_else(|e| panic!("{e}")))
        })
        .as_ref(),
    )
}

/// `(fact, surface)` of the entities of `text` on ta's own tokens.
fn entities(ner: &RussianNer, text: &str) -> Vec<(&'static str, String)> {
    let cfg = MlpConfig {
        languages: vec![Lang::Ru],
        default_language: Lang::Ru,
        ..MlpConfig::default()
    };
    let sentences = MlpEngine::load(Path::new("/nonexistent"), cfg).tokenize(text, Lang::Ru);
    let sentences: Vec<Vec<&str>> = sentences.iter().map(|s| s.iter().map(String::as_str).collect()).collect();
    let tokens: Vec<&str> = sentences.iter().flatten().copied().collect();
    ner.entities(&sentences)
        .iter()
        .map(|e| (e.kind.fact(), tokens[e.first..=e.last].join(" ")))
        .collect()
}

#[test]
fn the_worked_example_and_the_annotation_rules() {
    let Some(ner) = ner() else { return };
    assert_eq!(
        entities(ner, "Лукашенко заявил о договоренности Москвы и Минска по нефти."),
        [("PER", "Лукашенко".into()), ("LOC", "Москвы".into()), ("LOC", "Минска".into())]
    );
    assert_eq!(
        entities(ner, "Компания «Газпром» открыла офис в Санкт-Петербурге, сообщил Алексей Миллер."),
        [
            ("ORG", "Газпром".into()),
            ("LOC", "Санкт-Петербурге".into()),
            ("PER", "Алексей Миллер".into())
        ]
    );
    // initials written together are one ta token, two model tokens each
    assert_eq!(entities(ner, "Честные не лгут. -- А.П. Чехов"), [("PER", "А.П. Чехов".into())]);
}

#[test]
fn a_long_text_is_the_sentence_repeated() {
    let Some(ner) = ner() else { return };
    let sentence = [
        "Лукашенко",
        "заявил",
        "о",
        "договоренности",
        "Москвы",
        "и",
        "Минска",
        "по",
        "нефти",
        ".",
    ];
    let copies = 10_000;
    let text = vec![sentence.to_vec(); copies];
    let found = ner.entities(&text);
    // the network sees 3 tokens either side: every copy but the first and last is labelled
    // alike, wherever the 256-token chunks fall
    let mut copies_found = vec![Vec::new(); copies];
    for e in found {
        let start = e.first / sentence.len() * sentence.len();
        copies_found[e.first / sentence.len()].push(Entity {
            first: e.first - start,
            last: e.last - start,
            ..e
        });
    }
    assert_eq!(copies_found[1].len(), 3);
    assert!(copies_found[2..copies - 1].iter().all(|c| *c == copies_found[1]));
}

#[test]
fn odd_inputs_do_not_panic() {
    let Some(ner) = ner() else { return };
    assert!(ner.entities(&[]).is_empty());
    assert!(ner.entities(&[vec![], vec![]]).is_empty());
    let odd = vec![
        vec!["123", "!!!", "…", "—", "-", "-", "§", "+7", "..."],
        vec!["Hello", "Москва", "東京", "🙂", "Tallinn", "ÄÖ", "A1", "т.е.", "ǅ", "", " "],
    ];
    let tokens = odd.iter().flatten().count();
    assert!(ner.entities(&odd).iter().all(|e| e.first <= e.last && e.last < tokens));
}

#[test]
fn a_missing_model_is_named() {
    let error = RussianNer::load(Path::new("/nonexistent/mlp/ru/ner")).err().unwrap();
    assert!(error.starts_with("/nonexistent/mlp/ru/ner/slovnet_ner_news_v1.tar: "), "{error}");
}
