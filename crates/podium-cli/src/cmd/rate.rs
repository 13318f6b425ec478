//! `podium rate`: rate every match of the input files and print the leaderboard.

use std::io::Write;

use podium::League;
use podium_io::ingest::BadMatch;
use podium_io::output::Output;

use crate::ingest::{self, report_skipped, InitialArgs, InputArgs, SystemArgs};
use crate::output::{
    count, factors_json, leaderboard_json, rank_conservative, write_factors, write_leaderboard,
    write_leaderboard_as, Format, Ranking,
};

/// Arguments of `podium rate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    system: SystemArgs,
    #[command(flatten)]
    initial: InitialArgs,
    /// Show only players with at least this many games. The position (`#`) is the
    /// player's place among the players shown: 1, 2, 3, … without gaps. A line under the
    /// table says how many players are hidden (with CSV or JSON, standard error says so
    /// when all are).
    #[arg(
        long,
        default_value_t = 0,
        value_name = "N",
        value_parser = whole::<u32>,
        allow_negative_numbers = true
    )]
    min_games: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Rank by the rating, or by the conservative rating μ − 3σ (systems with σ only).
    #[arg(long, value_enum, default_value_t = Ranking::Rating)]
    display: Ranking,
    /// `established`: players whose rating is no longer provisional first, then the
    /// provisional ones (marked P), each group best first; `rating`: everyone by rating.
    #[arg(long, default_value_t = podium::Order::Established, value_name = "ORDER")]
    order: podium::Order,
    /// Write one row per player per match (rating and σ before, expected, actual, K,
    /// change, rating and σ after; numbers at full precision, as the CSV board) to FILE,
    /// replaced only once every match is rated; `-` writes it to standard
    /// output in place of the leaderboard. With --factor, two more columns,
    /// `factor_kind` and `factor_value`, and one row per factor per match after its
    /// players' (`player` and `place` empty).
    #[arg(long, value_name = "FILE")]
    history: Option<String>,
    /// After the players, list every factor read with --factor: kind, value, rating (what
    /// it adds to an entry's strength), σ where the system keeps one, matches, wins, win %
    /// and an average entry's win % in the same matches.
    /// CSV puts its table after a blank line; JSON becomes {"players": [..], "factors": [..]}.
    #[arg(long = "factors", requires = "factors")]
    factor_table: bool,
    /// Go on from the league saved in FILE by --save: its players, ratings, states and
    /// statistics, then rate the input files after its matches. The league must have
    /// been saved by the same --system with the same --set values, and every factor kind
    /// it rated read again with --factor. Not with --seasons: the saved league does not
    /// record where its seasons began.
    #[arg(long, value_name = "FILE", conflicts_with = "initial")]
    resume: Option<String>,
    /// Save the league after rating to FILE (JSON), to go on later with --resume: every
    /// player's rating, state and statistics, exactly. Written whole or not at all; FILE
    /// may be the --resume file.
    #[arg(long, value_name = "FILE")]
    save: Option<String>,
    #[command(flatten)]
    seasons: super::seasons::SeasonArgs,
}

/// A type of counting flag's value ([`whole`]): an unsigned integer.
pub trait Count: TryFrom<u128> {
    /// The largest value.
    const MAX: u128;
}

impl Count for u32 {
    const MAX: u128 = u32::MAX as u128;
}

impl Count for u64 {
    const MAX: u128 = u64::MAX as u128;
}

impl Count for usize {
    const MAX: u128 = usize::MAX as u128;
}

/// Reads the value of a counting flag (`--min-games N`): a whole number 0 or more. The
/// flag takes `allow_negative_numbers`, so that `-1` comes here as its value, refused
/// with the range, rather than being taken for a flag of its own.
///
/// # Errors
/// A value that is not a whole number 0 or more, or too large for the flag.
pub fn whole<T: Count>(text: &str) -> Result<T, String> {
    at_least(text, 0, "a whole number 0 or more")
}

/// As [`whole`], for a flag whose value is at least `min`: `expected` says so
/// ("at least 1 split to show").
///
/// # Errors
/// A value that is not a whole number, is below `min`, or is too large for the flag.
pub fn at_least<T: Count>(text: &str, min: u128, expected: &str) -> Result<T, String> {
    let t = text.trim();
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    let n = match t.parse::<i128>() {
        Ok(n) => n,
        // Digits past what any flag holds.
        Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(if t.starts_with('-') {
                format!("expected {expected}")
            } else {
                format!("expected {expected}, at most {}", T::MAX)
            })
        }
        Err(_) if t.parse::<f64>().is_ok() => {
            return Err(format!("not a whole number; expected {expected}"))
        }
        Err(_) => return Err(format!("not a number; expected {expected}")),
    };
    match u128::try_from(n) {
        Ok(n) if n < min => Err(format!("expected {expected}")),
        Ok(n) => T::try_from(n).map_err(|_| format!("expected {expected}, at most {}", T::MAX)),
        Err(_) => Err(format!("expected {expected}")),
    }
}

/// Header of the `--history` CSV.
pub const HISTORY_HEADER: [&str; 13] = [
    "match",
    "time",
    "player",
    "place",
    "rating_before",
    "sigma_before",
    "expected",
    "actual",
    "k",
    "weight",
    "change",
    "rating_after",
    "sigma_after",
];

/// Why the factors' table is empty, when it is.
pub const NO_FACTOR_RATED: &str = "no factor was rated, so the factors' table is empty: a factor is rated only in a match where some entries carry it and others do not; in every match read, each factor was on every entry (adding the same to each, it says nothing of the order) or on none";

/// Refuses flags that do not go together, before anything is read or written.
fn check_flags(args: &Args) -> anyhow::Result<()> {
    if args.seasons.seasons.is_some() {
        if args.resume.is_some() {
            anyhow::bail!(
                "--seasons does not go with --resume: a saved league does not record where its seasons began, so its matches cannot be split into seasons and reset between them; rate the whole history with --seasons instead"
            );
        }
        for (set, flag) in [
            (args.history.is_some(), "--history"),
            (args.save.is_some(), "--save"),
            (args.factor_table, "--factors"),
            (
                args.display == Ranking::Conservative,
                "--display conservative",
            ),
        ] {
            if set {
                anyhow::bail!("--seasons prints one board per season; it does not go with {flag}");
            }
        }
    }
    if args.history.as_deref() == Some("-") {
        let min_games = format!("--min-games {}", args.min_games);
        let order = format!("--order {}", args.order);
        for (set, flag, what) in [
            (
                args.format == Format::Json,
                "--format json",
                "the history is CSV",
            ),
            (
                args.min_games > 0,
                min_games.as_str(),
                "it hides players of the leaderboard",
            ),
            (
                args.order != podium::Order::Established,
                order.as_str(),
                "it orders the leaderboard",
            ),
            (
                args.factor_table,
                "--factors",
                "it lists the factors after the leaderboard",
            ),
            (
                args.display == Ranking::Conservative,
                "--display conservative",
                "it ranks the leaderboard",
            ),
        ] {
            if set {
                anyhow::bail!(
                    "--history - writes the history to standard output in place of the leaderboard, so {flag} would do nothing ({what}); leave out {flag}, or give --history a file to have the leaderboard too"
                );
            }
        }
    }
    Ok(())
}

/// Rates and prints.
pub fn run(mut args: Args) -> anyhow::Result<()> {
    check_flags(&args)?;
    // Two outputs in one file would leave only the one written last.
    podium_io::output::distinct(&[
        ("--history", args.history.as_deref().unwrap_or("-")),
        ("--save", args.save.as_deref().unwrap_or("-")),
    ])?;
    let mut league = match &args.resume {
        Some(path) => {
            let system = Some(args.system.build()?.into());
            let (league, resumed) = podium_io::saved::read_resumed(path, system)?;
            check_resumed_factors(path, &league, &args.input.factors)?;
            // The matches the league rated are not rated again; after its dated matches
            // every match needs a time no earlier.
            args.input.resumed = Some(resumed);
            league
        }
        None => ingest::new_league(&args.system, &args.initial)?,
    };
    // A league saved notes the matches it rated, so that going on from it refuses them.
    args.input.note_ids = args.save.is_some();
    // A file the league cannot be saved to is refused before rating anything.
    if let Some(path) = &args.save {
        check_save(path, &args)?;
    }
    if args.factor_table && !league.system().capabilities().rates_factors {
        anyhow::bail!(
            "--factors lists the factors rated, but system {} rates none; systems that do: {}",
            league.system().name(),
            ingest::factor_systems().join(", ")
        );
    }
    // A system that rates no factors reads JSON Lines factor fields and leaves them out.
    args.input.factors_for(league.system())?;
    if let Some(spec) = &args.seasons.seasons {
        return super::seasons::run(
            &args.input,
            league,
            &args.seasons,
            spec,
            args.format,
            args.order,
            args.min_games,
        );
    }
    if args.display == Ranking::Conservative && !league.system().capabilities().has_uncertainty {
        anyhow::bail!(
            "--display conservative ranks by μ − 3σ, but system {} keeps no σ; systems that do: {}",
            league.system().name(),
            sigma_systems().join(", ")
        );
    }
    let Some(path) = &args.history else {
        let done = ingest::rate(&args.input, &mut league)?;
        none_rated(&league, &done.skipped)?;
        save(&args, &league, done.rated_ids)?;
        return print(&args, &league, &done.skipped);
    };
    // The history is written whole or not at all: its file is replaced (or it goes to
    // standard output) only once every match is rated.
    let mut inputs = inputs(&args);
    // The league gone on from is read whole before, but the history must not replace it.
    inputs.extend(args.resume.as_deref());
    let mut history = csv::Writer::from_writer(Output::create(path, &inputs)?);
    let factored = !args.input.factors.is_empty() && !args.input.left_out;
    let mut header = HISTORY_HEADER.to_vec();
    if factored {
        header.extend(["factor_kind", "factor_value"]);
    }
    history.write_record(&header)?;
    let done = ingest::rate_each(&args.input, &mut league, |league, m, report| {
        let time = m.time().map(podium_io::format_time).unwrap_or_default();
        // One row: `match`, `time`, `player`, `place`, the change, and the factor's kind
        // and value when the history has those columns.
        let mut row = |player: &str,
                       place: &str,
                       c: &podium::PlayerChange,
                       factor: Option<&podium::Factor>|
         -> csv::Result<()> {
            history.write_field(m.id())?;
            history.write_field(&time)?;
            history.write_field(player)?;
            history.write_field(place)?;
            history.write_field(c.before.value.to_string())?;
            history.write_field(c.before.sigma.map(|s| s.to_string()).unwrap_or_default())?;
            history.write_field(c.expected.to_string())?;
            history.write_field(c.actual.to_string())?;
            history.write_field(c.k.map(|k| k.to_string()).unwrap_or_default())?;
            history.write_field(c.weight.to_string())?;
            history.write_field(c.delta().to_string())?;
            history.write_field(c.after.value.to_string())?;
            history.write_field(c.after.sigma.map(|s| s.to_string()).unwrap_or_default())?;
            if factored {
                history.write_field(factor.map_or("", |f| f.kind.as_str()))?;
                history.write_field(factor.map_or("", |f| f.value.as_str()))?;
            }
            history.write_record(None::<&[u8]>)
        };
        for ((entry, _), (idx, c)) in m.players().zip(&report.changes) {
            row(
                &league.player(*idx).name,
                &m.place(entry).to_string(),
                c,
                None,
            )?;
        }
        for (idx, c) in &report.factors {
            row("", "", c, Some(&league.factors()[*idx].factor))?;
        }
        Ok(())
    })?;
    let skipped = done.skipped;
    none_rated(&league, &skipped)?;
    save(&args, &league, done.rated_ids)?;
    let history = history.into_inner().map_err(|e| e.into_error())?;
    let to_stdout = history.path().is_none();
    history.commit()?;
    if to_stdout {
        report_skipped(&skipped);
        return Ok(());
    }
    print(&args, &league, &skipped)
}

/// Refuses to go on from the league saved in `path` when it rated factors of a kind that
/// this run does not read (`factors`, the kinds of --factor): its matches would be rated
/// as if their entries carried none, which neither the saved run nor one run over every
/// file does.
fn check_resumed_factors(path: &str, league: &League, factors: &[String]) -> anyhow::Result<()> {
    let mut missing: Vec<&str> = Vec::new();
    for f in league.factors() {
        let kind = f.factor.kind.as_str();
        if !factors.iter().any(|k| k == kind) && !missing.contains(&kind) {
            missing.push(kind);
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let flags: Vec<String> = missing.iter().map(|k| format!("--factor {k}")).collect();
    anyhow::bail!(
        "--resume {path}: the league saved there rated the factor{} {} (read with {}), which this run does not read; give {} as when it was saved",
        if missing.len() == 1 { "" } else { "s" },
        missing.join(", "),
        flags.join(" "),
        flags.join(" ")
    )
}

/// The registered systems that keep a σ ([`Capabilities::has_uncertainty`](podium::Capabilities::has_uncertainty)).
fn sigma_systems() -> Vec<&'static str> {
    podium::systems()
        .iter()
        .filter(|s| {
            podium::system(s.name, &podium::Settings::new())
                .is_ok_and(|sys| sys.capabilities().has_uncertainty)
        })
        .map(|s| s.name)
        .collect()
}

/// The files the league must not be saved over: the inputs (the --resume file may be
/// replaced: it was read whole before).
fn inputs(args: &Args) -> Vec<&str> {
    let mut inputs: Vec<&str> = args.input.files.iter().map(String::as_str).collect();
    inputs.extend(args.initial.initial.as_deref());
    inputs
}

/// Checks that the league can be saved to `path`: a file, not an input.
fn check_save(path: &str, args: &Args) -> anyhow::Result<()> {
    if path == "-" {
        anyhow::bail!("--save -: a saved league goes to a file; give a file name");
    }
    podium_io::output::check(std::path::Path::new(path), &inputs(args))?;
    Ok(())
}

/// With --save, saves the league, noting the matches it rated: those of the resumed
/// league, then `rated` (this run's).
fn save(args: &Args, league: &League, rated: Vec<u64>) -> anyhow::Result<()> {
    let Some(path) = &args.save else {
        return Ok(());
    };
    let mut ids = args
        .input
        .resumed
        .as_ref()
        .map(|r| r.ids.clone())
        .unwrap_or_default();
    ids.extend(rated);
    Ok(podium_io::saved::write_rated(
        path,
        league,
        &inputs(args),
        ids,
    )?)
}

/// With `--skip-bad`, an error when every match read was bad: there is no rest to rate,
/// and an empty leaderboard would look like a success.
pub(super) fn none_rated(league: &League, skipped: &[BadMatch]) -> anyhow::Result<()> {
    if skipped.is_empty() || league.matches_rated() > 0 {
        return Ok(());
    }
    let mut msg = format!(
        "no match could be rated: {}, nothing rated:",
        match skipped.len() {
            1 => "the one match read is bad".to_string(),
            n => format!("all {n} matches read are bad"),
        }
    );
    for s in skipped {
        msg.push_str("\n  ");
        msg.push_str(&s.to_string());
    }
    anyhow::bail!(msg)
}

/// What the leaderboard's note says of the `hidden` players of fewer than `min_games`
/// games (`none_shown` when they are all the players), or nothing when none is hidden.
fn hidden_note(hidden: usize, none_shown: bool, min_games: u32) -> Option<String> {
    if hidden == 0 {
        return None;
    }
    let games = count(u64::from(min_games), "game");
    let players = count(hidden as u64, "player");
    Some(if none_shown {
        format!("no player has {games} or more ({players} hidden; lower --min-games)")
    } else {
        format!("{players} with fewer than {games} hidden (--min-games {min_games})")
    })
}

/// Prints the leaderboard (and, before it, the matches skipped).
fn print(args: &Args, league: &League, skipped: &[BadMatch]) -> anyhow::Result<()> {
    report_skipped(skipped);
    let mut board = league.standings_in(args.order);
    if args.display == Ranking::Conservative {
        rank_conservative(&mut board);
        if args.order == podium::Order::Established {
            board.sort_by_key(|s| s.provisional);
        }
    }
    let all = board.len();
    board.retain(|s| s.stats.games >= args.min_games);
    // Positions count the players shown.
    for (i, s) in board.iter_mut().enumerate() {
        s.position = i + 1;
    }
    let hidden = hidden_note(all - board.len(), board.is_empty(), args.min_games);
    // CSV and JSON hold rows only: an empty board is explained on standard error.
    if args.format != Format::Table && board.is_empty() {
        if let Some(note) = &hidden {
            eprintln!("{note}");
        }
    }
    let mut out = std::io::stdout().lock();
    if args.factor_table && league.factors().is_empty() {
        eprintln!("{NO_FACTOR_RATED}");
    }
    if args.factor_table && args.format == Format::Json {
        let sys = league.system();
        let both = serde_json::json!({
            "players": leaderboard_json(&board, sys.capabilities().has_uncertainty, args.display == Ranking::Conservative),
            "factors": factors_json(&league.factor_standings(), sys.capabilities().has_uncertainty),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&both)?)?;
        out.flush()?;
        return Ok(());
    }
    match args.display {
        Ranking::Rating => write_leaderboard(&mut out, &board, league.system(), args.format)?,
        d => write_leaderboard_as(&mut out, &board, league.system(), args.format, d)?,
    }
    if let Some(note) = hidden.filter(|_| args.format == Format::Table) {
        writeln!(out, "{note}")?;
    }
    if args.factor_table {
        writeln!(out)?;
        write_factors(
            &mut out,
            &league.factor_standings(),
            league.system(),
            args.format,
        )?;
    }
    out.flush()?;
    Ok(())
}
