//! Record readers on arbitrary and damaged text: never a panic; a damaged record is either
//! still a game that writes back and reads again, or an error naming a line of the text.

use proptest::prelude::*;
use tsubame_notation::record::{Record, read_kif, read_pgn};

const GAME: &str = include_str!("../records/tori-01.tsr");

fn check(record: &Record) {
    let text = record
        .to_canonical()
        .unwrap_or_else(|e| panic!("a record that was read cannot be written: {e}"));
    let again = Record::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(again.moves, record.moves);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn any_text_is_read_without_panicking(text in "\\PC{0,200}") {
        for record in [Record::parse(&text).ok(), read_pgn(&text).ok(), read_kif(text.as_bytes()).ok()]
            .into_iter()
            .flatten()
        {
            check(&record);
        }
    }

    #[test]
    fn a_damaged_record_fails_on_one_of_its_lines(at in 0usize..GAME.len(), with in "[ -~\\n]{1,3}") {
        let mut text = String::new();
        let cut = (0..=at).rev().find(|&i| GAME.is_char_boundary(i)).unwrap_or(0);
        text.push_str(GAME.get(..cut).unwrap_or(""));
        text.push_str(&with);
        text.push_str(GAME.get(cut..).unwrap_or(""));
        match Record::parse(&text) {
            Ok(record) => check(&record),
            Err(error) => {
                let lines = text.lines().count().max(1);
                prop_assert!(
                    (1..=lines).contains(&error.line()),
                    "{error} names no line of a {lines}-line text"
                );
            }
        }
    }
}
