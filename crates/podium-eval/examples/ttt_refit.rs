//! Does hindsight pay forward? TrueSkill Through Time backtested with the past smoothed
//! again every `K` matches.
//!
//! ```sh
//! cargo run --release -p podium-eval --example ttt_refit -- FILE K [GAMMA] [P_DRAW]
//! ```
//!
//! Every match of `FILE` (a match file as `podium rate` reads it) is predicted from the
//! earlier ones only, as in `podium backtest`: each *warm pair* (two players of different
//! entries at different places, who have both played before) is right when the one with
//! the higher mean finishes ahead (½ for equal means), counted by the backtest's own
//! [`podium_eval::count_pairs`]. Before match `K`, `2K`, … every
//! earlier match is smoothed whole ([`podium::history::History::converge`]) and each
//! player's last smoothed belief replaces their filtered one; between refits the
//! matches are rated forward by the `ttt` system (σ² grown by its `age` over the idle
//! days, or matches without times, the smoother's clock). A `K` larger than the file
//! never refits: on a history with times that is `podium backtest FILE --systems ttt`
//! exactly (without times the `ttt` system's clock does not move). `GAMMA` (0.03) and
//! `P_DRAW` (0.1) are the model's, as `podium history --set` takes them. Prints the pair accuracy, the warm
//! pairs and the seconds taken.
use std::collections::HashMap;
use std::error::Error;

use podium::history::{History, TttConfig};
use podium::systems::ttt::TttSystem;
use podium::{Prior, Rating, RatingSystem};
use podium_eval::count::Item;
use podium_eval::{count_pairs, PairCounts};
use podium_io::ingest::{load, Inputs, Reading};

fn arg<T: std::str::FromStr>(
    args: &[String],
    i: usize,
    what: &str,
    default: Option<T>,
) -> Result<T, String> {
    match (args.get(i), default) {
        (Some(v), _) => v.parse().map_err(|_| format!("{what}: {v:?} is not valid")),
        (None, Some(d)) => Ok(d),
        (None, None) => Err(format!(
            "usage: ttt_refit FILE K [GAMMA] [P_DRAW] ({what} is missing)"
        )),
    }
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            let mut why = e.to_string();
            let mut cause = e.source();
            while let Some(c) = cause {
                why = format!("{why}: {c}");
                cause = c.source();
            }
            eprintln!("error: {why}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file: String = arg(&args, 0, "FILE", None)?;
    let k: usize = arg(&args, 1, "K", None)?;
    let gamma: f64 = arg(&args, 2, "GAMMA", Some(0.03))?;
    let p_draw: f64 = arg(&args, 3, "P_DRAW", Some(0.1))?;
    if k == 0 {
        return Err("K: refit every K ≥ 1 matches".into());
    }
    let matches = load(&Inputs::new([file]), &Reading::default())?.matches;
    let config = TttConfig {
        gamma,
        p_draw,
        ..TttConfig::default()
    };
    let system = TttSystem {
        gamma,
        p_draw,
        ..TttSystem::default()
    };
    let timed = matches.iter().all(|m| m.time().is_some());
    // The history's clock: days when every match has a time, else matches.
    let when = |i: usize| match matches[i].time() {
        Some(t) if timed => t as f64 / 86_400.0,
        _ => (i + 1) as f64,
    };
    let start = std::time::Instant::now();
    // Each player who has played: (rating, time of their last match).
    let mut belief: HashMap<String, (Rating, f64)> = HashMap::new();
    let mut pairs = PairCounts::default();
    let mut items: Vec<Item> = Vec::new();
    for (i, m) in matches.iter().enumerate() {
        if i > 0 && i % k == 0 {
            let (mut h, ids) = History::from_matches(&matches[..i], &config)?;
            h.converge()?;
            for (id, curve) in ids.into_iter().zip(h.curves()) {
                if let Some(&(time, mu, sigma)) = curve.last() {
                    belief.insert(id, (Rating::with_sigma(mu, sigma), time));
                }
            }
        }
        let now = when(i);
        // The warm players: those with a belief, which every player who has played has.
        items.clear();
        items.extend(m.players().filter_map(|(e, p)| {
            belief.get(p.player.as_str()).map(|b| Item {
                place: m.place(e),
                rating: b.0.value,
            })
        }));
        pairs.add(count_pairs(&mut items));
        let ratings: Vec<Rating> = m
            .players()
            .map(|(_, p)| match belief.get(p.player.as_str()) {
                Some(&(r, last)) => system.age(r, None, None, now - last),
                None => system.initial_rating(),
            })
            .collect();
        let rated = system.rate(&Prior::new(m, &ratings))?;
        for ((_, p), c) in m.players().zip(&rated.changes) {
            belief.insert(p.player.clone(), (c.after, now));
        }
    }
    println!(
        "refit every {k}: pair accuracy {:.2} % of {} warm pairs, {:.1} s",
        100.0 * pairs.accuracy().unwrap_or(0.0),
        pairs.total(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
