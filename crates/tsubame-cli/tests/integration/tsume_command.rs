//! `tsubame tsume`: its last line, its exit status, and its errors.

use std::process::{Command, Output};

fn tsume(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tsubame"))
        .arg("tsume")
        .args(args)
        .output()
        .expect("run tsubame tsume")
}

fn last_line(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_mate_is_the_last_line_with_its_length_and_moves() {
    let output = tsume(&["--variant", "tori", "--sfen", "5sk/5s1/6C/7/7/7/K6 b F 1"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(last_line(&output), "mate 1 pv F*1b");
    let progress = String::from_utf8_lossy(&output.stderr);
    assert!(progress.contains("nodes"), "{progress}");
    // A Wa mate of three moves, every line 2N - 1 moves long.
    let output = tsume(&[
        "--variant",
        "wa",
        "--option",
        "drops=off",
        "--sfen",
        "6+H1u2/9+F1/1+P7g1/8X1k/s10/11/8p2/4G3+p2/P1P8/1K9/ODU8 b - 293",
        "--max-moves",
        "5",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let line = last_line(&output);
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[..3], ["mate", "3", "pv"], "{line}");
    assert_eq!(words.len(), 3 + 5, "{line}");
}

#[test]
fn no_mate_and_an_interrupted_search_are_answers_too() {
    let output = tsume(&["--variant", "tori", "--max-moves", "4"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(last_line(&output), "no mate within 4");
    let output = tsume(&[
        "--variant",
        "tori",
        "--sfen",
        "k1P1CR1/5L1/sPSsP1S/1SL3s/4p+f1/1C2rf1/1K5 w 2c10s 180",
        "--nodes",
        "1000",
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(last_line(&output), "unknown: nodes");
    let output = tsume(&[
        "--variant",
        "tori",
        "--sfen",
        "k1P1CR1/5L1/sPSsP1S/1SL3s/4p+f1/1C2rf1/1K5 w 2c10s 180",
        "--time",
        "0.05",
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(last_line(&output), "unknown: time");
}

#[test]
fn bad_input_is_named_with_exit_status_two() {
    for (args, named) in [
        (vec!["--variant", "tori", "--sfen", "7/7 b - 1"], "--sfen"),
        (vec!["--variant", "chess"], "chess"),
        (vec!["--variant", "tori", "--max-moves", "0"], "--max-moves"),
        (vec!["--variant", "tori", "--time", "0"], "--time"),
        (vec!["--variant", "tori", "--time", "soon"], "--time"),
        (
            vec!["--variant", "tori", "--option", "nonsense=1"],
            "nonsense",
        ),
        (vec!["--variant", "tori", "--fen", "garbage"], "--fen"),
    ] {
        let output = tsume(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let error = String::from_utf8_lossy(&output.stderr);
        assert!(error.contains(named), "{args:?}: {error}");
    }
}
