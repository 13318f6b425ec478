//! # podium-server
//!
//! The league server behind `podium serve`: an HTTP JSON API over a match ledger
//! ([`podium_store`]) and web pages for a game group, in one binary.
//!
//! - [`router`] builds the axum [`Router`] (API, pages, OpenAPI document);
//! - [`serve`] opens the store, listens at once, loads each league in the background
//!   (a league answers 503 until it is loaded), and runs until ctrl-c or SIGTERM.
//!
//! Leagues stand apart ([`podium_store::Leagues`]): one league's slow work — a match of
//! thousands of players, a correction rated again, a reconfiguration, its load at start
//! — holds up no other league, and the league's own readers are served from its last
//! consistent state meanwhile. Submissions to a league that arrive together are
//! committed together (group commit). Operators bound the work a request may ask for
//! ([`Limits`]) and who may create leagues ([`Access`]).

#![warn(missing_docs)]

mod api;
mod board;
mod conn;
pub mod error;
mod extract;
mod groups;
pub mod openapi;
mod seasons;
mod security;
mod web;

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::extract::DefaultBodyLimit;
use axum::Router;
use podium_store::{Appended, LeagueId, Leagues, Store, StoreError, Submission};
use tokio::sync::oneshot;
use tracing::Instrument;

pub use api::api_routes;
pub use conn::{serve_on, BodyTimedOut, Timeouts};
pub use error::ApiError;
pub use podium_store::{self as store, Checkpoints, Options as StoreOptions};

/// What an operator bounds, so that no request asks for unbounded work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most players (result rows) in one match. Rating costs grow with it (the
    /// full-pair systems as its square); the largest Codeforces contest of the datasets
    /// has 4,989.
    pub max_players: usize,
    /// The most matches in one request (a JSON array of matches).
    pub max_batch: usize,
    /// The most leagues created per hour without a credential (an open server).
    pub leagues_per_hour: usize,
    /// The largest request body, in bytes.
    pub max_body: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_players: 10_000,
            max_batch: 1_000,
            leagues_per_hour: 60,
            max_body: 1024 * 1024,
        }
    }
}

/// Who may create leagues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// The bearer of the server's admin token, only (its SHA-256 is kept).
    Token(String),
    /// Anyone, at most [`Limits::leagues_per_hour`] leagues per hour.
    Open,
}

impl Access {
    /// Only the bearer of `token`.
    #[must_use]
    pub fn token(token: &str) -> Self {
        Access::Token(podium_store::hash_token(token))
    }
}

struct Inner {
    /// The server's name, as its logs give it.
    instance: String,
    leagues: Arc<Leagues>,
    limits: Limits,
    access: Access,
    /// When the leagues created without a credential in the last hour were created.
    created: Mutex<VecDeque<Instant>>,
    /// The full leaderboard as last served, per league and order: replaced when the
    /// store hands out a new board (after any change to the league).
    board_json: Mutex<HashMap<(LeagueId, podium::Order), Arc<board::BoardBody>>>,
}

/// What the handlers share: the leagues, the limits, who may create leagues.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl AppState {
    /// The state over `leagues`.
    #[must_use]
    pub fn new(leagues: Arc<Leagues>, limits: Limits, access: Access) -> Self {
        Self::named(leagues, limits, access, String::new())
    }

    /// The state over `leagues` of the server named `instance`.
    #[must_use]
    pub fn named(leagues: Arc<Leagues>, limits: Limits, access: Access, instance: String) -> Self {
        AppState {
            inner: Arc::new(Inner {
                instance,
                leagues,
                limits,
                access,
                created: Mutex::new(VecDeque::new()),
                board_json: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The leagues served.
    #[must_use]
    pub fn leagues(&self) -> &Arc<Leagues> {
        &self.inner.leagues
    }

    fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    fn instance(&self) -> &str {
        &self.inner.instance
    }

    /// Runs `f` on the leagues on a blocking thread (they take locks and may rate).
    async fn with_leagues<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&Leagues) -> Result<T, StoreError> + Send + 'static,
    {
        let leagues = self.inner.leagues.clone();
        let span = tracing::Span::current();
        tokio::task::spawn_blocking(move || span.in_scope(|| f(&leagues)))
            .await
            .map_err(ApiError::internal)?
            .map_err(ApiError::from)
    }

    /// Checks that `token` is the admin token of `league`.
    async fn authorize(&self, league: LeagueId, token: &str) -> Result<(), ApiError> {
        let token = token.to_string();
        self.with_leagues(move |l| l.authorize(league, &token))
            .await
    }

    /// Whether a request with this bearer token may create a league now; counts it
    /// against the hourly quota of an open server (the moment it is counted at is
    /// returned, to [`AppState::uncount`] a creation that fails).
    fn may_create(&self, bearer: Option<&str>) -> Result<Option<Instant>, ApiError> {
        match &self.inner.access {
            Access::Token(hash) => match bearer {
                Some(t) if podium_store::hash_token(t) == *hash => Ok(None),
                _ => Err(ApiError::new(
                    axum::http::StatusCode::UNAUTHORIZED,
                    "creating a league needs the server's admin token: Authorization: Bearer <token>",
                )),
            },
            Access::Open => {
                let hour = Duration::from_secs(3600);
                let now = Instant::now();
                let mut created = lock(&self.inner.created);
                while created.front().is_some_and(|t| now.duration_since(*t) >= hour) {
                    created.pop_front();
                }
                if created.len() >= self.limits().leagues_per_hour {
                    let wait = created
                        .front()
                        .map_or(hour, |t| hour.saturating_sub(now.duration_since(*t)));
                    return Err(ApiError::new(
                        axum::http::StatusCode::TOO_MANY_REQUESTS,
                        format!(
                            "this server creates at most {} leagues per hour without a credential; try later, or ask its operator",
                            self.limits().leagues_per_hour
                        ),
                    )
                    .retry_after(wait.as_secs().max(1)));
                }
                created.push_back(now);
                Ok(Some(now))
            }
        }
    }

    /// Takes back a creation counted at `at` that did not create a league.
    fn uncount(&self, at: Instant) {
        let mut created = lock(&self.inner.created);
        if let Some(k) = created.iter().rposition(|t| *t == at) {
            created.remove(k);
        }
    }

    /// Queues submissions to a league and waits until they are committed (together
    /// with whatever else is queued for the league).
    async fn submit(
        &self,
        league: LeagueId,
        subs: Vec<Submission>,
    ) -> Result<Vec<Result<Appended, StoreError>>, ApiError> {
        let (reply, rx) = oneshot::channel();
        let leagues = self.inner.leagues.clone();
        let must_drain = leagues
            .submit(
                league,
                subs,
                Box::new(move |results| {
                    let _ = reply.send(results);
                }),
            )
            .map_err(ApiError::from)?;
        if must_drain {
            let span = tracing::Span::current();
            tokio::task::spawn_blocking(move || span.in_scope(|| leagues.drain(league)));
        }
        rx.await
            .map_err(|_| ApiError::internal("a submission was dropped unanswered"))
    }
}

/// The whole application: API under `/api`, pages, static files, with the browser
/// protections on every response.
pub fn router(state: AppState) -> Router {
    router_in(state, tracing::Span::none())
}

/// [`router`], each request's log span a child of `root` (which names the server).
fn router_in(state: AppState, root: tracing::Span) -> Router {
    let body = state.limits().max_body;
    let trace = tower_http::trace::TraceLayer::new_for_http().make_span_with(
        move |req: &axum::http::Request<axum::body::Body>| {
            tracing::info_span!(parent: &root, "request", method = %req.method(), uri = %req.uri())
        },
    );
    security::layer(
        api::routes()
            .merge(web::routes())
            .fallback(api::no_route)
            .method_not_allowed_fallback(api::method_not_allowed)
            .layer(DefaultBodyLimit::max(body))
            .layer(trace)
            .with_state(state),
    )
}

/// How `podium serve` runs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The ledger: a SQLite database file, or a PostgreSQL URL
    /// (`postgres://USER@HOST/DB`) that several servers may share.
    pub db: String,
    /// This server's name in the logs (several may serve one database).
    pub instance: String,
    /// Where to listen.
    pub addr: SocketAddr,
    /// The server's admin token: only its bearer creates leagues. Without one, anyone
    /// may, which is allowed only on a loopback address unless `open`.
    pub admin_token: Option<String>,
    /// Let anyone create leagues on a non-loopback address, without an admin token.
    pub open: bool,
    /// What a request may ask for.
    pub limits: Limits,
    /// How the leagues are kept.
    pub store: StoreOptions,
    /// How long clients may take, and how long a stop waits for them.
    pub timeouts: Timeouts,
}

impl ServeOptions {
    /// Who may create leagues, or why the server must not start as asked.
    ///
    /// # Errors
    /// No admin token on a non-loopback address without `open`.
    pub fn access(&self) -> anyhow::Result<Access> {
        match &self.admin_token {
            Some(t) => Ok(Access::token(t)),
            None if self.addr.ip().is_loopback() || self.open => Ok(Access::Open),
            None => anyhow::bail!(
                "{} is not a loopback address, and without an admin token anyone who reaches it could create leagues: give --admin-token-file FILE (only its bearer creates leagues), or --open to let anyone",
                self.addr
            ),
        }
    }
}

/// Opens the ledger `db`: a PostgreSQL URL (`postgres://…` or `postgresql://…`), or
/// else a SQLite file (created and migrated if missing).
///
/// # Errors
/// The database cannot be opened, migrated or written to.
pub fn open_store(db: &str) -> Result<Arc<dyn Store>, StoreError> {
    if db.starts_with("postgres://") || db.starts_with("postgresql://") {
        Ok(Arc::new(podium_store::PgStore::open(db)?))
    } else {
        Ok(Arc::new(podium_store::SqliteStore::open(db)?))
    }
}

/// A name for this server in the logs: the host's name and the process id.
#[must_use]
pub fn default_instance() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "podium".into());
    format!("{host}:{}", std::process::id())
}

/// Opens the ledger, listens on the address at once, loads the leagues in the
/// background (each is served as soon as it is loaded; until then it answers 503; a
/// league with ratings saved in the store serves its board from them at once, and the
/// rest once its whole ledger is rated), follows what other servers on the same database
/// write, serves until ctrl-c or SIGTERM, then finishes the requests in flight (writes
/// included) and saves every league's ratings before returning;
/// connections still open after [`Timeouts::shutdown_grace`] (a client half-way through
/// sending a request) are closed. Slow clients are bounded by [`ServeOptions::timeouts`].
/// `on_bound` is told the address actually bound (useful with port 0).
///
/// # Errors
/// Creating leagues would be open to anyone on a public address, the ledger cannot be
/// opened (or only read), or the address cannot be bound.
pub async fn serve(options: ServeOptions, on_bound: impl FnOnce(SocketAddr)) -> anyhow::Result<()> {
    use anyhow::Context;
    let root = tracing::info_span!("podium", instance = %options.instance);
    let access = options.access()?;
    let db = options.db.clone();
    let store_options = options.store;
    let leagues = tokio::task::spawn_blocking(move || {
        let store = open_store(&db)?;
        let what = store.describe();
        Leagues::open(store, store_options).map(|l| (l, what))
    })
    .await?;
    let (leagues, what) =
        leagues.with_context(|| format!("cannot open the database {}", redact(&options.db)))?;
    root.in_scope(|| tracing::info!(db = %what, leagues = leagues.ids().len(), "ledger opened"));
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .with_context(|| format!("cannot listen on {}", options.addr))?;
    let bound = listener.local_addr()?;
    root.in_scope(|| tracing::info!(addr = %bound, "podium serve listening on http://{bound}/"));
    on_bound(bound);
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    // Claimed before the follower starts, which would otherwise rate a league whole
    // that the loader restores from its saved ratings in a moment.
    let claimed = leagues.claim_unloaded();
    let loader = {
        let (leagues, span) = (leagues.clone(), root.clone());
        std::thread::Builder::new()
            .name("podium-load".into())
            .spawn(move || {
                let _entered = span.enter();
                let started = Instant::now();
                leagues.load_claimed(&claimed, threads);
                tracing::info!(
                    seconds = started.elapsed().as_secs_f64(),
                    "every league loaded"
                );
            })
            .context("cannot start the loading thread")?
    };
    let stop = Arc::new(AtomicBool::new(false));
    let follower = {
        let (leagues, span, stop) = (leagues.clone(), root.clone(), stop.clone());
        std::thread::Builder::new()
            .name("podium-follow".into())
            .spawn(move || {
                let _entered = span.enter();
                leagues.follow(&stop);
            })
            .context("cannot start the following thread")?
    };
    let saver = leagues.clone();
    let state = AppState::named(leagues, options.limits, access, options.instance.clone());
    let app = router_in(state, root.clone());
    serve_on(
        listener,
        app,
        options.timeouts,
        shutdown_signal(root.clone(), options.timeouts.shutdown_grace),
    )
    .instrument(root.clone())
    .await;
    stop.store(true, Ordering::Relaxed);
    let _ = follower.join();
    drop(loader);
    // Every league's ratings saved, so that the next start rates no match again.
    let span = root.clone();
    let _ = tokio::task::spawn_blocking(move || span.in_scope(|| saver.save_all())).await;
    root.in_scope(|| tracing::info!("stopped"));
    Ok(())
}

/// A database address without its password, for messages.
fn redact(db: &str) -> String {
    match (db.find("://"), db.find('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user = &db[scheme + 3..at];
            match user.split_once(':') {
                Some((name, _)) => format!("{}{name}:…{}", &db[..scheme + 3], &db[at..]),
                None => db.to_string(),
            }
        }
        _ => db.to_string(),
    }
}

async fn shutdown_signal(span: tracing::Span, grace: Duration) {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    span.in_scope(|| {
        tracing::info!(
            grace_seconds = grace.as_secs_f64(),
            "shutting down: finishing requests in flight"
        );
    });
}
