//! Bounds on the connections the server holds: at most so many open at once from one address
//! (more are closed as soon as they are accepted), and a connection on which nothing arrives
//! for the idle time is closed. Game sockets are pinged more often than that, so only dead or
//! deliberately silent connections reach it. A reverse proxy's connections are not capped per
//! address (the proxy holds one for each of its clients); the cap per client belongs in the
//! proxy then.
//!
//! A request must also arrive in time, whatever the idle timer says: its head (request line
//! and headers) within a deadline from its first byte, and its body within a deadline that
//! grows with what has arrived, so that a client trickling a byte every few seconds cannot
//! hold a connection (and a file descriptor) for long. [`serve`] runs the connections with
//! these deadlines.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use http_body::{Frame, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

/// Limits on connections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections one address may hold open at once.
    pub per_address: usize,
    /// A connection on which nothing arrives for this long is closed.
    pub idle: Duration,
    /// A request's head (request line and headers) must arrive within this.
    pub head: Duration,
    /// A request's body must arrive within this, and [`BODY_BYTES_PER_SECOND`] more time for
    /// each byte that has arrived.
    pub body: Duration,
    /// Reverse proxies: their connections carry many clients, so they are not held to
    /// `per_address`, and the client is the last address they add to `X-Forwarded-For`.
    pub proxies: Arc<[IpAddr]>,
}

impl ConnectionLimits {
    /// Whether `ip` is a reverse proxy of this server.
    pub fn is_proxy(&self, ip: IpAddr) -> bool {
        self.proxies.contains(&ip)
    }

    /// The address a request comes from: the peer's, or when the peer is a trusted reverse
    /// proxy (`--proxy-address`; by default one on the same machine), the last address the
    /// proxy added to `X-Forwarded-For`.
    pub fn client_address(&self, peer: SocketAddr, headers: &axum::http::HeaderMap) -> IpAddr {
        if self.is_proxy(peer.ip())
            && let Some(forwarded) = headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|value| value.to_str().ok())
                .flat_map(|value| value.split(','))
                .filter_map(|part| part.trim().parse::<IpAddr>().ok())
                .next_back()
        {
            return forwarded;
        }
        peer.ip()
    }
}

/// A proxy on the same machine, the usual deployment (see docs/deploy.md).
pub const LOOPBACK_PROXIES: [IpAddr; 2] = [
    IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
    IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
];

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            per_address: 64,
            idle: Duration::from_secs(90),
            head: Duration::from_secs(10),
            body: Duration::from_secs(20),
            proxies: Arc::from(LOOPBACK_PROXIES),
        }
    }
}

type Counts = Arc<Mutex<HashMap<IpAddr, usize>>>;

/// The address a connection comes from, as handlers extract it (`ConnectInfo<PeerAddr>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerAddr(pub SocketAddr);

impl axum::extract::connect_info::Connected<axum::serve::IncomingStream<'_, LimitedListener>>
    for PeerAddr
{
    fn connect_info(stream: axum::serve::IncomingStream<'_, LimitedListener>) -> Self {
        *stream.remote_addr()
    }
}

/// The slowest a request body may arrive beyond [`ConnectionLimits::body`]: each 8 KiB that
/// has arrived gives one second more (a 64 KiB body has 28 s by default; a 2 MiB import
/// 276 s), while a byte a second gets nothing past the first deadline.
pub const BODY_BYTES_PER_SECOND: u64 = 8 * 1024;

/// A TCP listener that keeps to [`ConnectionLimits`].
pub struct LimitedListener {
    inner: TcpListener,
    limits: ConnectionLimits,
    open: Counts,
    /// Connections refused for their address's share, and when that was last logged.
    refusals: Arc<RefusalLog>,
}

/// Refused connections: counted for the metrics, and logged at most once a minute (a flood
/// refused connection by connection would otherwise write a line for each).
#[derive(Debug, Default)]
pub struct RefusalLog {
    /// Connections refused since the server started.
    pub refused: AtomicU64,
    /// Refusals not logged yet, and when the last line was written.
    unlogged: Mutex<(u64, Option<Instant>)>,
}

/// How often at most a line about refused connections is logged.
const REFUSAL_LOG_INTERVAL: Duration = Duration::from_secs(60);

impl RefusalLog {
    fn refused(&self, ip: IpAddr, per_address: usize) {
        self.refused.fetch_add(1, Ordering::Relaxed);
        let Ok(mut unlogged) = self.unlogged.lock() else {
            return;
        };
        unlogged.0 += 1;
        let due = unlogged
            .1
            .is_none_or(|last| last.elapsed() >= REFUSAL_LOG_INTERVAL);
        if due {
            tracing::warn!(
                address = %ip,
                refused = unlogged.0,
                "connections refused: an address already held {per_address} connections \
                 (this address the latest; a line at most once a minute)"
            );
            *unlogged = (0, Some(Instant::now()));
        }
    }
}

impl LimitedListener {
    /// Wraps a bound listener.
    pub fn new(inner: TcpListener, limits: ConnectionLimits) -> LimitedListener {
        LimitedListener {
            inner,
            limits,
            open: Arc::new(Mutex::new(HashMap::new())),
            refusals: Arc::default(),
        }
    }

    /// The count of refused connections, for the metrics.
    pub fn refusals(&self) -> Arc<RefusalLog> {
        self.refusals.clone()
    }

    /// Counts a new connection from `ip`, unless the address already has its share (a proxy
    /// is counted but never refused: it speaks for many clients).
    fn admit(&self, ip: IpAddr) -> bool {
        let Ok(mut open) = self.open.lock() else {
            return false;
        };
        let count = open.entry(ip).or_insert(0);
        if *count >= self.limits.per_address && !self.limits.is_proxy(ip) {
            return false;
        }
        *count += 1;
        true
    }
}

impl axum::serve::Listener for LimitedListener {
    type Io = LimitedStream;
    type Addr = PeerAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let (stream, address) = match self.inner.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!("accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            if !self.admit(address.ip()) {
                self.refusals.refused(address.ip(), self.limits.per_address);
                drop(stream);
                continue;
            }
            let stream = LimitedStream {
                stream,
                idle: self.limits.idle,
                deadline: Box::pin(tokio::time::sleep(self.limits.idle)),
                open: self.open.clone(),
                ip: address.ip(),
            };
            return (stream, PeerAddr(address));
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr().map(PeerAddr)
    }
}

/// An accepted connection: counted for its address while it lives, closed when idle.
pub struct LimitedStream {
    stream: TcpStream,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
    open: Counts,
    ip: IpAddr,
}

impl Drop for LimitedStream {
    fn drop(&mut self) {
        if let Ok(mut open) = self.open.lock()
            && let Some(count) = open.get_mut(&self.ip)
        {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

impl AsyncRead for LimitedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.stream).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    let next = Instant::now() + self.idle;
                    self.deadline.as_mut().reset(next);
                }
                Poll::Ready(result)
            }
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "nothing arrived on the connection for the idle time",
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for LimitedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Raises the limit on open files to what the system allows, so that the per-address cap, not
/// the default 1,024 descriptors, is what bounds connections. Returns the limit in force.
pub fn raise_open_file_limit() -> Option<u64> {
    rlimit::increase_nofile_limit(u64::MAX).ok()
}

/// A request body that must arrive within its deadline: [`ConnectionLimits::body`] from the
/// request's start, plus a second for each [`BODY_BYTES_PER_SECOND`] bytes that arrived. Past
/// it the body fails, the handler answers the request as malformed, and the connection, whose
/// body was not read to its end, is closed.
struct DeadlineBody {
    inner: Body,
    started: Instant,
    allowed: Duration,
    received: u64,
    deadline: Pin<Box<Sleep>>,
}

impl DeadlineBody {
    fn new(inner: Body, allowed: Duration) -> DeadlineBody {
        let started = Instant::now();
        DeadlineBody {
            inner,
            started,
            allowed,
            received: 0,
            deadline: Box::pin(tokio::time::sleep_until(started + allowed)),
        }
    }
}

impl http_body::Body for DeadlineBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.received = this.received.saturating_add(data.len() as u64);
                    let earned = Duration::from_secs_f64(
                        this.received as f64 / BODY_BYTES_PER_SECOND as f64,
                    );
                    let deadline = this.started + this.allowed + earned;
                    this.deadline.as_mut().reset(deadline);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Some(Err(axum::Error::new(format!(
                    "the request body did not arrive in time ({} bytes in {:.0} s)",
                    this.received,
                    this.started.elapsed().as_secs_f64()
                ))))),
                Poll::Pending => Poll::Pending,
            },
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Serves `app` over HTTP/1.1 (with upgrades to WebSockets) on `listener` until `stop`
/// resolves; then stops accepting, asks every connection to finish the request it is on, and
/// returns once they have. Each connection keeps to the head and body deadlines of
/// `limits`; handlers find the peer's address as `ConnectInfo<PeerAddr>`.
pub async fn serve(
    mut listener: LimitedListener,
    app: Router,
    limits: ConnectionLimits,
    stop: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    use axum::serve::Listener;
    let (stopping_sender, stopping) = watch::channel(false);
    // Each connection holds a receiver: they are all gone once every connection ended.
    let (ended_sender, ended) = watch::channel(());
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        let app = app.clone();
        let mut stopping = stopping.clone();
        let ended = ended.clone();
        let body_allowed = limits.body;
        let service = tower::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let mut request = request
                .map(|incoming| Body::new(DeadlineBody::new(Body::new(incoming), body_allowed)));
            request.extensions_mut().insert(ConnectInfo(peer));
            app.clone().oneshot(request)
        });
        let head = limits.head;
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(head)
                .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service))
                .with_upgrades();
            tokio::pin!(connection);
            let mut asked_to_finish = false;
            loop {
                tokio::select! {
                    _ = connection.as_mut() => break,
                    changed = stopping.changed(), if !asked_to_finish => {
                        asked_to_finish = true;
                        if changed.is_ok() {
                            connection.as_mut().graceful_shutdown();
                        }
                    }
                }
            }
            drop(ended);
        });
    }
    drop(listener);
    let _ = stopping_sender.send(true);
    drop(ended);
    ended_sender.closed().await;
    Ok(())
}
