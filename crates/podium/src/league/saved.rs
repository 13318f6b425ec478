//! A [`League`] as data: saved with everything it holds and restored exactly, so that a
//! league goes on rating where it stopped without rating its past again.
//!
//! [`League::save`] gives a [`SavedLeague`]: the system's name and parameters, every
//! player's rating, statistics and state ([`SavedState`]), what the system learned from
//! every match, the factors and the count of matches rated. It is plain data for `serde`
//! (this module is there with the `serde` feature); the library does no I/O, and the
//! format is the program's choice. Written as JSON, the numbers come back bit for bit
//! when read with `serde_json`'s `float_roundtrip` feature (without it, the last digit
//! of a few numbers may round the other way).
//!
//! [`League::restore`] builds the league again with the system the data names
//! ([`crate::system()`]); [`League::restore_with`] takes a system already built and
//! refuses data saved by another system or with other parameters. Either checks
//! everything it reads first ([`SaveError`] says where and what is wrong) and rating the
//! rest of a history then gives, bit for bit, what rating it whole in one league gives.
//!
//! ```
//! use podium::{League, Match};
//! let sys = || podium::system("glicko2", &podium::Settings::new()).unwrap();
//! let games = [["ann", "bo", "cy"], ["cy", "ann", "bo"], ["bo", "cy", "ann"]];
//! let games = games.map(|g| Match::ranked("g", &g).unwrap());
//! let mut whole = League::new(sys());
//! let mut first = League::new(sys());
//! for g in &games {
//!     whole.apply(g).unwrap();
//! }
//! first.apply(&games[0]).unwrap();
//! let mut rest = League::restore(first.save().unwrap()).unwrap();
//! for g in &games[1..] {
//!     rest.apply(g).unwrap();
//! }
//! assert_eq!(rest.standings(), whole.standings());
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use super::{FactorRecord, League, PlayerRecord, PlayerStats};
use crate::error::{shown, ConfigError};
use crate::factor::{check_kind, Factor};
use crate::model::{check_match_id, check_player_id};
use crate::rating::Rating;
use crate::state::{SavedState, State};
use crate::system::RatingSystem;

/// What the `format` field of a saved league holds: what tells a saved league from
/// other data.
pub const FORMAT: &str = "podium-league";

/// The version of the saved league's layout that this library writes and reads.
pub const VERSION: u32 = 1;

/// A league as data ([`League::save`]), to restore exactly ([`League::restore`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SavedLeague {
    /// Always [`FORMAT`].
    pub format: String,
    /// The layout's version, [`VERSION`] when written by this library.
    pub version: u32,
    /// The system's registered name.
    pub system: String,
    /// Every parameter of the system by name, its value as text exactly as `--set`
    /// takes it (numbers in their shortest form that reads back to the same value).
    pub params: BTreeMap<String, String>,
    /// Matches rated ([`League::matches_rated`]).
    pub matches_rated: u64,
    /// Every player, in the order the league met them.
    pub players: Vec<SavedPlayer>,
    /// What the system learned from every match ([`League::learned`]), for a system that
    /// learns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learned: Option<SavedState>,
    /// Every factor met, in the order the league met them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub factors: Vec<SavedFactor>,
    /// Seasons started ([`League::seasons`]); absent for none.
    #[serde(default, skip_serializing_if = "no_season")]
    pub seasons: u32,
    /// The matches rated, by the 64-bit FNV-1a hash of each match id's UTF-8 bytes, when
    /// whoever saved the league knew them (a reader of match files does; [`League::save`]
    /// leaves it empty, as a league keeps no ids): a reader going on from the saved
    /// league refuses a match it rated already. Absent when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_ids: Vec<u64>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` takes a reference
fn no_season(seasons: &u32) -> bool {
    *seasons == 0
}

/// A player of a [`SavedLeague`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SavedPlayer {
    /// The player's id.
    pub name: String,
    /// The rating as the league keeps it.
    pub rating: Rating,
    /// The leaderboard's statistics.
    pub stats: SavedStats,
    /// What the system keeps of the player, for a system that keeps a state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<SavedState>,
}

/// A factor of a [`SavedLeague`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SavedFactor {
    /// The factor.
    pub factor: Factor,
    /// Its rating.
    pub rating: Rating,
    /// Its statistics.
    pub stats: SavedStats,
}

/// The statistics of a player or factor ([`PlayerStats`]) in a [`SavedLeague`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SavedStats {
    /// Matches played.
    pub games: u32,
    /// Wins, a tie for first among k entries counting 1/k.
    pub wins: f64,
    /// The wins of an average player in the same matches.
    pub expected_wins: f64,
    /// Sum of the number of entries of the matches played.
    pub entries_total: u64,
    /// Time of the last match played (Unix seconds), when matches have times.
    pub last_time: Option<i64>,
    /// Id of the last match played.
    pub last_match: Option<String>,
}

impl From<&PlayerStats> for SavedStats {
    fn from(s: &PlayerStats) -> Self {
        SavedStats {
            games: s.games,
            wins: s.wins,
            expected_wins: s.expected_wins,
            entries_total: s.entries_total,
            last_time: s.last_time,
            last_match: s.last_match.as_ref().map(ToString::to_string),
        }
    }
}

impl From<SavedStats> for PlayerStats {
    fn from(s: SavedStats) -> Self {
        PlayerStats {
            games: s.games,
            wins: s.wins,
            expected_wins: s.expected_wins,
            entries_total: s.entries_total,
            last_time: s.last_time,
            last_match: s.last_match.map(CompactString::from),
        }
    }
}

/// Why a league cannot be saved, or saved data cannot be restored. Nothing is restored
/// then.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SaveError {
    /// A state of a system defined outside podium, whose type a saved league cannot
    /// hold.
    #[error("{owner}: its state is a {type_name}, which a saved league cannot hold: only the states of podium's own systems can be saved")]
    NotSaveable {
        /// Whose state: the player, or "the learned value".
        owner: String,
        /// The state's type.
        type_name: &'static str,
    },
    /// Data that is not a saved league.
    #[error("not a saved podium league: field `format` is {found:?}, expected {FORMAT:?}")]
    NotALeague {
        /// The `format` field found.
        found: String,
    },
    /// A saved league of a layout this library does not read.
    #[error("a saved league of version {found}, but this podium reads version {VERSION}")]
    Version {
        /// The version found.
        found: u32,
    },
    /// A league saved by another system than the one to restore it with.
    #[error("the league was saved by system {saved}, not {given}; rate it with {saved}")]
    OtherSystem {
        /// The system of the saved league.
        saved: String,
        /// The system given.
        given: String,
    },
    /// A league saved by the same system with other parameters.
    #[error("the league was saved by {system} with {param}={saved}, not {param}={given}; rate it with {param}={saved}")]
    OtherParams {
        /// The system.
        system: String,
        /// The parameter that differs (or is missing on one side: then its value is
        /// `(none)`).
        param: String,
        /// Its saved value.
        saved: String,
        /// Its value in the system given.
        given: String,
    },
    /// A league saved with a parameter that the system no longer has.
    #[error("the league was saved by {system} with {param}={saved}, a parameter this {system} does not have; rate the league's history again to go on")]
    UnknownParam {
        /// The system.
        system: String,
        /// The parameter the system does not have.
        param: String,
        /// Its saved value.
        saved: String,
    },
    /// The system the saved league names cannot be built.
    #[error("the saved league's system cannot be built: {source}")]
    System {
        /// Why.
        #[source]
        source: ConfigError,
    },
    /// A value of the saved league that the league cannot hold.
    #[error("{what}: {why}")]
    Invalid {
        /// Where: `players[3] "ann": state`, `learned`, …
        what: String,
        /// What is wrong and what was expected.
        why: String,
    },
}

/// Every parameter of `system` by name, its value as text.
fn params_of(system: &dyn RatingSystem) -> BTreeMap<String, String> {
    system
        .describe()
        .params
        .into_iter()
        .map(|p| (p.name.to_string(), p.value.to_string()))
        .collect()
}

fn invalid(what: impl Into<String>, why: impl Into<String>) -> SaveError {
    SaveError::Invalid {
        what: what.into(),
        why: why.into(),
    }
}

/// The largest rating, σ or mean (by magnitude) a saved league may hold: far beyond what
/// play from the range a player can be started at (±1e9) reaches (a field of thousands
/// may take a rating to ±1e12 in one match), and small enough that its square, and a sum
/// of such squares, stays finite.
pub(crate) const SAVED_LIMIT: f64 = 1e100;

/// Checks a saved rating: numbers within ±[`SAVED_LIMIT`], σ not negative, σ present for
/// a system that keeps one. Nothing narrower: a saved rating is one that play reached,
/// and play may take a rating past the range a player can be started at
/// ([`League::set_initial`] checks that) or that a system checks ratings given to it by
/// hand (a `proportional` loser below 0); the league must restore as it was saved.
fn check_rating(system: &dyn RatingSystem, what: &str, r: &Rating) -> Result<(), SaveError> {
    if !(r.value.is_finite() && r.value.abs() <= SAVED_LIMIT) {
        return Err(invalid(
            format!("{what}: rating"),
            format!(
                "{}, expected a finite number within ±1e100 (beyond, its square overflows)",
                crate::error::readable(r.value)
            ),
        ));
    }
    match r.sigma {
        Some(s) if !(s.is_finite() && (0.0..=SAVED_LIMIT).contains(&s)) => Err(invalid(
            format!("{what}: sigma"),
            format!(
                "{}, expected a finite number from 0 to 1e100 (beyond, its square overflows)",
                crate::error::readable(s)
            ),
        )),
        None if system.capabilities().has_uncertainty => Err(invalid(
            format!("{what}: sigma"),
            "missing, and the system keeps a σ for every rating",
        )),
        _ => Ok(()),
    }
}

/// Checks saved statistics against what rating matches gives: wins and expected wins
/// from 0 to the games played (every match has at least two entries, so expected wins
/// are at most half of them), at least two entries a match, and a valid id of the last
/// match.
fn check_stats(what: &str, s: &SavedStats) -> Result<(), SaveError> {
    let games = f64::from(s.games);
    // Sums of shares 1/k over the games, rounded on the way.
    let slack = 1.0 + 1e-6;
    let share = |field: &str, v: f64, most: f64, of: &str| {
        if v.is_finite() && v >= 0.0 && v <= most * slack {
            Ok(())
        } else {
            Err(invalid(
                format!("{what}: stats.{field}"),
                format!(
                    "{}, expected a number from 0 to {of} ({})",
                    crate::error::readable(v),
                    crate::error::readable(most)
                ),
            ))
        }
    };
    share("wins", s.wins, games, "the games played")?;
    share(
        "expected_wins",
        s.expected_wins,
        games / 2.0,
        "half the games played",
    )?;
    let least = 2 * u64::from(s.games);
    if s.entries_total < least || (s.games == 0 && s.entries_total != 0) {
        return Err(invalid(
            format!("{what}: stats.entries_total"),
            format!(
                "{}, expected at least two entries a game played ({least}), and 0 without games",
                s.entries_total
            ),
        ));
    }
    if let Some(id) = &s.last_match {
        check_match_id(id)
            .map_err(|e| invalid(format!("{what}: stats.last_match"), e.to_string()))?;
    }
    Ok(())
}

impl SavedLeague {
    /// Checks that the data is a saved league of the version this library reads.
    ///
    /// # Errors
    /// [`SaveError::NotALeague`] or [`SaveError::Version`].
    pub fn check_format(&self) -> Result<(), SaveError> {
        if self.format != FORMAT {
            return Err(SaveError::NotALeague {
                found: self.format.clone(),
            });
        }
        if self.version != VERSION {
            return Err(SaveError::Version {
                found: self.version,
            });
        }
        Ok(())
    }

    /// Checks that `system` is the one the league was saved by: the same name and every
    /// parameter the same. A parameter the saved league does not name (one added to the
    /// system after the league was saved) is read as its default, as
    /// [`SavedLeague::build_system`] builds it.
    ///
    /// # Errors
    /// [`SaveError::OtherSystem`] or [`SaveError::OtherParams`], naming the first
    /// parameter that differs.
    pub fn check_system(&self, system: &dyn RatingSystem) -> Result<(), SaveError> {
        if system.name() != self.system {
            return Err(SaveError::OtherSystem {
                saved: self.system.clone(),
                given: system.name().to_string(),
            });
        }
        let given = params_of(system);
        let defaults = crate::system(&self.system, &crate::Settings::new())
            .map(|d| params_of(&*d))
            .unwrap_or_default();
        let none = String::from("(none)");
        let names = self.params.keys().chain(given.keys());
        for name in names {
            let saved = self.params.get(name).or_else(|| defaults.get(name));
            let s = saved.unwrap_or(&none);
            let Some(g) = given.get(name) else {
                // Only a saved parameter can be missing from the system.
                return Err(SaveError::UnknownParam {
                    system: self.system.clone(),
                    param: name.clone(),
                    saved: s.clone(),
                });
            };
            if s != g {
                return Err(SaveError::OtherParams {
                    system: self.system.clone(),
                    param: name.clone(),
                    saved: s.clone(),
                    given: g.clone(),
                });
            }
        }
        Ok(())
    }

    /// The system the league was saved by, built from its name and parameters.
    ///
    /// # Errors
    /// [`SaveError::Invalid`] naming the parameter (`params.tau`) whose value the system
    /// refuses, or `params` for values that do not hold together;
    /// [`SaveError::UnknownParam`] for a parameter the system does not have;
    /// [`SaveError::System`] when the name is not a system's.
    pub fn build_system(&self) -> Result<Box<dyn RatingSystem>, SaveError> {
        let mut settings = crate::Settings::new();
        for (k, v) in &self.params {
            settings = settings.with(k, v);
        }
        crate::system(&self.system, &settings).map_err(|e| self.refused(e))
    }

    /// The error of a saved parameter the system refuses, naming it where it lies.
    fn refused(&self, e: ConfigError) -> SaveError {
        match e {
            ConfigError::InvalidValue {
                param,
                value,
                expected,
            } => invalid(
                format!("params.{param}"),
                format!("{value:?} is not valid, expected {expected}"),
            ),
            e @ ConfigError::Inconsistent { .. } => invalid("params", e.to_string()),
            ConfigError::UnknownParam { param, .. } => {
                let same = |k: &str| k.trim().replace('-', "_");
                let saved = self
                    .params
                    .iter()
                    .find(|(k, _)| same(k) == param)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default();
                SaveError::UnknownParam {
                    system: self.system.clone(),
                    param,
                    saved,
                }
            }
            source => SaveError::System { source },
        }
    }
}

impl League {
    /// The league as data, to restore exactly with [`League::restore`]: see
    /// [`crate::league::saved`].
    ///
    /// # Errors
    /// [`SaveError::NotSaveable`] for a league of a system defined outside podium whose
    /// states are of a type a saved league cannot hold; [`SaveError::Invalid`] naming
    /// the parameter (`params.k`) of a podium system built from a config whose value it
    /// refuses (as `--set` would), which could not be restored.
    pub fn save(&self) -> Result<SavedLeague, SaveError> {
        let saved = |owner: &dyn Fn() -> String, s: &State| {
            SavedState::of(s).ok_or_else(|| SaveError::NotSaveable {
                owner: owner(),
                type_name: s.type_name(),
            })
        };
        let players = self
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let state = match self.state(i) {
                    Some(s) => Some(saved(&|| format!("player {:?}", p.name), s)?),
                    None => None,
                };
                Ok(SavedPlayer {
                    name: p.name.clone(),
                    rating: p.rating,
                    stats: SavedStats::from(&p.stats),
                    state,
                })
            })
            .collect::<Result<Vec<_>, SaveError>>()?;
        let learned = match &self.learned {
            Some(l) => Some(saved(&|| "the learned value".to_string(), l)?),
            None => None,
        };
        let saved = SavedLeague {
            format: FORMAT.to_string(),
            version: VERSION,
            system: self.system.name().to_string(),
            params: params_of(&*self.system),
            matches_rated: self.rated,
            players,
            learned,
            factors: self
                .factors
                .iter()
                .map(|f| SavedFactor {
                    factor: f.factor.clone(),
                    rating: f.rating,
                    stats: SavedStats::from(&f.stats),
                })
                .collect(),
            seasons: self.seasons,
            match_ids: Vec::new(),
        };
        // A system of podium's built from a config struct by hand is not checked as its
        // text is: a value it refuses would be saved and then fail to restore.
        if crate::systems().iter().any(|s| s.name == saved.system) {
            saved.build_system()?;
        }
        Ok(saved)
    }

    /// The league saved as `saved`, rated by the system it names with its parameters
    /// ([`SavedLeague::build_system`]).
    ///
    /// # Errors
    /// As [`League::restore_with`], and [`SaveError::System`].
    pub fn restore(saved: SavedLeague) -> Result<League, SaveError> {
        saved.check_format()?;
        let system = saved.build_system()?;
        League::restore_with(Arc::from(system), saved)
    }

    /// The league saved as `saved`, rated by `system`, which must be the system it was
    /// saved by with the same parameters.
    ///
    /// # Errors
    /// [`SaveError::NotALeague`] and [`SaveError::Version`] for data of another kind or
    /// layout, [`SaveError::OtherSystem`] and [`SaveError::OtherParams`] for another
    /// system, [`SaveError::Invalid`] for a value the league cannot hold, naming where it
    /// lies: a parameter the system refuses, a player id that a match could not name, a
    /// factor kind or value that a match could not carry, a player or factor given twice,
    /// a rating or σ the system cannot rate or start a player at (as
    /// [`League::set_initial`] refuses it), statistics that rating matches cannot give
    /// (wins below 0 or above the games played), a state of another system or shape or
    /// with a value outside its system's range.
    pub fn restore_with(
        system: Arc<dyn RatingSystem>,
        saved: SavedLeague,
    ) -> Result<League, SaveError> {
        saved.check_format()?;
        if let Err(e) = saved.check_system(&*system) {
            if matches!(e, SaveError::OtherParams { .. }) {
                // A saved value the system refuses is what is wrong, not the system given.
                saved.build_system()?;
            }
            return Err(e);
        }
        let mut league = League::shared(system);
        league.seasons = saved.seasons;
        let sys = Arc::clone(&league.system);
        let fresh_state = if league.caps.keeps_state {
            sys.initial_state(&sys.initial_rating())
                .map_err(|e| invalid("the system's newcomer state", e.to_string()))?
        } else {
            None
        };
        league.players.reserve(saved.players.len());
        league.index.reserve(saved.players.len());
        for (i, p) in saved.players.into_iter().enumerate() {
            check_player_id(&p.name)
                .map_err(|e| invalid(format!("players[{i}]: name"), e.to_string()))?;
            let what = format!("players[{i}] {}", shown(&p.name));
            if league.index.contains_key(p.name.as_str()) {
                return Err(invalid(what, "a player given twice"));
            }
            check_rating(&*sys, &what, &p.rating)?;
            check_stats(&what, &p.stats)?;
            let state = match (p.state, &fresh_state) {
                (None, _) => None,
                (Some(s), Some(fresh)) => Some(
                    s.restore(fresh)
                        .map_err(|why| invalid(format!("{what}: state"), why))?,
                ),
                (Some(s), None) => {
                    return Err(invalid(
                        format!("{what}: state"),
                        format!(
                            "a {} state, but {} keeps no state per player",
                            s.tag(),
                            sys.name()
                        ),
                    ))
                }
            };
            league.index.insert(CompactString::from(&p.name), i);
            league.players.push(PlayerRecord {
                name: p.name,
                rating: p.rating,
                stats: p.stats.into(),
            });
            if league.caps.keeps_state {
                league.states.push(state);
            }
        }
        league.learned = match (saved.learned, sys.initial_learned()) {
            (Some(l), Some(fresh)) => {
                Some(l.restore(&fresh).map_err(|why| invalid("learned", why))?)
            }
            (None, None) => None,
            (None, Some(_)) => {
                return Err(invalid(
                    "learned",
                    format!("missing: {} learns from every match", sys.name()),
                ))
            }
            (Some(l), None) => {
                return Err(invalid(
                    "learned",
                    format!("a {} value, but {} learns nothing", l.tag(), sys.name()),
                ))
            }
        };
        if !saved.factors.is_empty() && !sys.capabilities().rates_factors {
            return Err(invalid(
                "factors",
                format!(
                    "{} factors, but {} rates none",
                    saved.factors.len(),
                    sys.name()
                ),
            ));
        }
        for (i, f) in saved.factors.into_iter().enumerate() {
            check_kind(&f.factor.kind)
                .and_then(|()| crate::factor::check_value(&f.factor.kind, &f.factor.value))
                .map_err(|e| invalid(format!("factors[{i}]: factor"), e.to_string()))?;
            let what = format!("factors[{i}] {}", f.factor);
            if league.factor_index.contains_key(&f.factor) {
                return Err(invalid(what, "a factor given twice"));
            }
            check_rating(&*sys, &what, &f.rating)?;
            check_stats(&what, &f.stats)?;
            league.factor_index.insert(f.factor.clone(), i);
            league.factors.push(FactorRecord {
                factor: f.factor,
                rating: f.rating,
                stats: f.stats.into(),
            });
        }
        league.rated = saved.matches_rated;
        Ok(league)
    }
}
