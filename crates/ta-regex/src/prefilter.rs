//! Literal prefilter for `regex`-crate units whose lexicon is a list of plain literals (the
//! common case: words and phrases without regex syntax).
//!
//! Every match of such a unit contains one of the entries, spelled in any of its case-fold
//! variants, at a known place: right at the match start (subword without return_fuzzy_match)
//! or after the `(?:\s|\A)` context (prefix, exact). A leftmost-first Aho-Corasick automaton
//! over all variants, in lexicon order, finds it: an unanchored search in the first case; in
//! the second, anchored walks of the automaton at the text start and after each whitespace
//! character, in text order, skipping places whose first bytes (as many as the shortest
//! spelling has, up to four) start no spelling. The automaton matches a superset of the
//! entries' language (ASCII letters in either case, every other character its exact simple
//! case-fold group), so no match can start before the place it reports.
//!
//! When the automaton is exact (no case-sensitive ASCII letter in the lexicon) and what
//! follows the entry is known (nothing, or `\w*`), the occurrence *is* the match: the
//! automaton's leftmost-first choice among entries starting there is the regex's, and the
//! regex is not run at all. Otherwise the unit's regex searches from the reported start.

use std::sync::OnceLock;

use aho_corasick::automaton::Automaton;
use aho_corasick::nfa::contiguous;
use aho_corasick::{dfa, dfa::DFA, AhoCorasick, Anchored, Input, MatchKind, StartKind};

use super::charset::{fold_set, CharSet};
use super::syntax::Node;

/// Most entry spellings (case-fold variants) one automaton is built for.
const MAX_VARIANTS: usize = 20_000;

/// Most bytes of spellings one automaton is built for (a few milliseconds to build): a
/// lexicon past it is matched by its regex alone.
const MAX_SPELLING_BYTES: usize = 256 << 10;

/// Where the entry occurrence sits in a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// The match starts at the occurrence.
    None,
    /// One whitespace character precedes the occurrence inside the match, or the occurrence
    /// starts the text (`(?:\s|\A)`).
    Space,
}

/// What follows the entry occurrence in a match, when no regex is needed to know it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tail {
    /// The match ends with the entry.
    Nothing,
    /// The match runs on over word characters (`\w*`).
    Word,
    /// The match ends with the entry, which non-word characters up to a whitespace character,
    /// or the text end, must follow (`(?:\W*\s|\z)`, outside the match). Taken only for a
    /// lexicon where no spelling is a prefix of another: then a place whose one spelling is
    /// not followed so has no match, without a regex to try the others.
    Boundary,
}

/// The outcome of a prefilter step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// The unit's next match (byte offsets).
    Match(usize, usize),
    /// The unit's regex finds the next match searching from here.
    SearchFrom(usize),
}

#[derive(Debug)]
pub struct Prefilter {
    finder: Finder,
    /// Set when the automaton reports matches itself.
    tail: Option<Tail>,
    /// [`Context::Space`]: which starts of `key_len` bytes can begin a spelling, so most word
    /// starts need no walk.
    starts: StartSet,
}

/// Leftmost-first automata over every spelling, in lexicon order.
#[derive(Debug)]
enum Finder {
    /// [`Context::None`]: unanchored searches.
    Unanchored(AhoCorasick),
    /// [`Context::Space`]: anchored walks at each place after whitespace that may start a
    /// spelling, stepped here rather than through a search call per place. A DFA up to
    /// [`MAX_DFA_BYTES`] of spellings, the (smaller, slower) contiguous NFA past that.
    Dfa(Box<DFA>),
    Nfa(Box<contiguous::NFA>),
}

/// Most bytes of spellings (so trie states) the anchored automaton is a DFA for: a few MB
/// of transitions at most, built in milliseconds.
const MAX_DFA_BYTES: usize = 16_384;

impl Prefilter {
    /// A prefilter for `body` (an unanchored lexicon alternation), if every alternative is a
    /// non-empty literal string with a manageable number of case-fold variants. `tail` is
    /// what follows the entry in a match, if that needs no regex.
    pub fn new(body: &Node, context: Context, tail: Option<Tail>) -> Option<Prefilter> {
        let seqs = literal_seqs(body)?;
        let exact = seqs.iter().flatten().all(|&(c, ci)| ci || !c.is_ascii_alphabetic());
        let (mut variants, mut bytes) = (Vec::new(), 0);
        for seq in &seqs {
            if seq.is_empty() {
                return None;
            }
            expand(seq, &mut variants, &mut bytes)?;
        }
        let finder = match context {
            Context::None => Finder::Unanchored(
                AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(&variants)
                    .ok()?,
            ),
            Context::Space if variants.iter().map(String::len).sum::<usize>() <= MAX_DFA_BYTES => Finder::Dfa(Box::new(
                dfa::Builder::new()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::LeftmostFirst)
                    .start_kind(StartKind::Anchored)
                    .build(&variants)
                    .ok()?,
            )),
            Context::Space => Finder::Nfa(Box::new(
                contiguous::NFA::builder()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(&variants)
                    .ok()?,
            )),
        };
        Some(Prefilter {
            finder,
            tail: tail.filter(|&t| exact && (t != Tail::Boundary || prefix_free(&variants))),
            starts: StartSet::new(&variants),
        })
    }

    /// The unit's next match at or after byte `pos`, or where its regex must search from;
    /// `None` when there is no match at or after `pos`.
    pub fn next(&self, text: &str, pos: usize) -> Option<Next> {
        let (start, end) = match &self.finder {
            Finder::Unanchored(ac) => {
                let hit = ac.find(Input::new(text).span(pos..text.len()))?;
                (hit.start(), hit.end())
            }
            Finder::Dfa(a) => after_space(a.as_ref(), &self.starts, text, pos, self.tail)?,
            Finder::Nfa(a) => after_space(a.as_ref(), &self.starts, text, pos, self.tail)?,
        };
        Some(match self.tail {
            None => Next::SearchFrom(start),
            Some(Tail::Nothing | Tail::Boundary) => Next::Match(start, end),
            Some(Tail::Word) => Next::Match(start, end + word_run(&text[end..])),
        })
    }
}

/// The leftmost `(?:\s|\A)` context at or after `pos` followed by a spelling of `a` (and, for
/// [`Tail::Boundary`], by what that needs): (context start, entry end). Contexts are tried in
/// the regex's order: at offset 0 a whitespace character (`\s`) before the text start (`\A`).
fn after_space(a: &impl Automaton, starts: &StartSet, text: &str, pos: usize, tail: Option<Tail>) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let entry = |q| entry_at(a, starts, bytes, q).filter(|&end| tail != Some(Tail::Boundary) || at_boundary(text, end));
    let mut i = pos;
    if pos == 0 {
        let len = space_len(text, 0);
        if let Some(end) = (len > 0).then(|| entry(len)).flatten() {
            return Some((0, end));
        }
        if let Some(end) = entry(0) {
            return Some((0, end));
        }
        i = len;
    }
    while i < bytes.len() {
        let mut leads = space_leads(bytes, i);
        while leads != 0 {
            let at = i + leads.trailing_zeros() as usize;
            leads &= leads - 1;
            let len = if bytes[at].is_ascii() { 1 } else { space_len(text, at) };
            if let Some(end) = (len > 0).then(|| entry(at + len)).flatten() {
                return Some((at, end));
            }
        }
        i += 64;
    }
    None
}

/// End of the preferred spelling that starts at byte `q`, if any: the automaton stepped byte
/// by byte until it dies, keeping the last match (leftmost-first automata stop extending a
/// match once no preferred spelling can follow). A state also carries the matches of the
/// spellings that end it as suffixes (for unanchored searches): only a spelling as long as
/// the walk, one that starts at `q`, counts.
#[inline(always)]
fn entry_at(a: &impl Automaton, starts: &StartSet, bytes: &[u8], q: usize) -> Option<usize> {
    if !starts.may_start(bytes.get(q..)?) {
        return None;
    }
    let mut sid = a.start_state(Anchored::Yes).ok()?;
    let mut end = None;
    for (i, &b) in bytes.get(q..)?.iter().enumerate() {
        sid = a.next_state(Anchored::Yes, sid, b);
        if a.is_special(sid) {
            if a.is_dead(sid) {
                break;
            }
            if a.is_match(sid) && a.pattern_len(a.match_pattern(sid, 0)) == i + 1 {
                end = Some(q + i + 1);
            }
        }
    }
    end
}

/// Non-zero for the first byte of a whitespace character: ASCII `\t`..`\r` and space, and
/// the lead bytes of the non-ASCII ones (U+0085, U+00A0, U+1680, U+2000..U+3000).
static SPACE_LEADS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = matches!(b as u8, b'\t'..=b'\r' | b' ' | 0xC2 | 0xE1 | 0xE2 | 0xE3) as u8;
        b += 1;
    }
    t
};

/// Bit `j` set when `bytes[i + j]` is a whitespace lead byte ([`SPACE_LEADS`]), for the 64
/// bytes from `i` (fewer at the end). Sixteen bytes at a time where SSE2 is there (always, on
/// x86-64), else byte by byte: a per-byte loop to each next whitespace mispredicted its exit
/// at every word and took most of a text's scan; a mask is walked bit by bit.
#[inline(always)]
fn space_leads(bytes: &[u8], i: usize) -> u64 {
    let rest = &bytes[i..];
    let mut padded = [0u8; 64];
    let block = match rest.first_chunk::<64>() {
        Some(block) => block,
        None => {
            padded[..rest.len()].copy_from_slice(rest);
            &padded
        }
    };
    #[cfg(target_arch = "x86_64")]
    {
        let quarters = block.as_chunks::<16>().0;
        quarters
            .iter()
            .rev()
            .fold(0, |mask, q| (mask << 16) | u64::from(sse2::space_leads(q)))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        block
            .iter()
            .rev()
            .fold(0, |mask, &b| (mask << 1) | u64::from(SPACE_LEADS[b as usize]))
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    /// Bit `j` set when `block[j]` is a whitespace lead byte (as in [`super::SPACE_LEADS`]).
    #[inline(always)]
    pub fn space_leads(block: &[u8; 16]) -> u32 {
        // SAFETY: SSE2 is part of the x86-64 baseline; the load reads the 16 bytes of `block`.
        unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast());
            let below = |shift: u8, bound: i8| _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(shift as i8)), _mm_set1_epi8(bound));
            let space = _mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8));
            let nbsp_or_next_line = _mm_cmpeq_epi8(v, _mm_set1_epi8(0xC2u8 as i8));
            // Shifted so that the range starts at -128, the only bytes below the bound.
            let controls = below(0x80 - b'\t', -128 + 5); // \t..=\r
            let three_byte = below(0x80u8.wrapping_sub(0xE1), -128 + 3); // 0xE1..=0xE3
            let any = _mm_or_si128(_mm_or_si128(space, nbsp_or_next_line), _mm_or_si128(controls, three_byte));
            _mm_movemask_epi8(any) as u32
        }
    }
}

/// Byte length of the whitespace character at byte `i` (a char boundary), or 0.
fn space_len(text: &str, i: usize) -> usize {
    match text.as_bytes().get(i) {
        Some(b) if b.is_ascii() => usize::from(SPACE_LEADS[*b as usize] != 0),
        Some(_) => text[i..].chars().next().filter(|c| c.is_whitespace()).map_or(0, char::len_utf8),
        None => 0,
    }
}

/// The first `key_len` bytes (ASCII letters folded to lower case) of every spelling, as
/// bits of a hashed table: `key_len` is the shortest spelling's length, at most 4.
struct StartSet {
    key_len: usize,
    bits: Vec<u64>,
}

impl std::fmt::Debug for StartSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StartSet({} bytes)", self.key_len)
    }
}

/// Bits in the [`StartSet`] table (a few false positives per thousand for a 200-entry lexicon).
const START_BITS: u32 = 16;

impl StartSet {
    fn new(variants: &[String]) -> StartSet {
        let key_len = variants.iter().map(String::len).min().unwrap_or(1).clamp(1, 4);
        let mut set = StartSet {
            key_len,
            bits: vec![0u64; 1 << (START_BITS - 6)],
        };
        for v in variants {
            let slot = set.slot(v.as_bytes()).expect("no spelling is shorter than the key");
            set.bits[slot >> 6] |= 1 << (slot & 63);
        }
        set
    }

    /// The table slot of the first `key_len` bytes of `rest` (ASCII letters lower-cased,
    /// four at a time), if it has that many.
    #[inline(always)]
    fn slot(&self, rest: &[u8]) -> Option<usize> {
        let word = match rest.first_chunk::<4>() {
            Some(four) => u32::from_le_bytes(*four),
            None => {
                let mut four = [0u8; 4];
                four[..self.key_len].copy_from_slice(rest.get(..self.key_len)?);
                u32::from_le_bytes(four)
            }
        };
        let word = word & (u32::MAX >> (32 - 8 * self.key_len as u32));
        // Bytes 'A'..='Z' get 0x20 added: the high bit of (b & 0x7f) + (0x80 - 'A') is set
        // for b >= 'A', that of (b & 0x7f) + (0x80 - 'Z' - 1) for b > 'Z' (b < 0x80 only).
        let low7 = word & 0x7f7f_7f7f;
        let at_least_a = low7 + 0x3f3f_3f3f;
        let past_z = low7 + 0x2525_2525;
        let upper = at_least_a & !past_z & !word & 0x8080_8080;
        let word = word | (upper >> 2);
        Some((word.wrapping_mul(0x9E37_79B1) >> (32 - START_BITS)) as usize)
    }

    /// False when no spelling starts `rest`.
    #[inline(always)]
    fn may_start(&self, rest: &[u8]) -> bool {
        self.slot(rest).is_some_and(|slot| self.bits[slot >> 6] & (1 << (slot & 63)) != 0)
    }
}

/// Whether `(?:\W*\s|\z)` matches at byte `end` of `text`: the text ends there, or the
/// non-word characters from there include a whitespace character (as the `regex` crate's
/// Unicode classes have it).
fn at_boundary(text: &str, end: usize) -> bool {
    let rest = &text[end..];
    rest.is_empty()
        || rest
            .chars()
            .find(|&c| c.is_whitespace() || regex_syntax::is_word_character(c))
            .is_some_and(char::is_whitespace)
}

/// Whether no spelling is a longer spelling's prefix (ASCII case ignored, as the automaton
/// does).
fn prefix_free(variants: &[String]) -> bool {
    let mut folded: Vec<Vec<u8>> = variants.iter().map(|v| v.as_bytes().to_ascii_lowercase()).collect();
    folded.sort_unstable();
    folded.dedup();
    folded.windows(2).all(|w| !w[1].starts_with(&w[0]))
}

/// Byte length of the `\w*` run that starts `s` (ASCII inline, the rest by the `regex` crate).
fn word_run(s: &str) -> usize {
    static WORD_RUN: OnceLock<regex::Regex> = OnceLock::new();
    let ascii = s.bytes().position(|b| !(b.is_ascii_alphanumeric() || b == b'_')).unwrap_or(s.len());
    if s.as_bytes().get(ascii).is_none_or(u8::is_ascii) {
        return ascii;
    }
    let re = WORD_RUN.get_or_init(|| regex::Regex::new(r"\A\w*").expect("valid pattern"));
    ascii + re.find(&s[ascii..]).map_or(0, |m| m.end())
}

/// A literal character and whether it ignores case.
type Lit = (char, bool);

/// The literal strings `node` matches, if it is an alternation/concatenation of literals.
fn literal_seqs(node: &Node) -> Option<Vec<Vec<Lit>>> {
    match node {
        Node::Empty => Some(vec![Vec::new()]),
        Node::Lit { c, ci } => Some(vec![vec![(*c, *ci)]]),
        Node::Group(n) => literal_seqs(n),
        Node::Alt(v) => {
            let mut out = Vec::new();
            for n in v {
                out.extend(literal_seqs(n)?);
            }
            Some(out)
        }
        Node::Concat(v) => v.iter().try_fold(vec![Vec::new()], |acc, n| {
            let tails = literal_seqs(n)?;
            if acc.len() * tails.len() > MAX_VARIANTS {
                return None;
            }
            Some(
                acc.iter()
                    .flat_map(|head| tails.iter().map(move |t| [head.as_slice(), t].concat()))
                    .collect(),
            )
        }),
        _ => None,
    }
}

/// Appends every spelling of `seq` to `out`; `None` past [`MAX_VARIANTS`] spellings or
/// [`MAX_SPELLING_BYTES`] in all. Each position's choices are looked up once.
fn expand(seq: &[Lit], out: &mut Vec<String>, bytes: &mut usize) -> Option<()> {
    let choices = seq.iter().map(|&(c, ci)| choices(c, ci)).collect::<Option<Vec<_>>>()?;
    let mut spellings = vec![String::new()];
    for position in &choices {
        let count = spellings.len() * position.len();
        // Every spelling has at least a byte per character.
        if out.len() + count > MAX_VARIANTS || *bytes + count * seq.len() > MAX_SPELLING_BYTES {
            return None;
        }
        spellings = spellings
            .iter()
            .flat_map(|prefix| position.iter().map(move |&c| format!("{prefix}{c}")))
            .collect();
    }
    *bytes += spellings.iter().map(String::len).sum::<usize>();
    if *bytes > MAX_SPELLING_BYTES {
        return None;
    }
    out.extend(spellings);
    Some(())
}

/// The characters a literal may be spelled with: its simple case-fold group when it ignores
/// case (one ASCII letter of each: the automaton ignores ASCII case), else itself; `None`
/// for a group too large to spell out.
fn choices(c: char, ci: bool) -> Option<Vec<char>> {
    if !ci {
        return Some(vec![c]);
    }
    let CharSet::Small(folds) = &*fold_set(c) else {
        return None;
    };
    let mut seen_ascii = false;
    Some(
        folds
            .iter()
            .copied()
            .filter(|f| !f.is_ascii_alphabetic() || !std::mem::replace(&mut seen_ascii, true))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::super::syntax::parse;
    use super::*;

    fn prefilter(pattern: &str, ci: bool, context: Context, tail: Option<Tail>) -> Option<Prefilter> {
        Prefilter::new(&parse(pattern, ci).unwrap(), context, tail)
    }

    #[test]
    fn only_plain_literal_lexicons() {
        assert!(prefilter("kass|koer|big dog", true, Context::Space, None).is_some());
        assert!(prefilter(r"kass|ko\w+", true, Context::Space, None).is_none());
        assert!(prefilter("kass|", true, Context::Space, None).is_none());
    }

    #[test]
    fn start_of_first_possible_match() {
        let p = prefilter("kass|koer", true, Context::Space, None).unwrap();
        assert_eq!(p.next("KASS on", 0), Some(Next::SearchFrom(0)));
        assert_eq!(p.next("a xkass, a\u{a0}Koer", 0), Some(Next::SearchFrom(10)));
        assert_eq!(p.next(" kass", 1), None);
        assert_eq!(p.next("no match", 0), None);
        let p = prefilter("kass", true, Context::None, None).unwrap();
        assert_eq!(p.next("xkass", 0), Some(Next::SearchFrom(1)));
    }

    #[test]
    fn unicode_case_fold_variants() {
        let p = prefilter("kass|šokk|ѕ", true, Context::Space, None).unwrap();
        assert_eq!(p.next("\u{212A}ASS", 0), Some(Next::SearchFrom(0)));
        assert_eq!(p.next("x ŠOKK", 0), Some(Next::SearchFrom(1)));
        assert_eq!(p.next("x Ѕ", 0), Some(Next::SearchFrom(1)));
        assert!(prefilter("kass", false, Context::Space, None)
            .unwrap()
            .next("\u{212A}ass", 0)
            .is_none());
    }

    #[test]
    fn whitespace_leads() {
        for c in (0..=char::MAX as u32).filter_map(char::from_u32).filter(|c| c.is_whitespace()) {
            assert_ne!(SPACE_LEADS[c.to_string().as_bytes()[0] as usize], 0, "{c:?}");
            assert_eq!(space_len(&c.to_string(), 0), c.len_utf8());
        }
        assert_eq!(space_len("\u{85}", 0), 2);
        assert_eq!(space_len("\u{1c}x\u{200b}", 0) + space_len("\u{200b}", 0), 0);
        let p = prefilter("b|a", true, Context::Space, None).unwrap();
        assert_eq!(p.next(" a\u{2003}b", 0), Some(Next::SearchFrom(0)));
        assert_eq!(p.next(" a\u{2003}b", 1), Some(Next::SearchFrom(2)));
        assert_eq!(p.next("a b", 1), Some(Next::SearchFrom(1)));
        assert_eq!(p.next("a b", 2), None);
    }

    #[test]
    fn space_leads_are_found_at_every_offset() {
        for lead in 0..=255u8 {
            for len in [1, 63, 64, 65, 100] {
                for at in 0..len {
                    let mut bytes = vec![b'x'; len];
                    bytes[at] = lead;
                    let is_lead = SPACE_LEADS[lead as usize] != 0;
                    for from in (0..=at).filter(|from| at - from < 64) {
                        let want = if is_lead { 1 << (at - from) } else { 0 };
                        assert_eq!(space_leads(&bytes, from), want, "{lead:#x} at {at} from {from} of {len}");
                    }
                }
            }
        }
    }

    #[test]
    fn start_keys_ignore_ascii_case_only() {
        let set = StartSet::new(&["abcd".into()]);
        for bytes in 0..=255u8 {
            let key = [b'a', bytes, b'c', b'd', b'!'];
            let folded = bytes == b'b' || bytes == b'B';
            assert_eq!(set.slot(&key) == set.slot(b"abcd"), folded, "{bytes:#x}");
        }
        let short = StartSet::new(&["Ab".into(), "abc".into()]);
        assert_eq!(short.key_len, 2);
        assert!(short.may_start(b"aB") && short.may_start(b"AB, x") && !short.may_start(b"a"));
    }

    #[test]
    fn large_lexicons_walk_the_nfa_alike() {
        let words: Vec<String> = (0..MAX_DFA_BYTES / 6 + 500).map(|i| format!("w{i:05}")).collect();
        for n in [10, words.len()] {
            let p = prefilter(&words[..n].join("|"), true, Context::Space, Some(Tail::Word)).unwrap();
            assert!(matches!((n, &p.finder), (10, Finder::Dfa(_)) | (_, Finder::Nfa(_))));
            assert_eq!(p.next("x W00007ab w00003", 0), Some(Next::Match(1, 10)));
            assert_eq!(p.next("x W00007ab w00003", 2), Some(Next::Match(10, 17)));
            assert_eq!(p.next("x w99999", 0), None);
        }
    }

    #[test]
    fn long_case_variant_sets_get_the_nfa_or_no_prefilter() {
        // 1,728 spellings of an entry of 9 cased Cyrillic letters (groups of 2 and 3) and a
        // tail: a DFA over them took half a second to build under the fuzzer, and spelling
        // them out took seconds when each letter's group was looked up per spelling.
        let entry = |tail: usize| format!("мсбашкасо{}", "\u{fffd}".repeat(tail));
        let start = std::time::Instant::now();
        let p = prefilter(&entry(24), true, Context::Space, None).unwrap();
        assert!(matches!(p.finder, Finder::Nfa(_)));
        let text = format!("x МсБАШКАСо{}", "\u{fffd}".repeat(24));
        assert_eq!(p.next(&text, 0), Some(Next::SearchFrom(1)));
        // Past MAX_SPELLING_BYTES (1,728 spellings of 163 bytes): the regex alone.
        assert!(prefilter(&entry(48), true, Context::Space, None).is_none());
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn walks_agree_with_the_unit_regexes() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(15);
        let letters = ['a', 'b', 'A', 'é', 'É', 'ß', '1', '_', '-'];
        let text_chars = [
            'a', 'b', 'B', 'é', 'É', 'ß', '1', '_', '-', ' ', '\u{a0}', '\n', '.', '!', '\u{2003}',
        ];
        let pick = |set: &[char], rng: &mut rand::rngs::Xoshiro256PlusPlus, max: usize| -> String {
            (0..rng.random_range(1..=max))
                .map(|_| set[rng.random_range(0..set.len())])
                .collect()
        };
        // The prefix (with and without `\w*`) and exact units' patterns, and the group that
        // is their match.
        let units = [
            (Some(Tail::Word), r"(?:\s|\A)(?:{})\w*", 0),
            (Some(Tail::Nothing), r"(?:\s|\A)(?:{})", 0),
            (Some(Tail::Boundary), r"((?:\s|\A)(?:{}))(?:\W*\s|\z)", 1),
            (None, r"(?:\s|\A)(?:{})\w*", 0),
        ];
        let mut checked = 0;
        for _ in 0..2000 {
            let lexicon: Vec<String> = (0..rng.random_range(1..4)).map(|_| pick(&letters, &mut rng, 3)).collect();
            let ci = rng.random_bool(0.5);
            let (tail, pattern, group) = units[rng.random_range(0..units.len())];
            let body = parse(&lexicon.join("|"), ci).unwrap();
            let Some(p) = Prefilter::new(&body, Context::Space, tail) else {
                continue;
            };
            let mut emitted = String::new();
            super::super::syntax::emit(&body, &mut emitted);
            let re = regex::Regex::new(&pattern.replace("{}", &emitted)).unwrap();
            let regex_from = |pos: usize, text: &str| {
                re.captures_at(text, pos)
                    .map(|c| c.get(group).map(|g| (g.start(), g.end())).unwrap())
            };
            for _ in 0..20 {
                let text = pick(&text_chars, &mut rng, 12);
                for pos in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                    let got = match p.next(&text, pos) {
                        None => None,
                        Some(Next::Match(s, e)) => Some((s, e)),
                        Some(Next::SearchFrom(from)) => regex_from(from, &text),
                    };
                    assert_eq!(got, regex_from(pos, &text), "{lexicon:?} ci {ci} {tail:?} in {text:?} from {pos}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
        // A lexicon with a spelling that prefixes another leaves the choice to the regex.
        let p = prefilter("ab|abc", true, Context::Space, Some(Tail::Boundary)).unwrap();
        assert_eq!(p.next("x abc", 0), Some(Next::SearchFrom(1)));
        let p = prefilter("abc|bc", true, Context::Space, Some(Tail::Boundary)).unwrap();
        assert_eq!(p.next("abc- x", 0), Some(Next::Match(0, 3)));
        assert_eq!(p.next("abcd abc!", 0), None);
    }

    #[test]
    fn a_spelling_inside_another_is_no_match_at_its_start() {
        // "ass" ends "kass", a prefix of "kassid": the walk from "k" passes a state that
        // carries "ass" for unanchored searches.
        for tail in [Some(Tail::Word), Some(Tail::Nothing), Some(Tail::Boundary)] {
            let p = prefilter("kassid|ass", true, Context::Space, tail).unwrap();
            assert_eq!(p.next("x kassa", 0), None, "{tail:?}");
            assert_eq!(p.next("x kassid", 0), Some(Next::Match(1, 8)), "{tail:?}");
        }
        let words: Vec<String> = (0..MAX_DFA_BYTES / 6 + 500).map(|i| format!("w{i:05}")).collect();
        let p = prefilter(&format!("kassid|ass|{}", words.join("|")), true, Context::Space, None).unwrap();
        assert!(matches!(p.finder, Finder::Nfa(_)));
        assert_eq!(p.next("x kassa", 0), None);
    }

    #[test]
    fn space_before_text_start() {
        let p = prefilter(r"\ fo|foo-x", true, Context::Space, Some(Tail::Word)).unwrap();
        assert_eq!(p.next(" foo-x", 0), Some(Next::Match(0, 6)));
    }

    #[test]
    fn reports_matches_when_exact() {
        let p = prefilter("ab|ab c", true, Context::Space, Some(Tail::Word)).unwrap();
        assert_eq!(p.next("x Ab cd", 0), Some(Next::Match(1, 4)));
        assert_eq!(p.next("abõ_1-x", 0), Some(Next::Match(0, 6)));
        let p = prefilter("ab c|ab", true, Context::Space, Some(Tail::Nothing)).unwrap();
        assert_eq!(p.next("x ab cd", 0), Some(Next::Match(1, 6)));
        let p = prefilter("ab", false, Context::Space, Some(Tail::Word)).unwrap();
        assert_eq!(p.next("AB", 0), Some(Next::SearchFrom(0)));
    }
}
