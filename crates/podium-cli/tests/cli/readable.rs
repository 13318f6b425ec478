//! What a person reads on the terminal: the simulate table's width, the chart, the
//! explain story, predict's team ratings, the frag table's columns and ties, the site's
//! weapon names, and no progress bar when standard error is not a terminal.

use crate::util::{csv_rows, podium, repo_root, Dir};

fn example(name: &str) -> String {
    repo_root()
        .join("examples")
        .join(name)
        .display()
        .to_string()
}

/// The cells of the table row whose first cell starts with `first`.
fn table_row(table: &str, first: &str) -> Vec<String> {
    table
        .lines()
        .map(|l| {
            l.trim_matches(|c: char| c == '│' || c.is_whitespace())
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .find(|cells| cells.first().is_some_and(|c| c.starts_with(first)))
        .unwrap_or_else(|| panic!("no row {first:?} in\n{table}"))
}

#[test]
fn the_simulate_table_of_every_system_fits_100_columns() {
    let run = podium(&[
        "simulate",
        "--trials",
        "2",
        "--rounds",
        "1,2,3,4,5,10,20,100,1000",
    ]);
    let out = run.ok();
    let widest = out.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 100, "{widest} columns:\n{out}");
    // One row per system, the rounds across.
    assert!(out.contains("kalman-mmr"), "{out}");
    assert_eq!(table_row(out, "ideal").len(), 10, "{out}");
}

#[test]
fn the_chart_draws_the_default_boldly_with_its_legend_beside_the_data() {
    let dir = Dir::new("readable-plot");
    let svg = dir.path("curves.svg");
    podium(&[
        "simulate",
        "--systems",
        "sme,kalman-mmr",
        "--trials",
        "4",
        "--rounds",
        "0,1,10",
        "--plot",
        &svg,
    ])
    .ok();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("kalman-mmr (default)"), "{text}");
    assert!(
        text.contains("stroke-width=\"5\""),
        "the default is drawn boldly"
    );
}

#[test]
fn explain_opens_with_the_players_story_and_ends_with_the_filter() {
    let run = podium(&["explain", &example("game-night.csv"), "--player", "Maya"]);
    let out = run.ok();
    assert!(
        out.starts_with("Maya played 14 matches: rating now "),
        "{out}"
    );
    let second = out.lines().nth(1).unwrap();
    assert!(
        second.starts_with("First place (alone or shared) "),
        "{second}"
    );
    let first_match = out.find("Match ").unwrap();
    let how = out.find("How kalman-mmr rates: ").unwrap();
    let learned = out.find("Learned from all 45 matches:").unwrap();
    assert!(first_match < how && how < learned, "{out}");
}

#[test]
fn predict_shows_a_team_rating_as_the_system_sums_it() {
    let file = example("game-night.csv");
    let players = ["--players", "Maya+Tom,Kate"];
    let csv = podium(&[
        "predict",
        &file,
        "--system",
        "trueskill",
        players[0],
        players[1],
        "--format",
        "csv",
    ]);
    let rows = csv_rows(csv.ok());
    // The CSV keeps the players' mean; TrueSkill compares the sum.
    let mean: f64 = rows[0]["rating"].parse().unwrap();
    let table = podium(&[
        "predict",
        &file,
        "--system",
        "trueskill",
        players[0],
        players[1],
    ]);
    let out = table.ok();
    assert!(out.contains("rating (team: sum)"), "{out}");
    let shown: f64 = table_row(out, "1. Maya+Tom")[1].parse().unwrap();
    assert!(
        (shown - 2.0 * mean).abs() < 0.006,
        "{shown} vs 2 × {mean}\n{out}"
    );
    // A system of means says so.
    let sme = podium(&["predict", &file, "--system", "sme", players[0], players[1]]);
    let out = sme.ok();
    assert!(out.contains("rating (team: mean)"), "{out}");
}

#[test]
fn predict_of_single_players_keeps_the_plain_rating_column() {
    let run = podium(&[
        "predict",
        &example("game-night.csv"),
        "--players",
        "Maya,Kate",
    ]);
    assert!(!run.ok().contains("team:"), "{}", run.stdout);
}

#[test]
fn the_frag_tables_suicides_column_counts_what_the_summary_calls_suicides() {
    let run = podium(&["frags", &example("games.log")]);
    let out = run.ok();
    // "247 kills (22 by the world, 13 suicides, 0 team kills)"
    let summary = &run.stderr;
    let count = |after: &str| -> u32 {
        let at = summary.find(after).unwrap_or_else(|| panic!("{summary}"));
        summary[..at]
            .rsplit(|c: char| !c.is_ascii_digit())
            .find(|s| !s.is_empty())
            .unwrap()
            .parse()
            .unwrap()
    };
    let (world, suicides) = (count(" by the world"), count(" suicides"));
    let header = table_row(out, "#");
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (s_col, w_col) = (col("suicides"), col("world"));
    let mut sums = (0u32, 0u32);
    for line in out.lines() {
        let cells = line
            .trim_matches(|c: char| c == '│' || c.is_whitespace())
            .split_whitespace()
            .collect::<Vec<_>>();
        if cells.len() == header.len() && cells[0].trim_end_matches('=').parse::<u32>().is_ok() {
            sums.0 += cells[s_col].parse::<u32>().unwrap();
            sums.1 += cells[w_col].parse::<u32>().unwrap();
        }
    }
    assert_eq!(sums, (suicides, world), "{summary}\n{out}");
    assert!(suicides > 0 && world > 0, "{summary}");
}

const FLOOR: &str = "  0:00 InitGame: \\g_gametype\\0\\mapname\\q3dm17
  0:01 ClientUserinfoChanged: 2 n\\Ann\\t\\0
  0:01 ClientUserinfoChanged: 3 n\\Zed\\t\\0
  0:01 ClientUserinfoChanged: 4 n\\Cy\\t\\0
  0:02 Kill: 3 4 7: Zed killed Cy by MOD_ROCKET_SPLASH
  0:03 Kill: 3 3 7: Zed killed Zed by MOD_ROCKET_SPLASH
  0:04 Kill: 2 4 10: Ann killed Cy by MOD_RAILGUN
  0:05 ShutdownGame:
";

#[test]
fn players_at_the_floor_share_a_position_the_better_kd_first() {
    // Zed: a frag (+4) and a suicide (−4), 0; Cy: killed twice, 0; Ann: 4.
    let dir = Dir::new("readable-floor");
    let log = dir.file("games.log", FLOOR);
    let run = podium(&["frags", &log]);
    let out = run.ok();
    let zed = table_row(out, "2=");
    assert_eq!((&zed[0][..], &zed[1][..]), ("2=", "Zed"), "{out}");
    let at = |name: &str| out.find(name).unwrap();
    assert!(at("Ann") < at("Zed") && at("Zed") < at("Cy"), "{out}");
    assert!(
        out.contains("2 players are at the floor of strength 0 and share their position"),
        "{out}"
    );
    // The CSV keeps plain numbers.
    let csv = podium(&["frags", &log, "--format", "csv"]);
    let rows = csv_rows(csv.ok());
    let positions: Vec<&str> = rows.iter().map(|r| &r["position"][..]).collect();
    assert_eq!(positions, ["1", "2", "2"], "{}", csv.stdout);
}

#[test]
fn the_site_names_weapons_as_players_do() {
    let dir = Dir::new("readable-weapons");
    let log = dir.file("games.log", FLOOR);
    let site = dir.path("site");
    podium(&["frags", &log, "--html", &site]).ok();
    let mut pages = String::new();
    for sub in ["", "games", "players"] {
        let Ok(entries) = std::fs::read_dir(std::path::Path::new(&site).join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "html") {
                pages.push_str(&std::fs::read_to_string(e.path()).unwrap());
            }
        }
    }
    assert!(pages.contains("rocket (splash)"), "{pages}");
    assert!(pages.contains("railgun"), "{pages}");
    assert!(!pages.contains("MOD_"), "{pages}");
}

#[test]
fn long_commands_draw_no_progress_into_a_pipe() {
    let file = example("game-night.csv");
    for args in [
        vec!["backtest", &file, "--systems", "sme,elo"],
        vec!["tune", &file, "--system", "sme", "--param", "k=8..16:8"],
        vec![
            "simulate",
            "--systems",
            "sme",
            "--trials",
            "2",
            "--rounds",
            "0,1",
        ],
    ] {
        let run = podium(&args);
        run.ok();
        assert_eq!(run.stderr, "", "{args:?}");
    }
    let run = podium(&["import", "catan", &example("catan-games.txt")]);
    assert!(run.ok().starts_with("match,player,rank"), "{}", run.stdout);
    assert_eq!(run.stderr, "");
}
