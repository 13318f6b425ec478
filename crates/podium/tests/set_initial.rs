//! A starting rating is given only to a player id a match could name: an id with
//! surrounding spaces, empty or with a line break is refused as a match refuses it, and
//! the league is left as it was.

use podium::{League, MatchError, RateError, Rating, Settings};

fn league() -> League {
    League::new(podium::system("glicko2", &Settings::new()).unwrap())
}

#[test]
fn an_id_no_match_could_name_is_refused_and_nothing_changes() {
    let mut league = league();
    league.set_initial("ann", Rating::new(1600.0)).unwrap();
    for id in [" ann ", "", "a\nb"] {
        let err = league.set_initial(id, Rating::new(1700.0)).unwrap_err();
        assert!(
            matches!(
                err,
                RateError::InvalidMatch {
                    source: MatchError::InvalidPlayerId { ref player }
                } if player == id
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!(
                "player id {id:?} is not valid, expected 1 to 200 bytes without surrounding \
                 spaces or control characters"
            )
        );
    }
    assert_eq!(league.players().len(), 1);
    assert_eq!(league.players()[0].name, "ann");
    assert_eq!(league.rating_of("ann").value, 1600.0);
}

#[test]
fn the_id_is_checked_before_the_rating() {
    // Both the id and the σ are wrong: the id is named.
    let err = league()
        .set_initial(" ann", Rating::with_sigma(1500.0, 0.0))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "player id \" ann\" is not valid, expected 1 to 200 bytes without surrounding spaces \
         or control characters"
    );
}
