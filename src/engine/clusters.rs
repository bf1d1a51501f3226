//! The clusters of a topic analysis (`collection.md` §5.3, §5.5): their rows (global ids,
//! the label, the document ids, the figures), the listings, and the operations that move
//! documents between clusters, ignore them, tag them or find more like them. After each
//! change the similarity and significant words of every changed cluster are computed again
//! from its documents, vectorized as the run vectorized them.
use super::classifier::builtin_stop_words;
use super::cluster as tc;
use super::clustering::{document_tokens, field_string, stored, word_filter, Stored};
use super::error::{Error, Result};
use super::index_runs::{fact, merged_facts};
use super::mlp_index::MessageOut;
use super::resources::{Kind, Resource};
use super::search::Hit;
use super::search::ReadUpdate;
use super::validate::{Form, List, Mode, Str};
use super::{Ctx, Engine};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

/// Significant words kept per field.
const TOP_WORDS: usize = 15;
/// Fewest cluster documents a significant word occurs in.
const MIN_DOC_COUNT: u64 = 3;
/// Most documents of a cluster whose texts more_like_cluster is like (the first ones).
const LIKE_DOCUMENTS: usize = 1000;

/// `{"key", "count"}`: a significant word and the cluster documents holding it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct SignificantWord {
    pub key: String,
    pub count: u64,
}

/// A cluster in `view_clusters`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ClusterListed {
    pub id: i64,
    pub url: String,
    pub document_count: usize,
    pub average_similarity: f64,
    pub significant_words: Vec<SignificantWord>,
    /// The cluster's document ids.
    pub documents: Vec<String>,
}

/// `{"cluster_count", "clusters"}`, descending id.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ClustersOut {
    pub cluster_count: usize,
    pub clusters: Vec<ClusterListed>,
}

/// A document of a cluster: its id, index and flattened source.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ClusterDocument {
    pub id: String,
    pub index: String,
    #[schema(value_type = Object)]
    pub content: Map<String, Value>,
}

/// A cluster with its documents.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ClusterOut {
    pub id: i64,
    pub intracluster_similarity: f64,
    pub document_count: usize,
    pub significant_words: Vec<SignificantWord>,
    /// The cluster's documents that still exist, in its order.
    pub documents: Vec<ClusterDocument>,
}

/// `{"ids": [document id]}`.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct DocumentIdsIn {
    pub ids: Vec<String>,
}

/// `{"ids", "receiving_cluster_id"}` of transfer_documents.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct TransferIn {
    pub ids: Vec<String>,
    /// A cluster of the same clustering.
    pub receiving_cluster_id: i64,
}

/// `{"document_ids"}`: the cluster's new list (ids that exist are kept).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct ClusterDocumentsIn {
    pub document_ids: Vec<String>,
}

/// `{"ids": [cluster id, as an integer or a string]}`.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct ClusterIdsIn {
    #[schema(value_type = Vec<Object>)]
    pub ids: Vec<Value>,
}

/// The fact tag_cluster adds to every document of the cluster.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct TagClusterIn {
    pub fact: String,
    pub str_val: String,
    pub doc_path: String,
    /// Default `"[[0, 0]]"` (the whole field).
    pub spans: Option<String>,
    /// Written only when given.
    pub num_val: Option<i64>,
}

/// more_like_cluster's options (`indices`, `like`, `fields` are ignored).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct MoreLikeClusterIn {
    pub min_term_freq: Option<i64>,
    pub max_query_terms: Option<i64>,
    pub min_doc_freq: Option<i64>,
    pub min_word_length: Option<i64>,
    pub max_word_length: Option<i64>,
    pub stop_words: Option<Vec<String>>,
    /// Hits as `{"_id", "_index", "_type", "_source"}` instead of flattened sources.
    pub include_meta: Option<bool>,
    /// 1–10000, default 10.
    pub size: Option<i64>,
}

/// How an edit changes a cluster's documents.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClusterEdit {
    /// `expand_cluster`: taken from the clustering's other clusters, or added.
    Expand,
    /// `transfer_documents`: moved to another cluster of the clustering.
    Transfer,
    /// `add_documents`: those that exist in the indices added.
    Add,
    /// `remove_documents`.
    Remove,
    /// PUT / PATCH: the list replaced by the given ids that exist.
    Replace,
}

/// A stored cluster.
#[derive(Clone, Debug)]
struct ClusterRow {
    id: i64,
    document_ids: Vec<String>,
    significant_words: Vec<SignificantWord>,
    similarity: f64,
}

fn cluster_row(r: &rusqlite::Row) -> rusqlite::Result<ClusterRow> {
    let (ids, words): (String, String) = (r.get(1)?, r.get(2)?);
    Ok(ClusterRow {
        id: r.get(0)?,
        document_ids: serde_json::from_str(&ids).unwrap_or_default(),
        significant_words: serde_json::from_str(&words).unwrap_or_default(),
        similarity: r.get(3)?,
    })
}

/// What the significant words of a clustering's clusters are scored against.
pub(super) struct Figures {
    indices: Vec<String>,
    fields: Vec<String>,
    filter: Option<regex::Regex>,
    stop_words: HashSet<String>,
    /// Documents of the indices.
    superset: u64,
    /// Documents of the indices holding a word in a field, as counted so far.
    background: Mutex<HashMap<(usize, String), u64>>,
}

impl Figures {
    /// The texts of the clustering's fields in `source` ("" where a field has none).
    pub(super) fn texts(&self, source: &Value) -> Vec<String> {
        self.fields.iter().map(|f| field_string(source, f).unwrap_or_default()).collect()
    }

    /// The significant words of the documents whose field texts ([`Figures::texts`]) are
    /// `docs` (`collection.md` §5.4 rule 9).
    ///
    /// Words are scored in descending count: a word in `count` of the cluster's documents
    /// scores at most as if the indices held it only there (JLH falls as the background
    /// grows), so once that bound is below the 15th score found, no word left can enter.
    pub(super) fn significant_words(&self, e: &Engine, docs: &[&[String]]) -> Result<Vec<SignificantWord>> {
        let n = docs.len() as u64;
        let mut out = Vec::new();
        for f in 0..self.fields.len() {
            let mut counts: HashMap<String, u64> = HashMap::new();
            for texts in docs {
                let words: HashSet<String> = super::search::analyzed_words(&texts[f]).into_iter().collect();
                words.into_iter().for_each(|w| *counts.entry(w).or_default() += 1);
            }
            let mut candidates: Vec<(String, u64)> = counts
                .into_iter()
                .filter(|(word, count)| {
                    *count >= MIN_DOC_COUNT
                        && !self.filter.as_ref().is_some_and(|r| r.is_match(word))
                        && !builtin_stop_words().contains(word.as_str())
                        && !self.stop_words.contains(word)
                })
                .collect();
            candidates.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let mut scored: Vec<(f64, String, u64)> = Vec::new();
            for (word, count) in candidates {
                if scored.len() >= TOP_WORDS {
                    let best = super::search::jlh(count, n, count, self.superset);
                    if best < scored[TOP_WORDS - 1].0 {
                        break;
                    }
                }
                let bg = self.background_count(e, f, &word)?;
                let score = super::search::jlh(count, n, bg, self.superset);
                if score > 0.0 {
                    scored.push((score, word, count));
                    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
                }
            }
            out.extend(
                scored
                    .into_iter()
                    .take(TOP_WORDS)
                    .map(|(_, key, count)| SignificantWord { key, count }),
            );
        }
        Ok(out)
    }

    fn background_count(&self, e: &Engine, field: usize, word: &str) -> Result<u64> {
        let key = (field, word.to_string());
        if let Some(n) = self.background.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
            return Ok(*n);
        }
        let n = e.count_documents(&self.indices, &json!({"match": {(self.fields[field].clone()): word}}))?;
        self.background.lock().unwrap_or_else(|p| p.into_inner()).insert(key, n);
        Ok(n)
    }
}

/// Adds `ids` to `list`, skipping those it holds; returns how many were new.
fn add_unique(list: &mut Vec<String>, ids: &[String]) -> usize {
    let mut held: HashSet<String> = list.iter().cloned().collect();
    let before = list.len();
    list.extend(ids.iter().filter(|id| held.insert((*id).clone())).cloned());
    list.len() - before
}

/// `list` without `ids`.
fn remove_all(list: &mut Vec<String>, ids: &[String]) {
    let gone: HashSet<&String> = ids.iter().collect();
    list.retain(|id| !gone.contains(id));
}

fn message(text: impl Into<String>) -> MessageOut {
    MessageOut { message: text.into() }
}

impl Engine {
    /// Stores a cluster of clustering `clustering` (label `label`); returns its id.
    pub(super) fn insert_cluster(
        &self,
        pk: i64,
        clustering: i64,
        label: i64,
        ids: &[String],
        words: &[SignificantWord],
        similarity: f64,
    ) -> Result<i64> {
        let (ids, words) = (json!(ids).to_string(), json!(words).to_string());
        self.db.with(|c| {
            c.execute(
                "INSERT INTO clusters (clustering_id, project_id, cluster_id, document_ids, significant_words, intracluster_similarity) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![clustering, pk, label, ids, words, similarity],
            )?;
            Ok(c.last_insert_rowid())
        })
    }

    /// Deletes the clusters of clustering `clustering`; returns how many there were.
    pub(super) fn delete_clusters_of(&self, clustering: i64) -> Result<usize> {
        self.db
            .with(|c| Ok(c.execute("DELETE FROM clusters WHERE clustering_id = ?1", [clustering])?))
    }

    /// The clusters of clustering `clustering`, ascending id.
    fn clusters_of(&self, clustering: i64) -> Result<Vec<ClusterRow>> {
        self.db.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT id, document_ids, significant_words, intracluster_similarity FROM clusters WHERE clustering_id = ?1 ORDER BY id",
            )?;
            let rows = st.query_map([clustering], cluster_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    /// Cluster `id` of clustering `clustering`, or 404.
    fn cluster(&self, clustering: i64, id: i64) -> Result<ClusterRow> {
        self.db
            .with(|c| {
                Ok(c.prepare_cached(
                    "SELECT id, document_ids, significant_words, intracluster_similarity FROM clusters WHERE clustering_id = ?1 AND id = ?2",
                )?
                .query_row([clustering, id], cluster_row)
                .optional()?)
            })?
            .ok_or_else(Error::not_found)
    }

    fn store_cluster(&self, row: &ClusterRow) -> Result<()> {
        let (ids, words) = (json!(row.document_ids).to_string(), json!(row.significant_words).to_string());
        self.db.with(|c| {
            c.execute(
                "UPDATE clusters SET document_ids = ?1, significant_words = ?2, intracluster_similarity = ?3 WHERE id = ?4",
                params![ids, words, row.similarity, row.id],
            )?;
            Ok(())
        })
    }

    fn delete_cluster_row(&self, id: i64) -> Result<()> {
        self.db
            .with(|c| Ok(c.execute("DELETE FROM clusters WHERE id = ?1", [id]).map(drop)?))
    }

    /// What significant words are scored against, for clustering settings `s`.
    pub(super) fn figures(&self, s: &Stored) -> Result<Figures> {
        Ok(Figures {
            indices: s.indices.clone(),
            fields: s.fields.clone(),
            filter: word_filter(&s.significant_words_filter).ok(),
            stop_words: s.stop_words.iter().map(|w| w.to_lowercase()).collect(),
            superset: self.count_documents(&s.indices, &json!({"match_all": {}}))?,
            background: Mutex::new(HashMap::new()),
        })
    }

    /// The documents of `indices` with these ids that exist, in the order of `ids`.
    fn documents_by_ids(&self, indices: &[String], ids: &[String]) -> Result<Vec<Hit>> {
        if ids.is_empty() || indices.is_empty() {
            return Ok(Vec::new());
        }
        let mut found: HashMap<String, Hit> = HashMap::new();
        self.scan_documents(indices, &json!({"ids": {"values": ids}}), 1000, &mut |hits| {
            for hit in hits {
                found.entry(hit.id.clone()).or_insert(hit);
            }
            Ok(())
        })?;
        Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
    }

    /// Computes the similarity and significant words of `rows` again from their documents.
    fn refresh(&self, pk: i64, clustering: i64, s: &Stored, rows: &mut [ClusterRow]) -> Result<()> {
        let vectorizing = self.clustering_vectorizer(pk, clustering, s)?;
        let figures = self.figures(s)?;
        let processor = s.processor();
        let phraser = self.embedding_phraser(pk, s.embedding)?;
        for row in rows.iter_mut() {
            let hits = self.documents_by_ids(&s.indices, &row.document_ids)?;
            let tokens: Vec<Vec<String>> = hits
                .iter()
                .map(|h| document_tokens(&h.source, &s.fields, &processor, phraser.as_deref()))
                .collect();
            let vectors = vectorizing.rows(&tokens);
            let all: Vec<usize> = (0..hits.len()).collect();
            row.similarity = tc::mean_similarity(&vectors, &all);
            let texts: Vec<Vec<String>> = hits.iter().map(|h| figures.texts(&h.source)).collect();
            row.significant_words = figures.significant_words(self, &texts.iter().map(Vec::as_slice).collect::<Vec<_>>())?;
            self.store_cluster(row)?;
        }
        Ok(())
    }

    /// Runs `edit` on clustering `cid` of project `pk` while no other edit of it runs and
    /// its task is not running.
    fn with_idle_clustering<T>(&self, ctx: &Ctx, pk: i64, cid: i64, edit: impl FnOnce(&Resource, Stored) -> Result<T>) -> Result<T> {
        self.check_project_access(ctx, pk)?;
        self.edit_resource(Kind::Clustering, pk, cid, |r| {
            self.ensure_idle(r)?;
            edit(r, stored(r))
        })
    }

    /// GET clustering/{id}/view_clusters/.
    pub fn view_clusters(&self, ctx: &Ctx, pk: i64, cid: i64) -> Result<ClustersOut> {
        self.check_project_access(ctx, pk)?;
        self.resource(Kind::Clustering, pk, cid)?;
        let clusters: Vec<ClusterListed> = (self.clusters_of(cid)?.into_iter().rev())
            .map(|c| ClusterListed {
                url: format!("{}/projects/{pk}/clustering/{cid}/clusters/{}/", ctx.base_url, c.id),
                id: c.id,
                document_count: c.document_ids.len(),
                average_similarity: c.similarity,
                significant_words: c.significant_words,
                documents: c.document_ids,
            })
            .collect();
        Ok(ClustersOut {
            cluster_count: clusters.len(),
            clusters,
        })
    }

    /// GET clustering/{cid}/clusters/{id}/.
    pub fn get_cluster(&self, ctx: &Ctx, pk: i64, cid: i64, id: i64) -> Result<ClusterOut> {
        self.check_project_access(ctx, pk)?;
        let s = stored(&self.resource(Kind::Clustering, pk, cid)?);
        let c = self.cluster(cid, id)?;
        let documents = (self.documents_by_ids(&s.indices, &c.document_ids)?.into_iter())
            .map(|h| ClusterDocument {
                content: super::regex_tagger::ops::flatten(&h.source),
                id: h.id,
                index: h.index,
            })
            .collect();
        Ok(ClusterOut {
            id: c.id,
            intracluster_similarity: c.similarity,
            document_count: c.document_ids.len(),
            significant_words: c.significant_words,
            documents,
        })
    }

    /// The cluster edits of `collection.md` §5.5 that move document ids.
    pub fn edit_cluster(&self, ctx: &Ctx, pk: i64, (cid, id): (i64, i64), edit: ClusterEdit, body: &Value) -> Result<MessageOut> {
        self.with_idle_clustering(ctx, pk, cid, |_, s| {
            let mut f = Form::new(body, Mode::Full)?;
            let key = if edit == ClusterEdit::Replace { "document_ids" } else { "ids" };
            let ids = f.strings(key, List::REQUIRED, Str::REQUIRED);
            let receiving = (edit == ClusterEdit::Transfer)
                .then(|| f.integer("receiving_cluster_id", true, None, None))
                .flatten();
            f.finish()?;
            let ids = ids.unwrap_or_default();
            let mut this = self.cluster(cid, id)?;
            let mut changed: Vec<ClusterRow> = Vec::new();
            let text = match edit {
                ClusterEdit::Expand => {
                    for mut other in self.clusters_of(cid)?.into_iter().filter(|c| c.id != id) {
                        let before = other.document_ids.len();
                        remove_all(&mut other.document_ids, &ids);
                        if other.document_ids.len() != before {
                            changed.push(other);
                        }
                    }
                    add_unique(&mut this.document_ids, &ids);
                    "Documents successfully added to the cluster!".to_string()
                }
                ClusterEdit::Transfer => {
                    let receiving = receiving.unwrap_or_default();
                    let mut target = self.cluster(cid, receiving).map_err(|_| {
                        Error::Invalid(json!({"receiving_cluster_id": [format!("Could not find cluster with ID: {receiving}")]}))
                    })?;
                    remove_all(&mut this.document_ids, &ids);
                    if receiving == id {
                        add_unique(&mut this.document_ids, &ids);
                    } else {
                        add_unique(&mut target.document_ids, &ids);
                        changed.push(target);
                    }
                    "Documents successfully added to the cluster!".to_string()
                }
                ClusterEdit::Add => {
                    let existing: Vec<String> = self.documents_by_ids(&s.indices, &ids)?.into_iter().map(|h| h.id).collect();
                    let n = add_unique(&mut this.document_ids, &existing);
                    format!("{n} new document(s) successfully added to the cluster!")
                }
                ClusterEdit::Remove => {
                    remove_all(&mut this.document_ids, &ids);
                    "Documents successfully removed from the cluster!".to_string()
                }
                ClusterEdit::Replace => {
                    this.document_ids = self.documents_by_ids(&s.indices, &ids)?.into_iter().map(|h| h.id).collect();
                    "Cluster has been updated successfully!".to_string()
                }
            };
            changed.insert(0, this);
            self.refresh(pk, cid, &s, &mut changed)?;
            Ok(message(text))
        })
    }

    /// DELETE clustering/{cid}/clusters/{id}/ (200 and a message, as the reference).
    pub fn delete_cluster(&self, ctx: &Ctx, pk: i64, cid: i64, id: i64) -> Result<MessageOut> {
        self.with_idle_clustering(ctx, pk, cid, |_, _| {
            self.cluster(cid, id)?;
            self.delete_cluster_row(id)?;
            Ok(message("Cluster deleted."))
        })
    }

    /// POST clustering/{cid}/bulk_delete_clusters/ `{"ids"}`: the clusters of this
    /// clustering among the ids are deleted.
    pub fn bulk_delete_clusters(&self, ctx: &Ctx, pk: i64, cid: i64, body: &Value) -> Result<MessageOut> {
        self.with_idle_clustering(ctx, pk, cid, |_, _| {
            let mut f = Form::new(body, Mode::Full)?;
            let ids = f.list_of("ids", List::REQUIRED, |v| match v {
                Value::Number(n) if n.is_i64() => Ok((n.to_string(), n.as_i64())),
                Value::String(s) => Ok((s.clone(), s.trim().parse::<i64>().ok())),
                _ => Err("A valid integer is required.".to_string()),
            });
            f.finish()?;
            let ids = ids.unwrap_or_default();
            let mine: HashSet<i64> = self.clusters_of(cid)?.iter().map(|c| c.id).collect();
            for id in ids.iter().filter_map(|(_, n)| *n).filter(|n| mine.contains(n)) {
                self.delete_cluster_row(id)?;
            }
            let shown: Vec<String> = ids.into_iter().map(|(s, _)| s).collect();
            Ok(message(format!("Deleted clusters withs ids {}.", super::pytext::repr_list(&shown))))
        })
    }

    /// POST clustering/{cid}/clusters/{id}/ignore_and_delete/.
    pub fn ignore_and_delete_cluster(&self, ctx: &Ctx, pk: i64, cid: i64, id: i64) -> Result<MessageOut> {
        self.with_idle_clustering(ctx, pk, cid, |r, mut s| {
            let c = self.cluster(cid, id)?;
            add_unique(&mut s.ignored_ids, &c.document_ids);
            self.store_config(Kind::Clustering, cid, &r.description, &s)?;
            self.delete_cluster_row(id)?;
            Ok(message("Deleted cluster and added it's documents to the ignored list."))
        })
    }

    /// POST clustering/{cid}/clusters/{id}/tag_cluster/: the fact added to every document of
    /// the cluster (none twice), whose ids then join `ignored_ids`.
    pub fn tag_cluster(&self, ctx: &Ctx, pk: i64, (cid, id): (i64, i64), body: &Value) -> Result<MessageOut> {
        self.with_idle_clustering(ctx, pk, cid, |r, mut s| {
            let mut f = Form::new(body, Mode::Full)?;
            let name = f.string("fact", Str::REQUIRED);
            let value = f.string("str_val", Str::REQUIRED);
            let doc_path = f.string("doc_path", Str::REQUIRED);
            let spans = f.string("spans", Str::OPTIONAL);
            let num_val = f.integer("num_val", false, None, None);
            f.finish()?;
            let (name, value, doc_path) = (name.unwrap_or_default(), value.unwrap_or_default(), doc_path.unwrap_or_default());
            let c = self.cluster(cid, id)?;
            let mut new = fact(&name, &value, &doc_path, None);
            if let Some(spans) = spans {
                new["spans"] = json!(spans);
            }
            if let Some(n) = num_val {
                new["num_val"] = json!(n);
            }
            let mut writes: HashMap<String, Vec<ReadUpdate>> = HashMap::new();
            for hit in self.documents_by_ids(&s.indices, &c.document_ids)? {
                if let Some(facts) = merged_facts(hit.source.get("texta_facts"), |_| false, vec![new.clone()]) {
                    let update = Map::from_iter([("texta_facts".to_string(), facts)]);
                    writes.entry(hit.index).or_default().push((hit.id, hit.source, update));
                }
            }
            for (index, updates) in writes {
                self.search.ensure_fact_mapping(&index)?;
                let mut loader = self.search.bulk_loader(&index)?;
                for result in loader.update_read(updates)? {
                    result.map_err(Error::Internal)?;
                }
                loader.commit()?;
            }
            add_unique(&mut s.ignored_ids, &c.document_ids);
            self.store_config(Kind::Clustering, cid, &r.description, &s)?;
            Ok(message(format!("Successfully added fact {name} to the documents!")))
        })
    }

    /// POST clustering/{cid}/clusters/{id}/more_like_cluster/: documents like the cluster's
    /// (its first `LIKE_DOCUMENTS`), other than its own and the ignored ones.
    pub fn more_like_cluster(&self, ctx: &Ctx, pk: i64, (cid, id): (i64, i64), body: &Value) -> Result<Vec<Value>> {
        self.with_idle_clustering(ctx, pk, cid, |_, s| {
            let mut f = Form::new(body, Mode::Full)?;
            let mut options = Map::new();
            for (key, default) in [
                ("min_term_freq", 1),
                ("max_query_terms", 12),
                ("min_doc_freq", 5),
                ("min_word_length", 0),
                ("max_word_length", 0),
            ] {
                options.insert(key.into(), json!(f.integer(key, false, Some(0), None).unwrap_or(default)));
            }
            let stop_words = f.strings("stop_words", List::OPTIONAL, Str::REQUIRED).unwrap_or_default();
            let include_meta = f.boolean("include_meta").unwrap_or(false);
            let size = f.integer("size", false, Some(1), Some(10_000)).unwrap_or(10);
            f.finish()?;
            let c = self.cluster(cid, id)?;
            let first = &c.document_ids[..c.document_ids.len().min(LIKE_DOCUMENTS)];
            let like: Vec<String> = (self.documents_by_ids(&s.indices, first)?.iter())
                .flat_map(|h| s.fields.iter().filter_map(|f| field_string(&h.source, f)))
                .collect();
            if like.is_empty() || s.indices.is_empty() {
                return Ok(Vec::new());
            }
            options.insert("fields".into(), json!(s.fields));
            options.insert("like".into(), json!(like));
            options.insert("stop_words".into(), json!(stop_words));
            let mut excluded = s.ignored_ids.clone();
            add_unique(&mut excluded, &c.document_ids);
            let query = json!({"query": {"bool": {"must": [{"more_like_this": options}], "must_not": [{"ids": {"values": excluded}}]}}, "size": size});
            let answer = self.search.search(&s.indices, &query)?;
            let hits = answer["hits"]["hits"].as_array().cloned().unwrap_or_default();
            Ok(hits
                .into_iter()
                .map(|h| {
                    if include_meta {
                        json!({"_id": h["_id"], "_index": h["_index"], "_type": "_doc", "_source": h["_source"]})
                    } else {
                        Value::Object(super::regex_tagger::ops::flatten(&h["_source"]))
                    }
                })
                .collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_stay_unique_and_removal_keeps_the_order() {
        let mut list = vec!["a".to_string(), "b".into()];
        assert_eq!(add_unique(&mut list, &["b".into(), "c".into(), "c".into()]), 1);
        assert_eq!(list, ["a", "b", "c"]);
        remove_all(&mut list, &["a".into(), "zz".into()]);
        assert_eq!(list, ["b", "c"]);
    }
}
