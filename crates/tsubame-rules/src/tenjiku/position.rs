//! A Tenjiku position: the board, whose turn it is, which pieces are under the deferral rule,
//! and an incremental hash; make and unmake with burns.

use super::{Rulebook, TenjikuRules, rulebook, spec};
use crate::bitboard::{Bitboard, Bitboard256};
use crate::color::Color;
use crate::moves::Move;
use crate::square::{Geometry, Square};
use crate::variant::{Options, Piece, Role};
use std::fmt;

/// The board shape.
pub(crate) const GEOMETRY: Geometry = Geometry {
    width: 16,
    height: 16,
};

const EMPTY: u8 = 0;

#[inline(always)]
pub(crate) const fn code(color: Color, role: Role) -> u8 {
    1 + (role.0 << 1) + color as u8
}

#[inline(always)]
pub(crate) const fn role_of(code: u8) -> Role {
    Role((code - 1) >> 1)
}

#[inline(always)]
pub(crate) const fn color_of(code: u8) -> Color {
    if (code - 1) & 1 == 0 {
        Color::Sente
    } else {
        Color::Gote
    }
}

/// A piece a move removed from the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Removal {
    /// Where it stood when it was removed.
    pub square: Square,
    /// The piece.
    pub piece: Piece,
    /// Whether a fire demon burned it (actively, or passively: the moving piece itself).
    pub burned: bool,
}

const MAX_CHANGES: usize = 12;

/// What [`TenjikuPosition::make_move`] needs to take a move back, and what the move removed.
#[derive(Clone, Debug)]
pub struct TenjikuUndo {
    changes: [(u8, u8); MAX_CHANGES],
    change_count: u8,
    removals: [(u8, u8, bool); MAX_CHANGES],
    removal_count: u8,
    deferred: Bitboard256,
    key: u64,
    ply: u32,
}

impl TenjikuUndo {
    /// Every piece the move removed: captures first, then burns (the mover last, if it burned).
    pub fn removals(&self) -> impl Iterator<Item = Removal> + '_ {
        self.removals[..self.removal_count as usize]
            .iter()
            .map(|&(square, code, burned)| Removal {
                square: Square(square),
                piece: Piece {
                    color: color_of(code),
                    role: role_of(code),
                },
                burned,
            })
    }
}

/// A Tenjiku shogi position.
#[derive(Clone)]
pub struct TenjikuPosition {
    pub(crate) book: &'static Rulebook,
    pub(crate) board: [u8; 256],
    pub(crate) by_color: [Bitboard256; 2],
    pub(crate) demons: [Bitboard256; 2],
    pub(crate) royals: [u8; 2],
    pub(crate) deferred: Bitboard256,
    pub(crate) side: Color,
    pub(crate) ply: u32,
    pub(crate) key: u64,
}

impl PartialEq for TenjikuPosition {
    fn eq(&self, other: &Self) -> bool {
        self.board == other.board
            && self.side == other.side
            && self.deferred == other.deferred
            && self.ply == other.ply
            && self.book.rules == other.book.rules
    }
}
impl Eq for TenjikuPosition {}

impl fmt::Debug for TenjikuPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TenjikuPosition({})", self.to_sfen())
    }
}

impl TenjikuPosition {
    /// An empty board with sente to move.
    pub fn empty(rules: TenjikuRules) -> TenjikuPosition {
        TenjikuPosition {
            book: rulebook(rules),
            board: [EMPTY; 256],
            by_color: [Bitboard256::EMPTY; 2],
            demons: [Bitboard256::EMPTY; 2],
            royals: [0; 2],
            deferred: Bitboard256::EMPTY,
            side: Color::Sente,
            ply: 1,
            key: 0,
        }
    }

    /// The start position under these options.
    pub fn start(options: &Options) -> TenjikuPosition {
        let rules = TenjikuRules::from_options(options);
        match TenjikuPosition::from_sfen(spec().start_sfen, rules) {
            Ok(position) => position,
            Err(e) => unreachable!("the built-in start position is valid: {e}"),
        }
    }

    /// The rule choices that decide this position's moves. The game-level choices (`mate`,
    /// `max-plies`) are at their defaults here: they belong to the game ([`super::TenjikuGame`]
    /// keeps them in its options), and a position that does not carry them stays as small as
    /// move generation wants it.
    pub fn rules(&self) -> TenjikuRules {
        self.book.rules
    }

    /// The board shape (16x16).
    pub fn geometry(&self) -> Geometry {
        GEOMETRY
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The move number (1 for the first move of the game).
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The position's hash: pieces, deferral flags and side to move.
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The piece on a square.
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        let code = *self.board.get(square.index())?;
        (code != EMPTY).then(|| Piece {
            color: color_of(code),
            role: role_of(code),
        })
    }

    /// Whether the piece on `square` is under the deferral rule (it declined a promotion on
    /// its last move).
    pub fn is_deferred(&self, square: Square) -> bool {
        self.deferred.has(square.index())
    }

    /// The squares of a side's pieces.
    pub fn pieces(&self, color: Color) -> impl Iterator<Item = Square> + '_ {
        self.by_color[color.index()].iter().map(|s| Square(s as u8))
    }

    /// The squares of a side's pieces, as a set.
    pub fn occupied_by(&self, color: Color) -> Bitboard256 {
        self.by_color[color.index()]
    }

    /// The squares of a side's fire demons (promoted water buffaloes included).
    pub fn demons(&self, color: Color) -> Bitboard256 {
        self.demons[color.index()]
    }

    /// The squares one king step from `square`.
    pub fn neighbours(&self, square: Square) -> Bitboard256 {
        self.book
            .neighbours
            .get(square.index())
            .copied()
            .unwrap_or_default()
    }

    /// The squares within two king steps of `square` (itself excluded).
    pub fn within_two(&self, square: Square) -> Bitboard256 {
        self.book
            .lion_area
            .get(square.index())
            .copied()
            .unwrap_or_default()
    }

    /// How many royal pieces (king, crown prince) a side has.
    pub fn royal_count(&self, color: Color) -> u8 {
        self.royals[color.index()]
    }

    /// Whether a side has lost every royal piece, which ends the game.
    pub fn is_over(&self) -> bool {
        self.royals[0] == 0 || self.royals[1] == 0
    }

    #[inline(always)]
    fn piece_key(&self, code: u8, square: usize) -> u64 {
        let tables = self.book.tables;
        let index = color_of(code).index() * tables.role_count + role_of(code).index();
        tables.piece_keys[index * 256 + square]
    }

    /// Puts `code` (or nothing) on a square, keeping every derived set and the key up to date.
    #[inline(always)]
    pub(crate) fn set(&mut self, square: usize, code: u8) {
        let old = self.board[square];
        if old == code {
            return;
        }
        let bit = Bitboard256::single(square);
        if old != EMPTY {
            let color = color_of(old).index();
            let mover = &self.book.movers[role_of(old).index()];
            self.by_color[color] ^= bit;
            if mover.burns {
                self.demons[color] ^= bit;
            }
            if mover.royal {
                self.royals[color] -= 1;
            }
            self.key ^= self.piece_key(old, square);
        }
        if code != EMPTY {
            let color = color_of(code).index();
            let mover = &self.book.movers[role_of(code).index()];
            self.by_color[color] |= bit;
            if mover.burns {
                self.demons[color] |= bit;
            }
            if mover.royal {
                self.royals[color] += 1;
            }
            self.key ^= self.piece_key(code, square);
        }
        self.board[square] = code;
    }

    pub(crate) fn set_deferred(&mut self, deferred: Bitboard256) {
        let changed = self.deferred ^ deferred;
        for s in changed.iter() {
            self.key ^= self.book.deferred_keys[s];
        }
        self.deferred = deferred;
    }

    pub(crate) fn set_side(&mut self, side: Color) {
        if side != self.side {
            self.key ^= self.book.tables.side_key;
            self.side = side;
        }
    }

    /// The hash computed from scratch (equal to [`TenjikuPosition::key`] at all times).
    pub fn key_from_scratch(&self) -> u64 {
        let mut key = 0;
        for (s, &code) in self.board.iter().enumerate() {
            if code != EMPTY {
                key ^= self.piece_key(code, s);
            }
        }
        for s in self.deferred.iter() {
            key ^= self.book.deferred_keys[s];
        }
        if self.side == Color::Gote {
            key ^= self.book.tables.side_key;
        }
        key
    }

    /// Plays a move generated for this position (from [`TenjikuPosition::legal_moves`]) and
    /// returns what takes it back. Moves from elsewhere must be checked first
    /// ([`TenjikuPosition::is_legal`]).
    pub fn make_move(&mut self, mv: Move) -> TenjikuUndo {
        let mut undo = TenjikuUndo {
            changes: [(0, 0); MAX_CHANGES],
            change_count: 0,
            removals: [(0, 0, false); MAX_CHANGES],
            removal_count: 0,
            deferred: self.deferred,
            key: self.key,
            ply: self.ply,
        };
        let from = mv.from().map_or(0, Square::index);
        let to = mv.to().index();
        let moving = self.board[from];
        if moving == EMPTY {
            // Not a move of this position: it passes the turn, so that unmaking stays exact.
            self.set_side(!self.side);
            self.ply += 1;
            return undo;
        }
        let us = color_of(moving);
        let them = !us;
        let role = role_of(moving);
        let was_demon = self.book.movers[role.index()].burns;
        let mut removed = Bitboard256::EMPTY;

        self.change(&mut undo, from, EMPTY);
        if let Some(middle) = mv.middle() {
            let m = middle.index();
            if self.board[m] != EMPTY {
                self.note_removal(&mut undo, m, false);
                removed |= Bitboard256::single(m);
                self.change(&mut undo, m, EMPTY);
            }
        }
        if to != from && self.board[to] != EMPTY {
            self.note_removal(&mut undo, to, false);
            removed |= Bitboard256::single(to);
        }
        let new_role = match (
            mv.is_promotion(),
            self.book.movers[role.index()].promotes_to,
        ) {
            (true, Some(promoted)) => promoted,
            _ => role,
        };
        self.change(&mut undo, to, code(us, new_role));

        let around = self.book.neighbours[to];
        let enemies = self.by_color[them.index()];
        let enemy_demons = self.demons[them.index()];
        let mut survived = true;
        if !(around & enemy_demons).is_empty() {
            if was_demon && self.book.rules.demon_conflict == super::DemonConflictRule::Adams {
                for s in (around & enemies & !enemy_demons).iter() {
                    self.note_removal(&mut undo, s, true);
                    removed |= Bitboard256::single(s);
                    self.change(&mut undo, s, EMPTY);
                }
            }
            self.note_removal(&mut undo, to, true);
            self.change(&mut undo, to, EMPTY);
            survived = false;
        } else if was_demon {
            for s in (around & enemies & !enemy_demons).iter() {
                self.note_removal(&mut undo, s, true);
                removed |= Bitboard256::single(s);
                self.change(&mut undo, s, EMPTY);
            }
        }

        let mut deferred = self.deferred & !Bitboard256::single(from) & !removed;
        if survived {
            deferred &= !Bitboard256::single(to);
            if mv.declines() {
                deferred |= Bitboard256::single(to);
            }
        } else {
            deferred &= !Bitboard256::single(to);
        }
        self.set_deferred(deferred);
        self.set_side(them);
        self.ply += 1;
        undo
    }

    fn change(&mut self, undo: &mut TenjikuUndo, square: usize, code: u8) {
        if let Some(slot) = undo.changes.get_mut(undo.change_count as usize) {
            *slot = (square as u8, self.board[square]);
            undo.change_count += 1;
        }
        self.set(square, code);
    }

    fn note_removal(&self, undo: &mut TenjikuUndo, square: usize, burned: bool) {
        if let Some(slot) = undo.removals.get_mut(undo.removal_count as usize) {
            *slot = (square as u8, self.board[square], burned);
            undo.removal_count += 1;
        }
    }

    /// Takes back `mv`, which [`TenjikuPosition::make_move`] played and answered with `undo`.
    /// Everything is restored from `undo`; the move is taken for the same signature as
    /// [`crate::Position::unmake_move`].
    pub fn unmake_move(&mut self, _mv: Move, undo: TenjikuUndo) {
        for &(square, code) in undo.changes[..undo.change_count as usize].iter().rev() {
            self.set(square as usize, code);
        }
        self.deferred = undo.deferred;
        self.side = !self.side;
        self.ply = undo.ply;
        self.key = undo.key;
    }

    /// Passes the turn without moving (for search); [`TenjikuPosition::unmake_null_move`] takes it
    /// back.
    pub fn make_null_move(&mut self) {
        let side = !self.side;
        self.set_side(side);
        self.ply += 1;
    }

    /// Takes back [`TenjikuPosition::make_null_move`].
    pub fn unmake_null_move(&mut self) {
        let side = !self.side;
        self.set_side(side);
        self.ply -= 1;
    }

    /// The pieces `mv` would remove (captures, then burns), without playing it.
    pub fn removals(&self, mv: Move) -> Vec<Removal> {
        let mut after = self.clone();
        let undo = after.make_move(mv);
        undo.removals().collect()
    }

    /// The position after a move, if it is legal here.
    pub fn after(&self, mv: Move) -> Option<TenjikuPosition> {
        if !self.is_legal(mv) {
            return None;
        }
        let mut after = self.clone();
        after.make_move(mv);
        Some(after)
    }

    /// Whether `mv` is one of this position's moves.
    pub fn is_legal(&self, mv: Move) -> bool {
        // Every move starts from a piece, so only that piece's moves need generating.
        let Some(from) = mv.from() else {
            return false;
        };
        let mut found = false;
        self.generate_from(Bitboard256::single(from.index()), &mut |m| found |= m == mv);
        found
    }
}
