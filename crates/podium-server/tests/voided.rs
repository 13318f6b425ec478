//! Voided matches through the API (no sockets): listed, the last voided first, with
//! their content as it was voided; restored exactly as they were, the league rated again
//! to what it was before the void; and the errors of both calls.

mod common;

use axum::http::{Method, StatusCode};
use axum::Router;
use common::{call, temporary_app as app};
use serde_json::{json, Value};

async fn league(app: &Router, name: &str) -> (i64, String) {
    let (status, v) = call(
        app,
        Method::POST,
        "/api/leagues",
        None,
        Some(json!({"name": name, "system": "sme"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    (
        v["id"].as_i64().unwrap(),
        v["admin_token"].as_str().unwrap().to_string(),
    )
}

/// The league's games: dated, one with scores, teams, a weight and factors, so that a
/// restore has everything of a match to put back.
fn games() -> Vec<Value> {
    vec![
        json!({"id": "g1", "time": "2026-11-20", "results": [
            {"player": "ann", "rank": 1}, {"player": "bo", "rank": 2}, {"player": "cy", "rank": 3}]}),
        json!({"id": "g2", "time": "2026-11-22T19:30:00Z", "results": [
            {"player": "bo", "score": 31.5, "team": "red", "factors": {"seat": 1}},
            {"player": "dee", "score": 31.5, "team": "red", "weight": 0.5},
            {"player": "ann", "score": 12.25, "team": "blue", "factors": {"seat": 2, "faction": "elves"}},
            {"player": "cy", "score": 12.25, "team": "blue"}]}),
        json!({"id": "g3", "time": "2026-11-29T13:14:29Z", "results": [
            {"player": "cy", "rank": 1}, {"player": "ann", "rank": 2}]}),
    ]
}

async fn get(app: &Router, uri: &str) -> Value {
    let (status, v) = call(app, Method::GET, uri, None, None).await;
    assert_eq!(status, StatusCode::OK, "{uri}: {v}");
    v
}

/// The league's ledger as exported (JSON Lines), as text (a ledger of one match reads as
/// one JSON object).
async fn export(app: &Router, id: i64) -> String {
    match get(app, &format!("/api/leagues/{id}/matches")).await {
        Value::String(text) => text,
        one => one.to_string(),
    }
}

/// The keys of a list of matches.
fn keys(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|m| m["match"].as_str().unwrap())
        .collect()
}

async fn voids_are_listed_and_restored(app: &Router) {
    let (id, token) = league(app, "voids").await;
    let (_, other_token) = league(app, "another").await;
    let matches = format!("/api/leagues/{id}/matches");
    let voided = format!("/api/leagues/{id}/voided");
    for g in games() {
        let (status, v) = call(app, Method::POST, &matches, Some(&token), Some(g)).await;
        assert_eq!(status, StatusCode::CREATED, "{v}");
    }
    assert_eq!(get(app, &voided).await, json!([]));
    let board = get(app, &format!("/api/leagues/{id}/leaderboard")).await;
    let factors = get(app, &format!("/api/leagues/{id}/factors")).await;
    let ledger = export(app, id).await;
    let g2 = get(app, &format!("{matches}/g2")).await;
    let g1 = get(app, &format!("{matches}/g1")).await;

    // g2 voided, then g1: both listed, the last voided first, as they were entered.
    for key in ["g2", "g1"] {
        let (status, v) = call(
            app,
            Method::DELETE,
            &format!("{matches}/{key}"),
            Some(&token),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{v}");
    }
    let list = get(app, &voided).await;
    assert_eq!(keys(&list), ["g1", "g2"]);
    for (listed, was) in list.as_array().unwrap().iter().zip([&g1, &g2]) {
        assert_eq!(listed["seq"], was["seq"]);
        assert_eq!(listed["voided"], true);
        assert_eq!(listed["result"], was["result"], "{listed}");
    }
    assert_eq!(list[1]["result"]["time"], "2026-11-22T19:30:00Z");
    let ann = list[1]["result"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player"] == "ann")
        .unwrap()
        .clone();
    assert_eq!(
        ann,
        json!({"player": "ann", "score": 12.25, "team": "blue", "factors": {"seat": "2", "faction": "elves"}})
    );
    assert_eq!(export(app, id).await.lines().count(), 1, "only g3 is rated");

    // A restore needs the league's own token and a match of the league.
    let restore_g2 = format!("{matches}/g2/restore");
    let (status, _) = call(app, Method::POST, &restore_g2, None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = call(app, Method::POST, &restore_g2, Some(&other_token), None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, v) = call(
        app,
        Method::POST,
        &format!("{matches}/nope/restore"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{v}");
    assert_eq!(
        keys(&get(app, &voided).await),
        ["g1", "g2"],
        "nothing restored"
    );

    // g2 restored: rated again, as it was; g1 is still voided.
    let (status, v) = call(app, Method::POST, &restore_g2, Some(&token), None).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["match"], "g2");
    assert_eq!(v["seq"], g2["seq"]);
    assert_eq!(v["voided"], false);
    assert_eq!(v["recomputed"], true);
    assert_eq!(v["result"], g2["result"]);
    assert_eq!(keys(&get(app, &voided).await), ["g1"]);
    assert_eq!(get(app, &format!("{matches}/g2")).await["voided"], false);

    // g1 restored: the league is what it was before either void, to the last bit.
    let (status, v) = call(
        app,
        Method::POST,
        &format!("{matches}/g1/restore"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(get(app, &voided).await, json!([]));
    assert_eq!(export(app, id).await, ledger);
    assert_eq!(
        get(app, &format!("/api/leagues/{id}/leaderboard")).await,
        board
    );
    assert_eq!(
        get(app, &format!("/api/leagues/{id}/factors")).await,
        factors
    );
    assert_eq!(get(app, &format!("{matches}/g2")).await, g2);
    assert_eq!(get(app, &format!("{matches}/g1")).await, g1);

    // A restore sent again changes nothing and says so.
    let (status, v) = call(app, Method::POST, &restore_g2, Some(&token), None).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["recomputed"], false);
    assert_eq!(v["changes"], g2["changes"]);
    assert_eq!(export(app, id).await, ledger);

    // Voided again after a restore: listed once.
    for _ in 0..2 {
        let (status, _) = call(
            app,
            Method::DELETE,
            &format!("{matches}/g3"),
            Some(&token),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        let (status, _) = call(
            app,
            Method::POST,
            &format!("{matches}/g3/restore"),
            Some(&token),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK);
    }
    let (status, _) = call(
        app,
        Method::DELETE,
        &format!("{matches}/g3"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(keys(&get(app, &voided).await), ["g3"]);

    // A match corrected while voided is rated again, so no longer listed.
    let (status, v) = call(
        app,
        Method::PUT,
        &format!("{matches}/g3"),
        Some(&token),
        Some(json!({"time": "2026-11-29T13:14:29Z", "results": [
            {"player": "ann", "rank": 1}, {"player": "cy", "rank": 2}]})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(get(app, &voided).await, json!([]));
    // A restore after that keeps the correction: g3 is not voided any more.
    let (status, v) = call(
        app,
        Method::POST,
        &format!("{matches}/g3/restore"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["recomputed"], json!(false), "{v}");
    assert_eq!(v["result"]["time"], json!("2026-11-29T13:14:29Z"), "{v}");
    assert_eq!(
        v["result"]["results"],
        json!([{"player": "ann", "rank": 1.0}, {"player": "cy", "rank": 2.0}]),
        "{v}"
    );

    // Unknown leagues, and league ids not in canonical decimal, are 404.
    for uri in [
        "/api/leagues/999/voided",
        &format!("/api/leagues/0{id}/voided"),
    ] {
        let (status, v) = call(app, Method::GET, uri, None, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{uri}: {v}");
        assert!(v["error"].is_string(), "{v}");
    }
}

#[tokio::test]
async fn voided_matches_are_listed_and_restored_as_they_were() {
    voids_are_listed_and_restored(&app()).await;
}

/// The same on PostgreSQL (`PODIUM_TEST_POSTGRES`; `bash scripts/with-postgres.sh cargo
/// test ...` starts a throwaway server).
#[tokio::test(flavor = "multi_thread")]
async fn voided_matches_are_listed_and_restored_as_they_were_on_postgres() {
    let name = format!("podium_voided_{}", std::process::id());
    let app = common::postgres_app(&name).await;
    voids_are_listed_and_restored(&app).await;
    common::drop_postgres(app, &name).await;
}
