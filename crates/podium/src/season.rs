//! Seasons: a league that plays every week starts over now and then, the final board of
//! the season that ends kept as it was (the seasonal leaderboards of community game bots
//! such as slack-gamebot and of Beyond All Reason's teiserver).
//!
//! A new season starts from a [`Reset`] chosen by whoever runs the league:
//!
//! - [`Reset::Hard`]: everyone starts new, at the system's initial rating and state
//!   ([`crate::RatingSystem::initial_rating`], [`crate::RatingSystem::initial_state`]), no game played;
//!   what the system learned league-wide ([`crate::RatingSystem::initial_learned`]) and the
//!   factors' ratings start new too ([`crate::League::start_over`]). The players and factors
//!   stay known to the league, in the same order (so that their indices,
//!   [`crate::League::player`], still name them).
//! - [`Reset::Soft`]: each rating pulled towards the field and its σ widened. With μ̄ the
//!   mean rating of the season's **active** players (those who played in the season that
//!   ends; every player if none did) and σ₀ the σ of a new player
//!   ([`crate::RatingSystem::initial_rating`]), each player's rating μ becomes
//!
//!   μ' = μ̄ + (1 − pull) · (μ − μ̄),   σ' = √(σ² + (widen · σ₀)²)
//!
//!   (σ only for a system that keeps one; `widen` is ignored by the others). `pull = 0`
//!   keeps the ratings, `pull = 1` puts everyone at μ̄; `widen` is a share of σ₀, so that
//!   one value means the same for every system's scale (σ₀ is 25/3 for Weng-Lin and
//!   TrueSkill, 350 for Glicko). Defaults: pull 0.5, widen 0.25. Ratings are read as the board
//!   shows them ([`crate::League::current`]). Games played (which drive K or a provisional
//!   period) are kept. A system that keeps a state per player
//!   ([`crate::Capabilities::keeps_state`]: `elo-mmr`'s past performances, `glicko2`'s
//!   volatility, `kalman-mmr`'s filters) has its state **built again from the new rating**
//!   ([`crate::RatingSystem::initial_state`], as for a player carried over from elsewhere): the
//!   trait offers no way to move a state's mean, and a state built from μ', σ' is what
//!   the system would keep for a player it meets at that rating. What the system learned
//!   league-wide and the factors' ratings are kept.
//! - [`Reset::None`]: ratings, states and learned values carry on.
//!
//! Every reset starts the statistics again ([`crate::League::clear_stats`]), so a season's board
//! ([`season_standings`]) lists only the players who played in it, with that season's
//! games and wins.
//!
//! ```
//! use podium::season::{season_standings, Reset};
//! use podium::{League, Match};
//!
//! let mut league = League::new(podium::system("sme", &podium::Settings::new())?);
//! league.apply(&Match::ranked("g1", &["ann", "bo"])?)?;
//! let next = league.new_season(&Reset::Soft { pull: 0.5, widen: 0.0 })?;
//! // ann 1516, bo 1484, μ̄ = 1500: halfway back.
//! assert!((next.rating_of("ann").value - 1508.0).abs() < 1e-9);
//! assert!(season_standings(&next, podium::Order::default()).is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::RateError;
use crate::league::{League, Standing};
use crate::rating::Rating;

/// Default of [`Reset::Soft`]'s `pull`.
pub const DEFAULT_PULL: f64 = 0.5;
/// Default of [`Reset::Soft`]'s `widen`: a quarter of a new player's σ.
pub const DEFAULT_WIDEN: f64 = 0.25;

/// How a new season starts (see the [module docs](self) for the exact rules).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)
)]
pub enum Reset {
    /// Everyone starts new.
    Hard,
    /// Ratings pulled towards the field, σ widened.
    Soft {
        /// The share of each rating's distance from the active players' mean taken
        /// away, in [0, 1] (default [`DEFAULT_PULL`]).
        #[cfg_attr(feature = "serde", serde(default = "default_pull"))]
        pull: f64,
        /// Added to σ in quadrature, as a share of a new player's σ: σ' = √(σ² +
        /// (widen · σ₀)²); ≥ 0 (default [`DEFAULT_WIDEN`]); ignored by a system without
        /// σ.
        #[cfg_attr(feature = "serde", serde(default = "default_widen"))]
        widen: f64,
    },
    /// Ratings and states carry on; only the statistics start again.
    None,
}

#[cfg(feature = "serde")]
fn default_pull() -> f64 {
    DEFAULT_PULL
}

#[cfg(feature = "serde")]
fn default_widen() -> f64 {
    DEFAULT_WIDEN
}

/// A reset that cannot be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ResetError {
    /// `pull` outside [0, 1].
    #[error("pull is {pull}; it must be between 0 and 1 (0 keeps the ratings, 1 puts everyone at the mean)")]
    Pull {
        /// The value given.
        pull: f64,
    },
    /// `widen` negative or not finite.
    #[error("widen is {widen}; it must be a finite number ≥ 0")]
    Widen {
        /// The value given.
        widen: f64,
    },
    /// The system refused a player's reset rating.
    #[error("the reset rating of player {player:?} cannot be used: {source}")]
    Rating {
        /// The player.
        player: String,
        /// Why.
        source: RateError,
    },
}

impl Reset {
    /// The reset's name: `hard`, `soft` or `none`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Reset::Hard => "hard",
            Reset::Soft { .. } => "soft",
            Reset::None => "none",
        }
    }

    /// A soft reset with the default pull and widen.
    #[must_use]
    pub fn soft() -> Self {
        Reset::Soft {
            pull: DEFAULT_PULL,
            widen: DEFAULT_WIDEN,
        }
    }

    /// Checks the parameters: `pull` in [0, 1], `widen` finite and ≥ 0.
    ///
    /// # Errors
    /// [`ResetError::Pull`] or [`ResetError::Widen`].
    pub fn check(&self) -> Result<(), ResetError> {
        if let Reset::Soft { pull, widen } = *self {
            if !(0.0..=1.0).contains(&pull) {
                return Err(ResetError::Pull { pull });
            }
            if !(widen.is_finite() && widen >= 0.0) {
                return Err(ResetError::Widen { widen });
            }
        }
        Ok(())
    }

    /// The rating a player rated `r` starts the next season with, given the mean `mean`
    /// of the active players and a new player's σ `sigma0` ([`Reset::Soft`]; the other
    /// resets return `r`).
    #[must_use]
    pub fn pulled(&self, r: Rating, mean: f64, sigma0: Option<f64>) -> Rating {
        match *self {
            Reset::Soft { pull, widen } => Rating {
                value: mean + (1.0 - pull) * (r.value - mean),
                sigma: r.sigma.map(|s| s.hypot(widen * sigma0.unwrap_or(0.0))),
                games: r.games,
            },
            _ => r,
        }
    }
}

impl League {
    /// The league a new season starts from, after `reset` (see [`crate::season`]);
    /// `self` is left as it is, the final state of the season that ends.
    ///
    /// # Errors
    /// [`ResetError`] for a pull or widen out of range, or a reset rating the system
    /// refuses; nothing is returned then.
    pub fn new_season(&self, reset: &Reset) -> Result<League, ResetError> {
        reset.check()?;
        let mut next = match reset {
            Reset::Hard => {
                let mut next =
                    self.start_over(self.system().initial_rating())
                        .map_err(|source| ResetError::Rating {
                            player: rate_error_player(&source),
                            source,
                        })?;
                next.seasons = self.seasons + 1;
                // The league's matches still count (a match's sequence number goes on),
                // as after the other resets.
                next.rated = self.rated;
                return Ok(next);
            }
            Reset::None => self.clone(),
            Reset::Soft { .. } => {
                let current: Vec<Rating> =
                    (0..self.players().len()).map(|i| self.current(i)).collect();
                let active: Vec<f64> = self
                    .players()
                    .iter()
                    .zip(&current)
                    .filter(|(p, _)| p.stats.games > 0)
                    .map(|(_, r)| r.value)
                    .collect();
                let pool: Vec<f64> = if active.is_empty() {
                    current.iter().map(|r| r.value).collect()
                } else {
                    active
                };
                let mean = pool.iter().sum::<f64>() / pool.len().max(1) as f64;
                let sigma0 = self.system().initial_rating().sigma;
                let mut next = self.clone();
                for (p, r) in self.players().iter().zip(&current) {
                    next.set_initial(&p.name, reset.pulled(*r, mean, sigma0))
                        .map_err(|source| ResetError::Rating {
                            player: p.name.clone(),
                            source,
                        })?;
                }
                next
            }
        };
        next.clear_stats();
        next.seasons = self.seasons + 1;
        Ok(next)
    }
}

/// The player a [`RateError`] names, if any.
fn rate_error_player(e: &RateError) -> String {
    match e {
        RateError::RatingOutOfRange { player, .. } | RateError::NonFiniteRating { player, .. } => {
            player.clone()
        }
        _ => String::new(),
    }
}

/// The board of the season a league is in: [`League::standings_in`] of the players who
/// played since the season started (games > 0), positions counted among them.
#[must_use]
pub fn season_standings(league: &League, order: crate::Order) -> Vec<Standing> {
    let mut board = league.standings_in(order);
    board.retain(|s| s.stats.games > 0);
    for (k, s) in board.iter_mut().enumerate() {
        s.position = k + 1;
    }
    board
}

/// Where seasons start: at each new calendar year (UTC) of the matches' times, or at
/// given instants.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Boundaries {
    /// One season per calendar year (UTC).
    Years,
    /// Seasons start at these instants (Unix seconds, increasing): before the first is
    /// season 0, from the k-th on season k.
    Starts(Vec<i64>),
}

/// Boundaries given out of order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BoundaryError {
    /// Boundary `index` (0-based) does not come after the one before it.
    #[error("season boundary {} ({at}) does not come after the one before it ({before}); give them in increasing order, each once", index + 1)]
    NotIncreasing {
        /// Its index.
        index: usize,
        /// Its instant (Unix seconds).
        at: i64,
        /// The instant before it.
        before: i64,
    },
}

impl Boundaries {
    /// Season boundaries at these instants.
    ///
    /// # Errors
    /// [`BoundaryError::NotIncreasing`].
    pub fn starts(starts: Vec<i64>) -> Result<Self, BoundaryError> {
        for (index, w) in starts.windows(2).enumerate() {
            if w[1] <= w[0] {
                return Err(BoundaryError::NotIncreasing {
                    index: index + 1,
                    at: w[1],
                    before: w[0],
                });
            }
        }
        Ok(Boundaries::Starts(starts))
    }

    /// The season of a match at `time` (Unix seconds): its calendar year for
    /// [`Boundaries::Years`], the number of boundaries at or before it for
    /// [`Boundaries::Starts`]. Seasons of later matches are never smaller.
    #[must_use]
    pub fn season_of(&self, time: i64) -> i64 {
        match self {
            Boundaries::Years => year_of(time),
            Boundaries::Starts(s) => s.partition_point(|&b| b <= time) as i64,
        }
    }
}

/// The calendar year (proleptic Gregorian, UTC) of an instant in Unix seconds (Howard
/// Hinnant's `civil_from_days`).
#[must_use]
pub fn year_of(time: i64) -> i64 {
    let z = time.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    yoe + era * 400 + i64::from(month <= 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Match, Settings};

    fn league(system: &str) -> League {
        let mut l = League::new(crate::system(system, &Settings::new()).unwrap());
        for (k, order) in [
            ["ann", "bo", "cy"],
            ["ann", "cy", "bo"],
            ["bo", "ann", "cy"],
        ]
        .iter()
        .enumerate()
        {
            l.apply(&Match::ranked(format!("g{k}"), order).unwrap())
                .unwrap();
        }
        l
    }

    #[test]
    fn a_hard_reset_starts_everyone_at_the_initial_rating() {
        for system in ["sme", "plackett-luce", "glicko2", "kalman-mmr"] {
            let l = league(system);
            let next = l.new_season(&Reset::Hard).unwrap();
            let initial = l.system().initial_rating();
            assert_eq!(next.players().len(), 3, "{system}");
            assert!(next.players().iter().all(|p| p.stats.games == 0));
            assert_eq!(next.get("ann").unwrap().rating.games, 0);
            assert_eq!(next.rating_of("ann").value, initial.value, "{system}");
            assert_eq!(next.rating_of("ann").sigma, initial.sigma, "{system}");
            // The league's matches still count, as after every reset.
            assert_eq!(next.matches_rated(), l.matches_rated(), "{system}");
            assert_eq!(next.matches_rated(), 3, "{system}");
        }
    }

    #[test]
    fn no_reset_keeps_ratings_and_states_and_clears_the_statistics() {
        for system in ["sme", "plackett-luce", "glicko2"] {
            let l = league(system);
            let next = l.new_season(&Reset::None).unwrap();
            for (i, p) in l.players().iter().enumerate() {
                let q = next.get(&p.name).unwrap();
                assert_eq!(q.rating, p.rating, "{system}");
                assert_eq!(q.stats.games, 0);
                assert_eq!(q.stats.wins, 0.0);
                assert_eq!(q.stats.last_time, p.stats.last_time);
                match (l.state(i), next.state(i)) {
                    (Some(a), Some(b)) => assert!(crate::State::same(a, b)),
                    (None, None) => {}
                    _ => panic!("state lost"),
                }
            }
            assert!(season_standings(&next, crate::Order::default()).is_empty());
        }
    }

    #[test]
    fn a_soft_reset_of_sme_halves_each_distance_to_the_mean() {
        // sme (K = 32 over N − 1 pairs): after the three games ann 1516, bo 1500, cy 1484
        // (see the values below), mean 1500.
        let l = league("sme");
        let before: Vec<f64> = ["ann", "bo", "cy"]
            .iter()
            .map(|n| l.rating_of(n).value)
            .collect();
        let mean = before.iter().sum::<f64>() / 3.0;
        let next = l
            .new_season(&Reset::Soft {
                pull: 0.25,
                widen: 3.0,
            })
            .unwrap();
        for (n, b) in ["ann", "bo", "cy"].iter().zip(&before) {
            let r = next.rating_of(n);
            assert!((r.value - (mean + 0.75 * (b - mean))).abs() < 1e-9);
            assert_eq!(r.sigma, None, "sme keeps no σ: widen is ignored");
            assert_eq!(r.games, 3);
        }
        assert!((mean - 1500.0).abs() < 1e-9);
    }

    #[test]
    fn a_soft_reset_gives_exact_values() {
        // sme on one two-player game: 1516 and 1484.
        let mut l = League::new(crate::system("sme", &Settings::new()).unwrap());
        l.apply(&Match::ranked("g", &["ann", "bo"]).unwrap())
            .unwrap();
        assert!((l.rating_of("ann").value - 1516.0).abs() < 1e-9);
        let next = l
            .new_season(&Reset::Soft {
                pull: 0.5,
                widen: 1.0,
            })
            .unwrap();
        assert!((next.rating_of("ann").value - 1508.0).abs() < 1e-9);
        assert!((next.rating_of("bo").value - 1492.0).abs() < 1e-9);

        // Weng-Lin: μ and σ by hand from the ratings after one game.
        let mut l = League::new(crate::system("plackett-luce", &Settings::new()).unwrap());
        l.apply(&Match::ranked("g", &["ann", "bo"]).unwrap())
            .unwrap();
        let (a, b) = (l.rating_of("ann"), l.rating_of("bo"));
        let mean = (a.value + b.value) / 2.0;
        assert!((mean - 25.0).abs() < 1e-9, "a win moves both by the same");
        let next = l
            .new_season(&Reset::Soft {
                pull: 0.4,
                widen: 2.0,
            })
            .unwrap();
        let na = next.rating_of("ann");
        assert!((na.value - (25.0 + 0.6 * (a.value - 25.0))).abs() < 1e-9);
        // σ₀ = 25/3: widen 2 adds 50/3 in quadrature.
        let s = a.sigma.unwrap();
        let w = 2.0 * 25.0 / 3.0;
        assert!((na.sigma.unwrap() - (s * s + w * w).sqrt()).abs() < 1e-12);
        // The state-free system plays on from there.
        assert_eq!(next.rating_of("cy"), l.rating_of("cy"));
    }

    #[test]
    fn the_mean_is_over_the_players_active_in_the_season() {
        let l = league("sme");
        let mut s2 = l.new_season(&Reset::None).unwrap();
        s2.apply(&Match::ranked("h", &["ann", "bo"]).unwrap())
            .unwrap();
        let (a, b) = (s2.rating_of("ann").value, s2.rating_of("bo").value);
        let mean = (a + b) / 2.0;
        let s3 = s2
            .new_season(&Reset::Soft {
                pull: 1.0,
                widen: 0.0,
            })
            .unwrap();
        for n in ["ann", "bo", "cy"] {
            assert!((s3.rating_of(n).value - mean).abs() < 1e-9, "{n}");
        }
    }

    #[test]
    fn a_state_is_built_again_from_the_soft_reset_rating() {
        let l = league("glicko2");
        let reset = Reset::Soft {
            pull: 0.5,
            widen: 0.5,
        };
        let next = l.new_season(&reset).unwrap();
        let i = next.index_of("ann").unwrap();
        let mut fresh = League::new(crate::system("glicko2", &Settings::new()).unwrap());
        fresh.set_initial("ann", next.player(i).rating).unwrap();
        assert_eq!(
            format!("{:?}", next.state(i).unwrap()),
            format!("{:?}", fresh.state(0).unwrap())
        );
        // The volatility learned in the season is started again.
        assert_ne!(
            format!("{:?}", next.state(i).unwrap()),
            format!("{:?}", l.state(i).unwrap())
        );
    }

    #[test]
    fn a_pull_or_widen_out_of_range_is_refused() {
        let l = league("sme");
        for (pull, widen) in [(-0.1, 0.0), (1.5, 0.0), (f64::NAN, 0.0), (0.5, -1.0)] {
            assert!(l.new_season(&Reset::Soft { pull, widen }).is_err());
        }
    }

    #[test]
    fn years_and_starts_place_matches() {
        // 2023-12-31T23:59:59Z and 2024-01-01T00:00:00Z.
        assert_eq!(year_of(1_704_067_199), 2023);
        assert_eq!(year_of(1_704_067_200), 2024);
        assert_eq!(year_of(0), 1970);
        assert_eq!(year_of(-1), 1969);
        assert_eq!(year_of(951_782_400), 2000); // 2000-02-29
        let b = Boundaries::starts(vec![100, 200]).unwrap();
        assert_eq!([99, 100, 199, 200].map(|t| b.season_of(t)), [0, 1, 1, 2]);
        assert!(Boundaries::starts(vec![200, 200]).is_err());
    }

    #[cfg(feature = "serde")]
    #[test]
    fn resets_read_from_json() {
        let r: Reset = serde_json::from_str(r#"{"kind":"soft","pull":0.3}"#).unwrap();
        assert_eq!(
            r,
            Reset::Soft {
                pull: 0.3,
                widen: DEFAULT_WIDEN
            }
        );
        let r: Reset = serde_json::from_str(r#"{"kind":"hard"}"#).unwrap();
        assert_eq!(r, Reset::Hard);
        assert!(serde_json::from_str::<Reset>(r#"{"kind":"medium"}"#).is_err());
    }
}
