//! A replay server of recorded Elasticsearch 7 answers, for tests: a small HTTP/1.1 server on
//! a std `TcpListener` answers the scenarios of `tests/fixtures/elastic/*.json` (format in that
//! folder's README), checking that each request matches the recorded one, in order. The
//! crate's own tests use it, and the root crate's (feature `replay`) to run whole operations
//! against a cluster that cannot be installed on the build machine.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::ElasticBackend;

/// The replay server of one scenario; `finish` checks that it was played through.
pub struct Mock {
    pub url: String,
    state: Arc<Mutex<Replay>>,
    stop: Arc<AtomicBool>,
}

#[derive(Default)]
struct Replay {
    exchanges: Vec<Value>,
    /// The first exchange not played yet.
    next: usize,
    /// Exchanges played out of order (marked `"unordered": true`).
    played: Vec<usize>,
    failures: Vec<String>,
}

/// One parsed request.
struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

/// The exchanges of scenario `name` in fixture file `file`.
pub fn scenario(file: &str, name: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/elastic")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let fixture: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(fixture["source"].is_string(), "{file} names where its shapes come from");
    fixture["scenarios"][name]
        .as_array()
        .unwrap_or_else(|| panic!("{file} has no scenario {name}"))
        .clone()
}

/// `actual` matches `expected`, where the string `"<any>"` matches anything.
fn matches(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::String(s), _) if s == "<any>" => true,
        (Value::Object(e), Value::Object(a)) => e.len() == a.len() && e.iter().all(|(k, v)| a.get(k).is_some_and(|x| matches(v, x))),
        (Value::Array(e), Value::Array(a)) => e.len() == a.len() && e.iter().zip(a).all(|(x, y)| matches(x, y)),
        _ => expected == actual,
    }
}

impl Replay {
    /// Why `request` is not the recorded one, if it is not.
    fn mismatch(expected: &Value, request: &Request) -> Option<String> {
        if expected["method"] != request.method.as_str() || expected["path"] != request.path.as_str() {
            return Some(format!("expected {} {}", expected["method"], expected["path"]));
        }
        for (name, value) in expected["headers"].as_object().into_iter().flatten() {
            let sent = request.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
            if sent != value.as_str() {
                return Some(format!("header {name}: expected {value}, got {sent:?}"));
            }
        }
        let text = String::from_utf8_lossy(&request.body);
        if let Some(json) = expected.get("json") {
            let sent: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            if !matches(json, &sent) {
                return Some(format!("body: expected {json}, got {text}"));
            }
        }
        if let Some(lines) = expected.get("ndjson") {
            let sent: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap_or(Value::Null)).collect();
            if !text.ends_with('\n') || !matches(lines, &Value::Array(sent)) {
                return Some(format!("ndjson body: expected {lines}, got {text:?}"));
            }
        }
        None
    }

    /// The answer to `request`: the next exchange's, or that of a later exchange marked
    /// `"unordered": true` (a request a client sends concurrently with others) that matches.
    fn answer(&mut self, request: &Request) -> (u16, String) {
        let label = format!("{} {}", request.method, request.path);
        let Some(exchange) = self.exchanges.get(self.next).cloned() else {
            self.failures.push(format!("unexpected request {label}"));
            return (500, json!({"error": "mock: no more exchanges"}).to_string());
        };
        // Candidates: the unplayed exchanges up to and including the next ordered one.
        let mut candidates = Vec::new();
        for i in self.next..self.exchanges.len() {
            if self.played.contains(&i) {
                continue;
            }
            candidates.push(i);
            if self.exchanges[i]["unordered"] != true {
                break;
            }
        }
        let found = candidates
            .iter()
            .copied()
            .find(|i| Self::mismatch(&self.exchanges[*i]["request"], request).is_none());
        let Some(index) = found else {
            let why = Self::mismatch(&exchange["request"], request).unwrap_or_default();
            self.failures.push(format!("exchange {}: {label}: {why}", self.next));
            return (500, json!({"error": format!("mock: {why}")}).to_string());
        };
        self.played.push(index);
        while self.played.contains(&self.next) {
            self.next += 1;
        }
        let response = &self.exchanges[index]["response"];
        let status = response["status"].as_u64().expect("response.status") as u16;
        let body = response.get("body").map(Value::to_string).unwrap_or_default();
        (status, body)
    }
}

fn read_request(reader: &mut impl BufRead) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

fn serve_connection(stream: TcpStream, state: Arc<Mutex<Replay>>) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
    let mut writer = stream;
    while let Some(request) = read_request(&mut reader) {
        let (status, body) = state.lock().unwrap().answer(&request);
        let body = if request.method == "HEAD" { String::new() } else { body };
        let head = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json; charset=UTF-8\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        if writer
            .write_all(head.as_bytes())
            .and_then(|_| writer.write_all(body.as_bytes()))
            .is_err()
        {
            return;
        }
    }
}

impl Mock {
    /// A server replaying `scenario` of `file`.
    pub fn start(file: &str, name: &str) -> Mock {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(Replay {
            exchanges: scenario(file, name),
            ..Default::default()
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, stopped) = (state.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { continue };
                let state = shared.clone();
                std::thread::spawn(move || serve_connection(stream, state));
            }
        });
        Mock { url, state, stop }
    }

    pub fn backend(&self) -> ElasticBackend {
        ElasticBackend::new(&self.url).unwrap()
    }

    /// The requests that did not match so far.
    pub fn failures(&self) -> Vec<String> {
        self.state.lock().unwrap().failures.clone()
    }

    /// Asserts that every recorded exchange happened, in order, and nothing else.
    pub fn finish(self) {
        let state = self.state.lock().unwrap();
        assert!(state.failures.is_empty(), "mismatched requests: {:#?}", state.failures);
        assert_eq!(state.next, state.exchanges.len(), "exchanges left unplayed");
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.url.trim_start_matches("http://"));
    }
}
