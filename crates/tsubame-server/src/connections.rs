//! Bounds on the connections the server holds: at most so many open at once from one address
//! (more are closed as soon as they are accepted), and a connection on which nothing arrives
//! for the idle time is closed. Game sockets are pinged more often than that, so only dead or
//! deliberately silent connections reach it. A reverse proxy's connections are not capped per
//! address (the proxy holds one for each of its clients); the cap per client belongs in the
//! proxy then.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};

/// Limits on connections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections one address may hold open at once.
    pub per_address: usize,
    /// A connection on which nothing arrives for this long is closed.
    pub idle: Duration,
    /// Reverse proxies: their connections carry many clients, so they are not held to
    /// `per_address`, and the client is the last address they add to `X-Forwarded-For`.
    pub proxies: Arc<[IpAddr]>,
}

impl ConnectionLimits {
    /// Whether `ip` is a reverse proxy of this server.
    pub fn is_proxy(&self, ip: IpAddr) -> bool {
        self.proxies.contains(&ip)
    }
}

/// A proxy on the same machine, the usual deployment (see the README's deployment section).
pub const LOOPBACK_PROXIES: [IpAddr; 2] = [
    IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
    IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
];

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            per_address: 64,
            idle: Duration::from_secs(90),
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

/// A TCP listener that keeps to [`ConnectionLimits`].
pub struct LimitedListener {
    inner: TcpListener,
    limits: ConnectionLimits,
    open: Counts,
}

impl LimitedListener {
    /// Wraps a bound listener.
    pub fn new(inner: TcpListener, limits: ConnectionLimits) -> LimitedListener {
        LimitedListener {
            inner,
            limits,
            open: Arc::new(Mutex::new(HashMap::new())),
        }
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
                tracing::warn!(
                    address = %address.ip(),
                    "connection refused: the address already holds {} connections",
                    self.limits.per_address
                );
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
