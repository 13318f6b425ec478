//! The Python package of podium, `podium-ratings` on PyPI, imported as `podium`: every
//! rating system of the library, leagues, predictions, the readers of match files and the
//! evaluation lab, from Python.
//!
//! The module mirrors the Rust library: `System` (`system.rs`) is a system built by name
//! with its parameters, `League` (`league.rs`) rates matches and keeps the leaderboard,
//! `Match` (`matches.rs`) is a validated match, and `Matches` holds a history read from
//! files, in rating order. Results come back as `Table`s (`table.rs`) of plain rows,
//! with `to_dicts()` and `to_pandas()`. Errors are Python exceptions carrying the
//! library's messages. Entries may carry factors (a car, a seat: [`podium::factor`]),
//! given in Python as `factors={entry: {kind: value}}` or read from the columns
//! `factors=[...]` names.
//!
//! Long work (rating many matches, reading files, backtests, simulations, tuning) runs
//! with the interpreter's lock released.

use pyo3::prelude::*;

/// mimalloc for the module's own allocations (Python keeps its allocator for its
/// objects): rating a match builds a few small vectors and strings per player and frees
/// them at once, which mimalloc does markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod borrow;
mod errors;
mod eval;
mod groups;
mod guard;
mod league;
mod matches;
mod numbers;
mod read;
mod system;
mod table;
mod time;

/// podium: ratings for multiplayer games, from Python.
#[pymodule]
#[pyo3(name = "podium")]
fn podium_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PodiumError", py.get_type::<errors::PodiumError>())?;
    m.add("MatchError", py.get_type::<errors::MatchError>())?;
    m.add("ConfigError", py.get_type::<errors::ConfigError>())?;
    m.add("RateError", py.get_type::<errors::RateError>())?;
    m.add("ReadError", py.get_type::<errors::ReadError>())?;
    m.add_class::<system::System>()?;
    m.add_class::<system::Parameter>()?;
    m.add_function(wrap_pyfunction!(system::systems, m)?)?;
    m.add_class::<matches::MatchObj>()?;
    m.add_class::<matches::Entry>()?;
    m.add_class::<matches::Matches>()?;
    m.add_class::<league::League>()?;
    m.add_class::<league::RateSummary>()?;
    m.add_class::<league::Prediction>()?;
    m.add_class::<table::Table>()?;
    m.add_class::<table::Standing>()?;
    m.add_class::<table::Change>()?;
    m.add_class::<table::Rating>()?;
    m.add_class::<table::FactorStanding>()?;
    m.add_class::<table::FactorChange>()?;
    m.add_function(wrap_pyfunction!(read::read, m)?)?;
    m.add_function(wrap_pyfunction!(read::read_csv, m)?)?;
    m.add_function(wrap_pyfunction!(read::read_jsonl, m)?)?;
    m.add_function(wrap_pyfunction!(groups::versus, m)?)?;
    m.add_function(wrap_pyfunction!(eval::backtest, m)?)?;
    m.add_function(wrap_pyfunction!(eval::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(eval::tune, m)?)?;
    m.add_class::<eval::BacktestResult>()?;
    m.add_class::<eval::SimulationResult>()?;
    m.add_class::<eval::TuneResult>()?;
    m.add_class::<eval::Candidate>()?;
    Ok(())
}
