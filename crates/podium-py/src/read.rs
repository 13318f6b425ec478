//! `podium.read_csv()`, `read_jsonl()` and `read()`: match files into a `Matches`, in
//! the order `podium rate` rates them, with the errors it gives.
//!
//! Files go through `podium-io`'s one way in ([`podium_io::ingest`]), so the rules are
//! the binary's: every bad match listed by file, line and field, matches with times in
//! time order (stable, after those without), a match id naming one match across all the
//! files. The matches are then kept compactly ([`Store`]).

use podium_io::ingest::{self, BadMatch as Bad, IngestError, Inputs, Reading};
use podium_io::InputFormat;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::errors::{bad_matches, read_error, BadMatch};
use crate::matches::{Matches, Store};

/// Paths given as one path (a string or `os.PathLike`) or a list of them.
pub fn paths_of(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let one = |v: &Bound<'_, PyAny>| -> PyResult<String> {
        let path = if let Ok(s) = v.cast::<PyString>() {
            s.to_cow()?.into_owned()
        } else if v.hasattr("__fspath__")? {
            v.call_method0("__fspath__")?.extract::<String>()?
        } else {
            return Err(PyTypeError::new_err(format!(
                "a path is a string or an os.PathLike, not {}",
                v.get_type().name()?
            )));
        };
        if path == "-" {
            // The readers take `-` for standard input, which a league could not read again.
            return Err(PyValueError::new_err(
                "\"-\" is not a file: give the path of a file",
            ));
        }
        Ok(path)
    };
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let paths = value
            .try_iter()?
            .map(|v| one(&v?))
            .collect::<PyResult<Vec<_>>>()?;
        if paths.is_empty() {
            return Err(PyValueError::new_err("no file given"));
        }
        return Ok(paths);
    }
    Ok(vec![one(value)?])
}

/// The factor columns given as `factors=`: a column's name, or a list of them.
pub fn factor_columns(value: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(vec![s.to_cow()?.into_owned()]);
    }
    if !(value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>()) {
        return Err(PyTypeError::new_err(format!(
            "factors is a column's name or a list of them, not {}",
            value.get_type().name()?
        )));
    }
    value
        .try_iter()?
        .map(|v| {
            let v = v?;
            match v.cast::<PyString>() {
                Ok(s) => Ok(s.to_cow()?.into_owned()),
                Err(_) => Err(PyTypeError::new_err(format!(
                    "factors: a column's name is a string, not {}",
                    v.get_type().name()?
                ))),
            }
        })
        .collect()
}

/// The inputs `paths` name, each file in `format` or the one its extension suggests,
/// reading the columns `factors` as factors (checked: `ReadError` for a name that
/// cannot be a factor kind or is given twice).
pub fn inputs_of(
    paths: &Bound<'_, PyAny>,
    format: Option<&str>,
    skip_bad: bool,
    factors: Option<&Bound<'_, PyAny>>,
) -> PyResult<Inputs> {
    let format = match format.map(str::to_ascii_lowercase).as_deref() {
        None => None,
        Some("csv") => Some(InputFormat::Csv),
        Some("jsonl" | "ndjson" | "json") => Some(InputFormat::Jsonl),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "format={other:?}: expected \"csv\" or \"jsonl\""
            )))
        }
    };
    let options = podium_io::ReadOptions {
        factors: factor_columns(factors)?,
        leave_out: false,
    };
    options.check().map_err(|e| read_error(&e))?;
    Ok(Inputs {
        files: paths_of(paths)?,
        format,
        skip_bad,
        options,
        resumed: None,
        note_ids: false,
    })
}

/// A bad match of the readers as the package reports it.
pub fn bad_match(b: &Bad) -> BadMatch {
    match b {
        Bad::Read(e) => BadMatch::of_read(e),
        b @ Bad::Rate {
            file,
            line,
            match_id,
            ..
        } => BadMatch {
            message: b.to_string(),
            file: Some(file.clone()),
            line: Some(*line),
            field: None,
            match_id: Some(match_id.clone()),
        },
        b => BadMatch {
            message: b.to_string(),
            file: None,
            line: None,
            field: None,
            match_id: None,
        },
    }
}

/// The error of the readers as a Python exception: `OSError` for a file that cannot be
/// read, `ReadError` for one that is not of its format, and `exception` (`ReadError` or
/// `RateError`) listing bad matches, with what was not done (`nothing read`) and how to
/// go on anyway.
pub fn ingest_error<E: std::fmt::Display>(
    e: IngestError<E>,
    exception: fn(String) -> PyErr,
    what: &str,
    how: &str,
) -> PyErr {
    match e {
        IngestError::Read(e) => read_error(&e),
        IngestError::BadMatches { count, listed } => {
            let listed: Vec<BadMatch> = listed.iter().map(bad_match).collect();
            bad_matches(exception, count, &listed, what, how)
        }
        e => crate::errors::PodiumError::new_err(e.to_string()),
    }
}

/// Reads match files (long CSV or JSON Lines, each by its extension unless `format` is
/// given) into a `Matches`, in the order `podium rate` rates them: the files' order, or
/// time order (stable) when the matches have times. `factors` names columns (CSV) or
/// result fields (JSON Lines) to read as the entries' factors, as `--factor` does
/// (`factors=["constructor"]` gives a row with `ferrari` the factor
/// `constructor=ferrari`; an empty value gives none).
///
/// A bad match raises `ReadError` listing every bad match by file, line and field, and
/// nothing is read; with `skip_bad=True` the rest is read and the bad ones are listed in
/// the result's `skipped`. A factor column a file lacks is a `ReadError` naming it. A
/// file that cannot be opened raises `OSError` (`FileNotFoundError`, ...). The
/// interpreter's lock is released while reading.
#[pyfunction]
#[pyo3(signature = (paths, /, *, format=None, skip_bad=false, factors=None))]
pub fn read(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    format: Option<&str>,
    skip_bad: bool,
    factors: Option<&Bound<'_, PyAny>>,
) -> PyResult<Matches> {
    let inputs = inputs_of(paths, format, skip_bad, factors)?;
    let loaded = py.detach(|| {
        // Each match goes into the store as it is read: the matches are never all built
        // at once.
        let mut store = Store::default();
        ingest::load_each(&inputs, &Reading::default(), |m| store.push(m))
            .map_err(Box::new)
            .map(|read| {
                let skipped: Vec<String> = read.skipped.iter().map(ToString::to_string).collect();
                (store, skipped)
            })
    });
    let (store, skipped) = loaded.map_err(|e| {
        ingest_error(
            *e,
            crate::errors::ReadError::new_err,
            "nothing read",
            "pass skip_bad=True to read the rest",
        )
    })?;
    Ok(Matches::new(store, None, skipped))
}

/// Reads long CSV files (see `read`): one row per player per match, columns `match`,
/// `player`, `rank` or `score`, and optionally `team`, `time`, `weight` and the factor
/// columns named by `factors`.
#[pyfunction]
#[pyo3(signature = (paths, /, *, skip_bad=false, factors=None))]
pub fn read_csv(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    skip_bad: bool,
    factors: Option<&Bound<'_, PyAny>>,
) -> PyResult<Matches> {
    read(py, paths, Some("csv"), skip_bad, factors)
}

/// Reads JSON Lines files (see `read`): one match per line,
/// `{"match": ..., "time": ..., "results": [{"player": ..., "rank": ...}, ...]}`; the
/// result fields named by `factors` are the entries' factors.
#[pyfunction]
#[pyo3(signature = (paths, /, *, skip_bad=false, factors=None))]
pub fn read_jsonl(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    skip_bad: bool,
    factors: Option<&Bound<'_, PyAny>>,
) -> PyResult<Matches> {
    read(py, paths, Some("jsonl"), skip_bad, factors)
}
