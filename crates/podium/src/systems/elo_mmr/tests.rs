use super::*;
use crate::league::League;
use crate::params::Settings;
use crate::systems::testing::close;
use crate::Finish;

/// A history rated by elo-mmr-py (`scripts/reference/elo_mmr_vectors.py`): contests as
/// (day, players with 1-based places) and every player's final μ, σ and contests rated.
pub struct Case {
    pub name: &'static str,
    pub system: &'static str,
    pub settings: &'static [(&'static str, &'static str)],
    pub contests: &'static [(i64, &'static [(&'static str, u32)])],
    pub expected: &'static [(&'static str, f64, f64, u32)],
}

use super::reference;

fn system(name: &str, settings: &[(&str, &str)]) -> Box<dyn RatingSystem> {
    crate::system(name, &settings.iter().copied().collect::<Settings>()).unwrap()
}

fn contest(id: usize, day: i64, places: &[(&str, u32)]) -> Match {
    let mut b = Match::builder(format!("c{id}")).time(day * 86_400);
    for &(p, place) in places {
        b = b.player(p, Finish::Rank(f64::from(place)));
    }
    b.build().unwrap()
}

#[test]
fn histories_match_elo_mmr_py() {
    for case in reference::CASES {
        let mut league = League::new(system(case.system, case.settings));
        for (i, (day, places)) in case.contests.iter().enumerate() {
            league.apply(&contest(i, *day, places)).unwrap();
        }
        for &(player, mu, sig, contests) in case.expected {
            let r = league.get(player).unwrap().rating;
            assert!(
                (r.value - mu).abs() < 1e-6,
                "{}: {player} μ {} vs {mu}",
                case.name,
                r.value
            );
            assert!(
                (r.sigma.unwrap() - sig).abs() < 1e-9,
                "{}: {player} σ {:?} vs {sig}",
                case.name,
                r.sigma
            );
            assert_eq!(r.games, contests, "{}: {player}", case.name);
        }
    }
}

#[test]
fn a_contest_where_everyone_ties_changes_nothing() {
    let sys = EloMmrConfig::default();
    let game = Match::with_places("t", &[("a", 1), ("b", 1), ("c", 1)]).unwrap();
    let before = [
        Rating::with_sigma(1600.0, 100.0).games(4),
        Rating::with_sigma(1400.0, 200.0),
        sys.initial_rating(),
    ];
    let rated = sys
        .rate(&crate::system::Prior::new(&game, &before).with_states(&[None, None, None]))
        .unwrap();
    assert!(rated.states.is_empty(), "states are kept as they were");
    for (c, b) in rated.changes.iter().zip(&before) {
        assert_eq!(c.after, *b);
    }
}

#[test]
fn one_contest_by_hand() {
    // Two newcomers: σ² grows by 0.2·80², β² = 6·80²; the winner's performance x solves
    // −2 tanh((x − 1500)·a) + 1 − tanh((x − 1500)·a)·… (see `logistic_by_place`); here
    // only the closed-form σ is checked, and the symmetry of the two performances.
    let sys = EloMmrConfig::default();
    let game = Match::ranked("g", &["a", "b"]).unwrap();
    let r = sys.initial_rating();
    let rated = sys
        .rate(&crate::system::Prior::new(&game, &[r, r]).with_states(&[None, None]))
        .unwrap();
    let widened2 = 350.0f64.powi(2) + 0.2 * 80.0f64.powi(2);
    let beta2 = 6.0 * 80.0f64.powi(2);
    let sigma = (1.0 / widened2 + 1.0 / beta2).recip().sqrt();
    for c in &rated.changes {
        close(c.after.sigma.unwrap(), sigma, 1e-9);
    }
    let (a, b) = (&rated.changes[0], &rated.changes[1]);
    close(a.actual - 1500.0, 1500.0 - b.actual, 1e-6);
    close(a.delta(), -b.delta(), 1e-6);
    assert!(a.delta() > 0.0);
    assert_eq!(a.expected, 1500.0);
    let state = rated.states[0].as_ref().unwrap();
    let described = sys.describe_state(state);
    assert_eq!(described[0].name, "performance");
    close(described[0].value, a.actual, 0.0);
    assert_eq!(described.len(), 1);
}

#[test]
fn the_fast_evaluation_equals_the_term_by_term_one() {
    // logistic_by_place against performance_in (the reference's way) on a field with
    // ties, merged terms and both tie rules.
    for split in [false, true] {
        let core = EloMmrConfig {
            split_ties: split,
            ..Default::default()
        }
        .core();
        let terms: Vec<Gauss> = (0..40)
            .map(|i| Gauss {
                mu: 1500.0 + f64::from((i * 37) % 23) * 40.0 - 400.0,
                sig: 200.0 + f64::from(i % 3) * 30.0,
            })
            .collect();
        let places: Vec<usize> = (0..40)
            .map(|i| [1, 1, 3, 4, 4, 4, 7][i % 7] + 7 * (i / 7))
            .collect();
        let field = Field::new(&terms, &places, core.subsample_bucket);
        let logistic = Logistic::new(&field);
        let fast = core.logistic_by_place(&field, &logistic, &places);
        // The windowed way, each window all the terms.
        let all = vec![0..field.merged.len(); places.len()];
        let constants = field.window_constants(&logistic.w_out, &all, &places);
        for (e, &p) in fast.iter().enumerate() {
            let level = core.level(&field, &logistic, &all[e], &places, e);
            let windowed = core.logistic_in(&logistic, all[e].clone(), constants[e], &level, 0.0);
            close(p, windowed, 1e-8);
            // The constant counted term by term.
            let by_term: f64 = (0..field.merged.len())
                .map(|j| {
                    let (less, _, greater) = field.counts(j, places[e]);
                    logistic.w_out[j] * (greater - less)
                })
                .sum();
            close(constants[e], by_term, 1e-12);
        }
    }
}

#[test]
fn a_team_performs_as_its_members_mean_and_weight_scales_the_contest() {
    let sys = EloMmrConfig::default();
    let game = Match::builder("g")
        .team("red", ["a", "b"], Finish::Rank(1.0))
        .player("c", Finish::Rank(2.0))
        .weighted_player("d", Finish::Rank(3.0), 0.5)
        .build()
        .unwrap();
    let before = [
        Rating::with_sigma(1600.0, 100.0),
        Rating::with_sigma(1400.0, 300.0),
        Rating::with_sigma(1500.0, 200.0),
        Rating::with_sigma(1500.0, 200.0),
    ];
    let rated = sys
        .rate(&crate::system::Prior::new(&game, &before).with_states(&[None; 4]))
        .unwrap();
    let c = &rated.changes;
    // Teammates share the team's performance and update their own beliefs with it.
    assert_eq!(c[0].actual, c[1].actual);
    assert!(
        c[0].delta() < c[1].delta(),
        "the stronger, surer member moves less"
    );
    assert!(c[1].after.sigma.unwrap() / 300.0 < c[0].after.sigma.unwrap() / 100.0);
    // The team's term: mean μ 1500, σ² = (100² + 300²)/4 + β².
    let core = sys.core();
    let beta2 = core.perf_var(0.2);
    let terms = [
        Gauss {
            mu: 1500.0,
            sig: (((100f64.powi(2) + 0.2 * 6400.0) + (300f64.powi(2) + 0.2 * 6400.0)) / 4.0
                + beta2)
                .sqrt(),
        },
        Gauss {
            mu: 1500.0,
            sig: (200f64.powi(2) + 0.2 * 6400.0 + beta2).sqrt(),
        },
        Gauss {
            mu: 1500.0,
            sig: (200f64.powi(2) + 0.1 * 6400.0 + core.perf_var(0.1)).sqrt(),
        },
    ];
    let perf = core.performances(&terms, &[1, 2, 3]);
    close(c[0].actual, perf[0], 1e-9);
    close(c[3].actual, perf[2], 1e-9);
    // Half a contest: a noisier performance, so a smaller step than a whole one.
    let whole = sys
        .rate(
            &crate::system::Prior::new(
                &Match::ranked("g", &["x", "c", "d"]).unwrap(),
                &[Rating::with_sigma(1500.0, 200.0); 3],
            )
            .with_states(&[None; 3]),
        )
        .unwrap();
    assert!(c[3].after.sigma.unwrap() > whole.changes[2].after.sigma.unwrap());
}

#[test]
fn aging_adds_the_daily_drift_and_the_contest_adds_the_rest() {
    let sys = EloMmrConfig {
        drift_per_day: 50.0,
        ..Default::default()
    };
    let r = Rating::with_sigma(1500.0, 100.0);
    let aged = sys.age(r, None, None, 8.0);
    close(
        aged.sigma.unwrap(),
        (100.0f64.powi(2) + 400.0).sqrt(),
        1e-12,
    );
    assert_eq!(EloMmrConfig::default().age(r, None, None, 8.0), r);
    // A state at σ 100 rated with the aged rating gets the reference's whole drift:
    // 0.2·80² per contest plus 50 per idle day.
    let state = State::new(sys.core().start(&r, "a").unwrap());
    let game = Match::ranked("g", &["a", "b"]).unwrap();
    let rated = sys
        .rate(&crate::system::Prior::new(&game, &[aged, r]).with_states(&[Some(&state), None]))
        .unwrap();
    let widened = rated.changes[0].after.sigma.unwrap();
    let beta2 = sys.core().perf_var(0.2);
    let expect = (1.0 / (100.0f64.powi(2) + 0.2 * 6400.0 + 400.0) + 1.0 / beta2)
        .recip()
        .sqrt();
    close(widened, expect, 1e-9);
}

#[test]
fn ratings_outside_the_range_are_refused_with_the_range() {
    let sys = EloMmrConfig::default();
    let game = Match::ranked("g", &["ann", "bo"]).unwrap();
    for (bad, what) in [
        (Rating::with_sigma(1e7, 100.0), "rating"),
        (Rating::with_sigma(1500.0, 0.0), "sigma"),
        (Rating::with_sigma(1500.0, 1e9), "sigma"),
    ] {
        let err = sys
            .rate(&crate::system::Prior::new(
                &game,
                &[bad, sys.initial_rating()],
            ))
            .map(|p| p.changes)
            .unwrap_err();
        assert!(
            matches!(&err, RateError::RatingOutOfRange { player, what: w, .. } if player == "ann" && *w == what),
            "{err}"
        );
        assert!(err.to_string().contains(if what == "rating" {
            "−6000 ≤ μ ≤ 9000"
        } else {
            "0.001 ≤ σ ≤ 15000"
        }));
        assert!(sys.initial_state(&bad).is_err());
    }
    assert!(sys.initial_state(&Rating::new(1500.0)).unwrap().is_some());
}

#[test]
fn parameters_are_checked_with_their_ranges() {
    for (key, value) in [
        ("sigma", "0"),
        ("mu", "1e9"),
        ("weight_limit", "0"),
        ("sig_limit", "-1"),
        ("drift_per_day", "-1"),
        ("transfer_speed", "-0.5"),
        ("noob_delay", "0.5,0"),
        ("noob_delay", "a,b"),
        ("subsample_bucket", "0"),
    ] {
        let err = crate::system("elo-mmr", &Settings::new().with(key, value)).unwrap_err();
        assert!(
            matches!(&err, crate::ConfigError::InvalidValue { expected, .. } if expected.contains(" in ") || expected.contains("each")),
            "{key}={value}: {err}"
        );
    }
    let ok = crate::system(
        "elo-mmr",
        &Settings::parse([
            "noob_delay=0.5,0.75",
            "subsample_size=100",
            "subsample_bucket=2",
        ])
        .unwrap(),
    )
    .unwrap();
    let delay = ok
        .describe()
        .params
        .into_iter()
        .find(|p| p.name == "noob_delay")
        .unwrap();
    assert_eq!(delay.value.to_string(), "0.5,0.75");
    assert!(crate::system("elo-mmx", &Settings::new().with("transfer_speed", "1")).is_err());
}

#[test]
fn extreme_fields_stay_finite() {
    // Far-apart ratings at the ends of the range, tiny and huge σ, a lone winner far
    // beyond everyone, partial play: every result a finite number.
    for name in ["elo-mmr", "elo-mmx"] {
        let sys = system(name, &[]);
        let game = Match::builder("g")
            .player("a", Finish::Rank(1.0))
            .player("b", Finish::Rank(2.0))
            .weighted_player("c", Finish::Rank(2.0), 1e-9)
            .player("d", Finish::Rank(4.0))
            .build()
            .unwrap();
        let before = [
            Rating::with_sigma(-6000.0, 0.001),
            Rating::with_sigma(9000.0, 15_000.0),
            Rating::with_sigma(9000.0, 0.001),
            Rating::with_sigma(-6000.0, 15_000.0),
        ];
        let none = [None; 4];
        let rated = sys
            .rate(&crate::system::Prior::new(&game, &before).with_states(&none))
            .unwrap();
        for c in &rated.changes {
            assert!(
                c.after.value.is_finite() && c.actual.is_finite(),
                "{name}: {c:?}"
            );
            assert!(
                c.after.sigma.is_some_and(|s| s.is_finite() && s > 0.0),
                "{name}: {c:?}"
            );
        }
    }
}

#[test]
fn predictions_use_the_performance_noise() {
    let sys = EloMmrConfig::default();
    let a = Rating::with_sigma(1700.0, 80.0);
    let b = Rating::with_sigma(1500.0, 80.0);
    let beta2: f64 = 6.0 * 6400.0;
    let z = 200.0 / (2.0 * 6400.0 + 2.0 * beta2).sqrt();
    let want = 1.0 / (1.0 + (-TANH_MULTIPLIER * z).exp());
    close(sys.win_probability(&a, &b, None), want, 1e-12);
    close(
        sys.win_probability(&a, &b, None) + sys.win_probability(&b, &a, None),
        1.0,
        1e-12,
    );
    let mmx = EloMmxConfig::default();
    close(mmx.win_probability(&a, &b, None), cdf(z), 1e-12);
}

#[test]
fn subsampling_measures_against_the_nearest_terms() {
    let field = Field::new(
        &(0..10)
            .map(|i| Gauss {
                mu: 1000.0 + 100.0 * f64::from(i),
                sig: 200.0,
            })
            .collect::<Vec<_>>(),
        &(1..=10).collect::<Vec<_>>(),
        2.0,
    );
    assert_eq!(field.window(1450.0, 3, 2.0), 4..7);
    assert_eq!(field.window(5000.0, 3, 2.0), 7..10);
    assert_eq!(field.window(0.0, 4, 2.0), 0..4);
    assert_eq!(field.window(1450.0, 100, 2.0), 0..10);
}

#[test]
fn the_history_is_kept_and_bounded_by_subsample_size() {
    let sys = EloMmrConfig {
        subsample_size: 2,
        ..Default::default()
    };
    let mut league = League::new(Box::new(sys));
    for i in 0..4 {
        league
            .apply(&Match::ranked(format!("g{i}"), &["a", "b", "c"]).unwrap())
            .unwrap();
    }
    let kept = league.state(0).unwrap().get::<EloMmrState>().unwrap();
    assert_eq!(kept.performances_kept(), 2);
    let mut full = League::new(Box::new(EloMmrConfig::default()));
    for i in 0..4 {
        full.apply(&Match::ranked(format!("g{i}"), &["a", "b", "c"]).unwrap())
            .unwrap();
    }
    let st = full.state(0).unwrap().get::<EloMmrState>().unwrap();
    assert_eq!(st.performances_kept(), 4);
    assert!(st.belief().mu > 1500.0);
}

#[test]
fn a_factor_widens_its_entry_and_is_updated_from_its_performance() {
    // Two newcomers; the winner's car is worth 0 ± 50 so far.
    for name in ["elo-mmr", "elo-mmx"] {
        let sys = system(name, &[]);
        let race = Match::builder("r1")
            .player("a", Finish::Rank(1.0))
            .factor("car", "red")
            .player("b", Finish::Rank(2.0))
            .build()
            .unwrap();
        let new = Rating::with_sigma(1500.0, 350.0);
        let car = Rating::with_sigma(0.0, 50.0);
        let out = sys
            .rate(&crate::system::Prior::new(&race, &[new, new]).with_factors(&[car]))
            .unwrap();
        // The performances are those of a match without the car in which a's σ holds
        // the car's: √(350² + 50²).
        let wide = Rating::with_sigma(1500.0, (350.0f64.powi(2) + 2500.0).sqrt());
        let plain = sys
            .rate(&crate::system::Prior::new(
                &Match::ranked("r1", &["a", "b"]).unwrap(),
                &[wide, new],
            ))
            .unwrap()
            .changes;
        let (pa, pb) = (plain[0].actual, plain[1].actual);
        close(out.changes[0].actual, pa, 1e-9);
        close(out.changes[1].actual, pb, 1e-9);
        assert!(pa > 1500.0 && pb < 1500.0, "{name}");
        // The car: a Gaussian update with the rest of a's term as noise: σ² 350² plus a
        // contest's drift 0.2·80² plus β² = (1 + 1/0.2)·80².
        let rest = 350.0f64.powi(2) + 0.2 * 6400.0 + 6.0 * 6400.0;
        let precision = 1.0 / 2500.0 + 1.0 / rest;
        close(
            out.factors[0].delta(),
            (pa - 1500.0) / rest / precision,
            1e-9,
        );
        close(
            out.factors[0].after.sigma.unwrap(),
            precision.recip().sqrt(),
            1e-9,
        );
        assert!(out.factors[0].delta() > 0.0 && out.factors[0].delta() < pa - 1500.0);
        // Without factors, nothing changes from the plain update.
        let none = sys
            .rate(
                &crate::system::Prior::new(&Match::ranked("r1", &["a", "b"]).unwrap(), &[new, new])
                    .with_factors(&[]),
            )
            .unwrap();
        let same = sys
            .rate(&crate::system::Prior::new(
                &Match::ranked("r1", &["a", "b"]).unwrap(),
                &[new, new],
            ))
            .unwrap()
            .changes;
        assert_eq!(none.changes, same);
    }
}

#[test]
fn the_sums_a_state_keeps_are_those_of_its_history_where_it_says() {
    // Players of 8 in contests of 5, by a fixed stride, places shuffled the same way;
    // with every history kept, and with at most 3 performances (older ones folded).
    for subsample_size in [0, 3] {
        let sys = EloMmrConfig {
            subsample_size,
            ..Default::default()
        };
        let mut league = League::new(Box::new(sys));
        let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
        for i in 0..40usize {
            let field: Vec<(&str, u32)> = (0..5)
                .map(|k| (names[(i * 3 + k * 5) % 8], ((i * 7 + k * 3) % 5 + 1) as u32))
                .collect();
            league.apply(&contest(i, i as i64, &field)).unwrap();
        }
        for p in 0..names.len() {
            let st = league.state(p).unwrap().get::<EloMmrState>().unwrap();
            let known = st.known.expect("a player who played knows its sums");
            let fresh = tanh_sums(known.x, &st.terms);
            for (kept, fresh) in known.sums.iter().zip(fresh) {
                assert!(
                    (kept - fresh).abs() <= 1e-9 * fresh.abs().max(1e-6),
                    "{subsample_size}: {kept} kept, {fresh} summed again"
                );
            }
            if subsample_size > 0 {
                assert!(st.terms.len() <= subsample_size as usize);
            }
            // The next contest's sums, from those kept: the history aged, its oldest
            // `fold` performances folded, a new one added.
            for fold in 0..=st.terms.len() {
                let mut next = Pending::new(st);
                next.add_noise_best(90.0, 1.0);
                let term = Tanh::new(Gauss {
                    mu: 1620.0,
                    sig: 210.0,
                });
                let start = next.known_with(fold, &term).unwrap();
                let mut terms: Vec<Tanh> = st.terms[fold..].iter().map(|t| next.aged(t)).collect();
                terms.push(term);
                let fresh = tanh_sums(start.x, &terms);
                for (start, fresh) in start.sums.iter().zip(fresh) {
                    assert!(
                        (start - fresh).abs() <= 1e-9 * fresh.abs().max(1e-6),
                        "{subsample_size}, {fold} folded: {start} from the kept sums, {fresh} summed"
                    );
                }
            }
        }
    }
}
