//! The uncertainty-aware systems on real contests: the first Codeforces rounds (up to a
//! few hundred entries each, with ties) rated by every Weng-Lin model and TrueSkill.
//! μ and σ stay finite and σ stays positive, games are counted right, and predictions
//! for the leaders are proper probabilities.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::util::{csv_rows, podium, shared_data, Dir};

/// Contests 1..=`last` as long CSV (ties: equal `rankLo`), and each handle's contest count.
fn codeforces(last: u32) -> (String, HashMap<String, u32>) {
    let dir = shared_data().join("codeforces").join("standings");
    let mut csv = String::from("match,player,rank\n");
    let mut games: HashMap<String, u32> = HashMap::new();
    for id in 1..=last {
        let text = std::fs::read_to_string(dir.join(format!("{id}.txt"))).unwrap();
        let mut lines = text.lines();
        let Some(n) = lines.next().and_then(|l| l.trim().parse::<usize>().ok()) else {
            continue; // empty standings
        };
        if n < 2 {
            continue;
        }
        for line in lines.take(n) {
            let mut f = line.split_whitespace();
            let (Some(handle), Some(lo)) = (f.next(), f.next()) else {
                continue;
            };
            writeln!(csv, "cf{id},{handle},{lo}").unwrap();
            *games.entry(handle.to_string()).or_default() += 1;
        }
    }
    (csv, games)
}

#[test]
fn bayesian_systems_on_codeforces() {
    let d = Dir::new("cf_bayes");
    let (csv, games) = codeforces(40);
    let file = d.file("cf.csv", &csv);
    let (first, _) = codeforces(1);
    let first_file = d.file("cf1.csv", &first);
    let first_rows: Vec<(String, u32)> = first
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[1].to_string(), f[2].parse().unwrap())
        })
        .collect();
    for system in [
        "plackett-luce",
        "bradley-terry-full",
        "bradley-terry-part",
        "thurstone-mosteller-full",
        "thurstone-mosteller-part",
        "trueskill",
    ] {
        let out = podium(&[
            "rate",
            &file,
            "--system",
            system,
            "--format",
            "csv",
            "--display",
            "conservative",
        ]);
        let rows = csv_rows(out.ok());
        assert_eq!(rows.len(), games.len(), "{system}: every handle rated");
        for r in &rows {
            let mu: f64 = r["rating"].parse().unwrap();
            let sigma: f64 = r["sigma"].parse().unwrap();
            let g: u32 = r["games"].parse().unwrap();
            assert!(mu.is_finite(), "{system}: {} μ {mu}", r["player"]);
            // σ² gains at most τ² per match (the matches have no times, so no aging).
            let tau: f64 = 25.0 / 300.0;
            let most = ((25.0f64 / 3.0).powi(2) + f64::from(g) * tau * tau).sqrt();
            assert!(
                sigma.is_finite() && sigma > 0.0 && sigma <= most + 1e-9,
                "{system}: {} σ {sigma}",
                r["player"]
            );
            assert_eq!(g, games[&r["player"]], "{system}: {}", r["player"]);
        }
        // Contest 1 alone (66 entries, a few ties): tied players with equal ratings end
        // level in the models that compare everyone with everyone (the windowed models and
        // TrueSkill compare a tied player with different neighbours), and μ follows the finishing order among untied players. (Tied players
        // are left out of the order: openskill's Plackett-Luce, which podium reproduces,
        // can leave a tied pair below the next place; see docs/bayesian.md.)
        let one =
            csv_rows(podium(&["rate", &first_file, "--system", system, "--format", "csv"]).ok());
        let mu_of = |p: &str| -> f64 {
            one.iter().find(|r| r["player"] == p).unwrap()["rating"]
                .parse()
                .unwrap()
        };
        let tied = |place: u32| first_rows.iter().filter(|r| r.1 == place).count() > 1;
        let everyone = matches!(
            system,
            "plackett-luce" | "bradley-terry-full" | "thurstone-mosteller-full"
        );
        for w in first_rows.windows(2) {
            if everyone && w[0].1 == w[1].1 {
                let (a, b) = (mu_of(&w[0].0), mu_of(&w[1].0));
                assert!((a - b).abs() < 1e-9, "{system}: tied {} {}", w[0].0, w[1].0);
            }
        }
        let untied: Vec<&(String, u32)> = first_rows.iter().filter(|r| !tied(r.1)).collect();
        for w in untied.windows(2) {
            let (a, b) = (mu_of(&w[0].0), mu_of(&w[1].0));
            // The windowed models leave the middle of an even field exactly level (each
            // player there beats as many neighbours as beat it): only monotone there.
            let ok = if everyone || system == "trueskill" {
                a > b
            } else {
                a >= b - 1e-9
            };
            assert!(ok, "{system}: {} ({a}) above {} ({b})", w[0].0, w[1].0);
        }
        let leaders: Vec<&str> = rows.iter().take(3).map(|r| r["player"].as_str()).collect();
        let pred = podium(&[
            "predict",
            &file,
            "--system",
            system,
            "--players",
            &leaders.join(","),
            "--format",
            "csv",
        ]);
        let p = csv_rows(pred.ok());
        let total: f64 = p
            .iter()
            .map(|r| r["win_probability"].parse::<f64>().unwrap())
            .sum();
        let draw: f64 = if system == "trueskill" {
            p[0]["draw_probability"].parse().unwrap()
        } else {
            0.0
        };
        assert!(
            (total + draw - 1.0).abs() < 1e-6,
            "{system}: {total} + {draw}"
        );
    }
}
