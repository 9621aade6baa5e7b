//! Tsume: the shortest forced mate in which every attacking move gives check, with the
//! defender's longest resistance, found by depth-first proof-number search (df-pn) with its own
//! table, bounded in memory.
//!
//! The side to move attacks. Its moves are the checks the game allows (a Tori swallow dropped
//! to mate is never one); the defender's are every legal reply. In Tenjiku, where a royal may
//! stand attacked, a "check" is a move after which the attacker could remove the defender's
//! last royal, and the defender's replies are the moves that leave no such capture; a reply
//! that captures the attacker's last royal wins for the defender.
//!
//! A search is bounded by plies: a position's result is stored with the plies it had left, so a
//! proof found with `L` plies serves any search with at least `L` left, and a disproof found
//! with `d` serves any with at most `d`. The shortest mate is found by proving with fewer plies
//! until that fails. A position repeated on the current line is a failure for the attacker
//! (perpetual check is no mate); a failure that rests on such a repetition depends on the line
//! that led to it and is never stored (the graph-history interaction).
//!
//! ```
//! use tsubame_engine::tsume::{MateLimits, MateResult, solve};
//! use tsubame_rules::{tori, Options, Position};
//!
//! // A falcon dropped on 1b, guarded by the crane, mates the phoenix on 1a.
//! let rules = Options::defaults(tori::spec()).rule_set();
//! let position = Position::from_sfen(tori::tables(), "5sk/5s1/6C/7/7/7/K6 b F 1", rules).unwrap();
//! let report = solve(&position, &MateLimits::moves(3), &mut |_| {});
//! match report.result {
//!     MateResult::Mate(line) => {
//!         let line: Vec<String> = line.iter().map(|m| position.to_usi(*m)).collect();
//!         assert_eq!(line, ["F*1b"]);
//!     }
//!     other => panic!("expected a mate, got {other:?}"),
//! }
//! ```

use crate::clock::Instant;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tsubame_rules::tenjiku::TenjikuPosition;
use tsubame_rules::{
    AnyPosition, Bitboard, Color, DropMateRule, GamePosition, Move, MoveKind, Position,
};

/// What the solver needs of a game beyond its rules: which moves attack and which defend.
pub trait MateRules: GamePosition {
    /// Appends the side to move's checks that a tsume allows.
    fn generate_checks(&mut self, moves: &mut Vec<Move>);
    /// Appends the side to move's replies to a check that do not lose at once.
    fn generate_evasions(&mut self, moves: &mut Vec<Move>);
    /// Whether `color` has already lost the game (no royal left).
    fn has_lost(&self, color: Color) -> bool;
}

impl<B: Bitboard> MateRules for Position<B> {
    fn generate_checks(&mut self, moves: &mut Vec<Move>) {
        let start = moves.len();
        self.generate_captures(moves);
        let mut kept = start;
        for index in start..moves.len() {
            let mv = moves[index];
            if self.gives_check(mv) {
                moves[kept] = mv;
                kept += 1;
            }
        }
        moves.truncate(kept);
        self.generate_quiet_checks(moves);
        // Where the drop-mate rule lets the drop be played and the dropper lose, it is still
        // never a mating move; where it is illegal the generator has left it out already.
        if self.rules().drop_mate == DropMateRule::Loses {
            let mut kept = start;
            for index in start..moves.len() {
                let mv = moves[index];
                let restricted =
                    matches!(mv.kind(), MoveKind::Drop { .. }) && self.is_restricted_drop_mate(mv);
                if !restricted {
                    moves[kept] = mv;
                    kept += 1;
                }
            }
            moves.truncate(kept);
        }
    }

    fn generate_evasions(&mut self, moves: &mut Vec<Move>) {
        self.generate_legal(moves);
    }

    fn has_lost(&self, _color: Color) -> bool {
        false
    }
}

/// Whether the side to move can remove every royal of `victim` with one move.
fn can_remove_last_royal(position: &mut TenjikuPosition, victim: Color) -> bool {
    if position.royal_count(victim) == 0 {
        return true;
    }
    let mut captures = Vec::with_capacity(64);
    position.generate_captures(&mut captures);
    captures.into_iter().any(|mv| {
        let undo = position.make_move(mv);
        let removed = position.royal_count(victim) == 0;
        position.unmake_move(mv, undo);
        removed
    })
}

impl MateRules for TenjikuPosition {
    fn generate_checks(&mut self, moves: &mut Vec<Move>) {
        let us = self.side_to_move();
        let mut legal = Vec::with_capacity(256);
        self.generate_legal(&mut legal);
        for mv in legal {
            let undo = self.make_move(mv);
            // A move that takes the last royal at once wins outright: no check, and never
            // reached, since the defender's replies leave no such capture.
            let check = self.royal_count(!us) > 0 && self.royal_count(us) > 0 && {
                self.make_null_move();
                let threat = can_remove_last_royal(self, !us);
                self.unmake_null_move();
                threat
            };
            self.unmake_move(mv, undo);
            if check {
                moves.push(mv);
            }
        }
    }

    fn generate_evasions(&mut self, moves: &mut Vec<Move>) {
        let us = self.side_to_move();
        let mut legal = Vec::with_capacity(256);
        self.generate_legal(&mut legal);
        for mv in legal {
            let undo = self.make_move(mv);
            let safe = self.royal_count(us) > 0
                && (self.royal_count(!us) == 0 || !can_remove_last_royal(self, us));
            self.unmake_move(mv, undo);
            if safe {
                moves.push(mv);
            }
        }
    }

    fn has_lost(&self, color: Color) -> bool {
        self.royal_count(color) == 0
    }
}

/// What bounds a solve.
#[derive(Clone, Debug)]
pub struct MateLimits {
    /// The longest mate looked for, in the attacker's moves.
    pub max_moves: u32,
    /// Time after which the search gives up.
    pub time: Option<Duration>,
    /// Nodes after which the search gives up.
    pub nodes: Option<u64>,
    /// Set from elsewhere to stop the search.
    pub stop: Option<Arc<AtomicBool>>,
    /// The table's size in MiB.
    pub table_mib: usize,
}

impl MateLimits {
    /// Mates of at most `max_moves` attacker moves, no time or node limit, a 64 MiB table.
    pub fn moves(max_moves: u32) -> MateLimits {
        MateLimits {
            max_moves,
            time: None,
            nodes: None,
            stop: None,
            table_mib: 64,
        }
    }
}

/// Why a search ended without an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interrupted {
    /// The time limit.
    Time,
    /// The node limit.
    Nodes,
    /// Stopped from outside.
    Stopped,
    /// The proof or disproof numbers grew past what the search can count: too large a
    /// problem to settle.
    Exhausted,
}

/// What a solve found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// The shortest forced mate, with the defender's longest resistance: the attacker's moves
    /// and the replies, `2N - 1` moves for a mate in `N`.
    Mate(Vec<Move>),
    /// No forced mate of at most this many attacker moves.
    NoMate(u32),
    /// The search stopped before it knew.
    Unknown(Interrupted),
}

/// A solve's answer with its cost.
#[derive(Clone, Debug)]
pub struct MateReport {
    /// The answer.
    pub result: MateResult,
    /// Positions expanded.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

/// A step of a solve, reported as it goes.
#[derive(Clone, Debug)]
pub enum Progress {
    /// A mate of this many attacker moves is proven; shorter ones are looked for next.
    Found {
        /// Attacker moves.
        moves: u32,
        /// Nodes so far.
        nodes: u64,
    },
    /// The mate's length is known; the line is being read out.
    Shortest {
        /// Attacker moves.
        moves: u32,
        /// Nodes so far.
        nodes: u64,
    },
}

const INFINITE: u32 = 1 << 30;

/// Proof and disproof numbers of a position, with what a settled one rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Numbers {
    pn: u32,
    dn: u32,
    /// Proven: the plies of the proof found.
    plies: u16,
    /// Disproven only because a position repeats on the line that reached it.
    on_line: bool,
}

impl Numbers {
    const fn proven(plies: u16) -> Numbers {
        Numbers {
            pn: 0,
            dn: INFINITE,
            plies,
            on_line: false,
        }
    }

    const fn disproven(on_line: bool) -> Numbers {
        Numbers {
            pn: INFINITE,
            dn: 0,
            plies: 0,
            on_line,
        }
    }

    const fn open(pn: u32, dn: u32) -> Numbers {
        Numbers {
            pn,
            dn,
            plies: 0,
            on_line: false,
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    pn: u32,
    dn: u32,
    /// Open or disproven: the plies left when it was computed; proven: the proof's plies.
    plies: u16,
    used: bool,
    /// Nodes spent below it, which decides what a full bucket gives up.
    work: u32,
}

const BUCKET: usize = 4;

/// The solver's table: results keyed by position and plies left, bounded in memory.
struct Table {
    entries: Vec<Entry>,
    mask: usize,
}

impl Table {
    fn new(mib: usize) -> Table {
        let bytes = mib.clamp(1, 1 << 16) << 20;
        let buckets = (bytes / (BUCKET * std::mem::size_of::<Entry>()))
            .next_power_of_two()
            .max(2)
            / 2;
        Table {
            entries: vec![Entry::default(); buckets * BUCKET],
            mask: buckets - 1,
        }
    }

    fn bucket(&self, key: u64) -> std::ops::Range<usize> {
        let start = ((key >> 20) as usize & self.mask) * BUCKET;
        start..start + BUCKET
    }

    fn probe(&self, key: u64, plies: u16) -> Option<Numbers> {
        let mut found = None;
        for entry in &self.entries[self.bucket(key)] {
            if !entry.used || entry.key != key {
                continue;
            }
            if entry.pn == 0 && entry.plies <= plies {
                return Some(Numbers::proven(entry.plies));
            }
            if entry.dn == 0 && entry.plies >= plies {
                return Some(Numbers::disproven(false));
            }
            if entry.pn != 0 && entry.dn != 0 && entry.plies == plies {
                found = Some(Numbers::open(entry.pn, entry.dn));
            }
        }
        found
    }

    fn store(&mut self, key: u64, plies: u16, numbers: Numbers, work: u64) {
        let stored_plies = if numbers.pn == 0 {
            numbers.plies
        } else {
            plies
        };
        let entry = Entry {
            key,
            pn: numbers.pn,
            dn: numbers.dn,
            plies: stored_plies,
            used: true,
            work: work.min(u64::from(u32::MAX)) as u32,
        };
        let range = self.bucket(key);
        let bucket = &mut self.entries[range];
        let class = |e: &Entry| match (e.pn, e.dn) {
            (0, _) => 0,
            (_, 0) => 1,
            _ => 2,
        };
        let slot = bucket
            .iter()
            .position(|e| {
                e.used
                    && e.key == key
                    && class(e) == class(&entry)
                    && (class(e) != 2 || e.plies == stored_plies)
            })
            .or_else(|| bucket.iter().position(|e| !e.used))
            .unwrap_or_else(|| {
                let mut lightest = 0;
                for (index, e) in bucket.iter().enumerate() {
                    if e.work < bucket[lightest].work {
                        lightest = index;
                    }
                }
                lightest
            });
        let old = bucket[slot];
        // A settled result is never replaced by a weaker one of the same kind.
        if old.used && old.key == key && class(&old) == class(&entry) {
            let weaker = match class(&entry) {
                0 => old.plies <= entry.plies,
                1 => old.plies >= entry.plies,
                _ => false,
            };
            if weaker {
                return;
            }
        }
        bucket[slot] = entry;
    }
}

struct Child {
    mv: Move,
    numbers: Numbers,
}

struct Solver<'a, P: MateRules> {
    position: P,
    attacker: Color,
    table: Table,
    /// Keys of the positions on the current line, the current one last.
    line: Vec<u64>,
    nodes: u64,
    /// Nodes at which the clock and the stop flag are read next.
    next_check: u64,
    /// The limits' multiple the search may use: 2 while a proven mate's line is read out, so
    /// that a mate found near the end of the time is not lost for want of its line (in time,
    /// at most [`READOUT_GRACE`] more).
    allowance: u64,
    limits: &'a MateLimits,
    started: Instant,
    interrupted: Option<Interrupted>,
}

impl<P: MateRules> Solver<'_, P> {
    fn out_of_bounds(&mut self) -> bool {
        if self.interrupted.is_some() {
            return true;
        }
        if self
            .limits
            .nodes
            .is_some_and(|limit| self.nodes >= limit.saturating_mul(self.allowance))
        {
            self.interrupted = Some(Interrupted::Nodes);
        } else if self.nodes >= self.next_check {
            // Under a time limit the clock is read at every node (a Tenjiku node plays every
            // move and every reply, milliseconds of work; the clock costs tens of
            // nanoseconds), so that a search ends within a node of its time; else the stop
            // flag every 16 nodes.
            self.next_check = self.nodes + if self.limits.time.is_some() { 1 } else { 16 };
            if self
                .limits
                .stop
                .as_ref()
                .is_some_and(|stop| stop.load(Ordering::Relaxed))
            {
                self.interrupted = Some(Interrupted::Stopped);
            } else if self
                .limits
                .time
                .is_some_and(|time| self.started.elapsed() >= self.time_allowed(time))
            {
                self.interrupted = Some(Interrupted::Time);
            }
        }
        self.interrupted.is_some()
    }

    /// Whether the time has run out (read now, whatever the node count; only under a time
    /// limit): the search is then interrupted.
    fn time_is_up(&mut self) -> bool {
        if let Some(time) = self.limits.time
            && self.interrupted.is_none()
            && self.started.elapsed() >= self.time_allowed(time)
        {
            self.interrupted = Some(Interrupted::Time);
        }
        self.interrupted.is_some()
    }

    /// The time the search may take: `time`, and while a proven mate's line is read out a
    /// little more (as much again, at most [`READOUT_GRACE`]).
    fn time_allowed(&self, time: Duration) -> Duration {
        if self.allowance > 1 {
            time + time.min(READOUT_GRACE)
        } else {
            time
        }
    }

    /// The numbers a position starts with before it is searched: a table entry, or a cheap
    /// look (a defender without replies is mated; an attacker without plies has failed).
    fn first_numbers(&mut self, attacking: bool, plies: u16) -> Numbers {
        let key = self.position.key();
        if self.line.contains(&key) {
            return Numbers::disproven(true);
        }
        if let Some(numbers) = self.table.probe(key, plies) {
            return numbers;
        }
        if attacking {
            if plies == 0 || self.position.has_lost(self.attacker) {
                return Numbers::disproven(false);
            }
            Numbers::open(1, 1)
        } else {
            let mut replies = Vec::with_capacity(64);
            self.position.generate_evasions(&mut replies);
            if replies.is_empty() {
                let proven = Numbers::proven(0);
                self.table.store(key, plies, proven, 1);
                return proven;
            }
            if plies == 0 {
                return Numbers::disproven(false);
            }
            // Few replies: likely mated soon (df-pn+'s mobility start).
            Numbers::open(replies.len().min(INFINITE as usize / 2) as u32, 1)
        }
    }

    /// Searches the position until it is settled or its numbers reach the thresholds.
    fn search(&mut self, attacking: bool, plies: u16, pn_limit: u32, dn_limit: u32) -> Numbers {
        self.nodes += 1;
        let key = self.position.key();
        let work_before = self.nodes;
        let mut moves = Vec::with_capacity(64);
        if attacking {
            if plies == 0 || self.position.has_lost(self.attacker) {
                return self.settle(key, plies, Numbers::disproven(false), 1);
            }
            self.position.generate_checks(&mut moves);
        } else {
            self.position.generate_evasions(&mut moves);
            if moves.is_empty() {
                return self.settle(key, plies, Numbers::proven(0), 1);
            }
            if plies == 0 {
                return self.settle(key, plies, Numbers::disproven(false), 1);
            }
        }
        if moves.is_empty() {
            return self.settle(key, plies, Numbers::disproven(false), 1);
        }
        self.line.push(key);
        let mut children: Vec<Child> = Vec::with_capacity(moves.len());
        for mv in moves {
            // Each child's first look generates the other side's replies: in a big Tenjiku
            // position a hundred checks are a hundred move generations, so the clock is read
            // between them too.
            if self.time_is_up() {
                break;
            }
            let undo = self.position.make_move(mv);
            let numbers = self.first_numbers(!attacking, plies - 1);
            self.position.unmake_move(mv, undo);
            children.push(Child { mv, numbers });
        }
        if self.interrupted.is_some() {
            self.line.pop();
            return Numbers::open(1, 1);
        }
        let mut numbers;
        loop {
            numbers = combine(attacking, &children);
            if numbers.pn == 0
                || numbers.dn == 0
                || numbers.pn >= pn_limit
                || numbers.dn >= dn_limit
                || self.out_of_bounds()
            {
                break;
            }
            let (best, second) = if attacking {
                most_promising(&children, |n| n.pn)
            } else {
                most_promising(&children, |n| n.dn)
            };
            let chosen = children[best].numbers;
            let (child_pn_limit, child_dn_limit) = if attacking {
                (
                    pn_limit.min(widen(second)),
                    rest_of(dn_limit, numbers.dn, chosen.dn),
                )
            } else {
                (
                    rest_of(pn_limit, numbers.pn, chosen.pn),
                    dn_limit.min(widen(second)),
                )
            };
            let mv = children[best].mv;
            let undo = self.position.make_move(mv);
            let result = self.search(!attacking, plies - 1, child_pn_limit, child_dn_limit);
            self.position.unmake_move(mv, undo);
            children[best].numbers = result;
        }
        self.line.pop();
        let work = self.nodes - work_before + 1;
        if self.interrupted.is_some() {
            return numbers;
        }
        self.settle(key, plies, numbers, work)
    }

    fn settle(&mut self, key: u64, plies: u16, numbers: Numbers, work: u64) -> Numbers {
        if !numbers.on_line {
            self.table.store(key, plies, numbers, work);
        }
        numbers
    }

    /// Whether the position (the attacker to move when `attacking`) is mated within `plies`:
    /// the proof's plies, `None` when it is not, `Err` when the search was stopped.
    fn prove(&mut self, attacking: bool, plies: u16) -> Result<Option<u16>, Interrupted> {
        self.line.clear();
        let numbers = self.search(attacking, plies, INFINITE - 1, INFINITE - 1);
        if let Some(why) = self.interrupted {
            return Err(why);
        }
        // Numbers that grew past what the search counts settle nothing.
        if numbers.pn != 0 && numbers.dn != 0 {
            return Err(Interrupted::Exhausted);
        }
        Ok((numbers.pn == 0).then_some(numbers.plies))
    }

    /// The fewest plies within which the position is mated, knowing it is within `plies`.
    fn shortest(&mut self, attacking: bool, mut plies: u16) -> Result<u16, Interrupted> {
        while plies >= 2 {
            match self.prove(attacking, plies - 2)? {
                Some(shorter) => plies = shorter,
                None => break,
            }
        }
        Ok(plies)
    }

    /// The line of a mate known to take exactly `plies`: the attacker's first move that keeps
    /// the length, the defender's reply that makes the rest longest.
    fn line_of(&mut self, mut plies: u16) -> Result<Vec<Move>, Interrupted> {
        let mut line = Vec::with_capacity(usize::from(plies));
        let mut attacking = true;
        while plies > 0 {
            let mut moves = Vec::with_capacity(64);
            if attacking {
                self.position.generate_checks(&mut moves);
            } else {
                self.position.generate_evasions(&mut moves);
            }
            let mut chosen: Option<(Move, u16)> = None;
            for mv in moves {
                let undo = self.position.make_move(mv);
                let length = match self.prove(!attacking, plies - 1) {
                    Ok(Some(found)) => self.shortest(!attacking, found).map(Some),
                    Ok(None) => Ok(None),
                    Err(why) => Err(why),
                };
                self.position.unmake_move(mv, undo);
                let Some(length) = length? else { continue };
                let better = match chosen {
                    None => true,
                    Some((_, best)) => {
                        if attacking {
                            length < best
                        } else {
                            length > best
                        }
                    }
                };
                if better {
                    chosen = Some((mv, length));
                }
                if attacking && length + 1 == plies {
                    break;
                }
            }
            // Every move was proven to lead to mate within the plies, so one is found; a
            // table that lost the proof leaves the line short rather than wrong.
            let Some((mv, length)) = chosen else { break };
            line.push(mv);
            self.position.make_move(mv);
            plies = length;
            attacking = !attacking;
        }
        Ok(line)
    }
}

/// A node's numbers from its children's.
fn combine(attacking: bool, children: &[Child]) -> Numbers {
    if attacking {
        let mut pn = INFINITE;
        let mut dn: u32 = 0;
        let mut plies = u16::MAX;
        let mut on_line = false;
        for child in children {
            let n = child.numbers;
            pn = pn.min(n.pn);
            dn = dn.saturating_add(n.dn).min(INFINITE);
            if n.pn == 0 {
                plies = plies.min(n.plies.saturating_add(1));
            }
            on_line |= n.on_line;
        }
        if pn == 0 {
            Numbers::proven(plies)
        } else if dn == 0 {
            Numbers::disproven(on_line)
        } else {
            Numbers::open(pn, dn)
        }
    } else {
        let mut pn: u32 = 0;
        let mut dn = INFINITE;
        let mut plies = 0u16;
        let mut settled_off_line = false;
        let mut settled_on_line = false;
        for child in children {
            let n = child.numbers;
            pn = pn.saturating_add(n.pn).min(INFINITE);
            dn = dn.min(n.dn);
            plies = plies.max(n.plies.saturating_add(1));
            if n.dn == 0 {
                if n.on_line {
                    settled_on_line = true;
                } else {
                    settled_off_line = true;
                }
            }
        }
        if dn == 0 {
            Numbers::disproven(settled_on_line && !settled_off_line)
        } else if pn == 0 {
            Numbers::proven(plies)
        } else {
            Numbers::open(pn, dn)
        }
    }
}

/// The child with the smallest number, and the second smallest number.
fn most_promising(children: &[Child], number: impl Fn(&Numbers) -> u32) -> (usize, u32) {
    let mut best = 0;
    let mut best_value = INFINITE;
    let mut second = INFINITE;
    for (index, child) in children.iter().enumerate() {
        let value = number(&child.numbers);
        if value < best_value {
            second = best_value;
            best_value = value;
            best = index;
        } else if value < second {
            second = value;
        }
    }
    (best, second)
}

/// A threshold a little above the second-best child's, so the search does not switch back and
/// forth between two close children (the 1 + ε trick).
fn widen(second: u32) -> u32 {
    second
        .saturating_add(second / 4)
        .saturating_add(1)
        .min(INFINITE)
}

/// The part of a sum threshold left to one child, the others' share taken off.
fn rest_of(limit: u32, total: u32, child: u32) -> u32 {
    if limit >= INFINITE - 1 {
        return INFINITE - 1;
    }
    limit
        .saturating_sub(total)
        .saturating_add(child)
        .min(INFINITE)
}

/// The most time past its limit a search takes to read out the line of a mate it proved just
/// before the limit: a caller that asks for a time gets its answer within a few milliseconds
/// of it.
pub const READOUT_GRACE: Duration = Duration::from_millis(10);

/// The plies of a mate of `moves` attacker moves, within the solver's counter.
fn plies_for(moves: u32) -> u16 {
    u16::try_from(moves.saturating_mul(2).saturating_sub(1))
        .unwrap_or(u16::MAX - 1)
        .min(u16::MAX - 1)
}

impl<'a, P: MateRules> Solver<'a, P> {
    fn new(position: &P, limits: &'a MateLimits, started: Instant) -> Solver<'a, P> {
        Solver {
            position: position.clone(),
            attacker: position.side_to_move(),
            table: Table::new(limits.table_mib),
            line: Vec::with_capacity(usize::from(plies_for(limits.max_moves)) + 1),
            nodes: 0,
            next_check: 16,
            allowance: 1,
            limits,
            started,
            interrupted: None,
        }
    }
}

/// Whether every attacker move of `line`, a mate from `position` (the attacker to move) as
/// [`solve`] gives it, is the only check that mates that quickly: what makes a tsume a problem
/// with one answer. Every other check at each step is searched for a mate as short.
pub fn is_only_solution<P: MateRules>(
    position: &P,
    line: &[Move],
    limits: &MateLimits,
) -> Result<bool, Interrupted> {
    let mut solver = Solver::new(position, limits, Instant::now());
    let total = line.len();
    for (index, &mv) in line.iter().enumerate() {
        if index % 2 == 0 {
            let plies_left = u16::try_from(total - index).unwrap_or(u16::MAX - 1);
            let mut checks = Vec::with_capacity(64);
            solver.position.generate_checks(&mut checks);
            for check in checks.into_iter().filter(|&c| c != mv) {
                let undo = solver.position.make_move(check);
                let mated = solver.prove(false, plies_left - 1);
                solver.position.unmake_move(check, undo);
                if mated?.is_some() {
                    return Ok(false);
                }
            }
        }
        solver.position.make_move(mv);
    }
    Ok(true)
}

/// Finds the shortest mate of at most `limits.max_moves` attacker moves from `position` (the
/// attacker to move), every attacking move a check, with the defender's longest resistance.
pub fn solve<P: MateRules>(
    position: &P,
    limits: &MateLimits,
    progress: &mut dyn FnMut(&Progress),
) -> MateReport {
    let started = Instant::now();
    let max_plies = plies_for(limits.max_moves);
    let mut solver = Solver::new(position, limits, started);
    let result = (|| -> Result<MateResult, Interrupted> {
        if max_plies == 0 {
            return Ok(MateResult::NoMate(0));
        }
        let Some(found) = solver.prove(true, max_plies)? else {
            return Ok(MateResult::NoMate(limits.max_moves));
        };
        progress(&Progress::Found {
            moves: u32::from(found).div_ceil(2),
            nodes: solver.nodes,
        });
        let mut plies = found;
        while plies >= 3 {
            match solver.prove(true, plies - 2)? {
                Some(shorter) => {
                    plies = shorter;
                    progress(&Progress::Found {
                        moves: u32::from(plies).div_ceil(2),
                        nodes: solver.nodes,
                    });
                }
                None => break,
            }
        }
        progress(&Progress::Shortest {
            moves: u32::from(plies).div_ceil(2),
            nodes: solver.nodes,
        });
        solver.allowance = 2;
        Ok(MateResult::Mate(solver.line_of(plies)?))
    })();
    MateReport {
        result: result.unwrap_or_else(MateResult::Unknown),
        nodes: solver.nodes,
        elapsed: started.elapsed(),
    }
}

/// [`solve`] on a position of any game.
pub fn solve_any(
    position: &AnyPosition,
    limits: &MateLimits,
    progress: &mut dyn FnMut(&Progress),
) -> MateReport {
    match position {
        AnyPosition::Tori(p) => solve(p, limits, progress),
        AnyPosition::Wa(p) => solve(p, limits, progress),
        AnyPosition::Tenjiku(p) => solve(p.as_ref(), limits, progress),
    }
}
