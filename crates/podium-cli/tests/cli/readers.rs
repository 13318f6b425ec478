//! `podium` on inputs that are not what they should be: a named pipe, a file without
//! line breaks, a byte-order mark, a quote never closed, a key given twice, a factors
//! object, JSON Lines lines that are not matches, the last date, a bad list parameter;
//! and what the tables say when there is nothing to say.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{bin, csv_rows, podium, Dir};

const GAMES: &str = "match,player,rank\ng1,ann,1\ng1,bo,2\ng2,bo,1\ng2,cy,2\n";
const LINE: &str = "{\"match\":\"g1\",\"results\":[{\"player\":\"ann\",\"rank\":1},{\"player\":\"bo\",\"rank\":2}]}\n";

/// A named pipe given as a file is read as standard input is: once.
#[cfg(unix)]
#[test]
fn reading_a_fifo_does_not_hang() {
    let d = Dir::new("readers-fifo");
    for _ in 0..10 {
        let path = d.path("games.csv");
        let _ = std::fs::remove_file(&path);
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        let mut child = bin()
            .args(["rate", &path, "--system", "elo", "--format", "csv"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                let _ = std::fs::write(&path, GAMES);
            })
        };
        // A hang guard, not a measure of speed: a minute for what takes milliseconds.
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                let _ = std::fs::write(&path, "");
                panic!("podium rate on a named pipe did not finish");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        writer.join().unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows = csv_rows(&String::from_utf8(out.stdout).unwrap());
        assert_eq!(rows.len(), 3);
    }
}

/// `ln -s /dev/zero z.csv`: an error naming the file and line, not memory without end.
#[cfg(unix)]
#[test]
fn a_line_longer_than_the_limit_is_refused() {
    let d = Dir::new("readers-long");
    for name in ["z.csv", "z.jsonl"] {
        let path = d.path(name);
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let run = podium(&["rate", &path]);
        let (limit, format) = if name.ends_with("csv") {
            ("1 MiB", "CSV")
        } else {
            ("16 MiB", "JSON Lines")
        };
        assert_eq!(
            run.err().trim(),
            format!(
                "error: {path}:1: a line longer than {limit}, the most a {format} line may hold"
            )
        );
    }
}

#[test]
fn a_jsonl_file_with_a_byte_order_mark_is_read() {
    let d = Dir::new("readers-bom");
    let path = d.file("g.jsonl", &format!("\u{feff}{LINE}"));
    let rows = csv_rows(podium(&["rate", &path, "--format", "csv"]).ok());
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["player"], "ann");
}

#[test]
fn an_unterminated_quote_names_where_it_opens() {
    let d = Dir::new("readers-quote");
    let path = d.file(
        "g.csv",
        "match,player,rank\ng1,ann,1\ng1,\"bo,2\ng2,cy,1\ng2,dee,2\n",
    );
    let err = podium(&["rate", &path]).err().to_string();
    assert_eq!(
        err.trim(),
        format!("error: {path}:3: field `player`: the quote that opens it is never closed (the field runs on to the end of the file); close it, or double a quote inside a quoted field (\"\")")
    );
}

/// A JSON Lines line that is not a readable match (bad JSON, no match id, not an object)
/// is a bad match of its own: `--skip-bad` rates the rest and lists it by line; without
/// it, every such line is listed and nothing is rated.
#[test]
fn a_jsonl_line_that_is_not_a_match_is_a_bad_match() {
    let d = Dir::new("readers-bad-lines");
    let path = d.file(
        "b.jsonl",
        &format!(
            "{LINE}{{\"match\":\"g2\",\"results\":[{{\"player\":\"ann\",\"rank\":1}},\n\
             {{\"results\":[{{\"player\":\"ann\",\"rank\":1}},{{\"player\":\"bo\",\"rank\":2}}]}}\n\
             []\n{}",
            LINE.replace("g1", "g5")
        ),
    );
    let listed = [
        format!("{path}:2: field `json`: \"{{\\\"match\\\":\\\"g2\\\",\\\"results\\\":[{{\\\"player\\\":\\\"ann\\\",\\\"rank\\\":1}},\" is not valid, expected a match object like {{\"match\":..,\"results\":[..]}} (EOF while parsing a value at column 51 of the line)"),
        format!("{path}:3: field `match`: \"\" is not valid, expected the match id, a string: it is required"),
        format!("{path}:4: field `json`: \"[]\" is not valid, expected a match object like {{\"match\":..,\"results\":[..]}}"),
    ];
    let run = podium(&["rate", &path, "--format", "csv", "--skip-bad"]);
    let rows = csv_rows(run.ok());
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["games"] == "2"), "{rows:?}");
    let skipped = format!("skipped 3 bad matches:\n  {}\n", listed.join("\n  "));
    assert_eq!(run.stderr, skipped);
    let run = podium(&["rate", &path]);
    assert_eq!(run.status, 2);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert_eq!(
        run.err().trim(),
        format!(
            "error: 3 bad matches found, nothing rated (use --skip-bad to rate the rest):\n  {}",
            listed.join("\n  ")
        )
    );
}

#[test]
fn a_repeated_json_key_is_named() {
    let d = Dir::new("readers-repeated");
    let path = d.file(
        "g.jsonl",
        "{\"match\":\"g1\",\"results\":[{\"player\":\"ann\",\"rank\":1,\"rank\":3},{\"player\":\"bo\",\"rank\":2}]}\n",
    );
    let err = podium(&["rate", &path]).err().to_string();
    assert!(
        err.contains(&format!("{path}:1: field `results[0].rank`: \"3\" is not valid, expected `rank` once: this object gives it twice")),
        "{err}"
    );
}

#[test]
fn a_factors_object_in_json_lines_is_told_how_factors_are_written() {
    let d = Dir::new("readers-factors-object");
    let path = d.file(
        "g.jsonl",
        "{\"match\":\"g1\",\"results\":[{\"player\":\"ann\",\"rank\":1,\"factors\":{\"car\":\"red\"}},{\"player\":\"bo\",\"rank\":2}]}\n",
    );
    let err = podium(&["rate", &path]).err().to_string();
    assert!(
        err.contains("a factor is not an object but a field of the result itself, named by its kind: {\"player\":..,\"rank\":..,\"car\":\"red\"}, read with `--factor car`"),
        "{err}"
    );
    assert!(!err.contains("--factor factors"), "{err}");
}

#[test]
fn a_bad_taus_value_reads_as_one_sentence() {
    let d = Dir::new("readers-taus");
    let path = d.file("g.csv", GAMES);
    let err = podium(&[
        "rate",
        &path,
        "--system",
        "kalman-mmr",
        "--set",
        "taus=1,2,3,4,5,6,7,8,9",
    ])
    .err()
    .to_string();
    assert_eq!(
        err.trim(),
        "error: parameter taus: \"1,2,3,4,5,6,7,8,9\" is not valid, expected comma-separated numbers, one to eight values, each in [0, 10000]"
    );
}

#[test]
fn the_last_day_of_9999_is_a_valid_date() {
    let d = Dir::new("readers-9999");
    let path = d.file(
        "g.csv",
        "match,time,player,rank\ng1,9999-12-30,ann,1\ng1,9999-12-30,bo,2\ng2,9999-12-31,bo,1\ng2,9999-12-31,cy,2\n",
    );
    let rows = csv_rows(podium(&["rate", &path, "--format", "csv"]).ok());
    let last = |p: &str| rows.iter().find(|r| r["player"] == p).unwrap()["last_played"].clone();
    assert_eq!(last("ann"), "9999-12-30");
    assert_eq!(last("bo"), "9999-12-31");
}

/// A factor on every entry of every match adds the same to each: none is rated, and the
/// empty table says so.
#[test]
fn an_empty_factors_table_says_why() {
    let d = Dir::new("readers-factors-empty");
    let path = d.file(
        "g.csv",
        "match,player,rank,car\ng1,ann,1,red\ng1,bo,2,red\ng2,bo,1,red\ng2,cy,2,red\n",
    );
    for format in ["table", "csv", "json"] {
        let run = podium(&[
            "rate",
            &path,
            "--system",
            "pairwise",
            "--factor",
            "car",
            "--factors",
            "--format",
            format,
        ]);
        run.ok();
        assert!(
            run.stderr.contains("no factor was rated, so the factors' table is empty: a factor is rated only in a match where some entries carry it and others do not"),
            "{format}: {}",
            run.stderr
        );
    }
    // With a factor that tells entries apart, no such word.
    let path = d.file(
        "h.csv",
        "match,player,rank,car\ng1,ann,1,red\ng1,bo,2,blue\n",
    );
    let run = podium(&[
        "rate",
        &path,
        "--system",
        "pairwise",
        "--factor",
        "car",
        "--factors",
    ]);
    run.ok();
    assert!(
        !run.stderr.contains("no factor was rated"),
        "{}",
        run.stderr
    );
}

/// Without times, `last_played` is empty (a dash in the table), not the last match's id.
#[test]
fn last_played_is_empty_without_times() {
    let d = Dir::new("readers-last-played");
    let path = d.file("g.csv", GAMES);
    let rows = csv_rows(podium(&["rate", &path, "--format", "csv"]).ok());
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert_eq!(r["last_played"], "", "{r:?}");
    }
    let json: serde_json::Value =
        serde_json::from_str(podium(&["rate", &path, "--format", "json"]).ok()).unwrap();
    for r in json.as_array().unwrap() {
        assert_eq!(r["last_played"], serde_json::Value::Null, "{r}");
    }
    let table = podium(&["rate", &path]).ok().to_string();
    assert!(!table.contains("g1") && !table.contains("g2"), "{table}");
    let ann = table.lines().find(|l| l.contains("ann")).unwrap();
    assert!(ann.trim_end_matches(['│', ' ']).ends_with('-'), "{ann}");
    // With times, the time of the last match.
    let timed = d.file(
        "t.csv",
        "match,time,player,rank\ng1,2024-05-01,ann,1\ng1,2024-05-01,bo,2\ng2,2024-05-02T18:30:00Z,bo,1\ng2,2024-05-02T18:30:00Z,cy,2\n",
    );
    let rows = csv_rows(podium(&["rate", &timed, "--format", "csv"]).ok());
    let last = |p: &str| rows.iter().find(|r| r["player"] == p).unwrap()["last_played"].clone();
    assert_eq!(last("ann"), "2024-05-01");
    assert_eq!(last("bo"), "2024-05-02T18:30:00Z");
}

#[test]
fn the_weight_limits_the_docs_give_are_those_read() {
    // The docs' weight rows give the least weight a match takes.
    let least = format!("`{:e} ≤ w ≤ 1`", podium::model::MIN_WEIGHT);
    assert_eq!(least, "`1e-9 ≤ w ≤ 1`");
    for doc in ["README.md", "docs/datasets.md"] {
        let text = std::fs::read_to_string(crate::util::repo_root().join(doc)).unwrap();
        let row = text
            .lines()
            .find(|l| l.starts_with("| `weight` |"))
            .unwrap_or_else(|| panic!("{doc} has no weight row"));
        assert!(row.contains(&least), "{doc}: {row}");
    }
    let d = Dir::new("weight-limits");
    let rate = |weight: &str| {
        let games = d.file(
            "w.csv",
            &format!("match,player,rank,weight\nm1,a,1,{weight}\nm1,b,2,1\n"),
        );
        podium(&["rate", &games, "--system", "elo", "--format", "csv"])
    };
    // The least weight and the whole match are rated: Elo's change of 16 scaled by it.
    for (weight, w) in [("1e-9", 1e-9), ("1", 1.0)] {
        let rows = csv_rows(rate(weight).ok());
        let a = rows.iter().find(|r| r["player"] == "a").unwrap();
        let rating: f64 = a["rating"].parse().unwrap();
        assert!(
            (rating - (1500.0 + 16.0 * w)).abs() < 1e-9,
            "{weight}: {rating}"
        );
    }
    // Every weight out of the range gets the reader's message, with the range.
    let games = d.path("w.csv");
    for weight in ["1e-10", "0", "-1", "1.5"] {
        assert_eq!(
            rate(weight).err(),
            format!(
                "error: 1 bad match found, nothing rated (use --skip-bad to rate the rest):\n  \
                 {games}:2: field `weight`: \"{weight}\" is not valid, expected a number from 1e-9 to 1, the share of the match played\n"
            ),
        );
    }
}
