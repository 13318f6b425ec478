//! `podium history`: a smoothed skill curve per player, by date when every match has a
//! time, by match number otherwise, and it says which.

use crate::util::{podium, Dir};

#[test]
fn a_history_that_begins_without_times_is_smoothed_by_match_number_and_says_so() {
    let d = Dir::new("history_mixed");
    let undated = d.file("undated.csv", "match,player,rank\nu1,ann,1\nu1,bo,2\n");
    let dated = d.file(
        "dated.csv",
        "match,player,rank,time\nd1,bo,1,2024-05-01\nd1,ann,2,2024-05-01\n",
    );
    let run = podium(&["history", &undated, &dated, "--format", "csv"]);
    let out = run.ok().to_string();
    assert!(
        run.stderr.contains(
            "note: 1 of the 2 matches have no time, so the history is smoothed by match number"
        ),
        "{}",
        run.stderr
    );
    // Times are match numbers then: ann's curve has a point at match 1 and at match 2.
    let ann: Vec<&str> = out.lines().filter(|l| l.starts_with("ann,")).collect();
    assert_eq!(ann.len(), 2, "{out}");
    assert!(
        ann[0].starts_with("ann,1,") && ann[1].starts_with("ann,2,"),
        "{out}"
    );
    // Every match dated: by date, and no note.
    let run = podium(&["history", &dated, "--format", "csv"]);
    assert!(run.ok().contains("ann,2024-05-01,"), "{}", run.stdout);
    assert!(!run.stderr.contains("note:"), "{}", run.stderr);
}

#[test]
fn regression_history_refuses_factors_it_cannot_rate_and_an_empty_player_list() {
    let games = crate::util::repo_root()
        .join("examples")
        .join("game-night.csv")
        .to_string_lossy()
        .into_owned();
    let run = podium(&["history", &games, "--factor", "seat"]);
    let err = run.err();
    assert!(
        err.contains("--factor seat: the ttt smoother of podium history does not rate factors"),
        "{err}"
    );
    assert!(
        err.contains("systems that do (podium rate, backtest): "),
        "{err}"
    );
    for empty in ["", " , "] {
        let run = podium(&["history", &games, "--players", empty]);
        assert!(
            run.err()
                .contains("expected at least one player name (A,B,...)"),
            "{empty:?}: {}",
            run.stderr
        );
    }
    let run = podium(&["history", &games, "--players", "Nina", "--format", "csv"]);
    assert!(
        run.ok().lines().skip(1).all(|l| l.starts_with("Nina,")),
        "{}",
        run.stdout
    );
}
