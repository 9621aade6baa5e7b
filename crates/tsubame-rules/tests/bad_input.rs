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
