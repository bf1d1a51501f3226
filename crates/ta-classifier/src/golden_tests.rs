//! Tests against golden files written by scikit-learn 1.9.1 / NumPy
//! (`tests/data/classifier/gen_golden.py`): hashing, splits, vectorizers and optimisers.

use super::corpus::Prepared;
use super::murmur::murmur3_x86_32;
use super::rng::Mt19937;
use super::sparse::Csr;
use super::split::{stratified_kfold, train_test_split};
use super::vectorize::{hash_ngram, Doc, VectorizerKind};
use super::{logistic, select, svm};
use serde_json::Value;

fn golden(name: &str) -> Value {
    let path = format!("{}/../../tests/data/classifier/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))).unwrap()
}

fn usizes(v: &Value) -> Vec<usize> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect()
}

fn f64s(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_owned()).collect()
}

fn csr(v: &Value) -> Csr {
    Csr {
        ncols: v["ncols"].as_u64().unwrap() as usize,
        indptr: usizes(&v["indptr"]),
        indices: usizes(&v["indices"]).into_iter().map(|c| c as u32).collect(),
        data: f64s(&v["data"]),
    }
}

fn assert_close(a: &Csr, b: &Csr, tolerance: f64) {
    assert_eq!((a.ncols, &a.indptr, &a.indices), (b.ncols, &b.indptr, &b.indices));
    a.data
        .iter()
        .zip(&b.data)
        .for_each(|(x, y)| assert!((x - y).abs() <= tolerance, "{x} vs {y}"));
}

#[test]
fn murmur_column_and_sign_match_sklearn() {
    let g = golden("hashing.json");
    for row in g["tokens"].as_array().unwrap() {
        let token = row["token"].as_str().unwrap();
        assert_eq!(
            u64::from(murmur3_x86_32(token.as_bytes(), 0)),
            row["murmur"].as_u64().unwrap(),
            "{token:?}"
        );
        assert_eq!(
            hash_ngram(token),
            (row["column"].as_u64().unwrap() as u32, row["value"].as_f64().unwrap()),
            "{token:?}"
        );
    }
}

/// Rows of all `docs` from the training-side encoding, checked against the tagging-time path.
fn fit_rows(kind: VectorizerKind, docs: &[Doc], use_idf: bool) -> (Vec<String>, Option<Vec<f64>>, Csr) {
    let all: Vec<usize> = (0..docs.len()).collect();
    let prepared = Prepared::new(kind, docs.len(), 1, |d, _, emit| docs[d][0].iter().for_each(|t| emit(t)));
    let fitted = prepared.fit(&all, use_idf).unwrap();
    let rows = prepared.rows(&fitted, &all);
    let features = prepared.features(&fitted);
    let mut tagging = Csr::new(features.width());
    docs.iter().for_each(|d| tagging.push_row(features.transform_one(d)));
    assert_eq!(tagging, rows);
    let field = &features.fields[0];
    (field.terms.clone(), field.idf.clone(), rows)
}

#[test]
fn hashing_rows_match_sklearn() {
    let g = golden("hashing.json");
    let docs: Vec<Doc> = g["docs"].as_array().unwrap().iter().map(|d| vec![strings(d)]).collect();
    assert_close(&fit_rows(VectorizerKind::Hashing, &docs, true).2, &csr(&g["rows"]), 1e-12);
}

#[test]
fn permutations_and_splits_match_numpy() {
    let g = golden("splits.json");
    for (n, permutation) in g["permutations"].as_object().unwrap() {
        assert_eq!(Mt19937::new(42).permutation(n.parse().unwrap()), usizes(permutation), "n = {n}");
    }
    for (n, split) in g["train_test_split"].as_object().unwrap() {
        assert_eq!(
            train_test_split(n.parse().unwrap()),
            (usizes(&split["train"]), usizes(&split["test"])),
            "n = {n}"
        );
    }
    let labels: Vec<bool> = g["kfold_labels"].as_array().unwrap().iter().map(|l| l.as_bool().unwrap()).collect();
    let expected: Vec<(Vec<usize>, Vec<usize>)> = g["kfold"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (usizes(&f["train"]), usizes(&f["test"])))
        .collect();
    assert_eq!(stratified_kfold(&labels, 5), expected);
}

#[test]
fn count_and_tfidf_match_sklearn() {
    let g = golden("vectorizers.json");
    let docs: Vec<Doc> = g["docs"].as_array().unwrap().iter().map(|d| vec![strings(d)]).collect();
    for (name, kind, use_idf) in [
        ("count", VectorizerKind::Count, false),
        ("tfidf", VectorizerKind::TfIdf, true),
        ("tf", VectorizerKind::TfIdf, false),
    ] {
        let (terms, idf, rows) = fit_rows(kind, &docs, use_idf);
        assert_eq!(terms, strings(&g[name]["vocabulary"]), "{name}");
        assert_close(&rows, &csr(&g[name]["rows"]), 1e-12);
        if name == "tfidf" {
            idf.unwrap()
                .iter()
                .zip(f64s(&g["idf"]))
                .for_each(|(a, b)| assert!((a - b).abs() < 1e-12));
        }
    }
    assert_eq!(
        Prepared::new(VectorizerKind::Count, docs.len(), 1, |d, _, emit| docs[d][0]
            .iter()
            .for_each(|t| emit(t)))
        .fit(&[0, 1, 2, 3], false)
        .err(),
        Some(0)
    );
}

struct Problem {
    train: Csr,
    test: Csr,
    y: Vec<bool>,
    g: Value,
}

fn problem() -> Problem {
    let g = golden("optimisers.json");
    let x = csr(&g["x"]);
    let n_train = g["n_train"].as_u64().unwrap() as usize;
    let y: Vec<bool> = g["y"]
        .as_array()
        .unwrap()
        .iter()
        .take(n_train)
        .map(|l| l.as_bool().unwrap())
        .collect();
    let train = x.select_rows(&(0..n_train).collect::<Vec<_>>());
    let test = x.select_rows(&(n_train..x.nrows()).collect::<Vec<_>>());
    Problem { train, test, y, g }
}

#[test]
fn l1_selection_matches_liblinear() {
    let p = problem();
    let selected: Vec<usize> = select::select_features(&p.train, &p.y).into_iter().map(|c| c as usize).collect();
    assert_eq!(selected, usizes(&p.g["l1_selected"]));
}

#[test]
fn logistic_regression_matches_sklearn() {
    let p = problem();
    let (w, b) = logistic::fit(&p.train, &p.y);
    assert!((b - p.g["lr_intercept"].as_f64().unwrap()).abs() < 1e-3);
    w.iter()
        .zip(f64s(&p.g["lr_coef"]))
        .for_each(|(a, e)| assert!((a - e).abs() < 1e-3, "{a} vs {e}"));
    let expected = f64s(&p.g["lr_test_proba"]);
    assert_eq!(expected.len(), 100);
    for (r, e) in expected.iter().enumerate() {
        let p1 = logistic::sigmoid(p.test.dot_row(r, &w) + b);
        assert!((p1 - e).abs() < 1e-3, "row {r}: {p1} vs {e}");
    }
}

#[test]
fn hinge_svm_and_platt_match_liblinear() {
    let p = problem();
    let (w, b) = svm::fit(&p.train, &p.y);
    let (ew, eb) = (f64s(&p.g["svc_coef"]), p.g["svc_intercept"].as_f64().unwrap());
    let agree = (0..p.train.nrows())
        .filter(|&r| (p.train.dot_row(r, &w) + b > 0.0) == (p.train.dot_row(r, &ew) + eb > 0.0))
        .count();
    assert!(agree >= p.train.nrows() * 98 / 100, "{agree}");
    let (a, b) = svm::fit_platt(&f64s(&p.g["platt_decisions"]), &p.y);
    let (ea, eb) = (p.g["platt_a"].as_f64().unwrap(), p.g["platt_b"].as_f64().unwrap());
    assert!(
        (a - ea).abs() < 1e-3 * ea.abs().max(1.0) && (b - eb).abs() < 1e-3 * eb.abs().max(1.0),
        "({a}, {b}) vs ({ea}, {eb})"
    );
}

#[test]
fn text_processor_matches_python() {
    use super::text::{Hooks, ProcessorOptions, TextProcessor};
    let g = golden("text.json");
    let custom = g["custom_stop_words"].as_str().unwrap().to_owned();
    let with_stop = TextProcessor::new(&ProcessorOptions {
        sentences: false,
        remove_stop_words: true,
        custom_stop_words: custom,
        ..Default::default()
    });
    let without = TextProcessor::new(&ProcessorOptions::default());
    let sentences = TextProcessor::new(&ProcessorOptions {
        sentences: true,
        remove_stop_words: true,
        custom_stop_words: String::new(),
        ..Default::default()
    });
    let hooks = Hooks::default();
    let cases = g["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 200);
    for case in cases {
        let text = case["text"].as_str().unwrap();
        assert_eq!(with_stop.tokens(text, &hooks), strings(&case["tokens"]), "{text:?}");
        assert_eq!(without.tokens(text, &hooks), strings(&case["no_stop"]), "{text:?}");
        let expected: Vec<Vec<String>> = case["sentences"].as_array().unwrap().iter().map(strings).collect();
        assert_eq!(sentences.process(text, &hooks), expected, "{text:?}");
    }
}
