//! The SQLite backend: one file, created and migrated on first open, in WAL mode.
//!
//! Durability: with [`Durability::Full`] (the default) every commit is fsynced before
//! the call returns (`synchronous=FULL`), so an acknowledged match survives a process
//! kill and a power loss. Concurrent submissions are committed together by
//! [`Store::append_batch`] (group commit: one fsync for the whole batch).
//! [`Durability::Normal`] (`synchronous=NORMAL`) skips the fsync of each commit: an
//! acknowledged match still survives the process being killed (the WAL is written before
//! the call returns), but the last commits may be lost if the machine loses power.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use podium::{RatingSystem, Settings};
use podium_io::JsonMatch;
use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use crate::derived::{rating_order, replay, Derived};
use crate::error::StoreError;
use crate::token::{hash_token, hex, new_token};
use crate::types::{
    Appended, BoardJson, BoardRow, LeagueId, LeagueInfo, LedgerEntry, NewLeague, ParamRow,
    PlayerHistory, Submission, SubmitStatus,
};
use crate::Store;

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
const MIGRATIONS: &[&str] = &["
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
"];

/// The longest match id accepted.
const MAX_KEY_LEN: usize = 200;

#[derive(Debug)]
struct State {
    name: String,
    system: String,
    config: Settings,
    next_seq: i64,
    derived: Derived,
}

impl State {
    fn build_system(&self) -> Result<Box<dyn RatingSystem>, StoreError> {
        build_system(&self.system, &self.config)
    }

    fn info(&self, id: LeagueId) -> LeagueInfo {
        let sys = self.derived.league().system();
        LeagueInfo {
            id,
            name: self.name.clone(),
            system: self.system.clone(),
            config: self.config.clone(),
            params: sys.params().iter().map(ParamRow::from_param).collect(),
            has_sigma: sys.has_uncertainty(),
            matches: self.derived.matches(),
            players: self.derived.league().players().len(),
        }
    }
}

fn build_system(name: &str, config: &Settings) -> Result<Box<dyn RatingSystem>, StoreError> {
    Ok(podium::system(name, config)?)
}

/// A [`Store`] in one SQLite file.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
    leagues: BTreeMap<LeagueId, State>,
    tokens: HashMap<String, LeagueId>,
}

impl SqliteStore {
    /// Opens (creating and migrating if needed) the store at `path` with full durability,
    /// and replays every league's ledger.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the file cannot be opened or migrated.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::open_with(path, Durability::Full)
    }

    /// Opens the store at `path` with the given durability.
    ///
    /// # Errors
    /// As [`SqliteStore::open`].
    pub fn open_with(path: impl AsRef<Path>, durability: Durability) -> Result<Self, StoreError> {
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        Self::from_connection(conn, durability)
    }

    /// A store in memory (for tests).
    ///
    /// # Errors
    /// As [`SqliteStore::open`].
    pub fn in_memory() -> Result<Self, StoreError> {
        Self::from_connection(Connection::open_in_memory()?, Durability::Full)
    }

    fn from_connection(mut conn: Connection, durability: Durability) -> Result<Self, StoreError> {
        conn.pragma_update(
            None,
            "synchronous",
            match durability {
                Durability::Full => "FULL",
                Durability::Normal => "NORMAL",
            },
        )?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrate(&mut conn)?;
        let mut store = SqliteStore {
            conn,
            leagues: BTreeMap::new(),
            tokens: HashMap::new(),
        };
        store.load()?;
        Ok(store)
    }

    fn load(&mut self) -> Result<(), StoreError> {
        let rows: Vec<(i64, String, String, String, String)> = {
            let mut stmt = self
                .conn
                .prepare("SELECT id, name, system, config, token_hash FROM leagues ORDER BY id")?;
            let rows = stmt
                .query_map([], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })?
                .collect::<Result<_, _>>()?;
            rows
        };
        for (id, name, system, config, token_hash) in rows {
            let config: Settings =
                serde_json::from_str(&config).map_err(|e| StoreError::Corrupt {
                    message: format!("league {id}: config {config:?}: {e}"),
                })?;
            let state = self.load_state(id, name, system, config)?;
            self.leagues.insert(id, state);
            self.tokens.insert(token_hash, id);
        }
        Ok(())
    }

    fn load_state(
        &self,
        id: LeagueId,
        name: String,
        system: String,
        config: Settings,
    ) -> Result<State, StoreError> {
        let sys = build_system(&system, &config)?;
        let entries = read_ledger(&self.conn, id)?;
        let next_seq = entries.iter().map(|e| e.seq).max().unwrap_or(0) + 1;
        let derived = replay(sys, &entries)?;
        Ok(State {
            name,
            system,
            config,
            next_seq,
            derived,
        })
    }

    fn reload(&mut self, id: LeagueId) -> Result<(), StoreError> {
        let (name, system, config): (String, String, String) = self.conn.query_row(
            "SELECT name, system, config FROM leagues WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        let config = serde_json::from_str(&config).map_err(|e| StoreError::Corrupt {
            message: format!("league {id}: {e}"),
        })?;
        let state = self.load_state(id, name, system, config)?;
        self.leagues.insert(id, state);
        Ok(())
    }

    fn state(&self, id: LeagueId) -> Result<&State, StoreError> {
        self.leagues
            .get(&id)
            .ok_or(StoreError::LeagueNotFound { league: id })
    }
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

fn entry_from_row(
    r: &rusqlite::Row<'_>,
) -> rusqlite::Result<(i64, String, String, String, Option<i64>, bool)> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
    ))
}

fn to_entry(
    (seq, key, body, hash, time, voided): (i64, String, String, String, Option<i64>, bool),
) -> Result<LedgerEntry, StoreError> {
    let json: JsonMatch = serde_json::from_str(&body).map_err(|e| StoreError::Corrupt {
        message: format!("match {key:?}: {e}"),
    })?;
    Ok(LedgerEntry {
        seq,
        key,
        time,
        json,
        hash,
        voided,
    })
}

/// Every match of a league, voided ones included, in ledger order.
fn read_ledger(conn: &Connection, league: LeagueId) -> Result<Vec<LedgerEntry>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, key, body, hash, time, voided FROM matches WHERE league = ?1 ORDER BY seq",
    )?;
    let rows = stmt
        .query_map([league], entry_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter().map(to_entry).collect()
}

fn read_entry(
    conn: &Connection,
    league: LeagueId,
    key: &str,
) -> Result<Option<LedgerEntry>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, key, body, hash, time, voided FROM matches WHERE league = ?1 AND key = ?2",
    )?;
    stmt.query_row(params![league, key], entry_from_row)
        .optional()?
        .map(to_entry)
        .transpose()
}

fn check_key(key: &str) -> Result<(), StoreError> {
    if key.is_empty()
        || key.trim() != key
        || key.len() > MAX_KEY_LEN
        || key.chars().any(char::is_control)
    {
        return Err(StoreError::InvalidMatch {
            message: format!(
                "match id {key:?} must be 1 to {MAX_KEY_LEN} characters, without surrounding spaces or control characters"
            ),
        });
    }
    Ok(())
}

/// Validates a submission under `key`: the normalised JSON and its content hash.
fn normalise(
    sub: &Submission,
    key: &str,
) -> Result<(podium::Match, JsonMatch, String), StoreError> {
    let game = sub
        .to_json(key)
        .to_match("body", 1)
        .map_err(|e| StoreError::InvalidMatch {
            message: e.to_string(),
        })?;
    let json = JsonMatch::from_match(&game);
    let hash = content_hash(&json);
    Ok((game, json, hash))
}

/// SHA-256 of a match's normalised content, its id left out and its results sorted, so
/// that the same results listed in another order hash the same.
fn content_hash(json: &JsonMatch) -> String {
    let mut anon = json.clone();
    anon.id.clear();
    anon.results.sort_by(|a, b| {
        let key = |r: &podium_io::JsonResult| {
            (
                r.rank.or(r.score.map(|s| -s)).unwrap_or(0.0),
                r.team.clone(),
                r.player.clone(),
            )
        };
        let (ka, kb) = (key(a), key(b));
        ka.0.total_cmp(&kb.0)
            .then_with(|| (ka.1, ka.2).cmp(&(kb.1, kb.2)))
    });
    let text = serde_json::to_string(&anon).expect("a match serialises");
    hex(&Sha256::digest(text.as_bytes()))
}

fn append_one(
    conn: &Connection,
    state: &mut State,
    league: LeagueId,
    sub: Submission,
) -> Result<Appended, StoreError> {
    let key = match sub.key()? {
        Some(k) => {
            check_key(k)?;
            k.to_string()
        }
        None => {
            let mut n = state.next_seq;
            loop {
                let k = format!("#{n}");
                if read_entry(conn, league, &k)?.is_none() {
                    break k;
                }
                n += 1;
            }
        }
    };
    let (game, json, hash) = normalise(&sub, &key)?;
    if let Some(existing) = read_entry(conn, league, &key)? {
        if existing.hash != hash {
            return Err(StoreError::Conflict { key });
        }
        let changes = state.derived.changes(&key).unwrap_or_default();
        return Ok(Appended {
            status: SubmitStatus::Duplicate,
            entry: existing,
            changes,
            recomputed: false,
        });
    }
    let has_time = game.time().is_some();
    if state.derived.timed().is_some_and(|t| t != has_time) {
        return Err(StoreError::TimeMismatch { key, has_time });
    }
    let seq = state.next_seq;
    let body = serde_json::to_string(&json).expect("a match serialises");
    let entry = LedgerEntry {
        seq,
        key: key.clone(),
        time: game.time(),
        json,
        hash,
        voided: false,
    };
    conn.execute("SAVEPOINT append_one", [])?;
    let result = (|| {
        conn.prepare_cached(
            "INSERT INTO matches (league, seq, key, body, hash, time) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![league, seq, key, body, entry.hash, entry.time])?;
        if state.derived.appends_at_end(entry.time) {
            state.derived.apply(&entry, &game)?;
            Ok(false)
        } else {
            let entries = read_ledger(conn, league)?;
            state.derived = replay(state.build_system()?, &entries)?;
            Ok(true)
        }
    })();
    match result {
        Ok(recomputed) => {
            conn.execute("RELEASE append_one", [])?;
            state.next_seq += 1;
            let changes = state.derived.changes(&key).unwrap_or_default();
            Ok(Appended {
                status: SubmitStatus::Created,
                entry,
                changes,
                recomputed,
            })
        }
        Err(e) => {
            conn.execute_batch("ROLLBACK TO append_one; RELEASE append_one")?;
            Err(e)
        }
    }
}

impl Store for SqliteStore {
    fn create_league(&mut self, new: &NewLeague) -> Result<(LeagueInfo, String), StoreError> {
        let name = new.name.trim();
        if name.is_empty() || name.len() > 200 {
            return Err(StoreError::InvalidLeague {
                message: "the name must be 1 to 200 characters".into(),
            });
        }
        let sys = build_system(&new.system, &new.config)?;
        let system = sys.name().to_string();
        let token = new_token();
        let token_hash = hash_token(&token);
        let config_text = serde_json::to_string(&new.config).expect("config serialises");
        self.conn.execute(
            "INSERT INTO leagues (name, system, config, token_hash) VALUES (?1, ?2, ?3, ?4)",
            params![name, system, config_text, token_hash],
        )?;
        let id = self.conn.last_insert_rowid();
        let state = State {
            name: name.to_string(),
            system,
            config: new.config.clone(),
            next_seq: 1,
            derived: Derived::new(sys),
        };
        let info = state.info(id);
        self.leagues.insert(id, state);
        self.tokens.insert(token_hash, id);
        Ok((info, token))
    }

    fn leagues(&self) -> Vec<LeagueInfo> {
        self.leagues.iter().map(|(&id, s)| s.info(id)).collect()
    }

    fn league(&self, league: LeagueId) -> Result<LeagueInfo, StoreError> {
        Ok(self.state(league)?.info(league))
    }

    fn authorize(&self, league: LeagueId, token: &str) -> Result<(), StoreError> {
        self.state(league)?;
        match self.tokens.get(&hash_token(token)) {
            Some(&id) if id == league => Ok(()),
            Some(_) => Err(StoreError::Forbidden { league }),
            None => Err(StoreError::Unauthorized),
        }
    }

    fn append_batch(
        &mut self,
        batch: Vec<(LeagueId, Submission)>,
    ) -> Vec<Result<Appended, StoreError>> {
        let n = batch.len();
        let tx = match self.conn.transaction() {
            Ok(tx) => tx,
            Err(e) => {
                let msg = e.to_string();
                return (0..n)
                    .map(|_| {
                        Err(StoreError::Corrupt {
                            message: format!("cannot begin a transaction: {msg}"),
                        })
                    })
                    .collect();
            }
        };
        let mut touched = HashSet::new();
        let results: Vec<Result<Appended, StoreError>> = batch
            .into_iter()
            .map(|(id, sub)| {
                let state = self
                    .leagues
                    .get_mut(&id)
                    .ok_or(StoreError::LeagueNotFound { league: id })?;
                touched.insert(id);
                append_one(&tx, state, id, sub)
            })
            .collect();
        match tx.commit() {
            Ok(()) => results,
            Err(e) => {
                // Nothing of the batch is stored: rebuild what was updated in memory.
                let msg = e.to_string();
                for id in touched {
                    if let Err(err) = self.reload(id) {
                        self.leagues.remove(&id);
                        tracing::error!(league = id, error = %err, "league could not be reloaded after a failed commit; it is no longer served");
                    }
                }
                results
                    .into_iter()
                    .map(|r| match r {
                        Ok(_) => Err(StoreError::Corrupt {
                            message: format!("commit failed: {msg}"),
                        }),
                        Err(e) => Err(e),
                    })
                    .collect()
            }
        }
    }

    fn void(&mut self, league: LeagueId, key: &str) -> Result<LedgerEntry, StoreError> {
        let state = self
            .leagues
            .get_mut(&league)
            .ok_or(StoreError::LeagueNotFound { league })?;
        let tx = self.conn.transaction()?;
        let mut entry = read_entry(&tx, league, key)?.ok_or_else(|| StoreError::MatchNotFound {
            league,
            key: key.to_string(),
        })?;
        if entry.voided {
            return Ok(entry);
        }
        tx.execute(
            "UPDATE matches SET voided = 1 WHERE league = ?1 AND key = ?2",
            params![league, key],
        )?;
        tx.execute(
            "INSERT INTO corrections (league, key, action, old_body) VALUES (?1, ?2, 'void', ?3)",
            params![
                league,
                key,
                serde_json::to_string(&entry.json).expect("serialises")
            ],
        )?;
        let entries = read_ledger(&tx, league)?;
        let derived = replay(state.build_system()?, &entries)?;
        tx.commit()?;
        state.derived = derived;
        entry.voided = true;
        Ok(entry)
    }

    fn correct(
        &mut self,
        league: LeagueId,
        key: &str,
        sub: Submission,
        allow_new_players: bool,
    ) -> Result<Appended, StoreError> {
        let state = self
            .leagues
            .get_mut(&league)
            .ok_or(StoreError::LeagueNotFound { league })?;
        if let Some(id) = sub.key()? {
            if id != key {
                return Err(StoreError::InvalidMatch {
                    message: format!(
                        "the body's match id {id:?} differs from the address's {key:?}"
                    ),
                });
            }
        }
        let old =
            read_entry(&self.conn, league, key)?.ok_or_else(|| StoreError::MatchNotFound {
                league,
                key: key.to_string(),
            })?;
        let (game, json, hash) = normalise(&sub, key)?;
        if !allow_new_players {
            // Known: has a rated match, or is in the match being corrected.
            let known =
                |p: &str| state.derived.knows(p) || old.json.results.iter().any(|r| r.player == p);
            if let Some((_, m)) = game.players().find(|(_, m)| !known(&m.player)) {
                return Err(StoreError::UnknownPlayer {
                    player: m.player.clone(),
                });
            }
        }
        let tx = self.conn.transaction()?;
        let body = serde_json::to_string(&json).expect("serialises");
        tx.execute(
            "UPDATE matches SET body = ?3, hash = ?4, time = ?5, voided = 0 WHERE league = ?1 AND key = ?2",
            params![league, key, body, hash, game.time()],
        )?;
        tx.execute(
            "INSERT INTO corrections (league, key, action, old_body, new_body) VALUES (?1, ?2, 'correct', ?3, ?4)",
            params![league, key, serde_json::to_string(&old.json).expect("serialises"), body],
        )?;
        let entries = read_ledger(&tx, league)?;
        let derived = replay(state.build_system()?, &entries)?;
        tx.commit()?;
        state.derived = derived;
        let changes = state.derived.changes(key).unwrap_or_default();
        Ok(Appended {
            status: SubmitStatus::Corrected,
            entry: LedgerEntry {
                seq: old.seq,
                key: key.to_string(),
                time: game.time(),
                json,
                hash,
                voided: false,
            },
            changes,
            recomputed: true,
        })
    }

    fn configure(
        &mut self,
        league: LeagueId,
        name: Option<String>,
        system: Option<String>,
        config: Option<Settings>,
    ) -> Result<LeagueInfo, StoreError> {
        let state = self
            .leagues
            .get_mut(&league)
            .ok_or(StoreError::LeagueNotFound { league })?;
        let name = match name {
            Some(n) => {
                let n = n.trim().to_string();
                if n.is_empty() || n.len() > 200 {
                    return Err(StoreError::InvalidLeague {
                        message: "the name must be 1 to 200 characters".into(),
                    });
                }
                n
            }
            None => state.name.clone(),
        };
        let system_changed = system.is_some();
        let new_system = system.unwrap_or_else(|| state.system.clone());
        let new_config = match config {
            Some(c) => c,
            None if system_changed => Settings::new(),
            None => state.config.clone(),
        };
        let sys = build_system(&new_system, &new_config)?;
        let new_system = sys.name().to_string();
        let rerate = new_system != state.system || new_config != state.config;
        let tx = self.conn.transaction()?;
        let derived = if rerate {
            let entries = read_ledger(&tx, league)?;
            Some(replay(sys, &entries)?)
        } else {
            None
        };
        tx.execute(
            "UPDATE leagues SET name = ?2, system = ?3, config = ?4 WHERE id = ?1",
            params![
                league,
                name,
                new_system,
                serde_json::to_string(&new_config).expect("serialises")
            ],
        )?;
        tx.execute(
            "INSERT INTO corrections (league, action, old_body, new_body) VALUES (?1, 'configure', ?2, ?3)",
            params![
                league,
                serde_json::json!({"name": state.name, "system": state.system, "config": state.config}).to_string(),
                serde_json::json!({"name": name, "system": new_system, "config": new_config}).to_string()
            ],
        )?;
        tx.commit()?;
        state.name = name;
        state.system = new_system;
        state.config = new_config;
        if let Some(d) = derived {
            state.derived = d;
        }
        Ok(state.info(league))
    }

    fn leaderboard(&mut self, league: LeagueId) -> Result<Arc<Vec<BoardRow>>, StoreError> {
        Ok(self
            .leagues
            .get_mut(&league)
            .ok_or(StoreError::LeagueNotFound { league })?
            .derived
            .board())
    }

    fn leaderboard_json(&mut self, league: LeagueId) -> Result<BoardJson, StoreError> {
        Ok(self
            .leagues
            .get_mut(&league)
            .ok_or(StoreError::LeagueNotFound { league })?
            .derived
            .board_json())
    }

    fn leaderboard_page(
        &self,
        league: LeagueId,
        offset: usize,
        limit: usize,
    ) -> Result<(usize, Vec<BoardRow>), StoreError> {
        Ok(self.state(league)?.derived.page(offset, limit))
    }

    fn player(&self, league: LeagueId, player: &str) -> Result<PlayerHistory, StoreError> {
        self.state(league)?
            .derived
            .player(player)
            .ok_or_else(|| StoreError::PlayerNotFound {
                league,
                player: player.to_string(),
            })
    }

    fn ledger(&self, league: LeagueId) -> Result<Vec<LedgerEntry>, StoreError> {
        self.state(league)?;
        let mut entries: Vec<LedgerEntry> = read_ledger(&self.conn, league)?
            .into_iter()
            .filter(|e| !e.voided)
            .collect();
        rating_order(&mut entries);
        Ok(entries)
    }

    fn get_match(&self, league: LeagueId, key: &str) -> Result<LedgerEntry, StoreError> {
        self.state(league)?;
        read_entry(&self.conn, league, key)?.ok_or_else(|| StoreError::MatchNotFound {
            league,
            key: key.to_string(),
        })
    }

    fn derived(&self, league: LeagueId) -> Result<&Derived, StoreError> {
        Ok(&self.state(league)?.derived)
    }
}

#[cfg(test)]
mod tests;
