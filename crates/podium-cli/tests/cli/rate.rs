//! `podium rate` and `podium explain` end to end.

use crate::util::{csv_rows, podium, podium_logged, podium_stdin, Dir};

fn rating(rows: &[std::collections::HashMap<String, String>], player: &str) -> f64 {
    rows.iter().find(|r| r["player"] == player).unwrap()["rating"]
        .parse()
        .unwrap()
}

#[test]
fn spec_vector_sme_through_the_binary() {
    let d = Dir::new("sme");
    let games = d.file("g.csv", "match,player,rank\ng1,A,1\ng1,B,2\ng1,C,3\n");
    let init = d.file("i.csv", "player,rating\nA,1000\nB,1200\nC,1500\n");
    let out = podium(&[
        "rate",
        &games,
        "--system",
        "sme",
        "--initial",
        &init,
        "--format",
        "csv",
    ]);
    let rows = csv_rows(out.ok());
    assert!((rating(&rows, "A") - 1024.31).abs() < 0.01);
    assert!((rating(&rows, "B") - 1202.86).abs() < 0.01);
    assert!((rating(&rows, "C") - 1472.83).abs() < 0.01);
    // The table rounds to two decimals.
    let table = podium(&["rate", &games, "--system", "sme", "--initial", &init]);
    for v in ["1024.31", "1202.86", "1472.83"] {
        assert!(table.ok().contains(v), "{}", table.stdout);
    }
}

#[test]
fn one_bad_match_rates_nothing_unless_skip_bad() {
    let d = Dir::new("bad");
    let games = d.file(
        "g.csv",
        "match,player,rank\ng1,a,1\ng1,b,2\ng2,a,1\ng2,a,2\ng3,a,1\ng3,c,2\n",
    );
    let out = podium(&["rate", &games, "--format", "csv"]);
    let err = out.err();
    assert!(err.contains("g.csv:5"), "{err}");
    assert!(err.contains("nothing rated"), "{err}");
    assert!(out.stdout.is_empty());
    let out = podium(&["rate", &games, "--format", "csv", "--skip-bad"]);
    let rows = csv_rows(out.ok());
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows.iter().find(|r| r["player"] == "a").unwrap()["games"],
        "2"
    );
    assert!(out.stderr.contains("skipped 1 bad match"), "{}", out.stderr);
    assert!(out.stderr.contains("\"g2\""), "{}", out.stderr);
}

#[test]
fn reads_standard_input_and_json_lines() {
    let jsonl = "{\"match\":\"g1\",\"results\":[{\"player\":\"ann\",\"rank\":1},{\"player\":\"bo\",\"rank\":2}]}\n";
    let out = podium_stdin(
        &[
            "rate",
            "-",
            "--input-format",
            "jsonl",
            "--system",
            "elo",
            "--format",
            "json",
        ],
        jsonl,
    );
    let v: serde_json::Value = serde_json::from_str(out.ok()).unwrap();
    assert_eq!(v[0]["player"], "ann");
    assert_eq!(v[0]["rating"], 1516.0);
}

#[test]
fn matches_with_times_are_rated_in_time_order() {
    let d = Dir::new("time");
    // Written newest first; rated oldest first.
    let games = d.file(
        "g.csv",
        "match,player,rank,time\nlate,a,2,2024-02-01\nlate,b,1,2024-02-01\nearly,a,1,2024-01-01\nearly,b,2,2024-01-01\n",
    );
    let hist = d.path("h.csv");
    podium(&["rate", &games, "--system", "elo", "--history", &hist]).ok();
    let h = csv_rows(&std::fs::read_to_string(&hist).unwrap());
    assert_eq!(h[0]["match"], "early");
    assert_eq!(h[2]["match"], "late");
    assert_eq!(h.len(), 4);
    let a_late = h
        .iter()
        .find(|r| r["match"] == "late" && r["player"] == "a")
        .unwrap();
    let a_before: f64 = a_late["rating_before"].parse().unwrap();
    assert!((a_before - 1516.0).abs() < 1e-9);
}

#[test]
fn regression_times_are_read_to_the_second_and_matches_within_one_in_file_order() {
    // A time is kept to the second: `late` (…00.9) and `early` (…00.1) are of one second,
    // rated in the order written. Before 1970 a fraction made the time the second after
    // the one named: 1969-12-31T23:59:59.5Z was written back as 1970-01-01.
    let d = Dir::new("time-fraction");
    let games = d.file(
        "g.csv",
        "match,time,player,rank\nlate,2024-05-01T10:00:00.9Z,a,1\nlate,2024-05-01T10:00:00.9Z,b,2\nearly,2024-05-01T10:00:00.1Z,a,2\nearly,2024-05-01T10:00:00.1Z,b,1\nold,1969-12-31T23:59:59.5Z,a,1\nold,1969-12-31T23:59:59.5Z,b,2\n",
    );
    let out = podium(&["rate", &games, "--system", "sme", "--history", "-"]);
    let rows: Vec<(String, String, String)> = csv_rows(out.ok())
        .into_iter()
        .map(|r| (r["match"].clone(), r["time"].clone(), r["player"].clone()))
        .collect();
    let row = |m: &str, t: &str, p: &str| (m.to_string(), t.to_string(), p.to_string());
    assert_eq!(
        rows,
        [
            row("old", "1969-12-31T23:59:59Z", "a"),
            row("old", "1969-12-31T23:59:59Z", "b"),
            row("late", "2024-05-01T10:00:00Z", "a"),
            row("late", "2024-05-01T10:00:00Z", "b"),
            row("early", "2024-05-01T10:00:00Z", "b"),
            row("early", "2024-05-01T10:00:00Z", "a"),
        ]
    );
}

#[test]
fn bad_arguments_are_one_line_errors() {
    let d = Dir::new("args");
    let games = d.file("g.csv", "match,player,rank\ng1,A,1\ng1,B,2\n");
    for args in [
        vec!["rate", games.as_str(), "--system", "nope"],
        vec!["rate", games.as_str(), "--set", "k=abc"],
        vec!["rate", games.as_str(), "--set", "nokey=1"],
        vec!["rate", games.as_str(), "--set", "k"],
        vec!["rate", "/no/such/file.csv"],
    ] {
        let out = podium(&args);
        let err = out.err();
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{err}");
    }
}

/// `--set system.key=value`, as the commands comparing systems take it, sets the one
/// system run; another system's prefix is an error naming both.
/// Player A's sme rating after `games` with the `--set` items `sets`.
fn podium_sme_k(games: &str, sets: &[&str]) -> f64 {
    let mut args = vec!["rate", games, "--system", "sme", "--format", "csv"];
    for set in sets {
        args.extend(["--set", set]);
    }
    rating(&csv_rows(podium(&args).ok()), "A")
}

#[test]
fn a_setting_may_name_the_system_it_is_for() {
    let d = Dir::new("prefix");
    let games = d.file("g.csv", "match,player,rank\ng1,A,1\ng1,B,2\n");
    let rate = |set: &str| {
        let out = podium(&[
            "rate", &games, "--system", "sme", "--set", set, "--format", "csv",
        ]);
        rating(&csv_rows(out.ok()), "A")
    };
    assert!((rate("SME.k=10") - 1505.0).abs() < 1e-9);
    assert!((rate("k=10") - rate("sme.k=10")).abs() < 1e-12);
    let out = podium(&["rate", &games, "--system", "sme", "--set", "pairwise.k=10"]);
    assert_eq!(
        out.err().trim(),
        "error: --set pairwise.k: system \"pairwise\" is not the system run here (sme)"
    );
    // The same parameter twice is refused, whether with the prefix or without, but a
    // plain value and a system's own value may stand together.
    for (first, second) in [("k=10", "k=12"), ("sme.k=10", "SME.k=12")] {
        let out = podium(&[
            "rate", &games, "--system", "sme", "--set", first, "--set", second,
        ]);
        let (key, _) = first.split_once('=').unwrap();
        assert_eq!(
            out.err().trim(),
            format!("error: setting {key} is given twice ({first}, then {second}): give it once")
        );
    }
    // Keys are read as the system reads them: `K` is not `k` (and no parameter of sme).
    let out = podium(&[
        "rate", &games, "--system", "sme", "--set", "k=10", "--set", "K=12",
    ]);
    assert!(!out.err().contains("given twice"), "{}", out.err());
    assert!((rate("k=10") - podium_sme_k(&games, &["k=20", "sme.k=10"])).abs() < 1e-12);
    let out = podium(&[
        "tune",
        &games,
        "--system",
        "sme",
        "--param",
        "k=8,16",
        "--set",
        "shares.scale=300",
    ]);
    assert!(
        out.err()
            .contains("system \"shares\" is not the system run here (sme)"),
        "{}",
        out.err()
    );
}

#[test]
fn history_rows_and_min_games() {
    let d = Dir::new("hist");
    let games = d.file(
        "g.csv",
        "match,player,rank\ng1,A,1\ng1,B,2\ng2,A,1\ng2,C,2\n",
    );
    let hist = d.path("h.csv");
    let out = podium(&[
        "rate",
        &games,
        "--system",
        "sme",
        "--history",
        &hist,
        "--min-games",
        "2",
        "--format",
        "csv",
    ]);
    let rows = csv_rows(out.ok());
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["player"], "A");
    let h = csv_rows(&std::fs::read_to_string(&hist).unwrap());
    assert_eq!(h.len(), 4);
    let change: f64 = h[0]["change"].parse().unwrap();
    assert!((change - 16.0).abs() < 1e-9);
    assert_eq!(h[0]["k"], "32");
}

#[test]
fn the_history_gives_each_players_sigma_before_and_after() {
    let d = Dir::new("hist-sigma");
    let games = d.file(
        "g.csv",
        "match,player,rank\ng1,A,1\ng1,B,2\ng2,A,1\ng2,C,2\n",
    );
    let out = podium(&["rate", &games, "--system", "trueskill", "--history", "-"]);
    let h = csv_rows(out.ok());
    assert_eq!(h.len(), 4);
    // Newcomers start at TrueSkill's σ = 25/3; A's second game starts where the first left.
    let before = |i: usize| h[i]["sigma_before"].parse::<f64>().unwrap();
    let after = |i: usize| h[i]["sigma_after"].parse::<f64>().unwrap();
    assert!((before(0) - 25.0 / 3.0).abs() < 1e-12);
    assert!((before(3) - 25.0 / 3.0).abs() < 1e-12);
    assert_eq!(h[2]["player"], "A");
    assert_eq!(before(2), after(0));
    assert!(after(2) < before(2));
    // A system without σ leaves both columns empty.
    let sme = csv_rows(podium(&["rate", &games, "--system", "sme", "--history", "-"]).ok());
    assert_eq!(
        (
            sme[0]["sigma_before"].as_str(),
            sme[0]["sigma_after"].as_str()
        ),
        ("", "")
    );
}

#[test]
fn kalman_mmr_is_the_default_system() {
    let d = Dir::new("default-system");
    let games = d.file(
        "g.csv",
        "match,player,rank\ng1,A,1\ng1,B,2\ng1,C,3\ng2,C,1\ng2,A,2\ng2,B,3\n",
    );
    let default = podium(&["rate", &games, "--format", "csv"]);
    let named = podium(&["rate", &games, "--system", "kalman-mmr", "--format", "csv"]);
    assert_eq!(default.ok(), named.ok());
    let sme = podium(&["rate", &games, "--system", "sme", "--format", "csv"]);
    assert_ne!(default.ok(), sme.ok());
    let rows = csv_rows(default.ok());
    assert!(rows[0].contains_key("sigma"), "{rows:?}");
}

#[test]
fn explain_tells_why() {
    let d = Dir::new("explain");
    let games = d.file("g.csv", "match,player,rank\ng1,A,1\ng1,B,2\ng1,C,3\n");
    let init = d.file("i.csv", "player,rating\nA,1000\nB,1200\nC,1500\n");
    let out = podium(&[
        "explain",
        &games,
        "--system",
        "sme",
        "--initial",
        &init,
        "--player",
        "A",
    ]);
    let text = out.ok();
    assert!(text.contains("finished 1st of 3"), "{text}");
    assert!(text.contains("+24.31"), "{text}");
    assert!(podium(&["explain", &games, "--player", "Z"])
        .err()
        .contains("\"Z\""));
}

#[test]
fn systems_lists_every_system_with_defaults() {
    let out = podium(&["systems", "--format", "csv"]);
    let rows = csv_rows(out.ok());
    for name in [
        "elo",
        "sme",
        "pairwise",
        "whitewhale",
        "proportional",
        "mes",
        "shares",
    ] {
        assert!(rows.iter().any(|r| r["system"] == name), "{name}");
    }
    let k = rows
        .iter()
        .find(|r| r["system"] == "mes" && r["param"] == "provisional_games")
        .unwrap();
    assert_eq!(k["default"], "5");
}

#[test]
fn errors_name_the_right_line_in_crlf_files_with_blank_lines() {
    let d = Dir::new("crlf");
    let games = d.file(
        "g.csv",
        "match,player,rank\r\ng1,a,1\r\ng1,b,2\r\n\r\ng2,a,1\r\ng2,b,x\r\n",
    );
    let err = podium(&["rate", &games]).err().to_string();
    assert!(err.contains("g.csv:6: field `rank`"), "{err}");
}

/// A history of `matches` free-for-alls of 2–8 players from a pool of 300 (some ids not
/// ASCII), with ties, written as long CSV with an extra column; `score` writes scores
/// instead of ranks.
fn generated(matches: usize, seed: u64, score: bool) -> String {
    let mut state = seed;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let finish = if score { "score" } else { "rank" };
    let mut text = format!("match,player,{finish},note\n");
    for m in 0..matches {
        let n = 2 + next(7) as usize;
        let mut players: Vec<u64> = Vec::with_capacity(n);
        while players.len() < n {
            let p = next(300);
            if !players.contains(&p) {
                players.push(p);
            }
        }
        for p in players {
            let name = if p % 7 == 0 {
                format!("Jos\u{e9}{p}")
            } else {
                format!("p{p}")
            };
            let place = 1 + next(n as u64);
            text.push_str(&format!("s{seed}m{m},{name},{place},x\n"));
        }
    }
    text
}

#[test]
fn plain_files_rate_as_the_general_reader_does() {
    // Plain long CSV takes a fast path; `--history` needs the general one. Both must
    // print the same leaderboard, over a file of several blocks, a second file that
    // brings back the same players, and starting ratings.
    let d = Dir::new("plain");
    let a = d.file("a.csv", &generated(16_000, 1, false));
    let b = d.file("b.csv", &generated(400, 2, true));
    assert!(std::fs::metadata(&a).unwrap().len() > 1 << 20);
    let init = d.file(
        "i.csv",
        "player,rating,games\np1,1700,12\nJos\u{e9}7,1300,4\n",
    );
    let history = d.path("h.csv");
    for system in ["sme", "mes", "pairwise", "shares", "plackett-luce"] {
        let args = [
            "rate",
            &a,
            &b,
            "--initial",
            &init,
            "--system",
            system,
            "--format",
            "csv",
        ];
        let fast = podium_logged(&args, "podium=debug");
        for matches in [16_000, 400] {
            let said = format!("{matches} matches read on the fast path");
            assert!(fast.stderr.contains(&said), "{}", fast.stderr);
        }
        let general = podium(&[&args[..], &["--history", &history]].concat());
        assert_eq!(fast.ok(), general.ok(), "{system}");
        let rows = csv_rows(fast.ok());
        assert_eq!(rows.len(), 300, "{system}");
        let games: u64 = rows
            .iter()
            .map(|r| r["games"].parse::<u64>().unwrap())
            .sum();
        let history_rows = std::fs::read_to_string(&history).unwrap().lines().count() - 1;
        // The leaderboard counts the games rated here, one history row each.
        assert_eq!(games as usize, history_rows, "{system}");
    }
}

#[test]
fn a_score_file_rates_the_same_whichever_reader_reads_it() {
    // A plain file of scores used to take the fast path, which keeps places only, for
    // the default too, while `--history` took the general one, which reads the margins.
    let d = Dir::new("scores");
    let games = d.file(
        "s.csv",
        "match,player,score\ng1,ann,10\ng1,bo,9\ng1,cy,3\ng1,di,1\n\
         g2,bo,20\ng2,di,19\ng2,cy,5\ng2,ann,1\n\
         g3,di,30\ng3,ann,29\ng3,bo,2\ng3,cy,1\n",
    );
    let history = d.path("h.csv");
    for system in ["kalman-mmr", "sme"] {
        let args = ["rate", &games, "--system", system, "--format", "csv"];
        let plain = podium_logged(&args, "podium=debug");
        let general = podium(&[&args[..], &["--history", &history]].concat());
        assert_eq!(plain.ok(), general.ok(), "{system}");
        // The margin-reading system takes the general way; a system that reads places
        // alone keeps the fast one.
        let fast = plain.stderr.contains("read on the fast path");
        assert_eq!(fast, system == "sme", "{system}: {}", plain.stderr);
    }
    let rows = csv_rows(podium(&["rate", &games, "--format", "csv"]).ok());
    let bo = rows.iter().find(|r| r["player"] == "bo").unwrap();
    assert!((bo["rating"].parse::<f64>().unwrap() - 1567.73).abs() < 0.005);
    assert!((bo["sigma"].parse::<f64>().unwrap() - 107.65).abs() < 0.005);
}

#[test]
fn a_plain_file_with_a_bad_match_deep_inside_is_reported_by_line() {
    // The fast path gives up on the bad match; the general reader names it.
    let d = Dir::new("plain-bad");
    let text = generated(16_000, 3, false);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // A row near the end loses its rank.
    let line = lines.len() - 20;
    let fields: Vec<&str> = lines[line - 1].split(',').collect();
    lines[line - 1] = format!("{},{},,x", fields[0], fields[1]);
    let text = lines.join("\n");
    let f = d.file("g.csv", &text);
    let out = podium_logged(&["rate", &f, "--format", "csv"], "podium=debug");
    let err = out.err();
    assert!(
        err.contains("read the general way: an empty field"),
        "{err}"
    );
    assert!(err.contains(&format!("g.csv:{line}")), "{err}");
    assert!(err.contains("rank"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    // `podium rate big.csv | head`: once standard output is closed, podium stops quietly
    // and succeeds, whatever the format.
    use std::io::Read;
    let d = Dir::new("closed-pipe");
    let mut text = String::from("match,player,rank\n");
    for m in 0..3000 {
        text.push_str(&format!("g{m},a{m},1\ng{m},b{m},2\n"));
    }
    let f = d.file("big.csv", &text);
    for format in ["csv", "json", "table"] {
        let mut child = crate::util::bin()
            .args(["rate", &f, "--format", format])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0; 100];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The pipe is closed here, with 6,000 rows (far more than it buffers) unread.
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{format}: {stderr}");
        assert!(stderr.is_empty(), "{format}: {stderr}");
    }
}

#[test]
fn the_history_to_standard_output_refuses_the_leaderboard_s_flags() {
    let d = Dir::new("hist-stdout-flags");
    let games = d.file(
        "g.csv",
        "match,player,rank,seat\ng1,A,1,1\ng1,B,2,2\ng2,A,1,2\ng2,C,2,1\n",
    );
    for (flags, flag, what) in [
        (
            &["--format", "json"][..],
            "--format json",
            "the history is CSV",
        ),
        (
            &["--min-games", "2"][..],
            "--min-games 2",
            "it hides players of the leaderboard",
        ),
        (
            &["--order", "rating"][..],
            "--order rating",
            "it orders the leaderboard",
        ),
        (
            &["--factor", "seat", "--factors"][..],
            "--factors",
            "it lists the factors after the leaderboard",
        ),
        (
            &["--display", "conservative"][..],
            "--display conservative",
            "it ranks the leaderboard",
        ),
    ] {
        let mut args = vec!["rate", games.as_str(), "--system", "sme", "--history", "-"];
        args.extend(flags);
        let run = podium(&args);
        assert_eq!(
            run.err(),
            format!("error: --history - writes the history to standard output in place of the leaderboard, so {flag} would do nothing ({what}); leave out {flag}, or give --history a file to have the leaderboard too\n")
        );
        assert_eq!(run.stdout, "");
    }
    // The history is CSV: --format csv says so, and the defaults are no contradiction.
    let plain = podium(&["rate", &games, "--system", "sme", "--history", "-"]);
    let csv = podium(&[
        "rate",
        &games,
        "--system",
        "sme",
        "--history",
        "-",
        "--format",
        "csv",
    ]);
    assert_eq!(csv.ok(), plain.ok());
    // With a file, the flags shape the leaderboard printed after it.
    let hist = d.path("h.csv");
    let board = podium(&[
        "rate",
        &games,
        "--system",
        "sme",
        "--history",
        &hist,
        "--min-games",
        "2",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(board.ok()).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
}

#[test]
fn the_conservative_display_names_the_systems_that_keep_a_sigma() {
    let d = Dir::new("conservative-systems");
    let games = d.file("g.csv", "match,player,rank\ng1,A,1\ng1,B,2\n");
    let e = podium(&[
        "rate",
        &games,
        "--system",
        "sme",
        "--display",
        "conservative",
    ]);
    let prefix = "error: --display conservative ranks by μ − 3σ, but system sme keeps no σ; systems that do: ";
    assert_eq!(
        e.err(),
        format!("{prefix}plackett-luce, bradley-terry-full, bradley-terry-part, thurstone-mosteller-full, thurstone-mosteller-part, trueskill, ttt, elo-mmr, elo-mmx, glicko, kalman-mmr, glicko2\n")
    );
    // Each system listed ranks so; every other refuses.
    let listed: Vec<&str> = e.stderr[prefix.len()..].trim().split(", ").collect();
    let systems = podium(&["systems"]);
    let all: Vec<&str> = systems
        .ok()
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert!(all.contains(&"sme") && all.len() > listed.len(), "{all:?}");
    for system in all {
        let run = podium(&[
            "rate",
            &games,
            "--system",
            system,
            "--display",
            "conservative",
        ]);
        assert_eq!(
            run.status == 0,
            listed.contains(&system),
            "{system}: {}",
            run.stderr
        );
    }
}

#[test]
fn negative_values_reach_the_flags_range_checks() {
    let d = Dir::new("negative-values");
    let games = d.file("g.csv", "match,player,rank\ng1,A,1\ng1,B,2\n");
    assert_eq!(
        podium(&["rate", &games, "--min-games", "-1"]).err(),
        "error: invalid value '-1' for '--min-games <N>': expected a whole number 0 or more\n\nFor more information, try '--help'.\n"
    );
    assert_eq!(
        podium(&["rate", &games, "--min-games", "1.5"]).err(),
        "error: invalid value '1.5' for '--min-games <N>': not a whole number; expected a whole number 0 or more\n\nFor more information, try '--help'.\n"
    );
    assert_eq!(
        podium(&["rate", &games, "--min-games", "4294967296"]).err(),
        "error: invalid value '4294967296' for '--min-games <N>': expected a whole number 0 or more, at most 4294967295\n\nFor more information, try '--help'.\n"
    );
    assert_eq!(
        podium(&["backtest", &games, "--from", "-5"]).err(),
        "error: --from \"-5\": neither a match number (1 = the first match rated) nor a date (YYYY-MM-DD or RFC 3339)\n"
    );
    assert_eq!(
        podium(&["backtest", &games, "--until", "-5"]).err(),
        "error: --until \"-5\": neither a match number (1 = the first match rated) nor a date (YYYY-MM-DD or RFC 3339)\n"
    );
    assert_eq!(
        podium(&["backtest", &games, "--threads", "-1"]).err(),
        "error: invalid value '-1' for '--threads <THREADS>': expected a whole number 0 or more\n\nFor more information, try '--help'.\n"
    );
}
