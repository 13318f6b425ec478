//! Numbers given from Python as numpy and pandas give them as well as Python does: an
//! integer is a Python `int` or anything that stands for one through `__index__`
//! (`numpy.int64`, …), and a bool is Python's `bool` or numpy's (`numpy.bool_`), found by
//! its type's name so that numpy need not be imported. A bool is never taken as an
//! integer, as Python's `bool` (an `int`) is not where a number is expected.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

/// Whether `v` is a bool: Python's `bool`, or numpy's `numpy.bool_` (named `numpy.bool`
/// since numpy 2).
pub fn is_bool(v: &Bound<'_, PyAny>) -> bool {
    if v.is_instance_of::<PyBool>() {
        return true;
    }
    v.get_type()
        .fully_qualified_name()
        .and_then(|n| {
            n.to_cow()
                .map(|n| matches!(&*n, "numpy.bool" | "numpy.bool_"))
        })
        .unwrap_or(false)
}

/// `v` as a Python `int` when it is an integer: an `int`, or anything with `__index__`
/// (as `operator.index` takes it), but not a bool. `None` for anything else.
///
/// # Errors
/// An error of `__index__` itself.
pub fn integer<'py>(v: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyInt>>> {
    if is_bool(v) {
        return Ok(None);
    }
    if let Ok(i) = v.cast::<PyInt>() {
        return Ok(Some(i.clone()));
    }
    if !v.get_type().hasattr("__index__")? {
        return Ok(None);
    }
    Ok(Some(v.call_method0("__index__")?.cast_into::<PyInt>()?))
}
