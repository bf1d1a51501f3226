//! Sample splits of scikit-learn: `train_test_split(test_size=0.2, random_state=42)` and
//! `StratifiedKFold(n_splits, shuffle=False)`.

use super::rng::Mt19937;

/// Train and test indices of `train_test_split(range(n), test_size=0.2, random_state=42)`: the
/// first `ceil(0.2 n)` entries of NumPy's `RandomState(42).permutation(n)` are the test part.
pub fn train_test_split(n: usize) -> (Vec<usize>, Vec<usize>) {
    let permutation = Mt19937::new(42).permutation(n);
    let n_test = (n * 2).div_ceil(10);
    let (test, train) = permutation.split_at(n_test);
    (train.to_vec(), test.to_vec())
}

/// The train and test indices of one cross-validation fold.
pub type Fold = (Vec<usize>, Vec<usize>);

/// `(train, test)` index lists of `StratifiedKFold(folds).split(labels)` without shuffling.
pub fn stratified_kfold(labels: &[bool], folds: usize) -> Vec<Fold> {
    // Classes are numbered in order of first appearance, as scikit-learn encodes them.
    let first = labels.first().copied().unwrap_or(true);
    let class = |label: bool| usize::from(label != first);
    let mut sorted: Vec<usize> = labels.iter().map(|&l| class(l)).collect();
    sorted.sort_unstable();
    // allocation[f][k]: how many samples of class k fold f tests.
    let allocation: Vec<[usize; 2]> = (0..folds)
        .map(|f| {
            let mut counts = [0; 2];
            sorted.iter().skip(f).step_by(folds).for_each(|&k| counts[k] += 1);
            counts
        })
        .collect();
    let mut test_fold = vec![0; labels.len()];
    for k in [0, 1] {
        let mut fold_of = (0..folds).flat_map(|f| std::iter::repeat_n(f, allocation[f][k]));
        for (i, &label) in labels.iter().enumerate() {
            if class(label) == k {
                test_fold[i] = fold_of.next().unwrap_or(0);
            }
        }
    }
    (0..folds)
        .map(|f| {
            let (test, train): (Vec<usize>, Vec<usize>) = (0..labels.len()).partition(|&i| test_fold[i] == f);
            (train, test)
        })
        .collect()
}
