//! Hodges notation for Wa shogi as the seed writes it: two-letter abbreviations (`SP-8f`),
//! promoted pieces with a leading `+` (`+SP`), `+` or `=` after a move that may promote
//! (`FFx7c=`), drops (`SP*5e`), and a start square where two pieces could make the move.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tsubame_notation::{Notator, parse_hodges, write_hodges};
use tsubame_rules::{Options, Position, wa};

fn position(sfen: &str, options: &str) -> Position<u128> {
    let rules = Options::parse(wa::spec(), options).unwrap().rule_set();
    Position::from_sfen(wa::tables(), sfen, rules).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

#[test]
fn seed_examples() {
    let start = wa::start(&Options::defaults(wa::spec())).unwrap();
    let pawn = parse_hodges(&start, "SP-8g").unwrap();
    assert_eq!(start.to_usi(pawn), "8h8g");
    assert_eq!(write_hodges(&start, pawn), "SP-8g");

    // A flying falcon capturing on 7c may promote or decline: `+` or `=`.
    let p = position("2k8/11/4p6/11/11/11/F10/11/11/11/8K2 b - 1", "");
    let declined = parse_hodges(&p, "FFx7c=").unwrap();
    assert_eq!(p.to_usi(declined), "11g7c");
    let taken = parse_hodges(&p, "FFx7c+").unwrap();
    assert_eq!(p.to_usi(taken), "11g7c+");
    assert_eq!(write_hodges(&p, declined), "FFx7c=");
    assert_eq!(write_hodges(&p, taken), "FFx7c+");

    // A golden bird is `+SP`; a sparrow pawn drop `SP*5e`.
    let q = position("2k8/11/11/11/11/5+P5/11/11/11/11/8K2 b P 1", "");
    let bird = parse_hodges(&q, "+SP-6e").unwrap();
    assert_eq!(q.to_usi(bird), "6f6e");
    let drop = parse_hodges(&q, "SP*5e").unwrap();
    assert_eq!(q.to_usi(drop), "P*5e");
    assert_eq!(write_hodges(&q, drop), "SP*5e");
}

#[test]
fn golden_birds_are_told_apart_by_their_start_square() {
    let p = position("2k8/11/11/11/11/5+P1+P3/11/11/11/11/8K2 b - 1", "");
    let mv = p.parse_usi("6f5f").unwrap();
    assert_eq!(write_hodges(&p, mv), "+SP6f-5f");
    assert!(
        parse_hodges(&p, "+SP-5f").is_err(),
        "ambiguous without the start square"
    );
}

#[test]
fn every_legal_move_round_trips_in_random_games() {
    let mut rng = StdRng::seed_from_u64(0x5741);
    let mut moves_checked = 0usize;
    for game in 0..40 {
        let options = if game % 2 == 0 { "" } else { "drops=off" };
        let mut position = wa::start(&Options::parse(wa::spec(), options).unwrap()).unwrap();
        for _ in 0..150 {
            let notator = Notator::new(&position);
            let legal = notator.legal_moves().to_vec();
            if legal.is_empty() {
                break;
            }
            let mut written: Vec<String> = legal.iter().map(|&m| notator.hodges(m)).collect();
            for (&mv, text) in legal.iter().zip(&written) {
                assert_eq!(
                    notator.parse_hodges(text),
                    Ok(mv),
                    "{text} in {}",
                    position.to_sfen()
                );
            }
            written.sort();
            written.dedup();
            assert_eq!(
                written.len(),
                legal.len(),
                "two moves written alike in {}",
                position.to_sfen()
            );
            moves_checked += legal.len();
            let mv = legal[rng.gen_range(0..legal.len())];
            position.play(mv).unwrap();
        }
    }
    assert!(moves_checked > 100_000, "{moves_checked}");
}
