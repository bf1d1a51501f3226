//! Parser for the subset of the Python `regex`-module dialect (VERSION0) that lexicon entries use,
//! producing an AST shared by both matching back ends, plus an emitter that turns an AST into
//! Rust `regex`-crate syntax when the pattern needs no backtracking-only feature.
//!
//! Dialect notes: inline flags such as `(?i)` anywhere apply to the whole pattern (VERSION0);
//! `{,n}` means `{0,n}`; a `{` that does not start a quantifier is a literal; `a++` is possessive;
//! `{...<=N}` after an item is a fuzzy constraint (each edit costs 1, total cost <= N).

use std::fmt::Write;

/// Perl-style class escapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perl {
    Word,
    Space,
    Digit,
}

/// One member of a character class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClassItem {
    Range(char, char),
    Perl(Perl, bool),
    /// `\p{..}` (name as written) and whether negated (`\P{..}`).
    Prop(String, bool),
}

/// A single-character item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Class {
    /// `.`; `dotall` makes it match `\n` too.
    Any {
        dotall: bool,
    },
    Set {
        items: Vec<ClassItem>,
        negated: bool,
    },
}

/// Zero-width assertions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assertion {
    /// `^`, multiline or not.
    Start(bool),
    /// `$`, multiline or not (non-multiline: end of text or before a final `\n`).
    End(bool),
    TextStart,
    TextEnd,
    WordBoundary,
    NotWordBoundary,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepKind {
    Greedy,
    Lazy,
    Possessive,
}

/// Pattern AST. `ci` marks case-insensitive items.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Empty,
    Lit {
        c: char,
        ci: bool,
    },
    Class {
        class: Class,
        ci: bool,
    },
    Assert(Assertion),
    Group(Box<Node>),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
        kind: RepKind,
    },
    Atomic(Box<Node>),
    Look {
        behind: bool,
        negated: bool,
        node: Box<Node>,
    },
    Fuzzy {
        node: Box<Node>,
        max_cost: u32,
    },
}

/// A parse error in the wording of the Python `regex` module (message, position).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError(pub String);

const MAX_REPEAT: u32 = 100_000;

/// Parses `pattern`; `ignore_case` is the IGNORECASE flag passed by the caller.
pub fn parse(pattern: &str, ignore_case: bool) -> Result<Node, SyntaxError> {
    let mut p = Parser::new(pattern, ignore_case);
    let node = p.parse_all()?;
    if p.global_ci && !ignore_case {
        // VERSION0: a global inline flag anywhere applies to the whole pattern.
        let mut again = Parser::new(pattern, true);
        return again.parse_all();
    }
    Ok(node)
}

/// How deeply groups and quantifiers may nest. Every later pass over the AST (emitting,
/// compiling, matching, dropping) recurses once per level, so this bound keeps a hostile
/// pattern such as 20,000 nested groups from overflowing a thread's stack.
pub const MAX_NESTING: usize = 100;

struct Parser {
    chars: Vec<char>,
    pos: usize,
    /// Current nesting of groups (alternations being parsed).
    depth: usize,
    ci: bool,
    multiline: bool,
    dotall: bool,
    global_ci: bool,
}

impl Parser {
    fn new(pattern: &str, ci: bool) -> Self {
        Parser {
            chars: pattern.chars().collect(),
            pos: 0,
            depth: 0,
            ci,
            multiline: false,
            dotall: false,
            global_ci: false,
        }
    }

    fn err<T>(&self, msg: &str) -> Result<T, SyntaxError> {
        Err(SyntaxError(format!("{} at position {}", msg, self.pos)))
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn looking_at(&self, s: &str) -> bool {
        s.chars().enumerate().all(|(i, c)| self.chars.get(self.pos + i) == Some(&c))
    }

    fn parse_all(&mut self) -> Result<Node, SyntaxError> {
        let node = self.parse_alt()?;
        if self.pos < self.chars.len() {
            return self.err("unbalanced parenthesis");
        }
        Ok(node)
    }

    fn parse_alt(&mut self) -> Result<Node, SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return self.too_deep();
        }
        let mut alts = vec![self.parse_concat()?];
        while self.eat('|') {
            alts.push(self.parse_concat()?);
        }
        self.depth -= 1;
        Ok(if alts.len() == 1 { alts.pop().unwrap() } else { Node::Alt(alts) })
    }

    fn too_deep<T>(&self) -> Result<T, SyntaxError> {
        self.err(&format!(
            "pattern nested too deeply (more than {MAX_NESTING} levels of groups and quantifiers)"
        ))
    }

    fn parse_concat(&mut self) -> Result<Node, SyntaxError> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = match self.parse_atom()? {
                Some(atom) => atom,
                None => continue,
            };
            items.push(self.parse_quantifiers(atom)?);
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap(),
            _ => Node::Concat(items),
        })
    }

    /// Parses one atom; `None` for constructs that produce nothing (comments, global flags).
    fn parse_atom(&mut self) -> Result<Option<Node>, SyntaxError> {
        let c = self.peek().unwrap();
        self.pos += 1;
        let node = match c {
            '(' => return self.parse_group(),
            '[' => Node::Class {
                class: self.parse_set()?,
                ci: self.ci,
            },
            '.' => Node::Class {
                class: Class::Any { dotall: self.dotall },
                ci: false,
            },
            '^' => Node::Assert(Assertion::Start(self.multiline)),
            '$' => Node::Assert(Assertion::End(self.multiline)),
            '\\' => self.parse_escape()?,
            '*' | '+' | '?' => return self.err("nothing to repeat"),
            '{' if self.quantifier_ahead() => return self.err("nothing to repeat"),
            _ => Node::Lit { c, ci: self.ci },
        };
        Ok(Some(node))
    }

    fn parse_group(&mut self) -> Result<Option<Node>, SyntaxError> {
        if !self.eat('?') {
            return self.group_body(Node::Group as fn(Box<Node>) -> Node).map(Some);
        }
        if self.eat(':') {
            return self.group_body(Node::Group).map(Some);
        }
        if self.eat('>') {
            return self.group_body(Node::Atomic).map(Some);
        }
        if self.eat('#') {
            while let Some(c) = self.peek() {
                self.pos += 1;
                if c == ')' {
                    return Ok(None);
                }
            }
            return self.err("missing )");
        }
        let look = if self.eat('=') {
            Some((false, false))
        } else if self.eat('!') {
            Some((false, true))
        } else if self.looking_at("<=") || self.looking_at("<!") {
            self.pos += 2;
            Some((true, self.chars[self.pos - 1] == '!'))
        } else {
            None
        };
        if let Some((behind, negated)) = look {
            let inner = self.parse_alt()?;
            self.close_group()?;
            return Ok(Some(Node::Look {
                behind,
                negated,
                node: Box::new(inner),
            }));
        }
        if self.eat('P') || self.peek() == Some('<') {
            if self.eat('<') {
                self.skip_group_name()?;
                return self.group_body(Node::Group).map(Some);
            }
            return self.err("unknown extension ?P");
        }
        self.parse_flags()
    }

    fn skip_group_name(&mut self) -> Result<(), SyntaxError> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c == '>' {
                if self.pos == start {
                    return self.err("missing group name");
                }
                self.pos += 1;
                return Ok(());
            }
            if !(c.is_alphanumeric() || c == '_') {
                return self.err("bad character in group name");
            }
            self.pos += 1;
        }
        self.err("missing >")
    }

    /// Parses `(?flags)` or `(?flags:...)` / `(?flags-flags:...)`.
    fn parse_flags(&mut self) -> Result<Option<Node>, SyntaxError> {
        let saved = (self.ci, self.multiline, self.dotall);
        let mut on = true;
        let mut any = false;
        loop {
            let c = match self.peek() {
                Some(c) => c,
                None => return self.err("missing )"),
            };
            self.pos += 1;
            match c {
                'i' => self.ci = on,
                'm' => self.multiline = on,
                's' => self.dotall = on,
                'u' | 'L' | 'a' => {}
                '-' if on => on = false,
                ')' if any && on => {
                    if self.ci {
                        self.global_ci = true;
                    }
                    return Ok(None);
                }
                ':' => {
                    let inner = self.parse_alt()?;
                    self.close_group()?;
                    (self.ci, self.multiline, self.dotall) = saved;
                    return Ok(Some(Node::Group(Box::new(inner))));
                }
                _ => return self.err("unknown extension"),
            }
            any = true;
        }
    }

    fn group_body(&mut self, wrap: fn(Box<Node>) -> Node) -> Result<Node, SyntaxError> {
        let inner = self.parse_alt()?;
        self.close_group()?;
        Ok(wrap(Box::new(inner)))
    }

    fn close_group(&mut self) -> Result<(), SyntaxError> {
        if self.eat(')') {
            Ok(())
        } else {
            self.err("missing )")
        }
    }

    fn parse_escape(&mut self) -> Result<Node, SyntaxError> {
        let c = match self.peek() {
            Some(c) => c,
            None => return self.err("bad escape (end of pattern)"),
        };
        self.pos += 1;
        let assertion = match c {
            'A' => Some(Assertion::TextStart),
            'Z' => Some(Assertion::TextEnd),
            'b' => Some(Assertion::WordBoundary),
            'B' => Some(Assertion::NotWordBoundary),
            _ => None,
        };
        if let Some(a) = assertion {
            return Ok(Node::Assert(a));
        }
        if c.is_ascii_digit() && c != '0' {
            return self.err("backreferences are not supported");
        }
        self.pos -= 1;
        match self.parse_class_escape()? {
            Escaped::Char(c) => Ok(Node::Lit { c, ci: self.ci }),
            Escaped::Item(item) => Ok(Node::Class {
                class: Class::Set {
                    items: vec![item],
                    negated: false,
                },
                ci: self.ci,
            }),
        }
    }

    /// Parses an escape (after `\`) valid both inside and outside a set.
    fn parse_class_escape(&mut self) -> Result<Escaped, SyntaxError> {
        let c = self.peek().unwrap();
        self.pos += 1;
        let perl = |p, neg| Ok(Escaped::Item(ClassItem::Perl(p, neg)));
        match c {
            'w' => perl(Perl::Word, false),
            'W' => perl(Perl::Word, true),
            's' => perl(Perl::Space, false),
            'S' => perl(Perl::Space, true),
            'd' => perl(Perl::Digit, false),
            'D' => perl(Perl::Digit, true),
            'p' | 'P' => self.parse_property(c == 'P'),
            'n' => Ok(Escaped::Char('\n')),
            't' => Ok(Escaped::Char('\t')),
            'r' => Ok(Escaped::Char('\r')),
            'f' => Ok(Escaped::Char('\x0c')),
            'v' => Ok(Escaped::Char('\x0b')),
            'a' => Ok(Escaped::Char('\x07')),
            '0' => self.parse_octal(),
            'x' => self.parse_hex(2),
            'u' => self.parse_hex(4),
            'U' => self.parse_hex(8),
            c if c.is_ascii_alphanumeric() => {
                self.pos -= 1;
                self.err(&format!("bad escape \\{}", c))
            }
            c => Ok(Escaped::Char(c)),
        }
    }

    fn parse_property(&mut self, negated: bool) -> Result<Escaped, SyntaxError> {
        let name = if self.eat('{') {
            let start = self.pos;
            while self.peek().is_some_and(|c| c != '}') {
                self.pos += 1;
            }
            if !self.eat('}') {
                return self.err("missing }");
            }
            self.chars[start..self.pos - 1].iter().collect::<String>()
        } else {
            match self.peek() {
                Some(c) => {
                    self.pos += 1;
                    c.to_string()
                }
                None => return self.err("missing property name"),
            }
        };
        if regex::Regex::new(&format!(r"\p{{{}}}", name)).is_err() {
            return self.err("unknown property");
        }
        Ok(Escaped::Item(ClassItem::Prop(name, negated)))
    }

    fn parse_octal(&mut self) -> Result<Escaped, SyntaxError> {
        let mut v = 0u32;
        for _ in 0..2 {
            match self.peek().and_then(|c| c.to_digit(8)) {
                Some(d) => {
                    v = v * 8 + d;
                    self.pos += 1;
                }
                None => break,
            }
        }
        Ok(Escaped::Char(char::from_u32(v).unwrap()))
    }

    fn parse_hex(&mut self, digits: usize) -> Result<Escaped, SyntaxError> {
        let mut v = 0u32;
        for _ in 0..digits {
            match self.peek().and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    v = v * 16 + d;
                    self.pos += 1;
                }
                None => return self.err("incomplete escape"),
            }
        }
        match char::from_u32(v) {
            Some(c) => Ok(Escaped::Char(c)),
            None => self.err("bad escape"),
        }
    }

    /// Parses a `[...]` set (the `[` is consumed).
    fn parse_set(&mut self) -> Result<Class, SyntaxError> {
        let negated = self.eat('^');
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let c = match self.peek() {
                Some(c) => c,
                None => return self.err("missing ]"),
            };
            if c == ']' && !first {
                self.pos += 1;
                return Ok(Class::Set { items, negated });
            }
            first = false;
            if self.looking_at("[:") {
                if let Some(item) = self.parse_posix()? {
                    items.push(item);
                    continue;
                }
            }
            let lo = self.set_member()?;
            let lo = match lo {
                Escaped::Item(item) => {
                    items.push(item);
                    continue;
                }
                Escaped::Char(lo) => lo,
            };
            if self.peek() == Some('-') && self.chars.get(self.pos + 1).is_some_and(|&c| c != ']') {
                self.pos += 1;
                match self.set_member()? {
                    Escaped::Char(hi) if hi >= lo => items.push(ClassItem::Range(lo, hi)),
                    Escaped::Char(_) => return self.err("bad character range"),
                    Escaped::Item(_) => return self.err("bad character range"),
                }
            } else {
                items.push(ClassItem::Range(lo, lo));
            }
        }
    }

    fn set_member(&mut self) -> Result<Escaped, SyntaxError> {
        let c = self.peek().unwrap();
        self.pos += 1;
        if c != '\\' {
            return Ok(Escaped::Char(c));
        }
        if self.peek().is_none() {
            return self.err("bad escape (end of pattern)");
        }
        if self.eat('b') {
            return Ok(Escaped::Char('\x08'));
        }
        self.parse_class_escape()
    }

    fn parse_posix(&mut self) -> Result<Option<ClassItem>, SyntaxError> {
        let rest: String = self.chars[self.pos..].iter().take(16).collect();
        // The name starts after `[:`; `[[:]` has none and is read as the set of `[` and `:`.
        let end = match rest.get(2..).and_then(|r| r.find(":]")) {
            Some(e) => e + 2,
            None => return Ok(None),
        };
        let name = &rest[2..end];
        let (name, negated) = match name.strip_prefix('^') {
            Some(n) => (n, true),
            None => (name, false),
        };
        let prop = match name {
            "alpha" => "Alphabetic",
            "alnum" => "Alnum",
            "digit" => "Nd",
            "lower" => "Lowercase",
            "upper" => "Uppercase",
            "space" => "White_Space",
            "punct" => "P",
            _ => return Ok(None),
        };
        self.pos += rest[..end + 2].chars().count();
        if prop == "Alnum" {
            return Ok(Some(ClassItem::Prop("Alphabetic".into(), negated)));
        }
        Ok(Some(ClassItem::Prop(prop.into(), negated)))
    }

    /// Whether a `{` at the current position (already consumed) starts a counted quantifier.
    fn quantifier_ahead(&self) -> bool {
        self.brace_body().is_some_and(|b| parse_counts(&b).is_some())
    }

    /// The text between a consumed `{` and the next `}`.
    fn brace_body(&self) -> Option<String> {
        let rest = &self.chars[self.pos..];
        let end = rest.iter().position(|&c| c == '}')?;
        Some(rest[..end].iter().collect())
    }

    fn parse_quantifiers(&mut self, mut atom: Node) -> Result<Node, SyntaxError> {
        // Each quantifier wraps the atom once more (fuzzy constraints may stack).
        for chain in 1.. {
            let (min, max) = match self.peek() {
                Some('*') => (0, None),
                Some('+') => (1, None),
                Some('?') => (0, Some(1)),
                Some('{') => {
                    self.pos += 1;
                    match self.brace_quantifier(atom)? {
                        Ok(node) => atom = node,
                        Err(node) => {
                            self.pos -= 1;
                            return Ok(node);
                        }
                    }
                    self.check_nesting(chain)?;
                    continue;
                }
                _ => return Ok(atom),
            };
            self.pos += 1;
            atom = self.finish_repeat(atom, min, max)?;
            self.check_nesting(chain)?;
        }
        unreachable!("the nesting bound ends the chain")
    }

    fn check_nesting(&self, chain: usize) -> Result<(), SyntaxError> {
        if self.depth + chain > MAX_NESTING {
            return self.too_deep();
        }
        Ok(())
    }

    /// Handles `{` after an atom: counted repeat, fuzzy constraint, or (Err) a literal brace.
    fn brace_quantifier(&mut self, atom: Node) -> Result<Result<Node, Node>, SyntaxError> {
        let body = match self.brace_body() {
            Some(b) => b,
            None => return Ok(Err(atom)),
        };
        if let Some((min, max)) = parse_counts(&body) {
            self.pos += body.chars().count() + 1;
            if max.is_some_and(|m| m < min) {
                return self.err("min repeat greater than max repeat");
            }
            if min > MAX_REPEAT || max.is_some_and(|m| m > MAX_REPEAT) {
                return self.err("repeat count too big");
            }
            return self.finish_repeat(atom, min, max).map(Ok);
        }
        if let Some(max_cost) = parse_fuzzy(&body) {
            self.pos += body.chars().count() + 1;
            return Ok(Ok(Node::Fuzzy {
                node: Box::new(atom),
                max_cost,
            }));
        }
        Ok(Err(atom))
    }

    fn finish_repeat(&mut self, atom: Node, min: u32, max: Option<u32>) -> Result<Node, SyntaxError> {
        if matches!(atom, Node::Repeat { .. }) {
            return self.err("multiple repeat");
        }
        let kind = if self.eat('?') {
            RepKind::Lazy
        } else if self.eat('+') {
            RepKind::Possessive
        } else {
            RepKind::Greedy
        };
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
            kind,
        })
    }
}

enum Escaped {
    Char(char),
    Item(ClassItem),
}

/// Parses `n`, `n,`, `,m`, `n,m` (also the empty `,`) into counts.
fn parse_counts(body: &str) -> Option<(u32, Option<u32>)> {
    let num = |s: &str| -> Option<Option<u32>> {
        if s.is_empty() {
            Some(None)
        } else if s.chars().all(|c| c.is_ascii_digit()) {
            s.parse::<u64>().ok().map(|v| Some(v.min(u32::MAX as u64) as u32))
        } else {
            None
        }
    };
    match body.split_once(',') {
        None => num(body)?.map(|n| (n, Some(n))),
        Some((a, b)) => Some((num(a)?.unwrap_or(0), num(b)?)),
    }
}

/// Parses a fuzzy constraint such as `1i+1d+1s<=2` or `e<=1` into its maximum total cost.
fn parse_fuzzy(body: &str) -> Option<u32> {
    let (terms, limit) = body.rsplit_once('<')?;
    let (strict, limit) = match limit.strip_prefix('=') {
        Some(l) => (false, l),
        None => (true, limit),
    };
    let valid_terms = terms.chars().all(|c| c.is_ascii_digit() || "idse+ ".contains(c));
    let n: u32 = limit.trim().parse().ok()?;
    if !valid_terms {
        return None;
    }
    Some(if strict { n.saturating_sub(1) } else { n })
}

/// Whether the AST can be run by the `regex` crate with identical results.
pub fn is_plain(node: &Node) -> bool {
    match node {
        Node::Empty | Node::Lit { .. } | Node::Class { .. } => true,
        Node::Assert(Assertion::End(false)) => false,
        Node::Assert(_) => true,
        Node::Group(n) => is_plain(n),
        Node::Concat(v) | Node::Alt(v) => v.iter().all(is_plain),
        Node::Repeat { node, kind, .. } => *kind != RepKind::Possessive && is_plain(node),
        Node::Atomic(_) | Node::Look { .. } | Node::Fuzzy { .. } => false,
    }
}

/// Emits `regex`-crate syntax for a plain AST (see [`is_plain`]).
pub fn emit(node: &Node, out: &mut String) {
    match node {
        Node::Empty => {}
        Node::Lit { c, ci } => emit_lit(*c, *ci, out),
        Node::Class { class, ci } => {
            out.push_str(if *ci && !case_free(class) { "(?i:" } else { "(?:" });
            emit_class(class, out);
            out.push(')');
        }
        Node::Assert(a) => out.push_str(match a {
            Assertion::Start(false) | Assertion::TextStart => r"\A",
            Assertion::Start(true) => "(?m:^)",
            Assertion::End(true) => "(?m:$)",
            Assertion::End(false) | Assertion::TextEnd => r"\z",
            Assertion::WordBoundary => r"\b",
            Assertion::NotWordBoundary => r"\B",
        }),
        Node::Group(n) | Node::Atomic(n) | Node::Fuzzy { node: n, .. } | Node::Look { node: n, .. } => {
            out.push_str("(?:");
            emit(n, out);
            out.push(')');
        }
        Node::Concat(v) => v.iter().for_each(|n| emit(n, out)),
        Node::Alt(v) => {
            for (i, n) in v.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                emit(n, out);
            }
        }
        Node::Repeat { node, min, max, kind } => {
            out.push_str("(?:");
            emit(node, out);
            out.push(')');
            match max {
                Some(m) => write!(out, "{{{},{}}}", min, m).unwrap(),
                None => write!(out, "{{{},}}", min).unwrap(),
            }
            if *kind == RepKind::Lazy {
                out.push('?');
            }
        }
    }
}

/// Whether case folding leaves `class` as it is: sets of `\s`, `\S`, `\d`, `\D` only (no
/// character of theirs has a case partner outside them). The `regex` crate folds such a class
/// range by range, which is slow for the large ones (a phrase slop's `\S`, in every entry).
fn case_free(class: &Class) -> bool {
    match class {
        Class::Set { items, .. } => items.iter().all(|i| matches!(i, ClassItem::Perl(Perl::Space | Perl::Digit, _))),
        Class::Any { .. } => false,
    }
}

/// Emits a literal; with `ci`, simple case folding (plus the module's `İ`~`i` equivalence).
fn emit_lit(c: char, ci: bool, out: &mut String) {
    if ci && matches!(c, 'i' | 'I' | '\u{130}') {
        out.push_str("[iI\u{130}]");
    } else if ci {
        out.push_str("(?i:");
        out.push_str(&regex::escape(&c.to_string()));
        out.push(')');
    } else {
        out.push_str(&regex::escape(&c.to_string()));
    }
}

/// Emits a class as a bracketed `regex`-crate class (or `.`).
pub fn emit_class(class: &Class, out: &mut String) {
    match class {
        Class::Any { dotall: false } => out.push_str(r"[^\n]"),
        Class::Any { dotall: true } => out.push_str(r"[\s\S]"),
        Class::Set { items, negated } => {
            out.push('[');
            if *negated {
                out.push('^');
            }
            if items.is_empty() {
                // `[]` cannot occur (the first `]` is a member); keep the class well-formed.
                out.push_str(r"\s\S");
            }
            for item in items {
                emit_class_item(item, out);
            }
            out.push(']');
        }
    }
}

fn emit_class_item(item: &ClassItem, out: &mut String) {
    let esc = |c: char| format!("\\x{{{:x}}}", c as u32);
    match item {
        ClassItem::Range(a, b) if a == b => out.push_str(&esc(*a)),
        ClassItem::Range(a, b) => write!(out, "{}-{}", esc(*a), esc(*b)).unwrap(),
        ClassItem::Perl(p, neg) => {
            let s = match p {
                Perl::Word => "w",
                Perl::Space => "s",
                Perl::Digit => "d",
            };
            out.push('\\');
            out.push_str(&if *neg { s.to_uppercase() } else { s.to_string() });
        }
        ClassItem::Prop(name, neg) => write!(out, "\\{}{{{}}}", if *neg { 'P' } else { 'p' }, name).unwrap(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn space_and_digit_classes_are_case_free() {
        // What emit() relies on: folding case changes none of these classes.
        for class in [r"\s", r"\S", r"\d", r"\D", r"[\s\d]", r"[^\S\d]"] {
            let plain = regex::Regex::new(&format!("^{class}$")).unwrap();
            let folded = regex::Regex::new(&format!("^(?i:{class})$")).unwrap();
            let mut buf = [0u8; 4];
            for c in (0..=0x10ffff).filter_map(char::from_u32) {
                let c = c.encode_utf8(&mut buf);
                assert_eq!(plain.is_match(c), folded.is_match(c), "{class} {c:?}");
            }
        }
    }

    #[test]
    fn parses_dialect_features() {
        assert!(parse("c++", false).is_ok());
        assert!(parse("f**", false).is_err());
        assert!(parse("(unclosed", false).is_err());
        assert!(parse("[bad", false).is_err());
        assert!(parse(r"\s*(\S+\s+){,2}", false).is_ok());
        assert!(parse("(kass){1i+1d+1s<=1}", false).is_ok());
        assert!(matches!(parse("a{x}", false).unwrap(), Node::Concat(_)));
        assert!(!is_plain(&parse("four$", false).unwrap()));
        assert!(is_plain(&parse(r"(new|old) york", false).unwrap()));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}a{}", "(".repeat(20_000), ")".repeat(20_000));
        let err = parse(&deep, false).unwrap_err();
        assert!(err.0.starts_with("pattern nested too deeply"), "{}", err.0);
        let fuzzy_chain = format!("a{}", "{e<=1}".repeat(20_000));
        assert!(parse(&fuzzy_chain, false).unwrap_err().0.starts_with("pattern nested too deeply"));
        let ok = format!("{}a{}", "(".repeat(MAX_NESTING - 1), ")".repeat(MAX_NESTING - 1));
        assert!(parse(&ok, false).is_ok());
    }

    #[test]
    fn posix_opener_without_a_name_is_a_set_member() {
        // The reference's `regex` module reads `[[:]` as the set of `[` and `:`.
        let node = parse("[[:]", false).unwrap();
        let Node::Class {
            class: Class::Set { items, negated: false },
            ..
        } = node
        else {
            panic!("{node:?}")
        };
        assert_eq!(items, vec![ClassItem::Range('[', '['), ClassItem::Range(':', ':')]);
    }

    #[test]
    fn global_inline_flag_applies_everywhere() {
        let node = parse("ab(?i)c", false).unwrap();
        let mut s = String::new();
        emit(&node, &mut s);
        assert!(s.starts_with("(?i:a)"));
    }
}
