//! Fair teams and head-to-head records through the router (no sockets).

mod common;

use axum::http::{Method, StatusCode};
use common::{call, temporary_app};
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
