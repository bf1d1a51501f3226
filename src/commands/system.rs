//! `ta init`, `ta serve`, `ta task ...`, `ta completions ...`.
use super::{open_engine, Cli, Target};
use crate::engine::error::{Error, Result};
use clap::{Args, CommandFactory, Subcommand};
use serde_json::{json, Value};
use std::net::SocketAddr;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on
    #[arg(long, default_value = "127.0.0.1", env = "TA_HOST")]
    pub host: String,
    /// Port (0 picks a free one; the chosen address is printed)
    #[arg(long, default_value_t = 8000, env = "TA_PORT")]
    pub port: u16,
    /// Let web pages from this origin call the API with credentials (CORS), e.g.
    /// http://127.0.0.1:4200; repeat for several [default: none]
    #[arg(long = "cors-origin", value_name = "URL", env = "TA_CORS_ORIGINS", value_delimiter = ',')]
    pub cors_origins: Vec<String>,
}

#[derive(Subcommand, Debug)]
pub enum TaskCmd {
    /// Tasks visible to you
    List,
    /// One task
    Show {
        /// Task id
        id: i64,
    },
    /// Run a failed task again from its stored parameters (prints the new task)
    Retry {
        /// Task id
        id: i64,
    },
}

#[derive(Args, Debug)]
pub struct CompletionArgs {
    /// The shell: bash, zsh, fish, powershell or elvish
    pub shell: clap_complete::Shell,
}

pub fn init(cli: &Cli) -> Result<Option<Value>> {
    let engine = open_engine(cli)?;
    Ok(Some(
        json!({"data_dir": engine.config.data_dir, "database": engine.config.data_dir.join("ta.sqlite3")}),
    ))
}

pub fn serve(cli: &Cli, a: &ServeArgs) -> Result<Option<Value>> {
    let options = crate::server::Options {
        cors_origins: a
            .cors_origins
            .iter()
            .filter(|o| !o.trim().is_empty())
            .map(|o| crate::server::cors::parse_origin(o))
            .collect::<std::result::Result<_, _>>()
            .map_err(Error::BadRequest)?,
    };
    let engine = open_engine(cli)?;
    let addr: SocketAddr = format!("{}:{}", a.host, a.port)
        .parse()
        .or_else(|_| {
            std::net::ToSocketAddrs::to_socket_addrs(&(a.host.as_str(), a.port))
                .map_err(|e| e.to_string())
                .and_then(|mut i| i.next().ok_or_else(|| "no address".into()))
        })
        .map_err(|e| Error::BadRequest(format!("invalid --host/--port: {e}")))?;
    // Load the language data while the server starts, so the first request need not wait,
    // and merge what imports by earlier commands left in many segments.
    let warm = engine.clone();
    match engine.sweep_uploads() {
        Ok(0) => {}
        Ok(n) => eprintln!("ta: removed {n} upload(s) left by an earlier run"),
        Err(e) => eprintln!("ta: warning: cannot clean the upload directory: {e}"),
    }
    std::thread::spawn(move || {
        if let Err(e) = warm.start_search_merges() {
            eprintln!("ta: warning: index merges could not start: {e}");
        }
        let mlp = warm.mlp();
        if !mlp.alive() {
            eprintln!(
                "ta: warning: language processing will refuse the texts that need what did not load: {}; {}",
                mlp.load_errors().join("; "),
                crate::engine::mlp::INSTALL_HINT
            );
        }
        for warning in mlp.load_warnings() {
            eprintln!("ta: warning: {warning}; {}", crate::engine::mlp::INSTALL_HINT);
        }
    });
    // Requests run their engine calls on the blocking pool. More threads than a few per core
    // only add memory (each keeps its own allocator heap) and switching: a burst of 256
    // clients took the server from 150 MB to 1.5 GB with tokio's default of 512, and with 4
    // threads per core the switching between them set the tail latency (regex tag_text, 16
    // clients on 2 cores: p99 3.9-4.3 ms at 4 per core, 2.3-2.9 ms at 2, the same 21-22k
    // requests/s). Long work runs as tasks on their own pool, not here.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads((cores * 2).max(4))
        .build()
        .map_err(Error::internal)?;
    rt.block_on(crate::server::serve(engine, &options, addr, |bound| {
        eprintln!("ta: serving http://{bound}/api/v1/ (Swagger: /api/v1/swagger/, ReDoc: /api/v1/redoc/)");
    }))
    .map_err(|e| Error::Internal(format!("cannot serve on {addr}: {e}")))?;
    Ok(None)
}

pub fn task(t: &Target, c: &TaskCmd) -> Result<Value> {
    match c {
        TaskCmd::List => t.request("GET", "/tasks/", None),
        TaskCmd::Show { id } => t.request("GET", &format!("/tasks/{id}/"), None),
        TaskCmd::Retry { id } => t.request("POST", &format!("/tasks/{id}/retry/"), Some(&json!({}))),
    }
}

pub fn completions(a: &CompletionArgs) -> Result<Option<Value>> {
    clap_complete::generate(a.shell, &mut Cli::command(), "ta", &mut std::io::stdout());
    Ok(None)
}

/// `ta man`: the manual page (roff), from the same command tree as `--help` and the
/// completions; the checked-in copy is `completions/ta.1`.
pub fn man() -> Result<Option<Value>> {
    clap_mangen::Man::new(Cli::command())
        .render(&mut std::io::stdout())
        .map_err(|e| Error::Internal(format!("cannot write the manual page: {e}")))?;
    Ok(None)
}

#[derive(Args, Debug)]
pub struct ApiArgs {
    /// HTTP method: GET, POST, PUT, PATCH or DELETE
    #[arg(required_unless_present = "list")]
    pub method: Option<String>,
    /// Path under the API root, with ids filled in, e.g. /projects/1/regex_taggers/
    #[arg(required_unless_present = "list")]
    pub path: Option<String>,
    /// Request body as JSON
    #[arg(long)]
    pub data: Option<String>,
    /// List every operation (method, path template, summary) instead
    #[arg(long)]
    pub list: bool,
}

/// `ta api METHOD PATH [--data JSON]`: any declared operation, locally or on the server.
pub fn api(t: &Target, a: &ApiArgs) -> Result<Option<Value>> {
    if a.list {
        let ops = crate::engine::operations::all()
            .iter()
            .map(|o| json!({"method": o.method.as_str(), "path": o.path, "summary": o.summary}))
            .collect();
        return Ok(Some(Value::Array(ops)));
    }
    let (method, path) = (a.method.as_deref().unwrap_or_default(), a.path.as_deref().unwrap_or_default());
    let body = match &a.data {
        Some(d) => Some(serde_json::from_str::<Value>(d).map_err(|e| Error::BadRequest(format!("--data is not JSON: {e}")))?),
        None => None,
    };
    let out = t.request(method, path, body.as_ref())?;
    Ok((!out.is_null()).then_some(out))
}
