//! The move picker: hands the search a node's moves one at a time, best expected first, and
//! does as little work as it can before each, since a cutoff often comes after the first few.
//!
//! The main search's picker goes in stages: the transposition table's move is tried before any
//! move is generated (a cutoff by it, the common case at a cut node, saves generating the
//! node's moves, most of them drops in games with hands); then the rest are generated and
//! picked by their ordering score, read lazily:
//! - captures that win or hold the exchange, by victim and attacker, and promotions;
//! - the killer moves;
//! - quiet moves and drops by their history, read only once nothing above is left;
//! - captures that lose the exchange, last (tested only when the picker reaches them).
//!
//! The order is the one that every score read in full would give, so picking lazily changes
//! what is searched in no way, only when it is computed.

use tsubame_rules::Move;

/// Ordering score offset of a capture that wins or holds the exchange; one that loses it gets
/// the negative offset, so it sorts after every quiet move and quiescence can tell it by sign.
pub(crate) const CAPTURE_ORDER: i32 = 1_000_000;
/// Ordering score of the table's move, above every other.
pub(crate) const TABLE_MOVE_ORDER: i32 = 10_000_000;
/// Ordering score of a promotion that captures nothing.
pub(crate) const PROMOTION_ORDER: i32 = 500_000;
/// Ordering scores of the two killer moves.
pub(crate) const KILLER_ORDER: [i32; 2] = [400_000, 390_000];
/// No quiet move's history score reaches this in magnitude, so every move scored above it goes
/// before every quiet move.
pub(crate) const QUIET_ORDER_BOUND: i32 = 8 * crate::search::HISTORY_MAX;
/// Stands for a quiet move's score until its history is read: moves above
/// `QUIET_ORDER_BOUND` are tried first, and a cutoff among them saves reading the rest.
pub(crate) const QUIET_UNREAD: i32 = i32::MIN;

/// What the picker asks of the search about the node it picks for.
pub(crate) trait MoveOrdering {
    /// Appends the node's legal moves.
    fn generate(&self, moves: &mut Vec<Move>);
    /// The ordering score of a move as far as it is read before any move is picked: captures
    /// by victim and attacker (as if they held the exchange), promotions, killers, and
    /// `QUIET_UNREAD` for the other quiet moves.
    fn order_score(&self, mv: Move) -> i32;
    /// A quiet move's history, within `QUIET_ORDER_BOUND`.
    fn quiet_score(&self, mv: Move) -> i32;
    /// Whether the move is a capture that loses the exchange it starts.
    fn loses_exchange(&self, mv: Move) -> bool;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The table's move, not yet handed out.
    TableMove,
    /// Nothing generated yet.
    Generate,
    /// Picking from the generated moves.
    Ordered,
}

/// A node's moves, handed out one at a time by [`MovePicker::next`]. The picker borrows the
/// ply's move and score buffers and gives them back with [`MovePicker::into_buffers`], so that
/// no node allocates.
pub(crate) struct MovePicker {
    stage: Stage,
    table_move: Option<Move>,
    moves: Vec<Move>,
    scores: Vec<i32>,
    /// Where the next pick goes in `moves`: the moves before it have been handed out, in order.
    next: usize,
    /// Whether the quiet moves' history has been read into `scores`.
    quiets_read: bool,
}

impl MovePicker {
    /// A picker for the main search: `table_move`, when given, must be legal here (the search
    /// checks the table's move, which a stale or colliding entry may hold, before passing it).
    pub(crate) fn new(table_move: Option<Move>, mut moves: Vec<Move>, scores: Vec<i32>) -> Self {
        moves.clear();
        MovePicker {
            stage: if table_move.is_some() {
                Stage::TableMove
            } else {
                Stage::Generate
            },
            table_move,
            moves,
            scores,
            next: 0,
            quiets_read: false,
        }
    }

    /// A picker over moves the caller has generated (and filtered), with no table move: the
    /// moves of quiescence.
    pub(crate) fn generated(
        moves: Vec<Move>,
        mut scores: Vec<i32>,
        ordering: &impl MoveOrdering,
    ) -> Self {
        scores.clear();
        scores.extend(moves.iter().map(|&mv| ordering.order_score(mv)));
        MovePicker {
            stage: Stage::Ordered,
            table_move: None,
            moves,
            scores,
            next: 0,
            quiets_read: false,
        }
    }

    /// The next move, with its ordering score (below zero exactly for a capture that loses the
    /// exchange, or a quiet move with a poor history); `None` when every move has been handed
    /// out.
    pub(crate) fn next(&mut self, ordering: &impl MoveOrdering) -> Option<(Move, i32)> {
        match self.stage {
            Stage::TableMove => {
                self.stage = Stage::Generate;
                self.table_move.map(|mv| (mv, TABLE_MOVE_ORDER))
            }
            Stage::Generate => {
                self.generate(ordering);
                self.pick(ordering)
            }
            Stage::Ordered => self.pick(ordering),
        }
    }

    /// Whether the node has no legal move: generates its moves where the table gave none.
    pub(crate) fn is_empty(&mut self, ordering: &impl MoveOrdering) -> bool {
        if self.table_move.is_some() {
            return false;
        }
        if self.stage == Stage::Generate {
            self.generate(ordering);
        }
        self.moves.is_empty()
    }

    /// The moves handed out before the last one, in the order they were.
    pub(crate) fn earlier(&self) -> &[Move] {
        &self.moves[..self.next.saturating_sub(1).min(self.moves.len())]
    }

    /// The move and score buffers, to be kept for the next node at this ply.
    pub(crate) fn into_buffers(self) -> (Vec<Move>, Vec<i32>) {
        (self.moves, self.scores)
    }

    fn generate(&mut self, ordering: &impl MoveOrdering) {
        self.stage = Stage::Ordered;
        self.moves.clear();
        ordering.generate(&mut self.moves);
        self.scores.clear();
        self.scores
            .extend(self.moves.iter().map(|&mv| ordering.order_score(mv)));
        if let Some(table_move) = self.table_move {
            // Already handed out: it takes the first place, as if picked from the list.
            let at = self.moves.iter().position(|&mv| mv == table_move);
            debug_assert!(at.is_some(), "the table's move was checked to be legal");
            if let Some(at) = at {
                self.moves.swap(0, at);
                self.scores.swap(0, at);
                self.scores[0] = TABLE_MOVE_ORDER;
                self.next = 1;
            }
        }
    }

    /// Moves the best-scored move left to the next place and hands it out: a selection sort
    /// done lazily. The first of the best goes first, so the order is the one that every score
    /// read in full would give:
    /// - a capture about to be picked is tested for the exchange; one that loses it drops
    ///   below zero, after the quiet moves, and the pick is made again. Its score before the
    ///   test is its highest, so no move it goes ahead of would have gone ahead of it;
    /// - once no move above `QUIET_ORDER_BOUND` is left, the quiet moves' history is read.
    fn pick(&mut self, ordering: &impl MoveOrdering) -> Option<(Move, i32)> {
        let index = self.next;
        if index >= self.moves.len() {
            return None;
        }
        loop {
            let pick = first_best(&self.scores, index);
            let score = self.scores[pick];
            if !self.quiets_read && score <= QUIET_ORDER_BOUND {
                self.quiets_read = true;
                for (mv, score) in self.moves.iter().zip(self.scores.iter_mut()).skip(index) {
                    if *score == QUIET_UNREAD {
                        *score = ordering.quiet_score(*mv);
                        debug_assert!(score.abs() < QUIET_ORDER_BOUND);
                    }
                }
                continue;
            }
            let mv = self.moves[pick];
            // A capture not yet tested: above half the offset (a promotion adds less) and
            // below the table's move, which is never tested.
            if (CAPTURE_ORDER / 2..TABLE_MOVE_ORDER).contains(&score) && ordering.loses_exchange(mv)
            {
                self.scores[pick] = score - 2 * CAPTURE_ORDER;
                continue;
            }
            self.moves.swap(index, pick);
            self.scores.swap(index, pick);
            self.next = index + 1;
            return Some((mv, score));
        }
    }
}

/// Where the first of the best scores from `index` on stands: a maximum over the rest (which
/// the compiler vectorises), then where it first stands.
fn first_best(scores: &[i32], index: usize) -> usize {
    let rest = &scores[index..];
    let best = rest.iter().copied().max().unwrap_or(i32::MIN);
    index + rest.iter().position(|&s| s == best).unwrap_or(0)
}
