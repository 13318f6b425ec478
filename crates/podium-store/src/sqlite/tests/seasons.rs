//! Seasons through [`Leagues`], on both backends: boards served equal a fresh replay of
//! the ledger season by season, and a closed season's board moves only when a match of
//! that season or an earlier one changes.

use podium::season::Reset;

use super::*;
use crate::{replay_seasons, LedgerEntry, Position, StoreError};

/// 2024-05-01 + `day` days, in Unix seconds.
fn day(day: u8) -> i64 {
    1_714_521_600 + i64::from(day) * 86_400
}

/// Every season's board as served (archived, or live for the current one).
fn served(s: &Leagues, id: LeagueId) -> Vec<Vec<BoardRow>> {
    s.seasons(id)
        .unwrap()
        .iter()
        .map(|season| s.season_board(id, season.number).unwrap())
        .collect()
}

fn assert_same_boards(a: &[Vec<BoardRow>], b: &[Vec<BoardRow>]) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.len(), b.len());
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        prop_assert_eq!(x.len(), y.len(), "season {}: {:?} vs {:?}", k + 1, x, y);
        for (r, q) in x.iter().zip(y) {
            prop_assert_eq!(&r.player, &q.player, "season {}", k + 1);
            prop_assert_eq!(r.games, q.games);
            prop_assert!((r.rating - q.rating).abs() < 1e-9, "{:?} vs {:?}", r, q);
            prop_assert!((r.wins - q.wins).abs() < 1e-9);
            prop_assert_eq!(r.sigma.is_some(), q.sigma.is_some());
            if let (Some(a), Some(b)) = (r.sigma, q.sigma) {
                prop_assert!((a - b).abs() < 1e-9);
            }
        }
    }
    Ok(())
}

/// The boards of a fresh replay of the ledger, season by season: each season's matches
/// rated in a league reset at its start, its final board taken before the next reset.
fn replayed(s: &Leagues, store: &dyn Store, id: LeagueId) -> Vec<Vec<BoardRow>> {
    let info = s.league(id).unwrap();
    let seasons = store.seasons(id).unwrap();
    let d = replay_seasons(
        podium::system(&info.system, &info.config).unwrap(),
        &s.ledger(id).unwrap(),
        &seasons,
    )
    .unwrap();
    let mut boards: Vec<Vec<BoardRow>> = (1..d.season())
        .map(|n| {
            d.archived(if n == 1 {
                1
            } else {
                seasons[n as usize - 2].number
            })
            .unwrap()
            .as_ref()
            .clone()
        })
        .collect();
    boards.push(d.compute_board());
    boards
}

/// The first position where two ledgers differ (an added, voided, corrected or moved
/// match), if any.
fn first_change(before: &[LedgerEntry], after: &[LedgerEntry]) -> Option<Position> {
    let key = |e: &LedgerEntry| (e.key.clone(), e.position(), e.hash.clone());
    let a: std::collections::HashSet<_> = before.iter().map(key).collect();
    let b: std::collections::HashSet<_> = after.iter().map(key).collect();
    a.symmetric_difference(&b).map(|(_, p, _)| *p).min()
}

#[derive(Debug, Clone)]
enum SeasonOp {
    Game(Op),
    /// A new season at day `at` with a reset: 0 hard, 1 soft, 2 none.
    Start {
        at: u8,
        reset: u8,
    },
}

fn season_op() -> impl Strategy<Value = SeasonOp> {
    prop_oneof![
        8 => op().prop_filter("no system change", |o| !matches!(o, Op::Configure(_))).prop_map(SeasonOp::Game),
        2 => (0u8..10, 0u8..3).prop_map(|(at, reset)| SeasonOp::Start { at, reset }),
    ]
}

fn run_season_ops(
    b: Backend,
    system: &str,
    ops: Vec<SeasonOp>,
    timed_league: bool,
) -> Result<(), TestCaseError> {
    let (scratch, s) = temp(b);
    let (id, _) = league(&s, system);
    let mut started = 0;
    for op in ops {
        let ledger = s.ledger(id).unwrap();
        let keys: Vec<String> = ledger.iter().map(|e| e.key.clone()).collect();
        let boards = served(&s, id);
        let starts: Vec<Position> = scratch
            .store
            .seasons(id)
            .unwrap()
            .iter()
            .map(|r| r.start)
            .collect();
        let result = match op {
            SeasonOp::Start { at, reset } => {
                started += 1;
                let reset = match reset {
                    0 => Reset::Hard,
                    1 => Reset::Soft {
                        pull: 0.3,
                        widen: 0.5,
                    },
                    _ => Reset::None,
                };
                s.start_season_at(id, &format!("s{started}"), reset, day(at))
                    .map(|_| ())
            }
            SeasonOp::Game(Op::Append {
                id: key,
                players,
                day,
            }) => {
                let day = timed_league.then(|| day.unwrap_or(0));
                s.append(id, submission(key.map(|k| format!("m{k}")), &players, day))
                    .map(|_| ())
            }
            SeasonOp::Game(Op::Void(i)) if !keys.is_empty() => {
                s.void(id, &keys[i as usize % keys.len()]).map(|_| ())
            }
            SeasonOp::Game(Op::Correct { target, players }) if !keys.is_empty() => {
                let day = timed_league.then_some(target % 10);
                s.correct(
                    id,
                    &keys[target as usize % keys.len()],
                    submission(None, &players, day),
                    true,
                )
                .map(|_| ())
            }
            SeasonOp::Game(_) => Ok(()),
        };
        if let Err(e) = &result {
            prop_assert!(e.is_client_error(), "{e}");
        }
        let now = served(&s, id);
        assert_same_boards(&now, &replayed(&s, &*scratch.store, id))?;
        // A closed season whose end comes at or before the first change keeps its board.
        if let Some(from) = first_change(&ledger, &s.ledger(id).unwrap()) {
            for (k, end) in starts.iter().enumerate() {
                if *end <= from && k < boards.len() - 1 {
                    prop_assert_eq!(&boards[k], &now[k], "season {} changed", k + 1);
                }
            }
        } else {
            for k in 0..boards.len().saturating_sub(1) {
                prop_assert_eq!(&boards[k], &now[k]);
            }
        }
    }
    // Another server reads the same seasons from the ledger.
    let again = open(&(scratch.reopen)());
    assert_same_boards(&served(&again, id), &served(&s, id))?;
    Ok(())
}

proptest! {
    #![proptest_config(property_cases())]

    /// Whatever the appends, voids, corrections and season starts (hard, soft or no
    /// reset; matches dated before a season's start placed by their dates), every
    /// season's board served equals a fresh replay of the ledger season by season, and
    /// a closed season's board changes only when a match of it or of an earlier season
    /// does; the same after reopening the ledger.
    #[test]
    fn season_boards_equal_a_replay_season_by_season_on_sqlite(
        system in prop::sample::select(vec!["sme", "glicko2", "kalman-mmr"]),
        ops in prop::collection::vec(season_op(), 1..40),
        timed_league in any::<bool>(),
    ) {
        run_season_ops(Backend::Sqlite, system, ops, timed_league)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// The same on PostgreSQL.
    #[test]
    fn season_boards_equal_a_replay_season_by_season_on_postgres(
        ops in prop::collection::vec(season_op(), 1..30),
        timed_league in any::<bool>(),
    ) {
        run_season_ops(Backend::Postgres, "sme", ops, timed_league)?;
    }
}

fn a_season_keeps_the_last_board_and_starts_from_its_reset(b: Backend) {
    let (scratch, s) = temp(b);
    let (id, _) = league(&s, "sme");
    s.append(id, sub(Some("g1"), &[("ann", 1), ("bo", 2)]))
        .unwrap();
    s.append(id, sub(Some("g2"), &[("ann", 1), ("cy", 2)]))
        .unwrap();
    let first = s.leaderboard(id).unwrap();
    let info = s.start_season(id, "Spring", Reset::soft()).unwrap();
    assert_eq!(
        (info.number, info.name.as_str(), info.matches),
        (2, "Spring", 0)
    );
    assert!(
        s.leaderboard(id).unwrap().is_empty(),
        "nobody has played in Spring yet"
    );
    assert_eq!(s.season_board(id, 1).unwrap(), first);
    s.append(id, sub(Some("g3"), &[("bo", 1), ("cy", 2)]))
        .unwrap();
    let board = s.leaderboard(id).unwrap();
    assert_eq!(board.len(), 2);
    assert_eq!(s.season_board(id, 2).unwrap(), board);
    // The same through the library: the first season, a soft reset, the second.
    let lib = |games: &[(&str, &[&str])]| {
        let mut l = podium::League::new(podium::system("sme", &podium::Settings::new()).unwrap());
        let mut reset = false;
        for (id, order) in games {
            if *id == "g3" && !reset {
                l = l.new_season(&Reset::soft()).unwrap();
                reset = true;
            }
            l.apply(&podium::Match::ranked(*id, order).unwrap())
                .unwrap();
        }
        l.rating_of("bo").value
    };
    let bo = board.iter().find(|r| r.player == "bo").unwrap();
    let want = lib(&[
        ("g1", &["ann", "bo"]),
        ("g2", &["ann", "cy"]),
        ("g3", &["bo", "cy"]),
    ]);
    assert!((bo.rating - want).abs() < 1e-9, "{bo:?} vs {want}");
    assert_eq!(bo.games, 1);
    let list = s.seasons(id).unwrap();
    assert_eq!(list.iter().map(|x| x.matches).collect::<Vec<_>>(), [2, 1]);
    assert!(list[1].current && !list[0].current);
    // Voiding a match of the first season recomputes it and the next.
    s.void(id, "g2").unwrap();
    assert_eq!(s.season_board(id, 1).unwrap().len(), 2);
    let board = s.leaderboard(id).unwrap();
    let bo = board.iter().find(|r| r.player == "bo").unwrap();
    let want = lib(&[("g1", &["ann", "bo"]), ("g3", &["bo", "cy"])]);
    assert!((bo.rating - want).abs() < 1e-9, "{bo:?} vs {want}");
    // Reopened, the same.
    let again = open(&(scratch.reopen)());
    assert_eq!(again.seasons(id).unwrap(), s.seasons(id).unwrap());
    assert_eq!(again.leaderboard(id).unwrap(), s.leaderboard(id).unwrap());
}

fn bad_seasons_are_refused_and_change_nothing(b: Backend) {
    let (scratch, s) = temp(b);
    let (id, _) = league(&s, "sme");
    s.append(id, sub(Some("g1"), &[("ann", 1), ("bo", 2)]))
        .unwrap();
    s.start_season(id, "Spring", Reset::None).unwrap();
    let bad = [
        (
            "Spring",
            Reset::None,
            "has a season named \"Spring\" already",
        ),
        (
            "Season 1",
            Reset::Hard,
            "has a season named \"Season 1\" already",
        ),
        (
            "  ",
            Reset::Hard,
            "name \"  \" is not valid, expected 1 to 100 characters without control characters",
        ),
        (
            "ctl\u{7}x",
            Reset::Hard,
            "name \"ctl\\u{7}x\" is not valid, expected 1 to 100 characters without control characters",
        ),
        (
            " SPRING ",
            Reset::None,
            "has a season named \"Spring\" already",
        ),
        (
            "season 1",
            Reset::None,
            "has a season named \"Season 1\" already",
        ),
        (
            "Summer",
            Reset::Soft {
                pull: 1.5,
                widen: 0.0,
            },
            "pull is 1.5",
        ),
        (
            "Summer",
            Reset::Soft {
                pull: 0.5,
                widen: -1.0,
            },
            "widen is -1",
        ),
    ];
    for (name, reset, says) in bad {
        let e = s.start_season(id, name, reset).unwrap_err();
        assert!(matches!(e, StoreError::InvalidSeason { .. }), "{e}");
        assert!(e.is_client_error());
        assert!(e.to_string().contains(says), "{e}");
    }
    assert_eq!(scratch.store.seasons(id).unwrap().len(), 1);
    assert_eq!(s.seasons(id).unwrap().len(), 2);
    assert!(matches!(
        s.season_board(id, 3),
        Err(StoreError::SeasonNotFound { number: 3, .. })
    ));
}

/// A match dated before the current season's start goes to the season of its date.
fn a_match_dated_before_the_season_goes_to_its_season(b: Backend) {
    let (_scratch, s) = temp(b);
    let (id, _) = league(&s, "sme");
    s.append(
        id,
        timed(sub(Some("g1"), &[("ann", 1), ("bo", 2)]), "2024-05-01"),
    )
    .unwrap();
    s.start_season_at(id, "June", Reset::Hard, day(31)).unwrap();
    s.append(
        id,
        timed(sub(Some("g2"), &[("cy", 1), ("dee", 2)]), "2024-06-02"),
    )
    .unwrap();
    s.append(
        id,
        timed(sub(Some("late"), &[("bo", 1), ("ann", 2)]), "2024-05-20"),
    )
    .unwrap();
    let list = s.seasons(id).unwrap();
    assert_eq!(list.iter().map(|x| x.matches).collect::<Vec<_>>(), [2, 1]);
    assert_eq!(list[1].start_time.as_deref(), Some("2024-06-01"));
    let first = s.season_board(id, 1).unwrap();
    assert_eq!(first.iter().find(|r| r.player == "ann").unwrap().games, 2);
    let now = s.leaderboard(id).unwrap();
    assert_eq!(
        now.iter().map(|r| r.player.as_str()).collect::<Vec<_>>(),
        ["cy", "dee"]
    );
    // A match without a date is refused, as after any dated match.
    let e = s
        .append(id, sub(Some("undated"), &[("cy", 1), ("ann", 2)]))
        .unwrap_err();
    assert!(matches!(e, StoreError::TimeMismatch { .. }), "{e}");
    assert_eq!(s.ledger(id).unwrap().len(), 3);
}

mod seasons_on_sqlite {
    #[test]
    fn a_season_keeps_the_last_board_and_starts_from_its_reset() {
        super::a_season_keeps_the_last_board_and_starts_from_its_reset(super::Backend::Sqlite)
    }
    #[test]
    fn bad_seasons_are_refused_and_change_nothing() {
        super::bad_seasons_are_refused_and_change_nothing(super::Backend::Sqlite)
    }
    #[test]
    fn a_match_dated_before_the_season_goes_to_its_season() {
        super::a_match_dated_before_the_season_goes_to_its_season(super::Backend::Sqlite)
    }
}

mod seasons_on_postgres {
    #[test]
    fn a_season_keeps_the_last_board_and_starts_from_its_reset() {
        super::a_season_keeps_the_last_board_and_starts_from_its_reset(super::Backend::Postgres)
    }
    #[test]
    fn bad_seasons_are_refused_and_change_nothing() {
        super::bad_seasons_are_refused_and_change_nothing(super::Backend::Postgres)
    }
    #[test]
    fn a_match_dated_before_the_season_goes_to_its_season() {
        super::a_match_dated_before_the_season_goes_to_its_season(super::Backend::Postgres)
    }
}
