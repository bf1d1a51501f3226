//! `ta topic-analyzer`: clusterings of documents (the `clustering` resource): create one
//! (waiting for its run with a progress bar), retrain it, the standard list, show and
//! delete, and the clusters: list, show, move documents, delete, ignore, tag, find more like.
use super::mlp_index::{create, RunArgs};
use super::resources::{self, project_for, ProjectFlag, StandardCmd};
use super::Target;
use crate::engine::clustering::{ClusteringAlgorithm, ClusteringVectorizer};
use crate::engine::error::Result;
use crate::engine::resources::Kind;
use crate::engine::Engine;
use clap::{Args, Subcommand};
use serde_json::{json, Value};

/// A cluster of a clustering.
#[derive(Args, Debug)]
pub struct ClusterRef {
    /// Clustering id
    clustering: i64,
    /// Cluster id
    cluster: i64,
    #[command(flatten)]
    p: ProjectFlag,
}

/// A cluster and document ids.
#[derive(Args, Debug)]
pub struct DocumentsArgs {
    #[command(flatten)]
    at: ClusterRef,
    /// Document ids
    #[arg(required = true)]
    ids: Vec<String>,
}

/// The settings of a clustering.
#[derive(Args, Debug)]
pub struct CreateArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Field whose text is clustered (dotted path; repeat for several)
    #[arg(long = "field", required = true)]
    fields: Vec<String>,
    /// Clusters to make (1–1000; 0: estimated by the silhouette) [default: 10]
    #[arg(long)]
    num_cluster: Option<i64>,
    /// How texts become vectors [default: TfIdf Vectorizer]
    #[arg(long, value_parser = super::choice::of::<ClusteringVectorizer>())]
    vectorizer: Option<String>,
    /// Clustering algorithm [default: kmeans]
    #[arg(long, value_parser = super::choice::of::<ClusteringAlgorithm>())]
    algorithm: Option<String>,
    /// Dictionary size (1–10000) [default: 1000]
    #[arg(long)]
    num_dims: Option<i64>,
    /// Project the vectors onto LSI topics
    #[arg(long)]
    use_lsi: bool,
    /// LSI topics (1–1000) [default: 50]
    #[arg(long)]
    num_topics: Option<i64>,
    /// Words this regex fully matches are not listed as significant [default: [0-9]+]
    #[arg(long)]
    significant_words_filter: Option<String>,
    /// Extra field for showing documents (repeat for several)
    #[arg(long = "display-field")]
    display_fields: Vec<String>,
    /// Stop word removed besides the built-in ones (repeat for several)
    #[arg(long = "stop-word")]
    stop_words: Vec<String>,
    /// Document id left out of clustering (repeat for several)
    #[arg(long = "ignored-id")]
    ignored_ids: Vec<String>,
    /// Embedding id: its phraser joins phrases (needed by the Embedding Vectorizer)
    #[arg(long)]
    embedding: Option<i64>,
    /// The most documents clustered (1–1000000) [default: 100]
    #[arg(long)]
    document_limit: Option<i64>,
}

impl CreateArgs {
    fn body(&self) -> Value {
        let mut body = json!({
            "fields": self.fields,
            "display_fields": self.display_fields,
            "stop_words": self.stop_words,
            "ignored_ids": self.ignored_ids,
            "use_lsi": self.use_lsi,
        });
        for (key, value) in [
            ("num_cluster", json!(self.num_cluster)),
            ("vectorizer", json!(self.vectorizer)),
            ("clustering_algorithm", json!(self.algorithm)),
            ("num_dims", json!(self.num_dims)),
            ("num_topics", json!(self.num_topics)),
            ("significant_words_filter", json!(self.significant_words_filter)),
            ("embedding", json!(self.embedding)),
            ("document_limit", json!(self.document_limit)),
        ] {
            if !value.is_null() {
                body[key] = value;
            }
        }
        body
    }
}

#[derive(Subcommand, Debug)]
pub enum TopicAnalyzerCmd {
    #[command(flatten)]
    Standard(StandardCmd),
    /// Cluster the selected documents by the words of their fields (a task)
    Create(Box<CreateArgs>),
    /// Delete the clusters and cluster again with the current settings (a task)
    Retrain {
        /// Clustering id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// The clusters with their figures and document ids (view_clusters)
    Clusters {
        /// Clustering id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
    },
    /// A cluster with its documents
    Cluster(ClusterRef),
    /// Add documents to a cluster, taking them from the clustering's other clusters
    Expand(DocumentsArgs),
    /// Move documents to another cluster of the clustering
    Transfer {
        #[command(flatten)]
        docs: DocumentsArgs,
        /// The cluster receiving them
        #[arg(long)]
        to: i64,
    },
    /// Add documents of the clustering's indices to a cluster
    AddDocuments(DocumentsArgs),
    /// Remove documents from a cluster
    RemoveDocuments(DocumentsArgs),
    /// Replace a cluster's documents by those of the given ids that exist
    SetDocuments {
        #[command(flatten)]
        at: ClusterRef,
        /// Document ids (none: the cluster is emptied)
        ids: Vec<String>,
    },
    /// Delete a cluster
    DeleteCluster(ClusterRef),
    /// Delete several clusters of a clustering
    DeleteClusters {
        /// Clustering id
        id: i64,
        #[command(flatten)]
        p: ProjectFlag,
        /// Cluster ids
        #[arg(required = true)]
        clusters: Vec<i64>,
    },
    /// Add a cluster's documents to the ignored ids and delete the cluster
    IgnoreAndDelete(ClusterRef),
    /// Add a fact to every document of a cluster (its documents are then ignored)
    TagCluster {
        #[command(flatten)]
        at: ClusterRef,
        /// Fact name
        #[arg(long)]
        fact: String,
        /// Fact value
        #[arg(long)]
        str_val: String,
        /// Field the fact is about
        #[arg(long)]
        doc_path: String,
        /// Spans as JSON, e.g. "[[0, 5]]" [default: [[0, 0]], the whole field]
        #[arg(long)]
        spans: Option<String>,
        /// A number stored with the fact
        #[arg(long)]
        num_val: Option<i64>,
    },
    /// Documents like a cluster's, other than its own and the ignored ones
    MoreLike {
        #[command(flatten)]
        at: ClusterRef,
        /// Most documents returned (1–10000) [default: 10]
        #[arg(long)]
        size: Option<i64>,
        /// Hits with their id, index and source instead of flattened sources
        #[arg(long)]
        include_meta: bool,
    },
}

/// The path of a cluster (`suffix` after it) and of its clustering's project.
fn cluster_path(t: &Target, at: &ClusterRef, suffix: &str) -> Result<String> {
    let pk = project_for(t, &at.p, Kind::Clustering, at.clustering)?;
    Ok(format!(
        "/projects/{pk}/clustering/{}/clusters/{}/{suffix}",
        at.clustering, at.cluster
    ))
}

pub fn run(t: &Target, c: &TopicAnalyzerCmd) -> Result<Option<Value>> {
    let post = |at: &ClusterRef, action: &str, body: Value| -> Result<Value> {
        t.request("POST", &cluster_path(t, at, &format!("{action}/"))?, Some(&body))
    };
    let out = match c {
        TopicAnalyzerCmd::Standard(c) => return resources::run(t, Kind::Clustering, c),
        TopicAnalyzerCmd::Create(a) => create(t, Kind::Clustering, &a.run, a.body(), Engine::create_clustering)?,
        TopicAnalyzerCmd::Retrain { id, p } => {
            let pk = project_for(t, p, Kind::Clustering, *id)?;
            resources::task_action(t, (Kind::Clustering, pk, *id), ("retrain", &json!({})), |e, ctx, observer| {
                e.retrain_clustering(ctx, pk, *id, Some(observer)).map(drop)
            })?
        }
        TopicAnalyzerCmd::Clusters { id, p } => {
            let pk = project_for(t, p, Kind::Clustering, *id)?;
            t.request("GET", &format!("/projects/{pk}/clustering/{id}/view_clusters/"), None)?
        }
        TopicAnalyzerCmd::Cluster(at) => t.request("GET", &cluster_path(t, at, "")?, None)?,
        TopicAnalyzerCmd::Expand(d) => post(&d.at, "expand_cluster", json!({"ids": d.ids}))?,
        TopicAnalyzerCmd::Transfer { docs, to } => {
            post(&docs.at, "transfer_documents", json!({"ids": docs.ids, "receiving_cluster_id": to}))?
        }
        TopicAnalyzerCmd::AddDocuments(d) => post(&d.at, "add_documents", json!({"ids": d.ids}))?,
        TopicAnalyzerCmd::RemoveDocuments(d) => post(&d.at, "remove_documents", json!({"ids": d.ids}))?,
        TopicAnalyzerCmd::SetDocuments { at, ids } => t.request("PATCH", &cluster_path(t, at, "")?, Some(&json!({"document_ids": ids})))?,
        TopicAnalyzerCmd::DeleteCluster(at) => t.request("DELETE", &cluster_path(t, at, "")?, None)?,
        TopicAnalyzerCmd::DeleteClusters { id, p, clusters } => {
            let pk = project_for(t, p, Kind::Clustering, *id)?;
            t.request(
                "POST",
                &format!("/projects/{pk}/clustering/{id}/bulk_delete_clusters/"),
                Some(&json!({"ids": clusters})),
            )?
        }
        TopicAnalyzerCmd::IgnoreAndDelete(at) => post(at, "ignore_and_delete", json!({}))?,
        TopicAnalyzerCmd::TagCluster {
            at,
            fact,
            str_val,
            doc_path,
            spans,
            num_val,
        } => {
            let mut body = json!({"fact": fact, "str_val": str_val, "doc_path": doc_path});
            if let Some(s) = spans {
                body["spans"] = json!(s);
            }
            if let Some(n) = num_val {
                body["num_val"] = json!(n);
            }
            post(at, "tag_cluster", body)?
        }
        TopicAnalyzerCmd::MoreLike { at, size, include_meta } => {
            let mut body = json!({"include_meta": include_meta});
            if let Some(n) = size {
                body["size"] = json!(n);
            }
            post(at, "more_like_cluster", body)?
        }
    };
    Ok(Some(out))
}
