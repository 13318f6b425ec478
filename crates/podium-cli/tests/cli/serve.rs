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

/// The timed tests of this file run alone: the others take this lock shared, a timed
/// one takes it whole, so that the servers of other tests do not take the CPU it is
/// measuring on.
fn alone() -> std::sync::RwLockWriteGuard<'static, ()> {
    LOAD.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn shared() -> std::sync::RwLockReadGuard<'static, ()> {
    LOAD.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

static LOAD: std::sync::RwLock<()> = std::sync::RwLock::new(());

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
    random_matches(MATCHES, 60, 0x9E37_79B9_7F4A_7C15)
}

/// `count` games (ids `m0000`…) of 2 to 5 players out of `pool`, places with ties.
fn random_matches(count: usize, pool: u64, seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|i| {
            let n = 2 + rng.next(4) as usize;
            let mut players: Vec<u64> = Vec::new();
            while players.len() < n {
                let p = rng.next(pool);
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
        .send_json(json!({"name": format!("load {system}"), "system": system}))
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
    /// Answers 503 (retried).
    unavailable: AtomicUsize,
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
                                // A restarted server answers 503 (Retry-After) until
                                // the league is loaded again: a client waits and retries.
                                Err(ureq::Error::Status(503, r)) => {
                                    let _ = r.into_string();
                                    tally.unavailable.fetch_add(1, Ordering::SeqCst);
                                    assert!(attempts < 600, "still loading after {attempts} tries");
                                    std::thread::sleep(Duration::from_millis(100));
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
    let _load = shared();
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
    let _load = shared();
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
    let _load = shared();
    let dir = Dir::new("serve-term");
    let db = dir.path("term.db");
    let mut server = Server::start(&db);
    let (league, token) = create_league(&server.base, "sme");
    let (heavy, heavy_token) = create_league(&server.base, "thurstone-mosteller-full");
    let r = agent()
        .post(&format!("{}/api/leagues/{league}/matches", server.base))
        .set("Authorization", &format!("Bearer {token}"))
        .set("Content-Type", "application/json")
        .send_string(&matches()[0])
        .unwrap();
    assert_eq!(r.status(), 201);
    // A write that takes a while (a 3,000-player match) is in flight when SIGTERM comes:
    // it is finished, answered and stored before the server stops.
    let big = json!({"id": "big", "results": (0..3_000).map(|i| json!({"player": format!("p{i}"), "rank": i + 1})).collect::<Vec<_>>()}).to_string();
    let base = server.base.clone();
    let in_flight = std::thread::spawn(move || {
        post_json(
            &format!("{base}/api/leagues/{heavy}/matches"),
            Some(&heavy_token),
            &big,
        )
        .0
    });
    std::thread::sleep(Duration::from_millis(300));
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
            started.elapsed() < Duration::from_secs(60),
            "still running after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    assert_eq!(
        in_flight.join().unwrap(),
        201,
        "the write in flight was finished"
    );
    let server = Server::start(&db);
    let ledger = get(&format!("{}/api/leagues/{league}/matches", server.base));
    assert_eq!(ledger.lines().count(), 1);
    let ledger = get(&format!("{}/api/leagues/{heavy}/matches", server.base));
    assert_eq!(ledger.lines().count(), 1);
}

/// Starts `podium serve` with `args` (and `--addr 127.0.0.1:0` unless given); returns
/// the server and how long it took to print its address.
fn start_with(args: &[&str]) -> (Server, Duration) {
    use std::io::{BufRead, BufReader};
    let mut all: Vec<&str> = vec!["serve"];
    all.extend_from_slice(args);
    if !args.contains(&"--addr") {
        all.extend_from_slice(&["--addr", "127.0.0.1:0"]);
    }
    let started = Instant::now();
    let mut child = crate::util::bin()
        .args(&all)
        .env("RUST_LOG", "warn")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("podium serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let took = started.elapsed();
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .trim_end_matches('/')
        .to_string();
    (Server { child, base }, took)
}

/// POSTs a JSON body; the status and the body of the answer.
fn post_json(url: &str, token: Option<&str>, body: &str) -> (u16, String) {
    let mut req = agent().post(url).set("Content-Type", "application/json");
    if let Some(t) = token {
        req = req.set("Authorization", &format!("Bearer {t}"));
    }
    match req.send_string(body) {
        Ok(r) => (r.status(), r.into_string().unwrap()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap()),
        Err(e) => panic!("{url}: {e}"),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// One league is fed, back to back, the heaviest match the default limits allow (10,000
/// players, rated by `thurstone-mosteller-full`: seconds of work each), while another
/// league is read and written. The other league answers while the heavy match is being
/// rated, not only after it; its latencies are printed, not bounded.
#[test]
fn a_league_busy_for_seconds_holds_up_no_other() {
    let _load = alone();
    let dir = Dir::new("serve-isolation");
    let (server, _) = start_with(&["--db", &dir.path("iso.db")]);
    let (heavy, heavy_token) = create_league(&server.base, "thurstone-mosteller-full");
    let (light, light_token) = create_league(&server.base, "sme");
    let max = podium_server::Limits::default().max_players;
    let heavy_match = |k: usize| {
        let results: Vec<Value> = (0..max)
            .map(|i| json!({"player": format!("p{i:05}"), "rank": 1 + (i + k) % max}))
            .collect();
        json!({"id": format!("heavy{k}"), "results": results}).to_string()
    };
    // The largest allowed, and no larger.
    let r = post_json(
        &format!("{}/api/leagues/{heavy}/matches", server.base),
        Some(&heavy_token),
        &json!({"id": "too big", "results": (0..=max).map(|i| json!({"player": format!("q{i}"), "rank": i + 1})).collect::<Vec<_>>()}).to_string(),
    );
    assert_eq!(r.0, 422, "{}", r.1);

    // (started, finished) of each heavy submission.
    let busy: Mutex<Vec<(Instant, Option<Instant>)>> = Mutex::new(Vec::new());
    let stop = AtomicBool::new(false);
    let base = server.base.clone();
    let light_url = format!("{base}/api/leagues/{light}");
    // Per round, (the due-to-answered time, when sent, when answered) of each call.
    let mut rounds: Vec<Vec<(Duration, Instant, Instant)>> = Vec::new();
    let mut stopped = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            let url = format!("{base}/api/leagues/{heavy}/matches");
            let mut k = 0;
            while !stop.load(Ordering::SeqCst) {
                let body = heavy_match(k);
                let at = busy.lock().unwrap().len();
                busy.lock().unwrap().push((Instant::now(), None));
                let r = ureq::AgentBuilder::new()
                    .timeout(Duration::from_secs(600))
                    .build()
                    .post(&url)
                    .set("Authorization", &format!("Bearer {heavy_token}"))
                    .set("Content-Type", "application/json")
                    .send_string(&body);
                match r {
                    Ok(r) => assert_eq!(r.status(), 201),
                    // The server is stopped under the last one.
                    Err(_) if stop.load(Ordering::SeqCst) => return,
                    Err(e) => panic!("the heavy match is not rated: {e}"),
                }
                busy.lock().unwrap()[at].1 = Some(Instant::now());
                k += 1;
            }
        });
        // Let the first heavy match reach the server and start being rated.
        std::thread::sleep(Duration::from_millis(500));
        // Rounds of two seconds in which four clients read and write the other league,
        // each a call every 10 ms. A call's time runs from when it was due, not from
        // when it could be sent, so that a server that stops answering for a while is
        // charged for every call due meanwhile (not for one slow call).
        for round in 0..3 {
            let window = Duration::from_secs(2);
            let from = Instant::now();
            let times = Mutex::new(Vec::new());
            std::thread::scope(|p| {
                for client in 0..4 {
                    let (times, light_url, light_token) = (&times, &light_url, &light_token);
                    p.spawn(move || {
                        let a = agent();
                        let every = Duration::from_millis(10);
                        let mut i = 0;
                        loop {
                            let due = from + every * i;
                            if due >= from + window {
                                break;
                            }
                            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                                std::thread::sleep(wait);
                            }
                            let sent = Instant::now();
                            match i % 4 {
                                0 => {
                                    let r = a
                                        .post(&format!("{light_url}/matches"))
                                        .set("Authorization", &format!("Bearer {light_token}"))
                                        .set("Content-Type", "application/json")
                                        .send_string(&json!({"id": format!("r{round}-{client}-{i}"), "results": [
                                            {"player": format!("p{}", i % 7), "rank": 1},
                                            {"player": format!("p{}", (i + 3) % 7), "rank": 2}]}).to_string())
                                        .unwrap();
                                    assert_eq!(r.status(), 201);
                                }
                                1 => {
                                    a.get(&format!("{light_url}/leaderboard")).call().unwrap().into_string().unwrap();
                                }
                                2 => {
                                    a.get(&format!("{light_url}/leaderboard?limit=3")).call().unwrap().into_string().unwrap();
                                }
                                _ => {
                                    a.get(light_url).call().unwrap().into_string().unwrap();
                                }
                            }
                            times.lock().unwrap().push((due.elapsed(), sent, Instant::now()));
                            i += 1;
                        }
                    });
                }
            });
            rounds.push(times.into_inner().unwrap());
        }
        stopped = Instant::now();
        stop.store(true, Ordering::SeqCst);
        drop(server);
    });
    // When the heavy league was surely rating: the middle half of each heavy call that
    // was answered (its first quarter covers sending 10,000 results, its last storing
    // and answering them), and from half a second after the unanswered one was sent
    // until the rounds ended. A server that rated one league at a time would answer
    // the other league's calls only after a heavy match, so none in these spans.
    let rating: Vec<(Instant, Instant)> = busy
        .lock()
        .unwrap()
        .iter()
        .map(|&(start, end)| match end {
            Some(end) => (start + (end - start) / 4, end - (end - start) / 4),
            None => (start + Duration::from_millis(500), stopped),
        })
        .filter(|(from, to)| from < to)
        .collect();
    let summary: Vec<(usize, Duration, Duration, usize)> = rounds
        .iter()
        .map(|calls| {
            let mut times: Vec<Duration> = calls.iter().map(|c| c.0).collect();
            times.sort();
            let during = calls
                .iter()
                .filter(|c| rating.iter().any(|r| r.0 <= c.1 && c.2 <= r.1))
                .count();
            (
                times.len(),
                percentile(&times, 0.5),
                percentile(&times, 0.99),
                during,
            )
        })
        .collect();
    let heavy_calls: Vec<(Duration, Option<Duration>)> = {
        let spans = busy.lock().unwrap();
        let first = spans[0].0;
        spans
            .iter()
            .map(|&(start, end)| (start - first, end.map(|end| end - start)))
            .collect()
    };
    eprintln!(
        "other league while one is busy, (calls, p50, p99, calls sent and answered while a heavy match was rated) per round: {summary:?}; heavy calls (sent after the first, answered after): {heavy_calls:?}"
    );
    assert!(
        !rating.is_empty(),
        "no heavy match was being rated during the rounds: {heavy_calls:?}"
    );
    // What is asserted is an order, not a speed: the other league answers while a heavy
    // match is being rated, not after it. How fast it answers is measured by the server
    // benchmark (docs/benchmarks.md), not here, where a busy machine may slow any call.
    assert!(
        summary.iter().any(|r| r.3 > 0),
        "the other league answered nothing while the heavy one was being rated: (calls, p50, p99, during) {summary:?}"
    );
}

/// A restart with a large ledger listens at once; the large league answers 503 (with
/// Retry-After) until it is loaded (its board from the ratings saved in the store, the
/// changes of its matches once its whole ledger is rated), a small one is served
/// meanwhile.
#[test]
fn a_restart_with_a_large_league_listens_at_once() {
    let _load = alone();
    let dir = Dir::new("serve-restart");
    let db = dir.path("large.db");
    let (mut server, _) = start_with(&["--db", &db]);
    let (small, _) = create_league(&server.base, "sme");
    let (large, token) = create_league(&server.base, "mes");
    let url = format!("{}/api/leagues/{large}/matches", server.base);
    let mut rng = Rng(7);
    for b in 0..40 {
        let batch: Vec<Value> = (0..1_000)
            .map(|i| {
                let n = 2 + rng.next(6) as usize;
                let mut players: Vec<u64> = Vec::new();
                while players.len() < n {
                    let p = rng.next(5_000);
                    if !players.contains(&p) {
                        players.push(p);
                    }
                }
                json!({"id": format!("b{b}-{i}"), "results": players.iter().enumerate().map(|(r, p)| json!({"player": format!("p{p}"), "rank": r + 1})).collect::<Vec<_>>()})
            })
            .collect();
        let r = post_json(&url, Some(&token), &Value::Array(batch).to_string());
        assert_eq!(r.0, 200, "{}", r.1);
    }
    server.kill();
    // It listens before the large league is loaded: the first call below finds it
    // loading.
    let (server, _) = start_with(&["--db", &db]);
    let status = |path: &str| match agent().get(&format!("{}{path}", server.base)).call() {
        Ok(r) => (r.status(), None),
        Err(ureq::Error::Status(code, r)) => (code, r.header("retry-after").map(str::to_string)),
        Err(e) => panic!("{e}"),
    };
    let changes = format!("/api/leagues/{large}/matches/b0-0");
    let (code, retry) = status(&changes);
    assert_eq!(
        (code, retry.as_deref()),
        (503, Some("1")),
        "the large league is still loading"
    );
    // The small league is loaded first, by a thread that starts with the listener: it
    // answers while the large one still loads (the bound only ends a hung run).
    let started = Instant::now();
    while status(&format!("/api/leagues/{small}/leaderboard")).0 != 200 {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the small league waits"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        status(&changes).0,
        503,
        "the large league is loaded after the small one"
    );
    while status(&changes).0 != 200 {
        assert!(started.elapsed() < Duration::from_secs(300), "never loaded");
        std::thread::sleep(Duration::from_millis(100));
    }
    let info: Value =
        serde_json::from_str(&get(&format!("{}/api/leagues/{large}", server.base))).unwrap();
    assert_eq!(info["matches"], 40_000);
    assert_eq!(info["ready"], true);
    assert_eq!(
        status(&format!("/api/leagues/{large}/leaderboard?limit=5")).0,
        200
    );
}

#[test]
fn on_a_public_address_creating_leagues_needs_a_token_or_open() {
    let _load = shared();
    let dir = Dir::new("serve-public");
    let refused = podium(&["serve", "--db", &dir.path("p.db"), "--addr", "0.0.0.0:0"]);
    let err = refused.err();
    assert!(
        err.contains("--admin-token-file") && err.contains("--open"),
        "{err}"
    );
    let short = dir.file("short", "abc\n");
    assert!(podium(&[
        "serve",
        "--db",
        &dir.path("p.db"),
        "--admin-token-file",
        &short
    ])
    .err()
    .contains("at least 16"));

    let (server, _) = start_with(&["--db", &dir.path("p.db"), "--addr", "0.0.0.0:0", "--open"]);
    let base = server.base.replace("0.0.0.0", "127.0.0.1");
    assert_eq!(
        post_json(&format!("{base}/api/leagues"), None, r#"{"name":"x"}"#).0,
        201
    );
    drop(server);

    let token = "0123456789abcdef0123456789abcdef";
    let file = dir.file("token", &format!("{token}\n"));
    let (server, _) = start_with(&[
        "--db",
        &dir.path("p.db"),
        "--addr",
        "0.0.0.0:0",
        "--admin-token-file",
        &file,
    ]);
    let base = server.base.replace("0.0.0.0", "127.0.0.1");
    let url = format!("{base}/api/leagues");
    assert_eq!(post_json(&url, None, r#"{"name":"y"}"#).0, 401);
    assert_eq!(post_json(&url, Some(token), r#"{"name":"y"}"#).0, 201);
}

/// `--addr` takes a host name as well as an IP address: `localhost` listens on its IPv4
/// address; a name without a port, or one that does not resolve, is refused naming it.
#[test]
fn the_address_may_name_a_host() {
    let _load = shared();
    let dir = Dir::new("serve-host");
    let (server, _) = start_with(&["--db", &dir.path("h.db"), "--addr", "localhost:0"]);
    assert!(
        server.base.starts_with("http://127.0.0.1:"),
        "{}",
        server.base
    );
    drop(server);
    let refused = podium(&["serve", "--db", &dir.path("h.db"), "--addr", "localhost"]);
    let err = refused.err();
    assert!(
        err.contains("invalid value 'localhost' for '--addr <HOST:PORT>'")
            && err.contains(
                "expected HOST:PORT, such as 127.0.0.1:8080, 0.0.0.0:8080 or localhost:8080"
            ),
        "{err}"
    );
}

#[test]
fn a_read_only_database_is_refused_at_start() {
    let _load = shared();
    let dir = Dir::new("serve-ro");
    let db = dir.path("ro.db");
    let (server, _) = start_with(&["--db", &db]);
    create_league(&server.base, "sme");
    drop(server);
    let err = podium(&[
        "serve",
        "--db",
        &format!("file:{db}?mode=ro"),
        "--addr",
        "127.0.0.1:0",
    ])
    .err()
    .to_string();
    assert!(err.contains("read-only") && err.contains("ro.db"), "{err}");
}

/// Splits a shell command line into words: single and double quotes, `$NAME` in double
/// quotes and bare words, a trailing `# comment` dropped.
fn words(line: &str, vars: &HashMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    let expand = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, w: &mut String| {
        let mut name = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_ascii_alphanumeric() || c == '_' {
                name.push(c);
                chars.next();
            } else {
                break;
            }
        }
        w.push_str(&vars[&name]);
    };
    while let Some(c) = chars.next() {
        match c {
            '#' if word.is_none() => break,
            ' ' | '\t' => {
                if let Some(w) = word.take() {
                    out.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    w.push(c);
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '$' => expand(&mut chars, w),
                        c => w.push(c),
                    }
                }
            }
            '$' => expand(&mut chars, word.get_or_insert_with(String::new)),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    out
}

/// The README's league server quick start, command by command, against a server on a
/// free port: the curl commands are run as written (method, headers, body), the token
/// is the one the server gave.
#[test]
fn the_readme_quick_start_works() {
    let _load = shared();
    let readme = std::fs::read_to_string(crate::util::repo_root().join("README.md")).unwrap();
    let section = readme
        .split("## A league server in under a minute")
        .nth(1)
        .expect("the README has its quick start");
    let block = section
        .split("```sh")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let dir = Dir::new("serve-readme");
    let mut lines: Vec<String> = Vec::new();
    for line in block.lines() {
        match lines.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push_str(line.trim_start());
            }
            _ => lines.push(line.to_string()),
        }
    }
    let mut vars: HashMap<String, String> = HashMap::new();
    let mut server: Option<Server> = None;
    let mut last: Option<Value> = None;
    let mut ran = Vec::new();
    for line in lines {
        // `TOKEN=$(sed … league.json)`: the token of the answer just shown.
        let line = if line.starts_with("TOKEN=$(") {
            "TOKEN=".to_string()
        } else {
            line
        };
        let w = words(&line, &vars);
        let Some(first) = w.first() else { continue };
        match first.as_str() {
            "podium" if w.get(1).map(String::as_str) == Some("serve") => {
                assert_eq!(w.last().map(String::as_str), Some("&"), "{line}");
                let db = w
                    .iter()
                    .position(|a| a == "--db")
                    .map(|i| dir.path(&w[i + 1]))
                    .unwrap();
                server = Some(start_with(&["--db", &db]).0);
                ran.push("serve");
            }
            f if f.starts_with("TOKEN=") => {
                let token = last.as_ref().unwrap()["admin_token"]
                    .as_str()
                    .unwrap()
                    .to_string();
                assert!(token.starts_with("pdm_"));
                vars.insert("TOKEN".into(), token);
            }
            "curl" => {
                let base = &server.as_ref().expect("the server runs").base;
                let (mut method, mut headers, mut body, mut url, mut sink) =
                    (None, Vec::new(), None, None, None);
                let mut i = 1;
                while i < w.len() {
                    match w[i].as_str() {
                        "-s" => {}
                        "-X" => {
                            i += 1;
                            method = Some(w[i].clone());
                        }
                        "-H" => {
                            i += 1;
                            headers.push(w[i].clone());
                        }
                        "-d" => {
                            i += 1;
                            body = Some(w[i].clone());
                        }
                        ">" => {
                            i += 1;
                            sink = Some(w[i].clone());
                            break;
                        }
                        // `| tee FILE` shows the answer and keeps a copy for the
                        // `TOKEN=$(sed …)` line, which reads the token the server gave.
                        "|" => {
                            assert_eq!(w.get(i + 1).map(String::as_str), Some("tee"), "{line}");
                            break;
                        }
                        u if u.starts_with("localhost:8080") => {
                            url = Some(u.replacen(
                                "localhost:8080",
                                base.trim_start_matches("http://"),
                                1,
                            ))
                        }
                        other => panic!("the test does not know curl's {other:?} in {line}"),
                    }
                    i += 1;
                }
                let url = format!("http://{}", url.expect("a URL"));
                // curl's defaults: POST when there is a body, the form content type
                // unless a header says otherwise.
                let method = method.unwrap_or_else(|| {
                    if body.is_some() {
                        "POST".into()
                    } else {
                        "GET".into()
                    }
                });
                let mut req = agent().request(&method, &url);
                if body.is_some() {
                    req = req.set("Content-Type", "application/x-www-form-urlencoded");
                }
                for h in &headers {
                    let (k, v) = h.split_once(':').unwrap();
                    req = req.set(k.trim(), v.trim());
                }
                let res = match &body {
                    Some(b) => req.send_string(b),
                    None => req.call(),
                };
                let res = res.unwrap_or_else(|e| panic!("{line}: {e:?}"));
                let text = res.into_string().unwrap();
                match sink {
                    Some(file) => {
                        let file = dir.file(&file, &text);
                        let rest = line.split("&&").nth(1).expect("the saved ledger is rated");
                        let args = words(rest, &vars);
                        assert_eq!(args[0], "podium");
                        let args: Vec<String> = args[1..]
                            .iter()
                            .map(|a| {
                                if a.ends_with(".jsonl") {
                                    file.clone()
                                } else {
                                    a.clone()
                                }
                            })
                            .collect();
                        let out = podium(&args).ok().to_string();
                        assert!(out.contains("ann"), "{out}");
                        ran.push("rate");
                    }
                    None => last = Some(serde_json::from_str(&text).unwrap_or(Value::Null)),
                }
                ran.push("curl");
            }
            other => panic!("the test does not know the command {other:?}"),
        }
    }
    assert_eq!(ran, ["serve", "curl", "curl", "curl", "rate", "curl"]);
    let board = last.unwrap();
    assert_eq!(board[0]["player"], "ann", "{board}");
}

/// A fresh PostgreSQL database on the server `PODIUM_TEST_POSTGRES` names (`bash
/// scripts/test.sh` starts a throwaway one), or a clear failure.
fn postgres_database(name: &str) -> String {
    let server = std::env::var("PODIUM_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "this test needs a PostgreSQL server: set PODIUM_TEST_POSTGRES=postgres://USER@HOST:PORT/DB \
             (a user that may create databases), or run it with `bash scripts/with-postgres.sh cargo test ...` \
             (`bash scripts/test.sh` does)"
        )
    });
    let name = format!("podium_{name}_{}", std::process::id());
    podium_server::store::PgStore::create_database(&server, &name).unwrap()
}

const SERVERS_MATCHES: usize = 4_000;

/// Two `podium serve` on one PostgreSQL database, 16 clients spread over both submitting
/// 4,000 matches (every 5th sent to both servers at once, as a retry racing its first
/// send), one server killed with SIGKILL in the middle of the load and started again:
/// exactly 4,000 stored, every acknowledged match once, and both servers' leaderboards
/// equal `podium rate` on the exported ledger (so both rated one ledger order).
#[test]
fn two_servers_on_one_postgres_database_store_every_match_once() {
    let _load = shared();
    let dir = Dir::new("serve-pg");
    let url = postgres_database("two_servers");
    let (a, _) = start_with(&["--db", &url, "--instance", "a"]);
    let (mut b, _) = start_with(&["--db", &url, "--instance", "b"]);
    let (league, token) = create_league(&a.base, "mes");
    let bases = Mutex::new([a.base.clone(), b.base.clone()]);
    let games = random_matches(SERVERS_MATCHES, 80, 0xD1B5_4A32_D192_ED03);
    let created = AtomicUsize::new(0);
    let acknowledged: Mutex<HashMap<String, usize>> = Mutex::new(HashMap::new());
    let racing = AtomicUsize::new(0);
    let path = format!("/api/leagues/{league}/matches");
    // Sends one match to server `at`, moving on to the other server after a transport
    // error (as a load balancer would), bounded; the status of the answer.
    let send = |body: &str, mut at: usize| -> (u16, bool) {
        for attempt in 0..200 {
            let base = bases.lock().unwrap()[at].clone();
            match agent()
                .post(&format!("{base}{path}"))
                .set("Authorization", &format!("Bearer {token}"))
                .set("Content-Type", "application/json")
                .send_string(body)
            {
                Ok(r) => {
                    let status = r.status();
                    let v: Value = r.into_json().unwrap();
                    let id = v["match"].as_str().unwrap().to_string();
                    *acknowledged.lock().unwrap().entry(id).or_default() += 1;
                    if status == 201 {
                        created.fetch_add(1, Ordering::SeqCst);
                    }
                    return (status, attempt > 0);
                }
                Err(ureq::Error::Status(503, r)) => {
                    let _ = r.into_string();
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(ureq::Error::Status(code, r)) => {
                    panic!("status {code}: {}", r.into_string().unwrap_or_default())
                }
                Err(e) => {
                    assert!(attempt < 199, "giving up: {e}");
                    at = 1 - at;
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        }
        unreachable!()
    };
    let killed = AtomicBool::new(false);
    std::thread::scope(|s| {
        for c in 0..CLIENTS {
            let (games, send, racing) = (&games, &send, &racing);
            s.spawn(move || {
                for (i, body) in games.iter().enumerate().filter(|(i, _)| i % CLIENTS == c) {
                    if i % 5 == 0 {
                        // The same match to both servers at the same moment.
                        let (statuses, retried) = std::thread::scope(|r| {
                            let one = r.spawn(|| send(body, 0));
                            let two = r.spawn(|| send(body, 1));
                            let (one, two) = (one.join().unwrap(), two.join().unwrap());
                            let mut st = [one.0, two.0];
                            st.sort_unstable();
                            (st, one.1 || two.1)
                        });
                        // One stored it, the other found it stored; unless a send was
                        // cut by the kill after its commit, and retried: then both
                        // found it stored.
                        assert!(
                            statuses == [200, 201] || (retried && statuses == [200, 200]),
                            "match {i}: {statuses:?}"
                        );
                        racing.fetch_add(1, Ordering::SeqCst);
                    } else {
                        let (status, _) = send(body, c % 2);
                        assert!(status == 201 || status == 200, "{status}");
                    }
                }
            });
        }
        // Kill server b once a quarter of the matches are in, start it again.
        let started = Instant::now();
        while created.load(Ordering::SeqCst) < SERVERS_MATCHES / 4 {
            assert!(
                started.elapsed() < Duration::from_secs(300),
                "the load stalled"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        b.kill();
        killed.store(true, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(300));
        let (again, _) = start_with(&["--db", &url, "--instance", "b2"]);
        bases.lock().unwrap()[1] = again.base.clone();
        b = again;
    });
    assert!(killed.load(Ordering::SeqCst));
    // A match committed just before the kill, whose answer was lost, was retried on the
    // other server and found stored (200): at most one per client in flight.
    let created = created.load(Ordering::SeqCst);
    assert!(
        created <= SERVERS_MATCHES && created + 2 * CLIENTS >= SERVERS_MATCHES,
        "{created} created"
    );
    assert_eq!(racing.load(Ordering::SeqCst), SERVERS_MATCHES / 5);
    let acknowledged = acknowledged.into_inner().unwrap();
    assert_eq!(
        acknowledged.len(),
        SERVERS_MATCHES,
        "every match acknowledged"
    );

    // The ledger holds each match once; both servers serve what `podium rate` makes of it.
    let ledger = get(&format!("{}/api/leagues/{league}/matches", a.base));
    let ids: Vec<String> = ledger
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["match"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!(ids.len(), SERVERS_MATCHES);
    assert_eq!(unique.len(), SERVERS_MATCHES);
    assert!(acknowledged.keys().all(|id| unique.contains(id)));
    for server in [&a, &b] {
        // The other server's last writes reach it (the bound only ends a hung run).
        let started = Instant::now();
        loop {
            let info: Value =
                serde_json::from_str(&get(&format!("{}/api/leagues/{league}", server.base)))
                    .unwrap();
            if info["matches"] == SERVERS_MATCHES {
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(120), "{info}");
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(
            assert_offline_equals_online(&server.base, league, "mes", &dir),
            SERVERS_MATCHES
        );
    }
}

/// What one server commits, the other serves: it is told at once (LISTEN/NOTIFY) and
/// checks every league's head every second besides. Corrections and
/// voids too, and a league made on the other server.
#[test]
fn a_server_serves_the_others_writes() {
    let _load = alone();
    let url = postgres_database("follow");
    let (a, _) = start_with(&["--db", &url]);
    let (b, _) = start_with(&["--db", &url]);
    let (league, token) = create_league(&a.base, "sme");
    let matches = |base: &str| format!("{base}/api/leagues/{league}/matches");
    let served = |base: &str| -> Value {
        match agent()
            .get(&format!("{base}/api/leagues/{league}/leaderboard"))
            .call()
        {
            Ok(r) => r.into_json().unwrap(),
            Err(_) => Value::Null,
        }
    };
    for k in 0..3 {
        let body = json!({"id": format!("g{k}"), "results": [{"player": "ann", "rank": 1}, {"player": format!("p{k}"), "rank": 2}]});
        assert_eq!(
            post_json(&matches(&a.base), Some(&token), &body.to_string()).0,
            201
        );
    }
    // Each step is followed; the bound only ends a hung run (how soon the other server
    // follows depends on how busy the machine is, and is not a test's to assert).
    let followed = |what: &str, write: &dyn Fn(usize) -> (u16, String)| {
        let (status, body) = write(0);
        assert!(status == 200 || status == 201, "{what}: {status} {body}");
        let written = Instant::now();
        let want = served(&a.base);
        while served(&b.base) != want {
            assert!(
                written.elapsed() < Duration::from_secs(120),
                "{what}: never followed"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    followed("a match", &|k| {
        post_json(&matches(&a.base), Some(&token), &json!({"id": format!("h{k}"), "results": [{"player": "bo", "rank": 1}, {"player": format!("p{k}"), "rank": 2}]}).to_string())
    });
    followed("a correction", &|k| {
        let r = agent()
            .put(&format!("{}/g{k}", matches(&a.base)))
            .set("Authorization", &format!("Bearer {token}"))
            .set("Content-Type", "application/json")
            .send_string(&json!({"results": [{"player": format!("p{k}"), "rank": 1}, {"player": "ann", "rank": 2}]}).to_string())
            .unwrap();
        (r.status(), r.into_string().unwrap())
    });
    followed("a void", &|k| {
        let r = agent()
            .delete(&format!("{}/g{k}", matches(&a.base)))
            .set("Authorization", &format!("Bearer {token}"))
            .call()
            .unwrap();
        (r.status(), r.into_string().unwrap())
    });
    // A league made on one server is served by the other.
    let (other, _) = create_league(&a.base, "elo");
    let started = Instant::now();
    while agent()
        .get(&format!("{}/api/leagues/{other}/leaderboard", b.base))
        .call()
        .is_err()
    {
        assert!(started.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A hang guard, not a measure: how long a test waits at most for what must happen.
const HANG_GUARD: Duration = Duration::from_secs(30);

/// Connects to the server at `base` and sends `bytes`, then nothing more.
fn stall_after(base: &str, bytes: &str) -> std::net::TcpStream {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(base.trim_start_matches("http://")).unwrap();
    s.write_all(bytes.as_bytes()).unwrap();
    s
}

/// Reads until the server closes the connection; fails if it is still open after
/// [`HANG_GUARD`].
fn read_until_closed(s: &mut std::net::TcpStream) -> String {
    use std::io::Read;
    s.set_read_timeout(Some(HANG_GUARD)).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("the server kept the connection open: {e}"),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Waits (bounded by [`HANG_GUARD`]) for the server process to exit.
fn wait_exit(server: &mut Server) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(s) = server.child.try_wait().unwrap() {
            return s;
        }
        assert!(
            started.elapsed() < HANG_GUARD,
            "still running after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// SIGTERM waited for a client half-way through its request line (15–38 s, as long as
/// the client liked): the stop now closes that connection after the grace period, and
/// the process exits.
#[test]
fn slow_clients_do_not_hold_up_sigterm_beyond_the_grace_period() {
    let _load = shared();
    let dir = Dir::new("serve-slow-term");
    let db = dir.path("slow.db");
    let (mut server, _) = start_with(&[
        "--db",
        &db,
        "--shutdown-grace",
        "0.5",
        "--header-timeout",
        "600",
        "--idle-timeout",
        "600",
    ]);
    let mut stalled = stall_after(&server.base, "GET /healthz HT");
    // Served alongside the stalled client.
    assert!(get(&format!("{}/healthz", server.base)).contains("\"ok\""));
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = wait_exit(&mut server);
    assert!(status.success(), "{status:?}");
    let rest = read_until_closed(&mut stalled);
    assert!(!rest.contains("200 OK"), "{rest}");
}

/// With a low descriptor limit, stalled connections held every descriptor and no client
/// was accepted again. Now the header timeout frees them, and a failed accept (too many
/// open files) is logged and tried again: a client waiting behind them is answered.
#[test]
fn slow_clients_filling_the_descriptor_limit_do_not_stop_accepts() {
    use std::io::{BufRead, BufReader};
    let _load = shared();
    let dir = Dir::new("serve-emfile");
    let db = dir.path("emfile.db");
    let log = dir.path("serve.log");
    let mut child = crate::util::bin()
        .args([
            "serve",
            "--db",
            &db,
            "--addr",
            "127.0.0.1:0",
            "--header-timeout",
            "1",
            "--idle-timeout",
            "600",
        ])
        .env("RUST_LOG", "warn")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("podium serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .trim_end_matches('/')
        .to_string();
    let server = Server { child, base };
    let pid = server.child.id();
    // A few descriptors more than the server has open now.
    let open = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count();
    let limit = format!("--nofile={}:{}", open + 8, open + 8);
    let limited = std::process::Command::new("prlimit")
        .args(["--pid", &pid.to_string(), &limit])
        .status()
        .expect("prlimit (util-linux) runs");
    assert!(limited.success());
    // Three times as many stalled clients as free descriptors; the rest wait to be
    // accepted, and a whole request waits behind them.
    let stalled: Vec<_> = (0..24)
        .map(|_| stall_after(&server.base, "GET /heal"))
        .collect();
    // (The agent's timeout is the hang guard.)
    let answer = agent().get(&format!("{}/healthz", server.base)).call();
    let text = std::fs::read_to_string(&log).unwrap();
    let answer = answer.unwrap_or_else(|e| panic!("not answered: {e}\n{text}"));
    assert_eq!(answer.status(), 200);
    assert!(text.contains("cannot accept a connection"), "{text}");
    drop(stalled);
}

/// Ends every session on the PostgreSQL database of `url` (on the server
/// `PODIUM_TEST_POSTGRES` names), as a restart of PostgreSQL would, and waits (bounded)
/// until they are gone; how many there were.
fn end_sessions(url: &str) -> usize {
    let server = std::env::var("PODIUM_TEST_POSTGRES").unwrap();
    let name = url.rsplit('/').next().unwrap().split('?').next().unwrap();
    let mut admin = server
        .parse::<postgres::Config>()
        .unwrap()
        .connect(postgres::NoTls)
        .unwrap();
    let pids: Vec<i32> = admin
        .query(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            &[&name],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid",
            &[&pids],
        )
        .unwrap();
    let started = Instant::now();
    loop {
        let left: i64 = admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1)",
                &[&pids],
            )
            .unwrap()
            .get(0);
        if left == 0 {
            return pids.len();
        }
        assert!(started.elapsed() < HANG_GUARD, "the sessions did not end");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A PostgreSQL restart under load made a busy league answer 500 for seconds ("stored
/// ledger is inconsistent ... db error"), then rate its whole ledger again. The
/// database's sessions are ended three times while 16 clients submit 2,000 matches:
/// the clients are answered 503 and retry, never 500; every match is stored once, and
/// the leaderboard equals `podium rate` on the exported ledger.
#[test]
fn a_postgres_restart_under_load_answers_503_never_500() {
    let _load = shared();
    let dir = Dir::new("serve-pg-restart");
    let url = postgres_database("restart");
    let (server, _) = start_with(&["--db", &url]);
    let (league, token) = create_league(&server.base, "sme");
    let games = matches();
    let tally = Tally::default();
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| submit_all(&server.base, league, &token, &games, &tally, &stop));
        let started = Instant::now();
        for quarter in 1..=3 {
            while tally.acknowledged.lock().unwrap().len() < quarter * MATCHES / 4 {
                assert!(
                    started.elapsed() < Duration::from_secs(300),
                    "the load stalled"
                );
                std::thread::sleep(Duration::from_millis(5));
            }
            assert!(end_sessions(&url) > 0);
        }
    });
    assert_eq!(tally.acknowledged.lock().unwrap().len(), MATCHES);
    // The lost connections were met (and answered 503).
    assert!(tally.unavailable.load(Ordering::SeqCst) > 0);
    assert_eq!(
        assert_offline_equals_online(&server.base, league, "sme", &dir),
        MATCHES
    );
}

/// One process serves a SQLite file: a second server on it is refused at start, naming
/// the file and its lock, and the first goes on serving; once the first has stopped, a
/// server starts on the file again.
#[test]
fn a_second_server_on_one_sqlite_file_is_refused() {
    let _load = shared();
    let dir = Dir::new("serve-twice");
    let db = dir.path("twice.db");
    let (server, _) = start_with(&["--db", &db]);
    let err = podium(&["serve", "--db", &db, "--addr", "127.0.0.1:0"])
        .err()
        .to_string();
    assert!(
        err.contains(&format!(
            "the SQLite file {db} is served by another process already (it holds the lock on {db}.lock)"
        )),
        "{err}"
    );
    create_league(&server.base, "sme");
    drop(server);
    let (again, _) = start_with(&["--db", &db]);
    let list = get(&format!("{}/api/leagues", again.base));
    assert_eq!(
        serde_json::from_str::<Value>(&list)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

/// Start-up refuses what would make a server that cannot work: a limit of 0 (a
/// `--max-body 0` server would take no write), and a new database file where none can
/// be made (its directory missing), each named with what is wrong.
#[test]
fn a_server_that_could_not_work_is_refused_at_start() {
    let _load = shared();
    let dir = Dir::new("serve-refused");
    for flag in ["--max-body", "--max-batch", "--max-players"] {
        let err = podium(&["serve", "--db", &dir.path("z.db"), flag, "0"])
            .err()
            .to_string();
        assert!(
            err.contains(&format!("invalid value '0' for '{flag}"))
                && err.contains(
                    "give a number above 0 (a limit of 0 would refuse every request it bounds)"
                ),
            "{err}"
        );
    }
    let missing = format!("{}/nowhere/games.db", dir.path("sub"));
    let err = podium(&["serve", "--db", &missing, "--addr", "127.0.0.1:0"])
        .err()
        .to_string();
    assert!(
        err.contains(&format!(
            "the database {missing} cannot be made: its directory {} does not exist (make it first)",
            missing.trim_end_matches("/games.db")
        )),
        "{err}"
    );
}
