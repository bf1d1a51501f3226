//! The index splitter (`collection.md` §4): a project resource whose run copies the
//! documents of indices that match a query into a train and a test index, both created empty
//! and in the project at create. `random` sends a uniform random share of them to `test`;
//! `original`, `equal` and `custom` take only documents holding a fact named `fact`, label
//! each by the value of its first such fact and draw each label's test quota at random.
//! Copying, staging and crash safety are the reindexer's (`reindexer::Copier`,
//! `Engine::copy_documents`).
use super::error::{Error, Result};
use super::index_runs::{Selection, MIN_BATCH};
use super::kinds::ResourceKind;
use super::pytext::json_dumps;
use super::reindexer::{sample, Copier};
use super::resources::{resource_url, Kind, Resource};
use super::search::Hit;
use super::tasks::{Observer, TaskHandle, TaskKind, TaskOut};
use super::validate::{Form, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// How documents are shared between the train and the test index.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    /// `test_size` % of all documents, drawn at random.
    #[default]
    Random,
    /// `test_size` % of each label's documents.
    Original,
    /// `test_size` documents of each label.
    Equal,
    /// `custom_distribution[label]` documents of each label.
    Custom,
}

/// The index splitter on the wire (`indices` is write-only, as in the reference).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct IndexSplitterOut {
    pub id: i64,
    pub url: String,
    pub author_username: String,
    pub description: String,
    pub scroll_size: i64,
    pub fields: Vec<String>,
    /// The selecting query, JSON-encoded: `"{\"query\": {...}}"`.
    pub query: String,
    pub train_index: String,
    pub test_index: String,
    pub test_size: i64,
    pub fact: Option<String>,
    pub str_val: Option<String>,
    pub distribution: Distribution,
    #[schema(value_type = Object)]
    pub custom_distribution: BTreeMap<String, u64>,
    pub task: Option<TaskOut>,
}

/// The body that creates an index splitter (it cannot be changed afterwards).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct IndexSplitterIn {
    pub description: String,
    /// `[{"name": "x"}]` or `["x"]`: open indices of the project; all of them when empty.
    pub indices: Option<Vec<Value>>,
    /// Documents per batch (0–10000, default 500; at least 1000 on the embedded store).
    pub scroll_size: Option<i64>,
    /// Dotted paths to copy (each with everything below it); every field when empty.
    pub fields: Option<Vec<String>>,
    /// A search query (object or JSON string) selecting the documents; all by default.
    pub query: Option<Value>,
    /// The index of the training documents; must not exist.
    pub train_index: String,
    /// The index of the test documents; must not exist.
    pub test_index: String,
    /// A percentage (`random`, `original`) or a count per label (`equal`, `custom`); 20 by default.
    pub test_size: Option<i64>,
    /// The fact whose values label the documents (required unless `random`).
    pub fact: Option<String>,
    /// Only documents whose fact `fact` has this value.
    pub str_val: Option<String>,
    pub distribution: Option<Distribution>,
    /// `{label: count}` of test documents (`custom`).
    #[schema(value_type = Option<Object>)]
    pub custom_distribution: Option<BTreeMap<String, u64>>,
}

/// What an index splitter keeps.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
struct Stored {
    indices: Vec<String>,
    scroll_size: i64,
    fields: Vec<String>,
    /// The query clause.
    query: Value,
    train_index: String,
    test_index: String,
    test_size: i64,
    fact: Option<String>,
    str_val: Option<String>,
    distribution: Distribution,
    custom_distribution: BTreeMap<String, u64>,
}

/// `round_half_up(n · percent / 100)`.
fn share(n: u64, percent: u64) -> u64 {
    (n * percent + 50) / 100
}

/// The label of a document: the `str_val` of its first fact named `fact` (with value
/// `str_val` when given).
fn label_of(source: &Value, fact: &str, str_val: Option<&str>) -> Option<String> {
    let facts = source.get("texta_facts")?.as_array()?;
    facts
        .iter()
        .filter(|f| f.get("fact").and_then(Value::as_str) == Some(fact))
        .filter_map(|f| f.get("str_val").and_then(Value::as_str))
        .find(|v| str_val.is_none_or(|wanted| wanted == *v))
        .map(str::to_string)
}

/// Parses `custom_distribution`: `{label: non-negative integer}`.
fn parse_custom(f: &mut Form) -> BTreeMap<String, u64> {
    let Some(raw) = f.object("custom_distribution", false) else {
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    for (label, count) in raw {
        match count.as_u64() {
            Some(n) => {
                out.insert(label.clone(), n);
            }
            None => f.fail(
                "custom_distribution",
                format!("The count of \"{label}\" must be a non-negative integer."),
            ),
        }
    }
    out
}

/// The key of a document across indices.
fn doc_key(hit: &Hit) -> String {
    format!("{}\u{0}{}", hit.index, hit.id)
}

impl Engine {
    fn render_index_splitter(&self, ctx: &Ctx, r: &Resource) -> Result<IndexSplitterOut> {
        let s: Stored = serde_json::from_value(r.config.clone()).unwrap_or_default();
        Ok(IndexSplitterOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::IndexSplitter, r.id),
            author_username: r.author_username.clone(),
            description: r.description.clone(),
            scroll_size: s.scroll_size,
            fields: s.fields,
            query: json_dumps(&json!({ "query": s.query })),
            train_index: s.train_index,
            test_index: s.test_index,
            test_size: s.test_size,
            fact: s.fact,
            str_val: s.str_val,
            distribution: s.distribution,
            custom_distribution: s.custom_distribution,
            task: self.linked_task(r)?,
        })
    }

    /// The test documents of a labelled split (keys of `doc_key`) and the number of
    /// labelled documents: a first pass reads each document's label, then each label's
    /// quota is drawn at random.
    fn labelled_test_set(&self, s: &Stored, selection: &Selection, fact: &str) -> Result<(HashSet<String>, u64)> {
        let mut by_label: HashMap<String, Vec<String>> = HashMap::new();
        self.scan_documents(&selection.indices, &selection.query, MIN_BATCH, &mut |hits| {
            for hit in &hits {
                if let Some(label) = label_of(&hit.source, fact, s.str_val.as_deref()) {
                    by_label.entry(label).or_default().push(doc_key(hit));
                }
            }
            Ok(())
        })?;
        let size = s.test_size.max(0) as u64;
        let mut test = HashSet::new();
        let mut labelled = 0;
        for (label, keys) in by_label {
            let n = keys.len() as u64;
            labelled += n;
            let quota = match s.distribution {
                Distribution::Original => share(n, size),
                Distribution::Equal => size.min(n),
                Distribution::Custom => s.custom_distribution.get(&label).copied().unwrap_or(0).min(n),
                Distribution::Random => 0,
            };
            test.extend(sample(n, quota).into_iter().map(|i| keys[i as usize].clone()));
        }
        Ok((test, labelled))
    }

    /// Starts the run of index splitter `id`.
    fn start_index_splitter(self: &Arc<Self>, pk: i64, id: i64, observer: Option<Observer>) -> Result<i64> {
        let r = self.resource(Kind::IndexSplitter, pk, id)?;
        let s: Stored = serde_json::from_value(r.config).map_err(Error::internal)?;
        let engine = self.clone();
        let job = Box::new(move |h: &TaskHandle| {
            h.step("scrolling data")?;
            let targets = [s.train_index.clone(), s.test_index.clone()];
            let copier = Copier::new(&s.fields, &[]);
            let batch = usize::try_from(s.scroll_size).unwrap_or(0).max(MIN_BATCH);
            match (s.distribution, &s.fact) {
                (Distribution::Random, _) | (_, None) => {
                    let selection = Selection {
                        indices: s.indices.clone(),
                        query: s.query.clone(),
                    };
                    let n = engine.count_documents(&selection.indices, &selection.query)?;
                    let test = sample(n, share(n, s.test_size.max(0) as u64));
                    let route = |ordinal: u64, _: &Hit| Some(usize::from(test.contains(&ordinal)));
                    engine.copy_documents(
                        pk,
                        (&selection, n, batch),
                        (&targets, (Kind::IndexSplitter, id)),
                        &copier,
                        &route,
                        h,
                    )
                }
                (_, Some(fact)) => {
                    let value = s.str_val.as_deref();
                    let mut must = vec![json!({"term": {"texta_facts.fact": fact}})];
                    if let Some(v) = value {
                        must.push(json!({"term": {"texta_facts.str_val": v}}));
                    }
                    let holding = json!({"nested": {"path": "texta_facts", "query": {"bool": {"must": must}}}});
                    let selection = Selection {
                        indices: s.indices.clone(),
                        query: json!({"bool": {"filter": [s.query, holding]}}),
                    };
                    let (test, labelled) = engine.labelled_test_set(&s, &selection, fact)?;
                    let route = |_: u64, hit: &Hit| label_of(&hit.source, fact, value).map(|_| usize::from(test.contains(&doc_key(hit))));
                    engine.copy_documents(
                        pk,
                        (&selection, labelled, batch),
                        (&targets, (Kind::IndexSplitter, id)),
                        &copier,
                        &route,
                        h,
                    )
                }
            }
        });
        let kind = TaskKind::SplitIndex { splitter: id };
        let (task, ()) = self.start_linked_task((Kind::IndexSplitter, id), pk, &kind, job, observer, || Ok(()))?;
        Ok(task)
    }

    /// Creates an index splitter: its train and test indices empty and in the project at
    /// once, and its run started (in the foreground with an observer: the local CLI).
    pub fn create_index_splitter(
        self: &Arc<Self>,
        ctx: &Ctx,
        pk: i64,
        body: &Value,
        observer: Option<Observer>,
    ) -> Result<IndexSplitterOut> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let description = f.string("description", Str::REQUIRED.max(1000));
        let indices = self.source_indices(&mut f, pk, false)?;
        let scroll_size = f.integer("scroll_size", false, Some(0), Some(10_000));
        let fields = self.copied_fields(&mut f, pk, "add to new indices")?;
        let query = super::taggers::parse_query(&mut f);
        let train_index = self.new_index(&mut f, "train_index", |name| {
            format!("{name} already exists, choose a different name for your train index")
        })?;
        let test_index = self.new_index(&mut f, "test_index", |name| {
            format!("{name} already exists, choose a different name for your test index")
        })?;
        let test_size = f.integer("test_size", false, Some(1), Some(10_000));
        let fact = f.string("fact", Str::OPTIONAL);
        let str_val = f.string("str_val", Str::OPTIONAL);
        let chosen: Option<Distribution> = f.choice("distribution", false);
        // A refused choice says nothing of how test_size reads.
        let known = chosen.is_some() || f.raw("distribution").is_none();
        let distribution = chosen.unwrap_or_default();
        let custom_distribution = parse_custom(&mut f);
        let test_size = test_size.unwrap_or(20);
        if known && matches!(distribution, Distribution::Random | Distribution::Original) && test_size > 100 {
            f.fail("test_size", "Ensure this value is less than or equal to 100.");
        }
        if !f.has_errors() {
            if train_index == test_index {
                f.fail("non_field_errors", "train_index and test_index must be different");
            }
            if distribution == Distribution::Custom && custom_distribution.is_empty() {
                f.fail(
                    "non_field_errors",
                    "field custom_distribution can not be empty with custom label distribution",
                );
            }
            // a blank fact names no fact: it would select nothing and split empty indices
            if distribution != Distribution::Random && fact.as_deref().is_none_or(str::is_empty) {
                f.fail(
                    "non_field_errors",
                    "fact must be specified with \"custom\", \"equal\" or \"original\" distribution",
                );
            }
        }
        f.finish()?;
        let selection = self.selection(pk, Some(indices).filter(|i| !i.is_empty()), query)?;
        let stored = Stored {
            indices: selection.indices,
            scroll_size: scroll_size.unwrap_or(500),
            fields,
            query: selection.query,
            train_index: train_index.unwrap_or_default(),
            test_index: test_index.unwrap_or_default(),
            test_size,
            fact,
            str_val,
            distribution,
            custom_distribution,
        };
        self.create_targets(pk, &[&stored.train_index, &stored.test_index])?;
        let config = serde_json::to_value(&stored).map_err(Error::internal)?;
        let id = self.insert_resource(Kind::IndexSplitter, ctx, pk, &description.unwrap_or_default(), &config)?;
        self.start_index_splitter(pk, id, observer)?;
        self.get_of::<IndexSplitters>(ctx, pk, id)
    }

    /// The run of a retried task: a failed run left both indices empty; one that copied
    /// documents is not repeated.
    pub(super) fn rerun_index_splitter(self: &Arc<Self>, pk: i64, id: i64) -> Result<i64> {
        let r = self.idle_resource(Kind::IndexSplitter, pk, id)?;
        let s: Stored = serde_json::from_value(r.config).map_err(Error::internal)?;
        self.ensure_empty(&[s.train_index, s.test_index])?;
        self.start_index_splitter(pk, id, None)
    }
}

/// The index splitter kind (`/projects/{pk}/index_splitter/`).
pub struct IndexSplitters;

impl ResourceKind for IndexSplitters {
    const KIND: Kind = Kind::IndexSplitter;
    const NOUN: &'static str = "index splitter";
    type Out = IndexSplitterOut;
    type In = IndexSplitterIn;
    const ORDER_KEYS: &'static [&'static str] = &["fields", "train_index", "test_index", "scroll_size"];

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<IndexSplitterOut> {
        e.render_index_splitter(ctx, r)
    }

    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<IndexSplitterOut> {
        e.create_index_splitter(ctx, pk, body, None)
    }

    /// Only `description` changes (the catalogue serves no PUT or PATCH: 405, as the
    /// reindexer).
    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        super::mlp_index::update_description(e, Kind::IndexSplitter, r, body, mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotas_round_half_up_and_the_label_is_the_first_matching_fact() {
        assert_eq!((share(5, 50), share(3, 50), share(10, 20), share(1, 49)), (3, 2, 2, 0));
        let doc = json!({"texta_facts": [{"fact": "TOPIC", "str_val": "sport"}, {"fact": "TOPIC", "str_val": "news"}]});
        assert_eq!(label_of(&doc, "TOPIC", None).as_deref(), Some("sport"));
        assert_eq!(label_of(&doc, "TOPIC", Some("news")).as_deref(), Some("news"));
        assert_eq!(label_of(&doc, "PER", None), None);
    }
}
