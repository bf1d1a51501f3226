//! The operation catalogue: every operation of the API declared once, with its method, path
//! template, documentation, request and response types, and the engine call that performs
//! it. The HTTP face routes from it, the OpenAPI document is derived from it, and the CLI's
//! local and remote modes run the same entry (locally through `run`, remotely by filling the
//! path), so the three cannot disagree. Paths are relative to the API root (`/api/v1`).
pub mod accounts;
pub mod clustering;
pub mod collection;
pub mod crud;
pub mod embeddings;
pub mod feedback;
pub mod models;
pub mod regex;
pub mod search;
pub mod tagger_groups;
pub mod taggers;
pub mod torchtaggers;

use super::error::{Error, Result};
use super::kinds::ResourceKind;
use super::{Ctx, Engine};
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use utoipa::openapi::{RefOr, Schema};

/// HTTP methods the API uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    /// `GET`, `POST`, … (any case).
    pub fn parse(s: &str) -> Option<Method> {
        [Method::Get, Method::Post, Method::Put, Method::Patch, Method::Delete]
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(s))
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// Who may call an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// An authenticated user (`403 Authentication credentials were not provided.` otherwise).
    User,
    /// Anyone; the caller is passed when known.
    Open,
    /// An authenticated user, or anyone presenting the key the URL carries (`?key=`; plot
    /// links, `plot_links.rs`): the operation checks it.
    Key,
}

/// Which era's answer forms the caller reads where they differ (`texta-client.md` §5 #9–11):
/// the reference (2.10.3) of `api.md`, or TEXTA's web client 1.4, which reads 2.10.15's. The
/// HTTP face tells them apart by the client's `Accept` (`application/json, text/plain, */*`
/// from the web client; API clients ask for JSON alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Dialect {
    #[default]
    Reference,
    WebClient,
}

/// One request as an operation receives it, whichever face it came from.
pub struct Call<'a> {
    /// The caller; `None` only for open operations called anonymously.
    pub ctx: Option<&'a Ctx>,
    /// Path parameters by name, as the path gave them.
    pub params: &'a BTreeMap<String, String>,
    pub query: &'a BTreeMap<String, String>,
    pub body: &'a Value,
    pub method: Method,
    /// The browser session key the request carried (HTTP only).
    pub session: Option<&'a str>,
}

impl Call<'_> {
    /// The authenticated caller (the faces resolve it before calling a `User` operation).
    pub fn ctx(&self) -> Result<&Ctx> {
        self.ctx
            .ok_or_else(|| Error::Forbidden("Authentication credentials were not provided.".into()))
    }

    /// An integer path parameter; anything else is the reference's 404.
    pub fn id(&self, name: &str) -> Result<i64> {
        self.params.get(name).and_then(|v| v.parse().ok()).ok_or_else(Error::not_found)
    }

    /// A string path parameter.
    pub fn param(&self, name: &str) -> Result<&str> {
        self.params.get(name).map(String::as_str).ok_or_else(Error::not_found)
    }

    /// The project id of a project-scoped path.
    pub fn pk(&self) -> Result<i64> {
        self.id("project_pk")
    }

    /// PUT replaces, PATCH changes only what is sent.
    pub fn mode(&self) -> super::validate::Mode {
        if self.method == Method::Patch {
            super::validate::Mode::Partial
        } else {
            super::validate::Mode::Full
        }
    }
}

/// What an operation answers.
pub enum Reply {
    /// A JSON body with the operation's success status.
    Json(Value),
    /// No body (204).
    Empty,
    /// A JSON body, and a browser session started for the user (login, registration).
    StartSession(Value, String),
    /// A JSON body, and the browser session ended (logout).
    EndSession(Value),
    /// A file: its media type, name and bytes (plots, exported models).
    File {
        content_type: &'static str,
        name: String,
        bytes: Vec<u8>,
    },
}

/// Builds a schema for the OpenAPI document, adding the named schemas it refers to.
pub type SchemaFn = fn(&mut Vec<(String, RefOr<Schema>)>) -> RefOr<Schema>;

/// The schema of `T`, inline, with the schemas it refers to collected.
pub fn schema_of<T: utoipa::ToSchema>(nested: &mut Vec<(String, RefOr<Schema>)>) -> RefOr<Schema> {
    T::schemas(nested);
    T::schema()
}

/// The schema of one page of `T`s (`{"count", "results"}`), with `T` itself among the named
/// schemas, since the page refers to it.
pub fn page_schema_of<T: utoipa::ToSchema>(nested: &mut Vec<(String, RefOr<Schema>)>) -> RefOr<Schema> {
    nested.push((T::name().into_owned(), T::schema()));
    schema_of::<super::resources::Page<T>>(nested)
}

/// The schema of a plain list of `T`s, with `T` among the named schemas.
pub fn list_schema_of<T: utoipa::ToSchema>(nested: &mut Vec<(String, RefOr<Schema>)>) -> RefOr<Schema> {
    T::schemas(nested);
    nested.push((T::name().into_owned(), T::schema()));
    let item = utoipa::openapi::Ref::from_schema_name(T::name());
    utoipa::openapi::schema::ArrayBuilder::new().items(item).build().into()
}

/// A result as a reply.
pub fn reply<T: Serialize>(out: T) -> Result<Reply> {
    Ok(Reply::Json(serde_json::to_value(out).map_err(Error::internal)?))
}

/// A GET operation that answers a file (`Reply::File`): no JSON schema to document.
pub fn file_operation(
    path: &'static str,
    tag: &'static str,
    summary: &'static str,
    run: fn(&Arc<Engine>, &Call) -> Result<Reply>,
) -> Operation {
    Operation {
        method: Method::Get,
        path: Cow::Borrowed(path),
        tag,
        summary: Cow::Borrowed(summary),
        access: Access::User,
        request: None,
        status: 200,
        response: None,
        upload: false,
        query: &[],
        language_data: false,
        may_not_apply: false,
        run,
    }
}

/// GET `<kind>/{id}/plot/`: the model's training plot (PNG), for members of the project or
/// anyone with the key of the `plot` link (`plot_links.rs`).
pub fn plot_operation<K: ResourceKind>(summary: &'static str) -> Operation {
    fn plot<K: ResourceKind>(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
        let (pk, id) = (c.pk()?, c.id("id")?);
        Ok(Reply::File {
            content_type: "image/png",
            name: format!("{}-{id}.png", K::KIND.tag()),
            bytes: e.model_plot(c.ctx, c.query.get("key").map(String::as_str), (K::KIND, pk, id))?,
        })
    }
    Operation {
        path: Cow::Owned(format!("/projects/{{project_pk}}/{}/{{id}}/plot/", K::KIND.route())),
        access: Access::Key,
        query: &[QueryParam {
            name: "key",
            description: "The key of the plot link (not needed by members of the project)",
        }],
        ..file_operation("", K::KIND.route(), summary, plot::<K>)
    }
}

/// `op`, declared to run language processing (documented with its 503).
pub fn analyses_text(op: Operation) -> Operation {
    Operation { language_data: true, ..op }
}

/// `op`, declared to apply to some resources of its kind only (documented with its 405).
pub fn applies_to_some(op: Operation) -> Operation {
    Operation { may_not_apply: true, ..op }
}

/// The multipart body of import_model.
#[derive(serde::Deserialize, utoipa::ToSchema)]
pub struct ImportIn {
    /// A file from export_model.
    #[schema(value_type = String, format = Binary)]
    pub file: String,
}

/// A query parameter an operation reads. The engine parses every one leniently (an
/// unusable value falls back to the default, or for `page` answers 404 "Invalid page."),
/// so all are documented as optional strings.
pub struct QueryParam {
    pub name: &'static str,
    pub description: &'static str,
}

/// The query parameters of a project resource list (pagination, ordering, filters).
pub const LIST_QUERY: &[QueryParam] = &[
    QueryParam {
        name: "page",
        description: "1-based page number, or `last`; past the last page: 404 \"Invalid page.\"",
    },
    QueryParam {
        name: "page_size",
        description: "Items per page (default 30, at most 1000)",
    },
    QueryParam {
        name: "ordering",
        description: "Comma-separated fields, `-` for descending; unknown fields are ignored",
    },
    QueryParam {
        name: "description",
        description: "Case-insensitive substring of the description",
    },
    QueryParam {
        name: "task_status",
        description: "Only resources whose task has this status",
    },
];

/// One declared operation.
pub struct Operation {
    pub method: Method,
    /// Path template, e.g. `/projects/{project_pk}/regex_taggers/{id}/tag_text/`.
    pub path: Cow<'static, str>,
    /// The OpenAPI tag (the resource group).
    pub tag: &'static str,
    pub summary: Cow<'static, str>,
    pub access: Access,
    pub request: Option<SchemaFn>,
    /// Success status and body schema.
    pub status: u16,
    pub response: Option<SchemaFn>,
    /// The body is a multipart form with a file.
    pub upload: bool,
    /// The query parameters it reads.
    pub query: &'static [QueryParam],
    /// It may run language processing, and so answer 503 when the language data is missing.
    pub language_data: bool,
    /// It applies to some resources of its kind only, and answers 405 for the others.
    pub may_not_apply: bool,
    /// Performs the operation.
    pub run: fn(&Arc<Engine>, &Call) -> Result<Reply>,
}

impl Operation {
    /// The path with its parameters filled in order (remote CLI mode).
    pub fn fill(&self, values: &[&dyn std::fmt::Display]) -> String {
        let mut out = String::new();
        let mut rest: &str = &self.path;
        let mut values = values.iter();
        while let Some(start) = rest.find('{') {
            out.push_str(&rest[..start]);
            let end = rest[start..].find('}').map_or(rest.len(), |e| start + e + 1);
            if let Some(v) = values.next() {
                out.push_str(&v.to_string());
            }
            rest = &rest[end..];
        }
        out.push_str(rest);
        out
    }

    /// The parameter names of the path template, in order.
    pub fn param_names(&self) -> Vec<&str> {
        let mut names = Vec::new();
        let mut rest: &str = &self.path;
        while let Some(start) = rest.find('{') {
            let Some(len) = rest[start..].find('}') else { break };
            names.push(&rest[start + 1..start + len]);
            rest = &rest[start + len + 1..];
        }
        names
    }

    /// Whether `path` (relative to the API root, trailing slash optional) is this operation's
    /// path; returns its parameters by name.
    pub fn matches(&self, path: &str) -> Option<BTreeMap<String, String>> {
        let want: Vec<&str> = self.path.trim_matches('/').split('/').collect();
        let got: Vec<&str> = path.trim_matches('/').split('/').collect();
        if want.len() != got.len() {
            return None;
        }
        let mut params = BTreeMap::new();
        for (w, g) in want.iter().zip(&got) {
            match w.strip_prefix('{').and_then(|n| n.strip_suffix('}')) {
                Some(name) => {
                    params.insert(name.to_string(), g.to_string());
                }
                None if w == g => {}
                None => return None,
            }
        }
        Some(params)
    }
}

/// `op!(Method "path", "tag", "summary", [Request] => [Response], |engine, call| expression)`
/// declares an operation whose engine call returns `Result<Response>`. `[]` stands for no
/// request body, `=> []` for a 204 reply with no body; a status after the response type
/// (`=> [Out] 201`) replaces 200; `open` after the path makes it callable without
/// credentials: `op!(Get "/health/" open, ...)`.
macro_rules! op {
    (@access open) => { $crate::engine::operations::Access::Open };
    (@access) => { $crate::engine::operations::Access::User };
    (@schema []) => { None };
    (@schema [$t:ty]) => { Some($crate::engine::operations::schema_of::<$t> as $crate::engine::operations::SchemaFn) };
    (@status [] $($status:literal)?) => { 204 };
    (@status [$t:ty] $status:literal) => { $status };
    (@status [$t:ty]) => { 200 };
    (@reply [], $out:expr) => {{ $out; Ok($crate::engine::operations::Reply::Empty) }};
    (@reply [$t:ty], $out:expr) => {{ let out: $t = $out; $crate::engine::operations::reply(out) }};
    ($method:ident $path:literal $($open:ident)?, $tag:literal, $summary:literal, [$($req:ty)?] => [$($resp:ty)?] $($status:literal)?, |$e:ident, $c:ident| $body:expr) => {
        $crate::engine::operations::Operation {
            method: $crate::engine::operations::Method::$method,
            path: std::borrow::Cow::Borrowed($path),
            tag: $tag,
            summary: std::borrow::Cow::Borrowed($summary),
            access: op!(@access $($open)?),
            request: op!(@schema [$($req)?]),
            status: op!(@status [$($resp)?] $($status)?),
            response: op!(@schema [$($resp)?]),
            upload: false,
            query: &[],
            language_data: false,
            may_not_apply: false,
            run: {
                #[allow(unused_variables)]
                fn run($e: &std::sync::Arc<$crate::engine::Engine>, $c: &$crate::engine::operations::Call) -> $crate::engine::error::Result<$crate::engine::operations::Reply> {
                    op!(@reply [$($resp)?], $body)
                }
                run
            },
        }
    };
}
pub(crate) use op;

/// Whether some operation is declared at `path` (a template, e.g.
/// `/projects/{project_pk}/taggers/`): the links the API hands out name only such paths.
pub fn declared(path: &str) -> bool {
    all().iter().any(|op| op.path == path)
}

/// Every operation of the API, in documentation order.
pub fn all() -> &'static [Operation] {
    static ALL: OnceLock<Vec<Operation>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut ops = Vec::new();
        ops.extend(accounts::operations());
        ops.extend(search::project_operations());
        ops.extend(regex::operations());
        ops.extend(models::operations());
        ops.extend(embeddings::operations());
        ops.extend(taggers::operations());
        ops.extend(tagger_groups::operations());
        ops.extend(torchtaggers::operations());
        ops.extend(feedback::operations());
        ops.extend(collection::operations());
        ops.extend(clustering::operations());
        ops.extend(search::operations());
        ops
    })
}

/// The operation for `method` and `path` (relative to the API root), with its parameters;
/// literal segments win over parameters, as in the router.
pub fn find(method: Method, path: &str) -> Option<(&'static Operation, BTreeMap<String, String>)> {
    all()
        .iter()
        .filter(|o| o.method == method)
        .filter_map(|o| o.matches(path).map(|p| (o, p)))
        .min_by_key(|(_, p)| p.len())
}

/// Runs an operation in this process: the local CLI's way of calling what a server would.
pub fn run_local(
    engine: &Arc<Engine>,
    ctx: Option<&Ctx>,
    op: &Operation,
    path: &str,
    query: &BTreeMap<String, String>,
    body: &Value,
) -> Result<Reply> {
    let params = op.matches(path).ok_or_else(Error::not_found)?;
    let call = Call {
        ctx,
        params: &params,
        query,
        body,
        method: op.method,
        session: None,
    };
    (op.run)(engine, &call)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn operations_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for o in all() {
            assert!(
                seen.insert((o.method, o.path.clone())),
                "declared twice: {} {}",
                o.method.as_str(),
                o.path
            );
            assert!(o.path.starts_with('/') && o.path.ends_with('/'), "{}", o.path);
            assert!(!o.summary.is_empty(), "{} {} has no summary", o.method.as_str(), o.path);
            let filled = o.fill(&o.param_names().iter().map(|_| &7 as &dyn std::fmt::Display).collect::<Vec<_>>());
            let (found, params) = find(o.method, &filled).expect("a filled path finds its operation");
            assert_eq!(found.path, o.path, "{filled}");
            assert!(params.values().all(|v| v == "7"));
        }
    }

    #[test]
    fn paths_fill_and_match() {
        let (op, params) = find(Method::Post, "/projects/3/regex_taggers/9/tag_text").expect("declared");
        assert_eq!(op.path, "/projects/{project_pk}/regex_taggers/{id}/tag_text/");
        assert_eq!(params.get("project_pk").map(String::as_str), Some("3"));
        assert_eq!(op.fill(&[&3, &9]), "/projects/3/regex_taggers/9/tag_text/");
        assert!(find(Method::Delete, "/projects/3/regex_taggers/9/tag_text/").is_none());
    }
}
