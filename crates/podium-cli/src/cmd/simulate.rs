//! `podium simulate`: the experiment of Tom Kerrigan's article "Multiplayer Elo" for any
//! system. Players with known true ratings play round after round; after the chosen rounds, how often do each
//! system's ratings pick the winner of a fresh game? With the `ideal` (true ratings) and
//! `mean-score` (mean observed score) references. `--seat-advantage A` seats the players
//! of every game in a random order, seat 1 playing A true-rating points above its
//! player, and runs every system given the seats and seat-blind, side by side.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::{bail, Context};
use comfy_table::{presets::UTF8_BORDERS_ONLY, CellAlignment, Table};
use podium_eval::simulate::{IDEAL, MAX_PLAYERS, MEAN_SCORE};
use podium_eval::{Curve, Simulation, SimulationReport};

use crate::evaluation::{pct, select_systems, worker_threads};
use crate::output::{count, Format};
use crate::plot::{plot, Series};

/// Arguments of `podium simulate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Systems to simulate: `all` or a comma-separated list (see `podium systems`).
    #[arg(long, default_value = "all", value_name = "LIST")]
    pub systems: String,
    /// Number of players; with `--true LO:HI` they are spread evenly from LO to HI.
    #[arg(long, value_name = "N")]
    pub players: Option<usize>,
    /// True ratings: `LO:HI:STEP`, `LO:HI` (with --players), a list `a,b,c`, or a file of
    /// numbers (one per line; `#` starts a comment).
    #[arg(
        long = "true",
        default_value = "1100:2000:100",
        value_name = "RATINGS|FILE"
    )]
    pub true_ratings: String,
    /// Standard deviation of a game score around the player's true rating.
    #[arg(long, default_value_t = 200.0, allow_negative_numbers = true)]
    pub sd: f64,
    /// Rounds after which predictive ability is measured (0 = before any game); the last
    /// at most 100,000.
    #[arg(
        long,
        default_value = "1,2,3,4,5,10,20,100,1000",
        value_delimiter = ',',
        value_name = "LIST"
    )]
    pub rounds: Vec<u32>,
    /// Independent trials averaged; trials × the last round at most 1,000,000,000 (games
    /// each system rates).
    #[arg(long, default_value_t = 10_000)]
    pub trials: u32,
    /// Seed: the same seed gives the same numbers on any machine and thread count.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (0 = one per core); at most one per core.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Half-width of the uniform jitter on each initial rating (Kerrigan's 1500 ± 1); from
    /// 0 to 1e9, the range of ratings the systems rate.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub jitter: f64,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Also draw the curves into this file (.svg or .png).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Seat the players of every game in a random order (seats 1..N); the player in seat 1
    /// performs this many true-rating points above their true rating. Every system then
    /// runs given the seats (as the factor `seat`) and seat-blind, on the same games.
    #[arg(long, value_name = "POINTS", allow_negative_numbers = true)]
    pub seat_advantage: Option<f64>,
    /// Set a parameter: `system.key=value`, or `key=value` for every selected system.
    #[arg(long = "set", value_name = "[SYSTEM.]KEY=VALUE")]
    pub settings: Vec<String>,
}

/// Parses `--true` (with `--players`) into the list of true ratings.
///
/// # Errors
/// A spec that is neither a range, a list nor a readable file of numbers, or a player
/// count that disagrees with it.
pub fn true_ratings(spec: &str, players: Option<usize>) -> anyhow::Result<Vec<f64>> {
    let num = |t: &str| -> anyhow::Result<f64> {
        t.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .with_context(|| {
                format!(
                    "--true {spec:?}: {:?} is not valid: expected a finite number",
                    t.trim()
                )
            })
    };
    // Refused before a list of that many is made.
    let too_many =
        |what: String| anyhow::anyhow!("{what}; a simulation takes at most {MAX_PLAYERS} players");
    if let Some(n) = players.filter(|&n| n > MAX_PLAYERS) {
        return Err(too_many(format!("--players {n}")));
    }
    let looks_numeric = spec
        .chars()
        .all(|c| c.is_ascii_digit() || "+-.:,eE ".contains(c));
    // A range or a list unless a file of that name exists: `1400,nan` is a list with a
    // bad value, not a file that cannot be read.
    let as_spec = looks_numeric || !std::path::Path::new(spec).exists();
    let list: Vec<f64> = if as_spec && spec.contains(':') {
        let parts: Vec<&str> = spec.split(':').collect();
        let (lo, hi) = (num(parts[0])?, num(parts.get(1).copied().unwrap_or(""))?);
        if hi < lo {
            bail!("--true {spec:?}: expected LO ≤ HI");
        }
        match (parts.len(), players) {
            (2, Some(n)) if n >= 2 => (0..n)
                .map(|i| lo + (hi - lo) * i as f64 / (n - 1) as f64)
                .collect(),
            (2, _) => bail!("--true {spec:?}: LO:HI needs --players N (N ≥ 2), or use LO:HI:STEP"),
            (3, _) => {
                let step = num(parts[2])?;
                if step <= 0.0 {
                    bail!("--true {spec:?}: the step must be > 0");
                }
                let n = ((hi - lo) / step + 1e-9).floor();
                if n + 1.0 > MAX_PLAYERS as f64 {
                    return Err(too_many(format!(
                        "--true {spec:?} gives {:.0} true ratings",
                        n + 1.0
                    )));
                }
                (0..=n as usize).map(|i| lo + step * i as f64).collect()
            }
            _ => bail!("--true {spec:?}: expected LO:HI:STEP or LO:HI"),
        }
    } else if as_spec && spec.contains(',') {
        spec.split(',').map(num).collect::<anyhow::Result<_>>()?
    } else {
        let text = std::fs::read_to_string(spec).with_context(|| {
            format!(
                "--true {spec:?}: expected LO:HI:STEP, LO:HI (with --players), a list a,b,c \
                 or a readable file of numbers"
            )
        })?;
        let mut v = Vec::new();
        // A byte-order mark is skipped, as in every file podium reads.
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            for field in line
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|f| !f.is_empty())
            {
                match field.parse::<f64>() {
                    Ok(x) if x.is_finite() => v.push(x),
                    _ => bail!(
                        "{spec}:{}: {field:?} is not a number (expected one true rating per line)",
                        i + 1
                    ),
                }
            }
        }
        v
    };
    if list.len() > MAX_PLAYERS {
        return Err(too_many(format!(
            "--true {spec:?} gives {} true ratings",
            list.len()
        )));
    }
    if let Some(n) = players {
        if n != list.len() {
            bail!(
                "--players {n} but --true {spec:?} gives {} true ratings",
                list.len()
            );
        }
    }
    if list.len() < 2 {
        bail!(
            "--true {spec:?} gives {}; a simulation needs at least 2 players",
            count(list.len() as u64, "true rating")
        );
    }
    Ok(list)
}

/// Runs `podium simulate`.
///
/// # Errors
/// Bad arguments, or output that cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(path) = &args.plot {
        // `--true` may name a file of true ratings, which the chart must not replace.
        crate::plot::check(path, &[&args.true_ratings])?;
    }
    let systems = select_systems(&args.systems, &args.settings)?;
    let truth = true_ratings(&args.true_ratings, args.players)?;
    let sim = Simulation {
        true_ratings: truth,
        sd: args.sd,
        rounds: args.rounds.clone(),
        trials: args.trials,
        seed: args.seed,
        jitter: args.jitter,
        // At most one per core here; at most one per block of trials in the simulation.
        threads: worker_threads(args.threads, usize::MAX),
        seat_advantage: args.seat_advantage,
    };
    let refs: Vec<&dyn podium::RatingSystem> = systems.iter().map(|s| &**s).collect();
    let bar = crate::evaluation::progress(
        &format!(
            "simulating {}, {} of {}",
            count(refs.len() as u64, "system"),
            count(u64::from(sim.trials), "trial"),
            count(
                u64::from(sim.rounds.iter().max().copied().unwrap_or(0)),
                "round"
            )
        ),
        None,
    );
    let report = sim.run(&refs);
    bar.finish_and_clear();
    let report = report?;
    if args.format != Format::Table {
        for c in report.systems.iter().chain(&report.seat_blind) {
            if let Err(why) = &c.values {
                eprintln!("{}: not applicable: {why}", c.system);
            }
        }
    }
    let mut out = io::stdout().lock();
    match args.format {
        Format::Csv => write_csv(&mut out, &report, &sim)?,
        Format::Json => write_json(&mut out, &report, &sim)?,
        Format::Table => write_table(&mut out, &report, &sim)?,
    }
    out.flush()?;
    if let Some(path) = &args.plot {
        let title = format!(
            "Predictive ability: {}, sd {}, {}",
            count(sim.true_ratings.len() as u64, "player"),
            sim.sd,
            count(u64::from(sim.trials), "trial")
        );
        plot(path, &title, &series(&report))?;
    }
    Ok(())
}

/// The curves to draw: one per applicable system, then the two dashed references.
fn series(r: &SimulationReport) -> Vec<Series> {
    let rounds: Vec<f64> = r.rounds.iter().map(|&x| f64::from(x)).collect();
    let mut v: Vec<Series> = r
        .named_curves()
        .filter_map(|(name, c)| {
            c.values.as_ref().ok().map(|vals| Series {
                name,
                points: rounds.iter().copied().zip(vals.iter().copied()).collect(),
                dashed: false,
            })
        })
        .collect();
    v.push(Series {
        name: MEAN_SCORE.into(),
        points: rounds
            .iter()
            .copied()
            .zip(r.mean_score.iter().copied())
            .collect(),
        dashed: true,
    });
    v.push(Series {
        name: IDEAL.into(),
        points: rounds.iter().map(|&x| (x, r.ideal)).collect(),
        dashed: true,
    });
    v
}

/// Every (system, values) row including the references, applicable systems only.
fn rows(r: &SimulationReport) -> Vec<(String, Vec<f64>)> {
    let mut v: Vec<(String, Vec<f64>)> = r
        .named_curves()
        .filter_map(|(name, c)| c.values.as_ref().ok().map(|x| (name, x.clone())))
        .collect();
    v.push((MEAN_SCORE.into(), r.mean_score.clone()));
    v.push((IDEAL.into(), vec![r.ideal; r.rounds.len()]));
    v
}

fn write_csv(out: &mut dyn Write, r: &SimulationReport, sim: &Simulation) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    if sim.seat_advantage.is_none() {
        w.write_record(["system", "round", "predictive_ability"])?;
        for (name, values) in rows(r) {
            for (round, v) in r.rounds.iter().zip(values) {
                w.write_record([name.clone(), round.to_string(), v.to_string()])?;
            }
        }
    } else {
        // With seats: the learned advantage of seat 1 beside each system given them.
        w.write_record([
            "system",
            "round",
            "predictive_ability",
            "seat_advantage",
            "seat_advantage_sd",
            "seat_rating",
        ])?;
        let learned: Vec<Option<&podium_eval::SeatLearned>> = r
            .named_curves()
            .filter(|(_, c)| c.values.is_ok())
            .map(|(_, c)| c.seat.as_ref())
            .collect();
        for (k, (name, values)) in rows(r).into_iter().enumerate() {
            let seat = learned.get(k).copied().flatten();
            for (i, (round, v)) in r.rounds.iter().zip(values).enumerate() {
                let col = |f: fn(&podium_eval::SeatLearned) -> &Vec<f64>| {
                    seat.map(|s| f(s)[i].to_string()).unwrap_or_default()
                };
                w.write_record([
                    name.clone(),
                    round.to_string(),
                    v.to_string(),
                    col(|s| &s.advantage),
                    col(|s| &s.advantage_sd),
                    col(|s| &s.rating),
                ])?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

fn write_json(out: &mut dyn Write, r: &SimulationReport, sim: &Simulation) -> anyhow::Result<()> {
    let results: Vec<serde_json::Value> = rows(r)
        .into_iter()
        .flat_map(|(name, values)| {
            r.rounds
                .iter()
                .zip(values)
                .map(move |(round, v)| {
                    serde_json::json!({"system": name, "round": round, "predictive_ability": v})
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let na: Vec<serde_json::Value> = r
        .named_curves()
        .filter_map(|(name, c)| {
            c.values
                .as_ref()
                .err()
                .map(|why| serde_json::json!({"system": name, "reason": why}))
        })
        .collect();
    let seats: Vec<serde_json::Value> = r
        .systems
        .iter()
        .filter_map(|c| {
            c.seat.as_ref().map(|s| {
                serde_json::json!({
                    "system": c.system,
                    "rounds": r.rounds,
                    "advantage": s.advantage,
                    "advantage_sd": s.advantage_sd,
                    "rating": s.rating,
                    "scale": s.scale,
                })
            })
        })
        .collect();
    let mut doc = serde_json::json!({
        "players": sim.true_ratings.len(),
        "true_ratings": sim.true_ratings,
        "sd": sim.sd,
        "trials": sim.trials,
        "seed": sim.seed,
        "rounds": r.rounds,
        "results": results,
        "not_applicable": na,
    });
    if let Some(a) = sim.seat_advantage {
        doc["seat_advantage"] = serde_json::json!(a);
        doc["learned_seat_advantage"] = serde_json::Value::Array(seats);
    }
    writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    Ok(())
}

fn write_table(out: &mut dyn Write, r: &SimulationReport, sim: &Simulation) -> anyhow::Result<()> {
    writeln!(
        out,
        "Predictive ability (%) of {}, game scores ~ Normal(true rating, {}), {}, seed {}",
        count(sim.true_ratings.len() as u64, "player"),
        sim.sd,
        count(u64::from(sim.trials), "trial"),
        sim.seed
    )?;
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    if let Some(a) = sim.seat_advantage {
        writeln!(
            out,
            "Seats in a random order each game; seat 1 plays {a} true-rating points above its player"
        )?;
    }
    // One row per system and one column per round: as many systems as there are, in
    // rows that fit a terminal 100 columns wide (the rounds are few).
    let named: Vec<(String, &Curve)> = r.named_curves().collect();
    let mut header = vec!["system \\ round".to_string()];
    header.extend(r.rounds.iter().map(u32::to_string));
    t.set_header(header);
    for (name, c) in &named {
        let mut row = vec![name.clone()];
        match &c.values {
            Ok(v) => row.extend(v.iter().map(|&x| pct(x))),
            Err(_) => row.extend(r.rounds.iter().map(|_| "n/a".to_string())),
        }
        t.add_row(row);
    }
    let mut row = vec![MEAN_SCORE.to_string()];
    row.extend(r.mean_score.iter().map(|&x| pct(x)));
    t.add_row(row);
    let mut row = vec![IDEAL.to_string()];
    row.extend(r.rounds.iter().map(|_| pct(r.ideal)));
    t.add_row(row);
    for i in 1..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(out, "{t}")?;
    for (name, c) in &named {
        if let Err(why) = &c.values {
            writeln!(out, "n/a: {name} cannot rate these games ({why})")?;
        }
    }
    if let Some(a) = sim.seat_advantage {
        write_seat_table(out, r, a)?;
    }
    Ok(())
}

/// The advantage of seat 1 each system given the seats learned, per checkpoint.
fn write_seat_table(out: &mut dyn Write, r: &SimulationReport, planted: f64) -> anyhow::Result<()> {
    let learned: Vec<(&str, &podium_eval::SeatLearned)> = r
        .systems
        .iter()
        .filter_map(|c| c.seat.as_ref().map(|s| (c.system.as_str(), s)))
        .collect();
    if learned.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "Learned advantage of seat 1 over the other seats, in true-rating points (planted {planted}): \
         mean over trials ± one trial's standard deviation"
    )?;
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    let mut header = vec!["round".to_string()];
    header.extend(learned.iter().map(|(name, _)| (*name).to_string()));
    t.set_header(header);
    for (i, round) in r.rounds.iter().enumerate() {
        let mut row = vec![round.to_string()];
        for (_, s) in &learned {
            row.push(if s.advantage[i].is_finite() {
                format!("{:.1} ± {:.1}", s.advantage[i], s.advantage_sd[i])
            } else {
                "–".into()
            });
        }
        t.add_row(row);
    }
    for i in 0..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(out, "{t}")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn true_rating_specs() {
        assert_eq!(
            true_ratings("1100:2000:100", None).unwrap(),
            (0..10)
                .map(|i| 1100.0 + 100.0 * f64::from(i))
                .collect::<Vec<_>>()
        );
        assert_eq!(true_ratings("0:10", Some(3)).unwrap(), vec![0.0, 5.0, 10.0]);
        assert_eq!(true_ratings("1,2.5", None).unwrap(), vec![1.0, 2.5]);
        assert!(true_ratings("1100:2000:100", Some(5)).is_err());
        assert!(true_ratings("0:10", None).is_err());
        assert!(true_ratings("5", None).is_err());
        assert!(true_ratings("2000:1100:100", None).is_err());
        assert!(true_ratings("/no/such/file", None).is_err());
    }

    #[test]
    fn more_players_than_the_limit_are_refused_before_the_list_is_made() {
        let e = |spec: &str, players| format!("{:#}", true_ratings(spec, players).unwrap_err());
        assert_eq!(
            e("1:100000", Some(50_000)),
            "--players 50000; a simulation takes at most 1000 players"
        );
        assert_eq!(
            e("1:100000", Some(usize::MAX)),
            format!(
                "--players {}; a simulation takes at most 1000 players",
                usize::MAX
            )
        );
        assert_eq!(
            e("0:1e15:1", None),
            "--true \"0:1e15:1\" gives 1000000000000001 true ratings; a simulation takes at most 1000 players"
        );
        assert_eq!(
            e("0:1000:1", None),
            "--true \"0:1000:1\" gives 1001 true ratings; a simulation takes at most 1000 players"
        );
        assert_eq!(true_ratings("0:999:1", None).unwrap().len(), 1_000);
        assert_eq!(true_ratings("0:1", Some(1_000)).unwrap().len(), 1_000);
        let list = vec!["1"; 1_001].join(",");
        assert_eq!(
            e(&list, None),
            format!(
                "--true {list:?} gives 1001 true ratings; a simulation takes at most 1000 players"
            )
        );
    }

    #[test]
    fn regression_a_bad_value_in_a_list_or_range_is_named() {
        for (spec, bad) in [
            ("1400,nan", "nan"),
            ("a,b", "a"),
            ("1400, inf", "inf"),
            ("1100:x:100", "x"),
        ] {
            let e = format!("{:#}", true_ratings(spec, None).unwrap_err());
            assert_eq!(
                e,
                format!("--true {spec:?}: {bad:?} is not valid: expected a finite number")
            );
        }
        // A file of true ratings that starts with a byte-order mark.
        let dir = std::env::temp_dir().join(format!("podium-true-bom-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("true.txt");
        std::fs::write(&file, "\u{feff}1400\n1500 # mid\n1600\n").unwrap();
        assert_eq!(
            true_ratings(file.to_str().unwrap(), None).unwrap(),
            vec![1400.0, 1500.0, 1600.0]
        );
        std::fs::remove_dir_all(&dir).unwrap();
        let e = format!("{:#}", true_ratings("nosuch", None).unwrap_err());
        assert!(
            e.starts_with("--true \"nosuch\": expected LO:HI:STEP, LO:HI (with --players), a list a,b,c or a readable file of numbers: "),
            "{e}"
        );
    }
}
