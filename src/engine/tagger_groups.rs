//! Tagger groups (`api.md` §7, `models.md` §2): one fact turned into a set of taggers, one per
//! value that enough documents hold. Creating a group finds the values by fact aggregation,
//! stores one member tagger (a real tagger resource linked to the group) per value and trains
//! them on the task pool, all at once; a member that fails is counted in `tagger_status` and
//! the others serve. Tagging runs language processing (lemmas, entity facts matching a
//! member's tag), proposes candidate tags from the fact values of the most similar documents
//! (more-like-this over the project's indices) and runs only those members.
use super::error::{Error, Result};
use super::indices::{bare, parse_index_objects};
use super::kinds::ResourceKind;
use super::resources::{resource_url, BulkDeleteOut, Kind, Resource};
use super::sample::{fact_query, field_texts};
use super::taggers::{self, doc_texts, PreparedTagger, TagOut, Taggers};
use super::tasks::{TaskOut, TaskStatus};
use super::validate::{Form, Mode, Str};
use super::{Ctx, Engine};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::Arc;

/// Most documents a candidate search may read (`n_similar_docs`).
const MAX_SIMILAR_DOCS: i64 = 10_000;

/// The tagger group on the wire, fields in the reference's order.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TaggerGroupOut {
    pub id: i64,
    pub url: String,
    pub author_username: String,
    pub description: String,
    pub fact_name: String,
    pub num_tags: i64,
    pub minimum_sample_size: i64,
    pub tagger_status: TaggerStatus,
    pub tagger_params: Option<TaggerParams>,
    pub tagger_statistics: Option<TaggerStatistics>,
    /// The latest apply_to_index run; absent before the first, so that answers stay the
    /// reference's (2.10.3) until a model is applied.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub task: Option<TaskOut>,
}

/// Members counted by the status of their training task (`training` counts running ones).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TaggerStatus {
    pub total: i64,
    pub completed: i64,
    pub training: i64,
    pub created: i64,
    pub failed: i64,
}

/// The settings of the first member.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TaggerParams {
    pub fields: Vec<String>,
    pub vectorizer: super::classifier::VectorizerKind,
    pub classifier: super::classifier::ClassifierKind,
}

/// Averages of the members' figures (null while none has them) and their models' size.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TaggerStatistics {
    pub avg_precision: Option<f64>,
    pub avg_recall: Option<f64>,
    pub avg_f1_score: Option<f64>,
    pub sum_size: ModelSize,
}

/// `{"size", "unit": "mb"}`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ModelSize {
    pub size: f64,
    pub unit: String,
}

/// The body that creates a tagger group.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TaggerGroupIn {
    pub description: String,
    /// The fact whose values become tags (default `TEEMA`).
    pub fact_name: Option<String>,
    /// Documents a value needs to get a tagger (default 50).
    pub minimum_sample_size: Option<i64>,
    /// The members' settings (create only); a member's description is its value and its
    /// query the documents holding it.
    pub tagger: MemberSettingsIn,
}

/// The `tagger` object of a group: a tagger's settings without `description` and `query`.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct MemberSettingsIn {
    pub fields: Vec<String>,
    pub indices: Option<Vec<super::operations::regex::IndexName>>,
    pub embedding: Option<i64>,
    pub vectorizer: Option<super::classifier::VectorizerKind>,
    pub classifier: Option<super::classifier::ClassifierKind>,
    pub maximum_sample_size: Option<i64>,
    pub score_threshold: Option<f64>,
    pub negative_multiplier: Option<i64>,
}

/// One tag of a group's answer: a named entity equal to a member's tag, or a member's positive
/// prediction.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(untagged)]
pub enum GroupTag {
    Ner(NerMatch),
    Predicted(TagOut),
}

/// `{"tag", "probability": 1.0, "tagger_id", "ner_match": true}`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct NerMatch {
    pub tag: String,
    pub probability: f64,
    pub tagger_id: i64,
    pub ner_match: bool,
}

/// One member in models_list.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct MemberOut {
    pub tag: String,
    pub id: i64,
    pub url: String,
    pub status: String,
}

/// `{"success", "tagger_group_id"}` of models_retrain.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct RetrainOut {
    pub success: String,
    pub tagger_group_id: i64,
}

/// `{"document", "tags"}` of tag_random_doc.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct RandomDocTags {
    #[schema(value_type = Object)]
    pub document: Value,
    pub tags: Vec<GroupTag>,
}

/// What is stored per group besides the description.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Stored {
    pub fact_name: String,
    pub minimum_sample_size: i64,
    pub num_tags: i64,
    /// The members' settings as given (query unused).
    pub tagger: taggers::Stored,
}

fn stored(r: &Resource) -> Result<Stored> {
    serde_json::from_value(r.config.clone()).map_err(|e| Error::Internal(format!("tagger group {}: {e}", r.id)))
}

/// One update of a member's training run in the foreground (local CLI).
pub struct MemberUpdate<'a> {
    /// How many members the run trains.
    pub members: usize,
    /// The member's tag.
    pub tag: &'a str,
    pub task: &'a TaskOut,
}

/// Receives every update of each member's training run in the foreground.
pub type MemberObserver = Arc<dyn Fn(MemberUpdate) + Send + Sync>;

/// The options of tag_text, tag_doc and tag_random_doc.
#[derive(Clone, Copy, Debug)]
pub struct TagOptions {
    pub lemmatize: bool,
    pub use_ner: bool,
    pub n_similar_docs: usize,
    pub n_candidate_tags: usize,
}

impl Default for TagOptions {
    fn default() -> Self {
        TagOptions {
            lemmatize: true,
            use_ner: true,
            n_similar_docs: 25,
            n_candidate_tags: 25,
        }
    }
}

impl TagOptions {
    fn parse(f: &mut Form) -> TagOptions {
        let d = TagOptions::default();
        let count = |f: &mut Form, name: &str, default: usize| {
            f.integer(name, false, Some(0), Some(MAX_SIMILAR_DOCS))
                .map_or(default, |n| usize::try_from(n).unwrap_or(default))
        };
        let options = TagOptions {
            lemmatize: f.boolean("lemmatize").unwrap_or(d.lemmatize),
            use_ner: f.boolean("use_ner").unwrap_or(d.use_ner),
            n_similar_docs: count(f, "n_similar_docs", d.n_similar_docs),
            n_candidate_tags: count(f, "n_candidate_tags", d.n_candidate_tags),
        };
        let _feedback = f.boolean("feedback_enabled");
        options
    }
}

/// A group ready to tag: its settings, its members, and which of them have a model.
pub(crate) struct Group {
    pk: i64,
    fact_name: String,
    /// The fields the members read (the first member's).
    fields: Vec<String>,
    members: Vec<Resource>,
}

/// What the members tag: the text the group read, or a document's fields (each lemmatized
/// by the member when asked).
enum MemberInput<'a> {
    Text,
    Fields(&'a [String], bool),
}

impl Engine {
    /// Validates a group body, finds its values and stores the group with one member tagger
    /// per value, then trains the members: in the background, or — with an observer (local
    /// CLI) — in the foreground, in parallel on the task pool.
    pub fn create_tagger_group(
        self: &Arc<Self>,
        ctx: &Ctx,
        pk: i64,
        body: &Value,
        observer: Option<MemberObserver>,
    ) -> Result<TaggerGroupOut> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let description = f.string("description", Str::REQUIRED.max(1000));
        let fact_name = f.string("fact_name", Str::OPTIONAL.max(1000)).unwrap_or_else(|| "TEEMA".into());
        let minimum = f.integer("minimum_sample_size", false, Some(1), None).unwrap_or(50);
        let mut settings = taggers::Stored::default();
        if let Some(tagger) = f.object("tagger", true) {
            let tagger = Value::Object(tagger.clone());
            let mut nested = Form::new(&tagger, Mode::Full)?;
            self.parse_tagger_settings(&mut nested, pk, &mut settings, false)?;
            if let Err(Error::Invalid(errors)) = nested.finish() {
                f.error("tagger", errors);
            }
        }
        f.finish()?;
        let indices = self.resolve_indices(pk, Some(settings.indices.clone()))?;
        if indices.is_empty() {
            return Err(bare("No indices are available to you!".into()));
        }
        let values = self.fact_values(&indices, &fact_name, u64::try_from(minimum).unwrap_or(1))?;
        if values.is_empty() {
            return Err(Error::BadRequestError(format!("found no tags for fact name: {fact_name}")));
        }
        let group = Stored {
            fact_name: fact_name.clone(),
            minimum_sample_size: minimum,
            num_tags: values.len() as i64,
            tagger: settings.clone(),
        };
        let description = description.unwrap_or_default();
        let id = self.insert_resource(Kind::TaggerGroup, ctx, pk, &description, &to_config(&group)?)?;
        let mut members = Vec::with_capacity(values.len());
        for (value, _) in &values {
            let member = taggers::Stored {
                query: fact_query(&fact_name, value),
                indices: indices.clone(),
                metrics: None,
                ..settings.clone()
            };
            members.push(self.insert_resource(Kind::Tagger, ctx, pk, value, &to_config(&member)?)?);
        }
        self.set_members((Kind::TaggerGroup, id), Kind::Tagger, &members)?;
        let created = self.get_of::<TaggerGroups>(ctx, pk, id)?;
        self.train_members(pk, &self.resources_by_ids(Kind::Tagger, pk, &members)?, observer)?;
        Ok(created)
    }

    /// Starts training of every member: each on the task pool, or with an observer all of
    /// them in the foreground (in parallel on the task pool), returning when all have ended.
    fn train_members(self: &Arc<Self>, pk: i64, members: &[Resource], observer: Option<MemberObserver>) -> Result<()> {
        match observer {
            None => {
                for m in members {
                    self.start_tagger_training(pk, m.id, None, None)?;
                }
                Ok(())
            }
            Some(observer) => self.on_task_pool(|| {
                members.par_iter().try_for_each(|m| {
                    let (observer, tag, members) = (observer.clone(), m.description.clone(), members.len());
                    let member_observer: super::tasks::Observer =
                        Box::new(move |task: &TaskOut| observer(MemberUpdate { members, tag: &tag, task }));
                    self.start_tagger_training(pk, m.id, None, Some(member_observer)).map(drop)
                })
            }),
        }
    }

    /// The member taggers of a group, ascending id.
    fn group_members(&self, g: &Resource) -> Result<Vec<Resource>> {
        let ids = self.members((Kind::TaggerGroup, g.id), Kind::Tagger)?;
        self.resources_by_ids(Kind::Tagger, g.project_id, &ids)
    }

    fn render_tagger_group(&self, ctx: &Ctx, r: &Resource) -> Result<TaggerGroupOut> {
        let s = stored(r)?;
        let members = self.group_members(r)?;
        let mut status = TaggerStatus {
            total: s.num_tags,
            ..TaggerStatus::default()
        };
        for m in &members {
            let task = self.linked_task(m)?;
            match task.map_or(TaskStatus::Created, |t| t.status) {
                TaskStatus::Completed => status.completed += 1,
                TaskStatus::Running => status.training += 1,
                TaskStatus::Created | TaskStatus::Queued => status.created += 1,
                TaskStatus::Failed | TaskStatus::Cancelled => status.failed += 1,
            }
        }
        let params = members.first().map(|m| {
            let t = taggers::stored(m);
            TaggerParams {
                fields: t.fields,
                vectorizer: t.vectorizer,
                classifier: t.classifier,
            }
        });
        let statistics = (!members.is_empty()).then(|| {
            let metrics: Vec<taggers::Metrics> = members.iter().filter_map(|m| taggers::stored(m).metrics).collect();
            let average = |pick: fn(&taggers::Metrics) -> f64| {
                (!metrics.is_empty()).then(|| metrics.iter().map(pick).sum::<f64>() / metrics.len() as f64)
            };
            // Each model's size in MB with one decimal, summed to three (the reference's figures).
            let size: f64 = members
                .iter()
                .filter_map(|m| std::fs::metadata(self.model_file(Kind::Tagger, m.id, "model")).ok())
                .map(|meta| (meta.len() as f64 / 1e5).round() / 10.0)
                .sum();
            TaggerStatistics {
                avg_precision: average(|m| m.precision),
                avg_recall: average(|m| m.recall),
                avg_f1_score: average(|m| m.f1_score),
                sum_size: ModelSize {
                    size: (size * 1000.0).round() / 1000.0,
                    unit: "mb".into(),
                },
            }
        });
        Ok(TaggerGroupOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::TaggerGroup, r.id),
            author_username: r.author_username.clone(),
            description: r.description.clone(),
            fact_name: s.fact_name,
            num_tags: s.num_tags,
            minimum_sample_size: s.minimum_sample_size,
            tagger_status: status,
            tagger_params: params,
            tagger_statistics: statistics,
            task: self.linked_task(r)?,
        })
    }

    /// A group ready to tag; the reference's 400 when no member has a model.
    fn tagging_group(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<Group> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::TaggerGroup, pk, id)?;
        let s = stored(&r)?;
        let members = self.group_members(&r)?;
        if !members.iter().any(|m| self.model_file(Kind::Tagger, m.id, "model").exists()) {
            return Err(Error::BadRequest("Model does not exist".into()));
        }
        let fields = members.first().map(|m| taggers::stored(m).fields).unwrap_or_default();
        Ok(Group {
            pk,
            fact_name: s.fact_name,
            fields,
            members,
        })
    }

    /// The group's tags for `text` (`models.md` 2.3): entity facts equal to a member's tag
    /// first, then the positive predictions of the candidate members, most probable first.
    /// Members tag the (lemmatized) text, or the given fields.
    fn group_tags(&self, g: &Group, text: &str, input: MemberInput, o: TagOptions) -> Result<Vec<GroupTag>> {
        let analysis = (o.lemmatize || o.use_ner)
            .then(|| {
                let analyzers = super::mlp::Analyzers {
                    lemmas: o.lemmatize,
                    ner: o.use_ner,
                    entities: o.use_ner,
                    ..Default::default()
                };
                self.mlp().process(text.trim(), &analyzers).map_err(Error::Unavailable)
            })
            .transpose()?;
        let read = match (&analysis, o.lemmatize) {
            (Some(a), true) => a["text"]["lemmas"].as_str().unwrap_or(text).to_string(),
            _ => text.to_string(),
        };
        let mut tags = Vec::new();
        let mut matched: HashSet<String> = HashSet::new();
        if o.use_ner {
            let facts = analysis
                .as_ref()
                .and_then(|a| a["texta_facts"].as_array())
                .cloned()
                .unwrap_or_default();
            for fact in facts {
                let value = fact["str_val"].as_str().unwrap_or_default().trim().to_lowercase();
                if matched.contains(&value) {
                    continue;
                }
                if let Some(m) = g.members.iter().find(|m| m.description.to_lowercase() == value) {
                    matched.insert(value);
                    tags.push(GroupTag::Ner(NerMatch {
                        tag: m.description.clone(),
                        probability: 1.0,
                        tagger_id: m.id,
                        ner_match: true,
                    }));
                }
            }
        }
        let candidates = self.candidate_tags(g, &read, &matched, o)?;
        let running: Vec<&Resource> = g
            .members
            .iter()
            .filter(|m| candidates.contains(&m.description.to_lowercase()))
            .collect();
        let mut predicted = running
            .par_iter()
            .filter_map(|m| match self.prepared_tagger(m) {
                Ok(t) => Some(member_tag(self, &t, &read, &input)),
                // A member without a model (failed, or not trained yet) does not answer.
                Err(Error::BadRequest(_)) => None,
                Err(e) => Some(Err(e)),
            })
            .collect::<Result<Vec<TagOut>>>()?;
        predicted.retain(|t| t.result);
        predicted.sort_by(|a, b| b.probability.total_cmp(&a.probability));
        tags.extend(predicted.into_iter().map(GroupTag::Predicted));
        Ok(tags)
    }

    /// Candidate tags (lower-cased): the values of the group's fact in the documents most like
    /// `text` over the project's indices, most frequent first (ties: first seen), skipping
    /// `skip`.
    fn candidate_tags(&self, g: &Group, text: &str, skip: &HashSet<String>, o: TagOptions) -> Result<HashSet<String>> {
        let indices = self.project_indices(g.pk)?;
        if indices.is_empty() || o.n_similar_docs == 0 || o.n_candidate_tags == 0 || text.trim().is_empty() {
            return Ok(HashSet::new());
        }
        let body = json!({
            "size": o.n_similar_docs,
            "_source": ["texta_facts"],
            "query": {"more_like_this": {"fields": g.fields, "like": text, "min_term_freq": 1, "max_query_terms": 12}},
        });
        let answer = self.search.search(&indices, &body)?;
        Ok(rank_candidates(&answer, &g.fact_name, skip, o.n_candidate_tags)
            .into_iter()
            .collect())
    }

    /// A group ready to apply to an index, with its members' tags (the fact values it
    /// writes); the reference's 400 when no member has a model.
    pub(crate) fn group_for_apply(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<(Group, Vec<String>)> {
        let g = self.tagging_group(ctx, pk, id)?;
        let tags = g.members.iter().map(|m| m.description.clone()).collect();
        Ok((g, tags))
    }

    /// The tags `tag_text` gives `text`, the tagger tags cut to `max_tags`.
    pub(crate) fn group_text_tags(&self, g: &Group, text: &str, o: TagOptions, max_tags: usize) -> Result<Vec<String>> {
        let mut taggers = 0;
        Ok(self
            .group_tags(g, text, MemberInput::Text, o)?
            .into_iter()
            .filter_map(|t| match t {
                GroupTag::Ner(n) => Some(n.tag),
                GroupTag::Predicted(p) => {
                    taggers += 1;
                    (taggers <= max_tags).then_some(p.tag)
                }
            })
            .collect())
    }

    /// POST tagger_groups/{id}/tag_text/.
    pub fn tagger_group_tag_text(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<Vec<GroupTag>> {
        self.check_project_access(ctx, pk)?;
        self.resource(Kind::TaggerGroup, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let text = f.string("text", super::regex_taggers::TEXT);
        let options = TagOptions::parse(&mut f);
        f.finish()?;
        let g = self.tagging_group(ctx, pk, id)?;
        self.group_tags(&g, &text.unwrap_or_default(), MemberInput::Text, options)
    }

    /// POST tagger_groups/{id}/tag_doc/.
    pub fn tagger_group_tag_doc(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<Vec<GroupTag>> {
        self.check_project_access(ctx, pk)?;
        self.resource(Kind::TaggerGroup, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let doc = f.object("doc", false);
        let options = TagOptions::parse(&mut f);
        f.finish()?;
        let g = self.tagging_group(ctx, pk, id)?;
        let texts = doc_texts(doc, &g.fields)?;
        self.tag_fields(&g, &texts, options)
    }

    /// A document's field texts through the group: read joined by newlines; members tag each
    /// field.
    fn tag_fields(&self, g: &Group, texts: &[String], options: TagOptions) -> Result<Vec<GroupTag>> {
        let joined = texts.join("\n");
        self.group_tags(g, &joined, MemberInput::Fields(texts, options.lemmatize), options)
    }

    /// POST tagger_groups/{id}/tag_random_doc/ → `{document, tags}`: a random document of the
    /// given (or the project's) indices, reduced to the members' fields, tagged without
    /// lemmatizing.
    pub fn tagger_group_tag_random_doc(&self, ctx: &Ctx, pk: i64, id: i64, body: &Value) -> Result<RandomDocTags> {
        self.check_project_access(ctx, pk)?;
        self.resource(Kind::TaggerGroup, pk, id)?;
        let mut f = Form::new(body, Mode::Full)?;
        let given = parse_index_objects(&mut f, "indices")?;
        f.finish()?;
        let g = self.tagging_group(ctx, pk, id)?;
        let indices = self.resolve_indices(pk, given)?;
        for name in &indices {
            if !self.search.index_exists(name)? {
                return Err(Error::BadRequestError(format!(
                    "One or more index from {} does not exist",
                    super::pytext::repr_list(&indices)
                )));
            }
        }
        let hit = self.random_document(pk, Some(indices))?;
        let flat = super::regex_tagger::ops::flatten(&hit.source);
        let document: serde_json::Map<String, Value> = flat.into_iter().filter(|(k, _)| g.fields.contains(k)).collect();
        let document = Value::Object(document);
        let texts = field_texts(&document, &g.fields);
        let options = TagOptions {
            lemmatize: false,
            ..TagOptions::default()
        };
        let tags = self.tag_fields(&g, &texts, options)?;
        Ok(RandomDocTags { document, tags })
    }

    /// Tags batch input lines (texts as tag_text, documents as tag_doc, with `options`: the
    /// tag_text body's `lemmatize`, `use_ner`, `n_similar_docs`, `n_candidate_tags`) in parallel, keeping input order; one JSON text per line, `{"error"}` for a
    /// bad line.
    pub fn tagger_group_tag_batch(&self, ctx: &Ctx, pk: i64, id: i64, options: &Value, lines: &[&str]) -> Result<Vec<String>> {
        let g = self.tagging_group(ctx, pk, id)?;
        let mut f = Form::new(options, Mode::Full)?;
        let options = TagOptions::parse(&mut f);
        f.finish()?;
        Ok(lines
            .par_iter()
            .map(|line| {
                let out = match super::lines::BatchItem::parse(line) {
                    super::lines::BatchItem::Text(text) => match super::pytext::strip(&text) {
                        "" => Err(Error::field("text", super::validate::NOT_BLANK)),
                        text => self.group_tags(&g, text, MemberInput::Text, options),
                    },
                    super::lines::BatchItem::Doc(doc) => {
                        doc_texts(doc.as_object(), &g.fields).and_then(|texts| self.tag_fields(&g, &texts, options))
                    }
                };
                match out {
                    Ok(v) => serde_json::to_string(&v).unwrap_or_default(),
                    Err(e) => json!({"error": e.to_string()}).to_string(),
                }
            })
            .collect())
    }

    /// GET tagger_groups/{id}/models_list/.
    pub fn tagger_group_models(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<Vec<MemberOut>> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::TaggerGroup, pk, id)?;
        self.group_members(&r)?
            .into_iter()
            .map(|m| {
                let status = match m.task_id {
                    Some(t) => self.task(t)?.map_or(TaskStatus::Created, |t| t.status),
                    None => TaskStatus::Created,
                };
                Ok(MemberOut {
                    url: resource_url(ctx, pk, Kind::Tagger, m.id),
                    tag: m.description,
                    id: m.id,
                    status: status.as_str().into(),
                })
            })
            .collect()
    }

    /// POST tagger_groups/{id}/models_retrain/: every member trains again (each task reset
    /// to `created`); the old models serve until the new ones are written. With an observer
    /// (local CLI) the members train in the foreground.
    pub fn retrain_tagger_group(self: &Arc<Self>, ctx: &Ctx, pk: i64, id: i64, observer: Option<MemberObserver>) -> Result<RetrainOut> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::TaggerGroup, pk, id)?;
        self.train_members(pk, &self.group_members(&r)?, observer)?;
        Ok(RetrainOut {
            success: "retraining tasks created".into(),
            tagger_group_id: id,
        })
    }

    /// GET tagger_groups/{id}/export_model/: the group and every trained member (settings,
    /// model, plot) in one file.
    pub fn export_tagger_group(&self, ctx: &Ctx, pk: i64, id: i64) -> Result<Vec<u8>> {
        self.check_project_access(ctx, pk)?;
        let r = self.resource(Kind::TaggerGroup, pk, id)?;
        let mut members = Vec::new();
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        for m in self.group_members(&r)? {
            let Some((model, plot)) = self.trained_files(Kind::Tagger, m.id) else {
                continue;
            };
            let n = members.len();
            members.push(json!({"description": m.description, "config": m.config}));
            files.push((format!("member-{n}.bin"), model));
            if let Some(plot) = plot {
                files.push((format!("member-{n}.png"), plot));
            }
        }
        if members.is_empty() {
            return Err(Error::BadRequest("Model does not exist".into()));
        }
        let config = json!({"group": r.config, "members": members});
        let files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
        super::export::write("tagger_group", &r.description, &config, &files)
    }

    /// POST tagger_groups/import_model/ (multipart `file`): a new group with its members from
    /// an export; every model is checked before anything is stored.
    pub fn import_tagger_group(&self, ctx: &Ctx, pk: i64, body: &Value) -> Result<TaggerGroupOut> {
        self.check_project_access(ctx, pk)?;
        let archive = self.uploaded_export(body, "tagger_group")?;
        let unreadable = |e: serde_json::Error| Error::field("file", format!("Unreadable tagger group settings: {e}"));
        let mut group: Stored = serde_json::from_value(archive.config["group"].clone()).map_err(unreadable)?;
        let mut members = Vec::new();
        for (n, m) in archive.config["members"].as_array().into_iter().flatten().enumerate() {
            let description = m["description"].as_str().unwrap_or_default().to_string();
            let settings: taggers::Stored = serde_json::from_value(m["config"].clone()).map_err(unreadable)?;
            let model = archive
                .files
                .get(&format!("member-{n}.bin"))
                .ok_or_else(|| Error::field("file", format!("The export holds no model for member {description}.")))?;
            super::classifier::Model::from_bytes(model).map_err(|e| Error::field("file", e.to_string()))?;
            members.push((description, settings, model, archive.files.get(&format!("member-{n}.png"))));
        }
        if members.is_empty() {
            return Err(Error::field("file", "The export holds no member tagger."));
        }
        // Links to the exporting project's objects do not travel.
        group.tagger.indices.clear();
        group.tagger.embedding = None;
        let id = self.insert_resource(Kind::TaggerGroup, ctx, pk, &archive.description, &to_config(&group)?)?;
        let mut ids = Vec::with_capacity(members.len());
        for (description, settings, model, plot) in members {
            ids.push(self.store_imported_tagger(ctx, pk, &description, settings, model, plot.map(Vec::as_slice))?);
        }
        self.set_members((Kind::TaggerGroup, id), Kind::Tagger, &ids)?;
        self.get_of::<TaggerGroups>(ctx, pk, id)
    }
}

/// One member's prediction for the group's input.
fn member_tag(e: &Engine, t: &PreparedTagger, read: &str, input: &MemberInput) -> Result<TagOut> {
    match input {
        MemberInput::Text => t.tag(e, &vec![read; t.field_count()], false),
        MemberInput::Fields(texts, lemmatize) => t.tag(e, &texts.iter().map(String::as_str).collect::<Vec<_>>(), *lemmatize),
    }
}

/// The values (lower-cased) of fact `fact_name` in a search answer's hits, most frequent first
/// (ties: first seen), without `skip`, at most `n`.
fn rank_candidates(answer: &Value, fact_name: &str, skip: &HashSet<String>, n: usize) -> Vec<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for hit in answer["hits"]["hits"].as_array().into_iter().flatten() {
        for fact in hit["_source"]["texta_facts"].as_array().into_iter().flatten() {
            if fact["fact"].as_str() != Some(fact_name) {
                continue;
            }
            let value = match &fact["str_val"] {
                Value::String(s) => s.to_lowercase(),
                other => other.to_string(),
            };
            if skip.contains(&value) {
                continue;
            }
            match counts.iter_mut().find(|(v, _)| *v == value) {
                Some((_, count)) => *count += 1,
                None => counts.push((value, 1)),
            }
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts.into_iter().take(n).map(|(v, _)| v).collect()
}

fn to_config<T: Serialize>(v: &T) -> Result<Value> {
    serde_json::to_value(v).map_err(Error::internal)
}

/// The tagger group kind (`/projects/{pk}/tagger_groups/`).
pub struct TaggerGroups;

impl ResourceKind for TaggerGroups {
    const KIND: Kind = Kind::TaggerGroup;
    const NOUN: &'static str = "tagger group";
    const ORDER_KEYS: &'static [&'static str] = &["fact_name", "minimum_sample_size", "num_tags"];
    type Out = TaggerGroupOut;
    type In = TaggerGroupIn;

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<TaggerGroupOut> {
        e.render_tagger_group(ctx, r)
    }

    /// Members train in the background; the answer shows them `created`.
    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<TaggerGroupOut> {
        e.create_tagger_group(ctx, pk, body, None)
    }

    /// Only the description changes: `fact_name`, `minimum_sample_size` and `tagger` made the
    /// members, so they may only be sent unchanged (a new group is the way to change them).
    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        let s = stored(r)?;
        let mut f = Form::new(body, mode)?;
        let description = f.string("description", Str::REQUIRED.max(1000));
        const FIXED: &str = "Cannot be changed after the group is created; create a new group.";
        if f.string("fact_name", Str::OPTIONAL.max(1000)).is_some_and(|v| v != s.fact_name) {
            f.fail("fact_name", FIXED);
        }
        if f.integer("minimum_sample_size", false, Some(1), None)
            .is_some_and(|v| v != s.minimum_sample_size)
        {
            f.fail("minimum_sample_size", FIXED);
        }
        if f.raw("tagger").is_some() {
            f.fail("tagger", FIXED);
        }
        f.finish()?;
        e.update_resource(Kind::TaggerGroup, r.id, description.as_deref().unwrap_or(&r.description), &r.config)
    }

    /// Deleting a group deletes its members, their tasks and model files.
    fn cascade(e: &Engine, r: &Resource) -> Result<BulkDeleteOut> {
        let members = e.group_members(r)?;
        for m in &members {
            Taggers::deleting(e, m)?;
        }
        let ids: Vec<i64> = members.iter().map(|m| m.id).collect();
        e.bulk_delete(Kind::Tagger, r.project_id, &ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_the_most_frequent_values_of_the_fact_in_the_hits() {
        let fact = |name: &str, value: &str| json!({"fact": name, "str_val": value});
        let hit = |facts: Vec<Value>| json!({"_source": {"texta_facts": facts}});
        let answer = json!({"hits": {"hits": [
            hit(vec![fact("TEEMA", "Sport"), fact("PER", "Mari"), fact("TEEMA", "ilm")]),
            hit(vec![fact("TEEMA", "kuritegu"), fact("TEEMA", "sport")]),
            {"_source": {}},
            hit(vec![fact("TEEMA", "kuritegu"), fact("TEEMA", "majandus")]),
        ]}});
        let none = HashSet::new();
        assert_eq!(
            rank_candidates(&answer, "TEEMA", &none, 10),
            ["sport", "kuritegu", "ilm", "majandus"],
            "by count, ties in first-seen order, compared lower-cased"
        );
        assert_eq!(rank_candidates(&answer, "TEEMA", &none, 2), ["sport", "kuritegu"]);
        let skip = HashSet::from(["sport".to_string()]);
        assert_eq!(rank_candidates(&answer, "TEEMA", &skip, 2), ["kuritegu", "ilm"]);
        assert!(rank_candidates(&answer, "PER", &none, 0).is_empty());
        assert_eq!(rank_candidates(&json!({}), "TEEMA", &none, 5), Vec::<String>::new());
    }

    #[test]
    fn tag_options_default_as_the_reference_and_are_validated() {
        let body = json!({"lemmatize": false, "n_similar_docs": 3});
        let mut f = Form::new(&body, Mode::Full).unwrap();
        let o = TagOptions::parse(&mut f);
        assert!(f.finish().is_ok());
        assert_eq!((o.lemmatize, o.use_ner, o.n_similar_docs, o.n_candidate_tags), (false, true, 3, 25));
        let body = json!({"n_candidate_tags": 10001, "use_ner": "x"});
        let mut f = Form::new(&body, Mode::Full).unwrap();
        TagOptions::parse(&mut f);
        assert_eq!(
            f.finish().unwrap_err().body(),
            json!({"use_ner": ["Must be a valid boolean."], "n_candidate_tags": ["Ensure this value is less than or equal to 10000."]})
        );
    }
}
