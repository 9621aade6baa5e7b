//! The games as the command line names them, and the engine session that plays them.

use anyhow::{Result, bail};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use tsubame_protocol::client::Protocol;
use tsubame_protocol::session::Session;
use tsubame_rules::{Options, Variant};

/// Reads an engine protocol: `usi`, `uci` or `xboard`, listed in `--help`.
pub fn protocol_parser() -> impl TypedValueParser<Value = Protocol> {
    PossibleValuesParser::new(Protocol::ALL.map(Protocol::name))
        .try_map(|name| name.parse::<Protocol>())
}

/// Reads `--variant`: one of the rules' short names, listed in `--help`.
pub fn variant_parser() -> impl TypedValueParser<Value = Variant> {
    PossibleValuesParser::new(Variant::ALL.map(Variant::name))
        .try_map(|name| name.parse::<Variant>())
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
pub fn session_for(options: &Options) -> Result<Session> {
    let mut session = Session::new();
    session
        .set_options(options.clone())
        .map_err(anyhow::Error::msg)?;
    Ok(session)
}
