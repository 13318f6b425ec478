//! Plain long CSV read on several threads: the fast path for large files of
//! free-for-alls.
//!
//! A *plain* file is long CSV (see [`crate::csv_long`]) whose header has `match`, `player`
//! and one of `rank` or `score` (other columns are ignored), each once, and no `team`,
//! `time` or `weight` column; whose rows have no quotes and no carriage returns, and fields
//! without surrounding white space; and whose matches are all valid. Such a file means the
//! same read here as read by [`crate::CsvMatches`], match for match.
//!
//! [`PlainCsv::open`] checks the header; [`PlainCsv::read`] reads the rows. The file is
//! cut into blocks that worker threads split into rows, with every player id replaced by
//! a number; the calling thread puts the blocks back in order, joins the matches that
//! straddle two blocks, and hands each match on, sorted best first with its places.
//! Memory holds a few blocks and the players' ids, whatever the file's length.
//!
//! The reader does not report what is wrong with a file that is not plain: at the first
//! row it cannot read, or the first match the caller refuses, it stops and says where
//! ([`Stopped`]), and [`Stopped::resume`] reads the rest of the file with
//! [`crate::CsvMatches`] from the first match not handed on, which names the file, line
//! and field of every problem. Nothing before that point is read again. [`PlainCsv::open`]
//! also refuses what cannot be read by position: standard input, pipes, and any file on
//! platforms other than Unix and Windows. A line longer than [`crate::MAX_LINE`] is not
//! read on to its end: the reader stops before it, and the general reader refuses it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use compact_str::CompactString;

use crate::csv_long::{is_plain, parse_number_bytes, KNOWN_COLUMNS};
use crate::group::{fingerprint, RecentIds, RECENT_IDS};
use crate::player_keys::{same_bytes, PlayerKeys};
use crate::{CsvMatches, MAX_LINE};

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
    /// The line of the match's first row.
    pub line: u64,
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

/// A file whose header is that of a plain file, open to be read by [`PlainCsv::read`].
#[derive(Debug)]
pub struct PlainCsv {
    file: File,
    size: usize,
    cols: Columns,
    /// The header row, without its line break.
    header: Vec<u8>,
    /// Where the rows start.
    data_start: usize,
}

/// Why [`PlainCsv::read`] stopped before the end of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopCause<E> {
    /// The file is not plain from here on (or could not be read by position), for this
    /// reason.
    NotPlain(&'static str),
    /// The caller refused the match at the stop with this error.
    Refused(E),
}

/// A match the caller of [`PlainCsv::read_held`] refused: the `held`-th of the matches
/// it held (oldest first), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused<E> {
    /// Which of the matches held.
    pub held: usize,
    /// Why.
    pub cause: E,
}

/// Where and why [`PlainCsv::read`] stopped: every match before [`Stopped::line`] was
/// handed on, none from there on. [`Stopped::resume`] reads the rest the general way.
#[derive(Debug)]
pub struct Stopped<E> {
    /// Why.
    pub cause: StopCause<E>,
    /// The matches handed on.
    matches: u64,
    /// The first row not handed on: its byte and its line.
    offset: u64,
    line: u64,
    /// The fingerprints of the last match ids handed on, oldest first, each with the
    /// match's first line.
    recent: Vec<(u64, u64)>,
    file: File,
    header: Vec<u8>,
}

impl<E> Stopped<E> {
    /// The line of the first row not handed on (that of the match refused).
    #[must_use]
    pub fn line(&self) -> u64 {
        self.line
    }

    /// How many matches were handed on.
    #[must_use]
    pub fn matches(&self) -> u64 {
        self.matches
    }

    /// The rest of the file, from the first match not handed on, read by the general
    /// reader ([`CsvMatches`]) as it would have read it from the start: lines numbered
    /// as in the file, and a match whose rows come back after other matches still found.
    /// `wrap` wraps the file (to count the bytes read, say); `name` names it in errors.
    ///
    /// # Errors
    /// The file cannot be read from that point.
    pub fn resume<R: Read>(
        mut self,
        name: impl Into<String>,
        wrap: impl FnOnce(File) -> R,
    ) -> io::Result<CsvMatches<io::Chain<io::Cursor<Vec<u8>>, R>>> {
        self.file.seek(SeekFrom::Start(self.offset))?;
        Ok(CsvMatches::<R>::resume(
            name,
            &self.header,
            wrap(self.file),
            self.line,
            RecentIds::from_fingerprints(self.recent),
            self.matches > 0,
        ))
    }
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
    /// The number of fields of the header: no row may have more.
    fields: usize,
}

impl PlainCsv {
    /// Opens `path` when it is a regular file with the header of a plain file.
    ///
    /// # Errors
    /// Why the file is not read by this reader: it cannot be opened, is not a regular
    /// file, or its header is not that of a plain file. Read it the general way.
    pub fn open(path: &Path) -> Result<PlainCsv, &'static str> {
        let file = File::open(path).map_err(|_| "cannot open the file")?;
        PlainCsv::from_file(file).map_err(|(why, _)| why)
    }

    /// As [`PlainCsv::open`], of a file open already. A file this reader does not read
    /// comes back, to be read the general way from its start: a pipe or a device is
    /// refused before a byte of it is read (it cannot be read again, nor opened again
    /// while its writer waits for this reader).
    ///
    /// # Errors
    /// Why the file is not read by this reader, with the file.
    pub fn from_file(mut file: File) -> Result<PlainCsv, (&'static str, File)> {
        let meta = match file.metadata() {
            Ok(meta) => meta,
            Err(_) => return Err(("cannot read the file's size", file)),
        };
        if !meta.is_file() {
            return Err(("not a regular file", file));
        }
        let Ok(size) = usize::try_from(meta.len()) else {
            return Err(("a file too large to map", file));
        };
        match header(&file, size) {
            Ok((cols, header, data_start)) => Ok(PlainCsv {
                file,
                size,
                cols,
                header,
                data_start,
            }),
            Err(why) => {
                // The header is read by position, which moves no cursor but on Windows;
                // a regular file goes back to its start there (that cannot fail where it
                // was just read).
                let _ = file.rewind();
                Err((why, file))
            }
        }
    }

    /// The file, at its start, for another reader.
    #[must_use]
    pub fn into_file(self) -> File {
        let mut file = self.file;
        // As in `from_file`: the header was read by position.
        let _ = file.rewind();
        file
    }

    /// Whether the file's finishes are scores (higher is better) rather than ranks.
    #[must_use]
    pub fn scored(&self) -> bool {
        self.cols.score
    }

    /// Reads the file on `threads` worker threads, handing each match to `each` in file
    /// order, and `progress` the bytes of each block as it is done. Returns the number of
    /// matches handed on.
    ///
    /// # Errors
    /// [`Stopped`] at the first row that is not plain or the first match `each` refuses:
    /// no match from there on was handed on.
    pub fn read<E>(
        self,
        threads: usize,
        progress: &mut dyn FnMut(u64),
        each: impl FnMut(&RankedMatch<'_>, &PlayerNames) -> Result<(), E>,
    ) -> Result<u64, Stopped<E>> {
        self.read_in_blocks(threads, BLOCK, progress, each)
    }

    /// [`PlainCsv::read`] to a caller that may hold matches to rate them later, several
    /// at a time: `each` is handed every match (`Some`) and says how many of the last
    /// ones handed on it still holds; before the reader stops or ends it is asked
    /// (`None`) to rate every match it holds. A refusal names the match among those
    /// held (oldest first; the one just handed on is the last): the reader stops there,
    /// and the matches held after it count as not handed on.
    ///
    /// # Errors
    /// As [`PlainCsv::read`].
    pub fn read_held<E>(
        self,
        threads: usize,
        progress: &mut dyn FnMut(u64),
        each: impl FnMut(Option<&RankedMatch<'_>>, &PlayerNames) -> Result<usize, Refused<E>>,
    ) -> Result<u64, Stopped<E>> {
        self.read_held_in_blocks(threads, BLOCK, progress, each)
    }

    /// [`PlainCsv::read`] with blocks of `block_size` bytes.
    fn read_in_blocks<E>(
        self,
        threads: usize,
        block_size: usize,
        progress: &mut dyn FnMut(u64),
        mut each: impl FnMut(&RankedMatch<'_>, &PlayerNames) -> Result<(), E>,
    ) -> Result<u64, Stopped<E>> {
        self.read_held_in_blocks(threads, block_size, progress, |m, names| match m {
            Some(m) => each(m, names)
                .map(|()| 0)
                .map_err(|cause| Refused { held: 0, cause }),
            None => Ok(0),
        })
    }

    /// [`PlainCsv::read_held`] with blocks of `block_size` bytes.
    fn read_held_in_blocks<E>(
        self,
        threads: usize,
        block_size: usize,
        progress: &mut dyn FnMut(u64),
        mut each: impl FnMut(Option<&RankedMatch<'_>>, &PlayerNames) -> Result<usize, Refused<E>>,
    ) -> Result<u64, Stopped<E>> {
        let PlainCsv {
            file,
            size,
            cols,
            header,
            data_start,
        } = self;
        let blocks = (size - data_start).div_ceil(block_size);
        let threads = threads.clamp(1, blocks.max(1));
        let mut joiner = Joiner::new(threads, data_start as u64);
        let read = std::thread::scope(|scope| {
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
            for k in 0..blocks {
                let worker = k % threads;
                let Ok(mut block) = inboxes[worker].recv() else {
                    return Err(joiner.at_block(StopCause::NotPlain("a reading thread stopped")));
                };
                joiner.learn_names(worker, &block);
                // A block's first match may go on with the last one of the block before.
                let goes_on =
                    joiner.pending && block.ids().next() == Some(joiner.pending_id.as_str());
                // The contiguity rule, before any of the block's matches is handed on (a
                // lone worker checked it already).
                if threads > 1 && joiner.contiguity.broken(&mut block).is_some() {
                    return Err(joiner.at_block(StopCause::NotPlain(NOT_CONTIGUOUS)));
                }
                let mut row_start = 0;
                for (i, (id, span)) in block.ids().zip(&block.matches).enumerate() {
                    let rows = row_start..span.row_end as usize;
                    row_start = span.row_end as usize;
                    if i == 0 && goes_on {
                        joiner.merged = true;
                        joiner.keep(worker, &block, rows);
                        continue;
                    }
                    if let Err(cause) = joiner.flush(&mut each) {
                        return Err((cause, joiner.pending_at));
                    }
                    if i + 1 < block.matches.len() {
                        // Whole within the block, sorted and checked by the worker.
                        let ahead = i + LOOK_AHEAD;
                        let ahead = if ahead + 1 < block.matches.len() {
                            block.matches[ahead - 1].row_end as usize
                                ..block.matches[ahead].row_end as usize
                        } else {
                            0..0
                        };
                        if let Err(cause) =
                            joiner.hand_on(worker, &block, i, id, rows, ahead, &mut each)
                        {
                            return Err((cause, joiner.start_of(&block, i)));
                        }
                    } else {
                        let at = joiner.start_of(&block, i);
                        // The next block may go on with it.
                        joiner.pending = true;
                        joiner.merged = false;
                        joiner.pending_id.clear();
                        joiner.pending_id.push_str(id);
                        joiner.pending_at = at;
                        joiner.pending_fp = block.fps[i];
                        joiner.keep(worker, &block, rows);
                    }
                }
                // A block with a fault holds the matches before it: all but the last
                // were handed on; the general reader goes on from that one.
                if let Some(reason) = block.problem {
                    return Err(joiner.at_block(StopCause::NotPlain(reason)));
                }
                joiner.next_block(&block);
                progress(block.bytes);
                let _ = returns[worker].try_send(block);
            }
            if let Err(cause) = joiner.flush(&mut each) {
                return Err((cause, joiner.pending_at));
            }
            Ok(joiner.matches)
        });
        // The matches the caller holds are rated before the reader stops or ends.
        let read = match read {
            Err((StopCause::Refused(cause), at)) => Err((StopCause::Refused(cause), at)),
            read => match joiner.drain(&mut each) {
                Ok(()) => read.map(|_| joiner.matches),
                Err(cause) => Err((cause, (0, 0))),
            },
        };
        // A file of a header and no rows holds no matches: the general reader says so.
        let read = match read {
            Ok(0) => Err((StopCause::NotPlain(NO_ROWS), (data_start as u64, 2))),
            read => read,
        };
        read.map_err(|(cause, at)| {
            let (offset, line) = joiner.stop.unwrap_or(at);
            Stopped {
                cause,
                matches: joiner.matches,
                offset,
                line,
                recent: joiner.handed.in_order().collect(),
                file,
                header,
            }
        })
    }
}

/// Reads and checks the header: the columns, the header row and where the rows start.
fn header(file: &File, size: usize) -> Result<(Columns, Vec<u8>, usize), &'static str> {
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
    let named = |name: &str| {
        let name = name.to_owned();
        names
            .iter()
            .enumerate()
            .filter(move |(_, h)| h.trim_start_matches('\u{feff}').eq_ignore_ascii_case(&name))
            .map(|(i, _)| i)
    };
    if KNOWN_COLUMNS.iter().any(|c| named(c).nth(1).is_some()) {
        return Err("a column named twice");
    }
    let find = |name: &str| named(name).next();
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
    let columns = Columns {
        id,
        player,
        finish,
        score,
        needed,
        fields: names.len(),
    };
    Ok((columns, buf[..end].to_vec(), (end + 1).min(size)))
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
    /// Per match: where its id ends in `ids`, its rows end, and its first row starts.
    matches: Vec<Span>,
    /// Per match: the [`fingerprint`] of its id.
    fps: Vec<u64>,
    /// Per row, each match's rows best first: the player, numbered by the worker, the
    /// sort key of the finish (rank, or −score) and the place.
    players: Vec<u32>,
    keys: Vec<f64>,
    places: Vec<usize>,
    /// The players this worker met first in this block, in the order of their numbers.
    names: Vec<CompactString>,
    /// Bytes of the file the block covers.
    bytes: u64,
    /// Where the block's text (the lines that start in it) starts and ends in the file,
    /// and how many lines it holds.
    start: u64,
    end: u64,
    lines: u32,
    /// Why the block is not plain.
    problem: Option<&'static str>,
}

/// Where one match of a block lies.
#[derive(Debug, Clone, Copy)]
struct Span {
    /// The end of its id in [`Block::ids`].
    id_end: u32,
    /// The end of its rows in the block's rows.
    row_end: u32,
    /// Its first row: the line, counted from the block's first, and the byte, from the
    /// start of the block's text.
    line: u32,
    offset: u32,
}

impl Block {
    /// Keeps only the first `m` matches (and their rows, ids and fingerprints).
    fn truncate(&mut self, m: usize) {
        let (id_end, row_end) = match m.checked_sub(1).and_then(|k| self.matches.get(k)) {
            Some(span) => (span.id_end as usize, span.row_end as usize),
            None => (0, 0),
        };
        self.matches.truncate(m);
        self.fps.truncate(m);
        self.ids.truncate(id_end);
        self.players.truncate(row_end);
        self.keys.truncate(row_end);
        self.places.truncate(row_end);
    }

    /// The ids of the block's matches, in order.
    fn ids(&self) -> impl Iterator<Item = &str> {
        let mut start = 0;
        self.matches.iter().map(move |span| {
            let end = span.id_end as usize;
            &self.ids[std::mem::replace(&mut start, end)..end]
        })
    }

    /// The id of the block's last match, if any, without walking the others.
    fn last_id(&self) -> Option<&str> {
        let n = self.matches.len();
        let end = self.matches.last()?.id_end as usize;
        let start = n
            .checked_sub(2)
            .map_or(0, |k| self.matches[k].id_end as usize);
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
    /// The first match of `block` that comes back after other matches, if any; a block's first match
    /// may go on with the last one of the blocks before. Every id is checked against the
    /// recent ones in a loop of its own: when ids do not rise, the misses of several in
    /// the map of recent ids are waited for together.
    ///
    /// The ids' fingerprints are `block.fps`, or when that is empty, worked out here into
    /// it (up to the first id that breaks the rule).
    fn broken(&mut self, block: &mut Block) -> Option<usize> {
        let goes_on = self.last.is_some() && block.ids().next() == self.last.as_deref();
        let broken = if block.fps.is_empty() {
            let mut fps = std::mem::take(&mut block.fps);
            let broken = block.ids().enumerate().position(|(i, id)| {
                let fp = fingerprint(id);
                fps.push(fp);
                (i > 0 || !goes_on) && self.recent.seen_before_as(id, fp)
            });
            block.fps = fps;
            broken
        } else {
            let skip = usize::from(goes_on);
            block
                .ids()
                .zip(&block.fps)
                .skip(skip)
                .position(|(id, &fp)| self.recent.seen_before_as(id, fp))
                .map(|i| i + skip)
        };
        if let Some(id) = block.last_id() {
            let last = self.last.get_or_insert_with(String::new);
            last.clear();
            last.push_str(id);
        }
        broken
    }
}

/// Why a file with a header and no rows is not read here.
const NO_ROWS: &str = "a header without rows";

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
        block.fps.clear();
        block.players.clear();
        block.keys.clear();
        block.places.clear();
        block.names.clear();
        block.problem = None;
        block.bytes = (end - start) as u64;
        block.start = 0;
        block.end = 0;
        block.lines = 0;
        // One byte before the block says whether a line starts at `start`; the block
        // reads on past `end` to the end of its last line.
        let from = start - 1;
        // The buffer is read over, not cleared: only bytes it never had are zeroed.
        self.buf.resize(end - from, 0);
        if read_at(file, &mut self.buf, from).is_err() {
            block.problem = Some("a read failed");
            return block;
        }
        // Where the block's last line starts: it may go on past `end`, but not past the
        // longest line read (the general reader says where such a line is).
        let own_end = end - from;
        let last_start = memchr::memrchr(b'\n', &self.buf).map_or(0, |nl| nl + 1);
        let mut too_long = false;
        let mut at = end;
        while at < size && self.buf.last() != Some(&b'\n') {
            if self.buf.len() - last_start > MAX_LINE + 1 {
                too_long = true;
                break;
            }
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
        if first >= own_end {
            return block;
        }
        // The text handed on ends with its last line's line break; the file's last line
        // may have none, and gets one. A last line too long is left out.
        let last = match memchr::memchr(b'\n', &self.buf[own_end - 1..]) {
            _ if too_long => last_start,
            Some(nl) => own_end + nl,
            None => {
                self.buf.push(b'\n');
                self.buf.len()
            }
        };
        block.start = (from + first) as u64;
        block.end = (from + last) as u64;
        let buf = std::mem::take(&mut self.buf);
        let text = &buf[first..last];
        let fault = match self.split(text, cols, &mut block) {
            Err(fault) => Some(fault),
            Ok(()) if too_long => Some(Fault::Row {
                why: LONG_LINE,
                at: text.len(),
            }),
            Ok(()) => None,
        };
        if let Some(fault) = fault {
            // The block keeps the matches before the fault, for the caller to hand on
            // all but the last (which may go on past it); the general reader reads the
            // rest.
            match fault {
                Fault::Row { why, at } => {
                    block.problem = Some(why);
                    block.truncate(0);
                    if at > 0 && self.split(&text[..at], cols, &mut block).is_err() {
                        block.truncate(0);
                    }
                }
                Fault::Match { why, index } => {
                    block.problem = Some(why);
                    block.truncate(index);
                }
            }
        }
        self.buf = buf;
        block.fps.reserve(block.matches.len());
        match &mut self.contiguity {
            // The rule works out the ids' fingerprints as it checks them.
            Some(c) => {
                if let Some(i) = c.broken(&mut block) {
                    block.problem.get_or_insert(NOT_CONTIGUOUS);
                    block.truncate(i);
                }
            }
            None => {
                let mut fps = std::mem::take(&mut block.fps);
                fps.extend(block.ids().map(fingerprint));
                block.fps = fps;
            }
        }
        block
    }

    fn split(&mut self, text: &[u8], cols: Columns, block: &mut Block) -> Result<(), Fault> {
        if u32::try_from(text.len()).is_err() {
            return Err(Fault::Row {
                why: "a line longer than 4 GiB",
                at: 0,
            });
        }
        let text = std::str::from_utf8(text).map_err(|e| Fault::Row {
            why: "text that is not UTF-8",
            at: line_start(text, e.valid_up_to()),
        })?;
        let (refused, trimmable) = scan(text.as_bytes());
        if refused {
            let bytes = text.as_bytes();
            let at = memchr::memchr2(b'"', b'\r', bytes).unwrap_or(0);
            return Err(Fault::Row {
                why: "a quote or a carriage return",
                at: line_start(bytes, at),
            });
        }
        self.spans.clear();
        split_rows(text, cols, trimmable, block, &mut self.spans).map_err(|why| Fault::Row {
            why,
            at: row_start(text.as_bytes(), self.spans.len()),
        })?;
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
            let end = block.matches[m].row_end as usize;
            self.end_match(block, start..end)
                .map_err(|why| Fault::Match { why, index: m })?;
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

/// What the plain reader does not read in a block, and where: a row (the start of its
/// line in the block's text), or a match (its index in the block).
#[derive(Debug, Clone, Copy)]
enum Fault {
    Row { why: &'static str, at: usize },
    Match { why: &'static str, index: usize },
}

/// The start of row `k` (0-based) of a block's text: its `k`-th line that is not empty
/// (as [`split_rows`] skips empty lines), or the end of the text.
fn row_start(text: &[u8], k: usize) -> usize {
    let mut start = 0;
    let mut rows = 0;
    for nl in memchr::memchr_iter(b'\n', text) {
        if nl > start {
            if rows == k {
                return start;
            }
            rows += 1;
        }
        start = nl + 1;
    }
    start.min(text.len())
}

/// The start of the line of `text` that holds byte `at`.
fn line_start(text: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &text[..at.min(text.len())]).map_or(0, |nl| nl + 1)
}

/// The rows of a block's text: each match's id and where its rows end, and each row's
/// player (where it lies in the text) and sort key. A function of its own, so that its
/// loop, run once per field, keeps its values in registers. At a row it does not read
/// it says why; that row is the one after the rows whose players are in `spans` (see
/// [`row_start`]).
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
    // The lines of the text so far.
    let mut lines = 0u32;
    for end in Separators::new(bytes) {
        if count < cols.needed {
            fields[count] = (from, end);
        }
        count += 1;
        from = end + 1;
        if bytes[end] == b',' {
            continue;
        }
        let line = lines;
        lines += 1;
        let seen = std::mem::take(&mut count);
        if end - fields[0].0 > MAX_LINE {
            return Err(LONG_LINE);
        }
        if seen == 1 && fields[0].0 == fields[0].1 {
            continue; // blank lines are skipped, as csv readers do
        }
        if seen < cols.needed {
            return Err("a row with too few fields");
        }
        if seen > cols.fields {
            return Err("a row with more fields than the header");
        }
        // Fields are read as bytes: commas and line breaks are ASCII, so they bound
        // characters, and only a new match's id needs to be a `str`.
        let field = |i: usize| read_field(text, fields[i], trimmable);
        let id = field(cols.id)?;
        // The player is checked here and looked up below, with the block's others: an
        // id as the library takes it ([`podium::model::check_id`]), which without
        // anything trimmable in the block needs only its length checked.
        let player = field(cols.player)?;
        if player.len() > podium::model::MAX_ID_LEN
            || (trimmable
                && !podium::model::check_id(&text[fields[cols.player].0..fields[cols.player].1]))
        {
            return Err(INVALID_ID);
        }
        let value =
            parse_number_bytes(field(cols.finish)?).ok_or("a finish that is not a number")?;
        let key = if cols.score { -value } else { value };
        // The id of the match being read is the last one in `ids`.
        if block.matches.is_empty() || !same_bytes(&block.ids.as_bytes()[id_start..], id) {
            if let Some(m) = block.matches.last_mut() {
                m.row_end = block.keys.len() as u32;
            }
            id_start = block.ids.len();
            let (s, e) = fields[cols.id];
            if podium::model::check_match_id(&text[s..e]).is_err() {
                return Err(INVALID_ID);
            }
            block.ids.push_str(&text[s..e]);
            block.matches.push(Span {
                id_end: block.ids.len() as u32,
                row_end: 0,
                line,
                // The row's first field starts the row (the text is shorter than 4 GiB).
                offset: fields[0].0 as u32,
            });
        }
        spans.push(fields[cols.player]);
        block.keys.push(key);
    }
    if let Some(m) = block.matches.last_mut() {
        m.row_end = block.keys.len() as u32;
    }
    block.lines = lines;
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

/// Why a line is not read: the general reader refuses it, naming its line.
const LONG_LINE: &str = "a line longer than the longest read";

/// Why a field is not read.
const EMPTY_OR_SPACED: &str = "an empty field or one with surrounding spaces";
/// Why a player or match id is not read: too long, or with a control character.
const INVALID_ID: &str = "an id that is not valid";

/// Whether a block's text holds a quote or a carriage return, which a plain file has not;
/// and whether it holds anything that trimming a field could remove or an id may not hold:
/// white space or control characters other than its line breaks, or any character other
/// than ASCII (some are white space or control characters). In one pass of vector
/// compares, 16 bytes at a time.
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

/// Up to 16 bytes as a vector, padded with line breaks (which [`scan`] passes over).
#[inline(always)]
fn lanes(bytes: &[u8]) -> wide::u8x16 {
    let mut sixteen = [b'\n'; 16];
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
        // Control characters (below 32 but the line break, and 127) among them tab,
        // vertical tab and form feed, the space, and bytes of 128 and over, whose high
        // bit is their own: the fields of a block with any of them are checked one by
        // one.
        trimmable
            | (v.min(u8x16::splat(0x1f)).cmp_eq(v) ^ v.cmp_eq(u8x16::splat(b'\n')))
            | v.cmp_eq(u8x16::splat(0x7f))
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
    /// Matches handed on and no longer held by the caller.
    matches: u64,
    /// Matches handed on, held or not (numbers the joined ones for `seen`).
    sequence: u64,
    /// The matches the caller holds, oldest first: each one's id fingerprint and first
    /// row (byte and line).
    held: std::collections::VecDeque<(u64, (u64, u64))>,
    /// Where to stop instead, after the caller refused a match it held.
    stop: Option<(u64, u64)>,
    /// Where the pending match's first row is (byte and line), and its id's fingerprint.
    pending_at: (u64, u64),
    pending_fp: u64,
    /// Where the next block's text starts, and the line it starts on.
    next_start: u64,
    line_base: u64,
    /// The fingerprints of the last match ids handed on.
    handed: Handed,
}

/// The fingerprints of the last [`RECENT_IDS`] match ids handed on: what the general
/// reader needs to go on where this one stops.
struct Handed {
    /// Fingerprints, each with its match's first line.
    fps: Vec<(u64, u64)>,
    /// Where the next one goes, once `fps` is full.
    at: usize,
}

impl Default for Handed {
    fn default() -> Self {
        // Room for the whole window at once (1 MiB, touched only as it fills): no
        // copying as it grows.
        Handed {
            fps: Vec::with_capacity(RECENT_IDS),
            at: 0,
        }
    }
}

impl Handed {
    fn push(&mut self, fp: u64, line: u64) {
        if self.fps.len() < RECENT_IDS {
            self.fps.push((fp, line));
        } else {
            self.fps[self.at] = (fp, line);
            self.at += 1;
            if self.at == RECENT_IDS {
                self.at = 0;
            }
        }
    }

    /// Oldest first.
    fn in_order(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.fps[self.at..]
            .iter()
            .chain(&self.fps[..self.at])
            .copied()
    }
}

impl Joiner {
    fn new(threads: usize, data_start: u64) -> Self {
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
            sequence: 0,
            held: std::collections::VecDeque::new(),
            stop: None,
            pending_at: (0, 0),
            pending_fp: 0,
            next_start: data_start,
            // The header is line 1, a single line (it has no quotes).
            line_base: 2,
            handed: Handed::default(),
        }
    }

    /// Where to stop when the next block cannot be used: at the pending match, or else at
    /// the block's first row.
    fn at_block<E>(&self, cause: StopCause<E>) -> (StopCause<E>, (u64, u64)) {
        let at = if self.pending {
            self.pending_at
        } else {
            (self.next_start, self.line_base)
        };
        (cause, at)
    }

    /// Moves past a block whose matches were handed on (all but its last, now pending).
    fn next_block(&mut self, block: &Block) {
        if block.end > block.start {
            self.next_start = block.end;
        }
        self.line_base += u64::from(block.lines);
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

    /// Where match `i` of `block` starts: its first row's byte and line.
    fn start_of(&self, block: &Block, i: usize) -> (u64, u64) {
        let span = block.matches[i];
        (
            block.start + u64::from(span.offset),
            self.line_base + u64::from(span.line),
        )
    }

    /// Hands on match `i` of `block`, which the worker read whole.
    #[allow(clippy::too_many_arguments)]
    fn hand_on<E>(
        &mut self,
        worker: usize,
        block: &Block,
        i: usize,
        id: &str,
        rows: Range<usize>,
        ahead: Range<usize>,
        each: &mut impl FnMut(Option<&RankedMatch<'_>>, &PlayerNames) -> Result<usize, Refused<E>>,
    ) -> Result<(), StopCause<E>> {
        if rows.len() < 2 {
            return Err(StopCause::NotPlain("a match of fewer than two players"));
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
        let at = self.start_of(block, i);
        self.held.push_back((block.fps[i], at));
        self.sequence += 1;
        let taken = each(
            Some(&RankedMatch {
                id,
                line: at.1,
                players,
                places: &block.places[rows],
                ahead,
            }),
            &self.names,
        );
        self.settle(taken)
    }

    /// What the caller said of the matches handed on: those it no longer holds are
    /// handed on for good; at a refusal, those before the refused one are, and the
    /// reader stops at it.
    fn settle<E>(&mut self, taken: Result<usize, Refused<E>>) -> Result<(), StopCause<E>> {
        match taken {
            Ok(holds) => {
                self.confirm(self.held.len().saturating_sub(holds));
                Ok(())
            }
            Err(Refused { held, cause }) => {
                let held = held.min(self.held.len().saturating_sub(1));
                self.stop = self.held.get(held).map(|&(_, at)| at);
                self.confirm(held);
                self.held.clear();
                Err(StopCause::Refused(cause))
            }
        }
    }

    /// The `n` oldest matches held, handed on for good.
    fn confirm(&mut self, n: usize) {
        for (fp, (_, line)) in self.held.drain(..n) {
            self.matches += 1;
            self.handed.push(fp, line);
        }
    }

    /// Asks the caller to rate every match it holds.
    fn drain<E>(
        &mut self,
        each: &mut impl FnMut(Option<&RankedMatch<'_>>, &PlayerNames) -> Result<usize, Refused<E>>,
    ) -> Result<(), StopCause<E>> {
        if self.held.is_empty() {
            return Ok(());
        }
        let taken = each(None, &self.names).map(|_| 0);
        self.settle(taken)
    }

    /// Hands on the pending match, if any.
    #[inline]
    fn flush<E>(
        &mut self,
        each: &mut impl FnMut(Option<&RankedMatch<'_>>, &PlayerNames) -> Result<usize, Refused<E>>,
    ) -> Result<(), StopCause<E>> {
        if !self.pending {
            return Ok(());
        }
        self.flush_pending(each)
    }

    /// [`Joiner::flush`] of a pending match.
    fn flush_pending<E>(
        &mut self,
        each: &mut impl FnMut(Option<&RankedMatch<'_>>, &PlayerNames) -> Result<usize, Refused<E>>,
    ) -> Result<(), StopCause<E>> {
        self.pending = false;
        if self.rows.len() < 2 {
            return Err(StopCause::NotPlain("a match of fewer than two players"));
        }
        if self.merged {
            let seq = self.sequence;
            if self.rows.iter().any(|&(_, p)| {
                let again = self.seen[p as usize] == seq;
                self.seen[p as usize] = seq;
                again
            }) {
                return Err(StopCause::NotPlain("a player twice in one match"));
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
        self.held.push_back((self.pending_fp, self.pending_at));
        self.sequence += 1;
        let taken = each(
            Some(&RankedMatch {
                id: &self.pending_id,
                line: self.pending_at.1,
                players: &self.players,
                places: &self.places,
                ahead: &[],
            }),
            &self.names,
        );
        self.settle(taken)
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

    /// How this reader ended on a file.
    #[derive(Debug, PartialEq)]
    enum Plain {
        /// Read to the end: this many matches.
        Read(u64),
        /// Refused by [`PlainCsv::open`].
        Refused,
        /// Stopped at this line.
        Stopped(u64),
    }

    /// Every match this reader hands on, with `threads` workers and blocks of `block`
    /// bytes, and then, when it stops, every match or error of the general reader that
    /// goes on from there.
    fn plain(text: &[u8], threads: usize, block: usize) -> (Plain, Vec<Read>, Vec<Outcome>) {
        let file = TempFile::new(text);
        let mut got = Vec::new();
        let mut bytes = 0;
        let Ok(opened) = PlainCsv::open(&file.0) else {
            return (Plain::Refused, got, Vec::new());
        };
        let read = opened.read_in_blocks(threads, block, &mut |b| bytes += b, |m, names| {
            got.push((
                m.id.to_string(),
                m.players
                    .iter()
                    .map(|&p| names.get(p).to_string())
                    .collect(),
                m.places.to_vec(),
            ));
            Ok::<(), ()>(())
        });
        match read {
            Ok(matches) => {
                let header = text
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(text.len(), |h| h + 1);
                assert_eq!(
                    bytes as usize,
                    text.len() - header,
                    "progress covers the rows"
                );
                (Plain::Read(matches), got, Vec::new())
            }
            Err(stopped) => {
                let line = stopped.line();
                let rest = stopped.resume("t.csv", |f| f).unwrap();
                (Plain::Stopped(line), got, outcomes(rest))
            }
        }
    }

    /// A match, or the error message, as the general reader gives it.
    type Outcome = Result<Read, String>;

    /// A line longer than the limit is not read on to its end, whatever the blocks and
    /// threads: the reader stops before the match it may belong to, and the general
    /// reader refuses the line, naming it.
    #[test]
    fn a_line_longer_than_the_limit_stops_the_plain_reader_before_it() {
        let long = "p".repeat(MAX_LINE);
        let text = format!(
            "match,player,rank\nm1,a,1\nm1,b,2\nm2,a,1\nm2,b,2\nm3,{long},1\nm3,b,2\nm4,a,1\nm4,b,2\n"
        );
        let ab = |id: &str| {
            (
                id.to_string(),
                vec!["a".to_string(), "b".to_string()],
                vec![1, 2],
            )
        };
        for (threads, block) in [(1, BLOCK), (2, BLOCK), (1, 1 << 16), (3, 1 << 16), (2, 7)] {
            let (how, got, rest) = plain(text.as_bytes(), threads, block);
            assert_eq!(
                how,
                Plain::Stopped(4),
                "{threads} threads, blocks of {block}"
            );
            assert_eq!(got, [ab("m1")], "{threads} threads, blocks of {block}");
            // m2 may go on in the line refused: as when read from the start, it is not
            // handed on.
            assert_eq!(
                rest,
                [Err(
                    "t.csv:6: a line longer than 1 MiB, the most a CSV line may hold".to_string()
                )],
                "{threads} threads, blocks of {block}"
            );
        }
        // A line of the limit exactly is read (its length in a column the reader skips:
        // an id that long is not one).
        let note = "n".repeat(MAX_LINE - "m3,p,1,".len());
        let text = format!("match,player,rank,note\nm1,a,1,\nm1,b,2,\nm3,p,1,{note}\nm3,b,2,\n");
        for (threads, block) in [(1, BLOCK), (3, 1 << 16)] {
            let (how, got, _) = plain(text.as_bytes(), threads, block);
            assert_eq!(how, Plain::Read(2), "{threads} threads, blocks of {block}");
            assert_eq!(got[1].1[0], "p");
        }
    }

    fn outcomes(
        reader: impl Iterator<Item = Result<podium::Match, crate::ReadError>>,
    ) -> Vec<Outcome> {
        reader
            .map(|m| {
                let m = m.map_err(|e| e.to_string())?;
                Ok((
                    m.id().to_string(),
                    m.players().map(|(_, p)| p.player.clone()).collect(),
                    m.players().map(|(e, _)| m.place(e)).collect(),
                ))
            })
            .collect()
    }

    /// What the general reader gives: every match, or `None` if any row or match is bad.
    fn general(text: &[u8]) -> Option<Vec<Read>> {
        outcomes(CsvMatches::new("t.csv", text))
            .into_iter()
            .map(Result::ok)
            .collect()
    }

    #[test]
    fn a_block_knows_its_last_match_id() {
        let mut block = Block::default();
        assert_eq!(block.last_id(), None);
        for (id, end) in [("g1", 2), ("g22", 5), ("h", 6)] {
            block.ids.push_str(id);
            block.matches.push(Span {
                id_end: end,
                row_end: 0,
                line: 0,
                offset: 0,
            });
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
                let (plain, got, _) = plain(text.as_bytes(), threads, block);
                assert_eq!(plain, Plain::Read(3), "{threads} {block}");
                assert_eq!(got, want, "{threads} threads, blocks of {block}");
            }
        }
        // A file of a header alone, with or without a line break, or with blank lines
        // after it: the general reader says it holds no matches.
        for text in [
            "match,player,rank",
            "match,player,rank\n",
            "match,player,rank\n\n\n",
        ] {
            assert_eq!(
                plain(text.as_bytes(), 2, 3),
                (
                    Plain::Stopped(2),
                    vec![],
                    vec![Err("t.csv:2: the file holds no matches: it has a header and no rows (expected one row per player per match after it)".into())]
                )
            );
            assert_eq!(general(text.as_bytes()), None);
        }
        // Scores: higher is better.
        let (_, got, _) = plain(b"match,player,score\ng,a,10\ng,b,30\ng,c,10\n", 1, 4);
        assert_eq!(got[0].1, ["b", "a", "c"]);
        assert_eq!(got[0].2, [1, 2, 2]);
    }

    #[test]
    fn says_no_to_what_it_does_not_read() {
        let no = |text: &str| {
            for threads in [1, 2] {
                let (plain, _, _) = plain(text.as_bytes(), threads, 8);
                assert!(!matches!(plain, Plain::Read(_)), "{text:?}: {plain:?}");
            }
        };
        no("");
        no("match,player\ng,a\n");
        no("match,player,rank,score\ng,a,1,\n");
        no("match,player,rank,rank\ng,a,1,1\ng,b,2,2\n");
        no("match,player,Player,rank\ng,a,a,1\ng,b,b,2\n");
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
        let (plain, _, _) = plain(&latin1, 1, 1 << 20);
        assert!(matches!(plain, Plain::Stopped(2)), "{plain:?}");
    }

    #[test]
    fn player_id_longer_than_the_limit_is_refused() {
        let no = |text: &str| {
            for threads in [1, 2] {
                let (plain, _, _) = plain(text.as_bytes(), threads, 8);
                assert!(!matches!(plain, Plain::Read(_)), "{text:?}: {plain:?}");
            }
        };
        let long = "p".repeat(podium::model::MAX_ID_LEN + 1);
        no(&format!("match,player,rank\ng,a,1\ng,{long},2\n"));
        no(&format!("match,player,rank\n{long},a,1\n{long},b,2\n"));
        // Control characters, ASCII or not, in the player or the match id.
        for control in ["\u{0}", "\u{1}", "\u{1f}", "\u{7f}", "\u{85}", "\u{9b}"] {
            no(&format!("match,player,rank\ng,a{control}b,1\ng,b,2\n"));
            no(&format!(
                "match,player,rank\ng{control}h,a,1\ng{control}h,b,2\n"
            ));
        }
        // The longest id, and a control character in a column not read, are plain.
        let longest = "p".repeat(podium::model::MAX_ID_LEN);
        for text in [
            format!("match,player,rank\ng,a,1\ng,{longest},2\n"),
            "match,player,rank,note\ng,a,1,x\u{1}y\ng,é,2,\n".to_string(),
        ] {
            let (plain, _, _) = plain(text.as_bytes(), 1, 1 << 20);
            assert!(matches!(plain, Plain::Read(1)), "{text:?}: {plain:?}");
        }
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
            let opened = PlainCsv::open(&file.0).unwrap();
            let read = opened.read_in_blocks(threads, block, &mut |_| {}, |m, names| {
                let named = |ps: &[u32]| ps.iter().map(|&p| names.get(p).to_string()).collect();
                seen.push((named(m.players), named(m.ahead)));
                Ok::<(), ()>(())
            });
            assert_eq!(read.ok(), Some(12));
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

    /// A caller that holds matches and refuses one of them stops the reader at that
    /// match: those before it count as handed on, and the general reader goes on from
    /// it, whichever block the matches came in and whenever the caller said so.
    #[test]
    fn a_held_match_refused_stops_the_reader_at_it() {
        let text = b"match,player,rank\ng1,a,1\ng1,b,2\ng2,c,1\ng2,d,2\ng3,a,1\ng3,c,2\ng4,b,1\ng4,d,2\ng5,a,1\ng5,d,2\n";
        let file = TempFile::new(text);
        for (threads, block) in [(1, 1 << 20), (1, 9), (2, 9), (2, 30)] {
            for hold in 1..4 {
                for refuse in ["g1", "g3", "g5"] {
                    let mut held: Vec<String> = Vec::new();
                    let mut rated: Vec<String> = Vec::new();
                    // Rates what it holds once it holds `hold` matches, and when asked.
                    let mut rate = |held: &mut Vec<String>| -> Result<(), Refused<String>> {
                        for (k, id) in held.drain(..).enumerate() {
                            if id == refuse {
                                return Err(Refused { held: k, cause: id });
                            }
                            rated.push(id);
                        }
                        Ok(())
                    };
                    let got = PlainCsv::open(&file.0)
                        .unwrap()
                        .read_held_in_blocks(threads, block, &mut |_| {}, |m, _| {
                            match m {
                                Some(m) => {
                                    held.push(m.id.to_string());
                                    if held.len() >= hold {
                                        rate(&mut held)?;
                                    }
                                }
                                None => rate(&mut held)?,
                            }
                            Ok(held.len())
                        })
                        .unwrap_err();
                    let at = refuse[1..].parse::<u64>().unwrap();
                    assert_eq!(got.cause, StopCause::Refused(refuse.to_string()));
                    assert_eq!(got.matches(), at - 1, "{threads} {block} {hold} {refuse}");
                    assert_eq!(got.line(), 2 * at, "{threads} {block} {hold} {refuse}");
                    let rest: Vec<String> = got
                        .resume("f", |f| f)
                        .unwrap()
                        .map(|m| m.unwrap().id().to_string())
                        .collect();
                    let want: Vec<String> = (at..=5).map(|k| format!("g{k}")).collect();
                    assert_eq!(rest, want, "{threads} {block} {hold} {refuse}");
                }
            }
        }
    }

    #[test]
    fn stops_at_the_first_error_of_the_caller() {
        let file = TempFile::new(b"match,player,rank\ng,a,1\ng,b,2\nh,a,1\nh,b,2\n");
        for (threads, block) in [(1, 4), (2, 4), (1, 1 << 20)] {
            let mut seen = 0;
            let got = PlainCsv::open(&file.0)
                .unwrap()
                .read_in_blocks(threads, block, &mut |_| {}, |m, _| {
                    seen += 1;
                    if m.id == "h" {
                        Err("refused")
                    } else {
                        Ok(())
                    }
                })
                .unwrap_err();
            assert_eq!(got.cause, StopCause::Refused("refused"));
            assert_eq!(seen, 2);
            // The general reader goes on with the match refused.
            assert_eq!(got.line(), 4);
            let rest = outcomes(got.resume("t.csv", |f| f).unwrap());
            assert_eq!(
                rest,
                [Ok(("h".into(), vec!["a".into(), "b".into()], vec![1, 2]))]
            );
        }
    }

    #[test]
    fn it_stops_at_the_match_of_the_row_it_does_not_read() {
        // Line 7 has quotes: g1 and g2 are handed on; g3, which line 7 may belong to, and
        // the rest are the general reader's.
        let text = "match,player,rank\ng1,a,1\ng1,b,2\ng2,a,1\ng2,b,2\ng3,a,1\ng3,\"b\",2\ng4,a,1\ng4,b,2\n";
        for threads in [1, 2] {
            let (plain, got, rest) = plain(text.as_bytes(), threads, 1 << 20);
            assert_eq!(plain, Plain::Stopped(6));
            assert_eq!(
                got.iter().map(|m| m.0.as_str()).collect::<Vec<_>>(),
                ["g1", "g2"]
            );
            let ids: Vec<&str> = rest
                .iter()
                .map(|m| m.as_ref().unwrap().0.as_str())
                .collect();
            assert_eq!(ids, ["g3", "g4"]);
        }
        // A player twice in g2: the block keeps g1, the last match before the fault, which
        // is not handed on (a block's last match may go on); the general reader reads g1,
        // g2 (bad) and g3.
        let text = "match,player,rank\ng1,a,1\ng1,b,2\ng2,a,1\ng2,a,2\ng3,a,1\ng3,b,2\n";
        let (plain, got, rest) = plain(text.as_bytes(), 1, 1 << 20);
        assert_eq!(plain, Plain::Stopped(2));
        assert!(got.is_empty(), "{got:?}");
        assert_eq!(rest.len(), 3);
        assert!(rest[1]
            .as_ref()
            .unwrap_err()
            .starts_with("t.csv:5: match \"g2\""));
    }

    #[test]
    fn the_general_reader_goes_on_where_it_stopped_and_finds_what_it_could_not() {
        // Plain until line 6, which is quoted; the match g1 comes back on line 8 after
        // other matches, which only the ids this reader handed on can tell.
        let text = "match,player,rank\ng1,a,1\ng1,b,2\ng2,a,1\ng2,b,2\n\"g3\",a,1\ng3,b,2\ng1,c,1\ng1,d,2\n";
        for threads in [1, 2] {
            for block in [4, 16, 1 << 20] {
                let (plain, got, rest) = plain(text.as_bytes(), threads, block);
                assert!(matches!(plain, Plain::Stopped(_)), "{plain:?}");
                let mut all: Vec<Outcome> = got.into_iter().map(Ok).collect();
                all.extend(rest);
                assert_eq!(all, outcomes(CsvMatches::new("t.csv", text.as_bytes())));
                assert_eq!(
                    all.last().unwrap().as_ref().unwrap_err(),
                    "t.csv:8: match \"g1\" appears again after other matches: its rows on line 2 and on line 8 are apart, and a match's rows must be together (sort the file by match), or two matches share the id (give one of them an id of its own)"
                );
            }
        }
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
        /// On every file, this reader hands on what the general one reads, and the
        /// general reader, going on where this one stops, gives every match and error
        /// that it gives reading the whole file. Files without any of the reader's
        /// exclusions are read to the end.
        #[test]
        fn with_the_general_reader_reads_what_the_general_reader_reads(
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
            let want = outcomes(CsvMatches::new("t.csv", text.as_bytes()));
            let (plain, got, rest) = plain(text.as_bytes(), threads, block);
            if let Plain::Read(n) = plain {
                prop_assert_eq!(n as usize, got.len());
            }
            let mut all: Vec<Outcome> = got.into_iter().map(Ok).collect();
            all.extend(rest);
            prop_assert_eq!(&all, &want, "{:?}", text);
            let clean = !text.contains(['"', '\r', ' ']) && !text.contains(",,");
            if want.iter().all(Result::is_ok) && clean && !text.contains(",\n") {
                prop_assert!(matches!(plain, Plain::Read(_)), "{:?}: {:?}", text, plain);
            }
        }
    }
}
