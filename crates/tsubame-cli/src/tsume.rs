//! `tsubame tsume`: the shortest forced mate by checks from a position.

use crate::PositionArgs;
use anyhow::{Result, bail};
use clap::Args;
use std::io::Write;
use std::time::Duration;
use tsubame_engine::tsume::{Interrupted, MateLimits, MateResult, Progress, solve_any};

pub const HELP: &str = "\
Examples:
  tsubame tsume --variant tori --sfen '5sk/5s1/6C/7/7/7/K6 b F 1'
  tsubame tsume --variant wa --sfen '<sfen>' --max-moves 9 --time 30
  tsubame tsume --variant tenjiku --option burn=off --sfen '<sfen>' --max-moves 5

The side to move attacks, and every one of its moves must give check (the tsume convention); the
defender's replies are every legal move, drops and promotions included. The answer is the
shortest mate, read out with the defender's longest resistance. Progress goes to standard error;
the last line on standard output is exactly one of

  mate N pv M1 M2 ... M(2N-1)
  no mate within N
  unknown: time        (or `unknown: nodes`, or `unknown: size` for a problem too large
                       for the search's counts)

with exit status 0. Bad input is an error naming what was wrong, with exit status 2.";

#[derive(Args)]
pub struct TsumeArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// The longest mate looked for, in the attacker's moves.
    #[arg(long, value_name = "N", default_value_t = 15)]
    max_moves: u32,
    /// Seconds after which the search gives up (`unknown: time`).
    #[arg(long, value_name = "SECONDS")]
    time: Option<f64>,
    /// Positions after which the search gives up (`unknown: nodes`).
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// The solver's table in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 256)]
    hash: usize,
}

/// The most attacker moves a solve may be asked for: far beyond any forced mate by checks
/// a search can settle, and within the solver's ply counter.
pub const MAX_MOVES: u32 = 255;

/// What went wrong with the arguments, as opposed to a position without a mate.
pub struct BadInput(pub anyhow::Error);

pub fn run(args: &TsumeArgs) -> Result<(), BadInput> {
    let limits = limits(args).map_err(BadInput)?;
    let position = args.position.position().map_err(BadInput)?;
    let mut progress = |step: &Progress| match step {
        Progress::Found { moves, nodes } => {
            eprintln!("info mate {moves} found, {nodes} nodes; looking for a shorter one")
        }
        Progress::Shortest { moves, nodes } => {
            eprintln!("info mate {moves} is the shortest, {nodes} nodes; reading the line")
        }
    };
    eprintln!(
        "info looking for a mate within {} moves{}",
        limits.max_moves,
        limits
            .time
            .map(|t| format!(", {:.1} s", t.as_secs_f64()))
            .unwrap_or_default()
    );
    let report = solve_any(&position, &limits, &mut progress);
    let usi = match &report.result {
        MateResult::Mate(line) => position.line_to_usi(line),
        _ => Vec::new(),
    };
    let seconds = report.elapsed.as_secs_f64();
    eprintln!(
        "info nodes {} time {:.3} nps {}",
        report.nodes,
        seconds,
        crate::per_second(report.nodes, seconds)
    );
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", answer(&report.result, &usi));
    Ok(())
}

fn limits(args: &TsumeArgs) -> Result<MateLimits> {
    if args.max_moves == 0 || args.max_moves > MAX_MOVES {
        bail!(
            "--max-moves {} is out of range (1 to {MAX_MOVES})",
            args.max_moves
        );
    }
    let time = match args.time {
        Some(seconds) if !seconds.is_finite() || seconds <= 0.0 || seconds > 1e9 => {
            bail!("--time {seconds} is not a number of seconds above 0")
        }
        Some(seconds) => Some(Duration::from_secs_f64(seconds)),
        None => None,
    };
    if args.hash == 0 || args.hash > 65536 {
        bail!("--hash {} is out of range (1 to 65536 MiB)", args.hash);
    }
    Ok(MateLimits {
        max_moves: args.max_moves,
        time,
        nodes: args.nodes,
        stop: None,
        table_mib: args.hash,
    })
}

/// The answer line: `mate N pv ...`, `no mate within N` or `unknown: why`.
pub fn answer(result: &MateResult, line: &[String]) -> String {
    match result {
        MateResult::Mate(moves) => {
            format!("mate {} pv {}", moves.len().div_ceil(2), line.join(" "))
        }
        MateResult::NoMate(within) => format!("no mate within {within}"),
        MateResult::Unknown(why) => format!(
            "unknown: {}",
            match why {
                Interrupted::Time => "time",
                Interrupted::Nodes => "nodes",
                Interrupted::Stopped => "stopped",
                Interrupted::Exhausted => "size",
            }
        ),
    }
}
