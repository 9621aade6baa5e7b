//! Tenjiku games steered by the fuzzer's bytes: make/unmake restores the position exactly,
//! burned pieces and deferral flags included, the incremental key equals one computed from
//! scratch, and no two moves of a position have the same effect.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsubame_rules::Options;
use tsubame_rules::tenjiku::{self, TenjikuPosition};

const OPTION_SETS: [&str; 4] = [
    "",
    "lion-hawk=tsa,free-eagle=japanese",
    "demon-conflict=adams,range-jump=always",
    "promotion=entry",
];

fuzz_target!(|data: &[u8]| {
    let Some((&first, choices)) = data.split_first() else { return };
    let options = Options::parse(tenjiku::spec(), OPTION_SETS[first as usize % OPTION_SETS.len()])
        .expect("fixed options");
    let mut position = TenjikuPosition::start(&options);
    for &choice in choices {
        let moves = position.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mut effects: Vec<_> = moves
            .iter()
            .map(|&mv| {
                let removed: Vec<_> = position.removals(mv).iter().map(|r| r.square).collect();
                (mv.from(), mv.to(), removed, mv.is_promotion())
            })
            .collect();
        effects.sort();
        let count = effects.len();
        effects.dedup();
        assert_eq!(effects.len(), count, "two moves with one effect");
        let mv = moves[choice as usize % moves.len()];
        let before = position.clone();
        let undo = position.make_move(mv);
        assert_eq!(position.key(), position.key_from_scratch());
        let mut back = position.clone();
        back.unmake_move(mv, undo);
        assert_eq!(back, before);
        assert_eq!(back.key(), before.key());
    }
});
