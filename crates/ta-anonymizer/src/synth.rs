//! The replacement form: the replacer initials plus an Estonian case ending copied from the matched form
//! (`Tammele` → `K.A-le`, or `K.F-ile` when the initials end in a consonant-sounding letter).

use super::text::{is_word, lower, without_space};

/// Case endings, tried as suffixes of the part of the form after the name.
const ENDINGS: [&str; 16] = [
    "sse", "st", "ks", "le", "lt", "na", "ni", "ga", "ta", "t", "d", "a", "i", "u", "e", "l",
];

/// Last letters read with a vowel in Estonian (`A` is "aa", `K` is "kaa", ...); the rest take an `i` link.
const VOWEL_SOUNDING: &str = "ABCDEGHIKOPQTUVWY";

/// `found` is the matched text, `full_name` is `"First Last"`, `replacer` the initials (`K.G`).
pub(crate) fn replacement(found: &str, full_name: &str, replacer: &str) -> String {
    let form = without_space(&lower(found));
    let name = without_space(&lower(full_name));
    let common = longest_common_block(&form, &name);
    let tail = if common.is_empty() {
        ""
    } else {
        form.split(common).last().unwrap_or("")
    };
    let vowel_sounding = replacer
        .trim_matches('.')
        .chars()
        .next_back()
        .is_some_and(|c| VOWEL_SOUNDING.contains(c));
    let punctuation = &form[form.trim_end_matches(|c: char| !is_word(c)).len()..];
    match ending(tail, vowel_sounding) {
        Some(ending) => format!("{replacer}-{ending}{punctuation}"),
        None => format!("{replacer}{punctuation}"),
    }
}

/// The ending to attach for the case ending found at the end of `tail`, if any.
fn ending(tail: &str, vowel_sounding: bool) -> Option<String> {
    let found = ENDINGS.iter().filter(|e| tail.ends_with(**e)).max_by_key(|e| e.len())?;
    let attached = match (*found, vowel_sounding) {
        ("d" | "t", true) => "d".to_string(),
        ("d" | "t" | "sse" | "a" | "i" | "u" | "e", false) => "i".to_string(),
        ("a" | "i" | "u" | "e", true) => return None,
        (other, true) => other.to_string(),
        (other, false) => format!("i{other}"),
    };
    Some(attached)
}

/// `difflib.SequenceMatcher(None, a, b).find_longest_match(...)` as a substring of `a`: the longest common
/// block, earliest in `a` (then in `b`), with difflib's auto-junk rule for `b` of 200+ characters.
fn longest_common_block<'a>(a: &'a str, b: &str) -> &'a str {
    let a_chars: Vec<(usize, char)> = a.char_indices().collect();
    let b_chars: Vec<char> = b.chars().collect();
    let popular = popular_chars(&b_chars);
    let (mut best_i, mut best_j, mut best_len) = (0usize, 0usize, 0usize);
    let mut prev = vec![0usize; b_chars.len() + 1];
    let mut cur = vec![0usize; b_chars.len() + 1];
    for (i, &(_, ca)) in a_chars.iter().enumerate() {
        for (j, &cb) in b_chars.iter().enumerate() {
            cur[j + 1] = if ca == cb && !popular.contains(&cb) { prev[j] + 1 } else { 0 };
            if cur[j + 1] > best_len {
                best_len = cur[j + 1];
                best_i = i + 1 - best_len;
                best_j = j + 1 - best_len;
            }
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    // difflib then extends the block over equal neighbours (popular characters included).
    while best_i > 0 && best_j > 0 && a_chars[best_i - 1].1 == b_chars[best_j - 1] {
        best_i -= 1;
        best_j -= 1;
        best_len += 1;
    }
    while best_i + best_len < a_chars.len()
        && best_j + best_len < b_chars.len()
        && a_chars[best_i + best_len].1 == b_chars[best_j + best_len]
    {
        best_len += 1;
    }
    let start = a_chars.get(best_i).map_or(a.len(), |&(p, _)| p);
    let end = a_chars.get(best_i + best_len).map_or(a.len(), |&(p, _)| p);
    &a[start..end]
}

/// difflib's auto-junk: in a sequence of 200+ items, items occurring more than 1% (+1) of the time.
fn popular_chars(b: &[char]) -> Vec<char> {
    if b.len() < 200 {
        return Vec::new();
    }
    let limit = b.len() / 100 + 1;
    let mut counts: std::collections::HashMap<char, usize> = std::collections::HashMap::new();
    for &c in b {
        *counts.entry(c).or_default() += 1;
    }
    counts.into_iter().filter(|&(_, n)| n > limit).map(|(c, _)| c).collect()
}
