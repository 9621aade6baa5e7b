//! A second, deliberately plain Tenjiku move generator, written from the seed's piece
//! descriptions and the rules page rather than from the library's tables. It walks every path
//! of every power one square at a time on a copy of the board, works out each path's effect
//! (captures, burns, the mover's fate) by playing it out, and keeps each effect once. The
//! library's bitboard generator must produce exactly the same set of effects.

use std::collections::{BTreeMap, BTreeSet};

pub type Sq = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    Sente,
    Gote,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::Sente => Side::Gote,
            Side::Gote => Side::Sente,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Man {
    pub side: Side,
    /// SFEN code in upper case, e.g. `+E!`.
    pub code: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    pub lion_hawk_tsa: bool,
    pub free_eagle_japanese: bool,
    pub demon_adams: bool,
    pub range_jump_always: bool,
    pub promotion_entry: bool,
}

#[derive(Clone)]
pub struct Board {
    pub cells: Vec<Option<Man>>,
    pub deferred: Vec<bool>,
    pub side: Side,
}

/// One effect: what perft counts as one move.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Effect {
    pub from: Sq,
    pub to: Sq,
    pub captured: Vec<Sq>,
    pub burned: Vec<Sq>,
    pub mover_burned: bool,
    pub promote: bool,
    pub declines: bool,
}

// Directions as (forward, left) for the side that moves.
const F: (i32, i32) = (1, 0);
const FL: (i32, i32) = (1, 1);
const L: (i32, i32) = (0, 1);
const BL: (i32, i32) = (-1, 1);
const B: (i32, i32) = (-1, 0);
const BR: (i32, i32) = (-1, -1);
const R: (i32, i32) = (0, -1);
const FR: (i32, i32) = (1, -1);
const ALL8: &[(i32, i32)] = &[F, FL, L, BL, B, BR, R, FR];
const ORTH: &[(i32, i32)] = &[F, L, B, R];
const DIAG: &[(i32, i32)] = &[FL, BL, BR, FR];

#[derive(Clone, Copy)]
enum Power {
    Step(&'static [(i32, i32)]),
    Slide(&'static [(i32, i32)]),
    Upto2(&'static [(i32, i32)]),
    /// Leap to `distance` squares along each direction.
    Leap(&'static [(i32, i32)], i32),
    Knight,
    RangeJump(&'static [(i32, i32)], u8),
    Area(u8),
    Lion,
    LionLine(&'static [(i32, i32)]),
    Tetrarch,
}

use Power::*;

struct KindInfo {
    powers: Vec<Power>,
    rank: u8,
    royal: bool,
    burns: bool,
    promotes_to: Option<&'static str>,
    /// Ranks from the far side where an unpromoted piece of this kind must promote.
    forced_ranks: u8,
}

/// How a piece written `code` moves, from the seed's descriptions.
fn moves_as(code: &str, rules: &Rules) -> (Vec<Power>, u8, bool, bool) {
    // (powers, rank, royal, burns)
    let plain = |p: Vec<Power>| (p, 0u8, false, false);
    match code {
        "K" | "+E" => (vec![Step(ALL8)], 5, true, false),
        "Q!" | "+R!" => (vec![Slide(ALL8), RangeJump(ALL8, 4)], 4, false, false),
        "V!" | "+B!" => (
            vec![Slide(DIAG), RangeJump(DIAG, 3), Area(3)],
            3,
            false,
            false,
        ),
        "R!" | "+E!" => (vec![Slide(ORTH), RangeJump(ORTH, 2)], 2, false, false),
        "B!" | "+F!" => (vec![Slide(DIAG), RangeJump(DIAG, 2)], 2, false, false),
        "Q'" | "+Q" => {
            if rules.free_eagle_japanese {
                plain(vec![Slide(DIAG), RangeJump(ORTH, 1)])
            } else {
                plain(vec![Slide(ALL8), Leap(ORTH, 2)])
            }
        }
        "Q" | "+X" => plain(vec![Slide(ALL8)]),
        // Soaring eagle: ranges except diagonally forward; lion power diagonally forward.
        "E!" | "+D" => plain(vec![Slide(&[F, L, B, R, BL, BR]), LionLine(&[FL, FR])]),
        // Horned falcon: ranges except straight forward; lion power straight forward.
        "F!" | "+H" => plain(vec![Slide(&[FL, L, BL, B, BR, R, FR]), LionLine(&[F])]),
        "W!" | "+S'" => plain(vec![Slide(&[FL, FR, BL, BR, L, R]), Upto2(&[F, B])]),
        "C!" | "+V'" => plain(vec![Slide(&[FL, FR, BL, BR, F, B]), Upto2(&[L, R])]),
        "D!" | "+W!" => (
            vec![Slide(&[FL, FR, BL, BR, F, B]), Area(3)],
            0,
            false,
            true,
        ),
        "H!" | "+L!" => {
            if rules.lion_hawk_tsa {
                plain(vec![Slide(DIAG), Area(2)])
            } else {
                plain(vec![Slide(DIAG), Lion])
            }
        }
        "L!" | "+O" => plain(vec![Lion]),
        "D" | "+R" => plain(vec![Slide(ORTH), Step(DIAG)]),
        "H" | "+B" => plain(vec![Slide(DIAG), Step(ORTH)]),
        "R" | "+G" => plain(vec![Slide(ORTH)]),
        "B" | "+F" => plain(vec![Slide(DIAG)]),
        "O" => plain(vec![Step(DIAG), Leap(ORTH, 2)]),
        "X" => plain(vec![Step(ORTH), Leap(DIAG, 2)]),
        "E" => plain(vec![Step(&[F, FL, L, BL, BR, R, FR])]),
        "T" => plain(vec![Step(&[FL, L, BL, B, BR, R, FR])]),
        "F" => plain(vec![Step(&[F, FL, BL, B, BR, FR])]),
        "G" | "+P" => plain(vec![Step(&[F, FL, L, B, R, FR])]),
        "S" => plain(vec![Step(&[F, FL, FR, BL, BR])]),
        "C" => plain(vec![Step(&[F, B, FL, FR])]),
        "V" | "+S" => plain(vec![Slide(&[F, B]), Step(&[L, R])]),
        "M" | "+C" => plain(vec![Slide(&[L, R]), Step(&[F, B])]),
        "A" => plain(vec![Slide(&[F, B])]),
        "V'" | "+I" => plain(vec![Slide(&[F]), Upto2(&[L, R]), Step(&[B])]),
        "S'" | "+N" => plain(vec![Slide(&[L, R]), Upto2(&[F]), Step(&[B])]),
        "L" => plain(vec![Slide(&[F])]),
        "N" => plain(vec![Knight]),
        "I" => plain(vec![Step(&[F, FL, FR])]),
        "D'" => plain(vec![Step(&[F, BL, BR])]),
        "P" => plain(vec![Step(&[F])]),
        "+C!" => plain(vec![Tetrarch]),
        "+T" => plain(vec![Slide(&[F, B]), Step(ALL8)]),
        "+V" => plain(vec![Slide(&[FL, FR, BL, BR, F, B])]),
        "+M" => plain(vec![Slide(&[FL, FR, BL, BR, L, R])]),
        "+A" => plain(vec![Slide(&[F, B, BL, BR])]),
        "+L" => plain(vec![Slide(&[F, B, FL, FR])]),
        "+D'" => plain(vec![Slide(&[F, BL, BR])]),
        other => panic!("oracle: unknown code {other}"),
    }
}

fn info(code: &'static str, rules: &Rules) -> KindInfo {
    let (powers, rank, royal, burns) = moves_as(code, rules);
    let promotes_to =
        if code.starts_with('+') || matches!(code, "K" | "Q!" | "V!" | "Q'" | "H!" | "D!") {
            None
        } else {
            Some(code)
        };
    let forced_ranks = match code {
        "P" | "L" | "I" => 1,
        "N" => 2,
        _ => 0,
    };
    KindInfo {
        powers,
        rank,
        royal,
        burns,
        promotes_to,
        forced_ranks,
    }
}

pub const CODES: &[&str] = &[
    "K", "Q!", "V!", "R!", "B!", "Q'", "Q", "E!", "F!", "W!", "C!", "D!", "H!", "L!", "D", "H",
    "R", "B", "O", "X", "E", "T", "F", "G", "S", "C", "V", "M", "A", "V'", "S'", "L", "N", "I",
    "D'", "P", "+R!", "+B!", "+Q", "+E!", "+F!", "+W!", "+C!", "+L!", "+D", "+H", "+R", "+B", "+O",
    "+X", "+E", "+T", "+F", "+G", "+S", "+C", "+V", "+M", "+A", "+V'", "+S'", "+L", "+N", "+I",
    "+D'", "+P",
];

fn intern(code: &str) -> Option<&'static str> {
    CODES.iter().copied().find(|&c| c == code)
}

impl Board {
    /// Reads the board part of an SFEN plus side and deferral marks.
    pub fn from_sfen(text: &str) -> Board {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let mut cells = vec![None; 256];
        let mut deferred = vec![false; 256];
        for (rank, row) in fields[0].split('/').enumerate() {
            let chars: Vec<char> = row.chars().collect();
            let mut i = 0;
            let mut file = 16usize;
            while i < chars.len() {
                if chars[i].is_ascii_digit() {
                    let mut n = 0;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        n = n * 10 + chars[i].to_digit(10).unwrap() as usize;
                        i += 1;
                    }
                    file -= n;
                    continue;
                }
                let mut code = String::new();
                if chars[i] == '+' {
                    code.push('+');
                    i += 1;
                }
                let letter = chars[i];
                i += 1;
                code.push(letter.to_ascii_uppercase());
                if i < chars.len() && (chars[i] == '\'' || chars[i] == '!') {
                    code.push(chars[i]);
                    i += 1;
                }
                let square = rank * 16 + file - 1;
                if i < chars.len() && chars[i] == '=' {
                    deferred[square] = true;
                    i += 1;
                }
                let side = if letter.is_ascii_uppercase() {
                    Side::Sente
                } else {
                    Side::Gote
                };
                cells[square] = Some(Man {
                    side,
                    code: intern(&code).expect("known code"),
                });
                file -= 1;
            }
        }
        let side = if fields[1] == "b" {
            Side::Sente
        } else {
            Side::Gote
        };
        Board {
            cells,
            deferred,
            side,
        }
    }

    fn xy(square: Sq) -> (i32, i32) {
        ((square % 16) as i32, (square / 16) as i32)
    }

    /// The square `forward` ahead and `left` to the left of `square` for `side`.
    fn shift(square: Sq, side: Side, (forward, left): (i32, i32), times: i32) -> Option<Sq> {
        let (x, y) = Board::xy(square);
        let (dx, dy) = match side {
            Side::Sente => (left, -forward),
            Side::Gote => (-left, forward),
        };
        let (nx, ny) = (x + dx * times, y + dy * times);
        ((0..16).contains(&nx) && (0..16).contains(&ny)).then(|| (ny * 16 + nx) as usize)
    }

    fn king_neighbours(square: Sq) -> Vec<Sq> {
        ALL8.iter()
            .filter_map(|&d| Board::shift(square, Side::Sente, d, 1))
            .collect()
    }

    fn in_zone(side: Side, square: Sq) -> bool {
        let rank = square / 16;
        match side {
            Side::Sente => rank < 5,
            Side::Gote => rank >= 11,
        }
    }

    fn far_rank_depth(side: Side, square: Sq) -> usize {
        let rank = square / 16;
        match side {
            Side::Sente => rank + 1,
            Side::Gote => 16 - rank,
        }
    }

    /// Every effect of the side to move, each once.
    pub fn effects(&self, rules: &Rules) -> BTreeSet<Effect> {
        let us = self.side;
        let has_royal = |side: Side| {
            self.cells
                .iter()
                .flatten()
                .any(|m| m.side == side && info(m.code, rules).royal)
        };
        let mut out = BTreeSet::new();
        if !has_royal(Side::Sente) || !has_royal(Side::Gote) {
            return out;
        }
        for from in 0..256 {
            let Some(man) = self.cells[from] else {
                continue;
            };
            if man.side != us {
                continue;
            }
            // Paths of this piece: (final square, captures in order, squares visited).
            let mut paths: Vec<(Sq, Vec<Sq>, Vec<Sq>)> = Vec::new();
            let kind = info(man.code, rules);
            let own = |s: Sq| self.cells[s].is_some_and(|m| m.side == us);
            let enemy = |s: Sq| self.cells[s].is_some_and(|m| m.side != us);
            let single = |to: Sq| {
                (
                    to,
                    if enemy(to) { vec![to] } else { vec![] },
                    vec![from, to],
                )
            };
            for power in &kind.powers {
                match *power {
                    Step(dirs) => {
                        for &d in dirs {
                            if let Some(t) = Board::shift(from, us, d, 1)
                                && !own(t)
                            {
                                paths.push(single(t));
                            }
                        }
                    }
                    Slide(dirs) | Upto2(dirs) => {
                        let limit = if matches!(power, Upto2(_)) { 2 } else { 15 };
                        for &d in dirs {
                            for k in 1..=limit {
                                let Some(t) = Board::shift(from, us, d, k) else {
                                    break;
                                };
                                if own(t) {
                                    break;
                                }
                                paths.push(single(t));
                                if enemy(t) {
                                    break;
                                }
                            }
                        }
                    }
                    Leap(dirs, distance) => {
                        for &d in dirs {
                            if let Some(t) = Board::shift(from, us, d, distance)
                                && !own(t)
                            {
                                paths.push(single(t));
                            }
                        }
                    }
                    Knight => {
                        for d in [(2, 1), (2, -1)] {
                            if let Some(t) = Board::shift(from, us, d, 1)
                                && !own(t)
                            {
                                paths.push(single(t));
                            }
                        }
                    }
                    RangeJump(dirs, level) => {
                        for &d in dirs {
                            let mut jumped = 0;
                            for k in 1..16 {
                                let Some(t) = Board::shift(from, us, d, k) else {
                                    break;
                                };
                                match self.cells[t] {
                                    None => {
                                        if jumped == 0 || rules.range_jump_always {
                                            paths.push(single(t));
                                        }
                                    }
                                    Some(m) => {
                                        let rank = info(m.code, rules).rank;
                                        if m.side != us && (jumped == 0 || rank < level) {
                                            paths.push(single(t));
                                        }
                                        if rank >= level {
                                            break;
                                        }
                                        jumped += 1;
                                    }
                                }
                            }
                        }
                    }
                    Area(steps) => {
                        // Depth-first over king-step paths through empty squares.
                        let mut stack = vec![(from, 0u8, vec![from])];
                        while let Some((at, taken, visited)) = stack.pop() {
                            if taken == steps {
                                continue;
                            }
                            for next in Board::king_neighbours(at) {
                                if next != from && own(next) {
                                    continue;
                                }
                                let mut seen = visited.clone();
                                seen.push(next);
                                if next != from && enemy(next) {
                                    paths.push((next, vec![next], seen));
                                    continue;
                                }
                                paths.push((next, vec![], seen.clone()));
                                stack.push((next, taken + 1, seen));
                            }
                        }
                    }
                    Lion => {
                        for a in Board::king_neighbours(from) {
                            if own(a) {
                                continue;
                            }
                            paths.push(single(a));
                            for b in Board::king_neighbours(a) {
                                if b != from && own(b) {
                                    continue;
                                }
                                let mut captures = Vec::new();
                                if enemy(a) {
                                    captures.push(a);
                                }
                                if b != from && enemy(b) {
                                    captures.push(b);
                                }
                                paths.push((b, captures, vec![from, a, b]));
                            }
                        }
                        let (x, y) = Board::xy(from);
                        for t in 0..256 {
                            let (tx, ty) = Board::xy(t);
                            let distance = (tx - x).abs().max((ty - y).abs());
                            if distance == 2 && !own(t) {
                                paths.push(single(t));
                            }
                        }
                        paths.push((from, vec![], vec![from]));
                    }
                    LionLine(dirs) => {
                        for &d in dirs {
                            let Some(a) = Board::shift(from, us, d, 1) else {
                                continue;
                            };
                            if !own(a) {
                                paths.push(single(a));
                                let first = if enemy(a) { vec![a] } else { vec![] };
                                paths.push((from, first.clone(), vec![from, a, from]));
                                if let Some(b) = Board::shift(from, us, d, 2)
                                    && !own(b)
                                {
                                    let mut captures = first;
                                    if enemy(b) {
                                        captures.push(b);
                                    }
                                    paths.push((b, captures, vec![from, a, b]));
                                }
                            }
                            if let Some(b) = Board::shift(from, us, d, 2)
                                && !own(b)
                            {
                                paths.push(single(b));
                            }
                        }
                        paths.push((from, vec![], vec![from]));
                    }
                    Tetrarch => {
                        for a in Board::king_neighbours(from) {
                            if enemy(a) {
                                paths.push((from, vec![a], vec![from]));
                            }
                        }
                        for &d in DIAG {
                            for k in 2..16 {
                                let Some(t) = Board::shift(from, us, d, k) else {
                                    break;
                                };
                                if own(t) {
                                    break;
                                }
                                paths.push(single(t));
                                if enemy(t) {
                                    break;
                                }
                            }
                        }
                        for d in [L, R] {
                            let Some(second) = Board::shift(from, us, d, 2) else {
                                continue;
                            };
                            if own(second) {
                                continue;
                            }
                            paths.push(single(second));
                            if enemy(second) {
                                continue;
                            }
                            if let Some(third) = Board::shift(from, us, d, 3)
                                && !own(third)
                            {
                                paths.push(single(third));
                            }
                        }
                    }
                }
            }
            // Group paths by effect; a group may promote if any of its paths touches the zone.
            let mut groups: BTreeMap<(Sq, Vec<Sq>, Vec<Sq>, bool), bool> = BTreeMap::new();
            for (to, captures, visited) in paths {
                let (burned, mover_burned) = self.burns(from, to, &captures, man, rules);
                let mut captured = captures.clone();
                captured.sort();
                let touches = visited.iter().any(|&s| Board::in_zone(us, s));
                let entry = groups
                    .entry((to, captured, burned, mover_burned))
                    .or_insert(false);
                *entry |= touches;
            }
            for ((to, captured, burned, mover_burned), touches) in groups {
                let effect = |promote: bool, declines: bool| Effect {
                    from,
                    to,
                    captured: captured.clone(),
                    burned: burned.clone(),
                    mover_burned,
                    promote,
                    declines,
                };
                if kind.promotes_to.is_none() || mover_burned {
                    out.insert(effect(false, false));
                    continue;
                }
                if kind.forced_ranks > 0
                    && Board::far_rank_depth(us, to) <= kind.forced_ranks as usize
                {
                    out.insert(effect(true, false));
                    continue;
                }
                let captures = !captured.is_empty();
                let allowed = if rules.promotion_entry {
                    if captures {
                        Board::in_zone(us, from) || Board::in_zone(us, to)
                    } else {
                        !Board::in_zone(us, from) && Board::in_zone(us, to)
                    }
                } else {
                    touches && (captures || !self.deferred[from])
                };
                if allowed {
                    out.insert(effect(true, false));
                    out.insert(effect(false, !rules.promotion_entry));
                } else {
                    out.insert(effect(false, false));
                }
            }
        }
        out
    }

    /// Burns after a move of `man` from `from` to `to` that captured `captures`: the enemies it
    /// burned and whether it burned itself.
    fn burns(&self, from: Sq, to: Sq, captures: &[Sq], man: Man, rules: &Rules) -> (Vec<Sq>, bool) {
        let mut cells = self.cells.clone();
        for &c in captures {
            cells[c] = None;
        }
        cells[from] = None;
        cells[to] = Some(man);
        let them = man.side.other();
        let burner = |m: &Man| info(m.code, rules).burns;
        let around = Board::king_neighbours(to);
        let enemy_demon_near = around
            .iter()
            .any(|&s| cells[s].is_some_and(|m| m.side == them && burner(&m)));
        let mover_burns = burner(&man);
        let mut burned = Vec::new();
        if mover_burns && (!enemy_demon_near || rules.demon_adams) {
            for &s in &around {
                if let Some(m) = cells[s]
                    && m.side == them
                    && !burner(&m)
                {
                    burned.push(s);
                }
            }
        }
        burned.sort();
        (burned, enemy_demon_near)
    }
}
