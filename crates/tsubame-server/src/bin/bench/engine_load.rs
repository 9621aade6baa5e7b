//! `tsubame-serve-bench --computer-games N`: the server's engine work under load, served by
//! its own slots or by `--workers W` `tsubame worker` processes. N people each play the
//! computer at `--level` (a random legal move as soon as it is their turn, a new game when one
//! ends), `--analyses M` finished games are sent for analysis at the start, and a probe asks
//! `GET /api/stats` every 200 ms. Printed: the computer's moves a minute and how long each took
//! to come (its wait, search and pace), the analyses finished and how long they took, and the
//! probe's latency: what workers add, and whether the server stays quick meanwhile.
//!
//! `--cpus 0,1` pins with `taskset`: the server to the first CPU, worker i to the one after it,
//! around the list.

use super::{Socket, get, percentile, post, read_until, seat_socket, two_player_game};
use anyhow::{Context, Result, anyhow, bail};
use futures_util::SinkExt;
use rand::seq::SliceRandom;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::Message;

/// What the engine load measures.
pub struct EngineLoad {
    /// People playing the computer at once.
    pub computer_games: usize,
    /// The computer's level.
    pub level: u8,
    /// Finished games sent for analysis at the start.
    pub analyses: usize,
    /// Plies of each analysed game.
    pub analysed_plies: usize,
    /// How long to measure.
    pub seconds: u64,
}

#[derive(Default)]
struct Counts {
    /// Milliseconds from a person's move to the computer's answer on the socket.
    computer_replies_ms: Vec<u64>,
    games_finished: usize,
    /// Milliseconds each analysis took from its request to `done`.
    analyses_ms: Vec<u64>,
    /// Microseconds of each probe request.
    probes_us: Vec<u64>,
    failures: Vec<String>,
}

/// The seats of a game against the computer: the person's socket and the latest state.
async fn computer_game(addr: &str, level: u8) -> Result<(Socket, Value)> {
    let created = post(
        addr,
        "/api/games",
        &json!({"variant": "tori", "opponent": "engine", "side": "sente", "level": level,
                "clock": {"kind": "byoyomi", "main_ms": 60_000, "periods": 1, "period_ms": 1_000}}),
    )
    .await?;
    let id = created["game_id"]
        .as_str()
        .ok_or_else(|| anyhow!("create failed: {created}"))?;
    let token = created["token"]
        .as_str()
        .ok_or_else(|| anyhow!("no token"))?;
    seat_socket(addr, id, token).await
}

fn legal_moves(state: &Value) -> Vec<String> {
    state["legal_moves"]
        .as_array()
        .map(|moves| {
            moves
                .iter()
                .filter_map(|m| m.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// One person playing the computer until `until`, a new game after each that ends.
async fn play_the_computer(
    addr: String,
    level: u8,
    until: Instant,
    counts: Arc<Mutex<Counts>>,
) -> Result<()> {
    let (mut socket, mut state) = computer_game(&addr, level).await?;
    let mut move_id = 0u64;
    let mut replies = Vec::new();
    let mut finished = 0;
    while Instant::now() < until {
        if state["status"] != "playing" && state["status"] != "waiting" {
            finished += 1;
            (socket, state) = computer_game(&addr, level).await?;
            continue;
        }
        let Some(usi) = legal_moves(&state).choose(&mut rand::thread_rng()).cloned() else {
            bail!("the person's turn without a legal move: {state}");
        };
        let ply = state["ply"].as_u64().unwrap_or(0);
        move_id += 1;
        let sent = Instant::now();
        let command = json!({"type": "move", "move": usi, "id": move_id}).to_string();
        socket.send(Message::Text(command.into())).await?;
        let reply = read_until(&mut socket, |v| v["id"] == json!(move_id)).await?;
        if reply["type"] != "ack" {
            bail!("the person's move {usi} refused: {reply}");
        }
        // The computer's answer, or the end of the game; the reading gives up at `until`.
        let left = until.saturating_duration_since(Instant::now());
        let answered = tokio::time::timeout(
            left,
            read_until(&mut socket, |v| {
                v["game"].is_object()
                    && (v["game"]["ply"].as_u64() >= Some(ply + 2)
                        || (v["game"]["status"] != "playing"
                            && v["game"]["ply"].as_u64() > Some(ply)))
            }),
        )
        .await;
        let Ok(answered) = answered else {
            break;
        };
        let mut answered = answered?;
        if answered["game"]["ply"].as_u64() >= Some(ply + 2) {
            replies.push(sent.elapsed().as_millis() as u64);
        }
        state = answered["game"].take();
    }
    let mut counts = counts.lock().await;
    counts.computer_replies_ms.extend(replies);
    counts.games_finished += finished;
    Ok(())
}

/// A finished game of `plies` random moves between two people, then its analysis asked for
/// and waited for; how long the analysis took (none when not done by `until`).
async fn analyse_a_game(addr: String, plies: usize, until: Instant) -> Result<Option<u64>> {
    let (id, created, joined) = two_player_game(&addr, &addr).await?;
    let tokens = [created["token"].clone(), joined["token"].clone()];
    for ply in 0..plies {
        let view = get(&addr, &format!("/api/games/{id}")).await?;
        if view["status"] != "playing" {
            break;
        }
        let Some(usi) = legal_moves(&view).choose(&mut rand::thread_rng()).cloned() else {
            break;
        };
        post(
            &addr,
            &format!("/api/games/{id}/moves"),
            &json!({"token": tokens[ply % 2], "move": usi}),
        )
        .await?;
    }
    post(
        &addr,
        &format!("/api/games/{id}/resign"),
        &json!({"token": tokens[0]}),
    )
    .await?;
    let asked = Instant::now();
    let path = format!("/api/games/{id}/analysis");
    // Asked again while the server is analysing as many games as it takes (or this address
    // has its share waiting), as a page does.
    loop {
        let started = post(&addr, &path, &json!({})).await?;
        if started["status"] == "running" || started["status"] == "done" {
            break;
        }
        if started["code"] != "analysis.busy" && started["code"] != "engine.share-full" {
            bail!("the analysis was not started: {started}");
        }
        if Instant::now() >= until {
            return Ok(None);
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    while Instant::now() < until {
        let analysis = get(&addr, &path).await?;
        if analysis["status"] == "done" {
            return Ok(Some(asked.elapsed().as_millis() as u64));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    Ok(None)
}

/// Asks `GET /api/stats` every 200 ms until `until`: how quick the server stays.
async fn probe(addr: String, until: Instant) -> Vec<u64> {
    let mut took = Vec::new();
    while Instant::now() < until {
        let asked = Instant::now();
        if get(&addr, "/api/stats").await.is_ok() {
            took.push(asked.elapsed().as_micros() as u64);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    took
}

/// Runs the load against the server at `addr` and prints what it measured.
pub async fn run(load: &EngineLoad, addr: &str, workers: usize) -> Result<()> {
    println!(
        "{} people playing the computer at level {}, {} games of {} plies analysed, {} s, {}",
        load.computer_games,
        load.level,
        load.analyses,
        load.analysed_plies,
        load.seconds,
        match workers {
            0 => "the server's own engine slots".to_string(),
            n => format!("{n} worker process(es)"),
        }
    );
    let until = Instant::now() + Duration::from_secs(load.seconds);
    let counts = Arc::new(Mutex::new(Counts::default()));
    let prober = tokio::spawn(probe(addr.to_string(), until));
    let analyses: Vec<_> = (0..load.analyses)
        .map(|_| tokio::spawn(analyse_a_game(addr.to_string(), load.analysed_plies, until)))
        .collect();
    let players: Vec<_> = (0..load.computer_games)
        .map(|_| {
            tokio::spawn(play_the_computer(
                addr.to_string(),
                load.level,
                until,
                counts.clone(),
            ))
        })
        .collect();
    for player in players {
        if let Err(e) = player.await.context("a player panicked")? {
            counts.lock().await.failures.push(format!("{e:#}"));
        }
    }
    let mut analyses_left = 0;
    for analysis in analyses {
        match analysis.await.context("an analysis panicked")? {
            Ok(Some(took)) => counts.lock().await.analyses_ms.push(took),
            Ok(None) => analyses_left += 1,
            Err(e) => counts.lock().await.failures.push(format!("{e:#}")),
        }
    }
    let probes = prober.await.context("the probe panicked")?;
    let mut counts = std::mem::take(&mut *counts.lock().await);
    counts.probes_us = probes;
    counts.computer_replies_ms.sort_unstable();
    counts.analyses_ms.sort_unstable();
    counts.probes_us.sort_unstable();
    let replies = &counts.computer_replies_ms;
    let per_ms = |values: &[u64]| -> Vec<u64> { values.iter().map(|v| v * 1000).collect() };
    println!(
        "computer moves: {} ({:.1} a minute); from the person's move to the computer's: p50 {:.0} ms, p90 {:.0} ms, max {:.0} ms; {} games finished",
        replies.len(),
        replies.len() as f64 * 60.0 / load.seconds.max(1) as f64,
        percentile(&per_ms(replies), 0.5),
        percentile(&per_ms(replies), 0.9),
        percentile(&per_ms(replies), 1.0),
        counts.games_finished
    );
    let analysed = &counts.analyses_ms;
    println!(
        "analyses: {} of {} done within the run (p50 {:.1} s, max {:.1} s), {} not",
        analysed.len(),
        load.analyses,
        percentile(&per_ms(analysed), 0.5) / 1000.0,
        percentile(&per_ms(analysed), 1.0) / 1000.0,
        analyses_left
    );
    let probes = &counts.probes_us;
    println!(
        "GET /api/stats meanwhile ({} requests): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        probes.len(),
        percentile(probes, 0.5),
        percentile(probes, 0.99),
        percentile(probes, 1.0)
    );
    if !counts.failures.is_empty() {
        println!(
            "{} client(s) failed; the first: {}",
            counts.failures.len(),
            counts.failures[0]
        );
    }
    Ok(())
}
