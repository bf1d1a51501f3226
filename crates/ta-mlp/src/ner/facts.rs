//! Facts from named entities (ner.md §2, §7): `PER`/`ORG`/`GPE`/`LOC` spanning their tokens in
//! `text.text`, and `ADDR`, texta-mlp 1.4's address rule over the text with its entities
//! rewritten as single words.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::Entity;
use crate::facts::{Doc, Fact};
use crate::Lang;

/// Byte ranges of the tokens of `doc` in `doc.text` (the tokens joined by single spaces).
fn token_bytes(doc: &Doc) -> Vec<(usize, usize)> {
    let mut at = 0;
    doc.words
        .iter()
        .map(|w| {
            let range = (at, at + w.len());
            at += w.len() + 1;
            range
        })
        .collect()
}

/// An entity's byte range in `doc.text`; None when its tokens are not in the text.
fn entity_bytes(tokens: &[(usize, usize)], e: &Entity) -> Option<(usize, usize)> {
    let (first, last) = (tokens.get(e.first)?, tokens.get(e.last)?);
    (first.0 <= last.1).then_some((first.0, last.1))
}

/// One fact per entity whose lower-cased text is not in `not_entities`: the fact of its type,
/// its text as `str_val`, its span from its first token's start to its last token's end.
pub fn entity_facts(doc: &Doc, entities: &[Entity], not_entities: &HashSet<String>) -> Vec<Fact> {
    let tokens = token_bytes(doc);
    entities
        .iter()
        .filter_map(|e| {
            let (start, end) = entity_bytes(&tokens, e)?;
            let value = &doc.text[start..end];
            (!not_entities.contains(&value.to_lowercase())).then(|| Fact::new(e.kind.fact(), value.to_string(), doc.span(start, end)))
        })
        .collect()
}

/// English and Estonian addresses: a `LOC` word, up to two spaces, a house number.
static ADDRESS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s([^\s]+_LOC\s?\s?[0-9]+)(_[A-Z]+)?").expect("address pattern"));
/// Russian addresses: a `LOC` word, an optional comma and `д.`/`дом`, a house number with an
/// optional letter, `/n` or `-x`, then a space, comma or full stop.
static ADDRESS_RU: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"([^\s]+_LOC\s?,?\s?(?:д\s?\.|дом)?\s?[0-9]+(?:[A-Za-zА-Яа-яЁё]|\s?/\s?[0-9]+|\s?-\s?[0-9A-Za-zА-Яа-яЁё]+)?)[\s,.]")
        .expect("Russian address pattern")
});

/// `ADDR` facts: every entity found between spaces is rewritten in the text as its words joined
/// by `_` plus `_TYPE` (shortest first); each address match, `_LOC` removed and `_` read as a
/// space, is a fact spanning that value's first occurrence in `text.text` (none: no fact).
pub fn address_facts(doc: &Doc, entities: &[Entity], lang: Lang) -> Vec<Fact> {
    let tokens = token_bytes(doc);
    let mut named: Vec<(&str, &str)> = entities
        .iter()
        .filter_map(|e| entity_bytes(&tokens, e).map(|(s, end)| (&doc.text[s..end], e.kind.fact())))
        .collect();
    if !named.iter().any(|(_, kind)| *kind == "LOC") {
        return Vec::new();
    }
    named.sort_by_key(|(text, _)| text.chars().count());
    named.dedup();
    let mut text = doc.text.to_string();
    for (surface, kind) in named {
        text = text.replace(&format!(" {surface} "), &format!(" {}_{kind} ", surface.replace(' ', "_")));
    }
    let pattern = if lang == Lang::Ru { &ADDRESS_RU } else { &ADDRESS };
    pattern
        .captures_iter(&text)
        .filter_map(|c| {
            let value = c[1].replace("_LOC", "").replace('_', " ");
            let start = doc.text.find(&value)?;
            Some(Fact::new("ADDR", value.clone(), doc.span(start, start + value.len())))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ner::EntityType;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(String::from).collect()
    }

    fn entity(kind: EntityType, first: usize, last: usize) -> Entity {
        Entity { kind, first, last }
    }

    /// A fact's name, value and spans.
    type Shown = (String, String, Vec<(usize, usize)>);

    fn shown(facts: Vec<Fact>) -> Vec<Shown> {
        facts.into_iter().map(|f| (f.kind, f.value, f.spans)).collect()
    }

    #[test]
    fn entities_span_their_tokens_in_code_points() {
        let text = "Лукашенко заявил о договоренности Москвы и Минска по нефти .";
        let w = words(text);
        let doc = Doc::new(text, &w, &w);
        let found = [
            entity(EntityType::Per, 0, 0),
            entity(EntityType::Loc, 4, 4),
            entity(EntityType::Loc, 6, 6),
        ];
        assert_eq!(
            shown(entity_facts(&doc, &found, &HashSet::new())),
            [
                ("PER".into(), "Лукашенко".into(), vec![(0, 9)]),
                ("LOC".into(), "Москвы".into(), vec![(34, 40)]),
                ("LOC".into(), "Минска".into(), vec![(43, 49)]),
            ]
        );
        let skip: HashSet<String> = ["москвы".to_string()].into();
        assert_eq!(entity_facts(&doc, &found, &skip).len(), 2);
        let beyond = [entity(EntityType::Per, 20, 21)];
        assert!(entity_facts(&doc, &beyond, &HashSet::new()).is_empty());
    }

    #[test]
    fn addresses_follow_a_place_with_a_house_number() {
        let text = "Mari elab Narva mnt 5 , Tallinn .";
        let w = words(text);
        let doc = Doc::new(text, &w, &w);
        let found = [
            entity(EntityType::Per, 0, 0),
            entity(EntityType::Loc, 2, 3),
            entity(EntityType::Loc, 6, 6),
        ];
        assert_eq!(
            shown(address_facts(&doc, &found, Lang::Et)),
            [("ADDR".into(), "Narva mnt 5".into(), vec![(10, 21)])]
        );
        // only LOC entities qualify
        let gpe = [entity(EntityType::Gpe, 2, 3)];
        assert!(address_facts(&doc, &gpe, Lang::En).is_empty());

        let text = "Офис на Тверской , д . 7 , Москва .";
        let w = words(text);
        let doc = Doc::new(text, &w, &w);
        let found = [entity(EntityType::Loc, 2, 2), entity(EntityType::Loc, 8, 8)];
        assert_eq!(
            shown(address_facts(&doc, &found, Lang::Ru)),
            [("ADDR".into(), "Тверской , д . 7".into(), vec![(8, 24)])]
        );
    }
}
