//! Turns a stream of result rows into matches: contiguous rows with one id form a match.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use std::ops::Range;

use podium::model::RowRef;
use podium::{Finish, Match};

use crate::error::{field_of, player_of, ReadError};

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
}

#[derive(Debug, Clone)]
struct StoredRow {
    player: Range<usize>,
    team: Option<Range<usize>>,
    finish: Finish,
    weight: f64,
    line: u64,
}

impl Rows {
    fn clear(&mut self) {
        self.text.clear();
        self.rows.clear();
    }

    fn push(&mut self, row: &Row<'_>) {
        let mut keep = |s: &str| {
            let start = self.text.len();
            self.text.push_str(s);
            start..self.text.len()
        };
        let player = keep(row.player);
        let team = row.team.map(&mut keep);
        self.rows.push(StoredRow {
            player,
            team,
            finish: row.finish,
            weight: row.weight,
            line: row.line,
        });
    }

    fn refs(&self) -> impl Iterator<Item = RowRef<'_>> + '_ {
        self.rows.iter().map(|r| RowRef {
            player: &self.text[r.player.clone()],
            team: r.team.clone().map(|t| &self.text[t]),
            finish: r.finish,
            weight: r.weight,
        })
    }
}

/// Matches kept for their allocations (see [`Grouper::recycle`]); more are dropped.
const SPARES: usize = 512;

/// The last [`RECENT_IDS`] match ids seen, as 64-bit fingerprints.
///
/// Each fingerprint maps to the sequence number of the match that last had it; an entry
/// older than the window counts as unseen. Old entries are swept out once per quarter
/// window, so that the map (sized once for that) holds at most 1¼ windows: memory does not
/// grow with the input, and no entry is removed one match at a time.
#[derive(Debug)]
pub(crate) struct RecentIds {
    /// Matches seen so far.
    count: u64,
    /// The fingerprints are hashes already: the map uses them as they are.
    last: HashMap<u64, u64, BuildHasherDefault<Passthrough>>,
}

/// Matches between two sweeps of [`RecentIds`].
const SWEEP: u64 = RECENT_IDS as u64 / 4;

impl Default for RecentIds {
    fn default() -> Self {
        RecentIds {
            count: 0,
            last: HashMap::with_capacity_and_hasher(
                RECENT_IDS + RECENT_IDS / 4 + 2,
                BuildHasherDefault::default(),
            ),
        }
    }
}

impl RecentIds {
    /// Whether `id` was seen among the last [`RECENT_IDS`] ids; remembers it.
    pub fn seen_before(&mut self, id: &str) -> bool {
        let window = RECENT_IDS as u64;
        let now = self.count;
        self.count += 1;
        if now > 0 && now % SWEEP == 0 {
            self.last.retain(|_, seen| now - *seen <= window);
        }
        match self.last.insert(fingerprint(id), now) {
            Some(seen) => now - seen <= window,
            None => false,
        }
    }
}

/// Groups rows into matches and checks what one match's rows must share.
#[derive(Debug)]
pub(crate) struct Grouper {
    file: String,
    current: Option<Current>,
    rows: Rows,
    recent: RecentIds,
    /// Whether matches have times, as decided by the first match.
    timed: Option<bool>,
    /// Matches handed back by the caller, whose allocations the next matches reuse.
    spares: Vec<Match>,
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
fn fingerprint(id: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in id.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Grouper {
    pub fn new(file: String) -> Self {
        Grouper {
            file,
            current: None,
            rows: Rows::default(),
            recent: RecentIds::default(),
            timed: None,
            spares: Vec::new(),
        }
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
            let reappears = self.recent.seen_before(row.id);
            self.start(row.id.to_string(), row.line, row.time);
            if reappears {
                let cur = self.current.as_mut().expect("just started");
                cur.error = Some(ReadError::NotContiguous {
                    file: self.file.clone(),
                    line: row.line,
                    match_id: row.id.to_string(),
                });
            }
        }
        let cur = self.current.as_mut().expect("a match is open");
        if cur.error.is_none() && self.rows.rows.is_empty() {
            cur.first_line = row.line;
            cur.time = row.time;
            let timed = row.time.is_some();
            match self.timed {
                None => self.timed = Some(timed),
                Some(t) if t != timed => {
                    cur.error = Some(ReadError::Field {
                        file: self.file.clone(),
                        line: row.line,
                        match_id: Some(row.id.to_string()),
                        field: "time".into(),
                        value: String::new(),
                        expected: if t {
                            "a time: earlier matches have one, so every match needs one".into()
                        } else {
                            "no time: earlier matches have none, so times would not order the matches".into()
                        },
                    });
                }
                Some(_) => {}
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
                ReadError::Match {
                    file: self.file.clone(),
                    line,
                    match_id: cur.id,
                    field: field_of(&source),
                    source: Box::new(source),
                }
            });
        self.rows.clear();
        Some(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
