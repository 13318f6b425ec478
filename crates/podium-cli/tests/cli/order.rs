//! `podium rate --order`: established players first by default, everyone by rating on
//! request.

use crate::util::{csv_rows, podium, Dir};

/// Eight game nights of ann, bo, cy and dee (a place each, turning round); frank joins
/// the last two and wins both.
pub fn frank_joins_late() -> String {
    let four = ["ann", "bo", "cy", "dee"];
    let mut csv = String::from("match,player,rank\n");
    for night in 0..8 {
        let mut order: Vec<&str> = (0..4).map(|k| four[(night + k) % 4]).collect();
        if night >= 6 {
            order.insert(0, "frank");
        }
        for (place, p) in order.iter().enumerate() {
            csv.push_str(&format!("night {},{p},{}\n", night + 1, place + 1));
        }
    }
    csv
}

fn players(out: &str) -> Vec<String> {
    csv_rows(out).iter().map(|r| r["player"].clone()).collect()
}

#[test]
fn a_player_who_won_their_two_games_stands_below_the_established_players() {
    let d = Dir::new("order");
    let games = d.file("nights.csv", &frank_joins_late());
    let out = podium(&["rate", &games, "--format", "csv"]);
    let rows = csv_rows(out.ok());
    let names = players(out.ok());
    assert_eq!(names.len(), 5);
    assert_eq!(names[4], "frank", "{names:?}");
    assert_eq!(rows[4]["provisional"], "true");
    assert_eq!(rows[4]["position"], "5");
    assert!(rows[..4].iter().all(|r| r["provisional"] == "false"));
    // The old order is one flag away: frank's two wins rate him highest.
    let by_rating = podium(&["rate", &games, "--format", "csv", "--order", "rating"]);
    let by_rating = players(by_rating.ok());
    assert_eq!(by_rating[0], "frank");
    assert_eq!(&names[..4], &by_rating[1..]);
    // The table marks him provisional, last.
    let table = podium(&["rate", &games]);
    let last = table
        .ok()
        .lines()
        .filter(|l| l.contains("frank"))
        .collect::<Vec<_>>();
    assert_eq!(last.len(), 1);
    assert!(last[0].contains("(P)"), "{}", table.stdout);
}

#[test]
fn an_unknown_order_is_refused_with_the_orders_there_are() {
    let d = Dir::new("order-bad");
    let games = d.file("nights.csv", &frank_joins_late());
    let out = podium(&["rate", &games, "--order", "elo"]);
    assert_ne!(out.status, 0);
    assert!(out.stderr.contains("\"established\""), "{}", out.stderr);
}
