//! `tsubame analyse` and `tsubame convert` as a user runs them.

use std::path::PathBuf;
use std::process::{Command, Output};

const BINARY: &str = env!("CARGO_BIN_EXE_tsubame");

fn run(args: &[&str]) -> Output {
    Command::new(BINARY)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run tsubame: {e}"))
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn record(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tsubame-notation/tests/records")
        .join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tsubame-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir.join(name)
}

/// Tori positions with sente to mate in three moves, built around a cornered phoenix, and the
/// first move of the mate.
const MATES_IN_THREE: [(&str, &str); 6] = [
    ("5k1/1l1F3/7/7/C6/7/3K3 b CL 1", "Cr*3b"),
    ("4k2/7/3F2p/7/C6/7/3K3 b 2C 1", "Cr*2c"),
    ("1k4l/7/1c5/C6/7/7/3K3 b C 1", "Crx6c"),
    ("4k2/6s/5F1/2F4/7/7/3K3 b S 1", "Fa-4c"),
    ("5k1/6s/2F4/7/7/7/3K3 b CR 1", "RQ*2d"),
    ("3k3/7/3cF2/6P/7/7/3K3 b CS 1", "Fax4c"),
];

#[test]
fn analyse_finds_mates_in_three() {
    for (sfen, first) in MATES_IN_THREE {
        let output = run(&[
            "analyse",
            "--variant",
            "tori",
            "--sfen",
            sfen,
            "--depth",
            "7",
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        let text = stdout(&output);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines.first().copied(),
            Some(format!("position {sfen}").as_str())
        );
        let best = lines.get(1).copied().unwrap_or("");
        assert!(
            best.starts_with(&format!("best {first}  score mate 3  depth")),
            "{sfen}: {text}"
        );
        let pv: Vec<&str> = lines
            .get(2)
            .unwrap_or(&"")
            .split_whitespace()
            .skip(1)
            .collect();
        assert_eq!(pv.len(), 5, "{sfen}: the mate takes five plies: {text}");
        assert_eq!(pv.first().copied(), Some(first));
    }
}

#[test]
fn analyse_a_record_position_and_every_move() {
    let game = record("tori-01.tsr");
    let game = game.to_str().unwrap_or_else(|| panic!("path"));
    let output = run(&["analyse", "--record", game, "--ply", "26", "--depth", "3"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    // One ply before the end sente mates with a falcon drop.
    assert!(text.contains("best Fa*3c  score mate 1"), "{text}");

    let output = run(&["analyse", "--record", game, "--all", "--depth", "2"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 28, "{text}");
    assert!(lines[0].starts_with("1. Swx3c"), "{text}");
    assert!(lines[1].starts_with("1... Swx5e"), "{text}");
    assert!(lines[26].starts_with("14. Fa*3c"), "{text}");
    assert!(lines[26].contains("-> end"), "{text}");
    assert!(lines[27].ends_with("blunder(s) in 27 moves"), "{text}");
}

#[test]
fn analyse_refuses_bad_input_in_one_line() {
    for (args, message) in [
        (
            vec![
                "analyse",
                "--variant",
                "tori",
                "--sfen",
                "3k3/7 b - 1",
                "--depth",
                "2",
            ],
            "tsubame: bad position:",
        ),
        (
            vec!["analyse", "--variant", "tori"],
            "tsubame: give a position with --sfen or a game with --record\n",
        ),
        (
            vec!["analyse", "--variant", "tenjiku", "--sfen", "x"],
            "tsubame: Tenjiku shogi is not available in the terminal yet",
        ),
        (
            vec!["analyse", "--record", "/nonexistent/game.tsr"],
            "tsubame: cannot read /nonexistent/game.tsr",
        ),
    ] {
        let output = run(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let err = stderr(&output);
        assert!(err.starts_with(message), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn convert_between_every_format() {
    let source = record("tori-03.tsr");
    let original = std::fs::read_to_string(&source).unwrap_or_else(|e| panic!("{e}"));
    let source = source.to_str().unwrap_or_else(|| panic!("path"));
    let pgn = scratch("game.pgn");
    let kif = scratch("game.kif");
    let hodges = scratch("game.txt");
    let back = scratch("back.tsr");
    for (input, output) in [(source, &pgn), (source, &kif), (source, &hodges)] {
        let out = run(&["convert", input, "-o", output.to_str().unwrap_or("")]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let pgn_text = std::fs::read_to_string(&pgn).unwrap_or_default();
    assert!(pgn_text.contains("[Variant \"Torishogi\"]"), "{pgn_text}");
    let kif_text = std::fs::read_to_string(&kif).unwrap_or_default();
    assert!(
        kif_text.contains("手数----指手---------消費時間--"),
        "{kif_text}"
    );
    // From PGN and from KIF back to the same canonical record.
    for input in [&pgn, &kif] {
        let out = run(&[
            "convert",
            input.to_str().unwrap_or(""),
            "-o",
            back.to_str().unwrap_or(""),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = std::fs::read_to_string(&back).unwrap_or_default();
        let moves = |t: &str| {
            t.lines()
                .filter(|l| l.contains(". "))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(moves(&text), moves(&original), "from {}", input.display());
    }
    let out = run(&[
        "convert",
        hodges.to_str().unwrap_or(""),
        "--to",
        "record",
        "--notation",
        "usi",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\n1. 3d3c 5d5e\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn convert_names_the_line_of_a_bad_record() {
    let bad = scratch("bad.tsr");
    std::fs::write(
        &bad,
        "[Variant \"tori\"]\n\n1. Swx3c Swx5e\n2. Fa-4c Fax3c\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = run(&["convert", bad.to_str().unwrap_or(""), "--to", "pgn"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.ends_with("line 4, column 4: move 2. \"Fa-4c\" cannot be played: no legal move Fa-4c: no falcon of yours can move to 4c\n"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let out = run(&["convert", bad.to_str().unwrap_or(""), "--from", "kif"]);
    assert_eq!(out.status.code(), Some(1));
    let out = run(&["convert", "game.xyz"]);
    assert_eq!(
        stderr(&out),
        "tsubame: cannot tell the format of game.xyz from its extension; give --from\n"
    );
}

#[test]
fn every_new_command_has_help_with_examples() {
    for command in ["play", "analyse", "convert"] {
        let out = run(&[command, "--help"]);
        assert!(out.status.success());
        let text = stdout(&out);
        assert!(text.contains("Examples:"), "{command}: {text}");
        assert!(
            text.contains(&format!("tsubame {command} ")),
            "{command}: {text}"
        );
    }
}
