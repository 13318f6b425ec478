//! What someone trying podium for the first time meets: the leaderboard's positions,
//! files where nothing can be rated, files not laid out as podium reads them, and the
//! list of systems.

use crate::util::{csv_rows, podium, Dir};

/// Six players: A, B and C play six matches each, D, E and F play one each, so that
/// `--min-games 5` hides players ranked between the ones it shows.
const SIX: &str = "match,player,rank\n\
g1,A,1\ng1,D,2\n\
g2,E,1\ng2,B,2\n\
g3,A,1\ng3,C,2\n\
g4,F,1\ng4,C,2\n\
g5,B,1\ng5,C,2\n\
g6,A,1\ng6,B,2\n\
g7,C,1\ng7,B,2\n\
g8,A,1\ng8,C,2\n\
g9,B,1\ng9,A,2\n\
g10,C,1\ng10,A,2\n\
g11,B,1\ng11,C,2\n";

#[test]
fn min_games_positions_have_no_gaps() {
    let d = Dir::new("newcomer-min-games");
    let games = d.file("g.csv", SIX);
    // By rating alone: the one-game players stand between the others.
    let all = csv_rows(
        podium(&[
            "rate", &games, "--system", "elo", "--format", "csv", "--order", "rating",
        ])
        .ok(),
    );
    let shown = csv_rows(
        podium(&[
            "rate",
            &games,
            "--system",
            "elo",
            "--format",
            "csv",
            "--min-games",
            "5",
        ])
        .ok(),
    );
    // The whole board interleaves the one-game players with the others.
    let order: Vec<&str> = all.iter().map(|r| r["player"].as_str()).collect();
    let kept: Vec<&str> = order
        .iter()
        .copied()
        .filter(|p| ["A", "B", "C"].contains(p))
        .collect();
    let at = |p: &str| order.iter().position(|q| *q == p).unwrap();
    assert!(
        at(kept[2]) - at(kept[0]) > 2,
        "the test needs a hidden player between shown ones: {order:?}"
    );
    let players: Vec<&str> = shown.iter().map(|r| r["player"].as_str()).collect();
    assert_eq!(players, kept);
    let positions: Vec<&str> = shown.iter().map(|r| r["position"].as_str()).collect();
    assert_eq!(positions, ["1", "2", "3"]);
    // The table's `#` column too.
    let table = podium(&["rate", &games, "--system", "elo", "--min-games", "5"]);
    let numbers: Vec<&str> = table
        .ok()
        .lines()
        .filter_map(|l| l.strip_prefix("│ "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.parse::<u32>().is_ok())
        .collect();
    assert_eq!(numbers, ["1", "2", "3"]);
}

#[test]
fn min_games_says_how_many_players_it_hides() {
    let d = Dir::new("newcomer-min-games-hidden");
    let games = d.file("g.csv", SIX);
    let rate = |args: &[&str]| {
        let mut all = vec!["rate", games.as_str(), "--system", "elo"];
        all.extend(args);
        podium(&all)
    };
    // Some hidden: the table's last line says how many; CSV holds the rows only.
    let table = rate(&["--min-games", "5"]);
    assert_eq!(
        table.ok().lines().last(),
        Some("3 players with fewer than 5 games hidden (--min-games 5)")
    );
    assert_eq!(table.stderr, "");
    let csv = rate(&["--min-games", "5", "--format", "csv"]);
    assert_eq!(csv_rows(csv.ok()).len(), 3);
    assert_eq!(csv.stderr, "");
    // Every player hidden (C plays most, 7 games): the table says so, and so does standard error beside an empty
    // CSV or JSON board.
    let table = rate(&["--min-games", "8"]);
    assert_eq!(
        table.ok().lines().last(),
        Some("no player has 8 games or more (6 players hidden; lower --min-games)")
    );
    assert!(
        !table.ok().lines().any(|l| l.starts_with("│ 1 ")),
        "{}",
        table.stdout
    );
    for format in ["csv", "json"] {
        let run = rate(&["--min-games", "8", "--format", format]);
        assert_eq!(
            run.stderr, "no player has 8 games or more (6 players hidden; lower --min-games)\n",
            "{format}"
        );
        let expected = if format == "csv" {
            "position,player,rating,games,avg_size,win_pct,expected_win_pct,net_pct,last_played,provisional\n"
        } else {
            "[]\n"
        };
        assert_eq!(run.ok(), expected, "{format}");
    }
    // None hidden: no note.
    let table = rate(&["--min-games", "1"]);
    assert!(!table.ok().contains("hidden"), "{}", table.stdout);
}

#[test]
fn skip_bad_with_every_match_bad_is_an_error() {
    let d = Dir::new("newcomer-all-bad");
    let games = d.file("g.csv", "match,player,rank\nm1,A,1\nm2,B,1\n");
    let out = podium(&["rate", &games, "--skip-bad"]);
    let err = out.err();
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        err.starts_with("error: no match could be rated: all 2 matches read are bad"),
        "{err}"
    );
    assert!(
        err.contains(
            "g.csv:2: match \"m1\", field `match`: a match needs at least 2 entries, found 1"
        ),
        "{err}"
    );
    assert!(err.contains("g.csv:3: match \"m2\""), "{err}");
    // With --history, the history file is not written either.
    let hist = d.path("h.csv");
    let out = podium(&["rate", &games, "--skip-bad", "--history", &hist]);
    assert!(
        out.err().contains("no match could be rated"),
        "{}",
        out.err()
    );
    assert!(!std::path::Path::new(&hist).exists());
    // One good match is enough: the rest is rated, the bad one listed.
    let games = d.file("h.csv", "match,player,rank\nm1,A,1\nm2,B,1\nm2,C,2\n");
    let out = podium(&["rate", &games, "--skip-bad", "--format", "csv"]);
    assert_eq!(csv_rows(out.ok()).len(), 2);
    assert!(
        out.stderr.contains("skipped 1 bad match:"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_semicolon_csv_is_told_it_is_not_comma_separated() {
    let d = Dir::new("newcomer-semicolon");
    let games = d.file("g.csv", "match;player;rank\nm1;A;1\nm1;B;2\n");
    let out = podium(&["rate", &games]);
    assert!(
        out.err().contains(
            "g.csv:1: header has no `match` column (found: match;player;rank); expected match, player and rank or score (podium reads comma-separated files, and this one looks separated by `;`: write it with commas)"
        ),
        "{}",
        out.err()
    );
    let games = d.file("t.csv", "match\tplayer\trank\nm1\tA\t1\nm1\tB\t2\n");
    let out = podium(&["rate", &games]);
    assert!(
        out.err().contains("this one looks separated by tabs"),
        "{}",
        out.err()
    );
    // A comma-separated header that lacks a column gets no such hint.
    let games = d.file("c.csv", "game,player,rank\nm1,A,1\nm1,B,2\n");
    let out = podium(&["rate", &games]);
    assert!(
        out.err().contains("header has no `match` column"),
        "{}",
        out.err()
    );
    assert!(!out.err().contains("looks separated"), "{}", out.err());
}

#[test]
fn systems_lists_the_default_first_and_shows_one_system() {
    let csv = csv_rows(podium(&["systems", "--format", "csv"]).ok());
    let mut names: Vec<String> = csv.iter().map(|r| r["system"].clone()).collect();
    names.dedup();
    // Every registered system, each once.
    assert_eq!(names.len(), podium::systems().len());
    let out = podium(&["systems"]);
    let lines: Vec<&str> = out.ok().lines().collect();
    // A header, one line per system, a blank line and how to see one system.
    assert_eq!(lines.len(), 1 + names.len() + 2, "{}", out.ok());
    assert!(lines[0].starts_with("system "), "{}", lines[0]);
    assert!(
        lines[1].starts_with(
            "kalman-mmr (default)      Elo-MMR's performances followed by a bank of Kalman filters"
        ),
        "{}",
        lines[1]
    );
    assert_eq!(out.ok().matches("(default)").count(), 1);
    for name in &names {
        let with = format!("{name} ");
        assert_eq!(
            lines[1..=names.len()]
                .iter()
                .filter(|l| l.starts_with(&with))
                .count(),
            1,
            "{name}"
        );
    }
    assert_eq!(lines[names.len() + 1], "");
    assert!(lines[names.len() + 2].starts_with("`podium systems NAME` shows"));
    // Aligned: every line's description and source start where the header's do.
    let column = |line: &str, after: usize| {
        let chars: Vec<char> = line.chars().collect();
        (after..chars.len())
            .find(|&i| chars[i] != ' ' && chars[i - 1] == ' ' && chars[i - 2] == ' ')
            .unwrap()
    };
    let description = column(lines[0], 2);
    let source = column(lines[0], description + 1);
    for line in &lines[1..=names.len()] {
        assert_eq!(column(line, 2), description, "{line}");
        let chars: Vec<char> = line.chars().collect();
        assert_eq!(chars[source - 1], ' ', "{line}");
        assert_ne!(chars[source], ' ', "{line}");
    }
    let sme = lines.iter().find(|l| l.starts_with("sme ")).unwrap();
    assert!(
        sme.ends_with("  Tom Kerrigan, Multiplayer Elo (Simple Multiplayer Elo), tckerrigan.com")
    );

    // One system, by name in any case: its parameters, defaults and meaning, aligned.
    let one = podium(&["systems", "sme"]);
    assert_eq!(
        one.ok(),
        "sme  Simple Multiplayer Elo: a virtual game against the entry just above and just below\n\
         \x20   source: Tom Kerrigan, Multiplayer Elo (Simple Multiplayer Elo), tckerrigan.com\n\
         \x20   factors (car, seat, faction): rated beside the players (--factor)\n\
         \x20   parameters, set with --set NAME=VALUE (default shown):\n\
         \x20   --set k=32          step size K of each virtual game\n\
         \x20   --set scale=400     rating difference D of the logistic curve\n\
         \x20   --set initial=1500  rating of a new player\n"
    );
    assert_eq!(podium(&["systems", "SME"]).ok(), one.ok());
    assert!(podium(&["systems", "kalman-mmr"])
        .ok()
        .starts_with("kalman-mmr (default)  "));
    let err = podium(&["systems", "smee"]);
    assert!(
        err.err()
            .starts_with("error: unknown system \"smee\"; known systems: elo, sme,"),
        "{}",
        err.err()
    );
    // The machine-readable formats: the one system alone.
    let rows = csv_rows(podium(&["systems", "sme", "--format", "csv"]).ok());
    let params: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["system"].as_str(),
                r["param"].as_str(),
                r["default"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        params,
        [
            ("sme", "k", "32"),
            ("sme", "scale", "400"),
            ("sme", "initial", "1500")
        ]
    );
    let json: serde_json::Value =
        serde_json::from_str(podium(&["systems", "kalman-mmr", "--format", "json"]).ok()).unwrap();
    assert_eq!(json["name"], "kalman-mmr");
    assert_eq!(json["default"], true);
    assert_eq!(json["params"][0]["name"], "rating");
    let all: serde_json::Value =
        serde_json::from_str(podium(&["systems", "--format", "json"]).ok()).unwrap();
    let listed: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, names);
}

#[test]
fn rows_of_a_match_apart_are_named_as_such() {
    let d = Dir::new("newcomer-apart");
    // Rows in the order they were written down, not grouped by match.
    let games = d.file(
        "g.csv",
        "match,player,rank\nm1,A,1\nm2,C,1\nm1,B,2\nm2,D,2\n",
    );
    let err = podium(&["rate", &games]).err().to_string();
    for (line, first, id) in [(4, 2, "m1"), (5, 3, "m2")] {
        assert!(
            err.contains(&format!(
                "g.csv:{line}: match \"{id}\" appears again after other matches: its rows on line {first} and on line {line} are apart, and a match's rows must be together (sort the file by match)"
            )),
            "{err}"
        );
    }
    // Whole matches apart, each of two rows: the plain reader hands the first ones on
    // before the general reader finds the one that comes back.
    let games = d.file(
        "h.csv",
        "match,player,rank\nm1,A,1\nm1,B,2\nm2,C,1\nm2,D,2\nm3,A,1\nm3,C,2\nm1,D,1\nm1,C,2\n",
    );
    let err = podium(&["rate", &games]).err().to_string();
    assert!(
        err.contains("h.csv:8: match \"m1\" appears again after other matches: its rows on line 2 and on line 8 are apart"),
        "{err}"
    );
    // JSON Lines: one match a line, so it is the id that is used twice.
    let games = d.file(
        "g.jsonl",
        "{\"match\":\"m1\",\"results\":[{\"player\":\"A\",\"rank\":1},{\"player\":\"B\",\"rank\":2}]}\n\
         {\"match\":\"m2\",\"results\":[{\"player\":\"A\",\"rank\":1},{\"player\":\"B\",\"rank\":2}]}\n\
         {\"match\":\"m1\",\"results\":[{\"player\":\"A\",\"rank\":1},{\"player\":\"B\",\"rank\":2}]}\n",
    );
    let err = podium(&["rate", &games]).err().to_string();
    assert!(
        err.contains("g.jsonl:3: field `match`: \"m1\" is not valid, expected an id of its own: the match on line 1 has this id already, and a match id names one match"),
        "{err}"
    );
}
