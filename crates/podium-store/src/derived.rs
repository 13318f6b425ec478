//! The ratings derived from a ledger: a [`podium::League`] fed the ledger's matches in
//! rating order, each match's changes, and each player's history.

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;

use podium::{League, Match, RatingSystem};

use crate::error::StoreError;
use crate::types::{BoardJson, BoardRow, ChangeRow, HistoryRow, LedgerEntry, PlayerHistory};

/// One rated match.
#[derive(Debug, Clone)]
struct Rated {
    key: String,
    seq: i64,
    time: Option<i64>,
    entries: usize,
    /// `(player index, place, change)` in the match's player order.
    changes: Vec<(usize, usize, podium::PlayerChange)>,
}

/// A player's place in the leaderboard order: rating descending, then name ascending
/// (the order of [`League::standings`]).
#[derive(Debug, Clone)]
struct Place {
    /// The player's rating when the place was taken.
    rating: f64,
    /// The player's id: names are unique, so no two places are equal.
    name: String,
    /// The player's index in the league; rides along, never decides the order.
    index: usize,
}

impl Place {
    /// Where player `index` of `league` stands now.
    fn of(league: &League, index: usize) -> Self {
        let p = league.player(index);
        Place {
            rating: p.rating.value,
            name: p.name.clone(),
            index,
        }
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
        other
            .rating
            .total_cmp(&self.rating)
            .then_with(|| self.name.cmp(&other.name))
    }
}

/// The state derived from a league's ledger.
#[derive(Debug)]
pub struct Derived {
    league: League,
    rated: Vec<Rated>,
    by_key: HashMap<String, usize>,
    /// For each player (league index), the indices of their matches in `rated`.
    games: Vec<Vec<u32>>,
    /// Whether the league's matches have times (decided by the first rated match).
    timed: Option<bool>,
    last_time: Option<i64>,
    /// Every player in leaderboard order, kept up to date match by match, so that a
    /// page of the leaderboard never needs a sort.
    order: BTreeSet<Place>,
    /// The whole leaderboard, built on demand after a change.
    board: Option<Arc<Vec<BoardRow>>>,
    /// The whole leaderboard as JSON while it is current.
    json: Option<BoardJson>,
    /// The last JSON made (current or not), and where each player's row is in it after
    /// its position (`"player":…}`), by league index; `None` once the player's row has
    /// changed. The next board copies unchanged rows from it, in nearly the same order,
    /// and serialises only the rows of players who played since.
    last: Option<Arc<Vec<u8>>>,
    spans: Vec<Option<Range<usize>>>,
    /// The JSON before `last`, whose buffer the next board reuses if no reader holds it
    /// any more (a fresh 20 MB buffer costs more in page faults than filling it).
    spare: Option<Arc<Vec<u8>>>,
}

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
    entries.sort_by_key(|e| (e.time, e.seq));
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
    let mut entries: Vec<LedgerEntry> = entries.iter().filter(|e| !e.voided).cloned().collect();
    rating_order(&mut entries);
    let mut d = Derived::new(system);
    for e in &entries {
        let game = to_match(e)?;
        d.apply(e, &game)?;
    }
    Ok(d)
}

fn to_match(e: &LedgerEntry) -> Result<Match, StoreError> {
    e.json
        .to_match("ledger", e.seq.max(0) as u64)
        .map_err(|err| StoreError::InvalidMatch {
            message: err.to_string(),
        })
}

impl Derived {
    /// Empty state for a league rated by `system`.
    #[must_use]
    pub fn new(system: Box<dyn RatingSystem>) -> Self {
        Derived {
            league: League::new(system),
            rated: Vec::new(),
            by_key: HashMap::new(),
            games: Vec::new(),
            timed: None,
            last_time: None,
            order: BTreeSet::new(),
            board: None,
            json: None,
            last: None,
            spans: Vec::new(),
            spare: None,
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
        self.rated.len()
    }

    /// Whether matches have times (`None` before the first match).
    #[must_use]
    pub fn timed(&self) -> Option<bool> {
        self.timed
    }

    /// Whether a match at `time` would go after every rated match (so it can be rated in
    /// place rather than by a replay).
    #[must_use]
    pub fn appends_at_end(&self, time: Option<i64>) -> bool {
        match (time, self.last_time) {
            (Some(t), Some(last)) => t >= last,
            _ => true,
        }
    }

    /// Rates one more match. Nothing changes if the system refuses it.
    ///
    /// # Errors
    /// [`StoreError::Rate`] or [`StoreError::TimeMismatch`].
    pub fn apply(&mut self, entry: &LedgerEntry, game: &Match) -> Result<(), StoreError> {
        let has_time = game.time().is_some();
        if self.timed.is_some_and(|t| t != has_time) {
            return Err(StoreError::TimeMismatch {
                key: entry.key.clone(),
                has_time,
            });
        }
        let old: Vec<Place> = game
            .players()
            .filter_map(|(_, m)| Some(Place::of(&self.league, self.league.index_of(&m.player)?)))
            .collect();
        let report = self.league.apply(game).map_err(|source| StoreError::Rate {
            key: entry.key.clone(),
            source,
        })?;
        self.timed = Some(has_time);
        if let Some(t) = game.time() {
            self.last_time = Some(self.last_time.map_or(t, |l| l.max(t)));
        }
        let index = self.rated.len() as u32;
        let places: Vec<usize> = game.players().map(|(e, _)| game.place(e)).collect();
        let changes: Vec<_> = report
            .changes
            .into_iter()
            .zip(places)
            .map(|((i, c), place)| (i, place, c))
            .collect();
        for &(i, _, _) in &changes {
            if self.games.len() <= i {
                self.games.resize_with(i + 1, Vec::new);
            }
            self.games[i].push(index);
        }
        for p in &old {
            self.order.remove(p);
        }
        for &(i, _, _) in &changes {
            self.order.insert(Place::of(&self.league, i));
            if let Some(span) = self.spans.get_mut(i) {
                *span = None;
            }
        }
        self.by_key.insert(entry.key.clone(), self.rated.len());
        self.rated.push(Rated {
            key: entry.key.clone(),
            seq: entry.seq,
            time: game.time(),
            entries: game.len(),
            changes,
        });
        self.board = None;
        self.json = None;
        Ok(())
    }

    /// The changes a rated match made, in its player order.
    #[must_use]
    pub fn changes(&self, key: &str) -> Option<Vec<ChangeRow>> {
        let r = &self.rated[*self.by_key.get(key)?];
        Some(self.change_rows(r))
    }

    fn change_rows(&self, r: &Rated) -> Vec<ChangeRow> {
        r.changes
            .iter()
            .map(|(i, place, c)| ChangeRow::new(&self.league.player(*i).name, *place, c))
            .collect()
    }

    /// The leaderboard, best first; computed once per change and shared.
    pub fn board(&mut self) -> Arc<Vec<BoardRow>> {
        if let Some(b) = &self.board {
            return b.clone();
        }
        let b = Arc::new(self.compute_board());
        self.board = Some(b.clone());
        b
    }

    /// The whole leaderboard as JSON: exactly `serde_json::to_vec(&*self.board())`, made
    /// once per change. Rows of players who have not played since the last JSON was made
    /// are copied from it; only the others are serialised again.
    pub fn board_json(&mut self) -> BoardJson {
        if let Some(j) = &self.json {
            return j.clone();
        }
        // Rows are ~200 bytes; sizing the buffer up front spares regrowing 20 MB.
        let wanted = 2 + self.order.len() * 240;
        let mut out = self
            .spare
            .take()
            .and_then(|b| Arc::try_unwrap(b).ok())
            .unwrap_or_default();
        out.clear();
        out.reserve(wanted);
        let last = self.last.take();
        let prev: &[u8] = last.as_deref().map_or(&[], Vec::as_slice);
        let mut spans = std::mem::take(&mut self.spans);
        spans.resize(self.league.players().len(), None);
        out.push(b'[');
        let mut digits = [0u8; 20];
        for (k, place) in self.order.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"position\":");
            out.extend_from_slice(decimal(k + 1, &mut digits));
            out.push(b',');
            let i = place.index;
            let start = out.len();
            match spans[i].clone() {
                Some(span) => out.extend_from_slice(&prev[span]),
                None => out.extend_from_slice(&self.piece(i)),
            }
            spans[i] = Some(start..out.len());
        }
        out.push(b']');
        self.spans = spans;
        self.spare = last;
        let out = Arc::new(out);
        self.last = Some(out.clone());
        let json = BoardJson {
            json: out,
            rows: self.order.len(),
            version: next_version(),
        };
        self.json = Some(json.clone());
        json
    }

    /// A player's row as JSON after its position: `"player":…}`.
    fn piece(&self, index: usize) -> Vec<u8> {
        const HEAD: &[u8] = b"{\"position\":0,";
        let mut row = serde_json::to_vec(&self.row_of(0, index)).expect("a board row serialises");
        debug_assert!(row.starts_with(HEAD), "position is the first field");
        row.drain(..HEAD.len());
        row
    }

    /// The leaderboard built from the maintained order.
    #[must_use]
    pub fn compute_board(&self) -> Vec<BoardRow> {
        self.order
            .iter()
            .enumerate()
            .map(|(k, p)| self.row_of(k + 1, p.index))
            .collect()
    }

    /// Players in leaderboard order from `offset`, at most `limit` of them, and the number
    /// of players. Costs O(offset + limit), without building the whole board.
    #[must_use]
    pub fn page(&self, offset: usize, limit: usize) -> (usize, Vec<BoardRow>) {
        let total = self.order.len();
        let rows = self
            .order
            .iter()
            .skip(offset)
            .take(limit)
            .enumerate()
            .map(|(k, p)| self.row_of(offset + k + 1, p.index))
            .collect();
        (total, rows)
    }

    fn row_of(&self, position: usize, index: usize) -> BoardRow {
        let p = self.league.player(index);
        let system = self.league.system();
        let s = &p.stats;
        BoardRow {
            position,
            player: p.name.clone(),
            rating: p.rating.value,
            sigma: if system.has_uncertainty() {
                p.rating.sigma
            } else {
                None
            },
            games: s.games,
            wins: s.wins,
            avg_size: s.average_size(),
            win_pct: s.win_pct(),
            expected_win_pct: s.expected_win_pct(),
            net_pct: s.win_pct() - s.expected_win_pct(),
            last_played: match (s.last_time, &s.last_match) {
                (Some(t), _) => podium_io::format_time(t),
                (None, Some(id)) => id.to_string(),
                (None, None) => String::new(),
            },
            provisional: system.is_provisional(&p.rating),
        }
    }

    /// A player's standing and history, or `None` if they have not played.
    #[must_use]
    pub fn player(&self, name: &str) -> Option<PlayerHistory> {
        let index = self.league.index_of(name)?;
        let place = Place::of(&self.league, index);
        let standing = self.row_of(self.order.range(..&place).count() + 1, index);
        let history = self
            .games
            .get(index)
            .map(|g| g.as_slice())
            .unwrap_or_default()
            .iter()
            .map(|&m| {
                let r = &self.rated[m as usize];
                let (_, place, c) = r
                    .changes
                    .iter()
                    .find(|(i, _, _)| *i == index)
                    .expect("a player's match names the player");
                HistoryRow {
                    key: r.key.clone(),
                    seq: r.seq,
                    time: r.time.map(podium_io::format_time),
                    entries: r.entries,
                    change: ChangeRow::new(name, *place, c),
                }
            })
            .collect();
        Some(PlayerHistory { standing, history })
    }

    /// Whether a player has played in the league.
    #[must_use]
    pub fn knows(&self, player: &str) -> bool {
        self.league.get(player).is_some()
    }
}
