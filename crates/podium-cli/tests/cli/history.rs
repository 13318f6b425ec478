//! `podium history`: a smoothed skill curve per player, by date when every match has a
//! time, by match number otherwise, and it says which.

use crate::util::{podium, svg_texts, Dir};

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
            "note: 1 of the 2 matches has no time, so the history is smoothed by match number"
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

#[test]
fn the_plot_labels_dates_by_what_the_span_needs() {
    let d = Dir::new("history_plot_labels");
    let root = crate::util::repo_root();
    // Game night, September 2024 to March 2025: by month.
    let games = root.join("examples").join("game-night.csv");
    let svg = d.path("gn.svg");
    podium(&["history", games.to_str().unwrap(), "--plot", &svg]).ok();
    let texts = svg_texts(&std::fs::read_to_string(&svg).unwrap());
    let date = texts
        .iter()
        .position(|t| t == "date")
        .expect("the x axis says date");
    // The y ticks, then the x ticks, then the legend.
    assert_eq!(
        texts[date + 1..date + 6],
        ["0.5", "1.0", "1.5", "2.0", "2.5"],
        "{texts:?}"
    );
    assert_eq!(
        texts[date + 6..date + 11],
        ["Oct 2024", "Nov 2024", "Dec 2024", "Jan 2025", "Feb 2025"],
        "{texts:?}"
    );
    assert_eq!(texts[date + 11], "Maya", "{texts:?}");
    // The example F1 season, 2030-03-03 to 2030-11-24.
    let season = root.join("examples").join("f1-season");
    let csv = podium(&["import", "f1", season.to_str().unwrap()]);
    let f1 = d.file("f1.csv", csv.ok());
    let svg = d.path("f1.svg");
    podium(&["history", &f1, "--plot", &svg]).ok();
    let texts = svg_texts(&std::fs::read_to_string(&svg).unwrap());
    let months: Vec<&str> = texts
        .iter()
        .map(String::as_str)
        .filter(|t| t.ends_with(" 2030"))
        .collect();
    assert_eq!(
        months,
        [
            "Apr 2030", "May 2030", "Jun 2030", "Jul 2030", "Aug 2030", "Sep 2030", "Oct 2030",
            "Nov 2030"
        ]
    );
    assert!(!texts.iter().any(|t| t.starts_with("-0")), "{texts:?}");
}

#[test]
fn history_checks_players_and_the_plot_before_smoothing() {
    let d = Dir::new("history_early");
    let games = crate::util::repo_root()
        .join("examples")
        .join("game-night.csv")
        .to_string_lossy()
        .into_owned();
    let run = podium(&["history", &games, "--players", "Maya,nobody"]);
    assert_eq!(
        run.err().trim_end(),
        "error: --players: \"nobody\" plays no match of the history (10 players play)"
    );
    assert!(
        run.stdout.is_empty() && !run.stderr.contains("smoothed"),
        "{}",
        run.stderr
    );
    let run = podium(&["history", &games, "--players", "maya"]);
    assert_eq!(
        run.err().trim_end(),
        "error: --players: \"maya\" plays no match of the history; did you mean \"Maya\"?"
    );
    // A plot that cannot be written: before the table and the smoothing.
    let missing = d.path("no-such-dir/x.svg");
    let run = podium(&["history", &games, "--plot", &missing]);
    assert!(
        run.err().starts_with(&format!("error: --plot {missing}: ")),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.is_empty() && !run.stderr.contains("smoothed"),
        "{}",
        run.stderr
    );
    // Nobody with 10 matches: why there is no curve, and what to pass.
    let small = d.file(
        "small.csv",
        "match,player,rank\nm1,ann,1\nm1,bo,2\nm2,bo,1\nm2,cy,2\n",
    );
    let svg = d.path("small.svg");
    let run = podium(&["history", &small, "--plot", &svg]);
    assert_eq!(
        run.err().trim_end(),
        "error: --plot: no curve to draw: without --players the plot shows the players of 10 \
         matches or more (the --top 8 highest), and the most any player has is 2 (bo); name \
         the players to draw with --players A,B"
    );
    assert!(
        run.stdout.is_empty() && !run.stderr.contains("smoothed"),
        "{}",
        run.stderr
    );
    let run = podium(&["history", &small, "--plot", &svg, "--top", "0"]);
    assert_eq!(
        run.err().trim_end(),
        "error: --top 0: the plot would draw no curve; give --top 1 or more, or name the \
         players with --players A,B"
    );
    assert!(!std::path::Path::new(&svg).exists());
    // A player named twice is shown once; a mean just below zero prints 0.000.
    let run = podium(&["history", &small, "--players", "bo,ann,bo"]);
    let rows: Vec<Vec<&str>> = run
        .ok()
        .lines()
        .filter(|l| l.contains("ann") || l.contains("bo"))
        .map(|l| l.split_whitespace().filter(|c| *c != "│").collect())
        .collect();
    assert_eq!(
        rows,
        [
            ["bo", "1", "0.000", "4.074"],
            ["bo", "2", "0.000", "4.074"],
            ["ann", "1", "5.040", "4.542"]
        ]
    );
    // The plot of those players: by match number, no label twice in a row.
    let run = podium(&["history", &small, "--players", "bo,ann,bo", "--plot", &svg]);
    run.ok();
    let texts = svg_texts(&std::fs::read_to_string(&svg).unwrap());
    assert_eq!(texts[texts.len() - 2..], ["bo", "ann"], "{texts:?}");
    let axis = texts.iter().position(|t| t == "match").unwrap();
    assert!(texts[axis..].windows(2).all(|w| w[0] != w[1]), "{texts:?}");
}

/// The SVG elements of a chart drawn in one colour (`#RRGGBB`), in document order.
fn svg_in_colour<'a>(svg: &'a str, colour: &str) -> Vec<&'a str> {
    svg.split('<')
        .filter(|e| e.contains(&format!("\"{colour}\"")))
        .map(|e| e.trim_end().trim_end_matches("/>").trim_end())
        .collect()
}

#[test]
fn the_plot_marks_a_curve_of_one_point_with_a_bar_of_its_band() {
    let d = Dir::new("history_one_point");
    // c plays one match: no band or line to draw, a marker and a bar of mean ± σ.
    let three = d.file(
        "three.csv",
        "time,match,player,rank\n2024-01-01,m1,a,1\n2024-01-01,m1,b,2\n\
         2024-01-02,m2,a,1\n2024-01-02,m2,c,2\n2024-02-01,m3,a,2\n2024-02-01,m3,b,1\n",
    );
    let svg = d.path("three.svg");
    podium(&["history", &three, "--players", "a,b,c", "--plot", &svg]).ok();
    let svg = std::fs::read_to_string(&svg).unwrap();
    // The third colour is c's: the bar, its two caps, the marker, then the legend's line.
    assert_eq!(
        svg_in_colour(&svg, "#2CA02C"),
        [
            "polyline fill=\"none\" opacity=\"1\" stroke=\"#2CA02C\" stroke-width=\"2\" points=\"107,220 107,635 \"",
            "polyline fill=\"none\" opacity=\"1\" stroke=\"#2CA02C\" stroke-width=\"2\" points=\"102,220 112,220 \"",
            "polyline fill=\"none\" opacity=\"1\" stroke=\"#2CA02C\" stroke-width=\"2\" points=\"102,635 112,635 \"",
            "circle cx=\"107\" cy=\"428\" r=\"5\" opacity=\"1\" fill=\"#2CA02C\" stroke=\"none\" stroke-width=\"1\"",
            "polyline fill=\"none\" opacity=\"1\" stroke=\"#2CA02C\" stroke-width=\"3\" points=\"958,95 988,95 \"",
        ]
    );
    // a and b, of two match days each, are bands and lines without markers.
    assert_eq!(svg.matches("<circle").count(), 1);
    assert_eq!(svg.matches("<polygon").count(), 2);
    // One match: every curve one point, the markers side by side around match 1.
    let one = d.file("one.csv", "match,player,rank\nm1,a,1\nm1,b,2\nm1,c,3\n");
    let svg = d.path("one.svg");
    podium(&["history", &one, "--players", "a,b,c", "--plot", &svg]).ok();
    let svg = std::fs::read_to_string(&svg).unwrap();
    let circles: Vec<&str> = svg
        .split("<circle ")
        .skip(1)
        .map(|c| &c[..c.find(" r=").unwrap()])
        .collect();
    assert_eq!(
        circles,
        [
            "cx=\"491\" cy=\"182\"",
            "cx=\"506\" cy=\"339\"",
            "cx=\"521\" cy=\"497\""
        ]
    );
    assert_eq!(svg.matches("<polygon").count(), 0);
    // The axis is one match wide, ticked at that match only.
    let texts = svg_texts(&svg);
    assert_eq!(texts[texts.len() - 4..], ["1", "a", "b", "c"], "{texts:?}");
}

#[test]
fn the_history_table_right_aligns_numbers_and_counts_one_in_the_singular() {
    let d = Dir::new("history_table");
    let one = d.file("one.csv", "match,player,rank\nm1,a,1\nm1,b,2\nm1,c,3\n");
    let run = podium(&["history", &one]);
    assert_eq!(
        run.ok(),
        "┌────────────────────────────────┐\n\
         │ player   time     mean       σ │\n\
         ╞════════════════════════════════╡\n\
         │ a           1    5.117   4.514 │\n\
         │ b           1    0.000   4.082 │\n\
         │ c           1   -5.117   4.514 │\n\
         └────────────────────────────────┘\n"
    );
    assert!(
        run.stderr
            .starts_with("smoothed 1 match of 3 players in 1 pass ("),
        "{}",
        run.stderr
    );
}
