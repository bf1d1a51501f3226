//! The engine's error type: every failure a caller can see, already in the shape the
//! wire protocol renders (DRF-style bodies). Faces map `Error::status()` to their own
//! medium (an HTTP status, or an exit code and one stderr line).
use serde_json::{json, Value};

#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// Validation failed; the body is the DRF error object (or bare array) as rendered.
    #[error("{}", compact(.0))]
    Invalid(Value),
    /// 400 `{"detail": msg}`.
    #[error("{0}")]
    BadRequest(String),
    /// 400 `{"error": msg}` (hand-made errors of some reference views).
    #[error("{0}")]
    BadRequestError(String),
    /// 403 `{"detail": msg}`.
    #[error("{0}")]
    Forbidden(String),
    /// 404 `{"detail": msg}`.
    #[error("{0}")]
    NotFound(String),
    /// 413 `{"detail": msg}`.
    #[error("{0}")]
    TooLarge(String),
    /// 500; the message is logged, never sent.
    #[error("internal error: {0}")]
    Internal(String),
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

pub const NOT_FOUND: &str = "Not found.";
pub const NO_PERMISSION: &str = "You do not have permission to perform this action.";

impl Error {
    pub fn not_found() -> Error {
        Error::NotFound(NOT_FOUND.into())
    }
    pub fn no_permission() -> Error {
        Error::Forbidden(NO_PERMISSION.into())
    }
    /// A single field error: `{"field": ["msg"]}`.
    pub fn field(field: &str, msg: impl Into<String>) -> Error {
        Error::Invalid(json!({ field: [msg.into()] }))
    }
    pub fn internal(e: impl std::fmt::Display) -> Error {
        Error::Internal(e.to_string())
    }

    /// The status code class of this error (HTTP semantics, used by every face).
    pub fn status(&self) -> u16 {
        match self {
            Error::Invalid(_) | Error::BadRequest(_) | Error::BadRequestError(_) => 400,
            Error::Forbidden(_) => 403,
            Error::NotFound(_) => 404,
            Error::TooLarge(_) => 413,
            Error::Internal(_) => 500,
        }
    }

    /// The response body as the reference renders it.
    pub fn body(&self) -> Value {
        match self {
            Error::Invalid(v) => v.clone(),
            Error::BadRequestError(m) => json!({ "error": m }),
            Error::Internal(_) => json!({ "detail": "A server error occurred." }),
            Error::BadRequest(m) | Error::Forbidden(m) | Error::NotFound(m) | Error::TooLarge(m) => {
                json!({ "detail": m })
            }
        }
    }

    /// Rebuild an error from a status and body received over the wire (remote CLI mode).
    pub fn from_wire(status: u16, body: Value) -> Error {
        let detail = body.get("detail").and_then(Value::as_str).map(str::to_string);
        match (status, detail) {
            (403, Some(m)) => Error::Forbidden(m),
            (404, Some(m)) => Error::NotFound(m),
            (413, Some(m)) => Error::TooLarge(m),
            (400, Some(m)) if body.as_object().is_some_and(|o| o.len() == 1) => Error::BadRequest(m),
            (400, _) => match body.get("error").and_then(Value::as_str) {
                Some(m) if body.as_object().is_some_and(|o| o.len() == 1) => Error::BadRequestError(m.into()),
                _ => Error::Invalid(body),
            },
            (s, d) => Error::Internal(d.unwrap_or_else(|| format!("HTTP {s}: {}", compact(&body)))),
        }
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::Internal(format!("database: {e}"))
    }
}
