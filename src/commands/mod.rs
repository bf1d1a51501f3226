//! The CLI face. Flags are parsed (clap) into a typed command, which runs against the
//! local engine (a data directory, no server) or a remote server (`--server URL`) with
//! the same JSON bodies, and the result is rendered as JSON or a readable table.
mod accounts;
mod anonymizer;
mod apply;
mod batch;
mod choice;
mod client;
mod clustering;
mod core_variables;
mod embeddings;
mod evaluators;
mod feedback;
mod indices;
mod lists;
mod mlp;
mod mlp_index;
mod output;
mod progress;
mod projects;
mod regex;
mod reindexer;
mod resources;
mod system;
mod tagger_groups;
mod taggers;
mod torchtaggers;

use crate::engine::accounts::User;
use crate::engine::error::{Error, Result};
use crate::engine::mlp::{Lang, MlpConfig, RuPos};
use crate::engine::operations::{self, Reply};
use crate::engine::{Config, Ctx, Engine};
use clap::{Parser, Subcommand};
use client::Client;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Parser, Debug)]
#[command(
    name = "ta",
    version,
    about = "Text analysis toolkit: taggers, anonymizer, language processing, search indices — local or against a ta server"
)]
pub struct Cli {
    /// Data directory for local mode [default: the platform data dir + /ta]
    #[arg(long, global = true, env = "TA_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster
    /// (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]
    #[arg(long, global = true, env = "TA_SEARCH_URL", hide_env_values = true)]
    pub search_url: Option<String>,
    /// Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)
    #[arg(long, global = true, env = "TA_SERVER")]
    pub server: Option<String>,
    /// Token for --server [default: the one stored by `ta login`]
    #[arg(long, global = true, env = "TA_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Local mode: act as this user [default: admin]
    #[arg(long = "as", global = true, value_name = "USER")]
    pub as_user: Option<String>,
    /// Print JSON even on a terminal
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Create the data directory, database and the admin account
    Init,
    /// Serve the HTTP API (TEXTA /api/v1/ compatible), Swagger and ReDoc pages
    Serve(system::ServeArgs),
    /// Service health: host figures, search store, language processing, tasks
    Health,
    /// Register a new account (prints its token)
    Register(accounts::RegisterArgs),
    /// Log in; with --server the token is stored for later commands
    Login(accounts::LoginArgs),
    /// Log out (deletes the token)
    Logout,
    /// Users
    #[command(subcommand)]
    User(accounts::UserCmd),
    /// Projects
    #[command(subcommand)]
    Project(projects::ProjectCmd),
    /// Regex (lexicon) taggers
    #[command(subcommand, name = "regex-tagger")]
    RegexTagger(regex::TaggerCmd),
    /// Regex tagger groups
    #[command(subcommand, name = "regex-tagger-group")]
    RegexTaggerGroup(regex::GroupCmd),
    /// Taggers: text classifiers trained on index documents or a labelled file
    #[command(subcommand)]
    Tagger(taggers::TaggerCmd),
    /// Tagger groups: one tagger per value of a fact, trained together; a text gets the tags
    /// that fit among those its most similar documents hold
    #[command(subcommand, name = "tagger-group")]
    TaggerGroup(tagger_groups::TaggerGroupCmd),
    /// Neural taggers: fastText, TextRNN and RCNN networks trained on index documents or a
    /// labelled file
    #[command(subcommand)]
    Torchtagger(torchtaggers::TorchTaggerCmd),
    /// Word embeddings: word2vec with phrases, similar words, phrase a text
    #[command(subcommand)]
    Embedding(embeddings::EmbeddingCmd),
    /// Lexicons: word lists grown with an embedding's suggestions
    #[command(subcommand)]
    Lexicon(lists::LexiconCmd),
    /// Saved searches: named Elasticsearch queries
    #[command(subcommand, name = "saved-search")]
    SavedSearch(lists::SavedSearchCmd),
    /// Anonymizers (replace person names with initials)
    #[command(subcommand)]
    Anonymizer(anonymizer::AnonymizerCmd),
    /// Language processing: tokens, lemmas, POS tags, language and facts of a text or a JSONL stream
    Mlp(mlp::MlpArgs),
    /// Language processing over the documents of indices: `<field>_mlp` and facts written into each
    #[command(subcommand, name = "mlp-index")]
    MlpIndex(mlp_index::MlpIndexCmd),
    /// Language detection over the documents of indices: `<field>_mlp.language.detected` written into each
    #[command(subcommand, name = "lang-index")]
    LangIndex(mlp_index::LangIndexCmd),
    /// Copy the selected documents of indices into a new index (fields chosen and renamed, a random sample)
    #[command(subcommand)]
    Reindexer(reindexer::ReindexerCmd),
    /// Share the selected documents of indices between a new train and a new test index
    #[command(subcommand, name = "index-splitter")]
    IndexSplitter(reindexer::IndexSplitterCmd),
    /// Score a predicted fact against a true fact over the documents of indices: precision,
    /// recall, F1, accuracy, confusion matrix, per-class results, misclassified documents
    #[command(subcommand)]
    Evaluator(evaluators::EvaluatorCmd),
    /// Topic analyzer: cluster the selected documents of indices by their words, then edit, tag and explore the clusters
    #[command(subcommand, name = "topic-analyzer")]
    TopicAnalyzer(clustering::TopicAnalyzerCmd),
    /// Import a dataset file (jsonl, csv, xlsx/xls) into a search index
    Import(indices::ImportArgs),
    /// Stream the documents matching a query as JSON lines
    Search(indices::SearchArgs),
    /// Store, show or delete single documents
    #[command(subcommand)]
    Doc(indices::DocCmd),
    /// Search indices in the store: list, show, open or close, delete
    #[command(subcommand)]
    Index(indices::IndexCmd),
    /// Settings kept in the database: the search store's URL and credentials
    #[command(subcommand)]
    CoreVariable(core_variables::CoreVariableCmd),
    /// Background tasks
    #[command(subcommand)]
    Task(system::TaskCmd),
    /// Call any API operation by method and path (`ta api GET /projects/`); `ta api --list`
    /// lists them
    Api(system::ApiArgs),
    /// Print a shell completion script
    Completions(system::CompletionArgs),
    /// Print the manual page (roff; `ta man | man -l -`)
    Man,
}

impl Cli {
    /// Whether this run is the HTTP server (which outlives any one client).
    pub fn serves(&self) -> bool {
        matches!(self.command, Command::Serve(_))
    }
}

/// Where commands run: the local engine acting as a user, or a remote server.
pub enum Target {
    Local { engine: Arc<Engine>, ctx: Ctx },
    Remote(Client),
}

/// Base URL that local mode builds links from.
pub fn local_base_url() -> String {
    std::env::var("TA_BASE_URL").unwrap_or_else(|_| "http://127.0.0.1:8000/api/v1".into())
}

pub fn data_dir(cli: &Cli) -> PathBuf {
    cli.data_dir.clone().unwrap_or_else(crate::engine::default_data_dir)
}

/// The engine's settings from the flags and the environment: `TA_MAX_UPLOAD`, `TA_MAX_BODY`
/// (bytes), `TA_MLP_DATA` (language data root) and, in debug builds only (the test suite),
/// `TA_PASSWORD_ITERATIONS`.
pub fn engine_config(cli: &Cli) -> Config {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let defaults = Config::new(data_dir(cli));
    Config {
        search_url: cli.search_url.clone(),
        max_upload: var("TA_MAX_UPLOAD").and_then(|v| v.parse().ok()).unwrap_or(defaults.max_upload),
        max_body: var("TA_MAX_BODY").and_then(|v| v.parse().ok()).unwrap_or(defaults.max_body),
        mlp_data: var("TA_MLP_DATA").map(PathBuf::from),
        mlp: mlp_config(&var),
        password_iterations: var("TA_PASSWORD_ITERATIONS")
            .filter(|_| cfg!(debug_assertions))
            .and_then(|v| v.parse().ok())
            .filter(|n| *n > 0)
            .unwrap_or(defaults.password_iterations),
        ..defaults
    }
}

/// Language-processing settings from `TA_MLP_LANGUAGES` (codes, comma-separated; unknown
/// ones ignored), `TA_MLP_DEFAULT_LANGUAGE`, `TA_MLP_RU_POS` (`x`) and `TA_MLP_ET_INSTANCES`.
fn mlp_config(var: &dyn Fn(&str) -> Option<String>) -> MlpConfig {
    let mut cfg = MlpConfig::default();
    let langs: Vec<Lang> = var("TA_MLP_LANGUAGES")
        .map(|list| list.split(',').filter_map(|c| Lang::from_code(c.trim())).collect())
        .unwrap_or_default();
    if !langs.is_empty() {
        cfg.languages = langs;
    }
    if let Some(lang) = var("TA_MLP_DEFAULT_LANGUAGE").and_then(|c| Lang::from_code(c.trim())) {
        cfg.default_language = lang;
    }
    if var("TA_MLP_RU_POS").is_some_and(|v| v.eq_ignore_ascii_case("x")) {
        cfg.ru_pos = RuPos::X;
    }
    if let Some(n) = var("TA_MLP_ET_INSTANCES").and_then(|v| v.trim().parse().ok()) {
        cfg.et_instances = n;
    }
    cfg
}

/// Open the local engine, creating `admin` on first use.
pub fn open_engine(cli: &Cli) -> Result<Arc<Engine>> {
    let engine = Engine::open(engine_config(cli))?;
    let (password, from_env) = match std::env::var("TA_ADMIN_PASSWORD").or_else(|_| std::env::var("TEXTA_ADMIN_PASSWORD")) {
        Ok(p) => (p, true),
        Err(_) => ("1234".to_string(), false),
    };
    if engine.ensure_admin(&password)? && !from_env {
        eprintln!("ta: created superuser 'admin' with the default password 1234; set TA_ADMIN_PASSWORD to choose one");
    }
    Ok(engine)
}

impl Target {
    pub fn resolve(cli: &Cli) -> Result<Target> {
        let stored = accounts::stored_login();
        let server = cli.server.clone().or_else(|| stored.as_ref().map(|s| s.server.clone()));
        match server {
            Some(server) => {
                let token = cli.token.clone().or_else(|| {
                    stored
                        .filter(|s| client::api_root(&s.server) == client::api_root(&server))
                        .map(|s| s.token)
                });
                Ok(Target::Remote(Client::new(&server, token)))
            }
            None => {
                let engine = open_engine(cli)?;
                let user: User = engine.user_named(cli.as_user.as_deref().unwrap_or("admin"))?;
                Ok(Target::Local {
                    ctx: Ctx {
                        user,
                        base_url: local_base_url(),
                        dialect: Default::default(),
                    },
                    engine,
                })
            }
        }
    }

    /// One operation of the catalogue, both ways: locally it runs in this process, remotely
    /// `method path body` goes to the server. The same declared operation answers either
    /// way, so local and remote output cannot differ.
    pub fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value> {
        match self {
            Target::Local { engine, ctx } => {
                let (path, query) = path.split_once('?').unwrap_or((path, ""));
                let query: BTreeMap<String, String> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
                let method = operations::Method::parse(method).ok_or_else(Error::not_found)?;
                let (op, _) = operations::find(method, path).ok_or_else(Error::not_found)?;
                let empty = Value::Object(Default::default());
                match operations::run_local(engine, Some(ctx), op, path, &query, body.unwrap_or(&empty))? {
                    Reply::Json(v) | Reply::StartSession(v, _) | Reply::EndSession(v) => Ok(v),
                    Reply::Empty => Ok(Value::Null),
                    Reply::File { name, .. } => Err(Error::BadRequest(format!(
                        "{name} is a file: save it with the command that exports it"
                    ))),
                }
            }
            Target::Remote(c) => c.send(method, path, body),
        }
    }

    /// A file an operation answers (an exported model), both ways.
    pub fn download(&self, path: &str) -> Result<Vec<u8>> {
        match self {
            Target::Local { engine, ctx } => {
                let (op, _) = operations::find(operations::Method::Get, path).ok_or_else(Error::not_found)?;
                match operations::run_local(engine, Some(ctx), op, path, &BTreeMap::new(), &Value::Null)? {
                    Reply::File { bytes, .. } => Ok(bytes),
                    _ => Err(Error::Internal(format!("{path} answers no file"))),
                }
            }
            Target::Remote(c) => c.download(path),
        }
    }
}

/// Run the parsed command; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let json = cli.json || !std::io::IsTerminal::is_terminal(&std::io::stdout());
    let result = match &cli.command {
        Command::Serve(a) => system::serve(&cli, a),
        Command::Completions(a) => system::completions(a),
        Command::Man => system::man(),
        Command::Init => system::init(&cli),
        Command::Mlp(mlp::MlpArgs {
            command: Some(mlp::MlpCmd::Bench(a)),
            ..
        }) => mlp::bench(&cli, a),
        Command::Mlp(mlp::MlpArgs {
            command: Some(mlp::MlpCmd::TrainEn(a)),
            ..
        }) => mlp::train_en(&cli, a),
        _ => dispatch(&cli),
    };
    match result {
        Ok(Some(v)) => {
            output::print(&v, json);
            0
        }
        Ok(None) => 0,
        Err(e) => {
            eprintln!("ta: error: {}", output::error_line(&e));
            // Declared with each error variant (`Error::wire`): 1 other failure, 2 usage
            // (clap), 3 invalid input (400), 4 not allowed (403), 5 not found (404), 6 too large.
            e.exit_code()
        }
    }
}

fn dispatch(cli: &Cli) -> Result<Option<Value>> {
    match &cli.command {
        Command::Register(a) => accounts::register(cli, a),
        Command::Login(a) => accounts::login(cli, a),
        other => {
            let t = Target::resolve(cli)?;
            match other {
                Command::Health => t.request("GET", "/health/", None).map(Some),
                Command::Logout => accounts::logout(&t),
                Command::User(c) => accounts::user(&t, c),
                Command::Project(c) => projects::run(&t, c),
                Command::RegexTagger(c) => regex::tagger(&t, c),
                Command::RegexTaggerGroup(c) => regex::group(&t, c),
                Command::Anonymizer(c) => anonymizer::run(&t, c),
                Command::Tagger(c) => taggers::run(&t, c),
                Command::TaggerGroup(c) => tagger_groups::run(&t, c),
                Command::Torchtagger(c) => torchtaggers::run(&t, c),
                Command::Lexicon(c) => lists::lexicon(&t, c),
                Command::SavedSearch(c) => lists::saved_search(&t, c),
                Command::Embedding(c) => embeddings::run(&t, c),
                Command::Mlp(a) => mlp::run(&t, a),
                Command::MlpIndex(c) => mlp_index::mlp_index(&t, c),
                Command::LangIndex(c) => mlp_index::lang_index(&t, c),
                Command::Reindexer(c) => reindexer::run(&t, c),
                Command::IndexSplitter(c) => reindexer::index_splitter(&t, c),
                Command::Evaluator(c) => evaluators::run(&t, c),
                Command::TopicAnalyzer(c) => clustering::run(&t, c),
                Command::Import(a) => indices::import(&t, a),
                Command::Search(a) => indices::search(&t, a),
                Command::Doc(c) => indices::doc(&t, c),
                Command::Index(c) => indices::index(&t, c),
                Command::CoreVariable(c) => core_variables::run(&t, c),
                Command::Task(c) => system::task(&t, c).map(Some),
                Command::Api(a) => system::api(&t, a),
                _ => unreachable!("handled above"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Every subcommand and every argument says what it is for (help text, completions and
    /// the man page all show it).
    #[test]
    fn every_command_and_argument_has_help() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            let path = format!("{path} {}", cmd.get_name());
            if cmd.get_about().is_none() {
                missing.push(format!("{path}: no about"));
            }
            for arg in cmd.get_arguments() {
                let builtin = matches!(arg.get_id().as_str(), "help" | "version");
                if !builtin && arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {}: no help", arg.get_id()));
                }
            }
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                walk(sub, &path, missing);
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "", &mut missing);
        assert!(missing.is_empty(), "{} without help:\n{}", missing.len(), missing.join("\n"));
    }
}
