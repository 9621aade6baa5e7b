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
}
