//! The `tsubame` command.

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;
use tsubame_rules::{Bitboard, Options, Position, Tables, VariantSpec, tori, wa};

/// Play, study and analyse Tori, Wa and Tenjiku shogi.
#[derive(Parser)]
#[command(name = "tsubame", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree to a fixed depth.
    #[command(
        after_help = "Examples:\n  tsubame perft --variant tori --depth 6\n  tsubame perft --variant tori --option drop-mate=illegal --depth 3 --divide\n  tsubame perft --variant tori --fen 'rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[-] w 0 1' --depth 4"
    )]
    Perft(PerftArgs),
    /// List the legal moves of a position, one USI move per line, sorted.
    #[command(
        after_help = "Examples:\n  tsubame moves --variant tori\n  tsubame moves --variant tori --sfen '3k3/7/7/7/7/7/3K3 b S 1'"
    )]
    Moves(MovesArgs),
    /// Search fixed positions of every game to a fixed depth with one thread; the node total is
    /// the search's signature.
    #[command(
        after_help = "Example:\n  tsubame bench\n\nThe last line is `<N> nodes <M> nps`; N changes only when the search's behaviour changes."
    )]
    Bench(BenchArgs),
    /// Run as an engine for a GUI or a match program, speaking a protocol on stdin/stdout.
    #[command(
        after_help = "Example:\n  tsubame engine usi\n\nThen: usi, setoption name USI_Variant value washogi, isready, position startpos moves 6i6h, go byoyomi 1000"
    )]
    Engine(EngineArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum ProtocolName {
    /// USI, with USI_Variant naming the game.
    Usi,
    /// UCI with UCI_Variant, in Fairy-Stockfish's conventions (its FEN, a1 squares, S@c3 drops).
    Uci,
}

#[derive(Args)]
struct EngineArgs {
    /// The protocol.
    #[arg(value_enum)]
    protocol: ProtocolName,
}

fn engine(args: &EngineArgs) -> Result<()> {
    let output: tsubame_protocol::session::Output =
        std::sync::Arc::new(std::sync::Mutex::new(Box::new(std::io::stdout())));
    match args.protocol {
        ProtocolName::Usi => tsubame_protocol::usi::Usi::new(output).run(std::io::stdin().lock()),
        ProtocolName::Uci => tsubame_protocol::uci::Uci::new(output).run(std::io::stdin().lock()),
    }
    Ok(())
}

#[derive(Args)]
struct BenchArgs {
    /// Depth for Tori (Wa is searched two plies shallower).
    #[arg(long, default_value_t = tsubame_engine::bench::DEPTH)]
    depth: u32,
}

fn bench(args: &BenchArgs) -> Result<()> {
    if args.depth == 0 || args.depth > 30 {
        bail!("depth {} is out of range (1 to 30)", args.depth);
    }
    let rows = tsubame_engine::bench::run(args.depth).map_err(anyhow::Error::msg)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut nodes = 0u64;
    let mut time = 0f64;
    for (i, row) in rows.iter().enumerate() {
        writeln!(
            out,
            "{:>2} {:<5} {:>10} nodes {:>8.3} s  best {:<8} {}",
            i + 1,
            row.variant,
            row.nodes,
            row.time.as_secs_f64(),
            row.best,
            row.sfen
        )?;
        nodes += row.nodes;
        time += row.time.as_secs_f64();
    }
    let nps = if time > 0.0 {
        (nodes as f64 / time) as u64
    } else {
        0
    };
    writeln!(out, "{nodes} nodes {nps} nps")?;
    Ok(())
}

#[derive(Clone, Copy, ValueEnum)]
enum VariantName {
    /// Tori shogi, 7x7.
    Tori,
    /// Wa shogi, 11x11 (rule option drops=on|off).
    Wa,
}

impl VariantName {
    fn spec(self) -> &'static VariantSpec {
        match self {
            VariantName::Tori => tori::spec(),
            VariantName::Wa => wa::spec(),
        }
    }
}

#[derive(Args)]
struct PositionArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "tori")]
    variant: VariantName,
    /// A rule option as NAME=VALUE (repeatable), e.g. drop-mate=illegal, handicap=falcon.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// Start from this SFEN instead of the start position.
    #[arg(long, conflicts_with = "fen")]
    sfen: Option<String>,
    /// Start from this FEN (Fairy-Stockfish / play-site form: `board[hand] w|b ...`, `w` = sente).
    #[arg(long)]
    fen: Option<String>,
}

#[derive(Args)]
struct PerftArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Depth in plies.
    #[arg(long)]
    depth: u32,
    /// Print the node count below each root move.
    #[arg(long)]
    divide: bool,
}

#[derive(Args)]
struct MovesArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// List moves without the check that the own royal piece is left safe.
    #[arg(long)]
    pseudo_legal: bool,
}

impl PositionArgs {
    fn options(&self) -> Result<Options> {
        let mut options = Options::defaults(self.variant.spec());
        for pair in &self.options {
            options.set_pair(pair)?;
        }
        Ok(options)
    }

    fn position<B: Bitboard>(&self, tables: &'static Tables<B>) -> Result<Position<B>> {
        let options = self.options()?;
        let rules = options.rule_set();
        Ok(match (&self.sfen, &self.fen) {
            (Some(sfen), _) => Position::from_sfen(tables, sfen, rules).context("bad --sfen")?,
            (None, Some(fen)) => Position::from_fen(tables, fen, rules).context("bad --fen")?,
            (None, None) => Position::start(tables, &options)?,
        })
    }
}

fn perft<B: Bitboard>(tables: &'static Tables<B>, args: &PerftArgs) -> Result<()> {
    if args.depth > 64 {
        bail!("depth {} is too deep (at most 64)", args.depth);
    }
    let mut position = args.position.position(tables)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let start = Instant::now();
    let nodes = if args.divide {
        let mut rows: Vec<(String, u64)> = position
            .divide(args.depth)
            .into_iter()
            .map(|(mv, n)| (position.to_usi(mv), n))
            .collect();
        rows.sort();
        for (mv, n) in &rows {
            writeln!(out, "{mv} {n}")?;
        }
        if args.depth == 0 {
            1
        } else {
            rows.iter().map(|r| r.1).sum()
        }
    } else {
        position.perft(args.depth)
    };
    let seconds = start.elapsed().as_secs_f64();
    let nps = if seconds > 0.0 {
        (nodes as f64 / seconds) as u64
    } else {
        0
    };
    writeln!(out, "nodes {nodes} time {seconds:.3} nps {nps}")?;
    Ok(())
}

fn moves<B: Bitboard>(tables: &'static Tables<B>, args: &MovesArgs) -> Result<()> {
    let position = args.position.position(tables)?;
    let list = if args.pseudo_legal {
        position.pseudo_legal_moves()
    } else {
        position.legal_moves()
    };
    let mut texts: Vec<String> = list.into_iter().map(|m| position.to_usi(m)).collect();
    texts.sort();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for text in texts {
        writeln!(out, "{text}")?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Perft(args) => match args.position.variant {
            VariantName::Tori => perft(tori::tables(), args),
            VariantName::Wa => perft(wa::tables(), args),
        },
        Command::Bench(args) => bench(args),
        Command::Engine(args) => engine(args),
        Command::Moves(args) => match args.position.variant {
            VariantName::Tori => moves(tori::tables(), args),
            VariantName::Wa => moves(wa::tables(), args),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("tsubame: {error:#}");
            ExitCode::FAILURE
        }
    }
}
