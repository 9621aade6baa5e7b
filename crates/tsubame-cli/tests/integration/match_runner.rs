//! Drives `tsubame match`: short matches of the engine against itself over USI and UCI, and
//! matches against broken engines (shell scripts) that must lose every game with the right
//! reason while the match goes on.

use std::path::{Path, PathBuf};
use std::process::Command;
use tsubame_notation::record::Record;

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
    self_play_between(variant, option, [protocol, protocol], "nodes=500");
}

/// Four games of the engine against itself, each side over its own protocol.
fn self_play_between(variant: &str, option: &str, protocols: [&str; 2], time: &str) {
    let dir = scratch(&format!("{variant}-{}-{}", protocols[0], protocols[1]));
    let engines = protocols.map(|protocol| format!("{BIN} engine {protocol}"));
    let records_dir = dir.join("records");
    let stdout = run_match(&[
        "--variant",
        variant,
        "--option",
        option,
        "--engine1",
        &engines[0],
        "--protocol1",
        protocols[0],
        "--engine2",
        &engines[1],
        "--protocol2",
        protocols[1],
        "--games",
        "4",
        "--time",
        time,
        "--concurrency",
        "2",
        "--max-plies",
        "300",
        // The test run shares two cores between several test binaries: an answer can wait
        // hundreds of milliseconds for a core. The clock is kept all the same; only the
        // scheduling slack is wider than a match's.
        "--time-margin",
        "1500",
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
        let ending = check_record(record);
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
            .contains(&ending.as_str()),
            "an engine failure in self-play: {record}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads a match record as any record is read (every move replayed through the rules, a
/// rules reason checked against the moves) and returns how the game ended: its `Reason`, or
/// the match's own `Termination`. A game the match stopped at its move limit goes on under
/// the rules; every engine answer's time is there, one per move after the opening's (and one
/// for an answer that lost).
fn check_record(text: &str) -> String {
    let record = Record::parse(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let tag = |name: &str| record.extra_tag(name).map(str::to_string);
    let ending = match (record.reason, tag("Termination")) {
        (Some(reason), None) => reason.name().to_string(),
        (None, Some(termination)) => termination,
        other => panic!("{other:?}: one ending in {text}"),
    };
    if ending == "move-limit" {
        assert_eq!(record.replay().unwrap().outcome, None, "{text}");
    }
    let opening: usize = tag("OpeningPlies").unwrap().parse().unwrap();
    let times = tag("MoveTimes")
        .unwrap_or_default()
        .split_whitespace()
        .count();
    let answers = record.moves.len() - opening;
    // A game lost by an answer (late, illegal, garbage) has that answer's time too.
    if record.replay().unwrap().outcome.is_some() {
        assert_eq!(times, answers, "{text}");
    } else {
        assert!((answers..=answers + 1).contains(&times), "{text}");
    }
    ending
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

#[test]
fn wa_over_xboard_against_usi() {
    self_play_between("wa", "drops=off", ["xboard", "usi"], "depth=2");
}

#[test]
fn tenjiku_over_xboard_against_usi() {
    self_play_between(
        "tenjiku",
        "demon-conflict=tsa",
        ["usi", "xboard"],
        "depth=1",
    );
}

#[test]
fn tori_over_xboard_against_usi_with_a_clock() {
    self_play_between("tori", "drop-mate=loses", ["usi", "xboard"], "4+0.05");
}

/// HaChu, the XBoard engine that plays Wa without drops, in a short match. Every game must end
/// by the rules, at the move limit, or by HaChu's one known deviation from the rules: it
/// treats the treacherous fox as a second royal and so may leave its crane king in check
/// (`rules/wa-shogi.md`, "Testing against HaChu"), which loses the game as an illegal move.
#[test]
fn hachu_plays_wa_over_xboard() {
    if !Path::new("/usr/games/hachu").exists() {
        eprintln!("HaChu is not installed (scripts/install-test-deps installs it); skipped");
        return;
    }
    let dir = scratch("hachu");
    let records_dir = dir.join("records");
    let engine = format!("{BIN} engine usi");
    let stdout = run_match(&[
        "--variant",
        "wa",
        "--option",
        "drops=off",
        "--engine1",
        &engine,
        "--engine2",
        "/usr/games/hachu",
        "--protocol2",
        "xboard",
        "--engine2-option",
        "Promote on entry=0",
        // Without it HaChu refuses to repeat a position, which Wa's rules allow (the game then
        // ends as a rejected move, not by the rules).
        "--engine2-option",
        "Allow repeats=1",
        "--games",
        "2",
        "--time",
        "depth=2",
        "--max-plies",
        "120",
        "--records",
        records_dir.to_str().unwrap(),
    ]);
    assert!(stdout.contains("engine2: HaChu 0.21"), "{stdout}");
    let (w, d, l) = wdl(&stdout);
    assert_eq!(w + d + l, 2, "{stdout}");
    for record in records(&records_dir) {
        if check_record(&record) == "illegal-move" {
            let detail = record
                .lines()
                .find_map(|l| l.strip_prefix("[Detail \""))
                .unwrap_or("");
            let hachu_lost = (record.contains("[Gote \"HaChu")
                && record.contains("[Result \"1-0\"]"))
                || (record.contains("[Sente \"HaChu") && record.contains("[Result \"0-1\"]"));
            // HaChu's deviation either way round: in check, a move that does not answer it;
            // out of check, a move that exposes its crane king (it guards the fox instead).
            let king_left_attacked = detail.contains("does not answer the check")
                || detail.contains("leaves your crane king attacked");
            assert!(
                hachu_lost && king_left_attacked,
                "an illegal move other than HaChu's known one: {record}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

const BROKEN_XBOARD: &str = r#"#!/bin/sh
mode="$1"
while IFS= read -r line; do
  case "$line" in
    protover*) echo 'feature myname="Broken XBoard" usermove=1 ping=1 done=1' ;;
    ping*) echo "pong ${line#ping }" ;;
    usermove*) [ "$mode" = reject ] && echo "Illegal move: ${line#usermove }" ;;
    go) [ "$mode" = claim ] && echo "1/2-1/2 {Draw by boredom}"; [ "$mode" = resign ] && echo resign ;;
    quit) exit 0 ;;
  esac
done
"#;

/// Engine 1 is our engine over USI, engine 2 an XBoard script that misbehaves in `mode`;
/// every game must be engine 2's loss for `reason`.
fn against_broken_xboard(mode: &str, reason: &str) {
    let dir = scratch(&format!("broken-xboard-{mode}"));
    let script = dir.join("broken.sh");
    std::fs::write(&script, BROKEN_XBOARD).unwrap();
    let stdout = run_match(&[
        "--variant",
        "wa",
        "--engine1",
        &format!("{BIN} engine usi"),
        "--engine2",
        &format!("sh {} {mode}", script.display()),
        "--protocol2",
        "xboard",
        "--games",
        "2",
        "--time",
        "movetime=50",
        // The good engine must not lose on time while the test run's other lanes hold the
        // cores: every game is the broken engine's loss.
        "--time-margin",
        "1500",
    ]);
    assert!(stdout.contains("engine2: Broken XBoard"), "{stdout}");
    assert_eq!(wdl(&stdout), (2, 0, 0), "{stdout}");
    assert!(stdout.contains(&format!("endings: {reason} 2")), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_xboard_engine_that_refuses_legal_moves_loses() {
    against_broken_xboard("reject", "rejected-move");
}

#[test]
fn an_xboard_engine_that_claims_a_false_result_loses() {
    against_broken_xboard("claim", "false-claim");
}

#[test]
fn an_xboard_engine_that_resigns_loses() {
    against_broken_xboard("resign", "resignation");
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
        "--time-margin",
        "1500",
        "--records",
        records_dir.to_str().unwrap(),
    ]);
    assert_eq!(wdl(&stdout), (0, 0, games), "{stdout}");
    assert!(
        stdout.contains(&format!("endings: {reason} {games}")),
        "{stdout}"
    );
    for record in records(&records_dir) {
        assert_eq!(check_record(&record), reason, "{record}");
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
        &[
            "--engine1",
            "x",
            "--engine2",
            "y",
            "--protocol2",
            "xboard",
            "--time",
            "10+1b",
        ],
        &[
            "--engine1",
            "x",
            "--engine2",
            "y",
            "--engine1-option",
            "no-equals-sign",
            "--time",
            "depth=2",
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
        // The good engine must not lose on time while the test run's other binaries hold the
        // cores: every game is the broken engine's loss.
        "--time-margin",
        "1500",
        "--sprt",
        "0,10,0.05,0.05",
    ]);
    let (w, d, l) = wdl(&stdout);
    assert_eq!((w, d), (0, 0), "{stdout}");
    assert!(l < 200, "{stdout}");
    assert!(stdout.contains(": accept H0"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stopped_match_resumes_from_its_records() {
    let dir = scratch("resume");
    let records_dir = dir.join("records");
    let engine = format!("{BIN} engine usi");
    let arguments = |time: &'static str| {
        vec![
            "--variant".to_string(),
            "tori".into(),
            "--engine1".into(),
            engine.clone(),
            "--engine2".into(),
            engine.clone(),
            "--games".into(),
            "4".into(),
            "--time".into(),
            time.into(),
            "--records".into(),
            records_dir.to_str().unwrap().into(),
        ]
    };
    let first: Vec<String> = arguments("depth=1");
    let first: Vec<&str> = first.iter().map(String::as_str).collect();
    let before = wdl(&run_match(&first));
    let kept = std::fs::read_to_string(records_dir.join("game-0001.txt")).unwrap();
    let game4 = std::fs::read_to_string(records_dir.join("game-0004.txt")).unwrap();
    // As if the match had stopped after game 1 (game 4 finished early on another thread).
    std::fs::remove_file(records_dir.join("game-0002.txt")).unwrap();
    std::fs::remove_file(records_dir.join("game-0003.txt")).unwrap();
    let mut resumed = first.clone();
    resumed.push("--resume");
    let stdout = run_match(&resumed);
    assert!(
        stdout.contains("2 games already recorded; 2 to play"),
        "{stdout}"
    );
    // The recorded games are counted, not played again or rewritten; depth-1 self-play is
    // deterministic, so the replayed games end as they did.
    assert_eq!(wdl(&stdout), before, "{stdout}");
    assert_eq!(
        std::fs::read_to_string(records_dir.join("game-0001.txt")).unwrap(),
        kept
    );
    assert_eq!(
        std::fs::read_to_string(records_dir.join("game-0004.txt")).unwrap(),
        game4
    );
    for record in records(&records_dir) {
        check_record(&record);
    }
    // Records of another match are refused, not mixed in.
    let mut other: Vec<String> = arguments("depth=2");
    other.push("--resume".into());
    let output = Command::new(BIN)
        .arg("match")
        .args(&other)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("game-0001.txt is a game of another match (another time control)"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Time odds: each engine searches under its own control, the records say which side had
/// which, and a resumed match must give the same odds.
#[test]
fn each_engine_keeps_its_own_control_at_time_odds() {
    let dir = scratch("odds");
    let records_dir = dir.join("records");
    let engine = format!("{BIN} engine usi");
    let arguments = |strong: &'static str| {
        vec![
            "--variant".to_string(),
            "tori".into(),
            "--engine1".into(),
            engine.clone(),
            "--engine2".into(),
            engine.clone(),
            "--games".into(),
            "4".into(),
            "--time".into(),
            "nodes=30".into(),
            "--time2".into(),
            strong.into(),
            "--records".into(),
            records_dir.to_str().unwrap().into(),
        ]
    };
    let first = arguments("nodes=30000");
    let first: Vec<&str> = first.iter().map(String::as_str).collect();
    let stdout = run_match(&first);
    // A thousand times the nodes wins (engine 1, held to 30 nodes, scores from its side).
    let (wins, draws, losses) = wdl(&stdout);
    assert!(
        losses >= 3 && wins == 0,
        "{wins}-{draws}-{losses}: {stdout}"
    );
    let records = records(&records_dir);
    assert_eq!(records.len(), 4);
    for (index, record) in records.iter().enumerate() {
        check_record(record);
        // Engine 1 has sente in the odd-numbered games.
        let expected = if index % 2 == 0 {
            "nodes=30 / nodes=30000"
        } else {
            "nodes=30000 / nodes=30"
        };
        assert!(
            record.contains(&format!("[TimeControl \"{expected}\"]")),
            "{record}"
        );
    }
    let mut resumed = first.clone();
    resumed.push("--resume");
    let again = run_match(&resumed);
    assert!(
        again.contains("4 games already recorded; 0 to play"),
        "{again}"
    );
    let mut other = arguments("nodes=20000");
    other.push("--resume".into());
    let output = Command::new(BIN)
        .arg("match")
        .args(&other)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("(another time control)"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
