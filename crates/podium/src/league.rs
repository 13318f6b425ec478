//! A [`League`]: a pool of players rated by one system, match after match, with the
//! statistics every leaderboard shows. It is the driver that the command line, the
//! backtests and the server share; it does no I/O.

use std::collections::HashMap;
use std::sync::Arc;

use compact_str::CompactString;

use crate::error::{MatchError, RateError};
use crate::factor::Factor;
use crate::model::Match;
use crate::rating::{PlayerChange, Rating};
use crate::state::State;
use crate::system::{Capabilities, Posterior, Prior, RatingSystem};

pub mod batch;
#[cfg(feature = "serde")]
pub mod saved;

pub use batch::RankedBatch;

/// Seconds in a day, for aging ratings by days of inactivity.
const DAY: f64 = 86_400.0;

/// What a leaderboard reports of a player besides the rating (the results table of Gautam Narula's "Building a Multiplayer Elo Rating System", 2012).
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PlayerStats {
    /// Matches played.
    pub games: u32,
    /// Wins; a tie for first among k entries counts 1/k.
    pub wins: f64,
    /// Sum over the player's matches of 1/N (N entries): the wins of an average player.
    pub expected_wins: f64,
    /// Sum of the number of entries of the player's matches.
    pub entries_total: u64,
    /// Time of the last match played, when matches have times (Unix seconds).
    pub last_time: Option<i64>,
    /// Id of the last match played. Kept inline for ids up to 24 bytes, so that updating
    /// it touches only the player's own record.
    #[cfg_attr(feature = "serde", serde(serialize_with = "ser_id"))]
    pub last_match: Option<CompactString>,
}

#[cfg(feature = "serde")]
fn ser_id<S: serde::Serializer>(v: &Option<CompactString>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.serialize_some(v.as_str()),
        None => s.serialize_none(),
    }
}

impl PlayerStats {
    /// Mean number of entries in the player's matches.
    #[must_use]
    pub fn average_size(&self) -> f64 {
        ratio(self.entries_total as f64, f64::from(self.games))
    }

    /// Win percentage, 0..100.
    #[must_use]
    pub fn win_pct(&self) -> f64 {
        100.0 * ratio(self.wins, f64::from(self.games))
    }

    /// Expected win percentage of an average player in the same matches, 0..100.
    #[must_use]
    pub fn expected_win_pct(&self) -> f64 {
        100.0 * ratio(self.expected_wins, f64::from(self.games))
    }
}

/// What one match adds to each of its players' statistics, worked out once per match.
struct Tally {
    id: CompactString,
    time: Option<i64>,
    entries: u64,
    /// 1/N for N entries: the wins of an average player.
    expected: f64,
    /// A winner's share of the win: 1/k for k tied winners.
    win: f64,
}

impl Tally {
    fn new(id: &str, time: Option<i64>, entries: usize, winners: usize) -> Self {
        Tally {
            id: CompactString::from(id),
            time,
            entries: entries as u64,
            expected: 1.0 / entries as f64,
            win: 1.0 / winners as f64,
        }
    }
}

impl PlayerStats {
    /// Counts one match, won (shared among its winners) or not.
    fn record(&mut self, t: &Tally, won: bool) {
        self.games += 1;
        self.entries_total += t.entries;
        self.expected_wins += t.expected;
        if won {
            self.wins += t.win;
        }
        if let Some(t) = t.time {
            self.last_time = Some(self.last_time.map_or(t, |l| l.max(t)));
        }
        // Ids up to 24 bytes are inline: a copy, no allocation.
        match &mut self.last_match {
            Some(last) => last.clone_from(&t.id),
            None => self.last_match = Some(t.id.clone()),
        }
    }
}

/// The error of a system that met a player it knew only by position (`#1`), named.
fn named(e: RateError, name: &str) -> RateError {
    match e {
        RateError::RatingOutOfRange {
            system,
            what,
            value,
            allowed,
            ..
        } => RateError::RatingOutOfRange {
            system,
            player: name.to_string(),
            what,
            value,
            allowed,
        },
        other => other,
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

/// A player known to the league.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerRecord {
    /// The player's id.
    pub name: String,
    /// The current rating.
    pub rating: Rating,
    /// Leaderboard statistics.
    pub stats: PlayerStats,
}

/// A factor known to the league ([`crate::factor`]): a car, a seat, a faction, with its
/// rating and the statistics of the matches where it told entries apart.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FactorRecord {
    /// The factor.
    pub factor: Factor,
    /// Its current rating: what it adds to an entry's strength.
    pub rating: Rating,
    /// Its matches; a match counts as won when an entry that carries it won.
    pub stats: PlayerStats,
}

/// One row of a leaderboard.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Standing {
    /// 1-based position on the leaderboard.
    pub position: usize,
    /// The player's id.
    pub player: String,
    /// The current rating.
    pub rating: Rating,
    /// Statistics of the player's matches.
    pub stats: PlayerStats,
    /// Whether the rating is still provisional ([`RatingSystem::is_provisional`]: fewer
    /// than [`crate::PROVISIONAL_GAMES`] games unless the system has a period of its own).
    pub provisional: bool,
}

/// The players of one match and their changes, in [`Match::players`] order.
#[derive(Debug, Clone)]
pub struct MatchReport {
    /// Index of the match among those the league rated (0-based).
    pub sequence: u64,
    /// Each player's index in the league (see [`League::player`]) and change.
    pub changes: Vec<(usize, PlayerChange)>,
    /// Each player's state after the match, for a system that keeps one
    /// ([`Capabilities::keeps_state`]); empty otherwise.
    pub states: Vec<Option<State>>,
    /// Each factor of the match ([`Match::factors`]) by its index in
    /// [`League::factors`], with its change; empty for a match without factors.
    pub factors: Vec<(usize, PlayerChange)>,
}

impl PartialEq for MatchReport {
    /// Reports are equal when their matches and changes are; states are compared by the
    /// value they share ([`State::same`]).
    fn eq(&self, other: &Self) -> bool {
        self.sequence == other.sequence
            && self.changes == other.changes
            && self.factors == other.factors
            && self.states.len() == other.states.len()
            && self
                .states
                .iter()
                .zip(&other.states)
                .all(|(a, b)| match (a, b) {
                    (Some(a), Some(b)) => State::same(a, b),
                    (None, None) => true,
                    _ => false,
                })
    }
}

/// A pool of players rated by one system.
///
/// ```
/// use podium::{League, Match};
/// let mut league = League::new(podium::system("sme", &podium::Settings::new()).unwrap());
/// league.apply(&Match::ranked("g1", &["ann", "bo", "cy"]).unwrap()).unwrap();
/// let board = league.standings();
/// assert_eq!(board[0].player, "ann");
/// assert!((board[0].rating.value - 1516.0).abs() < 1e-9);
/// assert_eq!(board[2].stats.games, 1);
/// ```
///
/// A league can be cloned (the system is shared, the players and their states are
/// copied), e.g. to keep a checkpoint to rate again from.
#[derive(Debug, Clone)]
pub struct League {
    system: Arc<dyn RatingSystem>,
    /// What the system reads and keeps (asked once).
    caps: Capabilities,
    /// Player id → index in `players`. Ids up to 24 bytes are stored inline in the table
    /// (no pointer to chase when comparing), hashed with foldhash (fast, seeded per run).
    index: HashMap<CompactString, usize, foldhash::fast::RandomState>,
    players: Vec<PlayerRecord>,
    /// Each player's state, by index, when the system keeps one (empty otherwise).
    states: Vec<Option<State>>,
    /// What the system learned from every match so far, for a system that learns
    /// ([`RatingSystem::initial_learned`]).
    learned: Option<State>,
    pub(crate) rated: u64,
    /// Seasons started ([`League::new_season`]).
    pub(crate) seasons: u32,
    /// Scratch of the rating step, kept to reuse its allocations from match to match:
    /// each player's slot, rating before and change.
    slots: Vec<Slot<'static>>,
    before: Vec<Rating>,
    /// And each player's state, for a system that keeps one (always empty between
    /// matches: its references live for one match).
    state_refs: Vec<Option<&'static State>>,
    /// And what the system made of the match ([`RatingSystem::rate_into`]), its vectors
    /// reused from match to match.
    posterior: Posterior,
    /// The match [`League::apply_ranked`] builds (boxed, as it is taken and put back on
    /// every call), and entries it may reuse.
    scratch: Option<Box<Match>>,
    spare: Vec<crate::model::Entry>,
    /// Per player, the last [`League::apply_ranked`] call that met them (finds repeats).
    stamps: Vec<u32>,
    stamp_now: u32,
    /// What [`League::apply_batch`] keeps from batch to batch.
    marks: batch::Marks,
    /// The factors met so far ([`crate::factor`]), and their index by factor.
    factors: Vec<FactorRecord>,
    factor_index: HashMap<Factor, usize>,
}

/// A player of [`League::apply_ranked`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot<'a> {
    /// A player of the league, by index (as [`League::index_of`] gives it).
    Known(usize),
    /// A player by id, added to the league if new.
    New(&'a str),
}

fn is_finite(r: &Rating) -> bool {
    r.value.is_finite() && r.sigma.map_or(true, |s| s.is_finite() && s >= 0.0)
}

/// What one match adds to the league once it is rated: who, with which finish.
struct Outcome<'a> {
    id: &'a str,
    time: Option<i64>,
    entries: usize,
    winners: usize,
}

impl<'a> Outcome<'a> {
    fn of(game: &'a Match) -> Self {
        Outcome {
            id: game.id(),
            time: game.time(),
            entries: game.len(),
            winners: game.winners(),
        }
    }
}

/// Each committed player's league index with their change (every slot is known once
/// [`League::commit`] succeeded).
fn indexed(slots: &[Slot<'_>], changes: &[PlayerChange]) -> Vec<(usize, PlayerChange)> {
    slots
        .iter()
        .zip(changes.iter().copied())
        .map(|(slot, c)| match *slot {
            Slot::Known(i) => (i, c),
            Slot::New(_) => unreachable!("commit makes every slot known"),
        })
        .collect()
}

impl League {
    /// An empty league rated by `system`.
    #[must_use]
    pub fn new(system: Box<dyn RatingSystem>) -> Self {
        League::shared(Arc::from(system))
    }

    /// An empty league rated by a system shared with others (leagues of one system, or
    /// copies of one league, need only one).
    #[must_use]
    pub fn shared(system: Arc<dyn RatingSystem>) -> Self {
        League {
            caps: system.capabilities(),
            learned: system.initial_learned(),
            system,
            index: HashMap::default(),
            players: Vec::new(),
            states: Vec::new(),
            rated: 0,
            seasons: 0,
            slots: Vec::new(),
            before: Vec::new(),
            state_refs: Vec::new(),
            posterior: Posterior::default(),
            scratch: None,
            spare: Vec::new(),
            stamps: Vec::new(),
            stamp_now: 0,
            marks: batch::Marks::default(),
            factors: Vec::new(),
            factor_index: HashMap::new(),
        }
    }

    /// The rating system.
    #[must_use]
    pub fn system(&self) -> &dyn RatingSystem {
        &*self.system
    }

    /// The rating system, shared.
    #[must_use]
    pub fn system_arc(&self) -> Arc<dyn RatingSystem> {
        Arc::clone(&self.system)
    }

    /// Number of matches rated so far.
    #[must_use]
    pub fn matches_rated(&self) -> u64 {
        self.rated
    }

    /// How many seasons were started ([`League::new_season`]); 0 before the first.
    /// Once one was, [`crate::season::season_standings`] is the board of the players
    /// of the season under way. A saved league keeps it.
    #[must_use]
    pub fn seasons(&self) -> u32 {
        self.seasons
    }

    /// Every player, in the order they were first seen.
    #[must_use]
    pub fn players(&self) -> &[PlayerRecord] {
        &self.players
    }

    /// The player at `index` (as in [`MatchReport::changes`]).
    #[must_use]
    pub fn player(&self, index: usize) -> &PlayerRecord {
        &self.players[index]
    }

    /// The state the system keeps for the player at `index`, if it keeps one.
    #[must_use]
    pub fn state(&self, index: usize) -> Option<&State> {
        self.states.get(index).and_then(Option::as_ref)
    }

    /// What the system learned from every match rated so far, for a system that learns
    /// ([`RatingSystem::initial_learned`]).
    #[must_use]
    pub fn learned(&self) -> Option<&State> {
        self.learned.as_ref()
    }

    /// The rating player `index` has now: their last rating, or for a system that learns
    /// from every match, their rating as the system reads it today
    /// ([`RatingSystem::age`]; no idle days counted).
    #[must_use]
    pub fn current(&self, index: usize) -> Rating {
        let p = &self.players[index];
        match &self.learned {
            Some(l) => self.system.age(p.rating, self.state(index), Some(l), 0.0),
            None => p.rating,
        }
    }

    /// The probability that a player rated `a` finishes ahead of one rated `b`, by the
    /// system with what it learned so far ([`RatingSystem::win_probability`]).
    #[must_use]
    pub fn win_probability(&self, a: &Rating, b: &Rating) -> f64 {
        self.system.win_probability(a, b, self.learned.as_ref())
    }

    /// What the system expects of `game` given the league's ratings before it
    /// ([`League::ratings_before`]) and what it learned so far.
    ///
    /// # Errors
    /// The system's [`RateError`] when it cannot predict the match;
    /// [`RateError::Limit`] for more than [`crate::limits::MAX_PREDICT_ENTRIES`] entries,
    /// before anything is allocated.
    pub fn predict(&self, game: &Match) -> Result<crate::Prediction, RateError> {
        crate::limits::check_predict_entries("entries", game.len())?;
        let before = self.strengths_before(game);
        self.system
            .predict(&Prior::new(game, &before).with_learned(self.learned.as_ref()))
    }

    /// The ratings before `game` ([`League::ratings_before`]) with each entry's factors
    /// folded in ([`RatingSystem::fold_factors`]): what predictions and pair
    /// probabilities read. The same as `ratings_before` for a match without factors or a
    /// system that does not rate them.
    #[must_use]
    pub fn strengths_before(&self, game: &Match) -> Vec<Rating> {
        let before = self.ratings_before(game);
        if game.factors().is_empty() || !self.caps.rates_factors {
            return before;
        }
        self.system
            .fold_factors(game, &before, &self.factor_ratings(game))
    }

    /// The current rating of each factor of `game` ([`Match::factors`]), a factor not
    /// met yet at [`RatingSystem::initial_factor`].
    #[must_use]
    pub fn factor_ratings(&self, game: &Match) -> Vec<Rating> {
        game.factors()
            .iter()
            .map(|m| self.factor_rating(&m.factor))
            .collect()
    }

    /// The current rating of a factor, [`RatingSystem::initial_factor`] if not met yet.
    #[must_use]
    pub fn factor_rating(&self, factor: &Factor) -> Rating {
        self.factor_index
            .get(factor)
            .map_or_else(|| self.system.initial_factor(), |&i| self.factors[i].rating)
    }

    /// Every factor met so far, in order of first appearance.
    #[must_use]
    pub fn factors(&self) -> &[FactorRecord] {
        &self.factors
    }

    /// The factors' table: by kind (alphabetical), then best rated first (then by value).
    #[must_use]
    pub fn factor_standings(&self) -> Vec<FactorRecord> {
        let mut out = self.factors.clone();
        out.sort_by(|a, b| {
            a.factor
                .kind
                .cmp(&b.factor.kind)
                .then(b.rating.value.total_cmp(&a.rating.value))
                .then(a.factor.value.cmp(&b.factor.value))
        });
        out
    }

    /// The player with id `name`, if known.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&PlayerRecord> {
        self.index.get(name).map(|&i| &self.players[i])
    }

    /// The rating a player has now, or would start with if new.
    #[must_use]
    pub fn rating_of(&self, name: &str) -> Rating {
        match self.index.get(name) {
            Some(&i) => self.current(i),
            None => self.newcomer(),
        }
    }

    /// The rating of a player the league has not met yet.
    fn newcomer(&self) -> Rating {
        let r = self
            .system
            .new_player_rating(&mut self.players.iter().map(|p| &p.rating));
        match &self.learned {
            Some(l) => self.system.age(r, None, Some(l), 0.0),
            None => r,
        }
    }

    /// Sets a player's starting rating (e.g. migrated from another league); `rating.games`
    /// counts the games already played elsewhere. A rating without σ for a system that
    /// keeps one takes a newcomer's σ; a σ given to a system without one is dropped (it
    /// would read nothing of it, and show it for ever). A system that keeps a state per
    /// player starts it from this rating.
    ///
    /// # Errors
    /// [`RateError::InvalidMatch`] for an id no match could name
    /// ([`crate::model::check_id`]); the system's [`RateError`] when it cannot start a
    /// player at this rating ([`RatingSystem::check_rating`]: a value or σ outside the
    /// range its arithmetic holds for); nothing changes then.
    pub fn set_initial(&mut self, name: &str, mut rating: Rating) -> Result<(), RateError> {
        crate::model::check_player_id(name)?;
        if !self.caps.has_uncertainty {
            rating.sigma = None;
        } else if rating.sigma.is_none() {
            rating.sigma = self.system.initial_rating().sigma;
        }
        self.system
            .check_rating(&rating)
            .map_err(|e| named(e, name))?;
        let state = if self.caps.keeps_state {
            self.system
                .initial_state(&rating)
                .map_err(|e| named(e, name))?
        } else {
            None
        };
        let i = match self.index.get(name) {
            Some(&i) => i,
            None => self.insert(name, rating),
        };
        self.players[i].rating = rating;
        if self.caps.keeps_state {
            self.states[i] = state;
        }
        Ok(())
    }

    /// Starts every player's and factor's statistics again (games, wins, expected wins,
    /// entries), keeping their ratings, states and what the system learned: what a new
    /// season starts from ([`crate::season`]). The time of each one's last match stays,
    /// as the clock from which a system with σ ages an idle rating.
    pub fn clear_stats(&mut self) {
        let fresh = |s: &PlayerStats| PlayerStats {
            last_time: s.last_time,
            ..PlayerStats::default()
        };
        for p in &mut self.players {
            p.stats = fresh(&p.stats);
        }
        for f in &mut self.factors {
            f.stats = fresh(&f.stats);
        }
    }

    /// The league started over with the same players and factors, known in the same
    /// order (indices keep naming them): each player at `rating` (with its state, as
    /// [`League::set_initial`] gives it), each factor at [`RatingSystem::initial_factor`],
    /// what the system learned at [`RatingSystem::initial_learned`], no statistics.
    ///
    /// # Errors
    /// As [`League::set_initial`], for the first player the system refuses.
    pub fn start_over(&self, rating: Rating) -> Result<League, RateError> {
        let mut next = League::shared(self.system_arc());
        for p in &self.players {
            next.set_initial(&p.name, rating)?;
        }
        for f in &self.factors {
            next.factor_index
                .insert(f.factor.clone(), next.factors.len());
            next.factors.push(FactorRecord {
                factor: f.factor.clone(),
                rating: self.system.initial_factor(),
                stats: PlayerStats::default(),
            });
        }
        Ok(next)
    }

    fn insert(&mut self, name: &str, rating: Rating) -> usize {
        let i = self.players.len();
        self.index.insert(CompactString::from(name), i);
        self.players.push(PlayerRecord {
            name: name.to_string(),
            rating,
            stats: PlayerStats::default(),
        });
        if self.caps.keeps_state {
            self.states.push(None);
        }
        i
    }

    /// Rates a match and updates every participant: the one way a league rates a match
    /// (the system's [`RatingSystem::rate_into`] with each player's rating, state, what
    /// the system learned and the factors' ratings). Nothing changes if it fails.
    ///
    /// # Errors
    /// The system's [`RateError`] when it cannot rate the match.
    pub fn apply(&mut self, game: &Match) -> Result<MatchReport, RateError> {
        // One lookup per player: the slots serve both the ratings before and the update.
        let mut slots = self.take_slots();
        slots.extend(game.players().map(|(_, m)| self.slot(&m.player)));
        let result = self.rate_and_commit(game, &mut slots).map(|at| {
            let posterior = &mut self.posterior;
            MatchReport {
                sequence: self.rated - 1,
                changes: indexed(&slots, &posterior.changes),
                states: std::mem::take(&mut posterior.states),
                factors: at
                    .into_iter()
                    .zip(posterior.factors.iter().copied())
                    .collect(),
            }
        });
        self.give_back_slots(slots);
        result
    }

    /// What the system makes of `game` for the players in `slots`
    /// ([`RatingSystem::rate_into`]), into `posterior`, checked, without changing the
    /// league. `before` and `states` are the buffers the ratings and states before are
    /// put in.
    fn posterior<'s>(
        &'s self,
        game: &Match,
        slots: &[Slot<'_>],
        before: &mut Vec<Rating>,
        states: &mut Vec<Option<&'s State>>,
        posterior: &mut Posterior,
    ) -> Result<(), RateError> {
        self.fill_before(slots, game.time(), before);
        let factors = if game.factors().is_empty() {
            Vec::new()
        } else {
            self.factor_ratings(game)
        };
        states.clear();
        if self.caps.keeps_state {
            states.extend(slots.iter().map(|s| self.slot_state(*s)));
        }
        let prior = Prior {
            game,
            ratings: before,
            states,
            learned: self.learned.as_ref(),
            factors: &factors,
        };
        self.system
            .rate_into(&prior, posterior)
            .map_err(|e| Self::who_is_out_of_range(e, game, before))?;
        if posterior.factors.len() != factors.len() {
            return Err(RateError::FactorCountMismatch {
                expected: factors.len(),
                found: posterior.factors.len(),
            });
        }
        if let Some((m, c)) = game
            .factors()
            .iter()
            .zip(&posterior.factors)
            .find(|(_, c)| !is_finite(&c.after))
        {
            return Err(RateError::Diverged {
                system: self.system.name(),
                player: m.factor.to_string(),
                rating: c.after.value,
                sigma: c.after.sigma,
            });
        }
        Ok(())
    }

    /// A system's error of a rating out of its range, which names the player by position
    /// (`#1`), named after the player of `game` whose rating before (`before`, in
    /// [`Match::players`] order) it is.
    fn who_is_out_of_range(e: RateError, game: &Match, before: &[Rating]) -> RateError {
        let RateError::RatingOutOfRange {
            player,
            what,
            value,
            ..
        } = &e
        else {
            return e;
        };
        if player != "#1" {
            return e;
        }
        let is_it = |r: &Rating| match *what {
            "sigma" => r
                .sigma
                .map_or(value.is_nan(), |s| s.to_bits() == value.to_bits()),
            _ => r.value.to_bits() == value.to_bits(),
        };
        match game.players().zip(before).find(|(_, r)| is_it(r)) {
            Some(((_, m), _)) => {
                let name = m.player.clone();
                named(e, &name)
            }
            None => e,
        }
    }

    /// Rates `game` for the players in `slots` and stores the result: the players'
    /// ratings, states and statistics, what the system learned, the factors. Nothing
    /// changes if it fails; on success every slot is [`Slot::Known`]. Leaves the
    /// posterior in `self.posterior` (its changes in [`Match::players`] order) and
    /// returns each factor's index in [`League::factors`].
    fn rate_and_commit(
        &mut self,
        game: &Match,
        slots: &mut [Slot<'_>],
    ) -> Result<Vec<usize>, RateError> {
        let mut posterior = std::mem::take(&mut self.posterior);
        let rated = self.rate_only(game, slots, &mut posterior);
        let committed = rated.and_then(|()| self.commit_posterior(game, slots, &mut posterior));
        self.posterior = posterior;
        committed
    }

    /// The rating of [`League::rate_and_commit`], into `posterior`, in the league's
    /// buffers: nothing of the league changes.
    fn rate_only(
        &mut self,
        game: &Match,
        slots: &[Slot<'_>],
        posterior: &mut Posterior,
    ) -> Result<(), RateError> {
        let mut before = std::mem::take(&mut self.before);
        // An empty vector changes its element's lifetime in place, without allocating.
        let mut states: Vec<Option<&State>> = std::mem::take(&mut self.state_refs)
            .into_iter()
            .map(|_| unreachable!("the buffer is empty"))
            .collect();
        let rated = self.posterior(game, slots, &mut before, &mut states, posterior);
        states.clear();
        self.state_refs = states.into_iter().map(|_| unreachable!()).collect();
        self.before = before;
        rated
    }

    /// The commit of [`League::rate_and_commit`], from the posterior of `game`.
    fn commit_posterior(
        &mut self,
        game: &Match,
        slots: &mut [Slot<'_>],
        posterior: &mut Posterior,
    ) -> Result<Vec<usize>, RateError> {
        let outcome = Outcome::of(game);
        // Entries are best first: the winners' players are the first ones.
        let winners = game.member_range(outcome.winners - 1).end;
        let won = (0..game.player_count()).map(|k| k < winners);
        // The states replaced are kept for the system's next match to write into.
        posterior.spare.clear();
        let spare = &mut posterior.spare;
        self.commit(
            &outcome,
            slots,
            won,
            &posterior.changes,
            &posterior.states,
            |old| {
                spare.extend(old);
            },
        )?;
        if posterior.learned.is_some() {
            self.learned = posterior.learned.take();
        }
        Ok(if posterior.factors.is_empty() {
            Vec::new()
        } else {
            self.commit_factors(game, &outcome, &posterior.factors)
        })
    }

    /// Stores each factor's change of a committed match (factors met for the first time
    /// added) and counts the match in the factor's statistics; returns each factor's
    /// index in [`League::factors`], in [`Match::factors`] order.
    fn commit_factors(
        &mut self,
        game: &Match,
        outcome: &Outcome<'_>,
        changes: &[PlayerChange],
    ) -> Vec<usize> {
        let tally = Tally::new(outcome.id, outcome.time, outcome.entries, outcome.winners);
        let mut at = Vec::with_capacity(changes.len());
        for (m, c) in game.factors().iter().zip(changes) {
            let i = match self.factor_index.get(&m.factor) {
                Some(&i) => i,
                None => {
                    self.factors.push(FactorRecord {
                        factor: m.factor.clone(),
                        rating: c.before,
                        stats: PlayerStats::default(),
                    });
                    self.factor_index
                        .insert(m.factor.clone(), self.factors.len() - 1);
                    self.factors.len() - 1
                }
            };
            let f = &mut self.factors[i];
            f.rating = c.after;
            f.stats
                .record(&tally, m.entries.iter().any(|&e| game.place(e) == 1));
            at.push(i);
        }
        at
    }

    /// The slot of a player: known by index, or new.
    fn slot<'g>(&self, player: &'g str) -> Slot<'g> {
        match self.index.get(player) {
            Some(&i) => Slot::Known(i),
            None => Slot::New(player),
        }
    }

    /// An empty slot buffer, reusing the league's allocation.
    fn take_slots<'a>(&mut self) -> Vec<Slot<'a>> {
        // An empty vector changes its element's lifetime in place, without allocating.
        std::mem::take(&mut self.slots)
            .into_iter()
            .map(|_| unreachable!("the buffer is empty"))
            .collect()
    }

    fn give_back_slots(&mut self, mut slots: Vec<Slot<'_>>) {
        slots.clear();
        self.slots = slots.into_iter().map(|_| unreachable!()).collect();
    }

    /// The state of a slot's player: theirs if known, none for a newcomer (the system
    /// builds it from the rating).
    fn slot_state(&self, slot: Slot<'_>) -> Option<&State> {
        match slot {
            Slot::Known(i) => self.state(i),
            Slot::New(_) => None,
        }
    }

    /// Each slot's rating before a match at `time`: known players' ratings aged by the
    /// days since they last played (systems with σ, matches with times), newcomers at the
    /// rating the system gives them.
    #[inline]
    fn fill_before(&self, slots: &[Slot<'_>], time: Option<i64>, before: &mut Vec<Rating>) {
        before.clear();
        let mut newcomer = None;
        let aging = (time.is_some() && self.caps.has_uncertainty) || self.learned.is_some();
        for slot in slots {
            before.push(match *slot {
                Slot::Known(i) if aging => self.aged(i, time),
                Slot::Known(i) => self.players[i].rating,
                Slot::New(_) => *newcomer.get_or_insert_with(|| self.newcomer()),
            });
        }
    }

    /// Player `i`'s rating at `time`, aged by the days since their last match.
    fn aged(&self, i: usize, time: Option<i64>) -> Rating {
        let p = &self.players[i];
        let days = match (time, p.stats.last_time) {
            (Some(now), Some(last)) if now > last && self.caps.has_uncertainty => {
                // Apart by up to 2^64 seconds: the difference taken without wrapping.
                Some(now.abs_diff(last) as f64 / DAY)
            }
            _ => None,
        };
        match (days, &self.learned) {
            (_, Some(l)) => self
                .system
                .age(p.rating, self.state(i), Some(l), days.unwrap_or(0.0)),
            (Some(days), None) => self.system.age(p.rating, self.state(i), None, days),
            (None, None) => p.rating,
        }
    }

    /// Refuses a match's changes that do not fit its players (one each, and one state
    /// each for a system that returned states) or are not finite numbers.
    fn check_changes(
        &self,
        slots: &[Slot<'_>],
        changes: &[PlayerChange],
        states: &[Option<State>],
    ) -> Result<(), RateError> {
        let stateful = self.caps.keeps_state && !states.is_empty();
        if changes.len() != slots.len() || (stateful && states.len() != slots.len()) {
            return Err(RateError::RatingCountMismatch {
                expected: slots.len(),
                found: if changes.len() != slots.len() {
                    changes.len()
                } else {
                    states.len()
                },
            });
        }
        // The usual case first, in two plain passes the compiler keeps tight: finite
        // ratings, no σ. Anything else is looked at player by player.
        let plain = changes.iter().all(|c| c.after.value.is_finite())
            && changes.iter().all(|c| c.after.sigma.is_none());
        if !plain {
            if let Some(k) = changes.iter().position(|c| !is_finite(&c.after)) {
                return Err(RateError::Diverged {
                    system: self.system.name(),
                    player: match slots[k] {
                        Slot::Known(i) => self.players[i].name.clone(),
                        Slot::New(name) => name.to_string(),
                    },
                    rating: changes[k].after.value,
                    sigma: changes[k].after.sigma,
                });
            }
        }
        Ok(())
    }

    /// The step every way of rating a match ends in: refuses changes that are not finite
    /// numbers (nothing applied), then adds the new players, stores every player's rating
    /// (and state) and counts the match in their statistics. `won` says, per player,
    /// whether they finished first. Every slot is [`Slot::Known`] afterwards.
    #[inline]
    fn commit(
        &mut self,
        outcome: &Outcome<'_>,
        slots: &mut [Slot<'_>],
        won: impl Iterator<Item = bool>,
        changes: &[PlayerChange],
        states: &[Option<State>],
        retire: impl FnMut(Option<State>),
    ) -> Result<(), RateError> {
        self.check_changes(slots, changes, states)?;
        let stateful = self.caps.keeps_state && !states.is_empty();
        self.store(
            outcome,
            slots,
            won,
            changes,
            stateful,
            |k| states[k].clone(),
            retire,
        );
        Ok(())
    }

    /// The storing step of [`League::commit`], for changes checked already: each
    /// player's state (when `stateful`) comes from `state`, by position, and the state
    /// it replaces goes to `retire`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        outcome: &Outcome<'_>,
        slots: &mut [Slot<'_>],
        won: impl Iterator<Item = bool>,
        changes: &[PlayerChange],
        stateful: bool,
        mut state: impl FnMut(usize) -> Option<State>,
        mut retire: impl FnMut(Option<State>),
    ) {
        let tally = Tally::new(outcome.id, outcome.time, outcome.entries, outcome.winners);
        for (k, ((slot, c), won)) in slots.iter_mut().zip(changes).zip(won).enumerate() {
            let i = match *slot {
                Slot::Known(i) => i,
                Slot::New(name) => {
                    let i = self.insert(name, c.before);
                    *slot = Slot::Known(i);
                    i
                }
            };
            let p = &mut self.players[i];
            p.rating = c.after;
            p.stats.record(&tally, won);
            if stateful {
                retire(std::mem::replace(&mut self.states[i], state(k)));
            }
        }
        self.rated += 1;
    }

    /// The index of the player with id `name` (as [`League::player`] takes it), if known.
    #[must_use]
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// A hint that player `index` is about to be rated: starts loading their record into
    /// the processor's cache, so that a later [`League::apply_ranked`] does not wait for
    /// memory. It changes nothing, and an index that is not a player's is ignored.
    ///
    /// Readers that know the matches ahead call it a few matches early: with tens of
    /// thousands of players the records no longer fit in the cache, and rating a match
    /// otherwise waits on every player's record in turn.
    ///
    /// ```
    /// use podium::{League, Match};
    /// let mut league = League::new(podium::system("sme", &podium::Settings::new()).unwrap());
    /// league.apply(&Match::ranked("g1", &["ann", "bo"]).unwrap()).unwrap();
    /// let before = league.standings();
    /// league.prefetch(1);
    /// league.prefetch(99); // not a player: ignored
    /// assert_eq!(league.standings(), before);
    /// ```
    #[inline]
    pub fn prefetch(&self, index: usize) {
        if let Some(p) = self.players.get(index) {
            // Rating a match reads the rating and writes the statistics. As the record is
            // laid out now, these three fields lie 48 bytes apart across them, so each
            // cache line they touch holds one, wherever the record starts (a multiple of
            // 16 bytes). Were the layout to change, only the hint would be less complete.
            prefetch_index::prefetch_index(std::slice::from_ref(&p.rating), 0);
            prefetch_index::prefetch_index(std::slice::from_ref(&p.stats.last_match), 0);
            prefetch_index::prefetch_index(std::slice::from_ref(&p.stats.games), 0);
            // And the id, which the match is lent.
            prefetch_index::prefetch_index(std::slice::from_ref(&p.name), 0);
            // And the stamp that finds a player given twice: with tens of thousands of
            // players, the stamps too lie outside the nearest caches.
            if index < self.stamps.len() {
                prefetch_index::prefetch_index(&self.stamps, index);
            }
            // And the player's state, for a system that keeps one: where it lies is read
            // now, while the match before is rated.
            if let Some(Some(state)) = self.states.get(index) {
                state.prefetch();
            }
        }
    }

    /// The second half of [`League::prefetch`], a little later: starts loading what
    /// player `index`'s state holds elsewhere (Elo-MMR's past performances), once
    /// [`League::prefetch`] has brought the state itself near. It changes nothing.
    #[inline]
    pub(crate) fn prefetch_spread(&self, index: usize) {
        if let Some(Some(state)) = self.states.get(index) {
            state.prefetch_spread();
        }
    }

    /// Rates a free-for-all of single players who each played the whole match: the
    /// match [`Match::with_places`] builds, rated by [`League::apply`]'s own way, for
    /// readers that keep their players' indices (no report, and the match's buffers
    /// reused from call to call). `players` are given best first, each by index when
    /// known ([`Slot::Known`]) or by id ([`Slot::New`], looked up and added if new), with
    /// 1-based `places` (tied players share the best place they cover: 1, 1, 3). On
    /// success every slot is [`Slot::Known`] (and slots of players already in the league
    /// become [`Slot::Known`] even when it fails).
    ///
    /// ```
    /// use podium::league::{League, Slot};
    /// let mut league = League::new(podium::system("sme", &podium::Settings::new()).unwrap());
    /// let mut game = [Slot::New("ann"), Slot::New("bo"), Slot::New("cy")];
    /// league.apply_ranked("g1", &mut game, &[1, 2, 2]).unwrap();
    /// assert_eq!(game[1], Slot::Known(1));
    /// let mut again = [Slot::Known(2), Slot::Known(0)];
    /// league.apply_ranked("g2", &mut again, &[1, 2]).unwrap();
    /// assert_eq!(league.get("cy").unwrap().stats.games, 2);
    /// assert!(league.apply_ranked("g3", &mut [Slot::Known(0), Slot::New("ann")], &[1, 2]).is_err());
    /// ```
    ///
    /// # Errors
    /// [`RateError::InvalidMatch`] for a player given twice, places that do not rank
    /// the players ([`crate::model::check_places`]) or an invalid id; or any other
    /// [`RateError`] of the system. Nothing changes when it fails.
    ///
    /// # Panics
    /// If a [`Slot::Known`] index is not a player of this league.
    pub fn apply_ranked(
        &mut self,
        id: &str,
        players: &mut [Slot<'_>],
        places: &[usize],
    ) -> Result<(), RateError> {
        if let Some(k) = self.resolve(players) {
            let player = match players[k] {
                Slot::Known(i) => self.players[i].name.clone(),
                Slot::New(name) => name.to_string(),
            };
            return Err(MatchError::DuplicatePlayer { player }.into());
        }
        let mut game = self
            .scratch
            .take()
            .unwrap_or_else(|| Box::new(Match::scratch()));
        // New players' ids are copied (and checked); known ones are lent by swapping
        // strings, and given back after the rating.
        let records = &mut self.players;
        let built = game.refill_ranked(id, players, places, &mut self.spare, |i, s| {
            std::mem::swap(s, &mut records[i].name);
        });
        let result = match built {
            Ok(()) => self.rate_ranked(&mut game, players),
            Err(e) => Err(e.into()),
        };
        self.scratch = Some(game);
        result
    }

    /// [`League::rate_and_commit`] of the match [`League::apply_ranked`] refilled for
    /// `players`, whose known players' ids the league lent it for the rating rather
    /// than copying them: each one's string moved into the match, and moves back
    /// (even when the system panics) before anything is stored.
    fn rate_ranked(&mut self, game: &mut Match, players: &mut [Slot<'_>]) -> Result<(), RateError> {
        let mut posterior = std::mem::take(&mut self.posterior);
        let rated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.rate_only(game, players, &mut posterior)
        }));
        self.swap_names(game, players);
        let result = match rated {
            Ok(rated) => rated
                .and_then(|()| self.commit_posterior(game, players, &mut posterior))
                .map(|_| ()),
            Err(panic) => std::panic::resume_unwind(panic),
        };
        self.posterior = posterior;
        result
    }

    /// Swaps the id of each known player of `players` with the string of their entry in
    /// `game`: gives back the ids lent to the match.
    fn swap_names(&mut self, game: &mut Match, players: &[Slot<'_>]) {
        for (k, slot) in players.iter().enumerate() {
            if let Slot::Known(i) = *slot {
                std::mem::swap(game.solo_player_mut(k), &mut self.players[i].name);
            }
        }
    }

    /// Turns every [`Slot::New`] of a known player into [`Slot::Known`]; returns the
    /// first player given twice, if any.
    fn resolve(&mut self, players: &mut [Slot<'_>]) -> Option<usize> {
        // Known players: each one's last match stamp; new ones: compared by id.
        self.stamp_now = self.stamp_now.wrapping_add(1);
        if self.stamp_now == 0 {
            self.stamps.clear();
            self.stamp_now = 1;
        }
        self.stamps.resize(self.players.len(), 0);
        // New players' ids: a list while few (a match's usual size), a set from then on,
        // so that a field of many thousands of newcomers is not compared pair by pair.
        let mut new_ids: Vec<&str> = Vec::new();
        let mut new_set: Option<std::collections::HashSet<&str, foldhash::fast::RandomState>> =
            None;
        for (k, slot) in players.iter_mut().enumerate() {
            if let Slot::New(name) = *slot {
                if let Some(&i) = self.index.get(name) {
                    *slot = Slot::Known(i);
                }
            }
            match *slot {
                Slot::Known(i) => {
                    assert!(i < self.players.len(), "no player with index {i}");
                    if self.stamps[i] == self.stamp_now {
                        return Some(k);
                    }
                    self.stamps[i] = self.stamp_now;
                }
                Slot::New(name) => {
                    if let Some(set) = &mut new_set {
                        if !set.insert(name) {
                            return Some(k);
                        }
                    } else if new_ids.contains(&name) {
                        return Some(k);
                    } else if new_ids.len() < 32 {
                        new_ids.push(name);
                    } else {
                        let mut set: std::collections::HashSet<_, _> = new_ids.drain(..).collect();
                        set.insert(name);
                        new_set = Some(set);
                    }
                }
            }
        }
        None
    }

    /// The pre-match rating of every player of `game`, new players seeded and ratings aged
    /// by the days since each player last played when the match has a time.
    #[must_use]
    pub fn ratings_before(&self, game: &Match) -> Vec<Rating> {
        let slots: Vec<Slot<'_>> = game.players().map(|(_, m)| self.slot(&m.player)).collect();
        let mut before = Vec::with_capacity(slots.len());
        self.fill_before(&slots, game.time(), &mut before);
        before
    }

    /// What the system would make of `game` now, without applying it: each player's
    /// change and next state, what it learned and each factor's change, as
    /// [`League::apply`] would store them.
    ///
    /// # Errors
    /// The system's [`RateError`] when it cannot rate the match.
    pub fn try_rate(&self, game: &Match) -> Result<Posterior, RateError> {
        let slots: Vec<Slot<'_>> = game.players().map(|(_, m)| self.slot(&m.player)).collect();
        let mut posterior = Posterior::default();
        self.posterior(
            game,
            &slots,
            &mut Vec::with_capacity(slots.len()),
            &mut Vec::new(),
            &mut posterior,
        )?;
        Ok(posterior)
    }

    /// The leaderboard in the default order ([`crate::Order::Established`]): players whose
    /// rating is not provisional first, then the provisional ones, each by rating then
    /// name, with statistics.
    #[must_use]
    pub fn standings(&self) -> Vec<Standing> {
        self.standings_in(crate::Order::default())
    }

    /// The leaderboard in `order`: [`crate::Order::Established`] puts provisional players
    /// after the others, [`crate::Order::Rating`] ranks everyone by rating alone; ties of rating by
    /// name. Positions count from 1 in that order.
    #[must_use]
    pub fn standings_in(&self, order: crate::Order) -> Vec<Standing> {
        // Sorted by keys kept beside the indices: most comparisons then read no record.
        // Names are unique, so no two keys are equal and an unstable sort is exact.
        let mut keys: Vec<(bool, f64, usize)> = self
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let rating = match self.learned {
                    Some(_) => self.current(i),
                    None => p.rating,
                };
                let apart =
                    order == crate::Order::Established && self.system.is_provisional(&rating);
                (apart, rating.value, i)
            })
            .collect();
        keys.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| b.1.total_cmp(&a.1))
                .then_with(|| self.players[a.2].name.cmp(&self.players[b.2].name))
        });
        keys.into_iter()
            .enumerate()
            .map(|(k, (_, _, i))| {
                let p = &self.players[i];
                let rating = if self.learned.is_some() {
                    self.current(i)
                } else {
                    p.rating
                };
                Standing {
                    position: k + 1,
                    player: p.name.clone(),
                    rating,
                    stats: p.stats.clone(),
                    provisional: self.system.is_provisional(&rating),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sme() -> League {
        League::new(crate::system("sme", &crate::Settings::new()).unwrap())
    }

    /// A σ given to a system without σ is dropped: the league shows none, before and
    /// after a match; one given to a system with σ is kept.
    #[test]
    fn a_sigma_given_to_a_system_without_one_is_dropped() {
        let mut league = sme();
        league
            .set_initial("bob", Rating::with_sigma(1500.0, 100.0))
            .unwrap();
        assert_eq!(league.get("bob").unwrap().rating.sigma, None);
        league
            .apply(&Match::ranked("g1", &["bob", "cy"]).unwrap())
            .unwrap();
        assert_eq!(league.get("bob").unwrap().rating.sigma, None);
        assert_eq!(league.standings()[0].rating.sigma, None);
        let mut league = League::new(crate::system("glicko", &crate::Settings::new()).unwrap());
        league
            .set_initial("bob", Rating::with_sigma(1500.0, 100.0))
            .unwrap();
        assert_eq!(league.get("bob").unwrap().rating.sigma, Some(100.0));
    }

    /// A newcomer named twice is found in a field of any size (ids are kept in a set
    /// beyond 32 newcomers), and nothing is rated.
    #[test]
    fn a_newcomer_given_twice_is_found_in_a_field_of_any_size() {
        for n in [3usize, 32, 33, 100] {
            let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
            let mut slots: Vec<Slot<'_>> = names.iter().map(|p| Slot::New(p)).collect();
            slots.push(Slot::New(&names[n / 2]));
            let places: Vec<usize> = (1..=n + 1).collect();
            let mut league = sme();
            let err = league.apply_ranked("g", &mut slots, &places).unwrap_err();
            assert_eq!(
                err,
                RateError::from(MatchError::DuplicatePlayer {
                    player: names[n / 2].clone()
                }),
                "{n}"
            );
            assert!(league.players().is_empty(), "{n}");
            slots.pop();
            league.apply_ranked("g", &mut slots, &places[..n]).unwrap();
            assert_eq!(league.players().len(), n);
        }
    }

    #[test]
    fn new_and_known_players_and_the_last_match_id() {
        let mut league = sme();
        let long = "a match id well over twenty-four bytes long";
        league
            .apply(&Match::ranked(long, &["ann", "bo"]).unwrap())
            .unwrap();
        let report = league
            .apply(&Match::ranked("g2", &["cy", "ann"]).unwrap())
            .unwrap();
        // cy is new (index 2), ann known (index 0); changes follow Match::players order.
        let idx: Vec<usize> = report.changes.iter().map(|(i, _)| *i).collect();
        assert_eq!(idx, [2, 0]);
        assert_eq!(report.sequence, 1);
        assert!((report.changes[0].1.before.value - 1500.0).abs() < 1e-9);
        let ann = league.get("ann").unwrap();
        assert_eq!(ann.stats.games, 2);
        assert_eq!(ann.stats.last_match.as_deref(), Some("g2"));
        assert_eq!(
            league.get("bo").unwrap().stats.last_match.as_deref(),
            Some(long)
        );
        league
            .apply(&Match::ranked(long.repeat(2), &["bo", "cy"]).unwrap())
            .unwrap();
        assert_eq!(
            league.get("bo").unwrap().stats.last_match.as_deref(),
            Some(long.repeat(2).as_str())
        );
        let names: Vec<&str> = league.players().iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["ann", "bo", "cy"]);
    }

    #[test]
    fn a_ranked_match_refused_before_its_rating_leaves_every_id_in_place() {
        let mut league = sme();
        league
            .apply_ranked("g1", &mut [Slot::New("ann"), Slot::New("bo")], &[1, 2])
            .unwrap();
        let before = league.standings();
        let bad_id = league.apply_ranked("g2", &mut [Slot::Known(1), Slot::New(" cy")], &[1, 2]);
        assert!(
            matches!(bad_id, Err(RateError::InvalidMatch { source: MatchError::InvalidPlayerId { ref player } }) if player == " cy"),
            "{bad_id:?}"
        );
        let bad_places = league.apply_ranked("g3", &mut [Slot::Known(1), Slot::Known(0)], &[1, 3]);
        assert!(matches!(
            bad_places,
            Err(RateError::InvalidMatch {
                source: MatchError::InvalidPlaces { .. }
            })
        ));
        assert_eq!(league.standings(), before);
        league
            .apply_ranked("g4", &mut [Slot::Known(1), Slot::New("cy")], &[1, 2])
            .unwrap();
        let names: Vec<&str> = league.players().iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["ann", "bo", "cy"]);
        assert_eq!(league.get("bo").unwrap().stats.games, 2);
    }

    #[test]
    fn a_rating_is_provisional_until_its_fifth_game() {
        for name in ["kalman-mmr", "sme", "glicko"] {
            let mut league = League::new(crate::system(name, &crate::Settings::new()).unwrap());
            for g in 0..crate::PROVISIONAL_GAMES {
                for s in league.standings() {
                    let few = s.stats.games < crate::PROVISIONAL_GAMES;
                    assert_eq!(s.provisional, few, "{name}: {} after {g}", s.player);
                }
                let m = if g % 2 == 0 {
                    ["ann", "bo"]
                } else {
                    ["bo", "ann"]
                };
                league
                    .apply(&Match::ranked(format!("g{g}"), &m).unwrap())
                    .unwrap();
                league
                    .apply(&Match::ranked(format!("h{g}"), &["cy", "ann"]).unwrap())
                    .unwrap();
            }
            // ann has ten games, bo five, cy five: none is provisional any more.
            let board = league.standings();
            assert_eq!(board.len(), 3);
            assert!(board.iter().all(|s| !s.provisional), "{name}");
        }
        // One game short of five is still provisional; mes marks its own period.
        let kalman = crate::system("kalman-mmr", &crate::Settings::new()).unwrap();
        assert!(kalman.is_provisional(&Rating::new(1500.0).games(4)));
        assert!(!kalman.is_provisional(&Rating::new(1500.0).games(5)));
        let never = crate::Settings::new().with("provisional_games", "0");
        let mes = crate::system("mes", &never).unwrap();
        assert!(!mes.is_provisional(&Rating::new(1500.0).games(0)));
    }

    #[test]
    fn a_match_the_system_refuses_changes_nothing() {
        let mut league = League::new(crate::system("elo", &crate::Settings::new()).unwrap());
        league
            .apply(&Match::ranked("g1", &["ann", "bo"]).unwrap())
            .unwrap();
        let before: Vec<PlayerRecord> = league.players().to_vec();
        assert!(league
            .apply(&Match::ranked("g2", &["ann", "bo", "cy"]).unwrap())
            .is_err());
        assert_eq!(league.players(), &before[..]);
        assert!(league.get("cy").is_none());
        assert_eq!(league.matches_rated(), 1);
    }
}

#[cfg(test)]
mod divergence_tests {
    use super::*;

    /// A system whose update overflows, as a diverging model does.
    #[derive(Debug)]
    struct Overflowing;

    impl RatingSystem for Overflowing {
        fn describe(&self) -> crate::system::Description {
            crate::system::Description {
                name: "overflowing",
                params: Vec::new(),
                capabilities: Capabilities::default(),
            }
        }
        fn initial_rating(&self) -> Rating {
            Rating::new(1.0)
        }
        fn rate_into(&self, prior: &Prior<'_>, out: &mut Posterior) -> Result<(), RateError> {
            *out = Posterior::players(
                prior
                    .game
                    .players()
                    .zip(prior.ratings)
                    .map(|((e, _), r)| {
                        PlayerChange::elo(
                            *r,
                            0.0,
                            1.0,
                            if e == 0 { 1.0 } else { f64::INFINITY },
                            1.0,
                        )
                    })
                    .collect(),
            );
            Ok(())
        }
        fn win_probability(&self, _: &Rating, _: &Rating, _: Option<&State>) -> f64 {
            0.5
        }
    }

    /// A system that refuses the rating of a match's second player, whom it knows by
    /// the match's name for them (`#2` when rated by places alone).
    #[derive(Debug)]
    struct RefusesSecond;

    impl RatingSystem for RefusesSecond {
        fn describe(&self) -> crate::system::Description {
            crate::system::Description {
                name: "refuses-second",
                params: Vec::new(),
                capabilities: Capabilities::default(),
            }
        }
        fn initial_rating(&self) -> Rating {
            Rating::new(1.0)
        }
        fn rate_into(&self, prior: &Prior<'_>, _: &mut Posterior) -> Result<(), RateError> {
            let (_, second) = prior.game.players().nth(1).unwrap();
            Err(RateError::NonPositiveRating {
                system: "refuses-second",
                player: second.player.clone(),
                rating: 0.0,
            })
        }
        fn win_probability(&self, _: &Rating, _: &Rating, _: Option<&State>) -> f64 {
            0.5
        }
    }

    /// A system that panics on its second match.
    #[derive(Debug, Default)]
    struct PanicsSecond(std::sync::atomic::AtomicU32);

    impl RatingSystem for PanicsSecond {
        fn describe(&self) -> crate::system::Description {
            crate::system::Description {
                name: "panics-second",
                params: Vec::new(),
                capabilities: Capabilities::default(),
            }
        }
        fn initial_rating(&self) -> Rating {
            Rating::new(1.0)
        }
        fn rate_into(&self, prior: &Prior<'_>, out: &mut Posterior) -> Result<(), RateError> {
            let seen = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            assert!(seen != 1, "a bug in the system");
            *out = Posterior::players(
                prior
                    .ratings
                    .iter()
                    .map(|r| PlayerChange::elo(*r, 0.5, 0.5, 1.0, 1.0))
                    .collect(),
            );
            Ok(())
        }
        fn win_probability(&self, _: &Rating, _: &Rating, _: Option<&State>) -> f64 {
            0.5
        }
    }

    #[test]
    fn a_system_that_panics_in_a_ranked_match_leaves_the_players_ids_in_place() {
        let mut league = League::new(Box::new(PanicsSecond::default()));
        league
            .apply_ranked("g1", &mut [Slot::New("ann"), Slot::New("bo")], &[1, 2])
            .unwrap();
        let before = league.standings();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            league.apply_ranked("g2", &mut [Slot::Known(1), Slot::Known(0)], &[1, 2])
        }));
        assert!(panicked.is_err());
        assert_eq!(league.standings(), before);
        assert_eq!(league.index_of("bo"), Some(1));
        league
            .apply_ranked("g3", &mut [Slot::Known(1), Slot::New("cy")], &[1, 2])
            .unwrap();
        let names: Vec<&str> = league.players().iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["ann", "bo", "cy"]);
    }

    #[test]
    fn a_diverged_or_refused_rating_names_the_player_not_its_position() {
        // The ranked shortcut rates players by position; its errors name them.
        let mut league = League::new(Box::new(RefusesSecond));
        let err = league
            .apply_ranked("g", &mut [Slot::New("ann"), Slot::New("bo")], &[1, 2])
            .unwrap_err();
        assert!(
            matches!(err, RateError::NonPositiveRating { ref player, .. } if player == "bo"),
            "{err}"
        );
        assert!(err.to_string().contains("\"bo\""), "{err}");
        let err = league
            .apply(&Match::ranked("g", &["ann", "bo"]).unwrap())
            .unwrap_err();
        assert!(
            matches!(err, RateError::NonPositiveRating { ref player, .. } if player == "bo"),
            "{err}"
        );
        assert!(league.players().is_empty());
    }

    #[test]
    fn a_diverging_update_is_refused_whole() {
        let mut league = League::new(Box::new(Overflowing));
        let err = league
            .apply(&Match::ranked("g", &["a", "b"]).unwrap())
            .unwrap_err();
        assert!(
            matches!(err, RateError::Diverged { ref player, .. } if player == "b"),
            "{err}"
        );
        assert!(
            league.players().is_empty(),
            "nothing of the match was applied"
        );
        assert_eq!(league.matches_rated(), 0);
    }
}

#[cfg(test)]
mod state_tests {
    use super::*;

    /// A system that remembers each player's finishes (a state) and rates a player by
    /// their mean finish; it refuses a match that holds a player called "bad".
    #[derive(Debug)]
    struct Memory;

    #[derive(Debug, Clone, PartialEq)]
    struct Finishes(Vec<usize>);

    /// What `Memory` learns from every match: how many it rated.
    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Count(u32);

    impl RatingSystem for Memory {
        fn describe(&self) -> crate::system::Description {
            crate::system::Description {
                name: "memory",
                params: Vec::new(),
                capabilities: Capabilities {
                    keeps_state: true,
                    has_uncertainty: true,
                    ..Capabilities::default()
                },
            }
        }
        fn initial_rating(&self) -> Rating {
            Rating::with_sigma(0.0, 1.0)
        }
        fn initial_learned(&self) -> Option<State> {
            Some(State::new(Count(0)))
        }
        fn initial_state(&self, rating: &Rating) -> Result<Option<State>, RateError> {
            match rating.sigma {
                Some(s) if s > 0.0 => Ok(Some(State::new(Finishes(Vec::new())))),
                _ => Err(RateError::RatingOutOfRange {
                    system: "memory",
                    player: "#1".into(),
                    what: "sigma",
                    value: rating.sigma.unwrap_or(f64::NAN),
                    allowed: "σ > 0".into(),
                }),
            }
        }
        fn rate_into(&self, prior: &Prior<'_>, out: &mut Posterior) -> Result<(), RateError> {
            let (game, before) = (prior.game, prior.ratings);
            let states = prior.all_states()?;
            let seen = prior
                .learned
                .and_then(|l| l.get::<Count>())
                .map_or(0, |c| c.0);
            // Filled as it goes: a player named "bad" fails the match half-way, with
            // `out` partly filled.
            out.clear();
            out.learned = Some(State::new(Count(seen + 1)));
            for (((e, m), b), st) in game.players().zip(before).zip(states.iter()) {
                if m.player == "bad" {
                    return Err(RateError::NonFiniteRating {
                        player: m.player.clone(),
                        rating: f64::NAN,
                    });
                }
                let mut f = st
                    .and_then(|s| s.get::<Finishes>())
                    .cloned()
                    .unwrap_or(Finishes(Vec::new()));
                f.0.push(game.place(e));
                let mean = f.0.iter().sum::<usize>() as f64 / f.0.len() as f64;
                out.changes.push(PlayerChange {
                    before: *b,
                    after: Rating {
                        value: -mean,
                        sigma: b.sigma,
                        games: b.games + 1,
                    },
                    expected: 0.0,
                    actual: 0.0,
                    k: None,
                    weight: 1.0,
                });
                out.states.push(Some(State::new(f)));
            }
            Ok(())
        }
        fn win_probability(&self, a: &Rating, b: &Rating, _: Option<&State>) -> f64 {
            if a.value > b.value {
                1.0
            } else {
                0.0
            }
        }
    }

    fn finishes(league: &League, name: &str) -> Vec<usize> {
        let i = league.index_of(name).unwrap();
        league
            .state(i)
            .unwrap()
            .get::<Finishes>()
            .unwrap()
            .0
            .clone()
    }

    fn count(league: &League) -> u32 {
        league.learned().unwrap().get::<Count>().unwrap().0
    }

    #[test]
    fn the_learned_value_is_kept_only_for_whole_matches() {
        let mut league = League::new(Box::new(Memory));
        assert_eq!(count(&league), 0);
        league
            .apply(&Match::ranked("g1", &["ann", "bo"]).unwrap())
            .unwrap();
        assert_eq!(count(&league), 1);
        let learned = league.learned().unwrap().clone();
        let ann = league.state(0).unwrap().clone();
        // A refused match changes neither the learned value nor any state.
        assert!(league
            .apply(&Match::ranked("g2", &["ann", "bad"]).unwrap())
            .is_err());
        assert!(State::same(league.learned().unwrap(), &learned));
        assert!(State::same(league.state(0).unwrap(), &ann));
        assert_eq!(league.players().len(), 2);
        // A copy carries it; the copy and the original then go their own ways.
        let mut copy = league.clone();
        copy.apply(&Match::ranked("g3", &["bo", "ann"]).unwrap())
            .unwrap();
        assert_eq!((count(&league), count(&copy)), (1, 2));
        // The ranked shortcut passes it too.
        league
            .apply_ranked("g4", &mut [Slot::New("cy"), Slot::Known(0)], &[1, 2])
            .unwrap();
        assert_eq!(count(&league), 2);
    }

    #[test]
    fn states_are_kept_per_player_and_only_for_whole_matches() {
        let mut league = League::new(Box::new(Memory));
        league
            .apply(&Match::ranked("g1", &["ann", "bo"]).unwrap())
            .unwrap();
        let report = league
            .apply(&Match::ranked("g2", &["bo", "ann", "cy"]).unwrap())
            .unwrap();
        assert_eq!(report.states.len(), 3);
        assert_eq!(finishes(&league, "ann"), [1, 2]);
        assert_eq!(finishes(&league, "bo"), [2, 1]);
        assert!((league.get("ann").unwrap().rating.value + 1.5).abs() < 1e-12);
        // A refused match changes no state and adds no player.
        let before = league.clone();
        assert!(league
            .apply(&Match::ranked("g3", &["ann", "bad"]).unwrap())
            .is_err());
        assert_eq!(finishes(&league, "ann"), [1, 2]);
        assert!(league.get("bad").is_none());
        assert_eq!(league.players(), before.players());
        // A copy keeps its own states.
        let copy = league.clone();
        league
            .apply(&Match::ranked("g4", &["cy", "ann"]).unwrap())
            .unwrap();
        assert_eq!(finishes(&copy, "ann"), [1, 2]);
        assert_eq!(finishes(&league, "ann"), [1, 2, 2]);
    }

    #[test]
    fn the_ranked_path_carries_states_as_the_general_one() {
        let mut ranked = League::new(Box::new(Memory));
        let mut general = League::new(Box::new(Memory));
        let mut g1 = [Slot::New("ann"), Slot::New("bo"), Slot::New("cy")];
        ranked.apply_ranked("g1", &mut g1, &[1, 2, 2]).unwrap();
        assert_eq!(g1, [Slot::Known(0), Slot::Known(1), Slot::Known(2)]);
        let mut g2 = [Slot::Known(2), Slot::New("di"), Slot::Known(0)];
        ranked.apply_ranked("g2", &mut g2, &[1, 2, 3]).unwrap();
        let m1 = Match::with_places("g1", &[("ann", 1), ("bo", 2), ("cy", 2)]).unwrap();
        general.apply(&m1).unwrap();
        general
            .apply(&Match::ranked("g2", &["cy", "di", "ann"]).unwrap())
            .unwrap();
        assert_eq!(ranked.standings(), general.standings());
        for name in ["ann", "bo", "cy", "di"] {
            assert_eq!(finishes(&ranked, name), finishes(&general, name));
        }
        assert!(ranked
            .apply_ranked("g3", &mut [Slot::Known(0), Slot::New("bad")], &[1, 2])
            .is_err());
        assert_eq!(finishes(&ranked, "ann"), [1, 3]);
    }

    #[test]
    fn an_initial_rating_starts_a_state_or_says_why_not() {
        let mut league = League::new(Box::new(Memory));
        league
            .set_initial("ann", Rating::with_sigma(5.0, 2.0))
            .unwrap();
        assert_eq!(finishes(&league, "ann"), Vec::<usize>::new());
        let err = league
            .set_initial("bo", Rating::with_sigma(5.0, 0.0))
            .unwrap_err();
        assert!(
            matches!(err, RateError::RatingOutOfRange { ref player, .. } if player == "bo"),
            "{err}"
        );
        assert!(league.get("bo").is_none());
    }

    /// A rating that play took out of the system's range is named by its player when the
    /// next match cannot be rated, not by position.
    #[test]
    fn a_rating_out_of_range_is_named_by_its_player() {
        let mut league = League::new(crate::system("kalman-mmr", &crate::Settings::new()).unwrap());
        league
            .set_initial("bo", Rating::with_sigma(1e9, 1e9))
            .unwrap();
        let game = |id: &str| Match::ranked(id, &["bo", "ann", "cy"]).unwrap();
        league.apply(&game("g1")).unwrap();
        let value = league.get("bo").unwrap().rating.value;
        assert!(value > 1e9, "{value}");
        let err = league.apply(&game("g2")).unwrap_err();
        assert_eq!(
            err,
            RateError::RatingOutOfRange {
                system: "kalman-mmr",
                player: "bo".into(),
                what: "rating",
                value,
                allowed: "−1e9 ≤ rating ≤ 1e9".into(),
            }
        );
    }

    /// A prediction of more entries than the limit is refused before its table of every
    /// pairwise order (the square of the entries) is allocated, whichever system predicts.
    #[test]
    fn a_prediction_beyond_the_entry_limit_is_refused_before_it_is_built() {
        let names: Vec<String> = (0..=crate::limits::MAX_PREDICT_ENTRIES)
            .map(|i| format!("p{i}"))
            .collect();
        let game = Match::ranked("big", &names).unwrap();
        for name in ["elo", "trueskill", "plackett-luce", "kalman-mmr"] {
            let system = crate::system(name, &crate::Settings::new()).unwrap();
            let prior_ratings = vec![system.initial_rating(); game.players().count()];
            let direct = system
                .predict(&Prior::new(&game, &prior_ratings))
                .unwrap_err();
            let league = League::new(system);
            let err = league.predict(&game).unwrap_err();
            assert_eq!(err, direct, "{name}");
            assert_eq!(
                err.to_string(),
                "entries: 5001 entries (the chances of every pairwise order are the square of that many numbers); at most 5000 are allowed",
                "{name}"
            );
        }
    }

    /// Matches at the ends of the time range (more than 2^63 seconds apart) age a rating
    /// by their whole distance, without wrapping around.
    #[test]
    fn matches_at_the_ends_of_time_age_ratings_without_wrapping() {
        let system = crate::system("trueskill", &crate::Settings::new()).unwrap();
        let initial = system.initial_rating().sigma;
        let mut league = League::new(system);
        let game = |id: &str, t: i64| {
            Match::builder(id)
                .time(t)
                .player("ann", crate::Finish::Rank(1.0))
                .player("bo", crate::Finish::Rank(2.0))
                .build()
                .unwrap()
        };
        league.apply(&game("old", -1_000_000_000_000)).unwrap();
        let after_old = league.get("ann").unwrap().rating;
        let report = league.apply(&game("new", i64::MAX)).unwrap();
        // Aged by about 3e11 years, trueskill's σ is back at a newcomer's before the match
        // (a wrapped, negative gap would not have aged it at all).
        let before_new = report.changes[0].1.before;
        assert!(after_old.sigma < initial);
        assert_eq!(before_new.sigma, initial);
    }
}
