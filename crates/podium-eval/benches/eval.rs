//! Benchmarks of the evaluation lab's inner loops:
//! - exact pair counting of one Codeforces-sized match (5,000 warm players) against the
//!   brute-force count it replaces;
//! - the exact log-loss sum of such a match;
//! - simulation trials of the experiment of Tom Kerrigan's "Multiplayer Elo" (sme, 1,000
//!   rounds).
//!
//! Run with `cargo bench -p podium-eval --bench eval`. The end-to-end commands (full
//! Codeforces backtest, 10,000 × 1,000 simulation) are timed by `scripts/bench-eval.sh`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use podium::Rating;
use podium_eval::backtest::log_loss_sum;
use podium_eval::count::{count_pairs, count_pairs_brute_force, Item};
use podium_eval::Simulation;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A match of `n` warm players: places with ties, ratings with repeats.
fn field(n: usize) -> Vec<Item> {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut place = 1;
    (0..n)
        .map(|i| {
            if i > 0 && rng.gen_bool(0.8) {
                place = i + 1;
            }
            Item {
                place,
                rating: (rng.gen_range(1000.0..2000.0_f64)).round(),
            }
        })
        .collect()
}

fn counting(c: &mut Criterion) {
    let mut g = c.benchmark_group("count_pairs");
    for n in [100, 1_000, 5_000] {
        let items = field(n);
        g.bench_with_input(BenchmarkId::new("fenwick", n), &items, |b, items| {
            b.iter(|| count_pairs(&mut black_box(items.clone())))
        });
        g.bench_with_input(BenchmarkId::new("brute_force", n), &items, |b, items| {
            b.iter(|| count_pairs_brute_force(black_box(items)))
        });
    }
    g.finish();
}

fn log_loss(c: &mut Criterion) {
    let sys = podium::system("sme", &podium::Settings::new()).unwrap();
    let warm: Vec<(usize, Rating)> = field(5_000)
        .into_iter()
        .map(|it| (it.place, Rating::new(it.rating)))
        .collect();
    let mut g = c.benchmark_group("log_loss_sum");
    g.sample_size(10);
    g.bench_function("sme_5000", |b| {
        b.iter(|| log_loss_sum(&*sys, None, black_box(&warm)))
    });
    g.finish();
}

fn simulation(c: &mut Criterion) {
    let sys = podium::system("sme", &podium::Settings::new()).unwrap();
    let sim = Simulation {
        rounds: vec![1, 2, 3, 4, 5, 10, 20, 100, 1000],
        trials: 64,
        threads: 1,
        ..Simulation::default()
    };
    let mut g = c.benchmark_group("simulate");
    g.sample_size(10);
    g.bench_function("sme_64_trials_x_1000_rounds_1_thread", |b| {
        b.iter(|| sim.run(&[&*sys]).unwrap())
    });
    g.finish();
}

criterion_group!(benches, counting, log_loss, simulation);
criterion_main!(benches);
