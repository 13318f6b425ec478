//! Invariants of the rating systems, checked on random matches with proptest.
//!
//! - point neutrality: `sme`, `pairwise` and `shares` conserve the total rating; `mes`
//!   does among established players of equal rating (see its module docs);
//! - relabelling players, and listing them in another order, changes nothing;
//! - tied players with equal ratings and game counts move equally;
//!
//!   (both for every system but those that reproduce a reference implementation which
//!   links entries to their neighbours in the given order: `trueskill` chains tied teams
//!   with draw factors, and the `-part` Weng-Lin models compare each entry with its
//!   neighbours only, as `trueskill` 0.4.5 and `openskill` 6.2 do; for them, a tied
//!   entry's place within its tie group matters, and only renaming players is free);
//! - no NaN or infinity, whatever the ratings (the systems that remember refuse ratings
//!   outside their range with an error instead; from anywhere inside it, whole histories
//!   stay finite, states included, and renaming players changes nothing).

use podium::{Finish, Match, PlayerChange, RateError, Rating, RatingSystem};
use proptest::prelude::*;
use std::collections::HashMap;

/// One player of a generated free-for-all: rating, place, games played.
#[derive(Debug, Clone, Copy)]
struct Seat {
    rating: f64,
    place: u32,
    games: u32,
}

fn field(max: usize) -> impl Strategy<Value = Vec<Seat>> {
    (2..=max).prop_flat_map(|n| {
        prop::collection::vec(
            (500.0..2500.0f64, 1..=n as u32, 0..12u32).prop_map(|(rating, place, games)| Seat {
                rating,
                place,
                games,
            }),
            n,
        )
    })
}

/// Rates a free-for-all where player `names[i]` has `seats[i]`; input order as given.
fn rate(sys: &dyn RatingSystem, seats: &[Seat], names: &[String]) -> HashMap<String, PlayerChange> {
    try_rate(sys, seats, names).unwrap()
}

/// [`rate`], or the system's error.
fn try_rate(
    sys: &dyn RatingSystem,
    seats: &[Seat],
    names: &[String],
) -> Result<HashMap<String, PlayerChange>, RateError> {
    let mut b = Match::builder("m");
    for (s, n) in seats.iter().zip(names) {
        b = b.player(n.as_str(), Finish::Rank(f64::from(s.place)));
    }
    let m = b.build().unwrap();
    let by_name: HashMap<&str, &Seat> = names.iter().map(String::as_str).zip(seats).collect();
    let before: Vec<Rating> = m
        .players()
        .map(|(_, p)| {
            let s = by_name[p.player.as_str()];
            Rating {
                games: s.games,
                ..sys.initial_rating()
            }
            .with_value(s.rating)
        })
        .collect();
    let changes = sys
        .rate(&podium::Prior::new(&m, &before))
        .map(|p| p.changes)?;
    Ok(m.players()
        .map(|(_, p)| p.player.clone())
        .zip(changes)
        .collect())
}

trait WithValue {
    fn with_value(self, v: f64) -> Self;
}
impl WithValue for Rating {
    fn with_value(mut self, v: f64) -> Self {
        self.value = v;
        self
    }
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("p{i}")).collect()
}

/// Every registered system that can rate a match of `n` entries.
fn systems_for(n: usize) -> Vec<Box<dyn RatingSystem>> {
    podium::systems()
        .iter()
        .filter(|s| n == 2 || s.name != "elo")
        .map(|s| (s.build)(&podium::Settings::new()).unwrap())
        .collect()
}

/// Systems whose result does not depend on the order of tied entries (`ttt`, like
/// `trueskill`, compares neighbours in a chain, so tied entries' order picks the chain).
fn order_free(n: usize) -> Vec<Box<dyn RatingSystem>> {
    const CHAINED: [&str; 4] = [
        "trueskill",
        "ttt",
        "bradley-terry-part",
        "thurstone-mosteller-part",
    ];
    systems_for(n)
        .into_iter()
        .filter(|s| !CHAINED.contains(&s.name()))
        .collect()
}

fn total(changes: &HashMap<String, PlayerChange>) -> f64 {
    changes.values().map(PlayerChange::delta).sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn point_neutral_systems_conserve_rating(seats in field(10)) {
        for name in ["sme", "pairwise", "shares"] {
            let sys = podium::system(name, &podium::Settings::new()).unwrap();
            let c = rate(&*sys, &seats, &names(seats.len()));
            prop_assert!(total(&c).abs() < 1e-9, "{name}: total change {}", total(&c));
        }
        let sys = podium::system("shares", &podium::Settings::from([("winner_takes_all", "true")])).unwrap();
        let c = rate(&*sys, &seats, &names(seats.len()));
        prop_assert!(total(&c).abs() < 1e-9);
    }

    #[test]
    fn mes_is_point_neutral_among_equal_established_players(seats in field(10), r in 500.0..2500.0f64) {
        let seats: Vec<Seat> = seats.iter().map(|s| Seat { rating: r, games: 5 + s.games, ..*s }).collect();
        let sys = podium::system("mes", &podium::Settings::new()).unwrap();
        let c = rate(&*sys, &seats, &names(seats.len()));
        prop_assert!(total(&c).abs() < 1e-9, "total change {}", total(&c));
    }

    #[test]
    fn relabelling_and_reordering_players_changes_nothing(
        seats in field(9),
        perm_seed in any::<u64>(),
    ) {
        let n = seats.len();
        let original = names(n);
        // A permutation of the input order and new names for everyone.
        let mut order: Vec<usize> = (0..n).collect();
        let mut x = perm_seed | 1;
        for i in (1..n).rev() {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            order.swap(i, (x % (i as u64 + 1)) as usize);
        }
        let renamed: Vec<String> = (0..n).map(|i| format!("player-{}", (i * 7 + 3) % 101)).collect();
        let shuffled_seats: Vec<Seat> = order.iter().map(|&i| seats[i]).collect();
        let shuffled_names: Vec<String> = order.iter().map(|&i| renamed[i].clone()).collect();
        for sys in order_free(n) {
            let a = rate(&*sys, &seats, &original);
            let b = rate(&*sys, &shuffled_seats, &shuffled_names);
            for i in 0..n {
                let (da, db) = (a[&original[i]].delta(), b[&renamed[i]].delta());
                prop_assert!((da - db).abs() < 1e-9, "{}: player {i} moved {da} vs {db}", sys.name());
                let (sa, sb) = (a[&original[i]].after.sigma, b[&renamed[i]].after.sigma);
                if let (Some(sa), Some(sb)) = (sa, sb) {
                    prop_assert!((sa - sb).abs() < 1e-9);
                }
            }
        }
    }

    #[test]
    fn tied_players_with_equal_ratings_and_games_move_equally(
        seats in field(9),
        pick in any::<(prop::sample::Index, prop::sample::Index)>(),
    ) {
        let n = seats.len();
        let (i, j) = (pick.0.index(n), pick.1.index(n));
        prop_assume!(i != j);
        let mut seats = seats;
        seats[j] = seats[i];
        for sys in order_free(n) {
            let c = rate(&*sys, &seats, &names(n));
            let (di, dj) = (c[&format!("p{i}")].delta(), c[&format!("p{j}")].delta());
            prop_assert!((di - dj).abs() < 1e-9, "{}: tied players moved {di} and {dj}", sys.name());
        }
    }

    #[test]
    fn renaming_players_changes_nothing_for_any_system(seats in field(9)) {
        let n = seats.len();
        let original = names(n);
        let renamed: Vec<String> = (0..n).map(|i| format!("someone-{}", (i * 7 + 3) % 101)).collect();
        for sys in systems_for(n) {
            let a = rate(&*sys, &seats, &original);
            let b = rate(&*sys, &seats, &renamed);
            for i in 0..n {
                let (ca, cb) = (a[&original[i]], b[&renamed[i]]);
                prop_assert!((ca.delta() - cb.delta()).abs() < 1e-12, "{}", sys.name());
                prop_assert_eq!(ca.after.sigma, cb.after.sigma);
            }
        }
    }

    #[test]
    fn extreme_ratings_give_finite_results(
        n in 2..12usize,
        ratings in prop::collection::vec(prop_oneof![1.0..10.0f64, 1e5..1e7f64, -1e7..-1e5f64], 12),
    ) {
        let seats: Vec<Seat> = (0..n).map(|i| Seat { rating: ratings[i], place: i as u32 + 1, games: 0 }).collect();
        for sys in systems_for(n) {
            if sys.name() == "proportional" && seats.iter().any(|s| s.rating <= 0.0) {
                continue; // rejected with an error, tested in its module
            }
            match try_rate(&*sys, &seats, &names(n)) {
                Ok(changes) => {
                    for (who, c) in changes {
                        prop_assert!(c.after.value.is_finite(), "{}: {who} -> {}", sys.name(), c.after.value);
                        prop_assert!(c.after.sigma.is_none_or(|s| s.is_finite() && s >= 0.0));
                    }
                }
                // Elo-MMR refuses ratings outside the interval where it seeks them, whole
                // and saying so.
                Err(RateError::RatingOutOfRange { system, value, .. }) => {
                    prop_assert!(system.starts_with("elo-mm"), "{system}");
                    prop_assert!(seats.iter().any(|s| s.rating == value));
                }
                Err(e) => prop_assert!(false, "{}: {e}", sys.name()),
            }
        }
    }
}

/// The systems that keep a state per player or an uncertainty of their own.
const REMEMBERING: [&str; 5] = ["elo-mmr", "elo-mmx", "glicko", "glicko2", "kalman-mmr"];

/// Rates a history of free-for-alls (`(player, place)` per match) in a league whose
/// players start at the given ratings, under the names `name(player)`.
fn league_after(
    sys: &str,
    start: &[Rating],
    games: &[Vec<(usize, u32)>],
    name: impl Fn(usize) -> String,
) -> Result<podium::League, RateError> {
    let mut league = podium::League::new(podium::system(sys, &podium::Settings::new()).unwrap());
    for (p, r) in start.iter().enumerate() {
        league.set_initial(&name(p), *r)?;
    }
    for (g, game) in games.iter().enumerate() {
        let places: Vec<(String, u32)> = game.iter().map(|&(p, q)| (name(p), q)).collect();
        league.apply(&Match::with_places(format!("g{g}"), &places).unwrap())?;
    }
    Ok(league)
}

/// Starting ratings anywhere in the range of the systems that remember, σ from the
/// smallest to the largest they take.
fn extreme_start() -> impl Strategy<Value = Vec<Rating>> {
    prop::collection::vec(
        (
            prop_oneof![Just(-6000.0), Just(9000.0), -6000.0..9000.0f64],
            prop_oneof![Just(0.001), Just(15_000.0), 0.001..15_000.0f64],
        )
            .prop_map(|(v, s)| Rating::with_sigma(v, s)),
        9,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Histories from any starting ratings in range stay finite, states and all.
    #[test]
    fn systems_that_remember_stay_finite_over_histories(start in extreme_start(), games in history()) {
        for sys in REMEMBERING {
            let league = league_after(sys, &start, &games, |p| format!("p{p}")).unwrap();
            for p in league.players() {
                prop_assert!(p.rating.value.is_finite(), "{sys}: {} {:?}", p.name, p.rating);
                prop_assert!(p.rating.sigma.is_some_and(|s| s.is_finite() && s > 0.0), "{sys}: {:?}", p.rating);
                let i = league.index_of(&p.name).unwrap();
                let now = league.current(i);
                prop_assert!(now.value.is_finite() && now.sigma.is_some_and(f64::is_finite), "{sys}: {now:?}");
                if let Some(st) = league.state(i) {
                    for v in league.system().describe_state(st) {
                        prop_assert!(v.value.is_finite(), "{sys}: {} {}", v.name, v.value);
                    }
                }
            }
            if let Some(l) = league.learned() {
                for v in league.system().describe_learned(l) {
                    prop_assert!(v.value.is_finite(), "{sys}: {} {}", v.name, v.value);
                }
            }
        }
    }

    /// Renaming every player of a history changes no rating, σ or state of the systems
    /// that remember.
    #[test]
    fn systems_that_remember_ignore_names(games in history()) {
        let start = [Rating::with_sigma(1500.0, 350.0)];
        for sys in REMEMBERING {
            let a = league_after(sys, &start, &games, |p| format!("p{p}")).unwrap();
            let b = league_after(sys, &start, &games, |p| format!("player-{}", (p * 7 + 3) % 101)).unwrap();
            for p in 0..9 {
                let (Some(x), Some(y)) = (a.get(&format!("p{p}")), b.get(&format!("player-{}", (p * 7 + 3) % 101))) else {
                    continue;
                };
                prop_assert_eq!(x.rating, y.rating, "{}", sys);
                let (i, j) = (a.index_of(&x.name).unwrap(), b.index_of(&y.name).unwrap());
                let describe = |l: &podium::League, k: usize| l.state(k).map(|s| l.system().describe_state(s));
                prop_assert_eq!(describe(&a, i), describe(&b, j), "{}", sys);
                prop_assert_eq!(a.current(i), b.current(j), "{}", sys);
            }
            let learned = |l: &podium::League| l.learned().map(|s| l.system().describe_learned(s));
            prop_assert_eq!(learned(&a), learned(&b), "{}", sys);
        }
    }
}

/// A history of free-for-alls over a small pool: each match is `(player, place)` pairs.
fn history() -> impl Strategy<Value = Vec<Vec<(usize, u32)>>> {
    let game = (2..=6usize).prop_flat_map(|n| {
        (
            Just(n).prop_perturb(|n, mut rng| {
                // n distinct players of a pool of 9.
                let mut pool: Vec<usize> = (0..9).collect();
                for i in 0..n {
                    let j = i + (rng.next_u32() as usize) % (pool.len() - i);
                    pool.swap(i, j);
                }
                pool.truncate(n);
                pool
            }),
            prop::collection::vec(1..=n as u32, n),
        )
            .prop_map(|(players, places)| players.into_iter().zip(places).collect())
    });
    prop::collection::vec(game, 1..8)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The fast path of readers that keep players' indices rates exactly as built
    /// matches do, with every system, newcomers and seeded players included.
    #[test]
    fn ranked_matches_rate_as_built_matches(games in history(), seeded in 0..9usize) {
        for spec in podium::systems() {
            let mut built = podium::League::new((spec.build)(&podium::Settings::new()).unwrap());
            let mut ranked = podium::League::new((spec.build)(&podium::Settings::new()).unwrap());
            let seed = Rating { games: 3, ..built.system().initial_rating() }.with_value(1234.5);
            built.set_initial(&format!("p{seeded}"), seed).unwrap();
            ranked.set_initial(&format!("p{seeded}"), seed).unwrap();
            for (g, game) in games.iter().enumerate() {
                let places: Vec<(String, u32)> =
                    game.iter().map(|&(p, place)| (format!("p{p}"), place)).collect();
                let m = Match::with_places(format!("g{g}"), &places).unwrap();
                let a = built.apply(&m).map(|_| ());
                let names: Vec<&str> = m.players().map(|(_, p)| p.player.as_str()).collect();
                let mut slots: Vec<podium::Slot<'_>> = names
                    .iter()
                    .map(|n| match ranked.index_of(n) {
                        Some(i) if g % 2 == 0 => podium::Slot::Known(i),
                        _ => podium::Slot::New(n),
                    })
                    .collect();
                let order: Vec<usize> = m.players().map(|(e, _)| m.place(e)).collect();
                let b = ranked.apply_ranked(m.id(), &mut slots, &order);
                prop_assert_eq!(&a, &b, "{}", spec.name);
                if b.is_ok() {
                    for (slot, name) in slots.iter().zip(&names) {
                        prop_assert_eq!(*slot, podium::Slot::Known(ranked.index_of(name).unwrap()));
                    }
                }
                prop_assert_eq!(built.players(), ranked.players(), "{}", spec.name);
                prop_assert_eq!(built.matches_rated(), ranked.matches_rated());
            }
        }
    }
}

#[test]
fn ranked_matches_refuse_repeats_and_bad_places_and_change_nothing() {
    use podium::{League, MatchError, RateError, Slot};
    let mut league = League::new(podium::system("sme", &podium::Settings::new()).unwrap());
    league
        .apply_ranked("g1", &mut [Slot::New("ann"), Slot::New("bo")], &[1, 2])
        .unwrap();
    let before = league.players().to_vec();
    let repeat = |player: &str| {
        Err(RateError::InvalidMatch {
            source: MatchError::DuplicatePlayer {
                player: player.into(),
            },
        })
    };
    // By index and by id, by two ids, and a newcomer twice.
    let mut a = [Slot::Known(0), Slot::New("bo"), Slot::New("ann")];
    assert_eq!(league.apply_ranked("g2", &mut a, &[1, 2, 3]), repeat("ann"));
    let mut b = [Slot::New("cy"), Slot::New("bo"), Slot::New("cy")];
    assert_eq!(league.apply_ranked("g2", &mut b, &[1, 2, 3]), repeat("cy"));
    // A large match: repeats by index, by id, and of a newcomer.
    let names: Vec<String> = (0..20).map(|i| format!("n{i}")).collect();
    let places: Vec<usize> = (1..=21).collect();
    let large = |last: Slot<'static>| {
        let mut slots: Vec<Slot<'_>> = names.iter().map(|n| Slot::New(n.as_str())).collect();
        slots[3] = Slot::Known(1);
        slots.push(last);
        slots
    };
    for (last, who) in [
        (Slot::Known(1), "bo"),
        (Slot::New("bo"), "bo"),
        (Slot::Known(0), "ann"),
    ] {
        let mut slots = large(last);
        slots[7] = Slot::New("ann");
        assert_eq!(league.apply_ranked("g2", &mut slots, &places), repeat(who));
    }
    let mut slots = large(Slot::New("n3"));
    slots[9] = Slot::New("n3");
    assert_eq!(league.apply_ranked("g2", &mut slots, &places), repeat("n3"));
    for bad in [&[1, 1, 2][..], &[2, 2, 3], &[1, 2], &[1, 3, 3]] {
        let mut c = [Slot::New("cy"), Slot::New("di"), Slot::New("ed")];
        assert!(
            matches!(
                league.apply_ranked("g2", &mut c, bad),
                Err(RateError::InvalidMatch {
                    source: MatchError::InvalidPlaces { .. }
                })
            ),
            "{bad:?}"
        );
    }
    assert_eq!(
        league.apply_ranked("g2", &mut [Slot::New("cy")], &[1]),
        Err(RateError::InvalidMatch {
            source: MatchError::TooFewEntries { found: 1 }
        })
    );
    // elo refuses three entries: nothing of the match is applied.
    let mut elo = League::new(podium::system("elo", &podium::Settings::new()).unwrap());
    let mut c = [Slot::New("cy"), Slot::New("di"), Slot::New("ed")];
    assert!(matches!(
        elo.apply_ranked("g", &mut c, &[1, 2, 3]),
        Err(RateError::WrongEntryCount { .. })
    ));
    assert!(elo.players().is_empty());
    assert_eq!(league.players(), &before[..]);
    assert_eq!(league.matches_rated(), 1);
    // And a large match of distinct players is rated.
    let mut slots = large(Slot::New("zed"));
    league.apply_ranked("g3", &mut slots, &places).unwrap();
    assert_eq!(league.players().len(), 2 + 20);
    assert_eq!(league.matches_rated(), 2);
}
