//! Evaluation on the held-out part: binary precision, recall and F1 for class 1, the confusion
//! matrix and the ROC curve with its area.

use serde::Serialize;

/// Figures of one evaluation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Evaluation {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    /// `[[true negatives, false positives], [false negatives, true positives]]`.
    pub confusion: [[usize; 2]; 2],
    /// ROC points `(false positive rate, true positive rate)` from (0, 0) to (1, 1).
    pub roc: Vec<(f64, f64)>,
    pub auc: f64,
}

/// Evaluates predictions and scores (higher = more likely class 1) against gold labels.
pub fn evaluate(gold: &[bool], predicted: &[bool], scores: &[f64]) -> Evaluation {
    let mut confusion = [[0usize; 2]; 2];
    gold.iter()
        .zip(predicted)
        .for_each(|(&g, &p)| confusion[usize::from(g)][usize::from(p)] += 1);
    let (tp, fp, fne) = (confusion[1][1] as f64, confusion[0][1] as f64, confusion[1][0] as f64);
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    let (precision, recall) = (ratio(tp, tp + fp), ratio(tp, tp + fne));
    let f1 = ratio(2.0 * precision * recall, precision + recall);
    let roc = roc_curve(gold, scores);
    let auc = roc.windows(2).map(|p| (p[1].0 - p[0].0) * (p[1].1 + p[0].1) / 2.0).sum();
    Evaluation {
        precision,
        recall,
        f1,
        confusion,
        roc,
        auc,
    }
}

/// ROC points at every distinct score threshold, descending.
fn roc_curve(gold: &[bool], scores: &[f64]) -> Vec<(f64, f64)> {
    let mut order: Vec<usize> = (0..gold.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let positives = gold.iter().filter(|&&g| g).count().max(1) as f64;
    let negatives = (gold.len() as f64 - gold.iter().filter(|&&g| g).count() as f64).max(1.0);
    let (mut tp, mut fp) = (0.0, 0.0);
    let mut points = vec![(0.0, 0.0)];
    for (k, &i) in order.iter().enumerate() {
        if gold[i] {
            tp += 1.0;
        } else {
            fp += 1.0;
        }
        if order.get(k + 1).is_none_or(|&next| scores[next] != scores[i]) {
            points.push((fp / negatives, tp / positives));
        }
    }
    if points.last() != Some(&(1.0, 1.0)) {
        points.push((1.0, 1.0));
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_recall_f1_and_auc() {
        let gold = [true, true, false, false, true];
        let predicted = [true, false, true, false, true];
        let scores = [0.9, 0.4, 0.6, 0.1, 0.8];
        let e = evaluate(&gold, &predicted, &scores);
        assert_eq!(e.confusion, [[1, 1], [1, 2]]);
        assert!((e.precision - 2.0 / 3.0).abs() < 1e-12 && (e.recall - 2.0 / 3.0).abs() < 1e-12);
        assert!((e.f1 - 2.0 / 3.0).abs() < 1e-12);
        assert!((e.auc - 5.0 / 6.0).abs() < 1e-12, "{}", e.auc);
        let none = evaluate(&[false, false], &[false, false], &[0.1, 0.2]);
        assert_eq!((none.precision, none.recall, none.f1), (0.0, 0.0, 0.0));
    }
}
