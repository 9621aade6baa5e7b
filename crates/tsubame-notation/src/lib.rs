//! Human move notation for the shogi variants of Tsubame.
//!
//! - **Hodges notation**, read and written: the piece's abbreviation, `-` for a move, `x` for a
//!   capture or `*` for a drop, the destination, and `+` when the move promotes: `Sw-6d`,
//!   `Fax3c`, `Sw*4d`, `Swx4a+`, and `Cr5c-4b` when two cranes could go to 4b.
//! - **The play site's short form**, written only: one letter per piece and numeric squares,
//!   `S11+`, `S*33`, `Sx33`.
//!
//! Both leave out what the position makes obvious, so every function takes the position the
//! move is played in. A [`Notator`] keeps a position's legal moves for writing or reading many
//! moves of it.
//!
//! ```
//! use tsubame_notation::{parse_hodges, write_hodges, write_short};
//! use tsubame_rules::{tori, Options};
//!
//! let mut position = tori::start(&Options::defaults(tori::spec())).unwrap();
//! let mut record = Vec::new();
//! for text in ["Swx3c", "Swx5e", "Fax5e", "Fax3c", "Cr-5f", "Q-1b"] {
//!     let mv = parse_hodges(&position, text).unwrap();
//!     record.push((write_hodges(&position, mv), write_short(&position, mv)));
//!     position.play(mv).unwrap();
//! }
//! assert_eq!(record[5], ("LQ-1b".to_string(), "L12".to_string()));
//! ```

#![deny(missing_docs)]

mod error;
mod notator;
pub mod record;
mod syntax;
pub mod tenjiku;

pub use error::HodgesError;
pub use notator::Notator;

use tsubame_rules::{AnyPosition, Bitboard, Move, Position};

/// Writes a move in Hodges notation.
///
/// The piece's abbreviation from the variant's data (in Tori `Ph`, `Fa`, `+Fa`, `Cr`, `Pt`,
/// `LQ`, `RQ`, `Sw`, `+Sw`, `Ow`, `Sh`; a promoted piece keeps its `+` while it moves), then
/// `-` for a move, `x` for a capture or `*` for a drop, then the destination (`6d`), then `+`
/// when the move promotes. Promotion is compulsory in Tori, so every promoting move carries the
/// `+`; in a game where it is optional, a move that could promote and does not ends in `=`.
///
/// When another piece of the same kind could legally move to the same destination, the start
/// square follows the abbreviation: `Cr5c-4b`. The two quails have abbreviations of their own
/// and are never confused. The shrike's exchange is written like a drop onto the shrike's own
/// square: `Cr*3b`.
///
/// `mv` should be a legal move of `position`; the text of any other move is a best effort
/// (`?` for a missing piece).
///
/// ```
/// use tsubame_notation::write_hodges;
/// use tsubame_rules::{tori, Options, Position};
///
/// let rules = Options::defaults(tori::spec()).rule_set();
/// let position = Position::from_sfen(tori::tables(), "3k3/7/2C1C2/7/7/7/3K3 b S 1", rules).unwrap();
/// let crane = position.parse_usi("5c4b").unwrap();
/// assert_eq!(write_hodges(&position, crane), "Cr5c-4b");
/// let drop = position.parse_usi("S*4d").unwrap();
/// assert_eq!(write_hodges(&position, drop), "Sw*4d");
/// ```
pub fn write_hodges<B: Bitboard>(position: &Position<B>, mv: Move) -> String {
    Notator::new(position).hodges(mv)
}

/// Writes a move of a position of any game in Hodges notation: [`write_hodges`] for Tori and
/// Wa, [`tenjiku::write_tenjiku`] for Tenjiku.
///
/// ```
/// use tsubame_notation::write_hodges_any;
/// use tsubame_rules::{AnyPosition, Variant};
/// for (variant, usi, hodges) in [(Variant::Tori, "3d3c", "Swx3c"), (Variant::Tenjiku, "9l9k", "P-9k")] {
///     let position = AnyPosition::start(&variant.default_options()).unwrap();
///     let mv = position.parse_usi(usi).unwrap();
///     assert_eq!(write_hodges_any(&position, mv), hodges);
/// }
/// ```
pub fn write_hodges_any(position: &AnyPosition, mv: Move) -> String {
    match position {
        AnyPosition::Tori(p) => write_hodges(p, mv),
        AnyPosition::Wa(p) => write_hodges(p, mv),
        AnyPosition::Tenjiku(p) => tenjiku::write_tenjiku(p, mv),
    }
}

/// Reads a move in Hodges notation and finds it among the legal moves of `position`.
///
/// Accepts what [`write_hodges`] writes, and also:
/// - piece abbreviations in any case (`SWx4a+`), and `Q` for either quail when only one of
///   them can make the move;
/// - a start square where none is needed (`Sw3e-3d`);
/// - no `+` on a move that must promote, since the promoting move is then the only one;
/// - white space around the move.
///
/// The text is rejected, with an error naming the offending part, when it is malformed, when
/// `-` or `x` does not match whether the move captures, when `+` is written on a move that
/// cannot promote, when anything follows the move (check marks included), and when no legal
/// move or more than one fits it. No input makes it panic.
///
/// ```
/// use tsubame_notation::{parse_hodges, HodgesError};
/// use tsubame_rules::{tori, Options};
///
/// let position = tori::start(&Options::defaults(tori::spec())).unwrap();
/// let mv = parse_hodges(&position, "Swx3c").unwrap();
/// assert_eq!(position.to_usi(mv), "3d3c");
/// assert!(matches!(parse_hodges(&position, "Sw-3c"), Err(HodgesError::UnmarkedCapture { .. })));
/// assert_eq!(
///     parse_hodges(&position, "Cr-4b").unwrap_err().to_string(),
///     "no legal move Cr-4b: no crane of yours can move to 4b"
/// );
/// ```
pub fn parse_hodges<B: Bitboard>(position: &Position<B>, text: &str) -> Result<Move, HodgesError> {
    Notator::new(position).parse_hodges(text)
}

/// Writes a move in the play site's short form.
///
/// The piece's SFEN letter (`S`, `F`, `C`, `P`, `L`, `R`, `K`, `O`, `M`; promoted `+S`, `+F`),
/// then the start square only when another piece of the same kind could legally move to the
/// same destination, then `x` for a capture or `*` for a drop (nothing for a plain move), then
/// the destination, then `+` when the move promotes. Squares are two numbers, file then rank,
/// rank `a` being 1: Hodges `3c` is `33`. So a plain move is `S11+`, a drop `S*33`, a capture
/// `Sx33`, a disambiguated crane move `C5342`. The shrike's exchange is written like a drop
/// onto the shrike's square (`C*32`). As in Hodges, a move that could promote and does not
/// ends in `=` in a game where promotion is optional.
///
/// The form is meant for boards of at most nine files and ranks, where each number is one
/// digit; on larger boards the numbers are written in full.
///
/// ```
/// use tsubame_notation::write_short;
/// use tsubame_rules::{tori, Options, Position};
///
/// let rules = Options::defaults(tori::spec()).rule_set();
/// let position = Position::from_sfen(tori::tables(), "3k3/7/2C1C2/7/7/7/3K3 b S 1", rules).unwrap();
/// assert_eq!(write_short(&position, position.parse_usi("5c4b").unwrap()), "C5342");
/// assert_eq!(write_short(&position, position.parse_usi("S*4d").unwrap()), "S*44");
/// ```
pub fn write_short<B: Bitboard>(position: &Position<B>, mv: Move) -> String {
    Notator::new(position).short(mv)
}
