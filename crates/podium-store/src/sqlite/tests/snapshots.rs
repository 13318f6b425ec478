//! Saved ratings through [`Leagues`], on both backends: a league restored from them
//! serves the board of a fresh replay of its ledger, bit for bit, before and after its
//! whole ledger is rated again; saved ratings made stale behind their back, or that
//! cannot be read, are not used.

use podium::season::Reset;

use super::*;
use crate::{replay_seasons, Derived, SnapshotRow, StoreError};

/// 2024-05-01 + `day` days, in Unix seconds.
fn day(day: u8) -> i64 {
    1_714_521_600 + i64::from(day) * 86_400
}

/// A league as saved-league JSON: equal texts are equal leagues, bit for bit.
fn league_json(league: &podium::League) -> String {
    serde_json::to_string(&league.save().unwrap()).unwrap()
}

/// A fresh replay of the league's ledger, with its seasons.
fn fresh(store: &dyn Store, id: LeagueId) -> Derived {
    let row = store.league_row(id).unwrap().unwrap();
    let ledger: Vec<_> = {
        let mut v = Vec::new();
        store
            .scan(id, None, &mut |e| {
                v.push(e);
                Ok(())
            })
            .unwrap();
        v
    };
    replay_seasons(
        podium::system(&row.system, &row.config).unwrap(),
        &ledger,
        &store.seasons(id).unwrap(),
    )
    .unwrap()
}

/// The league served equals `fresh`: its board JSON in both orders, byte for byte, and
/// its league, bit for bit.
fn assert_serves(s: &Leagues, id: LeagueId, fresh: &Derived) -> Result<(), TestCaseError> {
    for order in podium::Order::ALL {
        let served = s.leaderboard_json_in(id, order).unwrap();
        let expected = fresh.board_json_in(order);
        prop_assert_eq!(
            String::from_utf8_lossy(&served.json),
            String::from_utf8_lossy(&expected.json)
        );
    }
    let served = s.read(id, |d| Ok(league_json(d.league()))).unwrap();
    prop_assert_eq!(served, league_json(fresh.league()));
    prop_assert_eq!(s.league(id).unwrap().matches, fresh.matches());
    Ok(())
}

#[derive(Debug, Clone)]
enum SOp {
    Append {
        players: Vec<(u8, u32, Option<u8>)>,
        day: u8,
    },
    Void(u8),
    Correct {
        target: u8,
        players: Vec<(u8, u32, Option<u8>)>,
    },
    Season {
        hard: bool,
        day: u8,
    },
    Save,
}

fn sop() -> impl Strategy<Value = SOp> {
    prop_oneof![
        8 => (players(), 0u8..10).prop_map(|(players, day)| SOp::Append { players, day }),
        1 => (0u8..40).prop_map(SOp::Void),
        1 => (0u8..40, players()).prop_map(|(target, players)| SOp::Correct { target, players }),
        1 => (any::<bool>(), 0u8..10).prop_map(|(hard, day)| SOp::Season { hard, day }),
        1 => Just(SOp::Save),
    ]
}

/// Runs `ops` on a league of `system`, then restarts: restored from what was saved (if
/// still good) it serves what a fresh replay gives, and so again once rated whole; a
/// restart that rates the whole ledger serves the same. With `save_last`, the league is
/// saved after the last change, and the restart must use it.
fn run_restarts(
    scratch: &Scratch,
    system: &str,
    ops: Vec<SOp>,
    timed_league: bool,
    save_last: bool,
) -> Result<(), TestCaseError> {
    let s = Leagues::open_loaded(scratch.store.clone(), small()).unwrap();
    let (id, _) = league(&s, system);
    for (n, op) in ops.into_iter().enumerate() {
        let keys: Vec<String> = s.ledger(id).unwrap().into_iter().map(|e| e.key).collect();
        let result = match op {
            SOp::Append { players, day } => s
                .append(id, submission(None, &players, timed_league.then_some(day)))
                .map(|_| ()),
            SOp::Void(i) if !keys.is_empty() => {
                s.void(id, &keys[i as usize % keys.len()]).map(|_| ())
            }
            SOp::Correct { target, players } if !keys.is_empty() => {
                let day = timed_league.then_some(target % 10);
                s.correct(
                    id,
                    &keys[target as usize % keys.len()],
                    submission(None, &players, day),
                    true,
                )
                .map(|_| ())
            }
            SOp::Season { hard, day: d } => {
                let reset = if hard { Reset::Hard } else { Reset::None };
                s.start_season_at(id, &format!("s{n}"), reset, day(d))
                    .map(|_| ())
            }
            SOp::Save => s.save(id).map(|_| ()),
            _ => Ok(()),
        };
        if let Err(e) = &result {
            prop_assert!(e.is_client_error(), "{e}");
        }
    }
    if save_last {
        s.save(id).unwrap();
    }
    let matches = s.league(id).unwrap().matches;
    drop(s);
    let store = (scratch.reopen)();
    let again = Leagues::open(store.clone(), small()).unwrap();
    let restored = again.restore(id).unwrap();
    let fresh = fresh(&*store, id);
    if save_last && matches > 0 {
        prop_assert!(restored, "saved after the last change, yet not restored");
    }
    if restored {
        assert_serves(&again, id, &fresh)?;
        // The histories come with the whole ledger.
        let history = again.player(id, "p0");
        prop_assert!(
            matches!(history, Err(StoreError::NotReady { .. })),
            "{:?}",
            history.map(|_| ())
        );
        prop_assert!(!again.league(id).unwrap().ready);
        prop_assert!(again.loading().contains(&id));
    }
    again.load(id).unwrap();
    assert_serves(&again, id, &fresh)?;
    // Without the saved ratings: the whole ledger rated.
    let whole = Leagues::open_loaded(store, small()).unwrap();
    assert_serves(&whole, id, &fresh)?;
    Ok(())
}

proptest! {
    #![proptest_config(property_cases())]

    /// Whatever the appends (dated or not, some before later ones), voids, corrections,
    /// seasons and saves, a restart from the saved ratings serves the board and league
    /// of a fresh replay bit for bit, as a restart that rates the whole ledger does: for
    /// `kalman-mmr` and for systems that change only their players' ratings.
    #[test]
    fn a_restart_from_saved_ratings_equals_a_fresh_replay_on_sqlite(
        system in prop::sample::select(vec!["kalman-mmr", "sme", "glicko2", "elo-mmr"]),
        ops in prop::collection::vec(sop(), 1..40),
        timed_league in any::<bool>(),
        save_last in any::<bool>(),
    ) {
        let scratch = Backend::Sqlite.scratch();
        run_restarts(&scratch, system, ops, timed_league, save_last)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// The same on PostgreSQL.
    #[test]
    fn a_restart_from_saved_ratings_equals_a_fresh_replay_on_postgres(
        system in prop::sample::select(vec!["kalman-mmr", "sme"]),
        ops in prop::collection::vec(sop(), 1..30),
        timed_league in any::<bool>(),
        save_last in any::<bool>(),
    ) {
        // A database of its own: the other property's servers, on the database they
        // share, load and follow every league in it, this one's too.
        static OWN: std::sync::OnceLock<Scratch> = std::sync::OnceLock::new();
        let scratch = OWN.get_or_init(|| Backend::Postgres.scratch());
        run_restarts(scratch, system, ops, timed_league, save_last)?;
    }
}

/// A league of `system` with 10 dated matches among four players, saved at its end.
fn saved_league(b: Backend, system: &str) -> (Scratch, LeagueId, SnapshotRow) {
    let scratch = b.scratch();
    let s = Leagues::open_loaded(scratch.store.clone(), small()).unwrap();
    let (id, _) = league(&s, system);
    let names = ["ann", "bo", "cy", "dee"];
    for k in 0..10u8 {
        let (a, b) = (
            names[k as usize % 4],
            names[(k as usize + 1 + k as usize % 3) % 4],
        );
        let game = timed(
            sub(Some(&format!("g{k}")), &[(a, 1), (b, 2)]),
            &format!("2024-05-{:02}", k + 10),
        );
        s.append(id, game).unwrap();
    }
    assert!(s.save(id).unwrap());
    let snap = scratch.store.snapshot(id).unwrap().unwrap();
    assert_eq!((snap.count, snap.head.last_seq), (10, 10));
    (scratch, id, snap)
}

/// Opens the ledger again and tries to restore the league: whether it was; then loads
/// it and checks it against a fresh replay.
fn restart(scratch: &Scratch, id: LeagueId) -> bool {
    let store = (scratch.reopen)();
    let again = Leagues::open(store.clone(), small()).unwrap();
    let restored = again.restore(id).unwrap();
    again.load(id).unwrap();
    let fresh = fresh(&*store, id);
    assert_serves(&again, id, &fresh).unwrap();
    restored
}

/// Saved ratings that a change made stale, put back behind the store's back (as a
/// server that knows nothing of them would leave them), are not used: a correction, a
/// void, a new config, a season, or a match dated before their last.
fn stale_saved_ratings_are_not_used(b: Backend) {
    type Change = fn(&Leagues, LeagueId);
    let changes: [(&str, Change); 5] = [
        ("a correction", |s, id| {
            let game = timed(sub(None, &[("bo", 1), ("ann", 2)]), "2024-05-12");
            s.correct(id, "g2", game, false).unwrap();
        }),
        ("a void", |s, id| {
            s.void(id, "g9").unwrap();
        }),
        ("a new config", |s, id| {
            s.configure(id, None, None, Some(podium::Settings::from([("k", "20")])))
                .unwrap();
        }),
        ("a season", |s, id| {
            s.start_season_at(id, "two", Reset::Hard, day(30)).unwrap();
        }),
        ("a match dated before the last", |s, id| {
            let game = timed(sub(Some("early"), &[("cy", 1), ("dee", 2)]), "2024-05-11");
            s.append(id, game).unwrap();
        }),
    ];
    for (what, change) in changes {
        let (scratch, id, snap) = saved_league(b, "elo");
        assert!(restart(&scratch, id), "unchanged, it is used");
        let s = Leagues::open_loaded(scratch.store.clone(), small()).unwrap();
        change(&s, id);
        drop(s);
        scratch.store.save_snapshot(&snap).unwrap();
        assert!(
            !restart(&scratch, id),
            "{what}: stale saved ratings were used"
        );
    }
}

/// A logged change deletes the league's saved ratings in its own transaction; an
/// append after them keeps them, and the restart rates only what follows.
fn a_change_deletes_the_saved_ratings_and_an_append_keeps_them(b: Backend) {
    let (scratch, id, _) = saved_league(b, "glicko2");
    let s = Leagues::open_loaded(scratch.store.clone(), small()).unwrap();
    let late = timed(sub(Some("late"), &[("ann", 1), ("cy", 2)]), "2024-05-25");
    s.append(id, late).unwrap();
    assert!(scratch.store.snapshot(id).unwrap().is_some());
    drop(s);
    assert!(
        restart(&scratch, id),
        "an append after them keeps them good"
    );
    let s = Leagues::open_loaded(scratch.store.clone(), small()).unwrap();
    s.void(id, "g3").unwrap();
    assert!(scratch.store.snapshot(id).unwrap().is_none());
    drop(s);
    assert!(!restart(&scratch, id));
}

/// Saved ratings that cannot be read (nothing packed, packed data cut short or of
/// another layout, another system's league, a count out of range, a season the league
/// does not have) fall back to rating the whole ledger, never an error.
fn unreadable_saved_ratings_fall_back_to_the_whole_ledger(b: Backend) {
    let (scratch, id, snap) = saved_league(b, "elo");
    let other = {
        let mut league =
            podium::League::new(podium::system("sme", &podium::Settings::new()).unwrap());
        league
            .apply(&podium::Match::ranked("x", &["ann", "bo"]).unwrap())
            .unwrap();
        crate::packed::pack(&league.save().unwrap()).unwrap()
    };
    let mut cut = snap.packed.clone();
    cut.truncate(cut.len() / 2);
    let mut retagged = snap.packed.clone();
    retagged[7] = b'9';
    let broken: [(&str, SnapshotRow); 8] = [
        (
            "nothing packed",
            SnapshotRow {
                packed: Vec::new(),
                ..snap.clone()
            },
        ),
        (
            "packed data cut short",
            SnapshotRow {
                packed: cut,
                ..snap.clone()
            },
        ),
        (
            "another layout's tag",
            SnapshotRow {
                packed: retagged,
                ..snap.clone()
            },
        ),
        (
            "another system's league",
            SnapshotRow {
                packed: other,
                ..snap.clone()
            },
        ),
        (
            "a negative count",
            SnapshotRow {
                count: -1,
                ..snap.clone()
            },
        ),
        (
            "more matches than the ledger had",
            SnapshotRow {
                count: 11,
                ..snap.clone()
            },
        ),
        (
            "a season the league does not have",
            SnapshotRow {
                season: 3,
                ..snap.clone()
            },
        ),
        (
            "no last match",
            SnapshotRow {
                last: None,
                ..snap.clone()
            },
        ),
    ];
    for (what, row) in broken {
        scratch.store.save_snapshot(&row).unwrap();
        assert!(!restart(&scratch, id), "{what}: used");
    }
    scratch.store.save_snapshot(&snap).unwrap();
    assert!(restart(&scratch, id), "the good one again");
}

/// While restored, a league answers its board, pages, factors and info at once; its
/// players' histories, its matches' changes, its seasons and writes answer "not
/// ready" until its whole ledger is rated.
fn a_restored_league_serves_its_board_and_waits_for_the_rest(b: Backend) {
    let (scratch, id, _) = saved_league(b, "kalman-mmr");
    let store = (scratch.reopen)();
    let again = Leagues::open(store.clone(), small()).unwrap();
    assert!(again.restore(id).unwrap());
    assert_eq!(again.leaderboard(id).unwrap().len(), 4);
    assert_eq!(again.leaderboard_page(id, 1, 2).unwrap().0, 4);
    again.factors(id).unwrap();
    let info = again.league(id).unwrap();
    assert_eq!((info.matches, info.players, info.ready), (10, 4, false));
    let not_ready = |r: Result<(), StoreError>| matches!(r, Err(StoreError::NotReady { .. }));
    assert!(not_ready(again.player(id, "ann").map(|_| ())));
    assert!(not_ready(again.get_match(id, "g1").map(|_| ())));
    assert!(not_ready(again.seasons(id).map(|_| ())));
    assert!(not_ready(
        again
            .append(id, sub(Some("new"), &[("ann", 1), ("bo", 2)]))
            .map(|_| ())
    ));
    assert!(not_ready(again.void(id, "g1").map(|_| ())));
    again.load(id).unwrap();
    assert_eq!(again.player(id, "ann").unwrap().history.len(), 5);
    assert!(again.loading().is_empty());
    assert!(again.league(id).unwrap().ready);
}

/// A server claims its leagues before it follows the store, so the follower leaves a
/// league with saved ratings to the loader, which restores it from them rather than
/// rating its whole ledger first; a league the follower takes on is rated whole.
fn the_follower_leaves_a_league_its_loader_claimed(b: Backend) {
    let (scratch, id, snap) = saved_league(b, "kalman-mmr");
    let store = (scratch.reopen)();
    let again = Leagues::open(store.clone(), small()).unwrap();
    assert_eq!(again.claim_unloaded(), vec![id]);
    assert!(
        again.claim_unloaded().is_empty(),
        "a league is claimed once"
    );
    assert!(
        !again.behind(id, snap.head, false),
        "the follower left it alone"
    );
    assert!(again.restore(id).unwrap(), "restored by its loader");
    again.load_claimed(&[id], 1);
    let fresh = fresh(&*store, id);
    assert_serves(&again, id, &fresh).unwrap();
    assert!(again.loading().is_empty());
    // Found by the follower first (another server's league, say): the loader skips it.
    let third = Leagues::open(store.clone(), small()).unwrap();
    assert!(
        third.behind(id, snap.head, false),
        "taken on by the follower"
    );
    assert!(third.claim_unloaded().is_empty());
    assert!(third.refresh_if_idle(id).unwrap());
    assert_serves(&third, id, &fresh).unwrap();
    assert!(third.loading().is_empty());
}

mod snapshots_on_sqlite {
    #[test]
    fn the_follower_leaves_a_league_its_loader_claimed() {
        super::the_follower_leaves_a_league_its_loader_claimed(super::Backend::Sqlite)
    }
    #[test]
    fn stale_saved_ratings_are_not_used() {
        super::stale_saved_ratings_are_not_used(super::Backend::Sqlite)
    }
    #[test]
    fn a_change_deletes_the_saved_ratings_and_an_append_keeps_them() {
        super::a_change_deletes_the_saved_ratings_and_an_append_keeps_them(super::Backend::Sqlite)
    }
    #[test]
    fn unreadable_saved_ratings_fall_back_to_the_whole_ledger() {
        super::unreadable_saved_ratings_fall_back_to_the_whole_ledger(super::Backend::Sqlite)
    }
    #[test]
    fn a_restored_league_serves_its_board_and_waits_for_the_rest() {
        super::a_restored_league_serves_its_board_and_waits_for_the_rest(super::Backend::Sqlite)
    }
}

mod snapshots_on_postgres {
    #[test]
    fn the_follower_leaves_a_league_its_loader_claimed() {
        super::the_follower_leaves_a_league_its_loader_claimed(super::Backend::Postgres)
    }
    #[test]
    fn stale_saved_ratings_are_not_used() {
        super::stale_saved_ratings_are_not_used(super::Backend::Postgres)
    }
    #[test]
    fn a_change_deletes_the_saved_ratings_and_an_append_keeps_them() {
        super::a_change_deletes_the_saved_ratings_and_an_append_keeps_them(super::Backend::Postgres)
    }
    #[test]
    fn unreadable_saved_ratings_fall_back_to_the_whole_ledger() {
        super::unreadable_saved_ratings_fall_back_to_the_whole_ledger(super::Backend::Postgres)
    }
    #[test]
    fn a_restored_league_serves_its_board_and_waits_for_the_rest() {
        super::a_restored_league_serves_its_board_and_waits_for_the_rest(super::Backend::Postgres)
    }
}
