//! Rating systems by name: `podium.systems()` lists them, `podium.System(name, **params)`
//! builds one with keyword parameters, checked by the library.

use std::sync::Arc;

use podium::registry::{spec, SystemSpec};
use podium::{ParamValue, RatingSystem, Settings};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::errors::config_error;
use crate::table::{into_py_by_ref, row, Row, Table};

/// A parameter's value as Python sees it: a float, an int or a bool.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Value(pub ParamValue);

impl Value {
    /// The value as Python's `repr` writes it (`8.0`, `5`, `True`).
    pub fn text(&self) -> String {
        match self.0 {
            ParamValue::Float(v) => format!("{v:?}"),
            ParamValue::Int(v) => v.to_string(),
            ParamValue::Bool(true) => "True".to_string(),
            ParamValue::Bool(false) => "False".to_string(),
            // Kinds of values the library may add later: as the command line writes them.
            #[allow(unreachable_patterns)]
            other => format!("{:?}", other.to_string()),
        }
    }
}

impl<'py> IntoPyObject<'py> for Value {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Self::Output> {
        match self.0 {
            ParamValue::Float(v) => v.into_bound_py_any(py),
            ParamValue::Int(v) => v.into_bound_py_any(py),
            ParamValue::Bool(v) => v.into_bound_py_any(py),
            // Kinds of values the library may add later: their text, as the command
            // line writes it (which `System(...)` reads back).
            #[allow(unreachable_patterns)]
            other => other.to_string().into_bound_py_any(py),
        }
    }
}

into_py_by_ref!(Value, PyAny);

row! {
    /// One parameter of a system: its name, value, default and meaning.
    Parameter {
        /// The name, as a keyword of `System(...)`.
        name: String,
        /// The value the system has.
        value: Value,
        /// The default value.
        default: Value,
        /// What the parameter does.
        doc: String,
    }
}

/// A rating system with its parameters, built by name:
/// `System("plackett-luce", beta=4.0)`. Parameters not given keep their defaults; every
/// value is checked, and a bad one raises `ConfigError` with the library's message.
#[pyclass(module = "podium", frozen)]
#[derive(Clone)]
pub struct System {
    pub spec: &'static SystemSpec,
    pub settings: Settings,
    pub inner: Arc<dyn RatingSystem>,
}

impl System {
    /// The system registered as `name` with `settings` over its defaults.
    pub fn build(name: &str, settings: Settings) -> PyResult<Self> {
        let inner = podium::system(name, &settings).map_err(config_error)?;
        let spec = spec(name).expect("a system that was built is registered");
        Ok(System {
            spec,
            settings,
            inner: Arc::from(inner),
        })
    }

    /// The system registered as `name` with the keyword parameters `params` over `base`
    /// (its defaults when `None`). A value refused is named as it was given: a list as
    /// Python writes it (`[]`), not as the text the library read (`none`).
    pub fn from_params(
        name: &str,
        base: Option<&Settings>,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let given = settings_of(params)?;
        let settings = match base {
            Some(base) => base.then(&given),
            None => given,
        };
        match podium::system(name, &settings) {
            Ok(inner) => {
                let spec = spec(name).expect("a system that was built is registered");
                Ok(System {
                    spec,
                    settings,
                    inner: Arc::from(inner),
                })
            }
            Err(e) => Err(as_given(e, params)),
        }
    }

    /// A new instance of the system, for the parts of the library that own theirs.
    pub fn boxed(&self) -> Box<dyn RatingSystem> {
        (self.spec.build)(&self.settings).expect("the settings were checked when built")
    }

    /// A system given as a `System`, or as a name (with `params`).
    pub fn from_py(value: &Bound<'_, PyAny>, params: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let has_params = params.is_some_and(|p| !p.is_empty());
        if let Ok(s) = value.cast::<System>() {
            let s = s.get();
            if has_params {
                return s.with(params);
            }
            return Ok(s.clone());
        }
        if let Ok(name) = value.cast::<PyString>() {
            return System::from_params(&name.to_cow()?, None, params);
        }
        Err(PyTypeError::new_err(format!(
            "a system is a podium.System or a system's name (see podium.systems()), not {}",
            value.get_type().name()?
        )))
    }

    /// This system with more parameters set.
    fn with(&self, params: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        System::from_params(self.spec.name, Some(&self.settings), params)
    }

    fn params_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for p in self.inner.describe().params {
            d.set_item(p.name, Value(p.value))?;
        }
        Ok(d)
    }
}

/// The library's error for a value refused, the value shown as it was given when it was
/// a list or a tuple (which the library reads as comma-separated text, `none` when empty).
fn as_given(e: podium::ConfigError, params: Option<&Bound<'_, PyDict>>) -> PyErr {
    let podium::ConfigError::InvalidValue {
        param, expected, ..
    } = &e
    else {
        return config_error(e);
    };
    let same = |k: &str| {
        k.replace('-', "_")
            .eq_ignore_ascii_case(&param.replace('-', "_"))
    };
    let listed = params.into_iter().flat_map(|p| p.iter()).find(|(k, v)| {
        k.extract::<String>().is_ok_and(|k| same(&k))
            && (v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>())
    });
    match listed.map(|(_, v)| v.repr()) {
        Some(Ok(shown)) => crate::errors::ConfigError::new_err(format!(
            "parameter {param}: {shown} is not valid, expected {expected}"
        )),
        _ => config_error(e),
    }
}

/// Keyword parameters as the library's text settings.
pub fn settings_of(params: Option<&Bound<'_, PyDict>>) -> PyResult<Settings> {
    let mut settings = Settings::new();
    if let Some(params) = params {
        for (k, v) in params.iter() {
            let key: String = k.extract()?;
            let text = param_text(&key, &v)?;
            settings.push(key, text);
        }
    }
    // `sig_limit=` beside `**{"sig-limit": …}`: which was meant cannot be told.
    settings.check_repeated().map_err(config_error)?;
    Ok(settings)
}

/// A parameter's value as text the library parses: bools as `true`/`false`, numbers at
/// full precision, lists of numbers comma-separated (`none` when empty), strings as they
/// are.
fn param_text(key: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
    if crate::numbers::is_bool(v) {
        return Ok(v.is_truthy()?.to_string());
    }
    if let Some(i) = crate::numbers::integer(v)? {
        return Ok(i.str()?.to_cow()?.into_owned());
    }
    if v.is_instance_of::<PyFloat>() {
        // Python's repr is the shortest text that reads back as the same number.
        return crate::matches::float_repr(v);
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items = v
            .try_iter()?
            .map(|x| param_text(key, &x?))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(if items.is_empty() {
            "none".to_string()
        } else {
            items.join(",")
        });
    }
    Err(PyTypeError::new_err(format!(
        "parameter {key}: a value is a number, a bool or a string, not {}",
        v.get_type().name()?
    )))
}

#[pymethods]
impl System {
    #[new]
    #[pyo3(signature = (name, /, **params))]
    fn new(name: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        System::from_params(name, None, params)
    }

    /// The system's registered name.
    #[getter]
    fn name(&self) -> &'static str {
        self.spec.name
    }

    /// One line on what the system does.
    #[getter]
    fn summary(&self) -> &'static str {
        self.spec.summary
    }

    /// Where the system comes from: author, title and year of the work that defines it.
    #[getter]
    fn source(&self) -> &'static str {
        self.spec.source
    }

    /// Every parameter's value, by name.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.params_dict(py)
    }

    /// Every parameter with its value, default and meaning.
    #[getter]
    fn parameters(&self) -> Table {
        let defaults = (self.spec.defaults)();
        let rows = self
            .inner
            .describe()
            .params
            .into_iter()
            .map(|p| Parameter {
                name: p.name.to_string(),
                value: Value(p.value),
                default: Value(
                    defaults
                        .iter()
                        .find(|d| d.name == p.name)
                        .map_or(p.value, |d| d.value),
                ),
                doc: p.doc.to_string(),
            })
            .collect();
        Table::new::<Parameter>(rows)
    }

    /// Whether the system keeps an uncertainty σ beside each rating.
    #[getter]
    fn has_uncertainty(&self) -> bool {
        self.inner.capabilities().has_uncertainty
    }

    /// Whether the system rates factors (a car, a seat, a faction) beside the players:
    /// every system but proportional and ttt does; these raise `RateError` for a match
    /// whose factors tell its entries apart.
    #[getter]
    fn rates_factors(&self) -> bool {
        self.inner.capabilities().rates_factors
    }

    /// The same system with some parameters changed: `sme.with_params(k=24)`.
    #[pyo3(signature = (**params))]
    fn with_params(&self, params: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        self.with(params)
    }

    /// The system's probability that a player rated `a` finishes ahead of one rated `b`
    /// in a two-player match (ratings as numbers, or `(rating, sigma)` pairs for systems
    /// with σ).
    fn win_probability(&self, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<f64> {
        let a = rating_arg(&*self.inner, "a", a)?;
        let b = rating_arg(&*self.inner, "b", b)?;
        Ok(self.inner.win_probability(&a, &b, None))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = vec![crate::table::quoted(self.spec.name)];
        for p in self.inner.describe().params {
            parts.push(format!(
                "{}={}",
                p.name,
                Value(p.value).into_bound_py_any(py)?.repr()?
            ));
        }
        Ok(format!("System({})", parts.join(", ")))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<System>() {
            Ok(o) => {
                let o = o.get();
                o.spec.name == self.spec.name
                    && o.inner.describe().params == self.inner.describe().params
            }
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.spec.name.hash(&mut h);
        for p in self.inner.describe().params {
            p.name.hash(&mut h);
            p.value.to_string().hash(&mut h);
        }
        h.finish()
    }

    /// For pickling: the name and the parameters.
    fn __getnewargs_ex__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyTuple>, Bound<'py, PyDict>)> {
        Ok((PyTuple::new(py, [self.spec.name])?, self.params_dict(py)?))
    }
}

/// A rating given as a number or a `(rating, sigma)` pair, as argument `arg`: one the
/// system cannot rate (NaN, beyond ±1e9, a negative σ, …) is a `RateError` naming `arg`,
/// as `League.set_initial` refuses it.
fn rating_arg(
    system: &dyn RatingSystem,
    arg: &str,
    v: &Bound<'_, PyAny>,
) -> PyResult<podium::Rating> {
    let init = system.initial_rating();
    let rating = if let Ok((value, sigma)) = v.extract::<(f64, f64)>() {
        podium::Rating {
            value,
            sigma: Some(sigma),
            games: 0,
        }
    } else {
        let value: f64 = v.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "{arg}: a rating is a number, or a (rating, sigma) pair, not {}",
                crate::errors::a_type(v)
            ))
        })?;
        podium::Rating { value, ..init }
    };
    match system.check_rating(&rating) {
        Ok(()) => Ok(rating),
        Err(podium::RateError::RatingOutOfRange {
            system,
            what,
            value,
            allowed,
            ..
        }) => Err(crate::errors::RateError::new_err(format!(
            "{arg}: {what} {} is outside the range system {system} can rate ({allowed})",
            PyFloat::new(v.py(), value).repr()?
        ))),
        Err(e) => Err(crate::errors::rate_error(e)),
    }
}

impl Row for System {
    const NAME: &'static str = "System";
    const COLUMNS: &'static [&'static str] = &[
        "name",
        "summary",
        "source",
        "has_uncertainty",
        "rates_factors",
        "params",
    ];

    fn value(&self, py: Python<'_>, column: usize) -> PyResult<Py<PyAny>> {
        match column {
            0 => self.spec.name.into_py_any(py),
            1 => self.spec.summary.into_py_any(py),
            2 => self.spec.source.into_py_any(py),
            3 => self.inner.capabilities().has_uncertainty.into_py_any(py),
            4 => self.inner.capabilities().rates_factors.into_py_any(py),
            _ => self.params_dict(py)?.into_py_any(py),
        }
    }

    fn object(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, self.clone())?.into_any())
    }
}

/// Every rating system at its defaults, in the order `podium systems` lists them: a table
/// of `System`s (name, summary, source, whether it keeps σ, whether it rates factors,
/// parameters).
#[pyfunction]
pub fn systems() -> PyResult<Table> {
    let all = podium::systems()
        .iter()
        .map(|s| System::build(s.name, Settings::new()))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Table::new(all))
}
