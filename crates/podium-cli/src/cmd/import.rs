//! `podium import SOURCE ...`: converters from public datasets to the long CSV that
//! `podium rate`, `podium backtest` and `podium tune` read, printed on standard output.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::Context;
use podium_io::datasets::codeforces::{self, Contest};
use podium_io::LongCsvWriter;

/// Arguments of `podium import`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The dataset to convert.
    #[command(subcommand)]
    pub source: Source,
}

/// The datasets `podium import` converts.
#[derive(Debug, clap::Subcommand)]
pub enum Source {
    // ----- Codeforces (evaluation lab) -----
    /// Codeforces standings: a directory of `<contest id>.txt` files (line 1 = N, then
    /// `handle rankLo rankHi`), contests in id order, shared ranks as ties.
    Codeforces(CodeforcesArgs),
    // ----- end of Codeforces -----
}

/// Arguments of `podium import codeforces`.
#[derive(Debug, clap::Args)]
pub struct CodeforcesArgs {
    /// The directory of standings files.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Runs `podium import`.
///
/// # Errors
/// A dataset that cannot be read or does not fit its format, or output that cannot be
/// written.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.source {
        Source::Codeforces(a) => import_codeforces(&a),
    }
}

fn import_codeforces(args: &CodeforcesArgs) -> anyhow::Result<()> {
    let contests = codeforces::read_dir(&args.dir)
        .with_context(|| format!("cannot read the standings in {}", args.dir.display()))?;
    let mut out = LongCsvWriter::new(io::BufWriter::new(io::stdout().lock()));
    let (mut written, mut skipped) = (0usize, 0usize);
    for contest in contests {
        match contest? {
            Contest::Match {
                game,
                reversed_ranges,
            } => {
                if reversed_ranges > 0 {
                    let _ = writeln!(
                        io::stderr(),
                        "contest {}: {reversed_ranges} rows have rankHi below rankLo; places follow rankLo",
                        game.id()
                    );
                }
                out.write(&game)?;
                written += 1;
            }
            Contest::Skipped { .. } => skipped += 1,
        }
    }
    out.flush()?;
    if written == 0 {
        anyhow::bail!(
            "no contest with results in {} (expected files named <contest id>.txt)",
            args.dir.display()
        );
    }
    let _ = writeln!(
        io::stderr(),
        "imported {written} contests; skipped {skipped} without results"
    );
    Ok(())
}
