//! The connections of the server: how long a client may take to send a request, how
//! long a quiet connection is kept, what a failed accept does, and how the server stops.
//!
//! Each bound frees what a slow or silent client would otherwise hold for ever — a task,
//! a socket, a file descriptor — and lets a stop finish:
//!
//! - a request's head (request line and headers) must be whole within
//!   [`Timeouts::headers`] of the connection being ready for it (hyper's
//!   `header_read_timeout`); the connection is closed otherwise;
//! - its body must have arrived within [`Timeouts::body`] of its head: reading it fails
//!   then ([`BodyTimedOut`], answered 408) and the connection is closed;
//! - a connection with no request being answered and no byte either way for
//!   [`Timeouts::idle`] is closed;
//! - an accept that fails (too many open files, say) is logged and tried again shortly:
//!   the server goes on accepting once descriptors are free again;
//! - a stop closes idle connections at once and lets the requests being answered
//!   finish; after [`Timeouts::shutdown_grace`] it closes the connections that are not
//!   answering a request (a client half-way through sending its head), so a stop waits
//!   for the requests in flight, writes included, and for no silent client.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::Instant;
use tower::ServiceExt;

/// How long the server waits for its clients, and for them when it stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// The longest a connection waits for a whole request head (request line and
    /// headers), from when it is ready for one: when it opens, or when the previous
    /// response on it was sent.
    pub headers: Duration,
    /// The longest a request's body may take to arrive, from the end of its head.
    pub body: Duration,
    /// How long a connection is kept without a request being answered and without a
    /// byte either way (a keep-alive connection between requests).
    pub idle: Duration,
    /// At a stop, how long connections are given to finish before those not answering a
    /// request (a client still sending its request's head) are closed. Requests being
    /// answered are waited for (their bodies are bounded by [`Timeouts::body`]).
    pub shutdown_grace: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            headers: Duration::from_secs(10),
            body: Duration::from_secs(30),
            idle: Duration::from_secs(5),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// How long to wait before accepting again after an accept failed (too many open
/// files, no memory for a socket): long enough not to spin, short enough to serve again
/// soon after descriptors are freed.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// A request body that did not arrive within [`Timeouts::body`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyTimedOut(pub Duration);

impl std::fmt::Display for BodyTimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the request body did not arrive within {} s",
            self.0.as_secs_f64()
        )
    }
}

impl std::error::Error for BodyTimedOut {}

/// Where a stop is, as the connections are told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stop {
    Serving,
    /// Close when idle; finish what is being answered.
    Stopping,
    /// The grace period is over: close unless a request is being answered.
    Closing,
}

/// Serves `app` on `listener` with the bounds of `timeouts`, until `shutdown`
/// completes; then stops accepting, closes idle connections, lets the requests being
/// answered finish, closes the other connections after [`Timeouts::shutdown_grace`],
/// and returns once every connection is closed.
pub async fn serve_on(
    listener: TcpListener,
    app: Router,
    timeouts: Timeouts,
    shutdown: impl Future<Output = ()> + Send,
) {
    let limit = timeouts.body;
    let app = app.layer(axum::middleware::map_request(move |req: Request| async move {
        req.map(|body| Body::new(DeadlineBody::new(body, limit)))
    }));
    let (stop, stopping) = watch::channel(Stop::Serving);
    let mut connections = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        while connections.try_join_next().is_some() {}
        match accepted {
            Ok((tcp, _)) => {
                connections.spawn(connection(tcp, app.clone(), timeouts, stopping.clone()));
            }
            // The client gave up before it was accepted: nothing to do.
            Err(e) if is_connection_error(&e) => {}
            Err(e) => {
                tracing::warn!(error = %e, open = connections.len(), "cannot accept a connection; trying again shortly");
                tokio::select! {
                    () = &mut shutdown => break,
                    () = tokio::time::sleep(ACCEPT_BACKOFF) => {}
                }
            }
        }
    }
    drop(listener);
    let _ = stop.send(Stop::Stopping);
    let drained = tokio::time::timeout(timeouts.shutdown_grace, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::info!(
            connections = connections.len(),
            "grace period over: closing the connections not answering a request"
        );
        let _ = stop.send(Stop::Closing);
        while connections.join_next().await.is_some() {}
    }
}

fn is_connection_error(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}

/// Serves one connection until it closes, its client is silent for too long, or the
/// server stops.
async fn connection(
    tcp: TcpStream,
    app: Router,
    timeouts: Timeouts,
    mut stopping: watch::Receiver<Stop>,
) {
    // Responses go out as soon as they are written: no Nagle delay on the last segment
    // of a response while the previous ones wait for their acknowledgement.
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!("cannot set TCP_NODELAY: {e}");
    }
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        inner: tcp,
        activity: activity.clone(),
    });
    let service = {
        let activity = activity.clone();
        hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
            let app = app.clone();
            let answering = Answering::new(&activity);
            async move {
                let res = app.oneshot(req.map(Body::new)).await;
                drop(answering);
                res
            }
        })
    };
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(timeouts.headers)
        .serve_connection(io, service);
    let mut conn = std::pin::pin!(conn);
    let mut stop = Stop::Serving;
    let mut told = true;
    loop {
        if told {
            let now = *stopping.borrow_and_update();
            if now >= Stop::Stopping && stop == Stop::Serving {
                conn.as_mut().graceful_shutdown();
            }
            stop = now;
            told = false;
        }
        if stop == Stop::Closing && activity.answering() == 0 {
            return;
        }
        let quiet_until = activity.last() + timeouts.idle;
        tokio::select! {
            done = conn.as_mut() => {
                if let Err(e) = done {
                    tracing::debug!(error = %e, "connection closed");
                }
                return;
            }
            changed = stopping.changed(), if stop != Stop::Closing => {
                if changed.is_err() {
                    // The server is gone: nothing is left to wait for.
                    return;
                }
                told = true;
            }
            () = tokio::time::sleep_until(quiet_until) => {
                if activity.answering() == 0 && activity.last() + timeouts.idle <= Instant::now() {
                    tracing::debug!("closing a connection idle for {:?}", timeouts.idle);
                    return;
                }
            }
        }
    }
}

/// When a connection last read or wrote a byte, and how many of its requests are being
/// answered.
struct Activity {
    opened: Instant,
    /// Milliseconds from `opened` to the last byte read or written.
    last: AtomicU64,
    answering: AtomicUsize,
}

impl Activity {
    fn new() -> Self {
        Activity {
            opened: Instant::now(),
            last: AtomicU64::new(0),
            answering: AtomicUsize::new(0),
        }
    }

    fn touch(&self) {
        let ms = u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(ms, Ordering::Relaxed);
    }

    fn last(&self) -> Instant {
        self.opened + Duration::from_millis(self.last.load(Ordering::Relaxed))
    }

    fn answering(&self) -> usize {
        self.answering.load(Ordering::Relaxed)
    }
}

/// A request being answered, for as long as it lives.
struct Answering(Arc<Activity>);

impl Answering {
    fn new(activity: &Arc<Activity>) -> Self {
        activity.answering.fetch_add(1, Ordering::Relaxed);
        Answering(activity.clone())
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.answering.fetch_sub(1, Ordering::Relaxed);
        self.0.touch();
    }
}

/// A socket that notes when it last moved a byte.
struct Watched {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A request body that fails with [`BodyTimedOut`] once its deadline passes (the data
/// already come is still read first).
struct DeadlineBody {
    body: Body,
    deadline: Pin<Box<tokio::time::Sleep>>,
    limit: Duration,
    timed_out: bool,
}

impl DeadlineBody {
    fn new(body: Body, limit: Duration) -> Self {
        DeadlineBody {
            body,
            deadline: Box::pin(tokio::time::sleep(limit)),
            limit,
            timed_out: false,
        }
    }
}

impl http_body::Body for DeadlineBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        if this.timed_out {
            return Poll::Ready(None);
        }
        if let Poll::Ready(frame) = Pin::new(&mut this.body).poll_frame(cx) {
            return Poll::Ready(frame);
        }
        match this.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => {
                this.timed_out = true;
                Poll::Ready(Some(Err(axum::Error::new(BodyTimedOut(this.limit)))))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.timed_out || self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
