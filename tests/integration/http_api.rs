//! HTTP tests of every route `ta serve` implements, against a real server per test.
//!
//! Bodies are compared whole (after [`normalize`] replaces timestamps and token keys)
//! against `shared/spec/api.md` §1–§3 and `shared/spec/conventions.md` §1–§6, §10, §12:
//! health, accounts (registration, login, logout, user, password change/reset), users,
//! projects, the auth error table, 403-vs-404 rules, no pagination on `/projects/` and
//! `/users/`, 405 + `Allow`, 406, 415, JSON parse errors, non-object bodies, unknown
//! routes, slash-less paths, `?format=`, `.json`, 413, the root redirect, the API root,
//! the docs pages and the OpenAPI document (every documented operation is routed), and
//! durability across a SIGKILL.
use crate::common;

use common::{normalize, project_body, replace_in, Resp, Server, ADMIN_PASSWORD, USER_PASSWORD};
use serde_json::{json, Value};

const AUTH_MISSING: &str = "Authentication credentials were not provided.";
const NO_PERMISSION: &str = "You do not have permission to perform this action.";
const NOT_FOUND: &str = "Not found.";

fn detail(msg: &str) -> Value {
    json!({ "detail": msg })
}

/// A user object as the API renders it, after [`normalize`].
fn user_body(base: &str, id: i64, username: &str, email: &str, superuser: bool, logged_in: bool) -> Value {
    json!({
        "url": format!("{base}/users/{id}/"), "id": id, "username": username, "email": email,
        "date_joined": "<ts>", "is_superuser": superuser, "last_login": if logged_in { json!("<ts>") } else { Value::Null },
    })
}

/// POST a registration body; returns the response.
fn register_raw(s: &Server, body: Value) -> Resp {
    s.post("/rest-auth/registration/", None, &body)
}

fn reg(username: &str, email: &str, p1: &str, p2: &str) -> Value {
    json!({"username": username, "email": email, "password1": p1, "password2": p2})
}

// ---------------------------------------------------------------------------------------
// Health (conventions §10)
// ---------------------------------------------------------------------------------------

#[test]
fn health_shape_both_generations() {
    let s = Server::start();
    for path in ["/health", "/health/"] {
        let h = s.get(path, None).ok(200);
        let mut keys: Vec<&str> = h.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "active_tasks",
                "cpu",
                "disk",
                "elastic",
                "gpu",
                "host",
                "memory",
                "mlp",
                "services",
                "toolkit",
                "version"
            ],
            "top-level health keys"
        );
        for part in ["disk", "memory"] {
            assert_eq!(h[part]["unit"], "GB");
            for k in ["free", "total", "used"] {
                assert!(h[part][k].is_number(), "{part}.{k} is a number: {h}");
            }
            assert_eq!(h[part], h["host"][part], "flat and nested {part} agree");
        }
        assert!(h["cpu"]["percent"].is_number());
        assert_eq!(h["cpu"], h["host"]["cpu"]);
        assert_eq!(h["gpu"], h["host"]["gpu"]);
        assert!(h["gpu"]["count"].is_u64() && h["gpu"]["devices"].is_array());
        assert_eq!(h["active_tasks"], json!(0));
        assert_eq!(h["toolkit"], json!({"version": h["version"], "active_tasks": 0}));
        assert_eq!(h["version"], json!(env!("CARGO_PKG_VERSION")));
        assert_eq!(h["services"]["redis"], json!({"alive": true}));
        assert_eq!(h["services"]["elastic"], h["elastic"]);
        for svc in ["elastic", "mlp"] {
            assert!(h[svc]["url"].is_string() && h[svc]["alive"].is_boolean(), "{svc}: {h}");
            // `status` is present exactly when the service is alive.
            assert_eq!(
                h[svc].get("status").is_some(),
                h[svc]["alive"] == json!(true),
                "{svc}.status iff alive: {h}"
            );
        }
    }
}

#[test]
fn health_methods_and_tokens() {
    let s = Server::start();
    let head = Resp::from(s.request("HEAD", "/health/").send().unwrap());
    assert_eq!(head.status, 200);
    for m in ["POST", "PUT", "PATCH", "DELETE"] {
        let r = s.call(m, "/health/", None, None);
        r.expect(405, detail(&format!("Method \"{m}\" not allowed.")));
        assert!(r.header("allow").contains("GET"), "Allow header lists GET: {:?}", r.headers);
    }
    // A bad token fails even on an open endpoint; a good one is fine.
    s.get("/health/", Some("0000000000000000000000000000000000000000"))
        .expect(403, detail("Invalid token."));
    let t = s.admin_token();
    assert_eq!(s.get("/health/", Some(&t)).status, 200);
}

// ---------------------------------------------------------------------------------------
// Accounts (api.md §1)
// ---------------------------------------------------------------------------------------

#[test]
fn registration_login_and_user() {
    let s = Server::start();
    let r = register_raw(&s, reg("alice", "alice@example.com", USER_PASSWORD, USER_PASSWORD));
    let key = r.ok(201)["key"].as_str().unwrap().to_string();
    assert!(common::is_token(&key), "key is 40 lower-case hex: {key}");
    assert_eq!(normalize(&r.json()), json!({"key": "<token>"}));
    assert!(r.header("set-cookie").starts_with("sessionid="), "registration starts a session");
    assert!(r.header("content-type").starts_with("application/json"));

    // Login returns the same token, by username or by e-mail.
    s.post("/rest-auth/login/", None, &json!({"username": "alice", "password": USER_PASSWORD}))
        .expect(200, json!({"key": key}));
    s.post(
        "/rest-auth/login/",
        None,
        &json!({"email": "alice@example.com", "password": USER_PASSWORD}),
    )
    .expect(200, json!({"key": key}));

    let me = s.get("/rest-auth/user/", Some(&key)).ok(200);
    assert_eq!(normalize(&me), user_body(&s.base, 2, "alice", "alice@example.com", false, true));
    assert!(
        common::is_timestamp(me["date_joined"].as_str().unwrap()),
        "UTC, microseconds, Z: {me}"
    );

    // The admin is user 1, a superuser.
    let at = s.admin_token();
    assert_eq!(normalize(&s.me(&at)), user_body(&s.base, 1, "admin", "", true, true));

    // The session cookie authenticates too.
    let login = s.post("/rest-auth/login/", None, &json!({"username": "alice", "password": USER_PASSWORD}));
    let cookie = login.header("set-cookie");
    let session = cookie.split(';').next().unwrap().to_string();
    let r = Resp::from(s.request("GET", "/rest-auth/user/").header("Cookie", session).send().unwrap());
    assert_eq!(r.ok(200)["username"], "alice");
}

#[test]
fn registration_validation_messages() {
    let s = Server::start();
    s.register("alice");
    let p = USER_PASSWORD;
    let cases: Vec<(Value, Value)> = vec![
        (
            json!({"password1": p, "password2": p}),
            json!({"username": ["This field is required."]}),
        ),
        (
            json!({}),
            json!({"username": ["This field is required."], "password1": ["This field is required."], "password2": ["This field is required."]}),
        ),
        (
            reg("alice", "", p, p),
            json!({"username": ["A user with that username already exists."]}),
        ),
        (
            reg("ALICE", "", p, p),
            json!({"username": ["A user with that username already exists."]}),
        ),
        (
            reg("bad name!", "", p, p),
            json!({"username": ["Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters."]}),
        ),
        (
            reg(&"u".repeat(151), "", p, p),
            json!({"username": ["Ensure this field has no more than 150 characters."]}),
        ),
        (
            reg("bob", "not-an-address", p, p),
            json!({"email": ["Enter a valid email address."]}),
        ),
        (
            reg("bob", "alice@example.com", p, p),
            json!({"email": ["A user is already registered with this e-mail address."]}),
        ),
        (
            reg("bob", "", "abc", "abc"),
            json!({"password1": ["Password must be a minimum of 6 characters."]}),
        ),
        (
            reg("bob", "", "xq7kp2z", "xq7kp2z"),
            json!({"password1": ["This password is too short. It must contain at least 8 characters."]}),
        ),
        (
            reg("bob", "", "password", "password"),
            json!({"password1": ["This password is too common."]}),
        ),
        (
            reg("bob", "", "83920175", "83920175"),
            json!({"password1": ["This password is entirely numeric."]}),
        ),
        (
            reg("bob", "", "1234567", "1234567"),
            json!({"password1": [
                "This password is too short. It must contain at least 8 characters.",
                "This password is too common.",
                "This password is entirely numeric."
            ]}),
        ),
        (
            reg("bob", "", p, "Other-Pass-77"),
            json!({"non_field_errors": ["The two password fields didn't match."]}),
        ),
        // The mismatch is checked only after every field is valid.
        (
            reg("bob", "nope", p, "Other-Pass-77"),
            json!({"email": ["Enter a valid email address."]}),
        ),
        (
            json!({"username": "", "password1": p, "password2": p}),
            json!({"username": ["This field may not be blank."]}),
        ),
        (
            json!({"username": ["x"], "password1": p, "password2": p}),
            json!({"username": ["Not a valid string."]}),
        ),
    ];
    for (body, expected) in cases {
        let r = register_raw(&s, body.clone());
        assert_eq!((r.status, r.json()), (400, expected), "registration {body}");
    }
    // An empty e-mail is not unique-checked, and the allowed username characters work.
    for name in ["bob", "c.a+r-o_l@x"] {
        assert_eq!(register_raw(&s, reg(name, "", p, p)).status, 201, "register {name}");
    }
}

#[test]
fn login_validation_messages() {
    let s = Server::start();
    s.register("alice");
    let bad = json!({"non_field_errors": ["Unable to log in with provided credentials."]});
    let cases = [
        (json!({"username": "alice"}), json!({"password": ["This field is required."]})),
        (json!({"username": "alice", "password": "wrong-Pass-1"}), bad.clone()),
        (json!({"username": "nobody", "password": USER_PASSWORD}), bad.clone()),
        (json!({"email": "nobody@example.com", "password": USER_PASSWORD}), bad.clone()),
        (
            json!({"password": USER_PASSWORD}),
            json!({"non_field_errors": ["Must include \"username\" and \"password\"."]}),
        ),
    ];
    for (body, expected) in cases {
        s.post("/rest-auth/login/", None, &body).expect(400, expected);
    }
}

#[test]
fn logout_revokes_token() {
    let s = Server::start();
    let t = s.register("alice");
    let r = s.get("/rest-auth/logout/", Some(&t));
    r.expect(405, detail("Method \"GET\" not allowed."));
    assert!(r.header("allow").contains("POST"), "{:?}", r.headers);
    s.post("/rest-auth/logout/", Some(&t), &json!({}))
        .expect(200, detail("Successfully logged out."));
    s.get("/projects/", Some(&t)).expect(403, detail("Invalid token."));
    // Anonymous callers get the same answer.
    s.post("/rest-auth/logout/", None, &json!({}))
        .expect(200, detail("Successfully logged out."));
    let t2 = s.login("alice", USER_PASSWORD);
    assert_ne!(t, t2, "the next login issues a new key");
    s.get("/projects/", Some(&t2)).expect(200, json!([]));
}

/// The server remembers accepted tokens for a moment; a change of the account is still seen by
/// the very next request, and one made by another process on the same data directory (the
/// local CLI) within a second.
#[test]
fn account_changes_reach_the_next_request() {
    let s = Server::start();
    let at = s.admin_token();
    let alice = s.register("alice");
    let users_seen = |token: &str| s.get("/users/", Some(token)).ok(200).as_array().map(Vec::len);
    assert_eq!(users_seen(&alice), Some(1));
    s.patch("/users/2/", Some(&at), &json!({"is_superuser": true})).ok(200);
    assert_eq!(users_seen(&alice), Some(2));
    s.patch("/users/2/", Some(&at), &json!({"is_superuser": false})).ok(200);
    assert_eq!(users_seen(&alice), Some(1));

    let out = common::ta(&s.data_dir, &["--as", "alice", "logout"]);
    assert_eq!(out.ok(), json!({"detail": "Successfully logged out."}));
    std::thread::sleep(std::time::Duration::from_millis(1100));
    s.get("/projects/", Some(&alice)).expect(403, detail("Invalid token."));
}

#[test]
fn rest_auth_user_only_email_changes() {
    let s = Server::start();
    let t = s.register("alice");
    let me = s
        .patch(
            "/rest-auth/user/",
            Some(&t),
            &json!({"email": "new@example.com", "is_superuser": true, "username": "mallory"}),
        )
        .ok(200);
    assert_eq!(normalize(&me), user_body(&s.base, 2, "alice", "new@example.com", false, true));
    let me = s.put("/rest-auth/user/", Some(&t), &json!({"email": "put@example.com"})).ok(200);
    assert_eq!(me["email"], "put@example.com");
    s.patch("/rest-auth/user/", Some(&t), &json!({"email": "bad"}))
        .expect(400, json!({"email": ["Enter a valid email address."]}));
    s.get("/rest-auth/user/", None).expect(403, detail(AUTH_MISSING));
    // Still not a superuser.
    s.post("/projects/", Some(&t), &json!({"title": "x", "users": []}))
        .expect(403, detail(NO_PERMISSION));
}

#[test]
fn password_change() {
    let s = Server::start();
    let t = s.register("alice");
    let path = "/rest-auth/password/change/";
    s.post(path, None, &json!({})).expect(403, detail(AUTH_MISSING));
    s.post(path, Some(&t), &json!({})).expect(
        400,
        json!({"new_password1": ["This field is required."], "new_password2": ["This field is required."]}),
    );
    s.post(
        path,
        Some(&t),
        &json!({"new_password1": "Brand-New-Pass-5", "new_password2": "Brand-New-Pass-6"}),
    )
    .expect(400, json!({"new_password2": ["The two password fields didn't match."]}));
    s.post(path, Some(&t), &json!({"new_password1": "password", "new_password2": "password"}))
        .expect(400, json!({"new_password1": ["This password is too common."]}));
    s.post(
        path,
        Some(&t),
        &json!({"new_password1": "Brand-New-Pass-5", "new_password2": "Brand-New-Pass-5"}),
    )
    .expect(200, detail("New password has been saved."));
    // The token stays valid; the new password works, the old one not.
    assert_eq!(s.me(&t)["username"], "alice");
    assert_eq!(s.login("alice", "Brand-New-Pass-5"), t);
    assert_eq!(
        s.post("/rest-auth/login/", None, &json!({"username": "alice", "password": USER_PASSWORD}))
            .status,
        400
    );
}

#[test]
fn password_reset_and_verify_email() {
    let s = Server::start();
    s.register("alice");
    let sent = detail("Password reset e-mail has been sent.");
    s.post("/rest-auth/password/reset/", None, &json!({"email": "nobody@example.com"}))
        .expect(200, sent.clone());
    s.post("/rest-auth/password/reset/", None, &json!({"email": "alice@example.com"}))
        .expect(200, sent);
    s.post("/rest-auth/password/reset/", None, &json!({"email": "bad"}))
        .expect(400, json!({"email": ["Enter a valid email address."]}));
    s.post("/rest-auth/password/reset/", None, &json!({}))
        .expect(400, json!({"email": ["This field is required."]}));
    // ta logs the mail (uid and token) on stderr instead of sending it.
    let log = s.stderr();
    let line = log
        .lines()
        .find(|l| l.contains("alice@example.com") && l.contains("uid="))
        .unwrap_or_else(|| panic!("reset mail logged: {log}"));
    let field = |name: &str| {
        line.split(&format!("{name}="))
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };
    let (uid, token) = (field("uid"), field("token"));

    let confirm = "/rest-auth/password/reset/confirm/";
    let body =
        |uid: &str, token: &str| json!({"uid": uid, "token": token, "new_password1": "Reset-Pass-31", "new_password2": "Reset-Pass-31"});
    s.post(confirm, None, &body("zzzz", &token))
        .expect(400, json!({"uid": ["Invalid value"]}));
    s.post(confirm, None, &body(&uid, "bad-token"))
        .expect(400, json!({"token": ["Invalid value"]}));
    let mismatch = json!({"uid": uid, "token": token, "new_password1": "Reset-Pass-31", "new_password2": "Reset-Pass-32"});
    s.post(confirm, None, &mismatch)
        .expect(400, json!({"new_password2": ["The two password fields didn't match."]}));
    s.post(confirm, None, &body(&uid, &token))
        .expect(200, detail("Password has been reset with the new password."));
    s.login("alice", "Reset-Pass-31");
    // A used token no longer works (it depends on the password).
    s.post(confirm, None, &body(&uid, &token))
        .expect(400, json!({"token": ["Invalid value"]}));

    s.post("/rest-auth/registration/verify-email/", None, &json!({"key": "abc"}))
        .expect(200, detail("ok"));
}

// ---------------------------------------------------------------------------------------
// Authentication error table (conventions §3)
// ---------------------------------------------------------------------------------------

#[test]
fn authentication_error_table() {
    let s = Server::start();
    let t = s.register("alice");
    let cases: Vec<(Option<String>, u16, &str)> = vec![
        (None, 403, AUTH_MISSING),
        (Some(format!("Bearer {t}")), 403, AUTH_MISSING),
        (Some("Basic YWRtaW46MTIzNA==".into()), 403, AUTH_MISSING),
        (Some("Token 0000000000000000000000000000000000000000".into()), 403, "Invalid token."),
        (Some("Token".into()), 403, "Invalid token header. No credentials provided."),
        (
            Some("Token a b".into()),
            403,
            "Invalid token header. Token string should not contain spaces.",
        ),
    ];
    for (auth, status, msg) in cases {
        let mut r = s.request("GET", "/projects/");
        if let Some(a) = &auth {
            r = r.header("Authorization", a.as_str());
        }
        let r = Resp::from(r.send().unwrap());
        r.expect(status, detail(msg));
        assert!(
            r.headers.get("www-authenticate").is_none(),
            "no WWW-Authenticate header for {auth:?}"
        );
    }
    // The keyword is case-insensitive.
    for kw in ["token", "TOKEN", "Token"] {
        let r = Resp::from(
            s.request("GET", "/projects/")
                .header("Authorization", format!("{kw} {t}"))
                .send()
                .unwrap(),
        );
        r.expect(200, json!([]));
    }
    // Every protected route refuses anonymous callers with 403.
    for path in [
        "/",
        "/users/",
        "/users/1/",
        "/projects/",
        "/projects/1/",
        "/projects/1/get_indices/",
        "/rest-auth/user/",
        "/tasks/",
    ] {
        s.get(path, None).expect(403, detail(AUTH_MISSING));
    }
}

// ---------------------------------------------------------------------------------------
// Users (api.md §2)
// ---------------------------------------------------------------------------------------

#[test]
fn users_visibility_and_writes() {
    let s = Server::start();
    let at = s.admin_token();
    let alice = s.register("alice");
    let _bob = s.register("bob");
    let b = s.base.clone();

    // Superuser: everyone, newest first, plain array.
    let all = s.get("/users/", Some(&at)).ok(200);
    assert_eq!(
        normalize(&all),
        json!([
            user_body(&b, 3, "bob", "bob@example.com", false, true),
            user_body(&b, 2, "alice", "alice@example.com", false, true),
            user_body(&b, 1, "admin", "", true, true),
        ])
    );
    // Not paginated, whatever the query says.
    assert_eq!(s.get("/users/?page=7&page_size=1", Some(&at)).ok(200), all);

    // A non-superuser sees only themselves.
    assert_eq!(
        normalize(&s.get("/users/", Some(&alice)).ok(200)),
        json!([user_body(&b, 2, "alice", "alice@example.com", false, true)])
    );
    assert_eq!(
        normalize(&s.get("/users/2/", Some(&alice)).ok(200)),
        user_body(&b, 2, "alice", "alice@example.com", false, true)
    );
    s.get("/users/1/", Some(&alice)).expect(404, detail(NOT_FOUND));
    s.get("/users/3/", Some(&alice)).expect(404, detail(NOT_FOUND));
    s.get("/users/99/", Some(&at)).expect(404, detail(NOT_FOUND));
    s.get("/users/abc/", Some(&at)).expect(404, detail(NOT_FOUND));

    // Writes need a superuser; user 1 is untouchable.
    s.patch("/users/2/", Some(&alice), &json!({"is_superuser": true}))
        .expect(403, detail(NO_PERMISSION));
    s.delete("/users/3/", Some(&alice)).expect(403, detail(NO_PERMISSION));
    s.patch("/users/1/", Some(&at), &json!({"is_superuser": false}))
        .expect(403, detail(NO_PERMISSION));
    s.put("/users/1/", Some(&at), &json!({"is_superuser": false}))
        .expect(403, detail(NO_PERMISSION));
    s.delete("/users/1/", Some(&at)).expect(403, detail(NO_PERMISSION));
    s.patch("/users/2/", Some(&at), &json!({"is_superuser": "maybe"}))
        .expect(400, json!({"is_superuser": ["Must be a valid boolean."]}));

    let up = s.patch("/users/2/", Some(&at), &json!({"is_superuser": "yes"})).ok(200);
    assert_eq!(normalize(&up), user_body(&b, 2, "alice", "alice@example.com", true, true));
    // Alice is now a superuser: she sees everyone.
    assert_eq!(s.get("/users/", Some(&alice)).ok(200).as_array().unwrap().len(), 3);
    let up = s.put("/users/2/", Some(&at), &json!({"is_superuser": false})).ok(200);
    assert_eq!(up["is_superuser"], false);

    let r = s.delete("/users/3/", Some(&at));
    assert_eq!((r.status, r.text.as_str()), (204, ""), "delete answers 204 with an empty body");
    s.get("/users/3/", Some(&at)).expect(404, detail(NOT_FOUND));
    assert_eq!(
        s.post("/rest-auth/login/", None, &json!({"username": "bob", "password": USER_PASSWORD}))
            .status,
        400
    );

    let r = s.post("/users/", Some(&at), &json!({}));
    r.expect(405, detail("Method \"POST\" not allowed."));
    assert!(r.header("allow").contains("GET"));
}

// ---------------------------------------------------------------------------------------
// Projects (api.md §3, conventions §4)
// ---------------------------------------------------------------------------------------

/// A server with admin (1), alice (2, member) and eve (3, outsider), and one project.
struct ProjectWorld {
    s: Server,
    admin: String,
    alice: String,
    eve: String,
}

fn project_world() -> ProjectWorld {
    let s = Server::start();
    let admin = s.admin_token();
    let alice = s.register("alice");
    let eve = s.register("eve");
    let b = s.base.clone();
    s.create_project(&admin, "Alpha", &[&format!("{b}/users/1/"), &format!("{b}/users/2/")]);
    ProjectWorld { s, admin, alice, eve }
}

#[test]
fn project_crud_whole_bodies() {
    let ProjectWorld { s, admin, alice, .. } = project_world();
    let b = s.base.clone();
    let alpha = project_body(&b, 1, "Alpha", "admin", &[1, 2], &[]);
    assert_eq!(s.get("/projects/1/", Some(&alice)).ok(200), alpha);
    assert_eq!(s.get("/projects/1/", Some(&admin)).ok(200), alpha);

    // A relative user URL is accepted; users come back ascending by id; the author is not
    // added automatically.
    let r = s.post(
        "/projects/",
        Some(&admin),
        &json!({"title": "Beta", "users": ["/api/v1/users/3/", format!("{b}/users/2/")], "indices": []}),
    );
    r.expect(201, project_body(&b, 2, "Beta", "admin", &[2, 3], &[]));
    let r = s.post("/projects/", Some(&admin), &json!({"title": "gamma", "users": []}));
    r.expect(201, project_body(&b, 3, "gamma", "admin", &[], &[]));

    // Lists are plain arrays, ascending id, only the caller's projects for members.
    let all = json!([
        alpha,
        project_body(&b, 2, "Beta", "admin", &[2, 3], &[]),
        project_body(&b, 3, "gamma", "admin", &[], &[])
    ]);
    assert_eq!(s.get("/projects/", Some(&admin)).ok(200), all);
    assert_eq!(
        s.get("/projects/?page=9&page_size=1", Some(&admin)).ok(200),
        all,
        "/projects/ is not paginated"
    );
    assert_eq!(
        s.get("/projects/", Some(&alice)).ok(200),
        json!([alpha, project_body(&b, 2, "Beta", "admin", &[2, 3], &[])])
    );
    // Filter (case-insensitive substring) and ordering.
    assert_eq!(s.get("/projects/?title=ALP", Some(&admin)).ok(200), json!([alpha]));
    let ids = |v: Value| v.as_array().unwrap().iter().map(|p| p["id"].as_i64().unwrap()).collect::<Vec<_>>();
    assert_eq!(ids(s.get("/projects/?ordering=-id", Some(&admin)).ok(200)), [3, 2, 1]);
    assert_eq!(ids(s.get("/projects/?ordering=title", Some(&admin)).ok(200)), [1, 2, 3]);
    assert_eq!(ids(s.get("/projects/?ordering=-users_count,id", Some(&admin)).ok(200)), [1, 2, 3]);
    assert_eq!(ids(s.get("/projects/?ordering=no_such_field", Some(&admin)).ok(200)), [1, 2, 3]);

    // PATCH changes only the given fields; changing users replaces the member set.
    let r = s.patch("/projects/2/", Some(&admin), &json!({"title": "Beta 2"}));
    r.expect(200, project_body(&b, 2, "Beta 2", "admin", &[2, 3], &[]));
    let r = s.patch("/projects/2/", Some(&admin), &json!({"users": [format!("{b}/users/1/")]}));
    r.expect(200, project_body(&b, 2, "Beta 2", "admin", &[1], &[]));
    // PUT needs every required field.
    s.put("/projects/2/", Some(&admin), &json!({"title": "Beta 3"}))
        .expect(400, json!({"users": ["This field is required."]}));
    let r = s.put("/projects/2/", Some(&admin), &json!({"title": "Beta 3", "users": []}));
    r.expect(200, project_body(&b, 2, "Beta 3", "admin", &[], &[]));

    let r = s.get("/projects/1/get_indices/", Some(&alice));
    r.expect(200, json!({"indices": []}));

    let r = s.delete("/projects/3/", Some(&admin));
    assert_eq!((r.status, r.text.as_str()), (204, ""));
    s.get("/projects/3/", Some(&admin)).expect(404, detail(NOT_FOUND));
    s.delete("/projects/3/", Some(&admin)).expect(404, detail(NOT_FOUND));
}

#[test]
fn project_permissions() {
    let ProjectWorld { s, admin, alice, eve } = project_world();
    let b = s.base.clone();
    let users = json!([format!("{b}/users/2/")]);
    // Only superusers create.
    s.post("/projects/", Some(&alice), &json!({"title": "x", "users": users}))
        .expect(403, detail(NO_PERMISSION));
    // Members read but may not modify.
    let insufficient = detail("Insufficient permissions for this project.");
    s.patch("/projects/1/", Some(&alice), &json!({"title": "renamed"}))
        .expect(403, insufficient.clone());
    s.put("/projects/1/", Some(&alice), &json!({"title": "renamed", "users": users}))
        .expect(403, insufficient.clone());
    s.delete("/projects/1/", Some(&alice)).expect(403, insufficient);
    // Non-members: not listed, 404 on retrieve.
    s.get("/projects/", Some(&eve)).expect(200, json!([]));
    s.get("/projects/1/", Some(&eve)).expect(404, detail(NOT_FOUND));
    let r = s.get("/projects/1/get_indices/", Some(&eve));
    assert!(
        r.status == 403 || r.status == 404,
        "non-member get_indices refused: {} {}",
        r.status,
        r.text
    );
    // Missing project: 404 even for a superuser.
    s.get("/projects/999999999/", Some(&admin)).expect(404, detail(NOT_FOUND));
    s.get("/projects/abc/", Some(&admin)).expect(404, detail(NOT_FOUND));
    // The project is unchanged.
    assert_eq!(
        s.get("/projects/1/", Some(&admin)).ok(200),
        project_body(&b, 1, "Alpha", "admin", &[1, 2], &[])
    );
}

#[test]
fn project_validation_messages() {
    let ProjectWorld { s, admin, .. } = project_world();
    let b = s.base.clone();
    let u2 = format!("{b}/users/2/");
    let cases: Vec<(Value, Value)> = vec![
        (
            json!({}),
            json!({"title": ["This field is required."], "users": ["This field is required."]}),
        ),
        (json!({"users": [u2]}), json!({"title": ["This field is required."]})),
        (json!({"title": "T"}), json!({"users": ["This field is required."]})),
        (
            json!({"title": "", "users": [u2]}),
            json!({"title": ["This field may not be blank."]}),
        ),
        (
            json!({"title": null, "users": [u2]}),
            json!({"title": ["This field may not be null."]}),
        ),
        (
            json!({"title": "x".repeat(1001), "users": [u2]}),
            json!({"title": ["Ensure this field has no more than 1000 characters."]}),
        ),
        (
            json!({"title": "T", "users": [12345]}),
            json!({"users": ["Incorrect type. Expected URL string, received int."]}),
        ),
        (
            json!({"title": "T", "users": "nope"}),
            json!({"users": ["Expected a list of items but got type \"str\"."]}),
        ),
        (
            json!({"title": "T", "users": ["http://elsewhere.example/nope/"]}),
            json!({"users": ["Invalid hyperlink - No URL match."]}),
        ),
        (
            json!({"title": "T", "users": [format!("{b}/users/999/")]}),
            json!({"users": ["Invalid hyperlink - Object does not exist."]}),
        ),
        (
            json!({"title": "T", "users": [u2], "indices": ["a", "b"]}),
            json!({"indices": ["Indices in ['a', 'b'] do not match with indices available in Elasticsearch!"]}),
        ),
    ];
    for (body, expected) in cases {
        let r = s.post("/projects/", Some(&admin), &body);
        assert_eq!((r.status, r.json()), (400, expected), "create project {body}");
    }
    // Numbers are accepted as titles and turned into text.
    assert_eq!(
        s.post("/projects/", Some(&admin), &json!({"title": 5, "users": []})).ok(201)["title"],
        "5"
    );
}

// ---------------------------------------------------------------------------------------
// Protocol rules (conventions §1, §2, §6, §12)
// ---------------------------------------------------------------------------------------

#[test]
fn root_redirect_and_api_root() {
    let s = Server::start();
    let r = Resp::from(s.client().get(format!("{}/", s.origin)).send().unwrap());
    assert_eq!(r.status, 302);
    assert_eq!(r.header("location"), "/api/v1/");
    s.get("/", None).expect(403, detail(AUTH_MISSING));
    let t = s.register("alice");
    let b = &s.base;
    let root = json!({"projects": format!("{b}/projects/"), "users": format!("{b}/users/")});
    s.get("/", Some(&t)).expect(200, root.clone());
    s.get("", Some(&t)).expect(200, root);
}

/// Every link the API hands out (the API root's, a project's `resources`) answers: a GET is
/// 200, or 405 where the link names an action that takes a POST, never 404.
#[test]
fn every_link_handed_out_answers() {
    let s = Server::start();
    let t = s.admin_token();
    s.create_project(&t, "p", &[]);
    let mut links: Vec<String> = Vec::new();
    for path in ["/", "/projects/1/"] {
        let body = s.get(path, Some(&t)).ok(200);
        let map = if path == "/" { &body } else { &body["resources"] };
        links.extend(map.as_object().unwrap().values().map(|v| v.as_str().unwrap().to_string()));
    }
    assert!(links.len() >= 14, "{links:?}");
    for link in links {
        let path = link
            .strip_prefix(&s.base)
            .unwrap_or_else(|| panic!("{link} is not under {}", s.base));
        let status = s.get(path, Some(&t)).status;
        assert!(status == 200 || status == 405, "{link}: {status}");
    }
}

#[test]
fn method_not_allowed_after_auth() {
    let s = Server::start();
    let t = s.admin_token();
    for (m, path) in [
        ("DELETE", "/projects/"),
        ("POST", "/projects/1/"),
        ("PUT", "/users/"),
        ("POST", "/rest-auth/user/"),
        ("GET", "/rest-auth/password/change/"),
    ] {
        // Anonymous: authentication comes first.
        s.call(m, path, None, None).expect(403, detail(AUTH_MISSING));
        let r = s.call(m, path, Some(&t), None);
        r.expect(405, detail(&format!("Method \"{m}\" not allowed.")));
        assert!(!r.header("allow").is_empty(), "405 carries Allow for {m} {path}");
        assert!(!r.header("allow").contains(m), "Allow excludes {m}: {}", r.header("allow"));
    }
    // Open endpoints answer 405 to anonymous callers.
    for (m, path) in [
        ("GET", "/rest-auth/login/"),
        ("GET", "/rest-auth/registration/"),
        ("PUT", "/rest-auth/logout/"),
    ] {
        s.call(m, path, None, None)
            .expect(405, detail(&format!("Method \"{m}\" not allowed.")));
    }
}

#[test]
fn content_negotiation() {
    let s = Server::start();
    let t = s.admin_token();
    let get = |accept: &str, path: &str| {
        Resp::from(
            s.bare("GET", path)
                .header("Accept", accept)
                .header("Authorization", format!("Token {t}"))
                .send()
                .unwrap(),
        )
    };
    for accept in ["application/xml", "image/png"] {
        get(accept, "/projects/").expect(406, detail("Could not satisfy the request Accept header."));
    }
    for accept in ["application/json", "*/*", "application/json; q=0.9", "text/plain, application/json"] {
        let r = get(accept, "/projects/");
        r.expect(200, json!([]));
        assert!(
            r.header("content-type").starts_with("application/json"),
            "{accept}: {:?}",
            r.headers
        );
    }
    for path in ["/projects/", "/", "/users/1/", "/health/"] {
        let r = get("text/html", path);
        assert_eq!(r.status, 200, "HTML {path}");
        assert!(r.header("content-type").starts_with("text/html"), "HTML {path}: {:?}", r.headers);
        assert!(r.text.to_ascii_lowercase().contains("<html"), "HTML page for {path}");
    }
    // ?format= overrides Accept.
    let r = get("text/html", "/projects/?format=json");
    r.expect(200, json!([]));
    let r = get("application/json", "/projects/?format=api");
    assert!(r.header("content-type").starts_with("text/html"));
    // A missing Accept header means JSON.
    let r = Resp::from(
        s.client()
            .get(format!("{}/projects/", s.base))
            .header("Authorization", format!("Token {t}"))
            .send()
            .unwrap(),
    );
    r.expect(200, json!([]));
}

#[test]
fn request_body_errors() {
    let s = Server::start();
    let t = s.admin_token();
    let raw = |ct: &str, body: &str| {
        Resp::from(
            s.request("POST", "/projects/")
                .header("Authorization", format!("Token {t}"))
                .header("Content-Type", ct)
                .body(body.to_string())
                .send()
                .unwrap(),
        )
    };
    raw("text/plain", "x").expect(415, detail("Unsupported media type \"text/plain\" in request."));
    raw("text/plain; charset=utf-8", "x").expect(415, detail("Unsupported media type \"text/plain\" in request."));
    raw("application/xml", "<a/>").expect(415, detail("Unsupported media type \"application/xml\" in request."));
    let r = raw("application/json", "{not json");
    assert_eq!(r.status, 400);
    let body = r.json();
    assert_eq!(body.as_object().unwrap().len(), 1);
    assert!(body["detail"].as_str().unwrap().starts_with("JSON parse error - "), "{body}");
    for (json_text, ty) in [("[\"a\", \"b\"]", "list"), ("\"text\"", "str"), ("5", "int")] {
        raw("application/json", json_text).expect(
            400,
            json!({"non_field_errors": [format!("Invalid data. Expected a dictionary, but got {ty}.")]}),
        );
    }
    // Form and multipart encodings are parsed like JSON ones.
    let r = Resp::from(
        s.request("POST", "/rest-auth/login/")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(format!("username=admin&password={ADMIN_PASSWORD}"))
            .send()
            .unwrap(),
    );
    r.expect(200, json!({"key": t}));
    let boundary = "XyZb0undary";
    let mp = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\nadmin\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n{ADMIN_PASSWORD}\r\n--{boundary}--\r\n"
    );
    let r = Resp::from(
        s.request("POST", "/rest-auth/login/")
            .header("Content-Type", format!("multipart/form-data; boundary={boundary}"))
            .body(mp)
            .send()
            .unwrap(),
    );
    r.expect(200, json!({"key": t}));
    // Form list fields repeat the key.
    let b = &s.base;
    let form = format!(
        "title=Form+project&users={}&users={}",
        form_urlencoded::byte_serialize(format!("{b}/users/1/").as_bytes()).collect::<String>(),
        form_urlencoded::byte_serialize(b"/api/v1/users/1/").collect::<String>()
    );
    let r = Resp::from(
        s.request("POST", "/projects/")
            .header("Authorization", format!("Token {t}"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .unwrap(),
    );
    r.expect(201, project_body(b, 1, "Form project", "admin", &[1], &[]));
}

#[test]
fn unknown_routes_are_json_404() {
    let s = Server::start();
    let t = s.admin_token();
    for path in ["/nope/", "/projects/1/no_such_resource/", "/users/1/extra/", "/rest-auth/nothing/"] {
        let r = s.get(path, Some(&t));
        r.expect(404, detail(NOT_FOUND));
        assert!(r.header("content-type").starts_with("application/json"));
    }
    for url in ["/api/v2/projects/", "/elsewhere", "/api/"] {
        let r = Resp::from(
            s.client()
                .get(format!("{}{url}", s.origin))
                .header("Authorization", format!("Token {t}"))
                .send()
                .unwrap(),
        );
        r.expect(404, detail(NOT_FOUND));
    }
}

#[test]
fn slashless_paths_and_json_suffix() {
    let s = Server::start();
    let r = s.post("/rest-auth/login", None, &json!({"username": "admin", "password": ADMIN_PASSWORD}));
    let t = r.ok(200)["key"].as_str().unwrap().to_string();
    let b = s.base.clone();
    let p = s.post("/projects", Some(&t), &json!({"title": "NoSlash", "users": []})).ok(201);
    assert_eq!(p, project_body(&b, 1, "NoSlash", "admin", &[], &[]));
    assert_eq!(s.get("/projects/1", Some(&t)).ok(200), p);
    assert_eq!(s.get("/projects.json", Some(&t)).ok(200), json!([p]));
    assert_eq!(s.get("/projects/1.json", Some(&t)).ok(200), p);
    assert_eq!(s.get("/users/1.json", Some(&t)).ok(200)["username"], "admin");
    assert_eq!(s.get("/projects/1/get_indices", Some(&t)).ok(200), json!({"indices": []}));
    assert_eq!(s.get("/users", Some(&t)).ok(200).as_array().unwrap().len(), 1);
    assert_eq!(s.patch("/projects/1", Some(&t), &json!({"title": "P"})).ok(200)["title"], "P");
    // `.json` forces JSON even for a browser Accept header.
    let r = Resp::from(
        s.bare("GET", "/projects.json")
            .header("Accept", "text/html")
            .header("Authorization", format!("Token {t}"))
            .send()
            .unwrap(),
    );
    assert!(r.header("content-type").starts_with("application/json"), "{:?}", r.headers);
    let r = s.delete("/projects/1", Some(&t));
    assert_eq!(r.status, 204);
}

#[test]
fn utf8_without_ascii_escaping() {
    let s = Server::start();
    let t = s.admin_token();
    let r = s.post("/projects/", Some(&t), &json!({"title": "Hädaabi ünikood ✓", "users": []}));
    assert_eq!(r.status, 201);
    assert!(r.text.contains("\"Hädaabi ünikood ✓\""), "raw UTF-8 in the body: {}", r.text);
    assert!(!r.text.contains("\\u"), "no \\u escapes: {}", r.text);
}

#[test]
fn body_over_upload_limit_is_413() {
    let s = Server::start_env(&[("TA_MAX_UPLOAD", "1000")]);
    let big = json!({"username": "admin", "password": "x".repeat(2000)}).to_string();
    let expected = detail("Request body exceeds the upload limit of 1000 bytes.");
    // With a Content-Length header...
    let r = Resp::from(
        s.request("POST", "/rest-auth/login/")
            .header("Content-Type", "application/json")
            .body(big.clone())
            .send()
            .unwrap(),
    );
    r.expect(413, expected.clone());
    // ...and chunked, with no length announced.
    let body = reqwest::blocking::Body::new(std::io::Cursor::new(big.into_bytes()));
    let r = Resp::from(
        s.request("POST", "/rest-auth/login/")
            .header("Content-Type", "application/json")
            .body(body)
            .send()
            .unwrap(),
    );
    r.expect(413, expected);
    // A body under the limit is fine.
    s.login("admin", ADMIN_PASSWORD);
}

#[test]
fn json_bodies_have_their_own_smaller_limit() {
    let s = Server::start_env(&[("TA_MAX_BODY", "1000")]);
    let big = json!({"username": "admin", "password": "x".repeat(2000)});
    s.post("/rest-auth/login/", None, &big).expect(
        413,
        detail("Request body exceeds the limit of 1000 bytes for JSON and form bodies (TA_MAX_BODY); send files as multipart uploads."),
    );
    s.login("admin", ADMIN_PASSWORD);
}

/// Hostile input answers 400 and the server goes on: a lexicon entry nested 20,000 deep
/// (it overflowed the parser's stack), JSON nested past serde's limit, and `[[:]`, which the
/// reference reads as the set of `[` and `:`.
#[test]
fn hostile_input_is_a_400_not_a_crash() {
    let s = Server::start();
    let t = s.admin_token();
    let pk = s.create_project(&t, "Hostile", &[])["id"].as_i64().unwrap();
    let url = format!("/projects/{pk}/regex_taggers/");
    let deep = format!("{}a{}", "(".repeat(20_000), ")".repeat(20_000));
    let r = s.post(&url, Some(&t), &json!({"description": "deep", "lexicon": [deep]}));
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.text.contains("pattern nested too deeply"), "{}", r.text);
    let nested = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let r = Resp::from(
        s.request("POST", &url)
            .header("Authorization", format!("Token {t}"))
            .header("Content-Type", "application/json")
            .body(format!("{{\"description\": \"x\", \"lexicon\": {nested}}}"))
            .send()
            .unwrap(),
    );
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.text.contains("recursion limit exceeded"), "{}", r.text);
    let created = s.post(&url, Some(&t), &json!({"description": "set", "lexicon": ["[[:]"]})).ok(201);
    let id = created["id"].as_i64().unwrap();
    s.post(&format!("{url}{id}/tag_text/"), Some(&t), &json!({"text": "a: b"})).ok(200);
    s.get("/health/", None).ok(200);
}

// ---------------------------------------------------------------------------------------
// Tasks (ta extension)
// ---------------------------------------------------------------------------------------

#[test]
fn tasks_routes() {
    let s = Server::start();
    let t = s.admin_token();
    s.get("/tasks/", Some(&t)).expect(200, json!([]));
    s.get("/tasks/1/", Some(&t)).expect(404, detail(NOT_FOUND));
    s.get("/tasks/", None).expect(403, detail(AUTH_MISSING));
}

// ---------------------------------------------------------------------------------------
// Docs (conventions §2)
// ---------------------------------------------------------------------------------------

#[test]
fn docs_pages_and_schema() {
    let s = Server::start();
    for path in ["/swagger/", "/redoc/", "/redoc"] {
        let r = s.call("GET", path, None, None);
        assert_eq!(r.status, 200, "{path}: {}", r.text);
        assert!(r.header("content-type").starts_with("text/html"), "{path}: {:?}", r.headers);
        assert!(r.text.to_ascii_lowercase().contains("<html"), "{path}");
    }
    let doc = s.get("/swagger.json", None).ok(200);
    assert_eq!(doc["openapi"], "3.1.0");
    assert!(doc["paths"].as_object().is_some_and(|p| !p.is_empty()));
    let yaml = s.get("/swagger.yaml", None);
    assert_eq!(yaml.status, 200);
    assert!(yaml.text.contains("openapi: 3.1.0"), "{}", &yaml.text[..yaml.text.len().min(200)]);
    // Either form of every docs path, as for API paths.
    assert_eq!(s.get("/swagger.json/", None).ok(200), doc);
    assert_eq!(s.get("/swagger.yaml/", None).text, yaml.text);
}

/// The OpenAPI document describes what the server answers, as an outside client reads it
/// (scripts/check/api_fuzz.sh, issue 15 §1): every `$ref` resolves (paginated lists once
/// referred to item schemas the document lacked), every operation lists its error answers
/// and its security, list operations their query parameters, and request bodies the fields
/// the engine reads (the document insert once described `{"index", "documents": {}}`;
/// search_by_query once required `query`; a regex tagger body was an `allOf` fuzzers could
/// not generate from).
#[test]
fn openapi_document_describes_the_answers() {
    let s = Server::start();
    let doc = s.get("/swagger.json", None).ok(200);
    fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    out.push(r);
                }
                m.values().for_each(|x| refs(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    refs(&doc, &mut all);
    let dangling: Vec<&&str> = all
        .iter()
        .filter(|r| r.strip_prefix('#').and_then(|p| doc.pointer(p)).is_none())
        .collect();
    assert!(!all.is_empty() && dangling.is_empty(), "unresolved: {dangling:?}");
    let error = |name: &str| json!({"$ref": format!("#/components/responses/{name}")});
    let list = &doc["paths"]["/projects/{project_pk}/lexicons/"]["get"];
    assert_eq!(
        list["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["results"],
        json!({"type": "array", "items": {"$ref": "#/components/schemas/LexiconOut"}})
    );
    assert_eq!(list["security"], json!([{"Token": []}]));
    let names: Vec<&Value> = list["parameters"].as_array().unwrap().iter().map(|p| &p["name"]).collect();
    assert_eq!(names, ["project_pk", "page", "page_size", "ordering", "description", "task_status"]);
    assert_eq!(list["parameters"][1]["in"], "query");
    let statuses = |op: &Value| -> Vec<String> { op["responses"].as_object().unwrap().keys().cloned().collect() };
    assert_eq!(statuses(list), ["200", "403", "404", "406"]);
    assert_eq!(list["responses"]["404"], error("NotFound"));
    let create = &doc["paths"]["/projects/"]["post"];
    assert_eq!(statuses(create), ["201", "400", "403", "406", "413", "415"]);
    assert_eq!(create["responses"]["400"], error("BadRequest"));
    assert_eq!(doc["paths"]["/health/"]["get"]["security"], json!([{}, {"Token": []}]));
    assert_eq!(
        doc["components"]["securitySchemes"]["Token"],
        json!({"type": "apiKey", "in": "header", "name": "Authorization",
               "description": "`Token <key>`, the key from /rest-auth/login/ or /rest-auth/registration/"})
    );
    assert_eq!(
        doc["components"]["responses"]["Forbidden"]["content"]["application/json"]["schema"],
        json!({"$ref": "#/components/schemas/Detail"})
    );
    let body = |path: &str| doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"].clone();
    assert_eq!(
        body("/projects/{project_pk}/elastic/documents/"),
        json!({"type": "object", "description": "`{\"documents\": [...]}` of a document insert (at most 10 000 documents).",
               "required": ["documents"],
               "properties": {"documents": {"type": "array", "items": {"$ref": "#/components/schemas/DocumentIn"},
                                            "minItems": 1, "maxItems": 10000}}})
    );
    assert_eq!(body("/projects/{project_pk}/search_by_query/").get("required"), None);
    let regex = body("/projects/{project_pk}/regex_taggers/");
    assert_eq!(regex["type"], "object");
    assert_eq!(regex["required"], json!(["description"]));
    let fields: Vec<&String> = regex["properties"].as_object().unwrap().keys().collect();
    assert!(
        fields.contains(&&"lexicon".to_string()) && fields.contains(&&"description".to_string()),
        "{fields:?}"
    );
}

/// Every operation in the OpenAPI document is routed: its path answers the other methods
/// with 405 and an `Allow` header that lists the documented ones, and documented GETs
/// without path parameters answer something other than 404.
#[test]
fn every_documented_operation_is_routed() {
    let s = Server::start();
    let t = s.admin_token();
    s.create_project(&t, "Doc", &[]);
    let doc = s.get("/swagger.json", None).ok(200);
    let methods = ["get", "post", "put", "patch", "delete"];
    let mut problems = Vec::new();
    let mut count = 0;
    let placeholder = regex::Regex::new(r"\{[^}]+\}").unwrap();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        let documented: Vec<&str> = methods.iter().copied().filter(|m| item.get(*m).is_some()).collect();
        count += documented.len();
        let concrete = placeholder.replace_all(path, "1").into_owned();
        if let Some(probe) = methods.iter().find(|m| !documented.contains(m)) {
            let probe = probe.to_uppercase();
            let r = s.call(&probe, &concrete, Some(&t), None);
            let allow = r.header("allow").to_uppercase();
            if r.status != 405 {
                problems.push(format!(
                    "{probe} {concrete}: expected 405 (path routed), got {} {}",
                    r.status, r.text
                ));
            } else {
                for m in &documented {
                    if !allow.split(',').any(|a| a.trim() == m.to_uppercase()) {
                        problems.push(format!("{concrete}: documented {} missing from Allow {allow:?}", m.to_uppercase()));
                    }
                }
            }
        }
        if documented.contains(&"get") && !path.contains('{') {
            let r = s.get(path, Some(&t));
            if r.status == 404 {
                problems.push(format!("GET {path}: 404"));
            }
        }
    }
    assert!(count > 0, "the document lists operations");
    assert!(problems.is_empty(), "unrouted documented operations:\n{}", problems.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Durability
// ---------------------------------------------------------------------------------------

/// Rows written before a SIGKILL are all there after a restart; the admin password from
/// the environment applies only on first start.
#[test]
fn rows_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Server::start_in(dir.path(), &[]);
    let admin = s.admin_token();
    let alice = s.register("alice");
    s.register("bob");
    let b = s.base.clone();
    for i in 0..5 {
        s.create_project(&admin, &format!("P{i}"), &[&format!("{b}/users/2/")]);
    }
    s.patch("/projects/3/", Some(&admin), &json!({"title": "P3 renamed", "users": []}))
        .ok(200);
    s.delete("/projects/5/", Some(&admin));
    s.patch("/users/3/", Some(&admin), &json!({"is_superuser": true})).ok(200);
    let users = s.get("/users/", Some(&admin)).ok(200);
    let projects = s.get("/projects/", Some(&admin)).ok(200);
    s.kill();

    let s2 = Server::start_in(dir.path(), &[("TA_ADMIN_PASSWORD", "a-different-Pass-1")]);
    let b2 = s2.base.clone();
    // Tokens persist, so no login is needed (and last_login stays as it was).
    assert_eq!(s2.get("/users/", Some(&admin)).ok(200), replace_in(&users, &b, &b2));
    assert_eq!(s2.get("/projects/", Some(&admin)).ok(200), replace_in(&projects, &b, &b2));
    assert_eq!(s2.me(&alice)["username"], "alice");
    // The existing admin keeps its password.
    assert_eq!(s2.login("admin", ADMIN_PASSWORD), admin);
    // New rows continue the id sequence.
    assert_eq!(s2.create_project(&admin, "after", &[])["id"], 6);
}

// ---------------------------------------------------------------------------------------
// Project resources: permissions and pagination (conventions §4, §5), on anonymizers
// ---------------------------------------------------------------------------------------

#[test]
fn project_resource_permissions() {
    let ProjectWorld { s, admin, alice, eve } = project_world();
    let res = detail("Insufficient permissions for this resource.");
    let coll = "/projects/1/anonymizers/";
    let a = s.post(coll, Some(&alice), &json!({"description": "mine"})).ok(201);
    assert_eq!(a["id"], 1);
    assert_eq!(a["url"], json!(format!("{}/projects/1/anonymizers/1/", s.base)));
    // Non-members get 403 on every route under the project, whatever the id.
    for (m, path) in [
        ("GET", coll),
        ("POST", coll),
        ("GET", "/projects/1/anonymizers/1/"),
        ("DELETE", "/projects/1/anonymizers/1/"),
        ("GET", "/projects/1/anonymizers/99/"),
    ] {
        let body = (m == "POST").then(|| json!({"description": "x"}));
        s.call(m, path, Some(&eve), body.as_ref()).expect(403, res.clone());
    }
    // A missing project gives the same 403, even for a superuser.
    s.get("/projects/999999/anonymizers/", Some(&admin)).expect(403, res.clone());
    s.get("/projects/999999/anonymizers/1/", Some(&admin)).expect(403, res);
    // Anonymous: authentication first.
    s.get(coll, None).expect(403, detail(AUTH_MISSING));
    // Members and superusers: resource ids outside the project are 404.
    s.get("/projects/1/anonymizers/99/", Some(&alice)).expect(404, detail(NOT_FOUND));
    s.get("/projects/1/anonymizers/abc/", Some(&alice)).expect(404, detail(NOT_FOUND));
    let b = &s.base;
    s.create_project(&admin, "Other", &[&format!("{b}/users/1/")]);
    s.get("/projects/2/anonymizers/1/", Some(&admin)).expect(404, detail(NOT_FOUND));
    assert_eq!(s.get("/projects/1/anonymizers/1/", Some(&admin)).ok(200), a);
    let r = s.delete("/projects/1/anonymizers/1/", Some(&alice));
    assert_eq!((r.status, r.text.as_str()), (204, ""));
}

#[test]
fn project_resource_pagination() {
    let ProjectWorld { s, alice, .. } = project_world();
    let coll = "/projects/1/anonymizers/";
    s.get(coll, Some(&alice)).expect(200, json!({"count": 0, "results": []}));
    for i in 0..5 {
        s.post(coll, Some(&alice), &json!({"description": format!("a{i}")})).ok(201);
    }
    let ids = |q: &str| -> (Value, Vec<i64>) {
        let v = s.get(&format!("{coll}{q}"), Some(&alice)).ok(200);
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, ["count", "results"], "no next/previous keys: {v}");
        (
            v["count"].clone(),
            v["results"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect(),
        )
    };
    assert_eq!(ids(""), (json!(5), vec![1, 2, 3, 4, 5]));
    assert_eq!(ids("?page_size=2"), (json!(5), vec![1, 2]));
    assert_eq!(ids("?page_size=2&page=3"), (json!(5), vec![5]));
    assert_eq!(ids("?page_size=2&page=last"), (json!(5), vec![5]));
    assert_eq!(ids("?page_size=abc"), (json!(5), vec![1, 2, 3, 4, 5]));
    assert_eq!(ids("?page_size=0"), (json!(5), vec![1, 2, 3, 4, 5]));
    assert_eq!(ids("?ordering=-id&page_size=2"), (json!(5), vec![5, 4]));
    assert_eq!(ids("?description=A3"), (json!(1), vec![4]));
    for q in ["?page=4&page_size=2", "?page=abc", "?page=0"] {
        s.get(&format!("{coll}{q}"), Some(&alice)).expect(404, detail("Invalid page."));
    }
}

#[test]
fn options_metadata_and_status_precedence() {
    let s = Server::start_env(&[("TA_MAX_BODY", "1000")]);
    let t = s.admin_token();
    // OPTIONS: authentication first, then DRF's metadata with the Allow header.
    s.call("OPTIONS", "/projects/", None, None).expect(403, detail(AUTH_MISSING));
    let r = s.call("OPTIONS", "/projects/", Some(&t), None);
    let m = r.ok(200);
    assert_eq!(r.header("allow"), "GET, POST, OPTIONS");
    assert_eq!(
        (m["name"].clone(), m["renders"].clone(), m["parses"].clone()),
        (
            json!("Project List"),
            json!(["application/json", "text/html"]),
            json!(["application/json", "application/x-www-form-urlencoded", "multipart/form-data"])
        )
    );
    let post = &m["actions"]["POST"];
    let brief = |f: &Value| json!([f["type"], f["required"], f["read_only"], f["label"]]);
    assert_eq!(brief(&post["title"]), json!(["string", false, false, "Title"]), "{m}");
    assert_eq!(brief(&post["id"]), json!(["integer", false, true, "Id"]), "{m}");
    assert_eq!(brief(&post["users"]), json!(["list", false, false, "Users"]), "{m}");
    let instance = s.call("OPTIONS", "/projects/1/regex_taggers/5/", Some(&t), None);
    assert_eq!(instance.ok(200)["name"], "Regex Tagger Instance");
    assert_eq!(instance.header("allow"), "GET, PUT, PATCH, DELETE, OPTIONS");
    let put = &instance.json()["actions"]["PUT"];
    assert_eq!(brief(&put["description"]), json!(["string", true, false, "Description"]), "{put}");
    assert_eq!(
        brief(&put["author_username"]),
        json!(["string", false, true, "Author username"]),
        "{put}"
    );
    let action = s.call("OPTIONS", "/projects/1/regex_taggers/5/tag_text/", Some(&t), None).ok(200);
    assert_eq!(action["name"], "Tag text");
    assert_eq!(brief(&action["actions"]["POST"]["text"]), json!(["string", true, false, "Text"]));
    assert_eq!(s.call("OPTIONS", "/health/", None, None).ok(200)["name"], "Health");
    s.call("OPTIONS", "/no_such_thing/", Some(&t), None)
        .expect(404, detail("Not found."));

    // The docs pages are open: a wrong method is a 405 for anyone.
    s.call("POST", "/swagger/", None, None)
        .expect(405, detail("Method \"POST\" not allowed."));
    // A bad token on an unknown URL: the URL's 404 first; on a known URL the token's 403.
    let bad = "0000000000000000000000000000000000000000";
    s.call("GET", "/no_such_thing/", Some(bad), None).expect(404, detail("Not found."));
    s.call("GET", "/projects/", Some(bad), None).expect(403, detail("Invalid token."));

    // Early answers (token errors, bodies past the limit) get the browsable page too.
    let html = |req: reqwest::blocking::RequestBuilder| Resp::from(req.header("Accept", "text/html").send().unwrap());
    let r = html(s.bare("GET", "/projects/").header("Authorization", format!("Token {bad}")));
    assert_eq!(
        (r.status, r.header("content-type").starts_with("text/html")),
        (403, true),
        "{}",
        r.text
    );
    assert!(r.text.contains("Invalid token."), "{}", r.text);
    let r = html(
        s.bare("POST", "/projects/")
            .header("Authorization", format!("Token {t}"))
            .header("Content-Type", "application/json")
            .body(format!("{{\"title\": \"{}\"}}", "x".repeat(2000))),
    );
    assert_eq!(
        (r.status, r.header("content-type").starts_with("text/html")),
        (413, true),
        "{}",
        r.text
    );
}
