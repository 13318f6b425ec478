//! Elo-MMR against elo-mmr-py 2.0.0 (`Rater("mmr")`) on the three histories, as
//! `scripts/reference/elo_mmr_parity.py` compares them: the warm-pair accuracy of the
//! backtest and the final μ of some players. The reference's numbers are pinned here;
//! podium matches them to well within the tolerances (which allow for a different
//! summation order, not for a different model).

use std::collections::HashMap;

use crate::util::{csv_rows, podium, Dir};

/// Warm-pair accuracy within 0.05 points of the reference's.
const ACCURACY_TOLERANCE: f64 = 0.0005;
/// Final μ within this of the reference's.
const MU_TOLERANCE: f64 = 1e-4;

/// Runs podium's elo-mmr on `file`: backtest accuracy, warm pairs, and final μ by player.
fn elo_mmr(file: &str) -> (f64, u64, HashMap<String, (f64, u32)>) {
    let out = podium(&[
        "backtest",
        file,
        "--systems",
        "elo-mmr",
        "--no-log-loss",
        "--format",
        "csv",
    ]);
    let row = &csv_rows(out.ok())[0];
    let board = podium(&["rate", file, "--system", "elo-mmr", "--format", "csv"]);
    let mu = csv_rows(board.ok())
        .iter()
        .map(|r| {
            (
                r["player"].clone(),
                (r["rating"].parse().unwrap(), r["games"].parse().unwrap()),
            )
        })
        .collect();
    (
        row["pair_accuracy"].parse().unwrap(),
        row["warm_pairs"].parse().unwrap(),
        mu,
    )
}

/// Checks a history against the reference's accuracy, warm pairs and μ of `players`
/// (name, μ, matches played).
fn check(file: &str, accuracy: f64, pairs: u64, players: &[(&str, f64, u32)]) {
    let (acc, warm, mu) = elo_mmr(file);
    assert_eq!(warm, pairs);
    assert!(
        (acc - accuracy).abs() < ACCURACY_TOLERANCE,
        "accuracy {acc} against elo-mmr-py's {accuracy}"
    );
    for &(name, want, contests) in players {
        let (got, games) = mu[name];
        assert!(
            (got - want).abs() < MU_TOLERANCE,
            "{name}: μ {got} against elo-mmr-py's {want}"
        );
        assert_eq!(games, contests, "{name}");
    }
}

#[test]
fn elo_mmr_matches_elo_mmr_py_on_catan() {
    let d = Dir::new("mmr-catan");
    let (file, _) = crate::datasets::catan(&d);
    // elo-mmr-py: 962 right, 1 even, 594 wrong of 1,557 warm pairs = 61.8176 %.
    check(
        &file,
        0.6181759794476558,
        1557,
        &[
            ("Jay", 1671.4159957102122, 15),
            ("Alex", 1644.603143582708, 61),
            ("Rachel", 1403.4227857938274, 206),
            ("Mic", 1465.8236854818113, 201),
        ],
    );
}

#[test]
fn elo_mmr_matches_elo_mmr_py_on_f1() {
    let d = Dir::new("mmr-f1");
    let (file, _) = crate::datasets::f1(&d);
    // elo-mmr-py: 200,935 right, 97,794 wrong = 67.2633 %.
    check(
        &file,
        0.6726330553779513,
        298_729,
        &[
            ("max_verstappen", 3012.0915325343085, 227),
            ("norris", 2988.199273293729, 146),
            ("alonso", 2582.3232825494806, 422),
            ("hamilton", 2715.2933087955894, 374),
        ],
    );
}

#[test]
fn elo_mmr_matches_elo_mmr_py_on_codeforces() {
    // elo-mmr-py: 74.3987 % of 462,712,432 warm pairs. Matches played count contests 637
    // and 644, where everyone tied: Elo-MMR leaves them unrated (elo-mmr-py counts 131
    // rated contests for tourist), the leaderboard counts them played.
    check(
        crate::eval::codeforces_csv(),
        0.743987,
        462_712_432,
        &[
            ("tourist", 2947.613959848763, 133),
            ("Petr", 2816.8666101345025, 108),
            ("ruban", 1606.796108436663, 265),
        ],
    );
}
