//! Why a record could not be read or written.

use crate::HodgesError;
use thiserror::Error;
use tsubame_rules::tenjiku::TenjikuGameError;
use tsubame_rules::{GameError, MoveError, SetupError};

/// Where in a record's text something went wrong: a line and, where it helps, a column
/// (both counted from 1; a column of 0 means the whole line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Location {
    /// The line, from 1.
    pub line: usize,
    /// The column in characters, from 1; 0 when the whole line is meant.
    pub column: usize,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.column == 0 {
            write!(f, "line {}", self.line)
        } else {
            write!(f, "line {}, column {}", self.line, self.column)
        }
    }
}

/// A record that could not be read, replayed or written, with the place in the text.
///
/// Its message starts with the place (`line 4, column 9: ...`), unless it concerns no line of
/// a text, as when a record is written.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{}{kind}", place(.location))]
pub struct RecordError {
    /// Where the problem is (line 0 when it concerns no line, as in writing).
    pub location: Location,
    /// What the problem is.
    pub kind: RecordErrorKind,
}

fn place(location: &Location) -> String {
    if location.line == 0 {
        String::new()
    } else {
        format!("{location}: ")
    }
}

impl RecordError {
    pub(crate) fn at(line: usize, column: usize, kind: RecordErrorKind) -> RecordError {
        RecordError {
            location: Location { line, column },
            kind,
        }
    }

    /// The line the error names (0 when it names none).
    pub fn line(&self) -> usize {
        self.location.line
    }
}

/// What was wrong with a record.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RecordErrorKind {
    /// The file is neither UTF-8 nor Shift-JIS.
    #[error("the text is neither UTF-8 nor Shift-JIS")]
    Encoding,
    /// A tag line that is not `[Name "value"]`.
    #[error("malformed tag: {0}")]
    MalformedTag(String),
    /// The same tag twice.
    #[error("tag {0} is given twice")]
    DuplicateTag(String),
    /// No `Variant` tag (or the format's equivalent) and none given by the caller.
    #[error("the record does not say which game it is (add [Variant \"tori\"])")]
    MissingVariant,
    /// A game this library does not know or cannot play yet.
    #[error("unknown or unavailable game {0:?}")]
    UnknownVariant(String),
    /// A rule option that the game does not have or a value it does not allow.
    #[error("bad rule option: {0}")]
    BadOption(String),
    /// A start position that cannot be read.
    #[error("bad start position: {0}")]
    BadPosition(String),
    /// A result that is not `1-0`, `0-1`, `1/2-1/2` or `*`.
    #[error("bad result {0:?} (expected 1-0, 0-1, 1/2-1/2 or *)")]
    BadResult(String),
    /// An end reason that is not one of the rules' words.
    #[error("bad reason {0:?}")]
    BadReason(String),
    /// A move number that does not follow the moves before it.
    #[error("move number {found} where {expected} was expected")]
    MoveNumber {
        /// The number written.
        found: String,
        /// The number that fits.
        expected: String,
    },
    /// A `{` comment that is never closed.
    #[error("comment opened here is never closed")]
    UnclosedComment,
    /// Text that is neither a move, a move number, a comment nor a result.
    #[error("unexpected {0:?}")]
    Unexpected(String),
    /// A file with more games than the reader was asked to take: reading stopped at the
    /// first game past the limit.
    #[error("the file holds more than {0} games: at most {0} are read at once")]
    TooManyGames(usize),
    /// Text where a move was expected that is no legal move of the position.
    #[error("move {number} {written:?} cannot be played: {reason}")]
    IllegalMove {
        /// The move number and side, as in `12.` or `12...`.
        number: String,
        /// The move as written.
        written: String,
        /// Why not (boxed: a refused move is rare, and every other error stays small).
        reason: Box<MoveTextError>,
    },
    /// A move after the rules had already ended the game.
    #[error("move {written:?} comes after the end of the game: {ended_by} ended it ({outcome})")]
    AfterEnd {
        /// The move as written.
        written: String,
        /// The move that ended the game, numbered (`37... Sx4c`), or the start position.
        ended_by: String,
        /// How the game had ended.
        outcome: String,
    },
    /// The result or reason written disagrees with how the moves end the game.
    #[error("the record says {written}, but the moves end in {actual}")]
    ResultMismatch {
        /// What the record says.
        written: String,
        /// What the rules say.
        actual: String,
    },
    /// A format that cannot express this game or start position.
    #[error("{0}")]
    Unsupported(String),
}

/// Why text is no move of a position, in whichever notation it was written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveTextError {
    /// The position the move is read in is not valid.
    #[error(transparent)]
    Position(#[from] SetupError),
    /// USI text naming no legal move.
    #[error(transparent)]
    Usi(#[from] MoveError),
    /// Hodges text naming no legal move.
    #[error(transparent)]
    Hodges(#[from] HodgesError),
    /// Fairy-Stockfish SAN naming no legal move.
    #[error(transparent)]
    San(#[from] SanError),
    /// The rules' game refused the move (Tori and Wa).
    #[error(transparent)]
    Game(#[from] GameError),
    /// The rules' game refused the move (Tenjiku: a repetition, say).
    #[error(transparent)]
    Tenjiku(#[from] TenjikuGameError),
}

/// Why Fairy-Stockfish SAN is no move of a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SanError {
    /// Nothing but check marks and annotations.
    #[error("empty move")]
    Empty,
    /// No legal move is written so (the text, quoted).
    #[error("no legal move is written {0}")]
    NoMove(String),
    /// More than one legal move is written so (the text, quoted).
    #[error("{0} fits more than one legal move")]
    Ambiguous(String),
}

/// A piece of a record's text as an error message quotes it: at most 60 characters, in quotes.
pub(crate) fn quoted(text: &str) -> String {
    let short: String = text.chars().take(60).collect();
    format!("{short:?}")
}
