//! `podium import catan|f1` on the real datasets, then `podium rate` with every registered
//! system, checked against facts counted by hand from the raw files.

use std::collections::{BTreeSet, HashMap};

use crate::util::{csv_rows, podium, shared_data, Dir};

type Row = HashMap<String, String>;

/// Imports a dataset into `dir` and returns the CSV path and its rows.
fn import(dir: &Dir, args: &[&str], name: &str) -> (String, Vec<Row>) {
    let run = podium(args);
    let text = run.ok().to_string();
    let path = dir.file(name, &text);
    (path, csv_rows(&text))
}

pub(crate) fn catan(dir: &Dir) -> (String, Vec<Row>) {
    let file = shared_data().join("catan/games.txt");
    import(
        dir,
        &["import", "catan", file.to_str().unwrap()],
        "catan.csv",
    )
}

pub(crate) fn f1(dir: &Dir) -> (String, Vec<Row>) {
    let d = shared_data().join("f1");
    import(dir, &["import", "f1", d.to_str().unwrap()], "f1.csv")
}

/// Match ids in file order, each once.
fn match_ids(rows: &[Row]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for r in rows {
        if ids.last() != Some(&r["match"]) {
            ids.push(r["match"].clone());
        }
    }
    ids
}

fn leaderboard(file: &str, system: &str) -> Vec<Row> {
    csv_rows(podium(&["rate", file, "--system", system, "--format", "csv"]).ok())
}

fn by_player(board: &[Row]) -> HashMap<&str, &Row> {
    board.iter().map(|r| (r["player"].as_str(), r)).collect()
}

fn num(row: &Row, col: &str) -> f64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col} = {:?}", row[col]))
}

/// Wins of a player from the leaderboard's win percentage.
fn wins(row: &Row) -> f64 {
    num(row, "win_pct") * num(row, "games") / 100.0
}

/// Games per player counted straight from the raw Catan log, by a different route than
/// the converter: every `Name pts` between the second `:` and the end of the line.
fn catan_games_by_hand() -> HashMap<String, u32> {
    let text = std::fs::read_to_string(shared_data().join("catan/games.txt")).unwrap();
    let mut games = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let players = line.splitn(3, ':').nth(2).unwrap();
        for p in players.split(',') {
            let name = p.split_whitespace().next().unwrap();
            *games.entry(name.to_string()).or_insert(0) += 1;
        }
    }
    games
}

fn systems() -> Vec<&'static str> {
    podium::systems().iter().map(|s| s.name).collect()
}

#[test]
fn catan_import_has_every_game_oldest_first() {
    let d = Dir::new("catan-import");
    let (_, rows) = catan(&d);
    let ids = match_ids(&rows);
    assert_eq!(ids.len(), 242, "README: 242 games");
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), 242, "unique ids");
    assert_eq!(ids[0], "2017-03-17#1");
    assert_eq!(ids[241], "2024-12-31#2");
    // The two games of 2024-12-31: the log lists the later one (Alex 13 …) first.
    let last: Vec<_> = rows
        .iter()
        .filter(|r| r["match"] == "2024-12-31#2")
        .collect();
    assert_eq!(last[0]["player"], "Alex");
    assert_eq!(last.len(), 5);
    let times: Vec<&str> = rows.iter().map(|r| r["time"].as_str()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "oldest first");
    assert_eq!(rows.len(), 1025, "242 games × 4.24 players");
    // 2020-10-16 : 10 : Alex 10 * , Mic 10 , Jess 9 , … — the star breaks the tie.
    let starred: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| r["match"] == "2020-10-16#2")
        .map(|r| (r["player"].as_str(), r["rank"].as_str()))
        .collect();
    assert_eq!(
        starred,
        [
            ("Alex", "1"),
            ("Mic", "2"),
            ("Jess", "3"),
            ("Scott", "4"),
            ("Laura", "5")
        ]
    );
}

#[test]
fn catan_rated_by_every_system() {
    let d = Dir::new("catan-rate");
    let (file, _) = catan(&d);
    let by_hand = catan_games_by_hand();
    assert_eq!(by_hand.len(), 17);
    assert_eq!(by_hand["Rachel"], 206);
    assert_eq!(by_hand["Stuart"], 1);
    for system in systems() {
        if system == "elo" {
            let err = podium(&["rate", &file, "--system", "elo"])
                .err()
                .to_string();
            assert!(
                err.contains("exactly 2 entries") && err.contains("--skip-bad"),
                "{err}"
            );
            continue;
        }
        let board = leaderboard(&file, system);
        assert_eq!(board.len(), 17, "{system}");
        let players = by_player(&board);
        for (name, games) in &by_hand {
            assert_eq!(
                num(players[name.as_str()], "games"),
                f64::from(*games),
                "{system}: games of {name}"
            );
        }
        for r in &board {
            assert!(num(r, "rating").is_finite(), "{system}: {r:?}");
        }
        // Jess won 56 games outright (no tie at the top: the two equal tops are starred).
        assert!((wins(players["Jess"]) - 56.0).abs() < 1e-6, "{system}");
        assert!((wins(players["Rachel"]) - 58.0).abs() < 1e-6, "{system}");
        assert!((wins(players["Alex"]) - 18.0).abs() < 1e-6, "{system}");
    }
    // A sensible leaderboard: Jess (56 wins in 152 games, +13.8 points over an average
    // player's win rate) leads the regulars under the win-focused systems.
    for system in ["proportional", "mes", "shares"] {
        let board = leaderboard(&file, system);
        assert_eq!(board[0]["player"], "Jess", "{system}");
    }
    // Point neutrality: sme, pairwise and shares keep the mean rating at 1500.
    for system in ["sme", "pairwise", "shares"] {
        let board = leaderboard(&file, system);
        let mean = board.iter().map(|r| num(r, "rating")).sum::<f64>() / board.len() as f64;
        assert!((mean - 1500.0).abs() < 1e-6, "{system}: mean {mean}");
    }
}

#[test]
fn f1_import_has_every_race_in_date_order() {
    let d = Dir::new("f1-import");
    let (_, rows) = f1(&d);
    let ids = match_ids(&rows);
    assert_eq!(ids.len(), 1143, "README: 1143 races with results");
    assert_eq!(ids[0], "1950-01 British Grand Prix");
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), 1143);
    let times: Vec<&str> = rows.iter().map(|r| r["time"].as_str()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "date order");
    // 27,118 result rows less 91 second cars of drivers who drove two in one race.
    assert_eq!(rows.len(), 27_027);
    let players: BTreeSet<&str> = rows.iter().map(|r| r["player"].as_str()).collect();
    assert_eq!(players.len(), 864, "README: 864 distinct drivers");
    // 1951 French Grand Prix: Fagioli and Fangio shared the winning car (equal positionOrder).
    let shared: Vec<&str> = rows
        .iter()
        .filter(|r| r["match"] == "1951-04 French Grand Prix" && r["rank"] == "1")
        .map(|r| r["player"].as_str())
        .collect();
    assert_eq!(shared.len(), 2, "{shared:?}");
    assert!(shared.contains(&"fangio") && shared.contains(&"fagioli"));
}

#[test]
fn f1_rated_by_every_system() {
    let d = Dir::new("f1-rate");
    let (file, _) = f1(&d);
    let multi_champions = [
        "hamilton",
        "michael_schumacher",
        "fangio",
        "prost",
        "vettel",
        "max_verstappen",
        "jack_brabham",
        "stewart",
        "lauda",
        "piquet",
        "senna",
        "ascari",
        "hill",
        "clark",
        "emerson_fittipaldi",
        "hakkinen",
        "alonso",
    ];
    for system in systems() {
        if system == "elo" {
            let err = podium(&["rate", &file, "--system", "elo"])
                .err()
                .to_string();
            assert!(err.contains("exactly 2 entries"), "{err}");
            continue;
        }
        let board = leaderboard(&file, system);
        assert_eq!(board.len(), 864, "{system}");
        let players = by_player(&board);
        assert_eq!(num(players["hamilton"], "games"), 374.0, "{system}");
        assert_eq!(num(players["alonso"], "games"), 422.0, "{system}");
        assert!((wins(players["hamilton"]) - 105.0).abs() < 1e-6, "{system}");
        assert!(
            (wins(players["michael_schumacher"]) - 91.0).abs() < 1e-6,
            "{system}"
        );
        for r in &board {
            assert!(num(r, "rating").is_finite(), "{system}: {r:?}");
        }
    }
    // A plausible leaderboard: under the systems that reward finishing high in big
    // fields, the top three are all multiple world champions, Hamilton first.
    for system in ["proportional", "mes", "shares"] {
        let board = leaderboard(&file, system);
        assert_eq!(board[0]["player"], "hamilton", "{system}");
        for r in &board[..3] {
            assert!(
                multi_champions.contains(&r["player"].as_str()),
                "{system}: {} in the top 3",
                r["player"]
            );
        }
    }
}
