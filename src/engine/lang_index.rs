//! Language detection over indices (`collection.md` §1.3–§1.4): the `lang_index` resource
//! kind, whose task writes the detected language of one field of each selected document at
//! `<field>_mlp.language.detected` (`UNK` when none is found), and `POST /mlp/detect_lang/`,
//! the language of one text.
use super::error::{Error, Result};
use super::index_runs::{DocOutcome, Selection, MIN_BATCH};
use super::indices::IndexOut;
use super::kinds::ResourceKind;
use super::mlp_index::{container_of, MessageOut};
use super::resources::{resource_url, Kind, Resource};
use super::tasks::{Observer, TaskHandle, TaskKind, TaskOut};
use super::validate::{Form, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The language detection run on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct LangIndexOut {
    pub id: i64,
    pub url: String,
    pub author_username: String,
    pub indices: Vec<IndexOut>,
    pub description: String,
    pub task: Option<TaskOut>,
    /// The selecting query, `{"query": {...}}`.
    pub query: Value,
    pub field: String,
}

/// The body that creates a language detection run (an update changes `description` only).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct LangIndexIn {
    pub description: String,
    /// `[{"name": "x"}]` or `["x"]`; all the project's open indices when empty.
    pub indices: Option<Vec<Value>>,
    /// The field whose language is detected (a dotted path).
    pub field: String,
    /// A search query (object or JSON string) selecting the documents; all by default.
    pub query: Option<Value>,
}

/// `{"text"}` of detect_lang.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct DetectLangIn {
    pub text: String,
}

/// `{"language_code", "language"}` of detect_lang.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct DetectLangOut {
    pub language_code: String,
    /// Elasticsearch's snowball analyzer name of the language, when it has one.
    pub language: Option<String>,
}

/// What a lang_index resource keeps.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
struct Stored {
    indices: Vec<String>,
    /// The query clause.
    query: Value,
    field: String,
}

/// The value written when no language is found (the reference's `NAN_LANGUAGE_TOKEN_KEY`).
const UNKNOWN: &str = "UNK";

/// Elasticsearch's snowball name of an ISO 639-1 code.
fn snowball(code: &str) -> Option<&'static str> {
    const NAMES: [(&str, &str); 19] = [
        ("ar", "arabic"),
        ("ca", "catalan"),
        ("da", "danish"),
        ("nl", "dutch"),
        ("en", "english"),
        ("et", "estonian"),
        ("fi", "finnish"),
        ("fr", "french"),
        ("de", "german"),
        ("hu", "hungarian"),
        ("it", "italian"),
        ("lt", "lithuanian"),
        ("no", "norwegian"),
        ("pt", "portuguese"),
        ("ro", "romanian"),
        ("ru", "russian"),
        ("es", "spanish"),
        ("sv", "swedish"),
        ("tr", "turkish"),
    ];
    NAMES.iter().find(|(c, _)| *c == code).map(|(_, name)| *name)
}

/// The text of the field: a string, or the first string of an array.
fn field_text<'a>(doc: &'a Value, path: &str) -> Option<&'a str> {
    match super::lines::flat_get(doc, path)? {
        Value::String(s) => Some(s),
        Value::Array(items) => items.iter().find_map(Value::as_str),
        _ => None,
    }
}

/// The document with `<field>_mlp.language.detected` set (the object's other keys kept);
/// None when the field holds no text.
fn with_language(doc: &Map<String, Value>, field: &str, code: &str) -> Option<Map<String, Value>> {
    let mut out = doc.clone();
    let (object, key) = container_of(&mut out, field)?;
    let mlp = object.entry(format!("{key}_mlp")).or_insert_with(|| json!({}));
    if !mlp.is_object() {
        *mlp = json!({});
    }
    mlp["language"] = json!({ "detected": code });
    Some(out)
}

impl Engine {
    fn detected(&self, text: &str) -> Result<Option<String>> {
        self.mlp().detect_any(text).map_err(Error::Unavailable)
    }

    /// POST /mlp/detect_lang/.
    pub fn detect_lang(&self, _ctx: &Ctx, body: &Value) -> Result<DetectLangOut> {
        let mut f = Form::new(body, Mode::Full)?;
        let text = f.string("text", super::regex_taggers::TEXT);
        f.finish()?;
        let code = self
            .detected(&text.unwrap_or_default())?
            .ok_or_else(|| Error::BadRequest("Could not detect the language!".into()))?;
        Ok(DetectLangOut {
            language: snowball(&code).map(str::to_string),
            language_code: code,
        })
    }

    fn render_lang_index(&self, ctx: &Ctx, r: &Resource) -> Result<LangIndexOut> {
        let s: Stored = serde_json::from_value(r.config.clone()).unwrap_or_default();
        Ok(LangIndexOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::LangIndex, r.id),
            author_username: r.author_username.clone(),
            indices: self.index_objects(ctx, &s.indices)?,
            description: r.description.clone(),
            task: self.linked_task(r)?,
            query: json!({ "query": s.query }),
            field: s.field,
        })
    }

    /// Starts (or, `resume`, continues) the run of lang_index `id`.
    fn start_lang_index(self: &Arc<Self>, pk: i64, id: i64, resume: bool, observer: Option<Observer>) -> Result<i64> {
        let r = self.resource(Kind::LangIndex, pk, id)?;
        let s: Stored = serde_json::from_value(r.config.clone()).map_err(Error::internal)?;
        self.detected("ta")?;
        let already = match (resume, self.linked_task(&r)?) {
            (true, Some(t)) => u64::try_from(t.num_processed).unwrap_or(0),
            _ => 0,
        };
        let query = if resume {
            let done = json!({"exists": {"field": format!("{}_mlp.language.detected", s.field)}});
            json!({"bool": {"filter": [s.query], "must_not": [done]}})
        } else {
            s.query.clone()
        };
        let selection = Selection {
            indices: s.indices.clone(),
            query,
        };
        let engine = self.clone();
        let job = Box::new(move |h: &TaskHandle| {
            h.step("scrolling through the indices to apply lang")?;
            engine.run_over_documents(pk, &selection, MIN_BATCH, already, h, &|hits| {
                super::index_runs::per_document(hits, |hit| {
                    let Some(text) = field_text(&hit.source, &s.field) else {
                        return Ok(DocOutcome::default());
                    };
                    let code = engine.detected(text)?.unwrap_or_else(|| UNKNOWN.to_string());
                    let doc = hit.source.as_object().cloned().unwrap_or_default();
                    let update = with_language(&doc, &s.field, &code)
                        .map(|new| new.into_iter().filter(|(k, v)| doc.get(k) != Some(v)).collect::<Map<_, _>>())
                        .filter(|changed| !changed.is_empty());
                    Ok(DocOutcome {
                        update,
                        problems: Vec::new(),
                    })
                })
            })
        });
        let kind = TaskKind::LangIndex { worker: id, resume };
        let (task, ()) = self.start_linked_task((Kind::LangIndex, id), pk, &kind, job, observer, || Ok(()))?;
        Ok(task)
    }

    /// Creates a lang_index resource and starts its run (in the foreground with an
    /// observer: the local CLI).
    pub fn create_lang_index(self: &Arc<Self>, ctx: &Ctx, pk: i64, body: &Value, observer: Option<Observer>) -> Result<LangIndexOut> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let description = f.string("description", Str::REQUIRED.max(1000));
        let indices = super::indices::parse_index_refs(&mut f, "indices")?;
        let field = f.string("field", Str::REQUIRED);
        if let Some(field) = &field {
            self.check_project_fields(&mut f, pk, std::slice::from_ref(field))?;
        }
        let query = super::taggers::parse_query(&mut f);
        f.finish()?;
        self.detected("ta")?;
        let selection = self.selection(pk, indices, query)?;
        let stored = Stored {
            indices: selection.indices,
            query: selection.query,
            field: field.unwrap_or_default(),
        };
        let config = serde_json::to_value(&stored).map_err(Error::internal)?;
        let id = self.insert_resource(Kind::LangIndex, ctx, pk, &description.unwrap_or_default(), &config)?;
        self.start_lang_index(pk, id, false, observer)?;
        self.get_of::<LangIndexes>(ctx, pk, id)
    }

    /// POST lang_index/{id}/retry/: continue a finished or failed run.
    pub fn retry_lang_index(self: &Arc<Self>, ctx: &Ctx, pk: i64, id: i64, observer: Option<Observer>) -> Result<MessageOut> {
        self.check_project_access(ctx, pk)?;
        self.rerun_lang_index(pk, id, observer)?;
        Ok(MessageOut {
            message: format!("Started retrying language detection worker with id: {id}"),
        })
    }

    /// The run of a retried task.
    pub(super) fn rerun_lang_index(self: &Arc<Self>, pk: i64, id: i64, observer: Option<Observer>) -> Result<i64> {
        self.idle_resource(Kind::LangIndex, pk, id)?;
        self.start_lang_index(pk, id, true, observer)
    }
}

/// The lang_index kind (`/projects/{pk}/lang_index/`).
pub struct LangIndexes;

impl ResourceKind for LangIndexes {
    const KIND: Kind = Kind::LangIndex;
    const NOUN: &'static str = "language detection run";
    type Out = LangIndexOut;
    type In = LangIndexIn;
    const ORDER_KEYS: &'static [&'static str] = &["field"];

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<LangIndexOut> {
        e.render_lang_index(ctx, r)
    }

    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<LangIndexOut> {
        e.create_lang_index(ctx, pk, body, None)
    }

    /// Only `description` changes; the run is not repeated.
    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        super::mlp_index::update_description(e, Kind::LangIndex, r, body, mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_goes_into_the_fields_mlp_object_keeping_its_keys() {
        let doc = json!({"comment": {"text": "x", "text_mlp": {"lemmas": "x"}}, "title": ["a", "b"]});
        let doc = doc.as_object().unwrap();
        assert_eq!(
            Value::Object(with_language(doc, "comment.text", "et").unwrap()),
            json!({"comment": {"text": "x", "text_mlp": {"lemmas": "x", "language": {"detected": "et"}}}, "title": ["a", "b"]})
        );
        assert_eq!(with_language(doc, "missing", "et"), None);
        assert_eq!(field_text(&Value::Object(doc.clone()), "title"), Some("a"));
        assert_eq!((snowball("et"), snowball("xx")), (Some("estonian"), None));
    }
}
