//! The league server on real standings: the first Codeforces contests (large matches with
//! ties) entered through the HTTP API of `podium serve`, one contest voided and one
//! corrected; after each step the server's leaderboard equals `podium rate` on the ledger
//! the server exports.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::{podium, shared_data, Dir, Server};

/// Contest `id` as a match: each handle ranked by its `rankLo` (equal = tie).
fn contest(id: u32) -> Option<Value> {
    let text =
        std::fs::read_to_string(shared_data().join(format!("codeforces/standings/{id}.txt")))
            .ok()?;
    let results: Vec<Value> = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some(json!({"player": f.next()?, "rank": f.next()?.parse::<u32>().ok()?}))
        })
        .collect();
    (results.len() >= 2).then(|| json!({"id": format!("cf{id}"), "results": results}))
}

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(120))
        .build()
}

fn check(base: &str, league: i64, dir: &Dir) -> usize {
    let a = agent();
    let ledger = a
        .get(&format!("{base}/api/leagues/{league}/matches"))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    let file = dir.file("ledger.jsonl", &ledger);
    let offline: Value =
        serde_json::from_str(podium(&["rate", &file, "--system", "sme", "--format", "json"]).ok())
            .unwrap();
    let mut body = String::new();
    std::io::Read::read_to_string(
        &mut a
            .get(&format!("{base}/api/leagues/{league}/leaderboard"))
            .call()
            .unwrap()
            .into_reader(),
        &mut body,
    )
    .unwrap();
    let online: Value = serde_json::from_str(&body).unwrap();
    let offline: HashMap<&str, f64> = offline
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["player"].as_str().unwrap(), r["rating"].as_f64().unwrap()))
        .collect();
    let online = online.as_array().unwrap();
    assert_eq!(online.len(), offline.len());
    for r in online {
        let want = offline[r["player"].as_str().unwrap()];
        assert!(
            (r["rating"].as_f64().unwrap() - want).abs() < 1e-6,
            "{r} vs {want}"
        );
    }
    online.len()
}

#[test]
fn codeforces_contests_through_the_server_rate_as_offline() {
    let dir = Dir::new("real-serve");
    let server = Server::start(&dir.path("cf.db"));
    let a = agent();
    let created: Value = a
        .post(&format!("{}/api/leagues", server.base))
        .send_json(json!({"name": "codeforces", "system": "sme"}))
        .unwrap()
        .into_json()
        .unwrap();
    let (league, token) = (
        created["id"].as_i64().unwrap(),
        created["admin_token"].as_str().unwrap().to_string(),
    );
    let auth = format!("Bearer {token}");
    let url = format!("{}/api/leagues/{league}/matches", server.base);
    let contests: Vec<Value> = (1..=40).filter_map(contest).collect();
    assert!(
        contests.len() >= 30,
        "only {} contests read",
        contests.len()
    );
    for c in &contests {
        let r = a
            .post(&url)
            .set("Authorization", &auth)
            .send_json(c.clone())
            .unwrap();
        assert_eq!(r.status(), 201);
    }
    let players = check(&server.base, league, &dir);
    assert!(players > 1_000, "{players} players");

    let first = contests[0]["id"].as_str().unwrap();
    let r = a
        .delete(&format!("{url}/{first}"))
        .set("Authorization", &auth)
        .call()
        .unwrap();
    assert_eq!(r.status(), 200);
    check(&server.base, league, &dir);

    // Correct the second contest: its standings reversed.
    let mut fixed = contests[1].clone();
    let n = fixed["results"].as_array().unwrap().len();
    for (i, r) in fixed["results"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        r["rank"] = json!(n - i);
    }
    let second = fixed["id"].as_str().unwrap().to_string();
    let r = a
        .put(&format!("{url}/{second}"))
        .set("Authorization", &auth)
        .send_json(fixed)
        .unwrap();
    assert_eq!(r.status(), 200);
    check(&server.base, league, &dir);
}
