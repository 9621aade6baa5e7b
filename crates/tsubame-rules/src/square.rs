//! Squares and board shapes.
//!
//! A square is written file number then rank letter (`4g`): files count from 1 on sente's right,
//! ranks from `a` on gote's side. Internally square `rank * width + (file - 1)`, so rank `a` holds
//! the lowest indices.

use std::fmt;

/// A square of some board, as an index. Which square it names depends on the board's
/// [`Geometry`]; on every board of this library the index fits a byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub(crate) u8);

impl Square {
    /// The square with this index. Use [`Geometry::square`] to build one from coordinates.
    #[inline(always)]
    pub const fn from_index(index: u8) -> Square {
        Square(index)
    }

    /// The square's index on its board.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// The shape of a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    /// Number of files (columns).
    pub width: u8,
    /// Number of ranks (rows).
    pub height: u8,
}

impl Geometry {
    /// Number of squares on the board.
    #[inline(always)]
    pub const fn square_count(self) -> usize {
        self.width as usize * self.height as usize
    }

    /// The square on `file` (1 = sente's right) and `rank` (0 = rank `a`, gote's back rank),
    /// or `None` off the board.
    pub fn square(self, file: u8, rank: u8) -> Option<Square> {
        if file == 0 || file > self.width || rank >= self.height {
            return None;
        }
        Some(Square(rank * self.width + (file - 1)))
    }

    /// The file number (1 = sente's right) of a square of this board.
    #[inline(always)]
    pub const fn file(self, square: Square) -> u8 {
        square.0 % self.width + 1
    }

    /// The rank index (0 = rank `a`) of a square of this board.
    #[inline(always)]
    pub const fn rank(self, square: Square) -> u8 {
        square.0 / self.width
    }

    /// How many ranks lie between the square and the far side for `color`, counting the
    /// square's own rank as 1 when it is the last rank.
    pub const fn depth_from_far_side(self, square: Square, sente: bool) -> u8 {
        let rank = self.rank(square);
        if sente { rank + 1 } else { self.height - rank }
    }

    /// Reads a square written as file number and rank letter (`3e`, `11a`). Returns `None` for
    /// anything else, including squares off this board.
    pub fn parse_square(self, text: &str) -> Option<Square> {
        let bytes = text.as_bytes();
        let split = bytes.iter().position(|b| !b.is_ascii_digit())?;
        if split == 0 || split > 2 || split + 1 != bytes.len() {
            return None;
        }
        let file: u8 = text.get(..split)?.parse().ok()?;
        let letter = *bytes.get(split)?;
        if !letter.is_ascii_lowercase() {
            return None;
        }
        self.square(file, letter - b'a')
    }

    /// Reads the longest square name at the start of `text`, returning the square and the
    /// number of bytes it took.
    pub fn parse_square_prefix(self, text: &str) -> Option<(Square, usize)> {
        let bytes = text.as_bytes();
        let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > 2 {
            return None;
        }
        let square = self.parse_square(text.get(..digits + 1)?)?;
        Some((square, digits + 1))
    }

    /// A printable name of `square` on this board, such as `4g`.
    pub fn name(self, square: Square) -> SquareName {
        SquareName {
            file: self.file(square),
            rank: self.rank(square),
        }
    }
}

/// A square's name; its `Display` writes file number and rank letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SquareName {
    /// File number, 1 on sente's right.
    pub file: u8,
    /// Rank index, 0 for rank `a`.
    pub rank: u8,
}

impl fmt::Display for SquareName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file, (b'a' + self.rank) as char)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip_on_every_board_size() {
        for (width, height) in [(7u8, 7u8), (11, 11), (16, 16)] {
            let geometry = Geometry { width, height };
            for index in 0..geometry.square_count() {
                let square = Square(index as u8);
                let text = geometry.name(square).to_string();
                assert_eq!(geometry.parse_square(&text), Some(square), "{text}");
            }
        }
    }

    #[test]
    fn tori_corner_names() {
        let g = Geometry {
            width: 7,
            height: 7,
        };
        assert_eq!(g.name(Square(0)).to_string(), "1a");
        assert_eq!(g.name(Square(48)).to_string(), "7g");
        assert_eq!(g.parse_square("8a"), None);
        assert_eq!(g.parse_square("1h"), None);
        assert_eq!(g.parse_square("0a"), None);
        assert_eq!(g.parse_square("1"), None);
        assert_eq!(g.parse_square("a1"), None);
        assert_eq!(g.parse_square("1A"), None);
        assert_eq!(g.parse_square("001a"), None);
    }
}
