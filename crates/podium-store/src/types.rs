//! The values a store takes and returns.

use std::sync::Arc;

use podium::{Factor, FactorRecord, Param, PlayerChange, Settings};
use serde::{Deserialize, Serialize};

use crate::body::{LedgerMatch, LedgerResult};
use crate::error::StoreError;

/// A league's id.
pub type LeagueId = i64;

/// Where a match stands in the order a league is rated in: by time when matches have
/// times (as `podium rate` does), then by ledger position. `None` (no time) sorts first;
/// a league's rated matches all have a time or none does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Position {
    /// When the match was played (Unix seconds), if known.
    pub time: Option<i64>,
    /// Its place in the ledger.
    pub seq: i64,
}

/// How far a league's ledger goes: what a copy of its ratings must have seen to be
/// current.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Head {
    /// The last ledger position used (matches are numbered 1, 2, … without gaps).
    pub last_seq: i64,
    /// The last entry of the league's log of corrections, voids and reconfigurations
    /// (0 for none).
    pub last_change: i64,
}

/// A league as its row in the store holds it.
#[derive(Debug, Clone)]
pub struct LeagueRow {
    /// The id.
    pub id: LeagueId,
    /// The name.
    pub name: String,
    /// The system's name.
    pub system: String,
    /// The parameters set over the system's defaults.
    pub config: Settings,
    /// SHA-256 of the admin token.
    pub token_hash: String,
    /// How far its ledger goes.
    pub head: Head,
}

/// A league's ratings kept in the store, so that a restart rates only the matches after
/// them ([`crate::Store::snapshot`]): the league after its first `count` rated matches,
/// taken when its ledger went as far as `head`.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotRow {
    /// The league.
    pub league: LeagueId,
    /// How far the ledger went when it was taken: it holds only while no change has been
    /// logged since (`head.last_change`) and no match entered since goes before its last.
    pub head: Head,
    /// How many rated matches it covers.
    pub count: i64,
    /// Where the last of them stands (`None` for none).
    pub last: Option<Position>,
    /// How many of the league's season starts it had crossed.
    pub season: i64,
    /// The system it was rated with.
    pub system: String,
    /// That system's config.
    pub config: Settings,
    /// The league, `podium`'s saved league ([`podium::League::save`]) packed: a tag,
    /// then zstd-compressed MessagePack, about a third of the bytes of its JSON and
    /// faster to read.
    pub packed: Vec<u8>,
}

/// One entry of a league's log of changes to past matches and to its configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeLog {
    /// Its number (increasing in the order changes were committed).
    pub id: i64,
    /// What was done.
    pub action: ChangeAction,
    /// Where the changed match stands now, if it is rated (not voided).
    pub now: Option<Position>,
}

/// What a [`ChangeLog`] entry did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeAction {
    /// A match voided.
    Void {
        /// The match id.
        key: String,
    },
    /// A match's results replaced.
    Correct {
        /// The match id.
        key: String,
    },
    /// The league's name, system or config changed.
    Configure,
    /// A new season started ([`SeasonRow`]).
    Season,
}

/// A season of a league after its first: where it starts and how. The first season
/// (number 1) starts with the league and is not stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeasonRow {
    /// 2, 3, … in the order seasons were started.
    pub number: i64,
    /// Its name, unique in the league.
    pub name: String,
    /// Where it starts: every match at this position or later belongs to it (or to a
    /// later season). The time is when it was started, in a league whose matches have
    /// times (`None` otherwise); the ledger position is the next one then.
    pub start: Position,
    /// How the league's ratings start the season.
    pub reset: podium::season::Reset,
    /// When it was started (RFC 3339), as the store recorded it.
    pub created_at: String,
}

/// A season as the API lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeasonInfo {
    /// 1 for the first season (which starts with the league), then 2, 3, …
    pub number: i64,
    /// Its name (the first is `Season 1`).
    pub name: String,
    /// The ledger position it starts at: its matches are those from there on (by date
    /// in a league of dated matches), up to the next season's start.
    pub start_seq: i64,
    /// When it started, in a league of dated matches (matches dated from then on belong
    /// to it).
    pub start_time: Option<String>,
    /// How it started (`None` for the first).
    pub reset: Option<podium::season::Reset>,
    /// When it was started, as the store recorded it (`None` for the first).
    pub created_at: Option<String>,
    /// Its rated matches.
    pub matches: usize,
    /// Whether it is the current season.
    pub current: bool,
}

/// A league to create.
#[derive(Debug, Clone)]
pub struct NewLeague {
    /// Shown on the pages.
    pub name: String,
    /// A registered system name (see [`podium::systems()`]).
    pub system: String,
    /// `key=value` parameters over the system's defaults.
    pub config: Settings,
}

/// A league as stored.
#[derive(Debug, Clone, Serialize)]
pub struct LeagueInfo {
    /// The id.
    pub id: LeagueId,
    /// The name.
    pub name: String,
    /// The system's name.
    pub system: String,
    /// The parameters set over the system's defaults, as given.
    pub config: Settings,
    /// Every parameter of the system with the value in force.
    pub params: Vec<ParamRow>,
    /// Whether the system keeps an uncertainty σ.
    pub has_sigma: bool,
    /// Whether a change's `expected` and `actual` are performances on the rating scale
    /// (the Elo-MMR family), rather than scores from 0 (behind everyone) to 1 (ahead of
    /// everyone).
    pub performances: bool,
    /// What the system learned from every match rather than of one player (kalman-mmr:
    /// the filter in use, the calibration, the newcomer prior); empty for a system that
    /// learns nothing, and while the league is loaded.
    pub learned: Vec<podium::Described>,
    /// Rated (not voided) matches.
    pub matches: usize,
    /// Players who have played.
    pub players: usize,
    /// Whether the league's ratings are loaded (until then `matches` and `players` are 0
    /// and the league's other calls answer "not ready"; a league restored from saved
    /// ratings has its counts and serves its board while its whole ledger is rated).
    pub ready: bool,
}

/// One parameter in force.
#[derive(Debug, Clone, Serialize)]
pub struct ParamRow {
    /// Its name.
    pub name: String,
    /// Its value as text.
    pub value: String,
    /// What it does.
    pub doc: String,
}

impl ParamRow {
    pub(crate) fn from_param(p: &Param) -> Self {
        ParamRow {
            name: p.name.to_string(),
            value: p.value.to_string(),
            doc: p.doc.to_string(),
        }
    }
}

/// A match submitted to a league: one match in the JSON Lines form of match files
/// (`docs/datasets.md`), whose id is optional, each row with its entry's factors if any
/// (`"factors": {"car": "ferrari"}`, see [`LedgerResult`]).
/// The id may be given as `"match"` (as in files) or `"id"` (a client's id for retries),
/// or both if they agree; the store assigns one when neither is given.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    /// The match id as files carry it.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    /// The client's id of the match: retries with the same id are recognised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// RFC 3339 time or `YYYY-MM-DD` date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// One result per player, each with its entry's factors if any.
    pub results: Vec<LedgerResult>,
}

impl Submission {
    /// The match id given, if any.
    ///
    /// # Errors
    /// [`StoreError::InvalidMatch`] when `match` and `id` are both given and differ.
    pub fn key(&self) -> Result<Option<&str>, StoreError> {
        match (&self.match_id, &self.id) {
            (Some(m), Some(i)) if m != i => Err(StoreError::InvalidMatch {
                message: format!(
                    "the match id is given twice, as \"match\": {m:?} and \"id\": {i:?}; give it once"
                ),
            }),
            (Some(k), _) | (None, Some(k)) => Ok(Some(k)),
            (None, None) => Ok(None),
        }
    }

    /// The submission as a ledger match with the given id.
    #[must_use]
    pub fn to_json(&self, key: &str) -> LedgerMatch {
        LedgerMatch {
            id: key.to_string(),
            time: self.time.clone(),
            results: self.results.clone(),
        }
    }
}

/// One match of the ledger.
#[derive(Debug, Clone, Serialize)]
pub struct LedgerEntry {
    /// Position in the order matches were entered (1-based, per league).
    pub seq: i64,
    /// The match id.
    pub key: String,
    /// When it was played (Unix seconds), if known.
    pub time: Option<i64>,
    /// The match as the ledger keeps it (normalised: entries best first, each row with
    /// its entry's factors).
    pub json: LedgerMatch,
    /// SHA-256 of the normalised content (id left out), to recognise retries.
    pub hash: String,
    /// Whether the match was voided.
    pub voided: bool,
}

impl LedgerEntry {
    /// Where the match stands in rating order.
    #[must_use]
    pub fn position(&self) -> Position {
        Position {
            time: self.time,
            seq: self.seq,
        }
    }
}

/// Whether a submission was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SubmitStatus {
    /// A new match, now in the ledger.
    Created,
    /// A retry of a match already in the ledger with the same content: nothing stored.
    Duplicate,
    /// An existing match's results were replaced.
    Corrected,
    /// A correction with the content the match has already: nothing changed, nothing
    /// rated again.
    Unchanged,
}

/// One player's rating change in one match.
#[derive(Debug, Clone, Serialize)]
pub struct ChangeRow {
    /// The player.
    pub player: String,
    /// The player's (or team's) place, 1 = best; tied entries share a place.
    pub place: usize,
    /// Rating before.
    pub before: f64,
    /// Rating after.
    pub after: f64,
    /// `after − before`.
    pub delta: f64,
    /// The score the system expected.
    pub expected: f64,
    /// The score achieved.
    pub actual: f64,
    /// The step size, for systems that have one.
    pub k: Option<f64>,
    /// The share of the match played.
    pub weight: f64,
    /// σ before, for systems with uncertainty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma_before: Option<f64>,
    /// σ after, for systems with uncertainty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma_after: Option<f64>,
    /// Rated games after this match.
    pub games: u32,
}

impl ChangeRow {
    pub(crate) fn new(player: &str, place: usize, c: &PlayerChange) -> Self {
        ChangeRow {
            player: player.to_string(),
            place,
            before: c.before.value,
            after: c.after.value,
            delta: c.delta(),
            expected: c.expected,
            actual: c.actual,
            k: c.k,
            weight: c.weight,
            sigma_before: c.before.sigma,
            sigma_after: c.after.sigma,
            games: c.after.games,
        }
    }
}

/// One factor's rating change in one match.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FactorChange {
    /// The factor's kind (`car`).
    pub kind: String,
    /// Its value (`ferrari`).
    pub value: String,
    /// Rating before.
    pub before: f64,
    /// Rating after.
    pub after: f64,
    /// `after − before`.
    pub delta: f64,
    /// σ before, for systems with uncertainty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma_before: Option<f64>,
    /// σ after, for systems with uncertainty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma_after: Option<f64>,
}

impl FactorChange {
    pub(crate) fn new(factor: &Factor, c: &PlayerChange) -> Self {
        FactorChange {
            kind: factor.kind.clone(),
            value: factor.value.clone(),
            before: c.before.value,
            after: c.after.value,
            delta: c.delta(),
            sigma_before: c.before.sigma,
            sigma_after: c.after.sigma,
        }
    }
}

/// One row of a league's factors' table: what a car, a seat or a faction adds to an
/// entry's strength, and how its entries did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FactorRow {
    /// The factor's kind (`car`).
    pub kind: String,
    /// Its value (`ferrari`).
    pub value: String,
    /// Its rating: what it adds to the strength of an entry that carries it (0 at the
    /// start).
    pub rating: f64,
    /// The uncertainty σ, for systems that keep one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    /// Rated matches where it told entries apart.
    pub matches: u32,
    /// Those of them that an entry carrying it won (a tie for first among k entries
    /// counts 1/k).
    pub wins: f64,
    /// Win percentage.
    pub win_pct: f64,
    /// An average entry's win percentage in the same matches.
    pub expected_win_pct: f64,
}

impl FactorRow {
    pub(crate) fn new(f: &FactorRecord, has_sigma: bool) -> Self {
        FactorRow {
            kind: f.factor.kind.clone(),
            value: f.factor.value.clone(),
            rating: f.rating.value,
            sigma: if has_sigma { f.rating.sigma } else { None },
            matches: f.stats.games,
            wins: f.stats.wins,
            win_pct: f.stats.win_pct(),
            expected_win_pct: f.stats.expected_win_pct(),
        }
    }
}

/// What an append or correction did.
#[derive(Debug, Clone, Serialize)]
pub struct Appended {
    /// Stored, a retry, or corrected.
    pub status: SubmitStatus,
    /// The match as in the ledger.
    pub entry: LedgerEntry,
    /// Each player's change in this match (as rated now).
    pub changes: Vec<ChangeRow>,
    /// Each factor's change in this match (as rated now); empty without factors.
    pub factor_changes: Vec<FactorChange>,
    /// Whether the league was recomputed from its ledger (rather than updated in place).
    pub recomputed: bool,
}

/// One row of a leaderboard.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BoardRow {
    /// 1-based position.
    pub position: usize,
    /// The player.
    pub player: String,
    /// The rating, at full precision.
    pub rating: f64,
    /// The uncertainty σ, for systems that keep one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    /// Rated games.
    pub games: u32,
    /// Wins (a tie for first among k entries counts 1/k).
    pub wins: f64,
    /// Mean number of entries of the player's matches.
    pub avg_size: f64,
    /// Win percentage.
    pub win_pct: f64,
    /// An average player's win percentage in the same matches.
    pub expected_win_pct: f64,
    /// `win_pct − expected_win_pct`.
    pub net_pct: f64,
    /// Time of the last dated match played (RFC 3339); `None` (`null`) when the
    /// player has played no dated match.
    pub last_played: Option<String>,
    /// Whether the rating is still provisional.
    pub provisional: bool,
}

/// The whole leaderboard as a JSON array of [`BoardRow`]s, with its version.
#[derive(Debug, Clone)]
pub struct BoardJson {
    /// The JSON, exactly `serde_json::to_vec` of the board's rows.
    pub json: Arc<Vec<u8>>,
    /// Number of rows (players) in the array.
    pub rows: usize,
    /// Differs between any two boards a process serves, of one league or of several
    /// (also across a recompute), and stays the same while the board does: a tag for
    /// HTTP caching.
    pub version: u64,
}

/// One match in a player's history.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryRow {
    /// The match id.
    #[serde(rename = "match")]
    pub key: String,
    /// Position of the match in the ledger.
    pub seq: i64,
    /// When it was played, if known (RFC 3339 or date).
    pub time: Option<String>,
    /// Entries in the match.
    pub entries: usize,
    /// The player's change, with the breakdown.
    #[serde(flatten)]
    pub change: ChangeRow,
    /// The factors the player's entry carried (the car, the seat), each with its change
    /// in that match; left out when it carried none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub factors: Vec<FactorChange>,
}

/// A player's standing and history.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerHistory {
    /// The player's leaderboard row.
    #[serde(flatten)]
    pub standing: BoardRow,
    /// Every rated match of the player, in rating order.
    pub history: Vec<HistoryRow>,
    /// The seasons that started after the player's first match, in order, each with the
    /// player's rating just after its reset.
    pub seasons: Vec<SeasonReset>,
}

/// A season that started after a player's first match: where it falls among their
/// matches and their rating just after its reset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeasonReset {
    /// The season's number (2, 3, …).
    pub number: i64,
    /// Its name.
    pub name: String,
    /// The ledger position it starts at.
    pub start_seq: i64,
    /// When it started, in a league of dated matches.
    pub start_time: Option<String>,
    /// How the ratings started it.
    pub reset: podium::season::Reset,
    /// How many of the player's matches (of [`PlayerHistory::history`]) come before it.
    pub games_before: usize,
    /// The player's rating just after the reset.
    pub rating: f64,
    /// Its σ, for systems that keep one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
}
