//! `ta init`, `ta serve`, `ta task ...`, `ta completions ...`.
use super::{open_engine, Cli, Target};
use crate::engine::error::{Error, Result};
use clap::{Args, CommandFactory, Subcommand};
use serde_json::{json, Value};
use std::net::SocketAddr;

#[derive(Args, Debug)]
pub struct ServeArgs {
    #[arg(long, default_value = "127.0.0.1", env = "TA_HOST")]
    pub host: String,
    /// Port (0 picks a free one; the chosen address is printed)
    #[arg(long, default_value_t = 8000, env = "TA_PORT")]
    pub port: u16,
}

#[derive(Subcommand, Debug)]
pub enum TaskCmd {
    /// Tasks visible to you
    List,
    /// One task
    Show { id: i64 },
}

#[derive(Args, Debug)]
pub struct CompletionArgs {
    pub shell: clap_complete::Shell,
}

pub fn init(cli: &Cli) -> Result<Option<Value>> {
    let engine = open_engine(cli)?;
    Ok(Some(
        json!({"data_dir": engine.config.data_dir, "database": engine.config.data_dir.join("ta.sqlite3")}),
    ))
}

pub fn serve(cli: &Cli, a: &ServeArgs) -> Result<Option<Value>> {
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
    std::thread::spawn(move || {
        if let Err(e) = warm.start_search_merges() {
            eprintln!("ta: warning: index merges could not start: {e}");
        }
        warm.mlp().alive();
    });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Error::internal)?;
    rt.block_on(crate::server::serve(engine, addr, |bound| {
        eprintln!("ta: serving http://{bound}/api/v1/ (Swagger: /api/v1/swagger/, ReDoc: /api/v1/redoc/)");
    }))
    .map_err(|e| Error::Internal(format!("cannot serve on {addr}: {e}")))?;
    Ok(None)
}

pub fn task(t: &Target, c: &TaskCmd) -> Result<Value> {
    match c {
        TaskCmd::List => t.call("GET", "/tasks/", None, |e, ctx| e.list_tasks(ctx)),
        TaskCmd::Show { id } => t.call("GET", &format!("/tasks/{id}/"), None, |e, ctx| e.get_task(ctx, *id)),
    }
}

pub fn completions(a: &CompletionArgs) -> Result<Option<Value>> {
    clap_complete::generate(a.shell, &mut Cli::command(), "ta", &mut std::io::stdout());
    Ok(None)
}
