//! `podium versus FILE PLAYER`: the rivals, and why one is missing.

use crate::util::{podium, repo_root};

fn nights() -> String {
    repo_root()
        .join("examples/game-night.csv")
        .display()
        .to_string()
}

#[test]
fn negative_counts_of_rivals_are_refused_with_the_range() {
    let f = nights();
    for flag in ["--min-meetings", "--frequent"] {
        assert_eq!(
            podium(&["versus", &f, "Kate", flag, "-1"]).err(),
            format!("error: invalid value '-1' for '{flag} <N>': expected a whole number 0 or more\n\nFor more information, try '--help'.\n")
        );
    }
}
