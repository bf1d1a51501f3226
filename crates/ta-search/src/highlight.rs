//! Elasticsearch highlighting of search hits for the embedded store: the search body's
//! `highlight` (`fields` by name or wildcard, `pre_tags`/`post_tags`, `fragment_size`,
//! `number_of_fragments`, `no_match_size`, `require_field_match`, `encoder`,
//! `highlight_query`, globally or per field) turns into a `highlight` object per hit,
//! `{field: [fragments]}`, left out when nothing is found.
//!
//! What to mark comes from the query: the analyzed words of `match`, `multi_match` and
//! `query_string` clauses, whole phrases of `match_phrase` (a phrase is marked only where its
//! words stand together), `term(s)` values, `prefix`, `wildcard` and `regexp` patterns, read
//! through `bool` (not `must_not`), `constant_score`, `dis_max`, `nested` and `boosting`. A
//! field's text is analyzed as the index analyzes it and matching tokens are wrapped in the
//! tags. With `number_of_fragments: 0` the whole value comes back marked (what TEXTA's
//! searcher asks for); otherwise the passages are the sentences around the matches, cut to
//! about `fragment_size` characters at word boundaries, the best-scoring ones (most marks)
//! returned in text order, as Elasticsearch's unified highlighter does.

use std::collections::HashMap;

use regex::{Regex, RegexBuilder};
use serde_json::{Map, Value};
use tantivy::tokenizer::TextAnalyzer;

use super::backend::{Result, SearchError};
use super::dsl::{one_or_many, simple_as_query_string, tokenize_query_string, value_text, wildcard_with};

/// Compiled size limit of a highlight pattern (the search already refused bad patterns).
const PATTERN_SIZE_LIMIT: usize = 1 << 20;
/// How far a fragment edge may move to reach a word boundary, in characters.
const BOUNDARY_SCAN: usize = 20;
/// Bytes of a value analyzed for highlighting (Elasticsearch's `max_analyzed_offset`);
/// matches beyond are not marked.
const MAX_ANALYZED: usize = 1_000_000;

fn bad(msg: impl Into<String>) -> SearchError {
    SearchError::BadQuery(msg.into())
}

/// What the query asks to find in a field's tokens.
enum Find {
    Token(String),
    Phrase(Vec<String>),
    Prefix(String),
    Pattern(Regex),
}

/// A `Find` on one field, or on any field (`None`: a query_string without fields).
struct Wanted {
    field: Option<String>,
    find: Find,
}

/// The options of one highlighted field (or field pattern).
#[derive(Clone)]
struct FieldOptions {
    name: String,
    pre: String,
    post: String,
    fragment_size: usize,
    fragments: usize,
    no_match_size: usize,
    require_field_match: bool,
    html: bool,
}

/// A search body's `highlight`, ready to apply to hits.
pub struct Highlighter {
    fields: Vec<FieldOptions>,
    wanted: Vec<Wanted>,
    analyzer: TextAnalyzer,
}

/// Options that change nothing here (the highlighter type, boundary scanning, ordering).
const IGNORED: [&str; 9] = [
    "type",
    "force_source",
    "fragmenter",
    "boundary_scanner",
    "boundary_scanner_locale",
    "boundary_chars",
    "boundary_max_scan",
    "phrase_limit",
    "max_analyzed_offset",
];

impl Highlighter {
    /// Reads the `highlight` object of a search body whose query is `query`.
    pub fn parse(spec: &Value, query: &Value, analyzer: TextAnalyzer) -> Result<Highlighter> {
        let spec = spec.as_object().ok_or_else(|| bad("highlight must be an object"))?;
        let defaults = FieldOptions {
            name: String::new(),
            pre: "<em>".into(),
            post: "</em>".into(),
            fragment_size: 100,
            fragments: 5,
            no_match_size: 0,
            require_field_match: true,
            html: false,
        };
        let defaults = options(spec, defaults, true)?;
        let mut fields = Vec::new();
        match spec.get("fields") {
            Some(Value::Object(named)) => {
                for (name, own) in named {
                    fields.push(field_options(name, own, &defaults)?);
                }
            }
            Some(Value::Array(list)) => {
                for item in list {
                    if let Some(name) = item.as_str() {
                        fields.push(field_options(name, &Value::Null, &defaults)?);
                        continue;
                    }
                    let one = item.as_object().filter(|o| o.len() == 1);
                    let (name, own) = one
                        .and_then(|o| o.iter().next())
                        .ok_or_else(|| bad("highlight fields in an array must be names or objects of one field each"))?;
                    fields.push(field_options(name, own, &defaults)?);
                }
            }
            _ => return Err(bad("highlight needs fields")),
        }
        let mut highlighter = Highlighter {
            fields,
            wanted: Vec::new(),
            analyzer,
        };
        let source = spec.get("highlight_query").unwrap_or(query);
        highlighter.collect(source)?;
        Ok(highlighter)
    }

    /// The hit's `highlight` object, `None` when no field has a fragment.
    pub fn highlight(&self, source: &Value) -> Option<Value> {
        let mut leaves = Vec::new();
        string_leaves(source, String::new(), &mut leaves);
        // the values of each path, paths in order of first appearance
        let mut slots: HashMap<String, usize> = HashMap::new();
        let mut paths: Vec<(String, Vec<&str>)> = Vec::new();
        for (path, text) in leaves {
            let slot = *slots.entry(path.clone()).or_insert_with(|| {
                paths.push((path, Vec::new()));
                paths.len() - 1
            });
            paths[slot].1.push(text);
        }
        let mut out = Map::new();
        for options in &self.fields {
            for (name, texts) in &paths {
                if out.contains_key(name) || !glob(&options.name, name) {
                    continue;
                }
                let fragments = self.field_fragments(options, name, texts);
                if !fragments.is_empty() {
                    out.insert(name.clone(), Value::from(fragments));
                }
            }
        }
        (!out.is_empty()).then_some(Value::Object(out))
    }

    fn field_fragments(&self, options: &FieldOptions, name: &str, values: &[&str]) -> Vec<String> {
        let wanted: Vec<&Find> = self
            .wanted
            .iter()
            .filter(|w| !options.require_field_match || w.field.as_deref().is_none_or(|f| f == name))
            .map(|w| &w.find)
            .collect();
        let mut passages = Vec::new();
        for (index, text) in values.iter().enumerate() {
            let marks = if wanted.is_empty() { Vec::new() } else { self.marks(text, &wanted) };
            if marks.is_empty() {
                continue;
            }
            if options.fragments == 0 {
                passages.push(Passage {
                    value: index,
                    start: 0,
                    end: text.len(),
                    marks,
                });
            } else {
                passages.extend(passages_of(index, text, marks, options.fragment_size));
            }
        }
        if passages.is_empty() {
            return match values.first() {
                Some(text) if options.no_match_size > 0 => {
                    let cut = char_offset(text, 0, options.no_match_size);
                    let end = match word_start(text, cut) {
                        0 => cut,
                        start if start < cut => start,
                        _ => cut,
                    };
                    vec![encode(text[..end].trim(), options.html)]
                }
                _ => Vec::new(),
            };
        }
        if options.fragments > 0 && passages.len() > options.fragments {
            let mut ranked: Vec<usize> = (0..passages.len()).collect();
            ranked.sort_by(|a, b| passages[*b].marks.len().cmp(&passages[*a].marks.len()).then(a.cmp(b)));
            ranked.truncate(options.fragments);
            ranked.sort_unstable();
            passages = ranked.into_iter().map(|i| passages[i].clone()).collect();
        }
        passages.iter().map(|p| p.render(values[p.value], options)).collect()
    }

    /// Byte ranges of the tokens of `text` that the query asks for, in order.
    fn marks(&self, text: &str, wanted: &[&Find]) -> Vec<(usize, usize)> {
        let mut analyzer = self.analyzer.clone();
        let mut stream = analyzer.token_stream(&text[..floor_char(text, text.len().min(MAX_ANALYZED))]);
        let mut tokens: Vec<(String, usize, usize)> = Vec::new();
        while let Some(token) = stream.next() {
            tokens.push((token.text.clone(), token.offset_from, token.offset_to));
        }
        let mut marked = vec![false; tokens.len()];
        for find in wanted {
            match find {
                Find::Phrase(words) if !words.is_empty() => {
                    for start in 0..tokens.len().saturating_sub(words.len() - 1) {
                        if tokens[start..start + words.len()].iter().zip(words).all(|(t, w)| t.0 == *w) {
                            marked[start..start + words.len()].iter_mut().for_each(|m| *m = true);
                        }
                    }
                }
                _ => {
                    for (i, (token, _, _)) in tokens.iter().enumerate() {
                        marked[i] |= match find {
                            Find::Token(word) => token == word,
                            Find::Prefix(prefix) => token.starts_with(prefix.as_str()),
                            Find::Pattern(re) => re.is_match(token),
                            Find::Phrase(_) => false,
                        };
                    }
                }
            }
        }
        tokens
            .into_iter()
            .zip(marked)
            .filter(|(_, m)| *m)
            .map(|((_, from, to), _)| (from, to))
            .collect()
    }

    /// Reads what to mark from a query clause.
    fn collect(&mut self, clause: &Value) -> Result<()> {
        let Some((name, body)) = clause.as_object().and_then(|o| o.iter().next()) else {
            return Ok(());
        };
        match name.as_str() {
            "bool" => {
                for key in ["must", "should", "filter"] {
                    for inner in one_or_many(body.get(key)) {
                        self.collect(inner)?;
                    }
                }
            }
            "constant_score" => self.collect(body.get("filter").unwrap_or(&Value::Null))?,
            "nested" | "function_score" => self.collect(body.get("query").unwrap_or(&Value::Null))?,
            "boosting" => self.collect(body.get("positive").unwrap_or(&Value::Null))?,
            "dis_max" => {
                for inner in one_or_many(body.get("queries")) {
                    self.collect(inner)?;
                }
            }
            "match" | "match_phrase" | "match_phrase_prefix" | "match_bool_prefix" => {
                if let Some((field, text)) = single_field(body, "query") {
                    let phrase = name.starts_with("match_phrase");
                    self.words(Some(field), &text, phrase, name.ends_with("prefix"));
                }
            }
            "multi_match" => {
                let text = body.get("query").map(value_text).unwrap_or_default();
                let phrase = matches!(body.get("type").and_then(Value::as_str), Some("phrase" | "phrase_prefix"));
                for field in field_names(body.get("fields")) {
                    self.words(field, &text, phrase, false);
                }
            }
            "term" | "fuzzy" => {
                if let Some((field, value)) = single_field(body, "value") {
                    self.push(Some(field), Find::Token(value));
                }
            }
            "terms" => {
                if let Some((field, Value::Array(values))) = body.as_object().and_then(|o| o.iter().find(|(k, _)| *k != "boost")) {
                    for value in values {
                        self.push(Some(field.clone()), Find::Token(value_text(value)));
                    }
                }
            }
            "prefix" => {
                if let Some((field, value)) = single_field(body, "value") {
                    self.push(Some(field), Find::Prefix(value.to_lowercase()));
                }
            }
            "wildcard" | "regexp" => {
                let key = if name == "wildcard" { "wildcard" } else { "value" };
                if let Some((field, value)) = single_field(body, key).or_else(|| single_field(body, "value")) {
                    let pattern = if name == "wildcard" {
                        wildcard_with(&value, regex_escape)
                    } else {
                        value
                    };
                    if let Some(re) = anchored(&pattern) {
                        self.push(Some(field), Find::Pattern(re));
                    }
                }
            }
            "query_string" => self.query_string(body, false),
            "simple_query_string" => self.query_string(body, true),
            _ => {}
        }
        Ok(())
    }

    /// The words of a query_string (or simple_query_string): operators and excluded terms
    /// skipped, `field:value`, quoted phrases and wildcards read as such.
    fn query_string(&mut self, body: &Value, simple: bool) {
        let text = body.get("query").map(value_text).unwrap_or_default();
        let text = if simple { simple_as_query_string(&text) } else { text };
        let listed = body.get("fields").or_else(|| body.get("default_field"));
        let default_fields = field_names(listed);
        // the search itself refuses a query_string it cannot read
        for token in tokenize_query_string(&text).unwrap_or_default() {
            if matches!(token.as_str(), "AND" | "OR" | "NOT") || token.starts_with('-') {
                continue;
            }
            let token = token.trim_start_matches('+');
            let (fields, value) = match token.split_once(':').filter(|(f, _)| !f.is_empty() && !f.contains('"')) {
                Some((field, value)) => (vec![Some(field.to_string())], value),
                None => (default_fields.clone(), token),
            };
            for field in fields {
                if let Some(phrase) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
                    self.words(field, phrase, true, false);
                } else if value.contains(['*', '?']) {
                    if let Some(re) = anchored(&wildcard_with(&value.to_lowercase(), regex_escape)) {
                        self.push(field, Find::Pattern(re));
                    }
                } else {
                    self.words(field, value, false, false);
                }
            }
        }
    }

    /// Analyzed words of `text`: one phrase, or each word (the last one as a prefix).
    fn words(&mut self, field: Option<String>, text: &str, phrase: bool, last_is_prefix: bool) {
        let mut analyzer = self.analyzer.clone();
        let mut stream = analyzer.token_stream(text);
        let mut words = Vec::new();
        while let Some(token) = stream.next() {
            words.push(token.text.clone());
        }
        if phrase && words.len() > 1 && !last_is_prefix {
            self.push(field, Find::Phrase(words));
            return;
        }
        let last = words.len().saturating_sub(1);
        for (i, word) in words.into_iter().enumerate() {
            let find = if last_is_prefix && i == last {
                Find::Prefix(word)
            } else {
                Find::Token(word)
            };
            self.push(field.clone(), find);
        }
    }

    fn push(&mut self, field: Option<String>, find: Find) {
        let field = field.map(|f| f.split('^').next().unwrap_or_default().to_string());
        self.wanted.push(Wanted { field, find });
    }
}

/// The global options, or a field's options over the global ones.
fn options(spec: &Map<String, Value>, mut base: FieldOptions, global: bool) -> Result<FieldOptions> {
    for (key, value) in spec {
        let count = || -> Result<usize> {
            let n = value
                .as_u64()
                .ok_or_else(|| bad(format!("highlight {key} must be a non-negative integer")))?;
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        };
        let tag = || -> Result<String> {
            match value {
                Value::Array(tags) => tags.first().and_then(Value::as_str),
                other => other.as_str(),
            }
            .map(str::to_string)
            .ok_or_else(|| bad(format!("highlight {key} must be a list of strings")))
        };
        match key.as_str() {
            "pre_tags" => base.pre = tag()?,
            "post_tags" => base.post = tag()?,
            "fragment_size" => base.fragment_size = count()?.max(1),
            "number_of_fragments" => base.fragments = count()?,
            "no_match_size" => base.no_match_size = count()?,
            "require_field_match" => {
                base.require_field_match = value
                    .as_bool()
                    .ok_or_else(|| bad("highlight require_field_match must be a boolean"))?
            }
            "encoder" => match value.as_str() {
                Some("html") => base.html = true,
                Some("default") => base.html = false,
                _ => return Err(bad(format!("unsupported highlight encoder: {value}"))),
            },
            "fields" | "highlight_query" if global => {}
            "order" if value.as_str() == Some("none") || value.as_str() == Some("score") => {}
            key if IGNORED.contains(&key) => {}
            other => return Err(bad(format!("unsupported highlight option: {other}"))),
        }
    }
    Ok(base)
}

fn field_options(name: &str, own: &Value, defaults: &FieldOptions) -> Result<FieldOptions> {
    let own = match own {
        Value::Object(map) => map.clone(),
        Value::Null => Map::new(),
        other => return Err(bad(format!("highlight options of [{name}] must be an object, got {other}"))),
    };
    let mut options = options(&own, defaults.clone(), false)?;
    options.name = name.to_string();
    Ok(options)
}

/// A stretch of one value to show, with the marks inside it.
#[derive(Clone)]
struct Passage {
    value: usize,
    start: usize,
    end: usize,
    marks: Vec<(usize, usize)>,
}

impl Passage {
    fn render(&self, text: &str, options: &FieldOptions) -> String {
        let mut out = String::new();
        let mut at = self.start;
        for &(from, to) in &self.marks {
            out.push_str(&encode(&text[at..from], options.html));
            out.push_str(&options.pre);
            out.push_str(&encode(&text[from..to], options.html));
            out.push_str(&options.post);
            at = to;
        }
        out.push_str(&encode(&text[at..self.end], options.html));
        out.trim().to_string()
    }
}

/// Passages around the marks: the sentence of each mark, cut to about `size` characters at
/// word boundaries; a mark past the last passage starts the next one, never before its end.
fn passages_of(value: usize, text: &str, marks: Vec<(usize, usize)>, size: usize) -> Vec<Passage> {
    let mut passages: Vec<Passage> = Vec::new();
    for (from, to) in marks {
        if let Some(last) = passages.last_mut().filter(|p| to <= p.end) {
            last.marks.push((from, to));
            continue;
        }
        let earliest = passages.last().map_or(0, |p| p.end);
        let (sentence_start, sentence_end) = sentence_around(text, from, 4 * size + (to - from));
        let mut start = sentence_start.max(earliest);
        if text[start..from].chars().count() + text[from..to].chars().count() > size {
            // the mark would fall outside the cut: centre the window on it
            let back = size.saturating_sub(text[from..to].chars().count()) / 2;
            start = word_start(text, char_offset_back(text, from, back)).max(start);
        }
        let end = word_end(text, char_offset(text, start, size)).min(sentence_end).max(to);
        passages.push(Passage {
            value,
            start,
            end,
            marks: vec![(from, to)],
        });
    }
    passages
}

/// The sentence holding byte `at`: after the last `.`, `!`, `?` or line break followed by
/// white space before it, up to and including the next one; looked for at most `reach` bytes
/// away (a passage is never longer), so a text without sentence ends costs no more.
fn sentence_around(text: &str, at: usize, reach: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    let is_end = |i: usize| {
        matches!(bytes[i], b'\n') || (matches!(bytes[i], b'.' | b'!' | b'?') && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace()))
    };
    let (low, high) = (at.saturating_sub(reach), (at + reach).min(bytes.len()));
    let start = (low..at).rev().find(|&i| is_end(i)).map_or(low, |i| i + 1);
    let end = (at..high).find(|&i| is_end(i)).map_or(high, |i| i + 1);
    (floor_char(text, start), floor_char(text, end))
}

fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The byte offset `chars` characters after byte `from` (or the end).
fn char_offset(text: &str, from: usize, chars: usize) -> usize {
    text[from..].char_indices().nth(chars).map_or(text.len(), |(i, _)| from + i)
}

/// The byte offset `chars` characters before byte `to` (or the start).
fn char_offset_back(text: &str, to: usize, chars: usize) -> usize {
    if chars == 0 {
        return to;
    }
    text[..to].char_indices().rev().nth(chars - 1).map_or(0, |(i, _)| i)
}

/// `at` moved back to the start of its word (at most `BOUNDARY_SCAN` characters; a longer
/// word is cut, as with Elasticsearch's `boundary_max_scan`).
fn word_start(text: &str, at: usize) -> usize {
    let mut before = text[..at].char_indices().rev();
    match before.by_ref().take(BOUNDARY_SCAN).find(|(_, c)| c.is_whitespace()) {
        Some((i, c)) => i + c.len_utf8(),
        None if before.next().is_none() => 0,
        None => at,
    }
}

/// `at` moved forward to the end of its word (at most `BOUNDARY_SCAN` characters).
fn word_end(text: &str, at: usize) -> usize {
    let mut after = text[at..].char_indices();
    match after.by_ref().take(BOUNDARY_SCAN).find(|(_, c)| c.is_whitespace()) {
        Some((i, _)) => at + i,
        None if after.next().is_none() => text.len(),
        None => at,
    }
}

fn encode(text: &str, html: bool) -> String {
    if !html {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out
}

/// Every string in `value` with its dotted path (array elements share their array's path).
fn string_leaves<'a>(value: &'a Value, path: String, out: &mut Vec<(String, &'a str)>) {
    match value {
        Value::String(text) => out.push((path, text)),
        Value::Array(items) => items.iter().for_each(|item| string_leaves(item, path.clone(), out)),
        Value::Object(map) => {
            for (key, child) in map {
                let child_path = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                string_leaves(child, child_path, out);
            }
        }
        _ => {}
    }
}

/// Field-name match with `*` wildcards (greedy with backtracking to the last star: linear
/// in practice, never exponential).
fn glob(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ni));
            pi += 1;
        } else if pi < p.len() && p[pi] == n[ni] {
            pi += 1;
            ni += 1;
        } else if let Some((star_p, star_n)) = star {
            pi = star_p + 1;
            ni = star_n + 1;
            star = Some((star_p, star_n + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// A one-field clause `{field: value}` or `{field: {key: value}}` as (field, text).
fn single_field(body: &Value, key: &str) -> Option<(String, String)> {
    let (field, value) = body.as_object()?.iter().find(|(k, _)| !matches!(k.as_str(), "boost" | "_name"))?;
    let value = match value {
        Value::Object(opts) => opts.get(key)?,
        other => other,
    };
    Some((field.clone(), value_text(value)))
}

/// Listed fields (`None` for each wildcard or when none are listed: any field).
fn field_names(listed: Option<&Value>) -> Vec<Option<String>> {
    let names: Vec<Option<String>> = one_or_many(listed)
        .into_iter()
        .filter_map(Value::as_str)
        .map(|f| (!f.contains('*')).then(|| f.to_string()))
        .collect();
    if names.is_empty() {
        vec![None]
    } else {
        names
    }
}

fn regex_escape(text: &str) -> String {
    regex::escape(text)
}

fn anchored(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(&format!("^(?:{pattern})$"))
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()
        .ok()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tantivy_store::text_analyzer;

    fn hl(spec: Value, query: Value, source: Value) -> Option<Value> {
        Highlighter::parse(&spec, &query, text_analyzer()).unwrap().highlight(&source)
    }

    #[test]
    fn whole_values_are_marked_as_texta_asks() {
        let spec = json!({"fields": {"*": {}}, "number_of_fragments": 0, "pre_tags": ["<TEXTA>"], "post_tags": ["</TEXTA>"]});
        let query = json!({"bool": {"must": [{"match": {"text": "Varas"}}], "must_not": [{"match": {"text": "kinni"}}]}});
        let source = json!({"text": "Varas peeti kinni, varas!", "meta": {"text": "varas"}, "n": 5});
        assert_eq!(
            hl(spec, query, source),
            Some(json!({"text": ["<TEXTA>Varas</TEXTA> peeti kinni, <TEXTA>varas</TEXTA>!"]}))
        );
    }

    #[test]
    fn phrases_prefixes_patterns_and_query_strings() {
        let spec = json!({"fields": ["a", "b", "c"], "number_of_fragments": 0});
        let query = json!({"bool": {"should": [
            {"match_phrase": {"a": "the menu"}},
            {"prefix": {"b": "win"}},
            {"query_string": {"query": "c:tal* AND -c:maja OR \"suur linn\""}}
        ]}});
        let source = json!({"a": "the file menu and the menu bar", "b": "Windows window", "c": ["Tallinn on suur linn", "maja linn"]});
        assert_eq!(
            hl(spec, query, source),
            Some(json!({
                "a": ["the file menu and <em>the</em> <em>menu</em> bar"],
                "b": ["<em>Windows</em> <em>window</em>"],
                "c": ["<em>Tallinn</em> on <em>suur</em> <em>linn</em>"]
            }))
        );
        let any_field = json!({"fields": {"c": {}}, "number_of_fragments": 0, "require_field_match": false});
        let query = json!({"query_string": {"query": "\"suur linn\""}});
        assert_eq!(
            hl(any_field, query, json!({"c": "Tallinn on suur linn"})),
            Some(json!({"c": ["Tallinn on <em>suur</em> <em>linn</em>"]}))
        );
    }

    #[test]
    fn fragments_are_sentences_cut_near_the_marks_best_first_in_text_order() {
        let text = "First sentence has nothing. The word cat appears here. Filler words follow without the animal. \
                    A cat and another cat meet. ";
        let spec = json!({"fields": {"text": {"number_of_fragments": 1}}});
        let query = json!({"match": {"text": "cat"}});
        assert_eq!(
            hl(spec, query.clone(), json!({"text": text})),
            Some(json!({"text": ["A <em>cat</em> and another <em>cat</em> meet."]}))
        );
        let two = json!({"fields": {"text": {}}, "fragment_size": 20});
        assert_eq!(
            hl(two, query, json!({"text": text})),
            Some(json!({"text": ["The word <em>cat</em> appears", "A <em>cat</em> and another <em>cat</em>"]}))
        );
    }

    #[test]
    fn field_patterns() {
        assert!(glob("*", "a.b"));
        assert!(glob("meta.*", "meta.text"));
        assert!(glob("*.text", "comment.text"));
        assert!(!glob("*.text", "comment.body"));
        assert!(glob("a*b*c", "aXbYc"));
        assert!(!glob("a*b*c", "aXbY"));
        let long = "a".repeat(200);
        assert!(!glob(&format!("{}b", "*a".repeat(30)), &long), "no exponential backtracking");
    }

    #[test]
    fn long_texts_without_sentences_or_spaces_stay_cheap() {
        let text = "x_".repeat(200_000);
        let started = std::time::Instant::now();
        let found = hl(json!({"fields": {"t": {}}}), json!({"match": {"t": "x"}}), json!({ "t": text })).unwrap();
        assert_eq!(found["t"].as_array().unwrap().len(), 5);
        let facts: Vec<Value> = (0..5000)
            .map(|i| json!({"fact": "PER", "str_val": format!("x{i}"), "doc_path": "t"}))
            .collect();
        let found = hl(
            json!({"fields": {"*": {}}}),
            json!({"match": {"texta_facts.str_val": "x7"}}),
            json!({ "texta_facts": facts }),
        );
        assert_eq!(found, Some(json!({"texta_facts.str_val": ["<em>x7</em>"]})));
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    }

    #[test]
    fn no_match_html_and_bad_options() {
        let spec = json!({"fields": {"text": {"no_match_size": 10}}, "encoder": "html"});
        assert_eq!(
            hl(spec.clone(), json!({"match": {"text": "x"}}), json!({"text": "a <b> c d e f"})),
            Some(json!({"text": ["a &lt;b&gt; c d"]}))
        );
        assert_eq!(
            hl(json!({"fields": {"text": {}}}), json!({"match_all": {}}), json!({"text": "a"})),
            None
        );
        let err = Highlighter::parse(&json!({"fields": {"t": {}}, "tags_schema": "styled"}), &json!({}), text_analyzer())
            .err()
            .unwrap();
        assert_eq!(err.to_string(), "unsupported highlight option: tags_schema");
        let err = Highlighter::parse(&json!({"pre_tags": ["<b>"]}), &json!({}), text_analyzer())
            .err()
            .unwrap();
        assert_eq!(err.to_string(), "highlight needs fields");
    }
}
