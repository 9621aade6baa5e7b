//! Any text given as a Hodges move in a few positions is rejected or is a legal move whose
//! Hodges text reads back to the same move.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsubame_notation::{parse_hodges, write_hodges};
use tsubame_rules::{Options, Position, tori};

const POSITIONS: [&str; 4] = [
    "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1",
    "k6/3M3/2C1C2/7/2L1R2/7/6K b CFMS 1",
    "2+Spc+F1/6l/+Sc1s1ss/Sks1s2/3SSSS/L1C1sF1/3KCPR w PSprss 49",
    "3k3/7/7/7/3r3/7/3K3 b CS 1",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let rules = Options::defaults(tori::spec()).rule_set();
    for sfen in POSITIONS {
        let position = Position::from_sfen(tori::tables(), sfen, rules).expect("fixed position");
        if let Ok(mv) = parse_hodges(&position, text) {
            assert!(position.legal_moves().contains(&mv));
            assert_eq!(
                parse_hodges(&position, &write_hodges(&position, mv)),
                Ok(mv)
            );
        }
    }
});
