//! The table of Tom Kerrigan's article "Multiplayer Elo": Simple Multiplayer Elo after 1,
//! 2, 3, 4, 5, 10, 20 and 1000 rounds of
//! ten players with true ratings 1100..2000 and game scores ~ Normal(true, 200).
//!
//! The article averaged millions of trials; this test runs fewer (so that it takes a few
//! seconds in a debug build) and allows ±1 point instead of the ±0.5 that the full
//! 10,000-trial run in `docs/accuracy.md` meets. The standard error of the mean is below
//! 0.15 points at 4,000 trials for the early rounds, and below 0.2 points at 150 trials
//! for round 1000, whose per-trial spread is small.

use podium_eval::Simulation;

fn sme() -> Box<dyn podium::RatingSystem> {
    podium::system("sme", &podium::Settings::new()).unwrap()
}

#[track_caller]
fn within(got: f64, want_pct: f64, band: f64) {
    let got = 100.0 * got;
    assert!(
        (got - want_pct).abs() <= band,
        "{got:.2} % is not within {band} points of {want_pct} %"
    );
}

#[test]
fn sme_reproduces_kerrigans_early_rounds() {
    let sys = sme();
    let report = Simulation {
        rounds: vec![1, 2, 3, 4, 5, 10, 20],
        trials: 4_000,
        seed: 2024,
        ..Simulation::default()
    }
    .run(&[&*sys])
    .unwrap();
    let got = report.systems[0].values.as_ref().unwrap();
    for (g, want) in got.iter().zip([62.3, 72.5, 77.3, 79.2, 80.3, 82.2, 83.3]) {
        within(*g, want, 1.0);
    }
    within(report.ideal, 84.5, 0.5);
    // The mean-score reference knows more than any ranking: it is never worse.
    for (m, g) in report.mean_score.iter().zip(got) {
        assert!(m + 0.005 >= *g, "mean-score {m} below sme {g}");
    }
}

#[test]
fn sme_reproduces_kerrigans_table_after_1000_rounds() {
    let sys = sme();
    let report = Simulation {
        rounds: vec![1000],
        trials: 150,
        seed: 2024,
        ..Simulation::default()
    }
    .run(&[&*sys])
    .unwrap();
    within(report.systems[0].values.as_ref().unwrap()[0], 83.9, 1.0);
}
