//! `podium rate --save` and `--resume`: rating a history in two runs, the league saved
//! between them, gives what one run gives, bit for bit; a file that is not a saved
//! league of the system run is refused, naming it and what is wrong, and nothing is
//! written.

use crate::util::{podium, Dir};

/// A history of `n` matches with times, ties, teams and a car per entry: the first
/// `split` matches in one file, the rest in another.
fn history(n: usize, split: usize) -> (String, String) {
    let header = "match,time,player,rank,team,car\n";
    let (mut first, mut rest) = (header.to_string(), header.to_string());
    for i in 0..n {
        let day = 1 + i % 28;
        let month = 1 + i / 28;
        let p = |k: usize| format!("p{}", (i * 3 + k * 5) % 11);
        let ties = if i % 3 == 0 { [1, 1, 3] } else { [1, 2, 3] };
        let mut rows = String::new();
        for (k, place) in ties.iter().enumerate() {
            let car = ["red", "blue", "green"][(i + k) % 3];
            rows.push_str(&format!(
                "m{i},2024-{month:02}-{day:02},{},{place},,{car}\n",
                p(k)
            ));
        }
        // A team of two in every fourth match.
        if i % 4 == 0 {
            for k in [3, 4] {
                rows.push_str(&format!(
                    "m{i},2024-{month:02}-{day:02},{},4,t{i},red\n",
                    p(k)
                ));
            }
        }
        if i < split {
            first.push_str(&rows);
        } else {
            rest.push_str(&rows);
        }
    }
    (first, rest)
}

/// Both halves in one file.
fn whole(first: &str, rest: &str) -> String {
    format!("{first}{}", rest.split_once('\n').unwrap().1)
}

#[test]
fn rating_half_saved_then_the_rest_resumed_equals_rating_the_whole_file() {
    let d = Dir::new("saved_split");
    let (first, rest) = history(40, 17);
    let a = d.file("first.csv", &first);
    let b = d.file("rest.csv", &rest);
    let all = d.file("all.csv", &whole(&first, &rest));
    for system in ["kalman-mmr", "glicko2", "elo-mmr", "sme", "trueskill"] {
        let (once, half, resumed) = (d.path("once"), d.path("half"), d.path("resumed"));
        let run = |files: &[&str], extra: &[&str]| {
            let mut args = vec!["rate", "--system", system, "--factor", "car"];
            args.extend(files);
            args.extend(["--format", "json", "--factors"]);
            args.extend(extra);
            podium(&args).ok().to_string()
        };
        let board = run(&[&all], &["--save", &once]);
        run(&[&a], &["--save", &half]);
        let again = run(&[&b], &["--resume", &half, "--save", &resumed]);
        assert_eq!(again, board, "{system}");
        // The saved leagues are the same, byte for byte.
        let (x, y) = (
            std::fs::read_to_string(&once).unwrap(),
            std::fs::read_to_string(&resumed).unwrap(),
        );
        assert_eq!(x, y, "{system}");
        assert!(
            x.starts_with("{\"format\":\"podium-league\",\"version\":1,"),
            "{x}"
        );
        // The --resume file may be saved over.
        run(&[&b], &["--resume", &half, "--save", &half]);
        assert_eq!(std::fs::read_to_string(&half).unwrap(), x, "{system}");
    }
}

#[test]
fn a_resumed_league_refuses_the_matches_it_rated_and_matches_dated_before_its_own() {
    let d = Dir::new("saved_again");
    let (first, rest) = history(12, 6);
    let a = d.file("first.csv", &first);
    let b = d.file("rest.csv", &rest);
    let (half, out) = (d.path("half.state"), d.path("out.state"));
    podium(&["rate", &a, "--save", &half]).ok();
    let saved = std::fs::read_to_string(&half).unwrap();
    // Going on with the same file again, or with the first file and new matches: the
    // matches rated before are bad matches, named with the saved league; nothing is
    // rated or written.
    let again = d.file("again.csv", &whole(&rest, &first));
    for (file, line, id) in [(&a, 2, "m0"), (&again, 22, "m0")] {
        let run = podium(&["rate", file, "--resume", &half, "--save", &out]);
        let err = run.err().to_string();
        assert!(
            err.contains(&format!(
                "{file}:{line}: match \"{id}\" was rated already by the league resumed from {half}"
            )),
            "{err}"
        );
        assert!(run.stdout.is_empty() && !std::path::Path::new(&out).exists());
    }
    // With --skip-bad the new matches are rated and the old ones skipped: the same
    // league as going on with the new ones alone.
    let skipped = podium(&[
        "rate",
        &again,
        "--resume",
        &half,
        "--skip-bad",
        "--format",
        "json",
    ]);
    let new_only = podium(&["rate", &b, "--resume", &half, "--format", "json"]);
    assert_eq!(skipped.ok().to_string(), new_only.ok().to_string());
    assert!(
        skipped.stderr.contains("skipped 6 bad matches"),
        "{}",
        skipped.stderr
    );
    // A new match dated before the saved league's last match (2024-01-06), or without a
    // time, would be rated out of order: refused, naming the time expected.
    let early = d.file(
        "early.csv",
        "match,time,player,rank\nx1,2024-01-05,p1,1\nx1,2024-01-05,p2,2\n",
    );
    let err = podium(&["rate", &early, "--resume", &half])
        .err()
        .to_string();
    assert!(
        err.contains(&format!("{early}:2: field `time`: \"2024-01-05\" is not valid, expected a time no earlier than 2024-01-06, the last match of the league resumed from {half}")),
        "{err}"
    );
    let undated = d.file("undated.csv", "match,player,rank\nx2,p1,1\nx2,p2,2\n");
    let err = podium(&["rate", &undated, "--resume", &half])
        .err()
        .to_string();
    assert!(
        err.contains("expected a time: the league resumed from") && err.contains(&undated),
        "{err}"
    );
    // The saved league notes every match it rated; one saved after going on notes both
    // runs', so the first file is refused again from it too.
    assert_eq!(saved.matches("\"match_ids\":[").count(), 1, "{saved}");
    podium(&["rate", &b, "--resume", &half, "--save", &out]).ok();
    let err = podium(&["rate", &a, "--resume", &out]).err().to_string();
    assert!(err.contains("6 bad matches found"), "{err}");
    // A plain file (read on the fast path) of a league without times, likewise.
    let plain = d.file("plain.csv", "match,player,rank\ny1,p1,1\ny1,p2,2\n");
    let more = d.file(
        "more.csv",
        "match,player,rank\ny2,p1,1\ny2,p2,2\ny1,p2,1\ny1,p1,2\n",
    );
    let plain_state = d.path("plain.state");
    podium(&["rate", &plain, "--system", "sme", "--save", &plain_state]).ok();
    let err = podium(&["rate", &more, "--system", "sme", "--resume", &plain_state])
        .err()
        .to_string();
    assert!(
        err.contains(&format!("{more}:4: match \"y1\" was rated already")),
        "{err}"
    );
}

#[test]
fn a_file_that_is_not_a_saved_league_of_the_system_run_is_refused_and_nothing_written() {
    let d = Dir::new("saved_bad");
    let (first, rest) = history(6, 3);
    let a = d.file("first.csv", &first);
    let b = d.file("rest.csv", &rest);
    let glicko2 = d.path("glicko2.state");
    podium(&["rate", &a, "--system", "glicko2", "--save", &glicko2]).ok();
    let saved = std::fs::read_to_string(&glicko2).unwrap();
    let out = d.path("out.state");
    let refused = |state: &str, extra: &[&str]| -> String {
        let mut args = vec!["rate", b.as_str(), "--resume", state, "--save", &out];
        args.extend(extra);
        let run = podium(&args);
        let err = run.err().to_string();
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        assert!(!std::path::Path::new(&out).exists(), "{err}");
        assert!(err.contains(state), "{err}");
        err
    };
    // Another system, other parameters.
    let err = refused(&glicko2, &[]);
    assert!(
        err.contains("saved by system glicko2, not kalman-mmr; rate it with glicko2"),
        "{err}"
    );
    // Said once, though the file's error holds the league's.
    assert_eq!(err.matches("rate it with glicko2").count(), 1, "{err}");
    let err = refused(&glicko2, &["--system", "glicko2", "--set", "tau=0.3"]);
    assert!(
        err.contains("saved by glicko2 with tau=0.5, not tau=0.3"),
        "{err}"
    );
    // Not a saved league: a match file, nothing, another JSON object.
    let err = refused(&a, &[]);
    assert!(err.contains("not a saved podium league"), "{err}");
    let empty = d.file("empty.state", "");
    let err = refused(&empty, &[]);
    assert!(
        err.contains("not a saved podium league (the file is empty"),
        "{err}"
    );
    let other = d.file("other.json", "{\"players\": []}\n");
    let err = refused(&other, &[]);
    assert!(err.contains("no field `format`"), "{err}");
    // Damaged: cut short, a field of the wrong type, another version.
    let cut = d.file("cut.state", &saved[..saved.len() / 2]);
    let err = refused(&cut, &["--system", "glicko2"]);
    assert!(
        err.contains("a damaged saved league: line 1, column"),
        "{err}"
    );
    let wrong = d.file(
        "wrong.state",
        &saved.replacen("\"games\":", "\"games\":\"many\",\"x\":", 1),
    );
    let err = refused(&wrong, &["--system", "glicko2"]);
    assert!(err.contains("field `players[0].rating.games`"), "{err}");
    let v2 = d.file(
        "v2.state",
        &saved.replacen("\"version\":1", "\"version\":2", 1),
    );
    let err = refused(&v2, &["--system", "glicko2"]);
    assert!(
        err.contains("a saved league of version 2, but this podium reads version 1"),
        "{err}"
    );
    // A file missing.
    let err = refused(&d.path("missing.state"), &[]);
    assert!(err.contains("cannot read the saved league"), "{err}");
    // Saving over an input or to standard output is refused before anything is rated.
    let err = podium(&["rate", &a, "--save", &a]).err().to_string();
    assert!(err.contains("read as an input"), "{err}");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), first);
    let err = podium(&["rate", &a, "--save", "-"]).err().to_string();
    assert!(err.contains("give a file name"), "{err}");
    // --initial starts a new league: not with --resume.
    let err = podium(&["rate", &b, "--resume", &glicko2, "--initial", &a])
        .err()
        .to_string();
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn a_league_that_rated_a_factor_is_not_resumed_without_it() {
    let d = Dir::new("saved_factor");
    let (first, rest) = history(12, 6);
    let a = d.file("first.csv", &first);
    let b = d.file("rest.csv", &rest);
    let all = d.file("all.csv", &whole(&first, &rest));
    let state = d.path("cars.state");
    podium(&[
        "rate", &a, "--system", "sme", "--factor", "car", "--save", &state,
    ])
    .ok();
    let saved = std::fs::read(&state).unwrap();
    // Without --factor car the rest would be rated car-blind: neither run's numbers.
    let out = d.path("out.state");
    let run = podium(&[
        "rate", &b, "--system", "sme", "--resume", &state, "--save", &out,
    ]);
    assert_eq!(
        run.err(),
        format!("error: --resume {state}: the league saved there rated the factor car (read with --factor car), which this run does not read; give --factor car as when it was saved\n")
    );
    assert_eq!(run.stdout, "");
    assert!(!std::path::Path::new(&out).exists());
    assert_eq!(std::fs::read(&state).unwrap(), saved);
    // With it, one run's board.
    let resumed = podium(&[
        "rate", &b, "--system", "sme", "--factor", "car", "--resume", &state, "--format", "csv",
    ]);
    let once = podium(&[
        "rate", &all, "--system", "sme", "--factor", "car", "--format", "csv",
    ]);
    assert_eq!(resumed.ok(), once.ok());
}
