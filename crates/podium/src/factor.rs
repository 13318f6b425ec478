//! Factors: what else than its players decides an entry's result — the car, the seat,
//! the faction, the side of the map.
//!
//! Every rating system assumes that two players of equal skill have an equal chance;
//! Elo named this as a restriction of his system (A. Elo, *The Rating of Chessplayers,
//! Past and Present*, 1978) and it is false in most games: in Formula 1 the car decides
//! as much as the driver, in board games the first seat or a faction wins more often.
//! An entry may carry **factors**, each a named kind and value (`car=ferrari`,
//! `seat=1`, `faction=elves`), at most one value of each kind. An entry's strength is
//! then its players' rating plus the ratings of its factors, and a factor is rated from
//! the results like a player: it is shared between entries of one match (two drivers of
//! one constructor) and across matches, and keeps its own uncertainty where the system
//! keeps one.
//!
//! - Factors live in their own namespace: a factor value that is also a player's name
//!   (a team named after its owner) is a different thing.
//! - A factor that every entry of a match carries adds the same to every strength, so it
//!   says nothing about the order: the match is rated as if it were not there
//!   ([`Match::factors`] leaves it out).
//! - A factor starts at 0 ([`RatingSystem::initial_factor`]): no advantage until the
//!   results show one.
//!
//! Which systems rate factors, and how ([`Capabilities::rates_factors`]):
//!
//! | systems | a factor's part of the strength | its update |
//! |---|---|---|
//! | the Elo family (`elo`, `pairwise`, `shares`, `sme`, `mes`, `whitewhale`) | added to the entry's rating | `K · (S − E)`, the mean over the entries that carry it |
//! | `glicko`, `glicko2` | added to the entry's rating, its RD² to the entry's as an opponent (`factor_rd`) | Glickman's update of a player who plays every game of the entries that carry it |
//! | `trueskill` | one more member of the entry's team, without performance noise (`factor_sigma`, `factor_tau`) | the member's update; copies on several entries pooled |
//! | the Weng-Lin family | one more member of the entry's team (its prior σ a newcomer's) | the member's update; copies on several entries pooled |
//! | `elo-mmr`, `elo-mmx` | added to the entry's term, its variance to the term's (`factor_sigma`); each player reads the entry's performance less the factors | a Gaussian update of its own belief from the performance of every entry that carries it |
//! | `kalman-mmr` | added to the entry's mean skill, its variance to the entry's (`factor_sigma`, `factor_tau`) | the batch Kalman update of its own belief from every entry that carries it |
//!
//! `proportional`, whose ratings are shares of a total, refuses a match whose entries
//! carry factors ([`RateError::FactorsUnsupported`]).
//!
//! ```
//! use podium::{Finish, League, Match};
//! let mut league = League::new(podium::system("pairwise", &podium::Settings::new()).unwrap());
//! let race = Match::builder("r1")
//!     .player("ann", Finish::Rank(1.0)).factor("car", "red")
//!     .player("bo", Finish::Rank(2.0)).factor("car", "blue")
//!     .build()
//!     .unwrap();
//! league.apply(&race).unwrap();
//! let cars = league.factor_standings();
//! assert_eq!(cars[0].factor.to_string(), "car=red");
//! assert!(cars[0].rating.value > 0.0 && cars[1].rating.value < 0.0);
//! ```
//!
//! [`RatingSystem::initial_factor`]: crate::RatingSystem::initial_factor
//! [`Capabilities::rates_factors`]: crate::system::Capabilities::rates_factors

use std::collections::HashMap;
use std::fmt;

use crate::error::{FactorError, MatchError, RateError};
use crate::model::{Entry, Match};
use crate::rating::{PlayerChange, Rating};
use crate::state::{Rated, State};
use crate::system::{Prior, RatingSystem};

/// A factor of an entry: a kind (`car`) and a value (`ferrari`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Factor {
    /// What kind of factor: `car`, `seat`, `faction`.
    pub kind: String,
    /// Which one of its kind: `ferrari`, `1`, `elves`.
    pub value: String,
}

impl Factor {
    /// The factor `kind=value`.
    pub fn new(kind: impl Into<String>, value: impl Into<String>) -> Self {
        Factor {
            kind: kind.into(),
            value: value.into(),
        }
    }
}

impl fmt::Display for Factor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.kind, self.value)
    }
}

/// A factor of a match with the entries that carry it (indices, best first).
#[derive(Debug, Clone, PartialEq)]
pub struct MatchFactor {
    /// The factor.
    pub factor: Factor,
    /// The entries that carry it, as indices into [`Match::entries`].
    pub entries: Vec<usize>,
}

/// What a system gives for a match whose entries carry factors: the players' changes and
/// states as [`RatingSystem::rate`] gives them, and one change per factor
/// of [`Match::factors`], in that order.
#[derive(Debug, Clone)]
pub struct Factored {
    /// The players' changes, states and what the system learned.
    pub rated: Rated,
    /// Each factor's change, in [`Match::factors`] order.
    pub factors: Vec<PlayerChange>,
}

/// The most factor kinds one entry may carry.
pub const MAX_FACTORS: usize = 16;
/// The longest factor kind, in bytes.
pub const MAX_KIND_LEN: usize = 64;
/// The longest factor value, in bytes.
pub const MAX_VALUE_LEN: usize = 200;

/// The names no factor kind may have, compared without regard to case: every column of
/// the long CSV and every field of a JSON Lines match, of its results and of the server's
/// match bodies. A file carries a factor as a column or field named by its kind, so a
/// kind named like one of these could not be written or read back.
pub const RESERVED_KINDS: [&str; 10] = [
    "match", "id", "time", "results", "player", "rank", "score", "team", "weight", "factors",
];

/// Whether `s` holds a control character (`char::is_control`: C0, DEL, C1): one pass
/// over its bytes for the usual printable ASCII, the characters otherwise.
pub(crate) fn has_control(s: &str) -> bool {
    !s.bytes().all(|b| (0x20..0x7f).contains(&b)) && s.chars().any(char::is_control)
}

/// Whether `s` is 1 to `max` bytes without surrounding white space or control characters.
fn plain_text(s: &str, max: usize) -> bool {
    !s.is_empty() && s.len() <= max && s.trim() == s && !has_control(s)
}

/// Checks a factor kind: 1 to [`MAX_KIND_LEN`] bytes without surrounding white space,
/// control characters or `=`, and none of [`RESERVED_KINDS`] in any case.
///
/// ```
/// use podium::factor::check_kind;
/// assert!(check_kind("car").is_ok());
/// assert!(check_kind("Team").is_err()); // a column of its own
/// assert!(check_kind("a=b").is_err());
/// ```
///
/// # Errors
/// [`FactorError::InvalidKind`] or [`FactorError::ReservedKind`].
pub fn check_kind(kind: &str) -> Result<(), FactorError> {
    if !plain_text(kind, MAX_KIND_LEN) || kind.contains('=') {
        return Err(FactorError::InvalidKind {
            kind: kind.to_string(),
        });
    }
    if RESERVED_KINDS.iter().any(|r| r.eq_ignore_ascii_case(kind)) {
        return Err(FactorError::ReservedKind {
            kind: kind.to_string(),
        });
    }
    Ok(())
}

/// Checks the value of a factor of kind `kind`: 1 to [`MAX_VALUE_LEN`] bytes without
/// surrounding white space or control characters.
///
/// # Errors
/// [`FactorError::InvalidValue`].
pub fn check_value(kind: &str, value: &str) -> Result<(), FactorError> {
    if plain_text(value, MAX_VALUE_LEN) {
        Ok(())
    } else {
        Err(FactorError::InvalidValue {
            kind: kind.to_string(),
            value: value.to_string(),
        })
    }
}

/// A factor value as a format that types its values gives it (a JSON field, a Python
/// object), before [`value_of`] turns it into the value's text.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Given<'a> {
    /// A string.
    Text(&'a str),
    /// A whole number as the source holds it exactly.
    Integer(i128),
    /// Any other number (a fraction, one in exponent form, one beyond 64 bits), as
    /// written.
    Number(&'a str),
    /// A boolean.
    Bool(bool),
    /// Null (JSON `null`, Python `None`).
    Null,
    /// Anything else, by what it is (`a list`, `an object`).
    Other(&'a str),
}

/// The text of a factor value of kind `kind`, by one rule for every format: a string as
/// [`check_value`] accepts it, or a whole number from −2⁶³ to 2⁶⁴ − 1 in decimal (`7`
/// gives `"7"`, as does `"7"`). Booleans, null, fractions and numbers beyond 64 bits are
/// refused: `true` or `2.5` read as text would be a value no one meant, and a number of
/// 23 digits, read as a float, would become the value of another.
///
/// ```
/// use podium::factor::{value_of, Given};
/// assert_eq!(value_of("seat", Given::Integer(1)).unwrap(), "1");
/// assert_eq!(value_of("car", Given::Text("red")).unwrap(), "red");
/// assert!(value_of("seat", Given::Number("2.5")).is_err());
/// assert!(value_of("car", Given::Null).is_err());
/// ```
///
/// # Errors
/// [`FactorError::NotAValue`] for what is not a string or such a number,
/// [`FactorError::InvalidValue`] for a string [`check_value`] refuses.
pub fn value_of(kind: &str, given: Given<'_>) -> Result<String, FactorError> {
    let not = |found: String| FactorError::NotAValue {
        kind: kind.to_string(),
        found,
    };
    match given {
        Given::Text(s) => check_value(kind, s).map(|()| s.to_string()),
        Given::Integer(n) if (i128::from(i64::MIN)..=i128::from(u64::MAX)).contains(&n) => {
            Ok(n.to_string())
        }
        Given::Integer(n) => Err(not(n.to_string())),
        Given::Number(s) | Given::Other(s) => Err(not(s.to_string())),
        Given::Bool(b) => Err(not(b.to_string())),
        Given::Null => Err(not("null".into())),
    }
}

/// Checks an entry's factors: each kind by [`check_kind`], each value by
/// [`check_value`], at most one value per kind and [`MAX_FACTORS`] kinds.
pub(crate) fn check_entry(entry: &Entry) -> Result<(), MatchError> {
    let player = || {
        entry
            .members
            .first()
            .map(|m| m.player.clone())
            .unwrap_or_default()
    };
    let invalid = |source| MatchError::InvalidFactor {
        player: player(),
        source: Box::new(source),
    };
    if entry.factors.len() > MAX_FACTORS {
        return Err(invalid(FactorError::TooMany {
            count: entry.factors.len(),
        }));
    }
    for (i, f) in entry.factors.iter().enumerate() {
        check_kind(&f.kind).map_err(invalid)?;
        check_value(&f.kind, &f.value).map_err(invalid)?;
        if let Some(g) = entry.factors[..i].iter().find(|g| g.kind == f.kind) {
            if g.value == f.value {
                return Err(invalid(FactorError::Repeated {
                    kind: f.kind.clone(),
                    value: f.value.clone(),
                }));
            }
            return Err(MatchError::FactorMismatch {
                player: player(),
                expected: g.to_string(),
                found: f.to_string(),
            });
        }
    }
    Ok(())
}

/// Fills `out` with the distinct factors of `entries` that not every entry carries, in
/// order of first appearance, each with its entries.
pub(crate) fn distinguishing(entries: &[Entry], out: &mut Vec<MatchFactor>) {
    out.clear();
    if entries.iter().all(|e| e.factors.is_empty()) {
        return;
    }
    // Where each factor met so far sits in `out`: a contest of thousands, each entry with
    // its own team, stays linear.
    let mut at: HashMap<&Factor, usize> = HashMap::new();
    for (e, entry) in entries.iter().enumerate() {
        for f in &entry.factors {
            match at.get(f) {
                Some(&i) => out[i].entries.push(e),
                None => {
                    at.insert(f, out.len());
                    out.push(MatchFactor {
                        factor: f.clone(),
                        entries: vec![e],
                    });
                }
            }
        }
    }
    out.retain(|m| m.entries.len() < entries.len());
}

/// Each entry's factors summed: `(Σ value, Σ σ²)` (σ² 0 where a factor has none), given
/// the rating of each factor of [`Match::factors`].
#[must_use]
pub fn entry_offsets(game: &Match, factors: &[Rating]) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0); game.len()];
    for (m, r) in game.factors().iter().zip(factors) {
        let v = r.sigma.map_or(0.0, |s| s * s);
        for &e in &m.entries {
            out[e].0 += r.value;
            out[e].1 += v;
        }
    }
    out
}

/// Checks that `factors` holds one finite rating per factor of the match.
///
/// # Errors
/// [`RateError::FactorCountMismatch`] or [`RateError::NonFiniteRating`] naming the factor.
pub fn check_factors(game: &Match, factors: &[Rating]) -> Result<(), RateError> {
    if factors.len() != game.factors().len() {
        return Err(RateError::FactorCountMismatch {
            expected: game.factors().len(),
            found: factors.len(),
        });
    }
    for (m, r) in game.factors().iter().zip(factors) {
        if !r.value.is_finite() || r.sigma.is_some_and(|s| !s.is_finite() || s < 0.0) {
            return Err(RateError::NonFiniteRating {
                player: m.factor.to_string(),
                rating: r.value,
            });
        }
    }
    Ok(())
}

/// Each player's rating with its entry's factors folded in, for a system whose team
/// rating is its members' mean: every member moves by the entry's factors, and a member's
/// σ (where both have one) widens by theirs. Predictions and pair probabilities read
/// these as the players' ratings.
#[must_use]
pub fn fold_mean(game: &Match, before: &[Rating], factors: &[Rating]) -> Vec<Rating> {
    let off = entry_offsets(game, factors);
    game.players()
        .zip(before)
        .map(|((e, _), r)| Rating {
            value: r.value + off[e].0,
            sigma: r.sigma.map(|s| (s * s + off[e].1).sqrt()),
            games: r.games,
        })
        .collect()
}

/// As [`fold_mean`] for a system whose team performs the weighted sum of its members
/// (TrueSkill, Weng-Lin): each member carries a share of the factors in proportion to
/// its weight, so that the team's sum gains exactly the factors' sum (and its variance
/// theirs).
#[must_use]
pub fn fold_sum(game: &Match, before: &[Rating], factors: &[Rating]) -> Vec<Rating> {
    let off = entry_offsets(game, factors);
    let mut out = Vec::with_capacity(before.len());
    for (e, entry) in game.entries().iter().enumerate() {
        let w: f64 = entry.members.iter().map(|m| m.weight).sum();
        let w2: f64 = entry.members.iter().map(|m| m.weight * m.weight).sum();
        for (j, _) in entry.members.iter().enumerate() {
            let r = before[game.member_range(e).start + j];
            out.push(Rating {
                value: r.value + off[e].0 / w,
                sigma: r.sigma.map(|s| (s * s + off[e].1 / w2).sqrt()),
                games: r.games,
            });
        }
    }
    out
}

/// Rates a match with factors for a system whose team performs the sum of its members
/// (TrueSkill, Weng-Lin): each factor joins every entry that carries it as one more
/// member ([`Enlarged`]), the match is rated, and the factor's copies are pooled.
/// `drift` is the σ the system adds in quadrature to every member before a match (its
/// τ): the copies' prior, from which their gains are counted.
///
/// # Errors
/// As the system's [`RatingSystem::rate`] on the enlarged match.
pub fn rate_as_members(
    sys: &dyn RatingSystem,
    prior: &Prior<'_>,
    drift: f64,
) -> Result<Factored, RateError> {
    let factors = prior.factors;
    let big = Enlarged::new(prior.game, prior.ratings, prior.states, factors)?;
    let states: &[Option<&State>] = if prior.states.is_empty() {
        &[]
    } else {
        &big.states
    };
    let p = sys.rate(
        &Prior::new(&big.game, &big.ratings)
            .with_states(states)
            .with_learned(prior.learned),
    )?;
    let rated = Rated {
        changes: p.changes,
        states: p.states,
        learned: p.learned,
    };
    let priors: Vec<Rating> = factors
        .iter()
        .map(|f| Rating {
            sigma: f.sigma.map(|s| s.hypot(drift)),
            ..*f
        })
        .collect();
    let mut out = big.finish(rated, &priors);
    for (c, f) in out.factors.iter_mut().zip(factors) {
        c.before = *f;
    }
    Ok(out)
}

/// A match whose entries carry factors, enlarged so that a system that rates teams can
/// rate the factors: each entry's players, then one member per factor it carries at the
/// factor's rating (a copy per entry). Each copy is rated with the factor's whole prior,
/// so that the players of its entry take the share of the entry's result they would
/// take beside that factor alone, however many entries carry it; [`Enlarged::finish`]
/// then counts the prior once.
#[derive(Debug, Clone)]
pub struct Enlarged<'s> {
    /// The enlarged match: entries in the same order, copies after the players.
    pub game: Match,
    /// Every member's rating before the match, in [`Match::players`] order.
    pub ratings: Vec<Rating>,
    /// Every member's state (none for a copy).
    pub states: Vec<Option<&'s State>>,
    /// Whether each member is a factor's copy.
    pub is_copy: Vec<bool>,
    /// Where the original players are among the members.
    players: Vec<usize>,
    /// Where each factor's copies are among the members.
    copies: Vec<Vec<usize>>,
}

impl<'s> Enlarged<'s> {
    /// Enlarges `game` (players' `before` and `states`, factors' ratings `factors`).
    ///
    /// # Errors
    /// [`RateError`] when the ratings do not fit the match.
    pub fn new(
        game: &Match,
        before: &[Rating],
        states: &[Option<&'s State>],
        factors: &[Rating],
    ) -> Result<Self, RateError> {
        crate::system::check_ratings(game, before)?;
        check_factors(game, factors)?;
        let mut b = Match::builder(game.id());
        if let Some(t) = game.time() {
            b = b.time(t);
        }
        let size = before.len() + factors.len();
        let (mut ratings, mut own, mut is_copy) = (
            Vec::with_capacity(size),
            Vec::with_capacity(size),
            Vec::with_capacity(size),
        );
        let mut copies: Vec<Vec<usize>> = vec![Vec::new(); factors.len()];
        let mut players = Vec::with_capacity(before.len());
        // Each entry's factors, in one pass over the factors' entries.
        let mut by_entry: Vec<Vec<usize>> = vec![Vec::new(); game.len()];
        for (f, m) in game.factors().iter().enumerate() {
            for &e in &m.entries {
                by_entry[e].push(f);
            }
        }
        for (e, entry) in game.entries().iter().enumerate() {
            let mut members = entry.members.clone();
            for k in game.member_range(e) {
                players.push(ratings.len());
                ratings.push(before[k]);
                own.push(states.get(k).copied().flatten());
                is_copy.push(false);
            }
            for &f in &by_entry[e] {
                copies[f].push(ratings.len());
                ratings.push(factors[f]);
                own.push(None);
                is_copy.push(true);
                // A control character is in no player's id (see `model::check_id`), so
                // no player is met.
                members.push(crate::model::Member {
                    player: format!("\u{1}factor {f} of entry {e}"),
                    weight: 1.0,
                });
            }
            b = b.entry(Entry {
                team: Some(format!("\u{1}entry {e}")),
                members,
                finish: entry.finish,
                factors: Vec::new(),
            });
        }
        // The entries are sorted already, so the builder keeps their order and the
        // positions above hold.
        Ok(Enlarged {
            game: b.build_with_any_ids()?,
            ratings,
            states: own,
            is_copy,
            players,
            copies,
        })
    }

    /// The players' changes and states, and each factor's copies pooled, from what the
    /// system made of the enlarged match; `factors` are the copies' priors (each factor's
    /// rating as the system rated its copies).
    #[must_use]
    pub fn finish(&self, rated: Rated, factors: &[Rating]) -> Factored {
        let pick = |i: usize| rated.changes[i];
        let changes = self.players.iter().map(|&i| pick(i)).collect();
        let states = if rated.states.is_empty() {
            Vec::new()
        } else {
            self.players
                .iter()
                .map(|&i| rated.states[i].clone())
                .collect()
        };
        let factor_changes = self
            .copies
            .iter()
            .zip(factors)
            .map(|(at, &f)| pool(f, at.iter().map(|&i| pick(i))))
            .collect();
        Factored {
            rated: Rated {
                changes,
                states,
                learned: rated.learned,
            },
            factors: factor_changes,
        }
    }
}

/// Pools the changes of a factor's copies, each rated from the factor's whole prior
/// `before`: the batch update of one quantity observed once per entry (the entries'
/// results independent given the factor), as a Kalman filter pools several
/// observations. The prior counts once and each copy adds the precision it gained,
/// `P = p₀ + Σ max(pᵢ − p₀, 0)`, and moves the mean by its own move weighted by its
/// precision, `μ = μ₀ + Σ (pᵢ/P)(μᵢ − μ₀)`: a lone copy's posterior as it is. Without σ
/// (no copy or prior has one), the moves are added. Its expected and actual scores are
/// the copies' means.
fn pool(before: Rating, copies: impl Iterator<Item = PlayerChange>) -> PlayerChange {
    let (mut expected, mut actual, mut count) = (0.0, 0.0, 0.0_f64);
    let mut shift = 0.0;
    let p0 = before.sigma.filter(|&s| s > 0.0).map(|s| 1.0 / (s * s));
    let mut bayesian = p0.is_some();
    let (mut precision, mut weighted) = (p0.unwrap_or(0.0), 0.0);
    for c in copies {
        shift += c.delta();
        expected += c.expected;
        actual += c.actual;
        count += 1.0;
        match (c.after.sigma, p0) {
            (Some(s), Some(p0)) if s > 0.0 => {
                let p = 1.0 / (s * s);
                precision += (p - p0).max(0.0);
                weighted += p * (c.after.value - before.value);
            }
            _ => bayesian = false,
        }
    }
    let after = if bayesian {
        Rating {
            value: before.value + weighted / precision,
            sigma: Some(precision.sqrt().recip()),
            games: before.games.saturating_add(1),
        }
    } else {
        Rating {
            value: before.value + shift,
            sigma: before.sigma,
            games: before.games.saturating_add(1),
        }
    };
    PlayerChange {
        before,
        after,
        expected: expected / count.max(1.0),
        actual: actual / count.max(1.0),
        k: None,
        weight: 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Finish;

    fn race() -> Match {
        Match::builder("r")
            .player("a", Finish::Rank(1.0))
            .factor("car", "x")
            .player("b", Finish::Rank(2.0))
            .factor("car", "y")
            .player("c", Finish::Rank(3.0))
            .factor("car", "x")
            .build()
            .unwrap()
    }

    #[test]
    fn shared_factors_list_their_entries_and_common_ones_drop() {
        let m = race();
        assert_eq!(m.factors().len(), 2);
        assert_eq!(m.factors()[0].factor, Factor::new("car", "x"));
        assert_eq!(m.factors()[0].entries, [0, 2]);
        assert_eq!(m.factors()[1].entries, [1]);
        let all = Match::builder("r")
            .player("a", Finish::Rank(1.0))
            .factor("weather", "rain")
            .player("b", Finish::Rank(2.0))
            .factor("weather", "rain")
            .build()
            .unwrap();
        assert!(all.factors().is_empty());
        assert!(all.has_factors());
    }

    #[test]
    fn bad_factors_are_named() {
        let err = Match::builder("r")
            .player("a", Finish::Rank(1.0))
            .factor("car", "x")
            .factor("car", "y")
            .player("b", Finish::Rank(2.0))
            .build()
            .unwrap_err();
        assert!(matches!(err, MatchError::FactorMismatch { ref found, .. } if found == "car=y"));
        // The same factor twice is said so, not as a disagreement with itself.
        let err = Match::builder("r")
            .player("a", Finish::Rank(1.0))
            .factor("car", "x")
            .factor("car", "x")
            .player("b", Finish::Rank(2.0))
            .build()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "player \"a\": factor \"car\" given twice, expected each factor kind once per entry"
        );
        let err = Match::builder("r")
            .player("a", Finish::Rank(1.0))
            .factor("car", " x")
            .player("b", Finish::Rank(2.0))
            .build()
            .unwrap_err();
        assert!(matches!(err, MatchError::InvalidFactor { ref player, .. } if player == "a"));
    }

    fn with_factor(kind: &str, value: &str) -> Result<Match, MatchError> {
        Match::builder("r")
            .player("a", Finish::Rank(1.0))
            .factor(kind, value)
            .player("b", Finish::Rank(2.0))
            .build()
    }

    #[test]
    fn factor_kind_named_like_a_field_is_refused_everywhere() {
        for kind in [
            "match", "time", "id", "results", "Player", "Rank", "SCORE", "Team", "Weight",
            "Factors",
        ] {
            let err = with_factor(kind, "x").unwrap_err();
            assert_eq!(
                err,
                MatchError::InvalidFactor {
                    player: "a".into(),
                    source: Box::new(FactorError::ReservedKind { kind: kind.into() }),
                }
            );
        }
        assert_eq!(
            check_kind("Team").unwrap_err().to_string(),
            "factor kind \"Team\" is not valid, expected a factor kind that is not the name of a column or field podium reads itself (match, id, time, results, player, rank, score, team, weight, factors, in any case)"
        );
        for kind in [
            "",
            " car",
            "a=b",
            "car\n",
            "c\u{0}r",
            "c\u{85}r",
            &"k".repeat(65),
        ] {
            assert_eq!(
                check_kind(kind),
                Err(FactorError::InvalidKind { kind: kind.into() }),
                "{kind:?}"
            );
        }
        assert!(check_kind(&"k".repeat(64)).is_ok());
        assert!(with_factor("matchday", "3").is_ok());
    }

    #[test]
    fn the_control_shortcut_agrees_with_is_control() {
        for c in (0..0x300).filter_map(char::from_u32) {
            for s in [c.to_string(), format!("ab{c}"), format!("é{c}z")] {
                assert_eq!(has_control(&s), s.chars().any(char::is_control), "{s:?}");
            }
        }
    }

    #[test]
    fn factor_values_follow_one_rule_for_strings_and_numbers() {
        assert_eq!(value_of("seat", Given::Integer(1)).unwrap(), "1");
        assert_eq!(value_of("seat", Given::Integer(-7)).unwrap(), "-7");
        assert_eq!(
            value_of("seat", Given::Integer(u64::MAX.into())).unwrap(),
            "18446744073709551615"
        );
        assert_eq!(value_of("car", Given::Text("red")).unwrap(), "red");
        let not = |found: &str| FactorError::NotAValue {
            kind: "seat".into(),
            found: found.into(),
        };
        assert_eq!(value_of("seat", Given::Bool(true)), Err(not("true")));
        assert_eq!(value_of("seat", Given::Null), Err(not("null")));
        assert_eq!(value_of("seat", Given::Number("2.5")), Err(not("2.5")));
        assert_eq!(value_of("seat", Given::Number("1e300")), Err(not("1e300")));
        assert_eq!(
            value_of("seat", Given::Integer(i128::from(u64::MAX) + 1)),
            Err(not("18446744073709551616"))
        );
        assert_eq!(
            value_of("seat", Given::Bool(false)).unwrap_err().to_string(),
            "factor \"seat\": false is not valid, expected a factor value: a string of 1 to 200 bytes without surrounding spaces or control characters, or a whole number from -9223372036854775808 to 18446744073709551615"
        );
        for value in ["", " ", "a\tb", "a\nb", " x", &"v".repeat(201)] {
            assert_eq!(
                value_of("car", Given::Text(value)),
                Err(FactorError::InvalidValue {
                    kind: "car".into(),
                    value: value.into(),
                }),
                "{value:?}"
            );
            assert!(with_factor("car", value).is_err());
        }
        assert!(check_value("car", &"v".repeat(200)).is_ok());
    }

    #[test]
    fn more_factor_kinds_than_the_limit_are_refused() {
        let with = |n: usize| {
            let mut b = Match::builder("r").player("a", Finish::Rank(1.0));
            for k in 0..n {
                b = b.factor(format!("k{k}"), "x");
            }
            b.player("b", Finish::Rank(2.0)).build()
        };
        assert!(with(MAX_FACTORS).is_ok());
        let err = with(MAX_FACTORS + 1).unwrap_err();
        assert_eq!(
            err,
            MatchError::InvalidFactor {
                player: "a".into(),
                source: Box::new(FactorError::TooMany { count: 17 }),
            }
        );
        assert_eq!(
            err.to_string(),
            "player \"a\": 17 factor kinds given, expected at most 16 factor kinds per entry"
        );
    }

    #[test]
    fn folding_adds_the_factors_to_the_team() {
        let m = race();
        let before = [Rating::with_sigma(10.0, 3.0); 3];
        let f = [Rating::with_sigma(5.0, 4.0), Rating::with_sigma(-1.0, 0.0)];
        let folded = fold_mean(&m, &before, &f);
        assert_eq!(folded[0].value, 15.0);
        assert_eq!(folded[0].sigma, Some(5.0));
        assert_eq!(folded[1].value, 9.0);
        assert_eq!(folded[2].value, 15.0);
        let team = Match::builder("t")
            .team("red", ["a", "b"], Finish::Rank(1.0))
            .factor("side", "north")
            .player("c", Finish::Rank(2.0))
            .build()
            .unwrap();
        let folded = fold_sum(&team, &before, &[Rating::with_sigma(4.0, 2.0)]);
        assert_eq!(folded[0].value + folded[1].value, 24.0);
        let var: f64 = folded[..2].iter().map(|r| r.sigma.unwrap().powi(2)).sum();
        assert!((var - (9.0 + 9.0 + 4.0)).abs() < 1e-12);
        assert_eq!(folded[2], before[2]);
    }

    #[test]
    fn pooling_counts_the_prior_once_and_adds_each_copys_gain() {
        let before = Rating::with_sigma(0.0, 2.0);
        let copy = |d: f64, s: f64| PlayerChange {
            before,
            after: Rating::with_sigma(d, s),
            expected: 0.0,
            actual: 0.0,
            k: None,
            weight: 1.0,
        };
        let one = pool(before, [copy(1.0, 1.0)].into_iter());
        assert_eq!(one.after.value, 1.0);
        assert_eq!(one.after.sigma, Some(1.0));
        assert_eq!(one.after.games, 1);
        // Prior precision ¼, the copies' 1 and 4: P = ¼ + ¾ + 15/4 = 4.75, and the mean
        // moves by (1·1 + 4·(−0.5))/4.75.
        let two = pool(before, [copy(1.0, 1.0), copy(-0.5, 0.5)].into_iter());
        assert!((two.after.value + 1.0 / 4.75).abs() < 1e-12);
        assert!((two.after.sigma.unwrap() - 4.75f64.powf(-0.5)).abs() < 1e-12);
        // Two copies that each learned nothing: the prior, once.
        let none = pool(before, [copy(0.0, 2.0), copy(0.0, 2.0)].into_iter());
        assert_eq!(none.after.value, 0.0);
        assert_eq!(none.after.sigma, Some(2.0));
        // A copy whose σ grew (less than the prior's precision) adds no precision.
        let wider = pool(before, [copy(0.5, 3.0), copy(0.0, 2.0)].into_iter());
        assert_eq!(wider.after.sigma, Some(2.0));
        assert!((wider.after.value - 0.5 * 4.0 / 9.0).abs() < 1e-12);
        // Without σ the moves add.
        let elo = |d: f64| PlayerChange {
            before: Rating::new(0.0),
            after: Rating::new(d),
            expected: 0.0,
            actual: 0.0,
            k: Some(1.0),
            weight: 1.0,
        };
        let sum = pool(Rating::new(0.0), [elo(1.0), elo(2.0)].into_iter());
        assert_eq!(sum.after.value, 3.0);
    }
}
