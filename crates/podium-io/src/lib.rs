//! # podium-io
//!
//! Readers and writers for podium: the long CSV ([`csv_long`]) and JSON Lines ([`jsonl`])
//! match formats (streaming, one match in memory at a time, errors that name file, line
//! and field), starting ratings ([`initial`]), converters of published datasets
//! ([`datasets`]), Quake 3 server logs into frag rankings and their static stats site
//! ([`quake`]), and files written whole or not at all ([`output`], [`write`](mod@write)).
//!
//! [`ingest`] is the one way in for a program that rates files: it chooses the reader
//! once per file, the threaded reader of plain free-for-alls ([`plain`]) where it can,
//! handing over to the general reader where a file stops being plain.

#![warn(missing_docs)]
// Read errors carry file, line, field, value and expectation by design; they are built
// only on the cold path, so their size costs nothing where it matters.
#![allow(clippy::result_large_err)]

pub mod csv_long;
pub mod datasets;
pub mod error;
mod group;
pub mod ingest;
pub mod initial;
pub mod jsonl;
pub mod output;
pub mod plain;
mod player_keys;
pub mod quake;
mod records;
pub mod saved;
pub mod time;
pub mod write;

use std::fs::File;
use std::io::{self, BufReader};
use std::path::Path;

pub use csv_long::CsvMatches;
pub use error::{escape_controls, ReadError};
pub use group::{times_expected, RECENT_IDS};
pub use jsonl::{factor_value, JsonMatch, JsonResult, JsonlMatches};
pub use time::{format_time, parse_time, seconds_named, FIRST_SECOND, LAST_SECOND};
pub use write::LongCsvWriter;

/// The longest CSV record the readers read, in bytes (without its line break; the line
/// breaks inside its quoted fields count): 1 MiB. A longer one stops reading with
/// [`ReadError::LineTooLong`] naming its file and line, where reading on would hold
/// memory without bound.
pub const MAX_LINE: usize = 1 << 20;

/// The longest JSON Lines line (one match, all its results) the readers read, in bytes:
/// 16 MiB, some 400,000 results. A longer one stops reading with
/// [`ReadError::LineTooLong`].
pub const MAX_JSON_LINE: usize = 16 << 20;

/// The match file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// Long CSV: one row per player per match.
    Csv,
    /// JSON Lines: one match per line.
    Jsonl,
}

impl InputFormat {
    /// The format a path's extension suggests: `.jsonl`, `.ndjson` and `.json` are JSON
    /// Lines, anything else is CSV.
    #[must_use]
    pub fn from_path(path: &str) -> Self {
        let ext = Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("jsonl" | "ndjson" | "json") => InputFormat::Jsonl,
            _ => InputFormat::Csv,
        }
    }
}

/// What to read from a match file beyond its format's own columns.
///
/// `factors` names the columns (CSV) or result fields (JSON Lines) that hold factors of
/// an entry ([`podium::factor`]): a row whose `car` field holds `ferrari` gives its entry
/// the factor `car=ferrari`; an empty field gives none of that kind. Every column named
/// must exist (a CSV header without it is an error naming it; a JSON Lines file in which
/// no result has the field is one too).
///
/// ```
/// use podium_io::{CsvMatches, ReadOptions};
/// let text = "match,player,rank,car\nr1,ann,1,red\nr1,bo,2,blue\n";
/// let options = ReadOptions::with_factors(["car"]);
/// let m = CsvMatches::with_options("race.csv", text.as_bytes(), &options)
///     .next()
///     .unwrap()
///     .unwrap();
/// assert_eq!(m.entries()[0].factors[0].to_string(), "car=red");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The columns (fields) read as factor kinds, in this order.
    pub factors: Vec<String>,
    /// Read the factor columns (fields) as above, checked as ever, and leave them out of
    /// every match: for a system that rates no factors, a JSON Lines file whose results
    /// carry factor fields (refused unless read as factors) is read as the same file
    /// without them.
    pub leave_out: bool,
}

impl ReadOptions {
    /// Options that read the columns `kinds` as factors.
    pub fn with_factors<I: IntoIterator<Item = S>, S: Into<String>>(kinds: I) -> Self {
        ReadOptions {
            factors: kinds.into_iter().map(Into::into).collect(),
            leave_out: false,
        }
    }

    /// Checks the factor columns: each a valid factor kind ([`podium::factor::check_kind`]:
    /// 1 to 64 bytes without surrounding spaces, control characters or `=`, none of the
    /// columns and fields podium reads itself in any case), named once, and at most
    /// [`podium::factor::MAX_FACTORS`] of them (an entry carries at most that many kinds).
    ///
    /// # Errors
    /// [`ReadError::Inputs`] naming the column at fault.
    pub fn check(&self) -> Result<(), ReadError> {
        if self.factors.len() > podium::factor::MAX_FACTORS {
            return Err(ReadError::Inputs {
                message: format!(
                    "{} factor columns named, expected {}",
                    self.factors.len(),
                    podium::FactorError::TooMany {
                        count: self.factors.len()
                    }
                    .expected()
                ),
            });
        }
        for (i, kind) in self.factors.iter().enumerate() {
            if let Err(e) = podium::factor::check_kind(kind) {
                return Err(ReadError::Inputs {
                    message: format!(
                        "factor column {kind:?} is not valid, expected {}",
                        e.expected()
                    ),
                });
            }
            if self.factors[..i]
                .iter()
                .any(|k| k.eq_ignore_ascii_case(kind))
            {
                return Err(ReadError::Inputs {
                    message: format!("factor column {kind:?} is named twice"),
                });
            }
        }
        Ok(())
    }
}

/// A stream of matches from one source.
pub type Matches = Box<dyn Iterator<Item = Result<Match, ReadError>> + Send>;

use podium::Match;

/// Opens a match file (`-` is standard input) in the given format, or the one its
/// extension suggests.
///
/// # Errors
/// [`ReadError::Io`] when the file cannot be opened.
pub fn open(path: &str, format: Option<InputFormat>) -> Result<Matches, ReadError> {
    let format = format.unwrap_or_else(|| InputFormat::from_path(path));
    let (name, input): (String, Box<dyn io::Read + Send>) = if path == "-" {
        ("<stdin>".to_string(), Box::new(io::stdin()))
    } else {
        let file = File::open(path).map_err(|source| ReadError::Io {
            file: path.to_string(),
            source,
        })?;
        (path.to_string(), Box::new(file))
    };
    Ok(from_reader(name, input, format))
}

/// Reads matches of `format` from any byte source; `name` names it in errors.
pub fn from_reader(name: String, input: Box<dyn io::Read + Send>, format: InputFormat) -> Matches {
    let input = BufReader::with_capacity(1 << 16, input);
    match format {
        InputFormat::Csv => Box::new(CsvMatches::new(name, input)),
        InputFormat::Jsonl => Box::new(JsonlMatches::new(name, input)),
    }
}

/// A stream of matches that can take back the matches its caller is done with, so that
/// later matches reuse their allocations (see [`from_reader_recycling`]).
pub trait MatchStream: Iterator<Item = Result<Match, ReadError>> + Send {
    /// The first line of the match (or bad match) read last.
    fn line(&self) -> u64;

    /// Hands back a match the caller is done with. Streams that cannot reuse it drop it.
    fn recycle(&mut self, m: Match) {
        drop(m);
    }
}

impl<R: io::Read + Send> MatchStream for CsvMatches<R> {
    fn line(&self) -> u64 {
        CsvMatches::line(self)
    }

    fn recycle(&mut self, m: Match) {
        CsvMatches::recycle(self, m);
    }
}

impl<R: io::BufRead + Send> MatchStream for JsonlMatches<R> {
    fn line(&self) -> u64 {
        JsonlMatches::line(self)
    }
}

/// As [`from_reader`], as a stream that takes matches back for their allocations.
pub fn from_reader_recycling<'a>(
    name: String,
    input: impl io::Read + Send + 'a,
    format: InputFormat,
) -> Box<dyn MatchStream + 'a> {
    from_reader_with(name, input, format, &ReadOptions::default())
}

/// As [`from_reader_recycling`], reading what `options` asks for besides the format's
/// columns.
pub fn from_reader_with<'a>(
    name: String,
    input: impl io::Read + Send + 'a,
    format: InputFormat,
    options: &ReadOptions,
) -> Box<dyn MatchStream + 'a> {
    let input = BufReader::with_capacity(1 << 16, input);
    let read: Box<dyn MatchStream + 'a> = match format {
        InputFormat::Csv => Box::new(CsvMatches::with_options(name, input, options)),
        InputFormat::Jsonl => Box::new(JsonlMatches::with_options(name, input, options)),
    };
    if options.leave_out && !options.factors.is_empty() {
        Box::new(FactorsLeftOut(read))
    } else {
        read
    }
}

/// A stream whose matches are read with their factors and yielded without them
/// ([`ReadOptions::leave_out`]).
struct FactorsLeftOut<'a>(Box<dyn MatchStream + 'a>);

impl Iterator for FactorsLeftOut<'_> {
    type Item = Result<Match, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|m| m.map(|m| m.without_factors()))
    }
}

impl MatchStream for FactorsLeftOut<'_> {
    fn line(&self) -> u64 {
        self.0.line()
    }
}

#[cfg(test)]
mod tests {
    use super::ReadOptions;

    /// Factors read and left out: checked as when read, then gone from every match, in
    /// CSV and JSON Lines alike.
    #[test]
    fn factors_left_out_are_read_and_dropped() {
        use super::{from_reader_with, InputFormat};
        let options = ReadOptions {
            leave_out: true,
            ..ReadOptions::with_factors(["car"])
        };
        let jsonl = "{\"match\":\"g1\",\"results\":[{\"player\":\"ann\",\"rank\":1,\"car\":\"red\"},{\"player\":\"bo\",\"rank\":2}]}\n";
        let csv = "match,player,rank,car\ng1,ann,1,red\ng1,bo,2,\n";
        for (format, text) in [(InputFormat::Jsonl, jsonl), (InputFormat::Csv, csv)] {
            let read: Vec<_> =
                from_reader_with("t".into(), text.as_bytes(), format, &options).collect();
            let m = read[0].as_ref().unwrap();
            assert!(
                m.entries().iter().all(|e| e.factors.is_empty()),
                "{format:?}"
            );
            assert!(m.factors().is_empty(), "{format:?}");
            let bad = jsonl.replace("\"red\"", "true");
            if format == InputFormat::Jsonl {
                let read: Vec<_> =
                    from_reader_with("t".into(), bad.as_bytes(), format, &options).collect();
                assert!(read[0].is_err(), "a bad factor value is refused as ever");
            }
        }
    }

    #[test]
    fn factor_columns_are_columns_of_their_own() {
        let check = |kinds: &[&str]| {
            ReadOptions::with_factors(kinds.iter().copied())
                .check()
                .map_err(|e| e.to_string())
        };
        assert!(check(&["car", "seat"]).is_ok());
        assert_eq!(
            check(&["car", "Car"]).unwrap_err(),
            "factor column \"Car\" is named twice"
        );
        assert!(check(&["a=b"])
            .unwrap_err()
            .contains("without surrounding spaces, control characters or '='"));
    }

    #[test]
    fn factor_kind_named_like_a_field_is_refused_everywhere() {
        let check = |kinds: &[&str]| {
            ReadOptions::with_factors(kinds.iter().copied())
                .check()
                .map_err(|e| e.to_string())
        };
        for taken in [
            "match", "time", "id", "results", "Player", "Rank", "SCORE", "Team", "Weight",
            "Factors",
        ] {
            assert_eq!(
                check(&["car", taken]).unwrap_err(),
                format!("factor column {taken:?} is not valid, expected a factor kind that is not the name of a column or field podium reads itself (match, id, time, results, player, rank, score, team, weight, factors, in any case)")
            );
        }
    }

    #[test]
    fn more_factor_columns_than_an_entry_may_carry_are_refused() {
        let kinds: Vec<String> = (0..17).map(|k| format!("k{k}")).collect();
        assert!(ReadOptions::with_factors(&kinds[..16]).check().is_ok());
        assert_eq!(
            ReadOptions::with_factors(&kinds)
                .check()
                .unwrap_err()
                .to_string(),
            "17 factor columns named, expected at most 16 factor kinds per entry"
        );
    }
}
