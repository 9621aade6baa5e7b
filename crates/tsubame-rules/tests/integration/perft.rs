//! Perft against the reference counts in `tests/data` (copied from the project's shared reference
//! data): Fairy-Stockfish's counts for Tori shogi under both drop-mate readings, and the
//! start positions with expansion pieces and handicaps.

use tsubame_rules::{Options, Position, tori};

fn rows(file: &str) -> Vec<Vec<String>> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Deep rows need an optimised build; a debug build stops at this many nodes.
fn node_limit() -> u64 {
    if cfg!(debug_assertions) {
        2_000_000
    } else {
        u64::MAX
    }
}

fn check_fen_file(file: &str, options: &str) {
    let options = Options::parse(tori::spec(), options).unwrap();
    let mut checked = 0;
    for row in rows(file) {
        let (fen, depth, expected): (&str, u32, u64) =
            (&row[0], row[1].parse().unwrap(), row[2].parse().unwrap());
        if expected > node_limit() {
            continue;
        }
        let mut position = Position::from_fen(tori::tables(), fen, options.rule_set())
            .unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(
            position.perft(depth),
            expected,
            "{file}: {fen} depth {depth}"
        );
        checked += 1;
    }
    assert!(checked >= 120, "only {checked} rows checked");
}

#[test]
fn fairy_stockfish_counts_with_drop_mate_loses() {
    check_fen_file("torishogi-perft.tsv", "drop-mate=loses");
}

#[test]
fn fairy_stockfish_counts_with_drop_mate_illegal() {
    check_fen_file("torishogi-perft-strict.tsv", "drop-mate=illegal");
}

#[test]
fn option_start_positions() {
    let all = rows("torishogi-options-start-perft.tsv");
    assert_eq!(all.len(), 21);
    for row in all {
        let (sfen, options, depth, expected): (&str, &str, u32, u64) = (
            &row[0],
            &row[1],
            row[2].parse().unwrap(),
            row[3].parse().unwrap(),
        );
        let options = Options::parse(tori::spec(), options).unwrap();
        let mut from_sfen = Position::from_sfen(tori::tables(), sfen, options.rule_set()).unwrap();
        assert_eq!(from_sfen.perft(depth), expected, "{sfen} depth {depth}");
        // The option's start position is exactly the listed SFEN.
        let start = tori::start(&options).unwrap();
        assert_eq!(start.to_sfen(), sfen);
    }
}

/// Wa's start position with drops on and off. These counts are our own (no other program
/// counts Wa perft); they are kept so that any change to Wa's move generation shows, and the
/// moves themselves are cross-checked against HaChu in `hachu_wa.rs`. Depth 1 is the spec's
/// hand count of 51, and depth 5 is the first where drops make a difference.
#[test]
fn wa_start_position_counts() {
    let all = rows("washogi-start-perft.tsv");
    assert_eq!(all.len(), 10);
    for row in all {
        let (sfen, options, depth, expected): (&str, &str, u32, u64) = (
            &row[0],
            &row[1],
            row[2].parse().unwrap(),
            row[3].parse().unwrap(),
        );
        if expected > node_limit() {
            continue;
        }
        let options = tsubame_rules::Options::parse(tsubame_rules::wa::spec(), options).unwrap();
        let mut position =
            Position::from_sfen(tsubame_rules::wa::tables(), sfen, options.rule_set()).unwrap();
        assert_eq!(
            position.perft(depth),
            expected,
            "{sfen} {options} depth {depth}"
        );
    }
}

/// Perft counted by the slow, independent route (every pseudo-legal move made and tested for
/// the own royal's safety) agrees with the generator on positions of both games.
#[test]
fn perft_agrees_with_make_and_test_counting() {
    fn slow<B: tsubame_rules::Bitboard>(position: &mut Position<B>, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mover = position.side_to_move();
        let mut nodes = 0;
        for mv in position.pseudo_legal_moves() {
            let undo = position.make_move(mv);
            if !position.is_in_check(mover) {
                nodes += slow(position, depth - 1);
            }
            position.unmake_move(mv, undo);
        }
        nodes
    }
    let depth = if cfg!(debug_assertions) { 2 } else { 3 };
    let options = Options::defaults(tori::spec());
    for row in rows("torishogi-perft.tsv").iter().filter(|r| r[1] == "1") {
        let mut p = Position::from_fen(tori::tables(), &row[0], options.rule_set()).unwrap();
        let fast = p.perft(depth);
        assert_eq!(slow(&mut p, depth), fast, "{}", row[0]);
    }
    let wa_options = Options::defaults(tsubame_rules::wa::spec());
    let mut wa_start = tsubame_rules::wa::start(&wa_options).unwrap();
    let fast = wa_start.perft(depth);
    assert_eq!(slow(&mut wa_start, depth), fast);
}
