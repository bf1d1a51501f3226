//! The HTTP face: `ta serve`. Routes the TEXTA-compatible `/api/v1/` API onto the
//! engine. A front layer applies the DRF conventions every route shares (slash and
//! `.json` suffix handling, content negotiation, body limit, authentication, 405 bodies,
//! the browsable HTML rendering) before the router sees the request.
mod browsable;
pub mod cors;
mod docs;
mod gui;
pub mod http;
mod metadata;
mod routes;

use crate::engine::operations::{self, Access};
use crate::engine::Engine;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use http::{blocking, json_response, known_caller, resolve_caller, ApiError, AppState, Caller};
use std::net::SocketAddr;
use std::sync::Arc;

/// Whether `path` (as routed: no trailing slash) belongs to an operation open to anonymous
/// callers (or to those with the URL's key), or to the documentation pages.
fn is_open(path: &str) -> bool {
    is_docs(path)
        || operations::all()
            .iter()
            .any(|o| o.access != Access::User && routes::axum_path(o) == path)
}

/// The API path relative to the API root (`/projects/1/`), for API paths other than the docs.
fn api_path(path: &str) -> Option<&str> {
    path.strip_prefix("/api/v1").filter(|_| !is_docs(path))
}

fn is_docs(path: &str) -> bool {
    ["/api/v1/swagger", "/api/v1/redoc", "/api/v1/openapi.json"]
        .iter()
        .any(|p| path.starts_with(p))
}

/// How the client wants the response rendered.
#[derive(Clone, Copy, PartialEq)]
enum Render {
    Json,
    Html,
}

/// DRF content negotiation: JSON first, then the browsable API; `None` = 406.
fn negotiate(accept: Option<&str>, format: Option<&str>) -> Option<Render> {
    match format {
        Some("json") => return Some(Render::Json),
        Some("api") => return Some(Render::Html),
        _ => {}
    }
    let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
        return Some(Render::Json);
    };
    for part in accept.split(',') {
        let mt = part.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        match mt.as_str() {
            "application/json" | "application/*" | "*/*" => return Some(Render::Json),
            "text/html" | "text/*" => return Some(Render::Html),
            _ => {}
        }
    }
    None
}

/// Strip the trailing slash and a `.json` suffix; returns the new URI and whether the
/// suffix forced JSON.
fn normalize(uri: &Uri) -> (Uri, bool) {
    let path = uri.path();
    // The GUI's static files keep their paths: `/gui` redirects to `/gui/` by itself.
    if path == "/" || is_docs(path) || path == "/gui" || path.starts_with("/gui/") {
        return (uri.clone(), false);
    }
    let mut p = path.trim_end_matches('/').to_string();
    let json_suffix = p.ends_with(".json") && !p.ends_with("/swagger.json");
    if json_suffix {
        p.truncate(p.len() - 5);
    }
    let pq = match uri.query() {
        Some(q) => format!("{p}?{q}"),
        None => p,
    };
    (pq.parse().unwrap_or_else(|_| uri.clone()), json_suffix)
}

async fn front(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let (uri, json_suffix) = normalize(req.uri());
    *req.uri_mut() = uri;
    let path = req.uri().path().to_string();
    let query: std::collections::HashMap<String, String> = form_urlencoded::parse(req.uri().query().unwrap_or("").as_bytes())
        .into_owned()
        .collect();
    let format = if json_suffix {
        Some("json")
    } else {
        query.get("format").map(String::as_str)
    };
    let accept = req.headers().get(header::ACCEPT).and_then(|v| v.to_str().ok());
    let api = api_path(&path).is_some();
    let render = match negotiate(accept, format) {
        Some(r) => r,
        None if api => return ApiError::detail(StatusCode::NOT_ACCEPTABLE, "Could not satisfy the request Accept header.").into_response(),
        None => Render::Json,
    };
    let method = req.method().clone();
    let resp = answer(&state, req, next, &path).await;
    if render == Render::Html && api {
        browsable::render(resp, &method, &path).await
    } else {
        resp
    }
}

/// The response before rendering: body limit, authentication, OPTIONS, the route, 405s.
async fn answer(state: &AppState, mut req: Request, next: Next, path: &str) -> Response {
    let (limit, too_big_error) = http::body_limit(&state.config, http::is_multipart(req.headers()));
    let too_big = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
        .is_some_and(|n| n > limit);
    if too_big {
        return ApiError::from(too_big_error).into_response();
    }
    let caller = match known_caller(state, req.headers()) {
        Some(caller) => Ok(caller),
        None => {
            let headers = req.headers().clone();
            blocking(state, move |e| resolve_caller(e, &headers)).await
        }
    };
    let caller = match caller {
        Ok(c) => c,
        // A bad token on a path that does not exist: the path's 404 comes first.
        Err(_) if api_path(path).is_some_and(|p| metadata::methods(p).is_empty()) => return not_found().await,
        Err(e) => return e.into_response(),
    };
    let anonymous = matches!(caller, Caller::Anonymous);
    let method = req.method().clone();
    if method == Method::OPTIONS {
        if let Some(p) = api_path(path) {
            return options(p, anonymous && !is_open(path));
        }
    }
    req.extensions_mut().insert(caller);
    let resp = next.run(req).await;
    // The router's 405 (no body); an operation's own 405 is already a JSON answer.
    if resp.status() == StatusCode::METHOD_NOT_ALLOWED && !resp.headers().contains_key(header::CONTENT_TYPE) {
        method_not_allowed(resp, &method, anonymous && !is_open(path))
    } else {
        resp
    }
}

/// DRF's answer to OPTIONS: the metadata with the `Allow` header, after authentication.
fn options(path: &str, needs_auth: bool) -> Response {
    let Some(body) = metadata::metadata(path) else {
        return json_response(StatusCode::NOT_FOUND, &serde_json::json!({"detail": "Not found."}));
    };
    if needs_auth {
        return ApiError::detail(StatusCode::FORBIDDEN, "Authentication credentials were not provided.").into_response();
    }
    let allow: Vec<&str> = metadata::methods(path).into_iter().map(|m| m.as_str()).chain(["OPTIONS"]).collect();
    let mut resp = json_response(StatusCode::OK, &body);
    if let Ok(v) = HeaderValue::from_str(&allow.join(", ")) {
        resp.headers_mut().insert(header::ALLOW, v);
    }
    resp
}

/// DRF's 405: after authentication, with a JSON body and the `Allow` header.
fn method_not_allowed(resp: Response, method: &Method, needs_auth: bool) -> Response {
    if needs_auth {
        return ApiError::detail(StatusCode::FORBIDDEN, "Authentication credentials were not provided.").into_response();
    }
    let allow = resp.headers().get(header::ALLOW).cloned();
    let mut out = ApiError::detail(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("Method \"{}\" not allowed.", method.as_str().to_uppercase()),
    )
    .into_response();
    if let Some(a) = allow {
        out.headers_mut().insert(header::ALLOW, a);
    }
    out
}

async fn not_found() -> Response {
    json_response(StatusCode::NOT_FOUND, &serde_json::json!({"detail": "Not found."}))
}

async fn root_redirect() -> Response {
    (StatusCode::FOUND, [(header::LOCATION, HeaderValue::from_static("/api/v1/"))]).into_response()
}

/// How `ta serve` was asked to answer, beyond the engine's configuration.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Origins whose pages may call the API (CORS); none by default.
    pub cors_origins: Vec<HeaderValue>,
}

/// The complete application: API routes, docs pages, the front layer, and CORS outermost
/// (so preflights are answered before authentication and every answer carries the headers).
pub fn app(engine: Arc<Engine>, options: &Options) -> Router {
    let _ = http::UPLOAD_LIMIT.set(engine.config.max_upload);
    let inner = routes::api()
        .merge(docs::routes())
        .merge(gui::routes())
        .route("/", axum::routing::get(root_redirect))
        .fallback(not_found)
        .layer(axum::extract::DefaultBodyLimit::max(engine.config.max_upload as usize))
        .with_state(engine.clone());
    let app = Router::new()
        .fallback_service(inner)
        .layer(middleware::from_fn_with_state(engine, front))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(panic_response));
    cors::allow(app, &options.cors_origins)
}

/// A panic while answering one request becomes that request's 500; the server goes on.
fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    json_response(
        StatusCode::INTERNAL_SERVER_ERROR,
        &serde_json::json!({"detail": "A server error occurred."}),
    )
}

/// Serve until SIGINT/SIGTERM; in-flight requests finish before exit.
pub async fn serve(engine: Arc<Engine>, options: &Options, addr: SocketAddr, ready: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    ready(listener.local_addr()?);
    axum::serve(listener, app(engine, options))
        .with_graceful_shutdown(shutdown_signal())
        .await
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler installs");
        tokio::select! { _ = ctrl_c => {}, _ = term.recv() => {} }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
