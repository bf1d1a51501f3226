//! API reference pages: the OpenAPI 3.1 document (derived from the engine's operation
//! catalogue and its request and response types), Swagger UI (vendored assets) and
//! ReDoc (bundled script), all working with no internet access.
use super::http::AppState;
use crate::engine::operations::{self, schema_of, Method};
use axum::http::header;
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use axum::Router;
use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::{ContentBuilder, OpenApi as Doc, Required, ResponseBuilder};
use utoipa::OpenApi;

#[derive(OpenApi)]
#[openapi(
    info(title = "ta API", description = "TEXTA Toolkit 2.10-compatible text analysis API. Authenticate with `Authorization: Token <key>` from /rest-auth/login/."),
    servers((url = "/api/v1")),
)]
struct ApiDoc;

fn method(m: Method) -> HttpMethod {
    match m {
        Method::Get => HttpMethod::Get,
        Method::Post => HttpMethod::Post,
        Method::Put => HttpMethod::Put,
        Method::Patch => HttpMethod::Patch,
        Method::Delete => HttpMethod::Delete,
    }
}

/// The OpenAPI document, derived from the operation catalogue: every operation with its
/// request and response schemas (built from the Rust types), and the schemas they refer to.
pub fn openapi() -> Doc {
    let mut doc = ApiDoc::openapi();
    let mut nested = Vec::new();
    for o in operations::all() {
        let mut resp = ResponseBuilder::new().description(o.summary.clone());
        if let Some(schema) = o.response {
            resp = resp.content("application/json", ContentBuilder::new().schema(Some(schema(&mut nested))).build());
        }
        let mut b = OperationBuilder::new()
            .tag(o.tag)
            .summary(Some(o.summary.clone()))
            .response(o.status.to_string(), resp.build());
        for name in o.param_names() {
            b = b.parameter(
                ParameterBuilder::new()
                    .name(name)
                    .parameter_in(ParameterIn::Path)
                    .required(Required::True)
                    .schema(Some(if name == "index" || (name == "id" && o.path.contains("/documents/")) {
                        schema_of::<String>(&mut nested)
                    } else {
                        schema_of::<i64>(&mut nested)
                    })),
            );
        }
        if let Some(schema) = o.request {
            let media = if o.upload { "multipart/form-data" } else { "application/json" };
            let body = RequestBodyBuilder::new().content(media, ContentBuilder::new().schema(Some(schema(&mut nested))).build());
            b = b.request_body(Some(body.build()));
        }
        doc.paths.add_path_operation(o.path.as_ref(), vec![method(o.method)], b.build());
    }
    let components = doc.components.get_or_insert_with(Default::default);
    for (name, schema) in nested {
        components.schemas.entry(name).or_insert(schema);
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
    let json = doc.to_json().unwrap_or_default();
    let yaml = doc.to_yaml().unwrap_or_default();
    let swagger: Router<AppState> = utoipa_swagger_ui::SwaggerUi::new("/api/v1/swagger")
        .url("/api/v1/swagger.json", doc)
        .into();
    let yaml_reply = get(move || async move { ([(header::CONTENT_TYPE, "application/yaml")], yaml).into_response() });
    let json_reply = get(move || async move { ([(header::CONTENT_TYPE, "application/json")], json).into_response() });
    let redoc_page = get(|| async { Html(REDOC_PAGE) });
    // Every docs path takes either form, with or without the trailing slash, as API paths do.
    Router::new()
        .merge(swagger)
        .route("/api/v1/swagger.json/", json_reply)
        .route("/api/v1/swagger.yaml", yaml_reply.clone())
        .route("/api/v1/swagger.yaml/", yaml_reply)
        .route("/api/v1/redoc", redoc_page.clone())
        .route("/api/v1/redoc/", redoc_page)
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
