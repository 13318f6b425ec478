//! Tables of results: a sequence of plain rows (a leaderboard, a player's history, the
//! systems' backtests) with `to_dicts()` and `to_pandas()`.
//!
//! A table keeps its rows as Rust values and makes a Python object of a row only when
//! it is asked for, so that a table nobody looks into costs one allocation, and
//! `to_pandas()` builds its columns without an object per row.

use std::fmt::Write as _;
use std::sync::Arc;

use pyo3::exceptions::{PyImportError, PyIndexError, PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PySlice, PyString};
use pyo3::IntoPyObjectExt;

/// A time as a table shows it: a `datetime` in UTC, or `None`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Time(pub Option<i64>);

impl<'py> IntoPyObject<'py> for Time {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Self::Output> {
        crate::time::to_py(py, self.0).map(|v| v.into_bound(py))
    }
}

/// Converts a reference to Python as the value it points to converts (what a row's
/// read-only attribute needs).
macro_rules! into_py_by_ref {
    ($ty:ty, $target:ty) => {
        impl<'py> pyo3::IntoPyObject<'py> for &$ty {
            type Target = $target;
            type Output = pyo3::Bound<'py, $target>;
            type Error = pyo3::PyErr;

            fn into_pyobject(self, py: pyo3::Python<'py>) -> pyo3::PyResult<Self::Output> {
                self.clone().into_pyobject(py)
            }
        }
    };
}

pub(crate) use into_py_by_ref;

into_py_by_ref!(Time, PyAny);

/// A row type of a [`Table`]: a Python class of plain fields.
pub trait Row: Clone + Send + Sync + 'static {
    /// The class name, for `repr`.
    const NAME: &'static str;
    /// The fields, in order: the table's columns.
    const COLUMNS: &'static [&'static str];
    /// The value of column `column` (an index into [`Row::COLUMNS`]).
    fn value(&self, py: Python<'_>, column: usize) -> PyResult<Py<PyAny>>;
    /// The row as a Python object.
    fn object(&self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

/// Defines a row class: a frozen Python class whose fields are read-only attributes, with
/// `to_dict()`, a `repr` of its fields and equality, and its [`Row`] implementation.
macro_rules! row {
    (
        $(#[$meta:meta])*
        $name:ident {
            $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[pyo3::pyclass(module = "podium", frozen, get_all, eq)]
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty ),*
        }

        impl $crate::table::Row for $name {
            const NAME: &'static str = stringify!($name);
            const COLUMNS: &'static [&'static str] = &[$(stringify!($field)),*];

            fn value(
                &self,
                py: pyo3::Python<'_>,
                column: usize,
            ) -> pyo3::PyResult<pyo3::Py<pyo3::PyAny>> {
                use pyo3::IntoPyObjectExt;
                let mut i = 0usize;
                $(
                    if column == i {
                        return self.$field.clone().into_py_any(py);
                    }
                    i += 1;
                )*
                Err(pyo3::exceptions::PyIndexError::new_err(format!(
                    "{} has {i} columns, not {}",
                    stringify!($name),
                    column + 1
                )))
            }

            fn object(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<pyo3::Py<pyo3::PyAny>> {
                Ok(pyo3::Py::new(py, self.clone())?.into_any())
            }
        }

        #[pyo3::pymethods]
        impl $name {
            /// The row as a dict of its fields.
            fn to_dict<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyDict>> {
                $crate::table::row_dict(py, self)
            }

            fn __repr__(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<String> {
                $crate::table::row_repr(py, self)
            }
        }
    };
}

pub(crate) use row;

/// A row as a dict of its fields.
pub fn row_dict<'py, T: Row>(py: Python<'py>, row: &T) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (i, c) in T::COLUMNS.iter().enumerate() {
        d.set_item(c, row.value(py, i)?)?;
    }
    Ok(d)
}

/// `Name(field=value, ...)` with the values' `repr`.
pub fn row_repr<T: Row>(py: Python<'_>, row: &T) -> PyResult<String> {
    let mut s = format!("{}(", T::NAME);
    for (i, c) in T::COLUMNS.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let v = row.value(py, i)?;
        let _ = write!(s, "{c}={}", v.bind(py).repr()?);
    }
    s.push(')');
    Ok(s)
}

/// The rows of a table, of any row type: a vector of rows, or anything that makes them
/// on demand.
pub trait Rows: Send + Sync {
    fn len(&self) -> usize;
    fn name(&self) -> &'static str;
    fn columns(&self) -> &'static [&'static str];
    fn object(&self, py: Python<'_>, i: usize) -> PyResult<Py<PyAny>>;
    fn value(&self, py: Python<'_>, i: usize, column: usize) -> PyResult<Py<PyAny>>;
    fn select(&self, indices: &[usize]) -> Arc<dyn Rows>;
}

impl<T: Row> Rows for Vec<T> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn name(&self) -> &'static str {
        T::NAME
    }
    fn columns(&self) -> &'static [&'static str] {
        T::COLUMNS
    }
    fn object(&self, py: Python<'_>, i: usize) -> PyResult<Py<PyAny>> {
        self[i].object(py)
    }
    fn value(&self, py: Python<'_>, i: usize, column: usize) -> PyResult<Py<PyAny>> {
        self[i].value(py, column)
    }
    fn select(&self, indices: &[usize]) -> Arc<dyn Rows> {
        Arc::new(indices.iter().map(|&i| self[i].clone()).collect::<Vec<T>>())
    }
}

/// A table of results: a read-only sequence of rows (each a plain object whose fields are
/// the table's `columns`), with `to_dicts()` and `to_pandas()`.
#[pyclass(module = "podium", frozen, sequence)]
#[derive(Clone)]
pub struct Table {
    rows: Arc<dyn Rows>,
}

impl Table {
    /// A table of `rows`.
    pub fn new<T: Row>(rows: Vec<T>) -> Self {
        Table {
            rows: Arc::new(rows),
        }
    }

    /// A table whose rows are made on demand.
    pub fn from_rows(rows: impl Rows + 'static) -> Self {
        Table {
            rows: Arc::new(rows),
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    fn index(&self, i: isize) -> PyResult<usize> {
        let n = self.rows.len() as isize;
        let j = if i < 0 { i + n } else { i };
        if (0..n).contains(&j) {
            Ok(j as usize)
        } else {
            Err(PyIndexError::new_err(format!(
                "row {i} of a table of {n} rows"
            )))
        }
    }

    /// Column `column`'s values, in row order.
    fn column_values<'py>(&self, py: Python<'py>, column: usize) -> PyResult<Bound<'py, PyList>> {
        let values = (0..self.rows.len())
            .map(|i| self.rows.value(py, i, column))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, values)
    }

    fn column_index(&self, name: &str) -> PyResult<usize> {
        self.rows
            .columns()
            .iter()
            .position(|c| *c == name)
            .ok_or_else(|| {
                PyKeyError::new_err(format!(
                    "no column {name:?}; the columns: {}",
                    self.rows.columns().join(", ")
                ))
            })
    }
}

/// Rows shown by a table's `repr`.
const SHOWN: usize = 20;

#[pymethods]
impl Table {
    fn __len__(&self) -> usize {
        self.rows.len()
    }

    /// A row by position (negative counts from the end), a new table for a slice, or a
    /// column's values (a list) by name.
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(slice) = key.cast::<PySlice>() {
            let ix = slice.indices(self.rows.len() as isize)?;
            let picked: Vec<usize> = (0..ix.slicelength)
                .map(|k| (ix.start + k as isize * ix.step) as usize)
                .collect();
            return Table {
                rows: self.rows.select(&picked),
            }
            .into_py_any(py);
        }
        if let Ok(name) = key.cast::<PyString>() {
            let c = self.column_index(&name.to_cow()?)?;
            return self.column_values(py, c)?.into_py_any(py);
        }
        match key.extract::<isize>() {
            Ok(i) => self.rows.object(py, self.index(i)?),
            // An int beyond isize is beyond any table, as Python's lists say of it.
            Err(_) if crate::numbers::integer(key)?.is_some() => Err(PyIndexError::new_err(
                format!("row {key} of a table of {} rows", self.rows.len()),
            )),
            Err(_) => Err(PyTypeError::new_err(format!(
                "a table is indexed by a row number, a slice or a column name, not {}",
                key.get_type().name()?
            ))),
        }
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let list = self.to_list(py)?;
        Ok(list.try_iter()?.into_any().unbind())
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mine = self.to_list(py)?;
        if let Ok(t) = other.cast::<Table>() {
            return mine.eq(t.get().to_list(py)?);
        }
        if other.is_instance_of::<PyList>() {
            return mine.eq(other);
        }
        Ok(false)
    }

    /// The rows as a list.
    fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = (0..self.rows.len())
            .map(|i| self.rows.object(py, i))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, rows)
    }

    /// The names of the columns (the rows' fields), in order.
    #[getter]
    fn columns(&self) -> Vec<&'static str> {
        self.rows.columns().to_vec()
    }

    /// The rows as a list of dicts, one entry per column.
    fn to_dicts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let columns = self.rows.columns();
        let keys: Vec<Bound<'_, PyString>> =
            columns.iter().map(|c| PyString::intern(py, c)).collect();
        let rows = (0..self.rows.len())
            .map(|i| {
                let d = PyDict::new(py);
                for (c, key) in keys.iter().enumerate() {
                    d.set_item(key, self.rows.value(py, i, c)?)?;
                }
                Ok(d)
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, rows)
    }

    /// The table as a `pandas.DataFrame`, one column per field (needs pandas).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pandas = import_pandas(py)?;
        let data = PyDict::new(py);
        for (c, name) in self.rows.columns().iter().enumerate() {
            data.set_item(name, self.column_values(py, c)?)?;
        }
        let kwargs = PyDict::new(py);
        kwargs.set_item("columns", self.columns())?;
        pandas.getattr("DataFrame")?.call((data,), Some(&kwargs))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        crate::guard::guarded(|| self.repr(py))
    }
}

impl Table {
    /// The first rows as aligned columns, each cell at most [`CELL_WIDTH`] wide.
    fn repr(&self, py: Python<'_>) -> PyResult<String> {
        let n = self.rows.len();
        let columns = self.rows.columns();
        let mut cells: Vec<Vec<String>> = vec![columns.iter().map(|c| c.to_string()).collect()];
        for i in 0..n.min(SHOWN) {
            let row = (0..columns.len())
                .map(|c| cell(self.rows.value(py, i, c)?.bind(py)).map(|v| ellipsized(&v)))
                .collect::<PyResult<Vec<_>>>()?;
            cells.push(row);
        }
        let widths: Vec<usize> = (0..columns.len())
            .map(|c| {
                cells
                    .iter()
                    .map(|r| r[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut s = format!(
            "Table of {n} {} row{}\n",
            self.rows.name(),
            if n == 1 { "" } else { "s" }
        );
        for row in &cells {
            let line: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(v, w)| {
                    let pad = w.saturating_sub(v.chars().count());
                    format!("{v}{}", " ".repeat(pad))
                })
                .collect();
            s.push_str(line.join("  ").trim_end());
            s.push('\n');
        }
        if n > SHOWN {
            let _ = writeln!(s, "… {} more", n - SHOWN);
        }
        Ok(s.trim_end().to_string())
    }
}

/// The widest a cell of a table's `repr` is, in characters: a longer value is cut
/// there, ending in `…` (the rows themselves keep it whole).
pub const CELL_WIDTH: usize = 40;

/// `v` cut to [`CELL_WIDTH`] characters, the last one `…`, when it is longer; its line
/// breaks and tabs shown as spaces, so that a cell stays on its line.
fn ellipsized(v: &str) -> String {
    let flat = |c: char| if c.is_control() { ' ' } else { c };
    if v.chars().count() <= CELL_WIDTH {
        return v.chars().map(flat).collect();
    }
    let mut out: String = v.chars().take(CELL_WIDTH - 1).map(flat).collect();
    out.push('…');
    out
}

/// A value as a table's `repr` shows it: numbers to 6 significant digits.
fn cell(v: &Bound<'_, PyAny>) -> PyResult<String> {
    if v.is_none() {
        return Ok(String::new());
    }
    if let Ok(f) = v.cast::<pyo3::types::PyFloat>() {
        let x = f.value();
        return Ok(v
            .py()
            .import("builtins")?
            .getattr("format")?
            .call1((x, ".6g"))?
            .extract::<String>()
            .unwrap_or_else(|_| x.to_string()));
    }
    Ok(v.str()?.to_cow()?.into_owned())
}

/// A string as Python's `repr` writes it (for the `repr`s written in Rust).
pub fn quoted(s: &str) -> String {
    let q = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// pandas, or an `ImportError` that says how to get it.
pub fn import_pandas(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("pandas").map_err(|e| {
        PyImportError::new_err(format!(
            "to_pandas() needs pandas, which is not installed ({e}); install it with `pip install pandas`"
        ))
    })
}

row! {
    /// One row of a leaderboard (`League.standings()`).
    Standing {
        /// 1-based position on the leaderboard.
        position: usize,
        /// The player's id.
        player: String,
        /// The rating (the mean μ for systems with an uncertainty).
        rating: f64,
        /// The uncertainty σ, for systems that keep one; `None` otherwise.
        sigma: Option<f64>,
        /// Matches played.
        games: u32,
        /// Mean number of entries in the player's matches.
        avg_size: f64,
        /// Wins; a tie for first among k entries counts 1/k.
        wins: f64,
        /// Win percentage, 0..100.
        win_pct: f64,
        /// Win percentage of an average player in the same matches (the mean of 1/N).
        expected_win_pct: f64,
        /// `win_pct − expected_win_pct`.
        net_pct: f64,
        /// When the player last played (UTC), when matches have times.
        last_played: Time,
        /// The id of the player's last match.
        last_match: Option<String>,
        /// Whether the rating is still provisional: fewer than five games (`mes`: its
        /// own provisional period).
        provisional: bool,
    }
}

row! {
    /// Why one player's rating moved in one match: a row of `League.rate()` and
    /// `League.history()`.
    Change {
        /// The match id.
        match_id: String,
        /// When the match was played (UTC), if known.
        time: Time,
        /// The player's id.
        player: String,
        /// The place of the player's entry, 1 = first; tied entries share the best place.
        place: usize,
        /// The rating before the match (aged by inactivity for systems with σ).
        rating_before: f64,
        /// The uncertainty σ before the match, for systems that keep one.
        sigma_before: Option<f64>,
        /// The score the system expected (same units as `actual`).
        expected: f64,
        /// The score the player achieved.
        actual: f64,
        /// The step size, for systems that have one (`None` for the Bayesian systems).
        k: Option<f64>,
        /// The share of the match the player played.
        weight: f64,
        /// `rating_after − rating_before`.
        change: f64,
        /// The rating after the match.
        rating_after: f64,
        /// The uncertainty σ after the match, for systems that keep one.
        sigma_after: Option<f64>,
    }
}

row! {
    /// A player's rating (`League.rating()`).
    Rating {
        /// The player's id.
        player: String,
        /// The rating (the mean μ for systems with an uncertainty).
        value: f64,
        /// The uncertainty σ, for systems that keep one.
        sigma: Option<f64>,
        /// Rated games played (counting games played elsewhere given with `set_initial`).
        games: u32,
    }
}

row! {
    /// A factor the league has met (a car, a seat, a faction): a row of
    /// `League.factor_standings()`, and what `League.factor_rating()` gives.
    FactorStanding {
        /// The factor's kind (`car`).
        kind: String,
        /// Which one of its kind (`ferrari`).
        value: String,
        /// Its rating: what it adds to the strength of an entry that carries it (0 is no
        /// advantage).
        rating: f64,
        /// Its uncertainty σ, for systems that keep one.
        sigma: Option<f64>,
        /// The matches where it told entries apart.
        matches: u32,
        /// Those matches won by an entry that carried it; a tie for first among k
        /// entries counts 1/k.
        wins: f64,
        /// Win percentage, 0..100.
        win_pct: f64,
        /// Win percentage of an average entry in the same matches (the mean of 1/N).
        expected_win_pct: f64,
    }
}

row! {
    /// Why one factor's rating moved in one match: a row of `League.factor_history()`.
    FactorChange {
        /// The match id.
        match_id: String,
        /// When the match was played (UTC), if known.
        time: Time,
        /// The factor's kind.
        kind: String,
        /// The factor's value.
        value: String,
        /// The rating before the match.
        rating_before: f64,
        /// The uncertainty σ before the match, for systems that keep one.
        sigma_before: Option<f64>,
        /// The score (or performance) the system expected of the entries that carried
        /// it, their mean.
        expected: f64,
        /// The score (or performance) those entries achieved, their mean.
        actual: f64,
        /// The step size, for systems that have one.
        k: Option<f64>,
        /// `rating_after − rating_before`.
        change: f64,
        /// The rating after the match.
        rating_after: f64,
        /// The uncertainty σ after the match, for systems that keep one.
        sigma_after: Option<f64>,
    }
}
