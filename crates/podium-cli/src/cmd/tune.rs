//! `podium tune`: search a system's parameters on the first part of a history and report
//! the chosen values with their accuracy on the rest (held out, never seen by the search),
//! beside the defaults' on the same part: when the defaults do as well there, it says to
//! keep them.

use std::io::{self, Write};

use comfy_table::{presets::UTF8_BORDERS_ONLY, CellAlignment, Table};
use podium_eval::tune::ArgNames;
use podium_eval::{BacktestResult, Metric, ParamSearch, Search, TuneError, TuneReport, Tuning};

use crate::evaluation::{pct, worker_threads};
use crate::ingest::{self, report_skipped, InputArgs};
use crate::output::{count, Format};

/// Arguments of `podium tune`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// The system to tune (see `podium systems`).
    #[arg(long, short = 's')]
    pub system: String,
    /// A parameter to search: `k=8..64` (evenly spaced, see --steps), `k=8..64:4` (a step)
    /// or `k=16,24,32` (a list). Repeatable: the grid is every combination. Values keep
    /// every digit in CSV and JSON; the table shows six significant digits, or more where
    /// two would read alike.
    #[arg(long = "param", value_name = "NAME=RANGE", required = true)]
    pub params: Vec<String>,
    /// A parameter held fixed during the search: `key=value` or `system.key=value`
    /// (repeatable).
    #[arg(long = "set", value_name = "[SYSTEM.]KEY=VALUE")]
    pub settings: Vec<String>,
    /// Fraction of the matches (the first ones) to search on; the rest is held out.
    #[arg(long, default_value_t = 0.5)]
    pub train: f64,
    /// Values per range on the grid (the grid, every combination, has at most 10,000
    /// candidates). Default 8.
    #[arg(long, value_name = "N")]
    pub steps: Option<usize>,
    /// Draw this many random candidates (at most 10,000) within the ranges instead of the
    /// grid.
    #[arg(long, value_name = "N")]
    pub random: Option<usize>,
    /// Seed of the random search.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// What the search optimises on the training part.
    #[arg(long, value_enum, default_value = "accuracy")]
    pub metric: MetricArg,
    /// Worker threads (0 = one per core); candidates replay side by side, at most one per
    /// core and one per candidate.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// How many candidates the table lists.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

/// `--metric` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum MetricArg {
    /// Highest pair accuracy.
    Accuracy,
    /// Lowest log loss.
    LogLoss,
}

/// The arguments of `podium tune` as its messages name them.
const CLI_NAMES: ArgNames = ArgNames {
    param: "--param",
    train: "--train",
    steps: "--steps",
    samples: "--random",
    range_step: "LO..HI:STEP",
    joiner: " ",
};

/// A tuning error worded with the command line's arguments.
fn worded(e: TuneError) -> anyhow::Error {
    match e {
        // Its cause stays in the chain.
        TuneError::Config(c) => c.into(),
        e => anyhow::anyhow!(e.message(&CLI_NAMES)),
    }
}

/// Runs `podium tune`.
///
/// # Errors
/// Bad arguments or input, or output that cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut params = args
        .params
        .iter()
        .map(|p| p.parse::<ParamSearch>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(worded)?;
    // `--param sme.k=…` names the system searched, as `--set sme.k=…` may.
    for p in &mut params {
        if let Some((system, name)) = p.name.split_once('.') {
            if system.trim() != args.system {
                anyhow::bail!(
                    "--param {}: names system {system:?}, but tune searches {}; expected \
                     KEY=VALUES or {}.KEY=VALUES",
                    p.name,
                    args.system,
                    args.system
                );
            }
            p.name = name.to_string();
        }
    }
    if args.random.is_some() && args.steps.is_some() {
        anyhow::bail!(
            "--steps and --random: --steps sets the grid's values per range, which a random \
             search has none of; give one or the other"
        );
    }
    let fixed = ingest::settings_for(&args.system, &args.settings)?;
    check_searched_once(&params, &fixed)?;
    if args.top == 0 {
        anyhow::bail!("--top 0: expected at least 1 candidate to list");
    }
    let system = podium::system(&args.system, &podium::Settings::new())?;
    args.input.check_system(system.as_ref())?;
    let tuning = Tuning {
        system: args.system.clone(),
        fixed,
        params,
        search: match args.random {
            Some(samples) => Search::Random {
                samples,
                seed: args.seed,
            },
            None => Search::Grid {
                steps: args.steps.unwrap_or(8),
            },
        },
        train: args.train,
        metric: match args.metric {
            MetricArg::Accuracy => Metric::Accuracy,
            MetricArg::LogLoss => Metric::LogLoss,
        },
        // At most one per core here; at most one per candidate in the search.
        threads: worker_threads(args.threads, usize::MAX),
    };
    // A grid too large is refused before the history is read.
    tuning.check_size().map_err(worded)?;
    let loaded = ingest::load(&args.input)?;
    report_skipped(&loaded.skipped);
    let matches = loaded.matches;
    let bar = crate::evaluation::progress(
        &format!(
            "tuning {} on {}",
            args.system,
            count(matches.len() as u64, "match")
        ),
        None,
    );
    let report = tuning.run(&matches);
    bar.finish_and_clear();
    let report = report.map_err(worded)?;
    let mut out = io::stdout().lock();
    match args.format {
        Format::Csv => write_csv(&mut out, &report, tuning.metric)?,
        Format::Json => write_json(&mut out, &report, tuning.metric)?,
        Format::Table => write_table(&mut out, &report, &tuning, args.top)?,
    }
    out.flush()?;
    Ok(())
}

/// Refuses a parameter searched twice (`--param k=8..64 --param k=16,32`) or both
/// searched and fixed (`--param k=8..64 --set k=10`): the defaults the choice is compared
/// with are the `--set` values with the searched parameters at their defaults, so a
/// parameter is one or the other.
fn check_searched_once(params: &[ParamSearch], fixed: &podium::Settings) -> anyhow::Result<()> {
    let key = |name: &str| name.trim().replace('-', "_");
    for (i, p) in params.iter().enumerate() {
        if params[..i].iter().any(|q| key(&q.name) == key(&p.name)) {
            anyhow::bail!(
                "--param {}: the parameter is given twice; expected each parameter in one \
                 --param (a list A,B,C or a range)",
                p.name
            );
        }
        if fixed.get(&p.name).is_some() {
            anyhow::bail!(
                "--param {0} and --set {0}: a parameter is either searched (--param) or \
                 held fixed (--set), not both",
                p.name
            );
        }
    }
    Ok(())
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// One row per candidate, then the defaults' held-out row. The chosen row carries the
/// held-out figures and `keep_defaults` (`true` when the defaults do at least as well
/// there, empty when the two cannot be compared); each accuracy has its standard error
/// over matches (`*_accuracy_se`, as `podium backtest`'s `accuracy_se`).
fn write_csv(out: &mut dyn Write, r: &TuneReport, metric: Metric) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record([
        "role",
        "settings",
        "train_pair_accuracy",
        "train_log_loss",
        "test_pair_accuracy",
        "test_log_loss",
        "test_warm_pairs",
        "train_accuracy_se",
        "test_accuracy_se",
        "keep_defaults",
    ])?;
    let test_cols = |t: &BacktestResult| {
        [
            opt(t.accuracy()),
            opt(t.log_loss()),
            t.warm_pairs().to_string(),
        ]
    };
    for (i, c) in r.candidates.iter().enumerate() {
        let (ta, tl, tse) = match &c.train {
            Ok(t) => (opt(t.accuracy()), opt(t.log_loss()), opt(t.accuracy_se())),
            Err(_) => (String::new(), String::new(), String::new()),
        };
        let mut row = vec![
            if i == 0 { "chosen" } else { "candidate" }.to_string(),
            c.settings.to_string(),
            ta,
            tl,
        ];
        if i == 0 {
            row.extend(test_cols(&r.test));
            row.extend([
                tse,
                opt(r.test.accuracy_se()),
                r.defaults_as_good(metric)
                    .map(|k| k.to_string())
                    .unwrap_or_default(),
            ]);
        } else {
            row.extend([String::new(), String::new(), String::new()]);
            row.extend([tse, String::new(), String::new()]);
        }
        w.write_record(&row)?;
    }
    if let Ok(d) = &r.default_test {
        let mut row = vec![
            "defaults".to_string(),
            String::new(),
            String::new(),
            String::new(),
        ];
        row.extend(test_cols(d));
        row.extend([String::new(), opt(d.accuracy_se()), String::new()]);
        w.write_record(&row)?;
    }
    w.flush()?;
    Ok(())
}

fn json_result(t: &BacktestResult) -> serde_json::Value {
    serde_json::json!({
        "pair_accuracy": t.accuracy(),
        "accuracy_se": t.accuracy_se(),
        "log_loss": t.log_loss(),
        "warm_pairs": t.warm_pairs(),
        "matches_scored": t.matches_scored,
    })
}

fn write_json(out: &mut dyn Write, r: &TuneReport, metric: Metric) -> anyhow::Result<()> {
    let candidates: Vec<serde_json::Value> = r
        .candidates
        .iter()
        .map(|c| {
            let settings: serde_json::Map<String, serde_json::Value> = c
                .settings
                .iter()
                .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
                .collect();
            match &c.train {
                Ok(t) => serde_json::json!({"settings": settings, "train": json_result(t)}),
                Err(why) => serde_json::json!({"settings": settings, "error": why}),
            }
        })
        .collect();
    let doc = serde_json::json!({
        "train_matches": r.train_matches,
        "test_matches": r.test_matches,
        "chosen": candidates[0]["settings"],
        "test": json_result(&r.test),
        "defaults_test": r.default_test.as_ref().ok().map(json_result),
        "keep_defaults": r.defaults_as_good(metric),
        "candidates": candidates,
    });
    writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    Ok(())
}

fn write_table(
    out: &mut dyn Write,
    r: &TuneReport,
    tuning: &Tuning,
    top: usize,
) -> anyhow::Result<()> {
    let chosen = r.chosen();
    // The listed candidates, their settings with digits enough to tell them apart.
    let shown: Vec<&podium_eval::tune::Candidate> = r.candidates.iter().take(top).collect();
    let digits = digits_to_tell_apart(&shown);
    let show = |s: &podium::Settings| readable(s, &digits);
    writeln!(
        out,
        "Tuned {} on {} ({}, by {}); held out: {}",
        tuning.system,
        numbered(1, r.train_matches),
        count(r.candidates.len() as u64, "candidate"),
        tuning.metric,
        numbered(r.train_matches + 1, r.train_matches + r.test_matches)
    )?;
    // The held-out figures of the metric searched on, with decimals enough to tell the
    // chosen one's from the defaults'.
    let held_out = r.held_out(tuning.metric);
    let figure = |v: f64| {
        let (c, d) = held_out.unwrap_or((v, v));
        match tuning.metric {
            Metric::Accuracy => {
                let places = decimals_to_tell_apart(&[100.0 * c, 100.0 * d], 1);
                format!("{:.places$} %", 100.0 * v)
            }
            Metric::LogLoss => {
                let places = decimals_to_tell_apart(&[c, d], 4);
                format!("{v:.places$}")
            }
        }
    };
    let better = match tuning.metric {
        Metric::Accuracy => "higher is better",
        Metric::LogLoss => "lower is better",
    };
    match (r.defaults_as_good(tuning.metric), held_out) {
        (Some(true), Some((c, d))) => writeln!(
            out,
            "keep the defaults: the best on the training part, {}, is not better than the \
             defaults on the held-out part ({} {} against the defaults' {}; {better})",
            show(&chosen.settings),
            tuning.metric,
            figure(c),
            figure(d)
        )?,
        (Some(false), Some((c, d))) => writeln!(
            out,
            "chosen: {} (better than the defaults on the held-out part: {} {} against {}; \
             {better})",
            show(&chosen.settings),
            tuning.metric,
            figure(c),
            figure(d)
        )?,
        _ => writeln!(
            out,
            "chosen: {} (not compared with the defaults: the held-out part gives no {} \
             for both)",
            show(&chosen.settings),
            tuning.metric
        )?,
    }
    let line = |label: &str, t: &BacktestResult| {
        format!(
            "{label}: pair accuracy {} %, log loss {}, {}",
            match (t.accuracy(), t.accuracy_se()) {
                (Some(a), Some(se)) => format!("{} ± {}", pct(a), pct(se)),
                (Some(a), None) => pct(a),
                (None, _) => "–".into(),
            },
            t.log_loss()
                .map(|l| format!("{l:.4}"))
                .unwrap_or_else(|| "–".into()),
            count(t.warm_pairs(), "warm pair")
        )
    };
    if let Ok(t) = &chosen.train {
        writeln!(out, "{}", line("  training", t))?;
    }
    writeln!(out, "{}", line("  held out", &r.test))?;
    match &r.default_test {
        Ok(d) => writeln!(out, "{}", line("  defaults, held out", d))?,
        Err(why) => writeln!(out, "  defaults cannot rate the history: {why}")?,
    }
    // The listed candidates' figures, each column with decimals enough that two
    // candidates that differ at full precision read differently.
    let figures = |f: fn(&BacktestResult) -> Option<f64>| -> Vec<f64> {
        shown
            .iter()
            .filter_map(|c| c.train.as_ref().ok().and_then(f))
            .collect()
    };
    let accuracies: Vec<f64> = figures(BacktestResult::accuracy)
        .into_iter()
        .map(|a| 100.0 * a)
        .collect();
    let losses = figures(BacktestResult::log_loss);
    let (a_places, l_places) = (
        decimals_to_tell_apart(&accuracies, 1),
        decimals_to_tell_apart(&losses, 4),
    );
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    t.set_header(["#", "settings", "train accuracy %", "train log loss"]);
    for (i, c) in shown.iter().enumerate() {
        let (a, l) = match &c.train {
            Ok(x) => (
                x.accuracy()
                    .map(|a| format!("{:.a_places$}", 100.0 * a))
                    .unwrap_or_else(|| "–".into()),
                x.log_loss()
                    .map(|l| format!("{l:.l_places$}"))
                    .unwrap_or_else(|| "–".into()),
            ),
            Err(why) => (format!("n/a: {why}"), String::new()),
        };
        t.add_row([(i + 1).to_string(), show(&c.settings), a, l]);
    }
    for i in [0, 2, 3] {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(out, "{t}")?;
    let searched = match tuning.metric {
        Metric::Accuracy => accuracies,
        Metric::LogLoss => losses,
    };
    if searched.windows(2).any(|w| w[0] == w[1]) {
        writeln!(
            out,
            "Candidates with equal figures are equal at full precision; the earlier in the \
             search's order is listed first."
        )?;
    }
    writeln!(
        out,
        "± is one standard error with the matches as the units (see `podium backtest`)."
    )?;
    Ok(())
}

/// The fewest significant digits a setting's numbers are shown with: searched values
/// keep every digit (CSV and JSON show them so), and a table of 17-digit values reads
/// badly.
const LEAST_DIGITS: usize = 6;

/// A number of a setting (not a whole number, which is shown as it is), or `None`.
fn fraction(text: &str) -> Option<f64> {
    if text.parse::<i64>().is_ok() {
        return None;
    }
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// `v` to `digits` significant digits, as the search writes a value: the shortest text,
/// in exponent form beyond everyday sizes.
fn to_digits(v: f64, digits: usize) -> String {
    let r: f64 = format!("{v:.*e}", digits.saturating_sub(1))
        .parse()
        .unwrap_or(v);
    if r == 0.0 || (1e-6..1e16).contains(&r.abs()) {
        format!("{r}")
    } else {
        format!("{r:e}")
    }
}

/// Per parameter, the fewest significant digits, from [`LEAST_DIGITS`] up to 17, at which
/// every two of its values among `candidates` that differ read differently.
fn digits_to_tell_apart(
    candidates: &[&podium_eval::tune::Candidate],
) -> std::collections::HashMap<String, usize> {
    let mut values: std::collections::HashMap<String, Vec<f64>> = Default::default();
    for c in candidates {
        for (k, v) in c.settings.iter() {
            if let Some(x) = fraction(v) {
                values.entry(k.to_string()).or_default().push(x);
            }
        }
    }
    values
        .into_iter()
        .map(|(k, mut v)| {
            v.sort_by(f64::total_cmp);
            v.dedup();
            let digits = (LEAST_DIGITS..=17)
                .find(|&d| {
                    v.windows(2)
                        .all(|w| to_digits(w[0], d) != to_digits(w[1], d))
                })
                .unwrap_or(17);
            (k, digits)
        })
        .collect()
}

/// `settings` as the table shows them: `k=0.142857 scale=400`, each number with its
/// parameter's digits.
fn readable(
    settings: &podium::Settings,
    digits: &std::collections::HashMap<String, usize>,
) -> String {
    settings
        .iter()
        .map(|(k, v)| match (fraction(v), digits.get(k)) {
            (Some(x), Some(&d)) => format!("{k}={}", to_digits(x, d)),
            _ => format!("{k}={v}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Matches `first` to `last` by number: `match 3`, or `matches 1..23`.
fn numbered(first: usize, last: usize) -> String {
    if first == last {
        format!("match {first}")
    } else {
        format!("matches {first}..{last}")
    }
}

/// The fewest decimals, from `least` up to 8, at which every two of `values` that differ
/// read differently.
fn decimals_to_tell_apart(values: &[f64], least: usize) -> usize {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    (least..=8)
        .find(|&places| {
            sorted
                .windows(2)
                .all(|w| format!("{:.places$}", w[0]) != format!("{:.places$}", w[1]))
        })
        .unwrap_or(8)
}

#[cfg(test)]
mod tests {
    use super::{decimals_to_tell_apart, digits_to_tell_apart, numbered, readable, to_digits};
    use podium::Settings;
    use podium_eval::tune::Candidate;

    #[test]
    fn settings_read_with_digits_enough_to_tell_candidates_apart() {
        let candidates: Vec<Candidate> = [
            "0.14285714285714285",
            "0.1428571",
            "0.000001",
            "0.0000055",
            "1e-300",
            "8",
        ]
        .into_iter()
        .map(|k| Candidate {
            settings: Settings::from([("k", k), ("winner_takes_all", "true")]),
            train: Err(String::new()),
        })
        .collect();
        let all: Vec<&Candidate> = candidates.iter().collect();
        let digits = digits_to_tell_apart(&all);
        // 0.142857 twice at six digits; eight tell them apart.
        assert_eq!(digits["k"], 8);
        let shown: Vec<String> = all.iter().map(|c| readable(&c.settings, &digits)).collect();
        assert_eq!(
            shown,
            [
                "k=0.14285714 winner_takes_all=true",
                "k=0.1428571 winner_takes_all=true",
                "k=0.000001 winner_takes_all=true",
                "k=0.0000055 winner_takes_all=true",
                "k=1e-300 winner_takes_all=true",
                "k=8 winner_takes_all=true",
            ]
        );
        let digits = digits_to_tell_apart(&all[..1]);
        assert_eq!(
            readable(&all[0].settings, &digits),
            "k=0.142857 winner_takes_all=true"
        );
        // Whole numbers as they are.
        let big = Candidate {
            settings: Settings::from([("provisional_games", "1234567")]),
            train: Err(String::new()),
        };
        assert_eq!(
            readable(&big.settings, &digits_to_tell_apart(&[&big])),
            "provisional_games=1234567"
        );
        assert_eq!(to_digits(23.451_234_567_891_234, 6), "23.4512");
        assert_eq!(to_digits(1.234_567_8e-7, 6), "1.23457e-7");
    }

    #[test]
    fn a_part_of_one_match_is_named_in_the_singular() {
        assert_eq!(numbered(2, 2), "match 2");
        assert_eq!(numbered(1, 23), "matches 1..23");
    }

    #[test]
    fn figures_get_decimals_enough_to_tell_different_ones_apart() {
        // Codeforces: 73.225 % and 73.213 % both read 73.2 with one decimal.
        assert_eq!(decimals_to_tell_apart(&[73.2254, 73.2131, 73.0], 1), 2);
        // Equal figures stay equal; different ones already apart need nothing more.
        assert_eq!(decimals_to_tell_apart(&[58.0, 58.0, 56.8], 1), 1);
        assert_eq!(decimals_to_tell_apart(&[0.64961, 0.6503, 0.64964], 4), 5);
        assert_eq!(decimals_to_tell_apart(&[], 4), 4);
        // Never more than 8.
        assert_eq!(decimals_to_tell_apart(&[1.0, 1.0 + 1e-12], 1), 8);
    }
}
