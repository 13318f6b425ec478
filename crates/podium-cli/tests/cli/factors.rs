//! Factors end to end: `--factor COLUMN` on reading, `rate --factors`, `predict` with an
//! entry's factors, and `explain`. The figures are pairwise Elo (K = 32, D = 400), worked
//! by hand: two races, each a virtual game of two entries.
//!
//! - r1: ann (car red) beats bo (car blue). All at 0 / 1500, so E = ½: ann +16, bo −16,
//!   red +16, blue −16.
//! - r2: cy (car blue) beats dee (car red). Strengths cy 1500 − 16 = 1484, dee 1516:
//!   E(cy) = 1 / (1 + 10^(32/400)) = 0.454078…, so cy gains 32 · (1 − E) = 17.4695…,
//!   dee and red lose as much, blue gains it: red −1.4695, blue +1.4695.

use crate::util::{csv_rows, podium, Dir};

const RACES: &str =
    "match,player,rank,car\nr1,ann,1,red\nr1,bo,2,blue\nr2,cy,1,blue\nr2,dee,2,red\n";

/// cy's gain in r2.
fn gain() -> f64 {
    32.0 * (1.0 - 1.0 / (1.0 + 10f64.powf(32.0 / 400.0)))
}

/// `podium rate FILE` with pairwise, the car as a factor and the factors' table.
/// `podium rate FILE --system pairwise --factor car` and the arguments given.
fn rate_with_cars(file: &str, more: &[&str]) -> crate::util::Run {
    let mut args = vec!["rate", file, "--system", "pairwise", "--factor", "car"];
    args.extend_from_slice(more);
    podium(&args)
}

/// The factors' table in `format`.
fn rate_cars(file: &str, format: &str) -> crate::util::Run {
    rate_with_cars(file, &["--factors", "--format", format])
}

fn num(v: &str) -> f64 {
    v.parse().unwrap()
}

#[test]
fn rate_with_factors_lists_them_with_their_ratings() {
    let d = Dir::new("factors-rate");
    let races = d.file("races.csv", RACES);
    let out = rate_cars(&races, "csv");
    let text = out.ok();
    let (players, factors) = text.split_once("\n\n").expect("two tables");
    let players = csv_rows(players);
    let rating = |p: &str| num(&players.iter().find(|r| r["player"] == p).unwrap()["rating"]);
    assert!((rating("ann") - 1516.0).abs() < 1e-9);
    assert!((rating("bo") - 1484.0).abs() < 1e-9);
    assert!((rating("cy") - (1500.0 + gain())).abs() < 1e-9);
    assert!((rating("dee") - (1500.0 - gain())).abs() < 1e-9);
    let factors = csv_rows(factors);
    assert_eq!(factors.len(), 2);
    // Best first within the kind: blue, then red.
    assert_eq!(
        (&*factors[0]["kind"], &*factors[0]["value"]),
        ("car", "blue")
    );
    assert!((num(&factors[0]["rating"]) - (gain() - 16.0)).abs() < 1e-9);
    assert!((num(&factors[1]["rating"]) - (16.0 - gain())).abs() < 1e-9);
    for f in &factors {
        assert_eq!(f["matches"], "2");
        assert_eq!(f["wins"], "1");
        assert!((num(&f["win_pct"]) - 50.0).abs() < 1e-9);
        // Two entries a race: an average entry wins half.
        assert!((num(&f["expected_win_pct"]) - 50.0).abs() < 1e-9);
    }
    // The leaderboard alone by default; the table and JSON forms hold the same factors.
    let plain = rate_with_cars(&races, &[]);
    assert!(!plain.ok().contains("blue"), "{}", plain.stdout);
    let table = rate_with_cars(&races, &["--factors"]);
    assert!(table.ok().contains("+1.47"), "{}", table.stdout);
    assert!(table.ok().contains("-1.47"), "{}", table.stdout);
    let json = rate_cars(&races, "json");
    let v: serde_json::Value = serde_json::from_str(json.ok()).unwrap();
    assert_eq!(v["players"].as_array().unwrap().len(), 4);
    assert_eq!(v["factors"][1]["value"], "red");
    assert!((v["factors"][1]["rating"].as_f64().unwrap() - (16.0 - gain())).abs() < 1e-9);
    // --factors without --factor is refused.
    let err = podium(&["rate", &races, "--factors"]);
    assert!(err.err().contains("--factor"), "{}", err.stderr);
}

#[test]
fn the_history_has_a_row_per_factor_per_match() {
    let d = Dir::new("factor-history");
    let races = d.file("races.csv", RACES);
    let out = rate_with_cars(&races, &["--history", "-"]);
    let rows = csv_rows(out.ok());
    let cols: Vec<(&str, &str, &str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["match"].as_str(),
                r["player"].as_str(),
                r["place"].as_str(),
                r["factor_kind"].as_str(),
                r["factor_value"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        cols,
        [
            ("r1", "ann", "1", "", ""),
            ("r1", "bo", "2", "", ""),
            ("r1", "", "", "car", "red"),
            ("r1", "", "", "car", "blue"),
            ("r2", "cy", "1", "", ""),
            ("r2", "dee", "2", "", ""),
            // A match's factors in the order its entries first carry them.
            ("r2", "", "", "car", "blue"),
            ("r2", "", "", "car", "red"),
        ]
    );
    let change = |i: usize| num(&rows[i]["change"]);
    assert!((change(2) - 16.0).abs() < 1e-9 && (change(3) + 16.0).abs() < 1e-9);
    assert!((change(6) - gain()).abs() < 1e-9 && (change(7) + gain()).abs() < 1e-9);
    assert!((num(&rows[7]["rating_after"]) - (16.0 - gain())).abs() < 1e-9);
    // Without --factor the history keeps its columns.
    let plain = podium(&["rate", &races, "--system", "pairwise", "--history", "-"]);
    let header = plain.ok().lines().next().unwrap().to_string();
    assert!(header.ends_with(",sigma_after"), "{header}");
}

#[test]
fn a_factor_named_like_a_player_is_another_thing() {
    let d = Dir::new("factors-names");
    // The car "ann" is not the player ann.
    let races = d.file(
        "races.csv",
        "match,player,rank,car\nr1,ann,1,bo\nr1,bo,2,ann\n",
    );
    let out = rate_cars(&races, "csv");
    let (players, factors) = out.ok().split_once("\n\n").unwrap();
    let players = csv_rows(players);
    assert_eq!(players.len(), 2);
    assert!((num(&players[0]["rating"]) - 1516.0).abs() < 1e-9);
    let factors = csv_rows(factors);
    assert_eq!(factors[0]["value"], "bo");
    assert!((num(&factors[0]["rating"]) - 16.0).abs() < 1e-9);
}

#[test]
fn factor_errors_name_the_column_file_line_and_systems() {
    let d = Dir::new("factors-errors");
    let races = d.file("races.csv", RACES);
    let out = podium(&["rate", &races, "--factor", "seat"]);
    let err = out.err();
    assert!(
        err.contains("races.csv:1: header has no `seat` column"),
        "{err}"
    );
    // A system that cannot rate factors fails before reading, naming those that can.
    let out = podium(&[
        "rate",
        "no-such-file.csv",
        "--system",
        "proportional",
        "--factor",
        "car",
    ]);
    let err = out.err();
    assert!(
        err.contains("system proportional does not rate factors"),
        "{err}"
    );
    assert!(
        err.contains("kalman-mmr") && err.contains("pairwise"),
        "{err}"
    );
    for args in [
        [
            "backtest",
            "none.csv",
            "--factor",
            "car",
            "--systems",
            "proportional",
        ],
        [
            "tune",
            "none.csv",
            "--factor",
            "car",
            "--system",
            "proportional",
        ],
    ] {
        let mut args = args.to_vec();
        if args[0] == "tune" {
            args.extend(["--param", "q=0.5,1"]);
        }
        let out = podium(&args);
        assert!(
            out.err().contains("does not rate factors"),
            "{args:?}: {}",
            out.stderr
        );
    }
    // Two rows of one team that disagree: file, line and field.
    let teams = d.file(
        "teams.csv",
        "match,player,rank,team,side\ng1,a,1,red,north\ng1,b,1,red,south\ng1,c,2,blue,\n",
    );
    let out = podium(&["rate", &teams, "--factor", "side"]);
    let err = out.err();
    assert!(
        err.contains("teams.csv:3: field `side`: \"south\""),
        "{err}"
    );
}

#[test]
fn predict_adds_the_entries_factors() {
    let d = Dir::new("factors-predict");
    let races = d.file("races.csv", RACES);
    let predict = |players: &str, format: &str| {
        podium(&[
            "predict",
            &races,
            "--system",
            "pairwise",
            "--factor",
            "car",
            "--players",
            players,
            "--format",
            format,
        ])
    };
    let win = |players: &str| num(&csv_rows(predict(players, "csv").ok())[0]["win_probability"]);
    let p = |diff: f64| 1.0 / (1.0 + 10f64.powf(-diff / 400.0));
    // ann 1516, bo 1484; red −1.4695, blue +1.4695.
    assert!((win("ann,bo") - p(32.0)).abs() < 1e-9);
    let with = win("ann@car=red,bo@car=blue");
    // With the cars: ann 1516 − 1.4695, bo 1484 + 1.4695.
    assert!(
        (with - p(32.0 - 2.0 * (gain() - 16.0))).abs() < 1e-9,
        "{with}"
    );
    assert!(with < win("ann,bo"));
    // A car the history never showed adds nothing.
    assert!((win("ann@car=green,bo") - p(32.0)).abs() < 1e-9);
    let out = predict("ann@car=red,bo@car=blue", "table");
    assert!(out.ok().contains("car=red -1.47"), "{}", out.stdout);
    let bad = podium(&["predict", &races, "--players", "ann@car,bo"]);
    assert!(bad.err().contains("KIND=VALUE"), "{}", bad.stderr);
    // A kind the history was not read with would add nothing: refused, naming the fix.
    let bad = podium(&["predict", &races, "--players", "ann@car=red,bo"]);
    assert_eq!(
        bad.err().trim(),
        "error: --players: entry 1 (ann) gives the factor kind \"car\", but the history is not read with it; add --factor car (kinds read: none)"
    );
    let bad = predict("ann@colour=red,bo", "csv");
    assert!(
        bad.err().contains("factor kind \"colour\", but the history is not read with it; add --factor colour (kinds read: car)"),
        "{}",
        bad.stderr
    );
}

#[test]
fn explain_shows_the_factors_share() {
    let d = Dir::new("factors-explain");
    let races = d.file("races.csv", RACES);
    let out = podium(&[
        "explain", &races, "--system", "pairwise", "--factor", "car", "--player", "cy",
    ]);
    let text = out.ok();
    assert!(
        text.contains(
            "Your entry's factors (rating before, added to your strength): car=blue -16.00."
        ),
        "{text}"
    );
    // Without the cars, 0.5; with them, 0.454.
    assert!(
        text.contains("Without the factors it would have expected 0.500: the factors' share of the expected score is -0.046."),
        "{text}"
    );
}

#[test]
fn explain_shows_the_factors_share_of_an_expected_performance() {
    // kalman-mmr expects a performance: the entry's mean skill plus its factors. In r2
    // cy's car blue lost r1 with bo, so it is below 0, and its share is its rating.
    let d = Dir::new("factors-explain-kalman");
    let races = d.file("races.csv", RACES);
    let out = podium(&["explain", &races, "--factor", "car", "--player", "cy"]);
    let text = out.ok();
    // "… car=blue -12.34." : the rating before, as the entry's factors list it.
    let blue: f64 = text
        .split("car=blue ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .map(|w| w.trim_end_matches(['.', ',']))
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(blue < 0.0, "{text}");
    let line = text
        .lines()
        .find(|l| l.contains("share of the expected"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains(&format!("is {:+.0}.", blue)),
        "{line}\n{text}"
    );
}

#[test]
fn explain_shows_the_factors_share_for_glicko_and_elo_mmr() {
    // glicko expects a score: the share is the difference from the same match rated
    // without its factors. elo-mmr expects a performance: the share is the factors' sum.
    // cy's car blue lost r1, so it is a little below 0.
    let d = Dir::new("factors-explain-more");
    let races = d.file("races.csv", RACES);
    let explain = |system: &str| {
        podium(&[
            "explain", &races, "--system", system, "--factor", "car", "--player", "cy",
        ])
        .ok()
        .to_string()
    };
    for system in ["glicko", "glicko2"] {
        let text = explain(system);
        assert!(
            text.contains("The system expected a score of 0.498; you scored 1.000."),
            "{system}: {text}"
        );
        assert!(
            text.contains("Without the factors it would have expected 0.500: the factors' share of the expected score is -0.002."),
            "{system}: {text}"
        );
    }
    let text = explain("elo-mmr");
    assert!(
        text.contains("Performance 1654 in this match; the system expected 1498 from your rating and your entry's factors."),
        "{text}"
    );
    assert!(
        text.contains("Without the factors it would have expected a performance of 1500: the factors' share of the expected 1498 is -2."),
        "{text}"
    );
}

#[test]
fn systems_say_whether_they_rate_factors() {
    let block = |name: &str| podium(&["systems", name]).ok().to_string();
    for name in [
        "kalman-mmr",
        "pairwise",
        "trueskill",
        "plackett-luce",
        "glicko",
        "glicko2",
        "elo",
        "elo-mmr",
        "elo-mmx",
    ] {
        assert!(
            block(name).contains("factors (car, seat, faction): rated"),
            "{name}"
        );
    }
    assert!(block("proportional").contains("factors (car, seat, faction): not rated"));
    let out = podium(&["systems", "--format", "json"]);
    let json = out.ok();
    let list: serde_json::Value = serde_json::from_str(json).unwrap();
    let rates = |name: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()["factors"]
            .as_bool()
            .unwrap()
    };
    assert!(rates("kalman-mmr") && rates("elo-mmr") && !rates("proportional"));
}

#[test]
fn backtest_scores_each_pair_with_the_entries_factors() {
    // a (red) beats b (blue), then c (red) beats d (blue): red's rating passes the 32
    // points a holds over b, so when b drives red against a in blue, the car makes b the
    // favourite. b wins: right with the car, wrong without it (the one warm pair).
    let d = Dir::new("factors-backtest");
    let races = d.file(
        "races.csv",
        "match,player,rank,car\nr1,a,1,red\nr1,b,2,blue\nr2,c,1,red\nr2,d,2,blue\nr3,b,1,red\nr3,a,2,blue\n",
    );
    let run = |factor: bool| {
        let mut args = vec![
            "backtest",
            races.as_str(),
            "--systems",
            "pairwise",
            "--no-log-loss",
            "--format",
            "csv",
        ];
        if factor {
            args.extend(["--factor", "car"]);
        }
        csv_rows(podium(&args).ok())
            .iter()
            .map(|r| {
                (
                    r["system"].clone(),
                    num(&r["pair_accuracy"]),
                    r["warm_pairs"].clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    let one = |s: &str, a: f64| (s.to_string(), a, "1".to_string());
    assert_eq!(run(false), [one("pairwise", 0.0)]);
    // With the factor, each system also runs factor-blind, as without it.
    assert_eq!(
        run(true),
        [one("pairwise", 1.0), one("pairwise (factor-blind)", 0.0)]
    );
    let out = podium(&[
        "backtest",
        &races,
        "--systems",
        "pairwise",
        "--factor",
        "car",
    ]);
    let text = out.ok();
    assert!(
        text.contains(
            "Backtest on 3 matches (3 scored), each entry with its factors (car) and factor-blind:"
        ),
        "{text}"
    );
    assert!(text.contains("pairwise (factor-blind)"), "{text}");
    assert!(text.contains("100.00") && text.contains("0.00"), "{text}");
}

/// The command line took kinds and values that the server refused, and the server took
/// kinds the command line could not read back: both now follow the library's rules.
#[test]
fn factor_kind_named_like_a_field_is_refused_everywhere() {
    let d = Dir::new("factors-kinds");
    let file = d.file(
        "kinds.csv",
        "match,player,rank,Team\nr1,ann,1,red\nr1,bo,2,blue\n",
    );
    let out = podium(&["rate", &file, "--factor", "Team"]);
    assert_eq!(
        out.err().trim_end(),
        "error: factor column \"Team\" is not valid, expected a factor kind that is not the name of a column or field podium reads itself (match, id, time, results, player, rank, score, team, weight, factors, in any case)"
    );
    // A JSON value that is not a string or a whole number names its line and field.
    for (value, shown) in [
        ("true", "true"),
        ("2.5", "2.5"),
        ("null", "null"),
        ("\" \"", " "),
    ] {
        let file = d.file(
            "seats.jsonl",
            &format!(
                "{{\"match\":\"r1\",\"results\":[{{\"player\":\"ann\",\"rank\":1,\"seat\":{value}}},{{\"player\":\"bo\",\"rank\":2,\"seat\":2}}]}}\n"
            ),
        );
        let out = podium(&["rate", &file, "--factor", "seat"]);
        assert!(
            out.err().contains(&format!(
                "seats.jsonl:1: field `results[0].seat`: {shown:?} is not valid, expected a factor value"
            )),
            "{value}: {}",
            out.stderr
        );
    }
}

#[test]
fn json_lines_factor_fields_are_read_and_left_out_by_what_rates_no_factors() {
    let d = Dir::new("factors-left-out");
    let with = d.file(
        "ledger.jsonl",
        concat!(
            r#"{"match":"r1","time":"2024-05-01","results":[{"player":"ann","rank":1,"car":"red"},{"player":"bo","rank":2,"car":"blue"},{"player":"cy","rank":3,"car":"red"}]}"#,
            "\n",
            r#"{"match":"r2","time":"2024-05-08","results":[{"player":"bo","rank":1,"car":"blue"},{"player":"cy","rank":2},{"player":"ann","rank":3,"car":"red"}]}"#,
            "\n"
        ),
    );
    let without = d.file(
        "plain.jsonl",
        concat!(
            r#"{"match":"r1","time":"2024-05-01","results":[{"player":"ann","rank":1},{"player":"bo","rank":2},{"player":"cy","rank":3}]}"#,
            "\n",
            r#"{"match":"r2","time":"2024-05-08","results":[{"player":"bo","rank":1},{"player":"cy","rank":2},{"player":"ann","rank":3}]}"#,
            "\n"
        ),
    );
    // The same numbers as the file without the field, and a note saying so.
    let runs: [(&[&str], &str); 4] = [
        (&["history", "--format", "csv"], "ttt"),
        (&["rate", "--system", "ttt", "--format", "csv"], "ttt"),
        (
            &["rate", "--system", "proportional", "--format", "csv"],
            "proportional",
        ),
        (
            &["rate", "--system", "proportional", "--history", "-"],
            "proportional",
        ),
    ];
    for (args, system) in runs {
        let read = |file: &str, factor: bool| {
            let mut all = vec![args[0], file];
            all.extend(&args[1..]);
            if factor {
                all.extend(["--factor", "car"]);
            }
            podium(&all)
        };
        let left_out = read(&with, true);
        let plain = read(&without, false);
        assert_eq!(left_out.ok(), plain.ok(), "{args:?}");
        assert_eq!(
            left_out.stderr.lines().next(),
            Some(
                format!("note: {system} rates no factors: the field car is read and left out")
                    .as_str()
            ),
            "{args:?}: {}",
            left_out.stderr
        );
        assert!(!plain.stderr.contains("note:"), "{}", plain.stderr);
    }
    // --factors lists factors rated: a system that rates none has no such list.
    let run = podium(&[
        "rate",
        &with,
        "--system",
        "proportional",
        "--factor",
        "car",
        "--factors",
    ]);
    assert!(
        run.err().starts_with(
            "error: --factors lists the factors rated, but system proportional rates none; systems that do: "
        ),
        "{}",
        run.stderr
    );
    // A system that rates factors rates them still.
    let run = podium(&[
        "rate",
        &with,
        "--factor",
        "car",
        "--factors",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(run.ok()).unwrap();
    assert_eq!(v["factors"].as_array().map(Vec::len), Some(2), "{v}");
    // Over CSV the column is simply not read without --factor: --factor is refused.
    let races = d.file("races.csv", RACES);
    let run = podium(&["rate", &races, "--system", "ttt", "--factor", "car"]);
    assert!(
        run.err().contains(
            "system ttt does not rate factors; systems that do: elo, "
        ) && run.err().ends_with(
            "; without --factor a CSV column is not read (a JSON Lines field, of a .jsonl file or with --input-format jsonl, is read with --factor and left out)\n"
        ),
        "{}",
        run.stderr
    );
}
