//! Which game, chosen at run time: the [`Variant`] every layer above the rules names a game by.

use crate::variant::{Options, VariantSpec};
use crate::{tenjiku, tori, wa};
use std::fmt;
use std::str::FromStr;

/// One of the games this library knows.
///
/// Names are the rules' short names (`tori`, `wa`, `tenjiku`); the protocol names that USI,
/// UCI and Fairy-Stockfish use (`torishogi`, `washogi`) are read too.
///
/// ```
/// use tsubame_rules::Variant;
/// let wa: Variant = "washogi".parse().unwrap();
/// assert_eq!(wa, Variant::Wa);
/// assert_eq!(wa.name(), "wa");
/// assert_eq!(wa.spec().width, 11);
/// assert_eq!(Variant::ALL.map(Variant::name), ["tori", "wa", "tenjiku"]);
/// assert!("chess".parse::<Variant>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// Tori shogi, 7x7.
    Tori,
    /// Wa shogi, 11x11.
    Wa,
    /// Tenjiku shogi, 16x16.
    Tenjiku,
}

/// A name that is no game of this library.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {name:?} (variants: tori, wa, tenjiku)")]
pub struct UnknownVariant {
    /// The name given, cut to 40 characters.
    pub name: String,
}

impl Variant {
    /// Every game, in the order they are listed everywhere.
    pub const ALL: [Variant; 3] = [Variant::Tori, Variant::Wa, Variant::Tenjiku];

    /// The game's definition.
    pub fn spec(self) -> &'static VariantSpec {
        match self {
            Variant::Tori => tori::spec(),
            Variant::Wa => wa::spec(),
            Variant::Tenjiku => tenjiku::spec(),
        }
    }

    /// The short name used on the command line, in records and in the API (`"tori"`).
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The name USI's `USI_Variant`, UCI's `UCI_Variant` and Fairy-Stockfish use
    /// (`"torishogi"`).
    pub fn protocol_name(self) -> &'static str {
        self.spec().protocol_name
    }

    /// The name for people (`"Tori shogi"`).
    pub fn title(self) -> &'static str {
        self.spec().title
    }

    /// Files and ranks.
    pub fn board_size(self) -> (u8, u8) {
        let spec = self.spec();
        (spec.width, spec.height)
    }

    /// Every rule option at its default.
    pub fn default_options(self) -> Options {
        Options::defaults(self.spec())
    }

    /// The game with this short or protocol name, in any case, spaces around ignored.
    pub fn from_name(name: &str) -> Option<Variant> {
        let name = name.trim();
        Variant::ALL.into_iter().find(|v| {
            name.eq_ignore_ascii_case(v.name()) || name.eq_ignore_ascii_case(v.protocol_name())
        })
    }

    /// The game this definition belongs to; `None` for a definition that is none of this
    /// library's games.
    pub fn from_spec(spec: &VariantSpec) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.spec() == spec)
    }

    /// The game these options belong to.
    ///
    /// ```
    /// use tsubame_rules::{Options, Variant, wa};
    /// assert_eq!(Variant::of(&Options::defaults(wa::spec())), Some(Variant::Wa));
    /// ```
    pub fn of(options: &Options) -> Option<Variant> {
        Variant::from_spec(options.variant())
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(name: &str) -> Result<Variant, UnknownVariant> {
        Variant::from_name(name).ok_or_else(|| UnknownVariant {
            name: name.chars().take(40).collect(),
        })
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Variant {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Variant {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Variant, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_in_any_case() {
        for variant in Variant::ALL {
            for name in [variant.name(), variant.protocol_name()] {
                assert_eq!(name.parse(), Ok(variant));
                assert_eq!(name.to_ascii_uppercase().parse(), Ok(variant));
                assert_eq!(format!(" {name} ").parse(), Ok(variant));
            }
            assert_eq!(variant.to_string(), variant.name());
            assert_eq!(Variant::from_spec(variant.spec()), Some(variant));
            assert_eq!(Variant::of(&variant.default_options()), Some(variant));
        }
    }

    #[test]
    fn unknown_names_are_refused_and_quoted_short() {
        for bad in ["", "chess", "tori shogi", "torishogix"] {
            assert!(bad.parse::<Variant>().is_err(), "{bad:?}");
        }
        let long = "x".repeat(1000);
        let error = long.parse::<Variant>().unwrap_err();
        assert_eq!(error.name.len(), 40);
    }
}
