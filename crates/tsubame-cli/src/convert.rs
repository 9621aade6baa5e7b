//! `tsubame convert`: game records between the canonical format, Hodges text, KIF and the
//! play site's PGN.

use crate::games::{options_for, variant_parser};
use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use tsubame_notation::record::{
    MoveNotation, Record, read_hodges_text, read_kif_with, read_pgn_games, write_hodges_text,
    write_kif, write_pgn,
};
use tsubame_rules::Variant;

/// A record format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The canonical record: tag pairs, numbered moves (`.tsr`).
    Record,
    /// Numbered Hodges moves alone (`.txt`).
    Hodges,
    /// KIF, Tori shogi only (`.kif`, `.kifu`).
    Kif,
    /// The Tori play site's PGN with Fairy-Stockfish SAN (`.pgn`).
    Pgn,
}

impl Format {
    fn from_path(path: &Path) -> Option<Format> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match extension.as_str() {
            "tsr" | "record" => Format::Record,
            "txt" | "hodges" => Format::Hodges,
            "kif" | "kifu" => Format::Kif,
            "pgn" => Format::Pgn,
            _ => return None,
        })
    }
}

/// Move notation of the canonical record written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum NotationName {
    /// Hodges notation: `Swx3c`.
    Hodges,
    /// USI: `3d3c`.
    Usi,
}

#[derive(Args)]
pub struct ConvertArgs {
    /// The record to read; `-` for standard input.
    input: PathBuf,
    /// Where to write; standard output when left out.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The input's format (default: from the file extension).
    #[arg(long, value_enum)]
    from: Option<Format>,
    /// The output's format (default: from the output's extension, else the canonical record).
    #[arg(long, value_enum)]
    to: Option<Format>,
    /// The game of a Hodges text input, and of the rule options given (other formats say
    /// their game themselves).
    #[arg(long, value_parser = variant_parser(), default_value = "tori")]
    variant: Variant,
    /// A rule option to replay the input under, as NAME=VALUE (repeatable), whatever its
    /// format: given any, the input is replayed under the game's defaults with these set,
    /// instead of the rules the file says (or the play site's, for its PGN).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// The handicap of a Hodges text input.
    #[arg(long, value_name = "NAME")]
    handicap: Option<String>,
    /// Move notation of a canonical record written (default: as read, Hodges for other inputs).
    #[arg(long, value_enum)]
    notation: Option<NotationName>,
}

pub fn run(args: &ConvertArgs) -> Result<()> {
    let stdin = args.input.as_os_str() == "-";
    let from = match args.from.or_else(|| Format::from_path(&args.input)) {
        Some(format) => format,
        None if stdin => Format::Record,
        None => bail!(
            "cannot tell the format of {} from its extension; give --from",
            args.input.display()
        ),
    };
    let to = args
        .to
        .or_else(|| args.output.as_deref().and_then(Format::from_path))
        .unwrap_or(Format::Record);
    let bytes = if stdin {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("cannot read standard input")?;
        bytes
    } else {
        std::fs::read(&args.input)
            .with_context(|| format!("cannot read {}", args.input.display()))?
    };
    let name = args.input.display().to_string();
    let as_text = || {
        String::from_utf8(bytes.clone()).with_context(|| format!("{name}: the text is not UTF-8"))
    };
    let rules = if args.options.is_empty() {
        None
    } else {
        Some(options_for(args.variant, &args.options, None)?)
    };
    let rules = rules.as_ref();
    let mut records = match from {
        Format::Record => {
            vec![Record::parse_with(&as_text()?, rules).with_context(|| name.clone())?]
        }
        Format::Hodges => {
            let options = options_for(args.variant, &args.options, args.handicap.as_deref())?;
            vec![read_hodges_text(&as_text()?, options).with_context(|| name.clone())?]
        }
        Format::Kif => vec![read_kif_with(&bytes, rules).with_context(|| name.clone())?],
        Format::Pgn => read_pgn_games(&as_text()?, rules).with_context(|| name.clone())?,
    };
    if records.len() > 1 && to != Format::Pgn {
        bail!(
            "{name} holds {} games: write them as PGN (--to pgn), or one at a time",
            records.len()
        );
    }
    let mut text = String::new();
    for record in &mut records {
        if let Some(notation) = args.notation {
            record.notation = match notation {
                NotationName::Hodges => MoveNotation::Hodges,
                NotationName::Usi => MoveNotation::Usi,
            };
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&match to {
            Format::Record => record.to_canonical()?,
            Format::Hodges => write_hodges_text(record)?,
            Format::Kif => write_kif(record)?,
            Format::Pgn => write_pgn(record)?,
        });
    }
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().write_all(text.as_bytes())?,
    }
    Ok(())
}
