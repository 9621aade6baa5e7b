//! Any text given as rule options is rejected or yields options whose start position is valid.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsubame_rules::{Options, tori};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(options) = Options::parse(tori::spec(), text) {
        let again = Options::parse(tori::spec(), &options.to_string()).expect("own text reads back");
        assert_eq!(again, options);
        tori::start(&options).expect("every option set has a valid start");
    }
});
