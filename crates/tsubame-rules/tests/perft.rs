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
