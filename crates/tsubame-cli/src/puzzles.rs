//! `tsubame puzzles`: puzzles mined from games files (`generate`) and puzzle files checked
//! (`check`).

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::PathBuf;
use tsubame_puzzles::generate::{Settings, Source, SourceGame, hunt_tsume, mine, rate_tactic};
use tsubame_puzzles::{Puzzle, PuzzleError, check, engine_confirms, read_puzzles, write_puzzles};
use tsubame_rules::{AnyPosition, Options, Variant};
use tsubame_train::games::read_games;

pub const HELP: &str = "\
Examples:
  xz -dk data/nnue/tori-seed6.games.xz
  tsubame puzzles generate --variant tori --games tori-seed6.games --every 4 --out tori.puzzles
  tsubame puzzles generate --variant wa --option drops=off --games wa.games --out wa.puzzles --resume
  tsubame puzzles check --file data/puzzles/tori.jsonl

`generate` replays each game of the games files (`tsubame nnue generate`'s, uncompressed) and
looks at the positions where the games' own scores swing or announce a mate: the mate solver's
tsume with one answer at each step, or else one clearly winning move by the engine (two searches
of the two best moves), followed with the opponent's best replies while the player's move stays
the only good one. Each puzzle is a JSON line ({id, variant, options, sfen, moves, themes,
rating, source}), a position met again written once; after each game a `# games FILE NEXT`
line records the progress, which --resume reads. The same games give the same puzzles.
--tsume-hunt also looks at each game that ends in mate: the mate solver tries the positions
before the mating move, a move further back each time, and the longest tsume is kept (long
tsume are found there); --hunt-only does only that.

`check` replays every puzzle of a file through the rules (and the mate solver for tsume).

`rate` brings a puzzle file up to a changed search: every tactic is rated again by this engine
(the same measure as mining's), and with --drop-unconfirmed a tactic the engine no longer
confirms (its answer neither the best of a 20,000-node look nor of a 200,000-node one, nor
second within 60 centipawns) is left out and named. Tsume keep their ratings: those are the
mate solver's. The file is rewritten in place, its other lines (a mining run's progress) kept.
  tsubame puzzles rate --file data/puzzles/tori.jsonl --drop-unconfirmed --threads 2";

/// What to do.
#[derive(Args)]
pub struct PuzzlesArgs {
    #[command(subcommand)]
    step: PuzzlesStep,
}

#[derive(Subcommand)]
enum PuzzlesStep {
    /// Mine puzzles from games files.
    Generate(GenerateArgs),
    /// Check every puzzle of a puzzle file.
    Check(CheckArgs),
    /// Rate every tactic of a puzzle file again with this engine (after a change to the
    /// search), and optionally leave out those it no longer confirms.
    Rate(RateArgs),
}

#[derive(Args)]
struct GenerateArgs {
    /// The game.
    #[arg(long, value_parser = crate::games::variant_parser(), default_value = "tori")]
    variant: Variant,
    /// A rule option as NAME=VALUE (repeatable); the games files must have been played so.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// A games file (repeatable), mined in order.
    #[arg(long = "games", value_name = "FILE", required = true)]
    games: Vec<PathBuf>,
    /// Mine every Nth game only.
    #[arg(long, value_name = "N", default_value_t = 1)]
    every: usize,
    /// With --every N, mine the games whose number in the file leaves this remainder.
    #[arg(long, value_name = "K", default_value_t = 0)]
    offset: usize,
    /// Stop after this many games (counted over all files, mined or skipped by --every).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// The puzzle file, appended to.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Go on after the last `# games` line of --out.
    #[arg(long)]
    resume: bool,
    /// Nodes of the first look at a candidate.
    #[arg(long, value_name = "N", default_value_t = Settings::default().screen_nodes)]
    screen_nodes: u64,
    /// Nodes of the confirming look and of the replies.
    #[arg(long, value_name = "N", default_value_t = Settings::default().confirm_nodes)]
    confirm_nodes: u64,
    /// The deepest search asked whether it finds a tactic's answer, for its rating (Tenjiku's
    /// deep searches take minutes: 4 is enough there).
    #[arg(long, value_name = "N", default_value_t = Settings::default().find_depth)]
    find_depth: u32,
    /// Nodes the mate solver may spend on a candidate (a Tenjiku node costs many of Tori's).
    #[arg(long, value_name = "N", default_value_t = Settings::default().tsume_nodes)]
    tsume_nodes: u64,
    /// Also look for the longest tsume at the end of each game that ends in checkmate: the mate
    /// solver tries the positions before the mating move, a move further back each time.
    #[arg(long)]
    tsume_hunt: bool,
    /// Only hunt tsume at the games' ends (--tsume-hunt without the rest of the mining).
    #[arg(long)]
    hunt_only: bool,
}

#[derive(Args)]
struct CheckArgs {
    /// The puzzle file.
    #[arg(long, value_name = "FILE")]
    file: PathBuf,
    /// Also search every tactic again far deeper than it was mined, two best moves at each of
    /// the player's positions: kept when its first move is the best, clearly better than the
    /// second and clearly winning (unless about defence), and every later answer the best or
    /// as good as it (a second move as good is listed, to be taken as right). Verdicts go to
    /// --out, one JSON line a puzzle.
    #[arg(long, requires = "out")]
    deep: bool,
    /// Nodes of each deep search.
    #[arg(long, default_value_t = tsubame_puzzles::deep::DEEP_NODES)]
    nodes: u64,
    /// Where the deep verdicts go: appended to, and puzzles it already judges are skipped, so
    /// an interrupted run goes on where it stopped.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Args)]
struct RateArgs {
    /// The puzzle file, rewritten in place.
    #[arg(long, value_name = "FILE")]
    file: PathBuf,
    /// The deepest search asked whether it finds a tactic's answer (as mining's --find-depth:
    /// 4 for Tenjiku's files).
    #[arg(long, value_name = "N", default_value_t = Settings::default().find_depth,
          value_parser = clap::value_parser!(u32).range(1..=30))]
    find_depth: u32,
    /// Leave out the tactics the engine no longer confirms.
    #[arg(long)]
    drop_unconfirmed: bool,
    /// Puzzles measured at once.
    #[arg(long, value_name = "N", default_value_t = 1)]
    threads: usize,
}

pub fn run(args: &PuzzlesArgs) -> Result<()> {
    match &args.step {
        PuzzlesStep::Generate(a) => generate(a),
        PuzzlesStep::Check(a) => check_file(a),
        PuzzlesStep::Rate(a) => rate_file(a),
    }
}

/// The `# games FILE NEXT` lines of a puzzle file: where each games file was left.
fn progress(text: &str) -> Vec<(String, usize)> {
    text.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("# games ")?;
            let (file, next) = rest.rsplit_once(' ')?;
            Some((file.to_string(), next.parse().ok()?))
        })
        .collect()
}

fn generate(args: &GenerateArgs) -> Result<()> {
    if args.every == 0 {
        bail!("--every must be at least 1");
    }
    if args.offset >= args.every {
        bail!("--offset must be below --every");
    }
    let mut options = Options::defaults(args.variant.spec());
    for pair in &args.options {
        options.set_pair(pair)?;
    }
    let source = Source {
        variant: args.variant,
        options: options.clone(),
        options_text: args.options.join(","),
    };
    let settings = Settings {
        screen_nodes: args.screen_nodes,
        confirm_nodes: args.confirm_nodes,
        tsume_nodes: args.tsume_nodes,
        find_depth: args.find_depth.clamp(1, 30),
        ..Settings::default()
    };
    let existing = if args.out.exists() {
        std::fs::read_to_string(&args.out).context("reading --out")?
    } else {
        String::new()
    };
    let done = if args.resume {
        progress(&existing)
    } else {
        Vec::new()
    };
    // A position met again (a game that repeats another's, a mate in one that is also the end
    // of a tsume) is written once: the first time.
    let mut written: std::collections::HashSet<String> = read_puzzles(&existing)
        .map_err(anyhow::Error::msg)
        .context("reading --out")?
        .into_iter()
        .map(|p| p.id)
        .collect();
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.out)
        .with_context(|| format!("opening {}", args.out.display()))?;
    let mut counted = 0usize;
    let mut found = 0usize;
    for path in &args.games {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let file = read_games(&bytes, &path.display().to_string(), args.variant)?;
        if file.options != options {
            bail!(
                "{} was played with other rule options than --option gives",
                path.display()
            );
        }
        let first = done
            .iter()
            .rev()
            .find(|(file, _)| *file == name)
            .map_or(0, |(_, next)| *next);
        let bar = ProgressBar::new(file.games.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{prefix} {bar:30} {pos}/{len} games {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(name.clone());
        bar.set_position(first as u64);
        for (index, record) in file.games.iter().enumerate().skip(first) {
            if args.limit.is_some_and(|limit| counted >= limit) {
                break;
            }
            counted += 1;
            if index % args.every == args.offset {
                let start = match &record.start {
                    Some(sfen) => AnyPosition::from_sfen(&options, sfen),
                    None => AnyPosition::start(&options),
                }
                .with_context(|| format!("{name} game {}: its start", record.game))?;
                let game = SourceGame {
                    name: format!("{name} game {}", record.game),
                    start,
                    moves: record.plies.iter().map(|ply| ply.mv).collect(),
                    scores: record
                        .plies
                        .iter()
                        .map(|ply| ply.score.map(i32::from))
                        .collect(),
                };
                let hunted = (args.tsume_hunt || args.hunt_only)
                    .then(|| hunt_tsume(&game, &source, &settings))
                    .flatten();
                let mined = if args.hunt_only {
                    Vec::new()
                } else {
                    mine(&game, &source, &settings)
                };
                for puzzle in mined.into_iter().chain(hunted) {
                    if written.insert(puzzle.id.clone()) {
                        writeln!(out, "{}", serde_json::to_string(&puzzle)?)?;
                        found += 1;
                    }
                }
            }
            writeln!(out, "# games {name} {}", index + 1)?;
            out.flush()?;
            bar.set_position(index as u64 + 1);
            bar.set_message(format!("{found} puzzles"));
        }
        bar.finish();
    }
    eprintln!("{found} puzzles written to {}", args.out.display());
    Ok(())
}

fn check_file(args: &CheckArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("reading {}", args.file.display()))?;
    let puzzles = read_puzzles(&text).map_err(anyhow::Error::msg)?;
    let mut failed = 0;
    for puzzle in &puzzles {
        if let Err(error) = check(puzzle) {
            eprintln!("{error}");
            failed += 1;
        }
    }
    println!("{} puzzles, {failed} refused", puzzles.len());
    if failed > 0 {
        bail!("{failed} puzzles refused");
    }
    if let (true, Some(out)) = (args.deep, &args.out) {
        deep_check(&puzzles, args.nodes, out)?;
    }
    Ok(())
}

/// The deep check of every puzzle not yet judged in `out`, appended to it; then the counts of
/// the whole file.
fn deep_check(puzzles: &[Puzzle], nodes: u64, out: &std::path::Path) -> Result<()> {
    use tsubame_puzzles::deep::{DeepVerdict, deep_verdict};
    let read = |text: &str| -> Vec<DeepVerdict> {
        text.lines()
            .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    };
    let before = std::fs::read_to_string(out).unwrap_or_default();
    let judged: std::collections::HashSet<String> =
        read(&before).into_iter().map(|v| v.id).collect();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .with_context(|| format!("opening {}", out.display()))?;
    if before.is_empty() {
        writeln!(
            file,
            "# tsubame puzzles check --deep --nodes {nodes}: one verdict a puzzle"
        )?;
    }
    let left: Vec<&Puzzle> = puzzles.iter().filter(|p| !judged.contains(&p.id)).collect();
    let bar = ProgressBar::new(left.len() as u64);
    for puzzle in left {
        let verdict = deep_verdict(puzzle, nodes)?;
        writeln!(file, "{}", serde_json::to_string(&verdict)?)?;
        file.flush()?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    let verdicts = read(&std::fs::read_to_string(out)?);
    let ids: std::collections::HashSet<&str> = puzzles.iter().map(|p| p.id.as_str()).collect();
    let of_file: Vec<&DeepVerdict> = verdicts
        .iter()
        .filter(|v| ids.contains(v.id.as_str()))
        .collect();
    let tactics = puzzles.iter().filter(|p| !p.has_theme("mate")).count();
    let dropped = of_file.iter().filter(|v| !v.keep).count();
    let also = of_file
        .iter()
        .filter(|v| v.keep && !v.also.is_empty())
        .count();
    println!(
        "deep check ({nodes} nodes): {} puzzles judged of {}, {tactics} tactics searched: {} \
         kept, {dropped} left out, {also} kept with a second answer as good",
        of_file.len(),
        puzzles.len(),
        tactics.saturating_sub(dropped),
    );
    Ok(())
}

/// What `rate` makes of one puzzle: kept with its rating (new or unchanged), or left out.
enum Rated {
    Kept(Puzzle),
    Dropped(String),
}

fn rate_one(puzzle: &Puzzle, args: &RateArgs) -> Result<Rated> {
    if args.drop_unconfirmed && !puzzle.has_theme("tsume") {
        match engine_confirms(puzzle) {
            Ok(()) => {}
            // Only the engine's disagreement leaves a puzzle out; a puzzle that cannot be set
            // up or replayed is an error of the file, and stops the run.
            Err(refusal @ PuzzleError::Claim { .. }) => {
                return Ok(Rated::Dropped(refusal.to_string()));
            }
            Err(error) => return Err(error.into()),
        }
    }
    let mut rated = puzzle.clone();
    if let Some(rating) = rate_tactic(puzzle, args.find_depth)? {
        rated.rating = rating;
    }
    Ok(Rated::Kept(rated))
}

fn rate_file(args: &RateArgs) -> Result<()> {
    if args.threads == 0 {
        bail!("--threads must be at least 1");
    }
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("reading {}", args.file.display()))?;
    let puzzles = read_puzzles(&text).map_err(anyhow::Error::msg)?;
    let bar = ProgressBar::new(puzzles.len() as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} puzzles, {eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // Each worker takes every Nth puzzle; the results go back in the file's order.
    let results: Vec<Vec<(usize, Result<Rated>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..args.threads)
            .map(|worker| {
                let (puzzles, bar) = (&puzzles, &bar);
                scope.spawn(move || {
                    let mut done = Vec::new();
                    for index in (worker..puzzles.len()).step_by(args.threads) {
                        done.push((index, rate_one(&puzzles[index], args)));
                        bar.inc(1);
                    }
                    done
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|_| vec![(0, Err(anyhow::anyhow!("a worker panicked")))])
            })
            .collect()
    });
    bar.finish_and_clear();
    let mut ordered: Vec<(usize, Result<Rated>)> = results.into_iter().flatten().collect();
    ordered.sort_by_key(|(index, _)| *index);
    // Each puzzle in the file's order: its rated form, or `None` where it is left out.
    let (mut kept_lines, mut kept, mut changed, mut dropped) = (Vec::new(), 0, 0, 0);
    for (index, result) in ordered {
        match result? {
            Rated::Kept(puzzle) => {
                changed += usize::from(puzzle.rating != puzzles[index].rating);
                kept += 1;
                kept_lines.push(Some(puzzle));
            }
            Rated::Dropped(reason) => {
                eprintln!("left out: {reason}");
                dropped += 1;
                kept_lines.push(None);
            }
        }
    }
    // The file's other lines (comments, a mining run's `# games` progress) stay where they
    // are; each puzzle's line becomes its rated line, or goes.
    let mut rated_lines = kept_lines.into_iter();
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            out.push_str(line);
            out.push('\n');
        } else if let Some(Some(puzzle)) = rated_lines.next() {
            out.push_str(&write_puzzles(std::slice::from_ref(&puzzle)));
        }
    }
    let mut name = args.file.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".rate-{}", std::process::id()));
    let temporary = args.file.with_file_name(name);
    let written = std::fs::write(&temporary, &out)
        .with_context(|| format!("writing {}", temporary.display()))
        .and_then(|()| {
            std::fs::rename(&temporary, &args.file)
                .with_context(|| format!("replacing {}", args.file.display()))
        });
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written?;
    println!(
        "{} puzzles: {changed} rated again differently, {dropped} left out, {kept} kept",
        puzzles.len()
    );
    Ok(())
}
