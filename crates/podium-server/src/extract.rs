//! The extractors the handlers share: each says once what every handler would otherwise
//! repeat (which league the path names, whose token the request carries, the JSON body),
//! and rejects with the API's own error.

use axum::extract::rejection::RawPathParamsRejection;
use axum::extract::{FromRequest, FromRequestParts, Query, RawPathParams, Request};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::Json;
use podium_store::LeagueId;
use serde::de::DeserializeOwned;

use crate::error::ApiError;
use crate::AppState;

/// A JSON request body, read with axum's [`Json`] (which wants `Content-Type:
/// application/json`) and rejected as an [`ApiError`]: 413 naming `--max-body` for a
/// body over the limit, 400 for malformed JSON, and 422 naming the field at fault for
/// JSON of the wrong shape (`invalid request body: field `bogus`: unknown field …`), the
/// same for every body.
pub(crate) struct AppJson<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for AppJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let Json(value) = Json::<serde_json::Value>::from_request(req, state)
            .await
            .map_err(|r| {
                if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    too_large(state.limits().max_body)
                } else {
                    ApiError::from(r)
                }
            })?;
        crate::api::from_body(value, "invalid request body").map(AppJson)
    }
}

/// The 413 of a body over `--max-body`.
pub(crate) fn too_large(limit: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!(
            "the request body is larger than this server takes: at most {limit} bytes (its operator sets the limit with --max-body)"
        ),
    )
}

/// A query string, rejected as an [`ApiError`].
pub(crate) struct AppQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for AppQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Query(value) = Query::<T>::from_request_parts(parts, state).await?;
        Ok(AppQuery(value))
    }
}

/// The path parameter `name`, percent-decoded.
async fn path_param<S: Send + Sync>(
    parts: &mut Parts,
    state: &S,
    name: &str,
) -> Result<String, ApiError> {
    let params = RawPathParams::from_request_parts(parts, state)
        .await
        .map_err(|r| match r {
            // `Invalid UTF-8 in `player``: the segment at fault, named as the route names it.
            RawPathParamsRejection::InvalidUtf8InPathParam(e) => {
                let text = e.body_text();
                let segment = text.split('`').nth(1).unwrap_or(name);
                ApiError::bad_request(format!(
                    "the path's {{{segment}}} is not UTF-8 once percent-decoded: expected UTF-8 text, each byte beyond ASCII percent-encoded"
                ))
            }
            other => ApiError::bad_request(other.body_text()),
        })?;
    let value = params.iter().find(|(k, _)| *k == name).map(|(_, v)| v);
    value
        .map(str::to_string)
        .ok_or_else(|| ApiError::internal(format!("the route has no {{{name}}} parameter")))
}

/// The league the path names (`{id}`); a path whose id is not a number in canonical
/// decimal names no league.
pub(crate) struct League(pub LeagueId);

impl<S: Send + Sync> FromRequestParts<S> for League {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let raw = path_param(parts, state, "id").await?;
        crate::api::league_id(&raw)
            .map(League)
            .ok_or_else(|| ApiError::not_found(format!("no league {}", crate::error::quote(&raw))))
    }
}

/// The match id the path names (`{match}`).
pub(crate) struct MatchKey(pub String);

impl<S: Send + Sync> FromRequestParts<S> for MatchKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        path_param(parts, state, "match").await.map(MatchKey)
    }
}

/// The player the path names (`{player}`).
pub(crate) struct PlayerName(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PlayerName {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        path_param(parts, state, "player").await.map(PlayerName)
    }
}

/// The token of `Authorization: Bearer <token>`.
pub(crate) fn bearer(parts: &Parts) -> Option<String> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then(|| token.to_string())
}

/// The request's bearer token, if any.
pub(crate) struct Bearer(pub Option<String>);

impl<S: Send + Sync> FromRequestParts<S> for Bearer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        Ok(Bearer(bearer(parts)))
    }
}

/// A request that carries the admin token of the league its path names: the league.
pub(crate) struct LeagueAdmin(pub LeagueId);

impl FromRequestParts<AppState> for LeagueAdmin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let League(id) = League::from_request_parts(parts, state).await?;
        let token = bearer(parts).ok_or_else(|| {
            ApiError::new(
                StatusCode::UNAUTHORIZED,
                "this needs the league's admin token: Authorization: Bearer <token>",
            )
        })?;
        state.authorize(id, &token).await?;
        Ok(LeagueAdmin(id))
    }
}
