//! `tsubame puzzles rate`: tactics rated again by this engine, tsume left as they are, tactics
//! the engine does not confirm left out, and bad files refused.

use std::process::{Command, Output};
use tsubame_puzzles::{Puzzle, engine_confirms, read_puzzles, write_puzzles};

const TORI: &str = include_str!("../../../../data/puzzles/tori.jsonl");

/// A directory of its own for one test, emptied first.
fn scratch(name: &str) -> std::path::PathBuf {
    let directory = std::env::temp_dir().join(format!(
        "tsubame-puzzles-rate-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).expect("scratch directory");
    directory
}

fn rate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tsubame"))
        .args(["puzzles", "rate"])
        .args(args)
        .output()
        .expect("run tsubame puzzles rate")
}

/// A copy of `puzzle` whose answer is a legal move the engine does not confirm.
fn with_a_wrong_answer(puzzle: &Puzzle) -> Puzzle {
    let position = puzzle.position().expect("position");
    position
        .legal_moves()
        .into_iter()
        .map(|mv| Puzzle {
            moves: vec![position.to_usi(mv)],
            themes: vec!["advantage".into(), "short".into()],
            ..puzzle.clone()
        })
        .find(|wrong| wrong.moves != puzzle.moves[..1] && engine_confirms(wrong).is_err())
        .expect("a move the engine refuses")
}

#[test]
fn tactics_are_rated_again_and_unconfirmed_ones_left_out() {
    let shipped = read_puzzles(TORI).expect("shipped puzzles");
    let tactic = shipped
        .iter()
        .find(|p| !p.has_theme("tsume") && p.moves.len() == 1)
        .expect("a one-move tactic");
    let tsume = shipped
        .iter()
        .find(|p| p.has_theme("tsume"))
        .expect("a tsume");
    // The shipped ratings are this engine's: a wrong one is measured back, a tsume's is the
    // mate solver's and stays whatever it says.
    let misrated = Puzzle {
        rating: tactic.rating + 330,
        ..tactic.clone()
    };
    let tsume_rated_by_hand = Puzzle {
        rating: 2_000,
        ..tsume.clone()
    };
    let wrong = Puzzle {
        id: "wronganswer".into(),
        ..with_a_wrong_answer(tactic)
    };
    let directory = scratch("sample");
    let file = directory.join("sample.jsonl");
    // A mining run's progress line stays where it is.
    let text = format!(
        "{}# games tori-seed6.games 3\n{}",
        write_puzzles(&[misrated, tsume_rated_by_hand.clone()]),
        write_puzzles(&[wrong])
    );
    std::fs::write(&file, text).expect("write sample");

    let output = rate(&[
        "--file",
        file.to_str().expect("path"),
        "--drop-unconfirmed",
        "--threads",
        "2",
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("3 puzzles: 1 rated again differently, 1 left out, 2 kept"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("left out: puzzle wronganswer"), "{stderr}");
    let text = std::fs::read_to_string(&file).expect("read back");
    assert_eq!(
        text,
        format!(
            "{}# games tori-seed6.games 3\n",
            write_puzzles(&[tactic.clone(), tsume_rated_by_hand])
        )
    );
    let leftovers: Vec<_> = std::fs::read_dir(&directory)
        .expect("list")
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name())
        .collect();
    assert_eq!(leftovers, ["sample.jsonl"], "no temporary file left");
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn bad_files_are_refused_by_name_and_left_alone() {
    let directory = scratch("bad");
    let missing = directory.join("missing.jsonl");
    let output = rate(&["--file", missing.to_str().expect("path")]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing.jsonl"));

    let garbled = directory.join("garbled.jsonl");
    let first = TORI.lines().next().expect("a line");
    let text = format!("{first}\n{{\"id\": 3\n");
    std::fs::write(&garbled, &text).expect("write");
    let output = rate(&["--file", garbled.to_str().expect("path")]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("line 2"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(std::fs::read_to_string(&garbled).expect("read"), text);

    let valid = directory.join("valid.jsonl");
    std::fs::write(&valid, format!("{first}\n")).expect("write");
    for refused in [["--threads", "0"], ["--find-depth", "0"]] {
        let mut args = vec!["--file", valid.to_str().expect("path")];
        args.extend(refused);
        let output = rate(&args);
        assert_ne!(output.status.code(), Some(0), "{refused:?}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains(&refused[0][2..]),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            std::fs::read_to_string(&valid).expect("read"),
            format!("{first}\n")
        );
    }
    let _ = std::fs::remove_dir_all(&directory);
}
