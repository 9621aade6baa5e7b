//! A database whose disk fills while games are played: every move, game and end is either
//! stored or refused with 503 (never acknowledged and lost), `/readyz` says 503 while writes
//! fail, and the server takes writes again by itself when space returns. SQLite on a tiny
//! tmpfs, and PostgreSQL with the test database in a table space on one (when
//! `TSUBAME_TEST_POSTGRES` names a server). Mounting needs root: without it the test says so
//! and skips, except under `CI=true`, where it fails.

use crate::common::*;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A tmpfs of a few MiB, unmounted (and its directory removed) when dropped.
struct TinyDisk {
    path: PathBuf,
}

impl TinyDisk {
    /// Mounts one; `None` (after saying why) where this process may not mount, which fails
    /// the test under `CI=true`.
    fn mount(mebibytes: u32) -> Option<TinyDisk> {
        let path = std::env::temp_dir().join(format!(
            "tsubame-tiny-disk-{}-{:x}",
            std::process::id(),
            tempdir::rand_u64()
        ));
        std::fs::create_dir_all(&path).expect("mount point");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={mebibytes}m,mode=0777")])
            .arg("tmpfs")
            .arg(&path)
            .output();
        match mounted {
            Ok(output) if output.status.success() => Some(TinyDisk { path }),
            failed => {
                let _ = std::fs::remove_dir(&path);
                let why = match failed {
                    Ok(output) => String::from_utf8_lossy(&output.stderr).trim().to_string(),
                    Err(e) => e.to_string(),
                };
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "cannot mount a tmpfs for the disk-full test (root is needed): {why}"
                );
                eprintln!("SKIPPED: cannot mount a tmpfs (root is needed): {why}");
                None
            }
        }
    }

    /// Fills what space is left with a file; removing it gives the space back.
    fn fill(&self) -> PathBuf {
        let filler = self.path.join("filler");
        let mut file = std::fs::File::create(&filler).expect("filler file");
        let block = vec![0x5a_u8; 64 * 1024];
        loop {
            if file.write_all(&block).is_err() {
                break;
            }
        }
        // The last block may have fitted in part.
        loop {
            if file.write_all(&block[..512]).is_err() {
                break;
            }
        }
        let _ = file.sync_all();
        filler
    }
}

impl Drop for TinyDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.path).status();
        let _ = std::fs::remove_dir(&self.path);
    }
}

/// What the players were told: each game's plies acknowledged, and how requests were
/// answered (status → count).
#[derive(Default)]
struct Told {
    plies: HashMap<String, u64>,
    statuses: HashMap<u16, u64>,
}

type Shared = Arc<Mutex<Told>>;

fn note(told: &Shared, status: u16) {
    *told
        .lock()
        .expect("told")
        .statuses
        .entry(status)
        .or_default() += 1;
}

fn count(told: &Shared, status: u16) -> u64 {
    told.lock()
        .expect("told")
        .statuses
        .get(&status)
        .copied()
        .unwrap_or(0)
}

fn acknowledged_plies(told: &Shared) -> u64 {
    told.lock().expect("told").plies.values().sum()
}

/// A new game with both seats taken, its id and the seats' tokens; none when the server
/// refused (the refusals noted, a join refused with 503 tried again until it is taken or the
/// test stops).
fn seated_game(server: &Server, told: &Shared, stop: &AtomicBool) -> Option<(String, [String; 2])> {
    let (status, created) = server.post(
        "/api/games",
        json!({"variant": "tori", "opponent": "human", "clock": long_clock()}),
    );
    note(told, status);
    if status != 201 {
        std::thread::sleep(Duration::from_millis(50));
        return None;
    }
    let id = created["game_id"].as_str().expect("id").to_string();
    told.lock().expect("told").plies.insert(id.clone(), 0);
    let (status, joined) = loop {
        let (status, joined) = server.post(
            &format!("/api/games/{id}/join"),
            json!({"invite": created["invite"]}),
        );
        note(told, status);
        if status != 503 || stop.load(Ordering::Relaxed) {
            break (status, joined);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if status != 200 {
        return None;
    }
    let tokens = [
        created["token"].as_str().expect("token").to_string(),
        joined["token"].as_str().expect("token").to_string(),
    ];
    Some((id, tokens))
}

/// A random legal move of a game as the server shows it, and the seat to move (0 for sente);
/// none when there is no move.
fn random_move(view: &Value, rng: &mut impl Rng) -> Option<(String, usize)> {
    let legal: Vec<&str> = view["legal_moves"]
        .as_array()
        .map(|moves| moves.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let usi = legal.get(rng.gen_range(0..legal.len().max(1)))?.to_string();
    Some((usi, usize::from(view["side_to_move"] != "sente")))
}

/// An HTTP player: makes games between its two seats and plays random legal moves until told
/// to stop, recording every acknowledgement.
fn http_player(server: &Server, seed: u64, told: &Shared, stop: &AtomicBool) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    while !stop.load(Ordering::Relaxed) {
        let Some((id, tokens)) = seated_game(server, told, stop) else {
            continue;
        };
        let (_, mut view) = server.get(&format!("/api/games/{id}"));
        while !stop.load(Ordering::Relaxed) && view["status"] == "playing" {
            let Some((usi, side)) = random_move(&view, &mut rng) else {
                break;
            };
            let (status, answer) = server.post(
                &format!("/api/games/{id}/moves"),
                json!({"token": tokens[side], "move": usi}),
            );
            note(told, status);
            match status {
                200 => {
                    let ply = answer["ply"].as_u64().expect("ply");
                    told.lock().expect("told").plies.insert(id.clone(), ply);
                    view = answer;
                }
                503 => {
                    let message = answer["error"].as_str().unwrap_or_default();
                    assert!(
                        message.contains("cannot save the move right now"),
                        "a refused move says why: {answer}"
                    );
                    std::thread::sleep(Duration::from_millis(10));
                }
                other => panic!("a move was answered {other}: {answer}"),
            }
        }
    }
}

/// A WebSocket player: one game whose moves both seats send over their sockets, each
/// acknowledgement (`ack`) recorded.
fn socket_player(server: &Server, seed: u64, told: &Shared, stop: &AtomicBool) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    while !stop.load(Ordering::Relaxed) {
        let Some((id, tokens)) = seated_game(server, told, stop) else {
            continue;
        };
        let mut sockets = [
            server.socket(&id, Some(&tokens[0])),
            server.socket(&id, Some(&tokens[1])),
        ];
        for socket in &mut sockets {
            socket.wait_for(Duration::from_secs(5), |m| m["type"] == "hello");
        }
        let mut sent = 0u64;
        while !stop.load(Ordering::Relaxed) {
            let (_, view) = server.get(&format!("/api/games/{id}"));
            if view["status"] != "playing" {
                break;
            }
            let Some((usi, side)) = random_move(&view, &mut rng) else {
                break;
            };
            sent += 1;
            let request = format!("m{sent}");
            sockets[side].send(json!({"type": "move", "move": usi, "id": request}));
            let answer = sockets[side].wait_for(Duration::from_secs(10), |m| m["id"] == request);
            match answer["type"].as_str() {
                Some("ack") => {
                    note(told, 200);
                    let ply = answer["ply"].as_u64().expect("ply");
                    told.lock().expect("told").plies.insert(id.clone(), ply);
                }
                _ => {
                    assert_eq!(answer["status"], 503, "a socket move refused: {answer}");
                    note(told, 503);
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
        }
    }
}

fn ready_status(server: &Server) -> u16 {
    match ureq::get(&format!("{}/readyz", server.base)).call() {
        Ok(response) => response.status(),
        Err(ureq::Error::Status(code, _)) => code,
        Err(e) => panic!("readyz: {e}"),
    }
}

fn metric(server: &Server, name: &str) -> f64 {
    let text = ureq::get(&format!("{}/metrics", server.base))
        .call()
        .expect("metrics")
        .into_string()
        .expect("metrics text");
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no metric {name}"))
}

/// Plays games over HTTP and WebSockets while `disk` fills and empties again, then restarts
/// the server with `kill -9` and compares every acknowledged game with what is stored.
fn games_survive_a_full_disk(db: &Db, disk: &TinyDisk) {
    let server = Server::start_with(db, &["--games-per-minute", "100000"]);
    let told: Shared = Arc::default();
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for seed in 0..4 {
            let (server, told, stop) = (&server, &told, &stop);
            scope.spawn(move || http_player(server, seed, told, stop));
        }
        for seed in 10..12 {
            let (server, told, stop) = (&server, &told, &stop);
            scope.spawn(move || socket_player(server, seed, told, stop));
        }
        let controller = || {
            wait_until(Duration::from_secs(20), "moves are played", || {
                acknowledged_plies(&told) >= 200
            });
            assert_eq!(ready_status(&server), 200);
            let filler = disk.fill();
            wait_until(
                Duration::from_secs(30),
                "moves are refused with 503",
                || count(&told, 503) >= 20,
            );
            wait_until(Duration::from_secs(5), "/readyz says 503", || {
                ready_status(&server) == 503
            });
            assert_eq!(metric(&server, "tsubame_database_writable"), 0.0);
            assert!(metric(&server, "tsubame_database_write_failures_total") >= 20.0);
            let acknowledged_while_full = acknowledged_plies(&told);
            std::fs::remove_file(&filler).expect("give the space back");
            wait_until(Duration::from_secs(10), "/readyz says 200 again", || {
                ready_status(&server) == 200
            });
            wait_until(Duration::from_secs(20), "moves are stored again", || {
                acknowledged_plies(&told) >= acknowledged_while_full + 100
            });
            assert_eq!(metric(&server, "tsubame_database_writable"), 1.0);
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(controller));
        stop.store(true, Ordering::Relaxed);
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
    });
    let statuses = told.lock().expect("told").statuses.clone();
    assert!(
        !statuses.contains_key(&500),
        "nothing fails with 500: {statuses:?}"
    );
    server.kill9();
    let server = Server::start(db);
    let plies = told.lock().expect("told").plies.clone();
    let mut lost = Vec::new();
    for (id, acknowledged) in &plies {
        let (status, view) = server.get(&format!("/api/games/{id}"));
        assert_eq!(status, 200, "game {id}, acknowledged, is stored: {view}");
        let stored = view["ply"].as_u64().expect("ply");
        if stored != *acknowledged {
            lost.push((id.clone(), *acknowledged, stored));
        }
        assert_eq!(db.stored_moves(id).len() as u64, stored);
    }
    assert!(
        lost.is_empty(),
        "games as acknowledged (id, acknowledged, stored): {lost:?}; statuses {statuses:?}"
    );
    eprintln!(
        "{} games, {} plies acknowledged and stored; answers {statuses:?}",
        plies.len(),
        plies.values().sum::<u64>()
    );
}

#[test]
fn sqlite_on_a_full_disk_loses_nothing() {
    let Some(disk) = TinyDisk::mount(16) else {
        return;
    };
    let db = Db::Sqlite(tempdir::Dir(disk.path.join("db")));
    std::fs::create_dir_all(disk.path.join("db")).expect("database directory");
    games_survive_a_full_disk(&db, &disk);
}

/// The test PostgreSQL server's data directory owner, who must own a table space's directory.
fn postgres_owner(base: &str) -> u32 {
    use std::os::unix::fs::MetadataExt;
    let directory: String = runtime().block_on(async {
        use sqlx::Connection;
        let mut connection = sqlx::PgConnection::connect(base)
            .await
            .expect("connect to the test PostgreSQL");
        let (directory,): (String,) = sqlx::query_as("SHOW data_directory")
            .fetch_one(&mut connection)
            .await
            .expect("data directory");
        directory
    });
    std::fs::metadata(Path::new(&directory))
        .expect("the data directory")
        .uid()
}

/// Runs `statement` on the test server's own database.
fn postgres_admin(base: &str, statement: &str) {
    runtime().block_on(async {
        use sqlx::Connection;
        let mut connection = sqlx::PgConnection::connect(base)
            .await
            .expect("connect to the test PostgreSQL");
        sqlx::Executor::execute(&mut connection, statement)
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    });
}

#[test]
fn postgres_on_a_full_table_space_loses_nothing() {
    let Ok(base) = std::env::var("TSUBAME_TEST_POSTGRES") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "TSUBAME_TEST_POSTGRES is not set (scripts/with-test-postgres sets it)"
        );
        eprintln!("SKIPPED against PostgreSQL: TSUBAME_TEST_POSTGRES is not set");
        return;
    };
    let Some(disk) = TinyDisk::mount(64) else {
        return;
    };
    let space = disk.path.join("space");
    std::fs::create_dir_all(&space).expect("table space directory");
    std::os::unix::fs::chown(&space, Some(postgres_owner(&base)), None)
        .expect("give the table space to PostgreSQL");
    let suffix = format!("{:x}", tempdir::rand_u64());
    let (space_name, database) = (format!("tiny_{suffix}"), format!("tsubame_full_{suffix}"));
    postgres_admin(
        &base,
        &format!(
            "CREATE TABLESPACE {space_name} LOCATION '{}'",
            space.display()
        ),
    );
    postgres_admin(
        &base,
        &format!("CREATE DATABASE {database} TABLESPACE {space_name}"),
    );
    let (prefix, _) = base.rsplit_once('/').expect("postgres URL with a database");
    let db = Db::Postgres(format!("{prefix}/{database}"));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        games_survive_a_full_disk(&db, &disk)
    }));
    postgres_admin(
        &base,
        &format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"),
    );
    postgres_admin(&base, &format!("DROP TABLESPACE IF EXISTS {space_name}"));
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}
