//! Tenjiku move generation: every distinct effect once (rules page, "Move identity").
//!
//! Moves that remove at most the piece on their destination are gathered per piece as a set
//! of destinations, so that the same destination reached by different powers (a slide and an
//! area move, a lion's step through an empty square and its jump) counts once. Moves that
//! capture on the way (lion double moves, igui) are listed on their own, keyed by the square
//! of that capture.

use super::position::{TenjikuPosition, color_of, role_of};
use super::{Lion, Mover, PromotionTiming, RangeJump, RangeJumpRule};
use crate::bitboard::{Bitboard, Bitboard256};
use crate::color::Color;
use crate::moves::Move;
use crate::runtime::GamePosition;
use crate::square::Square;

/// Every square of the 16x16 board, as a mask of the pieces whose moves are generated.
const ALL_SQUARES: Bitboard256 = Bitboard256([u64::MAX; 4]);

/// Relative direction `index` (see [`super::dir`]) as a step `(dx, dy)` on the board, where
/// `x` grows with the file number and `y` with the rank letter.
#[inline(always)]
const fn step(color: Color, index: u8) -> (i32, i32) {
    // Sente's forward is towards rank a; its left towards higher files.
    let (dx, dy) = match index & 7 {
        0 => (0, -1),
        1 => (1, -1),
        2 => (1, 0),
        3 => (1, 1),
        4 => (0, 1),
        5 => (-1, 1),
        6 => (-1, 0),
        _ => (-1, -1),
    };
    match color {
        Color::Sente => (dx, dy),
        Color::Gote => (-dx, -dy),
    }
}

#[inline(always)]
fn offset(square: usize, dx: i32, dy: i32, distance: i32) -> Option<usize> {
    let x = (square % 16) as i32 + dx * distance;
    let y = (square / 16) as i32 + dy * distance;
    ((0..16).contains(&x) && (0..16).contains(&y)).then_some((y * 16 + x) as usize)
}

/// Facts about the side to move's position that every emitted move consults.
struct Context {
    us: Color,
    own: Bitboard256,
    enemy: Bitboard256,
    enemy_demons: Bitboard256,
    /// Squares next to an enemy fire demon: a piece ending there burns, unless its move
    /// removed the demons that make it so.
    burn_zone: Bitboard256,
    zone: Bitboard256,
}

impl TenjikuPosition {
    /// Every move of the side to move, each distinct effect once. Moving into check is
    /// legal in Tenjiku; a position where a side has no royal left has no moves. Repetition is
    /// a matter of the game's history, see [`super::TenjikuGame`].
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::with_capacity(256);
        self.generate(&mut |mv| moves.push(mv));
        moves
    }

    /// How many moves [`TenjikuPosition::legal_moves`] would list.
    pub fn count_legal(&self) -> u64 {
        let mut count = 0u64;
        self.generate(&mut |_| count += 1);
        count
    }

    /// The moves that remove an enemy piece: captures at the destination or on the way, and
    /// fire demon moves that burn (for quiescence search).
    pub fn generate_captures(&self, moves: &mut Vec<Move>) {
        self.generate_filtered::<true>(ALL_SQUARES, &mut |mv| moves.push(mv));
    }

    /// The moves that remove nothing, those [`TenjikuPosition::generate_captures`] leaves out:
    /// together the two give every move once.
    pub fn generate_quiets(&self, moves: &mut Vec<Move>) {
        let us = self.side;
        let enemy = self.by_color[(!us).index()];
        // Where a fire demon's move burns an enemy: next to one that is not a demon.
        let mut burn_targets = Bitboard256::EMPTY;
        if !self.demons[us.index()].is_empty() {
            for e in (enemy & !self.demons[(!us).index()]).iter() {
                burn_targets |= self.book.neighbours[e];
            }
        }
        self.generate(&mut |mv| {
            let (from, to) = (mv.from().map(Square::index), mv.to().index());
            let captures = mv.middle().is_some() || (from != Some(to) && enemy.has(to));
            let burns = burn_targets.has(to)
                && from.is_some_and(|s| self.book.movers[role_of(self.board[s]).index()].burns);
            if !captures && !burns {
                moves.push(mv);
            }
        });
    }

    /// Appends every move to `moves` (see [`TenjikuPosition::legal_moves`]).
    pub fn generate_legal(&self, moves: &mut Vec<Move>) {
        self.generate(&mut |mv| moves.push(mv));
    }

    /// Leaf nodes of the move tree `depth` plies deep (history ignored).
    pub fn perft(&mut self, depth: u32) -> u64 {
        GamePosition::perft(self, depth)
    }

    /// Each move with the leaf count below it.
    pub fn divide(&mut self, depth: u32) -> Vec<(Move, u64)> {
        GamePosition::divide(self, depth)
    }

    pub(crate) fn generate(&self, sink: &mut impl FnMut(Move)) {
        self.generate_filtered::<false>(ALL_SQUARES, sink);
    }

    /// The moves of the pieces on `squares` (every move starts from a piece on the board).
    pub(crate) fn generate_from(&self, squares: Bitboard256, sink: &mut impl FnMut(Move)) {
        self.generate_filtered::<false>(squares, sink);
    }

    /// Every move of the pieces on `squares`, or with `CAPTURES` only those that remove an
    /// enemy piece (a capture at the destination or on the way, or a fire demon's burn).
    fn generate_filtered<const CAPTURES: bool>(
        &self,
        squares: Bitboard256,
        sink: &mut impl FnMut(Move),
    ) {
        if self.is_over() {
            return;
        }
        let us = self.side;
        let them = !us;
        let own = self.by_color[us.index()];
        let enemy = self.by_color[them.index()];
        let occupied = own | enemy;
        let enemy_demons = self.demons[them.index()];
        let mut burn_zone = Bitboard256::EMPTY;
        for d in enemy_demons.iter() {
            burn_zone |= self.book.neighbours[d];
        }
        let context = Context {
            us,
            own,
            enemy,
            enemy_demons,
            burn_zone,
            zone: self.book.zone[us.index()],
        };
        // Where a demon's move burns something: next to an enemy that is not a demon.
        let mut burn_targets = Bitboard256::EMPTY;
        if CAPTURES && !self.demons[us.index()].is_empty() {
            for e in (enemy & !enemy_demons).iter() {
                burn_targets |= self.book.neighbours[e];
            }
        }
        let tables = self.book.tables;
        for s in (own & squares).iter() {
            let role = role_of(self.board[s]);
            let mover = &self.book.movers[role.index()];
            let square = Square(s as u8);
            if CAPTURES
                && mover.lion == Lion::None
                && mover.area == 0
                && !mover.tetrarch
                && !mover.burns
                && (tables.empty_board_attacks(us, mover.plain, square) & enemy).is_empty()
            {
                // Nothing to capture even on an empty board; a range jump follows the same
                // lines as the slides it extends.
                continue;
            }
            let mut targets = tables.attacks_from(us, mover.plain, square, occupied) & !own;
            let mut pass = false;
            if let Some(jump) = mover.range_jump {
                targets |= self.range_jumps(s, us, jump);
            }
            if mover.area > 0 {
                let reach = self.area_reach(s, mover.area, occupied);
                targets |= reach & !own;
                pass |= reach.has(s);
            }
            match mover.lion {
                Lion::Full => {
                    targets |= self.book.lion_area[s] & !own;
                    pass = true;
                    for a in (self.book.neighbours[s] & enemy).iter() {
                        self.emit(&context, mover, s, Some(a), s, sink);
                        for t in (self.book.neighbours[a] & !own).iter() {
                            self.emit(&context, mover, s, Some(a), t, sink);
                        }
                    }
                }
                Lion::Line(dirs) => {
                    pass = true;
                    for index in 0..8u8 {
                        if dirs & (1 << index) == 0 {
                            continue;
                        }
                        let (dx, dy) = step(us, index);
                        let Some(first) = offset(s, dx, dy, 1) else {
                            continue;
                        };
                        let second = offset(s, dx, dy, 2).filter(|&t| !own.has(t));
                        if !own.has(first) {
                            targets |= Bitboard256::single(first);
                        }
                        if let Some(t) = second {
                            targets |= Bitboard256::single(t);
                        }
                        if enemy.has(first) {
                            self.emit(&context, mover, s, Some(first), s, sink);
                            if let Some(t) = second {
                                self.emit(&context, mover, s, Some(first), t, sink);
                            }
                        }
                    }
                }
                Lion::None | Lion::LionHawk => {}
            }
            if mover.tetrarch {
                for a in (self.book.neighbours[s] & enemy).iter() {
                    self.emit(&context, mover, s, Some(a), s, sink);
                }
                targets |= self.tetrarch_moves(s, own, occupied);
            }
            if CAPTURES {
                let wanted = if mover.burns {
                    enemy | burn_targets
                } else {
                    enemy
                };
                targets &= wanted;
                pass &= mover.burns && burn_targets.has(s);
            }
            for t in targets.iter() {
                self.emit(&context, mover, s, None, t, sink);
            }
            if pass {
                self.emit(&context, mover, s, None, s, sink);
            }
        }
    }

    /// Destinations beyond jumped pieces (the ordinary slide up to the first piece is part of
    /// the piece's Betza moves).
    fn range_jumps(&self, s: usize, us: Color, jump: RangeJump) -> Bitboard256 {
        let movers = &self.book.movers;
        let always = self.book.rules.range_jump == RangeJumpRule::Always;
        let mut targets = Bitboard256::EMPTY;
        for index in 0..8u8 {
            if jump.dirs & (1 << index) == 0 {
                continue;
            }
            let (dx, dy) = step(us, index);
            let mut jumped = false;
            let mut distance = 1;
            while let Some(q) = offset(s, dx, dy, distance) {
                distance += 1;
                let code = self.board[q];
                if code == 0 {
                    if jumped && always {
                        targets |= Bitboard256::single(q);
                    }
                    continue;
                }
                if movers[role_of(code).index()].rank >= jump.level {
                    break;
                }
                if jumped && color_of(code) != us {
                    targets |= Bitboard256::single(q);
                }
                jumped = true;
            }
        }
        targets
    }

    /// Squares an area move of up to `steps` king steps reaches: through empty squares (the
    /// start counts as empty once left), each step may end on any square, a capture ends it.
    /// Own pieces' squares are included and must be masked by the caller; the start square is
    /// included when the piece can step out and come back.
    fn area_reach(&self, s: usize, steps: u8, occupied: Bitboard256) -> Bitboard256 {
        let neighbours = &self.book.neighbours;
        let passable = !occupied | Bitboard256::single(s);
        let mut reach = neighbours[s];
        let mut frontier = reach & passable;
        for _ in 1..steps {
            let mut next = Bitboard256::EMPTY;
            for f in frontier.iter() {
                next |= neighbours[f];
            }
            reach |= next;
            frontier = next & passable;
        }
        reach
    }

    /// The heavenly tetrarch's moves other than igui.
    fn tetrarch_moves(&self, s: usize, own: Bitboard256, occupied: Bitboard256) -> Bitboard256 {
        let mut targets = Bitboard256::EMPTY;
        // Diagonals from the second square on, whatever stands on the first.
        for index in [1u8, 3, 5, 7] {
            let (dx, dy) = step(Color::Sente, index);
            let mut distance = 2;
            while let Some(q) = offset(s, dx, dy, distance) {
                distance += 1;
                if own.has(q) {
                    break;
                }
                targets |= Bitboard256::single(q);
                if occupied.has(q) {
                    break;
                }
            }
        }
        // Sideways two or three squares, past the first but not past the second.
        for index in [2u8, 6] {
            let (dx, dy) = step(Color::Sente, index);
            let Some(second) = offset(s, dx, dy, 2) else {
                continue;
            };
            if own.has(second) {
                continue;
            }
            targets |= Bitboard256::single(second);
            if occupied.has(second) {
                continue;
            }
            if let Some(third) = offset(s, dx, dy, 3)
                && !own.has(third)
            {
                targets |= Bitboard256::single(third);
            }
        }
        targets
    }

    /// Whether a lion-power move from `s` to `t` without a capture on the way can pass
    /// through an empty square of the zone.
    fn lion_path_touches_zone(&self, context: &Context, mover: &Mover, s: usize, t: usize) -> bool {
        let empty_zone = context.zone & !(context.own | context.enemy);
        match mover.lion {
            Lion::Full => {
                !(self.book.neighbours[s] & self.book.neighbours[t] & empty_zone).is_empty()
            }
            Lion::Line(dirs) if s == t => (0..8u8).any(|index| {
                let (dx, dy) = step(context.us, index);
                dirs & (1 << index) != 0
                    && offset(s, dx, dy, 1).is_some_and(|first| empty_zone.has(first))
            }),
            _ => false,
        }
    }

    /// Emits the move(s) of one effect: with and without promotion where that is a choice.
    #[inline]
    fn emit(
        &self,
        context: &Context,
        mover: &Mover,
        s: usize,
        middle: Option<usize>,
        t: usize,
        sink: &mut impl FnMut(Move),
    ) {
        let from = Square(s as u8);
        let to = Square(t as u8);
        let make = |promote: bool| match middle {
            Some(m) => Move::with_middle(from, Square(m as u8), to, promote),
            None => Move::normal(from, to, promote),
        };
        let captures_at_end = t != s && context.enemy.has(t);
        let captures = captures_at_end || middle.is_some();
        let burned = if !context.burn_zone.has(t) {
            false
        } else {
            let mut removed = Bitboard256::EMPTY;
            if captures_at_end {
                removed |= Bitboard256::single(t);
            }
            if let Some(m) = middle {
                removed |= Bitboard256::single(m);
            }
            if (removed & context.enemy_demons).is_empty() {
                true
            } else {
                !(self.book.neighbours[t] & context.enemy_demons & !removed).is_empty()
            }
        };
        if burned || mover.promotes_to.is_none() {
            sink(make(false));
            return;
        }
        if mover.forced[context.us.index()].has(t) {
            sink(make(true));
            return;
        }
        let zone = context.zone;
        let allowed = match self.book.rules.promotion {
            PromotionTiming::Deferred => {
                let touches = zone.has(s)
                    || zone.has(t)
                    || middle.is_some_and(|m| zone.has(m))
                    || (middle.is_none()
                        && mover.lion != Lion::None
                        && self.lion_path_touches_zone(context, mover, s, t));
                touches && (captures || !self.deferred.has(s))
            }
            PromotionTiming::Entry => {
                if captures {
                    zone.has(s) || zone.has(t)
                } else {
                    !zone.has(s) && zone.has(t)
                }
            }
        };
        if !allowed {
            sink(make(false));
            return;
        }
        sink(make(true));
        match self.book.rules.promotion {
            PromotionTiming::Deferred => sink(make(false).declining()),
            PromotionTiming::Entry => sink(make(false)),
        }
    }
}
