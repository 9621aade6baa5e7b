//! Tenjiku shogi records: read, replayed through the Tenjiku rules and written back, with
//! lion moves (a capture on the way) and fire demon burns.

use tsubame_notation::record::{
    GameResult, MoveNotation, Record, read_hodges_text, write_hodges_text, write_kif, write_pgn,
};
use tsubame_rules::{EndReason, Options, tenjiku};

/// A random game (capture-happy) with two lion moves and burns.
const LIONS: &str = "8m16e 6d16n 6m14e+ 8d8n 15n16n 9d1l 9o9o 16d16e 14e16g 1l2m 7n8n 7d7l+ 8n8m 10b8d 11m3e+ 2m2n 8m1f 2n1m 3o2n 3d3e 5m3k 3e2e 16g13e 13d13e13f 3k3c 1m4p 1f3d 5d4e 3d6d 4b4l+ 9m9a 10c10b 11p12o 7c4d 6n4p 4d4k 7m7b+ 4k7n 4m4l4k 7n5n";

/// A random game that sente wins by mate.
const MATE: &str = "10m10e+ 8d8m 12p12o 7c8d 10e5e 11d2m 11m2d 2m5p 2d3c 9d14i 4n5o 5p1l 3c1a 6d15m+ 9l9k 5d5e 7n13h 10d10p+ 13h11g 10p9o 11g11e 8d10d 4m4m 10c10l 11e9d 15m15l 12m10k 10l7k 7m7e+ 7k7f 10n2f 7f7l 9d9c 7l5j 2f5f";

fn numbered(moves: &str) -> String {
    let moves: Vec<&str> = moves.split(' ').collect();
    moves
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| format!("{}. {}\n", i + 1, pair.join(" ")))
        .collect()
}

fn parse(text: &str) -> Record {
    Record::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn header(result: &str) -> String {
    let options = "lion-hawk=lion,free-eagle=english,demon-conflict=tsa,range-jump=capture,\
                   promotion=deferred,mate=ends,max-plies=off";
    format!(
        "[Variant \"tenjiku\"]\n[Options \"{options}\"]\n[Result \"{result}\"]\n[SFEN \"{}\"]\n\n",
        tenjiku::spec().start_sfen
    )
}

#[test]
fn a_usi_record_with_lion_moves_and_burns_is_written_back_as_read() {
    let text = format!("{}{}*\n", header("*"), numbered(LIONS));
    let record = parse(&text);
    assert_eq!(record.variant().name, "tenjiku");
    assert_eq!(record.notation, MoveNotation::Usi);
    assert_eq!(record.moves.len(), 40);
    assert_eq!(record.moves[23].usi, "13d13e13f");
    assert_eq!(
        record.start_sfen, None,
        "the start position is the default one"
    );
    assert_eq!(
        record.to_canonical().unwrap_or_else(|e| panic!("{e}")),
        text
    );

    let replay = record.replay().unwrap_or_else(|e| panic!("{e}"));
    let hodges: Vec<&str> = replay.steps.iter().map(|s| s.hodges.as_str()).collect();
    assert_eq!(hodges[6], "Ln-9o", "a lion's pass");
    assert_eq!(hodges[12], "FD-8m!7l", "a burn");
    assert_eq!(hodges[23], "HFx13e-13f", "a capture on the way");
    assert_eq!(hodges[26], "FD-3d!2c!4c!2d!4d!4e");
    assert_eq!(hodges[27], "SE-4e*", "a move next to an enemy demon");
    assert_eq!(hodges[39], "FDx5n!4n!4o");
    assert_eq!(replay.outcome, None);
    assert!(
        replay.final_sfen.ends_with(" b - 41"),
        "{}",
        replay.final_sfen
    );
}

#[test]
fn the_same_game_in_hodges_notation_reads_back_to_the_same_moves() {
    let usi = parse(&format!("[Variant \"tenjiku\"]\n\n{}*\n", numbered(LIONS)));
    let mut record = usi.clone();
    record.notation = MoveNotation::Hodges;
    let text = record.to_canonical().unwrap_or_else(|e| panic!("{e}"));
    for line in [
        "4. Ln-9o SMx16e\n",
        "12. +BGx13e HFx13e-13f\n",
        "14. FD-3d!2c!4c!2d!4d!4e SE-4e*\n",
        "20. HFx4l-4k FDx5n!4n!4o\n*\n",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    let again = parse(&text);
    assert_eq!(again.notation, MoveNotation::Hodges);
    assert_eq!(again.moves, usi.moves);

    // Hodges text alone, as a book prints it.
    let book = write_hodges_text(&record).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        book.starts_with("  1. VGx16e  BGx16n=\n  2. BGx14e+ GGx8n*\n"),
        "{book}"
    );
    assert!(book.contains(" 12. +BGx13e HFx13e-13f\n"), "{book}");
    let read = read_hodges_text(&book, Options::defaults(tenjiku::spec()))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read.moves, usi.moves);
}

#[test]
fn a_game_won_by_mate_states_its_result() {
    let text = format!(
        "[Variant \"tenjiku\"]\n[Result \"1-0\"]\n[Reason \"checkmate\"]\n\n{}1-0\n",
        numbered(MATE)
    );
    let mut record = parse(&text);
    assert_eq!(record.result, GameResult::SenteWins);
    assert_eq!(record.reason, Some(EndReason::Checkmate));
    let replay = record.replay().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(replay.steps.len(), 35);
    assert_eq!(replay.steps[34].hodges, "FDx5f!4e!5e!6e");
    assert_eq!(
        replay.outcome.map(|o| (o.winner, o.reason)),
        Some((Some(tsubame_rules::Color::Sente), EndReason::Checkmate))
    );
    record.notation = MoveNotation::Hodges;
    let written = record.to_canonical().unwrap_or_else(|e| panic!("{e}"));
    assert!(written.contains("[Reason \"checkmate\"]\n"), "{written}");
    assert!(
        written.ends_with("17. FD-9c!8b!9b!10b FD-5j!5k\n18. FDx5f!4e!5e!6e\n1-0\n"),
        "{written}"
    );
    assert_eq!(parse(&written).moves, record.moves);

    let wrong = text.replace("1-0", "0-1");
    let error = Record::parse(&wrong)
        .err()
        .map(|e| (e.line(), e.to_string()));
    assert!(
        error.as_ref().is_some_and(|(line, _)| *line == 2),
        "{error:?}"
    );
}

#[test]
fn an_illegal_move_names_its_line() {
    let text = "[Variant \"tenjiku\"]\n\n1. 8m16e 6d16n\n2. Ln-9o {a pass} 9b9b\n";
    let error = Record::parse(text).err();
    assert_eq!(error.as_ref().map(|e| e.line()), Some(4), "{error:?}");
    let message = error.map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("9b9b"), "{message}");

    let text = "[Variant \"tenjiku\"]\n\n1. 8m16e Qx9x\n";
    let message = Record::parse(text).err().map(|e| e.to_string());
    assert!(
        message.as_deref().is_some_and(|m| m.contains("Qx9x")),
        "{message:?}"
    );
}

#[test]
fn a_set_up_position_and_a_captured_king() {
    let sfen = "15k/16/16/16/16/16/16/15R/16/16/16/16/16/16/16/K15 b - 1";
    let text = format!(
        "[Variant \"tenjiku\"]\n[Result \"1-0\"]\n[Reason \"royal-captured\"]\n[SFEN \"{sfen}\"]\n\n1. Rx1a\n1-0\n"
    );
    let record = parse(&text);
    assert_eq!(record.start_sfen.as_deref(), Some(sfen));
    assert_eq!(record.moves[0].usi, "1h1a");
    let replay = record.replay().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        replay.outcome.map(|o| o.reason),
        Some(EndReason::RoyalCaptured)
    );
    assert_eq!(
        replay.final_sfen, "15R=/16/16/16/16/16/16/16/16/16/16/16/16/16/16/K15 w - 2",
        "the rook declined to promote"
    );
    // Hodges text has no room for the position.
    assert!(write_hodges_text(&record).is_err());
}

#[test]
fn kif_and_pgn_are_for_tori_only() {
    let record = parse("[Variant \"tenjiku\"]\n\n1. 9l9k\n*\n");
    let kif = write_kif(&record).err().map(|e| e.to_string());
    assert_eq!(kif.as_deref(), Some("KIF is written for Tori shogi only"));
    let pgn = write_pgn(&record).err().map(|e| e.to_string());
    assert_eq!(
        pgn.as_deref(),
        Some("the play site's PGN holds Tori shogi only")
    );
}

#[test]
fn a_threat_to_the_last_king_counts_as_check() {
    let sfen = "15k/16/16/16/16/16/16/14R1/16/16/16/16/16/16/16/K15 b - 1";
    let text = format!("[Variant \"tenjiku\"]\n[SFEN \"{sfen}\"]\n\n1. 2h1h 1a2a\n2. R-3h\n*\n");
    let replay = parse(&text).replay().unwrap_or_else(|e| panic!("{e}"));
    let checks: Vec<(&str, bool)> = replay
        .steps
        .iter()
        .map(|s| (s.hodges.as_str(), s.gives_check))
        .collect();
    assert_eq!(checks, [("R-1h", true), ("K-2a", false), ("R-3h", false)]);
}
