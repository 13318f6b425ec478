//! Time of one update of each Elo-family system for free-for-alls of the sizes users meet.
//! Run with `cargo bench -p podium --bench systems`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use podium::{Match, Rating};

fn field(n: usize) -> (Match, Vec<Rating>) {
    let names: Vec<String> = (0..n).map(|i| format!("player{i}")).collect();
    let m = Match::ranked("bench", &names).unwrap();
    // A spread of ratings, deterministic.
    let before = (0..n)
        .map(|i| Rating::new(1000.0 + ((i * 7919) % 1000) as f64).games((i % 20) as u32))
        .collect();
    (m, before)
}

fn updates(c: &mut Criterion) {
    for spec in podium::systems() {
        let sys = (spec.build)(&podium::Settings::new()).unwrap();
        let mut group = c.benchmark_group(format!("update/{}", spec.name));
        for n in [2usize, 8, 100, 1_000, 10_000] {
            if spec.name == "elo" && n != 2 {
                continue;
            }
            let (m, before) = field(n);
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| sys.rate(&podium::Prior::new(&m, &before)).unwrap().changes)
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = updates
}
criterion_main!(benches);
