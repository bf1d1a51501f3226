//! The lexicon matcher: builds one pattern per "unit" exactly as `texta-lexicon-matcher` 2.0.0
//! does (LEFT + BODY + RIGHT per match type, optional fuzzy group, phrase-slop expansion), runs
//! each unit with the `regex` crate when the pattern allows it (the look-around contexts are
//! rewritten into equivalent consuming forms) and with the backtracking engine otherwise, then
//! applies span trimming, counter-lexicon cancellation and the `and`/`required_words` logic.
//! Units whose lexicon is plain literals get a [`Prefilter`] that skips to the places a match
//! can start, or finds the matches itself (prefix and subword lexicons of literal words).

use std::time::{Duration, Instant};

use super::backtrack::Program;
use super::prefilter::{Context, Next, Prefilter, Tail};
use super::syntax::{self, Node};
use super::{CompileError, Match, MatchError, MatchType, MatcherConfig, Operator};
use ta_text::pytext::{is_space, repr, strip};

/// Limit for the compiled size of one `regex`-crate unit.
const REGEX_SIZE_LIMIT: usize = 64 << 20;

/// Default per-text time budget of [`Matcher::find`].
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// How a `regex`-crate unit reports the Python match.
#[derive(Debug)]
enum Report {
    /// The whole regex match is the Python match.
    Whole,
    /// Capture group 1 is the Python match (a consumed look-ahead follows it).
    Group,
    /// Subword: group 1 after one consumed context character (`\W`), searched from one character
    /// before the resume position; `first` (with `\A` as alternative context) serves position 0.
    Subword { first: regex::Regex },
}

#[derive(Debug)]
enum Engine {
    Fast {
        re: regex::Regex,
        report: Report,
        /// Skips to the first place a match can start (plain literal lexicons).
        prefilter: Option<Prefilter>,
    },
    Backtrack(Program),
}

/// One compiled unit (an `or` lexicon, one `and` entry, or the counter lexicon).
#[derive(Debug)]
struct Unit {
    engine: Engine,
}

/// A raw match in both byte and char offsets.
#[derive(Clone, Copy, Debug)]
struct Raw {
    bytes: (usize, usize),
    chars: (usize, usize),
}

/// A compiled lexicon matcher; immutable, `Send + Sync`.
#[derive(Debug)]
pub struct Matcher {
    /// The distinct units: an `and` lexicon's repeated entries share theirs.
    units: Vec<Unit>,
    /// Each entry's unit (an `or` lexicon's one unit once), in lexicon order.
    entry_units: Vec<usize>,
    counter: Option<Unit>,
    operator: Operator,
    required_words: f64,
    counter_slop: i64,
    ignore_punctuation: bool,
    timeout: Duration,
    /// Whether a unit runs on the backtracking engine (only those read the clock).
    backtracks: bool,
}

impl Matcher {
    /// Compiles a configuration. Lexicon entries are trimmed (as the reference serializer does);
    /// an empty lexicon or an entry that is not a valid pattern is an error on that field.
    pub fn compile(cfg: &MatcherConfig) -> Result<Matcher, CompileError> {
        let lexicon = trimmed(&cfg.lexicon);
        let counter = trimmed(&cfg.counter_lexicon);
        if lexicon.is_empty() {
            return Err(CompileError {
                field: "lexicon",
                message: "This list may not be empty.".into(),
            });
        }
        validate_entries("lexicon", &lexicon, cfg.ignore_case)?;
        validate_entries("counter_lexicon", &counter, cfg.ignore_case)?;
        let bodies = expand_slop(&lexicon, cfg);
        let (units, entry_units) = match cfg.operator {
            Operator::Or => (vec![Unit::build(&bodies.join("|"), cfg.match_type, cfg, "lexicon")?], vec![0]),
            Operator::And => {
                // A repeated entry is compiled once (each unit compiles `\w`-sized regexes).
                let mut first_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
                let mut units = Vec::new();
                let mut entry_units = Vec::with_capacity(bodies.len());
                for body in &bodies {
                    let unit = match first_of.get(body.as_str()) {
                        Some(&unit) => unit,
                        None => {
                            units.push(Unit::build(body, cfg.match_type, cfg, "lexicon")?);
                            first_of.insert(body, units.len() - 1);
                            units.len() - 1
                        }
                    };
                    entry_units.push(unit);
                }
                (units, entry_units)
            }
        };
        let counter = if counter.is_empty() {
            None
        } else {
            Some(Unit::build(
                &expand_slop(&counter, cfg).join("|"),
                MatchType::Exact,
                cfg,
                "counter_lexicon",
            )?)
        };
        let backtracks = units.iter().chain(&counter).any(|u| matches!(u.engine, Engine::Backtrack(_)));
        Ok(Matcher {
            units,
            entry_units,
            counter,
            operator: cfg.operator,
            required_words: cfg.required_words,
            counter_slop: cfg.counter_slop,
            ignore_punctuation: cfg.ignore_punctuation,
            timeout: DEFAULT_TIMEOUT,
            backtracks,
        })
    }

    /// Sets the per-text time budget of [`Matcher::find`].
    pub fn with_timeout(mut self, timeout: Duration) -> Matcher {
        self.timeout = timeout;
        self
    }

    /// All matches in `text` (matched as given: callers trim request texts, not document fields).
    pub fn find(&self, text: &str) -> Result<Vec<Match>, MatchError> {
        let mut ctx = TextCtx::new(text, self.backtracks.then(|| Instant::now() + self.timeout));
        // Counter matches are looked for only once a unit has matched: a text without
        // lexicon matches needs no second scan.
        let mut counters: Option<Vec<Raw>> = None;
        let mut out = Vec::new();
        let mut found_units = 0usize;
        for &unit in &self.entry_units {
            let unit = &self.units[unit];
            let before = out.len();
            for raw in unit.find_all(&mut ctx)? {
                let m = trim_raw(text, raw);
                let counters = match &mut counters {
                    Some(found) => found,
                    None => counters.insert(match &self.counter {
                        Some(unit) => unit.find_all(&mut ctx)?.into_iter().map(|c| trim_raw(text, c)).collect(),
                        None => Vec::new(),
                    }),
                };
                if !counters.iter().any(|c| self.cancels(text, c, &m)) {
                    out.push(to_match(text, m));
                }
            }
            if out.len() > before {
                found_units += 1;
            } else if self.operator == Operator::And && self.required_words == 1.0 {
                break;
            }
        }
        if self.operator == Operator::And && (found_units as f64 / self.entry_units.len() as f64) < self.required_words {
            out.clear();
        }
        Ok(out)
    }

    /// Whether counter match `k` cancels match `m` (both trimmed).
    fn cancels(&self, text: &str, k: &Raw, m: &Raw) -> bool {
        let gap = if k.chars.1 < m.chars.0 {
            py_slice(text, k.bytes.1, m.bytes.0)
        } else if k.chars.0 > m.chars.1 {
            py_slice(text, m.bytes.1, k.bytes.0)
        } else {
            return false;
        };
        let gap = strip(gap);
        // Words are counted only up to one past the slop (the gap may be most of a long
        // text), and only a gap within the slop is looked at for sentence punctuation.
        let Ok(slop) = usize::try_from(self.counter_slop) else {
            return false;
        };
        let words = gap
            .split(is_space)
            .filter(|w| !w.is_empty() && !matches!(*w, "." | "!" | "?"))
            .take(slop + 1)
            .count();
        words <= slop && (self.ignore_punctuation || !gap.contains(['.', '!', '?']))
    }
}

fn trimmed(entries: &[String]) -> Vec<String> {
    entries.iter().map(|e| strip(e).to_string()).collect()
}

/// Every entry must compile on its own; errors are listed in the reference's wording.
fn validate_entries(field: &'static str, entries: &[String], ignore_case: bool) -> Result<(), CompileError> {
    let errors: Vec<String> = entries
        .iter()
        .filter_map(|e| {
            syntax::parse(e, ignore_case)
                .err()
                .map(|err| format!("{{'pattern': {}, 'error': {}}}", repr(e), repr(&err.0)))
        })
        .collect();
    if errors.is_empty() {
        return Ok(());
    }
    Err(CompileError {
        field,
        message: format!("Invalid regex pattern(s): [{}]", errors.join(", ")),
    })
}

/// Phrase-slop expansion: entry words re-joined with the slop pattern.
fn expand_slop(entries: &[String], cfg: &MatcherConfig) -> Vec<String> {
    if cfg.phrase_slop == 0 {
        return entries.to_vec();
    }
    let token = if cfg.ignore_punctuation { r"\S" } else { "[^!.?;: ]" };
    let joiner = format!(r"\s*({}+\s+){{,{}}}", token, cfg.phrase_slop);
    entries
        .iter()
        .map(|e| e.split(is_space).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(&joiner))
        .collect()
}

impl Unit {
    fn build(body: &str, match_type: MatchType, cfg: &MatcherConfig, field: &'static str) -> Result<Unit, CompileError> {
        let error = |message: String| CompileError {
            field,
            message: format!(
                "Invalid regex pattern(s): [{{'pattern': {}, 'error': {}}}]",
                repr(body),
                repr(&message)
            ),
        };
        let body_ast = syntax::parse(body, cfg.ignore_case).map_err(|e| error(e.0))?;
        if cfg.n_allowed_edits <= 0 && syntax::is_plain(&body_ast) {
            return Self::fast(&body_ast, match_type, cfg.return_fuzzy_match).map_err(|e| error(e.to_string()));
        }
        let full = full_pattern(body, match_type, cfg);
        let ast = syntax::parse(&full, cfg.ignore_case).map_err(|e| error(e.0))?;
        Ok(Unit {
            engine: Engine::Backtrack(Program::new(&ast)),
        })
    }

    /// The `regex`-crate form of a unit, with look-arounds rewritten as consuming contexts.
    fn fast(body: &Node, match_type: MatchType, rfm: bool) -> Result<Unit, regex::Error> {
        let mut b = String::new();
        syntax::emit(body, &mut b);
        let compile = |p: &str| {
            regex::RegexBuilder::new(p)
                .size_limit(REGEX_SIZE_LIMIT)
                .dfa_size_limit(REGEX_SIZE_LIMIT)
                .build()
        };
        let (pattern, report, prefilter) = match (match_type, rfm) {
            (MatchType::Prefix, true) => (
                format!(r"(?:\s|\A)(?:{})\w*", b),
                Report::Whole,
                Prefilter::new(body, Context::Space, Some(Tail::Word)),
            ),
            (MatchType::Prefix, false) => (
                format!(r"(?:\s|\A)(?:{})", b),
                Report::Whole,
                Prefilter::new(body, Context::Space, Some(Tail::Nothing)),
            ),
            (MatchType::Exact, _) => (
                format!(r"((?:\s|\A)(?:{}))(?:\W*\s|\z)", b),
                Report::Group,
                Prefilter::new(body, Context::Space, Some(Tail::Boundary)),
            ),
            (MatchType::Subword, true) => {
                let first = compile(&format!(r"(?:\A|\W)(\w*(?:{})\w*)", b))?;
                (format!(r"\W(\w*(?:{})\w*)", b), Report::Subword { first }, None)
            }
            (MatchType::Subword, false) => (b, Report::Whole, Prefilter::new(body, Context::None, Some(Tail::Nothing))),
        };
        Ok(Unit {
            engine: Engine::Fast {
                re: compile(&pattern)?,
                report,
                prefilter,
            },
        })
    }

    /// All non-overlapping matches, left to right (an empty match advances one character).
    fn find_all(&self, ctx: &mut TextCtx) -> Result<Vec<Raw>, MatchError> {
        let mut out = Vec::new();
        let mut pos = 0usize;
        while pos <= ctx.text.len() {
            let Some((s, e)) = self.search(ctx, pos)? else {
                break;
            };
            out.push(ctx.raw(s, e));
            pos = if e > s {
                e
            } else if e < ctx.text.len() {
                next_boundary(ctx.text, e)
            } else {
                break;
            };
        }
        Ok(out)
    }

    /// Next match (byte offsets) with the search resuming at byte `pos`.
    fn search(&self, ctx: &mut TextCtx, pos: usize) -> Result<Option<(usize, usize)>, MatchError> {
        match &self.engine {
            Engine::Fast { re, report, prefilter } => {
                let from = match prefilter.as_ref().map(|p| p.next(ctx.text, pos)) {
                    None => pos,
                    Some(None) => return Ok(None),
                    Some(Some(Next::Match(s, e))) => return Ok(Some((s, e))),
                    Some(Some(Next::SearchFrom(from))) => from,
                };
                Ok(fast_search(re, report, ctx.text, from))
            }
            Engine::Backtrack(prog) => {
                let from = ctx.char_of(pos);
                let deadline = ctx.deadline.expect("set when a unit backtracks");
                let found = prog.search(ctx.chars(), from, deadline).map_err(|_| MatchError::Timeout)?;
                Ok(found.map(|(s, e)| (ctx.byte_of(s), ctx.byte_of(e))))
            }
        }
    }
}

fn fast_search(re: &regex::Regex, report: &Report, text: &str, pos: usize) -> Option<(usize, usize)> {
    let group1 = |re: &regex::Regex, at: usize| {
        let mut locs = re.capture_locations();
        re.captures_read_at(&mut locs, text, at)?;
        locs.get(1)
    };
    match report {
        Report::Whole => re.find_at(text, pos).map(|m| (m.start(), m.end())),
        Report::Group => group1(re, pos),
        Report::Subword { first } if pos == 0 => group1(first, 0),
        Report::Subword { .. } => group1(re, prev_boundary(text, pos)),
    }
}

fn next_boundary(text: &str, pos: usize) -> usize {
    pos + text[pos..].chars().next().map_or(1, char::len_utf8)
}

fn prev_boundary(text: &str, pos: usize) -> usize {
    pos - text[..pos].chars().next_back().map_or(0, char::len_utf8)
}

/// The reference's pattern string for the backtracking engine (same text as the Python code,
/// except that the always-true look-behind of subword without return_fuzzy_match is dropped).
fn full_pattern(body: &str, match_type: MatchType, cfg: &MatcherConfig) -> String {
    let body = if cfg.n_allowed_edits > 0 {
        format!("({}){{1i+1d+1s<={}}}", body, cfg.n_allowed_edits)
    } else {
        body.to_string()
    };
    let rfm = cfg.return_fuzzy_match;
    let left = match (match_type, rfm) {
        (MatchType::Subword, true) => r"(?<=(^|\W))(?:\w*(",
        (MatchType::Subword, false) => r"(?:(",
        _ => r"(\s|^)(?:(",
    };
    let right = match (match_type, rfm) {
        (MatchType::Exact, _) => r"))(?=((\W*)\s|$))",
        (_, true) => r")\w*)(?=(?:\W|$))",
        (_, false) => "))",
    };
    format!("{}{}{}", left, body, right)
}

/// Per-text state: the text and lazily built char views for offset conversion.
struct TextCtx<'t> {
    text: &'t str,
    /// End of the time budget, for backtracking units.
    deadline: Option<Instant>,
    ascii: bool,
    chars: Option<Vec<char>>,
    /// Byte offset of every char index (len + 1 entries), built on demand.
    byte_offsets: Option<Vec<usize>>,
    cursor: (usize, usize),
}

impl<'t> TextCtx<'t> {
    fn new(text: &'t str, deadline: Option<Instant>) -> Self {
        TextCtx {
            text,
            deadline,
            ascii: text.is_ascii(),
            chars: None,
            byte_offsets: None,
            cursor: (0, 0),
        }
    }

    fn chars(&mut self) -> &[char] {
        self.chars.get_or_insert_with(|| self.text.chars().collect())
    }

    fn byte_of(&mut self, char_idx: usize) -> usize {
        if self.ascii {
            return char_idx;
        }
        let text = self.text;
        let offsets = self
            .byte_offsets
            .get_or_insert_with(|| text.char_indices().map(|(b, _)| b).chain(Some(text.len())).collect());
        offsets[char_idx]
    }

    /// Char index of a byte offset; amortised O(1) for increasing offsets.
    fn char_of(&mut self, byte: usize) -> usize {
        if self.ascii {
            return byte;
        }
        if byte < self.cursor.0 {
            self.cursor = (0, 0);
        }
        let (b, c) = self.cursor;
        let idx = c + self.text[b..byte].chars().count();
        self.cursor = (byte, idx);
        idx
    }

    fn raw(&mut self, s: usize, e: usize) -> Raw {
        let cs = self.char_of(s);
        let ce = self.char_of(e);
        Raw {
            bytes: (s, e),
            chars: (cs, ce),
        }
    }
}

/// Span trimming: one whitespace character (`\s`) off each end, decided on the raw text
/// independently (a lone whitespace match yields an inverted span, as in the reference).
fn trim_raw(text: &str, mut m: Raw) -> Raw {
    let r = &text[m.bytes.0..m.bytes.1];
    if let Some(c) = r.chars().next().filter(|c| c.is_whitespace()) {
        m.bytes.0 += c.len_utf8();
        m.chars.0 += 1;
    }
    if let Some(c) = r.chars().next_back().filter(|c| c.is_whitespace()) {
        m.bytes.1 -= c.len_utf8();
        m.chars.1 -= 1;
    }
    m
}

/// `text[a..b]` with Python slice semantics for inverted bounds (empty).
fn py_slice(text: &str, a: usize, b: usize) -> &str {
    if a < b {
        &text[a..b]
    } else {
        ""
    }
}

/// The reported match: `str_val` is the stripped, lower-cased raw text; the span is trimmed.
fn to_match(text: &str, m: Raw) -> Match {
    let raw = py_slice(text, m.bytes.0.min(m.bytes.1), m.bytes.1.max(m.bytes.0));
    Match {
        str_val: strip(raw).to_lowercase(),
        span: [m.chars.0, m.chars.1],
        field: None,
    }
}
