//! The two sides.

use std::fmt;
use std::ops::Not;

/// A side. Sente (the seeds' "Black") moves first in an even game and starts on the bottom ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The first player, drawn at the bottom; upper-case letters in SFEN.
    Sente = 0,
    /// The second player, drawn at the top; lower-case letters in SFEN.
    Gote = 1,
}

impl Color {
    /// Both sides, sente first.
    pub const ALL: [Color; 2] = [Color::Sente, Color::Gote];

    /// 0 for sente, 1 for gote.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The SFEN side letter: `b` for sente, `w` for gote.
    pub const fn sfen_char(self) -> char {
        match self {
            Color::Sente => 'b',
            Color::Gote => 'w',
        }
    }

    /// The English name used in option values and messages (`sente` or `gote`).
    pub const fn name(self) -> &'static str {
        match self {
            Color::Sente => "sente",
            Color::Gote => "gote",
        }
    }

    /// The side a [`Color::name`] stands for, or none for any other text.
    ///
    /// ```
    /// use tsubame_rules::Color;
    ///
    /// assert_eq!(Color::from_name("gote"), Some(Color::Gote));
    /// assert_eq!(Color::from_name(Color::Sente.name()), Some(Color::Sente));
    /// assert_eq!(Color::from_name("black"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Color> {
        Color::ALL.into_iter().find(|side| side.name() == name)
    }
}

impl Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        match self {
            Color::Sente => Color::Gote,
            Color::Gote => Color::Sente,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
