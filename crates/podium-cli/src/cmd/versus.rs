//! `podium versus`: head-to-head records ([`podium::versus`]) over the history of one
//! or more match files, read as `podium rate` reads them. With two players, their
//! meetings: who finished ahead how often, what the ratings expected at the time, and
//! today's chance. With one, their rivals: nemesis, favourite opponent, most frequent
//! opponents.

use std::io::Write;

use anyhow::{bail, Context};
use podium::versus::{today, HeadToHead, Rivals, Versus};

use super::rate::whole;
use crate::ingest::{self, report_skipped, InitialArgs, InputArgs, SystemArgs};
use crate::output::{count, Format};

/// Arguments of `podium versus`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The player and the opponent go after one file as well: podium versus games.csv Kate Sam (as podium versus games.csv --player Kate --opponent Sam)."
)]
pub struct Args {
    #[command(flatten)]
    input: InputArgs,
    /// The player (with several files, or instead of naming them after the file).
    #[arg(long, short = 'p', value_name = "PLAYER")]
    player: Option<String>,
    /// The opponent; without one, the player's rivals.
    #[arg(long, short = 'o', value_name = "OPPONENT", requires = "player")]
    opponent: Option<String>,
    #[command(flatten)]
    system: SystemArgs,
    /// Rivals: the fewest meetings an opponent needs to be listed at all, as nemesis,
    /// favourite or among the most met.
    #[arg(
        long,
        default_value_t = 3,
        value_name = "N",
        value_parser = whole::<u32>,
        allow_negative_numbers = true
    )]
    min_meetings: u32,
    /// Rivals: how many of the most frequent opponents to list.
    #[arg(
        long,
        default_value_t = 5,
        value_name = "N",
        value_parser = whole::<usize>,
        allow_negative_numbers = true
    )]
    frequent: usize,
    #[command(flatten)]
    initial: InitialArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// The files, the player and the opponent: from `--player` and `--opponent`, every
/// positional value a file; else `FILE PLAYER [OPPONENT]`.
fn who(
    input: &mut InputArgs,
    player: Option<String>,
    opponent: Option<String>,
) -> anyhow::Result<(String, Option<String>)> {
    if let Some(player) = player {
        return Ok((player, opponent));
    }
    match input.files.len() {
        2 | 3 => {
            let mut rest = input.files.split_off(1).into_iter();
            let player = rest.next().expect("two or three values");
            Ok((player, rest.next()))
        }
        1 => bail!(
            "name the player: podium versus {} PLAYER [OPPONENT], or --player PLAYER [--opponent OPPONENT]",
            input.files[0]
        ),
        _ => bail!(
            "{} files: name the player with --player PLAYER [--opponent OPPONENT] (FILE PLAYER [OPPONENT] reads one file)",
            input.files.len()
        ),
    }
}

/// Replays the history, counting the meetings before each match is rated.
pub fn run(args: Args) -> anyhow::Result<()> {
    let Args {
        mut input,
        player,
        opponent,
        ..
    } = args;
    let (player, opponent) = who(&mut input, player, opponent)?;
    if opponent.as_deref() == Some(player.as_str()) {
        bail!("a player has no record against themselves: name two different players");
    }
    let mut league = ingest::new_league(&args.system, &args.initial)?;
    input.check_system(league.system())?;
    let focus: Vec<&str> = std::iter::once(player.as_str())
        .chain(opponent.as_deref())
        .collect();
    let mut h2h = HeadToHead::focused(&focus);
    // The meetings are counted with the league as it stood before each match: a second
    // league, rated one match behind the first (as `podium explain` does).
    let mut behind = ingest::new_league(&args.system, &args.initial)?;
    let read = ingest::rate_each(&input, &mut league, |_, game, _| {
        h2h.observe(&behind, game)
            .with_context(|| format!("match {:?}", game.id()))?;
        behind
            .apply(game)
            .with_context(|| format!("match {:?}", game.id()))?;
        Ok(())
    })?;
    report_skipped(&read.skipped);
    for p in &focus {
        if league.get(p).is_none() {
            // `podium versus a.csv b.csv Kate` reads b.csv as the player; else the name
            // as `podium explain` hints at it: in other case, or the names holding it.
            let hint = if std::path::Path::new(p).is_file() {
                format!(" ({p} is a file: with several files, name the players with --player and --opponent)")
            } else {
                super::explain::suggest(&league, p)
            };
            bail!("unknown player {p:?}: not in the history{hint}");
        }
    }
    let mut out = std::io::stdout().lock();
    match &opponent {
        Some(opponent) => {
            let now = league
                .players()
                .iter()
                .filter_map(|p| p.stats.last_time)
                .max();
            let chance = today(&league, &player, opponent, now)?;
            let v = h2h
                .versus(&player, opponent)
                .unwrap_or_else(|| Versus::never_met(&player, opponent));
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
            let r = h2h.rivals(&player, args.min_meetings, args.frequent);
            match args.format {
                Format::Table => {
                    // An opponent met once is the fewest there is.
                    let min = args.min_meetings.max(1);
                    let met = h2h
                        .opponents(&player)
                        .iter()
                        .filter(|v| v.meetings >= min)
                        .count();
                    write_rivals(&mut out, league.system().name(), &r, min, met)?
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
        "{}: {}, {}-{}-{} (ahead-behind-tied), share {} vs {} expected, {:+.2}",
        v.opponent,
        count(u64::from(v.meetings), "meeting"),
        v.ahead,
        v.behind,
        v.ties,
        pct(v.actual_share),
        pct(v.expected_share),
        v.surplus
    )
}

/// The rivals' table: `met` opponents were met at least `min` times.
fn write_rivals(
    out: &mut dyn Write,
    system: &str,
    r: &Rivals,
    min: u32,
    met: usize,
) -> anyhow::Result<()> {
    let times = count(u64::from(min), "time");
    writeln!(
        out,
        "{}'s rivals ({system}, opponents met at least {times})",
        r.player,
    )?;
    if met == 0 {
        // No nemesis, favourite or most met opponent, for the one reason.
        writeln!(out, "  no opponent met {times} or more")?;
        return Ok(());
    }
    // Those met often enough did no better (worse) than the ratings expected.
    let none = |beyond: &str| {
        format!("none (no opponent met {times} or more {beyond} more often than expected)")
    };
    match &r.nemesis {
        Some(v) => writeln!(out, "  nemesis    {}", line(v))?,
        None => writeln!(out, "  nemesis    {}", none("finished ahead"))?,
    }
    match &r.favourite {
        Some(v) => writeln!(out, "  favourite  {}", line(v))?,
        None => writeln!(out, "  favourite  {}", none("was beaten"))?,
    }
    if r.frequent.is_empty() {
        writeln!(
            out,
            "  most met: none listed (--frequent 0; {} met {times} or more)",
            count(met as u64, "opponent")
        )?;
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
