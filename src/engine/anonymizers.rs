//! Anonymizers as project resources: validation, storage, and the anonymize
//! operations. The name matching and replacement live in `anonymizer`.
use super::anonymizer::{Anonymizer, AnonymizerConfig, NameList};
use super::error::{Error, Result};
use super::kinds::ResourceKind;
use super::regex_taggers::{MAX_TEXTS, TEXT};
use super::resources::{resource_url, Kind, Resource};
use super::validate::{char_field, Form, List, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;

/// Most names per request.
pub const MAX_NAMES: usize = 10_000;

/// The anonymizer resource on the wire (no `author_username`, as in the reference).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct AnonymizerOut {
    pub id: i64,
    pub url: String,
    pub description: String,
    #[serde(flatten)]
    pub config: AnonymizerConfig,
}

/// The body that creates or changes an anonymizer.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AnonymizerIn {
    pub description: String,
    #[serde(flatten)]
    pub config: AnonymizerConfig,
}

fn parse_anonymizer(body: &Value, mode: Mode, base: &Resource) -> Result<(String, AnonymizerConfig)> {
    let mut cfg: AnonymizerConfig = if mode == Mode::Partial {
        serde_json::from_value(base.config.clone()).unwrap_or_default()
    } else {
        AnonymizerConfig::default()
    };
    let mut f = Form::new(body, mode)?;
    let description = f.string("description", Str::REQUIRED.max(1000));
    for (name, slot) in [
        ("replace_misspelled_names", &mut cfg.replace_misspelled_names),
        ("replace_single_last_names", &mut cfg.replace_single_last_names),
        ("replace_single_first_names", &mut cfg.replace_single_first_names),
    ] {
        if let Some(v) = f.boolean(name) {
            *slot = v;
        }
    }
    if let Some(v) = f.number("misspelling_threshold", false, Some(0.0), Some(1.0)) {
        cfg.misspelling_threshold = v;
    }
    for (name, slot) in [
        ("mimic_casing", &mut cfg.mimic_casing),
        ("auto_adjust_threshold", &mut cfg.auto_adjust_threshold),
    ] {
        if let Some(v) = f.boolean(name) {
            *slot = v;
        }
    }
    f.finish()?;
    Ok((description.unwrap_or_else(|| base.description.clone()), cfg))
}

/// `names`: a list of "Last, First" strings, parsed once per request.
fn parse_names(f: &mut Form) -> Option<NameList> {
    let names = f.strings("names", List::REQUIRED.max(MAX_NAMES), Str::REQUIRED)?;
    match NameList::parse(&names) {
        Ok(n) => Some(n),
        Err(e) => {
            f.fail("names", e.to_string());
            None
        }
    }
}

/// Optional `replacers` (ta extension): a list of lists of initials.
fn parse_replacers(f: &mut Form) -> Option<Vec<Vec<String>>> {
    f.list_of("replacers", List::OPTIONAL, |v| match v {
        Value::Array(items) => items
            .iter()
            .map(|i| char_field(i, Str::REQUIRED).map(Option::unwrap_or_default))
            .collect(),
        other => Err(format!(
            "Expected a list of items but got type \"{}\".",
            super::validate::py_type(other)
        )),
    })
}

fn replacer_error(e: super::anonymizer::ReplacerError) -> Error {
    Error::field("replacers", e.to_string())
}

impl Engine {
    pub(crate) fn render_anonymizer(&self, ctx: &Ctx, r: &Resource) -> AnonymizerOut {
        AnonymizerOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::Anonymizer, r.id),
            description: r.description.clone(),
            config: serde_json::from_value(r.config.clone()).unwrap_or_default(),
        }
    }

    fn anonymizer_config(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<AnonymizerConfig> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::Anonymizer, pk, id)?;
        serde_json::from_value(r.config).map_err(Error::internal)
    }

    /// POST anonymize_text/ → the anonymized text.
    pub fn anonymize_text(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<String> {
        let cfg = self.anonymizer_config(ctx, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let text = f.string("text", TEXT);
        let names = parse_names(&mut f);
        let replacers = parse_replacers(&mut f);
        f.finish()?;
        let (text, names) = (text.unwrap_or_default(), names.expect("validated"));
        let first = replacers.as_ref().map(|r| r.first().cloned().unwrap_or_default());
        Anonymizer::new(&cfg, &names)
            .anonymize_text(&text, first.as_deref())
            .map_err(replacer_error)
    }

    /// POST anonymize_texts/ → one anonymized text per input, in order.
    pub fn anonymize_texts(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<Vec<String>> {
        let cfg = self.anonymizer_config(ctx, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let texts = f.strings("texts", List::REQUIRED.max(MAX_TEXTS), TEXT);
        let names = parse_names(&mut f);
        let consistent = f.boolean("consistent_replacement").unwrap_or(true);
        let replacers = parse_replacers(&mut f);
        f.finish()?;
        let (texts, names) = (texts.unwrap_or_default(), names.expect("validated"));
        Anonymizer::new(&cfg, &names)
            .anonymize_texts(&texts, consistent, replacers.as_deref())
            .map_err(replacer_error)
    }
}

/// The anonymizer kind (`/projects/{pk}/anonymizers/`).
pub struct Anonymizers;

impl ResourceKind for Anonymizers {
    const KIND: Kind = Kind::Anonymizer;
    const NOUN: &'static str = "anonymizer";
    type Out = AnonymizerOut;
    type In = AnonymizerIn;

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<AnonymizerOut> {
        Ok(e.render_anonymizer(ctx, r))
    }

    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<AnonymizerOut> {
        let blank = Resource {
            id: 0,
            project_id: pk,
            author_username: String::new(),
            description: String::new(),
            config: json!({}),
            task_id: None,
        };
        let (description, cfg) = parse_anonymizer(body, Mode::Full, &blank)?;
        let id = e.insert_resource(
            Kind::Anonymizer,
            ctx,
            pk,
            &description,
            &serde_json::to_value(cfg).map_err(Error::internal)?,
        )?;
        e.get_of::<Self>(ctx, pk, id)
    }

    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        let (description, cfg) = parse_anonymizer(body, mode, r)?;
        e.store_config(Kind::Anonymizer, r.id, &description, &cfg)
    }
}

/// Draw one replacement per name, for callers that keep replacements consistent across
/// several requests (the CLI's streaming `--consistent`).
pub fn draw_replacers(names: &[String]) -> Result<Vec<String>> {
    let list = NameList::parse(names).map_err(|e| Error::field("names", e.to_string()))?;
    Ok(Anonymizer::new(&AnonymizerConfig::default(), &list).draw_replacers())
}
