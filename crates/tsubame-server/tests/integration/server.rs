//! The real server process over HTTP and WebSocket: whole games, illegal moves, tokens, clocks,
//! and kill -9 with a restart, against SQLite and (when `TSUBAME_TEST_POSTGRES` names a server,
//! as `scripts/test` arranges) PostgreSQL.

use crate::common::*;
use serde_json::{Value, json};
use std::io::BufReader;
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A Wa game that gote wins by checkmate on the 62nd move.
const WA_GAME: &str = "6k5j 6a7b 1i1h 1c1d 11i11h 2b1c 8i7h 8c7d 10j11i 7d7h 7i7h X*5e 4i5h 5e3g \
11i5c+ 5a4b 5c4c 4b4c 5h5a+ 1c7i+ X*2e F*5d R*7j 7i8h 2e2c 5d2g 3i3h 3g3h 5j4j 3h4i 4j3i 2g3h 3i2h \
8h5e 2h1g 5e5a 2c2a R*1e 1g2h 1e2f 2h1i 4i4k 2a4c 3h2i+ 2j2i 2f2i+ F*10e C*8c W*2h 2i2k 6j2j 2k4i \
3k3j 4i3j 2j3j 4k3j R*5d L*2j 1i2j E*2k 2j1i 3j3k";

/// Plays a whole game: sente over HTTP, gote over its WebSocket, a spectator watching.
fn full_game(db: &Db, variant: &str, record: &str, ending: (&str, &str)) {
    let server = Server::start(db);
    let (id, sente, gote) = server.two_player_game(variant, long_clock());
    let mut spectator = server.socket(&id, None);
    let hello = spectator.wait_for(Duration::from_secs(5), |v| v["type"] == "hello");
    assert_eq!(hello["seat"], Value::Null);
    let mut gote_socket = server.socket(&id, Some(&gote));
    let hello = gote_socket.wait_for(Duration::from_secs(5), |v| v["id"] == "auth");
    assert_eq!(hello["seat"], "gote");
    let moves: Vec<&str> = record.split_whitespace().collect();
    for (index, usi) in moves.iter().enumerate() {
        if index % 2 == 0 {
            let (status, view) = server.post(
                &format!("/api/games/{id}/moves"),
                json!({"token": sente, "move": usi}),
            );
            assert_eq!(status, 200, "move {} {usi}: {view}", index + 1);
            assert_eq!(view["ply"], index + 1);
        } else {
            gote_socket.send(json!({"type": "move", "move": usi, "id": index}));
            let ack = gote_socket.wait_for(Duration::from_secs(10), |v| {
                v["id"] == json!(index) && (v["type"] == "ack" || v["type"] == "error")
            });
            assert_eq!(ack["type"], "ack", "move {} {usi}: {ack}", index + 1);
            assert_eq!(ack["ply"], index + 1);
        }
    }
    let end = spectator.wait_for(Duration::from_secs(10), |v| v["type"] == "end");
    assert_eq!(end["game"]["result"]["winner"], ending.0);
    assert_eq!(end["game"]["result"]["reason"], ending.1);
    assert_eq!(end["game"]["last"]["usi"], *moves.last().expect("moves"));
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["status"], "finished");
    assert_eq!(view["moves"].as_array().map(Vec::len), Some(moves.len()));
    // Every move lists the squares it emptied of enemy pieces, and its Hodges text.
    let first = &view["moves"][0];
    let (first_capture, first_hodges) = match variant {
        "tori" => (json!(["3c"]), "Swx3c"),
        "tenjiku" => (json!(["10e"]), "RGx10e+"),
        _ => (json!([]), "CK-5j"),
    };
    assert_eq!(first["removed"], first_capture);
    assert_eq!(first["hodges"], first_hodges);
    let (status, record_json) = server.get(&format!("/api/games/{id}/record"));
    assert_eq!(status, 200);
    assert_eq!(
        record_json["usi"].as_array().map(Vec::len),
        Some(moves.len())
    );
    assert_eq!(
        record_json["positions"].as_array().map(Vec::len),
        Some(moves.len() + 1)
    );
    assert_eq!(record_json["sfen"], view["sfen"]);
    assert_eq!(record_json["fen"].is_string(), variant == "tori");
    let stored = db.stored_moves(&id);
    assert_eq!(stored.len(), moves.len());
    for (index, (ply, usi)) in stored.iter().enumerate() {
        assert_eq!(*ply as usize, index + 1);
        assert_eq!(usi, moves[index]);
    }
    let (status, winner, reason) = db.stored_result(&id);
    assert_eq!(status, "finished");
    assert_eq!(winner.as_deref(), Some(ending.0));
    assert_eq!(reason.as_deref(), Some(ending.1));
    // A finished game takes no more moves.
    let (status, _) = server.post(
        &format!("/api/games/{id}/moves"),
        json!({"token": sente, "move": moves[0]}),
    );
    assert_eq!(status, 409);
}

fn tori_full_game(db: &Db) {
    full_game(db, "tori", TORI_GAME, ("gote", "checkmate"));
}

fn wa_full_game(db: &Db) {
    full_game(db, "wa", WA_GAME, ("gote", "checkmate"));
}

/// A Tenjiku game that sente wins by mate (every gote move leaves its king capturable).
const TENJIKU_GAME: &str = "10m10e+ 8d8m 12p12o 7c8d 10e5e 11d2m 11m2d 2m5p 2d3c 9d14i 4n5o 5p1l 3c1a \
    6d15m+ 9l9k 5d5e 7n13h 10d10p+ 13h11g 10p9o 11g11e 8d10d 4m4m 10c10l 11e9d 15m15l 12m10k \
    10l7k 7m7e+ 7k7f 10n2f 7f7l 9d9c 7l5j 2f5f";

fn tenjiku_full_game(db: &Db) {
    full_game(db, "tenjiku", TENJIKU_GAME, ("sente", "checkmate"));
}

fn illegal_moves_change_nothing(db: &Db) {
    let server = Server::start(db);
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let (_, before) = server.get(&format!("/api/games/{id}"));
    let cases = [
        (
            &sente,
            "3d3a",
            422,
            "3d3a is illegal: a swallow cannot move from 3d to 3a",
        ),
        (
            &sente,
            "2d2c",
            422,
            "2d2c is illegal: there is no piece on 2d",
        ),
        (&sente, "4g4e", 422, "4g4e is illegal"),
        (&sente, "S*4d", 422, "S*4d is illegal"),
        (&sente, "hello", 422, "is not a move"),
        (&gote, "5d5e", 409, "it is sente's turn, not gote's"),
    ];
    for (token, usi, code, reason) in cases {
        let (status, body) = server.post(
            &format!("/api/games/{id}/moves"),
            json!({"token": token, "move": usi}),
        );
        assert_eq!(status, code, "{usi}: {body}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(error.contains(reason), "{usi}: {error}");
    }
    let (_, after) = server.get(&format!("/api/games/{id}"));
    assert_eq!(after["sfen"], before["sfen"]);
    assert_eq!(after["ply"], 0);
    assert_eq!(after["status"], "playing");
    assert!(db.stored_moves(&id).is_empty());
    // Hostile bodies get JSON errors naming what was wrong.
    let (status, body) = server.post_raw(&format!("/api/games/{id}/moves"), b"{\"move\":");
    assert_eq!(status, 400);
    assert!(
        body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("bad request body")
    );
    // Just over the limit: small enough that the whole body is written before the server
    // answers 413 and closes, so the client reads the answer instead of a broken pipe.
    let (status, body) = server.post_raw("/api/games", &vec![b'x'; 70_000]);
    assert_eq!(status, 413, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{body}"
    );
    // The framework's own rejections come back in the same JSON form.
    let (status, body) = server.get("/api/games/%FF");
    assert!((400..500).contains(&status), "{status} {body}");
    assert!(body["error"].is_string(), "{body}");
    let (status, body) = server.post("/api/games", json!({"variant": "chess"}));
    assert_eq!(status, 400);
    assert!(
        body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("unknown variant")
    );
    // Tenjiku forms: a malformed lion path is refused with the rules' reason.
    let (status, body) = server.post("/api/games", json!({"variant": "tenjiku"}));
    assert_eq!(status, 201, "{body}");
    let tenjiku_id = body["game_id"].as_str().unwrap_or_default().to_string();
    let tenjiku_token = body["token"].as_str().unwrap_or_default().to_string();
    let (status, body) = server.post(
        &format!("/api/games/{tenjiku_id}/moves"),
        json!({"token": tenjiku_token, "move": "9o7m9o"}),
    );
    assert_eq!(status, 422, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("not a step"),
        "{body}"
    );
    let (status, _) = server.post(
        "/api/games",
        json!({"variant": "tori", "options": "owl=maybe"}),
    );
    assert_eq!(
        status, 400,
        "an unknown rule option value is a malformed request"
    );
    let (status, _) = server.post(
        "/api/games",
        json!({"variant": "tori", "clock": {"kind": "byoyomi", "main_ms": 0, "periods": 0, "period_ms": 0}}),
    );
    assert_eq!(status, 400);
    let (status, _) = server.get("/api/games/nosuchgame");
    assert_eq!(status, 404);
}

fn wrong_tokens_are_refused(db: &Db) {
    let server = Server::start(db);
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let (status, body) = server.post(
        &format!("/api/games/{id}/moves"),
        json!({"token": "0123456789abcdef0123456789abcdef", "move": "3d3c"}),
    );
    assert_eq!(status, 403, "{body}");
    let (status, _) = server.post(&format!("/api/games/{id}/moves"), json!({"move": "3d3c"}));
    assert_eq!(status, 403);
    // Gote cannot resign or move for sente.
    let (status, _) = server.post(
        &format!("/api/games/{id}/moves"),
        json!({"token": gote, "move": "3d3c"}),
    );
    assert_eq!(status, 409);
    let (status, _) = server.post(&format!("/api/games/{id}/resign"), json!({"token": "nope"}));
    assert_eq!(status, 403);
    let mut spectator = server.socket(&id, None);
    spectator.send(json!({"type": "move", "move": "3d3c", "id": 1}));
    let reply = spectator.wait_for(Duration::from_secs(5), |v| v["id"] == 1);
    assert_eq!(reply["type"], "error");
    assert_eq!(reply["status"], 403);
    // A socket whose token holds no seat stays a spectator's.
    let mut pretender = server.socket(&id, Some("nope"));
    let reply = pretender.wait_for(Duration::from_secs(5), |v| v["id"] == "auth");
    assert_eq!(
        (&reply["type"], &reply["status"]),
        (&json!("error"), &json!(403))
    );
    pretender.send(json!({"type": "move", "move": "3d3c", "id": 2}));
    let reply = pretender.wait_for(Duration::from_secs(5), |v| v["id"] == 2);
    assert_eq!(reply["status"], 403);
    // A token in the socket's URL (where proxies log it) is refused, even the right one.
    let in_url = format!("ws://{}/api/games/{id}/ws?token={sente}", server.addr);
    match tungstenite::connect(in_url) {
        Err(tungstenite::Error::Http(response)) => assert_eq!(response.status(), 400),
        other => panic!(
            "a token in the URL was not refused: {:?}",
            other.map(|_| ())
        ),
    }
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["ply"], 0);
    assert_eq!(view["status"], "playing");
    // A private game cannot be joined twice or without its invite.
    let (status, _) = server.post(&format!("/api/games/{id}/join"), json!({}));
    assert_eq!(status, 409);
    let (status, created) =
        server.post("/api/games", json!({"variant": "wa", "opponent": "human"}));
    assert_eq!(status, 201);
    let other = created["game_id"].as_str().expect("id");
    let (status, _) = server.post(
        &format!("/api/games/{other}/join"),
        json!({"invite": "wrong"}),
    );
    assert_eq!(status, 403);
    // The right token still works.
    let (status, _) = server.post(
        &format!("/api/games/{id}/moves"),
        json!({"token": sente, "move": "3d3c"}),
    );
    assert_eq!(status, 200);
    assert_eq!(db.stored_moves(&id).len(), 1);
}

/// As on the play sites, each side's first move runs no clock: the clocks start with the second
/// move of the side that moved first. After that a flag ends the game by itself, and a move past
/// the time loses instead of being played.
fn clock_flag_ends_the_game(db: &Db) {
    let server = Server::start(db);
    let clock = json!({"kind": "byoyomi", "main_ms": 300, "periods": 1, "period_ms": 300});
    let (id, sente, gote) = server.two_player_game("tori", clock);
    let mut spectator = server.socket(&id, None);
    let play = |token: &str, usi: &str| {
        server.post(
            &format!("/api/games/{id}/moves"),
            json!({"token": token, "move": usi}),
        )
    };
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["clock_running"], Value::Null, "{view}");
    assert!(view["first_move_ms_left"].as_u64().is_some(), "{view}");
    // Each first move comes after more than the whole clock, and neither is charged.
    std::thread::sleep(Duration::from_millis(700));
    let (status, view) = play(&sente, "3d3c");
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["clock_running"], Value::Null, "{view}");
    assert_eq!(view["sente_clock"]["remaining_ms"], 300);
    assert!(view["first_move_ms_left"].as_u64().is_some(), "{view}");
    std::thread::sleep(Duration::from_millis(700));
    let (status, view) = play(&gote, "4b3c");
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["gote_clock"]["remaining_ms"], 300);
    assert_eq!(view["gote_clock"]["periods"], 1);
    assert_eq!(view["clock_running"], "sente", "{view}");
    assert_eq!(view["first_move_ms_left"], Value::Null, "{view}");
    let (status, view) = play(&sente, "5e5d");
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["clock_running"], "gote");
    // Nobody sends anything: the server flags gote on its own after 600 ms.
    let end = spectator.wait_for(Duration::from_secs(10), |v| v["type"] == "end");
    assert_eq!(end["game"]["result"]["winner"], "sente");
    assert_eq!(end["game"]["result"]["reason"], "time");
    assert_eq!(end["game"]["gote_clock"]["remaining_ms"], 0);
    assert_eq!(end["game"]["gote_clock"]["periods"], 0);
    let (status, winner, reason) = db.stored_result(&id);
    assert_eq!(
        (status.as_str(), winner.as_deref(), reason.as_deref()),
        ("finished", Some("sente"), Some("time"))
    );
    // Fischer: once the clocks run, a move past the remaining time loses instead of being played.
    let clock = json!({"kind": "fischer", "main_ms": 200, "increment_ms": 0});
    let (id, sente, gote) = server.two_player_game("wa", clock);
    let play = |token: &str, usi: &str| {
        server.post(
            &format!("/api/games/{id}/moves"),
            json!({"token": token, "move": usi}),
        )
    };
    std::thread::sleep(Duration::from_millis(400));
    let (status, view) = play(&sente, "6k5j");
    assert_eq!(status, 200, "{view}");
    let (status, view) = play(&gote, "6a7b");
    assert_eq!(status, 200, "{view}");
    std::thread::sleep(Duration::from_millis(400));
    let (status, _) = play(&sente, "1i1h");
    assert_eq!(status, 409);
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["result"]["reason"], "time");
    assert_eq!(view["result"]["winner"], "gote");
    assert_eq!(db.stored_moves(&id).len(), 2);
}

impl Db {
    /// Makes the database refuse to store any game's end (as a locked or failing database
    /// would), or lifts that.
    fn refuse_game_ends(&self, refuse: bool) {
        let statements: &[&str] = match (self, refuse) {
            (Db::Sqlite(_), true) => &["CREATE TRIGGER refuse_end BEFORE UPDATE ON games \
                 WHEN NEW.status = 'finished' BEGIN SELECT RAISE(ABORT, 'ends refused'); END"],
            (Db::Sqlite(_), false) => &["DROP TRIGGER refuse_end"],
            (Db::Postgres(_), true) => &[
                "CREATE FUNCTION refuse_end() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN RAISE EXCEPTION 'ends refused'; END $$",
                "CREATE TRIGGER refuse_end BEFORE UPDATE ON games FOR EACH ROW \
                 WHEN (NEW.status = 'finished') EXECUTE FUNCTION refuse_end()",
            ],
            (Db::Postgres(_), false) => &["DROP TRIGGER refuse_end ON games"],
        };
        for statement in statements {
            self.execute(statement, &[]);
        }
    }
}

/// A game's end is acknowledged only once it is stored: with the database refusing it, a
/// resignation, a draw and an abort fail and change nothing. A mate is in the stored moves, so
/// it is shown at once and stored at the latest when the server starts again.
fn ends_are_stored_before_they_are_acknowledged(db: &Db) {
    let server = Server::start(db);
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let (aborted_id, aborted_sente, _) = server.two_player_game("wa", long_clock());
    let post = |game: &str, path: &str, body: Value| {
        server.post(&format!("/api/games/{game}/{path}"), body)
    };
    db.refuse_game_ends(true);
    let (status, view) = post(&aborted_id, "abort", json!({"token": aborted_sente}));
    assert_eq!(status, 500, "{view}");
    assert!(
        view["error"]
            .as_str()
            .is_some_and(|e| e.contains("could not store the result"))
    );
    let (status, view) = post(&id, "resign", json!({"token": sente}));
    assert_eq!(status, 500, "{view}");
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["status"], "playing", "{view}");
    assert_eq!(db.stored_result(&id).0, "playing");
    let moves: Vec<&str> = TORI_GAME.split_whitespace().collect();
    for (index, usi) in moves.iter().enumerate() {
        let token = if index % 2 == 0 { &sente } else { &gote };
        let (status, view) = post(&id, "moves", json!({"token": token, "move": usi}));
        assert_eq!(status, 200, "move {} {usi}: {view}", index + 1);
        if index == 2 {
            let (status, _) = post(&id, "draw", json!({"token": gote, "action": "offer"}));
            assert_eq!(status, 200);
            let (status, _) = post(&id, "draw", json!({"token": sente, "action": "accept"}));
            assert_eq!(status, 500);
        }
    }
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["result"]["reason"], "checkmate", "{view}");
    assert_eq!(db.stored_result(&id).0, "playing");
    server.kill9();
    db.refuse_game_ends(false);
    let server = Server::start(db);
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["status"], "finished", "{view}");
    let (status, winner, reason) = db.stored_result(&id);
    assert_eq!(
        (status.as_str(), winner.as_deref(), reason.as_deref()),
        ("finished", Some("gote"), Some("checkmate"))
    );
    let (_, view) = server.get(&format!("/api/games/{aborted_id}"));
    assert_eq!(view["status"], "playing", "{view}");
}

/// The time a move takes to be stored is charged to nobody: the opponent's clock starts when
/// the move is stored and sent. PostgreSQL only, where a trigger can stall the write.
fn a_slow_write_is_not_charged_to_the_opponent(db: &Db) {
    if matches!(db, Db::Sqlite(_)) {
        return;
    }
    let server = Server::start(db);
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let play = |token: &str, usi: &str| {
        let (status, view) = server.post(
            &format!("/api/games/{id}/moves"),
            json!({"token": token, "move": usi}),
        );
        assert_eq!(status, 200, "{view}");
        view
    };
    let moves: Vec<&str> = TORI_GAME.split_whitespace().collect();
    play(&sente, moves[0]);
    play(&gote, moves[1]);
    db.execute(
        "CREATE FUNCTION stall_move() RETURNS trigger LANGUAGE plpgsql AS \
         $$ BEGIN PERFORM pg_sleep(1.5); RETURN NEW; END $$",
        &[],
    );
    db.execute(
        "CREATE TRIGGER stall_move BEFORE INSERT ON moves FOR EACH ROW EXECUTE FUNCTION stall_move()",
        &[],
    );
    let view = play(&sente, moves[2]);
    assert_eq!(view["clock_running"], "gote");
    let full = view["moves"][1]["clocks"]["sides"][1]["remaining_ms"].as_u64();
    let (_, view) = server.get(&format!("/api/games/{id}"));
    let stored_gote = view["moves"][1]["clocks"]["sides"][1]["remaining_ms"]
        .as_u64()
        .or(full)
        .expect("gote's clock after its move");
    let shown = view["gote_clock"]["remaining_ms"]
        .as_u64()
        .expect("gote's clock");
    assert!(
        stored_gote - shown < 1000,
        "gote was charged {} ms of sente's 1.5 s write",
        stored_gote - shown
    );
}

/// The access log has a JSON line per request with its method, path and status, and no
/// secret: not the seat tokens of bodies, not a token put in a socket's URL by mistake.
fn access_log_has_requests_and_no_secrets(db: &Db) {
    let (server, log) = Server::start_with_json_log(db);
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let (status, _) = server.post(
        &format!("/api/games/{id}/moves"),
        json!({"token": sente, "move": "3d3c"}),
    );
    assert_eq!(status, 200);
    let in_url = format!("ws://{}/api/games/{id}/ws?token={gote}", server.addr);
    assert!(tungstenite::connect(in_url).is_err());
    let (status, _) = server.get("/api/games/nosuchgame");
    assert_eq!(status, 404);
    assert!(server.terminate().success());
    let mut text = String::new();
    std::io::Read::read_to_string(&mut BufReader::new(log), &mut text).expect("read the log");
    assert!(
        !text.contains(&sente) && !text.contains(&gote),
        "a token is in the log"
    );
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let answered = |method: &str, path: &str, status: u16| {
        lines.iter().any(|line| {
            line["fields"]["status"] == status
                && line["span"]["method"] == method
                && line["span"]["path"] == path
        })
    };
    assert!(answered("POST", "/api/games", 201), "{text}");
    assert!(
        answered("POST", &format!("/api/games/{id}/moves"), 200),
        "{text}"
    );
    assert!(
        answered("GET", &format!("/api/games/{id}/ws"), 400),
        "{text}"
    );
    assert!(answered("GET", "/api/games/nosuchgame", 404), "{text}");
}

/// SIGTERM stops the server cleanly: every game socket is closed with 1001 (going away) so
/// clients reconnect, the process exits with success, and what was acknowledged is there when
/// it starts again.
fn sigterm_closes_sockets_and_keeps_the_games(db: &Db) {
    let server = Server::start(db);
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let spectator = server.socket(&id, None);
    let mut gote_socket = server.socket(&id, Some(&gote));
    gote_socket.wait_for(Duration::from_secs(5), |v| v["id"] == "auth");
    let (status, _) = server.post(
        &format!("/api/games/{id}/moves"),
        json!({"token": sente, "move": "3d3c"}),
    );
    assert_eq!(status, 200);
    gote_socket.send(json!({"type": "move", "move": "4b3c", "id": 1}));
    let ack = gote_socket.wait_for(Duration::from_secs(5), |v| v["id"] == 1);
    assert_eq!(ack["type"], "ack", "{ack}");
    // The clients read all along, as pages do: the server waits for their answering close.
    let closes: Vec<_> = [spectator, gote_socket]
        .into_iter()
        .map(|mut socket| {
            std::thread::spawn(move || socket.wait_for_close(Duration::from_secs(10)))
        })
        .collect();
    let status = server.terminate();
    assert!(status.success(), "exit status {status}");
    for close in closes {
        assert_eq!(close.join().expect("the reader ends"), Some(1001));
    }
    let server = Server::start(db);
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["ply"], 2, "{view}");
    assert_eq!(view["status"], "playing");
}

/// Games nobody really started do not pile up: a seek nobody joins and a game against the
/// computer whose player never moves are aborted after the expiry, also across a restart; a
/// joined game is not.
fn abandoned_games_expire(db: &Db) {
    let args = ["--seek-expiry-minutes", "0.02"];
    let server = Server::start_with(db, &args);
    let (status, seek) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "public": true}),
    );
    assert_eq!(status, 201, "{seek}");
    let seek_id = seek["game_id"].as_str().expect("id").to_string();
    let (_, lobby) = server.get("/api/lobby");
    assert!(
        lobby
            .as_array()
            .is_some_and(|l| l.iter().any(|g| g["id"] == seek_id.as_str()))
    );
    let (status, engine_game) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine", "side": "sente"}),
    );
    assert_eq!(status, 201, "{engine_game}");
    let engine_id = engine_game["game_id"].as_str().expect("id").to_string();
    let (joined_id, sente, _) = server.two_player_game("wa", long_clock());
    let (status, _) = server.post(
        &format!("/api/games/{joined_id}/moves"),
        json!({"token": sente, "move": "6k5j"}),
    );
    assert_eq!(status, 200);
    // A seek made just before a restart expires after it, from its creation time.
    let (_, late_seek) = server.post("/api/games", json!({"variant": "wa", "opponent": "human"}));
    let late_id = late_seek["game_id"].as_str().expect("id").to_string();
    server.kill9();
    let server = Server::start_with(db, &args);
    // Each expires 1.2 s after it was made; the sweep after the restart aborts them.
    for id in [&seek_id, &engine_id, &late_id] {
        wait_until(
            Duration::from_secs(15),
            &format!("game {id} aborted"),
            || db.stored_result(id).0 == "finished",
        );
        let (status, winner, reason) = db.stored_result(id);
        assert_eq!(
            (status.as_str(), winner.as_deref(), reason.as_deref()),
            ("finished", None, Some("aborted")),
            "game {id}"
        );
    }
    let (_, lobby) = server.get("/api/lobby");
    assert_eq!(lobby, json!([]));
    let (_, view) = server.get(&format!("/api/games/{joined_id}"));
    assert_eq!(view["status"], "playing", "{view}");
}

/// Between people, a side that does not make its first move in time gets the game aborted
/// (nobody wins); against the computer there is no such limit.
fn first_move_time_aborts(db: &Db) {
    let server = Server::start_with(db, &["--first-move-seconds", "0.5"]);
    let (id, sente, _gote) = server.two_player_game("tori", long_clock());
    let mut spectator = server.socket(&id, None);
    let (status, view) = server.post(
        &format!("/api/games/{id}/moves"),
        json!({"token": sente, "move": "3d3c"}),
    );
    assert_eq!(status, 200, "{view}");
    let left = view["first_move_ms_left"]
        .as_u64()
        .expect("gote's first-move time");
    assert!(left > 300 && left <= 500, "{view}");
    let end = spectator.wait_for(Duration::from_secs(10), |v| v["type"] == "end");
    assert_eq!(end["game"]["result"]["winner"], Value::Null);
    assert_eq!(end["game"]["result"]["reason"], "aborted");
    let (status, winner, reason) = db.stored_result(&id);
    assert_eq!(
        (status.as_str(), winner.as_deref(), reason.as_deref()),
        ("finished", None, Some("aborted"))
    );
    let (status, engine_game) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine", "side": "sente", "clock": long_clock()}),
    );
    assert_eq!(status, 201, "{engine_game}");
    let engine_id = engine_game["game_id"].as_str().expect("id");
    std::thread::sleep(Duration::from_millis(900));
    let (_, view) = server.get(&format!("/api/games/{engine_id}"));
    assert_eq!(view["status"], "playing", "{view}");
    assert_eq!(view["first_move_ms_left"], Value::Null, "{view}");
}

fn restart_loses_nothing(db: &Db) {
    let server = Server::start(db);
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let moves: Vec<&str> = TORI_GAME.split_whitespace().take(7).collect();
    server.play_moves(&id, &sente, &gote, &moves);
    let (_, before) = server.get(&format!("/api/games/{id}"));
    // An engine game where the engine is about to answer.
    let (status, engine_game) = server.post(
        "/api/games",
        json!({"variant": "wa", "opponent": "engine", "level": 1, "clock": long_clock()}),
    );
    assert_eq!(status, 201);
    let engine_id = engine_game["game_id"].as_str().expect("id").to_string();
    let engine_token = engine_game["token"].as_str().expect("token").to_string();
    let (status, _) = server.post(
        &format!("/api/games/{engine_id}/moves"),
        json!({"token": engine_token, "move": "6k5j"}),
    );
    assert_eq!(status, 200);
    server.kill9();

    let server = Server::start(db);
    let (status, after) = server.get(&format!("/api/games/{id}"));
    assert_eq!(status, 200);
    assert_eq!(after["ply"], 7);
    assert_eq!(after["sfen"], before["sfen"]);
    assert_eq!(after["status"], "playing");
    assert_eq!(after["moves"], before["moves"]);
    // Clocks resume from the state stored with the last move: sente's main time is what it was;
    // gote's turn starts again from its stored time (the downtime is charged to nobody).
    assert_eq!(after["sente_clock"], before["sente_clock"]);
    let stored = &after["moves"][6]["clocks"]["sides"];
    assert_eq!(
        after["sente_clock"]["remaining_ms"],
        stored[0]["remaining_ms"]
    );
    let gote_stored = stored[1]["remaining_ms"].as_u64().expect("ms");
    let gote_after = after["gote_clock"]["remaining_ms"].as_u64().expect("ms");
    assert!(gote_after <= gote_stored && gote_after + 60_000 > gote_stored);
    assert_eq!(after["clock_running"], "gote");
    // The tokens still hold their seats and the game goes on.
    let (status, view) = server.post(
        &format!("/api/games/{id}/moves"),
        json!({"token": gote, "move": TORI_GAME.split_whitespace().nth(7)}),
    );
    assert_eq!(status, 200, "{view}");
    assert_eq!(db.stored_moves(&id).len(), 8);
    // The engine game resumes and the engine answers.
    let mut socket = server.socket(&engine_id, Some(&engine_token));
    let state = socket.wait_for(Duration::from_secs(30), |v| {
        v["game"]["ply"].as_u64().is_some_and(|p| p >= 2)
    });
    assert_eq!(state["game"]["side_to_move"], "sente");
    assert_eq!(db.stored_moves(&engine_id).len(), 2);
}

/// An offer's action (`draw` or `rematch`) for a seat.
fn offer(server: &Server, id: &str, kind: &str, token: &str, action: &str) -> Value {
    let (status, view) = server.post(
        &format!("/api/games/{id}/{kind}"),
        json!({"token": token, "action": action}),
    );
    assert_eq!(status, 200, "{kind} {action}: {view}");
    view
}

/// Draw and rematch offers are stored: a restart in between loses neither.
fn offers_survive_a_restart(db: &Db) {
    let server = Server::start(db);
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let moves: Vec<&str> = TORI_GAME.split_whitespace().take(2).collect();
    server.play_moves(&id, &sente, &gote, &moves);
    offer(&server, &id, "draw", &sente, "offer");
    server.kill9();
    let server = Server::start(db);
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["draw_offer"], "sente", "{view}");
    let view = offer(&server, &id, "draw", &gote, "accept");
    assert_eq!(view["result"]["reason"], "agreement");
    offer(&server, &id, "rematch", &gote, "offer");
    server.kill9();
    let server = Server::start(db);
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["rematch_offer"], "gote", "{view}");
    let view = offer(&server, &id, "rematch", &sente, "accept");
    assert!(view["rematch_id"].is_string(), "{view}");
}

fn engine_plays_both_levels(db: &Db) {
    let server = Server::start(db);
    for level in [1, 3] {
        let (status, created) = server.post(
            "/api/games",
            json!({"variant": "tori", "opponent": "engine", "level": level, "side": "gote",
                   "handicap": "falcon", "clock": {"kind": "fischer", "main_ms": 60000, "increment_ms": 1000}}),
        );
        assert_eq!(status, 201, "{created}");
        assert_eq!(created["seat"], "gote");
        let id = created["game_id"].as_str().expect("id").to_string();
        let mut socket = server.socket(&id, created["token"].as_str());
        // With the falcon handicap gote (the human) moves first.
        let state = socket.wait_for(Duration::from_secs(5), |v| v["type"] == "state");
        assert_eq!(state["game"]["side_to_move"], "gote");
        assert_eq!(state["game"]["options"], "handicap=falcon");
        let first = state["game"]["legal_moves"][0]
            .as_str()
            .expect("move")
            .to_string();
        socket.send(json!({"type": "move", "move": first, "id": "m1"}));
        let moved = socket.wait_for(Duration::from_secs(30), |v| v["game"]["ply"] == 2);
        assert_eq!(moved["game"]["side_to_move"], "gote");
        let (status, _) = server.post(
            &format!("/api/games/{id}/resign"),
            json!({"token": created["token"]}),
        );
        assert_eq!(status, 200);
        let (_, view) = server.get(&format!("/api/games/{id}"));
        assert_eq!(view["result"]["winner"], "sente");
        assert_eq!(view["result"]["reason"], "resignation");
    }
}

/// The weakest computer answers at a person's pace, about a second after the move, not at
/// once; and while it waits it holds no engine slot: with one slot, an analysis asked for
/// meanwhile is answered at once.
fn a_weak_computer_answers_at_a_persons_pace_without_holding_a_slot(db: &Db) {
    let server = Server::start_with(db, &["--engine-slots", "1"]);
    let (status, created) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine", "level": 1, "side": "sente"}),
    );
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().expect("id").to_string();
    let mut socket = server.socket(&id, created["token"].as_str());
    socket.wait_for(Duration::from_secs(5), |v| v["type"] == "state");
    let moved = Instant::now();
    socket.send(json!({"type": "move", "move": "5e5d", "id": "m1"}));
    std::thread::sleep(Duration::from_millis(400));
    let asked = Instant::now();
    let (status, analysis) = server.post(
        "/api/analyse",
        json!({"variant": "tori", "depth": 2, "movetime_ms": 200}),
    );
    assert_eq!(status, 200, "{analysis}");
    assert!(
        asked.elapsed() < Duration::from_millis(700),
        "the analysis waited {:?} for the computer's slot",
        asked.elapsed()
    );
    socket.wait_for(Duration::from_secs(10), |v| v["game"]["ply"] == 2);
    let answered = moved.elapsed();
    assert!(
        answered >= Duration::from_millis(1100),
        "answered after {answered:?}"
    );
    assert!(
        answered < Duration::from_secs(4),
        "answered after {answered:?}"
    );
    // Every level the page offers is the level played, the strongest too (not held to five),
    // after a restart as well.
    let (status, created) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine", "level": 8, "side": "gote",
               "clock": {"kind": "unlimited"}}),
    );
    assert_eq!(status, 201, "{created}");
    let strongest = created["game_id"].as_str().expect("id").to_string();
    let (_, view) = server.get(&format!("/api/games/{strongest}"));
    assert_eq!(view["engine_level"], 8, "{view}");
    assert_eq!(view["sente_name"], "Computer level 8", "{view}");
    drop(socket);
    server.kill9();
    let server = Server::start(db);
    let (_, view) = server.get(&format!("/api/games/{strongest}"));
    assert_eq!(view["engine_level"], 8, "{view}");
}

/// Draw offers (declined, then accepted) and aborting, with the stored result.
fn draws_and_aborts(db: &Db) {
    let server = Server::start(db);
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let post = |path: &str, body: Value| server.post(&format!("/api/games/{id}/{path}"), body);
    // Nothing to accept or decline yet; a draw needs a game in play.
    let (status, _) = post("draw", json!({"token": gote, "action": "accept"}));
    assert_eq!(status, 409);
    let (status, _) = post("moves", json!({"token": sente, "move": "3d3c"}));
    assert_eq!(status, 200);
    // Before each side has moved a draw is not agreed: the game is aborted instead.
    let (status, view) = post("draw", json!({"token": sente, "action": "offer"}));
    assert_eq!(status, 409, "{view}");
    let (status, _) = post("moves", json!({"token": gote, "move": "5d5e"}));
    assert_eq!(status, 200);
    let (status, view) = post("draw", json!({"token": sente, "action": "offer"}));
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["draw_offer"], "sente");
    // The one who offered cannot accept for the other side.
    let (status, _) = post("draw", json!({"token": sente, "action": "accept"}));
    assert_eq!(status, 409);
    let (status, _) = post("draw", json!({"token": "wrong", "action": "accept"}));
    assert_eq!(status, 403);
    let (status, view) = post("draw", json!({"token": gote, "action": "decline"}));
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["draw_offer"], Value::Null);
    let (status, _) = post("draw", json!({"token": gote, "action": "maybe"}));
    assert_eq!(status, 400);
    // Both players have moved: too late to abort.
    let (status, _) = post("abort", json!({"token": sente}));
    assert_eq!(status, 409);
    let (status, _) = post("draw", json!({"token": gote, "action": "offer"}));
    assert_eq!(status, 200);
    let (status, view) = post("draw", json!({"token": sente, "action": "accept"}));
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"]["winner"], Value::Null);
    assert_eq!(view["result"]["reason"], "agreement");
    let (_, winner, reason) = db.stored_result(&id);
    assert_eq!(winner, None);
    assert_eq!(reason.as_deref(), Some("agreement"));

    // A fresh game aborted before both players have moved ends without a result.
    let (id, sente, _) = server.two_player_game("wa", long_clock());
    let (status, view) = server.post(&format!("/api/games/{id}/abort"), json!({"token": sente}));
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["result"]["reason"], "aborted");
    let (_, _, reason) = db.stored_result(&id);
    assert_eq!(reason.as_deref(), Some("aborted"));
    let (status, _) = server.post(&format!("/api/games/{id}/abort"), json!({"token": sente}));
    assert_eq!(status, 409);
}

/// The database holds only SHA-256 hashes of the seat tokens, the tokens still hold their seats,
/// and a game stored with plain tokens (before hashing) is hashed at startup and stays playable.
fn tokens_are_stored_hashed(db: &Db) {
    let server = Server::start(db);
    let (status, created) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human"}),
    );
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().expect("id").to_string();
    let sente = created["token"].as_str().expect("token").to_string();
    // Before anyone joins, the open seat has no token at all.
    let (sente_hash, gote_hash, hashed) = db.stored_token_hashes(&id);
    assert_eq!(
        (sente_hash, gote_hash, hashed),
        (sha256_hex(&sente), String::new(), 1)
    );
    let (status, joined) = server.post(
        &format!("/api/games/{id}/join"),
        json!({"invite": created["invite"]}),
    );
    assert_eq!(status, 200, "{joined}");
    let gote = joined["token"].as_str().expect("token").to_string();
    assert_ne!(sente, gote);
    let (sente_hash, gote_hash, _) = db.stored_token_hashes(&id);
    assert_eq!(sente_hash, sha256_hex(&sente));
    assert_eq!(gote_hash, sha256_hex(&gote));
    for text in db.stored_game_texts(&id) {
        assert!(
            !text.contains(&sente) && !text.contains(&gote),
            "a plain token is stored: {text}"
        );
    }
    // Both tokens hold their seats; a hash is not a token.
    for (token, usi) in [(&sente, "3d3c"), (&gote, "5d5e")] {
        let (status, view) = server.post(
            &format!("/api/games/{id}/moves"),
            json!({"token": token, "move": usi}),
        );
        assert_eq!(status, 200, "{view}");
    }
    let (status, _) = server.post(
        &format!("/api/games/{id}/moves"),
        json!({"token": sha256_hex(&sente), "move": "5e5d"}),
    );
    assert_eq!(status, 403);
    server.kill9();

    // A game as stored before hashing: plain tokens, marked unhashed.
    let (old_sente, old_gote) = (
        "00112233445566778899aabbccddeeff",
        "ffeeddccbbaa99887766554433221100",
    );
    db.execute(
        "UPDATE games SET sente_token_hash = $1, gote_token_hash = $2, tokens_hashed = 0 \
         WHERE id = $3",
        &[old_sente, old_gote, &id],
    );
    let server = Server::start(db);
    let (sente_hash, gote_hash, hashed) = db.stored_token_hashes(&id);
    assert_eq!(
        (sente_hash, gote_hash, hashed),
        (sha256_hex(old_sente), sha256_hex(old_gote), 1)
    );
    let (_, view) = server.get(&format!("/api/games/{id}"));
    let next = view["legal_moves"][0]
        .as_str()
        .expect("a legal move")
        .to_string();
    let (status, view) = server.post(
        &format!("/api/games/{id}/moves"),
        json!({"token": old_sente, "move": next}),
    );
    assert_eq!(status, 200, "{view}");
    let (status, _) = server.post(
        &format!("/api/games/{id}/moves"),
        json!({"token": sente, "move": "4b3c"}),
    );
    assert_eq!(status, 403, "the replaced token no longer holds the seat");
    let mut socket = server.socket(&id, Some(old_gote));
    let hello = socket.wait_for(Duration::from_secs(5), |v| v["id"] == "auth");
    assert_eq!(hello["seat"], "gote");
}

/// One rule for status codes: the same bad start position is 422 (refused by the rules) and the
/// same unknown rule option 400 (a malformed request), whether a game is created, a position
/// analysed or a record replayed.
fn status_codes_follow_one_rule(db: &Db) {
    let server = Server::start(db);
    // Seven ranks of Tori, but both phoenixes on one side: text, yet no position.
    let bad_sfen = "3k3/7/7/7/7/7/3KK2 b - 1";
    let cases = [
        (json!({"sfen": bad_sfen}), 422, "bad start position"),
        (json!({"options": "owl=maybe"}), 400, "bad rule options"),
    ];
    for (fields, expected, reason) in cases {
        let mut bodies = Vec::new();
        for (path, extra) in [
            ("/api/games", json!({})),
            ("/api/analyse", json!({"moves": [], "depth": 1})),
            ("/api/replay", json!({"moves": []})),
        ] {
            let mut body = json!({"variant": "tori"});
            for source in [&fields, &extra] {
                if let (Some(into), Some(from)) = (body.as_object_mut(), source.as_object()) {
                    into.extend(from.clone());
                }
            }
            let (status, answer) = server.post(path, body);
            assert_eq!(status, expected, "{path} {fields}: {answer}");
            let error = answer["error"].as_str().unwrap_or_default().to_string();
            assert!(error.contains(reason), "{path} {fields}: {error}");
            bodies.push(error);
        }
        // The same words everywhere.
        assert!(
            bodies.windows(2).all(|pair| pair[0] == pair[1]),
            "{bodies:?}"
        );
    }
}

/// A private game (between people, joined by its invite link) is not listed; public games and
/// games against the computer are. The private one is still there for whoever has its id.
fn private_games_are_not_listed(db: &Db) {
    let server = Server::start(db);
    let create = |public: bool, opponent: &str| -> String {
        let (status, body) = server.post(
            "/api/games",
            json!({"variant": "tori", "opponent": opponent, "public": public}),
        );
        assert_eq!(status, 201, "{body}");
        body["game_id"].as_str().unwrap_or_default().to_string()
    };
    let private = create(false, "human");
    let public = create(true, "human");
    let computer = create(false, "engine");
    for query in [
        "/api/games",
        "/api/games?status=waiting",
        "/api/games?limit=500",
    ] {
        let (status, list) = server.get(query);
        assert_eq!(status, 200, "{list}");
        let ids: Vec<&str> = list
            .as_array()
            .map(|games| games.iter().filter_map(|g| g["id"].as_str()).collect())
            .unwrap_or_default();
        assert!(!ids.contains(&private.as_str()), "{query}: {ids:?}");
        if query != "/api/games?status=waiting" {
            assert!(ids.contains(&computer.as_str()), "{query}: {ids:?}");
        }
        assert!(ids.contains(&public.as_str()), "{query}: {ids:?}");
    }
    let (status, game) = server.get(&format!("/api/games/{private}"));
    assert_eq!(status, 200, "{game}");
}

/// A liveness and a readiness probe that answer as probes, not with the page, and the
/// security headers on every kind of response.
/// Analysis shares the engine's slots and is bounded: an address gets its share of requests
/// at once, the queue its length, and the rest a 429 with Retry-After; the answers come.
fn analysis_is_bounded(db: &Db) {
    let server = Server::start_with(
        db,
        &[
            "--engine-slots",
            "1",
            "--engine-queue",
            "1",
            "--analyses-per-client",
            "2",
        ],
    );
    let base = server.base.clone();
    let ask = move |forwarded_for: Option<&'static str>| {
        let base = base.clone();
        std::thread::spawn(move || {
            let mut request = ureq::post(&format!("{base}/api/analyse"));
            if let Some(address) = forwarded_for {
                request = request.set("X-Forwarded-For", address);
            }
            let body = json!({"variant": "tori", "depth": 30, "movetime_ms": 1200});
            match request.send_string(&body.to_string()) {
                Ok(response) => (
                    response.status(),
                    None,
                    response.into_string().unwrap_or_default(),
                ),
                Err(ureq::Error::Status(status, response)) => (
                    status,
                    response.header("retry-after").map(str::to_string),
                    response.into_string().unwrap_or_default(),
                ),
                Err(e) => panic!("analyse: {e}"),
            }
        })
    };
    let answers: Vec<_> = (0..5).map(|_| ask(None)).collect();
    let answers: Vec<_> = answers
        .into_iter()
        .map(|a| a.join().expect("thread"))
        .collect();
    let admitted = answers
        .iter()
        .filter(|(status, _, _)| *status == 200)
        .count();
    assert_eq!(admitted, 2, "{answers:?}");
    for (status, retry_after, body) in answers.iter().filter(|(status, _, _)| *status != 200) {
        assert_eq!(*status, 429, "{body}");
        assert_eq!(retry_after.as_deref(), Some("2"));
        assert!(body.contains("this address already has"), "{body}");
    }
    // Three addresses behind a proxy on this machine: one slot and a queue of one.
    let answers: Vec<_> = ["10.0.0.1", "10.0.0.2", "10.0.0.3"]
        .map(|address| ask(Some(address)))
        .into_iter()
        .map(|a| a.join().expect("thread"))
        .collect();
    let refused: Vec<_> = answers
        .iter()
        .filter(|(status, _, _)| *status == 429)
        .collect();
    assert_eq!(refused.len(), 1, "{answers:?}");
    assert!(refused[0].2.contains("the engine is busy"), "{answers:?}");
    // Several best lines: each a different first move, the best first; at most ten.
    let (status, reply) = server.post(
        "/api/analyse",
        json!({"variant": "tori", "depth": 4, "lines": 3}),
    );
    assert_eq!(status, 200, "{reply}");
    let lines = reply["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 3, "{reply}");
    assert_eq!(lines[0]["move"], reply["best"]);
    assert_eq!(reply["depth"], 4);
    let firsts: std::collections::HashSet<&str> =
        lines.iter().map(|l| l["move"].as_str().unwrap()).collect();
    assert_eq!(firsts.len(), 3, "{reply}");
    for line in lines {
        assert_eq!(line["pv"][0], line["move"]);
        assert!(line["score"].as_str().unwrap().starts_with("cp "), "{line}");
        // Each line in Hodges notation too, as a replay of it writes it.
        let (status, replayed) = server.post(
            "/api/replay",
            json!({"variant": "tori", "moves": line["pv"]}),
        );
        assert_eq!(status, 200, "{replayed}");
        assert_eq!(line["hodges"], replayed["hodges"], "{line}");
        assert!(!replayed["hodges"].as_array().unwrap().is_empty(), "{line}");
    }
    let (status, body) = server.post("/api/analyse", json!({"variant": "tori", "lines": 11}));
    assert_eq!(status, 400, "{body}");
}

/// A client that leaves stops its analysis: an analysis of 10 s whose client gives up after
/// 0.3 s does not go on using a core for nobody (the server's CPU time over the next second),
/// and the next analysis is answered at once.
fn a_client_that_leaves_stops_its_analysis(db: &Db) {
    let server = Server::start_with(db, &["--engine-slots", "1"]);
    let cpu_ticks = |pid: u32| -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("proc stat");
        // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    };
    let url = format!("{}/api/analyse", server.base);
    let impatient = ureq::AgentBuilder::new()
        .timeout(Duration::from_millis(300))
        .build();
    let long = json!({"variant": "tori", "depth": 60, "movetime_ms": 10000});
    let gave_up = impatient.post(&url).send_string(&long.to_string());
    assert!(gave_up.is_err(), "the long analysis answered within 0.3 s");
    std::thread::sleep(Duration::from_millis(200));
    let pid = server.child.id();
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(1));
    let used = cpu_ticks(pid) - before;
    // A search running on would use about 100 ticks (one core) in that second.
    assert!(
        used < 30,
        "the server used {used} ticks of CPU after the client left"
    );
    let asked = Instant::now();
    let (status, reply) = server.post("/api/analyse", json!({"variant": "tori", "depth": 2}));
    assert_eq!(status, 200, "{reply}");
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "the next analysis waited {:?}",
        asked.elapsed()
    );
}

/// A computer opponent whose search waits for a busy engine slot is not charged for the wait:
/// with one slot held by a long analysis, a computer with 1.5 s on its clock still moves.
fn computer_clock_waits_with_its_search(db: &Db) {
    let server = Server::start_with(db, &["--engine-slots", "1"]);
    let clock = json!({"kind": "fischer", "main_ms": 1500, "increment_ms": 0});
    let (status, game) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine", "side": "sente", "level": 1, "clock": clock}),
    );
    assert_eq!(status, 201, "{game}");
    let id = game["game_id"].as_str().expect("id").to_string();
    let token = game["token"].as_str().expect("token").to_string();
    let mut socket = server.socket(&id, Some(&token));
    let play = |usi: &str| {
        let (status, view) = server.post(
            &format!("/api/games/{id}/moves"),
            json!({"token": token, "move": usi}),
        );
        assert_eq!(status, 200, "{view}");
    };
    play("3d3c");
    socket.wait_for(Duration::from_secs(10), |v| v["game"]["ply"] == 2);
    let base = server.base.clone();
    let analysis = std::thread::spawn(move || {
        let body = json!({"variant": "wa", "depth": 30, "movetime_ms": 3000});
        ureq::post(&format!("{base}/api/analyse"))
            .send_string(&body.to_string())
            .map_or_else(|e| format!("{e}"), |r| r.status().to_string())
    });
    std::thread::sleep(Duration::from_millis(300));
    let (_, view) = server.get(&format!("/api/games/{id}"));
    let usi = view["legal_moves"][0]
        .as_str()
        .expect("a legal move")
        .to_string();
    play(&usi);
    let moved = socket.wait_for(Duration::from_secs(15), |v| {
        v["game"]["ply"] == 4 || v["type"] == "end"
    });
    assert_eq!(moved["game"]["status"], "playing", "{moved}");
    assert_eq!(analysis.join().expect("thread"), "200");
}

/// One address creates at most its games a minute; past that it gets 429 with Retry-After,
/// while another address (behind a local proxy) still can.
fn game_creation_is_rate_limited(db: &Db) {
    let server = Server::start_with(db, &["--games-per-minute", "3"]);
    let create = |forwarded_for: Option<&str>| {
        let mut request = ureq::post(&format!("{}/api/games", server.base));
        if let Some(address) = forwarded_for {
            request = request.set("X-Forwarded-For", address);
        }
        match request.send_string(r#"{"variant": "tori", "opponent": "human"}"#) {
            Ok(response) => (response.status(), None),
            Err(ureq::Error::Status(status, response)) => {
                (status, response.header("retry-after").map(str::to_string))
            }
            Err(e) => panic!("create: {e}"),
        }
    };
    for _ in 0..3 {
        assert_eq!(create(None).0, 201);
    }
    // Three a minute: the next one is let through 20 s after the burst, and the answer says
    // so (it used to say 2 s whatever the wait).
    assert_eq!(create(None), (429, Some("20".to_string())));
    assert_eq!(create(Some("10.1.2.3")).0, 201);
}

/// One address cannot hold more than its share of connections (the next ones are closed at
/// once, and others are still served), and a connection on which nothing arrives is closed
/// after the idle time, while a game socket, pinged by the server, stays open.
fn connections_are_bounded(db: &Db) {
    use std::io::{Read, Write};
    // A proxy on this machine speaks for many clients: its connections are never capped.
    let behind_proxy = Server::start_with(db, &["--connections-per-address", "3"]);
    let through_proxy: Vec<TcpStream> = (0..6)
        .map(|_| TcpStream::connect(&behind_proxy.addr).expect("connect"))
        .collect();
    for mut stream in through_proxy {
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .expect("send");
        let mut answer = [0_u8; 12];
        stream.read_exact(&mut answer).expect("answered");
        assert_eq!(&answer, b"HTTP/1.1 200");
    }
    drop(behind_proxy);

    let server = Server::start_with(
        db,
        &[
            "--connections-per-address",
            "3",
            "--idle-seconds",
            "5",
            "--proxy-address",
            "none",
        ],
    );
    // Before any request: no pooled HTTP connection of the test's own counts yet.
    let held: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(&server.addr).expect("connect"))
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut refused = TcpStream::connect(&server.addr).expect("connect");
    refused
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let _ = refused.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    let mut answer = Vec::new();
    let read = refused.read_to_end(&mut answer);
    assert!(
        read.is_err() || answer.is_empty(),
        "a fourth connection was served: {:?}",
        String::from_utf8_lossy(&answer)
    );
    // Silent connections are closed after the idle time, which frees the address's share.
    let started = Instant::now();
    for mut stream in held {
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut buffer = [0_u8; 16];
        let read = stream.read(&mut buffer);
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    }
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "{:?}",
        started.elapsed()
    );
    let (status, _) = server.get("/healthz");
    assert_eq!(status, 200);
    // A game socket answers the server's pings and outlives the idle time.
    let (id, _, _) = server.two_player_game("tori", long_clock());
    let mut socket = server.socket(&id, None);
    let until = Instant::now() + Duration::from_millis(7000);
    while Instant::now() < until {
        if let Err(e) = socket.next_message() {
            panic!("the game socket was closed: {e}");
        }
    }
    socket.send(json!({"type": "ping", "id": "alive"}));
    let pong = socket.wait_for(Duration::from_secs(5), |v| v["id"] == "alive");
    assert_eq!(pong["type"], "pong");
    // The refused connection is counted for the metrics (and logged once, not per refusal).
    let metrics = ureq::get(&format!("{}/metrics", server.base))
        .call()
        .expect("metrics")
        .into_string()
        .expect("metrics text");
    assert!(
        metrics
            .lines()
            .any(|line| line.starts_with("tsubame_connections_refused_total")
                && !line.ends_with(" 0")),
        "{metrics}"
    );
}

/// `/metrics` counts what happened, in Prometheus' text format.
fn metrics_count_games_moves_and_sockets(db: &Db) {
    let server = Server::start(db);
    let scrape = || {
        ureq::get(&format!("{}/metrics", server.base))
            .call()
            .expect("/metrics")
            .into_string()
            .expect("text")
    };
    let value = |text: &str, name: &str| -> f64 {
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("{name} not in {text}"))
    };
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let (seek_status, _) = server.post("/api/games", json!({"variant": "wa", "opponent": "human"}));
    assert_eq!(seek_status, 201);
    let mut socket = server.socket(&id, Some(&gote));
    socket.wait_for(Duration::from_secs(5), |v| v["id"] == "auth");
    for (token, usi) in [(&sente, "3d3c"), (&gote, "4b3c"), (&sente, "5e5d")] {
        let (status, _) = server.post(
            &format!("/api/games/{id}/moves"),
            json!({"token": token, "move": usi}),
        );
        assert_eq!(status, 200);
    }
    let (status, _) = server.post(&format!("/api/games/{id}/resign"), json!({"token": gote}));
    assert_eq!(status, 200);
    let text = scrape();
    assert_eq!(value(&text, "tsubame_moves_total"), 3.0);
    assert_eq!(value(&text, "tsubame_move_seconds_count"), 3.0);
    assert_eq!(value(&text, "tsubame_websockets"), 1.0);
    assert_eq!(value(&text, "tsubame_games{status=\"waiting\"}"), 1.0);
    assert_eq!(value(&text, "tsubame_games{status=\"playing\"}"), 0.0);
    assert_eq!(
        value(&text, "tsubame_games_ended_total{reason=\"resignation\"}"),
        1.0
    );
    assert!(value(&text, "tsubame_database_write_seconds_count") >= 4.0);
    drop(socket);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(value(&scrape(), "tsubame_websockets"), 0.0);
}

fn probes_and_security_headers(db: &Db) {
    let server = Server::start(db);
    for (path, body) in [("/healthz", "ok\n"), ("/readyz", "ready\n")] {
        let response = ureq::get(&format!("{}{path}", server.base))
            .call()
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.into_string().unwrap_or_default(), body, "{path}");
    }
    let script = asset_named(&server, "app-");
    for path in ["/", "/api/variants", script.as_str(), "/healthz"] {
        let response = ureq::get(&format!("{}{path}", server.base))
            .call()
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let csp = response
            .header("content-security-policy")
            .unwrap_or_default();
        assert!(csp.contains("default-src 'self'"), "{path}: {csp:?}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp:?}");
        // Sockets and requests to this site only, not to any host.
        assert!(csp.contains("connect-src 'self';"), "{path}: {csp:?}");
        assert!(
            !csp.contains("ws:") && !csp.contains("wss:"),
            "{path}: {csp:?}"
        );
        assert_eq!(
            response.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(response.header("x-frame-options"), Some("DENY"), "{path}");
    }
    // An API error keeps them too.
    match ureq::get(&format!("{}/api/nothing", server.base)).call() {
        Err(ureq::Error::Status(404, response)) => {
            assert_eq!(response.header("x-content-type-options"), Some("nosniff"));
            assert_eq!(response.header("cache-control"), Some("private, no-store"));
        }
        other => panic!("expected a 404, got {other:?}"),
    }
    // No API answer is kept by a shared cache (some are the viewer's own).
    for path in ["/api/variants", "/api/games", "/api/account"] {
        let response = ureq::get(&format!("{}{path}", server.base))
            .call()
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(
            response.header("cache-control"),
            Some("private, no-store"),
            "{path}"
        );
    }
    // A long id is not echoed back whole.
    for path in ["/api/games/", "/api/tournaments/"] {
        let (status, body) = server.get(&format!("{path}{}", "x".repeat(5000)));
        assert_eq!(status, 404, "{path}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(error.len() < 120, "{path}: {} characters", error.len());
    }
}

/// The web UI's files are served with their types; a missing file is not found (it was
/// answered with the app's page). The site's own addresses are answered with the page; any
/// other path, and a game that does not exist, with the page under a 404 (it shows its "not
/// found" view).
#[test]
fn web_files_are_served_and_missing_ones_are_not_found() {
    let server = Server::start(&Db::sqlite());
    let fetch = |path: &str| {
        let response = ureq::get(&format!("{}{path}", server.base)).call();
        match response {
            Ok(r) => (r.status(), r.content_type().to_string()),
            Err(ureq::Error::Status(code, r)) => (code, r.content_type().to_string()),
            Err(e) => panic!("{path}: {e}"),
        }
    };
    assert_eq!(fetch("/favicon.svg"), (200, "image/svg+xml".to_string()));
    assert_eq!(fetch("/"), (200, "text/html".to_string()));
    assert_eq!(fetch(&asset_named(&server, "app-")).0, 200);
    for missing in ["/favicon.ico", "/robots.txt", "/assets/missing.js"] {
        assert_eq!(fetch(missing).0, 404, "{missing}");
    }
    let (status, created) = server.post("/api/games", json!({"variant": "tori"}));
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().unwrap_or_default().to_string();
    let page = (200, "text/html".to_string());
    let not_found = (404, "text/html".to_string());
    for path in [
        "/rules/tori".to_string(),
        "/rules/tenjiku/".to_string(),
        "/puzzles/wa".to_string(),
        "/learn".to_string(),
        "/analysis".to_string(),
        "/tournaments".to_string(),
        format!("/game/{id}"),
        format!("/join/{id}/an-invite"),
    ] {
        assert_eq!(fetch(&path), page, "{path}");
    }
    for path in [
        "/games/some-route",
        "/rules/chess",
        "/game/doesnotexist",
        "/join/doesnotexist/x",
        "/nothing/here",
        "/@/someone",
        "/tournament/nothing",
        "/puzzles/tori/nothing",
    ] {
        assert_eq!(fetch(path), not_found, "{path}");
    }
}

/// The path of the asset `index.html` names that starts with `prefix` (`app-`, `style-`).
fn asset_named(server: &Server, prefix: &str) -> String {
    let page = ureq::get(&format!("{}/", server.base))
        .call()
        .expect("the page")
        .into_string()
        .expect("text");
    let start = page
        .find(&format!("/assets/{prefix}"))
        .unwrap_or_else(|| panic!("index.html names no {prefix} asset"));
    let end = page[start..].find('"').expect("a quoted name") + start;
    page[start..end].to_string()
}

/// An upgrade is seen at once: `index.html` is asked for again every time (no-cache), and it
/// names each asset by its content's hash (the first 12 hex digits of its SHA-256), so a
/// changed file has a new name; a file so named is kept a year. A file the build names by
/// hand (the font's licence) is not.
#[test]
fn assets_are_named_by_their_content_and_the_page_is_never_cached() {
    use sha2::{Digest, Sha256};
    let server = Server::start(&Db::sqlite());
    let get = |path: &str| {
        let response = ureq::get(&format!("{}{path}", server.base))
            .call()
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let cache = response
            .header("cache-control")
            .unwrap_or_default()
            .to_string();
        let mut body = Vec::new();
        std::io::Read::read_to_end(&mut response.into_reader(), &mut body).expect("body");
        (cache, body)
    };
    for page in ["/", "/rules/tori"] {
        assert_eq!(get(page).0, "no-cache", "{page}");
    }
    for prefix in ["app-", "style-", "tsubame-pieces-"] {
        let path = asset_named(&server, prefix);
        let (cache, body) = get(&path);
        assert_eq!(cache, "public, max-age=31536000, immutable", "{path}");
        let hash: String = Sha256::digest(&body)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let named = path.rsplit('-').next().unwrap_or_default();
        assert!(
            named.starts_with(&hash[..12]),
            "{path} is not named by its content ({})",
            &hash[..12]
        );
    }
    assert_eq!(get("/assets/tsubame-pieces-OFL.txt").0, "no-cache");
}

against_every_database!(
    a_client_that_leaves_stops_its_analysis,
    game_creation_is_rate_limited,
    connections_are_bounded,
    analysis_is_bounded,
    computer_clock_waits_with_its_search,
    metrics_count_games_moves_and_sockets,
    probes_and_security_headers,
    private_games_are_not_listed,
    status_codes_follow_one_rule,
    tokens_are_stored_hashed,
    draws_and_aborts,
    tori_full_game,
    wa_full_game,
    tenjiku_full_game,
    illegal_moves_change_nothing,
    wrong_tokens_are_refused,
    clock_flag_ends_the_game,
    first_move_time_aborts,
    abandoned_games_expire,
    sigterm_closes_sockets_and_keeps_the_games,
    access_log_has_requests_and_no_secrets,
    ends_are_stored_before_they_are_acknowledged,
    a_slow_write_is_not_charged_to_the_opponent,
    restart_loses_nothing,
    offers_survive_a_restart,
    engine_plays_both_levels,
    a_weak_computer_answers_at_a_persons_pace_without_holding_a_slot,
);

/// `tsubame backup` while moves are being played: every copy passes SQLite's integrity check,
/// holds every move acknowledged before it began with no gaps, and a server started on it
/// resumes the games; it never overwrites a file and never backs up a missing database.
#[test]
fn backups_are_consistent_while_games_are_played() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use tsubame_server::backup::backup_sqlite;

    let db = Db::sqlite();
    let server = Server::start(&db);
    let games: Vec<(String, String, String)> = (0..3)
        .map(|_| server.two_player_game("tori", long_clock()))
        .collect();
    let acknowledged: Arc<Vec<AtomicUsize>> =
        Arc::new(games.iter().map(|_| AtomicUsize::new(0)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let mover = {
        let (base, games, acknowledged, stop) = (
            server.base.clone(),
            games.clone(),
            acknowledged.clone(),
            stop.clone(),
        );
        std::thread::spawn(move || {
            let mut seed = 0x9e37_79b9_u64;
            while !stop.load(Ordering::Relaxed) {
                for (index, (id, sente, gote)) in games.iter().enumerate() {
                    let (_, view) = response(ureq::get(&format!("{base}/api/games/{id}")).call());
                    let legal = view["legal_moves"].as_array().cloned().unwrap_or_default();
                    if view["status"] != "playing" || legal.is_empty() {
                        continue;
                    }
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    let usi = &legal[(seed >> 33) as usize % legal.len()];
                    let token = if view["side_to_move"] == "sente" {
                        sente
                    } else {
                        gote
                    };
                    let (status, _) = response(
                        ureq::post(&format!("{base}/api/games/{id}/moves"))
                            .send_json(json!({"token": token, "move": usi})),
                    );
                    if status == 200 {
                        acknowledged[index].fetch_add(1, Ordering::SeqCst);
                    }
                }
            }
        })
    };

    let copies = tempdir::Dir::new();
    for round in 0..3 {
        std::thread::sleep(Duration::from_millis(300));
        let before: Vec<usize> = acknowledged
            .iter()
            .map(|n| n.load(Ordering::SeqCst))
            .collect();
        let out = copies.0.join(format!("backup-{round}.db"));
        let report = runtime()
            .block_on(backup_sqlite(&db.url(), &out))
            .expect("the backup is taken while moves are played");
        assert_eq!(report.games, 3);
        let copy = Db::Sqlite(tempdir::Dir::new());
        std::fs::rename(&out, copy.url().trim_start_matches("sqlite://")).expect("move the copy");
        let unfinished = games
            .iter()
            .filter(|(id, _, _)| copy.stored_result(id).0 != "finished")
            .count();
        assert_eq!(report.unfinished_games, unfinished as i64);
        let mut total = 0;
        for ((id, _, _), before) in games.iter().zip(&before) {
            let stored = copy.stored_moves(id);
            let plies: Vec<i64> = stored.iter().map(|(ply, _)| *ply).collect();
            assert_eq!(plies, (1..=stored.len() as i64).collect::<Vec<_>>());
            assert!(
                stored.len() >= *before,
                "round {round}: {} moves in the copy, {before} acknowledged before it began",
                stored.len()
            );
            total += stored.len();
        }
        assert_eq!(report.moves, total as i64);
        assert!(report.moves > 0);
        if round == 2 {
            stop.store(true, Ordering::Relaxed);
            mover.join().expect("the mover ends");
            // The copy is a working database: a server on it resumes the games.
            let restored = Server::start(&copy);
            for (id, _, _) in &games {
                let (status, view) = restored.get(&format!("/api/games/{id}"));
                assert_eq!(status, 200);
                assert_eq!(
                    view["status"].as_str(),
                    Some(copy.stored_result(id).0.as_str())
                );
                assert_eq!(
                    view["ply"].as_u64(),
                    Some(copy.stored_moves(id).len() as u64)
                );
            }
            break;
        }
    }

    let existing = copies.0.join("existing.db");
    std::fs::write(&existing, b"keep me").expect("write a file");
    let refused = runtime()
        .block_on(backup_sqlite(&db.url(), &existing))
        .expect_err("an existing file is never overwritten");
    assert!(refused.to_string().contains("already exists"), "{refused}");
    assert_eq!(std::fs::read(&existing).expect("still there"), b"keep me");
    let missing = format!("sqlite://{}", copies.0.join("no-such.db").display());
    let refused = runtime()
        .block_on(backup_sqlite(&missing, &copies.0.join("out.db")))
        .expect_err("a missing database is an error");
    assert!(
        refused.to_string().contains("no database file"),
        "{refused}"
    );
    assert!(!copies.0.join("no-such.db").exists());
    assert!(!copies.0.join("out.db").exists());
}

/// An nginx started with `deploy/nginx.conf` as docs/deploy.md gives it (TLS lines taken out: certificates
/// are nginx's business) in front of the server, when nginx is installed.
struct Nginx {
    child: Child,
    addr: String,
    _dir: tempdir::Dir,
}

impl Nginx {
    fn start(upstream: &str) -> Option<Nginx> {
        let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"]
            .into_iter()
            .find(|path| std::path::Path::new(path).exists())?;
        let free_port = || {
            std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free port")
                .port()
        };
        let (https_port, http_port) = (free_port(), free_port());
        let deployed = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../deploy/nginx.conf"
        ))
        .expect("deploy/nginx.conf");
        let site: String = deployed
            .lines()
            .filter(|line| {
                let line = line.trim();
                !line.starts_with("ssl_") && !line.starts_with("listen [::]")
            })
            .map(|line| {
                line.replace("server 127.0.0.1:8080;", &format!("server {upstream};"))
                    .replace(
                        "listen 443 ssl http2;",
                        &format!("listen 127.0.0.1:{https_port};"),
                    )
                    .replace("listen 80;", &format!("listen 127.0.0.1:{http_port};"))
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            site.contains(&format!("listen 127.0.0.1:{https_port};")),
            "{site}"
        );
        let dir = tempdir::Dir::new();
        let d = dir.0.display();
        let config = format!(
            "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
             events {{ worker_connections 256; }}\n\
             http {{\naccess_log off;\nclient_body_temp_path {d}/body;\nproxy_temp_path {d}/proxy;\n\
             fastcgi_temp_path {d}/fastcgi;\nuwsgi_temp_path {d}/uwsgi;\nscgi_temp_path {d}/scgi;\n\
             {site}\n}}\n"
        );
        std::fs::write(dir.0.join("nginx.conf"), config).expect("write nginx.conf");
        let child = Command::new(binary)
            .args(["-p", &d.to_string(), "-e", &format!("{d}/error.log"), "-c"])
            .arg(dir.0.join("nginx.conf"))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start nginx");
        let addr = format!("127.0.0.1:{https_port}");
        let until = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(&addr).is_err() {
            assert!(
                Instant::now() < until,
                "nginx did not start: see {d}/error.log"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(Nginx {
            child,
            addr,
            _dir: dir,
        })
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The deployment docs/deploy.md describes works: through nginx, requests and game WebSockets
/// reach the server, more sockets than the per-address cap are served (the proxy speaks for
/// many clients), and a client cannot forge its address past the proxy.
#[test]
fn games_are_played_through_the_documented_nginx_proxy() {
    let db = Db::sqlite();
    let server = Server::start_with(
        &db,
        &["--connections-per-address", "3", "--games-per-minute", "3"],
    );
    let Some(nginx) = Nginx::start(&server.addr) else {
        missing_under_ci("nginx");
        eprintln!("SKIPPED: nginx is not installed");
        return;
    };
    let base = format!("http://{}", nginx.addr);
    let (status, body) = response(ureq::get(&format!("{base}/healthz")).call());
    assert_eq!((status, body), (200, Value::Null));
    let (status, created) = response(
        ureq::post(&format!("{base}/api/games"))
            .set("X-Forwarded-For", "10.0.0.1")
            .send_json(json!({"variant": "tori", "opponent": "human", "clock": long_clock()})),
    );
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().expect("id").to_string();
    let (status, joined) = response(
        ureq::post(&format!("{base}/api/games/{id}/join"))
            .send_json(json!({"invite": created["invite"]})),
    );
    assert_eq!(status, 200, "{joined}");
    let sente = created["token"].as_str().expect("token").to_string();

    // Six sockets at once through the proxy, twice the per-address cap.
    let mut watchers: Vec<Socket> = (0..5).map(|_| socket_at(&nginx.addr, &id, None)).collect();
    let mut player = socket_at(&nginx.addr, &id, Some(&sente));
    let hello = player.wait_for(Duration::from_secs(5), |v| v["id"] == "auth");
    assert_eq!(hello["seat"], "sente", "{hello}");
    player.send(json!({"type": "move", "move": "3d3c", "id": 1}));
    let ack = player.wait_for(Duration::from_secs(5), |v| v["id"] == 1);
    assert_eq!(
        (ack["type"].as_str(), ack["ply"].as_u64()),
        (Some("ack"), Some(1))
    );
    for watcher in &mut watchers {
        let seen = watcher.wait_for(Duration::from_secs(5), |v| v["type"] == "move");
        assert_eq!(seen["game"]["last"]["usi"], "3d3c", "{seen}");
    }

    // The proxy appends the real peer to X-Forwarded-For: a forged header changes nothing,
    // so the fourth game of this client in a minute is refused whatever it claims.
    for forged in ["10.0.0.2", "10.0.0.3"] {
        let (status, _) = response(
            ureq::post(&format!("{base}/api/games"))
                .set("X-Forwarded-For", forged)
                .send_json(json!({"variant": "tori"})),
        );
        assert_eq!(status, 201);
    }
    let (status, refused) = response(
        ureq::post(&format!("{base}/api/games"))
            .set("X-Forwarded-For", "10.0.0.4")
            .send_json(json!({"variant": "tori"})),
    );
    assert_eq!(status, 429, "{refused}");
}

fn post_text(server: &Server, path: &str, body: &[u8]) -> (u16, Value) {
    response(ureq::post(&format!("{}{path}", server.base)).send_bytes(body))
}

/// A game's record exports as the canonical record, KIF and the play site's PGN (with its
/// result and reason), and each export imports back to the same moves; a PGN file with several
/// games imports them all; garbage is refused with the reason.
#[test]
fn records_export_and_import_in_every_format() {
    let db = Db::sqlite();
    let server = Server::start(&db);
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let moves: Vec<&str> = TORI_GAME.split_whitespace().take(10).collect();
    server.play_moves(&id, &sente, &gote, &moves);
    // Tori moves carry their Japanese (KIF) and play-site forms too.
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["moves"][0]["japanese"], "３三燕(34)");
    assert_eq!(view["moves"][0]["short"], "Sx33");
    assert_eq!(view["moves"][1]["japanese"], "同　鷹(42)");
    let (status, _) = server.post(&format!("/api/games/{id}/resign"), json!({"token": gote}));
    assert_eq!(status, 200);
    let (status, record) = server.get(&format!("/api/games/{id}/record"));
    assert_eq!(status, 200);
    let exports = &record["exports"];
    let canonical = exports["record"].as_str().expect("a canonical record");
    assert!(canonical.contains("[Result \"1-0\"]"), "{canonical}");
    assert!(
        canonical.contains("[Reason \"resignation\"]"),
        "{canonical}"
    );
    let kif = exports["kif"].as_str().expect("a Tori game has a KIF");
    let pgn = exports["pgn"].as_str().expect("a Tori game has a PGN");
    // Every record names the players, the day and the clock; gote resigned on sente's turn,
    // which KIF keeps as a comment, not as sente's 投了.
    let (sente_name, gote_name) = (
        view["sente_name"].as_str().expect("sente's name"),
        view["gote_name"].as_str().expect("gote's name"),
    );
    for line in [
        format!("先手：{sente_name}\n"),
        format!("後手：{gote_name}\n"),
        "開始日時：".to_string(),
        "持ち時間：".to_string(),
        "*後手投了\nまで10手で先手の勝ち\n".to_string(),
    ] {
        assert!(kif.contains(&line), "{line} in {kif}");
    }
    assert!(!kif.contains("  11 投了"), "{kif}");
    // What the game was, where it is, when it started and ended, and each move's time.
    let site = format!("{}/game/{id}", server.base);
    for line in [
        "棋戦：Casual Tori shogi game\n".to_string(),
        format!("場所：{site}\n"),
        "終了日時：".to_string(),
        "   1 ３三燕(34)".to_string(),
    ] {
        assert!(kif.contains(&line), "{line} in {kif}");
    }
    let timed = kif.lines().filter(|l| l.contains("/00:")).count();
    assert_eq!(timed, 10, "every move with its time: {kif}");
    for tag in [
        "[Event \"Casual Tori shogi game\"]".to_string(),
        format!("[Site \"{site}\"]"),
        "[UTCTime \"".to_string(),
        "[EndTime \"".to_string(),
    ] {
        assert!(pgn.contains(&tag), "{tag} in {pgn}");
    }
    assert!(pgn.contains(&format!("[White \"{sente_name}\"]")), "{pgn}");
    assert!(pgn.contains(&format!("[Black \"{gote_name}\"]")), "{pgn}");
    assert!(!pgn.contains("????.??.??"), "{pgn}");
    assert!(pgn.contains("[TimeControl "), "{pgn}");
    for (format, text) in [("record", canonical), ("kif", kif), ("pgn", pgn)] {
        for query in [format!("?format={format}"), String::new()] {
            let (status, imported) =
                post_text(&server, &format!("/api/import{query}"), text.as_bytes());
            assert_eq!(status, 200, "{format}{query}: {imported}");
            assert_eq!(imported["format"], format, "{query}");
            let game = &imported["games"][0];
            assert_eq!(game["usi"], json!(moves), "{format}");
            let tags = &game["tags"];
            assert_eq!(tags["result"], "1-0", "{format}");
            assert_eq!(tags["sente"], sente_name, "{format}");
            assert_eq!(tags["gote"], gote_name, "{format}");
            assert!(
                tags["date"].as_str().is_some_and(|d| d.len() >= 10),
                "{format}: {tags}"
            );
            assert!(tags["time_control"].is_string(), "{format}: {tags}");
            if format != "pgn" {
                assert_eq!(tags["reason"], "resignation", "{format}");
            }
            // Exported again, the game keeps them.
            let again = game["exports"][format].as_str().expect("exported again");
            assert!(again.contains(sente_name), "{format}: {again}");
        }
    }
    // Hodges text has no tags: the game is named in the query.
    let (status, imported) = post_text(
        &server,
        "/api/import?format=hodges&variant=tori",
        record["hodges_text"].as_str().expect("hodges").as_bytes(),
    );
    assert_eq!(status, 200, "{imported}");
    assert_eq!(imported["games"][0]["usi"], json!(moves));
    // Two games in one PGN file.
    let two = format!("{pgn}\n\n{pgn}");
    let (status, imported) = post_text(&server, "/api/import", two.as_bytes());
    assert_eq!(status, 200, "{imported}");
    assert_eq!(imported["games"].as_array().map(Vec::len), Some(2));
    // A Wa game: no KIF or play-site PGN, but its canonical record goes both ways.
    let (status, wa) = server.post(
        "/api/replay",
        json!({"variant": "wa", "moves": WA_GAME.split_whitespace().take(6).collect::<Vec<_>>()}),
    );
    assert_eq!(status, 200);
    assert_eq!(wa["exports"]["kif"], Value::Null);
    let wa_record = wa["exports"]["record"].as_str().expect("a Wa record");
    let (status, imported) = post_text(&server, "/api/import", wa_record.as_bytes());
    assert_eq!(status, 200, "{imported}");
    assert_eq!(imported["games"][0]["usi"], wa["usi"]);
    // Refusals say why.
    let (status, refused) = post_text(
        &server,
        "/api/import?format=pgn",
        b"[Event \"x\"]\n1. Zz9 *",
    );
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("pgn: ")),
        "{refused}"
    );
    let (status, refused) = post_text(&server, "/api/import?format=record", &[0xff, 0xfe, 0x00]);
    assert_eq!(status, 400, "{refused}");
    let (status, refused) = post_text(&server, "/api/import?format=docx", b"x");
    assert_eq!(status, 400, "{refused}");
}

#[test]
fn an_edited_position_is_checked_with_every_problem_named() {
    let server = Server::start(&Db::sqlite());
    // Three falcons (a set has two), two sente phoenixes, a swallow on gote's back rank,
    // three swallows on file 1: each is named.
    let (status, checked) = server.post(
        "/api/positions/check",
        json!({"variant": "tori", "sfen": "S2k3/6S/6S/6S/7/7/2K1K2 b 3F 1"}),
    );
    assert_eq!(status, 200, "{checked}");
    assert_eq!(checked["playable"], false);
    let problems: Vec<&str> = checked["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(problems.len(), 4, "{problems:?}");
    assert!(problems[0].starts_with("3 falcon pieces"), "{problems:?}");
    assert!(problems[1].contains("2 phoenix"), "{problems:?}");
    assert!(problems[2].contains("swallow on 7a"), "{problems:?}");
    assert!(
        problems[3].contains("3 swallow pieces on file 1"),
        "{problems:?}"
    );
    // The same problems by code and particulars, for a UI to name in its own language.
    let details = &checked["details"];
    assert_eq!(
        details[0],
        json!({"code": "too-many-pieces", "text": problems[0], "piece": "falcon", "count": 3, "limit": 2})
    );
    assert_eq!(
        details[1],
        json!({"code": "several-royals", "text": problems[1], "side": "sente", "piece": "phoenix", "count": 2, "limit": 1})
    );
    assert_eq!(
        details[2],
        json!({"code": "impossible-square", "text": problems[2], "side": "sente", "piece": "swallow", "square": "7a"})
    );
    assert_eq!(
        details[3],
        json!({"code": "too-many-on-file", "text": problems[3], "side": "sente", "piece": "swallow", "file": 1, "count": 3, "limit": 2})
    );
    // Mended, the same position is playable, written canonically, with its moves counted.
    let (status, checked) = server.post(
        "/api/positions/check",
        json!({"variant": "tori", "sfen": "  3k3/6S/6S/7/7/7/3K3 b F 1 "}),
    );
    assert_eq!(status, 200, "{checked}");
    assert_eq!(checked["playable"], true, "{checked}");
    assert_eq!(checked["sfen"], "3k3/6S/6S/7/7/7/3K3 b F 1");
    assert_eq!(checked["fen"], "3k3/6S/6S/7/7/7/3K3[F] w - - 0 1");
    assert!(
        checked["legal_moves"].as_u64().is_some_and(|n| n > 30),
        "{checked}"
    );
    assert_eq!(checked["check"], false);
    // The side that has just moved may not stand in check; Wa's and Tenjiku's checks too.
    let (_, checked) = server.post(
        "/api/positions/check",
        json!({"variant": "tori", "sfen": "3k3/3S3/7/7/7/7/3K3 b - 1"}),
    );
    assert_eq!(
        checked["problems"],
        json!(["gote is not to move but is in check"])
    );
    let (_, checked) = server.post(
        "/api/positions/check",
        json!({"variant": "wa", "options": "drops=off", "sfen": "5k5/11/11/11/11/11/11/11/11/11/5K5 b S 1"}),
    );
    assert_eq!(checked["playable"], false, "{checked}");
    assert!(
        checked["problems"][0]
            .as_str()
            .is_some_and(|p| p.contains("no drops")),
        "{checked}"
    );
    let (_, checked) = server.post(
        "/api/positions/check",
        json!({"variant": "tenjiku", "sfen": "P7k7/16/16/16/16/16/16/16/16/16/16/16/16/16/16/7K8 b - 1"}),
    );
    assert_eq!(checked["playable"], false, "{checked}");
    assert!(
        checked["problems"][0]
            .as_str()
            .is_some_and(|p| p.contains("could never move")),
        "{checked}"
    );
    // Every Tenjiku problem is named, not only the first: two dead pawns, a deferral mark on
    // a king, seventeen gote pawns.
    let (_, checked) = server.post(
        "/api/positions/check",
        json!({"variant": "tenjiku", "sfen": "P6k7P/16/16/16/16/16/16/16/16/16/16/16/16/pppppppppppppppp/p15/7K=8 b - 1"}),
    );
    let codes: Vec<&str> = checked["details"]
        .as_array()
        .expect("details")
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(
        codes,
        [
            "dead-piece",
            "dead-piece",
            "deferral-on-unpromotable",
            "too-many-of-family"
        ],
        "{checked}"
    );
    assert_eq!(checked["details"][0]["square"], "16a", "{checked}");
    assert_eq!(checked["details"][1]["square"], "1a", "{checked}");
    assert_eq!(checked["details"][3]["side"], "gote", "{checked}");
    assert_eq!(checked["details"][3]["count"], 17, "{checked}");
    // Text that is no position is named too; a malformed request is refused.
    let (_, checked) = server.post(
        "/api/positions/check",
        json!({"variant": "tori", "sfen": "3k3/7 b - 1"}),
    );
    assert_eq!(
        checked["problems"],
        json!(["board has 2 rank(s), expected 7"])
    );
    assert_eq!(checked["details"][0]["code"], "syntax");
    let (status, _) = server.post(
        "/api/positions/check",
        json!({"variant": "tori", "sfen": "x".repeat(5000)}),
    );
    assert_eq!(status, 400);
    let (status, _) = server.post(
        "/api/positions/check",
        json!({"variant": "chess", "sfen": ""}),
    );
    assert_eq!(status, 400);
    let (status, _) = server.post(
        "/api/positions/check",
        json!({"variant": "tori", "options": "owl=maybe", "sfen": ""}),
    );
    assert_eq!(status, 400);
}
