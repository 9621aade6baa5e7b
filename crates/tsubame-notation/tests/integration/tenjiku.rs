//! Hodges notation for Tenjiku: the seed's marks, and every move of many positions written and
//! read back.

use std::collections::HashSet;
use tsubame_notation::tenjiku::{parse_tenjiku, write_tenjiku};
use tsubame_rules::Options;
use tsubame_rules::tenjiku::{self, TenjikuPosition, TenjikuRules};

fn position(sfen: &str) -> TenjikuPosition {
    TenjikuPosition::from_sfen(sfen, TenjikuRules::DEFAULT).expect("position")
}

fn written(position: &TenjikuPosition, usi: &str) -> String {
    write_tenjiku(position, position.parse_usi(usi).expect(usi))
}

#[test]
fn the_seeds_marks() {
    // Lion on 8h, gote pawn 8g and gold 7g, gote demon far away on 3c; sente demon on 12j.
    let p = position("15k/16/13d!2/16/16/16/8pg6/8L!7/16/4D!11/16/16/16/16/16/K15 b - 1");
    assert_eq!(written(&p, "8h8g7g"), "Lnx8gx7g");
    assert_eq!(written(&p, "8h8g9f"), "Lnx8g-9f");
    assert_eq!(written(&p, "8h8g8h"), "Ln!8g");
    assert_eq!(written(&p, "8h8h"), "Ln-8h");
    assert_eq!(written(&p, "8h8f"), "Ln-8f");
    // The demon burns what it lands next to; the burned squares follow '!'.
    let demon = position("15k/16/16/16/16/16/7gp7/16/7D!8/16/16/16/16/16/16/K15 b - 1");
    assert_eq!(written(&demon, "9i9h"), "FD-9h!8g!9g");
    // A suicide ends in '*'.
    let suicide = position("15k/16/16/16/16/16/16/16/16/16/16/6d!9/16/7P8/16/K15 b - 1");
    assert_eq!(written(&suicide, "9n9m"), "P-9m*");
    // Promotion taken '+', declined '=' where it was allowed.
    let gold = position("15k/16/16/16/16/8G7/16/16/16/16/16/16/16/16/16/K15 b - 1");
    assert_eq!(written(&gold, "8f8e+"), "G-8e+");
    assert_eq!(written(&gold, "8f8e"), "G-8e=");
    assert_eq!(written(&gold, "8f8g"), "G-8g");
}

#[test]
fn the_start_square_is_added_only_when_needed() {
    let p = position("15k/16/16/16/16/16/16/6G1G7/16/16/16/16/16/16/16/K15 b - 1");
    assert_eq!(written(&p, "10h9h"), "G10h-9h");
    assert_eq!(written(&p, "8h9h"), "G8h-9h");
    assert_eq!(written(&p, "10h11h"), "G-11h");
}

#[test]
fn every_move_of_every_constructed_position_round_trips() {
    let data = include_str!("../../../tsubame-rules/tests/data/tenjiku-positions.tsv");
    let mut checked = 0;
    for line in data
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        let options = if fields[0] == "-" { "" } else { fields[0] };
        let options = Options::parse(tenjiku::spec(), options).expect("options");
        let start = TenjikuPosition::from_sfen(fields[1], TenjikuRules::from_options(&options))
            .expect("position");
        let mut positions = vec![start.clone()];
        for mv in start.legal_moves().into_iter().step_by(7) {
            let mut child = start.clone();
            child.make_move(mv);
            positions.push(child);
        }
        for position in positions {
            let mut seen = HashSet::new();
            for mv in position.legal_moves() {
                let text = write_tenjiku(&position, mv);
                assert!(
                    seen.insert(text.clone()),
                    "{text} twice in {}",
                    position.to_sfen()
                );
                assert_eq!(parse_tenjiku(&position, &text), Ok(mv), "{text}");
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn bad_text_is_rejected_with_a_reason() {
    let start = TenjikuPosition::start(&Options::defaults(tenjiku::spec()));
    for text in ["", "Ln", "Zz-5e", "P-9j", "GGx9b+", "P-9k+", "Ln!9n", "ä"] {
        let error = parse_tenjiku(&start, text).expect_err(text);
        assert!(!error.to_string().is_empty());
    }
    // Consequence marks may be left out.
    assert_eq!(
        parse_tenjiku(&start, "GGx9b"),
        start.parse_usi("9m9b").map_err(|_| unreachable!())
    );
}
