//! With `--engine-workers`, the computer's moves are jobs that workers lease with their keys:
//! a key unknown or revoked is refused, a worker that stops renewing loses its job to another
//! once the lease runs out, an answer is kept only from the lease holding the job and only if
//! it answers the question asked, and the computer's move is played once. Finished games'
//! analyses, mate searches and the analysis board's searches are jobs too; the queue and each
//! worker's throughput are counted, and a long wait is told.

use crate::common::*;
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

/// Answers a leased job as `tsubame worker` would, telling its progress with a renewal.
fn answer_job(server: &Server, key: &str, job: &Value) -> String {
    let question = job["question"].as_str().expect("question");
    let answer =
        tsubame_analysis::request::answer(question, &mut |_| {}).expect("the job is answered");
    let (status, kept) = post_as(
        server,
        Some(key),
        &format!(
            "/api/worker/jobs/{}/answer",
            job["id"].as_str().expect("id")
        ),
        json!({"lease": job["lease"], "answer": answer}),
    );
    assert_eq!(status, 200, "{kept}");
    answer
}

fn analyses_and_mate_searches_go_to_the_workers(db: &Db) {
    drop(Server::start(db));
    add_keys(db);
    let server = Server::start_with(db, &["--engine-workers", "--worker-lease-seconds", "2"]);

    // A finished game's analysis: one job, its progress told as the worker tells it.
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    let played = ["5e5d", "5c5d", "3d3c", "4b3c"];
    server.play_moves(&id, &sente, &gote, &played);
    let (status, _) = server.post(&format!("/api/games/{id}/resign"), json!({"token": sente}));
    assert_eq!(status, 200);
    let path = format!("/api/games/{id}/analysis");
    let (status, started) = server.post(&path, json!({}));
    assert_eq!(status, 200, "{started}");
    assert_eq!(
        (&started["status"], &started["total"]),
        (&json!("running"), &json!(5))
    );
    let job = lease(&server, KEY_A, 5_000);
    assert_eq!(job["kind"], "game", "{job}");
    assert_eq!(job["id"], format!("game:{id}"), "{job}");
    let question: Value =
        serde_json::from_str(job["question"].as_str().expect("question")).expect("JSON");
    assert_eq!(question["moves"], json!(played), "{question}");
    assert_eq!(
        (&question["depth"], &question["movetime_ms"]),
        (&json!(16), &json!(300))
    );
    let (status, _) = post_as(
        &server,
        Some(KEY_A),
        &format!("/api/worker/jobs/game:{id}/renew"),
        json!({"lease": job["lease"], "progress": 3}),
    );
    assert_eq!(status, 200);
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let (_, running) = server.get(&path);
        if running["done"] == 3 {
            break;
        }
        assert!(Instant::now() < until, "progress not told: {running}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let answer: Value = serde_json::from_str(&answer_job(&server, KEY_A, &job)).expect("JSON");
    let until = Instant::now() + Duration::from_secs(5);
    let done = loop {
        let (_, analysis) = server.get(&path);
        if analysis["status"] == "done" {
            break analysis;
        }
        assert!(Instant::now() < until, "not kept: {analysis}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(done["positions"], answer["positions"], "{done}");
    assert_eq!(done["depth"], 16);

    // A mate search and an analysis board's search: the client has the worker's answer.
    let mate_request =
        json!({"variant": "tori", "sfen": "5sk/5s1/6C/7/7/7/K6 b F 1", "max_moves": 3});
    let analyse_request = json!({"variant": "wa", "options": {"drops": false}, "moves": ["6k5j"], "depth": 3, "lines": 2});
    for (route, request, kind) in [
        ("/api/mate", mate_request, "mate"),
        ("/api/analyse", analyse_request, "analyse"),
    ] {
        let asking = {
            let base = server.base.clone();
            std::thread::spawn(move || {
                response(ureq::post(&format!("{base}{route}")).send_json(request))
            })
        };
        let job = lease(&server, KEY_B, 5_000);
        assert_eq!(job["kind"], kind, "{job}");
        let answer: Value = serde_json::from_str(&answer_job(&server, KEY_B, &job)).expect("JSON");
        let (status, reply) = asking.join().expect("the request");
        assert_eq!(status, 200, "{reply}");
        assert_eq!(reply, answer);
    }
    let (_, mate) = server.get("/api/engine/queue");
    assert_eq!(mate["waiting"], 0, "{mate}");

    // A computer's move whose game is aborted before a worker takes it: withdrawn.
    let (status, created) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine", "side": "gote", "level": 2, "clock": long_clock()}),
    );
    assert_eq!(status, 201, "{created}");
    let aborted = created["game_id"].as_str().expect("id").to_string();
    let (status, view) = server.post(
        &format!("/api/games/{aborted}/abort"),
        json!({"token": created["token"]}),
    );
    assert_eq!(status, 200, "{view}");
    std::thread::sleep(Duration::from_millis(1_200));
    assert_eq!(
        lease(&server, KEY_A, 300),
        Value::Null,
        "a job left for an aborted game"
    );

    // Another game's analysis, then a computer's move, and nobody takes either: the queue is
    // long and says so, and the move goes first though the analysis waited longer.
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    server.play_moves(&id, &sente, &gote, &played[..2]);
    let (status, _) = server.post(&format!("/api/games/{id}/resign"), json!({"token": gote}));
    assert_eq!(status, 200);
    let (status, _) = server.post(&format!("/api/games/{id}/analysis"), json!({}));
    assert_eq!(status, 200);
    let (status, created) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "engine", "side": "gote", "level": 2, "clock": long_clock()}),
    );
    assert_eq!(status, 201, "{created}");
    std::thread::sleep(Duration::from_millis(4_000));
    let (status, queue) = server.get("/api/engine/queue");
    assert_eq!(status, 200);
    // The page's wait is the computer's moves': the analysis waiting is not counted.
    assert_eq!(queue["waiting"], 1, "{queue}");
    assert!(queue["oldest_wait_ms"].as_u64() >= Some(3_000), "{queue}");
    assert_eq!(queue["long"], true, "{queue}");
    let job = lease(&server, KEY_A, 5_000);
    assert_eq!(job["kind"], "move", "{job}");
    answer_job(&server, KEY_A, &job);
    let job = lease(&server, KEY_A, 5_000);
    assert_eq!(job["kind"], "game", "{job}");
    answer_job(&server, KEY_A, &job);

    // What each worker got through, counted from the jobs of every instance.
    let metrics = ureq::get(&format!("{}/metrics", server.base))
        .call()
        .expect("/metrics")
        .into_string()
        .expect("text");
    for line in [
        "tsubame_worker_jobs_answered_last_hour{worker=\"a\"} 3",
        "tsubame_worker_jobs_answered_last_hour{worker=\"b\"} 2",
        "tsubame_worker_jobs_waiting 0",
    ] {
        assert!(
            metrics.lines().any(|l| l == line),
            "{line} not in {metrics}"
        );
    }
    assert!(
        metrics.contains("tsubame_engine_wait_seconds_count 1"),
        "{metrics}"
    );
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
    analyses_and_mate_searches_go_to_the_workers,
    a_server_without_workers_refuses_them
);
