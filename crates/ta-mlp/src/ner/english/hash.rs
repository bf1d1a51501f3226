//! The two hashes the English model was trained with: spaCy's string id (MurmurHash64A,
//! seed 1, over the UTF-8 bytes) and thinc's HashEmbed bucket hash (its MurmurHash3
//! variant for one 64-bit key, giving four 32-bit row keys).

/// spaCy's id of a string: the id of a built-in symbol (`spacy.symbols`), else MurmurHash64A
/// of its UTF-8 bytes with seed 1.
pub fn string_id(s: &str) -> u64 {
    symbol(s).unwrap_or_else(|| murmur64a(s.as_bytes(), 1))
}

/// The built-in symbols a lexical attribute can equal: those of at most three characters
/// (prefixes, suffixes, shapes) and the lower-case ones (norms).
fn symbol(s: &str) -> Option<u64> {
    Some(match s {
        "" => 0,
        "ID" => 64,
        "POS" => 74,
        "TAG" => 75,
        "DEP" => 76,
        "ADJ" => 84,
        "ADP" => 85,
        "ADV" => 86,
        "AUX" => 87,
        "DET" => 90,
        "NUM" => 93,
        "SYM" => 99,
        "X" => 101,
        "EOL" => 102,
        "ORG" => 383,
        "GPE" => 384,
        "LOC" => 385,
        "LAW" => 390,
        "acomp" => 398,
        "advcl" => 399,
        "advmod" => 400,
        "agent" => 401,
        "amod" => 402,
        "appos" => 403,
        "attr" => 404,
        "aux" => 405,
        "auxpass" => 406,
        "cc" => 407,
        "ccomp" => 408,
        "complm" => 409,
        "conj" => 410,
        "cop" => 411,
        "csubj" => 412,
        "csubjpass" => 413,
        "dep" => 414,
        "det" => 415,
        "dobj" => 416,
        "expl" => 417,
        "hmod" => 418,
        "hyph" => 419,
        "infmod" => 420,
        "intj" => 421,
        "iobj" => 422,
        "mark" => 423,
        "meta" => 424,
        "neg" => 425,
        "nmod" => 426,
        "nn" => 427,
        "npadvmod" => 428,
        "nsubj" => 429,
        "nsubjpass" => 430,
        "num" => 431,
        "number" => 432,
        "oprd" => 433,
        "obj" => 434,
        "obl" => 435,
        "parataxis" => 436,
        "partmod" => 437,
        "pcomp" => 438,
        "pobj" => 439,
        "poss" => 440,
        "possessive" => 441,
        "preconj" => 442,
        "prep" => 443,
        "prt" => 444,
        "punct" => 445,
        "quantmod" => 446,
        "relcl" => 447,
        "rcmod" => 448,
        "root" => 449,
        "xcomp" => 450,
        "acl" => 451,
        "IDX" => 455,
        "_" => 456,
        _ => return None,
    })
}

fn murmur64a(key: &[u8], seed: u64) -> u64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    const R: u32 = 47;
    let mut h = seed ^ (key.len() as u64).wrapping_mul(M);
    let mut chunks = key.chunks_exact(8);
    for chunk in &mut chunks {
        let mut k = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= (b as u64) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// thinc's `ops.hash` of one id: four 32-bit keys (rows are `key % rows`).
pub fn bucket_keys(id: u64, seed: u32) -> [u32; 4] {
    let fmix = |mut k: u64| {
        k ^= k >> 33;
        k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
        k ^= k >> 33;
        k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        k ^ (k >> 33)
    };
    let mut h1 = id.wrapping_mul(0x87c3_7b91_1142_53d5);
    h1 = h1.rotate_left(31);
    h1 = h1.wrapping_mul(0x4cf5_ad43_2745_937f);
    h1 ^= seed as u64;
    h1 ^= 8;
    let mut h2 = seed as u64 ^ 8;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    [h1 as u32, (h1 >> 32) as u32, h2 as u32, (h2 >> 32) as u32]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_ids_match_spacy() {
        // Values of spacy.strings.hash_string.
        assert_eq!(string_id("centre"), 17010352608710793005);
        assert_eq!(string_id("X"), 101);
        assert_eq!(string_id("num"), 431);
        assert_eq!(string_id("Xxxxx"), 16072095006890171862);
    }
}
