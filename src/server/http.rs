//! Request plumbing shared by every handler: who is calling (token, session or
//! anonymous), the API base URL for links, DRF-style body parsing (JSON, url-encoded and
//! multipart forms), query strings, and turning engine results into responses.
use crate::engine::accounts::User;
use crate::engine::dataset_imports::Upload;
use crate::engine::error::Error;
use crate::engine::validate::FORM_MARKER;
use crate::engine::Engine;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::{header, request::Parts, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

pub type AppState = Arc<Engine>;

/// JSON response with the reference's rendering (UTF-8, no ASCII escaping).
pub fn json_response(status: StatusCode, body: &impl Serialize) -> Response {
    let bytes = serde_json::to_vec(body).unwrap_or_else(|_| b"{}".to_vec());
    (status, [(header::CONTENT_TYPE, "application/json")], bytes).into_response()
}

/// An error response: an engine error, or a protocol-level one (406, 415).
pub struct ApiError {
    pub status: StatusCode,
    pub body: Value,
}

impl ApiError {
    /// A protocol-level `{"detail": msg}` error.
    pub fn detail(status: StatusCode, msg: impl Into<String>) -> ApiError {
        ApiError {
            status,
            body: json!({ "detail": msg.into() }),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        json_response(self.status, &self.body)
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        if let Error::Internal(msg) = &e {
            eprintln!("ta serve: internal error: {msg}");
        }
        ApiError {
            status: StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            body: e.body(),
        }
    }
}

/// Run blocking engine work off the async runtime.
pub async fn blocking<T: Send + 'static>(
    state: &AppState,
    f: impl FnOnce(&Arc<Engine>) -> Result<T, Error> + Send + 'static,
) -> Result<T, ApiError> {
    let engine = state.clone();
    tokio::task::spawn_blocking(move || f(&engine))
        .await
        .map_err(|e| ApiError::from(Error::Internal(format!("worker failed: {e}"))))?
        .map_err(ApiError::from)
}

/// The caller as resolved by the outer authentication layer.
#[derive(Clone)]
pub enum Caller {
    Anonymous,
    User(User),
}

/// The session cookie name.
pub const SESSION_COOKIE: &str = "sessionid";

/// Resolve credentials: `Token` header first, then the session cookie. Bad tokens are
/// errors on every endpoint, open ones included.
pub fn resolve_caller(engine: &Engine, headers: &HeaderMap) -> Result<Caller, Error> {
    if let Some(key) = token_key(headers) {
        return engine.authenticate_token(&key?).map(Caller::User);
    }
    if let Some(key) = session_key(headers) {
        if let Some(u) = engine.authenticate_session(&key)? {
            return Ok(Caller::User(u));
        }
    }
    Ok(Caller::Anonymous)
}

/// The caller where [`resolve_caller`] needs no database read: a request without credentials,
/// or a token the engine accepted moments ago (`Engine::known_token`). Memory only, so the
/// front layer calls it on the async runtime.
pub fn known_caller(engine: &Engine, headers: &HeaderMap) -> Option<Caller> {
    match token_key(headers) {
        Some(Ok(key)) => engine.known_token(&key).map(Caller::User),
        Some(Err(_)) => None,
        None => session_key(headers).is_none().then_some(Caller::Anonymous),
    }
}

/// The key of a `Token` authorization header: `None` without one, an error (DRF's message)
/// when it is malformed.
fn token_key(headers: &HeaderMap) -> Option<Result<String, Error>> {
    let auth = headers.get(header::AUTHORIZATION)?;
    let raw = String::from_utf8_lossy(auth.as_bytes());
    let mut parts = raw.split_whitespace();
    if !parts.next().is_some_and(|k| k.eq_ignore_ascii_case("token")) {
        return None;
    }
    let rest: Vec<&str> = parts.collect();
    Some(match rest.as_slice() {
        [] => Err(Error::Forbidden("Invalid token header. No credentials provided.".into())),
        [key] => Ok(key.to_string()),
        _ => Err(Error::Forbidden(
            "Invalid token header. Token string should not contain spaces.".into(),
        )),
    })
}

/// The session key from the `Cookie` header, if any.
pub fn session_key(headers: &HeaderMap) -> Option<String> {
    headers.get_all(header::COOKIE).iter().find_map(|v| {
        v.to_str().ok()?.split(';').find_map(|kv| {
            let (k, v) = kv.trim().split_once('=')?;
            (k == SESSION_COOKIE).then(|| v.to_string())
        })
    })
}

/// API root (`scheme://host/api/v1`) for links in responses.
pub fn base_url(headers: &HeaderMap) -> String {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("localhost");
    let scheme = headers.get("x-forwarded-proto").and_then(|h| h.to_str().ok()).unwrap_or("http");
    format!("{scheme}://{host}/api/v1")
}

/// Extractor: query parameters (last value wins).
pub struct Query(pub BTreeMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for Query {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let q = parts.uri.query().unwrap_or("");
        Ok(Query(form_urlencoded::parse(q.as_bytes()).into_owned().collect()))
    }
}

/// Extractor: the request body as a JSON value, parsed like DRF's default parsers.
/// Form bodies become `{FORM_MARKER: true, key: [values...]}` so validation can apply
/// DRF's QueryDict rules (last value for scalars, all values for lists).
pub struct Body(pub Value);

fn form_value(pairs: impl Iterator<Item = (String, Value)>) -> Value {
    let mut m = Map::new();
    m.insert(FORM_MARKER.into(), Value::Bool(true));
    for (k, v) in pairs {
        if let Value::Array(a) = m.entry(k).or_insert_with(|| Value::Array(vec![])) {
            a.push(v);
        }
    }
    Value::Object(m)
}

/// Remove keys a client must not send: the engine's internal markers start with NUL.
fn sanitize(v: Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.into_iter()
                .filter(|(k, _)| !k.starts_with('\u{0}'))
                .map(|(k, v)| (k, sanitize(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(sanitize).collect()),
        other => other,
    }
}

/// Stream one uploaded file part to a new file in the upload directory.
async fn save_upload(engine: &Engine, mut field: axum::extract::multipart::Field<'_>) -> Result<Value, ApiError> {
    use tokio::io::AsyncWriteExt;
    let file_name = field.file_name().unwrap_or("").to_string();
    let dir = engine.upload_dir()?;
    let path = dir.join(format!(
        "{}-{}",
        crate::engine::passwords::random_string(16),
        sanitize_file_name(&file_name)
    ));
    let mut out = tokio::fs::File::create(&path)
        .await
        .map_err(|e| ApiError::from(Error::internal(e)))?;
    loop {
        match field.chunk().await {
            Ok(Some(chunk)) => out.write_all(&chunk).await.map_err(|e| ApiError::from(Error::internal(e)))?,
            Ok(None) => break,
            Err(e) => {
                drop(out);
                let _ = tokio::fs::remove_file(&path).await;
                return Err(if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::from(too_large())
                } else {
                    ApiError::from(Error::BadRequest(format!("Multipart form parse error - {e}")))
                });
            }
        }
    }
    out.flush().await.map_err(|e| ApiError::from(Error::internal(e)))?;
    Ok(Upload {
        path,
        file_name,
        owned: true,
    }
    .to_value())
}

/// Keep only harmless characters of a client-given file name.
fn sanitize_file_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    base.chars()
        .map(|c| if c.is_alphanumeric() || ".-_".contains(c) { c } else { '_' })
        .take(100)
        .collect()
}

fn media_type(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
}

/// Whether a request to `path` may carry files: only operations declared with an upload have
/// their file parts written to the upload directory; anywhere else they are read and dropped.
fn accepts_files(path: &str) -> bool {
    let path = path.strip_prefix("/api/v1").unwrap_or(path);
    crate::engine::operations::all()
        .iter()
        .any(|o| o.upload && o.matches(path).is_some())
}

/// Whether the request body is multipart (uploads), which has the upload limit; every other
/// body is read whole and has the smaller body limit.
pub fn is_multipart(headers: &HeaderMap) -> bool {
    media_type(headers).as_deref() == Some("multipart/form-data")
}

impl FromRequest<AppState> for Body {
    type Rejection = ApiError;
    async fn from_request(req: Request, s: &AppState) -> Result<Self, Self::Rejection> {
        let mt = media_type(req.headers());
        if mt.as_deref() == Some("multipart/form-data") {
            let files = accepts_files(req.uri().path());
            let mut mp = axum::extract::Multipart::from_request(req, s)
                .await
                .map_err(|e| ApiError::from(Error::BadRequest(format!("Multipart form parse error - {e}"))))?;
            let mut pairs = Vec::new();
            while let Some(field) = mp.next_field().await.map_err(|e| ApiError::from(multipart_error(e)))? {
                let name = field.name().unwrap_or("").to_string();
                if name.starts_with('\u{0}') {
                    continue;
                }
                let value = match field.file_name() {
                    Some(_) if files => save_upload(s, field).await?,
                    Some(_) => continue,
                    None => Value::String(field.text().await.map_err(|e| ApiError::from(multipart_error(e)))?),
                };
                pairs.push((name, value));
            }
            return Ok(Body(form_value(pairs.into_iter())));
        }
        let (limit, too_big) = body_limit(&s.config, false);
        let bytes = axum::body::to_bytes(req.into_body(), usize::try_from(limit).unwrap_or(usize::MAX))
            .await
            .map_err(|_| ApiError::from(too_big))?;
        if bytes.is_empty() {
            return Ok(Body(json!({})));
        }
        match mt.as_deref() {
            None | Some("application/json") => serde_json::from_slice(&bytes)
                .map(|v| Body(sanitize(v)))
                .map_err(|e| ApiError::from(Error::BadRequest(format!("JSON parse error - {e}")))),
            Some("application/x-www-form-urlencoded") => {
                let pairs = form_urlencoded::parse(&bytes).into_owned().filter(|(k, _)| !k.starts_with('\u{0}'));
                Ok(Body(form_value(pairs.map(|(k, v)| (k, Value::String(v))))))
            }
            Some(other) => Err(ApiError::detail(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("Unsupported media type \"{other}\" in request."),
            )),
        }
    }
}

fn multipart_error(e: axum::extract::multipart::MultipartError) -> Error {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        too_large()
    } else {
        Error::BadRequest(format!("Multipart form parse error - {e}"))
    }
}

/// The size limit of a request body and the 413 past it: uploads (multipart) have the upload
/// limit; JSON and form bodies, read whole into memory, the smaller body limit.
pub fn body_limit(config: &crate::engine::Config, multipart: bool) -> (u64, Error) {
    if multipart || config.max_upload <= config.max_body {
        (config.max_upload, too_large())
    } else {
        (config.max_body, body_too_large(config.max_body))
    }
}

/// 413 for a JSON or form body past the body limit (`TA_MAX_BODY`).
pub fn body_too_large(limit: u64) -> Error {
    Error::TooLarge(format!(
        "Request body exceeds the limit of {limit} bytes for JSON and form bodies (TA_MAX_BODY); send files as multipart uploads."
    ))
}

/// The upload limit in force (set once when the server starts).
pub static UPLOAD_LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

pub fn too_large() -> Error {
    Error::TooLarge(format!(
        "Request body exceeds the upload limit of {} bytes.",
        UPLOAD_LIMIT.get().copied().unwrap_or(1 << 30)
    ))
}
