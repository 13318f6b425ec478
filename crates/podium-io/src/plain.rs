//! Plain long CSV read on several threads: the fast path for large files of
//! free-for-alls.
//!
//! A *plain* file is long CSV (see [`crate::csv_long`]) whose header has `match`, `player`
//! and one of `rank` or `score` (other columns are ignored), and no `team`, `time` or
//! `weight` column; whose rows have no quotes and no carriage returns, and fields without
//! surrounding white space; and whose matches are all valid. Such a file means the same
//! read here as read by [`crate::CsvMatches`], match for match.
//!
//! The file is cut into blocks that worker threads split into rows, with every player id
//! replaced by a number; the calling thread puts the blocks back in order, joins the
//! matches that straddle two blocks, and hands each match on, sorted best first with its
//! places. Memory holds a few blocks and the players' ids, whatever the file's length.
//!
//! The reader does not report what is wrong with a file that is not plain: it says
//! [`Plain::No`], and the caller reads the file with [`crate::CsvMatches`] instead, which
//! names the file, line and field of every problem. It also says no to what it cannot
//! read by position: standard input, pipes, and any file on platforms other than Unix
//! and Windows.

use std::collections::HashMap;
use std::fs::File;
use std::ops::Range;
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use compact_str::CompactString;

use crate::csv_long::{is_plain, parse_number_bytes};
use crate::group::RecentIds;
use crate::player_keys::{same_bytes, PlayerKeys};

/// Bytes of the file per block.
const BLOCK: usize = 1 << 20;
/// Blocks each worker may be ahead of the calling thread.
const AHEAD: usize = 2;
/// The longest header read.
const MAX_HEADER: usize = 1 << 16;
/// How many matches ahead [`RankedMatch::ahead`] looks.
const LOOK_AHEAD: usize = 4;
/// How many rows ahead a worker asks for the players' table lines.
const PREFETCH: usize = 16;

type Ids = HashMap<CompactString, u32, foldhash::fast::RandomState>;

/// One match of a plain file, players best first.
#[derive(Debug, Clone, Copy)]
pub struct RankedMatch<'a> {
    /// The match id.
    pub id: &'a str,
    /// The players best first, as keys of [`PlayerNames`] (dense, in order of first
    /// appearance in the file).
    pub players: &'a [u32],
    /// Each player's 1-based place; tied players share the best place they cover (1, 1, 3).
    pub places: &'a [usize],
    /// The players of a match a few ahead of this one, as keys of [`PlayerNames`], when
    /// it was read already (else empty): a rater that keeps its players in a large table
    /// can start loading theirs (see `podium::League::prefetch`).
    pub ahead: &'a [u32],
}

/// The ids of the players read so far, by key.
#[derive(Debug, Default)]
pub struct PlayerNames {
    text: String,
    ends: Vec<usize>,
}

impl PlayerNames {
    /// The id of player `key`.
    ///
    /// # Panics
    /// If no player has that key.
    #[must_use]
    pub fn get(&self, key: u32) -> &str {
        let k = key as usize;
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.text[start..self.ends[k]]
    }

    /// Number of players.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no player was read.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn push(&mut self, name: &str) -> u32 {
        self.text.push_str(name);
        self.ends.push(self.text.len());
        (self.ends.len() - 1) as u32
    }
}

/// What [`read_plain_csv`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plain {
    /// The file is plain; this many matches were handed on.
    Read {
        /// Matches handed on.
        matches: u64,
    },
    /// The file is not plain (or could not be read): nothing it holds can be trusted
    /// from this reader, and the caller reads it the general way. Matches may have been
    /// handed on before this was found.
    No {
        /// Why, for diagnostics.
        reason: String,
    },
}

/// The columns of a plain file.
#[derive(Debug, Clone, Copy)]
struct Columns {
    id: usize,
    player: usize,
    finish: usize,
    /// Whether the finish is a score (higher is better) rather than a rank.
    score: bool,
    /// The number of fields a row needs.
    needed: usize,
}

/// Reads a plain file on `threads` worker threads, handing each match to `each` in file
/// order, and `progress` the bytes of each block as it is done.
///
/// # Errors
/// The first error `each` returns; reading stops there.
pub fn read_plain_csv<E>(
    path: &Path,
    threads: usize,
    progress: &mut dyn FnMut(u64),
    each: impl FnMut(&RankedMatch<'_>, &PlayerNames) -> Result<(), E>,
) -> Result<Plain, E> {
    read_in_blocks(path, threads, BLOCK, progress, each)
}

/// [`read_plain_csv`] with blocks of `block_size` bytes.
fn read_in_blocks<E>(
    path: &Path,
    threads: usize,
    block_size: usize,
    progress: &mut dyn FnMut(u64),
    mut each: impl FnMut(&RankedMatch<'_>, &PlayerNames) -> Result<(), E>,
) -> Result<Plain, E> {
    let no = |reason: &str| {
        Ok(Plain::No {
            reason: reason.to_string(),
        })
    };
    let Ok(file) = File::open(path) else {
        return no("cannot open the file");
    };
    let Ok(meta) = file.metadata() else {
        return no("cannot read the file's size");
    };
    if !meta.is_file() {
        return no("not a regular file");
    }
    let size = meta.len() as usize;
    let (cols, data_start) = match header(&file, size) {
        Ok(h) => h,
        Err(reason) => return no(reason),
    };
    let blocks = (size - data_start).div_ceil(block_size);
    let threads = threads.clamp(1, blocks.max(1));
    std::thread::scope(|scope| {
        let mut inboxes: Vec<Receiver<Block>> = Vec::with_capacity(threads);
        // Blocks go back to their worker to be filled again: memory stays put, and
        // nothing is freed on another thread than the one that allocated it.
        let mut returns: Vec<SyncSender<Block>> = Vec::with_capacity(threads);
        for w in 0..threads {
            let (tx, rx) = sync_channel::<Block>(AHEAD);
            let (back, spent) = sync_channel::<Block>(AHEAD + 2);
            inboxes.push(rx);
            returns.push(back);
            let file = &file;
            scope.spawn(move || {
                // A lone worker reads every block in order: it checks the contiguity
                // rule itself, off the calling thread, which rates.
                let mut worker = Worker {
                    contiguity: (threads == 1).then(Contiguity::default),
                    ..Worker::default()
                };
                for k in (w..blocks).step_by(threads) {
                    let start = data_start + k * block_size;
                    let end = (start + block_size).min(size);
                    let block = spent.try_recv().unwrap_or_default();
                    let block = worker.read(block, file, cols, start, end, size);
                    if tx.send(block).is_err() {
                        return; // the calling thread stopped
                    }
                }
            });
        }
        let mut joiner = Joiner::new(threads);
        for k in 0..blocks {
            let worker = k % threads;
            let Ok(block) = inboxes[worker].recv() else {
                return no("a reading thread stopped");
            };
            if let Some(reason) = block.problem {
                return no(reason);
            }
            joiner.learn_names(worker, &block);
            // A block's first match may go on with the last one of the block before.
            let goes_on = joiner.pending && block.ids().next() == Some(joiner.pending_id.as_str());
            // The contiguity rule, before any of the block's matches is handed on (a lone
            // worker checked it already).
            if threads > 1 && joiner.contiguity.broken(&block) {
                return no(NOT_CONTIGUOUS);
            }
            let mut row_start = 0;
            for (i, (id, &(_, row_end))) in block.ids().zip(&block.matches).enumerate() {
                let rows = row_start..row_end as usize;
                row_start = row_end as usize;
                if i == 0 && goes_on {
                    joiner.merged = true;
                    joiner.keep(worker, &block, rows);
                    continue;
                }
                if let Err(reason) = joiner.flush(&mut each)? {
                    return no(reason);
                }
                if i + 1 < block.matches.len() {
                    // Whole within the block, sorted and checked by the worker.
                    let ahead = i + LOOK_AHEAD;
                    let ahead = if ahead + 1 < block.matches.len() {
                        block.matches[ahead - 1].1 as usize..block.matches[ahead].1 as usize
                    } else {
                        0..0
                    };
                    if let Err(reason) =
                        joiner.hand_on(worker, &block, id, rows, ahead, &mut each)?
                    {
                        return no(reason);
                    }
                } else {
                    // The next block may go on with it.
                    joiner.pending = true;
                    joiner.merged = false;
                    joiner.pending_id.clear();
                    joiner.pending_id.push_str(id);
                    joiner.keep(worker, &block, rows);
                }
            }
            progress(block.bytes);
            let _ = returns[worker].try_send(block);
        }
        if let Err(reason) = joiner.flush(&mut each)? {
            return no(reason);
        }
        Ok(Plain::Read {
            matches: joiner.matches,
        })
    })
}

/// Reads and checks the header: the columns and where the rows start.
fn header(file: &File, size: usize) -> Result<(Columns, usize), &'static str> {
    let mut buf = vec![0; size.min(MAX_HEADER)];
    read_at(file, &mut buf, 0).map_err(|_| "cannot read the header")?;
    // A file of just a header may end without a line break.
    let end = match memchr::memchr(b'\n', &buf) {
        Some(end) => end,
        None if size == buf.len() => size,
        None => return Err("a header longer than 64 KiB"),
    };
    let line = std::str::from_utf8(&buf[..end]).map_err(|_| "a header that is not UTF-8")?;
    if line.contains(['"', '\r']) {
        return Err("a header with quotes or a carriage return");
    }
    let names: Vec<&str> = line.split(',').map(str::trim).collect();
    let find = |name: &str| {
        names
            .iter()
            .position(|h| h.trim_start_matches('\u{feff}').eq_ignore_ascii_case(name))
    };
    if find("team").is_some() || find("time").is_some() || find("weight").is_some() {
        return Err("a team, time or weight column");
    }
    let (id, player) = match (find("match"), find("player")) {
        (Some(i), Some(p)) => (i, p),
        _ => return Err("no match or player column"),
    };
    let (finish, score) = match (find("rank"), find("score")) {
        (Some(r), None) => (r, false),
        (None, Some(s)) => (s, true),
        _ => return Err("not exactly one of the rank and score columns"),
    };
    let needed = id.max(player).max(finish) + 1;
    Ok((
        Columns {
            id,
            player,
            finish,
            score,
            needed,
        },
        (end + 1).min(size),
    ))
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: usize) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at as u64)
}

#[cfg(windows)]
fn read_at(file: &File, mut buf: &mut [u8], mut at: usize) -> std::io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, at as u64)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                at += n;
            }
        }
    }
    Ok(())
}

#[cfg(not(any(unix, windows)))]
fn read_at(_: &File, _: &mut [u8], _: usize) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// One block's rows, split and checked by a worker.
#[derive(Debug, Default)]
struct Block {
    /// The ids of the block's matches, one after the other.
    ids: String,
    /// Per match: the end of its id in `ids` and of its rows.
    matches: Vec<(u32, u32)>,
    /// Per row, each match's rows best first: the player, numbered by the worker, the
    /// sort key of the finish (rank, or −score) and the place.
    players: Vec<u32>,
    keys: Vec<f64>,
    places: Vec<usize>,
    /// The players this worker met first in this block, in the order of their numbers.
    names: Vec<CompactString>,
    /// Bytes of the file the block covers.
    bytes: u64,
    /// Why the block is not plain.
    problem: Option<&'static str>,
}

impl Block {
    /// The ids of the block's matches, in order.
    fn ids(&self) -> impl Iterator<Item = &str> {
        let mut start = 0;
        self.matches.iter().map(move |&(end, _)| {
            let end = end as usize;
            &self.ids[std::mem::replace(&mut start, end)..end]
        })
    }

    /// The id of the block's last match, if any, without walking the others.
    fn last_id(&self) -> Option<&str> {
        let n = self.matches.len();
        let end = self.matches.last()?.0 as usize;
        let start = n.checked_sub(2).map_or(0, |k| self.matches[k].0 as usize);
        Some(&self.ids[start..end])
    }
}

/// A worker's state: its buffer and its own numbering of players.
#[derive(Default)]
struct Worker {
    buf: Vec<u8>,
    keys: PlayerKeys,
    /// Per player, the last match that met them (finds a player given twice).
    seen: Vec<u32>,
    matches: u32,
    /// Scratch for sorting a match: (sort key, player).
    sort: Vec<(f64, u32)>,
    /// Scratch: where each row's player id lies in the block.
    spans: Vec<(usize, usize)>,
    /// The contiguity rule, when this worker reads every block.
    contiguity: Option<Contiguity>,
}

/// The contiguity rule across the blocks of a file, checked block by block in order.
#[derive(Default)]
struct Contiguity {
    recent: RecentIds,
    /// The id of the last match of the blocks so far, if any.
    last: Option<String>,
}

impl Contiguity {
    /// Whether a match of `block` comes back after other matches; a block's first match
    /// may go on with the last one of the blocks before. Every id is checked against the
    /// recent ones in a loop of its own: when ids do not rise, the misses of several in
    /// the map of recent ids are waited for together.
    fn broken(&mut self, block: &Block) -> bool {
        let goes_on = self.last.is_some() && block.ids().next() == self.last.as_deref();
        let broken = block
            .ids()
            .skip(usize::from(goes_on))
            .any(|id| self.recent.seen_before(id));
        if let Some(id) = block.last_id() {
            let last = self.last.get_or_insert_with(String::new);
            last.clear();
            last.push_str(id);
        }
        broken
    }
}

/// Why a file breaks the contiguity rule.
const NOT_CONTIGUOUS: &str = "the rows of a match are not contiguous";

impl Worker {
    /// Reads the lines that start in `start..end`.
    fn read(
        &mut self,
        mut block: Block,
        file: &File,
        cols: Columns,
        start: usize,
        end: usize,
        size: usize,
    ) -> Block {
        block.ids.clear();
        block.matches.clear();
        block.players.clear();
        block.keys.clear();
        block.places.clear();
        block.names.clear();
        block.problem = None;
        block.bytes = (end - start) as u64;
        // One byte before the block says whether a line starts at `start`; the block
        // reads on past `end` to the end of its last line.
        let from = start - 1;
        // The buffer is read over, not cleared: only bytes it never had are zeroed.
        self.buf.resize(end - from, 0);
        if read_at(file, &mut self.buf, from).is_err() {
            block.problem = Some("a read failed");
            return block;
        }
        let mut at = end;
        while at < size && self.buf.last() != Some(&b'\n') {
            let more = (size - at).min(1 << 16);
            let old = self.buf.len();
            self.buf.resize(old + more, 0);
            if read_at(file, &mut self.buf[old..], at).is_err() {
                block.problem = Some("a read failed");
                return block;
            }
            if let Some(nl) = memchr::memchr(b'\n', &self.buf[old..]) {
                self.buf.truncate(old + nl + 1);
            }
            at = from + self.buf.len();
        }
        let first = match memchr::memchr(b'\n', &self.buf) {
            Some(nl) => nl + 1,
            None => self.buf.len(),
        };
        // Lines starting at or past `end` belong to the next block.
        let own_end = end - from;
        if first >= own_end {
            return block;
        }
        // The text handed on ends with its last line's line break; the file's last line
        // may have none, and gets one.
        let last = match memchr::memchr(b'\n', &self.buf[own_end - 1..]) {
            Some(nl) => own_end + nl,
            None => {
                self.buf.push(b'\n');
                self.buf.len()
            }
        };
        let buf = std::mem::take(&mut self.buf);
        if let Err(problem) = self.split(&buf[first..last], cols, &mut block) {
            block.problem = Some(problem);
        }
        self.buf = buf;
        if block.problem.is_none() && self.contiguity.as_mut().is_some_and(|c| c.broken(&block)) {
            block.problem = Some(NOT_CONTIGUOUS);
        }
        block
    }

    fn split(&mut self, text: &[u8], cols: Columns, block: &mut Block) -> Result<(), &'static str> {
        let text = std::str::from_utf8(text).map_err(|_| "text that is not UTF-8")?;
        let (refused, trimmable) = scan(text.as_bytes());
        if refused {
            return Err("a quote or a carriage return");
        }
        self.spans.clear();
        split_rows(text, cols, trimmable, block, &mut self.spans)?;
        let bytes = text.as_bytes();
        // Every row's player, in a loop of lookups and little else: each row asks for
        // the table's line of the row `PREFETCH` rows on, so that the waits for memory
        // of several rows overlap.
        let hash =
            |keys: &PlayerKeys, k: usize| self.spans.get(k).map(|&(s, e)| keys.hash(&bytes[s..e]));
        let mut ring = [0u64; PREFETCH];
        for (k, h) in ring.iter_mut().enumerate() {
            if let Some(x) = hash(&self.keys, k) {
                self.keys.prefetch(x);
                *h = x;
            }
        }
        for (k, &(s, e)) in self.spans.iter().enumerate() {
            let h = ring[k % PREFETCH];
            if let Some(x) = hash(&self.keys, k + PREFETCH) {
                self.keys.prefetch(x);
                ring[k % PREFETCH] = x;
            }
            let (p, new) = self.keys.number(&bytes[s..e], h);
            if new {
                block.names.push(CompactString::from(&text[s..e]));
                self.seen.push(u32::MAX);
            }
            block.players.push(p);
        }
        let mut start = 0;
        for m in 0..block.matches.len() {
            let end = block.matches[m].1 as usize;
            self.end_match(block, start..end)?;
            start = end;
        }
        Ok(())
    }

    /// Sorts the match of rows `start..end` best first, gives its places, and checks
    /// that no player is in it twice.
    fn end_match(
        &mut self,
        block: &mut Block,
        Range { start, end }: Range<usize>,
    ) -> Result<(), &'static str> {
        self.matches = self.matches.wrapping_add(1);
        let now = self.matches;
        for &p in &block.players[start..end] {
            let seen = &mut self.seen[p as usize];
            if *seen == now {
                return Err("a player twice in one match");
            }
            *seen = now;
        }
        // Stable, so tied players keep the file's order, as in a `Match`.
        let keys = &mut block.keys[start..end];
        if keys.windows(2).any(|w| w[0].total_cmp(&w[1]).is_gt()) {
            self.sort.clear();
            self.sort.extend(
                keys.iter()
                    .copied()
                    .zip(block.players[start..end].iter().copied()),
            );
            self.sort.sort_by(|a, b| a.0.total_cmp(&b.0));
            for ((k, p), &(key, player)) in keys
                .iter_mut()
                .zip(&mut block.players[start..end])
                .zip(&self.sort)
            {
                *k = key;
                *p = player;
            }
        }
        push_places(&block.keys[start..end], &mut block.places);
        Ok(())
    }
}

/// The rows of a block's text: each match's id and where its rows end, and each row's
/// player (where it lies in the text) and sort key. A function of its own, so that its
/// loop, run once per field, keeps its values in registers.
#[inline(never)]
fn split_rows(
    text: &str,
    cols: Columns,
    trimmable: bool,
    block: &mut Block,
    spans: &mut Vec<(usize, usize)>,
) -> Result<(), &'static str> {
    let mut fields = [(0usize, 0usize); 64];
    if cols.needed > fields.len() {
        return Err("too many columns before the ones read");
    }
    // Where the id of the match being read starts.
    let mut id_start = 0;
    // One pass over the block finds every comma and line break (the text ends with
    // one); `count` fields of the current line were seen, the next one starts at `from`.
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut from = 0;
    for end in Separators::new(bytes) {
        if count < cols.needed {
            fields[count] = (from, end);
        }
        count += 1;
        from = end + 1;
        if bytes[end] == b',' {
            continue;
        }
        let seen = std::mem::take(&mut count);
        if seen == 1 && fields[0].0 == fields[0].1 {
            continue; // blank lines are skipped, as csv readers do
        }
        if seen < cols.needed {
            return Err("a row with too few fields");
        }
        // Fields are read as bytes: commas and line breaks are ASCII, so they bound
        // characters, and only a new match's id needs to be a `str`.
        let field = |i: usize| read_field(text, fields[i], trimmable);
        let id = field(cols.id)?;
        // The player is checked here and looked up below, with the block's others.
        field(cols.player)?;
        let value =
            parse_number_bytes(field(cols.finish)?).ok_or("a finish that is not a number")?;
        let key = if cols.score { -value } else { value };
        // The id of the match being read is the last one in `ids`.
        if block.matches.is_empty() || !same_bytes(&block.ids.as_bytes()[id_start..], id) {
            if let Some(m) = block.matches.last_mut() {
                m.1 = block.keys.len() as u32;
            }
            id_start = block.ids.len();
            let (s, e) = fields[cols.id];
            block.ids.push_str(&text[s..e]);
            block.matches.push((block.ids.len() as u32, 0));
        }
        spans.push(fields[cols.player]);
        block.keys.push(key);
    }
    if let Some(m) = block.matches.last_mut() {
        m.1 = block.keys.len() as u32;
    }
    Ok(())
}

/// [`bare_field`], told by [`scan`] whether anything in the text could be trimmed: when
/// not, a field need only not be empty.
#[inline(always)]
fn read_field(text: &str, (s, e): (usize, usize), trimmable: bool) -> Result<&[u8], &'static str> {
    if trimmable {
        bare_field(text, (s, e))
    } else if s < e {
        Ok(&text.as_bytes()[s..e])
    } else {
        Err(EMPTY_OR_SPACED)
    }
}

/// The bytes of the field at `span` of `text`, if it is not empty and has nothing to trim
/// (the general reader trims fields).
#[inline(always)]
fn bare_field(text: &str, (s, e): (usize, usize)) -> Result<&[u8], &'static str> {
    let f = &text.as_bytes()[s..e];
    let bare = match (f.first(), f.last()) {
        (Some(&a), Some(&z)) if is_plain(a) && is_plain(z) => true,
        (Some(_), Some(_)) => text[s..e].trim().len() == f.len(),
        _ => false,
    };
    if bare {
        Ok(f)
    } else {
        Err(EMPTY_OR_SPACED)
    }
}

/// Why a field is not read.
const EMPTY_OR_SPACED: &str = "an empty field or one with surrounding spaces";

/// Whether a block's text holds a quote or a carriage return, which a plain file has not;
/// and whether it holds anything that trimming a field could remove: white space other
/// than its line breaks, or any character other than ASCII (some are white space). In
/// one pass of vector compares, 16 bytes at a time.
fn scan(bytes: &[u8]) -> (bool, bool) {
    use wide::u8x16;
    let mut acc = (u8x16::splat(0), u8x16::splat(0));
    let mut chunks = bytes.chunks_exact(16);
    for chunk in &mut chunks {
        acc = scan_step(acc, lanes(chunk));
    }
    let (refused, trimmable) = scan_step(acc, lanes(chunks.remainder()));
    (refused.move_mask() != 0, trimmable.move_mask() != 0)
}

/// Up to 16 bytes as a vector, zero-padded.
#[inline(always)]
fn lanes(bytes: &[u8]) -> wide::u8x16 {
    let mut sixteen = [0; 16];
    sixteen[..bytes.len()].copy_from_slice(bytes);
    wide::u8x16::from(sixteen)
}

/// [`scan`] of 16 bytes, into the high bits of its two accumulators.
#[inline(always)]
fn scan_step(
    (refused, trimmable): (wide::u8x16, wide::u8x16),
    v: wide::u8x16,
) -> (wide::u8x16, wide::u8x16) {
    use wide::u8x16;
    (
        refused | v.cmp_eq(u8x16::splat(b'"')) | v.cmp_eq(u8x16::splat(b'\r')),
        // Tab, vertical tab and form feed (9, 11, 12; 10 is the line break), the space,
        // and bytes of 128 and over, whose high bit is their own.
        trimmable
            | v.cmp_eq(u8x16::splat(b'\t'))
            | v.cmp_eq(u8x16::splat(0x0b))
            | v.cmp_eq(u8x16::splat(0x0c))
            | v.cmp_eq(u8x16::splat(b' '))
            | v,
    )
}

/// The positions of the commas and line breaks of a text, 64 bytes at a time.
///
/// Rows of a few short fields hold a separator every few bytes: too often for
/// `memchr`'s vector search, which pays off between separators far apart. Here each
/// 64 bytes are compared with both separators by vector instructions at once (the `wide`
/// crate: SIMD without unsafe code), giving a bit per byte; the bits are then handed out
/// one by one.
struct Separators<'a> {
    bytes: &'a [u8],
    /// Where the chunk in `mask` starts.
    at: usize,
    /// One bit per separator byte of the 64 bytes at `at`, not yet handed out.
    mask: u64,
}

impl<'a> Separators<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        let mut s = Separators {
            bytes,
            at: 0,
            mask: 0,
        };
        s.mask = s.chunk_mask();
        s
    }

    /// The separators of the 64 bytes at `at` (fewer at the end, padded with zeros).
    fn chunk_mask(&self) -> u64 {
        let rest = self.bytes.get(self.at..).unwrap_or_default();
        match rest.first_chunk::<64>() {
            Some(chunk) => separator_bits(chunk),
            None => {
                let mut chunk = [0; 64];
                chunk[..rest.len()].copy_from_slice(rest);
                separator_bits(&chunk)
            }
        }
    }
}

/// Bit i set when byte i of `chunk` is a comma or a line break.
#[inline(always)]
fn separator_bits(chunk: &[u8; 64]) -> u64 {
    let comma = wide::u8x16::splat(b',');
    let line_break = wide::u8x16::splat(b'\n');
    let part = |k: usize| {
        let v = lanes(&chunk[16 * k..16 * (k + 1)]);
        // One bit per byte, from the bytes' high bits: 16 bits.
        let bits = (v.cmp_eq(comma) | v.cmp_eq(line_break)).move_mask() as u16;
        u64::from(bits) << (16 * k)
    };
    part(0) | part(1) | part(2) | part(3)
}

impl Iterator for Separators<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.at += 64;
            if self.at >= self.bytes.len() {
                return None;
            }
            self.mask = self.chunk_mask();
        }
        let pos = self.at + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(pos)
    }
}

/// Appends the places of sorted keys: tied keys share the best place they cover.
fn push_places(keys: &[f64], places: &mut Vec<usize>) {
    let base = places.len();
    for (i, &key) in keys.iter().enumerate() {
        let place = if i > 0 && keys[i - 1] == key {
            places[base + i - 1]
        } else {
            i + 1
        };
        places.push(place);
    }
}

/// The calling thread's side: blocks back in order, players numbered for the whole file.
struct Joiner {
    ids: Ids,
    names: PlayerNames,
    /// Per worker: its numbers to the file's.
    local: Vec<Vec<u32>>,
    /// The contiguity rule, with several workers.
    contiguity: Contiguity,
    /// Whether a match was read and not handed on yet: the last one of a block, which
    /// the next block may go on with. Its id, its rows as (sort key, player) and places,
    /// and whether rows from two blocks were joined (then they are sorted again).
    pending: bool,
    merged: bool,
    pending_id: String,
    rows: Vec<(f64, u32)>,
    /// Scratch: the match being handed on.
    players: Vec<u32>,
    keys: Vec<f64>,
    places: Vec<usize>,
    /// Per player, the last joined match that met them (finds a player given twice).
    seen: Vec<u64>,
    matches: u64,
}

impl Joiner {
    fn new(threads: usize) -> Self {
        Joiner {
            ids: Ids::default(),
            names: PlayerNames::default(),
            local: vec![Vec::new(); threads],
            contiguity: Contiguity::default(),
            pending: false,
            merged: false,
            pending_id: String::new(),
            rows: Vec::new(),
            players: Vec::new(),
            keys: Vec::new(),
            places: Vec::new(),
            seen: Vec::new(),
            matches: 0,
        }
    }

    /// Numbers the players a worker met first in `block`.
    fn learn_names(&mut self, worker: usize, block: &Block) {
        if self.local.len() == 1 {
            // One worker meets players in the file's order: whom it met first, the file
            // did too, and its numbers are the file's.
            for name in &block.names {
                let key = self.names.push(name);
                self.local[worker].push(key);
            }
            self.seen.resize(self.names.len(), u64::MAX);
            return;
        }
        for name in &block.names {
            let key = match self.ids.get(name) {
                Some(&k) => k,
                None => {
                    let k = self.names.push(name);
                    self.ids.insert(name.clone(), k);
                    k
                }
            };
            self.local[worker].push(key);
        }
        self.seen.resize(self.names.len(), u64::MAX);
    }

    /// Adds rows of `block` to the pending match.
    fn keep(&mut self, worker: usize, block: &Block, rows: Range<usize>) {
        let local = &self.local[worker];
        self.rows.extend(
            block.keys[rows.clone()]
                .iter()
                .zip(&block.players[rows])
                .map(|(&key, &p)| (key, local[p as usize])),
        );
    }

    /// Hands on a match of `block` that the worker read whole. The outer error is
    /// `each`'s, the inner one says the match is not valid.
    fn hand_on<E>(
        &mut self,
        worker: usize,
        block: &Block,
        id: &str,
        rows: Range<usize>,
        ahead: Range<usize>,
        each: &mut impl FnMut(&RankedMatch<'_>, &PlayerNames) -> Result<(), E>,
    ) -> Result<Result<(), &'static str>, E> {
        if rows.len() < 2 {
            return Ok(Err("a match of fewer than two players"));
        }
        // One worker numbers players in order of appearance in the file, as the file's
        // numbering does: its numbers need no translation.
        let (players, ahead) = if self.local.len() == 1 {
            (&block.players[rows.clone()], &block.players[ahead])
        } else {
            let local = &self.local[worker];
            self.players.clear();
            self.players.extend(
                block.players[rows.clone()]
                    .iter()
                    .chain(&block.players[ahead.clone()])
                    .map(|&p| local[p as usize]),
            );
            self.players.split_at(rows.len())
        };
        self.matches += 1;
        each(
            &RankedMatch {
                id,
                players,
                places: &block.places[rows],
                ahead,
            },
            &self.names,
        )?;
        Ok(Ok(()))
    }

    /// Hands on the pending match, if any. The outer error is `each`'s, the inner one
    /// says the match is not valid.
    fn flush<E>(
        &mut self,
        each: &mut impl FnMut(&RankedMatch<'_>, &PlayerNames) -> Result<(), E>,
    ) -> Result<Result<(), &'static str>, E> {
        if !std::mem::take(&mut self.pending) {
            return Ok(Ok(()));
        }
        if self.rows.len() < 2 {
            return Ok(Err("a match of fewer than two players"));
        }
        if self.merged {
            let seq = self.matches;
            if self.rows.iter().any(|&(_, p)| {
                let again = self.seen[p as usize] == seq;
                self.seen[p as usize] = seq;
                again
            }) {
                return Ok(Err("a player twice in one match"));
            }
            // Stable: each block's part is in the file's order among ties, and the
            // first block's part comes first, so this is the order of the whole match.
            self.rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        self.players.clear();
        self.keys.clear();
        for &(key, p) in &self.rows {
            self.keys.push(key);
            self.players.push(p);
        }
        self.places.clear();
        push_places(&self.keys, &mut self.places);
        self.rows.clear();
        self.matches += 1;
        each(
            &RankedMatch {
                id: &self.pending_id,
                players: &self.players,
                places: &self.places,
                ahead: &[],
            },
            &self.names,
        )?;
        Ok(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CsvMatches;
    use proptest::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    proptest! {
        /// Every comma and line break, and nothing else, whatever the bytes around them
        /// (all 256 values, high bits included) and wherever the text ends.
        #[test]
        fn separators_are_every_comma_and_line_break(
            bytes in proptest::collection::vec(
                prop_oneof![Just(b','), Just(b'\n'), any::<u8>()],
                0..300,
            ),
        ) {
            let want: Vec<usize> = bytes
                .iter()
                .enumerate()
                .filter(|(_, &b)| b == b',' || b == b'\n')
                .map(|(i, _)| i)
                .collect();
            prop_assert_eq!(Separators::new(&bytes).collect::<Vec<_>>(), want);
        }
    }

    /// A match as both readers give it: id, players best first, places.
    type Read = (String, Vec<String>, Vec<usize>);

    /// A file in the temporary directory, removed when dropped.
    struct TempFile(std::path::PathBuf);

    impl TempFile {
        fn new(text: &[u8]) -> Self {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let path = std::env::temp_dir().join(format!(
                "podium-plain-{}-{}.csv",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::write(&path, text).unwrap();
            TempFile(path)
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// What this reader gives, with `threads` workers and blocks of `block` bytes.
    fn plain(text: &[u8], threads: usize, block: usize) -> (Plain, Vec<Read>) {
        let file = TempFile::new(text);
        let mut got = Vec::new();
        let mut bytes = 0;
        let plain = read_in_blocks(&file.0, threads, block, &mut |b| bytes += b, |m, names| {
            got.push((
                m.id.to_string(),
                m.players
                    .iter()
                    .map(|&p| names.get(p).to_string())
                    .collect(),
                m.places.to_vec(),
            ));
            Ok::<(), ()>(())
        })
        .unwrap();
        if matches!(plain, Plain::Read { .. }) {
            let header = text
                .iter()
                .position(|&b| b == b'\n')
                .map_or(text.len(), |h| h + 1);
            assert_eq!(
                bytes as usize,
                text.len() - header,
                "progress covers the rows"
            );
        }
        (plain, got)
    }

    /// What the general reader gives: every match, or `None` if any row or match is bad.
    fn general(text: &[u8]) -> Option<Vec<Read>> {
        CsvMatches::new("t.csv", text)
            .map(|m| {
                let m = m.ok()?;
                Some((
                    m.id().to_string(),
                    m.players().map(|(_, p)| p.player.clone()).collect(),
                    m.players().map(|(e, _)| m.place(e)).collect(),
                ))
            })
            .collect()
    }

    #[test]
    fn a_block_knows_its_last_match_id() {
        let mut block = Block::default();
        assert_eq!(block.last_id(), None);
        for (id, end) in [("g1", 2), ("g22", 5), ("h", 6)] {
            block.ids.push_str(id);
            block.matches.push((end, 0));
            assert_eq!(block.last_id(), Some(id));
            assert_eq!(block.last_id(), block.ids().last());
        }
    }

    #[test]
    fn reads_what_the_general_reader_reads() {
        let text = "rank,player,note,match\n\
            1,ann,x,g1\n2,bo,,g1\n2,cy,y,g1\n\n\
            2,ann,,g2\n1,cy,,g2\n\
            3,dé,,g3\n1.5,ann,,g3\n-1,bo,,g3";
        let want = general(text.as_bytes()).unwrap();
        assert_eq!(want.len(), 3);
        for threads in 1..=3 {
            for block in [1, 2, 5, 13, 1 << 20] {
                let (plain, got) = plain(text.as_bytes(), threads, block);
                assert_eq!(plain, Plain::Read { matches: 3 }, "{threads} {block}");
                assert_eq!(got, want, "{threads} threads, blocks of {block}");
            }
        }
        // A file of a header alone, with or without a line break.
        for text in ["match,player,rank", "match,player,rank\n"] {
            assert_eq!(
                plain(text.as_bytes(), 2, 3),
                (Plain::Read { matches: 0 }, vec![])
            );
        }
        // Scores: higher is better.
        let (_, got) = plain(b"match,player,score\ng,a,10\ng,b,30\ng,c,10\n", 1, 4);
        assert_eq!(got[0].1, ["b", "a", "c"]);
        assert_eq!(got[0].2, [1, 2, 2]);
    }

    #[test]
    fn says_no_to_what_it_does_not_read() {
        let no = |text: &str| {
            for threads in [1, 2] {
                let (plain, _) = plain(text.as_bytes(), threads, 8);
                assert!(matches!(plain, Plain::No { .. }), "{text:?}: {plain:?}");
            }
        };
        no("");
        no("match,player\ng,a\n");
        no("match,player,rank,score\ng,a,1,\n");
        no("match,player,rank,team\ng,a,1,t\n");
        no("match,player,rank,weight\ng,a,1,1\n");
        no("match,player,rank,time\ng,a,1,2024-01-01\n");
        no("match,player,rank\r\ng,a,1\r\ng,b,2\r\n");
        no("match,player,rank\ng,\"a\",1\ng,b,2\n");
        no("match,player,rank\ng,a ,1\ng,b,2\n");
        // White space of every kind the general reader trims, ASCII or not.
        for space in ["\t", "\u{b}", "\u{c}", "\u{a0}", "\u{3000}"] {
            no(&format!("match,player,rank\ng,a{space},1\ng,b,2\n"));
            no(&format!("match,player,rank\ng,a,1\ng,b,{space}2\n"));
        }
        no("match,player,rank\ng,,1\ng,b,2\n");
        no("match,player,rank\ng,a\ng,b,2\n");
        no("match,player,rank\ng,a,first\ng,b,2\n");
        no("match,player,rank\ng,a,1\ng,a,2\n");
        no("match,player,rank\ng,a,1\nh,b,2\nh,c,1\n");
        no("match,player,rank\ng,a,1\ng,b,2\nh,b,1\nh,c,2\ng,c,1\ng,a,2\n");
        let mut latin1 = b"match,player,rank\ng,a,1\ng,b".to_vec();
        latin1.extend([0xe9, b',', b'2', b'\n']);
        let (plain, _) = plain(&latin1, 1, 1 << 20);
        assert!(matches!(plain, Plain::No { .. }));
    }

    /// Each match's `ahead` holds the players of the match `LOOK_AHEAD` on when that one
    /// was read whole in the same block, and is empty otherwise: a hint, never a wrong one.
    #[test]
    fn ahead_names_the_players_of_a_later_match() {
        let mut text = String::from("match,player,rank\n");
        for m in 0..12 {
            for p in 0..3 {
                text.push_str(&format!("m{m},p{},{}\n", (m + p) % 7, p + 1));
            }
        }
        for (threads, block) in [(1, 1 << 20), (1, 200), (2, 200), (2, 100)] {
            let file = TempFile::new(text.as_bytes());
            let mut seen: Vec<(Vec<String>, Vec<String>)> = Vec::new();
            let read = read_in_blocks(&file.0, threads, block, &mut |_| {}, |m, names| {
                let named = |ps: &[u32]| ps.iter().map(|&p| names.get(p).to_string()).collect();
                seen.push((named(m.players), named(m.ahead)));
                Ok::<(), ()>(())
            });
            assert_eq!(read, Ok(Plain::Read { matches: 12 }));
            let mut hints = 0;
            for (i, (_, ahead)) in seen.iter().enumerate() {
                if !ahead.is_empty() {
                    assert_eq!(
                        ahead,
                        &seen[i + LOOK_AHEAD].0,
                        "{threads} {block}: match {i}"
                    );
                    hints += 1;
                }
            }
            // In one block, every match but the last `LOOK_AHEAD + 1` has its hint (the
            // block's last match is handed on as a pending one).
            if block == 1 << 20 {
                assert_eq!(hints, 12 - LOOK_AHEAD - 1);
            } else if block == 200 {
                assert!(hints > 0, "{threads} {block}");
            }
        }
    }

    #[test]
    fn stops_at_the_first_error_of_the_caller() {
        let file = TempFile::new(b"match,player,rank\ng,a,1\ng,b,2\nh,a,1\nh,b,2\n");
        let mut seen = 0;
        let got = read_in_blocks(&file.0, 2, 4, &mut |_| {}, |_, _| {
            seen += 1;
            Err("refused")
        });
        assert_eq!(got, Err("refused"));
        assert_eq!(seen, 1);
    }

    fn row() -> impl Strategy<Value = String> {
        (
            prop::sample::select(vec!["g1", "g2", "g3", "m", "m ", "", "g\"4"]),
            prop::sample::select(vec![
                "a",
                "b",
                "c",
                "é",
                "a-player-id-longer-than-twenty-four-bytes",
                " d",
                "",
            ]),
            prop::sample::select(vec!["1", "2", "2", "3", "0.5", "-1", "1e1", "x", "", " 2"]),
            prop::sample::select(vec!["\n", "\n", "\n", "\n\n", "\r\n", ",extra\n"]),
        )
            .prop_map(|(m, p, r, end)| format!("{m},{p},{r}{end}"))
    }

    proptest! {
        /// On every file, this reader either reads what the general one reads, or says
        /// no; it says no to every file the general reader finds a problem in.
        #[test]
        fn agrees_with_the_general_reader(
            rows in prop::collection::vec(row(), 0..40),
            score in any::<bool>(),
            threads in 1..4usize,
            block in 1..64usize,
            last_newline in any::<bool>(),
        ) {
            let mut text = format!("match,player,{}\n", if score { "score" } else { "rank" });
            for r in &rows {
                text.push_str(r);
            }
            if !last_newline && text.ends_with('\n') {
                text.pop();
            }
            let want = general(text.as_bytes());
            let (plain, got) = plain(text.as_bytes(), threads, block);
            match (&want, &plain) {
                (Some(want), Plain::Read { matches }) => {
                    prop_assert_eq!(*matches as usize, want.len());
                    prop_assert_eq!(&got, want);
                }
                (None, Plain::Read { .. }) => {
                    prop_assert!(false, "read a file with a problem: {:?}", text);
                }
                (_, Plain::No { .. }) => {}
            }
            // Files without any of the reader's exclusions are read, not refused.
            let clean = !text.contains(['"', '\r', ' ']) && !text.contains(",,");
            if want.is_some() && clean && !text.contains(",\n") {
                prop_assert!(matches!(plain, Plain::Read { .. }), "{:?}: {:?}", text, plain);
            }
        }
    }
}
