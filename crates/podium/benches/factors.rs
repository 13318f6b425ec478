//! Per-contest time with factors: one free-for-all of 100, 1,000 and 5,000 entries, each
//! entry with a factor, either one of 100 values (a country) or its own (a club per
//! entrant, the most distinct factors a match can have). Measured: building the match
//! (which groups the entries by factor) and rating it with its factors, by kalman-mmr
//! (the default) and TrueSkill (factors as extra team members).
//!
//! `cargo bench -p podium --bench factors`; results in `docs/benchmarks.md`, section
//! "Factors".

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use podium::{Finish, Match, Rating};

const SYSTEMS: [&str; 2] = ["kalman-mmr", "trueskill"];

const SIZES: [usize; 3] = [100, 1000, 5000];

/// The entries' names and factor values: `values` distinct ones, or one per entry.
fn field(n: usize, values: Option<usize>) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            let v = values.map_or(i, |k| i % k);
            (format!("p{i}"), format!("v{v}"))
        })
        .collect()
}

fn build(field: &[(String, String)]) -> Match {
    let mut b = Match::builder("bench");
    for (i, (player, value)) in field.iter().enumerate() {
        b = b
            .player(player.clone(), Finish::Rank((i + 1) as f64))
            .factor("club", value.clone());
    }
    b.build().unwrap()
}

fn bench(c: &mut Criterion) {
    for name in SYSTEMS {
        let sys = podium::system(name, &podium::Settings::new()).unwrap();
        for (label, values) in [("100 values", Some(100)), ("one per entry", None)] {
            let mut group = c.benchmark_group(format!("{name}/{label}"));
            group
                .warm_up_time(Duration::from_millis(300))
                .measurement_time(Duration::from_secs(2))
                .sample_size(10);
            for n in SIZES {
                let f = field(n, values);
                let m = build(&f);
                let before: Vec<Rating> = (0..n)
                    .map(|i| {
                        let mut r = sys.initial_rating();
                        r.value += ((i * 7919) % 1000) as f64 / 10.0;
                        r
                    })
                    .collect();
                let states = vec![None; n];
                let learned = sys.initial_learned();
                let factors = vec![sys.initial_factor(); m.factors().len()];
                group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                    b.iter(|| {
                        let m = build(black_box(&f));
                        sys.rate(
                            &podium::Prior::new(&m, &before)
                                .with_states(&states)
                                .with_learned(learned.as_ref())
                                .with_factors(&factors),
                        )
                        .unwrap()
                    });
                });
            }
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
