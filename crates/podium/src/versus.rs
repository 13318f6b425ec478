//! Head-to-head: who beats whom, and by how much more than the ratings expected.
//!
//! A [`HeadToHead`] is fed every match with the league **before** it is rated
//! ([`HeadToHead::observe`], then [`League::apply`]). For every two players on different
//! entries of a match (a meeting) it counts who finished ahead, the ties apart, and the
//! chance the ratings gave each of finishing ahead at the time: the league's prediction
//! ([`League::predict`]) of the two entries met alone, with the ratings before the match.
//! Teammates are counted apart (`together`) and are not a meeting.
//!
//! - **expected share** of `a` against `b`: the mean over their meetings of
//!   `P(a ahead of b) + ½ P(level)` (the draw share only for systems with a draw model);
//! - **actual share**: `(a ahead + ½ ties) / meetings`;
//! - **surplus**: `Σ (actual − expected)` over the meetings, in games: how many meetings
//!   more than the ratings expected `a` came out ahead.
//!
//! A player's **nemesis** is the opponent against whom their surplus is the most negative,
//! the **favourite opponent** the one against whom it is the most positive, among the
//! opponents met at least `min_meetings` times.
//!
//! ```
//! use podium::versus::HeadToHead;
//! use podium::{League, Match};
//! let mut league = League::new(podium::system("sme", &podium::Settings::new())?);
//! let mut h2h = HeadToHead::new();
//! for (i, order) in [["ann", "bo", "cy"], ["bo", "ann", "cy"], ["ann", "cy", "bo"]].iter().enumerate() {
//!     let game = Match::ranked(format!("g{i}"), order)?;
//!     h2h.observe(&league, &game)?;
//!     league.apply(&game)?;
//! }
//! let v = h2h.versus("ann", "bo").unwrap();
//! assert_eq!((v.meetings, v.ahead, v.behind, v.ties), (3, 2, 1, 0));
//! // Even at the first meeting, ann a little favoured at the next two (sme's 1,500 start).
//! assert!((v.expected_share - 0.506_26).abs() < 1e-5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, HashSet};

use crate::error::RateError;
use crate::league::League;
use crate::model::{Entry, Finish, Match};

/// What two players' meetings add up to, from the first player's side.
#[derive(Debug, Clone, Default, PartialEq)]
struct Tally {
    meetings: u32,
    ahead: u32,
    behind: u32,
    ties: u32,
    together: u32,
    /// Σ over the meetings of the first player's expected score.
    expected: f64,
}

/// Two players' record against each other, from `player`'s side.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Versus {
    /// The player.
    pub player: String,
    /// The opponent.
    pub opponent: String,
    /// Matches in which they played on different entries.
    pub meetings: u32,
    /// Meetings `player` finished ahead of `opponent`.
    pub ahead: u32,
    /// Meetings `opponent` finished ahead.
    pub behind: u32,
    /// Meetings they finished level.
    pub ties: u32,
    /// Matches in which they played on the same team (not meetings).
    pub together: u32,
    /// `(ahead + ½ ties) / meetings` (0 without meetings).
    pub actual_share: f64,
    /// Mean over the meetings of `player`'s expected score by the ratings at the time
    /// (0 without meetings).
    pub expected_share: f64,
    /// `Σ (actual − expected)` over the meetings: meetings won beyond expectation.
    pub surplus: f64,
}

impl Versus {
    /// The record of two players who never played in one match: every count 0.
    #[must_use]
    pub fn never_met(player: &str, opponent: &str) -> Self {
        view(player, opponent, &Tally::default(), true)
    }
}

/// A player's rivals ([`HeadToHead::rivals`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Rivals {
    /// The player.
    pub player: String,
    /// The opponent who beats the player most beyond expectation (the most negative
    /// surplus, if any is negative).
    pub nemesis: Option<Versus>,
    /// The opponent the player beats most beyond expectation (the most positive surplus,
    /// if any is positive).
    pub favourite: Option<Versus>,
    /// Opponents by meetings, most first (then by name).
    pub frequent: Vec<Versus>,
}

/// Head-to-head records, accumulated match by match (see the [module docs](self)).
#[derive(Debug, Clone, Default)]
pub struct HeadToHead {
    /// Only pairs with one of these players are kept (all pairs when `None`).
    focus: Option<HashSet<String>>,
    /// `(a, b)` with `a < b` → the tally from `a`'s side.
    pairs: HashMap<(String, String), Tally>,
}

impl HeadToHead {
    /// Records every pair of players met. A match of `n` entries adds up to `n(n−1)/2`
    /// pairs and as many predictions: for large fields, [`HeadToHead::focused`].
    #[must_use]
    pub fn new() -> Self {
        HeadToHead::default()
    }

    /// Records only pairs with one of `players` in them.
    #[must_use]
    pub fn focused<S: AsRef<str>>(players: &[S]) -> Self {
        HeadToHead {
            focus: Some(players.iter().map(|p| p.as_ref().to_string()).collect()),
            pairs: HashMap::new(),
        }
    }

    fn wanted(&self, a: &str, b: &str) -> bool {
        self.focus
            .as_ref()
            .map_or(true, |f| f.contains(a) || f.contains(b))
    }

    /// Counts `game` with the league as it stands before rating it.
    ///
    /// # Errors
    /// The system's [`RateError`] when it cannot predict a meeting of two entries; nothing
    /// is counted then.
    pub fn observe(&mut self, league: &League, game: &Match) -> Result<(), RateError> {
        let entries = game.entries();
        let names: Vec<Vec<&str>> = entries
            .iter()
            .map(|e| e.members.iter().map(|m| m.player.as_str()).collect())
            .collect();
        // Teammates.
        let mut add: Vec<((String, String), Tally)> = Vec::new();
        for team in &names {
            for (x, a) in team.iter().enumerate() {
                for b in &team[x + 1..] {
                    if self.wanted(a, b) {
                        let key = ordered(a, b);
                        add.push((
                            (key.0.to_string(), key.1.to_string()),
                            Tally {
                                together: 1,
                                ..Tally::default()
                            },
                        ));
                    }
                }
            }
        }
        // Only entries that hold a wanted player take part in a wanted pair: each such
        // entry against every other, a pair of two of them once (all pairs when
        // nothing is focused on), so that a large field costs its size, not its square.
        let hot: Vec<bool> = names
            .iter()
            .map(|team| {
                self.focus
                    .as_ref()
                    .map_or(true, |f| team.iter().any(|p| f.contains(*p)))
            })
            .collect();
        let (n, hot) = (entries.len(), &hot);
        let meetings = (0..n).filter(|&h| hot[h]).flat_map(|h| {
            (0..n)
                .filter(move |&j| j != h && !(hot[j] && j < h))
                .map(move |j| (h.min(j), h.max(j)))
        });
        for (i, j) in meetings {
            let pairs: Vec<(&str, &str)> = names[i]
                .iter()
                .flat_map(|a| names[j].iter().map(move |b| (*a, *b)))
                .filter(|(a, b)| self.wanted(a, b))
                .collect();
            if pairs.is_empty() {
                continue;
            }
            let (pi, _) = duel(league, game, i, j)?;
            let tied = game.tied(i, j);
            // Entries are sorted best first: i < j and not tied means i ahead.
            for (a, b) in pairs {
                // From the side of the pair's first name.
                let (p, first_ahead) = if a < b {
                    (pi, !tied)
                } else {
                    (1.0 - pi, false)
                };
                let key = ordered(a, b);
                let t = Tally {
                    meetings: 1,
                    ahead: u32::from(first_ahead),
                    behind: u32::from(!tied && !first_ahead),
                    ties: u32::from(tied),
                    together: 0,
                    expected: p,
                };
                add.push(((key.0.to_string(), key.1.to_string()), t));
            }
        }
        for (key, t) in add {
            let e = self.pairs.entry(key).or_default();
            e.meetings += t.meetings;
            e.ahead += t.ahead;
            e.behind += t.behind;
            e.ties += t.ties;
            e.together += t.together;
            e.expected += t.expected;
        }
        Ok(())
    }

    /// `player`'s record against `opponent`, if they ever played in one match.
    #[must_use]
    pub fn versus(&self, player: &str, opponent: &str) -> Option<Versus> {
        let (a, b) = ordered(player, opponent);
        let t = self.pairs.get(&(a.to_string(), b.to_string()))?;
        Some(view(player, opponent, t, player == a))
    }

    /// Every opponent `player` met, from `player`'s side, by name.
    #[must_use]
    pub fn opponents(&self, player: &str) -> Vec<Versus> {
        let mut out: Vec<Versus> = self
            .pairs
            .iter()
            .filter_map(|((a, b), t)| {
                if a == player {
                    Some(view(a, b, t, true))
                } else if b == player {
                    Some(view(b, a, t, false))
                } else {
                    None
                }
            })
            .filter(|v| v.meetings > 0)
            .collect();
        out.sort_by(|x, y| x.opponent.cmp(&y.opponent));
        out
    }

    /// `player`'s nemesis, favourite opponent and most frequent opponents (`frequent`
    /// of them), among opponents met at least `min_meetings` times.
    #[must_use]
    pub fn rivals(&self, player: &str, min_meetings: u32, frequent: usize) -> Rivals {
        let all: Vec<Versus> = self
            .opponents(player)
            .into_iter()
            .filter(|v| v.meetings >= min_meetings.max(1))
            .collect();
        let nemesis = all
            .iter()
            .filter(|v| v.surplus < 0.0)
            .min_by(|x, y| x.surplus.total_cmp(&y.surplus))
            .cloned();
        let favourite = all
            .iter()
            .filter(|v| v.surplus > 0.0)
            .max_by(|x, y| {
                x.surplus
                    .total_cmp(&y.surplus)
                    .then(y.opponent.cmp(&x.opponent))
            })
            .cloned();
        let mut by_meetings = all;
        by_meetings.sort_by(|x, y| {
            y.meetings
                .cmp(&x.meetings)
                .then(x.opponent.cmp(&y.opponent))
        });
        by_meetings.truncate(frequent);
        Rivals {
            player: player.to_string(),
            nemesis,
            favourite,
            frequent: by_meetings,
        }
    }
}

fn ordered<'s>(a: &'s str, b: &'s str) -> (&'s str, &'s str) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

fn view(player: &str, opponent: &str, t: &Tally, first: bool) -> Versus {
    let (ahead, behind, expected) = if first {
        (t.ahead, t.behind, t.expected)
    } else {
        (t.behind, t.ahead, f64::from(t.meetings) - t.expected)
    };
    let m = f64::from(t.meetings);
    let actual = f64::from(ahead) + 0.5 * f64::from(t.ties);
    Versus {
        player: player.to_string(),
        opponent: opponent.to_string(),
        meetings: t.meetings,
        ahead,
        behind,
        ties: t.ties,
        together: t.together,
        actual_share: if m > 0.0 { actual / m } else { 0.0 },
        expected_share: if m > 0.0 { expected / m } else { 0.0 },
        surplus: actual - expected,
    }
}

/// Entry `i`'s expected score against entry `j` of `game` met alone (`P(i ahead) +
/// ½ P(level)`), and `P(level)`, by the league's prediction with the ratings before
/// `game`.
fn duel(league: &League, game: &Match, i: usize, j: usize) -> Result<(f64, f64), RateError> {
    let level = |e: &Entry| Entry {
        finish: Finish::Rank(1.0),
        ..e.clone()
    };
    let mut b = Match::builder(game.id());
    if let Some(t) = game.time() {
        b = b.time(t);
    }
    let pair = b
        .entry(level(&game.entries()[i]))
        .entry(level(&game.entries()[j]))
        .build()
        .expect("two entries of a valid match form a valid match");
    let p = league.predict(&pair)?;
    let draw = (1.0 - p.ahead[0][1] - p.ahead[1][0]).max(0.0);
    Ok((p.ahead[0][1] + 0.5 * draw, draw))
}

/// Today's chance that `player` finishes ahead of `opponent` met alone (`P(ahead) +
/// ½ P(level)`), by the league's prediction at `time` (ratings of systems with σ aged to
/// it; `None`: not aged).
///
/// # Errors
/// The system's [`RateError`] when it cannot predict a two-player match, or
/// [`RateError::InvalidMatch`] for an invalid or repeated player id.
pub fn today(
    league: &League,
    player: &str,
    opponent: &str,
    time: Option<i64>,
) -> Result<f64, RateError> {
    let mut b = Match::builder("today");
    if let Some(t) = time {
        b = b.time(t);
    }
    let game = b
        .player(player, Finish::Rank(1.0))
        .player(opponent, Finish::Rank(1.0))
        .build()?;
    Ok(duel(league, &game, 0, 1)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Settings;
    use proptest::prelude::*;

    /// The matches of `examples/game-night.csv` (time,match,game,player,score,...), in
    /// file order, scores higher is better.
    fn game_night() -> Vec<Match> {
        let text = include_str!("../../../examples/game-night.csv");
        let mut out: Vec<(String, Vec<(String, f64)>)> = Vec::new();
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let (id, player, score) = (f[1], f[3], f[4].parse::<f64>().unwrap());
            match out.last_mut() {
                Some((last, rows)) if last == id => rows.push((player.to_string(), score)),
                _ => out.push((id.to_string(), vec![(player.to_string(), score)])),
            }
        }
        out.into_iter()
            .map(|(id, rows)| {
                rows.iter()
                    .fold(Match::builder(id), |b, (p, s)| {
                        b.player(p.as_str(), Finish::Score(*s))
                    })
                    .build()
                    .unwrap()
            })
            .collect()
    }

    /// Counts a pair directly: meetings, `a` ahead, `b` ahead, ties, and the sum of the
    /// pre-match `P(a ahead of b)` of the system's two-player prediction.
    fn direct(system: &str, games: &[Match], a: &str, b: &str) -> (u32, u32, u32, u32, f64) {
        let mut league = League::new(crate::system(system, &Settings::new()).unwrap());
        let mut c = (0, 0, 0, 0, 0.0);
        for g in games {
            let find = |p: &str| g.players().find(|(_, m)| m.player == p).map(|(e, _)| e);
            if let (Some(ea), Some(eb)) = (find(a), find(b)) {
                let finish = |e: usize| match g.entries()[e].finish {
                    Finish::Score(s) => s,
                    Finish::Rank(r) => -r,
                };
                c.0 += 1;
                if finish(ea) > finish(eb) {
                    c.1 += 1;
                } else if finish(eb) > finish(ea) {
                    c.2 += 1;
                } else {
                    c.3 += 1;
                }
                let pair = Match::ranked("x", &[a, b]).unwrap();
                let p = league.predict(&pair).unwrap();
                c.4 += p.ahead[0][1] + 0.5 * (1.0 - p.ahead[0][1] - p.ahead[1][0]);
            }
            league.apply(g).unwrap();
        }
        c
    }

    fn feed(system: &str, games: &[Match], mut h: HeadToHead) -> (HeadToHead, League) {
        let mut league = League::new(crate::system(system, &Settings::new()).unwrap());
        for g in games {
            h.observe(&league, g).unwrap();
            league.apply(g).unwrap();
        }
        (h, league)
    }

    #[test]
    fn the_game_night_figures_equal_a_direct_count() {
        let games = game_night();
        for system in ["sme", "trueskill", "kalman-mmr"] {
            let (h, league) = feed(system, &games, HeadToHead::new());
            let names: Vec<String> = league.players().iter().map(|p| p.name.clone()).collect();
            for a in &names {
                for b in names.iter().filter(|b| *b != a) {
                    let (m, ahead, behind, ties, expected) = direct(system, &games, a, b);
                    match h.versus(a, b) {
                        None => assert_eq!(m, 0),
                        Some(v) => {
                            assert_eq!(
                                (v.meetings, v.ahead, v.behind, v.ties),
                                (m, ahead, behind, ties)
                            );
                            let actual = f64::from(ahead) + 0.5 * f64::from(ties);
                            assert!(
                                (v.surplus - (actual - expected)).abs() < 1e-9,
                                "{system} {a} {b}"
                            );
                            assert!((v.expected_share * f64::from(m) - expected).abs() < 1e-9);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_focused_record_equals_the_full_one_for_its_players() {
        let games = game_night();
        let (all, _) = feed("sme", &games, HeadToHead::new());
        let (kate, _) = feed("sme", &games, HeadToHead::focused(&["Kate"]));
        assert_eq!(all.opponents("Kate"), kate.opponents("Kate"));
        assert_eq!(kate.versus("Sam", "Tom"), None);
        let r = all.rivals("Kate", 3, 3);
        assert_eq!(r, kate.rivals("Kate", 3, 3));
        if let Some(n) = &r.nemesis {
            assert!(n.surplus < 0.0 && n.meetings >= 3);
            assert!(all
                .opponents("Kate")
                .iter()
                .filter(|v| v.meetings >= 3)
                .all(|v| v.surplus >= n.surplus));
        }
    }

    #[test]
    fn teammates_are_counted_together_not_as_a_meeting() {
        let mut league = League::new(crate::system("sme", &Settings::new()).unwrap());
        let mut h = HeadToHead::new();
        let g = Match::builder("t")
            .team("x", ["ann", "bo"], Finish::Rank(1.0))
            .team("y", ["cy", "dee"], Finish::Rank(2.0))
            .build()
            .unwrap();
        h.observe(&league, &g).unwrap();
        league.apply(&g).unwrap();
        let v = h.versus("bo", "ann").unwrap();
        assert_eq!((v.meetings, v.together), (0, 1));
        let v = h.versus("dee", "ann").unwrap();
        assert_eq!((v.meetings, v.ahead, v.behind), (1, 0, 1));
        assert!((v.expected_share - 0.5).abs() < 1e-12);
        assert!(
            (today(&league, "ann", "dee", None).unwrap() - 1.0
                + today(&league, "dee", "ann", None).unwrap())
            .abs()
                < 1e-12
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        #[test]
        fn random_ledgers_match_a_direct_count(
            games in proptest::collection::vec(
                (proptest::collection::vec(0usize..6, 2..6), proptest::collection::vec(0u32..3, 6)),
                1..25,
            )
        ) {
            let matches: Vec<Match> = games
                .iter()
                .enumerate()
                .filter_map(|(g, (who, places))| {
                    let mut seen = Vec::new();
                    let mut b = Match::builder(format!("g{g}"));
                    for (k, &p) in who.iter().enumerate() {
                        if !seen.contains(&p) {
                            seen.push(p);
                            b = b.player(format!("p{p}"), Finish::Rank(f64::from(places[k])));
                        }
                    }
                    (seen.len() >= 2).then(|| b.build().unwrap())
                })
                .collect();
            let (h, _) = feed("sme", &matches, HeadToHead::new());
            // Focused on two players (who may meet each other): their records are the
            // full ones, bit for bit.
            let (f, _) = feed("sme", &matches, HeadToHead::focused(&["p0", "p1"]));
            for p in ["p0", "p1"] {
                prop_assert_eq!(f.opponents(p), h.opponents(p));
            }
            for a in 0..6 {
                for b in 0..6 {
                    if a == b { continue; }
                    let (a, b) = (format!("p{a}"), format!("p{b}"));
                    let (m, ahead, behind, ties, expected) = direct("sme", &matches, &a, &b);
                    let v = h.versus(&a, &b);
                    prop_assert_eq!(v.as_ref().map_or(0, |v| v.meetings), m);
                    if let Some(v) = v {
                        prop_assert_eq!((v.ahead, v.behind, v.ties), (ahead, behind, ties));
                        prop_assert!((v.expected_share * f64::from(m) - expected).abs() < 1e-9);
                    }
                }
            }
        }
    }
}
