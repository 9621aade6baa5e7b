//! `tsubame match`: two engines play a series of games. The rules library adjudicates every
//! move and every ending, the match keeps its own clocks, and an engine that crashes, hangs or
//! plays an illegal move loses that game and is restarted for the next one.

mod stats;

pub use stats::{Sprt, Tally, Verdict, elo_estimate};
pub use tsubame_protocol::client::{EngineSpec, Protocol, TimeControl};

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};
use tsubame_notation::record::{
    GameResult, MoveNotation, Record, RecordError, RecordMove, end_reason_from_name,
};
use tsubame_protocol::client::{Clock, Engine, Failure, Reply, Turn};
use tsubame_rules::{AnyGame, Color, EndReason, Options, Status, Variant};

/// How long past its allowed time the match waits for a `bestmove` before it gives up on the
/// engine as hung, kills it and restarts it.
const GRACE: Duration = Duration::from_secs(1);

/// How long an engine may think on a move without a clock (`nodes=`, `depth=`).
const UNTIMED_LIMIT: Duration = Duration::from_secs(120);

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The variant and its rule options.
    pub options: Options,
    /// The rule options given on the command line, sent to both engines.
    pub option_pairs: Vec<(String, String)>,
    /// Engine 1 and engine 2; results are counted from engine 1's side.
    pub engines: [EngineSpec; 2],
    /// Games to play (fewer when the SPRT decides early).
    pub games: u32,
    /// Engine 1's and engine 2's time controls (the same but in a match at time odds).
    pub times: [TimeControl; 2],
    /// How far past its time an engine may answer without losing.
    pub margin: Duration,
    /// Start positions as SFEN; empty for random openings.
    pub openings: Vec<String>,
    /// Seed of the random openings.
    pub seed: u64,
    /// Random plies from the start position in random openings.
    pub random_plies: u32,
    /// Games played at the same time.
    pub concurrency: usize,
    /// Where to write one record per game.
    pub records: Option<PathBuf>,
    /// Count the games already recorded in `records` instead of playing them again, so that a
    /// stopped match goes on where it was.
    pub resume: bool,
    /// Plies after which a game is a draw; 0 for no limit.
    pub max_plies: u32,
    /// The sequential test that may stop the match early.
    pub sprt: Option<Sprt>,
}

/// How one game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// The winner, `None` for a draw or void game.
    pub winner: Option<Color>,
    /// A short word for records and summaries (`checkmate`, `time`, `illegal-move`, ...).
    pub reason: String,
    /// What exactly happened, for engine failures.
    pub detail: String,
}

impl GameEnd {
    fn loss(loser: Color, reason: &str, detail: String) -> GameEnd {
        GameEnd {
            winner: Some(!loser),
            reason: reason.to_string(),
            detail,
        }
    }
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameReport {
    /// Game number from 0.
    pub index: u32,
    /// Whether engine 1 played sente.
    pub engine1_sente: bool,
    /// Start position.
    pub start_sfen: String,
    /// Moves played, USI text, the opening's random plies first.
    pub moves: Vec<String>,
    /// How many of `moves` are the opening's random plies.
    pub opening_plies: usize,
    /// How long each engine answer took, milliseconds, in order (the answers after the
    /// opening's random plies, a last one that lost on time included).
    pub think_ms: Vec<u64>,
    /// The ending.
    pub end: GameEnd,
}

impl GameReport {
    /// Engine 1's result: 1, 1/2 or 0 as +1, 0, -1.
    pub fn engine1_result(&self) -> i8 {
        match self.end.winner {
            None => 0,
            Some(color) if (color == Color::Sente) == self.engine1_sente => 1,
            Some(_) => -1,
        }
    }
}

/// The match's result.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Engine names from `id name`.
    pub names: [String; 2],
    /// Results from engine 1's side.
    pub tally: Tally,
    /// How many games ended for each reason.
    pub reasons: BTreeMap<String, u32>,
    /// The SPRT's last log-likelihood ratio and verdict.
    pub sprt: Option<(f64, Verdict)>,
}

/// Reads an openings file: one SFEN per line; blank lines and `#` comments are skipped.
pub fn read_openings(path: &std::path::Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read openings file {}", path.display()))?;
    Ok(text
        .lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .map(str::to_string)
        .collect())
}

/// Plays the match and prints a line per game and the summary on stdout.
pub fn run(config: &MatchConfig) -> Result<Summary> {
    let spec = config.options.variant();
    if config.games == 0 {
        bail!("--games must be at least 1");
    }
    let concurrency = config.concurrency.clamp(1, 64);
    for (engine, control) in config.engines.iter().zip(config.times) {
        if engine.protocol == Protocol::Xboard {
            Clock::xboard_setup(control).map_err(anyhow::Error::msg)?;
        }
    }
    for (line, sfen) in config.openings.iter().enumerate() {
        AnyGame::from_sfen(sfen, config.options.clone())
            .with_context(|| format!("opening {} ({sfen:?}) is not valid", line + 1))?;
    }
    if let Some(dir) = &config.records {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create records directory {}", dir.display()))?;
    }
    let variant = spec.protocol_name;
    // Starting each engine once up front turns a wrong command into an error instead of a
    // match of forfeits, and gives the names.
    let mut names = [String::new(), String::new()];
    for (i, spec) in config.engines.iter().enumerate() {
        let engine = Engine::start(spec, variant, &config.option_pairs)
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("engine {} does not start", i + 1))?;
        names[i] = engine.name.clone();
    }

    let bar = ProgressBar::new(u64::from(config.games));
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let recorded = if config.resume {
        recorded_games(config, &names)?
    } else {
        Vec::new()
    };
    let pending: Vec<u32> = (0..config.games)
        .filter(|index| !recorded.iter().any(|r| r.index == *index))
        .collect();
    let next = AtomicU32::new(0);
    let stop = AtomicBool::new(false);
    let (sender, receiver) = channel::<GameReport>();
    let mut tally = Tally::default();
    let mut reasons = BTreeMap::new();
    let mut sprt_state = None;
    // Counts a game, prints its line and writes its record (unless it was read from one).
    let mut count = |report: &GameReport, write: bool| {
        match report.engine1_result() {
            1 => tally.wins += 1,
            0 => tally.draws += 1,
            _ => tally.losses += 1,
        }
        *reasons.entry(report.end.reason.clone()).or_insert(0) += 1;
        let line = game_line(config, &names, report, &tally);
        bar.suspend(|| println!("{line}"));
        bar.inc(1);
        bar.set_message(format!("{}-{}-{}", tally.wins, tally.draws, tally.losses));
        if let Some(dir) = config.records.as_ref().filter(|_| write) {
            let path = dir.join(record_name(report.index));
            let written = record_text(config, &names, report)
                .map_err(|error| error.to_string())
                .and_then(|text| std::fs::write(&path, text).map_err(|e| e.to_string()));
            if let Err(error) = written {
                bar.suspend(|| eprintln!("cannot write {}: {error}", path.display()));
            }
        }
        if let Some(sprt) = &config.sprt {
            let verdict = sprt.verdict(&tally);
            sprt_state = Some((sprt.llr(&tally), verdict));
            if verdict != Verdict::Continue && !stop.swap(true, Ordering::Relaxed) {
                bar.suspend(|| println!("SPRT: {verdict} after {} games; stopping", tally.games()));
            }
        }
    };
    if !recorded.is_empty() {
        bar.suspend(|| {
            println!(
                "{} games already recorded; {} to play",
                recorded.len(),
                pending.len()
            )
        });
    }
    for report in &recorded {
        count(report, false);
    }
    std::thread::scope(|scope| {
        for _ in 0..concurrency {
            let sender = sender.clone();
            let (next, stop, pending) = (&next, &stop, &pending);
            scope.spawn(move || {
                let mut engines: [Option<Engine>; 2] = [None, None];
                while !stop.load(Ordering::Relaxed) {
                    let Some(&index) = pending.get(next.fetch_add(1, Ordering::Relaxed) as usize)
                    else {
                        break;
                    };
                    let report = play_game(config, index, &mut engines);
                    if sender.send(report).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for report in receiver {
            count(&report, true);
        }
    });
    bar.finish_and_clear();
    let summary = Summary {
        names,
        tally,
        reasons,
        sprt: sprt_state,
    };
    print!("{}", summary_text(config, &summary));
    Ok(summary)
}

fn game_line(
    config: &MatchConfig,
    names: &[String; 2],
    report: &GameReport,
    tally: &Tally,
) -> String {
    let (sente, gote) = if report.engine1_sente {
        (&names[0], &names[1])
    } else {
        (&names[1], &names[0])
    };
    let mut line = format!(
        "game {}/{}: {sente} (sente) vs {gote} (gote): {} {}, {} plies",
        report.index + 1,
        config.games,
        result_text(report.end.winner),
        report.end.reason,
        report.moves.len()
    );
    if !report.end.detail.is_empty() {
        let _ = write!(line, " ({})", report.end.detail);
    }
    let _ = write!(
        line,
        "; engine1 {}-{}-{}",
        tally.wins, tally.draws, tally.losses
    );
    line
}

fn result_text(winner: Option<Color>) -> &'static str {
    match winner {
        Some(Color::Sente) => "1-0",
        Some(Color::Gote) => "0-1",
        None => "1/2-1/2",
    }
}

fn format_elo(value: f64) -> String {
    if value.is_finite() {
        // Adding zero turns a negative zero into a plain one.
        format!("{:+.1}", value + 0.0)
    } else if value > 0.0 {
        "+inf".into()
    } else {
        "-inf".into()
    }
}

/// The summary printed at the end of a match.
pub fn summary_text(config: &MatchConfig, summary: &Summary) -> String {
    let tally = &summary.tally;
    let mut text = format!(
        "engine1: {}\nengine2: {}\n",
        summary.names[0], summary.names[1]
    );
    let _ = writeln!(
        text,
        "W-D-L: {}-{}-{} of {} games (engine1's side)",
        tally.wins,
        tally.draws,
        tally.losses,
        tally.games()
    );
    if let (Some(score), Some((elo, margin))) = (tally.score(), elo_estimate(tally)) {
        let margin = if margin.is_finite() {
            format!("{margin:.1}")
        } else {
            "inf".into()
        };
        let _ = writeln!(
            text,
            "score: {:.1}%\nElo: {} +/- {margin} (95%)",
            score * 100.0,
            format_elo(elo)
        );
    }
    let endings: Vec<String> = summary
        .reasons
        .iter()
        .map(|(reason, count)| format!("{reason} {count}"))
        .collect();
    let _ = writeln!(text, "endings: {}", endings.join(", "));
    if let (Some(sprt), Some((llr, verdict))) = (&config.sprt, summary.sprt) {
        let (lower, upper) = sprt.bounds();
        let _ = writeln!(
            text,
            "SPRT elo0={} elo1={} alpha={} beta={}: LLR {llr:.3} (bounds {lower:.3}, {upper:.3}): {verdict}",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
        );
    }
    text
}

/// The record file of game `index` (from 0).
fn record_name(index: u32) -> String {
    format!("game-{:04}.txt", index + 1)
}

/// The games of this match already in its records directory, read back into their reports.
/// A record that is not this match's game (other rules, control, engines or opening) is an
/// error: counting it would mix two matches.
fn recorded_games(config: &MatchConfig, names: &[String; 2]) -> Result<Vec<GameReport>> {
    let Some(dir) = &config.records else {
        bail!("--resume needs --records: the games to go on from are read there");
    };
    let mut reports = Vec::new();
    for index in 0..config.games {
        let path = dir.join(record_name(index));
        if !path.exists() {
            continue;
        }
        let shown = path.display();
        let text =
            std::fs::read_to_string(&path).with_context(|| format!("cannot read {shown}"))?;
        let record = Record::parse(&text).with_context(|| format!("{shown} does not read"))?;
        let engine1_sente = index % 2 == 0;
        let (sente, gote) = if engine1_sente {
            (&names[0], &names[1])
        } else {
            (&names[1], &names[0])
        };
        let (start_sfen, opening_moves) = opening(config, index);
        let played: Vec<&str> = record.moves.iter().map(|m| m.usi.as_str()).collect();
        let mismatch = if record.options != config.options {
            Some("other rules")
        } else if record.time_control.as_deref()
            != Some(control_text(config, engine1_sente).as_str())
        {
            Some("another time control")
        } else if record.sente.as_ref() != Some(sente) || record.gote.as_ref() != Some(gote) {
            Some("other engines or colours")
        } else if record.replay().map(|r| r.start_sfen).ok().as_ref() != Some(&start_sfen)
            || !played.starts_with(&opening_moves.iter().map(String::as_str).collect::<Vec<_>>())
            || record.extra_tag("OpeningPlies") != Some(opening_moves.len().to_string().as_str())
        {
            Some("another opening")
        } else {
            None
        };
        if let Some(what) = mismatch {
            bail!("{shown} is a game of another match ({what}); resume in a fresh directory");
        }
        let winner = match record.result {
            GameResult::SenteWins => Some(Color::Sente),
            GameResult::GoteWins => Some(Color::Gote),
            GameResult::NoWinner => None,
            GameResult::Unfinished => bail!("{shown} is an unfinished game"),
        };
        let reason = match (record.reason, record.extra_tag("Termination")) {
            (Some(reason), _) => reason.name().to_string(),
            (None, Some(termination)) => termination.to_string(),
            (None, None) => bail!("{shown} says neither Reason nor Termination"),
        };
        let think_ms = record
            .extra_tag("MoveTimes")
            .unwrap_or("")
            .split_whitespace()
            .map(|ms| ms.parse::<u64>())
            .collect::<Result<Vec<_>, _>>()
            .with_context(|| format!("{shown}: MoveTimes is not a list of milliseconds"))?;
        reports.push(GameReport {
            index,
            engine1_sente,
            start_sfen,
            opening_plies: opening_moves.len(),
            moves: played.iter().map(|m| m.to_string()).collect(),
            think_ms,
            end: GameEnd {
                winner,
                reason,
                detail: record.extra_tag("Detail").unwrap_or("").to_string(),
            },
        });
    }
    Ok(reports)
}

/// The time control a game's record names: the match's control, or at time odds sente's and
/// gote's, `10+0.1 / 30+0.3`.
fn control_text(config: &MatchConfig, engine1_sente: bool) -> String {
    let [first, second] = config.times;
    let (sente, gote) = if engine1_sente {
        (first, second)
    } else {
        (second, first)
    };
    if sente == gote {
        sente.to_string()
    } else {
        format!("{sente} / {gote}")
    }
}

/// The game's record in the canonical format (so that `tsubame analyse`, `convert` and the
/// rules library read it): the players, the control, the start position and the USI moves,
/// moves in USI, with the match's own facts as extra tags. An ending the rules do not name (an engine's
/// crash, illegal move or false claim, the match's move limit) is the `Termination` tag, with
/// no `Reason`.
fn record_text(
    config: &MatchConfig,
    names: &[String; 2],
    report: &GameReport,
) -> Result<String, RecordError> {
    let (sente, gote) = if report.engine1_sente {
        (&names[0], &names[1])
    } else {
        (&names[1], &names[0])
    };
    let mut record = Record::new(config.options.clone());
    record.start_sfen = Some(report.start_sfen.clone());
    record.sente = Some(sente.clone());
    record.gote = Some(gote.clone());
    record.time_control = Some(control_text(config, report.engine1_sente));
    record.result = match report.end.winner {
        Some(Color::Sente) => GameResult::SenteWins,
        Some(Color::Gote) => GameResult::GoteWins,
        None => GameResult::NoWinner,
    };
    record.notation = MoveNotation::Usi;
    record.moves = report
        .moves
        .iter()
        .map(|usi| RecordMove {
            usi: usi.clone(),
            comment: None,
            think_ms: None,
        })
        .collect();
    // A rules reason only where the rules say so: the match's own move limit is no rules
    // ending, and a reader would refuse a `move-limit` the moves do not reach.
    let ended = record.replay()?.outcome;
    record.reason = end_reason_from_name(&report.end.reason).filter(|&reason| {
        matches!(reason, EndReason::Time | EndReason::Resignation)
            || ended.is_some_and(|outcome| outcome.reason == reason)
    });
    if record.reason.is_none() {
        record
            .extra_tags
            .push(("Termination".into(), report.end.reason.clone()));
    }
    record
        .extra_tags
        .push(("OpeningPlies".into(), report.opening_plies.to_string()));
    if !report.end.detail.is_empty() {
        record
            .extra_tags
            .push(("Detail".into(), report.end.detail.clone()));
    }
    if !report.think_ms.is_empty() {
        let times: Vec<String> = report.think_ms.iter().map(u64::to_string).collect();
        record
            .extra_tags
            .push(("MoveTimes".into(), times.join(" ")));
    }
    record.to_canonical()
}

/// The start of game `index`: a position and the random plies played from it. Openings are
/// used in turn, each for two games with colours swapped. Random plies are kept as moves, not
/// folded into the position, so every engine sees the game from its real start (XBoard
/// engines are told them move by move, and repetitions count from the start).
fn opening(config: &MatchConfig, index: u32) -> (String, Vec<String>) {
    let pair = index / 2;
    if !config.openings.is_empty() {
        return (
            config.openings[pair as usize % config.openings.len()].clone(),
            Vec::new(),
        );
    }
    let mut rng =
        StdRng::seed_from_u64(config.seed ^ u64::from(pair).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    // A random line may end the game at once (a drop-mate, say); such lines are skipped.
    for _ in 0..20 {
        let Ok(mut game) = AnyGame::new(config.options.clone()) else {
            break;
        };
        let start = game.position().to_sfen();
        let mut moves = Vec::new();
        for _ in 0..config.random_plies {
            let legal = game.legal_moves();
            let Some(&mv) = legal.choose(&mut rng) else {
                break;
            };
            let text = game.position().to_usi(mv);
            if game.play(mv).is_err() {
                break;
            }
            moves.push(text);
        }
        if game.status() == Status::Ongoing {
            return (start, moves);
        }
    }
    (config.options.variant().start_sfen.to_string(), Vec::new())
}

/// Makes sure engine `seat` is running and ready for a new game from `start_sfen`.
fn prepare(
    config: &MatchConfig,
    spec: &tsubame_rules::VariantSpec,
    start_sfen: &str,
    engines: &mut [Option<Engine>; 2],
    seat: usize,
) -> Result<(), String> {
    let variant = Variant::from_spec(spec).ok_or("a game this engine does not play")?;
    let new_game = |engine: &mut Engine| engine.new_game(variant, config.times[seat], start_sfen);
    if let Some(engine) = &mut engines[seat] {
        if new_game(engine).is_ok() {
            return Ok(());
        }
        engines[seat] = None;
    }
    let engine = Engine::start(
        &config.engines[seat],
        spec.protocol_name,
        &config.option_pairs,
    )
    .map_err(|e| e.to_string())?;
    let engine = engines[seat].insert(engine);
    new_game(engine).map_err(|e| format!("after a restart: {e}"))
}

/// Plays game `index`. Engine failures end the game with a loss for that engine and drop it,
/// so the next game starts a fresh process.
fn play_game(config: &MatchConfig, index: u32, engines: &mut [Option<Engine>; 2]) -> GameReport {
    let engine1_sente = index.is_multiple_of(2);
    let (start_sfen, opening_moves) = opening(config, index);
    let spec = config.options.variant();
    let seat_of = |color: Color| usize::from((color == Color::Sente) != engine1_sente);
    let color_of = |seat: usize| {
        if (seat == 0) == engine1_sente {
            Color::Sente
        } else {
            Color::Gote
        }
    };
    let mut report = GameReport {
        index,
        engine1_sente,
        start_sfen: start_sfen.clone(),
        moves: Vec::new(),
        opening_plies: 0,
        think_ms: Vec::new(),
        end: GameEnd {
            winner: None,
            reason: String::new(),
            detail: String::new(),
        },
    };
    let mut game = match AnyGame::from_sfen(&start_sfen, config.options.clone()) {
        Ok(game) => game,
        Err(error) => {
            report.end.reason = "bad-opening".into();
            report.end.detail = error.to_string();
            return report;
        }
    };
    for text in opening_moves {
        if let Err(error) = game.play_usi(&text) {
            report.end.reason = "bad-opening".into();
            report.end.detail = format!("{text}: {error}");
            return report;
        }
        report.moves.push(text);
    }
    report.opening_plies = report.moves.len();
    for seat in 0..2 {
        if let Err(detail) = prepare(config, spec, &start_sfen, engines, seat) {
            engines[seat] = None;
            report.end = GameEnd::loss(color_of(seat), "crash", detail);
            return report;
        }
    }
    let start_fen = game.start().to_fen();
    let (width, height) = (spec.width, spec.height);
    let mut clock = Clock::with_controls(
        [
            config.times[seat_of(Color::Sente)],
            config.times[seat_of(Color::Gote)],
        ],
        config.margin,
    );
    // What the ending's record says beyond its reason (how late a move on time was).
    let mut end_detail = String::new();
    report.end = loop {
        if let Status::Finished(outcome) = game.status() {
            break GameEnd {
                winner: outcome.winner,
                reason: outcome.reason.name().to_string(),
                detail: std::mem::take(&mut end_detail),
            };
        }
        let engine_plies = report.moves.len() - report.opening_plies;
        if config.max_plies > 0 && engine_plies >= config.max_plies as usize {
            break GameEnd {
                winner: None,
                reason: "move-limit".into(),
                detail: String::new(),
            };
        }
        let color = game.position().side_to_move();
        let seat = seat_of(color);
        let Some(engine) = engines[seat].as_mut() else {
            break GameEnd::loss(color, "crash", "the engine is not running".into());
        };
        let turn = Turn {
            start_sfen: &start_sfen,
            start_fen: start_fen.as_deref(),
            moves: &report.moves,
            color,
            board: (width, height),
        };
        let commands = match engine.turn_commands(turn, &clock) {
            Ok(commands) => commands,
            Err(detail) => {
                break GameEnd {
                    winner: None,
                    reason: "no-position".into(),
                    detail: format!("{}: {detail}", spec.title),
                };
            }
        };
        let started = Instant::now();
        let limit = clock
            .allowed(color)
            .map_or(UNTIMED_LIMIT, |allowed| allowed + GRACE);
        let sent = commands.iter().try_for_each(|line| engine.send(line));
        let answer = sent.and_then(|()| engine.answer(started + limit));
        let elapsed = started.elapsed();
        let reply = match answer {
            Ok(reply) => reply,
            Err(Failure::Exited) => {
                engines[seat] = None;
                break GameEnd::loss(color, "crash", "the engine exited".into());
            }
            Err(Failure::Timeout) => {
                engines[seat] = None;
                break GameEnd::loss(
                    color,
                    "no-response",
                    format!("no move within {:.1}s", limit.as_secs_f64()),
                );
            }
        };
        report.think_ms.push(elapsed.as_millis() as u64);
        let allowed = clock.allowed(color);
        if !clock.charge(color, elapsed) {
            end_detail = match allowed {
                Some(allowed) => format!(
                    "answered after {} ms; {} ms were allowed",
                    elapsed.as_millis(),
                    allowed.as_millis()
                ),
                None => format!("answered after {} ms", elapsed.as_millis()),
            };
            game.lose_on_time(color);
            continue;
        }
        let text = match reply {
            Reply::Move(text) => text,
            Reply::Resign => {
                game.resign(color);
                continue;
            }
            Reply::Claim(claim) => {
                let own_loss = match color {
                    Color::Sente => claim.starts_with("0-1"),
                    Color::Gote => claim.starts_with("1-0"),
                };
                if own_loss {
                    game.resign(color);
                    continue;
                }
                engines[seat] = None;
                break GameEnd::loss(color, "false-claim", shorten(&claim));
            }
            Reply::Rejected(line) => {
                engines[seat] = None;
                let last = report.moves.last().cloned().unwrap_or_default();
                break GameEnd::loss(
                    color,
                    "rejected-move",
                    format!("after {last}: {}", shorten(&line)),
                );
            }
        };
        let readings = engine.move_readings(&text, (width, height));
        let played = match readings.iter().find(|usi| game.play_usi(usi).is_ok()) {
            Some(usi) => Ok(usi.clone()),
            None => match readings.first() {
                Some(usi) => Err(game
                    .play_usi(usi)
                    .err()
                    .map_or_else(|| "not a move".to_string(), |e| e.to_string())),
                None => Err("not a move".to_string()),
            },
        };
        match played {
            Ok(usi) => {
                report.moves.push(usi);
                if let Some(state) = &mut engine.xboard {
                    state.known_moves = report.moves.len();
                }
            }
            Err(error) => {
                engines[seat] = None;
                break GameEnd::loss(
                    color,
                    "illegal-move",
                    format!("move {:?}: {error}", shorten(&text)),
                );
            }
        }
    };
    for engine in engines.iter_mut().flatten() {
        if engine.xboard.is_some() {
            // Stops a pondering or still-playing XBoard engine; `new` follows next game.
            let _ = engine.send("force");
        }
    }
    report
}

/// At most 40 characters of an engine's text, for reports.
fn shorten(text: &str) -> String {
    text.chars().take(40).collect()
}
