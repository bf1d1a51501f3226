//! Language processing over indices (`collection.md` §1): the `mlp_index` resource kind,
//! whose task runs the analyzers of `/mlp/texts/` over chosen fields of the selected
//! documents and writes `<field>_mlp` and the facts into each, and `POST /mlp/docs/`, the
//! same for documents sent in the request. A retry goes on where a run stopped: documents
//! that already hold the output of every field are not selected again.
use super::error::{Error, Result};
use super::index_runs::{fact_str, merged_facts, DocOutcome, Selection, MIN_BATCH};
use super::indices::IndexOut;
use super::kinds::ResourceKind;
use super::mlp::{Analyzers, MlpEngine};
use super::resources::{resource_url, Kind, Resource};
use super::tasks::{Observer, TaskHandle, TaskKind, TaskOut};
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The analyzers a client chooses from (texta-mlp 1.4's eight; `all` is accepted too).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Analyzer {
    Lemmas,
    PosTags,
    Transliteration,
    Ner,
    Contacts,
    Entities,
    Namemail,
    Bounded,
}

/// The mlp_index resource on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct MlpIndexOut {
    pub id: i64,
    pub url: String,
    pub author_username: String,
    pub indices: Vec<IndexOut>,
    pub description: String,
    pub task: Option<TaskOut>,
    /// The selecting query, `{"query": {...}}`.
    pub query: Value,
    pub fields: Vec<String>,
    pub analyzers: Vec<String>,
}

/// The body that creates an mlp_index run (an update changes `description` only).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct MlpIndexIn {
    pub description: String,
    /// `[{"name": "x"}]` or `["x"]`; all the project's open indices when empty.
    pub indices: Option<Vec<Value>>,
    /// The fields to analyse (dotted paths).
    pub fields: Vec<String>,
    /// A search query (object or JSON string) selecting the documents; all by default.
    pub query: Option<Value>,
    /// The analyzers to run (default all).
    pub analyzers: Option<Vec<Analyzer>>,
}

/// The body of `/mlp/docs/`.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct MlpDocsIn {
    /// Up to 10 000 documents.
    pub docs: Vec<Map<String, Value>>,
    /// Dotted paths of the fields to analyse in each.
    pub fields_to_parse: Vec<String>,
    pub analyzers: Option<Vec<Analyzer>>,
}

/// What an mlp_index resource keeps.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
struct Stored {
    indices: Vec<String>,
    /// The query clause.
    query: Value,
    fields: Vec<String>,
    analyzers: Vec<String>,
}

/// `{"message"}` of retry.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct MessageOut {
    pub message: String,
}

/// The `analyzers` choices: the eight names plus `all`.
fn analyzer_choices() -> Vec<&'static str> {
    Analyzers::NAMES.iter().copied().chain(["all"]).collect()
}

/// Reads `analyzers`: the names as sent, in order, once each (default `["all"]`).
fn parse_analyzers(f: &mut Form) -> Vec<String> {
    let mut names = f
        .multiple_choice("analyzers", List::OPTIONAL, &analyzer_choices())
        .unwrap_or_else(|| vec!["all".into()]);
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

fn analyzers_of(names: &[String]) -> Result<Analyzers> {
    Analyzers::parse(names).map_err(Error::internal)
}

/// The object holding the field at dotted `path` and the field's key in it, walking objects
/// as field lookups do (a literal dotted key first); None when the path leads nowhere.
pub(crate) fn container_of<'a>(doc: &'a mut Map<String, Value>, path: &str) -> Option<(&'a mut Map<String, Value>, String)> {
    if doc.contains_key(path) {
        return Some((doc, path.to_string()));
    }
    let key = doc
        .iter()
        .find(|(k, v)| v.is_object() && path.strip_prefix(k.as_str()).is_some_and(|rest| rest.starts_with('.')))
        .map(|(k, _)| k.clone())?;
    match doc.get_mut(&key) {
        Some(Value::Object(inner)) => container_of(inner, &path[key.len() + 1..]),
        _ => None,
    }
}

/// Sets `value` beside the field at dotted `path` (key `<last segment>_mlp` in the same
/// object); false when the path leads nowhere.
fn set_beside(doc: &mut Map<String, Value>, path: &str, value: Value) -> bool {
    match container_of(doc, path) {
        Some((object, key)) => {
            object.insert(format!("{key}_mlp"), value);
            true
        }
        None => false,
    }
}

/// The text of a field for analysis: a string, or the strings of an array joined by a
/// blank line; None for anything else.
fn analysed_text(doc: &Value, path: &str) -> Option<String> {
    match super::lines::flat_get(doc, path)? {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) if items.iter().all(Value::is_string) && !items.is_empty() => {
            Some(items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n\n"))
        }
        _ => None,
    }
}

/// A document with `<field>_mlp` beside each analysable field and the facts of the
/// analyses in `texta_facts` (replacing those of earlier analyses of these fields), and
/// the fields that could not be analysed, with the reason.
fn analyse_document(
    mlp: &MlpEngine,
    doc: &Map<String, Value>,
    fields: &[String],
    analyzers: &Analyzers,
) -> (Map<String, Value>, Vec<(String, Error)>) {
    let source = Value::Object(doc.clone());
    let mut out = doc.clone();
    let mut facts = Vec::new();
    let mut problems = Vec::new();
    let mut analysed: Vec<&str> = Vec::new();
    for field in fields {
        let Some(text) = analysed_text(&source, field) else {
            continue;
        };
        if text.chars().count() > super::regex_taggers::MAX_TEXT_CHARS {
            let limit = super::regex_taggers::MAX_TEXT_CHARS;
            problems.push((field.clone(), Error::BadRequest(format!("text longer than {limit} characters"))));
            continue;
        }
        match mlp.process(text.trim(), analyzers) {
            Ok(mut result) => {
                set_beside(&mut out, field, result["text"].take());
                let path = format!("{field}_mlp.text");
                for mut f in result["texta_facts"].as_array().cloned().unwrap_or_default() {
                    f["doc_path"] = json!(path);
                    facts.push(f);
                }
                analysed.push(field);
            }
            Err(reason) => problems.push((field.clone(), Error::Unavailable(reason))),
        }
    }
    let owned = |f: &Value| {
        analysed
            .iter()
            .any(|field| fact_str(f, "doc_path").starts_with(&format!("{field}_mlp.")))
    };
    if let Some(merged) = merged_facts(doc.get("texta_facts"), owned, facts) {
        out.insert("texta_facts".into(), merged);
    }
    (out, problems)
}

/// The selection of a retry: the documents of the run's selection still missing the
/// output of some field they have.
fn unfinished(selection: &Selection, fields: &[String]) -> Selection {
    let done: Vec<Value> = fields
        .iter()
        .map(|f| {
            json!({"bool": {"should": [
                {"exists": {"field": format!("{f}_mlp.lang")}},
                {"bool": {"must_not": [{"exists": {"field": f}}]}},
            ]}})
        })
        .collect();
    Selection {
        indices: selection.indices.clone(),
        query: json!({"bool": {"filter": [selection.query], "must_not": [{"bool": {"filter": done}}]}}),
    }
}

impl Engine {
    /// Refuses at once when the language data every text needs did not load.
    fn mlp_ready(&self, analyzers: &Analyzers) -> Result<()> {
        self.mlp().process("ta", analyzers).map(drop).map_err(Error::Unavailable)
    }

    fn render_mlp_index(&self, ctx: &Ctx, r: &Resource) -> Result<MlpIndexOut> {
        let s: Stored = serde_json::from_value(r.config.clone()).unwrap_or_default();
        Ok(MlpIndexOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::MlpIndex, r.id),
            author_username: r.author_username.clone(),
            indices: self.index_objects(ctx, &s.indices)?,
            description: r.description.clone(),
            task: self.linked_task(r)?,
            query: json!({ "query": s.query }),
            fields: s.fields,
            analyzers: s.analyzers,
        })
    }

    /// Starts (or, `resume`, continues) the run of mlp_index `id`.
    fn start_mlp_index(self: &Arc<Self>, pk: i64, id: i64, resume: bool, observer: Option<Observer>) -> Result<i64> {
        let r = self.resource(Kind::MlpIndex, pk, id)?;
        let s: Stored = serde_json::from_value(r.config.clone()).map_err(Error::internal)?;
        let analyzers = analyzers_of(&s.analyzers)?;
        self.mlp_ready(&analyzers)?;
        let already = match (resume, self.linked_task(&r)?) {
            (true, Some(t)) => u64::try_from(t.num_processed).unwrap_or(0),
            _ => 0,
        };
        let selection = Selection {
            indices: s.indices.clone(),
            query: s.query.clone(),
        };
        let selection = if resume {
            // Fields that hold no text never get an output: they do not make a document
            // unfinished.
            let texts: Vec<String> = self
                .search
                .fields(&s.indices)?
                .into_iter()
                .flat_map(|i| i.fields)
                .filter(|f| f.field_type == "text" || f.field_type == "keyword")
                .map(|f| f.path)
                .collect();
            let fields: Vec<String> = s.fields.iter().filter(|f| texts.contains(f)).cloned().collect();
            unfinished(&selection, &fields)
        } else {
            selection
        };
        let engine = self.clone();
        let job = Box::new(move |h: &TaskHandle| {
            h.step("running mlp")?;
            engine.mlp_ready(&analyzers)?;
            h.step("scrolling mlp")?;
            let mlp = engine.mlp();
            engine.run_over_documents(pk, &selection, MIN_BATCH, already, h, &|hits| {
                super::index_runs::per_document(hits, |hit| {
                    let Some(doc) = hit.source.as_object() else {
                        return Ok(DocOutcome::default());
                    };
                    let (new, problems) = analyse_document(mlp, doc, &s.fields, &analyzers);
                    let changed: Map<String, Value> = new.into_iter().filter(|(k, v)| doc.get(k) != Some(v)).collect();
                    Ok(DocOutcome {
                        update: (!changed.is_empty()).then_some(changed),
                        problems: problems.into_iter().map(|(field, e)| format!("{field}: {e}")).collect(),
                    })
                })
            })
        });
        let kind = TaskKind::MlpIndex { worker: id, resume };
        let (task, ()) = self.start_linked_task((Kind::MlpIndex, id), pk, &kind, job, observer, || Ok(()))?;
        Ok(task)
    }

    /// Creates an mlp_index resource and starts its run (in the foreground with an
    /// observer: the local CLI).
    pub fn create_mlp_index(self: &Arc<Self>, ctx: &Ctx, pk: i64, body: &Value, observer: Option<Observer>) -> Result<MlpIndexOut> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let description = f.string("description", Str::REQUIRED.max(1000));
        let indices = super::indices::parse_index_refs(&mut f, "indices")?;
        let fields = f.strings("fields", List::REQUIRED, Str::REQUIRED).unwrap_or_default();
        if f.raw("fields").is_some_and(Value::is_array) {
            self.check_project_fields(&mut f, pk, &fields)?;
        }
        let query = super::taggers::parse_query(&mut f);
        let analyzers = parse_analyzers(&mut f);
        f.finish()?;
        self.mlp_ready(&analyzers_of(&analyzers)?)?;
        let selection = self.selection(pk, indices, query)?;
        let stored = Stored {
            indices: selection.indices,
            query: selection.query,
            fields,
            analyzers,
        };
        let config = serde_json::to_value(&stored).map_err(Error::internal)?;
        let id = self.insert_resource(Kind::MlpIndex, ctx, pk, &description.unwrap_or_default(), &config)?;
        self.start_mlp_index(pk, id, false, observer)?;
        self.get_of::<MlpIndexes>(ctx, pk, id)
    }

    /// POST mlp_index/{id}/retry/ (ta extension): continue a finished or failed run.
    pub fn retry_mlp_index(self: &Arc<Self>, ctx: &Ctx, pk: i64, id: i64, observer: Option<Observer>) -> Result<MessageOut> {
        self.check_project_access(ctx, pk)?;
        self.idle_resource(Kind::MlpIndex, pk, id)?;
        self.start_mlp_index(pk, id, true, observer)?;
        Ok(MessageOut {
            message: format!("Started retrying MLP worker with id: {id}"),
        })
    }

    /// The run of a retried task (`/tasks/{id}/retry/`).
    pub(super) fn rerun_mlp_index(self: &Arc<Self>, pk: i64, id: i64) -> Result<i64> {
        self.idle_resource(Kind::MlpIndex, pk, id)?;
        self.start_mlp_index(pk, id, true, None)
    }

    /// POST /mlp/docs/: each document with its fields analysed, in order.
    pub fn mlp_docs(&self, _ctx: &Ctx, body: &Value) -> Result<Vec<Value>> {
        let mut f = Form::new(body, Mode::Full)?;
        let docs = f.list_of("docs", List::REQUIRED.max(super::regex_taggers::MAX_TEXTS), |v| match v {
            Value::Object(m) => Ok(m.clone()),
            other => Err(format!(
                "Expected a dictionary of items but got type \"{}\".",
                super::validate::py_type(other)
            )),
        });
        let fields = f.strings("fields_to_parse", List::REQUIRED, Str::REQUIRED);
        let analyzers = parse_analyzers(&mut f);
        f.finish()?;
        let analyzers = analyzers_of(&analyzers)?;
        self.mlp_ready(&analyzers)?;
        let (docs, fields) = (docs.unwrap_or_default(), fields.unwrap_or_default());
        let mlp = self.mlp();
        use rayon::prelude::*;
        docs.par_iter()
            .map(|doc| {
                let (out, problems) = analyse_document(mlp, doc, &fields, &analyzers);
                match problems.into_iter().next() {
                    Some((_, e)) => Err(e),
                    None => Ok(Value::Object(out)),
                }
            })
            .collect()
    }
}

/// The update of a run over indices: its `description` only (the run is not repeated).
pub(crate) fn update_description(e: &Engine, kind: Kind, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
    let mut f = Form::new(body, mode)?;
    let description = f.string("description", Str::REQUIRED.max(1000));
    f.finish()?;
    e.update_resource(kind, r.id, description.as_deref().unwrap_or(&r.description), &r.config)
}

/// The mlp_index kind (`/projects/{pk}/mlp_index/`).
pub struct MlpIndexes;

impl ResourceKind for MlpIndexes {
    const KIND: Kind = Kind::MlpIndex;
    const NOUN: &'static str = "language processing run";
    type Out = MlpIndexOut;
    type In = MlpIndexIn;
    const ORDER_KEYS: &'static [&'static str] = &["fields"];

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<MlpIndexOut> {
        e.render_mlp_index(ctx, r)
    }

    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<MlpIndexOut> {
        e.create_mlp_index(ctx, pk, body, None)
    }

    /// Only `description` changes; the run is not repeated.
    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        update_description(e, Kind::MlpIndex, r, body, mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_choices_are_the_analyzers_names() {
        let names: Vec<String> = [
            Analyzer::Lemmas,
            Analyzer::PosTags,
            Analyzer::Transliteration,
            Analyzer::Ner,
            Analyzer::Contacts,
            Analyzer::Entities,
            Analyzer::Namemail,
            Analyzer::Bounded,
        ]
        .iter()
        .map(|a| serde_json::to_value(a).unwrap().as_str().unwrap().to_string())
        .collect();
        assert_eq!(names, Analyzers::NAMES);
    }

    #[test]
    fn output_goes_beside_the_field_in_its_object() {
        let mut doc = json!({"comment": {"text": "x"}, "a.b": "y"}).as_object().cloned().unwrap();
        assert!(set_beside(&mut doc, "comment.text", json!(1)));
        assert!(set_beside(&mut doc, "a.b", json!(2)));
        assert!(!set_beside(&mut doc, "missing.text", json!(3)));
        assert_eq!(
            Value::Object(doc),
            json!({"comment": {"text": "x", "text_mlp": 1}, "a.b": "y", "a.b_mlp": 2})
        );
    }
}
