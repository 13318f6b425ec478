//! `kalman-mmr`, the default system, on the real histories: its backtest figures to two
//! decimals (pair accuracy in %, log loss), with the warm pairs every system shares.

use crate::util::{csv_rows, podium, Dir};

/// Backtests `file` with kalman-mmr and checks accuracy (%) and log loss to two
/// decimals of the figures `docs/accuracy.md` reports.
fn check(file: &str, accuracy: f64, log_loss: f64, pairs: &str) {
    let out = podium(&[
        "backtest",
        file,
        "--systems",
        "kalman-mmr",
        "--format",
        "csv",
    ]);
    let rows = csv_rows(out.ok());
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r["warm_pairs"], pairs, "{r:?}");
    let acc = 100.0 * r["pair_accuracy"].parse::<f64>().unwrap();
    let ll: f64 = r["log_loss"].parse().unwrap();
    assert!(
        (acc - accuracy).abs() < 0.005,
        "accuracy {acc} % against {accuracy}"
    );
    assert!(
        (ll - log_loss).abs() < 0.00005,
        "log loss {ll} against {log_loss}"
    );
}

#[test]
fn kalman_mmr_on_catan() {
    let d = Dir::new("kalman-catan");
    let (file, _) = crate::datasets::catan(&d);
    // 63.6159 %, 0.653084; the best library (trueskill 0.4.5): 63.58 %, elo-mmr-py
    // glicko 0.6536.
    check(&file, 63.62, 0.6531, "1557");
}

#[test]
fn kalman_mmr_on_f1() {
    let d = Dir::new("kalman-f1");
    let (file, _) = crate::datasets::f1(&d);
    // 67.8920 %, 0.596191; the best library (elo-mmr-py cfsys / trueskill): 67.53 %,
    // 0.6025.
    check(&file, 67.89, 0.5962, "298729");
}

#[test]
fn kalman_mmr_on_codeforces() {
    // 74.9894 %, 0.506619; the best library (elo-mmr-py mmr): 74.40 %, 0.5138.
    check(crate::eval::codeforces_csv(), 74.99, 0.5066, "462712432");
}
