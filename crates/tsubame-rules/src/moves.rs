//! One move type for every game.

use crate::square::Square;
use crate::variant::Role;

/// A move of any game, packed in 32 bits: a board move (with or without promotion), a drop, or
/// the shrike's exchange. What it captures is read from the position it is played in.
///
/// A Tenjiku board move may also name a [`Move::middle`] square, where a lion-type piece
/// captures on its way (igui is such a move that ends where it started), and may be marked as
/// [`Move::declines`] a promotion it was allowed, which the deferral rule remembers.
///
/// ```
/// use tsubame_rules::{Move, MoveKind, Square};
/// let mv = Move::normal(Square::from_index(30), Square::from_index(23), false);
/// assert_eq!(mv.kind(), MoveKind::Normal { from: Square::from_index(30), to: Square::from_index(23), promote: false });
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(u32);

const KIND_SHIFT: u32 = 24;
const NORMAL: u32 = 0;
const DROP: u32 = 1;
const EXCHANGE: u32 = 2;
const PROMOTE: u32 = 1 << 28;
const MIDDLE_SHIFT: u32 = 16;
const HAS_MIDDLE: u32 = 1 << 29;
const DECLINES: u32 = 1 << 30;

/// A move taken apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A piece moves from one square to another, capturing what stands there.
    Normal {
        /// Start square.
        from: Square,
        /// Destination.
        to: Square,
        /// Whether the piece promotes.
        promote: bool,
    },
    /// A piece from hand is placed on an empty square.
    Drop {
        /// The kind dropped.
        role: Role,
        /// The square.
        to: Square,
    },
    /// A piece with the exchange hook, standing on `square`, goes to hand and a piece of kind
    /// `role` from hand takes its place.
    Exchange {
        /// The kind brought from hand.
        role: Role,
        /// The exchanging piece's square.
        square: Square,
    },
}

impl Move {
    /// A board move.
    #[inline(always)]
    pub const fn normal(from: Square, to: Square, promote: bool) -> Move {
        Move(
            (to.0 as u32)
                | ((from.0 as u32) << 8)
                | (NORMAL << KIND_SHIFT)
                | if promote { PROMOTE } else { 0 },
        )
    }

    /// A board move that captures the piece on `middle` on its way from `from` to `to` (a lion
    /// move; with `to == from`, igui).
    #[inline(always)]
    pub const fn with_middle(from: Square, middle: Square, to: Square, promote: bool) -> Move {
        Move(Move::normal(from, to, promote).0 | ((middle.0 as u32) << MIDDLE_SHIFT) | HAS_MIDDLE)
    }

    /// The square where a lion-type move captures on its way, if any.
    #[inline(always)]
    pub const fn middle(self) -> Option<Square> {
        if self.0 & HAS_MIDDLE != 0 {
            Some(Square(((self.0 >> MIDDLE_SHIFT) & 0xff) as u8))
        } else {
            None
        }
    }

    /// The same move, marked as declining a promotion it was allowed.
    #[inline(always)]
    pub const fn declining(self) -> Move {
        Move(self.0 | DECLINES)
    }

    /// Whether the move declines a promotion it was allowed (Tenjiku's deferral rule).
    #[inline(always)]
    pub const fn declines(self) -> bool {
        self.0 & DECLINES != 0
    }

    /// A drop.
    #[inline(always)]
    pub const fn drop(role: Role, to: Square) -> Move {
        Move((to.0 as u32) | ((role.0 as u32) << 8) | (DROP << KIND_SHIFT))
    }

    /// An exchange.
    #[inline(always)]
    pub const fn exchange(role: Role, square: Square) -> Move {
        Move((square.0 as u32) | ((role.0 as u32) << 8) | (EXCHANGE << KIND_SHIFT))
    }

    /// The move taken apart.
    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        let to = Square((self.0 & 0xff) as u8);
        let middle = ((self.0 >> 8) & 0xff) as u8;
        match self.0 >> KIND_SHIFT & 0xf {
            DROP => MoveKind::Drop {
                role: Role(middle),
                to,
            },
            EXCHANGE => MoveKind::Exchange {
                role: Role(middle),
                square: to,
            },
            _ => MoveKind::Normal {
                from: Square(middle),
                to,
                promote: self.0 & PROMOTE != 0,
            },
        }
    }

    /// The square the move lands on (for an exchange, the exchanging piece's square).
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square((self.0 & 0xff) as u8)
    }

    /// The start square of a board move.
    #[inline(always)]
    pub const fn from(self) -> Option<Square> {
        match self.kind() {
            MoveKind::Normal { from, .. } => Some(from),
            _ => None,
        }
    }

    /// Whether the move promotes the piece.
    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & PROMOTE != 0
    }

    /// Whether the move places a piece from hand (a drop or an exchange).
    #[inline(always)]
    pub const fn is_from_hand(self) -> bool {
        !matches!(self.kind(), MoveKind::Normal { .. })
    }

    /// The move's 32-bit code, stable within a version of this library.
    pub const fn to_bits(self) -> u32 {
        self.0
    }

    /// The move with this 32-bit code (from [`Move::to_bits`]). Any value gives some move; a
    /// move is only playable once checked against a position (for example with
    /// [`crate::Position::is_legal`]).
    pub const fn from_bits(bits: u32) -> Move {
        Move(bits)
    }
}

impl std::fmt::Debug for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind() {
            MoveKind::Normal { from, to, promote } => {
                write!(f, "Move({}->", from.0)?;
                if let Some(middle) = self.middle() {
                    write!(f, "x{}->", middle.0)?;
                }
                write!(
                    f,
                    "{}{}{})",
                    to.0,
                    if promote { "+" } else { "" },
                    if self.declines() { "=" } else { "" }
                )
            }
            MoveKind::Drop { role, to } => write!(f, "Drop({}@{})", role.0, to.0),
            MoveKind::Exchange { role, square } => write!(f, "Exchange({}@{})", role.0, square.0),
        }
    }
}
