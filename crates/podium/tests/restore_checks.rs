//! A saved league whose values were damaged in the file is refused when it is read,
//! with where the value lies and what was expected: a rating or σ the system cannot
//! rate, an id no match could name, a factor no match could carry, statistics rating
//! cannot give, a state outside its system's range, a parameter the system refuses.
//! Nothing is restored then, and the league saved as it was restores.
#![cfg(feature = "serde")]

use std::sync::Arc;

use podium::league::saved::SavedLeague;
use podium::{Finish, League, Match, RatingSystem, SaveError, Settings};
use serde_json::{json, Value};

/// Three matches of four players (`ann` first in the first), each entry with a car.
fn games() -> Vec<Match> {
    let names = ["ann", "bo", "cy", "di"];
    (0..3)
        .map(|i| {
            let mut b = Match::builder(format!("m{i}")).time(1_700_000_000 + i * 86_400);
            for (k, name) in names.iter().enumerate() {
                let place = ((k + i as usize) % 4 + 1) as f64;
                b = b
                    .player(*name, Finish::Rank(place))
                    .factor("car", format!("c{}", k % 2));
            }
            b.build().unwrap()
        })
        .collect()
}

fn system(name: &str) -> Arc<dyn RatingSystem> {
    Arc::from(podium::system(name, &Settings::new()).unwrap())
}

/// The league of `system` after [`games`], saved as JSON.
fn saved_json(name: &str) -> Value {
    let mut league = League::shared(system(name));
    for g in games() {
        league.apply(&g).unwrap();
    }
    serde_json::to_value(league.save().unwrap()).unwrap()
}

fn read(v: Value) -> SavedLeague {
    serde_json::from_value(v).unwrap()
}

/// The message of restoring the saved league of `name` edited by `edit`, which must be
/// the saved-league error of a value that does not fit (`SaveError::Invalid`); the
/// league restores as it was saved.
fn refused(name: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut v = saved_json(name);
    assert!(League::restore(read(v.clone())).is_ok(), "{name}");
    edit(&mut v);
    let err = League::restore(read(v.clone())).unwrap_err();
    assert!(matches!(err, SaveError::Invalid { .. }), "{err:?}");
    let given = League::restore_with(system(name), read(v)).unwrap_err();
    assert_eq!(given.to_string(), err.to_string());
    err.to_string()
}

/// A saved rating is restored as play left it, even past the range a player may be
/// started at or a system takes by hand (a `proportional` loser below 0, here): only
/// numbers whose squares overflow (beyond ±1e100), a negative σ or a missing σ are refused.
#[test]
fn a_rating_play_reached_restores_and_a_sigma_no_arithmetic_takes_is_refused() {
    let system: Arc<dyn RatingSystem> =
        Arc::from(podium::system("proportional", &Settings::new().with("initial", "1")).unwrap());
    let mut league = League::shared(Arc::clone(&system));
    let game = Match::ranked("m0", &["ann", "bo", "cy", "di"]).unwrap();
    league.apply(&game).unwrap();
    let low = league
        .standings()
        .iter()
        .map(|s| s.rating.value)
        .fold(f64::INFINITY, f64::min);
    assert!(low < 0.0, "{low}");
    assert!(league.set_initial("zed", podium::Rating::new(low)).is_err());
    let back = League::restore(league.save().unwrap()).unwrap();
    assert_eq!(back.standings(), league.standings());
    assert_eq!(
        refused("glicko2", |v| v["players"][0]["rating"]["sigma"] =
            json!(-1.0)),
        "players[0] \"ann\": sigma: -1, expected a finite number from 0 to 1e100 (beyond, its square overflows)"
    );
    // Numbers no play reaches from a start within ±1e9.
    assert_eq!(
        refused("trueskill", |v| v["players"][0]["rating"]["sigma"] =
            json!(1e300)),
        "players[0] \"ann\": sigma: 1e300, expected a finite number from 0 to 1e100 (beyond, its square overflows)"
    );
    assert_eq!(
        refused("sme", |v| v["players"][1]["rating"]["value"] = json!(-2e100)),
        "players[1] \"bo\": rating: -2e100, expected a finite number within ±1e100 (beyond, its square overflows)"
    );
    assert_eq!(
        refused("trueskill", |v| v["players"][2]["rating"]["sigma"] =
            json!(null)),
        "players[2] \"cy\": sigma: missing, and the system keeps a σ for every rating"
    );
}

#[test]
fn a_player_id_no_match_could_name_is_refused() {
    assert_eq!(
        refused("glicko2", |v| v["players"][0]["name"] = json!(" ann ")),
        "players[0]: name: player id \" ann \" is not valid, expected 1 to 200 bytes without surrounding spaces or control characters"
    );
    assert_eq!(
        refused("sme", |v| v["players"][2]["name"] = json!("")),
        "players[2]: name: player id \"\" is not valid, expected 1 to 200 bytes without surrounding spaces or control characters"
    );
}

#[test]
fn statistics_that_rating_cannot_give_are_refused() {
    // ann played 3 matches of 4 entries.
    assert_eq!(
        refused("glicko2", |v| v["players"][0]["stats"]["wins"] =
            json!(-50.0)),
        "players[0] \"ann\": stats.wins: -50, expected a number from 0 to the games played (3)"
    );
    assert_eq!(
        refused("glicko2", |v| v["players"][0]["stats"]["wins"] =
            json!(500.0)),
        "players[0] \"ann\": stats.wins: 500, expected a number from 0 to the games played (3)"
    );
    assert_eq!(
        refused("sme", |v| v["players"][1]["stats"]["expected_wins"] = json!(2.0)),
        "players[1] \"bo\": stats.expected_wins: 2, expected a number from 0 to half the games played (1.5)"
    );
    assert_eq!(
        refused("sme", |v| v["players"][1]["stats"]["entries_total"] = json!(5)),
        "players[1] \"bo\": stats.entries_total: 5, expected at least two entries a game played (6), and 0 without games"
    );
    assert_eq!(
        refused("sme", |v| {
            v["players"][1]["stats"]["games"] = json!(0);
            v["players"][1]["stats"]["wins"] = json!(0.0);
            v["players"][1]["stats"]["expected_wins"] = json!(0.0);
        }),
        "players[1] \"bo\": stats.entries_total: 12, expected at least two entries a game played (0), and 0 without games"
    );
    assert_eq!(
        refused("sme", |v| v["players"][3]["stats"]["last_match"] = json!("m\n2")),
        "players[3] \"di\": stats.last_match: match id \"m\\n2\" is not valid, expected at most 200 bytes without surrounding spaces or control characters"
    );
    assert_eq!(
        refused("sme", |v| v["factors"][0]["stats"]["wins"] = json!(7.0)),
        "factors[0] car=c0: stats.wins: 7, expected a number from 0 to the games played (3)"
    );
}

#[test]
fn a_factor_no_match_could_carry_is_refused() {
    assert_eq!(
        refused("sme", |v| v["factors"][0]["factor"]["kind"] = json!("rank")),
        "factors[0]: factor: factor kind \"rank\" is not valid, expected a factor kind that is not the name of a column or field podium reads itself (match, id, time, results, player, rank, score, team, weight, factors, in any case)"
    );
    assert_eq!(
        refused("sme", |v| v["factors"][1]["factor"]["value"] = json!("")),
        "factors[1]: factor: factor \"car\": value \"\" is not valid, expected a factor value: \
         a string of 1 to 200 bytes without surrounding spaces or control characters, or a \
         whole number from -9223372036854775808 to 18446744073709551615"
    );
}

#[test]
fn a_state_outside_its_system_range_is_refused() {
    assert_eq!(
        refused("glicko2", |v| v["players"][1]["state"]["glicko2"]
            ["volatility"] = json!(-0.5)),
        "players[1] \"bo\": state: volatility -0.5, expected a number in (0, 10]"
    );
    assert_eq!(
        refused("glicko2", |v| v["players"][1]["state"]["glicko2"]
            ["volatility"] = json!(0.0)),
        "players[1] \"bo\": state: volatility 0, expected a number in (0, 10]"
    );
    assert_eq!(
        refused("elo-mmr", |v| v["players"][0]["state"]["elo-mmr"]
            ["prior"]["sig"] = json!(0.0)),
        "players[0] \"ann\": state: prior.sig 0, expected a finite number > 0"
    );
    assert_eq!(
        refused("elo-mmr", |v| v["players"][0]["state"]["elo-mmr"]["terms"][0] =
            json!({"mu": 1500.0, "w_arg": 0.0, "w_out": -1.0})),
        "players[0] \"ann\": state: terms[0]: mu 1500, w_arg 0, w_out -1, expected a finite mu and positive finite weights"
    );
    assert_eq!(
        refused("kalman-mmr", |v| v["players"][2]["state"]["kalman-mmr"]["bank"][3] =
            json!([1500.0, 0.0])),
        "players[2] \"cy\": state: bank[3]: mean 1500, variance 0, expected a mean within ±1e100 and a variance above 0 and at most 1e200"
    );
    assert_eq!(
        refused("kalman-mmr", |v| v["players"][0]["state"]["kalman-mmr"]["bank"][0] =
            json!([1e101, 100.0])),
        "players[0] \"ann\": state: bank[0]: mean 1e101, variance 100, expected a mean within ±1e100 and a variance above 0 and at most 1e200"
    );
    assert_eq!(
        refused("kalman-mmr", |v| v["learned"]["kalman-mmr-learned"]
            ["clock"] = json!(-3.0)),
        "learned: clock -3 and debut count 3.994003999, expected numbers ≥ 0"
    );
}

#[test]
fn a_parameter_the_system_refuses_is_named() {
    assert_eq!(
        refused("glicko2", |v| v["params"]["tau"] = json!("-5")),
        "params.tau: \"-5\" is not valid, expected a finite number in [0.01, 10]"
    );
    assert_eq!(
        refused("plackett-luce", |v| {
            v["params"]["weight_min"] = json!("0.9");
            v["params"]["weight_max"] = json!("0.5");
        }),
        "params: system plackett-luce: weight_min (0.9) must not exceed weight_max (0.5)"
    );
}

/// A league of a system built by hand from a config it refuses as text is not saved: it
/// could not be restored.
#[test]
fn a_config_the_system_refuses_is_not_saved() {
    let config = podium::systems::sme::SmeConfig {
        k: -24.0,
        ..Default::default()
    };
    let mut league = League::new(Box::new(config));
    league
        .apply(&Match::ranked("m0", &["ann", "bo"]).unwrap())
        .unwrap();
    let err = league.save().unwrap_err();
    assert!(matches!(err, SaveError::Invalid { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "params.k: \"-24\" is not valid, expected a finite number in (0, 1e9]"
    );
}
