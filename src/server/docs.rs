//! API reference pages: the OpenAPI 3.1 document (built from the engine's request and
//! response types plus the operation table below), Swagger UI (vendored assets) and
//! ReDoc (bundled script), all working with no internet access.
use super::http::AppState;
use crate::engine::{accounts, anonymizers, dataset_imports, indices, projects, regex_taggers, resources, tasks};
use axum::http::header;
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use axum::Router;
use utoipa::openapi::path::{HttpMethod, OperationBuilder};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::{ContentBuilder, OpenApi as Doc, Ref, ResponseBuilder};
use utoipa::OpenApi;

/// One documented operation: method, path (relative to `/api/v1`), tag, summary,
/// request schema and success response `(status, schema)`.
pub struct Op {
    pub method: &'static str,
    pub path: &'static str,
    pub tag: &'static str,
    pub summary: &'static str,
    pub request: Option<&'static str>,
    pub response: (&'static str, Option<&'static str>),
}

const fn op(
    method: &'static str,
    path: &'static str,
    tag: &'static str,
    summary: &'static str,
    request: Option<&'static str>,
    response: (&'static str, Option<&'static str>),
) -> Op {
    Op {
        method,
        path,
        tag,
        summary,
        request,
        response,
    }
}

/// Every routed operation. `tests/http_api.rs` checks each one is served.
pub const OPS: &[Op] = &[
    op(
        "get",
        "/health/",
        "health",
        "Service health (host, search store, language processing, tasks)",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/rest-auth/registration/",
        "auth",
        "Register; returns the token",
        Some("RegisterIn"),
        ("201", Some("TokenOut")),
    ),
    op(
        "post",
        "/rest-auth/login/",
        "auth",
        "Log in; returns the (existing) token",
        Some("LoginIn"),
        ("200", Some("TokenOut")),
    ),
    op(
        "post",
        "/rest-auth/logout/",
        "auth",
        "Delete the caller's token and session",
        None,
        ("200", Some("Detail")),
    ),
    op(
        "get",
        "/rest-auth/user/",
        "auth",
        "The calling user",
        None,
        ("200", Some("UserOut")),
    ),
    op(
        "patch",
        "/rest-auth/user/",
        "auth",
        "Change the caller's e-mail",
        None,
        ("200", Some("UserOut")),
    ),
    op(
        "post",
        "/rest-auth/password/change/",
        "auth",
        "Change the caller's password",
        None,
        ("200", Some("Detail")),
    ),
    op(
        "post",
        "/rest-auth/password/reset/",
        "auth",
        "Request a password reset mail (logged)",
        None,
        ("200", Some("Detail")),
    ),
    op(
        "post",
        "/rest-auth/password/reset/confirm/",
        "auth",
        "Set a new password with a reset token",
        None,
        ("200", Some("Detail")),
    ),
    op(
        "get",
        "/users/",
        "users",
        "Users (superusers see all, others themselves)",
        None,
        ("200", Some("UserOut")),
    ),
    op("get", "/users/{id}/", "users", "One user", None, ("200", Some("UserOut"))),
    op(
        "patch",
        "/users/{id}/",
        "users",
        "Grant or revoke superuser status",
        None,
        ("200", Some("UserOut")),
    ),
    op("delete", "/users/{id}/", "users", "Delete a user", None, ("204", None)),
    op(
        "get",
        "/projects/",
        "projects",
        "Projects the caller is a member of",
        None,
        ("200", Some("ProjectOut")),
    ),
    op(
        "post",
        "/projects/",
        "projects",
        "Create a project (superusers)",
        Some("ProjectIn"),
        ("201", Some("ProjectOut")),
    ),
    op(
        "get",
        "/projects/{id}/",
        "projects",
        "One project",
        None,
        ("200", Some("ProjectOut")),
    ),
    op(
        "put",
        "/projects/{id}/",
        "projects",
        "Replace a project",
        Some("ProjectIn"),
        ("200", Some("ProjectOut")),
    ),
    op(
        "patch",
        "/projects/{id}/",
        "projects",
        "Change a project",
        Some("ProjectIn"),
        ("200", Some("ProjectOut")),
    ),
    op(
        "delete",
        "/projects/{id}/",
        "projects",
        "Delete a project and its resources",
        None,
        ("204", None),
    ),
    op(
        "get",
        "/projects/{id}/get_indices/",
        "projects",
        "The project's indices",
        None,
        ("200", Some("IndicesOut")),
    ),
    op(
        "get",
        "/projects/{id}/get_fields/",
        "projects",
        "Fields of the project's indices",
        None,
        ("200", None),
    ),
    op(
        "get",
        "/projects/{project_pk}/regex_taggers/",
        "regex_taggers",
        "Regex taggers (paginated)",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_taggers/",
        "regex_taggers",
        "Create a regex tagger",
        None,
        ("201", Some("RegexTaggerOut")),
    ),
    op(
        "get",
        "/projects/{project_pk}/regex_taggers/{id}/",
        "regex_taggers",
        "One regex tagger",
        None,
        ("200", Some("RegexTaggerOut")),
    ),
    op(
        "put",
        "/projects/{project_pk}/regex_taggers/{id}/",
        "regex_taggers",
        "Replace a regex tagger",
        None,
        ("200", Some("RegexTaggerOut")),
    ),
    op(
        "patch",
        "/projects/{project_pk}/regex_taggers/{id}/",
        "regex_taggers",
        "Change a regex tagger",
        None,
        ("200", Some("RegexTaggerOut")),
    ),
    op(
        "delete",
        "/projects/{project_pk}/regex_taggers/{id}/",
        "regex_taggers",
        "Delete a regex tagger",
        None,
        ("204", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_taggers/bulk_delete/",
        "regex_taggers",
        "Delete several regex taggers",
        None,
        ("200", Some("BulkDeleteOut")),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_taggers/{id}/tag_text/",
        "regex_taggers",
        "Tag one text: {text}",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_taggers/{id}/tag_texts/",
        "regex_taggers",
        "Tag texts: {texts}",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_taggers/{id}/tag_doc/",
        "regex_taggers",
        "Tag a document: {doc, fields}",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_taggers/multitag_text/",
        "regex_taggers",
        "Run several taggers: {text, taggers}",
        None,
        ("200", None),
    ),
    op(
        "get",
        "/projects/{project_pk}/regex_tagger_groups/",
        "regex_tagger_groups",
        "Regex tagger groups (paginated)",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_tagger_groups/",
        "regex_tagger_groups",
        "Create a group: {regex_taggers, description}",
        None,
        ("201", Some("RegexTaggerGroupOut")),
    ),
    op(
        "get",
        "/projects/{project_pk}/regex_tagger_groups/{id}/",
        "regex_tagger_groups",
        "One group",
        None,
        ("200", Some("RegexTaggerGroupOut")),
    ),
    op(
        "put",
        "/projects/{project_pk}/regex_tagger_groups/{id}/",
        "regex_tagger_groups",
        "Replace a group",
        None,
        ("200", Some("RegexTaggerGroupOut")),
    ),
    op(
        "patch",
        "/projects/{project_pk}/regex_tagger_groups/{id}/",
        "regex_tagger_groups",
        "Change a group",
        None,
        ("200", Some("RegexTaggerGroupOut")),
    ),
    op(
        "delete",
        "/projects/{project_pk}/regex_tagger_groups/{id}/",
        "regex_tagger_groups",
        "Delete a group",
        None,
        ("204", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_tagger_groups/bulk_delete/",
        "regex_tagger_groups",
        "Delete several groups",
        None,
        ("200", Some("BulkDeleteOut")),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_tagger_groups/{id}/tag_text/",
        "regex_tagger_groups",
        "Tag one text with every member",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_tagger_groups/{id}/tag_texts/",
        "regex_tagger_groups",
        "Tag texts with every member",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_tagger_groups/{id}/tag_doc/",
        "regex_tagger_groups",
        "Tag a document with every member",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_tagger_groups/{id}/simple_tag_text/",
        "regex_tagger_groups",
        "Descriptions of matching members",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_tagger_groups/multitag_text/",
        "regex_tagger_groups",
        "Run several groups: {text, tagger_groups}",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/regex_tagger_groups/simple_multitag_text/",
        "regex_tagger_groups",
        "Group → matching member descriptions",
        None,
        ("200", None),
    ),
    op(
        "get",
        "/projects/{project_pk}/anonymizers/",
        "anonymizers",
        "Anonymizers (paginated)",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/anonymizers/",
        "anonymizers",
        "Create an anonymizer",
        None,
        ("201", Some("AnonymizerOut")),
    ),
    op(
        "get",
        "/projects/{project_pk}/anonymizers/{id}/",
        "anonymizers",
        "One anonymizer",
        None,
        ("200", Some("AnonymizerOut")),
    ),
    op(
        "put",
        "/projects/{project_pk}/anonymizers/{id}/",
        "anonymizers",
        "Replace an anonymizer",
        None,
        ("200", Some("AnonymizerOut")),
    ),
    op(
        "patch",
        "/projects/{project_pk}/anonymizers/{id}/",
        "anonymizers",
        "Change an anonymizer",
        None,
        ("200", Some("AnonymizerOut")),
    ),
    op(
        "delete",
        "/projects/{project_pk}/anonymizers/{id}/",
        "anonymizers",
        "Delete an anonymizer",
        None,
        ("204", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/anonymizers/bulk_delete/",
        "anonymizers",
        "Delete several anonymizers",
        None,
        ("200", Some("BulkDeleteOut")),
    ),
    op(
        "post",
        "/projects/{project_pk}/anonymizers/{id}/anonymize_text/",
        "anonymizers",
        "Anonymize one text: {text, names, replacers?} (replacers: ta extension for reproducible initials)",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/projects/{project_pk}/anonymizers/{id}/anonymize_texts/",
        "anonymizers",
        "Anonymize texts: {texts, names, consistent_replacement, replacers?}",
        None,
        ("200", None),
    ),
    op(
        "post",
        "/mlp/texts/",
        "mlp",
        "Language processing (tokens, lemmas, POS tags, language, facts): {texts, analyzers?}",
        None,
        ("200", None),
    ),
    op(
        "get",
        "/tasks/",
        "tasks",
        "Background tasks visible to the caller (ta extension)",
        None,
        ("200", Some("TaskInfo")),
    ),
    op(
        "get",
        "/tasks/{id}/",
        "tasks",
        "One background task (ta extension)",
        None,
        ("200", Some("TaskInfo")),
    ),
];

#[derive(OpenApi)]
#[openapi(
    info(title = "ta API", description = "TEXTA Toolkit 2.10-compatible text analysis API. Authenticate with `Authorization: Token <key>` from /rest-auth/login/."),
    servers((url = "/api/v1")),
    components(schemas(
        accounts::UserOut, accounts::TokenOut, accounts::Detail, accounts::RegisterIn, accounts::LoginIn,
        projects::ProjectOut, projects::ProjectIn, projects::IndicesOut,
        tasks::TaskOut, tasks::TaskInfo, resources::BulkDeleteOut,
        regex_taggers::RegexTaggerOut, regex_taggers::RegexTaggerGroupOut, anonymizers::AnonymizerOut,
        dataset_imports::DatasetImportOut, indices::IndexOut,
    ))
)]
struct ApiDoc;

fn method(m: &str) -> HttpMethod {
    match m {
        "post" => HttpMethod::Post,
        "put" => HttpMethod::Put,
        "patch" => HttpMethod::Patch,
        "delete" => HttpMethod::Delete,
        _ => HttpMethod::Get,
    }
}

/// The OpenAPI document: component schemas from the Rust types, paths from `OPS`.
pub fn openapi() -> Doc {
    let mut doc = ApiDoc::openapi();
    for o in OPS {
        let mut resp = ResponseBuilder::new().description(o.summary);
        if let Some(schema) = o.response.1 {
            resp = resp.content(
                "application/json",
                ContentBuilder::new().schema(Some(Ref::from_schema_name(schema))).build(),
            );
        }
        let mut b = OperationBuilder::new()
            .tag(o.tag)
            .summary(Some(o.summary))
            .response(o.response.0, resp.build());
        if let Some(schema) = o.request {
            let body = RequestBodyBuilder::new().content(
                "application/json",
                ContentBuilder::new().schema(Some(Ref::from_schema_name(schema))).build(),
            );
            b = b.request_body(Some(body.build()));
        }
        doc.paths.add_path_operation(o.path, vec![method(o.method)], b.build());
    }
    doc
}

const REDOC_PAGE: &str = r#"<!DOCTYPE html>
<html><head><title>ta API — ReDoc</title><meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/api/v1/swagger.json"></redoc>
<script src="/api/v1/redoc/redoc.standalone.js"></script></body></html>"#;

pub fn routes() -> Router<AppState> {
    let doc = openapi();
    let yaml = doc.to_yaml().unwrap_or_default();
    let swagger: Router<AppState> = utoipa_swagger_ui::SwaggerUi::new("/api/v1/swagger")
        .url("/api/v1/swagger.json", doc)
        .into();
    Router::new()
        .merge(swagger)
        .route(
            "/api/v1/swagger.yaml",
            get(move || async move { ([(header::CONTENT_TYPE, "application/yaml")], yaml).into_response() }),
        )
        .route(
            "/api/v1/redoc",
            get(|| async { axum::response::Redirect::permanent("/api/v1/redoc/") }),
        )
        .route("/api/v1/redoc/", get(|| async { Html(REDOC_PAGE) }))
        .route(
            "/api/v1/redoc/redoc.standalone.js",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "application/javascript")],
                    include_bytes!("../../assets/redoc/redoc.standalone.js").as_slice(),
                )
            }),
        )
}
