//! `podium versus`: head-to-head records ([`podium::versus`]). With two players, their
//! meetings: who finished ahead how often, what the ratings expected at the time, and
//! today's chance. With one, their rivals: nemesis, favourite opponent, most frequent
//! opponents.

use std::io::Write;

use anyhow::{bail, Context};
use podium::versus::{today, HeadToHead, Rivals, Versus};

use crate::ingest::{self, report_skipped, InitialArgs, InputArgs, InputFormatArg, SystemArgs};
use crate::output::Format;

/// Arguments of `podium versus`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Match file: long CSV or JSON Lines (by extension); `-` reads standard input.
    #[arg(value_name = "FILE")]
    file: String,
    /// The player.
    #[arg(value_name = "PLAYER")]
    player: String,
    /// The opponent; without one, the player's rivals.
    #[arg(value_name = "OPPONENT")]
    opponent: Option<String>,
    /// Read the file in this format instead of guessing from the extension.
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormatArg>,
    /// Rate the good matches and list the bad ones, instead of rating nothing.
    #[arg(long)]
    skip_bad: bool,
    /// Read this column or field as a factor of the entry (repeatable; see `podium rate`).
    #[arg(long = "factor", value_name = "COLUMN")]
    factors: Vec<String>,
    #[command(flatten)]
    system: SystemArgs,
    /// Rivals: the fewest meetings an opponent needs to count as nemesis or favourite.
    #[arg(long, default_value_t = 3, value_name = "N")]
    min_meetings: u32,
    /// Rivals: how many of the most frequent opponents to list.
    #[arg(long, default_value_t = 5, value_name = "N")]
    frequent: usize,
    #[command(flatten)]
    initial: InitialArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Replays the history, counting the meetings before each match is rated.
pub fn run(args: Args) -> anyhow::Result<()> {
    let input = InputArgs {
        files: vec![args.file.clone()],
        input_format: args.input_format,
        skip_bad: args.skip_bad,
        factors: args.factors.clone(),
        resumed: None,
        note_ids: false,
    };
    if args.opponent.as_deref() == Some(args.player.as_str()) {
        bail!("a player has no record against themselves: name two different players");
    }
    let mut league = ingest::new_league(&args.system, &args.initial)?;
    input.check_system(league.system())?;
    let loaded = ingest::load(&input)?;
    report_skipped(&loaded.skipped);
    let focus: Vec<&str> = std::iter::once(args.player.as_str())
        .chain(args.opponent.as_deref())
        .collect();
    let mut h2h = HeadToHead::focused(&focus);
    for game in &loaded.matches {
        h2h.observe(&league, game)
            .with_context(|| format!("match {:?}", game.id()))?;
        league
            .apply(game)
            .with_context(|| format!("match {:?}", game.id()))?;
    }
    for p in &focus {
        if league.get(p).is_none() {
            bail!("unknown player {p:?}: not in the history");
        }
    }
    let mut out = std::io::stdout().lock();
    match &args.opponent {
        Some(opponent) => {
            let now = league
                .players()
                .iter()
                .filter_map(|p| p.stats.last_time)
                .max();
            let chance = today(&league, &args.player, opponent, now)?;
            let v = h2h
                .versus(&args.player, opponent)
                .unwrap_or_else(|| Versus::never_met(&args.player, opponent));
            match args.format {
                Format::Table => write_pair(&mut out, league.system().name(), &v, chance)?,
                Format::Csv => write_csv(&mut out, &[("versus", &v)], Some(chance))?,
                Format::Json => {
                    serde_json::to_writer_pretty(
                        &mut out,
                        &serde_json::json!({ "system": league.system().name(), "versus": v, "today": chance }),
                    )?;
                    writeln!(out)?;
                }
            }
        }
        None => {
            let r = h2h.rivals(&args.player, args.min_meetings, args.frequent);
            match args.format {
                Format::Table => {
                    write_rivals(&mut out, league.system().name(), &r, args.min_meetings)?
                }
                Format::Csv => {
                    let mut rows: Vec<(&str, &Versus)> = Vec::new();
                    if let Some(n) = &r.nemesis {
                        rows.push(("nemesis", n));
                    }
                    if let Some(f) = &r.favourite {
                        rows.push(("favourite", f));
                    }
                    rows.extend(r.frequent.iter().map(|v| ("frequent", v)));
                    write_csv(&mut out, &rows, None)?;
                }
                Format::Json => {
                    serde_json::to_writer_pretty(
                        &mut out,
                        &serde_json::json!({ "system": league.system().name(), "rivals": r, "min_meetings": args.min_meetings }),
                    )?;
                    writeln!(out)?;
                }
            }
        }
    }
    out.flush()?;
    Ok(())
}

fn pct(p: f64) -> String {
    format!("{:.1}%", 100.0 * p)
}

fn write_pair(out: &mut dyn Write, system: &str, v: &Versus, chance: f64) -> anyhow::Result<()> {
    writeln!(out, "{} vs {} ({system})", v.player, v.opponent)?;
    writeln!(
        out,
        "  meetings: {} ({} ahead, {} behind, {} tied){}",
        v.meetings,
        v.ahead,
        v.behind,
        v.ties,
        if v.together > 0 {
            format!("; {} more as teammates", v.together)
        } else {
            String::new()
        }
    )?;
    if v.meetings > 0 {
        writeln!(
            out,
            "  {}'s share: {} actual, {} expected by the ratings at the time ({:+.2} meetings beyond expectation)",
            v.player,
            pct(v.actual_share),
            pct(v.expected_share),
            v.surplus
        )?;
    }
    writeln!(
        out,
        "  today: {} to finish ahead of {}",
        pct(chance),
        v.opponent
    )?;
    Ok(())
}

fn line(v: &Versus) -> String {
    format!(
        "{}: {} meetings, {}-{}-{} (ahead-behind-tied), share {} vs {} expected, {:+.2}",
        v.opponent,
        v.meetings,
        v.ahead,
        v.behind,
        v.ties,
        pct(v.actual_share),
        pct(v.expected_share),
        v.surplus
    )
}

fn write_rivals(out: &mut dyn Write, system: &str, r: &Rivals, min: u32) -> anyhow::Result<()> {
    writeln!(
        out,
        "{}'s rivals ({system}, opponents met at least {min} times)",
        r.player
    )?;
    match &r.nemesis {
        Some(v) => writeln!(out, "  nemesis    {}", line(v))?,
        None => writeln!(
            out,
            "  nemesis    none (no opponent beats them beyond expectation)"
        )?,
    }
    match &r.favourite {
        Some(v) => writeln!(out, "  favourite  {}", line(v))?,
        None => writeln!(
            out,
            "  favourite  none (they beat no opponent beyond expectation)"
        )?,
    }
    if r.frequent.is_empty() {
        writeln!(out, "  no opponent met {min} times or more")?;
    } else {
        writeln!(out, "  most met:")?;
        for v in &r.frequent {
            writeln!(out, "    {}", line(v))?;
        }
    }
    Ok(())
}

fn write_csv(
    out: &mut dyn Write,
    rows: &[(&str, &Versus)],
    today: Option<f64>,
) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let mut header = vec![
        "role",
        "player",
        "opponent",
        "meetings",
        "ahead",
        "behind",
        "ties",
        "together",
        "actual_share",
        "expected_share",
        "surplus",
    ];
    if today.is_some() {
        header.push("today");
    }
    w.write_record(&header)?;
    for (role, v) in rows {
        let mut rec = vec![
            (*role).to_string(),
            v.player.clone(),
            v.opponent.clone(),
            v.meetings.to_string(),
            v.ahead.to_string(),
            v.behind.to_string(),
            v.ties.to_string(),
            v.together.to_string(),
            v.actual_share.to_string(),
            v.expected_share.to_string(),
            v.surplus.to_string(),
        ];
        if let Some(t) = today {
            rec.push(t.to_string());
        }
        w.write_record(&rec)?;
    }
    w.flush()?;
    Ok(())
}
