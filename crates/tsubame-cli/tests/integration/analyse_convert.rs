//! `tsubame analyse` and `tsubame convert` as a user runs them.

use std::path::PathBuf;
use std::process::{Command, Output};
use tsubame_notation::parse_hodges;
use tsubame_rules::{Move, Options, Position, tori};

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

/// Tori positions with sente to mate in three moves, built around a cornered phoenix.
///
/// Most have several mating first moves (quail checks from any distance, waiting drops that
/// leave gote in zugzwang), and which one the engine names depends on its evaluation, so the
/// test accepts any first move that [`mates_with`] proves by exhaustive search.
///
/// The search prunes and reduces quiet moves, so a nominal depth is not a full-width depth: the
/// mate of `4k2/6s/5F1/2F4/7/7/3K3 b S 1` opens with a quiet falcon move and goes on with a quiet
/// swallow drop, two moves late in the order, and comes to light at depth 8 with the classical
/// evaluation and at depth 13 with Tori's network (the default), which orders and reduces those
/// quiet moves differently. Depth 14 gives a ply to spare; the mate must be proven (score,
/// five-ply line) all the same. The line may end in stalemate rather than checkmate, a loss in
/// Tori all the same: the line the network gives for `3k3/7/3cF2/6P/7/7/3K3 b CS 1` walls the
/// phoenix in on 2b without a check.
const MATES_IN_THREE: [&str; 6] = [
    "5k1/1l1F3/7/7/C6/7/3K3 b CL 1",
    "4k2/7/3F2p/7/C6/7/3K3 b 2C 1",
    "1k4l/7/1c5/C6/7/7/3K3 b C 1",
    "4k2/6s/5F1/2F4/7/7/3K3 b S 1",
    "5k1/6s/2F4/7/7/7/3K3 b CR 1",
    "3k3/7/3cF2/6P/7/7/3K3 b CS 1",
];

/// Whether the side to move can checkmate within `moves` of its own moves, whatever the
/// defence: a full-width search with no pruning, independent of the engine's.
fn forces_mate(position: &mut Position<u64>, moves: u32) -> bool {
    position
        .legal_moves()
        .into_iter()
        .any(|mv| mates_with(position, mv, moves))
}

/// Whether `mv` checkmates, or leaves every reply a forced mate within `moves - 1` more moves.
fn mates_with(position: &mut Position<u64>, mv: Move, moves: u32) -> bool {
    let undo = position.make_move(mv);
    let replies = position.legal_moves();
    let mates = if replies.is_empty() {
        position.in_check()
    } else {
        moves > 1
            && replies.into_iter().all(|reply| {
                let undo = position.make_move(reply);
                let mates = forces_mate(position, moves - 1);
                position.unmake_move(reply, undo);
                mates
            })
    };
    position.unmake_move(mv, undo);
    mates
}

#[test]
fn analyse_finds_mates_in_three() {
    let rules = Options::defaults(tori::spec()).rule_set();
    for sfen in MATES_IN_THREE {
        let output = run(&[
            "analyse",
            "--variant",
            "tori",
            "--sfen",
            sfen,
            "--depth",
            "14",
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        let text = stdout(&output);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines.first().copied(),
            Some(format!("position {sfen}").as_str())
        );
        let best = lines.get(1).copied().unwrap_or("");
        let first = best
            .strip_prefix("best ")
            .and_then(|rest| rest.split_once("  score mate 3  depth"))
            .map(|(first, _)| first);
        let Some(first) = first else {
            panic!("{sfen}: no mate in three: {text}");
        };
        let pv: Vec<&str> = lines
            .get(2)
            .unwrap_or(&"")
            .split_whitespace()
            .skip(1)
            .collect();
        assert_eq!(pv.len(), 5, "{sfen}: the mate takes five plies: {text}");
        assert_eq!(pv.first(), Some(&first), "{text}");

        let mut position = Position::from_sfen(tori::tables(), sfen, rules)
            .unwrap_or_else(|e| panic!("{sfen}: {e}"));
        assert!(
            !forces_mate(&mut position, 2),
            "{sfen}: a mate in two exists"
        );
        let mv = parse_hodges(&position, first).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        assert!(
            mates_with(&mut position, mv, 3),
            "{sfen}: {first} does not force mate in three: {text}"
        );
        for written in &pv {
            let mv = parse_hodges(&position, written)
                .unwrap_or_else(|e| panic!("{sfen}: {written} in {text}: {e}"));
            position.make_move(mv);
        }
        // In Tori a side left without a legal move has lost, in check or not (stalemate loses):
        // the engine's line may end in either, while its first move is proven above to force
        // checkmate.
        assert!(
            position.legal_moves().is_empty(),
            "{sfen}: the line does not end with gote left without a move: {text}"
        );
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
            "tsubame: bad position:",
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

/// A Tenjiku game with lion moves (a pass, captures on the way) and fire demon burns.
const TENJIKU_GAME: &str = "8m16e 6d16n 6m14e+ 8d8n 15n16n 9d1l 9o9o 16d16e 14e16g 1l2m 7n8n 7d7l+ 8n8m 10b8d 11m3e+ 2m2n 8m1f 2n1m 3o2n 3d3e 5m3k 3e2e 16g13e 13d13e13f 3k3c 1m4p 1f3d 5d4e 3d6d 4b4l+ 9m9a 10c10b 11p12o 7c4d 6n4p 4d4k 7m7b+ 4k7n 4m4l4k 7n5n";

fn tenjiku_record(name: &str) -> PathBuf {
    let moves: Vec<&str> = TENJIKU_GAME.split(' ').collect();
    let numbered: String = moves
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| format!("{}. {}\n", i + 1, pair.join(" ")))
        .collect();
    let path = scratch(name);
    std::fs::write(&path, format!("[Variant \"tenjiku\"]\n\n{numbered}*\n"))
        .unwrap_or_else(|e| panic!("{e}"));
    path
}

#[test]
fn analyse_finds_the_capture_of_the_last_tenjiku_king() {
    let sfen = "15k/16/16/16/16/16/16/15R/16/16/16/16/16/16/16/K15 b - 1";
    let output = run(&[
        "analyse",
        "--variant",
        "tenjiku",
        "--sfen",
        sfen,
        "--depth",
        "3",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        format!("position {sfen}\nbest Rx1a+  score mate 1  depth 3\npv Rx1a+\n")
    );
}

#[test]
fn analyse_a_tenjiku_record_in_hodges() {
    let path = tenjiku_record("tenjiku-analyse.tsr");
    let path = path.to_str().unwrap_or("");
    let output = run(&["analyse", "--record", path, "--ply", "23", "--depth", "2"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].ends_with(" w - 24"), "{text}");
    // The dragon horse wins a chariot soldier and more: a clear plus, whatever the exact
    // evaluation weights.
    let score: f64 = lines[1]
        .strip_prefix("best DHx1f  score ")
        .and_then(|rest| rest.strip_suffix("  depth 2"))
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(score > 10.0, "{text}");
    assert_eq!(lines[2], "pv DHx1f RGx7c+", "{text}");
    // At the end sente takes gote's king.
    let output = run(&["analyse", "--record", path, "--depth", "2"]);
    assert!(
        stdout(&output).contains("best +RGx8a  score mate 1"),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    let output = run(&["analyse", "--record", path, "--variant", "tori"]);
    assert_eq!(
        stderr(&output),
        "tsubame: --variant tori does not match the record's game tenjiku\n"
    );
}

#[test]
fn convert_a_tenjiku_record_to_hodges_text_and_back() {
    let source = tenjiku_record("tenjiku-convert.tsr");
    let hodges = scratch("tenjiku.txt");
    let out = run(&[
        "convert",
        source.to_str().unwrap_or(""),
        "-o",
        hodges.to_str().unwrap_or(""),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&hodges).unwrap_or_default();
    assert!(
        text.starts_with(
            "  1. VGx16e  BGx16n=\n  2. BGx14e+ GGx8n*\n  3. VSx16n  VGx1l\n  4. Ln-9o   SMx16e\n"
        ),
        "{text}"
    );
    assert!(text.contains(" 12. +BGx13e HFx13e-13f\n"), "{text}");
    assert!(text.ends_with(" 20. HFx4l-4k FDx5n!4n!4o\n"), "{text}");
    let out = run(&[
        "convert",
        hodges.to_str().unwrap_or(""),
        "--variant",
        "tenjiku",
        "--notation",
        "usi",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let original = std::fs::read_to_string(&source).unwrap_or_default();
    let moves = |t: &str| {
        t.lines()
            .filter(|l| l.contains(". "))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let back = stdout(&out);
    assert!(back.starts_with("[Variant \"tenjiku\"]\n"), "{back}");
    assert_eq!(moves(&back), moves(&original));
    // Hodges text without --variant tenjiku is read as Tori and fails on the first move.
    let out = run(&["convert", hodges.to_str().unwrap_or("")]);
    assert_eq!(out.status.code(), Some(1));
    for format in ["kif", "pgn"] {
        let out = run(&["convert", source.to_str().unwrap_or(""), "--to", format]);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            stderr(&out).contains("Tori shogi only"),
            "{format}: {}",
            stderr(&out)
        );
    }
}

/// A PGN file of several play-site games converts whole, each replayed under the play site's
/// repetition rule; `--option` replays any format under other rules, and a game that the
/// other rules end early is refused, naming the move that ended it.
#[test]
fn convert_reads_every_game_of_a_pgn_file_and_takes_rule_options() {
    // Both phoenixes step out and back twice: the start position's third occurrence.
    let shuffle =
        "[Variant \"Torishogi\"]\n\n1. Ke2 Ke6 2. Kd1 Kd7 3. Ke2 Ke6 4. Kd1 Kd7 5. Ke2 *\n";
    let short = "[Variant \"Torishogi\"]\n\n1. Sxe5 Sxc3 *\n";
    let file = scratch("several.pgn");
    std::fs::write(&file, format!("{short}\n{shuffle}\n{short}")).unwrap_or_else(|e| panic!("{e}"));
    let path = file.to_str().unwrap_or("");
    let out = run(&["convert", path, "--to", "pgn"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.matches("[Variant \"Torishogi\"]").count(), 3, "{text}");
    assert!(text.contains("5. Ke2 *"), "{text}");
    assert!(!text.contains("[Options"), "{text}");
    // One record per file for the other formats.
    let out = run(&["convert", path, "--to", "record"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("holds 3 games"), "{}", stderr(&out));
    // Under threefold repetition the shuffle ends at its eighth move.
    let out = run(&["convert", path, "--to", "pgn", "--option", "repetition=3"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("\"Ke2\" comes after the end of the game: 4... Kd7 ended it"),
        "{err}"
    );
    // Other rules travel with the converted records.
    let strict = ["--option", "drop-mate=illegal", "--option", "repetition=4"];
    let out = run(&[&["convert", path, "--to", "pgn"][..], &strict[..]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("[Options \"drop-mate=illegal,repetition=4"),
        "{}",
        stdout(&out)
    );
}
