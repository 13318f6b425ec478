//! A league saved after k matches and restored rates the rest exactly as one league
//! rating every match: the ratings, σ, states, learned value, factors and every
//! statistic of the board agree bit for bit, for every registered system. The saved
//! league goes through JSON text on the way, as a program keeps it.
//!
//! And a saved league that does not fit is refused with what is wrong: another system,
//! other parameters, another format or version, a state of another system or shape.

use std::sync::Arc;

use podium::league::saved::{SavedLeague, FORMAT, VERSION};
use podium::{Finish, League, Match, RatingSystem, SaveError, Settings};
use proptest::prelude::*;

/// One entry of a generated match: its players (indices), place, weight of its first
/// member, and car (a factor), if any.
type Spec = (Vec<usize>, u32, bool, Option<usize>);

fn history() -> impl Strategy<Value = (Vec<Vec<Spec>>, bool)> {
    let game = (2..=5usize, 1..=2usize).prop_flat_map(|(n, size)| {
        (
            prop::sample::subsequence((0..14usize).collect::<Vec<_>>(), n * size),
            prop::collection::vec(
                (1..=n as u32, any::<bool>(), prop::option::of(0..3usize)),
                n,
            ),
        )
            .prop_map(move |(players, rest)| {
                players
                    .chunks(size)
                    .zip(rest)
                    .map(|(members, (place, half, car))| (members.to_vec(), place, half, car))
                    .collect::<Vec<Spec>>()
            })
    });
    (prop::collection::vec(game, 1..14), any::<bool>())
}

/// Match `i` of the specs; `factors` gives entries their cars, `timed` a time a day and
/// a half after the last.
fn build(i: usize, specs: &[Spec], factors: bool, timed: bool) -> Match {
    let mut b = Match::builder(format!("m{i}"));
    if timed {
        b = b.time(1_700_000_000 + i as i64 * 129_600);
    }
    for (k, (members, place, half, car)) in specs.iter().enumerate() {
        let finish = Finish::Rank(f64::from(*place));
        b = if members.len() == 1 {
            let w = if *half { 0.5 } else { 1.0 };
            b.weighted_player(format!("p{}", members[0]), finish, w)
        } else {
            b.team(
                format!("t{k}"),
                members.iter().map(|p| format!("p{p}")),
                finish,
            )
        };
        if let (true, Some(c)) = (factors, car) {
            b = b.factor("car", format!("c{c}"));
        }
    }
    b.build().unwrap()
}

/// The league as JSON text: numbers in their shortest form that reads back to the same
/// value, so equal text is equal bits.
fn text(league: &League) -> String {
    serde_json::to_string(&league.save().unwrap()).unwrap()
}

/// Through text and back, as a program saves and loads it.
fn reloaded(league: &League) -> League {
    let saved: SavedLeague = serde_json::from_str(&text(league)).unwrap();
    League::restore(saved).unwrap()
}

/// Rates `games` whole in one league, and in another saved after `k` and restored;
/// checks that both agree bit for bit, and that each match is refused by both or
/// neither.
fn check_split(system: &Arc<dyn RatingSystem>, games: &[Match], k: usize) {
    let name = system.name();
    let mut whole = League::shared(Arc::clone(system));
    let mut first = League::shared(Arc::clone(system));
    for g in &games[..k] {
        let (a, b) = (whole.apply(g), first.apply(g));
        assert_eq!(a.is_ok(), b.is_ok(), "{name}: {}", g.id());
    }
    let mut rest = reloaded(&first);
    assert_eq!(text(&rest), text(&first), "{name}: restored after {k}");
    for g in &games[k..] {
        let (a, b) = (whole.apply(g), rest.apply(g));
        assert_eq!(a.is_ok(), b.is_ok(), "{name}: {}", g.id());
        if let (Ok(a), Ok(b)) = (a, b) {
            assert_eq!(a.changes, b.changes, "{name}: {}", g.id());
        }
    }
    assert_eq!(text(&rest), text(&whole), "{name}: split at {k}");
    assert_eq!(rest.standings(), whole.standings(), "{name}");
    assert_eq!(rest.factor_standings(), whole.factor_standings(), "{name}");
    for (i, p) in whole.players().iter().enumerate() {
        let (a, b) = (whole.current(i), rest.current(i));
        assert_eq!(a.value.to_bits(), b.value.to_bits(), "{name}: {}", p.name);
        assert_eq!(a.sigma.map(f64::to_bits), b.sigma.map(f64::to_bits));
    }
    if let Some(g) = games.last() {
        let (a, b) = (whole.predict(g), rest.predict(g));
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "{name}: prediction");
    }
}

fn every_system() -> Vec<Arc<dyn RatingSystem>> {
    podium::systems()
        .iter()
        .map(|s| Arc::from(podium::system(s.name, &Settings::new()).unwrap()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn a_league_saved_and_restored_rates_the_rest_as_one_league(
        (specs, timed) in history(),
        system in 0..podium::systems().len(),
        split in 0.0..=1.0f64,
    ) {
        let spec = &podium::systems()[system];
        let system: Arc<dyn RatingSystem> = Arc::from(podium::system(spec.name, &Settings::new()).unwrap());
        let factors = system.capabilities().rates_factors;
        let games: Vec<Match> = specs
            .iter()
            .enumerate()
            .map(|(i, s)| build(i, s, factors, timed))
            .collect();
        let k = ((games.len() as f64) * split).round() as usize;
        check_split(&system, &games, k);
    }
}

/// A fixed history of free-for-alls, ties, teams and cars.
fn fixed(factors: bool) -> Vec<Match> {
    (0..12)
        .map(|i| {
            let specs: Vec<Spec> = vec![
                (vec![i % 5], 1, false, Some(i % 3)),
                (vec![(i + 1) % 5, 5 + i % 3], 2, false, Some((i + 1) % 3)),
                (vec![(i + 2) % 5], 2, i % 2 == 0, None),
                (vec![(i + 3) % 5], 4, false, Some(i % 3)),
            ];
            build(i, &specs, factors, true)
        })
        .collect()
}

#[test]
fn every_system_restores_at_every_split_of_a_fixed_history() {
    for system in every_system() {
        let games = fixed(system.capabilities().rates_factors);
        for k in 0..=games.len() {
            check_split(&system, &games, k);
        }
    }
}

#[test]
fn a_system_with_other_parameters_restores_with_them() {
    let settings = Settings::new()
        .with("taus", "0.5,2")
        .with("symmetric", "false");
    let system: Arc<dyn RatingSystem> = Arc::from(podium::system("kalman-mmr", &settings).unwrap());
    let games = fixed(true);
    check_split(&system, &games, 5);
    let mut league = League::shared(system);
    league.apply(&games[0]).unwrap();
    let saved = league.save().unwrap();
    assert_eq!(saved.params["taus"], "0.5,2");
    // The default kalman-mmr is another system.
    let default = Arc::from(podium::system("kalman-mmr", &Settings::new()).unwrap());
    let err = League::restore_with(default, saved).unwrap_err();
    assert!(
        matches!(err, SaveError::OtherParams { ref param, .. } if param == "symmetric"),
        "{err}"
    );
    assert!(err.to_string().contains("symmetric=false"), "{err}");
}

#[test]
fn a_parameter_a_league_was_saved_without_is_read_as_its_default() {
    // A league saved before kalman-mmr had `robust_field` names every parameter but it.
    let mut saved = saved_of("kalman-mmr");
    assert_eq!(saved.params.remove("robust_field").as_deref(), Some("16"));
    let default: Arc<dyn RatingSystem> =
        Arc::from(podium::system("kalman-mmr", &Settings::new()).unwrap());
    let restored = League::restore_with(Arc::clone(&default), saved.clone()).unwrap();
    assert_eq!(restored.matches_rated(), 3);
    assert_eq!(League::restore(saved.clone()).unwrap().matches_rated(), 3);
    // Another value of it is another system.
    let other = Arc::from(
        podium::system("kalman-mmr", &Settings::new().with("robust_field", "8")).unwrap(),
    );
    let err = League::restore_with(other, saved).unwrap_err();
    assert!(
        matches!(err, SaveError::OtherParams { ref param, ref saved, .. } if param == "robust_field" && saved == "16"),
        "{err}"
    );
}

#[test]
fn a_parameter_the_system_no_longer_has_is_refused_by_name() {
    let mut saved = saved_of("kalman-mmr");
    saved.params.insert("retire_z".into(), "10".into());
    let default: Arc<dyn RatingSystem> =
        Arc::from(podium::system("kalman-mmr", &Settings::new()).unwrap());
    let err = League::restore_with(default, saved).unwrap_err();
    assert!(
        matches!(err, SaveError::UnknownParam { ref param, ref saved, .. } if param == "retire_z" && saved == "10"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "the league was saved by kalman-mmr with retire_z=10, a parameter this kalman-mmr \
         does not have; rate the league's history again to go on"
    );
}

fn saved_of(name: &str) -> SavedLeague {
    let system: Arc<dyn RatingSystem> = Arc::from(podium::system(name, &Settings::new()).unwrap());
    let mut league = League::shared(system);
    for g in fixed(true).iter().take(3) {
        league.apply(g).unwrap();
    }
    league.save().unwrap()
}

#[test]
fn a_league_saved_by_another_system_is_refused_by_name() {
    let saved = saved_of("glicko2");
    let kalman = Arc::from(podium::system("kalman-mmr", &Settings::new()).unwrap());
    let err = League::restore_with(kalman, saved).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the league was saved by system glicko2, not kalman-mmr; rate it with glicko2"
    );
}

#[test]
fn data_of_another_kind_or_version_is_refused() {
    let mut saved = saved_of("sme");
    saved.format = "something".into();
    let err = League::restore(saved.clone()).unwrap_err();
    assert!(matches!(err, SaveError::NotALeague { .. }), "{err}");
    assert!(err.to_string().contains(FORMAT), "{err}");
    saved.format = FORMAT.into();
    saved.version = VERSION + 1;
    let err = League::restore(saved).unwrap_err();
    assert!(
        matches!(err, SaveError::Version { found } if found == VERSION + 1),
        "{err}"
    );
}

/// The saved league as JSON, edited by `edit`, read and restored.
fn restore_edited(name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> SaveError {
    let mut v = serde_json::to_value(saved_of(name)).unwrap();
    edit(&mut v);
    let saved: SavedLeague = serde_json::from_value(v).unwrap();
    League::restore(saved).unwrap_err()
}

#[test]
fn a_state_of_another_system_or_shape_is_refused_where_it_is() {
    // A glicko2 state on a kalman-mmr player.
    let err = restore_edited("kalman-mmr", |v| {
        v["players"][1]["state"] = serde_json::json!({"glicko2": {"volatility": 0.06}});
    });
    let msg = err.to_string();
    assert!(
        msg.starts_with("players[1] \"p1\": state: a glicko2 state"),
        "{msg}"
    );
    assert!(msg.contains("kalman-mmr"), "{msg}");
    // A kalman-mmr state with one filter too few.
    let err = restore_edited("kalman-mmr", |v| {
        v["players"][0]["state"]["kalman-mmr"]["bank"]
            .as_array_mut()
            .unwrap()
            .pop();
    });
    assert!(
        err.to_string().contains("filters, where the system has"),
        "{err}"
    );
    // What kalman-mmr learned, with a filter in use beyond its bank.
    let err = restore_edited("kalman-mmr", |v| {
        v["learned"]["kalman-mmr-learned"]["best"] = 99.into();
    });
    assert!(
        err.to_string().starts_with("learned: filter 99 in use"),
        "{err}"
    );
    // Missing.
    let err = restore_edited("kalman-mmr", |v| {
        v.as_object_mut().unwrap().remove("learned");
    });
    assert!(err.to_string().starts_with("learned: missing"), "{err}");
    // A state for a system that keeps none.
    let err = restore_edited("sme", |v| {
        v["players"][0]["state"] = serde_json::json!({"glicko2": {"volatility": 0.06}});
    });
    assert!(
        err.to_string().contains("sme keeps no state per player"),
        "{err}"
    );
}

#[test]
fn a_player_given_twice_or_a_rating_without_sigma_is_refused() {
    let err = restore_edited("sme", |v| {
        let p = v["players"][0].clone();
        v["players"].as_array_mut().unwrap().push(p);
    });
    assert!(err.to_string().ends_with("a player given twice"), "{err}");
    let err = restore_edited("glicko", |v| {
        v["players"][2]["rating"]["sigma"] = serde_json::Value::Null;
    });
    assert!(
        err.to_string()
            .starts_with("players[2] \"p5\": sigma: missing"),
        "{err}"
    );
    let err = restore_edited("sme", |v| {
        v["factors"][0]["rating"]["sigma"] = (-1.0).into();
    });
    assert!(
        err.to_string().contains("factors[0] car=c0: sigma"),
        "{err}"
    );
}

#[test]
fn a_league_of_a_system_defined_elsewhere_with_its_own_state_cannot_be_saved() {
    #[derive(Debug)]
    struct Mine;
    #[derive(Debug)]
    struct MyState;
    impl RatingSystem for Mine {
        fn describe(&self) -> podium::Description {
            podium::Description {
                name: "mine",
                params: Vec::new(),
                capabilities: podium::Capabilities::default(),
            }
        }
        fn initial_rating(&self) -> podium::Rating {
            podium::Rating::new(0.0)
        }
        fn rate_into(
            &self,
            prior: &podium::Prior<'_>,
            out: &mut podium::Posterior,
        ) -> Result<(), podium::RateError> {
            *out = podium::Posterior::players(
                prior
                    .ratings
                    .iter()
                    .zip(prior.game.players())
                    .map(|(r, _)| podium::PlayerChange::elo(*r, 0.5, 1.0, 0.5, 1.0))
                    .collect(),
            );
            Ok(())
        }
        fn win_probability(
            &self,
            _: &podium::Rating,
            _: &podium::Rating,
            _: Option<&podium::State>,
        ) -> f64 {
            0.5
        }
        fn initial_learned(&self) -> Option<podium::State> {
            Some(podium::State::new(MyState))
        }
    }
    let league = League::new(Box::new(Mine));
    let err = league.save().unwrap_err();
    assert!(matches!(err, SaveError::NotSaveable { .. }), "{err}");
    assert!(err.to_string().contains("MyState"), "{err}");
}

/// A league saved after seasons began knows it is in one ([`League::seasons`]), whatever
/// the reset; a file saved before seasons were kept, without the field, reads as none.
#[test]
fn a_league_saved_in_a_season_restores_in_it() {
    use podium::season::Reset;
    let sys: Arc<dyn RatingSystem> =
        Arc::from(podium::system("kalman-mmr", &podium::Settings::new()).unwrap());
    let mut league = League::shared(Arc::clone(&sys));
    for game in fixed(false).iter().take(4) {
        league.apply(game).unwrap();
    }
    assert_eq!(reloaded(&league).seasons(), 0);
    assert!(!text(&league).contains("seasons"));
    let resets = [
        Reset::Soft {
            pull: 0.5,
            widen: 0.25,
        },
        Reset::Hard,
        Reset::None,
    ];
    for (n, reset) in resets.iter().enumerate() {
        league = league.new_season(reset).unwrap();
        let back = reloaded(&league);
        assert_eq!(back.seasons(), n as u32 + 1);
        assert_eq!(text(&back), text(&league));
        assert_eq!(
            podium::season::season_standings(&back, podium::Order::Established).len(),
            0
        );
    }
    let mut json: serde_json::Value = serde_json::from_str(&text(&league)).unwrap();
    json.as_object_mut().unwrap().remove("seasons");
    let old: SavedLeague = serde_json::from_value(json).unwrap();
    assert_eq!(League::restore_with(sys, old).unwrap().seasons(), 0);
}

#[test]
fn an_elo_mmr_league_saved_without_its_search_sums_restores_and_rates_on() {
    // A player's Elo-MMR state keeps the sums its last search evaluated (`known`), where
    // the next search starts. Leagues saved before it kept them have none: restored,
    // they start from the old belief and reach the same ratings, to the search's
    // tolerance.
    let system: Arc<dyn RatingSystem> =
        Arc::from(podium::system("elo-mmr", &Settings::new()).unwrap());
    let games = fixed(false);
    let mut whole = League::shared(Arc::clone(&system));
    for g in &games[..6] {
        whole.apply(g).unwrap();
    }
    let mut json: serde_json::Value = serde_json::from_str(&text(&whole)).unwrap();
    fn strip(v: &mut serde_json::Value) -> usize {
        match v {
            serde_json::Value::Object(m) => {
                usize::from(m.remove("known").is_some()) + m.values_mut().map(strip).sum::<usize>()
            }
            serde_json::Value::Array(a) => a.iter_mut().map(strip).sum(),
            _ => 0,
        }
    }
    assert!(strip(&mut json) > 0, "the saved states hold their sums");
    let mut older = League::restore(serde_json::from_value(json).unwrap()).unwrap();
    for g in &games[6..] {
        whole.apply(g).unwrap();
        older.apply(g).unwrap();
    }
    for (i, p) in whole.players().iter().enumerate() {
        let (a, b) = (whole.current(i), older.current(i));
        assert!(
            (a.value - b.value).abs() < 1e-9,
            "{}: {} against {}",
            p.name,
            a.value,
            b.value
        );
        assert_eq!(a.sigma, b.sigma, "{}", p.name);
    }
}
