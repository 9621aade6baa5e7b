//! SFEN (USI style, our canonical form) and the FEN that Fairy-Stockfish and the Tori play site
//! write, both read and written.
//!
//! SFEN: `<board> <b|w> <hand|-> <ply>` with `b` for sente to move and hands as `2S` counts.
//! FEN: `<board>[<hand>] <w|b> [- -] [<halfmove> <fullmove>]`, where `w` means *sente* to move
//! (Fairy-Stockfish calls the first player white) and hands are repeated letters, `[-]` or `[]`
//! when empty.

use crate::Color;
use crate::bitboard::Bitboard;
use crate::position::{Position, PositionError, Setup};
use crate::tables::Tables;
use crate::variant::{Piece, RuleSet};
use std::fmt::Write;
use thiserror::Error;

/// Why a SFEN or FEN string was rejected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SfenError {
    /// Nothing but white space.
    #[error("empty position string")]
    Empty,
    /// Wrong number of space-separated fields.
    #[error("expected {expected}, found {found} field(s)")]
    FieldCount {
        /// Fields found.
        found: usize,
        /// What was expected.
        expected: &'static str,
    },
    /// Wrong number of ranks in the board field.
    #[error("board has {found} rank(s), expected {expected}")]
    RankCount {
        /// Ranks found.
        found: usize,
        /// Ranks of the variant.
        expected: usize,
    },
    /// A rank with too many or too few squares.
    #[error("rank {rank} describes {found} square(s), expected {expected}")]
    RankLength {
        /// The rank letter.
        rank: char,
        /// Squares described.
        found: usize,
        /// Files of the variant.
        expected: usize,
    },
    /// A letter or symbol that is no piece of the variant.
    #[error("rank {rank}: {text:?} is not a piece of {variant}")]
    UnknownPiece {
        /// The rank letter.
        rank: char,
        /// The offending text.
        text: String,
        /// The variant's name.
        variant: &'static str,
    },
    /// `+` in front of a piece that has no promoted form, or at the end of a rank.
    #[error("rank {rank}: {text:?} cannot be promoted")]
    BadPromotion {
        /// The rank letter.
        rank: char,
        /// The offending text.
        text: String,
    },
    /// A zero or oversized run of empty squares.
    #[error("rank {rank}: {text:?} is not a valid count of empty squares")]
    BadEmptyCount {
        /// The rank letter.
        rank: char,
        /// The offending text.
        text: String,
    },
    /// The side-to-move field is not one of its two letters.
    #[error("side to move {0:?} is not {1}")]
    BadSide(String, &'static str),
    /// An unknown piece in hand.
    #[error("hand: {0:?} is not a piece that can be in hand")]
    BadHandPiece(String),
    /// A bad count in the hand field.
    #[error("hand: count {0:?} is not a number from 1 to 255")]
    BadHandCount(String),
    /// A FEN hand not closed by `]`, or text after it.
    #[error("hand: {0}")]
    BadHandBrackets(&'static str),
    /// A bad move number.
    #[error("move number {0:?} is not a positive number")]
    BadMoveNumber(String),
    /// A bad FEN castling or en-passant field (only `-` exists in these games).
    #[error("field {0:?} must be '-' in this game")]
    BadPlaceholder(String),
    /// The text parsed, but the position is not a legal one.
    #[error("invalid position: {0}")]
    Invalid(PositionError),
}

// By hand rather than `#[from]`, which would also make the position error this one's source:
// the message already says it, and error chains (`{:#}`) would print it twice.
impl From<PositionError> for SfenError {
    fn from(error: PositionError) -> SfenError {
        SfenError::Invalid(error)
    }
}

fn rank_letter(rank: usize) -> char {
    (b'a' + (rank as u8).min(25)) as char
}

fn parse_board<B: Bitboard>(
    tables: &Tables<B>,
    text: &str,
    setup: &mut Setup,
) -> Result<(), SfenError> {
    let g = tables.geometry;
    let (width, height) = (g.width as usize, g.height as usize);
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != height {
        return Err(SfenError::RankCount {
            found: ranks.len(),
            expected: height,
        });
    }
    for (rank, rank_text) in ranks.iter().enumerate() {
        let letter = rank_letter(rank);
        // Files run from the highest number on the left down to 1.
        let mut column = 0usize;
        let mut chars = rank_text.char_indices().peekable();
        while let Some((start, c)) = chars.next() {
            if c.is_ascii_digit() {
                let mut end = start + 1;
                while let Some(&(i, d)) = chars.peek() {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    end = i + 1;
                    chars.next();
                }
                let digits = rank_text.get(start..end).unwrap_or("");
                let count: usize = match digits.parse() {
                    Ok(n) if n >= 1 && n <= width && !digits.starts_with('0') => n,
                    _ => {
                        return Err(SfenError::BadEmptyCount {
                            rank: letter,
                            text: digits.to_string(),
                        });
                    }
                };
                column += count;
                if column > width {
                    return Err(SfenError::RankLength {
                        rank: letter,
                        found: column.saturating_add(rank_length_rest(&mut chars)),
                        expected: width,
                    });
                }
                continue;
            }
            let (code, shown) = if c == '+' {
                match chars.next() {
                    Some((_, p)) if p.is_ascii_alphabetic() => {
                        (format!("+{}", p.to_ascii_uppercase()), format!("+{p}"))
                    }
                    Some((_, p)) => {
                        return Err(SfenError::BadPromotion {
                            rank: letter,
                            text: format!("+{p}"),
                        });
                    }
                    None => {
                        return Err(SfenError::BadPromotion {
                            rank: letter,
                            text: "+".into(),
                        });
                    }
                }
            } else if c.is_ascii_alphabetic() {
                (c.to_ascii_uppercase().to_string(), c.to_string())
            } else {
                return Err(SfenError::UnknownPiece {
                    rank: letter,
                    text: c.to_string(),
                    variant: tables.spec.name,
                });
            };
            let Some(role) = tables.spec.role_by_sfen(&code) else {
                if c == '+' && tables.spec.role_by_sfen(&code[1..]).is_some() {
                    return Err(SfenError::BadPromotion {
                        rank: letter,
                        text: shown,
                    });
                }
                return Err(SfenError::UnknownPiece {
                    rank: letter,
                    text: shown,
                    variant: tables.spec.name,
                });
            };
            let last = shown.chars().last().unwrap_or('?');
            let color = if last.is_ascii_uppercase() {
                Color::Sente
            } else {
                Color::Gote
            };
            if column >= width {
                return Err(SfenError::RankLength {
                    rank: letter,
                    found: (column + 1).saturating_add(rank_length_rest(&mut chars)),
                    expected: width,
                });
            }
            let file = (width - column) as u8;
            let square = g.square(file, rank as u8).ok_or(SfenError::RankLength {
                rank: letter,
                found: column + 1,
                expected: width,
            })?;
            setup.board[square.index()] = Some(Piece { color, role });
            column += 1;
        }
        if column != width {
            return Err(SfenError::RankLength {
                rank: letter,
                found: column,
                expected: width,
            });
        }
    }
    Ok(())
}

/// Counts the squares the rest of a rank describes, for an error message.
fn rank_length_rest(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) -> usize {
    let mut n = 0usize;
    let mut digits = String::new();
    for (_, c) in chars.by_ref() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        n = n.saturating_add(digits.parse::<usize>().unwrap_or(0));
        digits.clear();
        if c != '+' {
            n = n.saturating_add(1);
        }
    }
    n.saturating_add(digits.parse::<usize>().unwrap_or(0))
}

fn parse_hand<B: Bitboard>(
    tables: &Tables<B>,
    text: &str,
    setup: &mut Setup,
) -> Result<(), SfenError> {
    if text == "-" || text.is_empty() {
        return Ok(());
    }
    let mut count_text = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            count_text.push(c);
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return Err(SfenError::BadHandPiece(c.to_string()));
        }
        let count: u32 = if count_text.is_empty() {
            1
        } else {
            match count_text.parse::<u32>() {
                Ok(n) if (1..=255).contains(&n) && !count_text.starts_with('0') => n,
                _ => return Err(SfenError::BadHandCount(count_text)),
            }
        };
        count_text.clear();
        let role = tables
            .spec
            .role_by_sfen(&c.to_ascii_uppercase().to_string())
            .ok_or_else(|| SfenError::BadHandPiece(c.to_string()))?;
        let color = if c.is_ascii_uppercase() {
            Color::Sente
        } else {
            Color::Gote
        };
        let slot = &mut setup.hands[color.index()][role.index()];
        *slot = slot.saturating_add(count);
        if *slot > 255 {
            return Err(SfenError::BadHandCount(slot.to_string()));
        }
    }
    if !count_text.is_empty() {
        return Err(SfenError::BadHandCount(count_text));
    }
    Ok(())
}

fn parse_number(text: &str) -> Result<u32, SfenError> {
    match text.parse::<u32>() {
        Ok(n) if (1..1_000_000).contains(&n) => Ok(n),
        _ => Err(SfenError::BadMoveNumber(text.to_string())),
    }
}

/// Reads a SFEN into an unchecked setup.
pub fn parse_sfen_setup<B: Bitboard>(tables: &Tables<B>, text: &str) -> Result<Setup, SfenError> {
    let text = text.trim();
    let text = text.strip_prefix("sfen ").unwrap_or(text);
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.is_empty() {
        return Err(SfenError::Empty);
    }
    if !(3..=4).contains(&fields.len()) {
        return Err(SfenError::FieldCount {
            found: fields.len(),
            expected: "3 or 4 fields: board, side, hand, ply",
        });
    }
    let mut setup = Setup::empty(tables);
    parse_board(tables, fields[0], &mut setup)?;
    setup.side_to_move = match fields[1] {
        "b" => Color::Sente,
        "w" => Color::Gote,
        other => {
            return Err(SfenError::BadSide(
                other.to_string(),
                "b (sente) or w (gote)",
            ));
        }
    };
    parse_hand(tables, fields[2], &mut setup)?;
    setup.ply = match fields.get(3) {
        Some(ply) => parse_number(ply)?,
        None => 1,
    };
    Ok(setup)
}

/// Reads a FEN (Fairy-Stockfish / play-site form) into an unchecked setup.
pub fn parse_fen_setup<B: Bitboard>(tables: &Tables<B>, text: &str) -> Result<Setup, SfenError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.is_empty() {
        return Err(SfenError::Empty);
    }
    if !matches!(fields.len(), 2 | 4 | 6) {
        return Err(SfenError::FieldCount {
            found: fields.len(),
            expected: "board[hand] side, then optionally '- -', then halfmove and fullmove numbers",
        });
    }
    let mut setup = Setup::empty(tables);
    let (board, hand) = match fields[0].split_once('[') {
        Some((board, rest)) => {
            let hand = rest.strip_suffix(']').ok_or(SfenError::BadHandBrackets(
                "missing ']' at the end of the board field",
            ))?;
            if hand.contains(['[', ']']) {
                return Err(SfenError::BadHandBrackets("more than one pair of brackets"));
            }
            (board, hand)
        }
        None => (fields[0], ""),
    };
    parse_board(tables, board, &mut setup)?;
    parse_hand(tables, hand, &mut setup)?;
    setup.side_to_move = match fields[1] {
        "w" => Color::Sente,
        "b" => Color::Gote,
        other => {
            return Err(SfenError::BadSide(
                other.to_string(),
                "w (sente) or b (gote)",
            ));
        }
    };
    let numbers: &[&str] = match fields.len() {
        6 => {
            for placeholder in &fields[2..4] {
                if *placeholder != "-" {
                    return Err(SfenError::BadPlaceholder(placeholder.to_string()));
                }
            }
            &fields[4..6]
        }
        4 => &fields[2..4],
        _ => &[],
    };
    if let [halfmove, fullmove] = numbers {
        if halfmove.parse::<u32>().is_err() {
            return Err(SfenError::BadMoveNumber(halfmove.to_string()));
        }
        let fullmove = parse_number(fullmove)?;
        setup.ply = 2 * fullmove - 1 + u32::from(setup.side_to_move == Color::Gote);
    }
    Ok(setup)
}

fn write_board<B: Bitboard>(position: &Position<B>, out: &mut String) {
    let t = position.tables;
    let g = t.geometry;
    for rank in 0..g.height {
        if rank > 0 {
            out.push('/');
        }
        let mut empty = 0;
        for file in (1..=g.width).rev() {
            let square = g.square(file, rank).unwrap_or(crate::Square::from_index(0));
            match position.piece_at(square) {
                None => empty += 1,
                Some(piece) => {
                    if empty > 0 {
                        let _ = write!(out, "{empty}");
                        empty = 0;
                    }
                    let code = t.spec.roles[piece.role.index()].sfen;
                    match piece.color {
                        Color::Sente => out.push_str(code),
                        Color::Gote => out.push_str(&code.to_ascii_lowercase()),
                    }
                }
            }
        }
        if empty > 0 {
            let _ = write!(out, "{empty}");
        }
    }
}

impl<B: Bitboard> Position<B> {
    /// Reads a SFEN with the given rule choices.
    ///
    /// ```
    /// use tsubame_rules::{tori, Options, Position};
    /// let rules = Options::defaults(tori::spec()).rule_set();
    /// let p = Position::from_sfen(tori::tables(), "3k3/7/7/7/7/7/3K3 b S 1", rules).unwrap();
    /// // Five phoenix moves, and a swallow drop on every empty square but the six of rank a.
    /// assert_eq!(p.legal_moves().len(), 5 + 41);
    /// let err = Position::from_sfen(tori::tables(), "3k3/7/7/7/7/7/3K2 b - 1", rules).unwrap_err();
    /// assert_eq!(err.to_string(), "rank g describes 6 square(s), expected 7");
    /// ```
    pub fn from_sfen(
        tables: &'static Tables<B>,
        text: &str,
        rules: RuleSet,
    ) -> Result<Position<B>, SfenError> {
        let setup = parse_sfen_setup(tables, text)?;
        Ok(Position::from_setup(tables, setup, rules)?)
    }

    /// Reads a Fairy-Stockfish / play-site FEN with the given rule choices.
    pub fn from_fen(
        tables: &'static Tables<B>,
        text: &str,
        rules: RuleSet,
    ) -> Result<Position<B>, SfenError> {
        let setup = parse_fen_setup(tables, text)?;
        Ok(Position::from_setup(tables, setup, rules)?)
    }

    /// The hand pieces in writing order: each side's kinds in the variant's order.
    fn hand_pieces(&self) -> impl Iterator<Item = (Color, &'static str, u8)> + '_ {
        let t = self.tables;
        Color::ALL.into_iter().flat_map(move |color| {
            t.spec
                .roles
                .iter()
                .enumerate()
                .filter_map(move |(r, spec)| {
                    let count = self.hands[color.index() * t.role_count + r];
                    (count > 0).then_some((color, spec.sfen, count))
                })
        })
    }

    /// The position as SFEN.
    pub fn to_sfen(&self) -> String {
        let mut out = String::with_capacity(64);
        write_board(self, &mut out);
        out.push(' ');
        out.push(self.side.sfen_char());
        out.push(' ');
        let mut any = false;
        for (color, code, count) in self.hand_pieces() {
            any = true;
            if count > 1 {
                let _ = write!(out, "{count}");
            }
            match color {
                Color::Sente => out.push_str(code),
                Color::Gote => out.push_str(&code.to_ascii_lowercase()),
            }
        }
        if !any {
            out.push('-');
        }
        let _ = write!(out, " {}", self.ply);
        out
    }

    /// The position as the FEN of Fairy-Stockfish and the play site
    /// (`...[hand] w - - 0 <fullmove>`).
    pub fn to_fen(&self) -> String {
        let mut out = String::with_capacity(64);
        write_board(self, &mut out);
        out.push('[');
        for (color, code, count) in self.hand_pieces() {
            for _ in 0..count {
                match color {
                    Color::Sente => out.push_str(code),
                    Color::Gote => out.push_str(&code.to_ascii_lowercase()),
                }
            }
        }
        out.push(']');
        let side = match self.side {
            Color::Sente => 'w',
            Color::Gote => 'b',
        };
        let _ = write!(out, " {side} - - 0 {}", self.ply.div_ceil(2).max(1));
        out
    }
}
