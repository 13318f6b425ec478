//! A league's seasons: start one (admin), list them, read a season's board (archived
//! for a season that ended, live for the current one). See [`podium::season`] for the
//! resets and [`podium_store::Leagues::start_season`] for where a season starts.

use axum::extract::{RawPathParams, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use podium::season::Reset;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{quote, ApiError};
use crate::extract::{AppJson, League, LeagueAdmin};
use crate::AppState;

/// The body of `POST /api/leagues/{id}/seasons`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewSeason {
    name: String,
    /// Read as a [`Reset`] once its fields are checked against its kind.
    reset: serde_json::Value,
}

/// The reset of a new season's body: a [`Reset`], whose `pull` and `widen` belong to a
/// soft reset only (given with another kind, they would be dropped unseen).
fn reset_of(value: serde_json::Value) -> Result<Reset, ApiError> {
    let invalid = |message: String| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message);
    if let Some(kind @ ("hard" | "none")) = value.get("kind").and_then(|k| k.as_str()) {
        let extra = value
            .as_object()
            .into_iter()
            .flat_map(|o| o.keys())
            .find(|k| *k != "kind");
        if let Some(key) = extra {
            return Err(invalid(format!(
                "reset: kind {kind} takes no `{key}`; only a soft reset has pull and widen"
            )));
        }
    }
    serde_json::from_value(value).map_err(|e| {
        invalid(format!(
            "reset: {}",
            crate::extract::in_json_terms(&e.to_string())
        ))
    })
}

pub(crate) async fn start_season(
    State(state): State<AppState>,
    LeagueAdmin(id): LeagueAdmin,
    AppJson(body): AppJson<NewSeason>,
) -> Result<Response, ApiError> {
    let reset = reset_of(body.reset)?;
    let season = state
        .with_leagues(move |l| l.start_season(id, &body.name, reset))
        .await?;
    tracing::info!(league = id, season = season.number, name = %season.name, "season started");
    Ok((StatusCode::CREATED, Json(season)).into_response())
}

pub(crate) async fn seasons(
    State(state): State<AppState>,
    League(id): League,
) -> Result<Response, ApiError> {
    let list = state.with_leagues(move |l| l.seasons(id)).await?;
    Ok(Json(list).into_response())
}

pub(crate) async fn season_board(
    State(state): State<AppState>,
    League(id): League,
    params: RawPathParams,
) -> Result<Response, ApiError> {
    let raw = params
        .iter()
        .find(|(k, _)| *k == "n")
        .map(|(_, v)| v.to_string())
        .unwrap_or_default();
    let number: i64 = match raw.parse::<i64>() {
        Ok(n) if n >= 1 && raw == n.to_string() => n,
        _ => {
            return Err(ApiError::not_found(format!(
                "no season {}: seasons are numbered 1, 2, …",
                quote(&raw)
            )))
        }
    };
    let board = state
        .with_leagues(move |l| l.season_board(id, number))
        .await?;
    Ok(Json(board).into_response())
}

/// The OpenAPI entries of the seasons' routes, put in `doc`.
pub(crate) fn document(doc: &mut Value) {
    let id = json!({"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "League id"});
    let n = json!({"name": "n", "in": "path", "required": true, "schema": {"type": "string"}, "description": "Season number: 1 for the first"});
    let error = |d: &str| json!({"description": d, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    let unavailable = json!({"description": "The league is being loaded from its ledger; try again after Retry-After seconds",
        "headers": {"Retry-After": {"schema": {"type": "integer"}}}});
    let season = json!({"$ref": "#/components/schemas/Season"});
    doc["paths"]["/api/leagues/{id}/seasons"] = json!({
        "get": {"summary": "The league's seasons, the first first: number, name, start, reset, match count, and which is current",
            "parameters": [id],
            "responses": {"200": {"description": "Seasons", "content": {"application/json": {"schema": {"type": "array", "items": season}}}},
                "404": error("No such league"), "503": unavailable}},
        "post": {"summary": "Start a new season now: the current season's board is kept as it stands, the ratings reset, and matches entered after it belong to the new season",
            "description": "`reset.kind`: `hard` (everyone at the system's initial rating), `soft` (each rating pulled towards the mean of the season's active players by `pull` in [0, 1], default 0.5, and σ widened in quadrature by `widen` ≥ 0 times a new player's σ, default 0.25) or `none` (ratings carry on; only games and wins start again). In a league of dated matches the season starts today (midnight UTC), after the matches already entered: a match entered later and dated today or after belongs to the new season; one dated before is placed by its date, in the season it was played in, whose board and every later one are then worked out again.",
            "parameters": [id], "security": [{"bearer": []}],
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewSeason"}}}},
            "responses": {"201": {"description": "Started", "content": {"application/json": {"schema": season}}},
                "401": error("Missing or wrong token"), "403": error("Another league's token"),
                "404": error("No such league"), "415": error("Not a JSON body"),
                "422": error(&format!("Unknown reset kind, pull outside [0, 1], widen negative, a name empty, over {} characters, with a control character or used already in the league (letter case aside), or a reset the system refuses; nothing is stored", podium_store::MAX_SEASON_NAME)),
                "503": unavailable}}
    });
    doc["paths"]["/api/leagues/{id}/seasons/{n}/board"] = json!({
        "get": {"summary": "A season's board: the final board of a season that ended (kept as it stood, worked out again only when a match of it or of an earlier season changes), the live board for the current one; the players who played in the season, with that season's games and wins",
            "parameters": [id, n],
            "responses": {"200": {"description": "Rows, best first", "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Standing"}}}}},
                "404": error("No such league or season"), "503": unavailable}}
    });
    let reset = json!({"type": "object", "required": ["kind"], "additionalProperties": false, "properties": {
        "kind": {"enum": ["hard", "soft", "none"]},
        "pull": {"type": "number", "minimum": 0, "maximum": 1, "default": podium::season::DEFAULT_PULL},
        "widen": {"type": "number", "minimum": 0, "default": podium::season::DEFAULT_WIDEN}}});
    doc["components"]["schemas"]["NewSeason"] = json!({"type": "object", "required": ["name", "reset"], "additionalProperties": false,
        "properties": {"name": {"type": "string", "minLength": 1, "maxLength": podium_store::MAX_SEASON_NAME, "pattern": crate::openapi::NO_CONTROL,
            "description": "Without control characters, spaces around it left out; no other season of the league has it, spaces around it and letter case aside"}, "reset": reset}});
    doc["components"]["schemas"]["Season"] = json!({"type": "object", "properties": {
        "number": {"type": "integer"}, "name": {"type": "string"},
        "start_seq": {"type": "integer", "description": "The ledger position the season starts at"},
        "start_time": {"type": ["string", "null"], "description": "When it started, in a league of dated matches"},
        "reset": {"oneOf": [reset, {"type": "null"}]}, "created_at": {"type": ["string", "null"]},
        "matches": {"type": "integer"}, "current": {"type": "boolean"}}});
}
