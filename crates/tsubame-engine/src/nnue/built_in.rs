//! The networks built into this program, and their provision where a build leaves one out: the
//! browser's engine carries Tori's network (0.6 MB) but not Wa's two (4 MB each, one with drops
//! and one without), which the page fetches only when that Wa is analysed, so that nobody else
//! downloads them.

use super::*;

/// The shipped Tori network's file.
const TORI_NETWORK: &[u8] = include_bytes!("../../nets/tori.nnue");

/// The shipped network of Wa with drops (its default rules), left out of the browser's module.
#[cfg(not(target_arch = "wasm32"))]
const WA_NETWORK: Option<&[u8]> = Some(include_bytes!("../../nets/wa.nnue"));
#[cfg(target_arch = "wasm32")]
const WA_NETWORK: Option<&[u8]> = None;

/// The shipped network of Wa without drops, left out of the browser's module.
#[cfg(not(target_arch = "wasm32"))]
const WA_NO_DROPS_NETWORK: Option<&[u8]> = Some(include_bytes!("../../nets/wa-nodrops.nnue"));
#[cfg(target_arch = "wasm32")]
const WA_NO_DROPS_NETWORK: Option<&[u8]> = None;

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
    /// Read from the carried file on first use, or set once by [`Slot::provide`].
    network: OnceLock<Option<Arc<Network>>>,
}

impl Slot {
    const fn new(carried: Option<&'static [u8]>) -> Slot {
        Slot {
            carried,
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
        // Provided twice (a page that asked again), the first one stays: the bytes come from
        // the same file.
        let _ = self.network.set(Some(Arc::new(network)));
        Ok(())
    }
}

static TORI: Slot = Slot::new(Some(TORI_NETWORK));
static WA: Slot = Slot::new(WA_NETWORK);
static WA_NO_DROPS: Slot = Slot::new(WA_NO_DROPS_NETWORK);

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
    /// the page that fetched it). Refused for a carried network, for bytes that are no network
    /// and for another game's network.
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
    fn a_left_out_network_is_used_once_provided_and_only_with_the_games_bytes() {
        let slot = Slot::new(None);
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
        let wa = Network::uniform(Variant::Wa, 7).unwrap().to_bytes();
        assert!(matches!(
            slot.provide("wa-nodrops", Variant::Wa, &wa[..wa.len() - 1]),
            Err(ProvideError::Network { .. })
        ));
        assert!(slot.network().is_none() && !slot.is_ready());
        slot.provide("wa-nodrops", Variant::Wa, &wa).unwrap();
        assert!(slot.is_ready());
        assert_eq!(slot.network().unwrap().to_bytes(), wa);
        // A second provision keeps the first network.
        let other = Network::uniform(Variant::Wa, 9).unwrap().to_bytes();
        slot.provide("wa-nodrops", Variant::Wa, &other).unwrap();
        assert_eq!(slot.network().unwrap().to_bytes(), wa);
    }
}
