//! The SQLite backend: one file, created and migrated on first open, in WAL mode.
//!
//! Durability: with [`Durability::Full`] (the default) every commit is fsynced before
//! the call returns (`synchronous=FULL`), so an acknowledged match survives a process
//! kill and a power loss. [`Durability::Normal`] (`synchronous=NORMAL`) skips the fsync of
//! each commit: an acknowledged match still survives the process being killed (the WAL is
//! written before the call returns), but the last commits may be lost if the machine
//! loses power.
//!
//! One connection writes (behind a lock; each write is one short transaction, rating is
//! done outside it); readers take connections of their own from a small pool, and in WAL
//! mode they read while the writer writes. One process serves a file: several processes
//! on one ledger need the PostgreSQL backend. So an open store holds an exclusive lock on
//! a file beside the database (`games.db.lock` for `games.db`), and a second open of the
//! same file, by this process or another, is refused ([`StoreError::InUse`]) until the
//! first store is dropped or its process ends (the system lets the lock go with the
//! process, however it ends).

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use podium::Settings;
use rusqlite::{
    params, Connection, DatabaseName, OpenFlags, OptionalExtension, TransactionBehavior,
};

use crate::error::StoreError;
use crate::leagues::name_key;
use crate::rows::{
    body, change_log, config_text, league_text, old_league_text, parse_config, reset_text,
    season_row, season_text, to_entry,
};
use crate::types::{Head, LeagueId, LeagueRow, LedgerEntry, Position, SeasonRow, SnapshotRow};
use crate::{Since, Store, Writer};

/// How hard a commit tries to reach the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// fsync at every commit (`synchronous=FULL`): survives process kill and power loss.
    #[default]
    Full,
    /// No fsync per commit (`synchronous=NORMAL` in WAL mode): survives process kill,
    /// not power loss.
    Normal,
}

/// Schema migrations, applied in order; `PRAGMA user_version` counts those applied.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE leagues (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    system TEXT NOT NULL,
    config TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE matches (
    league INTEGER NOT NULL REFERENCES leagues(id),
    seq INTEGER NOT NULL,
    key TEXT NOT NULL,
    body TEXT NOT NULL,
    hash TEXT NOT NULL,
    time INTEGER,
    voided INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (league, seq),
    UNIQUE (league, key)
);
CREATE TABLE corrections (
    id INTEGER PRIMARY KEY,
    league INTEGER NOT NULL REFERENCES leagues(id),
    key TEXT,
    action TEXT NOT NULL,
    old_body TEXT,
    new_body TEXT,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
",
    // How far each league's ledger goes, kept beside the league (updated in the
    // transaction of every write), and the matches in rating order for reading a ledger
    // from a checkpoint on.
    "
ALTER TABLE leagues ADD COLUMN last_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE leagues ADD COLUMN last_change INTEGER NOT NULL DEFAULT 0;
UPDATE leagues SET
    last_seq = COALESCE((SELECT MAX(seq) FROM matches WHERE league = leagues.id), 0),
    last_change = COALESCE((SELECT MAX(id) FROM corrections WHERE league = leagues.id), 0);
CREATE INDEX matches_in_time_order ON matches (league, time, seq);
",
    // The seasons a league started after its first: where each starts (a ledger position
    // and, in a league of dated matches, a time) and its reset as JSON.
    "
CREATE TABLE seasons (
    league INTEGER NOT NULL REFERENCES leagues(id),
    number INTEGER NOT NULL,
    name TEXT NOT NULL,
    start_seq INTEGER NOT NULL,
    start_time INTEGER,
    reset TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (league, number),
    UNIQUE (league, name)
);
",
    // Each league's ratings after its first `count` rated matches, so that a restart
    // rates only the matches after them: the ledger's head when they were taken, where
    // their last match stands, the season starts crossed, the system and config, and the
    // league as podium's saved-league JSON. A logged change deletes them.
    "
CREATE TABLE snapshots (
    league INTEGER PRIMARY KEY REFERENCES leagues(id),
    last_seq INTEGER NOT NULL,
    last_change INTEGER NOT NULL,
    count INTEGER NOT NULL,
    at_time INTEGER,
    at_seq INTEGER,
    season INTEGER NOT NULL,
    system TEXT NOT NULL,
    config TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
",
    // Saved ratings packed (see `SnapshotRow::packed`); NULL in a row saved as JSON.
    "ALTER TABLE snapshots ADD COLUMN packed BLOB;",
    // Only packed ratings are read: a row without them is dropped (its league is rated
    // whole at the next start, as with none), and the JSON column with it.
    "DELETE FROM snapshots WHERE packed IS NULL;
ALTER TABLE snapshots DROP COLUMN data;",
    // Each league's name as compared with others' (`name_key`), unique, so that two
    // requests at once cannot both take a name. NULL in the rows of an older ledger
    // until `fill_name_keys` sets it: a row whose key another row already holds (two
    // leagues named alike before names were unique) keeps NULL and its name.
    "ALTER TABLE leagues ADD COLUMN name_key TEXT;
CREATE UNIQUE INDEX leagues_by_name_key ON leagues (name_key);",
];

/// A store in one SQLite file.
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
    /// The leagues whose writer is out ([`Store::lock`]).
    locked: Mutex<HashSet<LeagueId>>,
    unlocked: Condvar,
    /// Removed with its directory on drop (a temporary store).
    temporary: bool,
    /// The lock file, locked while the store is open (none for an in-memory database).
    _lock: Option<LockHeld>,
}

impl SqliteStore {
    /// Opens (creating and migrating if needed) the store at `path` with full durability.
    ///
    /// # Errors
    /// [`StoreError::ReadOnly`] when the file or its directory cannot be written,
    /// [`StoreError::Sqlite`] when the file cannot be opened or migrated.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::open_with(path, Durability::Full)
    }

    /// Opens the store at `path` with the given durability.
    ///
    /// # Errors
    /// As [`SqliteStore::open`].
    pub fn open_with(path: impl AsRef<Path>, durability: Durability) -> Result<Self, StoreError> {
        Self::open_locked(path.as_ref(), durability, true)
    }

    /// Opens the store at `path` beside another store open on it, without its lock: for
    /// tests that read a ledger again while the store that wrote it is still open.
    #[cfg(test)]
    pub(crate) fn open_shared(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::open_locked(path.as_ref(), Durability::Full, false)
    }

    fn open_locked(path: &Path, durability: Durability, locked: bool) -> Result<Self, StoreError> {
        let path = path.to_path_buf();
        make_file(&path)?;
        let mut conn = Connection::open(&path)?;
        let what = || path.display().to_string();
        if conn.is_readonly(DatabaseName::Main)? {
            return Err(StoreError::ReadOnly {
                what: what(),
                reason: "SQLite opened it read-only (check the file's permissions)".into(),
            });
        }
        // Before the first write: a second server on the file writes nothing.
        let lock = if locked {
            lock_file(&conn, &what())?
        } else {
            None
        };
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| read_only(e, &what()))?;
        conn.pragma_update(
            None,
            "synchronous",
            match durability {
                Durability::Full => "FULL",
                Durability::Normal => "NORMAL",
            },
        )?;
        configure(&conn)?;
        migrate(&mut conn)
            .and_then(|()| fill_name_keys(&mut conn))
            .map_err(|e| match e {
                StoreError::Sqlite(e) => read_only(e, &what()),
                e => e,
            })?;
        probe_write(&mut conn).map_err(|e| read_only(e, &what()))?;
        Ok(SqliteStore {
            path,
            writer: Mutex::new(conn),
            readers: Mutex::new(Vec::new()),
            locked: Mutex::new(HashSet::new()),
            unlocked: Condvar::new(),
            temporary: false,
            _lock: lock,
        })
    }

    /// A store in a fresh file of the system's temporary directory, removed when the
    /// store is dropped (for tests and examples).
    ///
    /// # Errors
    /// As [`SqliteStore::open`].
    pub fn temporary() -> Result<Self, StoreError> {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "podium-store-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| StoreError::Corrupt {
            message: format!("cannot make {}: {e}", dir.display()),
        })?;
        let mut store = Self::open_with(dir.join("ledger.db"), Durability::Normal)?;
        store.temporary = true;
        Ok(store)
    }

    /// The database file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&self) -> MutexGuard<'_, Connection> {
        self.writer.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on a reader connection.
    fn read<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let pooled = self.readers.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut conn = match pooled {
            Some(c) => c,
            None => {
                let c = Connection::open_with_flags(
                    &self.path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                configure(&c)?;
                c
            }
        };
        let result = f(&mut conn);
        let mut pool = self.readers.lock().unwrap_or_else(|p| p.into_inner());
        if pool.len() < READERS_KEPT {
            pool.push(conn);
        }
        result
    }
}

/// Reader connections kept open between reads.
const READERS_KEPT: usize = 8;

impl Drop for SqliteStore {
    fn drop(&mut self) {
        if self.temporary {
            // The lock goes with the directory.
            self._lock = None;
            if let Some(dir) = self.path.parent() {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
}

/// Makes a new database file's empty file first (SQLite takes an empty file for a new
/// database), so that a directory that is missing or cannot be written to is said so,
/// naming it, rather than as SQLite's "unable to open database file". A URI
/// (`file:…`) or an in-memory database is left to SQLite.
fn make_file(path: &Path) -> Result<(), StoreError> {
    let text = path.to_string_lossy();
    if text.starts_with("file:") || text == ":memory:" || text.is_empty() || path.exists() {
        return Ok(());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let unwritable = |reason: String| StoreError::Unwritable {
        what: path.display().to_string(),
        reason,
    };
    if !dir.exists() {
        return Err(unwritable(format!(
            "its directory {} does not exist (make it first)",
            dir.display()
        )));
    }
    if !dir.is_dir() {
        return Err(unwritable(format!("{} is not a directory", dir.display())));
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(_) => Ok(()),
        // Made meanwhile by another: SQLite opens it.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(unwritable(format!(
            "its directory {} is not writable ({e}; check the directory's permissions)",
            dir.display()
        ))),
        Err(e) => Err(unwritable(format!(
            "it cannot be created in {}: {e}",
            dir.display()
        ))),
    }
}

/// The lock files (by their full path) that stores of this process hold: a second open
/// of a file here is told apart from a file that another process serves.
static HELD_HERE: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// A lock file locked by this process: the lock is let go, and the file's path taken off
/// [`HELD_HERE`], when it is dropped.
#[derive(Debug)]
struct LockHeld {
    _file: std::fs::File,
    key: PathBuf,
}

impl Drop for LockHeld {
    fn drop(&mut self) {
        HELD_HERE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.key);
    }
}

/// Takes the exclusive lock on the file beside the database that `conn` opened
/// (`NAME.lock`), creating it if needed: held while the returned value lives, and let
/// go by the system when the process ends. `None` for a database without a file.
fn lock_file(conn: &Connection, what: &str) -> Result<Option<LockHeld>, StoreError> {
    let Some(db) = conn.path().filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    let lock = PathBuf::from(format!("{db}.lock"));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock)
        .map_err(|e| StoreError::ReadOnly {
            what: what.to_string(),
            reason: format!(
                "its lock file {} cannot be made: {e} (check the permissions of the database's directory)",
                lock.display()
            ),
        })?;
    let key = std::fs::canonicalize(&lock).unwrap_or_else(|_| lock.clone());
    // Looked up and locked under one guard: two stores of this process opening the same
    // file at once are told apart from another process's.
    let mut here = HELD_HERE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if here.contains(&key) {
        return Err(StoreError::OpenHere {
            what: what.to_string(),
            lock: lock.display().to_string(),
        });
    }
    match try_lock(&file) {
        Ok(true) => {
            here.insert(key.clone());
            Ok(Some(LockHeld { _file: file, key }))
        }
        Ok(false) => Err(StoreError::InUse {
            what: what.to_string(),
            lock: lock.display().to_string(),
        }),
        Err(e) => Err(StoreError::ReadOnly {
            what: what.to_string(),
            reason: format!("its lock file {} cannot be locked: {e}", lock.display()),
        }),
    }
}

/// Takes an exclusive `flock` on `file` without waiting: whether it was free.
#[cfg(unix)]
fn try_lock(file: &std::fs::File) -> std::io::Result<bool> {
    use rustix::fs::{flock, FlockOperation};
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Elsewhere than on Unix no lock is taken: one process per file is the operator's care.
#[cfg(not(unix))]
fn try_lock(_: &std::fs::File) -> std::io::Result<bool> {
    Ok(true)
}

fn configure(conn: &Connection) -> Result<(), StoreError> {
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    Ok(())
}

/// A write error that says the file is read-only, said so; others as they are.
fn read_only(e: rusqlite::Error, what: &str) -> StoreError {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::ReadOnly) | Some(rusqlite::ErrorCode::CannotOpen) => {
            StoreError::ReadOnly {
                what: what.to_string(),
                reason: format!("a test write failed: {e} (check the permissions of the file and of its directory)"),
            }
        }
        _ => e.into(),
    }
}

/// Writes and takes back a change, so that a file that cannot be written is found at
/// start rather than at the first write.
fn probe_write(conn: &mut Connection) -> Result<(), rusqlite::Error> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    tx.pragma_update(None, "user_version", version)?;
    tx.execute(
        "UPDATE leagues SET name = name WHERE id = (SELECT MIN(id) FROM leagues)",
        [],
    )?;
    tx.rollback()
}

/// Gives each league without a name key (rows of an older ledger) its key, oldest
/// first, unless another league holds that key already: leagues named alike before
/// names were unique are left as they are, and only new duplicates are refused.
fn fill_name_keys(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let rows: Vec<(i64, String)> = tx
        .prepare("SELECT id, name FROM leagues WHERE name_key IS NULL ORDER BY id")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    if rows.is_empty() {
        return Ok(());
    }
    for (id, name) in rows {
        tx.execute(
            "UPDATE leagues SET name_key = ?2 WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM leagues WHERE name_key = ?2)",
            params![id, name_key(&name)],
        )?;
    }
    tx.commit()?;
    Ok(())
}

/// Whether SQLite refused a write for a league name key that another league holds.
fn name_key_taken(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, Some(message))
        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE && message.contains("name_key"))
}

/// The refusal of `name` because another league holds its key.
fn name_taken(conn: &Connection, name: &str) -> Result<StoreError, StoreError> {
    let holder: Option<(i64, String)> = conn
        .prepare_cached("SELECT id, name FROM leagues WHERE name_key = ?1")?
        .query_row([name_key(name)], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(match holder {
        Some((league, name)) => StoreError::NameTaken {
            name,
            league: Some(league),
        },
        None => StoreError::NameTaken {
            name: name.to_string(),
            league: None,
        },
    })
}

fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let version: usize = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version > MIGRATIONS.len() {
        return Err(StoreError::Corrupt {
            message: format!(
                "the database has schema version {version}, newer than this program's {}",
                MIGRATIONS.len()
            ),
        });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i + 1)?;
        tx.commit()?;
    }
    Ok(())
}

type EntryRow = (i64, String, String, String, Option<i64>, bool);

fn entry_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<EntryRow> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
    ))
}

fn row_entry((seq, key, body, hash, time, voided): EntryRow) -> Result<LedgerEntry, StoreError> {
    to_entry(seq, key, &body, hash, time, voided)
}

const ENTRY_COLUMNS: &str = "seq, key, body, hash, time, voided";

fn to_league_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(LeagueRow, String)> {
    Ok((
        LeagueRow {
            id: r.get(0)?,
            name: r.get(1)?,
            system: r.get(2)?,
            config: Settings::new(),
            token_hash: r.get(4)?,
            head: Head {
                last_seq: r.get(5)?,
                last_change: r.get(6)?,
            },
        },
        r.get(3)?,
    ))
}

const LEAGUE_COLUMNS: &str = "id, name, system, config, token_hash, last_seq, last_change";

fn read_row(conn: &Connection, id: LeagueId) -> Result<Option<LeagueRow>, StoreError> {
    let row = conn
        .prepare_cached(&format!(
            "SELECT {LEAGUE_COLUMNS} FROM leagues WHERE id = ?1"
        ))?
        .query_row([id], to_league_row)
        .optional()?;
    row.map(|(mut row, config)| {
        row.config = parse_config(row.id, &config)?;
        Ok(row)
    })
    .transpose()
}

fn require_row(conn: &Connection, id: LeagueId) -> Result<LeagueRow, StoreError> {
    read_row(conn, id)?.ok_or(StoreError::LeagueNotFound { league: id })
}

fn read_entry(
    conn: &Connection,
    league: LeagueId,
    key: &str,
) -> Result<Option<LedgerEntry>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {ENTRY_COLUMNS} FROM matches WHERE league = ?1 AND key = ?2"
    ))?;
    stmt.query_row(params![league, key], entry_from_row)
        .optional()?
        .map(row_entry)
        .transpose()
}

impl Store for SqliteStore {
    fn describe(&self) -> String {
        format!("SQLite file {}", self.path.display())
    }

    fn ping(&self) -> Result<(), StoreError> {
        self.read(|conn| {
            conn.query_row("SELECT 1", [], |_| Ok(()))?;
            Ok(())
        })
    }

    fn watch(&self) -> Result<Option<Box<dyn crate::Watch>>, StoreError> {
        Ok(None)
    }

    fn league_rows(&self) -> Result<Vec<LeagueRow>, StoreError> {
        self.read(|conn| {
            let rows: Vec<(LeagueRow, String)> = conn
                .prepare_cached(&format!("SELECT {LEAGUE_COLUMNS} FROM leagues ORDER BY id"))?
                .query_map([], to_league_row)?
                .collect::<Result<_, _>>()?;
            rows.into_iter()
                .map(|(mut row, config)| {
                    row.config = parse_config(row.id, &config)?;
                    Ok(row)
                })
                .collect()
        })
    }

    fn league_row(&self, id: LeagueId) -> Result<Option<LeagueRow>, StoreError> {
        self.read(|conn| read_row(conn, id))
    }

    fn league_of_token(&self, token_hash: &str) -> Result<Option<LeagueId>, StoreError> {
        self.read(|conn| {
            Ok(conn
                .prepare_cached("SELECT id FROM leagues WHERE token_hash = ?1")?
                .query_row([token_hash], |r| r.get(0))
                .optional()?)
        })
    }

    fn heads(&self) -> Result<Vec<(LeagueId, Head)>, StoreError> {
        self.read(|conn| {
            let rows = conn
                .prepare_cached("SELECT id, last_seq, last_change FROM leagues")?
                .query_map([], |r| {
                    Ok((
                        r.get(0)?,
                        Head {
                            last_seq: r.get(1)?,
                            last_change: r.get(2)?,
                        },
                    ))
                })?
                .collect::<Result<_, _>>()?;
            Ok(rows)
        })
    }

    fn create_league(
        &self,
        name: &str,
        system: &str,
        config: &Settings,
        token_hash: &str,
    ) -> Result<LeagueRow, StoreError> {
        let config_text = config_text(config);
        let conn = self.write();
        let inserted = conn
            .prepare_cached(
                "INSERT INTO leagues (name, system, config, token_hash, name_key) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![name, system, config_text, token_hash, name_key(name)]);
        match inserted {
            Err(e) if name_key_taken(&e) => return Err(name_taken(&conn, name)?),
            other => other?,
        };
        let id = conn.last_insert_rowid();
        require_row(&conn, id)
    }

    fn scan(
        &self,
        league: LeagueId,
        after: Option<Position>,
        visit: &mut dyn FnMut(LedgerEntry) -> Result<(), StoreError>,
    ) -> Result<LeagueRow, StoreError> {
        self.read(|conn| {
            // One read transaction: the row and the entries are of one moment.
            let tx = conn.transaction()?;
            let row = require_row(&tx, league)?;
            {
                let (sql, args): (String, Vec<rusqlite::types::Value>) = match after {
                    None => (
                        format!("SELECT {ENTRY_COLUMNS} FROM matches WHERE league = ?1 AND voided = 0 ORDER BY time, seq"),
                        vec![league.into()],
                    ),
                    // Each part a range of the index in rating order (league, time, seq).
                    Some(Position { time: None, seq }) => (
                        format!("SELECT * FROM (
                            SELECT {ENTRY_COLUMNS} FROM matches WHERE league = ?1 AND voided = 0 AND time IS NULL AND seq > ?2
                            UNION ALL
                            SELECT {ENTRY_COLUMNS} FROM matches WHERE league = ?1 AND voided = 0 AND time IS NOT NULL)
                         ORDER BY time, seq"),
                        vec![league.into(), seq.into()],
                    ),
                    Some(Position { time: Some(t), seq }) => (
                        format!("SELECT {ENTRY_COLUMNS} FROM matches WHERE league = ?1 AND voided = 0 AND (time, seq) > (?2, ?3) ORDER BY time, seq"),
                        vec![league.into(), t.into(), seq.into()],
                    ),
                };
                let mut stmt = tx.prepare_cached(&sql)?;
                let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
                while let Some(r) = rows.next()? {
                    visit(row_entry(entry_from_row(r)?)?)?;
                }
            }
            tx.commit()?;
            Ok(row)
        })
    }

    fn seasons(&self, league: LeagueId) -> Result<Vec<SeasonRow>, StoreError> {
        self.read(|conn| {
            type Raw = (i64, String, i64, Option<i64>, String, String);
            let raw: Vec<Raw> = conn
                .prepare_cached(
                    "SELECT number, name, start_seq, start_time, reset, created_at FROM seasons WHERE league = ?1 ORDER BY number",
                )?
                .query_map([league], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
                })?
                .collect::<Result<_, _>>()?;
            raw.into_iter()
                .map(|(number, name, seq, time, reset, created_at)| {
                    season_row(league, number, name, Position { time, seq }, &reset, created_at)
                })
                .collect()
        })
    }

    fn since(&self, league: LeagueId, seen: Head) -> Result<Since, StoreError> {
        self.read(|conn| {
            let tx = conn.transaction()?;
            let row = require_row(&tx, league)?;
            let entries = if row.head.last_seq > seen.last_seq {
                let rows: Vec<EntryRow> = tx
                    .prepare_cached(&format!(
                        "SELECT {ENTRY_COLUMNS} FROM matches WHERE league = ?1 AND seq > ?2 ORDER BY seq"
                    ))?
                    .query_map(params![league, seen.last_seq], entry_from_row)?
                    .collect::<Result<_, _>>()?;
                rows.into_iter().map(row_entry).collect::<Result<_, _>>()?
            } else {
                Vec::new()
            };
            let changes = if row.head.last_change > seen.last_change {
                type Raw = (i64, String, Option<String>, Option<i64>, Option<i64>, Option<bool>);
                let raw: Vec<Raw> = tx
                    .prepare_cached(
                        "SELECT c.id, c.action, c.key, m.time, m.seq, m.voided FROM corrections c
                         LEFT JOIN matches m ON m.league = c.league AND m.key = c.key
                         WHERE c.league = ?1 AND c.id > ?2 ORDER BY c.id",
                    )?
                    .query_map(params![league, seen.last_change], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
                    })?
                    .collect::<Result<_, _>>()?;
                raw.into_iter()
                    .map(|(id, act, key, time, seq, voided)| {
                        change_log(id, &act, key, time, seq, voided)
                    })
                    .collect::<Result<_, StoreError>>()?
            } else {
                Vec::new()
            };
            tx.commit()?;
            Ok(Since {
                row,
                entries,
                changes,
            })
        })
    }

    fn find(&self, league: LeagueId, keys: &[&str]) -> Result<Vec<LedgerEntry>, StoreError> {
        self.read(|conn| {
            let mut found = Vec::new();
            for key in keys {
                if let Some(e) = read_entry(conn, league, key)? {
                    found.push(e);
                }
            }
            Ok(found)
        })
    }

    fn snapshot(&self, league: LeagueId) -> Result<Option<SnapshotRow>, StoreError> {
        type Raw = (
            i64,
            i64,
            i64,
            Option<i64>,
            Option<i64>,
            i64,
            String,
            String,
            Option<Vec<u8>>,
        );
        let raw: Option<Raw> = self.read(|conn| {
            Ok(conn
                .prepare_cached(
                    "SELECT last_seq, last_change, count, at_time, at_seq, season, system, config, packed FROM snapshots WHERE league = ?1",
                )?
                .query_row([league], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                        r.get(8)?,
                    ))
                })
                .optional()?)
        })?;
        raw.map(
            |(last_seq, last_change, count, at_time, at_seq, season, system, config, packed)| {
                Ok(SnapshotRow {
                    league,
                    head: Head {
                        last_seq,
                        last_change,
                    },
                    count,
                    last: at_seq.map(|seq| Position { time: at_time, seq }),
                    season,
                    system,
                    config: parse_config(league, &config)?,
                    packed: packed.unwrap_or_default(),
                })
            },
        )
        .transpose()
    }

    fn save_snapshot(&self, s: &SnapshotRow) -> Result<(), StoreError> {
        let conn = self.write();
        conn.prepare_cached(
            "INSERT OR REPLACE INTO snapshots (league, last_seq, last_change, count, at_time, at_seq, season, system, config, packed)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
            s.league,
            s.head.last_seq,
            s.head.last_change,
            s.count,
            s.last.and_then(|p| p.time),
            s.last.map(|p| p.seq),
            s.season,
            s.system,
            config_text(&s.config),
            (!s.packed.is_empty()).then_some(&s.packed)
        ])?;
        Ok(())
    }

    fn entered_before(
        &self,
        league: LeagueId,
        after_seq: i64,
        at: Position,
    ) -> Result<bool, StoreError> {
        // Every match entered after `after_seq` has a greater seq than `at`'s, so it goes
        // before `at` only by an earlier time (or none, which sorts first).
        let Some(time) = at.time else {
            return Ok(false);
        };
        self.read(|conn| {
            Ok(conn
                .prepare_cached(
                    "SELECT EXISTS (SELECT 1 FROM matches WHERE league = ?1 AND seq > ?2 AND voided = 0 AND (time IS NULL OR time < ?3))",
                )?
                .query_row(params![league, after_seq, time], |r| r.get(0))?)
        })
    }

    fn lock(&self, league: LeagueId) -> Result<Box<dyn Writer + '_>, StoreError> {
        // One process writes the file, so a lock in memory is the league's lock.
        let mut locked = self.locked.lock().unwrap_or_else(|p| p.into_inner());
        while locked.contains(&league) {
            locked = self
                .unlocked
                .wait(locked)
                .unwrap_or_else(|p| p.into_inner());
        }
        locked.insert(league);
        Ok(Box::new(SqliteWriter {
            store: self,
            league,
        }))
    }
}

/// Writes of one league.
struct SqliteWriter<'a> {
    store: &'a SqliteStore,
    league: LeagueId,
}

impl Drop for SqliteWriter<'_> {
    fn drop(&mut self) {
        let mut locked = self.store.locked.lock().unwrap_or_else(|p| p.into_inner());
        locked.remove(&self.league);
        self.store.unlocked.notify_all();
    }
}

impl SqliteWriter<'_> {
    /// Runs `f` in a write transaction and moves the league's head: `last_seq` to at
    /// least `seq`, `last_change` to the change `f` logged, if any.
    fn commit(
        &self,
        f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<Option<i64>, StoreError>,
        seq: i64,
    ) -> Result<Head, StoreError> {
        let mut conn = self.store.write();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let change = f(&tx)?;
        if change.is_some() {
            // A logged change may touch what the saved ratings cover.
            tx.prepare_cached("DELETE FROM snapshots WHERE league = ?1")?
                .execute([self.league])?;
        }
        tx.prepare_cached(
            "UPDATE leagues SET last_seq = MAX(last_seq, ?2), last_change = COALESCE(?3, last_change) WHERE id = ?1",
        )?
        .execute(params![self.league, seq, change])?;
        let head = require_row(&tx, self.league)?.head;
        tx.commit()?;
        Ok(head)
    }

    fn log(
        &self,
        tx: &rusqlite::Transaction<'_>,
        key: Option<&str>,
        action: &str,
        old: Option<String>,
        new: Option<String>,
    ) -> Result<Option<i64>, StoreError> {
        tx.prepare_cached(
            "INSERT INTO corrections (league, key, action, old_body, new_body) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![self.league, key, action, old, new])?;
        Ok(Some(tx.last_insert_rowid()))
    }
}

impl Writer for SqliteWriter<'_> {
    fn append(&mut self, entries: &[LedgerEntry]) -> Result<Head, StoreError> {
        let league = self.league;
        let last = entries.iter().map(|e| e.seq).max().unwrap_or(0);
        self.commit(
            |tx| {
                let mut insert = tx.prepare_cached(
                    "INSERT INTO matches (league, seq, key, body, hash, time) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )?;
                for e in entries {
                    insert.execute(params![league, e.seq, e.key, body(&e.json), e.hash, e.time])?;
                }
                Ok(None)
            },
            last,
        )
    }

    fn void(&mut self, entry: &LedgerEntry) -> Result<Head, StoreError> {
        let league = self.league;
        self.commit(
            |tx| {
                tx.prepare_cached("UPDATE matches SET voided = 1 WHERE league = ?1 AND key = ?2")?
                    .execute(params![league, entry.key])?;
                self.log(tx, Some(&entry.key), "void", Some(body(&entry.json)), None)
            },
            0,
        )
    }

    fn correct(&mut self, old: &LedgerEntry, new: &LedgerEntry) -> Result<Head, StoreError> {
        let league = self.league;
        self.commit(
            |tx| {
                let text = body(&new.json);
                tx.prepare_cached(
                    "UPDATE matches SET body = ?3, hash = ?4, time = ?5, voided = 0 WHERE league = ?1 AND key = ?2",
                )?
                .execute(params![league, old.key, text, new.hash, new.time])?;
                self.log(tx, Some(&old.key), "correct", Some(body(&old.json)), Some(text))
            },
            0,
        )
    }

    fn start_season(&mut self, season: &SeasonRow) -> Result<Head, StoreError> {
        let league = self.league;
        let reset = reset_text(&season.reset);
        self.commit(
            |tx| {
                tx.prepare_cached(
                    "INSERT INTO seasons (league, number, name, start_seq, start_time, reset) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )?
                .execute(params![
                    league,
                    season.number,
                    season.name,
                    season.start.seq,
                    season.start.time,
                    reset
                ])?;
                self.log(tx, None, "season", None, Some(season_text(season)))
            },
            0,
        )
    }

    fn configure(
        &mut self,
        old: &LeagueRow,
        name: &str,
        system: &str,
        config: &Settings,
    ) -> Result<Head, StoreError> {
        let league = self.league;
        self.commit(
            |tx| {
                // The key follows a new name only: a league of an older ledger named
                // like another keeps its NULL key while it keeps its name.
                let updated = tx
                    .prepare_cached(
                        "UPDATE leagues SET name = ?2, system = ?3, config = ?4,
                         name_key = CASE WHEN name = ?2 THEN name_key ELSE ?5 END WHERE id = ?1",
                    )?
                    .execute(params![
                        league,
                        name,
                        system,
                        config_text(config),
                        name_key(name)
                    ]);
                match updated {
                    Err(e) if name_key_taken(&e) => return Err(name_taken(tx, name)?),
                    other => other?,
                };
                self.log(
                    tx,
                    None,
                    "configure",
                    Some(old_league_text(old)),
                    Some(league_text(name, system, config)),
                )
            },
            0,
        )
    }
}

#[cfg(test)]
mod tests;
