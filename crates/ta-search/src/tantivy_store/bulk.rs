//! Bulk writes: the documents of a `bulk_index` call, and the bulk loader of dataset imports.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::{Map, Value};
use tantivy::indexer::{LogMergePolicy, NoMergePolicy};

use super::super::backend::{generate_id, BulkLoader, BulkResult, Doc, ReadUpdate, Result};
use super::super::source::Source;
use super::{Pending, StoreIndex};

/// Per-document outcomes of a bulk write and the documents to store: ids generated where
/// absent, non-objects refused.
pub(super) fn pending(docs: Vec<Doc>) -> (BulkResult, Vec<Pending>) {
    let mut results = Vec::with_capacity(docs.len());
    let mut valid = Vec::with_capacity(docs.len());
    for doc in docs {
        let replace = doc.id.is_some();
        let id = doc.id.unwrap_or_else(generate_id);
        match doc.source {
            Value::Object(source) => {
                results.push(Ok(id.clone()));
                valid.push(Pending {
                    id,
                    source: Source::from_map(&source),
                    replace,
                });
            }
            other => results.push(Err(format!("document [{id}] is not a JSON object: {other}"))),
        }
    }
    (results, valid)
}

/// A bulk load: documents go to the shared writer without a commit each time, and segment
/// merges are off until the last load of the index ends (merging while loading would rewrite
/// the same documents again and again); merges resume with the next commit after that.
pub(super) struct TantivyLoader {
    handle: Arc<StoreIndex>,
}

impl TantivyLoader {
    pub(super) fn start(handle: Arc<StoreIndex>) -> Result<Self> {
        handle.bulk_loads.fetch_add(1, Ordering::AcqRel);
        let loader = Self { handle };
        loader.handle.with_writer(|writer| {
            writer.set_merge_policy(Box::new(NoMergePolicy));
            Ok(())
        })?;
        Ok(loader)
    }
}

impl BulkLoader for TantivyLoader {
    fn add(&mut self, sources: Vec<Source>) -> Result<BulkResult> {
        let mut results = Vec::with_capacity(sources.len());
        let docs = sources
            .into_iter()
            .map(|source| {
                let id = generate_id();
                results.push(Ok(id.clone()));
                Pending {
                    id,
                    source,
                    replace: false,
                }
            })
            .collect();
        self.handle.with_writer(|writer| self.handle.add(writer, docs))?;
        Ok(results)
    }

    fn update_read(&mut self, updates: Vec<ReadUpdate>) -> Result<BulkResult> {
        let mut results = Vec::with_capacity(updates.len());
        let docs = updates
            .into_iter()
            .map(|(id, current, partial)| {
                let mut merged = match current {
                    Value::Object(m) => m,
                    _ => Map::new(),
                };
                merged.extend(partial);
                results.push(Ok(id.clone()));
                Pending {
                    id,
                    source: Source::from_map(&merged),
                    replace: true,
                }
            })
            .collect();
        self.handle.with_writer(|writer| self.handle.add(writer, docs))?;
        Ok(results)
    }

    fn commit(&mut self) -> Result<()> {
        self.handle.with_writer(|writer| self.handle.commit(writer))
    }

    fn discard(&mut self) -> Result<()> {
        self.handle
            .with_writer(|writer| writer.rollback().map(drop).map_err(super::backend_err))
    }
}

impl Drop for TantivyLoader {
    /// The last load of the index to end restores the merge policy and starts the merges it
    /// asks for over the load's segments.
    fn drop(&mut self) {
        if self.handle.bulk_loads.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _ = self.handle.with_writer(|writer| {
                writer.set_merge_policy(Box::new(LogMergePolicy::default()));
                Ok(())
            });
            let _ = self.handle.start_merges();
        }
    }
}
