//! `podium serve`: the league server (HTTP JSON API and web pages) over a ledger in a
//! SQLite file or a PostgreSQL database (which several servers may share).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use podium_server::{Checkpoints, Limits, ServeOptions, StoreOptions, Timeouts};

/// Arguments of `podium serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The ledger: a SQLite database file (created and migrated if missing), or a
    /// PostgreSQL database, `postgres://USER:PASSWORD@HOST:PORT/DB` (password and port
    /// optional; migrated if needed), which several servers may share.
    #[arg(long, value_name = "FILE|URL", default_value = "podium.db")]
    db: String,
    /// This server's name in its logs (several may serve one database).
    #[arg(long, value_name = "NAME")]
    instance: Option<String>,
    /// How logs are written to standard error: text, or json (one object per line).
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    log_format: LogFormat,
    /// The address to listen on: an IP address or a host name (`localhost:8080`, its
    /// IPv4 address first), and a port (0 picks a free port).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080", value_parser = listen_address)]
    addr: SocketAddr,
    /// A file holding the server's admin token: only its bearer may create leagues.
    /// Without one, anyone may, which is allowed on a loopback address only (or with
    /// --open).
    #[arg(long, value_name = "FILE")]
    admin_token_file: Option<PathBuf>,
    /// Let anyone create leagues (at most --leagues-per-hour) on an address other than
    /// loopback, without an admin token.
    #[arg(long)]
    open: bool,
    /// The most players in one match.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_players, value_parser = positive)]
    max_players: usize,
    /// The most matches in one request (a JSON array).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_batch, value_parser = positive)]
    max_batch: usize,
    /// The most leagues created per hour without a credential.
    #[arg(long, value_name = "N", default_value_t = Limits::default().leagues_per_hour)]
    leagues_per_hour: usize,
    /// The largest request body, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_body, value_parser = positive)]
    max_body: usize,
    /// Keep each league's ratings every N matches, to rate corrections again from (0:
    /// never; every correction then rates the league from the start).
    #[arg(long, value_name = "N", default_value_t = Checkpoints::default().every)]
    checkpoint_every: usize,
    /// The most such checkpoints kept per league (spread over its ledger).
    #[arg(long, value_name = "N", default_value_t = Checkpoints::default().keep)]
    checkpoints: usize,
    /// The longest a connection waits for a whole request head (request line and
    /// headers), from its opening or its previous response; then it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(Timeouts::default().headers))]
    header_timeout: Seconds,
    /// The longest a request body may take to arrive, from the end of its head (408
    /// after).
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(Timeouts::default().body))]
    body_timeout: Seconds,
    /// How long a connection is kept without a request being answered and without a
    /// byte either way (keep-alive between requests).
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(Timeouts::default().idle))]
    idle_timeout: Seconds,
    /// At ctrl-c or SIGTERM, how long the requests in flight are given before the
    /// connections still open are closed.
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(Timeouts::default().shutdown_grace))]
    shutdown_grace: Seconds,
}

/// A limit of at least 1: a limit of 0 would make a server that takes no writes.
fn positive(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err(format!(
            "{text:?}: give a number above 0 (a limit of 0 would refuse every request it bounds)"
        )),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{text:?} is not a whole number")),
    }
}

/// A duration given as a positive number of seconds (decimals allowed: `0.5`).
#[derive(Debug, Clone, Copy)]
struct Seconds(Duration);

impl std::fmt::Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

impl std::str::FromStr for Seconds {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let s: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("{text:?} is not a number of seconds"))?;
        if !(s > 0.0 && s <= 86_400.0) {
            return Err(format!(
                "{text:?}: give a number of seconds above 0 and at most 86400 (a day)"
            ));
        }
        Ok(Seconds(Duration::from_secs_f64(s)))
    }
}

/// How logs are written.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

/// Runs the server until ctrl-c or SIGTERM.
pub fn run(args: Args) -> anyhow::Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| "info,tower_http=info".into());
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match args.log_format {
        LogFormat::Text => logs
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init(),
        LogFormat::Json => logs.json().init(),
    }
    let admin_token = match &args.admin_token_file {
        None => None,
        Some(file) => {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("cannot read the admin token file {}", file.display()))?;
            let token = text.trim().to_string();
            anyhow::ensure!(
                token.len() >= 16,
                "the admin token in {} is {} characters; use at least 16 (e.g. `openssl rand -hex 32`)",
                file.display(),
                token.len()
            );
            Some(token)
        }
    };
    let options = ServeOptions {
        db: args.db,
        instance: args
            .instance
            .unwrap_or_else(podium_server::default_instance),
        addr: args.addr,
        admin_token,
        open: args.open,
        limits: Limits {
            max_players: args.max_players,
            max_batch: args.max_batch,
            leagues_per_hour: args.leagues_per_hour,
            max_body: args.max_body,
        },
        store: StoreOptions {
            checkpoints: Checkpoints {
                every: args.checkpoint_every,
                keep: args.checkpoints,
            },
            ..StoreOptions::default()
        },
        timeouts: Timeouts {
            headers: args.header_timeout.0,
            body: args.body_timeout.0,
            idle: args.idle_timeout.0,
            shutdown_grace: args.shutdown_grace.0,
        },
    };
    options.access()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(podium_server::serve(options, |addr| {
        // One line on standard output that scripts can wait for.
        println!("listening on http://{addr}/");
    }))
}

/// `--addr`: an IP address and port as written, or a host name resolved to its addresses,
/// the first IPv4 one if it has any (`localhost:8080` listens on 127.0.0.1:8080).
fn listen_address(text: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    if let Ok(addr) = text.parse() {
        return Ok(addr);
    }
    let expected = "expected HOST:PORT, such as 127.0.0.1:8080, 0.0.0.0:8080 or localhost:8080";
    let found: Vec<SocketAddr> = text
        .to_socket_addrs()
        .map_err(|e| format!("{text:?}: {e}; {expected}"))?
        .collect();
    found
        .iter()
        .find(|a| a.is_ipv4())
        .or(found.first())
        .copied()
        .ok_or_else(|| format!("{text:?} names no address; {expected}"))
}
