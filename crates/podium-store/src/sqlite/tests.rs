use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use podium_io::JsonResult;
use proptest::prelude::*;

use super::*;

/// A fresh database path under the system's temporary directory.
fn temp_db() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "podium-store-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("ledger.db")
}

fn sub(id: Option<&str>, places: &[(&str, u32)]) -> Submission {
    Submission {
        id: id.map(str::to_string),
        match_id: None,
        time: None,
        results: places
            .iter()
            .map(|(p, r)| JsonResult {
                player: (*p).to_string(),
                rank: Some(f64::from(*r)),
                score: None,
                team: None,
                weight: None,
            })
            .collect(),
    }
}

fn timed(mut s: Submission, date: &str) -> Submission {
    s.time = Some(date.to_string());
    s
}

fn league(store: &mut SqliteStore, system: &str) -> (LeagueId, String) {
    let (info, token) = store
        .create_league(&NewLeague {
            name: "test".into(),
            system: system.into(),
            config: podium::Settings::new(),
        })
        .unwrap();
    (info.id, token)
}

/// The store's leaderboard equals a fresh replay of its exported ledger through
/// `podium::League` (sorted by `League::standings`), whole and page by page.
fn assert_matches_replay(store: &mut SqliteStore, id: LeagueId) {
    let info = store.league(id).unwrap();
    let mut fresh = podium::League::new(build_system(&info.system, &info.config).unwrap());
    for e in store.ledger(id).unwrap() {
        fresh.apply(&e.json.to_match("ledger", 1).unwrap()).unwrap();
    }
    let fresh = fresh.standings();
    let served = store.leaderboard(id).unwrap();
    assert_eq!(served.len(), fresh.len());
    for (a, b) in served.iter().zip(&fresh) {
        assert_eq!(a.position, b.position);
        assert_eq!(a.player, b.player);
        assert!(
            (a.rating - b.rating.value).abs() < 1e-9,
            "{} {} vs {}",
            a.player,
            a.rating,
            b.rating.value
        );
        assert_eq!(a.games, b.stats.games);
        assert_eq!(a.provisional, b.provisional);
        assert!((a.win_pct - b.stats.win_pct()).abs() < 1e-9);
        let p = store.player(id, &a.player).unwrap();
        assert_eq!(&p.standing, a);
        assert_eq!(p.history.len(), a.games as usize);
    }
    for (offset, limit) in [
        (0, 3),
        (2, 5),
        (served.len().saturating_sub(1), 10),
        (served.len() + 3, 2),
    ] {
        let (total, page) = store.leaderboard_page(id, offset, limit).unwrap();
        assert_eq!(total, served.len());
        let want: Vec<BoardRow> = served.iter().skip(offset).take(limit).cloned().collect();
        assert_eq!(page, want);
    }
    // The JSON made from per-player pieces is byte for byte the board's serialisation,
    // and keeps its version until the league changes.
    let json = store.leaderboard_json(id).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&json.json),
        String::from_utf8_lossy(&serde_json::to_vec(&*served).unwrap())
    );
    assert_eq!(store.leaderboard_json(id).unwrap().version, json.version);
}

#[test]
fn append_retry_and_conflict() {
    let mut s = SqliteStore::in_memory().unwrap();
    let (id, _) = league(&mut s, "sme");
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
}

#[test]
fn bad_matches_change_nothing() {
    let mut s = SqliteStore::in_memory().unwrap();
    let (id, _) = league(&mut s, "elo");
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
    assert!(s.ledger(id).unwrap().is_empty());
    assert!(s.leaderboard(id).unwrap().is_empty());
    // A batch: the good one is stored, the bad one is not.
    let r = s.append_batch(vec![
        (id, sub(Some("a"), &[("ann", 1), ("bo", 2)])),
        (id, sub(Some("b"), &[("ann", 1), ("bo", 2), ("cy", 3)])),
        (99, sub(Some("c"), &[("ann", 1), ("bo", 2)])),
    ]);
    assert!(r[0].is_ok());
    assert!(matches!(r[1], Err(StoreError::Rate { .. })));
    assert!(matches!(
        r[2],
        Err(StoreError::LeagueNotFound { league: 99 })
    ));
    assert_eq!(s.ledger(id).unwrap().len(), 1);
}

#[test]
fn tokens_authorize_their_own_league_only() {
    let mut s = SqliteStore::in_memory().unwrap();
    let (a, ta) = league(&mut s, "sme");
    let (b, tb) = league(&mut s, "sme");
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
    let stored: String = s
        .conn
        .query_row("SELECT token_hash FROM leagues WHERE id = ?1", [a], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(stored, hash_token(&ta));
    assert!(!stored.contains(&ta[4..]));
}

#[test]
fn void_correct_and_reconfigure_recompute() {
    let mut s = SqliteStore::in_memory().unwrap();
    let (id, _) = league(&mut s, "sme");
    s.append(id, sub(Some("g1"), &[("ann", 1), ("bo", 2)]))
        .unwrap();
    s.append(id, sub(Some("g2"), &[("bo", 1), ("cy", 2)]))
        .unwrap();
    s.void(id, "g1").unwrap();
    assert_matches_replay(&mut s, id);
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
    assert_matches_replay(&mut s, id);
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
    assert_matches_replay(&mut s, id);
    let info = s
        .configure(id, None, None, Some(podium::Settings::from([("k", "10")])))
        .unwrap();
    assert_eq!(info.config, podium::Settings::from([("k", "10")]));
    assert_matches_replay(&mut s, id);
}

#[test]
fn board_json_versions_change_with_the_board_only() {
    let mut s = SqliteStore::in_memory().unwrap();
    let (id, _) = league(&mut s, "sme");
    let (other, _) = league(&mut s, "sme");
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
    // A void replays the ledger into a new state: its board must not reuse a version
    // (here it has as many matches as the board of g1 alone, with other rows).
    s.void(id, "g1").unwrap();
    let after_void = s.leaderboard_json(id).unwrap();
    seen.push(after_void.version);
    assert_eq!(s.leaderboard_json(id).unwrap().version, after_void.version);
    let unique: std::collections::BTreeSet<u64> = seen.iter().copied().collect();
    assert_eq!(unique.len(), seen.len(), "{seen:?}");
    assert_matches_replay(&mut s, id);
}

#[test]
fn timed_matches_are_rated_in_time_order() {
    let mut s = SqliteStore::in_memory().unwrap();
    let (id, _) = league(&mut s, "sme");
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
    assert_matches_replay(&mut s, id);
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

#[test]
fn the_ledger_survives_reopening() {
    let path = temp_db();
    let (id, token) = {
        let mut s = SqliteStore::open(&path).unwrap();
        let (id, token) = league(&mut s, "mes");
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
    let mut s = SqliteStore::open(&path).unwrap();
    assert!(s.authorize(id, &token).is_ok());
    assert_eq!(s.ledger(id).unwrap().len(), 19);
    assert_matches_replay(&mut s, id);
    let next = s.append(id, sub(None, &[("ann", 1), ("bo", 2)])).unwrap();
    assert_eq!(next.entry.seq, 21);
    let version: i64 = s
        .conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version as usize, MIGRATIONS.len());
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[derive(Debug, Clone)]
enum Op {
    Append {
        id: Option<u8>,
        players: Vec<(u8, u32)>,
        day: Option<u8>,
    },
    Void(u8),
    Correct {
        target: u8,
        players: Vec<(u8, u32)>,
    },
    Configure(u8),
}

const SYSTEMS: &[&str] = &[
    "sme",
    "elo",
    "pairwise",
    "whitewhale",
    "proportional",
    "mes",
    "shares",
];

fn players() -> impl Strategy<Value = Vec<(u8, u32)>> {
    prop::collection::vec((0u8..8, 1u32..4), 2..5)
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

fn submission(id: Option<String>, players: &[(u8, u32)], day: Option<u8>) -> Submission {
    let mut seen = std::collections::HashSet::new();
    let named: Vec<(String, u32)> = players
        .iter()
        .filter(|(p, _)| seen.insert(*p))
        .map(|(p, r)| (format!("p{p}"), *r))
        .collect();
    let refs: Vec<(&str, u32)> = named.iter().map(|(p, r)| (p.as_str(), *r)).collect();
    let mut s = sub(id.as_deref(), &refs);
    s.time = day.map(|d| format!("2024-05-{:02}", d + 1));
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Whatever the sequence of appends (with retries and conflicts), voids, corrections
    /// and system changes, the served ratings equal a fresh replay of the ledger, before
    /// and after reopening the file.
    #[test]
    fn served_ratings_equal_a_fresh_replay(ops in prop::collection::vec(op(), 1..40), timed_league in any::<bool>()) {
        let path = temp_db();
        let mut s = SqliteStore::open(&path).unwrap();
        let (id, _) = league(&mut s, "sme");
        for op in ops {
            let keys: Vec<String> = s.ledger(id).unwrap().into_iter().map(|e| e.key).collect();
            let result = match op {
                Op::Append { id: key, players, day } => {
                    let day = if timed_league { Some(day.unwrap_or(0)) } else { None };
                    s.append(id, submission(key.map(|k| format!("m{k}")), &players, day)).map(|_| ())
                }
                Op::Void(i) if !keys.is_empty() => s.void(id, &keys[i as usize % keys.len()]).map(|_| ()),
                Op::Correct { target, players } if !keys.is_empty() => {
                    let day = timed_league.then_some(target % 10);
                    s.correct(id, &keys[target as usize % keys.len()], submission(None, &players, day), true).map(|_| ())
                }
                Op::Configure(sys) => s.configure(id, None, Some(SYSTEMS[sys as usize].into()), None).map(|_| ()),
                _ => Ok(()),
            };
            // Refusals (conflicts, systems that cannot rate the ledger) are fine; they
            // must leave the state consistent.
            if let Err(e) = &result {
                prop_assert!(e.is_client_error(), "{e}");
            }
            assert_matches_replay(&mut s, id);
        }
        drop(s);
        let mut s = SqliteStore::open(&path).unwrap();
        assert_matches_replay(&mut s, id);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}
