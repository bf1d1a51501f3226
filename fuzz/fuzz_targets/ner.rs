//! Fuzz target: the named-entity recognizers of the three languages on arbitrary text, with
//! their real models (`TA_MLP_DATA`: the directory holding `mlp/`, as scripts/setup.sh builds
//! it): ta's tokenizer, then each recognizer; every entity must lie within the text's tokens.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;
use ta::engine::mlp::ner::{self, Recognizer};
use ta::engine::mlp::{Lang, MlpConfig, MlpEngine};

struct Models {
    /// For its tokenizer only, which reads no data.
    tokenizer: MlpEngine,
    recognizers: Vec<(Lang, Box<dyn Recognizer>)>,
}

fn models() -> &'static Models {
    static MODELS: OnceLock<Models> = OnceLock::new();
    MODELS.get_or_init(|| {
        let root = std::env::var_os("TA_MLP_DATA")
            .map(PathBuf::from)
            .expect("set TA_MLP_DATA to the directory holding mlp/ (scripts/setup.sh builds it)");
        let recognizers = [Lang::Et, Lang::En, Lang::Ru]
            .into_iter()
            .map(|lang| {
                let dir = root.join("mlp").join(lang.code()).join("ner");
                (lang, ner::load(lang, &dir).unwrap_or_else(|e| panic!("{e}")))
            })
            .collect();
        let tokenizer = MlpEngine::load(&std::env::temp_dir().join("ta-fuzz-no-mlp-data"), MlpConfig::default());
        Models { tokenizer, recognizers }
    })
}

fuzz_target!(init: { models(); }, |data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let m = models();
    for (lang, recognizer) in &m.recognizers {
        let sentences = m.tokenizer.tokenize(&text, *lang);
        let words: Vec<Vec<&str>> = sentences.iter().map(|s| s.iter().map(String::as_str).collect()).collect();
        let tokens: usize = words.iter().map(Vec::len).sum();
        for e in recognizer.entities(&words) {
            assert!(e.first <= e.last && e.last < tokens, "{lang:?}: {e:?} outside {tokens} tokens");
        }
    }
});
