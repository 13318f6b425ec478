//! The ratings derived from a ledger: a [`podium::League`] fed the ledger's matches in
//! rating order, each match's changes, and each player's history.

use std::collections::HashMap;
use std::sync::Arc;

use podium::{League, Match, RatingSystem};

use crate::error::StoreError;
use crate::types::{BoardRow, ChangeRow, HistoryRow, LedgerEntry, PlayerHistory};

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
    board: Option<Arc<Vec<BoardRow>>>,
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
            board: None,
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
        self.by_key.insert(entry.key.clone(), self.rated.len());
        self.rated.push(Rated {
            key: entry.key.clone(),
            seq: entry.seq,
            time: game.time(),
            entries: game.len(),
            changes,
        });
        self.board = None;
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

    /// The leaderboard computed afresh.
    #[must_use]
    pub fn compute_board(&self) -> Vec<BoardRow> {
        let sigma = self.league.system().has_uncertainty();
        self.league
            .standings()
            .into_iter()
            .map(|s| BoardRow {
                position: s.position,
                rating: s.rating.value,
                sigma: if sigma { s.rating.sigma } else { None },
                games: s.stats.games,
                wins: s.stats.wins,
                avg_size: s.stats.average_size(),
                win_pct: s.stats.win_pct(),
                expected_win_pct: s.stats.expected_win_pct(),
                net_pct: s.stats.win_pct() - s.stats.expected_win_pct(),
                last_played: match (s.stats.last_time, &s.stats.last_match) {
                    (Some(t), _) => podium_io::format_time(t),
                    (None, Some(id)) => id.to_string(),
                    (None, None) => String::new(),
                },
                provisional: s.provisional,
                player: s.player,
            })
            .collect()
    }

    /// A player's standing and history, or `None` if they have not played.
    #[must_use]
    pub fn player(&self, name: &str) -> Option<PlayerHistory> {
        self.league.get(name)?;
        let board = match &self.board {
            Some(b) => b.clone(),
            None => Arc::new(self.compute_board()),
        };
        let standing = board.iter().find(|r| r.player == name)?.clone();
        let index = self.league.players().iter().position(|p| p.name == name)?;
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
