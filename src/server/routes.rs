//! The route table of `/api/v1/`, built from the engine's operation catalogue: one axum route
//! per declared operation, each handler only decoding the request, calling the operation off
//! the async runtime, and encoding its reply. No route exists without its declaration, so
//! none exists without its documentation.
use super::http::{blocking, json_response, session_key, ApiError, AppState, Body, Caller, Query, SESSION_COOKIE};
use crate::engine::error::Error;
use crate::engine::operations::{self, Access, Call, Dialect, Method, Operation, Reply};
use crate::engine::Ctx;
use axum::extract::{FromRequestParts, RawPathParams, State};
use axum::http::{header, request::Parts, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Router;
use std::collections::BTreeMap;

/// The axum path of an operation: under `/api/v1`, without the trailing slash (the front
/// layer strips it from requests).
pub fn axum_path(op: &Operation) -> String {
    format!("/api/v1{}", op.path.trim_end_matches('/'))
}

fn filter(m: Method) -> MethodFilter {
    match m {
        Method::Get => MethodFilter::GET,
        Method::Post => MethodFilter::POST,
        Method::Put => MethodFilter::PUT,
        Method::Patch => MethodFilter::PATCH,
        Method::Delete => MethodFilter::DELETE,
    }
}

pub fn api() -> Router<AppState> {
    let mut paths: BTreeMap<String, MethodRouter<AppState>> = BTreeMap::new();
    for op in operations::all() {
        let route = on(filter(op.method), move |state, caller, params, query, headers, body| {
            handle(op, state, caller, params, query, headers, body)
        });
        let entry = paths.remove(&axum_path(op));
        paths.insert(
            axum_path(op),
            match entry {
                Some(existing) => existing.merge(route),
                None => route,
            },
        );
    }
    paths.into_iter().fold(Router::new(), |r, (path, methods)| r.route(&path, methods))
}

/// Extractor: the path parameters by name (none for paths without any).
pub struct Params(BTreeMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, s: &S) -> Result<Self, Self::Rejection> {
        let raw = RawPathParams::from_request_parts(parts, s).await;
        Ok(Params(
            raw.map(|p| p.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
                .unwrap_or_default(),
        ))
    }
}

/// TEXTA's web client asks for `application/json, text/plain, */*`; API clients for JSON.
fn dialect(headers: &HeaderMap) -> Dialect {
    let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    if accept.contains("text/plain") {
        Dialect::WebClient
    } else {
        Dialect::Reference
    }
}

/// Extractor: the caller the front layer resolved, with the base URL of their links.
pub struct CallerOf(Option<Ctx>);

impl<S: Send + Sync> FromRequestParts<S> for CallerOf {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(CallerOf(match parts.extensions.get::<Caller>() {
            Some(Caller::User(u)) => Some(Ctx {
                user: u.clone(),
                base_url: super::http::base_url(&parts.headers),
                dialect: dialect(&parts.headers),
            }),
            _ => None,
        }))
    }
}

async fn handle(
    op: &'static Operation,
    State(s): State<AppState>,
    CallerOf(ctx): CallerOf,
    Params(params): Params,
    Query(query): Query,
    headers: HeaderMap,
    Body(body): Body,
) -> Response {
    if op.access == Access::User && ctx.is_none() {
        return ApiError::from(Error::Forbidden("Authentication credentials were not provided.".into())).into_response();
    }
    let session = session_key(&headers);
    let result = blocking(&s, move |e| {
        let call = Call {
            ctx: ctx.as_ref(),
            params: &params,
            query: &query,
            body: &body,
            method: op.method,
            session: session.as_deref(),
        };
        (op.run)(e, &call)
    })
    .await;
    let status = StatusCode::from_u16(op.status).unwrap_or(StatusCode::OK);
    match result {
        Err(e) => e.into_response(),
        Ok(Reply::Json(v)) => json_response(status, &v),
        Ok(Reply::Empty) => StatusCode::NO_CONTENT.into_response(),
        Ok(Reply::StartSession(v, key)) => {
            let mut resp = json_response(status, &v);
            if let Ok(cookie) = HeaderValue::from_str(&format!("{SESSION_COOKIE}={key}; Path=/; HttpOnly; SameSite=Lax")) {
                resp.headers_mut().append(header::SET_COOKIE, cookie);
            }
            resp
        }
        Ok(Reply::File { content_type, name, bytes }) => {
            let disposition = format!("inline; filename=\"{}\"", name.replace(['"', '\\'], "_"));
            let mut resp = (status, [(header::CONTENT_TYPE, content_type)], bytes).into_response();
            if let Ok(v) = HeaderValue::from_str(&disposition) {
                resp.headers_mut().insert(header::CONTENT_DISPOSITION, v);
            }
            resp
        }
        Ok(Reply::EndSession(v)) => {
            let mut resp = json_response(status, &v);
            resp.headers_mut()
                .append(header::SET_COOKIE, HeaderValue::from_static("sessionid=; Path=/; Max-Age=0"));
            resp
        }
    }
}
