//! Every legal Tenjiku move has exactly one XBoard text, and that text reads back as the same
//! move: checked over the rules library's Tenjiku test positions (special pieces in contact) and
//! along seeded random games from the start. Other texts the engine accepts (a pass out and back
//! through any empty neighbour, two legs through an empty square) read as the same move too.

use std::collections::HashSet;
use tsubame_protocol::coords::{usi_to_xboard, xboard_to_usi};
use tsubame_protocol::session::pass_via;
use tsubame_rules::tenjiku::{self, TenjikuPosition, TenjikuRules};
use tsubame_rules::{Options, Square};

/// What one position's moves showed.
#[derive(Default)]
struct Seen {
    moves: usize,
    two_legs: usize,
    passes_out_and_back: usize,
    passes_in_place: usize,
}

fn check(position: &TenjikuPosition, seen: &mut Seen) {
    let geometry = position.geometry();
    let moves = position.legal_moves();
    let mut texts = HashSet::new();
    for &mv in &moves {
        let usi = position.to_usi(mv);
        let from = mv.from().unwrap_or(mv.to());
        let is_pass = mv.to() == from && mv.middle().is_none();
        let via = if is_pass {
            pass_via(position, from).map(|s: Square| geometry.name(s).to_string())
        } else {
            None
        };
        let text = usi_to_xboard(&usi, 16, 16, via.as_deref())
            .unwrap_or_else(|| panic!("{usi} has no XBoard text in {}", position.to_sfen()));
        let back = xboard_to_usi(&text, 16, 16)
            .unwrap_or_else(|| panic!("{text} ({usi}) does not read back"));
        let found = position
            .parse_usi(&back)
            .unwrap_or_else(|e| panic!("{text} ({usi}, read as {back}): {e}"));
        assert_eq!(found, mv, "{text} ({usi}) in {}", position.to_sfen());
        assert!(
            texts.insert(text.clone()),
            "{text} names two moves in {}",
            position.to_sfen()
        );
        seen.moves += 1;
        if mv.middle().is_some() {
            seen.two_legs += 1;
            assert!(text.contains(','), "{text}");
        } else if is_pass && via.is_some() {
            seen.passes_out_and_back += 1;
            assert!(text.contains(','), "{text}");
        } else if is_pass {
            seen.passes_in_place += 1;
        } else {
            assert!(!text.contains(','), "a single leg: {text}");
        }
    }
}

/// The positions of the rules library's Tenjiku table: options, SFEN, and more columns.
fn table_positions() -> Vec<TenjikuPosition> {
    let table = include_str!("../../../tsubame-rules/tests/data/tenjiku-positions.tsv");
    table
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let mut columns = line.split('\t');
            let options = columns.next().unwrap();
            let sfen = columns.next().unwrap();
            let options = if options == "-" {
                Options::defaults(tenjiku::spec())
            } else {
                Options::parse(tenjiku::spec(), options).unwrap()
            };
            TenjikuPosition::from_sfen(sfen, TenjikuRules::from_options(&options)).unwrap()
        })
        .collect()
}

/// A small deterministic generator (xorshift), so that the games are the same on every run.
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn every_move_of_the_table_positions_round_trips() {
    let mut seen = Seen::default();
    let positions = table_positions();
    assert!(positions.len() > 10);
    for position in &positions {
        check(position, &mut seen);
        // And the positions one move later, where lions and demons have met.
        for mv in position.legal_moves().into_iter().step_by(5) {
            let mut after = position.clone();
            after.make_move(mv);
            check(&after, &mut seen);
        }
    }
    assert!(seen.two_legs > 50, "{} two-leg moves", seen.two_legs);
    assert!(seen.passes_out_and_back > 10);
}

#[test]
fn every_move_along_random_games_round_trips() {
    let mut seen = Seen::default();
    for seed in 1..=6u64 {
        let mut random = Random(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut position = TenjikuPosition::start(&Options::defaults(tenjiku::spec()));
        for _ in 0..150 {
            check(&position, &mut seen);
            let moves = position.legal_moves();
            if moves.is_empty() || position.is_over() {
                break;
            }
            // Captures first when there are some, so that the armies meet.
            let captures: Vec<_> = moves
                .iter()
                .copied()
                .filter(|m| m.middle().is_some() || position.piece_at(m.to()).is_some())
                .collect();
            let pool = if !captures.is_empty() && random.below(2) == 0 {
                captures
            } else {
                moves
            };
            position.make_move(pool[random.below(pool.len())]);
        }
    }
    assert!(seen.moves > 10_000, "{} moves", seen.moves);
    assert!(seen.passes_in_place > 0 && seen.passes_out_and_back > 0);
}

/// Other texts the engine accepts name the same move: a pass written out and back through any
/// empty neighbour is that piece's pass, and a two-leg text through an empty square is the
/// single-leg move to the same end.
#[test]
fn other_accepted_texts_name_the_same_move() {
    use tsubame_rules::Bitboard;
    let mut passes = 0;
    let mut through_empty = 0;
    for position in table_positions() {
        let geometry = position.geometry();
        for mv in position.legal_moves() {
            let Some(from) = mv.from() else { continue };
            if mv.middle().is_some() {
                continue;
            }
            let is_pass = mv.to() == from;
            for index in position.neighbours(from).iter() {
                let square = Square::from_index(u8::try_from(index).unwrap());
                if position.piece_at(square).is_some()
                    || !(is_pass || position.neighbours(mv.to()).has(index))
                {
                    continue;
                }
                let usi = format!(
                    "{}{}{}{}",
                    geometry.name(from),
                    geometry.name(square),
                    geometry.name(mv.to()),
                    if mv.is_promotion() { "+" } else { "" }
                );
                let text = usi_to_xboard(&usi, 16, 16, None).unwrap();
                let back = xboard_to_usi(&text, 16, 16).unwrap();
                // Not every path through an empty square is open to the piece (only lion
                // power steps twice); those that are read as the move itself.
                if let Ok(found) = position.parse_usi(&back) {
                    assert_eq!(found, mv, "{text} in {}", position.to_sfen());
                    if is_pass {
                        passes += 1;
                    } else {
                        through_empty += 1;
                    }
                }
            }
        }
    }
    assert!(
        passes > 10 && through_empty > 10,
        "{passes} {through_empty}"
    );
}
