//! Our Fairy-Stockfish SAN against Fairy-Stockfish's own (pyffish): in positions of seeded
//! random Tori games, the SAN of every legal move is compared as a set, and each of ours is
//! read back to its move. Skipped, with a message, where python3 or pyffish is missing
//! (scripts/install-test-deps installs it).

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use tsubame_notation::record::{Record, RecordMove, read_pgn, write_pgn, write_san};
use tsubame_rules::{Options, Position, tori};

fn positions(games: u64, plies: usize) -> Vec<Position<u64>> {
    let options = Options::defaults(tori::spec());
    let mut out = Vec::new();
    for seed in 0..games {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut position = tori::start(&options).unwrap_or_else(|e| panic!("{e}"));
        for _ in 0..rng.gen_range(plies / 2..plies) {
            let moves = position.legal_moves();
            let Some(&mv) = moves.choose(&mut rng) else {
                break;
            };
            position.make_move(mv);
            out.push(position.clone());
        }
    }
    out
}

#[test]
fn san_matches_fairy_stockfish() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle/san_oracle.py");
    let Ok(mut child) = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    else {
        eprintln!("skipped: python3 is missing, so SAN is not compared with Fairy-Stockfish");
        return;
    };
    let positions = positions(6, 50);
    let mut input = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
    let fens: Vec<String> = positions.iter().map(Position::to_fen).collect();
    let writer = std::thread::spawn(move || {
        for fen in fens {
            if writeln!(input, "{fen}").is_err() {
                break;
            }
        }
    });
    let output = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
    let mut lines = BufReader::new(output).lines();
    let mut compared = 0;
    let mut swallow_drop_mates = 0;
    for position in &positions {
        let Some(Ok(line)) = lines.next() else {
            panic!("the oracle stopped answering");
        };
        if let Some(reason) = line.strip_prefix("unavailable: ") {
            eprintln!(
                "skipped: pyffish is not installed ({reason}); run scripts/install-test-deps"
            );
            let _ = child.kill();
            return;
        }
        let theirs: Vec<&str> = line.split_whitespace().collect();
        let mut ours: Vec<String> = position
            .legal_moves()
            .into_iter()
            .map(|m| write_san(position, m))
            .collect();
        ours.sort();
        // Under the default rules a mating swallow drop is legal (and loses); Fairy-Stockfish
        // does not generate it. Those moves are the only difference allowed.
        let extra: Vec<&String> = ours
            .iter()
            .filter(|s| !theirs.contains(&s.as_str()))
            .collect();
        let missing: Vec<&&str> = theirs
            .iter()
            .filter(|s| !ours.iter().any(|o| o == **s))
            .collect();
        assert!(
            missing.is_empty(),
            "{}: ours lacks {missing:?}",
            position.to_fen()
        );
        for san in &extra {
            assert!(
                san.starts_with("S@") && san.ends_with('#'),
                "{}: extra {san}",
                position.to_fen()
            );
            swallow_drop_mates += 1;
        }
        compared += theirs.len();
    }
    let _ = writer.join();
    let _ = child.wait();
    assert!(compared > 2_000, "only {compared} moves compared");
    eprintln!(
        "{compared} SAN moves agree with Fairy-Stockfish ({swallow_drop_mates} mating swallow drops only ours)"
    );
}

#[test]
fn random_games_survive_pgn() {
    let options = Options::defaults(tori::spec());
    for seed in 100..108 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut position = tori::start(&options).unwrap_or_else(|e| panic!("{e}"));
        let mut record = Record::new(options.clone());
        for _ in 0..80 {
            let moves = position.legal_moves();
            let Some(&mv) = moves.choose(&mut rng) else {
                break;
            };
            record.moves.push(RecordMove {
                usi: position.to_usi(mv),
                comment: None,
                think_ms: None,
            });
            position.make_move(mv);
        }
        let replay = record.replay().unwrap_or_else(|e| panic!("{e}"));
        record.set_outcome(replay.outcome);
        let pgn = write_pgn(&record).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let back = read_pgn(&pgn).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{pgn}"));
        assert_eq!(back.moves, record.moves, "seed {seed}");
        assert_eq!(back.result, record.result, "seed {seed}");
    }
}
