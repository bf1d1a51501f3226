//! `/projects/{pk}/regex_taggers/...` and `/projects/{pk}/regex_tagger_groups/...`.
use super::crud::{action, crud};
use crate::engine::resources::Kind;
use crate::server::http::AppState;
use axum::Router;

pub fn routes() -> Router<AppState> {
    let taggers = crud!(
        "regex_taggers",
        Kind::RegexTagger,
        list_regex_taggers,
        create_regex_tagger,
        get_regex_tagger,
        update_regex_tagger,
        delete_regex_tagger
    );
    let groups = crud!(
        "regex_tagger_groups",
        Kind::RegexTaggerGroup,
        list_regex_tagger_groups,
        create_regex_tagger_group,
        get_regex_tagger_group,
        update_regex_tagger_group,
        delete_regex_tagger_group
    );
    let t = "/api/v1/projects/{pk}/regex_taggers";
    let g = "/api/v1/projects/{pk}/regex_tagger_groups";
    Router::new()
        .merge(taggers)
        .merge(groups)
        .route(&format!("{t}/multitag_text"), action!(regex_multitag_text, 0))
        .route(&format!("{t}/{{id}}/tag_text"), action!(regex_tag_text, 0, 1))
        .route(&format!("{t}/{{id}}/tag_texts"), action!(regex_tag_texts, 0, 1))
        .route(&format!("{t}/{{id}}/tag_doc"), action!(regex_tag_doc, 0, 1))
        .route(&format!("{t}/{{id}}/tag_random_doc"), action!(regex_tag_random_doc, 0, 1))
        .route(&format!("{g}/multitag_text"), action!(group_multitag_text, 0))
        .route(&format!("{g}/simple_multitag_text"), action!(group_simple_multitag_text, 0))
        .route(&format!("{g}/{{id}}/tag_text"), action!(group_tag_text, 0, 1))
        .route(&format!("{g}/{{id}}/tag_texts"), action!(group_tag_texts, 0, 1))
        .route(&format!("{g}/{{id}}/tag_doc"), action!(group_tag_doc, 0, 1))
        .route(&format!("{g}/{{id}}/tag_random_doc"), action!(group_tag_random_doc, 0, 1))
        .route(&format!("{g}/{{id}}/apply_tagger_group"), action!(apply_tagger_group, 0, 1))
        .route(&format!("{g}/{{id}}/simple_tag_text"), action!(group_simple_tag_text, 0, 1))
}
