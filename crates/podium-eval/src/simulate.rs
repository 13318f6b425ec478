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
//! ## Reproducibility
//! Trial `i` draws every random number from ChaCha8 seeded with `seed` on stream `i`, and
//! trials are summed in fixed blocks in trial order, so the same settings give the same
//! numbers on any machine and with any number of threads. Every system of a trial sees
//! the same games (common random numbers), which makes the differences between systems
//! sharper than independent runs would.

use podium::{Finish, Match, RatingSystem};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rayon::prelude::*;

/// Trials summed together before the blocks are added up in order.
const BLOCK: u32 = 64;

/// Largest magnitude accepted for true ratings and the score spread.
const LIMIT: f64 = 1e12;

/// The settings of a simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// The players' true ratings (at least 2).
    pub true_ratings: Vec<f64>,
    /// Standard deviation of a player's game score around their true rating.
    pub sd: f64,
    /// Rounds after which predictive ability is measured (0 = before any game).
    pub rounds: Vec<u32>,
    /// Independent trials to average over.
    pub trials: u32,
    /// Seed of the random streams.
    pub seed: u64,
    /// Half-width of the uniform jitter added to each system's initial rating.
    pub jitter: f64,
    /// Worker threads (0 = one per core); never more than one per block of trials.
    pub threads: usize,
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
    /// simulated games (e.g. `elo` with more than two players).
    pub values: Result<Vec<f64>, String>,
}

/// The averaged results of a simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulationReport {
    /// The checkpoint rounds, ascending.
    pub rounds: Vec<u32>,
    /// Trials run.
    pub trials: u32,
    /// Predictive ability of the true ratings (the same at every round).
    pub ideal: f64,
    /// Predictive ability of ranking by mean observed score, per checkpoint.
    pub mean_score: Vec<f64>,
    /// One curve per system, in the order given.
    pub systems: Vec<Curve>,
}

/// Sums of one block of trials.
struct Block {
    /// `systems[s][c]`: sum of predictive ability of system `s` at checkpoint `c`.
    systems: Vec<Vec<f64>>,
    mean_score: Vec<f64>,
    /// First failure per system: (trial, reason).
    failed: Vec<Option<(u32, String)>>,
}

impl Simulation {
    fn validate(&self) -> Result<(), SimulationError> {
        if self.true_ratings.len() < 2 {
            return Err(SimulationError::TooFewPlayers {
                found: self.true_ratings.len(),
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
                value: t.to_string(),
                expected: "a number between -1e12 and 1e12",
            });
        }
        if self.sd.is_nan() || self.sd <= 0.0 || self.sd > LIMIT {
            return Err(SimulationError::Invalid {
                setting: "sd",
                value: self.sd.to_string(),
                expected: "a number > 0 and ≤ 1e12",
            });
        }
        if !(self.jitter.is_finite() && self.jitter >= 0.0) {
            return Err(SimulationError::Invalid {
                setting: "jitter",
                value: self.jitter.to_string(),
                expected: "a finite number ≥ 0",
            });
        }
        if self.trials == 0 {
            return Err(SimulationError::Invalid {
                setting: "trials",
                value: "0".into(),
                expected: "at least 1",
            });
        }
        if self.rounds.is_empty() {
            return Err(SimulationError::Invalid {
                setting: "rounds",
                value: String::new(),
                expected: "at least one checkpoint round",
            });
        }
        Ok(())
    }

    /// `p[i][j]`: probability that player `i` outscores player `j` in one game.
    fn outscore_probabilities(&self) -> Vec<Vec<f64>> {
        let t = &self.true_ratings;
        let scale = 2.0 * self.sd; // (t_i − t_j) / (sd √2) / √2 for erfc
        t.iter()
            .map(|ti| {
                t.iter()
                    .map(|tj| 0.5 * libm::erfc(-(ti - tj) / scale))
                    .collect()
            })
            .collect()
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
    /// # Errors
    /// [`SimulationError`] for settings out of range. A system that cannot rate the games
    /// is not an error: its [`Curve::values`] holds the reason.
    pub fn run(&self, systems: &[&dyn RatingSystem]) -> Result<SimulationReport, SimulationError> {
        self.validate()?;
        let mut rounds = self.rounds.clone();
        rounds.sort_unstable();
        rounds.dedup();
        let p = self.outscore_probabilities();
        let n = self.true_ratings.len();
        let pairs = (n * (n - 1) / 2) as f64;
        let ideal = ability(&self.true_ratings, &p) / pairs;
        let blocks = self.trials.div_ceil(BLOCK);
        let work = || -> Vec<Block> {
            (0..blocks)
                .into_par_iter()
                .map(|b| {
                    let first = b * BLOCK;
                    let last = (first + BLOCK).min(self.trials);
                    self.block(first..last, &rounds, systems, &p)
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
        let trials = f64::from(self.trials);
        let c = rounds.len();
        let mut sums = vec![vec![0.0; c]; systems.len()];
        let mut mean_score = vec![0.0; c];
        let mut failed: Vec<Option<(u32, String)>> = vec![None; systems.len()];
        for block in results {
            for (s, v) in block.systems.iter().enumerate() {
                for (acc, x) in sums[s].iter_mut().zip(v) {
                    *acc += x;
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
        let curves = systems
            .iter()
            .zip(sums)
            .zip(failed)
            .map(|((sys, s), f)| Curve {
                system: sys.name().to_string(),
                values: match f {
                    Some((_, reason)) => Err(reason),
                    None => Ok(s.iter().map(|x| x / pairs / trials).collect()),
                },
            })
            .collect();
        Ok(SimulationReport {
            rounds,
            trials: self.trials,
            ideal,
            mean_score: mean_score.iter().map(|x| x / pairs / trials).collect(),
            systems: curves,
        })
    }

    fn block(
        &self,
        trials: std::ops::Range<u32>,
        rounds: &[u32],
        systems: &[&dyn RatingSystem],
        p: &[Vec<f64>],
    ) -> Block {
        let c = rounds.len();
        let mut out = Block {
            systems: vec![vec![0.0; c]; systems.len()],
            mean_score: vec![0.0; c],
            failed: vec![None; systems.len()],
        };
        for trial in trials {
            self.trial(trial, rounds, systems, p, &mut out);
        }
        out
    }

    fn trial(
        &self,
        trial: u32,
        rounds: &[u32],
        systems: &[&dyn RatingSystem],
        p: &[Vec<f64>],
        out: &mut Block,
    ) {
        let n = self.true_ratings.len();
        let mut rng = trial_stream(self.seed, trial);
        let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
        let jitter: Vec<f64> = (0..n)
            .map(|_| {
                if self.jitter > 0.0 {
                    rng.gen_range(-self.jitter..=self.jitter)
                } else {
                    0.0
                }
            })
            .collect();
        let mut ratings: Vec<Vec<podium::Rating>> = systems
            .iter()
            .map(|s| {
                let start = s.initial_rating();
                jitter
                    .iter()
                    .map(|j| podium::Rating {
                        value: start.value + j,
                        ..start
                    })
                    .collect()
            })
            .collect();
        // Each player's state in each system that keeps one (none yet: a system builds a
        // newcomer's state from the rating).
        let mut states: Vec<Vec<Option<podium::State>>> = systems
            .iter()
            .map(|s| {
                if s.keeps_state() {
                    vec![None; n]
                } else {
                    Vec::new()
                }
            })
            .collect();
        // What each system learns from every match, for a system that learns.
        let mut learned: Vec<Option<podium::State>> =
            systems.iter().map(|s| s.initial_learned()).collect();
        let mut alive: Vec<bool> = out.failed.iter().map(Option::is_none).collect();
        let dists: Vec<Normal<f64>> = self
            .true_ratings
            .iter()
            .map(|&t| Normal::new(t, self.sd).expect("sd validated"))
            .collect();
        let mut sums = vec![0.0; n];
        let mut scores = vec![0.0; n];
        let mut order: Vec<usize> = (0..n).collect();
        let mut before = Vec::with_capacity(n);
        let mut values = vec![0.0; n];
        let last = *rounds.last().unwrap_or(&0);
        let mut next = 0;
        for round in 0..=last {
            if round > 0 {
                for (i, d) in dists.iter().enumerate() {
                    scores[i] = d.sample(&mut rng);
                    sums[i] += scores[i];
                }
                order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
                let mut builder = Match::builder("round");
                for &i in &order {
                    builder = builder.player(names[i].clone(), Finish::Score(scores[i]));
                }
                let game = builder.build().expect("distinct players, finite scores");
                for (s, sys) in systems.iter().enumerate() {
                    if !alive[s] {
                        continue;
                    }
                    before.clear();
                    before.extend(order.iter().map(|&i| ratings[s][i]));
                    let rated = if states[s].is_empty() && learned[s].is_none() {
                        sys.rate(&game, &before).map(|changes| podium::Rated {
                            changes,
                            states: Vec::new(),
                            learned: None,
                        })
                    } else {
                        let own: Vec<Option<&podium::State>> = order
                            .iter()
                            .map(|&i| states[s].get(i).and_then(Option::as_ref))
                            .collect();
                        sys.rate_with_states(&game, &before, &own, learned[s].as_ref())
                    };
                    match rated {
                        Ok(rated) => {
                            for (&i, ch) in order.iter().zip(rated.changes) {
                                ratings[s][i] = ch.after;
                            }
                            for (&i, st) in order.iter().zip(rated.states) {
                                states[s][i] = st;
                            }
                            if rated.learned.is_some() {
                                learned[s] = rated.learned;
                            }
                        }
                        Err(e) => {
                            alive[s] = false;
                            if out.failed[s].is_none() {
                                out.failed[s] = Some((trial, e.to_string()));
                            }
                        }
                    }
                }
            }
            if next < rounds.len() && rounds[next] == round {
                for (s, r) in ratings.iter().enumerate() {
                    if alive[s] {
                        for (i, (v, x)) in values.iter_mut().zip(r).enumerate() {
                            // A system that learns reports a player as it reads them now.
                            *v = match (&learned[s], states[s].get(i).and_then(Option::as_ref)) {
                                (Some(l), Some(st)) => {
                                    systems[s].age(*x, Some(st), Some(l), 0.0).value
                                }
                                _ => x.value,
                            };
                        }
                        out.systems[s][next] += ability(&values, p);
                    }
                }
                out.mean_score[next] += ability(&sums, p);
                next += 1;
            }
        }
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
    fn trial_streams_differ() {
        let a: f64 = trial_stream(7, 0).gen();
        let b: f64 = trial_stream(7, 1).gen();
        let a2: f64 = trial_stream(7, 0).gen();
        assert_ne!(a, b);
        assert_eq!(a, a2);
    }
}
