//! Tenjiku SFEN and USI-style move text.

use super::position::{GEOMETRY, TenjikuPosition, code};
use super::{ROLES, TenjikuRules, spec};
use crate::bitboard::{Bitboard, Bitboard256};
use crate::color::Color;
use crate::moves::Move;
use crate::square::Square;
use crate::usi::MoveError;
use crate::variant::{Piece, Role};
use std::fmt::Write as _;
use thiserror::Error;

/// What is wrong with a Tenjiku SFEN.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TenjikuSetupError {
    /// Nothing was given.
    #[error("empty SFEN")]
    Empty,
    /// Not 3 or 4 space-separated fields.
    #[error("SFEN has {0} fields; expected board, side, hand (-) and an optional move number")]
    FieldCount(usize),
    /// The board does not have 16 ranks.
    #[error("board has {0} ranks separated by '/'; Tenjiku has 16")]
    RankCount(usize),
    /// A rank does not cover 16 files.
    #[error("rank {rank} covers {files} files; Tenjiku has 16")]
    RankWidth {
        /// The rank letter.
        rank: char,
        /// Files covered.
        files: usize,
    },
    /// A piece code that is no Tenjiku piece.
    #[error("rank {rank}: unknown piece code {code:?}")]
    UnknownPiece {
        /// The rank letter.
        rank: char,
        /// The code as written.
        code: String,
    },
    /// A character that starts no piece code or count.
    #[error("rank {rank}: unexpected character {found:?}")]
    UnexpectedCharacter {
        /// The rank letter.
        rank: char,
        /// The character.
        found: char,
    },
    /// An empty-square count of 0 or above 16.
    #[error("rank {rank}: empty-square count {count} is not between 1 and 16")]
    BadCount {
        /// The rank letter.
        rank: char,
        /// The count as written.
        count: String,
    },
    /// A deferral mark on a piece that cannot promote.
    #[error("{square}: {piece} cannot promote, so it cannot carry the deferral mark '='")]
    DeferralOnUnpromotable {
        /// The square.
        square: String,
        /// The piece's name.
        piece: &'static str,
    },
    /// An unpromoted piece where it could never move again.
    #[error("{square}: an unpromoted {piece} there could never move (it must have promoted)")]
    DeadPiece {
        /// The square.
        square: String,
        /// The piece's name.
        piece: &'static str,
    },
    /// More pieces of a kind than a set holds.
    #[error("{color} has {count} pieces of the {piece} family; a set has {limit}")]
    TooMany {
        /// The side.
        color: Color,
        /// The unpromoted kind's name.
        piece: &'static str,
        /// How many there are.
        count: usize,
        /// How many a set has.
        limit: usize,
    },
    /// The side field is not `b` or `w`.
    #[error("side to move {0:?} is not b (sente) or w (gote)")]
    BadSide(String),
    /// Tenjiku has no pieces in hand.
    #[error("hand {0:?}: Tenjiku has no drops, the hand field must be '-'")]
    HandNotEmpty(String),
    /// The move number is not a positive whole number.
    #[error("move number {0:?} is not a positive whole number")]
    BadPly(String),
    /// A setup whose board is not 256 squares.
    #[error("a setup has {0} squares; Tenjiku has 256")]
    BoardSize(usize),
    /// A setup with a kind that is no Tenjiku piece.
    #[error("kind {0} is no Tenjiku piece")]
    UnknownKind(u8),
}

fn rank_letter(rank: usize) -> char {
    (b'a' + rank as u8) as char
}

/// Reads one piece code at the start of `text`: `+`? letter (`'` | `!`)?; returns the kind,
/// colour and length.
fn read_code(text: &str) -> Option<(Role, Color, usize)> {
    let bytes = text.as_bytes();
    let mut length = 0;
    let promoted = bytes.first() == Some(&b'+');
    if promoted {
        length += 1;
    }
    let letter = *bytes.get(length)?;
    if !letter.is_ascii_alphabetic() {
        return None;
    }
    length += 1;
    let suffix = bytes
        .get(length)
        .copied()
        .filter(|&b| b == b'\'' || b == b'!');
    if suffix.is_some() {
        length += 1;
    }
    let color = if letter.is_ascii_uppercase() {
        Color::Sente
    } else {
        Color::Gote
    };
    let mut canonical = String::with_capacity(3);
    if promoted {
        canonical.push('+');
    }
    canonical.push(letter.to_ascii_uppercase() as char);
    if let Some(suffix) = suffix {
        canonical.push(suffix as char);
    }
    let index = ROLES.iter().position(|r| r.sfen == canonical)?;
    Some((Role(index as u8), color, length))
}

/// A Tenjiku position as read from SFEN, not yet checked against the rules: anything may be in
/// it. [`TenjikuPosition::from_setup`] turns it into a position.
///
/// ```
/// use tsubame_rules::tenjiku::{TenjikuPosition, TenjikuRules, TenjikuSetup};
/// // A pawn on the far rank reads as text, but no position has one there.
/// let setup = TenjikuSetup::from_sfen("7P8/16/16/16/16/16/16/7k8/16/16/16/16/16/16/16/8K7 b - 1").unwrap();
/// assert!(TenjikuPosition::from_setup(&setup, TenjikuRules::DEFAULT).is_err());
/// let start = TenjikuPosition::from_sfen(tsubame_rules::tenjiku::spec().start_sfen, TenjikuRules::DEFAULT).unwrap();
/// assert_eq!(TenjikuPosition::from_setup(&start.to_setup(), TenjikuRules::DEFAULT), Ok(start));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TenjikuSetup {
    /// One entry per square, by square index: the piece, and whether it carries the deferral
    /// mark `=` (its last move declined a promotion it was allowed).
    pub board: Vec<Option<(Piece, bool)>>,
    /// Who moves next.
    pub side_to_move: Color,
    /// Ply number of the next move, 1 for the first move of the game.
    pub ply: u32,
}

/// Square indices in SFEN order: ranks from `a`, files from 16 down to 1 in each.
fn sfen_order() -> impl Iterator<Item = usize> {
    (0..16).flat_map(|rank| (1..=16).rev().map(move |file| rank * 16 + (file - 1)))
}

impl TenjikuSetup {
    /// Reads SFEN text (see the module documentation for the piece codes; `=` after a piece
    /// marks it as under the deferral rule) without checking it against the rules: the text's
    /// shape, piece codes, side, empty hand and move number.
    pub fn from_sfen(text: &str) -> Result<TenjikuSetup, TenjikuSetupError> {
        let text = text.trim();
        let text = text.strip_prefix("sfen ").unwrap_or(text);
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.is_empty() {
            return Err(TenjikuSetupError::Empty);
        }
        if !(3..=4).contains(&fields.len()) {
            return Err(TenjikuSetupError::FieldCount(fields.len()));
        }
        let mut board = vec![None; 256];
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 16 {
            return Err(TenjikuSetupError::RankCount(ranks.len()));
        }
        for (rank, row) in ranks.iter().enumerate() {
            let letter = rank_letter(rank);
            let mut file = 16usize;
            let mut rest = *row;
            let mut covered = 0usize;
            while let Some(c) = rest.chars().next() {
                if c.is_ascii_digit() {
                    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                    let count_text = &rest[..digits];
                    let count: usize = count_text.parse().unwrap_or(0);
                    if count == 0 || count > 16 || count_text.starts_with('0') {
                        return Err(TenjikuSetupError::BadCount {
                            rank: letter,
                            count: count_text.chars().take(8).collect(),
                        });
                    }
                    covered += count;
                    file = file.saturating_sub(count);
                    rest = &rest[digits..];
                    continue;
                }
                if c != '+' && !c.is_ascii_alphabetic() {
                    return Err(TenjikuSetupError::UnexpectedCharacter {
                        rank: letter,
                        found: c,
                    });
                }
                let Some((role, color, length)) = read_code(rest) else {
                    let code: String = rest
                        .chars()
                        .take_while(|&c| {
                            c == '+' || c == '\'' || c == '!' || c.is_ascii_alphabetic()
                        })
                        .take(3)
                        .collect();
                    return Err(TenjikuSetupError::UnknownPiece { rank: letter, code });
                };
                rest = &rest[length..];
                covered += 1;
                if covered > 16 || file == 0 {
                    return Err(TenjikuSetupError::RankWidth {
                        rank: letter,
                        files: covered,
                    });
                }
                let deferred = match rest.strip_prefix('=') {
                    Some(after) => {
                        rest = after;
                        true
                    }
                    None => false,
                };
                if let Some(slot) = board.get_mut(rank * 16 + (file - 1)) {
                    *slot = Some((Piece { color, role }, deferred));
                }
                file -= 1;
            }
            if covered != 16 {
                return Err(TenjikuSetupError::RankWidth {
                    rank: letter,
                    files: covered,
                });
            }
        }
        let side_to_move = match fields[1] {
            "b" => Color::Sente,
            "w" => Color::Gote,
            other => return Err(TenjikuSetupError::BadSide(other.chars().take(20).collect())),
        };
        if fields[2] != "-" {
            return Err(TenjikuSetupError::HandNotEmpty(
                fields[2].chars().take(20).collect(),
            ));
        }
        let ply = match fields.get(3) {
            None => 1,
            Some(ply) => match ply.parse::<u32>() {
                Ok(n) if n >= 1 && !ply.starts_with('+') => n,
                _ => return Err(TenjikuSetupError::BadPly(ply.chars().take(20).collect())),
            },
        };
        Ok(TenjikuSetup {
            board,
            side_to_move,
            ply,
        })
    }
}

impl TenjikuPosition {
    /// Reads a position from SFEN (see the module documentation for the piece codes; `=` after
    /// a piece marks it as under the deferral rule): [`TenjikuSetup::from_sfen`], then
    /// [`TenjikuPosition::from_setup`].
    ///
    /// ```
    /// use tsubame_rules::tenjiku::{TenjikuPosition, TenjikuRules};
    /// let text = "16/16/16/16/16/16/16/7k8/16/16/16/16/7D!8/16/16/8K7 b - 1";
    /// let position = TenjikuPosition::from_sfen(text, TenjikuRules::DEFAULT).unwrap();
    /// assert_eq!(position.to_sfen(), text);
    /// assert!(TenjikuPosition::from_sfen("16/16 b - 1", TenjikuRules::DEFAULT).is_err());
    /// ```
    pub fn from_sfen(
        text: &str,
        rules: TenjikuRules,
    ) -> Result<TenjikuPosition, TenjikuSetupError> {
        TenjikuPosition::from_setup(&TenjikuSetup::from_sfen(text)?, rules)
    }

    /// Checks a setup against the rules and makes it a position: no unpromoted piece where it
    /// could never move again, the deferral mark only on pieces that can promote, no more
    /// pieces of a kind than a set holds. Each failure names the square or the kind.
    pub fn from_setup(
        setup: &TenjikuSetup,
        rules: TenjikuRules,
    ) -> Result<TenjikuPosition, TenjikuSetupError> {
        let mut problems = Vec::new();
        let position = TenjikuPosition::assemble(setup, rules, &mut problems)?;
        match problems.into_iter().next() {
            Some(first) => Err(first),
            None => Ok(position),
        }
    }

    /// Every problem that keeps a setup from being a playable position, in the order
    /// [`TenjikuPosition::from_setup`] finds them (for a board editor, which names them all);
    /// empty for a playable position.
    ///
    /// ```
    /// use tsubame_rules::tenjiku::{TenjikuPosition, TenjikuRules, TenjikuSetup};
    /// // Two unpromoted pawns on sente's last rank, and 17 pawns for gote.
    /// let text = "P15/16/16/16/16/16/16/k15/16/16/16/16/16/pppppppppppppppp/p15/P6K8 b - 1";
    /// let setup = TenjikuSetup::from_sfen(text).unwrap();
    /// let problems = TenjikuPosition::setup_problems(&setup, TenjikuRules::DEFAULT);
    /// let named: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    /// assert_eq!(named.len(), 2, "{named:?}");
    /// assert!(named[0].starts_with("16a: an unpromoted pawn"));
    /// assert!(named[1].contains("17 pieces of the pawn family"));
    /// ```
    pub fn setup_problems(setup: &TenjikuSetup, rules: TenjikuRules) -> Vec<TenjikuSetupError> {
        let mut problems = Vec::new();
        if let Err(fatal) = TenjikuPosition::assemble(setup, rules, &mut problems) {
            problems.insert(0, fatal);
        }
        problems
    }

    /// Builds the position a setup describes, noting each rule it breaks in `problems`; fails
    /// outright only for a setup that cannot be built at all (a board of another size, a kind
    /// that is no Tenjiku piece).
    fn assemble(
        setup: &TenjikuSetup,
        rules: TenjikuRules,
        problems: &mut Vec<TenjikuSetupError>,
    ) -> Result<TenjikuPosition, TenjikuSetupError> {
        let position = TenjikuPosition::place(setup, rules, problems)?;
        position.count_problems(problems);
        Ok(position)
    }

    /// The position as an unchecked setup.
    pub fn to_setup(&self) -> TenjikuSetup {
        TenjikuSetup {
            board: (0..256)
                .map(|square| {
                    let square = Square(square as u8);
                    self.piece_at(square)
                        .map(|piece| (piece, self.is_deferred(square)))
                })
                .collect(),
            side_to_move: self.side,
            ply: self.ply,
        }
    }

    /// The setup's pieces placed and checked square by square, without the count check; each
    /// square's problem noted in `problems`.
    fn place(
        setup: &TenjikuSetup,
        rules: TenjikuRules,
        problems: &mut Vec<TenjikuSetupError>,
    ) -> Result<TenjikuPosition, TenjikuSetupError> {
        if setup.board.len() != 256 {
            return Err(TenjikuSetupError::BoardSize(setup.board.len()));
        }
        let mut position = TenjikuPosition::empty(rules);
        let mut deferred = Bitboard256::EMPTY;
        for square in sfen_order() {
            let Some(Some((piece, marked))) = setup.board.get(square).copied() else {
                continue;
            };
            let (color, role) = (piece.color, piece.role);
            let Some(mover) = position.book.movers.get(role.index()) else {
                return Err(TenjikuSetupError::UnknownKind(role.0));
            };
            let name = GEOMETRY.name(Square(square as u8)).to_string();
            if mover.promotes_to.is_some() && mover.forced[color.index()].has(square) {
                problems.push(TenjikuSetupError::DeadPiece {
                    square: name.clone(),
                    piece: ROLES[role.index()].name,
                });
            }
            if marked {
                if mover.promotes_to.is_none() {
                    problems.push(TenjikuSetupError::DeferralOnUnpromotable {
                        square: name,
                        piece: ROLES[role.index()].name,
                    });
                } else {
                    deferred |= Bitboard256::single(square);
                }
            }
            position.set(square, code(color, role));
        }
        position.set_deferred(deferred);
        position.set_side(setup.side_to_move);
        if setup.ply == 0 {
            problems.push(TenjikuSetupError::BadPly("0".into()));
        }
        position.ply = setup.ply.max(1);
        Ok(position)
    }

    /// Notes each kind a side has more of than a set holds.
    fn count_problems(&self, problems: &mut Vec<TenjikuSetupError>) {
        static LIMITS: std::sync::OnceLock<[usize; 36]> = std::sync::OnceLock::new();
        let limits = LIMITS.get_or_init(|| {
            // The start position itself is read without this check.
            let mut counts = [0; 36];
            if let Ok(start) = TenjikuSetup::from_sfen(spec().start_sfen).and_then(|setup| {
                TenjikuPosition::place(&setup, TenjikuRules::DEFAULT, &mut Vec::new())
            }) {
                for s in start.pieces(Color::Sente) {
                    if let Some(piece) = start.piece_at(s)
                        && let Some(count) = counts.get_mut(piece.role.index())
                    {
                        *count += 1;
                    }
                }
            }
            counts
        });
        for color in Color::ALL {
            let mut counts = [0usize; 36];
            for s in self.pieces(color) {
                if let Some(piece) = self.piece_at(s) {
                    let base = ROLES[piece.role.index()]
                        .promoted_from
                        .unwrap_or(piece.role);
                    if let Some(count) = counts.get_mut(base.index()) {
                        *count += 1;
                    }
                }
            }
            for (kind, (&count, &limit)) in counts.iter().zip(limits.iter()).enumerate() {
                if count > limit {
                    problems.push(TenjikuSetupError::TooMany {
                        color,
                        piece: ROLES[kind].name,
                        count,
                        limit,
                    });
                }
            }
        }
    }

    /// The position as SFEN.
    pub fn to_sfen(&self) -> String {
        let mut out = String::with_capacity(160);
        for rank in 0..16 {
            if rank > 0 {
                out.push('/');
            }
            let mut empty = 0;
            for file in (1..=16usize).rev() {
                let square = rank * 16 + file - 1;
                match self.piece_at(Square(square as u8)) {
                    None => empty += 1,
                    Some(piece) => {
                        if empty > 0 {
                            let _ = write!(out, "{empty}");
                            empty = 0;
                        }
                        let code = ROLES[piece.role.index()].sfen;
                        if piece.color == Color::Sente {
                            out.push_str(code);
                        } else {
                            out.extend(code.chars().map(|c| c.to_ascii_lowercase()));
                        }
                        if self.deferred.has(square) {
                            out.push('=');
                        }
                    }
                }
            }
            if empty > 0 {
                let _ = write!(out, "{empty}");
            }
        }
        let _ = write!(out, " {} - {}", self.side.sfen_char(), self.ply);
        out
    }

    /// A move as USI-style text: `9l9k`, `9l9k+`, `6f5e6d` (capturing on 5e on the way),
    /// `6f5e6f` (igui), `6f6f` (a pass).
    pub fn to_usi(&self, mv: Move) -> String {
        let mut out = String::with_capacity(10);
        let from = mv.from().unwrap_or(mv.to());
        let _ = write!(out, "{}", GEOMETRY.name(from));
        if let Some(middle) = mv.middle() {
            let _ = write!(out, "{}", GEOMETRY.name(middle));
        }
        let _ = write!(out, "{}", GEOMETRY.name(mv.to()));
        if mv.is_promotion() {
            out.push('+');
        }
        out
    }

    /// Reads USI-style move text and finds the move of this position it names. A path through
    /// an empty square (`6f5e6d` with 5e empty) names the move without a capture on the way.
    pub fn parse_usi(&self, text: &str) -> Result<Move, MoveError> {
        let shown: String = text.chars().take(40).collect();
        let syntax = |reason| MoveError::Syntax {
            text: shown.clone(),
            reason,
        };
        let illegal = |reason| MoveError::Illegal {
            text: shown.clone(),
            reason,
        };
        let (body, promote) = match text.strip_suffix('+') {
            Some(body) => (body, true),
            None => (text, false),
        };
        let mut squares = Vec::with_capacity(3);
        let mut rest = body;
        while !rest.is_empty() {
            let Some((square, length)) = GEOMETRY.parse_square_prefix(rest) else {
                return Err(syntax("expected squares such as 9l9k, 6f5e6d or 6f6f"));
            };
            squares.push(square);
            rest = &rest[length..];
            if squares.len() > 3 {
                break;
            }
        }
        let (from, middle, to) = match squares.as_slice() {
            [from, to] => (*from, None, *to),
            [from, middle, to] => (*from, Some(*middle), *to),
            _ => {
                return Err(syntax("expected two or three squares"));
            }
        };
        let Some(piece) = self.piece_at(from) else {
            return Err(illegal(format!(
                "there is no piece on {}",
                GEOMETRY.name(from)
            )));
        };
        if piece.color != self.side {
            return Err(illegal(format!(
                "the piece on {} is not {}'s",
                GEOMETRY.name(from),
                self.side
            )));
        }
        let middle = match middle {
            Some(m) => {
                let near = |a: Square, b: Square| {
                    let (ax, ay) = (a.index() % 16, a.index() / 16);
                    let (bx, by) = (b.index() % 16, b.index() / 16);
                    a != b && ax.abs_diff(bx) <= 1 && ay.abs_diff(by) <= 1
                };
                if !near(from, m) || !near(m, to) {
                    return Err(illegal(format!(
                        "{} is not a step between {} and {}",
                        GEOMETRY.name(m),
                        GEOMETRY.name(from),
                        GEOMETRY.name(to)
                    )));
                }
                match self.piece_at(m) {
                    Some(p) if p.color != self.side => Some(m),
                    Some(_) => {
                        return Err(illegal(format!(
                            "a piece cannot step through its own side's piece on {}",
                            GEOMETRY.name(m)
                        )));
                    }
                    None => None,
                }
            }
            None => None,
        };
        let mut found = None;
        self.generate(&mut |mv| {
            if mv.from() == Some(from)
                && mv.to() == to
                && mv.middle() == middle
                && mv.is_promotion() == promote
            {
                found = Some(mv);
            }
        });
        found.ok_or_else(|| {
            illegal(format!(
                "the {} on {} has no such move here",
                ROLES[piece.role.index()].name,
                GEOMETRY.name(from)
            ))
        })
    }

    /// Plays a move after checking that it is legal; on error the position is unchanged.
    ///
    /// ```
    /// use tsubame_rules::tenjiku::{self, TenjikuPosition};
    /// use tsubame_rules::Options;
    /// let mut position = TenjikuPosition::start(&Options::defaults(tenjiku::spec()));
    /// let pawn = position.play_usi("9l9k").unwrap();
    /// // The same move is not gote's.
    /// assert!(position.play(pawn).is_err());
    /// assert_eq!(position.ply(), 2);
    /// ```
    pub fn play(&mut self, mv: Move) -> Result<(), MoveError> {
        if !self.is_legal(mv) {
            return Err(MoveError::Illegal {
                text: self.to_usi(mv),
                reason: "it is not a move of this position".to_string(),
            });
        }
        self.make_move(mv);
        Ok(())
    }

    /// Plays a move given as USI text after checking it, or explains why it cannot be played
    /// and leaves the position unchanged.
    pub fn play_usi(&mut self, text: &str) -> Result<Move, MoveError> {
        let mv = self.parse_usi(text)?;
        self.make_move(mv);
        Ok(mv)
    }

    /// Plays a move without checking it.
    ///
    /// The move must be legal in this position (for example, taken from
    /// [`TenjikuPosition::legal_moves`]); otherwise the position's contents are unspecified.
    pub fn play_unchecked(&mut self, mv: Move) {
        self.make_move(mv);
    }

    /// The position after the move written as USI text.
    pub fn after_usi(&self, text: &str) -> Result<TenjikuPosition, MoveError> {
        let mv = self.parse_usi(text)?;
        let mut after = self.clone();
        after.make_move(mv);
        Ok(after)
    }
}
