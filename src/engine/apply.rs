//! Applying a model to an index (`collection.md` §2): `apply_to_index` of taggers, tagger
//! groups, torch taggers and regex taggers. The request is validated and stored with the
//! run's task (so a failed run can be retried); the run tags each selected document's
//! fields exactly as the model's own `tag_text` would, and writes the positive results as
//! facts, replacing those the model wrote before (`index_runs`).
use super::error::{Error, Result};
use super::index_runs::{fact, fact_str, field_text, merged_facts, per_document, DocOutcome, Selection, MIN_BATCH};
use super::resources::Kind;
use super::search::Hit;
use super::tagger_groups::TagOptions;
use super::tasks::{Observer, TaskHandle, TaskKind};
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The model kinds that apply to an index.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ApplyModel {
    Tagger,
    TaggerGroup,
    TorchTagger,
    RegexTagger,
}

impl ApplyModel {
    pub fn kind(self) -> Kind {
        match self {
            ApplyModel::Tagger => Kind::Tagger,
            ApplyModel::TaggerGroup => Kind::TaggerGroup,
            ApplyModel::TorchTagger => Kind::TorchTagger,
            ApplyModel::RegexTagger => Kind::RegexTagger,
        }
    }

    /// The model's name in the reference's answer (tagger groups say "Tagger" there too).
    fn label(self) -> &'static str {
        match self {
            ApplyModel::Tagger | ApplyModel::TaggerGroup => "Tagger",
            ApplyModel::TorchTagger => "Torch Tagger",
            ApplyModel::RegexTagger => "RegexTagger",
        }
    }
}

/// A validated `apply_to_index` request, as its task keeps it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ApplyRequest {
    pub selection: Selection,
    pub fields: Vec<String>,
    pub new_fact_name: String,
    pub new_fact_value: String,
    pub lemmatize: bool,
    pub use_ner: bool,
    pub n_similar_docs: usize,
    pub n_candidate_tags: usize,
    pub max_tags: usize,
    pub add_spans: bool,
    pub bulk_size: usize,
}

/// `{"message"}` of an apply request.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ApplyOut {
    pub message: String,
}

/// The body of `apply_to_index` (which fields a model reads: `collection.md` §2.1).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct ApplyIn {
    /// Labels the run.
    pub description: String,
    /// The `fact` of every written fact (optional for regex taggers: their description).
    pub new_fact_name: Option<String>,
    /// The `str_val` of written facts (tagger, torch tagger, regex tagger); "" gives the
    /// model's description, the predicted class or the match.
    pub new_fact_value: Option<String>,
    /// `[{"name": "x"}]` or `["x"]`; all the project's open indices when empty.
    pub indices: Option<Vec<Value>>,
    /// The fields to tag (dotted paths).
    pub fields: Vec<String>,
    /// A search query (object or JSON string) selecting the documents; all by default.
    pub query: Option<Value>,
    /// Tagger and tagger group: lemmatize the text first (default false).
    pub lemmatize: Option<bool>,
    /// Tagger group: tags from named entities (default false).
    pub use_ner: Option<bool>,
    /// Tagger group: similar documents asked for candidates (default 25).
    pub n_similar_docs: Option<i64>,
    /// Tagger group: candidate members run (default 25).
    pub n_candidate_tags: Option<i64>,
    /// Tagger group: most tagger tags per field (default 10000).
    pub max_tags: Option<i64>,
    /// Regex tagger: write match spans (default true).
    pub add_spans: Option<bool>,
    /// Documents per written batch, 1–10000 (at least 100 on the embedded store).
    pub bulk_size: Option<i64>,
    /// Elasticsearch timeout in minutes (the Elasticsearch backend only).
    pub es_timeout: Option<i64>,
    /// Largest Elasticsearch bulk request in bytes (the Elasticsearch backend only).
    pub max_chunk_bytes: Option<i64>,
}

/// A model loaded for a run.
enum Loaded {
    Tagger(super::taggers::PreparedTagger),
    Group(super::tagger_groups::Group, Vec<String>),
    Torch(Arc<super::neural::NeuralTagger>, bool),
    Regex(Arc<super::regex_tagger::Matcher>),
}

impl Engine {
    /// POST `{taggers|tagger_groups|torchtaggers|regex_taggers}/{id}/apply_to_index/`: starts
    /// the run (in the foreground with an observer: the local CLI).
    pub fn apply_to_index(
        self: &Arc<Self>,
        ctx: &Ctx,
        model: ApplyModel,
        (pk, id): (i64, i64),
        body: &Value,
        observer: Option<Observer>,
    ) -> Result<ApplyOut> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(model.kind(), pk, id)?;
        let request = self.parse_apply(pk, model, body)?;
        self.ensure_idle(&r)?;
        // A model that cannot tag is refused now, not by a failed run.
        self.load_for_apply(ctx, model, pk, id)?;
        self.launch_model_apply(ctx, model, pk, id, request, observer)?;
        Ok(ApplyOut {
            message: format!("Started process of applying {} with id: {id}", model.label()),
        })
    }

    fn parse_apply(&self, pk: i64, model: ApplyModel, body: &Value) -> Result<ApplyRequest> {
        let mut f = Form::new(body, Mode::Full)?;
        let _label = f.string("description", Str::REQUIRED.max(1000));
        let name_rule = if model == ApplyModel::RegexTagger {
            Str::OPTIONAL.blank()
        } else {
            Str::REQUIRED
        };
        let new_fact_name = f.string("new_fact_name", name_rule.max(1000)).unwrap_or_default();
        let new_fact_value = f.string("new_fact_value", Str::OPTIONAL.blank().max(1000)).unwrap_or_default();
        let indices = super::indices::parse_index_refs(&mut f, "indices")?;
        let fields = f.strings("fields", List::REQUIRED, Str::REQUIRED).unwrap_or_default();
        if f.raw("fields").is_some_and(Value::is_array) {
            self.check_project_fields(&mut f, pk, &fields)?;
        }
        let query = super::taggers::parse_query(&mut f);
        let count = |f: &mut Form, name: &str, default: usize, max: i64| {
            f.integer(name, false, Some(0), Some(max))
                .map_or(default, |n| usize::try_from(n).unwrap_or(default))
        };
        let request = ApplyRequest {
            selection: Selection {
                indices: Vec::new(),
                query: Value::Null,
            },
            fields,
            new_fact_name,
            new_fact_value,
            lemmatize: f.boolean("lemmatize").unwrap_or(false),
            use_ner: f.boolean("use_ner").unwrap_or(false),
            n_similar_docs: count(&mut f, "n_similar_docs", 25, 10_000),
            n_candidate_tags: count(&mut f, "n_candidate_tags", 25, 10_000),
            max_tags: count(&mut f, "max_tags", 10_000, i64::from(u32::MAX)),
            add_spans: f.boolean("add_spans").unwrap_or(true),
            bulk_size: f
                .integer("bulk_size", false, Some(1), Some(10_000))
                .map_or(MIN_BATCH, |n| usize::try_from(n).unwrap_or(MIN_BATCH).max(MIN_BATCH)),
        };
        let _timeout = f.integer("es_timeout", false, Some(1), None);
        let _chunk = f.integer("max_chunk_bytes", false, Some(1), None);
        let _feedback = f.boolean("feedback_enabled");
        f.finish()?;
        Ok(ApplyRequest {
            selection: self.selection(pk, indices, query)?,
            ..request
        })
    }

    /// Creates the run's task, links it to the model and starts it.
    pub fn launch_model_apply(
        self: &Arc<Self>,
        ctx: &Ctx,
        model: ApplyModel,
        pk: i64,
        id: i64,
        request: ApplyRequest,
        observer: Option<Observer>,
    ) -> Result<i64> {
        let kind = TaskKind::ApplyModel {
            model,
            id,
            user: ctx.user.id,
            request: Box::new(request.clone()),
        };
        let engine = self.clone();
        let ctx = ctx.clone();
        let job = Box::new(move |h: &TaskHandle| engine.run_model_apply(&ctx, model, pk, id, &request, h));
        let (task, ()) = self.start_linked_task((model.kind(), id), pk, &kind, job, observer, || Ok(()))?;
        Ok(task)
    }

    fn load_for_apply(&self, ctx: &Ctx, model: ApplyModel, pk: i64, id: i64) -> Result<Loaded> {
        let r = self.resource(model.kind(), pk, id)?;
        Ok(match model {
            ApplyModel::Tagger => Loaded::Tagger(self.prepared_tagger(&r)?),
            ApplyModel::TaggerGroup => {
                let (g, tags) = self.group_for_apply(ctx, pk, id)?;
                Loaded::Group(g, tags)
            }
            ApplyModel::TorchTagger => {
                let multiclass = super::torchtaggers::stored(&r).fact_name.is_some();
                Loaded::Torch(self.torchtagger_model(&r)?, multiclass)
            }
            ApplyModel::RegexTagger => Loaded::Regex(self.matcher(&r)?),
        })
    }

    fn run_model_apply(&self, ctx: &Ctx, model: ApplyModel, pk: i64, id: i64, request: &ApplyRequest, h: &TaskHandle) -> Result<()> {
        h.step("applying to index")?;
        let r = self.resource(model.kind(), pk, id)?;
        let loaded = self.load_for_apply(ctx, model, pk, id)?;
        let name = match (&loaded, request.new_fact_name.as_str()) {
            (Loaded::Regex(_), "") => r.description.clone(),
            (_, name) => name.to_string(),
        };
        let value = match request.new_fact_value.as_str() {
            "" => r.description.clone(),
            v => v.to_string(),
        };
        let writer = FactWriter {
            e: self,
            loaded: &loaded,
            request,
            name: &name,
            value: &value,
        };
        self.run_over_documents(pk, &request.selection, request.bulk_size, 0, h, &|hits| writer.batch(hits))
    }
}

/// What one run writes: the loaded model, the request and the fact name and value.
struct FactWriter<'a> {
    e: &'a Engine,
    loaded: &'a Loaded,
    request: &'a ApplyRequest,
    name: &'a str,
    value: &'a str,
}

impl FactWriter<'_> {
    fn batch(&self, hits: &[Hit]) -> Result<Vec<DocOutcome>> {
        match self.loaded {
            // The network tags a whole batch's texts in one pass.
            Loaded::Torch(model, multiclass) => {
                let texts: Vec<(usize, &str, &str)> = hits
                    .iter()
                    .enumerate()
                    .flat_map(|(i, hit)| {
                        self.request
                            .fields
                            .iter()
                            .filter_map(move |f| field_text(&hit.source, f).map(|t| (i, f.as_str(), t)))
                    })
                    .collect();
                let strs: Vec<&str> = texts.iter().map(|t| t.2).collect();
                let predicted = if strs.is_empty() {
                    Vec::new()
                } else {
                    model.tag(&strs).map_err(super::torchtaggers::neural_error)?
                };
                let mut facts: Vec<Vec<Value>> = vec![Vec::new(); hits.len()];
                for ((doc, field, _), (class, _)) in texts.iter().zip(predicted) {
                    let class = &model.classes()[class];
                    match (multiclass, class.as_str()) {
                        (_, "false") => {}
                        (true, c) => facts[*doc].push(fact(self.name, c, field, None)),
                        (false, _) => facts[*doc].push(fact(self.name, self.value, field, None)),
                    }
                }
                Ok(hits
                    .iter()
                    .zip(facts)
                    .map(|(hit, new)| match multiclass {
                        true => self.outcome(hit, new, &|v| model.classes().iter().any(|c| c == v)),
                        false => self.outcome(hit, new, &|v| v == self.value),
                    })
                    .collect())
            }
            _ => per_document(hits, |hit| {
                let mut new = Vec::new();
                for field in &self.request.fields {
                    if let Some(text) = field_text(&hit.source, field) {
                        new.extend(self.field_facts(field, text)?);
                    }
                }
                Ok(self.outcome(hit, new, &|v| self.owns_value(v)))
            }),
        }
    }

    /// The facts of one field's text.
    fn field_facts(&self, field: &str, text: &str) -> Result<Vec<Value>> {
        let r = self.request;
        Ok(match self.loaded {
            Loaded::Tagger(t) => {
                let out = t.tag(self.e, &vec![text; t.field_count()], r.lemmatize)?;
                if out.result {
                    vec![fact(self.name, self.value, field, None)]
                } else {
                    Vec::new()
                }
            }
            Loaded::Group(g, _) => {
                let options = TagOptions {
                    lemmatize: r.lemmatize,
                    use_ner: r.use_ner,
                    n_similar_docs: r.n_similar_docs,
                    n_candidate_tags: r.n_candidate_tags,
                };
                self.e
                    .group_text_tags(g, text, options, r.max_tags)?
                    .iter()
                    .map(|tag| fact(self.name, tag, field, None))
                    .collect()
            }
            Loaded::Regex(m) => m
                .find(text)
                .map_err(|e| Error::BadRequest(e.to_string()))?
                .into_iter()
                .map(|found| {
                    let value = if r.new_fact_value.is_empty() { &found.str_val } else { self.value };
                    fact(self.name, value, field, r.add_spans.then_some(found.span))
                })
                .collect(),
            Loaded::Torch(..) => unreachable!("torch taggers tag whole batches"),
        })
    }

    /// Whether a fact value of this run's fact name on a field is one the model writes.
    fn owns_value(&self, value: &str) -> bool {
        match self.loaded {
            Loaded::Group(_, tags) => tags.iter().any(|t| t == value),
            Loaded::Regex(_) => self.request.new_fact_value.is_empty() || value == self.value,
            _ => value == self.value,
        }
    }

    /// The document's new facts merged in, replacing this run's earlier ones on its fields.
    fn outcome(&self, hit: &Hit, new: Vec<Value>, owns_value: &dyn Fn(&str) -> bool) -> DocOutcome {
        let owned = |f: &Value| {
            fact_str(f, "fact") == self.name
                && self.request.fields.iter().any(|field| field == fact_str(f, "doc_path"))
                && owns_value(fact_str(f, "str_val"))
        };
        let update = merged_facts(hit.source.get("texta_facts"), owned, new).map(|facts| {
            let mut m = Map::new();
            m.insert("texta_facts".into(), facts);
            m
        });
        DocOutcome {
            update,
            problems: Vec::new(),
        }
    }
}
