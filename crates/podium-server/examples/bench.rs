//! Benchmark of the league server over loopback HTTP, and of its ledger:
//!
//! - `board`: for each system (`--systems`), leaderboard latency (p50/p99) for a league of
//!   100,000 players, paginated and full, and the time a started server takes to load it;
//! - `submit`: for each system (`--systems`, the default `kalman-mmr` first), a league of
//!   `--submit-players` players filled in batches of 200 (timed), the latency of one
//!   match per request, and acknowledged four-player submissions per second from
//!   concurrent clients, every commit durable (SQLite `synchronous=FULL`, PostgreSQL's
//!   default), group commit; to the server this benchmark starts, or spread over running
//!   servers (`--targets`);
//! - `correct`: for each system, the time to correct one match near the end of a league of
//!   1,000,000 matches, rated again from the last checkpoint, against a full replay;
//! - `restart` (not in the default set): the time a restart of a `kalman-mmr` league of
//!   1,000,000 matches takes to answer its board, restored from the ratings saved in
//!   the store, against rating its whole ledger.
//!
//! A latency is from sending the request to having the whole body in memory, decoded
//! when it came compressed (the decoding is inside the timed region). The client is
//! `ureq` on a kept-alive connection, reading a body into a `Vec` sized from its
//! `Content-Length`.
//!
//! ```sh
//! cargo run --release -p podium-server --example bench [-- --what board,submit,correct,restart]
//!     [--db postgres://USER@HOST/DB]  # a server to make scratch databases on (else SQLite files)
//!     [--targets http://HOST:PORT,http://HOST:PORT]  # submit to running servers
//!     [--clients 32 --matches 20000 --players 100000 --league-matches 1000000]
//!     [--systems kalman-mmr,sme --submit-players 50000]
//! ```

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use podium_server::store::{Leagues, LedgerResult, NewLeague, Options, PgStore, Submission};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn text_arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// Where the benchmark keeps ledgers: SQLite files in a scratch directory, or scratch
/// databases on a PostgreSQL server.
enum Ledgers {
    Sqlite(std::path::PathBuf),
    Postgres(String),
}

impl Ledgers {
    /// A fresh, empty ledger named `name`: a file path or a database URL.
    fn fresh(&self, name: &str) -> String {
        match self {
            Ledgers::Sqlite(dir) => dir.join(format!("{name}.db")).display().to_string(),
            Ledgers::Postgres(url) => PgStore::create_database(
                url,
                &format!("podium_bench_{}_{name}", std::process::id()),
            )
            .expect("a scratch database"),
        }
    }
}

/// Waits until the SQLite file `db` is free: a thread of the league set that filled it
/// may still be saving its ratings, and one store at a time may be open on a file. A
/// PostgreSQL database is free at once.
fn free(db: &str) {
    if db.starts_with("postgres") {
        return;
    }
    for _ in 0..6_000 {
        match podium_store::SqliteStore::open(std::path::Path::new(db)) {
            Err(podium_store::StoreError::OpenHere { .. }) => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            _ => return,
        }
    }
    panic!("{db} stayed in use");
}

fn start_server(db: String) -> String {
    let (tx, rx) = std::sync::mpsc::channel::<SocketAddr>();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        let options = podium_server::ServeOptions {
            db,
            instance: "bench".into(),
            addr: "127.0.0.1:0".parse().unwrap(),
            admin_token: None,
            open: false,
            limits: podium_server::Limits::default(),
            store: Options::default(),
            timeouts: podium_server::Timeouts::default(),
        };
        rt.block_on(podium_server::serve(options, |a| {
            tx.send(a).unwrap();
        }))
        .expect("server runs");
    });
    format!("http://{}", rx.recv().expect("server starts"))
}

/// Waits until the server at `base` has loaded every league.
fn wait_ready(base: &str) {
    let a = agent();
    while a.get(&format!("{base}/readyz")).call().is_err() {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The client: timeouts per connect/read/write. (A total deadline, `.timeout()`, makes
/// ureq reset the socket's timeouts before every 8 KiB read: two extra system calls per
/// read, ~5,000 for a 20 MB body; see `previous client` below.)
fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_secs(10))
        .timeout_read(Duration::from_secs(60))
        .timeout_write(Duration::from_secs(60))
        .build()
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

/// A response's body, read into a buffer sized from its `Content-Length`.
fn body(r: ureq::Response) -> Vec<u8> {
    use std::io::Read;
    let len = r
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = Vec::with_capacity(len);
    r.into_reader().read_to_end(&mut body).unwrap();
    body
}

fn fetch(a: &ureq::Agent, url: &str) -> usize {
    body(a.get(url).call().unwrap()).len()
}

/// How a client asks for the full board and what it does with the answer.
#[derive(Clone, Copy, PartialEq)]
enum Way {
    /// No `Accept-Encoding`: 20 MB of JSON.
    Identity,
    /// `Accept-Encoding: zstd`, decoded with the zstd crate.
    Zstd,
    /// `Accept-Encoding: gzip`, decoded with flate2.
    Gzip,
    /// `If-None-Match` with the tag it has: a 304 and no body.
    Revalidate,
    /// The client code this benchmark used before: a total deadline and a `Vec` grown
    /// from empty by `read_to_end`.
    PreviousClient,
}

/// Fetches the full board `way`; the bytes the client ends up with (0 for a 304).
fn fetch_board(a: &ureq::Agent, url: &str, way: Way, etag: &str) -> usize {
    use std::io::Read;
    match way {
        Way::Identity => fetch(a, url),
        Way::Zstd | Way::Gzip => {
            let coding = if way == Way::Zstd { "zstd" } else { "gzip" };
            let r = a.get(url).set("Accept-Encoding", coding).call().unwrap();
            assert_eq!(r.header("content-encoding"), Some(coding));
            let compressed = body(r);
            let json = if way == Way::Zstd {
                zstd::stream::decode_all(&compressed[..]).unwrap()
            } else {
                let mut json = Vec::new();
                flate2::read::GzDecoder::new(&compressed[..])
                    .read_to_end(&mut json)
                    .unwrap();
                json
            };
            assert_eq!(json.last(), Some(&b']'));
            json.len()
        }
        Way::Revalidate => {
            let r = a.get(url).set("If-None-Match", etag).call().unwrap();
            assert_eq!(r.status(), 304);
            body(r).len()
        }
        Way::PreviousClient => {
            let mut body = Vec::new();
            a.get(url)
                .call()
                .unwrap()
                .into_reader()
                .read_to_end(&mut body)
                .unwrap();
            body.len()
        }
    }
}

/// p50 and p99 (ms) of `n` timed calls of `f` after one untimed call, and what the last
/// call returned.
fn latencies(n: usize, mut f: impl FnMut() -> usize) -> (f64, f64, usize) {
    let mut bytes = f(); // the first read materialises the board / makes the copy
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        bytes = f();
        times.push(t.elapsed());
    }
    times.sort();
    (percentile(&times, 0.5), percentile(&times, 0.99), bytes)
}

/// Four distinct players of `0..players`, drawn by `rng`.
fn four_of(rng: &mut rand::rngs::StdRng, players: usize) -> Vec<usize> {
    let mut four: Vec<usize> = Vec::with_capacity(4);
    while four.len() < 4 {
        let p = rng.gen_range(0..players);
        if !four.contains(&p) {
            four.push(p);
        }
    }
    four
}

/// A submission body: players finishing in the order given.
fn match_body(id: &str, players: &[usize]) -> Value {
    json!({
        "id": id,
        "results": players.iter().enumerate().map(|(r, p)| json!({"player": format!("p{p}"), "rank": r + 1})).collect::<Vec<_>>(),
    })
}

/// For each system, a league of its own on the first target: filled with `players`
/// players (four-player matches, each player in one, sent in batches of 200; timed),
/// then the latency of one match per request from one client, then `matches`
/// submissions from `clients` clients (client `c` to server `c % n` of the `n` targets,
/// each waiting for its acknowledgement), then the first full board read after them.
fn submissions(
    targets: &[String],
    systems: &[String],
    clients: usize,
    matches: usize,
    players: usize,
) {
    for system in systems {
        submissions_of(targets, system, clients, matches, players);
    }
}

fn submissions_of(
    targets: &[String],
    system: &str,
    clients: usize,
    matches: usize,
    players: usize,
) {
    let a = agent();
    let v: Value = a
        .post(&format!("{}/api/leagues", targets[0]))
        .send_json(json!({"name": format!("bench {system}"), "system": system}))
        .unwrap()
        .into_json()
        .unwrap();
    let (id, token) = (
        v["id"].as_i64().unwrap(),
        v["admin_token"].as_str().unwrap().to_string(),
    );
    let auth = format!("Bearer {token}");
    let urls: Vec<String> = targets
        .iter()
        .map(|base| format!("{base}/api/leagues/{id}/matches"))
        .collect();
    // Every player in one match of the filling, in a shuffled order.
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut everyone: Vec<usize> = (0..players).collect();
    for i in (1..everyone.len()).rev() {
        everyone.swap(i, rng.gen_range(0..=i));
    }
    let fill: Vec<Value> = everyone
        .chunks(4)
        .filter(|c| c.len() >= 2)
        .enumerate()
        .map(|(k, c)| match_body(&format!("f{k}"), c))
        .collect();
    let started = Instant::now();
    for batch in fill.chunks(200) {
        let r = a
            .post(&urls[0])
            .set("Authorization", &auth)
            .send_json(Value::Array(batch.to_vec()))
            .expect("batch acknowledged");
        assert_eq!(r.status(), 200);
    }
    println!(
        "{system}: filling the league: {} matches of up to 4 players ({players} players) in batches of 200: {:.2} s",
        fill.len(),
        started.elapsed().as_secs_f64()
    );
    // Every target serves the league before the clock starts.
    for base in targets {
        while a
            .get(&format!("{base}/api/leagues/{id}/leaderboard?limit=1"))
            .call()
            .is_err()
        {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let singles = (matches / 10).clamp(1, 1_000);
    let mut times = Vec::with_capacity(singles);
    for i in 0..singles {
        let body = match_body(&format!("s{i}"), &four_of(&mut rng, players));
        let t = Instant::now();
        let r = a
            .post(&urls[0])
            .set("Authorization", &auth)
            .send_json(body)
            .expect("submission acknowledged");
        times.push(t.elapsed());
        assert_eq!(r.status(), 201);
    }
    times.sort();
    println!(
        "{system}: one match per request, one client, {players} players: p50 {:.2} ms, p99 {:.2} ms ({singles} requests)",
        percentile(&times, 0.5),
        percentile(&times, 0.99)
    );
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        for c in 0..clients {
            let (url, auth, next) = (&urls[c % urls.len()], &auth, &next);
            s.spawn(move || {
                let a = agent();
                let mut rng = rand::rngs::StdRng::seed_from_u64(c as u64);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= matches {
                        break;
                    }
                    let body = match_body(&format!("b{i}"), &four_of(&mut rng, players));
                    let r = a
                        .post(url)
                        .set("Authorization", auth)
                        .send_json(body)
                        .expect("submission acknowledged");
                    assert_eq!(r.status(), 201);
                }
            });
        }
    });
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{system}: submissions: {matches} matches from {clients} clients to {} server(s) in {secs:.2} s = {:.0} acknowledged/s (durable commits, group commit)",
        targets.len(),
        matches as f64 / secs
    );
    let t = Instant::now();
    let bytes = fetch(&a, &format!("{}/api/leagues/{id}/leaderboard", targets[0]));
    println!(
        "{system}: first full board after the submissions: {:.1} ms ({bytes} bytes)",
        t.elapsed().as_secs_f64() * 1e3
    );
}

/// A four-player match of the benchmark's leagues.
fn four(id: String, names: &[usize]) -> Submission {
    Submission {
        id: Some(id),
        match_id: None,
        time: None,
        results: names
            .iter()
            .enumerate()
            .map(|(r, p)| LedgerResult {
                player: format!("player{p:06}"),
                rank: Some((r + 1) as f64),
                ..LedgerResult::default()
            })
            .collect(),
    }
}

/// Fills a new league of `system` with `games` four-player matches among `players`
/// players (each player's first match among the first `players / 4`), through the store,
/// 5,000 matches per transaction.
fn populate(leagues: &Leagues, system: &str, players: usize, games: usize) -> (i64, String) {
    let (info, token) = leagues
        .create_league(&NewLeague {
            name: "big".into(),
            system: system.into(),
            config: podium::Settings::new(),
        })
        .unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let per = 4;
    let started = Instant::now();
    let mut batch = Vec::new();
    for g in 0..games {
        let names: Vec<usize> = if g < players / per {
            (0..per).map(|k| g * per + k).collect()
        } else {
            let mut v: Vec<usize> = Vec::new();
            while v.len() < per {
                let p = rng.gen_range(0..players);
                if !v.contains(&p) {
                    v.push(p);
                }
            }
            v
        };
        batch.push(four(format!("g{g}"), &names));
        if batch.len() == 5_000 || g + 1 == games {
            for r in leagues
                .append_batch(info.id, std::mem::take(&mut batch))
                .unwrap()
            {
                r.unwrap();
            }
        }
    }
    println!(
        "{system}: populated a league of {players} players with {games} matches in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    (info.id, token)
}

/// Options for filling ledgers: large batches.
fn filling() -> Options {
    Options {
        max_batch: 5_000,
        ..Options::default()
    }
}

/// The time to correct a match near the end of a league of `games` matches: rated again
/// from the last checkpoint (the default: one every 10,000 matches), and from the start
/// (no checkpoints: the whole ledger replayed, as every correction did before).
fn correction(ledgers: &Ledgers, system: &str, players: usize, games: usize) {
    let db = ledgers.fresh(&format!("correct_{}", system.replace('-', "_")));
    let store = podium_server::open_store(&db).unwrap();
    let league = {
        let leagues = Leagues::open_loaded(store.clone(), filling()).unwrap();
        populate(&leagues, system, players, games).0
    };
    let key = format!("g{}", games - 10);
    let (entry, _, _) = Leagues::open_loaded(store.clone(), Options::default())
        .unwrap()
        .get_match(league, &key)
        .unwrap();
    // The same players, their order reversed (and back, the next time).
    let corrected = |k: usize| {
        let mut names: Vec<String> = entry
            .json
            .results
            .iter()
            .map(|r| r.player.clone())
            .collect();
        if k % 2 == 0 {
            names.reverse();
        }
        Submission {
            id: None,
            match_id: None,
            time: None,
            results: names
                .into_iter()
                .enumerate()
                .map(|(r, player)| LedgerResult {
                    player,
                    rank: Some((r + 1) as f64),
                    ..LedgerResult::default()
                })
                .collect(),
        }
    };
    for (what, checkpoints) in [
        (
            "from the last checkpoint (one every 10,000 matches)",
            podium_server::Checkpoints::default(),
        ),
        (
            "from the start (no checkpoints: the whole ledger replayed)",
            podium_server::Checkpoints { every: 0, keep: 0 },
        ),
    ] {
        let t = Instant::now();
        let leagues = Leagues::open_loaded(
            store.clone(),
            Options {
                checkpoints,
                ..Options::default()
            },
        )
        .unwrap();
        let loaded = t.elapsed();
        let mut times = Vec::new();
        for k in 0..3 {
            let t = Instant::now();
            leagues.correct(league, &key, corrected(k), false).unwrap();
            times.push(format!("{:.0}", t.elapsed().as_secs_f64() * 1e3));
        }
        println!(
            "{system}: correcting match {key} of {games} ({players} players), rated again {what}: {} ms (3 corrections); loading the league took {:.1} s",
            times.join(", "),
            loaded.as_secs_f64()
        );
    }
}

/// Writes `games` four-player matches among `players` players into league `id`'s ledger
/// directly (not rated: the ledger as a server would find it), from match `from` on,
/// 10,000 per transaction. Each match's content hash is a stand-in: nothing here
/// submits a match twice.
fn write_ledger(
    store: &dyn podium_server::store::Store,
    id: i64,
    players: usize,
    from: usize,
    games: usize,
) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11 + from as u64);
    let mut writer = store.lock(id).unwrap();
    let mut batch = Vec::new();
    for g in from..from + games {
        let names: Vec<String> = if g < players / 4 {
            (0..4).map(|k| format!("player{:06}", g * 4 + k)).collect()
        } else {
            let mut v: Vec<usize> = Vec::new();
            while v.len() < 4 {
                let p = rng.gen_range(0..players);
                if !v.contains(&p) {
                    v.push(p);
                }
            }
            v.iter().map(|p| format!("player{p:06}")).collect()
        };
        let key = format!("g{g}");
        let game = podium::Match::ranked(key.clone(), &names).unwrap();
        batch.push(podium_server::store::LedgerEntry {
            seq: g as i64 + 1,
            key,
            time: None,
            json: podium_server::store::LedgerMatch::from_match(&game),
            hash: format!("bench-{g}"),
            voided: false,
        });
        if batch.len() == 10_000 || g + 1 == from + games {
            writer.append(&std::mem::take(&mut batch)).unwrap();
        }
    }
}

/// The time a restart of a league of `games` matches of the default system
/// (`kalman-mmr`) among `players` players takes to answer its board: restored from the
/// ratings saved in the store and the matches after them, against rating the whole
/// ledger; through the store and through a server started on the file.
fn restart(ledgers: &Ledgers, players: usize, games: usize) {
    let db = ledgers.fresh("restart");
    let store = podium_server::open_store(&db).unwrap();
    let id = {
        let leagues = Leagues::open_loaded(store.clone(), Options::default()).unwrap();
        let (info, _) = leagues
            .create_league(&NewLeague {
                name: "restart".into(),
                system: "kalman-mmr".into(),
                config: podium::Settings::new(),
            })
            .unwrap();
        info.id
    };
    let t = Instant::now();
    write_ledger(&*store, id, players, 0, games);
    println!(
        "wrote a ledger of {games} four-player matches among {players} players in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    // The first start: nothing saved, the whole ledger rated (and its newest checkpoint
    // saved at the end).
    let t = Instant::now();
    let leagues = Leagues::open(store.clone(), Options::default()).unwrap();
    leagues.load(id).unwrap();
    let board = leagues.leaderboard_json(id).unwrap();
    println!(
        "restart without saved ratings (the whole ledger rated): board of {} players answered after {:.2} s",
        board.rows,
        t.elapsed().as_secs_f64()
    );
    drop(leagues);
    // The worst case: a checkpoint is saved every 10,000 matches, so up to 9,999 come
    // after the saved ratings.
    let tail = 9_999;
    write_ledger(&*store, id, players, games, tail);
    let t = Instant::now();
    let leagues = Leagues::open(store.clone(), Options::default()).unwrap();
    assert!(
        leagues.restore(id).unwrap(),
        "restored from the saved ratings"
    );
    let restored = t.elapsed();
    let board = leagues.leaderboard_json(id).unwrap();
    let answered = t.elapsed();
    leagues.load(id).unwrap();
    println!(
        "restart from saved ratings + {tail} matches after them: restored after {:.2} s, board of {} players ({} bytes) answered after {:.2} s; whole ledger rated after {:.1} s",
        restored.as_secs_f64(),
        board.rows,
        board.json.len(),
        answered.as_secs_f64(),
        t.elapsed().as_secs_f64()
    );
    // Saved at shutdown: nothing after them. A server started on the ledger.
    assert!(leagues.save(id).unwrap());
    drop(leagues);
    drop(store);
    free(&db);
    let t = Instant::now();
    let base = start_server(db);
    let a = agent();
    let url = format!("{base}/api/leagues/{id}/leaderboard");
    let bytes = loop {
        if let Ok(r) = a.get(&url).call() {
            break body(r).len();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let answered = t.elapsed();
    wait_ready(&base);
    println!(
        "server started on the ledger ({} matches, ratings saved at shutdown): full board ({bytes} bytes) answered after {:.2} s; every league rated whole after {:.1} s",
        games + tail,
        answered.as_secs_f64(),
        t.elapsed().as_secs_f64()
    );
}

/// Leaderboard and player page latencies for a league of `system` of `players` players;
/// returns the server's address.
fn board(ledgers: &Ledgers, system: &str, players: usize) -> String {
    let db = ledgers.fresh(&format!("board_{}", system.replace('-', "_")));
    let (big, big_token) = {
        let leagues =
            Leagues::open_loaded(podium_server::open_store(&db).unwrap(), filling()).unwrap();
        populate(&leagues, system, players, players / 4 * 2)
    };
    free(&db);
    let t = Instant::now();
    let base = start_server(db);
    let listening = t.elapsed();
    wait_ready(&base);
    println!(
        "{system}: server listening after {:.3} s, the league loaded after {:.2} s",
        listening.as_secs_f64(),
        t.elapsed().as_secs_f64()
    );

    for (what, url, n) in [
        (
            "leaderboard ?limit=100",
            format!("{base}/api/leagues/{big}/leaderboard?limit=100"),
            2_000,
        ),
        (
            "leaderboard ?limit=100&offset=50000",
            format!("{base}/api/leagues/{big}/leaderboard?limit=100&offset=50000"),
            2_000,
        ),
        (
            "player page",
            format!("{base}/api/leagues/{big}/players/player000042"),
            200,
        ),
    ] {
        let a = agent();
        let (p50, p99, bytes) = latencies(n, || fetch(&a, &url));
        println!("{system}: {what}: {players} players, {n} requests: p50 {p50:.2} ms, p99 {p99:.2} ms ({bytes} bytes)");
    }

    let board_url = format!("{base}/api/leagues/{big}/leaderboard");
    let etag = agent()
        .get(&board_url)
        .call()
        .unwrap()
        .header("etag")
        .unwrap()
        .to_string();
    for (what, way) in [
        ("identity (20 MB of JSON)", Way::Identity),
        ("zstd, decoded by the client", Way::Zstd),
        ("gzip, decoded by the client", Way::Gzip),
        ("identity, previous client code", Way::PreviousClient),
        ("revalidation, If-None-Match -> 304", Way::Revalidate),
    ] {
        let n = 200;
        let a = if way == Way::PreviousClient {
            ureq::AgentBuilder::new()
                .timeout(Duration::from_secs(60))
                .build()
        } else {
            agent()
        };
        let (p50, p99, bytes) = latencies(n, || fetch_board(&a, &board_url, way, &etag));
        println!("{system}: leaderboard full array, {what}: {players} players, {n} requests: p50 {p50:.2} ms, p99 {p99:.2} ms ({bytes} bytes)");
    }

    // The board is materialised once per change: the first read after a write pays for it.
    let a = agent();
    let mut times = Vec::new();
    for i in 0..50 {
        a.post(&format!("{base}/api/leagues/{big}/matches"))
            .set("Authorization", &format!("Bearer {big_token}"))
            .send_json(json!({"id": format!("w{i}"), "results": [
                {"player": format!("player{:06}", i * 7), "rank": 1},
                {"player": format!("player{:06}", i * 7 + 1), "rank": 2}]}))
            .unwrap();
        let t = Instant::now();
        fetch(
            &a,
            &format!("{base}/api/leagues/{big}/leaderboard?limit=100"),
        );
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "{system}: leaderboard ?limit=100 right after a write: {players} players, 50 requests: p50 {:.2} ms, p99 {:.2} ms",
        percentile(&times, 0.5),
        percentile(&times, 0.99)
    );
    // The full array right after a write: the store rebuilds the board's JSON (copying
    // the rows of players who did not play) and, for the zstd client, the server
    // compresses it before sending it.
    for (what, way) in [
        ("identity", Way::Identity),
        ("zstd, decoded by the client", Way::Zstd),
    ] {
        let n = 20;
        let mut times = Vec::new();
        for i in 0..n {
            let k = 1_000 + times.len() * 7 + usize::from(way == Way::Zstd) * 500;
            a.post(&format!("{base}/api/leagues/{big}/matches"))
                .set("Authorization", &format!("Bearer {big_token}"))
                .send_json(json!({"id": format!("f{k}-{i}"), "results": [
                    {"player": format!("player{k:06}"), "rank": 1},
                    {"player": format!("player{:06}", k + 1), "rank": 2}]}))
                .unwrap();
            let t = Instant::now();
            fetch_board(&a, &board_url, way, "");
            times.push(t.elapsed());
        }
        times.sort();
        println!(
            "{system}: leaderboard full array right after a write, {what}: {players} players, {n} requests: p50 {:.2} ms, p99 {:.2} ms",
            percentile(&times, 0.5),
            percentile(&times, 0.99)
        );
    }
    let v: Value = a
        .get(&format!("{base}/api/leagues/{big}"))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
    assert_eq!(v["players"].as_u64().unwrap() as usize, players);
    base
}

fn main() {
    let what = text_arg("--what").unwrap_or_else(|| "board,submit,correct".into());
    let what: Vec<&str> = what.split(',').collect();
    let clients = arg("--clients", 32);
    let matches = arg("--matches", 20_000);
    let players = arg("--players", 100_000);
    let league_matches = arg("--league-matches", 1_000_000);
    let submit_players = arg("--submit-players", 50_000);
    let dir = std::env::temp_dir().join(format!("podium-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ledgers = match text_arg("--db") {
        Some(url) => Ledgers::Postgres(url),
        None => Ledgers::Sqlite(dir.clone()),
    };
    let systems: Vec<String> = text_arg("--systems")
        .unwrap_or_else(|| "kalman-mmr,sme".into())
        .split(',')
        .map(str::to_string)
        .collect();
    let mut served = None;
    if what.contains(&"board") {
        for system in &systems {
            served = Some(board(&ledgers, system, players));
        }
    }
    if what.contains(&"submit") {
        let targets: Vec<String> = match text_arg("--targets") {
            Some(t) => t
                .split(',')
                .map(|u| u.trim_end_matches('/').to_string())
                .collect(),
            None => vec![served.take().unwrap_or_else(|| {
                let base = start_server(ledgers.fresh("submit"));
                wait_ready(&base);
                base
            })],
        };
        submissions(&targets, &systems, clients, matches, submit_players);
    }
    if what.contains(&"correct") {
        for system in &systems {
            correction(&ledgers, system, players, league_matches);
        }
    }
    if what.contains(&"restart") {
        restart(&ledgers, players, league_matches);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
