//! `tsubame serve --engine-workers` with real `tsubame worker` processes and keys made by
//! `tsubame admin worker-key add`: a worker killed with -9 in the middle of a game's analysis
//! loses the job to another worker once its lease runs out, and the analysis is kept whole;
//! the computer's moves are played by the workers too.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};
use tsubame_rules::{AnyGame, Options, tori};

const TSUBAME: &str = env!("CARGO_BIN_EXE_tsubame");

/// A directory of its own for one test, emptied first.
fn scratch(name: &str) -> std::path::PathBuf {
    let directory =
        std::env::temp_dir().join(format!("tsubame-workers-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).expect("scratch directory");
    directory
}

/// A child process killed when the test ends, however it ends.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Makes a worker key with `tsubame admin worker-key add`.
fn add_key(database: &str, name: &str) -> String {
    let made = Command::new(TSUBAME)
        .args(["admin", "--database", database, "worker-key", "add", name])
        .output()
        .expect("run tsubame admin");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let key = String::from_utf8(made.stdout)
        .expect("text")
        .trim()
        .to_string();
    assert!(key.starts_with("tsw_"), "{key}");
    key
}

/// Starts `tsubame worker` with `key`; its log lines come through the receiver.
fn start_worker(base: &str, key: &str) -> (Process, Receiver<String>) {
    let mut child = Command::new(TSUBAME)
        .args(["worker", "--server", base, "--threads", "1"])
        .env("TSUBAME_WORKER_KEY", key)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tsubame worker");
    let stderr = child.stderr.take().expect("stderr");
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                return;
            }
        }
    });
    (Process(child), received)
}

/// Waits for a worker's log line containing `wanted`.
fn wait_for_line(lines: &Receiver<String>, wanted: &str, limit: Duration) -> String {
    let until = Instant::now() + limit;
    let mut seen = Vec::new();
    loop {
        let left = until.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if line.contains(wanted) => return line,
            Ok(line) => seen.push(line),
            Err(_) => panic!("no line with {wanted:?} within {limit:?}; seen: {seen:#?}"),
        }
    }
}

fn call(result: Result<ureq::Response, ureq::Error>) -> (u16, Value) {
    match result {
        Ok(r) => (r.status(), r.into_json().unwrap_or(Value::Null)),
        Err(ureq::Error::Status(code, r)) => (code, r.into_json().unwrap_or(Value::Null)),
        Err(e) => panic!("request failed: {e}"),
    }
}

fn post(base: &str, path: &str, body: Value) -> (u16, Value) {
    call(ureq::post(&format!("{base}{path}")).send_json(body))
}

fn get(base: &str, path: &str) -> (u16, Value) {
    call(ureq::get(&format!("{base}{path}")).call())
}

/// Ten legal Tori moves from the start, USI text: the first legal move each turn.
fn some_moves() -> Vec<String> {
    let mut game = AnyGame::new(Options::defaults(tori::spec())).expect("Tori");
    (0..10)
        .map(|_| {
            let position = game.position();
            let mv = position.legal_moves()[0];
            let usi = position.to_usi(mv);
            game.play(mv).expect("legal");
            assert!(game.outcome().is_none());
            usi
        })
        .collect()
}

#[test]
fn a_worker_killed_mid_job_loses_it_to_another_and_nothing_is_lost() {
    let directory = scratch("killed");
    let database = format!("sqlite://{}", directory.join("site.db").display());
    let first_key = add_key(&database, "first");
    let second_key = add_key(&database, "second");

    let mut serve = Command::new(TSUBAME)
        .args(["serve", "--listen", "127.0.0.1:0", "--database", &database])
        .args(["--engine-workers", "--worker-lease-seconds", "1"])
        .env("TSUBAME_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .expect("start tsubame serve");
    let stdout = serve.stdout.take().expect("stdout");
    let _serve = Process(serve);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the address");
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();

    // A finished game of eleven positions: three seconds of a worker's search.
    let (status, created) = post(
        &base,
        "/api/games",
        json!({"variant": "tori", "opponent": "human"}),
    );
    assert_eq!(status, 201, "{created}");
    let game = created["game_id"].as_str().expect("id").to_string();
    let (status, joined) = post(
        &base,
        &format!("/api/games/{game}/join"),
        json!({"invite": created["invite"]}),
    );
    assert_eq!(status, 200, "{joined}");
    let tokens = [created["token"].clone(), joined["token"].clone()];
    let moves = some_moves();
    for (ply, usi) in moves.iter().enumerate() {
        let (status, played) = post(
            &base,
            &format!("/api/games/{game}/moves"),
            json!({"token": tokens[ply % 2], "move": usi}),
        );
        assert_eq!(status, 200, "{usi}: {played}");
    }
    let (status, _) = post(
        &base,
        &format!("/api/games/{game}/resign"),
        json!({"token": tokens[0]}),
    );
    assert_eq!(status, 200);
    let analysis = format!("/api/games/{game}/analysis");
    let (status, started) = post(&base, &analysis, json!({}));
    assert_eq!(status, 200, "{started}");

    // The first worker takes the job and is killed in the middle of it.
    let (mut first, first_log) = start_worker(&base, &first_key);
    wait_for_line(
        &first_log,
        &format!("job game:{game} taken (lease 1)"),
        Duration::from_secs(20),
    );
    std::thread::sleep(Duration::from_millis(700));
    first.0.kill().expect("kill -9");
    first.0.wait().expect("wait");
    let (_, running) = get(&base, &analysis);
    assert_eq!(running["status"], "running", "{running}");

    // The second takes it once the lease has run out, and finishes it.
    let (_second, second_log) = start_worker(&base, &second_key);
    wait_for_line(
        &second_log,
        &format!("job game:{game} taken (lease 2)"),
        Duration::from_secs(20),
    );
    wait_for_line(
        &second_log,
        &format!("job game:{game} answered"),
        Duration::from_secs(60),
    );
    let until = Instant::now() + Duration::from_secs(10);
    let done = loop {
        let (_, analysis) = get(&base, &analysis);
        if analysis["status"] == "done" {
            break analysis;
        }
        assert!(Instant::now() < until, "not kept: {analysis}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let positions = done["positions"].as_array().expect("positions");
    assert_eq!(positions.len(), moves.len() + 1, "{done}");
    assert!(
        positions
            .iter()
            .all(|p| p["score"].is_string() && !p["pv"].as_array().expect("pv").is_empty()),
        "{done}"
    );

    // The computer's move, by the worker left.
    let (status, created) = post(
        &base,
        "/api/games",
        json!({"variant": "tori", "opponent": "engine", "side": "gote", "level": 8}),
    );
    assert_eq!(status, 201, "{created}");
    let computer_game = created["game_id"].as_str().expect("id").to_string();
    wait_for_line(
        &second_log,
        &format!("job move:{computer_game}:0 answered"),
        Duration::from_secs(60),
    );
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, view) = get(&base, &format!("/api/games/{computer_game}"));
        if view["ply"] == 1 {
            break;
        }
        assert!(Instant::now() < until, "the computer did not move: {view}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let metrics = ureq::get(&format!("{base}/metrics"))
        .call()
        .expect("/metrics")
        .into_string()
        .expect("text");
    assert!(
        metrics
            .lines()
            .any(|l| l == "tsubame_worker_jobs_answered_last_hour{worker=\"second\"} 2"),
        "{metrics}"
    );
    assert!(
        !metrics.contains("worker=\"first\""),
        "the killed worker answered nothing: {metrics}"
    );
    let _ = std::fs::remove_dir_all(&directory);
}
