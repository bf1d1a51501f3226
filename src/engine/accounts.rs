//! Accounts: registration, login and logout (tokens and sessions), the user resource,
//! password change and reset, and the built-in `admin` superuser.
use super::db::Cached;
use super::error::{Error, Result, NO_PERMISSION};
use super::validate::{Form, Mode, Str};
use super::{clock, passwords, Ctx, Engine};
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A user as the engine sees it (authentication result).
#[derive(Clone, Debug)]
pub struct User {
    pub id: i64,
    pub username: String,
    pub email: String,
    pub is_superuser: bool,
    pub is_active: bool,
    pub date_joined: String,
    pub last_login: Option<String>,
}

/// Users of the tokens accepted in the last [`TOKEN_TTL`], each with the accounts version it
/// was read at. An entry counts only while no row of the accounts tables changed through this
/// process since (a logout, a deactivation, a new password: `Db::accounts_version`); the
/// time limit bounds how long a change made by another process on the same data directory
/// (the local CLI beside `ta serve`) can go unseen.
#[derive(Default)]
pub struct TokenCache(std::sync::Mutex<rustc_hash::FxHashMap<String, (User, u64, std::time::Instant)>>);

/// How long an accepted token is taken on trust.
const TOKEN_TTL: std::time::Duration = std::time::Duration::from_secs(1);
/// Tokens remembered at most; past this the cache starts afresh.
const TOKEN_CACHE_SIZE: usize = 10_000;

impl TokenCache {
    fn get(&self, key: &str, version: u64) -> Option<User> {
        let entries = self.0.lock().unwrap_or_else(|p| p.into_inner());
        entries
            .get(key)
            .filter(|(_, v, at)| *v == version && at.elapsed() < TOKEN_TTL)
            .map(|(user, _, _)| user.clone())
    }

    fn remember(&self, key: &str, user: &User, version: u64) {
        let mut entries = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() >= TOKEN_CACHE_SIZE {
            entries.clear();
        }
        entries.insert(key.to_owned(), (user.clone(), version, std::time::Instant::now()));
    }
}

/// The user resource on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct UserOut {
    pub url: String,
    pub id: i64,
    pub username: String,
    pub email: String,
    pub date_joined: String,
    pub is_superuser: bool,
    pub last_login: Option<String>,
}

/// `{"key": "<token>"}` from registration and login.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TokenOut {
    pub key: String,
}

/// `{"detail": "..."}` acknowledgements.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Detail {
    pub detail: String,
}

impl Detail {
    pub fn new(s: &str) -> Detail {
        Detail { detail: s.to_string() }
    }
}

/// Registration body.
#[derive(Clone, Debug, Default, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RegisterIn {
    pub username: String,
    #[serde(default)]
    pub email: String,
    pub password1: String,
    pub password2: String,
}

/// Login body.
#[derive(Clone, Debug, Default, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LoginIn {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    pub password: String,
}

const USER_COLS: &str = "id, username, email, is_superuser, is_active, date_joined, last_login";

fn user_row(r: &Row) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get(0)?,
        username: r.get(1)?,
        email: r.get(2)?,
        is_superuser: r.get(3)?,
        is_active: r.get(4)?,
        date_joined: r.get(5)?,
        last_login: r.get(6)?,
    })
}

pub(super) fn user_by_id(c: &Connection, id: i64) -> Result<Option<User>> {
    Ok(
        c.cached_row(&format!("SELECT {USER_COLS} FROM users WHERE id = ?1"), [id], user_row)
            .optional()?,
    )
}

fn user_by_name(c: &Connection, name: &str) -> Result<Option<(User, String)>> {
    Ok(c.cached_row(
        &format!("SELECT {USER_COLS}, password FROM users WHERE username = ?1"),
        [name],
        |r| Ok((user_row(r)?, r.get::<_, String>(7)?)),
    )
    .optional()?)
}

fn valid_username(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_' || "@.+-".contains(c))
}

fn valid_email(s: &str) -> bool {
    let Some((user, domain)) = s.rsplit_once('@') else {
        return false;
    };
    let user_ok = !user.is_empty()
        && !user.starts_with('.')
        && !user.ends_with('.')
        && !user.contains("..")
        && user.chars().all(|c| c.is_alphanumeric() || "!#$%&'*+/=?^_`{|}~.-".contains(c));
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && !l.starts_with('-') && !l.ends_with('-') && l.chars().all(|c| c.is_alphanumeric() || c == '-'))
        && labels
            .last()
            .is_some_and(|t| t.chars().count() >= 2 && t.chars().all(|c| c.is_alphabetic()));
    user_ok && domain_ok
}

impl User {
    pub fn to_out(&self, ctx_base: &str) -> UserOut {
        UserOut {
            url: format!("{ctx_base}/users/{}/", self.id),
            id: self.id,
            username: self.username.clone(),
            email: self.email.clone(),
            date_joined: self.date_joined.clone(),
            is_superuser: self.is_superuser,
            last_login: self.last_login.clone(),
        }
    }
}

impl Engine {
    /// Create the built-in superuser `admin` (id 1) when the store has no users.
    /// Returns the password when it was taken from the default (caller warns).
    pub fn ensure_admin(&self, password: &str) -> Result<bool> {
        self.db.tx(|tx| {
            let exists: bool = tx.cached_row("SELECT EXISTS(SELECT 1 FROM users WHERE username = 'admin')", [], |r| r.get(0))?;
            if !exists {
                tx.execute(
                    "INSERT INTO users (username, email, password, is_superuser, is_staff, date_joined) VALUES ('admin', '', ?1, 1, 1, ?2)",
                    params![passwords::hash(password, self.config.password_iterations), clock::now()],
                )?;
            }
            Ok(!exists)
        })
    }

    /// Resolve a token key to its (active) user. `Err` carries the exact DRF message.
    pub fn authenticate_token(&self, key: &str) -> Result<User> {
        if let Some(user) = self.known_token(key) {
            return Ok(user);
        }
        let (user, version) = self.db.with(|c| {
            let user = c
                .cached_row(
                    &format!(
                        "SELECT {} FROM users u JOIN tokens t ON t.user_id = u.id WHERE t.key = ?1",
                        USER_COLS.replace("id,", "u.id,")
                    ),
                    [key],
                    user_row,
                )
                .optional()?;
            Ok((user, self.db.accounts_version()))
        })?;
        match user {
            None => Err(Error::Forbidden("Invalid token.".into())),
            Some(u) if !u.is_active => Err(Error::Forbidden("User inactive or deleted.".into())),
            Some(u) => {
                self.tokens.remember(key, &u, version);
                Ok(u)
            }
        }
    }

    /// The user of a token that [`authenticate_token`](Self::authenticate_token) accepted
    /// moments ago, with no change to the accounts since; `None` asks the database. Memory
    /// only: the server resolves most requests' tokens with it, without a database hop.
    pub fn known_token(&self, key: &str) -> Option<User> {
        self.tokens.get(key, self.db.accounts_version())
    }

    /// Resolve a session cookie to its user, if still valid.
    pub fn authenticate_session(&self, key: &str) -> Result<Option<User>> {
        let uid: Option<i64> = self.db.with(|c| {
            Ok(c.cached_row("SELECT user_id FROM sessions WHERE key = ?1", [key], |r| r.get(0))
                .optional()?)
        })?;
        Ok(match uid {
            Some(id) => self.db.with(|c| user_by_id(c, id))?.filter(|u| u.is_active),
            None => None,
        })
    }

    /// Look a user up by name (local CLI mode acts as a named account).
    pub fn user_named(&self, name: &str) -> Result<User> {
        self.db
            .with(|c| user_by_name(c, name))?
            .map(|(u, _)| u)
            .ok_or_else(|| Error::NotFound(format!("No user named {name:?}.")))
    }

    fn token_for(&self, user_id: i64) -> Result<String> {
        self.db.tx(|tx| {
            let now = clock::now();
            tx.execute("UPDATE users SET last_login = ?1 WHERE id = ?2", params![now, user_id])?;
            if let Some(k) = tx
                .cached_row("SELECT key FROM tokens WHERE user_id = ?1", [user_id], |r| r.get(0))
                .optional()?
            {
                return Ok(k);
            }
            let key = passwords::token_key();
            tx.execute(
                "INSERT INTO tokens (key, user_id, created) VALUES (?1, ?2, ?3)",
                params![key, user_id, now],
            )?;
            Ok(key)
        })
    }

    /// Start a browser session for `user_id`; returns the session key.
    pub fn start_session(&self, user_id: i64) -> Result<String> {
        let key = passwords::random_string(32);
        self.db.with(|c| {
            c.execute(
                "INSERT INTO sessions (key, user_id, created) VALUES (?1, ?2, ?3)",
                params![key, user_id, clock::now()],
            )?;
            Ok(key)
        })
    }

    /// POST /rest-auth/registration/ — returns the new user's id and token.
    pub fn register(&self, body: &Value) -> Result<(i64, TokenOut)> {
        let mut f = Form::new(body, Mode::Full)?;
        let username = f.string("username", Str::REQUIRED.max(150));
        if let Some(u) = &username {
            if !valid_username(u) {
                f.fail(
                    "username",
                    "Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.",
                );
            } else if self.db.with(|c| user_by_name(c, u))?.is_some() {
                f.fail("username", "A user with that username already exists.");
            }
        }
        let email = f.string("email", Str::OPTIONAL).unwrap_or_default();
        if !email.is_empty() {
            if !valid_email(&email) {
                f.fail("email", "Enter a valid email address.");
            } else if self.db.with(|c| {
                Ok(c.cached_row(
                    "SELECT EXISTS(SELECT 1 FROM users WHERE email = ?1 COLLATE NOCASE)",
                    [&email],
                    |r| r.get::<_, bool>(0),
                )?)
            })? {
                f.fail("email", "A user is already registered with this e-mail address.");
            }
        }
        let p1 = f.string("password1", Str::REQUIRED.untrimmed());
        if let Some(p) = &p1 {
            let problems = passwords::problems(p);
            if !problems.is_empty() {
                f.error("password1", json!(problems));
            }
        }
        let p2 = f.string("password2", Str::REQUIRED.untrimmed());
        if !f.has_errors() && p1 != p2 {
            f.fail("non_field_errors", "The two password fields didn't match.");
        }
        f.finish()?;
        let (username, password) = (username.unwrap_or_default(), p1.unwrap_or_default());
        let id = self.db.tx(|tx| {
            tx.execute(
                "INSERT INTO users (username, email, password, date_joined) VALUES (?1, ?2, ?3, ?4)",
                params![
                    username,
                    email,
                    passwords::hash(&password, self.config.password_iterations),
                    clock::now()
                ],
            )?;
            Ok(tx.last_insert_rowid())
        })?;
        Ok((id, TokenOut { key: self.token_for(id)? }))
    }

    /// POST /rest-auth/login/ — returns the user's id and (existing or new) token.
    pub fn login(&self, body: &Value) -> Result<(i64, TokenOut)> {
        let mut f = Form::new(body, Mode::Full)?;
        let username = f.string("username", Str::OPTIONAL);
        let email = f.string("email", Str::OPTIONAL);
        let password = f.string("password", Str::REQUIRED.untrimmed());
        f.finish()?;
        let password = password.unwrap_or_default();
        let found = match (username.filter(|s| !s.is_empty()), email.filter(|s| !s.is_empty())) {
            (Some(u), _) => self.db.with(|c| user_by_name(c, &u))?,
            (None, Some(e)) => self.db.with(|c| {
                let name: Option<String> = c
                    .cached_row("SELECT username FROM users WHERE email = ?1 COLLATE NOCASE", [&e], |r| r.get(0))
                    .optional()?;
                match name {
                    Some(n) => user_by_name(c, &n),
                    None => Ok(None),
                }
            })?,
            (None, None) => return Err(Error::field("non_field_errors", "Must include \"username\" and \"password\".")),
        };
        match found {
            Some((u, hash)) if u.is_active && passwords::verify(&password, &hash) => Ok((
                u.id,
                TokenOut {
                    key: self.token_for(u.id)?,
                },
            )),
            _ => Err(Error::field("non_field_errors", "Unable to log in with provided credentials.")),
        }
    }

    /// POST /rest-auth/logout/ — deletes the token and the session, if any.
    pub fn logout(&self, user: Option<&User>, session: Option<&str>) -> Result<Detail> {
        self.db.with(|c| {
            if let Some(u) = user {
                c.execute("DELETE FROM tokens WHERE user_id = ?1", [u.id])?;
            }
            if let Some(s) = session {
                c.execute("DELETE FROM sessions WHERE key = ?1", [s])?;
            }
            Ok(())
        })?;
        Ok(Detail::new("Successfully logged out."))
    }

    /// GET /rest-auth/user/.
    pub fn me(&self, ctx: &Ctx) -> Result<UserOut> {
        let u = self.db.with(|c| user_by_id(c, ctx.user.id))?.ok_or_else(Error::not_found)?;
        Ok(u.to_out(&ctx.base_url))
    }

    /// PUT/PATCH /rest-auth/user/ — only `email` may change.
    pub fn update_me(&self, ctx: &Ctx, body: &Value) -> Result<UserOut> {
        let mut f = Form::new(body, Mode::Partial)?;
        let email = f.string("email", Str::OPTIONAL);
        if email.as_deref().is_some_and(|e| !e.is_empty() && !valid_email(e)) {
            f.fail("email", "Enter a valid email address.");
        }
        f.finish()?;
        if let Some(e) = email {
            self.db
                .with(|c| Ok(c.execute("UPDATE users SET email = ?1 WHERE id = ?2", params![e, ctx.user.id])?))?;
        }
        self.me(ctx)
    }

    /// POST /rest-auth/password/change/.
    pub fn change_password(&self, ctx: &Ctx, body: &Value) -> Result<Detail> {
        let mut f = Form::new(body, Mode::Full)?;
        let p1 = f.string("new_password1", Str::REQUIRED.untrimmed());
        if let Some(p) = &p1 {
            let problems = passwords::problems(p);
            if !problems.is_empty() {
                f.error("new_password1", json!(problems));
            }
        }
        let p2 = f.string("new_password2", Str::REQUIRED.untrimmed());
        if !f.has_errors() && p1 != p2 {
            f.fail("new_password2", "The two password fields didn't match.");
        }
        f.finish()?;
        self.set_password(ctx.user.id, &p1.unwrap_or_default())?;
        Ok(Detail::new("New password has been saved."))
    }

    fn set_password(&self, user_id: i64, password: &str) -> Result<()> {
        self.db.with(|c| {
            Ok(c.execute(
                "UPDATE users SET password = ?1 WHERE id = ?2",
                params![passwords::hash(password, self.config.password_iterations), user_id],
            )
            .map(|_| ())?)
        })
    }

    /// The reset token of a user: a digest of the user's current password hash, so it
    /// stops working once the password changes.
    fn reset_token(&self, user_id: i64) -> Result<Option<String>> {
        use sha2::Digest;
        let hash: Option<String> = self.db.with(|c| {
            Ok(c.cached_row("SELECT password FROM users WHERE id = ?1", [user_id], |r| r.get(0))
                .optional()?)
        })?;
        Ok(hash.map(|h| {
            let d = sha2::Sha256::digest(format!("ta-password-reset:{user_id}:{h}").as_bytes());
            d.iter().take(16).map(|b| format!("{b:02x}")).collect()
        }))
    }

    /// POST /rest-auth/password/reset/ — the mail is written to the log, not sent.
    pub fn request_password_reset(&self, body: &Value) -> Result<Detail> {
        let mut f = Form::new(body, Mode::Full)?;
        let email = f.string("email", Str::REQUIRED);
        if email.as_deref().is_some_and(|e| !valid_email(e)) {
            f.fail("email", "Enter a valid email address.");
        }
        f.finish()?;
        let email = email.unwrap_or_default();
        let ids: Vec<i64> = self.db.with(|c| {
            let mut st = c.prepare_cached("SELECT id FROM users WHERE email = ?1 COLLATE NOCASE AND is_active = 1")?;
            let rows = st.query_map([&email], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
            Ok(rows)
        })?;
        for id in ids {
            if let Some(t) = self.reset_token(id)? {
                eprintln!("password reset for {email}: uid={} token={t}", base64_uid(id));
            }
        }
        Ok(Detail::new("Password reset e-mail has been sent."))
    }

    /// POST /rest-auth/password/reset/confirm/.
    pub fn confirm_password_reset(&self, body: &Value) -> Result<Detail> {
        let mut f = Form::new(body, Mode::Full)?;
        let p1 = f.string("new_password1", Str::REQUIRED.untrimmed());
        let p2 = f.string("new_password2", Str::REQUIRED.untrimmed());
        let uid = f.string("uid", Str::REQUIRED);
        let token = f.string("token", Str::REQUIRED);
        f.finish()?;
        let Some(id) = uid.as_deref().and_then(decode_uid) else {
            return Err(Error::field("uid", "Invalid value"));
        };
        if self.reset_token(id)?.as_deref() != token.as_deref() {
            return Err(Error::field("token", "Invalid value"));
        }
        if p1 != p2 {
            return Err(Error::field("new_password2", "The two password fields didn't match."));
        }
        let p1 = p1.unwrap_or_default();
        let problems = passwords::problems(&p1);
        if !problems.is_empty() {
            return Err(Error::Invalid(json!({ "new_password2": problems })));
        }
        self.set_password(id, &p1)?;
        Ok(Detail::new("Password has been reset with the new password."))
    }

    /// GET /users/ — all users for a superuser, else only the caller; newest first.
    pub fn list_users(&self, ctx: &Ctx) -> Result<Vec<UserOut>> {
        let users = self.db.with(|c| {
            let mut st = c.prepare_cached(&format!("SELECT {USER_COLS} FROM users ORDER BY date_joined DESC, id DESC"))?;
            let rows = st.query_map([], user_row)?.collect::<rusqlite::Result<Vec<User>>>()?;
            Ok(rows)
        })?;
        Ok(users
            .into_iter()
            .filter(|u| ctx.user.is_superuser || u.id == ctx.user.id)
            .map(|u| u.to_out(&ctx.base_url))
            .collect())
    }

    /// GET /users/{id}/.
    /// The user with this id, or 404.
    pub fn user_by_id(&self, id: i64) -> Result<User> {
        self.db.with(|c| user_by_id(c, id))?.ok_or_else(Error::not_found)
    }

    pub fn get_user(&self, ctx: &Ctx, id: i64) -> Result<UserOut> {
        if !ctx.user.is_superuser && id != ctx.user.id {
            return Err(Error::not_found());
        }
        let u = self.db.with(|c| user_by_id(c, id))?.ok_or_else(Error::not_found)?;
        Ok(u.to_out(&ctx.base_url))
    }

    fn check_user_write(&self, ctx: &Ctx, id: i64) -> Result<()> {
        if !ctx.user.is_superuser || id == 1 {
            return Err(Error::Forbidden(NO_PERMISSION.into()));
        }
        Ok(())
    }

    /// PUT/PATCH /users/{id}/ — superusers change `is_superuser`.
    pub fn update_user(&self, ctx: &Ctx, id: i64, body: &Value) -> Result<UserOut> {
        self.check_user_write(ctx, id)?;
        self.get_user(ctx, id)?;
        let mut f = Form::new(body, Mode::Partial)?;
        let su = f.boolean("is_superuser");
        f.finish()?;
        if let Some(su) = su {
            self.db
                .with(|c| Ok(c.execute("UPDATE users SET is_superuser = ?1, is_staff = ?1 WHERE id = ?2", params![su, id])?))?;
        }
        self.get_user(ctx, id)
    }

    /// DELETE /users/{id}/.
    pub fn delete_user(&self, ctx: &Ctx, id: i64) -> Result<()> {
        self.check_user_write(ctx, id)?;
        self.get_user(ctx, id)?;
        self.db
            .with(|c| Ok(c.execute("DELETE FROM users WHERE id = ?1", [id]).map(|_| ())?))
    }

    /// Parse a user hyperlink (`{base_url}/users/{id}/` or `/api/v1/users/{id}/`) to an
    /// existing user id, with DRF's hyperlink messages.
    pub(super) fn user_from_url(&self, v: &Value) -> std::result::Result<i64, String> {
        let s = match v {
            Value::String(s) => s.as_str(),
            other => {
                return Err(format!(
                    "Incorrect type. Expected URL string, received {}.",
                    super::validate::py_type(other)
                ))
            }
        };
        let path = match s.find("://") {
            Some(i) => s[i + 3..].find('/').map(|j| &s[i + 3 + j..]).unwrap_or(""),
            None => s,
        };
        let id = path
            .strip_prefix("/api/v1/users/")
            .map(|r| r.strip_suffix('/').unwrap_or(r))
            .filter(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit()))
            .and_then(|r| r.parse::<i64>().ok())
            .ok_or_else(|| "Invalid hyperlink - No URL match.".to_string())?;
        match self.db.with(|c| user_by_id(c, id)) {
            Ok(Some(_)) => Ok(id),
            _ => Err("Invalid hyperlink - Object does not exist.".into()),
        }
    }
}

fn base64_uid(id: i64) -> String {
    base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, id.to_string())
}

fn decode_uid(s: &str) -> Option<i64> {
    let bytes = base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, s).ok()?;
    String::from_utf8(bytes).ok()?.parse().ok()
}
