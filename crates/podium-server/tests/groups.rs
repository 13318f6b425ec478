//! Fair teams and head-to-head records through the router (no sockets).

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::http::{Method, StatusCode};
use common::{call, temporary_app};
use podium_server::{router, Access, AppState, Limits};
use podium_store::{Leagues, Options, SqliteStore};
use serde_json::{json, Value};

/// A league of sme with four games of ann, bo, cy, dee: ann wins three, bo beats ann once.
async fn league() -> (axum::Router, i64) {
    let app = temporary_app();
    let (s, v) = call(
        &app,
        Method::POST,
        "/api/leagues",
        None,
        Some(json!({"name": "night", "system": "sme"})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_i64().unwrap();
    let token = v["admin_token"].as_str().unwrap().to_string();
    for (k, order) in [
        ["ann", "bo", "cy", "dee"],
        ["ann", "cy", "bo", "dee"],
        ["bo", "ann", "dee", "cy"],
        ["ann", "bo", "dee", "cy"],
    ]
    .iter()
    .enumerate()
    {
        let results: Vec<Value> = order
            .iter()
            .enumerate()
            .map(|(r, p)| json!({"player": p, "rank": r + 1}))
            .collect();
        let (s, v) = call(
            &app,
            Method::POST,
            &format!("/api/leagues/{id}/matches"),
            Some(&token),
            Some(json!({"id": format!("g{k}"), "results": results})),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
    }
    (app, id)
}

#[tokio::test]
async fn balance_proposes_the_fairest_teams_and_refuses_bad_requests() {
    let (app, id) = league().await;
    let url = format!("/api/leagues/{id}/balance");
    let (s, v) = call(
        &app,
        Method::POST,
        &url,
        None,
        Some(json!({"players": ["ann", "bo", "cy", "dee"], "teams": 2, "top": 2})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["exact"], true);
    let best = &v["splits"][0]["groups"];
    let ann = best
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["players"].as_array().unwrap().contains(&json!("ann")))
        .unwrap();
    // the strongest plays with the weakest
    assert!(
        ann["players"].as_array().unwrap().contains(&json!("dee"))
            || ann["players"].as_array().unwrap().contains(&json!("cy")),
        "{v}"
    );
    assert_eq!(v["splits"].as_array().unwrap().len(), 2);
    let (s, v) = call(
        &app,
        Method::POST,
        &url,
        None,
        Some(json!({"players": ["ann", "zed"], "teams": 2})),
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{v}");
    assert!(v["error"].as_str().unwrap().contains("newcomers"), "{v}");
    // A newcomer named as such is balanced at a newcomer's rating.
    let (s, v) = call(
        &app,
        Method::POST,
        &url,
        None,
        Some(json!({"players": ["ann", "bo", "cy", "zed"], "teams": 2, "newcomers": ["zed"]})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(v.to_string().contains("\"zed\""), "{v}");
    let (s, v) = call(
        &app,
        Method::POST,
        &url,
        None,
        Some(json!({"players": ["ann", "bo", "cy"], "teams": 2, "apart": [["ann", "bo", "cy"]]})),
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("no split honours"),
        "{v}"
    );
    let (s, v) = call(
        &app,
        Method::POST,
        &url,
        None,
        Some(json!({"players": ["ann", "ann"], "teams": 2})),
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
}

#[tokio::test]
async fn balance_refuses_names_no_split_could_use_naming_the_field() {
    let (app, id) = league().await;
    let url = format!("/api/leagues/{id}/balance");
    let refused = |body: Value| {
        let (app, url) = (app.clone(), url.clone());
        async move {
            let (s, v) = call(&app, Method::POST, &url, None, Some(body)).await;
            assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
            v["error"].as_str().unwrap().to_string()
        }
    };
    let four = json!(["ann", "bo", "cy", "dee"]);
    assert_eq!(
        refused(json!({"players": four, "teams": 2, "apart": [["ann", "bo"], ["cy"]]})).await,
        "apart[1]: a group names two players or more, this one names 1"
    );
    assert_eq!(
        refused(json!({"players": four, "teams": 2, "together": [[]]})).await,
        "together[0]: a group names two players or more, this one names 0"
    );
    assert_eq!(
        refused(json!({"players": four, "teams": 2, "newcomers": ["zed"]})).await,
        r#"newcomers[0]: "zed" is not among the players present"#
    );
    assert_eq!(
        refused(
            json!({"players": ["ann", "bo", "cy", "zed"], "teams": 2, "newcomers": ["zed", "bo"]})
        )
        .await,
        r#"newcomers[1]: "bo" is rated by the league: newcomers are players it has not rated yet (a rated player is balanced at their rating, named in players only)"#
    );
    assert_eq!(
        refused(json!({"players": ["ann", "", "bo"], "teams": 2})).await,
        r#"players[1]: player id "" is not valid, expected 1 to 200 bytes without surrounding spaces or control characters"#
    );
    assert_eq!(
        refused(json!({"players": ["ann", " bo", "cy"], "teams": 2})).await,
        r#"players[1]: player id " bo" is not valid, expected 1 to 200 bytes without surrounding spaces or control characters"#
    );
}

#[tokio::test]
async fn versus_and_rivals_count_the_meetings() {
    let (app, id) = league().await;
    let (s, v) = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/versus?a=ann&b=bo"),
        None,
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["versus"]["meetings"], 4);
    assert_eq!(v["versus"]["ahead"], 3);
    assert_eq!(v["versus"]["behind"], 1);
    assert!(v["today"].as_f64().unwrap() > 0.5);
    let (s, v) = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/players/bo/rivals"),
        None,
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["player"], "bo");
    assert_eq!(v["frequent"].as_array().unwrap().len(), 3);
    let (s, _) = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/versus?a=ann&b=zed"),
        None,
        None,
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

/// Matches of a league with two seasons, as entered: `(id, date, finishing order)`.
/// Season 1 (January 2024) gets its matches out of date order, one of them entered after
/// season 2 began on 1 February; season 2's are out of date order too.
const SEASONS: [(&str, &str, &[&str]); 8] = [
    ("g1", "2024-01-10", &["ann", "bo", "cy"]),
    ("g2", "2024-01-05", &["bo", "ann", "dee"]),
    ("g3", "2024-01-12", &["ann", "cy", "bo", "dee"]),
    // season 2 starts here (2024-02-01)
    ("g4", "2024-02-10", &["bo", "ann"]),
    ("g5", "2024-02-03", &["cy", "ann", "bo"]),
    ("g6", "2024-01-20", &["ann", "bo", "dee"]),
    ("g7", "2024-02-15", &["bo", "dee", "ann"]),
    ("g8", "2024-02-12", &["dee", "ann", "cy"]),
];

/// 2024-02-01 00:00 UTC.
const SPRING: i64 = 1_706_745_600;

const RESET: podium::season::Reset = podium::season::Reset::Soft {
    pull: 0.5,
    widen: 0.0,
};

/// `ann`'s pre-match chance of finishing ahead of `opponent` in every match they meet
/// in, each match with the league of `order`'s matches before it, the league reset
/// before the first match on or after `reset_at` (never for `None`); with the league at
/// the end.
fn direct_count(
    order: &[(&str, &str, &[&str])],
    reset_at: Option<i64>,
) -> (BTreeMap<String, (u32, f64)>, podium::League) {
    let mut league = podium::League::new(podium::system("sme", &podium::Settings::new()).unwrap());
    let mut reset = reset_at;
    let mut met: BTreeMap<String, (u32, f64)> = BTreeMap::new();
    for (key, date, players) in order {
        let time = podium_io::parse_time(date).unwrap();
        if reset.is_some_and(|r| time >= r) {
            league = league.new_season(&RESET).unwrap();
            reset = None;
        }
        for opponent in players.iter().filter(|p| **p != "ann") {
            if !players.contains(&"ann") {
                continue;
            }
            let duel = podium::Match::builder("duel")
                .time(time)
                .player("ann", podium::Finish::Rank(1.0))
                .player(*opponent, podium::Finish::Rank(1.0))
                .build()
                .unwrap();
            let p = league.predict(&duel).unwrap();
            let level = (1.0 - p.ahead[0][1] - p.ahead[1][0]).max(0.0);
            let e = met.entry((*opponent).to_string()).or_default();
            e.0 += 1;
            e.1 += p.ahead[0][1] + 0.5 * level;
        }
        let mut game = podium::Match::builder(*key).time(time);
        for (k, p) in players.iter().enumerate() {
            game = game.player(*p, podium::Finish::Rank((k + 1) as f64));
        }
        let game = game.build().unwrap();
        league.apply(&game).unwrap();
    }
    (met, league)
}

/// A league with a soft-reset season and matches entered out of date order: the head-
/// to-head figures are those of the league's own ratings, match by match in date order
/// with the reset at the season's start, not those of a replay in entry order or
/// without the reset.
#[tokio::test]
async fn head_to_head_in_a_league_with_seasons_follows_its_rating_order_and_resets() {
    let leagues = Leagues::open_loaded(
        Arc::new(SqliteStore::temporary().unwrap()),
        Options::default(),
    )
    .unwrap();
    let app = router(AppState::new(
        leagues.clone(),
        Limits::default(),
        Access::Open,
    ));
    let (s, v) = call(
        &app,
        Method::POST,
        "/api/leagues",
        None,
        Some(json!({"name": "club", "system": "sme"})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_i64().unwrap();
    let token = v["admin_token"].as_str().unwrap().to_string();
    for (k, (key, date, players)) in SEASONS.iter().enumerate() {
        if k == 3 {
            leagues
                .start_season_at(id, "Spring", RESET, SPRING)
                .unwrap();
        }
        let results: Vec<Value> = players
            .iter()
            .enumerate()
            .map(|(r, p)| json!({"player": p, "rank": r + 1}))
            .collect();
        let (s, v) = call(
            &app,
            Method::POST,
            &format!("/api/leagues/{id}/matches"),
            Some(&token),
            Some(json!({"id": key, "time": date, "results": results})),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
    }
    let mut by_date = SEASONS.to_vec();
    by_date.sort_by_key(|(_, date, _)| *date);
    let (direct, end) = direct_count(&by_date, Some(SPRING));
    // The fresh league ends where the league's own ratings are.
    for row in leagues.leaderboard(id).unwrap() {
        assert!(
            (row.rating - end.rating_of(&row.player).value).abs() < 1e-9,
            "{row:?}"
        );
    }

    let (s, v) = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/versus?a=ann&b=bo"),
        None,
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (meetings, expected) = direct["bo"];
    assert_eq!(v["versus"]["meetings"], meetings);
    assert_eq!(v["versus"]["ahead"], 4);
    assert_eq!(v["versus"]["behind"], 3);
    let served = v["versus"]["expected_share"].as_f64().unwrap();
    assert!(
        (served - expected / f64::from(meetings)).abs() < 1e-12,
        "{v}"
    );
    // Today: the league's current prediction, the ratings of its season now.
    let last = podium_io::parse_time("2024-02-15").unwrap();
    let now = leagues
        .read(id, |d| {
            Ok(podium::versus::today(d.league(), "ann", "bo", Some(last)).unwrap())
        })
        .unwrap();
    let today = v["today"].as_f64().unwrap();
    assert!((today - now).abs() < 1e-12, "{v}");
    assert!((today - podium::versus::today(&end, "ann", "bo", Some(last)).unwrap()).abs() < 1e-12);

    let (s, r) = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/players/ann/rivals?min_meetings=1&frequent=10"),
        None,
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let frequent = r["frequent"].as_array().unwrap();
    assert_eq!(frequent.len(), direct.len(), "{r}");
    for f in frequent {
        let (meetings, expected) = direct[f["opponent"].as_str().unwrap()];
        assert_eq!(f["meetings"], meetings, "{f}");
        let share = f["expected_share"].as_f64().unwrap();
        assert!(
            (share - expected / f64::from(meetings)).abs() < 1e-12,
            "{f}"
        );
    }

    // The figures tell the orders apart: a replay in entry order, or in date order
    // without the reset, expects other shares.
    for (naive, how) in [
        (direct_count(&SEASONS, None).0, "in entry order, no reset"),
        (direct_count(&by_date, None).0, "in date order, no reset"),
        (direct_count(&SEASONS, Some(SPRING)).0, "in entry order"),
    ] {
        let (m, e) = naive["bo"];
        assert_eq!(m, meetings);
        assert!(
            (served - e / f64::from(m)).abs() > 1e-4,
            "{how}: {served} v {}",
            e / f64::from(m)
        );
    }
}
