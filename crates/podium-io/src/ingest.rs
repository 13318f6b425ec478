//! Match files into a [`League`], or into memory: the one way in for every command that
//! reads a history.
//!
//! The reader is chosen once per file, before it is read:
//!
//! - **plain** long CSV of free-for-alls ([`crate::plain`]) is read on several threads and
//!   rated match by match with [`League::apply_ranked`], which rates each match as
//!   [`League::apply`] does; where the league can rate matches at once
//!   ([`League::rates_at_once`]) and they take long enough for that to pay (timed on the
//!   first ones; [`Reading::at_once`]), the rest go a batch at a time to
//!   [`League::apply_batch`], on a thread of its own while the next batch is read. Where
//!   the file stops being plain, or at a match the fast path does not rate, the general
//!   reader goes on from that match: nothing is read twice and nothing is rated twice.
//! - **anything else** (standard input, JSON Lines, other CSV, a caller that wants every
//!   match and its report, files after one with times) is read by the general readers
//!   ([`crate::CsvMatches`], [`crate::JsonlMatches`]) on a thread of their own, a bounded
//!   number of matches ahead of the rating.
//!
//! Which way each file was read is in the result ([`Ingested::files`]) and said at debug
//! level through `tracing`.
//!
//! Whichever way a file is read, the rules are the same:
//!
//! - One bad match fails the whole run: reading goes on to find and list every bad match
//!   ([`IngestError::BadMatches`]), and the league given to [`rate`] is then part-rated,
//!   for the caller to drop (the command line prints nothing of it; keep a copy of a
//!   league to go back to); with [`Inputs::skip_bad`] the good matches are rated and the
//!   bad ones returned ([`Ingested::skipped`]).
//! - Matches with times are rated in time order (stable for equal times); matches
//!   without, in file order before them. A match without a time after one with a time
//!   (in its file or an earlier one) is a bad match ([`crate::times_expected`]), as it is
//!   for the league server.
//! - A match id names one match across all the files: an id an earlier file used is a
//!   bad match ([`ReadError::Repeated`]) naming both places. Within one file, a match's
//!   rows are contiguous ([`ReadError::NotContiguous`]).
//!
//! ```
//! use podium::League;
//! use podium_io::ingest::{self, Inputs, Reading};
//!
//! let dir = std::env::temp_dir().join(format!("podium-ingest-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("games.csv");
//! std::fs::write(&path, "match,player,rank\ng1,ann,1\ng1,bo,2\ng2,bo,1\ng2,cy,2\n")?;
//! let inputs = Inputs::new([path.display().to_string()]);
//! let mut league = League::new(podium::system("sme", &podium::Settings::new())?);
//! let done = ingest::rate(&inputs, &mut league, &Reading::default())?;
//! assert_eq!(league.matches_rated(), 2);
//! assert!(done.skipped.is_empty());
//! assert!(matches!(done.files[0].way, ingest::Way::Plain { matches: 2 }));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::fmt;
use std::fs::File;
use std::hash::BuildHasherDefault;
use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};

use podium::{League, Match, MatchReport, RankedBatch, RateError, Slot};

use crate::group::{fingerprint, Passthrough};
use crate::plain::{PlainCsv, PlayerNames, RankedMatch, Refused, StopCause};
use crate::{InputFormat, MatchStream, ReadError, ReadOptions};

/// The files to read, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inputs {
    /// Match files, read in this order; `-` is standard input.
    pub files: Vec<String>,
    /// Read every file in this format instead of the one its extension suggests.
    pub format: Option<InputFormat>,
    /// Rate the good matches and return the bad ones, instead of rating nothing.
    pub skip_bad: bool,
    /// What to read besides each format's columns: the factor columns. Files with factor
    /// columns are read the general way.
    pub options: ReadOptions,
    /// The league rated before the files, read back from a saved file (or kept in memory
    /// by the caller: [`Resumed::file`] `None`): a match it rated is a bad match here
    /// ([`ReadError::RatedBefore`]; for a league kept in memory, a bad `match` field,
    /// [`UNRATED_ID`]), and when it rated dated matches, every match needs a time no
    /// earlier than its last ([`time_after`]).
    pub resumed: Option<Resumed>,
    /// Note every match rated, in rating order, in [`Ingested::rated_ids`] (to save them
    /// with the league).
    pub note_ids: bool,
}

impl Inputs {
    /// `files`, each in the format its extension suggests, none skipped.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(files: I) -> Self {
        Inputs {
            files: files.into_iter().map(Into::into).collect(),
            format: None,
            skip_bad: false,
            options: ReadOptions::default(),
            resumed: None,
            note_ids: false,
        }
    }

    /// The name of file `index` in messages.
    fn name(&self, index: usize) -> &str {
        match self.files[index].as_str() {
            "-" => "<stdin>",
            path => path,
        }
    }
}

/// What a league read back from a saved file had rated ([`Inputs::resumed`]); or, with
/// `file` `None`, what a league the caller keeps in memory and rates on (the Python
/// package's `League`) has rated so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resumed {
    /// The saved league's file, as messages name it ("the league resumed from {file}");
    /// `None` for a league kept in memory, which messages call "the league".
    pub file: Option<String>,
    /// The matches it rated, by [`match_fingerprint`], as a saved file lists them (empty
    /// when the file did not say): read into a set of their own when the files are read.
    pub ids: Vec<u64>,
    /// The matches it rated, as a set its caller keeps and shares: looked up where it is,
    /// never copied, so that a league kept in memory rates a small file in the time the
    /// file takes, however many matches it rated before. A match of an id in `ids` or
    /// here was rated by the league.
    pub shared_ids: Option<Arc<MatchIds>>,
    /// When its last dated match was played (seconds since the epoch), if it rated any.
    pub latest: Option<i64>,
}

impl Resumed {
    /// Whether the league rated a match of fingerprint `fp`, by [`Resumed::shared_ids`]
    /// (the caller's own set; [`Resumed::ids`] are looked up in a set made from them).
    fn shares(&self, fp: u64) -> bool {
        self.shared_ids
            .as_ref()
            .is_some_and(|ids| ids.contains(&fp))
    }

    /// Whether the league noted any match id.
    fn has_ids(&self) -> bool {
        !self.ids.is_empty() || self.shared_ids.as_ref().is_some_and(|ids| !ids.is_empty())
    }
}

/// A set of match ids by [`match_fingerprint`] ([`Resumed::shared_ids`]).
pub type MatchIds = HashSet<u64, foldhash::fast::RandomState>;

/// What a match's time must be to follow a league's dated matches, the last of them at
/// `latest`: the `expected` of the match's bad `time` field, or `None` when `time` may
/// follow them (a league rates its matches in time order: an earlier match, or one
/// without a time, would be rated out of order). `saved` names the league as
/// [`Resumed::file`] does: the file it was read back from, or `None` for a league kept
/// in memory.
#[must_use]
pub fn time_after(latest: i64, time: Option<i64>, saved: Option<&str>) -> Option<String> {
    Some(match (time, saved) {
        (Some(t), _) if t >= latest => return None,
        (Some(_), None) => format!(
            "a time no earlier than {}, the last match the league rated: a league rates its matches in time order (to place an earlier match, rate the whole history again in a new league)",
            crate::time::format_time(latest)
        ),
        (Some(_), Some(file)) => format!(
            "a time no earlier than {}, the last match of the league resumed from {file}: the files are rated after its matches (to place an earlier match, rate the whole history again)",
            crate::time::format_time(latest)
        ),
        (None, None) => crate::times_expected().to_string(),
        (None, Some(file)) => {
            format!("a time: the league resumed from {file} rated dated matches, so every match needs one")
        }
    })
}

/// What the id of a match rated into a league kept in memory must be ([`Resumed::file`]
/// `None`): the `expected` of its bad `match` field when the league rated a match of that
/// id already. (A league read back from a file says [`ReadError::RatedBefore`].)
pub const UNRATED_ID: &str = "an id the league has not rated (a match id names one match)";

/// The fingerprint by which a saved league notes a match id: the 64-bit FNV-1a hash of its
/// UTF-8 bytes. Two ids share one with a chance of about 2⁻⁶⁴.
#[must_use]
pub fn match_fingerprint(id: &str) -> u64 {
    fingerprint(id)
}

/// How files are read: threads and progress.
pub struct Reading<'a> {
    /// Worker threads of the plain reader (at least one; the calling thread rates).
    pub threads: usize,
    /// Told the bytes of each part of a file read.
    pub progress: &'a (dyn Fn(u64) + Sync),
    /// Whether plain files are rated in batches on every core, where the league can
    /// ([`League::rates_at_once`]); the numbers are the same either way. `None` (the
    /// default): where the first matches, rated one by one, took long enough for that to
    /// pay.
    pub at_once: Option<bool>,
}

impl Default for Reading<'_> {
    /// One worker per core but one (the calling thread rates), at most eight; no progress.
    fn default() -> Self {
        Reading {
            threads: std::thread::available_parallelism().map_or(1, |n| (n.get() - 1).clamp(1, 8)),
            progress: &|_| {},
            at_once: None,
        }
    }
}

impl fmt::Debug for Reading<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reading")
            .field("threads", &self.threads)
            .field("at_once", &self.at_once)
            .finish_non_exhaustive()
    }
}

/// Which reader read a file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Way {
    /// The plain reader, to the end: this many matches.
    Plain {
        /// Matches read.
        matches: u64,
    },
    /// The general reader, from the start, for this reason.
    General {
        /// Why not the plain reader.
        why: &'static str,
    },
    /// The plain reader, then the general one from a line on.
    PlainThenGeneral {
        /// Matches read by the plain reader.
        matches: u64,
        /// The line the general reader went on from.
        line: u64,
        /// Why the plain reader stopped.
        why: &'static str,
    },
}

/// Which way one file was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRead {
    /// The file, as named in messages.
    pub file: String,
    /// The reader.
    pub way: Way,
}

impl fmt::Display for FileRead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = &self.file;
        match &self.way {
            Way::Plain { matches } => write!(f, "{file}: {matches} matches read on the fast path"),
            Way::General { why } => write!(f, "{file} is read the general way: {why}"),
            Way::PlainThenGeneral { matches, line, why } => write!(
                f,
                "{file}: {matches} matches read on the fast path, then from line {line} read the general way: {why}"
            ),
        }
    }
}

/// A match that was not rated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BadMatch {
    /// Its rows do not make a valid match, or its id was used already.
    #[error(transparent)]
    Read(ReadError),
    /// The system cannot rate it.
    #[error("{file}:{line}: match {match_id:?}: {source}")]
    Rate {
        /// The file.
        file: String,
        /// 1-based line of the match's first row.
        line: u64,
        /// The match id.
        match_id: String,
        /// Why the system cannot rate it.
        #[source]
        source: RateError,
    },
}

/// What reading the inputs gave besides the ratings.
#[derive(Debug, Default)]
pub struct Ingested {
    /// The bad matches left out ([`Inputs::skip_bad`] only), in the order found.
    pub skipped: Vec<BadMatch>,
    /// Which way each file was read.
    pub files: Vec<FileRead>,
    /// The matches rated, in rating order, by [`match_fingerprint`] (with
    /// [`Inputs::note_ids`] only).
    pub rated_ids: Vec<u64>,
}

/// The matches of the inputs in rating order (see [`load`]).
#[derive(Debug, Default)]
pub struct Loaded {
    /// File order, or time order (stable) when the matches have times.
    pub matches: Vec<Match>,
    /// The bad matches left out ([`Inputs::skip_bad`] only).
    pub skipped: Vec<BadMatch>,
    /// Which way each file was read.
    pub files: Vec<FileRead>,
}

/// Why the inputs were not rated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IngestError<E> {
    /// A file cannot be read, or is not of its format at all (a header without the
    /// columns needed).
    #[error(transparent)]
    Read(ReadError),
    /// Bad matches, without [`Inputs::skip_bad`]: nothing may be used.
    #[error("{count} bad match{} found", if *count == 1 { "" } else { "es" })]
    BadMatches {
        /// How many were found.
        count: usize,
        /// The first [`LISTED`] of them.
        listed: Vec<BadMatch>,
    },
    /// The caller's handler of a match failed.
    #[error("{0}")]
    Caller(E),
}

/// Refuses a file given twice, by one name or two (a symbolic or hard link, `./`): every
/// match of it would be read again, each refused as read already from the file itself.
///
/// # Errors
/// [`ReadError::Inputs`] naming the first file given again, by both its names.
pub fn given_once(files: &[String]) -> Result<(), ReadError> {
    let mut seen: std::collections::HashMap<Given, &str> = std::collections::HashMap::new();
    let twice = |message: String| Err(ReadError::Inputs { message });
    for file in files {
        match seen.insert(Given::of(file), file) {
            Some(_) if file == "-" => {
                return twice("- (standard input) is given twice: give each file once".into())
            }
            Some(first) if first == file => {
                return twice(format!("{file} is given twice: give each file once"))
            }
            Some(first) => {
                return twice(format!(
                    "{first} and {file} are the same file, given twice: give each file once"
                ))
            }
            None => {}
        }
    }
    Ok(())
}

/// What a name given to read names, for [`given_once`]: standard input (`-`), a file as
/// every name of it names it (its device and inode on Unix, which its hard links share;
/// its canonical path elsewhere), or a name that names no file as given (its reader says
/// so).
#[derive(Debug, PartialEq, Eq, Hash)]
enum Given {
    Stdin,
    File(crate::output::FileId),
    Name(std::path::PathBuf),
}

impl Given {
    fn of(file: &str) -> Given {
        if file == "-" {
            return Given::Stdin;
        }
        let canonical = std::fs::canonicalize(file);
        match (std::fs::metadata(file), canonical) {
            (Ok(meta), Ok(canonical)) => Given::File(crate::output::FileId::of(&meta, &canonical)),
            (_, canonical) => Given::Name(canonical.unwrap_or_else(|_| file.into())),
        }
    }
}

/// How many bad matches [`IngestError::BadMatches`] lists.
pub const LISTED: usize = 20;

/// Rates every match of the inputs into `league`, the plain reader's way where a file
/// allows it.
///
/// # Errors
/// A file that cannot be read, or (without [`Inputs::skip_bad`]) the bad matches found:
/// `league` is then part-rated and must not be shown.
pub fn rate(
    inputs: &Inputs,
    league: &mut League,
    reading: &Reading<'_>,
) -> Result<Ingested, IngestError<Infallible>> {
    let mut sink = Rate {
        league,
        each: None::<fn(&League, &Match, &MatchReport) -> Result<(), Infallible>>,
    };
    let mut run = Run::new(inputs, reading);
    run.all(&mut sink)?;
    Ok(Ingested {
        skipped: run.bad,
        files: run.files,
        rated_ids: run.earlier.rated.take().unwrap_or_default(),
    })
}

/// As [`rate`], and hands every match rated to `each` with its report, in rating order.
/// Every file is read the general way (the plain reader builds no [`Match`]).
///
/// # Errors
/// As [`rate`], or the first error of `each`: rating stops there. Without
/// [`Inputs::skip_bad`], nothing is handed to `each` after the first bad match.
pub fn rate_each<E>(
    inputs: &Inputs,
    league: &mut League,
    reading: &Reading<'_>,
    each: impl FnMut(&League, &Match, &MatchReport) -> Result<(), E>,
) -> Result<Ingested, IngestError<E>> {
    let mut sink = Rate {
        league,
        each: Some(each),
    };
    let mut run = Run::new(inputs, reading);
    run.all(&mut sink)?;
    Ok(Ingested {
        skipped: run.bad,
        files: run.files,
        rated_ids: run.earlier.rated.take().unwrap_or_default(),
    })
}

/// Reads every match of the inputs into memory, in rating order, by the general readers
/// and the same rules as [`rate`] (nothing is rated, so only reading problems make a
/// match bad).
///
/// # Errors
/// A file that cannot be read, or (without [`Inputs::skip_bad`]) the bad matches found.
pub fn load(inputs: &Inputs, reading: &Reading<'_>) -> Result<Loaded, IngestError<Infallible>> {
    let mut sink = Keep(Vec::new());
    let mut run = Run::new(inputs, reading);
    run.all(&mut sink)?;
    Ok(Loaded {
        matches: sink.0,
        skipped: run.bad,
        files: run.files,
    })
}

/// Reads every match of the inputs as [`load`] does, handing each to `each` in rating
/// order instead of keeping them: a caller that keeps matches its own way (compactly,
/// say) holds one match at a time, not all of them twice. Matches with times are still
/// held until the last file is read, to be put in time order.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use podium_io::ingest::{self, Inputs, Reading};
/// let inputs = Inputs::new(["../../examples/game-night.csv"]);
/// let mut ids = Vec::new();
/// ingest::load_each(&inputs, &Reading::default(), |m| ids.push(m.id().to_string()))?;
/// let loaded = ingest::load(&inputs, &Reading::default())?;
/// assert_eq!(ids.len(), 45);
/// assert!(ids.iter().zip(&loaded.matches).all(|(id, m)| id == m.id()));
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// As [`load`]: a file that cannot be read, or (without [`Inputs::skip_bad`]) the bad
/// matches found, after `each` has seen the good ones before them.
pub fn load_each(
    inputs: &Inputs,
    reading: &Reading<'_>,
    each: impl FnMut(&Match),
) -> Result<Ingested, IngestError<Infallible>> {
    let mut sink = Each(each);
    let mut run = Run::new(inputs, reading);
    run.all(&mut sink)?;
    Ok(Ingested {
        skipped: run.bad,
        files: run.files,
        rated_ids: run.earlier.rated.take().unwrap_or_default(),
    })
}

/// Where a match was read: the file's index in [`Inputs::files`] and the line of its
/// first row.
#[derive(Debug, Clone, Copy)]
struct Place {
    file: usize,
    line: u64,
}

/// What a [`Sink`] did with a match.
enum Taken {
    /// Rated or kept; the match back when the sink is done with it (to be reused).
    Done(Option<Match>),
    /// The system cannot rate it.
    Refused(Match, RateError),
}

/// What is done with each match in rating order.
trait Sink {
    type Error;

    /// Takes `m`: rates it, or keeps it.
    fn take(&mut self, m: Match) -> Result<Taken, Self::Error>;

    /// Whether the system could rate `m` now, without rating it.
    fn check(&self, m: &Match) -> Result<(), RateError>;

    /// The league to rate plain files into directly, when this sink allows it.
    fn plain(&mut self) -> Result<&mut League, &'static str>;
}

/// Rates into a league, handing each match and report to `each` if any.
struct Rate<'l, F> {
    league: &'l mut League,
    each: Option<F>,
}

impl<E, F: FnMut(&League, &Match, &MatchReport) -> Result<(), E>> Sink for Rate<'_, F> {
    type Error = E;

    fn take(&mut self, m: Match) -> Result<Taken, E> {
        match self.league.apply(&m) {
            Ok(report) => {
                if let Some(each) = &mut self.each {
                    each(self.league, &m, &report)?;
                }
                Ok(Taken::Done(Some(m)))
            }
            Err(e) => Ok(Taken::Refused(m, e)),
        }
    }

    fn check(&self, m: &Match) -> Result<(), RateError> {
        self.league.try_rate(m).map(drop)
    }

    fn plain(&mut self) -> Result<&mut League, &'static str> {
        if self.each.is_some() {
            return Err("every match is handed on with its report");
        }
        Ok(self.league)
    }
}

/// Keeps every match.
struct Keep(Vec<Match>);

impl Sink for Keep {
    type Error = Infallible;

    fn take(&mut self, m: Match) -> Result<Taken, Infallible> {
        self.0.push(m);
        Ok(Taken::Done(None))
    }

    fn check(&self, _: &Match) -> Result<(), RateError> {
        Ok(())
    }

    fn plain(&mut self) -> Result<&mut League, &'static str> {
        Err("the matches are kept in memory")
    }
}

/// Gives each match to a function ([`load_each`]), then back to the reader to reuse.
struct Each<F>(F);

impl<F: FnMut(&Match)> Sink for Each<F> {
    type Error = Infallible;

    fn take(&mut self, m: Match) -> Result<Taken, Infallible> {
        (self.0)(&m);
        Ok(Taken::Done(Some(m)))
    }

    fn check(&self, _: &Match) -> Result<(), RateError> {
        Ok(())
    }

    fn plain(&mut self) -> Result<&mut League, &'static str> {
        Err("the matches are handed on one by one")
    }
}

/// The match ids of earlier files and of the resumed league, to find one used again;
/// and, when asked, those rated.
struct EarlierIds<'a> {
    /// Whether there is more than one file or a resumed league's ids (else nothing is
    /// kept or looked up).
    on: bool,
    /// Fingerprint of an id → the first place it was read.
    first: HashMap<u64, Place, BuildHasherDefault<Passthrough>>,
    /// The resumed league's matches listed in [`Resumed::ids`].
    resumed: HashSet<u64, BuildHasherDefault<Passthrough>>,
    /// The resumed league, whose [`Resumed::shared_ids`] are looked up where they are.
    shared: Option<&'a Resumed>,
    /// The fingerprints of the matches rated, in order ([`Inputs::note_ids`]).
    rated: Option<Vec<u64>>,
}

/// Where a match id was used before.
#[derive(Debug, Clone, Copy)]
enum Earlier {
    /// By an earlier file.
    File(Place),
    /// By the resumed league.
    Resumed,
}

impl EarlierIds<'_> {
    /// Where `id` was used before (an earlier file, or the resumed league), if it was;
    /// else remembers `at` for later files (unless `at` is in the last file).
    fn check(&mut self, id: &str, at: Place, files: usize) -> Option<Earlier> {
        if !self.on {
            return None;
        }
        let fp = fingerprint(id);
        if self.by_resumed(fp) {
            return Some(Earlier::Resumed);
        }
        match self.first.get(&fp) {
            Some(first) if first.file < at.file => Some(Earlier::File(*first)),
            Some(_) => None,
            None => {
                if at.file + 1 < files {
                    self.first.insert(fp, at);
                }
                None
            }
        }
    }

    /// Whether an earlier file or the resumed league used `id`, without remembering it.
    fn used(&self, id: &str, file: usize) -> bool {
        if !self.on {
            return false;
        }
        let fp = fingerprint(id);
        self.by_resumed(fp) || self.first.get(&fp).is_some_and(|first| first.file < file)
    }

    /// Whether the resumed league rated a match of fingerprint `fp`.
    fn by_resumed(&self, fp: u64) -> bool {
        self.resumed.contains(&fp) || self.shared.is_some_and(|r| r.shares(fp))
    }

    /// Notes that the match `id` was rated, when the ids rated are kept.
    fn rated(&mut self, id: &str) {
        if let Some(rated) = &mut self.rated {
            rated.push(fingerprint(id));
        }
    }
}

/// The state of one reading of the inputs.
struct Run<'a> {
    inputs: &'a Inputs,
    reading: &'a Reading<'a>,
    /// The bad matches: all with `skip_bad`, else the first [`LISTED`].
    bad: Vec<BadMatch>,
    bad_count: usize,
    /// Matches held back to be rated in time order, from the first with a time on.
    buffered: Option<Vec<(Match, Place)>>,
    earlier: EarlierIds<'a>,
    files: Vec<FileRead>,
}

/// Why the plain fast path refused a match.
#[derive(Debug)]
enum Refusal {
    /// An earlier file used its id.
    Repeated,
    /// The system cannot rate it.
    Rate,
}

impl<'a> Run<'a> {
    fn new(inputs: &'a Inputs, reading: &'a Reading<'a>) -> Self {
        Run {
            inputs,
            reading,
            bad: Vec::new(),
            bad_count: 0,
            buffered: None,
            earlier: EarlierIds {
                on: inputs.files.len() > 1 || inputs.resumed.as_ref().is_some_and(Resumed::has_ids),
                first: HashMap::default(),
                resumed: inputs
                    .resumed
                    .as_ref()
                    .map(|r| r.ids.iter().copied().collect())
                    .unwrap_or_default(),
                shared: inputs.resumed.as_ref().filter(|r| r.shared_ids.is_some()),
                rated: inputs.note_ids.then(Vec::new),
            },
            files: Vec::new(),
        }
    }

    /// Reads every file, then rates what was held back for time order.
    fn all<S: Sink>(&mut self, sink: &mut S) -> Result<(), IngestError<S::Error>> {
        self.inputs.options.check().map_err(IngestError::Read)?;
        given_once(&self.inputs.files).map_err(IngestError::Read)?;
        for file in 0..self.inputs.files.len() {
            self.file(sink, file)?;
        }
        if let Some(mut all) = self.buffered.take() {
            // Matches with times are rated in time order, stable for equal times.
            all.sort_by_key(|(m, _)| m.time());
            for (m, at) in all {
                self.rate(sink, m, at)?;
            }
        }
        if self.bad_count > 0 && !self.inputs.skip_bad {
            return Err(IngestError::BadMatches {
                count: self.bad_count,
                listed: std::mem::take(&mut self.bad),
            });
        }
        Ok(())
    }

    /// Reads file `file` by the reader chosen for it.
    fn file<S: Sink>(&mut self, sink: &mut S, file: usize) -> Result<(), IngestError<S::Error>> {
        let path = &self.inputs.files[file];
        let format = self
            .inputs
            .format
            .unwrap_or_else(|| InputFormat::from_path(path));
        let name = self.inputs.name(file).to_string();
        let io_error = |source| {
            IngestError::Read(ReadError::Io {
                file: name.clone(),
                source,
            })
        };
        if path == "-" {
            self.read_as(FileRead {
                file: name.clone(),
                way: Way::General {
                    why: "standard input",
                },
            });
            let stream = stream(
                name.clone(),
                io::stdin(),
                format,
                &self.inputs.options,
                self.reading.progress,
            );
            return self.general(sink, file, stream);
        }
        // The file is opened once, whichever reader reads it: a named pipe's writer
        // waits for one reader, and what it wrote is read once.
        let f = File::open(path).map_err(io_error)?;
        let mut margins = false;
        let refused = match (format, &self.buffered) {
            (InputFormat::Jsonl, _) => Some("JSON Lines"),
            _ if !self.inputs.options.factors.is_empty() => Some("factor columns"),
            (_, Some(_)) => Some("matches with times came before"),
            _ if self
                .inputs
                .resumed
                .as_ref()
                .is_some_and(|r| r.latest.is_some()) =>
            {
                Some("the resumed league rated dated matches")
            }
            (InputFormat::Csv, None) => match sink.plain() {
                Ok(league) => {
                    margins = league.system().capabilities().uses_scores;
                    None
                }
                Err(why) => Some(why),
            },
        };
        let plain = match refused {
            Some(why) => Err((why, f)),
            None => PlainCsv::from_file(f).and_then(|plain| {
                if margins && plain.scored() {
                    Err((
                        "the system rates score margins, which the fast reader does not keep",
                        plain.into_file(),
                    ))
                } else {
                    Ok(plain)
                }
            }),
        };
        let plain = match plain {
            Ok(plain) => plain,
            Err((why, f)) => {
                self.read_as(FileRead {
                    file: name.clone(),
                    way: Way::General { why },
                });
                let stream = stream(
                    name.clone(),
                    f,
                    format,
                    &self.inputs.options,
                    self.reading.progress,
                );
                return self.general(sink, file, stream);
            }
        };
        let league = sink.plain().expect("checked above");
        let progress = self.reading.progress;
        let files = self.inputs.files.len();
        let earlier = &mut self.earlier;
        // The reader's player keys (dense, per file) to league indices.
        let mut index: Vec<u32> = Vec::new();
        let threads = self.reading.threads;
        let read = std::thread::scope(|scope| {
            // Matches are rated one by one as they are read, and timed. Where a match takes
            // long enough and the league can rate several at once, the rest go on in
            // batches ([`League::apply_batch`]), rated on a thread of their own while the
            // next batch is read.
            let at_once = league.rates_at_once();
            let mut timing = Timing::new(at_once && self.reading.at_once.is_none());
            let mut held: Option<Held<'_>> = None;
            let mut league = Some(league);
            if at_once && self.reading.at_once == Some(true) {
                held = league.take().map(|league| Held::start(scope, league));
            }
            let mut spare: Vec<Slot<'static>> = Vec::new();
            plain.read_held(
                threads,
                &mut |bytes| progress(bytes),
                |m, names| -> Result<usize, Refused<Refusal>> {
                    if let Some(held) = held.as_mut() {
                        return held.take(m, names, &mut index, earlier, (file, files));
                    }
                    let Some(m) = m else { return Ok(0) };
                    let refuse = |cause| Refused { held: 0, cause };
                    if earlier.on && earlier.used(m.id, file) {
                        return Err(refuse(Refusal::Repeated));
                    }
                    let Some(one) = league.as_deref_mut() else {
                        unreachable!("a league rates here until the batches start")
                    };
                    index.resize(names.len(), UNKNOWN);
                    for &p in m.ahead {
                        one.prefetch(index[p as usize] as usize);
                    }
                    // The slots borrow this match's names; their buffer is reused (an empty
                    // vector changes its element's lifetime in place, without allocating).
                    let mut slots: Vec<Slot<'_>> = std::mem::take(&mut spare)
                        .into_iter()
                        .map(|_| unreachable!("the buffer is empty"))
                        .collect();
                    slots.extend(m.players.iter().map(|&p| slot(p, names, &index)));
                    let new = slots.iter().any(|s| matches!(s, Slot::New(_)));
                    let rated = timing.rate(new, || one.apply_ranked(m.id, &mut slots, m.places));
                    // Players met before keep their index; new ones learn theirs.
                    if new && rated.is_ok() {
                        for (&p, slot) in m.players.iter().zip(&slots) {
                            if let Slot::Known(i) = *slot {
                                index[p as usize] = u32::try_from(i).unwrap_or(UNKNOWN);
                            }
                        }
                    }
                    slots.clear();
                    spare = slots.into_iter().map(|_| unreachable!()).collect();
                    rated.map_err(|_| refuse(Refusal::Rate))?;
                    earlier.rated(m.id);
                    if earlier.on {
                        let at = Place { file, line: m.line };
                        earlier.check(m.id, at, files);
                    }
                    if timing.decided() {
                        held = league.take().map(|league| Held::start(scope, league));
                    }
                    Ok(0)
                },
            )
        });
        let stopped = match read {
            Ok(matches) => {
                self.read_as(FileRead {
                    file: name,
                    way: Way::Plain { matches },
                });
                return Ok(());
            }
            Err(stopped) => stopped,
        };
        let why = match stopped.cause {
            StopCause::NotPlain(why) => why,
            StopCause::Refused(Refusal::Repeated) => {
                "a match id an earlier file or the resumed league used"
            }
            StopCause::Refused(Refusal::Rate) => "a match the system cannot rate",
        };
        self.read_as(FileRead {
            file: name.clone(),
            way: Way::PlainThenGeneral {
                matches: stopped.matches(),
                line: stopped.line(),
                why,
            },
        });
        let rest = stopped
            .resume(name.clone(), |f| Counted { inner: f, progress })
            .map_err(io_error)?;
        self.general(sink, file, Box::new(rest))
    }

    /// Reads `stream`, file `file`, on a thread of its own, and rates its matches.
    fn general<S: Sink>(
        &mut self,
        sink: &mut S,
        file: usize,
        stream: Box<dyn MatchStream + '_>,
    ) -> Result<(), IngestError<S::Error>> {
        let files = self.inputs.files.len();
        std::thread::scope(|scope| {
            let mut ahead = ReadAhead::spawn(scope, stream);
            while let Some(mut batch) = ahead.next_batch() {
                for slot in &mut batch {
                    let Some(item) = slot.take() else { continue };
                    let (m, line) = match item {
                        Ok(read) => read,
                        Err(e) if e.is_recoverable() => {
                            self.found_bad(BadMatch::Read(e));
                            continue;
                        }
                        Err(e) => return Err(IngestError::Read(e)),
                    };
                    let at = Place { file, line };
                    let found = self.earlier.check(m.id(), at, files);
                    let name = || self.inputs.name(file).to_string();
                    let earlier = found.map(|e| match e {
                        Earlier::File(first) => ReadError::Repeated {
                            file: name(),
                            line,
                            match_id: m.id().to_string(),
                            first_file: self.inputs.name(first.file).to_string(),
                            first_line: first.line,
                        },
                        Earlier::Resumed => {
                            match self.inputs.resumed.as_ref().and_then(|r| r.file.clone()) {
                                Some(saved) => ReadError::RatedBefore {
                                    file: name(),
                                    line,
                                    match_id: m.id().to_string(),
                                    saved,
                                },
                                None => ReadError::Field {
                                    file: name(),
                                    line,
                                    match_id: Some(m.id().to_string()),
                                    field: "match".into(),
                                    value: m.id().to_string(),
                                    expected: UNRATED_ID.to_string(),
                                },
                            }
                        }
                    });
                    // Undated matches may only come first: after a dated one (of an
                    // earlier file; a reader checks its own) one would be rated before it.
                    let undated_late =
                        (self.buffered.is_some() && m.time().is_none()).then(|| ReadError::Field {
                            file: name(),
                            line,
                            match_id: Some(m.id().to_string()),
                            field: "time".into(),
                            value: String::new(),
                            expected: format!(
                                "{}; an earlier file has dated matches",
                                crate::times_expected()
                            ),
                        });
                    let bad = earlier
                        .or(undated_late)
                        .or_else(|| self.after_resumed(&m, file, line));
                    if let Some(e) = bad {
                        self.found_bad(BadMatch::Read(e));
                        continue;
                    }
                    if self.buffered.is_none() && m.time().is_none() {
                        // Rated matches go back in the batch, which returns to the
                        // reading thread to be reused there, where they were allocated.
                        if let Some(m) = self.rate(sink, m, at)? {
                            *slot = Some(Ok((m, line)));
                        }
                    } else {
                        self.buffered.get_or_insert_with(Vec::new).push((m, at));
                    }
                }
                ahead.recycle(batch);
            }
            Ok(())
        })
    }

    /// Rates `m`, or only checks it once the input is known to be bad (without
    /// `skip_bad`). Gives the match back when done with it.
    fn rate<S: Sink>(
        &mut self,
        sink: &mut S,
        m: Match,
        at: Place,
    ) -> Result<Option<Match>, IngestError<S::Error>> {
        if self.bad_count > 0 && !self.inputs.skip_bad {
            // Nothing more is rated once the input is known to be bad, but the rest is
            // still checked (the system is pure: rating without applying changes nothing)
            // so that the error counts and lists every match the system cannot rate.
            if let Err(source) = sink.check(&m) {
                self.found_bad(self.rate_error(&m, at, source));
            }
            return Ok(Some(m));
        }
        let fp = self.earlier.rated.is_some().then(|| fingerprint(m.id()));
        match sink.take(m).map_err(IngestError::Caller)? {
            Taken::Done(back) => {
                if let (Some(rated), Some(fp)) = (&mut self.earlier.rated, fp) {
                    rated.push(fp);
                }
                Ok(back)
            }
            Taken::Refused(m, source) => {
                self.found_bad(self.rate_error(&m, at, source));
                Ok(None)
            }
        }
    }

    /// Why `m` (file `file`, line `line`) cannot follow the resumed league's dated
    /// matches: it has no time, or one before their last. A resumed league rates the
    /// files after its own matches, so an earlier match would be rated out of order.
    fn after_resumed(&self, m: &Match, file: usize, line: u64) -> Option<ReadError> {
        let resumed = self.inputs.resumed.as_ref()?;
        let expected = time_after(resumed.latest?, m.time(), resumed.file.as_deref())?;
        Some(ReadError::Field {
            file: self.inputs.name(file).to_string(),
            line,
            match_id: Some(m.id().to_string()),
            field: "time".into(),
            value: m.time().map(crate::time::format_time).unwrap_or_default(),
            expected,
        })
    }

    fn rate_error(&self, m: &Match, at: Place, source: RateError) -> BadMatch {
        BadMatch::Rate {
            file: self.inputs.name(at.file).to_string(),
            line: at.line,
            match_id: m.id().to_string(),
            source,
        }
    }

    /// Notes (and says at debug level) which way a file is read.
    fn read_as(&mut self, read: FileRead) {
        tracing::debug!("{read}");
        self.files.push(read);
    }

    fn found_bad(&mut self, bad: BadMatch) {
        self.bad_count += 1;
        if self.bad.len() < LISTED || self.inputs.skip_bad {
            self.bad.push(bad);
        }
    }
}

/// A player of the file not (yet) in the league, in the plain path's map.
const UNKNOWN: u32 = u32::MAX;

/// How many matches of a plain file are held to be rated together: enough for the
/// matches without common players among them to keep every core busy, few enough that a
/// file refused early has read little more.
pub const HELD_MATCHES: usize = 1024;

/// How many matches, rated one by one, are timed before the batches may start: every
/// [`SAMPLE`]th of those whose players the league knows (a newcomer costs more than the
/// rating: the players' table grows).
pub const TIMED: u32 = 256;
/// One match in this many is timed.
pub const SAMPLE: u32 = 8;
/// The seconds a match without newcomers takes, rated one by one, from which batches
/// rated at once are faster: handing matches to other threads adds work to each
/// (resolving its players ahead, buffers of its own, storing it apart), and two threads
/// halve the rest. On the 1,000,000-match benchmark file, `sme`, `bradley-terry-full` and
/// `plackett-luce` take 0.3–0.8 µs (at once would be slower), `glicko2`, `trueskill`,
/// `glicko` and `elo-mmr` 1.9–3.4 µs (at once is faster).
pub const AT_ONCE_FROM: f64 = 1.2e-6;

/// Times the rating of matches one by one: whether batches rated at once
/// ([`League::apply_batch`], [`HELD_MATCHES`] at a time) would be faster. The plain
/// reader decides so, and so does any caller that holds ranked free-for-alls.
///
/// ```
/// use podium_io::ingest::Timing;
/// let mut timing = Timing::new(true);
/// for _ in 0..10 {
///     timing.rate(false, || ());
///     assert!(!timing.decided()); // 256 matches are timed first
/// }
/// ```
#[derive(Debug)]
pub struct Timing {
    /// Whether the league can rate at once, and the matches are still being timed.
    on: bool,
    matches: u32,
    timed: u32,
    seconds: f64,
}

impl Timing {
    /// Timing that is `on` where the league can rate at once
    /// ([`League::rates_at_once`]); off, it never decides for batches.
    #[must_use]
    pub fn new(on: bool) -> Self {
        Timing {
            on,
            matches: 0,
            timed: 0,
            seconds: 0.0,
        }
    }

    /// Rates a match with `rate`, timing it now and then when it has no newcomer.
    pub fn rate<T>(&mut self, newcomers: bool, rate: impl FnOnce() -> T) -> T {
        if !self.on || newcomers {
            return rate();
        }
        self.matches += 1;
        if self.matches % SAMPLE != 0 {
            return rate();
        }
        let start = std::time::Instant::now();
        let rated = rate();
        self.seconds += start.elapsed().as_secs_f64();
        self.timed += 1;
        rated
    }

    /// True once, when the batches should start: the [`TIMED`] matches took
    /// [`AT_ONCE_FROM`] each or more on average.
    pub fn decided(&mut self) -> bool {
        if !self.on || self.timed < TIMED {
            return false;
        }
        self.on = false;
        self.seconds / f64::from(self.timed) >= AT_ONCE_FROM
    }
}

/// Player `key` of the plain reader as the league takes it: by index once known, else
/// by id.
fn slot<'n>(key: u32, names: &'n PlayerNames, index: &[u32]) -> Slot<'n> {
    match index[key as usize] {
        UNKNOWN => Slot::New(names.get(key)),
        i => Slot::Known(i as usize),
    }
}

/// Matches of a plain file to be rated together: each held player's key in the reader
/// (in batch order) and each match's first line.
#[derive(Default)]
struct Filled {
    batch: RankedBatch,
    keys: Vec<u32>,
    lines: Vec<u64>,
}

impl Filled {
    fn push(&mut self, m: &RankedMatch<'_>, names: &PlayerNames, index: &[u32]) {
        let slots = m.players.iter().map(|&p| slot(p, names, index));
        self.batch.push(m.id, slots, m.places);
        self.keys.extend_from_slice(m.players);
        self.lines.push(m.line);
    }

    fn clear(&mut self) {
        self.batch.clear();
        self.keys.clear();
        self.lines.clear();
    }
}

/// What the rating thread answers for a batch: the batch (to be filled again), how it
/// went, and the league index of each newcomer's key.
type Answer = (Filled, Result<(), (usize, RateError)>, Vec<(u32, u32)>);

/// How many of the matches the reader holds (oldest first) were found rated during one
/// call, before any still held.
#[derive(Default)]
struct Rated(usize);

/// The matches of a plain file held to be rated together: the batch being filled, and
/// the one the rating thread has, if any.
struct Held<'scope> {
    filling: Filled,
    /// The size of the batch the rating thread has, if any.
    sent: Option<usize>,
    spare: Option<Filled>,
    to_rater: Option<SyncSender<Filled>>,
    answers: Receiver<Answer>,
    rater: Option<ScopedJoinHandle<'scope, ()>>,
}

impl<'scope> Held<'scope> {
    /// Starts the thread that rates batches into `league`.
    fn start<'env>(scope: &'scope Scope<'scope, 'env>, league: &'scope mut League) -> Self {
        let (to_rater, batches) = sync_channel::<Filled>(1);
        let (back, answers) = sync_channel::<Answer>(1);
        let rater = scope.spawn(move || {
            for filled in batches {
                let rated = league.apply_batch(&filled.batch);
                let stored = match &rated {
                    Ok(()) => filled.batch.len(),
                    Err((k, _)) => *k,
                };
                let mut learned = Vec::new();
                let mut keys = filled.keys.iter();
                for j in 0..stored {
                    for (slot, &key) in filled.batch.players(j).zip(&mut keys) {
                        if let Slot::New(name) = slot {
                            let i = league
                                .index_of(name)
                                .expect("a stored match's players are known");
                            learned.push((key, u32::try_from(i).unwrap_or(UNKNOWN)));
                        }
                    }
                }
                if back.send((filled, rated, learned)).is_err() {
                    return;
                }
            }
        });
        Held {
            filling: Filled::default(),
            sent: None,
            spare: None,
            to_rater: Some(to_rater),
            answers,
            rater: Some(rater),
        }
    }

    /// The matches held: those sent and those being filled.
    fn holds(&self) -> usize {
        self.sent.unwrap_or(0) + self.filling.batch.len()
    }

    /// A match handed on by the reader (`None`: rate every match held), as
    /// [`PlainCsv::read_held`] hands it.
    fn take(
        &mut self,
        m: Option<&RankedMatch<'_>>,
        names: &PlayerNames,
        index: &mut Vec<u32>,
        earlier: &mut EarlierIds<'_>,
        (file, files): (usize, usize),
    ) -> Result<usize, Refused<Refusal>> {
        let mut rated = Rated::default();
        let Some(m) = m else {
            self.rate_all(&mut rated, index, earlier, (file, files))?;
            return Ok(0);
        };
        if earlier.on && earlier.used(m.id, file) {
            // The matches before it are rated; it is refused.
            self.rate_all(&mut rated, index, earlier, (file, files))?;
            return Err(Refused {
                held: rated.0,
                cause: Refusal::Repeated,
            });
        }
        index.resize(names.len(), UNKNOWN);
        self.filling.push(m, names, index);
        if self.filling.batch.len() >= HELD_MATCHES {
            self.answer(&mut rated, index, earlier, file, files)?;
            self.send();
        }
        Ok(self.holds())
    }

    /// Rates every match held: waits for the batch sent, then sends and waits for the
    /// one being filled.
    fn rate_all(
        &mut self,
        rated: &mut Rated,
        index: &mut [u32],
        earlier: &mut EarlierIds<'_>,
        (file, files): (usize, usize),
    ) -> Result<(), Refused<Refusal>> {
        self.answer(rated, index, earlier, file, files)?;
        self.send();
        self.answer(rated, index, earlier, file, files)
    }

    /// Hands the batch being filled to the rating thread (which has none).
    fn send(&mut self) {
        debug_assert!(self.sent.is_none());
        if self.filling.batch.is_empty() {
            return;
        }
        let next = self.spare.take().unwrap_or_default();
        let filled = std::mem::replace(&mut self.filling, next);
        self.sent = Some(filled.batch.len());
        let sent = self.to_rater.as_ref().map(|to| to.send(filled));
        if !matches!(sent, Some(Ok(()))) {
            self.rater_stopped();
        }
    }

    /// Waits for the rating thread's answer to the batch it has, if any: the players of
    /// the matches stored learn their index and their ids are noted for later files. A
    /// refusal names the match among those the reader holds, after the `rated` ones
    /// found rated during this call.
    fn answer(
        &mut self,
        rated: &mut Rated,
        index: &mut [u32],
        earlier: &mut EarlierIds<'_>,
        file: usize,
        files: usize,
    ) -> Result<(), Refused<Refusal>> {
        if self.sent.take().is_none() {
            return Ok(());
        }
        let Ok((mut filled, result, learned)) = self.answers.recv() else {
            self.rater_stopped();
        };
        for (key, i) in learned {
            index[key as usize] = i;
        }
        let stored = match &result {
            Ok(()) => filled.batch.len(),
            Err((k, _)) => *k,
        };
        for j in 0..stored {
            earlier.rated(filled.batch.id(j));
        }
        if earlier.on {
            for j in 0..stored {
                let at = Place {
                    file,
                    line: filled.lines[j],
                };
                earlier.check(filled.batch.id(j), at, files);
            }
        }
        filled.clear();
        self.spare = Some(filled);
        let before = rated.0;
        rated.0 += stored;
        result.map_err(|(k, _)| Refused {
            held: before + k,
            cause: Refusal::Rate,
        })
    }

    /// The rating thread stopped before answering: it panicked, and so does this one.
    fn rater_stopped(&mut self) -> ! {
        self.to_rater = None;
        match self.rater.take().map(ScopedJoinHandle::join) {
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            _ => unreachable!("the rating thread answers every batch until it is dropped"),
        }
    }
}

/// The general reader of a source in `format`, its bytes counted by `progress`.
fn stream<'p, R: Read + Send + 'p>(
    name: String,
    input: R,
    format: InputFormat,
    options: &ReadOptions,
    progress: &'p (dyn Fn(u64) + Sync),
) -> Box<dyn MatchStream + 'p> {
    let input = Counted {
        inner: input,
        progress,
    };
    crate::from_reader_with(name, input, format, options)
}

/// A source that tells `progress` how many bytes each read gave.
struct Counted<'p, R> {
    inner: R,
    progress: &'p (dyn Fn(u64) + Sync),
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        (self.progress)(n as u64);
        Ok(n)
    }
}

/// Matches (or read errors) per batch handed from the reading thread to the rating one.
const BATCH: usize = 256;
/// Batches the reading thread may be ahead: memory stays bounded whatever the file size.
const BATCHES_AHEAD: usize = 2;

/// One batch: each slot is taken (`None`) once the rating side keeps its item; a match
/// comes with the line of its first row.
type Batch = Vec<Option<Result<(Match, u64), ReadError>>>;

/// A match stream read on its own thread, in batches over a bounded channel. Dropping it
/// (e.g. when rating stops at an error) stops the reading thread at its next batch.
/// Batches come back over a second channel, so that their matches are reused (or freed)
/// by the thread that allocated them.
struct ReadAhead<'scope> {
    batches: Receiver<Batch>,
    spent: SyncSender<Batch>,
    _thread: ScopedJoinHandle<'scope, ()>,
}

impl<'scope> ReadAhead<'scope> {
    fn spawn<'env>(
        scope: &'scope Scope<'scope, 'env>,
        mut matches: Box<dyn MatchStream + 'scope>,
    ) -> Self {
        let (tx, batches) = sync_channel::<Batch>(BATCHES_AHEAD);
        let (spent, spent_rx) = sync_channel::<Batch>(BATCHES_AHEAD + 2);
        let thread = scope.spawn(move || {
            // A spent batch's matches go back to the reader, whose next matches reuse
            // their allocations.
            let fresh = |matches: &mut Box<dyn MatchStream + 'scope>| -> Batch {
                match spent_rx.try_recv() {
                    Ok(mut b) => {
                        for (m, _) in b.drain(..).flatten().flatten() {
                            matches.recycle(m);
                        }
                        b
                    }
                    Err(_) => Vec::with_capacity(BATCH),
                }
            };
            let mut batch = fresh(&mut matches);
            while let Some(item) = matches.next() {
                let line = matches.line();
                batch.push(Some(item.map(|m| (m, line))));
                if batch.len() == BATCH {
                    let next = fresh(&mut matches);
                    if tx.send(std::mem::replace(&mut batch, next)).is_err() {
                        return; // the rating side stopped
                    }
                }
            }
            if !batch.is_empty() {
                let _ = tx.send(batch);
            }
        });
        ReadAhead {
            batches,
            spent,
            _thread: thread,
        }
    }

    /// The next batch, `None` at the end of the stream.
    fn next_batch(&mut self) -> Option<Batch> {
        self.batches.recv().ok()
    }

    /// Hands a finished batch back to the reading thread (or frees it here if that
    /// thread has ended or is behind).
    fn recycle(&self, batch: Batch) {
        let _ = self.spent.try_send(batch);
    }
}

#[cfg(test)]
mod tests {
    //! A league the caller keeps in memory ([`Resumed::file`] `None`) is named "the league",
    //! and one read back from a file by its file, in the same words as before.

    use super::*;

    fn sme() -> League {
        League::new(podium::system("sme", &podium::Settings::new()).unwrap())
    }

    /// The bad matches of a file of four: `g3` without a time, `g1` before the league's
    /// last match, `g2` at it and `g4` after it; rated into a league whose last match was
    /// on 2026-01-01 and that rated `g2` already (`shared`: in the set it shares, else
    /// in its list), named `saved`.
    fn bad_matches(saved: Option<&str>, shared: bool) -> Vec<String> {
        let dir =
            std::env::temp_dir().join(format!("podium-ingest-resumed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("after{}-{shared}.csv", saved.map_or(0, str::len)));
        std::fs::write(
            &path,
            "match,player,rank,time\ng3,a,1,\ng3,b,2,\ng1,a,1,2025-12-31\ng1,b,2,2025-12-31\ng2,a,1,2026-01-01\ng2,b,2,2026-01-01\ng4,a,1,2026-01-02\ng4,b,2,2026-01-02\n",
        )
        .unwrap();
        let latest = crate::parse_time("2026-01-01").unwrap();
        let inputs = Inputs {
            skip_bad: true,
            resumed: Some(Resumed {
                file: saved.map(str::to_string),
                latest: Some(latest),
                ..rated_g2(shared)
            }),
            ..Inputs::new([path.display().to_string()])
        };
        let mut league = sme();
        let done = rate(&inputs, &mut league, &Reading::default()).unwrap();
        assert_eq!(league.matches_rated(), 1, "g4 alone is rated");
        std::fs::remove_file(&path).unwrap();
        // The other test's file may still be there.
        let _ = std::fs::remove_dir(&dir);
        // Each as its line and message, in the order of the lines.
        let mut bad: Vec<String> = done
            .skipped
            .iter()
            .map(|b| {
                let text = b.to_string();
                text[text.find(':').unwrap() + 1..].to_string()
            })
            .collect();
        bad.sort();
        bad
    }

    /// A league that rated `g2`: in the set it shares (`shared`), or in its list.
    fn rated_g2(shared: bool) -> Resumed {
        let fp = match_fingerprint("g2");
        if shared {
            Resumed {
                shared_ids: Some(Arc::new(MatchIds::from_iter([fp]))),
                ..Resumed::default()
            }
        } else {
            Resumed {
                ids: vec![fp],
                ..Resumed::default()
            }
        }
    }

    #[test]
    fn a_league_read_back_from_a_file_is_named_by_it() {
        assert_eq!(
            bad_matches(Some("fut.state"), false),
            [
                "2: field `time`: \"\" is not valid, expected a time: the league resumed from fut.state rated dated matches, so every match needs one",
                "4: field `time`: \"2025-12-31\" is not valid, expected a time no earlier than 2026-01-01, the last match of the league resumed from fut.state: the files are rated after its matches (to place an earlier match, rate the whole history again)",
                "6: match \"g2\" was rated already by the league resumed from fut.state: go on with new matches only (a match id names one match across the saved league and the files after it)",
            ]
        );
    }

    #[test]
    fn a_league_kept_in_memory_is_the_league() {
        for shared in [false, true] {
            assert_eq!(
                bad_matches(None, shared),
                [
                format!("2: field `time`: \"\" is not valid, expected {}", crate::times_expected()).as_str(),
                "4: field `time`: \"2025-12-31\" is not valid, expected a time no earlier than 2026-01-01, the last match the league rated: a league rates its matches in time order (to place an earlier match, rate the whole history again in a new league)",
                "6: field `match`: \"g2\" is not valid, expected an id the league has not rated (a match id names one match)",
                ],
                "shared: {shared}"
            );
        }
    }

    /// A plain file (read on the fast path) rated into a league kept in memory that
    /// shares the set of the ids it rated: the match of an id in the set is refused, and
    /// the file is read on from it the general way; the others are rated.
    #[test]
    fn a_plain_file_looks_ids_up_in_the_shared_set() {
        let dir = std::env::temp_dir().join(format!("podium-ingest-shared-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("plain.csv");
        std::fs::write(
            &path,
            "match,player,rank\ng1,a,1\ng1,b,2\ng2,b,1\ng2,c,2\ng3,c,1\ng3,a,2\n",
        )
        .unwrap();
        let inputs = Inputs {
            skip_bad: true,
            resumed: Some(rated_g2(true)),
            ..Inputs::new([path.display().to_string()])
        };
        let mut league = sme();
        let done = rate(&inputs, &mut league, &Reading::default()).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(league.matches_rated(), 2, "g1 and g3 are rated");
        let bad: Vec<String> = done.skipped.iter().map(ToString::to_string).collect();
        assert_eq!(
            bad,
            [format!(
                "{}:4: field `match`: \"g2\" is not valid, expected {UNRATED_ID}",
                path.display()
            )]
        );
        assert_eq!(
            done.files[0].way,
            Way::PlainThenGeneral {
                matches: 1,
                line: 4,
                why: "a match id an earlier file or the resumed league used",
            }
        );
    }

    #[test]
    fn a_time_at_or_after_the_last_fits() {
        assert_eq!(time_after(100, Some(100), None), None);
        assert_eq!(time_after(100, Some(101), Some("x.state")), None);
        assert!(time_after(100, Some(99), None).is_some());
        assert!(time_after(100, None, Some("x.state")).is_some());
    }

    #[test]
    fn regression_a_file_given_by_two_names_is_refused_however_linked() {
        // A hard link passed: only its canonical path was compared, which is its own.
        let dir = std::env::temp_dir().join(format!("podium-ingest-twice-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let name = |n: &str| dir.join(n).to_string_lossy().into_owned();
        let (a, b) = (name("a.csv"), name("b.csv"));
        std::fs::write(&a, "match,player,rank\ng1,ann,1\ng1,bo,2\n").unwrap();
        std::fs::write(&b, "match,player,rank\ng1,ann,1\ng1,bo,2\n").unwrap();
        let dotted = name("./a.csv");
        let said = |files: &[&str]| {
            let files: Vec<String> = files.iter().map(|f| (*f).to_string()).collect();
            given_once(&files).map_err(|e| e.to_string())
        };
        assert_eq!(said(&[&a, &b, "-"]), Ok(()));
        let same = |first: &str, second: &str| {
            Err(format!(
                "{first} and {second} are the same file, given twice: give each file once"
            ))
        };
        assert_eq!(said(&[&a, &dotted]), same(&a, &dotted));
        assert_eq!(
            said(&[&b, &a, &a]),
            Err(format!("{a} is given twice: give each file once"))
        );
        assert_eq!(
            said(&["-", &a, "-"]),
            Err("- (standard input) is given twice: give each file once".into())
        );
        // Names of no file are compared as paths: their reader says what is wrong.
        let missing = name("missing.csv");
        assert_eq!(said(&[&missing, &b]), Ok(()));
        assert_eq!(
            said(&[&missing, &missing]),
            Err(format!("{missing} is given twice: give each file once"))
        );
        #[cfg(unix)]
        {
            let hard = name("hard.csv");
            let _ = std::fs::remove_file(&hard);
            std::fs::hard_link(&a, &hard).unwrap();
            assert_eq!(said(&[&a, &b, &hard]), same(&a, &hard));
            let soft = name("soft.csv");
            let _ = std::fs::remove_file(&soft);
            std::os::unix::fs::symlink(&hard, &soft).unwrap();
            assert_eq!(said(&[&soft, &b, &a]), same(&soft, &a));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
