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
    /// 405 `{"detail": msg}`: the operation does not apply to this resource.
    #[error("{0}")]
    NotAllowed(String),
    /// 413 `{"detail": msg}`.
    #[error("{0}")]
    TooLarge(String),
    /// 503 `{"detail": msg}`: something the operation needs is not installed (language data).
    #[error("{0}")]
    Unavailable(String),
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

/// How one kind of error travels, stated once per variant: its HTTP status, the key its
/// message sits under in the body (`None`: the body is the validation object itself), and
/// the CLI's exit code. `status()`, `body()`, `exit_code()` and `from_wire()` derive from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wire {
    pub status: u16,
    pub key: Option<&'static str>,
    pub exit_code: i32,
}

/// Builds a variant from its message.
type Make = fn(String) -> Error;

/// The variants in the order `from_wire` tries them: a body must have exactly the variant's
/// key (or, for `Invalid`, be any other 400 body).
const WIRES: [(Make, Wire); 7] = [
    (
        Error::BadRequest,
        Wire {
            status: 400,
            key: Some("detail"),
            exit_code: 3,
        },
    ),
    (
        Error::BadRequestError,
        Wire {
            status: 400,
            key: Some("error"),
            exit_code: 3,
        },
    ),
    (
        Error::Forbidden,
        Wire {
            status: 403,
            key: Some("detail"),
            exit_code: 4,
        },
    ),
    (
        Error::NotFound,
        Wire {
            status: 404,
            key: Some("detail"),
            exit_code: 5,
        },
    ),
    (
        Error::NotAllowed,
        Wire {
            status: 405,
            key: Some("detail"),
            exit_code: 3,
        },
    ),
    (
        Error::TooLarge,
        Wire {
            status: 413,
            key: Some("detail"),
            exit_code: 6,
        },
    ),
    (
        Error::Unavailable,
        Wire {
            status: 503,
            key: Some("detail"),
            exit_code: 7,
        },
    ),
];
const INVALID: Wire = Wire {
    status: 400,
    key: None,
    exit_code: 3,
};
const INTERNAL: Wire = Wire {
    status: 500,
    key: Some("detail"),
    exit_code: 1,
};
/// What a 500 says to clients; the real message is only logged.
const INTERNAL_DETAIL: &str = "A server error occurred.";

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

    /// This error's wire declaration.
    pub fn wire(&self) -> Wire {
        let w = |i: usize| WIRES[i].1;
        match self {
            Error::Invalid(_) => INVALID,
            Error::BadRequest(_) => w(0),
            Error::BadRequestError(_) => w(1),
            Error::Forbidden(_) => w(2),
            Error::NotFound(_) => w(3),
            Error::NotAllowed(_) => w(4),
            Error::TooLarge(_) => w(5),
            Error::Unavailable(_) => w(6),
            Error::Internal(_) => INTERNAL,
        }
    }

    /// The HTTP status of this error (used by every face).
    pub fn status(&self) -> u16 {
        self.wire().status
    }

    /// The CLI's exit code for this error.
    pub fn exit_code(&self) -> i32 {
        self.wire().exit_code
    }

    /// The response body as the reference renders it.
    pub fn body(&self) -> Value {
        match self {
            Error::Invalid(v) => v.clone(),
            Error::Internal(_) => json!({ "detail": INTERNAL_DETAIL }),
            Error::BadRequest(m)
            | Error::BadRequestError(m)
            | Error::Forbidden(m)
            | Error::NotFound(m)
            | Error::NotAllowed(m)
            | Error::TooLarge(m)
            | Error::Unavailable(m) => {
                json!({ self.wire().key.unwrap_or("detail"): m })
            }
        }
    }

    /// Rebuild an error from a status and body received over the wire (remote CLI mode).
    pub fn from_wire(status: u16, body: Value) -> Error {
        let single = |key: &str| match body.as_object() {
            Some(o) if o.len() == 1 => o.get(key).and_then(Value::as_str).map(str::to_string),
            _ => None,
        };
        for (make, wire) in WIRES {
            if let Some(m) = wire.key.filter(|_| wire.status == status).and_then(single) {
                return make(m);
            }
        }
        if status == INVALID.status {
            return Error::Invalid(body);
        }
        let detail = body.get("detail").and_then(Value::as_str).map(str::to_string);
        Error::Internal(detail.unwrap_or_else(|| format!("HTTP {status}: {}", compact(&body))))
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::Internal(format!("database: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant survives the trip through the wire (remote mode) unchanged, so none can
    /// silently become "internal" on the far side.
    #[test]
    fn every_variant_round_trips_through_the_wire() {
        let all = [
            Error::Invalid(json!({"lexicon": ["This field is required."]})),
            Error::Invalid(json!(["A bare list of errors."])),
            Error::BadRequest("bad".into()),
            Error::BadRequestError("no tags".into()),
            Error::Forbidden(NO_PERMISSION.into()),
            Error::NotFound(NOT_FOUND.into()),
            Error::TooLarge("too large".into()),
            Error::Unavailable("language data missing".into()),
            Error::Internal(INTERNAL_DETAIL.into()),
        ];
        for e in all {
            let back = Error::from_wire(e.status(), e.body());
            assert_eq!(
                (back.to_string(), back.status(), back.body()),
                (e.to_string(), e.status(), e.body()),
                "{e:?}"
            );
            assert_eq!(back.exit_code(), e.exit_code());
        }
        assert_eq!(Error::Internal("secret".into()).body(), json!({"detail": INTERNAL_DETAIL}));
    }
}
