//! The least work any program must do to rate a long CSV file of free-for-alls with `sme`:
//! a yardstick for `podium rate` in `scripts/bench-rate.sh`, not a rater to use.
//!
//! `scripts/bench-rate.sh` builds it:
//!
//! ```text
//! cargo build --release --manifest-path scripts/bench/rate-floor/Cargo.toml --target-dir target
//! target/release/rate-floor FILE.csv > ratings.csv
//! target/release/rate_floor FILE.csv > ratings.csv
//! ```
//!
//! It reads the file in large blocks, checks UTF-8, splits `match,player,rank` lines,
//! looks every player up in a hash table of names kept inline (no pointer to follow), and
//! applies sme's virtual games, ties included, exactly as `podium rate --system sme` does
//! with the default parameters. It prints `player,rating,games`, best first.
//!
//! What it leaves out is what makes `podium` a tool: quoted fields, a header in any
//! column order, teams, weights, scores, times, trimming, checking that a match's rows are
//! contiguous and that no player appears twice, error messages naming file, line and
//! field, rating nothing when a match is bad, the rating systems behind one interface, the
//! statistics columns and the history. A malformed line stops it with a bare message; a
//! player id longer than 23 bytes is refused.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};

/// Player ids up to this many bytes; the last byte of a key holds the length.
const MAX_ID: usize = 23;
/// sme's defaults.
const K: f64 = 32.0;
const SCALE: f64 = 400.0;
const INITIAL: f64 = 1500.0;

fn fail(msg: &str) -> ! {
    eprintln!("rate-floor: {msg}");
    std::process::exit(2)
}

/// Ratings and games per player, indexed by the order players were first seen.
#[derive(Default)]
struct Pool {
    rating: Vec<f64>,
    games: Vec<u32>,
}

/// sme on one match: `rows` holds (player, rank); sorted here, ties averaged over orders.
fn rate(rows: &mut [(u32, f64)], pool: &mut Pool) {
    rows.sort_by(|a, b| a.1.total_cmp(&b.1));
    let n = rows.len();
    if n < 2 {
        fail("a match with fewer than two players");
    }
    let mut e = vec![0.0; n];
    let mut s = vec![0.0; n];
    let r: Vec<f64> = rows.iter().map(|&(p, _)| pool.rating[p as usize]).collect();
    let mut play = |i: usize, j: usize, p: f64, si: f64| {
        let eij = 1.0 / (1.0 + 10f64.powf((r[j] - r[i]) / SCALE));
        e[i] += p * eij;
        s[i] += p * si;
        e[j] += p * (1.0 - eij);
        s[j] += p * (1.0 - si);
    };
    let group_end = |start: usize| {
        let mut end = start + 1;
        while end < n && rows[end].1 == rows[start].1 {
            end += 1;
        }
        end
    };
    let mut start = 0;
    while start < n {
        let end = group_end(start);
        let size = (end - start) as f64;
        for i in start..end {
            for j in i + 1..end {
                play(i, j, 2.0 / size, 0.5);
            }
        }
        if end < n {
            let below = group_end(end);
            let p = 1.0 / (size * (below - end) as f64);
            for i in start..end {
                for j in end..below {
                    play(i, j, p, 1.0);
                }
            }
        }
        start = end;
    }
    for (k, &(p, _)) in rows.iter().enumerate() {
        pool.rating[p as usize] += K * (s[k] - e[k]);
        pool.games[p as usize] += 1;
    }
}

/// The player id held in a key.
fn name(key: &[u8; MAX_ID + 1]) -> &str {
    std::str::from_utf8(&key[..key[MAX_ID] as usize]).expect("checked as UTF-8")
}

fn main() -> io::Result<()> {
    let Some(path) = std::env::args().nth(1) else {
        fail("usage: rate-floor FILE.csv")
    };
    let mut file = File::open(&path)?;
    let mut index: HashMap<[u8; MAX_ID + 1], u32, foldhash::fast::RandomState> = HashMap::default();
    let mut names: Vec<[u8; MAX_ID + 1]> = Vec::new();
    let mut pool = Pool::default();
    let mut current_match: Vec<u8> = Vec::new();
    let mut rows: Vec<(u32, f64)> = Vec::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut filled = 0;
    let mut header = true;
    loop {
        let read = file.read(&mut buf[filled..])?;
        let end = filled + read;
        let whole = if read == 0 {
            end
        } else {
            match memchr::memrchr(b'\n', &buf[..end]) {
                Some(nl) => nl + 1,
                None if end == buf.len() => fail("a line longer than the buffer"),
                None => {
                    filled = end;
                    continue;
                }
            }
        };
        let block = &buf[..whole];
        if std::str::from_utf8(block).is_err() {
            fail("not UTF-8");
        }
        for line in block.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                continue;
            }
            if std::mem::take(&mut header) {
                if line != b"match,player,rank" {
                    fail("the header must be match,player,rank");
                }
                continue;
            }
            let mut fields = line.splitn(3, |&b| b == b',');
            let (Some(id), Some(player), Some(rank)) =
                (fields.next(), fields.next(), fields.next())
            else {
                fail("a line without three fields")
            };
            let rank: f64 = std::str::from_utf8(rank)
                .ok()
                .and_then(|r| r.parse().ok())
                .unwrap_or_else(|| fail("a rank that is not a number"));
            if id != current_match.as_slice() {
                if !rows.is_empty() {
                    rate(&mut rows, &mut pool);
                    rows.clear();
                }
                current_match.clear();
                current_match.extend_from_slice(id);
            }
            if player.is_empty() || player.len() > MAX_ID {
                fail("a player id that is empty or longer than 23 bytes");
            }
            let mut key = [0u8; MAX_ID + 1];
            key[..player.len()].copy_from_slice(player);
            key[MAX_ID] = player.len() as u8;
            let next = names.len() as u32;
            let p = *index.entry(key).or_insert_with(|| {
                names.push(key);
                pool.rating.push(INITIAL);
                pool.games.push(0);
                next
            });
            rows.push((p, rank));
        }
        if read == 0 {
            break;
        }
        buf.copy_within(whole..end, 0);
        filled = end - whole;
    }
    if !rows.is_empty() {
        rate(&mut rows, &mut pool);
    }
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| {
        pool.rating[b]
            .total_cmp(&pool.rating[a])
            .then_with(|| name(&names[a]).cmp(name(&names[b])))
    });
    let mut out = BufWriter::new(io::stdout().lock());
    writeln!(out, "player,rating,games")?;
    for i in order {
        writeln!(
            out,
            "{},{},{}",
            name(&names[i]),
            pool.rating[i],
            pool.games[i]
        )?;
    }
    out.flush()
}
