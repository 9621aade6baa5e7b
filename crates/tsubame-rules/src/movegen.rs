//! Legal move generation.
//!
//! Legality is decided before a move is made: checkers and pinned pieces are found once per
//! position, so every non-royal move is tested with two masks and only royal moves need an
//! attack test. Counting (for perft) adds up target sets without building moves.

use crate::Color;
use crate::bitboard::Bitboard;
use crate::moves::Move;
use crate::position::Position;
use crate::runtime::GamePosition;
use crate::square::Square;
use crate::variant::{DropMateRule, Role};

const MAX_PINS: usize = 16;

/// Checkers and pins of the side to move.
pub(crate) struct CheckInfo<B> {
    pub checkers: B,
    /// Squares between the royal piece and a sliding checker.
    pub block: B,
    pub pinned: B,
    pin_squares: [u8; MAX_PINS],
    pin_lines: [B; MAX_PINS],
    pin_count: usize,
}

impl<B: Bitboard> CheckInfo<B> {
    /// Squares a pinned piece on `square` may move to without exposing the royal piece.
    #[inline]
    fn pin_line(&self, square: usize) -> B {
        let mut line = !B::EMPTY;
        for i in 0..self.pin_count {
            if self.pin_squares[i] as usize == square {
                line &= self.pin_lines[i];
            }
        }
        line
    }
}

/// Receives generated moves: collects them, or only counts them.
pub(crate) trait MoveSink<B: Bitboard> {
    /// Board moves from `from` to each target, with or without promotion.
    fn board_moves(&mut self, from: usize, targets: B, promote: bool);
    /// Drops of `role` on each target.
    fn drops(&mut self, role: Role, targets: B);
    /// One move.
    fn one(&mut self, mv: Move);
    /// Whether drops and exchanges are wanted at all.
    fn wants_hand_moves(&self) -> bool {
        true
    }
    /// The squares whose pieces' board moves are wanted (every square unless a sink looks for
    /// one move).
    #[inline(always)]
    fn wanted_from(&self) -> B {
        !B::EMPTY
    }
    /// Whether drops of `role` are wanted.
    #[inline(always)]
    fn wants_drops_of(&self, _role: Role) -> bool {
        true
    }
    /// The squares board moves to which are wanted (every square unless a sink collects only
    /// captures or only quiet moves): a royal piece's other targets are not tested for safety.
    #[inline(always)]
    fn wanted_to(&self) -> B {
        !B::EMPTY
    }
}

/// Looks for one given move among the legal moves, generating only the moves of its piece or
/// of its kind in hand.
struct Finder<B> {
    target: Move,
    /// The target's start square, or no square for a drop or an exchange.
    from: B,
    /// The kind a drop or exchange brings from hand.
    hand_role: Option<Role>,
    found: bool,
}

impl<B: Bitboard> MoveSink<B> for Finder<B> {
    #[inline]
    fn board_moves(&mut self, from: usize, targets: B, promote: bool) {
        let from = Square::from_index(from as u8);
        self.found |= targets
            .iter()
            .any(|to| Move::normal(from, Square::from_index(to as u8), promote) == self.target);
    }
    #[inline]
    fn drops(&mut self, role: Role, targets: B) {
        self.found |= targets
            .iter()
            .any(|to| Move::drop(role, Square::from_index(to as u8)) == self.target);
    }
    #[inline]
    fn one(&mut self, mv: Move) {
        self.found |= mv == self.target;
    }
    fn wants_hand_moves(&self) -> bool {
        self.hand_role.is_some()
    }
    #[inline(always)]
    fn wanted_from(&self) -> B {
        self.from
    }
    #[inline(always)]
    fn wants_drops_of(&self, role: Role) -> bool {
        self.hand_role == Some(role)
    }
}

/// Collects only the board moves that capture.
struct Captures<'a, B> {
    enemy: B,
    out: &'a mut Vec<Move>,
}

impl<B: Bitboard> MoveSink<B> for Captures<'_, B> {
    #[inline]
    fn board_moves(&mut self, from: usize, targets: B, promote: bool) {
        self.out.board_moves(from, targets & self.enemy, promote);
    }
    #[inline(always)]
    fn wanted_to(&self) -> B {
        self.enemy
    }
    #[inline]
    fn drops(&mut self, _role: Role, _targets: B) {}
    #[inline]
    fn one(&mut self, _mv: Move) {}
    fn wants_hand_moves(&self) -> bool {
        false
    }
}

/// Collects the moves that capture nothing: board moves to empty squares, drops, exchanges.
struct Quiets<'a, B> {
    enemy: B,
    out: &'a mut Vec<Move>,
}

impl<B: Bitboard> MoveSink<B> for Quiets<'_, B> {
    #[inline]
    fn board_moves(&mut self, from: usize, targets: B, promote: bool) {
        self.out.board_moves(from, targets & !self.enemy, promote);
    }
    #[inline(always)]
    fn wanted_to(&self) -> B {
        !self.enemy
    }
    #[inline]
    fn drops(&mut self, role: Role, targets: B) {
        self.out.drops(role, targets);
    }
    #[inline]
    fn one(&mut self, mv: Move) {
        self.out.push(mv);
    }
}

impl<B: Bitboard> MoveSink<B> for Vec<Move> {
    #[inline]
    fn board_moves(&mut self, from: usize, targets: B, promote: bool) {
        let from = Square::from_index(from as u8);
        for to in targets.iter() {
            self.push(Move::normal(from, Square::from_index(to as u8), promote));
        }
    }
    #[inline]
    fn drops(&mut self, role: Role, targets: B) {
        for to in targets.iter() {
            self.push(Move::drop(role, Square::from_index(to as u8)));
        }
    }
    #[inline]
    fn one(&mut self, mv: Move) {
        self.push(mv);
    }
}

/// Collects only the moves that give check and capture nothing: a piece that attacks the
/// opponent's royal piece from its new square, a piece whose step aside opens a line onto it,
/// a drop next to or in line with it.
struct QuietChecks<'a, B: Bitboard> {
    position: &'a Position<B>,
    /// The opponent's royal square.
    royal: usize,
    occupied: B,
    enemy: B,
    out: &'a mut Vec<Move>,
}

impl<B: Bitboard> QuietChecks<'_, B> {
    /// Whether the mover's pieces other than the one on `from` attack the royal square with
    /// `occupied` as the occupied squares.
    fn others_attack(&self, from: usize, occupied: B) -> bool {
        let us = self.position.side_to_move();
        !(self.position.attackers(self.royal, us, occupied) & !B::single(from)).is_empty()
    }
}

impl<B: Bitboard> MoveSink<B> for QuietChecks<'_, B> {
    fn board_moves(&mut self, from: usize, targets: B, promote: bool) {
        let targets = targets & !self.enemy;
        let Some(piece) = self.position.piece_of_code(self.position.mailbox[from]) else {
            return;
        };
        if targets.is_empty() {
            return;
        }
        let t = self.position.tables();
        let role = t.moved_role(piece.role, promote);
        let vacated = self.occupied ^ B::single(from);
        // The squares from which the moved piece, as what it becomes, attacks the royal piece.
        let direct = t.attacks(!piece.color, role, self.royal, vacated);
        let mut checking = targets & direct;
        // Leaving `from` can only uncover a line when it uncovers one with `to` still empty;
        // `to` may then block it again.
        if self.others_attack(from, vacated) {
            for to in (targets & !direct).iter() {
                if self.others_attack(from, vacated | B::single(to)) {
                    checking |= B::single(to);
                }
            }
        }
        self.out.board_moves(from, checking, promote);
    }

    fn drops(&mut self, role: Role, targets: B) {
        let them = !self.position.side_to_move();
        let direct = self
            .position
            .tables()
            .attacks(them, role, self.royal, self.occupied);
        self.out.drops(role, targets & direct);
    }

    fn one(&mut self, mv: Move) {
        if self.position.gives_check(mv) {
            self.out.push(mv);
        }
    }
}

/// Counts moves without building them.
pub(crate) struct Counter(pub u64);

impl<B: Bitboard> MoveSink<B> for Counter {
    #[inline(always)]
    fn board_moves(&mut self, _from: usize, targets: B, _promote: bool) {
        self.0 += targets.count() as u64;
    }
    #[inline(always)]
    fn drops(&mut self, _role: Role, targets: B) {
        self.0 += targets.count() as u64;
    }
    #[inline(always)]
    fn one(&mut self, _mv: Move) {
        self.0 += 1;
    }
}

impl<B: Bitboard> Position<B> {
    pub(crate) fn check_info(&self) -> CheckInfo<B> {
        let mut info = CheckInfo {
            checkers: B::EMPTY,
            block: B::EMPTY,
            pinned: B::EMPTY,
            pin_squares: [0; MAX_PINS],
            pin_lines: [B::EMPTY; MAX_PINS],
            pin_count: 0,
        };
        let us = self.side;
        let them = !us;
        let Some(royal) = self.royal_square(us) else {
            return info;
        };
        let t = self.tables;
        let occupied = self.occupied();
        let own = self.occupied_by(us);
        info.checkers = self.attackers(royal, them, occupied);
        for &role in &t.sliding_roles {
            let enemies = self.pieces(them, role);
            if enemies.is_empty() {
                continue;
            }
            let moves = &t.moves[t.piece_index(them, role)];
            for slide in &moves.slides {
                for enemy in enemies.iter() {
                    if !slide.rays[enemy].has(royal) {
                        continue;
                    }
                    let between = t.between(slide, enemy, royal);
                    let blockers = between & occupied;
                    if blockers.is_empty() {
                        info.block |= between;
                    } else if !blockers.has_several()
                        && !(blockers & own).is_empty()
                        && info.pin_count < MAX_PINS
                    {
                        info.pinned |= blockers;
                        info.pin_squares[info.pin_count] = blockers.lowest() as u8;
                        info.pin_lines[info.pin_count] = between | B::single(enemy);
                        info.pin_count += 1;
                    }
                }
            }
        }
        info
    }

    /// Generates every legal move into a sink.
    pub(crate) fn generate<S: MoveSink<B>>(&self, sink: &mut S) {
        let t = self.tables;
        let us = self.side;
        let them = !us;
        let occupied = self.occupied();
        let own = self.occupied_by(us);
        let info = self.check_info();
        let several_checkers = info.checkers.has_several();
        let evasion = if info.checkers.is_empty() {
            !B::EMPTY
        } else if several_checkers {
            B::EMPTY
        } else {
            info.checkers | info.block
        };
        let zone = t.zone[us.index()];
        let compulsory = t.spec.promotion.compulsory;

        let wanted_from = sink.wanted_from();
        let wanted_to = sink.wanted_to() & !own;
        for (r, role_spec) in t.spec.roles.iter().enumerate() {
            let role = Role(r as u8);
            let pieces = self.pieces(us, role) & wanted_from;
            if pieces.is_empty() {
                continue;
            }
            if role_spec.royal {
                for from in pieces.iter() {
                    let targets = t.attacks(us, role, from, occupied) & wanted_to;
                    let without_royal = occupied ^ B::single(from);
                    let mut safe = B::EMPTY;
                    for to in targets.iter() {
                        if self.attackers(to, them, without_royal).is_empty() {
                            safe |= B::single(to);
                        }
                    }
                    sink.board_moves(from, safe, false);
                }
                continue;
            }
            if evasion.is_empty() {
                continue;
            }
            let barred = t.drop_barred[t.piece_index(us, role)];
            for from in pieces.iter() {
                let mut targets = t.attacks(us, role, from, occupied) & wanted_to & evasion;
                if info.pinned.has(from) {
                    targets &= info.pin_line(from);
                }
                if targets.is_empty() {
                    continue;
                }
                if role_spec.promotes_to.is_none() {
                    sink.board_moves(from, targets, false);
                } else if compulsory {
                    if zone.has(from) {
                        sink.board_moves(from, targets, true);
                    } else {
                        sink.board_moves(from, targets & zone, true);
                        sink.board_moves(from, targets & !zone, false);
                    }
                } else {
                    let promoting = if zone.has(from) {
                        targets
                    } else {
                        targets & zone
                    };
                    sink.board_moves(from, promoting, true);
                    sink.board_moves(from, targets & !barred, false);
                }
            }
        }

        if !sink.wants_hand_moves() {
            return;
        }
        if self.rules.drops && !several_checkers {
            let empty = t.board & !occupied;
            let drop_targets = if info.checkers.is_empty() {
                empty
            } else {
                info.block & empty
            };
            if !drop_targets.is_empty() {
                self.generate_drops(sink, drop_targets);
            }
        }

        if info.checkers.is_empty() {
            for &exchanger in &t.exchanging_roles {
                let standing = self.pieces(us, exchanger) & zone;
                for square in standing.iter() {
                    for (r, role_spec) in t.spec.roles.iter().enumerate() {
                        let role = Role(r as u8);
                        if role != exchanger
                            && role_spec.exchangeable
                            && self.hands[t.piece_index(us, role)] > 0
                        {
                            sink.one(Move::exchange(role, Square::from_index(square as u8)));
                        }
                    }
                }
            }
        }
    }

    fn generate_drops<S: MoveSink<B>>(&self, sink: &mut S, drop_targets: B) {
        let t = self.tables;
        let us = self.side;
        let rc = t.role_count;
        for (r, role_spec) in t.spec.roles.iter().enumerate() {
            let role = Role(r as u8);
            if self.hands[us.index() * rc + r] == 0 || !sink.wants_drops_of(role) {
                continue;
            }
            let rule = role_spec.drop;
            let mut targets = drop_targets & !t.drop_barred[us.index() * rc + r];
            if let Some(max) = rule.max_per_file {
                let own_kind = self.pieces(us, role);
                for &file in &t.files {
                    if (own_kind & file).count() >= max as u32 {
                        targets &= !file;
                    }
                }
            }
            if rule.mate_restricted
                && self.rules.drop_mate == DropMateRule::Illegal
                && let Some(enemy_royal) = self.royal_square(!us)
            {
                let checking = targets & t.attacks(!us, role, enemy_royal, self.occupied());
                for to in checking.iter() {
                    let mv = Move::drop(role, Square::from_index(to as u8));
                    if self.move_mates(mv) {
                        targets &= !B::single(to);
                    }
                }
            }
            sink.drops(role, targets);
        }
    }

    /// Whether a legal move leaves the opponent in check with no legal reply.
    pub fn move_mates(&self, mv: Move) -> bool {
        let mut after = self.clone();
        after.make_move(mv);
        after.in_check() && !after.has_legal_move()
    }

    /// Every legal move, in generation order.
    ///
    /// ```
    /// use tsubame_rules::{tori, Options};
    /// let position = tori::start(&Options::defaults(tori::spec())).unwrap();
    /// let mut moves: Vec<String> = position.legal_moves().iter().map(|m| position.to_usi(*m)).collect();
    /// moves.sort();
    /// assert_eq!(moves[0], "1e1d");
    /// ```
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::with_capacity(128);
        self.generate(&mut moves);
        moves
    }

    /// Appends every legal move to `moves`.
    pub fn generate_legal(&self, moves: &mut Vec<Move>) {
        self.generate(moves);
    }

    /// Appends the legal moves that capture a piece (with their promotion choices).
    pub fn generate_captures(&self, moves: &mut Vec<Move>) {
        let enemy = self.occupied_by(!self.side);
        self.generate(&mut Captures { enemy, out: moves });
    }

    /// Appends the legal moves that capture nothing, those [`Position::generate_captures`]
    /// leaves out: together the two give every legal move once, so a search can try the
    /// captures before it generates the quiet moves and drops.
    ///
    /// ```
    /// use tsubame_rules::{tori, Options};
    /// let position = tori::start(&Options::defaults(tori::spec())).unwrap();
    /// let (mut captures, mut quiets) = (Vec::new(), Vec::new());
    /// position.generate_captures(&mut captures);
    /// position.generate_quiets(&mut quiets);
    /// assert!(quiets.iter().all(|mv| !captures.contains(mv)));
    /// assert_eq!(captures.len() + quiets.len(), position.legal_moves().len());
    /// ```
    pub fn generate_quiets(&self, moves: &mut Vec<Move>) {
        let enemy = self.occupied_by(!self.side);
        self.generate(&mut Quiets { enemy, out: moves });
    }

    /// Appends the legal moves that give check without capturing (promotions included): what
    /// a search's quiescence adds to the captures to see mates one move past its horizon.
    /// The same moves as filtering [`Position::legal_moves`] by [`Position::gives_check`] and
    /// leaving out captures, without playing any of them.
    ///
    /// ```
    /// use tsubame_rules::{tori, Options, Position};
    /// let rules = Options::defaults(tori::spec()).rule_set();
    /// // A swallow in hand checks only from the square in front of the phoenix.
    /// let position = Position::from_sfen(tori::tables(), "3k3/7/7/7/7/7/3K3 b S 1", rules).unwrap();
    /// let mut checks = Vec::new();
    /// position.generate_quiet_checks(&mut checks);
    /// let mut checks: Vec<String> = checks.iter().map(|m| position.to_usi(*m)).collect();
    /// checks.sort();
    /// assert_eq!(checks, ["S*4b"]);
    /// ```
    pub fn generate_quiet_checks(&self, moves: &mut Vec<Move>) {
        let Some(royal) = self.royal_square(!self.side) else {
            return;
        };
        self.generate(&mut QuietChecks {
            position: self,
            royal,
            occupied: self.occupied(),
            enemy: self.occupied_by(!self.side),
            out: moves,
        });
    }

    /// How many legal moves there are, without building them.
    pub fn count_legal(&self) -> u64 {
        let mut counter = Counter(0);
        self.generate(&mut counter);
        counter.0
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        self.count_legal() > 0
    }

    /// Whether a move is legal here. Any `Move` value may be asked about. Only the moves of
    /// the piece that `mv` moves (or of the kind it brings from hand) are generated, so this
    /// is cheap enough to test a remembered move before generating the rest.
    ///
    /// ```
    /// use tsubame_rules::{tori, Options};
    /// let position = tori::start(&Options::defaults(tori::spec())).unwrap();
    /// let advance = position.parse_usi("1e1d").unwrap();
    /// assert!(position.is_legal(advance));
    /// // A move remembered from another position need not be legal here.
    /// let mut after = position.clone();
    /// after.play(advance).unwrap();
    /// assert!(!after.is_legal(advance));
    /// ```
    pub fn is_legal(&self, mv: Move) -> bool {
        let squares = self.tables.squares;
        let (from, hand_role) = match mv.kind() {
            crate::MoveKind::Normal { from, .. } if from.index() < squares => {
                (B::single(from.index()), None)
            }
            crate::MoveKind::Normal { .. } => return false,
            crate::MoveKind::Drop { role, .. } | crate::MoveKind::Exchange { role, .. } => {
                (B::EMPTY, Some(role))
            }
        };
        let mut finder = Finder {
            target: mv,
            from,
            hand_role,
            found: false,
        };
        self.generate(&mut finder);
        finder.found
    }

    /// Whether a legal move gives check, read without playing it (an exchange is played on a
    /// copy). In a legal position the side not to move is never in check, so a move checks
    /// only with the piece it places or by opening a line from the square it leaves: a placed
    /// piece only adds a blocker elsewhere.
    ///
    /// ```
    /// use tsubame_rules::{tori, Options, Position};
    /// let rules = Options::defaults(tori::spec()).rule_set();
    /// let position = Position::from_sfen(tori::tables(), "3k3/7/7/7/7/7/3K3 b S 1", rules).unwrap();
    /// let check = position.parse_usi("S*4b").unwrap();
    /// let no_check = position.parse_usi("S*4c").unwrap();
    /// assert!(position.gives_check(check));
    /// assert!(!position.gives_check(no_check));
    /// // The pheasant steps off the file and opens the quail's line onto the phoenix.
    /// let line = Position::from_sfen(tori::tables(), "3k3/7/7/3P3/7/7/3L2K b - 1", rules).unwrap();
    /// assert!(line.gives_check(line.parse_usi("4d3e").unwrap()));
    /// ```
    pub fn gives_check(&self, mv: Move) -> bool {
        let t = self.tables;
        let us = self.side;
        let Some(royal) = self.royal_square(!us) else {
            return false;
        };
        match mv.kind() {
            crate::MoveKind::Drop { role, to } => {
                let to = to.index();
                let occupied = self.occupied() | B::single(to);
                t.attacks(!us, role, royal, occupied).has(to)
            }
            crate::MoveKind::Normal { from, to, promote } => {
                let (from, to) = (from.index(), to.index());
                let Some(piece) = self.piece_of_code(self.mailbox[from]) else {
                    return false;
                };
                let role = t.moved_role(piece.role, promote);
                let occupied = (self.occupied() ^ B::single(from)) | B::single(to);
                if t.attacks(!us, role, royal, occupied).has(to) {
                    return true;
                }
                // A line opens onto the royal piece only through a square some slide from it
                // reaches.
                t.slide_reach[(!us).index() * t.squares + royal].has(from)
                    && !(self.attackers(royal, us, occupied) & !B::single(from)).is_empty()
            }
            crate::MoveKind::Exchange { .. } => {
                let mut after = self.clone();
                after.make_move(mv);
                after.in_check()
            }
        }
    }

    /// Whether a legal move is a drop, of a kind under the drop-mate rule, that mates.
    pub fn is_restricted_drop_mate(&self, mv: Move) -> bool {
        match mv.kind() {
            crate::MoveKind::Drop { role, .. } => {
                self.tables.spec.roles[role.index()].drop.mate_restricted && self.move_mates(mv)
            }
            _ => false,
        }
    }

    /// Moves of the side to move that ignore the own royal piece's safety (pseudo-legal):
    /// every move the pieces can make, every allowed drop.
    pub fn pseudo_legal_moves(&self) -> Vec<Move> {
        let t = self.tables;
        let us = self.side;
        let occupied = self.occupied();
        let own = self.occupied_by(us);
        let zone = t.zone[us.index()];
        let mut moves = Vec::with_capacity(128);
        for (r, role_spec) in t.spec.roles.iter().enumerate() {
            let role = Role(r as u8);
            let barred = t.drop_barred[t.piece_index(us, role)];
            for from in self.pieces(us, role).iter() {
                let targets = t.attacks(us, role, from, occupied) & !own;
                if role_spec.promotes_to.is_none() {
                    moves.board_moves(from, targets, false);
                } else if t.spec.promotion.compulsory {
                    let promoting = if zone.has(from) {
                        targets
                    } else {
                        targets & zone
                    };
                    moves.board_moves(from, promoting, true);
                    moves.board_moves(from, targets & !promoting, false);
                } else {
                    let promoting = if zone.has(from) {
                        targets
                    } else {
                        targets & zone
                    };
                    moves.board_moves(from, promoting, true);
                    moves.board_moves(from, targets & !barred, false);
                }
            }
        }
        if self.rules.drops {
            self.generate_drops(&mut moves, t.board & !occupied);
        }
        for &exchanger in &t.exchanging_roles {
            for square in (self.pieces(us, exchanger) & zone).iter() {
                for (r, role_spec) in t.spec.roles.iter().enumerate() {
                    let role = Role(r as u8);
                    if role != exchanger && role_spec.exchangeable && self.hand_count(us, role) > 0
                    {
                        moves.push(Move::exchange(role, Square::from_index(square as u8)));
                    }
                }
            }
        }
        moves
    }

    /// Nodes at `depth` plies below this position (repetition is not considered).
    pub fn perft(&mut self, depth: u32) -> u64 {
        GamePosition::perft(self, depth)
    }

    /// Perft split by root move.
    pub fn divide(&mut self, depth: u32) -> Vec<(Move, u64)> {
        GamePosition::divide(self, depth)
    }

    /// The side whose move it is not.
    pub fn opponent(&self) -> Color {
        !self.side
    }
}
