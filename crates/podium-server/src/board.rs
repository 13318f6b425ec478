//! The full leaderboard as served: serialised once per change of the league, with its
//! entity tag, and compressed copies made on first demand and kept beside it.
//!
//! A 100,000-player board is 20 MB of JSON. The store keeps it per change of the league
//! (rebuilt from per-player pieces, so after a match only its players' rows are serialised
//! again); sending it is one write of a single buffer with a `Content-Length`, and what
//! is left of the cost is moving 20 MB to the client. Clients that accept `zstd` or `gzip` get ~1.3 MB instead (compressed once per
//! change, not per request), and clients that revalidate with `If-None-Match` get a 304
//! while the board is unchanged.

use std::sync::{Arc, OnceLock};

use axum::body::Bytes;
use axum::http::{header, HeaderMap};
use podium_store::BoardJson;

/// A content coding the full board can be sent in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coding {
    Identity,
    Gzip,
    Zstd,
}

impl Coding {
    /// The `Content-Encoding` value, `None` for identity.
    pub(crate) fn content_encoding(self) -> Option<&'static str> {
        match self {
            Coding::Identity => None,
            Coding::Gzip => Some("gzip"),
            Coding::Zstd => Some("zstd"),
        }
    }

    /// The coding to send for a request's `Accept-Encoding`: the acceptable one with the
    /// highest q-value, zstd before gzip before identity on ties (zstd is as small as gzip
    /// here and decodes several times faster). Identity when the header is absent, or
    /// when nothing it names is acceptable.
    pub(crate) fn negotiate(headers: &HeaderMap) -> Coding {
        let mut q_zstd = None;
        let mut q_gzip = None;
        let mut q_identity = None;
        let mut q_any = None;
        for value in headers.get_all(header::ACCEPT_ENCODING) {
            let Ok(value) = value.to_str() else { continue };
            for item in value.split(',') {
                let mut parts = item.split(';');
                let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
                let mut q = 1.0_f32;
                for p in parts {
                    if let Some((k, v)) = p.split_once('=') {
                        if k.trim().eq_ignore_ascii_case("q") {
                            q = v.trim().parse().unwrap_or(0.0);
                        }
                    }
                }
                match name.as_str() {
                    "zstd" => q_zstd = Some(q),
                    "gzip" | "x-gzip" => q_gzip = Some(q),
                    "identity" => q_identity = Some(q),
                    "*" => q_any = Some(q),
                    _ => {}
                }
            }
        }
        let q_zstd = q_zstd.or(q_any).unwrap_or(0.0);
        let q_gzip = q_gzip.or(q_any).unwrap_or(0.0);
        let q_identity = q_identity.or(q_any).unwrap_or(1.0);
        let best = [
            (Coding::Zstd, q_zstd),
            (Coding::Gzip, q_gzip),
            (Coding::Identity, q_identity),
        ]
        .into_iter()
        .filter(|&(_, q)| q > 0.0)
        .fold(None::<(Coding, f32)>, |best, (c, q)| match best {
            Some((_, bq)) if bq >= q => best,
            _ => Some((c, q)),
        });
        best.map_or(Coding::Identity, |(c, _)| c)
    }
}

/// The serialised full board of one league, as of one state of its ledger.
pub(crate) struct BoardBody {
    /// The store's version of the board: the body is current while the store reports
    /// the same version.
    pub(crate) version: u64,
    /// Players on the board.
    pub(crate) rows: usize,
    plain: Bytes,
    /// The entity tag's opaque part (without quotes or coding suffix).
    tag: String,
    gzip: OnceLock<Result<Bytes, String>>,
    zstd: OnceLock<Result<Bytes, String>>,
}

/// The JSON shared with the store's cache, as the bytes of a response body (no copy).
struct Shared(Arc<Vec<u8>>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Random per process, so that tags from before a restart never name a board of after.
fn process_nonce() -> u64 {
    static NONCE: OnceLock<u64> = OnceLock::new();
    *NONCE.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish()
    })
}

impl BoardBody {
    pub(crate) fn new(board: BoardJson) -> Self {
        BoardBody {
            version: board.version,
            rows: board.rows,
            plain: Bytes::from_owner(Shared(board.json)),
            tag: format!("{:016x}-{:x}", process_nonce(), board.version),
            gzip: OnceLock::new(),
            zstd: OnceLock::new(),
        }
    }

    /// The tag of the board: the store's version of it, made unique across restarts.
    pub(crate) fn tag(&self) -> &str {
        &self.tag
    }

    /// The body in `coding`, compressing the JSON the first time a coding is asked for;
    /// concurrent first users wait for one compression. Blocking the first time: call
    /// it off the async workers.
    pub(crate) fn encoded(&self, coding: Coding) -> Result<Bytes, String> {
        match self.copy(coding) {
            None => Ok(self.plain.clone()),
            Some(cell) => cell
                .get_or_init(|| compress(&self.plain, coding).map(Bytes::from))
                .clone(),
        }
    }

    /// The body in `coding` if it has been made already (never blocks).
    pub(crate) fn encoded_ready(&self, coding: Coding) -> Option<Bytes> {
        match self.copy(coding) {
            None => Some(self.plain.clone()),
            Some(cell) => cell.get()?.as_ref().ok().cloned(),
        }
    }

    /// Where the compressed copy in `coding` is kept; `None` for identity.
    fn copy(&self, coding: Coding) -> Option<&OnceLock<Result<Bytes, String>>> {
        match coding {
            Coding::Identity => None,
            Coding::Zstd => Some(&self.zstd),
            Coding::Gzip => Some(&self.gzip),
        }
    }
}

fn compress(plain: &[u8], coding: Coding) -> Result<Vec<u8>, String> {
    use std::io::Write;
    match coding {
        Coding::Identity => Ok(plain.to_vec()),
        Coding::Zstd => zstd::bulk::compress(plain, ZSTD_LEVEL).map_err(|e| e.to_string()),
        Coding::Gzip => {
            let mut enc = flate2::write::GzEncoder::new(
                Vec::with_capacity(plain.len() / 8),
                flate2::Compression::new(GZIP_LEVEL),
            );
            enc.write_all(plain).map_err(|e| e.to_string())?;
            enc.finish().map_err(|e| e.to_string())
        }
    }
}

/// zstd level: 1 is both the fastest to make and, on leaderboards, about as small as 3–6.
const ZSTD_LEVEL: i32 = 1;
/// gzip level: 1 makes the copy several times faster than 6 for ~20 % more bytes.
const GZIP_LEVEL: u32 = 1;

/// The `ETag` of the board's JSON sent in `coding`: each representation has its own
/// (strong) tag, all derived from the board's version.
pub(crate) fn etag(tag: &str, coding: Coding) -> String {
    match coding.content_encoding() {
        None => format!("\"{tag}\""),
        Some(c) => format!("\"{tag}-{c}\""),
    }
}

/// Whether `If-None-Match` names the board whose JSON has tag `tag`, in any coding
/// (weak comparison, as RFC 9110 asks for `If-None-Match`; `*` matches).
pub(crate) fn not_modified(headers: &HeaderMap, tag: &str) -> bool {
    headers.get_all(header::IF_NONE_MATCH).iter().any(|v| {
        let Ok(v) = v.to_str() else { return false };
        v.split(',').any(|t| {
            let t = t.trim();
            if t == "*" {
                return true;
            }
            let t = t.strip_prefix("W/").unwrap_or(t);
            let Some(opaque) = t.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else {
                return false;
            };
            let base = opaque
                .strip_suffix("-zstd")
                .or_else(|| opaque.strip_suffix("-gzip"))
                .unwrap_or(opaque);
            base == tag
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn accept(v: &str) -> Coding {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
        Coding::negotiate(&h)
    }

    #[test]
    fn negotiation_follows_q_values_then_server_preference() {
        assert_eq!(Coding::negotiate(&HeaderMap::new()), Coding::Identity);
        assert_eq!(accept("gzip, deflate, br, zstd"), Coding::Zstd);
        assert_eq!(accept("gzip, deflate, br"), Coding::Gzip);
        assert_eq!(accept("x-gzip"), Coding::Gzip);
        assert_eq!(accept("br"), Coding::Identity);
        assert_eq!(accept("zstd;q=0.5, gzip"), Coding::Gzip);
        assert_eq!(accept("zstd;q=0, gzip;q=0"), Coding::Identity);
        assert_eq!(accept("identity"), Coding::Identity);
        assert_eq!(accept("*"), Coding::Zstd);
        assert_eq!(accept("*;q=0, identity"), Coding::Identity);
        assert_eq!(accept("gzip;q=0.2, identity;q=0.5"), Coding::Identity);
        assert_eq!(accept("GZIP ; Q=1"), Coding::Gzip);
        assert_eq!(
            accept("identity;q=0"),
            Coding::Identity,
            "nothing else is offered"
        );
    }

    #[test]
    fn if_none_match_compares_weakly_across_codings() {
        let inm = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::IF_NONE_MATCH, HeaderValue::from_str(v).unwrap());
            not_modified(&h, "abc")
        };
        assert!(inm("\"abc\""));
        assert!(inm("W/\"abc\""));
        assert!(inm("\"abc-zstd\""));
        assert!(inm("\"x\", \"abc-gzip\""));
        assert!(inm("*"));
        assert!(!inm("\"abcd\""));
        assert!(!inm("abc"));
        assert!(!inm("\"abc-br\""));
        assert!(!not_modified(&HeaderMap::new(), "abc"));
        assert_eq!(etag("abc", Coding::Identity), "\"abc\"");
        assert_eq!(etag("abc", Coding::Zstd), "\"abc-zstd\"");
    }
}
