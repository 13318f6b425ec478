//! # podium-server
//!
//! The league server behind `podium serve`: an HTTP JSON API over a match ledger
//! ([`podium_store`]) and web pages for a game group, in one binary.
//!
//! - [`router`] builds the axum [`Router`] (API, pages, OpenAPI document);
//! - [`serve`] opens the store, binds the address and runs until ctrl-c or SIGTERM.
//!
//! Match submissions go to one writer thread that commits whatever has queued up
//! together (group commit), so many clients share each fsync; see [`AppState`].

#![warn(missing_docs)]

mod api;
mod board;
pub mod error;
mod extract;
pub mod openapi;
mod web;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::DefaultBodyLimit;
use axum::Router;
use podium_store::{Appended, LeagueId, SqliteStore, Store, StoreError, Submission};
use tokio::sync::oneshot;

pub use api::api_routes;
pub use error::ApiError;

/// The largest request body accepted (bytes).
pub const BODY_LIMIT: usize = 1024 * 1024;

/// Most submissions committed in one transaction.
const MAX_BATCH: usize = 512;

struct WriteJob {
    league: LeagueId,
    sub: Submission,
    reply: oneshot::Sender<Result<Appended, StoreError>>,
}

struct Inner {
    store: Mutex<Box<dyn Store>>,
    writer: Mutex<Option<mpsc::Sender<WriteJob>>>,
    /// The full leaderboard as last served, per league: replaced when the store hands
    /// out a new board (after any change to the league).
    board_json: Mutex<std::collections::HashMap<LeagueId, Arc<board::BoardBody>>>,
}

/// What the handlers share: the store behind a lock and the writer thread's queue.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

impl AppState {
    /// Wraps a store and starts its writer thread (ended when the last state is dropped).
    #[must_use]
    pub fn new(store: Box<dyn Store>) -> Self {
        let (tx, rx) = mpsc::channel::<WriteJob>();
        let inner = Arc::new(Inner {
            store: Mutex::new(store),
            writer: Mutex::new(Some(tx)),
            board_json: Mutex::new(std::collections::HashMap::new()),
        });
        let weak = Arc::downgrade(&inner);
        std::thread::Builder::new()
            .name("podium-writer".into())
            .spawn(move || writer(rx, weak))
            .expect("the writer thread starts");
        AppState { inner }
    }

    fn store(&self) -> MutexGuard<'_, Box<dyn Store>> {
        lock(&self.inner.store)
    }

    /// Runs `f` on the store on a blocking thread.
    async fn with_store<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut dyn Store) -> Result<T, StoreError> + Send + 'static,
    {
        let state = self.clone();
        tokio::task::spawn_blocking(move || {
            let mut store = state.store();
            f(&mut **store)
        })
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::from)
    }

    /// Checks that `token` is the admin token of `league`.
    async fn authorize(&self, league: LeagueId, token: &str) -> Result<(), ApiError> {
        let token = token.to_string();
        self.with_store(move |s| s.authorize(league, &token)).await
    }

    /// Queues a submission for the writer thread and waits for its commit.
    async fn submit(&self, league: LeagueId, sub: Submission) -> Result<Appended, ApiError> {
        let (reply, rx) = oneshot::channel();
        {
            let writer = lock(&self.inner.writer);
            let Some(tx) = writer.as_ref() else {
                return Err(ApiError::new(
                    axum::http::StatusCode::SERVICE_UNAVAILABLE,
                    "the server is shutting down",
                ));
            };
            tx.send(WriteJob { league, sub, reply })
                .map_err(|_| ApiError::internal("the writer thread has stopped"))?;
        }
        rx.await
            .map_err(|_| ApiError::internal("the writer thread dropped a submission"))?
            .map_err(ApiError::from)
    }

    /// Stops taking submissions; queued ones are still committed.
    pub fn close(&self) {
        lock(&self.inner.writer).take();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The writer thread: takes whatever submissions have queued (up to [`MAX_BATCH`]),
/// commits them in one transaction, answers each.
fn writer(rx: mpsc::Receiver<WriteJob>, inner: std::sync::Weak<Inner>) {
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        while jobs.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let Some(inner) = inner.upgrade() else { return };
        let (batch, replies): (Vec<_>, Vec<_>) = jobs
            .into_iter()
            .map(|j| ((j.league, j.sub), j.reply))
            .unzip();
        let results = lock(&inner.store).append_batch(batch);
        tracing::debug!(batch = replies.len(), "committed a batch of submissions");
        for (reply, result) in replies.into_iter().zip(results) {
            let _ = reply.send(result);
        }
    }
}

/// The whole application: API under `/api`, pages, static files.
pub fn router(state: AppState) -> Router {
    api::routes()
        .merge(web::routes())
        .fallback(api::no_route)
        .method_not_allowed_fallback(api::method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}

/// Opens (or creates) the store at `db`, serves on `addr` until ctrl-c or SIGTERM, then
/// finishes the requests in flight and commits queued submissions before returning.
/// `on_bound` is told the address actually bound (useful with port 0).
///
/// # Errors
/// The store cannot be opened, or the address cannot be bound.
pub async fn serve(
    db: &Path,
    addr: SocketAddr,
    on_bound: impl FnOnce(SocketAddr),
) -> anyhow::Result<()> {
    use anyhow::Context;
    let path = db.to_path_buf();
    let store = tokio::task::spawn_blocking(move || SqliteStore::open(&path))
        .await?
        .with_context(|| format!("cannot open the database {}", db.display()))?;
    let leagues = store.leagues().len();
    tracing::info!(db = %db.display(), leagues, "ledger opened and replayed");
    let state = AppState::new(Box::new(store));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let bound = listener.local_addr()?;
    tracing::info!(addr = %bound, "podium serve listening on http://{bound}/");
    on_bound(bound);
    // Responses go out as soon as they are written: no Nagle delay on the last segment
    // of a response while the previous ones wait for their acknowledgement.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("cannot set TCP_NODELAY: {e}");
        }
    });
    axum::serve(listener, router(state.clone()))
        .with_graceful_shutdown(shutdown_signal())
        .await?;
    state.close();
    tracing::info!("stopped");
    Ok(())
}

async fn shutdown_signal() {
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
    tracing::info!("shutting down: finishing requests in flight");
}
