//! The standard routes of a project-resource collection (list, create, retrieve,
//! update, partial update, delete, bulk_delete), generated for each resource kind from
//! its engine methods.

/// `crud!(segment, Kind, list, create, get, update, delete)` builds a
/// `Router<AppState>` serving `/api/v1/projects/{pk}/<segment>[/{id}]` and `bulk_delete`.
macro_rules! crud {
    ($segment:literal, $kind:expr, $list:ident, $create:ident, $get:ident, $update:ident, $delete:ident) => {{
        use crate::server::http::{blocking, created, no_content, ok, AppState, Authed, Body, Ids, Query, Reply};
        use axum::extract::State;
        use axum::http::Method;
        use axum::routing::{get, post};

        async fn list(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids, Query(q): Query) -> Reply {
            ok(blocking(&s, move |e| e.$list(&ctx, ids[0], &q)).await?)
        }
        async fn create(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids, Body(b): Body) -> Reply {
            created(blocking(&s, move |e| e.$create(&ctx, ids[0], &b)).await?)
        }
        async fn retrieve(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids) -> Reply {
            ok(blocking(&s, move |e| e.$get(&ctx, ids[0], ids[1])).await?)
        }
        async fn update(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids, method: Method, Body(b): Body) -> Reply {
            let mode = super::accounts::mode_of(&method);
            ok(blocking(&s, move |e| e.$update(&ctx, ids[0], ids[1], &b, mode)).await?)
        }
        async fn destroy(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids) -> Reply {
            no_content(blocking(&s, move |e| e.$delete(&ctx, ids[0], ids[1])).await?)
        }
        async fn bulk_delete(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids, Body(b): Body) -> Reply {
            ok(blocking(&s, move |e| {
                e.check_project_access(&ctx, ids[0])?;
                e.bulk_delete($kind, ids[0], &b)
            })
            .await?)
        }
        axum::Router::<AppState>::new()
            .route(concat!("/api/v1/projects/{pk}/", $segment), get(list).post(create))
            .route(concat!("/api/v1/projects/{pk}/", $segment, "/bulk_delete"), post(bulk_delete))
            .route(
                concat!("/api/v1/projects/{pk}/", $segment, "/{id}"),
                get(retrieve).put(update).patch(update).delete(destroy),
            )
    }};
}

/// `action!(method_fn)` builds a POST handler for `/{pk}/<segment>/{id}/<action>/` (or
/// a collection action when the path has only `{pk}`) that passes the ids and the body
/// to an engine method returning a serializable result.
macro_rules! action {
    ($method:ident, $($id:tt),+) => {{
        use crate::server::http::{blocking, ok, AppState, Authed, Body, Ids, Reply};
        use axum::extract::State;
        async fn handler(State(s): State<AppState>, Authed(ctx): Authed, Ids(ids): Ids, Body(b): Body) -> Reply {
            ok(blocking(&s, move |e| e.$method(&ctx, $(ids[$id]),+, &b)).await?)
        }
        axum::routing::post(handler)
    }};
}

pub(crate) use action;
pub(crate) use crud;
