//! API reference pages: the OpenAPI 3.1 document (derived from the engine's operation
//! catalogue and its request and response types, with the error answers and the token
//! security every operation has), Swagger UI (vendored assets) and
//! ReDoc (bundled script), all working with no internet access.
use super::http::AppState;
use crate::engine::accounts::Detail;
use crate::engine::operations::{self, schema_of, Access, Method, Operation, QueryParam};
use axum::http::header;
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use axum::Router;
use utoipa::openapi::path::{HttpMethod, OperationBuilder, Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{AdditionalProperties, ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{Components, ContentBuilder, OpenApi as Doc, Ref, RefOr, Required, ResponseBuilder, Schema};
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

/// The security scheme every operation names: `Authorization: Token <key>`.
const TOKEN: &str = "Token";

/// The error answers the document describes, each a named response: status, name, what
/// causes it (conventions §6).
const ERRORS: &[(u16, &str, &str)] = &[
    (
        400,
        "BadRequest",
        "Invalid request: field errors (`{\"field\": [\"message\"]}`, `non_field_errors`, nested per item), \
         `{\"detail\": \"...\"}` (malformed JSON, index-name rules, domain errors), `{\"error\": \"...\"}`, \
         or a list of messages",
    ),
    (
        403,
        "Forbidden",
        "No credentials, a bad token (on any operation, open ones included), or not permitted",
    ),
    (404, "NotFound", "No such object, an invalid page, or a non-integer id"),
    (
        405,
        "NotAllowed",
        "The action does not apply to this resource (per-class results of a binary evaluator)",
    ),
    (406, "NotAcceptable", "The `Accept` header asks for neither JSON nor HTML"),
    (
        413,
        "TooLarge",
        "The body is over the body limit (`TA_MAX_BODY`) or the upload limit (`TA_MAX_UPLOAD`)",
    ),
    (
        415,
        "UnsupportedMediaType",
        "The body is not JSON, a url-encoded form or a multipart form",
    ),
    (
        503,
        "Unavailable",
        "Language data the request needs is not installed (the detail names the files and how to install them)",
    ),
];

/// The error statuses `o` can answer: every operation checks the token and the `Accept`
/// header; one that takes a body can find it invalid, too large or of a foreign type; one
/// with path parameters or pages can find nothing there; one that runs language processing
/// can miss its data.
fn error_statuses(o: &Operation) -> Vec<u16> {
    let body = matches!(o.method, Method::Post | Method::Put | Method::Patch);
    let lookup = !o.param_names().is_empty() || o.query.iter().any(|q| q.name == "page");
    ERRORS
        .iter()
        .map(|(status, ..)| *status)
        .filter(|s| match s {
            400 | 413 | 415 => body,
            404 => lookup,
            405 => o.may_not_apply,
            503 => o.language_data,
            _ => true,
        })
        .collect()
}

/// The named error responses and the schemas they use.
fn error_components(components: &mut Components, nested: &mut Vec<(String, RefOr<Schema>)>) {
    let detail = schema_of::<Detail>(nested);
    components.schemas.insert("Detail".into(), detail);
    let bad_request = OneOfBuilder::new()
        .item(ObjectBuilder::new().additional_properties(Some(AdditionalProperties::FreeForm(true))))
        .item(ArrayBuilder::new().items(ObjectBuilder::new().schema_type(Type::String)))
        .build();
    for (status, name, description) in ERRORS {
        let schema: RefOr<Schema> = if *status == 400 {
            Schema::OneOf(bad_request.clone()).into()
        } else {
            Ref::from_schema_name("Detail").into()
        };
        let response = ResponseBuilder::new()
            .description(*description)
            .content("application/json", ContentBuilder::new().schema(Some(schema)).build());
        components.responses.insert((*name).into(), response.build().into());
    }
}

/// A request body whose type flattens another (`#[serde(flatten)]`, an `allOf` of a named
/// schema and the own fields) as one object with all the fields: what the client sends,
/// and a form that schema-driven clients and fuzzers generate from directly.
fn flattened(schema: RefOr<Schema>, nested: &[(String, RefOr<Schema>)]) -> RefOr<Schema> {
    let RefOr::T(Schema::AllOf(all)) = &schema else { return schema };
    let mut merged = ObjectBuilder::new().description(all.description.clone()).build();
    for part in &all.items {
        let part = match part {
            RefOr::Ref(r) => nested
                .iter()
                .find(|(name, _)| r.ref_location.strip_prefix("#/components/schemas/") == Some(name.as_str()))
                .map(|(_, s)| s),
            own => Some(own),
        };
        let Some(RefOr::T(Schema::Object(object))) = part else {
            return schema;
        };
        merged.properties.extend(object.properties.clone());
        merged.required.extend(object.required.iter().cloned());
    }
    RefOr::T(Schema::Object(merged))
}

fn path_parameter(o: &Operation, name: &str, nested: &mut Vec<(String, RefOr<Schema>)>) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .schema(Some(if name == "index" || (name == "id" && o.path.contains("/documents/")) {
            schema_of::<String>(nested)
        } else {
            schema_of::<i64>(nested)
        }))
        .build()
}

fn query_parameter(q: &QueryParam, nested: &mut Vec<(String, RefOr<Schema>)>) -> Parameter {
    ParameterBuilder::new()
        .name(q.name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .description(Some(q.description))
        .schema(Some(schema_of::<String>(nested)))
        .build()
}

/// The OpenAPI document, derived from the operation catalogue: every operation with its
/// parameters, request and response schemas (built from the Rust types), the error answers
/// it can give, and its security (the token; optional on open operations).
pub fn openapi() -> Doc {
    let mut doc = ApiDoc::openapi();
    let mut nested = Vec::new();
    let token = || SecurityRequirement::new(TOKEN, Vec::<String>::new());
    for o in operations::all() {
        let mut resp = ResponseBuilder::new().description(o.summary.clone());
        if let Some(schema) = o.response {
            resp = resp.content("application/json", ContentBuilder::new().schema(Some(schema(&mut nested))).build());
        }
        let mut b = OperationBuilder::new()
            .tag(o.tag)
            .summary(Some(o.summary.clone()))
            .response(o.status.to_string(), resp.build());
        for status in error_statuses(o) {
            let (_, name, _) = ERRORS.iter().find(|(s, ..)| *s == status).expect("a declared error");
            b = b.response(status.to_string(), Ref::new(format!("#/components/responses/{name}")));
        }
        b = match o.access {
            Access::User => b.security(token()),
            Access::Open | Access::Key => b.security(SecurityRequirement::default()).security(token()),
        };
        for name in o.param_names() {
            b = b.parameter(path_parameter(o, name, &mut nested));
        }
        for q in o.query {
            b = b.parameter(query_parameter(q, &mut nested));
        }
        if let Some(schema) = o.request {
            let media = if o.upload { "multipart/form-data" } else { "application/json" };
            let schema = schema(&mut nested);
            let body = RequestBodyBuilder::new().content(media, ContentBuilder::new().schema(Some(flattened(schema, &nested))).build());
            b = b.request_body(Some(body.build()));
        }
        doc.paths.add_path_operation(o.path.as_ref(), vec![method(o.method)], b.build());
    }
    let components = doc.components.get_or_insert_with(Default::default);
    error_components(components, &mut nested);
    components.add_security_scheme(
        TOKEN,
        SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
            "Authorization",
            "`Token <key>`, the key from /rest-auth/login/ or /rest-auth/registration/",
        ))),
    );
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
