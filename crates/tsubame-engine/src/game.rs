//! What the search needs of a game's position, for the games with drops and check (Tori, Wa:
//! [`Position`]) and for Tenjiku ([`TenjikuPosition`]), whose moves capture on the way and
//! burn, and where the game ends with the last royal.

use crate::eval::{EvalParams, evaluate, evaluate_tenjiku, mop_up};
use crate::nnue::{Accumulator, Changes, HIDDEN, Layout, Network, Touch, refresh_values};
use crate::search_params::SearchParams;
use tsubame_rules::tenjiku::TenjikuPosition;
use tsubame_rules::{
    Bitboard, Color, DropMateRule, GamePosition, Move, MoveKind, Position, RepetitionRule, Role,
    Square, StalemateRule, Variant,
};

/// What the search needs of a game's position beyond the rules ([`GamePosition`]: keys,
/// legal and capture generation, make/unmake, null moves): the evaluation and the hooks for
/// move ordering, pruning and game end.
pub trait SearchPosition: GamePosition {
    /// Whether the side to move has already lost (no royal left).
    fn lost(&self) -> bool;
    /// The search parameters this game is played with when a search is given none
    /// ([`SearchParams::for_variant`]).
    fn search_defaults(&self) -> &'static SearchParams;
    /// Size of the history table the search keeps for this game.
    fn history_size(&self) -> usize;
    /// The move's slot in that table (below [`SearchPosition::history_size`]).
    fn history_index(&self, mv: Move) -> usize;
    /// Whether the move captures.
    fn is_capture(&self, mv: Move) -> bool;
    /// The kind that moves (for a board move).
    fn mover(&self, mv: Move) -> Option<Role>;
    /// The value of what the move captures, by `params`.
    fn gain(&self, mv: Move, params: &EvalParams) -> i32;
    /// How the game treats repeated positions.
    fn repetition(&self) -> RepetitionRule;
    /// With no legal move: whether the side to move wins (a restricted mating drop before it
    /// loses for the dropper) rather than loses.
    fn no_move_wins(&self, in_check: bool, previous: Option<Move>) -> bool;
    /// Whether the side to move has pieces enough that passing is no zugzwang risk.
    fn has_pieces_to_move(&self) -> bool;
    /// The static evaluation for the side to move.
    fn evaluate(&self, params: &EvalParams) -> i32;
    /// The mop-up terms for the side `ahead` by `params` ([`crate::eval::mop_up`]); none in
    /// games without them.
    fn mop_up(&self, _params: &EvalParams, _ahead: Color) -> i32 {
        0
    }
    /// How many plies of captures quiescence search follows before it stands pat. Games with
    /// few long-range pieces need no limit; on a board full of range jumpers and burns the
    /// capture tree would otherwise explode.
    fn quiescence_limit(&self) -> u32 {
        u32::MAX
    }
    /// Whether the exchange the move starts on its destination gains at least `threshold` by
    /// `params`' values, both sides capturing there with their least valuable piece first and
    /// stopping when going on would lose. Games without such an evaluation let every move pass.
    fn exchange_at_least(&self, _mv: Move, _threshold: i32, _params: &EvalParams) -> bool {
        true
    }
    /// Whether the move gives check, read before it is made, where that costs less than
    /// making it; `None` where the game cannot tell (the search then makes the move first).
    fn check_before_move(&self, _mv: Move) -> Option<bool> {
        None
    }
    /// The network input layout of the game, for games that networks evaluate.
    fn network_layout(&self) -> Option<Layout> {
        None
    }
    /// Both accumulators of `network` computed from this position's inputs.
    fn refresh_accumulator(&self, _network: &Network, _accumulator: &mut Accumulator) {}
    /// One perspective's sums of `network` computed from this position's inputs.
    fn refresh_perspective(
        &self,
        _network: &Network,
        _perspective: Color,
        _values: &mut [i16; HIDDEN],
    ) {
    }
    /// Pieces in both hands, which choose a network's output bucket.
    fn pieces_in_hand(&self) -> usize {
        0
    }
    /// Keys of what a static evaluation tends to misjudge alike from position to position, for
    /// the search's correction history: the pawns' squares and both hands. `None` in games
    /// without such keys, which then play without the correction.
    fn correction_keys(&self) -> Option<[u64; 2]> {
        None
    }
    /// What `mv` may change in the inputs, read before it is made.
    fn network_touch(&self, _network: &Network, _mv: Move) -> Option<Touch> {
        None
    }
    /// The input changes of the move just made, from what [`SearchPosition::network_touch`]
    /// read before it.
    fn network_changes(&self, _touch: &Touch, _network: &Network) -> Changes {
        Changes::default()
    }
}

/// Spreads an integer over all 64 bits (the finaliser of SplitMix64), so that sums of a few
/// such values make usable table keys.
#[inline]
fn spread(mut value: u64) -> u64 {
    value = (value ^ (value >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    value = (value ^ (value >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    value ^ (value >> 31)
}

impl<B: Bitboard> SearchPosition for Position<B> {
    fn search_defaults(&self) -> &'static SearchParams {
        Variant::from_spec(self.tables().spec)
            .map_or(&SearchParams::DEFAULT, SearchParams::for_variant)
    }
    /// The pawns are the kinds whose drops the rules restrict by file or as mate (Tori's
    /// swallows, Wa's sparrow pawns): the structure they make, like chess's pawns, changes
    /// slowly and shapes the game the same way wherever the other pieces stand.
    fn correction_keys(&self) -> Option<[u64; 2]> {
        let tables = self.tables();
        let mut pawns = 0u64;
        for (index, spec) in tables.spec.roles.iter().enumerate() {
            if spec.drop.max_per_file.is_none() && !spec.drop.mate_restricted {
                continue;
            }
            let role = Role(index as u8);
            for color in Color::ALL {
                for square in self.pieces(color, role).iter() {
                    let slot = ((index * 2 + color.index()) << 10) | square;
                    pawns = pawns.wrapping_add(spread(slot as u64));
                }
            }
        }
        let mut hands = 0u64;
        for color in Color::ALL {
            for (index, &count) in self.hand(color).iter().enumerate() {
                if count > 0 {
                    let slot = ((index * 2 + color.index()) << 8) | usize::from(count);
                    hands = hands.wrapping_add(spread(slot as u64 | 1 << 40));
                }
            }
        }
        Some([pawns, hands])
    }
    #[inline]
    fn lost(&self) -> bool {
        false
    }
    fn history_size(&self) -> usize {
        let tables = self.tables();
        2 * tables.role_count() * tables.geometry.square_count()
    }
    #[inline]
    fn history_index(&self, mv: Move) -> usize {
        let tables = self.tables();
        let squares = tables.geometry.square_count();
        let us = self.side_to_move().index();
        let role = match mv.kind() {
            MoveKind::Normal { from, .. } => self.piece_at(from).map_or(0, |p| p.role.index()),
            MoveKind::Drop { role, .. } | MoveKind::Exchange { role, .. } => role.index(),
        };
        ((us * tables.role_count() + role) * squares + mv.to().index()) % self.history_size().max(1)
    }
    #[inline]
    fn is_capture(&self, mv: Move) -> bool {
        !mv.is_from_hand() && self.piece_at(mv.to()).is_some()
    }
    #[inline]
    fn check_before_move(&self, mv: Move) -> Option<bool> {
        // An exchange's check is read by playing it on a copy: cheaper to make it.
        (!matches!(mv.kind(), MoveKind::Exchange { .. })).then(|| self.gives_check(mv))
    }
    #[inline]
    fn mover(&self, mv: Move) -> Option<Role> {
        match mv.kind() {
            MoveKind::Normal { from, .. } => self.piece_at(from).map(|p| p.role),
            _ => None,
        }
    }
    #[inline]
    fn gain(&self, mv: Move, params: &EvalParams) -> i32 {
        match mv.kind() {
            MoveKind::Normal { to, .. } => self.piece_at(to).map_or(0, |p| params.value(p.role)),
            _ => 0,
        }
    }
    fn repetition(&self) -> RepetitionRule {
        self.tables().spec.repetition
    }
    fn no_move_wins(&self, in_check: bool, previous: Option<Move>) -> bool {
        if in_check {
            let drop_loses = self.rules().drop_mate == DropMateRule::Loses;
            let restricted = previous.is_some_and(|m| match m.kind() {
                MoveKind::Drop { role, .. } => self
                    .tables()
                    .spec
                    .roles
                    .get(role.index())
                    .is_some_and(|r| r.drop.mate_restricted),
                _ => false,
            });
            return drop_loses && restricted;
        }
        match self.tables().spec.stalemate {
            StalemateRule::Loss => false,
        }
    }
    fn has_pieces_to_move(&self) -> bool {
        let us = self.side_to_move();
        let tables = self.tables();
        let royal = self.royal_square(us);
        let own = self.occupied_by(us);
        let own_without_royal = match royal {
            Some(square) => (own & !B::single(square)).count(),
            None => own.count(),
        };
        own_without_royal > 1
            || (0..tables.spec.roles.len()).any(|r| self.hand_count(us, Role(r as u8)) > 0)
    }
    #[inline]
    fn evaluate(&self, params: &EvalParams) -> i32 {
        evaluate(self, params)
    }
    fn mop_up(&self, params: &EvalParams, ahead: Color) -> i32 {
        mop_up(self, params, ahead)
    }
    fn network_layout(&self) -> Option<Layout> {
        Some(Layout::of(self))
    }
    fn refresh_accumulator(&self, network: &Network, accumulator: &mut Accumulator) {
        accumulator.refresh(network, self);
    }
    fn refresh_perspective(
        &self,
        network: &Network,
        perspective: Color,
        values: &mut [i16; HIDDEN],
    ) {
        refresh_values(values, network, self, perspective);
    }
    #[inline]
    fn pieces_in_hand(&self) -> usize {
        Layout::of(self).pieces_in_hand(self)
    }
    #[inline]
    fn network_touch(&self, network: &Network, mv: Move) -> Option<Touch> {
        Some(Touch::before(self, network, mv))
    }
    #[inline]
    fn network_changes(&self, touch: &Touch, network: &Network) -> Changes {
        touch.changes(self, network)
    }
    fn exchange_at_least(&self, mv: Move, threshold: i32, params: &EvalParams) -> bool {
        let tables = self.tables();
        let (from, to, mover) = match mv.kind() {
            MoveKind::Normal { from, to, .. } => match self.piece_at(from) {
                Some(piece) => (Some(from), to, piece.role),
                None => return true,
            },
            MoveKind::Drop { role, to } => (None, to, role),
            MoveKind::Exchange { .. } => return true,
        };
        let is_royal = |role: Role| tables.spec.roles.get(role.index()).is_some_and(|r| r.royal);
        // Positive: what the side that made the last capture is ahead, less the threshold.
        let mut swap = self.piece_at(to).map_or(0, |p| params.value(p.role)) - threshold;
        if swap < 0 {
            return false;
        }
        // A royal's move is legal, so nothing can take it back.
        if is_royal(mover) {
            return true;
        }
        swap = params.value(mover) - swap;
        if swap <= 0 {
            return true;
        }
        let target = to.index();
        let mut occupied = self.occupied();
        if let Some(from) = from {
            occupied &= !B::single(from.index());
        }
        let attackers_with = |occupied: B| {
            (self.attackers(target, Color::Sente, occupied)
                | self.attackers(target, Color::Gote, occupied))
                & occupied
        };
        let us = self.side_to_move();
        // Most moves go where nothing of the other side attacks.
        let theirs = self.attackers(target, !us, occupied) & occupied;
        if theirs.is_empty() {
            return true;
        }
        let mut attackers = theirs | (self.attackers(target, us, occupied) & occupied);
        let mut side = us;
        // Whether the side that moved first comes out at or above the threshold.
        let mut holds = true;
        loop {
            side = !side;
            let capturers = attackers & self.occupied_by(side);
            if capturers.is_empty() {
                break;
            }
            holds = !holds;
            let Some((square, role)) = capturers
                .iter()
                .filter_map(|s| {
                    self.piece_at(Square::from_index(s as u8))
                        .map(|p| (s, p.role))
                })
                .min_by_key(|&(_, role)| {
                    if is_royal(role) {
                        i32::MAX
                    } else {
                        params.value(role)
                    }
                })
            else {
                break;
            };
            if is_royal(role) {
                // The royal may take only where nothing of the other side attacks.
                return if (attackers & self.occupied_by(!side)).is_empty() {
                    holds
                } else {
                    !holds
                };
            }
            swap = params.value(role) - swap;
            if swap < i32::from(holds) {
                break;
            }
            occupied &= !B::single(square);
            attackers = attackers_with(occupied);
        }
        holds
    }
}

impl SearchPosition for TenjikuPosition {
    fn search_defaults(&self) -> &'static SearchParams {
        SearchParams::for_variant(Variant::Tenjiku)
    }
    #[inline]
    fn lost(&self) -> bool {
        self.royal_count(self.side_to_move()) == 0
    }
    fn history_size(&self) -> usize {
        2 * tsubame_rules::tenjiku::spec().roles.len() * 256
    }
    fn history_index(&self, mv: Move) -> usize {
        let role = self.mover(mv).map_or(0, |r| r.index());
        let roles = tsubame_rules::tenjiku::spec().roles.len();
        ((self.side_to_move().index() * roles + role) * 256 + mv.to().index()) % self.history_size()
    }
    fn is_capture(&self, mv: Move) -> bool {
        mv.middle().is_some() || (mv.from() != Some(mv.to()) && self.piece_at(mv.to()).is_some())
    }
    fn mover(&self, mv: Move) -> Option<Role> {
        mv.from().and_then(|s| self.piece_at(s)).map(|p| p.role)
    }
    fn gain(&self, mv: Move, params: &EvalParams) -> i32 {
        let at_end = if mv.from() != Some(mv.to()) {
            self.piece_at(mv.to()).map_or(0, |p| params.value(p.role))
        } else {
            0
        };
        let on_the_way = mv
            .middle()
            .and_then(|s| self.piece_at(s))
            .map_or(0, |p| params.value(p.role));
        at_end + on_the_way
    }
    fn repetition(&self) -> RepetitionRule {
        RepetitionRule::Illegal
    }
    fn no_move_wins(&self, _in_check: bool, _previous: Option<Move>) -> bool {
        false
    }
    fn has_pieces_to_move(&self) -> bool {
        self.pieces(self.side_to_move()).nth(2).is_some()
    }
    fn evaluate(&self, params: &EvalParams) -> i32 {
        evaluate_tenjiku(self, params)
    }
    fn quiescence_limit(&self) -> u32 {
        3
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsubame_rules::{Options, tori};

    /// Whether the exchange `mv` starts in the Tori position `sfen` gains at least `threshold`.
    fn exchange(sfen: &str, mv: &str, threshold: i32) -> bool {
        let rules = Options::defaults(tori::spec()).rule_set();
        let position = Position::from_sfen(tori::tables(), sfen, rules).unwrap();
        let mv = position.parse_usi(mv).unwrap();
        position.exchange_at_least(mv, threshold, &EvalParams::for_variant(tori::spec()))
    }

    #[test]
    fn correction_keys_follow_the_pawns_and_the_hands_alone() {
        let keys = |sfen: &str| {
            let rules = Options::defaults(tori::spec()).rule_set();
            let position = Position::from_sfen(tori::tables(), sfen, rules).unwrap();
            position.correction_keys().unwrap()
        };
        let [pawns, hands] = keys("3k3/7/3s3/7/3F3/3S3/3K3 b - 1");
        // The falcon elsewhere, or the other side to move: the same keys.
        assert_eq!(keys("3k3/7/3s3/7/2F4/3S3/3K3 b - 1"), [pawns, hands]);
        assert_eq!(keys("3k3/7/3s3/7/3F3/3S3/3K3 w - 1"), [pawns, hands]);
        // A swallow on another square, or the swallows' owners swapped: another pawn key.
        let advanced = keys("3k3/7/3s3/3S3/3F3/7/3K3 b - 1");
        assert_ne!(advanced[0], pawns);
        assert_eq!(advanced[1], hands);
        assert_ne!(keys("3k3/7/3S3/7/3F3/3s3/3K3 b - 1")[0], pawns);
        // A swallow taken into hand: another hand key, one more another again.
        let one = keys("3k3/7/3s3/7/3F3/7/3K3 b S 1");
        let two = keys("3k3/7/3s3/7/3F3/7/3K3 b 2S 1");
        assert_ne!(one[1], hands);
        assert_ne!(two[1], one[1]);
        assert_ne!(keys("3k3/7/3s3/7/3F3/7/3K3 b s 1")[1], one[1]);
    }

    #[test]
    fn exchanges_count_what_each_side_takes_back() {
        let params = EvalParams::for_variant(tori::spec());
        let (swallow, falcon) = (params.value(tori::SWALLOW), params.value(tori::FALCON));
        // An undefended swallow: the falcon wins it.
        let free = "3k3/7/7/3s3/3F3/7/3K3 b - 1";
        assert!(exchange(free, "4e4d", swallow));
        assert!(!exchange(free, "4e4d", swallow + 1));
        // Defended by the swallow behind it: the falcon is lost for a swallow.
        let defended = "3k3/7/3s3/3s3/3F3/7/3K3 b - 1";
        assert!(!exchange(defended, "4e4d", 0));
        assert!(exchange(defended, "4e4d", swallow - falcon));
        assert!(!exchange(defended, "4e4d", swallow - falcon + 1));
        // Swallow for swallow is even.
        let even = "3k3/7/3s3/3s3/3S3/7/3K3 b - 1";
        assert!(exchange(even, "4e4d", 0));
        assert!(!exchange(even, "4e4d", 1));
        // A falcon dropped where a swallow takes it is lost whole.
        let drop = "3k3/7/7/3s3/7/7/3K3 b F 1";
        assert!(!exchange(drop, "F*4e", 0));
        assert!(exchange(drop, "F*4e", -falcon));
        assert!(!exchange(drop, "F*4e", -falcon + 1));
        // Defended by the phoenix, the dropped falcon costs the swallow back.
        let guarded = "3k3/7/7/3s3/7/3K3/7 b F 1";
        assert!(!exchange(guarded, "F*4e", swallow - falcon + 1));
        assert!(exchange(guarded, "F*4e", swallow - falcon));
    }
}
