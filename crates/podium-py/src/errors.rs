//! The exceptions of the package and the conversions of the library's errors into them.
//! Every exception is a `ValueError` (through `PodiumError`) and carries the library's
//! message unchanged; read errors also carry the file, line, field and match.

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    podium,
    PodiumError,
    PyValueError,
    "Base class of podium's errors (a ValueError): a bad match, system, parameter or file."
);
create_exception!(
    podium,
    MatchError,
    PodiumError,
    "A match that cannot exist: fewer than two entries, a player twice, an empty team, a \
finish that is not a finite number, ranks mixed with scores, a weight outside (0, 1], a \
player id, team name or match id that is not valid (empty, over 200 bytes, with surrounding \
spaces or control characters), or a bad factor (a kind or value that is empty, too long, \
with surrounding spaces or control characters, a kind with '=' or named like a field, a \
value that is not a string or a whole number within 64 bits, two values of one kind or \
more than 16 kinds for one entry). From `rate_many` and `Matches(...)`, given a list: \
`errors` lists every such match of the list by its position (`matches[500]: ...`), and \
nothing is rated or kept (unless `skip_bad`)."
);
create_exception!(
    podium,
    ConfigError,
    PodiumError,
    "An unknown system, a parameter the system does not have, a value it does not accept, \
or settings of the lab (simulation, backtest, tuning) out of their range."
);
create_exception!(
    podium,
    RateError,
    PodiumError,
    "A match the system cannot rate (e.g. elo and three entries, or factors that tell \
entries apart for a system that does not rate factors), a rating it cannot use, or an \
update that would leave a rating that is not a finite number. Nothing of the match (or of \
the batch) is applied."
);
create_exception!(
    podium,
    ReadError,
    PodiumError,
    "A file of matches that cannot be read. The message names the file, the line and the \
field; the attributes `file`, `line`, `field` and `match_id` hold the first problem's, and \
`errors` every problem's message."
);

/// The type of `v` with its article, for messages: `a str`, `an int`.
pub fn a_type(v: &Bound<'_, PyAny>) -> String {
    let name = v
        .get_type()
        .name()
        .map_or_else(|_| "object".to_string(), |n| n.to_string());
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {name}")
}

/// A [`podium::MatchError`] as a `MatchError`.
pub fn match_error(e: podium::MatchError) -> PyErr {
    MatchError::new_err(e.to_string())
}

/// A [`podium::RateError`] as a `RateError`, or a `MatchError` when the match itself is
/// not valid.
pub fn rate_error(e: podium::RateError) -> PyErr {
    match e {
        podium::RateError::InvalidMatch { source } => match_error(source),
        e => RateError::new_err(e.to_string()),
    }
}

/// A [`podium::ConfigError`] as a `ConfigError`.
pub fn config_error(e: podium::ConfigError) -> PyErr {
    ConfigError::new_err(e.to_string())
}

/// An I/O error on `file` as the `OSError` a failed `open()` raises: built from
/// `(errno, strerror, filename)`, so that Python picks the subclass
/// (`FileNotFoundError`, `PermissionError`, ...) and sets `errno` and `filename`.
pub fn io_error(file: &str, e: &std::io::Error) -> PyErr {
    match e.raw_os_error() {
        Some(code) => PyOSError::new_err((code, strip_os_suffix(&e.to_string()), file.to_string())),
        None => PyOSError::new_err(format!("{file}: {e}")),
    }
}

/// The `OSError` for `file` with the error number named `code` (`"EISDIR"`), built as
/// [`io_error`] builds it, so that Python picks the subclass (`IsADirectoryError`, …).
pub fn os_error(py: Python<'_>, code: &str, file: &str) -> PyResult<PyErr> {
    let errno: i32 = py.import("errno")?.getattr(code)?.extract()?;
    let text: String = py
        .import("os")?
        .getattr("strerror")?
        .call1((errno,))?
        .extract()?;
    Ok(PyOSError::new_err((errno, text, file.to_string())))
}

/// `"No such file or directory (os error 2)"` → `"No such file or directory"`.
fn strip_os_suffix(msg: &str) -> String {
    match msg.rfind(" (os error ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// What one bad match of a file is: its message and where it is.
#[derive(Debug, Clone)]
pub struct BadMatch {
    /// The message as the command line prints it (file, line, field, what is wrong).
    pub message: String,
    /// The file.
    pub file: Option<String>,
    /// 1-based line.
    pub line: Option<u64>,
    /// The field at fault.
    pub field: Option<String>,
    /// The match.
    pub match_id: Option<String>,
}

impl BadMatch {
    /// The bad match a reader's error describes.
    pub fn of_read(e: &podium_io::ReadError) -> Self {
        use podium_io::ReadError as E;
        let (file, line, field) = match e {
            E::Io { file, .. } => (Some(file.clone()), None, None),
            E::Format { file, line, .. }
            | E::NotContiguous { file, line, .. }
            | E::Repeated { file, line, .. } => (Some(file.clone()), Some(*line), None),
            E::Field {
                file, line, field, ..
            }
            | E::BadLine {
                file, line, field, ..
            } => (Some(file.clone()), Some(*line), Some(field.clone())),
            E::Match {
                file, line, field, ..
            } => (Some(file.clone()), Some(*line), Some((*field).to_string())),
            _ => (None, None, None),
        };
        BadMatch {
            message: e.to_string(),
            file,
            line,
            field,
            match_id: e.match_id().map(str::to_string),
        }
    }

    /// A match a system cannot rate: `match "id": why`, as the command line says it.
    pub fn of_rate(match_id: &str, e: &podium::RateError) -> Self {
        BadMatch {
            message: format!("match {match_id:?}: {e}"),
            file: None,
            line: None,
            field: None,
            match_id: Some(match_id.to_string()),
        }
    }
}

/// How many bad matches an error lists before "and N more" (as the command line).
pub const MAX_LISTED: usize = 20;

/// The error for `count` bad matches of which `bad` are listed: `what` says what was not
/// done ("nothing read"), `how` how to go on anyway.
pub fn bad_matches(
    exception: fn(String) -> PyErr,
    count: usize,
    bad: &[BadMatch],
    what: &str,
    how: &str,
) -> PyErr {
    let mut msg = format!(
        "{count} bad match{} found, {what} ({how}):",
        if count == 1 { "" } else { "es" }
    );
    for b in bad.iter().take(MAX_LISTED) {
        msg.push_str("\n  ");
        msg.push_str(&b.message);
    }
    if count > bad.len().min(MAX_LISTED) {
        msg.push_str(&format!(
            "\n  … and {} more",
            count - bad.len().min(MAX_LISTED)
        ));
    }
    let err = exception(msg);
    Python::attach(|py| {
        let value = err.value(py);
        let first = bad.first();
        // Attributes that cannot be set leave the message, which says it all.
        let _ = value.setattr("file", first.and_then(|b| b.file.clone()));
        let _ = value.setattr("line", first.and_then(|b| b.line));
        let _ = value.setattr("field", first.and_then(|b| b.field.clone()));
        let _ = value.setattr("match_id", first.and_then(|b| b.match_id.clone()));
        let _ = value.setattr(
            "errors",
            bad.iter().map(|b| b.message.clone()).collect::<Vec<_>>(),
        );
    });
    err
}

/// A reader's error that stops reading (a file that cannot be opened or is not of the
/// format), as an `OSError` or a `ReadError` with its place.
pub fn read_error(e: &podium_io::ReadError) -> PyErr {
    match e {
        podium_io::ReadError::Io { file, source } => io_error(file, source),
        e => bad_one(BadMatch::of_read(e)),
    }
}

/// One problem as a `ReadError` with its attributes.
fn bad_one(b: BadMatch) -> PyErr {
    placed(ReadError::new_err, b)
}

/// One problem as `exception` with the attributes of a `ReadError` (`file`, `line`,
/// `field`, `match_id`, `errors`).
pub fn placed(exception: fn(String) -> PyErr, b: BadMatch) -> PyErr {
    let err = exception(b.message.clone());
    Python::attach(|py| {
        let value = err.value(py);
        let _ = value.setattr("file", b.file.clone());
        let _ = value.setattr("line", b.line);
        let _ = value.setattr("field", b.field.clone());
        let _ = value.setattr("match_id", b.match_id.clone());
        let _ = value.setattr("errors", vec![b.message.clone()]);
    });
    err
}

/// An error of the evaluation lab's thread pool.
pub fn threads_error(message: String) -> PyErr {
    PyRuntimeError::new_err(message)
}
