//! A [`League`]: a pool of players rated by one system, match after match, with the
//! statistics every leaderboard shows. It is the driver that the command line, the
//! backtests and the server share; it does no I/O.

use std::collections::HashMap;

use compact_str::CompactString;

use crate::error::{MatchError, RateError};
use crate::model::Match;
use crate::rating::{PlayerChange, Rating};
use crate::system::RatingSystem;

/// Seconds in a day, for aging ratings by days of inactivity.
const DAY: f64 = 86_400.0;

/// What a leaderboard reports of a player besides the rating (seed 002's results table).
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
    /// Whether the system still treats the rating as provisional.
    pub provisional: bool,
}

/// The players of one match and their changes, in [`Match::players`] order.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchReport {
    /// Index of the match among those the league rated (0-based).
    pub sequence: u64,
    /// Each player's index in the league (see [`League::player`]) and change.
    pub changes: Vec<(usize, PlayerChange)>,
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
#[derive(Debug)]
pub struct League {
    system: Box<dyn RatingSystem>,
    /// Player id → index in `players`. Ids up to 24 bytes are stored inline in the table
    /// (no pointer to chase when comparing), hashed with foldhash (fast, seeded per run).
    index: HashMap<CompactString, usize, foldhash::fast::RandomState>,
    players: Vec<PlayerRecord>,
    rated: u64,
    /// Scratch for [`League::apply`]: each player's index, if known (kept to reuse its
    /// allocation from match to match).
    known: Vec<Option<usize>>,
    /// Scratch for [`League::apply_ranked`]: ratings before and changes.
    before: Vec<Rating>,
    changes: Vec<PlayerChange>,
    /// Per player, the last [`League::apply_ranked`] call that met them (finds repeats).
    stamps: Vec<u32>,
    stamp_now: u32,
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

impl League {
    /// An empty league rated by `system`.
    #[must_use]
    pub fn new(system: Box<dyn RatingSystem>) -> Self {
        League {
            system,
            index: HashMap::default(),
            players: Vec::new(),
            rated: 0,
            known: Vec::new(),
            before: Vec::new(),
            changes: Vec::new(),
            stamps: Vec::new(),
            stamp_now: 0,
        }
    }

    /// The rating system.
    #[must_use]
    pub fn system(&self) -> &dyn RatingSystem {
        &*self.system
    }

    /// Number of matches rated so far.
    #[must_use]
    pub fn matches_rated(&self) -> u64 {
        self.rated
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

    /// The player with id `name`, if known.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&PlayerRecord> {
        self.index.get(name).map(|&i| &self.players[i])
    }

    /// The rating a player has now, or would start with if new.
    #[must_use]
    pub fn rating_of(&self, name: &str) -> Rating {
        match self.get(name) {
            Some(p) => p.rating,
            None => self
                .system
                .new_player_rating(&mut self.players.iter().map(|p| &p.rating)),
        }
    }

    /// Sets a player's starting rating (e.g. migrated from another league); `rating.games`
    /// counts the games already played elsewhere.
    pub fn seed(&mut self, name: &str, rating: Rating) {
        match self.index.get(name) {
            Some(&i) => self.players[i].rating = rating,
            None => self.insert(name, rating),
        }
    }

    fn insert(&mut self, name: &str, rating: Rating) {
        self.index
            .insert(CompactString::from(name), self.players.len());
        self.players.push(PlayerRecord {
            name: name.to_string(),
            rating,
            stats: PlayerStats::default(),
        });
    }

    /// Rates a match and updates every participant. Nothing changes if it fails.
    ///
    /// # Errors
    /// The system's [`RateError`] when it cannot rate the match.
    pub fn apply(&mut self, game: &Match) -> Result<MatchReport, RateError> {
        // One lookup per player: the indices serve both the ratings before and the update.
        let mut known = std::mem::take(&mut self.known);
        known.clear();
        known.extend(
            game.players()
                .map(|(_, m)| self.index.get(m.player.as_str()).copied()),
        );
        let before = self.ratings_of(game, &known);
        let changes = match self
            .system
            .rate(game, &before)
            .and_then(|c| self.check_finite(game, c))
        {
            Ok(c) => c,
            Err(e) => {
                self.known = known;
                return Err(e);
            }
        };
        let tally = Tally::new(game.id(), game.time(), game.len(), game.winners());
        let mut out = Vec::with_capacity(changes.len());
        for (((entry, m), change), &known) in game.players().zip(changes).zip(&known) {
            let i = match known {
                Some(i) => i,
                None => {
                    // The rating is set from the change just below.
                    self.insert(&m.player, change.before);
                    self.players.len() - 1
                }
            };
            let p = &mut self.players[i];
            p.rating = change.after;
            p.stats.record(&tally, game.place(entry) == 1);
            out.push((i, change));
        }
        self.known = known;
        let report = MatchReport {
            sequence: self.rated,
            changes: out,
        };
        self.rated += 1;
        Ok(report)
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
            // And the stamp that finds a player given twice: with tens of thousands of
            // players, the stamps too lie outside the nearest caches.
            if index < self.stamps.len() {
                prefetch_index::prefetch_index(&self.stamps, index);
            }
        }
    }

    /// Rates a free-for-all of single players who each played the whole match, as
    /// [`League::apply`] rates the same [`Match`] without a time, but without building
    /// it and without a report: the fast path of readers that keep their players'
    /// indices. `players` are given best first, each by index when known ([`Slot::Known`])
    /// or by id ([`Slot::New`], looked up and added if new), with 1-based `places` (tied
    /// players share the best place they cover: 1, 1, 3). On success every slot is
    /// [`Slot::Known`] (and slots of players already in the league become
    /// [`Slot::Known`] even when it fails).
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
    /// [`RateError::InvalidMatch`] for a player given twice or, from the system's
    /// [`RatingSystem::rate_ranked`], places that do not rank the players; or any other
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
        // The places are checked by the system's `rate_ranked`, as its contract says:
        // once there, not twice on every match.
        if let Some(k) = self.resolve(players) {
            let player = match players[k] {
                Slot::Known(i) => self.players[i].name.clone(),
                Slot::New(name) => name.to_string(),
            };
            return Err(MatchError::DuplicatePlayer { player }.into());
        }
        let mut before = std::mem::take(&mut self.before);
        before.clear();
        let mut newcomer = None;
        for slot in players.iter() {
            before.push(match *slot {
                Slot::Known(i) => self.players[i].rating,
                Slot::New(_) => *newcomer.get_or_insert_with(|| {
                    self.system
                        .new_player_rating(&mut self.players.iter().map(|p| &p.rating))
                }),
            });
        }
        let mut changes = std::mem::take(&mut self.changes);
        changes.clear();
        let rated = self.system.rate_ranked(places, &before, &mut changes);
        self.before = before;
        let fail = match rated {
            Err(e) => Some(e),
            Ok(()) if changes.len() != players.len() => Some(RateError::RatingCountMismatch {
                expected: players.len(),
                found: changes.len(),
            }),
            // The usual case first, in two plain passes the compiler keeps tight: finite
            // ratings, no σ. Anything else is looked at player by player.
            Ok(())
                if changes.iter().all(|c| c.after.value.is_finite())
                    && changes.iter().all(|c| c.after.sigma.is_none()) =>
            {
                None
            }
            Ok(()) => {
                changes
                    .iter()
                    .position(|c| !is_finite(&c.after))
                    .map(|k| RateError::Diverged {
                        system: self.system.name(),
                        player: match players[k] {
                            Slot::Known(i) => self.players[i].name.clone(),
                            Slot::New(name) => name.to_string(),
                        },
                        rating: changes[k].after.value,
                        sigma: changes[k].after.sigma,
                    })
            }
        };
        if let Some(e) = fail {
            self.changes = changes;
            return Err(e);
        }
        let winners = places.iter().take_while(|&&p| p == 1).count();
        let tally = Tally::new(id, None, players.len(), winners);
        for ((slot, c), &place) in players.iter_mut().zip(&changes).zip(places) {
            let i = match *slot {
                Slot::Known(i) => i,
                Slot::New(name) => {
                    self.insert(name, c.before);
                    *slot = Slot::Known(self.players.len() - 1);
                    self.players.len() - 1
                }
            };
            let p = &mut self.players[i];
            p.rating = c.after;
            p.stats.record(&tally, place == 1);
        }
        self.changes = changes;
        self.rated += 1;
        Ok(())
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
        let mut new_ids: Vec<&str> = Vec::new();
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
                    if new_ids.contains(&name) {
                        return Some(k);
                    }
                    new_ids.push(name);
                }
            }
        }
        None
    }

    /// Refuses an update that would store a rating or σ that is not a finite number.
    fn check_finite(
        &self,
        game: &Match,
        changes: Vec<PlayerChange>,
    ) -> Result<Vec<PlayerChange>, RateError> {
        for ((_, m), c) in game.players().zip(&changes) {
            if !is_finite(&c.after) {
                return Err(RateError::Diverged {
                    system: self.system.name(),
                    player: m.player.clone(),
                    rating: c.after.value,
                    sigma: c.after.sigma,
                });
            }
        }
        Ok(changes)
    }

    /// The pre-match rating of every player of `game`, new players seeded and ratings aged
    /// by the days since each player last played when the match has a time.
    #[must_use]
    pub fn ratings_before(&self, game: &Match) -> Vec<Rating> {
        let known: Vec<Option<usize>> = game
            .players()
            .map(|(_, m)| self.index.get(m.player.as_str()).copied())
            .collect();
        self.ratings_of(game, &known)
    }

    fn ratings_of(&self, game: &Match, known: &[Option<usize>]) -> Vec<Rating> {
        known
            .iter()
            .map(|known| match *known {
                Some(i) => {
                    let p = &self.players[i];
                    match (game.time(), p.stats.last_time) {
                        (Some(now), Some(last)) if now > last && self.system.has_uncertainty() => {
                            self.system.age(p.rating, (now - last) as f64 / DAY)
                        }
                        _ => p.rating,
                    }
                }
                None => self
                    .system
                    .new_player_rating(&mut self.players.iter().map(|p| &p.rating)),
            })
            .collect()
    }

    /// The leaderboard: players best first (by rating, then by name), with statistics.
    #[must_use]
    pub fn standings(&self) -> Vec<Standing> {
        // Sorted by keys kept beside the indices: most comparisons then read no record.
        // Names are unique, so no two keys are equal and an unstable sort is exact.
        let mut order: Vec<(f64, usize)> = self
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| (p.rating.value, i))
            .collect();
        order.sort_unstable_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| self.players[a.1].name.cmp(&self.players[b.1].name))
        });
        order
            .into_iter()
            .map(|(_, i)| &self.players[i])
            .enumerate()
            .map(|(i, p)| Standing {
                position: i + 1,
                player: p.name.clone(),
                rating: p.rating,
                stats: p.stats.clone(),
                provisional: self.system.is_provisional(&p.rating),
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
    use crate::params::Param;

    /// A system whose update overflows, as a diverging model does.
    #[derive(Debug)]
    struct Overflowing;

    impl RatingSystem for Overflowing {
        fn name(&self) -> &'static str {
            "overflowing"
        }
        fn params(&self) -> Vec<Param> {
            Vec::new()
        }
        fn initial_rating(&self) -> Rating {
            Rating::new(1.0)
        }
        fn rate(&self, game: &Match, before: &[Rating]) -> Result<Vec<PlayerChange>, RateError> {
            Ok(game
                .players()
                .zip(before)
                .map(|((e, _), r)| {
                    PlayerChange::elo(*r, 0.0, 1.0, if e == 0 { 1.0 } else { f64::INFINITY }, 1.0)
                })
                .collect())
        }
        fn win_probability(&self, _: &Rating, _: &Rating) -> f64 {
            0.5
        }
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
