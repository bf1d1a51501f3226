//! Fuzz target: the embedded store's search request path: the Elasticsearch query-DSL
//! translator (every clause, `query_string`, date math in `range`), `sort`, `aggs`,
//! `highlight`, `_source`, `from`/`size`, through `SearchBackend::search`.
//!
//! Input: a search body as JSON, run against a small index of four documents with text,
//! keyword, numeric, date, object, array and nested-fact fields.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::sync::OnceLock;
use ta::engine::search::{Doc, SearchBackend, TantivyBackend};

const INDEX: &str = "fuzz";

fn backend() -> &'static TantivyBackend {
    static BACKEND: OnceLock<TantivyBackend> = OnceLock::new();
    BACKEND.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("ta-fuzz-search-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let backend = TantivyBackend::open(&dir).expect("store opens");
        backend.create_index(INDEX).expect("index created");
        let docs = [
            json!({"text": "Varas peeti kinni eile õhtul.", "label": "politsei", "n": 5, "date": "2020-01-05T10:00:00Z",
                   "a": {"b": "nested value here"},
                   "texta_facts": [{"fact": "PER", "str_val": "Mari Tamm", "doc_path": "text", "spans": "[[0, 5]]"},
                                   {"fact": "LOC", "str_val": "Tallinn", "doc_path": "text", "spans": "[[6, 9]]"}]}),
            json!({"text": "Maja teisel korrusel toimus põleng.", "label": "tuletõrje", "n": 10, "date": "2021-03-01T00:00:00Z",
                   "a": {"b": "other"},
                   "texta_facts": [{"fact": "PER", "str_val": "Jaan", "doc_path": "text", "spans": "[[0, 4]]"}]}),
            json!({"text": "Ohver sai tõsise trauma.", "label": "kiirabi", "n": 2.5, "tags": ["x", "y"], "flag": true}),
            json!({"text": "Klient on teenusega rahul. Varas", "label": "muu", "date": "2019-12-31"}),
        ];
        let docs = docs
            .into_iter()
            .enumerate()
            .map(|(i, source)| Doc {
                id: Some(format!("d{i}")),
                source,
            })
            .collect();
        backend.bulk_index(INDEX, docs).expect("documents indexed");
        backend
    })
}

fuzz_target!(init: { backend(); }, |data: &[u8]| {
    let Ok(body) = serde_json::from_slice::<Value>(data) else { return };
    let _ = backend().search(&[INDEX.to_string()], &body);
});
