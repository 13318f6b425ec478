//! Generates a long CSV file of random free-for-all matches for benchmarking
//! `podium rate` (see `scripts/bench-rate.sh`).
//!
//! ```text
//! cargo run --release -p podium-cli --example gen_matches -- OUT.csv [MATCHES] [PLAYERS] [SEED]
//! ```
//!
//! Defaults: 1,000,000 matches, a pool of 50,000 players, seed 1. Each match has 2–10
//! players (uniform); players are drawn with a skew so that a few play very often and many
//! rarely, as on a real server; about one place in ten is a tie with the place before.
//! The same arguments give the same file on every machine (ChaCha8 generator).

use std::fs::File;
use std::io::{BufWriter, Write};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn arg<T: std::str::FromStr>(args: &[String], i: usize, default: T) -> T {
    match args.get(i) {
        None => default,
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("gen_matches: argument {i} ({s:?}) is not a number");
            std::process::exit(2)
        }),
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let Some(out) = args.get(1) else {
        eprintln!("usage: gen_matches OUT.csv [MATCHES] [PLAYERS] [SEED]");
        std::process::exit(2)
    };
    let matches: u64 = arg(&args, 2, 1_000_000);
    let players: u32 = arg(&args, 3, 50_000);
    let seed: u64 = arg(&args, 4, 1);
    if players < 10 {
        eprintln!("gen_matches: the pool needs at least 10 players");
        std::process::exit(2)
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut w = BufWriter::with_capacity(1 << 20, File::create(out)?);
    writeln!(w, "match,player,rank")?;
    let mut chosen: Vec<u32> = Vec::with_capacity(10);
    let mut rows = 0u64;
    for m in 0..matches {
        let size = rng.gen_range(2..=10);
        chosen.clear();
        while chosen.len() < size {
            // u² skews the draw towards low indices: regulars play far more often.
            let u: f64 = rng.gen();
            let p = ((u * u) * f64::from(players)) as u32;
            let p = p.min(players - 1);
            if !chosen.contains(&p) {
                chosen.push(p);
            }
        }
        let mut rank = 1;
        for (i, p) in chosen.iter().enumerate() {
            if i > 0 && !rng.gen_bool(0.1) {
                rank = i + 1;
            }
            writeln!(w, "m{m},player{p:05},{rank}")?;
            rows += 1;
        }
    }
    w.flush()?;
    eprintln!(
        "gen_matches: wrote {matches} matches, {rows} rows, pool of {players} players to {out}"
    );
    Ok(())
}
