//! Seasons through the API (no sockets): start one, enter games, read each season's
//! board; bad input is a clear 4xx and changes nothing.

mod common;

use axum::http::{Method, StatusCode};
use axum::Router;
use common::{board, call, temporary_app as app};
use serde_json::{json, Value};

async fn league(app: &Router) -> (i64, String) {
    // League names are unique on a server.
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (status, v) = call(
        app,
        Method::POST,
        "/api/leagues",
        None,
        Some(json!({"name": format!("club {n}"), "system": "sme"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    (
        v["id"].as_i64().unwrap(),
        v["admin_token"].as_str().unwrap().to_string(),
    )
}

async fn game(app: &Router, id: i64, token: &str, key: &str, order: &[&str]) {
    let results: Vec<Value> = order
        .iter()
        .enumerate()
        .map(|(k, p)| json!({"player": p, "rank": k + 1}))
        .collect();
    let (status, v) = call(
        app,
        Method::POST,
        &format!("/api/leagues/{id}/matches"),
        Some(token),
        Some(json!({"id": key, "results": results})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
}

/// Starts the season "Spring" with a reset of `kind` (`soft`, `hard`); returns it.
async fn spring(app: &Router, id: i64, token: &str, kind: &str) -> Value {
    let (status, v) = call(
        app,
        Method::POST,
        &format!("/api/leagues/{id}/seasons"),
        Some(token),
        Some(json!({"name": "Spring", "reset": {"kind": kind}})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    v
}

fn players(board: &Value) -> Vec<&str> {
    board
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["player"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_new_season_archives_the_board_and_starts_from_its_reset() {
    let app = app();
    let (id, token) = league(&app).await;
    game(&app, id, &token, "g1", &["ann", "bo"]).await;
    game(&app, id, &token, "g2", &["cy", "ann"]).await;
    let before = board(&app, id).await;
    let s = spring(&app, id, &token, "hard").await;
    assert_eq!(
        (s["number"].as_i64(), s["name"].as_str()),
        (Some(2), Some("Spring"))
    );
    assert_eq!(s["reset"], json!({"kind": "hard"}));
    game(&app, id, &token, "g3", &["bo", "dee"]).await;
    let (_, list) = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/seasons"),
        None,
        None,
    )
    .await;
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(
        (list[0]["name"].as_str(), list[0]["matches"].as_u64()),
        (Some("Season 1"), Some(2))
    );
    assert_eq!(
        (list[1]["matches"].as_u64(), list[1]["current"].as_bool()),
        (Some(1), Some(true))
    );
    // The first season's board is the board as it stood.
    let (status, first) = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/seasons/1/board"),
        None,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(first, before);
    // The current one: the players of Spring, from the initial rating (hard reset).
    let (_, now) = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/seasons/2/board"),
        None,
        None,
    )
    .await;
    assert_eq!(players(&now), ["bo", "dee"]);
    assert!(
        (now[0]["rating"].as_f64().unwrap() - 1516.0).abs() < 1e-9,
        "{now}"
    );
    assert_eq!(now[0]["games"], 1);
    let live = board(&app, id).await;
    assert_eq!(live, now);
    let (status, e) = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/seasons/3/board"),
        None,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{e}");
    assert_eq!(e["error"], format!("league {id} has no season 3"));
    let (status, _) = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/seasons/01/board"),
        None,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn bad_seasons_are_4xx_and_change_nothing() {
    let app = app();
    let (id, token) = league(&app).await;
    game(&app, id, &token, "g1", &["ann", "bo"]).await;
    let (other, other_token) = league(&app).await;
    assert_ne!(other, id);
    let url = format!("/api/leagues/{id}/seasons");
    let post = |token: Option<String>, body: Value| {
        let (app, url) = (app.clone(), url.clone());
        async move { call(&app, Method::POST, &url, token.as_deref(), Some(body)).await }
    };
    let ok = json!({"name": "Spring", "reset": {"kind": "soft"}});
    let cases = [
        (None, ok.clone(), StatusCode::UNAUTHORIZED, "admin token"),
        (
            Some(other_token.clone()),
            ok.clone(),
            StatusCode::FORBIDDEN,
            "not league",
        ),
        (
            Some(token.clone()),
            json!({"name": "Spring", "reset": {"kind": "medium"}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown variant `medium`",
        ),
        (
            Some(token.clone()),
            json!({"name": "Spring", "reset": {"kind": "soft", "pull": 1.5}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "pull is 1.5; it must be between 0 and 1",
        ),
        (
            Some(token.clone()),
            json!({"name": "Spring", "reset": {"kind": "soft", "pull": -0.1}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "pull is -0.1",
        ),
        (
            Some(token.clone()),
            json!({"name": "Spring", "reset": {"kind": "soft", "widen": -1}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "widen is -1; it must be a finite number ≥ 0",
        ),
        (
            Some(token.clone()),
            json!({"name": "Spring", "reset": {"kind": "hard", "pull": 0.3}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "reset: kind hard takes no `pull`; only a soft reset has pull and widen",
        ),
        (
            Some(token.clone()),
            json!({"name": "Spring", "reset": {"kind": "none", "widen": 1}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "reset: kind none takes no `widen`",
        ),
        (
            Some(token.clone()),
            json!({"name": "", "reset": {"kind": "none"}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid season: name \"\" is not valid, expected 1 to 100 characters without control characters",
        ),
        (
            Some(token.clone()),
            json!({"name": "Season 1", "reset": {"kind": "none"}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "has a season named \"Season 1\" already",
        ),
        (
            Some(token.clone()),
            json!({"reset": {"kind": "none"}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "missing field `name`",
        ),
    ];
    for (token, body, status, says) in cases {
        let (got, e) = post(token, body.clone()).await;
        assert_eq!(got, status, "{body}: {e}");
        assert!(e["error"].as_str().unwrap().contains(says), "{body}: {e}");
    }
    let (_, list) = call(&app, Method::GET, &url, None, None).await;
    assert_eq!(
        list.as_array().unwrap().len(),
        1,
        "nothing was started: {list}"
    );
    let (status, _) = post(Some(token.clone()), ok.clone()).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, e) = post(
        Some(token.clone()),
        json!({"name": "Spring", "reset": {"kind": "hard"}}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("has a season named \"Spring\" already"),
        "{e}"
    );
    // A season's name was unique by its exact spelling, and took control characters,
    // which player ids refuse: unique letter case aside, and refused so.
    let control = "expected 1 to 100 characters without control characters";
    for (name, says) in [
        (
            "spring".to_string(),
            format!("invalid season: name: league {id} has a season named \"Spring\" already; give the new season another name"),
        ),
        (
            " SEASON 1 ".to_string(),
            format!("invalid season: name: league {id} has a season named \"Season 1\" already; give the new season another name"),
        ),
        (
            "nul\u{0}x".to_string(),
            format!("invalid season: name \"nul\\0x\" is not valid, {control}"),
        ),
        (
            "ctl\u{7}x".to_string(),
            format!("invalid season: name \"ctl\\u{{7}}x\" is not valid, {control}"),
        ),
        (
            "é".repeat(101),
            format!("invalid season: name \"{}\"… (202 bytes) is not valid, {control}", "é".repeat(64)),
        ),
    ] {
        let (status, e) = post(
            Some(token.clone()),
            json!({"name": name, "reset": {"kind": "none"}}),
        )
        .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{name}: {e}");
        assert_eq!(e["error"], says.as_str(), "{name}");
    }
    let (_, list) = call(&app, Method::GET, &url, None, None).await;
    assert_eq!(list.as_array().unwrap().len(), 2);
}

/// After a new season, a player who has not played in it is not on its board: their
/// page says so (`in_season` false) rather than giving them a place among its players.
#[tokio::test]
async fn a_player_who_has_not_played_this_season_is_not_in_it() {
    let app = app();
    let (id, token) = league(&app).await;
    game(&app, id, &token, "g1", &["ann", "bo", "cy"]).await;
    let page = |name: &'static str| {
        let app = app.clone();
        async move {
            let (status, v) = call(
                &app,
                Method::GET,
                &format!("/api/leagues/{id}/players/{name}"),
                None,
                None,
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{v}");
            v
        }
    };
    assert_eq!(page("cy").await["in_season"], true);
    spring(&app, id, &token, "soft").await;
    game(&app, id, &token, "g2", &["bo", "ann"]).await;
    let board = board(&app, id).await;
    assert_eq!(players(&board), ["bo", "ann"]);
    let cy = page("cy").await;
    assert_eq!(cy["in_season"], false, "{cy}");
    assert_eq!(
        cy["position"],
        Value::Null,
        "no place on Spring's board: {cy}"
    );
    assert_eq!(cy["games"], 0);
    // The games before the season stay in the history.
    assert_eq!(cy["history"].as_array().unwrap().len(), 1);
    let bo = page("bo").await;
    assert_eq!(
        (bo["in_season"].as_bool(), bo["position"].as_u64()),
        (Some(true), Some(1))
    );
}

/// The league of [`a_player_page_lists_each_season_reset_with_the_rating_after_it`]:
/// `(season to start before it, match)`, each match its players in finishing order.
const RESETS: &[(Option<&str>, &str, &[&str])] = &[
    (None, "g1", &["ann", "bo", "cy"]),
    (None, "g2", &["cy", "bo", "ann"]),
    (None, "g3", &["ann", "cy"]),
    (Some("Spring"), "g4", &["bo", "dee"]),
    (None, "g5", &["ann", "dee", "bo"]),
    (Some("Summer"), "g6", &["dee", "bo"]),
];

/// The resets of Spring and Summer (Summer's pulls harder and widens more).
fn reset_of(season: &str) -> podium::season::Reset {
    match season {
        "Spring" => podium::season::Reset::Soft {
            pull: 0.5,
            widen: 0.25,
        },
        _ => podium::season::Reset::Soft {
            pull: 0.8,
            widen: 0.5,
        },
    }
}

/// [`RESETS`] rated by `podium::League` directly, each season started with
/// `League::new_season`: every player's rating just after each reset, by season name.
fn direct_resets(system: &str) -> Vec<(String, podium::League)> {
    let mut league = podium::League::new(podium::system(system, &podium::Settings::new()).unwrap());
    let mut after = Vec::new();
    for (season, key, order) in RESETS {
        if let Some(name) = season {
            league = league.new_season(&reset_of(name)).unwrap();
            after.push(((*name).to_string(), league.clone()));
        }
        let mut game = podium::Match::builder(*key);
        for (k, p) in order.iter().enumerate() {
            game = game.player(*p, podium::Finish::Rank((k + 1) as f64));
        }
        league.apply(&game.build().unwrap()).unwrap();
    }
    after
}

/// Every player's page after two soft-reset seasons: the seasons started since their
/// first game, where each falls among their games, and their rating (and σ) just after
/// each reset, equal to `podium::League::new_season` on the same games; a player who has
/// not played since a reset stands at the rating it gave, and has no place on the
/// season's board.
async fn season_resets_on_player_pages(app: &Router) {
    let (status, v) = call(
        app,
        Method::POST,
        "/api/leagues",
        None,
        Some(json!({"name": "club", "system": "trueskill"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    let id = v["id"].as_i64().unwrap();
    let token = v["admin_token"].as_str().unwrap().to_string();
    for (season, key, order) in RESETS {
        if let Some(name) = season {
            let (status, v) = call(
                app,
                Method::POST,
                &format!("/api/leagues/{id}/seasons"),
                Some(&token),
                Some(json!({"name": name, "reset": reset_of(name)})),
            )
            .await;
            assert_eq!(status, StatusCode::CREATED, "{v}");
        }
        game(app, id, &token, key, order).await;
    }
    let direct = direct_resets("trueskill");
    // The seasons each player's page lists (those started after their first game), with
    // how many of their games come before each.
    let expected: [(&str, &[(&str, u64)]); 4] = [
        ("ann", &[("Spring", 3), ("Summer", 4)]),
        ("bo", &[("Spring", 2), ("Summer", 4)]),
        ("cy", &[("Spring", 3), ("Summer", 3)]),
        ("dee", &[("Summer", 2)]),
    ];
    for (name, seasons) in expected {
        let (status, p) = call(
            app,
            Method::GET,
            &format!("/api/leagues/{id}/players/{name}"),
            None,
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{p}");
        let listed = p["seasons"].as_array().unwrap();
        assert_eq!(listed.len(), seasons.len(), "{name}: {p}");
        for (got, (season, games_before)) in listed.iter().zip(seasons) {
            let (number, start_seq) = if *season == "Spring" { (2, 4) } else { (3, 6) };
            assert_eq!(got["name"], *season, "{name}: {got}");
            assert_eq!(got["number"], number, "{name}: {got}");
            assert_eq!(got["start_seq"], start_seq, "{name}: {got}");
            assert_eq!(got["games_before"], *games_before, "{name}: {got}");
            assert_eq!(got["reset"], json!(reset_of(season)), "{name}: {got}");
            let league = &direct.iter().find(|(s, _)| s == season).unwrap().1;
            let want = league.current(league.index_of(name).unwrap());
            assert!(
                (got["rating"].as_f64().unwrap() - want.value).abs() < 1e-9,
                "{name} after {season}: {got}, want {want:?}"
            );
            assert!(
                (got["sigma"].as_f64().unwrap() - want.sigma.unwrap()).abs() < 1e-9,
                "{name} after {season}: {got}, want {want:?}"
            );
        }
        // The game after a reset starts from the rating it gave.
        let history = p["history"].as_array().unwrap();
        for got in listed {
            if let Some(next) = history.get(got["games_before"].as_u64().unwrap() as usize) {
                assert!(
                    (next["before"].as_f64().unwrap() - got["rating"].as_f64().unwrap()).abs()
                        < 1e-9,
                    "{name}: {next} after {got}"
                );
            }
        }
    }
    // ann and cy have not played in Summer: their rating is the reset's, and they have
    // no place on Summer's board; dee and bo, who played, have theirs.
    let board = board(app, id).await;
    assert_eq!(players(&board), ["bo", "dee"]);
    let place = |name: &str| {
        board
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player"] == name)
            .map(|r| r["position"].as_u64().unwrap())
    };
    for name in ["ann", "cy", "dee", "bo"] {
        let position = place(name);
        let (_, p) = call(
            app,
            Method::GET,
            &format!("/api/leagues/{id}/players/{name}"),
            None,
            None,
        )
        .await;
        assert_eq!(p["in_season"], position.is_some(), "{name}: {p}");
        assert_eq!(p["position"], json!(position), "{name}: {p}");
        if position.is_none() {
            let last = p["seasons"].as_array().unwrap().last().unwrap().clone();
            assert_eq!(
                (p["rating"].as_f64(), p["sigma"].as_f64()),
                (last["rating"].as_f64(), last["sigma"].as_f64()),
                "{name}: {p}"
            );
        }
    }
}

#[tokio::test]
async fn a_player_page_lists_each_season_reset_with_the_rating_after_it() {
    season_resets_on_player_pages(&app()).await;
}

/// The same on PostgreSQL (`PODIUM_TEST_POSTGRES`; `bash scripts/with-postgres.sh cargo
/// test ...` starts a throwaway server).
#[tokio::test(flavor = "multi_thread")]
async fn a_player_page_lists_each_season_reset_with_the_rating_after_it_on_postgres() {
    let name = format!("podium_seasons_resets_{}", std::process::id());
    let app = common::postgres_app(&name).await;
    season_resets_on_player_pages(&app).await;
    common::drop_postgres(app, &name).await;
}

#[tokio::test]
async fn the_league_s_players_are_every_season_s() {
    let app = app();
    let (id, token) = league(&app).await;
    let url = format!("/api/leagues/{id}/players");
    let (status, v) = call(&app, Method::GET, &url, None, None).await;
    assert_eq!((status, v), (StatusCode::OK, json!([])));
    game(&app, id, &token, "g1", &["ann", "Bo", "cy"]).await;
    spring(&app, id, &token, "soft").await;
    game(&app, id, &token, "g2", &["dee", "ann"]).await;
    let board = board(&app, id).await;
    assert_eq!(players(&board), ["dee", "ann"]);
    let (status, all) = call(&app, Method::GET, &url, None, None).await;
    assert_eq!(status, StatusCode::OK, "{all}");
    // By name in code-point order (capitals first), this season's and the last one's.
    assert_eq!(players(&all), ["Bo", "ann", "cy", "dee"]);
    let in_season: Vec<bool> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["in_season"].as_bool().unwrap())
        .collect();
    assert_eq!(in_season, [false, true, false, true]);
    // Each rating is the one the player's page gives.
    for row in all.as_array().unwrap() {
        let name = row["player"].as_str().unwrap();
        let (_, page) = call(
            &app,
            Method::GET,
            &format!("/api/leagues/{id}/players/{name}"),
            None,
            None,
        )
        .await;
        let (listed, paged) = (
            row["rating"].as_f64().unwrap(),
            page["rating"].as_f64().unwrap(),
        );
        assert!((listed - paged).abs() < 1e-9, "{name}: {listed} vs {paged}");
    }
    let (status, v) = call(&app, Method::GET, "/api/leagues/999/players", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{v}");
}
