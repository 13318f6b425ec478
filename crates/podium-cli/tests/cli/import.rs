//! `podium import catan|f1|codeforces` through the binary, on small inline samples.

use crate::util::{csv_rows, podium, podium_stdin, Dir};

#[test]
fn catan_log_becomes_long_csv_oldest_first() {
    let log = "2020-10-16 : 10 : Alex 10 * , Mic 10 , Jess 9\n\
               2020-10-16 : 10 : Mic 10, Alex 7, Jess 7\n\
               2020-10-02 : 10 : Jess 10 , Mic 8 , Alex 8\n";
    let out = podium_stdin(&["import", "catan", "-"], log);
    let rows = csv_rows(out.ok());
    let got: Vec<(&str, &str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["match"].as_str(),
                r["player"].as_str(),
                r["rank"].as_str(),
                r["time"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("2020-10-02#1", "Jess", "1", "2020-10-02"),
            ("2020-10-02#1", "Mic", "2", "2020-10-02"),
            ("2020-10-02#1", "Alex", "2", "2020-10-02"),
            ("2020-10-16#1", "Mic", "1", "2020-10-16"),
            ("2020-10-16#1", "Alex", "2", "2020-10-16"),
            ("2020-10-16#1", "Jess", "2", "2020-10-16"),
            ("2020-10-16#2", "Alex", "1", "2020-10-16"),
            ("2020-10-16#2", "Mic", "2", "2020-10-16"),
            ("2020-10-16#2", "Jess", "3", "2020-10-16"),
        ]
    );
    // What it prints, `podium rate` reads: the day's games in the order played.
    let d = Dir::new("import-catan");
    let file = d.file("c.csv", out.ok());
    let board = csv_rows(podium(&["rate", &file, "--format", "csv"]).ok());
    assert_eq!(board.len(), 3);
}

#[test]
fn catan_with_scores_writes_victory_points_instead_of_places() {
    let log = "2020-10-16 : 10 : Alex 10 * , Mic 10 , Jess 9\n\
               2020-10-02 : 10 : Jess 10 , Mic 8 , Alex 8\n";
    let rows = csv_rows(podium_stdin(&["import", "catan", "-", "--scores"], log).ok());
    let got: Vec<(&str, &str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["match"].as_str(),
                r["player"].as_str(),
                r["rank"].as_str(),
                r["score"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("2020-10-02#1", "Jess", "", "10"),
            ("2020-10-02#1", "Mic", "", "8"),
            ("2020-10-02#1", "Alex", "", "8"),
            ("2020-10-16#1", "Alex", "", "10.5"),
            ("2020-10-16#1", "Mic", "", "10"),
            ("2020-10-16#1", "Jess", "", "9"),
        ]
    );
}

#[test]
fn catan_errors_name_file_and_line() {
    let d = Dir::new("import-catan-bad");
    let file = d.file(
        "games.txt",
        "2020-10-16 : 10 : A 10, B 9\n2020-10-15 : 10 : A 10, B nine\n",
    );
    let err = podium(&["import", "catan", &file]).err().to_string();
    assert!(
        err.starts_with(&format!("error: {file}:2: field `points`: \"nine\"")),
        "{err}"
    );
    let colon = d.file("colon.txt", "2024-01-01 : 10 : A 10, B 9 : C 8\n");
    let err = podium(&["import", "catan", &colon]).err().to_string();
    assert!(
        err.starts_with(&format!(
            "error: {colon}:1: field `players`: \"A 10, B 9 : C 8\" is not valid"
        )),
        "{err}"
    );
    let empty = d.file("empty.txt", "");
    let run = podium(&["import", "catan", &empty]);
    assert!(
        run.err()
            .starts_with(&format!("error: {empty}:1: no game in the log: expected")),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
    let err = podium(&["import", "catan", &d.path("missing.txt")])
        .err()
        .to_string();
    assert!(err.contains("cannot open"), "{err}");
}

#[test]
fn catan_game_out_of_date_order_or_star_without_a_tie_is_refused_printing_nothing() {
    let log =
        "2020-01-03 : 10 : A 10, B 9\n2020-01-05 : 10 : A 10, B 8\n2020-01-01 : 10 : B 10, A 7\n";
    for scores in [false, true] {
        let mut args = vec!["import", "catan", "-"];
        if scores {
            args.push("--scores");
        }
        let run = podium_stdin(&args, log);
        assert_eq!(
            run.err(),
            "error: <stdin>:2: a game dated 2020-01-05 below one dated 2020-01-03 on line 1: this log lists the newest game first, so each line is dated no later than the line above it (move the game to its place among the dates)\n"
        );
        assert_eq!(run.stdout, "");
        let run = podium_stdin(&args, "2020-01-03 : 10 : A 10, B 9 *, C 8\n");
        assert_eq!(
            run.err(),
            "error: <stdin>:1: field `*`: \"B 9 *\" is not valid, expected no `*` after the points of B: a `*` marks the winner among players with equal points, and no player listed after B has 9 points\n"
        );
        assert_eq!(run.stdout, "");
    }
}

#[test]
fn f1_directory_becomes_long_csv_in_race_order() {
    let d = Dir::new("import-f1");
    d.file(
        "races.csv",
        "raceId,year,round,circuitId,name,date\n\
         2,1951,2,1,\"Swiss Grand Prix\",\"1951-05-27\"\n\
         1,1951,1,1,\"Indianapolis 500\",\"1951-05-19\"\n",
    );
    d.file(
        "drivers.csv",
        "driverId,driverRef,forename\n1,\"fangio\",\"Juan\"\n2,\"farina\",\"Nino\"\n3,\"wallard\",\"Lee\"\n",
    );
    d.file(
        "results.csv",
        "resultId,raceId,driverId,constructorId,positionOrder\n\
         1,2,1,1,1\n2,2,2,1,2\n3,2,3,2,2\n4,1,3,2,1\n5,1,2,1,2\n",
    );
    d.file(
        "constructors.csv",
        "constructorId,constructorRef,name\n1,\"alfa\",\"Alfa Romeo\"\n2,\"kurtis_kraft\",\"Kurtis Kraft\"\n",
    );
    let out = podium(&["import", "f1", d.0.to_str().unwrap()]);
    assert!(
        out.ok()
            .starts_with("match,player,rank,score,team,time,weight,constructor\n"),
        "{}",
        out.stdout
    );
    let rows = csv_rows(out.ok());
    let got: Vec<(&str, &str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["match"].as_str(),
                r["player"].as_str(),
                r["rank"].as_str(),
                r["constructor"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("1951-01 Indianapolis 500", "wallard", "1", "kurtis_kraft"),
            ("1951-01 Indianapolis 500", "farina", "2", "alfa"),
            ("1951-02 Swiss Grand Prix", "fangio", "1", "alfa"),
            ("1951-02 Swiss Grand Prix", "farina", "2", "alfa"),
            ("1951-02 Swiss Grand Prix", "wallard", "2", "kurtis_kraft"),
        ]
    );
    // Laps and times change nothing by default: places in `rank`, no score.
    d.file(
        "results.csv",
        "resultId,raceId,driverId,constructorId,positionOrder,laps,milliseconds\n\
         1,2,1,1,1,42,10800000\n2,2,2,1,3,41,\\N\n3,2,3,2,2,42,10812345\n4,1,3,2,1,200,\\N\n5,1,2,1,2,199,\\N\n",
    );
    let dir = d.0.to_str().unwrap();
    let rows = csv_rows(podium(&["import", "f1", dir]).ok());
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["player"].as_str(),
                r["rank"].as_str(),
                r["score"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("wallard", "1", ""),
            ("farina", "2", ""),
            ("fangio", "1", ""),
            ("wallard", "2", ""),
            ("farina", "3", ""),
        ]
    );
    // With --scores: minus the seconds behind the winner, a lapped car behind.
    let rows = csv_rows(podium(&["import", "f1", dir, "--scores"]).ok());
    let got: Vec<(&str, &str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["match"].as_str(),
                r["player"].as_str(),
                r["rank"].as_str(),
                r["score"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("1951-01 Indianapolis 500", "wallard", "1", ""),
            ("1951-01 Indianapolis 500", "farina", "2", ""),
            ("1951-02 Swiss Grand Prix", "fangio", "", "0"),
            ("1951-02 Swiss Grand Prix", "wallard", "", "-12.345"),
            // One lap of the winner's 10800 s / 42 laps.
            ("1951-02 Swiss Grand Prix", "farina", "", "-257.143"),
        ]
    );
    let empty = Dir::new("import-f1-empty");
    let err = podium(&["import", "f1", empty.0.to_str().unwrap()])
        .err()
        .to_string();
    assert!(
        err.contains("races.csv") && err.contains("cannot open"),
        "{err}"
    );
}

#[test]
fn f1_scores_help_says_every_driver_is_at_least_a_second_behind_the_one_above() {
    let help = podium(&["import", "f1", "--help"]);
    let text = help.ok().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("every driver at least 1 s behind the one above him"),
        "{text}"
    );
}

#[test]
fn f1_errors_name_the_line_of_a_file_with_crlf_line_breaks() {
    let d = Dir::new("import-f1-crlf");
    let crlf = |text: &str| text.replace('\n', "\r\n");
    d.file(
        "races.csv",
        &crlf("raceId,year,round,circuitId,name,date\n1,1951,1,1,\"Swiss Grand Prix\",\"1951-05-27\"\n"),
    );
    d.file(
        "drivers.csv",
        &crlf("driverId,driverRef\n1,\"fangio\"\n2,\"farina\"\n"),
    );
    d.file(
        "constructors.csv",
        &crlf("constructorId,constructorRef\n1,\"alfa\"\n"),
    );
    d.file(
        "results.csv",
        &crlf("resultId,raceId,driverId,constructorId,positionOrder\n1,1,1,1,1\n2,1,2,1,2\n3,1,9,1,3\n"),
    );
    let err = podium(&["import", "f1", d.0.to_str().unwrap()])
        .err()
        .to_string();
    let results = d.0.join("results.csv").display().to_string();
    assert_eq!(
        err,
        format!("error: {results}:4: field `driverId`: \"9\" is not valid, expected a driverId of drivers.csv\n")
    );
}

#[test]
fn codeforces_counts_have_their_thousands_marked() {
    // 1,001 rows whose rankHi is one below their rankLo, after the winner.
    let d = Dir::new("import-cf-thousands");
    let mut text = String::from("1002\ntop 1 1\n");
    for place in 2..=1002 {
        text.push_str(&format!("h{place} {place} {}\n", place - 1));
    }
    d.file("589.txt", &text);
    let out = podium(&["import", "codeforces", d.0.to_str().unwrap()]);
    assert_eq!(
        out.stderr,
        format!(
            "{}: 1,001 rows of contest 589 have rankHi below rankLo; places follow rankLo\n",
            d.0.join("589.txt").display()
        )
    );
    let rows = csv_rows(out.ok());
    assert_eq!(rows.len(), 1002);
    assert_eq!(
        (rows[1001]["player"].as_str(), rows[1001]["rank"].as_str()),
        ("h1002", "1002")
    );
}

#[test]
fn codeforces_handle_listed_twice_names_both_lines_and_prints_nothing() {
    let d = Dir::new("import-cf-twice");
    d.file("1.txt", "2\nann 1 1\nbo 2 2\n");
    d.file("2.txt", "4\na 1 1\nb 2 2\nc 3 3\nb 4 4\n");
    let run = podium(&["import", "codeforces", d.0.to_str().unwrap()]);
    assert_eq!(
        run.err(),
        format!(
            "error: {}:5: field `handle`: \"b\" is not valid, expected each handle once in the standings (also on line 3)\n",
            d.0.join("2.txt").display()
        )
    );
    // Contest 1 was read, but nothing is written when a later contest is bad.
    assert_eq!(run.stdout, "");
}

#[test]
fn f1_scores_refuse_laps_and_times_no_race_has_printing_nothing() {
    let d = Dir::new("import-f1-bounds");
    d.file(
        "races.csv",
        "raceId,year,round,circuitId,name,date\n1,1951,1,1,\"Swiss Grand Prix\",\"1951-05-27\"\n",
    );
    d.file(
        "drivers.csv",
        "driverId,driverRef\n1,\"fangio\"\n2,\"farina\"\n3,\"wallard\"\n",
    );
    d.file(
        "constructors.csv",
        "constructorId,constructorRef\n1,\"alfa\"\n",
    );
    let results = d.0.join("results.csv").display().to_string();
    let header = "resultId,raceId,driverId,constructorId,positionOrder,laps,milliseconds\n";
    let dir = d.0.to_str().unwrap();
    d.file(
        "results.csv",
        &format!(
            "{header}1,1,1,1,1,1,18446744073709551615\n2,1,2,1,2,0,\\N\n3,1,3,1,3,4294967295,\\N\n"
        ),
    );
    let run = podium(&["import", "f1", dir, "--scores"]);
    assert_eq!(
        run.err(),
        format!("error: {results}:2: field `milliseconds`: \"18446744073709551615\" is not valid, expected the race time in milliseconds, a whole number from 1 to 604800000 (7 days)\n")
    );
    assert_eq!(run.stdout, "");
    d.file(
        "results.csv",
        &format!("{header}1,1,1,1,1,1,5400000\n2,1,2,1,2,0,\\N\n3,1,3,1,3,4294967295,\\N\n"),
    );
    let run = podium(&["import", "f1", dir, "--scores"]);
    assert_eq!(
        run.err(),
        format!("error: {results}:4: field `laps`: \"4294967295\" is not valid, expected the laps completed, a whole number from 0 to 10000\n")
    );
    assert_eq!(run.stdout, "");
    // Without --scores the two columns are not read.
    let rows = csv_rows(podium(&["import", "f1", dir]).ok());
    assert_eq!(rows.len(), 3);
}

#[test]
fn regression_a_reader_that_stops_early_is_not_an_error() {
    // `podium import f1 DIR | head -1` said `error: Broken pipe (os error 32)` and exited
    // with 2, where `podium rate … | head` stops quietly and succeeds.
    use std::io::Read;
    let d = Dir::new("import-closed-pipe");
    let mut games = String::new();
    for _ in 0..3000 {
        games.push_str("2020-10-16 : 10 : Ann 10 , Bo 8\n");
    }
    let log = d.file("games.txt", &games);
    let standings = d.0.join("standings");
    std::fs::create_dir(&standings).unwrap();
    let mut text = String::from("6000\n");
    for place in 1..=6000 {
        text.push_str(&format!("h{place} {place} {place}\n"));
    }
    std::fs::write(standings.join("1.txt"), text).unwrap();
    let standings = standings.to_str().unwrap();
    for args in [
        vec!["import", "catan", &log],
        vec!["import", "codeforces", standings],
    ] {
        let mut child = crate::util::bin()
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0; 100];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The pipe is closed here, with 6,000 rows (far more than it buffers) unread.
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!((out.status.code(), &*stderr), (Some(0), ""), "{args:?}");
    }
}
