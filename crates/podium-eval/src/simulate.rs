//! The simulation of Tom Kerrigan's article "Multiplayer Elo" (10 players of true ratings
//! 1100, 1200, …, 2000, game scores ~ Normal(true rating, 200)), generalised to any
//! system, any true ratings and any number of rounds.
//!
//! Players have fixed **true ratings**. Every system starts each player at its own initial
//! rating plus a small jitter `U(−jitter, jitter)` (1 by default: Kerrigan's 1500 ± 1) so
//! that ratings are not all equal. Each round every player draws a game score from
//! `Normal(true rating, sd)`, the finishing order is the order of the scores, and every
//! system updates on that match. After the checkpoint rounds the **predictive ability** of
//! a system's ratings is measured over all pairs of players: the probability that the
//! higher-rated player outscores the lower-rated one in a fresh, independent game, with
//! equal ratings counting ½. The fresh game's probability is used exactly,
//! `Φ((t_hi − t_lo) / (sd·√2))`, instead of drawing one fresh game: the mean over trials
//! is the same and its noise lower.
//!
//! Two references use the same games: **ideal** ranks players by their true ratings (the
//! best any rating can do), **mean-score** by the mean of each player's observed game
//! scores so far (information that no rank-based system has).
//!
//! ## Seats: a planted factor
//! With [`Simulation::seat_advantage`] `Some(a)`, every game seats its players in a
//! fresh uniformly random order (seats 1..N for N players) and the player in seat 1
//! draws the game score from `Normal(true rating + a, sd)`; the other seats add nothing.
//! Every system then runs twice on the same games: once **given the seats** as a factor
//! (`seat=1`, …, [`podium::factor`]) and once **seat-blind**, rating the same orders
//! without them ([`SimulationReport::seat_blind`]).
//!
//! - **Predictive ability** is measured on a fresh game whose seats are drawn uniformly
//!   at random as well, averaged exactly over every seating of each pair: a system given
//!   the seats compares player rating plus the rating of the player's seat, a seat-blind
//!   one the players' ratings alone. `ideal` compares true rating plus planted advantage.
//!   Without seats this is the measure above.
//! - **The learned advantage.** Factors are identified only up to a common shift (adding
//!   the same to every seat changes no prediction), so what a system learned is the
//!   difference between the rating of seat 1 and the mean rating of the other seats
//!   ([`SeatLearned::rating`], in the system's own units). Systems have their own scales
//!   (Elo's 400-point logistic, TrueSkill's μ = 25, and each spreads its ratings its own
//!   way), so the difference is also converted into the simulation's true-rating points
//!   by the scale the system itself gives the players: the least-squares slope of its
//!   players' ratings on their true ratings ([`SeatLearned::scale`]). A seat's rating is
//!   added to its player's, so it shares that scale, and
//!   [`SeatLearned::advantage`] = mean difference / mean slope is comparable with the
//!   planted advantage.
//!
//! ## Reproducibility
//! Trial `i` draws every random number from ChaCha8 seeded with `seed` on stream `i`, and
//! trials are summed in fixed blocks in trial order, so the same settings give the same
//! numbers on any machine and with any number of threads. Every system of a trial sees
//! the same games (common random numbers), which makes the differences between systems
//! sharper than independent runs would.

use std::sync::atomic::{AtomicBool, Ordering};

use podium::{Finish, Match, RatingSystem};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rayon::prelude::*;

/// Trials summed together before the blocks are added up in order.
const BLOCK: u32 = 64;

/// Largest magnitude accepted for true ratings and the score spread.
const LIMIT: f64 = 1e12;

/// The most players a simulation takes: predictive ability is measured over every pair,
/// from a table of each pair's probability (8 bytes a pair; three tables with seats), and
/// every checkpoint of every trial visits each pair of every system's ratings.
pub const MAX_PLAYERS: usize = 1_000;

/// The last round a simulation plays to: 100 times the default's last (1,000), long after
/// every curve has settled. A trial plays its rounds one after another on one thread, and
/// a caller's stop ([`Simulation::run_until`]) is seen between blocks of trials only, so
/// this also bounds how long one block runs.
pub const MAX_ROUNDS: u32 = 100_000;

/// The most games a simulation plays for each system: trials × the last round, 100 times
/// the default's 10,000 × 1,000. Every system rates every game, and sme, one of the
/// fastest, rates 10 million games of 10 players in about 9 CPU-seconds, so this many
/// take it about a quarter of an hour of one core; more players take longer. Trials
/// alone are bounded by the same number: a trial that stops at round 0 still draws its
/// starting ratings and measures them.
pub const MAX_GAMES: u64 = 1_000_000_000;

/// The settings of a simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// The players' true ratings (at least 2).
    pub true_ratings: Vec<f64>,
    /// Standard deviation of a player's game score around their true rating.
    pub sd: f64,
    /// Rounds after which predictive ability is measured (0 = before any game); the last
    /// at most [`MAX_ROUNDS`].
    pub rounds: Vec<u32>,
    /// Independent trials to average over; trials × the last round at most
    /// [`MAX_GAMES`].
    pub trials: u32,
    /// Seed of the random streams.
    pub seed: u64,
    /// Half-width of the uniform jitter added to each system's initial rating: from 0 to
    /// 1e9, the range of ratings the systems rate.
    pub jitter: f64,
    /// Worker threads (0 = one per core); never more than one per block of trials.
    pub threads: usize,
    /// Seats (module docs): `Some(a)` seats the players of every game in a random order,
    /// the player in seat 1 performing `a` true-rating points above their true rating,
    /// and runs every system both given the seats and seat-blind. `None`: no seats.
    pub seat_advantage: Option<f64>,
}

impl Default for Simulation {
    /// Kerrigan's experiment: true ratings 1100, 1200, …, 2000, sd 200, 1500 ± 1.
    fn default() -> Self {
        Simulation {
            true_ratings: (0..10).map(|i| 1100.0 + 100.0 * f64::from(i)).collect(),
            sd: 200.0,
            rounds: vec![1, 2, 3, 4, 5, 10, 20, 100, 1000],
            trials: 10_000,
            seed: 1,
            jitter: 1.0,
            threads: 0,
            seat_advantage: None,
        }
    }
}

/// Why a simulation cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SimulationError {
    /// Fewer than two players.
    #[error("a simulation needs at least 2 players, got {found}")]
    TooFewPlayers {
        /// Players given.
        found: usize,
    },
    /// More players than [`MAX_PLAYERS`].
    #[error("a simulation takes at most {limit} players, got {found}")]
    TooManyPlayers {
        /// Players given.
        found: usize,
        /// The most it takes.
        limit: usize,
    },
    /// A setting out of its range.
    #[error("{setting} = {value} is not valid: expected {expected}")]
    Invalid {
        /// The setting's name.
        setting: &'static str,
        /// The value given.
        value: String,
        /// What it accepts.
        expected: &'static str,
    },
    /// More games than [`MAX_GAMES`]: trials × the last round.
    #[error(
        "{trials} trials × {rounds} rounds = {} games: a simulation plays at most {limit} \
         (trials × the last round); give fewer trials or fewer rounds",
        u64::from(*trials) * u64::from(*rounds)
    )]
    TooManyGames {
        /// Trials given.
        trials: u32,
        /// The last round given.
        rounds: u32,
        /// The most games it plays.
        limit: u64,
    },
    /// The simulation was stopped by its caller ([`Simulation::run_until`]).
    #[error("the simulation was stopped")]
    Stopped,
    /// The thread pool could not start.
    #[error("cannot start {threads} worker threads: {message}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// Why not.
        message: String,
    },
}

/// One system's curve: predictive ability at each checkpoint, or why it cannot run.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The system's name.
    pub system: String,
    /// Predictive ability (a fraction 0..1) after each checkpoint round, in the order of
    /// [`SimulationReport::rounds`]; `Err` with the reason when the system cannot rate the
    /// simulated games (e.g. `elo` with more than two players, or a system that does not
    /// rate factors given the seats).
    pub values: Result<Vec<f64>, String>,
    /// With seats, for a system given them that rated every game: the advantage of seat 1
    /// it learned by each checkpoint; `None` otherwise.
    pub seat: Option<SeatLearned>,
}

/// The advantage of seat 1 that a system given the seats learned, after each checkpoint
/// round, averaged over the trials (module docs: [`crate::simulate`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SeatLearned {
    /// The rating of seat 1 minus the mean rating of the other seats, in the system's own
    /// units.
    pub rating: Vec<f64>,
    /// The system's scale: the least-squares slope of its players' ratings on their true
    /// ratings, in rating points per true-rating point.
    pub scale: Vec<f64>,
    /// The advantage in the simulation's true-rating points, `rating / scale`: comparable
    /// with [`Simulation::seat_advantage`] (0 before any game; NaN where the system's
    /// ratings do not yet rise with the true ones).
    pub advantage: Vec<f64>,
    /// The standard deviation over trials of one trial's learned difference, in true-rating
    /// points (divided by the scale): how far the estimate of a single history strays.
    pub advantage_sd: Vec<f64>,
}

/// The averaged results of a simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulationReport {
    /// The checkpoint rounds, ascending.
    pub rounds: Vec<u32>,
    /// Trials run.
    pub trials: u32,
    /// Predictive ability of the true ratings (the same at every round); with seats, of
    /// the true ratings plus the planted advantage.
    pub ideal: f64,
    /// Predictive ability of ranking by mean observed score, per checkpoint.
    pub mean_score: Vec<f64>,
    /// One curve per system, in the order given; with seats, each system given them.
    pub systems: Vec<Curve>,
    /// With seats: the same systems in the same order on the same games, not given the
    /// seats. Empty without seats.
    pub seat_blind: Vec<Curve>,
}

/// One system as one run of a trial: given the seats or not.
#[derive(Clone, Copy)]
struct Run<'a> {
    sys: &'a dyn RatingSystem,
    seated: bool,
}

/// The probabilities of the fresh game by which predictive ability is measured.
struct Truth {
    /// `p[i][j]`: probability that player `i` outscores player `j` in one game (with
    /// seats, averaged over their seating).
    p: Vec<Vec<f64>>,
    /// With seats, the same by seating.
    seats: Option<SeatTruth>,
}

/// The probabilities of the fresh game with seats.
struct SeatTruth {
    /// `neither[i][j]`: probability that `i` outscores `j` when neither sits in seat 1.
    neither: Vec<Vec<f64>>,
    /// `first[i][j]`: probability that `i` outscores `j` when `i` sits in seat 1.
    first: Vec<Vec<f64>>,
}

/// Sums of one block of trials.
struct Block {
    /// `runs[r][c]`: sum of predictive ability of run `r` at checkpoint `c`.
    runs: Vec<Vec<f64>>,
    /// `seat[r][c]`: for a run given the seats, sums of the learned rating difference,
    /// of its square and of the system's scale.
    seat: Vec<Vec<[f64; 3]>>,
    mean_score: Vec<f64>,
    /// First failure per run: (trial, reason).
    failed: Vec<Option<(u32, String)>>,
}

impl Simulation {
    fn validate(&self) -> Result<(), SimulationError> {
        if self.true_ratings.len() < 2 {
            return Err(SimulationError::TooFewPlayers {
                found: self.true_ratings.len(),
            });
        }
        if self.true_ratings.len() > MAX_PLAYERS {
            return Err(SimulationError::TooManyPlayers {
                found: self.true_ratings.len(),
                limit: MAX_PLAYERS,
            });
        }
        // Bounded so that no drawn score can overflow to infinity.
        if let Some(t) = self
            .true_ratings
            .iter()
            .find(|t| t.is_nan() || t.abs() > LIMIT)
        {
            return Err(SimulationError::Invalid {
                setting: "true rating",
                value: shown(*t),
                expected: "a number between -1e12 and 1e12",
            });
        }
        if self.sd.is_nan() || self.sd <= 0.0 || self.sd > LIMIT {
            return Err(SimulationError::Invalid {
                setting: "sd",
                value: shown(self.sd),
                expected: "a number > 0 and ≤ 1e12",
            });
        }
        if let Some(a) = self.seat_advantage {
            if a.is_nan() || a.abs() > LIMIT {
                return Err(SimulationError::Invalid {
                    setting: "seat advantage",
                    value: shown(a),
                    expected: "a number between -1e12 and 1e12",
                });
            }
        }
        // Added to each system's initial rating, which the systems rate within ±1e9.
        if !(0.0..=podium::params::MAX_MAGNITUDE).contains(&self.jitter) {
            return Err(SimulationError::Invalid {
                setting: "jitter",
                value: shown(self.jitter),
                expected: "a number ≥ 0 and ≤ 1e9",
            });
        }
        if self.trials == 0 {
            return Err(SimulationError::Invalid {
                setting: "trials",
                value: "0".into(),
                expected: "at least 1",
            });
        }
        let Some(&last) = self.rounds.iter().max() else {
            return Err(SimulationError::Invalid {
                setting: "rounds",
                value: String::new(),
                expected: "at least one checkpoint round",
            });
        };
        // Refused before any trial starts: how long a run takes grows with these.
        if last > MAX_ROUNDS {
            return Err(SimulationError::Invalid {
                setting: "rounds",
                value: last.to_string(),
                expected: "rounds ≤ 100000 (the last round a simulation plays to)",
            });
        }
        if u64::from(self.trials) * u64::from(last) > MAX_GAMES {
            return Err(SimulationError::TooManyGames {
                trials: self.trials,
                rounds: last,
                limit: MAX_GAMES,
            });
        }
        // Only with round 0 alone are trials more than the games.
        if u64::from(self.trials) > MAX_GAMES {
            return Err(SimulationError::Invalid {
                setting: "trials",
                value: self.trials.to_string(),
                expected: "at most 1000000000",
            });
        }
        Ok(())
    }

    /// `p[i][j]`: probability that player `i` outscores player `j` in one game when `i`
    /// performs `shift` above their true rating.
    fn outscore_probabilities(&self, shift: f64) -> Vec<Vec<f64>> {
        let t = &self.true_ratings;
        let scale = 2.0 * self.sd; // (t_i − t_j) / (sd √2) / √2 for erfc
        t.iter()
            .map(|ti| {
                t.iter()
                    .map(|tj| 0.5 * libm::erfc(-(ti + shift - tj) / scale))
                    .collect()
            })
            .collect()
    }

    /// The fresh game's probabilities: plain, or with seats averaged over the seating
    /// (each player in seat 1 with probability 1/N).
    fn truth(&self) -> Truth {
        let neither = self.outscore_probabilities(0.0);
        let Some(a) = self.seat_advantage else {
            return Truth {
                p: neither,
                seats: None,
            };
        };
        let first = self.outscore_probabilities(a);
        let n = neither.len();
        let w = 1.0 / n as f64;
        let p = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        (1.0 - 2.0 * w) * neither[i][j] + w * first[i][j] + w * (1.0 - first[j][i])
                    })
                    .collect()
            })
            .collect();
        Truth {
            p,
            seats: Some(SeatTruth { neither, first }),
        }
    }

    /// Runs the simulation for `systems` (each rates with its own parameters).
    ///
    /// ```
    /// use podium_eval::simulate::Simulation;
    /// let sim = Simulation { rounds: vec![0, 5], trials: 200, ..Simulation::default() };
    /// let sme = podium::system("sme", &podium::Settings::new()).unwrap();
    /// let report = sim.run(&[&*sme]).unwrap();
    /// let curve = report.systems[0].values.as_ref().unwrap();
    /// assert!((curve[0] - 0.5).abs() < 0.05); // before any game: a coin toss
    /// assert!(curve[1] > 0.7 && curve[1] < report.ideal);
    /// assert!((report.ideal - 0.8457).abs() < 1e-3);
    /// ```
    ///
    /// With seats, each system is also run seat-blind:
    ///
    /// ```
    /// use podium_eval::simulate::Simulation;
    /// let sim = Simulation {
    ///     rounds: vec![0, 100],
    ///     trials: 20,
    ///     seat_advantage: Some(100.0),
    ///     ..Simulation::default()
    /// };
    /// let pairwise = podium::system("pairwise", &podium::Settings::new()).unwrap();
    /// let report = sim.run(&[&*pairwise]).unwrap();
    /// let seat = report.systems[0].seat.as_ref().unwrap();
    /// assert_eq!(seat.advantage[0], 0.0); // nothing learned before any game
    /// assert!(seat.advantage[1] > 50.0 && seat.advantage[1] < 150.0);
    /// assert!(report.seat_blind[0].seat.is_none());
    /// ```
    ///
    /// # Errors
    /// [`SimulationError`] for settings out of range. A system that cannot rate the games
    /// is not an error: its [`Curve::values`] holds the reason.
    pub fn run(&self, systems: &[&dyn RatingSystem]) -> Result<SimulationReport, SimulationError> {
        self.run_until(systems, &AtomicBool::new(false))
    }

    /// [`Simulation::run`], which starts no further block of trials once `stop` is set (a
    /// caller's Ctrl-C: the work ends rather than running on unseen).
    ///
    /// # Errors
    /// As [`Simulation::run`], and [`SimulationError::Stopped`] once `stop` is set.
    pub fn run_until(
        &self,
        systems: &[&dyn RatingSystem],
        stop: &AtomicBool,
    ) -> Result<SimulationReport, SimulationError> {
        self.validate()?;
        let mut rounds = self.rounds.clone();
        rounds.sort_unstable();
        rounds.dedup();
        let truth = self.truth();
        let n = self.true_ratings.len();
        let pairs = (n * (n - 1) / 2) as f64;
        let ideal = match (&truth.seats, self.seat_advantage) {
            (Some(st), Some(a)) => {
                let mut planted = vec![0.0; n];
                planted[0] = a;
                seated_ability(&self.true_ratings, &planted, st)
            }
            _ => ability(&self.true_ratings, &truth.p),
        } / pairs;
        let mut runs: Vec<Run<'_>> = systems
            .iter()
            .map(|&sys| Run {
                sys,
                seated: truth.seats.is_some(),
            })
            .collect();
        if truth.seats.is_some() {
            runs.extend(systems.iter().map(|&sys| Run { sys, seated: false }));
        }
        let blocks = self.trials.div_ceil(BLOCK);
        let work = || -> Vec<Option<Block>> {
            (0..blocks)
                .into_par_iter()
                .map(|b| {
                    if stop.load(Ordering::Relaxed) {
                        return None;
                    }
                    let first = b * BLOCK;
                    let last = (first + BLOCK).min(self.trials);
                    Some(self.block(first..last, &rounds, &runs, &truth))
                })
                .collect()
        };
        let results = if self.threads == 0 {
            work()
        } else {
            rayon::ThreadPoolBuilder::new()
                .num_threads(self.threads.min(blocks as usize).max(1))
                .build()
                .map_err(|e| SimulationError::Threads {
                    threads: self.threads,
                    message: e.to_string(),
                })?
                .install(work)
        };
        let Some(results) = results.into_iter().collect::<Option<Vec<Block>>>() else {
            return Err(SimulationError::Stopped);
        };
        let trials = f64::from(self.trials);
        let c = rounds.len();
        let mut sums = vec![vec![0.0; c]; runs.len()];
        let mut seat = vec![vec![[0.0; 3]; c]; runs.len()];
        let mut mean_score = vec![0.0; c];
        let mut failed: Vec<Option<(u32, String)>> = vec![None; runs.len()];
        for block in results {
            for (acc, v) in sums.iter_mut().zip(&block.runs) {
                for (a, x) in acc.iter_mut().zip(v) {
                    *a += x;
                }
            }
            for (acc, v) in seat.iter_mut().zip(&block.seat) {
                for (a, x) in acc.iter_mut().zip(v) {
                    for k in 0..3 {
                        a[k] += x[k];
                    }
                }
            }
            for (acc, x) in mean_score.iter_mut().zip(&block.mean_score) {
                *acc += x;
            }
            for (f, g) in failed.iter_mut().zip(block.failed) {
                if f.is_none() {
                    *f = g;
                }
            }
        }
        let mut curves: Vec<Curve> = runs
            .iter()
            .zip(sums)
            .zip(seat)
            .zip(failed)
            .map(|(((run, s), seat), f)| match f {
                Some((_, reason)) => Curve {
                    system: run.sys.name().to_string(),
                    values: Err(reason),
                    seat: None,
                },
                None => Curve {
                    system: run.sys.name().to_string(),
                    values: Ok(s.iter().map(|x| x / pairs / trials).collect()),
                    seat: run.seated.then(|| seat_learned(&seat, trials)),
                },
            })
            .collect();
        let seat_blind = curves.split_off(systems.len());
        Ok(SimulationReport {
            rounds,
            trials: self.trials,
            ideal,
            mean_score: mean_score.iter().map(|x| x / pairs / trials).collect(),
            systems: curves,
            seat_blind,
        })
    }

    fn block(
        &self,
        trials: std::ops::Range<u32>,
        rounds: &[u32],
        runs: &[Run<'_>],
        truth: &Truth,
    ) -> Block {
        let c = rounds.len();
        let mut out = Block {
            runs: vec![vec![0.0; c]; runs.len()],
            seat: vec![vec![[0.0; 3]; c]; runs.len()],
            mean_score: vec![0.0; c],
            failed: vec![None; runs.len()],
        };
        for trial in trials {
            self.trial(trial, rounds, runs, truth, &mut out);
        }
        out
    }

    #[allow(clippy::too_many_lines)]
    fn trial(&self, trial: u32, rounds: &[u32], runs: &[Run<'_>], truth: &Truth, out: &mut Block) {
        let n = self.true_ratings.len();
        let mut rng = trial_stream(self.seed, trial);
        let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
        let seat_names: Vec<String> = (1..=n).map(|s| s.to_string()).collect();
        let jitter: Vec<f64> = (0..n)
            .map(|_| {
                if self.jitter > 0.0 {
                    rng.gen_range(-self.jitter..=self.jitter)
                } else {
                    0.0
                }
            })
            .collect();
        let mut ratings: Vec<Vec<podium::Rating>> = runs
            .iter()
            .map(|run| {
                let start = run.sys.initial_rating();
                jitter
                    .iter()
                    .map(|j| podium::Rating {
                        value: start.value + j,
                        ..start
                    })
                    .collect()
            })
            .collect();
        // Each seat's rating in each run given the seats (index 0: seat 1).
        let mut seat_ratings: Vec<Vec<podium::Rating>> = runs
            .iter()
            .map(|run| {
                if run.seated {
                    vec![run.sys.initial_factor(); n]
                } else {
                    Vec::new()
                }
            })
            .collect();
        // Each player's state in each system that keeps one (none yet: a system builds a
        // newcomer's state from the rating).
        let mut states: Vec<Vec<Option<podium::State>>> = runs
            .iter()
            .map(|run| {
                if run.sys.capabilities().keeps_state {
                    vec![None; n]
                } else {
                    Vec::new()
                }
            })
            .collect();
        // What each system learns from every match, for a system that learns.
        let mut learned: Vec<Option<podium::State>> =
            runs.iter().map(|run| run.sys.initial_learned()).collect();
        let mut alive: Vec<bool> = out.failed.iter().map(Option::is_none).collect();
        let dists: Vec<Normal<f64>> = self
            .true_ratings
            .iter()
            .map(|&t| Normal::new(t, self.sd).expect("sd validated"))
            .collect();
        let advantage = self.seat_advantage.unwrap_or(0.0);
        // `seat_of[i]`: player i's seat this round (0: seat 1).
        let mut seat_of: Vec<usize> = (0..n).collect();
        let mut sums = vec![0.0; n];
        let mut scores = vec![0.0; n];
        let mut order: Vec<usize> = (0..n).collect();
        let mut before = Vec::with_capacity(n);
        // What each rating comes out as, its vectors reused from match to match.
        let mut rated = podium::Posterior::default();
        let mut values = vec![0.0; n];
        let mut seat_values = vec![0.0; n];
        let last = *rounds.last().unwrap_or(&0);
        let mut next = 0;
        for round in 0..=last {
            if round > 0 {
                if truth.seats.is_some() {
                    seat_of.shuffle(&mut rng);
                }
                for (i, d) in dists.iter().enumerate() {
                    scores[i] = d.sample(&mut rng);
                    if truth.seats.is_some() && seat_of[i] == 0 {
                        scores[i] += advantage;
                    }
                    sums[i] += scores[i];
                }
                order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
                let mut builder = Match::builder("round");
                for &i in &order {
                    builder = builder.player(names[i].clone(), Finish::Score(scores[i]));
                }
                let game = builder.build().expect("distinct players, finite scores");
                let seated_game = truth.seats.as_ref().map(|_| {
                    let mut builder = Match::builder("round");
                    for &i in &order {
                        builder = builder
                            .player(names[i].clone(), Finish::Score(scores[i]))
                            .factor("seat", seat_names[seat_of[i]].clone());
                    }
                    builder.build().expect("distinct players, one seat each")
                });
                for (r, run) in runs.iter().enumerate() {
                    if !alive[r] {
                        continue;
                    }
                    let sys = run.sys;
                    before.clear();
                    before.extend(order.iter().map(|&i| ratings[r][i]));
                    let own = || -> Vec<Option<&podium::State>> {
                        order
                            .iter()
                            .map(|&i| states[r].get(i).and_then(Option::as_ref))
                            .collect()
                    };
                    // Each seat of the match, in the match's order of factors (the
                    // entries' order: the builder keeps the sorted order).
                    let (g, seats) = match (&seated_game, run.seated) {
                        (Some(g), true) => (
                            g,
                            g.factors()
                                .iter()
                                .map(|m| seat_of[order[m.entries[0]]])
                                .collect(),
                        ),
                        _ => (&game, Vec::new()),
                    };
                    let factors: Vec<podium::Rating> =
                        seats.iter().map(|&s| seat_ratings[r][s]).collect();
                    let own = if states[r].is_empty() {
                        Vec::new()
                    } else {
                        own()
                    };
                    let prior = podium::Prior::new(g, &before)
                        .with_states(&own)
                        .with_learned(learned[r].as_ref())
                        .with_factors(&factors);
                    match sys.rate_into(&prior, &mut rated) {
                        Ok(()) => {
                            for (&s, ch) in seats.iter().zip(&rated.factors) {
                                seat_ratings[r][s] = ch.after;
                            }
                            for (&i, ch) in order.iter().zip(&rated.changes) {
                                ratings[r][i] = ch.after;
                            }
                            if !states[r].is_empty() {
                                for (&i, st) in order.iter().zip(rated.states.drain(..)) {
                                    states[r][i] = st;
                                }
                            }
                            if rated.learned.is_some() {
                                learned[r] = rated.learned.take();
                            }
                        }
                        Err(e) => {
                            alive[r] = false;
                            if out.failed[r].is_none() {
                                out.failed[r] = Some((trial, e.to_string()));
                            }
                        }
                    }
                }
            }
            if next < rounds.len() && rounds[next] == round {
                for (r, run) in runs.iter().enumerate() {
                    if !alive[r] {
                        continue;
                    }
                    for (i, (v, x)) in values.iter_mut().zip(&ratings[r]).enumerate() {
                        // A system that learns reports a player as it reads them now.
                        *v = match (&learned[r], states[r].get(i).and_then(Option::as_ref)) {
                            (Some(l), Some(st)) => run.sys.age(*x, Some(st), Some(l), 0.0).value,
                            _ => x.value,
                        };
                    }
                    match (&truth.seats, run.seated) {
                        (Some(st), true) => {
                            for (v, f) in seat_values.iter_mut().zip(&seat_ratings[r]) {
                                *v = f.value;
                            }
                            out.runs[r][next] += seated_ability(&values, &seat_values, st);
                            let learned = learned_seat(&seat_values);
                            let acc = &mut out.seat[r][next];
                            acc[0] += learned;
                            acc[1] += learned * learned;
                            acc[2] += slope(&self.true_ratings, &values);
                        }
                        _ => out.runs[r][next] += ability(&values, &truth.p),
                    }
                }
                out.mean_score[next] += ability(&sums, &truth.p);
                next += 1;
            }
        }
    }
}

/// A setting's value as a message shows it: as written for everyday sizes, in exponent
/// form beyond them (`1e308`, not 309 digits).
fn shown(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-6..1e16).contains(&v.abs()) {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

/// The mean over trials of a run's learned seat advantage, from its sums: of the
/// learned rating difference, its square, and the system's scale.
fn seat_learned(sums: &[[f64; 3]], trials: f64) -> SeatLearned {
    let mut out = SeatLearned {
        rating: Vec::with_capacity(sums.len()),
        scale: Vec::with_capacity(sums.len()),
        advantage: Vec::with_capacity(sums.len()),
        advantage_sd: Vec::with_capacity(sums.len()),
    };
    for s in sums {
        let mean = s[0] / trials;
        let var = if trials > 1.0 {
            ((s[1] - trials * mean * mean) / (trials - 1.0)).max(0.0)
        } else {
            0.0
        };
        let scale = s[2] / trials;
        // Before any game the scale is the jitter's: no advantage learned, none to scale.
        let (advantage, sd) = if mean == 0.0 && var == 0.0 {
            (0.0, 0.0)
        } else if scale > 0.0 {
            (mean / scale, var.sqrt() / scale)
        } else {
            (f64::NAN, f64::NAN)
        };
        out.rating.push(mean);
        out.scale.push(scale);
        out.advantage.push(advantage);
        out.advantage_sd.push(sd);
    }
    out
}

/// The rating of seat 1 minus the mean rating of the other seats (`seats[0]`: seat 1).
fn learned_seat(seats: &[f64]) -> f64 {
    let others = seats[1..].iter().sum::<f64>() / (seats.len() - 1) as f64;
    seats[0] - others
}

/// The least-squares slope of `ratings` on `truth`: a system's rating points per true
/// rating point.
fn slope(truth: &[f64], ratings: &[f64]) -> f64 {
    let n = truth.len() as f64;
    let mt = truth.iter().sum::<f64>() / n;
    let mr = ratings.iter().sum::<f64>() / n;
    let (mut cov, mut var) = (0.0, 0.0);
    for (t, r) in truth.iter().zip(ratings) {
        cov += (t - mt) * (r - mr);
        var += (t - mt) * (t - mt);
    }
    if var > 0.0 {
        cov / var
    } else {
        0.0
    }
}

/// Sum over pairs of the probability that the higher-rated player outscores the other
/// (½ for equal ratings).
fn ability(ratings: &[f64], p: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for i in 0..ratings.len() {
        for j in i + 1..ratings.len() {
            total += if ratings[i] > ratings[j] {
                p[i][j]
            } else if ratings[i] < ratings[j] {
                p[j][i]
            } else {
                0.5
            };
        }
    }
    total
}

/// [`ability`] with seats: players rated `ratings` and seats rated `seats` (`seats[0]`:
/// seat 1), each pair's probability averaged exactly over every seating of the pair in a
/// fresh game whose seats are drawn uniformly at random. A pair is predicted by player
/// rating plus seat rating (½ when equal).
fn seated_ability(ratings: &[f64], seats: &[f64], truth: &SeatTruth) -> f64 {
    let n = ratings.len();
    // Seat 1 over each other seat, and each other seat over each other seat.
    let mut first: Vec<f64> = seats[1..].iter().map(|s| seats[0] - s).collect();
    first.sort_unstable_by(f64::total_cmp);
    let mut others = Vec::with_capacity((n - 1) * (n - 2));
    for a in 1..n {
        for b in 1..n {
            if a != b {
                others.push(seats[b] - seats[a]);
            }
        }
    }
    others.sort_unstable_by(f64::total_cmp);
    // The expected score of predicting `i` ahead in `ahead` seatings, behind in `behind`
    // and a toss in `equal`, when `i` outscores `j` with probability `q`.
    let score = |(behind, equal, ahead): (f64, f64, f64), q: f64| {
        ahead * q + behind * (1.0 - q) + 0.5 * equal
    };
    let seatings = (n * (n - 1)) as f64;
    let mut total = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let x = ratings[i] - ratings[j];
            // i in seat 1, j in seat s: i ahead when x + (f₁ − f_s) > 0.
            let (below, equal, above) = split(&first, -x);
            let mut sum = score((below, equal, above), truth.first[i][j]);
            // j in seat 1, i in seat s: i ahead when x − (f₁ − f_s) > 0.
            let (below, equal, above) = split(&first, x);
            sum += score((above, equal, below), 1.0 - truth.first[j][i]);
            // i in seat a, j in seat b, neither seat 1: i ahead when x − (f_b − f_a) > 0.
            let (below, equal, above) = split(&others, x);
            sum += score((above, equal, below), truth.neither[i][j]);
            total += sum / seatings;
        }
    }
    total
}

/// How many of the sorted `values` are below, equal to and above `y`.
fn split(values: &[f64], y: f64) -> (f64, f64, f64) {
    let below = values.partition_point(|&v| v < y);
    let upto = values.partition_point(|&v| v <= y);
    (
        below as f64,
        (upto - below) as f64,
        (values.len() - upto) as f64,
    )
}

impl SimulationReport {
    /// Every curve by its name in reports: the systems (given the seats, when there are
    /// seats), then the seat-blind ones, named by [`seat_blind_name`].
    pub fn named_curves(&self) -> impl Iterator<Item = (String, &Curve)> {
        self.systems.iter().map(|c| (c.system.clone(), c)).chain(
            self.seat_blind
                .iter()
                .map(|c| (seat_blind_name(&c.system), c)),
        )
    }
}

/// The name in reports of a system's run without the seats: `NAME (seat-blind)`.
#[must_use]
pub fn seat_blind_name(system: &str) -> String {
    format!("{system} (seat-blind)")
}

/// The reference curves' names as the reports print them.
pub const IDEAL: &str = "ideal";
/// See [`IDEAL`].
pub const MEAN_SCORE: &str = "mean-score";

/// The random stream of trial `trial`: ChaCha8 seeded with `seed`, on stream `trial`.
#[must_use]
pub fn trial_stream(seed: u64, trial: u32) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(u64::from(trial));
    rng
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sme() -> Box<dyn RatingSystem> {
        podium::system("sme", &podium::Settings::new()).unwrap()
    }

    #[test]
    fn a_simulation_stopped_by_its_caller_runs_no_further_trial() {
        let sim = Simulation {
            rounds: vec![1],
            trials: 40,
            ..Simulation::default()
        };
        let sys = sme();
        let stop = AtomicBool::new(true);
        assert!(matches!(
            sim.run_until(&[&*sys], &stop),
            Err(SimulationError::Stopped)
        ));
        stop.store(false, Ordering::Relaxed);
        let r = sim.run_until(&[&*sys], &stop).unwrap();
        assert_eq!(r.systems, sim.run(&[&*sys]).unwrap().systems);
    }

    #[test]
    fn ideal_is_the_seed_value() {
        let sim = Simulation {
            rounds: vec![0],
            trials: 1,
            ..Simulation::default()
        };
        let r = sim.run(&[]).unwrap();
        // Exact: mean over the 45 pairs of Φ(100k / (200 √2)).
        assert!((r.ideal - 0.845_7).abs() < 1e-4, "{}", r.ideal);
    }

    #[test]
    fn same_numbers_for_any_thread_count() {
        let s = sme();
        let base = Simulation {
            rounds: vec![1, 3, 10],
            trials: 300,
            seed: 42,
            ..Simulation::default()
        };
        let one = Simulation {
            threads: 1,
            ..base.clone()
        }
        .run(&[&*s])
        .unwrap();
        let two = Simulation { threads: 2, ..base }.run(&[&*s]).unwrap();
        assert_eq!(one, two);
    }

    #[test]
    fn another_seed_gives_other_numbers() {
        let s = sme();
        let a = Simulation {
            rounds: vec![2],
            trials: 50,
            seed: 1,
            ..Simulation::default()
        }
        .run(&[&*s])
        .unwrap();
        let b = Simulation {
            rounds: vec![2],
            trials: 50,
            seed: 2,
            ..Simulation::default()
        }
        .run(&[&*s])
        .unwrap();
        assert_ne!(a.systems[0].values, b.systems[0].values);
    }

    #[test]
    fn elo_is_not_applicable_to_ten_players_but_runs_with_two() {
        let elo = podium::system("elo", &podium::Settings::new()).unwrap();
        let r = Simulation {
            rounds: vec![1],
            trials: 10,
            ..Simulation::default()
        }
        .run(&[&*elo])
        .unwrap();
        let why = r.systems[0].values.as_ref().unwrap_err();
        assert!(why.contains("exactly 2"), "{why}");
        let r = Simulation {
            true_ratings: vec![1400.0, 1600.0],
            rounds: vec![1, 50],
            trials: 200,
            ..Simulation::default()
        }
        .run(&[&*elo])
        .unwrap();
        let v = r.systems[0].values.as_ref().unwrap();
        assert!(v[1] > 0.6 && v[1] <= r.ideal + 1e-12, "{v:?}");
    }

    #[test]
    fn mean_score_approaches_ideal() {
        let r = Simulation {
            rounds: vec![0, 1000],
            trials: 20,
            ..Simulation::default()
        }
        .run(&[])
        .unwrap();
        assert!((r.mean_score[0] - 0.5).abs() < 1e-12);
        assert!((r.mean_score[1] - r.ideal).abs() < 0.002);
    }

    #[test]
    fn bad_settings_are_errors() {
        let e = Simulation {
            true_ratings: vec![1.0],
            ..Simulation::default()
        }
        .run(&[])
        .unwrap_err();
        assert_eq!(e, SimulationError::TooFewPlayers { found: 1 });
        // Refused before any table of pairs is made.
        let e = Simulation {
            true_ratings: vec![1500.0; 50_000],
            ..Simulation::default()
        }
        .run(&[])
        .unwrap_err();
        assert_eq!(
            e,
            SimulationError::TooManyPlayers {
                found: 50_000,
                limit: 1_000
            }
        );
        assert_eq!(
            e.to_string(),
            "a simulation takes at most 1000 players, got 50000"
        );
        let r = Simulation {
            true_ratings: (0..1_000).map(f64::from).collect(),
            rounds: vec![0],
            trials: 1,
            ..Simulation::default()
        }
        .run(&[])
        .unwrap();
        assert!((r.mean_score[0] - 0.5).abs() < 1e-12);
        let e = Simulation {
            sd: 0.0,
            ..Simulation::default()
        }
        .run(&[])
        .unwrap_err();
        assert!(matches!(e, SimulationError::Invalid { setting: "sd", .. }));
        let e = Simulation {
            true_ratings: vec![0.0, f64::NAN],
            ..Simulation::default()
        }
        .run(&[])
        .unwrap_err();
        assert!(matches!(
            e,
            SimulationError::Invalid {
                setting: "true rating",
                ..
            }
        ));
        let e = Simulation {
            sd: 1e300,
            ..Simulation::default()
        }
        .run(&[])
        .unwrap_err();
        assert!(matches!(e, SimulationError::Invalid { setting: "sd", .. }));
    }

    #[test]
    fn regression_a_jitter_beyond_the_systems_range_is_refused_not_a_panic() {
        let sys = sme();
        let run = |jitter: f64| {
            Simulation {
                rounds: vec![1],
                trials: 1,
                jitter,
                ..Simulation::default()
            }
            .run(&[&*sys])
        };
        // 1e308 made the uniform draw's range overflow.
        for (jitter, value) in [
            (1e308, "1e308"),
            (1e20, "1e20"),
            (1e9 + 1.0, "1000000001"),
            (-1.0, "-1"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
        ] {
            let e = run(jitter).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("jitter = {value} is not valid: expected a number ≥ 0 and ≤ 1e9")
            );
        }
        assert!(run(0.0).unwrap().systems[0].values.is_ok());
        assert!(run(1e9).is_ok());
        assert_eq!(
            Simulation {
                sd: 1e300,
                ..Simulation::default()
            }
            .run(&[])
            .unwrap_err()
            .to_string(),
            "sd = 1e300 is not valid: expected a number > 0 and ≤ 1e12"
        );
    }

    #[test]
    fn regression_rounds_and_games_beyond_their_limits_are_refused_before_any_trial() {
        let sim = |rounds: Vec<u32>, trials: u32| Simulation {
            rounds,
            trials,
            ..Simulation::default()
        };
        // A billion rounds ran on unseen, far beyond any curve's settling.
        let e = sim(vec![1, 1_000_000_000], 1).run(&[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "rounds = 1000000000 is not valid: expected rounds ≤ 100000 (the last round a \
             simulation plays to)"
        );
        assert_eq!(
            sim(vec![100_001], 1).validate().unwrap_err().to_string(),
            "rounds = 100001 is not valid: expected rounds ≤ 100000 (the last round a \
             simulation plays to)"
        );
        let e = sim(vec![100_000], 10_001).run(&[]).unwrap_err();
        assert_eq!(
            e,
            SimulationError::TooManyGames {
                trials: 10_001,
                rounds: 100_000,
                limit: MAX_GAMES
            }
        );
        assert_eq!(
            e.to_string(),
            "10001 trials × 100000 rounds = 1000100000 games: a simulation plays at most \
             1000000000 (trials × the last round); give fewer trials or fewer rounds"
        );
        assert_eq!(
            sim(vec![1000], u32::MAX).run(&[]).unwrap_err().to_string(),
            "4294967295 trials × 1000 rounds = 4294967295000 games: a simulation plays at \
             most 1000000000 (trials × the last round); give fewer trials or fewer rounds"
        );
        // Trials that stop at round 0 still draw and measure: bounded alike.
        assert_eq!(
            sim(vec![0], 1_000_000_001)
                .run(&[])
                .unwrap_err()
                .to_string(),
            "trials = 1000000001 is not valid: expected at most 1000000000"
        );
        // At the limits.
        assert_eq!(sim(vec![100_000], 10_000).validate(), Ok(()));
        assert_eq!(sim(vec![0], 1_000_000_000).validate(), Ok(()));
        let r = sim(vec![0, 100_000], 1).run(&[]).unwrap();
        assert_eq!(r.rounds, [0, 100_000]);
        assert!((r.mean_score[1] - r.ideal).abs() < 1e-3);
    }

    #[test]
    fn seats_rated_alike_predict_as_the_seat_blind() {
        let sim = Simulation {
            true_ratings: vec![1400.0, 1450.0, 1500.0, 1600.0],
            seat_advantage: Some(80.0),
            ..Simulation::default()
        };
        let truth = sim.truth();
        let st = truth.seats.as_ref().unwrap();
        let r = [1510.0, 1500.0, 1490.0, 1700.0];
        let seated = seated_ability(&r, &[3.0; 4], st);
        assert!((seated - ability(&r, &truth.p)).abs() < 1e-12);
        // The true ratings with the planted seat: the ideal, above the seat-blind ideal.
        let ideal = seated_ability(&sim.true_ratings, &[80.0, 0.0, 0.0, 0.0], st);
        assert!(ideal > ability(&sim.true_ratings, &truth.p) + 1e-3);
        assert!((learned_seat(&[80.0, 10.0, -10.0, 3.0]) - 79.0).abs() < 1e-12);
        assert!((slope(&[1.0, 2.0, 3.0], &[10.0, 30.0, 50.0]) - 20.0).abs() < 1e-12);
    }

    #[test]
    fn without_seats_nothing_is_seat_blind() {
        let s = sme();
        let r = Simulation {
            rounds: vec![3],
            trials: 5,
            ..Simulation::default()
        }
        .run(&[&*s])
        .unwrap();
        assert!(r.seat_blind.is_empty());
        assert!(r.systems[0].seat.is_none());
    }

    #[test]
    fn a_system_without_factors_is_not_applicable_given_seats() {
        let proportional = podium::system("proportional", &podium::Settings::new()).unwrap();
        let r = Simulation {
            rounds: vec![2],
            trials: 3,
            seat_advantage: Some(50.0),
            ..Simulation::default()
        }
        .run(&[&*proportional])
        .unwrap();
        assert!(r.systems[0].values.is_err());
        assert!(r.seat_blind[0].values.is_ok());
    }

    #[test]
    fn trial_streams_differ() {
        let a: f64 = trial_stream(7, 0).gen();
        let b: f64 = trial_stream(7, 1).gen();
        let a2: f64 = trial_stream(7, 0).gen();
        assert_ne!(a, b);
        assert_eq!(a, a2);
    }
}
