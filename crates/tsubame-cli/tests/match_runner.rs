//! Drives `tsubame match`: short matches of the engine against itself over USI and UCI, and
//! matches against broken engines (shell scripts) that must lose every game with the right
//! reason while the match goes on.

use std::path::{Path, PathBuf};
use std::process::Command;
use tsubame_rules::{Game, Options, Status, tori, wa};

const BIN: &str = env!("CARGO_BIN_EXE_tsubame");

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tsubame-match-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_match(arguments: &[&str]) -> String {
    let output = Command::new(BIN)
        .arg("match")
        .args(arguments)
        .output()
        .expect("run tsubame match");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "tsubame match failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn wdl(stdout: &str) -> (u32, u32, u32) {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("W-D-L: "))
        .unwrap_or_else(|| panic!("no W-D-L line in {stdout}"));
    let numbers: Vec<u32> = line
        .split_whitespace()
        .next()
        .unwrap()
        .split('-')
        .map(|n| n.parse().unwrap())
        .collect();
    (numbers[0], numbers[1], numbers[2])
}

fn records(dir: &Path) -> Vec<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect()
}

fn self_play(variant: &str, option: &str, protocol: &str) {
    let dir = scratch(&format!("{variant}-{protocol}"));
    let engine = format!("{BIN} engine {protocol}");
    let records_dir = dir.join("records");
    let stdout = run_match(&[
        "--variant",
        variant,
        "--option",
        option,
        "--engine1",
        &engine,
        "--protocol1",
        protocol,
        "--engine2",
        &engine,
        "--protocol2",
        protocol,
        "--games",
        "4",
        "--time",
        "nodes=500",
        "--concurrency",
        "2",
        "--max-plies",
        "300",
        "--records",
        records_dir.to_str().unwrap(),
    ]);
    let (w, d, l) = wdl(&stdout);
    assert_eq!(w + d + l, 4, "{stdout}");
    let games: Vec<&str> = stdout.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(games.len(), 4, "{stdout}");
    assert!(stdout.contains("Elo: "), "{stdout}");
    let records = records(&records_dir);
    assert_eq!(records.len(), 4);
    for record in &records {
        assert!(
            record.contains(&format!("[Variant \"{variant}\"]")),
            "{record}"
        );
        assert!(record.contains(option), "{record}");
        let reason = record
            .lines()
            .find_map(|l| l.strip_prefix("[Reason \""))
            .unwrap_or_else(|| panic!("no reason in {record}"));
        assert!(
            [
                "checkmate",
                "stalemate",
                "repetition",
                "perpetual-check",
                "drop-mate",
                "move-limit",
                "royal-captured"
            ]
            .iter()
            .any(|r| reason.starts_with(r)),
            "an engine failure in self-play: {record}"
        );
        replay(variant, record, reason);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Replays a record with the rules library: every move legal, and the recorded reason the
/// rules' own verdict (or the match's move limit).
fn replay(variant: &str, record: &str, reason: &str) {
    let tag = |name: &str| {
        record
            .lines()
            .find_map(|l| l.strip_prefix(&format!("[{name} \"")))
            .and_then(|rest| rest.strip_suffix("\"]"))
            .unwrap_or_else(|| panic!("no {name} tag in {record}"))
            .to_string()
    };
    let start = tag("Start");
    let options = tag("Options").replace(' ', ",");
    let moves: Vec<&str> = record
        .split("\n\n")
        .nth(1)
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let status = match variant {
        "tori" => play(tori::tables(), &start, &options, &moves),
        "tenjiku" => {
            let options = Options::parse(tsubame_rules::tenjiku::spec(), &options).unwrap();
            let mut game = tsubame_rules::tenjiku::TenjikuGame::from_sfen(&start, options).unwrap();
            for mv in &moves {
                game.play_usi(mv)
                    .unwrap_or_else(|e| panic!("{mv} from {start}: {e}"));
            }
            game.status()
        }
        _ => play(wa::tables(), &start, &options, &moves),
    };
    match status {
        Status::Finished(outcome) => assert!(reason.starts_with(outcome.reason.name()), "{record}"),
        Status::Ongoing => assert!(reason.starts_with("move-limit"), "{record}"),
    }
}

fn play<B: tsubame_rules::Bitboard>(
    tables: &'static tsubame_rules::Tables<B>,
    start: &str,
    options: &str,
    moves: &[&str],
) -> Status {
    let options = Options::parse(tables.spec, options).unwrap();
    let mut game = Game::from_sfen(tables, start, options).unwrap();
    for mv in moves {
        game.play_usi(mv)
            .unwrap_or_else(|e| panic!("{mv} from {start}: {e}"));
    }
    game.status()
}

#[test]
fn tori_self_play_over_usi() {
    self_play("tori", "drop-mate=illegal", "usi");
}

#[test]
fn tenjiku_self_play_over_usi() {
    self_play("tenjiku", "demon-conflict=adams", "usi");
}

#[test]
fn wa_without_drops_self_play_over_uci() {
    self_play("wa", "drops=off", "uci");
}

const BROKEN: &str = r#"#!/bin/sh
mode="$1"
while IFS= read -r line; do
  case "$line" in
    usi|uci) echo "id name Broken $mode"; echo "${line}ok" ;;
    isready) echo readyok ;;
    go*)
      case "$mode" in
        illegal) echo "bestmove 9z9z" ;;
        garbage) printf '\377\376 nonsense\n'; echo "info depth x"; echo "bestmove ~~~" ;;
        exit) exit 0 ;;
        silent) ;;
      esac ;;
    quit) exit 0 ;;
  esac
done
"#;

/// Engine 1 is a broken script; every game must be its loss for `reason`.
fn against_broken(mode: &str, reason: &str, games: u32) {
    let dir = scratch(&format!("broken-{mode}"));
    let script = dir.join("broken.sh");
    std::fs::write(&script, BROKEN).unwrap();
    let broken = format!("sh {} {mode}", script.display());
    let good = format!("{BIN} engine usi");
    let records_dir = dir.join("records");
    let stdout = run_match(&[
        "--variant",
        "tori",
        "--engine1",
        &broken,
        "--engine2",
        &good,
        "--games",
        &games.to_string(),
        "--time",
        "movetime=50",
        "--records",
        records_dir.to_str().unwrap(),
    ]);
    assert_eq!(wdl(&stdout), (0, 0, games), "{stdout}");
    assert!(
        stdout.contains(&format!("endings: {reason} {games}")),
        "{stdout}"
    );
    for record in records(&records_dir) {
        assert!(
            record.contains(&format!("[Reason \"{reason}\"]")),
            "{record}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_illegal_move_loses() {
    against_broken("illegal", "illegal-move", 4);
}

#[test]
fn garbage_output_loses() {
    against_broken("garbage", "illegal-move", 2);
}

#[test]
fn an_engine_that_exits_loses_and_is_restarted() {
    against_broken("exit", "crash", 4);
}

#[test]
fn a_silent_engine_loses_for_no_response() {
    against_broken("silent", "no-response", 2);
}

#[test]
fn bad_arguments_are_refused() {
    for arguments in [
        &["--engine1", "x", "--engine2", "y", "--time", "fast"][..],
        &[
            "--engine1",
            "/nonexistent/engine",
            "--engine2",
            "y",
            "--time",
            "nodes=10",
        ],
        &[
            "--engine1",
            "x",
            "--engine2",
            "y",
            "--time",
            "nodes=10",
            "--sprt",
            "10,0,0.05,0.05",
        ],
    ] {
        let output = Command::new(BIN)
            .arg("match")
            .args(arguments)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{arguments:?}");
    }
}

#[test]
fn the_sprt_stops_a_hopeless_match_early() {
    let dir = scratch("sprt");
    let script = dir.join("broken.sh");
    std::fs::write(&script, BROKEN).unwrap();
    let broken = format!("sh {} illegal", script.display());
    let good = format!("{BIN} engine usi");
    let stdout = run_match(&[
        "--engine1",
        &broken,
        "--engine2",
        &good,
        "--games",
        "200",
        "--time",
        "movetime=20",
        "--sprt",
        "0,10,0.05,0.05",
    ]);
    let (w, d, l) = wdl(&stdout);
    assert_eq!((w, d), (0, 0), "{stdout}");
    assert!(l < 200, "{stdout}");
    assert!(stdout.contains(": accept H0"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
