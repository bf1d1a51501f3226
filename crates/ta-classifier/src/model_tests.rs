//! End-to-end tests of training, tagging, feature listing, the model file and errors, on a
//! small deterministic synthetic corpus.

use super::{train, ClassifierKind, Error, Hooks, Model, Report, Settings, Tokenization, VectorizerKind};

/// Deterministic pseudo-random texts: positives lean on "spam" words, negatives on "ham" words.
fn corpus(n: usize, fields: usize) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    const SPAM: [&str; 8] = ["free", "winner", "cash", "offer", "click", "prize", "urgent", "money"];
    const HAM: [&str; 8] = ["meeting", "project", "report", "lunch", "schedule", "team", "review", "notes"];
    const COMMON: [&str; 6] = ["today", "please", "friday", "email", "update", "soon"];
    let mut state = 12345u64;
    let mut next = move |m: usize| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as usize % m
    };
    let mut text = |lean: &[&str; 8]| -> String {
        let words: Vec<&str> = (0..6 + next(10))
            .map(|_| match next(10) {
                0..=4 => lean[next(8)],
                5 | 6 => SPAM[next(8)],
                7 => HAM[next(8)],
                _ => COMMON[next(6)],
            })
            .collect();
        words.join(" ")
    };
    let positives = (0..n).map(|_| (0..fields).map(|_| text(&SPAM)).collect()).collect();
    let negatives = (0..n).map(|_| (0..fields).map(|_| text(&HAM)).collect()).collect();
    (positives, negatives)
}

fn settings(vectorizer: VectorizerKind, classifier: ClassifierKind, fields: &[&str]) -> Settings {
    Settings {
        fields: fields.iter().map(|f| f.to_string()).collect(),
        vectorizer,
        classifier,
        stop_words: "soon".into(),
        tokenization: Tokenization::Whitespace,
    }
}

fn fit(settings: &Settings, n: usize) -> (Model, Report) {
    let (positives, negatives) = corpus(n, settings.fields.len());
    train(&positives, &negatives, settings, &Hooks::default(), &mut |_, _| {}).unwrap()
}

const KINDS: [VectorizerKind; 3] = [VectorizerKind::Hashing, VectorizerKind::Count, VectorizerKind::TfIdf];
const CLASSIFIERS: [ClassifierKind; 2] = [ClassifierKind::LogisticRegression, ClassifierKind::LinearSvc];

#[test]
fn every_pipeline_learns_reproducibly_and_round_trips() {
    for kind in KINDS {
        for classifier in CLASSIFIERS {
            let s = settings(kind, classifier, &["body"]);
            let (model, report) = fit(&s, 80);
            assert!(report.f1 > 0.8 && report.auc > 0.9, "{kind:?} {classifier:?}: {report:?}");
            assert_eq!(
                (report.num_positives, report.num_negatives, report.num_features),
                (80, 80, model.num_features())
            );
            assert_eq!(report.use_idf.is_some(), kind == VectorizerKind::TfIdf);
            let bytes = model.to_bytes();
            assert_eq!(fit(&s, 80).0.to_bytes(), bytes, "training is not deterministic");
            let loaded = Model::from_bytes(&bytes).unwrap();
            assert_eq!(loaded, model);
            assert_eq!(loaded.to_bytes(), bytes);
            let (label, p) = loaded.tag(&["free cash prize, click now"]);
            assert!(label && p > 0.5, "{kind:?} {classifier:?}: {p}");
            let (label, p) = loaded.tag(&["team meeting notes for the project review"]);
            assert!(!label && p > 0.5, "{kind:?} {classifier:?}: {p}");
            let batch = loaded.tag_batch(&[vec!["free cash".into()], vec![]], &Hooks::default());
            assert_eq!(batch, vec![loaded.tag(&["free cash"]), loaded.tag(&[""])]);
        }
    }
}

#[test]
fn lists_positive_features_by_name() {
    let (model, _) = fit(&settings(VectorizerKind::Count, ClassifierKind::LogisticRegression, &["body"]), 80);
    let (features, total) = model.list_features(3).unwrap();
    assert_eq!(features.len(), 3.min(total));
    assert!(features.windows(2).all(|w| w[0].coefficient >= w[1].coefficient) && features.iter().all(|f| f.coefficient > 0.0));
    assert!(
        features
            .iter()
            .any(|f| ["free", "winner", "cash", "offer", "click", "prize", "urgent", "money"].contains(&f.feature.as_str())),
        "{features:?}"
    );
    let names = model.feature_names().unwrap();
    assert_eq!(names.len(), model.num_features());
    assert!(!names.contains(&"soon".to_string()), "custom stop word kept");

    let (two, _) = fit(
        &settings(VectorizerKind::TfIdf, ClassifierKind::LogisticRegression, &["subject", "body"]),
        80,
    );
    let names = two.feature_names().unwrap();
    assert!(
        names.iter().all(|n| n.starts_with("subject: ") || n.starts_with("body: ")),
        "{names:?}"
    );
    assert_eq!(two.tag(&["free cash"]), two.tag(&["free cash", ""]));

    let (hashed, _) = fit(
        &settings(VectorizerKind::Hashing, ClassifierKind::LogisticRegression, &["body"]),
        80,
    );
    assert!(hashed.list_features(10).is_none() && hashed.feature_names().is_none());
}

#[test]
fn rejects_bad_training_input() {
    let s = settings(VectorizerKind::Count, ClassifierKind::LogisticRegression, &["body"]);
    let none: Vec<Vec<String>> = Vec::new();
    let one = vec![vec!["a b c".to_string()]];
    let run = |p: &[Vec<String>], n: &[Vec<String>], s: &Settings| train(p, n, s, &Hooks::default(), &mut |_, _| {}).map(|_| ());
    assert_eq!(run(&none, &none, &s), Err(Error::EmptyTrainingData));
    assert_eq!(run(&one, &none, &s), Err(Error::OneClass("the negative")));
    assert_eq!(run(&none, &one, &s), Err(Error::OneClass("the positive")));
    assert_eq!(run(&one, &[vec![]], &s), Err(Error::FieldCount { expected: 1, got: 0 }));
    assert_eq!(
        run(
            &one,
            &one,
            &settings(VectorizerKind::Count, ClassifierKind::LogisticRegression, &[])
        ),
        Err(Error::NoFields)
    );
    let few: Vec<Vec<String>> = (0..4).map(|i| vec![format!("word{i} other{i}")]).collect();
    assert_eq!(run(&few, &few, &s), Err(Error::EmptyVocabulary("body".into())));
    assert_eq!(run(&one, &one, &s), Err(Error::TooFewExamples));
    let message = Error::EmptyVocabulary("body".into()).to_string();
    assert!(message.contains("body") && message.contains("at least 5"), "{message}");
}

#[test]
fn loader_rejects_corrupt_and_foreign_input() {
    let (model, _) = fit(&settings(VectorizerKind::TfIdf, ClassifierKind::LinearSvc, &["body"]), 40);
    let bytes = model.to_bytes();
    for len in (0..bytes.len()).step_by(7) {
        assert!(Model::from_bytes(&bytes[..len]).is_err(), "truncated at {len}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Model::from_bytes(&longer).is_err());
    assert!(matches!(
        Model::from_bytes(b"PK\x03\x04 definitely a zip file"),
        Err(Error::Corrupt(_))
    ));
    let mut version = bytes.clone();
    version[8] = 9;
    assert_eq!(Model::from_bytes(&version), Err(Error::Version(9)));
    let mut huge = bytes.clone();
    huge[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(Model::from_bytes(&huge).is_err());
    // A header that claims a huge array must be refused before anything is allocated.
    let header_len = u64::from_le_bytes(bytes[12..20].try_into().unwrap()) as usize;
    let header = String::from_utf8(bytes[20..20 + header_len].to_vec()).unwrap();
    let selected = format!("\"selected\":{}", model.num_features());
    assert!(header.contains(&selected));
    let forged = header.replace(&selected, "\"selected\":1000000000000000");
    let mut file = bytes[..12].to_vec();
    file.extend_from_slice(&(forged.len() as u64).to_le_bytes());
    file.extend_from_slice(forged.as_bytes());
    file.extend_from_slice(&bytes[20 + header_len..]);
    assert!(matches!(Model::from_bytes(&file), Err(Error::Corrupt(_))));
    // Flipping any single byte never panics.
    for i in 0..bytes.len() {
        let mut flipped = bytes.clone();
        flipped[i] ^= 0x5a;
        let _ = Model::from_bytes(&flipped);
    }
}

#[test]
fn models_keep_their_tokenization_and_older_files_split_on_whitespace() {
    let mut s = settings(VectorizerKind::Count, ClassifierKind::LogisticRegression, &["body"]);
    s.tokenization = Tokenization::Words;
    let (model, _) = fit(&s, 80);
    let bytes = model.to_bytes();
    let loaded = Model::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.settings().tokenization, Tokenization::Words);
    assert_eq!(loaded.tag(&["(free) cash, prize!"]), loaded.tag(&["free cash prize"]));
    // A file written before the setting existed has no key: it keeps the whitespace split.
    let header_len = u64::from_le_bytes(bytes[12..20].try_into().unwrap()) as usize;
    let header = String::from_utf8(bytes[20..20 + header_len].to_vec()).unwrap();
    let older = header.replace(",\"tokenization\":\"words\"", "");
    assert_ne!(older, header);
    let mut file = bytes[..12].to_vec();
    file.extend_from_slice(&(older.len() as u64).to_le_bytes());
    file.extend_from_slice(older.as_bytes());
    file.extend_from_slice(&bytes[20 + header_len..]);
    assert_eq!(Model::from_bytes(&file).unwrap().settings().tokenization, Tokenization::Whitespace);
}
