//! Limits that hold under concurrency: many challenges, reports and blocks sent at the same
//! instant (and, on PostgreSQL, to two instances at once) are held to their limits exactly,
//! because each limit is counted with the account's row locked in the transaction that writes,
//! not read before it. A deleted account's challenges end and free the challenger's slot.

use crate::common::*;
use serde_json::{Value, json};
use std::sync::{Arc, Barrier};

const PASSWORD: &str = "correct horse battery";

/// Sends every request at the same instant (one thread each, released together): the
/// statuses, in the order given. Each is `(base URL, path, body)`, sent with `cookie`.
fn all_at_once(cookie: &str, requests: Vec<(String, String, Value)>) -> Vec<u16> {
    let barrier = Arc::new(Barrier::new(requests.len()));
    let threads: Vec<_> = requests
        .into_iter()
        .map(|(base, path, body)| {
            let barrier = barrier.clone();
            let cookie = cookie.to_string();
            std::thread::spawn(move || {
                let request = ureq::post(&format!("{base}{path}"))
                    .set("cookie", &cookie)
                    .set("sec-fetch-site", "same-origin");
                barrier.wait();
                response(request.send_json(body)).0
            })
        })
        .collect();
    threads
        .into_iter()
        .map(|thread| thread.join().expect("a request thread"))
        .collect()
}

/// The player's waiting challenges once `n` of their own are listed (another instance's take
/// a moment to be heard of).
fn outgoing_once(browser: &mut Browser, n: usize) -> Value {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let (_, list) = browser.get("/api/challenges");
        if list["outgoing"].as_array().map(Vec::len) == Some(n) {
            return list;
        }
        assert!(
            std::time::Instant::now() < until,
            "never {n} waiting: {list}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn count(statuses: &[u16], status: u16) -> usize {
    statuses.iter().filter(|&&s| s == status).count()
}

/// Signs up `names` (each from an address of its own) on `server`.
fn sign_up_all<'a>(server: &'a Server, names: &[String], net: u8) -> Vec<Browser<'a>> {
    names
        .iter()
        .enumerate()
        .map(|(n, name)| {
            let mut browser = Browser::new(server);
            browser.sign_up_from(name, PASSWORD, &format!("10.{net}.{}.{}", n / 200, n % 200));
            browser
        })
        .collect()
}

/// The limits, against `servers` (one, or two instances of one database): the requests are
/// spread over them.
fn limits_hold(servers: &[&Server]) {
    let first = servers[0];
    let mut alice = Browser::new(first);
    alice.sign_up_from("alice", PASSWORD, "10.60.0.1");
    let cookie = alice.cookie.clone().expect("logged in");
    let base = |n: usize| servers[n % servers.len()].base.clone();

    // Eight challenges to one player at once: one waits, the others are refused.
    let names: Vec<String> = (0..13).map(|n| format!("player_{n}")).collect();
    let mut others = sign_up_all(first, &names, 61);
    let tori = json!({"variant": "tori"});
    let statuses = all_at_once(
        &cookie,
        (0..8)
            .map(|n| {
                (
                    base(n),
                    "/api/players/player_0/challenge".into(),
                    tori.clone(),
                )
            })
            .collect(),
    );
    assert_eq!(
        count(&statuses, 201),
        1,
        "one challenge per pair: {statuses:?}"
    );
    assert_eq!(count(&statuses, 409), 7, "{statuses:?}");
    outgoing_once(&mut alice, 1);

    // Twelve challenges to twelve players at once: four more wait (five in all).
    let statuses = all_at_once(
        &cookie,
        (1..13)
            .map(|n| {
                (
                    base(n),
                    format!("/api/players/player_{n}/challenge"),
                    tori.clone(),
                )
            })
            .collect(),
    );
    assert_eq!(
        count(&statuses, 201),
        4,
        "five waiting at most: {statuses:?}"
    );
    assert_eq!(count(&statuses, 409), 8, "{statuses:?}");
    let list = outgoing_once(&mut alice, 5);
    let outgoing = list["outgoing"].as_array().unwrap();

    // One of the challenged deletes their account: the challenge ends, the slot is free.
    let gone = outgoing[0]["to"].as_str().unwrap().to_string();
    let gone_index: usize = gone.trim_start_matches("player_").parse().unwrap();
    let (status, body) =
        others[gone_index].post("/api/account/delete", json!({"password": PASSWORD}));
    assert_eq!(status, 200, "{body}");
    let list = outgoing_once(&mut alice, 4);
    let free = (1..13)
        .map(|n| format!("player_{n}"))
        .find(|name| {
            *name != gone
                && !list["outgoing"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c["to"] == name.as_str())
        })
        .unwrap();
    let (status, body) = alice.post(&format!("/api/players/{free}/challenge"), tori.clone());
    assert_eq!(status, 201, "{body}");

    // Twelve reports of twelve players at once: ten wait for an administrator.
    let report = json!({"reason": "abuse", "text": "rude in chat"});
    let statuses = all_at_once(
        &cookie,
        (1..13)
            .filter(|&n| n != gone_index)
            .chain([0])
            .map(|n| {
                (
                    base(n),
                    format!("/api/players/player_{n}/report"),
                    report.clone(),
                )
            })
            .collect(),
    );
    assert_eq!(
        count(&statuses, 201),
        10,
        "ten open reports at most: {statuses:?}"
    );
    assert_eq!(count(&statuses, 409), 2, "{statuses:?}");

    // The same report eight times at once: one is filed.
    let mut bob = Browser::new(first);
    bob.sign_up_from("bob", PASSWORD, "10.60.0.2");
    let bob_cookie = bob.cookie.clone().expect("logged in");
    let statuses = all_at_once(
        &bob_cookie,
        (0..8)
            .map(|n| (base(n), "/api/players/alice/report".into(), report.clone()))
            .collect(),
    );
    assert_eq!(count(&statuses, 201), 1, "{statuses:?}");
    assert_eq!(count(&statuses, 409), 7, "{statuses:?}");
    drop(others.drain(..));
}

fn limits_hold_under_concurrency(db: &Db) {
    let server = Server::start(db);
    limits_hold(&[&server]);
}

/// The same, with the requests spread over two instances of one PostgreSQL database.
#[test]
fn limits_hold_across_instances() {
    let Some(db) = Db::postgres() else {
        eprintln!("SKIPPED: TSUBAME_TEST_POSTGRES is not set");
        return;
    };
    let first = Server::start(&db);
    let second = Server::start(&db);
    limits_hold(&[&first, &second]);
}

against_every_database!(limits_hold_under_concurrency);
