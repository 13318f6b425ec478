//! The `podium` command line. Each subcommand lives in its own file under `cmd/`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod ingest;
mod output;

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
    /// List every rating system with its parameters and defaults.
    Systems(cmd::systems::Args),
    /// Run the league server: HTTP API and web pages over a match ledger.
    Serve(cmd::serve::Args),
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Rate(args) => cmd::rate::run(args),
        Command::Explain(args) => cmd::explain::run(args),
        Command::Systems(args) => cmd::systems::run(args),
        Command::Serve(args) => cmd::serve::run(args),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (`podium rate x.csv | head`) is not an error.
            if err
                .chain()
                .filter_map(|e| e.downcast_ref::<io::Error>())
                .any(|e| e.kind() == io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            let _ = writeln!(io::stderr(), "error: {err:#}");
            ExitCode::from(2)
        }
    }
}
