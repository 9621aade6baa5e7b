//! The move picker: hands the search a node's moves one at a time, best expected first, and
//! does as little work as it can before each, since a cutoff often comes after the first few.
//!
//! The main search's picker goes in stages, each generating or reading only what it needs, so
//! that a cutoff early in the order (the common case at a cut node) saves the rest:
//! - the transposition table's move, before any move is generated;
//! - the captures, generated alone, those that win or hold the exchange by victim and
//!   attacker (the exchange is tested only when a capture is about to be picked);
//! - then the quiet moves and drops are generated (most of a node's moves in games with
//!   hands): promotions, the killer moves and the counter-move to the move before, then the
//!   rest by their history, read only once nothing above is left;
//! - captures that lose the exchange, last.
//!
//! Within the generated moves the order is the one that every score read in full would give,
//! so picking lazily changes what is searched in no way, only when it is computed.

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
/// Ordering score of the counter-move: the quiet move that last refuted the move just played.
pub(crate) const COUNTER_ORDER: i32 = 380_000;
/// No quiet move's history score reaches this in magnitude, so every move scored above it goes
/// before every quiet move.
pub(crate) const QUIET_ORDER_BOUND: i32 = 8 * crate::history::HISTORY_MAX;
/// Stands for a quiet move's score until its history is read: moves above
/// `QUIET_ORDER_BOUND` are tried first, and a cutoff among them saves reading the rest.
pub(crate) const QUIET_UNREAD: i32 = i32::MIN;

/// What the picker asks of the search about the node it picks for.
pub(crate) trait MoveOrdering {
    /// Appends the node's legal captures.
    fn generate_captures(&self, moves: &mut Vec<Move>);
    /// Appends the node's other legal moves: with the captures, each legal move once.
    fn generate_quiets(&self, moves: &mut Vec<Move>);
    /// The ordering score of a move as far as it is read before any move is picked: captures
    /// by victim and attacker (as if they held the exchange), promotions, killers, the
    /// counter-move, and `QUIET_UNREAD` for the other quiet moves.
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
    /// The captures not yet generated.
    GenerateCaptures,
    /// Picking the captures that hold the exchange.
    GoodCaptures,
    /// The quiet moves not yet generated.
    GenerateQuiets,
    /// Picking from every move left.
    Rest,
}

/// A node's moves, handed out one at a time by [`MovePicker::next`]. The picker borrows the
/// ply's move and score buffers and gives them back with [`MovePicker::into_buffers`], so that
/// no node allocates.
pub(crate) struct MovePicker {
    stage: Stage,
    table_move: Option<Move>,
    /// The moves generated so far (the table's move first, where there is one); those before
    /// `next` have been handed out, in order.
    moves: Vec<Move>,
    scores: Vec<i32>,
    next: usize,
    /// Whether the quiet moves' history has been read into `scores`.
    quiets_read: bool,
}

impl MovePicker {
    /// A picker for the main search: `table_move`, when given, must be legal here (the search
    /// checks the table's move, which a stale or colliding entry may hold, before passing it).
    pub(crate) fn new(
        table_move: Option<Move>,
        mut moves: Vec<Move>,
        mut scores: Vec<i32>,
    ) -> Self {
        moves.clear();
        scores.clear();
        let stage = match table_move {
            Some(mv) => {
                moves.push(mv);
                scores.push(TABLE_MOVE_ORDER);
                Stage::TableMove
            }
            None => Stage::GenerateCaptures,
        };
        MovePicker {
            stage,
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
            stage: Stage::Rest,
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
        loop {
            match self.stage {
                Stage::TableMove => {
                    self.stage = Stage::GenerateCaptures;
                    self.next = 1;
                    return self.table_move.map(|mv| (mv, TABLE_MOVE_ORDER));
                }
                Stage::GenerateCaptures => {
                    self.append(ordering, |ordering, moves| {
                        ordering.generate_captures(moves)
                    });
                    self.stage = Stage::GoodCaptures;
                }
                Stage::GoodCaptures => match self.pick(ordering, true) {
                    Some(picked) => return Some(picked),
                    None => self.stage = Stage::GenerateQuiets,
                },
                Stage::GenerateQuiets => {
                    self.append(ordering, |ordering, moves| ordering.generate_quiets(moves));
                    self.stage = Stage::Rest;
                }
                Stage::Rest => return self.pick(ordering, false),
            }
        }
    }

    /// The moves handed out before the last one, in the order they were.
    pub(crate) fn earlier(&self) -> &[Move] {
        &self.moves[..self.next.saturating_sub(1).min(self.moves.len())]
    }

    /// The move and score buffers, to be kept for the next node at this ply.
    pub(crate) fn into_buffers(self) -> (Vec<Move>, Vec<i32>) {
        (self.moves, self.scores)
    }

    /// Appends what `generate` gives, less the table's move (already handed out), scored.
    fn append<O: MoveOrdering>(&mut self, ordering: &O, generate: impl Fn(&O, &mut Vec<Move>)) {
        let start = self.moves.len();
        generate(ordering, &mut self.moves);
        if let Some(table_move) = self.table_move
            && let Some(at) = self.moves[start..].iter().position(|&mv| mv == table_move)
        {
            self.moves.remove(start + at);
        }
        self.scores.extend(
            self.moves[start..]
                .iter()
                .map(|&mv| ordering.order_score(mv)),
        );
    }

    /// Moves the best-scored move left to the next place and hands it out (with
    /// `good_captures`, only a capture that holds the exchange): a selection sort done lazily. The first of the best goes first, so the
    /// order is the one that every score read in full would give:
    /// - a capture about to be picked is tested for the exchange; one that loses it drops
    ///   below zero, after the quiet moves, and the pick is made again. Its score before the
    ///   test is its highest, so no move it goes ahead of would have gone ahead of it;
    /// - once no move above `QUIET_ORDER_BOUND` is left, the quiet moves' history is read.
    fn pick(&mut self, ordering: &impl MoveOrdering, good_captures: bool) -> Option<(Move, i32)> {
        let index = self.next;
        if index >= self.moves.len() {
            return None;
        }
        loop {
            let pick = first_best(&self.scores, index);
            let score = self.scores[pick];
            if good_captures && score <= QUIET_ORDER_BOUND {
                return None;
            }
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
