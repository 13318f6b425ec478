//! Long and wide histories for the Glicko systems: a rating deviation that stays within
//! a newcomer's, one result that cannot undo thousands, and fields of hundreds or
//! thousands whose order survives a second contest.

use podium::systems::glicko::GlickoConfig;
use podium::systems::glicko2::{Glicko2Config, Glicko2State};
use podium::{League, Match, RatingSystem};
use proptest::prelude::*;

fn position(league: &League, name: &str) -> usize {
    league
        .standings()
        .iter()
        .find(|s| s.player == name)
        .unwrap()
        .position
}

fn rating(league: &League, name: &str) -> f64 {
    league.rating_of(name).value
}

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} is not {b} ± {tol}");
}

/// `hero` wins `wins` two-player matches against 50 rotating opponents.
fn winning_streak(sys: Box<dyn RatingSystem>, wins: usize) -> League {
    let mut league = League::new(sys);
    for m in 0..wins {
        let other = format!("o{}", m % 50);
        league
            .apply(&Match::ranked(format!("g{m}"), &["hero", other.as_str()]).unwrap())
            .unwrap();
    }
    league
}

#[test]
fn glicko2_one_loss_after_twenty_thousand_wins_keeps_the_winner_first() {
    let mut league = winning_streak(Box::new(Glicko2Config::default()), 20_000);
    close(rating(&league, "hero"), 4071.73, 0.01);
    league
        .apply(&Match::ranked("last", &["o1", "hero"]).unwrap())
        .unwrap();
    assert_eq!(position(&league, "hero"), 1);
    close(rating(&league, "hero"), 3590.55, 0.01);
    assert!(league.rating_of("hero").sigma.unwrap() <= 350.0);
}

#[test]
fn glicko2_rd_never_exceeds_the_newcomer_rd() {
    let sys = Glicko2Config::default();
    let mut league = League::new(Box::new(sys));
    let mut highest: f64 = 0.0;
    for m in 0..5_000 {
        let other = format!("o{}", m % 50);
        let order = if m % 997 == 996 {
            [other.as_str(), "hero"]
        } else {
            ["hero", other.as_str()]
        };
        let report = league
            .apply(&Match::ranked(format!("g{m}"), &order).unwrap())
            .unwrap();
        for (_, c) in &report.changes {
            highest = highest.max(c.after.sigma.unwrap());
        }
        let hero = league.index_of("hero").unwrap();
        let vol = league
            .state(hero)
            .unwrap()
            .get::<Glicko2State>()
            .unwrap()
            .volatility;
        assert!(
            vol <= sys.max_volatility,
            "volatility {vol} after match {m}"
        );
    }
    assert!(highest <= sys.rd, "RD {highest}");
    // RD grows while the wins tell nothing, towards the bound.
    close(highest, 339.2478, 1e-3);
}

/// `p0` … `p{n−1}` finish in that order, then play `second`.
fn two_contests(sys: Box<dyn RatingSystem>, n: usize, second: &Match) -> League {
    let mut league = League::new(sys);
    let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
    league.apply(&Match::ranked("c1", &names).unwrap()).unwrap();
    league.apply(second).unwrap();
    league
}

fn all_tied(n: usize) -> Match {
    let places: Vec<(String, u32)> = (0..n).map(|i| (format!("p{i}"), 1)).collect();
    Match::with_places("c2", &places).unwrap()
}

/// Each player's rating is below the rating of the player who finished just ahead of them
/// in the first contest.
fn assert_in_order(league: &League, n: usize) {
    for i in 1..n {
        let (above, below) = (format!("p{}", i - 1), format!("p{i}"));
        assert!(
            rating(league, &above) > rating(league, &below),
            "{above} {} below {below} {}",
            rating(league, &above),
            rating(league, &below)
        );
    }
}

#[test]
fn glicko2_a_leader_who_then_finishes_151st_of_300_stays_above_the_players_he_beat_twice() {
    let mut order: Vec<String> = (1..300).map(|i| format!("p{i}")).collect();
    order.insert(150, "p0".into());
    let league = two_contests(
        Box::new(Glicko2Config::default()),
        300,
        &Match::ranked("c2", &order).unwrap(),
    );
    close(rating(&league, "p0"), 1684.46, 0.01);
    for i in 150..300 {
        assert!(
            rating(&league, "p0") > rating(&league, &format!("p{i}")),
            "p{i}"
        );
    }
    assert_eq!(position(&league, "p0"), 101);
}

#[test]
fn glicko2_an_all_tied_second_contest_of_300_keeps_the_order() {
    let league = two_contests(Box::new(Glicko2Config::default()), 300, &all_tied(300));
    assert_in_order(&league, 300);
    close(rating(&league, "p0"), 1685.73, 0.01);
    close(rating(&league, "p299"), 1314.27, 0.01);
}

#[test]
fn glicko_an_all_tied_second_contest_of_thousands_keeps_the_order() {
    // At 3,000 players Glickman's step alone ranked p61 above p60; at 10,000 p1435 first.
    let league = two_contests(Box::new(GlickoConfig::default()), 3_000, &all_tied(3_000));
    assert_in_order(&league, 3_000);
}

/// A random league: `matches` free-for-alls among `players`, each a list of distinct
/// players in finishing order.
fn leagues() -> impl Strategy<Value = Vec<Vec<usize>>> {
    prop::collection::vec(
        Just((0..8usize).collect::<Vec<_>>())
            .prop_shuffle()
            .prop_flat_map(|all| (2..=all.len()).prop_map(move |k| all[..k].to_vec())),
        1..12,
    )
}

/// The players who finished strictly ahead of every other entry in each match they played.
fn always_first(matches: &[Vec<usize>]) -> Vec<usize> {
    (0..8)
        .filter(|p| {
            let played: Vec<_> = matches.iter().filter(|m| m.contains(p)).collect();
            !played.is_empty() && played.iter().all(|m| m[0] == *p)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_player_who_always_won_ends_at_or_above_the_median(matches in leagues()) {
        for sys in [
            Box::new(GlickoConfig::default()) as Box<dyn RatingSystem>,
            Box::new(Glicko2Config::default()),
        ] {
            let mut league = League::new(sys);
            for (k, m) in matches.iter().enumerate() {
                let names: Vec<String> = m.iter().map(|p| format!("p{p}")).collect();
                league.apply(&Match::ranked(format!("m{k}"), &names).unwrap()).unwrap();
            }
            let mut ratings: Vec<f64> = league.players().iter().map(|p| p.rating.value).collect();
            ratings.sort_by(f64::total_cmp);
            let median = ratings[(ratings.len() - 1) / 2];
            for p in always_first(&matches) {
                let r = rating(&league, &format!("p{p}"));
                prop_assert!(r >= median, "p{p} at {r}, median {median}");
            }
        }
    }
}

#[test]
fn a_weight_near_zero_is_refused_naming_the_range() {
    for w in [5e-324, 1e-310, 1e-12] {
        let err = Match::builder("g")
            .weighted_player("ann", podium::Finish::Rank(1.0), w)
            .player("bo", podium::Finish::Rank(2.0))
            .build()
            .unwrap_err();
        assert!(
            matches!(err, podium::MatchError::InvalidWeight { ref player, weight } if player == "ann" && weight == w),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            format!(
                "player \"ann\": weight {w:e} must be in [1e-9, 1], the share of the match played"
            )
        );
    }
    // The least weight allowed rates in every system that rated the tiny ones wrong.
    for sys in ["kalman-mmr", "elo-mmr", "elo-mmx"] {
        let mut league = League::new(podium::system(sys, &podium::Settings::new()).unwrap());
        let game = Match::builder("g")
            .weighted_player("ann", podium::Finish::Rank(1.0), podium::model::MIN_WEIGHT)
            .player("bo", podium::Finish::Rank(2.0))
            .build()
            .unwrap();
        league.apply(&game).unwrap();
        let ann = league.rating_of("ann");
        assert!(
            ann.value.is_finite() && ann.sigma.unwrap().is_finite(),
            "{sys}: {ann:?}"
        );
    }
}

#[test]
fn a_diverged_rating_is_told_in_plain_words() {
    let err = podium::RateError::Diverged {
        system: "kalman-mmr",
        player: "ann".into(),
        rating: f64::NAN,
        sigma: Some(0.001),
    };
    assert_eq!(
        err.to_string(),
        "system kalman-mmr diverged: player \"ann\" would get a rating of NaN and a σ of 0.001; \
         nothing of this match was applied"
    );
    let err = podium::RateError::Diverged {
        system: "elo",
        player: "bo".into(),
        rating: f64::INFINITY,
        sigma: None,
    };
    assert_eq!(
        err.to_string(),
        "system elo diverged: player \"bo\" would get a rating of inf; nothing of this match was applied"
    );
}
