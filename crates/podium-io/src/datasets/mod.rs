//! Converters from published datasets to podium matches, for the real-data suite and
//! backtests: each parses its source's own layout (from readers, so it does no file
//! handling of its own) into validated [`Match`](podium::Match)es in the order they were
//! played, ready for [`LongCsvWriter`](crate::LongCsvWriter).
//!
//! | converter | source | matches |
//! |---|---|---|
//! | [`catan`] | one line per game, newest first: `DATE : VP : Name pts, ...` | one per line, oldest first, finish by points |
//! | [`f1`] | Ergast-schema `races.csv`, `results.csv`, `drivers.csv` | one per race, by race date, finish = `positionOrder` |
//! | [`codeforces`] | a directory of `<contest id>.txt` standings (`handle rankLo rankHi`) | one per contest, by id, shared ranks as ties |
//!
//! Errors are [`ReadError`](crate::ReadError)s naming the file, the line and the field.

pub mod catan;
pub mod codeforces;
pub mod f1;

use crate::error::ReadError;

/// Builds a field error (no match id: a converter fails the whole file).
pub(crate) fn field_error(
    file: &str,
    line: u64,
    field: &str,
    value: &str,
    expected: &str,
) -> ReadError {
    ReadError::Field {
        file: file.to_string(),
        line,
        match_id: None,
        field: field.to_string(),
        value: value.to_string(),
        expected: expected.to_string(),
    }
}

/// Wraps a match that does not validate, naming where it came from.
pub(crate) fn match_error(
    file: &str,
    line: u64,
    match_id: &str,
    source: podium::MatchError,
) -> ReadError {
    ReadError::Match {
        file: file.to_string(),
        line,
        match_id: match_id.to_string(),
        field: crate::error::field_of(&source),
        source: Box::new(source),
    }
}
