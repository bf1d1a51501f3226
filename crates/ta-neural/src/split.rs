//! Seeded train / validation / test split: 80/20 into (train+validation)/test, then 80/20 again.

use rand::seq::SliceRandom;
use rand::SeedableRng;

/// Smallest number of examples that leaves every part non-empty.
pub const MIN_EXAMPLES: usize = 5;

/// Example indices of the three parts, each in the order the shuffle left them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub train: Vec<usize>,
    pub validation: Vec<usize>,
    pub test: Vec<usize>,
}

/// Shuffles `0..n` with `seed` and cuts it into 64 % train, 16 % validation and 20 % test (sizes rounded).
pub fn split(n: usize, seed: u64) -> Option<Split> {
    if n < MIN_EXAMPLES {
        return None;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed));
    let rest = eighty_percent(n);
    let train = eighty_percent(rest);
    let test = order.split_off(rest);
    let validation = order.split_off(train);
    Some(Split {
        train: order,
        validation,
        test,
    })
}

fn eighty_percent(n: usize) -> usize {
    (n * 4 + 2) / 5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_rounded_and_parts_disjoint() {
        let s = split(100, 42).unwrap();
        assert_eq!((s.train.len(), s.validation.len(), s.test.len()), (64, 16, 20));
        let mut all: Vec<usize> = s.train.iter().chain(&s.validation).chain(&s.test).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..100).collect::<Vec<_>>());
        let s = split(5, 42).unwrap();
        assert_eq!((s.train.len(), s.validation.len(), s.test.len()), (3, 1, 1));
        assert!(split(4, 42).is_none());
    }

    #[test]
    fn same_seed_same_split() {
        assert_eq!(split(50, 42), split(50, 42));
        assert_ne!(split(50, 42), split(50, 7));
    }
}
