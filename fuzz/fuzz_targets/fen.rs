//! Any text given as a Fairy-Stockfish / play-site FEN either fails with an error or yields a
//! valid position whose FEN is stable when read back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsubame_rules::{Options, Position, tori};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let rules = Options::defaults(tori::spec()).rule_set();
    if let Ok(position) = Position::from_fen(tori::tables(), text, rules) {
        let fen = position.to_fen();
        let again = Position::from_fen(tori::tables(), &fen, rules).expect("own FEN reads back");
        assert_eq!(again.to_fen(), fen);
    }
});
