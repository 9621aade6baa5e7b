//! `tsubame-serve-bench`: a load test of the play server over loopback WebSockets.
//!
//! Starts the `tsubame-server` binary next to this one (or `--server`), creates `--games` Tori
//! games between two WebSocket clients each, and has every game make a move every
//! `--interval-ms` (sides alternating, starts spread over the interval) for `--seconds`. A move's
//! round trip is the time from sending it to receiving the server's acknowledgement, which comes
//! only after the move is stored. Moves are random legal moves taken from the server's own
//! announcements; a game that ends is replaced by a new one. Prints p50/p90/p99/max round trips
//! and the server's resident memory (now and peak) from /proc.
//!
//! With `--instances N` (PostgreSQL only) it starts N servers on one database, and each game's
//! players sit on different instances: every move is made on one instance and reaches the
//! opponent through another. It then also prints how long a move took to reach the opponent's
//! socket. `--fresh-postgres URL` makes a new database on that server for the run (and drops
//! it afterwards), so that no earlier run's games are loaded.
//!
//! With `--computer-games N` it measures the engine's work instead (see `bench/engine_load.rs`):
//! people playing the computer and finished games analysed, served by the server's own slots
//! or, with `--workers W`, by W `tsubame worker` processes (`--cpus` pins them and the server
//! with `taskset`).

#[path = "bench/engine_load.rs"]
mod engine_load;

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
    /// Servers to start on the one database (more than one needs PostgreSQL).
    #[arg(long, default_value_t = 1)]
    instances: usize,
    /// A PostgreSQL server URL (`postgres://user@host/db`): a fresh database is made there
    /// for the run and dropped after it.
    #[arg(long, conflicts_with = "database")]
    fresh_postgres: Option<String>,
    /// Client processes the games are split over (each process's sockets count against its
    /// own open-file limit: 10,000 games are 20,000 sockets).
    #[arg(long, default_value_t = 1)]
    clients: usize,
    /// Internal: play against these running servers (comma-separated) and write the samples
    /// to `--samples`, as one of the `--clients` processes.
    #[arg(long, hide = true, requires = "samples")]
    attach: Option<String>,
    /// Internal: where an attached client writes its samples.
    #[arg(long, hide = true)]
    samples: Option<std::path::PathBuf>,
    /// Measure the engine's work instead: this many people playing the computer at once.
    #[arg(long)]
    computer_games: Option<usize>,
    /// The computer's level in `--computer-games`.
    #[arg(long, default_value_t = 8)]
    level: u8,
    /// With `--computer-games`: finished games sent for analysis at the start.
    #[arg(long, default_value_t = 0)]
    analyses: usize,
    /// Plies of each game analysed.
    #[arg(long, default_value_t = 30)]
    analysed_plies: usize,
    /// With `--computer-games`: `tsubame worker` processes doing the engine's work (the server
    /// then runs with `--engine-workers`); 0 for the server's own slots.
    #[arg(long, default_value_t = 0)]
    workers: usize,
    /// The `tsubame` binary the workers run (default: next to this program).
    #[arg(long)]
    worker_bin: Option<std::path::PathBuf>,
    /// The server's own engine slots (`--engine-slots`).
    #[arg(long)]
    engine_slots: Option<usize>,
    /// CPUs to pin to with `taskset`, e.g. `0,1`: the server to the first, worker i to the
    /// (i+1)-th, around the list.
    #[arg(long, value_delimiter = ',')]
    cpus: Vec<usize>,
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// One HTTP/1.1 request over loopback, closed after the answer: its JSON body.
async fn request(addr: &str, head: &str, body: &str) -> Result<Value> {
    let mut stream = TcpStream::connect(addr).await?;
    let request = format!(
        "{head}\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
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

/// A POST of `body` as JSON.
async fn post(addr: &str, path: &str, body: &Value) -> Result<Value> {
    request(addr, &format!("POST {path} HTTP/1.1"), &body.to_string()).await
}

/// A GET.
async fn get(addr: &str, path: &str) -> Result<Value> {
    request(addr, &format!("GET {path} HTTP/1.1"), "").await
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

/// A seat's socket on a game: connected, the game's state read, the seat's token accepted.
async fn seat_socket(addr: &str, game: &str, token: &str) -> Result<(Socket, Value)> {
    let (mut socket, _) = connect_async(format!("ws://{addr}/api/games/{game}/ws")).await?;
    let state = read_until(&mut socket, |v| v["type"] == "state").await?["game"].take();
    let auth = json!({"type": "auth", "token": token, "id": "auth"}).to_string();
    socket.send(Message::Text(auth.into())).await?;
    let hello = read_until(&mut socket, |v| v["id"] == "auth").await?;
    if hello["type"] != "hello" {
        bail!("the seat's token was refused: {hello}");
    }
    Ok((socket, state))
}

struct GamePair {
    sockets: [Socket; 2],
    /// The latest announced state of the game.
    state: Value,
}

/// A Tori game between two people, made on `maker` and joined on `joiner`: its id and both
/// seats' grants (the maker's, then the joiner's).
async fn two_player_game(maker: &str, joiner: &str) -> Result<(String, Value, Value)> {
    let created = post(
        maker,
        "/api/games",
        &json!({"variant": "tori", "opponent": "human"}),
    )
    .await?;
    let id = created["game_id"]
        .as_str()
        .ok_or_else(|| anyhow!("create failed: {created}"))?
        .to_string();
    let joined = post(
        joiner,
        &format!("/api/games/{id}/join"),
        &json!({"invite": created["invite"]}),
    )
    .await?;
    Ok((id, created, joined))
}

/// A game made on `addrs[0]` and joined on `addrs[1]`, each player's socket on the instance
/// it used.
async fn new_game(addrs: &[String; 2]) -> Result<GamePair> {
    let (id, created, joined) = two_player_game(&addrs[0], &addrs[1]).await?;
    let mut sockets = Vec::new();
    let mut state = Value::Null;
    for (grant, addr) in [&created, &joined].into_iter().zip(addrs) {
        let token = grant["token"].as_str().ok_or_else(|| anyhow!("no token"))?;
        let socket;
        (socket, state) = seat_socket(addr, &id, token).await?;
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
    /// From sending a move to the opponent's socket announcing it.
    delivered_us: Vec<u64>,
    errors: usize,
    games_finished: usize,
    /// Game clients that failed.
    failures: usize,
}

#[allow(clippy::too_many_arguments)]
async fn play(
    addrs: [String; 2],
    mut pair: GamePair,
    start: Instant,
    offset: Duration,
    interval: Duration,
    until: Instant,
    totals: Arc<Mutex<Totals>>,
) -> Result<()> {
    let mut round_trips = Vec::new();
    let mut delivered = Vec::new();
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
            pair = new_game(&addrs).await?;
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
            // The opponent's socket (on another instance, with several) announces the move.
            let opponent = &mut pair.sockets[1 - mover];
            let seen = read_until(opponent, |v| v["game"]["ply"].as_u64() >= Some(ply)).await?;
            delivered.push(sent.elapsed().as_micros() as u64);
            // The opponent moves next, from what its socket has just announced.
            known = Some(seen["game"].clone());
        } else {
            errors += 1;
            known = Some(state);
        }
    }
    let mut totals = totals.lock().await;
    totals.round_trips_us.extend(round_trips);
    totals.delivered_us.extend(delivered);
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

/// One started server: its process and address.
struct Instance {
    process: std::process::Child,
    addr: String,
}

/// A command held to `cpu` by `taskset`, or as it is without one.
fn pinned(program: &std::path::Path, cpu: Option<usize>) -> Command {
    match cpu {
        Some(cpu) => {
            let mut command = Command::new("taskset");
            command.args(["-c", &cpu.to_string()]).arg(program);
            command
        }
        None => Command::new(program),
    }
}

fn start_instance(server_bin: &std::path::Path, database: &str, args: &Args) -> Result<Instance> {
    let mut command = pinned(server_bin, args.cpus.first().copied());
    command.args(["--listen", "127.0.0.1:0", "--database", database]);
    if args.computer_games.is_some() && args.workers > 0 {
        command.arg("--engine-workers");
    }
    if let Some(slots) = args.engine_slots {
        command.args(["--engine-slots", &slots.to_string()]);
    }
    // Every simulated player comes from this one address: lift the per-address cap above
    // the two sockets and a request connection per game; the access log would measure itself.
    let connections = (args.games * 3 + 64).to_string();
    command.args(["--connections-per-address", &connections]);
    command.args(["--games-per-minute", &connections]);
    // `TSUBAME_BENCH_SERVER_LOG=info` shows the server's access log, to see what is slow.
    command.env(
        "TSUBAME_LOG",
        std::env::var("TSUBAME_BENCH_SERVER_LOG").unwrap_or_else(|_| "warn".into()),
    );
    if let Some(threads) = args.server_threads {
        command.args(["--threads", &threads.to_string()]);
    }
    let mut process = command
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {}", server_bin.display()))?;
    let mut line = String::new();
    BufReader::new(process.stdout.take().ok_or_else(|| anyhow!("no stdout"))?)
        .read_line(&mut line)?;
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .ok_or_else(|| anyhow!("unexpected server output {line:?}"))?
        .to_string();
    Ok(Instance { process, addr })
}

/// Creates (`drop` false) or drops a database on a PostgreSQL server.
async fn fresh_database(server_url: &str, name: &str, drop: bool) -> Result<String> {
    use sqlx::Connection;
    let mut connection = sqlx::PgConnection::connect(server_url)
        .await
        .with_context(|| format!("cannot connect to {server_url}"))?;
    let statement = if drop {
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    } else {
        format!("CREATE DATABASE {name}")
    };
    sqlx::Executor::execute(&mut connection, statement.as_str()).await?;
    let (prefix, _) = server_url
        .rsplit_once('/')
        .ok_or_else(|| anyhow!("a PostgreSQL URL ends with /database"))?;
    Ok(format!("{prefix}/{name}"))
}

fn main() -> Result<()> {
    let args = <Args as clap::Parser>::parse();
    if args.games == 0 || args.interval_ms == 0 || args.instances == 0 || args.clients == 0 {
        bail!("--games, --interval-ms, --instances and --clients must be positive");
    }
    if let (Some(attach), Some(samples)) = (&args.attach, &args.samples) {
        let addrs: Vec<String> = attach.split(',').map(str::to_string).collect();
        let totals = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?
            .block_on(play_games(&args, &addrs))?;
        let line = |values: &[u64]| {
            values
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        };
        std::fs::write(
            samples,
            format!(
                "{}\n{}\n{} {} {}\n",
                line(&totals.round_trips_us),
                line(&totals.delivered_us),
                totals.errors,
                totals.games_finished,
                totals.failures
            ),
        )?;
        return Ok(());
    }
    let server_bin = match &args.server {
        Some(path) => path.clone(),
        None => std::env::current_exe()?
            .parent()
            .ok_or_else(|| anyhow!("no directory"))?
            .join("tsubame-server"),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let temp = std::env::temp_dir().join(format!("tsubame-bench-{}", std::process::id()));
    std::fs::create_dir_all(&temp)?;
    let fresh_name = format!("tsubame_bench_{}", std::process::id());
    let database = match (&args.database, &args.fresh_postgres) {
        (Some(database), _) => database.clone(),
        (None, Some(server)) => runtime.block_on(fresh_database(server, &fresh_name, false))?,
        (None, None) => format!("sqlite://{}", temp.join("bench.db").display()),
    };
    if args.instances > 1 && !database.starts_with("postgres") {
        bail!("several instances share a PostgreSQL database: give --fresh-postgres or --database");
    }
    let mut instances = Vec::new();
    let mut started = Ok(());
    for _ in 0..args.instances {
        match start_instance(&server_bin, &database, &args) {
            Ok(instance) => instances.push(instance),
            Err(e) => {
                started = Err(e);
                break;
            }
        }
    }
    let result = started.and_then(|()| {
        let addrs: Vec<String> = instances.iter().map(|i| i.addr.clone()).collect();
        let pids: Vec<u32> = instances.iter().map(|i| i.process.id()).collect();
        match args.computer_games {
            Some(games) => runtime.block_on(engine_work(&args, games, &database, &addrs[0])),
            None => runtime.block_on(run(&args, addrs, pids, &temp)),
        }
    });
    for instance in &mut instances {
        let _ = instance.process.kill();
        let _ = instance.process.wait();
    }
    if let Some(server) = &args.fresh_postgres
        && let Err(e) = runtime.block_on(fresh_database(server, &fresh_name, true))
    {
        eprintln!("could not drop the benchmark database {fresh_name}: {e:#}");
    }
    let _ = std::fs::remove_dir_all(&temp);
    result
}

/// The engine load (`--computer-games`), with `--workers` worker processes started first,
/// each with a key of its own made in the database.
async fn engine_work(args: &Args, games: usize, database: &str, addr: &str) -> Result<()> {
    let worker_bin = match &args.worker_bin {
        Some(path) => path.clone(),
        None => std::env::current_exe()?
            .parent()
            .ok_or_else(|| anyhow!("no directory"))?
            .join("tsubame"),
    };
    let mut workers = Vec::new();
    let mut keys = Vec::new();
    if args.workers > 0 {
        // The keys are made, and the database let go of, before the load starts.
        let store = tsubame_server::store::Store::open(database).await?;
        let jobs = tsubame_server::workers::jobs::Jobs::new(store);
        for index in 0..args.workers {
            let key = tsubame_server::workers::new_key();
            let name = format!("bench-{}-{index}", std::process::id());
            jobs.add_key(&name, &tsubame_server::workers::key_hash(&key), 0)
                .await?;
            keys.push(key);
        }
        drop(jobs);
    }
    for (index, key) in keys.iter().enumerate() {
        let cpu = (!args.cpus.is_empty()).then(|| args.cpus[(index + 1) % args.cpus.len()]);
        let worker = pinned(&worker_bin, cpu)
            .args(["worker", "--server", &format!("http://{addr}")])
            .env("TSUBAME_WORKER_KEY", key)
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {}", worker_bin.display()))?;
        workers.push(worker);
    }
    let load = engine_load::EngineLoad {
        computer_games: games,
        level: args.level,
        analyses: args.analyses,
        analysed_plies: args.analysed_plies,
        seconds: args.seconds,
    };
    let result = engine_load::run(&load, addr, args.workers).await;
    for worker in &mut workers {
        let _ = worker.kill();
        let _ = worker.wait();
    }
    result
}

/// Makes `--games` games on the servers at `addrs` and plays them for `--seconds`.
async fn play_games(args: &Args, addrs: &[String]) -> Result<Totals> {
    // Game i is made on instance i and joined on the next: its players sit on different
    // instances whenever there are several.
    let seats_of = |index: usize| {
        [
            addrs[index % addrs.len()].clone(),
            addrs[(index + 1) % addrs.len()].clone(),
        ]
    };
    let setup = Instant::now();
    let mut pairs = Vec::with_capacity(args.games);
    for chunk_start in (0..args.games).step_by(50) {
        let chunk = (chunk_start..args.games.min(chunk_start + 50)).map(|index| {
            let seats = seats_of(index);
            async move { new_game(&seats).await }
        });
        for pair in futures_util::future::join_all(chunk).await {
            pairs.push(pair?);
        }
    }
    println!(
        "{} games connected in {:.1} s",
        args.games,
        setup.elapsed().as_secs_f64()
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
                seats_of(index),
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
    let mut totals = std::mem::take(&mut *totals.lock().await);
    totals.failures = failures;
    Ok(totals)
}

/// Reads the samples an attached client process wrote.
fn read_samples(path: &std::path::Path, totals: &mut Totals) -> Result<()> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("a client wrote no samples to {}", path.display()))?;
    let mut lines = text.lines();
    let mut numbers = || -> Vec<u64> {
        lines
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|n| n.parse().ok())
            .collect()
    };
    totals.round_trips_us.extend(numbers());
    totals.delivered_us.extend(numbers());
    let counts = numbers();
    totals.errors += counts.first().copied().unwrap_or(0) as usize;
    totals.games_finished += counts.get(1).copied().unwrap_or(0) as usize;
    totals.failures += counts.get(2).copied().unwrap_or(0) as usize;
    Ok(())
}

async fn run(
    args: &Args,
    addrs: Vec<String>,
    pids: Vec<u32>,
    temp: &std::path::Path,
) -> Result<()> {
    let rss_total = |pids: &[u32]| {
        pids.iter().fold((0, 0), |(rss, peak), &pid| {
            let (r, p) = rss_kib(pid);
            (rss + r, peak + p)
        })
    };
    let (idle_rss, _) = rss_total(&pids);
    println!(
        "{} server(s) at {}; {} games ({} WebSockets) from {} client process(es)...",
        addrs.len(),
        addrs.join(", "),
        args.games,
        args.games * 2,
        args.clients
    );
    let mut totals = if args.clients == 1 {
        play_games(args, &addrs).await?
    } else {
        let me = std::env::current_exe()?;
        let mut children = Vec::new();
        for client in 0..args.clients {
            // The games split as evenly as they go.
            let games = args.games / args.clients + usize::from(client < args.games % args.clients);
            let samples = temp.join(format!("samples-{client}"));
            let child = tokio::process::Command::new(&me)
                .args(["--games", &games.to_string()])
                .args(["--seconds", &args.seconds.to_string()])
                .args(["--interval-ms", &args.interval_ms.to_string()])
                .args(["--attach", &addrs.join(",")])
                .arg("--samples")
                .arg(&samples)
                .spawn()
                .context("cannot start a client process")?;
            children.push((child, samples));
        }
        let mut totals = Totals::default();
        for (mut child, samples) in children {
            if !child.wait().await?.success() {
                bail!("a client process failed");
            }
            read_samples(&samples, &mut totals)?;
        }
        totals
    };
    let failures = totals.failures;
    let (rss, peak) = rss_total(&pids);
    totals.round_trips_us.sort_unstable();
    totals.delivered_us.sort_unstable();
    let trips = &totals.round_trips_us;
    let delivered = &totals.delivered_us;
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
        "move to the opponent's socket: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(delivered, 0.50),
        percentile(delivered, 0.90),
        percentile(delivered, 0.99),
        percentile(delivered, 1.0)
    );
    println!(
        "servers' memory: RSS {} MiB idle, {} MiB after the run, peaks {} MiB",
        idle_rss / 1024,
        rss / 1024,
        peak / 1024
    );
    Ok(())
}
