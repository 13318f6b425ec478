//! The example files in `examples/`, as the README uses them.

use crate::util::{csv_rows, podium, repo_root};

fn example(name: &str) -> String {
    repo_root()
        .join("examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn game_night_rates_into_a_leaderboard() {
    let csv = example("game-night.csv");
    let table = podium(&["rate", &csv]);
    let text = table.ok();
    for player in ["Maya", "Priya", "Tom", "Kate", "Jules", "Rob", "Nina"] {
        assert!(text.contains(player), "{text}");
    }
    let rows = csv_rows(podium(&["rate", &csv, "--format", "csv"]).ok());
    assert_eq!(rows.len(), 10);
    let games: u32 = rows
        .iter()
        .map(|r| r["games"].parse::<u32>().unwrap())
        .sum();
    assert_eq!(games, 160, "one row per player per game");
    assert_eq!(rows[0]["player"], "Priya");
    // The three players of fewer than five games are marked provisional, in both forms.
    let provisional: Vec<&str> = rows
        .iter()
        .filter(|r| r["provisional"] == "true")
        .map(|r| r["player"].as_str())
        .collect();
    assert_eq!(provisional, ["Jules", "Nina", "Rob"]);
    for player in ["Jules (P)", "Nina (P)", "Rob (P)", "(P) provisional rating"] {
        assert!(text.contains(player), "{text}");
    }
    assert!(!text.contains("Tom (P)"), "{text}");
}

#[test]
fn json_lines_teams_and_initial_ratings_together() {
    let (csv, jsonl, init) = (
        example("game-night.csv"),
        example("game-night.jsonl"),
        example("initial-ratings.csv"),
    );
    let rows = csv_rows(
        podium(&[
            "rate",
            &csv,
            &jsonl,
            "--initial",
            &init,
            "--system",
            "mes",
            "--format",
            "csv",
        ])
        .ok(),
    );
    let maya = rows.iter().find(|r| r["player"] == "Maya").unwrap();
    // 14 games in the CSV, 5 in the JSON Lines.
    assert_eq!(maya["games"], "19");
    let out = podium(&["explain", &csv, &jsonl, "--player", "Tom"]);
    assert!(
        out.ok()
            .contains("Match 2025-03-07 Codenames (1): finished 1st of 2 teams (team red, with Maya and Sam)."),
        "{}",
        out.stdout
    );
}

#[test]
fn explain_suggests_a_name_and_elo_counts_every_unratable_match() {
    let csv = example("game-night.csv");
    let err = podium(&["explain", &csv, "--player", "maya"])
        .err()
        .to_string();
    assert!(err.contains("did you mean \"Maya\"?"), "{err}");
    let err = podium(&["rate", &csv, "--system", "elo"]).err().to_string();
    assert!(
        err.starts_with("error: 45 bad matches found, nothing rated"),
        "{err}"
    );
    assert!(err.contains("… and 25 more"), "{err}");
}

/// The README's seat example: the seats' table after the leaderboard, every seat of
/// every game counted once.
#[test]
fn game_night_seats_are_rated_as_factors() {
    let csv = example("game-night.csv");
    let out = podium(&[
        "rate",
        &csv,
        "--factor",
        "seat",
        "--factors",
        "--format",
        "csv",
    ]);
    let text = out.ok();
    let (_, seats) = text.split_once("\n\n").expect("two tables");
    let rows = csv_rows(seats);
    let values: Vec<&str> = rows.iter().map(|r| r["value"].as_str()).collect();
    assert_eq!(values, ["4", "5", "1", "6", "3", "2"], "best first");
    let matches: u32 = rows
        .iter()
        .map(|r| r["matches"].parse::<u32>().unwrap())
        .sum();
    assert_eq!(matches, 160, "one seat per player per game");
    let seat4: f64 = rows[0]["rating"].parse().unwrap();
    assert!((seat4 - 25.846_414_770).abs() < 1e-6, "{seat4}");
    // The players' board is still first, and the seats moved it.
    let plain = csv_rows(podium(&["rate", &csv, "--format", "csv"]).ok());
    let players = csv_rows(text.split_once("\n\n").unwrap().0);
    assert_eq!(players.len(), plain.len());
    assert_ne!(players[0]["rating"], plain[0]["rating"]);
}

#[test]
fn explain_says_what_the_default_learned_from_every_match() {
    let csv = example("game-night.csv");
    let out = podium(&["explain", &csv, "--player", "Priya"]);
    let text = out.ok();
    // The 45 games leave the default on its first filter (static, plain), never
    // switched; the calibration and the newcomer prior are learned.
    let block = [
        "Learned from all 45 matches:",
        "  tau 0: σ the filter in use adds per match (one of taus)",
        "  gamma 0: σ the filter in use adds per idle day, or per elapsed match without times (one of gammas)",
        "  robust 0: 1 if the filter in use is robust (a bad result clipped, a big improvement believed), 0 if plain",
        "  switches 0: times the filter in use changed",
        "  filters 24: filters of the bank scored on every match (the others, far behind, on every 16th)",
        "  kappa 0.9519: slope by which win chances are calibrated",
        "  c 2: multiple of 2β² added to a pair's variance in its win chance",
        "  prior_mean 1440.5273: a newcomer's rating before their first match, from the debuts so far",
    ]
    .join("\n");
    assert!(text.contains(&block), "{text}");
    // A system that learns nothing beside its players has no such block.
    let out = podium(&["explain", &csv, "--player", "Priya", "--system", "elo-mmr"]);
    let text = out.ok();
    assert!(!text.contains("Learned from"), "{text}");
}
