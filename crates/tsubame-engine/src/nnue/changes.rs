//! Incremental updates: the inputs a move turns on and off, for both perspectives.

use super::*;

/// The inputs a move turns on and off, for both perspectives.
#[derive(Clone, Copy, Debug, Default)]
pub struct Changes {
    pub(super) added: [[u32; MAX_CHANGES]; 2],
    pub(super) removed: [[u32; MAX_CHANGES]; 2],
    pub(super) added_count: u8,
    pub(super) removed_count: u8,
    /// Perspectives whose view the move changed: their sums are computed afresh.
    pub(super) refresh: [bool; 2],
}

impl Changes {
    /// Whether the move changed `perspective`'s view (its royal moved to another bucket or
    /// across the centre file), so that its sums must be computed afresh.
    #[inline]
    pub fn refreshes(&self, perspective: Color) -> bool {
        self.refresh[perspective.index()]
    }

    #[inline(always)]
    fn add(&mut self, input: impl Fn(Color) -> usize) {
        let i = usize::from(self.added_count);
        if i < MAX_CHANGES {
            for perspective in [Color::Sente, Color::Gote] {
                self.added[perspective.index()][i] = input(perspective) as u32;
            }
            self.added_count += 1;
        }
    }

    #[inline(always)]
    fn remove(&mut self, input: impl Fn(Color) -> usize) {
        let i = usize::from(self.removed_count);
        if i < MAX_CHANGES {
            for perspective in [Color::Sente, Color::Gote] {
                self.removed[perspective.index()][i] = input(perspective) as u32;
            }
            self.removed_count += 1;
        }
    }
}

/// What a move may change in the inputs, read before it is made: the squares it touches with
/// what stands on them, and the mover's hand.
#[derive(Clone, Copy, Debug)]
pub struct Touch {
    squares: [(u16, Option<Piece>); 2],
    square_count: u8,
    mover: Color,
    hand: [u8; MAX_ROLES],
    /// Both perspectives' views before the move.
    views: [View; 2],
}

impl Touch {
    /// Reads what `mv` may change in `position`, before it is made.
    #[inline]
    pub fn before<B: Bitboard>(position: &Position<B>, network: &Network, mv: Move) -> Touch {
        let layout = network.layout;
        let (squares, square_count) = match mv.kind() {
            MoveKind::Normal { from, to, .. } => ([from, to], 2),
            MoveKind::Drop { to, .. } => ([to, to], 1),
            MoveKind::Exchange { square, .. } => ([square, square], 1),
        };
        let mover = position.side_to_move();
        let mut hand = [0; MAX_ROLES];
        let held = position.hand(mover);
        let roles = layout.roles.min(held.len()).min(MAX_ROLES);
        hand[..roles].copy_from_slice(&held[..roles]);
        Touch {
            squares: squares.map(|s| (s.index() as u16, position.piece_at(s))),
            square_count,
            mover,
            hand,
            views: if network.royal.is_plain() {
                [View::default(); 2]
            } else {
                [
                    network.view(position, Color::Sente),
                    network.view(position, Color::Gote),
                ]
            },
        }
    }

    /// The input changes of the move, read after it was made.
    #[inline]
    pub fn changes<B: Bitboard>(&self, position: &Position<B>, network: &Network) -> Changes {
        let layout = network.layout;
        let royal = &network.royal;
        let mut changes = Changes::default();
        if royal.is_plain() {
            // Apart so that the plain network's updates pay nothing for views.
            self.changes_with(
                position,
                layout,
                &mut changes,
                |p, piece, square| layout.board_input(p, piece, square),
                |p, color, role, level| layout.hand_input(p, color, role, level),
            );
            return changes;
        }
        let mut views = self.views;
        for perspective in [Color::Sente, Color::Gote] {
            let view = network.view(position, perspective);
            let p = perspective.index();
            changes.refresh[p] = view != views[p];
            views[p] = view;
        }
        self.changes_with(
            position,
            layout,
            &mut changes,
            |p, piece, square| royal.board_input(layout, views[p.index()], p, piece, square),
            |p, color, role, level| {
                royal.hand_input(layout, views[p.index()], p, color, role, level)
            },
        );
        changes
    }

    /// Records the move's input changes in `changes`, numbering board and hand inputs as
    /// `board_input` and `hand_input` do for each perspective.
    #[inline(always)]
    fn changes_with<B: Bitboard>(
        &self,
        position: &Position<B>,
        layout: Layout,
        changes: &mut Changes,
        board_input: impl Fn(Color, Piece, usize) -> usize,
        hand_input: impl Fn(Color, Color, usize, usize) -> usize,
    ) {
        for &(square, before) in &self.squares[..usize::from(self.square_count)] {
            let square = usize::from(square);
            let after = position.piece_at(Square::from_index(square as u8));
            if before != after {
                if let Some(piece) = before {
                    changes.remove(|p| board_input(p, piece, square));
                }
                if let Some(piece) = after {
                    changes.add(|p| board_input(p, piece, square));
                }
            }
        }
        let mover = self.mover;
        let held = position.hand(mover);
        let roles = layout.roles.min(held.len()).min(MAX_ROLES);
        // Most moves leave the mover's hand as it was: only captures, drops and exchanges
        // change it.
        if held[..roles] == self.hand[..roles] {
            return;
        }
        for role in 0..roles {
            let before = usize::from(self.hand[role]);
            let after = usize::from(position.hand_count(mover, Role(role as u8)));
            if after > before && before < HAND_LEVELS {
                for level in before..after.min(HAND_LEVELS) {
                    changes.add(|p| hand_input(p, mover, role, level));
                }
            } else if after < before && after < HAND_LEVELS {
                for level in after..before.min(HAND_LEVELS) {
                    changes.remove(|p| hand_input(p, mover, role, level));
                }
            }
        }
    }
}
