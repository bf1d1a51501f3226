//! `ta register`, `ta login`, `ta logout`, `ta user ...`, and the stored login
//! (server + token in a 0600 file under the platform config dir).
use super::{client::Client, open_engine, Cli, Target};
use crate::engine::error::{Error, Result};
use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct RegisterArgs {
    /// User name
    #[arg(long)]
    pub username: String,
    /// E-mail address
    #[arg(long, default_value = "")]
    pub email: String,
    /// Password [default: read from TA_PASSWORD]
    #[arg(long, env = "TA_PASSWORD", hide_env_values = true)]
    pub password: String,
}

#[derive(Args, Debug)]
pub struct LoginArgs {
    /// User name
    #[arg(long)]
    pub username: String,
    /// Password [default: read from TA_PASSWORD]
    #[arg(long, env = "TA_PASSWORD", hide_env_values = true)]
    pub password: String,
}

#[derive(Subcommand, Debug)]
pub enum UserCmd {
    /// List users (superusers see everyone)
    List,
    /// Show one user
    Show {
        /// User id
        id: i64,
    },
    /// Grant or revoke superuser status (superusers only)
    Update {
        /// Id of the resource
        id: i64,
        /// Grant (true) or revoke (false) superuser status
        #[arg(long)]
        superuser: bool,
    },
    /// Delete a user (superusers only)
    Delete {
        /// User id
        id: i64,
    },
}

/// What `ta login --server` remembers.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct StoredLogin {
    pub server: String,
    pub token: String,
}

fn login_file() -> Option<PathBuf> {
    std::env::var_os("TA_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| dirs::config_dir().map(|d| d.join("ta")))
        .map(|d| d.join("login.json"))
}

pub fn stored_login() -> Option<StoredLogin> {
    serde_json::from_slice(&std::fs::read(login_file()?).ok()?).ok()
}

fn store_login(login: Option<&StoredLogin>) -> Result<()> {
    let Some(path) = login_file() else {
        return Ok(());
    };
    match login {
        None => {
            let _ = std::fs::remove_file(&path);
            Ok(())
        }
        Some(l) => {
            let dir = path.parent().expect("login file has a directory");
            std::fs::create_dir_all(dir).map_err(Error::internal)?;
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create(true).truncate(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
            let mut f = opts.open(&path).map_err(Error::internal)?;
            std::io::Write::write_all(&mut f, serde_json::to_string_pretty(l).map_err(Error::internal)?.as_bytes()).map_err(Error::internal)
        }
    }
}

pub fn register(cli: &Cli, a: &RegisterArgs) -> Result<Option<Value>> {
    let body = json!({"username": a.username, "email": a.email, "password1": a.password, "password2": a.password});
    match &cli.server {
        Some(s) => Client::new(s, None).send("POST", "/rest-auth/registration/", Some(&body)).map(Some),
        None => Ok(Some(
            serde_json::to_value(open_engine(cli)?.register(&body)?.1).map_err(Error::internal)?,
        )),
    }
}

pub fn login(cli: &Cli, a: &LoginArgs) -> Result<Option<Value>> {
    let body = json!({"username": a.username, "password": a.password});
    match &cli.server {
        Some(s) => {
            let out = Client::new(s, None).send("POST", "/rest-auth/login/", Some(&body))?;
            let token = out.get("key").and_then(Value::as_str).unwrap_or_default().to_string();
            store_login(Some(&StoredLogin { server: s.clone(), token }))?;
            Ok(Some(out))
        }
        None => Ok(Some(
            serde_json::to_value(open_engine(cli)?.login(&body)?.1).map_err(Error::internal)?,
        )),
    }
}

pub fn logout(t: &Target) -> Result<Option<Value>> {
    let out = t.request("POST", "/rest-auth/logout/", Some(&json!({})))?;
    if let Target::Remote(_) = t {
        store_login(None)?;
    }
    Ok(Some(out))
}

pub fn user(t: &Target, c: &UserCmd) -> Result<Option<Value>> {
    match c {
        UserCmd::List => t.request("GET", "/users/", None),
        UserCmd::Show { id } => t.request("GET", &format!("/users/{id}/"), None),
        UserCmd::Update { id, superuser } => {
            let body = json!({"is_superuser": superuser});
            t.request("PATCH", &format!("/users/{id}/"), Some(&body))
        }
        UserCmd::Delete { id } => {
            t.request("DELETE", &format!("/users/{id}/"), None)?;
            return Ok(None);
        }
    }
    .map(Some)
}
