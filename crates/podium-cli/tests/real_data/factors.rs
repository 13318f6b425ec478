//! Factors on real data: Formula 1 with the car as a factor (`podium import f1` writes
//! each driver's constructor; `--factor constructor` rates it beside the drivers). The
//! pair accuracies of `podium backtest` on every race, with and without the factor.

use std::collections::HashMap;

use crate::util::{csv_rows, podium, Dir};

/// Warm-pair accuracy (%) of each system on the F1 history, `--factor constructor` or not.
fn accuracy(file: &str, factor: bool) -> HashMap<String, f64> {
    let mut args = vec![
        "backtest",
        file,
        "--systems",
        "kalman-mmr,pairwise,shares,whitewhale,trueskill,plackett-luce,glicko,elo-mmr",
        "--set",
        "pairwise.per_opponent=true",
        "--no-log-loss",
        "--format",
        "csv",
    ];
    if factor {
        args.extend(["--factor", "constructor"]);
    }
    csv_rows(podium(&args).ok())
        .into_iter()
        .map(|r| {
            (
                r["system"].clone(),
                100.0 * r["pair_accuracy"].parse::<f64>().unwrap(),
            )
        })
        .collect()
}

#[test]
fn f1_constructor_as_a_factor() {
    let d = Dir::new("f1-factors");
    let (file, rows) = crate::datasets::f1(&d);
    // Every row has its car: 210 constructors, Ferrari in 2,453 of the 27,027 rows.
    assert!(rows.iter().all(|r| !r["constructor"].is_empty()));
    let cars: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["constructor"].as_str()).collect();
    assert_eq!(cars.len(), 210);
    let ferrari = rows
        .iter()
        .filter(|r| r["constructor"] == "ferrari")
        .count();
    assert_eq!(ferrari, 2453);
    let without = accuracy(&file, false);
    let with = accuracy(&file, true);
    // (system, without, with), in % of 298,729 warm pairs.
    let pinned = [
        ("kalman-mmr", 67.887_951_956, 68.015_827_054),
        ("pairwise", 66.211_181_372, 67.982_351_898),
        ("shares", 62.665_827_556, 65.197_553_636),
        ("whitewhale", 64.769_406_385, 66.280_474_946),
        ("trueskill", 67.414_278_493, 67.769_449_903),
        ("plackett-luce", 65.033_525_369, 66.271_771_405),
        ("glicko", 66.687_532_847, 67.428_338_059),
        ("elo-mmr", 67.263_305_538, 67.368_752_280),
    ];
    for (system, a, b) in pinned {
        assert!(
            (without[system] - a).abs() < 1e-6,
            "{system}: {}",
            without[system]
        );
        assert!(
            (with[system] - b).abs() < 1e-6,
            "{system}: {}",
            with[system]
        );
    }
    // The car is worth more than a point of accuracy to the Elo family's pairwise (K
    // shared among the opponents), shares and whitewhale (at their defaults) and to the Bayesian
    // Plackett-Luce; kalman-mmr (the default), trueskill, glicko and elo-mmr gain less.
    // With the factor, each system also ran factor-blind: its figure without the car.
    for (system, _, _) in pinned {
        assert_eq!(with[&format!("{system} (factor-blind)")], without[system]);
    }
    let gain = |s: &str| with[s] - without[s];
    for system in ["pairwise", "shares", "whitewhale", "plackett-luce"] {
        assert!(gain(system) >= 1.0, "{system}");
    }
    for system in ["kalman-mmr", "trueskill", "glicko", "elo-mmr"] {
        assert!(gain(system) > 0.0 && gain(system) < 1.0, "{system}");
    }
}
