//! Converters from published datasets to podium matches, for the real-data suite and
//! backtests: each parses its source's own layout (from readers, so it does no file
//! handling of its own) into validated [`Match`](podium::Match)es in the order they were
//! played, ready for [`LongCsvWriter`](crate::LongCsvWriter).
//!
//! | converter | source | matches |
//! |---|---|---|
//! | [`catan`] | one line per game, newest first: `DATE : VP : Name pts, ...` | one per line, oldest first, finish by points ([`catan::read_scores`]: victory points as scores) |
//! | [`f1`] | Ergast-schema `races.csv`, `results.csv`, `drivers.csv` | one per race, by race date, finish = `positionOrder` ([`f1::read_scores`]: minus seconds behind the winner as scores, same places) |
//! | [`codeforces`] | a directory of `<contest id>.txt` standings (`handle rankLo rankHi`) | one per contest, by id, shared ranks as ties |
//!
//! Errors are [`ReadError`]s naming the file, the line and the field.

pub mod catan;
pub mod codeforces;
pub mod f1;

use std::io::BufRead;

use crate::error::{ReadError, Wide};

/// The lines of a text source with their 1-based numbers, line breaks (`\n`, `\r\n`)
/// removed, and a UTF-8 byte-order mark before the first line too. Unlike
/// [`BufRead::lines`], a line that is not UTF-8 is an error naming it, and a first line in
/// UTF-16 or UTF-32 (a byte-order mark of either, or NUL bytes) one saying so.
pub(crate) fn numbered_lines<'a>(
    file: &'a str,
    mut input: impl BufRead + 'a,
) -> impl Iterator<Item = Result<(u64, String), ReadError>> + 'a {
    let mut line = 0u64;
    let mut buf = Vec::new();
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => {
                done = true;
                None
            }
            Ok(_) => {
                line += 1;
                if buf.ends_with(b"\n") {
                    buf.pop();
                    if buf.ends_with(b"\r") {
                        buf.pop();
                    }
                }
                if line == 1 {
                    if let Some(wide) = Wide::of(&buf, true) {
                        done = true;
                        return Some(Err(wide.error(file, line)));
                    }
                    // A byte-order mark is not part of the first line.
                    if buf.starts_with(b"\xef\xbb\xbf") {
                        buf.drain(..3);
                    }
                }
                Some(match std::str::from_utf8(&buf) {
                    Ok(text) => Ok((line, text.to_string())),
                    Err(e) => {
                        done = true;
                        Err(ReadError::Format {
                            file: file.to_string(),
                            line,
                            message: format!(
                                "not UTF-8 text: byte {} of the line cannot start a character",
                                e.valid_up_to() + 1
                            ),
                        })
                    }
                })
            }
            Err(source) => {
                done = true;
                Some(Err(ReadError::Io {
                    file: file.to_string(),
                    source,
                }))
            }
        }
    })
}

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
