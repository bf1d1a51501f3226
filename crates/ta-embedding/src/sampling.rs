//! The two sampling tables of word2vec, built as gensim builds them: the cumulative
//! unigram^0.75 table that negative words are drawn from, and the per-word keep
//! thresholds of frequent-word down-sampling.

/// gensim's `make_cum_table`: entry i = round(cumulative count^power / total * (2^31 - 1)).
pub(super) fn cum_table(counts: &[u64], power: f64) -> Vec<u32> {
    const DOMAIN: f64 = 2_147_483_647.0;
    let total: f64 = counts.iter().map(|&c| (c as f64).powf(power)).sum();
    let mut cumulative = 0.0;
    counts
        .iter()
        .map(|&c| {
            cumulative += (c as f64).powf(power);
            (cumulative / total * DOMAIN).round_ties_even() as u32
        })
        .collect()
}

/// The cumulative table with a bucket index over its value range, so that a draw is a
/// bucket look-up plus a short binary search instead of one over the whole table.
pub(super) struct NoiseTable {
    cumulative: Vec<u32>,
    /// `starts[b]` = first word whose cumulative value is >= `b << shift`.
    starts: Vec<u32>,
    shift: u32,
}

impl NoiseTable {
    /// About two buckets per word, at most 2^20 buckets.
    pub(super) fn new(counts: &[u64], power: f64) -> Self {
        let cumulative = cum_table(counts, power);
        let last = u64::from(cumulative.last().copied().unwrap_or(0)).max(1);
        let wanted = (cumulative.len() as u64 * 2).clamp(1, 1 << 20);
        let shift = (last / wanted).max(1).ilog2();
        let starts = (0..=(last >> shift) + 1)
            .map(|b| cumulative.partition_point(|&c| u64::from(c) < b << shift) as u32)
            .collect();
        NoiseTable { cumulative, starts, shift }
    }

    /// Draws a word given a 32-bit random value: gensim's
    /// `bisect_left(cum_table, random % cum_table[-1])`.
    #[inline(always)]
    pub(super) fn draw(&self, random: u64) -> u32 {
        let table = &self.cumulative;
        let target = random % u64::from(table.last().copied().unwrap_or(0)).max(1);
        let bucket = (target >> self.shift) as usize;
        let last = table.len().saturating_sub(1);
        let low = self.starts.get(bucket).map_or(0, |&s| s as usize).min(last);
        let high = self.starts.get(bucket + 1).map_or(last, |&s| s as usize).min(last);
        (low + table[low..=high].partition_point(|&c| u64::from(c) < target)).min(last) as u32
    }
}

/// gensim's down-sampling: word w is kept when `keep[w] >= random 32-bit value`, with
/// probability (sqrt(c / t) + 1) * t / c capped at 1, t = sample * (sum of counts).
/// `None` when down-sampling is off (`sample <= 0`).
pub(super) fn keep_thresholds(counts: &[u64], sample: f64) -> Option<Vec<u32>> {
    if sample <= 0.0 {
        return None;
    }
    let retained: u64 = counts.iter().sum();
    let threshold = if sample < 1.0 {
        sample * retained as f64
    } else {
        (sample * (3.0 + 5f64.sqrt()) / 2.0).trunc()
    };
    Some(
        counts
            .iter()
            .map(|&c| {
                let c = c as f64;
                let probability = ((c / threshold).sqrt() + 1.0) * (threshold / c);
                (probability.min(1.0) * f64::from(u32::MAX)) as u32
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cum_table_matches_gensim() {
        // numpy: counts [16, 1, 1] -> 8, 1, 1 -> total 10 -> [0.8, 0.9, 1.0] * (2^31 - 1)
        let table = cum_table(&[16, 1, 1], 0.75);
        assert_eq!(table, [1_717_986_918, 1_932_735_282, 2_147_483_647]);
    }

    #[test]
    fn draw_is_bisect_left() {
        let counts: Vec<u64> = (1..=3000u64).map(|i| 1_000_000 / i + (i % 7)).collect();
        let noise = NoiseTable::new(&counts, 0.75);
        let table = &noise.cumulative;
        let last = u64::from(*table.last().unwrap());
        let mut rng = crate::rng::Lcg::new(3);
        let edges = table.iter().flat_map(|&c| [u64::from(c), u64::from(c) + 1]);
        for random in (0..100_000)
            .map(|_| rng.next())
            .chain(edges)
            .chain([0, last - 1, last, u64::from(u32::MAX)])
        {
            let expected = table.partition_point(|&c| u64::from(c) < random % last);
            assert_eq!(noise.draw(random) as usize, expected, "random {random}");
        }
        let single = NoiseTable::new(&[5], 0.75);
        assert_eq!((single.draw(0), single.draw(123_456_789)), (0, 0));
    }

    #[test]
    fn keep_thresholds_match_gensim() {
        // total 1000, sample 1e-3 -> t = 1: count 100 -> (sqrt(100) + 1) / 100 = 0.11;
        // count 1 -> (1 + 1) * 1 = 2 -> capped at 1.
        let keep = keep_thresholds(&[899, 100, 1], 1e-3).unwrap();
        // Values computed with gensim's formula in numpy.
        assert_eq!(keep, [148_022_673, 472_446_402, u32::MAX]);
        assert!(keep_thresholds(&[1, 2], 0.0).is_none());
    }
}
