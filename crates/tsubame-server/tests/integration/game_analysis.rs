//! A finished game's analysis is made once by the server, kept with the game and read by
//! anyone who opens it afterwards, a restart included; a game in play is not analysed.

use crate::common::*;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Asks for the game's analysis until it is done (at most `limit`).
fn analysis_when_done(server: &Server, id: &str, limit: Duration) -> Value {
    let started = Instant::now();
    loop {
        let (status, analysis) = server.get(&format!("/api/games/{id}/analysis"));
        assert_eq!(status, 200, "{analysis}");
        if analysis["status"] == "done" {
            return analysis;
        }
        assert_eq!(analysis["status"], "running", "{analysis}");
        assert!(
            started.elapsed() < limit,
            "not done after {limit:?}: {analysis}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn a_finished_game_is_analysed_once_and_kept(db: &Db) {
    let server = Server::start(db);
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let played = ["5e5d", "5c5d", "3d3c", "4b3c"];
    server.play_moves(&id, &sente, &gote, &played);
    let path = format!("/api/games/{id}/analysis");
    // In play: none, and none made (the engine would help a player).
    let (status, analysis) = server.get(&path);
    assert_eq!((status, &analysis["status"]), (200, &json!("none")));
    let (status, refused) = server.post(&path, json!({}));
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["error"].as_str().unwrap_or("").contains("in play"),
        "{refused}"
    );
    let (status, _) = server.post(&format!("/api/games/{id}/resign"), json!({"token": sente}));
    assert_eq!(status, 200);

    let (status, started) = server.post(&path, json!({}));
    assert_eq!(status, 200, "{started}");
    assert_eq!(started["status"], "running", "{started}");
    assert_eq!(started["total"], 5, "{started}");
    // Asked again while it runs: the same analysis, not a second.
    let (status, again) = server.post(&path, json!({}));
    assert_eq!(status, 200, "{again}");
    assert_ne!(again["status"], "none", "{again}");

    let done = analysis_when_done(&server, &id, Duration::from_secs(30));
    let positions = done["positions"].as_array().expect("positions");
    assert_eq!(positions.len(), played.len() + 1, "{done}");
    assert_eq!(done["depth"], 16);
    assert_eq!(done["movetime_ms"], 300);
    for (ply, position) in positions.iter().enumerate() {
        let score = position["score"]
            .as_str()
            .expect("a score: the game goes on");
        assert!(
            score.starts_with("cp ") || score.starts_with("mate "),
            "{position}"
        );
        // Each line is legal from its position.
        let pv: Vec<Value> = position["pv"].as_array().expect("pv").clone();
        assert!(!pv.is_empty(), "ply {ply}: {position}");
        let mut moves: Vec<Value> = played[..ply].iter().map(|m| json!(m)).collect();
        moves.extend(pv);
        let (status, replayed) =
            server.post("/api/replay", json!({"variant": "tori", "moves": moves}));
        assert_eq!(status, 200, "ply {ply}: {replayed}");
    }

    // Kept: asked again, the same analysis, made when it was.
    let (status, kept) = server.post(&path, json!({}));
    assert_eq!(status, 200);
    assert_eq!(kept, done);
    // A restart reads it from the database.
    drop(server);
    let server = Server::start(db);
    let (status, after) = server.get(&path);
    assert_eq!(status, 200);
    assert_eq!(after, done);
    let (status, missing) = server.get("/api/games/nosuchgame/analysis");
    assert_eq!(status, 404, "{missing}");
}

against_every_database!(a_finished_game_is_analysed_once_and_kept);
