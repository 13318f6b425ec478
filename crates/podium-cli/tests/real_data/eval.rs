//! The evaluation lab on real data: `podium import codeforces`, and backtests of every
//! registered system.

use std::sync::OnceLock;

use crate::util::{csv_rows, podium, shared_data, Dir};

/// The Codeforces standings converted once for the whole suite (path of the CSV).
pub(crate) fn codeforces_csv() -> &'static str {
    static CSV: OnceLock<(Dir, String)> = OnceLock::new();
    &CSV.get_or_init(|| {
        let dir = Dir::new("cf-real");
        let standings = shared_data().join("codeforces/standings");
        let out = podium(&["import", "codeforces", &standings.to_string_lossy()]);
        let path = dir.file("codeforces.csv", out.ok());
        let dir_shown = standings.display();
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(lines.len(), 2, "{}", out.stderr);
        assert_eq!(
            lines[0],
            format!(
                "{}: 1,286 rows of contest 589 have rankHi below rankLo; places follow rankLo",
                standings.join("589.txt").display()
            )
        );
        let skipped = format!(
            "skipped 42 files of {dir_shown} holding no match (line 1 counts 0 contestants): "
        );
        assert!(lines[1].starts_with(&skipped), "{}", lines[1]);
        assert_eq!(lines[1][skipped.len()..].split(", ").count(), 42);
        assert!(lines[1].ends_with(", 652.txt, 654.txt"), "{}", lines[1]);
        (dir, path)
    })
    .1
}

/// The first `n` contests of the converted history, in a scratch file.
fn first_contests(n: usize) -> (Dir, String) {
    let text = std::fs::read_to_string(codeforces_csv()).unwrap();
    let mut keep = String::new();
    let mut contests = 0;
    let mut last = String::new();
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            let id = line.split(',').next().unwrap();
            if id != last {
                contests += 1;
                last = id.to_string();
            }
            if contests > n {
                break;
            }
        }
        keep.push_str(line);
        keep.push('\n');
    }
    let dir = Dir::new("cf-part");
    let file = dir.file("part.csv", &keep);
    (dir, file)
}

#[test]
fn codeforces_import_counts() {
    let text = std::fs::read_to_string(codeforces_csv()).unwrap();
    let rows = csv_rows(&text);
    // 648,010 result rows in 613 non-empty contests (42 files are empty).
    assert_eq!(rows.len(), 648_010);
    let mut ids: Vec<&str> = rows.iter().map(|r| r["match"].as_str()).collect();
    ids.dedup();
    assert_eq!(ids.len(), 613);
    // Numeric id order, not text order: 1, 2, …, 9, 10, ….
    assert_eq!(&ids[..3], ["1", "2", "3"]);
    assert_eq!(*ids.last().unwrap(), "655");
    let pos = |id: &str| ids.iter().position(|x| *x == id).unwrap();
    assert!(pos("9") < pos("10") && pos("99") < pos("100"));
    // The most frequent handle played 265 contests.
    assert_eq!(rows.iter().filter(|r| r["player"] == "ruban").count(), 265);
    // Contest 1: 66 contestants, DarthBeleg and steiner share places 33–34.
    let c1: Vec<_> = rows.iter().filter(|r| r["match"] == "1").collect();
    assert_eq!(c1.len(), 66);
    let rank = |p: &str| c1.iter().find(|r| r["player"] == p).unwrap()["rank"].clone();
    assert_eq!(rank("DarthBeleg"), "33");
    assert_eq!(rank("steiner"), "33");
    assert_eq!(rank("vepifanov"), "1");
    // Rated by `podium rate`, ruban has 265 games.
    let out = podium(&["rate", codeforces_csv(), "--format", "csv"]);
    let board = csv_rows(out.ok());
    let ruban = board.iter().find(|r| r["player"] == "ruban").unwrap();
    assert_eq!(ruban["games"], "265");
    assert_eq!(board.len(), 70_938);
}

/// The full history with linear-time Elo-family systems: the warm-pair count is the one a
/// separate count of the files gives (both players seen before, different ranks), and
/// the accuracies are what these systems achieve.
#[test]
fn codeforces_backtest_full_history() {
    let out = podium(&[
        "backtest",
        codeforces_csv(),
        "--systems",
        "sme,whitewhale",
        "--no-log-loss",
        "--format",
        "csv",
    ]);
    let rows = csv_rows(out.ok());
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r["warm_pairs"], "462712432", "{r:?}");
        assert_eq!(r["log_loss"], "");
    }
    let acc = |s: &str| -> f64 {
        rows.iter().find(|r| r["system"] == s).unwrap()["pair_accuracy"]
            .parse()
            .unwrap()
    };
    // whitewhale orders contestants well; sme is no better than a coin in contests of
    // thousands, where a mid-field player's two virtual games cancel out (and the
    // hundreds tied at the bottom mostly draw one another).
    assert!(acc("whitewhale") > 0.7, "{}", acc("whitewhale"));
    assert!(acc("sme") > 0.45 && acc("sme") < 0.55, "{}", acc("sme"));
}

/// Every registered system on the first contests, with log loss: each one either
/// completes with the same warm pairs and finite, plausible numbers, or (elo, which
/// rates two-entry matches only) is reported as not applicable.
#[test]
fn every_system_backtests_the_early_contests() {
    let (_dir, file) = first_contests(60);
    let out = podium(&["backtest", &file, "--systems", "all", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(out.ok()).unwrap();
    let list = doc.as_array().unwrap();
    assert_eq!(list.len(), podium::systems().len());
    let mut pairs = None;
    for r in list {
        let name = r["system"].as_str().unwrap();
        if let Some(why) = r.get("not_applicable") {
            assert_eq!(name, "elo", "{name}: {why}");
            continue;
        }
        let warm = r["warm_pairs"].as_u64().unwrap();
        assert_eq!(*pairs.get_or_insert(warm), warm, "{name}");
        let acc = r["pair_accuracy"].as_f64().unwrap();
        let loss = r["log_loss"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&acc), "{name}: {acc}");
        assert!(loss.is_finite() && loss > 0.0, "{name}: {loss}");
    }
    assert!(pairs.unwrap() > 1_000_000);
}

#[test]
fn tune_on_codeforces_scores_the_held_out_contests() {
    let (_dir, file) = first_contests(200);
    let out = podium(&[
        "tune",
        &file,
        "--system",
        "whitewhale",
        "--param",
        "spread=10,20,40",
        "--train",
        "0.5",
        "--format",
        "csv",
    ]);
    let rows = csv_rows(out.ok());
    assert_eq!(rows[0]["role"], "chosen");
    let test: f64 = rows[0]["test_pair_accuracy"].parse().unwrap();
    assert!(test > 0.6, "{test}");
}
