//! Alpha-beta search: iterative deepening with aspiration windows, principal variation search,
//! a shared transposition table, quiescence on captures, null-move, futility, late-move and
//! exchange pruning, late-move reductions, internal iterative reduction, check and singular
//! extensions, move ordering by the exchange, killers, history and continuation history, and
//! each game's own rules for mates, stalemates, mating drops and repetitions. Several threads
//! share the table (lazy SMP).

use crate::clock::Instant;
use crate::eval::EvalParams;
use crate::game::SearchPosition;
use crate::history::{self, HISTORY_MAX};
use crate::limits::{Budget, Limits};
use crate::movepick::{
    CAPTURE_ORDER, COUNTER_ORDER, KILLER_ORDER, MoveOrdering, MovePicker, PROMOTION_ORDER,
    QUIET_UNREAD,
};
use crate::nnue::{Accumulator, AccumulatorStack, Network};
use crate::search_params::SearchParams;
use crate::tt::{Bound, Entry, TranspositionTable};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tsubame_rules::tenjiku::TenjikuPosition;
use tsubame_rules::{AnyPosition, Bitboard, Move, Position, PositionVisitor, RepetitionRule, Role};

/// The score of being mated now; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this are mates.
pub const MATE_BOUND: i32 = MATE - 1_000;
const INFINITY: i32 = 31_000;
/// A repetition that the rules decide: not a mate, but as good as won or lost.
const DECIDED: i32 = 5_000;
/// Deepest ply the search reaches, quiescence included.
pub const MAX_PLY: usize = 128;
/// Continuation history (a quiet move's record after a given move one and two plies earlier)
/// is kept when its table, the square of the history size, has at most this many entries: in
/// Tori, not in the big boards, where it would take hundreds of megabytes per thread.
const CONTINUATION_ENTRIES_MAX: usize = 1 << 22;
/// Entries of each correction history table per side to move (a power of two).
const CORRECTION_ENTRIES: usize = 1 << 14;
/// Bound of a correction history entry.
const CORRECTION_LIMIT: i32 = 1024;
/// A search score as reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns for the side to move.
    Centipawns(i32),
    /// Mate in this many plies; negative when the side to move is mated.
    Mate(i32),
}

impl Score {
    fn from_internal(value: i32) -> Score {
        if value >= MATE_BOUND {
            Score::Mate(MATE - value)
        } else if value <= -MATE_BOUND {
            Score::Mate(-(MATE + value))
        } else {
            Score::Centipawns(value)
        }
    }
}

/// Progress of a search, reported after each iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// Completed depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Score of the best move.
    pub score: Score,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// Per mille of the table written in this search.
    pub hashfull: u32,
    /// Which of the best lines this is, 1 for the best (MultiPV).
    pub multipv: u32,
}

impl Info {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let ms = self.time.as_millis().max(1) as u64;
        self.nodes.saturating_mul(1000) / ms
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The move to play; `None` when the side to move has no legal move.
    pub best: Option<Move>,
    /// The expected reply, for pondering.
    pub ponder: Option<Move>,
    /// The last completed iteration's report.
    pub info: Info,
    /// With [`Limits::lines`] above one, the best lines found, best first (the first is
    /// `info`); otherwise `info` alone.
    pub lines: Vec<Info>,
}

/// State shared by the threads of one search.
struct Shared<'a> {
    /// The margins, thresholds and reductions.
    search: &'a SearchParams,
    tt: Arc<TranspositionTable>,
    stop: Arc<AtomicBool>,
    nodes: AtomicU64,
    start: Instant,
    budget: Option<Budget>,
    node_limit: Option<u64>,
    /// Nodes between checks of the clock and the node budget, less one (a power of two less
    /// one): 1023, or fewer when a small node budget must be kept closely.
    check_mask: u64,
    /// Whether the first iteration is complete, every line asked for included: with several
    /// lines (MultiPV) the node budget stops the search only after it, so that even a budget
    /// of a few hundred nodes gives a weak level whole lines of depth 1 to choose among.
    first_iteration_done: AtomicBool,
}

/// The check interval of a search with this node budget, as a mask: every 1024 nodes, or every
/// 16 under a budget so small that 1024 would overrun it many times (the weak levels' budgets
/// are a few hundred nodes).
fn check_mask(node_limit: Option<u64>) -> u64 {
    match node_limit {
        Some(limit) if limit < 16_384 => 15,
        _ => 1023,
    }
}

/// What the searches of one game learn about move order and about the evaluation's errors,
/// kept from one search to the next: each thread's move history, counter-moves, continuation
/// history and correction history. Whoever plays a game keeps one beside its transposition
/// table and clears it with the table for a new game; a search takes it up only when
/// [`SearchParams::history_carry`] is above zero, and then keeps that share of each entry.
///
/// ```
/// use std::sync::Arc;
/// use tsubame_engine::eval::EvalParams;
/// use tsubame_engine::limits::Limits;
/// use tsubame_engine::search::{SearchMemory, SearchRequest, search};
/// use tsubame_engine::search_params::SearchParams;
/// use tsubame_engine::tt::TranspositionTable;
/// use tsubame_rules::{Game, tori};
///
/// let game = Game::new(tori::tables(), tsubame_rules::Options::defaults(tori::spec())).unwrap();
/// let limits = Limits { nodes: Some(2000), ..Limits::default() };
/// let eval = EvalParams::for_variant(tori::spec());
/// let carry: SearchParams = "history_carry=100".parse().unwrap();
/// let memory = Arc::new(SearchMemory::default());
/// let mut request = SearchRequest::new(game.position(), &limits, &eval, Arc::new(TranspositionTable::new(1)));
/// request.search = Some(&carry);
/// request.memory = Some(memory.clone());
/// search(request, &mut |_| {});
/// assert!(!memory.is_empty());
/// memory.clear();
/// assert!(memory.is_empty());
/// ```
#[derive(Default)]
pub struct SearchMemory {
    threads: Mutex<Vec<Histories>>,
}

impl SearchMemory {
    /// Forgets everything: for a new game.
    pub fn clear(&self) {
        self.slots().clear();
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.slots().is_empty()
    }

    /// The threads' tables; a thread that panicked while holding them left nothing broken
    /// (they are plain numbers), so a poisoned lock is taken over.
    fn slots(&self) -> std::sync::MutexGuard<'_, Vec<Histories>> {
        self.threads
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The kept tables of every thread, leaving none.
    fn take(&self) -> Vec<Histories> {
        std::mem::take(&mut *self.slots())
    }

    /// Keeps the tables of a search's threads, the main thread's first.
    fn keep(&self, threads: Vec<Histories>) {
        *self.slots() = threads;
    }
}

/// One thread's learned tables (see [`SearchMemory`]).
#[derive(Default)]
struct Histories {
    history: Vec<i32>,
    counter_moves: Vec<Option<Move>>,
    continuation: Vec<i16>,
    correction: Vec<i16>,
}

impl Histories {
    /// `percent` of each entry, rounded towards zero; counter-moves are kept whole.
    fn scale(&mut self, percent: i32) {
        if percent >= 100 {
            return;
        }
        for entry in &mut self.history {
            *entry = *entry * percent / 100;
        }
        for entry in self.continuation.iter_mut().chain(&mut self.correction) {
            *entry = (i32::from(*entry) * percent / 100) as i16;
        }
    }
}

/// One thread's search.
struct Worker<'a, P: SearchPosition> {
    shared: &'a Shared<'a>,
    params: &'a EvalParams,
    position: P,
    /// Keys of every position from the game's start to the current node.
    keys: Vec<u64>,
    /// Whether the side to move was in check in each of those positions.
    checks: Vec<bool>,
    nodes: u64,
    seldepth: usize,
    killers: Vec<[Option<Move>; 2]>,
    history: Vec<i32>,
    /// Continuation history: entry `previous * history size + move`, both history slots;
    /// empty where the game's table would be too large.
    continuation: Vec<i16>,
    /// The quiet move that last refuted each move (by its history slot): the counter-move.
    counter_moves: Vec<Option<Move>>,
    /// History slot of the move that led to each position in `keys` (`None` for a null move
    /// and for the game's moves before the root).
    played: Vec<Option<u32>>,
    /// Static evaluation at each ply of the current line (`-INFINITY` when in check).
    static_evals: Vec<i32>,
    /// Correction history: by how much the search's results have lately differed from the
    /// static evaluation, by side to move and by each of the position's correction keys
    /// ([`SearchPosition::correction_keys`]), the pawns' table before the hands'.
    correction: Vec<i16>,
    /// Score of the root's best move so far in the current iteration.
    root_score: i32,
    /// Root moves left out of the current search: the first moves of the better lines already
    /// found in this iteration (MultiPV).
    root_excluded: Vec<Move>,
    /// Root moves that are no moves of the game, never searched: where repeating any earlier
    /// position is illegal, those that would (the search below the root sees repetitions two
    /// moves apart only).
    root_forbidden: Vec<Move>,
    /// The move left out at each ply while the search tests whether it is the only good move
    /// there (singular extension).
    singular_excluded: Vec<Option<Move>>,
    /// The best lines of the last iteration, best first.
    lines: Vec<Info>,
    move_lists: Vec<Vec<Move>>,
    /// The ordering scores of each ply's moves, kept so that no node allocates.
    score_lists: Vec<Vec<i32>>,
    pv: Vec<Vec<Move>>,
    lmr: Vec<Vec<i32>>,
    main: bool,
    /// The network that evaluates, when the parameters carry one for this game.
    network: Option<&'a Network>,
    /// The network's accumulators along the current line (empty without a network).
    accumulators: Option<AccumulatorStack>,
    /// Whether the mop-up terms are added to the network's evaluation
    /// ([`EvalParams::network_mop_up`]); read only where `network` evaluates.
    network_mop_up: bool,
}

fn lmr_table(search: &SearchParams) -> Vec<Vec<i32>> {
    let base = f64::from(search.lmr_base) / 100.0;
    let divisor = f64::from(search.lmr_divisor) / 100.0;
    (0..64)
        .map(|depth| {
            (0..64)
                .map(|moves| {
                    if depth == 0 || moves == 0 {
                        0
                    } else {
                        (base + (depth as f64).ln() * (moves as f64).ln() / divisor) as i32
                    }
                })
                .collect()
        })
        .collect()
}

fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The score a table entry settles for a window, if its bound does.
fn table_cutoff(entry: &Entry, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let score = score_from_tt(entry.score, ply);
    let settled = match entry.bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    };
    settled.then_some(score)
}

/// The move ordering of one node: the worker's records read at that node's ply.
struct NodeOrdering<'w, 'a, P: SearchPosition> {
    worker: &'w Worker<'a, P>,
    ply: usize,
}

impl<P: SearchPosition> MoveOrdering for NodeOrdering<'_, '_, P> {
    fn generate_captures(&self, moves: &mut Vec<Move>) {
        self.worker.position.generate_captures(moves);
    }

    fn generate_quiets(&self, moves: &mut Vec<Move>) {
        self.worker.position.generate_quiets(moves);
    }

    /// Captures by victim and attacker, promotions, killers, the counter-move; the exchange
    /// and a quiet move's history are read only when the picker comes to them.
    fn order_score(&self, mv: Move) -> i32 {
        let worker = self.worker;
        let mut score = 0;
        if let Some(mover) = worker.position.mover(mv) {
            let attacker = worker.piece_value(mover);
            if worker.is_capture(mv) {
                score +=
                    CAPTURE_ORDER + worker.position.gain(mv, worker.params) * 16 - attacker / 8;
            }
            if mv.is_promotion() {
                score += PROMOTION_ORDER;
            }
        }
        if score != 0 {
            return score;
        }
        let killers = worker.killers[self.ply];
        if killers[0] == Some(mv) {
            return KILLER_ORDER[0];
        }
        if killers[1] == Some(mv) {
            return KILLER_ORDER[1];
        }
        if worker.counter_move() == Some(mv) {
            return COUNTER_ORDER;
        }
        QUIET_UNREAD
    }

    fn quiet_score(&self, mv: Move) -> i32 {
        self.worker.quiet_score(self.worker.history_index(mv))
    }

    fn loses_exchange(&self, mv: Move) -> bool {
        let worker = self.worker;
        worker.is_capture(mv) && !worker.position.exchange_at_least(mv, 0, worker.params)
    }
}

impl<'a, P: SearchPosition> Worker<'a, P> {
    fn new(
        shared: &'a Shared<'a>,
        params: &'a EvalParams,
        position: P,
        history_keys: &[u64],
        history_checks: &[bool],
        main: bool,
    ) -> Self {
        let mut keys = history_keys.to_vec();
        let mut checks = history_checks.to_vec();
        keys.push(position.key());
        checks.push(position.in_check());
        let played = vec![None; keys.len()];
        let history_size = position.history_size();
        let continuation_size = history_size.saturating_mul(history_size);
        let continuation = if continuation_size <= CONTINUATION_ENTRIES_MAX {
            vec![0; continuation_size]
        } else {
            Vec::new()
        };
        let network = params
            .network
            .as_deref()
            .filter(|n| position.network_layout() == Some(n.layout()));
        let accumulators = network.map(|network| {
            let mut root = Accumulator::default();
            position.refresh_accumulator(network, &mut root);
            AccumulatorStack::new(root, MAX_PLY + 4)
        });
        Worker {
            shared,
            params,
            network,
            accumulators,
            network_mop_up: params.network_mop_up(),
            keys,
            checks,
            nodes: 0,
            seldepth: 0,
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; history_size],
            counter_moves: vec![None; history_size],
            continuation,
            played,
            static_evals: vec![0; MAX_PLY + 2],
            correction: vec![0; 2 * 2 * CORRECTION_ENTRIES],
            root_score: 0,
            root_excluded: Vec::new(),
            root_forbidden: Vec::new(),
            singular_excluded: vec![None; MAX_PLY + 1],
            lines: Vec::new(),
            move_lists: (0..=MAX_PLY).map(|_| Vec::with_capacity(256)).collect(),
            score_lists: (0..=MAX_PLY).map(|_| Vec::with_capacity(256)).collect(),
            pv: (0..=MAX_PLY).map(|_| Vec::with_capacity(32)).collect(),
            lmr: lmr_table(shared.search),
            position,
            main,
        }
    }

    fn stopped(&self) -> bool {
        self.shared.stop.load(Ordering::Relaxed)
    }

    /// Takes up the tables an earlier search of the game left, scaled to `percent`, where
    /// they are this game's (of the same sizes).
    fn adopt(&mut self, mut kept: Histories, percent: i32) {
        if kept.history.len() != self.history.len()
            || kept.counter_moves.len() != self.counter_moves.len()
            || kept.continuation.len() != self.continuation.len()
            || kept.correction.len() != self.correction.len()
        {
            return;
        }
        kept.scale(percent);
        self.history = kept.history;
        self.counter_moves = kept.counter_moves;
        self.continuation = kept.continuation;
        self.correction = kept.correction;
    }

    /// The tables this search learned, for the next search of the game.
    fn into_histories(self) -> Histories {
        Histories {
            history: self.history,
            counter_moves: self.counter_moves,
            continuation: self.continuation,
            correction: self.correction,
        }
    }

    /// Counts a node, and every so often checks the clock and the node budget.
    fn count_node(&mut self) {
        self.nodes += 1;
        let mask = self.shared.check_mask;
        if self.nodes & mask == 0 {
            let total = self.shared.nodes.fetch_add(mask + 1, Ordering::Relaxed) + mask + 1;
            let out_of_nodes = self.shared.node_limit.is_some_and(|limit| total >= limit)
                && self.shared.first_iteration_done.load(Ordering::Relaxed);
            let out_of_time = self
                .shared
                .budget
                .is_some_and(|b| self.shared.start.elapsed() >= b.hard);
            if out_of_nodes || out_of_time {
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    /// The counter-move to the move that led to the current position, if it has one. The moves
    /// played are known by their history slots only where continuation history is kept (Tori),
    /// so only there does a counter-move exist.
    fn counter_move(&self) -> Option<Move> {
        let before = (*self.played.last()?)?;
        self.counter_moves.get(before as usize).copied().flatten()
    }

    /// The move ordering of the node at `ply`.
    fn ordering(&self, ply: usize) -> NodeOrdering<'_, 'a, P> {
        NodeOrdering { worker: self, ply }
    }

    fn history_index(&self, mv: Move) -> usize {
        self.position.history_index(mv) % self.history.len().max(1)
    }

    fn is_capture(&self, mv: Move) -> bool {
        self.position.is_capture(mv)
    }

    fn piece_value(&self, role: Role) -> i32 {
        self.params.value(role)
    }

    /// The slots in the continuation table of a move with history slot `slot` after the moves
    /// one and two plies back.
    fn continuation_slots(&self, slot: usize) -> [Option<usize>; 2] {
        let size = self.history.len();
        if self.continuation.is_empty() {
            return [None, None];
        }
        let n = self.played.len();
        let back = |plies: usize| {
            n.checked_sub(plies)
                .and_then(|i| self.played[i])
                .map(|previous| previous as usize * size + slot)
        };
        [back(1), back(2)]
    }

    /// How well a quiet move with history slot `slot` did before: its own history plus its
    /// continuation histories.
    fn quiet_score(&self, slot: usize) -> i32 {
        let mut score = self.history[slot];
        for index in self.continuation_slots(slot).into_iter().flatten() {
            score += i32::from(self.continuation[index]);
        }
        score
    }

    /// Rewards a quiet move that caused a cutoff and penalises the quiet moves tried before it.
    fn update_quiet_history(&mut self, best: Move, tried: &[Move], depth: i32) {
        let bonus = (150 * depth).min(1500);
        let best_slot = self.history_index(best);
        self.add_history(best_slot, bonus);
        for &other in tried {
            if !self.is_capture(other) && !other.is_promotion() {
                let slot = self.history_index(other);
                self.add_history(slot, -bonus);
            }
        }
    }

    fn add_history(&mut self, slot: usize, bonus: i32) {
        let entry = &mut self.history[slot];
        *entry = history::updated(*entry, bonus);
        for index in self.continuation_slots(slot).into_iter().flatten() {
            let entry = &mut self.continuation[index];
            *entry = history::updated(i32::from(*entry), bonus) as i16;
        }
    }

    fn repetition_score(&self) -> Option<i32> {
        let n = self.keys.len() - 1;
        let key = self.keys[n];
        let mut i = n.checked_sub(4)?;
        loop {
            if self.keys[i] == key {
                // Moves of the side to move led to positions n-1, n-3, ...; the opponent's to
                // n, n-2, ... A move gave check when the position it led to is in check.
                let ours_all_checked = (i + 1..n).rev().step_by(2).all(|k| self.checks[k]);
                let theirs_all_checked = (i + 2..=n).rev().step_by(2).all(|k| self.checks[k]);
                let rule = self.position.repetition();
                return Some(if theirs_all_checked {
                    DECIDED
                } else if ours_all_checked {
                    -DECIDED
                } else {
                    match rule {
                        RepetitionRule::MoverLoses | RepetitionRule::Illegal => DECIDED,
                        RepetitionRule::NoContest => 0,
                    }
                });
            }
            if i < 2 {
                return None;
            }
            i -= 2;
        }
    }

    /// Score when the side to move has no legal move.
    fn no_move_score(&self, in_check: bool, previous: Option<Move>, ply: usize) -> i32 {
        let mated = -(MATE - ply as i32);
        if self.position.no_move_wins(in_check, previous) {
            -mated
        } else {
            mated
        }
    }

    fn make(&mut self, mv: Move) -> P::Undo {
        self.make_with_check(mv, None)
    }

    /// Makes a move whose check the caller may already have read (`known_check`), so that it
    /// is not read twice.
    fn make_with_check(&mut self, mv: Move, known_check: Option<bool>) -> P::Undo {
        let slot = if self.continuation.is_empty() {
            None
        } else {
            Some(self.history_index(mv) as u32)
        };
        // Read before the move, for less than finding every attacker after it.
        let known_check = known_check.or_else(|| self.position.check_before_move(mv));
        let undo = match (self.network, self.accumulators.as_mut()) {
            (Some(network), Some(accumulators)) => {
                let touch = self.position.network_touch(network, mv);
                let undo = self.position.make_move(mv);
                let changes = touch
                    .map(|t| self.position.network_changes(&t, network))
                    .unwrap_or_default();
                let position = &self.position;
                accumulators.push(changes, |perspective, values| {
                    position.refresh_perspective(network, perspective, values)
                });
                undo
            }
            _ => self.position.make_move(mv),
        };
        self.keys.push(self.position.key());
        self.checks
            .push(known_check.unwrap_or_else(|| self.position.in_check()));
        self.played.push(slot);
        undo
    }

    fn unmake(&mut self, mv: Move, undo: P::Undo) {
        if let Some(accumulators) = self.accumulators.as_mut() {
            accumulators.pop();
        }
        self.keys.pop();
        self.checks.pop();
        self.played.pop();
        self.position.unmake_move(mv, undo);
    }

    fn has_pieces_to_move(&self) -> bool {
        self.position.has_pieces_to_move()
    }

    /// The static evaluation for the side to move: the network's when one evaluates.
    #[inline]
    fn evaluate(&mut self) -> i32 {
        match (self.network, self.accumulators.as_mut()) {
            (Some(network), Some(accumulators)) => {
                let bucket = if network.buckets() > 1 {
                    network.bucket(self.position.pieces_in_hand())
                } else {
                    0
                };
                let us = self.position.side_to_move();
                let value = network.output(accumulators.current(network), us, bucket);
                if self.network_mop_up && value.abs() >= self.params.mop_up_margin {
                    let ahead = if value > 0 { us } else { !us };
                    let bonus = self.position.mop_up(self.params, ahead);
                    if ahead == us {
                        value + bonus
                    } else {
                        value - bonus
                    }
                } else {
                    value
                }
            }
            _ => self.position.evaluate(self.params),
        }
    }

    /// The correction history slots of the current position, where the game has correction
    /// keys and the correction is on.
    fn correction_slots(&self) -> Option<[usize; 2]> {
        if self.shared.search.correction_weight == 0 {
            return None;
        }
        let [pawns, hands] = self.position.correction_keys()?;
        let side = self.position.side_to_move().index() * 2;
        let slot = |table: usize, key: u64| {
            (side + table) * CORRECTION_ENTRIES + (key as usize & (CORRECTION_ENTRIES - 1))
        };
        Some([slot(0, pawns), slot(1, hands)])
    }

    /// A static evaluation moved by the correction history at `slots`.
    fn corrected(&self, evaluation: i32, slots: [usize; 2]) -> i32 {
        let sum: i32 = slots
            .iter()
            .map(|&slot| {
                self.correction
                    .get(slot)
                    .map_or(0, |&entry| i32::from(entry))
            })
            .sum();
        let correction = sum * self.shared.search.correction_weight / 65_536;
        (evaluation + correction).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Moves the correction history at `slots` towards the search's result `best` where it
    /// says more than the static evaluation did: exact results and bounds on the side the
    /// evaluation missed, of nodes whose best move is no capture (a capture's gain is the
    /// quiescence search's to see, not the evaluation's).
    fn update_correction(
        &mut self,
        slots: [usize; 2],
        static_eval: i32,
        best: i32,
        best_move: Option<Move>,
        beta: i32,
        depth: i32,
    ) {
        if best_move.is_some_and(|mv| self.is_capture(mv))
            || best.abs() >= MATE_BOUND
            || (best >= beta && best <= static_eval)
            || (best_move.is_none() && best >= static_eval)
        {
            return;
        }
        let bonus =
            ((best - static_eval) * depth / 8).clamp(-CORRECTION_LIMIT / 4, CORRECTION_LIMIT / 4);
        for slot in slots {
            if let Some(entry) = self.correction.get_mut(slot) {
                let value = i32::from(*entry);
                let moved = value + bonus - value * bonus.abs() / CORRECTION_LIMIT;
                *entry = moved.clamp(-CORRECTION_LIMIT, CORRECTION_LIMIT) as i16;
            }
        }
    }

    fn search(
        &mut self,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        previous: Option<Move>,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        self.pv[ply].clear();
        if self.position.lost() {
            return -(MATE - ply as i32);
        }
        if ply > 0 {
            if let Some(score) = self.repetition_score() {
                return score;
            }
            alpha = alpha.max(-(MATE - ply as i32));
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        // Worked out when the move leading here was made.
        let in_check = self
            .checks
            .last()
            .copied()
            .unwrap_or_else(|| self.position.in_check());
        if depth <= 0 && !in_check {
            return self.quiescence(alpha, beta, ply, previous, 0);
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }
        self.count_node();
        if self.stopped() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let mut depth = depth.max(1);

        let key = self.position.key();
        let entry = self.shared.tt.probe(key);
        // A stale or colliding entry may hold a move that is not legal here: the move picker is
        // given it only once `is_legal` says it is.
        let tt_move = entry.and_then(|e| e.mv);
        // Set while this node is searched without its table move, to test that move for the
        // singular extension: the table's result is then not this search's.
        let excluded = self.singular_excluded[ply];
        if let Some(e) = entry
            && !pv_node
            && ply > 0
            && e.depth >= depth
            && excluded.is_none()
            && let Some(score) = table_cutoff(&e, ply, alpha, beta)
        {
            return score;
        }

        let correction = if in_check {
            None
        } else {
            self.correction_slots()
        };
        let static_eval = if in_check {
            -INFINITY
        } else {
            let evaluation = self.evaluate();
            correction.map_or(evaluation, |slots| self.corrected(evaluation, slots))
        };
        self.static_evals[ply] = static_eval;
        // Better than two plies ago: pruning may then be bolder, since the line is going well.
        let improving = !in_check
            && (ply < 2 || {
                let before = self.static_evals[ply - 2];
                before == -INFINITY || static_eval > before
            });
        let search = self.shared.search;
        if !pv_node && !in_check && ply > 0 && excluded.is_none() {
            // The position is good enough without searching it: reverse futility.
            let margin = search.reverse_futility_margin * (depth - i32::from(improving));
            if depth <= search.reverse_futility_depth
                && static_eval - margin >= beta
                && beta.abs() < MATE_BOUND
            {
                return static_eval;
            }
            // Null move: give the opponent a free move; still above beta means a cut.
            if depth >= search.null_move_depth
                && static_eval >= beta
                && previous.is_some()
                && self.has_pieces_to_move()
            {
                let reduction = search.null_move_reduction + depth / search.null_move_depth_divisor;
                // Passing changes no input, so the accumulators stay as they are.
                self.position.make_null_move();
                self.keys.push(self.position.key());
                self.checks.push(false);
                self.played.push(None);
                let score = -self.search(depth - 1 - reduction, -beta, -beta + 1, ply + 1, None);
                self.keys.pop();
                self.checks.pop();
                self.played.pop();
                self.position.unmake_null_move();
                if self.stopped() {
                    return 0;
                }
                if score >= beta {
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
        }

        // With no move from the table, a deep search here is poorly ordered: search it a ply
        // shallower (internal iterative reduction); the next visit has a table move.
        if depth >= search.iir_depth && tt_move.is_none() {
            depth -= 1;
        }

        // Singular extension: when every other move falls well short of the table's score, the
        // table's move is the only good one here and is searched a ply deeper.
        let mut singular = None;
        if let (Some(e), Some(mv)) = (entry, tt_move)
            && ply > 0
            && depth >= search.singular_depth
            && excluded.is_none()
            && e.depth >= depth - 3
            && e.bound != Bound::Upper
            && e.score.abs() < MATE_BOUND
        {
            let singular_beta = score_from_tt(e.score, ply) - search.singular_margin * depth;
            self.singular_excluded[ply] = Some(mv);
            let score = self.search(
                (depth - 1) / 2,
                singular_beta - 1,
                singular_beta,
                ply,
                previous,
            );
            self.singular_excluded[ply] = None;
            if self.stopped() {
                return 0;
            }
            if score < singular_beta {
                singular = Some(mv);
            } else if singular_beta >= beta {
                // Another move also clears beta: two moves do, so this node is a cut.
                return singular_beta;
            }
        }

        // The table's move is tried before any move is generated; a stale or colliding entry
        // may hold one that is not legal here, which is then left out.
        let table_move = tt_move.filter(|&mv| self.position.is_legal(mv));
        let mut picker = MovePicker::new(
            table_move,
            std::mem::take(&mut self.move_lists[ply]),
            std::mem::take(&mut self.score_lists[ply]),
        );

        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut picked = 0;
        while let Some((mv, _)) = picker.next(&self.ordering(ply)) {
            // Where the move stands in the order (the table's move first).
            let index = picked;
            picked += 1;
            if (ply == 0 && (self.root_excluded.contains(&mv) || self.root_forbidden.contains(&mv)))
                || excluded == Some(mv)
            {
                continue;
            }
            let quiet = !self.is_capture(mv) && !mv.is_promotion();
            // Read before the move is made (it depends on the moves leading here), and only
            // where a late-move reduction may use it.
            let may_reduce = depth >= search.lmr_depth
                && index >= search.lmr_first_move as usize
                && quiet
                && !in_check;
            let quiet_record = if may_reduce {
                self.quiet_score(self.history_index(mv))
            } else {
                0
            };
            // Shallow quiet moves late in the order, or that cannot lift a poor position to
            // alpha, are not searched unless they give check (late-move and futility pruning).
            // Drops make up most moves in games with hands, and most of them are such moves.
            let prunable = depth <= search.late_move_depth
                && index > 0
                && quiet
                && !pv_node
                && !in_check
                && best > -MATE_BOUND
                && {
                    let late_from = if improving {
                        search.late_move_improving_base
                            + search.late_move_improving_scale * depth * depth
                    } else {
                        search.late_move_base + search.late_move_scale * depth * depth
                    };
                    let late = index >= late_from as usize;
                    let futile = depth <= search.futility_depth
                        && static_eval + search.futility_margin * depth + search.futility_base
                            <= alpha;
                    late || futile
                }
                || self.shallow_prunable(mv, quiet, depth, index, pv_node, in_check, best);
            // A move's check is read without playing it, so a pruned move is never made.
            let known_check = if prunable {
                self.position.check_before_move(mv)
            } else {
                None
            };
            if known_check == Some(false) {
                continue;
            }
            let mut undo = self.make_with_check(mv, known_check);
            // Worked out by `make`.
            let gives_check = self.checks.last().copied().unwrap_or(false);
            if prunable && !gives_check {
                self.unmake(mv, undo);
                continue;
            }
            // A check that hands its piece over (most checking drops next to the royal piece)
            // is not extended: the reply takes it, and the search finds that at the usual depth.
            // The exchange is read in the position before the move, so a check is taken back
            // for it: few moves check, and reading it for every move cost a fifth of the search.
            let keeps_exchange = gives_check && {
                self.unmake(mv, undo);
                let keeps = self.position.exchange_at_least(mv, 0, self.params);
                undo = self.make_with_check(mv, Some(true));
                keeps
            };
            let extend = ((gives_check && keeps_exchange) || singular == Some(mv))
                && ply < 2 * depth as usize + 8;
            let new_depth = depth - 1 + i32::from(extend);
            let score = if index == 0 {
                -self.search(new_depth, -beta, -alpha, ply + 1, Some(mv))
            } else {
                let reduction = if may_reduce && !gives_check {
                    let r = self.lmr[(depth as usize).min(63)][index.min(63)];
                    (r - i32::from(pv_node) + i32::from(!improving) - quiet_record / HISTORY_MAX)
                        .clamp(0, depth - 2)
                } else {
                    0
                };
                let mut score =
                    -self.search(new_depth - reduction, -alpha - 1, -alpha, ply + 1, Some(mv));
                if score > alpha && reduction > 0 {
                    score = -self.search(new_depth, -alpha - 1, -alpha, ply + 1, Some(mv));
                }
                if score > alpha && score < beta {
                    score = -self.search(new_depth, -beta, -alpha, ply + 1, Some(mv));
                }
                score
            };
            self.unmake(mv, undo);
            if self.stopped() {
                (self.move_lists[ply], self.score_lists[ply]) = picker.into_buffers();
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(mv);
                    if ply == 0 {
                        self.root_score = score;
                    }
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(mv);
                    head[ply].extend_from_slice(&tail[0]);
                    if score >= beta {
                        if quiet {
                            let killers = &mut self.killers[ply];
                            if killers[0] != Some(mv) {
                                killers[1] = killers[0];
                                killers[0] = Some(mv);
                            }
                            self.update_quiet_history(mv, picker.earlier(), depth);
                            if let Some(&Some(before)) = self.played.last() {
                                self.counter_moves[before as usize] = Some(mv);
                            }
                        }
                        break;
                    }
                }
            }
        }
        (self.move_lists[ply], self.score_lists[ply]) = picker.into_buffers();
        if picked == 0 {
            return self.no_move_score(in_check, previous, ply);
        }
        // A node searched without some of its moves has no result of its own to keep.
        if (ply == 0 && !self.root_excluded.is_empty()) || excluded.is_some() {
            return best;
        }
        if let Some(slots) = correction {
            self.update_correction(slots, static_eval, best, best_move, beta, depth);
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared
            .tt
            .store(key, best_move, score_to_tt(best, ply), depth, bound);
        best
    }

    /// Whether a move at shallow depth is not worth searching (unless it gives check): it
    /// loses the exchange by more than a margin that grows with depth, or, quiet, its move and
    /// continuation histories say such moves have kept failing here. Both are off while their
    /// depth parameter is 0.
    #[allow(clippy::too_many_arguments)]
    fn shallow_prunable(
        &self,
        mv: Move,
        quiet: bool,
        depth: i32,
        index: usize,
        pv_node: bool,
        in_check: bool,
        best: i32,
    ) -> bool {
        let search = self.shared.search;
        if index == 0 || pv_node || in_check || best <= -MATE_BOUND {
            return false;
        }
        if quiet
            && depth <= search.history_prune_depth
            && self.quiet_score(self.history_index(mv)) < -search.history_prune_margin * depth
        {
            return true;
        }
        if depth <= search.exchange_prune_depth {
            let threshold = if quiet {
                -search.exchange_quiet_margin * depth * depth
            } else {
                -search.exchange_capture_margin * depth
            };
            return !self.position.exchange_at_least(mv, threshold, self.params);
        }
        false
    }

    fn quiescence(
        &mut self,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        previous: Option<Move>,
        qdepth: u32,
    ) -> i32 {
        self.count_node();
        if self.stopped() {
            return 0;
        }
        self.pv[ply].clear();
        self.seldepth = self.seldepth.max(ply);
        if self.position.lost() {
            return -(MATE - ply as i32);
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }
        // Any entry of the main search went at least as deep as quiescence does.
        if beta - alpha == 1 {
            let entry = self.shared.tt.probe(self.position.key());
            if let Some(score) = entry.and_then(|e| table_cutoff(&e, ply, alpha, beta)) {
                return score;
            }
        }
        // Worked out when the move leading here was made.
        let in_check = self
            .checks
            .last()
            .copied()
            .unwrap_or_else(|| self.position.in_check());
        let mut moves = std::mem::take(&mut self.move_lists[ply]);
        moves.clear();
        let mut best;
        if in_check {
            self.position.generate_legal(&mut moves);
            if moves.is_empty() {
                self.move_lists[ply] = moves;
                return self.no_move_score(true, previous, ply);
            }
            if qdepth >= 6 {
                self.move_lists[ply] = moves;
                return self.evaluate();
            }
            best = -INFINITY;
        } else {
            let evaluation = self.evaluate();
            let stand_pat = self
                .correction_slots()
                .map_or(evaluation, |slots| self.corrected(evaluation, slots));
            if stand_pat >= beta {
                self.move_lists[ply] = moves;
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
            self.position.generate_captures(&mut moves);
            if qdepth >= self.position.quiescence_limit() {
                // Past the limit only recaptures on the square just taken are followed, so that
                // the last capture before the horizon is not taken for a free one.
                match previous {
                    Some(last) => moves.retain(|m| m.to() == last.to()),
                    None => moves.clear(),
                }
            }
        }
        let mut picker = MovePicker::generated(
            moves,
            std::mem::take(&mut self.score_lists[ply]),
            &self.ordering(ply),
        );
        while let Some((mv, order)) = picker.next(&self.ordering(ply)) {
            if !in_check {
                let gain = self.position.gain(mv, self.params);
                if best + gain + self.shared.search.delta_margin < alpha && !mv.is_promotion() {
                    continue;
                }
                // A capture is ordered below zero exactly when it loses the exchange.
                if order < 0 && self.is_capture(mv) {
                    continue;
                }
            }
            let undo = self.make(mv);
            let score = -self.quiescence(-beta, -alpha, ply + 1, Some(mv), qdepth + 1);
            self.unmake(mv, undo);
            if self.stopped() {
                (self.move_lists[ply], self.score_lists[ply]) = picker.into_buffers();
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        (self.move_lists[ply], self.score_lists[ply]) = picker.into_buffers();
        best
    }

    fn info(&self, depth: u32, score: i32) -> Info {
        Info {
            depth,
            seldepth: self.seldepth as u32,
            score: Score::from_internal(score),
            nodes: self.shared.nodes.load(Ordering::Relaxed)
                + (self.nodes & self.shared.check_mask),
            time: self.shared.start.elapsed(),
            pv: self.pv[0].clone(),
            hashfull: self.shared.tt.hashfull(),
            multipv: 1,
        }
    }

    /// After the best line of an iteration (`best`, worth `value`): the next best lines, each
    /// a full-window search of the root without the first moves of the lines before it; then
    /// all of them, ordered by score (a later search may see further than an earlier one), are
    /// reported. Stops early when the search is stopped; the lines then come from the last
    /// iteration that found them all.
    fn more_lines(
        &mut self,
        depth: u32,
        (best, value): (Info, i32),
        wanted: usize,
        report: &mut dyn FnMut(&Info),
    ) {
        let mut lines = vec![(value, best)];
        let complete = loop {
            if lines.len() >= wanted {
                break true;
            }
            self.root_excluded = lines
                .iter()
                .filter_map(|(_, l)| l.pv.first().copied())
                .collect();
            let value = self.search(depth as i32, -INFINITY, INFINITY, 0, None);
            if self.stopped() || self.pv[0].is_empty() {
                break false;
            }
            lines.push((value, self.info(depth, value)));
        };
        self.root_excluded.clear();
        // A stable sort: equal scores keep the order they were found in.
        lines.sort_by_key(|(value, _)| std::cmp::Reverse(*value));
        let mut lines: Vec<Info> = lines.into_iter().map(|(_, info)| info).collect();
        if !complete {
            // Keep the earlier iteration's lines where this one did not get to them.
            let found: Vec<Option<Move>> = lines.iter().map(|l| l.pv.first().copied()).collect();
            for earlier in std::mem::take(&mut self.lines) {
                if lines.len() >= wanted {
                    break;
                }
                if !found.contains(&earlier.pv.first().copied()) {
                    lines.push(earlier);
                }
            }
        }
        for (index, line) in lines.iter_mut().enumerate() {
            line.multipv = index as u32 + 1;
            if self.main {
                report(line);
            }
        }
        self.lines = lines;
    }

    /// Iterative deepening; the main thread reports each iteration.
    fn iterate(
        &mut self,
        max_depth: u32,
        depth_offset: u32,
        wanted_lines: usize,
        report: &mut dyn FnMut(&Info),
    ) -> Option<Info> {
        let mut last: Option<Info> = None;
        let mut score = 0;
        let mut steadiness = Steadiness::default();
        let mut depth = 1 + depth_offset;
        while depth <= max_depth {
            let mut window = self.shared.search.aspiration_window;
            let (mut alpha, mut beta) = if depth >= self.shared.search.aspiration_depth as u32 {
                (
                    (score - window).max(-INFINITY),
                    (score + window).min(INFINITY),
                )
            } else {
                (-INFINITY, INFINITY)
            };
            // The line that last failed high in this iteration: its first move is better than
            // the window expected, at full depth, and stands if the wider search is stopped
            // before it has a move of its own.
            let mut failed_high: Option<(Vec<Move>, i32)> = None;
            loop {
                let value = self.search(depth as i32, alpha, beta, 0, None);
                if self.stopped() {
                    if self.pv[0].is_empty()
                        && let Some((line, value)) = failed_high.take()
                    {
                        self.pv[0] = line;
                        self.root_score = value;
                    }
                    break;
                }
                if value <= alpha {
                    alpha = (alpha - window).max(-INFINITY);
                } else if value >= beta {
                    failed_high = Some((self.pv[0].clone(), value));
                    beta = (beta + window).min(INFINITY);
                } else {
                    score = value;
                    break;
                }
                window *= 2;
            }
            if self.stopped() && last.is_some() {
                // The unfinished iteration's best move so far was searched to the full depth,
                // deeper than the last finished iteration looked: the time was not wasted.
                if !self.pv[0].is_empty() {
                    let mut info = self.info(depth, self.root_score);
                    if wanted_lines > 1 {
                        // Stopped: only the earlier iteration's other lines are kept.
                        let best = (info.clone(), self.root_score);
                        self.more_lines(depth, best, wanted_lines, report);
                        info = self.lines[0].clone();
                    } else if self.main {
                        report(&info);
                    }
                    last = Some(info);
                }
                break;
            }
            if self.pv[0].is_empty() {
                if self.stopped() {
                    break;
                }
            } else {
                steadiness.record(self.pv[0][0], score);
                let mut info = self.info(depth, score);
                if wanted_lines > 1 {
                    self.more_lines(depth, (info.clone(), score), wanted_lines, report);
                    info = self.lines[0].clone();
                } else if self.main {
                    report(&info);
                }
                last = Some(info);
                self.shared
                    .first_iteration_done
                    .store(true, Ordering::Relaxed);
            }
            if self.stopped() {
                break;
            }
            if let Some(budget) = self.shared.budget
                && self.main
                && self.shared.start.elapsed() >= steadiness.soft_limit(budget, self.shared.search)
            {
                break;
            }
            if score.abs() >= MATE_BOUND && depth as i32 > (MATE - score.abs()) + 2 {
                break;
            }
            depth += 1;
        }
        last
    }
}

/// How the root's best move and score moved from iteration to iteration. Under a clock, a
/// search whose best move keeps changing or whose score is falling gets more of its time before
/// it stops deepening, and one whose best move has settled gets less, saving time for the moves
/// where it matters (a fixed move time is always used whole).
#[derive(Default)]
struct Steadiness {
    best: Option<Move>,
    /// Iterations in a row that kept the best move.
    kept: u32,
    /// Best-move changes, each iteration's count halved the next.
    changes: f64,
    /// How far the score fell in the last iteration (negative when it rose).
    fall: i32,
    score: Option<i32>,
}

impl Steadiness {
    /// Notes an iteration's best move and score.
    fn record(&mut self, best: Move, score: i32) {
        let changed = self.best.is_some_and(|previous| previous != best);
        self.changes = self.changes / 2.0 + if changed { 1.0 } else { 0.0 };
        self.kept = if changed { 0 } else { self.kept + 1 };
        self.fall = self.score.map_or(0, |previous| previous - score);
        self.score = Some(score);
        self.best = Some(best);
    }

    /// The time after which no new iteration starts: the budget's soft time scaled by how
    /// unsettled the search is, never past the hard time.
    fn soft_limit(&self, budget: Budget, params: &SearchParams) -> Duration {
        if budget.soft >= budget.hard {
            return budget.soft;
        }
        let unsettled = 1.0
            + self
                .changes
                .min(f64::from(params.time_unsettled_cap) / 100.0);
        let falling = (1.0 + f64::from(self.fall) / f64::from(params.time_fall_scale.max(1)))
            .clamp(0.75, 1.5);
        let settled = match self.kept {
            0..=1 => 1.0,
            2..=3 => f64::from(params.time_settled_short) / 100.0,
            _ => f64::from(params.time_settled_long) / 100.0,
        };
        budget
            .soft
            .mul_f64(unsettled * falling * settled)
            .min(budget.hard)
    }
}

/// One search: the position and everything it runs with besides the caller's report.
pub struct SearchRequest<'a, P: ?Sized> {
    /// The position to search.
    pub position: &'a P,
    /// The keys of the game's earlier positions, oldest first, not including `position`: for
    /// the repetition rule.
    pub history_keys: &'a [u64],
    /// Whether the side to move was in check in each of those positions (perpetual check).
    pub history_checks: &'a [bool],
    /// When to stop: depth, nodes, time.
    pub limits: &'a Limits,
    /// The evaluation's weights (and network).
    pub eval: &'a EvalParams,
    /// The search's parameters; `None` plays the game's own
    /// ([`SearchPosition::search_defaults`]).
    pub search: Option<&'a SearchParams>,
    /// The transposition table, shared by the threads (and kept between searches).
    pub tt: Arc<TranspositionTable>,
    /// Set by anyone to stop the search; the search sets it when it ends.
    pub stop: Arc<AtomicBool>,
    /// Threads to search on (at least one).
    pub threads: usize,
    /// The game's tables from its earlier searches, taken up and kept again when
    /// [`SearchParams::history_carry`] is above zero; `None` starts every search afresh.
    pub memory: Option<Arc<SearchMemory>>,
}

impl<'a, P: ?Sized> SearchRequest<'a, P> {
    /// A search of `position` alone (no earlier positions) under `limits` with `eval`, the
    /// game's own search parameters, one thread and a stop flag of its own, on `tt`.
    pub fn new(
        position: &'a P,
        limits: &'a Limits,
        eval: &'a EvalParams,
        tt: Arc<TranspositionTable>,
    ) -> SearchRequest<'a, P> {
        SearchRequest {
            position,
            history_keys: &[],
            history_checks: &[],
            limits,
            eval,
            search: None,
            tt,
            stop: Arc::new(AtomicBool::new(false)),
            threads: 1,
            memory: None,
        }
    }

    /// The same request for another position (of a concrete type, say).
    pub fn with_position<Q: ?Sized>(self, position: &'a Q) -> SearchRequest<'a, Q> {
        SearchRequest {
            position,
            history_keys: self.history_keys,
            history_checks: self.history_checks,
            limits: self.limits,
            eval: self.eval,
            search: self.search,
            tt: self.tt,
            stop: self.stop,
            threads: self.threads,
            memory: self.memory,
        }
    }
}

/// Runs a search on `request.threads` threads and returns the main thread's result; each
/// completed iteration of the main thread goes to `report`.
pub fn search<P: SearchPosition>(
    request: SearchRequest<'_, P>,
    report: &mut dyn FnMut(&Info),
) -> Outcome {
    let SearchRequest {
        position,
        history_keys,
        history_checks,
        limits,
        eval: params,
        search: search_params,
        tt,
        stop,
        threads,
        memory,
    } = request;
    let search_params = search_params.unwrap_or_else(|| position.search_defaults());
    tt.new_search();
    // The game's tables from its earlier searches, one per thread, the main thread's first.
    let carry = search_params.history_carry;
    let memory = memory.filter(|_| carry > 0);
    let mut kept = memory
        .as_deref()
        .map(SearchMemory::take)
        .unwrap_or_default();
    kept.resize_with(threads.max(1), Histories::default);
    let mut kept = kept.into_iter();
    let main_kept = kept.next().unwrap_or_default();
    let shared = Shared {
        search: search_params,
        tt,
        stop,
        nodes: AtomicU64::new(0),
        start: limits.started.unwrap_or_else(Instant::now),
        budget: limits.budget_with(search_params),
        node_limit: limits.nodes,
        check_mask: check_mask(limits.nodes),
        // One line needs no whole first iteration: the budget binds at once, as it always did.
        first_iteration_done: AtomicBool::new(limits.lines <= 1),
    };
    let max_depth = limits
        .depth
        .unwrap_or(MAX_PLY as u32 - 8)
        .clamp(1, MAX_PLY as u32 - 8);
    let mut legal = position.legal_moves();
    let mut forbidden = Vec::new();
    if position.repetition() == RepetitionRule::Illegal {
        // A move back into any earlier position of the game is no move at all.
        let mut after = position.clone();
        legal.retain(|&mv| {
            let undo = after.make_move(mv);
            let fresh = !history_keys.contains(&after.key());
            after.unmake_move(mv, undo);
            if !fresh {
                forbidden.push(mv);
            }
            fresh
        });
    }
    let forbidden = &forbidden;
    let fallback = legal.first().copied();
    let wanted_lines = (limits.lines.max(1) as usize).min(legal.len().max(1));
    let result = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads.max(1))
            .zip(&mut kept)
            .map(|(helper, tables)| {
                let shared = &shared;
                let position = position.clone();
                scope.spawn(move || {
                    let mut worker = Worker::new(
                        shared,
                        params,
                        position,
                        history_keys,
                        history_checks,
                        false,
                    );
                    worker.adopt(tables, carry);
                    worker.root_forbidden = forbidden.clone();
                    worker.iterate(max_depth, (helper % 2) as u32, 1, &mut |_| {});
                    worker.into_histories()
                })
            })
            .collect();
        let mut worker = Worker::new(
            &shared,
            params,
            position.clone(),
            history_keys,
            history_checks,
            true,
        );
        worker.adopt(main_kept, carry);
        worker.root_forbidden = forbidden.clone();
        let info = worker.iterate(max_depth, 0, wanted_lines, report);
        shared.stop.store(true, Ordering::Relaxed);
        let lines = std::mem::take(&mut worker.lines);
        if let Some(memory) = memory.as_deref() {
            let mut tables = vec![worker.into_histories()];
            // A helper that panicked leaves fresh tables in its place.
            tables.extend(
                helpers
                    .into_iter()
                    .map(|helper| helper.join().unwrap_or_default()),
            );
            memory.keep(tables);
        }
        (info, lines)
    });
    let (result, lines) = result;
    let info = result.unwrap_or(Info {
        depth: 0,
        seldepth: 0,
        score: Score::Centipawns(position.evaluate(params)),
        nodes: shared.nodes.load(Ordering::Relaxed),
        time: shared.start.elapsed(),
        pv: fallback.into_iter().collect(),
        hashfull: 0,
        multipv: 1,
    });
    let best = info
        .pv
        .first()
        .copied()
        .filter(|m| legal.contains(m))
        .or(fallback);
    let ponder = if best == info.pv.first().copied() {
        info.pv.get(1).copied()
    } else {
        None
    };
    let lines = if lines.len() > 1 {
        lines
    } else {
        vec![info.clone()]
    };
    Outcome {
        best,
        ponder,
        info,
        lines,
    }
}

/// [`search`] on a position of any game: the game is chosen here, once, and the search runs on
/// the concrete position type.
pub fn search_any(
    request: SearchRequest<'_, AnyPosition>,
    report: &mut dyn FnMut(&Info),
) -> Outcome {
    let position = request.position;
    position.visit(AnySearch { request, report })
}

/// The request of [`search_any`], carried to the concrete position.
struct AnySearch<'a, 'r> {
    request: SearchRequest<'a, AnyPosition>,
    report: &'r mut dyn FnMut(&Info),
}

impl<'p> PositionVisitor<'p> for AnySearch<'p, '_> {
    type Output = Outcome;

    fn board<B: Bitboard>(self, position: &'p Position<B>) -> Outcome {
        self.run(position)
    }

    fn tenjiku(self, position: &'p TenjikuPosition) -> Outcome {
        self.run(position)
    }
}

impl<'p> AnySearch<'p, '_> {
    fn run<P: SearchPosition>(self, position: &'p P) -> Outcome {
        search(self.request.with_position(position), self.report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsubame_rules::{Color, Options, Position, Square, Variant, tori, wa};

    fn shared() -> Shared<'static> {
        Shared {
            search: &SearchParams::DEFAULT,
            tt: Arc::new(TranspositionTable::new(1)),
            stop: Arc::new(AtomicBool::new(false)),
            nodes: AtomicU64::new(0),
            start: Instant::now(),
            budget: None,
            node_limit: None,
            check_mask: check_mask(None),
            first_iteration_done: AtomicBool::new(false),
        }
    }

    /// A small deterministic generator for the walks below.
    fn next_random(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        *state >> 33
    }

    /// Counts the leaves `depth` plies down, every node's moves taken from the search's
    /// staged picker: at most nodes the table's move is a legal move (tried before anything
    /// is generated), at some an illegal one (which the search filters out), at the rest none.
    /// At each node the picker must hand out exactly the legal moves, each once, the table's
    /// move first, and know which moves it handed out before the last.
    fn perft_through_picker<P: SearchPosition>(
        worker: &mut Worker<'_, P>,
        depth: u32,
        ply: usize,
        random: &mut u64,
    ) -> u64 {
        let mut legal = worker.position.legal_moves();
        if depth == 0 {
            return 1;
        }
        let table_move = match next_random(random) % 4 {
            0 => None,
            // A board move from square 0 to square 48 (Tori's far corner): hardly ever legal.
            1 => Some(Move::normal(
                Square::from_index(0),
                Square::from_index(48),
                false,
            )),
            _ if legal.is_empty() => None,
            _ => Some(legal[next_random(random) as usize % legal.len()]),
        };
        let table_move = table_move.filter(|&mv| worker.position.is_legal(mv));
        let mut picker = MovePicker::new(
            table_move,
            std::mem::take(&mut worker.move_lists[ply]),
            std::mem::take(&mut worker.score_lists[ply]),
        );
        let mut picked = Vec::new();
        let mut leaves = 0;
        while let Some((mv, _)) = picker.next(&worker.ordering(ply)) {
            assert_eq!(picker.earlier(), &picked[..], "the moves before {mv:?}");
            picked.push(mv);
            let undo = worker.make(mv);
            leaves += perft_through_picker(worker, depth - 1, ply + 1, random);
            worker.unmake(mv, undo);
            // What the search learns between two picks changes the order of the moves left.
            if next_random(random).is_multiple_of(3) && !worker.is_capture(mv) {
                worker.update_quiet_history(mv, &[], 3);
                worker.killers[ply] = [Some(mv), worker.killers[ply][0]];
                if let Some(&Some(before)) = worker.played.last() {
                    worker.counter_moves[before as usize] = Some(mv);
                }
            }
        }
        (worker.move_lists[ply], worker.score_lists[ply]) = picker.into_buffers();
        if let Some(table_move) = table_move {
            assert_eq!(picked.first(), Some(&table_move));
        }
        picked.sort_by_key(|mv| mv.to_bits());
        legal.sort_by_key(|mv| mv.to_bits());
        assert_eq!(picked, legal, "{}", worker.position.to_sfen());
        leaves
    }

    /// Plays `plies` pseudo-random legal moves (fewer if the game ends): a position with
    /// pieces in hand and captures on the board.
    fn walk<P: SearchPosition>(mut position: P, plies: usize, seed: u64) -> P {
        let mut random = seed;
        for _ in 0..plies {
            let moves = position.legal_moves();
            if moves.is_empty() {
                break;
            }
            let captures: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|&mv| position.is_capture(mv))
                .collect();
            // Captures taken whenever there are, so that the hands fill.
            let choice = if captures.is_empty() {
                &moves
            } else {
                &captures
            };
            let mv = choice[next_random(&mut random) as usize % choice.len()];
            position.make_move(mv);
        }
        position
    }

    fn check_perft_through_picker<P: SearchPosition>(
        position: P,
        spec: &'static tsubame_rules::VariantSpec,
        depth: u32,
        seed: u64,
    ) {
        let params = EvalParams::for_variant(spec);
        let shared = shared();
        let expected = position.clone().perft(depth);
        let sfen = position.to_sfen();
        let mut worker = Worker::new(&shared, &params, position, &[], &[], true);
        let mut random = seed;
        let leaves = perft_through_picker(&mut worker, depth, 0, &mut random);
        assert_eq!(leaves, expected, "{sfen}");
    }

    /// The staged picker hands out every legal move once at every node, whatever the table
    /// holds and however the search's records change the order: Tori, Wa with and without
    /// drops, and Tenjiku, from the start and from positions with pieces in hand.
    #[test]
    fn the_staged_picker_yields_exactly_the_legal_moves() {
        let tori_options = Options::defaults(tori::spec());
        let tori_start = tori::start(&tori_options).unwrap();
        check_perft_through_picker(tori_start.clone(), tori::spec(), 3, 1);
        for seed in 1..=4 {
            check_perft_through_picker(walk(tori_start.clone(), 30, seed), tori::spec(), 3, seed);
        }
        let wa_options = Options::defaults(wa::spec());
        let wa_start = wa::start(&wa_options).unwrap();
        check_perft_through_picker(wa_start.clone(), wa::spec(), 2, 5);
        check_perft_through_picker(walk(wa_start, 40, 6), wa::spec(), 2, 6);
        let mut no_drops = Options::defaults(wa::spec());
        no_drops.set("drops", "off").unwrap();
        check_perft_through_picker(walk(wa::start(&no_drops).unwrap(), 40, 7), wa::spec(), 2, 7);
        let tenjiku = tsubame_rules::tenjiku::spec();
        let tenjiku_start = TenjikuPosition::start(&Options::defaults(tenjiku));
        check_perft_through_picker(walk(tenjiku_start, 60, 8), tenjiku, 2, 8);
    }

    /// Under a clock, a settled search stops deepening sooner than the budget's soft time,
    /// one whose best move keeps changing or whose score falls goes on longer, never past the
    /// hard time; a fixed move time is used whole whatever the search does.
    #[test]
    fn steadiness_spends_time_where_the_search_is_unsettled() {
        let ms = Duration::from_millis;
        let clock = Budget {
            soft: ms(400),
            hard: ms(1200),
        };
        let [a, b] = [
            Move::normal(Square::from_index(0), Square::from_index(1), false),
            Move::normal(Square::from_index(2), Square::from_index(3), false),
        ];
        let mut settled = Steadiness::default();
        for _ in 0..6 {
            settled.record(a, 50);
        }
        assert!(settled.soft_limit(clock, &SearchParams::DEFAULT) < ms(300));
        let mut unsettled = Steadiness::default();
        for (index, score) in [50, 40, 10, -30, -80].into_iter().enumerate() {
            unsettled.record(if index % 2 == 0 { a } else { b }, score);
        }
        assert!(unsettled.soft_limit(clock, &SearchParams::DEFAULT) > ms(800));
        let mut collapsing = Steadiness::default();
        for (index, score) in [0, -100, -300, -600].into_iter().enumerate() {
            collapsing.record(if index % 2 == 0 { a } else { b }, score);
        }
        assert_eq!(
            collapsing.soft_limit(clock, &SearchParams::DEFAULT),
            clock.hard
        );
        let fixed = Budget {
            soft: ms(300),
            hard: ms(300),
        };
        assert_eq!(unsettled.soft_limit(fixed, &SearchParams::DEFAULT), ms(300));
        // The factors are the time-use parameters': a settled search kept at its whole share.
        let patient: SearchParams = "time_settled_long=100".parse().unwrap();
        assert_eq!(settled.soft_limit(clock, &patient), clock.soft);
        assert_eq!(settled.soft_limit(fixed, &SearchParams::DEFAULT), ms(300));
    }

    /// MultiPV: the mating drop first, then other moves, each once, scores falling; asking
    /// for more lines than there are moves gives one per move.
    #[test]
    fn several_lines_are_the_best_moves_in_order() {
        let rules = Options::defaults(tori::spec()).rule_set();
        let position =
            Position::from_sfen(tori::tables(), "5sk/5s1/6C/7/7/7/K6 b F 1", rules).unwrap();
        let params = EvalParams::for_variant(tori::spec());
        let run = |lines: u32| {
            let limits = Limits {
                depth: Some(3),
                lines,
                ..Limits::default()
            };
            let mut reported = Vec::new();
            let outcome = search(
                SearchRequest::new(
                    &position,
                    &limits,
                    &params,
                    Arc::new(TranspositionTable::new(4)),
                ),
                &mut |info| reported.push((info.depth, info.multipv)),
            );
            (outcome, reported)
        };
        let (single, _) = run(1);
        assert_eq!(single.lines, vec![single.info.clone()]);
        let (outcome, reported) = run(4);
        assert_eq!(outcome.lines.len(), 4);
        assert_eq!(outcome.lines[0], outcome.info);
        assert_eq!(position.to_usi(outcome.lines[0].pv[0]), "F*1b");
        assert!(matches!(outcome.lines[0].score, Score::Mate(_)));
        let firsts: Vec<Move> = outcome.lines.iter().map(|l| l.pv[0]).collect();
        for (i, mv) in firsts.iter().enumerate() {
            assert!(!firsts[..i].contains(mv), "a move twice: {firsts:?}");
        }
        let value = |score: &Score| match *score {
            Score::Mate(plies) if plies > 0 => 100_000 - plies,
            Score::Mate(plies) => -100_000 - plies,
            Score::Centipawns(cp) => cp,
        };
        for pair in outcome.lines.windows(2) {
            assert!(value(&pair[0].score) >= value(&pair[1].score), "{pair:?}");
        }
        assert_eq!(
            outcome.lines.iter().map(|l| l.multipv).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        // Every line of every depth is reported, the best first.
        assert!(reported.contains(&(3, 4)), "{reported:?}");
        let legal = position.legal_moves().len();
        let (all, _) = run(500);
        assert_eq!(all.lines.len(), legal);
    }

    #[test]
    fn history_follows_the_evidence_and_stays_within_its_bound() {
        let position = tori::start(&Options::defaults(tori::spec())).unwrap();
        let params = EvalParams::for_variant(tori::spec());
        let shared = shared();
        let mut worker = Worker::new(&shared, &params, position.clone(), &[], &[], true);
        assert!(
            !worker.continuation.is_empty(),
            "Tori keeps continuation history"
        );
        let opening = position.legal_moves()[0];
        let _undo = worker.make(opening);
        let replies = worker.position.legal_moves();
        let (good, bad) = (replies[0], replies[1]);
        assert!(!worker.is_capture(good) && !worker.is_capture(bad));
        let slot = |worker: &Worker<_>, mv| worker.quiet_score(worker.history_index(mv));
        worker.update_quiet_history(good, &[bad], 5);
        let (good_once, bad_once) = (slot(&worker, good), slot(&worker, bad));
        assert!(good_once > 0 && bad_once < 0, "{good_once} {bad_once}");
        for _ in 0..2_000 {
            worker.update_quiet_history(good, &[bad], 12);
        }
        // Its own history and one continuation (the move before the root is unknown), each
        // approaching the bound from inside.
        let (good_many, bad_many) = (slot(&worker, good), slot(&worker, bad));
        assert!(
            good_many > good_once && good_many <= 2 * HISTORY_MAX,
            "{good_many}"
        );
        assert!(good_many > 2 * HISTORY_MAX * 9 / 10, "{good_many}");
        assert!(
            bad_many < bad_once && bad_many >= -2 * HISTORY_MAX,
            "{bad_many}"
        );
        // The evidence turning fades the old score instead of waiting for it to unwind.
        for _ in 0..20 {
            worker.update_quiet_history(bad, &[good], 12);
        }
        assert!(slot(&worker, bad) > 0, "{}", slot(&worker, bad));
    }

    #[test]
    fn correction_follows_the_search_stays_within_its_bound_and_is_off_by_default() {
        let position = tori::start(&Options::defaults(tori::spec())).unwrap();
        let params = EvalParams::for_variant(tori::spec());
        let off = shared();
        let worker = Worker::new(&off, &params, position.clone(), &[], &[], true);
        assert_eq!(worker.correction_slots(), None);
        let search = SearchParams {
            correction_weight: 3072,
            ..SearchParams::DEFAULT
        };
        let on = Shared {
            search: &search,
            ..shared()
        };
        let mut worker = Worker::new(&on, &params, position, &[], &[], true);
        let slots = worker.correction_slots().unwrap();
        assert_eq!(worker.corrected(50, slots), 50);
        let quiet = worker.position.legal_moves()[0];
        assert!(!worker.is_capture(quiet));
        // Searches that keep finding more than the evaluation said lift it, up to the bound.
        worker.update_correction(slots, 50, 150, Some(quiet), 100, 6);
        let once = worker.corrected(50, slots);
        assert!(once > 50, "{once}");
        for _ in 0..2_000 {
            worker.update_correction(slots, 50, 400, Some(quiet), 500, 12);
        }
        let many = worker.corrected(50, slots);
        let bound = 50 + 2 * CORRECTION_LIMIT * search.correction_weight / 65_536;
        assert!(
            many > once && many <= bound && many > bound - 10,
            "{many} {bound}"
        );
        // A result on the side the evaluation already stood on teaches nothing: a cut above
        // beta that the evaluation also saw above beta.
        worker.update_correction(slots, 500, 120, Some(quiet), 100, 12);
        // Nor does a node that failed low above the evaluation.
        worker.update_correction(slots, 50, 90, None, 100, 12);
        assert_eq!(worker.corrected(50, slots), many);
        assert_eq!(worker.corrected(50, slots), many);
        // Mate scores teach nothing either; results below the evaluation pull it back down.
        worker.update_correction(slots, 50, -MATE + 3, None, 100, 12);
        assert_eq!(worker.corrected(50, slots), many);
        for _ in 0..50 {
            worker.update_correction(slots, 50, -200, None, 100, 12);
        }
        assert!(worker.corrected(50, slots) < 50);
    }

    /// With `history_carry` at 0 a search leaves the game's memory alone and plays as
    /// without one; above 0 it keeps each thread's tables, and the next search takes them up
    /// scaled, but only where they are the same game's.
    #[test]
    fn histories_carry_over_only_when_asked_scaled_and_within_one_game() {
        let position = tori::start(&Options::defaults(tori::spec())).unwrap();
        let eval = EvalParams::for_variant(tori::spec());
        let limits = Limits {
            nodes: Some(3000),
            ..Limits::default()
        };
        let run = |search_params: &SearchParams, memory: Option<Arc<SearchMemory>>, threads| {
            let request = SearchRequest {
                search: Some(search_params),
                memory,
                threads,
                ..SearchRequest::new(
                    &position,
                    &limits,
                    &eval,
                    Arc::new(TranspositionTable::new(1)),
                )
            };
            search(request, &mut |_| {})
        };
        let memory = Arc::new(SearchMemory::default());
        let alone = run(&SearchParams::DEFAULT, None, 1);
        let with_memory = run(&SearchParams::DEFAULT, Some(memory.clone()), 1);
        assert!(memory.is_empty());
        assert_eq!(with_memory.best, alone.best);
        assert_eq!(with_memory.info.nodes, alone.info.nodes);

        let carry = SearchParams {
            history_carry: 100,
            ..SearchParams::DEFAULT
        };
        run(&carry, Some(memory.clone()), 1);
        let kept = memory.take();
        assert_eq!(kept.len(), 1);
        assert!(kept[0].history.iter().any(|&h| h != 0));
        let learned = kept[0].history.clone();
        // The next search starts from them: its first move orders by what the last learned.
        let shared = shared();
        let mut worker = Worker::new(&shared, &eval, position.clone(), &[], &[], true);
        let [first] = <[Histories; 1]>::try_from(kept).unwrap_or_else(|_| unreachable!());
        worker.adopt(first, 50);
        let halved: Vec<i32> = learned.iter().map(|h| h * 50 / 100).collect();
        assert_eq!(worker.history, halved);
        // Wa's tables are not Tori's: taken up in a Wa search they are left aside.
        let wa = wa::start(&Options::defaults(wa::spec())).unwrap();
        let mut wa_worker = Worker::new(&shared, &eval, wa, &[], &[], true);
        let fresh = wa_worker.history.clone();
        wa_worker.adopt(worker.into_histories(), 100);
        assert_eq!(wa_worker.history, fresh);
        // Every thread keeps its own; a new game forgets them all.
        run(&carry, Some(memory.clone()), 2);
        assert_eq!(memory.take().len(), 2);
        run(&carry, Some(memory.clone()), 1);
        memory.clear();
        assert!(memory.is_empty());
    }

    #[test]
    fn the_network_evaluates_through_the_workers_moves_as_from_scratch() {
        let options = Options::parse(tori::spec(), "shrike=on").unwrap();
        let position = tori::start(&options).unwrap();
        // With output buckets, so that the bucket the search picks is checked too; plain
        // and with royal buckets, where the phoenix's moves refresh its side's sums.
        let royal =
            crate::nnue::RoyalBuckets::by_ranks(tsubame_rules::Variant::Tori, &[1, 1, 5]).unwrap();
        let networks = [
            crate::nnue::random_network(
                tsubame_rules::Variant::Tori,
                crate::nnue::OUTPUT_BUCKETS,
                3,
            ),
            crate::nnue::random_network_with_royal(
                tsubame_rules::Variant::Tori,
                royal,
                crate::nnue::OUTPUT_BUCKETS,
                5,
            ),
        ];
        let shared = shared();
        let mut params = EvalParams::for_variant(tori::spec());
        for network in networks {
            params.network = Some(Arc::new(network.clone()));
            let worker = Worker::new(&shared, &params, position.clone(), &[], &[], true);
            evaluations_follow_random_moves(worker, &network);
        }
        // A network of another game is not used.
        let mut wa_params = EvalParams::for_variant(wa::spec());
        wa_params.network = params.network.clone();
        let wa_position = wa::start(&Options::defaults(wa::spec())).unwrap();
        let wa_worker = Worker::new(&shared, &wa_params, wa_position, &[], &[], true);
        assert!(wa_worker.network.is_none());
    }

    fn evaluations_follow_random_moves(
        mut worker: Worker<'_, Position<u64>>,
        network: &crate::nnue::Network,
    ) {
        use rand::seq::SliceRandom;
        use rand::{SeedableRng, rngs::StdRng};
        assert!(worker.network.is_some());
        let mut rng = StdRng::seed_from_u64(4);
        let mut line = Vec::new();
        for ply in 0..300 {
            assert_eq!(
                worker.evaluate(),
                network.evaluate(&worker.position),
                "ply {ply}"
            );
            let moves = worker.position.legal_moves();
            // Now and then back one move, so that unmaking is exercised as well.
            if ply % 7 == 6
                && let Some((mv, undo)) = line.pop()
            {
                worker.unmake(mv, undo);
                continue;
            }
            let Some(&mv) = moves.choose(&mut rng) else {
                break;
            };
            let undo = worker.make(mv);
            line.push((mv, undo));
        }
    }

    #[test]
    fn the_mop_up_terms_join_a_networks_score_only_where_it_shows_a_side_far_ahead() {
        use crate::nnue::Network;
        let options = Options::parse(wa::spec(), "drops=off").unwrap();
        let rules = options.rule_set();
        let shared = shared();
        let params = EvalParams::for_variant(wa::spec());
        assert!(params.mop_up_margin > 0 && params.mop_up_edge > 0);
        // Two falcons against a bare crane king on the edge.
        let position = |side: &str| {
            let sfen = format!("5k5/11/11/3FF6/11/11/11/11/11/11/5K5 {side} - 1");
            Position::from_sfen(wa::tables(), &sfen, rules).unwrap()
        };
        let static_eval = |centipawns: i32, side: &str| {
            let mut with_network = params.clone();
            with_network.network =
                Some(Arc::new(Network::uniform(Variant::Wa, centipawns).unwrap()));
            Worker::new(&shared, &with_network, position(side), &[], &[], true).evaluate()
        };
        let sente_herds = crate::eval::mop_up(&position("b"), &params, Color::Sente);
        let gote_herds = crate::eval::mop_up(&position("w"), &params, Color::Gote);
        assert!(sente_herds > gote_herds && gote_herds > 0);
        // The network says the side to move is far ahead: that side gets the terms.
        assert_eq!(static_eval(600, "b"), 600 + sente_herds);
        assert_eq!(static_eval(600, "w"), 600 + gote_herds);
        // Far behind: the terms are the opponent's.
        assert_eq!(static_eval(-600, "b"), -600 - gote_herds);
        // Inside the margin the network's score stands alone.
        assert_eq!(static_eval(300, "b"), 300);
        // Weights without the terms (Tori's) leave the network alone.
        let mut tori_params = EvalParams::for_variant(tori::spec());
        assert!(
            !EvalParams {
                network: Some(Arc::new(Network::uniform(Variant::Tori, 600).unwrap())),
                ..tori_params.clone()
            }
            .network_mop_up()
        );
        tori_params.network = None;
        assert!(!tori_params.network_mop_up());
    }

    #[test]
    fn continuation_history_is_left_out_where_its_table_would_be_too_large() {
        let position = wa::start(&Options::defaults(wa::spec())).unwrap();
        let params = EvalParams::for_variant(wa::spec());
        let shared = shared();
        let worker = Worker::new(&shared, &params, position.clone(), &[], &[], true);
        assert!(position.history_size().pow(2) > CONTINUATION_ENTRIES_MAX);
        assert!(worker.continuation.is_empty());
    }
}
