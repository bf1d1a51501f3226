//! The topic analyzer (`collection.md` §5): clustering resources, their settings and their
//! run. A run reads up to `document_limit` selected documents (leaving out `ignored_ids`),
//! turns the texts of `fields` into tokens (the text processor with stop words, then HTML
//! tags, short tokens and numbers dropped, phrases joined by the embedding's phraser),
//! vectorizes and clusters them with `ta-cluster` (seed 10), and stores one cluster per
//! label with its similarity and significant words (`clusters.rs`). The vectorizer (the
//! dictionary, weights and LSI projection) is kept in a model file, so documents added to a
//! cluster later are vectorized the same way.
use super::classifier::{Hooks, Phraser, ProcessorOptions, TextProcessor};
use super::cluster::{self as tc, Rows};
use super::clusters::Figures;
use super::error::{Error, Result};
use super::indices::parse_index_refs;
use super::kinds::ResourceKind;
use super::models::ModelFile;
use super::pytext::json_dumps;
use super::resources::{resource_url, BulkDeleteOut, Kind, Resource};
use super::tasks::{Observer, TaskHandle, TaskKind, TaskOut};
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::{Arc, OnceLock};

/// The reference's `random_state`.
pub const SEED: u64 = 10;
/// Documents read per batch while scrolling.
const SCROLL_BATCH: usize = 1000;
/// Why a run whose dictionary came out empty fails (every document would be a zero vector).
const NO_WORDS: &str = "no words to cluster by: each is a stop word, a number, 1 character long or in over 80 % of documents";

/// `clustering_algorithm`.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub enum ClusteringAlgorithm {
    #[default]
    #[serde(rename = "kmeans")]
    KMeans,
    #[serde(rename = "minibatchkmeans")]
    MiniBatchKMeans,
}

/// `vectorizer` (`Embedding Vectorizer` is a ta extension).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub enum ClusteringVectorizer {
    #[default]
    #[serde(rename = "TfIdf Vectorizer")]
    TfIdf,
    #[serde(rename = "Count Vectorizer")]
    Count,
    #[serde(rename = "Embedding Vectorizer")]
    Embedding,
}

/// The clustering resource on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ClusteringOut {
    pub id: i64,
    pub url: String,
    pub description: String,
    pub author_username: String,
    /// The selecting query, JSON-encoded: `"{\"query\": {...}}"`.
    pub query: String,
    pub indices: Vec<super::indices::IndexOut>,
    pub num_cluster: i64,
    pub clustering_algorithm: ClusteringAlgorithm,
    pub vectorizer: ClusteringVectorizer,
    pub num_dims: i64,
    pub use_lsi: bool,
    pub num_topics: i64,
    pub significant_words_filter: String,
    pub display_fields: Vec<String>,
    pub stop_words: Vec<String>,
    pub ignored_ids: Vec<String>,
    pub fields: Vec<String>,
    pub embedding: Option<i64>,
    pub document_limit: i64,
    pub task: Option<TaskOut>,
}

/// The body that creates or changes a clustering (a change does not cluster again).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct ClusteringIn {
    pub description: String,
    /// Dotted paths whose texts are clustered.
    pub fields: Vec<String>,
    /// `["x"]` or `[{"name": "x"}]`: open indices of the project; all of them when empty.
    pub indices: Option<Vec<Value>>,
    /// A search query (object or JSON string) selecting the documents; all by default.
    pub query: Option<Value>,
    /// Clusters to make, 1–1000 (default 10); 0: estimated by the silhouette (ta extension).
    pub num_cluster: Option<i64>,
    pub clustering_algorithm: Option<ClusteringAlgorithm>,
    pub vectorizer: Option<ClusteringVectorizer>,
    /// Dictionary size, 1–10000 (default 1000).
    pub num_dims: Option<i64>,
    /// Project the vectors onto `num_topics` LSI topics (default false).
    pub use_lsi: Option<bool>,
    /// LSI topics, 1–1000 (default 50).
    pub num_topics: Option<i64>,
    /// Words this regex fully matches are not listed as significant (default `[0-9]+`).
    pub significant_words_filter: Option<String>,
    /// Extra fields for showing documents.
    pub display_fields: Option<Vec<String>>,
    /// Removed besides the built-in stop words.
    pub stop_words: Option<Vec<String>>,
    /// Document ids left out of clustering.
    pub ignored_ids: Option<Vec<String>>,
    /// An embedding of the project: its phraser joins phrases; needed by `Embedding Vectorizer`.
    pub embedding: Option<i64>,
    /// The most documents clustered, 1–1000000 (default 100).
    pub document_limit: Option<i64>,
}

/// What a clustering keeps.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub(super) struct Stored {
    pub indices: Vec<String>,
    /// The query clause.
    pub query: Value,
    pub num_cluster: i64,
    pub clustering_algorithm: ClusteringAlgorithm,
    pub vectorizer: ClusteringVectorizer,
    pub num_dims: i64,
    pub use_lsi: bool,
    pub num_topics: i64,
    pub significant_words_filter: String,
    pub display_fields: Vec<String>,
    pub stop_words: Vec<String>,
    pub ignored_ids: Vec<String>,
    pub fields: Vec<String>,
    pub embedding: Option<i64>,
    pub document_limit: i64,
}

impl Default for Stored {
    fn default() -> Self {
        Stored {
            indices: Vec::new(),
            query: json!({"match_all": {}}),
            num_cluster: 10,
            clustering_algorithm: ClusteringAlgorithm::KMeans,
            vectorizer: ClusteringVectorizer::TfIdf,
            num_dims: 1000,
            use_lsi: false,
            num_topics: 50,
            significant_words_filter: "[0-9]+".into(),
            display_fields: Vec::new(),
            stop_words: Vec::new(),
            ignored_ids: Vec::new(),
            fields: Vec::new(),
            embedding: None,
            document_limit: 100,
        }
    }
}

pub(super) fn stored(r: &Resource) -> Stored {
    serde_json::from_value(r.config.clone()).unwrap_or_default()
}

/// The regex of `significant_words_filter`, matching whole words.
pub(super) fn word_filter(pattern: &str) -> std::result::Result<regex::Regex, regex::Error> {
    regex::Regex::new(&format!("^(?:{pattern})$"))
}

impl Stored {
    /// The selection's query without the ignored documents.
    pub(super) fn clause(&self) -> Value {
        if self.ignored_ids.is_empty() {
            return self.query.clone();
        }
        json!({"bool": {"must": [self.query], "must_not": [{"ids": {"values": self.ignored_ids}}]}})
    }

    /// The text processor of the fields: stop words (built-in and `stop_words`) removed.
    pub(super) fn processor(&self) -> TextProcessor {
        TextProcessor::new(&ProcessorOptions {
            sentences: false,
            remove_stop_words: true,
            custom_stop_words: self.stop_words.join(" "),
            ..Default::default()
        })
    }
}

/// The text of a field: a string, or the strings of an array joined by `" "`.
pub(super) fn field_string(source: &Value, path: &str) -> Option<String> {
    match super::lines::flat_get(source, path)? {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => Some(items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ")),
        _ => None,
    }
}

/// A document's tokens (`collection.md` §5.4 rule 2).
pub(super) fn document_tokens(source: &Value, fields: &[String], processor: &TextProcessor, phraser: Option<&dyn Phraser>) -> Vec<String> {
    static TAGS: OnceLock<regex::Regex> = OnceLock::new();
    let tags = TAGS.get_or_init(|| regex::Regex::new("<([^>]+)>").expect("a valid pattern"));
    let joined = fields
        .iter()
        .filter_map(|f| field_string(source, f))
        .map(|text| processor.tokens(&text, &Hooks::default()).join(" "))
        .collect::<Vec<_>>()
        .join(" ");
    let tokens: Vec<String> = tags
        .replace_all(&joined, "")
        .split_whitespace()
        .filter(|t| t.chars().count() >= 2 && !t.chars().all(char::is_numeric))
        .map(str::to_string)
        .collect();
    match phraser {
        Some(p) => p.phrase(tokens),
        None => tokens,
    }
}

/// What a run keeps of a document it read: where it is and its fields' texts.
struct ReadDoc {
    index: String,
    id: String,
    texts: Vec<String>,
}

/// What turns a clustering's token lists into vectors.
pub(super) enum Vectorizing {
    Model(tc::Model),
    Embedding(Arc<super::embedding::Embedding>),
}

impl Vectorizing {
    pub(super) fn rows(&self, docs: &[Vec<String>]) -> Rows {
        match self {
            Vectorizing::Model(m) => m.transform(docs),
            Vectorizing::Embedding(e) => tc::vectorize::embedding_rows(docs, e.num_dimensions(), &|w| e.vector(w).map(<[f32]>::to_vec)),
        }
    }
}

impl Engine {
    /// Validates the settings of a clustering body onto `s`.
    fn parse_clustering(&self, f: &mut Form, pk: i64, s: &mut Stored) -> Result<Option<Vec<String>>> {
        let indices = parse_index_refs(f, "indices")?;
        if let Some(q) = super::taggers::parse_query(f) {
            s.query = super::search::query_clause(&q).clone();
        }
        if let Some(v) = f.integer("num_cluster", false, Some(0), Some(1000)) {
            s.num_cluster = v;
        }
        if let Some(v) = f.choice("clustering_algorithm", false) {
            s.clustering_algorithm = v;
        }
        if let Some(v) = f.choice("vectorizer", false) {
            s.vectorizer = v;
        }
        if let Some(v) = f.integer("num_dims", false, Some(1), Some(10_000)) {
            s.num_dims = v;
        }
        if let Some(v) = f.boolean("use_lsi") {
            s.use_lsi = v;
        }
        if let Some(v) = f.integer("num_topics", false, Some(1), Some(1000)) {
            s.num_topics = v;
        }
        if let Some(v) = f.string("significant_words_filter", Str::OPTIONAL.blank()) {
            if word_filter(&v).is_err() {
                f.fail("significant_words_filter", "Given string is not a valid regex.");
            }
            s.significant_words_filter = v;
        }
        for (name, slot) in [
            ("display_fields", &mut s.display_fields),
            ("stop_words", &mut s.stop_words),
            ("ignored_ids", &mut s.ignored_ids),
        ] {
            if let Some(v) = f.strings(name, List::OPTIONAL, Str::REQUIRED) {
                *slot = v;
            }
        }
        if let Some(fields) = f.strings("fields", List::REQUIRED, Str::REQUIRED) {
            self.check_project_fields(f, pk, &fields)?;
            s.fields = fields;
        }
        if let Some(e) = self.embedding_ref(f, pk) {
            s.embedding = e;
        }
        if let Some(v) = f.integer("document_limit", false, Some(1), Some(1_000_000)) {
            s.document_limit = v;
        }
        if s.vectorizer == ClusteringVectorizer::Embedding && s.embedding.is_none() && f.raw("embedding").is_none_or(Value::is_null) {
            f.fail("embedding", "Embedding Vectorizer needs an embedding.");
        }
        Ok(indices)
    }

    fn render_clustering(&self, ctx: &Ctx, r: &Resource) -> Result<ClusteringOut> {
        let s = stored(r);
        Ok(ClusteringOut {
            id: r.id,
            url: resource_url(ctx, r.project_id, Kind::Clustering, r.id),
            description: r.description.clone(),
            author_username: r.author_username.clone(),
            query: json_dumps(&json!({ "query": s.query })),
            indices: self.index_objects(ctx, &s.indices)?,
            num_cluster: s.num_cluster,
            clustering_algorithm: s.clustering_algorithm,
            vectorizer: s.vectorizer,
            num_dims: s.num_dims,
            use_lsi: s.use_lsi,
            num_topics: s.num_topics,
            significant_words_filter: s.significant_words_filter,
            display_fields: s.display_fields,
            stop_words: s.stop_words,
            ignored_ids: s.ignored_ids,
            fields: s.fields,
            embedding: s.embedding,
            document_limit: s.document_limit,
            task: self.linked_task(r)?,
        })
    }

    /// Creates a clustering and starts its run (in the foreground with an observer: the
    /// local CLI).
    pub fn create_clustering(self: &Arc<Self>, ctx: &Ctx, pk: i64, body: &Value, observer: Option<Observer>) -> Result<ClusteringOut> {
        self.check_project_access(ctx, pk)?;
        let mut f = Form::new(body, Mode::Full)?;
        let description = f.string("description", Str::REQUIRED.max(1000));
        let mut s = Stored::default();
        let indices = self.parse_clustering(&mut f, pk, &mut s)?;
        f.finish()?;
        let selection = self.selection(pk, indices, Some(s.query.clone()))?;
        s.indices = selection.indices;
        let config = serde_json::to_value(&s).map_err(Error::internal)?;
        let id = self.insert_resource(Kind::Clustering, ctx, pk, &description.unwrap_or_default(), &config)?;
        self.start_clustering(pk, id, observer)?;
        self.get_of::<Clusterings>(ctx, pk, id)
    }

    /// PUT or PATCH: stores the settings; the clusters stay until `retrain`.
    fn update_clustering(&self, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        let mut f = Form::new(body, mode)?;
        let description = f
            .string("description", Str::REQUIRED.max(1000))
            .unwrap_or_else(|| r.description.clone());
        let mut s = stored(r);
        let indices = self.parse_clustering(&mut f, r.project_id, &mut s)?;
        f.finish()?;
        if indices.is_some() || body.get("query").is_some() {
            let selection = self.selection(r.project_id, indices.or(Some(s.indices.clone())), Some(s.query.clone()))?;
            s.indices = selection.indices;
        }
        self.store_config(Kind::Clustering, r.id, &description, &s)
    }

    /// POST clustering/{id}/retrain/: the clusters deleted, the run started again with the
    /// current settings.
    pub fn retrain_clustering(
        self: &Arc<Self>,
        ctx: &Ctx,
        pk: i64,
        id: i64,
        observer: Option<Observer>,
    ) -> Result<super::mlp_index::MessageOut> {
        self.check_project_access(ctx, pk)?;
        let r = self.idle_resource(Kind::Clustering, pk, id)?;
        self.start_clustering(pk, id, observer)?;
        Ok(super::mlp_index::MessageOut {
            message: format!("Started re-clustering '{}' cluster set! ", r.description),
        })
    }

    /// The run of a retried task.
    pub(super) fn rerun_clustering(self: &Arc<Self>, pk: i64, id: i64) -> Result<i64> {
        self.idle_resource(Kind::Clustering, pk, id)?;
        self.start_clustering(pk, id, None)
    }

    fn start_clustering(self: &Arc<Self>, pk: i64, id: i64, observer: Option<Observer>) -> Result<i64> {
        let engine = self.clone();
        let job = Box::new(move |h: &TaskHandle| engine.run_clustering(pk, id, h));
        let kind = TaskKind::Cluster { clustering: id };
        let (task, ()) = self.start_linked_task((Kind::Clustering, id), pk, &kind, job, observer, || Ok(()))?;
        Ok(task)
    }

    /// The vectorizer of a clustering: its model file, or its embedding.
    pub(super) fn clustering_vectorizer(&self, pk: i64, id: i64, s: &Stored) -> Result<Vectorizing> {
        if s.vectorizer == ClusteringVectorizer::Embedding {
            let embedding = s
                .embedding
                .ok_or_else(|| Error::BadRequest("Embedding Vectorizer needs an embedding.".into()))?;
            return Ok(Vectorizing::Embedding(self.embedding_model(pk, embedding)?));
        }
        let bytes = std::fs::read(self.model_file(Kind::Clustering, id, "json")).map_err(Error::internal)?;
        let model: tc::Model = serde_json::from_slice(&bytes).map_err(Error::internal)?;
        Ok(Vectorizing::Model(model.loaded()))
    }

    /// Reads the selected documents (at most `document_limit`, the first in the store's
    /// order) and their tokens, ordered by index and id; of each document only what the
    /// run needs is kept.
    fn read_documents(&self, pk: i64, s: &Stored, figures: &Figures, h: &TaskHandle) -> Result<(Vec<ReadDoc>, Vec<Vec<String>>)> {
        let clause = s.clause();
        let total = self.count_documents(&s.indices, &clause)?.min(s.document_limit as u64);
        h.set_total(total as i64)?;
        let processor = s.processor();
        let phraser = self.embedding_phraser(pk, s.embedding)?;
        let (mut hits, mut tokens) = (Vec::new(), Vec::new());
        let mut enough = false;
        let scanned = self.scan_documents(&s.indices, &clause, SCROLL_BATCH, &mut |batch| {
            let room = total as usize - hits.len();
            let read: Vec<(ReadDoc, Vec<String>)> = {
                use rayon::prelude::*;
                batch
                    .into_par_iter()
                    .take(room)
                    .map(|hit| {
                        let tokens = document_tokens(&hit.source, &s.fields, &processor, phraser.as_deref());
                        let texts = figures.texts(&hit.source);
                        (
                            ReadDoc {
                                index: hit.index,
                                id: hit.id,
                                texts,
                            },
                            tokens,
                        )
                    })
                    .collect()
            };
            for (doc, doc_tokens) in read {
                hits.push(doc);
                tokens.push(doc_tokens);
            }
            let done = hits.len() as f64;
            h.progress(hits.len() as i64, if total == 0 { 100.0 } else { done * 100.0 / total as f64 })?;
            if hits.len() as u64 >= total {
                enough = true;
                return Err(Error::internal("enough documents"));
            }
            Ok(())
        });
        if !enough {
            scanned?;
        }
        // The store's order depends on how its segments were written and merged: sorted,
        // the same documents cluster the same way in any store.
        let mut read: Vec<(ReadDoc, Vec<String>)> = hits.into_iter().zip(tokens).collect();
        read.sort_by(|(a, _), (b, _)| (&a.index, &a.id).cmp(&(&b.index, &b.id)));
        Ok(read.into_iter().unzip())
    }

    /// The run of clustering `id` (`collection.md` §5.4).
    fn run_clustering(&self, pk: i64, id: i64, h: &TaskHandle) -> Result<()> {
        h.step("starting clustering")?;
        let s = stored(&self.resource(Kind::Clustering, pk, id)?);
        self.delete_clusters_of(id)?;
        if s.indices.is_empty() {
            return Err(Error::BadRequest("no indices: the project has no open indices".into()));
        }
        h.step("scrolling data")?;
        let figures = self.figures(&s)?;
        let (hits, tokens) = self.read_documents(pk, &s, &figures, h)?;
        if hits.is_empty() {
            return Err(Error::BadRequest("no documents found".into()));
        }
        if s.num_cluster as usize > hits.len() {
            return Err(Error::BadRequest(format!(
                "num_cluster ({}) is larger than the number of documents ({})",
                s.num_cluster,
                hits.len()
            )));
        }
        h.step("clustering")?;
        let vectorizing = match s.vectorizer {
            ClusteringVectorizer::Embedding => self.clustering_vectorizer(pk, id, &s)?,
            kind => {
                let weighting = if kind == ClusteringVectorizer::Count {
                    tc::Weighting::Count
                } else {
                    tc::Weighting::TfIdf
                };
                let lsi = s.use_lsi.then_some(s.num_topics as usize);
                let model = tc::Model::fit(&tokens, s.num_dims as usize, weighting, lsi, SEED);
                let bytes = serde_json::to_vec(&model).map_err(Error::internal)?;
                ModelFile::write(&self.model_file(Kind::Clustering, id, "json"), &bytes)?;
                Vectorizing::Model(model)
            }
        };
        let rows = vectorizing.rows(&tokens);
        if rows.dim() == 0 {
            return Err(Error::BadRequest(NO_WORDS.into()));
        }
        let algorithm = match s.clustering_algorithm {
            ClusteringAlgorithm::KMeans => tc::Algorithm::KMeans,
            ClusteringAlgorithm::MiniBatchKMeans => tc::Algorithm::MiniBatchKMeans,
        };
        let k = match s.num_cluster {
            0 => tc::estimate_k(&rows, algorithm, SEED),
            n => n as usize,
        };
        let labels = tc::cluster(&rows, k, algorithm, SEED).labels;
        h.step("saving results")?;
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
        labels.iter().enumerate().for_each(|(doc, &l)| members[l].push(doc));
        for (label, docs) in members.iter().enumerate().filter(|(_, m)| !m.is_empty()) {
            let similarity = tc::mean_similarity(&rows, docs);
            let texts: Vec<&[String]> = docs.iter().map(|&d| hits[d].texts.as_slice()).collect();
            let words = figures.significant_words(self, &texts)?;
            let ids: Vec<String> = docs.iter().map(|&d| hits[d].id.clone()).collect();
            self.insert_cluster(pk, id, label as i64, &ids, &words, similarity)?;
        }
        h.progress(hits.len() as i64, 100.0)
    }
}

/// The clustering kind (`/projects/{pk}/clustering/`).
pub struct Clusterings;

impl ResourceKind for Clusterings {
    const KIND: Kind = Kind::Clustering;
    const NOUN: &'static str = "clustering";
    type Out = ClusteringOut;
    type In = ClusteringIn;
    const ORDER_KEYS: &'static [&'static str] = &[
        "fields",
        "clustering_algorithm",
        "vectorizer",
        "display_fields",
        "num_topics",
        "num_cluster",
        "num_dims",
        "document_limit",
        "indices__name",
    ];

    fn render(e: &Engine, ctx: &Ctx, r: &Resource) -> Result<ClusteringOut> {
        e.render_clustering(ctx, r)
    }

    fn create(e: &Arc<Engine>, ctx: &Ctx, pk: i64, body: &Value) -> Result<ClusteringOut> {
        e.create_clustering(ctx, pk, body, None)
    }

    fn update(e: &Engine, r: &Resource, body: &Value, mode: Mode) -> Result<()> {
        e.update_clustering(r, body, mode)
    }

    /// Its clusters and model file go too; bulk_delete counts the clusters.
    fn cascade(e: &Engine, r: &Resource) -> Result<BulkDeleteOut> {
        let n = e.delete_clusters_of(r.id)?;
        e.remove_model_files(Kind::Clustering, r.id);
        let mut out = BulkDeleteOut::default();
        if n > 0 {
            out.num_deleted = n;
            out.deleted_types.insert("topic_analyzer.Cluster".into(), n);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_drop_tags_short_words_numbers_and_stop_words() {
        let s = Stored {
            stop_words: vec!["kala".into()],
            ..Stored::default()
        };
        let doc = json!({"a": "The <b>Cat</b> sat on 12 mats x", "b": {"c": ["Kala", "maja 7"]}, "n": 5});
        let fields = vec!["a".to_string(), "b.c".to_string(), "n".to_string()];
        assert_eq!(document_tokens(&doc, &fields, &s.processor(), None), ["cat", "sat", "mats", "maja"]);
    }

    #[test]
    fn the_filter_matches_whole_words() {
        let f = word_filter("[0-9]+").unwrap();
        assert!(f.is_match("2020") && !f.is_match("a1"));
        assert!(word_filter("(").is_err());
    }
}
