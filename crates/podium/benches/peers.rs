//! One update through the library beside the crate `skillratings` (0.29) for the same
//! system and the same inputs: a two-player match and two teams of four, for
//! Bradley-Terry (Weng-Lin's algorithm 1) and TrueSkill; and `kalman-mmr`, podium's
//! default, for a two-player match and a four-player free-for-all, for reference.
//! podium rates into one `Posterior` reused from match to match, as a `League` does
//! (`RatingSystem::rate_into`); skillratings returns its new ratings by value.
//! Run with `cargo bench -p podium --bench peers`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use podium::{Finish, Match, Posterior, Prior, Rating, RatingSystem, Settings};
use skillratings::trueskill::{trueskill, trueskill_two_teams, TrueSkillConfig, TrueSkillRating};
use skillratings::weng_lin::{weng_lin, weng_lin_two_teams, WengLinConfig, WengLinRating};
use skillratings::Outcomes;

/// Two players, or two teams of `size`, the first ahead.
fn two_sides(size: usize) -> Match {
    if size == 1 {
        return Match::ranked("bench", &["a0", "b0"]).unwrap();
    }
    let side = |s: &'static str| (0..size).map(move |i| format!("{s}{i}"));
    Match::builder("bench")
        .team("a", side("a"), Finish::Rank(1.0))
        .team("b", side("b"), Finish::Rank(2.0))
        .build()
        .unwrap()
}

/// A spread of (μ, σ) on TrueSkill's scale, deterministic.
fn beliefs(n: usize) -> Vec<(f64, f64)> {
    (0..n)
        .map(|i| (20.0 + (i * 37 % 11) as f64, 5.0 + (i * 13 % 7) as f64 * 0.5))
        .collect()
}

/// The podium system `name`, configured as `skillratings` configures its own: no drift
/// before the match (skillratings adds none in Weng-Lin, its τ in TrueSkill).
fn podium(name: &str) -> Box<dyn RatingSystem> {
    let settings = match name {
        "bradley-terry-full" => Settings::new().with("tau", "0"),
        _ => Settings::new(),
    };
    podium::system(name, &settings).unwrap()
}

fn bradley_terry(c: &mut Criterion) {
    let mut group = c.benchmark_group("peers/bradley-terry");
    let config = WengLinConfig::new();
    let sys = podium("bradley-terry-full");
    for size in [1usize, 4] {
        let b = beliefs(2 * size);
        let m = two_sides(size);
        let before: Vec<Rating> = b.iter().map(|&(mu, s)| Rating::with_sigma(mu, s)).collect();
        let ours: Vec<WengLinRating> = b
            .iter()
            .map(|&(rating, uncertainty)| WengLinRating {
                rating,
                uncertainty,
            })
            .collect();
        let label = if size == 1 { "1v1" } else { "4v4" };
        let mut out = Posterior::default();
        group.bench_function(format!("podium/{label}"), |bench| {
            bench.iter(|| {
                sys.rate_into(
                    &Prior::new(black_box(&m), black_box(&before)),
                    black_box(&mut out),
                )
                .unwrap()
            })
        });
        group.bench_function(format!("skillratings/{label}"), |bench| {
            if size == 1 {
                bench.iter(|| {
                    weng_lin(
                        black_box(&ours[0]),
                        black_box(&ours[1]),
                        &Outcomes::WIN,
                        &config,
                    )
                })
            } else {
                bench.iter(|| {
                    weng_lin_two_teams(
                        black_box(&ours[..size]),
                        black_box(&ours[size..]),
                        &Outcomes::WIN,
                        &config,
                    )
                })
            }
        });
    }
    group.finish();
}

fn true_skill(c: &mut Criterion) {
    let mut group = c.benchmark_group("peers/trueskill");
    let config = TrueSkillConfig::new();
    let sys = podium("trueskill");
    for size in [1usize, 4] {
        let b = beliefs(2 * size);
        let m = two_sides(size);
        let before: Vec<Rating> = b.iter().map(|&(mu, s)| Rating::with_sigma(mu, s)).collect();
        let ours: Vec<TrueSkillRating> = b
            .iter()
            .map(|&(rating, uncertainty)| TrueSkillRating {
                rating,
                uncertainty,
            })
            .collect();
        let label = if size == 1 { "1v1" } else { "4v4" };
        let mut out = Posterior::default();
        group.bench_function(format!("podium/{label}"), |bench| {
            bench.iter(|| {
                sys.rate_into(
                    &Prior::new(black_box(&m), black_box(&before)),
                    black_box(&mut out),
                )
                .unwrap()
            })
        });
        group.bench_function(format!("skillratings/{label}"), |bench| {
            if size == 1 {
                bench.iter(|| {
                    trueskill(
                        black_box(&ours[0]),
                        black_box(&ours[1]),
                        &Outcomes::WIN,
                        &config,
                    )
                })
            } else {
                bench.iter(|| {
                    trueskill_two_teams(
                        black_box(&ours[..size]),
                        black_box(&ours[size..]),
                        &Outcomes::WIN,
                        &config,
                    )
                })
            }
        });
    }
    group.finish();
}

fn kalman_mmr(c: &mut Criterion) {
    let mut group = c.benchmark_group("peers/kalman-mmr");
    let sys = podium("kalman-mmr");
    for (label, n) in [("1v1", 2usize), ("ffa4", 4)] {
        let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
        let m = Match::ranked("bench", &names).unwrap();
        let before: Vec<Rating> = (0..n)
            .map(|i| Rating::with_sigma(1400.0 + 60.0 * i as f64, 120.0).games(10))
            .collect();
        // Established players with their states, and the league's learned value.
        let states: Vec<Option<podium::State>> = before
            .iter()
            .map(|r| sys.initial_state(r).unwrap())
            .collect();
        let refs: Vec<Option<&podium::State>> = states.iter().map(Option::as_ref).collect();
        let learned = sys.initial_learned();
        let mut out = Posterior::default();
        group.bench_function(format!("podium/{label}"), |bench| {
            bench.iter(|| {
                sys.rate_into(
                    &Prior::new(black_box(&m), black_box(&before))
                        .with_states(black_box(&refs))
                        .with_learned(learned.as_ref()),
                    black_box(&mut out),
                )
                .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = bradley_terry, true_skill, kalman_mmr
}
criterion_main!(benches);
