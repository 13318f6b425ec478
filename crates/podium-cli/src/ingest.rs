//! Reading match files into a [`League`]: the shared front half of `rate`, `explain` and
//! the other subcommands that rate a history. One bad match rates nothing unless
//! `--skip-bad` is given; matches with times are rated in time order.

use std::fs::File;
use std::io::{self, IsTerminal};
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::{Scope, ScopedJoinHandle};

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use podium::{League, Match, MatchReport, RatingSystem, Slot};
use podium_io::plain::Plain;
use podium_io::{InputFormat, MatchStream, ReadError};

/// Where the matches come from.
#[derive(Debug, Clone, clap::Args)]
pub struct InputArgs {
    /// Match files: long CSV or JSON Lines (by extension: .jsonl, .ndjson, .json); `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Read every file in this format instead of guessing from the extension.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,
    /// Rate the good matches and list the bad ones, instead of rating nothing.
    #[arg(long)]
    pub skip_bad: bool,
}

/// `--input-format` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum InputFormatArg {
    /// Long CSV.
    Csv,
    /// JSON Lines.
    Jsonl,
}

/// Which system, with which parameters.
#[derive(Debug, Clone, clap::Args)]
pub struct SystemArgs {
    /// Rating system (see `podium systems`).
    #[arg(long, short = 's', default_value = "sme")]
    pub system: String,
    /// Set a parameter of the system, e.g. `--set k=24` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub settings: Vec<String>,
}

impl SystemArgs {
    /// Builds the system.
    pub fn build(&self) -> anyhow::Result<Box<dyn RatingSystem>> {
        let settings = podium::Settings::parse(&self.settings)?;
        Ok(podium::system(&self.system, &settings)?)
    }
}

/// A match left out with `--skip-bad`.
#[derive(Debug)]
pub struct Skipped {
    /// Why it was left out (names file and line).
    pub reason: String,
}

/// How many bad matches an error lists before "and N more".
const MAX_LISTED: usize = 20;

/// Reads every input and rates each match into `league`, calling `each` with the match
/// and its report. Returns the matches skipped (only with `--skip-bad`).
///
/// # Errors
/// A file that cannot be read, or (without `--skip-bad`) every bad match found, in which
/// case nothing has been handed to `each` past the first bad match and the caller must
/// not print results.
pub fn rate_all(
    input: &InputArgs,
    league: &mut League,
    mut each: impl FnMut(&League, &Match, &MatchReport) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<Skipped>> {
    let mut bad: Vec<Skipped> = Vec::new();
    let mut bad_count = 0usize;
    let progress = progress_bar(&input.files);
    let mut buffered: Option<Vec<Match>> = None;
    let mut rate = |league: &mut League,
                    m: &Match,
                    bad: &mut Vec<Skipped>,
                    bad_count: &mut usize|
     -> anyhow::Result<()> {
        if *bad_count > 0 && !input.skip_bad {
            // Nothing more is rated once the input is known to be bad, but the rest is
            // still checked (the system is pure: rating without applying changes nothing)
            // so that the error counts and lists every match the system cannot rate.
            if let Err(e) = league.try_rate(m) {
                *bad_count += 1;
                if bad.len() < MAX_LISTED {
                    bad.push(Skipped {
                        reason: format!("match {:?}: {e}", m.id()),
                    });
                }
            }
            return Ok(());
        }
        match league.apply(m) {
            Ok(report) => each(league, m, &report),
            Err(e) => {
                *bad_count += 1;
                bad.push(Skipped {
                    reason: format!("match {:?}: {e}", m.id()),
                });
                Ok(())
            }
        }
    };
    // Each file is read and validated on a second thread, a bounded number of batches
    // ahead of the rating, so that parsing and rating run side by side.
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for path in &input.files {
            let format = input.input_format.map(|f| match f {
                InputFormatArg::Csv => InputFormat::Csv,
                InputFormatArg::Jsonl => InputFormat::Jsonl,
            });
            let format = format.unwrap_or_else(|| InputFormat::from_path(path));
            let (name, reader): (String, Box<dyn io::Read + Send>) = if path == "-" {
                ("<stdin>".into(), Box::new(io::stdin()))
            } else {
                let f = File::open(path).with_context(|| format!("cannot open {path}"))?;
                (path.clone(), Box::new(progress.wrap_read(f)))
            };
            let matches = podium_io::from_reader_recycling(name, reader, format);
            let mut read_ahead = ReadAhead::spawn(scope, matches);
            while let Some(mut batch) = read_ahead.next_batch() {
                for slot in &mut batch {
                    // Rated matches stay in the batch, which goes back to the reading
                    // thread to be reused there, where they were allocated.
                    if let Some(Ok(m)) = slot {
                        if buffered.is_none() && m.time().is_none() {
                            rate(league, m, &mut bad, &mut bad_count)?;
                            continue;
                        }
                    }
                    match slot.take().expect("each slot is read once") {
                        Ok(m) => {
                            buffered.get_or_insert_with(Vec::new).push(m);
                        }
                        Err(e) if e.is_recoverable() => {
                            bad_count += 1;
                            if bad.len() < MAX_LISTED || input.skip_bad {
                                bad.push(Skipped {
                                    reason: e.to_string(),
                                });
                            }
                        }
                        Err(e @ ReadError::Io { .. }) => return Err(e.into()),
                        Err(e) => bail!(e),
                    }
                }
                read_ahead.recycle(batch);
            }
        }
        Ok(())
    })?;
    if let Some(mut all) = buffered {
        // Matches with times are rated in time order, stable for equal times.
        all.sort_by_key(|m| m.time());
        for m in &all {
            rate(league, m, &mut bad, &mut bad_count)?;
        }
    }
    progress.finish_and_clear();
    if bad_count > 0 && !input.skip_bad {
        let mut msg = format!(
            "{bad_count} bad match{} found, nothing rated (use --skip-bad to rate the rest):",
            if bad_count == 1 { "" } else { "es" }
        );
        for b in &bad {
            msg.push_str("\n  ");
            msg.push_str(&b.reason);
        }
        if bad_count > bad.len() {
            msg.push_str(&format!("\n  … and {} more", bad_count - bad.len()));
        }
        bail!(msg);
    }
    Ok(bad)
}

/// Rates every input into `league` by the fast path for plain files
/// ([`podium_io::plain`]): long CSV of free-for-alls, read on several threads. Returns
/// false, with `league` part-rated, when an input is not plain or a match cannot be
/// rated; the caller then starts again from a fresh league with [`rate_all`], which reads
/// the general way and reports every problem by file, line and field.
pub fn rate_plain(input: &InputArgs, league: &mut League) -> bool {
    let plain_format = |path: &String| match input.input_format {
        Some(InputFormatArg::Csv) => true,
        Some(InputFormatArg::Jsonl) => false,
        None => InputFormat::from_path(path) == InputFormat::Csv,
    };
    if input.files.iter().any(|f| f == "-" || !plain_format(f)) {
        tracing::debug!("standard input or JSON Lines: every input is read the general way");
        return false;
    }
    // One core rates; the others read.
    let threads = std::thread::available_parallelism().map_or(1, |n| (n.get() - 1).clamp(1, 8));
    let progress = progress_bar(&input.files);
    let mut all_read = true;
    for path in &input.files {
        // The reader's player keys (dense, per file) to league indices.
        let mut index: Vec<u32> = Vec::new();
        let mut spare: Vec<Slot<'static>> = Vec::new();
        let read = podium_io::plain::read_plain_csv(
            Path::new(path),
            threads,
            &mut |bytes| progress.inc(bytes),
            |m, names| -> Result<(), podium::RateError> {
                index.resize(names.len(), UNKNOWN);
                for &p in m.ahead {
                    league.prefetch(index[p as usize] as usize);
                }
                // The slots borrow this match's names; their buffer is reused (an empty
                // vector changes its element's lifetime in place, without allocating).
                let mut slots: Vec<Slot<'_>> = std::mem::take(&mut spare)
                    .into_iter()
                    .map(|_| unreachable!("the buffer is empty"))
                    .collect();
                let mut new = false;
                slots.reserve(m.players.len());
                for &p in m.players {
                    slots.push(match index[p as usize] {
                        UNKNOWN => {
                            new = true;
                            Slot::New(names.get(p))
                        }
                        i => Slot::Known(i as usize),
                    });
                }
                let rated = league.apply_ranked(m.id, &mut slots, m.places);
                // Players met before keep their index; new ones learn theirs.
                if new {
                    for (&p, slot) in m.players.iter().zip(&slots) {
                        if let Slot::Known(i) = *slot {
                            index[p as usize] = u32::try_from(i).unwrap_or(UNKNOWN);
                        }
                    }
                }
                slots.clear();
                spare = slots.into_iter().map(|_| unreachable!()).collect();
                rated
            },
        );
        match read {
            Ok(Plain::Read { matches }) => {
                tracing::debug!("{path}: {matches} matches read on the fast path");
            }
            Ok(Plain::No { reason }) => {
                tracing::debug!("{path} is read the general way: {reason}");
                all_read = false;
                break;
            }
            Err(e) => {
                tracing::debug!("{path} is rated the general way: {e}");
                all_read = false;
                break;
            }
        }
    }
    progress.finish_and_clear();
    all_read
}

/// A player of the file not (yet) in the league, in `rate_plain`'s map.
const UNKNOWN: u32 = u32::MAX;

/// Matches (or read errors) per batch handed from the reading thread to the rating one.
const BATCH: usize = 256;
/// Batches the reading thread may be ahead: memory stays bounded whatever the file size.
const BATCHES_AHEAD: usize = 2;

/// One batch: each slot is taken (`None`) once the rating side keeps its item.
type Batch = Vec<Option<Result<Match, ReadError>>>;

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
    fn spawn<'env>(scope: &'scope Scope<'scope, 'env>, mut matches: Box<dyn MatchStream>) -> Self {
        let (tx, batches) = sync_channel::<Batch>(BATCHES_AHEAD);
        let (spent, spent_rx) = sync_channel::<Batch>(BATCHES_AHEAD + 2);
        let thread = scope.spawn(move || {
            // A spent batch's matches go back to the reader, whose next matches reuse
            // their allocations.
            let fresh = |matches: &mut Box<dyn MatchStream>| -> Batch {
                match spent_rx.try_recv() {
                    Ok(mut b) => {
                        for m in b.drain(..).flatten().flatten() {
                            matches.recycle(m);
                        }
                        b
                    }
                    Err(_) => Vec::with_capacity(BATCH),
                }
            };
            let mut batch = fresh(&mut matches);
            while let Some(item) = matches.next() {
                batch.push(Some(item));
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

/// Reports skipped matches on standard error.
pub fn report_skipped(skipped: &[Skipped]) {
    if skipped.is_empty() {
        return;
    }
    eprintln!(
        "skipped {} bad match{}:",
        skipped.len(),
        if skipped.len() == 1 { "" } else { "es" }
    );
    for s in skipped {
        eprintln!("  {}", s.reason);
    }
}

fn progress_bar(files: &[String]) -> ProgressBar {
    let total: u64 = files
        .iter()
        .filter(|f| *f != "-")
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    if !io::stderr().is_terminal() || total < 8 << 20 {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template("{spinner} rating {bytes}/{total_bytes} {wide_bar} {eta}")
            .expect("valid template"),
    );
    pb
}

/// Seeds a league from `--initial FILE` (`player,rating[,games][,sigma]`).
pub fn set_initial_from(league: &mut League, path: &str) -> anyhow::Result<()> {
    let f = File::open(path).with_context(|| format!("cannot open {path}"))?;
    for s in podium_io::initial::read_seeds(path, f)? {
        let r = s.rating();
        league.set_initial(&s.player, r).map_err(|e| {
            let field = match &e {
                podium::RateError::RatingOutOfRange { what, .. } => *what,
                _ => "rating",
            };
            anyhow::anyhow!("{path}:{}: field `{field}`: {e}", s.line)
        })?;
    }
    Ok(())
}
