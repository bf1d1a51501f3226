//! Fuzz target: language processing without language data: HTML stripping
//! (`normalize_html`), the tokenizer and the fact extractors that read no data files
//! (contacts, entity lists, name-mails) through `MlpEngine::process` (the named-entity models
//! are the `ner` target's).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use ta::engine::mlp::{Analyzers, Lang, MlpConfig, MlpEngine};

/// Loaded from an empty directory with Estonian alone configured (nothing to detect): the
/// analyzers below need no data, so every text is processed, none refused.
fn engine() -> &'static MlpEngine {
    static ENGINE: OnceLock<MlpEngine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let cfg = MlpConfig {
            languages: vec![Lang::Et],
            ..MlpConfig::default()
        };
        MlpEngine::load(&std::env::temp_dir().join("ta-fuzz-no-mlp-data"), cfg)
    })
}

const ANALYZERS: Analyzers = Analyzers {
    lemmas: false,
    pos_tags: false,
    transliteration: true,
    ner: true,
    contacts: true,
    entities: true,
    namemail: true,
    bounded: false,
    ner_required: false,
};

fuzz_target!(init: { engine(); }, |data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(refusal) = engine().process(text.trim(), &ANALYZERS) {
        panic!("refused without a reason to: {refusal}");
    }
});
