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
}

impl ApiError {
    /// An error with a status and message.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
        }
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

/// `text` quoted as a Rust string literal, cut to its first [`QUOTE_CHARS`] characters:
/// what an error message may repeat of a client's input.
#[must_use]
pub fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        None => format!("{text:?}"),
        Some((end, _)) => format!("{:?}… ({} bytes)", &text[..end], text.len()),
    }
}

/// The most characters of a client's input an error message repeats.
pub const QUOTE_CHARS: usize = 64;

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        let status = match &e {
            StoreError::LeagueNotFound { .. }
            | StoreError::MatchNotFound { .. }
            | StoreError::PlayerNotFound { .. } => StatusCode::NOT_FOUND,
            StoreError::Unauthorized => StatusCode::UNAUTHORIZED,
            StoreError::Forbidden { .. } => StatusCode::FORBIDDEN,
            StoreError::Conflict { .. } => StatusCode::CONFLICT,
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

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> Self {
        ApiError::bad_request(r.body_text())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut res = (
            self.status,
            Json(serde_json::json!({ "error": self.message })),
        )
            .into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            res.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
        }
        res
    }
}
