//! Any text given as a Tenjiku SFEN is rejected or writes back to itself; any text given as a
//! move in the start position is rejected or names a move whose text reads back to it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsubame_rules::Options;
use tsubame_rules::tenjiku::{self, TenjikuPosition, TenjikuRules};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(position) = TenjikuPosition::from_sfen(text, TenjikuRules::DEFAULT) {
        let written = position.to_sfen();
        let again = TenjikuPosition::from_sfen(&written, TenjikuRules::DEFAULT).expect("own SFEN");
        assert_eq!(again.to_sfen(), written);
        assert_eq!(again.key(), again.key_from_scratch());
    }
    let start = TenjikuPosition::start(&Options::defaults(tenjiku::spec()));
    if let Ok(mv) = start.parse_usi(text) {
        assert!(start.legal_moves().contains(&mv));
        assert_eq!(start.parse_usi(&start.to_usi(mv)), Ok(mv));
    }
});
