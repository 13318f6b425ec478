//! `podium import`: convert a published dataset into long CSV on standard output, ready
//! for `podium rate`, `podium backtest` and `podium tune`
//! (`podium import catan games.txt > catan.csv`).

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use podium::Match;
use podium_io::datasets;
use podium_io::datasets::codeforces::Contest;
use podium_io::quake::site::thousands;
use podium_io::LongCsvWriter;

use crate::output::noun;

/// Arguments of `podium import`.
#[derive(Debug, clap::Args)]
#[command(
    subcommand_value_name = "DATASET",
    subcommand_help_heading = "Datasets",
    after_help = "The long CSV goes to standard output: podium import catan games.txt > catan.csv"
)]
pub struct Args {
    #[command(subcommand)]
    dataset: Dataset,
}

/// The datasets podium converts.
#[derive(Debug, clap::Subcommand)]
enum Dataset {
    /// A Catan game log (`DATE : VP : Name pts, ...`, newest first), e.g. acodcha/catan-leaderboard's games.txt; `-` reads standard input.
    Catan {
        /// The game log.
        #[arg(value_name = "FILE")]
        file: String,
        /// Write each player's victory points in a `score` column instead of the place in `rank` (a starred player half a point above the others with the same points; the places are the same).
        #[arg(long)]
        scores: bool,
    },
    /// Formula 1 results in the Ergast schema: a directory with races.csv, results.csv, drivers.csv and constructors.csv; each row carries the driver's car in a `constructor` column (`podium rate f1.csv --factor constructor` rates the cars beside the drivers).
    F1 {
        /// The directory holding the CSV files.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// Write minus each driver's seconds behind the winner in a `score` column instead of the place in `rank`: the gap on the clock (milliseconds) on the lead lap, the missing laps at the winner's mean lap time otherwise, and every driver at least 1 s behind the one above him (the places are the same; races whose winner has no time keep ranks).
        #[arg(long)]
        scores: bool,
    },
    /// Codeforces standings: a directory of `<contest id>.txt` files (line 1 = N, then `handle rankLo rankHi`), contests in id order, shared ranks as ties.
    Codeforces {
        /// The directory of standings files.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

/// Converts and prints.
pub fn run(args: Args) -> anyhow::Result<()> {
    let bar = crate::evaluation::progress("importing", None);
    let read = match args.dataset {
        Dataset::Catan { file, scores } => catan(&file, scores).map(|m| (file.clone(), m)),
        Dataset::F1 { dir, scores } => f1(&dir, scores).map(|m| (dir.display().to_string(), m)),
        Dataset::Codeforces { dir } => codeforces(&dir).map(|m| (dir.display().to_string(), m)),
    };
    bar.finish_and_clear();
    let (source, matches) = read?;
    let mut out = LongCsvWriter::new(BufWriter::new(io::stdout().lock()));
    for m in &matches {
        out.write(m)?;
    }
    out.flush()?;
    if io::stderr().is_terminal() {
        let rows: usize = matches.iter().map(Match::player_count).sum();
        eprintln!("{}", summary(matches.len(), rows, &source));
    }
    Ok(())
}

/// The line said on a terminal after an import, counts with their thousands marked as
/// `podium frags` marks them: `imported 1,125 matches (26,080 rows) from f1`.
fn summary(matches: usize, rows: usize, source: &str) -> String {
    format!(
        "imported {} ({} {}) from {source}",
        counted(matches, "match"),
        thousands(rows as u64),
        noun(rows as u64, "row")
    )
}

/// `n things`, `n` with its thousands marked: `1 match`, `1,286 rows`.
fn counted(n: usize, thing: &str) -> String {
    format!("{} {}", thousands(n as u64), noun(n as u64, thing))
}

/// What `podium import codeforces` says of a contest read with rows whose rankHi is below
/// their rankLo.
fn reversed_note(file: &str, rows: u64, contest: &str) -> String {
    format!(
        "{file}: {} of contest {contest} {} rankHi below rankLo; places follow rankLo",
        counted(rows as usize, "row"),
        if rows == 1 { "has" } else { "have" },
    )
}

fn catan(file: &str, scores: bool) -> anyhow::Result<Vec<Match>> {
    let (name, input): (&str, Box<dyn BufRead>) = if file == "-" {
        ("<stdin>", Box::new(io::stdin().lock()))
    } else {
        let f = File::open(file).with_context(|| format!("cannot open {file}"))?;
        (file, Box::new(BufReader::new(f)))
    };
    Ok(if scores {
        datasets::catan::read_scores(name, input)?
    } else {
        datasets::catan::read(name, input)?
    })
}

fn f1(dir: &Path, scores: bool) -> anyhow::Result<Vec<Match>> {
    let open = |name: &str| -> anyhow::Result<(String, BufReader<File>)> {
        let path = dir.join(name);
        let shown = path.display().to_string();
        let f = File::open(&path).with_context(|| {
            format!("cannot open {shown} (an F1 directory holds races.csv, results.csv, drivers.csv and constructors.csv)")
        })?;
        Ok((shown, BufReader::new(f)))
    };
    let (races, results, drivers, constructors) = (
        open("races.csv")?,
        open("results.csv")?,
        open("drivers.csv")?,
        open("constructors.csv")?,
    );
    let read = if scores {
        datasets::f1::read_scores
    } else {
        datasets::f1::read
    };
    Ok(read(
        (&races.0, races.1),
        (&results.0, results.1),
        (&drivers.0, drivers.1),
        (&constructors.0, constructors.1),
    )?)
}

fn codeforces(dir: &Path) -> anyhow::Result<Vec<Match>> {
    let (contests, other) = datasets::codeforces::read_dir(dir)
        .with_context(|| format!("cannot read the standings in {}", dir.display()))?;
    let mut matches = Vec::new();
    // The files without a match, by reason, in id order.
    let mut skipped: Vec<(&'static str, Vec<String>)> = Vec::new();
    for contest in contests {
        match contest? {
            Contest::Match {
                file,
                game,
                reversed_ranges,
            } => {
                if reversed_ranges > 0 {
                    let _ = writeln!(
                        io::stderr(),
                        "{}",
                        reversed_note(&file, reversed_ranges, game.id())
                    );
                }
                matches.push(game);
            }
            Contest::Skipped { file, reason } => {
                let name = file_name(Path::new(&file));
                match skipped.iter_mut().find(|(r, _)| *r == reason) {
                    Some((_, files)) => files.push(name),
                    None => skipped.push((reason, vec![name])),
                }
            }
        }
    }
    if !other.is_empty() {
        let names: Vec<String> = other.iter().map(|p| file_name(p)).collect();
        let _ = writeln!(
            io::stderr(),
            "left out {} file{} of {} not named <contest id>.txt: {}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            dir.display(),
            names.join(", ")
        );
    }
    for (reason, files) in &skipped {
        let _ = writeln!(
            io::stderr(),
            "skipped {} file{} of {} holding no match ({reason}): {}",
            files.len(),
            if files.len() == 1 { "" } else { "s" },
            dir.display(),
            files.join(", ")
        );
    }
    if matches.is_empty() {
        anyhow::bail!(
            "no contest with results in {} (expected files named <contest id>.txt)",
            dir.display()
        );
    }
    Ok(matches)
}

/// A file's name without its directory, for lists of files of one directory.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_have_their_thousands_marked() {
        assert_eq!(
            summary(1125, 26_080, "f1"),
            "imported 1,125 matches (26,080 rows) from f1"
        );
        assert_eq!(
            summary(1, 2, "g.txt"),
            "imported 1 match (2 rows) from g.txt"
        );
        assert_eq!(
            reversed_note("cf/589.txt", 1286, "589"),
            "cf/589.txt: 1,286 rows of contest 589 have rankHi below rankLo; places follow rankLo"
        );
        assert_eq!(
            reversed_note("cf/7.txt", 1, "7"),
            "cf/7.txt: 1 row of contest 7 has rankHi below rankLo; places follow rankLo"
        );
    }
}
