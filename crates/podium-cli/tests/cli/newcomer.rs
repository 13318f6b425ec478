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
    let all = csv_rows(podium(&["rate", &games, "--system", "elo", "--format", "csv"]).ok());
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
