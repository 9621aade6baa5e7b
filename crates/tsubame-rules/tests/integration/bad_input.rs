//! Malformed SFEN, FEN, move text and options: each is rejected with an error that names what
//! is wrong, and nothing panics.

use tsubame_rules::{Options, Position, tori};

const START: &str = "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR";

fn sfen_error(text: &str) -> String {
    let rules = Options::defaults(tori::spec()).rule_set();
    match Position::from_sfen(tori::tables(), text, rules) {
        Ok(p) => panic!("{text:?} was accepted as {}", p.to_sfen()),
        Err(e) => e.to_string(),
    }
}

fn fen_error(text: &str) -> String {
    let rules = Options::defaults(tori::spec()).rule_set();
    match Position::from_fen(tori::tables(), text, rules) {
        Ok(p) => panic!("{text:?} was accepted as {}", p.to_fen()),
        Err(e) => e.to_string(),
    }
}

fn move_error(text: &str) -> String {
    let p = tori::start(&Options::defaults(tori::spec())).unwrap();
    match p.parse_usi(text) {
        Ok(mv) => panic!("{text:?} was accepted as {}", p.to_usi(mv)),
        Err(e) => e.to_string(),
    }
}

#[test]
fn malformed_sfen() {
    let cases: Vec<(String, &str)> = vec![
        ("".into(), "empty position string"),
        ("   ".into(), "empty position string"),
        (
            START.into(),
            "expected 3 or 4 fields: board, side, hand, ply, found 1 field(s)",
        ),
        (
            format!("{START} b - 1 9"),
            "expected 3 or 4 fields: board, side, hand, ply, found 5 field(s)",
        ),
        (
            "rpckcpl/3f3/sssssss/SSSSSSS/3F3/LPCKCPR b - 1".into(),
            "board has 6 rank(s), expected 7",
        ),
        (
            format!("{START}/7 b - 1"),
            "board has 8 rank(s), expected 7",
        ),
        (
            "rpckcpll/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1".into(),
            "rank a describes 8 square(s), expected 7",
        ),
        (
            "rpckcp/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1".into(),
            "rank a describes 6 square(s), expected 7",
        ),
        (
            "rpckcpl/3f4/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1".into(),
            "rank b describes 8 square(s), expected 7",
        ),
        (
            "rpckcpl/8/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1".into(),
            "rank b: \"8\" is not a valid count of empty squares",
        ),
        (
            "rpckcpl/07/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1".into(),
            "rank b: \"07\" is not a valid count of empty squares",
        ),
        (
            "rpckcpl/99999999999999999999/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1".into(),
            "rank b: \"99999999999999999999\" is not a valid count of empty squares",
        ),
        (
            "rpckcpx/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1".into(),
            "rank a: \"x\" is not a piece of tori",
        ),
        (
            "rpckcp?/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1".into(),
            "rank a: \"?\" is not a piece of tori",
        ),
        (
            "rpckcp鵬/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1".into(),
            "rank a: \"鵬\" is not a piece of tori",
        ),
        (
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LP+CKCPR b - 1".into(),
            "rank g: \"+C\" cannot be promoted",
        ),
        (
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR+ b - 1".into(),
            "rank g: \"+\" cannot be promoted",
        ),
        (
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/L++CKCPR b - 1".into(),
            "rank g: \"++\" cannot be promoted",
        ),
        (
            format!("{START} x - 1"),
            "side to move \"x\" is not b (sente) or w (gote)",
        ),
        (
            format!("{START} B - 1"),
            "side to move \"B\" is not b (sente) or w (gote)",
        ),
        (
            format!("{START} b Z 1"),
            "hand: \"Z\" is not a piece that can be in hand",
        ),
        (
            format!("{START} b 0S 1"),
            "hand: count \"0\" is not a number from 1 to 255",
        ),
        (
            format!("{START} b 99999999999S 1"),
            "hand: count \"99999999999\" is not a number from 1 to 255",
        ),
        (
            format!("{START} b S2 1"),
            "hand: count \"2\" is not a number from 1 to 255",
        ),
        (
            format!("{START} b +S 1"),
            "hand: \"+\" is not a piece that can be in hand",
        ),
        (
            format!("{START} b - 0"),
            "move number \"0\" is not a positive number",
        ),
        (
            format!("{START} b - -3"),
            "move number \"-3\" is not a positive number",
        ),
        (
            format!("{START} b - 99999999999999999999"),
            "move number \"99999999999999999999\" is not a positive number",
        ),
        (
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPKKCPR b - 1".into(),
            "invalid position: sente has 2 phoenix pieces on the board, only one is allowed",
        ),
        (
            "rpc1cpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1".into(),
            "invalid position: gote has no phoenix on the board",
        ),
        (
            "k2S3/7/7/7/7/7/3K3 b - 1".into(),
            "invalid position: sente swallow on 4a could not have got there and could never move",
        ),
        (
            "k6/7/7/7/7/7/3Ks2 b - 1".into(),
            "invalid position: gote swallow on 3g could not have got there and could never move",
        ),
        (
            "k6/3S3/3S3/3S3/7/7/K6 b - 1".into(),
            "invalid position: sente has 3 swallow pieces on file 4, at most 2 are possible",
        ),
        (
            "k6/7/7/7/7/7/K6 b 17S 1".into(),
            "invalid position: 17 swallow pieces (promoted ones included) on board and in hand, a set holds 16",
        ),
        (
            "k6/7/7/3F3/3+F3/7/K6 b f 1".into(),
            "invalid position: 3 falcon pieces (promoted ones included) on board and in hand, a set holds 2",
        ),
        (
            "k6/7/7/7/7/7/K6 b K 1".into(),
            "invalid position: sente holds a phoenix in hand, which cannot be",
        ),
        (
            "k6/K6/7/7/7/7/7 b - 1".into(),
            "invalid position: gote is not to move but is in check",
        ),
        (
            "\u{0}\u{1}\u{2} b - 1".into(),
            "board has 1 rank(s), expected 7",
        ),
    ];
    assert!(cases.len() >= 38);
    for (text, expected) in cases {
        assert_eq!(sfen_error(&text), expected, "{text:?}");
    }
}

#[test]
fn malformed_fen() {
    let cases = [
        (
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[S w 0 1",
            "hand: missing ']' at the end of the board field",
        ),
        (
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[S][s] w 0 1",
            "hand: more than one pair of brackets",
        ),
        (
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[-] x 0 1",
            "side to move \"x\" is not w (sente) or b (gote)",
        ),
        (
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[] w KQ - 0 1",
            "field \"KQ\" must be '-' in this game",
        ),
        (
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[] w -",
            "expected board[hand] side, then optionally '- -', then halfmove and fullmove numbers, found 3 field(s)",
        ),
        (
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[] w 0 0",
            "move number \"0\" is not a positive number",
        ),
        (
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[] w x 1",
            "move number \"x\" is not a positive number",
        ),
        (
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[Q] w 0 1",
            "hand: \"Q\" is not a piece that can be in hand",
        ),
        ("", "empty position string"),
    ];
    for (text, expected) in cases {
        assert_eq!(fen_error(text), expected, "{text:?}");
    }
}

#[test]
fn malformed_and_illegal_moves() {
    let cases = [
        ("", "\"\" is not a move: empty"),
        (
            "3e",
            "\"3e\" is not a move: the second square is missing or off the board",
        ),
        (
            "3e3d++",
            "\"3e3d++\" is not a move: only '+' may follow the destination",
        ),
        (
            "3e9d",
            "\"3e9d\" is not a move: the second square is missing or off the board",
        ),
        (
            "e3e4",
            "\"e3e4\" is not a move: it does not start with a square of this board",
        ),
        (
            "X*3d",
            "\"X*3d\" is not a move: the piece before '*' is not an upper-case piece letter of this game",
        ),
        (
            "s*3d",
            "\"s*3d\" is not a move: the piece before '*' is not an upper-case piece letter of this game",
        ),
        (
            "S*",
            "\"S*\" is not a move: the square after '*' is not a square of this board",
        ),
        (
            "３e3d",
            "\"３e3d\" is not a move: contains characters other than ASCII",
        ),
        (
            "3e3d",
            "3e3d is illegal: the square is held by your own swallow",
        ),
        ("4d4c", "4d4c is illegal: there is no piece on 4d"),
        ("5c5d", "5c5d is illegal: the swallow on 5c belongs to gote"),
        ("S*4d", "S*4d is illegal: you have no swallow in hand"),
        (
            "4g4d",
            "4g4d is illegal: a phoenix cannot move from 4g to 4d",
        ),
        (
            "3d3c+",
            "3d3c+ is illegal: a swallow cannot promote on this move",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(move_error(text), expected, "{text:?}");
    }
}

#[test]
fn malformed_options() {
    let err = |t: &str| Options::parse(tori::spec(), t).unwrap_err().to_string();
    assert_eq!(
        err("owl=maybe"),
        "option owl has no value \"maybe\" (values: off, on)"
    );
    assert_eq!(
        err("colour=red"),
        "unknown option \"colour\" for tori (options: drop-mate, repetition, owl, shrike, handicap)"
    );
    assert_eq!(err("owl"), "option \"owl\" is not written as name=value");
}

#[test]
fn moves_built_from_raw_values_are_refused_not_fatal() {
    use tsubame_rules::{Move, Role, Square};
    let mut game =
        tsubame_rules::Game::new(tori::tables(), Options::defaults(tori::spec())).unwrap();
    let off = Square::from_index(200);
    let on = Square::from_index(10);
    for mv in [
        Move::normal(off, on, false),
        Move::normal(on, off, true),
        Move::drop(Role(99), on),
        Move::drop(tori::SWALLOW, off),
        Move::exchange(Role(200), off),
        Move::exchange(tori::CRANE, on),
    ] {
        let err = game.play(mv).unwrap_err().to_string();
        assert!(err.contains("illegal"), "{err}");
    }
    assert_eq!(game.moves().len(), 0);
}

#[test]
fn overlong_ranks_with_huge_digit_runs_are_measured_without_overflow() {
    // Found by fuzzing: a rank that overflows and then names an enormous run of empty squares.
    let text = "LLLLLLLLL18446744073709551615/7/7/7/7/7/7 b - 1";
    assert_eq!(
        sfen_error(text),
        "rank a describes 18446744073709551615 square(s), expected 7"
    );
    let fen = "7[]7[]/7/7/7/7/7/7 w 0 1";
    assert!(!fen_error(fen).is_empty());
}

const WA_START: &str =
    "hmlcvkwgudo/1e3s3f1/ppprpppxppp/3p3p3/11/11/11/3P3P3/PPPXPPPRPPP/1F3S3E1/ODUGWKVCLMH";

fn wa_sfen_error(text: &str, options: &str) -> String {
    let rules = Options::parse(tsubame_rules::wa::spec(), options)
        .unwrap()
        .rule_set();
    match Position::from_sfen(tsubame_rules::wa::tables(), text, rules) {
        Ok(p) => panic!("{text:?} was accepted as {}", p.to_sfen()),
        Err(e) => e.to_string(),
    }
}

fn wa_move_error(text: &str) -> String {
    let p = tsubame_rules::wa::start(&Options::defaults(tsubame_rules::wa::spec())).unwrap();
    match p.parse_usi(text) {
        Ok(mv) => panic!("{text:?} was accepted as {}", p.to_usi(mv)),
        Err(e) => e.to_string(),
    }
}

#[test]
fn malformed_wa_positions() {
    let kings = |middle: &str| format!("2k8/{middle}/11/11/11/11/11/11/11/11/8K2");
    let cases: Vec<(String, &str, &str)> = vec![
        (
            format!("{WA_START}/11 b - 1"),
            "",
            "board has 12 rank(s), expected 11",
        ),
        (
            "2k8/11/11/11/11/11/11/11/11/8K2 b - 1".into(),
            "",
            "board has 10 rank(s), expected 11",
        ),
        (
            format!("{} b - 1", kings("12")),
            "",
            "rank b: \"12\" is not a valid count of empty squares",
        ),
        (
            format!("{} b - 1", kings("011")),
            "",
            "rank b: \"011\" is not a valid count of empty squares",
        ),
        (
            format!("{} b - 1", kings("5P6")),
            "",
            "rank b describes 12 square(s), expected 11",
        ),
        (
            format!("{} b - 1", kings("5P4")),
            "",
            "rank b describes 10 square(s), expected 11",
        ),
        (
            format!("{} b - 1", kings("5Q5")),
            "",
            "rank b: \"Q\" is not a piece of wa",
        ),
        (
            format!("{} b - 1", kings("5B5")),
            "",
            "rank b: \"B\" is not a piece of wa",
        ),
        (
            format!("{} b - 1", kings("5+E5")),
            "",
            "rank b: \"+E\" cannot be promoted",
        ),
        (
            format!("{} b - 1", kings("5+X5")),
            "",
            "rank b: \"+X\" cannot be promoted",
        ),
        (
            format!("{} b - 1", kings("5+K5")),
            "",
            "rank b: \"+K\" cannot be promoted",
        ),
        (
            format!("{} b - 1", kings("5K5")),
            "",
            "invalid position: sente has 2 crane king pieces on the board, only one is allowed",
        ),
        (
            "11/11/11/11/11/11/11/11/11/11/8K2 b - 1".into(),
            "",
            "invalid position: gote has no crane king on the board",
        ),
        (
            "2k2P5/11/11/11/11/11/11/11/11/11/8K2 b - 1".into(),
            "",
            "invalid position: sente sparrow pawn on 6a could not have got there and could never move",
        ),
        (
            "2k2O5/11/11/11/11/11/11/11/11/11/8K2 b - 1".into(),
            "",
            "invalid position: sente oxcart on 6a could not have got there and could never move",
        ),
        (
            "2k8/11/11/11/11/11/11/11/11/11/5o2K2 b - 1".into(),
            "",
            "invalid position: gote oxcart on 6k could not have got there and could never move",
        ),
        (
            format!("{} b 2F 1", kings("5+F5")),
            "",
            "invalid position: 3 flying falcon pieces (promoted ones included) on board and in hand, a set holds 2",
        ),
        (
            format!("{} b 23P 1", kings("11")),
            "",
            "invalid position: 23 sparrow pawn pieces (promoted ones included) on board and in hand, a set holds 22",
        ),
        (
            format!("{} b K 1", kings("11")),
            "",
            "invalid position: sente holds a crane king in hand, which cannot be",
        ),
        (
            format!("{} b P 1", kings("11")),
            "drops=off",
            "invalid position: sente holds pieces in hand, but this game has no drops",
        ),
        (
            format!("{} b 0P 1", kings("11")),
            "",
            "hand: count \"0\" is not a number from 1 to 255",
        ),
        (
            format!("{} b Pz 1", kings("11")),
            "",
            "hand: \"z\" is not a piece that can be in hand",
        ),
        (
            format!("{} x - 1", kings("11")),
            "",
            "side to move \"x\" is not b (sente) or w (gote)",
        ),
        (
            format!("{} b - 0", kings("11")),
            "",
            "move number \"0\" is not a positive number",
        ),
        (
            "2k8/2R8/11/11/11/11/11/11/11/11/8K2 b - 1".into(),
            "",
            "invalid position: gote is not to move but is in check",
        ),
    ];
    assert!(cases.len() >= 20);
    for (text, options, expected) in cases {
        assert_eq!(wa_sfen_error(&text, options), expected, "{text:?}");
    }
}

#[test]
fn malformed_wa_moves() {
    let cases = [
        (
            "12a1a",
            "\"12a1a\" is not a move: it does not start with a square of this board",
        ),
        (
            "6k6l",
            "\"6k6l\" is not a move: the second square is missing or off the board",
        ),
        (
            "111k11j",
            "\"111k11j\" is not a move: it does not start with a square of this board",
        ),
        (
            "Q*5e",
            "\"Q*5e\" is not a move: the piece before '*' is not an upper-case piece letter of this game",
        ),
        ("P*5e", "P*5e is illegal: you have no sparrow pawn in hand"),
        (
            "11k11i",
            "11k11i is illegal: the square is held by your own sparrow pawn",
        ),
        (
            "6i6h+",
            "6i6h+ is illegal: a sparrow pawn cannot promote on this move",
        ),
        (
            "4i4b",
            "4i4b is illegal: a running rabbit cannot move from 4i to 4b",
        ),
        (
            "6c6d",
            "6c6d is illegal: the sparrow pawn on 6c belongs to gote",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(wa_move_error(text), expected, "{text:?}");
    }
}

/// An invalid position's reason is part of the SFEN error's message, not also its source, so
/// that error chains (the command line's `{:#}`) say it once.
#[test]
fn an_invalid_position_is_said_once() {
    use std::error::Error as _;
    let rules = tsubame_rules::Options::defaults(tsubame_rules::tori::spec()).rule_set();
    let error = tsubame_rules::Position::from_sfen(
        tsubame_rules::tori::tables(),
        "3k3/7/7/7/7/7/3KK2 b - 1",
        rules,
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("invalid position: sente has 2 phoenix")
    );
    assert!(error.source().is_none(), "{error:?}");
}
