//! Starting ratings: a CSV `player,rating[,games][,sigma]` (header required), to carry an
//! existing league over.

use std::io::Read;

use podium::Rating;

use crate::error::ReadError;

/// One player's starting rating.
#[derive(Debug, Clone, PartialEq)]
pub struct InitialRating {
    /// Player id.
    pub player: String,
    /// Starting rating.
    pub rating: f64,
    /// Uncertainty σ, for systems that keep one (optional `sigma` column).
    pub sigma: Option<f64>,
    /// Rated games already played (optional `games` column, default 0).
    pub games: u32,
    /// The 1-based line of the file the rating is on.
    pub line: u64,
}

impl InitialRating {
    /// The starting rating as a [`Rating`].
    #[must_use]
    pub fn rating(&self) -> Rating {
        Rating {
            value: self.rating,
            sigma: self.sigma,
            games: self.games,
        }
    }
}

/// Reads every starting rating; any bad row fails the whole file.
///
/// # Errors
/// [`ReadError`] naming the line and field of the first bad row, or a player listed twice.
pub fn read_initial_ratings(
    file: &str,
    mut input: impl Read,
) -> Result<Vec<InitialRating>, ReadError> {
    // A ratings file is small: read it whole so that each row's own line can be found
    // from its byte offset (the csv crate reports the line before a row that follows a
    // `\r\n` or a blank line).
    let mut text = Vec::new();
    input
        .read_to_end(&mut text)
        .map_err(|source| ReadError::Io {
            file: file.into(),
            source,
        })?;
    // A file in UTF-16 or UTF-32 is named as such, as every reader names it.
    let first = text.split(|&b| b == b'\n').next().unwrap_or_default();
    if let Some(wide) = crate::error::Wide::of(first, true) {
        return Err(wide.error(file, 1));
    }
    let line_of = |pos: &csv::Position| row_line(&text, pos.byte());
    let mut rdr = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .flexible(true)
        .from_reader(text.as_slice());
    let headers = rdr
        .headers()
        .map_err(|e| ReadError::Format {
            file: file.into(),
            line: 1,
            message: e.to_string(),
        })?
        .clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim_start_matches('\u{feff}').eq_ignore_ascii_case(name))
    };
    let (Some(pc), Some(rc)) = (col("player"), col("rating")) else {
        return Err(ReadError::Format {
            file: file.into(),
            line: 1,
            message: "header must name the columns player,rating[,games][,sigma]".into(),
        });
    };
    let (gc, sc) = (col("games"), col("sigma"));
    let mut out: Vec<InitialRating> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| ReadError::Format {
            file: file.into(),
            line: e.position().map_or(0, line_of),
            message: e.to_string(),
        })?;
        let line = rec.position().map_or(0, line_of);
        let bad = |field: &str, value: &str, expected: &str| ReadError::Field {
            file: file.into(),
            line,
            match_id: None,
            field: field.into(),
            value: value.into(),
            expected: expected.into(),
        };
        let player = rec.get(pc).unwrap_or("");
        if !podium::model::check_id(player) {
            let shown: String = player.chars().take(60).collect();
            return Err(bad(
                "player",
                &shown,
                "a player id of 1 to 200 bytes without surrounding spaces or control characters",
            ));
        }
        let r = rec.get(rc).unwrap_or("");
        let rating = r
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| bad("rating", r, "a finite number"))?;
        let games = match gc.and_then(|i| rec.get(i)).filter(|v| !v.is_empty()) {
            None => 0,
            Some(g) => g
                .parse::<u32>()
                .map_err(|_| bad("games", g, "a whole number ≥ 0"))?,
        };
        let sigma = match sc.and_then(|i| rec.get(i)).filter(|v| !v.is_empty()) {
            None => None,
            Some(s) => Some(
                s.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| bad("sigma", s, "a finite number ≥ 0"))?,
            ),
        };
        if let Some(prev) = seen.insert(player.to_string(), line) {
            return Err(bad(
                "player",
                player,
                &format!("each player once (also on line {prev})"),
            ));
        }
        out.push(InitialRating {
            player: player.into(),
            rating,
            sigma,
            games,
            line,
        });
    }
    Ok(out)
}

/// The 1-based line of the row the csv crate places at byte `byte`: its offset can point
/// at the line ends (or, for the first row, the byte-order mark) before the row.
fn row_line(text: &[u8], byte: u64) -> u64 {
    let bom = if text.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    let mut start = (byte as usize).max(bom).min(text.len());
    while start < text.len() && matches!(text[start], b'\r' | b'\n') {
        start += 1;
    }
    1 + text[..start].iter().filter(|&&b| b == b'\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ratings_and_games() {
        let s = read_initial_ratings(
            "i.csv",
            "player,rating,games\nA,1000,3\nB,1200,\n".as_bytes(),
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].rating(), Rating::new(1000.0).games(3));
        assert_eq!(s[1].games, 0);
    }

    #[test]
    fn bad_rows_name_line_and_field() {
        let e = read_initial_ratings("i.csv", "player,rating\nA,1000\nB,lots\n".as_bytes())
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "i.csv:3: field `rating`: \"lots\" is not valid, expected a finite number"
        );
        let e = read_initial_ratings(
            "i.csv",
            "player,rating\r\nA,1000\r\n\r\nB,lots\r\n".as_bytes(),
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("i.csv:4: field `rating`"), "{e}");
        let e = read_initial_ratings("i.csv", "player,rating\nA,1\nA,2\n".as_bytes()).unwrap_err();
        assert!(e.to_string().contains("also on line 2"), "{e}");
        let e = read_initial_ratings("i.csv", "name,rating\n".as_bytes()).unwrap_err();
        assert!(e.to_string().contains("player,rating"), "{e}");
    }

    #[test]
    fn player_id_longer_than_the_limit_is_refused() {
        let long = "p".repeat(201);
        let e = read_initial_ratings(
            "i.csv",
            format!("player,rating\nA,1\n{long},2\n").as_bytes(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("i.csv:3: field `player`: {:?} is not valid, expected a player id of 1 to 200 bytes without surrounding spaces or control characters", "p".repeat(60))
        );
        let e = read_initial_ratings("i.csv", "player,rating\na\u{1}b,1\n".as_bytes()).unwrap_err();
        assert!(e.to_string().starts_with("i.csv:2: field `player`"), "{e}");
        let longest = "p".repeat(200);
        assert!(
            read_initial_ratings("i.csv", format!("player,rating\n{longest},1\n").as_bytes())
                .is_ok()
        );
    }

    #[test]
    fn a_utf16_file_is_named_as_such() {
        let mut bytes = vec![0xFF, 0xFE];
        for c in "player,rating\nann,1500\n".encode_utf16() {
            bytes.extend_from_slice(&c.to_le_bytes());
        }
        let err = read_initial_ratings("r.csv", bytes.as_slice()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "r.csv:1: the file is not UTF-8 text: it starts with a UTF-16 (little-endian) byte-order mark; expected UTF-8 text (convert it with `iconv -f UTF-16 -t UTF-8`)"
        );
    }
}
