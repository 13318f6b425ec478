//! Error types of the library. Every variant carries the fields that say *which*
//! player, team or parameter was wrong, so that callers can point at the input.

use crate::factor::{MAX_FACTORS, MAX_KIND_LEN, MAX_VALUE_LEN};
use crate::model::{Finish, MAX_ID_LEN};

/// A number as a person reads it: plainly, or in scientific notation when it is huge or
/// tiny (1e155, not 156 digits).
pub(crate) fn readable(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-6..1e15).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// `n` things, in the singular for one: `count(1, "rating")` is "1 rating".
fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// A text as a message quotes it: whole when short, else its start and its length (an id
/// of half a megabyte is not repeated in full).
pub(crate) fn shown(s: &str) -> String {
    const SHOWN: usize = 60;
    match s.char_indices().nth(SHOWN) {
        Some((at, _)) if s.len() > 2 * SHOWN => format!("{:?}… ({} bytes)", &s[..at], s.len()),
        _ => format!("{s:?}"),
    }
}

/// A match that cannot exist: rejected when it is built, before any rating sees it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MatchError {
    /// A match needs at least two entries (players or teams).
    #[error("a match needs at least 2 entries, found {found}")]
    TooFewEntries {
        /// How many entries the match had.
        found: usize,
    },
    /// The same player appears twice in one match.
    #[error("player {player:?} appears more than once in the match")]
    DuplicatePlayer {
        /// The repeated player id.
        player: String,
    },
    /// A team without members.
    #[error("team {team:?} has no players")]
    EmptyTeam {
        /// The team's name.
        team: String,
    },
    /// Members of one team were given different finishes. The message names the members
    /// whose finish differs from the one most of the team was given, or, when no finish
    /// was given to more members than every other, lists each finish with its members.
    #[error("{}", crate::model::team_mismatch_message(team, finishes))]
    TeamFinishMismatch {
        /// The team's name.
        team: String,
        /// The first member whose finish differs from the team's: from the one most of
        /// its members were given, or on a tie, from its first member's.
        player: String,
        /// Each finish the team's members were given, in the order first given, with the
        /// members given it (those of the match's rows read so far, when the error comes
        /// from [`crate::MatchBuilder::row`]).
        finishes: Vec<(Finish, Vec<String>)>,
    },
    /// A rank or score that is NaN or infinite.
    #[error("player {player:?}: finish {value} is not a finite number")]
    NonFiniteFinish {
        /// The player whose finish is bad.
        player: String,
        /// The value given.
        value: f64,
    },
    /// Some entries give a rank and others a score.
    #[error("player {player:?} has a {found} but earlier entries of the match have a {expected}; use one of rank or score per match")]
    MixedFinishKinds {
        /// The player whose finish kind differs.
        player: String,
        /// `"rank"` or `"score"`: the kind of the earlier entries.
        expected: &'static str,
        /// The kind this player was given.
        found: &'static str,
    },
    /// A partial-play weight outside `1e-9 ≤ w ≤ 1` ([`crate::model::MIN_WEIGHT`]).
    #[error("player {player:?}: weight {} must be in [1e-9, 1], the share of the match played", readable(*weight))]
    InvalidWeight {
        /// The player whose weight is bad.
        player: String,
        /// The weight given.
        weight: f64,
    },
    /// Places that do not rank the players of a free-for-all (see
    /// [`crate::League::apply_ranked`]).
    #[error("places {places:?} do not rank {players} players: the first place is 1 and each next is the one before it (a tie) or its own position")]
    InvalidPlaces {
        /// Number of players given.
        players: usize,
        /// The places given.
        places: Vec<usize>,
    },
    /// A player id that is not valid: empty, longer than [`MAX_ID_LEN`] bytes, with
    /// surrounding white space or a control character (see [`crate::model::check_id`]).
    #[error("player id {} is not valid, expected 1 to {MAX_ID_LEN} bytes without surrounding spaces or control characters", shown(player))]
    InvalidPlayerId {
        /// The id given.
        player: String,
    },
    /// A team name that is not valid, by the rules of a player id.
    #[error("team name {} is not valid, expected 1 to {MAX_ID_LEN} bytes without surrounding spaces or control characters", shown(team))]
    InvalidTeamName {
        /// The name given.
        team: String,
    },
    /// A match id longer than [`MAX_ID_LEN`] bytes, or with surrounding white space or a
    /// control character (a match may have no id: the empty id).
    #[error("match id {} is not valid, expected at most {MAX_ID_LEN} bytes without surrounding spaces or control characters", shown(id))]
    InvalidMatchId {
        /// The id given.
        id: String,
    },
    /// Two entries of one match under one team name: a team is one entry, its players
    /// given together.
    #[error(
        "team name {} is given to two entries; a team is one entry, with all its players",
        shown(team)
    )]
    DuplicateTeam {
        /// The team name.
        team: String,
    },
    /// A factor given to a match builder before any entry, which it could belong to.
    #[error(
        "factor {}={} is given before any player or team; give it after the entry it belongs to",
        shown(kind),
        shown(value)
    )]
    FactorWithoutEntry {
        /// The factor's kind.
        kind: String,
        /// The factor's value.
        value: String,
    },
    /// A factor of an entry that is not valid (see [`FactorError`]).
    #[error("player {}: {source}", shown(player))]
    InvalidFactor {
        /// The entry's (first) player.
        player: String,
        /// What is wrong with the factor (boxed: a match error stays small).
        source: Box<FactorError>,
    },
    /// One entry was given two values of one factor kind (two rows of a team that
    /// disagree, or one entry with `car=x` and `car=y`).
    #[error("player {player:?} gives {found}, but their entry already has {expected}; an entry (a player alone, or a team) has one value of each factor kind")]
    FactorMismatch {
        /// The player whose row disagrees.
        player: String,
        /// The factor the entry had, as `kind=value`.
        expected: String,
        /// The other value given, as `kind=value`.
        found: String,
    },
}

/// A factor kind or value that is not valid, or too many factors on one entry: the rules
/// of [`crate::factor::check_kind`], [`crate::factor::check_value`] and
/// [`crate::factor::value_of`], which every reader of matches applies.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FactorError {
    /// A kind that is empty, longer than [`MAX_KIND_LEN`] bytes, or has surrounding white
    /// space, a control character or `=`.
    #[error("factor kind {} is not valid, expected {}", shown(kind), self.expected())]
    InvalidKind {
        /// The kind given.
        kind: String,
    },
    /// A kind named like a column or field that podium reads itself (in any case): a
    /// file could not carry it, nor be read back.
    #[error("factor kind {} is not valid, expected {}", shown(kind), self.expected())]
    ReservedKind {
        /// The kind given.
        kind: String,
    },
    /// A value that is empty, longer than [`MAX_VALUE_LEN`] bytes, or has surrounding
    /// white space or a control character.
    #[error("factor {}: value {} is not valid, expected {}", shown(kind), shown(value), self.expected())]
    InvalidValue {
        /// The factor's kind.
        kind: String,
        /// The value given.
        value: String,
    },
    /// A value given as something other than a string or a whole number that converts
    /// exactly (a boolean, null, a fraction, a number beyond 64 bits, a list).
    #[error("factor {}: {found} is not valid, expected {}", shown(kind), self.expected())]
    NotAValue {
        /// The factor's kind.
        kind: String,
        /// What was given, as written.
        found: String,
    },
    /// More factor kinds on one entry than [`MAX_FACTORS`].
    #[error("{count} factor kinds given, expected {}", self.expected())]
    TooMany {
        /// How many kinds were given.
        count: usize,
    },
    /// One entry given the same factor (kind and value) twice.
    #[error("factor {} given twice, expected {}", shown(kind), self.expected())]
    Repeated {
        /// The kind.
        kind: String,
        /// The value, given twice.
        value: String,
    },
}

impl FactorError {
    /// What the rule broken accepts, in the words every front end uses (a reader's
    /// "field … is not valid, expected …").
    #[must_use]
    pub fn expected(&self) -> String {
        match self {
            FactorError::InvalidKind { .. } => format!(
                "a factor kind of 1 to {MAX_KIND_LEN} bytes without surrounding spaces, control characters or '='"
            ),
            FactorError::ReservedKind { .. } => format!(
                "a factor kind that is not the name of a column or field podium reads itself ({}, in any case)",
                crate::factor::RESERVED_KINDS.join(", ")
            ),
            FactorError::InvalidValue { .. } | FactorError::NotAValue { .. } => format!(
                "a factor value: a string of 1 to {MAX_VALUE_LEN} bytes without surrounding spaces or control characters, or a whole number from {} to {}",
                i64::MIN,
                u64::MAX
            ),
            FactorError::TooMany { .. } => format!("at most {MAX_FACTORS} factor kinds per entry"),
            FactorError::Repeated { .. } => "each factor kind once per entry".to_string(),
        }
    }

    /// The text at fault: the kind, the value, or what was given instead of a value.
    #[must_use]
    pub fn given(&self) -> String {
        match self {
            FactorError::InvalidKind { kind } | FactorError::ReservedKind { kind } => kind.clone(),
            FactorError::InvalidValue { value, .. } => value.clone(),
            FactorError::NotAValue { found, .. } => found.clone(),
            FactorError::TooMany { count } => count.to_string(),
            FactorError::Repeated { kind, value } => format!("{kind}={value}"),
        }
    }
}

impl From<crate::limits::LimitError> for RateError {
    fn from(source: crate::limits::LimitError) -> Self {
        RateError::Limit {
            source: Box::new(source),
        }
    }
}

/// A match that a rating system cannot rate, or ratings it cannot use.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RateError {
    /// The system rates only matches of a given number of entries (e.g. `elo`: 2).
    #[error("system {system} rates matches of exactly {expected} entries, this one has {found}")]
    WrongEntryCount {
        /// The system's name.
        system: &'static str,
        /// The number of entries it accepts.
        expected: usize,
        /// The number of entries of the match.
        found: usize,
    },
    /// A rating that is NaN or infinite.
    #[error("player {player:?} has a rating of {rating}, which is not a finite number")]
    NonFiniteRating {
        /// The player.
        player: String,
        /// The rating.
        rating: f64,
    },
    /// The update would leave a player with a rating or σ that is not a finite number, or
    /// outside the range the system can rate: the model diverged on this history (e.g. a
    /// full-pair Weng-Lin model on contests of thousands, whose updates sum thousands of
    /// pairs; Glicko with an underdog who beats thousands).
    #[error("system {system} diverged: player {player:?} would get a rating of {}{}; nothing of this match was applied", readable(*rating), sigma.map_or(String::new(), |s| format!(" and a σ of {}", readable(s))))]
    Diverged {
        /// The system's name.
        system: &'static str,
        /// The player.
        player: String,
        /// The rating the update produced.
        rating: f64,
        /// The σ the update produced, for systems that keep one.
        sigma: Option<f64>,
    },
    /// A rating or σ outside the range where the system's arithmetic holds (a σ so large
    /// that its square overflows, a σ that is not positive for a system that divides by
    /// it).
    #[error("player {player:?}: {what} {} is outside the range system {system} can rate ({allowed})", readable(*value))]
    RatingOutOfRange {
        /// The system's name.
        system: &'static str,
        /// The player.
        player: String,
        /// `"rating"` or `"sigma"`.
        what: &'static str,
        /// The value given.
        value: f64,
        /// The range the system accepts, in words.
        allowed: String,
    },
    /// The system needs positive ratings (e.g. `proportional`).
    #[error("system {system} needs positive ratings, but player {player:?} has {rating}")]
    NonPositiveRating {
        /// The system's name.
        system: &'static str,
        /// The player.
        player: String,
        /// The rating.
        rating: f64,
    },
    /// The match itself is not valid (from [`crate::League::apply_ranked`], which takes a
    /// match as places and players instead of a built [`crate::Match`]).
    #[error("{source}")]
    InvalidMatch {
        /// What is wrong with the match.
        #[from]
        source: MatchError,
    },
    /// A request beyond one of the [`crate::limits`] (a prediction of more than
    /// [`crate::limits::MAX_PREDICT_ENTRIES`] entries), refused before anything is
    /// allocated.
    #[error("{source}")]
    Limit {
        /// Which limit, and what was asked for (boxed: a rate error stays small).
        source: Box<crate::limits::LimitError>,
    },
    /// The match's entries carry factors ([`crate::factor`]), and the system cannot rate
    /// them.
    #[error("system {system} does not rate factors (car, seat, faction); every podium system but proportional and ttt does")]
    FactorsUnsupported {
        /// The system's name.
        system: &'static str,
    },
    /// The ratings given do not match the match's players one to one.
    #[error("{} given for a match of {}", count(*found, "rating"), count(*expected, "player"))]
    RatingCountMismatch {
        /// Players in the match.
        expected: usize,
        /// Ratings given.
        found: usize,
    },
    /// The factor ratings given (or a system's factor changes) do not match the match's
    /// factors ([`crate::Match::factors`]) one to one.
    #[error("{} given for a match with {}", count(*found, "factor rating"), count(*expected, "factor"))]
    FactorCountMismatch {
        /// Factors of the match that tell its entries apart.
        expected: usize,
        /// Factor ratings given.
        found: usize,
    },
}

/// A system name or parameter that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// No system of that name is registered.
    #[error("unknown system {name:?}; known systems: {known}")]
    UnknownSystem {
        /// The name asked for.
        name: String,
        /// The registered names, comma separated.
        known: String,
    },
    /// The system has no parameter of that name.
    #[error("system {system} has no parameter {param:?}; its parameters: {known}")]
    UnknownParam {
        /// The system's name.
        system: &'static str,
        /// The parameter asked for.
        param: String,
        /// The system's parameters, comma separated.
        known: String,
    },
    /// A value that does not parse or is out of range.
    #[error("parameter {param}: {value:?} is not valid, expected {expected}")]
    InvalidValue {
        /// The parameter.
        param: String,
        /// The value given.
        value: String,
        /// What the parameter accepts.
        expected: String,
    },
    /// A `key=value` setting without `=`.
    #[error("setting {setting:?} is not of the form key=value")]
    MalformedSetting {
        /// The setting as given.
        setting: String,
    },
    /// A parameter given twice in one list of settings.
    #[error("setting {key} is given twice ({first}, then {second}): give it once")]
    RepeatedSetting {
        /// The key, as given first.
        key: String,
        /// The first setting, `key=value` as given.
        first: String,
        /// The second setting of the same key, `key=value` as given.
        second: String,
    },
    /// Parameters that are valid one by one but not together.
    #[error("system {system}: {rule}")]
    Inconsistent {
        /// The system's name.
        system: &'static str,
        /// The rule broken, naming the parameters and their values.
        rule: String,
    },
}

#[cfg(test)]
mod tests {
    use super::{shown, RateError};

    #[test]
    fn long_texts_are_shown_by_their_start_and_length() {
        assert_eq!(shown("ann"), "\"ann\"");
        let long = "x".repeat(500_000);
        assert_eq!(
            shown(&long),
            format!("{:?}… (500000 bytes)", "x".repeat(60))
        );
    }

    #[test]
    fn counts_read_in_the_singular_for_one() {
        let e = RateError::RatingCountMismatch {
            expected: 2,
            found: 1,
        };
        assert_eq!(e.to_string(), "1 rating given for a match of 2 players");
        let e = RateError::FactorCountMismatch {
            expected: 1,
            found: 0,
        };
        assert_eq!(
            e.to_string(),
            "0 factor ratings given for a match with 1 factor"
        );
    }
}
