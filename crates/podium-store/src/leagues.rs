//! The leagues of a store with their ratings in memory: what the server serves.
//!
//! Each league stands on its own: it has its own lock for changes, its own queue of
//! submissions (committed together), and its ratings behind a read-write lock that
//! readers share. A league's slow work — rating a match of thousands of players, rating
//! again from a checkpoint after a void or a correction, rating a whole ledger with a new
//! system, loading at start — is done apart from the state readers see, which is then
//! replaced in one short step; so readers of the league keep being served from its last
//! consistent state, and other leagues are not held up at all.
//!
//! The ledger is the truth: a change is rated first (so a change the system refuses is
//! refused and stores nothing), then committed, then shown. A league's ratings know how
//! far its ledger goes ([`Head`]); before every change, and when told that the store has
//! moved ([`Leagues::refresh`]), they catch up with what others committed.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use podium::{RatingSystem, Settings};
use sha2::{Digest, Sha256};

use crate::body::{LedgerMatch, LedgerResult};
use crate::derived::{to_match, Base, Checkpoints, Derived, Saveable, Tail};
use crate::error::{quote, StoreError};
use crate::token::{hash_token, hex, new_token};

use crate::types::{
    Appended, BoardJson, BoardRow, ChangeAction, ChangeRow, FactorChange, FactorRow, Head,
    LeagueId, LeagueInfo, LeagueRow, LedgerEntry, NewLeague, ParamRow, PlayerHistory, Position,
    SnapshotRow, Submission, SubmitStatus,
};
use crate::{Store, Writer};

mod replay;
mod seasons;
pub use replay::replay_observed;
pub use seasons::{FIRST_SEASON, MAX_SEASON_NAME};

/// How the leagues are kept.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Where ratings are kept to rate again from.
    pub checkpoints: Checkpoints,
    /// A match with at least this many players is rated on a copy of the league, so
    /// that the league's readers are not held up while it is rated.
    pub heavy_players: usize,
    /// The most submissions of a league committed in one transaction.
    pub max_batch: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            checkpoints: Checkpoints::default(),
            heavy_players: 256,
            max_batch: 512,
        }
    }
}

/// The longest match id accepted: the library's, as for player ids.
const MAX_KEY_LEN: usize = podium::model::MAX_ID_LEN;

/// What a submitter is told once its submissions are committed (or refused), one result
/// per submission, in order.
pub type Reply = Box<dyn FnOnce(Vec<Result<Appended, StoreError>>) + Send>;

struct Job {
    subs: Vec<Submission>,
    reply: Reply,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// Whether someone is committing this league's queue.
    draining: bool,
}

/// A league's ratings as served.
struct Loaded {
    row: LeagueRow,
    derived: Derived,
    /// Matches rated in place from this position on whose commit failed with the
    /// connection lost, so may or may not be in the ledger: until they are read again
    /// from it ([`Leagues::catch_up`]) the league's readers are answered
    /// [`StoreError::Unavailable`] rather than shown them.
    unsure: Option<Position>,
}

enum Phase {
    /// Being loaded from the ledger.
    Loading(LeagueRow),
    /// Restored from its saved ratings ([`Leagues::restore`]): its board is served while
    /// its whole ledger is rated again ([`Leagues::load`]) for the histories of its
    /// players and matches; until then those, and writes, answer [`StoreError::NotReady`].
    Restored(Box<Loaded>),
    Ready(Box<Loaded>),
    /// Could not be loaded (the message says why).
    Failed(LeagueRow, String),
}

pub(crate) struct Slot {
    id: LeagueId,
    /// Held by whoever changes the league in this process, for the whole change.
    writer: Mutex<()>,
    queue: Mutex<Queue>,
    state: RwLock<Phase>,
    /// Whether a catch-up runs in the background ([`IDLE`], [`RUNNING`], or [`AGAIN`]:
    /// running, and told of more writes since it started).
    following: AtomicU8,
    /// Whether a loader has taken the league on (a league found in the store later, made
    /// by another server, waits for [`Leagues::follow`] to load it).
    claimed: AtomicBool,
    /// The saved ratings the store holds, as far as known here: how many matches they
    /// cover and the league's last logged change when they were taken.
    saved: Mutex<Option<(usize, i64)>>,
    /// Held while the league's ratings are being saved.
    saving: Mutex<()>,
}

const IDLE: u8 = 0;
const RUNNING: u8 = 1;
const AGAIN: u8 = 2;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn read<T>(m: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    m.read().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write<T>(m: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    m.write().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The leagues of a store, with their ratings.
pub struct Leagues {
    store: Arc<dyn Store>,
    options: Options,
    slots: RwLock<BTreeMap<LeagueId, Arc<Slot>>>,
    /// Token hash → league, as far as known.
    tokens: RwLock<HashMap<String, LeagueId>>,
}

impl std::fmt::Debug for Leagues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Leagues")
            .field("store", &self.store.describe())
            .field("leagues", &read(&self.slots).len())
            .finish()
    }
}

fn build_system(name: &str, config: &Settings) -> Result<Arc<dyn RatingSystem>, StoreError> {
    Ok(Arc::from(podium::system(name, config)?))
}

/// The longest league name, in characters (not bytes: `é` is one).
const MAX_LEAGUE_NAME: usize = 200;

/// A league's name as given, spaces around it left out: 1 to [`MAX_LEAGUE_NAME`]
/// characters without control characters.
fn check_name(name: &str) -> Result<String, StoreError> {
    match plain_name(name, MAX_LEAGUE_NAME) {
        Some(plain) => Ok(plain.to_string()),
        None => Err(StoreError::InvalidLeague {
            message: format!(
                "name {} is not valid, expected 1 to {MAX_LEAGUE_NAME} characters without control characters",
                quote(name)
            ),
        }),
    }
}

/// A season's name as given, spaces around it left out: 1 to [`MAX_SEASON_NAME`]
/// characters without control characters, as a league's.
fn check_season_name(name: &str) -> Result<&str, StoreError> {
    plain_name(name, MAX_SEASON_NAME).ok_or_else(|| StoreError::InvalidSeason {
        message: format!(
            "name {} is not valid, expected 1 to {MAX_SEASON_NAME} characters without control characters",
            quote(name)
        ),
    })
}

/// `name` without the spaces around it, if that is 1 to `max` characters (not bytes)
/// without control characters (`char::is_control`: C0, DEL, C1), which a page or a
/// log would show as nothing or mangle, as player ids and match ids are.
fn plain_name(name: &str, max: usize) -> Option<&str> {
    let name = name.trim();
    let fits = !name.is_empty() && name.chars().count() <= max;
    (fits && !name.chars().any(char::is_control)).then_some(name)
}

/// What makes two league names the same name: the name around spaces and letter case
/// aside (`" Thursday "` and `"thursday"` are one name). The store refuses a league
/// whose name has the key of another's ([`StoreError::NameTaken`]).
#[must_use]
pub fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

fn check_key(key: &str) -> Result<(), StoreError> {
    if !podium::model::check_id(key) {
        return Err(StoreError::InvalidMatch {
            message: format!(
                "match id {} must be 1 to {MAX_KEY_LEN} bytes, without surrounding spaces or control characters",
                quote(key)
            ),
        });
    }
    Ok(())
}

/// A submission validated under its id: the ledger entry it would be (at `seq`) and the
/// match.
fn prepare(
    sub: &Submission,
    key: &str,
    seq: i64,
) -> Result<(LedgerEntry, podium::Match), StoreError> {
    let given = sub.to_json(key);
    let game = given.to_match()?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    given.check_played_by(game.time(), now)?;
    let json = LedgerMatch::from_match(&game);
    let hash = content_hash(&json);
    Ok((
        LedgerEntry {
            seq,
            key: key.to_string(),
            time: game.time(),
            json,
            hash,
            voided: false,
        },
        game,
    ))
}

/// SHA-256 of a match's normalised content, its id left out and its results sorted, so
/// that the same results listed in another order hash the same. Factors are content: the
/// same results with other factors hash differently (a match without factors hashes as
/// it did before factors existed).
fn content_hash(json: &LedgerMatch) -> String {
    let mut anon = json.clone();
    anon.id.clear();
    anon.results.sort_by(|a, b| {
        let key = |r: &LedgerResult| {
            (
                r.rank.or(r.score.map(|s| -s)).unwrap_or(0.0),
                r.team.clone(),
                r.player.clone(),
            )
        };
        let (ka, kb) = (key(a), key(b));
        ka.0.total_cmp(&kb.0)
            .then_with(|| (ka.1, ka.2).cmp(&(kb.1, kb.2)))
    });
    let text = serde_json::to_string(&anon).expect("a match serialises");
    hex(&Sha256::digest(text.as_bytes()))
}

fn info(loaded: &Loaded) -> LeagueInfo {
    let sys = loaded.derived.league().system();
    LeagueInfo {
        id: loaded.row.id,
        name: loaded.row.name.clone(),
        system: loaded.row.system.clone(),
        config: loaded.row.config.clone(),
        params: sys
            .describe()
            .params
            .iter()
            .map(ParamRow::from_param)
            .collect(),
        has_sigma: sys.capabilities().has_uncertainty,
        performances: sys.capabilities().expects_performances,
        learned: loaded
            .derived
            .league()
            .learned()
            .map(|l| sys.describe_learned(l))
            .unwrap_or_default(),
        matches: loaded.derived.matches(),
        players: loaded.derived.league().players().len(),
        ready: true,
    }
}

fn info_unready(row: &LeagueRow) -> LeagueInfo {
    let sys = podium::system(&row.system, &row.config).ok();
    LeagueInfo {
        id: row.id,
        name: row.name.clone(),
        system: row.system.clone(),
        config: row.config.clone(),
        params: sys
            .as_ref()
            .map(|s| {
                s.describe()
                    .params
                    .iter()
                    .map(ParamRow::from_param)
                    .collect()
            })
            .unwrap_or_default(),
        has_sigma: sys
            .as_ref()
            .is_some_and(|s| s.capabilities().has_uncertainty),
        performances: sys
            .as_ref()
            .is_some_and(|s| s.capabilities().expects_performances),
        learned: Vec::new(),
        matches: 0,
        players: 0,
        ready: false,
    }
}

/// One submission of a batch on its way to the ledger.
enum Step {
    Done(Result<Appended, StoreError>),
    /// A new match to rate and commit.
    New(LedgerEntry, podium::Match),
    /// The same id as submission `k` of the batch, with this content hash.
    Again(usize, String),
}

impl Leagues {
    /// The leagues of `store`, not loaded yet: each answers [`StoreError::NotReady`] until
    /// [`Leagues::load_all`] (or [`Leagues::load`]) has rated its ledger.
    ///
    /// # Errors
    /// The store cannot list its leagues.
    pub fn open(store: Arc<dyn Store>, options: Options) -> Result<Arc<Self>, StoreError> {
        let rows = store.league_rows()?;
        let leagues = Leagues {
            store,
            options,
            slots: RwLock::new(BTreeMap::new()),
            tokens: RwLock::new(HashMap::new()),
        };
        for row in rows {
            leagues.add_slot(Phase::Loading(row));
        }
        Ok(Arc::new(leagues))
    }

    /// [`Leagues::open`], then every league loaded before returning.
    ///
    /// # Errors
    /// The store cannot list its leagues, or a league cannot be loaded.
    pub fn open_loaded(store: Arc<dyn Store>, options: Options) -> Result<Arc<Self>, StoreError> {
        let leagues = Self::open(store, options)?;
        for id in leagues.ids() {
            leagues.load(id)?;
        }
        Ok(leagues)
    }

    /// The store.
    #[must_use]
    pub fn store(&self) -> &dyn Store {
        &*self.store
    }

    fn add_slot(&self, phase: Phase) -> Arc<Slot> {
        let row = match &phase {
            Phase::Loading(row) | Phase::Failed(row, _) => row,
            Phase::Ready(l) | Phase::Restored(l) => &l.row,
        };
        let id = row.id;
        write(&self.tokens).insert(row.token_hash.clone(), id);
        let slot = Arc::new(Slot {
            id,
            writer: Mutex::new(()),
            queue: Mutex::new(Queue::default()),
            state: RwLock::new(phase),
            following: AtomicU8::new(IDLE),
            claimed: AtomicBool::new(false),
            saved: Mutex::new(None),
            saving: Mutex::new(()),
        });
        write(&self.slots).entry(id).or_insert(slot).clone()
    }

    /// Every league's id.
    #[must_use]
    pub fn ids(&self) -> Vec<LeagueId> {
        read(&self.slots).keys().copied().collect()
    }

    /// The leagues not loaded whole yet (restored ones too), smallest ledger first.
    #[must_use]
    pub fn unloaded(&self) -> Vec<LeagueId> {
        let slots: Vec<Arc<Slot>> = read(&self.slots).values().cloned().collect();
        let mut waiting: Vec<(i64, LeagueId)> = slots
            .iter()
            .filter_map(|s| match &*read(&s.state) {
                Phase::Loading(row) => Some((row.head.last_seq, s.id)),
                Phase::Restored(l) => Some((l.row.head.last_seq, s.id)),
                _ => None,
            })
            .collect();
        waiting.sort_unstable();
        waiting.into_iter().map(|(_, id)| id).collect()
    }

    /// Loads every league not loaded yet, on `threads` threads, smallest ledger first:
    /// first each league that has saved ratings is restored from them
    /// ([`Leagues::restore`]), its board served at once; then every league's whole
    /// ledger is rated, and each is served whole as soon as it is. A league that cannot
    /// be loaded is logged and answers with the reason.
    pub fn load_all(&self, threads: usize) {
        let ids = self.claim_unloaded();
        self.load_claimed(&ids, threads);
    }

    /// Takes on every league not loaded yet and not taken on already (by
    /// [`Leagues::follow`]), smallest ledger first, for [`Leagues::load_claimed`]: the
    /// follower leaves them alone from then on. A server claims its leagues before it
    /// starts following the store, so that a league with saved ratings is restored from
    /// them, not rated whole by the follower first.
    #[must_use]
    pub fn claim_unloaded(&self) -> Vec<LeagueId> {
        // The ids first: `unloaded` takes the slots' lock itself, and a second read of
        // it while a writer waits would deadlock.
        let ids = self.unloaded();
        let slots = read(&self.slots);
        ids.into_iter()
            .filter(|id| {
                slots
                    .get(id)
                    .is_some_and(|slot| !slot.claimed.swap(true, Ordering::Relaxed))
            })
            .collect()
    }

    /// [`Leagues::load_all`] for the leagues of `ids` ([`Leagues::claim_unloaded`]).
    pub fn load_claimed(&self, ids: &[LeagueId], threads: usize) {
        let run = |work: &(dyn Fn(LeagueId) + Sync)| {
            let queue = Mutex::new(VecDeque::from(ids.to_vec()));
            let span = tracing::Span::current();
            std::thread::scope(|s| {
                for _ in 0..threads.max(1) {
                    s.spawn(|| loop {
                        let _entered = span.enter();
                        let Some(id) = lock(&queue).pop_front() else {
                            return;
                        };
                        work(id);
                    });
                }
            });
        };
        run(&|id| {
            if let Err(e) = self.restore(id) {
                tracing::warn!(league = id, error = %e, "league could not be restored from its saved ratings");
            }
        });
        run(&|id| {
            if let Err(e) = self.load(id) {
                tracing::error!(league = id, error = %e, "league could not be loaded");
            }
        });
    }

    /// Restores a league not loaded yet from the ratings the store saved of it, if they
    /// still cover its ledger: the saved league, then the matches entered after it
    /// rated, and its board served at once; the rest of its state comes with
    /// [`Leagues::load`]. Returns whether it was restored. Saved ratings that are stale
    /// (a change to the ledger they cover, another system or config) or cannot be read
    /// are logged and left for the whole ledger to be rated.
    ///
    /// # Errors
    /// The league is unknown, or the store fails.
    pub fn restore(&self, id: LeagueId) -> Result<bool, StoreError> {
        let slot = self.slot(id)?;
        let _w = lock(&slot.writer);
        if !matches!(&*read(&slot.state), Phase::Loading(_)) {
            return Ok(false);
        }
        let started = Instant::now();
        match self.restored_state(id) {
            Ok(Some((row, derived, saved))) => {
                tracing::info!(
                    league = id,
                    matches = derived.matches(),
                    after_saved = derived.matches() - derived.restored(),
                    seconds = started.elapsed().as_secs_f64(),
                    "league restored from its saved ratings; rating its whole ledger for the histories"
                );
                *lock(&slot.saved) = Some(saved);
                *write(&slot.state) = Phase::Restored(Box::new(Loaded {
                    row,
                    derived,
                    unsure: None,
                }));
                Ok(true)
            }
            Ok(None) => Ok(false),
            Err(e) if e.is_transient() => Err(e),
            Err(e) => {
                tracing::warn!(league = id, error = %e, "saved ratings cannot be used; rating the whole ledger");
                Ok(false)
            }
        }
    }

    /// The league restored from its saved ratings and the matches after them, the row as
    /// of the ledger read, and what the saved ratings cover; `None` when there are none
    /// or they are stale.
    #[allow(clippy::type_complexity)]
    fn restored_state(
        &self,
        id: LeagueId,
    ) -> Result<Option<(LeagueRow, Derived, (usize, i64))>, StoreError> {
        let Some(snap) = self.store.snapshot(id)? else {
            return Ok(None);
        };
        let row = self
            .store
            .league_row(id)?
            .ok_or(StoreError::LeagueNotFound { league: id })?;
        let corrupt = |what: String| StoreError::Corrupt {
            message: format!("league {id}: saved ratings: {what}"),
        };
        let (Some(last), Ok(count), Ok(season), true) = (
            snap.last,
            usize::try_from(snap.count),
            usize::try_from(snap.season),
            (1..=snap.head.last_seq).contains(&snap.count),
        ) else {
            return Err(corrupt(format!(
                "count {} must be from 1 to the ledger's last position then ({}) and season {} ≥ 0, with a last match",
                snap.count, snap.head.last_seq, snap.season
            )));
        };
        let stale = |why: &str| {
            tracing::info!(
                league = id,
                why,
                "saved ratings are stale; rating the whole ledger"
            );
            Ok(None)
        };
        if snap.system != row.system || snap.config != row.config {
            return stale("the league's system or config changed since they were saved");
        }
        if snap.head.last_change != row.head.last_change {
            return stale("a change was logged since they were saved (a void, a correction, a season, a reconfiguration)");
        }
        if snap.head.last_seq > row.head.last_seq {
            return stale("they go beyond the ledger");
        }
        if self.store.entered_before(id, snap.head.last_seq, last)? {
            return stale("a match entered since they were saved goes before their last");
        }
        let saved =
            crate::packed::unpack(&snap.packed).map_err(|e| corrupt(format!("packed: {e}")))?;
        let sys = build_system(&row.system, &row.config)?;
        let league =
            podium::League::restore_with(sys, saved).map_err(|e| corrupt(format!("data: {e}")))?;
        let seasons = Arc::new(self.store.seasons(id)?);
        if season > seasons.len() {
            return Err(corrupt(format!(
                "season {season}, but the league has {} season starts",
                seasons.len()
            )));
        }
        // Saved after crossing season starts beyond their last match (a league's current
        // state crosses every season started): a match entered since that goes before
        // the last start crossed belongs to the season before it, which they closed.
        let crossed = season.checked_sub(1).map(|i| seasons[i].start);
        let before_crossed = |store: &dyn Store| -> Result<bool, StoreError> {
            Ok(match crossed {
                Some(start) if start > last => {
                    store.entered_before(id, snap.head.last_seq, start)?
                }
                _ => false,
            })
        };
        if before_crossed(&*self.store)? {
            return stale(
                "a match entered since they were saved goes before a season start they crossed",
            );
        }
        let base = Base::restored(league, count, Some(last), seasons.clone(), season);
        let mut tail = Tail::new(base, Checkpoints { every: 0, keep: 0 });
        let read = self.store.scan(id, Some(last), &mut |e| tail.push(&e))?;
        // Nothing changed while the ledger was read: the same change log and seasons, and
        // no match entered before the saved ones' last.
        if read.system != row.system
            || read.config != row.config
            || read.head.last_change != snap.head.last_change
            || *self.store.seasons(id)? != *seasons
            || self.store.entered_before(id, snap.head.last_seq, last)?
            || before_crossed(&*self.store)?
        {
            return stale("the ledger changed while it was read");
        }
        let derived = Derived::from_restored(tail, self.options.checkpoints)?;
        Ok(Some((read, derived, (count, snap.head.last_change))))
    }

    /// Saves a league's ratings in the store, for a restart to start from
    /// ([`Leagues::restore`]): its newest checkpoint when newer than what the store
    /// holds (or when a change since made that stale), or with `at_end` its current
    /// state. Waits for a save of the league under way. Returns whether it saved;
    /// does nothing for a league not loaded whole.
    fn save_due(&self, slot: &Slot, at_end: bool) -> Result<bool, StoreError> {
        let _saving = lock(&slot.saving);
        match due(slot, at_end) {
            Some(job) => job.write(&*self.store, slot).map(|()| true),
            None => Ok(false),
        }
    }

    /// [`Leagues::save_due`], its failure logged.
    fn save_quietly(&self, slot: &Slot, at_end: bool) {
        if let Err(e) = self.save_due(slot, at_end) {
            tracing::warn!(league = slot.id, error = %e, "could not save the league's ratings");
        }
    }

    /// Saves a league's newest checkpoint, if due, on a thread of its own, so that the
    /// league's next submissions do not wait for it (serialising and writing the ratings
    /// of a large league takes a second). Nothing to do costs a look at the state.
    fn save_behind(&self, slot: &Arc<Slot>) {
        if due(slot, false).is_none() {
            return;
        }
        let id = slot.id;
        let (slot, store, span) = (slot.clone(), self.store.clone(), tracing::Span::current());
        let spawned = std::thread::Builder::new()
            .name(format!("podium-save-{id}"))
            .spawn(move || {
                let _entered = span.enter();
                // Another save under way: this one is done after it, if still due.
                let _saving = lock(&slot.saving);
                if let Some(job) = due(&slot, false) {
                    if let Err(e) = job.write(&*store, &slot) {
                        tracing::warn!(league = slot.id, error = %e, "could not save the league's ratings");
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(league = id, error = %e, "cannot start a thread to save the league's ratings");
        }
    }

    /// Saves the current ratings of every league loaded whole (at shutdown, so that a
    /// restart rates nothing again), unless the store holds them already.
    pub fn save_all(&self) {
        let slots: Vec<Arc<Slot>> = read(&self.slots).values().cloned().collect();
        for slot in slots {
            self.save_quietly(&slot, true);
        }
    }

    /// Saves a league's current ratings in the store now ([`Leagues::save_all`] for
    /// one league): returns whether it did (not for a league not loaded whole, or one
    /// whose current ratings the store holds already).
    ///
    /// # Errors
    /// The league is unknown, or the store fails.
    pub fn save(&self, id: LeagueId) -> Result<bool, StoreError> {
        let slot = self.slot(id)?;
        self.save_due(&slot, true)
    }

    /// Loads a league: rates its whole ledger, then serves it (and saves its newest
    /// checkpoint in the store, when newer than what the store holds). A league restored
    /// from saved ratings is served meanwhile; once rated whole, its league is checked
    /// to equal the restored one bit for bit (a difference is logged).
    ///
    /// # Errors
    /// The league is unknown, or its ledger cannot be read or rated (the league then
    /// answers with that reason until it is loaded again).
    pub fn load(&self, id: LeagueId) -> Result<(), StoreError> {
        let slot = self.slot(id)?;
        let _w = lock(&slot.writer);
        let row = match &*read(&slot.state) {
            Phase::Ready(_) => return Ok(()),
            Phase::Restored(l) => l.row.clone(),
            Phase::Loading(row) | Phase::Failed(row, _) => row.clone(),
        };
        let started = std::time::Instant::now();
        match self.rebuild(id, None) {
            Ok((row, derived)) => {
                tracing::info!(
                    league = id,
                    matches = derived.matches(),
                    seconds = started.elapsed().as_secs_f64(),
                    "league loaded"
                );
                self.check_restored(&slot, &row, &derived);
                if lock(&slot.saved).is_none() {
                    // What the store holds already, so as not to save an older state.
                    if let Ok(Some(kept)) = self.store.snapshot(id) {
                        if kept.head.last_change == row.head.last_change {
                            *lock(&slot.saved) = usize::try_from(kept.count)
                                .ok()
                                .map(|count| (count, kept.head.last_change));
                        }
                    }
                }
                *write(&slot.state) = Phase::Ready(Box::new(Loaded {
                    row,
                    derived,
                    unsure: None,
                }));
                drop(_w);
                self.save_quietly(&slot, false);
                Ok(())
            }
            Err(e) if e.is_transient() => {
                // Not the ledger's fault: the league stays loading (503) and is tried
                // again by [`Leagues::follow`] within a second.
                slot.claimed.store(false, Ordering::Relaxed);
                Err(e)
            }
            Err(e) => {
                *write(&slot.state) = Phase::Failed(row, e.to_string());
                Err(e)
            }
        }
    }

    /// Checks that a league restored from saved ratings equals, bit for bit, the league
    /// of its whole ledger rated again as of the same head (a difference is a fault:
    /// logged, and a panic in debug builds).
    fn check_restored(&self, slot: &Slot, row: &LeagueRow, whole: &Derived) {
        let restored = match &*read(&slot.state) {
            Phase::Restored(l) if l.row.head == row.head => l.derived.league().save(),
            _ => return,
        };
        let text = |s: Result<podium::SavedLeague, podium::SaveError>| {
            s.ok().and_then(|s| serde_json::to_string(&s).ok())
        };
        let (restored, whole) = (text(restored), text(whole.league().save()));
        let same = restored.is_some() && restored == whole;
        if !same {
            tracing::error!(
                league = slot.id,
                "the league restored from its saved ratings differs from its whole ledger rated again"
            );
        }
        debug_assert!(
            same,
            "league {}: restored ratings differ from a full replay",
            slot.id
        );
    }

    /// Rates the whole ledger of a league from its store, with its stored system, or
    /// with `system` when given. Returns the league's row as of the ledger read.
    fn rebuild(
        &self,
        id: LeagueId,
        system: Option<(&str, &Settings)>,
    ) -> Result<(LeagueRow, Derived), StoreError> {
        loop {
            let row = self
                .store
                .league_row(id)?
                .ok_or(StoreError::LeagueNotFound { league: id })?;
            let (name, config) = system.unwrap_or((&row.system, &row.config));
            let sys = build_system(name, config)?;
            let seasons = Arc::new(self.store.seasons(id)?);
            let base = Base::empty(sys).with_seasons(seasons.clone());
            let mut tail = Tail::new(base, self.options.checkpoints)
                .expecting(usize::try_from(row.head.last_seq).unwrap_or(0));
            let read = self.store.scan(id, None, &mut |e| tail.push(&e))?;
            // The system read with the row must be the one the ledger was read under, and
            // the seasons the ones read before.
            if (system.is_some() || (read.system == row.system && read.config == row.config))
                && *self.store.seasons(id)? == *seasons
            {
                return Ok((read, Derived::from_tail(tail, self.options.checkpoints)?));
            }
        }
    }

    pub(crate) fn slot(&self, id: LeagueId) -> Result<Arc<Slot>, StoreError> {
        if let Some(s) = read(&self.slots).get(&id) {
            return Ok(s.clone());
        }
        // Made by another server on the same store?
        match self.store.league_row(id)? {
            Some(row) => Ok(self.add_slot(Phase::Loading(row))),
            None => Err(StoreError::LeagueNotFound { league: id }),
        }
    }

    /// Runs `f` on a league's ratings (shared with other readers). While a league
    /// restored from saved ratings is rated whole ([`Leagues::restore`]), `f` gets the
    /// restored state: its league and board are whole, the histories of its matches are
    /// not ([`Derived::restored`]).
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::NotReady`] while it loads, or why it
    /// could not be loaded.
    pub fn read<T>(
        &self,
        id: LeagueId,
        f: impl FnOnce(&Derived) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.read_in(id, false, f)
    }

    /// [`Leagues::read`] of a league loaded whole ([`StoreError::NotReady`] while it is
    /// restored only).
    pub(crate) fn read_whole<T>(
        &self,
        id: LeagueId,
        f: impl FnOnce(&Derived) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.read_in(id, true, f)
    }

    fn read_in<T>(
        &self,
        id: LeagueId,
        whole: bool,
        f: impl FnOnce(&Derived) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let slot = self.slot(id)?;
        let state = read(&slot.state);
        let loaded = if whole {
            ready(&state, id)?
        } else {
            served(&state, id)?
        };
        if loaded.unsure.is_some() {
            return Err(StoreError::Unavailable {
                reason: format!(
                    "league {id}'s last matches may not have been committed and are read again from the ledger once it answers"
                ),
            });
        }
        f(&loaded.derived)
    }

    /// Creates a league; returns it with its admin token (shown once, stored hashed).
    ///
    /// # Errors
    /// [`StoreError::InvalidLeague`] for an empty name, [`StoreError::Config`] for an
    /// unknown system or a bad parameter, or the store's failure.
    pub fn create_league(&self, new: &NewLeague) -> Result<(LeagueInfo, String), StoreError> {
        let name = check_name(&new.name)?;
        let sys = build_system(&new.system, &new.config)?;
        let token = new_token();
        let row = self
            .store
            .create_league(&name, sys.name(), &new.config, &hash_token(&token))?;
        let info = self.made_here(row)?;
        Ok((info, token))
    }

    /// Serves a league just made in the store by this server, empty: at once, even when
    /// the follower found its row first and added it as loading (after a load of the
    /// follower's under way, which leaves it ready).
    pub(crate) fn made_here(&self, row: LeagueRow) -> Result<LeagueInfo, StoreError> {
        let empty = || -> Result<Loaded, StoreError> {
            Ok(Loaded {
                unsure: None,
                row: row.clone(),
                derived: Derived::new(
                    podium::system(&row.system, &row.config)?,
                    self.options.checkpoints,
                ),
            })
        };
        let loaded = empty()?;
        let info = info(&loaded);
        let slot = self.add_slot(Phase::Ready(Box::new(loaded)));
        if !matches!(&*read(&slot.state), Phase::Ready(_)) {
            let _w = lock(&slot.writer);
            let mut state = write(&slot.state);
            if !matches!(&*state, Phase::Ready(_)) {
                *state = Phase::Ready(Box::new(empty()?));
            }
        }
        Ok(info)
    }

    /// Every league, oldest first.
    #[must_use]
    pub fn leagues(&self) -> Vec<LeagueInfo> {
        let slots: Vec<Arc<Slot>> = read(&self.slots).values().cloned().collect();
        slots.iter().map(|s| slot_info(&read(&s.state))).collect()
    }

    /// One league.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`].
    pub fn league(&self, id: LeagueId) -> Result<LeagueInfo, StoreError> {
        let slot = self.slot(id)?;
        let info = slot_info(&read(&slot.state));
        Ok(info)
    }

    /// Whether every league is loaded, and the ids of those that are not.
    #[must_use]
    pub fn loading(&self) -> Vec<LeagueId> {
        let slots: Vec<Arc<Slot>> = read(&self.slots).values().cloned().collect();
        slots
            .iter()
            .filter(|s| !matches!(&*read(&s.state), Phase::Ready(_)))
            .map(|s| s.id)
            .collect()
    }

    /// Checks an admin token for `league`.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::Forbidden`] for another league's
    /// token, [`StoreError::Unauthorized`] for a token that belongs to no league.
    pub fn authorize(&self, id: LeagueId, token: &str) -> Result<(), StoreError> {
        self.slot(id)?;
        let hash = hash_token(token);
        let known = read(&self.tokens).get(&hash).copied();
        let owner = match known {
            Some(owner) => Some(owner),
            None => self.store.league_of_token(&hash)?,
        };
        match owner {
            Some(owner) if owner == id => Ok(()),
            Some(_) => Err(StoreError::Forbidden { league: id }),
            None => Err(StoreError::Unauthorized),
        }
    }

    /// Queues submissions for a league; `reply` gets their results once they are
    /// committed. Returns whether the caller must now call [`Leagues::drain`] for the
    /// league (nobody else is committing its queue).
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::NotReady`].
    pub fn submit(
        &self,
        id: LeagueId,
        subs: Vec<Submission>,
        reply: Reply,
    ) -> Result<bool, StoreError> {
        let slot = self.slot(id)?;
        ready(&read(&slot.state), id)?;
        let mut queue = lock(&slot.queue);
        queue.jobs.push_back(Job { subs, reply });
        Ok(!std::mem::replace(&mut queue.draining, true))
    }

    /// Commits a league's queued submissions, a batch at a time (up to
    /// [`Options::max_batch`] per transaction), until the queue is empty.
    pub fn drain(&self, id: LeagueId) {
        let Ok(slot) = self.slot(id) else { return };
        loop {
            let jobs = {
                let mut queue = lock(&slot.queue);
                let mut jobs = Vec::new();
                let mut n = 0;
                while let Some(job) = queue.jobs.front() {
                    if n > 0 && n + job.subs.len() > self.options.max_batch {
                        break;
                    }
                    n += job.subs.len();
                    jobs.push(queue.jobs.pop_front().expect("a job is there"));
                }
                if jobs.is_empty() {
                    queue.draining = false;
                    return;
                }
                jobs
            };
            let _w = lock(&slot.writer);
            let subs: Vec<Submission> = jobs.iter().flat_map(|j| j.subs.iter().cloned()).collect();
            let mut results = self.append_now(&slot, subs).into_iter();
            for job in jobs {
                let mine: Vec<_> = results.by_ref().take(job.subs.len()).collect();
                (job.reply)(mine);
            }
            drop(_w);
            // A new checkpoint is saved for a restart to start from, apart.
            self.save_behind(&slot);
        }
    }

    /// Appends submissions to a league and waits for them to be committed (a batch
    /// committed together with whatever else is queued).
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::NotReady`] for the whole batch;
    /// each submission's own errors in its result.
    pub fn append_batch(
        &self,
        id: LeagueId,
        subs: Vec<Submission>,
    ) -> Result<Vec<Result<Appended, StoreError>>, StoreError> {
        let (tx, rx) = std::sync::mpsc::channel();
        let n = subs.len();
        if self.submit(
            id,
            subs,
            Box::new(move |r| {
                let _ = tx.send(r);
            }),
        )? {
            self.drain(id);
        }
        Ok(rx.recv().unwrap_or_else(|_| {
            (0..n)
                .map(|_| {
                    Err(StoreError::Corrupt {
                        message: "a batch was dropped unanswered".into(),
                    })
                })
                .collect()
        }))
    }

    /// Appends one match. A submission whose id is already in the ledger with the same
    /// content is a retry: it stores nothing and answers [`SubmitStatus::Duplicate`].
    ///
    /// # Errors
    /// [`StoreError::Conflict`] for an id already used by other content, the match's
    /// validation errors, or the system's refusal to rate it.
    pub fn append(&self, id: LeagueId, sub: Submission) -> Result<Appended, StoreError> {
        self.append_batch(id, vec![sub])?
            .pop()
            .unwrap_or(Err(StoreError::Corrupt {
                message: "a batch of one gave no result".into(),
            }))
    }

    /// Appends a batch under the league's writer lock.
    fn append_now(&self, slot: &Slot, subs: Vec<Submission>) -> Vec<Result<Appended, StoreError>> {
        let n = subs.len();
        match self.try_append(slot, subs) {
            Ok(results) => results,
            Err(e) => {
                if e.is_transient() {
                    tracing::warn!(league = slot.id, error = %e, "a batch of submissions met the database unavailable");
                } else {
                    tracing::error!(league = slot.id, error = %e, "a batch of submissions failed");
                }
                // Each submission answered with the batch's failure, of its own kind.
                let mut answers: Vec<Result<Appended, StoreError>> =
                    (1..n).map(|_| Err(e.again())).collect();
                answers.insert(0, Err(e));
                answers.truncate(n);
                answers
            }
        }
    }

    fn try_append(
        &self,
        slot: &Slot,
        subs: Vec<Submission>,
    ) -> Result<Vec<Result<Appended, StoreError>>, StoreError> {
        let id = slot.id;
        let started = Instant::now();
        let mut writer = self.store.lock(id)?;
        let locked = started.elapsed();
        self.catch_up(slot)?;
        let caught_up = started.elapsed();
        let first_seq = ready(&read(&slot.state), id)?.row.head.last_seq + 1;
        let mut next_seq = first_seq;
        let mut steps = self.steps(slot, &subs, next_seq)?;
        // Rate and commit the new ones in order: runs of light matches that go at the
        // end are rated in place and committed together; any other is rated apart.
        let mut results: Vec<Option<Result<Appended, StoreError>>> =
            (0..steps.len()).map(|_| None).collect();
        let mut k = 0;
        while k < steps.len() {
            let Step::New(entry, game) = &steps[k] else {
                k += 1;
                continue;
            };
            let light = game.len() < self.options.heavy_players;
            let at_end = self.read_slot(slot, |d| Ok(d.appends_at_end(entry.time)))?;
            if light && at_end {
                k = self.append_run(
                    slot,
                    &mut *writer,
                    &mut steps,
                    k,
                    &mut next_seq,
                    &mut results,
                )?;
            } else {
                let mut entry = entry.clone();
                entry.seq = next_seq;
                let result = self.append_apart(slot, &mut *writer, entry);
                if result.is_ok() {
                    next_seq += 1;
                }
                results[k] = Some(result);
                k += 1;
            }
        }
        let mut done: Vec<Option<Result<Appended, StoreError>>> = Vec::with_capacity(steps.len());
        let mut again: Vec<(usize, usize, String)> = Vec::new();
        for (k, (step, result)) in steps.into_iter().zip(results).enumerate() {
            done.push(match step {
                Step::Done(r) => Some(r),
                Step::New(..) => Some(result.unwrap_or_else(|| {
                    Err(StoreError::Corrupt {
                        message: format!("submission {k} of a batch was left unanswered"),
                    })
                })),
                Step::Again(first, hash) => {
                    again.push((k, first, hash));
                    None
                }
            });
        }
        // A repeated id within the batch: a retry of the first, or a conflict with it.
        for (k, first, hash) in again {
            let answer = match &done[first] {
                Some(Ok(a)) if a.entry.hash == hash => Ok(Appended {
                    status: SubmitStatus::Duplicate,
                    ..a.clone()
                }),
                Some(Ok(a)) => Err(StoreError::Conflict {
                    key: a.entry.key.clone(),
                }),
                Some(Err(e)) => Err(StoreError::InvalidMatch {
                    message: format!(
                        "submitted twice in one request, and refused the first time: {e}"
                    ),
                }),
                None => Err(StoreError::Corrupt {
                    message: "a repeated submission lost its first".into(),
                }),
            };
            done[k] = Some(answer);
        }
        tracing::debug!(
            league = id,
            submissions = subs.len(),
            stored = next_seq - first_seq,
            lock_ms = locked.as_secs_f64() * 1e3,
            catch_up_ms = (caught_up - locked).as_secs_f64() * 1e3,
            total_ms = started.elapsed().as_secs_f64() * 1e3,
            "committed a batch of submissions"
        );
        Ok(done
            .into_iter()
            .map(|r| r.expect("every submission answered"))
            .collect())
    }

    /// What to do with each submission of a batch whose new matches would start at
    /// `next_seq`: answered now (invalid, a retry, a conflict), a new match, or a repeat
    /// of an earlier submission of the batch.
    fn steps(
        &self,
        slot: &Slot,
        subs: &[Submission],
        next_seq: i64,
    ) -> Result<Vec<Step>, StoreError> {
        let id = slot.id;
        let keys: Vec<Result<Option<String>, StoreError>> = subs
            .iter()
            .map(|sub| match sub.key()? {
                Some(k) => check_key(k).map(|()| Some(k.to_string())),
                None => Ok(None),
            })
            .collect();
        let given: Vec<&str> = keys
            .iter()
            .filter_map(|k| k.as_ref().ok().and_then(|k| k.as_deref()))
            .collect();
        let existing: HashMap<String, LedgerEntry> = self
            .store
            .find(id, &given)?
            .into_iter()
            .map(|e| (e.key.clone(), e))
            .collect();
        let mut steps: Vec<Step> = Vec::with_capacity(subs.len());
        let mut first_of: HashMap<String, usize> = HashMap::new();
        let mut auto = next_seq;
        for (k, (sub, key)) in subs.iter().zip(keys).enumerate() {
            let key = match key {
                Ok(Some(key)) => key,
                // No id: `#N` for the first free N from the position it would take.
                Ok(None) => loop {
                    auto = auto.max(next_seq + first_of.len() as i64);
                    let candidate = format!("#{auto}");
                    auto += 1;
                    if !first_of.contains_key(&candidate)
                        && !existing.contains_key(&candidate)
                        && self.store.find(id, &[&candidate])?.is_empty()
                    {
                        break candidate;
                    }
                },
                Err(e) => {
                    steps.push(Step::Done(Err(e)));
                    continue;
                }
            };
            let (entry, game) = match prepare(sub, &key, 0) {
                Ok(p) => p,
                Err(e) => {
                    steps.push(Step::Done(Err(e)));
                    continue;
                }
            };
            steps.push(if let Some(old) = existing.get(&key) {
                Step::Done(if old.hash == entry.hash {
                    let (changes, factor_changes) =
                        self.read_slot(slot, |d| Ok(d.match_changes(&key)))?;
                    Ok(Appended {
                        status: SubmitStatus::Duplicate,
                        entry: old.clone(),
                        changes,
                        factor_changes,
                        recomputed: false,
                    })
                } else {
                    Err(StoreError::Conflict { key })
                })
            } else if let Some(&first) = first_of.get(&key) {
                Step::Again(first, entry.hash)
            } else {
                first_of.insert(key, k);
                Step::New(entry, game)
            });
        }
        Ok(steps)
    }

    /// Rates, in place, the light matches from step `k` on that go at the end, and
    /// commits them together while readers wait (rating them costs microseconds; the
    /// commit, one fsync). Returns the step after the run.
    fn append_run(
        &self,
        slot: &Slot,
        writer: &mut dyn Writer,
        steps: &mut [Step],
        mut k: usize,
        next_seq: &mut i64,
        results: &mut [Option<Result<Appended, StoreError>>],
    ) -> Result<usize, StoreError> {
        let id = slot.id;
        let mut state = write(&slot.state);
        let loaded = ready_mut(&mut state, id)?;
        let mut run: Vec<(usize, LedgerEntry)> = Vec::new();
        while k < steps.len() {
            let Step::New(entry, game) = &steps[k] else {
                k += 1;
                continue;
            };
            if game.len() >= self.options.heavy_players
                || !loaded.derived.appends_at_end(entry.time)
            {
                break;
            }
            let mut entry = entry.clone();
            entry.seq = *next_seq;
            match loaded.derived.apply(&entry, game) {
                Ok(()) => {
                    *next_seq += 1;
                    run.push((k, entry));
                }
                Err(e) => results[k] = Some(Err(e)),
            }
            k += 1;
        }
        if run.is_empty() {
            return Ok(k);
        }
        let entries: Vec<LedgerEntry> = run.iter().map(|(_, e)| e.clone()).collect();
        match writer.append(&entries) {
            Ok(head) => {
                loaded.row.head = head;
                for (i, entry) in run {
                    let (changes, factor_changes) = loaded.derived.match_changes(&entry.key);
                    results[i] = Some(Ok(Appended {
                        status: SubmitStatus::Created,
                        entry,
                        changes,
                        factor_changes,
                        recomputed: false,
                    }));
                }
                Ok(k)
            }
            Err(e) if e.is_transient() => {
                // The connection was lost: the run may or may not be stored. The
                // ratings are kept, the run read again from the ledger when it answers
                // (from the checkpoint before it, not the whole ledger).
                let first = run[0].1.position();
                loaded.unsure = Some(loaded.unsure.map_or(first, |u| u.min(first)));
                Err(e)
            }
            Err(e) => {
                // Nothing of the run is stored: the ratings are rebuilt without it.
                drop(state);
                self.reload(slot);
                Err(e)
            }
        }
    }

    /// Rates one new match apart from the state readers see — on a copy of the league
    /// when it goes at the end, from the last checkpoint before it otherwise — commits
    /// it, and puts the result in place.
    fn append_apart(
        &self,
        slot: &Slot,
        writer: &mut dyn Writer,
        entry: LedgerEntry,
    ) -> Result<Appended, StoreError> {
        let at_end = self.read_slot(slot, |d| Ok(d.appends_at_end(entry.time)))?;
        let (tail, _) = if at_end {
            let base = self.read_slot(slot, |d| Ok(d.base_at_end()))?;
            let mut tail = Tail::new(base, self.options.checkpoints);
            tail.push(&entry)?;
            (tail, None)
        } else {
            let new = entry.clone();
            self.retail(slot, entry.position(), move |mut later| {
                let at = later.partition_point(|e| e.position() < new.position());
                later.insert(at, new);
                later
            })
            .map(|(t, row)| (t, Some(row)))?
        };
        let head = writer.append(std::slice::from_ref(&entry))?;
        let (changes, factor_changes) = self.put_in_place(slot, tail, head, &entry.key)?;
        Ok(Appended {
            status: SubmitStatus::Created,
            entry,
            changes,
            factor_changes,
            recomputed: !at_end,
        })
    }

    /// Rates again every match from `from` on: from the last checkpoint before it, over
    /// the ledger the store holds after that checkpoint, changed by `edit` (which gets
    /// the matches in rating order and returns them in rating order). Returns the tail
    /// and the league's row as of the ledger read.
    fn retail(
        &self,
        slot: &Slot,
        from: Position,
        edit: impl FnOnce(Vec<LedgerEntry>) -> Vec<LedgerEntry>,
    ) -> Result<(Tail, LeagueRow), StoreError> {
        let base = self.read_slot(slot, |d| Ok(d.base_before(from)))?;
        let after = base.after();
        let mut tail = Tail::new(base, self.options.checkpoints);
        let mut later = Vec::new();
        let row = self.store.scan(slot.id, after, &mut |e| {
            later.push(e);
            Ok(())
        })?;
        for e in &edit(later) {
            tail.push(e)?;
        }
        Ok((tail, row))
    }

    /// Puts a tail in place (readers wait only for the splice) and sets the league's
    /// head; returns the changes of match `key` (its players', its factors') as now
    /// rated.
    fn put_in_place(
        &self,
        slot: &Slot,
        tail: Tail,
        head: Head,
        key: &str,
    ) -> Result<(Vec<ChangeRow>, Vec<FactorChange>), StoreError> {
        let mut state = write(&slot.state);
        let loaded = ready_mut(&mut state, slot.id)?;
        let replaced = loaded.derived.splice(tail)?;
        loaded.row.head = head;
        let changes = loaded.derived.match_changes(key);
        drop(state);
        drop(replaced);
        Ok(changes)
    }

    /// A match of the ledger, voided or not.
    fn entry(&self, id: LeagueId, key: &str) -> Result<LedgerEntry, StoreError> {
        self.store
            .find(id, &[key])?
            .pop()
            .ok_or_else(|| StoreError::MatchNotFound {
                league: id,
                key: key.to_string(),
            })
    }

    fn read_slot<T>(
        &self,
        slot: &Slot,
        f: impl FnOnce(&Derived) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let state = read(&slot.state);
        f(&ready(&state, slot.id)?.derived)
    }

    /// Rebuilds a league whose ratings may differ from its ledger (after a failed
    /// commit); on failure the league answers with the reason.
    fn reload(&self, slot: &Slot) {
        match self.rebuild(slot.id, None) {
            Ok((row, derived)) => {
                let old = std::mem::replace(
                    &mut *write(&slot.state),
                    Phase::Ready(Box::new(Loaded {
                        row,
                        derived,
                        unsure: None,
                    })),
                );
                drop(old);
            }
            Err(e) => {
                tracing::error!(league = slot.id, error = %e, "league could not be rebuilt from its ledger");
                let mut state = write(&slot.state);
                let row = match &*state {
                    Phase::Ready(l) | Phase::Restored(l) => l.row.clone(),
                    Phase::Loading(row) | Phase::Failed(row, _) => row.clone(),
                };
                *state = Phase::Failed(row, e.to_string());
            }
        }
    }

    /// Brings a league's ratings up to its ledger as the store holds it now (what other
    /// servers on the same store committed). The caller holds the league's writer lock.
    fn catch_up(&self, slot: &Slot) -> Result<(), StoreError> {
        let id = slot.id;
        self.settle(slot)?;
        let (seen, system, config) = {
            let state = read(&slot.state);
            let row = &ready(&state, id)?.row;
            (row.head, row.system.clone(), row.config.clone())
        };
        let since = self.store.since(id, seen)?;
        if since.row.head == seen {
            return Ok(());
        }
        let reconfigured = since.row.system != system
            || since.row.config != config
            || since
                .changes
                .iter()
                .any(|c| matches!(c.action, ChangeAction::Configure | ChangeAction::Season));
        if reconfigured {
            let (row, derived) = self.rebuild(id, None)?;
            let old = std::mem::replace(
                &mut *write(&slot.state),
                Phase::Ready(Box::new(Loaded {
                    row,
                    derived,
                    unsure: None,
                })),
            );
            drop(old);
            return Ok(());
        }
        // The earliest match whose rating may have changed, and whether the new matches
        // simply go at the end.
        let (from, in_place) = self.read_slot(slot, |d| {
            let mut from: Option<Position> = None;
            let mut earliest = |p: Option<Position>| {
                if let Some(p) = p {
                    from = Some(from.map_or(p, |f| f.min(p)));
                }
            };
            for c in &since.changes {
                if let ChangeAction::Void { key } | ChangeAction::Correct { key } = &c.action {
                    earliest(d.position_of(key));
                    earliest(c.now);
                }
            }
            let mut in_place = since.changes.is_empty();
            let mut last = None::<i64>;
            let mut end_ok = true;
            for e in since.entries.iter().filter(|e| !e.voided) {
                earliest(Some(e.position()));
                end_ok &= e.json.results.len() < self.options.heavy_players
                    && d.appends_at_end(e.time)
                    && match (last, e.time) {
                        (Some(l), Some(t)) => t >= l,
                        _ => true,
                    };
                last = e.time.or(last);
            }
            in_place &= end_ok;
            Ok((from, in_place))
        })?;
        match from {
            None => {
                let mut state = write(&slot.state);
                ready_mut(&mut state, id)?.row = since.row;
            }
            Some(_) if in_place => {
                let mut state = write(&slot.state);
                let loaded = ready_mut(&mut state, id)?;
                for e in since.entries.iter().filter(|e| !e.voided) {
                    loaded.derived.apply(e, &to_match(e)?)?;
                }
                loaded.row = since.row;
            }
            Some(from) => {
                let (tail, row) = self.retail(slot, from, |v| v)?;
                let mut state = write(&slot.state);
                let loaded = ready_mut(&mut state, id)?;
                let replaced = loaded.derived.splice(tail)?;
                loaded.row = row;
                drop(state);
                drop(replaced);
            }
        }
        Ok(())
    }

    /// Reads again from the ledger the matches of a league whose commit was cut by a lost
    /// connection ([`Loaded::unsure`]): rated again from the last checkpoint before
    /// them, as the ledger holds them now (with them or without). The caller holds the
    /// league's writer lock.
    fn settle(&self, slot: &Slot) -> Result<(), StoreError> {
        let id = slot.id;
        let (unsure, system, config) = {
            let state = read(&slot.state);
            let loaded = ready(&state, id)?;
            (
                loaded.unsure,
                loaded.row.system.clone(),
                loaded.row.config.clone(),
            )
        };
        let Some(from) = unsure else {
            return Ok(());
        };
        let (tail, row) = self.retail(slot, from, |v| v)?;
        let mut state = write(&slot.state);
        let loaded = ready_mut(&mut state, id)?;
        if row.system == system && row.config == config {
            let replaced = loaded.derived.splice(tail)?;
            loaded.row = row;
            loaded.unsure = None;
            drop(state);
            drop(replaced);
        } else {
            // Reconfigured elsewhere meanwhile: rated again whole.
            drop(state);
            drop(tail);
            let (row, derived) = self.rebuild(id, None)?;
            *write(&slot.state) = Phase::Ready(Box::new(Loaded {
                row,
                derived,
                unsure: None,
            }));
        }
        tracing::info!(
            league = id,
            "matches of a cut commit read again from the ledger"
        );
        Ok(())
    }

    /// Catches a league up with its ledger as the store holds it now: what other servers
    /// on the same store committed. Loads a league not loaded yet.
    ///
    /// # Errors
    /// The store fails, or the league's ledger cannot be rated.
    pub fn refresh(&self, id: LeagueId) -> Result<(), StoreError> {
        let slot = self.slot(id)?;
        if !matches!(&*read(&slot.state), Phase::Ready(_)) {
            return self.load(id);
        }
        let _w = lock(&slot.writer);
        self.catch_up_or_reload(&slot)
    }

    /// [`Leagues::refresh`] unless the league is being changed in this process (which
    /// catches up first anyway): whether it ran.
    pub(crate) fn refresh_if_idle(&self, id: LeagueId) -> Result<bool, StoreError> {
        let slot = self.slot(id)?;
        if !matches!(&*read(&slot.state), Phase::Ready(_)) {
            // As the loader does: served from saved ratings, if any, while rated whole.
            if let Err(e) = self.restore(id) {
                tracing::warn!(league = id, error = %e, "league could not be restored from its saved ratings");
            }
            return self.load(id).map(|()| true);
        }
        let _w = match slot.writer.try_lock() {
            Ok(w) => w,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return Ok(false),
        };
        self.catch_up_or_reload(&slot).map(|()| true)
    }

    fn catch_up_or_reload(&self, slot: &Slot) -> Result<(), StoreError> {
        let result = self.catch_up(slot);
        // A lost connection says nothing of the ratings: they are kept, and caught up
        // (only what is new) once the database answers again.
        if let Some(e) = result.as_ref().err().filter(|e| !e.is_transient()) {
            tracing::warn!(league = slot.id, error = %e, "could not catch up with the ledger; rebuilding");
            self.reload(slot);
        }
        result
    }

    /// Follows what other servers on the same store write, until `stop` is set: catches
    /// a league up as soon as the store tells of a write to it ([`Store::watch`]), and
    /// checks every league's head every second besides (which also finds leagues made
    /// elsewhere, and loads again a league that could not be loaded, every 30 s). Each
    /// catch-up runs on a thread of its own, so a slow one holds up no other league.
    pub fn follow(self: &Arc<Self>, stop: &AtomicBool) {
        let mut watch: Option<Box<dyn crate::Watch>> = None;
        let mut watching = true;
        let mut polled = Instant::now() - Duration::from_secs(60);
        let mut retried = Instant::now();
        let tick = Duration::from_millis(250);
        while !stop.load(Ordering::Relaxed) {
            let mut told: Vec<LeagueId> = Vec::new();
            match &mut watch {
                Some(w) => match w.wait(tick) {
                    Ok(ids) => told = ids,
                    Err(e) => {
                        tracing::warn!(error = %e, "lost the notifications of writes; listening again");
                        watch = None;
                    }
                },
                None if watching => match self.store.watch() {
                    Ok(Some(w)) => watch = Some(w),
                    Ok(None) => watching = false,
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot listen for writes; checking every second meanwhile");
                        std::thread::sleep(Duration::from_secs(1));
                    }
                },
                None => std::thread::sleep(tick),
            }
            if polled.elapsed() >= Duration::from_secs(1) {
                polled = Instant::now();
                let retry = retried.elapsed() >= Duration::from_secs(30);
                if retry {
                    retried = Instant::now();
                }
                match self.store.heads() {
                    Ok(heads) => told.extend(
                        heads
                            .into_iter()
                            .filter(|&(id, head)| self.behind(id, head, retry))
                            .map(|(id, _)| id),
                    ),
                    Err(e) => tracing::warn!(error = %e, "cannot read the leagues' heads"),
                }
            }
            told.sort_unstable();
            told.dedup();
            for id in told {
                self.refresh_apart(id);
            }
        }
    }

    /// Whether a league's ratings are behind `head` (or unknown here, or found but not
    /// taken on by a loader yet; or could not be loaded, when `retry`).
    pub(crate) fn behind(&self, id: LeagueId, head: Head, retry: bool) -> bool {
        let Some(slot) = read(&self.slots).get(&id).cloned() else {
            return true;
        };
        let state = read(&slot.state);
        match &*state {
            Phase::Ready(l) => l.row.head != head || l.unsure.is_some(),
            Phase::Loading(_) | Phase::Restored(_) => !slot.claimed.swap(true, Ordering::Relaxed),
            Phase::Failed(..) => retry,
        }
    }

    /// Catches a league up on a thread of its own, unless one is at it already (which is
    /// then told to go once more).
    fn refresh_apart(self: &Arc<Self>, id: LeagueId) {
        let slot = match self.slot(id) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(league = id, error = %e, "cannot follow a league");
                return;
            }
        };
        if slot
            .following
            .compare_exchange(IDLE, RUNNING, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            slot.following.store(AGAIN, Ordering::Release);
            return;
        }
        let leagues = Arc::clone(self);
        let span = tracing::Span::current();
        let spawned = std::thread::Builder::new()
            .name(format!("podium-follow-{id}"))
            .spawn(move || {
                let _entered = span.enter();
                loop {
                    // A league busy with a write of its own catches up before it: come
                    // back when it is done rather than queue behind it.
                    match leagues.refresh_if_idle(id) {
                        Ok(true) => {}
                        Ok(false) => {
                            std::thread::sleep(Duration::from_millis(20));
                            continue;
                        }
                        Err(e) => {
                            tracing::warn!(league = id, error = %e, "could not catch up with the ledger");
                        }
                    }
                    if slot
                        .following
                        .compare_exchange(RUNNING, IDLE, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                    {
                        return;
                    }
                    slot.following.store(RUNNING, Ordering::Release);
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(league = id, error = %e, "cannot start a thread to catch up");
        }
    }

    /// Voids a match: it stays in the ledger (and its id stays taken) but is no longer
    /// rated. The league is rated again from the last checkpoint before it.
    ///
    /// # Errors
    /// [`StoreError::MatchNotFound`], or a ledger that the system refuses without it.
    pub fn void(&self, id: LeagueId, key: &str) -> Result<LedgerEntry, StoreError> {
        let slot = self.slot(id)?;
        let _w = lock(&slot.writer);
        let mut writer = self.store.lock(id)?;
        self.catch_up(&slot)?;
        let mut entry = self.entry(id, key)?;
        if entry.voided {
            return Ok(entry);
        }
        let from = self
            .read_slot(&slot, |d| Ok(d.position_of(key)))?
            .unwrap_or(entry.position());
        let (tail, _) = self.retail(&slot, from, |mut later| {
            later.retain(|e| e.key != key);
            later
        })?;
        let head = writer.void(&entry)?;
        self.put_in_place(&slot, tail, head, key)?;
        entry.voided = true;
        Ok(entry)
    }

    /// Replaces the results (and time) of a match, keeping its place in the ledger, and
    /// rates the league again from the last checkpoint before it. Unless
    /// `allow_new_players`, every player named must already be known to the league (a
    /// correction usually fixes a typo, not adds a player).
    /// A correction with the content the match has (a rated match) changes nothing and
    /// answers [`SubmitStatus::Unchanged`], not rated again.
    ///
    /// # Errors
    /// [`StoreError::MatchNotFound`], [`StoreError::UnknownPlayer`], validation errors,
    /// or a ledger that the system refuses with the correction.
    pub fn correct(
        &self,
        id: LeagueId,
        key: &str,
        sub: Submission,
        allow_new_players: bool,
    ) -> Result<Appended, StoreError> {
        if let Some(given) = sub.key()? {
            if given != key {
                return Err(StoreError::InvalidMatch {
                    message: format!(
                        "the body's match id {} differs from the address's {}",
                        quote(given),
                        quote(key)
                    ),
                });
            }
        }
        let slot = self.slot(id)?;
        let _w = lock(&slot.writer);
        let mut writer = self.store.lock(id)?;
        self.catch_up(&slot)?;
        let old = self.entry(id, key)?;
        self.replace(&slot, &mut *writer, old, &sub, allow_new_players)
    }

    /// Puts a voided match back as it was voided (its results, factors and time, from the
    /// ledger's own copy), in its place, and rates the league again from the last
    /// checkpoint before it; `None` when the match is not voided (nothing is done). The
    /// check and the restore are one step under the league's write lock, so a correction
    /// made meanwhile is never overwritten.
    ///
    /// # Errors
    /// [`StoreError::MatchNotFound`], or a ledger that the system refuses with the match.
    pub fn restore_match(&self, id: LeagueId, key: &str) -> Result<Option<Appended>, StoreError> {
        let slot = self.slot(id)?;
        let _w = lock(&slot.writer);
        let mut writer = self.store.lock(id)?;
        self.catch_up(&slot)?;
        let old = self.entry(id, key)?;
        if !old.voided {
            return Ok(None);
        }
        let kept = Submission {
            match_id: Some(old.key.clone()),
            id: None,
            time: old.json.time.clone(),
            results: old.json.results.clone(),
        };
        // Its players are those of the match itself, which a correction always allows.
        self.replace(&slot, &mut *writer, old, &kept, false)
            .map(Some)
    }

    /// Replaces match `old` by `sub` under the league's write lock (`writer`), keeping its
    /// place, and rates the league again from the last checkpoint before it.
    fn replace(
        &self,
        slot: &Slot,
        writer: &mut dyn Writer,
        old: LedgerEntry,
        sub: &Submission,
        allow_new_players: bool,
    ) -> Result<Appended, StoreError> {
        let key = old.key.as_str();
        let (new, game) = prepare(sub, key, old.seq)?;
        if !old.voided && new.hash == old.hash {
            // The content it has: nothing to store or rate again.
            let (changes, factor_changes) = self.read_slot(slot, |d| Ok(d.match_changes(key)))?;
            return Ok(Appended {
                status: SubmitStatus::Unchanged,
                entry: old,
                changes,
                factor_changes,
                recomputed: false,
            });
        }
        let was = self.read_slot(slot, |d| {
            // As a new match must be dated once the league has dated matches, a dated
            // one keeps a date (an undated match of the league's start may stay so).
            if new.time.is_none() && old.time.is_some() && d.dated_besides(key) {
                return Err(StoreError::DateRemoved {
                    key: key.to_string(),
                });
            }
            if !allow_new_players {
                // Known: has a rated match, or is in the match being corrected.
                let known = |p: &str| d.knows(p) || old.json.results.iter().any(|r| r.player == p);
                if let Some((_, m)) = game.players().find(|(_, m)| !known(&m.player)) {
                    return Err(StoreError::UnknownPlayer {
                        player: m.player.clone(),
                    });
                }
            }
            Ok(d.position_of(key))
        })?;
        let from = was.map_or(new.position(), |p| p.min(new.position()));
        let replacement = new.clone();
        let (tail, _) = self.retail(slot, from, move |mut later| {
            later.retain(|e| e.key != replacement.key);
            let at = later.partition_point(|e| e.position() < replacement.position());
            later.insert(at, replacement);
            later
        })?;
        let head = writer.correct(&old, &new)?;
        let (changes, factor_changes) = self.put_in_place(slot, tail, head, key)?;
        Ok(Appended {
            status: SubmitStatus::Corrected,
            entry: new,
            changes,
            factor_changes,
            recomputed: true,
        })
    }

    /// Changes a league's name, system or config; a new system or config rates the whole
    /// ledger again (readers keep the old ratings meanwhile). A config given replaces
    /// the whole config; a new system without a config starts from that system's
    /// defaults, and the league's own system named again keeps its config.
    ///
    /// # Errors
    /// [`StoreError::Config`] for an unknown system or bad parameter, or a ledger that
    /// the new system refuses (the league is then left as it was).
    pub fn configure(
        &self,
        id: LeagueId,
        name: Option<String>,
        system: Option<String>,
        config: Option<Settings>,
    ) -> Result<LeagueInfo, StoreError> {
        let slot = self.slot(id)?;
        let _w = lock(&slot.writer);
        let mut writer = self.store.lock(id)?;
        self.catch_up(&slot)?;
        let row = ready(&read(&slot.state), id)?.row.clone();
        let name = match name {
            Some(n) => check_name(&n)?,
            None => row.name.clone(),
        };
        // The league's own system named again is no change: its config is kept.
        let system_changed = match &system {
            Some(s) => build_system(s, &Settings::new())?.name() != row.system,
            None => false,
        };
        let new_system = system.unwrap_or_else(|| row.system.clone());
        let new_config = match config {
            Some(c) => c,
            None if system_changed => Settings::new(),
            None => row.config.clone(),
        };
        let sys = build_system(&new_system, &new_config)?;
        let new_system = sys.name().to_string();
        let rerate = new_system != row.system || new_config != row.config;
        let rebuilt = if rerate {
            Some(self.rebuild(id, Some((&new_system, &new_config)))?.1)
        } else {
            None
        };
        let head = writer.configure(&row, &name, &new_system, &new_config)?;
        let mut state = write(&slot.state);
        let loaded = ready_mut(&mut state, id)?;
        loaded.row.name = name;
        loaded.row.system = new_system;
        loaded.row.config = new_config;
        loaded.row.head = head;
        let old = rebuilt.map(|d| std::mem::replace(&mut loaded.derived, d));
        let info = info(loaded);
        drop(state);
        drop(old);
        Ok(info)
    }

    /// The whole leaderboard as JSON (`serde_json` of [`Leagues::leaderboard`]'s rows),
    /// made once per change of the league.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::NotReady`].
    pub fn leaderboard_json(&self, id: LeagueId) -> Result<BoardJson, StoreError> {
        self.read(id, |d| Ok(d.board_json()))
    }

    /// [`Leagues::leaderboard_json`] in `order`.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::NotReady`].
    pub fn leaderboard_json_in(
        &self,
        id: LeagueId,
        order: podium::Order,
    ) -> Result<BoardJson, StoreError> {
        self.read(id, |d| Ok(d.board_json_in(order)))
    }

    /// The leaderboard, best first.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::NotReady`].
    pub fn leaderboard(&self, id: LeagueId) -> Result<Vec<BoardRow>, StoreError> {
        self.read(id, |d| Ok(d.compute_board()))
    }

    /// A page of the leaderboard: at most `limit` rows from `offset` (0-based), and the
    /// number of players. Does not build the whole board.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::NotReady`].
    pub fn leaderboard_page(
        &self,
        id: LeagueId,
        offset: usize,
        limit: usize,
    ) -> Result<(usize, Vec<BoardRow>), StoreError> {
        self.read(id, |d| Ok(d.page(offset, limit)))
    }

    /// [`Leagues::leaderboard_page`] in `order`.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::NotReady`].
    pub fn leaderboard_page_in(
        &self,
        id: LeagueId,
        order: podium::Order,
        offset: usize,
        limit: usize,
    ) -> Result<(usize, Vec<BoardRow>), StoreError> {
        self.read(id, |d| Ok(d.page_in(order, offset, limit)))
    }

    /// A player's standing and every rated match of theirs with its breakdown.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::NotReady`],
    /// [`StoreError::PlayerNotFound`].
    pub fn player(&self, id: LeagueId, player: &str) -> Result<PlayerHistory, StoreError> {
        self.read_whole(id, |d| {
            d.player(player).ok_or_else(|| StoreError::PlayerNotFound {
                league: id,
                player: player.to_string(),
            })
        })
    }

    /// One match of the ledger, voided or not, with its rating changes as rated now.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::NotReady`],
    /// [`StoreError::MatchNotFound`].
    pub fn get_match(
        &self,
        id: LeagueId,
        key: &str,
    ) -> Result<(LedgerEntry, Vec<ChangeRow>, Vec<FactorChange>), StoreError> {
        let (changes, factor_changes) = self.read_whole(id, |d| Ok(d.match_changes(key)))?;
        let entry = self.entry(id, key)?;
        if entry.voided {
            return Ok((entry, Vec::new(), Vec::new()));
        }
        Ok((entry, changes, factor_changes))
    }

    /// The league's factors' table (cars, seats, factions with their ratings): by kind
    /// (alphabetical), then best rated first; empty for a league without factors.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::NotReady`].
    pub fn factors(&self, id: LeagueId) -> Result<Vec<FactorRow>, StoreError> {
        self.read(id, |d| Ok(d.factor_table()))
    }

    /// The rated matches of a league in rating order (voided ones left out), as the
    /// store holds them.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], or the store's failure.
    pub fn ledger(&self, id: LeagueId) -> Result<Vec<LedgerEntry>, StoreError> {
        self.slot(id)?;
        let mut entries = Vec::new();
        self.store.scan(id, None, &mut |e| {
            entries.push(e);
            Ok(())
        })?;
        Ok(entries)
    }
}

/// A league's ratings to save ([`due`]).
struct SaveJob {
    source: Saveable,
    head: Head,
    system: String,
    config: Settings,
}

/// What of a league's ratings is to be saved: its newest checkpoint (its current state
/// with `at_end`), unless the store holds it (or newer) already as far as known here;
/// nothing for a league not loaded whole.
fn due(slot: &Slot, at_end: bool) -> Option<SaveJob> {
    let state = read(&slot.state);
    let Phase::Ready(loaded) = &*state else {
        return None;
    };
    if loaded.unsure.is_some() {
        return None;
    }
    let source = if at_end {
        loaded.derived.at_end()
    } else {
        loaded.derived.newest_checkpoint()
    };
    let source = source.filter(|s| s.count > 0)?;
    let head = loaded.row.head;
    let kept = *lock(&slot.saved);
    if kept.is_some_and(|(count, change)| change == head.last_change && count >= source.count) {
        return None;
    }
    Some(SaveJob {
        source,
        head,
        system: loaded.row.system.clone(),
        config: loaded.row.config.clone(),
    })
}

impl SaveJob {
    /// Serialises the ratings and writes them to the store (one transaction).
    fn write(self, store: &dyn Store, slot: &Slot) -> Result<(), StoreError> {
        let started = Instant::now();
        let corrupt = |what: String| StoreError::Corrupt {
            message: format!("league {}: its ratings cannot be saved: {what}", slot.id),
        };
        let saved = self
            .source
            .league
            .save()
            .map_err(|e| corrupt(e.to_string()))?;
        let packed = crate::packed::pack(&saved).map_err(corrupt)?;
        drop(saved);
        let bytes = packed.len();
        let to_i64 = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        store.save_snapshot(&SnapshotRow {
            league: slot.id,
            head: self.head,
            count: to_i64(self.source.count),
            last: self.source.last,
            season: to_i64(self.source.season),
            system: self.system,
            config: self.config,
            packed,
        })?;
        *lock(&slot.saved) = Some((self.source.count, self.head.last_change));
        tracing::info!(
            league = slot.id,
            matches = self.source.count,
            bytes,
            seconds = started.elapsed().as_secs_f64(),
            "ratings saved"
        );
        Ok(())
    }
}

fn ready(phase: &Phase, id: LeagueId) -> Result<&Loaded, StoreError> {
    match phase {
        Phase::Ready(l) => Ok(l),
        Phase::Loading(_) | Phase::Restored(_) => Err(StoreError::NotReady { league: id }),
        Phase::Failed(_, message) => Err(StoreError::Corrupt {
            message: format!("league {id} could not be loaded: {message}"),
        }),
    }
}

/// A league's ratings as served to readers of its board: loaded, or restored from saved
/// ratings.
fn served(phase: &Phase, id: LeagueId) -> Result<&Loaded, StoreError> {
    match phase {
        Phase::Restored(l) => Ok(l),
        _ => ready(phase, id),
    }
}

fn ready_mut(phase: &mut Phase, id: LeagueId) -> Result<&mut Loaded, StoreError> {
    match phase {
        Phase::Ready(l) => Ok(l),
        Phase::Loading(_) | Phase::Restored(_) => Err(StoreError::NotReady { league: id }),
        Phase::Failed(_, message) => Err(StoreError::Corrupt {
            message: format!("league {id} could not be loaded: {message}"),
        }),
    }
}

fn slot_info(phase: &Phase) -> LeagueInfo {
    match phase {
        Phase::Ready(l) => info(l),
        Phase::Restored(l) => LeagueInfo {
            ready: false,
            ..info(l)
        },
        Phase::Loading(row) | Phase::Failed(row, _) => info_unready(row),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU8;

    use super::*;
    use crate::{LedgerResult, Since, SqliteStore, Watch, Writer};

    /// How the next append goes: whole, cut before its commit, or cut after it (the
    /// commit done, its answer lost).
    const WHOLE: u8 = 0;
    const BEFORE: u8 = 1;
    const AFTER: u8 = 2;
    /// Refused as by a full disk.
    const FULL: u8 = 3;

    /// A SQLite store whose next append can be cut as by a lost connection, whose reads
    /// can all fail so (`down`), and which counts the reads of whole ledgers.
    struct Flaky {
        inner: SqliteStore,
        cut: AtomicU8,
        down: AtomicBool,
        whole_scans: std::sync::atomic::AtomicUsize,
    }

    impl Flaky {
        fn new() -> Arc<Self> {
            Arc::new(Flaky {
                inner: SqliteStore::temporary().unwrap(),
                cut: AtomicU8::new(WHOLE),
                down: AtomicBool::new(false),
                whole_scans: std::sync::atomic::AtomicUsize::new(0),
            })
        }

        fn up(&self) -> Result<(), StoreError> {
            if self.down.load(Ordering::SeqCst) {
                Err(lost())
            } else {
                Ok(())
            }
        }
    }

    fn lost() -> StoreError {
        StoreError::Unavailable {
            reason: "connection closed".into(),
        }
    }

    impl Store for Flaky {
        fn describe(&self) -> String {
            self.inner.describe()
        }
        fn ping(&self) -> Result<(), StoreError> {
            self.inner.ping()
        }
        fn watch(&self) -> Result<Option<Box<dyn Watch>>, StoreError> {
            self.inner.watch()
        }
        fn league_rows(&self) -> Result<Vec<LeagueRow>, StoreError> {
            self.inner.league_rows()
        }
        fn league_row(&self, id: LeagueId) -> Result<Option<LeagueRow>, StoreError> {
            self.up()?;
            self.inner.league_row(id)
        }
        fn league_of_token(&self, token_hash: &str) -> Result<Option<LeagueId>, StoreError> {
            self.inner.league_of_token(token_hash)
        }
        fn heads(&self) -> Result<Vec<(LeagueId, Head)>, StoreError> {
            self.up()?;
            self.inner.heads()
        }
        fn create_league(
            &self,
            name: &str,
            system: &str,
            config: &Settings,
            token_hash: &str,
        ) -> Result<LeagueRow, StoreError> {
            self.inner.create_league(name, system, config, token_hash)
        }
        fn scan(
            &self,
            league: LeagueId,
            after: Option<Position>,
            visit: &mut dyn FnMut(LedgerEntry) -> Result<(), StoreError>,
        ) -> Result<LeagueRow, StoreError> {
            self.up()?;
            if after.is_none() {
                self.whole_scans.fetch_add(1, Ordering::SeqCst);
            }
            self.inner.scan(league, after, visit)
        }
        fn since(&self, league: LeagueId, seen: Head) -> Result<Since, StoreError> {
            self.up()?;
            self.inner.since(league, seen)
        }
        fn find(&self, league: LeagueId, keys: &[&str]) -> Result<Vec<LedgerEntry>, StoreError> {
            self.up()?;
            self.inner.find(league, keys)
        }
        fn lock(&self, league: LeagueId) -> Result<Box<dyn Writer + '_>, StoreError> {
            self.up()?;
            Ok(Box::new(FlakyWriter {
                inner: self.inner.lock(league)?,
                cut: &self.cut,
            }))
        }
        fn seasons(&self, league: LeagueId) -> Result<Vec<crate::SeasonRow>, StoreError> {
            self.up()?;
            self.inner.seasons(league)
        }
    }

    struct FlakyWriter<'a> {
        inner: Box<dyn Writer + 'a>,
        cut: &'a AtomicU8,
    }

    impl Writer for FlakyWriter<'_> {
        fn append(&mut self, entries: &[LedgerEntry]) -> Result<Head, StoreError> {
            match self.cut.swap(WHOLE, Ordering::SeqCst) {
                BEFORE => Err(lost()),
                AFTER => {
                    self.inner.append(entries)?;
                    Err(lost())
                }
                FULL => Err(StoreError::from(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
                    Some("database or disk is full".into()),
                ))),
                _ => self.inner.append(entries),
            }
        }
        fn void(&mut self, entry: &LedgerEntry) -> Result<Head, StoreError> {
            self.inner.void(entry)
        }
        fn correct(&mut self, old: &LedgerEntry, new: &LedgerEntry) -> Result<Head, StoreError> {
            self.inner.correct(old, new)
        }
        fn configure(
            &mut self,
            old: &LeagueRow,
            name: &str,
            system: &str,
            config: &Settings,
        ) -> Result<Head, StoreError> {
            self.inner.configure(old, name, system, config)
        }
        fn start_season(&mut self, season: &crate::SeasonRow) -> Result<Head, StoreError> {
            self.inner.start_season(season)
        }
    }

    fn game(id: &str, places: &[(&str, u32)]) -> Submission {
        Submission {
            id: Some(id.to_string()),
            match_id: None,
            time: None,
            results: places
                .iter()
                .map(|(p, r)| LedgerResult {
                    player: (*p).to_string(),
                    rank: Some(f64::from(*r)),
                    ..LedgerResult::default()
                })
                .collect(),
        }
    }

    fn assert_same_board(a: &[BoardRow], b: &[BoardRow]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert_eq!((&x.player, x.games), (&y.player, y.games));
            assert!((x.rating - y.rating).abs() < 1e-9, "{x:?} {y:?}");
        }
    }

    /// A commit cut by a lost connection may or may not have happened: the league keeps
    /// its ratings (it is neither failed nor rebuilt), answers "unavailable" meanwhile,
    /// and once the ledger answers it is read again from it, with the match (cut after
    /// the commit: a retry is a duplicate) or without (cut before: a retry stores it).
    #[test]
    fn a_commit_cut_by_a_lost_connection_keeps_the_league_and_reads_the_ledger_again() {
        let flaky = Flaky::new();
        let store: Arc<dyn Store> = flaky.clone();
        let leagues = Leagues::open(store.clone(), Options::default()).unwrap();
        let (info, _) = leagues
            .create_league(&NewLeague {
                name: "cut".into(),
                system: "elo".into(),
                config: Settings::new(),
            })
            .unwrap();
        let id = info.id;
        let names = ["ann", "bob", "cy", "dee"];
        for i in 0..20 {
            let (a, b) = (names[i % 4], names[(i + 1 + i % 3) % 4]);
            let sub = game(&format!("g{i}"), &[(a, 1), (b, 2)]);
            assert_eq!(
                leagues.append(id, sub).unwrap().status,
                SubmitStatus::Created
            );
        }
        for (cut, key, retried) in [
            (BEFORE, "cut-before", SubmitStatus::Created),
            (AFTER, "cut-after", SubmitStatus::Duplicate),
        ] {
            let sub = game(key, &[("dee", 1), ("ann", 2)]);
            flaky.cut.store(cut, Ordering::SeqCst);
            let e = leagues.append(id, sub.clone()).unwrap_err();
            assert!(e.is_transient(), "{e}");
            // Not failed, not shown with a match that may not be stored.
            let e = leagues.leaderboard(id).unwrap_err();
            assert!(e.is_transient(), "{e}");
            assert!(leagues.loading().is_empty());
            leagues.refresh(id).unwrap();
            let fresh = Leagues::open_loaded(store.clone(), Options::default()).unwrap();
            assert_same_board(
                &leagues.leaderboard(id).unwrap(),
                &fresh.leaderboard(id).unwrap(),
            );
            let stored = leagues.ledger(id).unwrap().iter().any(|e| e.key == key);
            assert_eq!(stored, cut == AFTER);
            assert_eq!(leagues.append(id, sub).unwrap().status, retried);
        }
        let fresh = Leagues::open_loaded(store, Options::default()).unwrap();
        let board = leagues.leaderboard(id).unwrap();
        assert_same_board(&board, &fresh.leaderboard(id).unwrap());
        assert_eq!(board.iter().map(|r| r.games).sum::<u32>(), 2 * 22);
    }

    /// A PostgreSQL restart made a busy league answer 500 ("could not be loaded: db
    /// error") and then rate its whole ledger again: a catch-up that meets the database
    /// out of reach now leaves the league as it was, still served, and once the database
    /// answers it catches up with only what is new.
    #[test]
    fn a_lost_connection_while_catching_up_keeps_the_league_without_reloading_it() {
        let flaky = Flaky::new();
        let store: Arc<dyn Store> = flaky.clone();
        let leagues = Leagues::open(store.clone(), Options::default()).unwrap();
        let (info, _) = leagues
            .create_league(&NewLeague {
                name: "restart".into(),
                system: "elo".into(),
                config: Settings::new(),
            })
            .unwrap();
        let id = info.id;
        for i in 0..10 {
            let sub = game(&format!("g{i}"), &[("ann", 1 + i % 2), ("bob", 2 - i % 2)]);
            leagues.append(id, sub).unwrap();
        }
        // Another server on the same ledger.
        let other_store: Arc<dyn Store> =
            Arc::new(SqliteStore::open_shared(flaky.inner.path()).unwrap());
        let other = Leagues::open_loaded(other_store, Options::default()).unwrap();
        other
            .append(id, game("elsewhere", &[("cy", 1), ("ann", 2)]))
            .unwrap();
        let before = leagues.leaderboard(id).unwrap();
        let whole = flaky.whole_scans.load(Ordering::SeqCst);

        flaky.down.store(true, Ordering::SeqCst);
        for _ in 0..3 {
            let e = leagues.refresh(id).unwrap_err();
            assert!(e.is_transient(), "{e}");
            // Still served as it was: not failed, not loading.
            assert_same_board(&leagues.leaderboard(id).unwrap(), &before);
            assert!(leagues.loading().is_empty());
            let e = leagues.append(id, game("meanwhile", &[("bob", 1), ("cy", 2)]));
            assert!(e.unwrap_err().is_transient());
        }
        flaky.down.store(false, Ordering::SeqCst);
        leagues.refresh(id).unwrap();
        let after = leagues.leaderboard(id).unwrap();
        assert_same_board(&after, &other.leaderboard(id).unwrap());
        assert_eq!(after.iter().map(|r| r.games).sum::<u32>(), 2 * 11);
        // Caught up with the one new match; the ledger was not read whole again.
        assert_eq!(flaky.whole_scans.load(Ordering::SeqCst), whole);
    }

    /// A full disk is no corruption: every submission of the batch that met it answers
    /// the full disk (not "inconsistent"), nothing is stored, and once there is room the
    /// same batch is stored.
    #[test]
    fn a_full_disk_answers_every_submission_of_the_batch_with_it() {
        let flaky = Flaky::new();
        let leagues = Leagues::open_loaded(flaky.clone(), Options::default()).unwrap();
        let (info, _) = leagues
            .create_league(&NewLeague {
                name: "full".into(),
                system: "elo".into(),
                config: Settings::new(),
            })
            .unwrap();
        let id = info.id;
        let batch: Vec<Submission> = (0..3)
            .map(|i| game(&format!("g{i}"), &[("ann", 1), ("bob", 2)]))
            .collect();
        flaky.cut.store(FULL, Ordering::SeqCst);
        let answers = leagues.append_batch(id, batch.clone()).unwrap();
        assert_eq!(answers.len(), 3);
        for a in answers {
            let e = a.unwrap_err();
            assert!(matches!(e, StoreError::Full { .. }), "{e:?}");
            assert_eq!(
                e.to_string(),
                "the database's disk is full: database or disk is full"
            );
            assert!(!e.is_client_error() && !e.is_transient());
        }
        assert!(leagues.ledger(id).unwrap().is_empty());
        assert!(leagues.leaderboard(id).unwrap().is_empty());
        let answers = leagues.append_batch(id, batch).unwrap();
        assert!(answers
            .iter()
            .all(|a| a.as_ref().unwrap().status == SubmitStatus::Created));
        assert_eq!(leagues.ledger(id).unwrap().len(), 3);
    }

    /// A league's name counted its bytes against a limit said in characters: 150 `é`
    /// (300 bytes) were refused as over 200 characters. It counts characters, on
    /// creation and on a rename alike.
    #[test]
    fn a_league_name_is_counted_in_characters() {
        let leagues = Leagues::open_loaded(
            Arc::new(SqliteStore::temporary().unwrap()),
            Options::default(),
        )
        .unwrap();
        let new = |name: String| NewLeague {
            name,
            system: "elo".into(),
            config: Settings::new(),
        };
        let (info, _) = leagues.create_league(&new("é".repeat(200))).unwrap();
        assert_eq!(info.name.chars().count(), 200);
        let e = leagues.create_league(&new("ü".repeat(201))).unwrap_err();
        assert!(matches!(e, StoreError::InvalidLeague { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!("invalid league: name {} is not valid, expected 1 to 200 characters without control characters", quote(&"ü".repeat(201)))
        );
        let renamed = leagues
            .configure(info.id, Some(format!(" {} ", "ö".repeat(200))), None, None)
            .unwrap();
        assert_eq!(renamed.name, "ö".repeat(200));
        let e = leagues
            .configure(info.id, Some("ö".repeat(201)), None, None)
            .unwrap_err();
        assert!(matches!(e, StoreError::InvalidLeague { .. }), "{e:?}");
        assert_eq!(leagues.league(info.id).unwrap().name, "ö".repeat(200));
    }

    /// League names took control characters, which player ids and match ids refuse:
    /// refused alike, on creation and on a rename, and nothing changes.
    #[test]
    fn a_league_name_with_a_control_character_is_refused() {
        let leagues = Leagues::open_loaded(
            Arc::new(SqliteStore::temporary().unwrap()),
            Options::default(),
        )
        .unwrap();
        let new = |name: &str| NewLeague {
            name: name.into(),
            system: "elo".into(),
            config: Settings::new(),
        };
        for name in ["nul\0x", "ctl\u{7}x", "tab\tx", "del\u{7f}x", "c1\u{85}x"] {
            let e = leagues.create_league(&new(name)).unwrap_err();
            assert!(matches!(e, StoreError::InvalidLeague { .. }), "{e:?}");
            assert_eq!(
                e.to_string(),
                format!("invalid league: name {name:?} is not valid, expected 1 to 200 characters without control characters")
            );
        }
        assert!(leagues.leagues().is_empty());
        let (info, _) = leagues.create_league(&new(" Thursday ")).unwrap();
        assert_eq!(info.name, "Thursday");
        let e = leagues
            .configure(info.id, Some("Thurs\u{0}day".into()), None, None)
            .unwrap_err();
        assert!(matches!(e, StoreError::InvalidLeague { .. }), "{e:?}");
        assert_eq!(leagues.league(info.id).unwrap().name, "Thursday");
    }

    /// A failure copied for the other submissions of a batch keeps its kind where it can.
    #[test]
    fn a_batch_failure_is_told_again_of_its_own_kind() {
        let sqlite = StoreError::from(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_IOERR),
            Some("disk I/O error".into()),
        ));
        assert!(matches!(sqlite.again(), StoreError::Sqlite(_)));
        assert_eq!(sqlite.again().to_string(), sqlite.to_string());
        let other = StoreError::LeagueNotFound { league: 4 };
        let again = other.again();
        assert!(matches!(&again, StoreError::Failed { message } if message == "no league 4"));
        assert_eq!(
            again.to_string(),
            "the batch this match was part of failed: no league 4"
        );
    }
}
