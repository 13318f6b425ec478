//! `podium backtest`: replay a history with every chosen system and score each system's
//! predictions made before every match on its warm pairs (pairs of players who both
//! played before, finishing at different places): pair accuracy, log loss of the
//! system's own win probability, warm pairs and time taken. The table lists the systems
//! best first by pair accuracy, each with its standard error over the scored matches.

use std::io::{self, Write};

use anyhow::Context;
use comfy_table::{presets::UTF8_BORDERS_ONLY, CellAlignment, Table};
use podium_eval::{backtest, BacktestOptions, BacktestResult, Window};
use rayon::prelude::*;

use crate::evaluation::{parse_bound, select_systems, worker_threads};
use crate::ingest::{self, report_skipped, InputArgs};
use crate::output::{count, Format};

/// Arguments of `podium backtest`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Systems to compare: `all` or a comma-separated list (see `podium systems`); with
    /// --factor, `all` is every system that rates factors, and each system is also run
    /// factor-blind (`NAME (factor-blind)`: the same matches without their factors), so
    /// that the table shows what the factors are worth.
    #[arg(long, default_value = "all", value_name = "LIST")]
    pub systems: String,
    /// Set a parameter: `system.key=value`, or `key=value` for every selected system.
    #[arg(long = "set", value_name = "[SYSTEM.]KEY=VALUE")]
    pub settings: Vec<String>,
    /// Score from this match on: a match number (1 = first rated) or a date.
    #[arg(long, value_name = "N|DATE", allow_negative_numbers = true)]
    pub from: Option<String>,
    /// Stop scoring at this match (not scored itself): a match number or a date.
    #[arg(long, value_name = "N|DATE", allow_negative_numbers = true)]
    pub until: Option<String>,
    /// Skip the log loss (O(W²) per match for W warm players); accuracy is still exact.
    #[arg(long)]
    pub no_log_loss: bool,
    /// Worker threads (0 = one per core); systems replay side by side, at most one per
    /// core and one per system, and the log loss of a large match is shared out over
    /// every worker.
    #[arg(
        long,
        default_value_t = 0,
        value_parser = super::rate::whole::<usize>,
        allow_negative_numbers = true
    )]
    pub threads: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Scores in the history: `with` (as given), `ranks` (every score replaced by its
    /// place, so that no system sees a margin) or `both`: as given, and each system that
    /// reads scores also run on ranks only (`NAME (ranks only)`; with --factor, on the
    /// matches with their factors: `NAME (ranks only, with FACTOR)`), so that the table
    /// shows what the margins are worth.
    #[arg(
        long,
        value_enum,
        default_value = "with",
        value_name = "WITH|RANKS|BOTH"
    )]
    pub scores: Scores,
}

/// What `podium backtest` does with the scores of a history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scores {
    /// The matches as given.
    With,
    /// Every score replaced by its place.
    Ranks,
    /// Both: the systems that read scores twice.
    Both,
}

/// One system's outcome.
pub type Outcome = (String, Result<BacktestResult, String>);

/// How a system run on the matches without their factors is named.
#[must_use]
pub fn factor_blind_name(system: &str) -> String {
    format!("{system} (factor-blind)")
}

/// How a system run on the matches with their scores replaced by places is named; with
/// `factors` (rated, as in the system's main run), they are named too: the run is not
/// factor-blind.
#[must_use]
pub fn ranks_only_name(system: &str, factors: &[String]) -> String {
    if factors.is_empty() {
        format!("{system} (ranks only)")
    } else {
        format!("{system} (ranks only, with {})", factors.join(", "))
    }
}

/// Which copy of the history a run replays.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Replay {
    AsLoaded,
    FactorBlind,
    RanksOnly,
}

/// Runs `podium backtest`.
///
/// # Errors
/// Bad arguments or input, or output that cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    let factored = !args.input.factors.is_empty();
    // `all` with factors: the systems that rate them.
    let chosen = || -> anyhow::Result<Vec<Box<dyn podium::RatingSystem>>> {
        let mut systems = select_systems(&args.systems, &args.settings)?;
        if factored && args.systems.trim().eq_ignore_ascii_case("all") {
            systems.retain(|s| s.capabilities().rates_factors);
        }
        Ok(systems)
    };
    let systems = chosen()?;
    for s in &systems {
        args.input.check_system(s.as_ref())?;
    }
    let window = Window {
        from: args
            .from
            .as_deref()
            .map(|t| parse_bound("--from", t))
            .transpose()?,
        until: args
            .until
            .as_deref()
            .map(|t| parse_bound("--until", t))
            .transpose()?,
    };
    let loaded = ingest::load(&args.input)?;
    report_skipped(&loaded.skipped);
    let mut matches = loaded.matches;
    if args.scores == Scores::Ranks {
        matches = matches
            .iter()
            .map(podium_eval::backtest::ranks_only)
            .collect();
    }
    // With `--scores both`, the systems that read scores replay ranks only too.
    let ranks: Vec<podium::Match> = if args.scores == Scores::Both {
        matches
            .iter()
            .map(podium_eval::backtest::ranks_only)
            .collect()
    } else {
        Vec::new()
    };
    // With factors, each system also replays the same matches without them.
    let blind: Vec<podium::Match> = if factored {
        matches.iter().map(podium::Match::without_factors).collect()
    } else {
        Vec::new()
    };
    let mut runs: Vec<(Box<dyn podium::RatingSystem>, Replay)> = Vec::new();
    let twins = if factored || args.scores == Scores::Both {
        chosen()?.into_iter().map(Some).collect()
    } else {
        Vec::new()
    };
    let twins = twins.into_iter().chain(std::iter::repeat_with(|| None));
    let triplets = if factored && args.scores == Scores::Both {
        chosen()?.into_iter().map(Some).collect()
    } else {
        Vec::new()
    };
    let triplets = triplets.into_iter().chain(std::iter::repeat_with(|| None));
    for ((sys, twin), triplet) in systems.into_iter().zip(twins).zip(triplets) {
        let reads_scores = sys.capabilities().uses_scores;
        runs.push((sys, Replay::AsLoaded));
        let mut spare = [twin, triplet].into_iter().flatten();
        if factored {
            runs.extend(spare.next().map(|s| (s, Replay::FactorBlind)));
        }
        if args.scores == Scores::Both && reads_scores {
            runs.extend(spare.next().map(|s| (s, Replay::RanksOnly)));
        }
    }
    let by_time = [window.from, window.until]
        .iter()
        .any(|b| matches!(b, Some(podium_eval::Bound::Time(_))));
    if by_time {
        if let Some(m) = matches.iter().find(|m| m.time().is_none()) {
            anyhow::bail!(
                "match {:?} has no time, so --from/--until cannot be dates; use match numbers",
                m.id()
            );
        }
    }
    // A window that holds no match scores nothing: say so, with the history's range,
    // rather than print a table of dashes.
    let mut in_window = matches
        .iter()
        .enumerate()
        .map(|(i, m)| window.contains(i as u64 + 1, m));
    if !matches.is_empty() && !in_window.any(|inside| inside.unwrap_or(true)) {
        let dates = match (
            matches.first().and_then(podium::Match::time),
            matches.last().and_then(podium::Match::time),
        ) {
            (Some(a), Some(b)) => format!(
                ", dated {} to {}",
                podium_io::format_time(a),
                podium_io::format_time(b)
            ),
            _ => String::new(),
        };
        let numbers = if matches.len() == 1 {
            "the one match is number 1".to_string()
        } else {
            format!("the matches are numbered 1 to {}", matches.len())
        };
        anyhow::bail!(
            "{}{}: no match falls in this window, so none would be scored: {numbers}{dates}, and a window runs from --from up to, not including, --until",
            args.from.as_deref().map(|f| format!("--from {f}")).unwrap_or_default(),
            args.until.as_deref().map(|u| format!("{}--until {u}", if args.from.is_some() { " " } else { "" })).unwrap_or_default(),
        );
    }
    let options = BacktestOptions {
        window,
        log_loss: !args.no_log_loss,
    };
    // The log loss of a large match runs in parallel too, so it can use every core even
    // for one system.
    let items = if options.log_loss {
        usize::MAX
    } else {
        runs.len()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(worker_threads(args.threads, items))
        .build()
        .context("cannot start worker threads")?;
    let bar = crate::evaluation::progress(
        &format!("backtesting {}", count(matches.len() as u64, "match")),
        Some(runs.len() as u64),
    );
    let outcomes: Vec<Outcome> = pool.install(|| {
        runs.into_par_iter()
            .map(|(sys, copy)| {
                let (name, history) = match copy {
                    Replay::AsLoaded => (sys.name().to_string(), &matches),
                    Replay::FactorBlind => (factor_blind_name(sys.name()), &blind),
                    Replay::RanksOnly => (ranks_only_name(sys.name(), &args.input.factors), &ranks),
                };
                let result = backtest(sys, history, &options).map_err(|e| e.to_string());
                bar.inc(1);
                (name, result)
            })
            .collect()
    });
    bar.finish_and_clear();
    if args.format != Format::Table {
        for (name, r) in &outcomes {
            if let Err(why) = r {
                eprintln!("{name}: not applicable: {why}");
            }
        }
    }
    let mut out = io::stdout().lock();
    write(
        &mut out,
        &outcomes,
        args.format,
        matches.len(),
        &args.input.factors,
    )?;
    out.flush()?;
    Ok(())
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// Prints the outcomes in `format`.
///
/// # Errors
/// Output that cannot be written.
pub fn write(
    out: &mut dyn Write,
    outcomes: &[Outcome],
    format: Format,
    matches: usize,
    factors: &[String],
) -> anyhow::Result<()> {
    match format {
        Format::Csv => {
            let mut w = csv::Writer::from_writer(out);
            w.write_record([
                "system",
                "pair_accuracy",
                "log_loss",
                "warm_pairs",
                "seconds",
                "accuracy_se",
            ])?;
            for (name, r) in outcomes {
                if let Ok(r) = r {
                    w.write_record([
                        name.clone(),
                        opt(r.accuracy()),
                        opt(r.log_loss()),
                        r.warm_pairs().to_string(),
                        r.seconds.to_string(),
                        opt(r.accuracy_se()),
                    ])?;
                }
            }
            w.flush()?;
        }
        Format::Json => {
            let rows: Vec<serde_json::Value> = outcomes
                .iter()
                .map(|(name, r)| match r {
                    Ok(r) => serde_json::json!({
                        "system": name,
                        "pair_accuracy": r.accuracy(),
                        "log_loss": r.log_loss(),
                        "warm_pairs": r.warm_pairs(),
                        "concordant": r.pairs.concordant,
                        "tied": r.pairs.tied,
                        "discordant": r.pairs.discordant,
                        "matches_rated": r.matches_rated,
                        "matches_scored": r.matches_scored,
                        "seconds": r.seconds,
                        "accuracy_se": r.accuracy_se(),
                    }),
                    Err(why) => serde_json::json!({"system": name, "not_applicable": why}),
                })
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
        }
        Format::Table => write_table(out, outcomes, matches, factors)?,
    }
    Ok(())
}

/// The table: best pair accuracy first (systems without a figure, then those that cannot
/// rate the history, last), the default system marked, each accuracy with its standard
/// error, and which way each column is better.
fn write_table(
    out: &mut dyn Write,
    outcomes: &[Outcome],
    matches: usize,
    factors: &[String],
) -> anyhow::Result<()> {
    let scored = outcomes
        .iter()
        .find_map(|(_, r)| r.as_ref().ok().map(|r| r.matches_scored))
        .unwrap_or(0);
    let with = if factors.is_empty() {
        String::new()
    } else {
        format!(
            ", each entry with its factors ({}) and factor-blind",
            factors.join(", ")
        )
    };
    writeln!(
        out,
        "Backtest on {} ({scored} scored){with}: predictions before each match, warm pairs only",
        count(matches as u64, "match")
    )?;
    let mut order: Vec<&Outcome> = outcomes.iter().collect();
    // Stable: equal accuracies keep the order the systems were given in.
    order.sort_by(|(_, a), (_, b)| {
        let key = |r: &Result<BacktestResult, String>| match r {
            Ok(r) => r.accuracy().unwrap_or(f64::NEG_INFINITY),
            Err(_) => f64::NAN,
        };
        let (a, b) = (key(a), key(b));
        match (a.is_nan(), b.is_nan()) {
            (false, false) => b.total_cmp(&a),
            (x, y) => x.cmp(&y),
        }
    });
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    t.set_header([
        "system",
        "pair accuracy % ± SE",
        "log loss",
        "warm pairs",
        "seconds",
    ]);
    for (name, r) in order {
        let name = if name == podium::DEFAULT_SYSTEM {
            format!("{name} (default)")
        } else {
            name.clone()
        };
        match r {
            Ok(r) => t.add_row([
                name,
                match (r.accuracy(), r.accuracy_se()) {
                    (Some(a), Some(se)) => format!("{:.2} ± {:.2}", 100.0 * a, 100.0 * se),
                    (Some(a), None) => format!("{:.2}", 100.0 * a),
                    (None, _) => "–".into(),
                },
                r.log_loss()
                    .map(|l| format!("{l:.4}"))
                    .unwrap_or_else(|| "–".into()),
                r.warm_pairs().to_string(),
                format!("{:.2}", r.seconds),
            ]),
            Err(_) => t.add_row([
                name,
                "n/a".into(),
                "n/a".into(),
                String::new(),
                String::new(),
            ]),
        };
    }
    for i in 1..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(out, "{t}")?;
    writeln!(out, "Higher pair accuracy and lower log loss are better.")?;
    writeln!(
        out,
        "± is one standard error with the matches as the units (a ratio estimator: the \
         pairs of one match are not independent)."
    )?;
    for (name, r) in outcomes {
        if let Err(why) = r {
            writeln!(out, "n/a: {name} cannot rate this history ({why})")?;
        }
    }
    Ok(())
}
