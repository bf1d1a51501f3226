//! Fuzz target: multipart/form-data request bodies through the whole HTTP face
//! (`ta::server::app`): the front layer, the body extractor's multipart reader (text fields,
//! file parts streamed to the upload directory, dropped file parts) and the engine operation.
//!
//! Input: one byte choosing the operation (a regex tagger's `tag_text`, which takes no files,
//! or the taggers' `import_model`, which takes an upload), the `Content-Type` header value up
//! to the first newline, then the body. The server must never answer 500.
#![no_main]

use axum::body::Body;
use axum::http::{header, HeaderValue, Method, Request, StatusCode};
use axum::Router;
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use std::path::PathBuf;
use std::sync::OnceLock;
use ta::engine::{Config, Engine};
use tokio::runtime::Runtime;
use tower::ServiceExt;

struct Fixture {
    rt: Runtime,
    app: Router,
    auth: HeaderValue,
    uploads: PathBuf,
}

impl Fixture {
    fn send(&self, path: &str, content_type: HeaderValue, body: Vec<u8>) -> StatusCode {
        let req = Request::builder()
            .method(Method::POST)
            .uri(path)
            .header(header::AUTHORIZATION, self.auth.clone())
            .header(header::CONTENT_TYPE, content_type)
            .header(header::ACCEPT, "application/json")
            .body(Body::from(body))
            .expect("request builds");
        self.rt.block_on(self.app.clone().oneshot(req)).expect("infallible").status()
    }
}

/// A data directory with the admin, project 1 and regex tagger 1, and the app over it.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("ta-fuzz-multipart-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut config = Config::new(dir.clone());
        config.password_iterations = 1000;
        config.task_threads = 1;
        let engine = Engine::open(config).expect("engine opens");
        engine.ensure_admin("fuzz-admin").expect("admin");
        let (_, token) = engine.login(&json!({"username": "admin", "password": "fuzz-admin"})).expect("login");
        let fixture = Fixture {
            rt: tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime"),
            app: ta::server::app(engine, &Default::default()),
            auth: HeaderValue::from_str(&format!("Token {}", token.key)).expect("token header"),
            uploads: dir.join("uploads"),
        };
        let json = HeaderValue::from_static("application/json");
        let project = json!({"title": "fuzz", "users": []}).to_string().into_bytes();
        assert_eq!(fixture.send("/api/v1/projects/", json.clone(), project), StatusCode::CREATED);
        let tagger = json!({"description": "t", "lexicon": ["varas", "politsei"]}).to_string().into_bytes();
        assert_eq!(fixture.send("/api/v1/projects/1/regex_taggers/", json, tagger), StatusCode::CREATED);
        fixture
    })
}

// The fixture (with the OpenAPI document the app renders once) is built before fuzzing starts, outside
// the per-input timeout.
fuzz_target!(init: { fixture(); }, |data: &[u8]| {
    let [choice, rest @ ..] = data else { return };
    let path = if choice & 1 == 0 {
        "/api/v1/projects/1/regex_taggers/1/tag_text/"
    } else {
        "/api/v1/projects/1/taggers/import_model/"
    };
    let (content_type, body) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let Ok(content_type) = HeaderValue::from_bytes(content_type) else { return };
    let fixture = fixture();
    let status = fixture.send(path, content_type, body.to_vec());
    assert_ne!(status, StatusCode::INTERNAL_SERVER_ERROR);
    if let Ok(files) = std::fs::read_dir(&fixture.uploads) {
        for file in files.flatten() {
            let _ = std::fs::remove_file(file.path());
        }
    }
});
