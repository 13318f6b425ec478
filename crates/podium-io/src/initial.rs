//! Starting ratings: a CSV `player,rating[,games][,sigma]` (header required, columns in
//! any order and any case, other columns ignored), to carry an existing league over. It
//! is split into rows as the match files are, and what does not fit is refused in the
//! same words.

use std::io::Read;

use podium::Rating;

use crate::error::{ReadError, Wide};
use crate::records::Records;

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

/// The columns a ratings file may have.
const COLUMNS: [&str; 4] = ["player", "rating", "games", "sigma"];

/// Reads every starting rating; any bad row fails the whole file.
///
/// The CSV is read as the match files are (the same splitter): a header that names a
/// column twice, a row with more fields than the header, a quote never closed and a line
/// longer than [`crate::MAX_LINE`] are refused as they are there.
///
/// # Errors
/// [`ReadError`] naming the line and field of the first bad row, or a player listed twice.
pub fn read_initial_ratings(file: &str, input: impl Read) -> Result<Vec<InitialRating>, ReadError> {
    let mut records = Records::new(input);
    let header = match records.next_record() {
        Ok(header) => header,
        Err(e) => return Err(e.read_error(file, &[])),
    };
    let Some(header) = header else {
        return Err(ReadError::Format {
            file: file.into(),
            line: 1,
            message: "header must name the columns player,rating[,games][,sigma]".into(),
        });
    };
    // A file in UTF-16 or UTF-32 is named as such, as every reader names it.
    if let Some(wide) = Wide::of_header(header.iter()) {
        return Err(wide.error(file, header.line));
    }
    let header_line = header.line;
    let names = crate::records::header_names(&header);
    let at = |name: &str| -> Vec<usize> {
        names
            .iter()
            .enumerate()
            .filter(|(_, h)| h.eq_ignore_ascii_case(name))
            .map(|(i, _)| i)
            .collect()
    };
    // A column read may be named once: which of two would be read?
    for name in COLUMNS {
        if let [first, second, ..] = at(name)[..] {
            return Err(ReadError::Format {
                file: file.into(),
                line: header_line,
                message: format!(
                    "header names the column `{name}` twice (columns {} and {}); each column may appear once",
                    first + 1,
                    second + 1
                ),
            });
        }
    }
    let col = |name: &str| at(name).first().copied();
    let (Some(pc), Some(rc)) = (col("player"), col("rating")) else {
        return Err(ReadError::Format {
            file: file.into(),
            line: header_line,
            message: "header must name the columns player,rating[,games][,sigma]".into(),
        });
    };
    let (gc, sc) = (col("games"), col("sigma"));
    let mut out: Vec<InitialRating> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    loop {
        let rec = match records.next_record() {
            Ok(Some(rec)) => rec,
            Ok(None) => break,
            Err(e) => return Err(e.read_error(file, &names)),
        };
        let line = rec.line;
        let bad = |field: &str, value: &str, expected: &str| ReadError::Field {
            file: file.into(),
            line,
            match_id: None,
            field: field.into(),
            value: value.into(),
            expected: expected.into(),
        };
        if let Some((field, value, expected)) = crate::records::extra_fields(&rec, names.len()) {
            return Err(bad(&field, &value, &expected));
        }
        // A field the row does not have is empty.
        let text = |field: &str, i: Option<usize>| -> Result<&str, ReadError> {
            let raw = i.and_then(|i| rec.get(i)).unwrap_or_default();
            std::str::from_utf8(raw)
                .map(str::trim)
                .map_err(|_| bad(field, &String::from_utf8_lossy(raw), "valid UTF-8 text"))
        };
        let player = text("player", Some(pc))?;
        if !podium::model::check_id(player) {
            let shown: String = player.chars().take(60).collect();
            return Err(bad(
                "player",
                &shown,
                "a player id of 1 to 200 bytes without surrounding spaces or control characters",
            ));
        }
        let r = text("rating", Some(rc))?;
        let rating = r
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| bad("rating", r, "a finite number"))?;
        let games = match text("games", gc)? {
            "" => 0,
            g => g
                .parse::<u32>()
                .map_err(|_| bad("games", g, "a whole number ≥ 0"))?,
        };
        let sigma = match text("sigma", sc)? {
            "" => None,
            s => Some(
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

    fn err(text: &str) -> String {
        read_initial_ratings("i.csv", text.as_bytes())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_column_named_twice_is_refused() {
        assert_eq!(
            err("player,rating,rating\nA,1,2000\n"),
            "i.csv:1: header names the column `rating` twice (columns 2 and 3); each column may appear once"
        );
        // In any case, and the optional columns too.
        assert_eq!(
            err("Player,rating,games,sigma,PLAYER\nA,1,2,3,B\n"),
            "i.csv:1: header names the column `player` twice (columns 1 and 5); each column may appear once"
        );
        assert_eq!(
            err("player,games,rating,Games\nA,1,2,3\n"),
            "i.csv:1: header names the column `games` twice (columns 2 and 4); each column may appear once"
        );
        // Columns not read may repeat.
        let s = read_initial_ratings("i.csv", "note,player,rating,note\nx,A,1500,y\n".as_bytes())
            .unwrap();
        assert_eq!((s[0].player.as_str(), s[0].rating), ("A", 1500.0));
    }

    #[test]
    fn a_row_with_more_fields_than_the_header_is_refused() {
        assert_eq!(
            err("player,rating\nA,1,500,7\n"),
            "i.csv:2: field `column 3`: \"500\" is not valid, expected a row of 2 fields as the header has, found 4 (a field that holds a comma is quoted: \"Smith, Jr\")"
        );
        assert_eq!(
            err("player,rating,games\r\nA,1500,3\r\n\r\nB,1500,3,\r\n"),
            "i.csv:4: field `column 4`: \"\" is not valid, expected a row of 3 fields as the header has, found 4 (a field that holds a comma is quoted: \"Smith, Jr\")"
        );
        // A quoted comma is one field; a row with fewer fields reads the rest as empty.
        let s = read_initial_ratings(
            "i.csv",
            "player,rating,games\n\"Smith, Jr\",1500\n".as_bytes(),
        )
        .unwrap();
        assert_eq!((s[0].player.as_str(), s[0].games), ("Smith, Jr", 0));
    }

    #[test]
    fn a_quote_never_closed_is_refused() {
        assert_eq!(
            err("player,rating\nB,1400\nA,\"1600\n"),
            "i.csv:3: field `rating`: the quote that opens it is never closed (the field runs on to the end of the file); close it, or double a quote inside a quoted field (\"\")"
        );
        // After a field over two lines, the quote's own line.
        assert_eq!(
            err("player,rating,note\nA,1600,\"over\ntwo lines\"\nC,1500,\"x\n\nD,1\n"),
            "i.csv:4: field `note`: the quote that opens it is never closed (the field runs on to the end of the file); close it, or double a quote inside a quoted field (\"\")"
        );
        // Beyond the header's columns, by number.
        assert_eq!(
            err("player,rating\nC,1500,\"x\nD,1\n"),
            "i.csv:2: field `column 3`: the quote that opens it is never closed (the field runs on to the end of the file); close it, or double a quote inside a quoted field (\"\")"
        );
        assert_eq!(
            err("player,\"rating\nA,1\n"),
            "i.csv:1: field `column 2`: the quote that opens it is never closed (the field runs on to the end of the file); close it, or double a quote inside a quoted field (\"\")"
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
