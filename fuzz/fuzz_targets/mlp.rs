//! Fuzz target: language processing without language data: HTML stripping
//! (`normalize_html`), language choice, the tokenizer and the fact extractors (contacts,
//! entities, name-mails, bounded facts) through `MlpEngine::process`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use ta::engine::mlp::{Analyzers, MlpConfig, MlpEngine};

/// Loaded from an empty directory: every pipeline is missing, so `process` runs the tokenizer
/// and falls back to tokens as lemmas (mlp.md §7), as a server without language data does.
fn engine() -> &'static MlpEngine {
    static ENGINE: OnceLock<MlpEngine> = OnceLock::new();
    ENGINE.get_or_init(|| MlpEngine::load(&std::env::temp_dir().join("ta-fuzz-no-mlp-data"), MlpConfig::default()))
}

fuzz_target!(init: { engine(); }, |data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    engine().process(text.trim(), &Analyzers::all());
});
