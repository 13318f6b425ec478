//! `podium rate`: rate every match of the input files and print the leaderboard.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use podium::League;

use crate::ingest::{
    rate_all, rate_plain, report_skipped, set_initial_from, InputArgs, Skipped, SystemArgs,
};
use crate::output::{rank_conservative, write_leaderboard, write_leaderboard_as, Display, Format};

/// Arguments of `podium rate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    system: SystemArgs,
    /// Starting ratings: a CSV `player,rating[,games]` (for migrating an existing league).
    #[arg(long, value_name = "FILE")]
    initial: Option<String>,
    /// Show only players with at least this many games.
    #[arg(long, default_value_t = 0, value_name = "N")]
    min_games: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Rank by the rating, or by the conservative rating μ − 3σ (systems with σ only).
    #[arg(long, value_enum, default_value_t = Display::Rating)]
    display: Display,
    /// Write one row per player per match (rating before, expected, actual, K, change, after).
    #[arg(long, value_name = "FILE")]
    history: Option<String>,
}

/// Header of the `--history` CSV.
pub const HISTORY_HEADER: [&str; 12] = [
    "match",
    "time",
    "player",
    "place",
    "rating_before",
    "expected",
    "actual",
    "k",
    "weight",
    "change",
    "rating_after",
    "sigma_after",
];

/// Rates and prints.
pub fn run(args: Args) -> anyhow::Result<()> {
    let start = || -> anyhow::Result<League> {
        let mut league = League::new(args.system.build()?);
        if let Some(path) = &args.initial {
            set_initial_from(&mut league, path)?;
        }
        Ok(league)
    };
    let mut league = start()?;
    if args.display == Display::Conservative && !league.system().has_uncertainty() {
        anyhow::bail!(
            "--display conservative ranks by μ − 3σ, but system {} keeps no σ; use one of the Bayesian systems (see `podium systems`)",
            league.system().name()
        );
    }
    // Plain files take the fast path; anything else, or any problem on the way, is read
    // again from the start the general way, which names every problem.
    if args.history.is_none() {
        if rate_plain(&args.input, &mut league) {
            return print(&args, &league, &[]);
        }
        if league.matches_rated() > 0 {
            league = start()?;
        }
    }
    // History goes to a temporary file renamed into place only when everything rated.
    let mut history = match &args.history {
        None => None,
        Some(path) => {
            let tmp = format!("{path}.partial");
            let f = File::create(&tmp).with_context(|| format!("cannot create {tmp}"))?;
            let mut w = csv::Writer::from_writer(BufWriter::new(f));
            w.write_record(HISTORY_HEADER)?;
            Some((w, tmp, path.clone()))
        }
    };
    let result = rate_all(&args.input, &mut league, |league, m, report| {
        if let Some((w, _, _)) = &mut history {
            let time = m.time().map(podium_io::format_time).unwrap_or_default();
            for ((entry, _), (idx, c)) in m.players().zip(&report.changes) {
                w.write_record([
                    m.id(),
                    &time,
                    &league.player(*idx).name,
                    &m.place(entry).to_string(),
                    &c.before.value.to_string(),
                    &c.expected.to_string(),
                    &c.actual.to_string(),
                    &c.k.map(|k| k.to_string()).unwrap_or_default(),
                    &c.weight.to_string(),
                    &c.delta().to_string(),
                    &c.after.value.to_string(),
                    &c.after.sigma.map(|s| s.to_string()).unwrap_or_default(),
                ])?;
            }
        }
        Ok(())
    });
    let skipped = match result {
        Ok(s) => s,
        Err(e) => {
            if let Some((_, tmp, _)) = &history {
                let _ = std::fs::remove_file(tmp);
            }
            return Err(e);
        }
    };
    if let Some((mut w, tmp, path)) = history {
        w.flush()?;
        drop(w);
        std::fs::rename(&tmp, Path::new(&path)).with_context(|| format!("cannot write {path}"))?;
    }
    print(&args, &league, &skipped)
}

/// Prints the leaderboard (and, before it, the matches skipped).
fn print(args: &Args, league: &League, skipped: &[Skipped]) -> anyhow::Result<()> {
    report_skipped(skipped);
    let mut board = league.standings();
    if args.display == Display::Conservative {
        rank_conservative(&mut board);
    }
    board.retain(|s| s.stats.games >= args.min_games);
    let mut out = std::io::stdout().lock();
    match args.display {
        Display::Rating => write_leaderboard(&mut out, &board, league.system(), args.format)?,
        d => write_leaderboard_as(&mut out, &board, league.system(), args.format, d)?,
    }
    out.flush()?;
    Ok(())
}
