//! Health, the API root, `/rest-auth/...` and `/users/...`.
use crate::engine::validate::Mode;
use crate::server::http::{
    blocking, created, no_content, ok, session_key, AppState, Authed, Body, Ids, MaybeAuthed, Reply, SESSION_COOKIE,
};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::json;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1", get(api_root))
        .route("/api/v1/health", get(health))
        .route("/api/v1/rest-auth/registration", post(register))
        .route("/api/v1/rest-auth/registration/verify-email", post(verify_email))
        .route("/api/v1/rest-auth/login", post(login))
        .route("/api/v1/rest-auth/logout", post(logout))
        .route("/api/v1/rest-auth/user", get(me).put(put_me).patch(put_me))
        .route("/api/v1/rest-auth/password/change", post(change_password))
        .route("/api/v1/rest-auth/password/reset", post(reset_password))
        .route("/api/v1/rest-auth/password/reset/confirm", post(confirm_reset))
        .route("/api/v1/users", get(list_users))
        .route(
            "/api/v1/users/{id}",
            get(get_user).put(update_user).patch(update_user).delete(delete_user),
        )
}

async fn api_root(Authed(ctx): Authed) -> Reply {
    let b = &ctx.base_url;
    ok(json!({"projects": format!("{b}/projects/"), "users": format!("{b}/users/"), "core_variables": format!("{b}/core_variables/")}))
}

async fn health(State(s): State<AppState>) -> Reply {
    ok(blocking(&s, |e| e.health()).await?)
}

/// A token response that also starts a browser session (cookie).
fn with_session(mut resp: Response, session: String) -> Response {
    if let Ok(v) = HeaderValue::from_str(&format!("{SESSION_COOKIE}={session}; Path=/; HttpOnly; SameSite=Lax")) {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    resp
}

async fn register(State(s): State<AppState>, Body(b): Body) -> Reply {
    let (token, session) = blocking(&s, move |e| {
        let (id, token) = e.register(&b)?;
        Ok((token, e.start_session(id)?))
    })
    .await?;
    Ok(with_session(created(token)?, session))
}

async fn verify_email() -> Reply {
    ok(json!({"detail": "ok"}))
}

async fn login(State(s): State<AppState>, Body(b): Body) -> Reply {
    let (token, session) = blocking(&s, move |e| {
        let (id, token) = e.login(&b)?;
        Ok((token, e.start_session(id)?))
    })
    .await?;
    Ok(with_session(ok(token)?, session))
}

async fn logout(State(s): State<AppState>, MaybeAuthed(user): MaybeAuthed, headers: HeaderMap) -> Reply {
    let session = session_key(&headers);
    let detail = blocking(&s, move |e| e.logout(user.as_ref(), session.as_deref())).await?;
    let mut resp = ok(detail)?;
    resp.headers_mut()
        .append(header::SET_COOKIE, HeaderValue::from_static("sessionid=; Path=/; Max-Age=0"));
    Ok(resp.into_response())
}

async fn me(State(s): State<AppState>, Authed(ctx): Authed) -> Reply {
    ok(blocking(&s, move |e| e.me(&ctx)).await?)
}

async fn put_me(State(s): State<AppState>, Authed(ctx): Authed, Body(b): Body) -> Reply {
    ok(blocking(&s, move |e| e.update_me(&ctx, &b)).await?)
}

async fn change_password(State(s): State<AppState>, Authed(ctx): Authed, Body(b): Body) -> Reply {
    ok(blocking(&s, move |e| e.change_password(&ctx, &b)).await?)
}

async fn reset_password(State(s): State<AppState>, Body(b): Body) -> Reply {
    ok(blocking(&s, move |e| e.request_password_reset(&b)).await?)
}

async fn confirm_reset(State(s): State<AppState>, Body(b): Body) -> Reply {
    ok(blocking(&s, move |e| e.confirm_password_reset(&b)).await?)
}

async fn list_users(State(s): State<AppState>, Authed(ctx): Authed) -> Reply {
    ok(blocking(&s, move |e| e.list_users(&ctx)).await?)
}

async fn get_user(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids) -> Reply {
    ok(blocking(&s, move |e| e.get_user(&ctx, ids[0])).await?)
}

async fn update_user(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids, Body(b): Body) -> Reply {
    ok(blocking(&s, move |e| e.update_user(&ctx, ids[0], &b)).await?)
}

async fn delete_user(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids) -> Reply {
    no_content(blocking(&s, move |e| e.delete_user(&ctx, ids[0])).await?)
}

/// PUT vs PATCH.
pub fn mode_of(method: &axum::http::Method) -> Mode {
    if method == axum::http::Method::PATCH {
        Mode::Partial
    } else {
        Mode::Full
    }
}
