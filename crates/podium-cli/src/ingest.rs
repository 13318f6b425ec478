//! The command line's side of reading match files ([`podium_io::ingest`]): the arguments
//! every command that reads a history shares, the progress bar, and the messages.

use std::fs::File;
use std::io::{self, IsTerminal};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use podium::{League, Match, MatchReport, RatingSystem};
use podium_io::ingest::{self, BadMatch, IngestError, Ingested, Inputs, Loaded, Reading};
use podium_io::{InputFormat, ReadOptions};

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
    /// Read this column (CSV) or result field (JSON Lines) as a factor of the entry: what
    /// else than its players decides its result, such as the car, the seat or the faction
    /// (`--factor constructor` gives a row with `ferrari` the factor constructor=ferrari;
    /// an empty value gives none). Factors are rated beside the players (repeatable).
    #[arg(long = "factor", value_name = "COLUMN")]
    pub factors: Vec<String>,
    /// The league the files go on from (`--resume`): the matches it rated are not rated
    /// again, and after its dated matches every match needs a time no earlier.
    #[arg(skip)]
    pub resumed: Option<ingest::Resumed>,
    /// Note the matches rated, to save them with the league (`--save`).
    #[arg(skip)]
    pub note_ids: bool,
    /// The factors of `--factor` are read and left out of every match, for a system
    /// that rates none ([`InputArgs::leave_out_factors`], `ReadOptions::leave_out`).
    #[arg(skip)]
    pub left_out: bool,
}

impl InputArgs {
    /// The inputs as the readers take them.
    pub fn inputs(&self) -> Inputs {
        Inputs {
            files: self.files.clone(),
            format: self.input_format.map(|f| match f {
                InputFormatArg::Csv => InputFormat::Csv,
                InputFormatArg::Jsonl => InputFormat::Jsonl,
            }),
            skip_bad: self.skip_bad,
            options: ReadOptions {
                factors: self.factors.clone(),
                leave_out: self.left_out,
            },
            resumed: self.resumed.clone(),
            note_ids: self.note_ids,
        }
    }

    /// Checks, before anything is read, that `system` rates factors if `--factor` asks
    /// for them.
    ///
    /// # Errors
    /// A system that does not rate factors, naming it and those that do.
    pub fn check_system(&self, system: &dyn RatingSystem) -> anyhow::Result<()> {
        if self.factors.is_empty() || system.capabilities().rates_factors {
            return Ok(());
        }
        anyhow::bail!(
            "--factor {}: system {} does not rate factors; systems that do: {}",
            self.factors.join(" --factor "),
            system.name(),
            factor_systems().join(", ")
        )
    }
}

impl InputArgs {
    /// For a system (or smoother) `name` that rates no factors: takes `--factor` where it
    /// is there to read the files, every input being JSON Lines (whose results refuse a
    /// field not read as a factor), and says on standard error that the factors are read
    /// and left out: every match is then rated as if its results had no such field.
    /// Returns false, taking nothing, for other inputs (a CSV column not named is not
    /// read, so `--factor` only asks for a rating the system cannot give): the caller
    /// refuses it, with [`FACTOR_NOT_NEEDED`].
    pub fn leave_out_factors(&mut self, name: &str) -> bool {
        if self.factors.is_empty() {
            return true;
        }
        let jsonl = match self.input_format {
            Some(InputFormatArg::Jsonl) => true,
            Some(InputFormatArg::Csv) => false,
            None => self
                .files
                .iter()
                .all(|f| f != "-" && InputFormat::from_path(f) == InputFormat::Jsonl),
        };
        if !jsonl {
            return false;
        }
        let fields = match self.factors.as_slice() {
            [one] => format!("the field {one} is"),
            [rest @ .., last] => format!("the fields {} and {last} are", rest.join(", ")),
            [] => unreachable!("checked above"),
        };
        eprintln!("note: {name} rates no factors: {fields} read and left out");
        self.left_out = true;
        true
    }

    /// As [`InputArgs::check_system`], but a system that rates no factors takes
    /// `--factor` where it is there to read JSON Lines ([`InputArgs::leave_out_factors`]).
    ///
    /// # Errors
    /// `--factor` for other inputs and a system that does not rate factors.
    pub fn factors_for(&mut self, system: &dyn RatingSystem) -> anyhow::Result<()> {
        if system.capabilities().rates_factors || self.leave_out_factors(system.name()) {
            return Ok(());
        }
        self.check_system(system)
            .map_err(|e| anyhow::anyhow!("{e}; {FACTOR_NOT_NEEDED}"))
    }
}

/// What a system that rates no factors makes of `--factor` over CSV.
pub const FACTOR_NOT_NEEDED: &str = "without --factor a CSV column is not read (a JSON Lines field, of a .jsonl file or with --input-format jsonl, is read with --factor and left out)";

/// The registered systems that rate factors ([`Capabilities::rates_factors`](podium::Capabilities::rates_factors)).
pub fn factor_systems() -> Vec<&'static str> {
    podium::systems()
        .iter()
        .filter(|s| {
            podium::system(s.name, &podium::Settings::new())
                .is_ok_and(|sys| sys.capabilities().rates_factors)
        })
        .map(|s| s.name)
        .collect()
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
    #[arg(long, short = 's', default_value = podium::DEFAULT_SYSTEM)]
    pub system: String,
    /// Set a parameter of the system, e.g. `--set k=24` or `--set sme.k=24` (repeatable).
    #[arg(long = "set", value_name = "[SYSTEM.]KEY=VALUE")]
    pub settings: Vec<String>,
}

impl SystemArgs {
    /// Builds the system.
    pub fn build(&self) -> anyhow::Result<Box<dyn RatingSystem>> {
        let settings = settings_for(&self.system, &self.settings)?;
        Ok(podium::system(&self.system, &settings)?)
    }
}

/// The `--set` items of a command that runs one system: `key=value`, or `system.key=value`
/// as the commands comparing several systems take them (a prefix naming another system is
/// an error).
///
/// # Errors
/// A malformed item, or one prefixed with another system's name.
pub fn settings_for(system: &str, items: &[String]) -> anyhow::Result<podium::Settings> {
    let settings = podium::Settings::parse(items)?;
    let name = system.trim();
    if let Some((sys, key)) = settings
        .prefixes()
        .find(|(sys, _)| !sys.eq_ignore_ascii_case(name))
    {
        anyhow::bail!("--set {key}: system {sys:?} is not the system run here ({name})");
    }
    Ok(settings.for_system(name))
}

/// Starting ratings, for the commands that rate a history.
#[derive(Debug, Clone, clap::Args)]
pub struct InitialArgs {
    /// Starting ratings: a CSV `player,rating[,games][,sigma]` with a header row, e.g. to
    /// carry an existing league over. Players not in it start as the system starts them.
    #[arg(long, value_name = "FILE")]
    pub initial: Option<String>,
}

/// A league of the system, holding the starting ratings.
///
/// # Errors
/// A bad system or setting, or a starting ratings file that cannot be read.
pub fn new_league(system: &SystemArgs, initial: &InitialArgs) -> anyhow::Result<League> {
    let mut league = League::new(system.build()?);
    if let Some(path) = &initial.initial {
        set_initial_from(&mut league, path)?;
    }
    Ok(league)
}

/// Rates every match of the inputs into `league`. Returns the matches skipped (only with
/// `--skip-bad`) and, with [`InputArgs::note_ids`], those rated.
///
/// # Errors
/// A file that cannot be read, or (without `--skip-bad`) every bad match found: the
/// league must not be shown then.
pub fn rate(input: &InputArgs, league: &mut League) -> anyhow::Result<Ingested> {
    with_progress(input, |reading| {
        ingest::rate(&input.inputs(), league, reading).map_err(|e| explain(e, "rated", "rate"))
    })
}

/// As [`rate`], handing every match rated to `each` with its report.
///
/// # Errors
/// As [`rate`], or the first error of `each`.
pub fn rate_each(
    input: &InputArgs,
    league: &mut League,
    each: impl FnMut(&League, &Match, &MatchReport) -> anyhow::Result<()>,
) -> anyhow::Result<Ingested> {
    with_progress(input, |reading| {
        ingest::rate_each(&input.inputs(), league, reading, each)
            .map_err(|e| explain(e, "rated", "rate"))
    })
}

/// Reads every match of the inputs into memory, in rating order (the evaluation
/// commands replay them with several systems).
///
/// # Errors
/// A file that cannot be read, or (without `--skip-bad`) every bad match found.
pub fn load(input: &InputArgs) -> anyhow::Result<Loaded> {
    with_progress(input, |reading| {
        ingest::load(&input.inputs(), reading).map_err(|e| explain(e, "evaluated", "evaluate"))
    })
}

/// An error of the readers as the command line says it: bad matches with what was not
/// done (`nothing rated`) and how to do it anyway.
pub(crate) fn explain<E>(e: IngestError<E>, done: &str, verb: &str) -> anyhow::Error
where
    E: Into<anyhow::Error> + std::fmt::Display,
{
    match e {
        IngestError::BadMatches { count, listed } => {
            let mut msg = format!(
                "{count} bad match{} found, nothing {done} (use --skip-bad to {verb} the rest):",
                if count == 1 { "" } else { "es" }
            );
            for b in &listed {
                msg.push_str("\n  ");
                msg.push_str(&b.to_string());
            }
            if count > listed.len() {
                msg.push_str(&format!("\n  … and {} more", count - listed.len()));
            }
            anyhow::anyhow!(msg)
        }
        IngestError::Caller(e) => e.into(),
        IngestError::Read(e) => e.into(),
        e => anyhow::anyhow!("{e}"),
    }
}

/// Runs `read` with a progress bar on standard error for large inputs.
pub(crate) fn with_progress<T>(
    input: &InputArgs,
    read: impl FnOnce(&Reading<'_>) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    podium_io::ingest::given_once(&input.files)?;
    let bar = progress_bar(&input.files);
    let progress = |bytes: u64| bar.inc(bytes);
    let reading = Reading {
        progress: &progress,
        ..Reading::default()
    };
    let result = read(&reading);
    bar.finish_and_clear();
    result
}

/// Reports skipped matches on standard error.
pub fn report_skipped(skipped: &[BadMatch]) {
    if skipped.is_empty() {
        return;
    }
    eprintln!(
        "skipped {} bad match{}:",
        skipped.len(),
        if skipped.len() == 1 { "" } else { "es" }
    );
    for s in skipped {
        eprintln!("  {s}");
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

/// Sets the starting ratings of `--initial FILE` (`player,rating[,games][,sigma]`).
pub fn set_initial_from(league: &mut League, path: &str) -> anyhow::Result<()> {
    let f = File::open(path).with_context(|| format!("cannot open {path}"))?;
    for s in podium_io::initial::read_initial_ratings(path, f)? {
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
