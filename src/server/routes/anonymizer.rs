//! `/projects/{pk}/anonymizers/...`.
use super::crud::{action, crud};
use crate::engine::resources::Kind;
use crate::server::http::AppState;
use axum::Router;

pub fn routes() -> Router<AppState> {
    let a = "/api/v1/projects/{pk}/anonymizers";
    crud!(
        "anonymizers",
        Kind::Anonymizer,
        list_anonymizers,
        create_anonymizer,
        get_anonymizer,
        update_anonymizer,
        delete_anonymizer
    )
    .route(&format!("{a}/{{id}}/anonymize_text"), action!(anonymize_text, 0, 1))
    .route(&format!("{a}/{{id}}/anonymize_texts"), action!(anonymize_texts, 0, 1))
}
