//! Shared helpers of the integration suites.
//!
//! - [`Server`]: a real `ta serve --port 0` on 127.0.0.1 with its own data directory.
//!   The bound port is read from the `ta: serving http://...` line on stderr, the helper
//!   waits until `/health` answers, and the process is killed when the value drops.
//!   Everything the server writes on stderr is kept (see [`Server::stderr`]).
//! - [`Resp`] and the request helpers on [`Server`]: a small blocking HTTP client that
//!   never follows redirects.
//! - [`ta`] / [`ta_env`]: run the `ta` binary (CLI) against a data directory with a
//!   clean, deterministic environment.
//! - [`normalize`]: replace the values that vary between runs (timestamps, tokens).

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// The admin password every test server and CLI run is started with.
pub const ADMIN_PASSWORD: &str = "admin-Pass-4711";

/// The `ta` binary under test.
pub fn ta_bin() -> &'static str {
    env!("CARGO_BIN_EXE_ta")
}

/// Environment variables that would leak the developer's setup into a test run.
const SCRUBBED_ENV: &[&str] = &[
    "TA_SERVER",
    "TA_TOKEN",
    "TA_DATA_DIR",
    "TA_ADMIN_PASSWORD",
    "TEXTA_ADMIN_PASSWORD",
    "TA_BASE_URL",
    "TA_PASSWORD",
    "TA_HOST",
    "TA_PORT",
    "TA_MAX_UPLOAD",
    "TA_MAX_BODY",
    "TA_SEARCH_URL",
    "TA_CONFIG_DIR",
];

/// A command for the `ta` binary with the scrubbed, deterministic environment: data in
/// `data_dir`, stored logins under `data_dir/config`, fast password hashing and the
/// test admin password.
pub fn ta_command(data_dir: &Path) -> Command {
    let mut cmd = Command::new(ta_bin());
    for k in SCRUBBED_ENV {
        cmd.env_remove(k);
    }
    cmd.env("TA_DATA_DIR", data_dir)
        .env("TA_CONFIG_DIR", data_dir.join("config"))
        .env("TA_PASSWORD_ITERATIONS", "1000")
        .env("TA_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .stdin(Stdio::null());
    cmd
}

// ---------------------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------------------

/// A running `ta serve`, killed (SIGKILL) on drop.
pub struct Server {
    child: Option<Child>,
    /// `http://127.0.0.1:PORT`
    pub origin: String,
    /// API root without trailing slash: `http://127.0.0.1:PORT/api/v1`
    pub base: String,
    pub data_dir: PathBuf,
    stderr: Arc<Mutex<String>>,
    http: reqwest::blocking::Client,
    _tmp: Option<tempfile::TempDir>,
}

impl Server {
    /// A server on a fresh, empty data directory.
    pub fn start() -> Server {
        Self::start_env(&[])
    }

    /// A fresh server with extra environment variables (e.g. `TA_MAX_UPLOAD`).
    pub fn start_env(env: &[(&str, &str)]) -> Server {
        let tmp = tempfile::tempdir().expect("temp dir");
        let mut s = Self::start_in(tmp.path(), env);
        s._tmp = Some(tmp);
        s
    }

    /// A server on an existing data directory (kept when the server drops).
    pub fn start_in(data_dir: &Path, env: &[(&str, &str)]) -> Server {
        let mut cmd = ta_command(data_dir);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .args(["serve", "--host", "127.0.0.1", "--port", "0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ta serve starts");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel::<u16>();
        let pipe = child.stderr.take().expect("stderr piped");
        let log = stderr.clone();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if let Some(port) = parse_port(&line) {
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(port);
                    }
                }
                let mut l = log.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        });
        let port = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(p) => p,
            Err(_) => {
                let _ = child.kill();
                panic!("ta serve printed no 'serving' line; stderr:\n{}", stderr.lock().unwrap());
            }
        };
        let origin = format!("http://127.0.0.1:{port}");
        let http = reqwest::blocking::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(120))
            .build()
            .expect("HTTP client");
        let s = Server {
            child: Some(child),
            base: format!("{origin}/api/v1"),
            origin,
            data_dir: data_dir.to_path_buf(),
            stderr,
            http,
            _tmp: None,
        };
        s.wait_healthy();
        s
    }

    fn wait_healthy(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(r) = self.http.get(format!("{}/health/", self.base)).send() {
                if r.status().as_u16() == 200 {
                    return;
                }
            }
            assert!(
                Instant::now() < deadline,
                "ta serve never answered /health; stderr:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Everything the server printed on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Kill the process with SIGKILL (no graceful shutdown) and wait for it.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The raw HTTP client (no redirects followed).
    pub fn client(&self) -> &reqwest::blocking::Client {
        &self.http
    }

    /// Start a request to `{base}{path}` with `Accept: application/json`.
    pub fn request(&self, method: &str, path: &str) -> reqwest::blocking::RequestBuilder {
        self.bare(method, path).header("Accept", "application/json")
    }

    /// Start a request to `{base}{path}` with no headers set (choose `Accept` yourself).
    pub fn bare(&self, method: &str, path: &str) -> reqwest::blocking::RequestBuilder {
        let m = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let url = if path.starts_with("http") {
            path.to_string()
        } else {
            format!("{}{path}", self.base)
        };
        self.http.request(m, url)
    }

    /// `method path` with an optional token and JSON body.
    pub fn call(&self, method: &str, path: &str, token: Option<&str>, body: Option<&Value>) -> Resp {
        let mut r = self.request(method, path);
        if let Some(t) = token {
            r = r.header("Authorization", format!("Token {t}"));
        }
        if let Some(b) = body {
            r = r.json(b);
        }
        Resp::from(r.send().unwrap_or_else(|e| panic!("{method} {path}: {e}")))
    }

    pub fn get(&self, path: &str, token: Option<&str>) -> Resp {
        self.call("GET", path, token, None)
    }
    pub fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Resp {
        self.call("POST", path, token, Some(body))
    }
    pub fn patch(&self, path: &str, token: Option<&str>, body: &Value) -> Resp {
        self.call("PATCH", path, token, Some(body))
    }
    pub fn put(&self, path: &str, token: Option<&str>, body: &Value) -> Resp {
        self.call("PUT", path, token, Some(body))
    }
    pub fn delete(&self, path: &str, token: Option<&str>) -> Resp {
        self.call("DELETE", path, token, None)
    }

    /// Log in as `admin` and return the token.
    pub fn admin_token(&self) -> String {
        self.login("admin", ADMIN_PASSWORD)
    }

    /// Log in and return the token (panics unless 200).
    pub fn login(&self, username: &str, password: &str) -> String {
        let r = self.post(
            "/rest-auth/login/",
            None,
            &serde_json::json!({"username": username, "password": password}),
        );
        assert_eq!(r.status, 200, "login {username}: {}", r.text);
        r.json()["key"].as_str().expect("key").to_string()
    }

    /// Register a user with password [`USER_PASSWORD`] and return the token.
    pub fn register(&self, username: &str) -> String {
        let r = self.post(
            "/rest-auth/registration/",
            None,
            &serde_json::json!({"username": username, "email": format!("{username}@example.com"),
                                 "password1": USER_PASSWORD, "password2": USER_PASSWORD}),
        );
        assert_eq!(r.status, 201, "register {username}: {}", r.text);
        r.json()["key"].as_str().expect("key").to_string()
    }

    /// The caller's user object (`GET /rest-auth/user/`).
    pub fn me(&self, token: &str) -> Value {
        let r = self.get("/rest-auth/user/", Some(token));
        assert_eq!(r.status, 200, "{}", r.text);
        r.json()
    }

    /// Create a project as `token` (a superuser) with the given member user URLs.
    pub fn create_project(&self, token: &str, title: &str, users: &[&str]) -> Value {
        let r = self.post("/projects/", Some(token), &serde_json::json!({"title": title, "users": users}));
        assert_eq!(r.status, 201, "create project: {}", r.text);
        r.json()
    }

    /// Imports JSONL `content` into `index` of project `pk` and waits for the import.
    pub fn import_jsonl(&self, token: &str, pk: i64, index: &str, content: &str) {
        let form = reqwest::blocking::multipart::Form::new()
            .text("description", "imp")
            .text("index", index.to_string())
            .part(
                "file",
                reqwest::blocking::multipart::Part::text(content.to_string()).file_name("d.jsonl"),
            );
        let r = Resp::from(
            self.request("POST", &format!("/projects/{pk}/dataset_imports/"))
                .header("Authorization", format!("Token {token}"))
                .multipart(form)
                .send()
                .unwrap(),
        );
        let id = r.ok(201)["id"].as_i64().unwrap();
        self.settle(token, &format!("/projects/{pk}/dataset_imports/{id}/"));
    }

    /// Posts a multipart form with one file part `file` (and text `fields`) as `token`.
    pub fn upload(&self, path: &str, token: &str, fields: &[(&str, &str)], file: Vec<u8>, file_name: &str) -> Resp {
        let mut form = reqwest::blocking::multipart::Form::new();
        for (k, v) in fields {
            form = form.text(k.to_string(), v.to_string());
        }
        let form = form.part(
            "file",
            reqwest::blocking::multipart::Part::bytes(file).file_name(file_name.to_string()),
        );
        Resp::from(
            self.request("POST", path)
                .header("Authorization", format!("Token {token}"))
                .multipart(form)
                .send()
                .unwrap(),
        )
    }

    /// Polls a resource until its task has ended (two minutes at most); returns the resource.
    pub fn settle(&self, token: &str, path: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let v = self.get(path, Some(token)).ok(200);
            if matches!(v["task"]["status"].as_str(), Some("completed" | "failed")) {
                // An answer reads the resource, then its task: the one that first shows the
                // task ended may hold the resource as it was just before the run stored its
                // results. The next answer holds them.
                return self.get(path, Some(token)).ok(200);
            }
            assert!(Instant::now() < deadline, "task did not finish: {v}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The password [`Server::register`] gives new users.
pub const USER_PASSWORD: &str = "Quiet-Harbor-93";

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

fn parse_port(line: &str) -> Option<u16> {
    let rest = &line[line.find("serving http://")? + "serving http://".len()..];
    let hostport = rest.split('/').next()?;
    hostport.rsplit(':').next()?.parse().ok()
}

// ---------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------

/// A fully read HTTP response.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub bytes: Vec<u8>,
    pub text: String,
}

impl From<reqwest::blocking::Response> for Resp {
    fn from(r: reqwest::blocking::Response) -> Resp {
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let bytes = r.bytes().map(|b| b.to_vec()).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Resp {
            status,
            headers,
            bytes,
            text,
        }
    }
}

impl Resp {
    /// The body as JSON (panics with the body text when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes).unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", self.text))
    }

    /// A response header as text ("" when absent).
    pub fn header(&self, name: &str) -> String {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_string()
    }

    /// Assert the status and the whole JSON body.
    #[track_caller]
    pub fn expect(&self, status: u16, body: Value) {
        assert_eq!(self.status, status, "unexpected status; body: {}", self.text);
        assert_eq!(self.json(), body, "unexpected body");
    }

    /// Assert the status and return the JSON body.
    #[track_caller]
    pub fn ok(&self, status: u16) -> Value {
        assert_eq!(self.status, status, "unexpected status; body: {}", self.text);
        self.json()
    }
}

// ---------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------

/// What a `ta` run printed and its exit code.
#[derive(Debug)]
pub struct CliOut {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl CliOut {
    /// Stdout as JSON (panics with the whole output when it is not).
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }

    /// Assert exit 0 and return stdout as JSON.
    #[track_caller]
    pub fn ok(&self) -> Value {
        assert_eq!(self.code, 0, "ta failed: {self:?}");
        self.json()
    }

    /// Assert a failure: this exit code, nothing on stdout and exactly one line on stderr
    /// that starts with `ta: error: `. Returns that line.
    #[track_caller]
    pub fn fails(&self, code: i32) -> String {
        assert_eq!(self.code, code, "unexpected exit code: {self:?}");
        assert_eq!(self.stdout, "", "stdout must be empty on error: {self:?}");
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "error must be one line on stderr: {self:?}");
        assert!(lines[0].starts_with("ta: error: "), "error line prefix: {self:?}");
        lines[0].to_string()
    }
}

/// `ta project create` (project 1 of a fresh data directory or server) and `ta import` of
/// the JSONL `file` into `index` there, with the extra environment `env` (a server's).
pub fn cli_project_with_index(data_dir: &Path, env: &[(&str, Option<&str>)], index: &str, file: &Path) {
    ta_env(data_dir, &["project", "create", "--title", "p", "--json"], env).ok();
    let file = file.to_str().unwrap();
    ta_env(
        data_dir,
        &["import", "--project", "1", "--index", index, "--description", "d", file, "--json"],
        env,
    )
    .ok();
}

/// Run `ta args...` against `data_dir` (see [`ta_command`] for the environment).
pub fn ta(data_dir: &Path, args: &[&str]) -> CliOut {
    ta_env(data_dir, args, &[])
}

/// [`ta`] with extra environment variables; a value of `None` removes the variable.
pub fn ta_env(data_dir: &Path, args: &[&str], env: &[(&str, Option<&str>)]) -> CliOut {
    let mut cmd = ta_command(data_dir);
    for (k, v) in env {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let out = cmd.args(args).output().expect("ta runs");
    CliOut {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

// ---------------------------------------------------------------------------------------
// Normalisation
// ---------------------------------------------------------------------------------------

/// True for ta's timestamp format: UTC, six-digit microseconds, `Z` suffix.
pub fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 27 {
        return false;
    }
    let digits = [0..4, 5..7, 8..10, 11..13, 14..16, 17..19, 20..26];
    digits.iter().all(|r| b[r.clone()].iter().all(u8::is_ascii_digit))
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'.'
        && b[26] == b'Z'
}

/// True for a token key: 40 lower-case hex characters.
pub fn is_token(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
}

/// A plot link's key (`?key=` and 32 hex digits, `plot_links.rs`; each data directory has
/// its own) shown as `?key=<key>`.
pub fn unkeyed(s: &str) -> Option<String> {
    let (link, key) = s.split_once("?key=")?;
    (key.len() == 32 && key.bytes().all(|b| b.is_ascii_hexdigit())).then(|| format!("{link}?key=<key>"))
}

/// Replace timestamps by `"<ts>"`, token keys by `"<token>"` and plot keys by `<key>`,
/// recursively.
pub fn normalize(v: &Value) -> Value {
    match v {
        Value::String(s) if is_timestamp(s) => Value::String("<ts>".into()),
        Value::String(s) if is_token(s) => Value::String("<token>".into()),
        Value::String(s) if unkeyed(s).is_some() => Value::String(unkeyed(s).unwrap_or_default()),
        Value::Array(a) => Value::Array(a.iter().map(normalize).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), normalize(v))).collect()),
        other => other.clone(),
    }
}

/// The answers of a CLI run locally and of the same run against the server at `base`,
/// asserted equal once timestamps and tokens are normalised and local links point at `base`;
/// returns them (normalised).
#[track_caller]
pub fn same_both_ways(local: &[Value], remote: &[Value], base: &str) -> Vec<Value> {
    let local: Vec<Value> = (local.iter())
        .map(|v| replace_in(&normalize(v), "http://127.0.0.1:8000/api/v1", base))
        .collect();
    let remote: Vec<Value> = remote.iter().map(normalize).collect();
    assert_eq!(local, remote);
    local
}

/// Replace every occurrence of `from` in the strings of `v` by `to`.
pub fn replace_in(v: &Value, from: &str, to: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace(from, to)),
        Value::Array(a) => Value::Array(a.iter().map(|x| replace_in(x, from, to)).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), replace_in(x, from, to))).collect()),
        other => other.clone(),
    }
}

/// The `resources` links of a project: the reference's, less those whose resources ta does
/// not have yet (a link that answers 404 is not handed out).
pub fn project_resources(base: &str, id: i64) -> Value {
    let p = format!("{base}/projects/{id}");
    serde_json::json!({
        "lexicons": format!("{p}/lexicons/"),
        "reindexer": format!("{p}/reindexer/"),
        "dataset_imports": format!("{p}/dataset_imports/"),
        "searches": format!("{p}/searches/"),
        "scroll": format!("{p}/scroll/"),
        "clustering": format!("{p}/clustering/"),
        "embeddings": format!("{p}/embeddings/"),
        "taggers": format!("{p}/taggers/"),
        "tagger_groups": format!("{p}/tagger_groups/"),
        "torchtaggers": format!("{p}/torchtaggers/"),
        "regex_taggers": format!("{p}/regex_taggers/"),
        "anonymizers": format!("{p}/anonymizers/"),
        "regex_tagger_groups": format!("{p}/regex_tagger_groups/"),
        "mlp_index": format!("{p}/mlp_index/"),
        "mlp_texts": format!("{base}/mlp/texts/"),
        "mlp_docs": format!("{base}/mlp/docs/"),
    })
}

/// The expected project body.
pub fn project_body(base: &str, id: i64, title: &str, author: &str, user_ids: &[i64], indices: &[&str]) -> Value {
    serde_json::json!({
        "url": format!("{base}/projects/{id}/"),
        "id": id,
        "title": title,
        "author_username": author,
        "users": user_ids.iter().map(|u| format!("{base}/users/{u}/")).collect::<Vec<_>>(),
        "indices": indices,
        "resources": project_resources(base, id),
    })
}

/// Run `ta args...` with `input` on stdin.
pub fn ta_piped(data_dir: &Path, args: &[&str], input: &str) -> CliOut {
    use std::io::Write;
    let mut child = ta_command(data_dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ta runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("input written");
    let out = child.wait_with_output().expect("ta ends");
    CliOut {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Run `ta args...` with `input` on stdin; returns stdout (panics unless it exits 0).
pub fn ta_stdin(data_dir: &Path, args: &[&str], input: &str) -> String {
    let out = ta_piped(data_dir, args, input);
    assert_eq!(out.code, 0, "ta {args:?}: {}", out.stderr);
    out.stdout
}
