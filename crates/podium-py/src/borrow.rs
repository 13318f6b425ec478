//! One call at a time on a league that several threads share.
//!
//! A `League` is borrowed by each of its methods for the length of the call; a call that
//! reads the matches of a generator, rates files or balances teams lets other threads run
//! meanwhile. Another thread that calls the same league then waits until the call is
//! over (the interpreter's lock released while it waits, Ctrl-C still heard), as it would
//! behind a lock, instead of failing with "Already borrowed". A call made from inside a
//! call of the same league on the same thread (a generator given to `rate_many` that
//! reads the board) cannot wait for itself: it is refused with a message that names both
//! calls.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::False;
use pyo3::PyClass;

thread_local! {
    /// The objects (by address) this thread is inside a call of, with each call's name,
    /// innermost last.
    static INSIDE: RefCell<Vec<(usize, &'static str)>> = const { RefCell::new(Vec::new()) };
}

/// The longest a waiting call sleeps before it tries again.
const LONGEST_WAIT: Duration = Duration::from_millis(2);

/// An object borrowed for one call, `R` its borrow ([`PyRef`] or [`PyRefMut`]); the
/// call is over when it is dropped.
pub struct Held<R> {
    borrow: R,
    addr: usize,
}

impl<R: Deref> Deref for Held<R> {
    type Target = R::Target;
    fn deref(&self) -> &R::Target {
        &self.borrow
    }
}

impl<R: DerefMut> DerefMut for Held<R> {
    fn deref_mut(&mut self) -> &mut R::Target {
        &mut self.borrow
    }
}

impl<R> Drop for Held<R> {
    fn drop(&mut self) {
        INSIDE.with(|inside| {
            let mut inside = inside.borrow_mut();
            if let Some(i) = inside.iter().rposition(|e| e.0 == self.addr) {
                inside.remove(i);
            }
        });
    }
}

/// `slf` borrowed to be read by the call `call` (a method's name), once no other call
/// changes it.
pub fn shared<'py, T: PyClass>(
    slf: &Bound<'py, T>,
    call: &'static str,
) -> PyResult<Held<PyRef<'py, T>>> {
    enter(slf, call, |s| s.try_borrow().ok())
}

/// `slf` borrowed to be changed by the call `call` (a method's name), once no other call
/// reads or changes it.
pub fn exclusive<'py, T: PyClass<Frozen = False>>(
    slf: &Bound<'py, T>,
    call: &'static str,
) -> PyResult<Held<PyRefMut<'py, T>>> {
    enter(slf, call, |s| s.try_borrow_mut().ok())
}

fn enter<'py, T: PyClass, R>(
    slf: &Bound<'py, T>,
    call: &'static str,
    take: impl Fn(&Bound<'py, T>) -> Option<R>,
) -> PyResult<Held<R>> {
    let addr = slf.as_ptr() as usize;
    let mut wait = Duration::from_micros(10);
    loop {
        if let Some(borrow) = take(slf) {
            INSIDE.with(|inside| inside.borrow_mut().push((addr, call)));
            return Ok(Held { borrow, addr });
        }
        let outer = INSIDE.with(|inside| {
            let inside = inside.borrow();
            inside.iter().rev().find(|e| e.0 == addr).map(|e| e.1)
        });
        if let Some(outer) = outer {
            let name = T::NAME;
            return Err(PyRuntimeError::new_err(format!(
                "{name}.{call}() was called from inside {name}.{outer}() of the same \
                 {name}, on the same thread (by the matches, generator or object that \
                 {outer}() reads): a {name} cannot be read or changed in the middle of \
                 one of its own calls; call {call}() after {outer}() returns"
            )));
        }
        // Another thread is inside a call: let it run, then try again.
        slf.py().detach(|| std::thread::sleep(wait));
        wait = (wait * 2).min(LONGEST_WAIT);
        slf.py().check_signals()?;
    }
}
