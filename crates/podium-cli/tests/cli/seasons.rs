//! `podium rate --seasons`: one board per season, the reset applied between seasons.

use std::collections::HashMap;

use crate::util::{csv_rows, podium, Dir};

/// Two seasons of matches: 2023 and 2024 (the last 2023 match a second before the year
/// ends, the first 2024 one at its first second).
const GAMES: &str = "time,match,player,rank
2023-03-01,a1,ann,1
2023-03-01,a1,bo,2
2023-03-01,a1,cy,3
2023-06-01,a2,cy,1
2023-06-01,a2,ann,2
2023-06-01,a2,bo,3
2023-12-31T23:59:59Z,a3,bo,1
2023-12-31T23:59:59Z,a3,ann,2
2024-01-01T00:00:00Z,b1,bo,1
2024-01-01T00:00:00Z,b1,cy,2
2024-01-01T00:00:00Z,b1,dee,3
2024-02-01,b2,dee,1
2024-02-01,b2,bo,2
";

/// Each season's CSV board by its heading, from `--format csv` output.
fn seasons(out: &str) -> Vec<(String, Vec<HashMap<String, String>>)> {
    out.split("\n\n")
        .map(|block| {
            let (head, rest) = block.split_once('\n').unwrap();
            (head.to_string(), csv_rows(rest))
        })
        .collect()
}

fn ratings(rows: &[HashMap<String, String>]) -> Vec<(String, f64, String)> {
    rows.iter()
        .map(|r| {
            (
                r["player"].clone(),
                r["rating"].parse().unwrap(),
                r["games"].clone(),
            )
        })
        .collect()
}

fn assert_same(a: &[HashMap<String, String>], b: &[HashMap<String, String>]) {
    let (a, b) = (ratings(a), ratings(b));
    assert_eq!(a.len(), b.len(), "{a:?} {b:?}");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.0, y.0);
        assert!((x.1 - y.1).abs() < 1e-9, "{x:?} {y:?}");
        assert_eq!(x.2, y.2);
    }
}

fn split(d: &Dir) -> (String, String, String) {
    let mut lines = GAMES.lines();
    let header = lines.next().unwrap();
    let (y23, y24): (Vec<&str>, Vec<&str>) = lines.partition(|l| l.starts_with("2023"));
    let file =
        |name: &str, rows: &[&str]| d.file(name, &format!("{header}\n{}\n", rows.join("\n")));
    (
        d.file("all.csv", GAMES),
        file("2023.csv", &y23),
        file("2024.csv", &y24),
    )
}

fn rate(args: &[&str]) -> Vec<HashMap<String, String>> {
    let mut all = vec!["rate"];
    all.extend(args);
    all.extend(["--system", "sme", "--format", "csv"]);
    csv_rows(podium(&all).ok())
}

#[test]
fn a_hard_reset_rates_each_year_as_a_league_of_its_own() {
    let d = Dir::new("seasons-hard");
    let (all, y23, y24) = split(&d);
    let out = podium(&[
        "rate",
        &all,
        "--system",
        "sme",
        "--format",
        "csv",
        "--seasons",
        "year",
        "--reset",
        "hard",
    ]);
    let s = seasons(out.ok());
    assert_eq!(s.len(), 2);
    assert_eq!(
        s[0].0,
        "# Season 2023: 3 matches, 2023-03-01 to 2023-12-31T23:59:59Z"
    );
    assert_eq!(
        s[1].0,
        "# Season 2024: 2 matches, 2024-01-01 to 2024-02-01, after a hard reset"
    );
    assert_same(&s[0].1, &rate(&[&y23]));
    assert_same(&s[1].1, &rate(&[&y24]));
}

#[test]
fn a_soft_reset_starts_the_next_year_halfway_to_the_mean() {
    let d = Dir::new("seasons-soft");
    let (all, y23, y24) = split(&d);
    let out = podium(&[
        "rate",
        &all,
        "--system",
        "sme",
        "--format",
        "csv",
        "--seasons",
        "year",
        "--reset",
        "soft",
        "--pull",
        "0.5",
    ]);
    let s = seasons(out.ok());
    let first = rate(&[&y23]);
    assert_same(&s[0].1, &first);
    // Everyone of 2023 played, so μ̄ is the mean of the 2023 board; games carry over.
    let r = ratings(&first);
    let mean = r.iter().map(|x| x.1).sum::<f64>() / r.len() as f64;
    let mut init = String::from("player,rating,games\n");
    for (p, v, g) in &r {
        init.push_str(&format!("{p},{},{g}\n", mean + 0.5 * (v - mean)));
    }
    let init = d.file("init.csv", &init);
    let second = rate(&[&y24, "--initial", &init]);
    // The 2024 board lists only who played in 2024, with 2024's games.
    let second: Vec<_> = second
        .into_iter()
        .filter(|row| row["games"] != "0")
        .collect();
    assert_same(&s[1].1, &second);
    assert_eq!(
        s[1].1.iter().find(|r| r["player"] == "bo").unwrap()["games"],
        "2"
    );
    assert!(s[1].1.iter().all(|r| r["player"] != "ann"));
}

#[test]
fn no_reset_carries_the_ratings_and_counts_the_season_s_games() {
    let d = Dir::new("seasons-none");
    let (all, _, _) = split(&d);
    let out = podium(&[
        "rate",
        &all,
        "--system",
        "sme",
        "--format",
        "csv",
        "--seasons",
        "2024-01-01",
        "--reset",
        "none",
    ]);
    let s = seasons(out.ok());
    assert_eq!(
        s[0].0,
        "# Season before 2024-01-01: 3 matches, 2023-03-01 to 2023-12-31T23:59:59Z"
    );
    assert_eq!(
        s[1].0,
        "# Season from 2024-01-01: 2 matches, 2024-01-01 to 2024-02-01, ratings carried over"
    );
    let whole = ratings(&rate(&[&all]));
    for (p, v, _) in ratings(&s[1].1) {
        let w = whole.iter().find(|x| x.0 == p).unwrap();
        assert!((v - w.1).abs() < 1e-9, "{p}");
    }
    assert_eq!(s[1].1.len(), 3, "bo, cy and dee played in 2024");
}

#[test]
fn seasons_need_times_and_dates() {
    let d = Dir::new("seasons-bad");
    let (all, _, _) = split(&d);
    // A match without a time is a bad match of its file and line.
    let untimed = d.file("u.csv", "match,player,rank\ng1,A,1\ng1,B,2\n");
    let why = format!("{untimed}:2: field `time`: \"\" is not valid, expected a time: --seasons splits the matches into seasons by their times, so every match needs one (a `time` column or field; or leave out --seasons)");
    assert_eq!(
        podium(&["rate", &untimed, "--seasons", "year"]).err(),
        format!(
            "error: 1 bad match found, nothing rated (use --skip-bad to rate the rest):\n  {why}\n"
        )
    );
    assert_eq!(
        podium(&["rate", &untimed, "--seasons", "year", "--skip-bad"]).err(),
        format!(
            "error: no match could be rated: the one match read is bad, nothing rated:\n  {why}\n"
        )
    );
    let e = podium(&["rate", &all, "--seasons", "2024-01-01T12:00:00Z"]);
    assert!(
        e.err()
            .contains("boundary 1 \"2024-01-01T12:00:00Z\" is not a date but a time within a day"),
        "{}",
        e.stderr
    );
    let e = podium(&["rate", &all, "--seasons", "2024-02-30"]);
    assert!(
        e.err().contains("boundary 1 \"2024-02-30\" is not a date;"),
        "{}",
        e.stderr
    );
    let e = podium(&["rate", &all, "--seasons", "2024-06-01,2024-01-01"]);
    assert!(
        e.err()
            .contains("boundary 2 \"2024-01-01\" does not come after 2024-06-01"),
        "{}",
        e.stderr
    );
    let e = podium(&["rate", &all, "--seasons", "year", "--pull", "1.5"]);
    assert!(e.err().contains("pull is 1.5"), "{}", e.stderr);
    let e = podium(&["rate", &all, "--seasons", "year", "--widen=-1"]);
    assert!(e.err().contains("widen is -1"), "{}", e.stderr);
    let e = podium(&[
        "rate",
        &all,
        "--seasons",
        "year",
        "--save",
        &d.path("s.json"),
    ]);
    assert!(e.err().contains("does not go with --save"), "{}", e.stderr);
}

#[test]
fn pull_and_widen_are_refused_without_a_soft_reset_of_seasons() {
    let d = Dir::new("seasons-soft-only");
    let (all, _, _) = split(&d);
    // Without --seasons there is no reset for them to shape.
    for flag in ["--pull", "--widen"] {
        let e = podium(&["rate", &all, flag, "0.3"]);
        assert!(
            e.err().starts_with(
                "error: the following required arguments were not provided:\n  --seasons <year|DATES>\n"
            ),
            "{}",
            e.stderr
        );
    }
    // A hard reset or none has no pull and no widen, as the server says of a new season.
    for reset in ["hard", "none"] {
        for flag in ["--pull", "--widen"] {
            let e = podium(&[
                "rate",
                &all,
                "--seasons",
                "year",
                "--reset",
                reset,
                flag,
                "0.3",
            ]);
            assert_eq!(
                e.err(),
                format!("error: --reset {reset} takes no {flag}: only a soft reset has --pull and --widen; leave out {flag} or give --reset soft\n")
            );
            assert_eq!(e.stdout, "");
        }
    }
}

#[test]
fn pull_and_widen_shape_the_soft_reset_and_default_to_half_and_a_quarter() {
    let d = Dir::new("seasons-soft-values");
    let (all, _, _) = split(&d);
    let run = |extra: &[&str]| {
        let mut args = vec![
            "rate",
            &all,
            "--system",
            "sme",
            "--format",
            "csv",
            "--seasons",
            "year",
        ];
        args.extend(extra);
        podium(&args).ok().to_string()
    };
    assert_eq!(run(&["--pull", "0.5", "--widen", "0.25"]), run(&[]));
    // Nothing pulled and nothing widened: the ratings carry on as with no reset.
    let soft = seasons(&run(&["--pull", "0", "--widen", "0"]));
    let none = seasons(&run(&["--reset", "none"]));
    assert_eq!(
        soft[1].0,
        "# Season 2024: 2 matches, 2024-01-01 to 2024-02-01, after a soft reset"
    );
    assert_same(&soft[1].1, &none[1].1);
    assert_ne!(ratings(&soft[1].1), ratings(&seasons(&run(&[]))[1].1));
}

#[test]
fn a_season_without_a_reset_is_headed_ratings_carried_over() {
    let d = Dir::new("seasons-none-heading");
    let (all, _, _) = split(&d);
    let out = podium(&[
        "rate",
        &all,
        "--system",
        "sme",
        "--seasons",
        "year",
        "--reset",
        "none",
    ]);
    let headings: Vec<&str> = out
        .ok()
        .lines()
        .filter(|l| l.starts_with("Season "))
        .collect();
    assert_eq!(
        headings,
        [
            "Season 2023: 3 matches, 2023-03-01 to 2023-12-31T23:59:59Z",
            "Season 2024: 2 matches, 2024-01-01 to 2024-02-01, ratings carried over"
        ]
    );
}

#[test]
fn seasons_do_not_go_with_resume_and_nothing_is_read_or_written() {
    let d = Dir::new("seasons-resume");
    let (_, y23, y24) = split(&d);
    let state = d.path("l.state");
    podium(&["rate", &y23, "--system", "sme", "--save", &state]).ok();
    let saved = std::fs::read(&state).unwrap();
    let want = "error: --seasons does not go with --resume: a saved league does not record where its seasons began, so its matches cannot be split into seasons and reset between them; rate the whole history with --seasons instead\n";
    let e = podium(&[
        "rate",
        &y24,
        "--system",
        "sme",
        "--resume",
        &state,
        "--seasons",
        "year",
    ]);
    assert_eq!(e.err(), want);
    assert_eq!(e.stdout, "");
    assert_eq!(std::fs::read(&state).unwrap(), saved);
    // Refused before the saved league, or any file, is read.
    let missing = d.path("missing.state");
    let e = podium(&[
        "rate",
        &y24,
        "--resume",
        &missing,
        "--seasons",
        "year",
        "--reset",
        "hard",
    ]);
    assert_eq!(e.err(), want);
}

/// Three matches over two years, the second (m2) of three players, which Elo cannot rate.
const ELO3: &str = "match,time,player,rank
m1,2024-01-01,a,1
m1,2024-01-01,b,2
m2,2024-06-01,a,1
m2,2024-06-01,b,2
m2,2024-06-01,c,3
m3,2025-01-01,a,2
m3,2025-01-01,b,1
";

#[test]
fn bad_matches_are_listed_skipped_and_refused_as_without_seasons() {
    let d = Dir::new("seasons-bad-matches");
    let f = d.file("elo3.csv", ELO3);
    let bad = format!(
        "{f}:4: match \"m2\": system elo rates matches of exactly 2 entries, this one has 3"
    );
    // --skip-bad: m2 skipped and said so, the rest rated season by season.
    let skipped = podium(&[
        "rate",
        &f,
        "--system",
        "elo",
        "--skip-bad",
        "--seasons",
        "year",
        "--reset",
        "hard",
        "--format",
        "csv",
    ]);
    let s = seasons(skipped.ok());
    assert_eq!(skipped.stderr, format!("skipped 1 bad match:\n  {bad}\n"));
    assert_eq!(
        skipped.stderr,
        podium(&["rate", &f, "--system", "elo", "--skip-bad"]).stderr
    );
    assert_eq!(s[0].0, "# Season 2024: 1 match, 2024-01-01 to 2024-01-01");
    assert_eq!(
        ratings(&s[0].1),
        [
            ("a".into(), 1516.0, "1".into()),
            ("b".into(), 1484.0, "1".into())
        ]
    );
    assert_eq!(
        s[1].0,
        "# Season 2025: 1 match, 2025-01-01 to 2025-01-01, after a hard reset"
    );
    assert_eq!(
        ratings(&s[1].1),
        [
            ("b".into(), 1516.0, "1".into()),
            ("a".into(), 1484.0, "1".into())
        ]
    );
    // Without it, nothing rated, in the words of `podium rate`.
    let refused = podium(&["rate", &f, "--system", "elo", "--seasons", "year"]);
    assert_eq!(
        refused.err(),
        format!(
            "error: 1 bad match found, nothing rated (use --skip-bad to rate the rest):\n  {bad}\n"
        )
    );
    assert_eq!(refused.stdout, "");
    assert_eq!(
        refused.stderr,
        podium(&["rate", &f, "--system", "elo"]).stderr
    );
    // Every bad match of the example nights, by file and line, as without --seasons.
    let nights = crate::util::repo_root()
        .join("examples/game-night.csv")
        .display()
        .to_string();
    let with = podium(&["rate", &nights, "--system", "elo", "--seasons", "year"]);
    let without = podium(&["rate", &nights, "--system", "elo"]);
    assert_eq!(with.err(), without.err());
    assert!(
        with.stderr.starts_with(&format!("error: 45 bad matches found, nothing rated (use --skip-bad to rate the rest):\n  {nights}:2: match \"2024-09-06 Azul\": system elo rates matches of exactly 2 entries, this one has 3\n")),
        "{}",
        with.stderr
    );
}

#[test]
fn negative_pull_and_widen_reach_the_range_check() {
    let d = Dir::new("seasons-negative");
    let (all, _, _) = split(&d);
    assert_eq!(
        podium(&["rate", &all, "--seasons", "year", "--pull", "-0.1"]).err(),
        "error: --reset soft: pull is -0.1; it must be between 0 and 1 (0 keeps the ratings, 1 puts everyone at the mean)\n"
    );
    assert_eq!(
        podium(&["rate", &all, "--seasons", "year", "--widen", "-1"]).err(),
        "error: --reset soft: widen is -1; it must be a finite number ≥ 0\n"
    );
}

#[test]
fn the_widen_help_names_sigma_nought_once() {
    let help = podium(&["rate", "--help"]);
    let text = help.ok().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("added to σ in quadrature as a share of σ₀, a new player's σ (σ' = √(σ² + (widen · σ₀)²)), ≥ 0;"),
        "{text}"
    );
    assert!(!text.contains("σ σ₀"), "{text}");
}
