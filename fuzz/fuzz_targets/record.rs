//! Any text read as a game record (canonical, KIF, play-site PGN) either fails with an error or
//! yields a record that is written in the canonical format and read back unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsubame_notation::record::{Record, read_kif, read_pgn};

fuzz_target!(|data: &[u8]| {
    let mut records = Vec::new();
    records.extend(read_kif(data).ok());
    if let Ok(text) = std::str::from_utf8(data) {
        records.extend(Record::parse(text).ok());
        records.extend(read_pgn(text).ok());
    }
    for record in records {
        let text = record.to_canonical().expect("a record that was read can be written");
        let again = Record::parse(&text).expect("the canonical text reads back");
        assert_eq!(again.moves, record.moves);
        assert_eq!(again.to_canonical().ok(), Some(text));
    }
});
