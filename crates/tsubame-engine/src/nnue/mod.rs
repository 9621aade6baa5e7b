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
    Bitboard, Color, Move, MoveKind, Options, Piece, Position, Role, Square, Tables, Variant,
};

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

mod accumulator;
mod built_in;
mod changes;
mod layout;
mod network;
mod royal;
pub mod simd;

pub use accumulator::{Accumulator, AccumulatorStack, refresh_values};
pub use built_in::{BuiltInNetwork, ProvideError};
pub use changes::{Changes, Touch};
pub use layout::{Layout, View};
pub use network::{
    MAGIC, MAGIC_BUCKETS, MAGIC_ROYAL, Network, NetworkError, NetworkWeights, is_network_file,
};
pub use royal::RoyalBuckets;

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
        let built_in = Network::built_in(&Variant::Tori.default_options())
            .expect("Tori has a built-in network");
        assert_eq!(built_in.buckets(), 1);
        assert_eq!(
            built_in.to_bytes(),
            include_bytes!("../../nets/tori.nnue").as_slice()
        );
        assert_eq!(built_in.bucket(20), 0);
    }

    #[test]
    fn the_built_in_tori_network_loads_and_gives_its_documented_evaluations() {
        let network = Network::built_in(&Variant::Tori.default_options())
            .expect("Tori has a built-in network");
        assert_eq!(network.variant(), Variant::Tori);
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
    const START_EVAL: i32 = 149;
    const FALCON_UP_EVAL: i32 = 2819;
    const FALCON_UP_GOTE_EVAL: i32 = -2560;

    /// Checks that `options` play the built-in Wa network of `file`, and its evaluations of the
    /// start position and of gote's flying falcon taken (`in_hand`: where it went, `-` for
    /// off the board), with sente and then gote to move.
    fn assert_built_in_wa_evaluations(
        options: &Options,
        file: &[u8],
        in_hand: &str,
        documented: [i32; 3],
    ) {
        let network = Network::built_in(options).expect("Wa has a network");
        assert_eq!(network.variant(), Variant::Wa);
        assert_eq!(network.to_bytes(), file);
        let rules = options.rule_set();
        let evaluate =
            |sfen: &str| network.evaluate(&Position::from_sfen(wa::tables(), sfen, rules).unwrap());
        let falcon_up =
            "hmlcvkwgudo/1e3s5/ppprpppxppp/3p3p3/11/11/11/3P3P3/PPPXPPPRPPP/1F3S3E1/ODUGWKVCLMH";
        let positions = [
            wa::spec().start_sfen.to_string(),
            format!("{falcon_up} b {in_hand} 1"),
            format!("{falcon_up} w {in_hand} 1"),
        ];
        // All three at once, so that a new network's failure names every value to document.
        let evaluations = positions.each_ref().map(|sfen| evaluate(sfen));
        assert_eq!(evaluations, documented, "{positions:?}");
    }

    #[test]
    fn the_built_in_wa_network_without_drops_gives_its_documented_evaluations() {
        let without_drops = Options::parse(wa::spec(), "drops=off").unwrap();
        // Gote's flying falcon gone from the board.
        assert_built_in_wa_evaluations(
            &without_drops,
            include_bytes!("../../nets/wa-nodrops.nnue"),
            "-",
            [WA_START_EVAL, WA_FALCON_UP_EVAL, WA_FALCON_UP_GOTE_EVAL],
        );
        // Tenjiku has no network: the classical evaluation plays.
        assert!(Network::built_in(&Variant::Tenjiku.default_options()).is_none());
    }

    /// The built-in network of Wa without drops' evaluations of the positions above, as
    /// docs/networks.md gives them.
    const WA_START_EVAL: i32 = 22;
    const WA_FALCON_UP_EVAL: i32 = 1376;
    const WA_FALCON_UP_GOTE_EVAL: i32 = -1329;

    #[test]
    fn the_built_in_wa_network_with_drops_counts_the_hands_and_gives_its_documented_evaluations() {
        // Gote's flying falcon taken, in sente's hand: worth more than off the board without
        // drops, for it can come back anywhere.
        assert_built_in_wa_evaluations(
            &Variant::Wa.default_options(),
            include_bytes!("../../nets/wa.nnue"),
            "F",
            [
                WA_DROPS_START_EVAL,
                WA_DROPS_FALCON_IN_HAND_EVAL,
                WA_DROPS_FALCON_IN_HAND_GOTE_EVAL,
            ],
        );
    }

    /// The built-in network of Wa with drops' evaluations of the positions above, as
    /// docs/networks.md gives them.
    const WA_DROPS_START_EVAL: i32 = 0;
    const WA_DROPS_FALCON_IN_HAND_EVAL: i32 = 2541;
    const WA_DROPS_FALCON_IN_HAND_GOTE_EVAL: i32 = -2400;

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
