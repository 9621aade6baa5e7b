//! A network's weights and its file format: reading, checking and writing `TSBNNUE1`-`3`
//! files, and the output layer that turns both accumulators into centipawns.

use super::*;

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
    pub(super) layout: Layout,
    /// How the first layer follows each side's royal (plain: one first layer).
    pub(super) royal: RoyalBuckets,
    /// First layer, input-major: input `i`'s weights are `w1[i * HIDDEN..][..HIDDEN]`, the
    /// royal buckets one after the other.
    w1: Vec<i16>,
    pub(super) b1: Vec<i16>,
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
    pub(super) fn bytes_of_width(&self, width: usize) -> Vec<u8> {
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

    /// The network built into this program for a game under its rules, if it has one and
    /// this build holds it ([`BuiltInNetwork`]): Tori's and Wa's two, with drops and without;
    /// docs/networks.md says how each was made.
    ///
    /// ```
    /// use tsubame_engine::nnue::Network;
    /// use tsubame_rules::{Options, Variant, wa};
    ///
    /// let without_drops = Options::parse(wa::spec(), "drops=off").unwrap();
    /// assert!(Network::built_in(&without_drops).is_some());
    /// assert!(Network::built_in(&Variant::Wa.default_options()).is_some());
    /// assert!(Network::built_in(&Variant::Tenjiku.default_options()).is_none());
    /// assert!(Network::built_in(&Variant::Tori.default_options()).is_some());
    /// ```
    pub fn built_in(options: &Options) -> Option<Arc<Network>> {
        BuiltInNetwork::for_options(options)?.network()
    }

    #[inline(always)]
    pub(super) fn column(&self, input: usize) -> &[i16] {
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
