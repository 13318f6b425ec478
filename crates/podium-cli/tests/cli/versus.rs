//! `podium versus FILE PLAYER`: the rivals, and why one is missing.

use crate::util::{podium, repo_root};

fn nights() -> String {
    repo_root()
        .join("examples/game-night.csv")
        .display()
        .to_string()
}

#[test]
fn without_most_met_opponents_listed_the_rivals_are_still_found() {
    let f = nights();
    assert_eq!(
        podium(&["versus", &f, "Kate", "--frequent", "0"]).ok(),
        "Kate's rivals (kalman-mmr, opponents met at least 3 times)
  nemesis    Lena: 12 meetings, 3-9-0 (ahead-behind-tied), share 25.0% vs 50.7% expected, -3.08
  favourite  Tom: 12 meetings, 5-6-1 (ahead-behind-tied), share 45.8% vs 37.6% expected, +0.98
  most met: none listed (--frequent 0; 7 opponents met 3 times or more)
"
    );
}

#[test]
fn no_nemesis_or_favourite_says_the_real_reason() {
    let f = nights();
    // Nobody met 100 times: that is the one reason.
    assert_eq!(
        podium(&["versus", &f, "Kate", "--min-meetings", "100"]).ok(),
        "Kate's rivals (kalman-mmr, opponents met at least 100 times)
  no opponent met 100 times or more
"
    );
    // Four opponents met 12 times or more, and Kate did worse than expected against each.
    assert_eq!(
        podium(&[
            "versus",
            &f,
            "Kate",
            "--min-meetings",
            "12",
            "--system",
            "sme"
        ])
        .ok(),
        "Kate's rivals (sme, opponents met at least 12 times)
  nemesis    Lena: 12 meetings, 3-9-0 (ahead-behind-tied), share 25.0% vs 48.7% expected, -2.85
  favourite  none (no opponent met 12 times or more was beaten more often than expected)
  most met:
    Priya: 17 meetings, 5-12-0 (ahead-behind-tied), share 29.4% vs 40.1% expected, -1.81
    Lena: 12 meetings, 3-9-0 (ahead-behind-tied), share 25.0% vs 48.7% expected, -2.85
    Omar: 12 meetings, 4-7-1 (ahead-behind-tied), share 37.5% vs 48.8% expected, -1.36
    Tom: 12 meetings, 5-6-1 (ahead-behind-tied), share 45.8% vs 46.2% expected, -0.05
"
    );
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
