//! # podium-store
//!
//! The match ledger behind `podium serve`: leagues (each rated by one system with its
//! config), the matches entered into them in order, and the corrections and voids made
//! since. The ledger is the source of truth; ratings are **derived** from it:
//!
//! - appending a match rates it incrementally with [`podium::League`];
//! - voiding or correcting a past match, or entering a timed match earlier than the
//!   latest one, rates the league again from the last checkpoint before that match;
//!   changing a league's system or config rates its whole ledger again;
//! - opening a store replays every league's ledger; a league whose ratings the store
//!   saved ([`Store::save_snapshot`], still covering its ledger) is first restored from
//!   them and the matches after them, its board served at once while the replay runs.
//!
//! So at every moment the ratings served equal a fresh replay of the ledger ([`replay`]
//! is that fresh replay, and the property tests check the two agree).
//!
//! A [`Store`] keeps the ledger, in one of two backends: [`SqliteStore`], an embedded
//! SQLite file created and migrated on first open, for one server; [`PgStore`], a
//! PostgreSQL database that several servers share, each following the others' writes.
//! [`Leagues`] keeps each league's ratings in memory over a store, each league apart from
//! the others.
//!
//! ```
//! use std::sync::Arc;
//! use podium_store::{Leagues, NewLeague, Options, SqliteStore, Submission, SubmitStatus};
//!
//! let leagues = Leagues::open_loaded(Arc::new(SqliteStore::temporary()?), Options::default())?;
//! let (league, token) = leagues.create_league(&NewLeague {
//!     name: "Thursday".into(),
//!     system: "sme".into(),
//!     config: podium::Settings::new(),
//! })?;
//! leagues.authorize(league.id, &token)?;
//! let game: Submission = serde_json::from_str(
//!     r#"{"match":"g1","results":[{"player":"ann","rank":1},{"player":"bo","rank":2}]}"#,
//! )?;
//! let done = leagues.append(league.id, game.clone())?;
//! assert_eq!(done.status, SubmitStatus::Created);
//! assert!((done.changes[0].delta - 16.0).abs() < 1e-9);
//! // The same match again is a retry: nothing is stored.
//! assert_eq!(leagues.append(league.id, game)?.status, SubmitStatus::Duplicate);
//! let board = leagues.leaderboard(league.id)?;
//! assert_eq!(board[0].player, "ann");
//! assert!((board[0].rating - 1516.0).abs() < 1e-9);
//! // Voiding the match rates the league again without it.
//! leagues.void(league.id, "g1")?;
//! assert!(leagues.leaderboard(league.id)?.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod body;
mod derived;
mod error;
mod leagues;
mod packed;
mod postgres;
mod rows;
mod sqlite;
mod token;
mod types;

pub use crate::postgres::PgStore;
pub use body::{
    LedgerMatch, LedgerResult, MAX_FACTORS, MAX_FACTOR_KIND, MAX_FACTOR_VALUE, MAX_ID_LEN,
    RESERVED_KINDS,
};
pub use derived::{
    replay, replay_seasons, Archived, Base, Checkpoints, Derived, Saveable, Seasons, Spliced, Tail,
};
pub use error::{quote, StoreError, QUOTE_CHARS};
pub use leagues::{
    name_key, replay_observed, Leagues, Options, Reply, FIRST_SEASON, MAX_SEASON_NAME,
};
pub use sqlite::{Durability, SqliteStore};
pub use token::{hash_token, new_token};
pub use types::{
    Appended, BoardJson, BoardRow, ChangeAction, ChangeLog, ChangeRow, FactorChange, FactorRow,
    Head, HistoryRow, LeagueId, LeagueInfo, LeagueRow, LedgerEntry, NewLeague, PlayerHistory,
    Position, SeasonInfo, SeasonReset, SeasonRow, SnapshotRow, Submission, SubmitStatus,
};

use podium::Settings;

/// A league's ledger as of one moment, beyond what a reader has seen: see
/// [`Store::since`].
#[derive(Debug, Clone)]
pub struct Since {
    /// The league's row (its head is how far the ledger goes now).
    pub row: LeagueRow,
    /// The matches entered after the head seen, voided or not, in ledger order.
    pub entries: Vec<LedgerEntry>,
    /// The changes logged after the head seen, in order.
    pub changes: Vec<ChangeLog>,
}

/// Where the ledger is kept: a backend. Every write is atomic: it either happens
/// completely (and durably, once it returns `Ok`) or not at all. Reads see committed
/// writes only.
pub trait Store: Send + Sync + 'static {
    /// What the store is, for messages (`SQLite file games.db`).
    fn describe(&self) -> String;

    /// Checks that the database answers.
    ///
    /// # Errors
    /// It does not.
    fn ping(&self) -> Result<(), StoreError>;

    /// A way to be told at once of writes by other servers on the same database, for a
    /// store that several servers may share (`None`: this process is the only writer).
    ///
    /// # Errors
    /// The database fails.
    fn watch(&self) -> Result<Option<Box<dyn Watch>>, StoreError>;

    /// Every league's row, oldest first.
    ///
    /// # Errors
    /// The database fails.
    fn league_rows(&self) -> Result<Vec<LeagueRow>, StoreError>;

    /// One league's row.
    ///
    /// # Errors
    /// The database fails.
    fn league_row(&self, id: LeagueId) -> Result<Option<LeagueRow>, StoreError>;

    /// The league whose admin token has this hash.
    ///
    /// # Errors
    /// The database fails.
    fn league_of_token(&self, token_hash: &str) -> Result<Option<LeagueId>, StoreError>;

    /// How far every league's ledger goes (cheap: to notice what others wrote).
    ///
    /// # Errors
    /// The database fails.
    fn heads(&self) -> Result<Vec<(LeagueId, Head)>, StoreError>;

    /// Creates a league (its name and config already checked).
    ///
    /// # Errors
    /// The database fails.
    fn create_league(
        &self,
        name: &str,
        system: &str,
        config: &Settings,
        token_hash: &str,
    ) -> Result<LeagueRow, StoreError>;

    /// Gives `visit` the league's rated (not voided) matches after `after` (all of them
    /// for `None`), in rating order, and returns the league's row as of the same moment.
    /// Stops at `visit`'s first error and returns it.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], the database fails, or `visit` does.
    fn scan(
        &self,
        league: LeagueId,
        after: Option<Position>,
        visit: &mut dyn FnMut(LedgerEntry) -> Result<(), StoreError>,
    ) -> Result<LeagueRow, StoreError>;

    /// What the league's ledger holds beyond `seen`, all as of one moment.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], or the database fails.
    fn since(&self, league: LeagueId, seen: Head) -> Result<Since, StoreError>;

    /// The matches of the league with these ids (voided ones too), those that exist.
    ///
    /// # Errors
    /// The database fails.
    fn find(&self, league: LeagueId, keys: &[&str]) -> Result<Vec<LedgerEntry>, StoreError>;

    /// Takes the right to write a league's ledger, held until the writer is dropped:
    /// while it is held nobody else — in this process or another on the same store —
    /// writes to that league.
    ///
    /// # Errors
    /// The database fails.
    fn lock(&self, league: LeagueId) -> Result<Box<dyn Writer + '_>, StoreError>;

    /// The seasons the league started after its first, by number.
    ///
    /// # Errors
    /// The database fails.
    fn seasons(&self, league: LeagueId) -> Result<Vec<types::SeasonRow>, StoreError>;

    /// The league's ratings as last saved ([`Store::save_snapshot`]), if any: as stored,
    /// not checked against the ledger. A store that keeps none answers `None`.
    ///
    /// # Errors
    /// The database fails.
    fn snapshot(&self, league: LeagueId) -> Result<Option<SnapshotRow>, StoreError> {
        let _ = league;
        Ok(None)
    }

    /// Keeps a league's ratings in place of those saved before, in one transaction.
    ///
    /// # Errors
    /// The database fails.
    fn save_snapshot(&self, snapshot: &SnapshotRow) -> Result<(), StoreError> {
        let _ = snapshot;
        Ok(())
    }

    /// Whether a rated (not voided) match entered after ledger position `after_seq` goes
    /// before `at` in rating order (a match dated earlier than later ones).
    ///
    /// # Errors
    /// The database fails.
    fn entered_before(
        &self,
        league: LeagueId,
        after_seq: i64,
        at: Position,
    ) -> Result<bool, StoreError> {
        let _ = (league, after_seq, at);
        Ok(true)
    }
}

/// Notifications of writes by other servers on the same store.
pub trait Watch: Send {
    /// Waits up to `timeout` for writes; returns the leagues written to (none if the time
    /// ran out).
    ///
    /// # Errors
    /// The connection it listens on failed (make a new watch).
    fn wait(&mut self, timeout: std::time::Duration) -> Result<Vec<LeagueId>, StoreError>;
}

/// The writes of one league, by the holder of its lock ([`Store::lock`]). Each is one
/// transaction that also moves the league's [`Head`], which it returns.
pub trait Writer {
    /// Adds new matches at the positions they carry (the next ones of the ledger).
    ///
    /// # Errors
    /// The database fails (nothing is stored then), or the connection is lost
    /// ([`StoreError::Unavailable`]: the matches may or may not be stored, as the ledger
    /// then tells).
    fn append(&mut self, entries: &[LedgerEntry]) -> Result<Head, StoreError>;

    /// Marks a match voided, and logs it.
    ///
    /// # Errors
    /// The database fails (nothing is changed then).
    fn void(&mut self, entry: &LedgerEntry) -> Result<Head, StoreError>;

    /// Replaces a match's content, keeping its position (and restoring it if voided),
    /// and logs old and new.
    ///
    /// # Errors
    /// The database fails (nothing is changed then).
    fn correct(&mut self, old: &LedgerEntry, new: &LedgerEntry) -> Result<Head, StoreError>;

    /// Changes the league's name, system and config, and logs old and new.
    ///
    /// # Errors
    /// The database fails (nothing is changed then).
    fn configure(
        &mut self,
        old: &LeagueRow,
        name: &str,
        system: &str,
        config: &Settings,
    ) -> Result<Head, StoreError>;

    /// Records a new season (its `created_at` is set by the store), and logs it.
    ///
    /// # Errors
    /// The database fails (nothing is changed then), e.g. a season of that number or
    /// name exists.
    fn start_season(&mut self, season: &types::SeasonRow) -> Result<Head, StoreError>;
}
