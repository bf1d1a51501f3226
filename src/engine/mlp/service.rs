//! The engine's face of language processing: the shared `MlpEngine` (loaded once, on first
//! use), `POST /mlp/texts/` (mlp.md §1–§2) and the `/health` `mlp` block (mlp.md §8).
//!
//! Where the data is read from: see [`data_root`].

use std::path::PathBuf;

use rayon::prelude::*;
use serde_json::{json, Value};

use super::{Analyzers, MlpConfig, MlpEngine};
use crate::engine::error::{Error, Result};
use crate::engine::regex_taggers::{MAX_TEXTS, TEXT};
use crate::engine::validate::{Form, List, Mode};
use crate::engine::{Ctx, Engine};

/// The directory holding `mlp/`, in this order: the configured one (`TA_MLP_DATA`, set by the
/// faces); ta's data directory when it has an `mlp/`; in debug builds only, the source
/// checkout's `data/` (where scripts/setup.sh writes). A release build never looks at the
/// build machine's paths.
pub fn data_root(config: &crate::engine::Config) -> PathBuf {
    if let Some(dir) = &config.mlp_data {
        return dir.clone();
    }
    if config.data_dir.join("mlp").is_dir() || !cfg!(debug_assertions) {
        return config.data_dir.clone();
    }
    checkout_data()
}

/// `<checkout>/data`, the default output of scripts/setup.sh.
pub fn checkout_data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// The `analyzers` choices: texta-mlp 1.4's eight plus `all` (mlp.md §1).
fn analyzer_choices() -> Vec<&'static str> {
    Analyzers::NAMES.iter().copied().chain(["all"]).collect()
}

impl Engine {
    /// The language engine; the first call loads it (a few seconds) and logs what failed.
    pub fn mlp(&self) -> &MlpEngine {
        self.mlp.get_or_init(|| {
            let cfg = MlpConfig {
                version: env!("CARGO_PKG_VERSION").into(),
                ..self.config.mlp.clone()
            };
            let engine = MlpEngine::load(&data_root(&self.config), cfg);
            for e in engine.load_errors() {
                eprintln!("ta: mlp: {e}");
            }
            engine
        })
    }

    /// `POST /mlp/texts/` for any authenticated caller: `{"texts": [..], "analyzers": [..]}`
    /// → one item per text, in order, processed in parallel.
    pub fn mlp_texts(&self, _ctx: &Ctx, body: &Value) -> Result<Vec<Value>> {
        let mut f = Form::new(body, Mode::Full)?;
        let texts = f.strings("texts", List::REQUIRED.max(MAX_TEXTS), TEXT);
        let analyzers = f.multiple_choice("analyzers", List::OPTIONAL, &analyzer_choices());
        f.finish()?;
        let analyzers = match analyzers {
            Some(names) => Analyzers::parse(&names).map_err(Error::internal)?,
            None => Analyzers::all(),
        };
        let mlp = self.mlp();
        Ok(texts.unwrap_or_default().par_iter().map(|t| mlp.process(t, &analyzers)).collect())
    }

    /// The `/health` `mlp` block; `status` only when every resource loaded.
    pub(in crate::engine) fn mlp_health(&self) -> Value {
        let mlp = self.mlp();
        let mut v = json!({"url": "builtin", "alive": mlp.alive()});
        if mlp.alive() {
            v["status"] = mlp.status();
        }
        v
    }
}
