//! What keeps long or failing work from escaping Python's control: a panic becomes a
//! `RuntimeError` (an `Exception`, which `except Exception` catches) instead of PyO3's
//! `PanicException`, long work stops on Ctrl-C, and counts given as Python ints are
//! checked with a message naming the argument.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use pyo3::exceptions::{PyOverflowError, PyRuntimeError};
use pyo3::prelude::*;

use crate::errors::ConfigError;

/// How often long work looks for Ctrl-C: every this many matches rated.
pub const SIGNAL_EVERY: usize = 1024;

/// How long a wait for the lab's workers lasts before looking for Ctrl-C.
const POLL: Duration = Duration::from_millis(50);

/// The message of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// The error a panic becomes.
fn internal(payload: &(dyn std::any::Any + Send)) -> PyErr {
    PyRuntimeError::new_err(format!(
        "podium: internal error, please report it: {}",
        panic_message(payload)
    ))
}

/// Runs `f`, a panic in it becoming a `RuntimeError`.
pub fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(internal(&*p)))
}

/// Looks for Ctrl-C (and other signals Python handles) from work that released the
/// interpreter's lock: `Err(KeyboardInterrupt)` when one came.
pub fn check_signals() -> PyResult<()> {
    Python::attach(|py| py.check_signals())
}

/// Runs `work` on a thread of its own named `name` (as the system lists threads: at
/// most 15 bytes), the interpreter's lock released, looking for
/// Ctrl-C while it runs. On Ctrl-C the call sets `stop` (work that reads it ends early)
/// and returns `KeyboardInterrupt` at once; the work's result is dropped when it ends
/// (work that reads `stop` ends at its next match or block of trials). A panic in the
/// work is a `RuntimeError`.
pub fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    name: &str,
    stop: Option<Arc<AtomicBool>>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            let _ = tx.send(catch_unwind(AssertUnwindSafe(work)));
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a worker thread: {e}")))?;
    py.detach(move || loop {
        match rx.recv_timeout(POLL) {
            Ok(Ok(done)) => return Ok(done),
            Ok(Err(payload)) => return Err(internal(&*payload)),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = check_signals() {
                    if let Some(stop) = &stop {
                        stop.store(true, Ordering::Relaxed);
                    }
                    return Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "podium: internal error, please report it: a worker ended without a result",
                ))
            }
        }
    })
}

/// A whole number given as a Python int for a count (`threads`, `steps`, `trials`,
/// `min_games`, `teams`, …): any int, however large (numpy's too, through `__index__`),
/// kept so that a value out of range is a `ConfigError` (a `ValueError`) naming the
/// argument and its range, rather than the `OverflowError` of PyO3's conversion, which
/// names neither.
#[derive(Debug, Clone)]
pub struct Int {
    /// The value, when within `i128`.
    value: Option<i128>,
    /// Whether it is below 0.
    negative: bool,
    /// As Python writes it.
    text: String,
}

impl From<i64> for Int {
    fn from(v: i64) -> Self {
        Int {
            value: Some(v.into()),
            negative: v < 0,
            text: v.to_string(),
        }
    }
}

impl std::fmt::Display for Int {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        // What an i64 takes (an int, anything with `__index__`), then beyond it.
        match obj.extract::<i64>() {
            Ok(v) => Ok(Int::from(v)),
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
                let index = obj
                    .py()
                    .import("operator")?
                    .getattr("index")?
                    .call1((obj,))?;
                Ok(Int {
                    value: index.extract::<i128>().ok(),
                    negative: index.lt(0)?,
                    text: index.str()?.to_cow()?.into_owned(),
                })
            }
            Err(e) => Err(e),
        }
    }
}

impl Int {
    /// The value for an argument of the unsigned type `T`: a `ConfigError` naming
    /// `argument` and the limit when it is negative or above `T::MAX`.
    pub fn whole<T>(&self, argument: &str) -> PyResult<T>
    where
        T: TryFrom<i128> + Unsigned,
    {
        self.value
            .and_then(|v| T::try_from(v).ok())
            .ok_or_else(|| self.out_of_range::<T>(argument))
    }

    /// The value for an argument of the unsigned type `T`, `T::MAX` when above it (a
    /// threshold no one reaches, as `min_games=2**70`): a `ConfigError` naming `argument`
    /// when it is negative.
    pub fn saturating<T>(&self, argument: &str) -> PyResult<T>
    where
        T: TryFrom<i128> + Unsigned,
    {
        if self.negative {
            return Err(self.out_of_range::<T>(argument));
        }
        Ok(self
            .value
            .and_then(|v| T::try_from(v).ok())
            .unwrap_or(T::MAX))
    }

    fn out_of_range<T: Unsigned>(&self, argument: &str) -> PyErr {
        let expected = if self.negative {
            "expected a whole number ≥ 0".to_string()
        } else {
            format!("expected a whole number ≤ {}", T::MAX)
        };
        ConfigError::new_err(format!("{argument}={self}: {expected}"))
    }
}

/// A count given as a Python int: see [`Int::whole`].
pub fn count(argument: &str, value: &Int) -> PyResult<usize> {
    value.whole(argument)
}

/// The unsigned types counts convert to, with their largest value for messages.
pub trait Unsigned: Sized + std::fmt::Display {
    /// The largest value.
    const MAX: Self;
}

impl Unsigned for u32 {
    const MAX: Self = u32::MAX;
}

impl Unsigned for u64 {
    const MAX: Self = u64::MAX;
}

impl Unsigned for usize {
    const MAX: Self = usize::MAX;
}
