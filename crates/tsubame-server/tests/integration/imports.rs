//! Imports cannot freeze the server: a file of 60,000 empty games is refused at the 201st game
//! in milliseconds, reading runs off the async workers, and moves stay fast while eight of
//! the costliest imports run at once from eight addresses.

use crate::common::*;
use serde_json::json;
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// `count` empty games of the play site's PGN (26 bytes each).
fn empty_games(count: usize) -> String {
    "[Variant \"Torishogi\"]\n*\n\n".repeat(count)
}

/// 200 games (the most one import takes) that fill the 2 MiB limit: `pgn`, the play site's
/// PGN of a whole game, each with a comment that makes up the rest. Every game is replayed
/// and exported in every format.
fn costly_games(pgn: &str) -> String {
    let room = 2 * 1024 * 1024 / 200 - pgn.len() - 8;
    let (tags, moves) = pgn.split_once("\n\n").expect("tags, then moves");
    let game = format!("{tags}\n\n{{{}}}\n{moves}\n", "c".repeat(room));
    game.repeat(200)
}

/// An import's status and answer, whatever the status.
fn send_import(server: &Server, client: &str, body: &str) -> (u16, ureq::Response) {
    match ureq::post(&format!("{}/api/import?format=pgn", server.base))
        .set("X-Forwarded-For", client)
        .set("Content-Type", "text/plain")
        .send_string(body)
    {
        Ok(answer) => (answer.status(), answer),
        Err(ureq::Error::Status(code, answer)) => (code, answer),
        Err(e) => panic!("request failed: {e}"),
    }
}

fn import(server: &Server, client: &str, body: &str) -> (u16, serde_json::Value) {
    let (status, answer) = send_import(server, client, body);
    (
        status,
        answer.into_json().unwrap_or(serde_json::Value::Null),
    )
}

/// An import's status, with its answer's text: reading 200 games' answer back as JSON is
/// itself seconds of a core, which the client would take from the server it measures.
fn import_status(server: &Server, client: &str, body: &str) -> (u16, String) {
    let (status, answer) = send_import(server, client, body);
    let mut text = String::new();
    answer
        .into_reader()
        .read_to_string(&mut text)
        .expect("the answer's text");
    (status, text)
}

#[test]
fn imports_are_linear_limited_and_leave_moves_fast() {
    let db = Db::sqlite();
    let server = Server::start(&db);

    let many = empty_games(60_000);
    assert!(many.len() < 2 * 1024 * 1024);
    let started = Instant::now();
    let (status, answer) = import(&server, "10.0.0.1", &many);
    let took = started.elapsed();
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .is_some_and(|e| e.contains("more than 200 games")),
        "{answer}"
    );
    assert!(took < Duration::from_millis(500), "answered after {took:?}");

    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let moves: Vec<&str> = TORI_GAME.split_whitespace().collect();
    server.play_moves(&id, &sente, &gote, &moves);
    let (_, record) = server.get(&format!("/api/games/{id}/record"));
    let pgn = record["exports"]["pgn"].as_str().expect("a PGN export");
    let costly = costly_games(pgn);
    assert!(costly.len() <= 2 * 1024 * 1024, "{}", costly.len());
    let started = Instant::now();
    let (status, answer) = import(&server, "10.0.0.2", &costly);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["games"].as_array().map(Vec::len), Some(200));
    eprintln!("one costly import: {:?}", started.elapsed());

    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let stop = AtomicBool::new(false);
    let imports = AtomicUsize::new(0);
    let mut latencies = Vec::new();
    std::thread::scope(|scope| {
        for client in 0..8 {
            let (server, stop, imports, body) = (&server, &stop, &imports, &costly);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let (status, answer) = import_status(server, &format!("10.0.1.{client}"), body);
                    assert!(
                        matches!(status, 200 | 429),
                        "{status}: {}",
                        answer.chars().take(400).collect::<String>()
                    );
                    imports.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        // The imports are under way; a move is played every 50 ms.
        std::thread::sleep(Duration::from_millis(300));
        for (index, usi) in moves.iter().take(60).enumerate() {
            let token = if index % 2 == 0 { &sente } else { &gote };
            let started = Instant::now();
            let (status, view) = server.post(
                &format!("/api/games/{id}/moves"),
                json!({"token": token, "move": usi}),
            );
            latencies.push(started.elapsed());
            assert_eq!(status, 200, "move {index}: {view}");
            std::thread::sleep(Duration::from_millis(50));
        }
        stop.store(true, Ordering::Relaxed);
    });
    latencies.sort();
    let median = latencies[latencies.len() / 2];
    let slowest = latencies[latencies.len() - 1];
    eprintln!(
        "moves during {} imports: median {median:?}, slowest {slowest:?}",
        imports.load(Ordering::Relaxed)
    );
    assert!(imports.load(Ordering::Relaxed) >= 8, "the imports ran");
    assert!(
        median < Duration::from_millis(50),
        "a move's median latency during the imports: {median:?}"
    );
    // An import that held the move path would hold a move for as long as the import (seconds);
    // the bound leaves room for the other tests, which share the cores with this server.
    assert!(
        slowest < Duration::from_millis(1000),
        "the slowest move during the imports: {slowest:?}"
    );
}
