//! `SearchBackend` for the embedded store: index lifecycle (list, create, delete), document
//! reads and writes on the core store; searches, scans and fact counts are answered by
//! `paging.rs` and `fact_counts.rs`.

use std::collections::HashMap;

use serde_json::{json, Map, Value};
use tantivy::Index;

use super::super::backend::{
    query_clause, BackendInfo, BulkLoader, BulkResult, Doc, FactCounts, Hit, IndexFields, Result, SearchBackend, SearchError,
};
use super::super::dsl::{kind_query, KIND_DOC};
use super::super::source::Source;
use super::bulk::{pending, TantivyLoader};
use super::fact_counts::count_facts;
use super::upgrade::{mark_current, UPGRADE_PREFIX};
use super::{backend_err, build_schema, lock, Pending, TantivyBackend};

impl SearchBackend for TantivyBackend {
    fn info(&self) -> BackendInfo {
        BackendInfo {
            url: format!("embedded:{}", self.root.display()),
            alive: self.root.is_dir(),
            status: json!({
                "name": "ta-embedded",
                "cluster_name": "ta",
                "version": {"number": env!("CARGO_PKG_VERSION"), "build_flavor": "tantivy"},
                "tagline": "You Know, for Search",
            }),
        }
    }

    fn list_indices(&self) -> Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.root).map_err(backend_err)? {
            let entry = entry.map_err(backend_err)?;
            if entry.path().join("meta.json").exists() {
                let name = entry.file_name().to_str().map(str::to_string);
                // an index whose upgrade was cut short goes by its own name
                names.extend(name.map(|n| n.strip_prefix(UPGRADE_PREFIX).map(str::to_string).unwrap_or(n)));
            }
        }
        names.sort();
        names.dedup();
        Ok(names)
    }

    fn index_exists(&self, name: &str) -> Result<bool> {
        Ok(self.index_dir(name)?.join("meta.json").exists() || self.upgrade_dir(name).exists())
    }

    fn index_size(&self, name: &str) -> Result<u64> {
        let dir = self.index_dir(name)?;
        let entries = std::fs::read_dir(&dir).map_err(backend_err)?;
        let mut total = 0;
        for entry in entries {
            let meta = entry.map_err(backend_err)?.metadata().map_err(backend_err)?;
            if meta.is_file() {
                total += meta.len();
            }
        }
        Ok(total)
    }

    fn create_index(&self, name: &str) -> Result<()> {
        let dir = self.index_dir(name)?;
        let _guard = lock(&self.lifecycle);
        if dir.join("meta.json").exists() {
            return Ok(());
        }
        std::fs::create_dir_all(&dir).map_err(backend_err)?;
        mark_current(&dir)?;
        Index::create_in_dir(&dir, build_schema()).map_err(backend_err)?;
        Ok(())
    }

    fn delete_index(&self, name: &str) -> Result<()> {
        let dir = self.index_dir(name)?;
        let _guard = lock(&self.lifecycle);
        let removed = self.indices.write().unwrap_or_else(|p| p.into_inner()).remove(name);
        if let Some(handle) = removed {
            if let Some(writer) = lock(&handle.writer).take() {
                writer.wait_merging_threads().map_err(backend_err)?;
            }
        }
        let old_files = self.upgrade_dir(name);
        if !dir.join("meta.json").exists() && !old_files.exists() {
            return Err(SearchError::IndexNotFound(name.to_string()));
        }
        if old_files.exists() {
            std::fs::remove_dir_all(&old_files).map_err(backend_err)?;
        }
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(backend_err)?;
        }
        Ok(())
    }

    fn bulk_index(&self, index: &str, docs: Vec<Doc>) -> Result<BulkResult> {
        self.create_index(index)?;
        let (results, valid) = pending(docs);
        self.handle(index)?.write(valid)?;
        Ok(results)
    }

    fn start_merges(&self) -> Result<()> {
        for name in self.list_indices()? {
            // an index this build cannot read is reported when it is used
            if let Ok(handle) = self.handle(&name) {
                handle.start_merges()?;
            }
        }
        Ok(())
    }

    fn declare_field_types(&self, index: &str, types: &[(String, String)]) -> Result<()> {
        self.create_index(index)?;
        self.handle(index)?.declare_types(types)
    }

    fn loads_wait_for_commit(&self) -> bool {
        true
    }

    fn bulk_loader<'a>(&'a self, index: &str) -> Result<Box<dyn BulkLoader + 'a>> {
        self.create_index(index)?;
        Ok(Box::new(TantivyLoader::start(self.handle(index)?)?))
    }

    fn bulk_update(&self, index: &str, updates: Vec<(String, Map<String, Value>)>) -> Result<BulkResult> {
        let handle = self.handle(index)?;
        let searcher = handle.searcher()?;
        let mut pending: HashMap<String, Map<String, Value>> = HashMap::new();
        let mut order = Vec::new();
        let mut results = Vec::with_capacity(updates.len());
        for (id, partial) in updates {
            let current = match pending.remove(&id) {
                Some(doc) => Some(doc),
                None => match handle.find(&searcher, &id)? {
                    Some(addr) => handle.load_hit(&searcher, addr, None)?.source.as_object().cloned(),
                    None => None,
                },
            };
            let Some(mut merged) = current else {
                results.push(Err(format!("document missing: [{id}]")));
                continue;
            };
            merged.extend(partial);
            if !order.contains(&id) {
                order.push(id.clone());
            }
            pending.insert(id.clone(), merged);
            results.push(Ok(id));
        }
        let docs = order
            .into_iter()
            .filter_map(|id| {
                let source = Source::from_map(&pending.remove(&id)?);
                Some(Pending { id, source, replace: true })
            })
            .collect();
        handle.write(docs)?;
        Ok(results)
    }

    fn get_document(&self, index: &str, id: &str) -> Result<Option<Hit>> {
        let handle = self.handle(index)?;
        let searcher = handle.searcher()?;
        match handle.find(&searcher, id)? {
            Some(addr) => Ok(Some(handle.load_hit(&searcher, addr, None)?)),
            None => Ok(None),
        }
    }

    fn delete_document(&self, index: &str, id: &str) -> Result<bool> {
        let handle = self.handle(index)?;
        if handle.find(&handle.searcher()?, id)?.is_none() {
            return Ok(false);
        }
        handle.with_writer(|writer| {
            handle.delete_by_id(writer, id);
            handle.commit(writer)
        })?;
        Ok(true)
    }

    fn search(&self, indices: &[String], body: &Value) -> Result<Value> {
        self.search_page(indices, body)
    }

    fn count(&self, indices: &[String], query: &Value) -> Result<u64> {
        let clause = query_clause(query);
        self.handles(indices)?.iter().map(|h| h.count(clause)).sum()
    }

    fn scan(&self, indices: &[String], query: &Value, batch_size: usize, sink: &mut dyn FnMut(Vec<Hit>) -> Result<()>) -> Result<()> {
        let clause = query_clause(query);
        let batch_size = batch_size.max(1);
        for handle in self.handles(indices)? {
            handle.scan(clause, batch_size, sink)?;
        }
        Ok(())
    }

    fn random_document(&self, indices: &[String]) -> Result<Option<Hit>> {
        let handles = self.handles(indices)?;
        let counts = handles.iter().map(|h| h.count(&Value::Null)).collect::<Result<Vec<_>>>()?;
        let total: u64 = counts.iter().sum();
        if total == 0 {
            return Ok(None);
        }
        let mut pick = rand::random_range(0..total);
        for (handle, count) in handles.iter().zip(counts) {
            if pick >= count {
                pick -= count;
                continue;
            }
            let searcher = handle.searcher()?;
            let query = kind_query(&handle.fields, KIND_DOC);
            let mut found = None;
            handle.for_each_match(&searcher, query.as_ref(), &mut |segment, doc| {
                if pick > 0 {
                    pick -= 1;
                    return Ok(true);
                }
                let reader = segment.get_store_reader(1).map_err(backend_err)?;
                found = Some(handle.hit_from(reader.get(doc).map_err(backend_err)?, None)?);
                Ok(false)
            })?;
            return Ok(found);
        }
        Ok(None)
    }

    fn fields(&self, indices: &[String]) -> Result<Vec<IndexFields>> {
        self.handles(indices)?
            .iter()
            .map(|h| {
                Ok(IndexFields {
                    index: h.name.clone(),
                    fields: lock(&h.mapping).to_infos(),
                })
            })
            .collect()
    }

    fn facts(&self, indices: &[String], query: &Value, values_per_name: usize) -> Result<Vec<FactCounts>> {
        count_facts(&self.handles(indices)?, query, values_per_name)
    }
}
