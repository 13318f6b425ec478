//! The web pages: one HTML shell, a stylesheet and a script, embedded in the binary so
//! that the pages work offline (no CDN). The script reads the JSON API.

use axum::http::header;
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use axum::Router;

use crate::AppState;

const SHELL: &str = include_str!("../assets/index.html");
const SCRIPT: &str = include_str!("../assets/app.js");
const STYLE: &str = include_str!("../assets/app.css");

/// The page routes.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(shell))
        .route("/leagues/{id}", get(shell))
        .route("/leagues/{id}/players/{player}", get(shell))
        .route("/static/app.js", get(script))
        .route("/static/app.css", get(style))
}

async fn shell() -> Html<&'static str> {
    Html(SHELL)
}

async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        SCRIPT,
    )
}

async fn style() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE)
}
