//! Every legal move of positions from seeded random games is written and read back, and the
//! written forms of one position's moves never collide.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::HashSet;
use tsubame_notation::{Notator, parse_hodges, write_hodges, write_short};
use tsubame_rules::{Move, MoveKind, Options, Position, tori};

const GAMES: usize = 200;
const MAX_PLIES: usize = 120;

/// Option sets the games cycle through; the expansion pieces bring owls, shrikes and
/// exchanges into play.
const OPTION_SETS: [&str; 5] = [
    "",
    "owl=on,shrike=on",
    "shrike=on",
    "owl=on,shrike=on,drop-mate=illegal",
    "handicap=falcon,shrike=on",
];

#[derive(Default, Debug)]
struct Seen {
    positions: usize,
    moves: usize,
    drops: usize,
    exchanges: usize,
    promotions: usize,
    captures: usize,
    with_start_square: usize,
    promoted_movers: usize,
    owl_moves: usize,
}

fn check_position(position: &Position<u64>, seen: &mut Seen) {
    let notator = Notator::new(position);
    let mut hodges = HashSet::new();
    let mut short = HashSet::new();
    seen.positions += 1;
    // The lenient readings are tried in every fourth position only, to keep the test quick
    // without optimisation.
    let lenient = seen.positions.is_multiple_of(4);
    for &mv in notator.legal_moves() {
        seen.moves += 1;
        let text = notator.hodges(mv);
        assert_eq!(
            notator.parse_hodges(&text),
            Ok(mv),
            "{text} in {position:?}"
        );
        assert!(hodges.insert(text.clone()), "{text} twice in {position:?}");
        let written_short = notator.short(mv);
        assert!(
            short.insert(written_short.clone()),
            "{written_short} twice in {position:?}"
        );

        // The lenient readings lead to the same move.
        if lenient {
            let upper = text.to_ascii_uppercase();
            assert_eq!(notator.parse_hodges(&upper), Ok(mv), "{upper}");
        }
        match mv.kind() {
            MoveKind::Normal { from, promote, .. } => {
                let piece = position.piece_at(from).map(|p| p.role);
                let spec = piece.map(|r| &position.tables().spec.roles[r.index()]);
                let abbreviation = spec.map_or("?", |s| s.hodges);
                if spec.is_some_and(|s| s.promoted_from.is_some()) {
                    seen.promoted_movers += 1;
                }
                if piece == Some(tori::OWL) {
                    seen.owl_moves += 1;
                }
                let start = position.tables().geometry.name(from).to_string();
                let rest = &text[abbreviation.len()..];
                if rest.starts_with(&start) {
                    seen.with_start_square += 1;
                } else if lenient {
                    let explicit = format!("{abbreviation}{start}{rest}");
                    assert_eq!(notator.parse_hodges(&explicit), Ok(mv), "{explicit}");
                }
                if promote {
                    seen.promotions += 1;
                    let bare = text.trim_end_matches('+');
                    if lenient {
                        assert_eq!(notator.parse_hodges(bare), Ok(mv), "{bare}");
                    }
                }
                if text.contains('x') {
                    seen.captures += 1;
                }
            }
            MoveKind::Drop { .. } => seen.drops += 1,
            MoveKind::Exchange { .. } => seen.exchanges += 1,
        }
    }
}

#[test]
fn every_legal_move_round_trips_and_written_forms_are_distinct() {
    let mut rng = StdRng::seed_from_u64(0x7473_7562_616d_6521);
    let mut seen = Seen::default();
    for game in 0..GAMES {
        let options = Options::parse(tori::spec(), OPTION_SETS[game % OPTION_SETS.len()]).unwrap();
        let mut position = tori::start(&options).unwrap();
        for ply in 0..MAX_PLIES {
            check_position(&position, &mut seen);
            let moves = position.legal_moves();
            // Captures are preferred now and then, so that games reach positions with full
            // hands, promoted pieces and exchanges.
            let captures: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| !m.is_from_hand() && position.piece_at(m.to()).is_some())
                .collect();
            let choice = if !captures.is_empty() && rng.gen_bool(0.3) {
                captures.choose(&mut rng)
            } else {
                moves.choose(&mut rng)
            };
            let Some(&mv) = choice else { break };
            if ply % 16 == 0 {
                // The free functions agree with the notator.
                let text = write_hodges(&position, mv);
                assert_eq!(parse_hodges(&position, &text), Ok(mv));
                assert_eq!(
                    write_short(&position, mv),
                    Notator::new(&position).short(mv)
                );
            }
            position.play(mv).unwrap();
        }
    }
    eprintln!("{seen:?}");
    assert!(seen.positions >= 10_000, "{seen:?}");
    assert!(seen.drops > 0 && seen.exchanges > 0, "{seen:?}");
    assert!(seen.promotions > 0 && seen.captures > 0, "{seen:?}");
    assert!(
        seen.with_start_square > 0 && seen.promoted_movers > 0,
        "{seen:?}"
    );
    assert!(seen.owl_moves > 0, "{seen:?}");
}
