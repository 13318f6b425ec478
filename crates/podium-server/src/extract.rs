//! The extractors the handlers share: each says once what every handler would otherwise
//! repeat (which league the path names, whose token the request carries, the JSON body),
//! and rejects with the API's own error.

use axum::extract::rejection::RawPathParamsRejection;
use axum::extract::{FromRequest, FromRequestParts, Query, RawPathParams, Request};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::Json;
use podium_store::LeagueId;
use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde::Deserialize;

use crate::error::{quote, ApiError};
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

/// What the bodies' types are, in the words of JSON: serde names a Rust type in its
/// errors (`expected struct Submission`), which a client never sees.
const DESCRIBED: [(&str, &str); 7] = [
    (
        "Submission",
        r#"a match, an object such as {"results": [{"player": "ann", "rank": 1}, {"player": "bo", "rank": 2}]}"#,
    ),
    (
        "LedgerResult",
        r#"a result, an object such as {"player": "ann", "rank": 1}"#,
    ),
    (
        "CreateLeague",
        r#"a league, an object such as {"name": "Thursday"}"#,
    ),
    (
        "PatchLeague",
        r#"the changes of a league, an object such as {"name": "Thursday"}"#,
    ),
    (
        "NewSeason",
        r#"a season, an object such as {"name": "Spring", "reset": {"kind": "soft"}}"#,
    ),
    (
        "BalanceBody",
        r#"an object such as {"players": ["ann", "bo", "cy", "dee"], "teams": 2}"#,
    ),
    (
        "Reset",
        r#"a reset, an object such as {"kind": "soft", "pull": 0.5}"#,
    ),
];

/// What serde calls a value, in the words of JSON.
const JSON_WORDS: [(&str, &str); 14] = [
    ("expected f64", "expected a number"),
    ("expected f32", "expected a number"),
    ("expected usize", "expected a whole number ≥ 0"),
    ("expected u64", "expected a whole number ≥ 0"),
    ("expected u32", "expected a whole number ≥ 0"),
    ("expected u16", "expected a whole number ≥ 0"),
    ("expected u8", "expected a whole number ≥ 0"),
    ("expected i64", "expected a whole number"),
    ("expected i32", "expected a whole number"),
    ("expected a sequence", "expected an array"),
    ("expected a map", "expected an object"),
    ("expected a borrowed string", "expected a string"),
    ("invalid type: sequence", "invalid type: an array"),
    ("invalid type: map", "invalid type: an object"),
];

/// A serde error's `message` in the words of JSON: what was expected said as the JSON
/// a client sends (`expected a match, an object such as {"results": …}`, `expected a
/// number`) where serde names a Rust type (`expected struct Submission`, `expected f64`).
pub(crate) fn in_json_terms(message: &str) -> String {
    let mut out = message.to_string();
    // An array where an object is expected: serde reads a struct from an array of its
    // fields too, and says `invalid length 0, expected struct X with 3 elements`.
    if let Some(start) = out.find("invalid length ") {
        const EXPECTED: &str = ", expected struct ";
        if let Some(found) = out[start..].find(EXPECTED) {
            let name_at = start + found + EXPECTED.len();
            let name_len = out[name_at..]
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            let tail = &out[name_at + name_len..];
            let count = tail.strip_prefix(" with ").map(|t| {
                let digits = t.bytes().take_while(u8::is_ascii_digit).count();
                let word = [" elements", " element"]
                    .into_iter()
                    .find(|w| t[digits..].starts_with(w));
                (digits, word)
            });
            if let Some((digits, Some(word))) = count {
                let end = name_at + name_len + " with ".len() + digits + word.len();
                let name = out[name_at..name_at + name_len].to_string();
                out.replace_range(
                    start..end,
                    &format!("invalid type: an array, expected struct {name}"),
                );
            }
        }
    }
    for prefix in ["expected struct ", "expected internally tagged enum "] {
        let mut from = 0;
        while let Some(found) = out[from..].find(prefix) {
            let at = from + found;
            let name_at = at + prefix.len();
            let len = out[name_at..]
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            let name = &out[name_at..name_at + len];
            let words = DESCRIBED
                .iter()
                .find(|(rust, _)| *rust == name)
                .map_or("an object", |(_, words)| words);
            let said = format!("expected {words}");
            out.replace_range(at..name_at + len, &said);
            from = at + said.len();
        }
    }
    for (rust, json) in JSON_WORDS {
        let mut from = 0;
        while let Some(found) = out[from..].find(rust) {
            let at = from + found;
            let end = at + rust.len();
            let whole_word = !out[end..]
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
            if whole_word {
                out.replace_range(at..end, json);
                from = at + json.len();
            } else {
                from = end;
            }
        }
    }
    out
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

/// A whole number of a query parameter, its largest value named in its error.
pub(crate) trait Whole: std::str::FromStr + std::fmt::Display {
    /// The largest value.
    const MAX: Self;
}

impl Whole for usize {
    const MAX: Self = usize::MAX;
}

impl Whole for u32 {
    const MAX: Self = u32::MAX;
}

/// A query parameter that is a whole number ≥ 0 (`?limit=20`), for
/// `#[serde(default, deserialize_with = "whole")]`: anything else (`-1`, `2.5`, `ten`)
/// is refused saying what was expected, which the number's own parser does not
/// (`invalid digit found in string`).
pub(crate) fn whole<'de, D: Deserializer<'de>, T: Whole>(d: D) -> Result<Option<T>, D::Error> {
    let text = String::deserialize(d)?;
    text.parse().map(Some).map_err(|_| {
        D::Error::custom(format!(
            "{} is not valid, expected a whole number from 0 to {}",
            quote(&text),
            T::MAX
        ))
    })
}

/// A query parameter that is `true` or `false`, for `#[serde(default, deserialize_with =
/// "flag")]`, refused otherwise in the API's words.
pub(crate) fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    let text = String::deserialize(d)?;
    match text.as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(D::Error::custom(format!(
            "{} is not valid, expected true or false",
            quote(&text)
        ))),
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
