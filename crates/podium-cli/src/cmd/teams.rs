//! `podium teams`: rate a history, then split the players present into the fairest teams
//! (or free-for-all tables) by the system's own predictions ([`podium::balance`]).
//!
//! `--teams 3` makes three teams as even in size as possible, `--sizes 4,3,3` sets them;
//! `--tables 4` seats the players at free-for-all tables of at most 4 instead.
//! `--apart a,b` keeps players on different teams, `--together c,d` on one, `--fix a=1`
//! puts a player on team (or table) 1; `--top 3` shows the next-best splits too.

use std::collections::HashSet;
use std::io::Write;

use anyhow::{bail, Context};
use podium::balance::{balance, Balance, BalanceConfig, BalanceError, Format as Split};

use super::rate::{at_least, whole};
use crate::ingest::{self, report_skipped, InitialArgs, InputArgs, SystemArgs};
use crate::output::{count, Format};

/// Arguments of `podium teams`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    system: SystemArgs,
    /// The players present, separated by commas.
    #[arg(long, required = true, value_name = "A,B[,...]")]
    players: String,
    /// Number of teams (one match of every team), as even in size as possible unless
    /// `--sizes` says otherwise.
    #[arg(
        long,
        value_name = "K",
        conflicts_with = "tables",
        value_parser = |s: &str| at_least::<usize>(s, 2, "at least 2 teams"),
        allow_negative_numbers = true
    )]
    teams: Option<usize>,
    /// The size of each team, separated by commas (they must add up to the players).
    #[arg(
        long,
        value_name = "N,N[,...]",
        conflicts_with = "tables",
        allow_hyphen_values = true
    )]
    sizes: Option<String>,
    /// Seat the players at free-for-all tables of at most this many, as few tables as
    /// that allows and as even as possible.
    #[arg(
        long,
        value_name = "SEATS",
        value_parser = |s: &str| at_least::<usize>(s, 2, "at least 2 seats"),
        allow_negative_numbers = true
    )]
    tables: Option<usize>,
    /// Players to keep on different teams, separated by commas (repeatable).
    #[arg(long, value_name = "A,B[,...]")]
    apart: Vec<String>,
    /// Players to keep on one team, separated by commas (repeatable).
    #[arg(long, value_name = "A,B[,...]")]
    together: Vec<String>,
    /// Put a player on a team (or table), numbered from 1 (repeatable).
    #[arg(long, value_name = "PLAYER=TEAM")]
    fix: Vec<String>,
    /// Players of --players who are not in the history yet (tonight is their first
    /// game), separated by commas: balanced at the rating the system gives a newcomer.
    /// Any other name the history lacks is refused, so a misspelling is not taken for a
    /// new player.
    #[arg(long = "new", value_name = "A,B[,...]")]
    newcomers: Vec<String>,
    /// Show this many splits, the fairest first.
    #[arg(
        long,
        default_value_t = 1,
        value_name = "N",
        value_parser = |s: &str| at_least::<usize>(s, 1, "at least 1 split to show"),
        allow_negative_numbers = true
    )]
    top: usize,
    /// Random starts of the search used when there are too many splits to try them all.
    #[arg(
        long,
        default_value_t = BalanceConfig::default().restarts,
        value_name = "N",
        value_parser = |s: &str| at_least::<usize>(s, 1, "at least 1 random start"),
        allow_negative_numbers = true
    )]
    restarts: usize,
    /// Seed of the search's starts.
    #[arg(
        long,
        default_value_t = 0,
        value_parser = whole::<u64>,
        allow_negative_numbers = true
    )]
    seed: u64,
    #[command(flatten)]
    initial: InitialArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

fn names(option: &str, spec: &str) -> anyhow::Result<Vec<String>> {
    let out: Vec<String> = spec.split(',').map(|p| p.trim().to_string()).collect();
    if out.iter().any(String::is_empty) {
        bail!("{option} {spec:?}: an empty player name; expected names separated by ','");
    }
    Ok(out)
}

/// A group of `--apart` or `--together` (`option`), as typed (`spec`): two players or
/// more, each named once.
fn group(option: &str, spec: &str) -> anyhow::Result<Vec<String>> {
    let out = names(option, spec)?;
    if out.len() < 2 {
        bail!("{option} {spec}: a group names two players or more");
    }
    let mut seen = HashSet::new();
    if let Some(p) = out.iter().find(|p| !seen.insert(p.as_str())) {
        bail!("{option} {spec}: {p:?} is named twice; name each player of a group once");
    }
    Ok(out)
}

/// One `--fix PLAYER=TEAM` as typed: the player and the team, 0-based.
fn fixed(spec: &str) -> anyhow::Result<(String, usize)> {
    let Some((p, t)) = spec.split_once('=') else {
        bail!("--fix {spec}: expected PLAYER=TEAM, e.g. --fix ann=1");
    };
    let t = t.trim();
    let team = t
        .parse::<usize>()
        .ok()
        .filter(|&t| t >= 1)
        .with_context(|| {
            format!("--fix {spec}: {t:?} is not a team, expected a whole number from 1")
        })?;
    Ok((p.trim().to_string(), team - 1))
}

/// `--sizes` as typed: a whole number for each team.
fn sizes(spec: &str) -> anyhow::Result<Vec<usize>> {
    spec.split(',')
        .map(|x| {
            let x = x.trim();
            x.parse::<usize>().ok().with_context(|| {
                format!("--sizes {spec}: {x:?} is not a team size, expected a whole number")
            })
        })
        .collect()
}

/// Rates the history and prints the proposed splits.
pub fn run(args: Args) -> anyhow::Result<()> {
    let players = names("--players", &args.players)?;
    let mut seen = HashSet::new();
    if let Some(p) = players.iter().find(|p| !seen.insert(p.as_str())) {
        bail!("--players: player {p:?} appears more than once");
    }
    let format = match (args.tables, args.teams, &args.sizes) {
        (Some(seats), _, _) => Split::Tables { seats },
        (None, teams, spec) => {
            let sizes = match spec {
                Some(s) => sizes(s)?,
                None => Vec::new(),
            };
            let teams = match teams {
                Some(k) => k,
                None if !sizes.is_empty() => sizes.len(),
                None => bail!("say how to split: --teams K, --sizes N,N,... or --tables SEATS"),
            };
            Split::Teams { teams, sizes }
        }
    };
    let fixed = args
        .fix
        .iter()
        .map(|f| fixed(f))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let config = BalanceConfig {
        apart: args
            .apart
            .iter()
            .map(|s| group("--apart", s))
            .collect::<anyhow::Result<_>>()?,
        together: args
            .together
            .iter()
            .map(|s| group("--together", s))
            .collect::<anyhow::Result<_>>()?,
        fixed,
        newcomers: args
            .newcomers
            .iter()
            .map(|s| names("--new", s))
            .collect::<anyhow::Result<Vec<_>>>()?
            .concat(),
        top: args.top,
        restarts: args.restarts,
        seed: args.seed,
        ..BalanceConfig::default()
    };
    let mut league = ingest::new_league(&args.system, &args.initial)?;
    args.input.check_system(league.system())?;
    let skipped = ingest::rate(&args.input, &mut league)?.skipped;
    report_skipped(&skipped);
    // Ratings with σ are aged to the history's last match, as `podium predict` does.
    let time = league
        .players()
        .iter()
        .filter_map(|p| p.stats.last_time)
        .max();
    let config = BalanceConfig { time, ..config };
    let found = balance(&league, &players, &format, &config).map_err(|e| match e {
        BalanceError::UnknownPlayer { player } => {
            // A name that differs from a player of the history only in case is a
            // misspelling, not a newcomer.
            let lower = player.to_lowercase();
            match league.players().iter().find(|p| p.name.to_lowercase() == lower) {
                Some(p) => anyhow::anyhow!(
                    "unknown player {player:?}: not in the history; did you mean {:?}?",
                    p.name
                ),
                None => anyhow::anyhow!(
                    "unknown player {player:?}: not in the history (if tonight is their first game, add --new {player})"
                ),
            }
        }
        // --new names players of a first game: one the history rated, or one not
        // playing tonight, is a mistake the library refuses.
        BalanceError::NotNew { player: n, games } => anyhow::anyhow!(
            "--new {n}: {n:?} is in the history ({games} games), so not new; leave them out of --new"
        ),
        BalanceError::NotPresent {
            option: "newcomers",
            player: n,
        } => anyhow::anyhow!("--new {n}: {n:?} is not among --players"),
        e => option_error(&args, &format, e),
    })?;
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Table => write_text(&mut out, league.system().name(), &format, &found)?,
        Format::Csv => write_csv(&mut out, &found)?,
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &found)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(())
}

/// An error of the library about the options, said with the option as typed.
fn option_error(args: &Args, format: &Split, e: BalanceError) -> anyhow::Error {
    // The option's values as typed, by the library's name for it.
    let typed = |option: &str| -> (&str, &[String]) {
        match option {
            "apart" => ("--apart", &args.apart),
            "together" => ("--together", &args.together),
            _ => ("--fix", &args.fix),
        }
    };
    match e {
        BalanceError::GroupTooSmall { option, group, .. } => {
            let (flag, values) = typed(option);
            match values.get(group) {
                Some(spec) => anyhow::anyhow!("{flag} {spec}: a group names two players or more"),
                None => anyhow::anyhow!("{flag}: a group names two players or more"),
            }
        }
        BalanceError::NotPresent { option, player } => {
            let (flag, values) = typed(option);
            let names_them = |spec: &&String| match flag {
                "--fix" => fixed(spec).is_ok_and(|(p, _)| p == player),
                _ => spec.split(',').any(|p| p.trim() == player),
            };
            match values.iter().find(names_them) {
                Some(spec) => anyhow::anyhow!("{flag} {spec}: {player:?} is not among --players"),
                None => anyhow::anyhow!("{flag}: {player:?} is not among --players"),
            }
        }
        BalanceError::NoSuchTeam {
            player,
            team,
            teams,
        } => {
            let noun = if matches!(format, Split::Tables { .. }) {
                "table"
            } else {
                "team"
            };
            let spec = args
                .fix
                .iter()
                .find(|f| fixed(f).is_ok_and(|(p, t)| p == player && t + 1 == team))
                .map_or_else(|| format!("{player}={team}"), Clone::clone);
            anyhow::anyhow!(
                "--fix {spec}: {noun} {team}, but there {} {}",
                if teams == 1 { "is" } else { "are" },
                count(teams as u64, noun)
            )
        }
        e => anyhow::anyhow!("{e}"),
    }
}

fn write_text(
    out: &mut dyn Write,
    system: &str,
    format: &Split,
    b: &Balance,
) -> anyhow::Result<()> {
    let tables = matches!(format, Split::Tables { .. });
    writeln!(
        out,
        "{system}: {} ({} split{} examined{})",
        if b.exact {
            "the fairest of all splits"
        } else {
            "the fairest split found by the search"
        },
        b.examined,
        if b.examined == 1 { "" } else { "s" },
        if b.exact { "" } else { ", not every split" }
    )?;
    for (n, s) in b.splits.iter().enumerate() {
        writeln!(out)?;
        writeln!(
            out,
            "{}unevenness {:.4}",
            if b.splits.len() > 1 {
                format!("#{} ", n + 1)
            } else {
                String::new()
            },
            s.unevenness
        )?;
        for (t, g) in s.groups.iter().enumerate() {
            if tables {
                let who: Vec<String> = g
                    .players
                    .iter()
                    .zip(&g.player_win)
                    .map(|(p, w)| format!("{p} {:.1}%", 100.0 * w))
                    .collect();
                writeln!(out, "  table {}: {}", t + 1, who.join(", "))?;
            } else {
                writeln!(
                    out,
                    "  team {} ({:.1}% to win): {}",
                    t + 1,
                    100.0 * g.win.unwrap_or_default(),
                    g.players.join(", ")
                )?;
            }
        }
    }
    Ok(())
}

fn write_csv(out: &mut dyn Write, b: &Balance) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(["split", "unevenness", "group", "player", "win_probability"])?;
    for (n, s) in b.splits.iter().enumerate() {
        for (t, g) in s.groups.iter().enumerate() {
            for (i, p) in g.players.iter().enumerate() {
                let win = g
                    .win
                    .or_else(|| g.player_win.get(i).copied())
                    .unwrap_or_default();
                w.write_record([
                    (n + 1).to_string(),
                    s.unevenness.to_string(),
                    (t + 1).to_string(),
                    p.clone(),
                    win.to_string(),
                ])?;
            }
        }
    }
    w.flush()?;
    Ok(())
}
