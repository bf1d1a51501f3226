//! The integration tests, one binary (each suite a module): the `ta` binary and a real
//! `ta serve` on 127.0.0.1, driven from outside. `common` holds the shared helpers.
mod common;

mod access_matrix;
mod apply;
mod cli;
mod clustering;
mod concurrent_writers;
mod conformance_cases;
mod conformance_copy;
mod conformance_http;
mod evaluators;
mod feedback;
mod http_accounts;
mod http_api;
mod http_docs;
mod import_crash;
mod index_splitter;
mod indices;
mod mlp;
mod mlp_index;
mod models;
mod pipes;
mod reindexer;
mod tagger_groups;
mod torchtaggers;
mod training_crash;
mod web_client;
