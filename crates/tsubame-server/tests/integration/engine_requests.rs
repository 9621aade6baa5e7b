//! Engine requests keep to their limits before they cost anything: a mate search, an analysis
//! or a replay of a long Tenjiku record is refused for its address's share or the queue before
//! its moves are replayed, the replay runs off the server's own threads (the probes answer
//! meanwhile), and a mate search keeps to the time it was given.

use crate::common::*;
use serde_json::{Value, json};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};
use tsubame_rules::{AnyGame, Variant};

/// A Tenjiku game of `plies` legal moves (chosen the same way every run, the game still going),
/// as USI texts.
fn long_tenjiku_record(plies: usize) -> Vec<String> {
    let mut game = AnyGame::new(Variant::Tenjiku.default_options()).expect("Tenjiku");
    let mut record = Vec::new();
    while record.len() < plies {
        let position = game.position();
        let moves = game.legal_moves();
        let mut played = false;
        for offset in 0..moves.len() {
            let mv = moves[(record.len() * 13 + 5 + offset) % moves.len()];
            if game.play(mv).is_err() {
                continue;
            }
            if game.outcome().is_none() {
                record.push(position.to_usi(mv));
                played = true;
                break;
            }
            game.undo();
        }
        assert!(
            played,
            "no move keeps the game going at ply {}",
            record.len()
        );
    }
    record
}

/// Sends every request at once: (status, seconds it took) each.
fn at_once(base: &str, path: &str, bodies: Vec<Value>) -> Vec<(u16, f64)> {
    let barrier = Arc::new(Barrier::new(bodies.len()));
    let threads: Vec<_> = bodies
        .into_iter()
        .map(|body| {
            let url = format!("{base}{path}");
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                let started = Instant::now();
                let (status, _) = response(ureq::post(&url).send_json(body));
                (status, started.elapsed().as_secs_f64())
            })
        })
        .collect();
    threads
        .into_iter()
        .map(|t| t.join().expect("thread"))
        .collect()
}

/// The slowest `/healthz` answer while `busy` runs.
fn slowest_probe_while(
    base: &str,
    busy: impl FnOnce() -> Vec<(u16, f64)>,
) -> (f64, Vec<(u16, f64)>) {
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let prober = {
        let url = format!("{base}/healthz");
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut slowest = 0f64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let started = Instant::now();
                let _ = ureq::get(&url).call();
                slowest = slowest.max(started.elapsed().as_secs_f64());
                std::thread::sleep(Duration::from_millis(20));
            }
            slowest
        })
    };
    let answers = busy();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    (prober.join().expect("prober"), answers)
}

/// The tests of this file measure time: they run one at a time, so that one's searches do
/// not slow another's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn limits_come_before_the_work(db: &Db) {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let record = long_tenjiku_record(167);
    let server = Server::start_with(db, &["--engine-slots", "1", "--analyses-per-client", "2"]);
    let mate = json!({"variant": "tenjiku", "moves": record, "max_moves": 31, "movetime_ms": 1500});
    let (slowest, answers) = slowest_probe_while(&server.base, || {
        at_once(&server.base, "/api/mate", vec![mate.clone(); 6])
    });
    let refused: Vec<f64> = answers.iter().filter(|a| a.0 == 429).map(|a| a.1).collect();
    assert_eq!(refused.len(), 4, "two at once per address: {answers:?}");
    assert!(
        refused.iter().all(|&seconds| seconds < 0.25),
        "a refusal replays nothing first: {answers:?}"
    );
    assert!(
        slowest < 0.25,
        "/healthz took {slowest:.3} s meanwhile: {answers:?}"
    );

    let replay = json!({"variant": "tenjiku", "moves": record});
    let (slowest, answers) = slowest_probe_while(&server.base, || {
        at_once(&server.base, "/api/replay", vec![replay.clone(); 6])
    });
    assert_eq!(
        answers.iter().filter(|a| a.0 == 200).count()
            + answers.iter().filter(|a| a.0 == 429).count(),
        6,
        "{answers:?}"
    );
    assert!(
        answers.iter().any(|a| a.0 == 429),
        "replays are limited too: {answers:?}"
    );

    // Replays have a share of their own: an address with both its searches running (the
    // analysis board, whose last search is still stopping) still has its position replayed.
    let short = json!({"variant": "tenjiku", "moves": &record[..20]});
    let answers = {
        let searches = {
            let base = server.base.clone();
            let mate = mate.clone();
            std::thread::spawn(move || at_once(&base, "/api/mate", vec![mate; 2]))
        };
        std::thread::sleep(Duration::from_millis(300));
        let replay = at_once(&server.base, "/api/replay", vec![short]);
        (searches.join().expect("searches"), replay)
    };
    assert!(
        answers.0.iter().all(|a| a.0 == 200),
        "both searches run: {answers:?}"
    );
    assert_eq!(answers.1[0].0, 200, "the replay beside them: {answers:?}");
    assert!(
        slowest < 0.25,
        "/healthz took {slowest:.3} s meanwhile: {answers:?}"
    );
}

/// A mate search given 10 ms or 100 ms answers within 20 ms of it (the best of three tries,
/// so that a machine busy with other tests does not decide it).
fn a_mate_search_keeps_its_time(db: &Db) {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let record = long_tenjiku_record(167);
    let server = Server::start(db);
    for asked in [10u64, 100] {
        let best = (0..3)
            .map(|_| {
                let (status, reply) = server.post(
                    "/api/mate",
                    json!({"variant": "tenjiku", "moves": record, "max_moves": 31,
                           "movetime_ms": asked}),
                );
                assert_eq!(status, 200, "{reply}");
                reply["time_ms"].as_u64().expect("time_ms")
            })
            .min()
            .unwrap_or(u64::MAX);
        assert!(best <= asked + 20, "asked for {asked} ms, took {best} ms");
    }
}

against_every_database!(limits_come_before_the_work, a_mate_search_keeps_its_time);
