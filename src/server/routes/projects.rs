//! `/projects/...` and the task reads.
use super::accounts::mode_of;
use crate::server::http::{blocking, created, no_content, ok, AppState, Authed, Body, Ids, Query, Reply};
use axum::extract::State;
use axum::http::Method;
use axum::routing::get;
use axum::Router;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/projects", get(list).post(create))
        .route("/api/v1/projects/{pk}", get(retrieve).put(update).patch(update).delete(destroy))
        .route("/api/v1/projects/{pk}/get_indices", get(get_indices))
        .route("/api/v1/projects/{pk}/get_fields", get(get_fields))
        .route("/api/v1/tasks", get(list_tasks))
        .route("/api/v1/tasks/{id}", get(get_task))
}

async fn list(State(s): State<AppState>, Authed(ctx): Authed, Query(q): Query) -> Reply {
    ok(blocking(&s, move |e| e.list_projects(&ctx, &q)).await?)
}

async fn create(State(s): State<AppState>, Authed(ctx): Authed, Body(b): Body) -> Reply {
    created(blocking(&s, move |e| e.create_project(&ctx, &b)).await?)
}

async fn retrieve(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids) -> Reply {
    ok(blocking(&s, move |e| e.get_project(&ctx, ids[0])).await?)
}

async fn update(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids, method: Method, Body(b): Body) -> Reply {
    let mode = mode_of(&method);
    ok(blocking(&s, move |e| e.update_project(&ctx, ids[0], &b, mode)).await?)
}

async fn destroy(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids) -> Reply {
    no_content(blocking(&s, move |e| e.delete_project(&ctx, ids[0])).await?)
}

async fn get_indices(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids) -> Reply {
    ok(blocking(&s, move |e| e.get_project_indices(&ctx, ids[0])).await?)
}

async fn get_fields(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids) -> Reply {
    ok(blocking(&s, move |e| e.get_project_fields(&ctx, ids[0])).await?)
}

async fn list_tasks(State(s): State<AppState>, Authed(ctx): Authed) -> Reply {
    ok(blocking(&s, move |e| e.list_tasks(&ctx)).await?)
}

async fn get_task(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids) -> Reply {
    ok(blocking(&s, move |e| e.get_task(&ctx, ids[0])).await?)
}
