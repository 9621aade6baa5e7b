//! The games as the command line names them, and the engine session that plays them.

use anyhow::{Result, bail};
use clap::ValueEnum;
use tsubame_protocol::session::{Session, Variant};
use tsubame_rules::Options;

/// A game on the command line, whether or not this build can play it yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameName {
    /// Tori shogi, 7x7.
    Tori,
    /// Wa shogi, 11x11.
    Wa,
    /// Tenjiku shogi, 16x16.
    Tenjiku,
}

impl GameName {
    /// The short name.
    pub fn name(self) -> &'static str {
        match self {
            GameName::Tori => "tori",
            GameName::Wa => "wa",
            GameName::Tenjiku => "tenjiku",
        }
    }

    /// The engine's variant, or a clear error for a game the engine does not know.
    pub fn variant(self) -> Result<Variant> {
        match Variant::from_name(self.name()) {
            Some(variant) => Ok(variant),
            None => bail!(
                "{} shogi is not available in the terminal",
                capitalised(self.name())
            ),
        }
    }
}

fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Rule options from `NAME=VALUE` pairs, and a handicap.
pub fn options_for(variant: Variant, pairs: &[String], handicap: Option<&str>) -> Result<Options> {
    let spec = variant.spec();
    let mut options = Options::defaults(spec);
    for pair in pairs {
        options.set_pair(pair)?;
    }
    if let Some(handicap) = handicap {
        if spec.option("handicap").is_none() {
            bail!("{} has no handicaps", spec.title);
        }
        options.set("handicap", handicap)?;
    }
    Ok(options)
}

/// An engine session for the game at these options.
pub fn session_for(options: &Options, variant: Variant) -> Result<Session> {
    let mut session = Session::new();
    session.set_variant(variant).map_err(anyhow::Error::msg)?;
    for (name, value) in options.iter() {
        session
            .set_rule_option(name, &value)
            .map_err(anyhow::Error::msg)?;
    }
    Ok(session)
}
