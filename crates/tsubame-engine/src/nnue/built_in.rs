//! The networks built into this program, and their provision where a build leaves one out: the
//! browser's engine carries Tori's network (0.6 MB) but not Wa's two (4 MB each, one with drops
//! and one without), which the page fetches only when that Wa is analysed, so that nobody else
//! downloads them.

use super::*;

/// The shipped Tori network's file.
const TORI_FILE: &[u8] = include_bytes!("../../nets/tori.nnue");
/// The shipped network of Wa with drops (its default rules).
const WA_FILE: &[u8] = include_bytes!("../../nets/wa.nnue");
/// The shipped network of Wa without drops.
const WA_NO_DROPS_FILE: &[u8] = include_bytes!("../../nets/wa-nodrops.nnue");

/// Wa's files where the build carries them: not in the browser's module. (A file only read by
/// [`file_checksum`] is evaluated while compiling and leaves nothing in the module.)
#[cfg(not(target_arch = "wasm32"))]
const WA_NETWORK: Option<&[u8]> = Some(WA_FILE);
#[cfg(target_arch = "wasm32")]
const WA_NETWORK: Option<&[u8]> = None;
#[cfg(not(target_arch = "wasm32"))]
const WA_NO_DROPS_NETWORK: Option<&[u8]> = Some(WA_NO_DROPS_FILE);
#[cfg(target_arch = "wasm32")]
const WA_NO_DROPS_NETWORK: Option<&[u8]> = None;

/// The checksum a network file ends with ([`Network::to_bytes`]): its last eight bytes,
/// little-endian. For a shipped file, known while compiling.
const fn file_checksum(file: &[u8]) -> u64 {
    let end = file.len();
    u64::from_le_bytes([
        file[end - 8],
        file[end - 7],
        file[end - 6],
        file[end - 5],
        file[end - 4],
        file[end - 3],
        file[end - 2],
        file[end - 1],
    ])
}

/// The checksum that bytes offered as a network end with, once [`Network::from_bytes`] has
/// read them (and so checked it against their contents).
fn offered_checksum(bytes: &[u8]) -> Option<u64> {
    let tail = bytes.get(bytes.len().checked_sub(8)?..)?;
    Some(u64::from_le_bytes(tail.try_into().ok()?))
}

/// A network built into this program: the evaluation its engine plays a game with by default.
///
/// ```
/// use tsubame_engine::nnue::BuiltInNetwork;
/// use tsubame_rules::{Options, Variant, wa};
///
/// let without_drops = Options::parse(wa::spec(), "drops=off").unwrap();
/// let network = BuiltInNetwork::for_options(&without_drops).unwrap();
/// assert_eq!(network.name(), "wa-nodrops");
/// assert_eq!(BuiltInNetwork::from_name("wa-nodrops"), Some(network));
/// // A native build carries every built-in network.
/// assert!(network.network().is_some());
/// // Wa with drops (its default) has a network of its own; Tenjiku plays the classical
/// // evaluation.
/// let with_drops = BuiltInNetwork::for_options(&Variant::Wa.default_options());
/// assert_eq!(with_drops, Some(BuiltInNetwork::Wa));
/// assert_eq!(BuiltInNetwork::for_options(&Variant::Tenjiku.default_options()), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltInNetwork {
    /// Tori's (`crates/tsubame-engine/nets/tori.nnue`).
    Tori,
    /// Wa's with drops, its default rules (`crates/tsubame-engine/nets/wa.nnue`).
    Wa,
    /// Wa's without drops (`crates/tsubame-engine/nets/wa-nodrops.nnue`).
    WaNoDrops,
}

/// Why bytes offered as a built-in network were not taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProvideError {
    /// No built-in network has that name.
    #[error("no built-in network is named {0:?} (tori, wa, wa-nodrops)")]
    UnknownName(String),
    /// This build carries the network itself.
    #[error("this build carries the {0} network itself")]
    Carried(&'static str),
    /// The bytes are no network.
    #[error("the {name} network: {error}")]
    Network {
        /// The network offered.
        name: &'static str,
        /// What is wrong with its bytes.
        error: NetworkError,
    },
    /// The bytes are a network of the right game, but not the file built for this name (Wa's
    /// two networks have the same form and size).
    #[error(
        "the bytes given as the {name} network are another network (checksum {found:016x}, not {expected:016x})"
    )]
    NotTheFile {
        /// The network offered.
        name: &'static str,
        /// The checksum of the file the build was made with.
        expected: u64,
        /// The checksum the bytes end with.
        found: u64,
    },
    /// The network is another game's.
    #[error("the {name} network must be a {expected} network, not a {found} one")]
    Variant {
        /// The network offered.
        name: &'static str,
        /// Its game.
        expected: Variant,
        /// The game of the bytes.
        found: Variant,
    },
}

/// Where a built-in network comes from and, once read, the network.
struct Slot {
    /// The file, where the build carries it.
    carried: Option<&'static [u8]>,
    /// The checksum of the file the build was made with: the only bytes a build that leaves
    /// the file out takes.
    checksum: u64,
    /// Read from the carried file on first use, or set once by [`Slot::provide`].
    network: OnceLock<Option<Arc<Network>>>,
}

impl Slot {
    const fn new(carried: Option<&'static [u8]>, checksum: u64) -> Slot {
        Slot {
            carried,
            checksum,
            network: OnceLock::new(),
        }
    }

    fn network(&self) -> Option<Arc<Network>> {
        match self.carried {
            Some(bytes) => self
                .network
                .get_or_init(|| Network::from_bytes(bytes).ok().map(Arc::new))
                .clone(),
            None => self.network.get().cloned().flatten(),
        }
    }

    fn is_ready(&self) -> bool {
        self.carried.is_some() || self.network.get().is_some_and(Option::is_some)
    }

    fn provide(
        &self,
        name: &'static str,
        variant: Variant,
        bytes: &[u8],
    ) -> Result<(), ProvideError> {
        if self.carried.is_some() {
            return Err(ProvideError::Carried(name));
        }
        let network =
            Network::from_bytes(bytes).map_err(|error| ProvideError::Network { name, error })?;
        if network.variant() != variant {
            return Err(ProvideError::Variant {
                name,
                expected: variant,
                found: network.variant(),
            });
        }
        let found = offered_checksum(bytes).unwrap_or_default();
        if found != self.checksum {
            return Err(ProvideError::NotTheFile {
                name,
                expected: self.checksum,
                found,
            });
        }
        // Provided twice (a page that asked again), the first one stays: the bytes are the
        // same file's.
        let _ = self.network.set(Some(Arc::new(network)));
        Ok(())
    }
}

static TORI: Slot = Slot::new(Some(TORI_FILE), file_checksum(TORI_FILE));
static WA: Slot = Slot::new(WA_NETWORK, file_checksum(WA_FILE));
static WA_NO_DROPS: Slot = Slot::new(WA_NO_DROPS_NETWORK, file_checksum(WA_NO_DROPS_FILE));

impl BuiltInNetwork {
    /// Every built-in network.
    pub const ALL: [BuiltInNetwork; 3] = [
        BuiltInNetwork::Tori,
        BuiltInNetwork::Wa,
        BuiltInNetwork::WaNoDrops,
    ];

    /// The built-in network that plays a game under its rules, if it has one. Wa has one for
    /// each rule set: each learnt from its own self-play, because a network from games without
    /// drops, whose hands are always empty, has never seen a hand full of captured pieces, and
    /// one from games with drops has seldom seen the long board endings of games without.
    /// Tenjiku has none.
    pub fn for_options(options: &Options) -> Option<BuiltInNetwork> {
        match Variant::of(options)? {
            Variant::Tori => Some(BuiltInNetwork::Tori),
            Variant::Wa if options.rule_set().drops => Some(BuiltInNetwork::Wa),
            Variant::Wa => Some(BuiltInNetwork::WaNoDrops),
            Variant::Tenjiku => None,
        }
    }

    /// Its name, its file's in `crates/tsubame-engine/nets` without `.nnue`.
    pub fn name(self) -> &'static str {
        match self {
            BuiltInNetwork::Tori => "tori",
            BuiltInNetwork::Wa => "wa",
            BuiltInNetwork::WaNoDrops => "wa-nodrops",
        }
    }

    /// The built-in network of a name.
    pub fn from_name(name: &str) -> Option<BuiltInNetwork> {
        BuiltInNetwork::ALL
            .into_iter()
            .find(|network| network.name() == name)
    }

    /// The game it plays.
    pub fn variant(self) -> Variant {
        match self {
            BuiltInNetwork::Tori => Variant::Tori,
            BuiltInNetwork::Wa | BuiltInNetwork::WaNoDrops => Variant::Wa,
        }
    }

    fn slot(self) -> &'static Slot {
        match self {
            BuiltInNetwork::Tori => &TORI,
            BuiltInNetwork::Wa => &WA,
            BuiltInNetwork::WaNoDrops => &WA_NO_DROPS,
        }
    }

    /// Whether this build carries its file (every network but Wa's two in the browser's
    /// engine).
    pub fn is_carried(self) -> bool {
        self.slot().carried.is_some()
    }

    /// The network, read from the carried file on first use; for one this build leaves out,
    /// the one provided ([`BuiltInNetwork::provide`]), and none before it is.
    pub fn network(self) -> Option<Arc<Network>> {
        self.slot().network()
    }

    /// Whether the network can be used now: carried, or left out and provided.
    pub fn is_ready(self) -> bool {
        self.slot().is_ready()
    }

    /// Gives a build that leaves this network out the file's bytes (the browser's engine, from
    /// the page that fetched it). Refused for a carried network, for bytes that are no network,
    /// for another game's network and for any other file than the one the build was made with
    /// (by its checksum).
    pub fn provide(self, bytes: &[u8]) -> Result<(), ProvideError> {
        self.slot().provide(self.name(), self.variant(), bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsubame_rules::{tori, wa};

    #[test]
    fn every_game_and_rule_set_with_a_network_finds_it_by_name_and_reads_it() {
        let tori = Options::defaults(tori::spec());
        let wa_without_drops = Options::parse(wa::spec(), "drops=off").unwrap();
        assert_eq!(
            BuiltInNetwork::for_options(&tori),
            Some(BuiltInNetwork::Tori)
        );
        assert_eq!(
            BuiltInNetwork::for_options(&wa_without_drops),
            Some(BuiltInNetwork::WaNoDrops)
        );
        assert_eq!(
            BuiltInNetwork::for_options(&Variant::Wa.default_options()),
            Some(BuiltInNetwork::Wa)
        );
        assert_eq!(
            BuiltInNetwork::for_options(&Variant::Tenjiku.default_options()),
            None
        );
        for network in BuiltInNetwork::ALL {
            assert_eq!(BuiltInNetwork::from_name(network.name()), Some(network));
            assert!(network.is_carried() && network.is_ready());
            let read = network.network().expect("a native build carries it");
            assert_eq!(read.variant(), network.variant());
        }
        assert_eq!(BuiltInNetwork::from_name("tenjiku"), None);
        // Wa's two networks are two files.
        assert_ne!(
            BuiltInNetwork::Wa.network().unwrap().to_bytes(),
            BuiltInNetwork::WaNoDrops.network().unwrap().to_bytes()
        );
    }

    #[test]
    fn a_carried_network_is_not_replaced() {
        let bytes = Network::uniform(Variant::Tori, 5).unwrap().to_bytes();
        assert_eq!(
            BuiltInNetwork::Tori.provide(&bytes),
            Err(ProvideError::Carried("tori"))
        );
        assert_ne!(BuiltInNetwork::Tori.network().unwrap().to_bytes(), bytes);
    }

    #[test]
    fn a_left_out_network_is_used_once_provided_and_only_with_the_files_bytes() {
        let wa = Network::uniform(Variant::Wa, 7).unwrap().to_bytes();
        let slot = Slot::new(None, file_checksum(&wa));
        assert!(slot.network().is_none() && !slot.is_ready());
        let tori = Network::uniform(Variant::Tori, 5).unwrap().to_bytes();
        assert_eq!(
            slot.provide("wa-nodrops", Variant::Wa, &tori),
            Err(ProvideError::Variant {
                name: "wa-nodrops",
                expected: Variant::Wa,
                found: Variant::Tori
            })
        );
        assert!(matches!(
            slot.provide("wa-nodrops", Variant::Wa, &wa[..wa.len() - 1]),
            Err(ProvideError::Network { .. })
        ));
        // Another Wa network of the same form and size is not the file.
        let other = Network::uniform(Variant::Wa, 9).unwrap().to_bytes();
        assert_eq!(other.len(), wa.len());
        assert_eq!(
            slot.provide("wa-nodrops", Variant::Wa, &other),
            Err(ProvideError::NotTheFile {
                name: "wa-nodrops",
                expected: file_checksum(&wa),
                found: file_checksum(&other)
            })
        );
        assert!(slot.network().is_none() && !slot.is_ready());
        slot.provide("wa-nodrops", Variant::Wa, &wa).unwrap();
        assert!(slot.is_ready());
        assert_eq!(slot.network().unwrap().to_bytes(), wa);
        // Provided again (a page that asked again), it stays the same network.
        slot.provide("wa-nodrops", Variant::Wa, &wa).unwrap();
        assert_eq!(slot.network().unwrap().to_bytes(), wa);
    }

    #[test]
    fn each_of_was_two_files_is_refused_in_the_others_place() {
        let with_drops = Slot::new(None, file_checksum(WA_FILE));
        let without_drops = Slot::new(None, file_checksum(WA_NO_DROPS_FILE));
        assert!(matches!(
            with_drops.provide("wa", Variant::Wa, WA_NO_DROPS_FILE),
            Err(ProvideError::NotTheFile { name: "wa", .. })
        ));
        assert!(matches!(
            without_drops.provide("wa-nodrops", Variant::Wa, WA_FILE),
            Err(ProvideError::NotTheFile { .. })
        ));
        with_drops.provide("wa", Variant::Wa, WA_FILE).unwrap();
        without_drops
            .provide("wa-nodrops", Variant::Wa, WA_NO_DROPS_FILE)
            .unwrap();
        assert_eq!(with_drops.network().unwrap().to_bytes(), WA_FILE);
        assert_eq!(
            without_drops.network().unwrap().to_bytes(),
            WA_NO_DROPS_FILE
        );
    }
}
