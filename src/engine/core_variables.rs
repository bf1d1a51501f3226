//! Core variables (`/core_variables/`, TEXTA's Management page): settings a superuser keeps in
//! the state database instead of the environment. ta has those of the search store: the
//! Elasticsearch/OpenSearch URL and its credentials. They take effect when ta next opens its
//! data directory (`ta serve` started again, or the next CLI command); `--search-url` /
//! `TA_SEARCH_URL` wins over them, and each row shows what that setting holds (`env_value`).
//! Passwords are never shown, only whether one is set.
use super::db::Db;
use super::error::{Error, Result};
use super::validate::{Form, Mode, Str};
use super::{Ctx, Engine};
use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a password shows as when set.
const HIDDEN: &str = "********";

/// The variables, as the database names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub enum Variable {
    /// The cluster's URL, e.g. `http://127.0.0.1:9200`.
    #[serde(rename = "TEXTA_ES_URL")]
    Url,
    #[serde(rename = "TEXTA_ES_USERNAME")]
    Username,
    #[serde(rename = "TEXTA_ES_PASSWORD")]
    Password,
}

/// A core variable on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct CoreVariableOut {
    pub url: String,
    pub name: Variable,
    /// The stored value (null: unset).
    pub value: Option<String>,
    /// What the search-store setting of the environment (`TA_SEARCH_URL`) gives it.
    pub env_value: Option<String>,
}

/// `{"name", "value"}` of a change (TEXTA's client sends a multipart form).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct CoreVariableIn {
    pub name: Option<Variable>,
    /// An empty or null value unsets the variable.
    pub value: Option<String>,
}

/// The stored rows: (id, variable, value).
fn rows(db: &Db) -> Result<Vec<(i64, Variable, Option<String>)>> {
    db.with(|c| {
        let mut st = c.prepare_cached("SELECT id, name, value FROM core_variables ORDER BY id")?;
        let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get(2)?)))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, name, value) = row?;
            let variable = ta_text::choice::parse(&name).ok_or_else(|| Error::Internal(format!("unknown core variable {name}")))?;
            out.push((id, variable, value));
        }
        Ok(out)
    })
}

/// The search store's URL from the stored variables: the URL with the credentials set, or
/// `None` when no URL is stored.
pub fn search_url(db: &Db) -> Result<Option<String>> {
    compose(&rows(db)?).map_err(Error::BadRequest)
}

/// The URL the rows give (see [`search_url`]); an error says which variable is unusable.
fn compose(rows: &[(i64, Variable, Option<String>)]) -> std::result::Result<Option<String>, String> {
    let get = |v: Variable| rows.iter().find(|r| r.1 == v).and_then(|r| r.2.clone());
    let Some(base) = get(Variable::Url) else { return Ok(None) };
    let mut url = url::Url::parse(&base).map_err(|err| format!("core variable TEXTA_ES_URL {base:?} is not a URL: {err}"))?;
    if !matches!(url.scheme(), "http" | "https") || !url.has_host() {
        return Err(format!("core variable TEXTA_ES_URL {base:?}: expected http(s)://host:port"));
    }
    let unusable = |what: &str| format!("core variable {what} cannot be set on {base:?}");
    if let Some(user) = get(Variable::Username) {
        url.set_username(&user).map_err(|_| unusable("TEXTA_ES_USERNAME"))?;
    }
    if let Some(password) = get(Variable::Password) {
        url.set_password(Some(&password)).map_err(|_| unusable("TEXTA_ES_PASSWORD"))?;
    }
    Ok(Some(url.to_string()))
}

impl Engine {
    fn core_variable_out(&self, ctx: &Ctx, id: i64, name: Variable, value: Option<String>) -> CoreVariableOut {
        let env = self.config.search_url.as_deref().and_then(|u| url::Url::parse(u).ok());
        let env_value = env.and_then(|u| match name {
            Variable::Url => {
                let mut bare = u.clone();
                let _ = bare.set_username("");
                let _ = bare.set_password(None);
                Some(bare.to_string())
            }
            Variable::Username => Some(u.username().to_string()).filter(|n| !n.is_empty()),
            Variable::Password => u.password().map(|_| HIDDEN.to_string()),
        });
        let value = match name {
            Variable::Password => value.map(|_| HIDDEN.to_string()),
            _ => value,
        };
        CoreVariableOut {
            url: format!("{}/core_variables/{id}/", ctx.base_url),
            name,
            value,
            env_value,
        }
    }

    /// GET /core_variables/ (superusers).
    pub fn list_core_variables(&self, ctx: &Ctx) -> Result<Vec<CoreVariableOut>> {
        if !ctx.user.is_superuser {
            return Err(Error::no_permission());
        }
        Ok(rows(&self.db)?
            .into_iter()
            .map(|(id, name, value)| self.core_variable_out(ctx, id, name, value))
            .collect())
    }

    /// GET /core_variables/{id}/ (superusers).
    pub fn get_core_variable(&self, ctx: &Ctx, id: i64) -> Result<CoreVariableOut> {
        if !ctx.user.is_superuser {
            return Err(Error::no_permission());
        }
        let (id, name, value) = rows(&self.db)?.into_iter().find(|r| r.0 == id).ok_or_else(Error::not_found)?;
        Ok(self.core_variable_out(ctx, id, name, value))
    }

    /// PUT/PATCH /core_variables/{id}/: sets (or, empty, unsets) the value; `name`, when
    /// sent, must be the row's.
    pub fn update_core_variable(&self, ctx: &Ctx, id: i64, body: &Value, mode: Mode) -> Result<CoreVariableOut> {
        let current = self.get_core_variable(ctx, id)?;
        let mut f = Form::new(body, mode)?;
        let name: Option<Variable> = f.choice("name", false);
        let value = f.nullable_string("value", Str::OPTIONAL.max(1000));
        if name.is_some_and(|n| n != current.name) {
            f.fail("name", "A core variable keeps its name.");
        }
        f.finish()?;
        if let Some(value) = value {
            let value = value.filter(|v| !v.is_empty());
            // The variables must still make a usable URL with the new value.
            let mut changed = rows(&self.db)?;
            changed.iter_mut().filter(|r| r.0 == id).for_each(|r| r.2 = value.clone());
            if let Err(e) = compose(&changed) {
                return Err(Error::field("value", e));
            }
            self.db.with(|c| {
                Ok(c.execute("UPDATE core_variables SET value = ?1 WHERE id = ?2", params![value, id])
                    .map(|_| ())?)
            })?;
        }
        self.get_core_variable(ctx, id)
    }
}
