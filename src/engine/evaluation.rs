//! The evaluator's scores (`collection.md` §6) with scikit-learn's definitions, from counts
//! tallied in one pass over the documents: per class its true positives, false positives and
//! false negatives; the documents whose label sets match exactly; the per-document (`samples`)
//! ratios; and, for few classes, the confusion matrix of each document's first true class
//! against its first predicted class. Nothing else of a document is kept.
//!
//! - A ratio with a zero denominator is 0 (scikit-learn's default `zero_division`).
//! - Averages over classes sum as numpy does (pairwise), so they equal scikit-learn's to the
//!   last bit; `samples` adds the documents' ratios in scan order.
//! - No score: when no document has a positive label or prediction, precision, recall and F1
//!   are `-1`; with no document at all, accuracy is `-1` too.
use serde::{Deserialize, Serialize};

/// How precision, recall and F1 are averaged over the labels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Average {
    /// The scores of the positive label (binary evaluation only).
    Binary,
    /// From the counts summed over the labels.
    Micro,
    /// The mean of the labels' scores.
    #[default]
    Macro,
    /// The mean of each document's scores (multilabel evaluation only).
    Samples,
    /// The labels' scores weighted by their number of true documents.
    Weighted,
}

/// The score of an evaluation without a positive label or prediction.
pub const NO_SCORE: f64 = -1.0;

/// The counts of one label.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub tp: u64,
    pub fp: u64,
    pub fn_: u64,
}

impl Counts {
    /// Documents where the label is true or predicted: `tp + fp + fn`.
    pub fn count(self) -> u64 {
        self.tp + self.fp + self.fn_
    }

    /// Precision, recall and F1 (`2·tp / (true + predicted)`, as scikit-learn computes it).
    fn ratios(self) -> [f64; 3] {
        let tp = self.tp as f64;
        let (truth, predicted) = ((self.tp + self.fn_) as f64, (self.tp + self.fp) as f64);
        [ratio(tp, predicted), ratio(tp, truth), ratio(2.0 * tp, truth + predicted)]
    }

    fn add(self, other: Counts) -> Counts {
        Counts {
            tp: self.tp + other.tp,
            fp: self.fp + other.fp,
            fn_: self.fn_ + other.fn_,
        }
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        a / b
    }
}

/// The sum of `xs` as numpy adds a float array: pairwise, in blocks of up to 128 summed
/// with eight accumulators.
pub fn np_sum(xs: &[f64]) -> f64 {
    let n = xs.len();
    if n < 8 {
        xs.iter().fold(0.0, |sum, x| sum + x)
    } else if n <= 128 {
        let mut r: [f64; 8] = xs[..8].try_into().expect("eight items");
        let whole = n - n % 8;
        for block in xs[8..whole].chunks_exact(8) {
            for (acc, x) in r.iter_mut().zip(block) {
                *acc += x;
            }
        }
        let head = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        xs[whole..].iter().fold(head, |sum, x| sum + x)
    } else {
        let half = n / 2;
        let half = half - half % 8;
        np_sum(&xs[..half]) + np_sum(&xs[half..])
    }
}

/// numpy's mean.
fn np_mean(xs: &[f64]) -> f64 {
    np_sum(xs) / xs.len() as f64
}

/// numpy's `average` with weights; the plain mean when every weight is 0 (scikit-learn's
/// fallback).
fn np_weighted(xs: &[f64], weights: &[f64]) -> f64 {
    let scale = np_sum(weights);
    if scale == 0.0 {
        return np_mean(xs);
    }
    let products: Vec<f64> = xs.iter().zip(weights).map(|(x, w)| x * w).collect();
    np_sum(&products) / scale
}

/// Precision, recall, F1 and accuracy of an evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Scores {
    pub precision: f64,
    pub recall: f64,
    pub f1_score: f64,
    pub accuracy: f64,
}

/// The binary scores of one class, with its `[[tn, fp], [fn, tp]]` and its count
/// (`tp + fp + fn`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ClassScores {
    pub precision: f64,
    pub recall: f64,
    pub f1_score: f64,
    pub accuracy: f64,
    pub confusion_matrix: [[u64; 2]; 2],
    pub count: u64,
}

impl ClassScores {
    /// The scores of a class with counts `c` among `docs` documents.
    pub fn of(c: Counts, docs: u64) -> ClassScores {
        let tn = docs.saturating_sub(c.count());
        let [precision, recall, f1_score] = match c.count() {
            0 => [NO_SCORE; 3],
            _ => c.ratios(),
        };
        ClassScores {
            precision,
            recall,
            f1_score,
            accuracy: ratio((c.tp + tn) as f64, docs as f64),
            confusion_matrix: [[tn, c.fp], [c.fn_, c.tp]],
            count: c.count(),
        }
    }
}

/// Most classes a multilabel confusion matrix is computed for.
pub const MAX_MATRIX_CLASSES: usize = 30;

/// The counts of an evaluation so far.
#[derive(Clone, Debug)]
pub struct Tally {
    docs: u64,
    classes: Vec<Counts>,
    /// Documents whose true and predicted sets are equal.
    exact: u64,
    /// Sums of the documents' precision, recall and F1.
    samples: [f64; 3],
    /// Rows true, columns predicted: each document's first class of each set.
    confusion: Option<Vec<Vec<u64>>>,
}

impl Tally {
    /// A tally over `classes` classes, with the confusion matrix when there are at most
    /// [`MAX_MATRIX_CLASSES`].
    pub fn new(classes: usize) -> Tally {
        Tally {
            docs: 0,
            classes: vec![Counts::default(); classes],
            exact: 0,
            samples: [0.0; 3],
            confusion: (classes <= MAX_MATRIX_CLASSES).then(|| vec![vec![0; classes]; classes]),
        }
    }

    /// Counts a document: its true and its predicted classes, each ascending without
    /// repeats.
    pub fn add(&mut self, truth: &[usize], predicted: &[usize]) {
        self.docs += 1;
        let (mut t, mut p, mut both) = (0, 0, 0u64);
        while t < truth.len() || p < predicted.len() {
            match (truth.get(t), predicted.get(p)) {
                (Some(&a), Some(&b)) if a == b => {
                    self.classes[a].tp += 1;
                    both += 1;
                    (t, p) = (t + 1, p + 1);
                }
                (Some(&a), b) if b.is_none_or(|&b| a < b) => {
                    self.classes[a].fn_ += 1;
                    t += 1;
                }
                (_, Some(&b)) => {
                    self.classes[b].fp += 1;
                    p += 1;
                }
                _ => unreachable!("one of the sets has classes left"),
            }
        }
        self.exact += u64::from(truth == predicted);
        let (truth_n, predicted_n, both) = (truth.len() as f64, predicted.len() as f64, both as f64);
        let ratios = [
            ratio(both, predicted_n),
            ratio(both, truth_n),
            ratio(2.0 * both, truth_n + predicted_n),
        ];
        for (sum, r) in self.samples.iter_mut().zip(ratios) {
            *sum += r;
        }
        if let Some(matrix) = self.confusion.as_mut().filter(|m| !m.is_empty()) {
            matrix[truth.first().copied().unwrap_or(0)][predicted.first().copied().unwrap_or(0)] += 1;
        }
    }

    pub fn documents(&self) -> u64 {
        self.docs
    }

    /// The counts of every class.
    pub fn counts(&self) -> &[Counts] {
        &self.classes
    }

    fn negatives(&self, c: Counts) -> u64 {
        self.docs - c.count()
    }

    /// The scores of a binary evaluation, whose one class is the positive label: `binary`
    /// scores that label, the other averages the labels that occur (negative, positive).
    pub fn binary_scores(&self, average: Average) -> Scores {
        let positive = self.classes[0];
        let negative = Counts {
            tp: self.negatives(positive),
            fp: positive.fn_,
            fn_: positive.fp,
        };
        let labels: Vec<Counts> = match average {
            Average::Binary => vec![positive],
            _ => [negative, positive].into_iter().filter(|c| c.count() > 0).collect(),
        };
        self.scores(&labels, average, positive.tp + negative.tp)
    }

    /// The scores of a multilabel evaluation; accuracy is subset accuracy.
    pub fn multilabel_scores(&self, average: Average) -> Scores {
        self.scores(&self.classes, average, self.exact)
    }

    fn scores(&self, labels: &[Counts], average: Average, correct: u64) -> Scores {
        let accuracy = match self.docs {
            0 => NO_SCORE,
            n => correct as f64 / n as f64,
        };
        if self.docs == 0 || self.classes.iter().all(|c| c.count() == 0) {
            return Scores {
                precision: NO_SCORE,
                recall: NO_SCORE,
                f1_score: NO_SCORE,
                accuracy,
            };
        }
        let per_label: Vec<[f64; 3]> = labels.iter().map(|c| c.ratios()).collect();
        let metric = |i: usize| -> Vec<f64> { per_label.iter().map(|r| r[i]).collect() };
        let [precision, recall, f1_score] = match average {
            Average::Micro => labels.iter().fold(Counts::default(), |sum, c| sum.add(*c)).ratios(),
            Average::Samples => self.samples.map(|sum| sum / self.docs as f64),
            Average::Binary | Average::Macro => [0, 1, 2].map(|i| np_mean(&metric(i))),
            Average::Weighted => {
                let weights: Vec<f64> = labels.iter().map(|c| (c.tp + c.fn_) as f64).collect();
                [0, 1, 2].map(|i| np_weighted(&metric(i), &weights))
            }
        };
        Scores {
            precision,
            recall,
            f1_score,
            accuracy,
        }
    }

    /// The binary scores of class `class` alone.
    pub fn class_scores(&self, class: usize) -> ClassScores {
        ClassScores::of(self.classes[class], self.docs)
    }

    /// The multilabel confusion matrix, or `[[]]` when there are too many classes for one.
    pub fn confusion(&self) -> Vec<Vec<u64>> {
        self.confusion.clone().unwrap_or_else(|| vec![vec![]])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(classes: usize, docs: &[(&[usize], &[usize])]) -> Tally {
        let mut t = Tally::new(classes);
        for (truth, predicted) in docs {
            t.add(truth, predicted);
        }
        t
    }

    fn scores(precision: f64, recall: f64, f1_score: f64, accuracy: f64) -> Scores {
        Scores {
            precision,
            recall,
            f1_score,
            accuracy,
        }
    }

    /// y_true = [1, 1, 0, 0, 1, 0], y_pred = [1, 0, 1, 0, 1, 0]: tp 2, fp 1, fn 1, tn 2.
    /// scikit-learn: precision_recall_fscore_support(y_true, y_pred, average=...).
    #[test]
    fn binary_scores_for_each_average() {
        let (yes, no): (&[usize], &[usize]) = (&[0], &[]);
        let t = tally(1, &[(yes, yes), (yes, no), (no, yes), (no, no), (yes, yes), (no, no)]);
        let binary = t.binary_scores(Average::Binary);
        assert_eq!(binary, scores(2.0 / 3.0, 2.0 / 3.0, 4.0 / 6.0, 4.0 / 6.0));
        // Both labels score 2/3: every average is 2/3 (0.6666666666666666).
        for average in [Average::Micro, Average::Macro, Average::Weighted] {
            assert_eq!(t.binary_scores(average), binary, "{average:?}");
        }
        assert_eq!(t.class_scores(0).confusion_matrix, [[2, 1], [1, 2]]);

        // y_true = [1, 1, 1, 0], y_pred = [1, 0, 0, 0]: positive P 1, R 1/3, F1 0.5;
        // negative P 1/3, R 1, F1 0.5.
        let t = tally(1, &[(yes, yes), (yes, no), (yes, no), (no, no)]);
        assert_eq!(t.binary_scores(Average::Binary), scores(1.0, 1.0 / 3.0, 0.5, 0.5));
        assert_eq!(t.binary_scores(Average::Micro), scores(0.5, 0.5, 0.5, 0.5));
        assert_eq!(
            t.binary_scores(Average::Macro),
            scores(0.6666666666666666, 0.6666666666666666, 0.5, 0.5)
        );
        // Weighted by support 1 (negative) and 3 (positive): (1/3 + 3)/4, (1 + 1)/4.
        assert_eq!(t.binary_scores(Average::Weighted), scores(0.8333333333333334, 0.5, 0.5, 0.5));

        // Every document positive and predicted so: only the positive label occurs.
        let t = tally(1, &[(yes, yes), (yes, yes)]);
        assert_eq!(t.binary_scores(Average::Macro), scores(1.0, 1.0, 1.0, 1.0));
    }

    #[test]
    fn no_positive_anywhere_is_no_score() {
        let none: &[usize] = &[];
        let t = tally(1, &[(none, none), (none, none)]);
        assert_eq!(t.binary_scores(Average::Binary), scores(-1.0, -1.0, -1.0, 1.0));
        assert_eq!(t.multilabel_scores(Average::Macro), scores(-1.0, -1.0, -1.0, 1.0));
        assert_eq!(Tally::new(0).multilabel_scores(Average::Micro), scores(-1.0, -1.0, -1.0, -1.0));
        assert_eq!(Tally::new(1).binary_scores(Average::Binary), scores(-1.0, -1.0, -1.0, -1.0));
    }

    /// Classes a, b, c. Documents (true → predicted):
    /// {a, b} → {a}; {b} → {b, c}; {c} → {c}; {} → {a}; {a, c} → {a, c}.
    /// Per class: a tp 2 fp 1 fn 0; b tp 1 fp 0 fn 1; c tp 2 fp 1 fn 0.
    /// scikit-learn on the binarised rows (MultiLabelBinarizer) gives the values below.
    #[test]
    fn multilabel_scores_for_each_average() {
        let t = tally(
            3,
            &[(&[0, 1], &[0]), (&[1], &[1, 2]), (&[2], &[2]), (&[], &[0]), (&[0, 2], &[0, 2])],
        );
        // Per class P/R/F1: a 2/3, 1, 0.8; b 1, 1/2, 2/3; c 2/3, 1, 0.8.
        // micro: tp 5, fp 2, fn 1 → P 5/7, R 5/6, F1 10/13.
        assert_eq!(t.multilabel_scores(Average::Micro), scores(5.0 / 7.0, 5.0 / 6.0, 10.0 / 13.0, 0.4));
        assert_eq!(
            t.multilabel_scores(Average::Macro),
            scores(0.7777777777777777, 0.8333333333333334, 0.7555555555555555, 0.4)
        );
        // Supports 2, 2, 2: the macro values again.
        assert_eq!(t.multilabel_scores(Average::Weighted), t.multilabel_scores(Average::Macro));
        // Per document P: 1, 1/2, 1, 0, 1; R: 1/2, 1, 1, 0, 1; F1: 2/3, 2/3, 1, 0, 1.
        assert_eq!(t.multilabel_scores(Average::Samples), scores(0.7, 0.7, 0.6666666666666666, 0.4));
        // First classes: a→a, b→b, c→c, none (a)→a, a→a.
        assert_eq!(t.confusion(), vec![vec![3, 0, 0], vec![0, 1, 0], vec![0, 0, 1]]);
        assert_eq!(
            t.class_scores(1),
            ClassScores {
                precision: 1.0,
                recall: 0.5,
                f1_score: 0.6666666666666666,
                accuracy: 0.8,
                confusion_matrix: [[3, 0], [1, 1]],
                count: 2
            }
        );
        // Unequal supports: a (P 1, R 2/3, F1 0.8) 3, b (0, 0, 0) 1 → (x·3 + 0·1) / 4.
        let t = tally(2, &[(&[0], &[0]), (&[0], &[1]), (&[0, 1], &[0])]);
        assert_eq!(
            t.multilabel_scores(Average::Weighted),
            scores(0.75, 0.5, 0.6000000000000001, 1.0 / 3.0)
        );
        assert_eq!(Tally::new(31).confusion(), vec![Vec::<u64>::new()]);
    }

    #[test]
    fn sums_pair_as_numpy_does() {
        let xs: Vec<f64> = (0..1000).map(|i| 0.1 * i as f64 + 1.0 / (i as f64 + 3.0)).collect();
        // numpy.sum of that array (numpy 2.4); a plain left-to-right sum gives 49955.987467865496.
        assert_eq!(np_sum(&xs), 49955.98746786553);
        assert_eq!(np_sum(&[0.1, 0.2, 0.3]), 0.1 + 0.2 + 0.3);
        let eight = [0.1; 9];
        assert_eq!(np_sum(&eight), ((0.1 + 0.1) + (0.1 + 0.1)) + ((0.1 + 0.1) + (0.1 + 0.1)) + 0.1);
    }
}
