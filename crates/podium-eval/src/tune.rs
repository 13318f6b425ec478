//! Parameter tuning without leakage: search a system's parameters on the first part of a
//! history, then report the chosen values' accuracy on the rest.
//!
//! The history (in rating order) is split after the first `train` fraction of its
//! matches. Every candidate is replayed on the **training part only** and scored there,
//! so nothing of the held-out part can influence the choice. The chosen candidate (and,
//! for comparison, the system's defaults) is then replayed on the **whole** history,
//! ratings carrying on through the training part, and scored only on the held-out part.
//!
//! Candidates come from a grid (every combination of each parameter's values) or from
//! random sampling within the ranges, with a seed. A parameter is searched as
//! `name=LO..HI` (evenly spaced values, `steps` of them on a grid), `name=LO..HI:STEP`, or
//! a list `name=A,B,C`.
//!
//! The best on the training part need not be better than the defaults on the held-out
//! part: a search over many candidates can fit the training part's noise.
//! [`TuneReport::defaults_as_good`] says when the defaults do at least as well there, so
//! that a front end can advise keeping them rather than present the search's winner as
//! an improvement.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use podium::limits::MAX_TUNE_CANDIDATES;
use podium::{ConfigError, Match, ParamValue, Settings};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::backtest::{backtest, backtest_until, BacktestOptions, BacktestResult, Bound, Window};

/// The values one parameter is searched over.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// An interval, `LO..HI`, with an optional step (`LO..HI:STEP`).
    Range {
        /// Lowest value.
        lo: f64,
        /// Highest value.
        hi: f64,
        /// Distance between grid values; `None`: evenly spaced by the search's `steps`.
        step: Option<f64>,
    },
    /// The listed values, as text (`true,false`, `8,16,32`).
    List(Vec<String>),
}

/// One searched parameter: `name=values`.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamSearch {
    /// The parameter's name, as in `--set`.
    pub name: String,
    /// Its values.
    pub values: Values,
}

impl FromStr for ParamSearch {
    type Err = TuneError;

    /// Parses `k=8..64`, `k=8..64:8` or `k=8,16,32`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |expected: &'static str| TuneError::BadParam {
            text: s.to_string(),
            expected,
        };
        let (name, spec) = s
            .split_once('=')
            .ok_or_else(|| bad("NAME=LO..HI, NAME=LO..HI:STEP or NAME=A,B,C"))?;
        let name = name.trim().to_string();
        if name.is_empty() {
            return Err(bad("a parameter name before `=`"));
        }
        let spec = spec.trim();
        let values = if let Some((lo, rest)) = spec.split_once("..") {
            let (hi, step) = match rest.split_once(':') {
                Some((hi, step)) => (hi, Some(step)),
                None => (rest, None),
            };
            let num = |t: &str| t.trim().parse::<f64>().ok().filter(|v| v.is_finite());
            let lo = num(lo).ok_or_else(|| bad("a number before `..`"))?;
            let hi = num(hi).ok_or_else(|| bad("a number after `..`"))?;
            if hi < lo {
                return Err(bad("LO ≤ HI in LO..HI"));
            }
            let step = match step {
                Some(t) => Some(
                    num(t)
                        .filter(|v| *v > 0.0)
                        .ok_or_else(|| bad("a step > 0 after `:`"))?,
                ),
                None => None,
            };
            Values::Range { lo, hi, step }
        } else {
            let list: Vec<String> = spec.split(',').map(|v| v.trim().to_string()).collect();
            if list.iter().all(String::is_empty) {
                return Err(bad("at least one value"));
            }
            // `k=1,,2` or `k=1,2,` is a typo, not a list of two.
            if list.iter().any(String::is_empty) {
                return Err(bad("a value between every two commas (no empty item)"));
            }
            Values::List(list)
        };
        Ok(ParamSearch { name, values })
    }
}

/// How candidates are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    /// Every combination; a range without a step gives `steps` evenly spaced values.
    Grid {
        /// Values per range.
        steps: usize,
    },
    /// `samples` candidates drawn uniformly within the ranges (lists: one of the values).
    Random {
        /// How many candidates.
        samples: usize,
        /// Seed of the draws.
        seed: u64,
    },
}

/// What the search optimises on the training part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Highest pair accuracy (O(N log N) per match).
    Accuracy,
    /// Lowest log loss (O(W²) per match).
    LogLoss,
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Metric::Accuracy => "pair accuracy",
            Metric::LogLoss => "log loss",
        })
    }
}

/// A tuning job.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuning {
    /// The system's registered name.
    pub system: String,
    /// Settings that stay fixed.
    pub fixed: Settings,
    /// The searched parameters.
    pub params: Vec<ParamSearch>,
    /// Grid or random search.
    pub search: Search,
    /// Fraction of the matches used for training, `0 < train < 1`.
    pub train: f64,
    /// What is optimised.
    pub metric: Metric,
    /// Worker threads (0 = one per core); never more than one per candidate.
    pub threads: usize,
}

/// One candidate and how it did on the training part.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The searched parameters' values.
    pub settings: Settings,
    /// Its training backtest, or why it could not rate the training matches.
    pub train: Result<BacktestResult, String>,
}

/// The outcome of a tuning job.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneReport {
    /// Matches in the training part (the first ones); the rest are held out.
    pub train_matches: usize,
    /// Matches held out.
    pub test_matches: usize,
    /// Every candidate, best first on the training part (failed ones last).
    pub candidates: Vec<Candidate>,
    /// The chosen candidate's held-out backtest (rated through the whole history).
    pub test: BacktestResult,
    /// The defaults' held-out backtest, for comparison (`Err` if they cannot rate it).
    pub default_test: Result<BacktestResult, String>,
}

impl TuneReport {
    /// The chosen candidate (the best on the training part).
    #[must_use]
    pub fn chosen(&self) -> &Candidate {
        &self.candidates[0]
    }

    /// The held-out figure of `metric` of the chosen settings and of the defaults (pair
    /// accuracy, or mean log loss), when both have one.
    #[must_use]
    pub fn held_out(&self, metric: Metric) -> Option<(f64, f64)> {
        let figure = |r: &BacktestResult| match metric {
            Metric::Accuracy => r.accuracy(),
            Metric::LogLoss => r.log_loss(),
        };
        let defaults = self.default_test.as_ref().ok()?;
        Some((figure(&self.test)?, figure(defaults)?))
    }

    /// Whether the defaults do at least as well on the held-out part as the chosen
    /// settings by `metric` (higher accuracy, or lower log loss, is better): the search
    /// then found nothing worth changing the defaults for. `None` when the two cannot be
    /// compared there (no warm pair held out, or defaults that cannot rate the history).
    #[must_use]
    pub fn defaults_as_good(&self, metric: Metric) -> Option<bool> {
        let (chosen, defaults) = self.held_out(metric)?;
        Some(match metric {
            Metric::Accuracy => defaults >= chosen,
            Metric::LogLoss => defaults <= chosen,
        })
    }
}

/// Why a tuning job cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TuneError {
    /// A `--param` that does not parse.
    #[error("--param {text:?}: expected {expected}")]
    BadParam {
        /// The text given.
        text: String,
        /// What is accepted.
        expected: &'static str,
    },
    /// A parameter the system does not have, or a range over a switch.
    #[error("system {system} has no numeric parameter {param:?} to search over a range (its parameters: {known})")]
    NotARange {
        /// The system.
        system: String,
        /// The parameter.
        param: String,
        /// The system's parameters.
        known: String,
    },
    /// A candidate's settings are not valid for the system.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Nothing to search.
    #[error("nothing to search: give at least one --param")]
    NoParams,
    /// `train` outside `(0, 1)`.
    #[error("--train {0} must be between 0 and 1 (exclusive)")]
    BadTrain(f64),
    /// Too few matches to split.
    #[error("{0} matches cannot be split into a training and a held-out part; need at least 2")]
    TooFewMatches(usize),
    /// No candidate could rate the training part.
    #[error("no candidate could rate the training matches; the first failed with: {0}")]
    NoCandidate(String),
    /// The chosen candidate could not rate the whole history.
    #[error("the chosen settings cannot rate the held-out matches: {0}")]
    Test(String),
    /// The thread pool could not start.
    #[error("cannot start worker threads: {0}")]
    Threads(String),
    /// A grid of more candidates than [`MAX_TUNE_CANDIDATES`].
    #[error("the grid has {candidates} candidates ({axes}); at most {limit} are searched: give fewer values per range (--steps, steps=), a larger step (LO..HI:STEP), fewer values or fewer parameters")]
    GridTooLarge {
        /// The candidates the grid would have (saturated at `u128::MAX`).
        candidates: u128,
        /// Each parameter's number of values, `name: N values`.
        axes: String,
        /// The limit.
        limit: usize,
    },
    /// The search was stopped by its caller (see [`Tuning::run_until`]).
    #[error("the search was stopped")]
    Stopped,
    /// No random sample asked for.
    #[error("--random 0 (samples=0): expected at least 1 random sample")]
    NoSamples,
    /// A grid of no value per range.
    #[error("--steps 0 (steps=0): expected at least 1 value per range")]
    NoSteps,
    /// A training part on which no candidate orders any warm pair (a pair of players both
    /// rated before), so nothing tells the candidates apart.
    #[error("the training part (the first {train_matches} of {matches} matches, --train {train}) is too small: no candidate has a warm pair to be scored on there; give a larger --train (train=)")]
    TrainTooSmall {
        /// Matches in the training part.
        train_matches: usize,
        /// Matches in the history.
        matches: usize,
        /// The fraction asked for.
        train: f64,
    },
    /// More random samples than [`MAX_TUNE_CANDIDATES`].
    #[error("{samples} random samples (--random, samples=); at most {limit} are searched")]
    TooManySamples {
        /// The samples asked for.
        samples: usize,
        /// The limit.
        limit: usize,
    },
}

impl Tuning {
    /// The candidates' settings, in search order.
    ///
    /// # Errors
    /// [`TuneError::NotARange`] for a range over a parameter that is not numeric or does
    /// not exist, [`TuneError::NoParams`], [`TuneError::GridTooLarge`] and
    /// [`TuneError::TooManySamples`] above [`MAX_TUNE_CANDIDATES`] (checked before any
    /// candidate is made).
    pub fn candidates(&self) -> Result<Vec<Settings>, TuneError> {
        if self.params.is_empty() {
            return Err(TuneError::NoParams);
        }
        self.check_size()?;
        let spec = podium::registry::spec(&self.system);
        let defaults = spec.map(|s| (s.defaults)()).unwrap_or_default();
        let kind = |name: &str| -> Option<ParamValue> {
            let key = name.replace('-', "_");
            defaults.iter().find(|p| p.name == key).map(|p| p.value)
        };
        let not_a_range = |p: &ParamSearch| TuneError::NotARange {
            system: self.system.clone(),
            param: p.name.clone(),
            known: defaults
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", "),
        };
        // Per parameter: is it whole-numbered (ranges only).
        let mut integer = Vec::new();
        for p in &self.params {
            integer.push(match (&p.values, kind(&p.name)) {
                (Values::List(_), _) => false,
                (Values::Range { .. }, Some(ParamValue::Float(_))) => false,
                (Values::Range { .. }, Some(ParamValue::Int(_))) => true,
                (Values::Range { .. }, _) => return Err(not_a_range(p)),
            });
        }
        let fmt = |v: f64, int: bool| -> String {
            if int {
                format!("{}", v.round() as i64)
            } else {
                // Four decimals are plenty for a rating parameter and read well.
                let r = (v * 1e4).round() / 1e4;
                format!("{r}")
            }
        };
        match self.search {
            Search::Grid { steps } => {
                let mut axes: Vec<Vec<String>> = Vec::new();
                for (p, &int) in self.params.iter().zip(&integer) {
                    let mut vals: Vec<String> = match &p.values {
                        Values::List(l) => l.clone(),
                        Values::Range { lo, hi, step } => {
                            let raw: Vec<f64> = match step {
                                Some(st) => {
                                    let n = ((hi - lo) / st + 1e-9).floor() as usize;
                                    (0..=n).map(|i| lo + st * i as f64).collect()
                                }
                                None if steps < 2 || hi == lo => vec![*lo],
                                None => (0..steps)
                                    .map(|i| lo + (hi - lo) * i as f64 / (steps - 1) as f64)
                                    .collect(),
                            };
                            raw.into_iter().map(|v| fmt(v, int)).collect()
                        }
                    };
                    vals.dedup();
                    axes.push(vals);
                }
                let mut out: Vec<Settings> = vec![Settings::new()];
                for (p, vals) in self.params.iter().zip(&axes) {
                    out = out
                        .into_iter()
                        .flat_map(|prefix| {
                            vals.iter()
                                .map(move |v| prefix.clone().with(p.name.clone(), v.clone()))
                        })
                        .collect();
                }
                Ok(out)
            }
            Search::Random { samples, seed } => {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                Ok((0..samples)
                    .map(|_| {
                        self.params
                            .iter()
                            .zip(&integer)
                            .map(|(p, &int)| {
                                let v = match &p.values {
                                    Values::List(l) => l[rng.gen_range(0..l.len())].clone(),
                                    Values::Range { lo, hi, .. } if int => {
                                        fmt(rng.gen_range(lo.round()..=hi.round()), true)
                                    }
                                    Values::Range { lo, hi, .. } => {
                                        fmt(rng.gen_range(*lo..=*hi), false)
                                    }
                                };
                                (p.name.clone(), v)
                            })
                            .collect()
                    })
                    .collect())
            }
        }
    }

    /// Checks that the search has at most [`MAX_TUNE_CANDIDATES`] candidates, from the
    /// ranges and counts alone (nothing is allocated): front ends call it before they
    /// read the history, [`Tuning::candidates`] and [`Tuning::run`] call it too.
    ///
    /// # Errors
    /// [`TuneError::GridTooLarge`], [`TuneError::TooManySamples`], and
    /// [`TuneError::NoSamples`], [`TuneError::NoSteps`] for a search of no candidate.
    pub fn check_size(&self) -> Result<(), TuneError> {
        let steps = match self.search {
            Search::Random { samples: 0, .. } => return Err(TuneError::NoSamples),
            Search::Grid { steps: 0 } => return Err(TuneError::NoSteps),
            Search::Random { samples, .. } if samples > MAX_TUNE_CANDIDATES => {
                return Err(TuneError::TooManySamples {
                    samples,
                    limit: MAX_TUNE_CANDIDATES,
                })
            }
            Search::Random { .. } => return Ok(()),
            Search::Grid { steps } => steps,
        };
        let mut candidates: u128 = 1;
        let mut axes = Vec::new();
        for p in &self.params {
            let n = axis_len(&p.values, steps);
            candidates = candidates.saturating_mul(n);
            axes.push(format!("{}: {n} values", p.name));
        }
        if candidates > MAX_TUNE_CANDIDATES as u128 {
            return Err(TuneError::GridTooLarge {
                candidates,
                axes: axes.join(", "),
                limit: MAX_TUNE_CANDIDATES,
            });
        }
        Ok(())
    }

    fn build(&self, settings: &Settings) -> Result<Box<dyn podium::RatingSystem>, ConfigError> {
        podium::system(&self.system, &self.fixed.then(settings))
    }

    /// Searches on the training part of `matches` and scores the choice on the rest.
    ///
    /// # Errors
    /// [`TuneError`]: bad settings (checked for every candidate before any replay), a
    /// history too short to split, or no candidate able to rate it.
    pub fn run(&self, matches: &[Match]) -> Result<TuneReport, TuneError> {
        self.run_until(matches, &AtomicBool::new(false))
    }

    /// As [`Tuning::run`], but no candidate starts its replay once `stop` is set (those
    /// replaying finish first): a front end sets it when its user interrupts.
    ///
    /// # Errors
    /// As [`Tuning::run`], and [`TuneError::Stopped`] once `stop` is set.
    pub fn run_until(&self, matches: &[Match], stop: &AtomicBool) -> Result<TuneReport, TuneError> {
        if !(self.train > 0.0 && self.train < 1.0) {
            return Err(TuneError::BadTrain(self.train));
        }
        if matches.len() < 2 {
            return Err(TuneError::TooFewMatches(matches.len()));
        }
        let split =
            ((self.train * matches.len() as f64).round() as usize).clamp(1, matches.len() - 1);
        let settings = self.candidates()?;
        for s in &settings {
            self.build(s)?;
        }
        let log_loss = self.metric == Metric::LogLoss;
        let train_opts = BacktestOptions {
            window: Window::all(),
            log_loss,
        };
        let train = &matches[..split];
        let work = || -> Vec<Candidate> {
            settings
                .par_iter()
                .map(|s| Candidate {
                    settings: s.clone(),
                    train: if stop.load(Ordering::Relaxed) {
                        Err(TuneError::Stopped.to_string())
                    } else {
                        backtest_until(self.build(s).expect("checked"), train, &train_opts, stop)
                            .map_err(|e| e.to_string())
                    },
                })
                .collect()
        };
        let mut candidates = if self.threads == 0 {
            work()
        } else {
            rayon::ThreadPoolBuilder::new()
                .num_threads(self.threads.min(settings.len()).max(1))
                .build()
                .map_err(|e| TuneError::Threads(e.to_string()))?
                .install(work)
        };
        if stop.load(Ordering::Relaxed) {
            return Err(TuneError::Stopped);
        }
        let objective = |c: &Candidate| -> f64 {
            let v = c.train.as_ref().ok().and_then(|r| match self.metric {
                Metric::Accuracy => r.accuracy(),
                Metric::LogLoss => r.log_loss().map(|l| -l),
            });
            v.unwrap_or(f64::NEG_INFINITY)
        };
        // Stable: among equal scores the earlier candidate wins.
        candidates.sort_by(|a, b| objective(b).total_cmp(&objective(a)));
        match &candidates[0].train {
            Err(why) => return Err(TuneError::NoCandidate(why.clone())),
            // The best has no warm pair only when none has: the choice would be arbitrary.
            Ok(r) if r.warm_pairs() == 0 => {
                return Err(TuneError::TrainTooSmall {
                    train_matches: split,
                    matches: matches.len(),
                    train: self.train,
                })
            }
            Ok(_) => {}
        }
        let test_opts = BacktestOptions {
            window: Window {
                from: Some(Bound::Match(split as u64 + 1)),
                until: None,
            },
            log_loss: true,
        };
        let chosen = self.build(&candidates[0].settings)?;
        let test =
            backtest(chosen, matches, &test_opts).map_err(|e| TuneError::Test(e.to_string()))?;
        let default_test =
            backtest(self.build(&Settings::new())?, matches, &test_opts).map_err(|e| e.to_string());
        Ok(TuneReport {
            train_matches: split,
            test_matches: matches.len() - split,
            candidates,
            test,
            default_test,
        })
    }
}

/// How many values a parameter takes on a grid of `steps` values per range (before
/// whole-numbered parameters' repeats are dropped).
fn axis_len(values: &Values, steps: usize) -> u128 {
    match values {
        Values::List(l) => l.len() as u128,
        Values::Range { lo, hi, step: None } => {
            if steps < 2 || hi == lo {
                1
            } else {
                steps as u128
            }
        }
        Values::Range {
            lo,
            hi,
            step: Some(st),
        } => {
            // As the grid counts them; `as` saturates a value beyond u128 (or infinite).
            (((hi - lo) / st + 1e-9).floor() as u128).saturating_add(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuning(params: &[&str], search: Search) -> Tuning {
        Tuning {
            system: "sme".into(),
            fixed: Settings::new(),
            params: params.iter().map(|p| p.parse().unwrap()).collect(),
            search,
            train: 0.5,
            metric: Metric::Accuracy,
            threads: 1,
        }
    }

    #[test]
    fn parses_ranges_steps_and_lists() {
        assert_eq!(
            "k=8..64".parse::<ParamSearch>().unwrap().values,
            Values::Range {
                lo: 8.0,
                hi: 64.0,
                step: None
            }
        );
        assert_eq!(
            "k = 8..64:4".parse::<ParamSearch>().unwrap().values,
            Values::Range {
                lo: 8.0,
                hi: 64.0,
                step: Some(4.0)
            }
        );
        assert_eq!(
            "winner_takes_all=true,false"
                .parse::<ParamSearch>()
                .unwrap()
                .values,
            Values::List(vec!["true".into(), "false".into()])
        );
        for bad in [
            "k", "k=64..8", "k=a..b", "k=1..2:0", "=1,2", "k=", "k=1,,2", "k=1,2,", "k=,",
        ] {
            assert!(bad.parse::<ParamSearch>().is_err(), "{bad}");
        }
    }

    #[test]
    fn grid_is_every_combination() {
        let t = tuning(&["k=8..64", "scale=300,400"], Search::Grid { steps: 8 });
        let c = t.candidates().unwrap();
        assert_eq!(c.len(), 16);
        assert_eq!(c[0], Settings::from([("k", "8"), ("scale", "300")]));
        assert_eq!(c[15], Settings::from([("k", "64"), ("scale", "400")]));
        assert_eq!(c[2].get("k"), Some("16"));
        let t = tuning(&["k=10..20:5"], Search::Grid { steps: 8 });
        let ks: Vec<String> = t
            .candidates()
            .unwrap()
            .into_iter()
            .map(|c| c.iter().next().unwrap().1.to_string())
            .collect();
        assert_eq!(ks, ["10", "15", "20"]);
    }

    #[test]
    fn whole_number_parameters_stay_whole() {
        let mut t = tuning(&["provisional_games=0..3"], Search::Grid { steps: 8 });
        t.system = "mes".into();
        let v: Vec<String> = t
            .candidates()
            .unwrap()
            .into_iter()
            .map(|c| c.iter().next().unwrap().1.to_string())
            .collect();
        assert_eq!(v, ["0", "1", "2", "3"]);
    }

    #[test]
    fn random_search_is_seeded_and_in_range() {
        let t = tuning(
            &["k=8..64"],
            Search::Random {
                samples: 20,
                seed: 3,
            },
        );
        let a = t.candidates().unwrap();
        assert_eq!(a, t.candidates().unwrap());
        assert_eq!(a.len(), 20);
        for c in &a {
            let k: f64 = c.get("k").unwrap().parse().unwrap();
            assert!((8.0..=64.0).contains(&k));
        }
    }

    #[test]
    fn ranges_over_unknown_parameters_are_errors() {
        let t = tuning(&["kk=1..2"], Search::Grid { steps: 2 });
        assert!(matches!(t.candidates(), Err(TuneError::NotARange { .. })));
    }

    /// A history where the first half is played by one group and the second by another:
    /// whatever the held-out part holds cannot change the choice.
    #[test]
    fn held_out_matches_do_not_influence_the_choice() {
        let first: Vec<Match> = (0..20)
            .map(|i| Match::ranked(format!("a{i}"), &["x", "y", "z"]).unwrap())
            .collect();
        let mut reversed = first.clone();
        let mut same = first.clone();
        for i in 0..20 {
            reversed.push(Match::ranked(format!("b{i}"), &["z", "y", "x"]).unwrap());
            same.push(Match::ranked(format!("b{i}"), &["x", "y", "z"]).unwrap());
        }
        let t = tuning(&["k=4..64"], Search::Grid { steps: 5 });
        let a = t.run(&reversed).unwrap();
        let b = t.run(&same).unwrap();
        assert_eq!(a.train_matches, 20);
        assert_eq!(a.chosen().settings, b.chosen().settings);
        assert_eq!(
            a.candidates
                .iter()
                .map(|c| c.train.clone().unwrap().pairs)
                .collect::<Vec<_>>(),
            b.candidates
                .iter()
                .map(|c| c.train.clone().unwrap().pairs)
                .collect::<Vec<_>>()
        );
        // The held-out part is scored with ratings carried through the training part.
        assert_eq!(b.test.pairs.concordant, 60);
        assert_eq!(a.test.matches_scored, 20);
    }

    fn scored(concordant: u64, discordant: u64, loss: f64) -> BacktestResult {
        BacktestResult {
            system: "sme".into(),
            pairs: crate::PairCounts {
                concordant,
                tied: 0,
                discordant,
            },
            per_match: crate::MatchSums::default(),
            log_loss_sum: Some(loss * (concordant + discordant) as f64),
            matches_rated: 2,
            matches_scored: 1,
            seconds: 0.0,
        }
    }

    #[test]
    fn the_defaults_as_good_on_the_held_out_part_are_kept() {
        let report = |test: BacktestResult, defaults: Result<BacktestResult, String>| TuneReport {
            train_matches: 1,
            test_matches: 1,
            candidates: vec![Candidate {
                settings: Settings::from([("k", "8")]),
                train: Ok(scored(9, 1, 0.5)),
            }],
            test,
            default_test: defaults,
        };
        let worse = report(scored(57, 43, 0.69), Ok(scored(60, 40, 0.68)));
        assert_eq!(worse.defaults_as_good(Metric::Accuracy), Some(true));
        assert_eq!(worse.defaults_as_good(Metric::LogLoss), Some(true));
        let (c, d) = worse.held_out(Metric::Accuracy).unwrap();
        assert!((c - 0.57).abs() < 1e-12 && (d - 0.60).abs() < 1e-12);
        let same = report(scored(60, 40, 0.68), Ok(scored(60, 40, 0.68)));
        assert_eq!(same.defaults_as_good(Metric::Accuracy), Some(true));
        assert_eq!(same.defaults_as_good(Metric::LogLoss), Some(true));
        // Better in accuracy, worse in log loss: the metric searched on decides.
        let mixed = report(scored(61, 39, 0.70), Ok(scored(60, 40, 0.68)));
        assert_eq!(mixed.defaults_as_good(Metric::Accuracy), Some(false));
        assert_eq!(mixed.defaults_as_good(Metric::LogLoss), Some(true));
        let failed = report(scored(61, 39, 0.70), Err("cannot rate".into()));
        assert_eq!(failed.defaults_as_good(Metric::Accuracy), None);
        let empty = report(scored(0, 0, 0.0), Ok(scored(0, 0, 0.0)));
        assert_eq!(empty.defaults_as_good(Metric::Accuracy), None);
    }

    #[test]
    fn bad_values_are_reported_before_any_replay() {
        let t = tuning(&["k=-5..5"], Search::Grid { steps: 3 });
        let games = vec![Match::ranked("g", &["a", "b"]).unwrap(); 4];
        assert!(matches!(t.run(&games), Err(TuneError::Config(_))));
    }

    #[test]
    fn a_grid_of_a_billion_steps_is_refused_before_any_candidate_is_made() {
        let t = tuning(
            &["k=8..64"],
            Search::Grid {
                steps: 1_000_000_000,
            },
        );
        let e = t.candidates().unwrap_err();
        assert_eq!(
            e,
            TuneError::GridTooLarge {
                candidates: 1_000_000_000,
                axes: "k: 1000000000 values".into(),
                limit: MAX_TUNE_CANDIDATES,
            }
        );
        assert!(e.to_string().starts_with(
            "the grid has 1000000000 candidates (k: 1000000000 values); at most 10000 are searched: give fewer values per range (--steps, steps=)"
        ));
        let games = vec![Match::ranked("g", &["a", "b"]).unwrap(); 4];
        assert!(matches!(t.run(&games), Err(TuneError::GridTooLarge { .. })));
    }

    #[test]
    fn two_parameters_at_100000_steps_are_refused_by_their_product() {
        let t = tuning(
            &["k=8..64", "scale=100..400"],
            Search::Grid { steps: 100_000 },
        );
        assert!(matches!(
            t.candidates(),
            Err(TuneError::GridTooLarge {
                candidates: 10_000_000_000,
                ..
            })
        ));
        // 100 × 100 is the limit itself, and is searched.
        let t = tuning(&["k=8..64", "scale=100..400"], Search::Grid { steps: 100 });
        assert_eq!(t.candidates().unwrap().len(), MAX_TUNE_CANDIDATES);
    }

    #[test]
    fn a_step_of_1e_7_is_refused_before_any_candidate_is_made() {
        let t = tuning(&["k=8..64:0.0000001"], Search::Grid { steps: 8 });
        assert!(matches!(
            t.candidates(),
            Err(TuneError::GridTooLarge {
                candidates: 560_000_001,
                ..
            })
        ));
        let t = tuning(&["k=0..1e300:1e-300"], Search::Grid { steps: 8 });
        assert!(matches!(
            t.candidates(),
            Err(TuneError::GridTooLarge {
                candidates: u128::MAX,
                ..
            })
        ));
    }

    #[test]
    fn a_trillion_random_samples_are_refused_before_any_is_drawn() {
        let t = tuning(
            &["k=8..64"],
            Search::Random {
                samples: 1_000_000_000_000,
                seed: 1,
            },
        );
        let e = t.candidates().unwrap_err();
        assert_eq!(
            e.to_string(),
            "1000000000000 random samples (--random, samples=); at most 10000 are searched"
        );
    }

    #[test]
    fn regression_a_search_of_no_candidate_is_refused_not_a_panic() {
        let games = vec![Match::ranked("g", &["a", "b"]).unwrap(); 4];
        let t = tuning(
            &["k=8..64"],
            Search::Random {
                samples: 0,
                seed: 1,
            },
        );
        assert_eq!(t.check_size(), Err(TuneError::NoSamples));
        assert_eq!(t.run(&games), Err(TuneError::NoSamples));
        assert_eq!(
            TuneError::NoSamples.to_string(),
            "--random 0 (samples=0): expected at least 1 random sample"
        );
        let t = tuning(&["k=8..64"], Search::Grid { steps: 0 });
        assert_eq!(t.run(&games), Err(TuneError::NoSteps));
    }

    #[test]
    fn regression_a_training_part_without_a_warm_pair_is_too_small() {
        // The first match of a history has no warm pair: each player is new.
        let mut games = vec![Match::ranked("g0", &["a", "b"]).unwrap()];
        games.extend((1..100).map(|i| Match::ranked(format!("g{i}"), &["a", "b"]).unwrap()));
        let mut t = tuning(&["k=8..64"], Search::Grid { steps: 3 });
        t.train = 0.01;
        let e = t.run(&games).unwrap_err();
        assert_eq!(
            e,
            TuneError::TrainTooSmall {
                train_matches: 1,
                matches: 100,
                train: 0.01
            }
        );
        assert!(e.to_string().contains("--train 0.01) is too small"), "{e}");
        t.train = 0.02;
        assert!(t.run(&games).is_ok());
    }

    #[test]
    fn a_search_stopped_by_its_caller_replays_no_candidate() {
        let t = tuning(&["k=4..64"], Search::Grid { steps: 5 });
        let games = vec![Match::ranked("g", &["a", "b"]).unwrap(); 4];
        assert_eq!(
            t.run_until(&games, &AtomicBool::new(true)),
            Err(TuneError::Stopped)
        );
        assert!(t.run_until(&games, &AtomicBool::new(false)).is_ok());
    }
}
