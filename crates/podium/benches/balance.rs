//! Time to propose fair teams: 16 players into 2 and 4 teams (exact: every split
//! examined) and 40 players into 4 teams (the seeded local search), in a league of 60
//! players rated by the default system over 400 random free-for-alls.
//!
//! Before measuring, it prints how far the default search (4 restarts) lands from the
//! best split a long search (2,000 restarts) finds for the 40 players.
//!
//! `cargo bench -p podium --bench balance`; results in `docs/groups.md`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use podium::balance::{balance, BalanceConfig, Format};
use podium::{League, Match, Settings};

/// A league of 60 players `p0..p59`, lower numbers stronger, after 400 free-for-alls of
/// 4 to 8 players (a fixed linear congruential sequence draws who plays and the noise).
fn league() -> League {
    let mut l = League::new(podium::system(podium::DEFAULT_SYSTEM, &Settings::new()).unwrap());
    let mut x: u64 = 12345;
    let mut next = move |n: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    for g in 0..400 {
        let size = 4 + next(5) as usize;
        let mut players: Vec<u64> = Vec::new();
        while players.len() < size {
            let p = next(60);
            if !players.contains(&p) {
                players.push(p);
            }
        }
        let mut keyed: Vec<(u64, u64)> = players.iter().map(|&p| (p + next(30), p)).collect();
        keyed.sort_unstable();
        let names: Vec<String> = keyed.iter().map(|(_, p)| format!("p{p}")).collect();
        l.apply(&Match::ranked(format!("g{g}"), &names).unwrap())
            .unwrap();
    }
    l
}

fn bench(c: &mut Criterion) {
    let l = league();
    let forty: Vec<String> = (0..40).map(|i| format!("p{i}")).collect();
    let sixteen: Vec<String> = (0..16).map(|i| format!("p{}", i * 3)).collect();
    let quick = balance(&l, &forty, &Format::teams(4), &BalanceConfig::default()).unwrap();
    let long = balance(
        &l,
        &forty,
        &Format::teams(4),
        &BalanceConfig {
            restarts: 2000,
            ..BalanceConfig::default()
        },
    )
    .unwrap();
    eprintln!(
        "40 players into 4 teams: default search {:.3e} ({} splits examined), 2,000 restarts {:.3e} ({} examined)",
        quick.splits[0].unevenness, quick.examined, long.splits[0].unevenness, long.examined
    );
    let mut g = c.benchmark_group("balance");
    g.sample_size(10);
    g.bench_function("16 into 2 teams (exact)", |b| {
        b.iter(|| {
            balance(
                &l,
                black_box(&sixteen),
                &Format::teams(2),
                &BalanceConfig::default(),
            )
        })
    });
    g.bench_function("16 into 4 teams (exact)", |b| {
        b.iter(|| {
            balance(
                &l,
                black_box(&sixteen),
                &Format::teams(4),
                &BalanceConfig::default(),
            )
        })
    });
    g.bench_function("40 into 4 teams (search)", |b| {
        b.iter(|| {
            balance(
                &l,
                black_box(&forty),
                &Format::teams(4),
                &BalanceConfig::default(),
            )
        })
    });
    g.bench_function("40 at tables of 4 (search)", |b| {
        b.iter(|| {
            balance(
                &l,
                black_box(&forty),
                &Format::Tables { seats: 4 },
                &BalanceConfig::default(),
            )
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
