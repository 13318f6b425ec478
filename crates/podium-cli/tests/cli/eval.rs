//! `podium simulate`, `backtest`, `tune` and `import codeforces` end to end.

use crate::util::{csv_rows, podium, Dir};

fn field(row: &std::collections::HashMap<String, String>, key: &str) -> f64 {
    row[key].parse().unwrap()
}

#[test]
fn simulate_csv_has_every_system_and_both_references() {
    let out = podium(&[
        "simulate",
        "--systems",
        "sme,pairwise",
        "--trials",
        "40",
        "--rounds",
        "1,3",
        "--format",
        "csv",
    ]);
    let rows = csv_rows(out.ok());
    let names: Vec<&str> = rows.iter().map(|r| r["system"].as_str()).collect();
    assert_eq!(
        names,
        [
            "sme",
            "sme",
            "pairwise",
            "pairwise",
            "mean-score",
            "mean-score",
            "ideal",
            "ideal"
        ]
    );
    for r in &rows {
        let v = field(r, "predictive_ability");
        assert!((0.0..=1.0).contains(&v), "{r:?}");
    }
    assert!((field(&rows[6], "predictive_ability") - 0.8457).abs() < 1e-3);
}

#[test]
fn simulate_is_the_same_for_any_thread_count() {
    let run = |threads: &str| {
        podium(&[
            "simulate",
            "--systems",
            "all",
            "--trials",
            "70",
            "--rounds",
            "2,7",
            "--seed",
            "9",
            "--threads",
            threads,
            "--format",
            "csv",
        ])
        .ok()
        .to_string()
    };
    assert_eq!(run("1"), run("2"));
}

#[test]
fn simulate_reports_elo_as_not_applicable() {
    let out = podium(&[
        "simulate",
        "--systems",
        "elo,sme",
        "--trials",
        "5",
        "--rounds",
        "1",
    ]);
    let text = out.ok();
    assert!(text.contains("n/a"), "{text}");
    assert!(text.contains("exactly 2"), "{text}");
    // With two players elo runs.
    let out = podium(&[
        "simulate",
        "--systems",
        "elo",
        "--true",
        "1400,1600",
        "--trials",
        "20",
        "--rounds",
        "1,10",
        "--format",
        "csv",
    ]);
    let rows = csv_rows(out.ok());
    assert_eq!(rows[0]["system"], "elo");
}

#[test]
fn simulate_settings_per_system_and_true_ratings_file() {
    let d = Dir::new("sim");
    let truth = d.file("truth.txt", "# strengths\n1000\n1500\n2000\n");
    let out = podium(&[
        "simulate",
        "--systems",
        "sme,shares",
        "--true",
        &truth,
        "--trials",
        "20",
        "--rounds",
        "1",
        "--set",
        "sme.k=16",
        "--format",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(out.ok()).unwrap();
    assert_eq!(doc["players"], 3);
    let bad = podium(&["simulate", "--systems", "sme", "--set", "pairwise.k=3"]);
    assert!(
        bad.err().contains("not among the selected"),
        "{}",
        bad.stderr
    );
    let bad = podium(&["simulate", "--systems", "sme", "--set", "sme.nope=3"]);
    assert!(bad.err().contains("nope"), "{}", bad.stderr);
    let bad = podium(&["simulate", "--systems", "nosuch"]);
    assert!(bad.err().contains("nosuch"), "{}", bad.stderr);
    let bad = podium(&["simulate", "--true", "1100:2000:100", "--players", "4"]);
    assert!(bad.err().contains("--players 4"), "{}", bad.stderr);
}

#[test]
fn regression_simulate_names_a_bad_true_rating_and_checks_the_plot_before_running() {
    for (spec, bad) in [("1400,nan", "nan"), ("a,b", "a")] {
        let run = podium(&["simulate", "--systems", "sme", "--true", spec]);
        assert!(
            run.err().contains(&format!(
                "--true {spec:?}: {bad:?} is not valid: expected a finite number"
            )),
            "{}",
            run.stderr
        );
    }
    let d = Dir::new("plot-nowhere");
    let path = d.path("no/such/dir/c.svg");
    let run = podium(&[
        "simulate",
        "--systems",
        "sme",
        "--trials",
        "5",
        "--rounds",
        "1",
        "--plot",
        &path,
    ]);
    assert!(
        run.err()
            .starts_with(&format!("error: --plot {path}: cannot write {path}")),
        "{}",
        run.stderr
    );
    // Refused before the simulation: nothing printed.
    assert_eq!(run.stdout, "");
}

#[test]
fn simulate_plots_svg_and_png() {
    let d = Dir::new("plot");
    for name in ["c.svg", "c.png"] {
        let path = d.path(name);
        podium(&[
            "simulate",
            "--systems",
            "sme,pairwise",
            "--trials",
            "10",
            "--rounds",
            "1,10,100",
            "--plot",
            &path,
        ])
        .ok();
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() > 1000, "{name} is {} bytes", bytes.len());
        if name.ends_with(".svg") {
            let text = String::from_utf8(bytes).unwrap();
            for label in [
                "sme",
                "pairwise",
                "mean-score",
                "ideal",
                "rounds played",
                "predictive ability",
            ] {
                assert!(text.contains(label), "{label} missing from the SVG");
            }
            assert!(text.contains("stroke-dasharray") || text.matches("<line").count() > 50);
        } else {
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        }
    }
    let bad = podium(&[
        "simulate",
        "--trials",
        "2",
        "--rounds",
        "1",
        "--plot",
        &d.path("c.gif"),
    ]);
    assert!(bad.err().contains(".svg or .png"), "{}", bad.stderr);
}

const HISTORY: &str = "match,player,rank\n\
g1,ann,1\ng1,bo,2\ng1,cy,3\n\
g2,ann,1\ng2,cy,2\ng2,bo,3\n\
g3,ann,1\ng3,bo,2\ng3,cy,2\n\
g4,bo,1\ng4,ann,2\n";

#[test]
fn backtest_csv_counts_warm_pairs() {
    let d = Dir::new("bt");
    let games = d.file("g.csv", HISTORY);
    let out = podium(&[
        "backtest",
        &games,
        "--systems",
        "sme,elo",
        "--format",
        "csv",
    ]);
    // elo cannot rate the three-player games: reported, not fatal.
    assert!(out.stderr.contains("elo: not applicable"), "{}", out.stderr);
    let rows = csv_rows(out.ok());
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r["system"], "sme");
    // g2: 3 pairs, g3: 2 (bo and cy tie), g4: 1.
    assert_eq!(r["warm_pairs"], "6");
    let acc = field(r, "pair_accuracy");
    assert!((0.0..=1.0).contains(&acc));
    assert!(field(r, "log_loss") > 0.0);
    assert!(field(r, "seconds") >= 0.0);
}

#[test]
fn backtest_window_scores_only_part() {
    let d = Dir::new("btw");
    let games = d.file("g.csv", HISTORY);
    let out = podium(&[
        "backtest",
        &games,
        "--systems",
        "sme",
        "--from",
        "3",
        "--until",
        "4",
        "--format",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(out.ok()).unwrap();
    assert_eq!(doc[0]["warm_pairs"], 2);
    assert_eq!(doc[0]["matches_scored"], 1);
    assert_eq!(doc[0]["matches_rated"], 4);
    let bad = podium(&["backtest", &games, "--from", "someday"]);
    assert!(bad.err().contains("someday"), "{}", bad.stderr);
    let bad = podium(&["backtest", &games, "--from", "2024-01-01"]);
    assert!(bad.err().contains("has no time"), "{}", bad.stderr);
    // A window past the history, or ending before it starts, scores nothing: an error
    // that gives the history's range, not a table of dashes.
    for (window, said) in [
        (
            &["--from", "9"][..],
            "--from 9: no match falls in this window",
        ),
        (
            &["--from", "3", "--until", "2"][..],
            "--from 3 --until 2: no match falls",
        ),
    ] {
        let mut args = vec!["backtest", games.as_str()];
        args.extend(window);
        let bad = podium(&args);
        assert!(bad.err().contains(said), "{}", bad.stderr);
        assert!(bad.err().contains("numbered 1 to 4,"), "{}", bad.stderr);
    }
}

#[test]
fn backtest_of_a_bad_file_evaluates_nothing() {
    let d = Dir::new("btb");
    let games = d.file(
        "g.csv",
        "match,player,rank\ng1,a,1\ng1,a,2\ng2,a,1\ng2,b,2\n",
    );
    let out = podium(&["backtest", &games, "--systems", "sme"]);
    assert!(out.err().contains("g.csv:3"), "{}", out.stderr);
    assert!(out.stdout.is_empty());
    podium(&["backtest", &games, "--systems", "sme", "--skip-bad"]).ok();
}

fn game_night() -> String {
    crate::util::repo_root()
        .join("examples")
        .join("game-night.csv")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn backtest_table_is_sorted_with_an_uncertainty_and_says_which_way_is_better() {
    // Given worst first: the table still lists the best first, the default marked.
    let games = game_night();
    let out = podium(&[
        "backtest",
        &games,
        "--systems",
        "pairwise,sme,kalman-mmr,elo",
    ]);
    let text = out.ok();
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("│ ")).collect();
    let cells = |i: usize| -> Vec<String> {
        rows[i]
            .trim_matches('│')
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(String::from)
            .collect()
    };
    assert_eq!(cells(0)[..2], ["system", "pair accuracy % ± SE"]);
    assert_eq!(cells(1)[..2], ["kalman-mmr (default)", "59.89 ± 3.62"]);
    assert_eq!(cells(2)[..2], ["sme", "58.29 ± 3.89"]);
    assert_eq!(cells(3)[..2], ["pairwise", "57.22 ± 3.69"]);
    assert_eq!(cells(4)[..2], ["elo", "n/a"]);
    assert!(
        text.contains("Higher pair accuracy and lower log loss are better."),
        "{text}"
    );
    assert!(
        text.contains("± is one standard error with the matches as the units"),
        "{text}"
    );
    // CSV and JSON keep the order given and their columns; the standard error comes last.
    let csv = podium(&[
        "backtest",
        &games,
        "--systems",
        "pairwise,sme",
        "--format",
        "csv",
    ]);
    let header = csv.ok().lines().next().unwrap();
    assert_eq!(
        header,
        "system,pair_accuracy,log_loss,warm_pairs,seconds,accuracy_se"
    );
    let rows = csv_rows(csv.ok());
    assert_eq!(rows[0]["system"], "pairwise");
    assert_eq!(rows[1]["system"], "sme");
    assert!((field(&rows[1], "pair_accuracy") - 109.0 / 187.0).abs() < 1e-12);
    assert!((field(&rows[1], "accuracy_se") - 0.038_891_12).abs() < 1e-8);
    assert!((field(&rows[0], "accuracy_se") - 0.036_863_91).abs() < 1e-8);
    let json = podium(&["backtest", &games, "--systems", "sme", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(json.ok()).unwrap();
    let se = doc[0]["accuracy_se"].as_f64().unwrap();
    assert!((se - 0.038_891_12).abs() < 1e-8, "{se}");
}

/// Forty three-player matches: a, b, c in that order, but b ahead of a in every fourth.
fn a_beats_b_three_times_in_four() -> String {
    let mut text = String::from("match,player,rank\n");
    for i in 0..40 {
        let order = if i % 4 == 3 {
            ["b", "a", "c"]
        } else {
            ["a", "b", "c"]
        };
        for (p, name) in order.iter().enumerate() {
            text.push_str(&format!("g{i},{name},{}\n", p + 1));
        }
    }
    text
}

#[test]
fn tune_reports_the_choice_and_held_out_accuracy() {
    let d = Dir::new("tune");
    let games = d.file("g.csv", &a_beats_b_three_times_in_four());
    let out = podium(&[
        "tune", &games, "--system", "sme", "--param", "k=8..64", "--train", "0.5", "--format",
        "csv",
    ]);
    let rows = csv_rows(out.ok());
    assert_eq!(rows.len(), 8 + 1);
    assert_eq!(rows[0]["role"], "chosen");
    assert!(rows[0]["settings"].starts_with("k="));
    assert!(field(&rows[0], "test_pair_accuracy") > 0.5);
    assert_eq!(rows[8]["role"], "defaults");
    let table = podium(&[
        "tune", &games, "--system", "sme", "--param", "k=16,64", "--metric", "log-loss",
    ]);
    assert!(table.ok().contains("chosen: k=64"), "{}", table.stdout);
    let json = podium(&[
        "tune", &games, "--system", "sme", "--param", "k=8..64", "--random", "3", "--seed", "5",
        "--metric", "log-loss", "--format", "json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(json.ok()).unwrap();
    assert_eq!(doc["candidates"].as_array().unwrap().len(), 3);
    assert_eq!(doc["train_matches"], 20);
    let losses: Vec<f64> = doc["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["train"]["log_loss"].as_f64().unwrap())
        .collect();
    assert!(losses.windows(2).all(|w| w[0] <= w[1]), "{losses:?}");
    let bad = podium(&["tune", &games, "--system", "sme", "--param", "k=64..8"]);
    assert!(bad.err().contains("LO ≤ HI"), "{}", bad.stderr);
}

#[test]
fn tune_says_when_the_defaults_are_as_good() {
    // On the game nights the best k on the first half (8) orders 57 of the 99 held-out
    // pairs right; sme's defaults (k = 32) order 60.
    let games = game_night();
    let args = ["tune", &games, "--system", "sme", "--param", "k=8..64"];
    let text = podium(&args).ok().to_string();
    let verdict = text.lines().nth(1).unwrap();
    assert_eq!(
        verdict,
        "keep the defaults: the best on the training part, k=8, is not better than the \
         defaults on the held-out part (pair accuracy 57.6 % against the defaults' 60.6 %; \
         higher is better)"
    );
    assert!(!text.contains("chosen:"), "{text}");
    // Each accuracy with its standard error over matches.
    assert_eq!(
        text.lines().nth(3).unwrap(),
        "  held out: pair accuracy 57.6 ± 5.7 %, log loss 0.6878, 99 warm pairs"
    );
    assert_eq!(
        text.lines().nth(4).unwrap(),
        "  defaults, held out: pair accuracy 60.6 ± 6.4 %, log loss 0.6831, 99 warm pairs"
    );
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(podium(&json).ok()).unwrap();
    assert_eq!(doc["keep_defaults"], true);
    assert!((doc["test"]["pair_accuracy"].as_f64().unwrap() - 57.0 / 99.0).abs() < 1e-12);
    assert!((doc["defaults_test"]["pair_accuracy"].as_f64().unwrap() - 60.0 / 99.0).abs() < 1e-12);

    // As good is not better: both order 55 of 60 held-out pairs right.
    let d = Dir::new("tune-as-good");
    let g = d.file("g.csv", &a_beats_b_three_times_in_four());
    let text = podium(&["tune", &g, "--system", "sme", "--param", "k=8..64"])
        .ok()
        .to_string();
    assert!(
        text.contains("keep the defaults: the best on the training part, k=8, is not better than the defaults on the held-out part (pair accuracy 91.7 % against the defaults' 91.7 %"),
        "{text}"
    );
    // By log loss a larger k is better there, and is chosen.
    let text = podium(&[
        "tune", &g, "--system", "sme", "--param", "k=8..64", "--metric", "log-loss",
    ])
    .ok()
    .to_string();
    assert!(
        text.contains("chosen: k=64 (better than the defaults on the held-out part: log loss 0.2555 against 0.2898; lower is better)"),
        "{text}"
    );
}

#[test]
fn regression_tune_grids_and_samples_beyond_the_limit_are_refused_before_reading() {
    let d = Dir::new("tune-limit");
    let games = d.file(
        "g.csv",
        "match,player,rank\ng1,a,1\ng1,b,2\ng2,b,1\ng2,a,2\n",
    );
    for (args, message) in [
        (
            &["--param", "k=8..64", "--steps", "1000000000"][..],
            "the grid has 1000000000 candidates (k: 1000000000 values); at most 10000 are searched",
        ),
        (
            &[
                "--param",
                "k=8..64",
                "--param",
                "scale=100..400",
                "--steps",
                "100000",
            ][..],
            "the grid has 10000000000 candidates (k: 100000 values, scale: 100000 values)",
        ),
        (
            &["--param", "k=8..64:0.0000001"][..],
            "the grid has 560000001 candidates",
        ),
        (
            &["--param", "k=8..64", "--random", "1000000000000"][..],
            "--random 1000000000000: at most 10000 random samples are searched",
        ),
    ] {
        let mut all = vec!["tune", games.as_str(), "--system", "sme"];
        all.extend_from_slice(args);
        let out = podium(&all);
        assert!(out.err().contains(message), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn regression_tune_refuses_a_search_of_nothing_or_of_a_parameter_twice() {
    let games = game_night();
    for (args, message) in [
        (
            &["--param", "k=8..64", "--random", "0"][..],
            "--random 0: expected at least 1 random sample",
        ),
        (
            &["--param", "k=8..64", "--steps", "0"][..],
            "--steps 0: expected at least 1 value per range",
        ),
        (
            &["--param", "k=8..64", "--top", "0"][..],
            "--top 0: expected at least 1",
        ),
        (
            &["--param", "k=1,,2"][..],
            "--param \"k=1,,2\": expected a value between every two commas",
        ),
        (
            &["--param", "k=8..64", "--param", "k=16,32"][..],
            "--param k: the parameter is given twice",
        ),
        (
            &["--param", "k=8..64", "--set", "k=10"][..],
            "--param k and --set k: a parameter is either searched (--param) or held fixed",
        ),
        (
            &["--param", "k=8..64", "--set", "sme.k=10"][..],
            "--param k and --set k",
        ),
        (
            &["--param", "k=8..64", "--train", "0.01"][..],
            "the training part (the first 1 of 45 matches, --train 0.01) is too small",
        ),
        (
            &["--param", "k=8..64", "--random", "3", "--steps", "5"][..],
            "--steps and --random: --steps sets the grid's values per range, which a random search has none of",
        ),
        (
            &["--param", "elo.k=8,16"][..],
            "--param elo.k: names system \"elo\", but tune searches sme; expected KEY=VALUES or sme.KEY=VALUES",
        ),
        (
            &["--param", "sme.k=8..64", "--set", "k=10"][..],
            "--param k and --set k",
        ),
    ] {
        let mut all = vec!["tune", games.as_str(), "--system", "sme"];
        all.extend_from_slice(args);
        let out = podium(&all);
        assert!(out.err().contains(message), "{args:?}: {}", out.stderr);
    }
}

/// `--param sme.k=…` searches sme's k as `--param k=…` does, and a random search of a
/// list draws each value once.
#[test]
fn tune_takes_the_system_s_prefix_and_draws_distinct_candidates() {
    let games = game_night();
    let settings = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["tune", games.as_str(), "--system", "sme", "--format", "csv"];
        all.extend_from_slice(args);
        let run = podium(&all);
        let mut rows: Vec<String> = run
            .ok()
            .lines()
            .skip(1)
            .filter(|l| l.starts_with("chosen,") || l.starts_with("candidate,"))
            .map(|l| l.split(',').nth(1).unwrap().to_string())
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(
        settings(&["--param", "sme.k=8,16"]),
        settings(&["--param", "k=8,16"])
    );
    assert_eq!(settings(&["--param", "k=8,16"]), ["k=16", "k=8"]);
    assert_eq!(
        settings(&["--param", "k=16,24,32", "--random", "5"]),
        ["k=16", "k=24", "k=32"]
    );
}

/// The command line's messages name its own arguments (`--steps`, `--random`,
/// `--train`), never Python's; a history too short for any training part says so; and a
/// grid beyond counting gives its order of magnitude.
#[test]
fn tune_messages_name_the_command_lines_arguments() {
    let d = Dir::new("tune-words");
    let games = d.file(
        "g.csv",
        "match,player,rank\ng1,a,1\ng1,b,2\ng2,b,1\ng2,a,2\n",
    );
    for (args, message) in [
        (
            &["--param", "k=1..1000000:1"][..],
            "error: the grid has 1000000 candidates (k: 1000000 values); at most 10000 are \
             searched: give fewer values per range (--steps), a larger step (LO..HI:STEP), \
             fewer values or fewer parameters\n",
        ),
        (
            &["--param", "k=0..1e300:1e-300"][..],
            "error: the grid has about 1e600 candidates (k: about 1e600 values); at most \
             10000 are searched: give fewer values per range (--steps), a larger step \
             (LO..HI:STEP), fewer values or fewer parameters\n",
        ),
        (
            &["--param", "k=8..64", "--random", "20000"][..],
            "error: --random 20000: at most 10000 random samples are searched\n",
        ),
        (
            &["--param", "k=8..64", "--random", "0"][..],
            "error: --random 0: expected at least 1 random sample\n",
        ),
        (
            &["--param", "k=8..64", "--train", "0.9"][..],
            "error: the history is too short to tune on: the largest training part, its \
             first 1 match (one held out), holds no warm pair (two players both rated \
             before) to tell the candidates apart\n",
        ),
        (
            &["--param", "k=8..64", "--train", "1.5"][..],
            "error: --train 1.5: expected a fraction between 0 and 1 (exclusive)\n",
        ),
    ] {
        let mut all = vec!["tune", games.as_str(), "--system", "sme"];
        all.extend_from_slice(args);
        let out = podium(&all);
        assert_eq!(out.err(), message, "{args:?}");
    }
}

/// `--format csv` and `json` carry each accuracy's standard error over matches (as
/// `podium backtest` computes it on the same matches) and whether to keep the defaults.
#[test]
fn tune_csv_and_json_carry_the_standard_errors_and_the_verdict() {
    let games = game_night();
    let args = ["tune", &games, "--system", "sme", "--param", "k=8..64"];
    let mut csv = args.to_vec();
    csv.extend(["--format", "csv"]);
    let out = podium(&csv);
    let text = out.ok();
    assert_eq!(
        text.lines().next().unwrap(),
        "role,settings,train_pair_accuracy,train_log_loss,test_pair_accuracy,test_log_loss,\
         test_warm_pairs,train_accuracy_se,test_accuracy_se,keep_defaults"
    );
    let rows = csv_rows(text);
    let (chosen, defaults) = (&rows[0], &rows[8]);
    assert_eq!(chosen["settings"], "k=8");
    assert_eq!(chosen["keep_defaults"], "true");
    assert_eq!(rows[1]["keep_defaults"], "");
    assert_eq!(defaults["role"], "defaults");
    assert_eq!(defaults["keep_defaults"], "");
    assert_eq!(defaults["train_accuracy_se"], "");
    // The same standard errors as backtest's on the training part (matches 1..23) and the
    // held-out part (24..45), for k=8 and the defaults.
    let backtest_se = |extra: &[&str]| -> f64 {
        let mut a = vec![
            "backtest",
            games.as_str(),
            "--systems",
            "sme",
            "--format",
            "csv",
        ];
        a.extend_from_slice(extra);
        field(&csv_rows(podium(&a).ok())[0], "accuracy_se")
    };
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    let train_se = backtest_se(&["--set", "k=8", "--until", "24"]);
    let test_se = backtest_se(&["--set", "k=8", "--from", "24"]);
    let defaults_se = backtest_se(&["--from", "24"]);
    assert!((train_se - 0.043138).abs() < 1e-6, "{train_se}");
    assert!((test_se - 0.056825).abs() < 1e-6, "{test_se}");
    assert!((defaults_se - 0.063584).abs() < 1e-6, "{defaults_se}");
    assert!(close(field(chosen, "train_accuracy_se"), train_se));
    assert!(close(field(chosen, "test_accuracy_se"), test_se));
    assert!(close(field(defaults, "test_accuracy_se"), defaults_se));
    // A candidate's row has its training standard error only.
    assert!(field(&rows[1], "train_accuracy_se") > 0.0);
    assert_eq!(rows[1]["test_accuracy_se"], "");

    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(podium(&json).ok()).unwrap();
    assert_eq!(doc["keep_defaults"], true);
    let se = |v: &serde_json::Value| v["accuracy_se"].as_f64().unwrap();
    assert!(close(se(&doc["test"]), test_se));
    assert!(close(se(&doc["defaults_test"]), defaults_se));
    assert!(close(se(&doc["candidates"][0]["train"]), train_se));

    // Where the chosen setting beats the defaults held out, the verdict is false.
    let d = Dir::new("tune-verdict");
    let g = d.file("g.csv", &a_beats_b_three_times_in_four());
    let rows = csv_rows(
        podium(&[
            "tune", &g, "--system", "sme", "--param", "k=8..64", "--metric", "log-loss",
            "--format", "csv",
        ])
        .ok(),
    );
    assert_eq!(rows[0]["settings"], "k=64");
    assert_eq!(rows[0]["keep_defaults"], "false");
}

/// The table gives each candidate's training accuracy with decimals enough that two
/// candidates that differ (by the JSON's full precision) read differently, and two equal
/// ones alike.
#[test]
fn tune_table_tells_apart_candidates_that_differ() {
    let d = Dir::new("tune-decimals");
    // 600 four-player matches among 12 players, the lower-numbered usually ahead.
    let mut text = String::from("match,player,rank\n");
    let mut state: u64 = 12345;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    for m in 0..600 {
        let mut players: Vec<usize> = Vec::new();
        while players.len() < 4 {
            let p = next() % 12;
            if !players.contains(&p) {
                players.push(p);
            }
        }
        players.sort_by_key(|&p| p * 10 + next() % 70);
        for (place, p) in players.iter().enumerate() {
            text.push_str(&format!("g{m},p{p},{}\n", place + 1));
        }
    }
    let games = d.file("g.csv", &text);
    let args = [
        "tune",
        &games,
        "--system",
        "sme",
        "--param",
        "k=20..36:1",
        "--top",
        "17",
    ];
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(podium(&json).ok()).unwrap();
    let exact: Vec<f64> = doc["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| 100.0 * c["train"]["pair_accuracy"].as_f64().unwrap())
        .collect();
    assert_eq!(exact.len(), 17);
    let table = podium(&args).ok().to_string();
    let shown: Vec<String> = table
        .lines()
        .filter(|l| l.starts_with("│") && l.contains(" k="))
        .map(|l| l.split_whitespace().nth(3).unwrap().to_string())
        .collect();
    assert_eq!(shown.len(), 17, "{table}");
    // With one decimal, some different accuracies would read alike.
    let one = |v: f64| format!("{v:.1}");
    let close_pair = (0..17)
        .flat_map(|i| (0..17).map(move |j| (i, j)))
        .any(|(i, j)| exact[i] != exact[j] && one(exact[i]) == one(exact[j]));
    assert!(close_pair, "{exact:?}");
    for i in 0..17 {
        for j in 0..17 {
            assert_eq!(
                exact[i] == exact[j],
                shown[i] == shown[j],
                "{i} {j}: {exact:?}\n{table}"
            );
        }
    }
    assert_eq!(
        shown[0],
        format!("{:.*}", shown[0].split('.').nth(1).unwrap().len(), exact[0])
    );
}

/// `--scores both` runs each system that reads scores on ranks only too; with
/// `--factor`, that run keeps the factors and its name says so.
#[test]
fn backtest_scores_both_names_the_ranks_only_run_and_its_factors() {
    let games = game_night();
    let names = |extra: &[&str]| -> Vec<String> {
        let mut a = vec![
            "backtest",
            games.as_str(),
            "--systems",
            "kalman-mmr,sme",
            "--scores",
            "both",
            "--format",
            "csv",
        ];
        a.extend_from_slice(extra);
        csv_rows(podium(&a).ok())
            .iter()
            .map(|r| r["system"].clone())
            .collect()
    };
    assert_eq!(names(&[]), ["kalman-mmr", "kalman-mmr (ranks only)", "sme"]);
    assert_eq!(
        names(&["--factor", "seat"]),
        [
            "kalman-mmr",
            "kalman-mmr (factor-blind)",
            "kalman-mmr (ranks only, with seat)",
            "sme",
            "sme (factor-blind)",
        ]
    );
    // The ranks-only run with the seat is the run on places with the factors: the same
    // figures as `--scores ranks --factor seat`.
    let with = |scores: &str| {
        csv_rows(
            podium(&[
                "backtest",
                &games,
                "--systems",
                "kalman-mmr",
                "--factor",
                "seat",
                "--scores",
                scores,
                "--format",
                "csv",
            ])
            .ok(),
        )
    };
    let both = with("both");
    let ranks = with("ranks");
    assert_eq!(both[2]["pair_accuracy"], ranks[0]["pair_accuracy"]);
    assert_eq!(both[2]["log_loss"], ranks[0]["log_loss"]);
    assert!((field(&both[2], "pair_accuracy") - 110.0 / 187.0).abs() < 1e-12);
}

#[test]
fn regression_tune_keeps_every_digit_of_small_grid_values() {
    // Rounded to four decimals, every value read 0: `parameter epsilon: "0" is not valid`.
    let games = game_night();
    let args = [
        "tune",
        &games,
        "--system",
        "glicko2",
        "--param",
        "epsilon=0.000001..0.00001",
        "--steps",
        "3",
    ];
    let mut csv = args.to_vec();
    csv.extend(["--format", "csv"]);
    let rows = csv_rows(podium(&csv).ok());
    let mut searched: Vec<&str> = rows[..3].iter().map(|r| r["settings"].as_str()).collect();
    searched.sort_unstable();
    assert_eq!(
        searched,
        ["epsilon=0.000001", "epsilon=0.0000055", "epsilon=0.00001"]
    );
    assert!(podium(&args).ok().contains("│ 2   epsilon=0.0000055 "));
    // The chosen setting is one `--set` takes.
    let chosen = format!("glicko2.{}", rows[0]["settings"]);
    podium(&["backtest", &games, "--systems", "glicko2", "--set", &chosen]).ok();

    // A value the table rounds keeps every digit in CSV; the table shows digits enough to
    // tell the candidates apart.
    let args = ["tune", &games, "--system", "sme", "--param", "k=1e-300..1"];
    let text = podium(&args).ok().to_string();
    for k in ["k=1e-300 ", "k=0.142857 ", "k=0.857143 ", "k=1 "] {
        assert!(text.contains(k), "{k}: {text}");
    }
    let mut csv = args.to_vec();
    csv.extend(["--format", "csv"]);
    let rows = csv_rows(podium(&csv).ok());
    let mut searched: Vec<&str> = rows[..8].iter().map(|r| r["settings"].as_str()).collect();
    searched.sort_unstable();
    assert_eq!(
        searched,
        [
            "k=0.142857142857143",
            "k=0.285714285714286",
            "k=0.428571428571429",
            "k=0.571428571428571",
            "k=0.714285714285714",
            "k=0.857142857142857",
            "k=1",
            "k=1e-300"
        ]
    );
}

#[test]
fn regression_tune_over_a_range_wider_than_the_largest_f64_names_the_value_not_a_panic() {
    let games = game_night();
    for (args, value) in [
        (&["--random", "2"][..], "-1.9502867267030388e307"),
        (&["--steps", "3"][..], "-1e308"),
    ] {
        let mut all = vec![
            "tune",
            &games,
            "--system",
            "sme",
            "--param",
            "k=-1e308..1e308",
        ];
        all.extend_from_slice(args);
        assert_eq!(
            podium(&all).err(),
            format!(
                "error: parameter k: \"{value}\" is not valid, expected a finite number in (0, \
                 1e9]\n"
            ),
            "{args:?}"
        );
    }
}

/// One match, candidate or warm pair is named in the singular.
#[test]
fn tune_and_backtest_name_one_thing_in_the_singular() {
    let d = Dir::new("tune-one");
    let games = d.file(
        "g.csv",
        "match,player,rank\ng1,a,1\ng1,b,2\ng2,a,1\ng2,b,2\ng3,b,1\ng3,a,2\n",
    );
    let out = podium(&["tune", &games, "--system", "sme", "--param", "k=8"]);
    let lines: Vec<&str> = out.ok().lines().collect();
    assert_eq!(
        lines[0],
        "Tuned sme on matches 1..2 (1 candidate, by pair accuracy); held out: match 3"
    );
    assert_eq!(
        lines[2],
        "  training: pair accuracy 100.0 %, log loss –, 1 warm pair"
    );
    let one = d.file("one.csv", "match,player,rank\ng1,a,1\ng1,b,2\n");
    let out = podium(&["tune", &one, "--system", "sme", "--param", "k=8"]);
    assert_eq!(
        out.err(),
        "error: 1 match cannot be split into a training and a held-out part; need at least 2\n"
    );
    let out = podium(&["backtest", &one, "--from", "5"]);
    assert_eq!(
        out.err(),
        "error: --from 5: no match falls in this window, so none would be scored: the one \
         match is number 1, and a window runs from --from up to, not including, --until\n"
    );
}

#[test]
fn import_codeforces_orders_by_id_and_keeps_ties() {
    let d = Dir::new("cf");
    d.file("10.txt", "3\nann 1 1\nbo 2 3\ncy 2 3\n");
    d.file("9.txt", "2\nbo 1 1\nann 2 2\n");
    d.file("11.txt", "0\n");
    d.file("notes.md", "ignored\n");
    let out = podium(&["import", "codeforces", &d.0.to_string_lossy()]);
    assert_eq!(
        out.stderr,
        format!(
            "skipped 1 file of {} holding no match (line 1 counts 0 contestants): 11.txt\n",
            d.0.display()
        )
    );
    let rows = csv_rows(out.ok());
    let got: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| (r["match"].clone(), r["player"].clone(), r["rank"].clone()))
        .collect();
    let want: Vec<(String, String, String)> = [
        ("9", "bo", "1"),
        ("9", "ann", "2"),
        ("10", "ann", "1"),
        ("10", "bo", "2"),
        ("10", "cy", "2"),
    ]
    .iter()
    .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    .collect();
    assert_eq!(got, want);
    d.file("12.txt", "2\nann 1 1\n");
    let bad = podium(&["import", "codeforces", &d.0.to_string_lossy()]);
    assert!(bad.err().contains("12.txt"), "{}", bad.stderr);
}

/// Every file of the directory that gives no match is named on standard error, with
/// why; so is a contest read with rows whose rankHi is below their rankLo.
#[test]
fn import_codeforces_names_every_file_it_leaves_out() {
    let d = Dir::new("cf-out");
    d.file("9.txt", "2\nbo 1 1\nann 2 2\n");
    d.file("9 (1).txt", "2\nbo 1 1\nann 2 2\n");
    d.file("notes.txt", "contest 9 was rated\n");
    d.file("11.txt", "0\n");
    d.file("12.txt", "");
    d.file("13.txt", "1\nsolo 1 1\n");
    d.file("14.txt", "0\n");
    d.file("589.txt", "3\nann 1 1\nbo 3 2\ncy 4 3\n");
    let out = podium(&["import", "codeforces", &d.0.to_string_lossy()]);
    let dir = d.0.display();
    assert_eq!(
        out.stderr,
        format!(
            "{}: 2 rows of contest 589 have rankHi below rankLo; places follow rankLo\n\
             left out 2 files of {dir} not named <contest id>.txt: 9 (1).txt, notes.txt\n\
             skipped 2 files of {dir} holding no match (line 1 counts 0 contestants): 11.txt, 14.txt\n\
             skipped 1 file of {dir} holding no match (empty): 12.txt\n\
             skipped 1 file of {dir} holding no match (a single contestant, which is not a match): 13.txt\n",
            d.0.join("589.txt").display()
        )
    );
    let rows = csv_rows(out.ok());
    let matches: Vec<&str> = rows.iter().map(|r| r["match"].as_str()).collect();
    assert_eq!(matches, ["9", "9", "589", "589", "589"]);
}

#[test]
fn simulate_seat_advantage_reports_both_runs_and_the_learned_seat() {
    let args = [
        "simulate",
        "--systems",
        "pairwise,proportional",
        "--true",
        "1450:1550:20",
        "--seat-advantage",
        "50",
        "--rounds",
        "0,50",
        "--trials",
        "10",
        "--seed",
        "7",
    ];
    let mut csv = args.to_vec();
    csv.extend(["--format", "csv"]);
    let rows = csv_rows(podium(&csv).ok());
    let names: Vec<&str> = rows.iter().map(|r| r["system"].as_str()).collect();
    assert_eq!(
        names,
        [
            "pairwise",
            "pairwise",
            "pairwise (seat-blind)",
            "pairwise (seat-blind)",
            "proportional (seat-blind)",
            "proportional (seat-blind)",
            "mean-score",
            "mean-score",
            "ideal",
            "ideal"
        ]
    );
    assert_eq!(field(&rows[0], "seat_advantage"), 0.0);
    assert!(field(&rows[1], "seat_advantage") > 0.0);
    assert_eq!(rows[2]["seat_advantage"], "");
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(podium(&json).ok()).unwrap();
    assert_eq!(doc["seat_advantage"], 50.0);
    let learned = &doc["learned_seat_advantage"][0];
    assert_eq!(learned["system"], "pairwise");
    assert_eq!(learned["advantage"].as_array().unwrap().len(), 2);
    assert_eq!(doc["not_applicable"][0]["system"], "proportional");
    let table = podium(&args).ok().to_string();
    assert!(table.contains("Learned advantage of seat 1"), "{table}");
    assert!(table.contains("n/a: proportional cannot rate"), "{table}");
}

#[test]
fn backtest_names_the_bound_it_cannot_read() {
    let d = Dir::new("bt-bounds");
    let games = d.file("g.csv", HISTORY);
    for (flag, value, said) in [
        (
            "--from",
            "2025-13-01",
            "error: --from \"2025-13-01\": neither a match number (1 = the first match rated) nor a date (YYYY-MM-DD or RFC 3339)\n",
        ),
        (
            "--until",
            "soon",
            "error: --until \"soon\": neither a match number (1 = the first match rated) nor a date (YYYY-MM-DD or RFC 3339)\n",
        ),
        (
            "--until",
            "0",
            "error: --until 0: match numbers start at 1 (the first match rated)\n",
        ),
    ] {
        let bad = podium(&["backtest", &games, "--systems", "sme", flag, value]);
        assert_eq!(bad.err(), said);
        assert_eq!(bad.stdout, "");
    }
}

#[test]
fn simulate_and_backtest_name_a_bad_system_or_setting_once() {
    let d = Dir::new("bt-systems");
    let games = d.file("g.csv", HISTORY);
    for command in [
        vec!["simulate", "--trials", "1"],
        vec!["backtest", games.as_str()],
    ] {
        let run = |extra: &[&str]| {
            let mut args = command.clone();
            args.extend(extra);
            podium(&args).err().to_string()
        };
        // As `podium rate --system` says it.
        assert_eq!(
            run(&["--systems", "smee"]),
            podium(&["rate", &games, "--system", "smee"]).err()
        );
        assert!(
            run(&["--systems", "smee"])
                .starts_with("error: unknown system \"smee\"; known systems: elo, sme, "),
            "{}",
            run(&["--systems", "smee"])
        );
        assert_eq!(
            run(&["--systems", "sme,glicko", "--set", "k=16"]),
            "error: system glicko has no parameter \"k\"; its parameters: rating, rd, c, rd_per_day, factor_rd\n"
        );
        // A value out of range does not name the system by itself: the prefix does.
        assert_eq!(
            run(&["--systems", "sme,glicko", "--set", "sme.k=abc"]),
            "error: system sme: parameter k: \"abc\" is not valid, expected a finite number in (0, 1e9]\n"
        );
    }
}

#[test]
fn one_of_a_kind_is_counted_in_the_singular() {
    let d = Dir::new("bt-one");
    let one = d.file("one.csv", "match,player,rank\ng1,ann,1\ng1,bo,2\n");
    let out = podium(&["backtest", &one, "--systems", "sme"]);
    assert_eq!(
        out.ok().lines().next().unwrap(),
        "Backtest on 1 match (1 scored): predictions before each match, warm pairs only"
    );
    let out = podium(&[
        "simulate",
        "--systems",
        "sme",
        "--trials",
        "1",
        "--rounds",
        "1",
    ]);
    assert_eq!(
        out.ok().lines().next().unwrap(),
        "Predictive ability (%) of 10 players, game scores ~ Normal(true rating, 200), 1 trial, seed 1"
    );
}
