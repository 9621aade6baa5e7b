//! Several server instances on one PostgreSQL database (the throw-away server of
//! `scripts/with-test-postgres`; skipped, with a note, without one): a game made on one
//! instance is joined and played on the other, every instance's watchers see every move, offer,
//! chat line and end, two instances never both accept a move, a due flag is acted on by exactly
//! one of them, and when one is killed its games go on on the other, the computer's search
//! included.

use crate::common::{Db, Server, Socket, TORI_GAME, long_clock};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Two instances on one fresh PostgreSQL database, or `None` (with a note) without a server.
fn two_instances() -> Option<(Db, Server, Server)> {
    let Some(db) = Db::postgres() else {
        eprintln!(
            "SKIPPED: TSUBAME_TEST_POSTGRES is not set (scripts/test sets it once it has \
             started a local server)"
        );
        return None;
    };
    let first = Server::start(&db);
    let second = Server::start(&db);
    Some((db, first, second))
}

/// Asks `server` for `path` until `want` holds of the answer (within five seconds).
fn eventually(server: &Server, path: &str, want: impl Fn(&Value) -> bool) -> Value {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, body) = server.get(path);
        if status == 200 && want(&body) {
            return body;
        }
        assert!(
            Instant::now() < until,
            "{path} never became as wanted: {body}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The `tsubame_games_ended_total` count of `reason` in a server's metrics.
fn games_ended(server: &Server, reason: &str) -> u64 {
    let text = ureq::get(&format!("{}/metrics", server.base))
        .call()
        .expect("metrics")
        .into_string()
        .expect("text");
    let prefix = format!("tsubame_games_ended_total{{reason=\"{reason}\"}} ");
    text.lines()
        .find_map(|line| line.strip_prefix(prefix.as_str()))
        .map_or(0, |count| count.trim().parse().expect("a count"))
}

fn play(server: &Server, id: &str, token: &str, usi: &str) -> (u16, Value) {
    server.post(
        &format!("/api/games/{id}/moves"),
        json!({"token": token, "move": usi}),
    )
}

/// A spectator's socket on `server`, once it follows the game (its first state has come).
fn watch(server: &Server, id: &str) -> Socket {
    let mut socket = server.socket(id, None);
    socket.wait_for(Duration::from_secs(5), |m| m["type"] == "state");
    socket
}

/// Reads a socket's messages until one of `kind` satisfies `want`.
fn wait_event(socket: &mut Socket, kind: &str, want: impl Fn(&Value) -> bool) -> Value {
    socket.wait_for(Duration::from_secs(5), |message| {
        message["type"] == kind && want(message)
    })
}

#[test]
fn a_game_is_played_across_two_instances() {
    let Some((db, first, second)) = two_instances() else {
        return;
    };
    // A public seek made on the first instance is in the second's lobby at once.
    let (status, created) = first.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "public": true,
               "clock": long_clock()}),
    );
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().expect("id").to_string();
    let sente = created["token"].as_str().expect("token").to_string();
    eventually(&second, "/api/lobby", |lobby| {
        lobby
            .as_array()
            .is_some_and(|games| games.iter().any(|g| g["id"] == id.as_str()))
    });
    let mut watcher_first = watch(&first, &id);
    let mut watcher_second = watch(&second, &id);
    // Joined on the second: the first's watchers see the game start.
    let (status, joined) = second.post(&format!("/api/games/{id}/join"), json!({}));
    assert_eq!(status, 200, "{joined}");
    let gote = joined["token"].as_str().expect("token").to_string();
    wait_event(&mut watcher_first, "state", |m| {
        m["game"]["status"] == "playing"
    });
    let (_, listed) = first.get("/api/lobby");
    assert!(
        !listed.to_string().contains(&id),
        "a started game left the first instance's lobby too: {listed}"
    );

    // Moves alternate between the instances; each instance's watchers see every move.
    let moves = ["3d3c", "4b3c", "5e5d", "5c5d"];
    for (index, usi) in moves.iter().enumerate() {
        let (server, token) = if index % 2 == 0 {
            (&first, &sente)
        } else {
            (&second, &gote)
        };
        let (status, view) = play(server, &id, token, usi);
        assert_eq!(status, 200, "move {usi}: {view}");
        for watcher in [&mut watcher_first, &mut watcher_second] {
            let seen = wait_event(watcher, "move", |m| m["game"]["ply"] == index + 1);
            assert_eq!(seen["game"]["last"]["usi"], *usi);
        }
    }
    let (_, on_first) = first.get(&format!("/api/games/{id}"));
    let (_, on_second) = second.get(&format!("/api/games/{id}"));
    assert_eq!(on_first["sfen"], on_second["sfen"]);
    assert_eq!(on_first["moves"], on_second["moves"]);
    // Both instances run the same clock: sente's, from the same stored turn start.
    assert_eq!(on_first["clock_running"], "sente");
    let shown = |view: &Value| view["sente_clock"]["remaining_ms"].as_i64().expect("ms");
    assert!((shown(&on_first) - shown(&on_second)).abs() < 1000);

    // The same move sent to both instances at once is played once: the other is refused.
    let (left, right) = std::thread::scope(|scope| {
        let left = scope.spawn(|| play(&first, &id, &sente, "4g3f"));
        let right = scope.spawn(|| play(&second, &id, &sente, "4g3f"));
        (
            left.join().expect("first request"),
            right.join().expect("second request"),
        )
    });
    let mut statuses = [left.0, right.0];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 409], "{left:?} {right:?}");
    assert_eq!(db.stored_moves(&id).len(), 5);
    let (status, view) = play(&second, &id, &gote, "4a3b");
    assert_eq!(status, 200, "the loser's instance follows the game: {view}");

    // A draw offer made on one instance is seen, declined and stored through the other.
    let (status, view) = first.post(
        &format!("/api/games/{id}/draw"),
        json!({"token": sente, "action": "offer"}),
    );
    assert_eq!(status, 200, "{view}");
    wait_event(&mut watcher_second, "state", |m| {
        m["game"]["draw_offer"] == "sente"
    });
    let (status, view) = second.post(
        &format!("/api/games/{id}/draw"),
        json!({"token": gote, "action": "decline"}),
    );
    assert_eq!(status, 200, "{view}");
    wait_event(&mut watcher_first, "state", |m| {
        m["game"]["draw_offer"].is_null()
    });

    // Chat said on one instance reaches the players' sockets on the other.
    let mut gote_socket = second.socket(&id, Some(&gote));
    gote_socket.wait_for(Duration::from_secs(5), |m| m["type"] == "chat_history");
    let (status, line) = first.post(
        &format!("/api/games/{id}/chat"),
        json!({"token": sente, "text": "good luck"}),
    );
    assert_eq!(status, 201, "{line}");
    let heard = wait_event(&mut gote_socket, "chat", |_| true);
    assert_eq!(heard["line"]["text"], "good luck");
    assert_eq!(heard["line"]["room"], "players");

    // The first instance dies mid-game: the game goes on on the second, nothing acknowledged
    // lost, and a socket there sees the moves.
    first.kill9();
    let (status, view) = play(&second, &id, &sente, "S*3d");
    assert_eq!(status, 200, "{view}");
    wait_event(&mut watcher_second, "move", |m| m["game"]["ply"] == 7);
    let stored: Vec<String> = db
        .stored_moves(&id)
        .into_iter()
        .map(|(_, usi)| usi)
        .collect();
    assert_eq!(
        stored,
        ["3d3c", "4b3c", "5e5d", "5c5d", "4g3f", "4a3b", "S*3d"]
    );
    // A new instance started meanwhile resumes it with the same clock and takes the next move.
    let third = Server::start(&db);
    let (status, view) = play(&third, &id, &gote, "3c2b");
    assert_eq!(status, 200, "{view}");
    wait_event(&mut watcher_second, "move", |m| m["game"]["ply"] == 8);
    // Resigned on the second: the new instance's watchers see the end.
    let mut watcher_third = watch(&third, &id);
    let (status, view) = second.post(&format!("/api/games/{id}/resign"), json!({"token": sente}));
    assert_eq!(status, 200, "{view}");
    let end = wait_event(&mut watcher_third, "end", |_| true);
    assert_eq!(end["game"]["result"]["reason"], "resignation");
    assert_eq!(end["game"]["result"]["winner"], "gote");
    assert_eq!(db.stored_result(&id).2.as_deref(), Some("resignation"));
}

/// A whole game, its moves alternating between the instances: the mate made on one ends the
/// game on the other's sockets too, and no socket is ever told of a game in play with no
/// legal move (the mating move comes with the end, not before it).
#[test]
fn a_mate_made_on_one_instance_ends_the_game_on_both() {
    let Some((db, first, second)) = two_instances() else {
        return;
    };
    let (id, sente, gote) = first.two_player_game("tori", long_clock());
    let mut watchers = [watch(&first, &id), watch(&second, &id)];
    let moves: Vec<&str> = TORI_GAME.split_whitespace().collect();
    for (index, usi) in moves.iter().enumerate() {
        let server = if index % 3 == 0 { &first } else { &second };
        let token = if index % 2 == 0 { &sente } else { &gote };
        let (status, view) = play(server, &id, token, usi);
        assert_eq!(status, 200, "move {} ({usi}): {view}", index + 1);
    }
    for watcher in &mut watchers {
        let end = watcher.wait_for(Duration::from_secs(5), |m| {
            let playing_without_moves = m["game"]["status"] == "playing"
                && m["game"]["legal_moves"]
                    .as_array()
                    .is_some_and(Vec::is_empty);
            assert!(
                !playing_without_moves,
                "a game in play with no legal move: {m}"
            );
            m["type"] == "end"
        });
        assert_eq!(end["game"]["result"]["reason"], "checkmate");
        assert_eq!(end["game"]["result"]["winner"], "gote");
        assert_eq!(end["game"]["ply"], moves.len());
    }
    assert_eq!(db.stored_result(&id).2.as_deref(), Some("checkmate"));
}

#[test]
fn a_flag_falls_once_whichever_instance_sees_it() {
    let Some((db, first, second)) = two_instances() else {
        return;
    };
    let clock = json!({"kind": "byoyomi", "main_ms": 300, "periods": 1, "period_ms": 300});
    let (id, sente, gote) = first.two_player_game("tori", clock);
    let mut watcher_first = watch(&first, &id);
    let mut watcher_second = watch(&second, &id);
    for (server, token, usi) in [
        (&first, &sente, "3d3c"),
        (&second, &gote, "4b3c"),
        (&first, &sente, "5e5d"),
    ] {
        let (status, view) = play(server, &id, token, usi);
        assert_eq!(status, 200, "{view}");
    }
    // Gote never moves: 600 ms later its flag falls, on both instances' sockets.
    for watcher in [&mut watcher_first, &mut watcher_second] {
        let end = watcher.wait_for(Duration::from_secs(5), |m| m["type"] == "end");
        assert_eq!(end["game"]["result"]["reason"], "time");
        assert_eq!(end["game"]["result"]["winner"], "sente");
    }
    let result = db.stored_result(&id);
    assert_eq!(result.0, "finished");
    assert_eq!(result.2.as_deref(), Some("time"));
    // Exactly one instance ended it.
    assert_eq!(
        games_ended(&first, "time") + games_ended(&second, "time"),
        1
    );
}

#[test]
fn a_computer_move_lost_with_its_instance_is_searched_by_another() {
    let Some((db, first, second)) = two_instances() else {
        return;
    };
    // Tenjiku at the strongest level: the search takes seconds, so the instance that started
    // it is killed while it thinks.
    let (status, created) = first.post(
        "/api/games",
        json!({"variant": "tenjiku", "opponent": "engine", "level": 8,
               "clock": long_clock()}),
    );
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().expect("id").to_string();
    let token = created["token"].as_str().expect("token").to_string();
    let (_, view) = first.get(&format!("/api/games/{id}"));
    let opening = view["legal_moves"][0]
        .as_str()
        .expect("a legal move")
        .to_string();
    let (status, view) = play(&first, &id, &token, &opening);
    assert_eq!(status, 200, "{view}");
    let moved_at = Instant::now();
    let mut watcher = watch(&second, &id);
    std::thread::sleep(Duration::from_millis(500));
    first.kill9();
    assert_eq!(
        db.stored_moves(&id).len(),
        1,
        "killed before the computer moved"
    );
    // Overdue after 10 s: the second instance searches the move again and plays it.
    let answer = watcher.wait_for(Duration::from_secs(40), |m| {
        m["type"] == "move" && m["game"]["ply"] == 2
    });
    assert!(moved_at.elapsed() >= Duration::from_secs(9));
    assert_eq!(answer["game"]["side_to_move"], "sente");
    assert_eq!(db.stored_moves(&id).len(), 2);
    // And the game goes on there.
    let legal = answer["game"]["legal_moves"][0]
        .as_str()
        .expect("a legal move");
    let (status, view) = play(&second, &id, &token, legal);
    assert_eq!(status, 200, "{view}");
}
