//! The access matrix (conventions.md §4), generated from the operation catalogue: every
//! declared operation is called as an anonymous caller, as a user outside the project, as a
//! member and as the superuser, and each answer is checked against the permission rules. Nothing
//! of a project reaches a caller who may not see it: the refusals are the fixed bodies, whole.
//! Also: uploaded files stay inside the data directory whatever name the client gives them.
use crate::common;

use common::Server;
use serde_json::{json, Value};
use ta::engine::operations::{self, Access, Operation};

const AUTH_MISSING: &str = "Authentication credentials were not provided.";
const NOT_MEMBER: &str = "Insufficient permissions for this resource.";
const NOT_ALLOWED_ON_PROJECT: &str = "Insufficient permissions for this project.";
/// An id that names nothing, so calls never change what the test created.
const MISSING: &str = "999999";

/// The operation's path with `{project_pk}` = `pk` and every other parameter naming nothing.
fn fill(o: &Operation, pk: &str) -> String {
    let mut path = o.path.replace("{project_pk}", pk);
    for name in o.param_names() {
        path = path.replace(&format!("{{{name}}}"), MISSING);
    }
    path
}

fn call(s: &Server, o: &Operation, path: &str, token: Option<&str>) -> common::Resp {
    s.call(o.method.as_str(), path, token, Some(&json!({})))
}

fn detail(r: &common::Resp) -> Value {
    r.json()["detail"].clone()
}

#[test]
fn every_operation_answers_each_caller_by_the_rules() {
    let s = Server::start();
    let admin = s.admin_token();
    let member = s.register("member");
    let outsider = s.register("outsider");
    let member_url = s.me(&member)["url"].as_str().unwrap().to_string();
    let pk = s.create_project(&admin, "private", &[&member_url])["id"].to_string();
    s.import_jsonl(&admin, pk.parse().unwrap(), "secret", "{\"text\": \"salajane tekst\"}\n");
    let mut checked = 0;
    for o in operations::all() {
        let scoped = o.path.starts_with("/projects/{project_pk}/");
        let project_itself = o.path == "/projects/{project_pk}/";
        let path = fill(o, &pk);
        let what = format!("{} {}", o.method.as_str(), o.path);

        // Anonymous: authentication comes first, for every method.
        let r = call(&s, o, &path, None);
        if o.access != Access::Open {
            assert_eq!((r.status, detail(&r)), (403, json!(AUTH_MISSING)), "anonymous {what}: {}", r.text);
        }
        assert!(r.status < 500, "anonymous {what}: {} {}", r.status, r.text);

        if scoped {
            // Outside the project: the one refusal, whole, whatever the method or ids.
            let r = call(&s, o, &path, Some(&outsider));
            if project_itself {
                assert_eq!((r.status, r.json()), (404, json!({"detail": "Not found."})), "outsider {what}");
            } else {
                assert_eq!(
                    (r.status, r.json()),
                    (403, json!({"detail": NOT_MEMBER})),
                    "outsider {what}: {}",
                    r.text
                );
            }
            // A project that does not exist: the same refusal, even for the superuser.
            let r = call(&s, o, &fill(o, MISSING), Some(&admin));
            if project_itself {
                assert_eq!(r.status, 404, "superuser, missing project, {what}: {}", r.text);
            } else {
                assert_eq!(
                    (r.status, r.json()),
                    (403, json!({"detail": NOT_MEMBER})),
                    "superuser {what}: {}",
                    r.text
                );
            }
            // A member passes the permission check (only the project itself is the superuser's to
            // change).
            let r = call(&s, o, &path, Some(&member));
            assert!(r.status < 500, "member {what}: {} {}", r.status, r.text);
            if r.status == 403 {
                assert_eq!(detail(&r), json!(NOT_ALLOWED_ON_PROJECT), "member {what}: {}", r.text);
            }
        }
        // The superuser passes every permission check and nothing breaks (logging out, or
        // replacing or deleting the project, would end what the test goes on with).
        if o.path.contains("logout") || (project_itself && o.method.as_str() != "GET") {
            continue;
        }
        let r = call(&s, o, &path, Some(&admin));
        assert!(r.status < 500, "superuser {what}: {} {}", r.status, r.text);
        if scoped {
            assert_ne!(r.status, 403, "superuser {what}: {}", r.text);
        }
        checked += 1;
    }
    assert!(checked > 100, "{checked} operations");
    // What the outsider may list shows nothing of the project.
    s.get("/projects/", Some(&outsider)).expect(200, json!([]));
    s.get(&format!("/projects/{pk}/"), Some(&outsider))
        .expect(404, json!({"detail": "Not found."}));
}

#[test]
fn uploads_stay_inside_the_data_directory_whatever_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("deep").join("data");
    let s = Server::start_in(&data, &[]);
    let t = s.admin_token();
    let pk = s.create_project(&t, "u", &[])["id"].as_i64().unwrap();
    for name in ["../../escape.jsonl", "/tmp/../../escape.jsonl", "..\\..\\escape.jsonl", "../"] {
        let r = s.upload(
            &format!("/projects/{pk}/dataset_imports/"),
            &t,
            &[("description", "d"), ("index", "up")],
            b"{\"text\": \"a\"}\n".to_vec(),
            name,
        );
        assert!(matches!(r.status, 201 | 400), "{name}: {} {}", r.status, r.text);
    }
    for outside in [dir.path().join("escape.jsonl"), dir.path().join("deep").join("escape.jsonl")] {
        assert!(!outside.exists(), "{} was written", outside.display());
    }
    let stray: Vec<_> = std::fs::read_dir(dir.path().join("deep"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(stray, [std::ffi::OsString::from("data")]);
}
