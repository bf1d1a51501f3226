//! Plot links (`texta-client.md` §2, §5 #16): a model's `plot` URL carries a key
//! (`?key=…`, an HMAC of the plot's path under a secret the data directory keeps), so an
//! `<img>` of TEXTA's web client on another site, which sends neither the Authorization
//! header nor the session cookie, loads it, while a plot cannot be fetched by guessing ids.
//! Signed-in members of the project need no key.
use super::error::{Error, Result};
use super::resources::Kind;
use super::{Ctx, Engine};
use hmac::{Hmac, KeyInit, Mac};
use rusqlite::params;
use sha2::Sha256;

/// The stored secret's name.
const SECRET: &str = "plot_links";

/// Bytes of the MAC a key keeps (128 bits).
const KEY_BYTES: usize = 16;

/// Reads the data directory's link secret, making it on first use.
pub(super) fn link_secret(db: &super::db::Db) -> Result<String> {
    db.with(|c| {
        c.execute(
            "INSERT OR IGNORE INTO secrets (name, value) VALUES (?1, ?2)",
            params![SECRET, super::passwords::random_string(64)],
        )?;
        Ok(c.query_row("SELECT value FROM secrets WHERE name = ?1", [SECRET], |r| r.get(0))?)
    })
}

/// The API path of a model's plot (relative to the API root).
fn plot_path(kind: Kind, pk: i64, id: i64) -> String {
    format!("/projects/{pk}/{}/{id}/plot/", kind.route())
}

impl Engine {
    /// The HMAC-SHA256 of the plot at `path`; its first [`KEY_BYTES`] are the key.
    fn plot_mac(&self, path: &str) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(self.link_secret.as_bytes()).expect("HMAC takes any key length");
        mac.update(path.as_bytes());
        mac
    }

    /// The `plot` URL of a model, with its key.
    pub fn plot_url(&self, ctx: &Ctx, kind: Kind, pk: i64, id: i64) -> String {
        let path = plot_path(kind, pk, id);
        let key: String = self.plot_mac(&path).finalize().into_bytes()[..KEY_BYTES]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("{}{path}?key={key}", ctx.base_url)
    }

    /// Whether `key` (hex) is the key of the plot at `path`, compared in constant time.
    fn plot_key_fits(&self, path: &str, key: &str) -> bool {
        let bytes: Option<Vec<u8>> = (key.len() == KEY_BYTES * 2)
            .then(|| {
                (0..key.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(key.get(i..i + 2)?, 16).ok())
                    .collect()
            })
            .flatten();
        bytes.is_some_and(|b| self.plot_mac(path).verify_truncated_left(&b).is_ok())
    }

    /// Whether the caller may read the plot: a member of the project, or anyone with the
    /// plot's key; others get the reference's 403 for missing credentials.
    fn check_plot_access(&self, caller: Option<&Ctx>, key: Option<&str>, (kind, pk, id): (Kind, i64, i64)) -> Result<()> {
        match caller {
            Some(ctx) => self.check_project_access(ctx, pk),
            None if key.is_some_and(|k| self.plot_key_fits(&plot_path(kind, pk, id), k)) => Ok(()),
            None => Err(Error::Forbidden("Authentication credentials were not provided.".into())),
        }
    }

    /// GET {taggers|torchtaggers|evaluators}/{id}/plot/: the PNG of a model's last training
    /// (an evaluator's confusion matrix, drawn on request), for a member of the project or
    /// with the link's key.
    pub fn model_plot(&self, caller: Option<&Ctx>, key: Option<&str>, (kind, pk, id): (Kind, i64, i64)) -> Result<Vec<u8>> {
        self.check_plot_access(caller, key, (kind, pk, id))?;
        self.resource(kind, pk, id)?;
        match kind {
            Kind::Evaluator => self.evaluator_png(pk, id),
            _ => std::fs::read(self.model_file(kind, id, "png")).map_err(|_| Error::not_found()),
        }
    }
}
