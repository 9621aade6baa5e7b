//! With `--engine-workers`, the computer's moves are jobs that workers lease with their keys:
//! a key unknown or revoked is refused, a worker that stops renewing loses its job to another
//! once the lease runs out, an answer is kept only from the lease holding the job and only if
//! it answers the question asked, and the computer's move is played once.

mod common;

use common::*;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const KEY_A: &str = "tsw_test_key_of_worker_a";
const KEY_B: &str = "tsw_test_key_of_worker_b";
const KEY_REVOKED: &str = "tsw_test_key_revoked";

fn post_as(server: &Server, key: Option<&str>, path: &str, body: Value) -> (u16, Value) {
    let mut request = ureq::post(&format!("{}{path}", server.base));
    if let Some(key) = key {
        request = request.set("Authorization", &format!("Bearer {key}"));
    }
    response(request.send_json(body))
}

fn lease(server: &Server, key: &str, wait_ms: u64) -> Value {
    let (status, answer) = post_as(
        server,
        Some(key),
        "/api/worker/lease",
        json!({ "wait_ms": wait_ms }),
    );
    assert_eq!(status, 200, "{answer}");
    answer["job"].clone()
}

fn add_keys(db: &Db) {
    for (name, key, revoked) in [
        ("a", KEY_A, "0"),
        ("b", KEY_B, "0"),
        ("gone", KEY_REVOKED, "5"),
    ] {
        db.execute(
            "INSERT INTO worker_keys (name, key_hash, created_at, revoked_at) \
             VALUES ($1, $2, 1, CAST($3 AS BIGINT))",
            &[name, &sha256_hex(key), revoked],
        );
    }
}

fn a_dead_workers_job_goes_to_another_and_is_played_once(db: &Db) {
    // The schema first, then the keys.
    drop(Server::start(db));
    add_keys(db);
    let server = Server::start_with(db, &["--engine-workers", "--worker-lease-seconds", "1"]);

    for (key, what) in [
        (None, "no key"),
        (Some("tsw_nobody"), "an unknown key"),
        (Some(KEY_REVOKED), "a revoked key"),
    ] {
        let (status, answer) = post_as(&server, key, "/api/worker/lease", json!({}));
        assert_eq!(status, 401, "{what}: {answer}");
    }

    // The computer plays first.
    let (status, created) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine", "side": "gote", "level": 3, "clock": long_clock()}),
    );
    assert_eq!(status, 201, "{created}");
    let game = created["game_id"].as_str().expect("id").to_string();

    // Worker a takes the job, then stops answering.
    let taken = lease(&server, KEY_A, 5_000);
    assert_eq!(taken["kind"], "move", "{taken}");
    assert_eq!(taken["attempt"], 1, "{taken}");
    let job = taken["id"].as_str().expect("job id").to_string();
    let question: Value =
        serde_json::from_str(taken["question"].as_str().expect("question")).expect("JSON");
    assert_eq!(question["type"], "move");
    assert_eq!(question["variant"], "tori");
    assert_eq!(question["level"], 3);
    // While a's lease holds, nobody else gets the job.
    assert_eq!(lease(&server, KEY_B, 200), Value::Null);

    // Once it runs out, b gets it.
    let started = Instant::now();
    let retaken = lease(&server, KEY_B, 5_000);
    assert_eq!(retaken["id"], job.as_str(), "{retaken}");
    assert_eq!(retaken["attempt"], 2, "{retaken}");
    assert!(started.elapsed() < Duration::from_secs(3));
    let path = |what: &str| format!("/api/worker/jobs/{job}/{what}");

    // a's lease no longer holds: neither its renewal nor its answer counts.
    let legal = json!({"best": "3d3c", "pv": ["3d3c"], "depth": 1, "lines": []}).to_string();
    let (status, _) = post_as(
        &server,
        Some(KEY_A),
        &path("renew"),
        json!({"lease": taken["lease"]}),
    );
    assert_eq!(status, 409);
    let (status, _) = post_as(
        &server,
        Some(KEY_A),
        &path("answer"),
        json!({"lease": taken["lease"], "answer": legal}),
    );
    assert_eq!(status, 409);

    // An answer that is not a legal move of the position is refused, and the job goes back.
    let (status, _) = post_as(
        &server,
        Some(KEY_B),
        &path("renew"),
        json!({"lease": retaken["lease"]}),
    );
    assert_eq!(status, 200);
    for wrong in [
        json!({"best": "3c3d", "pv": ["3c3d"], "depth": 1}),
        json!({"best": "3d3c", "pv": ["3d3c", "3d3c"], "depth": 1}),
        json!({"nonsense": true}),
    ] {
        let (status, refused) = post_as(
            &server,
            Some(KEY_B),
            &path("answer"),
            json!({"lease": retaken["lease"], "answer": wrong.to_string()}),
        );
        assert!(matches!(status, 409 | 422), "{wrong}: {status} {refused}");
    }
    let last = lease(&server, KEY_B, 2_000);
    assert_eq!(last["id"], job.as_str(), "{last}");
    assert_eq!(last["attempt"], 3, "{last}");
    let (status, kept) = post_as(
        &server,
        Some(KEY_B),
        &path("answer"),
        json!({"lease": last["lease"], "answer": legal}),
    );
    assert_eq!(status, 200, "{kept}");
    // Answered once: a second answer is refused.
    let (status, _) = post_as(
        &server,
        Some(KEY_B),
        &path("answer"),
        json!({"lease": last["lease"], "answer": legal}),
    );
    assert_eq!(status, 409);

    // The computer's move is played, once.
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, view) = server.get(&format!("/api/games/{game}"));
        if view["ply"] == 1 {
            break;
        }
        assert!(
            Instant::now() < until,
            "the worker's move was not played: {view}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(db.stored_moves(&game), [(1, "3d3c".to_string())]);
    // No job is left for anyone.
    assert_eq!(lease(&server, KEY_A, 300), Value::Null);
}

fn a_server_without_workers_refuses_them(db: &Db) {
    let server = Server::start(db);
    let (status, answer) = post_as(&server, Some(KEY_A), "/api/worker/lease", json!({}));
    assert_eq!(status, 409, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .is_some_and(|e| e.contains("--engine-workers")),
        "{answer}"
    );
}

against_every_database!(
    a_dead_workers_job_goes_to_another_and_is_played_once,
    a_server_without_workers_refuses_them
);
