//! The rules of Tori, Wa and Tenjiku shogi: boards, pieces as data, legal moves, make/unmake,
//! game end, SFEN/FEN and USI move text, perft.
//!
//! Variants are data ([`VariantSpec`]) compiled into lookup tables ([`Tables`]); a
//! [`Position`] is generic over the bitboard word that holds its board, so a 7x7 game runs on
//! `u64`.
//!
//! ```
//! use tsubame_rules::{tori, Game, Options, Status};
//! let options = Options::parse(tori::spec(), "drop-mate=illegal").unwrap();
//! let mut game = Game::new(tori::tables(), options).unwrap();
//! for usi in ["3d3c", "5d5e", "4f5e"] {
//!     game.play_usi(usi).unwrap();
//! }
//! assert_eq!(game.status(), Status::Ongoing);
//! assert_eq!(game.position().to_sfen(), "rpckcpl/3f3/ssssSss/7/SSFSSSS/7/LPCKCPR w 2Ss 4");
//! ```

#![deny(missing_docs)]

pub mod betza;
mod bitboard;
mod color;
mod game;
mod movegen;
mod moves;
mod position;
mod runtime;
mod sfen;
mod square;
mod start;
pub mod tables;
pub mod tenjiku;
pub mod tori;
mod usi;
mod variant;
pub mod wa;

pub use bitboard::{BitIter, Bitboard, Bitboard256};
pub use color::Color;
pub use game::{EndReason, Game, GameError, Outcome, Status};
pub use moves::{Move, MoveKind};
pub use position::{Position, PositionError, Setup, Undo};
pub use runtime::{
    AnyGame, AnyGameError, AnyPosition, GamePosition, PositionVisitor, SetupError, SetupProblem,
    UnknownVariant, Variant,
};
pub use sfen::{SfenError, parse_fen_setup, parse_sfen_setup};
pub use square::{Geometry, Square, SquareName};
pub use tables::Tables;
pub use usi::{MoveError, UsiMove};
pub use variant::{
    DropMateRule, DropRule, Effect, Hook, NumberOption, OptionError, OptionSpec, OptionValue,
    Options, Piece, PromotionRule, RepetitionRule, Role, RoleSpec, RuleSet, StalemateRule,
    VariantSpec,
};
