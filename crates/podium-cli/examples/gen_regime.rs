//! Generates a history whose dynamics change: skills stay fixed for a while, then drift.
//! It measures whether a system that learns its dynamics from the history (such as
//! `kalman-mmr`'s bank of filters) still follows a league that changes after a long calm.
//!
//! ```text
//! cargo run --release -p podium-cli --example gen_regime -- OUT.csv STILL DRIFTING STEP [PLAYERS] [SEED]
//! ```
//!
//! `PLAYERS` (default 300) players of skill N(1500, 200²) play four-player free-for-alls
//! of players drawn uniformly; a player's performance is the skill plus N(0, 200²) and
//! the places follow the performances. For the first `STILL` matches the skills are
//! fixed; before each of the next `DRIFTING` matches every skill takes a N(0, STEP²)
//! step. The same arguments give the same file on every machine (ChaCha8 generator).

use std::fs::File;
use std::io::{BufWriter, Write};

use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

fn arg<T: std::str::FromStr>(args: &[String], i: usize, default: Option<T>) -> T {
    match (args.get(i).map(|s| s.parse()), default) {
        (Some(Ok(v)), _) | (None, Some(v)) => v,
        _ => {
            eprintln!("usage: gen_regime OUT.csv STILL DRIFTING STEP [PLAYERS] [SEED]");
            eprintln!("gen_regime: argument {i} is missing or not a number");
            std::process::exit(2)
        }
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let out: String = arg(&args, 1, None);
    let still: u64 = arg(&args, 2, None);
    let drifting: u64 = arg(&args, 3, None);
    let step: f64 = arg(&args, 4, None);
    let players: usize = arg(&args, 5, Some(300));
    let seed: u64 = arg(&args, 6, Some(1));
    if players < 4 || !(0.0..=10_000.0).contains(&step) {
        eprintln!("gen_regime: needs at least 4 players and a STEP in [0, 10000]");
        std::process::exit(2)
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let normal = |sd: f64| Normal::new(0.0, sd).unwrap_or_else(|_| unreachable!());
    let (spread, noise, drift) = (normal(200.0), normal(200.0), normal(step));
    let mut skill: Vec<f64> = (0..players)
        .map(|_| 1500.0 + spread.sample(&mut rng))
        .collect();
    let mut w = BufWriter::with_capacity(1 << 20, File::create(&out)?);
    writeln!(w, "match,player,rank")?;
    for m in 0..still + drifting {
        if m >= still {
            for s in &mut skill {
                *s += drift.sample(&mut rng);
            }
        }
        let mut field: Vec<(f64, usize)> = sample(&mut rng, players, 4)
            .into_iter()
            .map(|p| (skill[p] + noise.sample(&mut rng), p))
            .collect();
        field.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (place, (_, p)) in field.iter().enumerate() {
            writeln!(w, "m{m},p{p},{}", place + 1)?;
        }
    }
    w.flush()?;
    eprintln!(
        "gen_regime: wrote {} matches of {players} players to {out}",
        still + drifting
    );
    Ok(())
}
