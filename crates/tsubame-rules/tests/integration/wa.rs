//! Wa shogi as `rules/wa-shogi.md` specifies it: every piece's moves (the table "Moves"), both
//! sides, promotion (optional, three-rank zone, forced for sparrow pawn and oxcart on the last
//! rank), drops on and off with their restrictions, check, repetition as no contest, perpetual
//! check, the move limit, and the start position.

use tsubame_rules::{Color, EndReason, Game, Options, Outcome, Position, Status, wa};

fn options(text: &str) -> Options {
    Options::parse(wa::spec(), text).unwrap()
}

fn position(sfen: &str, opts: &str) -> Position<u128> {
    Position::from_sfen(wa::tables(), sfen, options(opts).rule_set())
        .unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

fn usi_moves(p: &Position<u128>) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().into_iter().map(|m| p.to_usi(m)).collect();
    v.sort();
    v
}

fn destinations(p: &Position<u128>, from: &str) -> Vec<String> {
    let mut out: Vec<String> = usi_moves(p)
        .into_iter()
        .filter(|t| t.starts_with(from) && !t.contains('*'))
        .filter(|t| {
            t[from.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .map(|t| t[from.len()..].to_string())
        .collect();
    out.sort();
    out
}

fn rank_of(square: &str) -> u8 {
    square.bytes().find(|b| b.is_ascii_lowercase()).unwrap() - b'a'
}

/// The expected move list for a sente piece on 6f: each square once, and again with `+` where
/// the piece promotes and the square is in the zone (ranks a-c); only with `+` on rank a for the
/// sparrow pawn and the oxcart.
fn expected(squares: &[&str], promotes: bool, forced_on_last: bool) -> Vec<String> {
    let mut out = Vec::new();
    for s in squares {
        let rank = rank_of(s);
        if promotes && rank <= 2 {
            out.push(format!("{s}+"));
            if !(forced_on_last && rank == 0) {
                out.push(s.to_string());
            }
        } else {
            out.push(s.to_string());
        }
    }
    out.sort();
    out
}

/// The square seen from the other side.
fn rotate(square: &str) -> String {
    let digits: String = square.chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = &square[digits.len()..];
    let file: u8 = digits.parse().unwrap();
    let rank = rest.as_bytes()[0];
    format!(
        "{}{}{}",
        12 - file,
        (b'a' + (b'k' - rank)) as char,
        &rest[1..]
    )
}

/// Checks a piece on 6f for both sides. Kings stand on 9a and 3k, off every line through 6f.
fn check_piece(code: &str, squares: &[&str], promotes: bool, forced_on_last: bool) {
    let sente = format!("2k8/11/11/11/11/5{code}5/11/11/11/11/8K2 b - 1");
    let want = expected(squares, promotes, forced_on_last);
    assert_eq!(
        destinations(&position(&sente, "drops=off"), "6f"),
        want,
        "sente {code}"
    );
    let gote = format!(
        "2k8/11/11/11/11/5{}5/11/11/11/11/8K2 w - 1",
        code.to_ascii_lowercase()
    );
    let mut rotated: Vec<String> = want.iter().map(|s| rotate(s)).collect();
    rotated.sort();
    assert_eq!(
        destinations(&position(&gote, "drops=off"), "6f"),
        rotated,
        "gote {code}"
    );
}

const FILE_UP: [&str; 5] = ["6e", "6d", "6c", "6b", "6a"];
const FILE_DOWN: [&str; 5] = ["6g", "6h", "6i", "6j", "6k"];
const DIAGONALS: [&str; 20] = [
    "5e", "4d", "3c", "2b", "1a", "7e", "8d", "9c", "10b", "11a", "5g", "4h", "3i", "2j", "1k",
    "7g", "8h", "9i", "10j", "11k",
];
const RANK: [&str; 10] = ["7f", "8f", "9f", "10f", "11f", "5f", "4f", "3f", "2f", "1f"];

fn cat(parts: &[&[&str]]) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for part in parts {
        for s in *part {
            let leaked: &'static str = Box::leak(s.to_string().into_boxed_str());
            v.push(leaked);
        }
    }
    v
}

#[test]
fn crane_king_steps_one_square_any_way() {
    let p = position("2k8/11/11/11/11/5K5/11/11/11/11/11 b - 1", "drops=off");
    assert_eq!(
        destinations(&p, "6f"),
        expected(
            &["5e", "6e", "7e", "5f", "7f", "5g", "6g", "7g"],
            false,
            false
        )
    );
}

#[test]
fn cloud_eagle() {
    let squares = cat(&[
        &FILE_UP,
        &FILE_DOWN,
        &["7e", "8d", "9c", "5e", "4d", "3c", "7g", "5g", "7f", "5f"],
    ]);
    check_piece("E", &squares, false, false);
    check_piece("+L", &squares, false, false);
}

#[test]
fn flying_falcon_and_promoted_crow() {
    let squares = cat(&[&DIAGONALS, &["6e"]]);
    check_piece("F", &squares, true, false);
    check_piece("+U", &squares, false, false);
}

#[test]
fn swallows_wings_and_promoted_goose() {
    let squares = cat(&[&RANK, &["6e", "6g"]]);
    check_piece("S", &squares, true, false);
    check_piece("+G", &squares, false, false);
}

#[test]
fn treacherous_fox_and_promoted_rabbit_leap() {
    let squares = [
        "5e", "7e", "5g", "7g", "6e", "6g", "4d", "8d", "4h", "8h", "6d", "6h",
    ];
    check_piece("X", &squares, false, false);
    check_piece("+R", &squares, false, false);
    // The leaps pass over pieces on the squares between.
    let crowded = position(
        "2k8/11/11/11/4ppp4/4PXP4/4ppp4/11/11/11/8K2 b - 1",
        "drops=off",
    );
    for target in ["4d", "8d", "6d", "4h", "8h", "6h"] {
        assert!(
            destinations(&crowded, "6f").contains(&target.to_string()),
            "{target}"
        );
    }
}

#[test]
fn running_rabbit() {
    check_piece(
        "R",
        &cat(&[&FILE_UP, &["5e", "7e", "5g", "7g", "6g"]]),
        true,
        false,
    );
}

#[test]
fn gold_and_silver_like_steppers() {
    let gold = ["6e", "6g", "5f", "7f", "5e", "7e"];
    check_piece("W", &gold, true, false);
    check_piece("+D", &gold, false, false);
    check_piece("+P", &gold, false, false);
    let silver = ["5e", "7e", "5g", "7g", "6e"];
    check_piece("V", &silver, true, false);
    check_piece("+M", &silver, false, false);
}

#[test]
fn small_steppers() {
    check_piece("G", &["6e", "6g", "5e", "7e"], true, false);
    check_piece("M", &["6e", "6g", "5e", "7e"], true, false);
    check_piece("C", &["5f", "7f", "5e", "7e"], true, false);
    check_piece("U", &["6e", "5g", "7g"], true, false);
    check_piece("L", &["6e", "5g", "7g"], true, false);
    check_piece("D", &["5f", "7f", "6g", "5e", "7e"], true, false);
}

#[test]
fn liberated_horse_oxcart_and_sparrow_pawn() {
    check_piece("H", &cat(&[&FILE_UP, &["6g", "6h"]]), true, false);
    check_piece("O", &FILE_UP, true, true);
    check_piece("P", &["6e"], true, true);
    // The horse's two back steps do not jump.
    let blocked = position("2k8/11/11/11/11/5H5/5P5/11/11/11/8K2 b - 1", "drops=off");
    assert!(!destinations(&blocked, "6f").contains(&"6h".to_string()));
}

#[test]
fn promoted_pieces() {
    check_piece(
        "+F",
        &cat(&[&DIAGONALS, &FILE_UP, &FILE_DOWN, &["5f", "7f"]]),
        false,
        false,
    );
    check_piece("+S", &cat(&[&FILE_UP, &FILE_DOWN, &RANK]), false, false);
    let king = ["5e", "6e", "7e", "5f", "7f", "5g", "6g", "7g"];
    check_piece("+W", &king, false, false);
    check_piece("+O", &king, false, false);
    check_piece(
        "+V",
        &["5e", "7e", "5g", "7g", "6e", "5f", "7f"],
        false,
        false,
    );
    check_piece(
        "+C",
        &cat(&[&FILE_UP, &FILE_DOWN, &["5f", "7f", "5e", "7e"]]),
        false,
        false,
    );
    check_piece("+H", &["5d", "7d", "5h", "7h"], false, false);
}

#[test]
fn cloud_eagle_diagonal_range_is_three_and_blocked() {
    let p = position("2k8/11/11/11/4P6/5E5/11/11/11/11/8K2 b - 1", "drops=off");
    let d = destinations(&p, "6f");
    assert!(
        !d.contains(&"7e".to_string()),
        "own pawn on 7e blocks the forward-left diagonal"
    );
    assert!(
        d.contains(&"3c".to_string()) && !d.contains(&"3c+".to_string()),
        "a cloud eagle never promotes"
    );
    assert!(
        !d.contains(&"2b".to_string()),
        "the range stops after three squares"
    );
}

#[test]
fn start_position_counts_as_the_spec_says() {
    let start = wa::start(&options("")).unwrap();
    assert_eq!(start.to_sfen(), wa::spec().start_sfen);
    let moves = usi_moves(&start);
    assert_eq!(moves.len(), 51);
    let from = |files: &[&str]| {
        moves
            .iter()
            .filter(|m| files.iter().any(|f| m.starts_with(f)))
            .count()
    };
    assert_eq!(from(&["4i"]), 5, "running rabbit");
    assert_eq!(from(&["8i"]), 8, "treacherous fox");
    assert_eq!(from(&["6j"]), 6, "swallow's wings");
    assert_eq!(from(&["2j"]), 2, "cloud eagle");
    assert_eq!(from(&["10j"]), 0, "flying falcon");
    let pawns = [
        "11i", "10i", "9i", "7i", "6i", "5i", "3i", "2i", "1i", "8h", "4h",
    ];
    assert_eq!(from(&pawns), 11, "sparrow pawns");
    let start_square =
        |m: &str| m[..m.chars().take_while(char::is_ascii_digit).count() + 1].to_string();
    let back_rank = moves
        .iter()
        .filter(|m| start_square(m).ends_with('k'))
        .count();
    assert_eq!(back_rank, 19, "back rank");
}

#[test]
fn promotion_is_optional_in_the_zone_and_forced_for_pawn_and_oxcart_on_the_last_rank() {
    let p = position("2k8/5P5/11/4S6/11/11/11/11/11/11/8K2 b - 1", "drops=off");
    let moves = usi_moves(&p);
    // Swallow's wings entering the zone: either way.
    assert!(moves.contains(&"7d7c".to_string()) && moves.contains(&"7d7c+".to_string()));
    // A pawn reaching the last rank must promote.
    assert!(moves.contains(&"6b6a+".to_string()) && !moves.contains(&"6b6a".to_string()));
    // Leaving the zone may promote too.
    let q = position("2k8/11/4S6/11/11/11/11/11/11/11/8K2 b - 1", "drops=off");
    let moves = usi_moves(&q);
    assert!(moves.contains(&"7c7d+".to_string()) && moves.contains(&"7c7d".to_string()));
    // An oxcart on rank b has one move, to the last rank, where it must promote.
    let r = position("2k8/5O5/11/11/11/11/11/11/11/11/8K2 b - 1", "drops=off");
    assert_eq!(destinations(&r, "6b"), vec!["6a+".to_string()]);
}

#[test]
fn captured_pieces_go_to_hand_unpromoted_with_drops_and_vanish_without() {
    let sfen = "2k8/11/11/11/5+p5/5P5/11/11/11/11/8K2 b - 1";
    let mut on = position(sfen, "");
    on.play_usi("6f6e").unwrap();
    assert_eq!(on.hand_count(Color::Sente, wa::SPARROW_PAWN), 1);
    assert_eq!(on.to_sfen(), "2k8/11/11/11/5P5/11/11/11/11/11/8K2 w P 2");
    let mut off = position(sfen, "drops=off");
    off.play_usi("6f6e").unwrap();
    assert_eq!(off.to_sfen(), "2k8/11/11/11/5P5/11/11/11/11/11/8K2 w - 2");
    let err = Position::from_sfen(
        wa::tables(),
        "2k8/11/11/11/11/11/11/11/11/11/8K2 b P 1",
        options("drops=off").rule_set(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid position: sente holds pieces in hand, but this game has no drops"
    );
}

#[test]
fn drop_restrictions() {
    // Sente pawn on file 6 (unpromoted) and a golden bird on file 4.
    let p = position("2k8/11/11/11/11/5P1+P3/11/11/11/11/8K2 b PO 1", "");
    let moves = usi_moves(&p);
    assert!(!moves.iter().any(|m| m.starts_with("P*6")), "nifu");
    assert!(
        moves.contains(&"P*4e".to_string()),
        "a golden bird does not count"
    );
    assert!(
        !moves
            .iter()
            .any(|m| (m.starts_with("P*") || m.starts_with("O*")) && m.ends_with('a')),
        "last rank"
    );
    assert!(moves.contains(&"O*5b".to_string()));
}

#[test]
fn mating_pawn_drop_is_illegal_but_other_mating_drops_are_legal() {
    // Gote's king on 1a behind its own pawns on 2a and 2b; sente's gold-stepping wolf on 1c
    // guards 1b.
    let sfen = "9pk/9p1/10W/11/11/11/11/11/11/11/K10 b PV 1";
    let p = position(sfen, "");
    let moves = usi_moves(&p);
    assert!(!moves.contains(&"P*1b".to_string()));
    assert_eq!(
        p.parse_usi("P*1b").unwrap_err().to_string(),
        "P*1b is illegal: a sparrow pawn drop may not give immediate mate"
    );
    let mut g = Game::from_sfen(wa::tables(), sfen, options("")).unwrap();
    g.play_usi("V*1b").unwrap();
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Sente),
            reason: EndReason::Checkmate
        })
    );
}

#[test]
fn fourth_occurrence_is_no_contest() {
    let mut g = Game::from_sfen(
        wa::tables(),
        "10k/11/11/11/11/11/11/11/11/11/K10 b - 1",
        options(""),
    )
    .unwrap();
    let shuffle = ["11k11j", "1a1b", "11j11k", "1b1a"];
    for _ in 0..2 {
        for mv in shuffle {
            g.play_usi(mv).unwrap();
        }
    }
    assert_eq!(
        g.status(),
        Status::Ongoing,
        "third occurrence is not yet decisive"
    );
    for mv in shuffle {
        g.play_usi(mv).unwrap();
    }
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::Repetition
        })
    );
}

#[test]
fn perpetual_check_loses_in_wa() {
    // Sente's gliding swallow checks along rank a and rank b in turn; the fourth occurrence
    // comes with a checking move, and sente loses for perpetual check.
    let mut g = Game::from_sfen(
        wa::tables(),
        "10k/11/11/11/11/11/11/11/11/2+S8/K10 b - 1",
        options(""),
    )
    .unwrap();
    let cycle = [
        "9j9a", "1a1b", "9a9b", "1b1a", "9b9a", "1a1b", "9a9b", "1b1a", "9b9a", "1a1b", "9a9b",
        "1b1a", "9b9a",
    ];
    for mv in cycle {
        if g.status() != Status::Ongoing {
            break;
        }
        g.play_usi(mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    }
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Gote),
            reason: EndReason::PerpetualCheck
        })
    );
}

#[test]
fn move_limit_ends_without_a_winner() {
    let mut g = Game::new(wa::tables(), options("max-plies=3")).unwrap();
    for mv in ["6i6h", "6c6d", "7i7h"] {
        g.play_usi(mv).unwrap();
    }
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::MoveLimit
        })
    );
    assert!(Options::parse(wa::spec(), "max-plies=0").is_err());
    assert!(Options::parse(wa::spec(), "max-plies=+5").is_err());
    assert_eq!(options("max-plies=200").to_string(), "max-plies=200");
}

#[test]
fn wa_sfen_rejects_impossible_positions() {
    let rules = options("").rule_set();
    let err = |s: &str| {
        Position::from_sfen(wa::tables(), s, rules)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("2k2P5/11/11/11/11/11/11/11/11/11/8K2 b - 1"),
        "invalid position: sente sparrow pawn on 6a could not have got there and could never move"
    );
    assert_eq!(
        err("2k8/11/11/11/11/11/11/11/11/11/8K2 b 23P 1"),
        "invalid position: 23 sparrow pawn pieces (promoted ones included) on board and in hand, a set holds 22"
    );
    assert_eq!(
        err("2k8/11/11/11/11/11/11/11/11/11/8K2 b +P 1"),
        "hand: \"+\" is not a piece that can be in hand"
    );
    assert_eq!(
        err("2k8/11/11/11/11/11/11/11/11/11/8K1 b - 1"),
        "rank k describes 10 square(s), expected 11"
    );
    // Two pawns on a file are the start position's own doubled files: possible.
    assert!(Position::from_sfen(wa::tables(), wa::spec().start_sfen, rules).is_ok());
}
