//! Any text given as SFEN either fails with an error or yields a valid position whose SFEN reads
//! back to the same position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsubame_rules::{Options, Position, tori};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let rules = Options::defaults(tori::spec()).rule_set();
    if let Ok(position) = Position::from_sfen(tori::tables(), text, rules) {
        let again = Position::from_sfen(tori::tables(), &position.to_sfen(), rules);
        assert_eq!(again.as_ref(), Ok(&position));
        assert_eq!(position.key(), position.key_from_scratch());
        let _ = position.legal_moves();
    }
});
