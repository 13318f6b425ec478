//! Fair teams and fair tables: split the players present into teams (or free-for-all
//! tables) whose predicted result is as close to even as the league's own system can
//! make it.
//!
//! Every proposed split is judged by the league's predictions
//! ([`RatingSystem::predict`](crate::RatingSystem::predict) with the ratings
//! the league holds before a match at the given time, and what the system learned: the
//! same numbers [`League::predict`] gives for that match).
//!
//! ## The objective
//! - **Teams** (`k` teams, one match): with `p_t` the chance of team `t` to win
//!   (normalised to sum to 1 for systems that keep a share for a draw), the unevenness is
//!   `max_t |p_t − 1/k|`. Two splits of equal maximum are ordered by `Σ_t (p_t − 1/k)²`.
//! - **Tables** (free-for-alls of `n` seats, played side by side): the unevenness of a
//!   table of `m` players is `max_i |p_i − 1/m|` over its players' chances to win it,
//!   and a split's unevenness is the **sum over its tables**; ties again by the sum of
//!   squared deviations.
//!
//! ## Guarantees
//! - **Exact** when the number of splits is at most [`BalanceConfig::exact_limit`]
//!   (3,000,000 by default: every split of up to 16 players into 2, 3 or 4 teams): every
//!   split is enumerated once, without the symmetry of team labels (interchangeable teams,
//!   those of one size and with no fixed player, are told apart by their first player),
//!   and the best [`BalanceConfig::top`] are returned in order.
//! - **Search** beyond: [`BalanceConfig::restarts`] seeded random starts, each improved by
//!   swapping two players (or two kept-together groups of one size) between teams while a
//!   swap lowers the unevenness. The result is the best of these local optima: no single
//!   swap improves it, the answer is the same for the same seed, but it is not proven
//!   best. The alternatives are the best distinct splits the search met.
//!
//! Keep-apart, keep-together and fixed players are honoured in both; a set of them that no
//! split can honour is refused with [`BalanceError::Impossible`].
//!
//! ```
//! use podium::balance::{balance, BalanceConfig, Format};
//! use podium::{League, Match};
//! let mut league = League::new(podium::system("sme", &podium::Settings::new())?);
//! league.apply(&Match::ranked("1", &["ann", "bo", "cy", "dee"])?)?;
//! league.apply(&Match::ranked("2", &["ann", "bo", "dee", "cy"])?)?;
//! let split = balance(&league, &["ann", "bo", "cy", "dee"], &Format::teams(2), &BalanceConfig::default())?;
//! let best = &split.splits[0];
//! // the strongest and the weakest play together
//! let ann = best.groups.iter().find(|g| g.players.contains(&"ann".to_string())).unwrap();
//! assert!(ann.players.contains(&"cy".to_string()) || ann.players.contains(&"dee".to_string()));
//! assert!(split.exact);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, HashSet};

use crate::error::RateError;
use crate::league::League;
use crate::model::{Entry, Finish, Match, Member};
use crate::rating::Rating;
use crate::system::Prior;

/// How the players are to be split.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[non_exhaustive]
pub enum Format {
    /// Teams that play one match against each other: `teams` of them, with the given
    /// sizes (which must add up to the players) or, when `sizes` is empty, as even as
    /// possible (the first teams one player larger).
    Teams {
        /// Number of teams, at least 2.
        teams: usize,
        /// Each team's size, or empty for as even as possible.
        sizes: Vec<usize>,
    },
    /// Free-for-all tables of at most `seats` players, as few tables as that allows and
    /// sizes as even as possible (10 players at tables of 4: 4, 3, 3).
    Tables {
        /// Seats at a table, at least 2.
        seats: usize,
    },
}

impl Format {
    /// `k` teams as even as possible.
    #[must_use]
    pub fn teams(k: usize) -> Self {
        Format::Teams {
            teams: k,
            sizes: Vec::new(),
        }
    }

    /// The size of each group for `n` players.
    fn sizes(&self, n: usize) -> Result<Vec<usize>, BalanceError> {
        match self {
            Format::Teams { teams, sizes } => {
                if *teams < 2 {
                    return Err(BalanceError::BadFormat {
                        reason: format!("a split needs at least 2 teams, asked for {teams}"),
                    });
                }
                if sizes.is_empty() {
                    if n < *teams {
                        return Err(BalanceError::TooFewPlayers {
                            players: n,
                            needed: *teams,
                        });
                    }
                    return Ok(even(n, *teams));
                }
                if sizes.len() != *teams {
                    return Err(BalanceError::BadFormat {
                        reason: format!("{} team sizes given for {teams} teams", sizes.len()),
                    });
                }
                if let Some(t) = sizes.iter().position(|&s| s == 0) {
                    return Err(BalanceError::BadFormat {
                        reason: format!("team {} has size 0; every team needs a player", t + 1),
                    });
                }
                if let Some(t) = sizes.iter().position(|&s| s > n) {
                    return Err(BalanceError::BadFormat {
                        reason: format!(
                            "team {} has size {}, more than the {n} players to split",
                            t + 1,
                            sizes[t]
                        ),
                    });
                }
                // Each size at most n: the sum of a list that fits in memory fits too,
                // but is added without wrapping all the same.
                let seats = sizes.iter().fold(0usize, |a, &s| a.saturating_add(s));
                if seats != n {
                    return Err(BalanceError::SeatsMismatch { seats, players: n });
                }
                Ok(sizes.clone())
            }
            Format::Tables { seats } => {
                if *seats < 2 {
                    return Err(BalanceError::BadFormat {
                        reason: format!("a table needs at least 2 seats, asked for {seats}"),
                    });
                }
                if n < 2 {
                    return Err(BalanceError::TooFewPlayers {
                        players: n,
                        needed: 2,
                    });
                }
                Ok(even(n, n.div_ceil(*seats)))
            }
        }
    }

    fn is_tables(&self) -> bool {
        matches!(self, Format::Tables { .. })
    }
}

/// `n` split into `k` parts as even as possible, the larger first.
fn even(n: usize, k: usize) -> Vec<usize> {
    (0..k).map(|t| n / k + usize::from(t < n % k)).collect()
}

/// What may be asked of a split besides its format, and how hard to search.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct BalanceConfig {
    /// Groups of players of whom no two may share a team or table.
    pub apart: Vec<Vec<String>>,
    /// Groups of players who must share a team or table.
    pub together: Vec<Vec<String>>,
    /// Players fixed to a team or table, by its 0-based index in the format's order.
    pub fixed: Vec<(String, usize)>,
    /// Players the league has not rated yet (tonight's first game), balanced at the
    /// rating the system gives a newcomer; any other name the league does not know is
    /// refused as unknown, so that a misspelt player is not taken for a new one.
    pub newcomers: Vec<String>,
    /// How many splits to return, best first (the proposal and the next-best
    /// alternatives). Default 1.
    pub top: usize,
    /// The most splits enumerated exactly; beyond, a local search. Default 3,000,000.
    pub exact_limit: u64,
    /// Random starts of the local search. Default 4.
    pub restarts: usize,
    /// Seed of the local search's starts. Default 0.
    pub seed: u64,
    /// When the games are played (Unix seconds): ratings of systems with σ are aged to
    /// it as for a match at that time. Default none (no ageing).
    pub time: Option<i64>,
}

impl Default for BalanceConfig {
    fn default() -> Self {
        BalanceConfig {
            apart: Vec::new(),
            together: Vec::new(),
            fixed: Vec::new(),
            newcomers: Vec::new(),
            top: 1,
            exact_limit: 3_000_000,
            restarts: 4,
            seed: 0,
            time: None,
        }
    }
}

/// Why no split was proposed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BalanceError {
    /// A player the league has never rated.
    #[error("unknown player {player:?}: the league has not rated them")]
    UnknownPlayer {
        /// The name given.
        player: String,
    },
    /// A player named twice among those present.
    #[error("player {player:?} is named twice among the players present")]
    DuplicatePlayer {
        /// The name given twice.
        player: String,
    },
    /// Fewer players than the format needs.
    #[error("{players} player(s) present, the split needs at least {needed}")]
    TooFewPlayers {
        /// Players present.
        players: usize,
        /// Players needed.
        needed: usize,
    },
    /// Team sizes that do not add up to the players present.
    #[error("the team sizes give {seats} seats for {players} players; they must be equal")]
    SeatsMismatch {
        /// Seats the sizes give.
        seats: usize,
        /// Players present.
        players: usize,
    },
    /// A format that cannot be played.
    #[error("{reason}")]
    BadFormat {
        /// What is wrong.
        reason: String,
    },
    /// A player named in an option who is not among the players present.
    #[error("{option}: player {player:?} is not among the players present")]
    NotPresent {
        /// The option (`apart`, `together`, `fixed`).
        option: &'static str,
        /// The name given.
        player: String,
    },
    /// A player named as a newcomer whom the league has rated: a rated player is
    /// balanced at their rating, so naming them a newcomer is a mistake (a misspelt
    /// name meant, or the wrong player).
    #[error("newcomers: player {player:?} is rated by the league ({games} games), so not new; name them among the players only")]
    NotNew {
        /// The name given.
        player: String,
        /// Games the league rated them in.
        games: u32,
    },
    /// A keep-apart or keep-together group of fewer than two players, which says nothing.
    #[error("{option}: group {group} (0-based) names {size} player(s); a group names two players or more")]
    GroupTooSmall {
        /// The option (`apart`, `together`).
        option: &'static str,
        /// The group's 0-based index in the option's list.
        group: usize,
        /// Players the group names.
        size: usize,
    },
    /// A fixed team or table that does not exist.
    #[error("fixed: player {player:?} is fixed to team {team} (1-based), but there are {teams}")]
    NoSuchTeam {
        /// The player.
        player: String,
        /// The team asked for, 1-based.
        team: usize,
        /// Number of teams or tables.
        teams: usize,
    },
    /// Options that no split can honour.
    #[error("no split honours the options: {reason}")]
    Impossible {
        /// Why.
        reason: String,
    },
    /// The system cannot predict a match of this format.
    #[error("the system cannot predict the split: {0}")]
    Predict(#[from] RateError),
}

/// One team or table of a split.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Group {
    /// Its players, in the order they were given.
    pub players: Vec<String>,
    /// Teams: the team's chance to win the match (normalised over the teams). Tables:
    /// `None`.
    pub win: Option<f64>,
    /// Tables: each player's chance to win the table, in `players` order (normalised over
    /// the table). Teams: empty.
    pub player_win: Vec<f64>,
    /// Teams: `|p − 1/k|`. Tables: the table's unevenness, `max_i |p_i − 1/m|`.
    pub unevenness: f64,
}

/// A proposed split.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Split {
    /// The teams or tables, in the format's order (a fixed player's team at its index).
    pub groups: Vec<Group>,
    /// The objective (see the [module docs](self)): lower is fairer, 0 is even.
    pub unevenness: f64,
    /// The tie-break: the sum of squared deviations from an even chance.
    pub spread: f64,
}

/// The answer of [`balance`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Balance {
    /// The best splits found, best first (at most [`BalanceConfig::top`]).
    pub splits: Vec<Split>,
    /// Whether every split was examined (the first is then the best of all).
    pub exact: bool,
    /// Splits examined.
    pub examined: u64,
}

/// Players who move together: a kept-together group, or one player.
#[derive(Debug, Clone)]
struct Unit {
    members: Vec<usize>,
    fixed: Option<usize>,
}

/// The problem, validated, in indices.
struct Problem<'a> {
    names: Vec<String>,
    ratings: Vec<Rating>,
    sizes: Vec<usize>,
    units: Vec<Unit>,
    /// `apart[u]`: the units unit `u` may not share a group with.
    apart: Vec<Vec<usize>>,
    tables: bool,
    league: &'a League,
    /// Teams: one match of every team. Tables: a free-for-all per table size.
    templates: HashMap<usize, Match>,
    team_template: Option<Match>,
}

/// Proposes the fairest splits of `players` in `format`, by `league`'s predictions.
///
/// # Errors
/// [`BalanceError`]: an unknown or duplicate player, a format that the players cannot
/// fill, options naming players not present or teams that do not exist, options no split
/// honours, or a system that cannot predict the format (e.g. a two-entry system asked for
/// three teams).
pub fn balance<S: AsRef<str>>(
    league: &League,
    players: &[S],
    format: &Format,
    config: &BalanceConfig,
) -> Result<Balance, BalanceError> {
    let p = Problem::new(league, players, format, config)?;
    let top = config.top.max(1);
    let mut best = TopN::new(top);
    let bound = p.split_count_bound();
    let exact = bound <= config.exact_limit as f64;
    let examined = if exact {
        let mut s = Search::new(&p);
        let mut examined = 0u64;
        let mut err = None;
        s.enumerate(0, &mut |assign| match p.score(assign) {
            Ok(key) => {
                examined += 1;
                best.offer(key, assign, &p);
            }
            Err(e) => err = Some(e),
        });
        if let Some(e) = err {
            return Err(e);
        }
        if examined == 0 {
            return Err(BalanceError::Impossible {
                reason: p.impossible_reason(config),
            });
        }
        examined
    } else {
        p.local_search(config, &mut best)?
    };
    let splits = best
        .items
        .into_iter()
        .map(|(_, assign)| p.split(&assign))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Balance {
        splits,
        exact,
        examined,
    })
}

/// The objective of one split: (unevenness, spread).
type Key = (f64, f64);

/// An assignment: the group of each player.
type Assign = Vec<usize>;

/// The best `n` distinct assignments offered, best first.
struct TopN {
    n: usize,
    items: Vec<(Key, Assign)>,
    seen: HashSet<Vec<Vec<usize>>>,
}

impl TopN {
    fn new(n: usize) -> Self {
        TopN {
            n,
            items: Vec::new(),
            seen: HashSet::new(),
        }
    }

    fn worst(&self) -> Option<Key> {
        (self.items.len() == self.n).then(|| self.items[self.n - 1].0)
    }

    fn offer(&mut self, key: Key, assign: &[usize], p: &Problem<'_>) {
        if let Some(w) = self.worst() {
            if !less(key, w) {
                return;
            }
        }
        let canon = p.canonical(assign);
        if !self.seen.insert(canon.clone()) {
            return;
        }
        let at = self.items.partition_point(|(k, _)| !less(key, *k));
        self.items.insert(at, (key, assign.to_vec()));
        if self.items.len() > self.n {
            let (_, gone) = self.items.pop().expect("over capacity");
            self.seen.remove(&p.canonical(&gone));
        }
    }
}

/// Whether `a` is strictly better than `b` (with a tolerance for rounding).
fn less(a: Key, b: Key) -> bool {
    const EPS: f64 = 1e-12;
    if a.0 < b.0 - EPS {
        return true;
    }
    if a.0 > b.0 + EPS {
        return false;
    }
    a.1 < b.1 - EPS
}

fn placeholder_match(sizes: &[usize], teams: bool) -> Match {
    let mut b = Match::builder("balance");
    let mut k = 0;
    for (t, &s) in sizes.iter().enumerate() {
        let members: Vec<Member> = (0..s)
            .map(|_| {
                k += 1;
                Member {
                    player: format!("p{k}"),
                    weight: 1.0,
                }
            })
            .collect();
        if teams {
            b = b.entry(Entry {
                team: Some(format!("t{}", t + 1)),
                members,
                finish: Finish::Rank(1.0),
                factors: Vec::new(),
            });
        } else {
            for m in members {
                b = b.player(m.player, Finish::Rank(1.0));
            }
        }
    }
    b.build().expect("placeholder ids are valid")
}

impl<'a> Problem<'a> {
    fn new<S: AsRef<str>>(
        league: &'a League,
        players: &[S],
        format: &Format,
        config: &BalanceConfig,
    ) -> Result<Self, BalanceError> {
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (i, p) in players.iter().enumerate() {
            let p = p.as_ref();
            if index.insert(p, i).is_some() {
                return Err(BalanceError::DuplicatePlayer {
                    player: p.to_string(),
                });
            }
            if league.get(p).is_none() && !config.newcomers.iter().any(|n| n == p) {
                return Err(BalanceError::UnknownPlayer {
                    player: p.to_string(),
                });
            }
        }
        // Options that name nobody a split could use: a newcomer not present or already
        // rated, a group of fewer than two.
        for p in &config.newcomers {
            if !index.contains_key(p.as_str()) {
                return Err(BalanceError::NotPresent {
                    option: "newcomers",
                    player: p.clone(),
                });
            }
            if let Some(known) = league.get(p) {
                return Err(BalanceError::NotNew {
                    player: p.clone(),
                    games: known.stats.games,
                });
            }
        }
        for (option, groups) in [("apart", &config.apart), ("together", &config.together)] {
            if let Some((group, g)) = groups.iter().enumerate().find(|(_, g)| g.len() < 2) {
                return Err(BalanceError::GroupTooSmall {
                    option,
                    group,
                    size: g.len(),
                });
            }
        }
        let n = players.len();
        let sizes = format.sizes(n)?;
        let groups = sizes.len();
        // Every player's rating before a match at the time asked for.
        let mut b = Match::builder("balance");
        if let Some(t) = config.time {
            b = b.time(t);
        }
        for p in players {
            b = b.player(p.as_ref(), Finish::Rank(1.0));
        }
        let ratings = if n >= 2 {
            league.ratings_before(&b.build().map_err(|e| BalanceError::BadFormat {
                reason: e.to_string(),
            })?)
        } else {
            Vec::new()
        };
        let lookup = |option: &'static str, name: &str| {
            index
                .get(name)
                .copied()
                .ok_or_else(|| BalanceError::NotPresent {
                    option,
                    player: name.to_string(),
                })
        };
        // Kept-together groups joined into units (union-find).
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        for g in &config.together {
            let ids = g
                .iter()
                .map(|p| lookup("together", p))
                .collect::<Result<Vec<_>, _>>()?;
            for w in ids.windows(2) {
                let (a, b) = (root(&mut parent, w[0]), root(&mut parent, w[1]));
                parent[a] = b;
            }
        }
        let mut unit_of = vec![usize::MAX; n];
        let mut units: Vec<Unit> = Vec::new();
        for i in 0..n {
            let r = root(&mut parent, i);
            if unit_of[r] == usize::MAX {
                unit_of[r] = units.len();
                units.push(Unit {
                    members: Vec::new(),
                    fixed: None,
                });
            }
            unit_of[i] = unit_of[r];
            units[unit_of[i]].members.push(i);
        }
        let largest = sizes.iter().copied().max().unwrap_or(0);
        if let Some(u) = units.iter().find(|u| u.members.len() > largest) {
            return Err(BalanceError::Impossible {
                reason: format!(
                    "{} are kept together, but the largest {} has {largest} seats",
                    u.members
                        .iter()
                        .map(|&i| players[i].as_ref())
                        .collect::<Vec<_>>()
                        .join(", "),
                    if format.is_tables() { "table" } else { "team" }
                ),
            });
        }
        for (name, team) in &config.fixed {
            let i = lookup("fixed", name)?;
            if *team >= groups {
                return Err(BalanceError::NoSuchTeam {
                    player: name.clone(),
                    team: team.saturating_add(1),
                    teams: groups,
                });
            }
            let u = &mut units[unit_of[i]];
            match u.fixed {
                Some(t) if t != *team => {
                    return Err(BalanceError::Impossible {
                        reason: format!(
                            "{name:?} is fixed to {} and to {}, or kept together with a player fixed elsewhere",
                            t + 1,
                            team + 1
                        ),
                    })
                }
                _ => u.fixed = Some(*team),
            }
        }
        for (t, &seats) in sizes.iter().enumerate() {
            let fixed: usize = units
                .iter()
                .filter(|u| u.fixed == Some(t))
                .map(|u| u.members.len())
                .sum();
            if fixed > seats {
                return Err(BalanceError::Impossible {
                    reason: format!(
                        "{fixed} players are fixed to {} {}, which has {seats} seats",
                        if format.is_tables() { "table" } else { "team" },
                        t + 1,
                    ),
                });
            }
        }
        let group_noun = if format.is_tables() { "table" } else { "team" };
        let mut apart = vec![Vec::new(); units.len()];
        for g in &config.apart {
            let ids = g
                .iter()
                .map(|p| lookup("apart", p))
                .collect::<Result<Vec<_>, _>>()?;
            for (x, &a) in ids.iter().enumerate() {
                for &b in &ids[x + 1..] {
                    let (ua, ub) = (unit_of[a], unit_of[b]);
                    if ua == ub {
                        return Err(BalanceError::Impossible {
                            reason: format!(
                                "{:?} and {:?} are to be kept apart and together",
                                players[a].as_ref(),
                                players[b].as_ref()
                            ),
                        });
                    }
                    if let Some(t) = units[ua].fixed.filter(|&t| units[ub].fixed == Some(t)) {
                        return Err(BalanceError::Impossible {
                            reason: format!(
                                "{:?} and {:?} are to be kept apart, but both are fixed to {group_noun} {}",
                                players[a].as_ref(),
                                players[b].as_ref(),
                                t + 1
                            ),
                        });
                    }
                    if !apart[ua].contains(&ub) {
                        apart[ua].push(ub);
                        apart[ub].push(ua);
                    }
                }
            }
            if ids.len() > groups {
                return Err(BalanceError::Impossible {
                    reason: format!(
                        "{} are kept apart, but there {}",
                        g.join(", "),
                        match groups {
                            1 => format!("is only 1 {group_noun}"),
                            _ => format!("are only {groups} {group_noun}s"),
                        }
                    ),
                });
            }
        }
        let tables = format.is_tables();
        let (templates, team_template) = if tables {
            let mut m = HashMap::new();
            for &s in &sizes {
                m.entry(s).or_insert_with(|| placeholder_match(&[s], false));
            }
            (m, None)
        } else {
            (HashMap::new(), Some(placeholder_match(&sizes, true)))
        };
        Ok(Problem {
            names: players.iter().map(|p| p.as_ref().to_string()).collect(),
            ratings,
            sizes,
            units,
            apart,
            tables,
            league,
            templates,
            team_template,
        })
    }

    /// An upper bound of the number of splits without label symmetry: the multinomial of
    /// the seats left free by fixed players over the interchangeable groups' orders.
    fn split_count_bound(&self) -> f64 {
        let groups = self.sizes.len();
        let mut free = self.sizes.clone();
        let mut has_fixed = vec![false; groups];
        let mut placed = 0;
        for u in &self.units {
            if let Some(t) = u.fixed {
                free[t] -= u.members.len();
                has_fixed[t] = true;
                placed += u.members.len();
            }
        }
        let ln_fact = |n: usize| (1..=n).map(|k| (k as f64).ln()).sum::<f64>();
        let mut ln = ln_fact(self.names.len() - placed);
        for &f in &free {
            ln -= ln_fact(f);
        }
        let mut classes: HashMap<usize, usize> = HashMap::new();
        for t in (0..groups).filter(|&t| !has_fixed[t]) {
            *classes.entry(self.sizes[t]).or_default() += 1;
        }
        for &m in classes.values() {
            ln -= ln_fact(m);
        }
        ln.exp()
    }

    /// The split as a set of groups, for telling equal splits apart: each group's sorted
    /// players, interchangeable groups (no fixed player) sorted among those of their size.
    fn canonical(&self, assign: &[usize]) -> Vec<Vec<usize>> {
        let groups = self.sizes.len();
        let mut g: Vec<Vec<usize>> = vec![Vec::new(); groups];
        for (i, &t) in assign.iter().enumerate() {
            g[t].push(i);
        }
        let mut fixed = vec![false; groups];
        for u in &self.units {
            if let Some(t) = u.fixed {
                fixed[t] = true;
            }
        }
        let mut out: Vec<Vec<usize>> = Vec::with_capacity(groups + 1);
        let mut free: Vec<(usize, Vec<usize>)> = Vec::new();
        for (t, members) in g.into_iter().enumerate() {
            if fixed[t] {
                let mut m = members;
                m.insert(0, usize::MAX - t);
                out.push(m);
            } else {
                free.push((self.sizes[t], members));
            }
        }
        free.sort();
        out.extend(free.into_iter().map(|(s, mut m)| {
            m.insert(0, s);
            m
        }));
        out
    }

    fn deviation(win: &[f64]) -> (Vec<f64>, f64, f64) {
        let total: f64 = win.iter().sum();
        let k = win.len() as f64;
        let p: Vec<f64> = win
            .iter()
            .map(|w| if total > 0.0 { w / total } else { 1.0 / k })
            .collect();
        let max = p
            .iter()
            .map(|x| (x - 1.0 / k).abs())
            .fold(0.0_f64, f64::max);
        let sq = p.iter().map(|x| (x - 1.0 / k).powi(2)).sum();
        (p, max, sq)
    }

    fn predict_group(&self, template: &Match, members: &[usize]) -> Result<Vec<f64>, BalanceError> {
        let ratings: Vec<Rating> = members.iter().map(|&i| self.ratings[i]).collect();
        let p = self
            .league
            .system()
            .predict(&Prior::new(template, &ratings).with_learned(self.league.learned()))?;
        Ok(p.win)
    }

    fn members(&self, assign: &[usize]) -> Vec<Vec<usize>> {
        let mut g: Vec<Vec<usize>> = vec![Vec::new(); self.sizes.len()];
        for (i, &t) in assign.iter().enumerate() {
            g[t].push(i);
        }
        g
    }

    fn score(&self, assign: &[usize]) -> Result<Key, BalanceError> {
        let g = self.members(assign);
        if self.tables {
            let mut key = (0.0, 0.0);
            for m in &g {
                let (_, max, sq) =
                    Self::deviation(&self.predict_group(&self.templates[&m.len()], m)?);
                key.0 += max;
                key.1 += sq;
            }
            Ok(key)
        } else {
            let flat: Vec<usize> = g.concat();
            let win = self.predict_group(self.team_template.as_ref().expect("teams"), &flat)?;
            let (_, max, sq) = Self::deviation(&win);
            Ok((max, sq))
        }
    }

    fn split(&self, assign: &[usize]) -> Result<Split, BalanceError> {
        let g = self.members(assign);
        let names = |m: &[usize]| m.iter().map(|&i| self.names[i].clone()).collect();
        if self.tables {
            let mut groups = Vec::new();
            let (mut u, mut s) = (0.0, 0.0);
            for m in &g {
                let (p, max, sq) =
                    Self::deviation(&self.predict_group(&self.templates[&m.len()], m)?);
                u += max;
                s += sq;
                groups.push(Group {
                    players: names(m),
                    win: None,
                    player_win: p,
                    unevenness: max,
                });
            }
            Ok(Split {
                groups,
                unevenness: u,
                spread: s,
            })
        } else {
            let flat: Vec<usize> = g.concat();
            let win = self.predict_group(self.team_template.as_ref().expect("teams"), &flat)?;
            let (p, max, sq) = Self::deviation(&win);
            let k = p.len() as f64;
            Ok(Split {
                groups: g
                    .iter()
                    .zip(&p)
                    .map(|(m, &pt)| Group {
                        players: names(m),
                        win: Some(pt),
                        player_win: Vec::new(),
                        unevenness: (pt - 1.0 / k).abs(),
                    })
                    .collect(),
                unevenness: max,
                spread: sq,
            })
        }
    }

    /// Why no split honours `config`'s options, naming the players of every option.
    fn impossible_reason(&self, config: &BalanceConfig) -> String {
        let noun = if self.tables { "table" } else { "team" };
        let mut options: Vec<String> = Vec::new();
        options.extend(
            config
                .apart
                .iter()
                .map(|g| format!("{} kept apart", g.join(", "))),
        );
        options.extend(
            config
                .together
                .iter()
                .map(|g| format!("{} kept together", g.join(", "))),
        );
        options.extend(
            config
                .fixed
                .iter()
                .map(|(p, t)| format!("{p} fixed to {noun} {}", t + 1)),
        );
        let seats = match self.sizes.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!(
                "{} and {last}",
                rest.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => self.sizes.iter().map(ToString::to_string).collect(),
        };
        let groups = match self.sizes.len() {
            1 => format!("the 1 {noun}, of {seats} seats,"),
            n => format!("the {n} {noun}s, of {seats} seats,"),
        };
        format!(
            "{groups} cannot seat these players with {}",
            options.join("; ")
        )
    }

    /// The local search of the [module docs](self).
    fn local_search(&self, config: &BalanceConfig, best: &mut TopN) -> Result<u64, BalanceError> {
        let mut rng = SplitMix(config.seed ^ 0x9e37_79b9_7f4a_7c15);
        let mut examined = 0u64;
        let mut found = false;
        for _ in 0..config.restarts.max(1) {
            let Some(mut units_in) = self.random_start(&mut rng) else {
                continue;
            };
            found = true;
            let mut assign = self.assign_of(&units_in);
            let mut key = self.score(&assign)?;
            examined += 1;
            best.offer(key, &assign, self);
            let movable: Vec<usize> = (0..self.units.len())
                .filter(|&u| self.units[u].fixed.is_none())
                .collect();
            loop {
                let mut improved = false;
                for (x, &a) in movable.iter().enumerate() {
                    for &b in &movable[x + 1..] {
                        let (ta, tb) = (units_in[a], units_in[b]);
                        if ta == tb || self.units[a].members.len() != self.units[b].members.len() {
                            continue;
                        }
                        if self.conflicts(a, tb, &units_in, Some(b))
                            || self.conflicts(b, ta, &units_in, Some(a))
                        {
                            continue;
                        }
                        for &i in &self.units[a].members {
                            assign[i] = tb;
                        }
                        for &i in &self.units[b].members {
                            assign[i] = ta;
                        }
                        let k = self.score(&assign)?;
                        examined += 1;
                        best.offer(k, &assign, self);
                        if less(k, key) {
                            key = k;
                            units_in[a] = tb;
                            units_in[b] = ta;
                            improved = true;
                        } else {
                            for &i in &self.units[a].members {
                                assign[i] = ta;
                            }
                            for &i in &self.units[b].members {
                                assign[i] = tb;
                            }
                        }
                    }
                }
                if !improved {
                    break;
                }
            }
        }
        if !found {
            return Err(BalanceError::Impossible {
                reason: format!(
                    "{} (no random start of the search honoured them)",
                    self.impossible_reason(config)
                ),
            });
        }
        Ok(examined)
    }

    fn assign_of(&self, units_in: &[usize]) -> Assign {
        let mut a = vec![0; self.names.len()];
        for (u, &t) in units_in.iter().enumerate() {
            for &i in &self.units[u].members {
                a[i] = t;
            }
        }
        a
    }

    /// Whether unit `u` in group `t` would share it with a unit it must avoid (`except`
    /// leaves that group).
    fn conflicts(&self, u: usize, t: usize, units_in: &[usize], except: Option<usize>) -> bool {
        self.apart[u]
            .iter()
            .any(|&v| Some(v) != except && units_in[v] == t)
    }

    /// A random split that honours the options, if one is found in a few tries.
    fn random_start(&self, rng: &mut SplitMix) -> Option<Vec<usize>> {
        let groups = self.sizes.len();
        'attempt: for _ in 0..64 {
            let mut units_in = vec![usize::MAX; self.units.len()];
            let mut room = self.sizes.clone();
            let mut order: Vec<usize> = (0..self.units.len()).collect();
            rng.shuffle(&mut order);
            // Fixed first, then the larger groups.
            order.sort_by_key(|&u| {
                (
                    self.units[u].fixed.is_none(),
                    usize::MAX - self.units[u].members.len(),
                )
            });
            for u in order {
                let s = self.units[u].members.len();
                let choices: Vec<usize> = match self.units[u].fixed {
                    Some(t) => vec![t],
                    None => (0..groups).collect(),
                };
                let ok: Vec<usize> = choices
                    .into_iter()
                    .filter(|&t| room[t] >= s && !self.conflicts(u, t, &units_in, None))
                    .collect();
                if ok.is_empty() {
                    continue 'attempt;
                }
                let t = ok[rng.below(ok.len())];
                room[t] -= s;
                units_in[u] = t;
            }
            return Some(units_in);
        }
        None
    }
}

/// The exact enumeration: units placed in order, each into a group with room that it may
/// share, an empty interchangeable group only if it is the first empty one of its size.
struct Search<'p, 'a> {
    p: &'p Problem<'a>,
    order: Vec<usize>,
    room: Vec<usize>,
    count: Vec<usize>,
    units_in: Vec<usize>,
    assign: Assign,
}

impl<'p, 'a> Search<'p, 'a> {
    fn new(p: &'p Problem<'a>) -> Self {
        let mut order: Vec<usize> = (0..p.units.len()).collect();
        order.sort_by_key(|&u| {
            (
                p.units[u].fixed.is_none(),
                usize::MAX - p.units[u].members.len(),
            )
        });
        Search {
            p,
            order,
            room: p.sizes.clone(),
            count: vec![0; p.sizes.len()],
            units_in: vec![usize::MAX; p.units.len()],
            assign: vec![0; p.names.len()],
        }
    }

    fn enumerate(&mut self, k: usize, leaf: &mut dyn FnMut(&[usize])) {
        if k == self.order.len() {
            leaf(&self.assign);
            return;
        }
        let u = self.order[k];
        let unit = &self.p.units[u];
        let s = unit.members.len();
        let groups = self.p.sizes.len();
        let mut first_empty_seen: Vec<usize> = Vec::new();
        for t in 0..groups {
            if let Some(f) = unit.fixed {
                if f != t {
                    continue;
                }
            } else if self.count[t] == 0 {
                // An empty group is interchangeable with the other empty ones of its size.
                let cap = self.p.sizes[t];
                if first_empty_seen.contains(&cap) {
                    continue;
                }
                first_empty_seen.push(cap);
            }
            if self.room[t] < s || self.p.conflicts(u, t, &self.units_in, None) {
                continue;
            }
            self.room[t] -= s;
            self.count[t] += s;
            self.units_in[u] = t;
            for &i in &unit.members {
                self.assign[i] = t;
            }
            self.enumerate(k + 1, leaf);
            self.units_in[u] = usize::MAX;
            self.room[t] += s;
            self.count[t] -= s;
        }
    }
}

/// A small seeded generator (SplitMix64, Steele, Lea and Flood 2014) for the search's
/// starts: the library draws nothing else at random.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Settings;

    /// A league of `n` players named `p0..` after `games` random free-for-alls.
    fn league(system: &str, n: usize, games: usize, seed: u64) -> League {
        let mut rng = SplitMix(seed);
        let mut l = League::new(crate::system(system, &Settings::new()).unwrap());
        for g in 0..games {
            let mut order: Vec<usize> = (0..n).collect();
            rng.shuffle(&mut order);
            // Lower-numbered players win more: a few swaps away from the true order.
            order.sort_by_cached_key(|&i| i + rng.below(n / 2 + 1));
            let take = 2 + rng.below(n - 1);
            let names: Vec<String> = order[..take].iter().map(|i| format!("p{i}")).collect();
            l.apply(&Match::ranked(format!("g{g}"), &names).unwrap())
                .unwrap();
        }
        l
    }

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("p{i}")).collect()
    }

    /// Every labelled assignment of players to teams of the given sizes that honours the
    /// options, judged through `League::predict` of the match itself.
    fn brute_best(
        league: &League,
        players: &[String],
        sizes: &[usize],
        tables: bool,
        ok: &dyn Fn(&[usize]) -> bool,
    ) -> Option<Key> {
        fn rec(
            i: usize,
            room: &mut Vec<usize>,
            assign: &mut Vec<usize>,
            leaf: &mut dyn FnMut(&[usize]),
        ) {
            if i == assign.len() {
                leaf(assign);
                return;
            }
            for t in 0..room.len() {
                if room[t] > 0 {
                    room[t] -= 1;
                    assign[i] = t;
                    rec(i + 1, room, assign, leaf);
                    room[t] += 1;
                }
            }
        }
        let mut best: Option<Key> = None;
        let mut room = sizes.to_vec();
        let mut assign = vec![0; players.len()];
        rec(0, &mut room, &mut assign, &mut |a| {
            if !ok(a) {
                return;
            }
            let groups: Vec<Vec<&String>> = (0..sizes.len())
                .map(|t| {
                    (0..a.len())
                        .filter(|&i| a[i] == t)
                        .map(|i| &players[i])
                        .collect()
                })
                .collect();
            let key = if tables {
                let mut key = (0.0, 0.0);
                for g in &groups {
                    let m = Match::builder("x");
                    let m = g
                        .iter()
                        .fold(m, |m, p| m.player(p.as_str(), Finish::Rank(1.0)));
                    let (_, max, sq) =
                        Problem::deviation(&league.predict(&m.build().unwrap()).unwrap().win);
                    key.0 += max;
                    key.1 += sq;
                }
                key
            } else {
                let mut m = Match::builder("x");
                for (t, g) in groups.iter().enumerate() {
                    let members: Vec<&str> = g.iter().map(|s| s.as_str()).collect();
                    m = m.team(format!("t{t}"), members, Finish::Rank(1.0));
                }
                let (_, max, sq) =
                    Problem::deviation(&league.predict(&m.build().unwrap()).unwrap().win);
                (max, sq)
            };
            if best.map_or(true, |b| less(key, b)) {
                best = Some(key);
            }
        });
        best
    }

    #[test]
    fn the_proposed_split_is_the_best_of_all_splits() {
        let cases: &[(&str, usize, usize)] = &[
            ("sme", 8, 2),
            ("plackett-luce", 9, 3),
            ("bradley-terry-full", 10, 4),
            ("thurstone-mosteller-part", 16, 2),
            ("trueskill", 7, 2),
            ("kalman-mmr", 9, 3),
            ("glicko", 12, 2),
        ];
        for (c, &(system, n, k)) in cases.iter().enumerate() {
            let l = league(system, n + 2, 40, c as u64 + 1);
            let players = names(n);
            let got = balance(&l, &players, &Format::teams(k), &BalanceConfig::default()).unwrap();
            assert!(got.exact);
            let sizes = even(n, k);
            let best = brute_best(&l, &players, &sizes, false, &|_| true).unwrap();
            let s = &got.splits[0];
            assert!(
                (s.unevenness - best.0).abs() < 1e-9,
                "{system}: {} vs {}",
                s.unevenness,
                best.0
            );
        }
    }

    #[test]
    fn the_proposed_tables_are_the_best_of_all_splits() {
        let l = league("sme", 10, 40, 7);
        let players = names(9);
        let got = balance(
            &l,
            &players,
            &Format::Tables { seats: 4 },
            &BalanceConfig::default(),
        )
        .unwrap();
        let best = brute_best(&l, &players, &[3, 3, 3], true, &|_| true).unwrap();
        assert!((got.splits[0].unevenness - best.0).abs() < 1e-9);
        assert_eq!(got.splits[0].groups.len(), 3);
    }

    #[test]
    fn newcomers_are_balanced_at_the_newcomers_rating_and_other_strangers_refused() {
        for system in ["trueskill", "kalman-mmr", "sme"] {
            let l = league(system, 8, 40, 5);
            let mut players = names(6);
            players.extend(["ann".to_string(), "bo".to_string()]);
            let config = BalanceConfig {
                newcomers: vec!["ann".into(), "bo".into()],
                ..BalanceConfig::default()
            };
            let got = balance(&l, &players, &Format::teams(2), &config).unwrap();
            // The best of all splits as the league predicts them, newcomers included.
            let best = brute_best(&l, &players, &[4, 4], false, &|_| true).unwrap();
            assert!((got.splits[0].unevenness - best.0).abs() < 1e-9, "{system}");
            let only_ann = BalanceConfig {
                newcomers: vec!["ann".into()],
                ..BalanceConfig::default()
            };
            assert_eq!(
                balance(&l, &players, &Format::teams(2), &only_ann).unwrap_err(),
                BalanceError::UnknownPlayer {
                    player: "bo".into()
                }
            );
            // A rated player, or one not present, named a newcomer; a group of one.
            let refused = |config: BalanceConfig| {
                balance(&l, &players, &Format::teams(2), &config)
                    .unwrap_err()
                    .to_string()
            };
            let games = l.get("p3").unwrap().stats.games;
            assert_eq!(
                refused(BalanceConfig {
                    newcomers: vec!["ann".into(), "bo".into(), "p3".into()],
                    ..BalanceConfig::default()
                }),
                format!("newcomers: player \"p3\" is rated by the league ({games} games), so not new; name them among the players only")
            );
            assert_eq!(
                refused(BalanceConfig {
                    newcomers: vec!["ann".into(), "bo".into(), "zed".into()],
                    ..BalanceConfig::default()
                }),
                "newcomers: player \"zed\" is not among the players present"
            );
            assert_eq!(
                refused(BalanceConfig {
                    newcomers: vec!["ann".into(), "bo".into()],
                    apart: vec![vec!["p0".into(), "p1".into()], vec!["p2".into()]],
                    ..BalanceConfig::default()
                }),
                "apart: group 1 (0-based) names 1 player(s); a group names two players or more"
            );
        }
    }

    #[test]
    fn options_are_honoured_and_the_result_is_the_best_that_honours_them() {
        let l = league("sme", 10, 40, 3);
        let players = names(8);
        let config = BalanceConfig {
            apart: vec![vec!["p0".into(), "p1".into()]],
            together: vec![vec!["p2".into(), "p7".into()]],
            fixed: vec![("p3".into(), 1)],
            top: 3,
            ..BalanceConfig::default()
        };
        let got = balance(&l, &players, &Format::teams(2), &config).unwrap();
        assert_eq!(got.splits.len(), 3);
        for s in &got.splits {
            let team = |p: &str| {
                s.groups
                    .iter()
                    .position(|g| g.players.iter().any(|x| x == p))
                    .unwrap()
            };
            assert_ne!(team("p0"), team("p1"));
            assert_eq!(team("p2"), team("p7"));
            assert_eq!(team("p3"), 1);
        }
        assert!(got.splits[0].unevenness <= got.splits[1].unevenness);
        let best = brute_best(&l, &players, &[4, 4], false, &|a| {
            a[0] != a[1] && a[2] == a[7] && a[3] == 1
        })
        .unwrap();
        assert!((got.splits[0].unevenness - best.0).abs() < 1e-9);
    }

    #[test]
    fn the_search_honours_the_options_and_finds_a_near_even_split() {
        let l = league("sme", 40, 200, 5);
        let players = names(40);
        let config = BalanceConfig {
            apart: vec![vec!["p0".into(), "p1".into(), "p2".into()]],
            together: vec![vec!["p5".into(), "p6".into()]],
            fixed: vec![("p9".into(), 3)],
            ..BalanceConfig::default()
        };
        let got = balance(&l, &players, &Format::teams(4), &config).unwrap();
        assert!(!got.exact);
        let s = &got.splits[0];
        let team = |p: &str| {
            s.groups
                .iter()
                .position(|g| g.players.iter().any(|x| x == p))
                .unwrap()
        };
        assert_ne!(team("p0"), team("p1"));
        assert_ne!(team("p0"), team("p2"));
        assert_ne!(team("p1"), team("p2"));
        assert_eq!(team("p5"), team("p6"));
        assert_eq!(team("p9"), 3);
        assert!(s.unevenness < 0.01, "{}", s.unevenness);
    }

    #[test]
    fn impossible_options_are_refused_with_a_reason() {
        let l = league("sme", 6, 20, 1);
        let players = names(6);
        let f = Format::teams(2);
        let apart3 = BalanceConfig {
            apart: vec![vec!["p0".into(), "p1".into(), "p2".into()]],
            ..BalanceConfig::default()
        };
        assert_eq!(
            balance(&l, &players, &f, &apart3).unwrap_err().to_string(),
            "no split honours the options: p0, p1, p2 are kept apart, but there are only 2 teams"
        );
        let tables = Format::Tables { seats: 6 };
        let apart2 = BalanceConfig {
            apart: vec![vec!["p4".into(), "p5".into()]],
            ..BalanceConfig::default()
        };
        assert_eq!(
            balance(&l, &players, &tables, &apart2)
                .unwrap_err()
                .to_string(),
            "no split honours the options: p4, p5 are kept apart, but there is only 1 table"
        );
        let fixed_together = BalanceConfig {
            apart: vec![vec!["p0".into(), "p3".into()]],
            fixed: vec![("p0".into(), 1), ("p3".into(), 1)],
            ..BalanceConfig::default()
        };
        assert_eq!(
            balance(&l, &players, &f, &fixed_together).unwrap_err().to_string(),
            "no split honours the options: \"p0\" and \"p3\" are to be kept apart, but both are fixed to team 2"
        );
        // No one option is impossible, only all of them at once: a team of three is
        // p0, p1 and p2, and the other cannot hold p3 and p4 apart.
        let all = BalanceConfig {
            apart: vec![
                vec!["p3".into(), "p4".into()],
                vec!["p5".into(), "p0".into()],
            ],
            together: vec![vec!["p0".into(), "p1".into(), "p2".into()]],
            ..BalanceConfig::default()
        };
        assert_eq!(
            balance(&l, &players, &f, &all).unwrap_err().to_string(),
            "no split honours the options: the 2 teams, of 3 and 3 seats, cannot seat these \
             players with p3, p4 kept apart; p5, p0 kept apart; p0, p1, p2 kept together"
        );
        let searched = BalanceConfig {
            exact_limit: 0,
            fixed: vec![("p3".into(), 0)],
            ..all
        };
        assert_eq!(
            balance(&l, &players, &f, &searched)
                .unwrap_err()
                .to_string(),
            "no split honours the options: the 2 teams, of 3 and 3 seats, cannot seat these \
             players with p3, p4 kept apart; p5, p0 kept apart; p0, p1, p2 kept together; \
             p3 fixed to team 1 (no random start of the search honoured them)"
        );
        let big = BalanceConfig {
            together: vec![vec!["p0".into(), "p1".into(), "p2".into(), "p3".into()]],
            ..BalanceConfig::default()
        };
        let e = balance(&l, &players, &f, &big).unwrap_err();
        assert!(
            e.to_string().contains("p0, p1, p2, p3 are kept together"),
            "{e}"
        );
        let both = BalanceConfig {
            together: vec![vec!["p0".into(), "p1".into()]],
            apart: vec![vec!["p1".into(), "p0".into()]],
            ..BalanceConfig::default()
        };
        assert!(matches!(
            balance(&l, &players, &f, &both),
            Err(BalanceError::Impossible { .. })
        ));
        let fixed = BalanceConfig {
            fixed: vec![("p0".into(), 2)],
            ..BalanceConfig::default()
        };
        assert!(matches!(
            balance(&l, &players, &f, &fixed),
            Err(BalanceError::NoSuchTeam {
                team: 3,
                teams: 2,
                ..
            })
        ));
        let absent = BalanceConfig {
            apart: vec![vec!["p0".into(), "zed".into()]],
            ..BalanceConfig::default()
        };
        assert!(matches!(
            balance(&l, &players, &f, &absent),
            Err(BalanceError::NotPresent {
                option: "apart",
                ..
            })
        ));
    }

    #[test]
    fn bad_player_lists_are_refused() {
        let l = league("sme", 6, 20, 1);
        let f = Format::teams(2);
        let c = BalanceConfig::default();
        assert_eq!(
            balance(&l, &["p0", "nobody"], &f, &c).unwrap_err(),
            BalanceError::UnknownPlayer {
                player: "nobody".into()
            }
        );
        assert_eq!(
            balance(&l, &["p0", "p1", "p0"], &f, &c).unwrap_err(),
            BalanceError::DuplicatePlayer {
                player: "p0".into()
            }
        );
        let sized = Format::Teams {
            teams: 2,
            sizes: vec![2, 2],
        };
        assert_eq!(
            balance(&l, &["p0", "p1", "p2", "p3", "p4"], &sized, &c).unwrap_err(),
            BalanceError::SeatsMismatch {
                seats: 4,
                players: 5
            }
        );
        // A player fixed to the last index a usize holds: no team of that number, said
        // without overflowing the 1-based number.
        let mut far = c.clone();
        far.fixed = vec![("p0".into(), usize::MAX)];
        assert_eq!(
            balance(&l, &["p0", "p1", "p2", "p3"], &Format::teams(2), &far).unwrap_err(),
            BalanceError::NoSuchTeam {
                player: "p0".into(),
                team: usize::MAX,
                teams: 2
            }
        );
        // Sizes whose sum wraps around to the number of players (2^50 + (2^64 − 2^50 + 2)
        // is 2 modulo 2^64) are refused by the first size larger than the players.
        let wrapping = Format::Teams {
            teams: 2,
            sizes: vec![1 << 50, usize::MAX - (1 << 50) + 3],
        };
        assert_eq!(
            balance(&l, &["p0", "p1"], &wrapping, &c).unwrap_err(),
            BalanceError::BadFormat {
                reason: "team 1 has size 1125899906842624, more than the 2 players to split".into()
            }
        );
        let one_huge = Format::Teams {
            teams: 2,
            sizes: vec![usize::MAX, 1],
        };
        assert_eq!(
            balance(&l, &["p0", "p1"], &one_huge, &c)
                .unwrap_err()
                .to_string(),
            format!(
                "{}",
                BalanceError::BadFormat {
                    reason: format!(
                        "team 1 has size {}, more than the 2 players to split",
                        usize::MAX
                    )
                }
            )
        );
        assert_eq!(
            balance(&l, &["p0"], &Format::teams(2), &c).unwrap_err(),
            BalanceError::TooFewPlayers {
                players: 1,
                needed: 2
            }
        );
    }

    #[test]
    fn a_split_reports_what_the_league_predicts_for_it() {
        let l = league("kalman-mmr", 8, 40, 2);
        let players = names(6);
        let got = balance(&l, &players, &Format::teams(3), &BalanceConfig::default()).unwrap();
        let s = &got.splits[0];
        let mut m = Match::builder("x");
        for (t, g) in s.groups.iter().enumerate() {
            m = m.team(format!("t{t}"), g.players.clone(), Finish::Rank(1.0));
        }
        let p = l.predict(&m.build().unwrap()).unwrap();
        let total: f64 = p.win.iter().sum();
        for (g, w) in s.groups.iter().zip(&p.win) {
            assert!((g.win.unwrap() - w / total).abs() < 1e-12);
        }
    }
}
