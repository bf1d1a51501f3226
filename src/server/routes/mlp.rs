//! `POST /mlp/texts/`: language processing of raw texts (mlp.md §1–§2).
use crate::server::http::{blocking, ok, AppState, Authed, Body, Reply};
use axum::extract::State;
use axum::routing::post;
use axum::Router;

pub fn routes() -> Router<AppState> {
    Router::new().route("/api/v1/mlp/texts", post(mlp_texts))
}

async fn mlp_texts(State(s): State<AppState>, Authed(ctx): Authed, Body(b): Body) -> Reply {
    ok(blocking(&s, move |e| e.mlp_texts(&ctx, &b)).await?)
}
