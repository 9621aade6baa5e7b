//! What a player does with their own account: change the password (every other session
//! ends), log out everywhere, download every game as one record file, delete the account
//! (games kept under "[deleted]", the name still taken), keep the learn path's progress from
//! one browser to the next; and the administrator role given
//! from the command line. Against SQLite and (when `TSUBAME_TEST_POSTGRES` names a server)
//! PostgreSQL.

use crate::common::*;
use serde_json::{Value, json};
use std::time::Duration;
use tsubame_server::cli::{AdminAction, AdminArgs, run_admin};

const PASSWORD: &str = "correct horse battery";
const NEW_PASSWORD: &str = "staple battery horse";

/// The download of `browser`'s games in the site's record text: status, headers that matter,
/// and the text.
fn download(browser: &Browser) -> (u16, String, String, String) {
    download_as(browser, "")
}

/// The download of `browser`'s games with `query` (`?format=pgn`).
fn download_as(browser: &Browser, query: &str) -> (u16, String, String, String) {
    let mut request = ureq::get(&format!(
        "{}/api/account/games/download{query}",
        browser.server.base
    ))
    .set("sec-fetch-site", "same-origin");
    if let Some(cookie) = &browser.cookie {
        request = request.set("Cookie", cookie);
    }
    let response = match request.call() {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("request failed: {e}"),
    };
    let status = response.status();
    let kind = response.header("content-type").unwrap_or("").to_string();
    let disposition = response
        .header("content-disposition")
        .unwrap_or("")
        .to_string();
    (
        status,
        kind,
        disposition,
        response.into_string().unwrap_or_default(),
    )
}

/// A casual game between two logged-in players, alice sente: three moves, a chat line from
/// bob, and bob resigns; or, with `abort`, aborted before any move.
fn finished_game<'a>(alice: &mut Browser<'a>, bob: &mut Browser<'a>, abort: bool) -> String {
    let (status, created) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "side": "sente", "public": true,
               "clock": long_clock()}),
    );
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().unwrap().to_string();
    let (status, joined) = bob.post(&format!("/api/games/{id}/join"), json!({}));
    assert_eq!(status, 200, "{joined}");
    if abort {
        let (status, body) = alice.post(&format!("/api/games/{id}/abort"), json!({}));
        assert_eq!(status, 200, "{body}");
        return id;
    }
    for (player, mv) in [("alice", "3d3c"), ("bob", "4b3c"), ("alice", "4e4d")] {
        let mover = if player == "alice" {
            &mut *alice
        } else {
            &mut *bob
        };
        let (status, body) = mover.post(&format!("/api/games/{id}/moves"), json!({"move": mv}));
        assert_eq!(status, 200, "{mv}: {body}");
    }
    let (status, body) = bob.post(&format!("/api/games/{id}/chat"), json!({"text": "gg"}));
    assert_eq!(status, 201, "{body}");
    let (status, body) = bob.post(&format!("/api/games/{id}/resign"), json!({}));
    assert_eq!(status, 200, "{body}");
    id
}

fn change_password_and_log_out_everywhere(db: &Db) {
    let server = Server::start(db);
    let mut laptop = Browser::new(&server);
    laptop.sign_up("alice", PASSWORD);
    let mut phone = Browser::new(&server);
    let (status, _) = phone.post(
        "/api/account/login",
        json!({"username": "alice", "password": PASSWORD}),
    );
    assert_eq!(status, 200);

    // Logged out, none of the tools answers; a wrong current password or a short new one is
    // refused and changes nothing.
    let mut nobody = Browser::new(&server);
    for (path, body) in [
        (
            "/api/account/password",
            json!({"current_password": PASSWORD, "new_password": NEW_PASSWORD}),
        ),
        ("/api/account/logout-everywhere", json!({})),
        ("/api/account/delete", json!({"password": PASSWORD})),
    ] {
        let (status, answer) = nobody.post(path, body);
        assert_eq!(status, 403, "{path}: {answer}");
        assert!(
            answer["error"].as_str().unwrap().contains("log in"),
            "{answer}"
        );
    }
    assert_eq!(download(&nobody).0, 403);
    let (status, body) = laptop.post(
        "/api/account/password",
        json!({"current_password": "not my password", "new_password": NEW_PASSWORD}),
    );
    assert_eq!(status, 403, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("password"),
        "{body}"
    );
    let (status, body) = laptop.post(
        "/api/account/password",
        json!({"current_password": PASSWORD, "new_password": "short"}),
    );
    assert_eq!(status, 400, "{body}");
    let (status, body) = laptop.post("/api/account/password", json!({"password": PASSWORD}));
    assert_eq!(status, 400, "{body}");
    let (_, me) = phone.get("/api/account");
    assert_eq!(me["account"]["username"], "alice", "nothing changed yet");

    // The change: this session goes on, the phone's has ended, and only the new password
    // logs in.
    let (status, body) = laptop.post(
        "/api/account/password",
        json!({"current_password": PASSWORD, "new_password": NEW_PASSWORD}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["account"]["username"], "alice");
    let (_, me) = laptop.get("/api/account");
    assert_eq!(me["account"]["username"], "alice");
    let (_, me) = phone.get("/api/account");
    assert_eq!(me["account"], Value::Null, "the other session ended");
    let (status, _) = phone.post(
        "/api/account/login",
        json!({"username": "alice", "password": PASSWORD}),
    );
    assert_eq!(status, 403, "the old password no longer logs in");
    let (status, _) = phone.post(
        "/api/account/login",
        json!({"username": "alice", "password": NEW_PASSWORD}),
    );
    assert_eq!(status, 200);

    // The administrator role, given and taken from the command line.
    let admin = |action| {
        run_admin(&AdminArgs {
            database: db.url(),
            action,
        })
    };
    admin(AdminAction::Grant {
        name: "ALICE".into(),
    })
    .expect("granted");
    let (_, me) = laptop.get("/api/account");
    assert_eq!(me["account"]["admin"], true, "{me}");
    admin(AdminAction::Revoke {
        name: "alice".into(),
    })
    .expect("revoked");
    let (_, me) = laptop.get("/api/account");
    assert_eq!(me["account"]["admin"], false, "{me}");
    let unknown = admin(AdminAction::Grant {
        name: "nobody".into(),
    })
    .expect_err("no such account");
    assert!(unknown.to_string().contains("nobody"), "{unknown}");
    // Logging out everywhere ends both sessions and clears this browser's cookie.
    let (status, body) = laptop.post("/api/account/logout-everywhere", json!({}));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["account"], Value::Null);
    assert!(laptop.cookie.is_none());
    assert!(
        laptop
            .last_set_cookie
            .as_deref()
            .unwrap()
            .contains("Max-Age=0")
    );
    let (_, me) = phone.get("/api/account");
    assert_eq!(me["account"], Value::Null, "the phone is logged out too");

    // Guessing the current password from an open session meets the login limit.
    let mut carol = Browser::new(&server);
    carol.sign_up("carol", PASSWORD);
    let mut refused = 0;
    for _ in 0..8 {
        let (status, _) = carol.post(
            "/api/account/password",
            json!({"current_password": "guess guess", "new_password": NEW_PASSWORD}),
        );
        assert!(status == 403 || status == 429, "{status}");
        refused += usize::from(status == 429);
    }
    assert!(refused > 0, "password guesses are limited");
}

fn download_games_and_delete_an_account(db: &Db) {
    let server = Server::start(db);
    let mut alice = Browser::new(&server);
    alice.sign_up("alice", PASSWORD);
    let mut bob = Browser::new(&server);
    bob.sign_up("bob", PASSWORD);
    let first = finished_game(&mut alice, &mut bob, false);
    finished_game(&mut alice, &mut bob, true);
    let second = finished_game(&mut alice, &mut bob, false);

    // Every finished game, aborted ones left out, in one record file that reads back.
    let (status, kind, disposition, text) = download(&alice);
    assert_eq!(status, 200, "{text}");
    assert!(kind.starts_with("text/plain"), "{kind}");
    assert_eq!(
        disposition,
        "attachment; filename=\"tsubame-alice-games.txt\""
    );
    let imported = response(
        ureq::post(&format!("{}/api/import?format=record", server.base))
            .set("Content-Type", "text/plain")
            .send_string(&text),
    );
    assert_eq!(imported.0, 200, "{}", imported.1);
    let games = imported.1["games"].as_array().expect("games");
    assert_eq!(games.len(), 2, "{text}");
    for game in games {
        assert_eq!(game["tags"]["sente"], "alice", "{game}");
        assert_eq!(game["tags"]["gote"], "bob", "{game}");
        assert_eq!(game["tags"]["result"], "1-0", "{game}");
        assert_eq!(game["tags"]["reason"], "resignation", "{game}");
        assert_eq!(game["usi"], json!(["3d3c", "4b3c", "4e4d"]), "{game}");
    }
    assert!(text.contains("1. Swx3c Fax3c"), "{text}");

    // In PGN and KIF too, each game with what it was, where, and when it started and ended;
    // KIF with each move's time. Both read back.
    for (format, reader) in [("pgn", "pgn"), ("kif", "kif")] {
        let (status, _, disposition, text) = download_as(&alice, &format!("?format={format}"));
        assert_eq!(status, 200, "{text}");
        assert_eq!(
            disposition,
            format!("attachment; filename=\"tsubame-alice-games.{format}\"")
        );
        let site = format!("{}/game/{first}", server.base);
        let wanted: Vec<String> = if format == "pgn" {
            vec![
                "[Event \"Casual Tori shogi game\"]".into(),
                format!("[Site \"{site}\"]"),
                "[UTCTime \"".into(),
                "[EndDate \"".into(),
            ]
        } else {
            vec![
                "棋戦：Casual Tori shogi game".into(),
                format!("場所：{site}"),
                "終了日時：".into(),
                "   1 ３三燕(34)".into(),
                "/00:00:0".into(),
            ]
        };
        for part in wanted {
            assert!(text.contains(&part), "{part} missing from\n{text}");
        }
        if format == "kif" {
            // Each game's KIF is read on its own.
            for game in text.split("\n\n#KIF").filter(|g| !g.trim().is_empty()) {
                let game = if game.starts_with("#KIF") {
                    game.to_string()
                } else {
                    format!("#KIF{game}")
                };
                let imported = response(
                    ureq::post(&format!("{}/api/import?format={reader}", server.base))
                        .set("Content-Type", "text/plain")
                        .send_string(&game),
                );
                assert_eq!(imported.0, 200, "{}", imported.1);
                assert_eq!(imported.1["games"][0]["tags"]["sente"], "alice");
            }
        } else {
            let imported = response(
                ureq::post(&format!("{}/api/import?format={reader}", server.base))
                    .set("Content-Type", "text/plain")
                    .send_string(&text),
            );
            assert_eq!(imported.0, 200, "{}", imported.1);
            assert_eq!(imported.1["games"].as_array().map(Vec::len), Some(2));
        }
    }
    let (status, _, _, text) = download_as(&alice, "?format=zip");
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("record, pgn or kif"), "{text}");

    // Deleting needs the password and no game still going.
    let (status, open_seek) = bob.post(
        "/api/games",
        json!({"variant": "wa", "opponent": "human", "public": true, "clock": long_clock()}),
    );
    assert_eq!(status, 201, "{open_seek}");
    let (status, body) = bob.post("/api/account/delete", json!({"password": "not it at all"}));
    assert_eq!(status, 403, "{body}");
    let (status, body) = bob.post("/api/account/delete", json!({"password": PASSWORD}));
    assert_eq!(status, 409, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("not over"),
        "{body}"
    );
    let seek = open_seek["game_id"].as_str().unwrap();
    let (status, body) = bob.post(&format!("/api/games/{seek}/abort"), json!({}));
    assert_eq!(status, 200, "{body}");

    let (status, body) = bob.post("/api/account/delete", json!({"password": PASSWORD}));
    assert_eq!(status, 200, "{body}");
    assert!(bob.cookie.is_none(), "logged out");
    // The games stay, under "[deleted]", with the chat; the player is gone, the name taken.
    for id in [&first, &second] {
        let (_, game) = server.get(&format!("/api/games/{id}"));
        assert_eq!(game["sente_name"], "alice", "{game}");
        assert_eq!(game["gote_name"], "[deleted]", "{game}");
    }
    let (_, chat) = alice.get(&format!("/api/games/{first}/chat"));
    assert_eq!(chat["lines"][0]["author"], "[deleted]", "{chat}");
    assert_eq!(chat["lines"][0]["text"], "gg", "{chat}");
    let (status, _) = server.get("/api/players/bob");
    assert_eq!(status, 404);
    let (status, _) = server.get("/api/players/alice");
    assert_eq!(status, 200);
    let mut someone = Browser::new(&server);
    let (status, wrong) = someone.post(
        "/api/account/login",
        json!({"username": "bob", "password": PASSWORD}),
    );
    let (unknown_status, unknown) = someone.post(
        "/api/account/login",
        json!({"username": "nobody_here", "password": PASSWORD}),
    );
    assert_eq!((status, &wrong), (unknown_status, &unknown));
    let (status, body) = someone.post(
        "/api/account/signup",
        json!({"username": "Bob", "password": PASSWORD}),
    );
    assert_eq!(status, 409, "{body}");
    // Alice's download names the deleted player as the games do.
    let (_, _, _, text) = download(&alice);
    assert!(
        text.contains("[deleted]") && !text.contains("bob"),
        "{text}"
    );
    // Nothing of the password is left.
    let (status, _) = bob.post(
        "/api/account/login",
        json!({"username": "bob", "password": PASSWORD}),
    );
    assert_eq!(status, 403);
}

/// Signs up from an address of its own (sign-ups are limited per address).
fn sign_up_from(browser: &mut Browser, name: &str, address: &str) {
    browser.sign_up_from(name, PASSWORD, address);
}

fn error_of(body: &Value) -> &str {
    body["error"].as_str().unwrap_or_default()
}

/// Blocks (no game joined from a blocker's seek, no chat line of the blocked shown, on the
/// socket and in the history), reports with their limits, and the administrators' tools:
/// reading and resolving reports, muting chat, closing and reopening an account.
fn block_report_and_moderate(db: &Db) {
    let server = Server::start(db);
    let mut people: Vec<Browser> = Vec::new();
    for (n, name) in ["alice", "bob", "carol", "dave", "erin", "ann_admin"]
        .iter()
        .enumerate()
    {
        let mut browser = Browser::new(&server);
        sign_up_from(&mut browser, name, &format!("10.9.0.{}", n + 1));
        people.push(browser);
    }
    let [alice, bob, carol, dave, erin, ann] = &mut people[..] else {
        unreachable!("six people")
    };
    run_admin(&AdminArgs {
        database: db.url(),
        action: AdminAction::Grant {
            name: "ann_admin".into(),
        },
    })
    .expect("granted");

    // Blocking: oneself and nobody are refused; the block shows on the player's page for
    // the blocker only, and in the blocker's list.
    let (status, body) = bob.post("/api/players/bob/block", json!({}));
    assert_eq!(status, 400, "{body}");
    let (status, _) = bob.post("/api/players/nobody_here/block", json!({}));
    assert_eq!(status, 404);
    let (status, _) = Browser::new(&server).post("/api/players/alice/block", json!({}));
    assert_eq!(status, 403);
    let (status, body) = bob.post("/api/players/ALICE/block", json!({}));
    assert_eq!(
        (status, &body),
        (200, &json!({"username": "alice", "blocked": true}))
    );
    let (_, page) = bob.get("/api/players/alice");
    assert_eq!(page["blocked"], true, "{page}");
    let (_, page) = carol.get("/api/players/alice");
    assert_eq!(page["blocked"], false, "{page}");
    let (_, list) = bob.get("/api/account/blocks");
    assert_eq!(list["blocked"][0]["username"], "alice", "{list}");
    assert_eq!(list["blocked"].as_array().map(Vec::len), Some(1), "{list}");

    // Bob's seek takes no game from alice, and one from carol.
    let (status, seek) = bob.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "public": true, "side": "sente",
               "clock": long_clock()}),
    );
    assert_eq!(status, 201, "{seek}");
    let game = seek["game_id"].as_str().unwrap().to_string();
    let (status, body) = alice.post(&format!("/api/games/{game}/join"), json!({}));
    assert_eq!(status, 403, "{body}");
    assert!(
        error_of(&body).contains("does not take games from you"),
        "{body}"
    );
    let (status, body) = carol.post(&format!("/api/games/{game}/join"), json!({}));
    assert_eq!(status, 200, "{body}");

    // Dave watches and blocks alice: her spectator lines reach erin's socket, not dave's,
    // and dave's history leaves them out.
    let (status, _) = dave.post("/api/players/alice/block", json!({}));
    assert_eq!(status, 200);
    let mut dave_socket = dave.socket(&game);
    dave_socket.wait_for(Duration::from_secs(5), |m| m["type"] == "chat_history");
    let mut erin_socket = erin.socket(&game);
    erin_socket.wait_for(Duration::from_secs(5), |m| m["type"] == "chat_history");
    let (status, body) = alice.post(
        &format!("/api/games/{game}/chat"),
        json!({"text": "rude words"}),
    );
    assert_eq!(status, 201, "{body}");
    let (status, body) = erin.post(
        &format!("/api/games/{game}/chat"),
        json!({"text": "nice move"}),
    );
    assert_eq!(status, 201, "{body}");
    let heard = erin_socket.wait_for(Duration::from_secs(5), |m| m["type"] == "chat");
    assert_eq!(heard["line"]["author"], "alice", "{heard}");
    let heard = dave_socket.wait_for(Duration::from_secs(5), |m| m["type"] == "chat");
    assert_eq!(
        heard["line"]["author"], "erin",
        "dave never hears alice: {heard}"
    );
    let (_, history) = dave.get(&format!("/api/games/{game}/chat"));
    let authors: Vec<&str> = history["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["author"].as_str())
        .collect();
    assert_eq!(authors, ["erin"], "{history}");
    let (_, history) = erin.get(&format!("/api/games/{game}/chat"));
    assert_eq!(
        history["lines"].as_array().map(Vec::len),
        Some(2),
        "{history}"
    );

    // Unblocked, alice may join bob's next seek.
    let (status, body) = bob.post("/api/players/alice/unblock", json!({}));
    assert_eq!(
        (status, &body),
        (200, &json!({"username": "alice", "blocked": false}))
    );
    let (_, seek) = bob.post(
        "/api/games",
        json!({"variant": "wa", "opponent": "human", "public": true, "clock": long_clock()}),
    );
    let next = seek["game_id"].as_str().unwrap().to_string();
    let (status, body) = alice.post(&format!("/api/games/{next}/join"), json!({}));
    assert_eq!(status, 200, "{body}");

    // Reports: checked, one open report of a player per reporter.
    let report = |browser: &mut Browser, name: &str, body: Value| {
        browser.post(&format!("/api/players/{name}/report"), body)
    };
    let abuse =
        json!({"reason": "abuse", "text": "rude in the\nspectators' chat", "game_id": game});
    for (body, status, what) in [
        (
            json!({"reason": "rude", "text": "x"}),
            400,
            "cheating, abuse, name, other",
        ),
        (
            json!({"reason": "abuse", "text": "  \n "}),
            400,
            "what happened",
        ),
        (
            json!({"reason": "abuse", "text": "x".repeat(1001)}),
            400,
            "1000",
        ),
        (
            json!({"reason": "abuse", "text": "x", "game_id": "nosuchgame"}),
            404,
            "nosuchgame",
        ),
        (json!({"reason": "abuse"}), 400, "text"),
    ] {
        let (got, answer) = report(carol, "alice", body);
        assert_eq!(got, status, "{answer}");
        assert!(error_of(&answer).contains(what), "{answer}");
    }
    let (status, answer) = report(carol, "carol", abuse.clone());
    assert_eq!(status, 400, "{answer}");
    let (status, answer) = report(&mut Browser::new(&server), "alice", abuse.clone());
    assert_eq!(status, 403, "{answer}");
    let (status, filed) = report(carol, "alice", abuse.clone());
    assert_eq!(status, 201, "{filed}");
    let report_id = filed["id"].as_str().unwrap().to_string();
    let (status, answer) = report(carol, "alice", abuse.clone());
    assert_eq!(status, 409, "{answer}");

    // Only administrators read reports.
    let (status, _) = carol.get("/api/admin/reports");
    assert_eq!(status, 403);
    let (status, _) = carol.post("/api/admin/players/alice/mute", json!({"minutes": 5}));
    assert_eq!(status, 403);
    let (status, list) = ann.get("/api/admin/reports");
    assert_eq!(status, 200, "{list}");
    let reports = list["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 1, "{list}");
    assert_eq!(reports[0]["reporter"], "carol");
    assert_eq!(reports[0]["reported"], "alice");
    assert_eq!(reports[0]["reason"], "abuse");
    assert_eq!(reports[0]["text"], "rude in the spectators' chat");
    assert_eq!(reports[0]["game_id"], game.as_str());
    assert_eq!(reports[0]["resolved_at"], Value::Null);
    let (status, _) = ann.get("/api/admin/reports?status=maybe");
    assert_eq!(status, 400);

    // A mute stops alice's chat until it is lifted.
    let (status, muted) = ann.post("/api/admin/players/alice/mute", json!({"minutes": 30}));
    assert_eq!(status, 200, "{muted}");
    assert!(muted["muted_until"].as_i64().is_some(), "{muted}");
    let (status, body) = alice.post(&format!("/api/games/{game}/chat"), json!({"text": "again"}));
    assert_eq!(status, 403, "{body}");
    assert!(error_of(&body).contains("muted"), "{body}");
    let (status, _) = ann.post("/api/admin/players/alice/mute", json!({"minutes": 600000}));
    assert_eq!(status, 400);
    let (status, unmuted) = ann.post("/api/admin/players/alice/mute", json!({"minutes": 0}));
    assert_eq!(
        (status, &unmuted["muted_until"]),
        (200, &Value::Null),
        "{unmuted}"
    );
    let (status, body) = alice.post(&format!("/api/games/{game}/chat"), json!({"text": "sorry"}));
    assert_eq!(status, 201, "{body}");

    // Closing alice's account ends her session and her logins; her page says so; reopened,
    // she logs in again. An administrator cannot close their own account.
    let (status, closed) = ann.post("/api/admin/players/alice/close", json!({}));
    assert_eq!((status, &closed["closed"]), (200, &json!(true)), "{closed}");
    let (_, me) = alice.get("/api/account");
    assert_eq!(me["account"], Value::Null, "the session ended");
    let (status, body) = alice.post(
        "/api/account/login",
        json!({"username": "alice", "password": PASSWORD}),
    );
    assert_eq!(status, 403, "{body}");
    assert!(error_of(&body).contains("closed"), "{body}");
    let (_, page) = carol.get("/api/players/alice");
    assert_eq!(page["closed"], true, "{page}");
    let (status, _) = ann.post("/api/admin/players/ann_admin/close", json!({}));
    assert_eq!(status, 400);
    let (status, reopened) = ann.post("/api/admin/players/alice/reopen", json!({}));
    assert_eq!(
        (status, &reopened["closed"]),
        (200, &json!(false)),
        "{reopened}"
    );
    let (status, _) = alice.post(
        "/api/account/login",
        json!({"username": "alice", "password": PASSWORD}),
    );
    assert_eq!(status, 200);

    // Resolved, the report leaves the open list for the resolved one.
    let (status, _) = ann.post(
        &format!("/api/admin/reports/{report_id}/resolve"),
        json!({"resolution": "muted for 30 minutes, warned"}),
    );
    assert_eq!(status, 200);
    let (status, _) = ann.post(
        &format!("/api/admin/reports/{report_id}/resolve"),
        json!({"resolution": "again"}),
    );
    assert_eq!(status, 404, "a resolved report is not open");
    let (_, open) = ann.get("/api/admin/reports");
    assert_eq!(open["reports"], json!([]), "{open}");
    let (_, resolved) = ann.get("/api/admin/reports?status=resolved");
    assert_eq!(
        resolved["reports"][0]["id"],
        report_id.as_str(),
        "{resolved}"
    );
    assert_eq!(resolved["reports"][0]["resolved_by"], "ann_admin");
    assert_eq!(
        resolved["reports"][0]["resolution"],
        "muted for 30 minutes, warned"
    );
}

/// Who is online: each page's `GET /api/account` marks its visitor (an account, or a guest's
/// address) as on the site; the home page's counts and a player's page say so.
fn players_online_and_games_playing(db: &Db) {
    let server = Server::start(db);
    let mut alice = Browser::new(&server);
    sign_up_from(&mut alice, "alice", "10.5.0.1");
    let mut bob = Browser::new(&server);
    sign_up_from(&mut bob, "bob", "10.5.0.2");
    alice.get("/api/account");
    let mut guest = Browser::new(&server);
    for _ in 0..3 {
        let (status, _) = guest.send(
            "GET",
            "/api/account",
            None,
            &[
                ("sec-fetch-site", "same-origin"),
                ("x-forwarded-for", "10.5.0.9"),
            ],
        );
        assert_eq!(status, 200);
    }
    let (status, stats) = server.get("/api/stats");
    assert_eq!(status, 200, "{stats}");
    assert_eq!(
        stats,
        json!({"players_online": 2, "games_playing": 0}),
        "alice and one guest, whatever the number of requests"
    );
    let (_, page) = server.get("/api/players/alice");
    assert_eq!(page["online"], true, "{page}");
    let (_, page) = server.get("/api/players/bob");
    assert_eq!(page["online"], false, "bob has opened no page: {page}");

    // A game between alice and bob starts and bob opens a page; the counts follow within
    // the few seconds they are kept.
    let (_, seek) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "public": true, "clock": long_clock()}),
    );
    let game = seek["game_id"].as_str().unwrap().to_string();
    let (status, _) = bob.post(&format!("/api/games/{game}/join"), json!({}));
    assert_eq!(status, 200);
    bob.get("/api/account");
    std::thread::sleep(Duration::from_millis(5_200));
    let (_, stats) = server.get("/api/stats");
    assert_eq!(stats, json!({"players_online": 3, "games_playing": 1}));
    let (_, page) = server.get("/api/players/bob");
    assert_eq!(page["online"], true, "{page}");
}

/// TV shows the highest-rated public game in play, of one game or any; a private game never.
fn tv_shows_the_highest_rated_public_game(db: &Db) {
    let server = Server::start(db);
    let (status, none) = server.get("/api/tv");
    assert_eq!(status, 404, "{none}");
    let mut alice = Browser::new(&server);
    sign_up_from(&mut alice, "alice", "10.6.0.1");
    let mut bob = Browser::new(&server);
    sign_up_from(&mut bob, "bob", "10.6.0.2");
    // A private game between guests, with moves: never on TV.
    let (private, sente, _) = server.two_player_game("tori", long_clock());
    server.play_moves(&private, &sente, "", &["3d3c"]);
    let (status, _) = server.get("/api/tv");
    assert_eq!(status, 404, "a private game is not shown");
    // A public casual game between guests, and a rated one between two accounts.
    let (_, casual) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "public": true, "clock": long_clock()}),
    );
    let casual = casual["game_id"].as_str().unwrap().to_string();
    let (status, _) = server.post(&format!("/api/games/{casual}/join"), json!({}));
    assert_eq!(status, 200);
    let (_, rated) = alice.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "public": true, "rated": true,
               "clock": long_clock()}),
    );
    let rated = rated["game_id"].as_str().unwrap().to_string();
    let (status, _) = bob.post(&format!("/api/games/{rated}/join"), json!({}));
    assert_eq!(status, 200);
    let (status, tv) = server.get("/api/tv");
    assert_eq!(status, 200, "{tv}");
    assert_eq!(
        tv,
        json!({"game_id": rated, "variant": "tori", "rating": 1500})
    );
    let (_, tv) = server.get("/api/tv?variant=tori");
    assert_eq!(tv["game_id"], rated.as_str());
    let (status, _) = server.get("/api/tv?variant=wa");
    assert_eq!(status, 404);
    let (status, _) = server.get("/api/tv?variant=chess");
    assert_eq!(status, 400);
    // Once it ends, the next one.
    let (status, _) = bob.post(&format!("/api/games/{rated}/resign"), json!({}));
    assert_eq!(status, 200);
    let (_, tv) = server.get("/api/tv");
    assert_eq!(tv["game_id"], casual.as_str(), "{tv}");
}

/// The learn path's progress, kept with the account: recorded from one browser, read in
/// another, the best stars kept; only what the game's path has, by a logged-in player; gone
/// with the account.
fn learn_progress_follows_the_account(db: &Db) {
    let server = Server::start(db);
    let mut laptop = Browser::new(&server);
    laptop.sign_up("learner", PASSWORD);
    let (status, body) = laptop.get("/api/account/learn/tori");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"variant": "tori", "items": {}}));
    let (status, body) = laptop.post(
        "/api/account/learn/tori",
        json!({"items": {"lesson capture": 1, "F alone": 2, "S drops": 3}}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["items"]["F alone"], 2);
    // Fewer stars later do not take the best away; more do.
    let (status, body) = laptop.post(
        "/api/account/learn/tori",
        json!({"items": {"F alone": 1, "S drops": 1, "lesson game": 1}}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["items"],
        json!({"F alone": 2, "S drops": 3, "lesson capture": 1, "lesson game": 1})
    );
    // Another browser, logged in, reads the same; each game's path is its own.
    let mut phone = Browser::new(&server);
    let (status, _) = phone.post(
        "/api/account/login",
        json!({"username": "learner", "password": PASSWORD}),
    );
    assert_eq!(status, 200);
    let (_, body) = phone.get("/api/account/learn/tori");
    assert_eq!(body["items"]["S drops"], 3, "{body}");
    let (_, body) = phone.get("/api/account/learn/wa");
    assert_eq!(body["items"], json!({}));
    // What the path does not have is named and not recorded; the rest is.
    let (status, body) = phone.post(
        "/api/account/learn/tori",
        json!({"items": {"lesson burning": 1, "F sideways": 1, "C alone": 3}}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ignored"], json!(["F sideways", "lesson burning"]));
    assert_eq!(body["items"]["C alone"], 3);
    assert!(body["items"].get("lesson burning").is_none(), "{body}");
    // Stars out of range, another game, and a guest: refused.
    for (path, items, wanted) in [
        (
            "/api/account/learn/tori",
            json!({"F alone": 4}),
            "stars are 1 to 3",
        ),
        (
            "/api/account/learn/tori",
            json!({"F alone": 0}),
            "stars are 1 to 3",
        ),
        ("/api/account/learn/chess", json!({"F alone": 1}), "chess"),
    ] {
        let (status, body) = phone.post(path, json!({ "items": items }));
        assert_eq!(status, 400, "{items}: {body}");
        assert!(
            body["error"].as_str().unwrap_or("").contains(wanted),
            "{body}"
        );
    }
    let too_many: serde_json::Map<String, Value> = (0..401)
        .map(|n| (format!("lesson x{n}"), json!(1)))
        .collect();
    let (status, _) = phone.post("/api/account/learn/tori", json!({ "items": too_many }));
    assert_eq!(status, 400);
    let mut guest = Browser::new(&server);
    let (status, body) = guest.get("/api/account/learn/tori");
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        body["code"], "login.needed",
        "a refusal a page words by its code"
    );
    // A script sending records without pause is held back.
    let refused = (0..40)
        .map(|_| {
            laptop
                .post("/api/account/learn/tori", json!({"items": {"F alone": 1}}))
                .0
        })
        .filter(|status| *status == 429)
        .count();
    assert!(refused > 0, "no record refused in 40");
    // Deleting the account takes its progress with it.
    let (status, body) = laptop.post("/api/account/delete", json!({"password": PASSWORD}));
    assert_eq!(status, 200, "{body}");
    let mut again = Browser::new(&server);
    again.sign_up("learner2", PASSWORD);
    let (_, body) = again.get("/api/account/learn/tori");
    assert_eq!(body["items"], json!({}));
    let rows = db.count_rows("learn_progress");
    assert_eq!(rows, 0, "the deleted account's progress is gone");
}

against_every_database!(
    learn_progress_follows_the_account,
    block_report_and_moderate,
    tv_shows_the_highest_rated_public_game,
    players_online_and_games_playing,
    change_password_and_log_out_everywhere,
    download_games_and_delete_an_account,
);
