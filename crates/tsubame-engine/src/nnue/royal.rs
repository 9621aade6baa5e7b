//! Royal buckets: a copy of the first layer for each region where a side's own royal piece
//! stands, its board seen mirrored on one half.

use super::*;

/// How a network's first layer follows each side's own royal piece (Tori's phoenix, Wa's
/// crane king): the board, turned for the perspective, is cut into rank groups counted from
/// the perspective's back rank, each group into files, and each part has a first layer of its
/// own, so that a piece's worth depends on where the royal it attacks or shelters stands.
/// Where the rules are mirror-symmetric, a perspective whose royal stands left of the centre
/// file (as that side sees the board) sees the board mirrored (every square and every kind
/// to its image), so only the right half and the centre file need buckets.
///
/// A network without royal buckets has one group holding every rank and no mirroring: its
/// only view is bucket 0, as seen.
///
/// ```
/// use tsubame_engine::nnue::{RoyalBuckets, View};
/// use tsubame_rules::{Color, Variant};
///
/// // Tori: the back rank, the next one, and the five beyond; four files each (the three
/// // on the left are seen mirrored).
/// let buckets = RoyalBuckets::by_ranks(Variant::Tori, &[1, 1, 5]).unwrap();
/// assert_eq!(buckets.buckets(), 12);
/// // Sente's phoenix on its start square 4g (the centre of the last rank, index 45).
/// assert_eq!(buckets.view(Color::Sente, Some(45)), View { bucket: 3, mirrored: false });
/// // On 3g, one file to sente's right (index 44).
/// assert_eq!(buckets.view(Color::Sente, Some(44)), View { bucket: 2, mirrored: false });
/// // On 5g, one file to its left: the mirror image of 3g.
/// assert_eq!(buckets.view(Color::Sente, Some(46)), View { bucket: 2, mirrored: true });
/// // Gote sees the board turned: its phoenix on 4a is on its own back rank's centre.
/// assert_eq!(buckets.view(Color::Gote, Some(3)), View { bucket: 3, mirrored: false });
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoyalBuckets {
    pub(super) variant: Variant,
    /// The royal kind, whose square chooses the view.
    royal_role: Option<Role>,
    /// Ranks in each group, from the perspective's back rank.
    rank_groups: Vec<u8>,
    buckets: usize,
    /// Whether views whose royal stands left of the centre are mirrored.
    mirror: bool,
    /// The bucket of the royal on each square, the board turned for the perspective and,
    /// where mirroring, already mirrored.
    map: [u8; MAX_SQUARES],
    /// Each kind's mirror image.
    role_image: [u8; MAX_ROLES],
    width: usize,
    squares: usize,
}

impl RoyalBuckets {
    /// No royal buckets: one first layer, no mirroring (`None` for Tenjiku).
    pub fn plain(variant: Variant) -> Option<RoyalBuckets> {
        let height = variant.spec().height;
        RoyalBuckets::build(variant, &[height], false, false).ok()
    }

    /// Buckets by rank groups (`groups[0]` ranks from the perspective's back rank, then
    /// `groups[1]`, ...; they must add up to the board's height) and by file, mirrored where
    /// the variant's rules are mirror-symmetric.
    pub fn by_ranks(variant: Variant, groups: &[u8]) -> Result<RoyalBuckets, NetworkError> {
        let mirror = variant.spec().mirror_roles().is_some();
        RoyalBuckets::build(variant, groups, mirror, true)
    }

    /// Buckets by rank groups, and by file where `by_file` (only the left half and the
    /// centre where mirroring).
    pub(super) fn build(
        variant: Variant,
        groups: &[u8],
        mirror: bool,
        by_file: bool,
    ) -> Result<RoyalBuckets, NetworkError> {
        let spec = variant.spec();
        let layout = Layout::for_variant(variant)
            .ok_or_else(|| NetworkError::Variant(spec.name.to_string()))?;
        let (width, height) = (usize::from(spec.width), usize::from(spec.height));
        let ranks: usize = groups.iter().map(|&g| usize::from(g)).sum();
        let mirror_roles = if mirror {
            Some(spec.mirror_roles().ok_or_else(|| {
                NetworkError::RoyalBuckets(format!("{} is not mirror-symmetric", spec.name))
            })?)
        } else {
            None
        };
        let files = match (by_file, mirror) {
            (false, _) => 1,
            (true, true) => width.div_ceil(2),
            (true, false) => width,
        };
        let buckets = groups.len() * files;
        if groups.is_empty() || groups.contains(&0) || ranks != height {
            return Err(NetworkError::RoyalBuckets(format!(
                "rank groups {groups:?} do not cover the {height} ranks of {}",
                spec.name
            )));
        }
        if buckets > MAX_ROYAL_BUCKETS || layout.squares > MAX_SQUARES || layout.roles > MAX_ROLES {
            return Err(NetworkError::RoyalBuckets(format!(
                "{buckets} buckets; a network has at most {MAX_ROYAL_BUCKETS}"
            )));
        }
        let mut group_of_rank = Vec::with_capacity(height);
        for (group, &size) in groups.iter().enumerate() {
            group_of_rank.extend(std::iter::repeat_n(group, usize::from(size)));
        }
        let mut map = [0; MAX_SQUARES];
        for (square, bucket) in map.iter_mut().enumerate().take(layout.squares) {
            // Turned for the perspective, its back rank is the last rank.
            let from_back = height - 1 - square / width;
            let file = square % width;
            let file = if mirror {
                file.min(width - 1 - file)
            } else {
                file
            };
            *bucket = (group_of_rank[from_back] * files + file % files) as u8;
        }
        let mut role_image: [u8; MAX_ROLES] = std::array::from_fn(|r| r as u8);
        if let Some(images) = mirror_roles {
            for (slot, image) in role_image.iter_mut().zip(images) {
                *slot = image.0;
            }
        }
        Ok(RoyalBuckets {
            variant,
            royal_role: spec
                .roles
                .iter()
                .position(|r| r.royal)
                .map(|r| Role(r as u8)),
            rank_groups: groups.to_vec(),
            buckets,
            mirror,
            map,
            role_image,
            width,
            squares: layout.squares,
        })
    }

    /// The game they are for.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Whether `role` is the royal kind, whose square chooses the view.
    #[inline]
    pub fn is_royal(&self, role: Role) -> bool {
        self.royal_role == Some(role)
    }

    /// Number of buckets, each a first layer of its own.
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// The rank groups, from the back rank.
    pub fn rank_groups(&self) -> &[u8] {
        &self.rank_groups
    }

    /// Whether views whose royal stands left of the centre file are mirrored.
    pub fn mirrors(&self) -> bool {
        self.mirror
    }

    /// Whether these are no buckets at all: one first layer, no mirroring.
    #[inline(always)]
    pub fn is_plain(&self) -> bool {
        self.buckets == 1 && !self.mirror
    }

    /// The view of `perspective` whose own royal stands on `royal` (a square index, as the
    /// position has it); bucket 0 as seen when it has none.
    #[inline]
    pub fn view(&self, perspective: Color, royal: Option<usize>) -> View {
        let Some(square) = royal.filter(|&s| s < self.squares) else {
            return View::default();
        };
        let square = if perspective == Color::Sente {
            square
        } else {
            self.squares - 1 - square
        };
        let file = square % self.width;
        View {
            bucket: usize::from(self.map[square]),
            mirrored: self.mirror && 2 * file > self.width - 1,
        }
    }

    /// The input of a piece on a square (its index in the position), seen by `perspective`
    /// in `view`.
    #[inline(always)]
    pub fn board_input(
        &self,
        layout: Layout,
        view: View,
        perspective: Color,
        piece: Piece,
        square: usize,
    ) -> usize {
        let relation = usize::from(piece.color != perspective);
        let mut square = if perspective == Color::Sente {
            square
        } else {
            layout.squares - 1 - square
        };
        let mut role = piece.role.index();
        if view.mirrored {
            let file = square % self.width;
            square = square - file + (self.width - 1 - file);
            role = usize::from(self.role_image[role % MAX_ROLES]);
        }
        view.bucket * layout.inputs() + (relation * layout.roles + role) * layout.squares + square
    }

    /// The input "`color` holds at least `level + 1` of `role`", seen by `perspective` in
    /// `view`.
    #[inline(always)]
    pub fn hand_input(
        &self,
        layout: Layout,
        view: View,
        perspective: Color,
        color: Color,
        role: usize,
        level: usize,
    ) -> usize {
        let role = if view.mirrored {
            usize::from(self.role_image[role % MAX_ROLES])
        } else {
            role
        };
        view.bucket * layout.inputs() + layout.hand_input(perspective, color, role, level)
    }

    /// Appends the active inputs of a position seen by `perspective` to `out`, in the view of
    /// its own royal.
    pub fn inputs_of<B: Bitboard>(
        &self,
        layout: Layout,
        position: &Position<B>,
        perspective: Color,
        out: &mut Vec<usize>,
    ) {
        let view = if self.is_plain() {
            View::default()
        } else {
            self.view(perspective, position.royal_square(perspective))
        };
        for square in 0..layout.squares {
            if let Some(piece) = position.piece_at(Square::from_index(square as u8)) {
                out.push(self.board_input(layout, view, perspective, piece, square));
            }
        }
        for color in [Color::Sente, Color::Gote] {
            for role in 0..layout.roles {
                let count = usize::from(position.hand_count(color, Role(role as u8)));
                for level in 0..count.min(HAND_LEVELS) {
                    out.push(self.hand_input(layout, view, perspective, color, role, level));
                }
            }
        }
    }
}
