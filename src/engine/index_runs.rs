//! Runs over the documents of indices (`collection.md` §0): the selection a run reads, its
//! batches and progress, the check before each write that the indices are still open, the
//! one-task-at-a-time rule of a resource, and how a run's facts join a document's
//! `texta_facts` (the facts the run owns are replaced, none is held twice).
use super::error::{Error, Result};
use super::resources::{Kind, Resource};
use super::search::{BulkLoader, Hit, ReadUpdate};
use super::tasks::TaskHandle;
use super::Engine;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

/// The documents a run reads: those of `indices` matching the query clause `query`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Selection {
    pub indices: Vec<String>,
    pub query: Value,
}

/// What a run makes of one document: the top-level keys to replace (none: the document is
/// left as it is), and per-field problems that skipped a field without failing the run
/// (`"<field>: <reason>"`).
#[derive(Debug, Default)]
pub struct DocOutcome {
    pub update: Option<Map<String, Value>>,
    pub problems: Vec<String>,
}

/// Per-document problem lines a task lists before it only counts the rest.
const MAX_PROBLEM_LINES: usize = 100;

/// Smallest batch a run writes (`collection.md` §0.3 asks for at least 100 on the embedded
/// store): each batch costs a check of the project's indices, a write of its own and a
/// hand-over between threads.
pub const MIN_BATCH: usize = 1000;

/// How often a run commits what it wrote (and moves its progress): a commit syncs the
/// store's files (on a busy disk, tens to hundreds of milliseconds) or refreshes an
/// Elasticsearch index, so runs commit by time, not after every batch. A crash loses at
/// most this much of the run's work, which a retry redoes.
const COMMIT_EVERY: Duration = Duration::from_secs(2);

/// A batch's documents through `each`, in parallel, in input order.
pub fn per_document(hits: &[Hit], each: impl Fn(&Hit) -> Result<DocOutcome> + Sync + Send) -> Result<Vec<DocOutcome>> {
    hits.par_iter().map(each).collect()
}

/// The string at a dotted path of a document, or None (missing, or not a string).
pub fn field_text<'a>(source: &'a Value, path: &str) -> Option<&'a str> {
    super::lines::flat_get(source, path).and_then(Value::as_str)
}

/// A fact as runs write it (`collection.md` §0.4): `{fact, str_val, doc_path, spans}`.
pub fn fact(name: &str, value: &str, doc_path: &str, span: Option<[usize; 2]>) -> Value {
    let [start, end] = span.unwrap_or([0, 0]);
    serde_json::json!({"fact": name, "str_val": value, "doc_path": doc_path, "spans": format!("[[{start}, {end}]]")})
}

/// The `str` key of a fact, or "".
pub fn fact_str<'a>(fact: &'a Value, key: &str) -> &'a str {
    fact.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// A key that two equal facts share whatever their key order.
fn identity(fact: &Value) -> String {
    let Some(m) = fact.as_object() else {
        return fact.to_string();
    };
    let mut pairs: Vec<(&str, &Value)> = m.iter().map(|(k, v)| (k.as_str(), v)).collect();
    pairs.sort_unstable_by_key(|(k, _)| *k);
    let mut key = String::new();
    for (k, v) in pairs {
        key.push_str(k);
        key.push('\0');
        match v {
            Value::String(s) => {
                key.push('s');
                key.push_str(s);
            }
            other => key.push_str(&other.to_string()),
        }
        key.push('\u{1}');
    }
    key
}

/// The `texta_facts` of a document after a run: its facts without those the run owns, in
/// their order, then `new` in output order, no fact twice. None when that is what it holds.
pub fn merged_facts(existing: Option<&Value>, owned: impl Fn(&Value) -> bool, new: Vec<Value>) -> Option<Value> {
    let old: &[Value] = existing.and_then(Value::as_array).map_or(&[], Vec::as_slice);
    let mut seen = HashSet::new();
    let merged: Vec<Value> = old
        .iter()
        .filter(|f| !owned(f))
        .cloned()
        .chain(new)
        .filter(|f| seen.insert(identity(f)))
        .collect();
    (merged.as_slice() != old).then_some(Value::Array(merged))
}

impl Engine {
    /// The busy rule (`collection.md` §0.3): a resource runs one task at a time.
    pub fn ensure_idle(&self, r: &Resource) -> Result<()> {
        if let Some(task) = self.linked_task(r)? {
            if task.status.is_active() {
                return Err(Error::BadRequest("A task of this resource is still running.".into()));
            }
        }
        Ok(())
    }

    /// The selection of a request: the indices resolved for the project, the query checked
    /// by the store (a query it refuses is the request's 400, not a failed task).
    pub fn selection(&self, pk: i64, indices: Option<Vec<String>>, query: Option<Value>) -> Result<Selection> {
        let indices = self.resolve_indices(pk, indices)?;
        let query = query.map_or_else(|| serde_json::json!({"match_all": {}}), |q| super::search::query_clause(&q).clone());
        if !indices.is_empty() {
            self.count_documents(&indices, &query).map_err(|e| match e {
                Error::Internal(_) => e,
                other => Error::BadRequest(other.to_string()),
            })?;
        }
        Ok(Selection { indices, query })
    }

    /// Reads the selected documents in batches of `batch`, hands each batch to `run` and
    /// writes what it changed, the batch's documents each whole; progress moves at each
    /// commit (after the first batch, then every `COMMIT_EVERY`, and at the end), counting
    /// on from `already` (a resumed run). An index of the batch that left the project's open indices fails the run.
    pub fn run_over_documents(
        &self,
        pk: i64,
        selection: &Selection,
        batch: usize,
        already: u64,
        h: &TaskHandle,
        run: &(dyn Fn(&[Hit]) -> Result<Vec<DocOutcome>> + Sync),
    ) -> Result<()> {
        if selection.indices.is_empty() {
            return Err(Error::BadRequest("no indices: the project has no open indices".into()));
        }
        for index in &selection.indices {
            self.search.ensure_fact_mapping(index)?;
        }
        // Held for the run, a bulk load of each index keeps the embedded store from merging
        // segments after every batch (rewriting what the run is rewriting); the merges start
        // once the run ends.
        let mut loaders = (selection.indices.iter())
            .map(|index| Ok((index.clone(), self.search.bulk_loader(index)?)))
            .collect::<Result<BTreeMap<_, _>>>()?;
        let total = already + self.count_documents(&selection.indices, &selection.query)?;
        h.set_total(total as i64)?;
        let percent = |done: u64| if total == 0 { 100.0 } else { done as f64 * 100.0 / total as f64 };
        h.progress(already as i64, percent(already))?;
        let mut problems = 0usize;
        // The batches' writes go to a thread of their own while the next batch is processed;
        // it commits the first batch at once (the run shows progress), then every
        // COMMIT_EVERY and at the end, and progress moves at each commit.
        std::thread::scope(|scope| -> Result<()> {
            let (sender, receiver) = std::sync::mpsc::sync_channel::<(BTreeMap<String, Vec<ReadUpdate>>, u64)>(1);
            let writer = scope.spawn(move || -> Result<()> {
                let (mut done, mut pending, mut next_commit) = (already, 0u64, Instant::now());
                let mut commit = |loaders: &mut BTreeMap<String, Box<dyn BulkLoader + '_>>, pending: &mut u64| -> Result<()> {
                    for loader in loaders.values_mut() {
                        loader.commit()?;
                    }
                    done += std::mem::take(pending);
                    h.progress(done as i64, percent(done))
                };
                for (writes, count) in receiver {
                    for (index, updates) in writes {
                        let loader = loaders
                            .get_mut(&index)
                            .ok_or_else(|| Error::internal("a write to an index the run did not select"))?;
                        for r in loader.update_read(updates)? {
                            r.map_err(Error::Internal)?;
                        }
                    }
                    pending += count;
                    if Instant::now() >= next_commit {
                        commit(&mut loaders, &mut pending)?;
                        next_commit = Instant::now() + COMMIT_EVERY;
                    }
                }
                match pending {
                    0 => Ok(()),
                    _ => commit(&mut loaders, &mut pending),
                }
            });
            let scanned = self.scan_documents(&selection.indices, &selection.query, batch.max(1), &mut |hits| {
                let outcomes = run(&hits)?;
                let open = self.project_indices(pk)?;
                let mut writes: BTreeMap<String, Vec<ReadUpdate>> = BTreeMap::new();
                let count = hits.len() as u64;
                for (hit, outcome) in hits.into_iter().zip(outcomes) {
                    for p in outcome.problems {
                        if problems < MAX_PROBLEM_LINES {
                            h.add_error(&format!("{}/{} {p}", hit.index, hit.id))?;
                        }
                        problems += 1;
                    }
                    if !open.contains(&hit.index) {
                        return Err(Error::BadRequest(format!("index {} is not available", hit.index)));
                    }
                    if let Some(update) = outcome.update {
                        writes.entry(hit.index).or_default().push((hit.id, hit.source, update));
                    }
                }
                // A writer that stopped has its own error, returned below.
                sender
                    .send((writes, count))
                    .map_err(|_| Error::internal("the run's writer stopped"))
            });
            drop(sender);
            let written = writer.join().map_err(|_| Error::internal("a batch write panicked"))?;
            // The writer's error is the cause when both failed.
            written.and(scanned)
        })?;
        if problems > MAX_PROBLEM_LINES {
            h.add_error(&format!("... {} more documents skipped", problems - MAX_PROBLEM_LINES))?;
        }
        Ok(())
    }

    /// The resource of `kind` a run belongs to, idle (the busy rule).
    pub fn idle_resource(&self, kind: Kind, pk: i64, id: i64) -> Result<Resource> {
        let r = self.resource(kind, pk, id)?;
        self.ensure_idle(&r)?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn owned_facts_are_replaced_and_none_is_held_twice() {
        let existing = json!([
            {"fact": "TOPIC", "str_val": "sport", "doc_path": "text", "spans": "[[0, 0]]"},
            {"fact": "PER", "str_val": "Kalle", "doc_path": "text", "spans": "[[0, 5]]"},
            {"str_val": "Kalle", "fact": "PER", "spans": "[[0, 5]]", "doc_path": "text"},
        ]);
        let owned = |f: &Value| fact_str(f, "fact") == "TOPIC" && fact_str(f, "doc_path") == "text";
        let merged = merged_facts(Some(&existing), owned, vec![fact("TOPIC", "politics", "text", None)]).unwrap();
        assert_eq!(
            merged,
            json!([
                {"fact": "PER", "str_val": "Kalle", "doc_path": "text", "spans": "[[0, 5]]"},
                {"fact": "TOPIC", "str_val": "politics", "doc_path": "text", "spans": "[[0, 0]]"},
            ])
        );
        // Running again changes nothing.
        assert_eq!(
            merged_facts(Some(&merged), owned, vec![fact("TOPIC", "politics", "text", None)]),
            None
        );
        // No facts and none new: nothing to write.
        assert_eq!(merged_facts(None, owned, vec![]), None);
    }
}
