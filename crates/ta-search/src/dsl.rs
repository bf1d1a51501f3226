//! Translation of the Elasticsearch query DSL subset TEXTA sends into tantivy queries over the
//! embedded store's schema (see `tantivy_store`): `match_all`, `match_none`, `bool`,
//! `constant_score`, `dis_max`, `match` (with `fuzziness`), `match_phrase`,
//! `match_phrase_prefix`, `multi_match`, `term`, `terms`, `fuzzy`, `range`, `exists`,
//! `prefix`, `wildcard`, `regexp`, `query_string` and `simple_query_string` (simple syntax),
//! `ids`, `nested` on `texta_facts` and `more_like_this` with texts (terms chosen from each
//! index's term statistics, BM25). Anything else is `SearchError::BadQuery` naming the clause.
//!
//! Field routing follows Elasticsearch's dynamic mapping: a plain path is an analyzed `text`
//! field (term-level queries see its lower-cased tokens), `x.keyword` and `texta_facts.*` are
//! exact keyword fields, numbers/booleans/dates are typed values, ranges use fast fields
//! (date bounds may use date math, `date_math.rs`).

use std::ops::Bound;

use serde_json::{Map, Value};
use tantivy::json_utils::convert_to_fast_value_and_append_to_json_term;
use tantivy::query::{
    AllQuery, BooleanQuery, ConstScoreQuery, DisjunctionMaxQuery, EmptyQuery, ExistsQuery, FuzzyTermQuery, Occur, PhrasePrefixQuery,
    PhraseQuery, Query, RangeQuery, TermQuery, TermSetQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Term};
use tantivy::time::OffsetDateTime;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::Searcher;

use super::backend::{Result, SearchError};
use super::block_join::BlockJoin;
use super::mapping::{looks_like_date, FACTS_FIELD};
use super::wildcard::{Wildcard, WildcardQuery};

mod params;
pub use params::escape_regex;
use params::{
    as_object, boosted, bytes_regex, fuzziness, json_path_bytes, minimum_should_match, range_term, regex_query, required, required_str,
    scored_term, single, split_boost, split_field, Target, ValueKind,
};
pub(crate) use params::{one_or_many, simple_as_query_string, tokenize_query_string, value_text, wildcard_with};

/// Schema fields of an embedded index.
#[derive(Debug, Clone, Copy)]
pub struct StoreFields {
    /// Document id, exact (`_id`).
    pub id: Field,
    /// `d` for documents, `f` for nested fact documents.
    pub kind: Field,
    /// Parent document id of a nested fact document (fast field).
    pub parent: Field,
    /// The original `_source` JSON bytes (stored only).
    pub source: Field,
    /// JSON field of all values, strings analyzed with positions.
    pub text: Field,
    /// JSON field of all values, strings up to 256 characters kept whole (fast).
    pub kw: Field,
}

pub const KIND_DOC: &str = "d";
pub const KIND_FACT: &str = "f";
/// Elasticsearch's `index.max_regex_length`: the longest `regexp` value, in characters.
const MAX_REGEX_LENGTH: usize = 1000;

/// What a translation needs: the schema, a searcher (nested queries resolve their fact
/// documents eagerly), the text analyzer and the text paths for field-less queries.
pub struct DslContext<'a> {
    pub fields: StoreFields,
    pub searcher: &'a Searcher,
    pub analyzer: TextAnalyzer,
    pub text_paths: Vec<String>,
}

type Q = Box<dyn Query>;

fn bad(msg: impl Into<String>) -> SearchError {
    SearchError::BadQuery(msg.into())
}

/// Filter selecting top-level documents (not nested fact documents).
pub fn kind_query(fields: &StoreFields, kind: &str) -> Q {
    Box::new(TermQuery::new(Term::from_field_text(fields.kind, kind), IndexRecordOption::Basic))
}

impl DslContext<'_> {
    /// Translates a query clause; `null` and `{}` mean match_all.
    pub fn translate(&self, clause: &Value) -> Result<Q> {
        let obj = match clause {
            Value::Null => return Ok(Box::new(AllQuery)),
            Value::Object(obj) => obj,
            other => return Err(bad(format!("query must be an object, got {other}"))),
        };
        let mut entries = obj.iter();
        let (name, body) = match (entries.next(), entries.next()) {
            (None, _) => return Ok(Box::new(AllQuery)),
            (Some(entry), None) => entry,
            (Some(_), Some(_)) => return Err(bad("query clause must have exactly one key, e.g. {\"match\": {...}}")),
        };
        match name.as_str() {
            "match_all" => Ok(Box::new(AllQuery)),
            "match_none" => Ok(Box::new(EmptyQuery)),
            "bool" => self.bool_query(as_object(name, body)?),
            "constant_score" => self.constant_score(body),
            "dis_max" => self.dis_max(body),
            "match" => self.per_field(name, body, "query", |ctx, path, opts| ctx.match_query(path, opts)),
            "match_phrase" => self.per_field(name, body, "query", |ctx, path, opts| ctx.phrase(path, opts)),
            "match_phrase_prefix" => self.per_field(name, body, "query", |ctx, path, opts| ctx.phrase_prefix(path, opts)),
            "fuzzy" => self.per_field(name, body, "value", |ctx, path, opts| {
                let value = required(opts, "value")?;
                let term = ctx.exact_term(&Target::of(path)?, value)?;
                let distance = fuzziness(opts.get("fuzziness"), &value_text(value))?;
                let transpositions = opts.get("transpositions").and_then(Value::as_bool).unwrap_or(true);
                Ok(Box::new(FuzzyTermQuery::new(term, distance, transpositions)) as Q)
            }),
            "multi_match" => self.multi_match(as_object(name, body)?),
            "term" => self.per_field(name, body, "value", |ctx, path, opts| ctx.term(path, required(opts, "value")?)),
            "terms" => self.terms(as_object(name, body)?),
            "range" => self.per_field(name, body, "", |ctx, path, opts| ctx.range(path, opts)),
            "exists" => self.exists(body),
            "prefix" => self.per_field(name, body, "value", |ctx, path, opts| {
                let value = required_str(opts, "value")?;
                ctx.wildcard(path, |prefix| Wildcard::prefix(prefix, value))
            }),
            "wildcard" => self.per_field(name, body, "value", |ctx, path, opts| {
                let value = opts.get("wildcard").or_else(|| opts.get("value"));
                let value = value.and_then(Value::as_str).ok_or_else(|| bad("wildcard needs a string value"))?;
                ctx.wildcard(path, |prefix| Wildcard::new(prefix, value))
            }),
            "regexp" => self.per_field(name, body, "value", |ctx, path, opts| {
                ctx.regexp(path, required_str(opts, "value")?)
            }),
            "query_string" => self.query_string(as_object(name, body)?),
            "simple_query_string" => self.simple_query_string(as_object(name, body)?),
            "ids" => self.ids(body),
            "nested" => self.nested(as_object(name, body)?),
            "more_like_this" => self.more_like_this(as_object(name, body)?),
            other => Err(bad(format!("unsupported query clause: {other}"))),
        }
    }

    /// Runs a single-field clause `{field: value}` or `{field: {short_key: value, ...}}`.
    fn per_field(
        &self,
        name: &str,
        body: &Value,
        short_key: &str,
        build: impl Fn(&Self, &str, &Map<String, Value>) -> Result<Q>,
    ) -> Result<Q> {
        let obj = as_object(name, body)?;
        let mut fields = obj.iter().filter(|(k, _)| !matches!(k.as_str(), "boost" | "_name"));
        let (path, value) = fields.next().ok_or_else(|| bad(format!("{name} needs a field")))?;
        if fields.next().is_some() {
            return Err(bad(format!("{name} query doesn't support multiple fields")));
        }
        match value {
            Value::Object(opts) => build(self, path, opts),
            shorthand => {
                let mut opts = Map::new();
                opts.insert(short_key.to_string(), shorthand.clone());
                build(self, path, &opts)
            }
        }
    }

    fn bool_query(&self, obj: &Map<String, Value>) -> Result<Q> {
        let mut clauses: Vec<(Occur, Q)> = Vec::new();
        let mut should_count = 0;
        for (key, occur) in [
            ("must", Occur::Must),
            ("filter", Occur::Must),
            ("should", Occur::Should),
            ("must_not", Occur::MustNot),
        ] {
            for clause in one_or_many(obj.get(key)) {
                let query = self.translate(clause)?;
                let query: Q = if key == "filter" {
                    Box::new(ConstScoreQuery::new(query, 0.0))
                } else {
                    query
                };
                should_count += usize::from(occur == Occur::Should);
                clauses.push((occur, query));
            }
        }
        let has_required = clauses.iter().any(|(o, _)| *o == Occur::Must);
        let default_msm = usize::from(!has_required && should_count > 0);
        let msm = match obj.get("minimum_should_match") {
            Some(v) => minimum_should_match(v, should_count)?,
            None => default_msm,
        };
        if !has_required && should_count == 0 {
            clauses.push((Occur::Must, Box::new(AllQuery)));
        }
        if msm > should_count {
            return Ok(Box::new(EmptyQuery));
        }
        Ok(Box::new(BooleanQuery::with_minimum_required_clauses(clauses, msm)))
    }

    fn constant_score(&self, body: &Value) -> Result<Q> {
        let filter = body.get("filter").ok_or_else(|| bad("constant_score needs a filter"))?;
        let boost = body.get("boost").and_then(Value::as_f64).unwrap_or(1.0) as f32;
        Ok(Box::new(ConstScoreQuery::new(self.translate(filter)?, boost)))
    }

    fn dis_max(&self, body: &Value) -> Result<Q> {
        let queries = one_or_many(body.get("queries"))
            .into_iter()
            .map(|q| self.translate(q))
            .collect::<Result<Vec<_>>>()?;
        let tie = body.get("tie_breaker").and_then(Value::as_f64).unwrap_or(0.0) as f32;
        Ok(Box::new(DisjunctionMaxQuery::with_tie_breaker(queries, tie)))
    }

    fn match_query(&self, path: &str, opts: &Map<String, Value>) -> Result<Q> {
        let value = required(opts, "query")?;
        let target = Target::of(path)?;
        let text = match (value, target.keyword) {
            (Value::String(s), false) => s,
            _ => return self.term(path, value),
        };
        let words = self.words(&target, text);
        let terms: Vec<Term> = words.iter().map(|w| self.text_term(&target, w)).collect();
        let and = opts
            .get("operator")
            .and_then(Value::as_str)
            .is_some_and(|o| o.eq_ignore_ascii_case("and"));
        let msm = match opts.get("minimum_should_match") {
            Some(v) => minimum_should_match(v, terms.len())?,
            None if and => terms.len(),
            None => 1,
        };
        let fuzzy = opts.get("fuzziness");
        let mut clauses: Vec<(Occur, Q)> = Vec::with_capacity(terms.len());
        for (term, word) in terms.into_iter().zip(&words) {
            let query = match fuzzy {
                Some(setting) => Box::new(FuzzyTermQuery::new(term, fuzziness(Some(setting), word)?, true)) as Q,
                None => scored_term(term),
            };
            clauses.push((Occur::Should, query));
        }
        if let Some(typed) = self.typed_term(&target, text) {
            clauses = vec![
                (
                    Occur::Should,
                    Box::new(BooleanQuery::with_minimum_required_clauses(clauses, msm)) as Q,
                ),
                (Occur::Should, scored_term(typed)),
            ];
            return Ok(Box::new(BooleanQuery::new(clauses)));
        }
        if clauses.is_empty() || msm > clauses.len() {
            return Ok(Box::new(EmptyQuery));
        }
        Ok(Box::new(BooleanQuery::with_minimum_required_clauses(clauses, msm)))
    }

    fn phrase(&self, path: &str, opts: &Map<String, Value>) -> Result<Q> {
        let target = Target::of(path)?;
        let text = match required(opts, "query")? {
            Value::String(s) if !target.keyword => s,
            other => return self.term(path, other),
        };
        let mut terms = self.analyze(&target, text);
        let slop = opts.get("slop").and_then(Value::as_u64).unwrap_or(0) as u32;
        Ok(match terms.len() {
            0 => Box::new(EmptyQuery),
            1 => scored_term(terms.remove(0)),
            _ => Box::new(PhraseQuery::new_with_offset_and_slop(terms.into_iter().enumerate().collect(), slop)),
        })
    }

    /// The words as a phrase whose last word is a prefix (`max_expansions` words, 50 by
    /// default, as in Elasticsearch).
    fn phrase_prefix(&self, path: &str, opts: &Map<String, Value>) -> Result<Q> {
        let target = Target::of(path)?;
        let text = match required(opts, "query")? {
            Value::String(s) => s,
            other => return self.term(path, other),
        };
        if target.keyword {
            return self.wildcard(path, |prefix| Wildcard::prefix(prefix, text));
        }
        let words = self.words(&target, text);
        let terms: Vec<Term> = words.iter().map(|w| self.text_term(&target, w)).collect();
        let expansions = opts.get("max_expansions").and_then(Value::as_u64).unwrap_or(50);
        Ok(match words.as_slice() {
            [] => Box::new(EmptyQuery),
            [word] => self.wildcard(path, |prefix| Wildcard::prefix(prefix, word))?,
            _ => {
                let mut query = PhrasePrefixQuery::new(terms);
                query.set_max_expansions(u32::try_from(expansions).unwrap_or(u32::MAX));
                Box::new(query)
            }
        })
    }

    fn multi_match(&self, obj: &Map<String, Value>) -> Result<Q> {
        let query = required(obj, "query")?;
        let mut opts = obj.clone();
        opts.remove("fields");
        let kind = obj.get("type").and_then(Value::as_str).unwrap_or("best_fields");
        let fields = self.field_list(obj.get("fields"));
        let mut per_field = Vec::new();
        for field in &fields {
            let (path, boost) = split_boost(field);
            let mut field_opts = opts.clone();
            field_opts.insert("query".into(), query.clone());
            let q = match kind {
                "phrase" => self.phrase(path, &field_opts)?,
                "best_fields" | "most_fields" | "cross_fields" => self.match_query(path, &field_opts)?,
                other => return Err(bad(format!("unsupported multi_match type: {other}"))),
            };
            per_field.push(boosted(q, boost));
        }
        if kind == "most_fields" {
            return Ok(Box::new(BooleanQuery::union(per_field)));
        }
        let tie = obj.get("tie_breaker").and_then(Value::as_f64).unwrap_or(0.0) as f32;
        Ok(Box::new(DisjunctionMaxQuery::with_tie_breaker(per_field, tie)))
    }

    /// The listed fields (wildcard entries expanded over text paths), or all text paths.
    fn field_list(&self, fields: Option<&Value>) -> Vec<String> {
        let listed: Vec<&str> = one_or_many(fields).into_iter().filter_map(Value::as_str).collect();
        if listed.is_empty() || listed.contains(&"*") {
            return self.text_paths.clone();
        }
        listed
            .into_iter()
            .flat_map(|f| match f.strip_suffix('*') {
                Some(prefix) if !f.contains('^') => self.text_paths.iter().filter(|p| p.starts_with(prefix)).cloned().collect(),
                _ => vec![f.to_string()],
            })
            .collect()
    }

    fn term(&self, path: &str, value: &Value) -> Result<Q> {
        let term = self.exact_term(&Target::of(path)?, value)?;
        Ok(scored_term(term))
    }

    fn terms(&self, obj: &Map<String, Value>) -> Result<Q> {
        let mut fields = obj.iter().filter(|(k, _)| k.as_str() != "boost");
        let (path, values) = fields.next().ok_or_else(|| bad("terms needs a field"))?;
        let Value::Array(values) = values else {
            return Err(bad("terms needs an array of values"));
        };
        let target = Target::of(path)?;
        let terms = values.iter().map(|v| self.exact_term(&target, v)).collect::<Result<Vec<_>>>()?;
        Ok(Box::new(ConstScoreQuery::new(Box::new(TermSetQuery::new(terms)), 1.0)))
    }

    fn range(&self, path: &str, opts: &Map<String, Value>) -> Result<Q> {
        let target = Target::of(path)?;
        let base = Term::from_field_json_path(self.fields.kw, &target.path, true);
        if let Some(zone) = opts
            .get("time_zone")
            .filter(|z| !matches!(z.as_str(), Some("UTC" | "Z" | "+00:00")))
        {
            return Err(bad(format!("unsupported range option: time_zone {zone} (dates are UTC)")));
        }
        let now = OffsetDateTime::now_utc();
        // date math rounds up for `gt` and `lte`, down for `gte` and `lt`
        let bound = |incl: &str, excl: &str, kind: ValueKind| -> Result<Bound<Term>> {
            let term = |v: &Value, round_up: bool| range_term(&base, v, kind, now, round_up);
            match (opts.get(incl), opts.get(excl)) {
                (Some(v), _) => Ok(term(v, incl == "lte")?.map_or(Bound::Unbounded, Bound::Included)),
                (None, Some(v)) => Ok(term(v, excl == "gt")?.map_or(Bound::Unbounded, Bound::Excluded)),
                (None, None) => Ok(Bound::Unbounded),
            }
        };
        let bounds_of = |kind| -> Result<Option<Q>> {
            let (lower, upper) = (bound("gte", "gt", kind)?, bound("lte", "lt", kind)?);
            if matches!((&lower, &upper), (Bound::Unbounded, Bound::Unbounded)) {
                return Ok(None);
            }
            Ok(Some(Box::new(RangeQuery::new(lower, upper))))
        };
        let kinds = [ValueKind::Number, ValueKind::Date, ValueKind::Str];
        let queries: Vec<Q> = kinds
            .into_iter()
            .map(bounds_of)
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .flatten()
            .collect();
        if queries.is_empty() {
            return self.exists(&Value::Object(Map::from_iter([("field".to_string(), Value::from(path))])));
        }
        Ok(Box::new(ConstScoreQuery::new(Box::new(BooleanQuery::union(queries)), 1.0)))
    }

    fn exists(&self, body: &Value) -> Result<Q> {
        let path = body
            .get("field")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("exists needs a field"))?;
        let target = Target::of(path)?;
        let field = if target.keyword { self.fields.kw } else { self.fields.text };
        let pattern = format!("(?s){}(\\x01.*)?\\x00s.*", bytes_regex(&json_path_bytes(field, &target.path)));
        let strings = regex_query(&pattern, field)?;
        let typed = ExistsQuery::new(format!("kw.{}", target.path), true);
        Ok(Box::new(ConstScoreQuery::new(
            Box::new(BooleanQuery::union(vec![strings, Box::new(typed)])),
            1.0,
        )))
    }

    /// The field of a path's strings and the term prefix their values follow (the JSON path,
    /// then the string type marker).
    fn string_terms(&self, path: &str) -> Result<(Field, Vec<u8>)> {
        let target = Target::of(path)?;
        let field = if target.keyword { self.fields.kw } else { self.fields.text };
        let mut prefix = json_path_bytes(field, &target.path);
        prefix.extend_from_slice(b"\x00s");
        Ok((field, prefix))
    }

    /// prefix / wildcard: the automaton `make` builds for the term prefix must match a whole
    /// indexed string value (a token for text fields, the whole value for keyword fields).
    fn wildcard(&self, path: &str, make: impl FnOnce(&[u8]) -> Wildcard) -> Result<Q> {
        let (field, prefix) = self.string_terms(path)?;
        Ok(Box::new(ConstScoreQuery::new(
            Box::new(WildcardQuery::new(field, make(&prefix))),
            1.0,
        )))
    }

    /// regexp: `regex` must match a whole indexed string value; longer than Elasticsearch's
    /// `index.max_regex_length` (1000) is refused with its message.
    fn regexp(&self, path: &str, regex: &str) -> Result<Q> {
        let length = regex.chars().count();
        if length > MAX_REGEX_LENGTH {
            return Err(bad(format!(
                "The length of regex [{length}] used in the Regexp Query request has exceeded the allowed maximum of \
                 [{MAX_REGEX_LENGTH}]. This maximum can be set by changing the [index.max_regex_length] index level setting."
            )));
        }
        let (field, prefix) = self.string_terms(path)?;
        regex_query(&format!("(?s){}(?:{regex})", bytes_regex(&prefix)), field)
    }

    fn ids(&self, body: &Value) -> Result<Q> {
        let values = body
            .get("values")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("ids needs values"))?;
        let terms = values
            .iter()
            .map(|v| Term::from_field_text(self.fields.id, &value_text(v)))
            .collect::<Vec<_>>();
        Ok(Box::new(ConstScoreQuery::new(Box::new(TermSetQuery::new(terms)), 1.0)))
    }

    /// `nested` on `texta_facts`: the inner query runs over the fact documents; their parents
    /// match. Each fact is its own document, so conditions must hold for one fact together.
    fn nested(&self, obj: &Map<String, Value>) -> Result<Q> {
        let path = obj.get("path").and_then(Value::as_str).unwrap_or_default();
        if path != FACTS_FIELD {
            return Err(bad(format!("unsupported nested path: {path} (only {FACTS_FIELD})")));
        }
        let inner = self.translate(required(obj, "query")?)?;
        let facts = BooleanQuery::intersection(vec![inner, kind_query(&self.fields, KIND_FACT)]);
        let parents = BlockJoin::parents_of(Box::new(facts), self.fields.kind);
        Ok(Box::new(ConstScoreQuery::new(Box::new(parents), 1.0)))
    }

    /// `more_like_this` with texts to be like (Elasticsearch's defaults: `min_term_freq` 2,
    /// `max_query_terms` 25, `min_doc_freq` 5, `minimum_should_match` 30%). The texts are
    /// analyzed as the first field is; each term that passes the frequency and length limits
    /// is scored tf × idf with BM25's idf from this index's statistics, its document frequency
    /// being its largest over the fields (the clause goes to that field); the best
    /// `max_query_terms` terms become scored `should` clauses (`boost_terms`: boosted by their
    /// score relative to the best one). No term left matches nothing.
    fn more_like_this(&self, obj: &Map<String, Value>) -> Result<Q> {
        if let Some(key) = ["unlike", "like_docs", "ids", "docs"].into_iter().find(|k| obj.contains_key(*k)) {
            return Err(bad(format!("unsupported more_like_this option: {key}")));
        }
        let like = obj
            .get("like")
            .or_else(|| obj.get("like_text"))
            .ok_or_else(|| bad("more_like_this needs [like]"))?;
        let texts = one_or_many(Some(like))
            .into_iter()
            .map(|t| {
                t.as_str()
                    .ok_or_else(|| bad("more_like_this: [like] takes texts; documents are not supported"))
            })
            .collect::<Result<Vec<&str>>>()?;
        let number = |key: &str, default: u64| -> Result<u64> {
            match obj.get(key) {
                None => Ok(default),
                Some(v) => v
                    .as_u64()
                    .ok_or_else(|| bad(format!("more_like_this: [{key}] must be a non-negative integer"))),
            }
        };
        let min_term_freq = number("min_term_freq", 2)?;
        let max_query_terms = usize::try_from(number("max_query_terms", 25)?).unwrap_or(usize::MAX);
        let min_doc_freq = number("min_doc_freq", 5)?;
        let max_doc_freq = number("max_doc_freq", u64::from(u32::MAX >> 1))?;
        let min_word_length = usize::try_from(number("min_word_length", 0)?).unwrap_or(usize::MAX);
        let max_word_length = usize::try_from(number("max_word_length", 0)?).unwrap_or(usize::MAX);
        let boost_terms = obj.get("boost_terms").and_then(Value::as_f64).unwrap_or(0.0);
        let stop_words: Vec<String> = one_or_many(obj.get("stop_words"))
            .into_iter()
            .filter_map(Value::as_str)
            .map(str::to_lowercase)
            .collect();
        let targets: Vec<Target> = self
            .field_list(obj.get("fields"))
            .iter()
            .map(|f| Target::of(f))
            .collect::<Result<_>>()?;
        let Some(first) = targets.first() else {
            return Ok(Box::new(EmptyQuery));
        };
        // term frequencies in the texts, in first-seen order
        let mut frequencies: Vec<(String, u64)> = Vec::new();
        let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for text in texts {
            for word in self.words(first, text) {
                let length = word.chars().count();
                if length < min_word_length || (max_word_length > 0 && length > max_word_length) || stop_words.contains(&word) {
                    continue;
                }
                match seen.get(&word) {
                    Some(&at) => frequencies[at].1 += 1,
                    None => {
                        seen.insert(word.clone(), frequencies.len());
                        frequencies.push((word, 1));
                    }
                }
            }
        }
        let num_docs = self.searcher.num_docs() as f64;
        let mut scored: Vec<(f64, Term)> = Vec::new();
        for (word, tf) in frequencies {
            if tf < min_term_freq {
                continue;
            }
            let mut best: Option<(u64, Term)> = None;
            for target in &targets {
                let term = self.text_term(target, &word);
                let df = self.searcher.doc_freq(&term).map_err(|e| SearchError::Backend(e.to_string()))?;
                if best.as_ref().is_none_or(|(top, _)| df > *top) {
                    best = Some((df, term));
                }
            }
            let Some((df, term)) = best.filter(|(df, _)| *df > 0 && *df >= min_doc_freq && *df <= max_doc_freq) else {
                continue;
            };
            let df = df as f64;
            let idf = (1.0 + (num_docs - df + 0.5) / (df + 0.5)).ln();
            scored.push((tf as f64 * idf, term));
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored.truncate(max_query_terms);
        let top = scored.first().map_or(1.0, |(score, _)| *score);
        let clauses: Vec<(Occur, Q)> = scored
            .into_iter()
            .map(|(score, term)| {
                let boost = if boost_terms > 0.0 {
                    (score / top * boost_terms) as f32
                } else {
                    1.0
                };
                (Occur::Should, boosted(scored_term(term), boost))
            })
            .collect();
        let msm = match obj.get("minimum_should_match") {
            Some(v) => minimum_should_match(v, clauses.len())?,
            None => minimum_should_match(&Value::from("30%"), clauses.len())?,
        };
        if clauses.is_empty() {
            return Ok(Box::new(EmptyQuery));
        }
        let query: Q = Box::new(BooleanQuery::with_minimum_required_clauses(clauses, msm));
        Ok(boosted(query, obj.get("boost").and_then(Value::as_f64).unwrap_or(1.0) as f32))
    }

    fn query_string(&self, obj: &Map<String, Value>) -> Result<Q> {
        let text = required_str(obj, "query")?;
        let default_and = obj
            .get("default_operator")
            .and_then(Value::as_str)
            .is_some_and(|o| o.eq_ignore_ascii_case("and"));
        let fields = match (obj.get("fields"), obj.get("default_field")) {
            (Some(f), _) => self.field_list(Some(f)),
            (None, Some(f)) => self.field_list(Some(f)),
            (None, None) => self.text_paths.clone(),
        };
        let default = if default_and { Occur::Must } else { Occur::Should };
        let mut clauses: Vec<(Occur, Q)> = Vec::new();
        let mut next: Option<Occur> = None;
        for token in tokenize_query_string(text)? {
            match token.as_str() {
                "AND" => {
                    if let Some(last) = clauses.last_mut().filter(|(o, _)| *o == Occur::Should) {
                        last.0 = Occur::Must;
                    }
                    next = Some(Occur::Must);
                }
                "OR" => next = Some(Occur::Should),
                "NOT" => next = Some(Occur::MustNot),
                _ => {
                    let (explicit, body) = match token.as_bytes()[0] {
                        b'+' => (Some(Occur::Must), &token[1..]),
                        b'-' => (Some(Occur::MustNot), &token[1..]),
                        _ => (None, token.as_str()),
                    };
                    let occur = explicit.or(next.take()).unwrap_or(default);
                    clauses.push((occur, self.query_string_term(body, &fields)?));
                }
            }
        }
        if !clauses.iter().any(|(o, _)| *o != Occur::MustNot) {
            clauses.push((Occur::Must, Box::new(AllQuery)));
        }
        Ok(Box::new(BooleanQuery::new(clauses)))
    }

    /// simple_query_string: `+` (and), `|` (or), `-` (not), `"phrases"` and `prefix*`, read
    /// as query_string terms; grouping, fuzziness and slop marks are ignored, as the clause
    /// never fails on syntax.
    fn simple_query_string(&self, obj: &Map<String, Value>) -> Result<Q> {
        let plain = simple_as_query_string(required_str(obj, "query")?);
        let mut translated = obj.clone();
        translated.insert("query".into(), Value::from(plain));
        self.query_string(&translated)
    }

    /// One query_string term: `field:value`, `"phrase"`, `pre*`, `*` or a plain word.
    fn query_string_term(&self, token: &str, fields: &[String]) -> Result<Q> {
        let (fields, value) = match split_field(token) {
            Some((field, value)) => (vec![field.to_string()], value),
            None => (fields.to_vec(), token),
        };
        if value == "*" {
            return Ok(match fields.as_slice() {
                [one] if token.contains(':') && one != "*" => self.exists(&serde_json::json!({"field": one}))?,
                _ => Box::new(AllQuery),
            });
        }
        let per_field = fields
            .iter()
            .map(|path| {
                if let Some(phrase) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
                    self.phrase(path, &single("query", phrase))
                } else if value.contains(['*', '?']) {
                    self.wildcard(path, |prefix| Wildcard::new(prefix, &value.to_lowercase()))
                } else {
                    self.match_query(path, &single("query", value))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Box::new(DisjunctionMaxQuery::new(per_field)))
    }

    /// Analyzed tokens of `text` as terms on the target path.
    fn analyze(&self, target: &Target, text: &str) -> Vec<Term> {
        self.words(target, text).iter().map(|w| self.text_term(target, w)).collect()
    }

    /// The analyzed tokens of `text` (the whole text for a keyword target).
    fn words(&self, target: &Target, text: &str) -> Vec<String> {
        if target.keyword {
            return vec![text.to_string()];
        }
        let mut analyzer = self.analyzer.clone();
        let mut stream = analyzer.token_stream(text);
        let mut words = Vec::new();
        while let Some(token) = stream.next() {
            words.push(token.text.clone());
        }
        words
    }

    /// A string term on the target path.
    fn text_term(&self, target: &Target, word: &str) -> Term {
        let field = if target.keyword { self.fields.kw } else { self.fields.text };
        let mut term = Term::from_field_json_path(field, &target.path, true);
        term.append_type_and_str(word);
        term
    }

    /// The string read as a number, date or boolean on the target path, when it is one (a
    /// date without an offset is UTC).
    fn typed_term(&self, target: &Target, text: &str) -> Option<Term> {
        let base = Term::from_field_json_path(self.fields.kw, &target.path, true);
        convert_to_fast_value_and_append_to_json_term(&base, text, true).or_else(|| {
            let date = super::date_math::parse_date(text).filter(|_| looks_like_date(text))?;
            let mut term = base;
            term.append_type_and_fast_value(tantivy::DateTime::from_utc(date));
            Some(term)
        })
    }

    /// A term-level value (not analyzed) as a term on the target path; typed values are in
    /// the keyword field only.
    fn exact_term(&self, target: &Target, value: &Value) -> Result<Term> {
        let field = if target.keyword || !value.is_string() {
            self.fields.kw
        } else {
            self.fields.text
        };
        let mut term = Term::from_field_json_path(field, &target.path, true);
        match value {
            Value::String(s) => term.append_type_and_str(s),
            Value::Bool(b) => term.append_type_and_fast_value(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => term.append_type_and_fast_value(i),
                None => term.append_type_and_fast_value(n.as_f64().unwrap_or(f64::NAN)),
            },
            other => return Err(bad(format!("unsupported term value: {other}"))),
        }
        Ok(term)
    }
}
