//! The route table of `/api/v1/`, one module per resource group. Handlers only decode,
//! call the engine (off the async runtime), and encode.
mod accounts;
mod anonymizer;
mod crud;
mod mlp;
mod projects;
mod regex;
mod search;

use super::http::AppState;
use axum::Router;

pub fn api() -> Router<AppState> {
    Router::new()
        .merge(accounts::routes())
        .merge(projects::routes())
        .merge(regex::routes())
        .merge(anonymizer::routes())
        .merge(mlp::routes())
        .merge(search::routes())
}
