//! What can go wrong in a store, with the fields that say which league, match or player.

use podium::{ConfigError, RateError};

/// An error of a [`crate::Store`] operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No league with that id.
    #[error("no league {league}")]
    LeagueNotFound {
        /// The id asked for.
        league: i64,
    },
    /// No match with that id in the league.
    #[error("league {league} has no match {key:?}")]
    MatchNotFound {
        /// The league.
        league: i64,
        /// The match id asked for.
        key: String,
    },
    /// No player of that name has played in the league.
    #[error("league {league} has no player {player:?}")]
    PlayerNotFound {
        /// The league.
        league: i64,
        /// The player asked for.
        player: String,
    },
    /// The token belongs to no league.
    #[error("missing or wrong admin token")]
    Unauthorized,
    /// The token is another league's.
    #[error("this admin token is not league {league}'s")]
    Forbidden {
        /// The league whose token was needed.
        league: i64,
    },
    /// A match id already in the ledger with other content.
    #[error("match {key:?} is already in the ledger with other results; use PUT to correct it or another id")]
    Conflict {
        /// The match id.
        key: String,
    },
    /// A match that is not valid (bad field, too few entries, a player twice…).
    #[error("invalid match: {message}")]
    InvalidMatch {
        /// What is wrong, naming the field.
        message: String,
    },
    /// The league's system cannot rate a match (e.g. `elo` with three entries).
    #[error("match {key:?} cannot be rated: {source}")]
    Rate {
        /// The match id.
        key: String,
        /// The system's reason.
        #[source]
        source: RateError,
    },
    /// An unknown system or a bad parameter.
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// A correction names a player the league has never seen.
    #[error("player {player:?} has never played in this league; a correction can only name known players (add ?allow_new_players=true to allow it)")]
    UnknownPlayer {
        /// The player named.
        player: String,
    },
    /// A match with a time in a league without, or the other way round.
    #[error("match {key:?} {}, but the league's matches {}: every match of a league has a time, or none does", if *.has_time { "has a time" } else { "has no time" }, if *.has_time { "have none" } else { "have times" })]
    TimeMismatch {
        /// The match id.
        key: String,
        /// Whether this match has a time.
        has_time: bool,
    },
    /// A league that cannot be created as asked (empty name).
    #[error("invalid league: {message}")]
    InvalidLeague {
        /// What is wrong.
        message: String,
    },
    /// The database failed.
    #[error(transparent)]
    Database(#[from] rusqlite::Error),
    /// The stored ledger cannot be read back (should never happen).
    #[error("stored ledger is inconsistent: {message}")]
    Corrupt {
        /// What was found.
        message: String,
    },
}

impl StoreError {
    /// Whether the error is the caller's (a 4xx) rather than the store's (a 5xx).
    #[must_use]
    pub fn is_client_error(&self) -> bool {
        !matches!(self, StoreError::Database(_) | StoreError::Corrupt { .. })
    }
}
