//! CLI tests of the `ta` binary.
//!
//! - Every command in local mode (a data directory, no server), reading the JSON that
//!   `ta` prints when stdout is not a terminal (and with `--json`).
//! - Errors: exactly one `ta: error: ...` line on stderr, nothing on stdout, and the exit
//!   codes 3 (400), 4 (403), 5 (404), 6 (413), 1 (other), 2 (usage, from clap).
//! - `--as USER`, `TA_BASE_URL`, the default admin password warning, remote mode
//!   (`--server`, `--token`, the login stored under `TA_CONFIG_DIR`).
//! - Parity: one command sequence run locally and against `ta serve` on an equally fresh
//!   data directory prints the same JSON once base URLs, timestamps and tokens are
//!   normalised.
//! - `ta completions bash|zsh|fish` equals the files checked in under `completions/`.
use crate::common;

use common::{normalize, replace_in, ta, ta_env, CliOut, Server, ADMIN_PASSWORD, USER_PASSWORD};
use serde_json::{json, Value};
use std::path::Path;

/// Local-mode base URL used for links (the default).
const LOCAL_BASE: &str = "http://127.0.0.1:8000/api/v1";

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// `ta register` a user with [`USER_PASSWORD`] in local mode; returns the token.
fn register(dir: &Path, name: &str) -> String {
    let out = ta(
        dir,
        &[
            "register",
            "--username",
            name,
            "--email",
            &format!("{name}@example.com"),
            "--password",
            USER_PASSWORD,
        ],
    )
    .ok();
    out["key"].as_str().expect("key").to_string()
}

fn user_url(base: &str, id: i64) -> String {
    format!("{base}/users/{id}/")
}

// ---------------------------------------------------------------------------------------
// Local mode
// ---------------------------------------------------------------------------------------

#[test]
fn init_and_admin_password_warning() {
    let d = tmp();
    // Without TA_ADMIN_PASSWORD, the default 1234 is used with a warning on stderr.
    let out = ta_env(d.path(), &["init"], &[("TA_ADMIN_PASSWORD", None)]);
    assert_eq!(out.code, 0, "{out:?}");
    let db = d.path().join("ta.sqlite3");
    assert_eq!(out.json(), json!({"data_dir": d.path(), "database": db}));
    assert!(
        out.stderr.contains("1234") && out.stderr.contains("TA_ADMIN_PASSWORD"),
        "warning: {out:?}"
    );
    assert!(db.exists());
    // The second start finds admin and says nothing.
    let out = ta_env(d.path(), &["init"], &[("TA_ADMIN_PASSWORD", None)]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{out:?}");
    // The admin password is 1234, and a later TA_ADMIN_PASSWORD does not reset it.
    assert!(common::is_token(
        ta(d.path(), &["login", "--username", "admin", "--password", "1234"]).ok()["key"]
            .as_str()
            .unwrap()
    ));
    ta(d.path(), &["login", "--username", "admin", "--password", ADMIN_PASSWORD]).fails(3);

    // With TA_ADMIN_PASSWORD there is no warning.
    let d2 = tmp();
    let out = ta(d2.path(), &["init"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{out:?}");
    ta(d2.path(), &["login", "--username", "admin", "--password", ADMIN_PASSWORD]).ok();
}

#[test]
fn output_is_one_json_line_when_piped() {
    let d = tmp();
    let plain = ta(d.path(), &["user", "list"]);
    let flagged = ta(d.path(), &["--json", "user", "list"]);
    assert_eq!(plain.code, 0, "{plain:?}");
    assert_eq!(plain.stdout.lines().count(), 1, "one line: {plain:?}");
    assert!(plain.stdout.ends_with('\n'));
    assert_eq!(plain.json(), flagged.json());
}

#[test]
fn health_command() {
    let d = tmp();
    let h = ta(d.path(), &["health"]).ok();
    for k in [
        "elastic",
        "mlp",
        "version",
        "disk",
        "memory",
        "cpu",
        "gpu",
        "active_tasks",
        "services",
        "host",
        "toolkit",
    ] {
        assert!(h.get(k).is_some(), "health has {k}: {h}");
    }
    assert_eq!(h["disk"]["unit"], "GB");
    assert_eq!(h["toolkit"]["active_tasks"], 0);
}

#[test]
fn register_login_logout() {
    let d = tmp();
    let key = register(d.path(), "alice");
    assert!(common::is_token(&key));
    // Login returns the same key; the password may come from TA_PASSWORD.
    let out = ta(d.path(), &["login", "--username", "alice", "--password", USER_PASSWORD]).ok();
    assert_eq!(out, json!({"key": key}));
    let out = ta_env(d.path(), &["login", "--username", "alice"], &[("TA_PASSWORD", Some(USER_PASSWORD))]).ok();
    assert_eq!(out, json!({"key": key}));

    // Errors are one line with the DRF body, exit 3.
    let line = ta(d.path(), &["register", "--username", "alice", "--password", USER_PASSWORD]).fails(3);
    assert_eq!(
        line,
        r#"ta: error: invalid input: {"username":["A user with that username already exists."]}"#
    );
    let line = ta(d.path(), &["register", "--username", "bob", "--password", "abc"]).fails(3);
    assert_eq!(
        line,
        r#"ta: error: invalid input: {"password1":["Password must be a minimum of 6 characters."]}"#
    );
    let line = ta(d.path(), &["login", "--username", "alice", "--password", "wrong-Pass-9"]).fails(3);
    assert_eq!(
        line,
        r#"ta: error: invalid input: {"non_field_errors":["Unable to log in with provided credentials."]}"#
    );

    // Logout as alice deletes her token; the next login issues a new one.
    assert_eq!(
        ta(d.path(), &["--as", "alice", "logout"]).ok(),
        json!({"detail": "Successfully logged out."})
    );
    let new = ta(d.path(), &["login", "--username", "alice", "--password", USER_PASSWORD]).ok();
    assert_ne!(new["key"], json!(key));
}

#[test]
fn user_commands() {
    let d = tmp();
    let dir = d.path();
    register(dir, "alice");
    register(dir, "bob");
    let b = LOCAL_BASE;
    let user = |id: i64, name: &str, email: &str, su: bool, logged_in: bool| {
        json!({"url": user_url(b, id), "id": id, "username": name, "email": email, "date_joined": "<ts>",
               "is_superuser": su, "last_login": if logged_in { json!("<ts>") } else { Value::Null }})
    };
    // Registration sets last_login; local commands acting `--as` a user do not.
    let list = normalize(&ta(dir, &["user", "list"]).ok());
    assert_eq!(
        list,
        json!([
            user(3, "bob", "bob@example.com", false, true),
            user(2, "alice", "alice@example.com", false, true),
            user(1, "admin", "", true, false)
        ])
    );
    assert_eq!(
        normalize(&ta(dir, &["--as", "alice", "user", "list"]).ok()),
        json!([user(2, "alice", "alice@example.com", false, true)])
    );
    assert_eq!(
        normalize(&ta(dir, &["user", "show", "2"]).ok()),
        user(2, "alice", "alice@example.com", false, true)
    );
    assert_eq!(ta(dir, &["user", "show", "99"]).fails(5), "ta: error: Not found.");
    assert_eq!(ta(dir, &["--as", "alice", "user", "show", "1"]).fails(5), "ta: error: Not found.");
    assert_eq!(
        ta(dir, &["--as", "nobody", "user", "list"]).fails(5),
        r#"ta: error: No user named "nobody"."#
    );

    let forbidden = "ta: error: You do not have permission to perform this action.";
    assert_eq!(ta(dir, &["user", "update", "1", "--superuser"]).fails(4), forbidden);
    assert_eq!(
        ta(dir, &["--as", "alice", "user", "update", "3", "--superuser"]).fails(4),
        forbidden
    );
    assert_eq!(ta(dir, &["user", "delete", "1"]).fails(4), forbidden);
    assert_eq!(ta(dir, &["--as", "alice", "user", "delete", "3"]).fails(4), forbidden);

    assert_eq!(
        normalize(&ta(dir, &["user", "update", "2", "--superuser"]).ok()),
        user(2, "alice", "alice@example.com", true, true)
    );
    assert_eq!(ta(dir, &["--as", "alice", "user", "list"]).ok().as_array().unwrap().len(), 3);
    assert_eq!(ta(dir, &["user", "update", "2"]).ok()["is_superuser"], false);

    let out = ta(dir, &["user", "delete", "3"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");
    ta(dir, &["user", "show", "3"]).fails(5);
}

#[test]
fn project_commands() {
    let d = tmp();
    let dir = d.path();
    register(dir, "alice");
    register(dir, "carol");
    let base = "http://ta.example:9000/api/v1";
    let env = [("TA_BASE_URL", Some(base))];
    let run = |args: &[&str]| ta_env(dir, args, &env);
    let body = |id, title: &str, users: &[i64]| common::project_body(base, id, title, "admin", users, &[]);

    // Links use TA_BASE_URL.
    let p = run(&["project", "create", "--title", "Alpha", "--user", "admin", "--user", "alice"]).ok();
    assert_eq!(p, body(1, "Alpha", &[1, 2]));
    assert_eq!(run(&["project", "create", "--title", "Beta"]).ok(), body(2, "Beta", &[]));
    assert_eq!(
        run(&["project", "list"]).ok(),
        json!([body(1, "Alpha", &[1, 2]), body(2, "Beta", &[])])
    );
    assert_eq!(run(&["project", "list", "--title", "alp"]).ok(), json!([body(1, "Alpha", &[1, 2])]));
    assert_eq!(run(&["--as", "alice", "project", "list"]).ok(), json!([body(1, "Alpha", &[1, 2])]));
    assert_eq!(run(&["--as", "carol", "project", "list"]).ok(), json!([]));
    assert_eq!(run(&["project", "show", "1"]).ok(), body(1, "Alpha", &[1, 2]));
    assert_eq!(run(&["--as", "alice", "project", "show", "1"]).ok(), body(1, "Alpha", &[1, 2]));
    assert_eq!(run(&["project", "indices", "1"]).ok(), json!({"indices": []}));

    // Update changes only what is given.
    assert_eq!(
        run(&["project", "update", "1", "--title", "Alpha 2"]).ok(),
        body(1, "Alpha 2", &[1, 2])
    );
    assert_eq!(run(&["project", "update", "1", "--user", "carol"]).ok(), body(1, "Alpha 2", &[3]));
    assert_eq!(
        run(&["project", "update", "1", "--user", "alice", "--user", "admin"]).ok(),
        body(1, "Alpha 2", &[1, 2])
    );

    // Errors.
    let line = run(&["project", "create"]).fails(3);
    assert_eq!(line, r#"ta: error: invalid input: {"title":["This field is required."]}"#);
    let line = run(&["project", "create", "--title", "X", "--index", "missing"]).fails(3);
    assert_eq!(
        line,
        r#"ta: error: invalid input: {"indices":["Indices in ['missing'] do not match with indices available in Elasticsearch!"]}"#
    );
    assert_eq!(
        run(&["project", "create", "--title", "X", "--user", "ghost"]).fails(5),
        r#"ta: error: No user named "ghost"."#
    );
    assert_eq!(
        run(&["--as", "alice", "project", "create", "--title", "X"]).fails(4),
        "ta: error: You do not have permission to perform this action."
    );
    assert_eq!(
        run(&["--as", "alice", "project", "update", "1", "--title", "X"]).fails(4),
        "ta: error: Insufficient permissions for this project."
    );
    assert_eq!(
        run(&["--as", "alice", "project", "delete", "1"]).fails(4),
        "ta: error: Insufficient permissions for this project."
    );
    assert_eq!(run(&["--as", "carol", "project", "show", "1"]).fails(5), "ta: error: Not found.");
    assert_eq!(run(&["project", "show", "99"]).fails(5), "ta: error: Not found.");

    // Delete prints nothing.
    let out = run(&["project", "delete", "2"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");
    run(&["project", "show", "2"]).fails(5);
    run(&["project", "delete", "2"]).fails(5);
}

#[test]
fn task_commands() {
    let d = tmp();
    assert_eq!(ta(d.path(), &["task", "list"]).ok(), json!([]));
    assert_eq!(ta(d.path(), &["task", "show", "1"]).fails(5), "ta: error: Not found.");
}

#[test]
fn usage_errors_exit_2() {
    let d = tmp();
    for args in [&["project", "show", "abc"][..], &["no-such-command"], &["user", "update"]] {
        let out = ta(d.path(), args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert_eq!(out.stdout, "");
    }
    let out = ta(d.path(), &["--help"]);
    assert_eq!(out.code, 0);
    for cmd in [
        "init",
        "serve",
        "health",
        "register",
        "login",
        "logout",
        "user",
        "project",
        "task",
        "completions",
    ] {
        assert!(out.stdout.contains(cmd), "--help lists {cmd}");
    }
}

// ---------------------------------------------------------------------------------------
// Remote mode
// ---------------------------------------------------------------------------------------

#[test]
fn remote_login_is_stored_and_used() {
    let s = Server::start();
    let d = tmp();
    let dir = d.path();
    let login_file = dir.join("config").join("login.json");

    let key = ta(
        dir,
        &["--server", &s.origin, "login", "--username", "admin", "--password", ADMIN_PASSWORD],
    )
    .ok()["key"]
        .as_str()
        .unwrap()
        .to_string();
    let stored: Value = serde_json::from_slice(&std::fs::read(&login_file).expect("login stored")).unwrap();
    assert_eq!(stored, json!({"server": s.origin, "token": key}));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&login_file).unwrap().permissions().mode() & 0o777,
            0o600,
            "login file is private"
        );
    }
    // Without --server, commands go to the stored server (its project, not local state).
    s.create_project(&key, "Remote only", &[]);
    assert_eq!(
        ta(dir, &["project", "list"]).ok(),
        json!([common::project_body(&s.base, 1, "Remote only", "admin", &[], &[])])
    );
    // `/api/v1` in the server address is optional.
    assert_eq!(ta(dir, &["--server", &s.base, "project", "show", "1"]).ok()["title"], "Remote only");

    // Remote errors map to the same exit codes.
    assert_eq!(ta(dir, &["project", "show", "9"]).fails(5), "ta: error: Not found.");
    assert_eq!(
        ta(dir, &["--token", "0000000000000000000000000000000000000000", "project", "list"]).fails(4),
        "ta: error: Invalid token."
    );
    let line = ta(
        dir,
        &["--server", &s.origin, "register", "--username", "x y", "--password", USER_PASSWORD],
    )
    .fails(3);
    assert!(line.starts_with("ta: error: invalid input: {\"username\""), "{line}");

    // Logout deletes the token on the server and forgets the stored login.
    assert_eq!(ta(dir, &["logout"]).ok(), json!({"detail": "Successfully logged out."}));
    assert!(!login_file.exists());
    s.get("/projects/", Some(&key)).expect(403, json!({"detail": "Invalid token."}));
    // Back to local mode: the local data dir has no projects.
    assert_eq!(ta(dir, &["project", "list"]).ok(), json!([]));
}

#[test]
fn remote_failures() {
    let s = Server::start_env(&[("TA_MAX_UPLOAD", "1000")]);
    let d = tmp();
    let big = "p".repeat(2000);
    let line = ta(
        d.path(),
        &["--server", &s.origin, "register", "--username", "big", "--password", &big],
    )
    .fails(6);
    assert_eq!(line, "ta: error: Request body exceeds the upload limit of 1000 bytes.");
    // Nothing listens on port 9 of localhost: exit 1, one line.
    ta(d.path(), &["--server", "http://127.0.0.1:9", "--token", "x", "project", "list"]).fails(1);
}

// ---------------------------------------------------------------------------------------
// Parity: local and remote print the same JSON
// ---------------------------------------------------------------------------------------

/// Runs one CLI step either locally or against a server.
trait Mode {
    /// Run as admin (or as an anonymous caller for register/login).
    fn admin(&self, args: &[&str]) -> CliOut;
    /// Run as the user `name` whose token is `token`.
    fn as_user(&self, name: &str, token: &str, args: &[&str]) -> CliOut;
    /// The base URL links are built from.
    fn base(&self) -> String;
}

struct Local {
    dir: tempfile::TempDir,
}

impl Mode for Local {
    fn admin(&self, args: &[&str]) -> CliOut {
        ta(self.dir.path(), args)
    }
    fn as_user(&self, name: &str, _token: &str, args: &[&str]) -> CliOut {
        let mut a = vec!["--as", name];
        a.extend_from_slice(args);
        ta(self.dir.path(), &a)
    }
    fn base(&self) -> String {
        LOCAL_BASE.into()
    }
}

struct Remote {
    server: Server,
    dir: tempfile::TempDir,
}

impl Mode for Remote {
    fn admin(&self, args: &[&str]) -> CliOut {
        let mut a = vec!["--server", self.server.origin.as_str()];
        a.extend_from_slice(args);
        ta(self.dir.path(), &a)
    }
    fn as_user(&self, _name: &str, token: &str, args: &[&str]) -> CliOut {
        let mut a = vec!["--server", self.server.origin.as_str(), "--token", token];
        a.extend_from_slice(args);
        ta(self.dir.path(), &a)
    }
    fn base(&self) -> String {
        self.server.base.clone()
    }
}

/// The parity sequence; returns each step's (exit code, normalised JSON or stdout).
fn parity_sequence(m: &dyn Mode) -> Vec<(String, i32, Value)> {
    let mut out = Vec::new();
    let base = m.base();
    let mut record = |label: &str, r: CliOut| -> Value {
        let v = if r.stdout.trim().is_empty() { Value::Null } else { r.json() };
        let shown = normalize(&replace_in(&v, &base, "{base}"));
        out.push((label.to_string(), r.code, shown));
        v
    };
    let key = record(
        "register",
        m.admin(&[
            "register",
            "--username",
            "alice",
            "--email",
            "alice@example.com",
            "--password",
            USER_PASSWORD,
        ]),
    );
    let alice = key["key"].as_str().unwrap_or("").to_string();
    record(
        "login alice",
        m.admin(&["login", "--username", "alice", "--password", USER_PASSWORD]),
    );
    record(
        "login admin",
        m.admin(&["login", "--username", "admin", "--password", ADMIN_PASSWORD]),
    );
    record(
        "create",
        m.admin(&["project", "create", "--title", "Parity", "--user", "admin", "--user", "alice"]),
    );
    record("create 2", m.admin(&["project", "create", "--title", "Second"]));
    record("list", m.admin(&["project", "list"]));
    record("list filtered", m.admin(&["project", "list", "--title", "SEC"]));
    record("show", m.admin(&["project", "show", "1"]));
    record("update", m.admin(&["project", "update", "1", "--title", "Parity 2"]));
    record("indices", m.admin(&["project", "indices", "1"]));
    record("alice list", m.as_user("alice", &alice, &["project", "list"]));
    record(
        "alice update",
        m.as_user("alice", &alice, &["project", "update", "1", "--title", "x"]),
    );
    record("alice show 2", m.as_user("alice", &alice, &["project", "show", "2"]));
    record("alice users", m.as_user("alice", &alice, &["user", "list"]));
    record("users", m.admin(&["user", "list"]));
    record("user show", m.admin(&["user", "show", "2"]));
    record("user update", m.admin(&["user", "update", "2", "--superuser"]));
    record("user update 1", m.admin(&["user", "update", "1"]));
    record("tasks", m.admin(&["task", "list"]));
    record("task show", m.admin(&["task", "show", "1"]));
    record("delete", m.admin(&["project", "delete", "2"]));
    record("show deleted", m.admin(&["project", "show", "2"]));
    record("alice logout", m.as_user("alice", &alice, &["logout"]));
    out
}

#[test]
fn local_and_remote_parity() {
    let local = Local { dir: tmp() };
    let remote = Remote {
        server: Server::start(),
        dir: tmp(),
    };
    let l = parity_sequence(&local);
    let r = parity_sequence(&remote);
    let mut diffs = Vec::new();
    for (a, b) in l.iter().zip(&r) {
        if a != b {
            diffs.push(format!("{}:\n  local  {} {}\n  remote {} {}", a.0, a.1, a.2, b.1, b.2));
        }
    }
    assert!(diffs.is_empty(), "local and remote differ:\n{}", diffs.join("\n"));
    // Sanity: the sequence did what it should.
    let code = |label: &str| l.iter().find(|s| s.0 == label).unwrap().1;
    assert_eq!(
        (code("create"), code("alice update"), code("show deleted"), code("task show")),
        (0, 4, 5, 5)
    );
}

// ---------------------------------------------------------------------------------------
// Completions
// ---------------------------------------------------------------------------------------

#[test]
fn completions_match_checked_in_files() {
    let d = tmp();
    for (args, file) in [
        (&["completions", "bash"][..], "ta.bash"),
        (&["completions", "zsh"], "_ta"),
        (&["completions", "fish"], "ta.fish"),
        (&["man"], "ta.1"),
    ] {
        let shell = args.join(" ");
        let out = ta(d.path(), args);
        assert_eq!(out.code, 0, "{out:?}");
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions").join(file);
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            out.stdout == expected,
            "completions/{file} is stale; regenerate with `target/debug/ta {shell} > completions/{file}`"
        );
    }
}

/// A batch input line longer than the limit stops the run with one clear line and a
/// non-zero exit, instead of growing memory without bound.
#[test]
fn batch_input_line_over_the_limit_is_refused() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    ta(data, &["project", "create", "--title", "p", "--json"]).ok();
    ta(
        data,
        &[
            "regex-tagger",
            "create",
            "--project",
            "1",
            "--description",
            "d",
            "--lexicon",
            "kass",
            "--json",
        ],
    )
    .ok();
    let mut child = common::ta_command(data)
        .args(["regex-tagger", "tag", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let block = vec![b'a'; 1 << 20];
        // ta may stop reading early; a broken pipe here is expected.
        for _ in 0..65 {
            if stdin.write_all(&block).is_err() {
                return;
            }
        }
        let _ = stdin.write_all(b"\n");
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "ta: error: cannot read input: an input line is longer than 64 MiB"
    );
    assert!(out.stdout.is_empty());
}

/// Every declared operation is reachable from the CLI: `ta api --list` names exactly the
/// operations the OpenAPI document lists, and `ta api` runs one as the dedicated command does.
#[test]
fn every_operation_is_reachable_from_the_cli() {
    let d = tmp();
    let listed = ta(d.path(), &["api", "--list"]).ok();
    let mut cli: Vec<(String, String)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["method"].as_str().unwrap().to_lowercase(),
                o["path"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let s = Server::start();
    let doc = s.get("/swagger.json", None).ok(200);
    let mut documented: Vec<(String, String)> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, item)| item.as_object().unwrap().keys().map(move |m| (m.clone(), path.clone())))
        .collect();
    cli.sort();
    documented.sort();
    assert_eq!(cli, documented);
    assert_eq!(
        ta(d.path(), &["api", "GET", "/projects/"]).ok(),
        ta(d.path(), &["project", "list"]).ok()
    );
}

/// A data directory with project 1 and regex tagger 1 ("t", lexicon `varas`).
fn varas_tagger() -> tempfile::TempDir {
    let d = tmp();
    ta(d.path(), &["project", "create", "--title", "p", "--user", "admin"]).ok();
    let tagger = [
        "regex-tagger",
        "create",
        "--project",
        "1",
        "--description",
        "t",
        "--lexicon",
        "varas",
    ];
    ta(d.path(), &tagger).ok();
    d
}

/// A document line with no --field to read is an error line, locally and remotely alike,
/// never a silent `result: false`.
#[test]
fn batch_documents_without_fields_are_error_lines() {
    let d = varas_tagger();
    let input = "{\"text\": \"varas\"}\nvaras\n";
    let local = common::ta_stdin(d.path(), &["regex-tagger", "tag", "1"], input);
    let lines: Vec<Value> = local.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(
        lines[0],
        json!({"error": "{\"fields\":[\"This list may not be empty.\"]}"}),
        "{local}"
    );
    assert_eq!(lines[1]["result"], json!(true));
    let s = Server::start_in(d.path(), &[]);
    let token = s.admin_token();
    let remote = common::ta_stdin(
        d.path(),
        &["--server", &s.base, "--token", &token, "regex-tagger", "tag", "1"],
        input,
    );
    assert_eq!(remote, local);
}

/// A batch of several chunks, with error lines among the results, comes out one line per
/// input line in input order (the engine writes results in blocks of lines per piece of
/// parallel work).
#[test]
fn batch_results_keep_input_order_across_chunks() {
    let d = varas_tagger();
    let line = |i: usize| match i % 3 {
        0 => format!("{{\"text\": \"{} varas\"}}", "x ".repeat(i % 11)),
        1 => "\"  \"".to_string(),
        _ => format!("{{\"body\": \"varas {i}\"}}"),
    };
    let n = 10_000;
    let input: String = (0..n).map(|i| line(i) + "\n").collect();
    let out = common::ta_stdin(d.path(), &["regex-tagger", "tag", "1", "--field", "text"], &input);
    let lines: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), n);
    for (i, got) in lines.iter().enumerate() {
        let start = 2 * (i % 11) + 1;
        let expected = match i % 3 {
            0 => json!({"tagger_id": 1, "tag": "t", "result": true,
                        "matches": [{"str_val": "varas", "span": [start, start + 5], "field": "text"}]}),
            1 => json!({"error": "{\"text\":[\"This field may not be blank.\"]}"}),
            _ => json!({"tagger_id": 1, "tag": "t", "result": false, "matches": []}),
        };
        assert_eq!(got, &expected, "line {i}");
    }
}

/// `ta … < file` (stdin a regular file: its lines are mapped, not read) answers exactly what
/// the same bytes through a pipe answer: results across chunks, line ends (`\n`, `\r\n`, a
/// last line without one), invalid UTF-8 in a later chunk, an over-long line, and a file
/// whose offset is past its start (only the unread rest is input).
#[test]
fn batch_input_from_a_file_answers_as_from_a_pipe() {
    use std::io::{Seek, SeekFrom, Write};
    use std::process::Stdio;
    let d = varas_tagger();
    let dir = tempfile::tempdir().unwrap();
    let args = ["regex-tagger", "tag", "1", "--field", "text"];
    let run = |stdin: Stdio, feed: Option<Vec<u8>>| {
        let mut child = common::ta_command(d.path())
            .args(args)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let writer = feed.map(|bytes| {
            let mut stdin = child.stdin.take().unwrap();
            // ta may stop reading early; a broken pipe here is expected.
            std::thread::spawn(move || drop(stdin.write_all(&bytes)))
        });
        let out = child.wait_with_output().unwrap();
        if let Some(w) = writer {
            w.join().unwrap();
        }
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let both = |name: &str, bytes: Vec<u8>, skip: u64| {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let mut file = std::fs::File::open(&path).unwrap();
        file.seek(SeekFrom::Start(skip)).unwrap();
        let from_file = run(Stdio::from(file), None);
        let from_pipe = run(Stdio::piped(), Some(bytes[skip as usize..].to_vec()));
        assert_eq!(from_file, from_pipe, "{name}");
        from_file
    };
    let line = |i: usize| match i % 4 {
        0 => format!("{{\"text\": \"{i} varas\"}}\n"),
        1 => format!("\"varas {i}\"\r\n"),
        2 => "\n".to_string(),
        _ => format!("va\rras {i} varas\n"),
    };
    let mut mixed: Vec<u8> = (0..10_000).flat_map(|i| line(i).into_bytes()).collect();
    mixed.extend_from_slice(b"last varas\r");
    let (code, out, _) = both("mixed.jsonl", mixed.clone(), 0);
    assert_eq!(code, Some(0));
    assert_eq!(out.lines().count(), 10_001);
    let expected = json!({"tagger_id": 1, "tag": "t", "result": true, "matches": [{"str_val": "varas", "span": [5, 10]}]});
    assert_eq!(serde_json::from_str::<Value>(out.lines().last().unwrap()).unwrap(), expected);

    let skip = line(0).len() as u64;
    let (code, out, _) = both("offset.jsonl", mixed.clone(), skip);
    assert_eq!((code, out.lines().count()), (Some(0), 10_000));

    let mut bad = mixed.clone();
    bad[(0..9_000).map(|i| line(i).len()).sum::<usize>()] = 0xff;
    let (code, out, err) = both("bad-utf8.jsonl", bad, 0);
    assert_eq!(
        (code, err.trim()),
        (Some(3), "ta: error: cannot read input: stream did not contain valid UTF-8")
    );
    assert_eq!(out.lines().count(), 8_192);

    let mut long = b"varas\n".to_vec();
    long.extend(std::iter::repeat_n(b'a', (64 << 20) + 1));
    let (code, out, err) = both("long.jsonl", long, 0);
    assert_eq!(
        (code, err.trim()),
        (Some(3), "ta: error: cannot read input: an input line is longer than 64 MiB")
    );
    assert_eq!(out, "");
}

/// `ta core-variable`: list, set and unset by name (the names the server declares), locally
/// and against a server alike; an unknown name is a usage error.
#[test]
fn core_variable_commands_local_and_remote() {
    let d = tempfile::tempdir().unwrap();
    let listed = ta(d.path(), &["core-variable", "list", "--json"]).ok();
    let names: Vec<&str> = listed.as_array().unwrap().iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(names, ["TEXTA_ES_URL", "TEXTA_ES_USERNAME", "TEXTA_ES_PASSWORD"]);
    let set = ta(d.path(), &["core-variable", "set", "TEXTA_ES_USERNAME", "elastic", "--json"]).ok();
    assert_eq!(
        set,
        json!({"url": "http://127.0.0.1:8000/api/v1/core_variables/2/", "name": "TEXTA_ES_USERNAME", "value": "elastic", "env_value": null})
    );
    let unset = ta(d.path(), &["core-variable", "unset", "TEXTA_ES_USERNAME", "--json"]).ok();
    assert_eq!(unset["value"], Value::Null);
    let unknown = ta(d.path(), &["core-variable", "set", "ES_URL", "x"]);
    assert!(
        unknown.code == 2
            && unknown
                .stderr
                .contains("[possible values: TEXTA_ES_URL, TEXTA_ES_USERNAME, TEXTA_ES_PASSWORD]"),
        "{unknown:?}"
    );
    ta(d.path(), &["core-variable", "set", "TEXTA_ES_URL", "ftp://x"]).fails(3);

    let s = Server::start();
    let token = s.admin_token();
    let remote = [("TA_SERVER", Some(s.origin.as_str())), ("TA_TOKEN", Some(token.as_str()))];
    let there = ta_env(
        d.path(),
        &["core-variable", "set", "TEXTA_ES_USERNAME", "elastic", "--json"],
        &remote,
    )
    .ok();
    assert_eq!(there, replace_in(&set, "http://127.0.0.1:8000/api/v1", &s.base));
}
