//! The evaluation lab from Python: `backtest()`, `simulate()` and `tune()` of
//! `podium-eval`, returning plain rows. They run with the interpreter's lock released,
//! on every core unless `threads` says otherwise.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use podium::{Match, RatingSystem, Settings};
use podium_eval::tune::Values;
use podium_eval::worker_threads;
use podium_eval::{BacktestOptions, Bound as WindowBound, Metric, ParamSearch, Search, Window};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use rayon::prelude::*;

use crate::errors::{config_error, threads_error, ConfigError, RateError};
use crate::guard::{count, guarded, interruptible, Int};
use crate::matches::Given;
use crate::read::factor_columns;
use crate::system::{settings_of, System, Value};
use crate::table::{import_pandas, into_py_by_ref, row, Table};

row! {
    /// One system's backtest: how well its pre-match ratings predicted the warm pairs
    /// of the scored matches.
    BacktestResult {
        /// The system's name.
        system: String,
        /// Pair accuracy 0..1 (1 per pair the higher-rated player won, ½ per pair rated
        /// equal); `None` without warm pairs or when the system could not rate.
        accuracy: Option<f64>,
        /// Mean log loss of the system's own win probability per warm pair (when
        /// computed).
        log_loss: Option<f64>,
        /// Warm pairs scored.
        warm_pairs: u64,
        /// Pairs the better-placed player was rated strictly higher.
        concordant: u64,
        /// Pairs rated exactly equal.
        tied: u64,
        /// Pairs the better-placed player was rated strictly lower.
        discordant: u64,
        /// Matches rated (all of the history).
        matches_rated: u64,
        /// Matches scored (inside the window).
        matches_scored: u64,
        /// Wall-clock seconds the replay took.
        seconds: f64,
        /// Standard error of `accuracy` with the matches as the units (the pairs of one
        /// match are not independent); `None` with fewer than two matches with warm
        /// pairs.
        accuracy_se: Option<f64>,
        /// Why the system could not rate the history, if it could not.
        error: Option<String>,
    }
}

impl BacktestResult {
    fn of(system: &str, r: Result<podium_eval::BacktestResult, String>) -> Self {
        match r {
            Ok(r) => BacktestResult {
                system: r.system.clone(),
                accuracy: r.accuracy(),
                log_loss: r.log_loss(),
                warm_pairs: r.warm_pairs(),
                concordant: r.pairs.concordant,
                tied: r.pairs.tied,
                discordant: r.pairs.discordant,
                matches_rated: r.matches_rated,
                matches_scored: r.matches_scored,
                seconds: r.seconds,
                accuracy_se: r.accuracy_se(),
                error: None,
            },
            Err(why) => BacktestResult {
                system: system.to_string(),
                accuracy: None,
                log_loss: None,
                warm_pairs: 0,
                concordant: 0,
                tied: 0,
                discordant: 0,
                matches_rated: 0,
                matches_scored: 0,
                seconds: 0.0,
                accuracy_se: None,
                error: Some(why),
            },
        }
    }
}

/// The systems asked for: `"all"` (or `None`), a name, a `System`, or a list of names
/// and `System`s; and whether that was `"all"`.
fn systems_of(value: Option<&Bound<'_, PyAny>>) -> PyResult<(Vec<System>, bool)> {
    let every = || -> PyResult<(Vec<System>, bool)> {
        let all = podium::systems()
            .iter()
            .map(|spec| System::build(spec.name, Settings::new()))
            .collect::<PyResult<Vec<_>>>()?;
        Ok((all, true))
    };
    let Some(value) = value else {
        return every();
    };
    if let Ok(s) = value.cast::<PyString>() {
        let s = s.to_cow()?;
        if s.trim().eq_ignore_ascii_case("all") {
            return every();
        }
        return Ok((vec![System::from_py(value, None)?], false));
    }
    if value.cast::<System>().is_ok() {
        return Ok((vec![System::from_py(value, None)?], false));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let all = value
            .try_iter()?
            .map(|v| System::from_py(&v?, None))
            .collect::<PyResult<Vec<_>>>()?;
        if all.is_empty() {
            return Err(ConfigError::new_err("no system given"));
        }
        return Ok((all, false));
    }
    Err(PyTypeError::new_err(
        "systems are \"all\", a system's name, a podium.System, or a list of them",
    ))
}

/// The history with only the factors of the kinds `kinds` (every factor the matches
/// carry when `None`, none when empty): what the lab's `factors=` chooses. A kind that
/// no match carries is a `ConfigError` naming it.
fn with_factor_kinds(
    history: Arc<Vec<Match>>,
    kinds: Option<&[String]>,
) -> PyResult<Arc<Vec<Match>>> {
    let Some(kinds) = kinds else {
        return Ok(history);
    };
    let mut carried: Vec<&str> = Vec::new();
    for m in history.iter().filter(|m| m.has_factors()) {
        for f in m.entries().iter().flat_map(|e| &e.factors) {
            if !carried.contains(&f.kind.as_str()) {
                carried.push(&f.kind);
            }
        }
    }
    if let Some(k) = kinds.iter().find(|k| !carried.contains(&k.as_str())) {
        let hint = if carried.is_empty() {
            "no match carries factors (read the files with factors=[...])".to_string()
        } else {
            format!("the kinds the matches carry: {}", carried.join(", "))
        };
        return Err(ConfigError::new_err(format!(
            "factors: no match carries the factor kind {k:?}; {hint}"
        )));
    }
    if carried.iter().all(|c| kinds.iter().any(|k| k == c)) {
        return Ok(history);
    }
    let keep = |m: &Match| -> Result<Match, podium::MatchError> {
        if !m.has_factors() {
            return Ok(m.clone());
        }
        let mut b = Match::builder(m.id());
        if let Some(t) = m.time() {
            b = b.time(t);
        }
        for e in m.entries() {
            let mut e = e.clone();
            e.factors.retain(|f| kinds.contains(&f.kind));
            b = b.entry(e);
        }
        b.build()
    };
    let kept = history
        .iter()
        .map(keep)
        .collect::<Result<Vec<_>, _>>()
        .map_err(crate::errors::match_error)?;
    Ok(Arc::new(kept))
}

/// The systems to run on `history`: with factors, `"all"` is every system that rates
/// them (as `podium backtest --factor` takes it), and a system named that does not rate
/// them is the library's `RateError`.
fn factor_systems(mut systems: Vec<System>, all: bool, history: &[Match]) -> PyResult<Vec<System>> {
    if !history.iter().any(Match::has_factors) {
        return Ok(systems);
    }
    if all {
        systems.retain(|s| s.inner.capabilities().rates_factors);
    }
    if let Some(s) = systems
        .iter()
        .find(|s| !s.inner.capabilities().rates_factors)
    {
        let e = podium::RateError::FactorsUnsupported {
            system: s.inner.name(),
        };
        return Err(RateError::new_err(format!(
            "{e}; pass factors=[] to rate the players alone"
        )));
    }
    Ok(systems)
}

/// A worker pool of `threads` threads (0 = one per core).
fn pool(threads: usize) -> PyResult<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| threads_error(format!("cannot start worker threads: {e}")))
}

/// One end of the scored window: a match number (an int, 1 = first rated; numpy's too)
/// or a time (a datetime, a date or a string, as `Match(time=...)` takes it). A float is
/// neither: taken as seconds since 1970 it would silently score another window than the
/// match number it looks like, so it is a `TypeError`, as is a bool.
fn bound_of(value: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<WindowBound>> {
    let Some(v) = value else {
        return Ok(None);
    };
    if v.is_none() {
        return Ok(None);
    }
    if let Some(n) = crate::numbers::integer(v)? {
        return match n.extract::<u64>() {
            Ok(n) if n > 0 => Ok(Some(WindowBound::Match(n))),
            _ => Err(ConfigError::new_err(format!(
                "{what}={n}: expected a match number from 1 to {} (match numbers start at 1, \
                 the first match)",
                u64::MAX
            ))),
        };
    }
    // A float (Python's, numpy's, a Fraction: any real number but an int).
    let real = v.py().import("numbers")?.getattr("Real")?;
    if crate::numbers::is_bool(v) || v.is_instance(&real)? {
        return Err(PyTypeError::new_err(format!(
            "{what}={}: expected an int match number (1 = the first match) or a time (a \
             datetime, a date or a string), not {}",
            v.repr()?,
            crate::errors::a_type(v)
        )));
    }
    match crate::time::from_py(v)? {
        Some(t) => Ok(Some(WindowBound::Time(t))),
        None => Ok(None),
    }
}

/// One end of a window as the messages show it: `start=40`, `end=2024-05-01`.
fn bound_text(what: &str, bound: Option<WindowBound>) -> Option<String> {
    match bound? {
        WindowBound::Match(n) => Some(format!("{what}={n}")),
        WindowBound::Time(t) => Some(format!("{what}={}", podium_io::format_time(t))),
    }
}

/// Refuses a window that holds none of `history`'s matches, as `podium backtest` does:
/// it would score nothing and say nothing of why. The message gives the history's
/// numbers and dates.
fn check_window(window: &Window, history: &[Match]) -> PyResult<()> {
    let mut inside = history
        .iter()
        .enumerate()
        .map(|(i, m)| window.contains(i as u64 + 1, m));
    if history.is_empty() || inside.any(|inside| inside.unwrap_or(true)) {
        return Ok(());
    }
    let dates = match (
        history.first().and_then(Match::time),
        history.last().and_then(Match::time),
    ) {
        (Some(a), Some(b)) => format!(
            ", dated {} to {}",
            podium_io::format_time(a),
            podium_io::format_time(b)
        ),
        _ => String::new(),
    };
    let numbers = if history.len() == 1 {
        "the one match is number 1".to_string()
    } else {
        format!("the matches are numbered 1 to {}", history.len())
    };
    let bounds: Vec<String> = [
        bound_text("start", window.from),
        bound_text("end", window.until),
    ]
    .into_iter()
    .flatten()
    .collect();
    Err(ConfigError::new_err(format!(
        "{}: no match falls in this window, so none would be scored: {numbers}{dates}, and a \
         window runs from start up to, not including, end",
        bounds.join(", ")
    )))
}

/// Replays a history with each system and scores every system's pre-match predictions
/// on the warm pairs of each match: pair accuracy and log loss.
///
/// `matches` is a `Matches` or an iterable of matches, in rating order. `systems`:
/// `"all"`, a name, a `System` or a list of them. Only matches from `start` (included) to
/// `end` (excluded) are scored, each a match number (1 = first) or a time; every match
/// is rated. `log_loss=False` skips the log loss (O(W²) per match). Returns a table of
/// `BacktestResult`, one per system; a system that cannot rate the history has its
/// reason in `error`.
///
/// Matches with factors (read with `factors=[...]`) are rated with them, and each pair
/// is scored by its players' ratings with their entries' factors added, as
/// `podium backtest --factor` does: `"all"` is then every system that rates factors,
/// and a named system that does not raises `RateError`. `factors` chooses which of the
/// matches' factor kinds to rate (`factors=[]`: none, the players alone).
#[pyfunction]
#[pyo3(signature = (matches, systems=None, /, *, start=None, end=None, log_loss=true, threads=Int::from(0), factors=None), text_signature = "(matches, systems=None, /, *, start=None, end=None, log_loss=True, threads=0, factors=None)")]
#[allow(clippy::too_many_arguments)]
pub fn backtest(
    py: Python<'_>,
    matches: &Bound<'_, PyAny>,
    systems: Option<&Bound<'_, PyAny>>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    log_loss: bool,
    threads: Int,
    factors: Option<&Bound<'_, PyAny>>,
) -> PyResult<Table> {
    guarded(|| backtest_inner(py, matches, systems, start, end, log_loss, threads, factors))
}

#[allow(clippy::too_many_arguments)]
fn backtest_inner(
    py: Python<'_>,
    matches: &Bound<'_, PyAny>,
    systems: Option<&Bound<'_, PyAny>>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    log_loss: bool,
    threads: Int,
    factors: Option<&Bound<'_, PyAny>>,
) -> PyResult<Table> {
    let threads = count("threads", &threads)?;
    let (systems, all) = systems_of(systems)?;
    let kinds = factors.map(|f| factor_columns(Some(f))).transpose()?;
    let window = Window {
        from: bound_of(start, "start")?,
        until: bound_of(end, "end")?,
    };
    let given = Given::from_py(matches, 1)?;
    let history = py.detach(|| {
        given
            .built()
            .and_then(|h| with_factor_kinds(h, kinds.as_deref()))
    })?;
    let systems = factor_systems(systems, all, &history)?;
    let by_time = [window.from, window.until]
        .iter()
        .any(|b| matches!(b, Some(WindowBound::Time(_))));
    if by_time {
        if let Some(m) = history.iter().find(|m| m.time().is_none()) {
            return Err(ConfigError::new_err(format!(
                "match {:?} has no time, so start and end cannot be times; use match numbers",
                m.id()
            )));
        }
    }
    check_window(&window, &history)?;
    let options = BacktestOptions { window, log_loss };
    let pool = pool(worker_threads(threads, systems.len()))?;
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = Arc::clone(&stop);
    let rows: Vec<BacktestResult> = interruptible(py, "podium-lab", Some(stop), move || {
        pool.install(|| {
            systems
                .par_iter()
                .map(|s| {
                    let r = podium_eval::backtest_until(s.boxed(), &history, &options, &stopped)
                        .map_err(|e| e.to_string());
                    BacktestResult::of(s.spec.name, r)
                })
                .collect()
        })
    })?;
    Ok(Table::new(rows))
}

/// The outcome of `simulate()`: each system's predictive ability after each checkpoint
/// round, with the two references.
#[pyclass(module = "podium", frozen)]
pub struct SimulationResult {
    /// The checkpoint rounds, ascending.
    #[pyo3(get)]
    rounds: Vec<u32>,
    /// Trials averaged.
    #[pyo3(get)]
    trials: u32,
    /// Predictive ability of the true ratings (the best any rating can do).
    #[pyo3(get)]
    ideal: f64,
    /// Predictive ability of ranking by mean observed score, per round.
    #[pyo3(get)]
    mean_score: Vec<f64>,
    /// The planted advantage of seat 1, in true-rating points (`None`: no seats).
    #[pyo3(get)]
    seat_advantage: Option<f64>,
    curves: Vec<(String, Vec<f64>)>,
    errors: Vec<(String, String)>,
    seats: Vec<(String, podium_eval::SeatLearned)>,
}

#[pymethods]
impl SimulationResult {
    /// Each system's predictive ability per round (a fraction 0..1), by system name.
    #[getter]
    fn curves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.curves {
            d.set_item(k, v.clone())?;
        }
        Ok(d)
    }

    /// The systems that cannot rate the simulated games, with the reason.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.errors {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// With seats, what each system given them learned of seat 1 by each round, by
    /// system name: `advantage` (in true-rating points, comparable with the planted
    /// `seat_advantage`), `advantage_sd` (how far one history's estimate strays),
    /// `rating` (the raw difference in the system's units) and `scale` (the system's
    /// rating points per true-rating point), each a list over the rounds.
    #[getter]
    fn seats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, s) in &self.seats {
            let e = PyDict::new(py);
            e.set_item("advantage", s.advantage.clone())?;
            e.set_item("advantage_sd", s.advantage_sd.clone())?;
            e.set_item("rating", s.rating.clone())?;
            e.set_item("scale", s.scale.clone())?;
            d.set_item(name, e)?;
        }
        Ok(d)
    }

    /// Long rows: one dict (system, round, ability) per system and round, the references
    /// `ideal` and `mean-score` included. With seats, each row also has the learned
    /// `seat_advantage`, `seat_advantage_sd` and `seat_rating` of a system given the seats
    /// (`None` in the other rows), as `podium simulate --format csv`.
    fn to_dicts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let seated = self.seat_advantage.is_some();
        let mut rows = Vec::new();
        let mut add = |system: &str, i: usize, ability: f64| -> PyResult<()> {
            let d = PyDict::new(py);
            d.set_item("system", system)?;
            d.set_item("round", self.rounds[i])?;
            d.set_item("ability", ability)?;
            if seated {
                let seat = self.seats.iter().find(|(n, _)| n == system).map(|(_, s)| s);
                d.set_item("seat_advantage", seat.map(|s| s.advantage[i]))?;
                d.set_item("seat_advantage_sd", seat.map(|s| s.advantage_sd[i]))?;
                d.set_item("seat_rating", seat.map(|s| s.rating[i]))?;
            }
            rows.push(d);
            Ok(())
        };
        for (name, values) in &self.curves {
            for (i, v) in values.iter().enumerate() {
                add(name, i, *v)?;
            }
        }
        for (i, v) in self.mean_score.iter().enumerate() {
            add(podium_eval::simulate::MEAN_SCORE, i, *v)?;
        }
        for i in 0..self.rounds.len() {
            add(podium_eval::simulate::IDEAL, i, self.ideal)?;
        }
        PyList::new(py, rows)
    }

    /// A `pandas.DataFrame` with one row per round and one column per system and
    /// reference (needs pandas).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pandas = import_pandas(py)?;
        let data = PyDict::new(py);
        for (name, values) in &self.curves {
            data.set_item(name, values.clone())?;
        }
        data.set_item(podium_eval::simulate::MEAN_SCORE, self.mean_score.clone())?;
        data.set_item(
            podium_eval::simulate::IDEAL,
            vec![self.ideal; self.rounds.len()],
        )?;
        let kwargs = PyDict::new(py);
        kwargs.set_item(
            "index",
            pandas.getattr("Index")?.call(
                (self.rounds.clone(),),
                Some(&{
                    let k = PyDict::new(py);
                    k.set_item("name", "round")?;
                    k
                }),
            )?,
        )?;
        pandas.getattr("DataFrame")?.call((data,), Some(&kwargs))
    }

    fn __repr__(&self) -> String {
        format!(
            "SimulationResult({} systems, rounds {:?}, {} trials, ideal {:.4})",
            self.curves.len(),
            self.rounds,
            self.trials,
            self.ideal
        )
    }
}

/// Simulates players of known strength: each round every player draws a game score from
/// Normal(true rating, sd) and every system rates the finishing order; after each
/// checkpoint round, how often would each system's ratings pick the winner of a fresh
/// game? Defaults: true ratings 1100, 1200, …, 2000, sd 200, rounds 1, 2, 3, 4, 5, 10,
/// 20, 100, 1000, 10,000 trials, seed 1 (the same seed gives the same numbers on any
/// machine and thread count), initial ratings jittered by ±1.
///
/// `seat_advantage=a` plants a factor: every game seats its players in a fresh random
/// order and seat 1 plays `a` true-rating points above its player. Every system then
/// runs given the seats (as the factor `seat`) and seat-blind (its curve named
/// `"NAME (seat-blind)"`) on the same games, and `seats` tells what each learned of
/// seat 1.
#[pyfunction]
#[pyo3(signature = (systems=None, /, *, true_ratings=None, sd=200.0, rounds=None, trials=Int::from(10_000), seed=Int::from(1), jitter=1.0, threads=Int::from(0), seat_advantage=None), text_signature = "(systems=None, /, *, true_ratings=None, sd=200.0, rounds=None, trials=10000, seed=1, jitter=1.0, threads=0, seat_advantage=None)")]
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    py: Python<'_>,
    systems: Option<&Bound<'_, PyAny>>,
    true_ratings: Option<Vec<f64>>,
    sd: f64,
    rounds: Option<Vec<Int>>,
    trials: Int,
    seed: Int,
    jitter: f64,
    threads: Int,
    seat_advantage: Option<f64>,
) -> PyResult<SimulationResult> {
    let threads = worker_threads(count("threads", &threads)?, usize::MAX);
    let rounds = rounds
        .map(|rounds| {
            rounds
                .iter()
                .enumerate()
                .map(|(i, n)| n.whole::<u32>(&format!("rounds[{i}]")))
                .collect::<PyResult<Vec<u32>>>()
        })
        .transpose()?;
    let trials: u32 = trials.whole("trials")?;
    let seed: u64 = seed.whole("seed")?;
    let (systems, _) = systems_of(systems)?;
    // Said here in the argument's words: the library's message shows no value for it.
    if rounds.as_ref().is_some_and(Vec::is_empty) {
        return Err(ConfigError::new_err(
            "rounds=[]: expected at least one checkpoint round",
        ));
    }
    let defaults = podium_eval::Simulation::default();
    let sim = podium_eval::Simulation {
        true_ratings: true_ratings.unwrap_or(defaults.true_ratings),
        sd,
        rounds: rounds.unwrap_or(defaults.rounds),
        trials,
        seed,
        jitter,
        threads,
        seat_advantage,
    };
    let report = guarded(|| {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        interruptible(py, "podium-lab", Some(stop), move || {
            let refs: Vec<&dyn RatingSystem> = systems.iter().map(|s| &*s.inner).collect();
            sim.run_until(&refs, &stopped)
        })
    })?;
    let report = report.map_err(|e| match e {
        podium_eval::SimulationError::Threads { .. } => threads_error(e.to_string()),
        e => ConfigError::new_err(e.to_string()),
    })?;
    let mut curves = Vec::new();
    let mut errors = Vec::new();
    let mut seats = Vec::new();
    for (name, c) in report.named_curves() {
        match &c.values {
            Ok(v) => curves.push((name.clone(), v.clone())),
            Err(why) => errors.push((name.clone(), why.clone())),
        }
        if let Some(s) = &c.seat {
            seats.push((name, s.clone()));
        }
    }
    Ok(SimulationResult {
        rounds: report.rounds,
        trials: report.trials,
        ideal: report.ideal,
        mean_score: report.mean_score,
        seat_advantage,
        curves,
        errors,
        seats,
    })
}

/// Parameter values by name, shown to Python as a dict.
#[derive(Debug, Clone, PartialEq)]
pub struct Params(pub Vec<(String, Value)>);

impl<'py> IntoPyObject<'py> for Params {
    type Target = PyDict;
    type Output = Bound<'py, PyDict>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Self::Output> {
        let d = PyDict::new(py);
        for (k, v) in self.0 {
            d.set_item(k, v)?;
        }
        Ok(d)
    }
}

into_py_by_ref!(Params, PyDict);

row! {
    /// One candidate of a tuning search and how it did on the training part.
    Candidate {
        /// The searched parameters' values, by name.
        params: Params,
        /// Pair accuracy on the training part.
        accuracy: Option<f64>,
        /// Mean log loss on the training part (when the metric is the log loss).
        log_loss: Option<f64>,
        /// Warm pairs of the training part.
        warm_pairs: u64,
        /// Why the candidate could not rate the training part, if it could not.
        error: Option<String>,
    }
}

/// The outcome of `tune()`.
#[pyclass(module = "podium", frozen, get_all)]
pub struct TuneResult {
    /// The chosen system: the best candidate on the training part.
    best: System,
    /// The chosen values of the searched parameters, by name.
    best_params: Params,
    /// Matches in the training part (the first ones).
    train_matches: usize,
    /// Matches held out.
    test_matches: usize,
    /// The chosen system's backtest on the held-out part (rated through the whole history).
    test: BacktestResult,
    /// The defaults' backtest on the held-out part, for comparison.
    default_test: BacktestResult,
    /// Whether the defaults do at least as well on the held-out part as `best` by the
    /// metric searched on (then keep the defaults); `None` when the two cannot be
    /// compared there.
    keep_defaults: Option<bool>,
    /// Every candidate, best first on the training part (failed ones last).
    candidates: Table,
}

#[pymethods]
impl TuneResult {
    fn __repr__(&self) -> String {
        let params: Vec<String> = self
            .best_params
            .0
            .iter()
            .map(|(k, v)| format!("{k}={}", v.text()))
            .collect();
        let pct = |r: &BacktestResult| {
            r.accuracy
                .map_or_else(|| "n/a".to_string(), |a| format!("{:.2}%", 100.0 * a))
        };
        let advice = if self.keep_defaults == Some(true) {
            "; keep the defaults: not better on the held-out part"
        } else {
            ""
        };
        format!(
            "TuneResult(best {}: {}; held-out accuracy {} (defaults {}){advice}; {} candidate{})",
            self.best.spec.name,
            params.join(", "),
            pct(&self.test),
            pct(&self.default_test),
            self.candidates.len(),
            if self.candidates.len() == 1 { "" } else { "s" }
        )
    }
}

/// The arguments of `tune()` as its messages name them.
const PY_NAMES: podium_eval::tune::ArgNames = podium_eval::tune::ArgNames {
    param: "params",
    train: "train",
    steps: "steps",
    samples: "samples",
    range_step: "(lo, hi, step)",
    joiner: "=",
};

/// One searched parameter from Python: `(lo, hi)`, `(lo, hi, step)`, a list of values, or
/// the text the command line takes (`"8..64"`, `"8..64:8"`, `"8,16,32"`).
fn search_of(name: &str, spec: &Bound<'_, PyAny>) -> PyResult<ParamSearch> {
    let bad = |e: podium_eval::TuneError| ConfigError::new_err(e.message(&PY_NAMES));
    if let Ok(s) = spec.cast::<PyString>() {
        return format!("{name}={}", s.to_cow()?)
            .parse::<ParamSearch>()
            .map_err(bad);
    }
    if let Ok(t) = spec.cast::<PyTuple>() {
        let nums = t
            .iter()
            .map(|v| v.extract::<f64>())
            .collect::<PyResult<Vec<_>>>()
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "parameter {name}: a range is (lo, hi) or (lo, hi, step) of numbers"
                ))
            })?;
        let text = match nums.as_slice() {
            [lo, hi] => format!("{name}={lo}..{hi}"),
            [lo, hi, step] => format!("{name}={lo}..{hi}:{step}"),
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "parameter {name}: a range is (lo, hi) or (lo, hi, step)"
                )))
            }
        };
        return text.parse::<ParamSearch>().map_err(bad);
    }
    let items = spec.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "parameter {name}: the values searched are (lo, hi), (lo, hi, step), a list of values, or text such as \"8..64\""
        ))
    })?;
    let values = items
        .map(|v| {
            let v = v?;
            let d = PyDict::new(v.py());
            d.set_item(name, &v)?;
            let s = settings_of(Some(&d))?;
            Ok(s.get(name).unwrap_or_default().to_string())
        })
        .collect::<PyResult<Vec<_>>>()?;
    if values.is_empty() {
        return Err(ConfigError::new_err(format!(
            "parameter {name}: no value to search"
        )));
    }
    Ok(ParamSearch {
        name: name.to_string(),
        values: Values::List(values),
    })
}

/// The searched parameters' values of a candidate, typed as the system has them.
fn typed(system: &str, fixed: &Settings, names: &[String], s: &Settings) -> Params {
    let Ok(sys) = podium::system(system, &fixed.then(s)) else {
        return Params(Vec::new());
    };
    let params = sys.describe().params;
    let params = names
        .iter()
        .filter_map(|n| {
            let key = n.replace('-', "_");
            params
                .iter()
                .find(|p| p.name == key)
                .map(|p| (p.name.to_string(), Value(p.value)))
        })
        .collect::<Vec<_>>();
    Params(params)
}

/// Searches a system's parameters on the first part of a history (`train`, a fraction)
/// and reports the chosen values' accuracy on the rest, never seen by the search.
///
/// `system` is a name or a `System` (whose parameters stay fixed). `params` maps each
/// searched parameter to `(lo, hi)` (`steps` evenly spaced values on the grid),
/// `(lo, hi, step)`, a list of values, or text as the command line takes it
/// (`"8..64:8"`). The grid is every combination; `samples=N` draws N random candidates
/// instead (with `seed`). `metric` is `"accuracy"` (highest pair accuracy) or
/// `"log_loss"` (lowest). Matches with factors are rated with them, as in `backtest`
/// (a system that does not rate factors raises `RateError`); `factors` chooses which of
/// their kinds (`factors=[]`: none). Returns a `TuneResult`.
#[pyfunction]
#[pyo3(signature = (matches, system, params, /, *, train=0.5, steps=Int::from(8), samples=None, seed=Int::from(1), metric="accuracy", threads=Int::from(0), factors=None), text_signature = "(matches, system, params, /, *, train=0.5, steps=8, samples=None, seed=1, metric=\"accuracy\", threads=0, factors=None)")]
#[allow(clippy::too_many_arguments)]
pub fn tune(
    py: Python<'_>,
    matches: &Bound<'_, PyAny>,
    system: &Bound<'_, PyAny>,
    params: &Bound<'_, PyDict>,
    train: f64,
    steps: Int,
    samples: Option<Int>,
    seed: Int,
    metric: &str,
    threads: Int,
    factors: Option<&Bound<'_, PyAny>>,
) -> PyResult<TuneResult> {
    guarded(|| {
        tune_inner(
            py, matches, system, params, train, steps, samples, seed, metric, threads, factors,
        )
    })
}

#[allow(clippy::too_many_arguments)]
fn tune_inner(
    py: Python<'_>,
    matches: &Bound<'_, PyAny>,
    system: &Bound<'_, PyAny>,
    params: &Bound<'_, PyDict>,
    train: f64,
    steps: Int,
    samples: Option<Int>,
    seed: Int,
    metric: &str,
    threads: Int,
    factors: Option<&Bound<'_, PyAny>>,
) -> PyResult<TuneResult> {
    let steps = count("steps", &steps)?;
    let seed: u64 = seed.whole("seed")?;
    let samples = samples.map(|n| count("samples", &n)).transpose()?;
    let threads = worker_threads(count("threads", &threads)?, usize::MAX);
    let system = System::from_py(system, None)?;
    let kinds = factors.map(|f| factor_columns(Some(f))).transpose()?;
    let metric = match metric.replace('-', "_").as_str() {
        "accuracy" => Metric::Accuracy,
        "log_loss" => Metric::LogLoss,
        other => {
            return Err(PyValueError::new_err(format!(
                "metric={other:?}: expected \"accuracy\" or \"log_loss\""
            )))
        }
    };
    let mut searched = Vec::new();
    for (k, v) in params.iter() {
        let name: String = k.extract()?;
        searched.push(search_of(&name, &v)?);
    }
    let names: Vec<String> = searched.iter().map(|p| p.name.clone()).collect();
    let tuning = podium_eval::Tuning {
        system: system.spec.name.to_string(),
        fixed: system.settings.clone(),
        params: searched,
        search: match samples {
            Some(samples) => Search::Random { samples, seed },
            None => Search::Grid { steps },
        },
        train,
        metric,
        threads,
    };
    // A grid too large is refused before the history is read.
    tuning
        .check_size()
        .map_err(|e| ConfigError::new_err(e.message(&PY_NAMES)))?;
    let given = Given::from_py(matches, 1)?;
    let history = py.detach(|| {
        given
            .built()
            .and_then(|h| with_factor_kinds(h, kinds.as_deref()))
    })?;
    factor_systems(vec![system.clone()], false, &history)?;
    let report = {
        let (tuning, history) = (tuning.clone(), Arc::clone(&history));
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        interruptible(py, "podium-lab", Some(stop), move || {
            tuning.run_until(&history, &stopped)
        })?
    };
    let report = report.map_err(|e| {
        use podium_eval::TuneError as T;
        match e {
            T::Config(c) => config_error(c),
            T::NoCandidate(_) | T::Test(_) => RateError::new_err(e.message(&PY_NAMES)),
            T::Threads(_) => threads_error(e.message(&PY_NAMES)),
            e => ConfigError::new_err(e.message(&PY_NAMES)),
        }
    })?;
    let name = system.spec.name;
    let chosen = report.chosen().settings.clone();
    let best = System::build(name, system.settings.then(&chosen))?;
    let candidates: Vec<Candidate> = report
        .candidates
        .iter()
        .map(|c| {
            let (accuracy, log_loss, warm_pairs, error) = match &c.train {
                Ok(r) => (r.accuracy(), r.log_loss(), r.warm_pairs(), None),
                Err(why) => (None, None, 0, Some(why.clone())),
            };
            Candidate {
                params: typed(name, &system.settings, &names, &c.settings),
                accuracy,
                log_loss,
                warm_pairs,
                error,
            }
        })
        .collect();
    Ok(TuneResult {
        best_params: typed(name, &system.settings, &names, &chosen),
        best,
        train_matches: report.train_matches,
        test_matches: report.test_matches,
        keep_defaults: report.defaults_as_good(metric),
        test: BacktestResult::of(name, Ok(report.test)),
        default_test: BacktestResult::of(name, report.default_test),
        candidates: Table::new(candidates),
    })
}
