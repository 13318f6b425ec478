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
fn option_errors_name_the_option_as_typed() {
    for (args, said) in [
        (
            &["--teams", "2", "--together", "Kate"][..],
            "--together Kate: a group names two players or more",
        ),
        (
            &["--teams", "2", "--apart", "Kate"][..],
            "--apart Kate: a group names two players or more",
        ),
        (
            &["--teams", "2", "--apart", "Kate,Kate"][..],
            "--apart Kate,Kate: \"Kate\" is named twice; name each player of a group once",
        ),
        (
            &["--teams", "2", "--together", "Kate,Kate"][..],
            "--together Kate,Kate: \"Kate\" is named twice; name each player of a group once",
        ),
        (
            &[
                "--teams",
                "2",
                "--together",
                "Sam,Tom",
                "--together",
                "Maya,Tom,Maya",
            ][..],
            "--together Maya,Tom,Maya: \"Maya\" is named twice; name each player of a group once",
        ),
        (
            &["--teams", "2", "--fix", "Kate=3"][..],
            "--fix Kate=3: team 3, but there are 2 teams",
        ),
        (
            &["--tables", "3", "--fix", "Sam=1", "--fix", "Kate=4"][..],
            "--fix Kate=4: table 4, but there are 2 tables",
        ),
        (
            &["--teams", "2", "--fix", "Kate=x"][..],
            "--fix Kate=x: \"x\" is not a team, expected a whole number from 1",
        ),
        (
            &["--teams", "2", "--fix", "Kate=0"][..],
            "--fix Kate=0: \"0\" is not a team, expected a whole number from 1",
        ),
        (
            &["--teams", "2", "--fix", "Kate"][..],
            "--fix Kate: expected PLAYER=TEAM, e.g. --fix ann=1",
        ),
        (
            &["--teams", "2", "--fix", "Zed=1"][..],
            "--fix Zed=1: \"Zed\" is not among --players",
        ),
        (
            &["--teams", "2", "--apart", "Kate,Zed"][..],
            "--apart Kate,Zed: \"Zed\" is not among --players",
        ),
        (
            &[
                "--teams",
                "2",
                "--together",
                "Sam,Tom",
                "--together",
                "Zed,Kate",
            ][..],
            "--together Zed,Kate: \"Zed\" is not among --players",
        ),
        (
            &["--sizes", "2,x"][..],
            "--sizes 2,x: \"x\" is not a team size, expected a whole number",
        ),
        (
            &["--sizes", "-1,2"][..],
            "--sizes -1,2: \"-1\" is not a team size, expected a whole number",
        ),
    ] {
        let run = teams(args);
        assert_eq!(run.err(), format!("error: {said}\n"), "{args:?}");
        assert_eq!(run.stdout, "");
    }
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
