//! `tsubame-serve-bench`: a load test of the play server over loopback WebSockets.
//!
//! Starts the `tsubame-server` binary next to this one (or `--server`), creates `--games` Tori
//! games between two WebSocket clients each, and has every game make a move every
//! `--interval-ms` (sides alternating, starts spread over the interval) for `--seconds`. A move's
//! round trip is the time from sending it to receiving the server's acknowledgement, which comes
//! only after the move is stored. Moves are random legal moves taken from the server's own
//! announcements; a game that ends is replaced by a new one. Prints p50/p90/p99/max round trips
//! and the server's resident memory (now and peak) from /proc.

use anyhow::{Context, Result, anyhow, bail};
use futures_util::{SinkExt, StreamExt};
use rand::seq::SliceRandom;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};

#[derive(clap::Parser)]
#[command(
    name = "tsubame-serve-bench",
    about = "Load test of tsubame serve over loopback WebSockets"
)]
struct Args {
    /// Concurrent games (two WebSocket clients each).
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// How long to measure, after every game is connected.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Each game makes one move this often.
    #[arg(long, default_value_t = 2000)]
    interval_ms: u64,
    /// Database for the server (default: a fresh SQLite file in a temp directory).
    #[arg(long)]
    database: Option<String>,
    /// The server binary (default: tsubame-server next to this program).
    #[arg(long)]
    server: Option<std::path::PathBuf>,
    /// Async worker threads of the server.
    #[arg(long)]
    server_threads: Option<usize>,
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A minimal HTTP/1.1 POST over loopback: the benchmark needs only game creation.
async fn post(addr: &str, path: &str, body: &Value) -> Result<Value> {
    let body = body.to_string();
    let mut stream = TcpStream::connect(addr).await?;
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await?;
    let text = String::from_utf8_lossy(&response);
    let (_, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| anyhow!("malformed HTTP response"))?;
    Ok(serde_json::from_str(body)?)
}

/// Reads messages until one satisfies `want`, returning it.
async fn read_until(socket: &mut Socket, want: impl Fn(&Value) -> bool) -> Result<Value> {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(30), socket.next())
            .await
            .context("no message for 30 s")?
            .ok_or_else(|| anyhow!("socket closed"))??;
        if let Message::Text(text) = message {
            let value: Value = serde_json::from_str(text.as_str())?;
            if want(&value) {
                return Ok(value);
            }
        }
    }
}

struct GamePair {
    sockets: [Socket; 2],
    /// The latest announced state of the game.
    state: Value,
}

async fn new_game(addr: &str) -> Result<GamePair> {
    let created = post(
        addr,
        "/api/games",
        &json!({"variant": "tori", "opponent": "human"}),
    )
    .await?;
    let id = created["game_id"]
        .as_str()
        .ok_or_else(|| anyhow!("create failed: {created}"))?
        .to_string();
    let joined = post(
        addr,
        &format!("/api/games/{id}/join"),
        &json!({"invite": created["invite"]}),
    )
    .await?;
    let mut sockets = Vec::new();
    let mut state = Value::Null;
    for grant in [&created, &joined] {
        let token = grant["token"].as_str().ok_or_else(|| anyhow!("no token"))?;
        let (mut socket, _) = connect_async(format!("ws://{addr}/api/games/{id}/ws")).await?;
        state = read_until(&mut socket, |v| v["type"] == "state").await?["game"].take();
        let auth = json!({"type": "auth", "token": token, "id": "auth"}).to_string();
        socket.send(Message::Text(auth.into())).await?;
        let hello = read_until(&mut socket, |v| v["id"] == "auth").await?;
        if hello["type"] != "hello" {
            return Err(anyhow!("the seat's token was refused: {hello}"));
        }
        sockets.push(socket);
    }
    let sockets: [Socket; 2] = sockets
        .try_into()
        .map_err(|_| anyhow!("two sockets expected"))?;
    Ok(GamePair { sockets, state })
}

#[derive(Default)]
struct Totals {
    round_trips_us: Vec<u64>,
    errors: usize,
    games_finished: usize,
}

async fn play(
    addr: String,
    mut pair: GamePair,
    start: Instant,
    offset: Duration,
    interval: Duration,
    until: Instant,
    totals: Arc<Mutex<Totals>>,
) -> Result<()> {
    let mut round_trips = Vec::new();
    let mut errors = 0;
    let mut finished = 0;
    let mut next = start + offset;
    let mut move_id = 0u64;
    let mut ply = 0u64;
    // The state to move from when it is already known (a new game's first move).
    let mut known = Some(pair.state.clone());
    while next < until {
        tokio::time::sleep_until(next.into()).await;
        next += interval;
        // Tori without a handicap: sente moves at even plies.
        let mover = (ply % 2) as usize;
        let socket = &mut pair.sockets[mover];
        let state = match known.take() {
            Some(state) => state,
            // Catch up with the announcements on the mover's socket to the current ply.
            None => {
                read_until(socket, |v| v["game"]["ply"].as_u64() == Some(ply)).await?["game"].take()
            }
        };
        if state["status"] != "playing" {
            finished += 1;
            pair = new_game(&addr).await?;
            known = Some(pair.state.clone());
            ply = 0;
            continue;
        }
        let legal: Vec<String> = state["legal_moves"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|m| m.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let Some(usi) = legal.choose(&mut rand::thread_rng()).cloned() else {
            bail!("a game in play without legal moves");
        };
        move_id += 1;
        let sent = Instant::now();
        socket
            .send(Message::Text(
                json!({"type": "move", "move": usi, "id": move_id})
                    .to_string()
                    .into(),
            ))
            .await?;
        let reply = read_until(socket, |v| v["id"] == json!(move_id)).await?;
        round_trips.push(sent.elapsed().as_micros() as u64);
        if reply["type"] == "ack" {
            ply += 1;
        } else {
            errors += 1;
            known = Some(state);
        }
    }
    let mut totals = totals.lock().await;
    totals.round_trips_us.extend(round_trips);
    totals.errors += errors;
    totals.games_finished += finished;
    Ok(())
}

fn rss_kib(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)] as f64 / 1000.0
}

fn main() -> Result<()> {
    let args = <Args as clap::Parser>::parse();
    let server_bin = match &args.server {
        Some(path) => path.clone(),
        None => std::env::current_exe()?
            .parent()
            .ok_or_else(|| anyhow!("no directory"))?
            .join("tsubame-server"),
    };
    let temp = std::env::temp_dir().join(format!("tsubame-bench-{}", std::process::id()));
    std::fs::create_dir_all(&temp)?;
    let database = args
        .database
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}", temp.join("bench.db").display()));
    let mut command = Command::new(&server_bin);
    command.args(["--listen", "127.0.0.1:0", "--database", &database]);
    // Every simulated player comes from this one address: lift the per-address cap above
    // the two sockets and a request connection per game; the access log would measure itself.
    let connections = (args.games * 3 + 64).to_string();
    command.args(["--connections-per-address", &connections]);
    command.args(["--games-per-minute", &connections]);
    command.env("TSUBAME_LOG", "warn");
    if let Some(threads) = args.server_threads {
        command.args(["--threads", &threads.to_string()]);
    }
    let mut server = command
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {}", server_bin.display()))?;
    let pid = server.id();
    let mut line = String::new();
    BufReader::new(server.stdout.take().ok_or_else(|| anyhow!("no stdout"))?)
        .read_line(&mut line)?;
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .ok_or_else(|| anyhow!("unexpected server output {line:?}"))?
        .to_string();
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run(&args, addr, pid));
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&temp);
    result
}

async fn run(args: &Args, addr: String, pid: u32) -> Result<()> {
    if args.games == 0 || args.interval_ms == 0 {
        bail!("--games and --interval-ms must be positive");
    }
    let (idle_rss, _) = rss_kib(pid);
    println!(
        "server pid {pid} at {addr}; creating {} games ({} WebSockets)...",
        args.games,
        args.games * 2
    );
    let setup = Instant::now();
    let mut pairs = Vec::with_capacity(args.games);
    for chunk_start in (0..args.games).step_by(50) {
        let chunk = (chunk_start..args.games.min(chunk_start + 50)).map(|_| new_game(&addr));
        for pair in futures_util::future::join_all(chunk).await {
            pairs.push(pair?);
        }
    }
    let (connected_rss, _) = rss_kib(pid);
    println!(
        "connected in {:.1} s; server RSS idle {} MiB, with all games {} MiB",
        setup.elapsed().as_secs_f64(),
        idle_rss / 1024,
        connected_rss / 1024
    );
    let interval = Duration::from_millis(args.interval_ms);
    let start = Instant::now() + Duration::from_millis(200);
    let until = start + Duration::from_secs(args.seconds);
    let totals = Arc::new(Mutex::new(Totals::default()));
    let count = pairs.len() as u64;
    let tasks: Vec<_> = pairs
        .into_iter()
        .enumerate()
        .map(|(index, pair)| {
            let offset = interval * index as u32 / count.max(1) as u32;
            tokio::spawn(play(
                addr.clone(),
                pair,
                start,
                offset,
                interval,
                until,
                totals.clone(),
            ))
        })
        .collect();
    let mut failures = 0;
    for task in tasks {
        match task.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                failures += 1;
                if failures <= 3 {
                    eprintln!("game client failed: {e:#}");
                }
            }
            Err(e) => eprintln!("game client panicked: {e}"),
        }
    }
    let (rss, peak) = rss_kib(pid);
    let mut totals = totals.lock().await;
    totals.round_trips_us.sort_unstable();
    let trips = &totals.round_trips_us;
    println!(
        "{} games, a move every {} ms each, {} s: {} moves ({:.0}/s), {} refused, {} games finished and replaced, {} clients failed",
        args.games,
        args.interval_ms,
        args.seconds,
        trips.len(),
        trips.len() as f64 / args.seconds.max(1) as f64,
        totals.errors,
        totals.games_finished,
        failures
    );
    println!(
        "move round trip (stored, then acknowledged): p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(trips, 0.50),
        percentile(trips, 0.90),
        percentile(trips, 0.99),
        percentile(trips, 1.0)
    );
    println!(
        "server memory: RSS {} MiB now, peak {} MiB",
        rss / 1024,
        peak / 1024
    );
    Ok(())
}
