//! What keeps long or failing work from escaping Python's control: a panic becomes a
//! `RuntimeError` (an `Exception`, which `except Exception` catches) instead of PyO3's
//! `PanicException`, long work stops on Ctrl-C, and counts given as Python ints are
//! checked with a message naming the argument.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
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

/// A count given as a Python int (`threads`, `steps`, `samples`, `min_games`, `teams`,
/// …): a `ConfigError` (a `ValueError`) naming `argument` when it is negative.
pub fn count(argument: &str, value: i64) -> PyResult<usize> {
    whole(argument, value)
}

/// A whole number given as a Python int for an argument of an unsigned type `T`: a
/// `ConfigError` (a `ValueError`) naming `argument` and the limit when it is negative or
/// above `T::MAX`, rather than the `OverflowError` of PyO3's conversion, which names
/// neither.
pub fn whole<T, V>(argument: &str, value: V) -> PyResult<T>
where
    T: TryFrom<V> + Unsigned,
    V: Copy + std::fmt::Display + PartialOrd + Default,
{
    T::try_from(value).map_err(|_| {
        let expected = if value < V::default() {
            "expected a whole number ≥ 0".to_string()
        } else {
            format!("expected a whole number ≤ {}", T::MAX)
        };
        ConfigError::new_err(format!("{argument}={value}: {expected}"))
    })
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
