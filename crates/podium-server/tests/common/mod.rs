//! What the router tests share: an app on a scratch SQLite database or on a scratch
//! database of a PostgreSQL server, and one request through the router (no sockets)
//! answered as its status and JSON body.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use podium_server::{router, Access, AppState, Limits};
use podium_store::{Leagues, Options, SqliteStore};
use serde_json::Value;
use tower::ServiceExt;

/// The API and pages over a temporary database, open to everyone. (Each test file
/// compiles this module on its own; one that opens its own database leaves it unused.)
#[allow(dead_code)]
pub fn temporary_app() -> Router {
    let leagues = Leagues::open_loaded(
        Arc::new(SqliteStore::temporary().unwrap()),
        Options::default(),
    )
    .unwrap();
    router(AppState::new(leagues, Limits::default(), Access::Open))
}

/// The API and pages over a new database `name` of the PostgreSQL server
/// `PODIUM_TEST_POSTGRES` names (`bash scripts/with-postgres.sh cargo test ...` starts a
/// throwaway one), open to everyone; [`drop_postgres`] removes the database after.
#[allow(dead_code)]
pub async fn postgres_app(name: &str) -> Router {
    let server = postgres_server();
    let name = name.to_string();
    tokio::task::spawn_blocking(move || {
        let url = podium_store::PgStore::create_database(&server, &name).unwrap();
        let leagues =
            Leagues::open_loaded(podium_server::open_store(&url).unwrap(), Options::default())
                .unwrap();
        router(AppState::new(leagues, Limits::default(), Access::Open))
    })
    .await
    .unwrap()
}

/// Drops `app` (a router, or several) and its database `name` made by [`postgres_app`]
/// or by the test itself.
#[allow(dead_code)]
pub async fn drop_postgres<A: Send + 'static>(app: A, name: &str) {
    let (server, name) = (postgres_server(), name.to_string());
    tokio::task::spawn_blocking(move || {
        drop(app);
        if let Ok(mut c) = server
            .parse::<postgres::Config>()
            .and_then(|c| c.connect(postgres::NoTls))
        {
            let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        }
    })
    .await
    .unwrap();
}

/// The PostgreSQL server `PODIUM_TEST_POSTGRES` names, or a clear failure.
#[allow(dead_code)]
pub fn postgres_server() -> String {
    std::env::var("PODIUM_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "this test needs a PostgreSQL server: set PODIUM_TEST_POSTGRES=postgres://USER@HOST:PORT/DB \
             (a user that may create databases), or run it with `bash scripts/with-postgres.sh cargo test ...`"
        )
    })
}

/// The leaderboard of league `id`, asked for with [`call`], which must answer 200.
#[allow(dead_code)]
pub async fn board(app: &Router, id: i64) -> Value {
    let (status, v) = call(
        app,
        Method::GET,
        &format!("/api/leagues/{id}/leaderboard"),
        None,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    v
}

/// One request: `token` as a bearer token, `body` as JSON. The answer's body is read as
/// JSON, or kept as a string when it is not JSON.
#[allow(dead_code)]
pub async fn call(
    app: &Router,
    method: Method,
    uri: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(t) = token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let req = req
        .body(Body::from(body.map(|b| b.to_string()).unwrap_or_default()))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let bytes = axum::body::to_bytes(res.into_body(), 64 << 20)
        .await
        .unwrap();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}
