//! The ratings derived from a ledger: a [`podium::League`] fed the ledger's matches in
//! rating order, each match's changes, each player's history, and checkpoints to rate
//! again from.
//!
//! A change to a past match (a void, a correction, a timed match entered before later
//! ones) is rated again from the last **checkpoint** before it, not from the start: a
//! checkpoint is a copy of the league (`League: Clone`) after a number of matches, taken
//! every [`Checkpoints::every`] matches. The new ratings of the matches after the
//! checkpoint are computed apart (a [`Tail`], from a copy of the checkpoint, while readers
//! keep reading the current state) and then put in place of the old ones
//! ([`Derived::splice`]), which costs only as much as the matches rated again.
//!
//! **Seasons** ([`SeasonRow`]): before the first match at or after a season's start, and
//! at the end of the ledger for a season that has no match yet, the league is reset
//! ([`League::new_season`]) and the final board of the season that ends is kept
//! ([`Derived::archived`]), with every player's rating just after the reset (which a
//! player's page lists, [`PlayerHistory::seasons`]). A tail rated again from a
//! checkpoint applies the resets at the same starts, so a change to a match of an old
//! season recomputes that season's board and every later one; the boards of seasons that
//! ended before the checkpoint are kept as they are. The live board lists the players who
//! played in the current season.

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, OnceLock};

use podium::{League, Match, RatingSystem};
use rayon::prelude::*;

use crate::error::StoreError;
use crate::types::{
    BoardJson, BoardRow, ChangeRow, FactorChange, FactorRow, HistoryRow, LedgerEntry,
    PlayerHistory, Position, SeasonReset, SeasonRow,
};

/// The seasons of a league after its first, in order of their starts.
pub type Seasons = Arc<Vec<SeasonRow>>;

/// A season's final board: every player who played in it, in the default order.
pub type Archived = Arc<Vec<BoardRow>>;

/// The board of the season `league` is in: the players who played in it (games > 0), in
/// the default order.
fn season_board(league: &League) -> Archived {
    let order = podium::Order::default();
    let mut places: Vec<Place> = (0..league.players().len())
        .filter(|&i| league.player(i).stats.games > 0)
        .map(|i| Place::of(league, i, order))
        .collect();
    places.sort_unstable();
    Arc::new(
        places
            .iter()
            .enumerate()
            .map(|(k, p)| board_row(league, k + 1, p.index, None))
            .collect(),
    )
}

/// What crossing a season's start leaves: the final board of the season that ends and
/// every player's rating just after the reset, by league index.
#[derive(Debug, Clone)]
struct Ended {
    board: Archived,
    reset: Arc<[podium::Rating]>,
}

/// Resets `league` at every season start from `seasons[*season]` on that is at or
/// before `until` (every one for `None`), keeping each ending season's board and the
/// ratings after the reset in `archive`.
fn cross(
    league: &mut League,
    seasons: &[SeasonRow],
    season: &mut usize,
    archive: &mut Vec<Ended>,
    until: Option<Position>,
) -> Result<bool, StoreError> {
    let mut crossed = false;
    while let Some(s) = seasons.get(*season) {
        if until.is_some_and(|p| p < s.start) {
            break;
        }
        let next = league
            .new_season(&s.reset)
            .map_err(|source| StoreError::Reset {
                season: s.number,
                source,
            })?;
        archive.push(Ended {
            board: season_board(league),
            reset: (0..next.players().len()).map(|i| next.current(i)).collect(),
        });
        *league = next;
        *season += 1;
        crossed = true;
    }
    Ok(crossed)
}

/// A player's row of a board of `league`: with `rating`, the rating they are reported
/// with now ([`League::current`], computed when `None`).
fn board_row(
    league: &League,
    position: usize,
    index: usize,
    rating: Option<podium::Rating>,
) -> BoardRow {
    let p = league.player(index);
    let rating = rating.unwrap_or_else(|| league.current(index));
    let system = league.system();
    let s = &p.stats;
    BoardRow {
        position,
        player: p.name.clone(),
        rating: rating.value,
        sigma: if system.capabilities().has_uncertainty {
            rating.sigma
        } else {
            None
        },
        games: s.games,
        wins: s.wins,
        avg_size: s.average_size(),
        win_pct: s.win_pct(),
        expected_win_pct: s.expected_win_pct(),
        net_pct: s.win_pct() - s.expected_win_pct(),
        last_played: s.last_time.map(podium_io::format_time),
        provisional: system.is_provisional(&rating),
    }
}

/// One rated match.
#[derive(Debug, Clone)]
struct Rated {
    key: String,
    seq: i64,
    time: Option<i64>,
    entries: usize,
    /// `(player index, place, change)` in the match's player order.
    changes: Vec<(usize, usize, podium::PlayerChange)>,
    /// `(factor index, change)` in [`Match::factors`] order (empty for a match without
    /// factors).
    factors: Vec<(usize, podium::PlayerChange)>,
    /// For each change, the positions in `factors` of the factors its entry carries
    /// (empty for a match without factors).
    carried: Box<[Box<[u32]>]>,
}

impl Rated {
    fn position(&self) -> Position {
        Position {
            time: self.time,
            seq: self.seq,
        }
    }
}

/// Rates one match of the ledger in `league`, whose last match so far has a time or not
/// as `timed` says (`None`: no match yet). Nothing changes if it fails.
///
/// A league may start without times and take dated matches later (undated matches are
/// rated first and age nobody: a player's clock starts at their first dated match); once
/// it has a dated match, every later match needs a time, or it would be rated before
/// the dated ones.
///
/// A match whose entries carry factors is refused by a system that does not rate them,
/// even when every entry carries the same factor (which the library would rate as if it
/// were not there): a league records factors only where they are rated.
fn rate(
    league: &mut League,
    timed: Option<bool>,
    entry: &LedgerEntry,
    game: &Match,
) -> Result<Rated, StoreError> {
    let has_time = game.time().is_some();
    if timed == Some(true) && !has_time {
        return Err(StoreError::TimeMismatch {
            key: entry.key.clone(),
            has_time,
        });
    }
    let refused = |source| StoreError::Rate {
        key: entry.key.clone(),
        source,
    };
    if game.has_factors() && !league.system().capabilities().rates_factors {
        return Err(refused(podium::RateError::FactorsUnsupported {
            system: league.system().name(),
        }));
    }
    let report = league.apply(game).map_err(refused)?;
    let carried = if game.factors().is_empty() {
        Box::default()
    } else {
        // Each entry's factors, in one pass over the factors' entries (a contest of
        // thousands with a factor per country stays linear).
        let mut by_entry: Vec<Vec<u32>> = vec![Vec::new(); game.len()];
        for (j, f) in (0u32..).zip(game.factors()) {
            for &e in &f.entries {
                by_entry[e].push(j);
            }
        }
        game.players()
            .map(|(e, _)| by_entry[e].as_slice().into())
            .collect()
    };
    let places = game.players().map(|(e, _)| game.place(e));
    let changes = report
        .changes
        .into_iter()
        .zip(places)
        .map(|((i, c), place)| (i, place, c))
        .collect();
    Ok(Rated {
        key: entry.key.clone(),
        seq: entry.seq,
        time: game.time(),
        entries: game.len(),
        changes,
        factors: report.factors,
        carried,
    })
}

/// A player's place in one of the board's orders ([`podium::Order`]): tier ascending, then
/// rating descending, then name ascending.
#[derive(Debug, Clone)]
struct Place {
    /// In the established order, 1 for a player whose rating is provisional (they come
    /// after every other), else 0; always 0 in the rating order.
    tier: u8,
    /// The player's rating when the place was taken.
    rating: f64,
    /// The player's id: names are unique, so no two places are equal.
    name: String,
    /// The player's index in the league; rides along, never decides the order.
    index: usize,
}

impl Place {
    /// Where player `index` of `league` stands now in `order` (their rating as the
    /// system reads it now, [`League::current`]).
    fn of(league: &League, index: usize, order: podium::Order) -> Self {
        let p = league.player(index);
        let rating = league.current(index);
        let tier = match order {
            podium::Order::Established => u8::from(league.system().is_provisional(&rating)),
            podium::Order::Rating => 0,
        };
        Place {
            tier,
            rating: rating.value,
            name: p.name.clone(),
            index,
        }
    }

    /// Where player `index` stands now in each order, in [`podium::Order::ALL`] order.
    fn both(league: &League, index: usize) -> [Self; 2] {
        podium::Order::ALL.map(|o| Place::of(league, index, o))
    }
}

impl PartialEq for Place {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Place {}
impl PartialOrd for Place {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Place {
    fn cmp(&self, other: &Self) -> Ordering {
        self.tier
            .cmp(&other.tier)
            .then_with(|| other.rating.total_cmp(&self.rating))
            .then_with(|| self.name.cmp(&other.name))
    }
}

/// How often a league's state is kept to rate again from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoints {
    /// A checkpoint after every this many rated matches (0: none; every change to a past
    /// match is then rated again from the start).
    pub every: usize,
    /// The most checkpoints kept per league. When there are more, older ones go first:
    /// near the end of a long ledger checkpoints stay [`Checkpoints::every`] matches
    /// apart, further back they are spread out, and the newest is always kept.
    pub keep: usize,
}

impl Checkpoints {
    /// Which of checkpoints taken after `counts` matches (increasing, more than
    /// [`Checkpoints::keep`] of them) to drop: the one whose removal leaves the smallest
    /// gap for its distance from the newest (the older on ties), so checkpoints stay
    /// every [`Checkpoints::every`] matches near the end of the ledger, where corrections
    /// mostly are, and further apart the older they are. Never the newest.
    fn which_to_drop(&self, counts: &[usize]) -> usize {
        let newest = counts[counts.len() - 1];
        let cost = |k: usize| {
            let before = if k == 0 { 0 } else { counts[k - 1] };
            let gap = counts[k + 1] - before;
            gap as f64 / (newest - counts[k] + self.every.max(1)) as f64
        };
        (0..counts.len() - 1)
            .min_by(|&a, &b| cost(a).total_cmp(&cost(b)))
            .expect("at least two checkpoints")
    }

    /// The checkpoints a ledger of `total` matches, rated from the start, ends up with:
    /// a replay takes only those (copying the league costs as much as its players).
    #[must_use]
    pub fn kept_of(&self, total: usize) -> Vec<usize> {
        let mut counts = Vec::new();
        if self.every == 0 {
            return counts;
        }
        for count in (self.every..=total).step_by(self.every) {
            counts.push(count);
            while counts.len() > self.keep.max(1) {
                let k = self.which_to_drop(&counts);
                counts.remove(k);
            }
        }
        counts
    }
}

impl Default for Checkpoints {
    fn default() -> Self {
        Checkpoints {
            every: 10_000,
            keep: 16,
        }
    }
}

/// The league after its first `count` rated matches.
#[derive(Debug, Clone)]
struct Checkpoint {
    count: usize,
    league: Arc<League>,
    /// Season starts crossed by then.
    season: usize,
}

/// Where a player's row is in the last JSON made, and the rating it shows.
#[derive(Debug, Clone)]
struct Span {
    bytes: Range<usize>,
    /// The bits of the rating's value and σ in the row: a system that learns may report
    /// another rating without the player playing, and the row is then written again.
    value: u64,
    sigma: Option<u64>,
    /// Where the rating's number starts in the row (after `"rating":`), and where the
    /// fields after the rating and σ start (`,"games":`), from the row's start: a row
    /// whose only change is its rating is written from its old bytes around them.
    rating_at: u32,
    rest_at: u32,
    /// The row's `provisional`.
    provisional: bool,
}

impl Span {
    /// Whether the row was made with `rating`.
    fn shows(&self, rating: &podium::Rating) -> bool {
        self.value == rating.value.to_bits() && self.sigma == rating.sigma.map(f64::to_bits)
    }

    /// A row made (`row`, from `"player"` to its `}`, at `start` of the JSON) with
    /// `rating`, which shows `provisional`.
    fn of(row: &[u8], start: usize, rating: &podium::Rating, provisional: bool) -> Span {
        let find = |what: &[u8], from: usize| {
            row[from..]
                .windows(what.len())
                .position(|w| w == what)
                .map_or(row.len(), |at| from + at)
        };
        // A name is a JSON string, in which a quote is escaped: `,"rating":` cannot be
        // part of it.
        let rating_at = find(b",\"rating\":", 0) + b",\"rating\":".len();
        let rest_at = find(b",\"games\":", rating_at.min(row.len()));
        Span {
            bytes: start..start + row.len(),
            value: rating.value.to_bits(),
            sigma: rating.sigma.map(f64::to_bits),
            rating_at: u32::try_from(rating_at).unwrap_or(u32::MAX),
            rest_at: u32::try_from(rest_at).unwrap_or(u32::MAX),
            provisional,
        }
    }
}

/// The serialised full leaderboard and what the next one reuses of it.
#[derive(Debug, Default)]
struct BoardCache {
    /// The whole leaderboard as JSON while it is current.
    json: Option<BoardJson>,
    /// The last JSON made (current or not), and where each player's row is in it after
    /// its position (`"player":…}`), by league index; `None` once the player has played
    /// since. The next board copies unchanged rows from it, in nearly the same order,
    /// and serialises only the rows of players who played since or whose reported
    /// rating changed.
    last: Option<Arc<Vec<u8>>>,
    spans: Vec<Option<Span>>,
    /// The JSON before `last`, whose buffer the next board reuses if no reader holds it
    /// any more (a fresh 20 MB buffer costs more in page faults than filling it).
    spare: Option<Arc<Vec<u8>>>,
}

impl BoardCache {
    /// Player `index`'s row has changed.
    fn forget(&mut self, index: usize) {
        if let Some(span) = self.spans.get_mut(index) {
            *span = None;
        }
    }
}

/// The state derived from a league's ledger.
#[derive(Debug)]
pub struct Derived {
    league: League,
    /// The rated matches in rating order.
    rated: Vec<Rated>,
    by_key: HashMap<String, usize>,
    /// For each player (league index), the indices of their matches in `rated`.
    games: Vec<Vec<u32>>,
    /// For a system that does not learn ([`League::learned`]): every player in each
    /// board order ([`podium::Order::ALL`]), kept up to date match by match, so that a page
    /// of the leaderboard never needs a sort. Empty for a system that learns.
    orders: [BTreeSet<Place>; 2],
    /// For a system that learns, whose every match may change any player's reported
    /// rating: each board order as of the current state, sorted on the first read after
    /// a change (a batch of matches costs one sort, and only if the board is read).
    sorted: [OnceLock<Vec<Standing>>; 2],
    policy: Checkpoints,
    /// In increasing `count`, all below `rated.len()` or equal to it.
    checkpoints: Vec<Checkpoint>,
    /// The JSON of each board order, behind a lock of its own so that readers holding
    /// the state shared can make it.
    cache: [Mutex<BoardCache>; 2],
    /// The seasons after the first, the number of their starts crossed (the league is in
    /// season `season + 1`), and the final board of each season that ended with the
    /// ratings after its reset.
    seasons: Seasons,
    season: usize,
    archive: Vec<Ended>,
    /// For a state restored from saved ratings ([`Derived::from_restored`]): the rated
    /// matches before `rated[0]`, known only through the league restored (0 for a state
    /// rated from the start).
    restored: usize,
}

/// A state of a league to keep in the store ([`Derived::newest_checkpoint`],
/// [`Derived::at_end`]): the league after its first `count` rated matches.
#[derive(Debug, Clone)]
pub struct Saveable {
    /// How many rated matches it covers.
    pub count: usize,
    /// The league after them.
    pub league: Arc<League>,
    /// Where the last of them stands.
    pub last: Option<Position>,
    /// How many season starts it had crossed.
    pub season: usize,
}

/// A player's place in a board order sorted for a system that learns: [`Place`] without
/// the name, which is read from the league only to break an exact tie (a sort of 100,000
/// players then copies no names), and with the whole rating the player is reported with,
/// which the board's rows reuse.
#[derive(Debug, Clone, Copy)]
struct Standing {
    tier: u8,
    rating: podium::Rating,
    index: usize,
}

impl Standing {
    /// Where player `index` of `league` stands now in `order` ([`Place::of`]).
    fn of(league: &League, index: usize, order: podium::Order) -> Self {
        let rating = league.current(index);
        let tier = match order {
            podium::Order::Established => u8::from(league.system().is_provisional(&rating)),
            podium::Order::Rating => 0,
        };
        Standing {
            tier,
            rating,
            index,
        }
    }

    /// Its order against `place`, as [`Place`]'s: tier, rating descending, name.
    fn cmp_place(&self, league: &League, place: &Place) -> Ordering {
        self.tier
            .cmp(&place.tier)
            .then_with(|| place.rating.total_cmp(&self.rating.value))
            .then_with(|| league.player(self.index).name.cmp(&place.name))
    }
}

/// The players in one board order, best first.
enum Ordered<'a> {
    Kept(&'a BTreeSet<Place>),
    Sorted(&'a League, &'a [Standing]),
}

impl<'a> Ordered<'a> {
    fn len(&self) -> usize {
        match self {
            Ordered::Kept(set) => set.len(),
            Ordered::Sorted(_, v) => v.len(),
        }
    }

    /// The players from `offset` on, each as its league index and, in a sorted order, the
    /// rating it is reported with (O(offset) for a kept order, O(1) for a sorted one).
    fn starting_at(
        &self,
        offset: usize,
    ) -> Box<dyn Iterator<Item = (usize, Option<podium::Rating>)> + 'a> {
        match *self {
            Ordered::Kept(set) => Box::new(set.iter().skip(offset).map(|p| (p.index, None))),
            Ordered::Sorted(_, v) => Box::new(
                v.get(offset..)
                    .unwrap_or_default()
                    .iter()
                    .map(|s| (s.index, Some(s.rating))),
            ),
        }
    }

    /// How many places come before `place`.
    fn before(&self, place: &Place) -> usize {
        match *self {
            Ordered::Kept(set) => set.range(..place).count(),
            Ordered::Sorted(league, v) => {
                v.partition_point(|s| s.cmp_place(league, place) == Ordering::Less)
            }
        }
    }
}

/// A chunk of the board's JSON rows, and where each player's row is in it.
type RowChunk = (Vec<u8>, Vec<(usize, Span)>);

/// Rows of the board's JSON made by one task: a chunk is a few hundred microseconds of
/// work, and a board of 100,000 players is 25 of them.
const BOARD_CHUNK: usize = 4_096;

/// Versions of boards, unique over every league of the process: a replay starts a new
/// `Derived` whose boards must not share a version with the one it replaces.
static NEXT_VERSION: AtomicU64 = AtomicU64::new(1);

fn next_version() -> u64 {
    NEXT_VERSION.fetch_add(1, AtomicOrdering::Relaxed)
}

/// `n` in decimal, written into the end of `buf`.
fn decimal(mut n: usize, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[at..];
        }
    }
}

/// The order matches are rated in: by time (stable by ledger position) when they have
/// times, as `podium rate` does, else by ledger position.
pub(crate) fn rating_order(entries: &mut [LedgerEntry]) {
    entries.sort_by_key(LedgerEntry::position);
}

/// Rates a ledger from scratch: the fresh replay that a store's ratings must equal.
/// Voided entries are skipped; the others are rated in rating order.
///
/// # Errors
/// [`StoreError::Rate`] naming the first match the system refuses, or
/// [`StoreError::InvalidMatch`] for a stored match that no longer validates.
pub fn replay(
    system: Box<dyn RatingSystem>,
    entries: &[LedgerEntry],
) -> Result<Derived, StoreError> {
    replay_seasons(system, entries, &[])
}

/// [`replay`] with seasons: the league reset at each season's start.
///
/// # Errors
/// As [`replay`], or [`StoreError::Reset`] for a reset the system refuses.
pub fn replay_seasons(
    system: Box<dyn RatingSystem>,
    entries: &[LedgerEntry],
    seasons: &[SeasonRow],
) -> Result<Derived, StoreError> {
    let mut entries: Vec<LedgerEntry> = entries.iter().filter(|e| !e.voided).cloned().collect();
    rating_order(&mut entries);
    let base = Base::empty(Arc::from(system)).with_seasons(Arc::new(seasons.to_vec()));
    let mut tail = Tail::new(base, Checkpoints::default());
    for e in &entries {
        tail.push(e)?;
    }
    Derived::from_tail(tail, Checkpoints::default())
}

pub(crate) fn to_match(e: &LedgerEntry) -> Result<Match, StoreError> {
    e.json.to_match()
}

/// Where a [`Tail`] starts: the league after the first `count` rated matches.
#[derive(Debug)]
pub struct Base {
    count: usize,
    league: Arc<League>,
    /// The position of the last of those matches (`None` for none).
    after: Option<Position>,
    timed: Option<bool>,
    seasons: Seasons,
    season: usize,
}

impl Base {
    /// The same base with the league's seasons (for a base from the start; one of a
    /// [`Derived`] has its seasons already).
    #[must_use]
    pub fn with_seasons(mut self, seasons: Seasons) -> Self {
        self.seasons = seasons;
        self
    }

    /// After the first `count` rated matches, the last at `last`, as `league` (restored
    /// from saved ratings) stands after them, `season` of `seasons`' starts crossed.
    #[must_use]
    pub fn restored(
        league: League,
        count: usize,
        last: Option<Position>,
        seasons: Seasons,
        season: usize,
    ) -> Self {
        Base {
            count,
            league: Arc::new(league),
            after: last,
            timed: last.map(|p| p.time.is_some()),
            seasons,
            season,
        }
    }

    /// Before the first match, in a league rated by `system`.
    #[must_use]
    pub fn empty(system: Arc<dyn RatingSystem>) -> Self {
        Base {
            count: 0,
            league: Arc::new(League::shared(system)),
            after: None,
            timed: None,
            seasons: Seasons::default(),
            season: 0,
        }
    }

    /// The position of the last match it includes: a tail rates the matches after it.
    #[must_use]
    pub fn after(&self) -> Option<Position> {
        self.after
    }

    /// How many rated matches it includes.
    #[must_use]
    pub fn count(&self) -> usize {
        self.count
    }
}

/// The ratings of the matches after a [`Base`], computed apart from the state they will
/// replace (so that readers keep the current state meanwhile), then put in place by
/// [`Derived::splice`].
#[derive(Debug)]
pub struct Tail {
    base: usize,
    base_players: usize,
    league: League,
    timed: Option<bool>,
    rated: Vec<Rated>,
    checkpoints: Vec<Checkpoint>,
    policy: Checkpoints,
    /// When known, the only counts to take checkpoints at (those that will be kept).
    only: Option<Vec<usize>>,
    seasons: Seasons,
    /// Season starts crossed before the tail, and by now.
    base_season: usize,
    season: usize,
    /// The final boards of the seasons that ended in the tail.
    archive: Vec<Ended>,
}

impl Tail {
    /// An empty tail after `base` (a copy of its league is made now).
    #[must_use]
    pub fn new(base: Base, policy: Checkpoints) -> Self {
        let league = Arc::try_unwrap(base.league).unwrap_or_else(|shared| (*shared).clone());
        Tail {
            base: base.count,
            base_players: league.players().len(),
            league,
            timed: base.timed,
            rated: Vec::new(),
            checkpoints: Vec::new(),
            policy,
            only: None,
            seasons: base.seasons,
            base_season: base.season,
            season: base.season,
            archive: Vec::new(),
        }
    }

    /// A tail from the start that expects about `total` matches: it takes only the
    /// checkpoints a ledger of that length keeps.
    #[must_use]
    pub fn expecting(mut self, total: usize) -> Self {
        if self.base == 0 {
            self.only = Some(self.policy.kept_of(total));
        }
        self
    }

    /// Rates the next match (matches come in rating order, voided ones left out).
    ///
    /// # Errors
    /// The match does not validate, or the system refuses it.
    pub fn push(&mut self, entry: &LedgerEntry) -> Result<(), StoreError> {
        self.push_observed(entry, |_, _| {})
    }

    /// [`Tail::push`], showing `observe` the match and the league it is rated in, as it
    /// stands before the match: after the reset of a season that starts at or before
    /// it, with the ratings of every earlier match.
    ///
    /// # Errors
    /// As [`Tail::push`] (`observe` has seen the match when the system refuses it).
    pub fn push_observed(
        &mut self,
        entry: &LedgerEntry,
        observe: impl FnOnce(&League, &Match),
    ) -> Result<(), StoreError> {
        let game = to_match(entry)?;
        cross(
            &mut self.league,
            &self.seasons,
            &mut self.season,
            &mut self.archive,
            Some(entry.position()),
        )?;
        observe(&self.league, &game);
        let r = rate(&mut self.league, self.timed, entry, &game)?;
        self.timed = Some(r.time.is_some());
        self.rated.push(r);
        let count = self.base + self.rated.len();
        let wanted = self
            .only
            .as_ref()
            .map_or(true, |only| only.binary_search(&count).is_ok());
        if self.policy.every > 0 && count % self.policy.every == 0 && wanted {
            self.checkpoints.push(Checkpoint {
                count,
                league: Arc::new(self.league.clone()),
                season: self.season,
            });
        }
        Ok(())
    }

    /// Matches rated.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rated.len()
    }

    /// Whether no match was rated.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rated.is_empty()
    }

    /// Whether it starts from nothing (and so replaces a state whole).
    #[must_use]
    pub fn is_whole(&self) -> bool {
        self.base == 0
    }
}

impl Derived {
    /// Empty state for a league rated by `system`.
    #[must_use]
    pub fn new(system: Box<dyn RatingSystem>, policy: Checkpoints) -> Self {
        Derived::from_league(League::new(system), policy)
    }

    fn from_league(league: League, policy: Checkpoints) -> Self {
        Derived {
            league,
            rated: Vec::new(),
            by_key: HashMap::new(),
            games: Vec::new(),
            orders: Default::default(),
            sorted: Default::default(),
            policy,
            checkpoints: Vec::new(),
            cache: Default::default(),
            seasons: Seasons::default(),
            season: 0,
            archive: Vec::new(),
            restored: 0,
        }
    }

    /// A state from a tail after a league restored from saved ratings ([`Base::restored`]):
    /// its league and board are those of the whole ledger, but only the tail's matches
    /// are known one by one, so a player's history, a match's changes, the seasons'
    /// matches and archived boards, checkpoints and rating again are not available
    /// ([`Derived::restored`] says how many matches are missing).
    ///
    /// # Errors
    /// [`StoreError::Reset`]: the reset of a season that has no match yet is refused.
    pub fn from_restored(tail: Tail, policy: Checkpoints) -> Result<Self, StoreError> {
        let mut d = Derived::from_league(tail.league, policy);
        d.restored = tail.base;
        d.season = tail.season;
        d.seasons = tail.seasons.clone();
        for r in tail.rated {
            d.record(r);
        }
        d.rebuild_orders();
        // Seasons started after the last match.
        d.start_seasons(tail.seasons)?;
        Ok(d)
    }

    /// How many rated matches are known only through a league restored from saved
    /// ratings ([`Derived::from_restored`]); 0 for a state rated from the start.
    #[must_use]
    pub fn restored(&self) -> usize {
        self.restored
    }

    /// The newest checkpoint, to keep in the store (`None` before the first).
    #[must_use]
    pub fn newest_checkpoint(&self) -> Option<Saveable> {
        if self.restored > 0 {
            return None;
        }
        let c = self.checkpoints.last()?;
        Some(Saveable {
            count: c.count,
            league: c.league.clone(),
            last: Some(self.rated[c.count - 1].position()),
            season: c.season,
        })
    }

    /// The current state, to keep in the store (a copy of the league); `None` for a
    /// restored state.
    #[must_use]
    pub fn at_end(&self) -> Option<Saveable> {
        if self.restored > 0 {
            return None;
        }
        Some(Saveable {
            count: self.rated.len(),
            league: Arc::new(self.league.clone()),
            last: self.last_position(),
            season: self.season,
        })
    }

    /// The whole state from a tail that starts from nothing.
    ///
    /// # Errors
    /// [`StoreError::Reset`]: the reset of a season that has no match yet is refused.
    ///
    /// # Panics
    /// If the tail does not start from nothing ([`Tail::is_whole`]).
    pub fn from_tail(tail: Tail, policy: Checkpoints) -> Result<Self, StoreError> {
        assert!(
            tail.is_whole(),
            "a whole state comes from a tail from nothing"
        );
        let mut d = Derived::from_league(League::shared(tail.league.system_arc()), policy);
        drop(d.splice(tail)?);
        Ok(d)
    }

    /// The seasons after the first.
    #[must_use]
    pub fn seasons(&self) -> &Seasons {
        &self.seasons
    }

    /// The season the league is in: 1 for the first, then the number of the last season
    /// started.
    #[must_use]
    pub fn season(&self) -> i64 {
        self.season
            .checked_sub(1)
            .map_or(1, |k| self.seasons[k].number)
    }

    /// The final board of a season that ended (1 for the first), if it did.
    #[must_use]
    pub fn archived(&self, number: i64) -> Option<Archived> {
        let k = if number == 1 {
            0
        } else {
            self.seasons.iter().position(|s| s.number == number)? + 1
        };
        self.archive.get(k).map(|e| e.board.clone())
    }

    /// The number of rated matches of each season, the first first.
    #[must_use]
    pub fn season_matches(&self) -> Vec<usize> {
        let mut at: Vec<usize> = self
            .seasons
            .iter()
            .map(|s| self.rated.partition_point(|r| r.position() < s.start))
            .collect();
        at.insert(0, 0);
        at.push(self.rated.len());
        at.windows(2).map(|w| w[1].saturating_sub(w[0])).collect()
    }

    /// Puts in the seasons of the league and the resets of those that start after the
    /// last rated match (a season that was just started).
    ///
    /// # Errors
    /// [`StoreError::Reset`] when the system refuses a reset (nothing changes then).
    pub fn start_seasons(&mut self, seasons: Seasons) -> Result<(), StoreError> {
        let first_new = self.season;
        if let Some(end) = self.rated.last().map(Rated::position) {
            assert!(
                seasons[first_new..].iter().all(|s| s.start > end),
                "a season starts after the matches rated"
            );
        }
        let mut league = self.league.clone();
        let mut season = self.season;
        let mut archive = Vec::new();
        if cross(&mut league, &seasons, &mut season, &mut archive, None)? {
            self.league = league;
            self.archive.extend(archive);
            self.season = season;
            self.rebuild_orders();
        }
        self.seasons = seasons;
        Ok(())
    }

    /// After a reset, every player's place and row is taken again: the board lists those
    /// who played in the season, at their ratings after the reset.
    fn rebuild_orders(&mut self) {
        for set in &mut self.orders {
            set.clear();
        }
        if !self.learns() {
            for i in 0..self.league.players().len() {
                if self.league.player(i).stats.games > 0 {
                    for (set, p) in self.orders.iter_mut().zip(Place::both(&self.league, i)) {
                        set.insert(p);
                    }
                }
            }
        }
        for sorted in &mut self.sorted {
            sorted.take();
        }
        for cache in &mut self.cache {
            *cache.get_mut().unwrap_or_else(|p| p.into_inner()) = BoardCache::default();
        }
    }

    /// The league with its players and ratings.
    #[must_use]
    pub fn league(&self) -> &League {
        &self.league
    }

    /// Rated matches.
    #[must_use]
    pub fn matches(&self) -> usize {
        self.restored + self.rated.len()
    }

    /// The checkpoints kept: after how many rated matches each was taken.
    #[must_use]
    pub fn checkpoints(&self) -> Vec<usize> {
        self.checkpoints.iter().map(|c| c.count).collect()
    }

    /// Whether the last rated match has a time (`None` before the first match): undated
    /// matches are rated before dated ones, so a league with a dated match ends with one.
    #[must_use]
    pub fn timed(&self) -> Option<bool> {
        self.rated.last().map(|r| r.time.is_some())
    }

    /// Whether a rated match other than `key` has a time (dated matches are rated after
    /// undated ones, so it is one of the last two).
    #[must_use]
    pub fn dated_besides(&self, key: &str) -> bool {
        let own = self.by_key.get(key).copied();
        self.rated
            .iter()
            .enumerate()
            .rev()
            .take(2)
            .any(|(i, r)| Some(i) != own && r.time.is_some())
    }

    /// Where the last rated match stands.
    #[must_use]
    pub fn last_position(&self) -> Option<Position> {
        self.rated.last().map(Rated::position)
    }

    /// Where a rated match stands, by id.
    #[must_use]
    pub fn position_of(&self, key: &str) -> Option<Position> {
        Some(self.rated[*self.by_key.get(key)?].position())
    }

    /// Whether a match at `time` would go after every rated match (so it can be rated in
    /// place rather than from a checkpoint).
    #[must_use]
    pub fn appends_at_end(&self, time: Option<i64>) -> bool {
        // A match dated before the current season's start belongs to an earlier season.
        if let Some(k) = self.season.checked_sub(1) {
            if let (Some(t), Some(start)) = (time, self.seasons[k].start.time) {
                if t < start {
                    return false;
                }
            }
        }
        match (time, self.rated.last().and_then(|r| r.time)) {
            (Some(t), Some(last)) => t >= last,
            _ => true,
        }
    }

    /// Where to rate again from so that every match at `from` or later is rated again:
    /// the last checkpoint before it (or the start). Cheap: the checkpoint is shared, a
    /// [`Tail`] copies it.
    #[must_use]
    pub fn base_before(&self, from: Position) -> Base {
        let index = self.rated.partition_point(|r| r.position() < from);
        match self.checkpoints.iter().rev().find(|c| c.count <= index) {
            Some(c) => Base {
                count: c.count,
                league: c.league.clone(),
                after: Some(self.rated[c.count - 1].position()),
                timed: self.timed(),
                seasons: self.seasons.clone(),
                season: c.season,
            },
            None => Base::empty(self.league.system_arc()).with_seasons(self.seasons.clone()),
        }
    }

    /// The current state as a base (a copy of the league: costs as much as its players).
    #[must_use]
    pub fn base_at_end(&self) -> Base {
        Base {
            count: self.rated.len(),
            league: Arc::new(self.league.clone()),
            after: self.rated.last().map(Rated::position),
            timed: self.timed(),
            seasons: self.seasons.clone(),
            season: self.season,
        }
    }

    /// Rates one more match at the end. Nothing changes if the system refuses it.
    ///
    /// # Errors
    /// [`StoreError::Rate`] or [`StoreError::TimeMismatch`].
    pub fn apply(&mut self, entry: &LedgerEntry, game: &Match) -> Result<(), StoreError> {
        let old: Vec<[Place; 2]> = if self.learns() {
            Vec::new()
        } else {
            game.players()
                .filter_map(|(_, m)| {
                    Some(Place::both(&self.league, self.league.index_of(&m.player)?))
                })
                .collect()
        };
        // After a season that started on a date, every match needs one (as after a dated
        // match): an undated one would be rated before the season.
        let dated_start = self
            .season
            .checked_sub(1)
            .is_some_and(|k| self.seasons[k].start.time.is_some());
        let timed = if dated_start {
            Some(true)
        } else {
            self.timed()
        };
        let r = rate(&mut self.league, timed, entry, game)?;
        for places in &old {
            for (set, p) in self.orders.iter_mut().zip(places) {
                set.remove(p);
            }
        }
        self.record(r);
        self.reread();
        let count = self.rated.len();
        if self.policy.every > 0 && count % self.policy.every == 0 {
            self.checkpoints.push(Checkpoint {
                count,
                league: Arc::new(self.league.clone()),
                season: self.season,
            });
            self.thin();
        }
        Ok(())
    }

    /// Whether the system learns from every match ([`League::learned`]), so that a match
    /// may move every player's reported rating (`kalman-mmr` reports the model the
    /// matches select, and an idle player's mean returns towards the newcomer prior).
    fn learns(&self) -> bool {
        self.league.learned().is_some()
    }

    /// Adds a rated match whose players' old places are already out of the orders.
    fn record(&mut self, r: Rated) {
        let index = self.rated.len() as u32;
        let learns = self.learns();
        for &(i, _, _) in &r.changes {
            if self.games.len() <= i {
                self.games.resize_with(i + 1, Vec::new);
            }
            self.games[i].push(index);
            if !learns {
                for (set, p) in self.orders.iter_mut().zip(Place::both(&self.league, i)) {
                    set.insert(p);
                }
            }
        }
        for cache in &mut self.cache {
            let cache = cache.get_mut().unwrap_or_else(|p| p.into_inner());
            for &(i, _, _) in &r.changes {
                cache.forget(i);
            }
            cache.json = None;
        }
        self.by_key.insert(r.key.clone(), self.rated.len());
        self.rated.push(r);
    }

    /// After a change, for a system that learns: the orders are sorted again when next
    /// read. The board's rows are checked then against each player's reported rating
    /// ([`Span`]). Nothing to do for other systems, whose orders are kept.
    fn reread(&mut self) {
        if !self.learns() {
            return;
        }
        for sorted in &mut self.sorted {
            sorted.take();
        }
        for cache in &mut self.cache {
            cache.get_mut().unwrap_or_else(|p| p.into_inner()).json = None;
        }
    }

    /// The players in `order`, best first: kept, or for a system that learns sorted now
    /// if the state changed since the last read.
    fn ordered(&self, order: podium::Order) -> Ordered<'_> {
        if !self.learns() {
            return Ordered::Kept(&self.orders[order as usize]);
        }
        let league = &self.league;
        Ordered::Sorted(
            league,
            self.sorted[order as usize].get_or_init(|| {
                let mut places: Vec<Standing> = (0..league.players().len())
                    .into_par_iter()
                    .filter(|&i| league.player(i).stats.games > 0)
                    .map(|i| Standing::of(league, i, order))
                    .collect();
                places.par_sort_unstable_by(|a, b| {
                    a.tier
                        .cmp(&b.tier)
                        .then_with(|| b.rating.value.total_cmp(&a.rating.value))
                        .then_with(|| {
                            league
                                .player(a.index)
                                .name
                                .cmp(&league.player(b.index).name)
                        })
                });
                places
            }),
        )
    }

    /// Drops checkpoints beyond [`Checkpoints::keep`], older ones first (see
    /// [`Checkpoints::kept_of`]).
    fn thin(&mut self) {
        while self.checkpoints.len() > self.policy.keep.max(1) {
            let counts: Vec<usize> = self.checkpoints.iter().map(|c| c.count).collect();
            let k = self.policy.which_to_drop(&counts);
            self.checkpoints.remove(k);
        }
    }

    /// Puts a tail in place of the matches rated after its base. Only the matches of the
    /// old and new tails and their players are touched. Returns what was replaced, to be
    /// dropped after the caller lets go of its lock.
    ///
    /// # Errors
    /// [`StoreError::Reset`]: the reset of a season started after the tail's last match
    /// is refused (the tail is in place then, the season's reset not applied).
    ///
    /// # Panics
    /// If the tail starts after the last rated match.
    pub fn splice(&mut self, mut tail: Tail) -> Result<Spliced, StoreError> {
        let base = tail.base;
        // Resets in the old or the new tail move every player: the orders are made again.
        let reset = self.season != tail.base_season || tail.season != tail.base_season;
        self.archive.truncate(tail.base_season);
        self.archive.append(&mut tail.archive);
        self.season = tail.season;
        self.seasons = tail.seasons.clone();
        assert!(base <= self.rated.len(), "a tail starts within the ledger");
        let old: Vec<Rated> = self.rated.drain(base..).collect();
        let mut touched: Vec<usize> = Vec::new();
        for r in &old {
            self.by_key.remove(&r.key);
            touched.extend(r.changes.iter().map(|&(i, _, _)| i));
        }
        touched.sort_unstable();
        touched.dedup();
        // Players of the base who play in the new tail only: their place moves too.
        let mut joining: Vec<usize> = tail
            .rated
            .iter()
            .flat_map(|r| r.changes.iter().map(|&(i, _, _)| i))
            .filter(|&i| i < tail.base_players && touched.binary_search(&i).is_err())
            .collect();
        joining.sort_unstable();
        joining.dedup();
        let learns = self.learns();
        if !learns {
            for &i in touched.iter().chain(&joining) {
                for (set, p) in self.orders.iter_mut().zip(Place::both(&self.league, i)) {
                    set.remove(&p);
                }
            }
        }
        for &i in &touched {
            if let Some(games) = self.games.get_mut(i) {
                while games.last().is_some_and(|&m| m as usize >= base) {
                    games.pop();
                }
            }
        }
        // Players first seen after the base may have other indices in the new league.
        self.games.truncate(tail.base_players);
        for cache in &mut self.cache {
            let cache = cache.get_mut().unwrap_or_else(|p| p.into_inner());
            for &i in &touched {
                cache.forget(i);
            }
            cache.spans.truncate(tail.base_players);
            cache.json = None;
        }
        let old_league = std::mem::replace(&mut self.league, tail.league);
        // The league is the tail's last state: each player's place is taken once, at
        // their final rating (places taken twice are equal and kept once).
        for r in tail.rated {
            self.record(r);
        }
        if !learns {
            for &i in &touched {
                if i < tail.base_players && self.league.player(i).stats.games > 0 {
                    for (set, p) in self.orders.iter_mut().zip(Place::both(&self.league, i)) {
                        set.insert(p);
                    }
                }
            }
        }
        self.reread();
        self.checkpoints.retain(|c| c.count <= base);
        self.checkpoints.extend(tail.checkpoints);
        self.policy = tail.policy;
        self.thin();
        if reset {
            self.rebuild_orders();
        }
        let spliced = Spliced {
            _rated: old,
            _league: old_league,
        };
        // Seasons started after the last match.
        let seasons = self.seasons.clone();
        self.start_seasons(seasons)?;
        Ok(spliced)
    }

    /// The changes a rated match made, in its player order.
    #[must_use]
    pub fn changes(&self, key: &str) -> Option<Vec<ChangeRow>> {
        let r = &self.rated[*self.by_key.get(key)?];
        Some(
            r.changes
                .iter()
                .map(|(i, place, c)| ChangeRow::new(&self.league.player(*i).name, *place, c))
                .collect(),
        )
    }

    /// The changes a rated match made to its factors, in [`Match::factors`] order (empty
    /// for a match without factors).
    #[must_use]
    pub fn factor_changes(&self, key: &str) -> Option<Vec<FactorChange>> {
        let r = &self.rated[*self.by_key.get(key)?];
        let factors = self.league.factors();
        Some(
            r.factors
                .iter()
                .map(|(i, c)| FactorChange::new(&factors[*i].factor, c))
                .collect(),
        )
    }

    /// The changes a rated match made to its players and to its factors (both empty for
    /// a match not rated).
    #[must_use]
    pub fn match_changes(&self, key: &str) -> (Vec<ChangeRow>, Vec<FactorChange>) {
        (
            self.changes(key).unwrap_or_default(),
            self.factor_changes(key).unwrap_or_default(),
        )
    }

    /// The factors' table: by kind (alphabetical), then best rated first.
    #[must_use]
    pub fn factor_table(&self) -> Vec<FactorRow> {
        let has_sigma = self.league.system().capabilities().has_uncertainty;
        self.league
            .factor_standings()
            .iter()
            .map(|f| FactorRow::new(f, has_sigma))
            .collect()
    }

    /// The whole leaderboard in the default order as JSON ([`Derived::board_json_in`]).
    pub fn board_json(&self) -> BoardJson {
        self.board_json_in(podium::Order::default())
    }

    /// The whole leaderboard in `order` as JSON: exactly
    /// `serde_json::to_vec(&self.compute_board_in(order))`, made once per change. Rows of
    /// players whose row has not changed since the last JSON was made are copied from
    /// it; only the others are serialised again.
    pub fn board_json_in(&self, order: podium::Order) -> BoardJson {
        let mut cache = self.cache[order as usize]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(j) = &cache.json {
            return j.clone();
        }
        let ordered = self.ordered(order);
        // Rows are ~200 bytes; sizing the buffer up front spares regrowing 20 MB.
        let wanted = 2 + ordered.len() * 240;
        let mut out = cache
            .spare
            .take()
            .and_then(|b| Arc::try_unwrap(b).ok())
            .unwrap_or_default();
        out.clear();
        out.reserve(wanted);
        let last = cache.last.take();
        let prev: &[u8] = last.as_deref().map_or(&[], Vec::as_slice);
        let mut spans = std::mem::take(&mut cache.spans);
        spans.resize(self.league.players().len(), None);
        out.push(b'[');
        // The rows are made in chunks on the machine's cores (a system that learns may
        // have to make every row again after a write), each chunk into a buffer of its
        // own, then copied into `out` in order.
        let players: Vec<(usize, Option<podium::Rating>)> = ordered.starting_at(0).collect();
        let old = &spans;
        let chunks: Vec<RowChunk> = players
            .par_chunks(BOARD_CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut out = Vec::with_capacity(chunk.len() * 240);
                let mut made = Vec::with_capacity(chunk.len());
                let mut digits = [0u8; 20];
                for (j, &(i, reported)) in chunk.iter().enumerate() {
                    let k = c * BOARD_CHUNK + j;
                    if k > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(b"{\"position\":");
                    out.extend_from_slice(decimal(k + 1, &mut digits));
                    out.push(b',');
                    let rating = reported.unwrap_or_else(|| self.league.current(i));
                    let start = out.len();
                    let span = match &old[i] {
                        Some(span) if span.shows(&rating) => {
                            out.extend_from_slice(&prev[span.bytes.clone()]);
                            Span {
                                bytes: start..out.len(),
                                ..span.clone()
                            }
                        }
                        Some(span) => self.row_into(&mut out, i, rating, Some((span, prev))),
                        None => self.row_into(&mut out, i, rating, None),
                    };
                    made.push((i, span));
                }
                (out, made)
            })
            .collect();
        for (bytes, made) in chunks {
            let base = out.len();
            out.extend_from_slice(&bytes);
            for (i, mut span) in made {
                span.bytes = base + span.bytes.start..base + span.bytes.end;
                spans[i] = Some(span);
            }
        }
        out.push(b']');
        cache.spans = spans;
        cache.spare = last;
        let out = Arc::new(out);
        cache.last = Some(out.clone());
        let json = BoardJson {
            json: out,
            rows: ordered.len(),
            version: next_version(),
        };
        cache.json = Some(json.clone());
        json
    }

    /// Player `index`'s row as JSON after its position, `"player":…}`, with `rating`,
    /// written at the end of `out`; and where it is. With `old`, the span of the player's
    /// row in the last JSON (`prev`), made when they had the same games and stats: if
    /// only the rating moved (the σ shown or not, `provisional` the same), the old bytes
    /// around the rating and σ are copied and only those numbers written, as
    /// `serde_json` writes them.
    fn row_into(
        &self,
        out: &mut Vec<u8>,
        index: usize,
        rating: podium::Rating,
        old: Option<(&Span, &[u8])>,
    ) -> Span {
        const HEAD: &[u8] = b"{\"position\":0,";
        let system = self.league.system();
        let has_uncertainty = system.capabilities().has_uncertainty;
        let shown_sigma = rating.sigma.filter(|_| has_uncertainty);
        let provisional = system.is_provisional(&rating);
        let start = out.len();
        if let Some((span, prev)) = old {
            let row = &prev[span.bytes.clone()];
            let (rating_at, rest_at) = (span.rating_at as usize, span.rest_at as usize);
            let had_sigma = span.sigma.is_some() && has_uncertainty;
            if span.provisional == provisional
                && had_sigma == shown_sigma.is_some()
                && rating_at <= rest_at
                && rest_at < row.len()
            {
                out.extend_from_slice(&row[..rating_at]);
                serde_json::to_writer(&mut *out, &rating.value).expect("a number serialises");
                if let Some(sigma) = shown_sigma {
                    out.extend_from_slice(b",\"sigma\":");
                    serde_json::to_writer(&mut *out, &sigma).expect("a number serialises");
                }
                let rest = out.len() - start;
                out.extend_from_slice(&row[rest_at..]);
                return Span {
                    bytes: start..out.len(),
                    value: rating.value.to_bits(),
                    sigma: rating.sigma.map(f64::to_bits),
                    rating_at: span.rating_at,
                    rest_at: u32::try_from(rest).unwrap_or(u32::MAX),
                    provisional,
                };
            }
        }
        serde_json::to_writer(&mut *out, &self.row_of(0, index, Some(rating)))
            .expect("a board row serialises");
        debug_assert!(
            out[start..].starts_with(HEAD),
            "position is the first field"
        );
        out.drain(start..start + HEAD.len());
        Span::of(&out[start..], start, &rating, provisional)
    }

    /// The leaderboard in the default order ([`Derived::compute_board_in`]).
    #[must_use]
    pub fn compute_board(&self) -> Vec<BoardRow> {
        self.compute_board_in(podium::Order::default())
    }

    /// The leaderboard in `order`, built from the maintained order.
    #[must_use]
    pub fn compute_board_in(&self, order: podium::Order) -> Vec<BoardRow> {
        self.ordered(order)
            .starting_at(0)
            .enumerate()
            .map(|(k, (i, rating))| self.row_of(k + 1, i, rating))
            .collect()
    }

    /// A page of the leaderboard in the default order ([`Derived::page_in`]).
    #[must_use]
    pub fn page(&self, offset: usize, limit: usize) -> (usize, Vec<BoardRow>) {
        self.page_in(podium::Order::default(), offset, limit)
    }

    /// Players in `order` from `offset`, at most `limit` of them, and the number of
    /// players. Costs O(offset + limit) without building the whole board (for a system
    /// that learns, a sort of the players on the first read after a change).
    #[must_use]
    pub fn page_in(
        &self,
        order: podium::Order,
        offset: usize,
        limit: usize,
    ) -> (usize, Vec<BoardRow>) {
        let ordered = self.ordered(order);
        let total = ordered.len();
        let rows = ordered
            .starting_at(offset)
            .take(limit)
            .enumerate()
            .map(|(k, (i, rating))| self.row_of(offset + k + 1, i, rating))
            .collect();
        (total, rows)
    }

    fn row_of(&self, position: usize, index: usize, rating: Option<podium::Rating>) -> BoardRow {
        board_row(&self.league, position, index, rating)
    }

    /// A player's standing (their position in the default board order) and history, or
    /// `None` if they have not played.
    #[must_use]
    pub fn player(&self, name: &str) -> Option<PlayerHistory> {
        let index = self.league.index_of(name)?;
        let order = podium::Order::default();
        let place = Place::of(&self.league, index, order);
        let standing = self.row_of(self.ordered(order).before(&place) + 1, index, None);
        let history = self
            .games
            .get(index)
            .map(|g| g.as_slice())
            .unwrap_or_default()
            .iter()
            .map(|&m| {
                let r = &self.rated[m as usize];
                let at = r
                    .changes
                    .iter()
                    .position(|(i, _, _)| *i == index)
                    .expect("a player's match names the player");
                let (_, place, c) = &r.changes[at];
                let factors = self.league.factors();
                HistoryRow {
                    key: r.key.clone(),
                    seq: r.seq,
                    time: r.time.map(podium_io::format_time),
                    entries: r.entries,
                    change: ChangeRow::new(name, *place, c),
                    factors: r.carried.get(at).map_or_else(Vec::new, |own| {
                        own.iter()
                            .map(|&j| {
                                let (f, fc) = &r.factors[j as usize];
                                FactorChange::new(&factors[*f].factor, fc)
                            })
                            .collect()
                    }),
                }
            })
            .collect();
        Some(PlayerHistory {
            standing,
            history,
            seasons: self.season_resets(index),
        })
    }

    /// The seasons that started after player `index`'s first match, each with their
    /// rating just after its reset.
    fn season_resets(&self, index: usize) -> Vec<SeasonReset> {
        let games = self.games.get(index).map_or(&[][..], Vec::as_slice);
        let Some(&first) = games.first() else {
            return Vec::new();
        };
        let first = self.rated[first as usize].position();
        let sigma = self.league.system().capabilities().has_uncertainty;
        self.seasons
            .iter()
            .zip(&self.archive)
            .filter(|(s, _)| s.start > first)
            .filter_map(|(s, ended)| {
                let rating = ended.reset.get(index)?;
                Some(SeasonReset {
                    number: s.number,
                    name: s.name.clone(),
                    start_seq: s.start.seq,
                    start_time: s.start.time.map(podium_io::format_time),
                    reset: s.reset,
                    games_before: games
                        .partition_point(|&m| self.rated[m as usize].position() < s.start),
                    rating: rating.value,
                    sigma: rating.sigma.filter(|_| sigma),
                })
            })
            .collect()
    }

    /// Whether a player has played in the league.
    #[must_use]
    pub fn knows(&self, player: &str) -> bool {
        self.league.get(player).is_some()
    }
}

/// What [`Derived::splice`] replaced: dropping it frees the old matches and league.
#[derive(Debug)]
#[must_use = "drop it once the lock on the state is let go"]
pub struct Spliced {
    _rated: Vec<Rated>,
    _league: League,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::LedgerMatch;

    /// Match `g{seq}`, the players finishing in order; every third match gives each
    /// entry its seat (1, 2, …) as a factor.
    fn entry(seq: i64, players: &[&str]) -> LedgerEntry {
        let mut b = Match::builder(format!("g{seq}"));
        for (i, p) in players.iter().enumerate() {
            b = b.player(*p, podium::Finish::Rank((i + 1) as f64));
            if seq % 3 == 0 {
                b = b.factor("seat", (i + 1).to_string());
            }
        }
        let game = b.build().unwrap();
        LedgerEntry {
            seq,
            key: format!("g{seq}"),
            time: None,
            json: LedgerMatch::from_match(&game),
            hash: String::new(),
            voided: false,
        }
    }

    /// Checkpoints thin out the further back they are; the newest few stay `every`
    /// apart.
    #[test]
    fn checkpoints_are_dense_near_the_end() {
        let policy = Checkpoints {
            every: 10_000,
            keep: 16,
        };
        let kept = policy.kept_of(1_000_000);
        assert_eq!(kept.len(), 16);
        assert_eq!(&kept[12..], [970_000, 980_000, 990_000, 1_000_000]);
        let gaps: Vec<usize> = kept.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.windows(2).all(|g| g[0] >= g[1]), "{gaps:?}");
        assert_eq!(policy.kept_of(35_000), [10_000, 20_000, 30_000]);
        assert!(Checkpoints { every: 0, keep: 16 }.kept_of(1_000).is_empty());
    }

    /// A splice from every checkpoint gives the state of a fresh replay, and keeps the
    /// checkpoints where they belong.
    #[test]
    fn splicing_a_tail_from_a_checkpoint_equals_a_fresh_replay() {
        let names = ["ann", "bo", "cy", "dee", "eve", "fay", "gus"];
        let entries: Vec<LedgerEntry> = (1..=23)
            .map(|s| {
                let k = s as usize;
                let trio = [names[k % 7], names[(k * 3 + 1) % 7], names[(k * 5 + 2) % 7]];
                let mut v: Vec<&str> = Vec::new();
                for p in trio {
                    if !v.contains(&p) {
                        v.push(p);
                    }
                }
                if v.len() < 2 {
                    v.push(if v[0] == "zed" { "yan" } else { "zed" });
                }
                entry(s, &v)
            })
            .collect();
        let policy = Checkpoints { every: 4, keep: 3 };
        let mut d = Derived::new(
            podium::system("sme", &podium::Settings::new()).unwrap(),
            policy,
        );
        for e in &entries {
            d.apply(e, &to_match(e).unwrap()).unwrap();
        }
        assert_eq!(
            d.checkpoints(),
            vec![8, 16, 20],
            "thinned to 3, the newest kept"
        );
        // Replace match 10 by another result, rated again from the checkpoint before it.
        let mut changed = entries.clone();
        changed[9] = entry(10, &["gus", "new", "ann"]);
        let base = d.base_before(changed[9].position());
        assert_eq!(base.count(), 8);
        let mut tail = Tail::new(base, policy);
        for e in &changed[8..] {
            tail.push(e).unwrap();
        }
        drop(d.splice(tail));
        let fresh = replay(
            podium::system("sme", &podium::Settings::new()).unwrap(),
            &changed,
        )
        .unwrap();
        assert_eq!(d.compute_board(), fresh.compute_board());
        assert_eq!(
            String::from_utf8_lossy(&d.board_json().json),
            String::from_utf8_lossy(&serde_json::to_vec(&fresh.compute_board()).unwrap())
        );
        for p in names.iter().chain(&["new"]) {
            let a = d.player(p).map(|h| serde_json::to_value(h).unwrap());
            let b = fresh.player(p).map(|h| serde_json::to_value(h).unwrap());
            assert_eq!(a, b, "{p}");
        }
        // The seats of every third match are in the histories compared.
        let seated = names
            .iter()
            .filter_map(|p| d.player(p))
            .flat_map(|h| h.history)
            .filter(|g| !g.factors.is_empty())
            .count();
        assert!(seated > 0);
        assert_eq!(d.checkpoints(), vec![8, 16, 20]);
    }

    /// Eight nights of four regulars; frank joins for the last two and wins both. The
    /// default board puts him after every player whose rating is established; the
    /// rating order by his rating alone, above regulars he beat.
    #[test]
    fn a_newcomer_who_wins_twice_stands_below_the_established_players() {
        for system in ["sme", "kalman-mmr"] {
            let mut d = Derived::new(
                podium::system(system, &podium::Settings::new()).unwrap(),
                Checkpoints { every: 3, keep: 2 },
            );
            let nights: [&[&str]; 8] = [
                &["ann", "bo", "cy", "dee"],
                &["bo", "ann", "dee", "cy"],
                &["ann", "cy", "bo", "dee"],
                &["cy", "ann", "bo", "dee"],
                &["ann", "bo", "dee", "cy"],
                &["bo", "cy", "ann", "dee"],
                &["frank", "ann", "bo", "cy", "dee"],
                &["frank", "bo", "ann", "dee", "cy"],
            ];
            for (k, night) in nights.iter().enumerate() {
                let e = entry(k as i64 + 1, night);
                d.apply(&e, &to_match(&e).unwrap()).unwrap();
            }
            let names = |rows: Vec<BoardRow>| -> Vec<(String, bool)> {
                rows.into_iter()
                    .map(|r| (r.player, r.provisional))
                    .collect()
            };
            let established = names(d.compute_board());
            assert_eq!(established.len(), 5);
            assert_eq!(established[4], ("frank".to_string(), true), "{system}");
            assert!(established[..4].iter().all(|(_, p)| !p), "{system}");
            assert_eq!(d.player("frank").unwrap().standing.position, 5);
            let by_rating = d.compute_board_in(podium::Order::Rating);
            let frank = by_rating.iter().position(|r| r.player == "frank").unwrap();
            assert!(frank < 4, "{system}: frank beat every regular twice");
            assert!(by_rating.windows(2).all(|w| w[0].rating >= w[1].rating));
            // Pages and the JSON follow each order.
            assert_eq!(d.page(4, 10).1[0].player, "frank");
            assert_eq!(
                d.page_in(podium::Order::Rating, frank, 1).1[0].player,
                "frank"
            );
            assert_eq!(
                d.board_json_in(podium::Order::Rating).json.as_slice(),
                serde_json::to_vec(&by_rating).unwrap().as_slice()
            );
        }
    }

    /// A player's history lists the factors of their own entry, each with its change:
    /// both members of a team the team's car, a solo entry its seat and car, an entry
    /// without factors none.
    #[test]
    fn a_players_history_names_the_factors_of_their_entry() {
        use podium::Finish;
        let race = Match::builder("r1")
            .team("red", ["ann", "bo"], Finish::Rank(1.0))
            .factor("car", "x")
            .player("cy", Finish::Rank(2.0))
            .factor("car", "y")
            .factor("seat", "1")
            .player("dee", Finish::Rank(3.0))
            .build()
            .unwrap();
        let e = LedgerEntry {
            seq: 1,
            key: "r1".into(),
            time: None,
            json: LedgerMatch::from_match(&race),
            hash: String::new(),
            voided: false,
        };
        let mut d = Derived::new(
            podium::system("pairwise", &podium::Settings::new()).unwrap(),
            Checkpoints { every: 0, keep: 0 },
        );
        d.apply(&e, &to_match(&e).unwrap()).unwrap();
        let carried = |p: &str| -> Vec<(String, String, f64, f64)> {
            d.player(p).unwrap().history[0]
                .factors
                .iter()
                .map(|f| (f.kind.clone(), f.value.clone(), f.before, f.delta))
                .collect()
        };
        // pairwise, K 32 per opponent, every strength 1500: the winning team's car gains
        // 32 · (2 − 2 · ½) = 32 from its two wins, cy's (a win and a loss) nothing, and
        // the last entry carries none.
        let (x, y) = (carried("ann"), carried("cy"));
        assert_eq!(x.len(), 1);
        assert_eq!(
            (x[0].0.as_str(), x[0].1.as_str(), x[0].2),
            ("car", "x", 0.0)
        );
        assert!((x[0].3 - 32.0).abs() < 1e-9, "{x:?}");
        assert_eq!(carried("bo"), x);
        let kinds: Vec<(&str, &str)> = y.iter().map(|f| (f.0.as_str(), f.1.as_str())).collect();
        assert_eq!(kinds, [("car", "y"), ("seat", "1")]);
        assert!(y.iter().all(|f| f.3.abs() < 1e-9), "{y:?}");
        assert!(carried("dee").is_empty());
        let json = serde_json::to_value(d.player("dee").unwrap()).unwrap();
        assert!(json["history"][0].get("factors").is_none(), "{json}");
    }

    /// A board of more players than one chunk of rows holds is the JSON of its rows, in
    /// order, after the first read and after writes that move some rows or all of them
    /// (a system that learns) and reuse the others.
    #[test]
    fn a_board_of_several_chunks_is_the_json_of_its_rows() {
        // kalman-mmr with drift only: every idle player's rating returns towards the
        // newcomer prior at each match, so rows change without their players playing.
        for (system, settings) in [
            ("kalman-mmr", vec!["gammas=8"]),
            ("kalman-mmr", vec![]),
            ("sme", vec![]),
        ] {
            let mut d = Derived::new(
                podium::system(system, &podium::Settings::parse(settings).unwrap()).unwrap(),
                Checkpoints::default(),
            );
            let names: Vec<String> = (0..2 * BOARD_CHUNK + 100)
                .map(|i| format!("p{i:05}"))
                .collect();
            let mut seq = 0;
            let mut play = |d: &mut Derived, players: &[&str]| {
                seq += 1;
                let e = entry(seq, players);
                d.apply(&e, &to_match(&e).unwrap()).unwrap();
            };
            for four in names.chunks(4) {
                let v: Vec<&str> = four.iter().map(String::as_str).collect();
                if v.len() > 1 {
                    play(&mut d, &v);
                }
            }
            for round in 0..3 {
                for order in podium::Order::ALL {
                    let json = d.board_json_in(order);
                    let rows = d.compute_board_in(order);
                    assert_eq!(json.rows, rows.len());
                    assert!(rows.len() > 2 * BOARD_CHUNK, "{}", rows.len());
                    assert!(
                        *json.json == serde_json::to_vec(&rows).unwrap(),
                        "{system}, round {round}, {order:?}"
                    );
                }
                // A few players move, from the far end of the board to its top.
                let k = names.len() - 1 - round;
                play(
                    &mut d,
                    &[
                        names[k].as_str(),
                        names[round].as_str(),
                        names[BOARD_CHUNK + round].as_str(),
                    ],
                );
            }
        }
    }
}
