//! Reading arbitrary text never panics, and whatever it accepts is a legal move that is written
//! back to text reading as the same move.

use proptest::prelude::*;
use std::sync::OnceLock;
use tsubame_notation::Notator;
use tsubame_rules::{Options, Position, tori};

fn positions() -> &'static [Position<u64>] {
    static POSITIONS: OnceLock<Vec<Position<u64>>> = OnceLock::new();
    POSITIONS.get_or_init(|| {
        let options = Options::parse(tori::spec(), "owl=on,shrike=on,drop-mate=illegal").unwrap();
        let rules = options.rule_set();
        let mut list = vec![
            tori::start(&Options::defaults(tori::spec())).unwrap(),
            tori::start(&options).unwrap(),
        ];
        for sfen in [
            "3k3/4M2/2C1C2/7/2L1R2/7/3K3 b CSFP 1",
            "k2p3/3S3/1+S2F2/7/7/7/3K3 b 2S 1",
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR w - 1",
            // In check: reasons for refusing a move look at the check.
            "3k3/7/7/7/3r3/7/3K3 b CS 1",
            "2+Spc+F1/6l/+Sc1s1ss/Sks1s2/3SSSS/L1C1sF1/3KCPR w PSprss 49",
        ] {
            list.push(Position::from_sfen(tori::tables(), sfen, rules).unwrap());
        }
        list
    })
}

fn check(text: &str) {
    for position in positions() {
        let notator = Notator::new(position);
        if let Ok(mv) = notator.parse_hodges(text) {
            assert!(notator.legal_moves().contains(&mv), "{text:?}");
            let written = notator.hodges(mv);
            assert_eq!(
                notator.parse_hodges(&written),
                Ok(mv),
                "{text:?} -> {written}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn any_string_is_read_without_panicking(text in any::<String>()) {
        check(&text);
    }

    #[test]
    fn hodges_shaped_strings_are_read_without_panicking(
        text in r"[ +]?[A-Za-z+]{0,4}[0-9]{0,3}[a-hA-H]?[-xX*=/ ]?[0-9]{0,3}[a-zA-Z]?[+=#!]{0,2}"
    ) {
        check(&text);
    }
}
