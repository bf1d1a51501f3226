//! HTTP tests of every route `ta serve` implements, against a real server per test.
//!
//! Bodies are compared whole (after [`normalize`] replaces timestamps and token keys)
//! against `shared/spec/api.md` §1–§3 and `shared/spec/conventions.md` §1–§6, §10, §12:
//! health, projects, 403-vs-404 rules, no pagination on `/projects/` and
//! `/users/`, 405 + `Allow`, 406, 415, JSON parse errors, non-object bodies, unknown
//! routes, slash-less paths, `?format=`, `.json`, 413, the root redirect, the API root and
//! durability across a SIGKILL.
use crate::common;

use common::{project_body, replace_in, Resp, Server, ADMIN_PASSWORD};
use serde_json::{json, Value};

pub(crate) const AUTH_MISSING: &str = "Authentication credentials were not provided.";
pub(crate) const NO_PERMISSION: &str = "You do not have permission to perform this action.";
pub(crate) const NOT_FOUND: &str = "Not found.";

pub(crate) fn detail(msg: &str) -> Value {
    json!({ "detail": msg })
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
    let root =
        json!({"projects": format!("{b}/projects/"), "users": format!("{b}/users/"), "core_variables": format!("{b}/core_variables/")});
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

/// Core variables (TEXTA's Management page): the search store's URL and credentials kept in the
/// database, set by multipart PATCH as the client sends them, passwords never shown, a value
/// that makes no usable URL refused, superusers only, and in effect when ta opens again.
#[test]
fn core_variables_choose_the_search_store_on_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start_in(dir.path(), &[]);
    let t = s.admin_token();
    let row = |id: i64, name: &str, value: Value| json!({"url": format!("{}/core_variables/{id}/", s.base), "name": name, "value": value, "env_value": null});
    s.get("/core_variables/", Some(&t)).expect(
        200,
        json!([
            row(1, "TEXTA_ES_URL", Value::Null),
            row(2, "TEXTA_ES_USERNAME", Value::Null),
            row(3, "TEXTA_ES_PASSWORD", Value::Null)
        ]),
    );
    let patch = |id: i64, name: &str, value: &str| {
        let form = reqwest::blocking::multipart::Form::new()
            .text("name", name.to_string())
            .text("value", value.to_string());
        let r = s
            .request("PATCH", &format!("/core_variables/{id}/"))
            .header("Authorization", format!("Token {t}"))
            .multipart(form);
        common::Resp::from(r.send().unwrap())
    };
    patch(1, "TEXTA_ES_URL", "http://127.0.0.1:9").expect(200, row(1, "TEXTA_ES_URL", json!("http://127.0.0.1:9")));
    patch(2, "TEXTA_ES_USERNAME", "elastic").expect(200, row(2, "TEXTA_ES_USERNAME", json!("elastic")));
    patch(3, "TEXTA_ES_PASSWORD", "s3cret").expect(200, row(3, "TEXTA_ES_PASSWORD", json!("********")));
    patch(1, "TEXTA_ES_URL", "not a url").expect(
        400,
        json!({"value": ["core variable TEXTA_ES_URL \"not a url\" is not a URL: relative URL without a base"]}),
    );
    patch(1, "TEXTA_ES_USERNAME", "x").expect(400, json!({"name": ["A core variable keeps its name."]}));
    s.get("/core_variables/9/", Some(&t)).expect(404, json!({"detail": "Not found."}));
    s.post(
        "/rest-auth/registration/",
        None,
        &json!({"username": "tavaline", "email": "t@example.org", "password1": "Pikk-salasona-99", "password2": "Pikk-salasona-99"}),
    )
    .ok(201);
    let plain = s.login("tavaline", "Pikk-salasona-99");
    s.get("/core_variables/", Some(&plain))
        .expect(403, json!({"detail": "You do not have permission to perform this action."}));
    // Opened again, ta keeps its indices in that cluster (unreachable here, as health says).
    drop(s);
    let again = Server::start_in(dir.path(), &[]);
    let health = again.get("/health/", None).ok(200);
    assert_eq!(
        (
            health["services"]["elastic"]["url"].clone(),
            health["services"]["elastic"]["alive"].clone()
        ),
        (json!("http://127.0.0.1:9"), json!(false)),
        "{health}"
    );
    // Unset, and the embedded store is back on the next start.
    let t = again.admin_token();
    let form = reqwest::blocking::multipart::Form::new().text("value", "");
    let r = again
        .request("PATCH", "/core_variables/1/")
        .header("Authorization", format!("Token {t}"))
        .multipart(form);
    assert_eq!(common::Resp::from(r.send().unwrap()).json()["value"], Value::Null);
    drop(again);
    let third = Server::start_in(dir.path(), &[]);
    assert_eq!(third.get("/health/", None).ok(200)["services"]["elastic"]["alive"], json!(true));
}
