//! # podium
//!
//! Rating systems for **multiplayer** games: free-for-alls ranked 1st..Nth, team games,
//! ties and partial play.
//!
//! - [`Match`]: a validated game of two or more entries (players or teams) with finishing
//!   places; ties are groups of entries sharing a place.
//! - [`RatingSystem`]: the object-safe trait every system implements; [`system()`] builds one
//!   by name from `key=value` settings, [`systems()`] lists them all.
//! - [`League`]: a pool of players rated match after match, with leaderboard statistics.
//! - [`systems`](mod@systems): one module per system, each with a typed config whose
//!   fields are the system's documented parameters. The Bayesian systems
//!   ([`weng_lin`](systems::weng_lin), [`trueskill`](systems::trueskill)) keep an
//!   uncertainty σ beside each rating, as do [`glicko`](systems::glicko) (its RD) and the
//!   systems that remember more: [`elo_mmr`](systems::elo_mmr) (past performances) and
//!   [`glicko2`](systems::glicko2) (a volatility) keep a [`State`] per player, which a
//!   [`League`] stores beside the rating.
//! - [`kalman_mmr`](systems::kalman_mmr), the default ([`DEFAULT_SYSTEM`]): Elo-MMR's
//!   performances followed per player by a bank of Kalman filters; it also learns from
//!   every match something that belongs to no player (which filter to report, the
//!   calibration of its probabilities, where newcomers start), a league-wide learned
//!   [`State`] ([`RatingSystem::initial_learned`]) that a [`League`] keeps too.
//! - [`RatingSystem::predict`]: a [`Prediction`] for a proposed match (win and pairwise
//!   probabilities, expected places, draws) from every system.
//! - [`factor`]: what else than the players decides a result (the car, the seat, the
//!   faction), rated beside the players by the systems that can.
//! - [`frags`]: event-based frag rankings from shooter server logs (Michael Becker's frag rankings): every frag
//!   a duel, strengths floored at 0, decay, and static strengths of a core of players.
//!
//! ```
//! use podium::{League, Match, Finish};
//!
//! let mut league = League::new(podium::system("shares", &podium::Settings::new())?);
//! let night = Match::builder("2024-05-01 #1")
//!     .player("ann", Finish::Rank(1.0))
//!     .player("bo", Finish::Rank(2.0))
//!     .player("cy", Finish::Rank(2.0)) // tied with bo
//!     .build()?;
//! let report = league.apply(&night)?;
//! assert_eq!(report.changes.len(), 3);
//! // shares is point neutral: what ann gains, bo and cy lose.
//! let total: f64 = report.changes.iter().map(|(_, c)| c.delta()).sum();
//! assert!(total.abs() < 1e-9);
//! assert_eq!(league.standings()[0].player, "ann");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Teams and partial play
//! A team is rated as one entry whose rating is the **mean of its members' ratings**; every
//! member receives the team's change (computed with the member's own K where K depends on
//! games played). A member's **weight** `w ∈ [1e-9, 1]` (the share of the match they played)
//! scales their change: `Δ = w · K · (S − E)`.

#![warn(missing_docs)]

pub mod balance;
pub mod error;
pub mod factor;
pub mod frags;
pub mod gaussian;
pub mod history;
pub mod league;
pub mod limits;
pub mod model;
pub mod order;
pub mod params;
pub mod predict;
pub mod rating;
pub mod registry;
pub mod season;
pub mod state;
pub mod system;
pub mod systems;
pub mod versus;

pub use error::{ConfigError, FactorError, MatchError, RateError};
pub use factor::{Factor, Factored, MatchFactor};
pub use frags::{FragConfig, FragEvent, FragRanking};
#[cfg(feature = "serde")]
pub use league::saved::{SaveError, SavedLeague};
pub use league::{
    FactorRecord, League, MatchReport, PlayerRecord, PlayerStats, RankedBatch, Slot, Standing,
};
pub use limits::LimitError;
pub use model::{Entry, Finish, Match, MatchBuilder, Member, ResultRow};
pub use order::{Order, OrderError};
pub use params::{Configure, Param, ParamValue, Settings};
pub use predict::Prediction;
pub use rating::{PlayerChange, Rating};
pub use registry::{system, systems, SystemSpec, DEFAULT_SYSTEM};
#[cfg(feature = "serde")]
pub use state::SavedState;
pub use state::{Rated, State};
pub use system::{
    Capabilities, Described, Description, Posterior, Prior, RatingSystem, PROVISIONAL_GAMES,
};

/// The example of `docs/new-system.md`, compiled and run with the doc tests so that it
/// cannot fall behind the trait.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/new-system.md")]
pub struct NewSystemDoc;
