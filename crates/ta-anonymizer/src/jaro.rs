//! Jaro–Winkler similarity as computed by `jellyfish.jaro_winkler_similarity` (prefix scale 0.1, at most four
//! prefix characters, boost only above 0.7, no long-string tolerance), on code points, case-sensitive.

/// Similarity in [0, 1]; 0.0 when either string is empty (jellyfish does the same).
pub(crate) fn jaro_winkler(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let weight = jaro(&a, &b);
    if weight <= 0.7 {
        return weight;
    }
    let limit = a.len().min(b.len()).min(4);
    let prefix = a.iter().zip(&b).take(limit).take_while(|(x, y)| x == y).count();
    weight + prefix as f64 * 0.1 * (1.0 - weight)
}

fn jaro(a: &[char], b: &[char]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let range = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut a_flags = vec![false; a.len()];
    let mut b_flags = vec![false; b.len()];
    let mut common = 0usize;
    for (i, &ca) in a.iter().enumerate() {
        let lo = i.saturating_sub(range);
        let hi = (i + range).min(b.len() - 1);
        if lo > hi {
            continue;
        }
        if let Some(j) = (lo..=hi).find(|&j| !b_flags[j] && b[j] == ca) {
            a_flags[i] = true;
            b_flags[j] = true;
            common += 1;
        }
    }
    if common == 0 {
        return 0.0;
    }
    let a_common = a.iter().zip(&a_flags).filter(|(_, &f)| f).map(|(c, _)| c);
    let b_common = b.iter().zip(&b_flags).filter(|(_, &f)| f).map(|(c, _)| c);
    let transpositions = a_common.zip(b_common).filter(|(x, y)| x != y).count() / 2;
    let m = common as f64;
    (m / a.len() as f64 + m / b.len() as f64 + (m - transpositions as f64) / m) / 3.0
}
