//! Many free-for-alls of single players at once ([`League::apply_batch`]): the matches a
//! reader holds, rated as [`League::apply_ranked`] rates them one after the other, on
//! every core where the system allows it.
//!
//! Matches that share no player do not depend on each other: each one's players come in
//! with the ratings and states of their own last match. Rated at once, every thread takes
//! the next two matches in file order and waits, if need be, for the matches before them
//! that their players played; everything is stored in file order at the end. Each match
//! goes through the system's rating call with the very prior it would have had in turn
//! (two that share no player together, [`RatingSystem::rate_two_into`], which gives each
//! its own result to the bit), so the results are the same to the last bit. Always rated
//! in turn: a system that learns a league-wide value from every match
//! ([`RatingSystem::initial_learned`]), and one whose newcomers start from the ratings of
//! the league ([`RatingSystem::new_player_rating`] reading its pool).
//!
//! [`RatingSystem::initial_learned`]: crate::RatingSystem::initial_learned
//! [`RatingSystem::rate_two_into`]: crate::RatingSystem::rate_two_into
//! [`RatingSystem::new_player_rating`]: crate::RatingSystem::new_player_rating

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::{League, Outcome, Slot};
use crate::error::{MatchError, RateError};
use crate::model::{Entry, Match};
use crate::rating::Rating;
use crate::state::State;
use crate::system::{Posterior, Prior};

/// How many matches ahead [`League::apply_batch`] starts loading players' records (see
/// [`League::prefetch`]).
const LOOK_AHEAD: usize = 8;

/// How many matches ahead it starts loading what their states hold elsewhere (see
/// [`League::prefetch_spread`]): after the records, before the match.
const SPREAD_AHEAD: usize = 4;

/// A player of a [`RankedBatch`]: by league index, or by id (its bytes in the batch's
/// text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    Known(usize),
    New(u32, u32),
}

/// One match of a [`RankedBatch`]: its id in the batch's text, its players and places.
#[derive(Debug, Clone)]
struct HeldMatch {
    id: Range<u32>,
    players: Range<u32>,
    places: Range<u32>,
}

/// Free-for-alls of single players, in rating order, for [`League::apply_batch`]: each
/// one as [`League::apply_ranked`] takes it (players best first, by index or by id, with
/// 1-based places). Ids are copied in; a batch is cleared and refilled without
/// allocating once it has grown.
///
/// ```
/// use podium::league::{League, RankedBatch, Slot};
/// let mut league = League::new(podium::system("trueskill", &podium::Settings::new()).unwrap());
/// let mut batch = RankedBatch::default();
/// batch.push("g1", [Slot::New("ann"), Slot::New("bo")], &[1, 2]);
/// batch.push("g2", [Slot::New("cy"), Slot::New("di")], &[1, 1]);
/// batch.push("g3", [Slot::New("bo"), Slot::New("cy")], &[1, 2]);
/// league.apply_batch(&batch).unwrap();
/// assert_eq!(league.matches_rated(), 3);
/// assert_eq!(league.get("bo").unwrap().stats.games, 2);
/// ```
#[derive(Debug, Clone, Default)]
pub struct RankedBatch {
    text: String,
    matches: Vec<HeldMatch>,
    players: Vec<Held>,
    places: Vec<usize>,
}

impl RankedBatch {
    /// Adds a match at the end.
    ///
    /// # Panics
    /// If the batch's ids come to more than 4 GiB.
    pub fn push<'a>(
        &mut self,
        id: &str,
        players: impl IntoIterator<Item = Slot<'a>>,
        places: &[usize],
    ) {
        let id = self.add_text(id);
        let start = self.players.len() as u32;
        for slot in players {
            let held = match slot {
                Slot::Known(i) => Held::Known(i),
                Slot::New(name) => {
                    let r = self.add_text(name);
                    Held::New(r.start, r.end)
                }
            };
            self.players.push(held);
        }
        let first = self.places.len() as u32;
        self.places.extend_from_slice(places);
        self.matches.push(HeldMatch {
            id,
            players: start..self.players.len() as u32,
            places: first..self.places.len() as u32,
        });
    }

    fn add_text(&mut self, s: &str) -> Range<u32> {
        let start = self.text.len();
        self.text.push_str(s);
        let end = u32::try_from(self.text.len()).expect("a batch's ids fit in 4 GiB");
        start as u32..end
    }

    /// The number of matches.
    #[must_use]
    pub fn len(&self) -> usize {
        self.matches.len()
    }

    /// Whether it holds no match.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.matches.is_empty()
    }

    /// Empties it, keeping its allocations.
    pub fn clear(&mut self) {
        self.text.clear();
        self.matches.clear();
        self.players.clear();
        self.places.clear();
    }

    /// Match `j`'s id.
    #[must_use]
    pub fn id(&self, j: usize) -> &str {
        let r = &self.matches[j].id;
        &self.text[r.start as usize..r.end as usize]
    }

    /// Match `j`'s players, best first, as they were pushed.
    pub fn players(&self, j: usize) -> impl ExactSizeIterator<Item = Slot<'_>> + '_ {
        let r = &self.matches[j].players;
        self.players[r.start as usize..r.end as usize]
            .iter()
            .map(|held| self.slot(*held))
    }

    /// Match `j`'s places, as they were pushed.
    #[must_use]
    pub fn places(&self, j: usize) -> &[usize] {
        let r = &self.matches[j].places;
        &self.places[r.start as usize..r.end as usize]
    }

    fn slot(&self, held: Held) -> Slot<'_> {
        match held {
            Held::Known(i) => Slot::Known(i),
            Held::New(s, e) => Slot::New(&self.text[s as usize..e as usize]),
        }
    }
}

/// An iterator that notes whether it was read: a system's newcomer rating that reads it
/// depends on the league's ratings.
struct Probe(bool);

impl Iterator for Probe {
    type Item = &'static Rating;

    fn next(&mut self) -> Option<&'static Rating> {
        self.0 = true;
        None
    }
}

/// What a league keeps from batch to batch: per player, the batch that last met them
/// and their last place in it; and the buffers a batch is planned and rated in.
#[derive(Debug, Clone, Default)]
pub(crate) struct Marks {
    generation: u32,
    last: Vec<(u32, u32)>,
    spare: Spare,
}

/// The buffers of the last batch rated at once, empty, for the next: a batch's results
/// and plan are some 200 kB, which the allocator would otherwise take from the system
/// and give back every batch (a page fault, and a page cleared, each time).
#[derive(Debug, Default)]
struct Spare {
    plan: Plan,
    done: Vec<OnceLock<Rated>>,
}

impl Clone for Spare {
    /// A copy of a league needs no buffers of its own before its first batch.
    fn clone(&self) -> Spare {
        Spare::default()
    }
}

/// A batch being rated at once: its matches, their players resolved, what each match
/// rated so far came to, and where a newcomer starts.
#[derive(Clone, Copy)]
struct Round<'s> {
    batch: &'s RankedBatch,
    plan: &'s Plan,
    done: &'s [OnceLock<Rated>],
    newcomer: Rating,
}

/// What became of a match of a batch rated at once.
#[derive(Debug)]
enum Rated {
    Done(Posterior),
    Refused(RateError),
    /// Not rated: a match before it was refused.
    Skipped,
}

/// The buffers one thread rates a batch's matches in.
struct Scratch<'a> {
    game: Box<Match>,
    spare: Vec<Entry>,
    slots: Vec<Slot<'a>>,
    before: Vec<Rating>,
    states: Vec<Option<&'a State>>,
}

impl<'a> Scratch<'a> {
    /// The prior of the match held.
    fn prior(&self) -> Prior<'_> {
        Prior {
            game: &self.game,
            ratings: &self.before,
            states: &self.states,
            learned: None,
            factors: &[],
        }
    }

    fn new() -> Self {
        Scratch {
            game: Box::new(Match::scratch()),
            spare: Vec::new(),
            slots: Vec::new(),
            before: Vec::new(),
            states: Vec::new(),
        }
    }
}

/// A batch's players resolved before its matches are rated at once: per held player,
/// their index (a newcomer's is the one storing will give them), the held player of the
/// same player's match before in the batch (+1; 0 for none) and the match they are in.
#[derive(Debug, Default)]
struct Plan {
    who: Vec<usize>,
    earlier: Vec<u32>,
    owner: Vec<u32>,
    /// The matches resolved: all, or those before the first refused.
    matches: usize,
    /// The first match refused before any rating (a player given twice), if any.
    refused: Option<(usize, RateError)>,
}

impl League {
    /// Rates the matches of `batch` in order, each as [`League::apply_ranked`] rates it
    /// (the same numbers to the last bit), on every core where that holds (see
    /// [`crate::league::batch`]). It stops at the first match refused: the matches before
    /// it are stored, it and those after it are not.
    ///
    /// # Errors
    /// The index in the batch of the first match refused, with an error of
    /// [`League::apply_ranked`].
    ///
    /// # Panics
    /// If a [`Slot::Known`] index is not a player of this league.
    pub fn apply_batch(&mut self, batch: &RankedBatch) -> Result<(), (usize, RateError)> {
        if batch.len() < 2 || !self.rates_at_once() {
            return self.apply_batch_in_turn(batch);
        }
        self.apply_batch_at_once(batch)
    }

    /// Whether [`League::apply_batch`] rates a batch's matches at the same time: with
    /// more than one thread in the pool, for a system that learns nothing league-wide and
    /// whose newcomers start where they start whoever is in the league.
    #[must_use]
    pub fn rates_at_once(&self) -> bool {
        if self.learned.is_some() || rayon::current_num_threads() < 2 {
            return false;
        }
        let mut probe = Probe(false);
        let _ = self.system.new_player_rating(&mut probe);
        !probe.0
    }

    /// [`League::apply_batch`] one match after the other.
    fn apply_batch_in_turn(&mut self, batch: &RankedBatch) -> Result<(), (usize, RateError)> {
        let mut slots: Vec<Slot<'_>> = Vec::new();
        // The players of match `j` the league knows (none past the batch's end).
        let known = |j: usize| {
            (j < batch.len())
                .then(|| batch.players(j))
                .into_iter()
                .flatten()
                .filter_map(|slot| match slot {
                    Slot::Known(i) => Some(i),
                    Slot::New(_) => None,
                })
        };
        for j in 0..batch.len() {
            known(j + LOOK_AHEAD).for_each(|i| self.prefetch(i));
            known(j + SPREAD_AHEAD).for_each(|i| self.prefetch_spread(i));
            slots.clear();
            slots.extend(batch.players(j));
            self.apply_ranked(batch.id(j), &mut slots, batch.places(j))
                .map_err(|e| (j, e))?;
        }
        Ok(())
    }

    /// Resolves every held player of `batch`: who they are, and where they played last
    /// in the batch.
    fn plan(&mut self, batch: &RankedBatch) -> Plan {
        let known = self.players.len();
        // In the last batch's buffers.
        let mut plan = std::mem::take(&mut self.marks.spare.plan);
        plan.who.clear();
        plan.earlier.clear();
        plan.owner.clear();
        plan.matches = batch.len();
        plan.refused = None;
        let mut newcomers: HashMap<&str, usize, foldhash::fast::RandomState> = HashMap::default();
        // Per player, the batch that last met them and their last held place there (+1).
        self.marks.generation = self.marks.generation.wrapping_add(1);
        if self.marks.generation == 0 {
            self.marks.last.clear();
            self.marks.generation = 1;
        }
        let generation = self.marks.generation;
        let last = &mut self.marks.last;
        last.resize(known, (0, 0));
        for (j, m) in batch.matches.iter().enumerate() {
            // The marks of players a few matches on start coming from memory: with tens of
            // thousands of players they lie outside the nearest caches.
            if let Some(ahead) = batch.matches.get(j + LOOK_AHEAD) {
                for held in &batch.players[ahead.players.start as usize..ahead.players.end as usize]
                {
                    if let Held::Known(i) = *held {
                        prefetch_index::prefetch_index(&*last, i);
                    }
                }
            }
            let range = m.players.start as usize..m.players.end as usize;
            for s in range.clone() {
                let p = match batch.players[s] {
                    Held::Known(i) => {
                        assert!(i < known, "no player with index {i}");
                        i
                    }
                    Held::New(a, b) => {
                        let name = &batch.text[a as usize..b as usize];
                        match self.index.get(name) {
                            Some(&i) => i,
                            None => {
                                let next = known + newcomers.len();
                                let p = *newcomers.entry(name).or_insert(next);
                                if p >= last.len() {
                                    last.resize(p + 1, (0, 0));
                                }
                                p
                            }
                        }
                    }
                };
                let seen = match last[p] {
                    (g, s) if g == generation => s,
                    _ => 0,
                };
                if seen as usize > range.start {
                    let player = match batch.players[s] {
                        Held::Known(i) => self.players[i].name.clone(),
                        Held::New(a, b) => batch.text[a as usize..b as usize].to_string(),
                    };
                    plan.refused = Some((j, MatchError::DuplicatePlayer { player }.into()));
                    plan.who.truncate(range.start);
                    plan.earlier.truncate(range.start);
                    plan.owner.truncate(range.start);
                    plan.matches = j;
                    break;
                }
                plan.who.push(p);
                plan.earlier.push(seen);
                plan.owner.push(j as u32);
                last[p] = (generation, s as u32 + 1);
            }
            if plan.refused.is_some() {
                break;
            }
        }
        // Newcomers are not players yet.
        last.truncate(known);
        plan
    }

    /// [`League::apply_batch`] on every thread.
    fn apply_batch_at_once(&mut self, batch: &RankedBatch) -> Result<(), (usize, RateError)> {
        let mut plan = self.plan(batch);
        let spare = std::mem::take(&mut self.marks.spare.done);
        let (first_bad, mut refused, mut done) = self.rate_all(batch, &plan, spare);
        if refused.is_none() {
            refused = plan.refused.take();
        }
        // Stored in file order: newcomers take their indices in order of first appearance.
        let mut slots: Vec<Slot<'_>> = Vec::new();
        for (j, posterior) in done.iter_mut().enumerate().take(first_bad) {
            let Some(Rated::Done(mut posterior)) = posterior.take() else {
                unreachable!("every match before the first refused is rated")
            };
            if let Some(ahead) = batch.matches[..first_bad].get(j + LOOK_AHEAD) {
                for &p in &plan.who[ahead.players.start as usize..ahead.players.end as usize] {
                    self.prefetch(p);
                }
            }
            let range =
                batch.matches[j].players.start as usize..batch.matches[j].players.end as usize;
            slots.clear();
            let mut newcomers = 0;
            for s in range {
                let p = plan.who[s];
                slots.push(if p < self.players.len() {
                    Slot::Known(p)
                } else {
                    // Storing adds this match's newcomers in order, after those before.
                    debug_assert_eq!(p, self.players.len() + newcomers);
                    newcomers += 1;
                    batch.slot(batch.players[s])
                });
            }
            let places = batch.places(j);
            let winners = places.iter().take_while(|&&p| p == 1).count();
            let outcome = Outcome {
                id: batch.id(j),
                time: None,
                entries: places.len(),
                winners,
            };
            let won = (0..places.len()).map(|k| k < winners);
            // Checked as it was rated: stored, its states moved rather than shared.
            let stateful = self.caps.keeps_state && !posterior.states.is_empty();
            let states = &mut posterior.states;
            self.store(
                &outcome,
                &mut slots,
                won,
                &posterior.changes,
                stateful,
                |k| states[k].take(),
                drop,
            );
        }
        // The buffers for the next batch, emptied (what was rated past a match refused
        // is dropped here).
        done.clear();
        self.marks.spare = Spare { plan, done };
        match refused {
            Some(r) => Err(r),
            None => Ok(()),
        }
    }

    /// Rates every match of `batch` that `plan` resolved, on every thread: each thread
    /// takes the next two matches in file order and waits, if need be, for the matches
    /// before them that their players played; two that share no player are rated
    /// together. Returns the first match refused (or the number of matches), why, and
    /// what each match came to.
    fn rate_all(
        &self,
        batch: &RankedBatch,
        plan: &Plan,
        mut done: Vec<OnceLock<Rated>>,
    ) -> (usize, Option<(usize, RateError)>, Vec<OnceLock<Rated>>) {
        let n = plan.matches;
        // Empty cells, in the buffer of the last batch.
        done.clear();
        done.resize_with(n, OnceLock::new);
        let next = AtomicUsize::new(0);
        let first_bad = AtomicUsize::new(n);
        let newcomer = self.newcomer();
        // Every match taken is settled (rated, refused or skipped), so that no one waits
        // for it in vain.
        let settle = |j: usize, rated: Option<Result<Posterior, RateError>>| {
            let rated = match rated {
                Some(Ok(p)) => Rated::Done(p),
                Some(Err(e)) => {
                    first_bad.fetch_min(j, Ordering::Relaxed);
                    Rated::Refused(e)
                }
                None => Rated::Skipped,
            };
            let _ = done[j].set(rated);
        };
        // Whether match `j` is to be rated, once the matches it waits for are settled.
        let due =
            |j: usize| j <= first_bad.load(Ordering::Relaxed) && self.ready(batch, plan, &done, j);
        let round = Round {
            batch,
            plan,
            done: &done,
            newcomer,
        };
        let work = || {
            let mut sc = [Scratch::new(), Scratch::new()];
            loop {
                // Two matches at a time: the system may rate them together.
                let j = next.fetch_add(2, Ordering::Relaxed);
                if j >= n {
                    break;
                }
                // The records of players a few matches on start coming from memory.
                for ahead in batch.matches[..n].iter().skip(j + LOOK_AHEAD).take(2) {
                    for &p in &plan.who[ahead.players.start as usize..ahead.players.end as usize] {
                        self.prefetch(p);
                    }
                }
                // And what their states hold elsewhere, but only of those whose state is
                // the league's (not that of a match before in the batch).
                for ahead in batch.matches[..n].iter().skip(j + SPREAD_AHEAD).take(2) {
                    for s in ahead.players.start as usize..ahead.players.end as usize {
                        if plan.earlier[s] == 0 {
                            self.prefetch_spread(plan.who[s]);
                        }
                    }
                }
                // The second is asked whether it is due before the first is settled only
                // when it does not wait for the first. A "no" stays no, and a match rated
                // past the first refused is never stored, so the answer holds after.
                let first = due(j);
                let two = j + 1 < n && !self.waits_for(batch, plan, j + 1, j);
                let second = (first && two).then(|| due(j + 1));
                if second == Some(true) {
                    let [a, b] = self.rate_two_held(&round, j, &mut sc);
                    settle(j, Some(a));
                    settle(j + 1, Some(b));
                    continue;
                }
                settle(j, first.then(|| self.rate_held(&round, j, &mut sc[0])));
                if j + 1 < n {
                    let due_second = second.unwrap_or_else(|| due(j + 1));
                    settle(
                        j + 1,
                        due_second.then(|| self.rate_held(&round, j + 1, &mut sc[0])),
                    );
                }
            }
        };
        let threads = rayon::current_num_threads();
        rayon::in_place_scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|_| work());
            }
            work();
        });
        let first = first_bad.into_inner();
        let refused = (first < n).then(|| match done[first].take() {
            Some(Rated::Refused(e)) => (first, e),
            _ => unreachable!("the first match refused holds its error"),
        });
        (first, refused, done)
    }

    /// Waits until every match before `j` that its players played is settled; whether
    /// they all were rated.
    fn ready(&self, batch: &RankedBatch, plan: &Plan, done: &[OnceLock<Rated>], j: usize) -> bool {
        let m = &batch.matches[j];
        let mut ok = true;
        for s in m.players.start as usize..m.players.end as usize {
            if let Some(e) = plan.earlier[s].checked_sub(1) {
                let cell = &done[plan.owner[e as usize] as usize];
                let mut spins = 0u32;
                let rated = loop {
                    if let Some(r) = cell.get() {
                        break r;
                    }
                    spins += 1;
                    if spins < 64 {
                        std::hint::spin_loop();
                    } else {
                        std::thread::yield_now();
                    }
                };
                ok &= matches!(rated, Rated::Done(_));
            }
        }
        ok
    }

    /// Whether match `j` of `batch` has a player of match `i`'s, whose record it waits for.
    fn waits_for(&self, batch: &RankedBatch, plan: &Plan, j: usize, i: usize) -> bool {
        let m = &batch.matches[j];
        (m.players.start as usize..m.players.end as usize).any(|s| {
            plan.earlier[s]
                .checked_sub(1)
                .is_some_and(|e| plan.owner[e as usize] as usize == i)
        })
    }

    /// Rates match `j` of `batch` from the league and the matches before it in `done`,
    /// as [`League::apply_ranked`] would rate it in turn.
    fn rate_held<'s>(
        &'s self,
        round: &Round<'s>,
        j: usize,
        sc: &mut Scratch<'s>,
    ) -> Result<Posterior, RateError> {
        self.hold(round, j, sc)?;
        self.rate_one(sc)
    }

    /// [`League::rate_held`] for matches `j` and `j + 1`, which share no player: rated
    /// together ([`crate::RatingSystem::rate_two_into`]), each to its own result.
    fn rate_two_held<'s>(
        &'s self,
        round: &Round<'s>,
        j: usize,
        sc: &mut [Scratch<'s>; 2],
    ) -> [Result<Posterior, RateError>; 2] {
        let [first, second] = sc;
        let [ha, hb] = [self.hold(round, j, first), self.hold(round, j + 1, second)];
        if ha.is_err() || hb.is_err() {
            return [
                ha.and_then(|()| self.rate_one(first)),
                hb.and_then(|()| self.rate_one(second)),
            ];
        }
        let mut outs = [Posterior::default(), Posterior::default()];
        let [a, b] = &mut outs;
        let [ra, rb] = self
            .system
            .rate_two_into([&first.prior(), &second.prior()], [a, b]);
        let [a, b] = outs;
        [
            ra.and_then(|()| self.checked(first, a)),
            rb.and_then(|()| self.checked(second, b)),
        ]
    }

    /// Rates the match held in `sc` and checks what the system gave, as a league checks
    /// a system's result.
    fn rate_one(&self, sc: &Scratch<'_>) -> Result<Posterior, RateError> {
        let mut out = Posterior::default();
        self.system.rate_into(&sc.prior(), &mut out)?;
        self.checked(sc, out)
    }

    /// Fills `sc` with match `j` of `batch` and its players' ratings and states before
    /// it: from the league, or from the matches before it in `done`.
    fn hold<'s>(
        &'s self,
        round: &Round<'s>,
        j: usize,
        sc: &mut Scratch<'s>,
    ) -> Result<(), RateError> {
        let Round {
            batch,
            plan,
            done,
            newcomer,
        } = *round;
        let known = self.players.len();
        let range = batch.matches[j].players.start as usize..batch.matches[j].players.end as usize;
        sc.slots.clear();
        for s in range.clone() {
            let p = plan.who[s];
            sc.slots.push(if p < known {
                Slot::Known(p)
            } else {
                batch.slot(batch.players[s])
            });
        }
        let records = &self.players;
        sc.game.refill_ranked(
            batch.id(j),
            &sc.slots,
            batch.places(j),
            &mut sc.spare,
            |i, s| s.clone_from(&records[i].name),
        )?;
        sc.before.clear();
        sc.states.clear();
        for s in range {
            let rating = match plan.earlier[s] {
                0 if plan.who[s] < known => self.players[plan.who[s]].rating,
                0 => newcomer,
                e => {
                    let (post, k) = held_result(batch, plan, done, e as usize - 1);
                    post.changes[k].after
                }
            };
            sc.before.push(rating);
            if self.caps.keeps_state {
                sc.states.push(self.state_before(batch, plan, done, s));
            }
        }
        Ok(())
    }

    /// `out`, the posterior of the match held in `sc`, checked as a league checks a
    /// system's result.
    fn checked(&self, sc: &Scratch<'_>, out: Posterior) -> Result<Posterior, RateError> {
        if !out.factors.is_empty() {
            return Err(RateError::FactorCountMismatch {
                expected: 0,
                found: out.factors.len(),
            });
        }
        self.check_changes(&sc.slots, &out.changes, &out.states)?;
        Ok(out)
    }

    /// The state of held player `s` before their match: that of their last match in the
    /// batch, or before it when that match kept none, or the league's.
    fn state_before<'s>(
        &'s self,
        batch: &RankedBatch,
        plan: &Plan,
        done: &'s [OnceLock<Rated>],
        mut s: usize,
    ) -> Option<&'s State> {
        loop {
            match plan.earlier[s] {
                0 => {
                    return (plan.who[s] < self.players.len())
                        .then(|| self.state(plan.who[s]))
                        .flatten()
                }
                e => {
                    s = e as usize - 1;
                    let (post, k) = held_result(batch, plan, done, s);
                    if !post.states.is_empty() {
                        return post.states[k].as_ref();
                    }
                }
            }
        }
    }
}

/// The posterior of the match of held player `s`, rated already, and the player's place
/// in it.
fn held_result<'d>(
    batch: &RankedBatch,
    plan: &Plan,
    done: &'d [OnceLock<Rated>],
    s: usize,
) -> (&'d Posterior, usize) {
    let j = plan.owner[s] as usize;
    let Some(Rated::Done(post)) = done[j].get() else {
        unreachable!("a match is rated after those it waits for")
    };
    (post, s - batch.matches[j].players.start as usize)
}
