//! # podium-eval
//!
//! The evaluation lab: how well does a rating system predict?
//!
//! - [`simulate`]: the experiment of Tom Kerrigan's article "Multiplayer Elo" (10 players
//!   of true ratings 1100 to 2000, game scores around them), generalised: players with known true
//!   ratings play round after round; after chosen rounds, how often would each system's
//!   ratings pick the winner of a fresh game? With the `ideal` (true ratings) and
//!   `mean-score` references. Trials run in parallel and are reproducible from a seed on
//!   any number of threads.
//! - [`backtest()`]: replay a real history and score every system's pre-match predictions
//!   on the warm pairs of each match (pairs of players who both played before and
//!   finished apart): pair accuracy, counted exactly in
//!   O(N log N) per match ([`count`]), and log loss of the system's own win probability.
//! - [`tune`]: search a system's parameters on the first part of a history and report the
//!   choice's accuracy on the rest, without leakage.
//!
//! ```
//! use podium::Match;
//! use podium_eval::backtest::{backtest, BacktestOptions};
//!
//! let history: Vec<Match> = (0..10)
//!     .map(|i| Match::ranked(format!("g{i}"), &["ann", "bo", "cy", "di"]).unwrap())
//!     .collect();
//! let result = backtest(podium::system("sme", &podium::Settings::new())?, &history, &BacktestOptions::default())?;
//! assert_eq!(result.warm_pairs(), 9 * 6);
//! assert!(result.accuracy().unwrap() > 0.9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod backtest;
pub mod count;
pub mod simulate;
pub mod tune;

pub use backtest::{
    backtest, backtest_until, BacktestError, BacktestOptions, BacktestResult, Bound, MatchSums,
    Window,
};
pub use count::{count_pairs, PairCounts};
pub use simulate::{Curve, SeatLearned, Simulation, SimulationError, SimulationReport};
pub use tune::{Metric, ParamSearch, Search, TuneError, TuneReport, Tuning};

/// The worker threads for `items` tasks that run side by side: `requested` (0 = one per
/// core), but never more than the cores ([`std::thread::available_parallelism`]) nor
/// than the items, and at least one. More threads would only take turns on the cores, so
/// a request for a billion threads starts as many as there are cores.
#[must_use]
pub fn worker_threads(requested: usize, items: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let wanted = if requested == 0 { cores } else { requested };
    wanted.min(cores).min(items).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_billion_threads_start_at_most_one_per_core() {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        assert_eq!(worker_threads(1_000_000_000, usize::MAX), cores);
        assert_eq!(worker_threads(0, usize::MAX), cores);
        assert_eq!(worker_threads(1_000_000_000, 1), 1);
        assert_eq!(worker_threads(1, 5), 1);
        assert_eq!(worker_threads(0, 0), 1);
    }
}
