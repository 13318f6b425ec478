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
    /// `samples` distinct candidates drawn uniformly within the ranges (lists: one of the
    /// values); fewer when the lists and whole-numbered ranges have fewer combinations.
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

/// How a front end names the arguments a tuning job's messages speak of: the command
/// line's `--steps 0`, Python's `steps=0`. [`TuneError::message`] words an error with
/// them; `Display` uses [`ArgNames::FIELDS`], the fields of [`Tuning`] and [`Search`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgNames {
    /// What gives a searched parameter (`--param`).
    pub param: &'static str,
    /// The training fraction (`--train`).
    pub train: &'static str,
    /// The values per range of a grid (`--steps`).
    pub steps: &'static str,
    /// The number of random candidates (`--random`).
    pub samples: &'static str,
    /// How a range with a step is written (`LO..HI:STEP`).
    pub range_step: &'static str,
    /// Between a name and its value: `" "` (`--train 0.9`) or `"="` (`train=0.9`).
    pub joiner: &'static str,
}

impl ArgNames {
    /// The library's own names: the fields of [`Tuning`] and [`Search`].
    pub const FIELDS: ArgNames = ArgNames {
        param: "param",
        train: "train",
        steps: "steps",
        samples: "samples",
        range_step: "LO..HI:STEP",
        joiner: "=",
    };

    fn with(&self, name: &str, value: impl fmt::Display) -> String {
        format!("{name}{}{value}", self.joiner)
    }
}

/// A number of grid candidates (or of one parameter's values): exact, or, beyond what a
/// `u128` holds, its order of magnitude.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GridSize {
    /// The exact number.
    Exact(u128),
    /// More than a `u128` holds: about `10^log10`.
    About {
        /// The number's decimal logarithm.
        log10: f64,
    },
}

impl GridSize {
    fn log10(self) -> f64 {
        match self {
            GridSize::Exact(n) => (n as f64).log10(),
            GridSize::About { log10 } => log10,
        }
    }

    /// The product of two sizes (the grid of two axes).
    #[must_use]
    pub fn times(self, other: GridSize) -> GridSize {
        match (self, other) {
            (GridSize::Exact(a), GridSize::Exact(b)) => match a.checked_mul(b) {
                Some(n) => GridSize::Exact(n),
                None => GridSize::About {
                    log10: self.log10() + other.log10(),
                },
            },
            _ => GridSize::About {
                log10: self.log10() + other.log10(),
            },
        }
    }

    /// Whether there are more than `limit`.
    #[must_use]
    pub fn exceeds(self, limit: usize) -> bool {
        match self {
            GridSize::Exact(n) => n > limit as u128,
            GridSize::About { .. } => true,
        }
    }
}

impl fmt::Display for GridSize {
    /// `560000001`, or `about 3e600` beyond a `u128`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GridSize::Exact(n) => write!(f, "{n}"),
            GridSize::About { log10 } if !log10.is_finite() => f.write_str("uncountably many"),
            GridSize::About { log10 } => {
                let mut exponent = log10.floor();
                let mut mantissa = 10f64.powf(log10 - exponent).round();
                if mantissa >= 10.0 {
                    mantissa = 1.0;
                    exponent += 1.0;
                }
                write!(f, "about {mantissa}e{exponent}")
            }
        }
    }
}

/// `n thing`, in the singular for one.
fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("{n} {thing}")
    } else if thing.ends_with("ch") {
        format!("{n} {thing}es")
    } else {
        format!("{n} {thing}s")
    }
}

/// Why a tuning job cannot run. `Display` names the arguments as the fields of
/// [`Tuning`] and [`Search`]; a front end words it with its own names through
/// [`TuneError::message`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TuneError {
    /// A searched parameter that does not parse.
    #[error("{}", self.message(&ArgNames::FIELDS))]
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
    #[error("{}", self.message(&ArgNames::FIELDS))]
    NoParams,
    /// `train` outside `(0, 1)`.
    #[error("{}", self.message(&ArgNames::FIELDS))]
    BadTrain(f64),
    /// Too few matches to split.
    #[error("{}", self.message(&ArgNames::FIELDS))]
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
    #[error("{}", self.message(&ArgNames::FIELDS))]
    GridTooLarge {
        /// The candidates the grid would have.
        candidates: GridSize,
        /// Each parameter's number of values, `name: N values`.
        axes: String,
        /// The limit.
        limit: usize,
    },
    /// The search was stopped by its caller (see [`Tuning::run_until`]).
    #[error("the search was stopped")]
    Stopped,
    /// No random sample asked for.
    #[error("{}", self.message(&ArgNames::FIELDS))]
    NoSamples,
    /// A grid of no value per range.
    #[error("{}", self.message(&ArgNames::FIELDS))]
    NoSteps,
    /// A training part on which no candidate orders any warm pair (a pair of players both
    /// rated before), so nothing tells the candidates apart.
    #[error("{}", self.message(&ArgNames::FIELDS))]
    TrainTooSmall {
        /// Matches in the training part.
        train_matches: usize,
        /// Matches in the history.
        matches: usize,
        /// The fraction asked for.
        train: f64,
    },
    /// More random samples than [`MAX_TUNE_CANDIDATES`].
    #[error("{}", self.message(&ArgNames::FIELDS))]
    TooManySamples {
        /// The samples asked for.
        samples: usize,
        /// The limit.
        limit: usize,
    },
    /// A history whose first `matches − 1` matches (the largest training part, one match
    /// held out) hold no warm pair: no training fraction can tell the candidates apart.
    #[error("{}", self.message(&ArgNames::FIELDS))]
    HistoryTooShort {
        /// Matches in the history.
        matches: usize,
    },
}

impl TuneError {
    /// The error's message, naming the arguments as `names` does: a front end passes its
    /// own (`--steps` on the command line, `steps=` in Python).
    #[must_use]
    pub fn message(&self, names: &ArgNames) -> String {
        match self {
            TuneError::BadParam { text, expected } => {
                format!("{} {text:?}: expected {expected}", names.param)
            }
            TuneError::NoParams => format!(
                "nothing to search: give at least one parameter to search ({})",
                names.param
            ),
            TuneError::BadTrain(train) => format!(
                "{}: expected a fraction between 0 and 1 (exclusive)",
                names.with(names.train, train)
            ),
            TuneError::TooFewMatches(n) => format!(
                "{} cannot be split into a training and a held-out part; need at least 2",
                count(*n, "match")
            ),
            TuneError::GridTooLarge {
                candidates,
                axes,
                limit,
            } => format!(
                "the grid has {candidates} candidates ({axes}); at most {limit} are searched: \
                 give fewer values per range ({}), a larger step ({}), fewer values or fewer \
                 parameters",
                names.steps, names.range_step
            ),
            TuneError::NoSamples => format!(
                "{}: expected at least 1 random sample",
                names.with(names.samples, 0)
            ),
            TuneError::NoSteps => format!(
                "{}: expected at least 1 value per range",
                names.with(names.steps, 0)
            ),
            TuneError::TrainTooSmall {
                train_matches,
                matches,
                train,
            } => format!(
                "the training part (the first {train_matches} of {}, {}) is too small: no \
                 candidate has a warm pair to be scored on there; give a larger {}",
                count(*matches, "match"),
                names.with(names.train, train),
                names.train
            ),
            TuneError::TooManySamples { samples, limit } => format!(
                "{}: at most {limit} random samples are searched",
                names.with(names.samples, samples)
            ),
            TuneError::HistoryTooShort { matches } => format!(
                "the history is too short to tune on: the largest training part, its first {} \
                 (one held out), holds no warm pair (two players both rated before) to tell \
                 the candidates apart",
                count(matches.saturating_sub(1), "match")
            ),
            other => other.to_string(),
        }
    }
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
        // Every digit of a value: a parameter may live anywhere from 1e-12 to 1e9, and
        // any fixed number of decimals would turn the small ones to 0.
        let fmt = |v: f64, int: bool| -> String {
            if int {
                format!("{}", v.round() as i64)
            } else {
                value_text(v)
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
                                    (0..=n)
                                        .map(|i| grid_point(lo + st * i as f64, *lo, *hi, *st))
                                        .collect()
                                }
                                None if steps < 2 || hi == lo => vec![*lo],
                                None => {
                                    let n = (steps - 1) as f64;
                                    let spacing = (hi - lo) / n;
                                    (0..steps)
                                        .map(|i| match i {
                                            0 => *lo,
                                            i if i == steps - 1 => *hi,
                                            i => grid_point(
                                                between(*lo, *hi, i as f64, n),
                                                *lo,
                                                *hi,
                                                spacing,
                                            ),
                                        })
                                        .collect()
                                }
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
                let mut draw_one = || -> Vec<(String, String)> {
                    self.params
                        .iter()
                        .zip(&integer)
                        .map(|(p, &int)| {
                            let v = match &p.values {
                                Values::List(l) => l[rng.gen_range(0..l.len())].clone(),
                                Values::Range { lo, hi, .. } if int => {
                                    fmt(draw(&mut rng, lo.round(), hi.round()), true)
                                }
                                Values::Range { lo, hi, .. } => {
                                    fmt(draw(&mut rng, *lo, *hi), false)
                                }
                            };
                            (p.name.clone(), v)
                        })
                        .collect()
                };
                // Distinct candidates: a draw that repeats one is drawn again, up to 100
                // times; lists (or whole-numbered ranges) with fewer combinations than
                // `samples` give each combination once.
                let mut seen = std::collections::HashSet::new();
                let mut out = Vec::with_capacity(samples);
                'sample: for _ in 0..samples {
                    for _ in 0..100 {
                        let c = draw_one();
                        if seen.insert(c.clone()) {
                            out.push(c.into_iter().collect());
                            continue 'sample;
                        }
                    }
                    break;
                }
                Ok(out)
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
        let mut candidates = GridSize::Exact(1);
        let mut axes = Vec::new();
        for p in &self.params {
            let n = axis_len(&p.values, steps);
            candidates = candidates.times(n);
            axes.push(match n {
                GridSize::Exact(1) => format!("{}: 1 value", p.name),
                n => format!("{}: {n} values", p.name),
            });
        }
        if candidates.exceeds(MAX_TUNE_CANDIDATES) {
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
            // A training part of all matches but one cannot grow: the history is short.
            Ok(r) if r.warm_pairs() == 0 && split == matches.len() - 1 => {
                return Err(TuneError::HistoryTooShort {
                    matches: matches.len(),
                })
            }
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

/// A searched value as its setting's text: every digit, the shortest text that reads back
/// as `v`, in exponent form beyond everyday sizes (`1e-300`, not 300 zeros).
fn value_text(v: f64) -> String {
    if v == 0.0 || (1e-6..1e16).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// The point `i / n` of the way from `lo` to `hi`, also where `hi − lo` is beyond the
/// largest `f64` (`-1e308..1e308`).
fn between(lo: f64, hi: f64, i: f64, n: f64) -> f64 {
    let width = hi - lo;
    if width.is_finite() {
        lo + width * i / n
    } else {
        lo / n * (n - i) + hi / n * i
    }
}

/// A value drawn uniformly from `lo` to `hi`, also where `hi − lo` is beyond the largest
/// `f64`, which the uniform draw of a range cannot take.
fn draw(rng: &mut ChaCha8Rng, lo: f64, hi: f64) -> f64 {
    if (hi - lo).is_finite() {
        rng.gen_range(lo..=hi)
    } else {
        let t: f64 = rng.gen_range(0.0..=1.0);
        (lo * (1.0 - t) + hi * t).max(lo).min(hi)
    }
}

/// A grid point `v` computed between `lo` and `hi`, `spacing` from its neighbours, without
/// the arithmetic's noise in the last digits: the shortest decimal within a few units in
/// the last place of the range's magnitude (`0.30000000000000004` is `0.3`), and within a
/// quarter of the spacing, so that distinct points stay distinct and a nonzero one
/// nonzero. Computing the point errs by that much already, so no digit the range
/// determines is lost. Kept within `[lo, hi]`.
fn grid_point(v: f64, lo: f64, hi: f64, spacing: f64) -> f64 {
    if v == lo || v == hi {
        return v; // as given
    }
    let tolerance = (4.0 * f64::EPSILON * lo.abs().max(hi.abs())).min(spacing / 4.0);
    (0..17)
        .filter_map(|digits| format!("{v:.digits$e}").parse::<f64>().ok())
        .find(|x| (x - v).abs() <= tolerance)
        .unwrap_or(v)
        .max(lo)
        .min(hi)
}

/// How many values a parameter takes on a grid of `steps` values per range (before
/// whole-numbered parameters' repeats are dropped).
fn axis_len(values: &Values, steps: usize) -> GridSize {
    match values {
        Values::List(l) => GridSize::Exact(l.len() as u128),
        Values::Range { lo, hi, step: None } => {
            if steps < 2 || hi == lo {
                GridSize::Exact(1)
            } else {
                GridSize::Exact(steps as u128)
            }
        }
        Values::Range {
            lo,
            hi,
            step: Some(st),
        } => {
            // As the grid counts them; beyond a u128 (or f64's range: `1e300 / 1e-300`),
            // by the logarithms of the width and the step.
            let ratio = ((hi - lo) / st + 1e-9).floor();
            if ratio < 1e38 {
                GridSize::Exact(ratio as u128 + 1)
            } else {
                GridSize::About {
                    log10: (hi - lo).log10() - st.log10(),
                }
            }
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

    fn values(t: &Tuning) -> Vec<String> {
        t.candidates()
            .unwrap()
            .into_iter()
            .map(|c| c.iter().next().unwrap().1.to_string())
            .collect()
    }

    #[test]
    fn regression_small_grid_values_keep_their_digits() {
        // Rounded to four decimals, every value of this grid read 0, which glicko2 refuses.
        let mut t = tuning(&["epsilon=0.000001..0.00001"], Search::Grid { steps: 3 });
        t.system = "glicko2".into();
        assert_eq!(values(&t), ["0.000001", "0.0000055", "0.00001"]);
        let games: Vec<Match> = (0..8)
            .map(|i| Match::ranked(format!("g{i}"), &["a", "b", "c"]).unwrap())
            .collect();
        let report = t.run(&games).unwrap();
        assert_eq!(report.candidates.len(), 3);
        let mut t = tuning(&["k=1e-300..1"], Search::Grid { steps: 8 });
        let v = values(&t);
        assert_eq!(v[0], "1e-300");
        assert_eq!(v[7], "1");
        assert_eq!(v[1], "0.142857142857143");
        assert!(t.run(&games).is_ok());
        // Nothing of a value is lost: the endpoints read back as given, and points that
        // differ in their last digits stay apart.
        t.params = vec!["k=0.12345678901234567..0.1234567890123461".parse().unwrap()];
        let v = values(&t);
        assert_eq!(v.len(), 8);
        assert_eq!(v[0].parse::<f64>().unwrap(), 0.123_456_789_012_345_67);
        assert_eq!(v[7].parse::<f64>().unwrap(), 0.123_456_789_012_346_1);
        assert!(v.windows(2).all(|w| w[0] < w[1]), "{v:?}");
    }

    #[test]
    fn regression_a_range_wider_than_the_largest_f64_is_searched_not_a_panic() {
        // The random draw's range overflowed (a panic); the grid's points were NaN.
        let t = tuning(&["k=-1e308..1e308"], Search::Grid { steps: 3 });
        assert_eq!(values(&t), ["-1e308", "0", "1e308"]);
        for int in [false, true] {
            let mut t = tuning(
                &["k=-1e308..1e308"],
                Search::Random {
                    samples: 20,
                    seed: 3,
                },
            );
            if int {
                t.system = "mes".into();
                t.params = vec!["provisional_games=-1e308..1e308".parse().unwrap()];
            }
            for c in t.candidates().unwrap() {
                let v: f64 = c.iter().next().unwrap().1.parse().unwrap();
                assert!(v.is_finite(), "{v}");
            }
        }
        let games = vec![Match::ranked("g", &["a", "b"]).unwrap(); 4];
        let e = t.run(&games).unwrap_err();
        assert_eq!(
            e.to_string(),
            "parameter k: \"-1e308\" is not valid, expected a finite number in (0, 1e9]"
        );
    }

    #[test]
    fn grid_values_read_without_the_arithmetics_noise() {
        let t = tuning(&["k=0.1..1"], Search::Grid { steps: 10 });
        assert_eq!(
            values(&t),
            ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"]
        );
        let t = tuning(&["k=0.1..1:0.1"], Search::Grid { steps: 8 });
        assert_eq!(
            values(&t),
            ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"]
        );
        let t = tuning(&["k=0.05..0.5"], Search::Grid { steps: 10 });
        assert_eq!(
            values(&t),
            ["0.05", "0.1", "0.15", "0.2", "0.25", "0.3", "0.35", "0.4", "0.45", "0.5"]
        );
        let t = tuning(&["k=1e20..1e21"], Search::Grid { steps: 2 });
        assert_eq!(values(&t), ["1e20", "1e21"]);
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
        // Small values are drawn with every digit, never read as 0.
        let t = tuning(
            &["k=0.000001..0.00001"],
            Search::Random {
                samples: 50,
                seed: 3,
            },
        );
        for c in t.candidates().unwrap() {
            let k: f64 = c.get("k").unwrap().parse().unwrap();
            assert!((0.000_001..=0.000_01).contains(&k), "{k}");
        }
    }

    /// A random search never draws one candidate twice: a list of three values gives
    /// three candidates however many are asked for, each once.
    #[test]
    fn random_candidates_are_distinct() {
        let t = tuning(
            &["k=16,24,32"],
            Search::Random {
                samples: 5,
                seed: 1,
            },
        );
        let mut ks: Vec<String> = t
            .candidates()
            .unwrap()
            .iter()
            .map(|c| c.get("k").unwrap().to_string())
            .collect();
        ks.sort();
        assert_eq!(ks, ["16", "24", "32"]);
        let t = tuning(
            &["k=16,24,32"],
            Search::Random {
                samples: 2,
                seed: 1,
            },
        );
        let c = t.candidates().unwrap();
        assert_eq!(c.len(), 2);
        assert_ne!(c[0].get("k"), c[1].get("k"));
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
                candidates: GridSize::Exact(1_000_000_000),
                axes: "k: 1000000000 values".into(),
                limit: MAX_TUNE_CANDIDATES,
            }
        );
        assert_eq!(
            e.to_string(),
            "the grid has 1000000000 candidates (k: 1000000000 values); at most 10000 are \
             searched: give fewer values per range (steps), a larger step (LO..HI:STEP), \
             fewer values or fewer parameters"
        );
        let cli = ArgNames {
            param: "--param",
            train: "--train",
            steps: "--steps",
            samples: "--random",
            range_step: "LO..HI:STEP",
            joiner: " ",
        };
        assert_eq!(
            e.message(&cli),
            "the grid has 1000000000 candidates (k: 1000000000 values); at most 10000 are \
             searched: give fewer values per range (--steps), a larger step (LO..HI:STEP), \
             fewer values or fewer parameters"
        );
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
                candidates: GridSize::Exact(10_000_000_000),
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
                candidates: GridSize::Exact(560_000_001),
                ..
            })
        ));
        // Beyond a u128 (and f64: 1e300 / 1e-300), the size is its order of magnitude.
        let t = tuning(&["k=0..1e300:1e-300"], Search::Grid { steps: 8 });
        let e = t.candidates().unwrap_err();
        assert!(e
            .to_string()
            .starts_with("the grid has about 1e600 candidates (k: about 1e600 values);"));
        let t = tuning(
            &["k=0..1e20:1", "scale=0..1e20:1", "beta=1,2"],
            Search::Grid { steps: 8 },
        );
        assert!(t.candidates().unwrap_err().to_string().starts_with(
            "the grid has about 2e40 candidates (k: 100000000000000000001 values, scale: \
             100000000000000000001 values, beta: 2 values);"
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
            "samples=1000000000000: at most 10000 random samples are searched"
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
            "samples=0: expected at least 1 random sample"
        );
        assert_eq!(
            TuneError::NoSteps.to_string(),
            "steps=0: expected at least 1 value per range"
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
        assert_eq!(
            e.to_string(),
            "the training part (the first 1 of 100 matches, train=0.01) is too small: no \
             candidate has a warm pair to be scored on there; give a larger train"
        );
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

    #[test]
    fn a_history_whose_largest_training_part_has_no_warm_pair_is_too_short() {
        // Two matches: the training part is at most the first, which has no warm pair,
        // whatever `train` asks for.
        let games = vec![
            Match::ranked("g0", &["a", "b"]).unwrap(),
            Match::ranked("g1", &["a", "b"]).unwrap(),
        ];
        let mut t = tuning(&["k=8..64"], Search::Grid { steps: 3 });
        t.train = 0.9;
        let e = t.run(&games).unwrap_err();
        assert_eq!(e, TuneError::HistoryTooShort { matches: 2 });
        assert_eq!(
            e.to_string(),
            "the history is too short to tune on: the largest training part, its first 1 \
             match (one held out), holds no warm pair (two players both rated before) to \
             tell the candidates apart"
        );
        assert_eq!(
            t.run(&games[..1]).unwrap_err().to_string(),
            "1 match cannot be split into a training and a held-out part; need at least 2"
        );
    }

    #[test]
    fn grid_sizes_read_exactly_or_by_their_order_of_magnitude() {
        assert_eq!(GridSize::Exact(12).to_string(), "12");
        assert_eq!(GridSize::About { log10: 600.0 }.to_string(), "about 1e600");
        assert_eq!(GridSize::About { log10: 40.3 }.to_string(), "about 2e40");
        assert_eq!(GridSize::About { log10: 40.99 }.to_string(), "about 1e41");
        assert_eq!(
            GridSize::Exact(u128::MAX).times(GridSize::Exact(10)),
            GridSize::About {
                log10: (u128::MAX as f64).log10() + 1.0
            }
        );
        assert!(GridSize::Exact(10_001).exceeds(10_000));
        assert!(!GridSize::Exact(10_000).exceeds(10_000));
    }
}
