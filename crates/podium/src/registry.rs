//! The registry of rating systems by name: what `podium systems` lists, and how a program
//! that reads a system's name and settings as text (the command line, the server, the
//! Python package) builds one.
//!
//! ```
//! use podium::Settings;
//! let sys = podium::system("sme", &Settings::parse(["k=24"]).unwrap()).unwrap();
//! assert_eq!(sys.name(), "sme");
//! assert!(podium::systems().iter().any(|s| s.name == "trueskill"));
//! ```

use std::fmt;

use crate::error::ConfigError;
use crate::params::{Configure, Param, Settings};
use crate::system::RatingSystem;
use crate::systems::{
    elo, elo_mmr, glicko, glicko2, kalman_mmr, mes, pairwise, proportional, shares, sme, trueskill,
    weng_lin, whitewhale,
};

/// A registered system: its name, what it is, and how to build it.
#[derive(Clone, Copy)]
pub struct SystemSpec {
    /// The name used on the command line and in the API.
    pub name: &'static str,
    /// One line on what the system does.
    pub summary: &'static str,
    /// Where the system comes from: author, title and year of the work that defines it.
    pub source: &'static str,
    /// The parameters with their default values.
    pub defaults: fn() -> Vec<Param>,
    /// Builds the system from settings applied over its defaults.
    pub build: fn(&Settings) -> Result<Box<dyn RatingSystem>, ConfigError>,
}

impl fmt::Debug for SystemSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SystemSpec")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Builds a boxed system of config type `C` from settings over its defaults.
fn build_boxed<C>(settings: &Settings) -> Result<Box<dyn RatingSystem>, ConfigError>
where
    C: Configure + Default + RatingSystem + 'static,
{
    let mut config = C::default();
    config.apply(settings)?;
    Ok(Box::new(config))
}

/// The default parameters of config type `C`.
fn defaults_of<C: Configure + Default>() -> Vec<Param> {
    C::default().params()
}

/// Every system, in the order `podium systems` lists them.
static REGISTRY: &[SystemSpec] = &[
    SystemSpec {
        name: "elo",
        summary: "classic two-player Elo; matches must have exactly 2 entries",
        source: "Arpad Elo, The Rating of Chessplayers, Past and Present (1978)",
        defaults: defaults_of::<elo::EloConfig>,
        build: build_boxed::<elo::EloConfig>,
    },
    SystemSpec {
        name: "sme",
        summary: "Simple Multiplayer Elo: a virtual game against the entry just above and just below",
        source: "Tom Kerrigan, Multiplayer Elo (Simple Multiplayer Elo), tckerrigan.com",
        defaults: defaults_of::<sme::SmeConfig>,
        build: build_boxed::<sme::SmeConfig>,
    },
    SystemSpec {
        name: "pairwise",
        summary: "every pair of entries is a virtual two-player game",
        source: "Gautam Narula, Building a Multiplayer Elo Rating System (2012), approach 1",
        defaults: defaults_of::<pairwise::PairwiseConfig>,
        build: build_boxed::<pairwise::PairwiseConfig>,
    },
    SystemSpec {
        name: "whitewhale",
        summary: "expectation against the game's average rating, K = 50 / games played",
        source: "Jake Peck, WhiteWhale: A multiplayer Elo rating system (2014)",
        defaults: defaults_of::<whitewhale::WhiteWhaleConfig>,
        build: build_boxed::<whitewhale::WhiteWhaleConfig>,
    },
    SystemSpec {
        name: "proportional",
        summary: "expected score = share of the total rating; the winner scores 1",
        source: "Gautam Narula, Building a Multiplayer Elo Rating System (2012), approach 2",
        defaults: defaults_of::<proportional::ProportionalConfig>,
        build: build_boxed::<proportional::ProportionalConfig>,
    },
    SystemSpec {
        name: "mes",
        summary: "modified expected score 2·E/N against the opponents' mean; provisional period",
        source: "Gautam Narula, Building a Multiplayer Elo Rating System (2012), approach 3: the Game Rating Calculator",
        defaults: defaults_of::<mes::MesConfig>,
        build: build_boxed::<mes::MesConfig>,
    },
    SystemSpec {
        name: "shares",
        summary: "normalized pairwise expectation against position shares (N − p)/C",
        source: "Oliver Brown, Expanding the Elo rating system",
        defaults: defaults_of::<shares::SharesConfig>,
        build: build_boxed::<shares::SharesConfig>,
    },
    SystemSpec {
        name: "plackett-luce",
        summary: "Bayesian μ/σ: Weng-Lin Plackett-Luce over the whole ranking (openskill)",
        source: "Weng & Lin, A Bayesian Approximation Method for Online Ranking, JMLR 2011, alg. 4; openskill 6.2",
        defaults: defaults_of::<weng_lin::PlackettLuceConfig>,
        build: build_boxed::<weng_lin::PlackettLuceConfig>,
    },
    SystemSpec {
        name: "bradley-terry-full",
        summary: "Bayesian μ/σ: Weng-Lin logistic comparisons of every pair of teams (openskill)",
        source: "Weng & Lin, JMLR 2011, alg. 1; openskill 6.2",
        defaults: defaults_of::<weng_lin::BradleyTerryFullConfig>,
        build: build_boxed::<weng_lin::BradleyTerryFullConfig>,
    },
    SystemSpec {
        name: "bradley-terry-part",
        summary: "Bayesian μ/σ: Weng-Lin logistic comparisons of teams within a window of places (openskill)",
        source: "Weng & Lin, JMLR 2011, alg. 1 (partial pairs); openskill 6.2",
        defaults: defaults_of::<weng_lin::BradleyTerryPartConfig>,
        build: build_boxed::<weng_lin::BradleyTerryPartConfig>,
    },
    SystemSpec {
        name: "thurstone-mosteller-full",
        summary: "Bayesian μ/σ: Weng-Lin normal comparisons of every pair, draw margin ε (openskill)",
        source: "Weng & Lin, JMLR 2011, alg. 2; openskill 6.2",
        defaults: defaults_of::<weng_lin::ThurstoneMostellerFullConfig>,
        build: build_boxed::<weng_lin::ThurstoneMostellerFullConfig>,
    },
    SystemSpec {
        name: "thurstone-mosteller-part",
        summary: "Bayesian μ/σ: Weng-Lin normal comparisons of teams within a window of places (openskill)",
        source: "Weng & Lin, JMLR 2011, alg. 2 (partial pairs); openskill 6.2",
        defaults: defaults_of::<weng_lin::ThurstoneMostellerPartConfig>,
        build: build_boxed::<weng_lin::ThurstoneMostellerPartConfig>,
    },
    SystemSpec {
        name: "trueskill",
        summary: "Bayesian μ/σ: TrueSkill factor-graph message passing, any teams, draws, partial play",
        source: "Herbrich, Minka & Graepel, TrueSkill: A Bayesian Skill Rating System, NIPS 2006; trueskill 0.4.5",
        defaults: defaults_of::<trueskill::TrueSkillConfig>,
        build: build_boxed::<trueskill::TrueSkillConfig>,
    },
    SystemSpec { name: "ttt", summary: "Bayesian μ/σ: TrueSkill Through Time filtered forward (each skill a random walk in days); podium history smooths", source: "Dangauthier, Herbrich, Minka & Graepel, TrueSkill Through Time, NIPS 2007; trueskillthroughtime 1.1.0", defaults: defaults_of::<crate::systems::ttt::TttSystem>, build: build_boxed::<crate::systems::ttt::TttSystem> },
    SystemSpec {
        name: "elo-mmr",
        summary: "Bayesian μ/σ for contests of any size: each contest a performance, the rating a robust average of past performances (Elo-MMR, logistic)",
        source: "Ebtekar & Liu, Elo-MMR: A Rating System for Massive Multiplayer Competitions, WWW 2021; elo-mmr-py 2.0 `mmr`",
        defaults: defaults_of::<elo_mmr::EloMmrConfig>,
        build: build_boxed::<elo_mmr::EloMmrConfig>,
    },
    SystemSpec {
        name: "elo-mmx",
        summary: "Elo-MMR with Gaussian performances: each contest a performance, the rating a Gaussian posterior",
        source: "Ebtekar & Liu, Elo-MMR: A Rating System for Massive Multiplayer Competitions, WWW 2021; elo-mmr-py 2.0 `mmx`",
        defaults: defaults_of::<elo_mmr::EloMmxConfig>,
        build: build_boxed::<elo_mmr::EloMmxConfig>,
    },
    SystemSpec {
        name: "glicko",
        summary: "rating and deviation RD: each match a rating period in which every entry played every other",
        source: "Mark E. Glickman, Parameter estimation in large dynamic paired comparison experiments, Applied Statistics 1999",
        defaults: defaults_of::<glicko::GlickoConfig>,
        build: build_boxed::<glicko::GlickoConfig>,
    },
    SystemSpec {
        name: "kalman-mmr",
        summary: "Elo-MMR's performances followed by a bank of Kalman filters; the filter reported, the newcomer prior and the calibration learned from every match",
        source: "Ebtekar & Liu, Elo-MMR: A Rating System for Massive Multiplayer Competitions, WWW 2021; R. E. Kalman, A New Approach to Linear Filtering and Prediction Problems, 1960",
        defaults: defaults_of::<kalman_mmr::KalmanMmrConfig>,
        build: build_boxed::<kalman_mmr::KalmanMmrConfig>,
    },
    SystemSpec {
        name: "glicko2",
        summary: "Glicko with a volatility per player: each match a rating period in which every entry played every other",
        source: "Mark E. Glickman, Example of the Glicko-2 system (2012)",
        defaults: defaults_of::<glicko2::Glicko2Config>,
        build: build_boxed::<glicko2::Glicko2Config>,
    },
];

/// The system podium rates with when none is named: `kalman-mmr`, the most accurate on
/// every real history podium is measured on (`docs/accuracy.md`).
pub const DEFAULT_SYSTEM: &str = "kalman-mmr";

/// Every registered system, in the order `podium systems` lists them.
#[must_use]
pub fn systems() -> &'static [SystemSpec] {
    REGISTRY
}

/// The registered system called `name` (in any case), if there is one.
#[must_use]
pub fn spec(name: &str) -> Option<&'static SystemSpec> {
    let wanted = name.trim();
    REGISTRY
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(wanted))
}

/// Builds the system registered as `name` with `settings` over its defaults.
///
/// ```
/// use podium::Settings;
/// let sys = podium::system("sme", &Settings::new().with("k", "24")).unwrap();
/// assert_eq!(sys.name(), "sme");
/// assert!(podium::system("nope", &Settings::new()).is_err());
/// assert!(podium::system("sme", &Settings::new().with("kk", "1")).is_err());
/// ```
///
/// # Errors
/// [`ConfigError::UnknownSystem`], or the first unknown or invalid setting, or settings
/// that are valid one by one but not together ([`ConfigError::Inconsistent`]).
pub fn system(name: &str, settings: &Settings) -> Result<Box<dyn RatingSystem>, ConfigError> {
    match spec(name) {
        Some(spec) => (spec.build)(settings),
        None => Err(ConfigError::UnknownSystem {
            name: name.to_string(),
            known: REGISTRY
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ParamValue;
    use crate::{League, RateError, Rating};

    #[test]
    fn every_real_parameter_refuses_values_beyond_its_range() {
        for spec in systems() {
            for p in (spec.defaults)() {
                if !matches!(p.value, ParamValue::Float(_)) {
                    continue;
                }
                for bad in ["1e155", "-1e155", "1e10", "inf", "NaN"] {
                    let err = system(spec.name, &Settings::from([(p.name, bad)]))
                        .err()
                        .unwrap_or_else(|| panic!("{} accepts {}={bad}", spec.name, p.name));
                    assert!(
                        matches!(err, ConfigError::InvalidValue { ref expected, .. } if expected.contains(" in ")),
                        "{}: {err}",
                        spec.name
                    );
                }
            }
        }
    }

    /// A rating beyond ±1e9 is refused by every system (a league saves ratings up to
    /// ±1e100, so one taken here could be saved and never restored).
    #[test]
    fn every_system_refuses_an_initial_rating_beyond_its_range() {
        for spec in systems() {
            let mut league = League::new(system(spec.name, &Settings::new()).unwrap());
            for value in [1e200, -1e10] {
                let err = league
                    .set_initial("ann", Rating::with_sigma(value, 100.0))
                    .err()
                    .unwrap_or_else(|| panic!("{} takes a rating of {value}", spec.name));
                assert!(
                    matches!(err, RateError::RatingOutOfRange { what: "rating", .. }),
                    "{}: {err}",
                    spec.name
                );
            }
            assert!(league.get("ann").is_none(), "{}", spec.name);
        }
    }

    #[test]
    fn absurd_sigmas_are_refused_with_the_allowed_range() {
        let err = system("trueskill", &Settings::from([("sigma", "1e155")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "parameter sigma: \"1e155\" is not valid, expected a finite number in [1e-9, 1e9]"
        );
        let err = system("trueskill", &Settings::from([("beta", "1e155")])).unwrap_err();
        assert!(err.to_string().contains("in [1e-9, 1e9]"), "{err}");
        for name in ["trueskill", "plackett-luce", "thurstone-mosteller-full"] {
            let mut league = League::new(system(name, &Settings::new()).unwrap());
            let err = league
                .set_initial("ann", Rating::with_sigma(25.0, 1e155))
                .unwrap_err();
            assert_eq!(
                err,
                RateError::RatingOutOfRange {
                    system: spec(name).unwrap().name,
                    player: "ann".into(),
                    what: "sigma",
                    value: 1e155,
                    allowed: "1e-9 ≤ σ ≤ 1e9".into(),
                }
            );
            assert!(league.get("ann").is_none());
            // Without σ, a newcomer's σ is taken.
            league.set_initial("bo", Rating::new(30.0)).unwrap();
            assert_eq!(
                league.get("bo").unwrap().rating.sigma,
                league.system().initial_rating().sigma
            );
        }
        let mut league = League::new(system("sme", &Settings::new()).unwrap());
        let err = league.set_initial("cy", Rating::new(-2e9)).unwrap_err();
        assert!(
            err.to_string().contains(
                "rating -2000000000 is outside the range system sme can rate (−1e9 ≤ rating ≤ 1e9)"
            ),
            "{err}"
        );
        let mut league = League::new(system("proportional", &Settings::new()).unwrap());
        assert!(league.set_initial("cy", Rating::new(0.0)).is_err());
        league.set_initial("cy", Rating::new(5.0)).unwrap();
    }
}
