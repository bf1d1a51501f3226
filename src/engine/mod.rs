//! The engine: all domain behaviour of ta. It owns the state database (`db`), the task runner and
//! the compiled-model caches, and exposes one method per operation. It knows nothing
//! of HTTP or terminals: callers pass a `Ctx` (who is asking, and the base URL that
//! resource links are built from) and get typed results or an `Error`.
pub mod accounts;
pub use ta_anonymizer as anonymizer;
pub mod anonymizers;
pub mod apply;
pub use ta_classifier as classifier;
pub use ta_cluster as cluster;
pub mod clock;
pub mod clustering;
pub mod clusters;
pub mod core_variables;
pub mod dataset_imports;
pub mod db;
pub use ta_embedding as embedding;
pub mod embeddings;
pub mod error;
pub mod evaluation;
pub mod evaluators;
pub mod export;
pub mod facts;
pub mod feedback;
pub mod health;
pub mod index_runs;
pub mod index_splitter;
pub mod indices;
pub mod kinds;
pub mod lexicons;
pub use ta_mlp as mlp;
pub use ta_text::lines;
pub mod lang_index;
pub mod language;
pub mod mlp_index;
pub mod models;
pub use ta_neural as neural;
pub mod operations;
pub mod passwords;
pub mod plot_links;
pub mod projects;
pub use ta_regex as regex_tagger;
pub use ta_text::pytext;
pub mod regex_facts;
pub mod regex_taggers;
pub mod reindexer;
pub mod resources;
pub mod sample;
pub use ta_search as search;
pub mod searches;
pub mod tagger_files;
pub mod tagger_groups;
pub mod taggers;
pub mod tasks;
pub mod torchtaggers;
pub mod validate;

use accounts::User;
use error::Result;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// Engine settings (from flags and environment, resolved by the faces).
#[derive(Clone, Debug)]
pub struct Config {
    pub data_dir: PathBuf,
    /// Largest accepted upload (a multipart request body), in bytes.
    pub max_upload: u64,
    /// Largest accepted JSON or url-encoded form body, in bytes: these are read whole into
    /// memory, so they get a limit of their own, far below the upload limit.
    pub max_body: u64,
    /// Worker threads for background tasks.
    pub task_threads: usize,
    /// Elasticsearch/OpenSearch cluster to keep search indices in (`--search-url`,
    /// `TA_SEARCH_URL`); `None` keeps them in the embedded store under `data_dir/indices`.
    pub search_url: Option<String>,
    /// PBKDF2 work factor of new password hashes (Django's by default).
    pub password_iterations: u32,
    /// The directory holding the language data (`mlp/`); `None`: found as
    /// `language::data_root` says (the data directory, then the default one).
    pub mlp_data: Option<PathBuf>,
    /// Language processing settings (languages, Russian tag set, Vabamorf instances).
    pub mlp: mlp::MlpConfig,
}

impl Config {
    /// The defaults for a data directory; the faces set what their flags and environment say.
    pub fn new(data_dir: PathBuf) -> Config {
        Config {
            data_dir,
            max_upload: 1 << 30,
            max_body: 64 << 20,
            task_threads: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2),
            search_url: None,
            password_iterations: passwords::DEFAULT_ITERATIONS,
            mlp_data: None,
            mlp: mlp::MlpConfig::default(),
        }
    }
}

/// The default data directory: the platform's data directory (`$XDG_DATA_HOME` or
/// `~/.local/share` on Linux, `~/Library/Application Support` on macOS) + `/ta`. The state
/// lives there unless a face names another, and scripts/setup.sh installs the language data
/// there, where every data directory without an `mlp/` of its own finds it.
pub fn default_data_dir() -> PathBuf {
    dirs::data_dir().unwrap_or_else(|| PathBuf::from(".")).join("ta")
}

/// Who is asking, the API root their links are built from, and the answer forms they read.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub user: User,
    /// API root without a trailing slash, e.g. `http://127.0.0.1:8000/api/v1`.
    pub base_url: String,
    pub dialect: operations::Dialect,
}

pub struct Engine {
    pub config: Config,
    db: Arc<db::Db>,
    runner: tasks::TaskRunner,
    sys: Mutex<sysinfo::System>,
    matchers: regex_taggers::MatcherCache,
    /// Recently accepted tokens (`Engine::known_token`).
    tokens: accounts::TokenCache,
    /// One edit of a resource at a time (`Engine::edit_resource`).
    edits: resources::EditLocks,
    /// Loaded trained models (taggers, embeddings, neural taggers).
    models: models::ModelCache,
    search: Box<dyn search::SearchBackend>,
    /// The language-processing engine, loaded on first use (`language`).
    mlp: OnceLock<mlp::MlpEngine>,
    /// The secret that signs plot links (`plot_links`).
    link_secret: String,
}

impl Engine {
    /// Open the data directory (creating it), migrate the database, fail interrupted
    /// tasks, and make sure the `admin` superuser exists.
    pub fn open(config: Config) -> Result<Arc<Engine>> {
        std::fs::create_dir_all(&config.data_dir)
            .map_err(|e| error::Error::Internal(format!("cannot create data directory {}: {e}", config.data_dir.display())))?;
        let db = Arc::new(db::Db::open(&config.data_dir.join("ta.sqlite3"))?);
        let mut sys = sysinfo::System::new();
        sys.refresh_cpu_usage();
        // The flag or environment wins over the core variables a superuser stored.
        let search_url = match &config.search_url {
            Some(url) => Some(url.clone()),
            None => core_variables::search_url(&db)?,
        };
        let search: Box<dyn search::SearchBackend> = match &search_url {
            Some(url) => Box::new(search::ElasticBackend::new(url)?),
            None => Box::new(
                search::TantivyBackend::open(config.data_dir.join("indices"))
                    .map_err(|e| error::Error::Internal(format!("cannot open the index store: {e}")))?,
            ),
        };
        let link_secret = plot_links::link_secret(&db)?;
        let engine = Engine {
            link_secret,
            search,
            runner: tasks::TaskRunner::new(config.task_threads),
            db,
            sys: Mutex::new(sys),
            matchers: Default::default(),
            tokens: Default::default(),
            edits: Default::default(),
            models: Default::default(),
            mlp: OnceLock::new(),
            config,
        };
        let interrupted = engine.fail_interrupted_tasks()?;
        engine.drop_interrupted_staging(&interrupted)?;
        Ok(Arc::new(engine))
    }

    /// Starts the search store's pending segment merges in the background (`ta serve` calls
    /// it once up; see `SearchBackend::start_merges`).
    pub fn start_search_merges(&self) -> Result<()> {
        Ok(self.search.start_merges()?)
    }

    fn search_health(&self) -> Value {
        let info = self.search.info();
        let mut v = json!({"url": info.url, "alive": info.alive});
        if info.alive {
            v["status"] = info.status;
        }
        v
    }
}
