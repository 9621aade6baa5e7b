//! An efficiently updatable neural network evaluation (NNUE) for the games with drops (Tori,
//! Wa): a position becomes a few dozen active binary inputs, the first layer's sums over them
//! (the accumulator, one per point of view) are updated by each move instead of recomputed, and
//! a small integer output layer turns both sums into centipawns.
//!
//! Inputs, seen from one side (the perspective), with the board turned half a circle for gote
//! so that both sides see their own pieces coming from the bottom:
//! - each piece on the board: whose it is (the perspective's or the other side's), its kind
//!   (every role of the game, promoted forms included) and its square;
//! - each kind in hand: whose, the kind, and one input per level for "at least 1", "at least
//!   2", ... up to [`HAND_LEVELS`].
//!
//! The network: inputs -> [`HIDDEN`] (shared weights, one accumulator per perspective) ->
//! squared clipped ReLU over both accumulators, the side to move's first -> 1. The output layer
//! may come in several buckets, one chosen by the number of pieces in both hands (a measure of
//! how far the game has gone and how sharp it is, since every capture adds one): a network with
//! [`OUTPUT_BUCKETS`] buckets uses bucket `min(pieces in hand / 2, 7)`. Weights are integers:
//! the first layer in units of 1/[`QA`], the output layer in units of 1/[`QB`].
//!
//! ```
//! use tsubame_engine::nnue::{Layout, Network};
//! use tsubame_rules::{Options, Variant, tori};
//!
//! // A network with every weight zero but the output bias evaluates every position the same.
//! let network = Network::uniform(Variant::Tori, 25).unwrap();
//! let position = tori::start(&Options::defaults(tori::spec())).unwrap();
//! assert_eq!(Layout::of(&position), network.layout());
//! assert_eq!(network.evaluate(&position), 25);
//! ```

use std::sync::{Arc, OnceLock};
use tsubame_rules::{
    Bitboard, Color, Move, MoveKind, Piece, Position, Role, Square, Tables, Variant,
};

/// The shipped Tori network's file.
const TORI_NETWORK: &[u8] = include_bytes!("../../nets/tori.nnue");

/// Width of the first layer (each perspective's accumulator): 256, or 512 in a build with the
/// `wide-network` feature, which tries a wider network (the built-in one is 256 wide; such a
/// build reads it with [`Network::from_bytes_widened`] only, so plays Tori with
/// `EvalFile`).
pub const HIDDEN: usize = if cfg!(feature = "wide-network") {
    512
} else {
    256
};
/// Hand inputs per kind and side: "at least 1" to "at least `HAND_LEVELS`".
pub const HAND_LEVELS: usize = 8;
/// Output buckets of a network trained with them (`tsubame nnue train --output-buckets`); a
/// network file may also have a single output layer, as the first networks did.
pub const OUTPUT_BUCKETS: usize = 8;
/// Pieces in hand (both sides together) per output bucket; the last bucket takes the rest.
pub const HAND_PIECES_PER_BUCKET: usize = 2;
/// Quantization of the first layer: a weight of 1.0 is stored as `QA`; the clipped ReLU
/// clips at `QA`.
pub const QA: i32 = 255;
/// Quantization of the output layer's weights.
pub const QB: i32 = 64;
/// Centipawns per unit of the network's raw output.
pub const OUTPUT_SCALE: i32 = 400;
/// Most kinds a game may have for a network (Wa has 32 with promoted forms).
pub const MAX_ROLES: usize = 64;
/// Most squares a board may have for a network (Wa has 121).
pub const MAX_SQUARES: usize = 128;
/// Most royal buckets a network may have.
pub const MAX_ROYAL_BUCKETS: usize = 64;
/// Most inputs that change with one move, per perspective and direction: a capture that
/// promotes takes the mover off its square and the captured piece off the destination, puts
/// the promoted mover there, and adds a level to a hand.
const MAX_CHANGES: usize = 4;

/// The input layout of a game: how many squares and kinds it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Squares of the board.
    pub squares: usize,
    /// Kinds of piece, promoted forms included.
    pub roles: usize,
}

impl Layout {
    /// The layout of a position's game.
    pub fn of<B: Bitboard>(position: &Position<B>) -> Layout {
        Layout::of_tables(position.tables())
    }

    /// The layout of a game by its tables.
    pub fn of_tables<B: Bitboard>(tables: &Tables<B>) -> Layout {
        Layout {
            squares: tables.geometry.square_count(),
            roles: tables.role_count(),
        }
    }

    /// The layout of a variant's game; `None` for Tenjiku, whose positions are of another kind.
    pub fn for_variant(variant: Variant) -> Option<Layout> {
        if variant == Variant::Tenjiku {
            return None;
        }
        let spec = variant.spec();
        Some(Layout {
            squares: usize::from(spec.width) * usize::from(spec.height),
            roles: spec.roles.len(),
        })
    }

    /// Number of inputs.
    pub fn inputs(self) -> usize {
        2 * self.roles * (self.squares + HAND_LEVELS)
    }

    /// The input of a piece on a square (index from 0, rank `a` first), seen by `perspective`.
    #[inline(always)]
    pub fn board_input(self, perspective: Color, piece: Piece, square: usize) -> usize {
        let relation = usize::from(piece.color != perspective);
        let square = if perspective == Color::Sente {
            square
        } else {
            self.squares - 1 - square
        };
        (relation * self.roles + piece.role.index()) * self.squares + square
    }

    /// The input "`color` holds at least `level + 1` of `role`", seen by `perspective`.
    #[inline(always)]
    pub fn hand_input(self, perspective: Color, color: Color, role: usize, level: usize) -> usize {
        let relation = usize::from(color != perspective);
        2 * self.roles * self.squares + (relation * self.roles + role) * HAND_LEVELS + level
    }

    /// The number of pieces in both hands, which chooses the output bucket.
    pub fn pieces_in_hand<B: Bitboard>(self, position: &Position<B>) -> usize {
        [Color::Sente, Color::Gote]
            .into_iter()
            .flat_map(|color| {
                (0..self.roles)
                    .map(move |role| usize::from(position.hand_count(color, Role(role as u8))))
            })
            .sum()
    }

    /// Appends the active inputs of a position seen by `perspective` to `out`.
    pub fn inputs_of<B: Bitboard>(
        self,
        position: &Position<B>,
        perspective: Color,
        out: &mut Vec<usize>,
    ) {
        for square in 0..self.squares {
            if let Some(piece) = position.piece_at(Square::from_index(square as u8)) {
                out.push(self.board_input(perspective, piece, square));
            }
        }
        for color in [Color::Sente, Color::Gote] {
            for role in 0..self.roles {
                let count = usize::from(position.hand_count(color, Role(role as u8)));
                for level in 0..count.min(HAND_LEVELS) {
                    out.push(self.hand_input(perspective, color, role, level));
                }
            }
        }
    }
}

/// Where a perspective's own royal piece stands, as a network with royal buckets reads it:
/// which copy of the first layer its inputs use, and whether its board is seen mirrored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// The royal bucket: inputs of this view are those of the plain layout plus
    /// `bucket * Layout::inputs()`.
    pub bucket: usize,
    /// Whether the board is seen mirrored left to right, each kind replaced by its image.
    pub mirrored: bool,
}

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
    variant: Variant,
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
    fn build(
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

/// Why bytes are no network.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    /// The file does not start as a network file does.
    #[error(
        "not a Tsubame network file (it starts with {0:?}, not \"TSBNNUE1\", \"TSBNNUE2\" or \"TSBNNUE3\")"
    )]
    Magic(String),
    /// The file ends before its weights do.
    #[error("the network file is cut short: {found} bytes, {expected} needed")]
    Truncated {
        /// Bytes the header promises.
        expected: usize,
        /// Bytes there are.
        found: usize,
    },
    /// Bytes after the weights.
    #[error("the network file has {0} bytes after its weights")]
    Trailing(usize),
    /// The variant name is unknown or has no networks.
    #[error("the network is for {0:?}, which is no game with networks (tori, wa)")]
    Variant(String),
    /// The layout in the header is not the variant's.
    #[error(
        "the network's inputs ({found_squares} squares, {found_roles} kinds) are not {variant}'s ({squares} squares, {roles} kinds)"
    )]
    Layout {
        /// The variant named.
        variant: Variant,
        /// Its squares.
        squares: usize,
        /// Its kinds.
        roles: usize,
        /// Squares in the header.
        found_squares: usize,
        /// Kinds in the header.
        found_roles: usize,
    },
    /// The hidden width in the header is not this build's.
    #[error("the network's first layer has {0} neurons; this build reads {HIDDEN}")]
    Hidden(usize),
    /// The number of output buckets in the header is not 1 or [`OUTPUT_BUCKETS`].
    #[error("the network has {0} output buckets; this build reads 1 or {OUTPUT_BUCKETS}")]
    Buckets(usize),
    /// The checksum does not match: the file was damaged.
    #[error("the network file is damaged (checksum mismatch)")]
    Checksum,
    /// An output weight beyond +-127, which the integer output layer cannot multiply exactly.
    #[error("the network's output weight {0} is beyond +-127")]
    OutputWeight(i16),
    /// Royal buckets that do not fit the game or this build.
    #[error("the network's royal buckets are not valid: {0}")]
    RoyalBuckets(String),
    /// The file could not be read.
    #[error("cannot read the network file {path}: {reason}")]
    Unreadable {
        /// The path given.
        path: String,
        /// The system's reason.
        reason: String,
    },
}

/// The first bytes of a network file with a single output layer.
pub const MAGIC: &[u8; 8] = b"TSBNNUE1";
/// The first bytes of a network file with output buckets; their number follows the hidden
/// width in the header.
pub const MAGIC_BUCKETS: &[u8; 8] = b"TSBNNUE2";
/// The first bytes of a network file with royal buckets ([`RoyalBuckets`]): the header goes
/// on after the output buckets with the number of rank groups, each group's ranks and whether
/// views are mirrored, one byte each.
pub const MAGIC_ROYAL: &[u8; 8] = b"TSBNNUE3";

/// Rows of `width` values widened to rows of [`HIDDEN`], the new places zero.
fn widened_rows(values: &[i16], width: usize) -> Vec<i16> {
    if width == HIDDEN {
        return values.to_vec();
    }
    let mut out = Vec::with_capacity(values.len() / width.max(1) * HIDDEN);
    for row in values.chunks(width.max(1)) {
        out.extend_from_slice(row);
        out.resize(out.len() + HIDDEN - row.len(), 0);
    }
    out
}

/// Whether bytes begin as a network file of any form, known to this build or not (a file of
/// an unknown form is then refused by [`Network::from_bytes`] with its magic named, rather
/// than taken for something else).
pub fn is_network_file(bytes: &[u8]) -> bool {
    bytes.starts_with(b"TSBNNUE")
}

/// A network's integer weights, borrowed (see [`Network::weights`]).
#[derive(Clone, Copy, Debug)]
pub struct NetworkWeights<'a> {
    /// First layer, input-major: input `i`'s weights are `w1[i * HIDDEN..][..HIDDEN]`.
    pub w1: &'a [i16],
    /// First layer biases, one per hidden unit.
    pub b1: &'a [i16],
    /// Output weights, bucket by bucket: in each, the side to move's accumulator's first.
    pub w2: &'a [i16],
    /// Output bias of each bucket.
    pub b2: &'a [i32],
}

/// A trained network for one game.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    variant: Variant,
    layout: Layout,
    /// How the first layer follows each side's royal (plain: one first layer).
    royal: RoyalBuckets,
    /// First layer, input-major: input `i`'s weights are `w1[i * HIDDEN..][..HIDDEN]`, the
    /// royal buckets one after the other.
    w1: Vec<i16>,
    b1: Vec<i16>,
    /// Output weights, bucket by bucket: in each, the side to move's accumulator's first,
    /// then the other's.
    w2: Vec<i16>,
    /// Output bias of each bucket.
    b2: Vec<i32>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network({}, {} inputs x {} royal buckets, {HIDDEN}x2 -> 1, {} output buckets)",
            self.variant,
            self.layout.inputs(),
            self.royal.buckets(),
            self.b2.len()
        )
    }
}

/// 64-bit FNV-1a, the file's checksum.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Reads little-endian values off the front of a byte slice.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], NetworkError> {
        let end = self.at.saturating_add(n);
        let slice = self
            .bytes
            .get(self.at..end)
            .ok_or(NetworkError::Truncated {
                expected: end,
                found: self.bytes.len(),
            })?;
        self.at = end;
        Ok(slice)
    }
    fn u16(&mut self) -> Result<u16, NetworkError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, NetworkError> {
        let b = self.take(n.saturating_mul(2))?;
        Ok(b.chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
}

impl Network {
    /// A network from its parts; `w1` input-major, `w2` bucket by bucket with one bias in
    /// `b2` for each (1 or [`OUTPUT_BUCKETS`]). `None` when the sizes do not fit the variant's
    /// layout.
    pub fn from_parts(
        variant: Variant,
        w1: Vec<i16>,
        b1: Vec<i16>,
        w2: Vec<i16>,
        b2: Vec<i32>,
    ) -> Option<Network> {
        Network::from_parts_with_royal(variant, RoyalBuckets::plain(variant)?, w1, b1, w2, b2)
    }

    /// A network with royal buckets from its parts: as [`Network::from_parts`], with the
    /// first layer of each bucket after the other in `w1`. `None` when the sizes do not fit.
    pub fn from_parts_with_royal(
        variant: Variant,
        royal: RoyalBuckets,
        w1: Vec<i16>,
        b1: Vec<i16>,
        w2: Vec<i16>,
        b2: Vec<i32>,
    ) -> Option<Network> {
        let layout = Layout::for_variant(variant)?;
        let fits = w1.len() == royal.buckets() * layout.inputs() * HIDDEN
            && royal.variant == variant
            && w2.iter().all(|w| w.unsigned_abs() <= 127)
            && b1.len() == HIDDEN
            && (b2.len() == 1 || b2.len() == OUTPUT_BUCKETS)
            && w2.len() == 2 * HIDDEN * b2.len()
            && layout.roles <= MAX_ROLES;
        fits.then_some(Network {
            variant,
            layout,
            royal,
            w1,
            b1,
            w2,
            b2,
        })
    }

    /// A network that gives every position the same score, `centipawns` (rounded to the
    /// output's resolution): all weights zero, the output bias set.
    pub fn uniform(variant: Variant, centipawns: i32) -> Option<Network> {
        let layout = Layout::for_variant(variant)?;
        let b2 = centipawns * QA * QB / OUTPUT_SCALE;
        Network::from_parts(
            variant,
            vec![0; layout.inputs() * HIDDEN],
            vec![0; HIDDEN],
            vec![0; 2 * HIDDEN],
            vec![b2],
        )
    }

    /// The integer weights, as [`Network::from_parts`] takes them: the first layer
    /// (input-major) and its biases, the output weights bucket by bucket and their biases.
    pub fn weights(&self) -> NetworkWeights<'_> {
        NetworkWeights {
            w1: &self.w1,
            b1: &self.b1,
            w2: &self.w2,
            b2: &self.b2,
        }
    }

    /// The game this network evaluates.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Its input layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// How its first layer follows each side's royal.
    pub fn royal_buckets(&self) -> &RoyalBuckets {
        &self.royal
    }

    /// The view in which `perspective` sees `position`.
    #[inline]
    pub fn view<B: Bitboard>(&self, position: &Position<B>, perspective: Color) -> View {
        if self.royal.is_plain() {
            View::default()
        } else {
            self.royal
                .view(perspective, position.royal_square(perspective))
        }
    }

    /// Number of output buckets: 1 or [`OUTPUT_BUCKETS`].
    pub fn buckets(&self) -> usize {
        self.b2.len()
    }

    /// The output bucket for a position with `pieces_in_hand` pieces in both hands.
    #[inline]
    pub fn bucket(&self, pieces_in_hand: usize) -> usize {
        (pieces_in_hand / HAND_PIECES_PER_BUCKET).min(self.b2.len() - 1)
    }

    /// The file form: magic ([`MAGIC`], or [`MAGIC_BUCKETS`] with output buckets), the
    /// variant's short name, squares, kinds and hidden width (and the number of buckets), the
    /// weights (little-endian i16; the output biases i32), then a 64-bit FNV-1a checksum of
    /// everything before it.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.bytes_of_width(HIDDEN)
    }

    /// The file form of the network's first `width` neurons (all [`HIDDEN`] for
    /// [`Network::to_bytes`]).
    fn bytes_of_width(&self, width: usize) -> Vec<u8> {
        let width = width.clamp(1, HIDDEN);
        let mut out = Vec::with_capacity(64 + 2 * (self.w1.len() + HIDDEN + self.w2.len()));
        let royal = !self.royal.is_plain();
        let bucketed = self.buckets() > 1 || royal;
        out.extend_from_slice(if royal {
            MAGIC_ROYAL
        } else if bucketed {
            MAGIC_BUCKETS
        } else {
            MAGIC
        });
        let name = self.variant.spec().name.as_bytes();
        out.push(name.len() as u8);
        out.extend_from_slice(name);
        for n in [self.layout.squares, self.layout.roles, width] {
            out.extend_from_slice(&(n as u16).to_le_bytes());
        }
        if bucketed {
            out.extend_from_slice(&(self.buckets() as u16).to_le_bytes());
        }
        if royal {
            out.push(self.royal.rank_groups().len() as u8);
            out.extend_from_slice(self.royal.rank_groups());
            out.push(u8::from(self.royal.mirrors()));
        }
        for weights in [&self.w1, &self.b1, &self.w2] {
            for row in weights.chunks(HIDDEN) {
                for w in &row[..width] {
                    out.extend_from_slice(&w.to_le_bytes());
                }
            }
        }
        for b in &self.b2 {
            out.extend_from_slice(&b.to_le_bytes());
        }
        let checksum = fnv1a(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads the file form of [`Network::to_bytes`], checking every size and the checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        Network::read(bytes, false).map(|(network, _)| network)
    }

    /// Reads a network file whose first layer may be narrower than this build's
    /// ([`HIDDEN`]), to train a wider network from it: each missing neuron gets zero weights
    /// and bias and no output weight, so the network evaluates every position as the file's
    /// does. Gives the network and the file's width.
    pub fn from_bytes_widened(bytes: &[u8]) -> Result<(Network, usize), NetworkError> {
        Network::read(bytes, true)
    }

    /// [`Network::from_bytes`], or with `widen` [`Network::from_bytes_widened`].
    fn read(bytes: &[u8], widen: bool) -> Result<(Network, usize), NetworkError> {
        let magic = bytes.get(..8).unwrap_or(bytes);
        let royal = magic == MAGIC_ROYAL;
        let bucketed = magic == MAGIC_BUCKETS || royal;
        if magic != MAGIC && !bucketed {
            return Err(NetworkError::Magic(
                String::from_utf8_lossy(magic).chars().take(8).collect(),
            ));
        }
        let mut reader = Reader { bytes, at: 8 };
        let name_len = usize::from(reader.take(1)?[0]);
        let name = String::from_utf8_lossy(reader.take(name_len)?).into_owned();
        let variant: Variant = name
            .parse()
            .map_err(|_| NetworkError::Variant(name.chars().take(40).collect()))?;
        let layout = Layout::for_variant(variant).ok_or(NetworkError::Variant(name.clone()))?;
        let (squares, roles, hidden) = (
            usize::from(reader.u16()?),
            usize::from(reader.u16()?),
            usize::from(reader.u16()?),
        );
        if squares != layout.squares || roles != layout.roles {
            return Err(NetworkError::Layout {
                variant,
                squares: layout.squares,
                roles: layout.roles,
                found_squares: squares,
                found_roles: roles,
            });
        }
        if hidden != HIDDEN && !(widen && (1..HIDDEN).contains(&hidden)) {
            return Err(NetworkError::Hidden(hidden));
        }
        let buckets = if bucketed {
            usize::from(reader.u16()?)
        } else {
            1
        };
        if buckets != 1 && buckets != OUTPUT_BUCKETS {
            return Err(NetworkError::Buckets(buckets));
        }
        let royal_buckets = if royal {
            let groups = usize::from(reader.take(1)?[0]);
            let groups = reader.take(groups)?.to_vec();
            let mirror = match reader.take(1)?[0] {
                0 => false,
                1 => true,
                other => {
                    return Err(NetworkError::RoyalBuckets(format!(
                        "the mirror flag is {other}, not 0 or 1"
                    )));
                }
            };
            RoyalBuckets::build(variant, &groups, mirror, true)?
        } else {
            RoyalBuckets::plain(variant).ok_or(NetworkError::Variant(name.clone()))?
        };
        let rows = royal_buckets.buckets() * layout.inputs();
        let w1 = widened_rows(&reader.i16s(rows * hidden)?, hidden);
        let b1 = widened_rows(&reader.i16s(hidden)?, hidden);
        let w2 = widened_rows(&reader.i16s(2 * hidden * buckets)?, hidden);
        let mut b2 = Vec::with_capacity(buckets);
        for _ in 0..buckets {
            let b = reader.take(4)?;
            b2.push(i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
        let body_end = reader.at;
        let c = reader.take(8)?;
        let checksum = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        if reader.at != bytes.len() {
            return Err(NetworkError::Trailing(bytes.len() - reader.at));
        }
        if fnv1a(&bytes[..body_end]) != checksum {
            return Err(NetworkError::Checksum);
        }
        if let Some(&w) = w2.iter().find(|w| w.unsigned_abs() > 127) {
            return Err(NetworkError::OutputWeight(w));
        }
        Network::from_parts_with_royal(variant, royal_buckets, w1, b1, w2, b2)
            .map(|network| (network, hidden))
            .ok_or(NetworkError::Variant(name))
    }

    /// Reads a network file.
    pub fn load(path: &str) -> Result<Network, NetworkError> {
        let bytes = std::fs::read(path).map_err(|e| NetworkError::Unreadable {
            path: path.chars().take(200).collect(),
            reason: e.to_string(),
        })?;
        Network::from_bytes(&bytes)
    }

    /// The network built into this program for a variant, if it has one: Tori's
    /// (`crates/tsubame-engine/nets/tori.nnue`; docs/networks.md says how it was made).
    pub fn built_in(variant: Variant) -> Option<Arc<Network>> {
        static TORI: OnceLock<Option<Arc<Network>>> = OnceLock::new();
        match variant {
            Variant::Tori => TORI
                .get_or_init(|| Network::from_bytes(TORI_NETWORK).ok().map(Arc::new))
                .clone(),
            Variant::Wa | Variant::Tenjiku => None,
        }
    }

    #[inline(always)]
    fn column(&self, input: usize) -> &[i16] {
        &self.w1[input * HIDDEN..][..HIDDEN]
    }

    /// The evaluation of a position from scratch, in centipawns for the side to move. The
    /// search keeps accumulators instead; this is the reference they are tested against.
    pub fn evaluate<B: Bitboard>(&self, position: &Position<B>) -> i32 {
        let mut accumulator = Accumulator::default();
        accumulator.refresh(self, position);
        let bucket = self.bucket(self.layout.pieces_in_hand(position));
        self.output(&accumulator, position.side_to_move(), bucket)
    }

    /// The output for the side to move `us` from the accumulators through output bucket
    /// `bucket` (see [`Network::bucket`]; a bucket past the last is the last), in centipawns.
    #[inline]
    pub fn output(&self, accumulator: &Accumulator, us: Color, bucket: usize) -> i32 {
        let bucket = bucket.min(self.b2.len() - 1);
        // A network holds 2 * HIDDEN output weights a bucket (checked when it is made).
        let Some(weights) = self
            .w2
            .get(bucket * 2 * HIDDEN..)
            .and_then(<[i16]>::first_chunk::<{ 2 * HIDDEN }>)
        else {
            return 0;
        };
        let sum = simd::output_sum(
            &accumulator.values[us.index()],
            &accumulator.values[(!us).index()],
            weights,
        );
        let raw = sum / i64::from(QA) + i64::from(self.b2[bucket]);
        (raw * i64::from(OUTPUT_SCALE) / i64::from(QA * QB)) as i32
    }
}

/// The first layer's sums for both perspectives (sente's first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Accumulator {
    values: [[i16; HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            values: [[0; HIDDEN]; 2],
        }
    }
}

impl Accumulator {
    /// Computes both perspectives' sums from the position's inputs.
    pub fn refresh<B: Bitboard>(&mut self, network: &Network, position: &Position<B>) {
        for perspective in [Color::Sente, Color::Gote] {
            refresh_values(
                &mut self.values[perspective.index()],
                network,
                position,
                perspective,
            );
        }
    }

    /// This accumulator as `parent` changed by `changes`, the changes of the move that made
    /// `position`: updated where the move leaves a perspective's view as it was, computed
    /// afresh where it moved that perspective's royal into another view.
    #[inline]
    pub fn update_from<B: Bitboard>(
        &mut self,
        parent: &Accumulator,
        network: &Network,
        changes: &Changes,
        position: &Position<B>,
    ) {
        for perspective in [Color::Sente, Color::Gote] {
            if changes.refreshes(perspective) {
                refresh_values(
                    &mut self.values[perspective.index()],
                    network,
                    position,
                    perspective,
                );
            } else {
                self.update_perspective(parent, network, changes, perspective);
            }
        }
    }

    /// One perspective's sums as `parent`'s changed by `changes`.
    #[inline]
    fn update_perspective(
        &mut self,
        parent: &Accumulator,
        network: &Network,
        changes: &Changes,
        perspective: Color,
    ) {
        let p = perspective.index();
        let added: [&[i16]; MAX_CHANGES] = std::array::from_fn(|i| {
            network.column(changes.added[p][i.min(MAX_CHANGES - 1)] as usize)
        });
        let removed: [&[i16]; MAX_CHANGES] = std::array::from_fn(|i| {
            network.column(changes.removed[p][i.min(MAX_CHANGES - 1)] as usize)
        });
        simd::add_sub(
            &mut self.values[p],
            &parent.values[p],
            &added[..usize::from(changes.added_count)],
            &removed[..usize::from(changes.removed_count)],
        );
    }

    /// The sums seen by `perspective`.
    pub fn values(&self, perspective: Color) -> &[i16; HIDDEN] {
        &self.values[perspective.index()]
    }
}

/// Computes one perspective's sums from the position's inputs in its view.
pub fn refresh_values<B: Bitboard>(
    values: &mut [i16; HIDDEN],
    network: &Network,
    position: &Position<B>,
    perspective: Color,
) {
    let mut inputs = Vec::with_capacity(96);
    network
        .royal
        .inputs_of(network.layout, position, perspective, &mut inputs);
    values.copy_from_slice(&network.b1);
    for &input in &inputs {
        let column = network.column(input);
        for (v, w) in values.iter_mut().zip(column) {
            *v = v.wrapping_add(*w);
        }
    }
}

/// The accumulators along a search's current line, updated lazily: a move records its input
/// changes, and the sums are brought up to date only when a position is evaluated. Most moves
/// a search makes are taken back unevaluated (pruned late moves, table cutoffs, repetitions),
/// and those never pay for the first layer.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    /// Entry `i` is the accumulator of the position `i` moves below the root. Entries past
    /// `top` are kept from earlier lines, so that a move writes its accumulator in place.
    entries: Vec<Accumulator>,
    /// The input changes of the move that led to each entry's position.
    changes: Vec<Changes>,
    /// Whether each entry holds its position's sums, perspective by perspective; an entry is
    /// computed only after its parent is, except for a perspective its move refreshed, which
    /// is computed when the move is made.
    computed: Vec<[bool; 2]>,
    top: usize,
}

impl AccumulatorStack {
    /// A stack whose root is `root`, with room for `depth` moves before it grows.
    pub fn new(root: Accumulator, depth: usize) -> AccumulatorStack {
        let mut entries = Vec::with_capacity(depth + 1);
        entries.push(root);
        let mut changes = Vec::with_capacity(depth + 1);
        changes.push(Changes::default());
        let mut computed = Vec::with_capacity(depth + 1);
        computed.push([true; 2]);
        AccumulatorStack {
            entries,
            changes,
            computed,
            top: 0,
        }
    }

    /// Records a move that changes `changes` in the inputs; its sums wait until asked for,
    /// except those of a perspective whose view the move changed ([`Changes::refreshes`]):
    /// `refresh` computes those now from the position the move made (with
    /// [`refresh_values`]), since later the position is no longer at hand.
    #[inline]
    pub fn push(&mut self, changes: Changes, mut refresh: impl FnMut(Color, &mut [i16; HIDDEN])) {
        let next = self.top + 1;
        if next < self.entries.len() {
            self.changes[next] = changes;
        } else {
            self.entries.push(Accumulator::default());
            self.changes.push(changes);
            self.computed.push([false; 2]);
        }
        self.computed[next] = changes.refresh;
        if changes.refresh != [false; 2] {
            for perspective in [Color::Sente, Color::Gote] {
                if changes.refreshes(perspective) {
                    refresh(
                        perspective,
                        &mut self.entries[next].values[perspective.index()],
                    );
                }
            }
        }
        self.top = next;
    }

    /// Takes the last move back.
    #[inline]
    pub fn pop(&mut self) {
        self.top = self.top.saturating_sub(1);
    }

    /// The current position's accumulator, brought up to date from the nearest computed one
    /// below it.
    #[inline]
    pub fn current(&mut self, network: &Network) -> &Accumulator {
        let top = self.top;
        if self.computed[top] != [true; 2] {
            // The nearest computed entry below, for each perspective: most often the same
            // entry for both, found in one walk; they differ only below a move that
            // refreshed one of them.
            let mut base = top;
            while base > 0 && self.computed[base] == [false; 2] {
                base -= 1;
            }
            let bases = if base == 0 || self.computed[base] == [true; 2] {
                [base, base]
            } else {
                [0, 1].map(|p| {
                    let mut below = base;
                    while below > 0 && !self.computed[below][p] {
                        below -= 1;
                    }
                    below
                })
            };
            for index in bases[0].min(bases[1]) + 1..=top {
                let (done, rest) = self.entries.split_at_mut(index);
                let (Some(parent), Some(next)) = (done.last(), rest.first_mut()) else {
                    continue;
                };
                for perspective in [Color::Sente, Color::Gote] {
                    let p = perspective.index();
                    // Entries up to a perspective's base may be stale for it below a refresh:
                    // they stay as they are.
                    if index > bases[p] {
                        next.update_perspective(parent, network, &self.changes[index], perspective);
                        self.computed[index][p] = true;
                    }
                }
            }
        }
        &self.entries[top]
    }
}

/// The inputs a move turns on and off, for both perspectives.
#[derive(Clone, Copy, Debug, Default)]
pub struct Changes {
    added: [[u32; MAX_CHANGES]; 2],
    removed: [[u32; MAX_CHANGES]; 2],
    added_count: u8,
    removed_count: u8,
    /// Perspectives whose view the move changed: their sums are computed afresh.
    refresh: [bool; 2],
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

/// The two inner loops, in a portable form and, where the processor has them, with AVX2 or
/// WebAssembly's SIMD (the browser's engine). All compute exactly the same integers.
pub mod simd {
    use super::{HIDDEN, QA};

    /// Sums of the first layer updated together by AVX2: 128 lanes of 16 bits in eight of its
    /// sixteen registers, which stay there while every column is added in.
    #[cfg(target_arch = "x86_64")]
    const ADD_SUB_BLOCK: usize = 128;

    /// `out = parent + sum(added) - sum(removed)`, lane by lane, wrapping.
    #[inline]
    pub fn add_sub(
        out: &mut [i16; HIDDEN],
        parent: &[i16; HIDDEN],
        added: &[&[i16]],
        removed: &[&[i16]],
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            unsafe { add_sub_avx2(out, parent, added, removed) };
            return;
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            add_sub_wasm(out, parent, added, removed);
            return;
        }
        #[allow(unreachable_code)]
        add_sub_portable(out, parent, added, removed);
    }

    /// [`add_sub`] without SIMD instructions beyond what the target always has.
    #[inline(always)]
    pub fn add_sub_portable(
        out: &mut [i16; HIDDEN],
        parent: &[i16; HIDDEN],
        added: &[&[i16]],
        removed: &[&[i16]],
    ) {
        out.copy_from_slice(parent);
        for column in added {
            for (v, w) in out.iter_mut().zip(column.iter()) {
                *v = v.wrapping_add(*w);
            }
        }
        for column in removed {
            for (v, w) in out.iter_mut().zip(column.iter()) {
                *v = v.wrapping_sub(*w);
            }
        }
    }

    /// The same sums with AVX2, in one pass: each block of lanes is loaded once, every column
    /// added to it in registers, and stored once (the portable loop makes a pass through
    /// memory per column).
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn add_sub_avx2(
        out: &mut [i16; HIDDEN],
        parent: &[i16; HIDDEN],
        added: &[&[i16]],
        removed: &[&[i16]],
    ) {
        use std::arch::x86_64::*;
        const REGISTERS: usize = ADD_SUB_BLOCK / 16;
        if added
            .iter()
            .chain(removed)
            .any(|column| column.len() < HIDDEN)
        {
            add_sub_portable(out, parent, added, removed);
            return;
        }
        for block in (0..HIDDEN).step_by(ADD_SUB_BLOCK) {
            let mut sums = [_mm256_setzero_si256(); REGISTERS];
            for (r, sum) in sums.iter_mut().enumerate() {
                // SAFETY: `block + 16 * r + 16 <= HIDDEN`, the length of `parent`.
                *sum = unsafe { _mm256_loadu_si256(parent.as_ptr().add(block + 16 * r).cast()) };
            }
            for column in added {
                for (r, sum) in sums.iter_mut().enumerate() {
                    // SAFETY: every column holds at least HIDDEN values, checked above.
                    let w =
                        unsafe { _mm256_loadu_si256(column.as_ptr().add(block + 16 * r).cast()) };
                    *sum = _mm256_add_epi16(*sum, w);
                }
            }
            for column in removed {
                for (r, sum) in sums.iter_mut().enumerate() {
                    // SAFETY: as for the added columns.
                    let w =
                        unsafe { _mm256_loadu_si256(column.as_ptr().add(block + 16 * r).cast()) };
                    *sum = _mm256_sub_epi16(*sum, w);
                }
            }
            for (r, sum) in sums.iter().enumerate() {
                // SAFETY: `block + 16 * r + 16 <= HIDDEN`, the length of `out`.
                unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(block + 16 * r).cast(), *sum) };
            }
        }
    }

    /// `sum over both accumulators of clamp(v, 0, QA)^2 * w`: the output layer before its
    /// scaling. The weights are `us`'s HIDDEN then `them`'s; their array type is what lets
    /// the AVX2 path read all of them without a check.
    #[inline]
    pub fn output_sum(
        us: &[i16; HIDDEN],
        them: &[i16; HIDDEN],
        weights: &[i16; 2 * HIDDEN],
    ) -> i64 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { output_sum_avx2(us, them, weights) };
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return output_sum_wasm(us, them, weights);
        #[allow(unreachable_code)]
        output_sum_portable(us, them, weights)
    }

    /// [`output_sum`] in plain integer arithmetic.
    pub fn output_sum_portable(
        us: &[i16; HIDDEN],
        them: &[i16; HIDDEN],
        weights: &[i16; 2 * HIDDEN],
    ) -> i64 {
        let (w_us, w_them) = weights.split_at(HIDDEN);
        let side = |values: &[i16; HIDDEN], w: &[i16]| -> i64 {
            values
                .iter()
                .zip(w)
                .map(|(&v, &w)| {
                    let v = i64::from(v.clamp(0, QA as i16));
                    v * v * i64::from(w)
                })
                .sum()
        };
        side(us, w_us) + side(them, w_them)
    }

    /// [`output_sum`] with AVX2: `clamp(v) * w` fits 16 bits (255 * 127), `madd` multiplies
    /// it by `clamp(v)` again and adds pairs into 32-bit lanes, each of which sums at most
    /// 2 * HIDDEN / 16 * 2 = 64 products of at most 255 * 255 * 127, well inside 32 bits; the
    /// lanes are added in 64 bits. Equal to the portable sum whenever every output weight lies
    /// within +-127, which the trainer guarantees.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn output_sum_avx2(
        us: &[i16; HIDDEN],
        them: &[i16; HIDDEN],
        weights: &[i16; 2 * HIDDEN],
    ) -> i64 {
        use std::arch::x86_64::*;
        let (w_us, w_them) = weights.split_at(HIDDEN);
        let zero = _mm256_setzero_si256();
        let ceiling = _mm256_set1_epi16(QA as i16);
        let mut lanes = _mm256_setzero_si256();
        for (values, w) in [(us, w_us), (them, w_them)] {
            for i in (0..HIDDEN).step_by(16) {
                // SAFETY: `i + 16 <= HIDDEN`, and `values` and `w` (a half of the
                // 2 * HIDDEN weights) hold HIDDEN values each; unaligned loads.
                let (v, w) = unsafe {
                    (
                        _mm256_loadu_si256(values.as_ptr().add(i).cast()),
                        _mm256_loadu_si256(w.as_ptr().add(i).cast()),
                    )
                };
                let clipped = _mm256_min_epi16(_mm256_max_epi16(v, zero), ceiling);
                let product = _mm256_mullo_epi16(clipped, w);
                lanes = _mm256_add_epi32(lanes, _mm256_madd_epi16(product, clipped));
            }
        }
        let mut parts = [0i32; 8];
        // SAFETY: `parts` holds exactly 32 bytes.
        unsafe { _mm256_storeu_si256(parts.as_mut_ptr().cast(), lanes) };
        parts.iter().map(|&p| i64::from(p)).sum()
    }
    /// [`add_sub`] with WebAssembly's 128-bit SIMD (a module built with `+simd128`, as the
    /// browser's engine is): as the AVX2 path, a block of lanes loaded once, every column added
    /// to it, stored once.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    fn add_sub_wasm(
        out: &mut [i16; HIDDEN],
        parent: &[i16; HIDDEN],
        added: &[&[i16]],
        removed: &[&[i16]],
    ) {
        use std::arch::wasm32::*;
        const BLOCK: usize = 128;
        const VECTORS: usize = BLOCK / 8;
        if added
            .iter()
            .chain(removed)
            .any(|column| column.len() < HIDDEN)
        {
            add_sub_portable(out, parent, added, removed);
            return;
        }
        for block in (0..HIDDEN).step_by(BLOCK) {
            let mut sums = [i16x8_splat(0); VECTORS];
            for (r, sum) in sums.iter_mut().enumerate() {
                // SAFETY: `block + 8 * r + 8 <= HIDDEN`, the length of `parent`.
                *sum = unsafe { v128_load(parent.as_ptr().add(block + 8 * r).cast()) };
            }
            for column in added {
                for (r, sum) in sums.iter_mut().enumerate() {
                    // SAFETY: every column holds at least HIDDEN values, checked above.
                    let w = unsafe { v128_load(column.as_ptr().add(block + 8 * r).cast()) };
                    *sum = i16x8_add(*sum, w);
                }
            }
            for column in removed {
                for (r, sum) in sums.iter_mut().enumerate() {
                    // SAFETY: as for the added columns.
                    let w = unsafe { v128_load(column.as_ptr().add(block + 8 * r).cast()) };
                    *sum = i16x8_sub(*sum, w);
                }
            }
            for (r, sum) in sums.iter().enumerate() {
                // SAFETY: `block + 8 * r + 8 <= HIDDEN`, the length of `out`.
                unsafe { v128_store(out.as_mut_ptr().add(block + 8 * r).cast(), *sum) };
            }
        }
    }

    /// [`output_sum`] with WebAssembly's 128-bit SIMD: `clamp(v) * w` fits 16 bits, the dot
    /// product multiplies it by `clamp(v)` again and adds pairs into 32-bit lanes, each summing
    /// at most HIDDEN / 4 products of at most 255 * 255 * 127 per side (inside 32 bits for
    /// both widths of network); each side's lanes are added in 64 bits. Equal to the portable
    /// sum whenever every output weight lies within +-127, which the trainer guarantees.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    fn output_sum_wasm(
        us: &[i16; HIDDEN],
        them: &[i16; HIDDEN],
        weights: &[i16; 2 * HIDDEN],
    ) -> i64 {
        use std::arch::wasm32::*;
        let (w_us, w_them) = weights.split_at(HIDDEN);
        let zero = i16x8_splat(0);
        let ceiling = i16x8_splat(QA as i16);
        let mut total = 0i64;
        for (values, w) in [(us, w_us), (them, w_them)] {
            let mut lanes = i32x4_splat(0);
            for i in (0..HIDDEN).step_by(8) {
                // SAFETY: `i + 8 <= HIDDEN`, and `values` and `w` (a half of the 2 * HIDDEN
                // weights) hold HIDDEN values each; wasm loads need no alignment.
                let (v, w) = unsafe {
                    (
                        v128_load(values.as_ptr().add(i).cast()),
                        v128_load(w.as_ptr().add(i).cast()),
                    )
                };
                let clipped = i16x8_min(i16x8_max(v, zero), ceiling);
                let product = i16x8_mul(clipped, w);
                lanes = i32x4_add(lanes, i32x4_dot_i16x8(product, clipped));
            }
            total += i64::from(i32x4_extract_lane::<0>(lanes))
                + i64::from(i32x4_extract_lane::<1>(lanes))
                + i64::from(i32x4_extract_lane::<2>(lanes))
                + i64::from(i32x4_extract_lane::<3>(lanes));
        }
        total
    }
}

/// A network with random weights as large as training may make them, with `buckets` output
/// buckets: what the tests of incremental updates and of the search's use of the network need.
#[cfg(test)]
pub(crate) fn random_network(variant: Variant, buckets: usize, seed: u64) -> Network {
    let royal = RoyalBuckets::plain(variant).expect("the variant has network inputs");
    random_network_with_royal(variant, royal, buckets, seed)
}

/// A random network (as [`random_network`]) with royal buckets.
#[cfg(test)]
pub(crate) fn random_network_with_royal(
    variant: Variant,
    royal: RoyalBuckets,
    buckets: usize,
    seed: u64,
) -> Network {
    use rand::{Rng, SeedableRng, rngs::StdRng};
    let layout = Layout::for_variant(variant).expect("the variant has network inputs");
    let mut rng = StdRng::seed_from_u64(seed);
    let w1 = (0..royal.buckets() * layout.inputs() * HIDDEN)
        .map(|_| rng.gen_range(-400..=400))
        .collect();
    let b1 = (0..HIDDEN).map(|_| rng.gen_range(-200..=200)).collect();
    let w2 = (0..2 * HIDDEN * buckets)
        .map(|_| rng.gen_range(-127..=127))
        .collect();
    let b2 = (0..buckets)
        .map(|_| rng.gen_range(-20_000..20_000))
        .collect();
    Network::from_parts_with_royal(variant, royal, w1, b1, w2, b2).expect("the sizes fit")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use tsubame_rules::{Options, tori, wa};

    /// Plays random games and checks at every ply that the accumulators updated move by move
    /// (every legal move of the position is tried, and one is kept) equal a fresh computation.
    fn incremental_equals_fresh<B: Bitboard>(
        start: Position<B>,
        network: &Network,
        games: u64,
        plies: usize,
    ) -> usize {
        incremental_equals_fresh_counting_refreshes(start, network, games, plies).0
    }

    /// [`incremental_equals_fresh`], also counting the moves that refreshed a perspective.
    fn incremental_equals_fresh_counting_refreshes<B: Bitboard>(
        start: Position<B>,
        network: &Network,
        games: u64,
        plies: usize,
    ) -> (usize, usize) {
        let layout = network.layout();
        let mut checked = 0;
        let mut refreshed = 0;
        for game in 0..games {
            let mut rng = StdRng::seed_from_u64(game);
            let mut position = start.clone();
            let mut accumulator = Accumulator::default();
            accumulator.refresh(network, &position);
            for _ in 0..plies {
                let moves = position.legal_moves();
                let Some(&chosen) = moves.choose(&mut rng) else {
                    break;
                };
                for &mv in &moves {
                    let touch = Touch::before(&position, network, mv);
                    let undo = position.make_move(mv);
                    let mut next = Accumulator::default();
                    let changes = touch.changes(&position, network);
                    if changes.refreshes(Color::Sente) || changes.refreshes(Color::Gote) {
                        refreshed += 1;
                    }
                    next.update_from(&accumulator, network, &changes, &position);
                    let mut fresh = Accumulator::default();
                    fresh.refresh(network, &position);
                    assert_eq!(next, fresh, "{} then {mv:?}", position.to_sfen());
                    let bucket = network.bucket(layout.pieces_in_hand(&position));
                    assert_eq!(
                        network.output(&next, position.side_to_move(), bucket),
                        network.evaluate(&position)
                    );
                    checked += 1;
                    position.unmake_move(mv, undo);
                }
                let touch = Touch::before(&position, network, chosen);
                position.make_move(chosen);
                let parent = accumulator;
                accumulator.update_from(
                    &parent,
                    network,
                    &touch.changes(&position, network),
                    &position,
                );
            }
        }
        (checked, refreshed)
    }

    /// A file of a narrower first layer is refused as it stands and read widened into this
    /// build's width, the new neurons silent: the same weights as the network whose extra
    /// neurons are zero, and the same evaluations.
    #[test]
    fn a_narrower_network_is_read_widened_and_evaluates_alike() {
        let royal = RoyalBuckets::by_ranks(Variant::Tori, &[1, 1, 5]).unwrap();
        let random = random_network_with_royal(Variant::Tori, royal.clone(), OUTPUT_BUCKETS, 11);
        let width = HIDDEN / 2;
        let silenced = |values: &[i16]| -> Vec<i16> {
            values
                .chunks(HIDDEN)
                .flat_map(|row| {
                    row.iter()
                        .enumerate()
                        .map(|(h, &w)| if h < width { w } else { 0 })
                })
                .collect()
        };
        let weights = random.weights();
        let narrow = Network::from_parts_with_royal(
            Variant::Tori,
            royal,
            silenced(weights.w1),
            silenced(weights.b1),
            silenced(weights.w2),
            weights.b2.to_vec(),
        )
        .unwrap();
        let bytes = narrow.bytes_of_width(width);
        assert!(bytes.len() < narrow.to_bytes().len());
        assert!(matches!(
            Network::from_bytes(&bytes),
            Err(NetworkError::Hidden(w)) if w == width
        ));
        let (widened, found) = Network::from_bytes_widened(&bytes).unwrap();
        assert_eq!(found, width);
        assert_eq!(widened.to_bytes(), narrow.to_bytes());
        let mut position = tori::start(&Options::defaults(tori::spec())).unwrap();
        let mut rng = StdRng::seed_from_u64(4);
        for _ in 0..40 {
            assert_eq!(widened.evaluate(&position), narrow.evaluate(&position));
            let Some(&mv) = position.legal_moves().choose(&mut rng) else {
                break;
            };
            position.make_move(mv);
        }
        // A file of this build's width reads the same either way; a wider one is refused.
        let full = random.to_bytes();
        let (same, found) = Network::from_bytes_widened(&full).unwrap();
        assert_eq!((same.to_bytes(), found), (full.clone(), HIDDEN));
        let mut wider = full;
        let hidden_at = 8 + 1 + "tori".len() + 4;
        wider[hidden_at..hidden_at + 2].copy_from_slice(&(HIDDEN as u16 + 16).to_le_bytes());
        assert!(matches!(
            Network::from_bytes_widened(&wider),
            Err(NetworkError::Hidden(_))
        ));
    }

    #[test]
    fn incremental_accumulators_equal_fresh_ones_in_every_tori_rule_set() {
        let network = random_network(Variant::Tori, OUTPUT_BUCKETS, 3);
        for options in [
            "",
            "owl=on,shrike=on",
            "handicap=falcon-both-quails,drop-mate=illegal",
            "repetition=4,owl=on",
        ] {
            let options = Options::parse(tori::spec(), options).unwrap();
            let checked = incremental_equals_fresh(tori::start(&options).unwrap(), &network, 4, 80);
            assert!(checked > 2_000, "{checked}");
        }
    }

    #[test]
    fn incremental_accumulators_equal_fresh_ones_in_wa() {
        let network = random_network(Variant::Wa, OUTPUT_BUCKETS, 5);
        for options in ["", "drops=off"] {
            let options = Options::parse(wa::spec(), options).unwrap();
            let checked = incremental_equals_fresh(wa::start(&options).unwrap(), &network, 2, 60);
            assert!(checked > 2_000, "{checked}");
        }
    }

    /// Every move kind turns up in Tori games with the shrike's exchange: captures that
    /// promote, drops and exchanges, and hands past the last level.
    #[test]
    fn hand_levels_beyond_the_last_and_exchanges_update_exactly() {
        let network = random_network(Variant::Tori, OUTPUT_BUCKETS, 9);
        let options = Options::parse(tori::spec(), "shrike=on").unwrap();
        // Sente holds nine swallows (one past the last level) and a crane.
        let position = Position::from_sfen(
            tori::tables(),
            "3k3/7/7/7/7/7/3K3 b 9SC 1",
            options.rule_set(),
        )
        .unwrap();
        let checked = incremental_equals_fresh(position, &network, 3, 40);
        assert!(checked > 500, "{checked}");
    }

    /// A search's line in miniature: random moves made and taken back in runs of several, the
    /// position evaluated only now and then, so that the stack brings up to date chains of
    /// several moves, entries left from an abandoned line are overwritten, and the result
    /// must still be the fresh computation at every evaluation.
    #[test]
    fn the_lazy_accumulator_stack_equals_fresh_accumulators_along_a_search_line() {
        let plain = random_network(Variant::Tori, OUTPUT_BUCKETS, 13);
        let royal = RoyalBuckets::by_ranks(Variant::Tori, &[1, 1, 1, 4]).unwrap();
        let bucketed = random_network_with_royal(Variant::Tori, royal, OUTPUT_BUCKETS, 14);
        for network in [plain, bucketed] {
            lazy_stack_equals_fresh(&network);
        }
    }

    fn lazy_stack_equals_fresh(network: &Network) {
        let network = network.clone();
        let options = Options::parse(tori::spec(), "shrike=on").unwrap();
        let mut evaluated = 0;
        let mut deepest_chain = 0;
        for seed in 0..6 {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut position = tori::start(&options).unwrap();
            let mut root = Accumulator::default();
            root.refresh(&network, &position);
            let mut stack = AccumulatorStack::new(root, 4);
            let mut line = Vec::new();
            let mut since_evaluation = 0;
            for _ in 0..3_000 {
                let moves = position.legal_moves();
                let deeper = line.len() < 12 && rng.gen_bool(0.55);
                match moves.choose(&mut rng) {
                    Some(&mv) if deeper || line.is_empty() => {
                        let touch = Touch::before(&position, &network, mv);
                        let undo = position.make_move(mv);
                        stack.push(touch.changes(&position, &network), |p, values| {
                            refresh_values(values, &network, &position, p)
                        });
                        line.push((mv, undo));
                        since_evaluation += 1;
                    }
                    _ => match line.pop() {
                        Some((mv, undo)) => {
                            position.unmake_move(mv, undo);
                            stack.pop();
                            since_evaluation = 0;
                        }
                        None => break,
                    },
                }
                if rng.gen_bool(0.3) {
                    let mut fresh = Accumulator::default();
                    fresh.refresh(&network, &position);
                    assert_eq!(*stack.current(&network), fresh, "{}", position.to_sfen());
                    deepest_chain = deepest_chain.max(since_evaluation);
                    since_evaluation = 0;
                    evaluated += 1;
                }
            }
        }
        assert!(evaluated > 2_000, "{evaluated}");
        assert!(deepest_chain >= 4, "{deepest_chain}");
    }

    #[test]
    fn the_avx2_and_portable_paths_agree() {
        let mut rng = StdRng::seed_from_u64(11);
        for _ in 0..200 {
            let mut us = [0i16; HIDDEN];
            let mut them = [0i16; HIDDEN];
            for v in us.iter_mut().chain(them.iter_mut()) {
                *v = rng.gen_range(-600..600);
            }
            let weights: [i16; 2 * HIDDEN] = std::array::from_fn(|_| rng.gen_range(-127..=127));
            let portable = simd::output_sum_portable(&us, &them, &weights);
            assert_eq!(simd::output_sum(&us, &them, &weights), portable);
            let columns: Vec<Vec<i16>> = (0..6)
                .map(|_| (0..HIDDEN).map(|_| rng.gen_range(-500..500)).collect())
                .collect();
            // Every count of columns a move may change, up to the limit.
            let (added_count, removed_count) = (rng.gen_range(0..=3), rng.gen_range(0..=3));
            let added: Vec<&[i16]> = columns[..added_count].iter().map(Vec::as_slice).collect();
            let removed: Vec<&[i16]> = columns[3..3 + removed_count]
                .iter()
                .map(Vec::as_slice)
                .collect();
            let (mut a, mut b) = ([0i16; HIDDEN], [0i16; HIDDEN]);
            simd::add_sub(&mut a, &us, &added, &removed);
            simd::add_sub_portable(&mut b, &us, &added, &removed);
            assert_eq!(a, b);
            // Sums that wrap past the 16-bit range wrap the same way in both.
            let extreme: Vec<Vec<i16>> = (0..4)
                .map(|_| {
                    (0..HIDDEN)
                        .map(|_| rng.gen_range(-32_000..32_000))
                        .collect()
                })
                .collect();
            let added: Vec<&[i16]> = extreme[..2].iter().map(Vec::as_slice).collect();
            let removed: Vec<&[i16]> = extreme[2..].iter().map(Vec::as_slice).collect();
            simd::add_sub(&mut a, &us, &added, &removed);
            simd::add_sub_portable(&mut b, &us, &added, &removed);
            assert_eq!(a, b);
        }
        // The extreme of every lane: all clipped at QA, all weights at the limit.
        let full = [QA as i16; HIDDEN];
        let weights = [127i16; 2 * HIDDEN];
        let expected = 2 * HIDDEN as i64 * 255 * 255 * 127;
        assert_eq!(simd::output_sum_portable(&full, &full, &weights), expected);
        assert_eq!(simd::output_sum(&full, &full, &weights), expected);
    }

    #[test]
    fn a_network_file_reads_back_and_damage_is_named() {
        let network = random_network(Variant::Tori, OUTPUT_BUCKETS, 1);
        let bytes = network.to_bytes();
        assert_eq!(Network::from_bytes(&bytes).as_ref(), Ok(&network));
        let cut = Network::from_bytes(&bytes[..bytes.len() - 100]);
        assert!(
            matches!(cut, Err(NetworkError::Truncated { .. })),
            "{cut:?}"
        );
        let mut flipped = bytes.clone();
        flipped[1000] ^= 1;
        assert_eq!(Network::from_bytes(&flipped), Err(NetworkError::Checksum));
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(Network::from_bytes(&longer), Err(NetworkError::Trailing(1)));
        assert!(matches!(
            Network::from_bytes(b"{\"variant\": \"torishogi\"}"),
            Err(NetworkError::Magic(_))
        ));
        assert!(matches!(
            Network::from_bytes(b""),
            Err(NetworkError::Magic(_))
        ));
        // A Wa network's bytes with the name changed to Tori: the sizes are Wa's.
        let wa = random_network(Variant::Wa, OUTPUT_BUCKETS, 1).to_bytes();
        let mut renamed = b"TSBNNUE2\x04tori".to_vec();
        renamed.extend_from_slice(&wa[8 + 1 + 2..]);
        assert!(matches!(
            Network::from_bytes(&renamed),
            Err(NetworkError::Layout { .. })
        ));
        // Only 1 or OUTPUT_BUCKETS output buckets are read.
        let mut three_buckets = bytes.clone();
        let at = 8 + 1 + 4 + 6;
        three_buckets[at..at + 2].copy_from_slice(&3u16.to_le_bytes());
        assert_eq!(
            Network::from_bytes(&three_buckets),
            Err(NetworkError::Buckets(3))
        );
        let error = Network::load("/nonexistent/tori.nnue").unwrap_err();
        assert!(
            error.to_string().contains("/nonexistent/tori.nnue"),
            "{error}"
        );
    }

    #[test]
    fn output_buckets_follow_the_pieces_in_hand_and_one_bucket_files_keep_their_form() {
        let network = random_network(Variant::Tori, OUTPUT_BUCKETS, 2);
        assert_eq!(network.buckets(), OUTPUT_BUCKETS);
        assert_eq!(&network.to_bytes()[..8], MAGIC_BUCKETS);
        let expected = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 7, 7, 7, 7];
        for (in_hand, &bucket) in expected.iter().enumerate() {
            assert_eq!(network.bucket(in_hand), bucket, "{in_hand} in hand");
        }
        // Each bucket is its own output layer: a position evaluates through the one its hands
        // choose, and the same accumulators give another score through another bucket.
        let rules = Options::defaults(tori::spec()).rule_set();
        let position =
            Position::from_sfen(tori::tables(), "3k3/7/7/7/7/7/3K3 b 3S2Cp 1", rules).unwrap();
        let layout = network.layout();
        assert_eq!(layout.pieces_in_hand(&position), 6);
        let mut accumulator = Accumulator::default();
        accumulator.refresh(&network, &position);
        let through = |bucket| network.output(&accumulator, Color::Sente, bucket);
        assert_eq!(network.evaluate(&position), through(3));
        assert_ne!(through(3), through(4));
        assert_eq!(through(7), through(100));
        // A network with one output layer keeps the first file form, bytes unchanged, and
        // uses that layer whatever the hands hold.
        let built_in = Network::built_in(Variant::Tori).expect("Tori has a built-in network");
        assert_eq!(built_in.buckets(), 1);
        assert_eq!(built_in.to_bytes(), TORI_NETWORK);
        assert_eq!(built_in.bucket(20), 0);
    }

    #[test]
    fn the_built_in_tori_network_loads_and_gives_its_documented_evaluations() {
        let network = Network::built_in(Variant::Tori).expect("Tori has a built-in network");
        assert_eq!(network.variant(), Variant::Tori);
        assert!(Network::built_in(Variant::Wa).is_none());
        let rules = Options::defaults(tori::spec()).rule_set();
        let evaluate = |sfen: &str| {
            network.evaluate(&Position::from_sfen(tori::tables(), sfen, rules).unwrap())
        };
        let documented = [
            (tori::spec().start_sfen, START_EVAL),
            // Sente has taken the falcon for nothing.
            (
                "rpckcpl/7/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b F 1",
                FALCON_UP_EVAL,
            ),
            // The same, gote to move: the evaluation is gote's.
            (
                "rpckcpl/7/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR w F 1",
                FALCON_UP_GOTE_EVAL,
            ),
        ];
        for (sfen, expected) in documented {
            assert_eq!(evaluate(sfen), expected, "{sfen}");
        }
    }

    /// The built-in network's evaluations of the positions above, as docs/networks.md gives them.
    const START_EVAL: i32 = 122;
    const FALCON_UP_EVAL: i32 = 2717;
    const FALCON_UP_GOTE_EVAL: i32 = -2541;

    #[test]
    fn the_board_turns_with_the_perspective() {
        // The start position is the same from both sides, so both accumulators agree, and
        // a network sees the same position whoever is to move.
        let network = random_network(Variant::Tori, OUTPUT_BUCKETS, 4);
        let options = Options::defaults(tori::spec());
        let position = tori::start(&options).unwrap();
        let mut accumulator = Accumulator::default();
        accumulator.refresh(&network, &position);
        assert_eq!(
            accumulator.values(Color::Sente),
            accumulator.values(Color::Gote)
        );
        let layout = network.layout();
        let mut sente = Vec::new();
        let mut gote = Vec::new();
        layout.inputs_of(&position, Color::Sente, &mut sente);
        layout.inputs_of(&position, Color::Gote, &mut gote);
        sente.sort_unstable();
        gote.sort_unstable();
        assert_eq!(sente, gote);
        assert!(sente.iter().all(|&i| i < layout.inputs()));
    }

    /// Networks whose first layer follows each side's royal: one bucket per rank from the
    /// back (28 with mirroring in Tori), or a few rank groups; Wa with and without drops.
    #[test]
    fn royal_bucketed_accumulators_equal_fresh_ones_in_every_rule_set() {
        for (groups, seed) in [(vec![1u8; 7], 21), (vec![1, 1, 5], 22)] {
            let royal = RoyalBuckets::by_ranks(Variant::Tori, &groups).unwrap();
            assert!(royal.mirrors());
            let network = random_network_with_royal(Variant::Tori, royal, OUTPUT_BUCKETS, seed);
            for options in [
                "",
                "owl=on,shrike=on",
                "handicap=falcon-both-quails,drop-mate=illegal",
                "repetition=4,owl=on",
            ] {
                let options = Options::parse(tori::spec(), options).unwrap();
                let (checked, refreshed) = incremental_equals_fresh_counting_refreshes(
                    tori::start(&options).unwrap(),
                    &network,
                    4,
                    80,
                );
                assert!(checked > 2_000, "{checked}");
                assert!(refreshed > 50, "{groups:?} {refreshed}");
            }
        }
        let royal = RoyalBuckets::by_ranks(Variant::Wa, &[1, 1, 1, 8]).unwrap();
        assert_eq!(royal.buckets(), 4 * 6);
        let network = random_network_with_royal(Variant::Wa, royal, OUTPUT_BUCKETS, 23);
        for options in ["", "drops=off"] {
            let options = Options::parse(wa::spec(), options).unwrap();
            let (checked, refreshed) = incremental_equals_fresh_counting_refreshes(
                wa::start(&options).unwrap(),
                &network,
                2,
                60,
            );
            assert!(checked > 2_000, "{checked}");
            assert!(refreshed > 20, "{refreshed}");
        }
    }

    /// Mirroring is exact: a position and its mirror image, with each side's royal off the
    /// centre file, activate the same inputs from both sides (one side seeing it mirrored),
    /// and so get the same evaluation.
    #[test]
    fn a_mirrored_view_sees_the_mirror_image_as_the_position() {
        let royal = RoyalBuckets::by_ranks(Variant::Tori, &[1, 1, 5]).unwrap();
        let network = random_network_with_royal(Variant::Tori, royal.clone(), OUTPUT_BUCKETS, 31);
        let layout = network.layout();
        let options = Options::parse(tori::spec(), "shrike=on").unwrap();
        let mut compared = 0;
        for seed in 0..20 {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut position = tori::start(&options).unwrap();
            for _ in 0..60 {
                let moves = position.legal_moves();
                let Some(&mv) = moves.choose(&mut rng) else {
                    break;
                };
                position.make_move(mv);
                let royals = [Color::Sente, Color::Gote].map(|c| position.royal_square(c));
                if royals.iter().any(|r| r.is_none_or(|s| s % 7 == 3)) {
                    continue;
                }
                let image = position.mirrored().unwrap();
                for perspective in [Color::Sente, Color::Gote] {
                    let view = network.view(&position, perspective);
                    let image_view = network.view(&image, perspective);
                    assert_eq!(view.bucket, image_view.bucket);
                    assert_ne!(view.mirrored, image_view.mirrored);
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    royal.inputs_of(layout, &position, perspective, &mut a);
                    royal.inputs_of(layout, &image, perspective, &mut b);
                    a.sort_unstable();
                    b.sort_unstable();
                    assert_eq!(a, b, "{}", position.to_sfen());
                }
                assert_eq!(network.evaluate(&position), network.evaluate(&image));
                compared += 1;
            }
        }
        assert!(compared > 200, "{compared}");
    }

    #[test]
    fn a_royal_bucketed_network_file_reads_back_and_bad_buckets_are_named() {
        let royal = RoyalBuckets::by_ranks(Variant::Tori, &[1, 1, 5]).unwrap();
        let network = random_network_with_royal(Variant::Tori, royal, OUTPUT_BUCKETS, 41);
        let bytes = network.to_bytes();
        assert_eq!(&bytes[..8], MAGIC_ROYAL);
        let read = Network::from_bytes(&bytes).unwrap();
        assert_eq!(read, network);
        assert_eq!(read.royal_buckets().rank_groups(), &[1, 1, 5]);
        // The header: magic, name, three sizes, output buckets, then the groups.
        let groups_at = 8 + 1 + 4 + 6 + 2;
        assert_eq!(&bytes[groups_at..groups_at + 5], &[3, 1, 1, 5, 1]);
        let mut bad_mirror = bytes.clone();
        bad_mirror[groups_at + 4] = 2;
        assert!(matches!(
            Network::from_bytes(&bad_mirror),
            Err(NetworkError::RoyalBuckets(_))
        ));
        let mut short_groups = bytes.clone();
        short_groups[groups_at + 3] = 4;
        let error = Network::from_bytes(&short_groups).unwrap_err();
        assert!(
            error.to_string().contains("do not cover the 7 ranks"),
            "{error}"
        );
        let cut = Network::from_bytes(&bytes[..groups_at + 2]);
        assert!(
            matches!(cut, Err(NetworkError::Truncated { .. })),
            "{cut:?}"
        );
        // Too many buckets for a network.
        assert!(RoyalBuckets::by_ranks(Variant::Wa, &[1; 11]).is_err());
        assert!(RoyalBuckets::by_ranks(Variant::Tenjiku, &[16]).is_err());
        // A plain network keeps its form.
        let plain = random_network(Variant::Tori, OUTPUT_BUCKETS, 42);
        assert!(plain.royal_buckets().is_plain());
        assert_eq!(&plain.to_bytes()[..8], MAGIC_BUCKETS);
    }
}
