//! Backtracking matcher for patterns the `regex` crate cannot run: look-arounds, possessive and
//! atomic groups, the non-multiline `$`, and above all fuzzy groups `(...){1i+1d+1s<=N}`.
//!
//! Fuzzy matching reproduces the Python `regex` module's first-match exploration order: an item
//! that matches exactly creates no branch point; a mismatching item tries substitution, then
//! insertion (a text character skipped; not at the position where the search started, i.e. where the
//! previous match ended),
//! then deletion (the item skipped); after a literal string of two or more characters the
//! engine may, on backtracking, insert further text characters, and so may the end of a fuzzy
//! group. A repeat goes on after an iteration that advanced or spent an edit (a lone deletion
//! is an iteration), except at the text end. Every search is bounded by a
//! deadline, a step budget check and a recursion-depth limit.

use std::sync::Arc;
use std::time::Instant;

use super::charset::{class_set, fold_set, is_word, CharSet};
use super::syntax::{Assertion, Node, RepKind};

/// Recursion depth beyond which a search is abandoned.
const MAX_DEPTH: u32 = 3000;

/// A compiled single-character test.
#[derive(Debug)]
enum Item {
    Char(char),
    Set(Arc<CharSet>),
}

impl Item {
    #[inline]
    fn matches(&self, c: char) -> bool {
        match self {
            Item::Char(x) => *x == c,
            Item::Set(s) => s.contains(c),
        }
    }
}

#[derive(Debug)]
enum Prog {
    Empty,
    Item(Item),
    /// Two or more literal characters.
    Str(Vec<Item>),
    Assert(Assertion),
    Concat(Vec<Prog>),
    Alt(Vec<Prog>),
    Repeat {
        prog: Box<Prog>,
        min: u32,
        max: Option<u32>,
        kind: RepKind,
    },
    Atomic(Box<Prog>),
    Look {
        behind: bool,
        negated: bool,
        prog: Box<Prog>,
        width: Option<usize>,
    },
    Fuzzy {
        prog: Box<Prog>,
        max_cost: u32,
    },
}

/// A compiled backtracking program.
#[derive(Debug)]
pub struct Program {
    root: Prog,
}

/// The search was abandoned (deadline or depth limit).
#[derive(Debug)]
pub struct Aborted;

#[derive(Clone, Copy)]
struct FuzzyState {
    cost: u32,
    max: u32,
}

struct Run<'t> {
    text: &'t [char],
    anchor: usize,
    fuzzy: Option<FuzzyState>,
    steps: u64,
    depth: u32,
    deadline: Instant,
    aborted: bool,
}

impl Run<'_> {
    fn can_err(&self) -> bool {
        self.fuzzy.is_some_and(|f| f.cost < f.max)
    }

    fn cost(&self) -> u32 {
        self.fuzzy.map_or(0, |f| f.cost)
    }

    fn add_cost(&mut self, delta: i32) {
        if let Some(f) = self.fuzzy.as_mut() {
            f.cost = (f.cost as i32 + delta) as u32;
        }
    }

    fn may_insert(&self, pos: usize) -> bool {
        pos < self.text.len() && pos != self.anchor && self.can_err()
    }
}

type Cont<'c, 't> = &'c mut dyn FnMut(usize, &mut Run<'t>) -> bool;

impl Program {
    pub fn new(node: &Node) -> Program {
        Program { root: compile(node) }
    }

    /// Leftmost match `[start, end)` (char offsets) starting the search at `from`.
    pub fn search(&self, text: &[char], from: usize, deadline: Instant) -> Result<Option<(usize, usize)>, Aborted> {
        let mut run = Run {
            text,
            anchor: from,
            fuzzy: None,
            steps: 0,
            depth: 0,
            deadline,
            aborted: false,
        };
        for start in from..=text.len() {
            let mut end = None;
            if self.m(&self.root, start, &mut run, &mut |e, _| {
                end = Some(e);
                true
            }) {
                return Ok(end.map(|e| (start, e)));
            }
            if run.aborted {
                return Err(Aborted);
            }
        }
        Ok(None)
    }

    fn m<'t>(&self, p: &Prog, pos: usize, r: &mut Run<'t>, k: Cont<'_, 't>) -> bool {
        r.steps += 1;
        if r.steps & 0x3ff == 0 && Instant::now() > r.deadline {
            r.aborted = true;
        }
        if r.aborted || r.depth > MAX_DEPTH {
            r.aborted = true;
            return false;
        }
        r.depth += 1;
        // Deep recursion continues on a heap-allocated stack segment instead of
        // overflowing whatever thread runs the match.
        let found = stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.dispatch(p, pos, r, k));
        r.depth -= 1;
        found
    }

    fn dispatch<'t>(&self, p: &Prog, pos: usize, r: &mut Run<'t>, k: Cont<'_, 't>) -> bool {
        match p {
            Prog::Empty => k(pos, r),
            Prog::Item(it) => self.item(it, pos, r, k),
            Prog::Str(items) => self.string(items, 0, pos, r, k),
            Prog::Assert(a) => self.assertion(*a, pos, r, k),
            Prog::Concat(v) => self.seq(v, pos, r, k),
            Prog::Alt(v) => v.iter().any(|alt| self.m(alt, pos, r, k)),
            Prog::Repeat { prog, min, max, kind } => self.repeat(prog, *min, *max, *kind, pos, r, k),
            Prog::Atomic(prog) => self.atomic(prog, pos, r, k),
            Prog::Look {
                behind,
                negated,
                prog,
                width,
            } => {
                let saved = r.fuzzy.take();
                let found = if *behind {
                    self.look_behind(prog, *width, pos, r)
                } else {
                    self.m(prog, pos, r, &mut |_, _| true)
                };
                r.fuzzy = saved;
                found != *negated && k(pos, r)
            }
            Prog::Fuzzy { prog, max_cost } => {
                let outer = r.fuzzy.replace(FuzzyState { cost: 0, max: *max_cost });
                let found = self.m(prog, pos, r, &mut |e, r| self.end_fuzzy(e, r, k));
                r.fuzzy = outer;
                found
            }
        }
    }

    /// Leaves a fuzzy group at `e`; on failure retries with further inserted characters while
    /// the group's budget allows (the module's END_FUZZY backtracking).
    fn end_fuzzy<'t>(&self, e: usize, r: &mut Run<'t>, k: Cont<'_, 't>) -> bool {
        let inner = r.fuzzy.take();
        let budget = inner.map_or(0, |f| f.max - f.cost);
        let mut p = e;
        let mut ok = k(e, r);
        while !ok && p < r.text.len() && p - e < budget as usize && !r.aborted {
            p += 1;
            ok = k(p, r);
        }
        if !ok {
            r.fuzzy = inner;
        }
        ok
    }

    fn seq<'t>(&self, v: &[Prog], pos: usize, r: &mut Run<'t>, k: Cont<'_, 't>) -> bool {
        match v.split_first() {
            None => k(pos, r),
            Some((first, rest)) => self.m(first, pos, r, &mut |q, r| self.seq(rest, q, r, k)),
        }
    }

    fn item<'t>(&self, it: &Item, pos: usize, r: &mut Run<'t>, k: Cont<'_, 't>) -> bool {
        if pos < r.text.len() && it.matches(r.text[pos]) {
            return k(pos + 1, r);
        }
        if !r.can_err() {
            return false;
        }
        // Substitution, insertion, deletion: the `regex` module's order.
        self.try_edit(pos < r.text.len(), r, |r| k(pos + 1, r))
            || (r.may_insert(pos) && self.try_edit(true, r, |r| self.item(it, pos + 1, r, k)))
            || self.try_edit(true, r, |r| k(pos, r))
    }

    /// Spends one edit (if allowed and `possible`) around `f`, refunding it when `f` fails.
    fn try_edit<'t>(&self, possible: bool, r: &mut Run<'t>, mut f: impl FnMut(&mut Run<'t>) -> bool) -> bool {
        if !possible || !r.can_err() {
            return false;
        }
        r.add_cost(1);
        if f(r) {
            return true;
        }
        r.add_cost(-1);
        false
    }

    fn string<'t>(&self, items: &[Item], sp: usize, pos: usize, r: &mut Run<'t>, k: Cont<'_, 't>) -> bool {
        let (mut sp, mut pos) = (sp, pos);
        while sp < items.len() && pos < r.text.len() && items[sp].matches(r.text[pos]) {
            sp += 1;
            pos += 1;
        }
        if sp == items.len() {
            return self.string_done(pos, r, k);
        }
        if r.aborted || !r.can_err() {
            return false;
        }
        r.depth += 1;
        let found = self.try_edit(pos < r.text.len(), r, |r| self.string(items, sp + 1, pos + 1, r, k))
            || (r.may_insert(pos) && self.try_edit(true, r, |r| self.string(items, sp, pos + 1, r, k)))
            || self.try_edit(true, r, |r| self.string(items, sp + 1, pos, r, k));
        r.depth -= 1;
        found
    }

    /// After a literal string: continue, then (fuzzy only) retry with more inserted characters.
    fn string_done<'t>(&self, pos: usize, r: &mut Run<'t>, k: Cont<'_, 't>) -> bool {
        if k(pos, r) {
            return true;
        }
        let mut p = pos;
        let mut spent = 0;
        while p < r.text.len() && r.can_err() && !r.aborted {
            r.add_cost(1);
            spent += 1;
            p += 1;
            if k(p, r) {
                return true;
            }
        }
        r.add_cost(-spent);
        false
    }

    fn assertion<'t>(&self, a: Assertion, pos: usize, r: &mut Run<'t>, k: Cont<'_, 't>) -> bool {
        if check_assertion(a, r.text, pos) {
            return k(pos, r);
        }
        r.may_insert(pos) && self.try_edit(true, r, |r| self.assertion(a, pos + 1, r, k))
    }

    #[allow(clippy::too_many_arguments)]
    fn repeat<'t>(&self, p: &Prog, min: u32, max: Option<u32>, kind: RepKind, pos: usize, r: &mut Run<'t>, k: Cont<'_, 't>) -> bool {
        if let (Prog::Item(it), None) = (p, r.fuzzy) {
            return self.repeat_item(it, min, max, kind, pos, r, k);
        }
        if kind == RepKind::Possessive {
            return self.atomic_with(|this, r, k2| this.repeat_n(p, min, max, RepKind::Greedy, 0, pos, r, k2), r, k);
        }
        self.repeat_n(p, min, max, kind, 0, pos, r, k)
    }

    #[allow(clippy::too_many_arguments)]
    fn repeat_n<'t>(
        &self,
        p: &Prog,
        min: u32,
        max: Option<u32>,
        kind: RepKind,
        count: u32,
        pos: usize,
        r: &mut Run<'t>,
        k: Cont<'_, 't>,
    ) -> bool {
        let can_more = max.is_none_or(|m| count < m);
        let more = |r: &mut Run<'t>, k: Cont<'_, 't>| {
            let cost = r.cost();
            can_more
                && self.m(p, pos, r, &mut |q, r| {
                    // As the module's END_*_REPEAT: an iteration that neither advanced nor
                    // spent an edit (a fuzzy deletion counts as a change) ends the repeat, and
                    // so does reaching the text end once the minimum is met when fuzzy.
                    let at_end = r.fuzzy.is_some() && count + 1 >= min && q >= r.text.len();
                    if (q == pos && r.cost() == cost) || at_end {
                        return k(q, r);
                    }
                    self.repeat_n(p, min, max, kind, count + 1, q, r, k)
                })
        };
        match kind {
            RepKind::Lazy => (count >= min && k(pos, r)) || more(r, k),
            _ => more(r, k) || (count >= min && k(pos, r)),
        }
    }

    /// Exact repeat of a single-character item: no recursion per character.
    #[allow(clippy::too_many_arguments)]
    fn repeat_item<'t>(&self, it: &Item, min: u32, max: Option<u32>, kind: RepKind, pos: usize, r: &mut Run<'t>, k: Cont<'_, 't>) -> bool {
        let limit = max.map_or(usize::MAX, |m| m as usize);
        let n = r.text[pos..].iter().take(limit).take_while(|&&c| it.matches(c)).count();
        let min = min as usize;
        if n < min {
            return false;
        }
        match kind {
            RepKind::Greedy => (min..=n).rev().any(|i| !r.aborted && k(pos + i, r)),
            RepKind::Lazy => (min..=n).any(|i| !r.aborted && k(pos + i, r)),
            RepKind::Possessive => k(pos + n, r),
        }
    }

    fn atomic<'t>(&self, p: &Prog, pos: usize, r: &mut Run<'t>, k: Cont<'_, 't>) -> bool {
        self.atomic_with(|this, r, k2| this.m(p, pos, r, k2), r, k)
    }

    /// Runs `inner` to its first success only, then continues with `k` without backtracking into it.
    fn atomic_with<'t>(&self, inner: impl FnOnce(&Self, &mut Run<'t>, Cont<'_, 't>) -> bool, r: &mut Run<'t>, k: Cont<'_, 't>) -> bool {
        let saved = r.fuzzy;
        let mut end = None;
        if !inner(self, r, &mut |e, _| {
            end = Some(e);
            true
        }) {
            return false;
        }
        if k(end.unwrap(), r) {
            return true;
        }
        r.fuzzy = saved;
        false
    }

    fn look_behind<'t>(&self, p: &Prog, width: Option<usize>, pos: usize, r: &mut Run<'t>) -> bool {
        let lowest = width.map_or(0, |w| pos.saturating_sub(w));
        (lowest..=pos).rev().any(|s| !r.aborted && self.m(p, s, r, &mut |e, _| e == pos))
    }
}

fn check_assertion(a: Assertion, text: &[char], pos: usize) -> bool {
    let len = text.len();
    let word_before = pos > 0 && is_word(text[pos - 1]);
    let word_after = pos < len && is_word(text[pos]);
    match a {
        Assertion::Start(false) | Assertion::TextStart => pos == 0,
        Assertion::Start(true) => pos == 0 || text[pos - 1] == '\n',
        Assertion::End(false) => pos == len || (pos + 1 == len && text[pos] == '\n'),
        Assertion::End(true) => pos == len || text[pos] == '\n',
        Assertion::TextEnd => pos == len,
        Assertion::WordBoundary => word_before != word_after,
        Assertion::NotWordBoundary => word_before == word_after,
    }
}

fn compile(node: &Node) -> Prog {
    match node {
        Node::Empty => Prog::Empty,
        Node::Lit { .. } | Node::Class { .. } => Prog::Item(compile_item(node)),
        Node::Assert(a) => Prog::Assert(*a),
        Node::Group(n) => compile(n),
        Node::Concat(v) => Prog::Concat(compile_concat(v)),
        Node::Alt(v) => Prog::Alt(v.iter().map(compile).collect()),
        Node::Repeat { node, min, max, kind } => Prog::Repeat {
            prog: Box::new(compile(node)),
            min: *min,
            max: *max,
            kind: *kind,
        },
        Node::Atomic(n) => Prog::Atomic(Box::new(compile(n))),
        Node::Look { behind, negated, node } => Prog::Look {
            behind: *behind,
            negated: *negated,
            prog: Box::new(compile(node)),
            width: max_width(node),
        },
        Node::Fuzzy { node, max_cost } => Prog::Fuzzy {
            prog: Box::new(compile(node)),
            max_cost: *max_cost,
        },
    }
}

fn compile_item(node: &Node) -> Item {
    match node {
        Node::Lit { c, ci: false } => Item::Char(*c),
        Node::Lit { c, ci: true } => Item::Set(fold_set(*c)),
        Node::Class { class, ci } => Item::Set(class_set(class, *ci)),
        _ => unreachable!("not a single-character item"),
    }
}

/// Compiles a sequence, merging runs of two or more literals into strings.
fn compile_concat(v: &[Node]) -> Vec<Prog> {
    let mut out = Vec::new();
    let mut run: Vec<Item> = Vec::new();
    let flush = |run: &mut Vec<Item>, out: &mut Vec<Prog>| match run.len() {
        0 => {}
        1 => out.push(Prog::Item(run.pop().unwrap())),
        _ => out.push(Prog::Str(std::mem::take(run))),
    };
    for n in v {
        if matches!(n, Node::Lit { .. }) {
            run.push(compile_item(n));
        } else {
            flush(&mut run, &mut out);
            out.push(compile(n));
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Maximum match width in characters, `None` if unbounded.
fn max_width(node: &Node) -> Option<usize> {
    match node {
        Node::Empty | Node::Assert(_) | Node::Look { .. } => Some(0),
        Node::Lit { .. } | Node::Class { .. } => Some(1),
        Node::Group(n) | Node::Atomic(n) => max_width(n),
        Node::Concat(v) => v.iter().try_fold(0usize, |acc, n| Some(acc + max_width(n)?)),
        Node::Alt(v) => v.iter().try_fold(0usize, |acc, n| Some(acc.max(max_width(n)?))),
        Node::Repeat { node, max, .. } => Some(max_width(node)?.checked_mul((*max)? as usize)?),
        Node::Fuzzy { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::syntax::parse;
    use super::*;
    use std::time::Duration;

    fn find(pattern: &str, text: &str) -> Option<(usize, usize)> {
        let chars: Vec<char> = text.chars().collect();
        let prog = Program::new(&parse(pattern, true).unwrap());
        prog.search(&chars, 0, Instant::now() + Duration::from_secs(5)).unwrap()
    }

    #[test]
    fn fuzzy_first_match_order() {
        let p = r"(\s|^)(?:((kass){1i+1d+1s<=1})\w*)(?=(?:\W|$))";
        let chars: Vec<char> = "kaas kas kasss xkass".chars().collect();
        let prog = Program::new(&parse(p, true).unwrap());
        let dl = Instant::now() + Duration::from_secs(5);
        assert_eq!(prog.search(&chars, 0, dl).unwrap(), Some((0, 4)));
        assert_eq!(prog.search(&chars, 4, dl).unwrap(), Some((4, 14)));
        assert_eq!(prog.search(&chars, 14, dl).unwrap(), Some((14, 20)));
    }

    #[test]
    fn lookarounds_and_possessive() {
        assert_eq!(find("(?<=the )cat", "a cat the cat"), Some((10, 13)));
        assert_eq!(find("c++", "cc"), Some((0, 2)));
        assert_eq!(find("a++a", "aaa"), None);
        assert_eq!(find("four$", "four\n"), Some((0, 4)));
    }

    #[test]
    fn catastrophic_pattern_is_abandoned() {
        let chars: Vec<char> = "a".repeat(40).chars().chain(Some('!')).collect();
        let prog = Program::new(&parse("(a*)*+b|(?>(a|aa)*)*c|(x?a*)*(?=y)", false).unwrap());
        let res = prog.search(&chars, 0, Instant::now() + Duration::from_millis(100));
        assert!(res.is_err() || res.unwrap().is_none());
    }
}
