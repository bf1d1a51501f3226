//! Operations of feedback on predictions (`engine/feedback.rs`): a tagger's and a torch
//! tagger's `feedback/` (list, give the correct result, remove), and the project's.
use super::{list_schema_of, op, reply, schema_of, Access, Call, Method, Operation, Reply, SchemaFn};
use crate::engine::error::Result;
use crate::engine::feedback::{FeedbackDeleted, FeedbackIn, FeedbackOut};
use crate::engine::kinds::ResourceKind;
use crate::engine::taggers::Taggers;
use crate::engine::torchtaggers::TorchTaggers;
use crate::engine::Engine;
use std::borrow::Cow;
use std::sync::Arc;

fn list<K: ResourceKind>(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    reply(e.model_feedback(c.ctx()?, K::KIND, c.pk()?, c.id("id")?)?)
}

fn give<K: ResourceKind>(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    reply(e.give_feedback(c.ctx()?, K::KIND, c.pk()?, c.id("id")?, c.body)?)
}

fn remove<K: ResourceKind>(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    reply(e.delete_model_feedback(c.ctx()?, K::KIND, c.pk()?, c.id("id")?)?)
}

/// `feedback/` of one model kind.
fn of_model<K: ResourceKind>() -> [Operation; 3] {
    let route = K::KIND.route();
    let path = format!("/projects/{{project_pk}}/{route}/{{id}}/feedback/");
    let make = |method, summary: &str, request, response, run| Operation {
        method,
        path: Cow::Owned(path.clone()),
        tag: route,
        summary: Cow::Owned(summary.to_string()),
        access: Access::User,
        request,
        status: 200,
        response: Some(response),
        upload: false,
        query: &[],
        language_data: false,
        may_not_apply: false,
        run,
    };
    [
        make(
            Method::Get,
            "The predictions kept with feedback_enabled, oldest first",
            None,
            list_schema_of::<FeedbackOut> as SchemaFn,
            list::<K>,
        ),
        make(
            Method::Post,
            "Give the correct result of a kept prediction",
            Some(schema_of::<FeedbackIn> as SchemaFn),
            schema_of::<FeedbackOut> as SchemaFn,
            give::<K>,
        ),
        make(
            Method::Delete,
            "Remove the model's kept predictions",
            None,
            schema_of::<FeedbackDeleted> as SchemaFn,
            remove::<K>,
        ),
    ]
}

pub fn operations() -> Vec<Operation> {
    let mut ops = Vec::from(of_model::<Taggers>());
    ops.extend(of_model::<TorchTaggers>());
    ops.extend([
        op!(Get "/projects/{project_pk}/feedback/", "projects", "The predictions kept by the project's models, oldest first", [] => [Vec<FeedbackOut>],
            |e, c| e.project_feedback(c.ctx()?, c.pk()?)?),
        op!(Delete "/projects/{project_pk}/feedback/", "projects", "Remove the predictions kept by the project's models", [] => [FeedbackDeleted],
            |e, c| e.delete_project_feedback(c.ctx()?, c.pk()?)?),
    ]);
    ops
}
