//! Factors on real data: Formula 1 with the car as a factor (`podium import f1` writes
//! each driver's constructor; `--factor constructor` rates it beside the drivers). The
//! pair accuracies of `podium backtest` on every race, each system with the factor and
//! factor-blind.

use std::collections::HashMap;

use crate::util::{csv_rows, podium, Dir};

/// Warm-pair accuracy (%) of each of `systems` on the F1 history, with the factor
/// `factor` (and factor-blind) or without any.
fn accuracy(file: &str, systems: &str, factor: Option<&str>) -> HashMap<String, f64> {
    let mut args = vec![
        "backtest",
        file,
        "--systems",
        systems,
        "--set",
        "pairwise.per_opponent=true",
        "--no-log-loss",
        "--format",
        "csv",
    ];
    if let Some(kind) = factor {
        args.extend(["--factor", kind]);
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
    let systems = "kalman-mmr,pairwise,shares,whitewhale,trueskill,plackett-luce,\
                   bradley-terry-part,thurstone-mosteller-part,glicko,elo-mmr";
    let without = accuracy(&file, systems, None);
    let with = accuracy(&file, systems, Some("constructor"));
    // (system, without, with), in % of 298,729 warm pairs.
    let pinned = [
        ("kalman-mmr", 67.887_951_956, 68.015_827_054),
        ("pairwise", 66.211_181_372, 67.803_092_435),
        ("shares", 62.665_827_556, 65.028_001_968),
        ("whitewhale", 64.769_406_385, 65.767_300_798),
        ("trueskill", 67.414_278_493, 67.777_483_940),
        ("plackett-luce", 65.033_525_369, 66.633_637_846),
        ("bradley-terry-part", 66.382_406_797, 67.505_833_046),
        ("thurstone-mosteller-part", 66.231_601_217, 67.463_319_597),
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
    // shared among the opponents) and shares (at its defaults) and to the Bayesian
    // Weng-Lin systems; whitewhale, kalman-mmr (the default), trueskill, glicko and
    // elo-mmr gain less.
    // With the factor, each system also ran factor-blind: its figure without the car.
    for (system, _, _) in pinned {
        assert_eq!(with[&format!("{system} (factor-blind)")], without[system]);
    }
    let gain = |s: &str| with[s] - without[s];
    for system in [
        "pairwise",
        "shares",
        "plackett-luce",
        "bradley-terry-part",
        "thurstone-mosteller-part",
    ] {
        assert!(gain(system) >= 1.0, "{system}");
    }
    for system in ["whitewhale", "kalman-mmr", "trueskill", "glicko", "elo-mmr"] {
        assert!(gain(system) > 0.0 && gain(system) < 1.0, "{system}");
    }
}
