//! Move-generation invariants along games steered by the fuzzer's bytes: every generated move
//! is legal, every legal move is generated, make/unmake restores the position exactly and the
//! incremental key equals one computed from scratch.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsubame_rules::{Options, tori};

const OPTION_SETS: [&str; 4] = ["", "drop-mate=illegal", "owl=on,shrike=on", "handicap=falcon"];

fuzz_target!(|data: &[u8]| {
    let Some((&first, choices)) = data.split_first() else { return };
    let options = Options::parse(tori::spec(), OPTION_SETS[first as usize % OPTION_SETS.len()]).expect("fixed options");
    let mut position = tori::start(&options).expect("start position");
    for &choice in choices {
        let moves = position.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mover = position.side_to_move();
        let mut independent: Vec<_> = position
            .pseudo_legal_moves()
            .into_iter()
            .filter(|&mv| {
                let mut after = position.clone();
                after.make_move(mv);
                !after.is_in_check(mover)
            })
            .collect();
        independent.sort();
        let mut sorted = moves.clone();
        sorted.sort();
        assert_eq!(independent, sorted);
        let mv = moves[choice as usize % moves.len()];
        let before = position.clone();
        let undo = position.make_move(mv);
        assert_eq!(position.key(), position.key_from_scratch());
        position.unmake_move(mv, undo);
        assert_eq!(position, before);
        position.make_move(mv);
    }
});
