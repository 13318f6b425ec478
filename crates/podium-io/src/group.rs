//! Turns a stream of result rows into matches: contiguous rows with one id form a match.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use std::ops::Range;

use podium::model::RowRef;
use podium::{Factor, Finish, Match};

use crate::error::{factor_mismatch, field_of, player_of, ReadError};

/// How many recent match ids are remembered to catch a match whose rows are split. The
/// window is fixed so that memory does not grow with the number of matches; an id that
/// reappears further apart than this is read as a new match of the same name.
pub const RECENT_IDS: usize = 65_536;

/// One parsed row with where it came from, borrowing the reader's buffer: nothing is
/// allocated until the grouper keeps the row.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row<'a> {
    pub id: &'a str,
    pub line: u64,
    pub time: Option<i64>,
    pub player: &'a str,
    pub team: Option<&'a str>,
    pub finish: Finish,
    pub weight: f64,
    /// The factors of the row's entry (empty but where factor columns are read).
    pub factors: &'a [Factor],
}

#[derive(Debug)]
struct Current {
    id: String,
    first_line: u64,
    time: Option<i64>,
    error: Option<ReadError>,
}

/// The rows of the match being read. Kept apart from [`Current`] so that their buffers
/// are reused from match to match: the players' and teams' ids are copied into one
/// string, and the rows hold ranges of it.
#[derive(Debug, Default)]
struct Rows {
    text: String,
    rows: Vec<StoredRow>,
    /// The rows' factors, each row's a range of them.
    factors: Vec<Factor>,
}

#[derive(Debug, Clone)]
struct StoredRow {
    player: Range<usize>,
    team: Option<Range<usize>>,
    finish: Finish,
    weight: f64,
    line: u64,
    factors: Range<usize>,
}

impl Rows {
    fn clear(&mut self) {
        self.text.clear();
        self.rows.clear();
        self.factors.clear();
    }

    fn push(&mut self, row: &Row<'_>) {
        let mut keep = |s: &str| {
            let start = self.text.len();
            self.text.push_str(s);
            start..self.text.len()
        };
        let player = keep(row.player);
        let team = row.team.map(&mut keep);
        let start = self.factors.len();
        self.factors.extend_from_slice(row.factors);
        self.rows.push(StoredRow {
            player,
            team,
            finish: row.finish,
            weight: row.weight,
            line: row.line,
            factors: start..self.factors.len(),
        });
    }

    fn refs(&self) -> impl Iterator<Item = RowRef<'_>> + '_ {
        self.rows.iter().map(|r| RowRef {
            player: &self.text[r.player.clone()],
            team: r.team.clone().map(|t| &self.text[t]),
            finish: r.finish,
            weight: r.weight,
            factors: &self.factors[r.factors.clone()],
        })
    }
}

/// Matches kept for their allocations (see [`Grouper::recycle`]); more are dropped.
const SPARES: usize = 512;

/// The last [`RECENT_IDS`] match ids seen, as 64-bit fingerprints, each with the line
/// where its match started (to name both places when one comes back).
///
/// Most files number their matches in order (`m1`, `m2`, … or `2024-03-01`, …). While
/// every id is greater than the one before, either shorter-first then byte by byte, or
/// byte by byte alone, no id can have been seen: only the fingerprints of the window are
/// kept, in a ring written in order. The first id out of order turns the ring into a map
/// from each fingerprint to the sequence number of the match that last had it, and the
/// map answers from then on: an entry older than the window counts as unseen. Old entries
/// are swept out once per quarter window, so that the map holds at most 1¼ windows. Memory
/// does not grow with the input either way.
#[derive(Debug)]
pub(crate) struct RecentIds {
    /// The ids remembered: [`RECENT_IDS`] but in tests.
    window: u64,
    /// Matches seen so far.
    count: u64,
    /// Whether every id so far was greater than the one before, in each order.
    rising_by_length: bool,
    rising_by_bytes: bool,
    /// The last id, while ids rise.
    last_id: String,
    /// While ids rise: the fingerprint and line of match `n` at `n % window`.
    ring: Vec<(u64, u64)>,
    /// Where the next match's fingerprint goes in `ring`: the count modulo the window,
    /// kept without dividing.
    ring_at: usize,
    /// Once they do not: fingerprints to the last match that had them and its line. The
    /// fingerprints are hashes already: the map uses them as they are.
    last: HashMap<u64, (u64, u64), BuildHasherDefault<Passthrough>>,
}

/// How often [`RecentIds`] sweeps its map: this many times per window of matches.
const SWEEPS_PER_WINDOW: u64 = 4;

impl Default for RecentIds {
    fn default() -> Self {
        RecentIds::with_window(RECENT_IDS)
    }
}

impl RecentIds {
    fn with_window(window: usize) -> Self {
        RecentIds {
            window: window.max(1) as u64,
            count: 0,
            rising_by_length: true,
            rising_by_bytes: true,
            last_id: String::new(),
            ring: Vec::new(),
            ring_at: 0,
            last: HashMap::default(),
        }
    }

    /// Whether `id` was seen among the last [`RECENT_IDS`] ids; remembers it.
    #[cfg(test)]
    pub fn seen_before(&mut self, id: &str) -> bool {
        self.seen_before_as(id, fingerprint(id))
    }

    /// [`RecentIds::seen_before`] of `id`, whose [`fingerprint`] `fp` the caller has.
    pub fn seen_before_as(&mut self, id: &str, fp: u64) -> bool {
        self.seen_at_as(id, fp, 0).is_some()
    }

    /// The line where `id`'s match started, when `id` was seen among the last
    /// [`RECENT_IDS`] ids; remembers it as starting on `line`.
    pub fn seen_at(&mut self, id: &str, line: u64) -> Option<u64> {
        self.seen_at_as(id, fingerprint(id), line)
    }

    /// [`RecentIds::seen_at`] of `id`, whose [`fingerprint`] `fp` the caller has.
    fn seen_at_as(&mut self, id: &str, fp: u64, line: u64) -> Option<u64> {
        let now = self.count;
        self.count += 1;
        if self.ring_answers(id, now) {
            match self.ring.get_mut(self.ring_at) {
                Some(slot) => *slot = (fp, line),
                None => self.ring.push((fp, line)),
            }
            self.ring_at += 1;
            if self.ring_at as u64 == self.window {
                self.ring_at = 0;
            }
            return None;
        }
        let window = self.window;
        let sweep = (window / SWEEPS_PER_WINDOW).max(1);
        if now > 0 && now % sweep == 0 {
            self.last.retain(|_, (seen, _)| now - *seen <= window);
        }
        match self.last.insert(fp, (now, line)) {
            Some((seen, at)) if now - seen <= window => Some(at),
            _ => None,
        }
    }

    /// The ids of the matches whose fingerprints and first lines `fps` gives, oldest
    /// first, as seen: what a reader that had read those matches would remember. The
    /// last [`RECENT_IDS`] count.
    pub fn from_fingerprints(fps: impl IntoIterator<Item = (u64, u64)>) -> Self {
        let window = RECENT_IDS as u64;
        let mut recent = RecentIds {
            rising_by_length: false,
            rising_by_bytes: false,
            last: HashMap::with_capacity_and_hasher(
                (window + window / SWEEPS_PER_WINDOW) as usize + 2,
                BuildHasherDefault::default(),
            ),
            ..RecentIds::default()
        };
        for (fp, line) in fps {
            recent.last.insert(fp, (recent.count, line));
            recent.count += 1;
        }
        let now = recent.count;
        recent.last.retain(|_, (seen, _)| now - *seen <= window);
        recent
    }

    /// Whether the ring answers for `id`, match `now`: ids still rise. The first time
    /// they do not, the ring's matches go into the map.
    fn ring_answers(&mut self, id: &str, now: u64) -> bool {
        if !(self.rising_by_length || self.rising_by_bytes) {
            return false;
        }
        if now > 0 {
            // One comparison of the bytes serves both orders.
            let bytes = id.cmp(self.last_id.as_str());
            self.rising_by_length &= id.len().cmp(&self.last_id.len()).then(bytes).is_gt();
            self.rising_by_bytes &= bytes.is_gt();
        }
        if self.rising_by_length || self.rising_by_bytes {
            self.last_id.clear();
            self.last_id.push_str(id);
            return true;
        }
        let window = self.window;
        self.last = HashMap::with_capacity_and_hasher(
            (window + window / SWEEPS_PER_WINDOW) as usize + 2,
            BuildHasherDefault::default(),
        );
        for seq in now.saturating_sub(window)..now {
            let (fp, line) = self.ring[(seq % window) as usize];
            self.last.insert(fp, (seq, line));
        }
        self.ring = Vec::new();
        self.last_id = String::new();
        false
    }
}

/// Groups rows into matches and checks what one match's rows must share.
#[derive(Debug)]
pub(crate) struct Grouper {
    file: String,
    current: Option<Current>,
    rows: Rows,
    recent: RecentIds,
    /// The first good match with a time, by id and first line: every match after it
    /// needs a time ([`times_expected`]).
    dated: Option<(String, u64)>,
    /// Matches handed back by the caller, whose allocations the next matches reuse.
    spares: Vec<Match>,
    /// The first line of the match handed out last.
    line: u64,
}

/// A hasher for keys that are hashes already (fingerprints): it returns the key.
#[derive(Debug, Default)]
pub(crate) struct Passthrough(u64);

impl Hasher for Passthrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A 64-bit FNV-1a fingerprint, cheap on short ids. Two ids share one with a chance of
/// about 2⁻⁶⁴, far below anything a real file meets.
pub(crate) fn fingerprint(id: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in id.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Grouper {
    pub fn new(file: String) -> Self {
        Grouper::with_recent(file, RecentIds::default())
    }

    /// A grouper that goes on from where another reader stopped, remembering the ids
    /// that reader saw.
    pub fn with_recent(file: String, recent: RecentIds) -> Self {
        Grouper {
            file,
            current: None,
            rows: Rows::default(),
            recent,
            dated: None,
            spares: Vec::new(),
            line: 0,
        }
    }

    /// The first line of the match (or bad match) handed out last.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// Adds a row; returns a finished match when this row starts the next one.
    pub fn push(&mut self, row: Result<Row<'_>, ReadError>) -> Option<Result<Match, ReadError>> {
        let row = match row {
            Ok(row) => row,
            Err(mut err) => {
                // A row error without a match id belongs to the match being read.
                if let (
                    ReadError::Field {
                        match_id: m @ None, ..
                    },
                    Some(cur),
                ) = (&mut err, &self.current)
                {
                    *m = Some(cur.id.clone());
                }
                let id = err.match_id().map(str::to_string);
                return match (id, &mut self.current) {
                    (Some(id), Some(cur)) if id == cur.id => {
                        cur.error.get_or_insert(err);
                        None
                    }
                    (Some(id), _) => {
                        let done = self.flush();
                        self.start(id, 0, None);
                        if let Some(cur) = &mut self.current {
                            cur.error = Some(err);
                        }
                        done
                    }
                    (None, _) => Some(Err(err)),
                };
            }
        };
        let same = self.current.as_ref().is_some_and(|c| c.id == row.id);
        let done = if same { None } else { self.flush() };
        if !same {
            let earlier = self.recent.seen_at(row.id, row.line);
            self.start(row.id.to_string(), row.line, row.time);
            if let Some(first_line) = earlier {
                let cur = self.current.as_mut().expect("just started");
                cur.error = Some(ReadError::NotContiguous {
                    file: self.file.clone(),
                    line: row.line,
                    match_id: row.id.to_string(),
                    first_line,
                });
            }
        }
        let cur = self.current.as_mut().expect("a match is open");
        if cur.error.is_none() && self.rows.rows.is_empty() {
            cur.first_line = row.line;
            cur.time = row.time;
            // A match without a time after one with a time: the line's time is empty.
            if let (None, Some((dated, dated_line))) = (row.time, &self.dated) {
                cur.error = Some(ReadError::Field {
                    file: self.file.clone(),
                    line: row.line,
                    match_id: Some(row.id.to_string()),
                    field: "time".into(),
                    value: String::new(),
                    expected: after_dated(row.id, dated, *dated_line),
                });
            }
        } else if cur.error.is_none() && row.time != cur.time {
            cur.error = Some(ReadError::Field {
                file: self.file.clone(),
                line: row.line,
                match_id: Some(row.id.to_string()),
                field: "time".into(),
                value: row.time.map(crate::time::format_time).unwrap_or_default(),
                expected: format!(
                    "the time of the match's first row (line {}): {}",
                    cur.first_line,
                    cur.time
                        .map(crate::time::format_time)
                        .unwrap_or_else(|| "none".into())
                ),
            });
        }
        if cur.error.is_none() {
            self.rows.push(&row);
        }
        done
    }

    /// Takes back a match the caller is done with: a later match reuses its allocations.
    pub fn recycle(&mut self, m: Match) {
        if self.spares.len() < SPARES {
            self.spares.push(m);
        }
    }

    /// Ends the input: returns the last match, if any.
    pub fn finish(&mut self) -> Option<Result<Match, ReadError>> {
        self.flush()
    }

    fn start(&mut self, id: String, line: u64, time: Option<i64>) {
        self.current = Some(Current {
            id,
            first_line: line,
            time,
            error: None,
        });
    }

    fn flush(&mut self) -> Option<Result<Match, ReadError>> {
        let cur = self.current.take()?;
        self.line = cur.first_line;
        if let Some(err) = cur.error {
            self.rows.clear();
            return Some(Err(err));
        }
        let spare = self.spares.pop();
        let result =
            Match::from_row_refs(spare, &cur.id, cur.time, self.rows.refs()).map_err(|source| {
                // Point at the row of the player the error names (the last such row).
                let rows = &self.rows;
                let line = player_of(&source)
                    .and_then(|p| {
                        rows.rows
                            .iter()
                            .rfind(|r| rows.text[r.player.clone()] == *p)
                    })
                    .map_or(cur.first_line, |r| r.line);
                if let Some(e) = factor_mismatch(&self.file, line, &cur.id, &source, "") {
                    return e;
                }
                ReadError::Match {
                    file: self.file.clone(),
                    line,
                    match_id: cur.id.clone(),
                    field: field_of(&source),
                    source: Box::new(source),
                }
            });
        if result.is_ok() && cur.time.is_some() && self.dated.is_none() {
            self.dated = Some((cur.id, cur.first_line));
        }
        self.rows.clear();
        Some(result)
    }
}

/// What a match's `time` field must be once an earlier match has a time: a history may
/// begin with matches without a time (they are rated first, in order), but from its first
/// match with a time on, every match needs one, since one without would be rated before
/// the dated ones. The league server's rule too. Every front end that takes matches one
/// by one says it so.
#[must_use]
pub fn times_expected() -> &'static str {
    "a time: once a match has a time, every later match needs one (only the matches before the first with a time may have none)"
}

/// [`times_expected`] for match `id`, which comes after match `dated` (first line
/// `dated_line`) of the same file, the first there with a time.
pub(crate) fn after_dated(id: &str, dated: &str, dated_line: u64) -> String {
    format!(
        "{}; match {id:?} comes after match {dated:?} (line {dated_line}), which has one",
        times_expected()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn recent_ids_remember_a_window_of_matches() {
        let mut recent = RecentIds::default();
        assert!(!recent.seen_before("a"));
        assert!(!recent.seen_before("b"));
        assert!(recent.seen_before("a"));
        // "c" then RECENT_IDS other ids: "c" is out of the window, "x0" just inside.
        assert!(!recent.seen_before("c"));
        for i in 0..RECENT_IDS {
            assert!(!recent.seen_before(&format!("x{i}")));
        }
        assert!(!recent.seen_before("c"));
        assert!(recent.seen_before(&format!("x{}", RECENT_IDS - 1)));
        assert!(recent.seen_before("x10"));
        assert!(!recent.seen_before("x1"));
        // Old entries are swept: the map never holds much more than the window.
        assert!(recent.last.len() <= RECENT_IDS + RECENT_IDS / 4 + 2);
    }

    #[test]
    fn rising_ids_are_kept_in_a_ring_until_one_is_out_of_order() {
        let mut recent = RecentIds::default();
        for i in 0..1000 {
            assert!(!recent.seen_before(&format!("m{i}")));
        }
        assert!(recent.last.is_empty());
        assert_eq!(recent.ring.len(), 1000);
        // Out of order, and seen: the ring's matches are in the map now.
        assert!(recent.seen_before("m10"));
        assert!(recent.ring.is_empty());
        assert!(recent.seen_before("m999"));
        assert!(!recent.seen_before("m1000"));
    }

    proptest! {
        /// The same answers as remembering the last ids one by one, for ids that rise,
        /// fall or repeat, over several windows.
        #[test]
        fn recent_ids_answer_as_a_list_of_the_last_ids_would(
            window in 1usize..6,
            ids in proptest::collection::vec(
                prop_oneof![
                    3 => (0u32..1000).prop_map(|i| i.to_string()),
                    1 => "[ab]{0,3}",
                    // Ids of the rising stretch again: what the ring handed to the map.
                    2 => (0usize..60).prop_map(|i| format!("r{i:03}")),
                ],
                0..60,
            ),
            rising in 0usize..60,
        ) {
            // A rising stretch first, then the ids drawn.
            let ids: Vec<String> = (0..rising)
                .map(|i| format!("r{i:03}"))
                .chain(ids)
                .collect();
            let mut recent = RecentIds::with_window(window);
            let mut list: std::collections::VecDeque<&str> = Default::default();
            for id in &ids {
                let want = list.contains(&id.as_str());
                prop_assert_eq!(recent.seen_before(id), want, "id {} in {:?}", id, ids);
                list.push_back(id);
                if list.len() > window {
                    list.pop_front();
                }
            }
        }
    }
}
