//! What the commands refuse so that nothing is lost: outputs that would destroy inputs,
//! match ids read twice, ambiguous headers, and other regressions, each named after the
//! fault it pins.

use crate::util::{csv_rows, podium, podium_logged, Dir};

const GAMES: &str = "match,player,rank\ng1,ann,1\ng1,bo,2\ng2,bo,1\ng2,cy,2\n";

#[test]
fn regression_history_over_the_input_is_refused_and_the_input_kept() {
    let d = Dir::new("history-input");
    let games = d.file("gn.csv", GAMES);
    let init = d.file("i.csv", "player,rating\nann,1600\n");
    for (out, input) in [(&games, &games), (&init, &init)] {
        let run = podium(&["rate", &games, "--initial", &init, "--history", out]);
        let err = run.err();
        assert!(
            err.contains(&format!(
                "cannot write over {input}, which is read as an input"
            )),
            "{err}"
        );
        assert!(run.stdout.is_empty());
    }
    // Another name for the same file, through a link.
    #[cfg(unix)]
    {
        let link = d.path("link.csv");
        std::os::unix::fs::symlink(&games, &link).unwrap();
        let err = podium(&["rate", &games, "--history", &link])
            .err()
            .to_string();
        assert!(err.contains("which is read as an input"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&games).unwrap(), GAMES);
    assert_eq!(
        std::fs::read_to_string(&init).unwrap(),
        "player,rating\nann,1600\n"
    );
}

#[cfg(unix)]
#[test]
fn regression_history_through_a_link_replaces_the_target_and_keeps_the_link() {
    let d = Dir::new("history-link");
    let games = d.file("g.csv", GAMES);
    let target = d.file("history.csv", "old");
    let link = d.path("h.csv");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    podium(&["rate", &games, "--history", &link]).ok();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let rows = csv_rows(&std::fs::read_to_string(&target).unwrap()).len();
    assert_eq!(rows, 4);
}

#[cfg(unix)]
#[test]
fn regression_history_to_a_device_or_directory_is_refused() {
    // As root, `--history /dev/full` replaced the device node with a file.
    let d = Dir::new("history-device");
    let games = d.file("g.csv", GAMES);
    let err = podium(&["rate", &games, "--history", "/dev/full"])
        .err()
        .to_string();
    assert!(
        err.contains("/dev/full: cannot write to a device; give a file name"),
        "{err}"
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/full")
        .unwrap()
        .file_type()
        .is_char_device());
    let dir = d.0.display().to_string();
    let err = podium(&["rate", &games, "--history", &dir])
        .err()
        .to_string();
    assert!(err.contains("cannot write to a directory"), "{err}");
}

#[test]
fn regression_history_dash_is_standard_output() {
    let d = Dir::new("history-dash");
    let games = d.file("g.csv", GAMES);
    let run = podium(&["rate", &games, "--history", "-"]);
    let rows = csv_rows(run.ok());
    assert_eq!(rows.len(), 4, "the history, in place of the leaderboard");
    assert_eq!(rows[0]["player"], "ann");
    assert!(!std::path::Path::new("-").exists());
    // A bad match: nothing of the history is printed.
    let bad = d.file("bad.csv", "match,player,rank\ng1,a,1\ng1,b,2\ng2,a,1\n");
    let run = podium(&["rate", &bad, "--history", "-"]);
    run.err();
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

#[test]
fn a_failed_run_leaves_the_old_history_in_place() {
    let d = Dir::new("history-old");
    let bad = d.file("bad.csv", "match,player,rank\ng1,a,1\ng1,b,2\ng2,a,1\n");
    let history = d.file("h.csv", "old history\n");
    podium(&["rate", &bad, "--history", &history]).err();
    assert_eq!(std::fs::read_to_string(&history).unwrap(), "old history\n");
    let names: Vec<String> = std::fs::read_dir(&d.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
}

#[test]
fn regression_plot_and_site_never_write_over_what_is_read() {
    let d = Dir::new("plot-site");
    let dir = d.0.display().to_string();
    let err = podium(&["simulate", "--trials", "10", "--plot", &dir])
        .err()
        .to_string();
    assert!(err.contains("must end in .svg or .png"), "{err}");
    let svg_dir = d.path("x.svg");
    std::fs::create_dir(&svg_dir).unwrap();
    let run = podium(&["simulate", "--trials", "10", "--plot", &svg_dir]);
    assert!(
        run.err().contains("cannot write to a directory"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "refused before the simulation ran");
    // A log inside the site's directory, where a page would go.
    let site = d.path("site");
    std::fs::create_dir(&site).unwrap();
    let log = d.file(
        "site/index.html",
        "  0:00 InitGame: \\g_gametype\\0\\mapname\\q3dm17\n  0:05 ClientUserinfoChanged: 2 n\\Ann\\t\\0\n  0:06 ClientUserinfoChanged: 3 n\\Bo\\t\\0\n  0:09 Kill: 2 3 7: Ann killed Bo by MOD_ROCKET\n  0:11 ShutdownGame:\n",
    );
    let before = std::fs::read_to_string(&log).unwrap();
    let err = podium(&["frags", &log, "--html", &site]).err().to_string();
    assert!(err.contains("which is read as an input"), "{err}");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), before);
    // The site's directory must be one.
    let err = podium(&["frags", &log, "--html", &log]).err().to_string();
    assert!(err.contains("not a directory"), "{err}");
}

#[test]
fn regression_a_match_id_of_an_earlier_file_is_a_bad_match_naming_both_places() {
    // `podium rate a.csv a.csv` rated every game twice; a copy of a file is read as such.
    let d = Dir::new("repeated-ids");
    let a = d.file("a.csv", GAMES);
    let copy = d.file("copy.csv", GAMES);
    let run = podium(&["rate", &a, &copy, "--format", "csv"]);
    let err = run.err();
    assert!(
        err.starts_with("error: 2 bad matches found, nothing rated"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{copy}:2: match \"g1\" was read already from {a}:2 (a match id names one match across all the files)"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{copy}:4: match \"g2\" was read already from {a}:4"
        )),
        "{err}"
    );
    // With --skip-bad the later ones are skipped and listed: every game counts once.
    let b = d.file("b.jsonl", "{\"match\":\"g2\",\"results\":[{\"player\":\"ann\",\"rank\":1},{\"player\":\"cy\",\"rank\":2}]}\n{\"match\":\"g3\",\"results\":[{\"player\":\"ann\",\"rank\":1},{\"player\":\"cy\",\"rank\":2}]}\n");
    let run = podium(&["rate", &a, &b, "--skip-bad", "--format", "csv"]);
    let rows = csv_rows(run.ok());
    let games = |p: &str| rows.iter().find(|r| r["player"] == p).unwrap()["games"].clone();
    assert_eq!(games("ann"), "2");
    assert_eq!(games("cy"), "2");
    assert!(run.stderr.contains("skipped 1 bad match"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("{b}:1: match \"g2\" was read already from {a}:4")),
        "{}",
        run.stderr
    );
    // The evaluation commands read the same way.
    let err = podium(&["backtest", &a, &copy]).err().to_string();
    assert!(err.contains("nothing evaluated"), "{err}");
}

#[test]
fn regression_a_file_given_twice_is_refused_before_it_is_read() {
    // `podium rate a.csv a.csv` said each match of a.csv was read already from a.csv.
    let d = Dir::new("file-twice");
    let a = d.file("a.csv", GAMES);
    let b = d.file("b.csv", "match,player,rank\ng3,ann,1\ng3,cy,2\n");
    let dotted = format!("{}/./a.csv", d.0.display());
    for (args, message) in [
        (
            vec!["rate", &a, &b, &a],
            format!("error: {a} is given twice: give each file once\n"),
        ),
        (
            vec!["rate", &a, &dotted],
            format!(
                "error: {a} and {dotted} are the same file, given twice: give each file once\n"
            ),
        ),
        (
            vec!["rate", "-", "-"],
            "error: - (standard input) is given twice: give each file once\n".to_string(),
        ),
        (
            vec!["backtest", &b, &a, &a],
            format!("error: {a} is given twice: give each file once\n"),
        ),
    ] {
        let run = podium(&args);
        assert_eq!(run.err(), message, "{args:?}");
        assert!(run.stdout.is_empty(), "{args:?}");
    }
    #[cfg(unix)]
    {
        let link = d.path("link.csv");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        assert_eq!(
            podium(&["history", &link, &a]).err(),
            format!("error: {link} and {a} are the same file, given twice: give each file once\n")
        );
        // A hard link is the file too (it passed: its path is its own).
        let hard = d.path("hard.csv");
        std::fs::hard_link(&a, &hard).unwrap();
        let run = podium(&["rate", &a, &hard]);
        assert_eq!(
            run.err(),
            format!("error: {a} and {hard} are the same file, given twice: give each file once\n")
        );
        assert!(run.stdout.is_empty());
    }
}

#[test]
fn a_plain_file_that_stops_being_plain_is_read_on_by_the_general_reader() {
    // Quotes in the last thousand matches, blocks (1 MiB) after the first: the fast path
    // rates the matches before them, the general reader the rest, and the result is the
    // general reader's alone.
    let d = Dir::new("resume");
    let mut text = String::from("match,player,rank\n");
    let n = 80_000;
    for m in 0..n {
        let (a, b) = (m % 7, (m * 3 + 1) % 7);
        let b = if a == b { (b + 1) % 7 } else { b };
        if m < n - 1000 {
            text.push_str(&format!("m{m},p{a},1\nm{m},p{b},2\n"));
        } else {
            text.push_str(&format!("m{m},\"p{a}\",1\nm{m},p{b},2\n"));
        }
    }
    assert!(text.len() > 3 << 19, "{}", text.len());
    let f = d.file("g.csv", &text);
    let history = d.path("h.csv");
    let fast = podium_logged(&["rate", &f, "--format", "csv"], "podium=debug");
    let said = fast
        .stderr
        .lines()
        .find(|l| l.contains("matches read on the fast path, then from line"))
        .unwrap_or_else(|| panic!("{}", fast.stderr));
    assert!(
        said.ends_with("read the general way: a quote or a carriage return"),
        "{said}"
    );
    let handed: u64 = said
        .split(": ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    // Every match before the first quote but the last one (which the quoted row might
    // belong to) was rated on the fast path; the general reader read from that one on.
    assert_eq!(handed, n - 1001, "{said}");
    assert!(
        said.contains(&format!("then from line {}", 2 + 2 * (n - 1001))),
        "{said}"
    );
    let general = podium(&["rate", &f, "--format", "csv", "--history", &history]);
    assert_eq!(fast.ok(), general.ok());
    // A match id that comes back after the switch is still found.
    let again = format!("{text}m{},p1,1\nm{},p2,2\n", n - 2000, n - 2000);
    let f = d.file("again.csv", &again);
    let err = podium(&["rate", &f]).err().to_string();
    assert!(
        err.contains(&format!(
            ":{}: match \"m{}\" appears again after other matches: its rows on line {} and on line {} are apart",
            2 * n + 2,
            n - 2000,
            2 + 2 * (n - 2000),
            2 * n + 2,
        )),
        "{err}"
    );
}

#[test]
fn regression_a_column_named_twice_is_an_error_naming_file_line_and_column() {
    let d = Dir::new("header");
    let f = d.file("g.csv", "match,player,rank,rank\ng1,a,1,2\ng1,b,2,1\n");
    let err = podium(&["rate", &f]).err().to_string();
    assert!(
        err.contains(&format!(
            "{f}:1: header names the column `rank` twice (columns 3 and 4); each column may appear once"
        )),
        "{err}"
    );
    // Both rank and score: podium writes them so (one of them per row), but a row may
    // not give both.
    let f = d.file(
        "rs.csv",
        "match,player,rank,score\ng1,a,1,\ng1,b,,3\ng2,a,1,5\ng2,b,2,\n",
    );
    let err = podium(&["rate", &f]).err().to_string();
    assert!(
        err.contains(&format!(
            "{f}:4: field `score`: \"5\" is not valid, expected no score on a row that gives a rank"
        )),
        "{err}"
    );
}

#[test]
fn regression_is_a_directory_is_said_once() {
    let d = Dir::new("is-dir");
    let dir = d.0.display().to_string();
    for args in [
        vec!["rate", &dir],
        vec!["backtest", &dir],
        vec!["rate", "--initial", &dir, &dir],
    ] {
        let err = podium(&args).err().to_string();
        assert_eq!(err.matches("Is a directory").count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn regression_frags_settings_that_overflow_are_refused() {
    let err = podium(&["frags", "-", "--set", "k=1e308"])
        .err()
        .to_string();
    assert!(
        err.contains("parameter k: \"1e308\" is not valid, expected a finite number > 0 and ≤ 1e6"),
        "{err}"
    );
}

#[test]
fn regression_predict_of_thousands_of_entries_prints_no_square_table() {
    // 2,000 entries took 1.2 GB in the table and in JSON; the table now shows the
    // pairwise orders only for small matches, JSON is written as it is serialised.
    let d = Dir::new("predict-big");
    let games = d.file("g.csv", GAMES);
    let players: Vec<String> = (0..300).map(|i| format!("p{i}")).collect();
    let players = players.join(",");
    let table = podium(&["predict", &games, "--players", &players]);
    let out = table.ok();
    assert!(!out.contains("ahead of 1 %"), "no pairwise columns");
    assert!(out.contains(
        "the chance of each pairwise order of the 300 entries: --format csv or --format json"
    ));
    let json = podium(&["predict", &games, "--players", &players, "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(json.ok()).unwrap();
    assert_eq!(doc["entries"].as_array().unwrap().len(), 300);
    assert_eq!(
        doc["entries"][0]["ahead_of"].as_object().unwrap().len(),
        299
    );
    let many: Vec<String> = (0..5001).map(|i| format!("p{i}")).collect();
    let err = podium(&["predict", &games, "--players", &many.join(",")])
        .err()
        .to_string();
    assert!(
        err.contains("--players: 5001 entries") && err.contains("at most 5000 are allowed"),
        "{err}"
    );
}

#[test]
fn regression_save_and_history_naming_one_file_are_refused_before_rating() {
    // `--save same.out --history same.out` wrote the history over the league.
    let d = Dir::new("two-outputs");
    let games = d.file("gn.csv", GAMES);
    let same = d.path("same.out");
    let dotted = format!("{}/./same.out", d.0.display());
    for exists in [false, true] {
        if exists {
            std::fs::write(&same, "old").unwrap();
        }
        let run = podium(&["rate", &games, "--save", &same, "--history", &same]);
        assert_eq!(
            run.err(),
            format!("error: --history and --save both name {same}: give two files\n")
        );
        assert!(run.stdout.is_empty());
        let run = podium(&["rate", &games, "--history", &dotted, "--save", &same]);
        assert_eq!(
            run.err(),
            format!(
                "error: --history {dotted} and --save {same} name the same file: give two files\n"
            )
        );
        assert_eq!(std::fs::read_to_string(&same).is_ok(), exists);
    }
    assert_eq!(std::fs::read_to_string(&same).unwrap(), "old");
    // The league resumed is read as an input: the history does not replace it, the saved
    // league may.
    let league = d.path("league.json");
    podium(&["rate", &games, "--save", &league]).ok();
    let saved = std::fs::read_to_string(&league).unwrap();
    let more = d.file("more.csv", "match,player,rank\ng3,ann,1\ng3,cy,2\n");
    let run = podium(&["rate", &more, "--resume", &league, "--history", &league]);
    assert_eq!(
        run.err(),
        format!("error: {league}: cannot write over {league}, which is read as an input\n")
    );
    assert_eq!(std::fs::read_to_string(&league).unwrap(), saved);
    // Two files: both written, the league resumable.
    let history = d.path("history.csv");
    let run = podium(&[
        "rate",
        &more,
        "--resume",
        &league,
        "--save",
        &league,
        "--history",
        &history,
    ]);
    run.ok();
    assert_eq!(
        csv_rows(&std::fs::read_to_string(&history).unwrap()).len(),
        2
    );
    let last = d.file("last.csv", "match,player,rank\ng4,bo,1\ng4,cy,2\n");
    let rows = csv_rows(podium(&["rate", &last, "--resume", &league, "--format", "csv"]).ok());
    let games_of = |p: &str| rows.iter().find(|r| r["player"] == p).unwrap()["games"].clone();
    assert_eq!(
        [games_of("ann"), games_of("bo"), games_of("cy")],
        ["2", "3", "3"]
    );
}
