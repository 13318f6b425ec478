//! Per-update time of the uncertainty-aware systems: one free-for-all of 2, 8, 32, 100 and
//! 1,000 entries (distinct ratings, no ties), rated by each Weng-Lin model and TrueSkill.
//!
//! `cargo bench -p podium --bench bayes`; results and the same sizes measured with the
//! Python `openskill` and `trueskill` packages (`scripts/bench/bayes_python.py`) are in
//! `docs/benchmarks.md`, section "Uncertainty-aware systems".

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use podium::{Match, Rating};

const SYSTEMS: [&str; 6] = [
    "plackett-luce",
    "bradley-terry-full",
    "bradley-terry-part",
    "thurstone-mosteller-full",
    "thurstone-mosteller-part",
    "trueskill",
];

const SIZES: [usize; 5] = [2, 8, 32, 100, 1000];

/// A free-for-all of `n` players finishing in order, with ratings spread around 25.
fn field(n: usize) -> (Match, Vec<Rating>) {
    let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
    let m = Match::ranked("bench", &names).unwrap();
    let ratings = (0..n)
        .map(|i| {
            let x = ((i * 7919) % 1000) as f64 / 1000.0;
            Rating::with_sigma(15.0 + 20.0 * x, 2.0 + 6.0 * x)
        })
        .collect();
    (m, ratings)
}

fn bench(c: &mut Criterion) {
    for name in SYSTEMS {
        let sys = podium::system(name, &podium::Settings::new()).unwrap();
        let mut group = c.benchmark_group(name);
        group
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(2))
            .sample_size(20);
        for n in SIZES {
            let (m, before) = field(n);
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| {
                    sys.rate(&podium::Prior::new(black_box(&m), black_box(&before)))
                        .unwrap()
                        .changes
                });
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
