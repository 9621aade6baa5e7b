//! Accounts over the real server: sign-up, login, sessions, seats held by a login, guests,
//! cross-site protection and login limits, against SQLite and (when `TSUBAME_TEST_POSTGRES`
//! names a server) PostgreSQL.

use crate::common::*;
use serde_json::{Value, json};
use std::time::Duration;

const PASSWORD: &str = "correct horse battery";

/// Sign-up, who-am-I, login and logout, names unique without regard to case, bad names and
/// passwords refused, sessions that survive a restart, and nothing secret stored in plain.
fn sign_up_log_in_and_out(db: &Db) {
    let server = Server::start(db);
    let mut alice = Browser::new(&server);
    let signed_up = alice.sign_up("Alice_1", PASSWORD);
    assert_eq!(signed_up["account"]["username"], "Alice_1");
    let cookie_header = alice.last_set_cookie.clone().expect("a cookie is set");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=2592000"] {
        assert!(cookie_header.contains(attribute), "{cookie_header}");
    }
    let (status, me) = alice.get("/api/account");
    assert_eq!(status, 200);
    assert_eq!(me["account"]["username"], "Alice_1");
    assert_eq!(me["your_turn"], 0);

    // Without the cookie nobody is logged in.
    let (_, nobody) = server.get("/api/account");
    assert_eq!(nobody["account"], Value::Null);

    // The name is taken in any case.
    let mut other = Browser::new(&server);
    let (status, body) = other.post(
        "/api/account/signup",
        json!({"username": "alice_1", "password": PASSWORD}),
    );
    assert_eq!(status, 409, "{body}");
    assert!(body["error"].as_str().unwrap().contains("taken"));

    for (name, password, what) in [
        ("ab", PASSWORD, "characters"),
        (&*"x".repeat(21), PASSWORD, "characters"),
        ("two words", PASSWORD, "letters"),
        ("<b>bold</b>", PASSWORD, "letters"),
        ("名人名人", PASSWORD, "letters"),
        ("Guest-abcde", PASSWORD, "guests"),
        ("bob_2", "", "at least 8"),
        ("bob_2", "short", "at least 8"),
        ("bob_2", &*"p".repeat(5000), "at most"),
    ] {
        let (status, body) = other.post(
            "/api/account/signup",
            json!({"username": name, "password": password}),
        );
        assert_eq!(status, 400, "{name:?}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains(what),
            "{name:?}: {body}"
        );
    }
    let (status, body) = other.post("/api/account/signup", json!({"username": "bob_2"}));
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("password"),
        "{body}"
    );
    assert!(other.cookie.is_none());

    // A wrong password and an unknown name get the same answer.
    let (wrong_password_status, wrong_password) = other.post(
        "/api/account/login",
        json!({"username": "Alice_1", "password": "not the password"}),
    );
    let (unknown_name_status, unknown_name) = other.post(
        "/api/account/login",
        json!({"username": "nobody_here", "password": PASSWORD}),
    );
    assert_eq!(wrong_password_status, 403);
    assert_eq!((unknown_name_status, &unknown_name), (403, &wrong_password));
    assert!(other.cookie.is_none());

    // Logging in from a second browser (any case of the name) gives a second session.
    let mut alice_phone = Browser::new(&server);
    let (status, body) = alice_phone.post(
        "/api/account/login",
        json!({"username": "ALICE_1", "password": PASSWORD}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["account"]["username"], "Alice_1");
    assert_ne!(alice_phone.cookie, alice.cookie);

    // Sessions survive a restart.
    let laptop_cookie = alice.cookie.clone();
    let phone_cookie = alice_phone.cookie.clone();
    drop((alice, alice_phone, other));
    drop(server);
    let server = Server::start(db);
    let mut alice_phone = Browser::new(&server);
    alice_phone.cookie = phone_cookie.clone();
    let (_, me) = alice_phone.get("/api/account");
    assert_eq!(me["account"]["username"], "Alice_1", "after a restart");

    // Logging out ends that session only, and clears the cookie.
    let (status, _) = alice_phone.post("/api/account/logout", json!({}));
    assert_eq!(status, 200);
    assert!(alice_phone.cookie.is_none());
    assert!(
        alice_phone
            .last_set_cookie
            .as_deref()
            .unwrap()
            .contains("Max-Age=0")
    );
    let mut replay = Browser::new(&server);
    replay.cookie = phone_cookie;
    let (_, me) = replay.get("/api/account");
    assert_eq!(me["account"], Value::Null, "a logged-out session is gone");
    let mut laptop = Browser::new(&server);
    laptop.cookie = laptop_cookie;
    let (_, me) = laptop.get("/api/account");
    assert_eq!(
        me["account"]["username"], "Alice_1",
        "the other session goes on"
    );

    // Neither the password nor any session value is stored in plain text.
    let accounts = stored_texts(db, "accounts");
    let sessions = stored_texts(db, "sessions");
    assert!(
        accounts.iter().any(|t| t.starts_with("$argon2id$")),
        "{accounts:?}"
    );
    assert!(
        !accounts
            .iter()
            .chain(&sessions)
            .any(|t| t.contains(PASSWORD))
    );
    assert!(!sessions.is_empty());
    let laptop_value = laptop
        .cookie
        .as_deref()
        .unwrap()
        .trim_start_matches("tsubame_session=");
    assert_eq!(laptop_value.len(), 64);
    assert!(
        !sessions.iter().any(|t| t == laptop_value),
        "a plain session value is stored"
    );
    assert!(sessions.contains(&sha256_hex(laptop_value)), "{sessions:?}");
}

/// A logged-in player's seats follow their login: names on the game, moves without a token,
/// resuming from another browser, no joining one's own seek, rated games only between
/// accounts, and the player pages.
fn seats_follow_the_login(db: &Db) {
    let server = Server::start(db);
    let mut alice = Browser::new(&server);
    alice.sign_up("alice", PASSWORD);
    let mut bob = Browser::new(&server);
    bob.sign_up("bob", PASSWORD);

    // Rated needs a login, and a person on the other side.
    let (status, body) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "rated": true, "public": true}),
    );
    assert_eq!(status, 403, "{body}");
    let (status, body) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine", "rated": true}),
    );
    assert_eq!(status, 400, "{body}");

    let (status, created) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "rated": true, "public": true,
               "clock": long_clock()}),
    );
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().unwrap().to_string();

    // Alice cannot join her own seek, by login or by token; a guest cannot take a rated seat.
    let (status, body) = alice.post(&format!("/api/games/{id}/join"), json!({}));
    assert_eq!(status, 409, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("own game"),
        "{body}"
    );
    let (status, body) = server.post(
        &format!("/api/games/{id}/join"),
        json!({"token": created["token"]}),
    );
    assert_eq!(status, 409, "{body}");
    let (status, body) = server.post(&format!("/api/games/{id}/join"), json!({}));
    assert_eq!(status, 403, "{body}");
    assert!(body["error"].as_str().unwrap().contains("log in"), "{body}");

    let (status, joined) = bob.post(&format!("/api/games/{id}/join"), json!({}));
    assert_eq!(status, 200, "{joined}");
    assert_eq!(joined["seat"], "gote");

    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["sente_name"], "alice");
    assert_eq!(view["gote_name"], "bob");
    assert_eq!(view["rated"], true);
    assert_eq!(view["you"], Value::Null, "a spectator holds no seat");
    let (_, view) = bob.get(&format!("/api/games/{id}"));
    assert_eq!(view["you"], "gote");

    // Moves by login alone; one player's login does not move for the other.
    let (status, body) = alice.post(&format!("/api/games/{id}/moves"), json!({"move": "3d3c"}));
    assert_eq!(status, 200, "{body}");
    let (_, me) = bob.get("/api/account");
    assert_eq!(me["your_turn"], 1);
    let (status, body) = alice.post(&format!("/api/games/{id}/moves"), json!({"move": "4b3c"}));
    assert_eq!(status, 409, "not alice's turn: {body}");
    let (status, body) = server.post(&format!("/api/games/{id}/moves"), json!({"move": "4b3c"}));
    assert_eq!(status, 403, "{body}");

    // Bob picks the game up in another browser and moves over its socket.
    let mut bob_phone = Browser::new(&server);
    let (status, _) = bob_phone.post(
        "/api/account/login",
        json!({"username": "bob", "password": PASSWORD}),
    );
    assert_eq!(status, 200);
    let (_, view) = bob_phone.get(&format!("/api/games/{id}"));
    assert_eq!(view["you"], "gote");
    let mut socket = bob_phone.socket(&id);
    let hello = socket.wait_for(Duration::from_secs(5), |m| m["type"] == "hello");
    assert_eq!(hello["seat"], "gote");
    socket.send(json!({"type": "move", "move": "4b3c", "id": 1}));
    let ack = socket.wait_for(Duration::from_secs(5), |m| m["id"] == 1);
    assert_eq!(ack["type"], "ack", "{ack}");
    let (_, me) = bob.get("/api/account");
    assert_eq!(me["your_turn"], 0);

    // A cross-site page gets a spectator's socket even with the cookie.
    let mut cross = bob.socket_from(&id, "https://evil.example");
    let hello = cross.wait_for(Duration::from_secs(5), |m| m["type"] == "hello");
    assert_eq!(hello["seat"], Value::Null);

    // Player pages: the count of games played to the end and the games, newest first.
    let (status, alice_page) = server.get("/api/players/ALICE");
    assert_eq!(status, 200, "{alice_page}");
    assert_eq!(alice_page["username"], "alice");
    assert_eq!(alice_page["games"], 0);
    let (status, body) = alice.post(&format!("/api/games/{id}/resign"), json!({}));
    assert_eq!(status, 200, "{body}");
    let (_, alice_page) = server.get("/api/players/alice");
    assert_eq!(alice_page["games"], 1);
    let (status, games) = server.get("/api/players/bob/games?status=finished&limit=10");
    assert_eq!(status, 200);
    let games = games.as_array().unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0]["id"], id.as_str());
    assert_eq!(games[0]["result"]["winner"], "gote");
    let (status, _) = server.get("/api/players/nobody_at_all");
    assert_eq!(status, 404);
    let (status, _) = server.get("/api/players/bob/games?status=won");
    assert_eq!(status, 400);
    let (status, _) = server.get(&format!("/api/players/{}", "x".repeat(5000)));
    assert_eq!(status, 404);

    // Guests still play, under generated names; a guest cannot join their own seek either.
    let (status, seek) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "public": true}),
    );
    assert_eq!(status, 201);
    let guest_game = seek["game_id"].as_str().unwrap();
    let (status, _) = server.post(
        &format!("/api/games/{guest_game}/join"),
        json!({"token": seek["token"]}),
    );
    assert_eq!(status, 409);
    let (status, joined) = server.post(&format!("/api/games/{guest_game}/join"), json!({}));
    assert_eq!(status, 200, "{joined}");
    let (_, view) = server.get(&format!("/api/games/{guest_game}"));
    for side in ["sente_name", "gote_name"] {
        let name = view[side].as_str().unwrap();
        assert!(name.starts_with("Guest-") && name.len() == 11, "{name}");
    }
    assert_ne!(view["sente_name"], view["gote_name"]);
    assert_eq!(view["rated"], false);
    let (status, body) = server.post(
        &format!("/api/games/{guest_game}/moves"),
        json!({"token": seek["token"], "move": "3d3c"}),
    );
    assert_eq!(status, 200, "{body}");

    // Against the computer, the name says its level.
    let (status, computer) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine", "level": 3}),
    );
    assert_eq!(status, 201);
    let (_, view) = server.get(&format!(
        "/api/games/{}",
        computer["game_id"].as_str().unwrap()
    ));
    assert_eq!(view["sente_name"], "alice");
    assert_eq!(view["gote_name"], "Computer level 3");
    // Games against the computer are in the player's history.
    let (_, games) = server.get("/api/players/alice/games?status=playing");
    assert!(
        games
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == computer["game_id"]),
        "{games}"
    );
}

/// A request carrying the session cookie from another site's page is refused when it would
/// change something, and so is logging in from one.
fn cross_site_requests_are_refused(db: &Db) {
    let server = Server::start(db);
    let mut alice = Browser::new(&server);
    alice.sign_up("alice", PASSWORD);
    let (status, created) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine"}),
    );
    assert_eq!(status, 201);
    let id = created["game_id"].as_str().unwrap().to_string();
    let cross_site: [&[(&str, &str)]; 3] = [
        &[("sec-fetch-site", "cross-site")],
        &[("sec-fetch-site", "same-site")],
        &[("origin", "https://evil.example")],
    ];
    for headers in cross_site {
        let (status, body) = alice.send(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(json!({"move": "3d3c"})),
            headers,
        );
        assert_eq!(status, 403, "{headers:?}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains("another site"),
            "{body}"
        );
        let (status, _) = alice.send("POST", "/api/account/logout", Some(json!({})), headers);
        assert_eq!(status, 403, "{headers:?}");
        let mut visitor = Browser::new(&server);
        let (status, _) = visitor.send(
            "POST",
            "/api/account/login",
            Some(json!({"username": "alice", "password": PASSWORD})),
            headers,
        );
        assert_eq!(status, 403, "{headers:?}");
        assert!(visitor.cookie.is_none());
    }
    // Reading is not changing: a cross-site GET still answers (without acting for anyone).
    let (status, _) = alice.send(
        "GET",
        &format!("/api/games/{id}"),
        None,
        &[("sec-fetch-site", "cross-site")],
    );
    assert_eq!(status, 200);
    // The same page's own origin is fine.
    let origin = format!("http://{}", server.addr);
    let (status, body) = alice.send(
        "POST",
        &format!("/api/games/{id}/moves"),
        Some(json!({"move": "3d3c"})),
        &[("origin", &origin)],
    );
    assert_eq!(status, 200, "{body}");
    // The game was never moved by the refused requests: one move stored.
    assert_eq!(
        db.stored_moves(&id).first().map(|m| m.1.as_str()),
        Some("3d3c")
    );
}

/// Login attempts are limited per name and per address; the limit holds for the right
/// password too, so guessing cannot go on at full speed.
fn logins_are_rate_limited(db: &Db) {
    let server = Server::start(db);
    let mut alice = Browser::new(&server);
    alice.sign_up("alice", PASSWORD);
    let mut attacker = Browser::new(&server);
    let mut statuses = Vec::new();
    for _ in 0..6 {
        let (status, _) = attacker.post(
            "/api/account/login",
            json!({"username": "Alice", "password": "guess guess"}),
        );
        statuses.push(status);
    }
    assert_eq!(statuses, [403, 403, 403, 403, 403, 429]);
    let (status, body) = attacker.post(
        "/api/account/login",
        json!({"username": "alice", "password": PASSWORD}),
    );
    assert_eq!(status, 429, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("this name"),
        "{body}"
    );
    // The answer gives the real wait: one attempt a minute after the burst of five.
    let wait: u64 = body["error"]
        .as_str()
        .and_then(|e| e.split("try again in ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|seconds| seconds.parse().ok())
        .unwrap_or_else(|| panic!("no wait in {body}"));
    assert!((55..=60).contains(&wait), "{body}");
    assert!(attacker.cookie.is_none());
    // Other names from the same address: the address's own limit (20 in a burst) ends it.
    let mut refused_at = None;
    for n in 0..30 {
        let (status, _) = attacker.post(
            "/api/account/login",
            json!({"username": format!("user{n}"), "password": "guess guess"}),
        );
        if status == 429 {
            refused_at = Some(n);
            break;
        }
        assert_eq!(status, 403);
    }
    // 6 + 1 attempts above, then 13 more fill the burst of 20.
    assert_eq!(refused_at, Some(13));
}

/// A guest keeps one name in their browser from game to game (a cookie whose secret the name
/// is drawn from), so they can be followed and rematched; another browser has another name.
fn guests_keep_their_name(db: &Db) {
    let server = Server::start(db);
    let mut guest = Browser::new(&server);
    let mut names = Vec::new();
    for _ in 0..3 {
        let (status, created) = guest.post(
            "/api/games",
            json!({"variant": "tori", "opponent": "engine", "level": 1}),
        );
        assert_eq!(status, 201, "{created}");
        let (_, view) = server.get(&format!(
            "/api/games/{}",
            created["game_id"].as_str().unwrap()
        ));
        names.push(view["sente_name"].as_str().unwrap().to_string());
    }
    assert!(
        names[0].starts_with("Guest-") && names[0].len() == 11,
        "{names:?}"
    );
    assert!(names.iter().all(|n| *n == names[0]), "{names:?}");
    let cookie = guest.last_set_cookie.clone().unwrap_or_default();
    assert!(cookie.starts_with("tsubame_guest="), "{cookie}");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    // Joining another's seek: the same name again.
    let (_, seek) = server.post("/api/games", json!({"variant": "wa", "opponent": "human"}));
    let (status, _) = guest.post(
        &format!("/api/games/{}/join", seek["game_id"].as_str().unwrap()),
        json!({"invite": seek["invite"]}),
    );
    assert_eq!(status, 200);
    let (_, view) = server.get(&format!("/api/games/{}", seek["game_id"].as_str().unwrap()));
    assert_eq!(view["gote_name"], names[0].as_str());
    // Another browser, another name; a forged cookie is not taken.
    let mut other = Browser::new(&server);
    other.cookie = Some("tsubame_guest=not-a-secret".into());
    let (_, created) = other.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine"}),
    );
    let (_, view) = server.get(&format!(
        "/api/games/{}",
        created["game_id"].as_str().unwrap()
    ));
    assert_ne!(view["sente_name"], names[0].as_str());
}

/// A session ends when it expires: the cookie no longer logs in, and no longer moves.
fn sessions_expire(db: &Db) {
    let server = Server::start_with(db, &["--session-seconds", "1"]);
    let mut alice = Browser::new(&server);
    alice.sign_up("alice", PASSWORD);
    assert!(
        alice
            .last_set_cookie
            .as_deref()
            .unwrap()
            .contains("Max-Age=1")
    );
    let (status, created) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine"}),
    );
    assert_eq!(status, 201);
    let id = created["game_id"].as_str().unwrap().to_string();
    std::thread::sleep(Duration::from_millis(1300));
    let (_, me) = alice.get("/api/account");
    assert_eq!(me["account"], Value::Null);
    let (status, body) = alice.post(&format!("/api/games/{id}/moves"), json!({"move": "3d3c"}));
    assert_eq!(status, 403, "{body}");
    // The seat's token still holds it.
    let (status, body) = alice.post(
        &format!("/api/games/{id}/moves"),
        json!({"move": "3d3c", "token": created["token"]}),
    );
    assert_eq!(status, 200, "{body}");
}

/// A rated seek between two accounts, as far as both are seated.
fn rated_game(creator: &mut Browser, joiner: &mut Browser, clock: Value) -> String {
    let (status, created) = creator.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "rated": true, "public": true,
               "clock": clock}),
    );
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().unwrap().to_string();
    let (status, joined) = joiner.post(&format!("/api/games/{id}/join"), json!({}));
    assert_eq!(status, 200, "{joined}");
    id
}

/// The players' Glicko-2 ratings after rated games: the worked first game (1500/350 each:
/// the winner gains 162 points, the loser loses as many), stored in the same transaction as
/// the result, shown on the game and the player page with history; aborted, casual and
/// already-finished games change nothing; seeks can ask for a rating range.
fn rated_games_change_ratings(db: &Db) {
    let server = Server::start(db);
    let mut alice = Browser::new(&server);
    alice.sign_up("alice", PASSWORD);
    let mut bob = Browser::new(&server);
    bob.sign_up("bob", PASSWORD);
    // Ten minutes and 30-second byo-yomi: about 22 minutes for a game, rapid.
    let rapid = json!({"kind": "byoyomi", "main_ms": 600000, "periods": 1, "period_ms": 30000});

    // A rated game needs a clock; an aborted rated game is not rated.
    let (status, body) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "rated": true}),
    );
    assert_eq!(status, 400, "{body}");
    let aborted = rated_game(&mut alice, &mut bob, rapid.clone());
    let (status, _) = alice.post(&format!("/api/games/{aborted}/abort"), json!({}));
    assert_eq!(status, 200);
    let (_, page) = server.get("/api/players/alice");
    assert_eq!(page["ratings"], json!([]), "an aborted game is not rated");

    // Resigning before each side has moved aborts the game: no winner, no rating, at ply 0
    // and at ply 1 alike (ratings farmed by resigning at once); no draw is agreed then.
    for plies in [0, 1] {
        let id = rated_game(&mut alice, &mut bob, rapid.clone());
        if plies == 1 {
            let (status, body) =
                alice.post(&format!("/api/games/{id}/moves"), json!({"move": "3d3c"}));
            assert_eq!(status, 200, "{body}");
        }
        let (status, view) = bob.post(&format!("/api/games/{id}/resign"), json!({}));
        assert_eq!(status, 200, "{view}");
        assert_eq!(view["result"]["reason"], "aborted", "{view}");
        assert_eq!(view["result"]["winner"], Value::Null, "{view}");
    }
    let early_draw = rated_game(&mut alice, &mut bob, rapid.clone());
    let (status, body) = alice.post(
        &format!("/api/games/{early_draw}/draw"),
        json!({"action": "offer"}),
    );
    assert_eq!(status, 409, "{body}");
    let (status, _) = alice.post(&format!("/api/games/{early_draw}/abort"), json!({}));
    assert_eq!(status, 200);
    for name in ["alice", "bob"] {
        let (_, page) = server.get(&format!("/api/players/{name}"));
        assert_eq!(page["ratings"], json!([]), "{name}: {page}");
    }

    let id = rated_game(&mut alice, &mut bob, rapid.clone());
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["speed"], "rapid");
    for side in ["sente_rating", "gote_rating"] {
        assert_eq!(
            view[side],
            json!({"rating": 1500, "provisional": true, "change": null})
        );
    }
    alice.post(&format!("/api/games/{id}/moves"), json!({"move": "3d3c"}));
    bob.post(&format!("/api/games/{id}/moves"), json!({"move": "4b3c"}));
    let mut watcher = server.socket(&id, None);
    let (status, body) = bob.post(&format!("/api/games/{id}/resign"), json!({}));
    assert_eq!(status, 200, "{body}");
    let end = watcher.wait_for(Duration::from_secs(5), |m| m["type"] == "end");
    assert_eq!(end["game"]["sente_rating"]["change"], 162, "{end}");
    assert_eq!(end["game"]["gote_rating"]["change"], -162, "{end}");

    let (_, page) = server.get("/api/players/alice");
    assert_eq!(
        page["ratings"],
        json!([{"game": "tori", "speed": "rapid", "rating": 1662, "deviation": 290,
                "provisional": true, "games": 1}])
    );
    assert_eq!(page["history"].as_array().unwrap().len(), 1);
    assert_eq!(page["history"][0]["rating"], 1662);
    assert_eq!(page["history"][0]["game_id"], id.as_str());
    let (_, page) = server.get("/api/players/bob");
    assert_eq!(page["ratings"][0]["rating"], 1338);

    // Finishing it again changes nothing twice.
    let (status, _) = alice.post(&format!("/api/games/{id}/resign"), json!({}));
    assert_eq!(status, 409);
    let (_, again) = server.get("/api/players/alice");
    assert_eq!(again["ratings"][0]["games"], 1);

    // A casual game between them shows their ratings and changes none.
    let (status, created) = bob.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "public": true, "clock": rapid}),
    );
    assert_eq!(status, 201);
    let casual = created["game_id"].as_str().unwrap().to_string();
    alice.post(&format!("/api/games/{casual}/join"), json!({}));
    let (_, view) = server.get(&format!("/api/games/{casual}"));
    assert_eq!(view["rated"], false);
    assert_eq!(view["sente_rating"]["rating"], 1338);
    assert_eq!(view["gote_rating"]["rating"], 1662);
    bob.post(
        &format!("/api/games/{casual}/moves"),
        json!({"move": "3d3c"}),
    );
    alice.post(
        &format!("/api/games/{casual}/moves"),
        json!({"move": "4b3c"}),
    );
    alice.post(&format!("/api/games/{casual}/resign"), json!({}));
    let (_, view) = server.get(&format!("/api/games/{casual}"));
    assert_eq!(view["sente_rating"]["change"], Value::Null);
    let (_, page) = server.get("/api/players/bob");
    assert_eq!(page["ratings"][0]["rating"], 1338);
    assert_eq!(
        page["games"], 2,
        "played to the end: the rated and the casual game"
    );

    // A second rated game, drawn, starts from the new ratings: the lower-rated player gains.
    let drawn = rated_game(&mut bob, &mut alice, rapid.clone());
    let (_, view) = server.get(&format!("/api/games/{drawn}"));
    assert_eq!(view["sente_rating"]["rating"], 1338);
    bob.post(
        &format!("/api/games/{drawn}/moves"),
        json!({"move": "3d3c"}),
    );
    alice.post(
        &format!("/api/games/{drawn}/moves"),
        json!({"move": "4b3c"}),
    );
    bob.post(
        &format!("/api/games/{drawn}/draw"),
        json!({"action": "offer"}),
    );
    let (status, body) = alice.post(
        &format!("/api/games/{drawn}/draw"),
        json!({"action": "accept"}),
    );
    assert_eq!(status, 200, "{body}");
    let (_, view) = server.get(&format!("/api/games/{drawn}"));
    let bob_change = view["sente_rating"]["change"].as_i64().unwrap();
    let alice_change = view["gote_rating"]["change"].as_i64().unwrap();
    assert!(bob_change > 0 && alice_change < 0, "{view}");
    let (_, page) = server.get("/api/players/alice");
    assert_eq!(page["history"].as_array().unwrap().len(), 2);
    assert_eq!(page["ratings"][0]["games"], 2);

    // Rating ranges: only players within it may join.
    let (status, body) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "rated": true, "public": true,
               "clock": rapid, "rating_range": [1700, 1600]}),
    );
    assert_eq!(status, 400, "{body}");
    let (status, seek) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "rated": true, "public": true,
               "clock": rapid, "rating_range": [1450, 1700]}),
    );
    assert_eq!(status, 201, "{seek}");
    let seek_id = seek["game_id"].as_str().unwrap();
    let (status, body) = bob.post(&format!("/api/games/{seek_id}/join"), json!({}));
    assert_eq!(status, 403, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("1450 to 1700"),
        "{body}"
    );
    let mut carol = Browser::new(&server);
    carol.sign_up("carol", PASSWORD);
    let (status, body) = carol.post(&format!("/api/games/{seek_id}/join"), json!({}));
    assert_eq!(status, 200, "a new player's 1500 is in range: {body}");

    // The ratings are stored as exact integers, with the history.
    let stored = stored_texts(db, "rating_history");
    assert!(stored.iter().any(|t| t == &id), "{stored:?}");
}

/// Correspondence: days per move (1 to 14), the first move too, time not used not kept, and
/// a "your turn" count for the player who must move.
fn correspondence_games_give_days_per_move(db: &Db) {
    const DAY_MS: i64 = 24 * 3600 * 1000;
    // One second for a first move in live games: correspondence must not use it.
    let server = Server::start_with(db, &["--first-move-seconds", "1"]);
    let mut alice = Browser::new(&server);
    alice.sign_up("alice", PASSWORD);
    let mut bob = Browser::new(&server);
    bob.sign_up("bob", PASSWORD);
    for days in [0, 15] {
        let (status, body) = alice.post(
            "/api/games",
            json!({"variant": "tori", "opponent": "human",
                   "clock": {"kind": "correspondence", "days_per_move": days}}),
        );
        assert_eq!(status, 400, "{days}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains("1 to 14"),
            "{body}"
        );
    }
    let id = rated_game(
        &mut alice,
        &mut bob,
        json!({"kind": "correspondence", "days_per_move": 2}),
    );
    std::thread::sleep(Duration::from_millis(1500));
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["status"], "playing", "{view}");
    assert_eq!(view["speed"], "correspondence");
    let first_left = view["first_move_ms_left"].as_i64().unwrap();
    assert!(
        first_left > 2 * DAY_MS - 60_000 && first_left <= 2 * DAY_MS,
        "{first_left}"
    );
    let (_, me) = alice.get("/api/account");
    assert_eq!(me["your_turn"], 1);
    for (ply, usi) in ["3d3c", "4b3c", "5e5d"].into_iter().enumerate() {
        let player = if ply % 2 == 0 { &mut alice } else { &mut bob };
        let (status, body) = player.post(&format!("/api/games/{id}/moves"), json!({"move": usi}));
        assert_eq!(status, 200, "{body}");
    }
    let (_, view) = server.get(&format!("/api/games/{id}"));
    assert_eq!(view["clock_running"], "gote");
    assert_eq!(view["sente_clock"]["remaining_ms"], 2 * DAY_MS);
    assert!(view["gote_clock"]["remaining_ms"].as_i64().unwrap() <= 2 * DAY_MS);
    let (_, me) = bob.get("/api/account");
    assert_eq!(me["your_turn"], 1);
    let (_, me) = alice.get("/api/account");
    assert_eq!(me["your_turn"], 0);
}

/// Chat: the players' room and the spectators' room apart, lines as plain text, bounded and
/// rate-limited, kept with the game; and rematches with colours swapped, for accounts and for
/// guests (whose seat tokens carry over).
fn chat_and_rematch(db: &Db) {
    let server = Server::start(db);
    let mut alice = Browser::new(&server);
    alice.sign_up("alice", PASSWORD);
    let mut bob = Browser::new(&server);
    bob.sign_up("bob", PASSWORD);
    let mut carol = Browser::new(&server);
    carol.sign_up("carol", PASSWORD);
    let id = rated_game(&mut alice, &mut bob, long_clock());
    let mut bob_socket = bob.socket(&id);
    let history = bob_socket.wait_for(Duration::from_secs(5), |m| m["type"] == "chat_history");
    assert_eq!(history["room"], "players");
    let mut carol_socket = carol.socket(&id);
    let history = carol_socket.wait_for(Duration::from_secs(5), |m| m["type"] == "chat_history");
    assert_eq!(history["room"], "spectators");

    let html = "<img src=x onerror=alert(1)> good luck";
    let (status, line) = alice.post(&format!("/api/games/{id}/chat"), json!({"text": html}));
    assert_eq!(status, 201, "{line}");
    let heard = bob_socket.wait_for(Duration::from_secs(5), |m| m["type"] == "chat");
    assert_eq!(heard["line"]["text"], html, "kept as text, not changed");
    assert_eq!(heard["line"]["author"], "alice");
    assert_eq!(heard["line"]["room"], "players");
    carol_socket.send(json!({"type": "chat", "text": "nice opening", "id": 7}));
    let ack = carol_socket.wait_for(Duration::from_secs(5), |m| m["id"] == 7);
    assert_eq!(ack["type"], "ack", "{ack}");
    let heard = carol_socket.wait_for(Duration::from_secs(5), |m| m["type"] == "chat");
    assert_eq!(heard["line"]["text"], "nice opening");
    assert_eq!(heard["line"]["author"], "carol");
    // Neither room reaches the other.
    let (_, players) = bob.get(&format!("/api/games/{id}/chat"));
    assert_eq!(players["room"], "players");
    let texts: Vec<&str> = players["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, [html]);
    let (_, spectators) = server.get(&format!("/api/games/{id}/chat"));
    assert_eq!(spectators["room"], "spectators");
    assert_eq!(spectators["lines"].as_array().unwrap().len(), 1);
    assert_eq!(spectators["lines"][0]["text"], "nice opening");

    // Anonymous spectators read but do not write; empty and long lines are refused.
    let (status, _) = server.post(&format!("/api/games/{id}/chat"), json!({"text": "hi"}));
    assert_eq!(status, 403);
    let (status, _) = alice.post(&format!("/api/games/{id}/chat"), json!({"text": "  \n "}));
    assert_eq!(status, 400);
    let (status, body) = alice.post(
        &format!("/api/games/{id}/chat"),
        json!({"text": "x".repeat(301)}),
    );
    assert_eq!(status, 400, "{body}");

    // A flood: a burst of five lines, then 429.
    let statuses: Vec<u16> = (0..8)
        .map(|n| {
            bob.post(
                &format!("/api/games/{id}/chat"),
                json!({"text": format!("spam {n}")}),
            )
            .0
        })
        .collect();
    assert_eq!(&statuses[..5], &[201; 5]);
    assert_eq!(statuses[7], 429, "{statuses:?}");
    let (_, players) = alice.get(&format!("/api/games/{id}/chat"));
    assert!(players["lines"].as_array().unwrap().len() <= 7);

    // Rematch: only after the game; the other side accepts; colours swap, rated stays.
    let (status, _) = alice.post(
        &format!("/api/games/{id}/rematch"),
        json!({"action": "offer"}),
    );
    assert_eq!(status, 409, "not before the game is over");
    alice.post(&format!("/api/games/{id}/moves"), json!({"move": "3d3c"}));
    bob.post(&format!("/api/games/{id}/moves"), json!({"move": "4b3c"}));
    let (status, _) = bob.post(&format!("/api/games/{id}/resign"), json!({}));
    assert_eq!(status, 200);
    let (status, _) = carol.post(
        &format!("/api/games/{id}/rematch"),
        json!({"action": "offer"}),
    );
    assert_eq!(status, 403, "a spectator has no rematch to offer");
    let (status, _) = alice.post(
        &format!("/api/games/{id}/rematch"),
        json!({"action": "accept"}),
    );
    assert_eq!(status, 409, "nothing to accept yet");
    let (status, view) = alice.post(
        &format!("/api/games/{id}/rematch"),
        json!({"action": "offer"}),
    );
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["rematch_offer"], "sente");
    let (status, view) = bob.post(
        &format!("/api/games/{id}/rematch"),
        json!({"action": "accept"}),
    );
    assert_eq!(status, 200, "{view}");
    let rematch = view["rematch_id"].as_str().expect("a rematch").to_string();
    let (_, again) = bob.post(
        &format!("/api/games/{id}/rematch"),
        json!({"action": "offer"}),
    );
    assert_eq!(again["rematch_id"], rematch.as_str(), "one rematch only");
    let (_, new_game) = bob.get(&format!("/api/games/{rematch}"));
    assert_eq!(new_game["status"], "playing");
    assert_eq!(new_game["sente_name"], "bob");
    assert_eq!(new_game["gote_name"], "alice");
    assert_eq!(new_game["rated"], true);
    assert_eq!(new_game["you"], "sente");
    assert_eq!(
        new_game["sente_rating"]["rating"], 1338,
        "ratings after the first game"
    );
    let (status, body) = bob.post(
        &format!("/api/games/{rematch}/moves"),
        json!({"move": "3d3c"}),
    );
    assert_eq!(status, 200, "{body}");

    // Guests: each one's seat token holds their swapped seat in the rematch.
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    server.play_moves(&id, &sente, &gote, &["3d3c", "4b3c"]);
    let (status, _) = server.post(&format!("/api/games/{id}/resign"), json!({"token": sente}));
    assert_eq!(status, 200);
    server.post(
        &format!("/api/games/{id}/rematch"),
        json!({"token": gote, "action": "offer"}),
    );
    let (status, view) = server.post(
        &format!("/api/games/{id}/rematch"),
        json!({"token": sente, "action": "offer"}),
    );
    assert_eq!(status, 200, "{view}");
    let rematch = view["rematch_id"].as_str().unwrap();
    let (status, body) = server.post(
        &format!("/api/games/{rematch}/moves"),
        json!({"token": gote, "move": "3d3c"}),
    );
    assert_eq!(
        status, 200,
        "the old gote moves first as the new sente: {body}"
    );
    let (status, _) = server.post(
        &format!("/api/games/{rematch}/chat"),
        json!({"token": sente, "text": "again!"}),
    );
    assert_eq!(status, 201, "guest players chat in their room");

    // Against the computer there is no rematch to agree on.
    let (_, computer) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine"}),
    );
    let computer_id = computer["game_id"].as_str().unwrap();
    alice.post(&format!("/api/games/{computer_id}/resign"), json!({}));
    alice.post(&format!("/api/games/{computer_id}/abort"), json!({}));
    let (status, _) = alice.post(
        &format!("/api/games/{computer_id}/rematch"),
        json!({"action": "offer"}),
    );
    assert_eq!(status, 409);
}

/// Password hashing is bounded: a flood of logins from many addresses gets 429 beyond the
/// queue, and logins whose clients left while waiting do not stay counted: afterwards logins
/// work again.
fn a_login_flood_is_bounded_and_leaves_nothing_behind(db: &Db) {
    let server = Server::start(db);
    let mut alice = Browser::new(&server);
    alice.sign_up("alice", PASSWORD);
    let url = format!("{}/api/account/login", server.base);
    let flood = |timeout_ms: u64, count: usize| -> Vec<Option<u16>> {
        let threads: Vec<_> = (0..count)
            .map(|n| {
                let url = url.clone();
                std::thread::spawn(move || {
                    let agent = ureq::AgentBuilder::new()
                        .timeout(Duration::from_millis(timeout_ms))
                        .build();
                    let body = json!({"username": format!("flood{n}"), "password": "guess guess"});
                    match agent
                        .post(&url)
                        .set(
                            "X-Forwarded-For",
                            &format!("10.1.{}.{}", n / 200, n % 200 + 1),
                        )
                        .send_string(&body.to_string())
                    {
                        Ok(r) => Some(r.status()),
                        Err(ureq::Error::Status(code, _)) => Some(code),
                        Err(_) => None,
                    }
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    };
    // Patient clients: the queue holds 32 behind the hashes running; the rest are refused.
    let answers = flood(30_000, 80);
    let refused = answers.iter().filter(|a| **a == Some(429)).count();
    assert!(refused > 0, "{answers:?}");
    assert!(
        answers.iter().all(|a| matches!(a, Some(403) | Some(429))),
        "{answers:?}"
    );
    // Impatient clients: they leave while waiting.
    let gone = flood(20, 80);
    assert!(gone.iter().any(Option::is_none), "{gone:?}");
    std::thread::sleep(Duration::from_secs(3));
    for n in 0..3 {
        let mut phone = Browser::new(&server);
        let (status, body) = phone.send(
            "POST",
            "/api/account/login",
            Some(json!({"username": "alice", "password": PASSWORD})),
            &[("x-forwarded-for", ["10.9.0.1", "10.9.0.2", "10.9.0.3"][n])],
        );
        assert_eq!(status, 200, "login {n} after the flood: {body}");
    }
}

/// `count` failed logins from 16 clients at once, each from its own address and name (so
/// that every one is hashed); how many were hashed (answered 403).
fn failed_logins(server: &Server, count: usize, first: usize) -> usize {
    let url = format!("{}/api/account/login", server.base);
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..16)
            .map(|thread| {
                let url = &url;
                scope.spawn(move || {
                    (0..count.div_ceil(16))
                        .map(|attempt| {
                            let n = first + thread * 1000 + attempt;
                            let body =
                                json!({"username": format!("nobody{n}"), "password": "guess guess"});
                            let address = format!("10.{}.{}.{}", 100 + n / 40_000, n / 200 % 200, n % 200 + 1);
                            match ureq::post(url)
                                .set("X-Forwarded-For", &address)
                                .send_string(&body.to_string())
                            {
                                Ok(r) => r.status(),
                                Err(ureq::Error::Status(code, _)) => code,
                                Err(e) => panic!("login: {e}"),
                            }
                        })
                        .collect::<Vec<u16>>()
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect()
    });
    statuses.iter().filter(|s| **s == 403).count()
}

/// Password hashing works in a fixed pool of memory, one 19 MiB buffer for each of the two
/// hashing slots, filled once two sign-ups have run at once: after 300 failed logins from 16
/// clients at once, and again after 300 more, the server's resident memory is within 20 MB of
/// what it was after the sign-ups (each hash used to allocate its own buffer, which the
/// allocator kept: 20 failed logins took a server from 87 to 259 MB).
#[test]
fn a_login_flood_leaves_memory_where_it_was() {
    let db = Db::sqlite();
    let server = Server::start(&db);
    std::thread::scope(|scope| {
        for pair in 0..2 {
            let server = &server;
            scope.spawn(move || {
                for n in 0..3 {
                    let mut player = Browser::new(server);
                    player.send(
                        "POST",
                        "/api/account/signup",
                        Some(
                            json!({"username": format!("player{pair}x{n}"), "password": PASSWORD}),
                        ),
                        &[
                            ("sec-fetch-site", "same-origin"),
                            ("x-forwarded-for", &format!("10.8.{pair}.{}", n + 1)),
                        ],
                    );
                }
            });
        }
    });
    std::thread::sleep(Duration::from_millis(500));
    let before = resident_bytes(server.child.id());
    let mb = |bytes: u64| bytes as f64 / 1e6;
    for (flood, first) in [(1, 0), (2, 100_000)] {
        let hashed = failed_logins(&server, 300, first);
        assert!(hashed >= 250, "failed logins hashed: {hashed}");
        std::thread::sleep(Duration::from_secs(1));
        let after = resident_bytes(server.child.id());
        eprintln!(
            "resident memory: {:.1} MB after the sign-ups, {:.1} MB after flood {flood} \
             ({hashed} failed logins)",
            mb(before),
            mb(after)
        );
        assert!(
            after < before + 20_000_000,
            "{:.1} MB before, {:.1} MB after flood {flood}",
            mb(before),
            mb(after)
        );
    }
}

against_every_database!(
    a_login_flood_is_bounded_and_leaves_nothing_behind,
    chat_and_rematch,
    correspondence_games_give_days_per_move,
    rated_games_change_ratings,
    sign_up_log_in_and_out,
    seats_follow_the_login,
    cross_site_requests_are_refused,
    logins_are_rate_limited,
    sessions_expire,
    guests_keep_their_name,
);
