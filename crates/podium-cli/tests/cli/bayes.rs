//! The uncertainty-aware systems through the binary: `sigma` and conservative leaderboards,
//! `podium predict`, `podium systems`.

use crate::util::{csv_rows, podium, Dir};

const HISTORY: &str = "match,time,player,rank
g1,2024-01-01,ann,1
g1,2024-01-01,bo,2
g1,2024-01-01,cy,3
g2,2024-02-01,bo,1
g2,2024-02-01,ann,2
g3,2024-03-01,ann,1
g3,2024-03-01,cy,2
g3,2024-03-01,dee,3
";

const BAYESIAN: [&str; 6] = [
    "plackett-luce",
    "bradley-terry-full",
    "bradley-terry-part",
    "thurstone-mosteller-full",
    "thurstone-mosteller-part",
    "trueskill",
];

#[test]
fn systems_lists_the_bayesian_systems() {
    let out = podium(&["systems"]);
    for name in BAYESIAN {
        assert!(out.ok().contains(name), "{name} missing");
    }
    let out = podium(&["systems", "trueskill"]);
    assert!(out.ok().contains("--set draw_probability=0 "));
}

#[test]
fn trueskill_one_vs_one_through_the_binary() {
    // trueskill 0.4.5: rate_1vs1(Rating(), Rating()) = (29.396, 7.171), (20.604, 7.171),
    // with its draw probability 0.1.
    let d = Dir::new("ts1v1");
    let games = d.file("g.csv", "match,player,rank\ng1,a,1\ng1,b,2\n");
    let out = podium(&[
        "rate",
        &games,
        "--system",
        "trueskill",
        "--set",
        "draw_probability=0.1",
        "--format",
        "csv",
    ]);
    let rows = csv_rows(out.ok());
    assert_eq!(rows[0]["player"], "a");
    let mu: f64 = rows[0]["rating"].parse().unwrap();
    let sigma: f64 = rows[0]["sigma"].parse().unwrap();
    assert!((mu - 29.39583201999916).abs() < 1e-4, "{mu}");
    assert!((sigma - 7.171475587326195).abs() < 1e-4, "{sigma}");
}

#[test]
fn every_bayesian_system_rates_with_sigma() {
    let d = Dir::new("bayes_all");
    let games = d.file("g.csv", HISTORY);
    for name in BAYESIAN {
        let out = podium(&["rate", &games, "--system", name, "--format", "csv"]);
        let rows = csv_rows(out.ok());
        assert_eq!(rows.len(), 4, "{name}");
        for r in &rows {
            let s: f64 = r["sigma"].parse().unwrap();
            assert!(s > 0.0 && s < 25.0 / 3.0 + 0.1, "{name}: σ {s}");
        }
    }
}

#[test]
fn conservative_display_ranks_by_mu_minus_three_sigma() {
    let d = Dir::new("cons");
    // bo wins once against many; ann wins more often: a high μ with a large σ can rank
    // below a lower μ with a small σ.
    let games = d.file("g.csv", HISTORY);
    let init = d.file(
        "i.csv",
        "player,rating,games,sigma\nann,30,10,1\nbo,32,1,8\ncy,20,5,2\ndee,20,5,2\n",
    );
    let out = podium(&[
        "rate",
        &games,
        "--system",
        "plackett-luce",
        "--initial",
        &init,
        "--display",
        "conservative",
        "--format",
        "csv",
        "--order",
        "rating",
    ]);
    let rows = csv_rows(out.ok());
    let cons: Vec<f64> = rows
        .iter()
        .map(|r| r["conservative"].parse().unwrap())
        .collect();
    for w in cons.windows(2) {
        assert!(w[0] >= w[1], "{cons:?}");
    }
    for r in &rows {
        let mu: f64 = r["rating"].parse().unwrap();
        let s: f64 = r["sigma"].parse().unwrap();
        let c: f64 = r["conservative"].parse().unwrap();
        assert!((c - (mu - 3.0 * s)).abs() < 1e-9);
    }
    assert_eq!(rows[0]["position"], "1");
    let by_mu = podium(&[
        "rate",
        &games,
        "--system",
        "plackett-luce",
        "--initial",
        &init,
        "--format",
        "csv",
        "--order",
        "rating",
    ]);
    let rows_mu = csv_rows(by_mu.ok());
    assert!(!rows_mu[0].contains_key("conservative"));
    assert_ne!(
        rows[0]["player"], rows_mu[0]["player"],
        "the two displays should differ here"
    );
    // A system without σ cannot be shown conservatively.
    let err = podium(&[
        "rate",
        &games,
        "--system",
        "sme",
        "--display",
        "conservative",
    ]);
    assert!(err.err().contains("keeps no σ"), "{}", err.stderr);
}

#[test]
fn predict_sme_from_its_expectation() {
    let d = Dir::new("pred_sme");
    let games = d.file("g.csv", "match,player,rank\ng0,x,1\ng0,y,2\n");
    let init = d.file("i.csv", "player,rating\nann,1600\nbo,1500\n");
    let out = podium(&[
        "predict",
        &games,
        "--system",
        "sme",
        "--initial",
        &init,
        "--players",
        "ann,bo",
        "--format",
        "csv",
    ]);
    let rows = csv_rows(out.ok());
    let win: f64 = rows[0]["win_probability"].parse().unwrap();
    assert!((win - 0.6400649998028851).abs() < 1e-9, "{win}");
    let place: f64 = rows[1]["expected_place"].parse().unwrap();
    assert!((place - 1.6400649998028851).abs() < 1e-9);
    assert_eq!(rows[0]["draw_probability"], "");
    assert_eq!(rows[0]["ahead_of:bo"], rows[0]["win_probability"]);
}

#[test]
fn predict_trueskill_teams_and_unknown_players() {
    let d = Dir::new("pred_ts");
    let games = d.file("g.csv", HISTORY);
    let out = podium(&[
        "predict",
        &games,
        "--system",
        "trueskill",
        "--players",
        "ann+bo,cy+zed",
        "--format",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(out.ok()).unwrap();
    let e = doc["entries"].as_array().unwrap();
    assert_eq!(e.len(), 2);
    assert_eq!(e[1]["unknown_players"], serde_json::json!(["zed"]));
    assert_eq!(e[0]["unknown_players"], serde_json::json!([]));
    let w0 = e[0]["win_probability"].as_f64().unwrap();
    let w1 = e[1]["win_probability"].as_f64().unwrap();
    let draw = doc["draw_probability"].as_f64().unwrap();
    assert!((w0 + w1 + draw - 1.0).abs() < 1e-6);
    assert!(w0 > w1);
    assert!(doc["quality"].as_f64().unwrap() > 0.0);
    let table = |players: &str| {
        podium(&[
            "predict",
            &games,
            "--system",
            "trueskill",
            "--players",
            players,
        ])
    };
    let out = table("ann,zed");
    assert!(out.ok().contains("zed (new)"), "{}", out.stdout);
    assert!(out.ok().contains("draw probability"));
    assert_eq!(out.stderr, "");
    // A new name that is a player's in other case is rated as new, with a note.
    let table = table("ANN,zed");
    assert!(table.ok().contains("ANN (new)"), "{}", table.stdout);
    assert_eq!(
        table.stderr,
        "note: \"ANN\" is not in the history, so it is rated as a new player; did you mean \"ann\"?\n"
    );
}

#[test]
fn predict_rejects_bad_players() {
    let d = Dir::new("pred_bad");
    let games = d.file("g.csv", HISTORY);
    for (spec, msg) in [
        ("ann", "at least 2 entries"),
        ("ann,ann", "more than once"),
        ("ann,,bo", "empty player name"),
        ("ann+,bo", "empty player name"),
    ] {
        let out = podium(&["predict", &games, "--players", spec]);
        assert!(out.err().contains(msg), "{spec}: {}", out.stderr);
    }
}

#[test]
fn absurd_sigmas_are_refused_not_rated() {
    // A σ whose square overflows used to leave the winner at a rating of 0.
    let d = Dir::new("absurd_sigma");
    let games = d.file("g.csv", HISTORY);
    for name in BAYESIAN {
        let out = podium(&["rate", &games, "--system", name, "--set", "sigma=1e155"]);
        assert!(
            out.err().contains(
                "parameter sigma: \"1e155\" is not valid, expected a finite number in [1e-9, 1e9]"
            ),
            "{name}: {}",
            out.err()
        );
    }
    let initial = d.file(
        "initial.csv",
        "player,rating,sigma\nann,25,3\nbo,25,1e155\n",
    );
    let out = podium(&[
        "rate",
        &games,
        "--system",
        "trueskill",
        "--initial",
        &initial,
    ]);
    assert!(
        out.err().contains(&format!(
            "{initial}:3: field `sigma`: player \"bo\": sigma 1e155 is outside the range system trueskill can rate (1e-9 ≤ σ ≤ 1e9)"
        )),
        "{}",
        out.err()
    );
}

#[test]
fn score_margins_are_rated_whichever_reader_reads_the_file() {
    // A plain file of scores is read by the fast reader, which keeps places only; a
    // system that rates margins must get the scores all the same.
    let d = Dir::new("margins");
    let rows = "g1,a,10\ng1,b,3\ng1,c,1\ng2,b,9\ng2,a,8\ng2,c,2\n";
    let plain = d.file("plain.csv", &format!("match,player,score\n{rows}"));
    let weighted: String = rows.lines().map(|l| format!("{l},1\n")).collect();
    let general = d.file(
        "general.csv",
        &format!("match,player,score,weight\n{weighted}"),
    );
    let args = [
        "--system",
        "plackett-luce",
        "--set",
        "margin=1",
        "--format",
        "csv",
    ];
    let fast = podium(&[&["rate", plain.as_str()][..], &args[..]].concat());
    let slow = podium(&[&["rate", general.as_str()][..], &args[..]].concat());
    assert_eq!(fast.ok(), slow.ok());
    let without = podium(&[
        "rate",
        &plain,
        "--system",
        "plackett-luce",
        "--format",
        "csv",
    ]);
    assert_ne!(without.ok(), fast.ok(), "the margin changes the ratings");
}
