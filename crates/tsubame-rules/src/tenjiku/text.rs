//! Tenjiku SFEN and USI-style move text.

use super::position::{GEOMETRY, TenjikuPosition, code};
use super::{ROLES, TenjikuRules, spec};
use crate::bitboard::{Bitboard, Bitboard256};
use crate::color::Color;
use crate::moves::Move;
use crate::square::Square;
use crate::usi::MoveError;
use crate::variant::Role;
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

impl TenjikuPosition {
    /// Reads a position from SFEN (see the module documentation for the piece codes; `=` after
    /// a piece marks it as under the deferral rule).
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
        let position = TenjikuPosition::read_sfen(text, rules)?;
        position.check_counts()?;
        Ok(position)
    }

    fn read_sfen(text: &str, rules: TenjikuRules) -> Result<TenjikuPosition, TenjikuSetupError> {
        let text = text.trim();
        let text = text.strip_prefix("sfen ").unwrap_or(text);
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.is_empty() {
            return Err(TenjikuSetupError::Empty);
        }
        if !(3..=4).contains(&fields.len()) {
            return Err(TenjikuSetupError::FieldCount(fields.len()));
        }
        let mut position = TenjikuPosition::empty(rules);
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 16 {
            return Err(TenjikuSetupError::RankCount(ranks.len()));
        }
        let mut deferred = Bitboard256::EMPTY;
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
                let square = rank * 16 + (file - 1);
                let name = GEOMETRY.name(Square(square as u8)).to_string();
                let mover = &position.book.movers[role.index()];
                if mover.promotes_to.is_some() && mover.forced[color.index()].has(square) {
                    return Err(TenjikuSetupError::DeadPiece {
                        square: name,
                        piece: ROLES[role.index()].name,
                    });
                }
                if let Some(mark) = rest.strip_prefix('=') {
                    if mover.promotes_to.is_none() {
                        return Err(TenjikuSetupError::DeferralOnUnpromotable {
                            square: name,
                            piece: ROLES[role.index()].name,
                        });
                    }
                    deferred |= Bitboard256::single(square);
                    rest = mark;
                }
                position.set(square, code(color, role));
                file -= 1;
            }
            if covered != 16 {
                return Err(TenjikuSetupError::RankWidth {
                    rank: letter,
                    files: covered,
                });
            }
        }
        position.set_deferred(deferred);
        let side = match fields[1] {
            "b" => Color::Sente,
            "w" => Color::Gote,
            other => return Err(TenjikuSetupError::BadSide(other.chars().take(20).collect())),
        };
        position.set_side(side);
        if fields[2] != "-" {
            return Err(TenjikuSetupError::HandNotEmpty(
                fields[2].chars().take(20).collect(),
            ));
        }
        position.ply = match fields.get(3) {
            None => 1,
            Some(ply) => match ply.parse::<u32>() {
                Ok(n) if n >= 1 && !ply.starts_with('+') => n,
                _ => return Err(TenjikuSetupError::BadPly(ply.chars().take(20).collect())),
            },
        };
        Ok(position)
    }

    fn check_counts(&self) -> Result<(), TenjikuSetupError> {
        static LIMITS: std::sync::OnceLock<[usize; 36]> = std::sync::OnceLock::new();
        let limits = LIMITS.get_or_init(|| {
            // The start position itself is read without this check.
            let mut counts = [0; 36];
            if let Ok(start) = TenjikuPosition::read_sfen(spec().start_sfen, TenjikuRules::DEFAULT)
            {
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
                    return Err(TenjikuSetupError::TooMany {
                        color,
                        piece: ROLES[kind].name,
                        count,
                        limit,
                    });
                }
            }
        }
        Ok(())
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

    /// The position after the move written as USI text.
    pub fn after_usi(&self, text: &str) -> Result<TenjikuPosition, MoveError> {
        let mv = self.parse_usi(text)?;
        let mut after = self.clone();
        after.make_move(mv);
        Ok(after)
    }
}
