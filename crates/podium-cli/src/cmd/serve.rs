//! `podium serve`: the league server (HTTP JSON API and web pages) over a SQLite ledger.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;

/// Arguments of `podium serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The SQLite database file; created and migrated if missing.
    #[arg(long, value_name = "FILE", default_value = "podium.db")]
    db: PathBuf,
    /// The address to listen on (port 0 picks a free port).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
}

/// Runs the server until ctrl-c or SIGTERM.
pub fn run(args: Args) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,tower_http=info".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(podium_server::serve(&args.db, args.addr, |addr| {
        // One line on standard output that scripts can wait for.
        println!("listening on http://{addr}/");
    }))
}
