//! Hodges notation for Tenjiku shogi, as the seed describes it.
//!
//! - A move: the piece (`P`, `Ln`, `+P`), `-` or `x`, the destination: `P-8k`, `GGx9e`.
//! - A capture on the way (lion, soaring eagle, horned falcon): each capture in order,
//!   `Lnx8gx7g` (two captures), `Lnx8g-9f` (a capture, then on to an empty square).
//! - Igui (capture without moving): `!` and the square of the captured piece, `Ln!8g`.
//! - A pass: the piece's own square, `Ln-8h`.
//! - Burns: each burned square after `!`, `FD-8g!7f!9f`; a move that ends next to an enemy
//!   fire demon (a suicide) ends in `*`.
//! - Promotion: `+` when taken, `=` when it was allowed and declined.
//! - The start square follows the piece when another piece of the same kind has a move written
//!   the same way: `G9h-8g`.
//!
//! ```
//! use tsubame_notation::tenjiku::{parse_tenjiku, write_tenjiku};
//! use tsubame_rules::tenjiku::{self, TenjikuPosition};
//! use tsubame_rules::Options;
//!
//! let start = TenjikuPosition::start(&Options::defaults(tenjiku::spec()));
//! let general = start.parse_usi("9m9b").unwrap();
//! assert_eq!(write_tenjiku(&start, general), "GGx9b*");
//! assert_eq!(parse_tenjiku(&start, "GGx9b*"), Ok(general));
//! assert_eq!(write_tenjiku(&start, start.parse_usi("9o9o").unwrap()), "Ln-9o");
//! ```

use crate::HodgesError;
use tsubame_rules::tenjiku::{self, TenjikuPosition};
use tsubame_rules::{Move, Square};

fn square_name(position: &TenjikuPosition, square: Square) -> String {
    position.geometry().name(square).to_string()
}

fn written(
    position: &TenjikuPosition,
    mv: Move,
    legal: &[Move],
    with_start: bool,
    consequences: bool,
) -> String {
    let geometry = position.geometry();
    let from = mv.from().unwrap_or(mv.to());
    let mover = position.piece_at(from);
    let abbreviation = mover
        .and_then(|p| tenjiku::spec().roles.get(p.role.index()))
        .map_or("?", |r| r.hodges);
    let mut text = abbreviation.to_string();
    if with_start {
        text.push_str(&geometry.name(from).to_string());
    }
    let to = mv.to();
    let captures_at = |square: Square| {
        position
            .piece_at(square)
            .zip(mover)
            .is_some_and(|(piece, mover)| piece.color != mover.color)
    };
    match mv.middle() {
        Some(middle) if to == from => {
            text.push('!');
            text.push_str(&square_name(position, middle));
        }
        Some(middle) => {
            text.push('x');
            text.push_str(&square_name(position, middle));
            text.push(if captures_at(to) { 'x' } else { '-' });
            text.push_str(&square_name(position, to));
        }
        None => {
            text.push(if to != from && captures_at(to) {
                'x'
            } else {
                '-'
            });
            text.push_str(&square_name(position, to));
        }
    }
    if mv.is_promotion() && !consequences {
        text.push('+');
    }
    if !consequences {
        return text;
    }
    let removals = position.removals(mv);
    let mover_color = mover.map(|p| p.color);
    for removal in removals
        .iter()
        .filter(|r| r.burned && Some(r.piece.color) != mover_color)
    {
        text.push('!');
        text.push_str(&square_name(position, removal.square));
    }
    if removals
        .iter()
        .any(|r| r.burned && Some(r.piece.color) == mover_color)
    {
        text.push('*');
    }
    if mv.is_promotion() {
        text.push('+');
    } else {
        let promoting_twin = legal.iter().any(|&other| {
            other.is_promotion()
                && other.from() == mv.from()
                && other.to() == mv.to()
                && other.middle() == mv.middle()
        });
        if promoting_twin {
            text.push('=');
        }
    }
    text
}

fn needs_start(position: &TenjikuPosition, mv: Move, legal: &[Move]) -> bool {
    let plain = written(position, mv, legal, false, true);
    let role = mv.from().and_then(|s| position.piece_at(s)).map(|p| p.role);
    legal.iter().any(|&other| {
        other.from() != mv.from()
            && other
                .from()
                .and_then(|s| position.piece_at(s))
                .map(|p| p.role)
                == role
            && written(position, other, legal, false, true) == plain
    })
}

/// Writes a move of `position` in Hodges notation (see the module documentation).
pub fn write_tenjiku(position: &TenjikuPosition, mv: Move) -> String {
    let legal = position.legal_moves();
    let with_start = needs_start(position, mv, &legal);
    written(position, mv, &legal, with_start, true)
}

/// Reads Hodges text as a move of `position`. The burn squares, `*` and `=` may be left out;
/// when written they must be right. The start square may always be given.
pub fn parse_tenjiku(position: &TenjikuPosition, text: &str) -> Result<Move, HodgesError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(HodgesError::Empty);
    }
    if let Some(found) = text.chars().find(|c| !c.is_ascii()) {
        return Err(HodgesError::NonAscii { found });
    }
    let legal = position.legal_moves();
    let mut fitting = Vec::new();
    for &mv in &legal {
        let candidates = [
            written(position, mv, &legal, false, true),
            written(position, mv, &legal, true, true),
            // The burn squares, the suicide mark and the declined-promotion mark are
            // consequences of the move, which a reader may leave out.
            written(position, mv, &legal, false, false),
            written(position, mv, &legal, true, false),
        ];
        if candidates.iter().any(|c| c == text) {
            fitting.push(mv);
        }
    }
    match fitting.as_slice() {
        [mv] => Ok(*mv),
        [] => Err(HodgesError::NoSuchMove {
            written: text.chars().take(40).collect(),
            reason: "no piece of the side to move has a move written so".to_string(),
        }),
        several => Err(HodgesError::Ambiguous {
            written: text.to_string(),
            candidates: several
                .iter()
                .map(|&m| write_tenjiku(position, m))
                .collect(),
        }),
    }
}
