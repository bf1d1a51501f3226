//! The state database: one SQLite database (WAL mode) under the data directory, with
//! versioned migrations applied at open. All access goes through `Db::with` /
//! `Db::tx`, which serialise use of the single connection. Reads go through the connection's
//! statement cache ([`Cached`]): every API request authenticates, checks a project and loads
//! a resource, and compiling that SQL anew each time cost more than running it.
use super::error::Result;
use rusqlite::{Connection, Params, Row, Transaction};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[&str] = &[
    // 1: accounts, projects, indices, tasks.
    "CREATE TABLE users (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        username TEXT NOT NULL UNIQUE COLLATE NOCASE,
        email TEXT NOT NULL DEFAULT '',
        password TEXT NOT NULL,
        is_superuser INTEGER NOT NULL DEFAULT 0,
        is_staff INTEGER NOT NULL DEFAULT 0,
        is_active INTEGER NOT NULL DEFAULT 1,
        date_joined TEXT NOT NULL,
        last_login TEXT
     );
     CREATE TABLE tokens (
        key TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
        created TEXT NOT NULL
     );
     CREATE TABLE sessions (
        key TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created TEXT NOT NULL
     );
     CREATE TABLE projects (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        title TEXT NOT NULL,
        author_id INTEGER REFERENCES users(id) ON DELETE SET NULL
     );
     CREATE TABLE project_users (
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        PRIMARY KEY (project_id, user_id)
     );
     CREATE TABLE indices (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE,
        is_open INTEGER NOT NULL DEFAULT 1
     );
     CREATE TABLE project_indices (
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        index_id INTEGER NOT NULL REFERENCES indices(id) ON DELETE CASCADE,
        PRIMARY KEY (project_id, index_id)
     );
     CREATE TABLE tasks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
        status TEXT NOT NULL,
        progress REAL NOT NULL DEFAULT 0,
        step TEXT NOT NULL DEFAULT '',
        errors TEXT NOT NULL DEFAULT '[]',
        time_started TEXT NOT NULL,
        last_update TEXT,
        time_completed TEXT,
        total INTEGER NOT NULL DEFAULT 0,
        num_processed INTEGER NOT NULL DEFAULT 0
     );",
    // 2: project resources that are a description plus a JSON configuration
    // (regex taggers, anonymizers, and later model kinds). Ids count per kind.
    "CREATE TABLE resources (
        kind TEXT NOT NULL,
        id INTEGER NOT NULL,
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
        description TEXT NOT NULL,
        config TEXT NOT NULL DEFAULT '{}',
        task_id INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
        PRIMARY KEY (kind, id)
     );
     CREATE INDEX resources_project ON resources(kind, project_id);
     CREATE TABLE sequences (kind TEXT PRIMARY KEY, last INTEGER NOT NULL);
     CREATE TABLE resource_members (
        owner_kind TEXT NOT NULL,
        owner_id INTEGER NOT NULL,
        member_kind TEXT NOT NULL,
        member_id INTEGER NOT NULL,
        PRIMARY KEY (owner_kind, owner_id, member_kind, member_id)
     );
     CREATE TRIGGER resources_unlink AFTER DELETE ON resources BEGIN
        DELETE FROM resource_members
        WHERE (owner_kind = OLD.kind AND owner_id = OLD.id) OR (member_kind = OLD.kind AND member_id = OLD.id);
     END;",
    // 3: a task keeps its kind's parameters (tasks::TaskKind as JSON), so it can be retried.
    "ALTER TABLE tasks ADD COLUMN params TEXT NOT NULL DEFAULT '{}';",
    // 4: core variables (core_variables.rs), one row per name, unset until a superuser sets it.
    "CREATE TABLE core_variables (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        value TEXT
     );
     INSERT INTO core_variables (id, name) VALUES (1, 'TEXTA_ES_URL'), (2, 'TEXTA_ES_USERNAME'), (3, 'TEXTA_ES_PASSWORD');",
    // 5: predictions kept for feedback (feedback.rs); they go with their model and project.
    "CREATE TABLE feedback (
        id TEXT PRIMARY KEY,
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        model_kind TEXT NOT NULL,
        model_id INTEGER NOT NULL,
        input TEXT NOT NULL,
        prediction TEXT NOT NULL,
        correct_result TEXT,
        time_created TEXT NOT NULL,
        time_updated TEXT
     );
     CREATE INDEX feedback_model ON feedback(model_kind, model_id);
     CREATE INDEX feedback_project ON feedback(project_id);
     CREATE TRIGGER feedback_unlink AFTER DELETE ON resources BEGIN
        DELETE FROM feedback WHERE model_kind = OLD.kind AND model_id = OLD.id;
     END;",
    // 6: keys the data directory keeps for itself (plot_links.rs), made when first needed.
    "CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);",
    // 7: the clusters of topic analyses (clustering.rs); ids are global and ascending.
    "CREATE TABLE clusters (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        clustering_id INTEGER NOT NULL,
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        cluster_id INTEGER NOT NULL,
        document_ids TEXT NOT NULL DEFAULT '[]',
        significant_words TEXT NOT NULL DEFAULT '[]',
        intracluster_similarity REAL NOT NULL DEFAULT 0
     );
     CREATE INDEX clusters_clustering ON clusters(clustering_id);",
];

/// Statements prepared once per connection and kept in its cache.
pub trait Cached {
    /// `query_row` through the statement cache.
    fn cached_row<T, P: Params, F: FnOnce(&Row<'_>) -> rusqlite::Result<T>>(&self, sql: &str, params: P, f: F) -> rusqlite::Result<T>;
}

impl Cached for Connection {
    fn cached_row<T, P: Params, F: FnOnce(&Row<'_>) -> rusqlite::Result<T>>(&self, sql: &str, params: P, f: F) -> rusqlite::Result<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }
}

/// Statements the cache keeps: the fixed queries of the engine, with room for list queries
/// whose filters vary.
const STATEMENT_CACHE: usize = 128;

pub struct Db {
    conn: Mutex<Connection>,
    /// Counts the changes of rows of the accounts tables (users, tokens, sessions) made through
    /// this connection, so that what was read from them can be known to be current.
    accounts_version: Arc<AtomicU64>,
}

/// The tables whose changes [`Db::accounts_version`] counts.
const ACCOUNTS_TABLES: [&str; 3] = ["users", "tokens", "sessions"];

impl Db {
    /// Open (creating if needed) the database at `path` and bring its schema up to date.
    pub fn open(path: &Path) -> Result<Db> {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let accounts_version = Arc::new(AtomicU64::new(0));
        let counter = accounts_version.clone();
        conn.update_hook(Some(move |_, _: &str, table: &str, _| {
            if ACCOUNTS_TABLES.contains(&table) {
                counter.fetch_add(1, Ordering::SeqCst);
            }
        }))?;
        let db = Db {
            conn: Mutex::new(conn),
            accounts_version,
        };
        db.migrate()?;
        Ok(db)
    }

    fn migrate(&self) -> Result<()> {
        self.tx(|tx| {
            let done: i64 = tx.cached_row("PRAGMA user_version", [], |r| r.get(0))?;
            for (i, sql) in MIGRATIONS.iter().enumerate().skip(done as usize) {
                tx.execute_batch(sql)?;
                tx.pragma_update(None, "user_version", (i + 1) as i64)?;
            }
            Ok(())
        })
    }

    /// The number of row changes made to the accounts tables so far. Read inside [`Db::with`]
    /// it belongs to what that call reads: a change after it gives a larger number.
    pub fn accounts_version(&self) -> u64 {
        self.accounts_version.load(Ordering::SeqCst)
    }

    /// Run `f` with the connection (no transaction).
    pub fn with<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        f(&conn)
    }

    /// Run `f` inside one transaction; it commits only if `f` succeeds.
    pub fn tx<T>(&self, f: impl FnOnce(&Transaction) -> Result<T>) -> Result<T> {
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let tx = conn.transaction()?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }
}
