//! A variant's start position under its options: read from the variant's SFEN, then changed by
//! the options' effects (handicaps, expansion pieces, hands at the start, first mover).
//!
//! It lives apart from [`Position`] so that reading positions (`sfen`) builds on positions and
//! not the other way round.

use crate::bitboard::Bitboard;
use crate::position::{Position, PositionError};
use crate::sfen::parse_sfen_setup;
use crate::tables::Tables;
use crate::variant::{Effect, Options, Piece};

impl<B: Bitboard> Position<B> {
    /// The start position of a variant for the given options (handicaps, expansion pieces,
    /// rule choices).
    pub fn start(
        tables: &'static Tables<B>,
        options: &Options,
    ) -> Result<Position<B>, PositionError> {
        let mut setup = parse_sfen_setup(tables, tables.spec.start_sfen)
            .map_err(|e| PositionError::InvalidStart(e.to_string()))?;
        for effect in options.effects() {
            match effect {
                Effect::RemoveAtStart(squares) => {
                    for name in squares {
                        if let Some(square) = tables.geometry.parse_square(name) {
                            setup.board[square.index()] = None;
                        }
                    }
                }
                Effect::ReplaceAtStart(name, role) => {
                    if let Some(square) = tables.geometry.parse_square(name)
                        && let Some(piece) = setup.board[square.index()]
                    {
                        setup.board[square.index()] = Some(Piece {
                            color: piece.color,
                            role,
                        });
                    }
                }
                Effect::HandAtStart(role, count) => {
                    for hand in &mut setup.hands {
                        if let Some(slot) = hand.get_mut(role.index()) {
                            *slot += count as u32;
                        }
                    }
                }
                Effect::FirstMover(color) => setup.side_to_move = color,
                Effect::Tenjiku(_)
                | Effect::DropMate(_)
                | Effect::RepetitionCount(_)
                | Effect::Drops(_)
                | Effect::MaxPlies(_) => {}
            }
        }
        Position::from_setup(tables, setup, options.rule_set())
    }
}
