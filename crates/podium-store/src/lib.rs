//! # podium-store
//!
//! The match ledger behind `podium serve`: leagues (each rated by one system with its
//! config), the matches entered into them in order, and the corrections and voids made
//! since. The ledger is the source of truth; ratings are **derived** from it:
//!
//! - appending a match rates it incrementally with [`podium::League`];
//! - voiding or correcting a past match, changing a league's system or config, or
//!   entering a timed match earlier than the latest one, recomputes the league by
//!   replaying its ledger;
//! - opening a store replays every league's ledger.
//!
//! So at every moment the ratings a store serves equal a fresh replay of its ledger
//! ([`replay`] is that fresh replay, and the property tests check the two agree).
//!
//! Stores implement the [`Store`] trait so that another backend can follow; the only
//! backend today is [`SqliteStore`] (an embedded SQLite file, created and migrated on
//! first open). A PostgreSQL backend for several server instances is not written yet.
//!
//! ```
//! use podium_store::{NewLeague, SqliteStore, Store, Submission, SubmitStatus};
//!
//! let mut store = SqliteStore::in_memory()?;
//! let (league, token) = store.create_league(&NewLeague {
//!     name: "Thursday".into(),
//!     system: "sme".into(),
//!     config: podium::Settings::new(),
//! })?;
//! store.authorize(league.id, &token)?;
//! let game: Submission = serde_json::from_str(
//!     r#"{"match":"g1","results":[{"player":"ann","rank":1},{"player":"bo","rank":2}]}"#,
//! )?;
//! let done = store.append(league.id, game.clone())?;
//! assert_eq!(done.status, SubmitStatus::Created);
//! assert!((done.changes[0].delta - 16.0).abs() < 1e-9);
//! // The same match again is a retry: nothing is stored.
//! assert_eq!(store.append(league.id, game)?.status, SubmitStatus::Duplicate);
//! let board = store.leaderboard(league.id)?;
//! assert_eq!(board[0].player, "ann");
//! assert!((board[0].rating - 1516.0).abs() < 1e-9);
//! // Voiding the match recomputes the league from its ledger.
//! store.void(league.id, "g1")?;
//! assert!(store.leaderboard(league.id)?.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod derived;
mod error;
mod sqlite;
mod token;
mod types;

pub use derived::{replay, Derived};
pub use error::StoreError;
pub use sqlite::{Durability, SqliteStore};
pub use token::{hash_token, new_token};
pub use types::{
    Appended, BoardJson, BoardRow, ChangeRow, HistoryRow, LeagueId, LeagueInfo, LedgerEntry,
    NewLeague, PlayerHistory, Submission, SubmitStatus,
};

use std::sync::Arc;

use podium::Settings;

/// A match ledger with derived ratings. Every method that changes something does so
/// atomically: it either happens completely (and durably, once it returns `Ok`) or not
/// at all.
pub trait Store: Send {
    /// Creates a league; returns it with its admin token (shown once, stored hashed).
    ///
    /// # Errors
    /// [`StoreError::InvalidLeague`] for an empty name, [`StoreError::Config`] for an
    /// unknown system or a bad parameter.
    fn create_league(&mut self, new: &NewLeague) -> Result<(LeagueInfo, String), StoreError>;

    /// Every league, oldest first.
    fn leagues(&self) -> Vec<LeagueInfo>;

    /// One league.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`].
    fn league(&self, league: LeagueId) -> Result<LeagueInfo, StoreError>;

    /// Checks an admin token for `league`.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::Forbidden`] for another league's
    /// token, [`StoreError::Unauthorized`] for a token that belongs to no league.
    fn authorize(&self, league: LeagueId, token: &str) -> Result<(), StoreError>;

    /// Appends matches, each to its league, committing them together (group commit).
    /// Each submission succeeds or fails on its own; all successes are durable when this
    /// returns.
    fn append_batch(
        &mut self,
        batch: Vec<(LeagueId, Submission)>,
    ) -> Vec<Result<Appended, StoreError>>;

    /// Appends one match to a league. A submission whose id is already in the ledger
    /// with the same content is a retry: it stores nothing and answers
    /// [`SubmitStatus::Duplicate`].
    ///
    /// # Errors
    /// [`StoreError::Conflict`] for an id already used by other content, the match's
    /// validation errors, or the system's refusal to rate it.
    fn append(&mut self, league: LeagueId, sub: Submission) -> Result<Appended, StoreError> {
        self.append_batch(vec![(league, sub)])
            .pop()
            .unwrap_or(Err(StoreError::Corrupt {
                message: "a batch of one gave no result".into(),
            }))
    }

    /// Voids a match: it stays in the ledger (and its id stays taken) but is no longer
    /// rated. Recomputes the league.
    ///
    /// # Errors
    /// [`StoreError::MatchNotFound`], or a replay that the system refuses.
    fn void(&mut self, league: LeagueId, key: &str) -> Result<LedgerEntry, StoreError>;

    /// Replaces the results (and time) of a match, keeping its place in the ledger, and
    /// recomputes the league. Unless `allow_new_players`, every player named must already
    /// be known to the league (a correction usually fixes a typo, not adds a player).
    ///
    /// # Errors
    /// [`StoreError::MatchNotFound`], [`StoreError::UnknownPlayer`], validation errors,
    /// or a replay that the system refuses.
    fn correct(
        &mut self,
        league: LeagueId,
        key: &str,
        sub: Submission,
        allow_new_players: bool,
    ) -> Result<Appended, StoreError>;

    /// Changes a league's name, system or config and recomputes it. A new system without
    /// a config starts from that system's defaults.
    ///
    /// # Errors
    /// [`StoreError::Config`] for an unknown system or bad parameter, or a replay that
    /// the new system refuses (the league is then left as it was).
    fn configure(
        &mut self,
        league: LeagueId,
        name: Option<String>,
        system: Option<String>,
        config: Option<Settings>,
    ) -> Result<LeagueInfo, StoreError>;

    /// The leaderboard, best first (materialised: cheap to call repeatedly).
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`].
    fn leaderboard(&mut self, league: LeagueId) -> Result<Arc<Vec<BoardRow>>, StoreError>;

    /// The leaderboard as a JSON array (`serde_json` of [`Store::leaderboard`]'s rows),
    /// made once per change of the league; after an appended match only its players'
    /// rows are serialised again.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`].
    fn leaderboard_json(&mut self, league: LeagueId) -> Result<BoardJson, StoreError>;

    /// A page of the leaderboard: at most `limit` rows from `offset` (0-based), and the
    /// number of players. Does not build the whole board.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`].
    fn leaderboard_page(
        &self,
        league: LeagueId,
        offset: usize,
        limit: usize,
    ) -> Result<(usize, Vec<BoardRow>), StoreError>;

    /// A player's standing and every rated match of theirs with its breakdown.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::PlayerNotFound`].
    fn player(&self, league: LeagueId, player: &str) -> Result<PlayerHistory, StoreError>;

    /// The rated matches of a league in rating order (voided ones left out).
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::Database`].
    fn ledger(&self, league: LeagueId) -> Result<Vec<LedgerEntry>, StoreError>;

    /// One match of the ledger, voided or not.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::MatchNotFound`].
    fn get_match(&self, league: LeagueId, key: &str) -> Result<LedgerEntry, StoreError>;

    /// The derived state the store serves for a league (for checks against [`replay`]).
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`].
    fn derived(&self, league: LeagueId) -> Result<&Derived, StoreError>;
}
