//! Saved leagues in files: a league's state ([`podium::league::saved`]) as JSON, written
//! whole or not at all and read back exactly, to go on rating where a run stopped.
//!
//! The file is one JSON object: `format` (`"podium-league"`), `version`, the system's
//! name and parameters, every player with rating, statistics and state, what the system
//! learned, the factors, the count of matches rated and, when written by
//! [`write_rated`], the matches rated (by the hash of their ids, for [`read_resumed`] to
//! refuse them if they come again). Numbers are written in their
//! shortest form that reads back to the same value and read with `serde_json`'s
//! `float_roundtrip`, so a league comes back bit for bit.
//!
//! ```
//! use podium::{League, Match};
//! let dir = std::env::temp_dir().join(format!("podium-saved-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("league.state").display().to_string();
//! let mut league = League::new(podium::system("glicko2", &podium::Settings::new())?);
//! league.apply(&Match::ranked("g1", &["ann", "bo"])?)?;
//! podium_io::saved::write(&path, &league, &[])?;
//! let again = podium_io::saved::read(&path, None)?;
//! assert_eq!(again.standings(), league.standings());
//! // Another system's league is refused, saying which.
//! let sme = std::sync::Arc::from(podium::system("sme", &podium::Settings::new())?);
//! let err = podium_io::saved::read(&path, Some(sme)).unwrap_err();
//! assert!(err.to_string().contains("saved by system glicko2, not sme"), "{err}");
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::Write;
use std::sync::Arc;

use podium::league::saved::{SavedLeague, FORMAT, VERSION};
use podium::{League, RatingSystem, SaveError};

use crate::ingest::Resumed;
use crate::output::{Output, OutputError};

/// Why a league cannot be saved to a file or read from one. Nothing is written or
/// restored then.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SavedFileError {
    /// The file cannot be read.
    #[error("{path}: cannot read the saved league")]
    Read {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file cannot be written.
    #[error(transparent)]
    Write(#[from] OutputError),
    /// The file is not a saved podium league at all.
    #[error("{path}: not a saved podium league ({why}); give a file written by --save")]
    NotALeague {
        /// The file.
        path: String,
        /// What it is instead.
        why: String,
    },
    /// A saved league whose content is damaged: a field missing, of the wrong type, or
    /// not JSON past the start.
    #[error(
        "{path}: a damaged saved league: line {line}, column {column}: field `{field}`: {why}"
    )]
    Corrupt {
        /// The file.
        path: String,
        /// Where, 1-based.
        line: usize,
        /// Where, 1-based.
        column: usize,
        /// The field's path (`players[3].rating.sigma`), `.` for the whole.
        field: String,
        /// What is wrong.
        why: String,
    },
    /// A saved league that cannot be restored or saved: of another system, parameters
    /// or version, or holding a value the league cannot hold.
    #[error("{path}: {source}")]
    League {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: SaveError,
    },
}

/// The league as the text of a saved league file.
///
/// # Errors
/// [`SavedFileError::League`] when the league cannot be saved ([`League::save`]), named
/// `path`.
pub fn to_json(league: &League, path: &str) -> Result<String, SavedFileError> {
    to_json_with_ids(league, path, Vec::new())
}

/// As [`to_json`], noting the matches rated (`ids`, by
/// [`match_fingerprint`](crate::ingest::match_fingerprint)).
fn to_json_with_ids(league: &League, path: &str, ids: Vec<u64>) -> Result<String, SavedFileError> {
    let mut saved = league.save().map_err(|source| SavedFileError::League {
        path: path.to_string(),
        source,
    })?;
    saved.match_ids = ids;
    let mut text = serde_json::to_string(&saved).expect("a saved league is plain data");
    text.push('\n');
    Ok(text)
}

/// Writes the league to `path`, whole or not at all: into a temporary file beside it,
/// renamed over it once complete ([`Output`]); refuses any of `inputs` (files the
/// program reads) and standard output (`-`).
///
/// # Errors
/// [`SavedFileError::Write`] or, for a league that cannot be saved,
/// [`SavedFileError::League`].
pub fn write(path: &str, league: &League, inputs: &[&str]) -> Result<(), SavedFileError> {
    write_rated(path, league, inputs, Vec::new())
}

/// As [`write()`], noting the matches the league rated (`ids`, by
/// [`match_fingerprint`](crate::ingest::match_fingerprint), as
/// [`Ingested::rated_ids`](crate::ingest::Ingested::rated_ids) gives them): a league read
/// back with [`read_resumed`] then refuses them if they come again.
///
/// # Errors
/// As [`write()`].
pub fn write_rated(
    path: &str,
    league: &League,
    inputs: &[&str],
    ids: Vec<u64>,
) -> Result<(), SavedFileError> {
    if path == "-" {
        return Err(OutputError::NotAFile {
            path: path.into(),
            kind: "standard output",
        }
        .into());
    }
    let text = to_json_with_ids(league, path, ids)?;
    let mut out = Output::create(path, inputs)?;
    out.write_all(text.as_bytes())
        .map_err(|source| OutputError::Io {
            path: path.into(),
            source,
        })?;
    Ok(out.commit()?)
}

/// Just the fields that say what a file is, read before the rest.
#[derive(serde::Deserialize)]
struct Header {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
}

/// The saved league of a file's text, checked to be one of the version this podium reads;
/// `path` names the file in errors.
///
/// # Errors
/// [`SavedFileError::NotALeague`], [`SavedFileError::Corrupt`], or
/// [`SavedFileError::League`] with [`SaveError::Version`].
pub fn from_json(text: &str, path: &str) -> Result<SavedLeague, SavedFileError> {
    let not = |why: String| SavedFileError::NotALeague {
        path: path.to_string(),
        why,
    };
    let header: Header = match serde_json::from_str(text) {
        Ok(h) => h,
        // JSON that is not an object, or is cut short or damaged past its start: the
        // format field read first tells which.
        Err(e) if text.trim_start().starts_with('{') && text.contains(FORMAT) => {
            return Err(corrupt(path, e.line(), e.column(), ".", &e))
        }
        Err(e) if text.trim().is_empty() => {
            return Err(not(format!("the file is empty{}", at(&e))))
        }
        Err(e) => return Err(not(format!("not a JSON object: {e}"))),
    };
    match header.format {
        Some(serde_json::Value::String(f)) if f == FORMAT => {}
        Some(f) => return Err(not(format!("field `format` is {f}, expected \"{FORMAT}\""))),
        None => return Err(not(format!("no field `format`, expected \"{FORMAT}\""))),
    }
    match header.version.as_ref().and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(VERSION) => {}
        Some(v) => {
            return Err(SavedFileError::League {
                path: path.to_string(),
                source: SaveError::Version {
                    found: u32::try_from(v).unwrap_or(u32::MAX),
                },
            })
        }
        None => {
            return Err(SavedFileError::Corrupt {
                path: path.to_string(),
                line: 1,
                column: 1,
                field: "version".into(),
                why: format!("expected a whole number, the layout's version ({VERSION})"),
            });
        }
    }
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        corrupt(path, inner.line(), inner.column(), &field, &inner)
    })
}

fn at(e: &serde_json::Error) -> String {
    if e.line() > 1 || e.column() > 0 {
        format!(" (line {}, column {})", e.line(), e.column())
    } else {
        String::new()
    }
}

fn corrupt(
    path: &str,
    line: usize,
    column: usize,
    field: &str,
    e: &serde_json::Error,
) -> SavedFileError {
    // serde_json ends its messages with " at line L column C": said once, in front.
    let why = e.to_string();
    let why = match why.rfind(" at line ") {
        Some(i) => why[..i].to_string(),
        None => why,
    };
    SavedFileError::Corrupt {
        path: path.to_string(),
        line,
        column,
        field: field.to_string(),
        why,
    }
}

/// Restores the league saved in `text`, named `path` in errors: rated by `system` if
/// given (which must be the system it was saved by, with the same parameters), else by
/// the system it names.
///
/// # Errors
/// As [`from_json`], and [`SavedFileError::League`] for a league of another system or
/// parameters, or holding a value the league cannot hold ([`League::restore_with`]).
pub fn restore(
    text: &str,
    path: &str,
    system: Option<Arc<dyn RatingSystem>>,
) -> Result<League, SavedFileError> {
    restore_saved(from_json(text, path)?, path, system)
}

/// The league of `saved`, read from `path` ([`restore`]).
fn restore_saved(
    saved: SavedLeague,
    path: &str,
    system: Option<Arc<dyn RatingSystem>>,
) -> Result<League, SavedFileError> {
    match system {
        Some(s) => League::restore_with(s, saved),
        None => League::restore(saved),
    }
    .map_err(|source| SavedFileError::League {
        path: path.to_string(),
        source,
    })
}

/// Reads the league saved in the file `path` ([`restore`]).
///
/// # Errors
/// [`SavedFileError::Read`], or as [`restore`].
pub fn read(path: &str, system: Option<Arc<dyn RatingSystem>>) -> Result<League, SavedFileError> {
    read_resumed(path, system).map(|(league, _)| league)
}

/// Reads the league saved in the file `path` ([`restore`]) with what it rated, for the
/// files rated after it ([`Inputs::resumed`](crate::ingest::Inputs::resumed)): the
/// matches noted by [`write_rated`] and its last match's time, if it rated dated matches.
///
/// # Errors
/// As [`read`].
pub fn read_resumed(
    path: &str,
    system: Option<Arc<dyn RatingSystem>>,
) -> Result<(League, Resumed), SavedFileError> {
    let bytes = std::fs::read(path).map_err(|source| SavedFileError::Read {
        path: path.to_string(),
        source,
    })?;
    let text = std::str::from_utf8(&bytes).map_err(|e| SavedFileError::NotALeague {
        path: path.to_string(),
        why: format!("not UTF-8 text: {e}"),
    })?;
    let mut saved = from_json(text, path)?;
    let latest = saved.players.iter().filter_map(|p| p.stats.last_time).max();
    let resumed = Resumed {
        file: Some(path.to_string()),
        ids: std::mem::take(&mut saved.match_ids),
        shared_ids: None,
        latest,
    };
    Ok((restore_saved(saved, path, system)?, resumed))
}
