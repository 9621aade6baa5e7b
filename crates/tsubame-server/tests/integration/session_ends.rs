//! Ending a session ends what it opened: after a logout (here or everywhere), a password
//! change, an administrator closing the account or its deletion, every game and tournament
//! socket and challenge stream the session opened closes (4001) within a second, on every
//! instance, and nothing it sends afterwards acts. Against SQLite and (when
//! `TSUBAME_TEST_POSTGRES` names a server) PostgreSQL, and across two instances.

use crate::common::*;
use serde_json::{Value, json};
use std::io::Read;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tsubame_server::cli::{AdminAction, AdminArgs, run_admin};

const PASSWORD: &str = "correct horse battery";
const NEW_PASSWORD: &str = "staple battery horse";

/// The close code of a socket whose session ended.
const SESSION_ENDED: u16 = 4001;

/// How a session of the player's laptop is ended.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ending {
    LogOutHere,
    LogOutEverywhere,
    PasswordChange,
    ClosedByAdministrator,
    Deleted,
}

/// A game of `alice` (sente) against `bob` made by invite: its id.
fn game_between(alice: &mut Browser, bob: &mut Browser) -> String {
    let (status, created) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "clock": long_clock()}),
    );
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().expect("id").to_string();
    let (status, joined) = bob.post(
        &format!("/api/games/{id}/join"),
        json!({"invite": created["invite"]}),
    );
    assert_eq!(status, 200, "{joined}");
    id
}

/// A browser's socket for a game, once its hello came: the seat it holds.
fn seated_socket(browser: &Browser, game: &str) -> (Socket, Value) {
    let mut socket = browser.socket(game);
    let hello = socket.wait_for(Duration::from_secs(5), |m| m["type"] == "hello");
    socket.wait_for(Duration::from_secs(5), |m| m["type"] == "state");
    (socket, hello["seat"].clone())
}

/// A browser's tournament socket, once its first view came.
fn tournament_socket(browser: &Browser, tournament: &str) -> Socket {
    use tungstenite::client::IntoClientRequest;
    let url = format!(
        "ws://{}/api/tournaments/{tournament}/ws",
        browser.server.addr
    );
    let mut request = url.into_client_request().expect("request");
    let cookie = browser.cookie.as_deref().expect("logged in");
    request
        .headers_mut()
        .insert("cookie", cookie.parse().expect("cookie"));
    let origin = format!("http://{}", browser.server.addr);
    request
        .headers_mut()
        .insert("origin", origin.parse().expect("origin"));
    let mut socket = Socket::connect(request);
    socket.wait_for(Duration::from_secs(5), |m| m["type"] == "tournament");
    socket
}

/// Opens a browser's challenge stream; the receiver hears once the stream has ended (the
/// server closed it), with how many bytes came.
fn challenge_stream(browser: &Browser) -> mpsc::Receiver<usize> {
    let url = format!("{}/api/challenges/events", browser.server.base);
    let cookie = browser.cookie.clone().expect("logged in");
    let (opened_tx, opened) = mpsc::channel();
    let (ended_tx, ended) = mpsc::channel();
    std::thread::spawn(move || {
        let response = ureq::get(&url)
            .set("cookie", &cookie)
            .set("sec-fetch-site", "same-origin")
            .call()
            .expect("the challenge stream");
        let mut body = response.into_reader();
        let mut first = [0u8; 1];
        body.read_exact(&mut first).expect("the first event");
        let _ = opened_tx.send(());
        let mut rest = Vec::new();
        let _ = body.read_to_end(&mut rest);
        let _ = ended_tx.send(rest.len() + 1);
    });
    opened
        .recv_timeout(Duration::from_secs(5))
        .expect("the stream's first event");
    ended
}

/// Reads a socket until the server closes it, within `limit`: the close code, and the
/// messages that came before it.
fn close_of(socket: &mut Socket, limit: Duration) -> (Option<u16>, Vec<Value>) {
    let until = Instant::now() + limit;
    let mut before = Vec::new();
    while Instant::now() < until {
        match socket.next_message() {
            Ok(Some(tungstenite::Message::Close(frame))) => {
                return (frame.map(|f| u16::from(f.code)), before);
            }
            Ok(Some(tungstenite::Message::Text(text))) => {
                before.push(serde_json::from_str(text.as_str()).expect("json"));
            }
            Ok(_) => {}
            Err(e) => panic!("the socket failed without a close frame: {e}"),
        }
    }
    panic!("the socket was not closed within {limit:?}; it sent {before:?}");
}

/// The administrator's browser and the tournament whose socket the players open.
struct Site<'a> {
    admin: Browser<'a>,
    tournament: String,
}

fn site<'a>(server: &'a Server, db: &Db) -> Site<'a> {
    let mut admin = Browser::new(server);
    admin.sign_up_from("the_admin", PASSWORD, "10.7.0.1");
    run_admin(&AdminArgs {
        database: db.url(),
        action: AdminAction::Grant {
            name: "the_admin".into(),
        },
    })
    .expect("granted");
    let (status, made) = admin.post(
        "/api/tournaments",
        json!({"name": "Evening arena", "variant": "tori", "minutes": 30,
               "starts_in_seconds": 3600,
               "clock": {"kind": "fischer", "main_ms": 180000, "increment_ms": 2000}}),
    );
    assert_eq!(status, 201, "{made}");
    let tournament = made["id"].as_str().expect("id").to_string();
    Site { admin, tournament }
}

/// One way of ending a session, checked end to end: the laptop's game socket, tournament
/// socket and challenge stream close within a second, and what its socket sent after the
/// end did not act; a session the ending keeps goes on.
fn ending_closes_what_the_session_opened(server: &Server, site: &mut Site, ending: Ending) {
    let n = ending as usize;
    let alice_name = format!("alice_{n}");
    let mut laptop = Browser::new(server);
    laptop.sign_up_from(&alice_name, PASSWORD, &format!("10.7.1.{n}"));
    let mut phone = Browser::new(server);
    let (status, body) = phone.post(
        "/api/account/login",
        json!({"username": alice_name, "password": PASSWORD}),
    );
    assert_eq!(status, 200, "{body}");
    let mut bob = Browser::new(server);
    bob.sign_up_from(&format!("bob_{n}"), PASSWORD, &format!("10.7.2.{n}"));
    let game = game_between(&mut laptop, &mut bob);
    if ending == Ending::Deleted {
        // An account with a game in play cannot be deleted: this one is over.
        let (status, body) = bob.post(&format!("/api/games/{game}/resign"), json!({}));
        assert_eq!(status, 200, "{body}");
    }

    let (mut socket, seat) = seated_socket(&laptop, &game);
    assert_eq!(seat, "sente", "the laptop's cookie holds the seat");
    let (mut phone_socket, _) = seated_socket(&phone, &game);
    let mut arena_socket = tournament_socket(&laptop, &site.tournament);
    let stream_ended = challenge_stream(&laptop);

    let (status, body) = match ending {
        Ending::LogOutHere => laptop.post("/api/account/logout", json!({})),
        Ending::LogOutEverywhere => phone.post("/api/account/logout-everywhere", json!({})),
        Ending::PasswordChange => phone.post(
            "/api/account/password",
            json!({"current_password": PASSWORD, "new_password": NEW_PASSWORD}),
        ),
        Ending::ClosedByAdministrator => site
            .admin
            .post(&format!("/api/admin/players/{alice_name}/close"), json!({})),
        Ending::Deleted => phone.post("/api/account/delete", json!({"password": PASSWORD})),
    };
    assert_eq!(status, 200, "{ending:?}: {body}");
    let ended_at = Instant::now();
    // What the old socket sends now must not act (a send may also find it closed already).
    let late = [
        if ending == Ending::Deleted {
            json!({"type": "rematch", "action": "offer", "id": "late-rematch"})
        } else {
            json!({"type": "move", "move": "3d3c", "id": "late-move"})
        },
        json!({"type": "chat", "text": "still here", "id": "late-chat"}),
        json!({"type": "resign", "id": "late-resign"}),
    ];
    for message in late {
        let _ = socket
            .0
            .send(tungstenite::Message::Text(message.to_string().into()));
    }

    let (code, before) = close_of(&mut socket, Duration::from_secs(2));
    assert_eq!(code, Some(SESSION_ENDED), "{ending:?}");
    assert!(
        ended_at.elapsed() < Duration::from_secs(1),
        "{ending:?}: closed after {:?}",
        ended_at.elapsed()
    );
    assert!(
        before.iter().all(|m| m["type"] != "ack"),
        "{ending:?}: a message after the end was acknowledged: {before:?}"
    );
    let (code, _) = close_of(&mut arena_socket, Duration::from_secs(1));
    assert_eq!(
        code,
        Some(SESSION_ENDED),
        "{ending:?}: the tournament socket"
    );
    stream_ended
        .recv_timeout(Duration::from_secs(1))
        .unwrap_or_else(|_| panic!("{ending:?}: the challenge stream went on"));

    // Nothing acted: no move, no chat line, no resignation, no rematch offer.
    let (_, view) = bob.get(&format!("/api/games/{game}"));
    assert_eq!(view["ply"], 0, "{ending:?}: {view}");
    if ending == Ending::Deleted {
        assert_eq!(view["rematch_offer"], Value::Null, "{view}");
    } else {
        assert_eq!(view["status"], "playing", "{ending:?}: {view}");
    }
    let (_, chat) = bob.get(&format!("/api/games/{game}/chat"));
    assert!(
        !chat.to_string().contains("still here"),
        "{ending:?}: {chat}"
    );

    // A password change keeps the session that made it: its socket still acts.
    if ending == Ending::PasswordChange {
        phone_socket.send(json!({"type": "move", "move": "3d3c", "id": "phone-move"}));
        let ack = phone_socket.wait_for(Duration::from_secs(5), |m| m["id"] == "phone-move");
        assert_eq!(ack["type"], "ack", "{ack}");
    } else if ending != Ending::LogOutHere {
        let (code, _) = close_of(&mut phone_socket, Duration::from_secs(1));
        assert_eq!(code, Some(SESSION_ENDED), "{ending:?}: the phone's socket");
    }

    // A socket opened again with the old cookie is a spectator's.
    let (_, seat) = seated_socket(&laptop, &game);
    assert_eq!(seat, Value::Null, "{ending:?}");
}

fn every_ending_closes_what_the_session_opened(db: &Db) {
    let server = Server::start(db);
    let mut site = site(&server, db);
    for ending in [
        Ending::LogOutHere,
        Ending::LogOutEverywhere,
        Ending::PasswordChange,
        Ending::ClosedByAdministrator,
        Ending::Deleted,
    ] {
        ending_closes_what_the_session_opened(&server, &mut site, ending);
    }
}

/// A session that expires closes its sockets too.
fn an_expired_session_closes_its_socket(db: &Db) {
    let server = Server::start_with(db, &["--session-seconds", "3"]);
    let mut alice = Browser::new(&server);
    alice.sign_up("alice", PASSWORD);
    let mut bob = Browser::new(&server);
    bob.sign_up("bob", PASSWORD);
    let game = game_between(&mut alice, &mut bob);
    let (mut socket, seat) = seated_socket(&alice, &game);
    assert_eq!(seat, "sente");
    let (code, _) = close_of(&mut socket, Duration::from_secs(6));
    assert_eq!(code, Some(SESSION_ENDED));
}

/// On two instances of one database, a logout on one closes the socket the session opened
/// on the other within a second.
#[test]
fn a_logout_on_one_instance_closes_the_sockets_on_another() {
    let Some(db) = Db::postgres() else {
        eprintln!("SKIPPED: TSUBAME_TEST_POSTGRES is not set");
        return;
    };
    let first = Server::start(&db);
    let second = Server::start(&db);
    let mut alice = Browser::new(&first);
    alice.sign_up("alice", PASSWORD);
    let mut bob = Browser::new(&first);
    bob.sign_up("bob", PASSWORD);
    let game = game_between(&mut alice, &mut bob);
    // The same browser, talking to the second instance.
    let mut alice_there = Browser::new(&second);
    alice_there.cookie = alice.cookie.clone();
    let (_, view) = alice_there.get(&format!("/api/games/{game}"));
    assert_eq!(view["you"], "sente", "{view}");
    let (mut socket, seat) = seated_socket(&alice_there, &game);
    assert_eq!(seat, "sente");
    let stream_ended = challenge_stream(&alice_there);

    let (status, body) = alice.post("/api/account/logout-everywhere", json!({}));
    assert_eq!(status, 200, "{body}");
    let ended_at = Instant::now();
    let (code, _) = close_of(&mut socket, Duration::from_secs(2));
    assert_eq!(code, Some(SESSION_ENDED));
    assert!(
        ended_at.elapsed() < Duration::from_secs(1),
        "closed after {:?}",
        ended_at.elapsed()
    );
    stream_ended
        .recv_timeout(Duration::from_secs(1))
        .expect("the challenge stream on the other instance ended");
}

against_every_database!(
    every_ending_closes_what_the_session_opened,
    an_expired_session_closes_its_socket,
);
