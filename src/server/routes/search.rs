//! Indices and documents: `/projects/{pk}/dataset_imports/...`, `/projects/{pk}/elastic/documents/...`,
//! the project search actions, `/index/...` and `/get_indices`.
use super::crud::{action, crud};
use crate::engine::resources::Kind;
use crate::server::http::{blocking, no_content, ok, AppState, Authed, Body, Ids, Reply};
use axum::extract::{Path, State};
use axum::routing::get;
use axum::Router;

pub fn routes() -> Router<AppState> {
    let p = "/api/v1/projects/{pk}";
    crud!(
        "dataset_imports",
        Kind::DatasetImport,
        list_dataset_imports,
        create_dataset_import,
        get_dataset_import,
        update_dataset_import,
        delete_dataset_import
    )
    .route(&format!("{p}/elastic/documents"), action!(insert_documents, 0))
    .route(
        &format!("{p}/elastic/documents/{{index}}/{{id}}"),
        get(get_document).patch(patch_document).delete(delete_document),
    )
    .route(&format!("{p}/search"), action!(simple_search, 0))
    .route(&format!("{p}/search_by_query"), action!(search_by_query, 0))
    .route(&format!("{p}/scroll"), action!(scroll, 0))
    .route(&format!("{p}/get_facts"), action!(get_facts, 0))
    .route("/api/v1/index", get(list_indices))
    .route("/api/v1/index/{id}", get(get_index).patch(update_index).delete(delete_index))
    .route("/api/v1/get_indices", get(store_indices))
}

/// `{pk}` as an integer (404 otherwise) plus the index name and document id.
fn doc_path((pk, index, id): (String, String, String)) -> Result<(i64, String, String), crate::server::http::ApiError> {
    let pk = pk.parse().map_err(|_| crate::engine::error::Error::not_found())?;
    Ok((pk, index, id))
}

async fn get_document(State(s): State<AppState>, Authed(ctx): Authed, Path(p): Path<(String, String, String)>) -> Reply {
    let (pk, index, id) = doc_path(p)?;
    ok(blocking(&s, move |e| e.get_document(&ctx, pk, &index, &id)).await?)
}

async fn patch_document(State(s): State<AppState>, Authed(ctx): Authed, Path(p): Path<(String, String, String)>, Body(b): Body) -> Reply {
    let (pk, index, id) = doc_path(p)?;
    ok(blocking(&s, move |e| e.patch_document(&ctx, pk, &index, &id, &b)).await?)
}

async fn delete_document(State(s): State<AppState>, Authed(ctx): Authed, Path(p): Path<(String, String, String)>) -> Reply {
    let (pk, index, id) = doc_path(p)?;
    no_content(blocking(&s, move |e| e.delete_document(&ctx, pk, &index, &id)).await?)
}

async fn list_indices(State(s): State<AppState>, Authed(ctx): Authed) -> Reply {
    ok(blocking(&s, move |e| e.list_index_catalogue(&ctx)).await?)
}

async fn get_index(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids) -> Reply {
    ok(blocking(&s, move |e| e.get_index(&ctx, ids[0])).await?)
}

async fn update_index(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids, Body(b): Body) -> Reply {
    ok(blocking(&s, move |e| e.update_index(&ctx, ids[0], &b)).await?)
}

async fn delete_index(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids) -> Reply {
    no_content(blocking(&s, move |e| e.delete_index(&ctx, ids[0])).await?)
}

async fn store_indices(State(s): State<AppState>, Authed(ctx): Authed) -> Reply {
    ok(blocking(&s, move |e| e.store_indices(&ctx)).await?)
}
