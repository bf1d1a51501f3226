//! Replays `tests/conformance/http/scenarios.json` (a copy of `shared/conformance/http/`) against one fresh `ta serve`, exactly
//! as `shared/conformance/http/README.md` describes: scenarios in file order sharing one
//! variable store, `{placeholder}` substitution (whole-string placeholders keep their JSON
//! type), `save`, `poll`, JSON / form / multipart / raw bodies, and every `expect_*` kind
//! with the README's comparison rules.
//!
//! A scenario is SKIPPED when one of its step paths contains a resource-kind segment (from
//! [`GATED`]) that is not yet in [`IMPLEMENTED`]. Extend `IMPLEMENTED` as routes land.
//! Set `TA_CONFORMANCE_SKIP_INDEX=1` to also skip scenarios tagged `index`.
//!
//! The test prints `http conformance: N passed, M failed, K skipped`, then every failed
//! step (scenario, step index, request, mismatches), and asserts that nothing failed.
use crate::common;

use common::{Server, ADMIN_PASSWORD};
use regex::Regex;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Resource kinds (path segments) the server serves. The lead extends this list.
const IMPLEMENTED: &[&str] = &[
    "health",
    "rest-auth",
    "users",
    "projects",
    "get_indices",
    "tasks",
    "regex_taggers",
    "regex_tagger_groups",
    "anonymizers",
    "mlp",
    "dataset_imports",
    "apply_tagger_group",
    "taggers",
    "tagger_groups",
    "embeddings",
    "torchtaggers",
    "lexicons",
    "searches",
    "index",
    "core_variables",
    "mlp_index",
    "reindexer",
];

/// Every resource-kind segment that gates a scenario until it is in [`IMPLEMENTED`].
const GATED: &[&str] = &[
    "regex_taggers",
    "regex_tagger_groups",
    "anonymizers",
    "mlp",
    "dataset_imports",
    "embeddings",
    "taggers",
    "tagger_groups",
    "torchtaggers",
    "mlp_index",
    "lexicons",
    "searches",
    "reindexer",
    "clustering",
    "embedding_clusters",
    "index",
    "core_variables",
    // An action that needs the index store (its scenario imports a dataset first).
    "apply_tagger_group",
];

/// The reference's project links to resources ta does not have yet. A project lists only
/// the links that answer, so the expected bodies drop these; each comes back with its
/// resource.
const UNLISTED_LINKS: &[&str] = &["embedding_clusters"];

/// `v` with the [`UNLISTED_LINKS`] removed from every `resources` object in it.
fn without_unlisted_links(v: Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.into_iter().map(without_unlisted_links).collect()),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, x)| match (k.as_str(), x) {
                    ("resources", Value::Object(links)) => {
                        let kept = links.into_iter().filter(|(name, _)| !UNLISTED_LINKS.contains(&name.as_str()));
                        (k, Value::Object(kept.collect()))
                    }
                    (_, x) => (k, without_unlisted_links(x)),
                })
                .collect(),
        ),
        other => other,
    }
}

/// Whether a step of the scenario calls language processing (`/mlp/...`).
fn analyses_text(scenario: &Value) -> bool {
    scenario["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|step| step["path"].as_str().is_some_and(|p| p.starts_with("/mlp/")))
}

fn scenarios_path() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/http/scenarios.json").to_string()
}

/// The first gated, not implemented segment among the scenario's step paths.
fn missing_kind(scenario: &Value) -> Option<String> {
    for step in scenario["steps"].as_array().into_iter().flatten() {
        let path = step["path"].as_str().unwrap_or("");
        let path = path.split('?').next().unwrap_or("");
        for seg in path.split('/') {
            if GATED.contains(&seg) && !IMPLEMENTED.contains(&seg) {
                return Some(seg.to_string());
            }
        }
    }
    None
}

// ---------------------------------------------------------------------------------------
// Placeholders
// ---------------------------------------------------------------------------------------

struct Vars {
    map: HashMap<String, Value>,
    re: Regex,
}

impl Vars {
    fn new() -> Vars {
        Vars {
            map: HashMap::new(),
            re: Regex::new(r"\{([A-Za-z_][A-Za-z0-9_]*)\}").unwrap(),
        }
    }

    fn text_of(v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }

    /// Substitute in text; unknown placeholders stay as they are. With `escape` the
    /// values are regex-escaped (for `expect_patterns`).
    fn text(&self, s: &str, escape: bool) -> String {
        self.re
            .replace_all(s, |c: &regex::Captures| match self.map.get(&c[1]) {
                Some(v) if escape => regex::escape(&Self::text_of(v)),
                Some(v) => Self::text_of(v),
                None => c[0].to_string(),
            })
            .into_owned()
    }

    /// Substitute inside a JSON value; a string that is exactly one placeholder whose
    /// value is not a string becomes that raw JSON value.
    fn value(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => {
                if let Some(c) = self.re.captures(s) {
                    if c[0].len() == s.len() {
                        if let Some(val) = self.map.get(&c[1]) {
                            if !val.is_string() {
                                return val.clone();
                            }
                        }
                    }
                }
                Value::String(self.text(s, false))
            }
            Value::Array(a) => Value::Array(a.iter().map(|x| self.value(x)).collect()),
            Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (self.text(k, false), self.value(x))).collect()),
            other => other.clone(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// JSON paths and comparison
// ---------------------------------------------------------------------------------------

/// Value at a dot path (`$` = whole body; integer segments index arrays).
fn at<'a>(body: &'a Value, path: &str) -> Option<&'a Value> {
    if path == "$" {
        return Some(body);
    }
    let mut cur = body;
    for seg in path.split('.') {
        cur = match cur {
            Value::Object(o) => o.get(seg)?,
            Value::Array(a) => a.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// README comparison: objects ignore key order, arrays compare in order, numbers by value.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w))),
        _ => a == b,
    }
}

fn type_ok(v: &Value, ty: &str) -> bool {
    ty.split('|').any(|t| match t.trim() {
        "string" => v.is_string(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => false,
    })
}

// ---------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------

/// A response as the checks see it.
struct Got {
    status: u16,
    content_type: String,
    raw: Vec<u8>,
    /// The body parsed as JSON (`None` when it is not JSON).
    json: Option<Value>,
}

/// One step's request after substitution, printable for failure reports.
struct Req {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Option<(String, Vec<u8>)>,
}

impl Req {
    fn describe(&self) -> String {
        let mut s = format!("{} {}", self.method, self.path);
        for (k, v) in &self.headers {
            s.push_str(&format!("\n      {k}: {v}"));
        }
        if let Some((ct, b)) = &self.body {
            let text = String::from_utf8_lossy(b);
            let text: String = text.chars().take(400).collect();
            s.push_str(&format!("\n      Content-Type: {ct}\n      {text}"));
        }
        s
    }
}

fn multipart(mp: &Value) -> (String, Vec<u8>) {
    let boundary = "----ta-conformance-boundary-7f3a9c";
    let mut out = Vec::new();
    for (name, v) in mp["fields"].as_object().into_iter().flatten() {
        out.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes());
        out.extend_from_slice(Vars::text_of(v).as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    for (name, f) in mp["files"].as_object().into_iter().flatten() {
        let filename = f["filename"].as_str().unwrap_or("file");
        let ct = f["content_type"].as_str().unwrap_or("application/octet-stream");
        out.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\nContent-Type: {ct}\r\n\r\n"
            )
            .as_bytes(),
        );
        out.extend_from_slice(f["content"].as_str().unwrap_or("").as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), out)
}

fn build_request(step: &Value, vars: &Vars) -> Req {
    let method = step["method"].as_str().unwrap_or("GET").to_string();
    let path = vars.text(step["path"].as_str().unwrap_or("/"), false);
    let mut headers: Vec<(String, String)> = Vec::new();
    for (k, v) in step["headers"].as_object().into_iter().flatten() {
        headers.push((k.clone(), vars.text(&Vars::text_of(v), false)));
    }
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("accept")) {
        headers.push(("Accept".into(), "application/json".into()));
    }
    let body = if let Some(b) = step.get("body") {
        Some(("application/json".to_string(), serde_json::to_vec(&vars.value(b)).unwrap()))
    } else if let Some(form) = step.get("form") {
        let mut ser = form_urlencoded::Serializer::new(String::new());
        for pair in vars.value(form).as_array().into_iter().flatten() {
            ser.append_pair(&Vars::text_of(&pair[0]), &Vars::text_of(&pair[1]));
        }
        Some(("application/x-www-form-urlencoded".to_string(), ser.finish().into_bytes()))
    } else if let Some(mp) = step.get("multipart") {
        Some(multipart(&vars.value(mp)))
    } else if let Some(raw) = step.get("raw_body") {
        let ct = step["content_type"].as_str().unwrap_or("application/octet-stream").to_string();
        Some((ct, vars.text(raw.as_str().unwrap_or(""), false).into_bytes()))
    } else {
        None
    };
    Req {
        method,
        path,
        headers,
        body,
    }
}

fn send(server: &Server, req: &Req, base: &str) -> Result<Got, String> {
    let m = reqwest::Method::from_bytes(req.method.as_bytes()).map_err(|e| e.to_string())?;
    let mut r = server.client().request(m, format!("{base}{}", req.path));
    for (k, v) in &req.headers {
        r = r.header(k.as_str(), v.as_str());
    }
    if let Some((ct, b)) = &req.body {
        r = r.header("Content-Type", ct.as_str()).body(b.clone());
    }
    let resp = r.send().map_err(|e| format!("request failed: {e}"))?;
    let status = resp.status().as_u16();
    let content_type = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let raw = resp.bytes().map_err(|e| e.to_string())?.to_vec();
    let json = serde_json::from_slice(&raw).ok();
    Ok(Got {
        status,
        content_type,
        raw,
        json,
    })
}

// ---------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------

fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 600 {
        format!("{}...", s.chars().take(600).collect::<String>())
    } else {
        s
    }
}

/// All mismatches of one response against the step's expectations.
fn check(step: &Value, got: &Got, vars: &Vars) -> Vec<String> {
    let mut errs = Vec::new();
    let null = Value::Null;
    let body = got.json.as_ref().unwrap_or(&null);
    let body_text = || String::from_utf8_lossy(&got.raw).chars().take(600).collect::<String>();
    let need_json = |what: &str, errs: &mut Vec<String>| {
        if got.json.is_none() {
            errs.push(format!("{what}: body is not JSON: {:?}", body_text()));
            false
        } else {
            true
        }
    };

    if let Some(s) = step.get("expect_status").and_then(Value::as_u64) {
        if got.status as u64 != s {
            errs.push(format!("status: expected {s}, got {} (body {})", got.status, body_text()));
        }
    }
    if let Some(list) = step.get("expect_status_in").and_then(Value::as_array) {
        if !list.iter().any(|s| s.as_u64() == Some(got.status as u64)) {
            errs.push(format!(
                "status: expected one of {}, got {} (body {})",
                show(&Value::Array(list.clone())),
                got.status,
                body_text()
            ));
        }
    }
    if let Some(exp) = step.get("expect_body") {
        if need_json("expect_body", &mut errs) {
            let exp = vars.value(exp);
            if !json_eq(&exp, body) {
                errs.push(format!("body:\n      expected {}\n      got      {}", show(&exp), show(body)));
            }
        }
    }
    if step.get("expect_empty_body").and_then(Value::as_bool) == Some(true) && !got.raw.is_empty() {
        errs.push(format!("body: expected empty, got {:?}", body_text()));
    }
    if let Some(keys) = step.get("expect_keys").and_then(Value::as_array) {
        let mut want: Vec<String> = keys.iter().map(Vars::text_of).collect();
        want.sort();
        match body.as_object() {
            Some(o) => {
                let mut have: Vec<String> = o.keys().cloned().collect();
                have.sort();
                if have != want {
                    errs.push(format!("keys: expected {want:?}, got {have:?}"));
                }
            }
            None => errs.push(format!("keys: body is not an object: {}", body_text())),
        }
    }
    if let Some(keys) = step.get("expect_keys_subset").and_then(Value::as_array) {
        match body.as_object() {
            Some(o) => {
                let missing: Vec<String> = keys.iter().map(Vars::text_of).filter(|k| !o.contains_key(k)).collect();
                if !missing.is_empty() {
                    errs.push(format!("keys subset: missing {missing:?} in {}", show(body)));
                }
            }
            None => errs.push(format!("keys subset: body is not an object: {}", body_text())),
        }
    }
    let map = |name: &str| -> Map<String, Value> { step.get(name).and_then(Value::as_object).cloned().unwrap_or_default() };
    for (path, exp) in map("expect_values") {
        let exp = vars.value(&exp);
        match at(body, &path) {
            Some(v) if json_eq(v, &exp) => {}
            Some(v) => errs.push(format!("value at {path}: expected {}, got {}", show(&exp), show(v))),
            None => errs.push(format!("value at {path}: missing (expected {}) in {}", show(&exp), show(body))),
        }
    }
    for (path, ty) in map("expect_types") {
        let ty = ty.as_str().unwrap_or("");
        match at(body, &path) {
            Some(v) if type_ok(v, ty) => {}
            Some(v) => errs.push(format!("type at {path}: expected {ty}, got {}", show(v))),
            None => errs.push(format!("type at {path}: missing (expected {ty}) in {}", show(body))),
        }
    }
    for (path, n) in map("expect_len") {
        let len = match at(body, &path) {
            Some(Value::Array(a)) => Some(a.len()),
            Some(Value::Object(o)) => Some(o.len()),
            _ => None,
        };
        if len.map(|l| l as u64) != n.as_u64() {
            errs.push(format!("length at {path}: expected {n}, got {len:?} in {}", show(body)));
        }
    }
    for (path, pat) in map("expect_patterns") {
        let pat = vars.text(pat.as_str().unwrap_or(""), true);
        match (Regex::new(&pat), at(body, &path).and_then(Value::as_str)) {
            (Err(e), _) => errs.push(format!("pattern at {path}: bad regex {pat:?}: {e}")),
            (Ok(re), Some(s)) if re.is_match(s) => {}
            (Ok(_), v) => errs.push(format!("pattern at {path}: {pat:?} does not match {v:?}")),
        }
    }
    for (path, options) in map("expect_one_of") {
        let options = vars.value(&options);
        let opts = options.as_array().cloned().unwrap_or_default();
        match at(body, &path) {
            Some(v) if opts.iter().any(|o| json_eq(o, v)) => {}
            v => errs.push(format!(
                "one-of at {path}: {} not in {}",
                v.map_or("missing".into(), show),
                show(&options)
            )),
        }
    }
    for (path, el) in map("expect_contains") {
        let el = vars.value(&el);
        match at(body, &path).and_then(Value::as_array) {
            Some(a) if a.iter().any(|x| json_eq(x, &el)) => {}
            Some(a) => errs.push(format!(
                "contains at {path}: no element equals {}\n      in {}",
                show(&el),
                show(&Value::Array(a.clone()))
            )),
            None => errs.push(format!("contains at {path}: not an array in {}", show(body))),
        }
    }
    for (path, subs) in map("expect_not_contains") {
        match at(body, &path).and_then(Value::as_str) {
            Some(s) => {
                for sub in subs.as_array().into_iter().flatten() {
                    let sub = vars.text(sub.as_str().unwrap_or(""), false);
                    if s.contains(&sub) {
                        errs.push(format!("not-contains at {path}: {s:?} contains {sub:?}"));
                    }
                }
            }
            None => errs.push(format!("not-contains at {path}: not a string in {}", show(body))),
        }
    }
    for (path, other) in map("expect_not_equal") {
        let other = vars.value(&other);
        match at(body, &path) {
            Some(v) if !json_eq(v, &other) => {}
            v => errs.push(format!("not-equal at {path}: got {}", v.map_or("missing".into(), show))),
        }
    }
    if let Some(ct) = step.get("expect_content_type").and_then(Value::as_str) {
        if !got.content_type.to_ascii_lowercase().starts_with(&ct.to_ascii_lowercase()) {
            errs.push(format!("content type: expected {ct}, got {:?}", got.content_type));
        }
    }
    errs
}

/// Run one step (with its poll loop); returns the mismatches.
fn run_step(server: &Server, step: &Value, vars: &mut Vars, base: &str) -> (Req, Vec<String>) {
    let req = build_request(step, vars);
    let deadline = step
        .get("poll")
        .map(|p| Instant::now() + Duration::from_secs_f64(p["timeout_s"].as_f64().unwrap_or(60.0)));
    let got = loop {
        let got = match send(server, &req, base) {
            Ok(g) => g,
            Err(e) => return (req, vec![e]),
        };
        let Some(poll) = step.get("poll") else {
            break got;
        };
        let until = vars.value(&poll["until"]);
        let path = until["path"].as_str().unwrap_or("$");
        let done = got
            .json
            .as_ref()
            .and_then(|b| at(b, path))
            .is_some_and(|v| until["in"].as_array().into_iter().flatten().any(|w| json_eq(v, w)));
        if done {
            break got;
        }
        if Instant::now() >= deadline.unwrap() {
            let last = got
                .json
                .as_ref()
                .map_or_else(|| String::from_utf8_lossy(&got.raw).into_owned(), show);
            return (
                req,
                vec![format!(
                    "poll timed out waiting for {path} in {}; last body {last}",
                    show(&until["in"])
                )],
            );
        }
        std::thread::sleep(Duration::from_secs_f64(poll["interval_s"].as_f64().unwrap_or(1.0)));
    };
    let errs = check(step, &got, vars);
    if let (Some(save), Some(body)) = (step.get("save").and_then(Value::as_object), got.json.as_ref()) {
        for (name, path) in save {
            match at(body, path.as_str().unwrap_or("$")) {
                Some(v) => {
                    vars.map.insert(name.clone(), v.clone());
                }
                None => {
                    let mut errs = errs;
                    errs.push(format!("save {name}: nothing at {path}"));
                    return (req, errs);
                }
            }
        }
    }
    (req, errs)
}

#[test]
fn http_conformance() {
    let text = std::fs::read_to_string(scenarios_path()).expect("tests/conformance/http/scenarios.json is readable");
    let scenarios: Value = serde_json::from_str(&text).expect("scenarios.json is a JSON array");
    let scenarios: Vec<Value> = serde_json::from_value(without_unlisted_links(scenarios)).unwrap();
    let skip_index = std::env::var("TA_CONFORMANCE_SKIP_INDEX").is_ok_and(|v| v == "1");

    let server = Server::start();
    let base = server.base.clone();
    let mut vars = Vars::new();
    vars.map.insert("base_url".into(), Value::String(base.clone()));
    vars.map.insert("admin_password".into(), Value::String(ADMIN_PASSWORD.into()));
    let run_id = format!(
        "r{:x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_micros()
            % 0xffff_ffff
    );
    vars.map.insert("run_id".into(), Value::String(run_id));

    // Without language data the server refuses language processing (503); those scenarios
    // need the data (CI installs it), so they are skipped and said to be.
    let language_data = server.get("/health/", None).json()["mlp"]["alive"] == Value::Bool(true);
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut report = Vec::new();
    let mut skip_lines = Vec::new();
    for sc in &scenarios {
        let name = sc["name"].as_str().unwrap_or("?");
        if let Some(kind) = missing_kind(sc) {
            skipped += 1;
            skip_lines.push(format!("  skipped {name}: `{kind}` not implemented"));
            continue;
        }
        if !language_data && analyses_text(sc) {
            skipped += 1;
            println!("skipped: http conformance scenario {name} needs language data (run scripts/setup.sh)");
            continue;
        }
        if skip_index && sc["tags"].as_array().is_some_and(|t| t.iter().any(|x| x == "index")) {
            skipped += 1;
            skip_lines.push(format!("  skipped {name}: tagged index"));
            continue;
        }
        let mut ok = true;
        for (i, step) in sc["steps"].as_array().into_iter().flatten().enumerate() {
            let (req, errs) = run_step(&server, step, &mut vars, &base);
            if !errs.is_empty() {
                ok = false;
                report.push(format!(
                    "FAILED {name} step {i}: {}\n    - {}",
                    req.describe(),
                    errs.join("\n    - ")
                ));
            }
        }
        if ok {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    println!("http conformance: {passed} passed, {failed} failed, {skipped} skipped");
    for l in &skip_lines {
        println!("{l}");
    }
    for r in &report {
        println!("{r}");
    }
    assert_eq!(
        failed,
        0,
        "http conformance: {passed} passed, {failed} failed, {skipped} skipped\n{}",
        report.join("\n")
    );
}

/// The runner's own rules (placeholders, paths, comparison), without a server.
#[test]
fn runner_rules() {
    let mut vars = Vars::new();
    vars.map.insert("pk".into(), Value::from(7));
    vars.map.insert("base_url".into(), Value::String("http://h:1/api/v1".into()));
    assert_eq!(vars.value(&Value::String("{pk}".into())), Value::from(7));
    assert_eq!(vars.value(&Value::String("p{pk}".into())), Value::String("p7".into()));
    assert_eq!(vars.text("{base_url}/x/{unknown}", false), "http://h:1/api/v1/x/{unknown}");
    assert_eq!(vars.text("^{base_url}/$", true), r"^http://h:1/api/v1/$");
    let body: Value = serde_json::json!({"tags": [{"a": 1}, {"b": [5, 6]}]});
    assert_eq!(at(&body, "tags.1.b.1"), Some(&Value::from(6)));
    assert_eq!(at(&body, "$"), Some(&body));
    assert!(at(&body, "tags.5").is_none());
    assert!(json_eq(
        &serde_json::json!({"x": 1, "y": [1.0]}),
        &serde_json::json!({"y": [1], "x": 1.0})
    ));
    assert!(!json_eq(&serde_json::json!([1, 2]), &serde_json::json!([2, 1])));
    assert!(!json_eq(&serde_json::json!({"x": 1}), &serde_json::json!({"x": 1, "y": 2})));
    assert!(type_ok(&serde_json::json!(3.0), "integer") && !type_ok(&serde_json::json!(3.5), "integer"));
    assert!(type_ok(&Value::Null, "string|null"));
    assert!(missing_kind(&serde_json::json!({"steps": [{"path": "/projects/1/"}]})).is_none());
}
