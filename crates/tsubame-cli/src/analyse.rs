//! `tsubame analyse`: the engine's evaluation and principal variation of a position or of
//! every move of a record.

use crate::games::{options_for, session_for, variant_parser};
use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;
use tsubame_engine::limits::Limits;
use tsubame_engine::search::Score;
use tsubame_notation::record::{Record, hodges_line};
use tsubame_protocol::session::{InfoText, Session, Start};
use tsubame_rules::Options;
use tsubame_rules::Variant;

#[derive(Args)]
pub struct AnalyseArgs {
    /// The game (taken from the record when --record is given).
    #[arg(long, value_parser = variant_parser())]
    variant: Option<Variant>,
    /// A rule option as NAME=VALUE (repeatable), for --sfen.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// The position to analyse.
    #[arg(long, conflicts_with = "record")]
    sfen: Option<String>,
    /// A game record in the canonical format.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// With --record: analyse the position after this many plies (default: the last).
    #[arg(long, value_name = "N", requires = "record")]
    ply: Option<usize>,
    /// With --record: analyse every move and mark mistakes (?) and blunders (??).
    #[arg(long, requires = "record", conflicts_with = "ply")]
    all: bool,
    /// Milliseconds of thought per position.
    #[arg(long, value_name = "MS", conflicts_with = "depth")]
    movetime: Option<u64>,
    /// Search depth in plies.
    #[arg(long, value_name = "PLIES")]
    depth: Option<u32>,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Answers one question as the web's engine does, JSON in and out: the body of the play
    /// server's `POST /api/analyse` or `POST /api/mate` with `"type": "analyse"` or `"mate"`
    /// (`-` reads it from standard input). Each iteration of an analysis is printed as a line,
    /// the answer last.
    #[arg(long, value_name = "QUESTION", conflicts_with_all = ["variant", "sfen", "record", "movetime", "depth"])]
    json: Option<String>,
}

/// `--json`: the question answered by the code the browser's engine runs; a refusal is printed
/// as its JSON and the exit status is 1.
fn answer_json(question: &str) -> Result<()> {
    let question = if question == "-" {
        std::io::read_to_string(std::io::stdin()).context("cannot read the question")?
    } else {
        question.to_string()
    };
    let mut out = std::io::stdout().lock();
    let answered = tsubame_analysis::request::answer(&question, &mut |so_far| {
        // A closed pipe ends the printing, not the search.
        let _ = writeln!(out, "{so_far}");
    });
    match answered {
        Ok(text) => {
            writeln!(out, "{text}")?;
            Ok(())
        }
        Err(refusal) => {
            writeln!(out, "{}", refusal.to_json())?;
            bail!("{refusal}")
        }
    }
}

/// What one analysed position gave.
struct Verdict {
    score: Option<Score>,
    depth: u32,
    pv: Vec<String>,
}

fn score_text(score: Option<Score>) -> String {
    match score {
        Some(Score::Centipawns(cp)) => format!("{:+.2}", f64::from(cp) / 100.0),
        Some(Score::Mate(plies)) if plies > 0 => format!("mate {}", (plies + 1) / 2),
        Some(Score::Mate(plies)) => format!("mated {}", (-plies + 1) / 2),
        None => "none".to_string(),
    }
}

/// A score as centipawns for comparison, mates far beyond any material.
fn centipawns(score: Option<Score>) -> i32 {
    match score {
        Some(Score::Centipawns(cp)) => cp,
        Some(Score::Mate(plies)) if plies > 0 => 100_000 - plies,
        Some(Score::Mate(plies)) => -100_000 - plies,
        None => 0,
    }
}

fn think(session: &mut Session, limits: Limits, progress: &ProgressBar) -> Result<Verdict> {
    let (info_tx, info_rx) = mpsc::channel::<InfoText>();
    let (done_tx, done_rx) = mpsc::channel();
    session.go(
        limits,
        move |info| {
            let _ = info_tx.send(info);
        },
        move |best| {
            let _ = done_tx.send(best);
        },
    );
    let mut last: Option<InfoText> = None;
    loop {
        while let Ok(info) = info_rx.try_recv() {
            progress.set_message(format!(
                "depth {} score {} nodes {}",
                info.info.depth,
                score_text(Some(info.info.score)),
                info.info.nodes
            ));
            last = Some(info);
        }
        match done_rx.recv_timeout(Duration::from_millis(50)) {
            Ok(best) => {
                while let Ok(info) = info_rx.try_recv() {
                    last = Some(info);
                }
                let mut pv = last.as_ref().map(|i| i.pv.clone()).unwrap_or_default();
                if pv.is_empty()
                    && let Some(best) = best.best
                {
                    pv.push(best);
                }
                return Ok(Verdict {
                    score: last.as_ref().map(|i| i.info.score),
                    depth: last.as_ref().map_or(0, |i| i.info.depth),
                    pv,
                });
            }
            Err(mpsc::RecvTimeoutError::Timeout) => progress.tick(),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                bail!("the search stopped without a result")
            }
        }
    }
}

pub fn run(args: &AnalyseArgs) -> Result<()> {
    if let Some(question) = &args.json {
        return answer_json(question);
    }
    let limits = Limits {
        depth: args.depth,
        move_time: match (args.movetime, args.depth) {
            (Some(ms), _) => Some(Duration::from_millis(ms)),
            (None, Some(_)) => None,
            (None, None) => Some(Duration::from_millis(2000)),
        },
        ..Limits::default()
    };
    if args.depth.is_some_and(|d| d == 0 || d > 64) {
        bail!("--depth must be between 1 and 64");
    }
    let (options, start_sfen, moves): (Options, String, Vec<String>) =
        match (&args.sfen, &args.record) {
            (_, Some(path)) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                let record = Record::parse(&text).with_context(|| format!("{}", path.display()))?;
                if let Some(game) = args.variant
                    && Some(game) != Variant::from_spec(record.variant())
                {
                    bail!(
                        "--variant {} does not match the record's game {}",
                        game.name(),
                        record.variant().name
                    );
                }
                let replay = record.replay()?;
                let moves: Vec<String> = record.moves.iter().map(|m| m.usi.clone()).collect();
                (record.options.clone(), replay.start_sfen, moves)
            }
            (Some(sfen), None) => {
                let Some(game) = args.variant else {
                    bail!("--sfen needs --variant");
                };
                let options = options_for(game, &args.options, None)?;
                (options, sfen.clone(), Vec::new())
            }
            (None, None) => bail!("give a position with --sfen or a game with --record"),
        };
    let mut session = session_for(&options)?;
    session
        .set_threads(args.threads)
        .map_err(anyhow::Error::msg)?;
    let progress = ProgressBar::new_spinner();
    progress.set_style(
        ProgressStyle::with_template("{spinner} {prefix} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let stdout = std::io::stdout();
    let mut out = stdout.lock();

    if args.all {
        let mut verdicts = Vec::with_capacity(moves.len() + 1);
        let mut sfens = Vec::with_capacity(moves.len() + 1);
        for ply in 0..=moves.len() {
            progress.set_prefix(format!("position {}/{}", ply, moves.len()));
            let prefix = moves.get(..ply).unwrap_or(&moves);
            session
                .set_position(Start::Sfen(&start_sfen), prefix)
                .map_err(anyhow::Error::msg)?;
            sfens.push(session.sfen());
            let verdict = if session.outcome().is_some() {
                Verdict {
                    score: None,
                    depth: 0,
                    pv: Vec::new(),
                }
            } else {
                think(&mut session, limits, &progress)?
            };
            verdicts.push(verdict);
        }
        progress.finish_and_clear();
        let played = hodges_line(&options, &start_sfen, &moves);
        let sente_first = start_sfen.split(' ').nth(1) == Some("b");
        let mut blunders = 0;
        for (index, text) in played.iter().enumerate() {
            let (Some(before), Some(after)) = (verdicts.get(index), verdicts.get(index + 1)) else {
                continue;
            };
            let best_value = centipawns(before.score);
            // After the move the score is the opponent's; a finished game scores as a mate.
            let after_value = if after.score.is_none() && after.pv.is_empty() {
                100_000
            } else {
                -centipawns(after.score)
            };
            let loss = best_value.saturating_sub(after_value);
            let mark = if loss >= 300 {
                blunders += 1;
                "??"
            } else if loss >= 120 {
                "?"
            } else {
                ""
            };
            let offset = usize::from(!sente_first);
            let number = (index + offset) / 2 + 1;
            let dots = if (index + offset) % 2 == 0 {
                "."
            } else {
                "..."
            };
            let sfen = sfens.get(index).map_or(start_sfen.as_str(), String::as_str);
            let best_line = hodges_line(&options, sfen, &before.pv);
            let best = best_line.first().cloned().unwrap_or_default();
            let mover_view_after = if after.score.is_none() && after.pv.is_empty() {
                "end".to_string()
            } else {
                score_text(after.score.map(|s| match s {
                    Score::Centipawns(cp) => Score::Centipawns(-cp),
                    Score::Mate(p) => Score::Mate(-p),
                }))
            };
            writeln!(
                out,
                "{number}{dots} {text}{mark:<2}  {} -> {}  best {best}",
                score_text(before.score),
                mover_view_after,
            )?;
        }
        writeln!(out, "{blunders} blunder(s) in {} moves", played.len())?;
        return Ok(());
    }

    let ply = args.ply.unwrap_or(moves.len());
    if ply > moves.len() {
        bail!("--ply {ply} is beyond the record's {} plies", moves.len());
    }
    session
        .set_position(Start::Sfen(&start_sfen), moves.get(..ply).unwrap_or(&[]))
        .map_err(anyhow::Error::msg)?;
    let sfen = session.sfen();
    if let Some(outcome) = session.outcome() {
        progress.finish_and_clear();
        writeln!(out, "position {sfen}")?;
        writeln!(out, "the game is over: {outcome}")?;
        return Ok(());
    }
    progress.set_prefix("thinking");
    let verdict = think(&mut session, limits, &progress)?;
    progress.finish_and_clear();
    let line = hodges_line(&options, &sfen, &verdict.pv);
    writeln!(out, "position {sfen}")?;
    writeln!(
        out,
        "best {}  score {}  depth {}",
        line.first().map_or("none", String::as_str),
        score_text(verdict.score),
        verdict.depth
    )?;
    writeln!(out, "pv {}", line.join(" "))?;
    Ok(())
}
