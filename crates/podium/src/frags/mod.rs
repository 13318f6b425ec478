//! # Frag rankings (Michael Becker's article on frag rankings, 2001)
//!
//! Shooter games (Quake 3 and its kin) do not end in standings that a [`RatingSystem`]
//! could rate: their server logs are a stream of *events* — one player fragged another,
//! someone fell into the lava, a team captured the flag. This module ranks players from
//! that stream, frag by frag, as Michael Becker's article on ranking Quake players
//! (2001, translated 2002) describes:
//!
//! - [`FragRanking`] is the **dynamic ranking**: every player starts at strength 0; every
//!   frag is a 1 : 0 duel between killer and victim with an Elo-like update
//!   `g_i += K (e_ij − w_ij)`, where `w_ij = 1/(1 + 10^((g_j − g_i)/400))` is i's win
//!   probability (the article prints the exponent with the opposite sign, a slip that would
//!   make the stronger player the underdog). Strengths never go below 0. Suicides and
//!   deaths by the world cost `K/2`; a team kill costs the killer `K/2` and leaves the
//!   victim alone; weighted events (a CTF capture, worth 7 frags by default) scale K and
//!   take the opposing team's mean strength as the opponent. Strengths *decay* per game
//!   and per day so that players who stop playing fall down the list.
//! - [`FragMatrix`] + [`static_strengths`] are the **static strengths** over a period:
//!   from the sparse matrix of frags between pairs that met,
//!   `g_i = mean_j (a_ij − a_ji)/(a_ij + a_ji)`, optionally restricted to a *core* of
//!   players of which every pair exchanged at least `m` frags.
//!
//! Memory is O(players) for the dynamic ranking: logs are read as a stream and every
//! event is applied and forgotten. The frag matrix is O(pairs that met).
//!
//! This is deliberately not a [`RatingSystem`]: there are no standings to rate.
//!
//! ```
//! use podium::frags::{FragConfig, FragEvent, FragRanking};
//!
//! let mut ranking = FragRanking::new(FragConfig::default()); // K = 8
//! let ann = ranking.player("ann");
//! let bo = ranking.player("bo");
//! ranking.apply(FragEvent::Frag { killer: ann, victim: bo });
//! // Equal strengths: ann expected 0.5 and won, so she gains K/2; bo would lose K/2 but
//! // strengths stop at 0.
//! assert!((ranking.strength(ann) - 4.0).abs() < 1e-12);
//! assert_eq!(ranking.strength(bo), 0.0);
//! ranking.apply(FragEvent::Suicide { player: ann });
//! assert!((ranking.strength(ann) - 0.0).abs() < 1e-12); // −K/2
//! assert_eq!(ranking.standings()[0].stats.frags, 1);
//! ```
//!
//! ## Parameters ([`FragConfig`], settable with `--set key=value`)
//!
//! | name | default | meaning |
//! |---|---|---|
//! | `k` | 8 | step size of one frag |
//! | `scale` | 400 | strength difference D of the logistic curve |
//! | `frag_points` | 1 | weight x of a frag, suicide or team kill |
//! | `capture_points` | 7 | weight x of a flag capture (the article's example) |
//! | `decay_per_game` | 0 | points every strength loses after each game |
//! | `decay_per_day` | 1 | points every strength loses per calendar day |
//!
//! **Why K = 8.** The article gives no K. A frag is a tiny game: a player of an evening
//! takes part in a hundred of them, where a chess player plays one game. With K = 8 the
//! random walk of an evening of 100 frags between equals has a spread of about
//! `K/2 · √100 = 40` points, while a player who wins 3 frags out of 4 settles
//! `400 · log10 3 ≈ 191` points above their opponents within a few hundred frags: the
//! ranking converges in a few evenings and does not jump on one lucky map. K = 32 (the
//! chess value) moves a player 16 points per frag between equals: one lucky run of 20
//! frags lifts a player by about 220 points, more than the 191 that a lasting 3 : 1 frag
//! ratio is worth.
//!
//! **Why decay per day, 1 point.** Real absence is measured in days, not in games: a
//! per-game decay also takes points from everyone while a session of short maps (and
//! the warm-up restarts of OSP servers) rushes by. One point a day costs a player who
//! stays away for a month 30 points (a 54 : 46 frag ratio), for a year most of a
//! typical spread. Logs without dates (plain ioq3 `games.log` has only minutes since
//! the map started) get no day decay; set `decay_per_game` for those if wanted.
//!
//! [`RatingSystem`]: crate::RatingSystem

mod dynamic;
mod matrix;

pub use dynamic::{
    duel_result, win_probability, Change, FragEvent, FragRanking, FragStanding, FragStats,
    FragUpdate, Opponent, PlayerId,
};
pub use matrix::{static_strengths, FragMatrix, StaticStrength};

/// Parameters of the dynamic frag ranking. Build with `FragConfig { k: 16.0,
/// ..Default::default() }` or from text with [`Configure::set`](crate::Configure::set).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FragConfig {
    /// Step size K of one frag (a 1 : 0 duel). Default 8 (see the module docs for why).
    pub k: f64,
    /// Strength difference D of the logistic win probability. Default 400 (Becker's
    /// article, as Elo's).
    pub scale: f64,
    /// Weight x of a frag, a suicide and a team kill: K is multiplied by it. Default 1.
    pub frag_points: f64,
    /// Weight x of a flag capture. Default 7 (the article's example).
    pub capture_points: f64,
    /// Points every strength loses after each game, floored at 0. Default 0.
    pub decay_per_game: f64,
    /// Points every strength loses per calendar day that passes, floored at 0. Default 1.
    pub decay_per_day: f64,
}

impl Default for FragConfig {
    fn default() -> Self {
        FragConfig {
            k: 8.0,
            scale: 400.0,
            frag_points: 1.0,
            capture_points: 7.0,
            decay_per_game: 0.0,
            decay_per_day: 1.0,
        }
    }
}

// The upper bounds keep the arithmetic finite: one event moves a strength by at most
// K × its weight ≤ 10¹², so even 10²⁸⁰ events could not reach the largest `f64`; a day's
// decay times the days a log can span (10⁴ years) stays far below it too.
crate::configure!(FragConfig, "frags" {
    k: f64 where |v| v > 0.0 && v <= 1e6, "> 0 and ≤ 1e6" => "step size K of one frag (a 1:0 duel)",
    scale: f64 where |v| v > 0.0 && v <= 1e9, "> 0 and ≤ 1e9" => "strength difference D of the logistic win probability",
    frag_points: f64 where |v| (0.0..=1e6).contains(&v), ">= 0 and ≤ 1e6" => "weight of a frag, suicide or team kill (K is multiplied by it)",
    capture_points: f64 where |v| (0.0..=1e6).contains(&v), ">= 0 and ≤ 1e6" => "weight of a flag capture, against the opposing team's mean strength",
    decay_per_game: f64 where |v| (0.0..=1e9).contains(&v), ">= 0 and ≤ 1e9" => "points every strength loses after each game (floored at 0)",
    decay_per_day: f64 where |v| (0.0..=1e9).contains(&v), ">= 0 and ≤ 1e9" => "points every strength loses per calendar day (floored at 0)",
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Configure;

    #[test]
    fn regression_a_k_that_overflows_is_refused() {
        // K = 1e308 made every strength infinite on the first capture.
        let mut config = FragConfig::default();
        let err = config.set("k", "1e308").unwrap_err();
        assert_eq!(
            err.to_string(),
            "parameter k: \"1e308\" is not valid, expected a finite number > 0 and ≤ 1e6"
        );
        for (key, value) in [
            ("scale", "1e10"),
            ("frag_points", "1e7"),
            ("capture_points", "-1"),
            ("decay_per_game", "1e10"),
            ("decay_per_day", "inf"),
        ] {
            assert!(config.set(key, value).is_err(), "{key}={value}");
        }
        assert_eq!(config, FragConfig::default());
    }

    #[test]
    fn the_largest_settings_keep_every_strength_finite() {
        for scale in [1e-300, 1.0, 1e9] {
            let mut ranking = FragRanking::new(FragConfig {
                k: 1e6,
                scale,
                frag_points: 1e6,
                capture_points: 1e6,
                decay_per_game: 0.0,
                decay_per_day: 0.0,
            });
            let p: Vec<_> = ["a", "b", "c"].iter().map(|n| ranking.player(n)).collect();
            for i in 0..30_000 {
                let (k, v) = (p[i % 3], p[(i / 3) % 3]);
                if k == v {
                    ranking.apply(FragEvent::Suicide { player: k });
                } else if i % 7 == 0 {
                    ranking.apply(FragEvent::Capture {
                        player: k,
                        opponents: &[v],
                    });
                } else {
                    ranking.apply(FragEvent::Frag {
                        killer: k,
                        victim: v,
                    });
                }
            }
            for s in ranking.standings() {
                assert!(
                    s.strength.is_finite() && s.strength >= 0.0,
                    "{scale}: {s:?}"
                );
            }
        }
    }
}
