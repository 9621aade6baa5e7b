//! Challenges to a named player: made from one account to another, streamed to the player
//! challenged at once (on any instance), accepted by that player alone, declined, withdrawn,
//! refused when blocked or too many wait. Against SQLite and (when `TSUBAME_TEST_POSTGRES`
//! names a server) PostgreSQL.

use crate::common::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::Duration;

const PASSWORD: &str = "correct horse battery";

fn sign_up_from(browser: &mut Browser, name: &str, address: &str) {
    browser.sign_up_from(name, PASSWORD, address);
}

fn error_of(body: &Value) -> &str {
    body["error"].as_str().unwrap_or_default()
}

/// A browser's stream of challenge lists (`/api/challenges/events`): each `challenges` event's
/// data, as it comes.
struct ChallengeStream {
    lists: mpsc::Receiver<Value>,
}

impl ChallengeStream {
    fn open(browser: &Browser) -> ChallengeStream {
        let mut request = ureq::get(&format!("{}/api/challenges/events", browser.server.base))
            .set("sec-fetch-site", "same-origin");
        if let Some(cookie) = &browser.cookie {
            request = request.set("Cookie", cookie);
        }
        let response = request.call().expect("the challenge stream opens");
        assert_eq!(
            response.header("content-type"),
            Some("text/event-stream"),
            "a stream of server-sent events"
        );
        let (send, lists) = mpsc::channel();
        std::thread::spawn(move || {
            let mut event = String::new();
            for line in BufReader::new(response.into_reader()).lines() {
                let Ok(line) = line else { return };
                if let Some(name) = line.strip_prefix("event: ") {
                    event = name.to_string();
                } else if let Some(data) = line.strip_prefix("data: ")
                    && event == "challenges"
                    && send
                        .send(serde_json::from_str(data).expect("a JSON list"))
                        .is_err()
                {
                    return;
                }
            }
        });
        ChallengeStream { lists }
    }

    /// The next list the stream sends, within a few seconds.
    fn next(&self) -> Value {
        self.lists
            .recv_timeout(Duration::from_secs(5))
            .expect("the stream sends the changed list within 5 s")
    }
}

fn incoming_from(list: &Value) -> Vec<&str> {
    list["incoming"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["from"].as_str().unwrap())
        .collect()
}

/// A challenge from alice to bob, seen by bob's stream at once, taken by bob alone; one to
/// carol declined; one withdrawn; refusals for the blocked, oneself, nobody, the logged out,
/// a second challenge between the same two, and more than five waiting.
fn challenge_accept_decline_withdraw(db: &Db) {
    let server = Server::start(db);
    let mut alice = Browser::new(&server);
    let mut bob = Browser::new(&server);
    let mut carol = Browser::new(&server);
    sign_up_from(&mut alice, "alice", "10.9.0.1");
    sign_up_from(&mut bob, "bob", "10.9.0.2");
    sign_up_from(&mut carol, "carol", "10.9.0.3");
    let tori = json!({"variant": "tori", "clock": long_clock(), "side": "sente", "rated": true});

    let mut nobody = Browser::new(&server);
    let (status, body) = nobody.post("/api/players/bob/challenge", tori.clone());
    assert_eq!(status, 403, "{body}");
    assert!(error_of(&body).contains("log in"), "{body}");
    let (status, body) = alice.post("/api/players/alice/challenge", tori.clone());
    assert_eq!(status, 400, "{body}");
    let (status, body) = alice.post("/api/players/nobody_here/challenge", tori.clone());
    assert_eq!(status, 404, "{body}");
    let (status, body) = alice.post(
        "/api/players/bob/challenge",
        json!({"variant": "chess", "clock": long_clock()}),
    );
    assert_eq!(status, 400, "{body}");
    let (status, body) = alice.post(
        "/api/players/bob/challenge",
        json!({"variant": "tori", "side": "left"}),
    );
    assert_eq!(status, 400, "{body}");
    assert!(error_of(&body).contains("side"), "{body}");

    // Bob's stream starts with nothing waiting, then shows alice's challenge.
    let bob_stream = ChallengeStream::open(&bob);
    assert_eq!(
        bob_stream.next(),
        json!({"incoming": [], "outgoing": [], "arena_games": []})
    );
    let (status, grant) = alice.post("/api/players/bob/challenge", tori.clone());
    assert_eq!(status, 201, "{grant}");
    assert_eq!(grant["seat"], "sente");
    assert!(
        grant.get("invite").is_none(),
        "a challenge has no invite: {grant}"
    );
    let game = grant["game_id"].as_str().unwrap().to_string();
    let list = bob_stream.next();
    assert_eq!(incoming_from(&list), ["alice"], "{list}");
    let challenge = &list["incoming"][0];
    assert_eq!(challenge["game_id"], game.as_str());
    assert_eq!(challenge["to"], "bob");
    assert_eq!(challenge["from_side"], "sente");
    assert_eq!(challenge["game"]["variant"], "tori");
    assert_eq!(challenge["game"]["rated"], true);
    assert_eq!(challenge["game"]["status"], "waiting");
    assert_eq!(challenge["game"]["challenge_to"], "bob");
    let (_, listed) = alice.get("/api/challenges");
    assert_eq!(listed["outgoing"][0]["game_id"], game.as_str(), "{listed}");
    assert_eq!(listed["incoming"], json!([]));
    let (status, _) = nobody.get("/api/challenges");
    assert_eq!(status, 403);
    // Not in the lobby: it is bob's to answer.
    let (_, lobby) = server.get("/api/lobby");
    assert!(
        lobby
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["id"] != game.as_str()),
        "{lobby}"
    );

    // Nobody but bob can take the seat or decline; a second challenge between them waits for
    // the first.
    let (status, body) = carol.post(&format!("/api/games/{game}/join"), json!({}));
    assert_eq!(status, 403, "{body}");
    assert!(error_of(&body).contains("for bob"), "{body}");
    let (status, body) = carol.post(&format!("/api/games/{game}/decline"), json!({}));
    assert_eq!(status, 403, "{body}");
    let (status, body) = nobody.post(&format!("/api/games/{game}/join"), json!({}));
    assert_eq!(status, 403, "{body}");
    let (status, body) = alice.post("/api/players/bob/challenge", tori.clone());
    assert_eq!(status, 409, "{body}");
    let (status, body) = bob.post("/api/players/alice/challenge", tori.clone());
    assert_eq!(status, 409, "{body}");

    // Bob accepts: a rated game, alice sente, and the challenge leaves both lists.
    let (status, seat) = bob.post(&format!("/api/games/{game}/join"), json!({}));
    assert_eq!(status, 200, "{seat}");
    assert_eq!(seat["seat"], "gote");
    assert_eq!(
        bob_stream.next(),
        json!({"incoming": [], "outgoing": [], "arena_games": []})
    );
    let (_, view) = server.get(&format!("/api/games/{game}"));
    assert_eq!(view["status"], "playing");
    assert_eq!(view["sente_name"], "alice");
    assert_eq!(view["gote_name"], "bob");
    assert_eq!(view["rated"], true);
    let (status, body) = bob.post(&format!("/api/games/{game}/decline"), json!({}));
    assert_eq!(status, 409, "{body}");
    let (status, body) = bob.post(&format!("/api/games/{game}/moves"), json!({"move": "3d3c"}));
    assert_eq!(status, 409, "alice moves first: {body}");

    // Carol declines hers: the game ends as declined.
    let (status, grant) = alice.post(
        "/api/players/carol/challenge",
        json!({"variant": "wa", "side": "gote"}),
    );
    assert_eq!(status, 201, "{grant}");
    let declined = grant["game_id"].as_str().unwrap().to_string();
    let (_, list) = carol.get("/api/challenges");
    assert_eq!(incoming_from(&list), ["alice"]);
    assert_eq!(list["incoming"][0]["from_side"], "gote");
    let (status, view) = carol.post(&format!("/api/games/{declined}/decline"), json!({}));
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"]["reason"], "declined");
    assert_eq!(view["result"]["winner"], Value::Null);
    assert_eq!(db.stored_result(&declined).0, "finished");
    let (_, list) = alice.get("/api/challenges");
    assert_eq!(
        list,
        json!({"incoming": [], "outgoing": [], "arena_games": []})
    );
    let (status, body) = carol.post(&format!("/api/games/{declined}/join"), json!({}));
    assert_eq!(status, 409, "{body}");

    // Alice withdraws one: aborted, and gone from bob's stream.
    let (status, grant) = carol.post("/api/players/bob/challenge", json!({"variant": "tori"}));
    assert_eq!(status, 201, "{grant}");
    let withdrawn = grant["game_id"].as_str().unwrap().to_string();
    assert_eq!(incoming_from(&bob_stream.next()), ["carol"]);
    let (status, view) = carol.post(&format!("/api/games/{withdrawn}/abort"), json!({}));
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["result"]["reason"], "aborted");
    assert_eq!(
        bob_stream.next(),
        json!({"incoming": [], "outgoing": [], "arena_games": []})
    );

    // A player who blocks the challenger takes no challenge from them.
    let (status, _) = carol.post("/api/players/alice/block", json!({}));
    assert_eq!(status, 200);
    let (status, body) = alice.post("/api/players/carol/challenge", json!({"variant": "tori"}));
    assert_eq!(status, 403, "{body}");
    assert!(error_of(&body).contains("challenges from you"), "{body}");

    // At most five waiting.
    let mut others = Vec::new();
    for n in 0..6 {
        let mut other = Browser::new(&server);
        sign_up_from(&mut other, &format!("player{n}"), &format!("10.9.1.{n}"));
        others.push(other);
    }
    for n in 0..5 {
        let (status, body) = alice.post(
            &format!("/api/players/player{n}/challenge"),
            json!({"variant": "tori"}),
        );
        assert_eq!(status, 201, "challenge {n}: {body}");
    }
    let (status, body) = alice.post("/api/players/player5/challenge", json!({"variant": "tori"}));
    assert_eq!(status, 409, "{body}");
    assert!(error_of(&body).contains("withdraw one"), "{body}");
    let (_, list) = alice.get("/api/challenges");
    assert_eq!(list["outgoing"].as_array().unwrap().len(), 5);
}

/// On two instances of one PostgreSQL database (the throw-away server of
/// `scripts/with-test-postgres`; skipped, with a note, without one): a challenge made on one
/// reaches the stream of the player challenged on the other at once, and is accepted there.
#[test]
fn a_challenge_crosses_instances() {
    let Some(db) = Db::postgres() else {
        eprintln!("SKIPPED: TSUBAME_TEST_POSTGRES is not set");
        return;
    };
    let first = Server::start(&db);
    let second = Server::start(&db);
    let mut alice = Browser::new(&first);
    let mut bob = Browser::new(&first);
    sign_up_from(&mut alice, "alice", "10.9.2.1");
    sign_up_from(&mut bob, "bob", "10.9.2.2");
    let mut bob_elsewhere = Browser::new(&second);
    bob_elsewhere.cookie = bob.cookie.clone();
    let stream = ChallengeStream::open(&bob_elsewhere);
    assert_eq!(
        stream.next(),
        json!({"incoming": [], "outgoing": [], "arena_games": []})
    );
    let (status, grant) = alice.post(
        "/api/players/bob/challenge",
        json!({"variant": "tenjiku", "clock": long_clock(), "side": "gote"}),
    );
    assert_eq!(status, 201, "{grant}");
    let game = grant["game_id"].as_str().unwrap().to_string();
    let list = stream.next();
    assert_eq!(incoming_from(&list), ["alice"], "{list}");
    assert_eq!(list["incoming"][0]["game"]["variant"], "tenjiku");
    let (status, seat) = bob_elsewhere.post(&format!("/api/games/{game}/join"), json!({}));
    assert_eq!(status, 200, "{seat}");
    assert_eq!(seat["seat"], "sente");
    assert_eq!(
        stream.next(),
        json!({"incoming": [], "outgoing": [], "arena_games": []})
    );
    // The first instance hears of it within moments.
    let until = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (_, view) = first.get(&format!("/api/games/{game}"));
        if view["status"] == "playing" {
            break;
        }
        assert!(std::time::Instant::now() < until, "{view}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

against_every_database!(challenge_accept_decline_withdraw);
