//! The dynamic frag ranking: one Elo-like duel per event, strengths floored at 0.

use std::collections::HashMap;

use super::FragConfig;

/// A player of a [`FragRanking`], by the order they were first seen (dense from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlayerId(pub u32);

impl PlayerId {
    /// The id as an index into per-player vectors.
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The opponent of a weighted event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Opponent<'a> {
    /// A well-defined opponent: it gets the mirrored `0 : x` result.
    Player(PlayerId),
    /// No single opponent (a flag capture): an imaginary opponent with the mean strength
    /// of these players (the opposing team). Only the actor is updated. An empty team
    /// counts as an opponent of the actor's own strength.
    Team(&'a [PlayerId]),
}

/// One event of a game log, in log order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FragEvent<'a> {
    /// `killer` fragged `victim`: a `1 : 0` duel (weight `frag_points`).
    Frag {
        /// Who scored the frag.
        killer: PlayerId,
        /// Who died.
        victim: PlayerId,
    },
    /// The player killed themself: `−1 : 0` against an imaginary opponent of their own
    /// strength, which costs `K/2` (times `frag_points`).
    Suicide {
        /// Who died.
        player: PlayerId,
    },
    /// The world (lava, falling, a trigger) killed the player: counted as a suicide.
    WorldKill {
        /// Who died.
        victim: PlayerId,
    },
    /// `killer` fragged a team mate: `−1 : 0` for the killer against an imaginary
    /// opponent of its own strength; the victim is not ranked down.
    TeamKill {
        /// Who fired.
        killer: PlayerId,
        /// The team mate who died (counted as a death, not rated).
        victim: PlayerId,
    },
    /// A flag capture: a weighted `capture_points : 0` result against the mean strength
    /// of the opposing team; only the capturer is updated.
    Capture {
        /// Who captured.
        player: PlayerId,
        /// The players of the opposing team at that moment.
        opponents: &'a [PlayerId],
    },
    /// Any weighted event worth `points`: an `x : 0` result for `actor` (K scaled by x).
    Weighted {
        /// Who scored.
        actor: PlayerId,
        /// The event's weight x.
        points: f64,
        /// Against whom.
        opponent: Opponent<'a>,
    },
    /// A whole duel summarised as frag counts `frags_a : frags_b`, each side's suicides
    /// subtracted from its frags (see [`duel_result`]); one update with `K`. A duel of a
    /// player against themself moves nothing.
    Duel {
        /// One player.
        a: PlayerId,
        /// The other.
        b: PlayerId,
        /// Frags of `a` against `b`.
        frags_a: u32,
        /// Frags of `b` against `a`.
        frags_b: u32,
        /// Suicides of `a` during the duel.
        suicides_a: u32,
        /// Suicides of `b` during the duel.
        suicides_b: u32,
    },
}

/// How one player's strength moved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// The player.
    pub player: PlayerId,
    /// Strength before the event.
    pub before: f64,
    /// The player's win probability `w` (0.5 against an imaginary equal).
    pub expected: f64,
    /// The player's result `e` of the event.
    pub actual: f64,
    /// The step used: K times the event's weight.
    pub k: f64,
    /// Strength after the event (floored at 0).
    pub after: f64,
}

impl Change {
    /// `after − before`.
    #[must_use]
    pub fn delta(&self) -> f64 {
        self.after - self.before
    }
}

/// The players an event moved: zero, one or two.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FragUpdate {
    /// The actor's (killer's, capturer's) change, if rated.
    pub first: Option<Change>,
    /// The opponent's change, if rated.
    pub second: Option<Change>,
}

impl FragUpdate {
    /// The changes, actor first.
    pub fn changes(&self) -> impl Iterator<Item = &Change> {
        self.first.iter().chain(self.second.iter())
    }
}

/// Counters of one player, for leaderboards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FragStats {
    /// Kills of other players (team kills included).
    pub frags: u32,
    /// Times killed, by anyone or anything (suicides included).
    pub deaths: u32,
    /// Own suicides plus deaths by the world.
    pub suicides: u32,
    /// Of the suicides, those by the world.
    pub world_deaths: u32,
    /// Of the frags, those of team mates.
    pub team_kills: u32,
    /// Flag captures.
    pub captures: u32,
    /// Games the player took part in (had any rated event in).
    pub games: u32,
}

/// One row of the frag leaderboard.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FragStanding {
    /// 1-based place (equal strengths share a place).
    pub position: usize,
    /// The player's name.
    pub player: String,
    /// The player's id in the ranking.
    pub id: PlayerId,
    /// Current strength.
    pub strength: f64,
    /// Counters.
    pub stats: FragStats,
}

/// i's probability to win a duel against j: `1/(1 + 10^((g_j − g_i)/scale))`.
#[must_use]
pub fn win_probability(g_i: f64, g_j: f64, scale: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf((g_j - g_i) / scale))
}

/// The result `e_ab` of a duel that ended `frags_a : frags_b`, each side's suicides
/// subtracted from its frags. Each side that goes negative is subtracted from both
/// sides (`6 : −2` becomes `8 : 0`; `−3 : −5` becomes `0 : −2`, then `5 : 3`); `0 : 0`
/// is 0.5.
///
/// ```
/// use podium::frags::duel_result;
/// assert_eq!(duel_result(6, 0, 0, 2), 1.0); // 6 : −2 → 8 : 0
/// assert_eq!(duel_result(0, 0, 3, 5), 0.625); // −3 : −5 → 5 : 3
/// assert_eq!(duel_result(0, 0, 0, 0), 0.5);
/// ```
#[must_use]
pub fn duel_result(frags_a: u32, frags_b: u32, suicides_a: u32, suicides_b: u32) -> f64 {
    let mut a = f64::from(frags_a) - f64::from(suicides_a);
    let mut b = f64::from(frags_b) - f64::from(suicides_b);
    // Each negative side is subtracted from both sides (Becker's two examples).
    let shift = a.min(0.0) + b.min(0.0);
    a -= shift;
    b -= shift;
    if a + b == 0.0 {
        0.5
    } else {
        a / (a + b)
    }
}

/// The dynamic frag ranking: strengths of every player seen, updated event by event.
#[derive(Debug, Clone)]
pub struct FragRanking {
    config: FragConfig,
    names: Vec<String>,
    index: HashMap<String, PlayerId>,
    strength: Vec<f64>,
    stats: Vec<FragStats>,
    in_game: Vec<bool>,
    game_players: Vec<PlayerId>,
    day: Option<i64>,
    games: u64,
}

impl FragRanking {
    /// An empty ranking.
    #[must_use]
    pub fn new(config: FragConfig) -> Self {
        FragRanking {
            config,
            names: Vec::new(),
            index: HashMap::new(),
            strength: Vec::new(),
            stats: Vec::new(),
            in_game: Vec::new(),
            game_players: Vec::new(),
            day: None,
            games: 0,
        }
    }

    /// The config in use.
    #[must_use]
    pub fn config(&self) -> &FragConfig {
        &self.config
    }

    /// The id of a player by name, adding them at strength 0 when new.
    pub fn player(&mut self, name: &str) -> PlayerId {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = PlayerId(u32::try_from(self.names.len()).expect("fewer than 2^32 players"));
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), id);
        self.strength.push(0.0);
        self.stats.push(FragStats::default());
        self.in_game.push(false);
        id
    }

    /// The id of a known player.
    #[must_use]
    pub fn id(&self, name: &str) -> Option<PlayerId> {
        self.index.get(name).copied()
    }

    /// A player's name.
    ///
    /// # Panics
    /// If `id` was not handed out by this ranking.
    #[must_use]
    pub fn name(&self, id: PlayerId) -> &str {
        &self.names[id.index()]
    }

    /// Number of players seen.
    #[must_use]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no player has been seen.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// A player's current strength.
    #[must_use]
    pub fn strength(&self, id: PlayerId) -> f64 {
        self.strength[id.index()]
    }

    /// A player's counters.
    #[must_use]
    pub fn stats(&self, id: PlayerId) -> &FragStats {
        &self.stats[id.index()]
    }

    /// Games ended so far.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.games
    }

    fn touch(&mut self, id: PlayerId) {
        let seen = &mut self.in_game[id.index()];
        if !*seen {
            *seen = true;
            self.game_players.push(id);
        }
    }

    /// Moves one player by `k (actual − expected)`, flooring at 0.
    fn step(&mut self, player: PlayerId, expected: f64, actual: f64, k: f64) -> Change {
        let before = self.strength[player.index()];
        let after = (before + k * (actual - expected)).max(0.0);
        self.strength[player.index()] = after;
        Change {
            player,
            before,
            expected,
            actual,
            k,
            after,
        }
    }

    /// A duel between two players with result `e_ab` for `a`, step `k`; both updated from
    /// their pre-event strengths.
    fn duel(&mut self, a: PlayerId, b: PlayerId, e_ab: f64, k: f64) -> FragUpdate {
        let (ga, gb) = (self.strength(a), self.strength(b));
        let w_ab = win_probability(ga, gb, self.config.scale);
        let first = self.step(a, w_ab, e_ab, k);
        let second = self.step(b, 1.0 - w_ab, 1.0 - e_ab, k);
        FragUpdate {
            first: Some(first),
            second: Some(second),
        }
    }

    /// `−1 : 0` against an imaginary equal: result 0, expectation ½.
    fn penalty(&mut self, player: PlayerId) -> Change {
        let k = self.config.k * self.config.frag_points;
        self.step(player, 0.5, 0.0, k)
    }

    /// `x : 0` for `actor` against `opponent` (K scaled by `points`).
    fn weighted(&mut self, actor: PlayerId, points: f64, opponent: Opponent<'_>) -> FragUpdate {
        let k = self.config.k * points;
        match opponent {
            Opponent::Player(other) => self.duel(actor, other, 1.0, k),
            Opponent::Team(team) => {
                let g = self.strength(actor);
                let mean = if team.is_empty() {
                    g
                } else {
                    team.iter().map(|&p| self.strength(p)).sum::<f64>() / team.len() as f64
                };
                let w = win_probability(g, mean, self.config.scale);
                FragUpdate {
                    first: Some(self.step(actor, w, 1.0, k)),
                    second: None,
                }
            }
        }
    }

    /// Applies one event and returns how strengths moved. Players of the event count as
    /// taking part in the current game.
    ///
    /// A frag of oneself given as [`FragEvent::Frag`] is treated as a suicide.
    pub fn apply(&mut self, event: FragEvent<'_>) -> FragUpdate {
        match event {
            // A duel or weighted event of a player against themself moves nothing.
            FragEvent::Duel { a, b, .. } if a == b => FragUpdate::default(),
            FragEvent::Weighted {
                actor,
                opponent: Opponent::Player(other),
                ..
            } if actor == other => FragUpdate::default(),
            FragEvent::Frag { killer, victim } if killer == victim => {
                self.apply(FragEvent::Suicide { player: killer })
            }
            FragEvent::Frag { killer, victim } => {
                self.touch(killer);
                self.touch(victim);
                self.stats[killer.index()].frags += 1;
                self.stats[victim.index()].deaths += 1;
                let k = self.config.k * self.config.frag_points;
                self.duel(killer, victim, 1.0, k)
            }
            FragEvent::Suicide { player } => {
                self.touch(player);
                let s = &mut self.stats[player.index()];
                s.suicides += 1;
                s.deaths += 1;
                FragUpdate {
                    first: Some(self.penalty(player)),
                    second: None,
                }
            }
            FragEvent::WorldKill { victim } => {
                self.touch(victim);
                let s = &mut self.stats[victim.index()];
                s.suicides += 1;
                s.world_deaths += 1;
                s.deaths += 1;
                FragUpdate {
                    first: Some(self.penalty(victim)),
                    second: None,
                }
            }
            FragEvent::TeamKill { killer, victim } => {
                self.touch(killer);
                self.touch(victim);
                let s = &mut self.stats[killer.index()];
                s.frags += 1;
                s.team_kills += 1;
                self.stats[victim.index()].deaths += 1;
                FragUpdate {
                    first: Some(self.penalty(killer)),
                    second: None,
                }
            }
            FragEvent::Capture { player, opponents } => {
                self.touch(player);
                self.stats[player.index()].captures += 1;
                let points = self.config.capture_points;
                self.weighted(player, points, Opponent::Team(opponents))
            }
            FragEvent::Weighted {
                actor,
                points,
                opponent,
            } => {
                self.touch(actor);
                if let Opponent::Player(other) = opponent {
                    self.touch(other);
                }
                self.weighted(actor, points, opponent)
            }
            FragEvent::Duel {
                a,
                b,
                frags_a,
                frags_b,
                suicides_a,
                suicides_b,
            } => {
                self.touch(a);
                self.touch(b);
                let s = &mut self.stats[a.index()];
                s.frags += frags_a;
                s.deaths += frags_b + suicides_a;
                s.suicides += suicides_a;
                let s = &mut self.stats[b.index()];
                s.frags += frags_b;
                s.deaths += frags_a + suicides_b;
                s.suicides += suicides_b;
                let e = duel_result(frags_a, frags_b, suicides_a, suicides_b);
                self.duel(a, b, e, self.config.k)
            }
        }
    }

    /// Ends the current game: every player who took part counts one more game, then
    /// every strength loses `decay_per_game` (floored at 0). Returns the players who
    /// took part, in the order they first appeared in the game.
    pub fn end_game(&mut self) -> Vec<PlayerId> {
        self.games += 1;
        let players = std::mem::take(&mut self.game_players);
        for &p in &players {
            self.in_game[p.index()] = false;
            self.stats[p.index()].games += 1;
        }
        self.decay(self.config.decay_per_game);
        players
    }

    /// Tells the ranking what day it is (days since any fixed epoch). When the day
    /// advanced since the last call, every strength loses `decay_per_day` per day passed
    /// (floored at 0). The first call only sets the clock; a day earlier than the clock
    /// (a log out of order) is ignored.
    pub fn set_day(&mut self, day: i64) {
        match self.day {
            Some(prev) if day > prev => {
                self.decay(self.config.decay_per_day * (day - prev) as f64);
                self.day = Some(day);
            }
            Some(_) => {}
            None => self.day = Some(day),
        }
    }

    fn decay(&mut self, points: f64) {
        if points > 0.0 {
            for g in &mut self.strength {
                *g = (*g - points).max(0.0);
            }
        }
    }

    /// The leaderboard: strongest first (ties by name), equal strengths share a place.
    #[must_use]
    pub fn standings(&self) -> Vec<FragStanding> {
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| {
            self.strength[b]
                .total_cmp(&self.strength[a])
                .then_with(|| self.names[a].cmp(&self.names[b]))
        });
        let mut out: Vec<FragStanding> = Vec::with_capacity(order.len());
        for (i, &p) in order.iter().enumerate() {
            let position = match out.last() {
                Some(prev) if prev.strength == self.strength[p] => prev.position,
                _ => i + 1,
            };
            out.push(FragStanding {
                position,
                player: self.names[p].clone(),
                id: PlayerId(p as u32),
                strength: self.strength[p],
                stats: self.stats[p],
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOL: f64 = 1e-9;

    fn ranking(k: f64) -> FragRanking {
        FragRanking::new(FragConfig {
            k,
            ..FragConfig::default()
        })
    }

    #[test]
    fn win_probability_has_the_sign_fixed() {
        // 100 points above: 0.640 (Elo's expectation), not 0.360 as Becker's printed formula.
        assert!((win_probability(100.0, 0.0, 400.0) - 0.640_064_999_8).abs() < 1e-9);
        assert!((win_probability(0.0, 100.0, 400.0) - 0.359_935_000_2).abs() < 1e-9);
    }

    #[test]
    fn duel_results_of_beckers_examples() {
        assert_eq!(duel_result(6, 0, 0, 2), 1.0);
        assert_eq!(duel_result(0, 0, 3, 5), 0.625);
        assert_eq!(duel_result(3, 1, 0, 0), 0.75);
        assert_eq!(duel_result(0, 0, 0, 0), 0.5);
        assert_eq!(duel_result(2, 2, 2, 2), 0.5);
        // 1 : 0 with one suicide of the winner: 0 : 0 → ½.
        assert_eq!(duel_result(1, 0, 1, 0), 0.5);
    }

    #[test]
    fn frag_sequence_by_hand() {
        // K = 8. Frag 1: equal strengths, w = ½: A +4, B −4 → clamped at 0.
        let mut r = ranking(8.0);
        let a = r.player("A");
        let b = r.player("B");
        let u = r.apply(FragEvent::Frag {
            killer: a,
            victim: b,
        });
        assert!((r.strength(a) - 4.0).abs() < TOL);
        assert_eq!(r.strength(b), 0.0);
        assert_eq!(u.first.unwrap().expected, 0.5);
        // Frag 2: B (0) kills A (4). w_BA = 1/(1+10^(4/400)) = 0.494244…
        // ΔB = 8 (1 − 0.494244) = +4.046050…; A: 4 − 4.046046 < 0 → 0.
        r.apply(FragEvent::Frag {
            killer: b,
            victim: a,
        });
        assert!(
            (r.strength(b) - 4.046_049_667_3).abs() < 1e-9,
            "{}",
            r.strength(b)
        );
        assert_eq!(r.strength(a), 0.0);
        // Frag 3: A (0) kills B (4.046046): w_AB = 1/(1+10^(4.046046/400)) = 0.494178…
        // ΔA = 8 · 0.505822… = 4.046577…, B = 4.046046 − 4.046577 < 0 → 0.
        r.apply(FragEvent::Frag {
            killer: a,
            victim: b,
        });
        assert!(
            (r.strength(a) - 4.046_579_762_6).abs() < 1e-9,
            "{}",
            r.strength(a)
        );
        assert_eq!(r.strength(b), 0.0);
        let s = r.stats(a);
        assert_eq!((s.frags, s.deaths, s.suicides), (2, 1, 0));
    }

    #[test]
    fn zero_sum_away_from_the_floor() {
        // A 300, B 100 (built by hand): A kills B. w_AB = 1/(1+10^(−0.5)) = 0.759747.
        let mut r = ranking(32.0);
        let a = r.player("A");
        let b = r.player("B");
        r.strength[0] = 300.0;
        r.strength[1] = 100.0;
        r.apply(FragEvent::Frag {
            killer: a,
            victim: b,
        });
        // ΔA = 32 (1 − 0.759747) = +7.688098, ΔB = −7.688098.
        assert!(
            (r.strength(a) - 307.688_098_35).abs() < 1e-6,
            "{}",
            r.strength(a)
        );
        assert!(
            (r.strength(b) - 92.311_901_65).abs() < 1e-6,
            "{}",
            r.strength(b)
        );
        // Now B kills A: w_BA = 1/(1+10^((307.688086−92.311914)/400)) = 0.223305…
        r.apply(FragEvent::Frag {
            killer: b,
            victim: a,
        });
        assert!((r.strength(a) + r.strength(b) - 400.0).abs() < 1e-9);
    }

    #[test]
    fn suicide_world_and_team_kill_cost_half_k() {
        let mut r = ranking(10.0);
        let a = r.player("A");
        let b = r.player("B");
        r.strength[0] = 100.0;
        r.strength[1] = 50.0;
        r.apply(FragEvent::Suicide { player: a });
        assert!((r.strength(a) - 95.0).abs() < TOL);
        r.apply(FragEvent::WorldKill { victim: a });
        assert!((r.strength(a) - 90.0).abs() < TOL);
        r.apply(FragEvent::TeamKill {
            killer: a,
            victim: b,
        });
        assert!((r.strength(a) - 85.0).abs() < TOL);
        assert!((r.strength(b) - 50.0).abs() < TOL, "victim not ranked down");
        // A frag of oneself is a suicide.
        r.apply(FragEvent::Frag {
            killer: b,
            victim: b,
        });
        assert!((r.strength(b) - 45.0).abs() < TOL);
        let sa = r.stats(a);
        assert_eq!(
            (
                sa.frags,
                sa.deaths,
                sa.suicides,
                sa.world_deaths,
                sa.team_kills
            ),
            (1, 2, 2, 1, 1)
        );
        let sb = r.stats(b);
        assert_eq!((sb.frags, sb.deaths, sb.suicides), (0, 2, 1));
        // Suicide at 3 points: floored at 0.
        r.strength[0] = 3.0;
        r.apply(FragEvent::Suicide { player: a });
        assert_eq!(r.strength(a), 0.0);
    }

    #[test]
    fn capture_against_the_opposing_team_mean() {
        // K = 8, capture 7 → step 56. Capturer 100 vs team mean (0 + 200)/2 = 100: w = ½.
        let mut r = ranking(8.0);
        let cap = r.player("cap");
        let o1 = r.player("o1");
        let o2 = r.player("o2");
        r.strength = vec![100.0, 0.0, 200.0];
        let u = r.apply(FragEvent::Capture {
            player: cap,
            opponents: &[o1, o2],
        });
        assert!((r.strength(cap) - 128.0).abs() < TOL);
        assert!(u.second.is_none());
        assert_eq!((r.strength(o1), r.strength(o2)), (0.0, 200.0));
        assert_eq!(r.stats(cap).captures, 1);
        // Weighted event of 2 points against one player: both move by 16 (1 − ½) = 8.
        r.strength = vec![50.0, 50.0, 200.0];
        r.apply(FragEvent::Weighted {
            actor: cap,
            points: 2.0,
            opponent: Opponent::Player(o1),
        });
        assert!((r.strength(cap) - 58.0).abs() < TOL);
        assert!((r.strength(o1) - 42.0).abs() < TOL);
    }

    #[test]
    fn duel_event_with_suicide_adjustment() {
        // 6 : 0 frags, B 2 suicides → 6 : −2 → 8 : 0, e = 1. Equal start 100: ΔA = +K/2.
        let mut r = ranking(16.0);
        let a = r.player("A");
        let b = r.player("B");
        r.strength = vec![100.0, 100.0];
        r.apply(FragEvent::Duel {
            a,
            b,
            frags_a: 6,
            frags_b: 0,
            suicides_a: 0,
            suicides_b: 2,
        });
        assert!((r.strength(a) - 108.0).abs() < TOL);
        assert!((r.strength(b) - 92.0).abs() < TOL);
        assert_eq!(r.stats(b).deaths, 8);
        assert_eq!(r.stats(a).frags, 6);
        // −3 : −5 → 5 : 3: e = 0.625 from equal 100s: ΔA = 16 · 0.125 = +2.
        r.strength = vec![100.0, 100.0];
        r.apply(FragEvent::Duel {
            a,
            b,
            frags_a: 0,
            frags_b: 0,
            suicides_a: 3,
            suicides_b: 5,
        });
        assert!((r.strength(a) - 102.0).abs() < TOL);
        assert!((r.strength(b) - 98.0).abs() < TOL);
        // Against oneself: nothing moves.
        let u = r.apply(FragEvent::Duel {
            a,
            b: a,
            frags_a: 3,
            frags_b: 0,
            suicides_a: 0,
            suicides_b: 0,
        });
        assert_eq!(u, FragUpdate::default());
        assert!((r.strength(a) - 102.0).abs() < TOL);
    }

    #[test]
    fn decay_per_game_and_per_day() {
        let mut r = FragRanking::new(FragConfig {
            decay_per_game: 3.0,
            decay_per_day: 2.0,
            ..FragConfig::default()
        });
        let a = r.player("A");
        let b = r.player("B");
        r.strength = vec![10.0, 4.0];
        r.apply(FragEvent::Suicide { player: a }); // 10 − 4 = 6
        let played = r.end_game(); // −3 each: 3, 1
        assert_eq!(played, vec![a]);
        assert!((r.strength(a) - 3.0).abs() < TOL);
        assert!((r.strength(b) - 1.0).abs() < TOL);
        assert_eq!(r.stats(a).games, 1);
        assert_eq!(r.stats(b).games, 0);
        r.set_day(100); // sets the clock
        assert!((r.strength(a) - 3.0).abs() < TOL);
        r.set_day(101); // −2: 1, 0
        assert!((r.strength(a) - 1.0).abs() < TOL);
        assert_eq!(r.strength(b), 0.0);
        r.set_day(99); // out of order: ignored
        assert!((r.strength(a) - 1.0).abs() < TOL);
    }

    #[test]
    fn standings_order_and_shared_places() {
        let mut r = ranking(8.0);
        let a = r.player("zed");
        let b = r.player("amy");
        let c = r.player("bob");
        r.apply(FragEvent::Frag {
            killer: a,
            victim: b,
        });
        let s = r.standings();
        assert_eq!(s[0].player, "zed");
        assert_eq!((s[1].player.as_str(), s[1].position), ("amy", 2));
        assert_eq!((s[2].player.as_str(), s[2].position), ("bob", 2));
        assert_eq!(s[2].id, c);
    }

    proptest::proptest! {
        #[test]
        fn strengths_stay_finite_and_non_negative(
            events in proptest::collection::vec((0u32..5, 0u32..5, 0u8..4), 0..200)
        ) {
            let mut r = ranking(32.0);
            let ids: Vec<_> = (0..5).map(|i| r.player(&format!("p{i}"))).collect();
            for (k, v, kind) in events {
                let (k, v) = (ids[k as usize], ids[v as usize]);
                let _ = match kind {
                    0 => r.apply(FragEvent::Frag { killer: k, victim: v }),
                    1 => r.apply(FragEvent::WorldKill { victim: v }),
                    2 => r.apply(FragEvent::TeamKill { killer: k, victim: v }),
                    _ => r.apply(FragEvent::Capture { player: k, opponents: &ids[..2] }),
                };
            }
            for s in r.standings() {
                proptest::prop_assert!(s.strength.is_finite() && s.strength >= 0.0);
            }
        }

        #[test]
        fn a_frag_between_players_off_the_floor_is_zero_sum(
            ga in 200.0f64..2000.0, gb in 200.0f64..2000.0
        ) {
            let mut r = ranking(8.0);
            let a = r.player("a");
            let b = r.player("b");
            r.strength = vec![ga, gb];
            r.apply(FragEvent::Frag { killer: a, victim: b });
            proptest::prop_assert!((r.strength(a) + r.strength(b) - ga - gb).abs() < 1e-9);
        }
    }
}
