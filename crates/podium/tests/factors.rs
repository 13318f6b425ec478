//! Invariants of factors (the car, the seat, the faction), checked on random histories
//! with proptest, for every system that rates them:
//!
//! - a factor present on every entry of a match changes nothing;
//! - relabelling factor values (and kinds) changes nothing but the labels;
//! - a factor value that is also a player's name is no clash;
//! - no NaN or infinity, players' and factors' ratings alike;
//!
//! and, by hand, what the Elo family does with a factor, and how the systems that rate
//! a factor as a team member pool a factor carried by several entries.

use podium::{Factor, Finish, League, Match, RateError, Rating, RatingSystem, Settings, State};
use proptest::prelude::*;

/// The systems that rate factors, one of each way of doing it.
const SYSTEMS: [&str; 9] = [
    "kalman-mmr",
    "pairwise",
    "trueskill",
    "plackett-luce",
    "sme",
    "glicko",
    "glicko2",
    "elo-mmr",
    "elo-mmx",
];

/// One result of a generated match: player, place, car (index), seat (index, or none).
type Row = (usize, u32, usize, Option<usize>);

fn matches() -> impl Strategy<Value = Vec<Vec<Row>>> {
    let game = (2..=6usize).prop_flat_map(|n| {
        (
            Just(n),
            prop::sample::subsequence((0..10usize).collect::<Vec<_>>(), n),
            prop::collection::vec((1..=n as u32, 0..3usize, prop::option::of(0..4usize)), n),
        )
            .prop_map(|(_, players, rest)| {
                players
                    .into_iter()
                    .zip(rest)
                    .map(|(p, (place, car, seat))| (p, place, car, seat))
                    .collect::<Vec<Row>>()
            })
    });
    prop::collection::vec(game, 1..12)
}

/// Builds match `i` from its rows; `car` and `seat` name a factor index, `common` adds
/// one factor to every entry.
fn build(
    i: usize,
    rows: &[Row],
    car: &dyn Fn(usize) -> Factor,
    seat: &dyn Fn(usize) -> Factor,
    common: Option<&Factor>,
) -> Match {
    let mut b = Match::builder(format!("m{i}"));
    for &(p, place, c, s) in rows {
        b = b.player(format!("p{p}"), Finish::Rank(f64::from(place)));
        let f = car(c);
        b = b.factor(f.kind, f.value);
        if let Some(s) = s {
            let f = seat(s);
            b = b.factor(f.kind, f.value);
        }
        if let Some(f) = common {
            b = b.factor(f.kind.clone(), f.value.clone());
        }
    }
    b.build().unwrap()
}

fn league(name: &str) -> League {
    League::new(podium::system(name, &Settings::new()).unwrap())
}

fn car(c: usize) -> Factor {
    Factor::new("car", format!("c{c}"))
}

fn seat(s: usize) -> Factor {
    Factor::new("seat", format!("{}", s + 1))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_factor_on_every_entry_changes_nothing(history in matches()) {
        for name in SYSTEMS {
            let (mut plain, mut with) = (league(name), league(name));
            let weather = Factor::new("weather", "rain");
            for (i, rows) in history.iter().enumerate() {
                let a = plain.apply(&build(i, rows, &car, &seat, None)).unwrap();
                let b = with.apply(&build(i, rows, &car, &seat, Some(&weather))).unwrap();
                // States are compared by identity in a report: compare what they hold
                // through the ratings and the changes.
                prop_assert_eq!(&a.changes, &b.changes, "{}", name);
                prop_assert_eq!(&a.factors, &b.factors, "{}", name);
            }
            prop_assert_eq!(plain.standings(), with.standings());
            prop_assert_eq!(plain.factor_standings(), with.factor_standings());
        }
    }

    #[test]
    fn relabelling_factor_values_changes_nothing(history in matches(), shift in 1..7usize) {
        // A bijection of cars and seats onto other labels (and another kind name).
        let car2 = |c: usize| Factor::new("vehicle", format!("x{}", (c + shift) % 3));
        let seat2 = |s: usize| Factor::new("chair", format!("s{}", (s + shift) % 4));
        for name in SYSTEMS {
            let (mut a, mut b) = (league(name), league(name));
            for (i, rows) in history.iter().enumerate() {
                let ra = a.apply(&build(i, rows, &car, &seat, None)).unwrap();
                let rb = b.apply(&build(i, rows, &car2, &seat2, None)).unwrap();
                prop_assert_eq!(&ra.changes, &rb.changes, "{}", name);
            }
            prop_assert_eq!(a.standings(), b.standings());
            for f in a.factors() {
                let twin = match f.factor.kind.as_str() {
                    "car" => car2(f.factor.value[1..].parse().unwrap()),
                    _ => seat2(f.factor.value.parse::<usize>().unwrap() - 1),
                };
                let g = b.factors().iter().find(|g| g.factor == twin).unwrap();
                prop_assert_eq!(f.rating, g.rating, "{} {}", name, f.factor);
                prop_assert_eq!(&f.stats, &g.stats);
            }
        }
    }

    #[test]
    fn ratings_stay_finite(history in matches()) {
        for name in SYSTEMS {
            let mut l = league(name);
            for (i, rows) in history.iter().enumerate() {
                l.apply(&build(i, rows, &car, &seat, None)).unwrap();
            }
            for p in l.players() {
                prop_assert!(p.rating.value.is_finite(), "{} {:?}", name, p);
            }
            for f in l.factors() {
                prop_assert!(f.rating.value.is_finite(), "{} {:?}", name, f);
                prop_assert!(f.rating.sigma.is_none_or(|s| s.is_finite() && s > 0.0));
            }
        }
    }
}

#[test]
fn without_factor_ratings_a_system_rates_the_players_alone() {
    // `rate` without factor ratings rates the players as if the entries carried no
    // factors, whatever the match carries (`explain` asks this of every system that
    // expects scores): the same changes as for the match built without them.
    let rows: Vec<Row> = vec![(0, 1, 0, Some(0)), (1, 2, 1, None), (2, 3, 0, Some(1))];
    let with = build(0, &rows, &car, &seat, None);
    let mut b = Match::builder("m0");
    for &(p, place, _, _) in &rows {
        b = b.player(format!("p{p}"), Finish::Rank(f64::from(place)));
    }
    let without = b.build().unwrap();
    for spec in podium::systems() {
        let sys = podium::system(spec.name, &Settings::new()).unwrap();
        let before: Vec<_> = (0..3)
            .map(|i| {
                let mut r = sys.initial_rating();
                r.value += 40.0 * f64::from(i);
                r
            })
            .collect();
        match (
            sys.rate(&podium::Prior::new(&with, &before))
                .map(|p| p.changes),
            sys.rate(&podium::Prior::new(&without, &before))
                .map(|p| p.changes),
        ) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{}", spec.name),
            (Err(a), Err(b)) => assert_eq!(a, b, "{}", spec.name),
            (a, b) => panic!("{}: {a:?} against {b:?}", spec.name),
        }
        let states = fresh_states(sys.as_ref(), &before);
        let refs: Vec<_> = states.iter().map(Option::as_ref).collect();
        let learned = sys.initial_learned();
        let a = sys.rate(
            &podium::Prior::new(&with, &before)
                .with_states(&refs)
                .with_learned(learned.as_ref()),
        );
        let b = sys.rate(
            &podium::Prior::new(&without, &before)
                .with_states(&refs)
                .with_learned(learned.as_ref()),
        );
        match (a, b) {
            (Ok(a), Ok(b)) => assert_eq!(a.changes, b.changes, "{}", spec.name),
            (Err(a), Err(b)) => assert_eq!(a, b, "{}", spec.name),
            (a, b) => panic!("{}: {:?} against {:?}", spec.name, a.err(), b.err()),
        }
    }
}

/// Each player's state as the system starts it from the rating given.
fn fresh_states(sys: &dyn RatingSystem, before: &[Rating]) -> Vec<Option<State>> {
    before
        .iter()
        .map(|r| sys.initial_state(r).unwrap())
        .collect()
}

#[test]
fn rate_refuses_factor_ratings_that_do_not_fit_the_match() {
    // Three entries, two factors that tell them apart (car 0 and car 1; seat 0 and seat 1
    // each on one entry): two factor ratings, no fewer and no more (none rates the
    // players alone).
    let rows: Vec<Row> = vec![(0, 1, 0, Some(0)), (1, 2, 1, None), (2, 3, 0, Some(1))];
    let game = build(0, &rows, &car, &seat, None);
    let n = game.factors().len();
    for name in SYSTEMS {
        let sys = podium::system(name, &Settings::new()).unwrap();
        let before = vec![sys.initial_rating(); 3];
        let states = fresh_states(sys.as_ref(), &before);
        let refs: Vec<_> = states.iter().map(Option::as_ref).collect();
        let learned = sys.initial_learned();
        for given in [n - 1, n + 1] {
            let factors = vec![sys.initial_factor(); given];
            let got = sys.rate(
                &podium::Prior::new(&game, &before)
                    .with_states(&refs)
                    .with_learned(learned.as_ref())
                    .with_factors(&factors),
            );
            assert_eq!(
                got.err(),
                Some(RateError::FactorCountMismatch {
                    expected: n,
                    found: given
                }),
                "{name} given {given}"
            );
        }
        let factors = vec![sys.initial_factor(); n];
        assert!(sys
            .rate(
                &podium::Prior::new(&game, &before)
                    .with_states(&refs)
                    .with_learned(learned.as_ref())
                    .with_factors(&factors)
            )
            .is_ok());
    }
}

#[test]
fn a_factor_named_like_a_player_is_another_thing() {
    // The racing team owned by the driver ann is named after her: two ratings, one of
    // each.
    let mut l = league("pairwise");
    let race = Match::builder("r1")
        .player("ann", Finish::Rank(1.0))
        .factor("owner", "ann")
        .player("bo", Finish::Rank(2.0))
        .factor("owner", "bo-racing")
        .build()
        .unwrap();
    l.apply(&race).unwrap();
    assert_eq!(l.players().len(), 2);
    assert_eq!(l.factors().len(), 2);
    // Strengths 1500 + 0 each: ann gains K/2 = 16, and so does her team.
    assert!((l.get("ann").unwrap().rating.value - 1516.0).abs() < 1e-9);
    let team = l.factor_rating(&Factor::new("owner", "ann"));
    assert!((team.value - 16.0).abs() < 1e-9);
}

#[test]
fn the_elo_family_adds_factors_to_the_entry_by_hand() {
    // pairwise, K 32, scale 400. Car x at +100 (set by an earlier race), then a race
    // of a (car x) ahead of b (car y, new, 0) and c (car x).
    let mut l = league("pairwise");
    let warm = Match::builder("r0")
        .player("z1", Finish::Rank(1.0))
        .factor("car", "x")
        .player("z2", Finish::Rank(2.0))
        .factor("car", "w")
        .build()
        .unwrap();
    l.apply(&warm).unwrap();
    let x = l.factor_rating(&Factor::new("car", "x")).value;
    assert!((x - 16.0).abs() < 1e-9);
    let race = Match::builder("r1")
        .player("a", Finish::Rank(1.0))
        .factor("car", "x")
        .player("b", Finish::Rank(2.0))
        .factor("car", "y")
        .player("c", Finish::Rank(3.0))
        .factor("car", "x")
        .build()
        .unwrap();
    let e = |d: f64| 1.0 / (1.0 + 10f64.powf(-d / 400.0));
    // Entry strengths: a 1516, b 1500, c 1516.
    let (ea, eb, ec) = (e(16.0) + e(0.0), e(-16.0) + e(-16.0), e(0.0) + e(16.0));
    let report = l.apply(&race).unwrap();
    let delta = |i: usize| report.changes[i].1.delta();
    assert!((delta(0) - 32.0 * (2.0 - ea)).abs() < 1e-9);
    assert!((delta(1) - 32.0 * (1.0 - eb)).abs() < 1e-9);
    assert!((delta(2) - 32.0 * (0.0 - ec)).abs() < 1e-9);
    // Car x carries a and c: K·(S − E) with the mean of the two entries' scores.
    let dx = 32.0 * ((2.0 - ea) + (0.0 - ec)) / 2.0;
    let x_after = l.factor_rating(&Factor::new("car", "x")).value;
    assert!((x_after - (16.0 + dx)).abs() < 1e-9);
    assert_eq!(report.factors.len(), 2);
    // Its expected and actual scores, as its history shows them: the entries' means.
    let x_change = report.factors[0].1;
    assert!((x_change.expected - (ea + ec) / 2.0).abs() < 1e-12);
    assert!((x_change.actual - 1.0).abs() < 1e-12);
    let rec = l
        .factors()
        .iter()
        .find(|f| f.factor == Factor::new("car", "x"))
        .unwrap();
    assert_eq!(rec.stats.games, 2);
    assert!((rec.stats.wins - 2.0).abs() < 1e-12);
}

#[test]
fn a_system_that_cannot_rate_factors_says_so_and_changes_nothing() {
    // proportional's ratings are shares of a total: a factor has no place in them.
    let mut l = league("proportional");
    let race = Match::builder("r1")
        .player("a", Finish::Rank(1.0))
        .factor("car", "x")
        .player("b", Finish::Rank(2.0))
        .factor("car", "y")
        .build()
        .unwrap();
    let err = l.apply(&race).unwrap_err();
    assert!(matches!(err, RateError::FactorsUnsupported { .. }), "{err}");
    assert!(err.to_string().contains("proportional"));
    assert!(l.players().is_empty() && l.factors().is_empty());
    assert_eq!(l.matches_rated(), 0);
}

#[test]
fn kalman_mmr_gives_a_factor_its_own_share_of_the_surprise() {
    // Two newcomers at the same prior, the winner's car new: the car takes a share of
    // the winner's gain in proportion to its variance, and both shrink.
    let mut l = league("kalman-mmr");
    let race = Match::builder("r1")
        .player("a", Finish::Rank(1.0))
        .factor("car", "fast")
        .player("b", Finish::Rank(2.0))
        .build()
        .unwrap();
    let report = l.apply(&race).unwrap();
    let a = report.changes[0].1;
    let car = report.factors[0].1;
    assert!(a.delta() > 0.0 && car.delta() > 0.0);
    // Prior variances: player 350², car 50²; the gains are in that ratio.
    let ratio = car.delta() / a.delta();
    assert!((ratio - 2_500.0 / 122_500.0).abs() < 1e-9, "{ratio}");
    assert!(car.after.sigma.unwrap() < 50.0);
}

#[test]
fn a_factor_on_several_entries_weighs_on_each_as_on_one() {
    // TrueSkill and the Weng-Lin family rate a factor as one more member of each entry
    // that carries it. Car x on a and b, then x on a and a car w (as new as x) on b:
    // the players move alike, and x gains what x and w gained, its prior counted once.
    for name in [
        "trueskill",
        "plackett-luce",
        "bradley-terry-part",
        "thurstone-mosteller-full",
    ] {
        let race = |b_car: &str| {
            Match::builder("r1")
                .player("a", Finish::Rank(1.0))
                .factor("car", "x")
                .player("b", Finish::Rank(2.0))
                .factor("car", b_car)
                .player("c", Finish::Rank(3.0))
                .factor("car", "y")
                .build()
                .unwrap()
        };
        let (mut shared, mut apart) = (league(name), league(name));
        let one = shared.apply(&race("x")).unwrap();
        let two = apart.apply(&race("w")).unwrap();
        for (s, t) in one.changes.iter().zip(&two.changes) {
            assert_eq!(s.0, t.0);
            assert!((s.1.after.value - t.1.after.value).abs() < 1e-12, "{name}");
            assert_eq!(s.1.after.sigma, t.1.after.sigma, "{name}");
        }
        let factor = |l: &League, v: &str| l.factor_rating(&Factor::new("car", v));
        let prior = shared.system().initial_factor();
        // The prior as the copies are rated: σ² plus the drift before a match (`tau`,
        // trueskill's `factor_tau`: 25/300 for all four).
        let p0 = 1.0 / (prior.sigma.unwrap().powi(2) + (25.0f64 / 300.0).powi(2));
        let (x, w) = (factor(&apart, "x"), factor(&apart, "w"));
        let (px, pw) = (x.sigma.unwrap().powi(-2), w.sigma.unwrap().powi(-2));
        let p = p0 + (px - p0) + (pw - p0);
        let both = factor(&shared, "x");
        assert!(
            (both.sigma.unwrap().powi(-2) - p).abs() < 1e-9 * p,
            "{name}"
        );
        let mean = (px * x.value + pw * w.value) / p;
        assert!(
            (both.value - mean).abs() < 1e-9,
            "{name}: {} {mean}",
            both.value
        );
        // What x expected and achieved: the means of its two entries'.
        let (xs, xa, wa) = (one.factors[0].1, two.factors[0].1, two.factors[1].1);
        assert!((xs.expected - (xa.expected + wa.expected) / 2.0).abs() < 1e-12);
        assert!((xs.actual - (xa.actual + wa.actual) / 2.0).abs() < 1e-12);
    }
}
