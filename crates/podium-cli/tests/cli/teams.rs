//! `podium teams`: the options' errors name the option as typed.

use crate::util::{podium, repo_root};

fn nights() -> String {
    repo_root()
        .join("examples/game-night.csv")
        .display()
        .to_string()
}

/// `podium teams` on the example nights with Kate, Sam, Maya and Tom and `args`.
fn teams(args: &[&str]) -> crate::util::Run {
    let f = nights();
    let mut all = vec!["teams", f.as_str(), "--players", "Kate,Sam,Maya,Tom"];
    all.extend(args);
    podium(&all)
}

#[test]
fn no_split_to_show_no_start_and_negative_counts_are_refused() {
    let clap = |value: &str, flag: &str, said: &str| {
        format!("error: invalid value '{value}' for '{flag}': {said}\n\nFor more information, try '--help'.\n")
    };
    for (args, value, flag, said) in [
        (
            &["--teams", "2", "--top", "0"][..],
            "0",
            "--top <N>",
            "expected at least 1 split to show",
        ),
        (
            &["--teams", "2", "--top", "-1"][..],
            "-1",
            "--top <N>",
            "expected at least 1 split to show",
        ),
        (
            &["--teams", "2", "--restarts", "0"][..],
            "0",
            "--restarts <N>",
            "expected at least 1 random start",
        ),
        (
            &["--teams", "-2"][..],
            "-2",
            "--teams <K>",
            "expected at least 2 teams",
        ),
        (
            &["--teams", "1"][..],
            "1",
            "--teams <K>",
            "expected at least 2 teams",
        ),
        (
            &["--tables", "-3"][..],
            "-3",
            "--tables <SEATS>",
            "expected at least 2 seats",
        ),
        (
            &["--teams", "2", "--seed", "-1"][..],
            "-1",
            "--seed <SEED>",
            "expected a whole number 0 or more",
        ),
    ] {
        assert_eq!(teams(args).err(), clap(value, flag, said), "{args:?}");
    }
    // Two splits asked for, two shown.
    let v: serde_json::Value = serde_json::from_str(
        teams(&[
            "--teams",
            "2",
            "--top",
            "2",
            "--restarts",
            "1",
            "--format",
            "json",
        ])
        .ok(),
    )
    .unwrap();
    assert_eq!(v["splits"].as_array().unwrap().len(), 2);
}
