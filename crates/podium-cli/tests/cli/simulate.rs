//! `podium simulate`: the plot's rounds axis, the limit on players, the table's words.

use crate::util::{podium, svg_texts, Dir};

/// `podium simulate --systems sme,pairwise --trials 10 --rounds ROUNDS --plot`: the SVG.
fn plot(d: &Dir, rounds: &str) -> String {
    let svg = d.path(&format!("r{}.svg", rounds.replace(',', "_")));
    podium(&[
        "simulate",
        "--systems",
        "sme,pairwise",
        "--trials",
        "10",
        "--rounds",
        rounds,
        "--plot",
        &svg,
    ])
    .ok();
    std::fs::read_to_string(&svg).unwrap()
}

/// The texts between the x axis's description and the legend: the y ticks, then the
/// x ticks.
fn ticks(svg: &str) -> Vec<String> {
    let texts = svg_texts(svg);
    let from = texts
        .iter()
        .position(|t| t.starts_with("rounds played"))
        .unwrap();
    let to = texts.iter().position(|t| t == "sme").unwrap();
    texts[from..to].to_vec()
}

/// The x positions (pixels) of the markers drawn in a colour.
fn marker_xs(svg: &str, colour: &str) -> Vec<u32> {
    svg.split("<circle ")
        .skip(1)
        .filter(|c| c.contains(&format!("fill=\"{colour}\"")))
        .map(|c| {
            let x = &c[c.find("cx=\"").unwrap() + 4..];
            x[..x.find('"').unwrap()].parse().unwrap()
        })
        .collect()
}

/// The `(x0, x1, y)` of the dashes drawn at an opacity (`0.6`: ideal, `0.4`: mean-score),
/// the legend's included.
fn dashes(svg: &str, opacity: &str) -> Vec<(u32, u32, u32)> {
    svg.split("<polyline ")
        .skip(1)
        .filter(|l| l.contains(&format!("opacity=\"{opacity}\"")))
        .map(|l| {
            let p = &l[l.find("points=\"").unwrap() + 8..];
            let p: Vec<u32> = p[..p.find('"').unwrap()]
                .split([' ', ','])
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            assert_eq!(p[1], p[3], "a dash is level: {p:?}");
            (p[0], p[2], p[1])
        })
        .collect()
}

#[test]
fn simulate_plot_ticks_whole_rounds_and_draws_one_rounds_references_across() {
    let d = Dir::new("simulate_plot_rounds");
    let svg = plot(&d, "1,2");
    assert_eq!(
        ticks(&svg),
        [
            "rounds played",
            "60",
            "65",
            "70",
            "75",
            "80",
            "85",
            "1",
            "2"
        ]
    );
    // One round: at the middle, and the references level across the whole axis.
    let svg = plot(&d, "0");
    assert_eq!(
        ticks(&svg),
        [
            "rounds played",
            "45",
            "50",
            "55",
            "60",
            "65",
            "70",
            "75",
            "80",
            "85",
            "0"
        ]
    );
    assert_eq!(marker_xs(&svg, "#1F77B4"), [456]);
    for opacity in ["0.6", "0.4"] {
        let dashes: Vec<(u32, u32, u32)> = dashes(&svg, opacity)
            .into_iter()
            .filter(|d| d.1 < 850)
            .collect();
        assert_eq!(dashes.len(), 54, "{dashes:?}");
        assert_eq!(dashes[0].0, 80, "{dashes:?}");
        assert!(dashes[53].1 >= 826, "{dashes:?}");
        assert!(dashes.iter().all(|d| d.2 == dashes[0].2), "{dashes:?}");
    }
}

#[test]
fn simulate_plot_puts_round_0_on_a_log_scale_of_round_plus_1() {
    let d = Dir::new("simulate_plot_log");
    let svg = plot(&d, "0,1,10,100,1000");
    assert_eq!(
        ticks(&svg),
        [
            "rounds played (log scale of rounds + 1)",
            "45",
            "50",
            "55",
            "60",
            "65",
            "70",
            "75",
            "80",
            "85",
            "0",
            "1",
            "10",
            "100",
            "1000"
        ]
    );
    // 80 + 753 · log(round + 1) / log(1001): a decade for each step from 1 on.
    assert_eq!(marker_xs(&svg, "#1F77B4"), [80, 155, 341, 583, 833]);
    // Without round 0 the axis is the same scale, from round 1.
    let svg = plot(&d, "1,2,3,4,5,10,20,100,1000");
    assert_eq!(
        ticks(&svg)[7..],
        ["1", "2", "5", "10", "20", "50", "100", "200", "500", "1000"]
    );
}

#[test]
fn simulate_refuses_more_players_than_its_limit_before_running() {
    let run = podium(&[
        "simulate",
        "--systems",
        "sme",
        "--true",
        "1:100000",
        "--players",
        "50000",
        "--trials",
        "1",
        "--rounds",
        "1",
    ]);
    assert_eq!(
        run.err().trim_end(),
        "error: --players 50000; a simulation takes at most 1000 players"
    );
    assert_eq!(run.stdout, "");
    let run = podium(&["simulate", "--systems", "sme", "--true", "0:5000:1"]);
    assert_eq!(
        run.err().trim_end(),
        "error: --true \"0:5000:1\" gives 5001 true ratings; a simulation takes at most 1000 players"
    );
    // At the limit it runs.
    let run = podium(&[
        "simulate",
        "--systems",
        "sme",
        "--true",
        "0:999:1",
        "--trials",
        "1",
        "--rounds",
        "0",
        "--format",
        "csv",
    ]);
    assert_eq!(
        run.ok()
            .lines()
            .nth(1)
            .unwrap()
            .split(',')
            .take(2)
            .collect::<Vec<_>>(),
        ["sme", "0"]
    );
}

#[test]
fn simulate_says_one_true_rating_in_the_singular() {
    let d = Dir::new("simulate_one_rating");
    let one = d.file("one.txt", "1500 # alone\n");
    let run = podium(&["simulate", "--true", &one]);
    assert_eq!(
        run.err().trim_end(),
        format!("error: --true {one:?} gives 1 true rating; a simulation needs at least 2 players")
    );
}

#[test]
fn regression_simulate_refuses_a_jitter_beyond_the_systems_range() {
    // `--jitter 1e308` panicked in the uniform draw; 1e20 started ratings beyond ±1e9.
    for (jitter, shown) in [("1e308", "1e308"), ("1e20", "1e20"), ("-1", "-1")] {
        let run = podium(&[
            "simulate",
            "--systems",
            "sme",
            "--trials",
            "1",
            "--rounds",
            "1",
            &format!("--jitter={jitter}"),
        ]);
        assert_eq!(
            run.err(),
            format!("error: jitter = {shown} is not valid: expected a number ≥ 0 and ≤ 1e9\n"),
            "{jitter}"
        );
        assert_eq!(run.stdout, "");
    }
    let run = podium(&[
        "simulate",
        "--systems",
        "sme",
        "--trials",
        "1",
        "--rounds",
        "1",
        "--jitter",
        "0",
        "--format",
        "csv",
    ]);
    assert!(run
        .ok()
        .starts_with("system,round,predictive_ability\nsme,1,"));
}

#[test]
fn regression_simulate_refuses_rounds_and_games_beyond_their_limits_before_running() {
    // `--rounds 1000000000` ran on unseen.
    for (args, message) in [
        (
            &["--rounds", "1,1000000000"][..],
            "error: rounds = 1000000000 is not valid: expected rounds ≤ 100000 (the last \
             round a simulation plays to)",
        ),
        (
            &["--rounds", "100000", "--trials", "20000"][..],
            "error: 20000 trials × 100000 rounds = 2000000000 games: a simulation plays at \
             most 1000000000 (trials × the last round); give fewer trials or fewer rounds",
        ),
        (
            &["--trials", "4000000000"][..],
            "error: 4000000000 trials × 1000 rounds = 4000000000000 games: a simulation \
             plays at most 1000000000 (trials × the last round); give fewer trials or fewer \
             rounds",
        ),
        (
            &["--rounds", "0", "--trials", "4000000000"][..],
            "error: trials = 4000000000 is not valid: expected at most 1000000000",
        ),
    ] {
        let mut all = vec!["simulate", "--systems", "sme"];
        all.extend_from_slice(args);
        let run = podium(&all);
        assert_eq!(run.err().trim_end(), message, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
    }
    let help = podium(&["simulate", "--help"])
        .ok()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(help.contains("the last at most 100,000"), "{help}");
    assert!(
        help.contains("trials × the last round at most 1,000,000,000"),
        "{help}"
    );
}

/// `--plot` naming the `--true` file (itself, or a link to it) is refused before the run,
/// and the file of true ratings is left as it was; a negative `--sd` or `--jitter` given
/// as a separate value gets the range message, not a parse error.
#[test]
fn regression_simulate_never_plots_over_its_true_ratings() {
    let d = Dir::new("simulate-true-plot");
    let truth = d.path("r.svg");
    std::fs::write(&truth, "1400\n1500\n1600\n").unwrap();
    let link = d.path("link.svg");
    std::os::unix::fs::symlink(&truth, &link).unwrap();
    for plot in [&truth, &link] {
        let run = podium(&[
            "simulate",
            "--systems",
            "sme",
            "--trials",
            "5",
            "--rounds",
            "1,2",
            "--true",
            &truth,
            "--plot",
            plot,
        ]);
        assert_eq!(
            run.err(),
            format!("error: {plot}: cannot write over {truth}, which is read as an input\n")
        );
        assert_eq!(run.stdout, "");
    }
    assert_eq!(
        std::fs::read_to_string(&truth).unwrap(),
        "1400\n1500\n1600\n"
    );
    for (flag, says) in [
        (
            "--sd",
            "error: sd = -1 is not valid: expected a number > 0 and ≤ 1e12\n",
        ),
        (
            "--jitter",
            "error: jitter = -1 is not valid: expected a number ≥ 0 and ≤ 1e9\n",
        ),
    ] {
        let run = podium(&[
            "simulate",
            "--systems",
            "sme",
            "--trials",
            "1",
            "--rounds",
            "1",
            flag,
            "-1",
        ]);
        assert_eq!(run.err(), says, "{flag}");
    }
}
