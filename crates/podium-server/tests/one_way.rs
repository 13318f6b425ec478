//! One way to rate a match, whichever way it reaches a league: for every registered
//! system, random histories (ranks, scores, ties, teams, weights, times, factors) rated
//! by the library one match at a time, submitted to the server one match per request
//! and all in one request, read back from the SQLite ledger after a restart, and rated
//! again from a checkpoint after a correction that is then undone, give the same
//! ratings, bit for bit, and refuse the same matches.

use std::collections::BTreeMap;
use std::sync::Arc;

mod common;

use axum::http::{Method, StatusCode};
use axum::Router;
use common::call;
use proptest::prelude::*;
use serde_json::{json, Value};

use podium_server::{router, Access, AppState, Limits};
use podium_store::{Checkpoints, Leagues, Options, SqliteStore};

/// One row of a generated match: player, team, finish, weight and the entry's car.
#[derive(Debug, Clone)]
struct Row {
    player: usize,
    team: Option<usize>,
    finish: u8,
    half: bool,
    car: Option<u8>,
}

/// A generated match: its rows, whether finishes are scores, and its day.
#[derive(Debug, Clone)]
struct Game {
    rows: Vec<Row>,
    scores: bool,
    day: u8,
}

fn game() -> impl Strategy<Value = Game> {
    let row = (
        0usize..9,
        prop::option::of(0usize..3),
        0u8..4,
        prop::bool::weighted(0.2),
        prop::option::of(0u8..3),
    );
    (
        prop::collection::vec(row, 2..6),
        prop::bool::ANY,
        prop::bool::weighted(0.3),
    )
        .prop_map(|(raw, scores, same_day)| {
            let mut seen = std::collections::HashSet::new();
            let mut rows: Vec<Row> = Vec::new();
            for (player, team, finish, half, car) in raw {
                if !seen.insert(player) {
                    continue;
                }
                // Members of one team share its finish and car.
                let (finish, car) = match rows.iter().find(|r| r.team.is_some() && r.team == team) {
                    Some(mate) => (mate.finish, mate.car),
                    None => (finish, car),
                };
                rows.push(Row {
                    player,
                    team,
                    finish,
                    half,
                    car,
                });
            }
            Game {
                rows,
                scores,
                day: u8::from(!same_day),
            }
        })
}

/// The results of a match as JSON, cars as factors when `cars`.
fn results(g: &Game, cars: bool, reversed: bool) -> Vec<Value> {
    g.rows
        .iter()
        .map(|r| {
            let finish = if reversed { 3 - r.finish } else { r.finish };
            let mut o = json!({ "player": format!("p{}", r.player) });
            o[if g.scores { "score" } else { "rank" }] = (finish + 1).into();
            if let Some(t) = r.team {
                o["team"] = format!("t{t}").into();
            }
            if r.half {
                o["weight"] = 0.5.into();
            }
            if let Some(c) = r.car.filter(|_| cars) {
                o["factors"] = json!({ "car": format!("c{c}") });
            }
            o
        })
        .collect()
}

/// The days of the matches: each a day after the one before, or the same day.
fn days(games: &[Game]) -> Vec<String> {
    let mut day = 1u32;
    games
        .iter()
        .map(|g| {
            day += u32::from(g.day);
            format!("2024-01-{day:02}")
        })
        .collect()
}

/// Match `k` as the server takes it.
fn body(games: &[Game], k: usize, cars: bool, reversed: bool) -> Value {
    json!({
        "id": format!("m{k}"),
        "time": days(games)[k],
        "results": results(&games[k], cars, reversed),
    })
}

/// Match `k` as a line of JSON Lines, for the library's reader.
fn line(games: &[Game], k: usize, cars: bool) -> String {
    let mut o = body(games, k, cars, false);
    o["match"] = o["id"].take();
    o.as_object_mut().unwrap().remove("id");
    for r in o["results"].as_array_mut().unwrap() {
        if let Some(f) = r.as_object_mut().unwrap().remove("factors") {
            r["car"] = f["car"].clone();
        }
    }
    o.to_string()
}

/// Every player's rating and σ, and every factor's, as bits.
type Board = BTreeMap<String, (u64, Option<u64>)>;

fn library_board(league: &podium::League) -> Board {
    let mut board: Board = league
        .standings()
        .into_iter()
        .map(|s| {
            (
                s.player,
                (s.rating.value.to_bits(), s.rating.sigma.map(f64::to_bits)),
            )
        })
        .collect();
    for f in league.factors() {
        board.insert(
            format!("{}={}", f.factor.kind, f.factor.value),
            (f.rating.value.to_bits(), f.rating.sigma.map(f64::to_bits)),
        );
    }
    board
}

async fn served_board(app: &Router, id: i64) -> Board {
    let mut board = Board::new();
    let rows = common::board(app, id).await;
    let bits = |v: &Value| v.as_f64().map(f64::to_bits);
    for r in rows.as_array().unwrap() {
        let player = r["player"].as_str().unwrap().to_string();
        board.insert(player, (bits(&r["rating"]).unwrap(), bits(&r["sigma"])));
    }
    let (status, rows) = call(
        app,
        Method::GET,
        &format!("/api/leagues/{id}/factors"),
        None,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{rows}");
    for r in rows.as_array().unwrap() {
        let name = format!(
            "{}={}",
            r["kind"].as_str().unwrap(),
            r["value"].as_str().unwrap()
        );
        board.insert(name, (bits(&r["rating"]).unwrap(), bits(&r["sigma"])));
    }
    board
}

fn options() -> Options {
    Options {
        // A checkpoint every other match, so that a correction is rated from one.
        checkpoints: Checkpoints { every: 2, keep: 4 },
        ..Options::default()
    }
}

/// The store on the file, once the server before lets it go: a thread of that server
/// saving a league's ratings may hold the store for a moment after its last answer,
/// and one store at a time may be open on a file.
fn store(path: &std::path::Path) -> Arc<SqliteStore> {
    for _ in 0..1_000 {
        match SqliteStore::open(path) {
            Err(podium_store::StoreError::OpenHere { .. }) => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            opened => return Arc::new(opened.unwrap()),
        }
    }
    panic!("{} stayed in use", path.display());
}

fn app(path: &std::path::Path) -> (Router, Arc<Leagues>) {
    let leagues = Leagues::open_loaded(store(path), options()).unwrap();
    let app = router(AppState::new(
        leagues.clone(),
        Limits::default(),
        Access::Open,
    ));
    (app, leagues)
}

/// A server started on the file, its leagues not loaded yet.
fn started(path: &std::path::Path) -> (Router, Arc<Leagues>) {
    let leagues = Leagues::open(store(path), options()).unwrap();
    let app = router(AppState::new(
        leagues.clone(),
        Limits::default(),
        Access::Open,
    ));
    (app, leagues)
}

async fn create(app: &Router, system: &str) -> (i64, String) {
    // League names are unique on a server.
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (status, v) = call(
        app,
        Method::POST,
        "/api/leagues",
        None,
        Some(json!({ "name": format!("l-{system}-{n}"), "system": system })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    (
        v["id"].as_i64().unwrap(),
        v["admin_token"].as_str().unwrap().to_string(),
    )
}

/// Every path for one system over `games`.
async fn every_path(system: &str, games: &[Game], dir: &std::path::Path) {
    let cars = podium::system(system, &podium::Settings::new())
        .unwrap()
        .describe()
        .capabilities
        .rates_factors;
    // The library, one match at a time through the reader.
    let mut options = podium_io::ReadOptions::default();
    if cars {
        options = podium_io::ReadOptions::with_factors(["car"]);
    }
    let mut league = podium::League::new(podium::system(system, &podium::Settings::new()).unwrap());
    let mut accepted = Vec::new();
    for k in 0..games.len() {
        let text = line(games, k, cars);
        let m = podium_io::JsonlMatches::with_options("m.jsonl", text.as_bytes(), &options)
            .next()
            .unwrap()
            .unwrap();
        accepted.push(league.apply(&m).is_ok());
    }
    let want = library_board(&league);

    let path = dir.join(format!("{system}.sqlite"));
    let (server, leagues) = app(&path);
    // One match per request.
    let (one, token) = create(&server, system).await;
    let url = format!("/api/leagues/{one}/matches");
    for (k, ok) in accepted.iter().enumerate() {
        let (status, v) = call(
            &server,
            Method::POST,
            &url,
            Some(&token),
            Some(body(games, k, cars, false)),
        )
        .await;
        assert_eq!(
            status == StatusCode::CREATED,
            *ok,
            "{system}, match {k}: {status} {v}"
        );
    }
    assert_eq!(
        served_board(&server, one).await,
        want,
        "{system}: one per request"
    );
    // All in one request.
    let (all, token_all) = create(&server, system).await;
    let bodies: Vec<Value> = (0..games.len())
        .map(|k| body(games, k, cars, false))
        .collect();
    let (_, answers) = call(
        &server,
        Method::POST,
        &format!("/api/leagues/{all}/matches"),
        Some(&token_all),
        Some(Value::Array(bodies)),
    )
    .await;
    let codes: Vec<bool> = answers
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["code"] == 201)
        .collect();
    assert_eq!(codes, accepted, "{system}: {answers}");
    assert_eq!(
        served_board(&server, all).await,
        want,
        "{system}: one request"
    );
    // A correction rated from a checkpoint, then undone.
    let first = accepted.iter().position(|&ok| ok);
    let last = accepted.iter().rposition(|&ok| ok);
    if let (Some(first), Some(last)) = (first, last) {
        let k = first + (last - first) / 2;
        if accepted[k] {
            let match_url = format!("{url}/m{k}");
            for reversed in [true, false] {
                let (status, v) = call(
                    &server,
                    Method::PUT,
                    &match_url,
                    Some(&token),
                    Some(body(games, k, cars, reversed)),
                )
                .await;
                assert!(status.is_success(), "{system}: {v}");
            }
            assert_eq!(
                served_board(&server, one).await,
                want,
                "{system}: corrected and back"
            );
        }
    }
    // The ledger read back by a new server on the same file: rated whole. (One
    // process serves a file: the first server is gone before.)
    drop((server, leagues));
    let (again, leagues) = app(&path);
    assert_eq!(
        served_board(&again, one).await,
        want,
        "{system}: after a restart"
    );
    assert_eq!(
        served_board(&again, all).await,
        want,
        "{system}: after a restart"
    );
    // The ratings saved at shutdown: a new server restores each league from them and
    // serves its board at once, then rates its whole ledger for the histories.
    leagues.save_all();
    drop((again, leagues));
    let (restarted, leagues) = started(&path);
    let rated = accepted.iter().any(|&ok| ok);
    for id in [one, all] {
        assert_eq!(leagues.restore(id).unwrap(), rated, "{system}: restored");
        if rated {
            assert_eq!(
                served_board(&restarted, id).await,
                want,
                "{system}: restored from the saved ratings"
            );
        }
    }
    leagues.load_all(1);
    assert!(leagues.loading().is_empty());
    for id in [one, all] {
        assert_eq!(
            served_board(&restarted, id).await,
            want,
            "{system}: restored, then rated whole"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3))]

    #[test]
    fn every_way_into_a_league_gives_every_system_the_same_ratings(
        games in prop::collection::vec(game(), 2..9),
    ) {
        let entries = |g: &Game| {
            let teams: std::collections::HashSet<_> = g.rows.iter().filter_map(|r| r.team).collect();
            g.rows.iter().filter(|r| r.team.is_none()).count() + teams.len()
        };
        let games: Vec<Game> = games.into_iter().filter(|g| entries(g) >= 2).collect();
        prop_assume!(!games.is_empty());
        let dir = std::env::temp_dir().join(format!("podium-one-way-{}-{}", std::process::id(), rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        for spec in podium::systems() {
            runtime.block_on(every_path(spec.name, &games, &dir));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// The score file whose readers once disagreed: the store rates its margins as the
/// library does.
#[tokio::test]
async fn the_served_score_file_rates_its_margins() {
    let games = [
        [("ann", 10), ("bo", 9), ("cy", 3), ("di", 1)],
        [("bo", 20), ("di", 19), ("cy", 5), ("ann", 1)],
        [("di", 30), ("ann", 29), ("bo", 2), ("cy", 1)],
    ];
    let dir = std::env::temp_dir().join(format!("podium-score-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (server, _) = app(&dir.join("s.sqlite"));
    let (id, token) = create(&server, "kalman-mmr").await;
    for (k, g) in games.iter().enumerate() {
        let results: Vec<Value> = g
            .iter()
            .map(|(p, s)| json!({"player": p, "score": s}))
            .collect();
        let (status, v) = call(
            &server,
            Method::POST,
            &format!("/api/leagues/{id}/matches"),
            Some(&token),
            Some(json!({"id": format!("g{}", k + 1), "results": results})),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{v}");
    }
    let (_, rows) = call(
        &server,
        Method::GET,
        &format!("/api/leagues/{id}/leaderboard"),
        None,
        None,
    )
    .await;
    let bo = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player"] == "bo")
        .unwrap();
    assert!(
        (bo["rating"].as_f64().unwrap() - 1567.73).abs() < 0.005,
        "{bo}"
    );
    assert!(
        (bo["sigma"].as_f64().unwrap() - 107.65).abs() < 0.005,
        "{bo}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
