//! Game records: hand-kept Tori games read, replayed and written back unchanged in the
//! canonical format, and carried through every other format and back; malformed records
//! rejected with the line (and column) of the fault.

use std::path::PathBuf;
use tsubame_notation::record::{
    GameResult, MoveNotation, Record, RecordErrorKind, play_site_options, read_hodges_text,
    read_kif, read_pgn, read_pgn_games, read_pgn_with, write_hodges_text, write_kif, write_pgn,
};
use tsubame_rules::{EndReason, Options, tori};

fn records() -> Vec<(PathBuf, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/records");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tsr"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            (p, text)
        })
        .collect()
}

fn parse(text: &str, name: &str) -> Record {
    Record::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn usi_moves(record: &Record) -> Vec<String> {
    record.moves.iter().map(|m| m.usi.clone()).collect()
}

#[test]
fn ten_tori_games_are_replayed_and_written_back_unchanged() {
    let games = records();
    assert!(games.len() >= 10, "only {} records", games.len());
    let mut finished = 0;
    for (path, text) in &games {
        let name = path.display().to_string();
        let record = parse(text, &name);
        assert_eq!(record.variant().name, "tori");
        assert_eq!(record.notation, MoveNotation::Hodges);
        assert!(record.moves.len() >= 20, "{name}: a real game");
        let replay = record.replay().unwrap_or_else(|e| panic!("{name}: {e}"));
        // The opening of the Hodges notation examples starts every game.
        let opening: Vec<&str> = replay
            .steps
            .iter()
            .take(4)
            .map(|s| s.hodges.as_str())
            .collect();
        assert_eq!(opening, ["Swx3c", "Swx5e", "Fax5e", "Fax3c"], "{name}");
        if let Some(outcome) = replay.outcome {
            finished += 1;
            assert_eq!(record.result, GameResult::from_outcome(outcome), "{name}");
            assert_eq!(record.reason, Some(outcome.reason), "{name}");
        }
        let written = record
            .to_canonical()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&written, text, "{name} is not written back unchanged");
    }
    assert!(finished >= 4, "only {finished} games end on the board");
}

#[test]
fn usi_notation_round_trips_to_the_same_record() {
    for (path, text) in records() {
        let name = path.display().to_string();
        let mut record = parse(&text, &name);
        record.notation = MoveNotation::Usi;
        let usi_text = record
            .to_canonical()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            usi_text.contains("\n1. 3d3c 5d5e\n2. 4f5e 4b3c\n"),
            "{usi_text}"
        );
        let mut again = parse(&usi_text, &name);
        assert_eq!(again.notation, MoveNotation::Usi);
        assert_eq!(again, record);
        again.notation = MoveNotation::Hodges;
        assert_eq!(again.to_canonical().ok().as_deref(), Some(text.as_str()));
    }
}

#[test]
fn hodges_text_kif_and_pgn_round_trip() {
    for (path, text) in records() {
        let name = path.display().to_string();
        let record = parse(&text, &name);

        let hodges = write_hodges_text(&record).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            hodges.starts_with("  1. Swx3c   Swx5e\n  2. Fax5e   Fax3c\n"),
            "{hodges}"
        );
        let from_hodges = read_hodges_text(&hodges, record.options.clone())
            .unwrap_or_else(|e| panic!("{name} as Hodges text: {e}"));
        assert_eq!(usi_moves(&from_hodges), usi_moves(&record), "{name}");
        assert_eq!(write_hodges_text(&from_hodges).ok(), Some(hodges.clone()));

        let kif = write_kif(&record).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            kif.contains("   1 ３三燕(34)\n   2 ５五燕(54)\n   3 同　鷹(46)\n"),
            "{kif}"
        );
        let from_kif = read_kif(kif.as_bytes()).unwrap_or_else(|e| panic!("{name} as KIF: {e}"));
        assert_eq!(from_kif.moves, record.moves, "{name}: moves and comments");
        assert_eq!(from_kif.result, record.result);
        assert_eq!(from_kif.reason, record.reason);
        assert_eq!(
            (&from_kif.sente, &from_kif.gote),
            (&record.sente, &record.gote)
        );
        assert_eq!(from_kif.date, record.date);
        assert_eq!(from_kif.comment, record.comment);
        assert_eq!(write_kif(&from_kif).ok(), Some(kif.clone()));

        let pgn = write_pgn(&record).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(pgn.contains("[Variant \"Torishogi\"]\n[FEN \"rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[] w - - 0 1\"]\n"), "{pgn}");
        assert!(pgn.contains("1. Sxe5 Sxc3 2. Fxc3 Fxe5 "), "{pgn}");
        let from_pgn = read_pgn(&pgn).unwrap_or_else(|e| panic!("{name} as PGN: {e}"));
        assert_eq!(from_pgn.moves, record.moves, "{name}: moves and comments");
        assert_eq!(from_pgn.options, record.options, "{name}: rule options");
        assert_eq!(from_pgn.result, record.result);
        assert_eq!(
            (&from_pgn.sente, &from_pgn.gote),
            (&record.sente, &record.gote)
        );
        assert_eq!(write_pgn(&from_pgn).ok(), Some(pgn.clone()));
    }
}

#[test]
fn kif_is_read_in_shift_jis_too() {
    let (path, text) = records()
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no records"));
    let record = parse(&text, &path.display().to_string());
    let kif = write_kif(&record).unwrap_or_else(|e| panic!("{e}"));
    let (bytes, _, unmappable) = encoding_rs::SHIFT_JIS.encode(&kif);
    assert!(
        !unmappable,
        "every Tori kanji used here exists in Shift-JIS"
    );
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "the bytes are really not UTF-8"
    );
    let from_sjis = read_kif(&bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(from_sjis.moves, record.moves);
    assert!(matches!(
        read_kif(&[0x82, 0xa0, 0xff, 0xfe, 0x80]).map_err(|e| e.kind),
        Err(RecordErrorKind::Encoding)
    ));
}

#[test]
fn a_handicap_game_starts_with_gote() {
    let mut options = Options::defaults(tori::spec());
    options
        .set("handicap", "falcon")
        .unwrap_or_else(|e| panic!("{e}"));
    let record = read_hodges_text("1. ... Swx3d\n2. Swx5d Cr5a-4b\n", options)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(usi_moves(&record), ["3c3d", "5e5d", "5a4b"]);
    let text = record.to_canonical().unwrap_or_else(|e| panic!("{e}"));
    assert!(text.contains("[Handicap \"falcon\"]\n"), "{text}");
    assert!(
        text.contains("[SFEN \"rpckcpl/7/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR w - 1\"]\n"),
        "{text}"
    );
    assert!(
        text.contains("\n1. ... Swx3d\n2. Swx5d Cr5a-4b\n*\n"),
        "{text}"
    );
    assert_eq!(Record::parse(&text).ok(), Some(record.clone()));
    let kif = write_kif(&record).unwrap_or_else(|e| panic!("{e}"));
    assert!(kif.contains("手合割：鷹落ち\n"), "{kif}");
    assert_eq!(
        read_kif(kif.as_bytes()).map(|r| usi_moves(&r)).ok(),
        Some(usi_moves(&record))
    );
    let pgn = write_pgn(&record).unwrap_or_else(|e| panic!("{e}"));
    assert!(pgn.contains("1... Sxe4 2. Sxc4 Ccd6"), "{pgn}");
    assert_eq!(
        read_pgn(&pgn).map(|r| usi_moves(&r)).ok(),
        Some(usi_moves(&record))
    );
}

#[test]
fn a_set_up_position_is_kept_in_the_sfen_tag() {
    let text =
        "[Variant \"tori\"]\n[SFEN \"3k3/7/7/7/7/7/3K3 b 2S 1\"]\n\n1. S*4b {check} Ph-5a\n*\n";
    let record = Record::parse(text).unwrap_or_else(|e| panic!("{e}"));
    // A record mixing USI and Hodges moves is written in Hodges.
    assert_eq!(record.notation, MoveNotation::Hodges);
    let replay = record.replay().unwrap_or_else(|e| panic!("{e}"));
    assert!(replay.steps[0].gives_check);
    assert_eq!(replay.final_sfen, "2k4/3S3/7/7/7/7/3K3 b S 3");
    assert!(
        write_kif(&record).is_err(),
        "KIF holds start positions only"
    );
    let pgn = write_pgn(&record).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        pgn.contains("[FEN \"3k3/7/7/7/7/7/3K3[SS] w - - 0 1\"]"),
        "{pgn}"
    );
    assert_eq!(
        read_pgn(&pgn)
            .map(|r| r.start_sfen)
            .ok()
            .flatten()
            .as_deref(),
        Some("3k3/7/7/7/7/7/3K3 b 2S 1")
    );
}

/// (record, line, column, words the message must hold)
const MALFORMED: &[(&str, usize, usize, &str)] = &[
    ("1. Swx3c Swx5e\n", 1, 0, "does not say which game"),
    (
        "[Variant tori]\n",
        1,
        0,
        "the value must be in double quotes",
    ),
    (
        "[Variant \"chess\"]\n",
        1,
        0,
        "unknown or unavailable game \"chess\"",
    ),
    (
        "[Variant \"tori\"]\n[Variant \"tori\"]\n",
        2,
        0,
        "given twice",
    ),
    (
        "[Variant \"tori\"]\n[Options \"owl=maybe\"]\n",
        2,
        0,
        "bad rule option",
    ),
    (
        "[Variant \"tori\"]\n[Handicap \"rook\"]\n",
        2,
        0,
        "bad rule option",
    ),
    (
        "[Variant \"tori\"]\n[SFEN \"3k3/7/7 b - 1\"]\n\n1. Ph-4f\n",
        2,
        0,
        "bad start position",
    ),
    (
        "[Variant \"tori\"]\n[Result \"2-0\"]\n",
        2,
        0,
        "bad result \"2-0\"",
    ),
    (
        "[Variant \"tori\"]\n[Reason \"boredom\"]\n",
        2,
        0,
        "bad reason",
    ),
    (
        "[Variant \"tori\"]\n\n1. Swx3c Swx5e\n2. Fa-4c Fax3c\n",
        4,
        4,
        "move 2. \"Fa-4c\" cannot be played",
    ),
    (
        "[Variant \"tori\"]\n\n1. Swx3c Swx5e\n2. Fax5e Fa-9z\n",
        4,
        10,
        "move 2... \"Fa-9z\" cannot be played",
    ),
    (
        "[Variant \"tori\"]\n\n1. 3d3c 5d5e\n2. 3c3b Fax3c\n",
        4,
        4,
        "3c3b is illegal",
    ),
    (
        "[Variant \"tori\"]\n\n1. Swx3c Swx5e\n3. Fax5e\n",
        4,
        1,
        "move number 3 where 2 was expected",
    ),
    (
        "[Variant \"tori\"]\n\n1. Swx3c {never closed\nSwx5e\n",
        3,
        10,
        "never closed",
    ),
    (
        "[Variant \"tori\"]\n[Reason \"checkmate\"]\n\n1. Swx3c\n",
        2,
        0,
        "the record says an end by checkmate",
    ),
    (
        "[Variant \"tori\"]\n[Result \"0-1\"]\n\n1. Swx3c 1-0\n",
        4,
        10,
        "1-0 at the end",
    ),
    (
        "[Variant \"tori\"]\n\n1. Swx3c * Swx5e\n",
        3,
        12,
        "after the result",
    ),
    (
        "[Variant \"tori\"]\n[SFEN \"3k3/7/3S3/7/7/7/3K3 b F 1\"]\n\n1. F*4b Ph-5a\n",
        4,
        9,
        "comes after the end of the game",
    ),
];

#[test]
fn malformed_records_name_the_line() {
    for &(text, line, column, words) in MALFORMED {
        let error = Record::parse(text)
            .err()
            .unwrap_or_else(|| panic!("accepted:\n{text}"));
        let message = error.to_string();
        assert!(
            message.contains(words),
            "{message:?} lacks {words:?} for\n{text}"
        );
        assert_eq!(
            (error.location.line, error.location.column),
            (line, column),
            "{message} for\n{text}"
        );
        let prefix = if column == 0 {
            format!("line {line}: ")
        } else {
            format!("line {line}, column {column}: ")
        };
        assert!(message.starts_with(&prefix), "{message}");
    }
}

#[test]
fn kif_times_endings_and_variations() {
    let kif = "#KIF version=2.0 encoding=UTF-8\n開始日時：2026/11/21 10:00\n手合割：平手\n先手：A\n後手：B\n\
               手数----指手---------消費時間--\n   1 ３三燕(34)   ( 0:03/00:00:03)\n*a comment\n\
               \x20  2 ５五燕(54)   ( 0:02/00:00:02)\n   3 投了\nまで2手で後手の勝ち\n\n変化：2手\n   2 ２三燕(24)\n";
    let record = read_kif(kif.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(usi_moves(&record), ["3d3c", "5d5e"]);
    assert_eq!(record.moves[0].comment.as_deref(), Some("a comment"));
    assert_eq!(record.result, GameResult::GoteWins);
    assert_eq!(record.reason, Some(EndReason::Resignation));
    // The day is the record's date; the time of day and each move's time are kept too.
    assert_eq!(record.date.as_deref(), Some("2026.11.21"));
    assert_eq!(record.extra_tag("Time"), Some("10:00"));
    let thinks: Vec<Option<u64>> = record.moves.iter().map(|m| m.think_ms).collect();
    assert_eq!(thinks, [Some(3000), Some(2000)]);
    assert_eq!(
        (record.sente.as_deref(), record.gote.as_deref()),
        (Some("A"), Some("B"))
    );
}

#[test]
fn kif_writes_event_place_start_end_and_move_times_and_reads_them_back() {
    let mut record = Record::new(Options::defaults(tori::spec()));
    record.sente = Some("A".into());
    record.gote = Some("B".into());
    record.date = Some("2026.11.30".into());
    record.extra_tags = vec![
        ("Event".into(), "Rated Tori shogi game".into()),
        ("Site".into(), "https://example.org/game/abc".into()),
        ("UTCTime".into(), "19:05:00".into()),
        ("EndDate".into(), "2026.11.30".into()),
        ("EndTime".into(), "19:20:07".into()),
    ];
    for (usi, think) in [("3d3c", 3_400), ("4b3c", 65_000), ("5e5d", 1_000)] {
        record.moves.push(tsubame_notation::record::RecordMove {
            usi: usi.into(),
            comment: None,
            think_ms: Some(think),
        });
    }
    let kif = write_kif(&record).unwrap_or_else(|e| panic!("{e}"));
    for line in [
        "棋戦：Rated Tori shogi game",
        "場所：https://example.org/game/abc",
        "開始日時：2026/11/30 19:05:00",
        "終了日時：2026/11/30 19:20:07",
    ] {
        assert!(kif.lines().any(|l| l == line), "{line} missing from\n{kif}");
    }
    // Each move's own time, then its player's total: sente's 3 s then 1 s make 4 s.
    let times: Vec<&str> = kif
        .lines()
        .filter_map(|l| l.rfind('(').map(|at| &l[at..]))
        .filter(|t| t.contains('/'))
        .collect();
    assert_eq!(
        times,
        ["( 0:03/00:00:03)", "( 1:05/00:01:05)", "( 0:01/00:00:04)"],
        "{kif}"
    );
    let back = read_kif(kif.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    let thinks: Vec<Option<u64>> = back.moves.iter().map(|m| m.think_ms).collect();
    assert_eq!(thinks, [Some(3000), Some(65000), Some(1000)]);
    assert_eq!(back.date.as_deref(), Some("2026.11.30"));
    for (tag, value) in [
        ("Event", "Rated Tori shogi game"),
        ("Site", "https://example.org/game/abc"),
        ("Time", "19:05:00"),
        ("EndDate", "2026.11.30"),
        ("EndTime", "19:20:07"),
    ] {
        assert_eq!(back.extra_tag(tag), Some(value), "{tag}");
    }
}

#[test]
fn malformed_kif_and_pgn_name_the_line() {
    let kif = "手合割：平手\n手数----指手---------消費時間--\n   1 ３三象(34)\n";
    let error = read_kif(kif.as_bytes()).err().map(|e| e.to_string());
    assert_eq!(
        error.as_deref(),
        Some("line 3, column 6: unexpected \"unknown piece in \\\"３三象(34)\\\"\"")
    );
    let kif = "手合割：平手\n手数----指手---------消費時間--\n   1 ３三燕(34)\n   2 ３三燕(32)\n";
    let error = read_kif(kif.as_bytes())
        .err()
        .map(|e| (e.line(), e.to_string()));
    assert!(
        matches!(&error, Some((4, m)) if m.contains("move 1... \"3b3c\" cannot be played")),
        "{error:?}"
    );
    let pgn = "[Variant \"Torishogi\"]\n\n1. Sxe5 Sxc3\n2. Fxc4 *\n";
    let error = read_pgn(pgn).err().map(|e| e.to_string());
    assert_eq!(
        error.as_deref(),
        Some(
            "line 4, column 4: move 2. \"Fxc4\" cannot be played: no legal move is written \"Fxc4\""
        )
    );
    let pgn = "[Variant \"chess\"]\n\n1. e4 *\n";
    assert_eq!(read_pgn(pgn).err().map(|e| e.line()), Some(1));
}

#[test]
fn every_reason_word_reads_back() {
    for reason in [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::Repetition,
        EndReason::PerpetualCheck,
        EndReason::DropMate,
        EndReason::Resignation,
        EndReason::Time,
        EndReason::MoveLimit,
    ] {
        assert_eq!(
            tsubame_notation::record::end_reason_from_name(reason.name()),
            Some(reason)
        );
    }
}

#[test]
fn a_wa_record_round_trips_and_tori_only_formats_say_so() {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let options =
        Options::parse(tsubame_rules::wa::spec(), "drops=off").unwrap_or_else(|e| panic!("{e}"));
    let mut position = tsubame_rules::wa::start(&options).unwrap_or_else(|e| panic!("{e}"));
    let mut record = Record::new(options.clone());
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for _ in 0..40 {
        let Some(&mv) = position.legal_moves().choose(&mut rng) else {
            break;
        };
        record.moves.push(tsubame_notation::record::RecordMove {
            usi: position.to_usi(mv),
            comment: None,
            think_ms: None,
        });
        position.make_move(mv);
    }
    record.sente = Some("Sente player".into());
    let text = record.to_canonical().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.starts_with("[Variant \"wa\"]\n[Options \"drops=off"),
        "{text}"
    );
    assert!(!text.contains("[Handicap"), "Wa has no handicaps: {text}");
    let back = Record::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back, record);
    let hodges = write_hodges_text(&record).unwrap_or_else(|e| panic!("{e}"));
    let from_hodges = read_hodges_text(&hodges, options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(from_hodges.moves, record.moves);
    assert_eq!(
        write_kif(&record).err().map(|e| e.to_string()).as_deref(),
        Some("KIF is written for Tori shogi only")
    );
    assert!(write_pgn(&record).is_err());
}

/// Both phoenixes step out and back twice: the start position occurs a third time after the
/// eighth move, and the game goes on.
const THREE_TIMES: &str = "4g5f 4a5b 5f4g 5b4a 4g5f 4a5b 5f4g 5b4a 4g5f";

fn record_of(options: Options, usi: &str) -> Record {
    let mut record = Record::new(options);
    record.moves = usi
        .split_whitespace()
        .map(|usi| tsubame_notation::record::RecordMove {
            usi: usi.to_string(),
            comment: None,
            think_ms: None,
        })
        .collect();
    record
}

/// The play site ends Tori games on the fourth occurrence of a position, so its PGN replays
/// under `repetition=4`: a real game past a threefold repetition reads; under our default (3)
/// the error names the move that ended the game, not the one after it.
#[test]
fn play_site_pgn_replays_under_its_own_repetition_rule() {
    let pgn = write_pgn(&record_of(play_site_options(), THREE_TIMES)).unwrap();
    assert!(!pgn.contains("[Options"), "{pgn}");
    let record = read_pgn(&pgn).unwrap();
    assert_eq!(record.moves.len(), 9);
    assert_eq!(record.options.get("repetition").as_deref(), Some("4"));
    let ours = Options::defaults(tori::spec());
    let error = read_pgn_with(&pgn, Some(&ours))
        .err()
        .map(|e| e.to_string());
    assert!(
        error.as_deref().is_some_and(
            |e| e.contains("comes after the end of the game: 4... ") && e.contains("ended it")
        ),
        "{error:?}"
    );
    // Rules other than the play site's travel in an Options tag and come back.
    let strict = Options::parse(tori::spec(), "drop-mate=illegal,repetition=3").unwrap();
    let pgn = write_pgn(&record_of(strict.clone(), "3d3c 4b3c")).unwrap();
    assert!(
        pgn.contains("[Options \"drop-mate=illegal,repetition=3"),
        "{pgn}"
    );
    assert_eq!(read_pgn(&pgn).unwrap().options, strict);
}

/// A PGN file of many games reads them all, and an error names its line in the whole file.
#[test]
fn pgn_files_with_many_games() {
    let first = write_pgn(&record_of(play_site_options(), "3d3c 4b3c 5e5d")).unwrap();
    let second = write_pgn(&record_of(play_site_options(), THREE_TIMES)).unwrap();
    let file = format!("{first}\n{second}\n{first}");
    let games = read_pgn_games(&file, None).unwrap();
    let lengths: Vec<usize> = games.iter().map(|g| g.moves.len()).collect();
    assert_eq!(lengths, vec![3, 9, 3]);
    // The single-game reader refuses the second game's tags instead of ignoring them.
    assert!(read_pgn(&file).is_err());
    let broken = format!("{first}\n{}", second.replace("Kd7", "Kd9"));
    let line_of_bad_move = broken
        .lines()
        .position(|l| l.contains("Kd9"))
        .map(|i| i + 1);
    let error = read_pgn_games(&broken, None).err();
    assert_eq!(
        error.as_ref().map(|e| e.line()),
        line_of_bad_move,
        "{error:?}"
    );
}

/// A KIF's ending line speaks for the side to move: without a closing line, `投了`, `詰み` and
/// `切れ負け` give the game to the other side. A resignation on the opponent's turn, which no
/// ending line can say, is kept as a comment and read back; players, date and the clock's
/// 持ち時間 survive the round trip, in KIF and in PGN.
#[test]
fn kif_endings_name_the_winner_and_game_tags_survive_both_ways() {
    let head = "#KIF version=2.0 encoding=UTF-8\n手合割：平手\n手数----指手---------消費時間--\n   1 ３三燕(34)\n   2 ５五燕(54)\n";
    for (ending, reason) in [
        ("投了", EndReason::Resignation),
        ("切れ負け", EndReason::Time),
    ] {
        let record =
            read_kif(format!("{head}   3 {ending}\n").as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        // Move 3 is sente's: sente resigned (or lost on time), gote won.
        assert_eq!(record.result, GameResult::GoteWins, "{ending}");
        assert_eq!(record.reason, Some(reason), "{ending}");
    }
    let mut record = read_kif(head.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(record.result, GameResult::Unfinished);
    record.sente = Some("Alice".into());
    record.gote = Some("Bob".into());
    record.date = Some("2026.11.26".into());
    // Gote resigned while sente was to move.
    record.result = GameResult::SenteWins;
    record.reason = Some(EndReason::Resignation);
    for (control, written) in [("600+30b", "10分+30秒"), ("300+5", "5分+5秒加算")] {
        record.time_control = Some(control.into());
        let kif = write_kif(&record).unwrap_or_else(|e| panic!("{e}"));
        assert!(kif.contains(&format!("持ち時間：{written}\n")), "{kif}");
        assert!(kif.contains("*後手投了\nまで2手で先手の勝ち\n"), "{kif}");
        assert!(!kif.contains("   3 投了"), "{kif}");
        let back = read_kif(kif.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.result, GameResult::SenteWins);
        assert_eq!(back.reason, Some(EndReason::Resignation));
        assert_eq!(
            back.moves, record.moves,
            "the comment is not left on the move"
        );
        assert_eq!(back.time_control.as_deref(), Some(control));
        assert_eq!(
            (back.sente, back.gote, back.date),
            (
                record.sente.clone(),
                record.gote.clone(),
                record.date.clone()
            )
        );
        let pgn = write_pgn(&record).unwrap_or_else(|e| panic!("{e}"));
        let back = read_pgn(&pgn).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.time_control.as_deref(), Some(control), "{pgn}");
        assert_eq!(
            (back.sente, back.gote, back.date),
            (
                record.sente.clone(),
                record.gote.clone(),
                record.date.clone()
            )
        );
        assert_eq!(back.result, GameResult::SenteWins);
    }
    // A comment on the last move stays its own beside the resignation.
    let mut commented = record.clone();
    if let Some(last) = commented.moves.last_mut() {
        last.comment = Some("a good move".into());
    }
    let back = read_kif(
        write_kif(&commented)
            .unwrap_or_else(|e| panic!("{e}"))
            .as_bytes(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back.reason, Some(EndReason::Resignation));
    assert_eq!(back.result, GameResult::SenteWins);
    assert_eq!(back.moves, commented.moves);
    // A resignation by the side to move is the ending line, as KIF readers expect it.
    record.result = GameResult::GoteWins;
    let kif = write_kif(&record).unwrap_or_else(|e| panic!("{e}"));
    assert!(kif.contains("   3 投了\nまで2手で後手の勝ち\n"), "{kif}");
}
