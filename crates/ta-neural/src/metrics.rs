//! Classification scores (macro precision, recall, F1 as scikit-learn computes them; accuracy), the confusion
//! matrix, per-epoch reports and the 3-decimal string form the resource serialises them in.

use serde_json::{json, Value};

/// Formats a score the way the resource stores it: rounded to 3 decimals, e.g. `"0.873"`.
pub fn round3(x: f64) -> String {
    format!("{x:.3}")
}

/// Macro-averaged precision, recall and F1 plus accuracy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scores {
    pub f1: f64,
    pub precision: f64,
    pub recall: f64,
    pub accuracy: f64,
}

/// Counts of (true class, predicted class) pairs: `matrix[true][predicted]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confusion {
    pub matrix: Vec<Vec<usize>>,
}

impl Confusion {
    /// Tallies `pairs` of (true, predicted) class indices; pairs with an index of `classes` or more are skipped.
    pub fn new(classes: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Self {
        let mut matrix = vec![vec![0; classes]; classes];
        for (truth, predicted) in pairs {
            if let Some(cell) = matrix.get_mut(truth).and_then(|row| row.get_mut(predicted)) {
                *cell += 1;
            }
        }
        Self { matrix }
    }

    /// Scores; the macro average runs over the classes that occur as truth or prediction (scikit-learn's
    /// default), and an undefined precision, recall or F1 counts as 0.
    pub fn scores(&self) -> Scores {
        let n = self.matrix.len();
        let total: usize = self.matrix.iter().flatten().sum();
        let correct: usize = (0..n).map(|c| self.matrix[c][c]).sum();
        let (mut precision, mut recall, mut f1, mut seen) = (0.0, 0.0, 0.0, 0usize);
        for c in 0..n {
            let actual: usize = self.matrix[c].iter().sum();
            let predicted: usize = self.matrix.iter().map(|row| row[c]).sum();
            if actual + predicted == 0 {
                continue;
            }
            seen += 1;
            let tp = self.matrix[c][c] as f64;
            let p = ratio(tp, predicted as f64);
            let r = ratio(tp, actual as f64);
            precision += p;
            recall += r;
            f1 += ratio(2.0 * p * r, p + r);
        }
        let seen = seen.max(1) as f64;
        Scores {
            f1: f1 / seen,
            precision: precision / seen,
            recall: recall / seen,
            accuracy: ratio(correct as f64, total as f64),
        }
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

/// Validation scores after one epoch and that epoch's mean training loss.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpochReport {
    pub epoch: usize,
    pub scores: Scores,
    pub training_loss: f64,
}

impl EpochReport {
    /// The resource's form: `{"f1_score", "precision", "recall", "accuracy", "training_loss"}`, each a string.
    pub fn to_json(&self) -> Value {
        json!({
            "f1_score": round3(self.scores.f1),
            "precision": round3(self.scores.precision),
            "recall": round3(self.scores.recall),
            "accuracy": round3(self.scores.accuracy),
            "training_loss": round3(self.training_loss),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_match_hand_computation() {
        // truth/prediction: 0->0 x3, 0->1 x1, 1->1 x2, 1->0 x2
        let pairs = [(0, 0), (0, 0), (0, 0), (0, 1), (1, 1), (1, 1), (1, 0), (1, 0)];
        let s = Confusion::new(2, pairs).scores();
        // class 0: p = 3/5, r = 3/4, f1 = 2/3; class 1: p = 2/3, r = 1/2, f1 = 4/7
        assert!((s.precision - (0.6 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
        assert!((s.recall - 0.625).abs() < 1e-12);
        assert!((s.f1 - (2.0 / 3.0 + 4.0 / 7.0) / 2.0).abs() < 1e-12);
        assert!((s.accuracy - 0.625).abs() < 1e-12);
    }

    #[test]
    fn absent_classes_are_left_out_and_zero_division_is_zero() {
        let c = Confusion::new(3, [(0, 0), (0, 0), (0, 1)]);
        assert_eq!(c.matrix, [[2, 1, 0], [0, 0, 0], [0, 0, 0]]);
        let s = c.scores();
        // class 0: p = 1, r = 2/3, f1 = 0.8; class 1: p = 0, r = 0 (no truth), f1 = 0; class 2 absent
        assert!((s.f1 - 0.4).abs() < 1e-12 && (s.precision - 0.5).abs() < 1e-12 && (s.recall - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn epoch_report_serialises_three_decimal_strings() {
        let scores = Scores {
            f1: 0.87349,
            precision: 0.9,
            recall: 1.0,
            accuracy: 0.0005,
        };
        let report = EpochReport {
            epoch: 0,
            scores,
            training_loss: 0.12345,
        };
        assert_eq!(
            report.to_json(),
            json!({"f1_score": "0.873", "precision": "0.900", "recall": "1.000", "accuracy": "0.001", "training_loss": "0.123"})
        );
    }
}
