//! Browser protections on every response. The pages keep a league's admin token in the
//! browser and fill it into their forms, so no other site may frame them
//! (clickjacking), they run only their own script and style (no inline code: a content
//! security policy without `unsafe-inline`), responses are never sniffed into another
//! type, and no address leaks to other sites.

use axum::http::{header, HeaderName, HeaderValue};
use axum::Router;
use tower_http::set_header::SetResponseHeaderLayer;

/// The content security policy: the page's own script, style and API only.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The headers set on every response (unless a handler set them).
pub fn headers() -> [(HeaderName, HeaderValue); 4] {
    [
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
        (
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ),
    ]
}

/// `router` with [`headers`] on every response.
pub fn layer(router: Router) -> Router {
    headers().into_iter().fold(router, |r, (name, value)| {
        r.layer(SetResponseHeaderLayer::if_not_present(name, value))
    })
}
