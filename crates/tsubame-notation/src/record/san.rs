//! Fairy-Stockfish SAN, the moves of the Tori play site's PGN: written for a move, and read
//! back against a position's legal moves.

use super::SanError;
use super::error::quoted;
use tsubame_rules::{Bitboard, Move, MoveKind, Position, Role};

/// The Fairy-Stockfish letter of a piece kind: its SFEN letter, and for Tori's promoted kinds
/// the letters Fairy-Stockfish gives them (goose `G`, eagle `E`).
fn san_letter<B: Bitboard>(position: &Position<B>, role: Role) -> &'static str {
    let spec = position.tables().spec;
    let sfen = spec.role(role).sfen;
    match (spec.name, sfen) {
        ("tori", "+S") => "G",
        ("tori", "+F") => "E",
        _ => sfen,
    }
}

fn san_square<B: Bitboard>(position: &Position<B>, square: tsubame_rules::Square) -> String {
    let geometry = position.tables().geometry;
    let file = char::from(b'a' + (geometry.width - geometry.file(square)));
    let rank = geometry.height - geometry.rank(square);
    format!("{file}{rank}")
}

/// The move in Fairy-Stockfish SAN without the check mark.
fn san_body<B: Bitboard>(position: &Position<B>, legal: &[Move], mv: Move) -> String {
    let geometry = position.tables().geometry;
    match mv.kind() {
        MoveKind::Drop { role, to } | MoveKind::Exchange { role, square: to } => {
            format!(
                "{}@{}",
                san_letter(position, role),
                san_square(position, to)
            )
        }
        MoveKind::Normal { from, to, promote } => {
            let Some(piece) = position.piece_at(from) else {
                return "?".to_string();
            };
            let mut out = san_letter(position, piece.role).to_string();
            let rivals: Vec<tsubame_rules::Square> = legal
                .iter()
                .filter_map(|m| match m.kind() {
                    MoveKind::Normal { from: f, to: t, .. }
                        if t == to
                            && f != from
                            && position.piece_at(f).map(|p| p.role) == Some(piece.role) =>
                    {
                        Some(f)
                    }
                    _ => None,
                })
                .collect();
            if !rivals.is_empty() {
                let square = san_square(position, from);
                let (file, rank) = square.split_at(1);
                if rivals
                    .iter()
                    .all(|&r| geometry.file(r) != geometry.file(from))
                {
                    out.push_str(file);
                } else if rivals
                    .iter()
                    .all(|&r| geometry.rank(r) != geometry.rank(from))
                {
                    out.push_str(rank);
                } else {
                    out.push_str(&square);
                }
            }
            if position.piece_at(to).is_some() {
                out.push('x');
            }
            out.push_str(&san_square(position, to));
            if promote && let Some(promoted) = position.tables().spec.role(piece.role).promotes_to {
                out.push('=');
                out.push_str(san_letter(position, promoted));
            }
            out
        }
    }
}

/// Writes a legal move of `position` in Fairy-Stockfish SAN: `Fc2`, `Sxe4`, `Ced2` (start file
/// or rank when two pieces of a kind could go there), `S@e6` for a drop, `Sa2=G` for a
/// promotion, `+` after a check and `#` after a mate.
///
/// ```
/// use tsubame_notation::record::write_san;
/// use tsubame_rules::{tori, Options};
///
/// let position = tori::start(&Options::defaults(tori::spec())).unwrap();
/// assert_eq!(write_san(&position, position.parse_usi("3d3c").unwrap()), "Sxe5");
/// ```
pub fn write_san<B: Bitboard>(position: &Position<B>, mv: Move) -> String {
    let legal = position.legal_moves();
    let mut out = san_body(position, &legal, mv);
    let mut after = position.clone();
    after.make_move(mv);
    if after.in_check() {
        out.push(if after.has_legal_move() { '+' } else { '#' });
    }
    out
}

/// Reads a move in Fairy-Stockfish SAN; check marks (`+`, `#`) and annotations (`!`, `?`) are
/// optional.
pub(crate) fn parse_san<B: Bitboard>(position: &Position<B>, text: &str) -> Result<Move, SanError> {
    let core = text.trim_end_matches(['+', '#', '!', '?']);
    if core.is_empty() {
        return Err(SanError::Empty);
    }
    let legal = position.legal_moves();
    // Every SAN names the destination square: writing only the moves that go to a square the
    // text names keeps reading a move from costing a SAN for every legal move.
    let found: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|&m| core.contains(san_square(position, m.to()).as_str()))
        .filter(|&m| san_body(position, &legal, m) == core)
        .collect();
    match found.as_slice() {
        [only] => Ok(*only),
        [] => Err(SanError::NoMove(quoted(core))),
        _ => Err(SanError::Ambiguous(quoted(core))),
    }
}
