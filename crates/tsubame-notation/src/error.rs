//! Why Hodges text could not be read as a move.

use thiserror::Error;

/// Why [`parse_hodges`](crate::parse_hodges) rejected a text.
///
/// Variants up to [`HodgesError::PromotionMarkOnDrop`] concern the text alone; the others
/// say why the text, though well formed, is not one legal move of the position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum HodgesError {
    /// Nothing but white space.
    #[error("empty move text")]
    Empty,
    /// A character outside ASCII, which Hodges notation never uses.
    #[error("non-ascii character {found:?} in the move text")]
    NonAscii {
        /// The first such character.
        found: char,
    },
    /// The text does not begin with letters naming a piece.
    #[error("the move must start with a piece abbreviation, found {found:?}")]
    MissingPiece {
        /// The text (at most 40 characters of it).
        found: String,
    },
    /// Letters that are no piece of this game.
    #[error("unknown piece abbreviation {abbreviation:?}")]
    UnknownPiece {
        /// The letters, with a leading `+` if one was written.
        abbreviation: String,
    },
    /// A start square or destination that is not a square of this board.
    #[error("bad square {square:?}")]
    BadSquare {
        /// The text where a square was expected.
        square: String,
    },
    /// The text ends right after the move marker.
    #[error("missing destination square after '{marker}'")]
    MissingDestination {
        /// The marker (`-`, `x` or `*`).
        marker: char,
    },
    /// Neither `-`, `x` nor `*` where the kind of move is written.
    #[error("expected '-', 'x' or '*' after {after:?}, found {}", describe(.found))]
    MissingMarker {
        /// The text read so far: the piece, and the start square if one was written.
        after: String,
        /// What stands there instead (empty at the end of the text).
        found: String,
    },
    /// A start square written before `*`: a drop comes from the hand.
    #[error("a drop cannot name a start square, found {start:?} before '*'")]
    DropWithStartSquare {
        /// The start square as written.
        start: String,
    },
    /// Characters after the destination and the optional promotion mark.
    #[error("unexpected {rest:?} after the destination")]
    Trailing {
        /// The extra text (at most 40 characters of it).
        rest: String,
    },
    /// `+` or `=` after a drop, which never promotes.
    #[error("a drop never promotes, so it takes no '{mark}'")]
    PromotionMarkOnDrop {
        /// The mark written.
        mark: char,
    },
    /// No legal move fits the text.
    #[error("no legal move {written}: {reason}")]
    NoSuchMove {
        /// The move as written.
        written: String,
        /// Why it cannot be played.
        reason: String,
    },
    /// Several legal moves fit the text.
    #[error("{written} is ambiguous: it could be {}", .candidates.join(" or "))]
    Ambiguous {
        /// The move as written.
        written: String,
        /// Each fitting move in the notation that names it alone.
        candidates: Vec<String>,
    },
    /// `x` written, but the destination is empty.
    #[error("'x' marks a capture, but {square} is empty (write '-')")]
    CaptureOnEmptySquare {
        /// The destination.
        square: String,
    },
    /// `-` written, but the move captures.
    #[error("the move captures the {piece} on {square}: write 'x', not '-'")]
    UnmarkedCapture {
        /// The destination.
        square: String,
        /// The captured piece's name.
        piece: &'static str,
    },
    /// `+` on a move that does not promote.
    #[error("{written} cannot promote: {reason}")]
    CannotPromote {
        /// The move as written.
        written: String,
        /// Why not.
        reason: String,
    },
    /// `=` (promotion declined) on a move where promotion is compulsory.
    #[error("{written}: the {piece} must promote on this move, so it takes no '='")]
    MustPromote {
        /// The move as written.
        written: String,
        /// The moving piece's name.
        piece: &'static str,
    },
}

fn describe(found: &str) -> String {
    if found.is_empty() {
        "the end of the text".to_string()
    } else {
        format!("{found:?}")
    }
}
