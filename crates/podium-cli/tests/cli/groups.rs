//! `podium teams` and `podium versus` on the example nights.

use crate::util::{podium, repo_root, Dir};

fn nights() -> String {
    repo_root()
        .join("examples/game-night.csv")
        .display()
        .to_string()
}

#[test]
fn teams_honours_the_options_and_names_bad_players() {
    let f = nights();
    let r = podium(&[
        "teams",
        &f,
        "--players",
        "Sam,Tom,Kate,Priya,Maya,Omar",
        "--teams",
        "2",
        "--fix",
        "Sam=2",
        "--together",
        "Tom,Kate",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    assert_eq!(v["exact"], true);
    let groups = v["splits"][0]["groups"].as_array().unwrap();
    assert!(groups[1]["players"]
        .as_array()
        .unwrap()
        .contains(&"Sam".into()));
    let with_tom = groups
        .iter()
        .find(|g| g["players"].as_array().unwrap().contains(&"Tom".into()))
        .unwrap();
    assert!(with_tom["players"]
        .as_array()
        .unwrap()
        .contains(&"Kate".into()));
    let e = podium(&["teams", &f, "--players", "Sam,Zed", "--teams", "2"]);
    assert!(e.err().contains("unknown player \"Zed\""), "{}", e.stderr);
    assert!(e.err().contains("add --new Zed"), "{}", e.stderr);
    // A name that differs from a player's only in case is a misspelling, not a newcomer;
    // --new for a player of the history, or for one not playing, is a mistake too.
    for (args, said) in [
        (
            &["--players", "sam,Tom", "--teams", "2"][..],
            "unknown player \"sam\": not in the history; did you mean \"Sam\"?",
        ),
        (
            &["--players", "Sam,Tom", "--teams", "2", "--new", "Sam"][..],
            "--new Sam: \"Sam\" is in the history (",
        ),
        (
            &["--players", "Sam,Tom", "--teams", "2", "--new", "Zed"][..],
            "--new Zed: \"Zed\" is not among --players",
        ),
    ] {
        let mut all = vec!["teams", f.as_str()];
        all.extend(args);
        let e = podium(&all);
        assert!(e.err().contains(said), "{}", e.stderr);
    }
    // Named as a newcomer, Zed is balanced at a newcomer's rating.
    let r = podium(&[
        "teams",
        &f,
        "--players",
        "Sam,Tom,Kate,Zed",
        "--teams",
        "2",
        "--new",
        "Zed",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    let placed: Vec<&str> = v["splits"][0]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| {
            g["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
        })
        .collect();
    assert_eq!(placed.len(), 4);
    assert!(placed.contains(&"Zed"), "{placed:?}");
    let e = podium(&["teams", &f, "--players", "Sam,Tom,Sam", "--teams", "2"]);
    assert!(e.err().contains("more than once"), "{}", e.stderr);
    let e = podium(&["teams", &f, "--players", "Sam,Tom,Kate", "--sizes", "1,1"]);
    assert!(e.err().contains("2 seats for 3 players"), "{}", e.stderr);
}

#[test]
fn versus_counts_the_meetings_of_the_example_nights() {
    let f = nights();
    let r = podium(&["versus", &f, "Kate", "Sam", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    assert_eq!(v["versus"]["meetings"], 11);
    assert_eq!(v["versus"]["ahead"], 4);
    assert_eq!(v["versus"]["behind"], 6);
    assert_eq!(v["versus"]["ties"], 1);
    let r = podium(&["versus", &f, "Kate"]);
    assert!(r.ok().contains("nemesis    Lena"), "{}", r.stdout);
    let e = podium(&["versus", &f, "Kate", "Nobody"]);
    assert!(
        e.err().contains("unknown player \"Nobody\""),
        "{}",
        e.stderr
    );
}

/// The example nights cut in two files at a match boundary: `(dir, first, second)`.
fn nights_in_two() -> (Dir, String, String) {
    let text = std::fs::read_to_string(nights()).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let rows: Vec<&str> = lines.collect();
    // The first row of the match that starts at or after the middle row.
    let id = |row: &str| row.split(',').nth(1).unwrap().to_string();
    let cut = (rows.len() / 2..rows.len())
        .find(|&i| id(rows[i]) != id(rows[i - 1]))
        .unwrap();
    let part = |rows: &[&str]| format!("{header}\n{}\n", rows.join("\n"));
    let d = Dir::new("nights-in-two");
    let a = d.file("a.csv", &part(&rows[..cut]));
    let b = d.file("b.csv", &part(&rows[cut..]));
    (d, a, b)
}

#[test]
fn versus_of_one_file_prints_as_it_did() {
    let f = nights();
    let want = "Kate vs Sam (kalman-mmr)\n  meetings: 11 (4 ahead, 6 behind, 1 tied)\n  Kate's share: 40.9% actual, 42.8% expected by the ratings at the time (-0.20 meetings beyond expectation)\n  today: 49.8% to finish ahead of Sam\n";
    assert_eq!(podium(&["versus", &f, "Kate", "Sam"]).ok(), want);
    assert_eq!(
        podium(&["versus", &f, "--player", "Kate", "--opponent", "Sam"]).ok(),
        want
    );
    assert_eq!(
        podium(&["versus", &f, "-p", "Kate", "-o", "Sam"]).ok(),
        want
    );
    let rivals = podium(&["versus", &f, "Kate"]);
    assert_eq!(
        podium(&["versus", &f, "--player", "Kate"]).ok(),
        rivals.ok()
    );
    assert!(
        rivals.ok().starts_with(
            "Kate's rivals (kalman-mmr, opponents met at least 3 times)\n  nemesis    Lena: 12 meetings, 3-9-0 (ahead-behind-tied), share 25.0% vs 50.7% expected, -3.08\n"
        ),
        "{}",
        rivals.stdout
    );
}

/// Several files are one history, read as `podium rate` and `podium explain` read them:
/// the nights cut in two give what the whole file gives, and a bad match is listed with
/// the same words.
#[test]
fn versus_reads_several_files_as_rate_does() {
    let f = nights();
    let (_d, a, b) = nights_in_two();
    for args in [vec!["Kate", "Sam"], vec!["Kate"]] {
        let mut whole = vec!["versus", f.as_str()];
        whole.extend(&args);
        let mut named = vec!["versus", a.as_str(), b.as_str(), "--player", args[0]];
        if let Some(o) = args.get(1) {
            named.extend(["--opponent", o]);
        }
        for format in ["table", "json"] {
            let mut w = whole.clone();
            w.extend(["--format", format]);
            let mut n = named.clone();
            n.extend(["--format", format]);
            assert_eq!(podium(&n).ok(), podium(&w).ok(), "{n:?}");
        }
    }
    // A bad match in the second file: the words of `podium rate`, with and without
    // --skip-bad.
    let d = Dir::new("versus-bad");
    let bad = d.file("bad.csv", "match,player,score\nlate,Kate,3\nlate,Sam,2,x\n");
    let rated = podium(&["rate", &f, &bad]);
    let versus = podium(&["versus", &f, &bad, "--player", "Kate", "--opponent", "Sam"]);
    assert_eq!(versus.err(), rated.err());
    assert_eq!(
        versus.stderr,
        format!("error: 1 bad match found, nothing rated (use --skip-bad to rate the rest):\n  {bad}:3: field `column 4`: \"x\" is not valid, expected a row of 3 fields as the header has, found 4 (a field that holds a comma is quoted: \"Smith, Jr\")\n")
    );
    let skipped = podium(&[
        "versus",
        &f,
        &bad,
        "--player",
        "Kate",
        "--opponent",
        "Sam",
        "--skip-bad",
    ]);
    assert_eq!(skipped.ok(), podium(&["versus", &f, "Kate", "Sam"]).ok());
    assert_eq!(
        skipped.stderr,
        podium(&["rate", &f, &bad, "--skip-bad"]).stderr
    );
    // A match id the first file used: as `podium rate` says it.
    let again = d.file(
        "again.csv",
        "time,match,player,rank\n2024-12-31,2024-09-06 Azul,Kate,1\n2024-12-31,2024-09-06 Azul,Sam,2\n",
    );
    assert_eq!(
        podium(&["versus", &f, &again, "-p", "Kate"]).err(),
        podium(&["rate", &f, &again]).err()
    );
}

#[test]
fn versus_says_how_to_name_the_players_of_several_files() {
    let (_d, a, b) = nights_in_two();
    assert_eq!(
        podium(&["versus", &a, &b, "Kate"]).err(),
        format!("error: unknown player {b:?}: not in the history ({b} is a file: with several files, name the players with --player and --opponent)\n")
    );
    assert_eq!(
        podium(&["versus", &a]).err(),
        format!("error: name the player: podium versus {a} PLAYER [OPPONENT], or --player PLAYER [--opponent OPPONENT]\n")
    );
    assert_eq!(
        podium(&["versus", &a, &b, "Kate", "Sam"]).err(),
        "error: 4 files: name the player with --player PLAYER [--opponent OPPONENT] (FILE PLAYER [OPPONENT] reads one file)\n"
    );
    assert_eq!(
        podium(&["versus", &a, &b, "-p", "Kate", "-o", "Kate"]).err(),
        "error: a player has no record against themselves: name two different players\n"
    );
}

#[test]
fn explain_tells_a_players_nemesis_favourite_and_most_met_opponents_as_versus_counts_them() {
    let f = nights();
    let out = podium(&["explain", &f, "--player", "Kate"]);
    let text = out.ok();
    let r = podium(&["versus", &f, "Kate", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    let line = |who: &serde_json::Value| {
        format!(
            "{}, {}-{}-{} in {} meetings: a share of {:.1}% where the ratings expected {:.1}%.",
            who["opponent"].as_str().unwrap(),
            who["ahead"],
            who["behind"],
            who["ties"],
            who["meetings"],
            100.0 * who["actual_share"].as_f64().unwrap(),
            100.0 * who["expected_share"].as_f64().unwrap()
        )
    };
    let nemesis = format!("  Nemesis: {}", line(&v["rivals"]["nemesis"]));
    let favourite = format!("  Favourite opponent: {}", line(&v["rivals"]["favourite"]));
    // Right after the story's summary, before the matches.
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].starts_with("First place"), "{text}");
    assert_eq!(
        lines[2],
        "Head-to-head (a meeting: a match with both on different sides; ahead-behind-tied):"
    );
    assert_eq!(lines[3], nemesis);
    assert_eq!(
        lines[3],
        "  Nemesis: Lena, 3-9-0 in 12 meetings: a share of 25.0% where the ratings expected 50.7%."
    );
    assert_eq!(lines[4], favourite);
    assert_eq!(
        lines[5],
        format!("  Most met: Priya 17, Lena 12, Omar 12, Tom 12, Sam 11 (podium versus {f} Kate OPPONENT for a pair).")
    );
    assert_eq!(lines[6], "");
    assert!(lines[7].starts_with("Match "), "{text}");
}

#[test]
fn explain_of_a_player_with_few_meetings_says_so_in_one_line() {
    let dir = Dir::new("explain-few");
    let f = dir.file(
        "two.csv",
        "match,player,rank\ng1,ann,1\ng1,bo,2\ng2,bo,1\ng2,ann,2\n",
    );
    let out = podium(&["explain", &f, "--player", "ann"]);
    let lines: Vec<&str> = out.ok().lines().collect();
    assert_eq!(lines[2], "Head-to-head: no opponent met 3 times or more.");
    assert_eq!(lines[3], "");
}

#[test]
fn versus_hints_at_a_player_name_as_explain_does() {
    let f = nights();
    assert_eq!(
        podium(&["versus", &f, "kate"]).err(),
        "error: unknown player \"kate\": not in the history; did you mean \"Kate\"?\n"
    );
    assert_eq!(
        podium(&["versus", &f, "-p", "Kate", "-o", "om"]).err(),
        "error: unknown player \"om\": not in the history; did you mean \"Tom\" or \"Omar\"?\n"
    );
    assert_eq!(
        podium(&["versus", &f, "Zed"]).err(),
        "error: unknown player \"Zed\": not in the history (10 players are rated)\n"
    );
    // The same hints as explain's.
    assert_eq!(
        podium(&["explain", &f, "--player", "kate"]).err(),
        "error: player \"kate\" plays in none of the matches; did you mean \"Kate\"?\n"
    );
    assert_eq!(
        podium(&["explain", &f, "--player", "Zed"]).err(),
        "error: player \"Zed\" plays in none of the matches (10 players are rated)\n"
    );
}

#[test]
fn explain_of_several_files_shows_the_versus_command_for_them() {
    let (_d, a, b) = nights_in_two();
    let out = podium(&["explain", &a, &b, "--player", "Kate"]);
    let line = out
        .ok()
        .lines()
        .find(|l| l.starts_with("  Most met: "))
        .unwrap()
        .to_string();
    let hint = format!("(podium versus {a} {b} --player Kate --opponent OPPONENT for a pair).");
    assert!(line.ends_with(&hint), "{line}");
    // The command works as shown, and counts the meetings the line lists.
    let pair = podium(&[
        "versus",
        &a,
        &b,
        "--player",
        "Kate",
        "--opponent",
        "Priya",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(pair.ok()).unwrap();
    assert_eq!(v["versus"]["meetings"], 17);
    assert!(line.starts_with("  Most met: Priya 17, "), "{line}");
}

#[test]
fn one_meeting_and_one_match_are_counted_in_the_singular() {
    let d = Dir::new("versus-one");
    let one = d.file("one.csv", "match,player,rank\ng1,ann,1\ng1,bo,2\n");
    assert_eq!(
        podium(&[
            "versus",
            &one,
            "ann",
            "--min-meetings",
            "1",
            "--system",
            "sme"
        ])
        .ok(),
        "ann's rivals (sme, opponents met at least 1 time)
  nemesis    none (no opponent met 1 time or more finished ahead more often than expected)
  favourite  bo: 1 meeting, 1-0-0 (ahead-behind-tied), share 100.0% vs 50.0% expected, +0.50
  most met:
    bo: 1 meeting, 1-0-0 (ahead-behind-tied), share 100.0% vs 50.0% expected, +0.50
"
    );
    let none = podium(&["versus", &one, "ann", "--min-meetings", "2"]);
    assert!(
        none.ok().ends_with("  no opponent met 2 times or more\n"),
        "{}",
        none.stdout
    );
    let out = podium(&["explain", &one, "--player", "ann", "--system", "kalman-mmr"]);
    let text = out.ok();
    assert!(text.starts_with("ann played 1 match: "), "{text}");
    assert!(text.contains("\nLearned from the 1 match:\n"), "{text}");
}
