//! Operations of the service itself and its accounts: the API root, health, `/rest-auth/...`,
//! `/users/...` and the task reads.
use super::{op, reply, schema_of, Access, Call, Method, Operation, Reply, SchemaFn};
use crate::engine::accounts::{Detail, LoginIn, RegisterIn, TokenOut, UserOut};
use crate::engine::core_variables::{CoreVariableIn, CoreVariableOut};
use crate::engine::error::Result;
use crate::engine::tasks::TaskInfo;
use crate::engine::Engine;
use serde::Deserialize;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::sync::Arc;

/// `{"email"}` of the caller's own user (optional even for PUT: nothing else is writable).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct EmailIn {
    pub email: Option<String>,
}

/// `{"old_password", "new_password1", "new_password2"}`.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct PasswordChangeIn {
    pub old_password: String,
    pub new_password1: String,
    pub new_password2: String,
}

/// `{"email"}` to send a reset link to.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct PasswordResetIn {
    pub email: String,
}

/// `{"uid", "token", "new_password1", "new_password2"}`.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct PasswordResetConfirmIn {
    pub uid: String,
    pub token: String,
    pub new_password1: String,
    pub new_password2: String,
}

/// `{"is_superuser"}`.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct UserIn {
    pub is_superuser: bool,
}

/// Logging in or registering answers the token and starts a browser session.
fn session_op(
    path: &'static str,
    summary: &'static str,
    request: SchemaFn,
    status: u16,
    run: fn(&Arc<Engine>, &Call) -> Result<Reply>,
) -> Operation {
    Operation {
        method: Method::Post,
        path: Cow::Borrowed(path),
        tag: "auth",
        summary: Cow::Borrowed(summary),
        access: Access::Open,
        request: Some(request),
        status,
        response: Some(schema_of::<TokenOut>),
        upload: false,
        query: &[],
        language_data: false,
        may_not_apply: false,
        run,
    }
}

fn register(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    let (id, token) = e.register(c.body)?;
    Ok(Reply::StartSession(
        serde_json::to_value(token).map_err(crate::engine::error::Error::internal)?,
        e.start_session(id)?,
    ))
}

fn login(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    let (id, token) = e.login(c.body)?;
    Ok(Reply::StartSession(
        serde_json::to_value(token).map_err(crate::engine::error::Error::internal)?,
        e.start_session(id)?,
    ))
}

fn logout(e: &Arc<Engine>, c: &Call) -> Result<Reply> {
    let detail = e.logout(c.ctx.map(|ctx| &ctx.user), c.session)?;
    match reply(detail)? {
        Reply::Json(v) => Ok(Reply::EndSession(v)),
        other => Ok(other),
    }
}

pub fn operations() -> Vec<Operation> {
    vec![
        op!(Get "/", "root", "Links to the main collections", [] => [Value], |e, c| {
            let b = &c.ctx()?.base_url;
            let links = ["projects", "users", "core_variables"]
                .into_iter()
                .filter(|name| super::declared(&format!("/{name}/")))
                .map(|name| (name.to_string(), json!(format!("{b}/{name}/"))));
            Value::Object(links.collect())
        }),
        op!(Get "/health/" open, "health", "Service health (host, search store, language processing, tasks)", [] => [Value], |e, c| e.health()?),
        session_op(
            "/rest-auth/registration/",
            "Register; returns the token",
            schema_of::<RegisterIn>,
            201,
            register,
        ),
        op!(Post "/rest-auth/registration/verify-email/" open, "auth", "Verify an e-mail address (always accepted)", [] => [Detail], |e, c| Detail::new("ok")),
        session_op(
            "/rest-auth/login/",
            "Log in; returns the (existing) token",
            schema_of::<LoginIn>,
            200,
            login,
        ),
        Operation {
            summary: Cow::Borrowed("Delete the caller's token and session"),
            response: Some(schema_of::<Detail>),
            ..session_op("/rest-auth/logout/", "", schema_of::<Value>, 200, logout)
        },
        op!(Get "/rest-auth/user/", "auth", "The calling user", [] => [UserOut], |e, c| e.me(c.ctx()?)?),
        op!(Put "/rest-auth/user/", "auth", "Change the caller's e-mail", [EmailIn] => [UserOut], |e, c| e.update_me(c.ctx()?, c.body)?),
        op!(Patch "/rest-auth/user/", "auth", "Change the caller's e-mail", [EmailIn] => [UserOut], |e, c| e.update_me(c.ctx()?, c.body)?),
        op!(Post "/rest-auth/password/change/", "auth", "Change the caller's password", [PasswordChangeIn] => [Detail], |e, c| e.change_password(c.ctx()?, c.body)?),
        op!(Post "/rest-auth/password/reset/" open, "auth", "Request a password reset mail (logged)", [PasswordResetIn] => [Detail], |e, c| e.request_password_reset(c.body)?),
        op!(Post "/rest-auth/password/reset/confirm/" open, "auth", "Set a new password with a reset token", [PasswordResetConfirmIn] => [Detail], |e, c| e.confirm_password_reset(c.body)?),
        op!(Get "/users/", "users", "Users (superusers see all, others themselves)", [] => [Vec<UserOut>], |e, c| e.list_users(c.ctx()?)?),
        op!(Get "/users/{id}/", "users", "One user", [] => [UserOut], |e, c| e.get_user(c.ctx()?, c.id("id")?)?),
        op!(Put "/users/{id}/", "users", "Grant or revoke superuser status", [UserIn] => [UserOut], |e, c| e.update_user(c.ctx()?, c.id("id")?, c.body)?),
        op!(Patch "/users/{id}/", "users", "Grant or revoke superuser status", [UserIn] => [UserOut], |e, c| e.update_user(c.ctx()?, c.id("id")?, c.body)?),
        op!(Delete "/users/{id}/", "users", "Delete a user", [] => [], |e, c| e.delete_user(c.ctx()?, c.id("id")?)?),
        op!(Get "/core_variables/", "core_variables", "Settings kept in the database: the search store's URL and credentials (superusers)", [] => [Vec<CoreVariableOut>],
            |e, c| e.list_core_variables(c.ctx()?)?),
        op!(Get "/core_variables/{id}/", "core_variables", "One core variable (superusers)", [] => [CoreVariableOut],
            |e, c| e.get_core_variable(c.ctx()?, c.id("id")?)?),
        op!(Put "/core_variables/{id}/", "core_variables", "Set or unset a core variable; in effect when ta next opens its data directory", [CoreVariableIn] => [CoreVariableOut],
            |e, c| e.update_core_variable(c.ctx()?, c.id("id")?, c.body, c.mode())?),
        op!(Patch "/core_variables/{id}/", "core_variables", "Set or unset a core variable; in effect when ta next opens its data directory", [CoreVariableIn] => [CoreVariableOut],
            |e, c| e.update_core_variable(c.ctx()?, c.id("id")?, c.body, c.mode())?),
        op!(Get "/tasks/", "tasks", "Background tasks visible to the caller (ta extension)", [] => [Vec<TaskInfo>], |e, c| e.list_tasks(c.ctx()?)?),
        op!(Get "/tasks/{id}/", "tasks", "One background task (ta extension)", [] => [TaskInfo], |e, c| e.get_task(c.ctx()?, c.id("id")?)?),
        op!(Post "/tasks/{id}/retry/", "tasks", "Run a failed task again from its stored parameters; answers the new task (ta extension)", [] => [TaskInfo],
            |e, c| e.retry_task(c.ctx()?, c.id("id")?)?),
    ]
}
