//! The engine's face of language processing: the shared `MlpEngine` (loaded once, on first
//! use), `POST /mlp/texts/` (mlp.md §1–§2) and the `/health` `mlp` block (mlp.md §8).
//!
//! Where the data is read from: see [`data_root`].

use std::path::PathBuf;

use rayon::prelude::*;
use serde_json::{json, Value};

use super::mlp::{Analyzers, MlpConfig, MlpEngine, INSTALL_HINT};
use crate::engine::error::{Error, Result};
use crate::engine::regex_taggers::{MAX_TEXTS, TEXT};
use crate::engine::validate::{Form, List, Mode};
use crate::engine::{Ctx, Engine};

/// The directory holding `mlp/`, in this order: the configured one (`TA_MLP_DATA`, set by the
/// faces); ta's data directory when it has an `mlp/`; the default data directory (where
/// scripts/setup.sh installs the language data) when it has one. Without any, ta's data
/// directory, whose missing files the refusals then name.
pub fn data_root(config: &crate::engine::Config) -> PathBuf {
    if let Some(dir) = &config.mlp_data {
        return dir.clone();
    }
    [config.data_dir.clone(), crate::engine::default_data_dir()]
        .into_iter()
        .find(|dir| dir.join("mlp").is_dir())
        .unwrap_or_else(|| config.data_dir.clone())
}

/// The `analyzers` choices: texta-mlp 1.4's eight plus `all` (mlp.md §1).
fn analyzer_choices() -> Vec<&'static str> {
    Analyzers::NAMES.iter().copied().chain(["all"]).collect()
}

impl Engine {
    /// The language engine; the first call loads it (a few seconds). What failed to load is
    /// in `load_errors`, and the texts that need it are refused.
    pub fn mlp(&self) -> &MlpEngine {
        self.mlp.get_or_init(|| {
            let cfg = MlpConfig {
                version: env!("CARGO_PKG_VERSION").into(),
                ..self.config.mlp.clone()
            };
            MlpEngine::load(&data_root(&self.config), cfg)
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
        texts
            .unwrap_or_default()
            .par_iter()
            .map(|t| mlp.process(t, &analyzers).map_err(Error::Unavailable))
            .collect()
    }

    /// The `/health` `mlp` block; `status` only when every resource loaded, else `reason`:
    /// what failed to load and how to install it.
    pub(in crate::engine) fn mlp_health(&self) -> Value {
        let mlp = self.mlp();
        let mut v = json!({"url": "builtin", "alive": mlp.alive()});
        if mlp.alive() {
            v["status"] = mlp.status();
        } else {
            v["reason"] = json!(format!("{}; {INSTALL_HINT}", mlp.load_errors().join("; ")));
        }
        v
    }
}
