//! The web-client contract: replays `tests/web_client/calls.json` (TEXTA's web client's calls,
//! `shared/spec/texta-client.md`) against a real `ta serve` with the client's headers, from
//! an allowed origin, checking each answer's status, the fields the client reads and the
//! values it relies on. One table, one runner: a new screen is a few rows.
use crate::common::{Resp, Server, ADMIN_PASSWORD};
use regex::Regex;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::{Duration, Instant};

const ORIGIN: &str = "http://127.0.0.1:4200";
const ACCEPT: &str = "application/json, text/plain, */*";

/// The values at `path` (dot-separated; `*` is every element; `key=value` the elements of
/// an array whose `key` is the string `value`; `$` the whole body).
fn at<'a>(v: &'a Value, path: &str) -> Vec<&'a Value> {
    let mut found = vec![v];
    for seg in path.split('.').filter(|s| *s != "$") {
        found = found
            .into_iter()
            .flat_map(|cur| match (seg, cur) {
                ("*", Value::Array(items)) => items.iter().collect::<Vec<_>>(),
                ("*", Value::Object(map)) => map.values().collect(),
                (s, Value::Array(items)) if s.contains('=') => {
                    let (key, value) = s.split_once('=').unwrap_or_default();
                    items.iter().filter(|i| i[key] == value).collect()
                }
                (s, Value::Array(items)) => s.parse::<usize>().ok().and_then(|i| items.get(i)).into_iter().collect(),
                (s, Value::Object(map)) => map.get(s).into_iter().collect(),
                _ => Vec::new(),
            })
            .collect();
    }
    found
}

fn type_ok(v: &Value, ty: &str) -> bool {
    match ty {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => false,
    }
}

/// `{name}` placeholders: a string that is one placeholder takes the saved value's type.
fn substitute(v: &Value, vars: &HashMap<String, Value>, re: &Regex) -> Value {
    match v {
        Value::String(s) => {
            if let Some(c) = re.captures(s).filter(|c| c[0].len() == s.len()) {
                if let Some(found) = vars.get(&c[1]) {
                    return found.clone();
                }
            }
            Value::String(
                re.replace_all(s, |c: &regex::Captures| match vars.get(&c[1]) {
                    Some(Value::String(t)) => t.clone(),
                    Some(other) => other.to_string(),
                    None => c[0].to_string(),
                })
                .into_owned(),
            )
        }
        Value::Array(items) => items.iter().map(|i| substitute(i, vars, re)).collect(),
        Value::Object(map) => map.iter().map(|(k, i)| (k.clone(), substitute(i, vars, re))).collect(),
        other => other.clone(),
    }
}

#[test]
fn texta_web_client_calls_answer_as_it_reads() {
    let table: Value = serde_json::from_str(include_str!("../web_client/calls.json")).expect("calls.json");
    let s = Server::start_env(&[("TA_CORS_ORIGINS", ORIGIN)]);
    let re = Regex::new(r"\{([A-Za-z_][A-Za-z0-9_]*)\}").unwrap();
    let mut vars: HashMap<String, Value> = HashMap::from([("admin_password".to_string(), json!(ADMIN_PASSWORD))]);
    let (mut failures, mut skipped, mut no_data) = (Vec::new(), 0, false);
    let calls = table["calls"].as_array().expect("calls");
    for (i, call) in calls.iter().enumerate() {
        let call = substitute(call, &vars, &re);
        let (method, path) = (call["method"].as_str().unwrap(), call["path"].as_str().unwrap());
        let send = || {
            let mut req = s.bare(method, path).header("Accept", ACCEPT).header("Origin", ORIGIN);
            if call["auth"] != json!(false) {
                if let Some(Value::String(t)) = vars.get("token") {
                    req = req.header("Authorization", format!("Token {t}"));
                }
            }
            if let Some(body) = call.get("body") {
                req = req.json(body);
            }
            if let Some(fields) = call["form"].as_object() {
                let mut form = fields.iter().fold(reqwest::blocking::multipart::Form::new(), |form, (k, v)| {
                    form.text(k.clone(), v.as_str().unwrap_or_default().to_string())
                });
                // `file`: {"name", "content"}, sent as the form's file part
                if let Some(file) = call["file"].as_object() {
                    let content = file["content"].as_str().unwrap_or_default().as_bytes().to_vec();
                    let name = file["name"].as_str().unwrap_or("file").to_string();
                    form = form.part("file", reqwest::blocking::multipart::Part::bytes(content).file_name(name));
                }
                req = req.multipart(form);
            }
            Resp::from(req.send().unwrap_or_else(|e| panic!("{method} {path}: {e}")))
        };
        let mut got = send();
        if let Some(poll) = call.get("poll") {
            let deadline = Instant::now() + Duration::from_secs(120);
            let settled = |r: &Resp| {
                let body: Value = serde_json::from_slice(&r.bytes).unwrap_or(Value::Null);
                let values = poll["in"].as_array().cloned().unwrap_or_default();
                at(&body, poll["path"].as_str().unwrap_or(""))
                    .first()
                    .is_some_and(|v| values.contains(v))
            };
            while !settled(&got) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(300));
                got = send();
            }
        }
        // a call that reads what a refused one would have made is skipped with it
        no_data |= call["language_data"] == json!(true) && got.status == 503;
        if call["language_data"] == json!(true) && no_data {
            println!("skipped: #{i} {method} {path} (language data not installed)");
            skipped += 1;
            continue;
        }
        let mut errs = Vec::new();
        if got.status != call["status"].as_u64().unwrap_or(200) as u16 {
            errs.push(format!("status {} (body {})", got.status, got.text));
        }
        if got.header("access-control-allow-origin") != ORIGIN || got.header("access-control-allow-credentials") != "true" {
            errs.push("no CORS headers for the allowed origin".to_string());
        }
        if let Some(want) = call["content_type"].as_str() {
            if got.header("content-type") != want {
                errs.push(format!("content type {:?}, not {want}", got.header("content-type")));
            }
        }
        let body: Value = serde_json::from_slice(&got.bytes).unwrap_or(Value::Null);
        for read in call["reads"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            let (path, ty) = read.split_once(':').unwrap_or((read, ""));
            let found = at(&body, path);
            if found.is_empty() {
                errs.push(format!("reads {path}: missing"));
            } else if !ty.is_empty() && !found.iter().all(|v| type_ok(v, ty)) {
                errs.push(format!("reads {path}: not all {ty}: {found:?}"));
            }
        }
        for (path, want) in call["expect"].as_object().into_iter().flatten() {
            let found = at(&body, path);
            if found.first() != Some(&want) {
                errs.push(format!("{path}: expected {want}, got {found:?}"));
            }
        }
        for (path, wanted) in call["contains"].as_object().into_iter().flatten() {
            let found = at(&body, path);
            let items = found.first().and_then(|v| v.as_array());
            for want in wanted.as_array().into_iter().flatten() {
                if !items.is_some_and(|items| items.contains(want)) {
                    errs.push(format!("{path}: has no {want}"));
                }
            }
        }
        for (name, path) in call["save"].as_object().into_iter().flatten() {
            match at(&body, path.as_str().unwrap_or("")).first() {
                Some(v) => {
                    vars.insert(name.clone(), (*v).clone());
                }
                None => errs.push(format!("save {name}: nothing at {path}")),
            }
        }
        if !errs.is_empty() {
            failures.push(format!("#{i} {} {method} {path}: {}", call["screen"], errs.join("; ")));
        }
    }
    let passed = calls.len() - failures.len() - skipped;
    println!("web client contract: {passed} passed, {} failed, {skipped} skipped", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn preflights_are_answered_before_authentication_and_only_for_listed_origins() {
    let s = Server::start_env(&[("TA_CORS_ORIGINS", &format!("{ORIGIN}, http://localhost:4200"))]);
    let preflight = |origin: &str| {
        let r = s
            .bare("OPTIONS", "/projects/1/taggers/")
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "authorization, content-type, x-xsrf-token")
            .send()
            .unwrap();
        Resp::from(r)
    };
    let ok = preflight(ORIGIN);
    assert!(ok.status == 200 || ok.status == 204, "{}", ok.status);
    assert_eq!(ok.header("access-control-allow-origin"), ORIGIN);
    assert_eq!(ok.header("access-control-allow-credentials"), "true");
    let methods = ok.header("access-control-allow-methods");
    for m in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] {
        assert!(methods.contains(m), "{methods}");
    }
    let headers = ok.header("access-control-allow-headers");
    for h in ["accept", "authorization", "content-type", "x-xsrf-token"] {
        assert!(headers.contains(h), "{headers}");
    }
    assert_eq!(
        preflight("http://localhost:4200").header("access-control-allow-origin"),
        "http://localhost:4200"
    );
    assert_eq!(preflight("http://evil.example").header("access-control-allow-origin"), "");
    // An error answer to an allowed origin still carries the headers the client needs.
    let denied = Resp::from(s.request("GET", "/projects/").header("Origin", ORIGIN).send().unwrap());
    assert_eq!(
        (denied.status, denied.header("access-control-allow-origin")),
        (403, ORIGIN.to_string())
    );
    // Without --cors-origin nothing cross-origin is allowed.
    let closed = Server::start();
    let r = Resp::from(closed.request("GET", "/health/").header("Origin", ORIGIN).send().unwrap());
    assert_eq!(r.header("access-control-allow-origin"), "");
}
