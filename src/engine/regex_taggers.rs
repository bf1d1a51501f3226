//! Regex taggers and regex tagger groups as project resources: validation, storage,
//! the compiled-matcher cache, and the tagging operations. Matching itself lives in
//! `regex_tagger` (the engine module this file wires to the store).
use super::db::Cached;
use super::error::{Error, Result};
use super::kinds::ResourceKind;
use super::lines::{Sparse, SparseLine};
use super::operations::Dialect;
use super::regex_facts::{group_facts, tagger_facts, GroupFactsOut, GroupTagTextOut, TagTextOut, TaggerFactsOut};
use super::regex_tagger::{ops, CompileError, MatchError, Matcher, MatcherConfig};
use super::resources::{resource_url, Kind, Resource};
use super::tasks::TaskOut;
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// A regex tagger group and its members' matchers (ascending tagger id).
type LoadedGroup = (Resource, Vec<(Resource, Arc<Matcher>)>);

/// Longest accepted text, and most texts per request (conventions §12).
pub const MAX_TEXT_CHARS: usize = 1_000_000;
pub const MAX_TEXTS: usize = 10_000;

/// `{"tagger_group_id", "description"}` inside a tagger.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct GroupRef {
    pub tagger_group_id: i64,
    pub description: String,
}

/// The regex tagger resource on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct RegexTaggerOut {
    pub id: i64,
    pub url: String,
    pub author_username: String,
    pub description: String,
    #[serde(flatten)]
    pub config: MatcherConfig,
    pub tagger_groups: Vec<GroupRef>,
    /// The latest apply_to_index run; absent before the first, so that answers stay the
    /// reference's (2.10.3) until a model is applied.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub task: Option<TaskOut>,
}

/// The body that creates or changes a regex tagger (`lexicon` required on create).
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RegexTaggerIn {
    pub description: String,
    #[serde(flatten)]
    pub config: MatcherConfig,
}

/// A member inside a group: `{"tagger_id", "description"}` (`api.md` §9); for TEXTA's web
/// client also the whole tagger (it shows the settings, `texta-client.md` §5 #12).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TaggerRef {
    pub tagger_id: i64,
    pub description: String,
    /// The whole tagger's fields, for the web client only (not in the documented schema:
    /// an absent flattened object has no OpenAPI form).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    #[schema(ignore)]
    pub tagger: Option<RegexTaggerOut>,
}

/// `{"message", "duplicate_id"}` of duplicate.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct DuplicateOut {
    pub message: String,
    pub duplicate_id: i64,
}

/// The body that creates or changes a regex tagger group.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RegexTaggerGroupIn {
    pub description: String,
    /// Member tagger ids.
    pub regex_taggers: Vec<i64>,
}

/// The regex tagger group resource on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct RegexTaggerGroupOut {
    pub id: i64,
    pub url: String,
    pub regex_taggers: Vec<i64>,
    pub author_username: String,
    pub task: Option<TaskOut>,
    pub description: String,
    pub tagger_info: Vec<TaggerRef>,
}

/// Compiled matchers by tagger id, with the configuration they were compiled from
/// (a changed configuration recompiles; deletion evicts).
#[derive(Default)]
pub struct MatcherCache {
    map: RwLock<HashMap<i64, (String, Arc<Matcher>)>>,
}

impl MatcherCache {
    fn get(&self, id: i64, config: &Value) -> Result<Arc<Matcher>> {
        let key = config.to_string();
        if let Some((k, m)) = self.map.read().unwrap_or_else(|p| p.into_inner()).get(&id) {
            if *k == key {
                return Ok(m.clone());
            }
        }
        let cfg: MatcherConfig = serde_json::from_value(config.clone()).map_err(Error::internal)?;
        let m = Arc::new(Matcher::compile(&cfg).map_err(compile_error)?);
        self.map.write().unwrap_or_else(|p| p.into_inner()).insert(id, (key, m.clone()));
        Ok(m)
    }

    fn evict(&self, id: i64) {
        self.map.write().unwrap_or_else(|p| p.into_inner()).remove(&id);
    }
}

fn compile_error(e: CompileError) -> Error {
    Error::field(e.field, e.message)
}

pub fn match_error(e: MatchError) -> Error {
    Error::BadRequest(format!("{e}; simplify the lexicon or shorten the text"))
}

/// A text field per the conventions: required, trimmed, non-blank, bounded.
pub const TEXT: Str = Str::REQUIRED.max(MAX_TEXT_CHARS);

/// Parse `{"text"}`.
pub fn parse_text(body: &Value) -> Result<String> {
    let mut f = Form::new(body, Mode::Full)?;
    let text = f.string("text", TEXT);
    f.finish()?;
    Ok(text.unwrap_or_default())
}

/// Parse `{"texts"}`.
pub fn parse_texts(body: &Value) -> Result<Vec<String>> {
    let mut f = Form::new(body, Mode::Full)?;
    let texts = f.strings("texts", List::REQUIRED.max(MAX_TEXTS), TEXT);
    f.finish()?;
    Ok(texts.unwrap_or_default())
}

/// Parse `{"doc", "fields"}`.
fn parse_doc(body: &Value) -> Result<(Value, Vec<String>)> {
    let mut f = Form::new(body, Mode::Full)?;
    let doc = f.object("doc", true).cloned();
    let fields = f.strings("fields", List::REQUIRED.non_empty(), Str::REQUIRED);
    f.finish()?;
    Ok((Value::Object(doc.unwrap_or_default()), fields.unwrap_or_default()))
}

/// Validate a tagger body onto `base` (defaults for create/PUT, the stored
/// configuration for PATCH); returns the description and the compiled-ready config.
fn parse_tagger(body: &Value, mode: Mode, base: &Resource) -> Result<(String, MatcherConfig)> {
    let mut cfg: MatcherConfig = if mode == Mode::Partial {
        serde_json::from_value(base.config.clone()).unwrap_or_default()
    } else {
        MatcherConfig::default()
    };
    let mut f = Form::new(body, mode)?;
    let description = f.string("description", Str::REQUIRED.max(1000));
    let item = Str::REQUIRED;
    if let Some(v) = f.strings("lexicon", List::REQUIRED.non_empty(), item) {
        cfg.lexicon = v;
    }
    if let Some(v) = f.strings("counter_lexicon", List::OPTIONAL, item) {
        cfg.counter_lexicon = v;
    }
    if let Some(v) = f.choice("operator", false) {
        cfg.operator = v;
    }
    if let Some(v) = f.choice("match_type", false) {
        cfg.match_type = v;
    }
    if let Some(v) = f.number("required_words", false, None, None) {
        cfg.required_words = v;
    }
    for (name, slot) in [
        ("phrase_slop", &mut cfg.phrase_slop),
        ("counter_slop", &mut cfg.counter_slop),
        ("n_allowed_edits", &mut cfg.n_allowed_edits),
    ] {
        if let Some(v) = f.integer(name, false, None, None) {
            *slot = v;
        }
    }
    for (name, slot) in [
        ("return_fuzzy_match", &mut cfg.return_fuzzy_match),
        ("ignore_case", &mut cfg.ignore_case),
        ("ignore_punctuation", &mut cfg.ignore_punctuation),
    ] {
        if let Some(v) = f.boolean(name) {
            *slot = v;
        }
    }
    if !f.has_errors() {
        if let Err(e) = Matcher::compile(&cfg) {
            f.fail(e.field, e.message);
        }
    }
    f.finish()?;
    Ok((description.unwrap_or_else(|| base.description.clone()), cfg))
}

/// Borrow loaded taggers as the matcher module's member tuples.
fn as_members(taggers: &[(Resource, Arc<Matcher>)]) -> Vec<ops::Member<'_>> {
    taggers.iter().map(|(r, m)| (r.id, r.description.as_str(), m.as_ref())).collect()
}

fn blank_resource() -> Resource {
    Resource {
        id: 0,
        project_id: 0,
        author_username: String::new(),
        description: String::new(),
        config: json!({}),
        task_id: None,
    }
}

impl Engine {
    pub(crate) fn render_tagger(&self, ctx: &Ctx, r: &Resource) -> Result<RegexTaggerOut> {
        Ok(RegexTaggerOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::RegexTagger, r.id),
            author_username: r.author_username.clone(),
            description: r.description.clone(),
            config: serde_json::from_value(r.config.clone()).unwrap_or_default(),
            tagger_groups: self
                .owners((Kind::RegexTagger, r.id), Kind::RegexTaggerGroup)?
                .into_iter()
                .map(|(id, d)| GroupRef {
                    tagger_group_id: id,
                    description: d,
                })
                .collect(),
            task: self.linked_task(r)?,
        })
    }

    pub(crate) fn render_group(&self, ctx: &Ctx, r: &Resource) -> Result<RegexTaggerGroupOut> {
        let members = self.resources_by_ids(
            Kind::RegexTagger,
            r.project_id,
            &self.members((Kind::RegexTaggerGroup, r.id), Kind::RegexTagger)?,
        )?;
        Ok(RegexTaggerGroupOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::RegexTaggerGroup, r.id),
            regex_taggers: members.iter().map(|m| m.id).collect(),
            author_username: r.author_username.clone(),
            task: self.linked_task(r)?,
            description: r.description.clone(),
            tagger_info: members
                .iter()
                .map(|m| {
                    Ok(TaggerRef {
                        tagger_id: m.id,
                        description: m.description.clone(),
                        tagger: match ctx.dialect {
                            Dialect::Reference => None,
                            Dialect::WebClient => Some(self.render_tagger(ctx, m)?),
                        },
                    })
                })
                .collect::<Result<_>>()?,
        })
    }

    /// The compiled matcher of a stored tagger (cached).
    pub(crate) fn matcher(&self, r: &Resource) -> Result<Arc<Matcher>> {
        self.matchers.get(r.id, &r.config)
    }

    /// A tagger and its matcher, for tagging calls.
    fn tagger(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<(Resource, Arc<Matcher>)> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::RegexTagger, pk, id)?;
        let m = self.matcher(&r)?;
        Ok((r, m))
    }

    /// POST regex_taggers/{id}/duplicate/: a copy of the tagger named `<description>_copy`,
    /// authored by the caller.
    pub fn duplicate_regex_tagger(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<DuplicateOut> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::RegexTagger, pk, id)?;
        let copy = format!("{}_copy", r.description);
        let duplicate_id = self.insert_resource(Kind::RegexTagger, ctx, pk, &copy, &r.config)?;
        Ok(DuplicateOut {
            message: "Tagger duplicated successfully!".into(),
            duplicate_id,
        })
    }

    /// POST regex_taggers/{id}/tag_text/: the result; for the web client also the text, and
    /// the matches also as facts.
    pub fn regex_tag_text(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<TagTextOut> {
        let (r, m) = self.tagger(ctx, pk, id)?;
        let text = parse_text(body)?;
        let result = ops::tag_text(r.id, &r.description, &m, &text).map_err(match_error)?;
        Ok(match ctx.dialect {
            Dialect::Reference => TagTextOut::Reference(result),
            Dialect::WebClient => TagTextOut::WebClient(tagger_facts(result, Some(text), None)),
        })
    }

    pub fn regex_tag_texts(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<Vec<ops::TagResult>> {
        let (r, m) = self.tagger(ctx, pk, id)?;
        let texts = parse_texts(body)?;
        ops::tag_texts(r.id, &r.description, &m, &texts).map_err(match_error)
    }

    pub fn regex_tag_doc(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<ops::TagResult> {
        let (r, m) = self.tagger(ctx, pk, id)?;
        let (doc, fields) = parse_doc(body)?;
        ops::tag_doc(r.id, &r.description, &m, &doc, &fields).map_err(match_error)
    }

    /// Taggers of the project with their matchers; `ids` empty = all.
    fn taggers_with_matchers(&self, pk: i64, ids: &[i64]) -> Result<Vec<(Resource, Arc<Matcher>)>> {
        let rows = if ids.is_empty() {
            self.all_resources(Kind::RegexTagger, pk)?
        } else {
            self.resources_by_ids(Kind::RegexTagger, pk, ids)?
        };
        rows.into_iter().map(|r| self.matcher(&r).map(|m| (r, m))).collect()
    }

    pub fn regex_multitag_text(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<Vec<ops::MultiTagEntry>> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let text = f.string("text", TEXT);
        let ids = f.pks("taggers", List::OPTIONAL);
        f.finish()?;
        let taggers = self.taggers_with_matchers(pk, &ids.unwrap_or_default())?;
        ops::multitag_text(&as_members(&taggers), &text.unwrap_or_default()).map_err(match_error)
    }

    // ---- groups ----

    pub(crate) fn parse_group(&self, pk: i64, body: &Value, mode: Mode) -> Result<(Option<String>, Option<Vec<i64>>)> {
        let mut f = Form::new(body, mode)?;
        let ids = f.pks("regex_taggers", List::REQUIRED);
        let mut members = None;
        if let Some(ids) = ids {
            match ids
                .iter()
                .find(|id| !self.resource_exists(Kind::RegexTagger, **id).unwrap_or(false))
            {
                Some(bad) => f.fail("regex_taggers", format!("Invalid pk \"{bad}\" - object does not exist.")),
                None => members = Some(self.resources_by_ids(Kind::RegexTagger, pk, &ids)?.iter().map(|r| r.id).collect()),
            }
        }
        let description = f.string("description", Str::REQUIRED.max(1000));
        f.finish()?;
        Ok((description, members))
    }

    /// A group and its members' matchers (ascending tagger id), after the access check.
    fn loaded_group(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<LoadedGroup> {
        self.check_project_access(ctx, pk)?;
        let g = self.resource(Kind::RegexTaggerGroup, pk, id)?;
        let ids = self.members((Kind::RegexTaggerGroup, id), Kind::RegexTagger)?;
        let members = if ids.is_empty() {
            Vec::new()
        } else {
            self.taggers_with_matchers(pk, &ids)?
        };
        Ok((g, members))
    }

    /// POST regex_tagger_groups/{id}/tag_text/: the members' tags; for the web client also
    /// the text and every match as the group's fact.
    pub fn group_tag_text(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<GroupTagTextOut> {
        let (g, members) = self.loaded_group(ctx, pk, id)?;
        let text = parse_text(body)?;
        let result = ops::group_tag_text(g.id, &g.description, &as_members(&members), &text).map_err(match_error)?;
        Ok(match ctx.dialect {
            Dialect::Reference => GroupTagTextOut::Reference(result),
            Dialect::WebClient => GroupTagTextOut::WebClient(group_facts(result, Some(text), None)),
        })
    }

    pub fn group_tag_texts(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<ops::GroupTagTextsResult> {
        let (g, members) = self.loaded_group(ctx, pk, id)?;
        let texts = parse_texts(body)?;
        ops::group_tag_texts(g.id, &g.description, &as_members(&members), &texts).map_err(match_error)
    }

    pub fn group_tag_doc(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<ops::GroupTagResult> {
        let (g, members) = self.loaded_group(ctx, pk, id)?;
        let (doc, fields) = parse_doc(body)?;
        ops::group_tag_doc(g.id, &g.description, &as_members(&members), &doc, &fields).map_err(match_error)
    }

    pub fn group_simple_tag_text(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<Vec<String>> {
        let (_, members) = self.loaded_group(ctx, pk, id)?;
        let text = parse_text(body)?;
        ops::simple_tag_text(&as_members(&members), &text).map_err(match_error)
    }

    /// Groups of the project with members; `ids` empty = all.
    fn groups_for(&self, pk: i64, body: &Value) -> Result<(String, Vec<LoadedGroup>)> {
        let mut f = Form::new(body, Mode::Full)?;
        let text = f.string("text", TEXT);
        let ids = f.pks("tagger_groups", List::OPTIONAL).unwrap_or_default();
        f.finish()?;
        let rows = if ids.is_empty() {
            self.all_resources(Kind::RegexTaggerGroup, pk)?
        } else {
            self.resources_by_ids(Kind::RegexTaggerGroup, pk, &ids)?
        };
        let groups = rows
            .into_iter()
            .map(|g| {
                let ids = self.members((Kind::RegexTaggerGroup, g.id), Kind::RegexTagger)?;
                let members = if ids.is_empty() {
                    Vec::new()
                } else {
                    self.taggers_with_matchers(pk, &ids)?
                };
                Ok((g, members))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((text.unwrap_or_default(), groups))
    }

    fn with_groups<T>(&self, ctx: &Ctx, pk: i64, body: &Value, f: impl FnOnce(&[ops::Group], &str) -> Result<T, MatchError>) -> Result<T> {
        self.check_project_access(ctx, pk)?;
        let (text, groups) = self.groups_for(pk, body)?;
        let members: Vec<Vec<ops::Member>> = groups.iter().map(|(_, ms)| as_members(ms)).collect();
        let gs: Vec<ops::Group> = groups
            .iter()
            .zip(&members)
            .map(|((g, _), ms)| (g.id, g.description.as_str(), ms.as_slice()))
            .collect();
        f(&gs, &text).map_err(match_error)
    }

    pub fn group_multitag_text(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<Vec<ops::GroupMultiTagEntry>> {
        self.with_groups(ctx, pk, body, ops::group_multitag_text)
    }

    pub fn group_simple_multitag_text(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<Map<String, Value>> {
        self.with_groups(ctx, pk, body, ops::simple_multitag_text)
    }
}

/// A batch result written as its JSON line.
trait JsonLine {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()>;
}

impl JsonLine for ops::TagResult {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        ops::TagResult::write_json(self, out)
    }
}

impl JsonLine for ops::GroupTagResult {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, self)
    }
}

/// Append the outcome of one item as a JSON line to `out`: its result, or `{"error": ...}`
/// so one bad line does not stop a stream. Written straight from the typed result.
fn write_item(r: Result<impl JsonLine>, out: &mut Vec<u8>) {
    let start = out.len();
    if let Err(e) = r.and_then(|v| v.write_json(out).map_err(Error::internal)) {
        out.truncate(start);
        out.extend_from_slice(json!({"error": e.to_string()}).to_string().as_bytes());
    }
}

/// Bytes a block of result lines starts with room for (a few hundred lines), sparing most
/// of its regrowing.
const BLOCK_CAPACITY: usize = 64 << 10;

/// Run `text` / `doc` over every input line in parallel; each line is parsed only as far as
/// the field lookups need. Texts are trimmed like request texts and a blank one is an item
/// error; a document with no `fields` to read is one too (the same error tag_doc answers),
/// never a silent "no match". The result lines come in input order, in blocks of
/// newline-separated lines (one block per piece of parallel work: no string per line).
fn tag_lines<T: JsonLine + Send>(
    lines: &[&str],
    fields: &[String],
    text: impl Fn(&str) -> Result<T, MatchError> + Sync,
    doc: impl Fn(&Sparse) -> Result<T, MatchError> + Sync,
) -> Vec<String> {
    use rayon::prelude::*;
    lines
        .par_iter()
        .fold(
            || Vec::with_capacity(BLOCK_CAPACITY),
            |mut block: Vec<u8>, line| {
                if !block.is_empty() {
                    block.push(b'\n');
                }
                let item = match SparseLine::parse(line) {
                    SparseLine::Text(t) => match super::pytext::strip(&t) {
                        "" => Err(Error::field("text", super::validate::NOT_BLANK)),
                        t => text(t).map_err(match_error),
                    },
                    SparseLine::Doc(_) if fields.is_empty() => Err(Error::field("fields", "This list may not be empty.")),
                    SparseLine::Doc(d) => doc(&d).map_err(match_error),
                };
                write_item(item, &mut block);
                block
            },
        )
        .filter(|block| !block.is_empty())
        // serde_json writes UTF-8 only: the lossy path never replaces anything.
        .map(|block| String::from_utf8(block).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
        .collect()
}

impl Engine {
    /// Tag batch input lines (texts or documents) with one tagger, in parallel, keeping
    /// input order; one JSON text per line, in blocks of lines.
    pub fn regex_tag_batch(&self, ctx: &Ctx, pk: i64, id: i64, lines: &[&str], fields: &[String]) -> Result<Vec<String>> {
        let (r, m) = self.tagger(ctx, pk, id)?;
        Ok(tag_lines(
            lines,
            fields,
            |t| ops::tag_text(r.id, &r.description, &m, t),
            |d| ops::tag_doc(r.id, &r.description, &m, d, fields),
        ))
    }

    /// Tag batch input lines (texts or documents) with one group, in parallel, keeping
    /// input order; one JSON text per line, in blocks of lines.
    pub fn group_tag_batch(&self, ctx: &Ctx, pk: i64, id: i64, lines: &[&str], fields: &[String]) -> Result<Vec<String>> {
        let (g, members) = self.loaded_group(ctx, pk, id)?;
        let members = as_members(&members);
        Ok(tag_lines(
            lines,
            fields,
            |t| ops::group_tag_text(g.id, &g.description, &members, t),
            |d| ops::group_tag_doc(g.id, &g.description, &members, d, fields),
        ))
    }

    /// The project a resource belongs to (CLI convenience when `--project` is omitted).
    pub fn project_of(&self, ctx: &Ctx, kind: Kind, id: i64) -> Result<i64> {
        let pk: Option<i64> = self.db.with(|c| {
            use rusqlite::OptionalExtension;
            Ok(c.cached_row(
                "SELECT project_id FROM resources WHERE kind = ?1 AND id = ?2",
                rusqlite::params![kind.tag(), id],
                |r| r.get(0),
            )
            .optional()?)
        })?;
        let pk = pk.ok_or_else(Error::not_found)?;
        self.check_project_access(ctx, pk)?;
        Ok(pk)
    }
}

/// Documents per batch when applying a group to an index.
const APPLY_BATCH: usize = 500;

/// Parse `{"indices": [{name}], "fields": [..]}` of the tag_random_doc actions.
fn parse_random_doc(body: &Value) -> Result<(Option<Vec<String>>, Vec<String>)> {
    let mut f = Form::new(body, Mode::Full)?;
    let indices = super::indices::parse_index_objects(&mut f, "indices")?;
    let fields = f.strings("fields", List::REQUIRED.non_empty(), Str::REQUIRED);
    f.finish()?;
    Ok((indices, fields.unwrap_or_default()))
}

/// The chosen document as the tag_random_doc actions show it: flattened, every requested
/// field present (null when missing), and its id.
fn shown_document(hit: &super::search::Hit, fields: &[String]) -> Value {
    let mut flat = ops::flatten(&hit.source);
    for f in fields {
        flat.entry(f.clone()).or_insert(Value::Null);
    }
    flat.entry("id".to_string()).or_insert_with(|| json!(hit.id));
    Value::Object(flat)
}

impl Engine {
    /// POST regex_taggers/{id}/tag_random_doc/.
    pub fn regex_tag_random_doc(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<TaggerFactsOut> {
        let (r, m) = self.tagger(ctx, pk, id)?;
        let (indices, fields) = parse_random_doc(body)?;
        let hit = self.random_document(pk, indices)?;
        let result = ops::tag_doc(r.id, &r.description, &m, &hit.source, &fields).map_err(match_error)?;
        Ok(tagger_facts(result, None, Some(shown_document(&hit, &fields))))
    }

    /// POST regex_tagger_groups/{id}/tag_random_doc/.
    pub fn group_tag_random_doc(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<GroupFactsOut> {
        let (g, members) = self.loaded_group(ctx, pk, id)?;
        let (indices, fields) = parse_random_doc(body)?;
        let hit = self.random_document(pk, indices)?;
        let result = ops::group_tag_doc(g.id, &g.description, &as_members(&members), &hit.source, &fields).map_err(match_error)?;
        Ok(group_facts(result, None, Some(shown_document(&hit, &fields))))
    }

    /// POST regex_tagger_groups/{id}/apply_tagger_group/ — starts a task that adds one fact
    /// per member match to every document matching `query`.
    pub fn apply_tagger_group(self: &Arc<Self>, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<Value> {
        self.start_apply_tagger_group(ctx, pk, id, body, None)
    }

    /// As `apply_tagger_group`, in the foreground when `observer` is given (local CLI).
    pub fn start_apply_tagger_group(
        self: &Arc<Self>,
        ctx: &Ctx,
        pk: i64,
        id: i64,
        body: &Value,
        observer: Option<super::tasks::Observer>,
    ) -> Result<Value> {
        self.check_project_access(ctx, pk)?;
        self.resource(Kind::RegexTaggerGroup, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let _label = f.string("description", Str::REQUIRED.max(1000));
        let indices = super::indices::parse_index_objects(&mut f, "indices")?;
        let fields = f.strings("fields", List::REQUIRED.non_empty(), Str::REQUIRED);
        let query = super::taggers::parse_query(&mut f).map(|q| super::search::query_clause(&q).clone());
        f.finish()?;
        let indices = self.resolve_indices(pk, indices)?;
        let (fields, query) = (fields.unwrap_or_default(), query.unwrap_or_else(|| json!({"match_all": {}})));
        self.launch_apply(ctx, pk, id, indices, fields, query, observer)?;
        Ok(json!({"message": format!("Started process of applying RegexTaggerGroup with id: {id}")}))
    }

    /// Starts the apply task with validated parameters (also a retry's way in).
    #[allow(clippy::too_many_arguments)]
    pub fn launch_apply(
        self: &Arc<Self>,
        ctx: &Ctx,
        pk: i64,
        id: i64,
        indices: Vec<String>,
        fields: Vec<String>,
        query: Value,
        observer: Option<super::tasks::Observer>,
    ) -> Result<i64> {
        let kind = super::tasks::TaskKind::ApplyRegexTaggerGroup {
            group: id,
            user: ctx.user.id,
            indices: indices.clone(),
            fields: fields.clone(),
            query: query.clone(),
        };
        let task = self.create_task(&kind, Some(pk))?;
        self.set_resource_task(Kind::RegexTaggerGroup, id, task)?;
        let engine = self.clone();
        let ctx = ctx.clone();
        self.run_task(
            task,
            Box::new(move |h| engine.run_apply(&ctx, pk, id, &indices, &fields, &query, h)),
            observer,
        );
        Ok(task)
    }

    /// The apply job: scan matching documents in batches, add facts, write changed ones.
    #[allow(clippy::too_many_arguments)]
    fn run_apply(
        &self,
        ctx: &Ctx,
        pk: i64,
        id: i64,
        indices: &[String],
        fields: &[String],
        query: &Value,
        h: &super::tasks::TaskHandle,
    ) -> Result<()> {
        h.step("applying regex tagger group")?;
        let (g, members) = self.loaded_group(ctx, pk, id)?;
        let members = as_members(&members);
        let selection = super::index_runs::Selection {
            indices: indices.to_vec(),
            query: query.clone(),
        };
        self.run_over_documents(pk, &selection, APPLY_BATCH, 0, h, &|hits| {
            super::index_runs::per_document(hits, |hit| {
                let mut source = hit.source.clone();
                let changed = ops::apply_group_to_doc(&g.description, &members, &mut source, fields).map_err(match_error)?;
                Ok(super::index_runs::DocOutcome {
                    update: changed.then(|| {
                        let mut partial = Map::new();
                        partial.insert("texta_facts".into(), source["texta_facts"].take());
                        partial
                    }),
                    problems: Vec::new(),
                })
            })
        })
    }
}

/// The regex tagger kind (`/projects/{pk}/regex_taggers/`).
pub struct RegexTaggers;

impl ResourceKind for RegexTaggers {
    const KIND: Kind = Kind::RegexTagger;
    const NOUN: &'static str = "regex tagger";
    type Out = RegexTaggerOut;
    type In = RegexTaggerIn;

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<RegexTaggerOut> {
        e.render_tagger(ctx, r)
    }

    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<RegexTaggerOut> {
        let (description, cfg) = parse_tagger(body, Mode::Full, &blank_resource())?;
        let id = e.insert_resource(
            Kind::RegexTagger,
            ctx,
            pk,
            &description,
            &serde_json::to_value(cfg).map_err(Error::internal)?,
        )?;
        e.get_of::<Self>(ctx, pk, id)
    }

    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        let (description, cfg) = parse_tagger(body, mode, r)?;
        e.store_config(Kind::RegexTagger, r.id, &description, &cfg)
    }

    fn deleting(e: &Engine, r: &Resource) -> Result<()> {
        e.matchers.evict(r.id);
        Ok(())
    }
}

/// The regex tagger group kind (`/projects/{pk}/regex_tagger_groups/`).
pub struct RegexTaggerGroups;

impl ResourceKind for RegexTaggerGroups {
    const KIND: Kind = Kind::RegexTaggerGroup;
    const NOUN: &'static str = "regex tagger group";
    type Out = RegexTaggerGroupOut;
    type In = RegexTaggerGroupIn;

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<RegexTaggerGroupOut> {
        e.render_group(ctx, r)
    }

    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<RegexTaggerGroupOut> {
        let (description, members) = e.parse_group(pk, body, Mode::Full)?;
        let id = e.insert_resource(Kind::RegexTaggerGroup, ctx, pk, &description.unwrap_or_default(), &json!({}))?;
        e.set_members((Kind::RegexTaggerGroup, id), Kind::RegexTagger, &members.unwrap_or_default())?;
        e.get_of::<Self>(ctx, pk, id)
    }

    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        let (description, members) = e.parse_group(r.project_id, body, mode)?;
        e.update_resource(
            Kind::RegexTaggerGroup,
            r.id,
            description.as_deref().unwrap_or(&r.description),
            &r.config,
        )?;
        if let Some(m) = members {
            e.set_members((Kind::RegexTaggerGroup, r.id), Kind::RegexTagger, &m)?;
        }
        Ok(())
    }
}
