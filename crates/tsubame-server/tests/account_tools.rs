//! What a player does with their own account: change the password (every other session
//! ends), log out everywhere, download every game as one record file, delete the account
//! (games kept under "[deleted]", the name still taken); and the administrator role given
//! from the command line. Against SQLite and (when `TSUBAME_TEST_POSTGRES` names a server)
//! PostgreSQL.

mod common;

use common::*;
use serde_json::{Value, json};
use tsubame_server::cli::{AdminAction, AdminArgs, run_admin};

const PASSWORD: &str = "correct horse battery";
const NEW_PASSWORD: &str = "staple battery horse";

/// The download of `browser`'s games: status, headers that matter, and the text.
fn download(browser: &Browser) -> (u16, String, String, String) {
    let mut request = ureq::get(&format!(
        "{}/api/account/games/download",
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

against_every_database!(
    change_password_and_log_out_everywhere,
    download_games_and_delete_an_account,
);
