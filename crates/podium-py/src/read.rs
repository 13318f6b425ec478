//! `podium.read_csv()`, `read_jsonl()` and `read()`: match files into a `Matches`, in
//! the order `podium rate` rates them, with the errors it gives.
//!
//! Files are read by `podium-io`: long CSV of free-for-alls by ranks on several threads
//! (its plain reader), anything else the general way, which names the file, line and
//! field of every problem. Matches are kept in rating order: the files' order, or time
//! order (stable, matches without a time first) when any match has a time.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use podium_io::plain::Plain;
use podium_io::{InputFormat, ReadError};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::errors::{bad_matches, io_error, read_error, BadMatch};
use crate::matches::{Matches, Store};

/// A file's player not yet in the store, in the plain reader's map.
const UNKNOWN: u32 = u32::MAX;

/// Paths given as one path (a string or `os.PathLike`) or a list of them.
fn paths_of(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let one = |v: &Bound<'_, PyAny>| -> PyResult<String> {
        if let Ok(s) = v.cast::<PyString>() {
            return Ok(s.to_cow()?.into_owned());
        }
        if v.hasattr("__fspath__")? {
            return v.call_method0("__fspath__")?.extract::<String>();
        }
        Err(PyTypeError::new_err(format!(
            "a path is a string or an os.PathLike, not {}",
            v.get_type().name()?
        )))
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

fn format_of(format: Option<&str>, path: &str) -> PyResult<InputFormat> {
    match format.map(str::to_ascii_lowercase).as_deref() {
        None => Ok(InputFormat::from_path(path)),
        Some("csv") => Ok(InputFormat::Csv),
        Some("jsonl" | "ndjson" | "json") => Ok(InputFormat::Jsonl),
        Some(other) => Err(PyValueError::new_err(format!(
            "format={other:?}: expected \"csv\" or \"jsonl\""
        ))),
    }
}

/// What stops reading: a file that cannot be read or is not of its format.
enum Stop {
    Read(Box<ReadError>),
    Io(String, io::Error),
}

/// Whether a CSV file's header names a `score` column: such files are read the general
/// way, which keeps the scores (the plain reader keeps places only, and Weng-Lin's margin
/// needs the scores).
fn has_score_column(path: &str) -> bool {
    let Ok(f) = File::open(path) else {
        return true;
    };
    let mut line = String::new();
    let mut r = BufReader::new(f).take(1 << 16);
    if r.read_line(&mut line).is_err() {
        return true;
    }
    line.trim_end().split(',').any(|h| {
        h.trim()
            .trim_start_matches('\u{feff}')
            .eq_ignore_ascii_case("score")
    })
}

use std::io::Read as _;

/// Reads a plain CSV file into `store`; false (with `store` as it was) when the file is
/// not plain.
fn read_plain(path: &str, store: &mut Store) -> bool {
    if has_score_column(path) {
        return false;
    }
    let mark = store.mark();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 8));
    let mut keys: Vec<u32> = Vec::new();
    let read = podium_io::plain::read_plain_csv(
        Path::new(path),
        threads,
        &mut |_| {},
        |m, names| -> Result<(), std::convert::Infallible> {
            keys.resize(names.len(), UNKNOWN);
            for &p in m.players {
                if keys[p as usize] == UNKNOWN {
                    keys[p as usize] = store.add_player(names.get(p));
                }
            }
            store.push_ranked(
                m.id,
                m.players
                    .iter()
                    .zip(m.places)
                    .map(|(&p, &place)| (keys[p as usize], place)),
            );
            Ok(())
        },
    );
    match read {
        Ok(Plain::Read { .. }) => true,
        Ok(Plain::No { .. }) | Err(_) => {
            store.truncate(mark);
            false
        }
    }
}

/// Reads every file into a store, noting bad matches.
fn read_all(
    paths: &[(String, InputFormat)],
    skip_bad: bool,
) -> Result<(Store, Vec<BadMatch>, usize), Stop> {
    let mut store = Store::default();
    let mut bad: Vec<BadMatch> = Vec::new();
    let mut bad_count = 0usize;
    for (path, format) in paths {
        if *format == InputFormat::Csv && read_plain(path, &mut store) {
            continue;
        }
        let file = File::open(path).map_err(|e| Stop::Io(path.clone(), e))?;
        let mut matches = podium_io::from_reader_recycling(path.clone(), Box::new(file), *format);
        while let Some(item) = matches.next() {
            match item {
                Ok(m) => {
                    store.push(&m);
                    matches.recycle(m);
                }
                Err(e) if e.is_recoverable() => {
                    bad_count += 1;
                    if skip_bad || bad.len() < crate::errors::MAX_LISTED {
                        bad.push(BadMatch::of_read(&e));
                    }
                }
                Err(e) => return Err(Stop::Read(Box::new(e))),
            }
        }
    }
    Ok((store, bad, bad_count))
}

/// Reads match files (long CSV or JSON Lines, each by its extension unless `format` is
/// given) into a `Matches`, in the order `podium rate` rates them: the files' order, or
/// time order (stable) when the matches have times.
///
/// A bad match raises `ReadError` listing every bad match by file, line and field, and
/// nothing is read; with `skip_bad=True` the rest is read and the bad ones are listed in
/// the result's `skipped`. A file that cannot be opened raises `OSError`
/// (`FileNotFoundError`, ...). The interpreter's lock is released while reading.
#[pyfunction]
#[pyo3(signature = (paths, /, *, format=None, skip_bad=false))]
pub fn read(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    format: Option<&str>,
    skip_bad: bool,
) -> PyResult<Matches> {
    let paths = paths_of(paths)?
        .into_iter()
        .map(|p| {
            let f = format_of(format, &p)?;
            Ok((p, f))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let result = py.detach(|| {
        read_all(&paths, skip_bad).map(|(store, bad, n)| {
            let order = store.rating_order();
            (store, order, bad, n)
        })
    });
    let (store, order, bad, bad_count) = result.map_err(|stop| match stop {
        Stop::Read(e) => read_error(&e),
        Stop::Io(file, e) => io_error(&file, &e),
    })?;
    if bad_count > 0 && !skip_bad {
        return Err(bad_matches(
            crate::errors::ReadError::new_err,
            bad_count,
            &bad,
            "nothing read",
            "pass skip_bad=True to read the rest",
        ));
    }
    Ok(Matches::new(
        store,
        order,
        bad.into_iter().map(|b| b.message).collect(),
    ))
}

/// Reads long CSV files (see `read`): one row per player per match, columns `match`,
/// `player`, `rank` or `score`, and optionally `team`, `time`, `weight`.
#[pyfunction]
#[pyo3(signature = (paths, /, *, skip_bad=false))]
pub fn read_csv(py: Python<'_>, paths: &Bound<'_, PyAny>, skip_bad: bool) -> PyResult<Matches> {
    read(py, paths, Some("csv"), skip_bad)
}

/// Reads JSON Lines files (see `read`): one match per line,
/// `{"match": ..., "time": ..., "results": [{"player": ..., "rank": ...}, ...]}`.
#[pyfunction]
#[pyo3(signature = (paths, /, *, skip_bad=false))]
pub fn read_jsonl(py: Python<'_>, paths: &Bound<'_, PyAny>, skip_bad: bool) -> PyResult<Matches> {
    read(py, paths, Some("jsonl"), skip_bad)
}
