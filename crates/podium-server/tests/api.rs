//! The API through the router, request by request (no sockets).

mod common;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use std::sync::Arc;

use common::postgres_server;
use podium_server::{api_routes, router, Access, AppState, Limits};
use podium_store::{Leagues, Options, SqliteStore};
use serde_json::{json, Value};
use tower::ServiceExt;

fn leagues() -> Arc<Leagues> {
    Leagues::open_loaded(
        Arc::new(SqliteStore::temporary().unwrap()),
        Options::default(),
    )
    .unwrap()
}

fn app() -> Router {
    app_with(Limits::default(), Access::Open)
}

fn app_with(limits: Limits, access: Access) -> Router {
    router(AppState::new(leagues(), limits, access))
}

struct Reply {
    status: StatusCode,
    content_type: String,
    text: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }
    fn error(&self) -> String {
        self.json()["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error field: {}", self.text))
            .to_string()
    }
}

async fn call(
    app: &Router,
    method: Method,
    uri: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> Reply {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(t) = token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let req = req
        .body(Body::from(body.unwrap_or("").to_string()))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let content_type = res
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = axum::body::to_bytes(res.into_body(), 64 << 20)
        .await
        .unwrap();
    Reply {
        status,
        content_type,
        text: String::from_utf8(bytes.to_vec()).unwrap(),
    }
}

/// `call`, answered 422 (an input the server refuses): the reply, for its error.
async fn refused(
    app: &Router,
    method: Method,
    uri: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> Reply {
    let r = call(app, method, uri, token, body).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    r
}

async fn create(app: &Router, body: Value) -> (i64, String) {
    let r = call(
        app,
        Method::POST,
        "/api/leagues",
        None,
        Some(&body.to_string()),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let v = r.json();
    (
        v["id"].as_i64().unwrap(),
        v["admin_token"].as_str().unwrap().to_string(),
    )
}

fn game(id: &str, places: &[(&str, u32)]) -> String {
    json!({
        "id": id,
        "results": places.iter().map(|(p, r)| json!({"player": p, "rank": r})).collect::<Vec<_>>(),
    })
    .to_string()
}

#[tokio::test]
async fn a_league_from_creation_to_leaderboard() {
    let app = app();
    let (id, token) = create(
        &app,
        json!({"name": "Thursday", "system": "sme", "config": {"k": 24}}),
    )
    .await;
    assert!(token.starts_with("pdm_") && token.len() == 68);
    let url = format!("/api/leagues/{id}/matches");

    let r = call(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&game("g1", &[("ann", 1), ("bo", 2), ("cy", 2)])),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let v = r.json();
    assert_eq!(v["status"], "created");
    assert_eq!(v["changes"][0]["player"], "ann");
    // sme with K = 24: ann beats two players at 1500: 2 · 24 · (1 − 0.5) / 2 … = +12.
    assert!(
        (v["changes"][0]["delta"].as_f64().unwrap() - 12.0).abs() < 1e-9,
        "{v}"
    );

    // A retry: 200, nothing stored; other content under the same id: 409.
    let r = call(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&game("g1", &[("ann", 1), ("bo", 2), ("cy", 2)])),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["status"], "duplicate");
    let r = call(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&game("g1", &[("ann", 2), ("bo", 1)])),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert!(r.error().contains("g1"));

    // A JSON Lines match exactly as files carry it is accepted too.
    let line = r#"{"match":"g2","time":null,"results":[{"player":"bo","rank":1},{"player":"cy","rank":2}]}"#;
    let r = call(&app, Method::POST, &url, Some(&token), Some(line)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // The id may be given as "match" and "id" when they agree.
    let both =
        r#"{"match":"g2","id":"g2","results":[{"player":"cy","rank":2},{"player":"bo","rank":1}]}"#;
    let r = call(&app, Method::POST, &url, Some(&token), Some(both)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let differ =
        r#"{"match":"g3","id":"x","results":[{"player":"cy","rank":2},{"player":"bo","rank":1}]}"#;
    let r = call(&app, Method::POST, &url, Some(&token), Some(differ)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);

    let r = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/leaderboard"),
        None,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let board = r.json();
    let board = board.as_array().unwrap();
    assert_eq!(board.len(), 3);
    for row in board {
        for field in [
            "player",
            "rating",
            "games",
            "win_pct",
            "expected_win_pct",
            "avg_size",
            "provisional",
        ] {
            assert!(row.get(field).is_some(), "{field} missing in {row}");
        }
        assert!(row.get("sigma").is_none(), "sme has no sigma");
        // The matches have no times: no date to show, and not a match id in its place.
        assert_eq!(row["last_played"], Value::Null, "{row}");
    }
    let total: f64 = board.iter().map(|r| r["rating"].as_f64().unwrap()).sum();
    assert!(
        (total - 4500.0).abs() < 1e-9,
        "sme is point neutral: {total}"
    );

    let r = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/leaderboard?limit=1&offset=1"),
        None,
        None,
    )
    .await;
    let page = r.json();
    assert_eq!(page.as_array().unwrap().len(), 1);
    assert_eq!(page[0], board[1]);
    let r = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/leaderboard?limit=x"),
        None,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    r.error();

    let r = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/players/bo"),
        None,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let p = r.json();
    assert_eq!(p["games"], 2);
    let hist = p["history"].as_array().unwrap();
    assert_eq!(hist.len(), 2);
    assert_eq!(hist[0]["match"], "g1");
    assert_eq!(hist[1]["place"], 1);
    for field in ["before", "after", "expected", "actual", "k", "delta"] {
        assert!(hist[0].get(field).is_some(), "{field}");
    }
    let r = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/players/nobody"),
        None,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);

    let r = call(&app, Method::GET, &url, None, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.content_type, "application/x-ndjson");
    let lines: Vec<&str> = r.text.lines().collect();
    assert_eq!(lines.len(), 2);
    let first: podium_io::JsonMatch = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(first.id, "g1");
}

#[tokio::test]
async fn tokens_401_and_403() {
    let app = app();
    let (a, ta) = create(&app, json!({"name": "A", "system": "sme"})).await;
    let (_b, tb) = create(&app, json!({"name": "B", "system": "sme"})).await;
    let url = format!("/api/leagues/{a}/matches");
    let body = game("g1", &[("ann", 1), ("bo", 2)]);
    let r = call(&app, Method::POST, &url, None, Some(&body)).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    r.error();
    let r = call(&app, Method::POST, &url, Some("pdm_wrong"), Some(&body)).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = call(&app, Method::POST, &url, Some(&tb), Some(&body)).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    for (method, path) in [
        (Method::DELETE, format!("{url}/g1")),
        (Method::PUT, format!("{url}/g1")),
        (Method::PATCH, format!("/api/leagues/{a}")),
    ] {
        let r = call(&app, method.clone(), &path, None, Some("{}")).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{method} {path}");
        let r = call(&app, method.clone(), &path, Some(&tb), Some("{}")).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{method} {path}");
    }
    let r = call(&app, Method::POST, &url, Some(&ta), Some(&body)).await;
    assert_eq!(r.status, StatusCode::CREATED);
}

#[tokio::test]
async fn a_value_of_the_wrong_type_is_refused_naming_its_field() {
    let app = app();
    let (id, t) = create(&app, json!({"name": "A", "system": "sme"})).await;
    let url = format!("/api/leagues/{id}/matches");
    for (body, said) in [
        (
            r#"{"results":[{"player":"a","rank":1},{"player":"b","rank":"x"}]}"#,
            r#"invalid request body: field `results[1].rank`: invalid type: string "x", expected a number"#,
        ),
        (
            r#"[{"results":[{"player":"a","rank":1},{"player":"b","rank":2}]},{"results":[{"player":"a","rank":1},{"player":3,"rank":2}]}]"#,
            "match 1 of the array: field `results[1].player`: invalid type: integer `3`, expected a string",
        ),
    ] {
        let r = call(&app, Method::POST, &url, Some(&t), Some(body)).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
        assert_eq!(r.text, json!({ "error": said }).to_string());
    }
    // Nothing was stored.
    let r = call(&app, Method::GET, &url, None, None).await;
    assert_eq!(r.text, "");
}

#[tokio::test]
async fn bad_input_is_4xx_never_500() {
    let app = app();
    let (id, t) = create(&app, json!({"name": "A", "system": "elo"})).await;
    let url = format!("/api/leagues/{id}/matches");
    let cases: Vec<(Method, String, Option<&str>, String, StatusCode)> = vec![
        (
            Method::POST,
            url.clone(),
            Some(&t),
            "{".into(),
            StatusCode::BAD_REQUEST,
        ),
        (
            Method::POST,
            url.clone(),
            Some(&t),
            "[1,2]".into(),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::POST,
            url.clone(),
            Some(&t),
            r#"{"results":[{"player":"a","rank":1}],"extra":1}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::POST,
            url.clone(),
            Some(&t),
            game("x", &[("a", 1)]),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::POST,
            url.clone(),
            Some(&t),
            game("x", &[("a", 1), ("a", 2)]),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::POST,
            url.clone(),
            Some(&t),
            game("x", &[("a", 1), ("b", 2), ("c", 3)]),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::POST,
            url.clone(),
            Some(&t),
            r#"{"results":[{"player":"a","rank":1},{"player":"b"}]}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::POST,
            url.clone(),
            Some(&t),
            r#"{"time":"yesterday","results":[{"player":"a","rank":1},{"player":"b","rank":2}]}"#
                .into(),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::POST,
            url.clone(),
            Some(&t),
            format!("{{\"results\":[], \"pad\":\"{}\"}}", "x".repeat(1_100_000)),
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
        (
            Method::POST,
            "/api/leagues".into(),
            None,
            r#"{"name":"x","system":"nope"}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::POST,
            "/api/leagues".into(),
            None,
            r#"{"name":"x","system":"sme","config":{"kk":1}}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::POST,
            "/api/leagues".into(),
            None,
            r#"{"name":"","system":"sme"}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::POST,
            "/api/leagues".into(),
            None,
            "nope".into(),
            StatusCode::BAD_REQUEST,
        ),
        (
            Method::PATCH,
            format!("/api/leagues/{id}"),
            Some(&t),
            r#"{"system":"nope"}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::PATCH,
            format!("/api/leagues/{id}"),
            Some(&t),
            r#"{"config":{"k":"-x"}}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            Method::PUT,
            format!("{url}/missing"),
            Some(&t),
            game("missing", &[("a", 1), ("b", 2)]),
            StatusCode::NOT_FOUND,
        ),
        (
            Method::DELETE,
            format!("{url}/missing"),
            Some(&t),
            String::new(),
            StatusCode::NOT_FOUND,
        ),
        (
            Method::GET,
            "/api/leagues/999/leaderboard".into(),
            None,
            String::new(),
            StatusCode::NOT_FOUND,
        ),
        (
            Method::GET,
            "/api/leagues/abc".into(),
            None,
            String::new(),
            StatusCode::NOT_FOUND,
        ),
        (
            Method::GET,
            "/api/nothing".into(),
            None,
            String::new(),
            StatusCode::NOT_FOUND,
        ),
        (
            Method::DELETE,
            "/api/leagues".into(),
            None,
            String::new(),
            StatusCode::METHOD_NOT_ALLOWED,
        ),
    ];
    for (method, path, token, body, want) in cases {
        let r = call(&app, method.clone(), &path, token, Some(&body)).await;
        assert_eq!(
            r.status,
            want,
            "{method} {path} {}: {}",
            &body[..body.len().min(80)],
            r.text
        );
        assert!(!r.error().is_empty());
    }
    // Nothing of the above was stored.
    let r = call(&app, Method::GET, &url, None, None).await;
    assert_eq!(r.text, "");
}

#[tokio::test]
async fn corrections_voids_and_reconfiguration_recompute() {
    let app = app();
    let (id, t) = create(&app, json!({"name": "A", "system": "sme"})).await;
    let url = format!("/api/leagues/{id}/matches");
    for (k, g) in [
        ("g1", [("ann", 1), ("bo", 2)]),
        ("g2", [("bo", 1), ("cy", 2)]),
    ] {
        let r = call(&app, Method::POST, &url, Some(&t), Some(&game(k, &g))).await;
        assert_eq!(r.status, StatusCode::CREATED);
    }
    let rating = |board: &Value, p: &str| {
        board
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player"] == p)
            .map(|r| r["rating"].as_f64().unwrap())
    };
    let board_url = format!("/api/leagues/{id}/leaderboard");

    // Unknown players in a correction are refused unless allowed.
    let r = call(
        &app,
        Method::PUT,
        &format!("{url}/g2"),
        Some(&t),
        Some(&game("g2", &[("bo", 1), ("zed", 2)])),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.error().contains("zed"));
    let r = call(
        &app,
        Method::PUT,
        &format!("{url}/g2"),
        Some(&t),
        Some(&game("other", &[("bo", 1), ("cy", 2)])),
    )
    .await;
    assert_eq!(
        r.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "the body's id must be the address's"
    );
    let r = call(
        &app,
        Method::PUT,
        &format!("{url}/g2"),
        Some(&t),
        Some(&game("g2", &[("cy", 1), ("bo", 2)])),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["status"], "corrected");
    let board = call(&app, Method::GET, &board_url, None, None).await.json();
    let mut offline = podium::League::new(podium::system("sme", &podium::Settings::new()).unwrap());
    offline
        .apply(&podium::Match::ranked("g1", &["ann", "bo"]).unwrap())
        .unwrap();
    offline
        .apply(&podium::Match::ranked("g2", &["cy", "bo"]).unwrap())
        .unwrap();
    for p in ["ann", "bo", "cy"] {
        let want = offline.get(p).unwrap().rating.value;
        assert!((rating(&board, p).unwrap() - want).abs() < 1e-9, "{p}");
    }

    let r = call(&app, Method::DELETE, &format!("{url}/g1"), Some(&t), None).await;
    assert_eq!(r.status, StatusCode::OK);
    let board = call(&app, Method::GET, &board_url, None, None).await.json();
    assert_eq!(rating(&board, "ann"), None);
    assert!((rating(&board, "bo").unwrap() - 1484.0).abs() < 1e-9);
    let r = call(&app, Method::GET, &format!("{url}/g1"), None, None).await;
    assert_eq!(r.json()["voided"], true);

    let r = call(
        &app,
        Method::PATCH,
        &format!("/api/leagues/{id}"),
        Some(&t),
        Some(r#"{"system":"elo","config":{"k":10}}"#),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["system"], "elo");
    let board = call(&app, Method::GET, &board_url, None, None).await.json();
    assert!((rating(&board, "cy").unwrap() - 1505.0).abs() < 1e-9);

    let r = call(&app, Method::GET, "/api/leagues", None, None).await;
    assert_eq!(r.json()[0]["matches"], 1);
}

/// Every route of the router is in the OpenAPI document and every documented operation
/// is routed: requests to each answer something other than "no route".
#[tokio::test]
async fn openapi_matches_the_routes() {
    let app = app();
    let doc = call(&app, Method::GET, "/api/openapi.json", None, None)
        .await
        .json();
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    let mut documented: Vec<(String, String)> = paths
        .iter()
        .flat_map(|(p, ops)| {
            ops.as_object()
                .unwrap()
                .keys()
                .map(move |m| (p.clone(), m.to_uppercase()))
        })
        .collect();
    let mut routed: Vec<(String, String)> = api_routes()
        .into_iter()
        .flat_map(|(p, ms)| ms.into_iter().map(move |m| (p.to_string(), m.to_string())))
        .collect();
    documented.sort();
    routed.sort();
    assert_eq!(documented, routed);

    let (id, t) = create(&app, json!({"name": "A", "system": "sme"})).await;
    let r = call(
        &app,
        Method::POST,
        &format!("/api/leagues/{id}/matches"),
        Some(&t),
        Some(&game("g1", &[("ann", 1), ("bo", 2)])),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
    for (path, method) in documented {
        let uri = path
            .replace("{id}", &id.to_string())
            .replace("{player}", "ann")
            .replace("{match}", "g1")
            .replace("{n}", "1");
        let uri = if uri.ends_with("/versus") {
            format!("{uri}?a=ann&b=bo")
        } else {
            uri
        };
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let body = match method {
            Method::POST if uri == "/api/leagues" => json!({"name": "B"}).to_string(),
            Method::POST if uri.ends_with("/seasons") => {
                json!({"name": "Spring", "reset": {"kind": "none"}}).to_string()
            }
            Method::POST if uri.ends_with("/balance") => {
                json!({"players": ["ann", "bo"], "teams": 2}).to_string()
            }
            Method::POST | Method::PUT => game("g1", &[("ann", 1), ("bo", 2)]),
            Method::PATCH => "{}".into(),
            _ => String::new(),
        };
        let r = call(&app, method.clone(), &uri, Some(&t), Some(&body)).await;
        assert!(
            r.status.is_success(),
            "{method} {uri}: {} {}",
            r.status,
            r.text
        );
    }
    // Bodies of documented errors are JSON errors.
    let r = call(&app, Method::GET, "/api/leagues/1/players/x", None, None).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    r.error();
}

#[tokio::test]
async fn pages_are_served_offline() {
    let app = app();
    for path in ["/", "/leagues/1", "/leagues/1/players/ann"] {
        let r = call(&app, Method::GET, path, None, None).await;
        assert_eq!(r.status, StatusCode::OK, "{path}");
        assert!(r.content_type.starts_with("text/html"));
        assert!(r.text.contains("/static/app.js"));
        assert!(r.text.contains("viewport"), "phone-friendly viewport");
    }
    for (path, ty) in [
        ("/static/app.js", "text/javascript"),
        ("/static/app.css", "text/css"),
    ] {
        let r = call(&app, Method::GET, path, None, None).await;
        assert_eq!(r.status, StatusCode::OK);
        assert!(r.content_type.starts_with(ty));
        assert!(
            !r.text.contains("http://") || !r.text.contains("cdn"),
            "no external resources"
        );
        assert!(
            !r.text.contains("https://"),
            "no external resources in {path}"
        );
    }
}

/// A GET with extra request headers; status, response headers and the raw body.
async fn get_with(
    app: &Router,
    uri: &str,
    headers: &[(header::HeaderName, &str)],
) -> (StatusCode, header::HeaderMap, Vec<u8>) {
    let mut req = Request::builder().method(Method::GET).uri(uri);
    for (k, v) in headers {
        req = req.header(k, *v);
    }
    let res = app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let (parts, body) = res.into_parts();
    let bytes = axum::body::to_bytes(body, 64 << 20).await.unwrap();
    (parts.status, parts.headers, bytes.to_vec())
}

fn hdr(h: &header::HeaderMap, name: header::HeaderName) -> Option<&str> {
    h.get(name).map(|v| v.to_str().unwrap())
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

async fn league_with_games(app: &Router) -> (i64, String) {
    let (id, t) = create(app, json!({"name": "Z", "system": "sme"})).await;
    let url = format!("/api/leagues/{id}/matches");
    for (k, g) in [
        ("g1", [("ann", 1), ("bo", 2), ("cy", 3)]),
        ("g2", [("bo", 1), ("cy", 2), ("dee", 3)]),
        ("g3", [("dee", 1), ("ann", 2), ("bo", 3)]),
    ] {
        let r = call(app, Method::POST, &url, Some(&t), Some(&game(k, &g))).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    (id, t)
}

#[tokio::test]
async fn full_leaderboard_compressed_copies_decode_to_the_identity_body() {
    let app = app();
    let (id, _) = league_with_games(&app).await;
    let url = format!("/api/leagues/{id}/leaderboard");
    let (status, h, plain) = get_with(&app, &url, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(hdr(&h, header::CONTENT_ENCODING), None);
    assert_eq!(hdr(&h, header::CONTENT_TYPE), Some("application/json"));
    assert_eq!(hdr(&h, header::VARY), Some("accept-encoding"));
    assert_eq!(
        hdr(&h, header::HeaderName::from_static("x-total-count")),
        Some("4")
    );
    assert_eq!(
        hdr(&h, header::CONTENT_LENGTH),
        Some(plain.len().to_string().as_str()),
        "one buffer with its length, not a stream"
    );
    let rows: Value = serde_json::from_slice(&plain).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 4);
    let plain_tag = hdr(&h, header::ETAG).unwrap().to_string();
    assert!(
        plain_tag.starts_with('"') && plain_tag.ends_with('"'),
        "{plain_tag}"
    );

    let mut tags = vec![plain_tag.clone()];
    for (accept, coding) in [
        ("zstd", Some("zstd")),
        ("gzip", Some("gzip")),
        ("gzip, deflate, br, zstd", Some("zstd")),
        ("gzip;q=1, zstd;q=0.5", Some("gzip")),
        ("br", None),
        ("identity", None),
        ("zstd;q=0, gzip;q=0", None),
    ] {
        let (status, h, body) = get_with(&app, &url, &[(header::ACCEPT_ENCODING, accept)]).await;
        assert_eq!(status, StatusCode::OK, "{accept}");
        assert_eq!(hdr(&h, header::CONTENT_ENCODING), coding, "{accept}");
        assert_eq!(hdr(&h, header::VARY), Some("accept-encoding"), "{accept}");
        assert_eq!(hdr(&h, header::CONTENT_TYPE), Some("application/json"));
        let decoded = match coding {
            Some("zstd") => zstd::stream::decode_all(&body[..]).unwrap(),
            Some("gzip") => gunzip(&body),
            _ => body.clone(),
        };
        assert_eq!(
            decoded, plain,
            "{accept}: decodes to exactly the identity body"
        );
        let tag = hdr(&h, header::ETAG).unwrap().to_string();
        if coding.is_none() {
            assert_eq!(tag, plain_tag);
        } else if !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    assert_eq!(tags.len(), 3, "one tag per coding: {tags:?}");

    // Pages are small: sent as they are, without a tag.
    let (_, h, body) = get_with(
        &app,
        &format!("{url}?limit=2"),
        &[(header::ACCEPT_ENCODING, "zstd")],
    )
    .await;
    assert_eq!(hdr(&h, header::CONTENT_ENCODING), None);
    assert_eq!(hdr(&h, header::ETAG), None);
    let page: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(page.as_array().unwrap()[..], rows.as_array().unwrap()[..2]);
}

#[tokio::test]
async fn full_leaderboard_revalidates_with_its_etag() {
    let app = app();
    let (id, _) = league_with_games(&app).await;
    let url = format!("/api/leagues/{id}/leaderboard");
    let (_, h, _) = get_with(&app, &url, &[]).await;
    let tag = hdr(&h, header::ETAG).unwrap().to_string();
    assert_eq!(hdr(&h, header::CACHE_CONTROL), Some("no-cache"));

    let (status, h, body) = get_with(&app, &url, &[(header::IF_NONE_MATCH, &tag)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());
    assert_eq!(hdr(&h, header::ETAG), Some(tag.as_str()));
    assert_eq!(hdr(&h, header::VARY), Some("accept-encoding"));

    // The tag of another coding of the same board matches too (weak comparison), and the
    // 304 carries the tag of the coding that would have been sent.
    let (status, h, _) = get_with(
        &app,
        &url,
        &[
            (header::IF_NONE_MATCH, &format!("W/{tag}, \"other\"")),
            (header::ACCEPT_ENCODING, "zstd"),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    let zstd_tag = hdr(&h, header::ETAG).unwrap().to_string();
    assert_ne!(zstd_tag, tag);
    let (status, _, _) = get_with(&app, &url, &[(header::IF_NONE_MATCH, &zstd_tag)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    let (status, _, _) = get_with(&app, &url, &[(header::IF_NONE_MATCH, "*")]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);

    let (status, _, body) = get_with(&app, &url, &[(header::IF_NONE_MATCH, "\"stale\"")]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!body.is_empty());
}

/// Every kind of change to a league (append, void, correct, reconfigure) makes a new
/// full board: new bytes in every coding, new tag, no 304 for the old tag.
#[tokio::test]
async fn full_leaderboard_cache_follows_every_change() {
    let app = app();
    let (id, t) = league_with_games(&app).await;
    let url = format!("/api/leagues/{id}/leaderboard");
    let matches = format!("/api/leagues/{id}/matches");
    let (_, h, mut plain) = get_with(&app, &url, &[]).await;
    let mut tag = hdr(&h, header::ETAG).unwrap().to_string();
    // Make the compressed copies of the current board, so that a stale one would show.
    for coding in ["zstd", "gzip"] {
        get_with(&app, &url, &[(header::ACCEPT_ENCODING, coding)]).await;
    }
    let changes: [(Method, String, Option<String>); 4] = [
        (
            Method::POST,
            matches.clone(),
            Some(game("g4", &[("eve", 1), ("ann", 2)])),
        ),
        (Method::DELETE, format!("{matches}/g2"), None),
        (
            Method::PUT,
            format!("{matches}/g1"),
            Some(game("g1", &[("cy", 1), ("bo", 2), ("ann", 3)])),
        ),
        (
            Method::PATCH,
            format!("/api/leagues/{id}"),
            Some(r#"{"config":{"k":24}}"#.to_string()),
        ),
    ];
    for (method, uri, body) in changes {
        let what = format!("{method} {uri}");
        let r = call(&app, method, &uri, Some(&t), body.as_deref()).await;
        assert!(r.status.is_success(), "{what}: {} {}", r.status, r.text);

        let (status, _, _) = get_with(&app, &url, &[(header::IF_NONE_MATCH, &tag)]).await;
        assert_eq!(status, StatusCode::OK, "{what}: the old tag is stale");
        let (_, h, now) = get_with(&app, &url, &[]).await;
        assert_ne!(now, plain, "{what}: the board changed");
        let new_tag = hdr(&h, header::ETAG).unwrap().to_string();
        assert_ne!(new_tag, tag, "{what}");
        // The same as a page covering the whole board, which is never cached.
        let (_, _, page) = get_with(&app, &format!("{url}?limit=1000"), &[]).await;
        let as_values = |b: &[u8]| serde_json::from_slice::<Value>(b).unwrap();
        assert_eq!(as_values(&now), as_values(&page), "{what}");
        let (_, _, z) = get_with(&app, &url, &[(header::ACCEPT_ENCODING, "zstd")]).await;
        assert_eq!(
            zstd::stream::decode_all(&z[..]).unwrap(),
            now,
            "{what}: zstd copy"
        );
        let (_, _, g) = get_with(&app, &url, &[(header::ACCEPT_ENCODING, "gzip")]).await;
        assert_eq!(gunzip(&g), now, "{what}: gzip copy");
        (plain, tag) = (now, new_tag);
    }
}

/// A request with the given headers and body; the reply and its headers.
async fn send(
    app: &Router,
    method: Method,
    uri: &str,
    headers: &[(header::HeaderName, &str)],
    body: &str,
) -> (Reply, header::HeaderMap) {
    let mut req = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        req = req.header(k, *v);
    }
    let res = app
        .clone()
        .oneshot(req.body(Body::from(body.to_string())).unwrap())
        .await
        .unwrap();
    let (parts, body) = res.into_parts();
    let bytes = axum::body::to_bytes(body, 64 << 20).await.unwrap();
    let content_type = hdr(&parts.headers, header::CONTENT_TYPE)
        .unwrap_or_default()
        .to_string();
    (
        Reply {
            status: parts.status,
            content_type,
            text: String::from_utf8(bytes.to_vec()).unwrap(),
        },
        parts.headers,
    )
}

#[tokio::test]
async fn every_response_carries_the_browser_protections() {
    let app = app();
    for path in [
        "/",
        "/leagues/1",
        "/static/app.js",
        "/static/app.css",
        "/api/leagues",
        "/api/leagues/7/leaderboard",
        "/api/nothing",
    ] {
        let (_, h, _) = get_with(&app, path, &[]).await;
        let csp = hdr(&h, header::CONTENT_SECURITY_POLICY).unwrap_or_else(|| panic!("{path}"));
        for part in [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "connect-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(part), "{path}: {csp}");
        }
        assert!(!csp.contains("unsafe"), "{path}: {csp}");
        assert_eq!(
            hdr(&h, header::X_CONTENT_TYPE_OPTIONS),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(hdr(&h, header::X_FRAME_OPTIONS), Some("DENY"), "{path}");
        assert_eq!(
            hdr(&h, header::REFERRER_POLICY),
            Some("no-referrer"),
            "{path}"
        );
    }
    // The pages run only code from files, which the policy allows: no inline script,
    // style or event handler.
    let (_, _, html) = get_with(&app, "/", &[]).await;
    let html = String::from_utf8(html).unwrap();
    assert!(
        !html.contains("style=") && !html.contains("<style"),
        "{html}"
    );
    assert!(!html.contains(" on"), "{html}");
    for script in html.split("<script").skip(1) {
        assert!(script.trim_start().starts_with("src="), "{script}");
        assert!(script.contains("></script>"), "{script}");
    }
    let (_, _, js) = get_with(&app, "/static/app.js", &[]).await;
    let js = String::from_utf8(js).unwrap();
    for inline in [
        "style:",
        "\"style\"",
        ".style",
        "cssText",
        "eval(",
        "new Function",
    ] {
        assert!(!js.contains(inline), "app.js sets {inline}");
    }
}

/// Writes read JSON only: a text or form body (which any site can make a browser send)
/// gets 415 and changes nothing.
#[tokio::test]
async fn writes_take_json_bodies_only() {
    let app = app();
    let (id, t) = create(&app, json!({"name": "A"})).await;
    let auth = format!("Bearer {t}");
    let league = json!({"name": "B"}).to_string();
    let one = game("g1", &[("ann", 1), ("bo", 2)]);
    let matches = format!("/api/leagues/{id}/matches");
    let cases = [
        (Method::POST, "/api/leagues".to_string(), league.clone()),
        (Method::POST, matches.clone(), one.clone()),
        (Method::PUT, format!("{matches}/g1"), one.clone()),
        (
            Method::PATCH,
            format!("/api/leagues/{id}"),
            r#"{"name":"C"}"#.to_string(),
        ),
    ];
    for (method, uri, body) in cases {
        for ct in [
            None,
            Some("text/plain"),
            Some("text/plain;charset=UTF-8"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
        ] {
            let mut headers = vec![(header::AUTHORIZATION, auth.as_str())];
            if let Some(ct) = ct {
                headers.push((header::CONTENT_TYPE, ct));
            }
            let (r, _) = send(&app, method.clone(), &uri, &headers, &body).await;
            assert_eq!(
                r.status,
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "{method} {uri} {ct:?}: {}",
                r.text
            );
            assert!(r.error().contains("application/json"), "{}", r.error());
        }
    }
    let r = call(&app, Method::GET, "/api/leagues", None, None).await;
    assert_eq!(r.json().as_array().unwrap().len(), 1, "no league made");
    assert_eq!(r.json()[0]["name"], "A");
    let r = call(&app, Method::GET, &matches, None, None).await;
    assert_eq!(r.text, "", "no match stored");
}

#[tokio::test]
async fn only_the_admin_token_creates_leagues_when_there_is_one() {
    let app = app_with(Limits::default(), Access::token("server-secret-0123456789"));
    let body = json!({"name": "A"}).to_string();
    for token in [None, Some("wrong"), Some("pdm_0000")] {
        let r = call(&app, Method::POST, "/api/leagues", token, Some(&body)).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{token:?}");
        assert!(r.error().contains("admin token"), "{}", r.error());
    }
    let r = call(
        &app,
        Method::POST,
        "/api/leagues",
        Some("server-secret-0123456789"),
        Some(&body),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // The league's own token still works for the league, not for creating leagues.
    let league_token = r.json()["admin_token"].as_str().unwrap().to_string();
    let r = call(
        &app,
        Method::POST,
        "/api/leagues",
        Some(&league_token),
        Some(&body),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = call(
        &app,
        Method::POST,
        "/api/leagues/1/matches",
        Some(&league_token),
        Some(&game("g1", &[("ann", 1), ("bo", 2)])),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
}

#[tokio::test]
async fn an_open_server_creates_a_bounded_number_of_leagues_per_hour() {
    let limits = Limits {
        leagues_per_hour: 3,
        ..Limits::default()
    };
    let app = app_with(limits, Access::Open);
    for k in 0..3 {
        create(&app, json!({"name": format!("L{k}")})).await;
    }
    let (r, h) = send(
        &app,
        Method::POST,
        "/api/leagues",
        &[(header::CONTENT_TYPE, "application/json")],
        &json!({"name": "one too many"}).to_string(),
    )
    .await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text);
    assert!(r.error().contains("3 leagues per hour"), "{}", r.error());
    let wait: u64 = hdr(&h, header::RETRY_AFTER).unwrap().parse().unwrap();
    assert!((3000..=3600).contains(&wait), "{wait}");
}

#[tokio::test]
async fn limits_bound_players_per_match_and_matches_per_request() {
    let limits = Limits {
        max_players: 5,
        max_batch: 3,
        ..Limits::default()
    };
    let app = app_with(limits, Access::Open);
    let (id, t) = create(&app, json!({"name": "A"})).await;
    let url = format!("/api/leagues/{id}/matches");
    let six: Vec<(&str, u32)> = vec![("a", 1), ("b", 2), ("c", 3), ("d", 4), ("e", 5), ("f", 6)];
    let r = call(&app, Method::POST, &url, Some(&t), Some(&game("big", &six))).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert!(
        r.error().contains("6 players") && r.error().contains("at most 5"),
        "{}",
        r.error()
    );
    let r = call(
        &app,
        Method::PUT,
        &format!("{url}/big"),
        Some(&t),
        Some(&game("big", &six)),
    )
    .await;
    assert_eq!(
        r.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "a correction is bounded the same way"
    );
    assert!(r.error().contains("at most 5"), "{}", r.error());
    // An array of matches: each answered in order, with its own code.
    let batch = format!(
        "[{},{},{}]",
        game("m1", &[("a", 1), ("b", 2)]),
        game("m1", &[("a", 2), ("b", 1)]),
        game("m2", &six[..5]),
    );
    let r = call(&app, Method::POST, &url, Some(&t), Some(&batch)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let answers = r.json();
    let codes: Vec<u64> = answers
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["code"].as_u64().unwrap())
        .collect();
    assert_eq!(codes, [201, 409, 201]);
    assert_eq!(answers[0]["match"], "m1");
    assert!(answers[1]["error"].as_str().unwrap().contains("m1"));
    let too_many = format!("[{}]", vec![game("x", &[("a", 1), ("b", 2)]); 4].join(","));
    let r = call(&app, Method::POST, &url, Some(&t), Some(&too_many)).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", r.text);
    assert!(r.error().contains("at most 3 matches"), "{}", r.error());
    let too_big = format!("[{}]", game("y", &six));
    let r = call(&app, Method::POST, &url, Some(&t), Some(&too_big)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert!(r.error().contains("match 0 of the array"), "{}", r.error());
    let r = call(&app, Method::GET, &url, None, None).await;
    assert_eq!(r.text.lines().count(), 2);
}

/// A 900 KB match id is refused with a message that repeats only its start.
#[tokio::test]
async fn errors_do_not_echo_large_inputs() {
    let app = app();
    let (id, t) = create(&app, json!({"name": "A"})).await;
    let key = "k".repeat(900_000);
    let r = call(
        &app,
        Method::POST,
        &format!("/api/leagues/{id}/matches"),
        Some(&t),
        Some(&game(&key, &[("ann", 1), ("bo", 2)])),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.text.len() < 1_000, "{} bytes", r.text.len());
    assert!(r.error().contains("900000 bytes"), "{}", r.error());
    let r = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/players/{}", "p".repeat(30_000)),
        None,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(r.text.len() < 1_000, "{} bytes", r.text.len());
}

/// A league not loaded yet answers 503 with Retry-After, is listed as not ready, and is
/// served once loaded.
#[tokio::test]
async fn a_league_answers_503_until_it_is_loaded() {
    let store = Arc::new(SqliteStore::temporary().unwrap());
    let (id, token) = {
        let leagues = Leagues::open_loaded(store.clone(), Options::default()).unwrap();
        let (info, token) = leagues
            .create_league(&podium_store::NewLeague {
                name: "A".into(),
                system: "sme".into(),
                config: podium::Settings::new(),
            })
            .unwrap();
        (info.id, token)
    };
    let leagues = Leagues::open(store, Options::default()).unwrap();
    let app = router(AppState::new(
        leagues.clone(),
        Limits::default(),
        Access::Open,
    ));
    for (method, uri, body) in [
        (Method::GET, format!("/api/leagues/{id}/leaderboard"), None),
        (Method::GET, format!("/api/leagues/{id}/players/ann"), None),
        (
            Method::POST,
            format!("/api/leagues/{id}/matches"),
            Some(game("g1", &[("ann", 1), ("bo", 2)])),
        ),
    ] {
        let mut headers = vec![(header::AUTHORIZATION, format!("Bearer {token}"))];
        if body.is_some() {
            headers.push((header::CONTENT_TYPE, "application/json".into()));
        }
        let headers: Vec<(header::HeaderName, &str)> = headers
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str()))
            .collect();
        let (r, h) = send(
            &app,
            method.clone(),
            &uri,
            &headers,
            body.as_deref().unwrap_or(""),
        )
        .await;
        assert_eq!(
            r.status,
            StatusCode::SERVICE_UNAVAILABLE,
            "{method} {uri}: {}",
            r.text
        );
        assert!(r.error().contains("being loaded"), "{}", r.error());
        assert_eq!(hdr(&h, header::RETRY_AFTER), Some("1"));
    }
    let list = call(&app, Method::GET, "/api/leagues", None, None)
        .await
        .json();
    assert_eq!(list[0]["ready"], false);
    // The server is alive, not ready: a load balancer sends it nothing yet.
    assert_eq!(
        call(&app, Method::GET, "/healthz", None, None).await.status,
        StatusCode::OK
    );
    let (r, h) = send(&app, Method::GET, "/readyz", &[], "").await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(r.json()["loading"], json!([id]));
    assert_eq!(r.json()["database"], "ok");
    assert_eq!(hdr(&h, header::RETRY_AFTER), Some("1"));
    leagues.load(id).unwrap();
    let r = call(&app, Method::GET, "/readyz", None, None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["ready"], true);
    let list = call(&app, Method::GET, "/api/leagues", None, None)
        .await
        .json();
    assert_eq!(list[0]["ready"], true);
    let r = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/leaderboard"),
        None,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
}

/// A game whose rows give factors: `(player, place, factors)`.
fn factored_game(id: &str, rows: &[(&str, u32, Value)]) -> String {
    json!({
        "id": id,
        "results": rows.iter().map(|(p, r, f)| json!({"player": p, "rank": r, "factors": f})).collect::<Vec<_>>(),
    })
    .to_string()
}

/// Factors go in with a match, come back in the factors' table, count for retries,
/// are refused with the field named when bad, and refused outright (nothing stored) by
/// a league whose system does not rate them.
#[tokio::test]
async fn factors_are_entered_rated_and_tabled() {
    let app = app();
    let (id, token) = create(&app, json!({"name": "Grand prix", "system": "pairwise"})).await;
    let url = format!("/api/leagues/{id}/matches");
    let r1 = factored_game(
        "r1",
        &[
            ("ann", 1, json!({"car": "red", "seat": 1})),
            ("bo", 2, json!({"car": "blue", "seat": 2})),
        ],
    );
    let r = call(&app, Method::POST, &url, Some(&token), Some(&r1)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let v = r.json();
    assert_eq!(
        v["result"]["results"][0]["factors"],
        json!({"car": "red", "seat": "1"})
    );
    // pairwise, K = 32: the winner's factors gain K/2 each, the loser's lose it.
    let moved: Vec<(String, f64)> = v["factor_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                format!(
                    "{}={}",
                    c["kind"].as_str().unwrap(),
                    c["value"].as_str().unwrap()
                ),
                c["delta"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(moved.len(), 4, "{v}");
    for (f, d) in &moved {
        let want = if f == "car=red" || f == "seat=1" {
            16.0
        } else {
            -16.0
        };
        assert!((d - want).abs() < 1e-9, "{f}: {d}");
    }

    // The same match again (rows in another order): 200; other factors: 409.
    let same = factored_game(
        "r1",
        &[
            ("bo", 2, json!({"seat": "2", "car": "blue"})),
            ("ann", 1, json!({"car": "red", "seat": 1})),
        ],
    );
    let r = call(&app, Method::POST, &url, Some(&token), Some(&same)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["status"], "duplicate");
    let other = factored_game(
        "r1",
        &[
            ("ann", 1, json!({"car": "blue"})),
            ("bo", 2, json!({"car": "red"})),
        ],
    );
    let r = call(&app, Method::POST, &url, Some(&token), Some(&other)).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);

    // The factors' table.
    let r = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/factors"),
        None,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let table = r.json();
    let rows: Vec<(String, String, f64, u64, f64)> = table
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap().into(),
                f["value"].as_str().unwrap().into(),
                f["rating"].as_f64().unwrap(),
                f["matches"].as_u64().unwrap(),
                f["win_pct"].as_f64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("car", "red", 16.0, 1, 100.0),
        ("car", "blue", -16.0, 1, 0.0),
        ("seat", "1", 16.0, 1, 100.0),
        ("seat", "2", -16.0, 1, 0.0),
    ];
    assert_eq!(rows.len(), want.len(), "{table}");
    for (got, want) in rows.iter().zip(want) {
        assert_eq!(
            (got.0.as_str(), got.1.as_str(), got.3),
            (want.0, want.1, want.3)
        );
        assert!(
            (got.2 - want.2).abs() < 1e-9 && (got.4 - want.4).abs() < 1e-9,
            "{got:?}"
        );
    }
    // The match and the export carry them; the export as fields of each row.
    let r = call(&app, Method::GET, &format!("{url}/r1"), None, None).await;
    assert_eq!(r.json()["factor_changes"].as_array().unwrap().len(), 4);
    let r = call(&app, Method::GET, &url, None, None).await;
    let line: Value = serde_json::from_str(r.text.lines().next().unwrap()).unwrap();
    assert_eq!(
        line["results"][0],
        json!({"player": "ann", "rank": 1.0, "car": "red", "seat": "1"})
    );

    // Bad factors: 422 naming the field; nothing stored.
    for (rows, field) in [
        (
            vec![
                ("ann", 1, json!({})),
                ("bo", 2, json!({})),
                ("cy", 3, json!({"car": ""})),
            ],
            "`results[2].factors.car`",
        ),
        (
            vec![("ann", 1, json!({"player": "x"})), ("bo", 2, json!({}))],
            "`results[0].factors`: factor kind \"player\"",
        ),
        (
            vec![("ann", 1, json!({"seat": true})), ("bo", 2, json!({}))],
            "factor \"seat\": true is not valid, expected a factor value: a string of 1 to 200 bytes",
        ),
    ] {
        let body = factored_game("bad", &rows);
        let r = refused(&app, Method::POST, &url, Some(&token), Some(&body)).await;
        assert!(r.error().contains(field), "{}", r.error());
    }
    // Two rows of one team that disagree.
    let team = json!({"id": "bad", "results": [
        {"player": "ann", "rank": 1, "team": "t", "factors": {"car": "red"}},
        {"player": "al", "rank": 1, "team": "t", "factors": {"car": "blue"}},
        {"player": "bo", "rank": 2}]});
    let r = call(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&team.to_string()),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        r.error()
            .contains("`results[1].factors.car`: \"blue\" differs from \"red\""),
        "{}",
        r.error()
    );
    let info = call(&app, Method::GET, &format!("/api/leagues/{id}"), None, None)
        .await
        .json();
    assert_eq!(info["matches"], 1);

    // A league whose system does not rate factors: 422, nothing stored.
    let (plain, plain_token) =
        create(&app, json!({"name": "Plain", "system": "proportional"})).await;
    let plain_url = format!("/api/leagues/{plain}/matches");
    let r = refused(
        &app,
        Method::POST,
        &plain_url,
        Some(&plain_token),
        Some(&r1),
    )
    .await;
    assert!(
        r.error()
            .contains("system proportional does not rate factors"),
        "{}",
        r.error()
    );
    let r = call(&app, Method::GET, &plain_url, None, None).await;
    assert_eq!(r.text, "");
    let r = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{plain}/factors"),
        None,
        None,
    )
    .await;
    assert_eq!(r.json(), json!([]));
    // Nor may the factored league switch to such a system.
    let r = refused(
        &app,
        Method::PATCH,
        &format!("/api/leagues/{id}"),
        Some(&token),
        Some(&json!({"system": "proportional"}).to_string()),
    )
    .await;
    assert!(r.error().contains("does not rate factors"), "{}", r.error());
}

/// A league to which bad matches are posted: its url and token.
async fn posting_league(app: &Router) -> (String, String) {
    let (id, token) = create(app, json!({"name": "F", "system": "pairwise"})).await;
    (format!("/api/leagues/{id}/matches"), token)
}

/// Kinds that name a field of the body or a column of the CSV format, in any case, were
/// accepted and then could not be read back from the export: refused with the readers'
/// words, and nothing stored.
#[tokio::test]
async fn factor_kind_named_like_a_field_is_refused_everywhere() {
    let app = app();
    let (url, token) = posting_league(&app).await;
    for kind in [
        "match", "time", "id", "results", "Player", "Rank", "SCORE", "Team", "Weight", "Factors",
    ] {
        let rows = [("ann", 1, json!({kind: "x"})), ("bo", 2, json!({}))];
        let r = refused(
            &app,
            Method::POST,
            &url,
            Some(&token),
            Some(&factored_game("bad", &rows)),
        )
        .await;
        assert_eq!(
            r.error(),
            format!("invalid match: match \"bad\", field `results[0].factors`: factor kind {kind:?} is not valid, expected a factor kind that is not the name of a column or field podium reads itself (match, id, time, results, player, rank, score, team, weight, factors, in any case)")
        );
    }
    // Values the command line used to take and the server refused: refused by both.
    for value in [
        json!(2.5),
        json!(1e300),
        json!(null),
        json!(" "),
        json!("a\tb"),
    ] {
        let rows = [("ann", 1, json!({"seat": value})), ("bo", 2, json!({}))];
        let r = refused(
            &app,
            Method::POST,
            &url,
            Some(&token),
            Some(&factored_game("bad", &rows)),
        )
        .await;
        assert!(r.error().contains("expected a factor value: a string of 1 to 200 bytes without surrounding spaces or control characters, or a whole number from -9223372036854775808 to 18446744073709551615"), "{}", r.error());
    }
    let r = call(&app, Method::GET, &url, None, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.text.is_empty(), "{}", r.text);
}

/// A player id of half a megabyte was stored, and its player page then answered 414.
#[tokio::test]
async fn player_id_longer_than_the_limit_is_refused() {
    let app = app();
    let (url, token) = posting_league(&app).await;
    let long = "p".repeat(500_000);
    let r = refused(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&game("g1", &[("ann", 1), (&long, 2)])),
    )
    .await;
    assert!(r.text.len() < 1_000, "{} bytes", r.text.len());
    assert!(
        r.error().starts_with(
            "invalid match: match \"g1\", field `results[1].player`: player id \"pppp"
        ),
        "{}",
        r.error()
    );
    assert!(r.error().contains("(500000 bytes) is not valid, expected 1 to 200 bytes without surrounding spaces or control characters"), "{}", r.error());
    for bad in ["a\u{0}b", "a\nb"] {
        let r = refused(
            &app,
            Method::POST,
            &url,
            Some(&token),
            Some(&game("g2", &[("ann", 1), (bad, 2)])),
        )
        .await;
        assert!(
            r.error().contains("field `results[1].player`"),
            "{}",
            r.error()
        );
    }
    let longest = "p".repeat(200);
    let r = call(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&game("g3", &[("ann", 1), (&longest, 2)])),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
}

/// What the server accepts, its export gives back to the command line's reader: every
/// match, with its factors, read with the kinds as `--factor`.
#[tokio::test]
async fn what_the_server_accepts_its_export_reads_back() {
    let app = app();
    let (url, token) = posting_league(&app).await;
    let games = [
        factored_game(
            "r1",
            &[
                ("ann", 1, json!({"car": "red", "Seat": 1, "matchday": "3"})),
                (
                    "Kimi Räikkönen",
                    2,
                    json!({"car": "McLaren F1", "Seat": 18_446_744_073_709_551_615_u64}),
                ),
                ("^1Sarge^7", 3, json!({})),
            ],
        ),
        factored_game(
            "r2",
            &[
                ("ann", 2, json!({"car": "blue", "Seat": -3})),
                ("bo", 1, json!({"car": "red"})),
            ],
        ),
    ];
    let mut sent = Vec::new();
    for g in &games {
        let r = call(&app, Method::POST, &url, Some(&token), Some(g)).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let stored: podium_store::LedgerMatch =
            serde_json::from_value(r.json()["result"].clone()).unwrap();
        sent.push(stored.to_match().unwrap());
    }
    let r = call(&app, Method::GET, &url, None, None).await;
    assert_eq!(r.status, StatusCode::OK);
    // `Seat` is kept as `seat`, the one spelling of a kind.
    let options = podium_io::ReadOptions::with_factors(["car", "seat", "matchday"]);
    options.check().unwrap();
    let back: Vec<podium::Match> =
        podium_io::JsonlMatches::with_options("export.jsonl", r.text.as_bytes(), &options)
            .collect::<Result<_, _>>()
            .unwrap();
    assert_eq!(back.len(), sent.len());
    for (got, want) in back.iter().zip(&sent) {
        // Factors of an entry come back in the order of `--factor`: compare them as sets.
        assert_eq!(
            podium_store::LedgerMatch::from_match(got),
            podium_store::LedgerMatch::from_match(want)
        );
    }
}

/// Ends every session on database `name` of `server`, as a restart of the server
/// would, and waits (bounded) until they are gone.
fn end_sessions(server: &str, name: &str) {
    let mut admin = server
        .parse::<postgres::Config>()
        .unwrap()
        .connect(postgres::NoTls)
        .unwrap();
    let ended = admin
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            &[&name],
        )
        .unwrap();
    assert!(!ended.is_empty(), "no session to end");
    for _ in 0..500 {
        let left: i64 = admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1",
                &[&name],
            )
            .unwrap()
            .get(0);
        if left == 0 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the sessions of {name} did not end");
}

/// A lost PostgreSQL connection (the server restarted, its sessions ended) is the
/// database out of reach for a moment, not a broken league: a write answers 503 with
/// `Retry-After`, never 500; the league is still served as it was meanwhile, and once
/// connections are made again its writes go on from where it was.
#[tokio::test(flavor = "multi_thread")]
async fn a_postgres_restart_answers_503_and_keeps_the_league() {
    let server = postgres_server();
    let name = format!("podium_api_restart_{}", std::process::id());
    let (s, n) = (server.clone(), name.clone());
    let url = tokio::task::spawn_blocking(move || podium_store::PgStore::create_database(&s, &n))
        .await
        .unwrap()
        .unwrap();
    // The PostgreSQL client blocks: it is kept off the runtime's threads, as the server
    // keeps it.
    let open = |url: String| async move {
        let leagues = tokio::task::spawn_blocking(move || {
            Leagues::open_loaded(podium_server::open_store(&url).unwrap(), Options::default())
                .unwrap()
        })
        .await
        .unwrap();
        router(AppState::new(leagues, Limits::default(), Access::Open))
    };
    let app = open(url.clone()).await;
    let (id, token) = league_with_games(&app).await;
    let board_url = format!("/api/leagues/{id}/leaderboard");
    let before = call(&app, Method::GET, &board_url, None, None).await;
    assert_eq!(before.status, StatusCode::OK, "{}", before.text);

    let (s, n) = (server.clone(), name.clone());
    tokio::task::spawn_blocking(move || end_sessions(&s, &n))
        .await
        .unwrap();
    let during = call(&app, Method::GET, &board_url, None, None).await;
    assert_eq!(during.status, StatusCode::OK, "{}", during.text);
    assert_eq!(during.text, before.text);

    let bearer = format!("Bearer {token}");
    let headers = [
        (header::AUTHORIZATION, bearer.as_str()),
        (header::CONTENT_TYPE, "application/json"),
    ];
    let body = game("g4", &[("cy", 1), ("ann", 2)]);
    let url_matches = format!("/api/leagues/{id}/matches");
    let mut statuses = Vec::new();
    for _ in 0..50 {
        let (r, h) = send(&app, Method::POST, &url_matches, &headers, &body).await;
        statuses.push(r.status.as_u16());
        match r.status {
            StatusCode::SERVICE_UNAVAILABLE => {
                assert_eq!(hdr(&h, header::RETRY_AFTER), Some("1"));
                assert!(r.error().contains("unavailable"), "{}", r.error());
                let board = call(&app, Method::GET, &board_url, None, None).await;
                assert_eq!(board.text, before.text);
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            StatusCode::CREATED => break,
            other => panic!("{other}: {}", r.text),
        }
    }
    // The first write met a lost connection; a later one a new connection.
    assert_eq!(statuses.first(), Some(&503), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&201), "{statuses:?}");

    // The board served is the ledger's, rated afresh.
    let after = call(&app, Method::GET, &board_url, None, None).await;
    let fresh = open(url).await;
    let replayed = call(&fresh, Method::GET, &board_url, None, None).await;
    assert_eq!(after.json(), replayed.json());
    let games: u64 = after
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["games"].as_u64().unwrap())
        .sum();
    assert_eq!(games, 3 * 3 + 2);
    tokio::task::spawn_blocking(move || drop(fresh))
        .await
        .unwrap();
    common::drop_postgres(app, &name).await;
}

/// A server on a port of loopback with these timeouts, stopped by `stop`.
struct Running {
    addr: std::net::SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<()>,
}

async fn serving(timeouts: podium_server::Timeouts) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let done = tokio::spawn(podium_server::serve_on(
        listener,
        app(),
        timeouts,
        async move {
            let _ = stopped.await;
        },
    ));
    Running {
        addr,
        stop: Some(stop),
        done,
    }
}

/// Timeouts long enough never to matter in a test but for those it changes.
fn long_timeouts() -> podium_server::Timeouts {
    let minute = std::time::Duration::from_secs(60);
    podium_server::Timeouts {
        headers: minute,
        body: minute,
        idle: minute,
        shutdown_grace: minute,
    }
}

/// A hang guard, not a measure: what a test waits at most for something that must
/// happen.
const HANG_GUARD: std::time::Duration = std::time::Duration::from_secs(30);

/// Reads what the server sends until it closes the connection (an end of stream, or a
/// reset); fails if it is still open after [`HANG_GUARD`].
fn read_until_closed(s: &mut std::net::TcpStream) -> String {
    use std::io::Read;
    s.set_read_timeout(Some(HANG_GUARD)).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("the server kept the connection open: {e}"),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Connects and sends `bytes`, then nothing more.
fn stall_after(addr: std::net::SocketAddr, bytes: &str) -> std::net::TcpStream {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(bytes.as_bytes()).unwrap();
    s
}

/// One whole request on a connection of its own: the response's status line.
fn get_status_line(addr: std::net::SocketAddr, path: &str) -> String {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: podium\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let reply = read_until_closed(&mut s);
    reply.lines().next().unwrap_or_default().to_string()
}

/// Slow clients held the server: a client that sent half a request line and stalled
/// kept its connection (and a descriptor) for ever. Now its head must be whole within
/// the header timeout; the server answers other clients meanwhile.
#[tokio::test(flavor = "multi_thread")]
async fn slow_clients_stalled_in_the_request_line_are_closed_after_the_header_timeout() {
    let server = serving(podium_server::Timeouts {
        headers: std::time::Duration::from_secs(2),
        ..long_timeouts()
    })
    .await;
    let addr = server.addr;
    let closed = tokio::task::spawn_blocking(move || {
        let mut stalled = stall_after(addr, "GET /heal");
        // Another client is served while the first one stalls.
        assert_eq!(get_status_line(addr, "/healthz"), "HTTP/1.1 200 OK");
        read_until_closed(&mut stalled)
    })
    .await
    .unwrap();
    assert!(!closed.contains("200 OK"), "{closed}");
    // The server still serves.
    let again = tokio::task::spawn_blocking(move || get_status_line(addr, "/healthz"))
        .await
        .unwrap();
    assert_eq!(again, "HTTP/1.1 200 OK");
    drop(server.stop);
    tokio::time::timeout(HANG_GUARD, server.done)
        .await
        .unwrap()
        .unwrap();
}

/// Slow clients held the server with a body sent a byte at a time: a body must now
/// have arrived within the body timeout of its head, however steadily it trickles
/// (408, and the connection is closed).
#[tokio::test(flavor = "multi_thread")]
async fn slow_clients_trickling_a_body_get_408_after_the_body_timeout() {
    let server = serving(podium_server::Timeouts {
        body: std::time::Duration::from_millis(500),
        ..long_timeouts()
    })
    .await;
    let addr = server.addr;
    let reply = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut s = stall_after(
            addr,
            "POST /api/leagues HTTP/1.1\r\nHost: podium\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"name\": \"",
        );
        let mut writer = s.try_clone().unwrap();
        // A byte every 50 ms, each well within any per-read timeout, for at most 20 s.
        let trickle = std::thread::spawn(move || {
            for _ in 0..400 {
                std::thread::sleep(std::time::Duration::from_millis(50));
                if writer.write_all(b"x").is_err() {
                    return;
                }
            }
        });
        let reply = read_until_closed(&mut s);
        trickle.join().unwrap();
        reply
    })
    .await
    .unwrap();
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(
        reply.contains("the request body did not arrive within 0.5 s"),
        "{reply}"
    );
    drop(server.stop);
    tokio::time::timeout(HANG_GUARD, server.done)
        .await
        .unwrap()
        .unwrap();
}

/// A keep-alive connection without a request is closed after the idle timeout.
#[tokio::test(flavor = "multi_thread")]
async fn slow_clients_idle_keep_alive_connections_are_closed_after_the_idle_timeout() {
    let server = serving(podium_server::Timeouts {
        idle: std::time::Duration::from_millis(300),
        ..long_timeouts()
    })
    .await;
    let addr = server.addr;
    let reply = tokio::task::spawn_blocking(move || {
        let mut s = stall_after(addr, "GET /healthz HTTP/1.1\r\nHost: podium\r\n\r\n");
        read_until_closed(&mut s)
    })
    .await
    .unwrap();
    assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
    drop(server.stop);
    tokio::time::timeout(HANG_GUARD, server.done)
        .await
        .unwrap()
        .unwrap();
}

/// A stop waited for a client half-way through its request line: it now closes that
/// connection once the grace period is over, and the server's future completes.
#[tokio::test(flavor = "multi_thread")]
async fn slow_clients_do_not_hold_up_a_shutdown_beyond_the_grace_period() {
    let mut server = serving(podium_server::Timeouts {
        shutdown_grace: std::time::Duration::from_millis(500),
        ..long_timeouts()
    })
    .await;
    let addr = server.addr;
    let mut stalled = tokio::task::spawn_blocking(move || {
        let s = stall_after(addr, "GET /healthz HT");
        // Served meanwhile: the stalled connection is open and accepted.
        assert_eq!(get_status_line(addr, "/healthz"), "HTTP/1.1 200 OK");
        s
    })
    .await
    .unwrap();
    server.stop.take().unwrap().send(()).unwrap();
    tokio::time::timeout(HANG_GUARD, server.done)
        .await
        .expect("the server stopped")
        .unwrap();
    let rest = tokio::task::spawn_blocking(move || read_until_closed(&mut stalled))
        .await
        .unwrap();
    assert!(!rest.contains("200 OK"), "{rest}");
}

/// `/api/leagues/+1` and `/api/leagues/01` answered as league 1: a league's id in a
/// path is a number in canonical decimal, anything else names no league.
#[tokio::test]
async fn league_ids_in_paths_are_canonical_decimal_only() {
    let app = app();
    let (id, token) = create(&app, json!({"name": "one"})).await;
    assert_eq!(id, 1);
    let r = call(&app, Method::GET, "/api/leagues/1", None, None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    for raw in [
        "+1",
        "%2B1",
        "01",
        "001",
        "1.0",
        "1e0",
        "0",
        "-1",
        "%201",
        "1%20",
        "99999999999999999999",
    ] {
        for path in [
            format!("/api/leagues/{raw}"),
            format!("/api/leagues/{raw}/leaderboard"),
            format!("/api/leagues/{raw}/matches"),
        ] {
            let r = call(&app, Method::GET, &path, None, None).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}: {}", r.text);
            assert!(r.error().starts_with("no league"), "{path}: {}", r.error());
        }
        let path = format!("/api/leagues/{raw}/matches");
        let body = game("g1", &[("ann", 1), ("bo", 2)]);
        let r = call(&app, Method::POST, &path, Some(&token), Some(&body)).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}: {}", r.text);
    }
    // Nothing was entered through another spelling of the id.
    let r = call(&app, Method::GET, "/api/leagues/1/matches", None, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.text, "");
}

/// Refused league creations (422) counted against the hourly quota of an open server:
/// only a league created counts now.
#[tokio::test]
async fn refused_league_creations_do_not_count_against_the_hourly_quota() {
    let limits = Limits {
        leagues_per_hour: 2,
        ..Limits::default()
    };
    let app = app_with(limits, Access::Open);
    for _ in 0..3 {
        for bad in [
            json!({"name": ""}),
            json!({"name": "x", "system": "no-such-system"}),
            json!({"name": "x", "system": "elo", "config": {"k": "many"}}),
            json!({"name": "x", "system": "elo", "config": ["k"]}),
        ] {
            let r = call(
                &app,
                Method::POST,
                "/api/leagues",
                None,
                Some(&bad.to_string()),
            )
            .await;
            assert_eq!(
                r.status,
                StatusCode::UNPROCESSABLE_ENTITY,
                "{bad}: {}",
                r.text
            );
        }
    }
    create(&app, json!({"name": "first"})).await;
    create(&app, json!({"name": "second"})).await;
    let r = call(
        &app,
        Method::POST,
        "/api/leagues",
        None,
        Some(&json!({"name": "third"}).to_string()),
    )
    .await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text);
}

/// The board puts players whose rating is established first, then the provisional
/// ones (each group by rating, then name); `?order=rating` gives every player by rating,
/// whole or by pages, each order with a tag of its own; an unknown order is a 400.
#[tokio::test]
async fn the_board_lists_established_players_first_unless_asked_by_rating() {
    let app = app();
    let (id, token) = create(&app, json!({"name": "nights", "system": "sme"})).await;
    let url = format!("/api/leagues/{id}/matches");
    let regulars = ["ann", "bo", "cy", "dee"];
    for night in 0..6 {
        let places: Vec<(&str, u32)> = (0..4)
            .map(|k| (regulars[(k + night) % 4], k as u32 + 1))
            .collect();
        let r = call(
            &app,
            Method::POST,
            &url,
            Some(&token),
            Some(&game(&format!("n{night}"), &places)),
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    for night in 6..8 {
        let places = [("frank", 1), ("ann", 2), ("bo", 3), ("cy", 4), ("dee", 5)];
        let r = call(
            &app,
            Method::POST,
            &url,
            Some(&token),
            Some(&game(&format!("n{night}"), &places)),
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    let board_url = format!("/api/leagues/{id}/leaderboard");
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r["player"].as_str().unwrap().to_string())
            .collect()
    };
    let established = call(&app, Method::GET, &board_url, None, None).await.json();
    let by_rating = call(
        &app,
        Method::GET,
        &format!("{board_url}?order=rating"),
        None,
        None,
    )
    .await
    .json();
    let named = call(
        &app,
        Method::GET,
        &format!("{board_url}?order=established"),
        None,
        None,
    )
    .await
    .json();
    assert_eq!(named, established);
    assert_eq!(names(&established)[4], "frank");
    assert_eq!(established[4]["provisional"], true);
    assert_eq!(established[4]["position"], 5);
    // Two wins over every regular put frank first by rating alone.
    assert_eq!(names(&by_rating)[0], "frank");
    assert_eq!(by_rating[0]["position"], 1);
    let mut rest = names(&by_rating)[1..].to_vec();
    rest.push("frank".into());
    assert_eq!(rest, names(&established));
    let page = call(
        &app,
        Method::GET,
        &format!("{board_url}?order=rating&offset=0&limit=2"),
        None,
        None,
    )
    .await
    .json();
    assert_eq!(
        page.as_array().unwrap()[..],
        by_rating.as_array().unwrap()[..2]
    );
    let page = call(
        &app,
        Method::GET,
        &format!("{board_url}?offset=4&limit=2"),
        None,
        None,
    )
    .await
    .json();
    assert_eq!(names(&page), ["frank"]);
    let tag = |h: &header::HeaderMap| h.get(header::ETAG).unwrap().to_str().unwrap().to_string();
    let (_, a, _) = get_with(&app, &board_url, &[]).await;
    let (_, b, _) = get_with(&app, &format!("{board_url}?order=rating"), &[]).await;
    assert_ne!(tag(&a), tag(&b));
    let r = call(
        &app,
        Method::GET,
        &format!("{board_url}?order=elo"),
        None,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert!(r.error().contains("order"), "{}", r.text);
}

/// The ledger's headers and body as `GET uri` answers them.
async fn export(app: &Router, uri: &str) -> (StatusCode, Option<String>, String) {
    let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let disposition = res
        .headers()
        .get(header::CONTENT_DISPOSITION)
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 20)
        .await
        .unwrap();
    (
        status,
        disposition,
        String::from_utf8(bytes.to_vec()).unwrap(),
    )
}

#[tokio::test]
async fn the_ledger_asked_for_as_a_download_is_a_file_named_after_the_league() {
    let app = app();
    let (id, token) = create(&app, json!({"name": "A", "system": "sme"})).await;
    let body =
        json!({"id": "g1", "results": [{"player": "ann", "rank": 1}, {"player": "bo", "rank": 2}]});
    let url = format!("/api/leagues/{id}/matches");
    let r = call(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&body.to_string()),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // The plain answer, for scripts: the JSON Lines, no attachment.
    let (status, disposition, plain) = export(&app, &url).await;
    assert_eq!((status, disposition), (StatusCode::OK, None));
    let (status, disposition, saved) = export(&app, &format!("{url}?download=true")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        disposition.as_deref(),
        Some(format!("attachment; filename=\"league-{id}.jsonl\"").as_str())
    );
    assert_eq!(saved, plain);
    assert_eq!(saved.lines().count(), 1);
    let (_, disposition, _) = export(&app, &format!("{url}?download=false")).await;
    assert_eq!(disposition, None);
    let (status, _, text) = export(&app, &format!("{url}?download=yes")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    assert!(text.contains("download"), "{text}");
}

#[tokio::test]
async fn a_league_name_in_use_is_refused_naming_the_league_that_has_it() {
    let app = app();
    let (a, token_a) = create(&app, json!({"name": "Friday boards", "system": "sme"})).await;
    let taken = format!(
        r#"a league named "Friday boards" exists already (league {a}): choose another name"#
    );
    for name in ["Friday boards", " friday BOARDS "] {
        let body = json!({"name": name}).to_string();
        let r = call(&app, Method::POST, "/api/leagues", None, Some(&body)).await;
        assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
        assert_eq!(r.error(), taken);
    }
    let r = call(&app, Method::GET, "/api/leagues", None, None).await;
    assert_eq!(r.json().as_array().unwrap().len(), 1, "nothing was created");
    // A rename to another league's name is refused too; to its own name, in another
    // letter case, it is not.
    let (b, token_b) = create(&app, json!({"name": "Saturday", "system": "sme"})).await;
    let rename = |id: i64, token: String, name: &'static str| {
        let app = app.clone();
        async move {
            let body = json!({"name": name}).to_string();
            let url = format!("/api/leagues/{id}");
            call(&app, Method::PATCH, &url, Some(&token), Some(&body)).await
        }
    };
    let r = rename(b, token_b, "FRIDAY boards").await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
    assert_eq!(r.error(), taken);
    let r = call(&app, Method::GET, &format!("/api/leagues/{b}"), None, None).await;
    assert_eq!(r.json()["name"], "Saturday");
    let r = rename(a, token_a, "friday boards").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["name"], "friday boards");
}

/// Six requests at once for one league name: one league is created (201) and the
/// others are refused naming it (409), on one server and on two servers sharing one
/// PostgreSQL database. Each request runs on a thread of its own through its app.
async fn one_league_of_a_name_at_once(apps: &[Router]) {
    let names = ["srace", "SRACE", " srace", "sRace ", "srace", "Srace"];
    let calls = names.iter().enumerate().map(|(k, name)| {
        let app = apps[k % apps.len()].clone();
        let body = json!({"name": name, "system": "sme"}).to_string();
        tokio::spawn(
            async move { call(&app, Method::POST, "/api/leagues", None, Some(&body)).await },
        )
    });
    let mut replies = Vec::new();
    for c in calls.collect::<Vec<_>>() {
        replies.push(c.await.unwrap());
    }
    let created: Vec<&Reply> = replies
        .iter()
        .filter(|r| r.status == StatusCode::CREATED)
        .collect();
    assert_eq!(
        created.len(),
        1,
        "{:?}",
        replies.iter().map(|r| &r.text).collect::<Vec<_>>()
    );
    let league = &created[0].json()["league"];
    let taken = format!(
        "a league named {} exists already (league {}): choose another name",
        league["name"], league["id"]
    );
    for r in replies.iter().filter(|r| r.status != StatusCode::CREATED) {
        assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
        assert_eq!(r.error(), taken);
    }
    for app in apps {
        let r = call(app, Method::GET, "/api/leagues", None, None).await;
        assert!(r.json().as_array().unwrap().len() <= 1, "{}", r.text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_league_name_asked_for_at_once_is_given_once_on_sqlite() {
    one_league_of_a_name_at_once(&[app()]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_league_name_asked_for_at_once_is_given_once_on_two_postgres_servers() {
    let server = postgres_server();
    let name = format!("podium_api_names_{}", std::process::id());
    let (s, n) = (server.clone(), name.clone());
    let url = tokio::task::spawn_blocking(move || podium_store::PgStore::create_database(&s, &n))
        .await
        .unwrap()
        .unwrap();
    let mut apps = Vec::new();
    for _ in 0..2 {
        let url = url.clone();
        let leagues = tokio::task::spawn_blocking(move || {
            Leagues::open_loaded(podium_server::open_store(&url).unwrap(), Options::default())
                .unwrap()
        })
        .await
        .unwrap();
        apps.push(router(AppState::new(
            leagues,
            Limits::default(),
            Access::Open,
        )));
    }
    one_league_of_a_name_at_once(&apps).await;
    common::drop_postgres(apps, &name).await;
}

/// A correction without `time` of a dated match is refused like a new undated match
/// (422), while the league has other dated matches: the match keeps its date and place.
#[tokio::test]
async fn a_correction_without_a_date_in_a_dated_league_is_refused() {
    let app = app();
    let (id, token) = create(&app, json!({"name": "Dated", "system": "sme"})).await;
    let url = format!("/api/leagues/{id}/matches");
    for (key, date) in [("a", "2024-05-01"), ("b", "2024-05-02")] {
        let body = json!({"id": key, "time": date, "results": [
            {"player": "ann", "rank": 1}, {"player": "bo", "rank": 2}]});
        let r = call(
            &app,
            Method::POST,
            &url,
            Some(&token),
            Some(&body.to_string()),
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    refused(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&game("c", &[("ann", 1), ("bo", 2)])),
    )
    .await;
    let body = json!({"results": [{"player": "bo", "rank": 1}, {"player": "ann", "rank": 2}]});
    let r = refused(
        &app,
        Method::PUT,
        &format!("{url}/b"),
        Some(&token),
        Some(&body.to_string()),
    )
    .await;
    assert_eq!(
        r.error(),
        r#"match "b" is dated, but the correction has no date while the league has other dated matches: give it a date (a league may start without dates, but once it has a dated match a dated match keeps a date)"#
    );
    let r = call(&app, Method::GET, &format!("{url}/b"), None, None).await;
    assert_eq!(r.json()["result"]["time"], "2024-05-02");
    assert_eq!(r.json()["result"]["results"][0]["player"], "ann");
}

/// The config that `GET /api/leagues/{id}` answers (pairs) is accepted back by POST and
/// PATCH, as are an object and settings; anything else is refused saying the forms.
#[tokio::test]
async fn a_league_config_as_get_gives_it_can_be_sent_back() {
    let app = app();
    let (id, token) = create(
        &app,
        json!({"name": "Round", "system": "elo", "config": {"k": 24}}),
    )
    .await;
    let url = format!("/api/leagues/{id}");
    let got = call(&app, Method::GET, &url, None, None).await.json();
    assert_eq!(got["config"], json!([["k", "24"]]));
    let body = json!({"config": got["config"]}).to_string();
    let r = call(&app, Method::PATCH, &url, Some(&token), Some(&body)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["config"], json!([["k", "24"]]));
    let body = json!({"name": "Round two", "system": "elo", "config": [["k", 16], "scale=400"]});
    let r = call(
        &app,
        Method::POST,
        "/api/leagues",
        None,
        Some(&body.to_string()),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(
        r.json()["league"]["config"],
        json!([["k", "16"], ["scale", "400"]])
    );
    for (config, message) in [
        (
            json!(5),
            r#"config: "5" is not a config; give an object {"k": 24}, a list of settings ["k=24"], or a list of pairs [["k", "24"]] as GET /api/leagues/{id} gives it"#,
        ),
        (
            json!([["k"]]),
            r#"config[0]: "[\"k\"]" is neither a setting "k=24" nor a pair ["k", "24"]"#,
        ),
        (
            json!([[24, "k"]]),
            "config[0]: a pair's first item is the parameter's name, a string",
        ),
        (
            json!([["k", [1]]]),
            r#"config[0] ("k"): [1] is not a number, boolean or string"#,
        ),
        (
            json!({"k": null}),
            r#"config "k": null is not a number, boolean or string"#,
        ),
    ] {
        let body = json!({"config": config}).to_string();
        let r = call(&app, Method::PATCH, &url, Some(&token), Some(&body)).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
        assert_eq!(r.error(), message);
    }
}

/// Every JSON body is read the same way: an unknown field is 422 naming it, a body over
/// `--max-body` is 413 naming the limit and the flag; a match sent without an id is named
/// as sent (its place in the array, or "the match"), never by an id the server gave it.
#[tokio::test]
async fn bodies_are_refused_in_one_wording() {
    let app = app_with(
        Limits {
            max_body: 400,
            ..Limits::default()
        },
        Access::Open,
    );
    let r = refused(
        &app,
        Method::POST,
        "/api/leagues",
        None,
        Some(r#"{"name":"x","bogus":1}"#),
    )
    .await;
    assert_eq!(
        r.error(),
        "invalid request body: field `bogus`: unknown field `bogus`, expected one of `name`, `system`, `config`"
    );
    let (id, token) = create(&app, json!({"name": "Words", "system": "sme"})).await;
    let url = format!("/api/leagues/{id}");
    let r = refused(
        &app,
        Method::PATCH,
        &url,
        Some(&token),
        Some(r#"{"nmae":"y"}"#),
    )
    .await;
    assert_eq!(
        r.error(),
        "invalid request body: field `nmae`: unknown field `nmae`, expected one of `name`, `system`, `config`"
    );
    let big = json!({"name": "x".repeat(500)}).to_string();
    let r = call(&app, Method::POST, "/api/leagues", None, Some(&big)).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", r.text);
    assert_eq!(
        r.error(),
        "the request body is larger than this server takes: at most 400 bytes (its operator sets the limit with --max-body)"
    );
    let matches = format!("{url}/matches");
    let dated = json!({"id": "d", "time": "2024-05-01", "results": [
        {"player": "ann", "rank": 1}, {"player": "bo", "rank": 2}]});
    let undated = json!({"results": [{"player": "ann", "rank": 1}, {"player": "bo", "rank": 2}]});
    let batch = json!([dated, undated]).to_string();
    let r = call(&app, Method::POST, &matches, Some(&token), Some(&batch)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let answers = r.json();
    assert_eq!(answers[0]["code"], 201);
    assert_eq!(answers[1]["code"], 422);
    let rest = "has no date, but the league already has dated matches: give it a date (a league may start without dates, but once it has a dated match every later one needs a date)";
    assert_eq!(answers[1]["error"], format!("match 1 of the array {rest}"));
    let r = refused(
        &app,
        Method::POST,
        &matches,
        Some(&token),
        Some(&undated.to_string()),
    )
    .await;
    assert_eq!(r.error(), format!("the match {rest}"));
    // A match with its own id is named by it.
    let named =
        json!({"id": "n1", "results": [{"player": "ann", "rank": 1}, {"player": "bo", "rank": 2}]});
    let r = call(
        &app,
        Method::POST,
        &matches,
        Some(&token),
        Some(&named.to_string()),
    )
    .await;
    assert_eq!(r.error(), format!("match \"n1\" {rest}"));
}

/// A correction with the content the match has already changes nothing: `unchanged`,
/// not rated again, the same changes; another content is `corrected`.
#[tokio::test]
async fn a_correction_to_the_same_content_is_unchanged() {
    let app = app();
    let (id, token) = league_with_games(&app).await;
    let url = format!("/api/leagues/{id}/matches/g2");
    let before = call(&app, Method::GET, &url, None, None).await.json();
    let same = json!({"results": [{"player": "bo", "rank": 1}, {"player": "cy", "rank": 2}, {"player": "dee", "rank": 3}]});
    let r = call(
        &app,
        Method::PUT,
        &url,
        Some(&token),
        Some(&same.to_string()),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = r.json();
    assert_eq!(
        (v["status"].as_str(), v["recomputed"].as_bool()),
        (Some("unchanged"), Some(false))
    );
    assert_eq!(v["changes"], before["changes"]);
    assert_eq!(v["seq"], before["seq"]);
    let other = json!({"results": [{"player": "cy", "rank": 1}, {"player": "bo", "rank": 2}, {"player": "dee", "rank": 3}]});
    let r = call(
        &app,
        Method::PUT,
        &url,
        Some(&token),
        Some(&other.to_string()),
    )
    .await;
    let v = r.json();
    assert_eq!(
        (v["status"].as_str(), v["recomputed"].as_bool()),
        (Some("corrected"), Some(true))
    );
}

/// A match created alone answers 201 with its address in `Location` (its id
/// percent-encoded), which `GET` answers; a retry (200) has none.
#[tokio::test]
async fn a_match_created_gives_its_location() {
    let app = app();
    let (id, token) = create(&app, json!({"name": "Where", "system": "sme"})).await;
    let url = format!("/api/leagues/{id}/matches");
    let body = game("week 1/é#2", &[("ann", 1), ("bo", 2)]);
    let send = || {
        let req = Request::builder()
            .method(Method::POST)
            .uri(&url)
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.clone()))
            .unwrap();
        app.clone().oneshot(req)
    };
    let res = send().await.unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let at = res.headers()[header::LOCATION]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(
        at,
        format!("/api/leagues/{id}/matches/week%201%2F%C3%A9%232")
    );
    let r = call(&app, Method::GET, &at, None, None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["match"], "week 1/é#2");
    let res = send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers().get(header::LOCATION).is_none());
}

/// PATCH `config` replaces the whole config; a new system without config starts from
/// its defaults, and the league's own system named again keeps its config.
#[tokio::test]
async fn patch_replaces_the_config_and_keeps_it_for_the_same_system() {
    let app = app();
    let (id, token) = create(
        &app,
        json!({"name": "Patched", "system": "elo", "config": {"k": 24}}),
    )
    .await;
    let url = format!("/api/leagues/{id}");
    let patch = |body: Value| {
        let (app, url, token) = (app.clone(), url.clone(), token.clone());
        async move {
            call(
                &app,
                Method::PATCH,
                &url,
                Some(&token),
                Some(&body.to_string()),
            )
            .await
        }
    };
    let r = patch(json!({"system": "elo"})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["config"], json!([["k", "24"]]));
    let r = patch(json!({"config": {"scale": 200}})).await;
    assert_eq!(r.json()["config"], json!([["scale", "200"]]));
    let r = patch(json!({"system": "sme"})).await;
    assert_eq!(
        (r.json()["system"].as_str(), r.json()["config"].clone()),
        (Some("sme"), json!([]))
    );
}

/// Factor kinds that differ only in letter case were kept as two kinds: a row giving
/// `Car` and `car` was stored, and its export could not be read back; `Car` in one match
/// and `car` in another were rated as two factors, unlike `podium rate --factor car` on
/// the export. A kind is one kind in any case, kept in lower case; one row giving it in
/// two spellings is refused naming the field, and nothing is stored.
#[tokio::test]
async fn factor_kinds_that_differ_in_case_are_one_kind() {
    let app = app();
    let (id, token) = create(&app, json!({"name": "Case", "system": "pairwise"})).await;
    let url = format!("/api/leagues/{id}/matches");
    let twice = json!({"id": "fac1", "results": [
        {"player": "ann", "rank": 1, "factors": {"Car": "x", "car": "y"}},
        {"player": "bo", "rank": 2}]});
    let said = "field `results[0].factors.car`: the factor kind \"car\" is given twice, as \"Car\" and as \"car\"; a kind is named in any case (the ledger keeps it as \"car\"): give it once";
    let r = refused(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&twice.to_string()),
    )
    .await;
    assert_eq!(r.error(), format!("invalid match: match \"fac1\", {said}"));
    let mut unnamed = twice.clone();
    unnamed.as_object_mut().unwrap().remove("id");
    let r = refused(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&unnamed.to_string()),
    )
    .await;
    assert_eq!(r.error(), format!("invalid match: the match, {said}"));
    let r = call(&app, Method::GET, &url, None, None).await;
    assert_eq!(r.text, "", "nothing stored");

    // In lower case whatever the spelling: the answer, the table, the export; a retry
    // spelled otherwise is a retry.
    let spelled = [
        ("m1", "Car", "red"),
        ("m2", "car", "red"),
        ("m3", "CAR", "blue"),
    ];
    for (m, kind, value) in spelled {
        let body = factored_game(
            m,
            &[
                ("ann", 1, json!({ kind: value })),
                ("bo", 2, json!({ kind: "blue" })),
            ],
        );
        let r = call(&app, Method::POST, &url, Some(&token), Some(&body)).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        assert_eq!(
            r.json()["result"]["results"][0]["factors"],
            json!({"car": value})
        );
    }
    let retry = factored_game(
        "m1",
        &[
            ("ann", 1, json!({"cAr": "red"})),
            ("bo", 2, json!({"car": "blue"})),
        ],
    );
    let r = call(&app, Method::POST, &url, Some(&token), Some(&retry)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["status"], "duplicate");
    // A correction is taken in alike; a row of two spellings is refused there too.
    let corrected = factored_game(
        "m3",
        &[
            ("bo", 1, json!({"CaR": "blue"})),
            ("ann", 2, json!({"car": "red"})),
        ],
    );
    let r = call(
        &app,
        Method::PUT,
        &format!("{url}/m3"),
        Some(&token),
        Some(&corrected),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        r.json()["result"]["results"][0]["factors"],
        json!({"car": "blue"})
    );
    let bad = factored_game(
        "m3",
        &[
            ("bo", 1, json!({"car": "blue", "CAR": "red"})),
            ("ann", 2, json!({})),
        ],
    );
    let r = refused(
        &app,
        Method::PUT,
        &format!("{url}/m3"),
        Some(&token),
        Some(&bad),
    )
    .await;
    assert_eq!(
        r.error(),
        "invalid match: match \"m3\", field `results[0].factors.car`: the factor kind \"car\" is given twice, as \"CAR\" and as \"car\"; a kind is named in any case (the ledger keeps it as \"car\"): give it once"
    );
    // In an array, the match refused is answered in its place and the others entered.
    let batch = json!([
        {"id": "m4", "results": [{"player": "ann", "rank": 2, "factors": {"Car": "red"}},
                                 {"player": "bo", "rank": 1, "factors": {"car": "blue"}}]},
        twice,
    ]);
    let r = call(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&batch.to_string()),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let answers = r.json();
    assert_eq!(answers[0]["code"], 201, "{answers}");
    assert_eq!(answers[1]["code"], 422, "{answers}");
    assert_eq!(
        answers[1]["error"],
        format!("invalid match: match \"fac1\", {said}")
    );
    let table = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/factors"),
        None,
        None,
    )
    .await
    .json();
    let kinds: Vec<&str> = table
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["car", "car"], "{table}");

    // The export, read as `podium rate --factor car` reads it, rates to the same board.
    let export = call(&app, Method::GET, &url, None, None).await.text;
    assert!(
        !export.contains("Car") && !export.contains("CAR"),
        "{export}"
    );
    let options = podium_io::ReadOptions::with_factors(["car"]);
    let mut offline =
        podium::League::new(podium::system("pairwise", &podium::Settings::new()).unwrap());
    for m in podium_io::JsonlMatches::with_options("export.jsonl", export.as_bytes(), &options) {
        offline.apply(&m.unwrap()).unwrap();
    }
    let board = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/leaderboard"),
        None,
        None,
    )
    .await
    .json();
    for row in board.as_array().unwrap() {
        let player = row["player"].as_str().unwrap();
        let want = offline.get(player).unwrap().rating.value;
        assert!(
            (row["rating"].as_f64().unwrap() - want).abs() < 1e-9,
            "{player}: {board}"
        );
    }
    assert_eq!(offline.factors().len(), 2);

    // The document says so: a reserved name is refused in any case.
    let doc = call(&app, Method::GET, "/api/openapi.json", None, None)
        .await
        .json();
    let names = &doc["components"]["schemas"]["Result"]["properties"]["factors"]["propertyNames"];
    assert_eq!(
        names["not"]["pattern"],
        "^(?:[Mm][Aa][Tt][Cc][Hh]|[Ii][Dd]|[Tt][Ii][Mm][Ee]|[Rr][Ee][Ss][Uu][Ll][Tt][Ss]|[Pp][Ll][Aa][Yy][Ee][Rr]|[Rr][Aa][Nn][Kk]|[Ss][Cc][Oo][Rr][Ee]|[Tt][Ee][Aa][Mm]|[Ww][Ee][Ii][Gg][Hh][Tt]|[Ff][Aa][Cc][Tt][Oo][Rr][Ss])$",
        "{names}"
    );
}

/// A match dated after today is refused, in an append and in a correction, naming its
/// time and the server's clock; a time a few hours ahead (a day that began ahead of UTC)
/// is taken. Nothing refused is stored.
#[tokio::test]
async fn a_match_dated_after_today_is_refused() {
    let app = app();
    let (id, token) = create(&app, json!({"name": "Dated", "system": "elo"})).await;
    let url = format!("/api/leagues/{id}/matches");
    let dated = |id: &str, time: &str| {
        json!({"id": id, "time": time, "results": [
            {"player": "ann", "rank": 1}, {"player": "bo", "rank": 2}]})
        .to_string()
    };
    let r = refused(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&dated("g1", "2999-01-01")),
    )
    .await;
    let e = r.error();
    assert!(
        e.contains("match \"g1\", field `time`: \"2999-01-01\" is after today (the server's clock reads 20"),
        "{e}"
    );
    assert!(
        e.ends_with("record a match once it has been played, dated when it was played"),
        "{e}"
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let soon = podium_io::format_time(now + 4 * 3600);
    let r = call(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&dated("g1", &soon)),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let r = refused(
        &app,
        Method::PUT,
        &format!("{url}/g1"),
        Some(&token),
        Some(&dated("g1", "2999-01-01T10:00:00Z")),
    )
    .await;
    assert!(
        r.error()
            .contains("field `time`: \"2999-01-01T10:00:00Z\" is after today"),
        "{}",
        r.error()
    );
    let league = call(&app, Method::GET, &format!("/api/leagues/{id}"), None, None)
        .await
        .json();
    assert_eq!(league["matches"], 1, "{league}");
    let ledger = call(&app, Method::GET, &url, None, None).await.json();
    assert_eq!(ledger.to_string().matches("2999").count(), 0, "{ledger}");
}

/// A match sent without an id was named in the errors of its fields by the id the server
/// would have given it (`match "#3", field `results[0].rank``), which the client never
/// saw: it is `the match`, or `match k of the array`, in every error that names it.
#[tokio::test]
async fn a_match_without_an_id_is_named_as_sent_in_every_error() {
    let app = app();
    let (id, token) = create(&app, json!({"name": "Unnamed", "system": "elo"})).await;
    let url = format!("/api/leagues/{id}/matches");
    let cases = [
        (
            json!([{"player": "ann"}, {"player": "bo", "rank": 2}]),
            "field `results[0].rank`: missing, expected a rank (1 = best) or a score (higher = better)",
        ),
        (
            json!([{"player": "ann", "rank": 1}, {"player": "ann", "rank": 2}]),
            "field `results`: player \"ann\" appears more than once in the match",
        ),
        (
            json!([{"player": "ann", "rank": 1}, {"player": "", "rank": 2}]),
            "field `results[1].player`: player id \"\" is not valid, expected 1 to 200 bytes without surrounding spaces or control characters",
        ),
        (
            json!([{"player": "ann", "rank": 1, "factors": {"car": " x"}}, {"player": "bo", "rank": 2}]),
            "field `results[0].factors.car`: factor \"car\": value \" x\" is not valid, expected a factor value: a string of 1 to 200 bytes without surrounding spaces or control characters, or a whole number from -9223372036854775808 to 18446744073709551615",
        ),
        (
            json!([{"player": "ann", "rank": 1, "factors": {"a=b": "x"}}, {"player": "bo", "rank": 2}]),
            "field `results[0].factors`: factor kind \"a=b\" is not valid",
        ),
    ];
    let named = game("n1", &[("ann", 1), ("bo", 2)]);
    for (results, says) in cases {
        let one = json!({ "results": results });
        let r = refused(
            &app,
            Method::POST,
            &url,
            Some(&token),
            Some(&one.to_string()),
        )
        .await;
        let e = r.error();
        assert!(
            e.starts_with(&format!("invalid match: the match, {says}")),
            "{e}"
        );
        let batch = format!("[{named},{one}]");
        let r = call(&app, Method::POST, &url, Some(&token), Some(&batch)).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        let answers = r.json();
        assert_eq!(answers[1]["code"], 422, "{answers}");
        let e = answers[1]["error"].as_str().unwrap();
        assert!(
            e.starts_with(&format!("invalid match: match 1 of the array, {says}")),
            "{e}"
        );
    }
    // A match the system cannot rate, alike.
    let three = json!({"results": [{"player": "ann", "rank": 1}, {"player": "bo", "rank": 2}, {"player": "cy", "rank": 3}]});
    let r = refused(
        &app,
        Method::POST,
        &url,
        Some(&token),
        Some(&three.to_string()),
    )
    .await;
    assert!(
        r.error().starts_with("the match cannot be rated: "),
        "{}",
        r.error()
    );
    // Only the named match was stored, once.
    let r = call(&app, Method::GET, &url, None, None).await;
    assert_eq!(r.text.lines().count(), 1, "{}", r.text);
}

/// Each operation answered statuses its entry in the OpenAPI document did not list: 413
/// for a body over the limit on most operations with a body, 408 nowhere, 400 for a
/// query parameter of the wrong form or a path segment that is not UTF-8. Every
/// operation is sent each kind of bad request it can get, and each answer must be an
/// error the document lists for that operation.
#[tokio::test]
async fn every_operation_answers_what_the_document_lists() {
    let app = app_with(
        Limits {
            max_body: 1_000,
            ..Limits::default()
        },
        Access::Open,
    );
    let doc = call(&app, Method::GET, "/api/openapi.json", None, None)
        .await
        .json();
    let (id, t) = create(&app, json!({"name": "Doc", "system": "sme"})).await;
    let r = call(
        &app,
        Method::POST,
        &format!("/api/leagues/{id}/matches"),
        Some(&t),
        Some(&game("g1", &[("ann", 1), ("bo", 2)])),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let fill = |path: &str, segment: Option<&str>| {
        let mut uri = path.to_string();
        for (name, good) in [
            ("id", id.to_string()),
            ("player", "ann".into()),
            ("match", "g1".into()),
            ("n", "1".into()),
        ] {
            let value = if segment == Some(name) {
                "%FF".into()
            } else {
                good
            };
            uri = uri.replace(&format!("{{{name}}}"), &value);
        }
        uri
    };
    let json_type = [(header::CONTENT_TYPE, "application/json")];
    let mut checked = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method_name, op) in ops.as_object().unwrap() {
            let method = Method::from_bytes(method_name.to_uppercase().as_bytes()).unwrap();
            let responses = &op["responses"];
            let what = format!("{method} {path}");
            for status in ["414", "431"] {
                assert!(responses.get(status).is_some(), "{what}: no {status}");
            }
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            let query: Vec<&Value> = params.iter().filter(|p| p["in"] == "query").collect();
            let needed: String = query
                .iter()
                .filter(|p| p["required"] == true)
                .map(|p| format!("{}=ann&", p["name"].as_str().unwrap()))
                .collect();
            let takes_body = op.get("requestBody").is_some();
            // Each bad request: its URI, headers and body.
            type Headers<'a> = Vec<(header::HeaderName, &'a str)>;
            let mut bad: Vec<(String, Headers, String)> = Vec::new();
            for p in params.iter().filter(|p| p["in"] == "path") {
                let name = p["name"].as_str().unwrap();
                let uri = format!("{}?{needed}", fill(path, Some(name)));
                bad.push((uri, json_type.to_vec(), "{}".into()));
            }
            for p in &query {
                let name = p["name"].as_str().unwrap();
                let schema = &p["schema"];
                let value = match (schema["type"].as_str(), schema.get("enum")) {
                    (Some("integer"), _) => "-7",
                    (Some("boolean"), _) => "maybe",
                    (_, Some(_)) => "sideways",
                    _ => continue,
                };
                let uri = format!("{}?{needed}{name}={value}", fill(path, None));
                bad.push((uri, json_type.to_vec(), "{}".into()));
            }
            if !needed.is_empty() {
                bad.push((fill(path, None), json_type.to_vec(), "{}".into()));
            }
            if takes_body {
                for status in ["408", "413", "415", "400", "422"] {
                    assert!(responses.get(status).is_some(), "{what}: no {status}");
                }
                let uri = fill(path, None);
                let large = json!({"pad": "x".repeat(2_000)}).to_string();
                bad.push((uri.clone(), json_type.to_vec(), large));
                bad.push((uri.clone(), json_type.to_vec(), "{".into()));
                bad.push((uri.clone(), json_type.to_vec(), "\"x\"".into()));
                bad.push((uri, vec![(header::CONTENT_TYPE, "text/plain")], "{}".into()));
            }
            let auth = format!("Bearer {t}");
            for (uri, mut headers, body) in bad {
                headers.push((header::AUTHORIZATION, &auth));
                let (r, _) = send(&app, method.clone(), &uri, &headers, &body).await;
                let status = r.status.as_str().to_string();
                assert!(
                    r.status.is_client_error() && responses.get(&status).is_some(),
                    "{what}: {uri} {} answered {status}, which the document does not list: {}",
                    &body[..body.len().min(40)],
                    r.text
                );
                assert!(!r.error().is_empty(), "{what}: {uri}");
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "{checked}");
    // The answers named above, as a client reads them.
    let r = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/players/ann/rivals?x=42"),
        None,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = call(
        &app,
        Method::GET,
        &format!("/api/leagues/{id}/matches/%FF"),
        None,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        r.error(),
        "the path's {match} is not UTF-8 once percent-decoded: expected UTF-8 text, each byte beyond ASCII percent-encoded"
    );
    let r = call(
        &app,
        Method::PATCH,
        &format!("/api/leagues/{id}"),
        Some(&t),
        Some(&json!({"name": "x".repeat(2_000)}).to_string()),
    )
    .await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    // What the schemas say of the parameters and of a result.
    let ops = &doc["paths"]["/api/leagues/{id}/versus"]["get"]["parameters"];
    for p in ops
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["in"] == "query")
    {
        assert_eq!(p["required"], true, "{p}");
    }
    let order = &doc["paths"]["/api/leagues/{id}/leaderboard"]["get"]["parameters"][3];
    assert_eq!(order["name"], "order");
    assert_eq!(order["schema"]["enum"], json!(["established", "rating"]));
    let result = &doc["components"]["schemas"]["Result"];
    assert_eq!(result["oneOf"][0]["required"], json!(["rank"]));
    assert_eq!(result["oneOf"][1]["required"], json!(["score"]));
}

/// A URI over 65,534 bytes is answered 414 by the HTTP layer, below the API, with an
/// empty body and no Content-Type: the document says so, as it says every other error
/// is `{"error": …}`.
#[tokio::test(flavor = "multi_thread")]
async fn a_uri_too_long_is_answered_by_the_http_layer_as_documented() {
    let server = serving(long_timeouts()).await;
    let addr = server.addr;
    let reply = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        let path = format!("/api/leagues/1/players/{}", "a".repeat(100_000));
        write!(s, "GET {path} HTTP/1.1\r\nHost: podium\r\n\r\n").unwrap();
        read_until_closed(&mut s)
    })
    .await
    .unwrap();
    assert!(
        reply.starts_with("HTTP/1.1 414 URI Too Long\r\n"),
        "{reply}"
    );
    let lower = reply.to_lowercase();
    assert!(lower.contains("content-length: 0\r\n"), "{reply}");
    assert!(!lower.contains("content-type"), "{reply}");
    drop(server.stop);
    tokio::time::timeout(HANG_GUARD, server.done)
        .await
        .unwrap()
        .unwrap();
    let doc = call(&app(), Method::GET, "/api/openapi.json", None, None)
        .await
        .json();
    let said = doc["paths"]["/api/leagues/{id}/players/{player}"]["get"]["responses"]["414"]
        ["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(said.contains("empty body and no Content-Type"), "{said}");
    assert!(
        doc["info"]["description"]
            .as_str()
            .unwrap()
            .contains("414 for a URI over 65,534 bytes"),
        "{}",
        doc["info"]["description"]
    );
}

/// A league's name was held to 200 bytes while the message said characters: 150 `é`
/// were refused. It is 1 to 200 characters, whatever their bytes.
#[tokio::test]
async fn a_league_name_is_counted_in_characters() {
    let app = app();
    let (id, token) = create(&app, json!({"name": "é".repeat(150)})).await;
    let r = call(&app, Method::GET, &format!("/api/leagues/{id}"), None, None).await;
    assert_eq!(r.json()["name"], "é".repeat(150));
    create(&app, json!({"name": "€".repeat(200)})).await;
    let r = refused(
        &app,
        Method::POST,
        "/api/leagues",
        None,
        Some(&json!({"name": "ü".repeat(201)}).to_string()),
    )
    .await;
    assert_eq!(
        r.error(),
        format!(
            "invalid league: name \"{}\"… (402 bytes) is not valid, expected 1 to 200 characters without control characters",
            "ü".repeat(64)
        )
    );
    for (name, status) in [
        ("ö".repeat(200), StatusCode::OK),
        ("ö".repeat(201), StatusCode::UNPROCESSABLE_ENTITY),
    ] {
        let r = call(
            &app,
            Method::PATCH,
            &format!("/api/leagues/{id}"),
            Some(&token),
            Some(&json!({ "name": name }).to_string()),
        )
        .await;
        assert_eq!(r.status, status, "{}", r.text);
    }
    let r = call(&app, Method::GET, &format!("/api/leagues/{id}"), None, None).await;
    assert_eq!(r.json()["name"], "ö".repeat(200));
}

/// League names took control characters (`"nul\u0000x"`, `"ctl\u0007x"`), which
/// player ids, match ids, teams and factor values refuse: refused alike, on creation
/// and on a rename, and nothing is made or changed.
#[tokio::test]
async fn a_league_name_with_a_control_character_is_refused() {
    let app = app();
    for (name, shown) in [
        ("nul\u{0}x", r#""nul\0x""#),
        ("ctl\u{7}x", r#""ctl\u{7}x""#),
        ("c1\u{85}x", r#""c1\u{85}x""#),
    ] {
        let r = refused(
            &app,
            Method::POST,
            "/api/leagues",
            None,
            Some(&json!({ "name": name }).to_string()),
        )
        .await;
        assert_eq!(
            r.error(),
            format!("invalid league: name {shown} is not valid, expected 1 to 200 characters without control characters")
        );
    }
    let r = call(&app, Method::GET, "/api/leagues", None, None).await;
    assert_eq!(r.json(), json!([]));
    let (id, token) = create(&app, json!({"name": "Thursday"})).await;
    refused(
        &app,
        Method::PATCH,
        &format!("/api/leagues/{id}"),
        Some(&token),
        Some(&json!({"name": "Thurs\u{7}day"}).to_string()),
    )
    .await;
    let r = call(&app, Method::GET, &format!("/api/leagues/{id}"), None, None).await;
    assert_eq!(r.json()["name"], "Thursday");
}

/// Errors that did not say where or what was expected: a config pair with an empty key
/// (`setting "=1" is not of the form key=value`), `?limit=-1` (`invalid digit found in
/// string`), a Rust type for JSON (`expected struct Submission`, `expected internally
/// tagged enum Reset`, `expected f64`), a weight named as `results`. Each names its
/// field or parameter and says what JSON or value was expected.
#[tokio::test]
async fn errors_say_where_and_what_was_expected() {
    let app = app();
    let most = usize::MAX;
    for (config, says) in [
        (
            json!([["", 1]]),
            r#"config[0]: "" is not a parameter's name, expected a non-empty key without "=", as in ["k", "24"]"#,
        ),
        (
            json!(["k=24", ["a=b", 1]]),
            r#"config[1]: "a=b" is not a parameter's name, expected a non-empty key without "=", as in ["k", "24"]"#,
        ),
        (
            json!(["=1"]),
            r#"config[0]: "=1" is not a setting, expected key=value with a non-empty key, as in "k=24""#,
        ),
        (
            json!(["k"]),
            r#"config[0]: "k" is not a setting, expected key=value with a non-empty key, as in "k=24""#,
        ),
        (
            json!({" ": 1}),
            r#"config: " " is not a parameter's name, expected a non-empty key, as in {"k": 24}"#,
        ),
    ] {
        let body = json!({"name": "Configured", "system": "elo", "config": config});
        let r = refused(
            &app,
            Method::POST,
            "/api/leagues",
            None,
            Some(&body.to_string()),
        )
        .await;
        assert_eq!(r.error(), says, "{config}");
    }
    let r = call(&app, Method::GET, "/api/leagues", None, None).await;
    assert_eq!(r.json(), json!([]), "nothing created");

    let (id, token) = create(&app, json!({"name": "Words", "system": "sme"})).await;
    let url = format!("/api/leagues/{id}");
    let r = call(
        &app,
        Method::POST,
        &format!("{url}/matches"),
        Some(&token),
        Some(&game("g1", &[("ann", 1), ("bo", 2)])),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
    for (query, says) in [
        (
            "leaderboard?limit=-1".to_string(),
            format!(r#"invalid query string: parameter `limit`: "-1" is not valid, expected a whole number from 0 to {most}"#),
        ),
        (
            "leaderboard?offset=ten".to_string(),
            format!(r#"invalid query string: parameter `offset`: "ten" is not valid, expected a whole number from 0 to {most}"#),
        ),
        (
            "players/ann/rivals?frequent=-7".to_string(),
            format!(r#"invalid query string: parameter `frequent`: "-7" is not valid, expected a whole number from 0 to {most}"#),
        ),
        (
            "players/ann/rivals?min_meetings=2.5".to_string(),
            r#"invalid query string: parameter `min_meetings`: "2.5" is not valid, expected a whole number from 0 to 4294967295"#.to_string(),
        ),
        (
            "players/ann/rivals?x=42".to_string(),
            "invalid query string: parameter `x`: unknown field `x`, expected `min_meetings` or `frequent`".to_string(),
        ),
        (
            "versus?a=ann".to_string(),
            "invalid query string: missing field `b`".to_string(),
        ),
        (
            "matches?download=maybe".to_string(),
            r#"invalid query string: parameter `download`: "maybe" is not valid, expected true or false"#.to_string(),
        ),
    ] {
        let r = call(&app, Method::GET, &format!("{url}/{query}"), None, None).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{query}: {}", r.text);
        assert_eq!(r.error(), says, "{query}");
    }
    let r = call(
        &app,
        Method::GET,
        &format!("{url}/leaderboard?limit=1&offset=0"),
        None,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json().as_array().unwrap().len(), 1);

    let matches = format!("{url}/matches");
    for (method, uri, body, says) in [
        (
            Method::POST,
            matches.clone(),
            "null".to_string(),
            r#"invalid request body: invalid type: null, expected a match, an object such as {"results": [{"player": "ann", "rank": 1}, {"player": "bo", "rank": 2}]}"#,
        ),
        (
            Method::POST,
            matches.clone(),
            r#"{"results": [null]}"#.to_string(),
            r#"invalid request body: field `results[0]`: invalid type: null, expected a result, an object such as {"player": "ann", "rank": 1}"#,
        ),
        (
            Method::POST,
            matches.clone(),
            r#"{"results": {"player": "ann"}}"#.to_string(),
            "invalid request body: field `results`: invalid type: an object, expected an array",
        ),
        (
            Method::PUT,
            format!("{matches}/g1"),
            r#"{"results": [{"player": "ann", "rank": "1"}]}"#.to_string(),
            r#"invalid request body: field `results[0].rank`: invalid type: string "1", expected a number"#,
        ),
        (
            Method::POST,
            format!("{url}/seasons"),
            r#"{"name": "Spring", "reset": "hard"}"#.to_string(),
            r#"reset: invalid type: string "hard", expected a reset, an object such as {"kind": "soft", "pull": 0.5}"#,
        ),
        (
            Method::POST,
            format!("{url}/balance"),
            r#"{"players": ["ann", "bo"], "teams": -1}"#.to_string(),
            "invalid request body: field `teams`: invalid value: integer `-1`, expected a whole number ≥ 0",
        ),
        (
            Method::POST,
            "/api/leagues".to_string(),
            "[]".to_string(),
            r#"invalid request body: invalid type: an array, expected a league, an object such as {"name": "Thursday"}"#,
        ),
    ] {
        let r = call(&app, method.clone(), &uri, Some(&token), Some(&body)).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{method} {uri} {body}: {}", r.text);
        assert_eq!(r.error(), says, "{method} {uri} {body}");
    }

    // A weight out of range names its field, for a single match and an array's alike.
    let heavy = json!({"id": "w", "results": [
        {"player": "ann", "rank": 1, "weight": 2}, {"player": "bo", "rank": 2}]});
    let weighed = "field `results[0].weight`: player \"ann\": weight 2 must be in [1e-9, 1], the share of the match played";
    let r = refused(
        &app,
        Method::POST,
        &matches,
        Some(&token),
        Some(&heavy.to_string()),
    )
    .await;
    assert_eq!(r.error(), format!("invalid match: match \"w\", {weighed}"));
    let mut unnamed = heavy.clone();
    unnamed.as_object_mut().unwrap().remove("id");
    unnamed["results"][1]["weight"] = json!(0);
    unnamed["results"][0]["weight"] = json!(0.5);
    let r = call(
        &app,
        Method::POST,
        &matches,
        Some(&token),
        Some(&json!([unnamed]).to_string()),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        r.json()[0]["error"],
        "invalid match: match 0 of the array, field `results[1].weight`: player \"bo\": weight 0 must be in [1e-9, 1], the share of the match played"
    );
    refused(
        &app,
        Method::PUT,
        &format!("{matches}/g1"),
        Some(&token),
        Some(&heavy.to_string()),
    )
    .await;
    let r = call(&app, Method::GET, &matches, None, None).await;
    assert_eq!(r.text.lines().count(), 1, "only g1, as it was: {}", r.text);
}
