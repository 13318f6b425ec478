//! The store's behaviour through [`Leagues`], on both backends (a SQLite file, a
//! PostgreSQL database): retries and conflicts, bad matches, tokens, voids, corrections,
//! reconfiguration, time order, reopening, two servers on one store, and the property
//! that the ratings served always equal a fresh replay of the ledger.
//!
//! The PostgreSQL tests make databases on the server `PODIUM_TEST_POSTGRES` names
//! (`bash scripts/test.sh` starts a throwaway one; so does `bash
//! scripts/with-postgres.sh COMMAND`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use proptest::prelude::*;

use super::*;
use crate::{
    hash_token, BoardRow, Checkpoints, LeagueId, Leagues, LedgerResult, NewLeague, Options,
    PgStore, Store, Submission, SubmitStatus,
};

/// Where a test keeps its ledger.
#[derive(Debug, Clone, Copy)]
enum Backend {
    Sqlite,
    Postgres,
}

/// The URL of the PostgreSQL server the tests use, or a clear failure.
pub(crate) fn postgres_url() -> String {
    std::env::var("PODIUM_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "the PostgreSQL tests need a server: set PODIUM_TEST_POSTGRES=postgres://USER@HOST:PORT/DB \
             (a user that may create databases), or run them with `bash scripts/with-postgres.sh cargo test ...` \
             (`bash scripts/test.sh` does), which starts a throwaway server"
        )
    })
}

/// A fresh database of its own for one test.
struct Scratch {
    store: Arc<dyn Store>,
    /// Opens the same ledger again.
    reopen: Box<dyn Fn() -> Arc<dyn Store> + Send + Sync>,
    /// The PostgreSQL database to drop at the end.
    database: Option<String>,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(name) = &self.database {
            if let Ok(mut c) = postgres_url()
                .parse::<::postgres::Config>()
                .and_then(|c| c.connect(::postgres::NoTls))
            {
                let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
            }
        }
    }
}

impl Backend {
    fn scratch(self) -> Scratch {
        match self {
            Backend::Sqlite => {
                let store = SqliteStore::temporary().unwrap();
                let path = store.path().to_path_buf();
                Scratch {
                    store: Arc::new(store),
                    // The store that wrote it may still be open: a second store on the file
                    // is refused by its lock, which the tests of reading again leave aside.
                    reopen: Box::new(move || Arc::new(SqliteStore::open_shared(&path).unwrap())),
                    database: None,
                }
            }
            Backend::Postgres => {
                static N: AtomicUsize = AtomicUsize::new(0);
                let name = format!(
                    "podium_test_{}_{}",
                    std::process::id(),
                    N.fetch_add(1, Ordering::Relaxed)
                );
                let url = PgStore::create_database(&postgres_url(), &name).unwrap();
                let store = PgStore::open(&url).unwrap();
                Scratch {
                    store: Arc::new(store),
                    reopen: Box::new(move || Arc::new(PgStore::open(&url).unwrap())),
                    database: Some(name),
                }
            }
        }
    }
}

fn sub(id: Option<&str>, places: &[(&str, u32)]) -> Submission {
    Submission {
        id: id.map(str::to_string),
        match_id: None,
        time: None,
        results: places
            .iter()
            .map(|(p, r)| LedgerResult {
                player: (*p).to_string(),
                rank: Some(f64::from(*r)),
                ..LedgerResult::default()
            })
            .collect(),
    }
}

/// `s` with a factor `kind=value` on the rows of the players named.
fn with_factor(mut s: Submission, kind: &str, values: &[(&str, &str)]) -> Submission {
    for r in &mut s.results {
        if let Some((_, v)) = values.iter().find(|(p, _)| *p == r.player) {
            r.factors.insert(kind.to_string(), (*v).to_string());
        }
    }
    s
}

fn timed(mut s: Submission, date: &str) -> Submission {
    s.time = Some(date.to_string());
    s
}

/// Small checkpoints and a low bar for "heavy" matches, so that tests go through every
/// way of rating: in place, on a copy, from a checkpoint, from the start.
fn small() -> Options {
    Options {
        checkpoints: Checkpoints { every: 3, keep: 4 },
        heavy_players: 4,
        max_batch: 8,
    }
}

fn open(store: &Arc<dyn Store>) -> Arc<Leagues> {
    Leagues::open_loaded(store.clone(), small()).unwrap()
}

/// A fresh ledger on `b` and its leagues.
fn temp(b: Backend) -> (Scratch, Arc<Leagues>) {
    let scratch = b.scratch();
    let leagues = open(&scratch.store);
    (scratch, leagues)
}

/// A new league of `system`, under a name of its own (names are unique in a store).
fn league(leagues: &Leagues, system: &str) -> (LeagueId, String) {
    static N: AtomicUsize = AtomicUsize::new(0);
    let (info, token) = leagues
        .create_league(&NewLeague {
            name: format!("test {}", N.fetch_add(1, Ordering::Relaxed)),
            system: system.into(),
            config: podium::Settings::new(),
        })
        .unwrap();
    (info.id, token)
}

/// The served leaderboard equals a fresh replay of the exported ledger through
/// `podium::League` (sorted by `League::standings`), whole and page by page.
fn assert_matches_replay(leagues: &Leagues, id: LeagueId) {
    let info = leagues.league(id).unwrap();
    let mut fresh = podium::League::new(podium::system(&info.system, &info.config).unwrap());
    for e in leagues.ledger(id).unwrap() {
        fresh.apply(&e.json.to_match().unwrap()).unwrap();
    }
    // The factors' table too.
    let factors = leagues.factors(id).unwrap();
    let fresh_factors = fresh.factor_standings();
    assert_eq!(factors.len(), fresh_factors.len());
    for (a, b) in factors.iter().zip(&fresh_factors) {
        assert_eq!((&a.kind, &a.value), (&b.factor.kind, &b.factor.value));
        assert!((a.rating - b.rating.value).abs() < 1e-9, "{a:?} vs {b:?}");
        assert_eq!(a.matches, b.stats.games);
        assert!((a.wins - b.stats.wins).abs() < 1e-9);
    }
    let standings = fresh.standings();
    for order in podium::Order::ALL {
        assert_board_in(leagues, id, order, &standings);
    }
    assert_eq!(info.matches, leagues.ledger(id).unwrap().len());
}

/// The board served in `order` is the league's `standings` sorted in that order: the
/// established order puts every provisional player after the others.
fn assert_board_in(
    leagues: &Leagues,
    id: LeagueId,
    order: podium::Order,
    standings: &[podium::Standing],
) {
    let mut fresh = standings.to_vec();
    let tier = |s: &podium::Standing| order == podium::Order::Established && s.provisional;
    fresh.sort_by(|a, b| {
        tier(a)
            .cmp(&tier(b))
            .then(b.rating.value.total_cmp(&a.rating.value))
            .then_with(|| a.player.cmp(&b.player))
    });
    let served = leagues
        .leaderboard_page_in(id, order, 0, usize::MAX)
        .unwrap()
        .1;
    if order == podium::Order::default() {
        assert_eq!(leagues.leaderboard(id).unwrap(), served);
    }
    assert_eq!(served.len(), fresh.len());
    for (k, (a, b)) in served.iter().zip(&fresh).enumerate() {
        assert_eq!(a.position, k + 1);
        assert_eq!(a.player, b.player, "{order:?} position {}", k + 1);
        assert!(
            (a.rating - b.rating.value).abs() < 1e-9,
            "{} {} vs {}",
            a.player,
            a.rating,
            b.rating.value
        );
        assert_eq!(a.games, b.stats.games);
        assert_eq!(a.sigma.is_some(), b.rating.sigma.is_some());
        if let (Some(x), Some(y)) = (a.sigma, b.rating.sigma) {
            assert!((x - y).abs() < 1e-9, "{} σ {x} vs {y}", a.player);
        }
        assert_eq!(a.provisional, b.provisional);
        assert!((a.win_pct - b.stats.win_pct()).abs() < 1e-9);
        if order == podium::Order::default() {
            let p = leagues.player(id, &a.player).unwrap();
            assert_eq!(&p.standing, a);
            assert_eq!(p.history.len(), a.games as usize);
        }
    }
    for (offset, limit) in [
        (0, 3),
        (2, 5),
        (served.len().saturating_sub(1), 10),
        (served.len() + 3, 2),
    ] {
        let (total, page) = leagues
            .leaderboard_page_in(id, order, offset, limit)
            .unwrap();
        assert_eq!(total, served.len());
        let want: Vec<BoardRow> = served.iter().skip(offset).take(limit).cloned().collect();
        assert_eq!(page, want);
    }
    // The JSON made from per-player pieces is byte for byte the board's serialisation,
    // and keeps its version until the league changes.
    let json = leagues.leaderboard_json_in(id, order).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&json.json),
        String::from_utf8_lossy(&serde_json::to_vec(&served).unwrap())
    );
    assert_eq!(json.rows, served.len());
    assert_eq!(
        leagues.leaderboard_json_in(id, order).unwrap().version,
        json.version
    );
}

fn append_retry_and_conflict(b: Backend) {
    let (_scratch, s) = temp(b);
    let (id, _) = league(&s, "sme");
    let a = s
        .append(id, sub(Some("g1"), &[("ann", 1), ("bo", 2), ("cy", 2)]))
        .unwrap();
    assert_eq!(a.status, SubmitStatus::Created);
    assert_eq!(a.entry.seq, 1);
    assert!((a.changes[0].after - 1516.0).abs() < 1e-9);
    // The same content in another order is the same match: a retry.
    let b = s
        .append(id, sub(Some("g1"), &[("cy", 2), ("bo", 2), ("ann", 1)]))
        .unwrap();
    assert_eq!(b.status, SubmitStatus::Duplicate);
    assert!((b.changes[0].after - 1516.0).abs() < 1e-9);
    let c = s
        .append(id, sub(Some("g1"), &[("ann", 2), ("bo", 1)]))
        .unwrap_err();
    assert!(
        matches!(c, StoreError::Conflict { ref key } if key == "g1"),
        "{c}"
    );
    assert_eq!(s.ledger(id).unwrap().len(), 1);
    // Without an id the store assigns one.
    let d = s.append(id, sub(None, &[("ann", 1), ("bo", 2)])).unwrap();
    assert_eq!(d.entry.key, "#2");
    assert_eq!(s.league(id).unwrap().matches, 2);
    // Within one batch: a repeat is a retry of the first, other content a conflict.
    let r = s
        .append_batch(
            id,
            vec![
                sub(Some("g2"), &[("ann", 1), ("bo", 2)]),
                sub(Some("g2"), &[("bo", 2), ("ann", 1)]),
                sub(Some("g2"), &[("ann", 2), ("bo", 1)]),
                sub(None, &[("ann", 1), ("bo", 2)]),
            ],
        )
        .unwrap();
    assert_eq!(r[0].as_ref().unwrap().status, SubmitStatus::Created);
    assert_eq!(r[1].as_ref().unwrap().status, SubmitStatus::Duplicate);
    assert!(matches!(r[2], Err(StoreError::Conflict { .. })));
    assert_eq!(r[3].as_ref().unwrap().entry.key, "#4");
    assert_matches_replay(&s, id);
}

/// Factors are stored with the match, rated, part of its content for retries, kept
/// through corrections and reopening; a system that does not rate them refuses them and
/// stores nothing.
fn factors_are_stored_rated_and_part_of_the_content(b: Backend) {
    let scratch = b.scratch();
    let s = open(&scratch.store);
    let (id, _) = league(&s, "pairwise");
    let race = || {
        with_factor(
            sub(Some("r1"), &[("ann", 1), ("bo", 2)]),
            "car",
            &[("ann", "red"), ("bo", "blue")],
        )
    };
    let a = s.append(id, race()).unwrap();
    assert_eq!(a.status, SubmitStatus::Created);
    assert_eq!(a.entry.json.results[0].factors["car"], "red");
    // pairwise, K = 32: two equal entries, the winner's factor gains K/2.
    let moved: Vec<(&str, f64)> = a
        .factor_changes
        .iter()
        .map(|c| (c.value.as_str(), c.delta))
        .collect();
    assert_eq!(moved.len(), 2);
    assert_eq!(moved[0].0, "red");
    assert!((moved[0].1 - 16.0).abs() < 1e-9, "{moved:?}");
    assert!((moved[1].1 + 16.0).abs() < 1e-9, "{moved:?}");
    // The same match again, rows in another order: a retry.
    let mut again = race();
    again.results.reverse();
    let r = s.append(id, again).unwrap();
    assert_eq!(r.status, SubmitStatus::Duplicate);
    assert_eq!(r.factor_changes, a.factor_changes);
    // The same results with other factors, or without them, are other content.
    for other in [
        with_factor(
            sub(Some("r1"), &[("ann", 1), ("bo", 2)]),
            "car",
            &[("ann", "blue"), ("bo", "red")],
        ),
        sub(Some("r1"), &[("ann", 1), ("bo", 2)]),
    ] {
        let e = s.append(id, other).unwrap_err();
        assert!(matches!(e, StoreError::Conflict { .. }), "{e}");
    }
    s.append(
        id,
        with_factor(
            sub(Some("r2"), &[("cy", 1), ("ann", 2)]),
            "car",
            &[("cy", "red"), ("ann", "blue")],
        ),
    )
    .unwrap();
    let table = s.factors(id).unwrap();
    let rows: Vec<(&str, u32, f64)> = table
        .iter()
        .map(|f| (f.value.as_str(), f.matches, f.win_pct))
        .collect();
    assert_eq!(rows, [("red", 2, 100.0), ("blue", 2, 0.0)]);
    assert!(
        table[0].rating > 16.0 && table[1].rating < -16.0,
        "{table:?}"
    );
    assert_matches_replay(&s, id);
    // A correction that swaps the cars moves the table.
    let fixed = s
        .correct(
            id,
            "r2",
            with_factor(
                sub(None, &[("cy", 1), ("ann", 2)]),
                "car",
                &[("cy", "blue"), ("ann", "red")],
            ),
            false,
        )
        .unwrap();
    assert_eq!(fixed.factor_changes[0].value, "blue");
    let table = s.factors(id).unwrap();
    assert!(table
        .iter()
        .all(|f| f.matches == 2 && (f.win_pct - 50.0).abs() < 1e-9));
    assert_matches_replay(&s, id);
    // A system that does not rate factors cannot take this ledger: nothing changes.
    let e = s
        .configure(id, None, Some("proportional".into()), None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            StoreError::Rate {
                source: podium::RateError::FactorsUnsupported { .. },
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(s.league(id).unwrap().system, "pairwise");
    // Reopened, the ledger gives back the factors and the same table.
    drop(s);
    let s = open(&(scratch.reopen)());
    assert_eq!(s.factors(id).unwrap(), table);
    let (entry, _, changes) = s.get_match(id, "r1").unwrap();
    assert_eq!(entry.json, a.entry.json);
    assert_eq!(changes.len(), 2);
    assert_matches_replay(&s, id);

    // A league whose system does not rate factors refuses a match with factors, even
    // one factor that every entry carries, and stores nothing.
    let (other, _) = league(&s, "proportional");
    for game in [
        race(),
        with_factor(
            sub(Some("r1"), &[("ann", 1), ("bo", 2)]),
            "track",
            &[("ann", "monza"), ("bo", "monza")],
        ),
    ] {
        let e = s.append(other, game).unwrap_err();
        assert_eq!(
            e.to_string(),
            "match \"r1\" cannot be rated: system proportional does not rate factors (car, seat, faction); every podium system but proportional and ttt does"
        );
        assert!(e.is_client_error());
    }
    assert!(s.ledger(other).unwrap().is_empty());
    assert!(s.factors(other).unwrap().is_empty());
}

fn bad_matches_change_nothing(b: Backend) {
    let (_scratch, s) = temp(b);
    let (id, _) = league(&s, "elo");
    let e = s.append(id, sub(Some("x"), &[("ann", 1)])).unwrap_err();
    assert!(matches!(e, StoreError::InvalidMatch { .. }), "{e}");
    let e = s
        .append(id, sub(Some("x"), &[("ann", 1), ("bo", 2), ("cy", 3)]))
        .unwrap_err();
    assert!(matches!(e, StoreError::Rate { .. }), "{e}");
    let e = s
        .append(id, sub(Some(" x"), &[("ann", 1), ("bo", 2)]))
        .unwrap_err();
    assert!(matches!(e, StoreError::InvalidMatch { .. }), "{e}");
    // A 900 KB id is refused without being repeated whole.
    let long = "k".repeat(900_000);
    let e = s
        .append(id, sub(Some(&long), &[("ann", 1), ("bo", 2)]))
        .unwrap_err();
    assert!(e.to_string().len() < 300, "{}", e.to_string().len());
    assert!(s.ledger(id).unwrap().is_empty());
    assert!(s.leaderboard(id).unwrap().is_empty());
    // A batch: the good ones are stored, the bad one is not.
    let r = s
        .append_batch(
            id,
            vec![
                sub(Some("a"), &[("ann", 1), ("bo", 2)]),
                sub(Some("b"), &[("ann", 1), ("bo", 2), ("cy", 3)]),
                sub(Some("c"), &[("bo", 1), ("ann", 2)]),
            ],
        )
        .unwrap();
    assert!(r[0].is_ok());
    assert!(matches!(r[1], Err(StoreError::Rate { .. })));
    assert_eq!(
        r[2].as_ref().unwrap().entry.seq,
        2,
        "no gap for the refused one"
    );
    assert_eq!(s.ledger(id).unwrap().len(), 2);
    assert!(matches!(
        s.append_batch(99, vec![sub(Some("c"), &[("ann", 1), ("bo", 2)])]),
        Err(StoreError::LeagueNotFound { league: 99 })
    ));
    assert_matches_replay(&s, id);
}

fn tokens_authorize_their_own_league_only(b: Backend) {
    let (scratch, s) = temp(b);
    let (a, ta) = league(&s, "sme");
    let (b, tb) = league(&s, "sme");
    assert!(s.authorize(a, &ta).is_ok());
    assert!(s.authorize(b, &tb).is_ok());
    assert!(matches!(s.authorize(a, &tb), Err(StoreError::Forbidden { league }) if league == a));
    assert!(matches!(
        s.authorize(a, "pdm_nope"),
        Err(StoreError::Unauthorized)
    ));
    assert!(matches!(
        s.authorize(7, &ta),
        Err(StoreError::LeagueNotFound { .. })
    ));
    // Only the hash is stored.
    let stored = scratch.store.league_row(a).unwrap().unwrap().token_hash;
    assert_eq!(stored, hash_token(&ta));
    assert!(!stored.contains(&ta[4..]));
}

fn void_correct_and_reconfigure_recompute(b: Backend) {
    let (_scratch, s) = temp(b);
    let (id, _) = league(&s, "sme");
    s.append(id, sub(Some("g1"), &[("ann", 1), ("bo", 2)]))
        .unwrap();
    s.append(id, sub(Some("g2"), &[("bo", 1), ("cy", 2)]))
        .unwrap();
    s.void(id, "g1").unwrap();
    assert_matches_replay(&s, id);
    assert!(s.player(id, "ann").is_err(), "ann's only game was voided");
    assert!((s.player(id, "bo").unwrap().standing.rating - 1516.0).abs() < 1e-9);
    // A retry of the voided match is recognised, not stored again.
    let r = s
        .append(id, sub(Some("g1"), &[("ann", 1), ("bo", 2)]))
        .unwrap();
    assert_eq!(r.status, SubmitStatus::Duplicate);
    assert!(r.entry.voided);
    // Corrections may name known players only, unless allowed.
    let e = s
        .correct(id, "g2", sub(None, &[("bo", 1), ("zed", 2)]), false)
        .unwrap_err();
    assert!(
        matches!(e, StoreError::UnknownPlayer { ref player } if player == "zed"),
        "{e}"
    );
    let e = s
        .correct(id, "nope", sub(None, &[("bo", 1), ("cy", 2)]), false)
        .unwrap_err();
    assert!(matches!(e, StoreError::MatchNotFound { .. }), "{e}");
    let c = s
        .correct(id, "g2", sub(None, &[("cy", 1), ("bo", 2)]), false)
        .unwrap();
    assert_eq!(c.status, SubmitStatus::Corrected);
    assert!((s.player(id, "cy").unwrap().standing.rating - 1516.0).abs() < 1e-9);
    assert_matches_replay(&s, id);
    // A system that cannot rate the ledger is refused and changes nothing.
    s.append(id, sub(Some("g3"), &[("ann", 1), ("bo", 2), ("cy", 3)]))
        .unwrap();
    let e = s.configure(id, None, Some("elo".into()), None).unwrap_err();
    assert!(matches!(e, StoreError::Rate { .. }), "{e}");
    assert_eq!(s.league(id).unwrap().system, "sme");
    let e = s
        .configure(id, None, None, Some(podium::Settings::from([("k", "-")])))
        .unwrap_err();
    assert!(matches!(e, StoreError::Config(_)), "{e}");
    let info = s.configure(id, None, Some("shares".into()), None).unwrap();
    assert_eq!(info.system, "shares");
    assert_matches_replay(&s, id);
    let info = s
        .configure(id, None, None, Some(podium::Settings::from([("k", "10")])))
        .unwrap();
    assert_eq!(info.config, podium::Settings::from([("k", "10")]));
    assert_matches_replay(&s, id);
}

/// A correction near the end of a long league is rated from the last checkpoint before
/// it, which stays where it was.
fn corrections_rate_again_from_the_last_checkpoint(b: Backend) {
    let (_scratch, s) = temp(b);
    let (id, _) = league(&s, "sme");
    let names = ["ann", "bo", "cy", "dee", "eve"];
    let subs: Vec<Submission> = (0..20)
        .map(|i| {
            sub(
                Some(&format!("g{i}")),
                &[(names[i % 5], 1), (names[(i + 2) % 5], 2)],
            )
        })
        .collect();
    for r in s.append_batch(id, subs).unwrap() {
        r.unwrap();
    }
    let before = s.read(id, |d| Ok(d.checkpoints())).unwrap();
    assert_eq!(before.len(), 4);
    assert_eq!(*before.last().unwrap(), 18);
    s.correct(id, "g19", sub(None, &[("bo", 1), ("ann", 2)]), false)
        .unwrap();
    assert_eq!(s.read(id, |d| Ok(d.checkpoints())).unwrap(), before);
    assert_matches_replay(&s, id);
    s.void(id, "g1").unwrap();
    assert_matches_replay(&s, id);
}

fn board_json_versions_change_with_the_board_only(b: Backend) {
    let (_scratch, s) = temp(b);
    let (id, _) = league(&s, "sme");
    let (other, _) = league(&s, "sme");
    let mut seen = vec![
        s.leaderboard_json(id).unwrap().version,
        s.leaderboard_json(other).unwrap().version,
    ];
    assert_eq!(&s.leaderboard_json(id).unwrap().json[..], b"[]");
    s.append(id, sub(Some("g1"), &[("ann", 1), ("bo", 2)]))
        .unwrap();
    seen.push(s.leaderboard_json(id).unwrap().version);
    s.append(id, sub(Some("g2"), &[("bo", 1), ("cy", 2)]))
        .unwrap();
    seen.push(s.leaderboard_json(id).unwrap().version);
    // A void rates the ledger again: its board must not reuse a version (here it has as
    // many matches as the board of g1 alone, with other rows).
    s.void(id, "g1").unwrap();
    let after_void = s.leaderboard_json(id).unwrap();
    seen.push(after_void.version);
    assert_eq!(s.leaderboard_json(id).unwrap().version, after_void.version);
    let unique: std::collections::BTreeSet<u64> = seen.iter().copied().collect();
    assert_eq!(unique.len(), seen.len(), "{seen:?}");
    assert_matches_replay(&s, id);
}

fn timed_matches_are_rated_in_time_order(b: Backend) {
    let (_scratch, s) = temp(b);
    let (id, _) = league(&s, "sme");
    let a = s
        .append(
            id,
            timed(sub(Some("late"), &[("ann", 1), ("bo", 2)]), "2024-05-03"),
        )
        .unwrap();
    assert!(!a.recomputed);
    let b = s
        .append(
            id,
            timed(sub(Some("early"), &[("bo", 1), ("ann", 2)]), "2024-05-01"),
        )
        .unwrap();
    assert!(
        b.recomputed,
        "an earlier match is rated before the later one"
    );
    let order: Vec<String> = s.ledger(id).unwrap().into_iter().map(|e| e.key).collect();
    assert_eq!(order, ["early", "late"]);
    assert_matches_replay(&s, id);
    let e = s
        .append(id, sub(Some("untimed"), &[("ann", 1), ("bo", 2)]))
        .unwrap_err();
    assert!(
        matches!(
            e,
            StoreError::TimeMismatch {
                has_time: false,
                ..
            }
        ),
        "{e}"
    );
}

fn a_league_that_began_without_dates_takes_dated_games(b: Backend) {
    let (_scratch, s) = temp(b);
    let (id, _) = league(&s, "glicko2");
    s.append(id, sub(Some("first"), &[("ann", 1), ("bo", 2)]))
        .unwrap();
    s.append(id, sub(Some("second"), &[("bo", 1), ("ann", 2)]))
        .unwrap();
    let dated = s
        .append(
            id,
            timed(sub(Some("dated"), &[("ann", 1), ("bo", 2)]), "2024-05-03"),
        )
        .unwrap();
    assert!(
        !dated.recomputed,
        "a dated match goes after the undated ones"
    );
    s.append(
        id,
        timed(sub(Some("later"), &[("cy", 1), ("ann", 2)]), "2024-05-10"),
    )
    .unwrap();
    let order: Vec<String> = s.ledger(id).unwrap().into_iter().map(|e| e.key).collect();
    assert_eq!(order, ["first", "second", "dated", "later"]);
    assert_matches_replay(&s, id);
    // Once dated, an undated match would be rated before the dated ones: refused.
    let e = s
        .append(id, sub(Some("undated"), &[("ann", 1), ("bo", 2)]))
        .unwrap_err();
    assert!(
        matches!(
            e,
            StoreError::TimeMismatch {
                has_time: false,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("needs a date"), "{e}");
    assert_eq!(s.ledger(id).unwrap().len(), 4);
}

/// A correction without a date of a dated match is refused while the league has other
/// dated matches (it would be rated before them all), as an undated new match is; an
/// undated match of the league's start may be corrected without a date, and the only
/// dated match may lose its date.
fn a_correction_keeps_a_dated_match_dated(b: Backend) {
    let (_scratch, s) = temp(b);
    let (id, _) = league(&s, "sme");
    s.append(id, sub(Some("early"), &[("ann", 1), ("bo", 2)]))
        .unwrap();
    for (key, date) in [("a", "2024-05-01"), ("b", "2024-05-02")] {
        s.append(id, timed(sub(Some(key), &[("ann", 1), ("bo", 2)]), date))
            .unwrap();
    }
    let before = s.ledger(id).unwrap();
    for key in ["a", "b"] {
        let e = s
            .correct(id, key, sub(None, &[("bo", 1), ("ann", 2)]), false)
            .unwrap_err();
        assert!(
            matches!(&e, StoreError::DateRemoved { key: k } if k == key),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            format!("match \"{key}\" is dated, but the correction has no date while the league has other dated matches: give it a date (a league may start without dates, but once it has a dated match a dated match keeps a date)")
        );
    }
    let after = s.ledger(id).unwrap();
    assert_eq!(
        after.iter().map(|e| (&e.key, e.time)).collect::<Vec<_>>(),
        before.iter().map(|e| (&e.key, e.time)).collect::<Vec<_>>()
    );
    // The undated match of the start stays undated.
    let done = s
        .correct(id, "early", sub(None, &[("bo", 1), ("ann", 2)]), false)
        .unwrap();
    assert_eq!(done.entry.time, None);
    // With one dated match left, it may lose its date.
    s.void(id, "a").unwrap();
    let done = s
        .correct(id, "b", sub(None, &[("bo", 1), ("ann", 2)]), false)
        .unwrap();
    assert_eq!(done.entry.time, None);
    assert_matches_replay(&s, id);
}

fn the_ledger_survives_reopening(b: Backend) {
    let scratch = b.scratch();
    let (id, token) = {
        let s = open(&scratch.store);
        let (id, token) = league(&s, "mes");
        for i in 0..20 {
            let players = [
                ("ann", 1 + i % 3),
                ("bo", 1 + (i + 1) % 3),
                ("cy", 1 + (i + 2) % 3),
            ];
            s.append(id, sub(Some(&format!("g{i}")), &players)).unwrap();
        }
        s.void(id, "g3").unwrap();
        (id, token)
    };
    let s = open(&(scratch.reopen)());
    assert!(s.authorize(id, &token).is_ok());
    assert_eq!(s.ledger(id).unwrap().len(), 19);
    assert_matches_replay(&s, id);
    let next = s.append(id, sub(None, &[("ann", 1), ("bo", 2)])).unwrap();
    assert_eq!(next.entry.seq, 21);
}

#[test]
fn sqlite_counts_its_schema_version() {
    let store = SqliteStore::temporary().unwrap();
    let version: i64 = store
        .write()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version as usize, MIGRATIONS.len());
}

/// A ledger from before saved ratings were only packed: opening it drops a row that
/// holds them as JSON alone (its league is then rated whole at the next start, as with
/// none) and keeps a packed one.
#[test]
fn opening_an_older_ledger_drops_saved_ratings_that_are_not_packed() {
    let dir = std::env::temp_dir().join(format!("podium-store-v5-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ledger.db");
    {
        let mut conn = Connection::open(&path).unwrap();
        let tx = conn.transaction().unwrap();
        // The schema before the migration that drops saved ratings not packed.
        for sql in &MIGRATIONS[..5] {
            tx.execute_batch(sql).unwrap();
        }
        tx.pragma_update(None, "user_version", 5).unwrap();
        for (league, packed) in [(1, None), (2, Some(b"podmpz01".to_vec()))] {
            tx.execute(
                "INSERT INTO leagues (id, name, system, config, token_hash) VALUES (?1, ?1, 'elo', '{}', ?1)",
                [league],
            )
            .unwrap();
            tx.execute(
                "INSERT INTO snapshots (league, last_seq, last_change, count, season, system, config, data, packed)
                 VALUES (?1, 1, 0, 1, 0, 'elo', '{}', '{\"format\": \"podium-league\"}', ?2)",
                params![league, packed],
            )
            .unwrap();
        }
        tx.commit().unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    let kept: Vec<i64> = store
        .write()
        .prepare("SELECT league FROM snapshots")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(kept, [2]);
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A database that takes no writes is refused at open with a clear error, not at the
/// first write.
#[test]
fn a_read_only_postgres_database_is_refused_at_open() {
    let scratch = Backend::Postgres.scratch();
    let name = scratch.database.clone().unwrap();
    let mut c: ::postgres::Client = postgres_url()
        .parse::<::postgres::Config>()
        .unwrap()
        .connect(::postgres::NoTls)
        .unwrap();
    c.batch_execute(&format!(
        "ALTER DATABASE {name} SET default_transaction_read_only = on"
    ))
    .unwrap();
    let url = PgStore::create_database(&postgres_url(), &format!("{name}_unused")).unwrap();
    c.batch_execute(&format!("DROP DATABASE {name}_unused"))
        .unwrap();
    let url = url.replace(&format!("{name}_unused"), &name);
    let e = PgStore::open(&url).unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly { .. }), "{e}");
    assert!(
        e.to_string().contains("read-only") && e.to_string().contains(&name),
        "{e}"
    );
}

/// The same on PostgreSQL: a database from before league names were unique, holding two
/// leagues named alike, opens; the older keeps the name and the other is left as it is.
#[test]
fn an_older_postgres_ledger_with_two_leagues_named_alike_opens() {
    let scratch = Backend::Postgres.scratch();
    let name = scratch.database.clone().unwrap();
    let url = postgres_url();
    let base = url.rsplit_once('/').unwrap().0;
    let mut c: ::postgres::Client = format!("{base}/{name}")
        .parse::<::postgres::Config>()
        .unwrap()
        .connect(::postgres::NoTls)
        .unwrap();
    // Back to the schema before names were unique, with two leagues named alike.
    c.batch_execute(
        "DROP INDEX leagues_by_name_key; ALTER TABLE leagues DROP COLUMN name_key;
         UPDATE podium_schema SET version = 5;
         INSERT INTO leagues (id, name, system, config, token_hash) VALUES
            (1, 'Twice', 'elo', '[]', 'a'), (2, 'twice ', 'elo', '[]', 'b'), (3, 'once', 'elo', '[]', 'c');
         SELECT setval('leagues_id_seq', 3);",
    )
    .unwrap();
    let store = (scratch.reopen)();
    let keys: Vec<(i64, Option<String>)> = c
        .query("SELECT id, name_key FROM leagues ORDER BY id", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        keys,
        [
            (1, Some("twice".to_string())),
            (2, None),
            (3, Some("once".to_string()))
        ]
    );
    let e = store
        .create_league("TWICE", "elo", &podium::Settings::new(), "d")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "a league named \"Twice\" exists already (league 1): choose another name"
    );
}

/// One store at a time has a SQLite file open: a second open of it in this process, while
/// the first store is open, is refused naming the file and its lock, as this process's;
/// once the first is dropped, it opens.
#[test]
fn a_file_open_already_is_refused_until_its_store_is_dropped() {
    let dir = std::env::temp_dir().join(format!("podium-store-lock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("games.db");
    let first = SqliteStore::open(&path).unwrap();
    let e = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(e, StoreError::OpenHere { .. }), "{e}");
    let db = path.display();
    assert_eq!(
        e.to_string(),
        format!("the SQLite file {db} is open already in this process (a store of it that is still open holds the lock on {db}.lock); drop that store, and what shares it, before opening the file again")
    );
    drop(first);
    let again = SqliteStore::open(&path).unwrap();
    again.ping().unwrap();
    drop(again);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A new file whose directory is missing, is no directory, or cannot be written to is
/// refused naming the directory and what is wrong with it, not as SQLite's "unable to
/// open database file".
#[test]
fn a_new_file_where_none_can_be_made_is_refused_naming_its_directory() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("podium-store-dirs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing").join("games.db");
    let e = SqliteStore::open(&missing).unwrap_err();
    assert!(matches!(e, StoreError::Unwritable { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        format!(
            "the database {} cannot be made: its directory {} does not exist (make it first)",
            missing.display(),
            dir.join("missing").display()
        )
    );
    let file = dir.join("plain");
    std::fs::write(&file, "").unwrap();
    let e = SqliteStore::open(file.join("games.db")).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "the database {} cannot be made: {} is not a directory",
            file.join("games.db").display(),
            file.display()
        )
    );
    let ro = dir.join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let writable = std::fs::write(ro.join("probe"), "").is_ok();
    let opened = SqliteStore::open(ro.join("games.db"));
    if writable {
        // The superuser writes anywhere: the directory is writable to this process.
        opened.unwrap();
    } else {
        let e = opened.unwrap_err();
        assert!(
            e.to_string().starts_with(&format!(
                "the database {} cannot be made: its directory {} is not writable (",
                ro.join("games.db").display(),
                ro.display()
            )),
            "{e}"
        );
    }
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file SQLite can only read is refused at open with a clear error, not at the first
/// write.
#[test]
fn a_read_only_file_is_refused_at_open() {
    let store = SqliteStore::temporary().unwrap();
    let path = store.path().to_path_buf();
    let uri = format!("file:{}?mode=ro", path.display());
    let e = SqliteStore::open(&uri).unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly { .. }), "{e}");
    assert!(e.to_string().contains("read-only"), "{e}");
    assert!(e.to_string().contains(&path.display().to_string()), "{e}");
}

/// Two sets of leagues on one store, as two servers on one database: what one writes,
/// the other serves after catching up, and the ledger positions of both writers
/// interleave without a gap.
fn two_servers_on_one_store_follow_each_other(b: Backend) {
    let (scratch, a) = temp(b);
    let (id, _) = league(&a, "sme");
    let b = open(&scratch.store);
    for i in 0..10u32 {
        let (writer, players) = if i % 3 == 0 {
            (&b, [("ann", 1), ("bo", 2)])
        } else {
            (&a, [("cy", 1), ("ann", 2)])
        };
        let r = writer
            .append(id, sub(Some(&format!("g{i}")), &players))
            .unwrap();
        assert_eq!(r.entry.seq, i64::from(i) + 1);
    }
    a.void(id, "g4").unwrap();
    b.correct(id, "g2", sub(None, &[("ann", 1), ("cy", 2)]), false)
        .unwrap();
    for s in [&a, &b] {
        s.refresh(id).unwrap();
        assert_matches_replay(s, id);
    }
    b.configure(id, None, Some("shares".into()), None).unwrap();
    a.refresh(id).unwrap();
    assert_eq!(a.league(id).unwrap().system, "shares");
    assert_matches_replay(&a, id);
}

#[derive(Debug, Clone)]
enum Op {
    Append {
        id: Option<u8>,
        players: Vec<(u8, u32, Option<u8>)>,
        day: Option<u8>,
    },
    Void(u8),
    Correct {
        target: u8,
        players: Vec<(u8, u32, Option<u8>)>,
    },
    Configure(u8),
}

const SYSTEMS: &[&str] = &[
    "trueskill",
    "plackett-luce",
    "sme",
    "elo",
    "pairwise",
    "whitewhale",
    "proportional",
    "mes",
    "shares",
    "kalman-mmr",
];

/// Players with their places, and maybe a seat (a factor).
fn players() -> impl Strategy<Value = Vec<(u8, u32, Option<u8>)>> {
    prop::collection::vec((0u8..8, 1u32..4, prop::option::weighted(0.3, 0u8..3)), 2..6)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (prop::option::of(0u8..12), players(), prop::option::of(0u8..10))
            .prop_map(|(id, players, day)| Op::Append { id, players, day }),
        1 => (0u8..12).prop_map(Op::Void),
        1 => (0u8..12, players()).prop_map(|(target, players)| Op::Correct { target, players }),
        1 => (0u8..SYSTEMS.len() as u8).prop_map(Op::Configure),
    ]
}

fn submission(
    id: Option<String>,
    players: &[(u8, u32, Option<u8>)],
    day: Option<u8>,
) -> Submission {
    let mut seen = std::collections::HashSet::new();
    let named: Vec<(String, u32, Option<String>)> = players
        .iter()
        .filter(|(p, _, _)| seen.insert(*p))
        .map(|(p, r, seat)| (format!("p{p}"), *r, seat.map(|s| s.to_string())))
        .collect();
    let refs: Vec<(&str, u32)> = named.iter().map(|(p, r, _)| (p.as_str(), *r)).collect();
    let seats: Vec<(&str, &str)> = named
        .iter()
        .filter_map(|(p, _, seat)| Some((p.as_str(), seat.as_deref()?)))
        .collect();
    let mut s = with_factor(sub(id.as_deref(), &refs), "seat", &seats);
    s.time = day.map(|d| format!("2024-05-{:02}", d + 1));
    s
}

/// Runs `ops` against two sets of leagues on one store (two servers), each operation
/// on one of them, and checks after each that both serve a fresh replay of the ledger.
fn run_ops(
    store: Arc<dyn Store>,
    reopen: &dyn Fn() -> Arc<dyn Store>,
    ops: Vec<(Op, bool)>,
    timed_league: bool,
) -> Result<(), TestCaseError> {
    let servers = [
        Leagues::open_loaded(store.clone(), small()).unwrap(),
        Leagues::open_loaded(store, small()).unwrap(),
    ];
    let (id, _) = league(&servers[0], "sme");
    for (op, second) in ops {
        let s = &servers[usize::from(second)];
        s.refresh(id)
            .unwrap_or_else(|_| panic!("league {id} unknown to the second"));
        let keys: Vec<String> = s.ledger(id).unwrap().into_iter().map(|e| e.key).collect();
        let result = match op {
            Op::Append {
                id: key,
                players,
                day,
            } => {
                let day = if timed_league {
                    Some(day.unwrap_or(0))
                } else {
                    None
                };
                s.append(id, submission(key.map(|k| format!("m{k}")), &players, day))
                    .map(|_| ())
            }
            Op::Void(i) if !keys.is_empty() => {
                s.void(id, &keys[i as usize % keys.len()]).map(|_| ())
            }
            Op::Correct { target, players } if !keys.is_empty() => {
                let day = timed_league.then_some(target % 10);
                s.correct(
                    id,
                    &keys[target as usize % keys.len()],
                    submission(None, &players, day),
                    true,
                )
                .map(|_| ())
            }
            Op::Configure(sys) => s
                .configure(id, None, Some(SYSTEMS[sys as usize].into()), None)
                .map(|_| ()),
            _ => Ok(()),
        };
        // Refusals (conflicts, systems that cannot rate the ledger) are fine; they
        // must leave the state consistent.
        if let Err(e) = &result {
            prop_assert!(e.is_client_error(), "{e}");
        }
        assert_matches_replay(s, id);
    }
    for s in &servers {
        s.refresh(id).unwrap();
        assert_matches_replay(s, id);
    }
    drop(servers);
    let s = Leagues::open_loaded(reopen(), small()).unwrap();
    assert_matches_replay(&s, id);
    Ok(())
}

fn property_cases() -> ProptestConfig {
    ProptestConfig::with_cases(48)
}

proptest! {
    #![proptest_config(property_cases())]

    /// Whatever the sequence of appends (with retries and conflicts, some with seats as
    /// factors), voids, corrections and system changes (to systems that rate factors or
    /// refuse them), made through either of two servers on one SQLite file, the
    /// ratings each serves equal a fresh replay of the ledger, and again after reopening.
    #[test]
    fn served_ratings_equal_a_fresh_replay_on_sqlite(
        ops in prop::collection::vec((op(), any::<bool>()), 1..40),
        timed_league in any::<bool>(),
    ) {
        let scratch = Backend::Sqlite.scratch();
        run_ops(scratch.store.clone(), &*scratch.reopen, ops, timed_league)?;
    }
}

/// Runs `ops` (system changes left out) on a league of `system`, reading the board only
/// after the operations marked so (several changes may come between two reads), and
/// checks each time that the board served, in both orders, whole, page by page and as
/// JSON, equals one rebuilt from a fresh replay of the ledger.
fn run_board_ops(
    system: &str,
    ops: Vec<(Op, bool)>,
    timed_league: bool,
) -> Result<(), TestCaseError> {
    let (_scratch, s) = temp(Backend::Sqlite);
    let (id, _) = league(&s, system);
    for (op, read) in ops {
        let keys: Vec<String> = s.ledger(id).unwrap().into_iter().map(|e| e.key).collect();
        let result = match op {
            Op::Append {
                id: key,
                players,
                day,
            } => {
                let day = timed_league.then(|| day.unwrap_or(0));
                s.append(id, submission(key.map(|k| format!("m{k}")), &players, day))
                    .map(|_| ())
            }
            Op::Void(i) if !keys.is_empty() => {
                s.void(id, &keys[i as usize % keys.len()]).map(|_| ())
            }
            Op::Correct { target, players } if !keys.is_empty() => {
                let day = timed_league.then_some(target % 10);
                s.correct(
                    id,
                    &keys[target as usize % keys.len()],
                    submission(None, &players, day),
                    true,
                )
                .map(|_| ())
            }
            _ => Ok(()),
        };
        if let Err(e) = &result {
            prop_assert!(e.is_client_error(), "{e}");
        }
        if read {
            assert_matches_replay(&s, id);
        }
    }
    assert_matches_replay(&s, id);
    Ok(())
}

proptest! {
    #![proptest_config(property_cases())]

    /// After any appends, corrections and voids, the board served (order, ratings,
    /// ranks, pages, JSON) equals one rebuilt from scratch: for `kalman-mmr`, whose
    /// every match may change any player's reported rating, and for systems that
    /// change only their players' (`sme`, `elo-mmr`, `glicko2`).
    #[test]
    fn the_served_board_equals_a_board_rebuilt_from_scratch(
        system in prop::sample::select(vec!["kalman-mmr", "sme", "elo-mmr", "glicko2"]),
        ops in prop::collection::vec((op(), prop::bool::weighted(0.3)), 1..60),
        timed_league in any::<bool>(),
    ) {
        run_board_ops(system, ops, timed_league)?;
    }
}

/// One PostgreSQL database for every case of the property test (each case has a league
/// of its own): making a database per case would cost more than the cases.
fn shared_postgres() -> &'static Scratch {
    static SHARED: std::sync::OnceLock<Scratch> = std::sync::OnceLock::new();
    SHARED.get_or_init(|| Backend::Postgres.scratch())
}

proptest! {
    #![proptest_config(property_cases())]

    /// The same on PostgreSQL: two servers on one database.
    #[test]
    fn served_ratings_equal_a_fresh_replay_on_postgres(
        ops in prop::collection::vec((op(), any::<bool>()), 1..40),
        timed_league in any::<bool>(),
    ) {
        let scratch = shared_postgres();
        run_ops(scratch.store.clone(), &*scratch.reopen, ops, timed_league)?;
    }
}

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(#[test] fn $name() { super::$name(super::Backend::Sqlite) })*
        }
        mod on_postgres {
            $(#[test] fn $name() { super::$name(super::Backend::Postgres) })*
        }
    };
}

on_both_backends!(
    append_retry_and_conflict,
    factors_are_stored_rated_and_part_of_the_content,
    bad_matches_change_nothing,
    tokens_authorize_their_own_league_only,
    void_correct_and_reconfigure_recompute,
    corrections_rate_again_from_the_last_checkpoint,
    board_json_versions_change_with_the_board_only,
    timed_matches_are_rated_in_time_order,
    a_league_that_began_without_dates_takes_dated_games,
    two_servers_on_one_store_follow_each_other,
    the_ledger_survives_reopening,
    a_league_made_here_is_served_at_once_though_the_follower_saw_it_first,
    league_names_are_unique_in_the_store,
    a_correction_keeps_a_dated_match_dated,
);

fn named(leagues: &Leagues, name: &str) -> Result<LeagueId, StoreError> {
    leagues
        .create_league(&NewLeague {
            name: name.into(),
            system: "sme".into(),
            config: podium::Settings::new(),
        })
        .map(|(info, _)| info.id)
}

/// League names are unique in the store around spaces and letter case aside, even for
/// leagues created at the same moment by several threads of two servers, none of which
/// has seen the others' league: one is created, the others are refused naming it.
fn league_names_are_unique_in_the_store(b: Backend) {
    let (scratch, a) = temp(b);
    // A second server: on PostgreSQL a store of its own on the same database.
    let second = match b {
        Backend::Sqlite => scratch.store.clone(),
        Backend::Postgres => (scratch.reopen)(),
    };
    let other = open(&second);
    let names = [
        "race", " Race", "RACE ", "rAce", "race", "Race", "race  ", "RACE",
    ];
    let barrier = std::sync::Barrier::new(names.len());
    let results: Vec<Result<LeagueId, StoreError>> = std::thread::scope(|s| {
        let handles: Vec<_> = names
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let (leagues, barrier) = (if k % 2 == 0 { &a } else { &other }, &barrier);
                s.spawn(move || {
                    barrier.wait();
                    named(leagues, name)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let made: Vec<LeagueId> = results
        .iter()
        .filter_map(|r| r.as_ref().ok().copied())
        .collect();
    assert_eq!(made.len(), 1, "{results:?}");
    let winner = made[0];
    let stored = scratch.store.league_row(winner).unwrap().unwrap().name;
    for r in &results {
        match r {
            Ok(id) => assert_eq!(*id, winner),
            Err(StoreError::NameTaken { name, league }) => {
                assert_eq!((name.as_str(), *league), (stored.as_str(), Some(winner)));
                assert_eq!(
                    r.as_ref().unwrap_err().to_string(),
                    format!("a league named {stored:?} exists already (league {winner}): choose another name")
                );
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(scratch.store.league_rows().unwrap().len(), 1);
    // A rename to the name is refused the same way and changes nothing; a league may
    // take its own name in other letter case.
    let cup = named(&other, "cup").unwrap();
    let e = other
        .configure(cup, Some(" RACE ".into()), None, None)
        .unwrap_err();
    assert!(
        matches!(e, StoreError::NameTaken { league: Some(l), .. } if l == winner),
        "{e}"
    );
    assert_eq!(scratch.store.league_row(cup).unwrap().unwrap().name, "cup");
    assert_eq!(other.league(cup).unwrap().name, "cup");
    other
        .configure(cup, Some("CUP".into()), None, None)
        .unwrap();
    assert_eq!(scratch.store.league_row(cup).unwrap().unwrap().name, "CUP");
    // The name given up is free again.
    a.refresh(winner).unwrap();
    a.configure(winner, Some("final".into()), None, None)
        .unwrap();
    named(&other, "Race").unwrap();
}

/// A ledger from before league names were unique may hold two leagues named alike: it
/// opens, the first of them keeps the name (a new league of that name is refused naming
/// it), and the other is left as it is and may still be reconfigured.
#[test]
fn an_older_ledger_with_two_leagues_named_alike_opens() {
    let dir = std::env::temp_dir().join(format!("podium-store-v6-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ledger.db");
    {
        let mut conn = Connection::open(&path).unwrap();
        let tx = conn.transaction().unwrap();
        // The schema before the migration that keeps names unique.
        for sql in &MIGRATIONS[..6] {
            tx.execute_batch(sql).unwrap();
        }
        tx.pragma_update(None, "user_version", 6).unwrap();
        for (id, name) in [(1, "Twice"), (2, "twice "), (3, "once")] {
            tx.execute(
                "INSERT INTO leagues (id, name, system, config, token_hash) VALUES (?1, ?2, 'elo', '[]', ?1)",
                params![id, name],
            )
            .unwrap();
        }
        tx.commit().unwrap();
    }
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).unwrap());
    let leagues = open(&store);
    assert_eq!(leagues.leagues().len(), 3);
    let e = named(&leagues, "TWICE").unwrap_err();
    assert_eq!(
        e.to_string(),
        "a league named \"Twice\" exists already (league 1): choose another name"
    );
    // The second keeps its name through a change of system.
    let info = leagues
        .configure(2, None, Some("sme".into()), None)
        .unwrap();
    assert_eq!(
        (info.name.as_str(), info.system.as_str()),
        ("twice ", "sme")
    );
    let e = leagues
        .configure(3, Some("twice".into()), None, None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            StoreError::NameTaken {
                league: Some(1),
                ..
            }
        ),
        "{e}"
    );
    drop(leagues);
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A league made by this server is served at once, even when the follower found its
/// row first (the store tells of a new row before the league is added here) and took
/// it for another server's league, still to load.
fn a_league_made_here_is_served_at_once_though_the_follower_saw_it_first(b: Backend) {
    let (scratch, s) = temp(b);
    let row = scratch
        .store
        .create_league("race", "sme", &podium::Settings::new(), "hash-of-race")
        .unwrap();
    let id = row.id;
    s.slot(id).unwrap();
    assert_eq!(s.loading(), [id], "the follower's look adds it as loading");
    s.made_here(row).unwrap();
    assert!(s.loading().is_empty());
    let r = s
        .append(id, sub(Some("g1"), &[("ann", 1), ("bo", 2)]))
        .unwrap();
    assert_eq!(r.entry.seq, 1);
    assert_matches_replay(&s, id);
}

mod seasons;
mod snapshots;
