//! The engine's answers about a position of a game, as the play site gives them: the best move
//! and lines with their scores as text and their moves in USI and Hodges notation
//! ([`EngineReply`]), and the shortest mate by checks ([`MateReply`]).
//!
//! One code path for every place that asks: the server's `POST /api/analyse` and
//! `POST /api/mate`, the browser's WebAssembly engine and `tsubame analyse --json`, so that the
//! same position at the same depth gives the same answer wherever it is searched.
//!
//! ```
//! use std::sync::{Arc, atomic::AtomicBool};
//! use tsubame_analysis::analyse;
//! use tsubame_engine::limits::Limits;
//! use tsubame_rules::{AnyGame, Options, tori};
//!
//! let game = AnyGame::new(Options::defaults(tori::spec())).unwrap();
//! let limits = Limits { depth: Some(3), lines: 2, ..Limits::default() };
//! let reply = analyse(&game, &limits, None, Arc::new(AtomicBool::new(false)), &mut |_| {}).unwrap();
//! assert_eq!(reply.depth, 3);
//! assert_eq!(reply.lines.len(), 2);
//! assert_eq!(reply.lines[0].pv.first(), Some(&reply.best));
//! ```

#![deny(missing_docs)]

pub mod request;

use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use tsubame_engine::eval::EvalParams;
use tsubame_engine::limits::Limits;
use tsubame_engine::search::{Info, Score, SearchRequest, search_any};
use tsubame_engine::strength::Level;
use tsubame_engine::tsume::{MateLimits, MateResult, solve_any};
use tsubame_engine::tt::TranspositionTable;
use tsubame_notation::write_hodges_any;
use tsubame_rules::{AnyGame, AnyPosition, Move};

/// The transposition table of one search, in MiB: small, since a server runs many searches
/// side by side and keeps none alive, and the same everywhere, so that a search at a fixed
/// depth gives the same answer in the browser as on the server.
pub const TABLE_MIB: usize = 8;

/// The most best lines one analysis gives.
pub const MAX_LINES: u32 = 10;

/// The most moves a position asked about may be reached by.
pub const MAX_MOVES: usize = 5000;

/// The longest mate by checks looked for, in the attacker's moves.
pub const MAX_MATE_MOVES: u32 = 31;

/// How deep each position of a game's analysis is searched, at most.
pub const GAME_ANALYSIS_DEPTH: u32 = 16;

/// How long each position of a game's analysis is searched, at most, in milliseconds: long
/// enough that a good opening move is not marked by the noise of a short search.
pub const GAME_ANALYSIS_MOVETIME_MS: u64 = 300;

/// The longest game analysed, in plies: at 300 ms a position, three minutes of a core (a long
/// Tenjiku game is a few hundred plies).
pub const GAME_ANALYSIS_MAX_PLIES: usize = 600;

/// The engine's answer for a position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct EngineReply {
    /// The move it plays, USI text.
    pub best: String,
    /// Its evaluation for the side to move: `cp 35` (centipawns) or `mate 3` (plies; negative
    /// when the side to move is mated).
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub score: Option<String>,
    /// The line it expects, USI text.
    pub pv: Vec<String>,
    /// The depth searched.
    pub depth: u32,
    /// The best lines, best first, when several were asked for (`Limits::lines`); the first
    /// is the move above.
    pub lines: Vec<EngineLine>,
    /// Positions searched.
    pub nodes: u64,
    /// Milliseconds taken.
    pub time_ms: u64,
}

/// One of several best lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct EngineLine {
    /// Its first move, USI text.
    #[serde(rename = "move")]
    pub first: String,
    /// Its evaluation for the side to move, as in [`EngineReply::score`].
    pub score: String,
    /// The line, USI text.
    pub pv: Vec<String>,
    /// The same line in Hodges notation, as the site writes moves: a page shows it without
    /// replaying it.
    pub hodges: Vec<String>,
}

/// What the mate solver found for the side to move: a forced mate in which every attacking
/// move gives check (a tsume), with the defender's longest resistance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct MateReply {
    /// `mate`, `none` (no such mate within `max_moves`) or `unknown` (the time ran out first).
    pub result: String,
    /// The mate's length in the attacker's moves, with a mate.
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub moves: Option<u32>,
    /// The mate's moves, USI text (`2 * moves - 1` of them); empty without a mate.
    pub pv: Vec<String>,
    /// The same moves in Hodges notation, as the site writes moves.
    pub hodges: Vec<String>,
    /// The longest mate looked for.
    pub max_moves: u32,
    /// Positions searched.
    pub nodes: u64,
    /// Milliseconds taken.
    pub time_ms: u64,
}

/// One position of an analysed game, as the game's analysis keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct AnalysedPosition {
    /// The engine's score for the side to move (`cp 35`, `mate -3`); none where the side to
    /// move has no move.
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub score: Option<String>,
    /// The engine's best line from here, USI text; empty where the side to move has no move.
    pub pv: Vec<String>,
}

/// The legal moves at the start of `line`, played from `position`, in Hodges notation (a line
/// is cut where a move is not legal, as [`AnyPosition::line_to_usi`] cuts it).
pub fn hodges_line(position: &AnyPosition, line: &[Move]) -> Vec<String> {
    let mut walk = position.clone();
    let mut out = Vec::with_capacity(line.len());
    for &mv in line {
        if !walk.is_legal(mv) {
            break;
        }
        out.push(write_hodges_any(&walk, mv));
        walk.play_unchecked(mv);
    }
    out
}

/// A score as the answers write it: `cp 35` or `mate 3`.
pub fn score_text(score: Score) -> String {
    match score {
        Score::Centipawns(cp) => format!("cp {cp}"),
        Score::Mate(plies) => format!("mate {plies}"),
    }
}

fn millis(time: Duration) -> u64 {
    time.as_millis().min(u128::from(u64::MAX)) as u64
}

fn line_of(position: &AnyPosition, info: &Info) -> Option<EngineLine> {
    let usi = position.line_to_usi(&info.pv);
    Some(EngineLine {
        first: usi.first()?.clone(),
        score: score_text(info.score),
        pv: usi,
        hodges: hodges_line(position, &info.pv),
    })
}

/// Searches the game's current position with the engine as it plays by default (Tori and Wa with
/// their networks), the game's earlier positions counting for repetition. `None` when the side to move
/// has no move. Setting `stop` ends the search early (with the best move found so far).
///
/// `on_iteration` hears each completed iteration as the answer so far: its depth, and all its
/// lines once the last of them is in. With a `level` (and a fresh random number for each
/// move), the search is held to that computer level and `best` is the move the level chooses.
pub fn analyse(
    game: &AnyGame,
    limits: &Limits,
    level: Option<(Level, u64)>,
    stop: Arc<AtomicBool>,
    on_iteration: &mut dyn FnMut(&EngineReply),
) -> Option<EngineReply> {
    let level = level.map(|(level, random)| (level.for_variant(game.variant()), random));
    let limits = &match level {
        Some((level, _)) => level.limits(*limits),
        None => *limits,
    };
    // The keys and checks of the positions before this one, for repetition; the game's own
    // moves are legal, so they are replayed unchecked.
    let mut walk = game.start();
    let mut keys = Vec::new();
    let mut checks = Vec::new();
    for mv in game.moves() {
        keys.push(walk.key());
        checks.push(walk.in_check());
        walk.play_unchecked(mv);
    }
    let position = game.position();
    let wanted_lines = (limits.lines.max(1) as usize).min(position.legal_moves().len());
    let params = EvalParams::engine_default(game.options());
    let tt = Arc::new(TranspositionTable::new(TABLE_MIB));
    let mut so_far = EngineReply {
        best: String::new(),
        score: None,
        pv: Vec::new(),
        depth: 0,
        lines: Vec::new(),
        nodes: 0,
        time_ms: 0,
    };
    let outcome = search_any(
        SearchRequest {
            position: &position,
            history_keys: &keys,
            history_checks: &checks,
            limits,
            eval: &params,
            search: None,
            tt,
            stop,
            threads: 1,
            memory: None,
        },
        &mut |info| {
            let index = info.multipv.max(1) as usize - 1;
            if index == 0 {
                so_far.score = Some(score_text(info.score));
                so_far.pv = position.line_to_usi(&info.pv);
                so_far.depth = info.depth;
                so_far.best = so_far.pv.first().cloned().unwrap_or_default();
            }
            so_far.nodes = info.nodes;
            so_far.time_ms = millis(info.time);
            so_far.lines.truncate(index);
            so_far.lines.extend(line_of(&position, info));
            if index + 1 >= wanted_lines && !so_far.best.is_empty() {
                on_iteration(&so_far);
            }
        },
    );
    let best = match level {
        Some((level, random)) => level.choose(&outcome, random)?,
        None => outcome.best?,
    };
    Some(EngineReply {
        best: position.to_usi(best),
        score: so_far.score,
        pv: so_far.pv,
        depth: so_far.depth,
        lines: outcome
            .lines
            .iter()
            .filter_map(|line| line_of(&position, line))
            .collect(),
        // The last line's report counts every line's nodes; the outcome's is the first line's.
        nodes: so_far.nodes.max(outcome.info.nodes),
        time_ms: so_far.time_ms.max(millis(outcome.info.time)),
    })
}

/// The computer opponent's move at `level` (1 to [`Level::MAX`]; others are held to the nearest)
/// with `time_left` on its clock (none for a game without one), which the level's own caps
/// shorten further; `random` picks among the moves a weaker level may choose. `None` when the
/// side to move has no move. The server's own engine slots and its workers both play a
/// computer's move through this.
pub fn computer_move(
    game: &AnyGame,
    level: u8,
    time_left: Option<Duration>,
    random: u64,
    stop: Arc<AtomicBool>,
) -> Option<EngineReply> {
    let level = Level::new(level.clamp(1, Level::MAX))?;
    let limits = Limits {
        clock: time_left.map(|remaining| tsubame_engine::limits::Clock {
            remaining,
            ..tsubame_engine::limits::Clock::default()
        }),
        ..Limits::default()
    };
    analyse(game, &limits, Some((level, random)), stop, &mut |_| {})
}

/// Searches the game's current position for its analysis: the score and the line, or neither
/// where the side to move has no move (or `stop` was set before any move was found).
pub fn analysed_position(
    game: &AnyGame,
    limits: &Limits,
    stop: Arc<AtomicBool>,
) -> AnalysedPosition {
    match analyse(game, limits, None, stop, &mut |_| {}) {
        Some(reply) => AnalysedPosition {
            score: reply.score,
            pv: if reply.pv.is_empty() {
                vec![reply.best]
            } else {
                reply.pv
            },
        },
        None => AnalysedPosition {
            score: None,
            pv: Vec::new(),
        },
    }
}

/// Analyses a whole game: every position from `start` through `moves`, each searched with
/// `limits` by [`analysed_position`], telling `on_position` how many are done after each.
/// `Err` names a move the rules refuse; `Ok(None)` when `stop` was set before the end (it is
/// looked at between two positions).
///
/// ```
/// use std::sync::{Arc, atomic::AtomicBool};
/// use tsubame_analysis::analyse_game;
/// use tsubame_engine::limits::Limits;
/// use tsubame_rules::{AnyGame, Options, tori};
///
/// let start = AnyGame::new(Options::defaults(tori::spec())).unwrap();
/// let limits = Limits { depth: Some(2), ..Limits::default() };
/// let moves = ["3d3c".to_string(), "4b3c".to_string()];
/// let mut done = Vec::new();
/// let positions = analyse_game(start, &moves, &limits, Arc::new(AtomicBool::new(false)), &mut |n| done.push(n))
///     .unwrap()
///     .unwrap();
/// assert_eq!(positions.len(), 3);
/// assert_eq!(done, [1, 2, 3]);
/// assert!(positions.iter().all(|p| p.score.is_some() && !p.pv.is_empty()));
/// ```
pub fn analyse_game(
    start: AnyGame,
    moves: &[String],
    limits: &Limits,
    stop: Arc<AtomicBool>,
    on_position: &mut dyn FnMut(usize),
) -> Result<Option<Vec<AnalysedPosition>>, String> {
    let mut game = start;
    let mut positions = Vec::with_capacity(moves.len() + 1);
    for ply in 0..=moves.len() {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(None);
        }
        // A search sets its stop flag when it ends: each has its own, and `stop` is looked
        // at between them.
        positions.push(analysed_position(
            &game,
            limits,
            Arc::new(AtomicBool::new(false)),
        ));
        on_position(positions.len());
        if let Some(usi) = moves.get(ply) {
            let refused = |e: &dyn std::fmt::Display| format!("move {} ({usi}): {e}", ply + 1);
            let mv = game.position().parse_usi(usi).map_err(|e| refused(&e))?;
            game.play(mv).map_err(|e| refused(&e))?;
        }
    }
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        return Ok(None);
    }
    Ok(Some(positions))
}

/// Looks for a mate by checks for the side to move within `max_moves` and `time`, in a table
/// of `table_mib`; setting `stop` ends the search (an `unknown` answer).
pub fn mate(
    position: &AnyPosition,
    max_moves: u32,
    time: Duration,
    table_mib: usize,
    stop: Arc<AtomicBool>,
) -> MateReply {
    let limits = MateLimits {
        max_moves,
        time: Some(time),
        nodes: None,
        stop: Some(stop),
        table_mib,
    };
    let report = solve_any(position, &limits, &mut |_| {});
    let (result, moves, pv, hodges) = match &report.result {
        MateResult::Mate(line) => (
            "mate",
            Some(line.len().div_ceil(2) as u32),
            position.line_to_usi(line),
            hodges_line(position, line),
        ),
        MateResult::NoMate(_) => ("none", None, Vec::new(), Vec::new()),
        MateResult::Unknown(_) => ("unknown", None, Vec::new(), Vec::new()),
    };
    MateReply {
        result: result.to_string(),
        moves,
        pv,
        hodges,
        max_moves,
        nodes: report.nodes,
        time_ms: millis(report.elapsed),
    }
}
