//! HTTP tests of the accounts routes against a real server per test, bodies compared whole
//! (after [`normalize`]) against `shared/spec/api.md` §1–§2 and `conventions.md` §3:
//! registration, login, logout, the user, password change and reset, the authentication
//! error table, and the users' visibility and writes.
use crate::common::{self, normalize, Resp, Server, USER_PASSWORD};
use crate::http_api::{detail, AUTH_MISSING, NOT_FOUND, NO_PERMISSION};
use serde_json::{json, Value};

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
    // the server's stderr is read on another thread: wait for the line to arrive
    let started = std::time::Instant::now();
    let line = loop {
        let log = s.stderr();
        if let Some(l) = log.lines().find(|l| l.contains("alice@example.com") && l.contains("uid=")) {
            break l.to_string();
        }
        assert!(started.elapsed().as_secs() < 10, "reset mail logged: {log}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
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
