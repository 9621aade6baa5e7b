//! Positions: the board, both hands and the side to move, with make/unmake and an incremental
//! Zobrist key.

use crate::Color;
use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind};
use crate::square::Square;
use crate::tables::Tables;
use crate::variant::{Piece, Role, RuleSet};
use thiserror::Error;

/// A position as read from text, not yet checked: anything may be in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// One entry per square, by square index.
    pub board: Vec<Option<Piece>>,
    /// Pieces in hand, `hands[color][role]`.
    pub hands: [Vec<u32>; 2],
    /// Who moves next.
    pub side_to_move: Color,
    /// Ply number of the next move, 1 for the first move of the game.
    pub ply: u32,
}

impl Setup {
    /// An empty board with empty hands for a variant's tables.
    pub fn empty<B: Bitboard>(tables: &Tables<B>) -> Setup {
        Setup {
            board: vec![None; tables.squares],
            hands: [vec![0; tables.role_count], vec![0; tables.role_count]],
            side_to_move: Color::Sente,
            ply: 1,
        }
    }
}

/// Why a setup is not a playable position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PositionError {
    /// The setup was made for a board or piece set of another size.
    #[error(
        "setup has {squares} squares and {roles} piece kinds, the variant {expected_squares} and {expected_roles}"
    )]
    ShapeMismatch {
        /// Squares in the setup.
        squares: usize,
        /// Kinds in the setup's hands.
        roles: usize,
        /// Squares of the variant.
        expected_squares: usize,
        /// Kinds of the variant.
        expected_roles: usize,
    },
    /// A side has no royal piece on the board.
    #[error("{color} has no {royal} on the board")]
    MissingRoyal {
        /// The side.
        color: Color,
        /// The royal piece's name.
        royal: &'static str,
    },
    /// A side has more than one royal piece.
    #[error("{color} has {count} {royal} pieces on the board, only one is allowed")]
    SeveralRoyals {
        /// The side.
        color: Color,
        /// How many.
        count: u32,
        /// The royal piece's name.
        royal: &'static str,
    },
    /// A royal or promoted piece in hand.
    #[error("{color} holds a {piece} in hand, which cannot be")]
    ImpossibleHandPiece {
        /// The side.
        color: Color,
        /// The piece's name.
        piece: &'static str,
    },
    /// Pieces in hand in a game played without drops.
    #[error("{color} holds pieces in hand, but this game has no drops")]
    HandWithoutDrops {
        /// The side.
        color: Color,
    },
    /// More pieces of a kind than a full set holds.
    #[error(
        "{count} {piece} pieces (promoted ones included) on board and in hand, a set holds {max}"
    )]
    TooManyPieces {
        /// The kind's name.
        piece: &'static str,
        /// How many were found.
        count: u64,
        /// How many a set holds.
        max: u8,
    },
    /// A piece where it could neither move to nor be dropped.
    #[error("{color} {piece} on {square} could not have got there and could never move")]
    ImpossibleSquare {
        /// The side.
        color: Color,
        /// The piece's name.
        piece: &'static str,
        /// The square's name.
        square: String,
    },
    /// More pieces of a kind on one file than the rules allow.
    #[error("{color} has {count} {piece} pieces on file {file}, at most {max} are possible")]
    TooManyOnFile {
        /// The side.
        color: Color,
        /// The kind's name.
        piece: &'static str,
        /// The file number.
        file: u8,
        /// How many.
        count: u32,
        /// The limit.
        max: u8,
    },
    /// The side that has just moved is in check, so its last move was illegal.
    #[error("{0} is not to move but is in check")]
    OpponentInCheck(Color),
    /// The variant's own start position does not parse (a defect in its data).
    #[error("the variant's start position is invalid: {0}")]
    InvalidStart(String),
    /// The ply number is 0.
    #[error("the ply number must be at least 1")]
    ZeroPly,
}

/// What [`Position::make_move`] returns to undo the move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    /// Mailbox code of the captured piece (for an exchange: of the exchanged piece), or 0.
    captured: u8,
    board_key: u64,
    hand_key: u64,
}

impl Undo {
    /// The piece the move captured, if any, as it stood on the board.
    pub fn captured<B: Bitboard>(&self, position: &Position<B>) -> Option<Piece> {
        position.piece_of_code(self.captured)
    }
}

/// A legal position of some variant: board, hands, side to move and ply number, with the rule
/// choices that decide its legal moves.
///
/// ```
/// use tsubame_rules::{tori, Options, Position};
/// let mut position = tori::start(&Options::defaults(tori::spec())).unwrap();
/// let before = position.clone();
/// let mv = position.parse_usi("3d3c").unwrap();
/// let undo = position.make_move(mv);
/// assert_eq!(position.hand_count(tsubame_rules::Color::Sente, tori::SWALLOW), 1);
/// position.unmake_move(mv, undo);
/// assert_eq!(position, before);
/// ```
#[derive(Clone)]
pub struct Position<B: Bitboard> {
    pub(crate) tables: &'static Tables<B>,
    pub(crate) rules: RuleSet,
    /// 0 for empty, else 1 + piece index.
    pub(crate) mailbox: Vec<u8>,
    /// `[color * role_count + role]`
    pub(crate) by_piece: Vec<B>,
    pub(crate) by_color: [B; 2],
    /// `[color * role_count + role]`
    pub(crate) hands: Vec<u8>,
    pub(crate) side: Color,
    pub(crate) ply: u32,
    pub(crate) board_key: u64,
    pub(crate) hand_key: u64,
}

impl<B: Bitboard> PartialEq for Position<B> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.tables, other.tables)
            && self.rules == other.rules
            && self.mailbox == other.mailbox
            && self.hands == other.hands
            && self.side == other.side
            && self.ply == other.ply
            && self.board_key == other.board_key
            && self.hand_key == other.hand_key
    }
}
impl<B: Bitboard> Eq for Position<B> {}

impl<B: Bitboard> std::fmt::Debug for Position<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.to_sfen())
    }
}

impl<B: Bitboard> Position<B> {
    /// Checks a setup and turns it into a position; the first problem found if it is not one.
    pub fn from_setup(
        tables: &'static Tables<B>,
        setup: Setup,
        rules: RuleSet,
    ) -> Result<Position<B>, PositionError> {
        let mut problems = Vec::new();
        let position = Self::assemble(tables, setup, rules, &mut problems)?;
        match problems.into_iter().next() {
            Some(first) => Err(first),
            None => Ok(position),
        }
    }

    /// Every problem that keeps a setup from being a playable position, in the order
    /// [`Position::from_setup`] finds them (for a board editor, which names them all); empty
    /// for a playable position.
    pub fn setup_problems(
        tables: &'static Tables<B>,
        setup: Setup,
        rules: RuleSet,
    ) -> Vec<PositionError> {
        let mut problems = Vec::new();
        if let Err(fatal) = Self::assemble(tables, setup, rules, &mut problems) {
            problems.insert(0, fatal);
        }
        problems
    }

    /// Builds the position a setup describes, noting each rule it breaks in `problems`; fails
    /// outright only for a setup of another shape, which cannot be built at all.
    fn assemble(
        tables: &'static Tables<B>,
        setup: Setup,
        rules: RuleSet,
        problems: &mut Vec<PositionError>,
    ) -> Result<Position<B>, PositionError> {
        let spec = tables.spec;
        let rc = tables.role_count;
        if setup.board.len() != tables.squares || setup.hands.iter().any(|h| h.len() != rc) {
            return Err(PositionError::ShapeMismatch {
                squares: setup.board.len(),
                roles: setup.hands[0].len().max(setup.hands[1].len()),
                expected_squares: tables.squares,
                expected_roles: rc,
            });
        }
        if setup.ply == 0 {
            return Err(PositionError::ZeroPly);
        }
        let mut totals = vec![0u64; rc];
        for piece in setup.board.iter().flatten() {
            if piece.role.index() >= rc {
                return Err(PositionError::ShapeMismatch {
                    squares: setup.board.len(),
                    roles: piece.role.index() + 1,
                    expected_squares: tables.squares,
                    expected_roles: rc,
                });
            }
            totals[tables.hand_role[piece.role.index()].index()] += 1;
        }
        for color in Color::ALL {
            for (r, &count) in setup.hands[color.index()].iter().enumerate() {
                if count == 0 {
                    continue;
                }
                let role_spec = &spec.roles[r];
                if role_spec.royal || role_spec.promoted_from.is_some() {
                    problems.push(PositionError::ImpossibleHandPiece {
                        color,
                        piece: role_spec.name,
                    });
                    continue;
                }
                if !rules.drops && !problems.contains(&PositionError::HandWithoutDrops { color }) {
                    problems.push(PositionError::HandWithoutDrops { color });
                }
                totals[r] += count as u64;
            }
        }
        for (r, &count) in totals.iter().enumerate() {
            let role_spec = &spec.roles[r];
            if count > role_spec.set_count as u64 && !role_spec.royal {
                problems.push(PositionError::TooManyPieces {
                    piece: role_spec.name,
                    count,
                    max: role_spec.set_count,
                });
            }
        }

        let mut position = Position {
            tables,
            rules,
            mailbox: vec![0; tables.squares],
            by_piece: vec![B::EMPTY; 2 * rc],
            by_color: [B::EMPTY; 2],
            hands: vec![0; 2 * rc],
            side: setup.side_to_move,
            ply: setup.ply,
            board_key: 0,
            hand_key: 0,
        };
        for (index, piece) in setup.board.iter().enumerate() {
            if let Some(piece) = piece {
                let pi = tables.piece_index(piece.color, piece.role);
                position.put(index, pi);
                position.board_key ^= tables.piece_keys[pi * tables.squares + index];
            }
        }
        for color in Color::ALL {
            for r in 0..rc {
                let count = setup.hands[color.index()][r];
                // Totals were checked against set counts, which fit a byte.
                let pi = color.index() * rc + r;
                position.hands[pi] = count.min(u8::MAX as u32) as u8;
                position.hand_key = position
                    .hand_key
                    .wrapping_add(tables.hand_keys[pi].wrapping_mul(count as u64));
            }
        }
        if position.side == Color::Gote {
            position.board_key ^= tables.side_key;
        }

        let royal_problems = problems.len();
        if let Some(royal) = tables.royal {
            for color in Color::ALL {
                let count = position.pieces(color, royal).count();
                let name = spec.roles[royal.index()].name;
                if count == 0 {
                    problems.push(PositionError::MissingRoyal { color, royal: name });
                }
                if count > 1 {
                    problems.push(PositionError::SeveralRoyals {
                        color,
                        count,
                        royal: name,
                    });
                }
            }
        }
        for color in Color::ALL {
            for (r, role_spec) in spec.roles.iter().enumerate() {
                let role = Role(r as u8);
                let pieces = position.pieces(color, role);
                let barred = pieces & tables.drop_barred[tables.piece_index(color, role)];
                for square in barred.iter() {
                    problems.push(PositionError::ImpossibleSquare {
                        color,
                        piece: role_spec.name,
                        square: tables.geometry.name(Square(square as u8)).to_string(),
                    });
                }
                if let (Some(max), true) = (
                    role_spec.drop.max_per_file,
                    role_spec.drop.file_limit_binds_board,
                ) {
                    for (f, &file) in tables.files.iter().enumerate() {
                        let count = (pieces & file).count();
                        if count > max as u32 {
                            problems.push(PositionError::TooManyOnFile {
                                color,
                                piece: role_spec.name,
                                file: f as u8 + 1,
                                count,
                                max,
                            });
                        }
                    }
                }
            }
        }
        // Check is only defined with one royal a side.
        let royals_sound = !problems[royal_problems..].iter().any(|p| {
            matches!(
                p,
                PositionError::MissingRoyal { .. } | PositionError::SeveralRoyals { .. }
            )
        });
        if royals_sound && position.is_in_check(!position.side) {
            problems.push(PositionError::OpponentInCheck(!position.side));
        }
        Ok(position)
    }

    /// The position as an unchecked setup.
    pub fn to_setup(&self) -> Setup {
        let rc = self.tables.role_count;
        Setup {
            board: (0..self.tables.squares)
                .map(|s| self.piece_of_code(self.mailbox[s]))
                .collect(),
            hands: [
                self.hands[..rc].iter().map(|&c| c as u32).collect(),
                self.hands[rc..].iter().map(|&c| c as u32).collect(),
            ],
            side_to_move: self.side,
            ply: self.ply,
        }
    }

    /// The position mirrored left to right: each piece on the same rank and the mirror file,
    /// each kind replaced by its mirror image ([`crate::VariantSpec::mirror_roles`]: Tori's left
    /// and right quails trade places), the hands likewise. Every rule holds in the image, so it
    /// has the image of every legal move and the same value (a network trainer's second
    /// position for free). `None` where the game has no mirror image.
    ///
    /// ```
    /// use tsubame_rules::{tori, Options};
    /// let start = tori::start(&Options::defaults(tori::spec())).unwrap();
    /// let image = start.mirrored().unwrap();
    /// // The lone swallows change files; each quail takes the other's file and kind.
    /// assert_eq!(image.to_sfen(), "rpckcpl/3f3/sssssss/2S1s2/SSSSSSS/3F3/LPCKCPR b - 1");
    /// assert_eq!(image.mirrored(), Some(start.clone()));
    /// assert_eq!(image.legal_moves().len(), start.legal_moves().len());
    /// ```
    pub fn mirrored(&self) -> Option<Position<B>> {
        let mirror = self.tables.spec.mirror_roles()?;
        let geometry = self.tables.geometry;
        let image_of = |role: Role| mirror.get(role.index()).copied();
        let original = self.to_setup();
        let mut setup = original.clone();
        for (index, piece) in original.board.iter().enumerate() {
            let square = Square::from_index(index as u8);
            let image = geometry.square(
                geometry.width + 1 - geometry.file(square),
                geometry.rank(square),
            )?;
            let piece = match piece {
                Some(p) => Some(Piece {
                    color: p.color,
                    role: image_of(p.role)?,
                }),
                None => None,
            };
            *setup.board.get_mut(image.index())? = piece;
        }
        for (color, hand) in original.hands.iter().enumerate() {
            for (role, &count) in hand.iter().enumerate() {
                let image = image_of(Role(role as u8))?;
                *setup.hands.get_mut(color)?.get_mut(image.index())? = count;
            }
        }
        Position::from_setup(self.tables, setup, self.rules).ok()
    }

    #[inline(always)]
    pub(crate) fn put(&mut self, square: usize, piece_index: usize) {
        let bit = B::single(square);
        self.mailbox[square] = piece_index as u8 + 1;
        self.by_piece[piece_index] |= bit;
        self.by_color[piece_index / self.tables.role_count] |= bit;
    }

    #[inline(always)]
    pub(crate) fn remove(&mut self, square: usize, piece_index: usize) {
        let bit = B::single(square);
        self.mailbox[square] = 0;
        self.by_piece[piece_index] ^= bit;
        self.by_color[piece_index / self.tables.role_count] ^= bit;
    }

    pub(crate) fn piece_of_code(&self, code: u8) -> Option<Piece> {
        if code == 0 {
            return None;
        }
        let index = code as usize - 1;
        let rc = self.tables.role_count;
        let color = if index < rc {
            Color::Sente
        } else {
            Color::Gote
        };
        Some(Piece {
            color,
            role: Role((index % rc) as u8),
        })
    }

    /// The variant's tables.
    pub fn tables(&self) -> &'static Tables<B> {
        self.tables
    }

    /// The rule choices in force.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    /// Who moves next.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Ply number of the next move (1 for the first move of the game).
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The piece on a square, if any. Squares off the board hold nothing.
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        self.piece_of_code(self.mailbox.get(square.index()).copied().unwrap_or(0))
    }

    /// How many pieces of a kind a side has in hand.
    pub fn hand_count(&self, color: Color, role: Role) -> u8 {
        if role.index() >= self.tables.role_count {
            return 0;
        }
        self.hands[self.tables.piece_index(color, role)]
    }

    /// A side's hand: how many pieces of each kind it holds, by role index.
    pub fn hand(&self, color: Color) -> &[u8] {
        let count = self.tables.role_count;
        let start = color.index() * count;
        self.hands.get(start..start + count).unwrap_or_default()
    }

    /// The squares holding a side's pieces of a kind.
    #[inline(always)]
    pub fn pieces(&self, color: Color, role: Role) -> B {
        self.by_piece[color.index() * self.tables.role_count + role.index()]
    }

    /// The squares holding a side's pieces.
    #[inline(always)]
    pub fn occupied_by(&self, color: Color) -> B {
        self.by_color[color.index()]
    }

    /// Every occupied square.
    #[inline(always)]
    pub fn occupied(&self) -> B {
        self.by_color[0] | self.by_color[1]
    }

    /// The square of a side's royal piece.
    #[inline(always)]
    pub fn royal_square(&self, color: Color) -> Option<usize> {
        let royal = self.tables.royal?;
        let set = self.pieces(color, royal);
        if set.is_empty() {
            None
        } else {
            Some(set.lowest())
        }
    }

    /// The Zobrist key of board, hands and side to move.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.board_key ^ self.hand_key
    }

    /// The key computed from scratch, for checking the incremental one.
    pub fn key_from_scratch(&self) -> u64 {
        let t = self.tables;
        let mut board_key = 0u64;
        for (s, &code) in self.mailbox.iter().enumerate() {
            if code != 0 {
                board_key ^= t.piece_keys[(code as usize - 1) * t.squares + s];
            }
        }
        if self.side == Color::Gote {
            board_key ^= t.side_key;
        }
        let mut hand_key = 0u64;
        for (pi, &count) in self.hands.iter().enumerate() {
            hand_key = hand_key.wrapping_add(t.hand_keys[pi].wrapping_mul(count as u64));
        }
        board_key ^ hand_key
    }

    /// Pieces of `by` that attack `square`, with `occupied` as the occupied squares.
    #[inline]
    pub fn attackers(&self, square: usize, by: Color, occupied: B) -> B {
        let t = self.tables;
        let rc = t.role_count;
        let mut found = B::EMPTY;
        for r in 0..rc {
            let candidates = self.by_piece[by.index() * rc + r];
            if candidates.is_empty() {
                continue;
            }
            found |= t.attacks(!by, Role(r as u8), square, occupied) & candidates;
        }
        found
    }

    /// Whether a side's royal piece is attacked.
    pub fn is_in_check(&self, color: Color) -> bool {
        match self.royal_square(color) {
            Some(square) => !self.attackers(square, !color, self.occupied()).is_empty(),
            None => false,
        }
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        self.is_in_check(self.side)
    }

    /// Plays a move known to be legal here and returns what undoes it. Playing an illegal move
    /// leaves the position in an unspecified but memory-safe state, and may panic.
    pub fn make_move(&mut self, mv: Move) -> Undo {
        let t = self.tables;
        let rc = t.role_count;
        let n = t.squares;
        let us = self.side.index();
        let mut undo = Undo {
            captured: 0,
            board_key: self.board_key,
            hand_key: self.hand_key,
        };
        match mv.kind() {
            MoveKind::Normal { from, to, promote } => {
                let (from, to) = (from.index(), to.index());
                let moving = self.mailbox[from] as usize - 1;
                let captured = self.mailbox[to];
                if captured != 0 {
                    let ci = captured as usize - 1;
                    self.remove(to, ci);
                    self.board_key ^= t.piece_keys[ci * n + to];
                    if self.rules.drops {
                        let hi = us * rc + t.hand_role[ci % rc].index();
                        self.hands[hi] += 1;
                        self.hand_key = self.hand_key.wrapping_add(t.hand_keys[hi]);
                    }
                    undo.captured = captured;
                }
                self.remove(from, moving);
                self.board_key ^= t.piece_keys[moving * n + from];
                let placed = if promote {
                    match t.spec.roles[moving % rc].promotes_to {
                        Some(p) => us * rc + p.index(),
                        None => moving,
                    }
                } else {
                    moving
                };
                self.put(to, placed);
                self.board_key ^= t.piece_keys[placed * n + to];
            }
            MoveKind::Drop { role, to } => {
                let pi = us * rc + role.index();
                self.hands[pi] -= 1;
                self.hand_key = self.hand_key.wrapping_sub(t.hand_keys[pi]);
                self.put(to.index(), pi);
                self.board_key ^= t.piece_keys[pi * n + to.index()];
            }
            MoveKind::Exchange { role, square } => {
                let s = square.index();
                let old_code = self.mailbox[s];
                let old = old_code as usize - 1;
                self.remove(s, old);
                self.board_key ^= t.piece_keys[old * n + s];
                self.hands[old] += 1;
                self.hand_key = self.hand_key.wrapping_add(t.hand_keys[old]);
                let pi = us * rc + role.index();
                self.hands[pi] -= 1;
                self.hand_key = self.hand_key.wrapping_sub(t.hand_keys[pi]);
                self.put(s, pi);
                self.board_key ^= t.piece_keys[pi * n + s];
                undo.captured = old_code;
            }
        }
        self.side = !self.side;
        self.board_key ^= t.side_key;
        self.ply += 1;
        undo
    }

    /// Passes the turn without moving (for search: null-move pruning). Undo with
    /// [`Position::unmake_null_move`]. Not a legal move of any game here.
    pub fn make_null_move(&mut self) {
        self.side = !self.side;
        self.board_key ^= self.tables.side_key;
        self.ply += 1;
    }

    /// Takes back [`Position::make_null_move`].
    pub fn unmake_null_move(&mut self) {
        self.side = !self.side;
        self.board_key ^= self.tables.side_key;
        self.ply -= 1;
    }

    /// Takes back `mv`, which must be the last move made, with the [`Undo`] it returned.
    pub fn unmake_move(&mut self, mv: Move, undo: Undo) {
        let t = self.tables;
        let rc = t.role_count;
        self.side = !self.side;
        self.ply -= 1;
        let us = self.side.index();
        match mv.kind() {
            MoveKind::Normal { from, to, promote } => {
                let (from, to) = (from.index(), to.index());
                let placed = self.mailbox[to] as usize - 1;
                self.remove(to, placed);
                let original = if promote {
                    match t.spec.roles[placed % rc].promoted_from {
                        Some(base) => us * rc + base.index(),
                        None => placed,
                    }
                } else {
                    placed
                };
                self.put(from, original);
                if undo.captured != 0 {
                    let ci = undo.captured as usize - 1;
                    self.put(to, ci);
                    if self.rules.drops {
                        self.hands[us * rc + t.hand_role[ci % rc].index()] -= 1;
                    }
                }
            }
            MoveKind::Drop { role, to } => {
                let pi = us * rc + role.index();
                self.remove(to.index(), pi);
                self.hands[pi] += 1;
            }
            MoveKind::Exchange { role, square } => {
                let s = square.index();
                let pi = us * rc + role.index();
                self.remove(s, pi);
                self.hands[pi] += 1;
                let old = undo.captured as usize - 1;
                self.hands[old] -= 1;
                self.put(s, old);
            }
        }
        self.board_key = undo.board_key;
        self.hand_key = undo.hand_key;
    }
}
