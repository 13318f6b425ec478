//! Per-contest time of the systems that remember: one free-for-all of 2, 8, 100, 1,000
//! and 10,000 entries (distinct ratings, about one place in ten tied), rated by `elo-mmr`
//! (exact, every opponent), `elo-mmr` with subsampling (`subsample_size=100
//! subsample_bucket=2`, the reference's `mmr-fast`), `elo-mmx`, `glicko` and `glicko2`.
//! `elo-mmx` stops at 1,000 entries: it evaluates every pair's normal terms, as the
//! reference does, and 10,000 entries take seconds.
//!
//! Elo-MMR's players come with a history: the field is rated five times before the
//! measured contest, so that they hold past performances as in a real league (the other
//! systems keep nothing that grows).
//!
//! `cargo bench -p podium --bench remember`; results in `docs/benchmarks.md`, section
//! "Systems that remember".

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use podium::{Match, Rating, Settings, State};

const SIZES: [usize; 5] = [2, 8, 100, 1000, 10_000];

/// Settings over a system's defaults, as `key=value` pairs.
type Overrides = &'static [(&'static str, &'static str)];

/// The systems measured: a label, the system and its settings.
const SYSTEMS: [(&str, &str, Overrides); 5] = [
    ("elo-mmr", "elo-mmr", &[]),
    (
        "elo-mmr subsampled",
        "elo-mmr",
        &[("subsample_size", "100"), ("subsample_bucket", "2")],
    ),
    ("elo-mmx", "elo-mmx", &[]),
    ("glicko", "glicko", &[]),
    ("glicko2", "glicko2", &[]),
];

/// A free-for-all of `n` players, about one place in ten shared with the player above,
/// and ratings spread from 1000 to 2500.
fn field(id: &str, n: usize) -> (Match, Vec<Rating>) {
    let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
    let places: Vec<(String, u32)> = names
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let tied = i > 0 && (i * 7919) % 10 == 0;
            (p.clone(), if tied { i as u32 } else { i as u32 + 1 })
        })
        .collect();
    let m = Match::with_places(id, &places).unwrap();
    let ratings = (0..n)
        .map(|i| {
            let x = ((i * 7919) % 1000) as f64 / 1000.0;
            Rating::with_sigma(1000.0 + 1500.0 * x, 80.0 + 270.0 * x)
        })
        .collect();
    (m, ratings)
}

fn bench(c: &mut Criterion) {
    for (label, name, settings) in SYSTEMS {
        let settings: Settings = settings.iter().copied().collect();
        let sys = podium::system(name, &settings).unwrap();
        let mut group = c.benchmark_group(label);
        group
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(3))
            .sample_size(10);
        for n in SIZES {
            if name == "elo-mmx" && n > 1000 {
                continue;
            }
            let (m, mut before) = field("bench", n);
            // Five contests of history for Elo-MMR.
            let mut states: Vec<Option<State>> = vec![None; n];
            let history = if name == "elo-mmr" { 5 } else { 0 };
            for _ in 0..history {
                let own: Vec<Option<&State>> = states.iter().map(Option::as_ref).collect();
                let rated = sys
                    .rate(&podium::Prior::new(&m, &before).with_states(&own))
                    .unwrap();
                for (b, c) in before.iter_mut().zip(&rated.changes) {
                    *b = c.after;
                }
                if !rated.states.is_empty() {
                    states = rated.states;
                }
            }
            let own: Vec<Option<&State>> = states.iter().map(Option::as_ref).collect();
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| {
                    sys.rate(
                        &podium::Prior::new(black_box(&m), black_box(&before))
                            .with_states(black_box(&own)),
                    )
                    .unwrap()
                });
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
