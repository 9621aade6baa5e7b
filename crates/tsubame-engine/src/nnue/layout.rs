//! The inputs of a game's network: how many squares and kinds it has ([`Layout`]), and where
//! a perspective's royal piece stands for a network with royal buckets ([`View`]).

use super::*;

/// The input layout of a game: how many squares and kinds it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Squares of the board.
    pub squares: usize,
    /// Kinds of piece, promoted forms included.
    pub roles: usize,
}

impl Layout {
    /// The layout of a position's game.
    pub fn of<B: Bitboard>(position: &Position<B>) -> Layout {
        Layout::of_tables(position.tables())
    }

    /// The layout of a game by its tables.
    pub fn of_tables<B: Bitboard>(tables: &Tables<B>) -> Layout {
        Layout {
            squares: tables.geometry.square_count(),
            roles: tables.role_count(),
        }
    }

    /// The layout of a variant's game; `None` for Tenjiku, whose positions are of another kind.
    pub fn for_variant(variant: Variant) -> Option<Layout> {
        if variant == Variant::Tenjiku {
            return None;
        }
        let spec = variant.spec();
        Some(Layout {
            squares: usize::from(spec.width) * usize::from(spec.height),
            roles: spec.roles.len(),
        })
    }

    /// Number of inputs.
    pub fn inputs(self) -> usize {
        2 * self.roles * (self.squares + HAND_LEVELS)
    }

    /// The input of a piece on a square (index from 0, rank `a` first), seen by `perspective`.
    #[inline(always)]
    pub fn board_input(self, perspective: Color, piece: Piece, square: usize) -> usize {
        let relation = usize::from(piece.color != perspective);
        let square = if perspective == Color::Sente {
            square
        } else {
            self.squares - 1 - square
        };
        (relation * self.roles + piece.role.index()) * self.squares + square
    }

    /// The input "`color` holds at least `level + 1` of `role`", seen by `perspective`.
    #[inline(always)]
    pub fn hand_input(self, perspective: Color, color: Color, role: usize, level: usize) -> usize {
        let relation = usize::from(color != perspective);
        2 * self.roles * self.squares + (relation * self.roles + role) * HAND_LEVELS + level
    }

    /// The number of pieces in both hands, which chooses the output bucket.
    pub fn pieces_in_hand<B: Bitboard>(self, position: &Position<B>) -> usize {
        [Color::Sente, Color::Gote]
            .into_iter()
            .flat_map(|color| {
                (0..self.roles)
                    .map(move |role| usize::from(position.hand_count(color, Role(role as u8))))
            })
            .sum()
    }

    /// Appends the active inputs of a position seen by `perspective` to `out`.
    pub fn inputs_of<B: Bitboard>(
        self,
        position: &Position<B>,
        perspective: Color,
        out: &mut Vec<usize>,
    ) {
        for square in 0..self.squares {
            if let Some(piece) = position.piece_at(Square::from_index(square as u8)) {
                out.push(self.board_input(perspective, piece, square));
            }
        }
        for color in [Color::Sente, Color::Gote] {
            for role in 0..self.roles {
                let count = usize::from(position.hand_count(color, Role(role as u8)));
                for level in 0..count.min(HAND_LEVELS) {
                    out.push(self.hand_input(perspective, color, role, level));
                }
            }
        }
    }
}

/// Where a perspective's own royal piece stands, as a network with royal buckets reads it:
/// which copy of the first layer its inputs use, and whether its board is seen mirrored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// The royal bucket: inputs of this view are those of the plain layout plus
    /// `bucket * Layout::inputs()`.
    pub bucket: usize,
    /// Whether the board is seen mirrored left to right, each kind replaced by its image.
    pub mirrored: bool,
}
