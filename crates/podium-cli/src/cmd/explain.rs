//! `podium explain`: one player's matches, each with why the rating moved, in words.

use std::fmt::Write as _;
use std::io::Write;

use anyhow::bail;
use podium::League;

use crate::ingest::{rate_all, report_skipped, seed_from, InputArgs, SystemArgs};

/// Arguments of `podium explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    system: SystemArgs,
    /// The player to explain.
    #[arg(long, short = 'p')]
    player: String,
    /// Starting ratings: a CSV `player,rating[,games]`.
    #[arg(long, value_name = "FILE")]
    initial: Option<String>,
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Rates the history and tells the player's story.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut league = League::new(args.system.build()?);
    if let Some(path) = &args.initial {
        seed_from(&mut league, path)?;
    }
    let spec = podium::systems()
        .iter()
        .find(|s| s.name == league.system().name())
        .copied();
    let mut text = String::new();
    let mut count = 0usize;
    let skipped = rate_all(&args.input, &mut league, |league, m, report| {
        let Some(me) = m.players().position(|(_, p)| p.player == args.player) else {
            return Ok(());
        };
        count += 1;
        let (entry, _) = m.players().nth(me).expect("player is in the match");
        let (_, c) = report.changes[me];
        let group = m.tie_group(entry);
        let when = m
            .time()
            .map(|t| format!(" on {}", podium_io::format_time(t)))
            .unwrap_or_default();
        let tie = if group.len() > 1 {
            format!(
                ", tied with {} other{}",
                group.len() - 1,
                if group.len() == 2 { "" } else { "s" }
            )
        } else {
            String::new()
        };
        writeln!(
            text,
            "Match {}{when}: finished {} of {}{tie}.",
            m.id(),
            ordinal(m.place(entry)),
            m.len()
        )?;
        let opponents: Vec<String> = m
            .players()
            .zip(&report.changes)
            .filter(|((e, _), _)| *e != entry)
            .map(|((_, p), (_, oc))| format!("{} {:.0}", p.player, oc.before.value))
            .collect();
        writeln!(
            text,
            "  Opponents (rating before): {}",
            opponents.join(", ")
        )?;
        writeln!(
            text,
            "  The system expected a score of {:.3}; you scored {:.3}.",
            c.expected, c.actual
        )?;
        let step = match c.k {
            Some(k) if c.weight < 1.0 => format!(
                "With K = {k:.2} and {:.0}% of the match played: {k:.2} × {:.2} × ({:.3} − {:.3}) = {:+.2}.",
                c.weight * 100.0,
                c.weight,
                c.actual,
                c.expected,
                c.delta()
            ),
            Some(k) => format!("With K = {k:.2}: {k:.2} × ({:.3} − {:.3}) = {:+.2}.", c.actual, c.expected, c.delta()),
            None => format!("The change is {:+.2}.", c.delta()),
        };
        writeln!(text, "  {step}")?;
        let sigma = match (c.before.sigma, c.after.sigma) {
            (Some(a), Some(b)) => format!(" (uncertainty {a:.2} → {b:.2})"),
            _ => String::new(),
        };
        writeln!(
            text,
            "  Rating {:.2} → {:.2}{sigma}; rank now {} of {}.\n",
            c.before.value,
            c.after.value,
            league
                .standings()
                .iter()
                .position(|s| s.player == args.player)
                .map_or(0, |p| p + 1),
            league.players().len()
        )?;
        let _ = league;
        Ok(())
    })?;
    report_skipped(&skipped);
    if count == 0 {
        bail!("player {:?} plays in none of the matches", args.player);
    }
    let mut out = std::io::stdout().lock();
    if let Some(spec) = spec {
        writeln!(out, "{} rates by: {}.", spec.name, spec.summary)?;
    }
    let r = league.get(&args.player).expect("player was rated");
    writeln!(
        out,
        "{} played {} match{}; rating now {:.2}.\n",
        args.player,
        count,
        if count == 1 { "" } else { "es" },
        r.rating.value
    )?;
    out.write_all(text.as_bytes())?;
    Ok(())
}
