//! Clients that trickle a request a byte at a time cannot hold a connection past the request
//! deadlines, though every byte restarts the idle timer: the head within
//! `--request-head-seconds` of its first byte, the body within `--request-body-seconds` plus a
//! second per 8 KiB that arrived. A slow but honest upload still gets through.

use crate::common::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Sends `start`, then `trickle` a byte every `pause` until the server closes the connection
/// or `limit` passes; how long the connection lasted, and what the server answered.
fn trickle(
    server: &Server,
    start: &[u8],
    trickle: &[u8],
    pause: Duration,
    limit: Duration,
) -> (Duration, String) {
    let mut stream = TcpStream::connect(&server.addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_millis(10)))
        .expect("read timeout");
    let started = Instant::now();
    stream.write_all(start).expect("send the start");
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    for byte in trickle.iter().cycle() {
        assert!(
            started.elapsed() < limit,
            "the connection was still open after {limit:?}"
        );
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => break,
        }
        if stream.write_all(&[*byte]).is_err() {
            break;
        }
        std::thread::sleep(pause);
    }
    // Whatever the server said before it closed.
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .expect("read timeout");
    while let Ok(n) = stream.read(&mut buffer) {
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&buffer[..n]);
    }
    (
        started.elapsed(),
        String::from_utf8_lossy(&answer).into_owned(),
    )
}

#[test]
fn slow_requests_are_closed_at_their_deadlines() {
    let db = Db::sqlite();
    let server = Server::start_with(
        &db,
        &["--request-head-seconds", "2", "--request-body-seconds", "2"],
    );
    let pause = Duration::from_millis(250);

    // A head that never ends: a header line a byte at a time.
    let (lasted, _) = trickle(
        &server,
        b"GET /healthz HTTP/1.1\r\nHost: tsubame\r\n",
        b"X-Slow: abcdefghij",
        pause,
        Duration::from_secs(10),
    );
    assert!(
        lasted >= Duration::from_millis(1500) && lasted < Duration::from_secs(5),
        "a trickled head is closed at its 2 s deadline, not after {lasted:?}"
    );

    // A body that never ends: 100,000 bytes announced, one sent at a time.
    let (lasted, answer) = trickle(
        &server,
        b"POST /api/import HTTP/1.1\r\nHost: tsubame\r\nContent-Type: text/plain\r\n\
          Content-Length: 100000\r\n\r\n",
        b"[Variant \"Torishogi\"]\n",
        pause,
        Duration::from_secs(10),
    );
    assert!(
        lasted >= Duration::from_millis(1500) && lasted < Duration::from_secs(5),
        "a trickled body is closed at its 2 s deadline, not after {lasted:?}: {answer}"
    );
    assert!(
        answer.contains("did not arrive in time"),
        "the answer says why: {answer:?}"
    );

    // Another address's requests were served all along; so is an honest slow upload: 64 KiB
    // in 8 KiB pieces over about 4 s, twice the base deadline, each piece earning a second.
    let (status, _) = server.get("/healthz");
    assert_eq!(status, 200);
    let piece = "[Variant \"Torishogi\"]\n*\n\n".repeat(8 * 1024 / 25);
    let pieces = 8;
    let mut stream = TcpStream::connect(&server.addr).expect("connect");
    write!(
        stream,
        "POST /api/import HTTP/1.1\r\nHost: tsubame\r\nContent-Type: text/plain\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        piece.len() * pieces
    )
    .expect("send the head");
    for _ in 0..pieces {
        std::thread::sleep(Duration::from_millis(500));
        stream.write_all(piece.as_bytes()).expect("send a piece");
    }
    let mut answer = String::new();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("read timeout");
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 "), "an answer: {answer:?}");
    assert!(
        !answer.contains("did not arrive in time"),
        "a slow but steady upload is read whole: {answer}"
    );
}
