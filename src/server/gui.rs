//! The web GUI at `/gui/`: static files from the repository's `gui/` folder, embedded in the
//! binary (release builds) or read from disk (debug builds, so edits show on reload), with
//! the strict security headers of the GUI spec. The GUI talks only to the public JSON API.
use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

#[derive(rust_embed::RustEmbed)]
#[folder = "gui/"]
#[exclude = "e2e/**"]
#[exclude = "tests/**"]
struct Assets;

const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; \
                   frame-ancestors 'none'; base-uri 'none'";

pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route(
            "/gui",
            get(|| async { (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, "/gui/")]) }),
        )
        .route("/gui/", get(|headers: HeaderMap| async move { asset("index.html", &headers) }))
        .route(
            "/gui/{*file}",
            get(|Path(file): Path<String>, headers: HeaderMap| async move { asset(&file, &headers) }),
        )
}

/// One embedded file with its content type and caching headers; 304 when the client's
/// `If-None-Match` names the current bytes, 404 for unknown files.
fn asset(file: &str, headers: &HeaderMap) -> Response {
    let Some(found) = Assets::get(file) else {
        return (StatusCode::NOT_FOUND, "Not found.").into_response();
    };
    let etag = format!(
        "\"{}\"",
        found.metadata.sha256_hash().iter().map(|b| format!("{b:02x}")).collect::<String>()
    );
    let mut resp = if headers.get(header::IF_NONE_MATCH).is_some_and(|v| v.as_bytes() == etag.as_bytes()) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mime = found.metadata.mimetype().to_string();
        ([(header::CONTENT_TYPE, mime)], found.data.into_owned()).into_response()
    };
    let h = resp.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    resp
}
