//! The systems that remember (Elo-MMR, Glicko, Glicko-2) through the binary: listed,
//! rated, explained and predicted; starting values they cannot use are refused naming
//! the line and field.

use crate::util::{csv_rows, podium, Dir};

const REMEMBERING: [&str; 4] = ["elo-mmr", "elo-mmx", "glicko", "glicko2"];

const HISTORY: &str = "match,time,player,rank
g1,2024-01-01,ann,1
g1,2024-01-01,bo,2
g1,2024-01-01,cy,3
g2,2024-02-01,bo,1
g2,2024-02-01,ann,2
g2,2024-02-01,cy,2
g3,2024-03-01,ann,1
g3,2024-03-01,cy,2
g3,2024-03-01,dee,3
";

#[test]
fn systems_lists_them_with_their_parameters() {
    let out = podium(&["systems"]);
    let list = out.ok();
    let mut text = String::new();
    for name in REMEMBERING {
        assert!(list.contains(&format!("\n{name} ")), "{name} missing");
        text.push_str(podium(&["systems", name]).ok());
    }
    for param in [
        "sig_limit=80",
        "noob_delay=none",
        "transfer_speed=1",
        "volatility=0.06",
        "tau=0.5",
        "c=5 ",
    ] {
        assert!(text.contains(param), "{param} missing");
    }
}

#[test]
fn elo_mmr_rates_a_contest_as_elo_mmr_py() {
    // elo-mmr-py 2.0.0, Rater("mmr"): ann 1704.8667194452419, σ 171.19544425359382.
    let d = Dir::new("mmr1");
    let games = d.file("g.csv", "match,player,rank\nc1,ann,1\nc1,bo,2\nc1,cy,3\n");
    let out = podium(&["rate", &games, "--system", "elo-mmr", "--format", "csv"]);
    let rows = csv_rows(out.ok());
    assert_eq!(rows[0]["player"], "ann");
    let mu: f64 = rows[0]["rating"].parse().unwrap();
    let sigma: f64 = rows[0]["sigma"].parse().unwrap();
    assert!((mu - 1704.8667194452419).abs() < 1e-6, "{mu}");
    assert!((sigma - 171.19544425359382).abs() < 1e-9, "{sigma}");
    let bo: f64 = rows[1]["rating"].parse().unwrap();
    assert!((bo - 1500.0).abs() < 1e-9, "{bo}");
}

#[test]
fn every_one_rates_a_history_with_times_and_initial_sigma() {
    let d = Dir::new("remember_all");
    let games = d.file("g.csv", HISTORY);
    let init = d.file("i.csv", "player,rating,games,sigma\nann,1700,12,120\n");
    for name in REMEMBERING {
        let out = podium(&[
            "rate",
            &games,
            "--system",
            name,
            "--initial",
            &init,
            "--format",
            "csv",
        ]);
        let rows = csv_rows(out.ok());
        assert_eq!(rows.len(), 4, "{name}");
        for r in &rows {
            let s: f64 = r["sigma"].parse().unwrap();
            assert!(s > 0.0 && s < 350.0, "{name}: σ {s}");
        }
        let ann = rows.iter().find(|r| r["player"] == "ann").unwrap();
        let s: f64 = ann["sigma"].parse().unwrap();
        assert!(
            s < 120.0,
            "{name}: ann started at σ 120 and played three matches: {s}"
        );
    }
}

#[test]
fn starting_values_they_cannot_use_name_the_line_and_field() {
    let d = Dir::new("remember_bad_initial");
    let games = d.file("g.csv", HISTORY);
    for (line, field) in [
        ("bo,1500,3,0", "sigma"),
        ("bo,1500,3,1e9", "sigma"),
        ("bo,1e7,3,80", "rating"),
    ] {
        let init = d.file(
            "i.csv",
            &format!("player,rating,games,sigma\nann,1600,5,90\n{line}\n"),
        );
        for name in REMEMBERING {
            if field == "rating" && name.starts_with("glicko") {
                continue; // Glicko takes any finite rating
            }
            let out = podium(&["rate", &games, "--system", name, "--initial", &init]);
            let err = out.err();
            assert!(
                err.contains("i.csv:3: field `") && err.contains(&format!("field `{field}`")),
                "{name} {line}: {err}"
            );
            assert!(
                err.contains("≤"),
                "{name}: the message says the range: {err}"
            );
            assert!(out.stdout.is_empty(), "{name}: nothing rated");
        }
    }
}

#[test]
fn explain_tells_the_performance_and_the_volatility() {
    let d = Dir::new("remember_explain");
    let games = d.file("g.csv", HISTORY);
    let out = podium(&["explain", &games, "--player", "ann", "--system", "elo-mmr"]);
    let text = out.ok();
    assert!(
        text.contains("Performance 1744 in this match; the system expected 1500 from your rating."),
        "{text}"
    );
    assert!(
        text.contains("Rating 1500.00 → 1704.87 (uncertainty 350.00 → 171.20)"),
        "{text}"
    );
    let out = podium(&["explain", &games, "--player", "ann", "--system", "glicko2"]);
    assert!(
        out.ok().contains(
            "Volatility now 0.0600 (σ′: how erratic the player's results are, which widens RD)."
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn predict_with_each_of_them() {
    let d = Dir::new("remember_predict");
    let games = d.file("g.csv", HISTORY);
    for name in REMEMBERING {
        let out = podium(&[
            "predict",
            &games,
            "--system",
            name,
            "--players",
            "ann,bo+cy",
            "--format",
            "csv",
        ]);
        let rows = csv_rows(out.ok());
        assert_eq!(rows.len(), 2, "{name}");
        let win: f64 = rows
            .iter()
            .map(|r| r["win_probability"].parse::<f64>().unwrap())
            .sum();
        assert!((win - 1.0).abs() < 1e-9, "{name}: {win}");
    }
}
