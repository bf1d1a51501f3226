//! Tests of the English NER: values spaCy 3.8 computes with the same package files (when the
//! data is installed), and robustness on odd input.

use std::path::PathBuf;

use super::*;

/// The recognizer, or `None` (test skipped) when the English NER data is not installed.
fn model() -> Option<&'static EnglishNer> {
    static MODEL: std::sync::OnceLock<Option<EnglishNer>> = std::sync::OnceLock::new();
    let model = MODEL.get_or_init(|| {
        let data = std::env::var("TA_MLP_DATA").map(PathBuf::from).ok().or_else(|| {
            let default = dirs::data_dir()?.join("ta");
            default.join("mlp").is_dir().then_some(default)
        })?;
        let dir = data.join("mlp/en/ner");
        dir.join("model")
            .is_file()
            .then(|| EnglishNer::load(&dir).expect("English NER data loads"))
    });
    if model.is_none() {
        println!("skipped: no English NER data (run scripts/setup.sh or set TA_MLP_DATA)");
    }
    model.as_ref()
}

#[test]
fn encoder_matches_spacy() {
    let Some(ner) = model() else { return };
    let tokens = ["Barack", "Obama", "visited", "Tallinn", "."];
    // The first four dimensions of spaCy's NER tok2vec output for these tokens.
    let expected = [
        [-2.10829, -0.15333, -1.00160, 1.33759],
        [4.18878, -2.87325, 2.23494, 0.46947],
        [1.59031, 2.61403, -0.29069, 0.46160],
        [0.24313, -2.01220, 0.17248, 0.56174],
        [-0.13314, 2.82855, -0.25794, 0.83734],
    ];
    let attrs: Vec<[u64; 4]> = tokens.iter().map(|t| ner.lexicon.attrs(t)).collect();
    let out = ner.tok2vec.forward(&attrs);
    let width = ner.tok2vec.out_width;
    for (t, row) in expected.iter().enumerate() {
        for (j, want) in row.iter().enumerate() {
            let got = out[t * width + j];
            assert!((got - want).abs() < 1e-4, "token {t} dim {j}: {got} vs {want}");
        }
    }
}

#[test]
fn worked_example() {
    let Some(ner) = model() else { return };
    // ner.md §4: `Barack Obama visited Tallinn .`
    let sentences = vec![vec!["Barack", "Obama", "visited", "Tallinn", "."]];
    let found: Vec<(&str, usize, usize)> = ner.entities(&sentences).iter().map(|e| (e.kind.fact(), e.first, e.last)).collect();
    assert_eq!(found, [("PER", 0, 1), ("GPE", 3, 3)]);
    let labelled = ner.parse(&sentences[0], &[true, false, false, false, false]);
    assert_eq!(
        labelled[0],
        Labelled {
            first: 0,
            last: 1,
            label: "PERSON"
        }
    );
}

#[test]
fn entities_stop_at_sentence_starts() {
    let Some(ner) = model() else { return };
    let sentences = vec![vec!["I", "met", "Barack"], vec!["Obama", "left", "."]];
    for e in ner.entities(&sentences) {
        assert!(e.last < 3 || e.first >= 3, "{e:?} crosses the sentence start");
    }
}

#[test]
fn odd_input_does_not_panic() {
    let Some(ner) = model() else { return };
    assert!(ner.entities(&[]).is_empty());
    assert!(ner.entities(&[vec![]]).is_empty());
    assert!(ner.entities(&[vec!["1", "2", "%", "—", "…"]]).is_empty());
    let mixed = vec![vec![
        "Москва",
        "and",
        "Tallinn",
        "東京",
        "ǅ",
        "\u{301}",
        " ",
        "İstanbul",
        "x".repeat(150).leak(),
    ]];
    ner.entities(&mixed);
    let long: Vec<Vec<&str>> = (0..100_000 / 7 + 1)
        .map(|_| "Anna Smith went to Paris today .".split(' ').collect())
        .collect();
    assert!(long.iter().map(Vec::len).sum::<usize>() >= 100_000);
    let found = ner.entities(&long);
    assert!(found.len() >= 14_000, "{} entities", found.len());
}

#[test]
fn load_errors_name_the_file() {
    let dir = std::env::temp_dir().join(format!("ta-ner-en-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let err = EnglishNer::load(&dir).err().expect("an empty directory does not load");
    assert!(err.contains("model") && err.contains("No such file"), "{err}");
    std::fs::write(dir.join("model"), [0x92u8]).unwrap();
    let err = EnglishNer::load(&dir).err().expect("a truncated model does not load");
    assert!(err.starts_with("English NER: model: not msgpack"), "{err}");
    std::fs::write(dir.join("model"), [0x80u8]).unwrap();
    let err = EnglishNer::load(&dir).err().expect("an empty model does not load");
    assert_eq!(err, "English NER: model: no nodes list");
    std::fs::remove_dir_all(&dir).unwrap();
}
