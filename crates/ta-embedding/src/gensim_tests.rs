//! Golden tests against gensim 4.4 on a 2,000-sentence sample of the Estonian corpus
//! (`tests/data/embedding/README.md`): the phrase set with bit-identical scores, and the
//! word2vec vocabulary with its counts.

use super::phraser::{PhraseCounter, PhraserSettings};
use super::vocab::VocabularyBuilder;
use std::collections::BTreeMap;

const SENTENCES: &str = include_str!("../../../tests/data/embedding/et_sentences.txt");
const PHRASES: &str = include_str!("../../../tests/data/embedding/gensim_phrases.tsv");
const VOCABULARY: &str = include_str!("../../../tests/data/embedding/gensim_vocab.tsv");

fn sentences() -> impl Iterator<Item = Vec<String>> {
    SENTENCES.lines().map(|line| line.split_whitespace().map(str::to_owned).collect())
}

fn table<T: std::str::FromStr>(text: &str) -> BTreeMap<String, T> {
    text.lines()
        .filter_map(|line| line.split_once('\t'))
        .filter_map(|(key, value)| Some((key.to_owned(), value.parse().ok()?)))
        .collect()
}

#[test]
fn phrases_and_vocabulary_equal_gensims() {
    let mut counter = PhraseCounter::new(PhraserSettings::default());
    sentences().for_each(|sentence| counter.add_sentence(&sentence));
    let phraser = counter.finish();
    let ours: BTreeMap<String, f64> = phraser.bigrams().iter().map(|b| (b.phrase.clone(), b.score)).collect();
    let expected: BTreeMap<String, f64> = table(PHRASES);
    assert_eq!(expected.len(), 51);
    assert_eq!(ours, expected);

    let mut builder = VocabularyBuilder::default();
    sentences().for_each(|sentence| builder.add_sentence(phraser.phrase(sentence)));
    let (vocabulary, _) = builder.finish(5);
    let ours: BTreeMap<String, u64> = vocabulary.words.into_iter().zip(vocabulary.counts).collect();
    let expected: BTreeMap<String, u64> = table(VOCABULARY);
    assert_eq!(expected.len(), 764);
    assert_eq!(ours, expected);
}
