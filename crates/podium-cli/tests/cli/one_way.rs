//! One way to rate a match, whichever reader reads it: for every registered system,
//! random files rated from long CSV (by the plain reader where the file is plain, and by
//! the general one when `--history` asks for every match) and from JSON Lines give the
//! same leaderboard, every rating written in full.

use proptest::prelude::*;

use crate::util::{podium, Dir};

/// One row of a generated match: player, team, finish, weight and the entry's car.
#[derive(Debug, Clone)]
struct Row {
    player: usize,
    team: Option<usize>,
    finish: u8,
    half: bool,
    car: Option<u8>,
}

/// A generated match: its rows and whether finishes are scores.
#[derive(Debug, Clone)]
struct Game {
    rows: Vec<Row>,
    scores: bool,
}

fn game(rich: bool) -> impl Strategy<Value = Game> {
    let row = (
        0usize..10,
        prop::option::of(0usize..3),
        0u8..4,
        prop::bool::weighted(0.2),
        prop::option::of(0u8..3),
    );
    (prop::collection::vec(row, 2..6), prop::bool::ANY).prop_map(move |(raw, scores)| {
        let mut seen = std::collections::HashSet::new();
        let mut rows: Vec<Row> = Vec::new();
        for (player, team, finish, half, car) in raw {
            if !seen.insert(player) {
                continue;
            }
            let team = team.filter(|_| rich);
            // Members of one team share its finish and car.
            let (finish, car) = match rows.iter().find(|r| r.team.is_some() && r.team == team) {
                Some(mate) => (mate.finish, mate.car),
                None => (finish, car.filter(|_| rich)),
            };
            rows.push(Row {
                player,
                team,
                finish,
                half: half && rich,
                car,
            });
        }
        Game {
            rows,
            scores: scores && rich,
        }
    })
}

/// The entries a match has: its solo players and its teams.
fn entries(g: &Game) -> usize {
    let teams: std::collections::HashSet<_> = g.rows.iter().filter_map(|r| r.team).collect();
    g.rows.iter().filter(|r| r.team.is_none()).count() + teams.len()
}

/// The same matches as long CSV and as JSON Lines, with the entries' cars when `cars`.
fn files(games: &[Game], rich: bool, cars: bool) -> (String, String) {
    let mut csv = String::from(if rich {
        "match,time,player,team,rank,score,weight,car\n"
    } else {
        "match,player,rank\n"
    });
    let mut jsonl = String::new();
    for (k, g) in games.iter().enumerate() {
        let day = format!("2024-01-{:02}", k + 1);
        let mut results = Vec::new();
        for r in &g.rows {
            let weight = if r.half { 0.5 } else { 1.0 };
            let (rank, score) = if g.scores {
                (String::new(), r.finish.to_string())
            } else {
                (r.finish.to_string(), String::new())
            };
            let team = r.team.map(|t| format!("t{t}")).unwrap_or_default();
            let car = r
                .car
                .filter(|_| cars)
                .map(|c| format!("c{c}"))
                .unwrap_or_default();
            if rich {
                csv.push_str(&format!(
                    "m{k},{day},p{},{team},{rank},{score},{weight},{car}\n",
                    r.player
                ));
            } else {
                csv.push_str(&format!("m{k},p{},{rank}\n", r.player));
            }
            let mut o = serde_json::json!({ "player": format!("p{}", r.player) });
            if g.scores {
                o["score"] = r.finish.into();
            } else {
                o["rank"] = r.finish.into();
            }
            if let Some(t) = r.team {
                o["team"] = format!("t{t}").into();
            }
            if rich {
                o["weight"] = weight.into();
            }
            if let Some(c) = r.car.filter(|_| cars) {
                o["car"] = format!("c{c}").into();
            }
            results.push(o);
        }
        let mut m = serde_json::json!({ "match": format!("m{k}"), "results": results });
        if rich {
            m["time"] = day.into();
        }
        jsonl.push_str(&m.to_string());
        jsonl.push('\n');
    }
    (csv, jsonl)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3))]

    #[test]
    fn every_reader_gives_every_system_the_same_ratings(
        plain in prop::collection::vec(game(false), 1..8),
        rich in prop::collection::vec(game(true), 1..8),
    ) {
        let d = Dir::new("one-way");
        for (games, rich) in [(plain, false), (rich, true)] {
            let games: Vec<Game> = games.into_iter().filter(|g| entries(g) >= 2).collect();
            if games.is_empty() {
                continue;
            }
            let history = d.path("h.csv");
            for spec in podium::systems() {
                // `--factor car` asks for a field some result must have.
                let factors = rich
                    && games.iter().any(|g| g.rows.iter().any(|r| r.car.is_some()))
                    && podium::system(spec.name, &podium::Settings::new())
                        .unwrap()
                        .capabilities()
                        .rates_factors;
                let (csv, jsonl) = files(&games, rich, factors);
                let csv = d.file("m.csv", &csv);
                let jsonl = d.file("m.jsonl", &jsonl);
                let rate = |file: &str, more: &[&str]| {
                    let mut args = vec!["rate", file, "--system", spec.name, "--format", "csv"];
                    if factors {
                        args.extend(["--factor", "car"]);
                    }
                    args.extend(more);
                    let out = podium(&args);
                    (out.status, out.stdout.clone())
                };
                let first = rate(&csv, &[]);
                if spec.name == "sme" {
                    prop_assert_eq!(first.0, 0, "sme rates every generated file");
                }
                prop_assert_eq!(&first, &rate(&csv, &["--history", &history]), "{}", spec.name);
                prop_assert_eq!(&first, &rate(&jsonl, &[]), "{}", spec.name);
                prop_assert_eq!(&first, &rate(&jsonl, &["--history", &history]), "{}", spec.name);
            }
        }
    }
}
