//! Match times between Python and the library: the library keeps seconds since the Unix
//! epoch (UTC); Python sees `datetime.datetime` in UTC and may give a datetime, a date, a
//! string (RFC 3339 or `YYYY-MM-DD`, as in files) or a number of seconds.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyFloat, PyString};

/// What the conversions need of the `datetime` and `calendar` modules, looked up once.
struct Classes {
    datetime: Py<PyAny>,
    date: Py<PyAny>,
    epoch: Py<PyAny>,
    timedelta: Py<PyAny>,
    timegm: Py<PyAny>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        let dt = py.import("datetime")?;
        let utc = dt.getattr("timezone")?.getattr("utc")?;
        let datetime = dt.getattr("datetime")?;
        let epoch = datetime.call1((1970, 1, 1, 0, 0, 0, 0, &utc))?;
        Ok(Classes {
            datetime: datetime.unbind(),
            date: dt.getattr("date")?.unbind(),
            epoch: epoch.unbind(),
            timedelta: dt.getattr("timedelta")?.unbind(),
            timegm: py.import("calendar")?.getattr("timegm")?.unbind(),
        })
    })
}

/// The earliest time podium takes: the first second of the year −9999, as the readers
/// take it (`-009999-01-01T00:00:00Z`).
pub const EARLIEST: i64 = podium_io::FIRST_SECOND;

/// The latest time podium takes: the last second of the year 9999
/// (`9999-12-31T23:59:59Z`).
pub const LATEST: i64 = podium_io::LAST_SECOND;

/// Why the time written `shown` is refused: beyond the times podium takes.
fn out_of_range(shown: &str) -> PyErr {
    PyValueError::new_err(format!(
        "time {shown} is out of the range of times podium takes: -009999-01-01T00:00:00Z to \
         9999-12-31T23:59:59Z ({EARLIEST} to {LATEST} seconds since 1970)"
    ))
}

/// `t` when podium takes it, else the error naming it as `shown`.
fn within(t: i64, shown: impl FnOnce() -> String) -> PyResult<i64> {
    if (EARLIEST..=LATEST).contains(&t) {
        Ok(t)
    } else {
        Err(out_of_range(&shown()))
    }
}

/// A time as Python shows it: a `datetime` in UTC, `None` for none. A time beyond the
/// years `datetime` holds (1 to 9999) is given as its RFC 3339 text.
pub fn to_py(py: Python<'_>, time: Option<i64>) -> PyResult<Py<PyAny>> {
    let Some(t) = time else {
        return Ok(py.None());
    };
    let c = classes(py)?;
    let delta = c
        .timedelta
        .bind(py)
        .call1((0, t))
        .and_then(|d| c.epoch.bind(py).add(d));
    match delta {
        Ok(v) => Ok(v.unbind()),
        Err(_) => Ok(PyString::new(py, &podium_io::format_time(t))
            .into_any()
            .unbind()),
    }
}

/// Whether `v` is numpy's `datetime64`, found by its type's name so that numpy need not
/// be imported.
fn is_datetime64(v: &Bound<'_, PyAny>) -> bool {
    v.get_type()
        .fully_qualified_name()
        .and_then(|n| n.to_cow().map(|n| n == "numpy.datetime64"))
        .unwrap_or(false)
}

/// The error for a missing time of pandas or numpy (`NaT`), refused as a float NaN is.
fn not_a_time() -> PyErr {
    PyValueError::new_err("time NaT is not a time; give None for a match without a time")
}

/// A time given from Python, in seconds since the epoch: `None` is none; a float NaN
/// and a missing time of pandas or numpy (`NaT`) are refused (a value that is no time,
/// rather than a match silently without one); a `datetime` without a time zone is taken
/// as UTC, as are dates (midnight); numpy's `datetime64` (what pandas' `.values` gives) is
/// a time in UTC; strings are read as the file formats read them; numbers are seconds
/// (an integer may be numpy's: [`crate::numbers::integer`]; a bool, numpy's too, is
/// refused). Times are kept to the second: a fraction of a second is dropped (the time
/// rounded down), as the file formats keep them.
///
/// # Errors
/// `TypeError` for another type, `ValueError` for a string that is not a time, a number
/// that is not finite, or a time beyond those podium takes ([`EARLIEST`] to [`LATEST`],
/// the years −9999 to 9999, as the readers take them).
pub fn from_py(value: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    let py = value.py();
    if value.is_none() {
        return Ok(None);
    }
    if let Ok(s) = value.cast::<PyString>() {
        let s = s.to_cow()?;
        // A time out of range is said so; text that is no time, as such.
        let t = podium_io::seconds_named(&s).ok_or_else(|| {
            PyValueError::new_err(format!(
                "time {s:?} is not valid, expected RFC 3339 (2024-05-01T20:00:00Z) or a date (2024-05-01)"
            ))
        })?;
        return within(t, || format!("{s:?}")).map(Some);
    }
    if crate::numbers::is_bool(value) {
        return Err(PyTypeError::new_err(
            "a time is a datetime, a date, a string or seconds since 1970, not a bool",
        ));
    }
    if let Some(seconds) = crate::numbers::integer(value)? {
        let shown = || seconds.to_string();
        return match seconds.extract::<i64>() {
            Ok(t) => within(t, shown).map(Some),
            Err(_) => Err(out_of_range(&shown())),
        };
    }
    if value.is_instance_of::<PyFloat>() {
        let v: f64 = value.extract()?;
        if v.is_nan() {
            return Err(PyValueError::new_err(
                "time nan is not a number of seconds; give None for a match without a time",
            ));
        }
        if !v.is_finite() {
            return Err(PyValueError::new_err(format!(
                "time {v} is not a finite number of seconds"
            )));
        }
        let t = v.floor();
        if !(EARLIEST as f64..=LATEST as f64).contains(&t) {
            return Err(out_of_range(&crate::matches::float_repr(value)?));
        }
        return Ok(Some(t as i64));
    }
    if is_datetime64(value) {
        // numpy's NaT is a datetime64 that is not equal to itself.
        if value.ne(value)? {
            return Err(not_a_time());
        }
        // To whole seconds, rounded down as numpy converts units.
        let t: i64 = value
            .call_method1("astype", ("datetime64[s]",))?
            .call_method1("astype", ("int64",))?
            .extract()?;
        return within(t, || value.str().map(|s| s.to_string()).unwrap_or_default()).map(Some);
    }
    let c = classes(py)?;
    if value.is_instance(c.datetime.bind(py))? {
        // pandas' NaT is a datetime that is not equal to itself.
        if value.ne(value)? {
            return Err(not_a_time());
        }
        let tuple = value.call_method0("utctimetuple")?;
        return c.timegm.bind(py).call1((tuple,))?.extract().map(Some);
    }
    if value.is_instance(c.date.bind(py))? {
        let tuple = value.call_method0("timetuple")?;
        return c.timegm.bind(py).call1((tuple,))?.extract().map(Some);
    }
    Err(PyTypeError::new_err(format!(
        "a time is a datetime, a date, a string (RFC 3339 or YYYY-MM-DD) or seconds since 1970, not {}",
        value.get_type().name()?
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_is_the_readers() {
        assert_eq!(
            podium_io::parse_time("-009999-01-01T00:00:00Z"),
            Some(EARLIEST)
        );
        assert_eq!(podium_io::parse_time("9999-12-31T23:59:59Z"), Some(LATEST));
        assert_eq!(podium_io::format_time(EARLIEST), "-009999-01-01");
        assert_eq!(podium_io::format_time(LATEST), "9999-12-31T23:59:59Z");
    }
}
