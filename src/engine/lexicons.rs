//! Lexicons (`/projects/{pk}/lexicons/`, `gui.md` §11): word lists a user grows with an
//! embedding's suggestions and turns into regex taggers. Declared as a resource kind.
use super::error::{Error, Result};
use super::kinds::ResourceKind;
use super::resources::{resource_url, Kind, Resource};
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// The lexicon resource on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct LexiconOut {
    pub id: i64,
    pub url: String,
    pub author_username: String,
    pub description: String,
    pub phrases: Vec<String>,
    pub discarded_phrases: Vec<String>,
}

/// The body that creates or changes a lexicon.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct LexiconIn {
    pub description: String,
    /// The words and phrases of the lexicon.
    #[serde(default)]
    pub phrases: Vec<String>,
    /// Suggestions the user turned down (kept so they are not suggested again).
    #[serde(default)]
    pub discarded_phrases: Vec<String>,
}

/// Most phrases per list.
const MAX_PHRASES: usize = 100_000;

/// Validates a lexicon body onto `base`.
fn parse(body: &Value, mode: Mode, base: LexiconIn) -> Result<LexiconIn> {
    let mut out = base;
    let mut f = Form::new(body, mode)?;
    if let Some(d) = f.string("description", Str::REQUIRED.max(1000)) {
        out.description = d;
    }
    for (name, slot) in [("phrases", &mut out.phrases), ("discarded_phrases", &mut out.discarded_phrases)] {
        if let Some(v) = f.strings(name, List::OPTIONAL.max(MAX_PHRASES), Str::REQUIRED.max(1000)) {
            *slot = v;
        }
    }
    f.finish()?;
    Ok(out)
}

fn stored(r: &Resource) -> LexiconIn {
    let mut l: LexiconIn = serde_json::from_value(r.config.clone()).unwrap_or_default();
    l.description = r.description.clone();
    l
}

/// The lexicon kind.
pub struct Lexicons;

impl ResourceKind for Lexicons {
    const KIND: Kind = Kind::Lexicon;
    const NOUN: &'static str = "lexicon";
    type Out = LexiconOut;
    type In = LexiconIn;

    fn render(_e: &Engine, ctx: &Ctx, r: &Resource) -> Result<LexiconOut> {
        let l = stored(r);
        Ok(LexiconOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::Lexicon, r.id),
            author_username: r.author_username.clone(),
            description: l.description,
            phrases: l.phrases,
            discarded_phrases: l.discarded_phrases,
        })
    }

    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<LexiconOut> {
        let l = parse(body, Mode::Full, LexiconIn::default())?;
        let id = e.insert_resource(
            Kind::Lexicon,
            ctx,
            pk,
            &l.description,
            &serde_json::to_value(&l).map_err(Error::internal)?,
        )?;
        e.get_of::<Self>(ctx, pk, id)
    }

    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        let base = if mode == Mode::Partial { stored(r) } else { LexiconIn::default() };
        let l = parse(body, mode, base)?;
        e.store_config(Kind::Lexicon, r.id, &l.description, &l)
    }
}
