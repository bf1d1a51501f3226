//! Search indices: the `SearchBackend` trait with its embedded tantivy implementation and its
//! Elasticsearch/OpenSearch client, the Elasticsearch query-DSL subset (for tantivy),
//! streaming dataset-import readers and index-name rules.
//!
//! Self-contained: only `self::`/`super::` paths, so it compiles as `crate`
//! and in a scratch crate alike.

mod aggs;
pub mod backend;
mod block_join;
mod date_math;
mod doc_views;
pub mod dsl;
pub mod elastic;
mod highlight;
pub mod import;
mod joda;
pub mod mapping;
pub mod names;
mod sort;
pub mod source;
mod store_doc;
pub mod tantivy_store;
mod tokenizer;
mod wildcard;

#[cfg(test)]
mod tests;

pub use aggs::jlh;
pub use backend::{
    generate_id, query_clause, BackendInfo, BulkLoader, BulkResult, Doc, FactCounts, FactValueCount, FieldInfo, Hit, IndexFields,
    ReadUpdate, Result, SearchBackend, SearchError,
};
pub use elastic::ElasticBackend;
pub use import::{import_file, read_rows, FileKind, ImportProgress, ImportStats};
pub use names::{validate_index_name, NameRuleOrder};
pub use tantivy_store::{analyzed_words, TantivyBackend};
