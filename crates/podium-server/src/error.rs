//! The one error type of the API: every failure becomes `{"error": "..."}` with the
//! right status. Internal failures are logged in full and answered with a generic text.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use podium_store::StoreError;

/// An API error: a status and a message safe to show.
#[derive(Debug)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The message sent as `{"error": message}`.
    pub message: String,
    /// Seconds after which to try again (`Retry-After`), for 429 and 503.
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error with a status and message.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
        }
    }

    /// The same error, telling the client to try again after `seconds`.
    #[must_use]
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    /// 400 Bad Request.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404 Not Found.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    /// 500, with the cause logged and not sent.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error; see the server log",
        )
    }
}

pub use podium_store::{quote, QUOTE_CHARS};

/// The `Retry-After` of a 503 for a database out of reach: the connections are made
/// again at the next request, and the leagues caught up within a second of its return.
pub const UNAVAILABLE_RETRY_SECONDS: u64 = 1;

/// The `Retry-After` of a 507 for a full disk: room is made by the operator, not in a
/// second.
pub const FULL_RETRY_SECONDS: u64 = 60;

/// The longest message sent; anything longer is cut (the messages that repeat a
/// client's input already cut it, see [`quote`]).
pub const MAX_MESSAGE: usize = 2_000;

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        let status = match &e {
            StoreError::LeagueNotFound { .. }
            | StoreError::MatchNotFound { .. }
            | StoreError::PlayerNotFound { .. }
            | StoreError::SeasonNotFound { .. } => StatusCode::NOT_FOUND,
            StoreError::Unauthorized => StatusCode::UNAUTHORIZED,
            StoreError::Forbidden { .. } => StatusCode::FORBIDDEN,
            StoreError::Conflict { .. } | StoreError::NameTaken { .. } => StatusCode::CONFLICT,
            StoreError::NotReady { .. } => {
                return ApiError::new(StatusCode::SERVICE_UNAVAILABLE, e.to_string()).retry_after(1)
            }
            StoreError::Unavailable { .. } => {
                // The cause (which may name the database's host) is logged, not sent.
                tracing::warn!(error = %e, "the database is unavailable");
                return ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the database is unavailable for now; try again shortly",
                )
                .retry_after(UNAVAILABLE_RETRY_SECONDS);
            }
            StoreError::Full { .. } => {
                // Nothing is corrupt: the write was not stored and may be sent again.
                tracing::error!(error = %e, "the database's disk is full; writes are refused until there is room");
                return ApiError::new(
                    StatusCode::INSUFFICIENT_STORAGE,
                    "the server's database has no room left: nothing was stored; send it again later",
                )
                .retry_after(FULL_RETRY_SECONDS);
            }
            e if e.is_client_error() => StatusCode::UNPROCESSABLE_ENTITY,
            _ => return ApiError::internal(e),
        };
        ApiError::new(status, e.to_string())
    }
}

/// A body that is not JSON: 415 without `Content-Type: application/json`, 400 for
/// malformed JSON, 422 for JSON of the wrong shape, 413 for a body over the limit.
impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        if let Some(late) = cause::<crate::BodyTimedOut>(&r) {
            // The connection is closed after: the rest of the body is not waited for.
            return ApiError::new(StatusCode::REQUEST_TIMEOUT, late.to_string());
        }
        let status = r.status();
        if status.is_server_error() {
            return ApiError::internal(r.body_text());
        }
        let message = match &r {
            JsonRejection::MissingJsonContentType(_) => {
                "the body must be JSON, sent with Content-Type: application/json".to_string()
            }
            _ => r.body_text(),
        };
        ApiError::new(status, message)
    }
}

/// The first error of type `E` in `e`'s chain of causes.
fn cause<'a, E: std::error::Error + 'static>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a E> {
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(found) = e.downcast_ref::<E>() {
            return Some(found);
        }
        next = e.source();
    }
    None
}

/// A query string that does not read as the operation's parameters: 400 naming the
/// parameter at fault, as a body's errors name their field (`invalid query string:
/// parameter `limit`: "-1" is not valid, expected a whole number from 0 to …`).
impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> Self {
        let message = match cause::<serde_path_to_error::Error<serde::de::value::Error>>(&r) {
            Some(e) => match e.path().to_string().as_str() {
                "." => format!("invalid query string: {}", e.inner()),
                path => format!("invalid query string: parameter `{path}`: {}", e.inner()),
            },
            None => r.body_text(),
        };
        ApiError::bad_request(message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut message = self.message;
        if message.len() > MAX_MESSAGE {
            let mut end = MAX_MESSAGE;
            while !message.is_char_boundary(end) {
                end -= 1;
            }
            message.truncate(end);
            message.push('…');
        }
        let mut res = (self.status, Json(serde_json::json!({ "error": message }))).into_response();
        if let Some(seconds) = self.retry_after {
            res.headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from(seconds));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            res.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
        }
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full disk is 507 with `Retry-After`, saying nothing was stored; a failure of
    /// the database otherwise is a 500 with its cause kept in the log.
    #[test]
    fn a_full_disk_is_507_and_other_failures_500() {
        let e = ApiError::from(StoreError::Full {
            reason: "database or disk is full".into(),
        });
        assert_eq!(e.status, StatusCode::INSUFFICIENT_STORAGE);
        assert_eq!(
            e.message,
            "the server's database has no room left: nothing was stored; send it again later"
        );
        assert_eq!(e.retry_after, Some(60));
        let res = e.into_response();
        assert_eq!(res.headers()[header::RETRY_AFTER], "60");
        let e = ApiError::from(StoreError::Failed {
            message: "disk I/O error".into(),
        });
        assert_eq!(e.status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(e.retry_after, None);
    }
}
