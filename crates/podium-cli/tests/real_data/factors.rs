//! Factors on real data: Formula 1 with the car as a factor (`podium import f1` writes
//! each driver's constructor; `--factor constructor` rates it beside the drivers), and
//! with a factor that decides nothing. The pair accuracies of `podium backtest` on every
//! race, each system with the factor and factor-blind.

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

/// Asserts that `system`'s accuracy in `run` is `want` (%), to 1e-6.
fn pin(run: &HashMap<String, f64>, system: &str, want: f64) {
    assert!(
        (run[system] - want).abs() < 1e-6,
        "{system}: {}",
        run[system]
    );
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
        ("kalman-mmr", 67.891_968_975, 68.031_225_626),
        ("pairwise", 66.211_181_372, 67.803_092_435),
        ("shares", 62.665_827_556, 65.028_001_968),
        ("whitewhale", 64.769_406_385, 65.767_300_798),
        ("trueskill", 67.414_278_493, 67.777_483_940),
        ("plackett-luce", 65.033_525_369, 66.633_637_846),
        ("bradley-terry-part", 66.382_406_797, 67.505_833_046),
        ("thurstone-mosteller-part", 66.231_601_217, 67.463_319_597),
        ("glicko", 66.732_724_309, 67.492_610_359),
        ("elo-mmr", 67.263_305_538, 67.368_752_280),
    ];
    for (system, a, b) in pinned {
        pin(&without, system, a);
        pin(&with, system, b);
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

/// A CSV field, quoted.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

#[test]
fn a_factor_that_decides_nothing_costs_little() {
    // Half the drivers carry `letter=a-m` (their id's first letter), the others `n-z`:
    // each value on about half of every race, the same for a driver all his career, and
    // nothing to do with the results. A system that rated it as if it were the car would
    // lose accuracy to its noise.
    let d = Dir::new("f1-letter");
    let (_, rows) = crate::datasets::f1(&d);
    let mut csv = String::from("match,player,rank,time,letter\n");
    for r in &rows {
        let letter = if r["player"].as_str() < "n" {
            "a-m"
        } else {
            "n-z"
        };
        csv.push_str(&format!(
            "{},{},{},{},{letter}\n",
            quoted(&r["match"]),
            quoted(&r["player"]),
            r["rank"],
            r["time"]
        ));
    }
    let file = d.file("f1-letter.csv", &csv);
    let systems = "kalman-mmr,pairwise,sme,whitewhale,shares,plackett-luce,\
                   bradley-terry-part,thurstone-mosteller-part,trueskill,glicko,elo-mmr";
    let with = accuracy(&file, systems, Some("letter"));
    // (system, with the letter, at most this much below factor-blind), in % of pairs.
    let pinned = [
        ("kalman-mmr", 67.885_106_568, 0.01),
        ("pairwise", 66.090_001_306, 0.25),
        ("sme", 65.532_807_327, 0.25),
        ("whitewhale", 64.796_521_262, 0.0),
        ("shares", 62.009_714_490, 0.7),
        ("plackett-luce", 64.806_898_560, 0.25),
        ("bradley-terry-part", 66.376_716_020, 0.25),
        ("thurstone-mosteller-part", 66.138_038_155, 0.25),
        ("trueskill", 67.372_434_548, 0.25),
        ("glicko", 66.645_354_150, 0.25),
        ("elo-mmr", 67.258_619_016, 0.25),
    ];
    for (system, a, loss) in pinned {
        pin(&with, system, a);
        let blind = with[&format!("{system} (factor-blind)")];
        assert!(
            with[system] >= blind - loss,
            "{system}: {a} against {blind}"
        );
    }
}
