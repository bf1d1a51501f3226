//! Saved searches (`/projects/{pk}/searches/`, `gui.md` §11): a named Elasticsearch query
//! and the GUI's own state for it. Declared as a resource kind, listed whole (as the
//! reference and TEXTA's web client do); a query or state sent as a JSON string comes back
//! as that string.
use super::error::{Error, Result};
use super::kinds::ResourceKind;
use super::pytext::json_dumps;
use super::resources::{resource_url, Kind, Resource};
use super::taggers::{match_all, parse_query};
use super::validate::{Form, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;

/// The saved search on the wire; `query` and `query_constraints` are JSON-encoded strings
/// (`conventions.md` §7).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct SearchOut {
    pub id: i64,
    pub url: String,
    pub author_username: String,
    pub description: String,
    pub query: String,
    pub query_constraints: String,
}

/// The body that saves a search.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SearchIn {
    pub description: String,
    /// Elasticsearch query (an object, or a string holding one).
    #[schema(value_type = Option<Object>)]
    pub query: Option<Value>,
    /// The GUI's state for the search, kept as given.
    #[schema(value_type = Option<Object>)]
    pub query_constraints: Option<Value>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Stored {
    query: Value,
    query_constraints: Value,
}

impl Default for Stored {
    fn default() -> Self {
        Stored {
            query: match_all(),
            query_constraints: json!({}),
        }
    }
}

fn parse(body: &Value, mode: Mode, base: Stored, description: &str) -> Result<(String, Stored)> {
    let mut s = base;
    let mut f = Form::new(body, mode)?;
    let description = f
        .string("description", Str::REQUIRED.max(1000))
        .unwrap_or_else(|| description.to_string());
    let sent = f.raw("query").cloned();
    if let Some(q) = parse_query(&mut f) {
        s.query = match sent {
            Some(text @ Value::String(_)) => text,
            _ => q,
        };
    }
    if let Some(c) = f.raw("query_constraints") {
        s.query_constraints = c.clone();
    }
    f.finish()?;
    Ok((description, s))
}

/// A stored query or state as the wire shows it: the string it was sent as, or the JSON text
/// of an object.
fn as_text(v: &Value) -> String {
    match v {
        Value::String(text) => text.clone(),
        other => json_dumps(other),
    }
}

fn stored(r: &Resource) -> Stored {
    serde_json::from_value(r.config.clone()).unwrap_or_default()
}

/// The saved search kind.
pub struct Searches;

impl ResourceKind for Searches {
    const KIND: Kind = Kind::Search;
    const NOUN: &'static str = "saved search";
    const PAGINATED: bool = false;
    type Out = SearchOut;
    type In = SearchIn;

    fn render(_e: &Engine, ctx: &Ctx, r: &Resource) -> Result<SearchOut> {
        let s = stored(r);
        Ok(SearchOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::Search, r.id),
            author_username: r.author_username.clone(),
            description: r.description.clone(),
            query: as_text(&s.query),
            query_constraints: as_text(&s.query_constraints),
        })
    }

    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<SearchOut> {
        let (description, s) = parse(body, Mode::Full, Stored::default(), "")?;
        let id = e.insert_resource(
            Kind::Search,
            ctx,
            pk,
            &description,
            &serde_json::to_value(&s).map_err(Error::internal)?,
        )?;
        e.get_of::<Self>(ctx, pk, id)
    }

    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        let base = if mode == Mode::Partial { stored(r) } else { Stored::default() };
        let (description, s) = parse(body, mode, base, &r.description)?;
        e.store_config(Kind::Search, r.id, &description, &s)
    }
}
