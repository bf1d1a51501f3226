//! Cross-origin use (`ta serve --cors-origin URL`, `TA_CORS_ORIGINS`): a web client served
//! from another origin (TEXTA's own, or a GUI on another port) may call the API with its
//! token. Preflights are answered before authentication (they carry no credentials), and
//! every answer to a listed origin, errors included, names it with credentials allowed.
//! No origin is allowed unless listed; a listed origin is echoed, never `*`.
use axum::extract::Request;
use axum::http::{header, HeaderName, HeaderValue, Method};
use axum::Router;
use tower::ServiceExt;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// The request headers a client may send cross-origin: those TEXTA's client sends, and the
/// rest of the reference's list.
const ALLOWED_HEADERS: [&str; 10] = [
    "accept",
    "accept-encoding",
    "authorization",
    "content-type",
    "dnt",
    "origin",
    "user-agent",
    "x-csrftoken",
    "x-requested-with",
    "x-xsrf-token",
];

/// Checks one origin as a browser sends it: `scheme://host[:port]`, no path.
pub fn parse_origin(origin: &str) -> Result<HeaderValue, String> {
    let origin = origin.trim().trim_end_matches('/');
    let bad = || format!("invalid CORS origin {origin:?}: expected scheme://host[:port], e.g. http://127.0.0.1:4200");
    let (scheme, rest) = origin.split_once("://").ok_or_else(bad)?;
    let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    let host_ok = !rest.is_empty() && !rest.contains(['/', '?', '#', '@', ' ']);
    if !plain(scheme) || !host_ok {
        return Err(bad());
    }
    HeaderValue::from_str(&origin.to_ascii_lowercase()).map_err(|_| bad())
}

/// `app` answering the listed origins; as it is when there are none. An `OPTIONS` without
/// `Access-Control-Request-Method` is no preflight but DRF's metadata request: it goes to the
/// app (authenticated) and its answer gets the headers an actual response gets.
pub fn allow(app: Router, origins: &[HeaderValue]) -> Router {
    if origins.is_empty() {
        return app;
    }
    let cors = app.clone().layer(layer(origins));
    let origins = origins.to_vec();
    Router::new().fallback_service(tower::service_fn(move |req: Request| {
        let metadata = req.method() == Method::OPTIONS && !req.headers().contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
        let origin = req.headers().get(header::ORIGIN).filter(|o| origins.contains(o)).cloned();
        let (app, cors) = (app.clone(), cors.clone());
        async move {
            if !metadata {
                return cors.oneshot(req).await;
            }
            let mut resp = app.oneshot(req).await?;
            if let Some(origin) = origin {
                let headers = resp.headers_mut();
                headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
                headers.insert(header::ACCESS_CONTROL_ALLOW_CREDENTIALS, HeaderValue::from_static("true"));
                headers.append(header::VARY, HeaderValue::from_static("origin"));
            }
            Ok(resp)
        }
    }))
}

fn layer(origins: &[HeaderValue]) -> CorsLayer {
    let headers: Vec<HeaderName> = ALLOWED_HEADERS.iter().map(|h| HeaderName::from_static(h)).collect();
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins.iter().cloned()))
        .allow_credentials(true)
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers(headers)
        .expose_headers([header::CONTENT_DISPOSITION])
        .max_age(std::time::Duration::from_secs(86400))
}

#[cfg(test)]
mod tests {
    use super::parse_origin;

    #[test]
    fn origins_are_checked() {
        assert_eq!(parse_origin("http://127.0.0.1:4200/").unwrap(), "http://127.0.0.1:4200");
        assert_eq!(parse_origin("HTTPS://Example.org").unwrap(), "https://example.org");
        for bad in ["127.0.0.1:4200", "http://", "http://a/b", "*", ""] {
            assert!(parse_origin(bad).is_err(), "{bad}");
        }
    }
}
