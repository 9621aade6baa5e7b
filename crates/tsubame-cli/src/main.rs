//! The `tsubame` command.

mod analyse;
mod convert;
mod games;
mod match_runner;
mod nnue;
mod play;
mod puzzles;
mod tsume;
mod tune;
mod worker;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;
use tsubame_protocol::client::Protocol;
use tsubame_rules::{AnyPosition, Options, Variant};

/// Play, study and analyse Tori, Wa and Tenjiku shogi.
#[derive(Parser)]
#[command(name = "tsubame", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play a game in the terminal against the engine or another person.
    #[command(after_help = PLAY_HELP)]
    Play(play::PlayArgs),
    /// Show the engine's evaluation and principal variation of a position or a whole game.
    #[command(after_help = ANALYSE_HELP)]
    Analyse(analyse::AnalyseArgs),
    /// Convert game records between the record format, Hodges text, KIF and the play site's PGN.
    #[command(after_help = CONVERT_HELP)]
    Convert(convert::ConvertArgs),
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
    /// Mine puzzles from games, and check puzzle files.
    #[command(after_help = puzzles::HELP)]
    Puzzles(puzzles::PuzzlesArgs),
    /// Find the shortest forced mate in which every attacking move gives check.
    #[command(after_help = tsume::HELP)]
    Tsume(tsume::TsumeArgs),
    /// Search fixed positions of every game to a fixed depth with one thread; the node total is
    /// the search's signature.
    #[command(
        after_help = "Examples:\n  tsubame bench\n  tsubame bench --mates\n\nThe last line is `<N> nodes <M> nps`; N changes only when the search's (or with --mates, the mate solver's) behaviour changes."
    )]
    Bench(BenchArgs),
    /// Run as an engine for a GUI or a match program, speaking a protocol on stdin/stdout.
    #[command(
        after_help = "Example:\n  tsubame engine usi\n\nThen: usi, setoption name USI_Variant value washogi, isready, position startpos moves 6i6h, go byoyomi 1000"
    )]
    Engine(EngineArgs),
    /// Play two engines against each other and report the result with an Elo estimate.
    #[command(after_help = MATCH_HELP)]
    Match(MatchArgs),
    /// Tune the evaluation (Texel's method): self-play positions, then weights fitted to them.
    #[command(
        after_help = "Examples:\n  tsubame tune generate --variant tori --games 2000 --nodes 3000 --threads 2 --out tori.tsv\n  tsubame tune fit --variant tori --data tori.tsv --threads 2 --out tori.json\n  tsubame engine usi   # then: setoption name EvalFile value tori.json\n  tsubame tune spsa --variant tori --tune futility_margin --tune lmr_divisor --steps 2000 --nodes 3000 --threads 2 --state spsa.json"
    )]
    Tune(tune::TuneArgs),
    /// The network evaluation: self-play data with search scores, and training.
    #[command(
        after_help = "Examples:\n  tsubame nnue generate --variant tori --games 20000 --nodes 5000 --out tori.games\n  tsubame nnue convert --variant tori --data old.data --out old.games\n  tsubame nnue train --variant tori --data tori.games --data old.games --epochs 20 --out nets/\n  tsubame engine usi   # then: setoption name EvalFile value nets/best.nnue"
    )]
    Nnue(nnue::NnueArgs),
    /// Take a play server's engine jobs (computer moves) and answer them with the engine.
    #[command(
        after_help = "Examples:\n  TSUBAME_WORKER_KEY=tsw_... tsubame worker --server https://shogi.example.org --threads 4\n\nThe server runs with --engine-workers; `tsubame admin worker-key add NAME` there makes the key."
    )]
    Worker(worker::WorkerArgs),
    #[cfg(feature = "server")]
    /// Serve the web UI and the play API (HTTP, WebSocket) with games stored in a database.
    #[command(
        after_help = "Examples:\n  tsubame serve\n  tsubame serve --listen 0.0.0.0:8080 --database postgres://tsubame@localhost/tsubame"
    )]
    Serve(tsubame_server::cli::ServeArgs),
    #[cfg(feature = "server")]
    /// Copy the server's SQLite database while it runs, checked before it is named.
    #[command(
        after_help = "Examples:\n  tsubame backup --database sqlite:///var/lib/tsubame/tsubame.db --out /backups/tsubame-$(date +%F).db\n\nPostgreSQL databases are backed up with PostgreSQL's own tools (pg_dump)."
    )]
    Backup(tsubame_server::cli::BackupArgs),
    #[cfg(feature = "server")]
    /// Give or take the administrator role of a site's account.
    #[command(
        after_help = "Examples:\n  tsubame admin grant alice --database sqlite:///var/lib/tsubame/tsubame.db\n  tsubame admin revoke alice --database postgres://tsubame@localhost/tsubame"
    )]
    Admin(tsubame_server::cli::AdminArgs),
}

const PLAY_HELP: &str = "\
Examples:
  tsubame play --variant tori
  tsubame play --variant tori --side gote --level 8 --time 600+30
  tsubame play --variant tori --handicap falcon --two-player
  tsubame play --variant wa --option drops=off
  tsubame play --variant tenjiku --two-player

Type a move in USI (3d3c, S*4d) or Hodges notation (Swx3c, Sw*4d) and press Enter, or move the
cursor with the arrow keys, press Enter on a piece and again on a marked square (Enter on an
empty square, then the piece's letter and Enter, drops from the hand). Tab switches
kanji and Latin letters. Ctrl-U takes back your last move, Ctrl-E asks the engine for a hint,
Ctrl-R resigns, Ctrl-S saves the record, Ctrl-Q leaves. The same as words on the input line:
undo, hint, resign, save [FILE], kanji, latin, flip, quit.

Tori and Wa fit an 80x24 terminal; a game that needs more says so. Tenjiku needs 111x25: its
moves are typed in Tenjiku USI (9l9k, 6f5e6d for a capture on 5e on the way, 6f6f for a pass)
or Tenjiku Hodges (P-9k, Lnx5e-6d); the cursor plays plain moves.";

const ANALYSE_HELP: &str = "\
Examples:
  tsubame analyse --variant tori --sfen '3k3/7/7/7/7/7/3K3 b 2S 1' --depth 6
  tsubame analyse --record game.tsr --ply 20 --movetime 3000
  tsubame analyse --record game.tsr --all --movetime 500
  tsubame analyse --variant tenjiku --sfen '15k/16/16/16/16/16/16/15R/16/16/16/16/16/16/16/K15 b - 1' --depth 3

Prints the position, then `best <move>  score <score>  depth <n>` and `pv <moves>` in Hodges
notation. Scores are for the side to move: +1.00 is a swallow's worth, `mate 3` a forced mate in
three moves. With --all every move of the record gets the score before and after it, and moves
that lose 1.2 or more are marked ?, 3 or more ??. Without --movetime or --depth each position
gets 2 seconds.";

const CONVERT_HELP: &str = "\
Examples:
  tsubame convert game.pgn -o game.tsr
  tsubame convert game.tsr --to kif -o game.kif
  tsubame convert game.kif --to hodges
  tsubame convert moves.txt --from hodges --variant tori --handicap falcon -o game.tsr
  tsubame convert tenjiku.tsr --to hodges -o tenjiku.txt
  tsubame convert tenjiku.txt --variant tenjiku --notation usi

Formats (chosen by extension unless --from/--to say otherwise):
  record  .tsr   the canonical record: [Tag \"value\"] pairs, then numbered USI or Hodges moves
  hodges  .txt   numbered Hodges moves as books print them
  kif     .kif   the Japanese kifu format, Tori shogi only (UTF-8 written; UTF-8 or Shift-JIS read)
  pgn     .pgn   the Tori play site's PGN: its FEN tag and Fairy-Stockfish SAN moves (S@c4)

Every record read is replayed through the rules; an illegal or unreadable move stops the
conversion with the line (and column) where it stands.";

const MATCH_HELP: &str = "\
Examples:
  tsubame match --variant tori --engine1 'target/release/tsubame engine usi' \\
      --engine2 'target/release/tsubame engine uci' --protocol2 uci --games 20 --time 10+1b
  tsubame match --variant wa --option drops=off --engine1 './new engine usi' \\
      --engine2 './old engine usi' --games 400 --time 5+0.05 --concurrency 2 \\
      --sprt 0,10,0.05,0.05 --records games/
  tsubame match --engine1 'tsubame engine usi' --engine2 'fairy-stockfish' --protocol2 uci \\
      --time nodes=5000 --openings openings.sfen
  tsubame match --engine1 'tsubame engine usi' --engine2 'fairy-stockfish' --protocol2 uci \\
      --time 10+0.1 --time2 30+0.3 --games 200

Time controls: 10+1b (10 s main time, then 1 s byo-yomi per move), 10+0.1 (10 s plus 0.1 s per
move), 10 (sudden death), movetime=200 (ms per move), nodes=5000, depth=4. --time1 and --time2
give one engine a control of its own (time odds: each engine is told both clocks and its own
increment or limit; records name sente's and gote's, `10+0.1 / 30+0.3`). The match keeps its
own clocks: an engine whose answer comes later than its main time plus byo-yomi (or its
movetime) plus --time-margin loses on time; one with no answer a second after that is killed,
loses, and is restarted. Without a clock (nodes, depth) an engine gets 120 s per move.

Every move and ending is judged by the rules library; a crash, an illegal or unreadable move, or
`bestmove resign`/`(none)` loses the game. XBoard engines (a Fischer control, movetime= or
depth=) also lose by refusing a legal move or claiming a result the rules do not
give. Games alternate colours and each opening is played
twice with colours swapped; openings come from --openings (one SFEN per line, # comments) or are
the start position plus --random-plies seeded random plies.

The summary gives W-D-L from engine1's side, the score, the Elo difference with its 95% error
margin and, with --sprt elo0,elo1,alpha,beta, the log-likelihood ratio and its verdict; the match
stops once the SPRT accepts a hypothesis.";

/// A later `--games`, `--time` and so on overrides an earlier one, so that a script's
/// defaults can be changed by the arguments passed on to it.
#[derive(Args)]
#[command(args_override_self = true)]
struct MatchArgs {
    /// The game.
    #[arg(long, value_parser = games::variant_parser(), default_value = "tori")]
    variant: Variant,
    /// A rule option as NAME=VALUE (repeatable), sent to both engines and used for adjudication.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// Command line of engine 1 (split on whitespace); results are counted from its side.
    #[arg(long, value_name = "CMD")]
    engine1: String,
    /// Protocol of engine 1.
    #[arg(long, value_parser = games::protocol_parser(), default_value = "usi")]
    protocol1: Protocol,
    /// An option for engine 1 only, NAME=VALUE (repeatable): `setoption` in USI and UCI,
    /// `option NAME=VALUE` in XBoard.
    #[arg(long = "engine1-option", value_name = "NAME=VALUE")]
    engine1_options: Vec<String>,
    /// Command line of engine 2.
    #[arg(long, value_name = "CMD")]
    engine2: String,
    /// Protocol of engine 2.
    #[arg(long, value_parser = games::protocol_parser(), default_value = "usi")]
    protocol2: Protocol,
    /// An option for engine 2 only, NAME=VALUE (repeatable).
    #[arg(long = "engine2-option", value_name = "NAME=VALUE")]
    engine2_options: Vec<String>,
    /// Number of games.
    #[arg(long, default_value_t = 10)]
    games: u32,
    /// Time control: 10+1b, 10+0.1, movetime=200, nodes=5000 or depth=4.
    #[arg(long, value_name = "CONTROL", required_unless_present_all = ["time1", "time2"])]
    time: Option<match_runner::TimeControl>,
    /// Engine 1's own time control in place of --time, for a match at time odds.
    #[arg(long, value_name = "CONTROL")]
    time1: Option<match_runner::TimeControl>,
    /// Engine 2's own time control in place of --time (e.g. three times engine 1's: 30+0.3).
    #[arg(long, value_name = "CONTROL")]
    time2: Option<match_runner::TimeControl>,
    /// Milliseconds an engine may overrun its time without losing (pipe and scheduling delays).
    #[arg(long, value_name = "MS", default_value_t = 100)]
    time_margin: u64,
    /// File of start positions, one SFEN per line; `#` starts a comment.
    #[arg(long, value_name = "FILE")]
    openings: Option<std::path::PathBuf>,
    /// Random plies played from the start position when there is no openings file.
    #[arg(long, value_name = "N", default_value_t = 4)]
    random_plies: u32,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at the same time.
    #[arg(long, value_name = "N", default_value_t = 1)]
    concurrency: usize,
    /// Directory for one record file per game.
    #[arg(long, value_name = "DIR")]
    records: Option<std::path::PathBuf>,
    /// Count the games already recorded in --records and play only the rest: a stopped match
    /// goes on where it was (same engines, rules, control and openings, or it is refused).
    #[arg(long)]
    resume: bool,
    /// Plies after which a game is drawn (0: no limit beyond the rules').
    #[arg(long, value_name = "N", default_value_t = 600)]
    max_plies: u32,
    /// Sequential probability ratio test: elo0,elo1,alpha,beta (e.g. 0,10,0.05,0.05).
    #[arg(long, value_name = "ELO0,ELO1,ALPHA,BETA")]
    sprt: Option<match_runner::Sprt>,
}

fn match_engine(
    command: &str,
    protocol: Protocol,
    options: &[String],
) -> Result<match_runner::EngineSpec> {
    let command: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    if command.is_empty() {
        bail!("an engine command is empty");
    }
    let options = options
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                Ok((name.trim().to_string(), value.trim().to_string()))
            }
            _ => bail!("engine option {pair:?} is not NAME=VALUE"),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(match_runner::EngineSpec {
        command,
        protocol,
        options,
    })
}

fn run_match(args: &MatchArgs) -> Result<()> {
    let spec = args.variant.spec();
    let mut options = Options::defaults(spec);
    let mut option_pairs = Vec::new();
    for pair in &args.options {
        options.set_pair(pair)?;
        if let Some((name, value)) = pair.split_once('=') {
            option_pairs.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    let openings = match &args.openings {
        Some(path) => {
            let openings = match_runner::read_openings(path)?;
            if openings.is_empty() {
                bail!("{} has no openings", path.display());
            }
            openings
        }
        None => Vec::new(),
    };
    let control = |own: Option<match_runner::TimeControl>| {
        own.or(args.time)
            .context("a time control: --time, or both --time1 and --time2")
    };
    let config = match_runner::MatchConfig {
        options,
        option_pairs,
        engines: [
            match_engine(&args.engine1, args.protocol1, &args.engine1_options)?,
            match_engine(&args.engine2, args.protocol2, &args.engine2_options)?,
        ],
        games: args.games,
        times: [control(args.time1)?, control(args.time2)?],
        margin: std::time::Duration::from_millis(args.time_margin),
        openings,
        seed: args.seed,
        random_plies: args.random_plies,
        concurrency: args.concurrency,
        records: args.records.clone(),
        resume: args.resume,
        max_plies: args.max_plies,
        sprt: args.sprt,
    };
    match_runner::run(&config)?;
    Ok(())
}

#[derive(Args)]
struct EngineArgs {
    /// The protocol: usi (USI_Variant names the game), uci (UCI_Variant, in Fairy-Stockfish's
    /// conventions: its FEN, a1 squares, S@c3 drops) or xboard (CECP v2, as HaChu speaks it).
    #[arg(value_parser = games::protocol_parser())]
    protocol: Protocol,
    /// The evaluation: `classical` (material, placement, mobility, royal safety; `full` is
    /// its earlier name), `nnue` (the network, where the game has one) or `material` (piece
    /// values only, the baseline that strength is measured against); the same as the
    /// `Evaluation` engine option. Default: the engine option's default.
    #[arg(long)]
    eval: Option<tsubame_engine::eval::Evaluation>,
}

fn engine(args: &EngineArgs) -> Result<()> {
    let output: tsubame_protocol::session::Output =
        std::sync::Arc::new(std::sync::Mutex::new(Box::new(std::io::stdout())));
    let evaluation = args.eval.map(|e| e.name());
    match args.protocol.dialect() {
        Some(dialect) => {
            let mut front = tsubame_protocol::usi::UsiFront::new(dialect, output);
            if let Some(name) = evaluation {
                front.command(&format!("setoption name Evaluation value {name}"));
            }
            front.run(std::io::stdin().lock());
        }
        None => {
            let mut xboard = tsubame_protocol::xboard::Xboard::new(output);
            if let Some(name) = evaluation {
                xboard.command(&format!("option Evaluation={name}"));
            }
            xboard.run(std::io::BufReader::new(std::io::stdin()));
        }
    }
    Ok(())
}

#[derive(Args)]
struct BenchArgs {
    /// Depth for Tori (Wa is searched two plies shallower).
    #[arg(long, default_value_t = tsubame_engine::bench::DEPTH)]
    depth: u32,
    /// Bench the mate solver instead: one mate of each length in every game.
    #[arg(long, conflicts_with = "depth")]
    mates: bool,
}

/// Nodes a second, 0 for no measurable time.
fn per_second(nodes: u64, seconds: f64) -> u64 {
    if seconds > 0.0 {
        (nodes as f64 / seconds) as u64
    } else {
        0
    }
}

fn bench_mates() -> Result<()> {
    let rows = tsubame_engine::bench::run_mates().map_err(anyhow::Error::msg)?;
    let mut out = std::io::stdout().lock();
    let mut nodes = 0u64;
    let mut time = 0f64;
    for (i, row) in rows.iter().enumerate() {
        let problem = row.problem;
        let found = row
            .found
            .map_or_else(|| "none".to_string(), |moves| format!("mate {moves}"));
        writeln!(
            out,
            "{:>2} {:<7} {:>2} moves {:>10} nodes {:>8.3} s  {:<8} {}",
            i + 1,
            problem.variant.name(),
            problem.moves,
            row.nodes,
            row.time.as_secs_f64(),
            found,
            problem.sfen
        )?;
        if row.found != Some(problem.moves) {
            bail!(
                "{}: the solver found {found}, the suite says mate {}",
                problem.sfen,
                problem.moves
            );
        }
        nodes += row.nodes;
        time += row.time.as_secs_f64();
    }
    let nps = per_second(nodes, time);
    writeln!(out, "{nodes} nodes {nps} nps {time:.3} s")?;
    Ok(())
}

fn bench(args: &BenchArgs) -> Result<()> {
    if args.mates {
        return bench_mates();
    }
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
            "{:>2} {:<5} {:>10} nodes {:>8.3} s  best {:<8} {}{}",
            i + 1,
            row.variant,
            row.nodes,
            row.time.as_secs_f64(),
            row.best,
            row.sfen,
            row.options
                .iter()
                .map(|pair| format!("  {pair}"))
                .collect::<String>()
        )?;
        nodes += row.nodes;
        time += row.time.as_secs_f64();
    }
    let nps = per_second(nodes, time);
    writeln!(out, "{nodes} nodes {nps} nps")?;
    Ok(())
}

#[derive(Args)]
struct PositionArgs {
    /// The game.
    #[arg(long, value_parser = games::variant_parser(), default_value = "tori")]
    variant: Variant,
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

    fn position(&self) -> Result<AnyPosition> {
        let options = self.options()?;
        Ok(match (&self.sfen, &self.fen) {
            (Some(sfen), _) => AnyPosition::from_sfen(&options, sfen).context("bad --sfen")?,
            (None, Some(fen)) => AnyPosition::from_fen(&options, fen).context("bad --fen")?,
            (None, None) => AnyPosition::start(&options)?,
        })
    }
}

fn perft(args: &PerftArgs) -> Result<()> {
    if args.depth > 64 {
        bail!("depth {} is too deep (at most 64)", args.depth);
    }
    let mut position = args.position.position()?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let start = Instant::now();
    let nodes = if args.divide {
        let mut rows = position.divide(args.depth);
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
    let nps = per_second(nodes, seconds);
    writeln!(out, "nodes {nodes} time {seconds:.3} nps {nps}")?;
    Ok(())
}

fn moves(args: &MovesArgs) -> Result<()> {
    let position = args.position.position()?;
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
        Command::Perft(args) => perft(args),
        Command::Bench(args) => bench(args),
        Command::Play(args) => play::run(args),
        Command::Analyse(args) => analyse::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Engine(args) => engine(args),
        Command::Match(args) => run_match(args),
        #[cfg(feature = "server")]
        Command::Serve(args) => tsubame_server::cli::run(args),
        #[cfg(feature = "server")]
        Command::Backup(args) => tsubame_server::cli::run_backup(args),
        #[cfg(feature = "server")]
        Command::Admin(args) => tsubame_server::cli::run_admin(args),
        Command::Worker(args) => worker::run(args),
        Command::Tune(args) => tune::run(args),
        Command::Nnue(args) => nnue::run(args),
        Command::Moves(args) => moves(args),
        Command::Puzzles(args) => puzzles::run(args),
        Command::Tsume(args) => match tsume::run(args) {
            Ok(()) => Ok(()),
            Err(tsume::BadInput(error)) => {
                eprintln!("tsubame: {error:#}");
                return ExitCode::from(2);
            }
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
