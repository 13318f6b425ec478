//! The `podium` command line. Each subcommand lives in its own file under `cmd/`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod evaluation;
mod ingest;
mod output;
mod plot;

/// mimalloc: reading a file allocates a few small strings and vectors per row and frees
/// them a match later; mimalloc does that markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Rate players of multiplayer games: free-for-alls, teams, ties.
#[derive(Debug, Parser)]
#[command(name = "podium", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Rate every match of one or more files and print the leaderboard.
    Rate(cmd::rate::Args),
    /// Show one player's matches and why their rating moved.
    Explain(cmd::explain::Args),
    /// List the rating systems, the default first; with a name, its parameters and defaults.
    Systems(cmd::systems::Args),
    /// Rank shooter players from Quake 3 server logs, frag by frag (with a stats site).
    Frags(cmd::frags::Args),
    /// Convert a published dataset (Catan log, Formula 1 results, Codeforces standings) into long CSV.
    Import(cmd::import::Args),
    /// Rate a history, then predict a proposed match: win chances, orders, places.
    Predict(cmd::predict::Args),
    /// Simulate games between players of known strength and measure how well each system predicts.
    Simulate(cmd::simulate::Args),
    /// Replay a history and score each system's predictions before every match.
    Backtest(cmd::backtest::Args),
    /// Smooth every player's skill over a whole history (TrueSkill Through Time): table and plot.
    History(cmd::history::Args),
    /// Search a system's parameters on the first part of a history, score them on the rest.
    Tune(cmd::tune::Args),
    /// Run the league server: HTTP API and web pages over a match ledger.
    Serve(cmd::serve::Args),
    /// Rate a history, then split the players present into the fairest teams or tables.
    Teams(cmd::teams::Args),
    /// Head-to-head: two players' meetings, or one player's nemesis and favourite opponent.
    Versus(cmd::versus::Args),
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Rate(args) => cmd::rate::run(args),
        Command::Explain(args) => cmd::explain::run(args),
        Command::Systems(args) => cmd::systems::run(args),
        Command::Frags(args) => cmd::frags::run(args),
        Command::Import(args) => cmd::import::run(args),
        Command::Predict(args) => cmd::predict::run(args),
        Command::Simulate(args) => cmd::simulate::run(args),
        Command::Backtest(args) => cmd::backtest::run(args),
        Command::History(args) => cmd::history::run(args),
        Command::Tune(args) => cmd::tune::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Teams(args) => cmd::teams::run(args),
        Command::Versus(args) => cmd::versus::run(args),
    }
}

/// Whether `e` says standard output was closed. The csv writer's error holds its I/O
/// error without giving it as a source.
fn is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    let io = e.downcast_ref::<io::Error>().or_else(|| {
        e.downcast_ref::<csv::Error>().and_then(|c| match c.kind() {
            csv::ErrorKind::Io(io) => Some(io),
            _ => None,
        })
    });
    io.is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Diagnostics on standard error when asked for with RUST_LOG (the server sets up
    // its own log, on by default).
    if !matches!(cli.command, Command::Serve(_)) {
        if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_default_env() {
            tracing_subscriber::fmt()
                .with_env_filter(filter)
                .with_writer(io::stderr)
                .init();
        }
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (`podium rate x.csv | head`) is not an error.
            if err.chain().any(is_broken_pipe) {
                return ExitCode::SUCCESS;
            }
            let _ = writeln!(io::stderr(), "error: {}", message(&err));
            ExitCode::from(2)
        }
    }
}

/// The error and each of its causes once: a message that already holds its cause's
/// text (`{path}: {source}`) is not followed by the cause again.
fn message(err: &anyhow::Error) -> String {
    let mut out = err.to_string();
    for cause in err.chain().skip(1) {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
    }
    out
}
