//! The domain model: a [`Match`] of two or more [`Entry`]s (a player or a team), each with
//! a finishing place; ties are groups of entries that share a place.
//!
//! A `Match` is validated when it is built and cannot be wrong afterwards: it has at
//! least two entries, no player twice, no empty team, members of one team share their
//! finish, finishes are finite, weights lie in `[1e-9, 1]` ([`MIN_WEIGHT`]), and ids,
//! team names and factors follow the rules every reader applies ([`check_id`],
//! [`crate::factor::check_kind`], [`crate::factor::check_value`]). Entries are kept
//! sorted best first (stable: tied entries keep the order they were given in).

use std::collections::HashSet;

/// The least partial-play weight: a share of a match below one in a billion tells
/// nothing, and near the smallest numbers the systems' sums lose every digit.
pub const MIN_WEIGHT: f64 = 1e-9;
use std::fmt;
use std::ops::Range;

use crate::error::MatchError;
use crate::factor::{Factor, MatchFactor};

/// How an entry finished. Only the order matters; equal values are ties.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Finish {
    /// A place, 1 = best. Lower is better.
    Rank(f64),
    /// A score. Higher is better.
    Score(f64),
}

impl Finish {
    /// The finish as the `rank` and `score` fields of a result row: one of them given.
    #[must_use]
    pub fn rank_and_score(self) -> (Option<f64>, Option<f64>) {
        match self {
            Finish::Rank(v) => (Some(v), None),
            Finish::Score(v) => (None, Some(v)),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Finish::Rank(_) => "rank",
            Finish::Score(_) => "score",
        }
    }

    fn value(&self) -> f64 {
        match *self {
            Finish::Rank(v) | Finish::Score(v) => v,
        }
    }

    /// A key that sorts best first: ranks ascending, scores descending.
    fn sort_key(&self) -> f64 {
        match *self {
            Finish::Rank(v) => v,
            Finish::Score(v) => -v,
        }
    }
}

impl fmt::Display for Finish {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind(), self.value())
    }
}

/// One player of an entry, with the share of the match they played.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Member {
    /// The player's id.
    pub player: String,
    /// Partial play, `1e-9 ≤ weight ≤ 1` ([`MIN_WEIGHT`]); a rating change is scaled by it.
    pub weight: f64,
}

/// An entry of a match: a single player, or a team whose members share one finish.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Entry {
    /// The team's name, `None` for a player entering alone.
    pub team: Option<String>,
    /// The entry's players: one for a player entering alone; several for a team, which
    /// may have no name (a proposed match's team, as [`crate::League::predict`] takes).
    pub members: Vec<Member>,
    /// How the entry finished.
    pub finish: Finish,
    /// What else than its players decides the entry's result (`car=ferrari`, `seat=1`);
    /// at most one value of each kind. See [`crate::factor`].
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub factors: Vec<Factor>,
}

/// One row of results, as files give them: a player, optionally in a team.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ResultRow {
    /// The player's id.
    pub player: String,
    /// The player's team in this match, if any.
    pub team: Option<String>,
    /// How the player (or their team) finished.
    pub finish: Finish,
    /// Partial play, `1e-9 ≤ weight ≤ 1` ([`MIN_WEIGHT`]; 1 = the whole match).
    pub weight: f64,
    /// The factors of the row's entry; rows of one team may each give some, and must
    /// agree on the value of a kind they both give.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub factors: Vec<Factor>,
}

/// One row of results borrowed from where it was read (see [`Match::from_row_refs`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowRef<'a> {
    /// The player's id.
    pub player: &'a str,
    /// The player's team in this match, if any.
    pub team: Option<&'a str>,
    /// How the player (or their team) finished.
    pub finish: Finish,
    /// Partial play, `1e-9 ≤ weight ≤ 1` ([`MIN_WEIGHT`]; 1 = the whole match).
    pub weight: f64,
    /// The factors of the row's entry, as in [`ResultRow::factors`].
    pub factors: &'a [Factor],
}

/// A validated match: at least two entries sorted best first, ties grouped.
///
/// With the `serde` feature it is written as its id, time and entries, and read back
/// through the same checks as [`MatchBuilder::build`]: a match read is a valid match.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "MatchData"))]
pub struct Match {
    id: String,
    time: Option<i64>,
    entries: Vec<Entry>,
    /// `places[i]`: 1-based place of entry `i`; tied entries share the best place they cover.
    #[cfg_attr(feature = "serde", serde(skip))]
    places: Vec<usize>,
    /// `offsets[i]..offsets[i+1]` are entry `i`'s players in [`Match::players`] order.
    #[cfg_attr(feature = "serde", serde(skip))]
    offsets: Vec<usize>,
    /// The factors that tell entries apart (see [`Match::factors`]); empty, without an
    /// allocation, for a match without factors.
    #[cfg_attr(feature = "serde", serde(skip))]
    factors: Vec<MatchFactor>,
}

/// What a [`Match`] is written as, read back through [`MatchBuilder::build`]'s checks.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct MatchData {
    id: String,
    time: Option<i64>,
    entries: Vec<Entry>,
}

#[cfg(feature = "serde")]
impl TryFrom<MatchData> for Match {
    type Error = MatchError;

    fn try_from(d: MatchData) -> Result<Self, MatchError> {
        finish_match(d.id, d.time, d.entries, Vec::new(), Vec::new(), Vec::new())
    }
}

impl Match {
    /// Starts building a match with the given id.
    pub fn builder(id: impl Into<String>) -> MatchBuilder {
        MatchBuilder {
            id: id.into(),
            time: None,
            entries: Vec::new(),
            stray_factor: None,
        }
    }

    /// A free-for-all in finishing order, no ties: `players[0]` won.
    ///
    /// # Errors
    /// As [`MatchBuilder::build`].
    pub fn ranked<S: AsRef<str>>(id: impl Into<String>, players: &[S]) -> Result<Self, MatchError> {
        let mut b = Match::builder(id);
        for (i, p) in players.iter().enumerate() {
            b = b.player(p.as_ref(), Finish::Rank((i + 1) as f64));
        }
        b.build()
    }

    /// A free-for-all from `(player, place)` pairs; equal places are ties.
    ///
    /// # Errors
    /// As [`MatchBuilder::build`].
    pub fn with_places<S: AsRef<str>>(
        id: impl Into<String>,
        places: &[(S, u32)],
    ) -> Result<Self, MatchError> {
        let mut b = Match::builder(id);
        for (p, place) in places {
            b = b.player(p.as_ref(), Finish::Rank(f64::from(*place)));
        }
        b.build()
    }

    /// Builds a match from result rows; rows with the same team form one entry.
    ///
    /// # Errors
    /// As [`MatchBuilder::build`], plus [`MatchError::TeamFinishMismatch`] when members of
    /// one team have different finishes.
    pub fn from_rows(
        id: impl Into<String>,
        time: Option<i64>,
        rows: impl IntoIterator<Item = ResultRow>,
    ) -> Result<Self, MatchError> {
        let mut rows = rows.into_iter();
        let mut b = Match::builder(id);
        b.time = time;
        b.entries.reserve(rows.size_hint().0);
        while let Some(row) = rows.next() {
            b = match b.row(row) {
                Ok(b) => b,
                // The team's later rows too, to name the members at odds with the most.
                Err(MatchError::TeamFinishMismatch {
                    team, mut finishes, ..
                }) => {
                    for r in rows.filter(|r| r.team.as_deref() == Some(team.as_str())) {
                        add_finish(&mut finishes, &r.player, r.finish);
                    }
                    return Err(team_mismatch(team, finishes));
                }
                Err(e) => return Err(e),
            };
        }
        b.build()
    }

    /// As [`Match::from_rows`] from borrowed rows, reusing the allocations of `spare` (a
    /// match the caller is done with) when given: a reader that hands its matches back
    /// builds the next ones without allocating. The result is the same as
    /// `Match::from_rows` on owned copies of the rows, errors included.
    ///
    /// # Errors
    /// As [`Match::from_rows`].
    pub fn from_row_refs<'r>(
        spare: Option<Match>,
        id: &str,
        time: Option<i64>,
        rows: impl IntoIterator<Item = RowRef<'r>>,
    ) -> Result<Self, MatchError> {
        let Some(spare) = spare else {
            return Match::from_rows(
                id,
                time,
                rows.into_iter().map(|r| ResultRow {
                    player: r.player.to_string(),
                    team: r.team.map(str::to_string),
                    finish: r.finish,
                    weight: r.weight,
                    factors: r.factors.to_vec(),
                }),
            );
        };
        let Match {
            id: mut new_id,
            mut entries,
            places,
            offsets,
            factors,
            ..
        } = spare;
        new_id.clear();
        new_id.push_str(id);
        // Entries `..used` are this match's; the rest are spares whose buffers are reused.
        let mut used = 0;
        let mut rows = rows.into_iter();
        while let Some(row) = rows.next() {
            if let Some(team) = row.team {
                if let Some(entry) = entries[..used]
                    .iter_mut()
                    .find(|e| e.team.as_deref() == Some(team))
                {
                    if !same_finish(entry.finish, row.finish) {
                        let mut finishes = vec![(
                            entry.finish,
                            entry.members.iter().map(|m| m.player.clone()).collect(),
                        )];
                        add_finish(&mut finishes, row.player, row.finish);
                        for r in rows.filter(|r| r.team == Some(team)) {
                            add_finish(&mut finishes, r.player, r.finish);
                        }
                        return Err(team_mismatch(team.to_string(), finishes));
                    }
                    entry.members.push(Member {
                        player: row.player.to_string(),
                        weight: row.weight,
                    });
                    merge_factors(&mut entry.factors, row.factors.iter(), row.player)?;
                    continue;
                }
            }
            if used == entries.len() {
                entries.push(Entry {
                    team: None,
                    members: Vec::with_capacity(1),
                    finish: row.finish,
                    factors: Vec::new(),
                });
            }
            let entry = &mut entries[used];
            used += 1;
            entry.finish = row.finish;
            entry.factors.clear();
            if !row.factors.is_empty() {
                merge_factors(&mut entry.factors, row.factors.iter(), row.player)?;
            }
            match (row.team, &mut entry.team) {
                (None, t) => *t = None,
                (Some(team), Some(t)) => {
                    t.clear();
                    t.push_str(team);
                }
                (Some(team), t) => *t = Some(team.to_string()),
            }
            entry.members.truncate(1);
            match entry.members.first_mut() {
                Some(m) => {
                    m.player.clear();
                    m.player.push_str(row.player);
                    m.weight = row.weight;
                }
                None => entry.members.push(Member {
                    player: row.player.to_string(),
                    weight: row.weight,
                }),
            }
        }
        entries.truncate(used);
        finish_match(new_id, time, entries, places, offsets, factors)
    }

    /// The match id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// When the match was played, in seconds since the Unix epoch (UTC), if known.
    pub fn time(&self) -> Option<i64> {
        self.time
    }

    /// The entries, best first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of entries (players or teams).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false: a match has at least two entries.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Number of players over all entries.
    pub fn player_count(&self) -> usize {
        *self.offsets.last().unwrap_or(&0)
    }

    /// Every player of the match with the index of their entry, entries best first.
    /// Ratings passed to [`crate::RatingSystem::rate`] follow this order.
    pub fn players(&self) -> impl Iterator<Item = (usize, &Member)> + '_ {
        Players {
            entries: &self.entries,
            entry: 0,
            member: 0,
            left: self.player_count(),
        }
    }

    /// The indices into [`Match::players`] order of entry `entry`'s members.
    pub fn member_range(&self, entry: usize) -> Range<usize> {
        self.offsets[entry]..self.offsets[entry + 1]
    }

    /// 1-based place of entry `entry`; tied entries share the best place they cover
    /// (places 1, 1, 3 for a tie for first).
    pub fn place(&self, entry: usize) -> usize {
        self.places[entry]
    }

    /// The entries tied with entry `entry`, itself included, as a range of entry indices.
    pub fn tie_group(&self, entry: usize) -> Range<usize> {
        tie_range(&self.places, entry)
    }

    /// Every entry's place, best first (see [`Match::place`]).
    pub(crate) fn places(&self) -> &[usize] {
        &self.places
    }

    /// Whether entries `a` and `b` finished level.
    pub fn tied(&self, a: usize, b: usize) -> bool {
        self.places[a] == self.places[b]
    }

    /// The tie groups in order, best first, as ranges of entry indices.
    pub fn groups(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        let mut start = 0;
        std::iter::from_fn(move || {
            if start >= self.entries.len() {
                return None;
            }
            let g = self.tie_group(start);
            start = g.end;
            Some(g)
        })
    }

    /// How many entries share first place.
    pub fn winners(&self) -> usize {
        self.tie_group(0).len()
    }

    /// The factors that tell entries apart, each once with the entries that carry it, in
    /// order of first appearance (entries best first). A factor that every entry carries
    /// is left out: it adds the same to every entry's strength, so it says nothing about
    /// the order, and the systems do not rate it from this match.
    pub fn factors(&self) -> &[MatchFactor] {
        &self.factors
    }

    /// Whether any entry carries a factor, including one that every entry carries.
    pub fn has_factors(&self) -> bool {
        self.entries.iter().any(|e| !e.factors.is_empty())
    }

    /// The same match with no entry carrying a factor: what a system that ignores the
    /// car or the seat rates.
    ///
    /// ```
    /// use podium::{Finish, Match};
    /// let m = Match::builder("r1")
    ///     .player("ann", Finish::Rank(1.0)).factor("car", "red")
    ///     .player("bo", Finish::Rank(2.0)).factor("car", "blue")
    ///     .build()
    ///     .unwrap();
    /// let blind = m.without_factors();
    /// assert!(!blind.has_factors() && blind.factors().is_empty());
    /// assert_eq!((blind.place(0), blind.place(1)), (m.place(0), m.place(1)));
    /// ```
    #[must_use]
    pub fn without_factors(&self) -> Match {
        let mut m = self.clone();
        for e in &mut m.entries {
            e.factors = Vec::new();
        }
        m.factors = Vec::new();
        m
    }
}

/// The entries tied with entry `entry` given every entry's place, best first.
pub(crate) fn tie_range(places: &[usize], entry: usize) -> Range<usize> {
    let place = places[entry];
    let start = place - 1;
    let mut end = entry + 1;
    while end < places.len() && places[end] == place {
        end += 1;
    }
    start..end
}

impl Match {
    /// A match of no entries, only to be filled by [`Match::refill_ranked`]: the buffer
    /// a [`crate::League`] rates rankings in. It allocates nothing.
    pub(crate) fn scratch() -> Match {
        Match {
            id: String::new(),
            time: None,
            entries: Vec::new(),
            places: Vec::new(),
            offsets: Vec::new(),
            factors: Vec::new(),
        }
    }

    /// Makes this match the free-for-all `id` (no time) of single players who each
    /// played the whole match, given best first with their 1-based `places`, reusing its
    /// buffers: its entries are refilled where they are, those it no longer needs are
    /// put in `spare` and those it lacks taken from there. Once they are large enough,
    /// no allocation. The same match as [`Match::with_places`] builds, for players
    /// already checked to be distinct: a new one's id is checked and copied, and a known
    /// one's (checked when it became known) is put in place by `lend`, called with the
    /// player's index and the string of their entry (which holds an id of an earlier
    /// match) once every check has passed.
    ///
    /// # Errors
    /// [`MatchError::InvalidPlaces`] or [`MatchError::TooFewEntries`] when `places` do not
    /// rank the players ([`check_places`]), [`MatchError::InvalidMatchId`] or
    /// [`MatchError::InvalidPlayerId`]. The match is then left empty, and nothing lent.
    pub(crate) fn refill_ranked(
        &mut self,
        id: &str,
        players: &[crate::league::Slot<'_>],
        places: &[usize],
        spare: &mut Vec<Entry>,
        mut lend: impl FnMut(usize, &mut String),
    ) -> Result<(), MatchError> {
        use crate::league::Slot;
        let n = players.len();
        self.places.clear();
        self.offsets.clear();
        self.offsets.push(0);
        let checked = check_places(n, places)
            .and_then(|()| check_match_id(id))
            .and_then(|()| {
                match players.iter().find_map(|slot| match *slot {
                    Slot::New(name) if !check_id(name) => Some(name),
                    _ => None,
                }) {
                    Some(name) => Err(MatchError::InvalidPlayerId {
                        player: name.to_string(),
                    }),
                    None => Ok(()),
                }
            });
        if let Err(e) = checked {
            spare.append(&mut self.entries);
            return Err(e);
        }
        id.clone_into(&mut self.id);
        self.time = None;
        self.factors.clear();
        // Every entry here and in `spare` was made below: one member who played the
        // whole match, no team, no factor. Only the player and the place change.
        if self.entries.len() > n {
            spare.extend(self.entries.drain(n..));
        }
        while self.entries.len() < n {
            self.entries.push(spare.pop().unwrap_or_else(|| Entry {
                team: None,
                members: vec![Member {
                    player: String::new(),
                    weight: 1.0,
                }],
                finish: Finish::Rank(1.0),
                factors: Vec::new(),
            }));
        }
        for ((slot, &place), entry) in players.iter().zip(places).zip(&mut self.entries) {
            debug_assert!(entry.team.is_none() && entry.members.len() == 1);
            let member = &mut entry.members[0];
            match *slot {
                Slot::Known(i) => lend(i, &mut member.player),
                Slot::New(name) => {
                    member.player.clear();
                    member.player.push_str(name);
                }
            }
            entry.finish = Finish::Rank(place as f64);
        }
        self.offsets.extend(1..n + 1);
        self.places.extend_from_slice(places);
        Ok(())
    }

    /// The id of the player of entry `entry` of a match of single players
    /// ([`Match::refill_ranked`]), to be put in place. The caller keeps what a built
    /// match is: a valid id, no player twice.
    pub(crate) fn solo_player_mut(&mut self, entry: usize) -> &mut String {
        &mut self.entries[entry].members[0].player
    }
}

/// Checks that `places` rank `players` entries best first as [`Match::place`] gives them:
/// the first is 1, and each next one is either the one before it (a tie) or its own
/// 1-based position (places 1, 1, 3 for a tie for first).
///
/// ```
/// use podium::model::check_places;
/// assert!(check_places(3, &[1, 1, 3]).is_ok());
/// assert!(check_places(3, &[1, 2, 2]).is_ok());
/// assert!(check_places(3, &[1, 1, 2]).is_err());
/// assert!(check_places(1, &[1]).is_err()); // a match has two entries or more
/// ```
///
/// # Errors
/// [`MatchError::TooFewEntries`] for fewer than two entries, or
/// [`MatchError::InvalidPlaces`].
#[inline]
pub fn check_places(players: usize, places: &[usize]) -> Result<(), MatchError> {
    // Each place is its own position or the place before it: one pass, comparing with
    // the place before (0 before the first, which must then be 1).
    let mut prev = 0;
    let mut ok = places.len() == players && players >= 2;
    for (i, &p) in places.iter().enumerate() {
        ok &= p == i + 1 || (i > 0 && p == prev);
        prev = p;
    }
    if ok {
        return Ok(());
    }
    if players < 2 && players == places.len() {
        return Err(MatchError::TooFewEntries { found: players });
    }
    Err(MatchError::InvalidPlaces {
        players,
        places: places.to_vec(),
    })
}

/// The iterator of [`Match::players`]; it knows its length, so that collecting it
/// allocates once.
struct Players<'a> {
    entries: &'a [Entry],
    entry: usize,
    member: usize,
    left: usize,
}

impl<'a> Iterator for Players<'a> {
    type Item = (usize, &'a Member);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let entry = self.entries.get(self.entry)?;
            if let Some(m) = entry.members.get(self.member) {
                self.member += 1;
                self.left -= 1;
                return Some((self.entry, m));
            }
            self.entry += 1;
            self.member = 0;
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Players<'_> {}

/// The longest player id, team name or match id, in bytes: room for any name or handle
/// (Codeforces handles have at most 24 characters, Formula 1 driver references a few
/// dozen), and short enough for a page's address to hold.
pub const MAX_ID_LEN: usize = 200;

/// Whether `id` is a valid player id or team name: 1 to [`MAX_ID_LEN`] bytes without
/// surrounding white space or control characters (line breaks, tabs, NUL). Every reader
/// of matches applies it, as [`MatchBuilder::build`] does.
///
/// ```
/// use podium::model::check_id;
/// assert!(check_id("ann") && check_id("^1Sarge") && check_id("Kimi Räikkönen"));
/// assert!(!check_id("") && !check_id(" ann") && !check_id("a\nb") && !check_id(&"x".repeat(201)));
/// ```
#[must_use]
#[inline]
pub fn check_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_ID_LEN && trimmed(id) && !crate::factor::has_control(id)
}

/// Checks a player id by [`check_id`].
///
/// # Errors
/// [`MatchError::InvalidPlayerId`].
pub fn check_player_id(id: &str) -> Result<(), MatchError> {
    if check_id(id) {
        Ok(())
    } else {
        Err(MatchError::InvalidPlayerId {
            player: id.to_string(),
        })
    }
}

/// Checks a match id: empty (no id) or valid by [`check_id`].
///
/// # Errors
/// [`MatchError::InvalidMatchId`].
#[inline]
pub fn check_match_id(id: &str) -> Result<(), MatchError> {
    if id.is_empty() || check_id(id) {
        Ok(())
    } else {
        Err(MatchError::InvalidMatchId { id: id.to_string() })
    }
}

/// Whether a player id has no leading or trailing white space: a check of its end bytes
/// when they are ASCII, `str::trim` otherwise.
fn trimmed(id: &str) -> bool {
    match (id.as_bytes().first(), id.as_bytes().last()) {
        (Some(&a), Some(&z)) if a.is_ascii() && z.is_ascii() => {
            !a.is_ascii_whitespace() && !z.is_ascii_whitespace() && a != 0x0b && z != 0x0b
        }
        _ => id.trim() == id,
    }
}

/// Builds a [`Match`]; see [`Match::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct MatchBuilder {
    id: String,
    time: Option<i64>,
    entries: Vec<Entry>,
    /// A factor given before any entry: an error when the match is built.
    stray_factor: Option<Factor>,
}

impl MatchBuilder {
    /// Sets when the match was played (seconds since the Unix epoch, UTC).
    pub fn time(mut self, time: i64) -> Self {
        self.time = Some(time);
        self
    }

    /// Adds a player entering alone.
    pub fn player(self, player: impl Into<String>, finish: Finish) -> Self {
        self.weighted_player(player, finish, 1.0)
    }

    /// Adds a player entering alone who played a share `weight` of the match.
    pub fn weighted_player(
        mut self,
        player: impl Into<String>,
        finish: Finish,
        weight: f64,
    ) -> Self {
        self.entries.push(Entry {
            team: None,
            members: vec![Member {
                player: player.into(),
                weight,
            }],
            finish,
            factors: Vec::new(),
        });
        self
    }

    /// Adds a team whose members all played the whole match.
    pub fn team<S: Into<String>>(
        mut self,
        team: impl Into<String>,
        players: impl IntoIterator<Item = S>,
        finish: Finish,
    ) -> Self {
        self.entries.push(Entry {
            team: Some(team.into()),
            members: players
                .into_iter()
                .map(|p| Member {
                    player: p.into(),
                    weight: 1.0,
                })
                .collect(),
            finish,
            factors: Vec::new(),
        });
        self
    }

    /// Gives the entry added last a factor (`kind=value`, e.g. `car=ferrari`); a second
    /// value of one kind, or a factor given before any entry, is an error when the match
    /// is built.
    pub fn factor(mut self, kind: impl Into<String>, value: impl Into<String>) -> Self {
        let factor = Factor::new(kind, value);
        match self.entries.last_mut() {
            Some(e) => e.factors.push(factor),
            None => {
                self.stray_factor.get_or_insert(factor);
            }
        }
        self
    }

    /// Adds an entry as it is.
    pub fn entry(mut self, entry: Entry) -> Self {
        self.entries.push(entry);
        self
    }

    /// Adds one result row: a solo entry, or a member joining (or founding) its team.
    ///
    /// # Errors
    /// [`MatchError::TeamFinishMismatch`] when the row's team already has another finish
    /// (its `finishes` are the team's rows so far: [`Match::from_rows`] adds the team's
    /// later rows to name the members at odds with the most).
    pub fn row(mut self, row: ResultRow) -> Result<Self, MatchError> {
        let member = Member {
            player: row.player,
            weight: row.weight,
        };
        match row.team {
            None => self.entries.push(Entry {
                team: None,
                members: vec![member],
                finish: row.finish,
                factors: row.factors,
            }),
            Some(team) => {
                let existing = self
                    .entries
                    .iter_mut()
                    .find(|e| e.team.as_deref() == Some(team.as_str()));
                match existing {
                    Some(entry) => {
                        if !same_finish(entry.finish, row.finish) {
                            let mut finishes = vec![(
                                entry.finish,
                                entry.members.iter().map(|m| m.player.clone()).collect(),
                            )];
                            add_finish(&mut finishes, &member.player, row.finish);
                            return Err(team_mismatch(team, finishes));
                        }
                        merge_factors(&mut entry.factors, row.factors.iter(), &member.player)?;
                        entry.members.push(member);
                    }
                    None => self.entries.push(Entry {
                        team: Some(team),
                        members: vec![member],
                        finish: row.finish,
                        factors: row.factors,
                    }),
                }
            }
        }
        Ok(self)
    }

    /// Validates and builds the match.
    ///
    /// # Errors
    /// [`MatchError::TooFewEntries`], [`MatchError::DuplicatePlayer`],
    /// [`MatchError::EmptyTeam`], [`MatchError::NonFiniteFinish`],
    /// [`MatchError::MixedFinishKinds`], [`MatchError::InvalidWeight`],
    /// [`MatchError::InvalidPlayerId`], [`MatchError::InvalidTeamName`],
    /// [`MatchError::InvalidMatchId`], [`MatchError::InvalidFactor`],
    /// [`MatchError::DuplicateTeam`] or [`MatchError::FactorWithoutEntry`], naming the
    /// offending player, team or factor.
    pub fn build(self) -> Result<Match, MatchError> {
        if let Some(f) = self.stray_factor {
            return Err(MatchError::FactorWithoutEntry {
                kind: f.kind,
                value: f.value,
            });
        }
        finish_match(
            self.id,
            self.time,
            self.entries,
            Vec::new(),
            Vec::new(),
            Vec::new(),
        )
    }

    /// As [`MatchBuilder::build`] without checking the players' ids and the teams'
    /// names: for a match made inside the library whose members are not players
    /// ([`crate::factor::Enlarged`]).
    pub(crate) fn build_with_any_ids(self) -> Result<Match, MatchError> {
        build_match(
            self.id,
            self.time,
            self.entries,
            (Vec::new(), Vec::new(), Vec::new()),
            false,
        )
    }
}

/// Validates entries and builds the match, reusing the `places` and `offsets` buffers.
fn finish_match(
    id: String,
    time: Option<i64>,
    entries: Vec<Entry>,
    places: Vec<usize>,
    offsets: Vec<usize>,
    factors: Vec<MatchFactor>,
) -> Result<Match, MatchError> {
    build_match(id, time, entries, (places, offsets, factors), true)
}

/// [`finish_match`], checking the ids of players and teams by [`check_id`] when `ids`.
fn build_match(
    id: String,
    time: Option<i64>,
    mut entries: Vec<Entry>,
    (mut places, mut offsets, mut factors): (Vec<usize>, Vec<usize>, Vec<MatchFactor>),
    ids: bool,
) -> Result<Match, MatchError> {
    check_match_id(&id)?;
    let mut seen = Seen::new(entries.iter().map(|e| e.members.len()).sum());
    let first_kind = entries.first().map(|e| e.finish.kind());
    for entry in &entries {
        if entry.members.is_empty() {
            return Err(MatchError::EmptyTeam {
                team: entry.team.clone().unwrap_or_default(),
            });
        }
        if let Some(team) = entry.team.as_deref().filter(|t| ids && !check_id(t)) {
            return Err(MatchError::InvalidTeamName {
                team: team.to_string(),
            });
        }
        for m in &entry.members {
            if ids && !check_id(&m.player) {
                return Err(MatchError::InvalidPlayerId {
                    player: m.player.clone(),
                });
            }
            if !(MIN_WEIGHT..=1.0).contains(&m.weight) {
                return Err(MatchError::InvalidWeight {
                    player: m.player.clone(),
                    weight: m.weight,
                });
            }
            if !seen.insert(m.player.as_str()) {
                return Err(MatchError::DuplicatePlayer {
                    player: m.player.clone(),
                });
            }
        }
        let who = || entry.members[0].player.clone();
        if !entry.finish.value().is_finite() {
            return Err(MatchError::NonFiniteFinish {
                player: who(),
                value: entry.finish.value(),
            });
        }
        if Some(entry.finish.kind()) != first_kind {
            return Err(MatchError::MixedFinishKinds {
                player: who(),
                expected: first_kind.unwrap_or("rank"),
                found: entry.finish.kind(),
            });
        }
        crate::factor::check_entry(entry)?;
    }
    if entries.len() < 2 {
        return Err(MatchError::TooFewEntries {
            found: entries.len(),
        });
    }
    drop(seen);
    if ids {
        check_team_names(&entries)?;
    }
    entries.sort_by(|a, b| a.finish.sort_key().total_cmp(&b.finish.sort_key()));
    places.clear();
    places.reserve(entries.len());
    offsets.clear();
    offsets.reserve(entries.len() + 1);
    offsets.push(0);
    for (i, e) in entries.iter().enumerate() {
        let place = if i > 0 && entries[i - 1].finish.sort_key() == e.finish.sort_key() {
            places[i - 1]
        } else {
            i + 1
        };
        places.push(place);
        offsets.push(offsets[i] + e.members.len());
    }
    crate::factor::distinguishing(&entries, &mut factors);
    Ok(Match {
        id,
        time,
        entries,
        places,
        offsets,
        factors,
    })
}

/// Refuses two entries under one team name: a scan for the few teams of most matches
/// (no allocation), a sort for many.
fn check_team_names(entries: &[Entry]) -> Result<(), MatchError> {
    let duplicate = |team: &str| MatchError::DuplicateTeam {
        team: team.to_string(),
    };
    let teams = entries.iter().filter_map(|e| e.team.as_deref());
    if teams.clone().nth(FEW).is_none() {
        for (i, a) in teams.clone().enumerate() {
            if teams.clone().skip(i + 1).any(|b| a == b) {
                return Err(duplicate(a));
            }
        }
        return Ok(());
    }
    let mut sorted: Vec<&str> = teams.collect();
    sorted.sort_unstable();
    match sorted.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(duplicate(w[0])),
        None => Ok(()),
    }
}

/// The players met so far while validating a match: a linear scan of an array on the
/// stack for the usual small match (cheaper than hashing, no allocation), a hash set for
/// large free-for-alls.
// The array is the point: it lives on the stack for one `build` call instead of being
// allocated, so the variants' sizes differ on purpose.
#[allow(clippy::large_enum_variant)]
enum Seen<'a> {
    Few([&'a str; FEW], usize),
    Many(HashSet<&'a str>),
}

/// Players up to which [`Seen`] scans instead of hashing.
const FEW: usize = 24;

impl<'a> Seen<'a> {
    fn new(players: usize) -> Self {
        if players <= FEW {
            Seen::Few([""; FEW], 0)
        } else {
            Seen::Many(HashSet::with_capacity(players))
        }
    }

    /// Adds a player; false if already there.
    fn insert(&mut self, player: &'a str) -> bool {
        match self {
            Seen::Few(v, n) if v[..*n].contains(&player) => false,
            Seen::Few(v, n) if *n < FEW => {
                v[*n] = player;
                *n += 1;
                true
            }
            // More players than announced: go on with a set.
            Seen::Few(v, _) => {
                let mut set: HashSet<&'a str> = v.iter().copied().collect();
                set.insert(player);
                *self = Seen::Many(set);
                true
            }
            Seen::Many(set) => set.insert(player),
        }
    }
}

/// Adds a row's factors to its entry's: a kind the entry has already must have the same
/// value.
fn merge_factors<'f>(
    into: &mut Vec<Factor>,
    add: impl Iterator<Item = &'f Factor>,
    player: &str,
) -> Result<(), MatchError> {
    for f in add {
        match into.iter().find(|g| g.kind == f.kind) {
            Some(g) if g.value == f.value => {}
            Some(g) => {
                return Err(MatchError::FactorMismatch {
                    player: player.to_string(),
                    expected: g.to_string(),
                    found: f.to_string(),
                })
            }
            None => into.push(f.clone()),
        }
    }
    Ok(())
}

fn same_finish(a: Finish, b: Finish) -> bool {
    a.kind() == b.kind() && a.value() == b.value()
}

/// A team's members by the finish each was given, in the order first given.
type Finishes = Vec<(Finish, Vec<String>)>;

/// Counts `player` among the members given `finish`.
fn add_finish(finishes: &mut Finishes, player: &str, finish: Finish) {
    match finishes.iter_mut().find(|(f, _)| same_finish(*f, finish)) {
        Some((_, players)) => players.push(player.to_string()),
        None => finishes.push((finish, vec![player.to_string()])),
    }
}

/// The finish more of the team's members were given than any other, if one was.
fn majority(finishes: &[(Finish, Vec<String>)]) -> Option<usize> {
    let most = finishes.iter().map(|(_, p)| p.len()).max()?;
    let mut most_given = finishes
        .iter()
        .enumerate()
        .filter(|(_, (_, p))| p.len() == most)
        .map(|(k, _)| k);
    let first = most_given.next()?;
    most_given.next().is_none().then_some(first)
}

/// The error of team `team`, whose members were given the (two or more) `finishes`.
fn team_mismatch(team: String, finishes: Finishes) -> MatchError {
    let usual = majority(&finishes).unwrap_or(0);
    // The finishes are in the order first given: the first other than the usual one
    // holds the first member at odds with it.
    let odd = usize::from(usual == 0);
    let player = finishes[odd].1[0].clone();
    MatchError::TeamFinishMismatch {
        team,
        player,
        finishes,
    }
}

/// The most names of one finish a message lists.
const LISTED: usize = 8;

/// `"Tom"`, `"Tom" and "Ann"`, `"Tom", "Ann" and "Bo"`, or the first [`LISTED`] and how
/// many more.
fn names(players: &[String]) -> String {
    let quoted: Vec<String> = players
        .iter()
        .take(LISTED)
        .map(|p| format!("{p:?}"))
        .collect();
    if players.len() > LISTED {
        return format!("{} and {} more", quoted.join(", "), players.len() - LISTED);
    }
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

/// The message of [`MatchError::TeamFinishMismatch`]: the members at odds with the finish
/// most of the team was given, or each finish with its members when none was given
/// most.
pub(crate) fn team_mismatch_message(team: &str, finishes: &[(Finish, Vec<String>)]) -> String {
    let Some(usual) = majority(finishes) else {
        let each: Vec<String> = finishes
            .iter()
            .map(|(f, p)| format!("{f}: {}", names(p)))
            .collect();
        return format!(
            "team {team:?}: its players' finishes disagree ({}); a team's players share one finish",
            each.join("; ")
        );
    };
    let odd: Vec<String> = finishes
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != usual)
        .map(|(_, (f, p))| {
            let who = if p.len() == 1 { "player" } else { "players" };
            format!("{who} {} finished {f}", names(p))
        })
        .collect();
    let n = finishes[usual].1.len();
    let others = if n == 1 {
        "other player".to_string()
    } else {
        format!("{n} other players")
    };
    format!(
        "team {team:?}: {}, but the team's {others} finished {}",
        odd.join(" and "),
        finishes[usual].0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_best_first_and_groups_ties() {
        let m =
            Match::with_places("g", &[("c", 3), ("a", 1), ("d", 3), ("b", 1), ("e", 5)]).unwrap();
        let order: Vec<_> = m.players().map(|(_, p)| p.player.as_str()).collect();
        assert_eq!(order, ["a", "b", "c", "d", "e"]);
        assert_eq!(
            (0..5).map(|e| m.place(e)).collect::<Vec<_>>(),
            [1, 1, 3, 3, 5]
        );
        assert_eq!(m.groups().collect::<Vec<_>>(), [0..2, 2..4, 4..5]);
        assert_eq!(m.tie_group(3), 2..4);
        assert_eq!(m.winners(), 2);
    }

    #[test]
    fn scores_sort_descending() {
        let m = Match::builder("g")
            .player("low", Finish::Score(3.0))
            .player("high", Finish::Score(10.0))
            .build()
            .unwrap();
        assert_eq!(m.entries()[0].members[0].player, "high");
    }

    /// A match written with serde reads back as the same match, and a match written by
    /// hand is checked as one built.
    #[cfg(feature = "serde")]
    #[test]
    fn a_match_reads_back_as_written_and_checked() {
        let m = Match::builder("g")
            .time(1_700_000_000)
            .team("red", ["a", "b"], Finish::Score(3.0))
            .factor("car", "x")
            .weighted_player("c", Finish::Score(5.0), 0.5)
            .player("d", Finish::Score(3.0))
            .build()
            .unwrap();
        let json = serde_json::to_string(&m).unwrap();
        assert!(
            !json.contains("places") && !json.contains("offsets"),
            "{json}"
        );
        let back: Match = serde_json::from_str(&json).unwrap();
        assert_eq!(back, m);
        assert_eq!(
            (0..m.len()).map(|e| back.place(e)).collect::<Vec<_>>(),
            [1, 2, 2]
        );
        let bad = json.replace("\"d\"", "\"a\"");
        let err = serde_json::from_str::<Match>(&bad).unwrap_err();
        assert_eq!(
            err.to_string(),
            "player \"a\" appears more than once in the match"
        );
    }

    /// Two entries under one team name, or a factor given before any entry, are refused
    /// when built, not taken as two teams or dropped.
    #[test]
    fn a_team_name_twice_or_a_factor_before_any_entry_is_refused() {
        let err = Match::builder("g")
            .team("red", ["a"], Finish::Rank(1.0))
            .team("blue", ["c"], Finish::Rank(2.0))
            .team("red", ["b"], Finish::Rank(3.0))
            .build()
            .unwrap_err();
        assert_eq!(err, MatchError::DuplicateTeam { team: "red".into() });
        // Past the few teams scanned pair by pair, the same, by sorting.
        let mut many = Match::builder("g");
        for t in 0..40 {
            many = many.team(
                format!("t{}", t % 39),
                [format!("p{t}")],
                Finish::Rank(f64::from(t)),
            );
        }
        assert_eq!(
            many.build().unwrap_err(),
            MatchError::DuplicateTeam { team: "t0".into() }
        );
        assert_eq!(
            err.to_string(),
            "team name \"red\" is given to two entries; a team is one entry, with all its players"
        );
        let err = Match::builder("g")
            .factor("car", "r")
            .player("a", Finish::Rank(1.0))
            .player("b", Finish::Rank(2.0))
            .build()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "factor \"car\"=\"r\" is given before any player or team; give it after the entry it belongs to"
        );
    }

    #[test]
    fn rejects_bad_matches_with_the_culprit() {
        assert_eq!(
            Match::ranked("g", &["a"]).unwrap_err(),
            MatchError::TooFewEntries { found: 1 }
        );
        assert_eq!(
            Match::ranked("g", &["a", "b", "a"]).unwrap_err(),
            MatchError::DuplicatePlayer { player: "a".into() }
        );
        let empty: [&str; 0] = [];
        let err = Match::builder("g")
            .team("red", empty, Finish::Rank(1.0))
            .player("x", Finish::Rank(2.0))
            .build()
            .unwrap_err();
        assert_eq!(err, MatchError::EmptyTeam { team: "red".into() });
        let err = Match::builder("g")
            .player("a", Finish::Rank(f64::NAN))
            .player("b", Finish::Rank(1.0))
            .build()
            .unwrap_err();
        assert!(matches!(err, MatchError::NonFiniteFinish { ref player, .. } if player == "a"));
        let err = Match::builder("g")
            .player("a", Finish::Rank(1.0))
            .player("b", Finish::Score(1.0))
            .build()
            .unwrap_err();
        assert!(matches!(err, MatchError::MixedFinishKinds { ref player, .. } if player == "b"));
        let err = Match::builder("g")
            .weighted_player("a", Finish::Rank(1.0), 0.0)
            .player("b", Finish::Rank(2.0))
            .build()
            .unwrap_err();
        assert!(matches!(err, MatchError::InvalidWeight { ref player, .. } if player == "a"));
        assert!(matches!(
            Match::ranked("g", &[" a", "b"]).unwrap_err(),
            MatchError::InvalidPlayerId { .. }
        ));
    }

    fn rows_strategy() -> impl proptest::strategy::Strategy<Value = Vec<ResultRow>> {
        use proptest::prelude::*;
        let row = (
            prop::sample::select(vec!["a", "b", "c", "d", "e", " f", ""]),
            prop::option::of(prop::sample::select(vec!["x", "y"])),
            prop::sample::select(vec![1.0, 2.0, 3.0, f64::NAN]),
            prop::sample::select(vec![1.0, 0.5, 0.0]),
        )
            .prop_map(|(p, t, r, w)| ResultRow {
                player: p.to_string(),
                team: t.map(str::to_string),
                finish: Finish::Rank(r),
                weight: w,
                factors: Vec::new(),
            });
        prop::collection::vec(row, 0..8)
    }

    proptest::proptest! {
        #[test]
        fn rows_by_reference_build_what_owned_rows_build(
            rows in rows_strategy(),
            spare_rows in rows_strategy(),
            use_spare in proptest::bool::ANY,
        ) {
            let spare = Match::from_rows("old", Some(7), spare_rows).ok().filter(|_| use_spare);
            let refs = rows.iter().map(|r| RowRef {
                player: &r.player,
                team: r.team.as_deref(),
                finish: r.finish,
                weight: r.weight,
                factors: &r.factors,
            });
            let got = Match::from_row_refs(spare, "g", None, refs);
            let want = Match::from_rows("g", None, rows.clone());
            // NaN finishes make equal matches compare unequal: compare their text.
            proptest::prop_assert_eq!(format!("{got:?}"), format!("{want:?}"));
        }
    }

    #[test]
    fn player_id_longer_than_the_limit_is_refused() {
        let long = "x".repeat(MAX_ID_LEN + 1);
        assert_eq!(
            Match::ranked("g", &[long.as_str(), "b"]).unwrap_err(),
            MatchError::InvalidPlayerId { player: long }
        );
        let longest = "x".repeat(MAX_ID_LEN);
        assert!(Match::ranked("g", &[longest.as_str(), "b"]).is_ok());
        let huge = "x".repeat(500_000);
        let msg = Match::ranked("g", &[huge.as_str(), "b"])
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            format!(
                "player id {:?}… (500000 bytes) is not valid, expected 1 to 200 bytes without surrounding spaces or control characters",
                "x".repeat(60)
            )
        );
    }

    #[test]
    fn player_id_with_a_control_character_is_refused() {
        for id in ["a\u{0}b", "a\nb", "a\tb", "a\u{7f}", "a\u{9b}b"] {
            assert_eq!(
                Match::ranked("g", &[id, "b"]).unwrap_err(),
                MatchError::InvalidPlayerId { player: id.into() },
                "{id:?}"
            );
        }
        // Names as real files give them: Quake colour codes, accents, spaces inside.
        for id in ["^1Sarge^7", "Kimi Räikkönen", "tourist", "a b"] {
            assert!(check_id(id), "{id:?}");
        }
    }

    #[test]
    fn team_names_and_match_ids_follow_the_rules_of_ids() {
        let err = Match::builder("g")
            .team("red\nside", ["a"], Finish::Rank(1.0))
            .player("b", Finish::Rank(2.0))
            .build()
            .unwrap_err();
        assert_eq!(
            err,
            MatchError::InvalidTeamName {
                team: "red\nside".into()
            }
        );
        let long = "g".repeat(MAX_ID_LEN + 1);
        assert_eq!(
            Match::ranked(long.as_str(), &["a", "b"]).unwrap_err(),
            MatchError::InvalidMatchId { id: long }
        );
        assert!(Match::ranked("", &["a", "b"]).is_ok());
        assert!(Match::ranked("g\u{0}", &["a", "b"]).is_err());
    }

    #[test]
    fn the_white_space_shortcut_agrees_with_trim() {
        for id in [
            "a", " a", "a ", "\u{b}a", "a\u{c}", "\u{85}a", "a\u{a0}", "é", "a b", "\ta",
        ] {
            assert_eq!(trimmed(id), id.trim() == id, "{id:?}");
        }
    }

    /// A row of player `p` in team `t` at rank `r`.
    fn row(p: &str, t: &str, r: f64) -> ResultRow {
        ResultRow {
            player: p.into(),
            team: Some(t.into()),
            finish: Finish::Rank(r),
            weight: 1.0,
            factors: Vec::new(),
        }
    }

    #[test]
    fn rows_form_teams_and_check_their_finish() {
        let m = Match::from_rows(
            "g",
            None,
            [row("a", "x", 2.0), row("b", "y", 1.0), row("c", "x", 2.0)],
        )
        .unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m.member_range(1), 1..3);
        assert_eq!(m.entries()[1].team.as_deref(), Some("x"));
        let err = Match::from_rows(
            "g",
            None,
            [row("a", "x", 2.0), row("b", "y", 1.0), row("c", "x", 3.0)],
        )
        .unwrap_err();
        assert!(matches!(err, MatchError::TeamFinishMismatch { ref player, .. } if player == "c"));
    }

    /// Rows of team `t` (ranks) and one of team `u` (rank 9), the team's rows first.
    fn team_rows(ranks: &[(&str, f64)]) -> Vec<ResultRow> {
        let mut rows: Vec<ResultRow> = ranks.iter().map(|&(p, r)| row(p, "Team 1", r)).collect();
        rows.insert(1, row("zed", "Team 2", 9.0));
        rows
    }

    /// The error of [`Match::from_rows`] and of [`Match::from_row_refs`] (with and
    /// without a spare match), which must agree.
    fn team_error(ranks: &[(&str, f64)]) -> MatchError {
        let rows = team_rows(ranks);
        let owned = Match::from_rows("g", None, rows.clone()).unwrap_err();
        let refs = || {
            rows.iter().map(|r| RowRef {
                player: &r.player,
                team: r.team.as_deref(),
                finish: r.finish,
                weight: r.weight,
                factors: &r.factors,
            })
        };
        let spare = Match::with_places("s", &[("a", 1), ("b", 2), ("c", 3)]).unwrap();
        for borrowed in [
            Match::from_row_refs(None, "g", None, refs()).unwrap_err(),
            Match::from_row_refs(Some(spare), "g", None, refs()).unwrap_err(),
        ] {
            assert_eq!(borrowed.to_string(), owned.to_string());
        }
        owned
    }

    #[test]
    fn a_team_finish_mismatch_names_the_players_at_odds_with_the_most() {
        // Tom, the team's first row, kept rank 1 with two others; Ann's place changed.
        let err = team_error(&[("Tom", 1.0), ("Bo", 1.0), ("Ann", 2.0), ("Cy", 1.0)]);
        assert_eq!(
            err.to_string(),
            r#"team "Team 1": player "Ann" finished rank 2, but the team's 3 other players finished rank 1"#
        );
        match err {
            MatchError::TeamFinishMismatch {
                player, finishes, ..
            } => {
                assert_eq!(player, "Ann");
                let by_finish: Vec<(Finish, usize)> =
                    finishes.iter().map(|(f, p)| (*f, p.len())).collect();
                assert_eq!(by_finish, [(Finish::Rank(1.0), 3), (Finish::Rank(2.0), 1)]);
            }
            other => panic!("{other}"),
        }
        // The first row is the odd one: it is named, not the others.
        let err = team_error(&[("Tom", 2.0), ("Bo", 1.0), ("Ann", 1.0), ("Cy", 1.0)]);
        assert_eq!(
            err.to_string(),
            r#"team "Team 1": player "Tom" finished rank 2, but the team's 3 other players finished rank 1"#
        );
        // Several at odds, at two finishes.
        let err = team_error(&[
            ("Tom", 1.0),
            ("Bo", 3.0),
            ("Ann", 1.0),
            ("Cy", 2.0),
            ("Dee", 1.0),
            ("Eve", 3.0),
        ]);
        assert_eq!(
            err.to_string(),
            r#"team "Team 1": players "Bo" and "Eve" finished rank 3 and player "Cy" finished rank 2, but the team's 3 other players finished rank 1"#
        );
        assert!(matches!(err, MatchError::TeamFinishMismatch { ref player, .. } if player == "Bo"));
    }

    #[test]
    fn a_team_finish_mismatch_without_a_majority_lists_each_finish() {
        let err = team_error(&[("Tom", 1.0), ("Bo", 2.0), ("Ann", 2.0), ("Cy", 1.0)]);
        assert_eq!(
            err.to_string(),
            r#"team "Team 1": its players' finishes disagree (rank 1: "Tom" and "Cy"; rank 2: "Bo" and "Ann"); a team's players share one finish"#
        );
        match err {
            MatchError::TeamFinishMismatch {
                player, finishes, ..
            } => {
                assert_eq!(player, "Bo");
                assert_eq!(finishes.len(), 2);
            }
            other => panic!("{other}"),
        }
        let err = team_error(&[("Tom", 1.0), ("Bo", 2.0)]);
        assert_eq!(
            err.to_string(),
            r#"team "Team 1": its players' finishes disagree (rank 1: "Tom"; rank 2: "Bo"); a team's players share one finish"#
        );
        // A long list is cut.
        let many: Vec<(String, f64)> = (0..20)
            .map(|k| (format!("p{k}"), f64::from(k % 2)))
            .collect();
        let many: Vec<(&str, f64)> = many.iter().map(|(p, r)| (p.as_str(), *r + 1.0)).collect();
        assert_eq!(
            team_error(&many).to_string(),
            r#"team "Team 1": its players' finishes disagree (rank 1: "p0", "p2", "p4", "p6", "p8", "p10", "p12", "p14" and 2 more; rank 2: "p1", "p3", "p5", "p7", "p9", "p11", "p13", "p15" and 2 more); a team's players share one finish"#
        );
    }
}
