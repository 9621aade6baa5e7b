//! Square sets as machine words, one bit per square.
//!
//! Each game uses the narrowest word that holds its board: Tori's 49 squares fit a `u64`, Wa's 121
//! a `u128`. Code that works on boards is generic over [`Bitboard`] and monomorphised per word, so
//! Tori runs at the speed of a 64-bit engine without any global board constant.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares, square `i` being bit `i`.
pub trait Bitboard:
    Copy
    + Eq
    + Hash
    + Debug
    + Default
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
{
    /// The empty set.
    const EMPTY: Self;
    /// How many squares the word can hold.
    const CAPACITY: usize;

    /// The set holding only square `index`. `index` must be below [`Bitboard::CAPACITY`].
    fn single(index: usize) -> Self;
    /// Whether no square is in the set.
    fn is_empty(self) -> bool;
    /// Whether square `index` is in the set.
    fn has(self, index: usize) -> bool;
    /// Number of squares in the set.
    fn count(self) -> u32;
    /// Lowest square; the set must not be empty.
    fn lowest(self) -> usize;
    /// Highest square; the set must not be empty.
    fn highest(self) -> usize;
    /// Whether the set holds two squares or more.
    fn has_several(self) -> bool;
    /// The set without its lowest square.
    fn without_lowest(self) -> Self;

    /// Iterates over the squares of the set from the lowest.
    fn iter(self) -> BitIter<Self> {
        BitIter(self)
    }
}

/// Iterator over the square indices of a [`Bitboard`].
#[derive(Clone, Copy, Debug)]
pub struct BitIter<B>(B);

impl<B: Bitboard> Iterator for BitIter<B> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0.is_empty() {
            None
        } else {
            let index = self.0.lowest();
            self.0 = self.0.without_lowest();
            Some(index)
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count() as usize;
        (n, Some(n))
    }
}

macro_rules! word_bitboard {
    ($word:ty) => {
        impl Bitboard for $word {
            const EMPTY: Self = 0;
            const CAPACITY: usize = <$word>::BITS as usize;

            #[inline(always)]
            fn single(index: usize) -> Self {
                1 << index
            }
            #[inline(always)]
            fn is_empty(self) -> bool {
                self == 0
            }
            #[inline(always)]
            fn has(self, index: usize) -> bool {
                (self >> index) & 1 != 0
            }
            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn lowest(self) -> usize {
                self.trailing_zeros() as usize
            }
            #[inline(always)]
            fn highest(self) -> usize {
                (<$word>::BITS - 1 - self.leading_zeros()) as usize
            }
            #[inline(always)]
            fn has_several(self) -> bool {
                self & self.wrapping_sub(1) != 0
            }
            #[inline(always)]
            fn without_lowest(self) -> Self {
                self & self.wrapping_sub(1)
            }
        }
    };
}

word_bitboard!(u64);
word_bitboard!(u128);

/// A 256-square set for 16x16 boards, as four 64-bit words, square `i` in word `i / 64`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard256(pub [u64; 4]);

impl Debug for Bitboard256 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Bitboard256({:016x}_{:016x}_{:016x}_{:016x})",
            self.0[3], self.0[2], self.0[1], self.0[0]
        )
    }
}

macro_rules! wordwise {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl $trait for Bitboard256 {
            type Output = Bitboard256;
            #[inline(always)]
            fn $method(self, other: Bitboard256) -> Bitboard256 {
                let (a, b) = (self.0, other.0);
                Bitboard256([a[0] $op b[0], a[1] $op b[1], a[2] $op b[2], a[3] $op b[3]])
            }
        }
        impl $assign_trait for Bitboard256 {
            #[inline(always)]
            fn $assign_method(&mut self, other: Bitboard256) {
                *self = *self $op other;
            }
        }
    };
}

wordwise!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
wordwise!(BitOr, bitor, BitOrAssign, bitor_assign, |);
wordwise!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard256 {
    type Output = Bitboard256;
    #[inline(always)]
    fn not(self) -> Bitboard256 {
        let a = self.0;
        Bitboard256([!a[0], !a[1], !a[2], !a[3]])
    }
}

impl Bitboard for Bitboard256 {
    const EMPTY: Self = Bitboard256([0; 4]);
    const CAPACITY: usize = 256;

    #[inline(always)]
    fn single(index: usize) -> Self {
        let mut words = [0u64; 4];
        words[(index >> 6) & 3] = 1 << (index & 63);
        Bitboard256(words)
    }
    #[inline(always)]
    fn is_empty(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }
    #[inline(always)]
    fn has(self, index: usize) -> bool {
        (self.0[(index >> 6) & 3] >> (index & 63)) & 1 != 0
    }
    #[inline(always)]
    fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    #[inline(always)]
    fn lowest(self) -> usize {
        for (i, &word) in self.0.iter().enumerate() {
            if word != 0 {
                return i * 64 + word.trailing_zeros() as usize;
            }
        }
        256
    }
    #[inline(always)]
    fn highest(self) -> usize {
        for (i, &word) in self.0.iter().enumerate().rev() {
            if word != 0 {
                return i * 64 + 63 - word.leading_zeros() as usize;
            }
        }
        256
    }
    #[inline(always)]
    fn has_several(self) -> bool {
        self.count() > 1
    }
    #[inline(always)]
    fn without_lowest(self) -> Self {
        let mut words = self.0;
        for word in &mut words {
            if *word != 0 {
                *word &= *word - 1;
                break;
            }
        }
        Bitboard256(words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_operations_agree_with_their_definitions() {
        let set: u64 = (1 << 3) | (1 << 17) | (1 << 48);
        assert_eq!(set.lowest(), 3);
        assert_eq!(set.highest(), 48);
        assert_eq!(set.count(), 3);
        assert!(set.has_several());
        assert!(!u64::single(5).has_several());
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![3, 17, 48]);
        assert!(set.has(17) && !set.has(16));
        let wide: u128 = (1 << 120) | (1 << 64);
        assert_eq!(wide.highest(), 120);
        assert_eq!(wide.lowest(), 64);
        assert_eq!(wide.without_lowest(), 1 << 120);
    }

    #[test]
    fn the_256_square_set_agrees_with_a_plain_set_of_indices() {
        let squares = [0usize, 1, 63, 64, 100, 127, 128, 191, 192, 254, 255];
        let mut set = Bitboard256::EMPTY;
        for &s in &squares {
            set |= Bitboard256::single(s);
        }
        assert_eq!(set.iter().collect::<Vec<_>>(), squares.to_vec());
        assert_eq!(set.count(), squares.len() as u32);
        assert_eq!((set.lowest(), set.highest()), (0, 255));
        assert!(set.has(191) && !set.has(190));
        let upper =
            set & !(Bitboard256::single(0) | Bitboard256::single(1) | Bitboard256::single(63));
        assert_eq!(upper.lowest(), 64);
        assert_eq!((set ^ set), Bitboard256::EMPTY);
        assert!(Bitboard256::single(200).iter().eq([200]));
        assert!(!Bitboard256::single(200).has_several());
        assert!((Bitboard256::single(3) | Bitboard256::single(250)).has_several());
    }
}
