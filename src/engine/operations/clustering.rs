//! Operations of the topic analyzer (`collection.md` §5): clustering resources, their
//! retraining and listing, and the operations on single clusters.
use super::{crud, op, Operation};
use crate::engine::clustering::Clusterings;
use crate::engine::clusters::{
    ClusterDocumentsIn, ClusterEdit, ClusterIdsIn, ClusterOut, ClustersOut, DocumentIdsIn, MoreLikeClusterIn, TagClusterIn, TransferIn,
};
use crate::engine::mlp_index::MessageOut;
use serde_json::Value;

pub fn operations() -> Vec<Operation> {
    let mut ops = crud::operations::<Clusterings>();
    ops.extend([
        op!(Post "/projects/{project_pk}/clustering/{id}/retrain/", "clustering", "Delete the clusters and cluster again with the current settings (a task)", [] => [MessageOut],
            |e, c| e.retrain_clustering(c.ctx()?, c.pk()?, c.id("id")?, None)?),
        op!(Get "/projects/{project_pk}/clustering/{id}/view_clusters/", "clustering", "The clusters with their figures and document ids, newest first", [] => [ClustersOut],
            |e, c| e.view_clusters(c.ctx()?, c.pk()?, c.id("id")?)?),
        op!(Post "/projects/{project_pk}/clustering/{id}/bulk_delete_clusters/", "clustering", "Delete clusters of the clustering", [ClusterIdsIn] => [MessageOut],
            |e, c| e.bulk_delete_clusters(c.ctx()?, c.pk()?, c.id("id")?, c.body)?),
        op!(Get "/projects/{project_pk}/clustering/{id}/clusters/{cluster_id}/", "clustering", "A cluster with its documents", [] => [ClusterOut],
            |e, c| e.get_cluster(c.ctx()?, c.pk()?, c.id("id")?, c.id("cluster_id")?)?),
        op!(Put "/projects/{project_pk}/clustering/{id}/clusters/{cluster_id}/", "clustering", "Replace the cluster's documents by those of the given ids that exist", [ClusterDocumentsIn] => [MessageOut],
            |e, c| e.edit_cluster(c.ctx()?, c.pk()?, (c.id("id")?, c.id("cluster_id")?), ClusterEdit::Replace, c.body)?),
        op!(Patch "/projects/{project_pk}/clustering/{id}/clusters/{cluster_id}/", "clustering", "Replace the cluster's documents by those of the given ids that exist", [ClusterDocumentsIn] => [MessageOut],
            |e, c| e.edit_cluster(c.ctx()?, c.pk()?, (c.id("id")?, c.id("cluster_id")?), ClusterEdit::Replace, c.body)?),
        op!(Delete "/projects/{project_pk}/clustering/{id}/clusters/{cluster_id}/", "clustering", "Delete the cluster (200 and a message)", [] => [MessageOut],
            |e, c| e.delete_cluster(c.ctx()?, c.pk()?, c.id("id")?, c.id("cluster_id")?)?),
        op!(Post "/projects/{project_pk}/clustering/{id}/clusters/{cluster_id}/expand_cluster/", "clustering", "Add documents, taking them from the clustering's other clusters", [DocumentIdsIn] => [MessageOut],
            |e, c| e.edit_cluster(c.ctx()?, c.pk()?, (c.id("id")?, c.id("cluster_id")?), ClusterEdit::Expand, c.body)?),
        op!(Post "/projects/{project_pk}/clustering/{id}/clusters/{cluster_id}/transfer_documents/", "clustering", "Move documents to another cluster of the clustering", [TransferIn] => [MessageOut],
            |e, c| e.edit_cluster(c.ctx()?, c.pk()?, (c.id("id")?, c.id("cluster_id")?), ClusterEdit::Transfer, c.body)?),
        op!(Post "/projects/{project_pk}/clustering/{id}/clusters/{cluster_id}/add_documents/", "clustering", "Add the documents of the clustering's indices with these ids", [DocumentIdsIn] => [MessageOut],
            |e, c| e.edit_cluster(c.ctx()?, c.pk()?, (c.id("id")?, c.id("cluster_id")?), ClusterEdit::Add, c.body)?),
        op!(Post "/projects/{project_pk}/clustering/{id}/clusters/{cluster_id}/remove_documents/", "clustering", "Remove documents from the cluster (they are not ignored)", [DocumentIdsIn] => [MessageOut],
            |e, c| e.edit_cluster(c.ctx()?, c.pk()?, (c.id("id")?, c.id("cluster_id")?), ClusterEdit::Remove, c.body)?),
        op!(Post "/projects/{project_pk}/clustering/{id}/clusters/{cluster_id}/ignore_and_delete/", "clustering", "Add the cluster's documents to the ignored ids and delete the cluster", [] => [MessageOut],
            |e, c| e.ignore_and_delete_cluster(c.ctx()?, c.pk()?, c.id("id")?, c.id("cluster_id")?)?),
        op!(Post "/projects/{project_pk}/clustering/{id}/clusters/{cluster_id}/more_like_cluster/", "clustering", "Documents like the cluster's (more-like-this over the clustering's fields), not its own nor ignored ones", [MoreLikeClusterIn] => [Value],
            |e, c| Value::Array(e.more_like_cluster(c.ctx()?, c.pk()?, (c.id("id")?, c.id("cluster_id")?), c.body)?)),
        op!(Post "/projects/{project_pk}/clustering/{id}/clusters/{cluster_id}/tag_cluster/", "clustering", "Add a fact to every document of the cluster and ignore them in the next retrain", [TagClusterIn] => [MessageOut],
            |e, c| e.tag_cluster(c.ctx()?, c.pk()?, (c.id("id")?, c.id("cluster_id")?), c.body)?),
    ]);
    ops
}
