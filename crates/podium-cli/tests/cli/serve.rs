//! `podium serve` as a process: many concurrent clients with retries, and a SIGKILL in
//! the middle of the load. Loopback only; every loop is bounded.

use std::collections::{HashMap, HashSet};

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util::{podium, Dir, Server};

const CLIENTS: usize = 16;
const MATCHES: usize = 2_000;

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(30))
        .build()
}

/// A deterministic pseudo-random sequence (xorshift), so the test needs no seed crate.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// `MATCHES` games of 2 to 5 players out of 60, places with ties.
fn matches() -> Vec<String> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..MATCHES)
        .map(|i| {
            let n = 2 + rng.next(4) as usize;
            let mut players: Vec<u64> = Vec::new();
            while players.len() < n {
                let p = rng.next(60);
                if !players.contains(&p) {
                    players.push(p);
                }
            }
            let results: Vec<Value> = players
                .iter()
                .map(|p| json!({"player": format!("player{p:02}"), "rank": 1 + rng.next(n as u64)}))
                .collect();
            json!({"id": format!("m{i:04}"), "results": results}).to_string()
        })
        .collect()
}

fn create_league(base: &str, system: &str) -> (i64, String) {
    let v: Value = agent()
        .post(&format!("{base}/api/leagues"))
        .send_json(json!({"name": "load", "system": system}))
        .unwrap()
        .into_json()
        .unwrap();
    (
        v["id"].as_i64().unwrap(),
        v["admin_token"].as_str().unwrap().to_string(),
    )
}

#[derive(Default)]
struct Tally {
    created: AtomicUsize,
    duplicate: AtomicUsize,
    acknowledged: Mutex<HashSet<String>>,
}

/// Sends every match from `CLIENTS` threads; every 5th is sent twice (a client retry).
/// A transport error is retried (bounded) unless `stop` is set, then the client quits.
fn submit_all(
    base: &str,
    league: i64,
    token: &str,
    games: &[String],
    tally: &Tally,
    stop: &AtomicBool,
) {
    let url = format!("{base}/api/leagues/{league}/matches");
    std::thread::scope(|s| {
        for c in 0..CLIENTS {
            let url = &url;
            s.spawn(move || {
                let agent = agent();
                for (i, body) in games.iter().enumerate().filter(|(i, _)| i % CLIENTS == c) {
                    let sends = if i % 5 == 0 { 2 } else { 1 };
                    for _ in 0..sends {
                        let mut attempts = 0;
                        loop {
                            if stop.load(Ordering::SeqCst) {
                                return;
                            }
                            attempts += 1;
                            let res = agent
                                .post(url)
                                .set("Authorization", &format!("Bearer {token}"))
                                .set("Content-Type", "application/json")
                                .send_string(body);
                            match res {
                                Ok(r) => {
                                    let status = r.status();
                                    let v: Value = r.into_json().unwrap();
                                    match status {
                                        201 => tally.created.fetch_add(1, Ordering::SeqCst),
                                        200 => tally.duplicate.fetch_add(1, Ordering::SeqCst),
                                        s => panic!("unexpected status {s}: {v}"),
                                    };
                                    let id = v["match"].as_str().unwrap().to_string();
                                    tally.acknowledged.lock().unwrap().insert(id);
                                    break;
                                }
                                Err(ureq::Error::Status(code, r)) => {
                                    panic!("status {code}: {}", r.into_string().unwrap_or_default())
                                }
                                Err(e) => {
                                    assert!(
                                        attempts < 20,
                                        "giving up after {attempts} attempts: {e}"
                                    );
                                    std::thread::sleep(Duration::from_millis(50));
                                }
                            }
                        }
                    }
                }
            });
        }
    });
}

fn get(url: &str) -> String {
    agent().get(url).call().unwrap().into_string().unwrap()
}

/// The server's leaderboard equals `podium rate` on the server's exported ledger.
fn assert_offline_equals_online(base: &str, league: i64, system: &str, dir: &Dir) -> usize {
    let ledger = get(&format!("{base}/api/leagues/{league}/matches"));
    let file = dir.file("ledger.jsonl", &ledger);
    let offline: Value =
        serde_json::from_str(podium(&["rate", &file, "--system", system, "--format", "json"]).ok())
            .unwrap();
    let online: Value =
        serde_json::from_str(&get(&format!("{base}/api/leagues/{league}/leaderboard"))).unwrap();
    let offline: HashMap<&str, &Value> = offline
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["player"].as_str().unwrap(), r))
        .collect();
    let online = online.as_array().unwrap();
    assert_eq!(online.len(), offline.len());
    for row in online {
        let off = offline[row["player"].as_str().unwrap()];
        let (a, b) = (
            row["rating"].as_f64().unwrap(),
            off["rating"].as_f64().unwrap(),
        );
        assert!(
            (a - b).abs() < 1e-9,
            "{}: online {a}, offline {b}",
            row["player"]
        );
        assert_eq!(row["games"], off["games"]);
        assert_eq!(row["position"], off["position"]);
    }
    ledger.lines().count()
}

#[test]
fn sixteen_clients_with_retries_store_every_match_once() {
    let dir = Dir::new("serve-load");
    let server = Server::start(&dir.path("load.db"));
    let (league, token) = create_league(&server.base, "sme");
    let games = matches();
    let tally = Tally::default();
    submit_all(
        &server.base,
        league,
        &token,
        &games,
        &tally,
        &AtomicBool::new(false),
    );
    assert_eq!(tally.created.load(Ordering::SeqCst), MATCHES);
    assert_eq!(tally.duplicate.load(Ordering::SeqCst), MATCHES / 5);
    let stored = assert_offline_equals_online(&server.base, league, "sme", &dir);
    assert_eq!(stored, MATCHES);
    let info: Value =
        serde_json::from_str(&get(&format!("{}/api/leagues/{league}", server.base))).unwrap();
    assert_eq!(info["matches"], MATCHES);
}

#[test]
fn sigkill_during_load_loses_no_acknowledged_match() {
    let dir = Dir::new("serve-crash");
    let db = dir.path("crash.db");
    let mut server = Server::start(&db);
    let (league, token) = create_league(&server.base, "mes");
    let games = matches();
    let tally = Tally::default();
    let stop = AtomicBool::new(false);
    let base = server.base.clone();
    std::thread::scope(|s| {
        s.spawn(|| submit_all(&base, league, &token, &games, &tally, &stop));
        // Kill the server once a few hundred matches are acknowledged (bounded wait).
        let started = Instant::now();
        while tally.acknowledged.lock().unwrap().len() < 300
            && started.elapsed() < Duration::from_secs(120)
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        stop.store(true, Ordering::SeqCst);
        server.kill();
    });
    let acknowledged = tally.acknowledged.lock().unwrap().clone();
    assert!(
        acknowledged.len() >= 300,
        "only {} acknowledged",
        acknowledged.len()
    );
    assert!(
        acknowledged.len() < MATCHES,
        "the kill came after the load finished"
    );

    let server = Server::start(&db);
    let ledger = get(&format!("{}/api/leagues/{league}/matches", server.base));
    let stored: HashSet<String> = ledger
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["match"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let lost: Vec<&String> = acknowledged.difference(&stored).collect();
    assert!(
        lost.is_empty(),
        "acknowledged but lost after SIGKILL: {lost:?}"
    );

    // The clients finish the job against the restarted server: every match exactly once.
    let token = Arc::new(token);
    let tally = Tally::default();
    submit_all(
        &server.base,
        league,
        &token,
        &games,
        &tally,
        &AtomicBool::new(false),
    );
    assert_eq!(tally.created.load(Ordering::SeqCst), MATCHES - stored.len());
    let count = assert_offline_equals_online(&server.base, league, "mes", &dir);
    assert_eq!(count, MATCHES);
}

#[test]
fn sigterm_stops_the_server_gracefully_and_the_ledger_stays() {
    let dir = Dir::new("serve-term");
    let db = dir.path("term.db");
    let mut server = Server::start(&db);
    let (league, token) = create_league(&server.base, "sme");
    let r = agent()
        .post(&format!("{}/api/leagues/{league}/matches", server.base))
        .set("Authorization", &format!("Bearer {token}"))
        .set("Content-Type", "application/json")
        .send_string(&matches()[0])
        .unwrap();
    assert_eq!(r.status(), 201);
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let started = Instant::now();
    let status = loop {
        if let Some(s) = server.child.try_wait().unwrap() {
            break s;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "still running after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let server = Server::start(&db);
    let ledger = get(&format!("{}/api/leagues/{league}/matches", server.base));
    assert_eq!(ledger.lines().count(), 1);
}
