//! The PostgreSQL backend, for several servers on one ledger: `podium serve --db
//! postgres://USER@HOST/DB` on as many machines as wanted.
//!
//! - **One order.** A league's writer takes a per-league advisory lock
//!   (`pg_advisory_lock`) for the whole of a write: it catches up with what others
//!   committed, rates, then commits the new matches at the next positions in one
//!   statement that also moves the league's head (`last_seq`, `last_change` in its
//!   row). So positions are committed in order, without gaps, and every reader that sees
//!   a position sees every earlier one: all servers rate the same ledger in the same
//!   order, even when two commit at the same moment.
//! - **One id per match.** Ids are unique per league (a constraint), and the writer looks
//!   them up under the lock: a retry reaching another server at the same moment is a
//!   retry there too.
//! - **Told of the others.** Every write ends in `pg_notify('podium', league)`; each
//!   server listens ([`Store::watch`]) and catches up at once (and checks every league's
//!   head every second besides).
//!
//! The database is migrated on first open (the migrations run under a lock, so servers
//! starting together migrate once); the schema version is kept in `podium_schema`.
//! Connections are plain TCP or Unix sockets, without TLS.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use podium::Settings;
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config, IsolationLevel, NoTls, Row};

use crate::error::StoreError;
use crate::leagues::name_key;
use crate::rows::{
    body, change_log, config_text, league_text, old_league_text, parse_config, reset_text,
    season_row, season_text, to_entry,
};
use crate::types::{Head, LeagueId, LeagueRow, LedgerEntry, Position, SeasonRow, SnapshotRow};
use crate::{Since, Store, Watch, Writer};

/// Schema migrations, applied in order; `podium_schema.version` counts those applied.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE leagues (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    system TEXT NOT NULL,
    config TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    last_seq BIGINT NOT NULL DEFAULT 0,
    last_change BIGINT NOT NULL DEFAULT 0,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE matches (
    league BIGINT NOT NULL REFERENCES leagues(id),
    seq BIGINT NOT NULL,
    key TEXT NOT NULL,
    body TEXT NOT NULL,
    hash TEXT NOT NULL,
    time BIGINT,
    voided BOOLEAN NOT NULL DEFAULT false,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (league, seq),
    UNIQUE (league, key)
);
CREATE INDEX matches_in_time_order ON matches (league, time, seq);
CREATE TABLE corrections (
    id BIGSERIAL PRIMARY KEY,
    league BIGINT NOT NULL REFERENCES leagues(id),
    key TEXT,
    action TEXT NOT NULL,
    old_body TEXT,
    new_body TEXT,
    at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX corrections_by_league ON corrections (league, id);
",
    // The seasons a league started after its first: where each starts (a ledger position
    // and, in a league of dated matches, a time) and its reset as JSON.
    "
CREATE TABLE seasons (
    league BIGINT NOT NULL REFERENCES leagues(id),
    number BIGINT NOT NULL,
    name TEXT NOT NULL,
    start_seq BIGINT NOT NULL,
    start_time BIGINT,
    reset TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
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
    league BIGINT PRIMARY KEY REFERENCES leagues(id),
    last_seq BIGINT NOT NULL,
    last_change BIGINT NOT NULL,
    count BIGINT NOT NULL,
    at_time BIGINT,
    at_seq BIGINT,
    season BIGINT NOT NULL,
    system TEXT NOT NULL,
    config TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
",
    // Saved ratings packed (see `SnapshotRow::packed`); NULL in a row saved as JSON.
    // Already compressed: kept out of line without pglz.
    "ALTER TABLE snapshots ADD COLUMN packed BYTEA;
ALTER TABLE snapshots ALTER COLUMN packed SET STORAGE EXTERNAL;",
    // Only packed ratings are read: a row without them is dropped (its league is rated
    // whole at the next start, as with none), and the JSON column with it.
    "DELETE FROM snapshots WHERE packed IS NULL;
ALTER TABLE snapshots DROP COLUMN data;",
    // Each league's name as compared with others' (`name_key`), unique, so that two
    // requests at once — on this server or two — cannot both take a name. NULL in the
    // rows of an older ledger until `fill_name_keys` sets it: a row whose key another row
    // already holds (two leagues named alike before names were unique) keeps NULL.
    "ALTER TABLE leagues ADD COLUMN name_key TEXT;
CREATE UNIQUE INDEX leagues_by_name_key ON leagues (name_key);",
];

/// The first key of podium's advisory locks (the second is the league, or 0 for the
/// migrations): "podm".
const LOCK_SPACE: i32 = 0x706f_646d;

/// The channel writes are announced on.
const CHANNEL: &str = "podium";

/// Open connections kept and at most open at once.
const POOL_SIZE: usize = 32;

/// A small pool of connections: taken for one call, given back if still open.
struct Pool {
    config: Config,
    state: Mutex<PoolState>,
    freed: Condvar,
}

struct PoolState {
    idle: VecDeque<Client>,
    /// Connections out of the pool or idle in it.
    open: usize,
}

impl Pool {
    fn state(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn take(&self) -> Result<Client, StoreError> {
        let mut state = self.state();
        loop {
            while let Some(c) = state.idle.pop_front() {
                if !c.is_closed() {
                    return Ok(c);
                }
                state.open -= 1;
            }
            if state.open < POOL_SIZE {
                break;
            }
            state = self.freed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
        state.open += 1;
        drop(state);
        self.config.connect(NoTls).map_err(|e| {
            self.forget();
            StoreError::from(e)
        })
    }

    fn give(&self, c: Client) {
        let mut state = self.state();
        if c.is_closed() {
            state.open -= 1;
            // The server restarted or ended its sessions: the idle ones are gone too,
            // and the next call is better served by a new connection.
            let idle = state.idle.len();
            state.idle.clear();
            state.open -= idle;
        } else {
            state.idle.push_back(c);
        }
        self.freed.notify_one();
    }

    /// Closes the idle connections: after one was found lost, they likely are too
    /// (a restart of the server, its sessions ended).
    fn flush(&self) {
        let mut state = self.state();
        let idle = state.idle.len();
        state.idle.clear();
        state.open -= idle;
        self.freed.notify_all();
    }

    /// A connection out of the pool was dropped.
    fn forget(&self) {
        self.state().open -= 1;
        self.freed.notify_one();
    }
}

/// A [`Store`] in a PostgreSQL database.
pub struct PgStore {
    pool: Pool,
    what: String,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore").field("db", &self.what).finish()
    }
}

fn describe(config: &Config) -> String {
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!(
        "PostgreSQL database {} on {host}:{port}",
        config.get_dbname().unwrap_or("(default)")
    )
}

fn parse(url: &str) -> Result<Config, StoreError> {
    url.parse::<Config>().map_err(StoreError::Postgres)
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB`),
    /// migrating it if needed.
    ///
    /// # Errors
    /// The database cannot be reached or migrated, or accepts no writes
    /// ([`StoreError::ReadOnly`]: a standby, a read-only transaction default).
    pub fn open(url: &str) -> Result<Self, StoreError> {
        let mut config = parse(url)?;
        config.application_name("podium");
        config.connect_timeout(Duration::from_secs(10));
        let store = PgStore {
            what: describe(&config),
            pool: Pool {
                config,
                state: Mutex::new(PoolState {
                    idle: VecDeque::new(),
                    open: 0,
                }),
                freed: Condvar::new(),
            },
        };
        store.with(|c| {
            let row = c.query_one(
                "SELECT pg_is_in_recovery(), current_setting('transaction_read_only')",
                &[],
            )?;
            let (standby, read_only): (bool, String) = (row.get(0), row.get(1));
            if standby || read_only == "on" {
                return Err(StoreError::ReadOnly {
                    what: store.what.clone(),
                    reason: if standby {
                        "the server is a standby".into()
                    } else {
                        "transactions are read-only by default for this user".into()
                    },
                });
            }
            migrate(c)
        })?;
        Ok(store)
    }

    /// Creates an empty database `name` on the server of `url` (whose user may create
    /// databases) and returns the URL of the new database: for scratch databases of
    /// tests and benchmarks.
    ///
    /// # Errors
    /// The server cannot be reached, or the database cannot be created.
    pub fn create_database(url: &str, name: &str) -> Result<String, StoreError> {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(StoreError::InvalidLeague {
                message: format!("database name {name:?}: letters, digits and _ only"),
            });
        }
        let mut c = parse(url)?.connect(NoTls)?;
        c.batch_execute(&format!("CREATE DATABASE {name}"))?;
        let base = url.split('?').next().unwrap_or(url);
        let rest = url.strip_prefix(base).unwrap_or("");
        let head = match base.rfind('/') {
            Some(i) if base[..i].contains("://") && i > base.find("://").unwrap_or(0) + 2 => {
                &base[..i]
            }
            _ => base,
        };
        Ok(format!("{head}/{name}{rest}"))
    }

    /// Runs `f` on a connection of the pool.
    fn with<T>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut c = self.pool.take()?;
        let result = f(&mut c);
        if matches!(&result, Err(e) if e.is_transient()) {
            // A connection that failed so may still look open: let it go.
            drop(c);
            self.pool.forget();
            self.pool.flush();
        } else {
            self.pool.give(c);
        }
        result
    }
}

fn migrate(c: &mut Client) -> Result<(), StoreError> {
    let mut tx = c.transaction()?;
    // Servers starting together: one migrates, the others wait and find it done.
    tx.execute("SELECT pg_advisory_xact_lock($1, 0)", &[&LOCK_SPACE])?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS podium_schema (version INTEGER NOT NULL)")?;
    let version: Option<i32> = tx
        .query_opt("SELECT version FROM podium_schema", &[])?
        .map(|r| r.get(0));
    let version = version.unwrap_or(0) as usize;
    if version > MIGRATIONS.len() {
        return Err(StoreError::Corrupt {
            message: format!(
                "the database has schema version {version}, newer than this program's {}",
                MIGRATIONS.len()
            ),
        });
    }
    for sql in &MIGRATIONS[version..] {
        tx.batch_execute(sql)?;
    }
    fill_name_keys(&mut tx)?;
    tx.execute("DELETE FROM podium_schema", &[])?;
    tx.execute(
        "INSERT INTO podium_schema (version) VALUES ($1)",
        &[&(MIGRATIONS.len() as i32)],
    )?;
    tx.commit()?;
    Ok(())
}

/// Gives each league without a name key (rows of an older ledger) its key, oldest
/// first, unless another league holds that key already: leagues named alike before
/// names were unique are left as they are, and only new duplicates are refused.
fn fill_name_keys(tx: &mut postgres::Transaction<'_>) -> Result<(), StoreError> {
    let rows = tx.query(
        "SELECT id, name FROM leagues WHERE name_key IS NULL ORDER BY id",
        &[],
    )?;
    for r in rows {
        let (id, name): (i64, String) = (r.get(0), r.get(1));
        tx.execute(
            "UPDATE leagues SET name_key = $2 WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM leagues WHERE name_key = $2)",
            &[&id, &name_key(&name)],
        )?;
    }
    Ok(())
}

/// The unique index on league name keys.
const NAME_KEY_INDEX: &str = "leagues_by_name_key";

/// Whether PostgreSQL refused a write for a league name key that another league holds.
fn name_key_taken(e: &postgres::Error) -> bool {
    e.as_db_error().is_some_and(|d| {
        *d.code() == postgres::error::SqlState::UNIQUE_VIOLATION
            && d.constraint() == Some(NAME_KEY_INDEX)
    })
}

/// The refusal of `name` because another league holds its key.
fn name_taken(c: &mut Client, name: &str) -> Result<StoreError, StoreError> {
    let holder = c.query_opt(
        "SELECT id, name FROM leagues WHERE name_key = $1",
        &[&name_key(name)],
    )?;
    Ok(match holder {
        Some(r) => StoreError::NameTaken {
            name: r.get(1),
            league: Some(r.get(0)),
        },
        None => StoreError::NameTaken {
            name: name.to_string(),
            league: None,
        },
    })
}

const LEAGUE_COLUMNS: &str = "id, name, system, config, token_hash, last_seq, last_change";
const ENTRY_COLUMNS: &str = "seq, key, body, hash, time, voided";

fn league_row(r: &Row) -> Result<LeagueRow, StoreError> {
    let id: i64 = r.get(0);
    let config: String = r.get(3);
    Ok(LeagueRow {
        id,
        name: r.get(1),
        system: r.get(2),
        config: parse_config(id, &config)?,
        token_hash: r.get(4),
        head: Head {
            last_seq: r.get(5),
            last_change: r.get(6),
        },
    })
}

fn entry(r: &Row) -> Result<LedgerEntry, StoreError> {
    let body: String = r.get(2);
    to_entry(r.get(0), r.get(1), &body, r.get(3), r.get(4), r.get(5))
}

/// A read-only transaction whose reads are all of one moment.
fn snapshot(c: &mut Client) -> Result<postgres::Transaction<'_>, StoreError> {
    Ok(c.build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()?)
}

fn require_row(
    c: &mut impl postgres::GenericClient,
    id: LeagueId,
) -> Result<LeagueRow, StoreError> {
    match c.query_opt(
        &format!("SELECT {LEAGUE_COLUMNS} FROM leagues WHERE id = $1"),
        &[&id],
    )? {
        Some(r) => league_row(&r),
        None => Err(StoreError::LeagueNotFound { league: id }),
    }
}

impl Store for PgStore {
    fn describe(&self) -> String {
        self.what.clone()
    }

    fn ping(&self) -> Result<(), StoreError> {
        self.with(|c| {
            c.simple_query("SELECT 1")?;
            Ok(())
        })
    }

    fn league_rows(&self) -> Result<Vec<LeagueRow>, StoreError> {
        self.with(|c| {
            c.query(
                &format!("SELECT {LEAGUE_COLUMNS} FROM leagues ORDER BY id"),
                &[],
            )?
            .iter()
            .map(league_row)
            .collect()
        })
    }

    fn league_row(&self, id: LeagueId) -> Result<Option<LeagueRow>, StoreError> {
        self.with(|c| match require_row(c, id) {
            Ok(row) => Ok(Some(row)),
            Err(StoreError::LeagueNotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        })
    }

    fn league_of_token(&self, token_hash: &str) -> Result<Option<LeagueId>, StoreError> {
        self.with(|c| {
            Ok(c.query_opt(
                "SELECT id FROM leagues WHERE token_hash = $1",
                &[&token_hash],
            )?
            .map(|r| r.get(0)))
        })
    }

    fn heads(&self) -> Result<Vec<(LeagueId, Head)>, StoreError> {
        self.with(|c| {
            Ok(
                c.query("SELECT id, last_seq, last_change FROM leagues", &[])?
                    .iter()
                    .map(|r| {
                        (
                            r.get(0),
                            Head {
                                last_seq: r.get(1),
                                last_change: r.get(2),
                            },
                        )
                    })
                    .collect(),
            )
        })
    }

    fn create_league(
        &self,
        name: &str,
        system: &str,
        config: &Settings,
        token_hash: &str,
    ) -> Result<LeagueRow, StoreError> {
        let config = config_text(config);
        let key = name_key(name);
        self.with(|c| {
            let inserted = c.query_one(
                &format!(
                    "WITH new AS (INSERT INTO leagues (name, system, config, token_hash, name_key) VALUES ($1, $2, $3, $4, $5) RETURNING {LEAGUE_COLUMNS})
                     SELECT new.*, pg_notify('{CHANNEL}', new.id::text) FROM new"
                ),
                &[&name, &system, &config, &token_hash, &key],
            );
            let r = match inserted {
                Err(e) if name_key_taken(&e) => return Err(name_taken(c, name)?),
                other => other?,
            };
            league_row(&r)
        })
    }

    fn scan(
        &self,
        league: LeagueId,
        after: Option<Position>,
        visit: &mut dyn FnMut(LedgerEntry) -> Result<(), StoreError>,
    ) -> Result<LeagueRow, StoreError> {
        self.with(|c| {
            // One snapshot: the row and the entries are of one moment.
            let mut tx = snapshot(c)?;
            let row = require_row(&mut tx, league)?;
            // Each query a range of the index in rating order (league, time, seq); NULL
            // times first, as in rating order.
            let base = format!("SELECT {ENTRY_COLUMNS} FROM matches WHERE league = $1 AND NOT voided");
            let (sql, time, seq) = match after {
                None => (format!("{base} ORDER BY time NULLS FIRST, seq"), None, None),
                Some(Position { time: None, seq }) => (
                    format!("SELECT * FROM ({base} AND time IS NULL AND seq > $2 UNION ALL {base} AND time IS NOT NULL) AS later ORDER BY time NULLS FIRST, seq"),
                    None,
                    Some(seq),
                ),
                Some(Position { time: Some(t), seq }) => (
                    format!("{base} AND (time, seq) > ($2, $3) ORDER BY time, seq"),
                    Some(t),
                    Some(seq),
                ),
            };
            let mut params: Vec<&(dyn postgres::types::ToSql + Sync)> = vec![&league];
            match (&time, &seq) {
                (Some(t), Some(q)) => params.extend([t as &(dyn postgres::types::ToSql + Sync), q]),
                (None, Some(q)) => params.push(q),
                _ => {}
            }
            {
                let mut rows = tx.query_raw(&sql, params)?;
                while let Some(r) = rows.next()? {
                    visit(entry(&r)?)?;
                }
            }
            tx.commit()?;
            Ok(row)
        })
    }

    fn snapshot(&self, league: LeagueId) -> Result<Option<SnapshotRow>, StoreError> {
        self.with(|c| {
            c.query_opt(
                "SELECT last_seq, last_change, count, at_time, at_seq, season, system, config, packed FROM snapshots WHERE league = $1",
                &[&league],
            )?
            .map(|r| {
                let config: String = r.get(7);
                let at_seq: Option<i64> = r.get(4);
                let packed: Option<Vec<u8>> = r.get(8);
                Ok(SnapshotRow {
                    league,
                    head: Head {
                        last_seq: r.get(0),
                        last_change: r.get(1),
                    },
                    count: r.get(2),
                    last: at_seq.map(|seq| Position {
                        time: r.get(3),
                        seq,
                    }),
                    season: r.get(5),
                    system: r.get(6),
                    config: parse_config(league, &config)?,
                    packed: packed.unwrap_or_default(),
                })
            })
            .transpose()
        })
    }

    fn save_snapshot(&self, s: &SnapshotRow) -> Result<(), StoreError> {
        let (time, seq) = (s.last.and_then(|p| p.time), s.last.map(|p| p.seq));
        let config = config_text(&s.config);
        let packed = (!s.packed.is_empty()).then_some(s.packed.as_slice());
        self.with(|c| {
            c.execute(
                "INSERT INTO snapshots (league, last_seq, last_change, count, at_time, at_seq, season, system, config, packed)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                 ON CONFLICT (league) DO UPDATE SET last_seq = EXCLUDED.last_seq,
                    last_change = EXCLUDED.last_change, count = EXCLUDED.count,
                    at_time = EXCLUDED.at_time, at_seq = EXCLUDED.at_seq, season = EXCLUDED.season,
                    system = EXCLUDED.system, config = EXCLUDED.config,
                    packed = EXCLUDED.packed, created_at = now()",
                &[
                    &s.league,
                    &s.head.last_seq,
                    &s.head.last_change,
                    &s.count,
                    &time,
                    &seq,
                    &s.season,
                    &s.system,
                    &config,
                    &packed,
                ],
            )?;
            Ok(())
        })
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
        self.with(|c| {
            Ok(c.query_one(
                "SELECT EXISTS (SELECT 1 FROM matches WHERE league = $1 AND seq > $2 AND NOT voided AND (time IS NULL OR time < $3))",
                &[&league, &after_seq, &time],
            )?
            .get(0))
        })
    }

    fn seasons(&self, league: LeagueId) -> Result<Vec<SeasonRow>, StoreError> {
        self.with(|c| {
            c.query(
                "SELECT number, name, start_seq, start_time, reset,
                        to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')
                 FROM seasons WHERE league = $1 ORDER BY number",
                &[&league],
            )?
            .iter()
            .map(|r| {
                let reset: String = r.get(4);
                season_row(
                    league,
                    r.get(0),
                    r.get(1),
                    Position {
                        seq: r.get(2),
                        time: r.get(3),
                    },
                    &reset,
                    r.get(5),
                )
            })
            .collect()
        })
    }

    fn since(&self, league: LeagueId, seen: Head) -> Result<Since, StoreError> {
        self.with(|c| {
            let row = require_row(c, league)?;
            if row.head == seen {
                return Ok(Since {
                    row,
                    entries: Vec::new(),
                    changes: Vec::new(),
                });
            }
            if row.head.last_change == seen.last_change {
                // Only new matches: positions commit in order, so every one up to the
                // head just read is there (a change committed since is seen next time).
                let entries = c
                    .query(
                        &format!("SELECT {ENTRY_COLUMNS} FROM matches WHERE league = $1 AND seq > $2 AND seq <= $3 ORDER BY seq"),
                        &[&league, &seen.last_seq, &row.head.last_seq],
                    )?
                    .iter()
                    .map(entry)
                    .collect::<Result<_, _>>()?;
                return Ok(Since {
                    row,
                    entries,
                    changes: Vec::new(),
                });
            }
            let mut tx = snapshot(c)?;
            let row = require_row(&mut tx, league)?;
            let entries = if row.head.last_seq > seen.last_seq {
                tx.query(
                    &format!("SELECT {ENTRY_COLUMNS} FROM matches WHERE league = $1 AND seq > $2 ORDER BY seq"),
                    &[&league, &seen.last_seq],
                )?
                .iter()
                .map(entry)
                .collect::<Result<_, _>>()?
            } else {
                Vec::new()
            };
            let changes = if row.head.last_change > seen.last_change {
                tx.query(
                    "SELECT c.id, c.action, c.key, m.time, m.seq, m.voided FROM corrections c
                     LEFT JOIN matches m ON m.league = c.league AND m.key = c.key
                     WHERE c.league = $1 AND c.id > $2 ORDER BY c.id",
                    &[&league, &seen.last_change],
                )?
                .iter()
                .map(|r| {
                    let act: String = r.get(1);
                    change_log(r.get(0), &act, r.get(2), r.get(3), r.get(4), r.get(5))
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
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.with(|c| {
            c.query(
                &format!("SELECT {ENTRY_COLUMNS} FROM matches WHERE league = $1 AND key = ANY($2)"),
                &[&league, &keys],
            )?
            .iter()
            .map(entry)
            .collect()
        })
    }

    fn lock(&self, league: LeagueId) -> Result<Box<dyn Writer + '_>, StoreError> {
        let mut c = self.pool.take()?;
        let key = i32::try_from(league).map_err(|_| StoreError::Corrupt {
            message: format!("league id {league} is too large for a lock"),
        })?;
        match c.execute("SELECT pg_advisory_lock($1, $2)", &[&LOCK_SPACE, &key]) {
            Ok(_) => Ok(Box::new(PgWriter {
                store: self,
                client: Some(c),
                league,
                key,
            })),
            Err(e) => {
                drop(c);
                self.pool.forget();
                let e = StoreError::from(e);
                if e.is_transient() {
                    self.pool.flush();
                }
                Err(e)
            }
        }
    }

    fn watch(&self) -> Result<Option<Box<dyn Watch>>, StoreError> {
        let mut c = self.pool.config.connect(NoTls)?;
        c.batch_execute(&format!("LISTEN {CHANNEL}"))?;
        Ok(Some(Box::new(PgWatch { client: c })))
    }
}

/// The writes of one league, on the connection that holds its advisory lock.
struct PgWriter<'a> {
    store: &'a PgStore,
    client: Option<Client>,
    league: LeagueId,
    key: i32,
}

impl Drop for PgWriter<'_> {
    fn drop(&mut self) {
        let Some(mut c) = self.client.take() else {
            return;
        };
        match c.execute(
            "SELECT pg_advisory_unlock($1, $2)",
            &[&LOCK_SPACE, &self.key],
        ) {
            Ok(_) => self.store.pool.give(c),
            Err(e) => {
                // Closing the connection lets the lock go.
                tracing::warn!(league = self.league, error = %e, "could not unlock a league; dropping its connection");
                drop(c);
                self.store.pool.forget();
                self.store.pool.flush();
            }
        }
    }
}

impl PgWriter<'_> {
    fn client(&mut self) -> &mut Client {
        self.client
            .as_mut()
            .expect("the connection is held until drop")
    }

    /// Runs `f` in a transaction that also logs a change and moves the league's head to
    /// it, and announces the write.
    fn change(
        &mut self,
        f: impl FnOnce(&mut postgres::Transaction<'_>) -> Result<(), StoreError>,
        key: Option<&str>,
        action: &str,
        old: Option<String>,
        new: Option<String>,
    ) -> Result<Head, StoreError> {
        let league = self.league;
        let mut tx = self.client().transaction()?;
        f(&mut tx)?;
        // A logged change may touch what the saved ratings cover.
        tx.execute("DELETE FROM snapshots WHERE league = $1", &[&league])?;
        let r = tx.query_one(
            &format!(
                "WITH logged AS (
                    INSERT INTO corrections (league, key, action, old_body, new_body) VALUES ($1, $2, $3, $4, $5) RETURNING id
                 ), head AS (
                    UPDATE leagues SET last_change = (SELECT id FROM logged) WHERE id = $1 RETURNING last_seq, last_change
                 )
                 SELECT last_seq, last_change, pg_notify('{CHANNEL}', $1::text) FROM head"
            ),
            &[&league, &key, &action, &old, &new],
        )?;
        let head = Head {
            last_seq: r.get(0),
            last_change: r.get(1),
        };
        tx.commit()?;
        Ok(head)
    }
}

impl Writer for PgWriter<'_> {
    fn append(&mut self, entries: &[LedgerEntry]) -> Result<Head, StoreError> {
        let league = self.league;
        let seqs: Vec<i64> = entries.iter().map(|e| e.seq).collect();
        let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
        let bodies: Vec<String> = entries.iter().map(|e| body(&e.json)).collect();
        let hashes: Vec<&str> = entries.iter().map(|e| e.hash.as_str()).collect();
        let times: Vec<Option<i64>> = entries.iter().map(|e| e.time).collect();
        // One statement, so one transaction: the matches, the head, the announcement.
        let r = self.client().query_one(
            &format!(
                "WITH new AS (
                    INSERT INTO matches (league, seq, key, body, hash, time)
                    SELECT $1, * FROM UNNEST($2::BIGINT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::BIGINT[])
                    RETURNING seq
                 ), head AS (
                    UPDATE leagues SET last_seq = GREATEST(last_seq, (SELECT MAX(seq) FROM new)) WHERE id = $1
                    RETURNING last_seq, last_change
                 )
                 SELECT last_seq, last_change, pg_notify('{CHANNEL}', $1::text) FROM head"
            ),
            &[&league, &seqs, &keys, &bodies, &hashes, &times],
        )?;
        Ok(Head {
            last_seq: r.get(0),
            last_change: r.get(1),
        })
    }

    fn void(&mut self, entry: &LedgerEntry) -> Result<Head, StoreError> {
        let league = self.league;
        let key = entry.key.clone();
        self.change(
            |tx| {
                tx.execute(
                    "UPDATE matches SET voided = true WHERE league = $1 AND key = $2",
                    &[&league, &key],
                )?;
                Ok(())
            },
            Some(&entry.key),
            "void",
            Some(body(&entry.json)),
            None,
        )
    }

    fn correct(&mut self, old: &LedgerEntry, new: &LedgerEntry) -> Result<Head, StoreError> {
        let league = self.league;
        let text = body(&new.json);
        let (key, hash, time) = (old.key.clone(), new.hash.clone(), new.time);
        let new_body = text.clone();
        self.change(
            |tx| {
                tx.execute(
                    "UPDATE matches SET body = $3, hash = $4, time = $5, voided = false WHERE league = $1 AND key = $2",
                    &[&league, &key, &new_body, &hash, &time],
                )?;
                Ok(())
            },
            Some(&old.key),
            "correct",
            Some(body(&old.json)),
            Some(text),
        )
    }

    fn start_season(&mut self, season: &SeasonRow) -> Result<Head, StoreError> {
        let league = self.league;
        let reset = reset_text(&season.reset);
        let s = season.clone();
        self.change(
            |tx| {
                tx.execute(
                    "INSERT INTO seasons (league, number, name, start_seq, start_time, reset) VALUES ($1, $2, $3, $4, $5, $6)",
                    &[&league, &s.number, &s.name, &s.start.seq, &s.start.time, &reset],
                )?;
                Ok(())
            },
            None,
            "season",
            None,
            Some(season_text(season)),
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
        let config_text = config_text(config);
        let (n, s) = (name.to_string(), system.to_string());
        let c = config_text.clone();
        let key = name_key(name);
        let mut taken = false;
        let changed = self.change(
            |tx| {
                // The key follows a new name only: a league of an older ledger named
                // like another keeps its NULL key while it keeps its name.
                let updated = tx.execute(
                    "UPDATE leagues SET name = $2, system = $3, config = $4,
                     name_key = CASE WHEN name = $2 THEN name_key ELSE $5 END WHERE id = $1",
                    &[&league, &n, &s, &c, &key],
                );
                match updated {
                    Err(e) if name_key_taken(&e) => {
                        taken = true;
                        Err(e.into())
                    }
                    other => other.map(drop).map_err(StoreError::from),
                }
            },
            None,
            "configure",
            Some(old_league_text(old)),
            Some(league_text(name, system, config)),
        );
        match changed {
            // The transaction is rolled back: who holds the name is read after it.
            Err(_) if taken => Err(name_taken(self.client(), name)?),
            other => other,
        }
    }
}

/// Notifications of writes, on a connection of its own.
struct PgWatch {
    client: Client,
}

impl Watch for PgWatch {
    fn wait(&mut self, timeout: Duration) -> Result<Vec<LeagueId>, StoreError> {
        let mut ids = Vec::new();
        let first = self.client.notifications().timeout_iter(timeout).next()?;
        if let Some(n) = first {
            ids.extend(n.payload().parse::<LeagueId>().ok());
            // Whatever else has come, without waiting again.
            let mut notes = self.client.notifications();
            let mut rest = notes.iter();
            while let Some(n) = rest.next()? {
                ids.extend(n.payload().parse::<LeagueId>().ok());
            }
        }
        if self.client.is_closed() {
            return Err(StoreError::Unavailable {
                reason: "the connection listening for writes was closed".into(),
            });
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }
}
