//! The standard operations of a resource kind (list, create, retrieve, replace, change,
//! delete, bulk delete), generated from its `ResourceKind` declaration.
use super::{list_schema_of, page_schema_of, reply, schema_of, Access, Call, Method, Operation, Reply, SchemaFn, LIST_QUERY};
use crate::engine::error::Result;
use crate::engine::kinds::{IdsIn, ResourceKind};
use crate::engine::resources::BulkDeleteOut;
use crate::engine::Engine;
use std::borrow::Cow;
use std::sync::Arc;

fn list<K: ResourceKind>(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    reply(e.list_of::<K>(c.ctx()?, c.pk()?, c.query)?)
}

fn list_all<K: ResourceKind>(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    reply(e.list_all_of::<K>(c.ctx()?, c.pk()?, c.query)?)
}

fn create<K: ResourceKind>(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    reply(e.create_of::<K>(c.ctx()?, c.pk()?, c.body)?)
}

fn retrieve<K: ResourceKind>(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    reply(e.get_of::<K>(c.ctx()?, c.pk()?, c.id("id")?)?)
}

fn update<K: ResourceKind>(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    reply(e.update_of::<K>(c.ctx()?, c.pk()?, c.id("id")?, c.body, c.mode())?)
}

fn destroy<K: ResourceKind>(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    e.delete_of::<K>(c.ctx()?, c.pk()?, c.id("id")?)?;
    Ok(Reply::Empty)
}

fn bulk_delete<K: ResourceKind>(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    reply(e.bulk_delete_of::<K>(c.ctx()?, c.pk()?, c.body)?)
}

/// The seven standard operations of kind `K` under `/projects/{project_pk}/<route>/`.
pub fn operations<K: ResourceKind>() -> Vec<Operation> {
    let route = K::KIND.route();
    let tag = route;
    let noun = K::NOUN;
    let collection = format!("/projects/{{project_pk}}/{route}/");
    let item = format!("/projects/{{project_pk}}/{route}/{{id}}/");
    let out = schema_of::<K::Out> as SchemaFn;
    let input = schema_of::<K::In> as SchemaFn;
    let make = |method, path: &String, summary: String, request, status, response, run| Operation {
        method,
        path: Cow::Owned(path.clone()),
        tag,
        summary: Cow::Owned(summary),
        access: Access::User,
        request,
        status,
        response,
        upload: K::UPLOAD && method == Method::Post && request.is_some() && status == 201,
        query: if path == &collection && method == Method::Get {
            // A plain list has no pages.
            &LIST_QUERY[if K::PAGINATED { 0 } else { 2 }..]
        } else {
            &[]
        },
        language_data: false,
        may_not_apply: false,
        run,
    };
    let listing = if K::PAGINATED {
        make(
            Method::Get,
            &collection,
            format!("List the project's {noun}s (paginated; ordering, description filter)"),
            None,
            200,
            Some(page_schema_of::<K::Out> as SchemaFn),
            list::<K> as _,
        )
    } else {
        make(
            Method::Get,
            &collection,
            format!("List all the project's {noun}s (ordering, description filter)"),
            None,
            200,
            Some(list_schema_of::<K::Out> as SchemaFn),
            list_all::<K> as _,
        )
    };
    vec![
        listing,
        make(
            Method::Post,
            &collection,
            format!("Create a {noun}"),
            Some(input),
            201,
            Some(out),
            create::<K>,
        ),
        make(Method::Get, &item, format!("One {noun}"), None, 200, Some(out), retrieve::<K>),
        make(
            Method::Put,
            &item,
            format!("Replace a {noun}"),
            Some(input),
            200,
            Some(out),
            update::<K>,
        ),
        make(
            Method::Patch,
            &item,
            format!("Change a {noun} (only the fields sent)"),
            Some(input),
            200,
            Some(out),
            update::<K>,
        ),
        make(Method::Delete, &item, format!("Delete a {noun}"), None, 204, None, destroy::<K>),
        make(
            Method::Post,
            &format!("/projects/{{project_pk}}/{route}/bulk_delete/"),
            format!("Delete several {noun}s"),
            Some(schema_of::<IdsIn> as SchemaFn),
            200,
            Some(schema_of::<BulkDeleteOut> as SchemaFn),
            bulk_delete::<K>,
        ),
    ]
}
