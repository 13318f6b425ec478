//! `podium teams` and `podium versus` on the example nights.

use crate::util::{podium, repo_root};

fn nights() -> String {
    repo_root()
        .join("examples/game-night.csv")
        .display()
        .to_string()
}

#[test]
fn teams_honours_the_options_and_names_bad_players() {
    let f = nights();
    let r = podium(&[
        "teams",
        &f,
        "--players",
        "Sam,Tom,Kate,Priya,Maya,Omar",
        "--teams",
        "2",
        "--fix",
        "Sam=2",
        "--together",
        "Tom,Kate",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    assert_eq!(v["exact"], true);
    let groups = v["splits"][0]["groups"].as_array().unwrap();
    assert!(groups[1]["players"]
        .as_array()
        .unwrap()
        .contains(&"Sam".into()));
    let with_tom = groups
        .iter()
        .find(|g| g["players"].as_array().unwrap().contains(&"Tom".into()))
        .unwrap();
    assert!(with_tom["players"]
        .as_array()
        .unwrap()
        .contains(&"Kate".into()));
    let e = podium(&["teams", &f, "--players", "Sam,Zed", "--teams", "2"]);
    assert!(e.err().contains("unknown player \"Zed\""), "{}", e.stderr);
    let e = podium(&["teams", &f, "--players", "Sam,Tom,Sam", "--teams", "2"]);
    assert!(e.err().contains("more than once"), "{}", e.stderr);
    let e = podium(&["teams", &f, "--players", "Sam,Tom,Kate", "--sizes", "1,1"]);
    assert!(e.err().contains("2 seats for 3 players"), "{}", e.stderr);
}

#[test]
fn versus_counts_the_meetings_of_the_example_nights() {
    let f = nights();
    let r = podium(&["versus", &f, "Kate", "Sam", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    assert_eq!(v["versus"]["meetings"], 11);
    assert_eq!(v["versus"]["ahead"], 4);
    assert_eq!(v["versus"]["behind"], 6);
    assert_eq!(v["versus"]["ties"], 1);
    let r = podium(&["versus", &f, "Kate"]);
    assert!(r.ok().contains("nemesis    Lena"), "{}", r.stdout);
    let e = podium(&["versus", &f, "Kate", "Nobody"]);
    assert!(
        e.err().contains("unknown player \"Nobody\""),
        "{}",
        e.stderr
    );
}
