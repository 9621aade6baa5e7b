//! Which game, chosen at run time: the [`Variant`] every layer above the rules names a game by,
//! the [`GamePosition`] trait that both position families implement with the same names, and
//! [`AnyPosition`] / [`AnyGame`], which hold a position or game of any variant.
//!
//! Code that should run at full speed on every game is written once, generic over
//! [`GamePosition`] (or over a trait of its own that the concrete position types implement),
//! and called through a [`PositionVisitor`]: the choice of game is made once, at the edge, and
//! everything inside is monomorphised.
//!
//! ```
//! use tsubame_rules::{AnyGame, Status, Variant};
//! for (variant, moves) in [
//!     (Variant::Tori, ["3d3c", "5d5e", "4f5e"]),
//!     (Variant::Wa, ["6i6h", "6c6d", "6h6g"]),
//!     (Variant::Tenjiku, ["9l9k", "8e8f", "9o9o"]),
//! ] {
//!     let mut game = AnyGame::new(variant.default_options()).unwrap();
//!     for usi in moves {
//!         game.play_usi(usi).unwrap();
//!     }
//!     assert_eq!(game.variant(), variant);
//!     assert_eq!(game.moves().len(), 3);
//!     assert_eq!(game.status(), Status::Ongoing);
//!     // A move the position does not have is refused and changes nothing.
//!     let sfen = game.position().to_sfen();
//!     assert!(game.play_usi("1a1a+").is_err());
//!     assert_eq!(game.position().to_sfen(), sfen);
//! }
//! ```

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::game::{Game, GameError, Outcome, Status};
use crate::moves::Move;
use crate::position::{Position, PositionError, Undo};
use crate::sfen::SfenError;
use crate::square::{Geometry, Square};
use crate::tenjiku::{
    TenjikuGame, TenjikuGameError, TenjikuPosition, TenjikuSetupError, TenjikuUndo,
};
use crate::usi::MoveError;
use crate::variant::{Options, Piece, VariantSpec};
use crate::{tenjiku, tori, wa};
use std::fmt;
use std::str::FromStr;

/// One of the games this library knows.
///
/// Names are the rules' short names (`tori`, `wa`, `tenjiku`); the protocol names that USI,
/// UCI and Fairy-Stockfish use (`torishogi`, `washogi`) are read too.
///
/// ```
/// use tsubame_rules::Variant;
/// let wa: Variant = "washogi".parse().unwrap();
/// assert_eq!(wa, Variant::Wa);
/// assert_eq!(wa.name(), "wa");
/// assert_eq!(wa.spec().width, 11);
/// assert_eq!(Variant::ALL.map(Variant::name), ["tori", "wa", "tenjiku"]);
/// assert!("chess".parse::<Variant>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// Tori shogi, 7x7.
    Tori,
    /// Wa shogi, 11x11.
    Wa,
    /// Tenjiku shogi, 16x16.
    Tenjiku,
}

/// A name that is no game of this library.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {name:?} (variants: tori, wa, tenjiku)")]
pub struct UnknownVariant {
    /// The name given, cut to 40 characters.
    pub name: String,
}

impl Variant {
    /// Every game, in the order they are listed everywhere.
    pub const ALL: [Variant; 3] = [Variant::Tori, Variant::Wa, Variant::Tenjiku];

    /// The game's definition.
    pub fn spec(self) -> &'static VariantSpec {
        match self {
            Variant::Tori => tori::spec(),
            Variant::Wa => wa::spec(),
            Variant::Tenjiku => tenjiku::spec(),
        }
    }

    /// The short name used on the command line, in records and in the API (`"tori"`).
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The name USI's `USI_Variant`, UCI's `UCI_Variant` and Fairy-Stockfish use
    /// (`"torishogi"`).
    pub fn protocol_name(self) -> &'static str {
        self.spec().protocol_name
    }

    /// The name for people (`"Tori shogi"`).
    pub fn title(self) -> &'static str {
        self.spec().title
    }

    /// Files and ranks.
    pub fn board_size(self) -> (u8, u8) {
        let spec = self.spec();
        (spec.width, spec.height)
    }

    /// Every rule option at its default.
    pub fn default_options(self) -> Options {
        Options::defaults(self.spec())
    }

    /// The game with this short or protocol name, in any case, spaces around ignored.
    pub fn from_name(name: &str) -> Option<Variant> {
        let name = name.trim();
        Variant::ALL.into_iter().find(|v| {
            name.eq_ignore_ascii_case(v.name()) || name.eq_ignore_ascii_case(v.protocol_name())
        })
    }

    /// The game this definition belongs to; `None` for a definition that is none of this
    /// library's games.
    pub fn from_spec(spec: &VariantSpec) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.spec() == spec)
    }

    /// The game these options belong to.
    ///
    /// ```
    /// use tsubame_rules::{Options, Variant, wa};
    /// assert_eq!(Variant::of(&Options::defaults(wa::spec())), Some(Variant::Wa));
    /// ```
    pub fn of(options: &Options) -> Option<Variant> {
        Variant::from_spec(options.variant())
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(name: &str) -> Result<Variant, UnknownVariant> {
        Variant::from_name(name).ok_or_else(|| UnknownVariant {
            name: name.chars().take(40).collect(),
        })
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Variant {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Variant {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Variant, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// What every game's position offers, under the same names: Tori and Wa ([`Position`]) and
/// Tenjiku ([`TenjikuPosition`]).
///
/// ```
/// use tsubame_rules::{GamePosition, Options, tori};
/// fn leaves<P: GamePosition>(position: &mut P, depth: u32) -> u64 {
///     if depth == 0 {
///         return 1;
///     }
///     let mut total = 0;
///     for mv in position.legal_moves() {
///         let undo = position.make_move(mv);
///         total += leaves(position, depth - 1);
///         position.unmake_move(mv, undo);
///     }
///     total
/// }
/// let mut start = tori::start(&Options::defaults(tori::spec())).unwrap();
/// assert_eq!(leaves(&mut start, 2), start.perft(2));
/// ```
pub trait GamePosition: Clone + Eq + fmt::Debug + Send + Sync + 'static {
    /// What [`GamePosition::make_move`] hands back to take the move back.
    type Undo: Clone + fmt::Debug + Send;

    /// The board's shape.
    fn geometry(&self) -> Geometry;
    /// Whose move it is.
    fn side_to_move(&self) -> Color;
    /// The move number, counted in plies from 1.
    fn ply(&self) -> u32;
    /// The piece on a square.
    fn piece_at(&self, square: Square) -> Option<Piece>;
    /// The incremental hash of the position (board, hands, side to move).
    fn key(&self) -> u64;
    /// The hash computed afresh, which must equal [`GamePosition::key`].
    fn key_from_scratch(&self) -> u64;
    /// Whether the side to move is in check in a game where check restricts the moves: Tori
    /// and Wa. Tenjiku, where moving into check is legal and only the capture of the last
    /// royal ends the game, answers `false`.
    fn in_check(&self) -> bool;
    /// Appends every legal move.
    fn generate_legal(&self, moves: &mut Vec<Move>);
    /// Appends the legal moves that remove an enemy piece (captures, and Tenjiku's burns).
    fn generate_captures(&self, moves: &mut Vec<Move>);
    /// Appends the legal moves that [`GamePosition::generate_captures`] leaves out: the two
    /// together give every legal move once.
    fn generate_quiets(&self, moves: &mut Vec<Move>);
    /// Every legal move.
    fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::with_capacity(128);
        self.generate_legal(&mut moves);
        moves
    }
    /// Whether `mv` is one of the legal moves.
    fn is_legal(&self, mv: Move) -> bool;
    /// Plays a move after checking that it is legal; on error, with the rules' reason, the
    /// position is unchanged.
    fn play(&mut self, mv: Move) -> Result<(), MoveError>;
    /// Plays a legal move (a move not from [`GamePosition::generate_legal`] of this position
    /// leaves it in an unspecified state).
    fn make_move(&mut self, mv: Move) -> Self::Undo;
    /// Takes back `mv`, given what [`GamePosition::make_move`] answered.
    fn unmake_move(&mut self, mv: Move, undo: Self::Undo);
    /// Passes the turn (for search).
    fn make_null_move(&mut self);
    /// Takes back [`GamePosition::make_null_move`].
    fn unmake_null_move(&mut self);
    /// The position as SFEN.
    fn to_sfen(&self) -> String;
    /// A move of this position as USI text.
    fn to_usi(&self, mv: Move) -> String;
    /// Reads USI text naming a legal move of this position.
    fn parse_usi(&self, text: &str) -> Result<Move, MoveError>;
    /// How many legal moves there are, counted without building the list where the game can.
    fn count_legal(&self) -> u64;
    /// Leaf nodes of the legal move tree `depth` plies deep (repetition not considered).
    fn perft(&mut self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.count_legal(),
            _ => {
                let mut nodes = 0;
                for mv in self.legal_moves() {
                    let undo = self.make_move(mv);
                    nodes += self.perft(depth - 1);
                    self.unmake_move(mv, undo);
                }
                nodes
            }
        }
    }
    /// [`GamePosition::perft`] split by root move: each legal move with the leaf count below
    /// it (1 below each move at depth 0 and 1).
    fn divide(&mut self, depth: u32) -> Vec<(Move, u64)> {
        let moves = self.legal_moves();
        moves
            .into_iter()
            .map(|mv| {
                let undo = self.make_move(mv);
                let nodes = self.perft(depth.saturating_sub(1));
                self.unmake_move(mv, undo);
                (mv, nodes)
            })
            .collect()
    }
}

impl<B: Bitboard> GamePosition for Position<B> {
    type Undo = Undo;

    fn geometry(&self) -> Geometry {
        self.tables().geometry
    }
    #[inline]
    fn side_to_move(&self) -> Color {
        Position::side_to_move(self)
    }
    fn ply(&self) -> u32 {
        Position::ply(self)
    }
    #[inline]
    fn piece_at(&self, square: Square) -> Option<Piece> {
        Position::piece_at(self, square)
    }
    #[inline]
    fn key(&self) -> u64 {
        Position::key(self)
    }
    fn key_from_scratch(&self) -> u64 {
        Position::key_from_scratch(self)
    }
    #[inline]
    fn in_check(&self) -> bool {
        Position::in_check(self)
    }
    #[inline]
    fn generate_legal(&self, moves: &mut Vec<Move>) {
        Position::generate_legal(self, moves);
    }
    #[inline]
    fn generate_captures(&self, moves: &mut Vec<Move>) {
        Position::generate_captures(self, moves);
    }
    #[inline]
    fn generate_quiets(&self, moves: &mut Vec<Move>) {
        Position::generate_quiets(self, moves);
    }
    fn legal_moves(&self) -> Vec<Move> {
        Position::legal_moves(self)
    }
    fn is_legal(&self, mv: Move) -> bool {
        Position::is_legal(self, mv)
    }
    fn play(&mut self, mv: Move) -> Result<(), MoveError> {
        Position::play(self, mv)
    }
    #[inline]
    fn make_move(&mut self, mv: Move) -> Undo {
        Position::make_move(self, mv)
    }
    #[inline]
    fn unmake_move(&mut self, mv: Move, undo: Undo) {
        Position::unmake_move(self, mv, undo);
    }
    #[inline]
    fn make_null_move(&mut self) {
        Position::make_null_move(self);
    }
    #[inline]
    fn unmake_null_move(&mut self) {
        Position::unmake_null_move(self);
    }
    fn to_sfen(&self) -> String {
        Position::to_sfen(self)
    }
    fn to_usi(&self, mv: Move) -> String {
        Position::to_usi(self, mv)
    }
    fn parse_usi(&self, text: &str) -> Result<Move, MoveError> {
        Position::parse_usi(self, text)
    }
    fn count_legal(&self) -> u64 {
        Position::count_legal(self)
    }
}

impl GamePosition for TenjikuPosition {
    type Undo = TenjikuUndo;

    fn geometry(&self) -> Geometry {
        TenjikuPosition::geometry(self)
    }
    #[inline]
    fn side_to_move(&self) -> Color {
        TenjikuPosition::side_to_move(self)
    }
    fn ply(&self) -> u32 {
        TenjikuPosition::ply(self)
    }
    #[inline]
    fn piece_at(&self, square: Square) -> Option<Piece> {
        TenjikuPosition::piece_at(self, square)
    }
    #[inline]
    fn key(&self) -> u64 {
        TenjikuPosition::key(self)
    }
    fn key_from_scratch(&self) -> u64 {
        TenjikuPosition::key_from_scratch(self)
    }
    #[inline]
    fn in_check(&self) -> bool {
        false
    }
    #[inline]
    fn generate_legal(&self, moves: &mut Vec<Move>) {
        TenjikuPosition::generate_legal(self, moves);
    }
    #[inline]
    fn generate_captures(&self, moves: &mut Vec<Move>) {
        TenjikuPosition::generate_captures(self, moves);
    }
    #[inline]
    fn generate_quiets(&self, moves: &mut Vec<Move>) {
        TenjikuPosition::generate_quiets(self, moves);
    }
    fn legal_moves(&self) -> Vec<Move> {
        TenjikuPosition::legal_moves(self)
    }
    fn is_legal(&self, mv: Move) -> bool {
        TenjikuPosition::is_legal(self, mv)
    }
    fn play(&mut self, mv: Move) -> Result<(), MoveError> {
        TenjikuPosition::play(self, mv)
    }
    #[inline]
    fn make_move(&mut self, mv: Move) -> TenjikuUndo {
        TenjikuPosition::make_move(self, mv)
    }
    #[inline]
    fn unmake_move(&mut self, mv: Move, undo: TenjikuUndo) {
        TenjikuPosition::unmake_move(self, mv, undo);
    }
    #[inline]
    fn make_null_move(&mut self) {
        TenjikuPosition::make_null_move(self);
    }
    #[inline]
    fn unmake_null_move(&mut self) {
        TenjikuPosition::unmake_null_move(self);
    }
    fn to_sfen(&self) -> String {
        TenjikuPosition::to_sfen(self)
    }
    fn to_usi(&self, mv: Move) -> String {
        TenjikuPosition::to_usi(self, mv)
    }
    fn parse_usi(&self, text: &str) -> Result<Move, MoveError> {
        TenjikuPosition::parse_usi(self, text)
    }
    fn count_legal(&self) -> u64 {
        TenjikuPosition::count_legal(self)
    }
}

/// Work to run on a position of any game, with the concrete position type in hand: one method
/// per position family, so each call is monomorphised and may use bounds of the caller's own
/// traits that the concrete types implement.
pub trait PositionVisitor<'a> {
    /// What the work gives.
    type Output;
    /// Tori (`B = u64`) and Wa (`B = u128`).
    fn board<B: Bitboard>(self, position: &'a Position<B>) -> Self::Output;
    /// Tenjiku.
    fn tenjiku(self, position: &'a TenjikuPosition) -> Self::Output;
}

/// A position of any game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyPosition {
    /// Tori shogi.
    Tori(Position<u64>),
    /// Wa shogi.
    Wa(Position<u128>),
    /// Tenjiku shogi.
    Tenjiku(Box<TenjikuPosition>),
}

/// Why a position of some game could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The SFEN or FEN text of Tori or Wa.
    #[error(transparent)]
    Sfen(#[from] SfenError),
    /// The start position under these options (a handicap, an expansion piece).
    #[error(transparent)]
    Position(#[from] PositionError),
    /// The SFEN text of Tenjiku.
    #[error(transparent)]
    Tenjiku(#[from] TenjikuSetupError),
    /// A FEN was given for a game that has only SFEN.
    #[error("{0} positions are written as SFEN; there is no FEN form")]
    NoFen(&'static str),
}

/// A setup problem as a program reads it: a code that stays the same from release to release,
/// and the particulars that code speaks of, for a board editor that names the problem in its
/// own language (a [`SetupError`]'s message is English).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetupProblem {
    /// What kind of problem: `missing-royal`, `several-royals`, `impossible-hand-piece`,
    /// `hand-without-drops`, `too-many-pieces`, `too-many-of-family`, `impossible-square`,
    /// `dead-piece`, `deferral-on-unpromotable`, `too-many-on-file`, `opponent-in-check`,
    /// `zero-ply`, `syntax` (the text does not read as a position) or `other`.
    pub code: &'static str,
    /// The side concerned.
    pub side: Option<Color>,
    /// The piece kind, by the name the game gives it.
    pub piece: Option<String>,
    /// The square, as the game names squares.
    pub square: Option<String>,
    /// The file's number.
    pub file: Option<u32>,
    /// How many there are.
    pub count: Option<u64>,
    /// How many there may be.
    pub limit: Option<u64>,
}

impl SetupError {
    /// The problem as a code and its particulars.
    ///
    /// ```
    /// use tsubame_rules::{AnyPosition, Color, Variant};
    /// let options = Variant::Tori.default_options();
    /// let problems = AnyPosition::sfen_problems(&options, "S2k3/6S/6S/6S/7/7/2K1K2 b - 1");
    /// let first = problems[0].problem();
    /// assert_eq!(first.code, "several-royals");
    /// assert_eq!((first.side, first.count, first.limit), (Some(Color::Sente), Some(2), Some(1)));
    /// assert_eq!(problems[2].problem().code, "too-many-on-file");
    /// assert_eq!(problems[2].problem().file, Some(1));
    /// ```
    pub fn problem(&self) -> SetupProblem {
        use crate::tenjiku::TenjikuSetupError as Tenjiku;
        let of = |code| SetupProblem {
            code,
            ..SetupProblem::default()
        };
        match self {
            SetupError::Position(board) => match board {
                PositionError::MissingRoyal { color, royal } => SetupProblem {
                    side: Some(*color),
                    piece: Some(royal.to_string()),
                    ..of("missing-royal")
                },
                PositionError::SeveralRoyals {
                    color,
                    count,
                    royal,
                } => SetupProblem {
                    side: Some(*color),
                    piece: Some(royal.to_string()),
                    count: Some(u64::from(*count)),
                    limit: Some(1),
                    ..of("several-royals")
                },
                PositionError::ImpossibleHandPiece { color, piece } => SetupProblem {
                    side: Some(*color),
                    piece: Some(piece.to_string()),
                    ..of("impossible-hand-piece")
                },
                PositionError::HandWithoutDrops { color } => SetupProblem {
                    side: Some(*color),
                    ..of("hand-without-drops")
                },
                PositionError::TooManyPieces { piece, count, max } => SetupProblem {
                    piece: Some(piece.to_string()),
                    count: Some(*count),
                    limit: Some(u64::from(*max)),
                    ..of("too-many-pieces")
                },
                PositionError::ImpossibleSquare {
                    color,
                    piece,
                    square,
                } => SetupProblem {
                    side: Some(*color),
                    piece: Some(piece.to_string()),
                    square: Some(square.clone()),
                    ..of("impossible-square")
                },
                PositionError::TooManyOnFile {
                    color,
                    piece,
                    file,
                    count,
                    max,
                } => SetupProblem {
                    side: Some(*color),
                    piece: Some(piece.to_string()),
                    file: Some(u32::from(*file)),
                    count: Some(u64::from(*count)),
                    limit: Some(u64::from(*max)),
                    ..of("too-many-on-file")
                },
                PositionError::OpponentInCheck(color) => SetupProblem {
                    side: Some(*color),
                    ..of("opponent-in-check")
                },
                PositionError::ZeroPly => of("zero-ply"),
                PositionError::ShapeMismatch { .. } | PositionError::InvalidStart(_) => of("other"),
            },
            SetupError::Tenjiku(tenjiku) => match tenjiku {
                Tenjiku::DeadPiece { square, piece } => SetupProblem {
                    piece: Some(piece.to_string()),
                    square: Some(square.clone()),
                    ..of("dead-piece")
                },
                Tenjiku::DeferralOnUnpromotable { square, piece } => SetupProblem {
                    piece: Some(piece.to_string()),
                    square: Some(square.clone()),
                    ..of("deferral-on-unpromotable")
                },
                Tenjiku::TooMany {
                    color,
                    piece,
                    count,
                    limit,
                } => SetupProblem {
                    side: Some(*color),
                    piece: Some(piece.to_string()),
                    count: Some(*count as u64),
                    limit: Some(*limit as u64),
                    ..of("too-many-of-family")
                },
                Tenjiku::BoardSize(_) | Tenjiku::UnknownKind(_) => of("other"),
                Tenjiku::Empty
                | Tenjiku::FieldCount(_)
                | Tenjiku::RankCount(_)
                | Tenjiku::RankWidth { .. }
                | Tenjiku::UnknownPiece { .. }
                | Tenjiku::UnexpectedCharacter { .. }
                | Tenjiku::BadCount { .. }
                | Tenjiku::BadSide(_)
                | Tenjiku::HandNotEmpty(_)
                | Tenjiku::BadPly(_) => of("syntax"),
            },
            SetupError::Sfen(_) => of("syntax"),
            SetupError::NoFen(_) => of("other"),
        }
    }
}

/// Runs `$body` with `$position` bound to the concrete position, whatever the game.
macro_rules! each_position {
    ($value:expr, $position:ident => $body:expr) => {
        match $value {
            AnyPosition::Tori($position) => $body,
            AnyPosition::Wa($position) => $body,
            AnyPosition::Tenjiku($position) => $body,
        }
    };
}

impl AnyPosition {
    /// The start position of the game these options belong to.
    pub fn start(options: &Options) -> Result<AnyPosition, SetupError> {
        Ok(match game_of(options) {
            Variant::Tori => AnyPosition::Tori(Position::start(tori::tables(), options)?),
            Variant::Wa => AnyPosition::Wa(Position::start(wa::tables(), options)?),
            Variant::Tenjiku => AnyPosition::Tenjiku(Box::new(TenjikuPosition::start(options))),
        })
    }

    /// A position from SFEN under these options.
    ///
    /// ```
    /// use tsubame_rules::{AnyPosition, Variant};
    /// let options = Variant::Tori.default_options();
    /// let position = AnyPosition::from_sfen(&options, "3k3/7/7/7/7/7/3K3 b S 1").unwrap();
    /// assert_eq!(position.variant(), Variant::Tori);
    /// assert_eq!(position.legal_moves().len(), 5 + 41);
    /// assert!(AnyPosition::from_sfen(&options, "3k3/7 b - 1").is_err());
    /// ```
    pub fn from_sfen(options: &Options, text: &str) -> Result<AnyPosition, SetupError> {
        Ok(match game_of(options) {
            Variant::Tori => AnyPosition::Tori(Position::from_sfen(
                tori::tables(),
                text,
                options.rule_set(),
            )?),
            Variant::Wa => {
                AnyPosition::Wa(Position::from_sfen(wa::tables(), text, options.rule_set())?)
            }
            Variant::Tenjiku => AnyPosition::Tenjiku(Box::new(TenjikuPosition::from_sfen(
                text,
                tenjiku::TenjikuRules::from_options(options),
            )?)),
        })
    }

    /// Every problem that keeps a SFEN text from being a playable position under these options,
    /// for a board editor that names them all: each rule the setup breaks, or why the text
    /// cannot be read at all. Empty for a playable position.
    ///
    /// ```
    /// use tsubame_rules::{AnyPosition, Variant};
    /// let options = Variant::Tori.default_options();
    /// // Two sente phoenixes, a swallow on gote's back rank, three swallows on file 1.
    /// let problems = AnyPosition::sfen_problems(&options, "S2k3/6S/6S/6S/7/7/2K1K2 b - 1");
    /// let named: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    /// assert_eq!(named.len(), 3, "{named:?}");
    /// assert!(named[0].contains("2 phoenix"));
    /// assert!(named[1].contains("swallow on 7a"));
    /// assert!(named[2].contains("3 swallow pieces on file 1"));
    /// assert!(AnyPosition::sfen_problems(&options, "3k3/7/7/7/7/7/3K3 b S 1").is_empty());
    /// ```
    pub fn sfen_problems(options: &Options, text: &str) -> Vec<SetupError> {
        fn board<B: Bitboard>(
            tables: &'static crate::tables::Tables<B>,
            text: &str,
            rules: crate::variant::RuleSet,
        ) -> Vec<SetupError> {
            match crate::sfen::parse_sfen_setup(tables, text) {
                Ok(setup) => Position::setup_problems(tables, setup, rules)
                    .into_iter()
                    .map(SetupError::from)
                    .collect(),
                Err(error) => vec![error.into()],
            }
        }
        match game_of(options) {
            Variant::Tori => board(tori::tables(), text, options.rule_set()),
            Variant::Wa => board(wa::tables(), text, options.rule_set()),
            Variant::Tenjiku => match tenjiku::TenjikuSetup::from_sfen(text) {
                Ok(setup) => TenjikuPosition::setup_problems(
                    &setup,
                    tenjiku::TenjikuRules::from_options(options),
                )
                .into_iter()
                .map(SetupError::from)
                .collect(),
                Err(error) => vec![error.into()],
            },
        }
    }

    /// A position from the FEN of Fairy-Stockfish and the Tori play site (Tori and Wa).
    pub fn from_fen(options: &Options, text: &str) -> Result<AnyPosition, SetupError> {
        Ok(match game_of(options) {
            Variant::Tori => AnyPosition::Tori(Position::from_fen(
                tori::tables(),
                text,
                options.rule_set(),
            )?),
            Variant::Wa => {
                AnyPosition::Wa(Position::from_fen(wa::tables(), text, options.rule_set())?)
            }
            Variant::Tenjiku => return Err(SetupError::NoFen(Variant::Tenjiku.title())),
        })
    }

    /// The game.
    pub fn variant(&self) -> Variant {
        match self {
            AnyPosition::Tori(_) => Variant::Tori,
            AnyPosition::Wa(_) => Variant::Wa,
            AnyPosition::Tenjiku(_) => Variant::Tenjiku,
        }
    }

    /// Runs `visitor` on the concrete position.
    pub fn visit<'a, V: PositionVisitor<'a>>(&'a self, visitor: V) -> V::Output {
        match self {
            AnyPosition::Tori(position) => visitor.board(position),
            AnyPosition::Wa(position) => visitor.board(position),
            AnyPosition::Tenjiku(position) => visitor.tenjiku(position),
        }
    }

    /// The board's shape.
    pub fn geometry(&self) -> Geometry {
        each_position!(self, p => p.geometry())
    }

    /// Whose move it is.
    pub fn side_to_move(&self) -> Color {
        each_position!(self, p => p.side_to_move())
    }

    /// The move number in plies.
    pub fn ply(&self) -> u32 {
        each_position!(self, p => p.ply())
    }

    /// The piece on a square.
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        each_position!(self, p => p.piece_at(square))
    }

    /// The position's hash.
    pub fn key(&self) -> u64 {
        each_position!(self, p => p.key())
    }

    /// See [`GamePosition::in_check`].
    pub fn in_check(&self) -> bool {
        each_position!(self, p => p.in_check())
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> Vec<Move> {
        each_position!(self, p => p.legal_moves())
    }

    /// The legal moves of the piece on `from` (none for an empty square or the other side's
    /// piece): what a board shows as the piece's targets.
    ///
    /// ```
    /// use tsubame_rules::{AnyPosition, Variant};
    /// let start = AnyPosition::start(&Variant::Tenjiku.default_options()).unwrap();
    /// let lion = start.geometry().parse_square("9o").unwrap();
    /// let moves = start.moves_from(lion);
    /// // Among them the lion's pass, which ends where it starts.
    /// assert!(moves.iter().any(|mv| mv.to() == lion));
    /// assert!(moves.iter().all(|mv| mv.from() == Some(lion)));
    /// ```
    pub fn moves_from(&self, from: Square) -> Vec<Move> {
        let mut moves = self.legal_moves();
        moves.retain(|mv| mv.from() == Some(from));
        moves
    }

    /// The moves without the check that the own royal is left safe: Tori and Wa's
    /// pseudo-legal moves, and Tenjiku's legal moves (moving into check is legal there).
    pub fn pseudo_legal_moves(&self) -> Vec<Move> {
        match self {
            AnyPosition::Tori(p) => p.pseudo_legal_moves(),
            AnyPosition::Wa(p) => p.pseudo_legal_moves(),
            AnyPosition::Tenjiku(p) => p.legal_moves(),
        }
    }

    /// Whether `mv` is legal here.
    pub fn is_legal(&self, mv: Move) -> bool {
        each_position!(self, p => p.is_legal(mv))
    }

    /// The position as SFEN.
    pub fn to_sfen(&self) -> String {
        each_position!(self, p => p.to_sfen())
    }

    /// A move as USI text.
    pub fn to_usi(&self, mv: Move) -> String {
        each_position!(self, p => p.to_usi(mv))
    }

    /// Reads USI text naming a legal move.
    pub fn parse_usi(&self, text: &str) -> Result<Move, MoveError> {
        each_position!(self, p => p.parse_usi(text))
    }

    /// The position as the FEN of Fairy-Stockfish and the Tori play site; `None` for Tenjiku,
    /// which has only SFEN.
    pub fn to_fen(&self) -> Option<String> {
        match self {
            AnyPosition::Tori(p) => Some(p.to_fen()),
            AnyPosition::Wa(p) => Some(p.to_fen()),
            AnyPosition::Tenjiku(_) => None,
        }
    }

    /// The square of the side to move's royal when it is in check (see
    /// [`GamePosition::in_check`]; never in Tenjiku).
    pub fn check_square(&self) -> Option<Square> {
        match self {
            AnyPosition::Tori(p) => board_check_square(p),
            AnyPosition::Wa(p) => board_check_square(p),
            AnyPosition::Tenjiku(_) => None,
        }
    }

    /// Every square whose piece the legal move `mv` takes off the board: a capture, a
    /// capture on the way, pieces burned by a fire demon, and in Tenjiku the mover itself
    /// when it burns. Drops and the shrike's exchange remove nothing.
    ///
    /// ```
    /// use tsubame_rules::{AnyPosition, Variant};
    /// let options = Variant::Tori.default_options();
    /// let start = AnyPosition::start(&options).unwrap();
    /// let capture = start.parse_usi("3d3c").unwrap();
    /// let name = |s| start.geometry().name(s).to_string();
    /// assert_eq!(start.removed_squares(capture).into_iter().map(name).collect::<Vec<_>>(), ["3c"]);
    /// ```
    pub fn removed_squares(&self, mv: Move) -> Vec<Square> {
        match self {
            AnyPosition::Tori(p) => board_removed_squares(p, mv),
            AnyPosition::Wa(p) => board_removed_squares(p, mv),
            AnyPosition::Tenjiku(p) => p.removals(mv).into_iter().map(|r| r.square).collect(),
        }
    }

    /// Plays a legal move; an illegal one is refused, with the rules' reason, and the position
    /// is unchanged.
    pub fn play(&mut self, mv: Move) -> Result<(), MoveError> {
        each_position!(self, p => p.play(mv))
    }

    /// Plays a move without checking it. The move must be legal here (from
    /// [`AnyPosition::legal_moves`], or a game's own history); otherwise the position's contents
    /// are unspecified.
    pub fn play_unchecked(&mut self, mv: Move) {
        each_position!(self, p => p.play_unchecked(mv))
    }

    /// A line of moves from here as USI text, as far as each is legal after the ones before
    /// (a search's principal variation, which may run into a move the table made up).
    ///
    /// ```
    /// use tsubame_rules::{AnyPosition, Variant};
    /// let start = AnyPosition::start(&Variant::Tori.default_options()).unwrap();
    /// let capture = start.parse_usi("3d3c").unwrap();
    /// // The same capture again is not gote's move: the line stops there.
    /// assert_eq!(start.line_to_usi(&[capture, capture]), ["3d3c"]);
    /// ```
    pub fn line_to_usi(&self, line: &[Move]) -> Vec<String> {
        let mut walk = self.clone();
        let mut out = Vec::with_capacity(line.len());
        for &mv in line {
            if !walk.is_legal(mv) {
                break;
            }
            out.push(walk.to_usi(mv));
            walk.play_unchecked(mv);
        }
        out
    }

    /// Leaf nodes of the legal move tree `depth` plies deep, counted on the concrete position.
    // Inline, so that the count is compiled where it is called, as a direct call of the
    // concrete position's perft would be.
    #[inline]
    pub fn perft(&mut self, depth: u32) -> u64 {
        each_position!(self, p => p.perft(depth))
    }

    /// [`AnyPosition::perft`] split by root move, each move as USI text.
    #[inline]
    pub fn divide(&mut self, depth: u32) -> Vec<(String, u64)> {
        each_position!(self, p => {
            let counts = p.divide(depth);
            counts.into_iter().map(|(mv, nodes)| (p.to_usi(mv), nodes)).collect()
        })
    }
}

fn board_check_square<B: Bitboard>(position: &Position<B>) -> Option<Square> {
    if !position.in_check() {
        return None;
    }
    let index = position.royal_square(position.side_to_move())?;
    Some(Square::from_index(u8::try_from(index).ok()?))
}

fn board_removed_squares<B: Bitboard>(position: &Position<B>, mv: Move) -> Vec<Square> {
    match mv.kind() {
        crate::MoveKind::Normal { to, .. } => position
            .piece_at(to)
            .filter(|piece| piece.color != position.side_to_move())
            .map(|_| to)
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

fn game_of(options: &Options) -> Variant {
    match Variant::of(options) {
        Some(variant) => variant,
        // Options are made only from a VariantSpec, and every spec this library hands out is
        // one of its games.
        None => unreachable!("options of a game this library does not define"),
    }
}

/// A game of any variant: start, moves, and result.
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// Tori shogi.
    Tori(Game<u64>),
    /// Wa shogi.
    Wa(Game<u128>),
    /// Tenjiku shogi.
    Tenjiku(Box<TenjikuGame>),
}

/// Why a game of some variant could not be started or a move not played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnyGameError {
    /// In Tori or Wa.
    #[error(transparent)]
    Game(#[from] GameError),
    /// In Tenjiku.
    #[error(transparent)]
    Tenjiku(#[from] TenjikuGameError),
}

macro_rules! each_game {
    ($value:expr, $game:ident => $body:expr) => {
        match $value {
            AnyGame::Tori($game) => $body,
            AnyGame::Wa($game) => $body,
            AnyGame::Tenjiku($game) => $body,
        }
    };
}

impl AnyGame {
    /// A game from the start position of the game these options belong to.
    pub fn new(options: Options) -> Result<AnyGame, AnyGameError> {
        Ok(match game_of(&options) {
            Variant::Tori => AnyGame::Tori(Game::new(tori::tables(), options)?),
            Variant::Wa => AnyGame::Wa(Game::new(wa::tables(), options)?),
            Variant::Tenjiku => AnyGame::Tenjiku(Box::new(TenjikuGame::new(options))),
        })
    }

    /// A game from a SFEN start.
    pub fn from_sfen(sfen: &str, options: Options) -> Result<AnyGame, AnyGameError> {
        Ok(match game_of(&options) {
            Variant::Tori => AnyGame::Tori(Game::from_sfen(tori::tables(), sfen, options)?),
            Variant::Wa => AnyGame::Wa(Game::from_sfen(wa::tables(), sfen, options)?),
            Variant::Tenjiku => AnyGame::Tenjiku(Box::new(TenjikuGame::from_sfen(sfen, options)?)),
        })
    }

    /// A game from a position, with the rule options of the position's game (options of
    /// another game give that game's rule choices to this position's moves).
    pub fn from_position(start: AnyPosition, options: Options) -> AnyGame {
        match start {
            AnyPosition::Tori(p) => AnyGame::Tori(Game::from_position(p, options)),
            AnyPosition::Wa(p) => AnyGame::Wa(Game::from_position(p, options)),
            AnyPosition::Tenjiku(p) => {
                AnyGame::Tenjiku(Box::new(TenjikuGame::from_position(*p, options)))
            }
        }
    }

    /// The game.
    pub fn variant(&self) -> Variant {
        match self {
            AnyGame::Tori(_) => Variant::Tori,
            AnyGame::Wa(_) => Variant::Wa,
            AnyGame::Tenjiku(_) => Variant::Tenjiku,
        }
    }

    /// The rule options.
    pub fn options(&self) -> &Options {
        each_game!(self, g => g.options())
    }

    /// The current position (a copy).
    pub fn position(&self) -> AnyPosition {
        match self {
            AnyGame::Tori(g) => AnyPosition::Tori(g.position().clone()),
            AnyGame::Wa(g) => AnyPosition::Wa(g.position().clone()),
            AnyGame::Tenjiku(g) => AnyPosition::Tenjiku(Box::new(g.position().clone())),
        }
    }

    /// The start position (a copy).
    pub fn start(&self) -> AnyPosition {
        match self {
            AnyGame::Tori(g) => AnyPosition::Tori(g.start().clone()),
            AnyGame::Wa(g) => AnyPosition::Wa(g.start().clone()),
            AnyGame::Tenjiku(g) => AnyPosition::Tenjiku(Box::new(g.start().clone())),
        }
    }

    /// The moves played so far.
    pub fn moves(&self) -> Vec<Move> {
        match self {
            AnyGame::Tori(g) => g.moves().collect(),
            AnyGame::Wa(g) => g.moves().collect(),
            AnyGame::Tenjiku(g) => g.moves().to_vec(),
        }
    }

    /// Whether the game goes on.
    pub fn status(&self) -> Status {
        each_game!(self, g => g.status())
    }

    /// How the game ended, if it has.
    pub fn outcome(&self) -> Option<Outcome> {
        each_game!(self, g => g.outcome())
    }

    /// The legal moves now; none once the game is over.
    pub fn legal_moves(&self) -> Vec<Move> {
        each_game!(self, g => g.legal_moves())
    }

    /// Plays a move; an illegal one is refused and the game is unchanged.
    pub fn play(&mut self, mv: Move) -> Result<Status, AnyGameError> {
        each_game!(self, g => Ok(g.play(mv)?))
    }

    /// Plays a move written as USI text; refused moves change nothing.
    pub fn play_usi(&mut self, text: &str) -> Result<Move, AnyGameError> {
        each_game!(self, g => Ok(g.play_usi(text)?))
    }

    /// Takes back the last move (and any result it or a resignation or flag gave).
    pub fn undo(&mut self) -> Option<Move> {
        each_game!(self, g => g.undo())
    }

    /// `color` resigns.
    pub fn resign(&mut self, color: Color) {
        each_game!(self, g => g.resign(color))
    }

    /// `color` ran out of time.
    pub fn lose_on_time(&mut self, color: Color) {
        each_game!(self, g => g.lose_on_time(color))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Color;

    /// Counts through the visitor, on the concrete type of each family.
    struct CountLeaves(u32);

    impl<'a> PositionVisitor<'a> for CountLeaves {
        type Output = u64;
        fn board<B: Bitboard>(self, position: &'a Position<B>) -> u64 {
            position.clone().perft(self.0)
        }
        fn tenjiku(self, position: &'a TenjikuPosition) -> u64 {
            position.clone().perft(self.0)
        }
    }

    #[test]
    fn any_position_counts_what_the_concrete_positions_count() {
        let tori = tori::start(&Variant::Tori.default_options()).unwrap();
        let wa = Position::start(wa::tables(), &Variant::Wa.default_options()).unwrap();
        let tenjiku = TenjikuPosition::start(&Variant::Tenjiku.default_options());
        let expected = [
            (Variant::Tori, tori.clone().perft(3)),
            (Variant::Wa, wa.clone().perft(2)),
            (Variant::Tenjiku, tenjiku.clone().perft(2)),
        ];
        for (variant, nodes) in expected {
            let depth = if variant == Variant::Tori { 3 } else { 2 };
            let mut any = AnyPosition::start(&variant.default_options()).unwrap();
            assert_eq!(any.variant(), variant);
            assert_eq!(any.perft(depth), nodes, "{variant}");
            assert_eq!(any.visit(CountLeaves(depth)), nodes, "{variant}");
            let divided: u64 = any.divide(depth).iter().map(|(_, n)| n).sum();
            assert_eq!(divided, nodes, "{variant}");
            let reread = AnyPosition::from_sfen(&variant.default_options(), &any.to_sfen());
            assert_eq!(reread.as_ref(), Ok(&any), "{variant}");
        }
        assert_eq!(tenjiku.clone().perft(2), 5832);
    }

    #[test]
    fn any_position_refuses_what_its_game_does_not_have() {
        let options = Variant::Tenjiku.default_options();
        assert!(matches!(
            AnyPosition::from_fen(&options, "16/16 w - - 0 1"),
            Err(SetupError::NoFen(_))
        ));
        let mut start = AnyPosition::start(&options).unwrap();
        let sfen = start.to_sfen();
        let pawn_step = start.parse_usi("9l9k").unwrap();
        let mut after = start.clone();
        after.play(pawn_step).unwrap();
        // The same move is not gote's to play.
        assert!(after.play(pawn_step).is_err());
        assert_eq!(after.side_to_move(), Color::Gote);
        assert!(start.parse_usi("9l9a").is_err());
        assert_eq!(start.to_sfen(), sfen);
        start.play(pawn_step).unwrap();
        assert_eq!(start, after);
        let tori = Variant::Tori.default_options();
        let fen = "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[-] w 0 1";
        assert_eq!(
            AnyPosition::from_fen(&tori, fen).unwrap(),
            AnyPosition::start(&tori).unwrap()
        );
    }

    #[test]
    fn any_game_ends_and_takes_back_like_each_game() {
        for variant in Variant::ALL {
            let mut game = AnyGame::new(variant.default_options()).unwrap();
            let first = game.legal_moves()[0];
            game.play(first).unwrap();
            assert_eq!(game.moves(), vec![first]);
            game.resign(Color::Gote);
            let outcome = game.outcome().expect("a resignation ends the game");
            assert_eq!(outcome.winner, Some(Color::Sente), "{variant}");
            assert!(game.legal_moves().is_empty());
            assert!(game.play_usi(&game.position().to_usi(first)).is_err());
            assert_eq!(game.undo(), Some(first));
            assert_eq!(game.status(), Status::Ongoing);
            assert_eq!(game.position(), game.start());
            assert!(AnyGame::from_sfen("not a position", variant.default_options()).is_err());
        }
    }

    #[test]
    fn names_read_back_in_any_case() {
        for variant in Variant::ALL {
            for name in [variant.name(), variant.protocol_name()] {
                assert_eq!(name.parse(), Ok(variant));
                assert_eq!(name.to_ascii_uppercase().parse(), Ok(variant));
                assert_eq!(format!(" {name} ").parse(), Ok(variant));
            }
            assert_eq!(variant.to_string(), variant.name());
            assert_eq!(Variant::from_spec(variant.spec()), Some(variant));
            assert_eq!(Variant::of(&variant.default_options()), Some(variant));
        }
    }

    #[test]
    fn unknown_names_are_refused_and_quoted_short() {
        for bad in ["", "chess", "tori shogi", "torishogix"] {
            assert!(bad.parse::<Variant>().is_err(), "{bad:?}");
        }
        let long = "x".repeat(1000);
        let error = long.parse::<Variant>().unwrap_err();
        assert_eq!(error.name.len(), 40);
    }
}
