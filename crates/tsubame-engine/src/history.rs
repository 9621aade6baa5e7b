//! History scores: how often a quiet move was good, kept by the search and read by the move
//! picker to order quiet moves.

/// History scores saturate towards this magnitude: each update moves a score by its bonus less
/// the share of the bonus it already holds, so old evidence fades instead of piling up.
pub(crate) const HISTORY_MAX: i32 = 16_384;

/// A history score `value` after a `bonus` (negative: a malus), saturating towards
/// [`HISTORY_MAX`].
pub(crate) fn updated(value: i32, bonus: i32) -> i32 {
    value + bonus - value * bonus.abs() / HISTORY_MAX
}
