//! What can go wrong in a store, with the fields that say which league, match or player.

use podium::{ConfigError, RateError};

/// An error of a store operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No league with that id.
    #[error("no league {league}")]
    LeagueNotFound {
        /// The id asked for.
        league: i64,
    },
    /// The league's ratings are still being rebuilt from its ledger (after a start).
    #[error("league {league} is being loaded from its ledger; try again shortly")]
    NotReady {
        /// The league.
        league: i64,
    },
    /// No match with that id in the league.
    #[error("league {league} has no match {}", quote(key))]
    MatchNotFound {
        /// The league.
        league: i64,
        /// The match id asked for.
        key: String,
    },
    /// No player of that name has played in the league.
    #[error("league {league} has no player {}", quote(player))]
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
    #[error(
        "match {} is already in the ledger with other results; use PUT to correct it or another id",
        quote(key)
    )]
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
    /// A season's reset that the league's system refuses (a σ out of its range).
    #[error("season {season}'s reset cannot be applied: {source}")]
    Reset {
        /// The season's number.
        season: i64,
        /// Why.
        #[source]
        source: podium::season::ResetError,
    },
    /// A season that cannot be started: a name empty, too long or already used.
    #[error("invalid season: {message}")]
    InvalidSeason {
        /// What is wrong, naming the field.
        message: String,
    },
    /// No season of that number.
    #[error("league {league} has no season {number}")]
    SeasonNotFound {
        /// The league.
        league: i64,
        /// The number asked for.
        number: i64,
    },
    /// The league's system cannot rate a match (e.g. `elo` with three entries).
    #[error("match {} cannot be rated: {source}", quote(key))]
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
    #[error("player {} has never played in this league; a correction can only name known players (add ?allow_new_players=true to allow it)", quote(player))]
    UnknownPlayer {
        /// The player named.
        player: String,
    },
    /// A match without a time in a league that has dated matches (a league may start
    /// without times and take dated matches later, not the other way round).
    #[error("match {} {}, but the league already has dated matches: give it a date (a league may start without dates, but once it has a dated match every later one needs a date)", quote(key), if *.has_time { "has a time" } else { "has no date" })]
    TimeMismatch {
        /// The match id.
        key: String,
        /// Whether this match has a time.
        has_time: bool,
    },
    /// A correction without a time of a dated match, in a league with other dated
    /// matches: it would take the match's date away and rate it before all of them.
    #[error("match {} is dated, but the correction has no date while the league has other dated matches: give it a date (a league may start without dates, but once it has a dated match a dated match keeps a date)", quote(key))]
    DateRemoved {
        /// The match id.
        key: String,
    },
    /// A league that cannot be created as asked (empty name).
    #[error("invalid league: {message}")]
    InvalidLeague {
        /// What is wrong.
        message: String,
    },
    /// A league name another league has, around spaces and letter case aside (the
    /// store holds names unique so, against requests made at once and other servers).
    #[error("a league named {} exists already{}: choose another name", quote(name), league.map(|l| format!(" (league {l})")).unwrap_or_default())]
    NameTaken {
        /// The other league's name, as it is stored (or the name asked for, when the
        /// other league was renamed since).
        name: String,
        /// The other league (`None` when it was renamed since).
        league: Option<i64>,
    },
    /// The database cannot be written to (a read-only file, a read-only server).
    #[error("the database {what} is read-only: {reason}")]
    ReadOnly {
        /// Which database.
        what: String,
        /// How it was found out.
        reason: String,
    },
    /// A SQLite file that cannot be made where it is asked for: its directory does not
    /// exist, is not a directory, or cannot be written to.
    #[error("the database {what} cannot be made: {reason}")]
    Unwritable {
        /// Which database.
        what: String,
        /// Why, naming the directory.
        reason: String,
    },
    /// A SQLite file that another process serves already (it holds the lock file beside
    /// the database).
    #[error("the SQLite file {what} is served by another process already (it holds the lock on {lock}); one process serves a SQLite file: stop the other, or keep the ledger in PostgreSQL (--db postgres://…) to run several servers")]
    InUse {
        /// Which database.
        what: String,
        /// The lock file.
        lock: String,
    },
    /// A SQLite file that a store of this process has open already (it holds the lock
    /// file beside the database until it is dropped, with whatever still shares it).
    #[error("the SQLite file {what} is open already in this process (a store of it that is still open holds the lock on {lock}); drop that store, and what shares it, before opening the file again")]
    OpenHere {
        /// Which database.
        what: String,
        /// The lock file.
        lock: String,
    },
    /// The database's disk is full (SQLite's `SQLITE_FULL`, PostgreSQL's `53100
    /// disk_full`): nothing of the write is stored, and nothing stored is harmed; the
    /// write may be sent again once the operator has made room.
    #[error("the database's disk is full: {reason}")]
    Full {
        /// What the database said.
        reason: String,
    },
    /// The SQLite database failed.
    #[error(transparent)]
    Sqlite(rusqlite::Error),
    /// A submission of a batch whose commit failed for all of them: the failure met by
    /// the batch, as its first submission got it (the database's own error).
    #[error("the batch this match was part of failed: {message}")]
    Failed {
        /// The batch's failure.
        message: String,
    },
    /// The database cannot be reached for now: a connection lost (a server restarting,
    /// a backend ended by its administrator, a network fault) or none to be had. The
    /// request may be tried again shortly; the ratings served were left as they were.
    #[error("the database is unavailable for now ({reason}); try again shortly")]
    Unavailable {
        /// What the connection failed with.
        reason: String,
    },
    /// The PostgreSQL database failed.
    #[error("{}", chain(.0))]
    Postgres(postgres::Error),
    /// The stored ledger cannot be read back (should never happen).
    #[error("stored ledger is inconsistent: {message}")]
    Corrupt {
        /// What was found.
        message: String,
    },
}

/// An error and its causes, `: `-separated (PostgreSQL's own message is the cause of a
/// "db error").
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// Whether a PostgreSQL error is the loss of the connection rather than a refusal of the
/// statement: the connection is closed, the server ended the session (SQLSTATE class 08,
/// `57P01` administrator command, `57P02` crash, `57P03` not accepting connections yet),
/// or the socket failed (refused, reset, timed out).
fn lost_connection(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(code) = e.code() {
        let code = code.code();
        return code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03");
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if s.is::<std::io::Error>() {
            return true;
        }
        source = s.source();
    }
    false
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull) {
            StoreError::Full {
                reason: e.to_string(),
            }
        } else {
            StoreError::Sqlite(e)
        }
    }
}

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> Self {
        if lost_connection(&e) {
            StoreError::Unavailable { reason: chain(&e) }
        } else if e.code() == Some(&postgres::error::SqlState::DISK_FULL) {
            StoreError::Full { reason: chain(&e) }
        } else {
            StoreError::Postgres(e)
        }
    }
}

impl StoreError {
    /// Whether the error is the loss of the database for now ([`StoreError::Unavailable`]):
    /// worth trying again, and no sign that the league's ratings are wrong.
    #[must_use]
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Unavailable { .. })
    }

    /// The same failure again, for each other submission of a batch that met it: its
    /// kind kept where the error can be copied (an unavailable database, a full disk, a
    /// SQLite failure), else its message as [`StoreError::Failed`].
    #[must_use]
    pub fn again(&self) -> StoreError {
        match self {
            StoreError::Unavailable { reason } => StoreError::Unavailable {
                reason: reason.clone(),
            },
            StoreError::Full { reason } => StoreError::Full {
                reason: reason.clone(),
            },
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(code, message)) => {
                StoreError::Sqlite(rusqlite::Error::SqliteFailure(*code, message.clone()))
            }
            StoreError::Corrupt { message } => StoreError::Corrupt {
                message: message.clone(),
            },
            StoreError::Failed { message } => StoreError::Failed {
                message: message.clone(),
            },
            other => StoreError::Failed {
                message: other.to_string(),
            },
        }
    }

    /// Whether the error is the caller's (a 4xx) rather than the store's (a 5xx).
    #[must_use]
    pub fn is_client_error(&self) -> bool {
        !matches!(
            self,
            StoreError::Sqlite(_)
                | StoreError::Full { .. }
                | StoreError::Failed { .. }
                | StoreError::Postgres(_)
                | StoreError::Unavailable { .. }
                | StoreError::ReadOnly { .. }
                | StoreError::InUse { .. }
                | StoreError::Unwritable { .. }
                | StoreError::Corrupt { .. }
                | StoreError::NotReady { .. }
        )
    }
}

/// The most characters of a client's input that an error message repeats.
pub const QUOTE_CHARS: usize = 64;

/// `text` quoted as a Rust string literal and cut after [`QUOTE_CHARS`] characters (its
/// length in bytes is said then): what an error message repeats of a client's input, so
/// that a 900 KB match id is not sent back whole.
#[must_use]
pub fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        None => format!("{text:?}"),
        Some((end, _)) => format!("{:?}… ({} bytes)", &text[..end], text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_bounded() {
        assert_eq!(quote("g1"), "\"g1\"");
        let long = "x".repeat(900_000);
        let q = quote(&long);
        assert_eq!(
            q,
            format!("\"{}\"… (900000 bytes)", "x".repeat(QUOTE_CHARS))
        );
        let e = StoreError::Conflict { key: long };
        assert!(e.to_string().len() < 200, "{e}");
        // Cut at a character, not inside one.
        let wide = "é".repeat(100);
        assert!(quote(&wide).starts_with(&format!("\"{}\"…", "é".repeat(QUOTE_CHARS))));
    }
}
