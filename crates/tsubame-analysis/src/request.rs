//! Questions and answers as JSON text, for the hosts that have no server around the engine:
//! the browser's WebAssembly engine (a Web Worker posts the text in and the answers out) and
//! `tsubame analyse --json`, and the server's workers. The questions are those of the server's
//! `POST /api/analyse` and `POST /api/mate`, a computer's move and a whole game's analysis,
//! with a `type` saying which, and the answers are the same JSON.
//!
//! ```
//! use tsubame_analysis::request::answer;
//!
//! let mut depths = Vec::new();
//! let text = answer(
//!     r#"{"type": "analyse", "variant": "tori", "moves": ["3d3c"], "depth": 4}"#,
//!     &mut |iteration| depths.push(iteration.to_string()),
//! )
//! .unwrap();
//! assert!(text.contains(r#""depth":4"#));
//! assert_eq!(depths.len(), 4);
//! ```

use crate::{
    AnalysedPosition, GAME_ANALYSIS_DEPTH, GAME_ANALYSIS_MAX_PLIES, GAME_ANALYSIS_MOVETIME_MS,
    MAX_LINES, MAX_MATE_MOVES, MAX_MOVES, TABLE_MIB, analyse, analyse_game, computer_move, mate,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use tsubame_engine::limits::Limits;
use tsubame_engine::nnue::BuiltInNetwork;
use tsubame_engine::strength::Level;
use tsubame_rules::{AnyGame, AnyPosition, Options, Variant};

/// The deepest iteration a question may ask for.
pub const MAX_DEPTH: u32 = 64;

/// The largest question taken, in bytes: a game of [`MAX_MOVES`] moves fits.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// A question about a position.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum Question {
    /// The best move and lines, as `POST /api/analyse` answers.
    Analyse {
        #[serde(flatten)]
        position: PositionText,
        /// Deepest iteration (default 8 unless `infinite`).
        #[serde(default)]
        depth: Option<u32>,
        /// Time for the search in milliseconds (none by default).
        #[serde(default)]
        movetime_ms: Option<u64>,
        /// How many best lines (1 to [`MAX_LINES`]; default 1).
        #[serde(default)]
        lines: Option<u32>,
        /// Deeper and deeper until the host stops it: every iteration is an answer so far.
        #[serde(default)]
        infinite: bool,
    },
    /// The computer opponent's move, as the server's workers play it: the answer is an
    /// analysis whose `best` is the move the level chooses.
    Move {
        #[serde(flatten)]
        position: PositionText,
        /// The computer's level, 1 to [`Level::MAX`].
        level: u8,
        /// The time on the computer's clock, in milliseconds (none without a clock).
        #[serde(default)]
        time_left_ms: Option<u64>,
        /// Picks among the moves a weaker level may choose: the asker draws it, so that the
        /// same question gets the same move wherever it is answered.
        #[serde(default)]
        random: u64,
    },
    /// The shortest mate by checks, as `POST /api/mate` answers.
    Mate {
        #[serde(flatten)]
        position: PositionText,
        /// The longest mate looked for (1 to [`MAX_MATE_MOVES`]; default 15).
        #[serde(default)]
        max_moves: Option<u32>,
        /// Time for the search in milliseconds (default 1,000).
        #[serde(default)]
        movetime_ms: Option<u64>,
    },
    /// A whole game's analysis, as the server keeps it with a finished game: every position
    /// from the start through the moves, each searched in turn. Its progress is told as each
    /// position is done (`{"done": 3, "total": 41}`).
    Game {
        #[serde(flatten)]
        position: PositionText,
        /// Deepest iteration of each search (default 16).
        #[serde(default)]
        depth: Option<u32>,
        /// Time of each search in milliseconds (default 300).
        #[serde(default)]
        movetime_ms: Option<u64>,
    },
}

/// What a game's analysis answers: every position's score and line, from the start.
#[derive(Debug, Serialize, Deserialize)]
struct GameAnswer {
    positions: Vec<AnalysedPosition>,
    depth: u32,
    movetime_ms: u64,
}

/// A game's progress while it is analysed, told as each position is done.
#[derive(Debug, Serialize)]
struct GameProgress {
    done: usize,
    total: usize,
}

/// A position as the site names one: a game, its rule options as text (`drops=off`), a start
/// position (the game's own without one) and the moves played from it.
#[derive(Debug, Deserialize)]
struct PositionText {
    variant: String,
    #[serde(default)]
    options: String,
    #[serde(default)]
    sfen: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
}

/// Why a question got no answer; [`RequestError::code`] names it for the site's catalogue of
/// refusals, as the server's refusals do.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// Not JSON, or not a question.
    #[error("not a question: {0}")]
    Malformed(String),
    /// A limit out of its range.
    #[error("{0}")]
    OutOfRange(String),
    /// The rules refused the position or one of its moves.
    #[error("{0}")]
    Rules(String),
    /// The game is already over in the position.
    #[error("the game is over in this position")]
    GameOver,
    /// The side to move has no legal move.
    #[error("the side to move has no legal move")]
    NoMove,
    /// The game's network is one this build leaves out and has not been given yet
    /// ([`BuiltInNetwork::provide`]): the browser's engine, whose page fetches it and asks
    /// again. The refusal names it (`"network": "wa-nodrops"`).
    #[error("the engine needs the {} network, which it has not been given", .0.name())]
    NetworkNeeded(BuiltInNetwork),
}

impl RequestError {
    /// The refusal's code in the site's catalogue of refusals, where it has one.
    pub fn code(&self) -> Option<&'static str> {
        match self {
            RequestError::GameOver => Some("analysis.game-over"),
            RequestError::NoMove => Some("analysis.no-move"),
            _ => None,
        }
    }

    /// The HTTP status the server answers the same refusal with.
    pub fn status(&self) -> u16 {
        match self {
            RequestError::Malformed(_) | RequestError::OutOfRange(_) => 400,
            RequestError::Rules(_) => 422,
            RequestError::GameOver | RequestError::NoMove => 409,
            RequestError::NetworkNeeded(_) => 503,
        }
    }

    /// The refusal as the server writes one, with the status it would have answered with:
    /// `{"error": ..., "code": ..., "status": ...}`.
    pub fn to_json(&self) -> String {
        let mut body = serde_json::json!({ "error": self.to_string(), "status": self.status() });
        if let Some(code) = self.code() {
            body["code"] = code.into();
        }
        if let RequestError::NetworkNeeded(network) = self {
            body["network"] = network.name().into();
        }
        body.to_string()
    }
}

impl PositionText {
    /// The game at its start, its moves not played.
    fn start(&self) -> Result<AnyGame, RequestError> {
        let variant: Variant = self
            .variant
            .parse()
            .map_err(|e: tsubame_rules::UnknownVariant| RequestError::Rules(e.to_string()))?;
        let options = Options::parse(variant.spec(), &self.options)
            .map_err(|e| RequestError::Rules(format!("bad rule options: {e}")))?;
        match self.sfen.as_deref().map(str::trim) {
            Some(sfen) => AnyGame::from_sfen(sfen, options),
            None => AnyGame::new(options),
        }
        .map_err(|e| RequestError::Rules(format!("bad start position: {e}")))
    }

    fn game(&self) -> Result<AnyGame, RequestError> {
        if self.moves.len() > MAX_MOVES {
            return Err(RequestError::OutOfRange(format!(
                "at most {MAX_MOVES} moves"
            )));
        }
        let mut game = self.start()?;
        for (index, usi) in self.moves.iter().enumerate() {
            let refused = |e: &dyn std::fmt::Display| {
                RequestError::Rules(format!("move {} ({usi}): {e}", index + 1))
            };
            let mv = game.position().parse_usi(usi).map_err(|e| refused(&e))?;
            game.play(mv).map_err(|e| refused(&e))?;
        }
        if game.outcome().is_some() {
            return Err(RequestError::GameOver);
        }
        Ok(game)
    }
}

/// The game, for a search that evaluates positions: refused while its network is one this
/// build has not been given. (The mate search evaluates nothing.)
fn ready_to_evaluate(
    game: AnyGame,
    is_ready: &dyn Fn(BuiltInNetwork) -> bool,
) -> Result<AnyGame, RequestError> {
    match BuiltInNetwork::for_options(game.options()) {
        Some(network) if !is_ready(network) => Err(RequestError::NetworkNeeded(network)),
        _ => Ok(game),
    }
}

/// An answer as JSON text. Serialising the answers (strings and numbers) cannot fail.
fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Answers one question given as JSON text with the answer as JSON text. An analysis tells
/// `on_iteration` each completed iteration as the answer so far (JSON of the same shape), so a
/// host that shows them live can stop it at any time and keep the last.
pub fn answer(text: &str, on_iteration: &mut dyn FnMut(&str)) -> Result<String, RequestError> {
    answer_until(text, on_iteration, Arc::new(AtomicBool::new(false)))
}

/// [`answer`], ended early once `stop` is set (a search then answers with what it has found;
/// a mate search answers `unknown`): what a server's worker uses when its job is taken away.
pub fn answer_until(
    text: &str,
    on_iteration: &mut dyn FnMut(&str),
    stop: Arc<AtomicBool>,
) -> Result<String, RequestError> {
    answer_with_networks(text, on_iteration, stop, &BuiltInNetwork::is_ready)
}

/// [`answer_until`] with `is_ready` saying which built-in networks this build can use now
/// ([`BuiltInNetwork::is_ready`]; the tests pretend one is missing, as in the browser).
fn answer_with_networks(
    text: &str,
    on_iteration: &mut dyn FnMut(&str),
    stop: Arc<AtomicBool>,
    is_ready: &dyn Fn(BuiltInNetwork) -> bool,
) -> Result<String, RequestError> {
    if text.len() > MAX_REQUEST_BYTES {
        return Err(RequestError::Malformed(format!(
            "{} bytes, at most {MAX_REQUEST_BYTES}",
            text.len()
        )));
    }
    let question: Question =
        serde_json::from_str(text).map_err(|e| RequestError::Malformed(e.to_string()))?;
    match question {
        Question::Analyse {
            position,
            depth,
            movetime_ms,
            lines,
            infinite,
        } => {
            let lines = lines.unwrap_or(1);
            if !(1..=MAX_LINES).contains(&lines) {
                return Err(RequestError::OutOfRange(format!(
                    "lines must be 1 to {MAX_LINES}"
                )));
            }
            let depth = depth.unwrap_or(8);
            if !(1..=MAX_DEPTH).contains(&depth) {
                return Err(RequestError::OutOfRange(format!(
                    "depth must be 1 to {MAX_DEPTH}"
                )));
            }
            let limits = Limits {
                depth: (!infinite).then_some(depth),
                move_time: movetime_ms.filter(|_| !infinite).map(Duration::from_millis),
                lines,
                ..Limits::default()
            };
            let game = ready_to_evaluate(position.game()?, is_ready)?;
            let reply = analyse(&game, &limits, None, stop, &mut |so_far| {
                on_iteration(&json(so_far));
            })
            .ok_or(RequestError::NoMove)?;
            Ok(json(&reply))
        }
        Question::Move {
            position,
            level,
            time_left_ms,
            random,
        } => {
            if !(1..=Level::MAX).contains(&level) {
                return Err(RequestError::OutOfRange(format!(
                    "level must be 1 to {}",
                    Level::MAX
                )));
            }
            let game = ready_to_evaluate(position.game()?, is_ready)?;
            let reply = computer_move(
                &game,
                level,
                time_left_ms.map(Duration::from_millis),
                random,
                stop,
            )
            .ok_or(RequestError::NoMove)?;
            Ok(json(&reply))
        }
        Question::Mate {
            position,
            max_moves,
            movetime_ms,
        } => {
            let max_moves = max_moves.unwrap_or(15);
            if !(1..=MAX_MATE_MOVES).contains(&max_moves) {
                return Err(RequestError::OutOfRange(format!(
                    "max_moves must be 1 to {MAX_MATE_MOVES}"
                )));
            }
            let time = Duration::from_millis(movetime_ms.unwrap_or(1000).clamp(10, 60_000));
            let game = position.game()?;
            Ok(json(&mate(
                &game.position(),
                max_moves,
                time,
                TABLE_MIB * 2,
                stop,
            )))
        }
        Question::Game {
            position,
            depth,
            movetime_ms,
        } => {
            let (depth, movetime_ms) = game_limits(&position, depth, movetime_ms)?;
            let limits = Limits {
                depth: Some(depth),
                move_time: Some(Duration::from_millis(movetime_ms)),
                ..Limits::default()
            };
            let total = position.moves.len() + 1;
            let positions = analyse_game(
                ready_to_evaluate(position.start()?, is_ready)?,
                &position.moves,
                &limits,
                stop,
                &mut |done| on_iteration(&json(&GameProgress { done, total })),
            )
            .map_err(RequestError::Rules)?
            .ok_or_else(|| RequestError::Malformed("the analysis was stopped".into()))?;
            Ok(json(&GameAnswer {
                positions,
                depth,
                movetime_ms,
            }))
        }
    }
}

/// A game's analysis's depth and time for each position, checked, with their defaults.
fn game_limits(
    position: &PositionText,
    depth: Option<u32>,
    movetime_ms: Option<u64>,
) -> Result<(u32, u64), RequestError> {
    if position.moves.len() > GAME_ANALYSIS_MAX_PLIES {
        return Err(RequestError::OutOfRange(format!(
            "a game of {} plies is longer than the {GAME_ANALYSIS_MAX_PLIES} analysed",
            position.moves.len()
        )));
    }
    let depth = depth.unwrap_or(GAME_ANALYSIS_DEPTH);
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(RequestError::OutOfRange(format!(
            "depth must be 1 to {MAX_DEPTH}"
        )));
    }
    let movetime_ms = movetime_ms.unwrap_or(GAME_ANALYSIS_MOVETIME_MS);
    if !(1..=60_000).contains(&movetime_ms) {
        return Err(RequestError::OutOfRange(
            "movetime_ms must be 1 to 60000".into(),
        ));
    }
    Ok((depth, movetime_ms))
}

/// What a checked answer must hold of an analysis or a computer's move.
#[derive(Deserialize)]
struct SearchAnswer {
    best: String,
    #[serde(default)]
    score: Option<String>,
    #[serde(default)]
    pv: Vec<String>,
    depth: u32,
    #[serde(default)]
    lines: Vec<LineAnswer>,
}

#[derive(Deserialize)]
struct LineAnswer {
    #[serde(rename = "move")]
    first: String,
    score: String,
    pv: Vec<String>,
}

/// What a checked answer must hold of a mate search.
#[derive(Deserialize)]
struct MateAnswer {
    result: String,
    moves: Option<u32>,
    pv: Vec<String>,
    max_moves: u32,
}

/// Checks that `line` is legal from the game's position; the position at its end.
fn replay_line(game: &AnyGame, line: &[String], what: &str) -> Result<AnyPosition, String> {
    let mut walk = game.position();
    for (index, usi) in line.iter().enumerate() {
        let mv = walk
            .parse_usi(usi)
            .map_err(|e| format!("{what}, move {} ({usi}): {e}", index + 1))?;
        if !walk.is_legal(mv) {
            return Err(format!("{what}, move {} ({usi}) is not legal", index + 1));
        }
        walk.play_unchecked(mv);
    }
    Ok(walk)
}

fn check_score(score: &str, what: &str) -> Result<(), String> {
    let number = score
        .strip_prefix("cp ")
        .or_else(|| score.strip_prefix("mate "))
        .ok_or_else(|| format!("{what}: the score {score:?} is neither `cp N` nor `mate N`"))?;
    number
        .parse::<i32>()
        .map(|_| ())
        .map_err(|_| format!("{what}: the score {score:?} has no number"))
}

/// Checks an answer given by someone else (a server's worker) to `question`: that it is an
/// answer of the kind asked, and of the position asked: the best move legal there, every line
/// legal from there, a mate found a mate that ends the game. `Err` says what is wrong.
///
/// ```
/// use tsubame_analysis::request::{answer, check_answer};
///
/// let question = r#"{"type": "analyse", "variant": "tori", "depth": 3}"#;
/// let good = answer(question, &mut |_| {}).unwrap();
/// assert_eq!(check_answer(question, &good), Ok(()));
/// let other = r#"{"best": "5a5b", "pv": ["5a5b"], "depth": 3}"#;
/// assert!(check_answer(question, other).is_err());
/// ```
pub fn check_answer(question: &str, answer: &str) -> Result<(), String> {
    let question: Question =
        serde_json::from_str(question).map_err(|e| format!("not a question: {e}"))?;
    match question {
        Question::Analyse { position, .. } | Question::Move { position, .. } => {
            let game = position.game().map_err(|e| e.to_string())?;
            let reply: SearchAnswer =
                serde_json::from_str(answer).map_err(|e| format!("not an analysis: {e}"))?;
            replay_line(&game, std::slice::from_ref(&reply.best), "the best move")?;
            replay_line(&game, &reply.pv, "the line")?;
            if reply.depth == 0 {
                return Err("a search of depth 0".into());
            }
            if let Some(score) = &reply.score {
                check_score(score, "the best move")?;
            }
            for (index, line) in reply.lines.iter().enumerate() {
                let what = format!("line {}", index + 1);
                if line.pv.first() != Some(&line.first) {
                    return Err(format!("{what} does not start with its move"));
                }
                check_score(&line.score, &what)?;
                replay_line(&game, &line.pv, &what)?;
            }
            Ok(())
        }
        Question::Mate {
            position,
            max_moves,
            ..
        } => {
            let game = position.game().map_err(|e| e.to_string())?;
            let reply: MateAnswer =
                serde_json::from_str(answer).map_err(|e| format!("not a mate search: {e}"))?;
            if reply.max_moves != max_moves.unwrap_or(15) {
                return Err(format!(
                    "a mate search within {} moves, not the {} asked",
                    reply.max_moves,
                    max_moves.unwrap_or(15)
                ));
            }
            let end = replay_line(&game, &reply.pv, "the mate")?;
            match (reply.result.as_str(), reply.moves) {
                ("mate", Some(moves)) => {
                    if moves == 0 || reply.pv.len() as u64 != 2 * u64::from(moves) - 1 {
                        return Err(format!("a mate in {moves} of {} plies", reply.pv.len()));
                    }
                    if !(end.in_check() && end.legal_moves().is_empty()) {
                        return Err("the mate's line does not end in checkmate".into());
                    }
                    Ok(())
                }
                ("none" | "unknown", None) if reply.pv.is_empty() => Ok(()),
                (result, _) => Err(format!("not a mate search's answer: {result:?}")),
            }
        }
        Question::Game {
            position,
            depth,
            movetime_ms,
        } => {
            let (depth, movetime_ms) =
                game_limits(&position, depth, movetime_ms).map_err(|e| e.to_string())?;
            let reply: GameAnswer =
                serde_json::from_str(answer).map_err(|e| format!("not a game's analysis: {e}"))?;
            if (reply.depth, reply.movetime_ms) != (depth, movetime_ms) {
                return Err(format!(
                    "an analysis at depth {} and {} ms, not the depth {depth} and {movetime_ms} ms asked",
                    reply.depth, reply.movetime_ms
                ));
            }
            if reply.positions.len() != position.moves.len() + 1 {
                return Err(format!(
                    "{} positions analysed of the game's {}",
                    reply.positions.len(),
                    position.moves.len() + 1
                ));
            }
            let mut game = position.start().map_err(|e| e.to_string())?;
            for (ply, analysed) in reply.positions.iter().enumerate() {
                let what = format!("position {}", ply + 1);
                match (&analysed.score, analysed.pv.is_empty()) {
                    (None, true) if game.position().legal_moves().is_empty() => {}
                    (None, true) => return Err(format!("{what} has moves but no analysis")),
                    (Some(score), false) => {
                        check_score(score, &what)?;
                        replay_line(&game, &analysed.pv, &what)?;
                    }
                    _ => {
                        return Err(format!(
                            "{what}: a score without a line, or a line without a score"
                        ));
                    }
                }
                if let Some(usi) = position.moves.get(ply) {
                    let refused =
                        |e: &dyn std::fmt::Display| format!("move {} ({usi}): {e}", ply + 1);
                    let mv = game.position().parse_usi(usi).map_err(|e| refused(&e))?;
                    game.play(mv).map_err(|e| refused(&e))?;
                }
            }
            Ok(())
        }
    }
}

/// An answer checked by [`check_answer`], with its Hodges notation written again from its
/// USI lines: the notation is not checked, so a host that shows an answer someone else wrote
/// (a server's worker) takes only its moves and writes the rest itself. `Err` for an answer
/// that does not read.
pub fn with_own_notation(question: &str, answer: &str) -> Result<String, String> {
    let question: Question =
        serde_json::from_str(question).map_err(|e| format!("not a question: {e}"))?;
    let mut reply: serde_json::Value =
        serde_json::from_str(answer).map_err(|e| format!("not an answer: {e}"))?;
    let position = match &question {
        Question::Analyse { position, .. }
        | Question::Move { position, .. }
        | Question::Mate { position, .. } => position.game().map_err(|e| e.to_string())?.position(),
        Question::Game { .. } => return Ok(answer.to_string()),
    };
    // Each move read in the position it is played from, as far as the line is legal.
    let hodges_of = |line: &serde_json::Value| -> serde_json::Value {
        let mut walk = position.clone();
        let mut moves = Vec::new();
        for usi in line.as_array().into_iter().flatten() {
            let Some(mv) = usi.as_str().and_then(|usi| walk.parse_usi(usi).ok()) else {
                break;
            };
            if !walk.is_legal(mv) {
                break;
            }
            moves.push(mv);
            walk.play_unchecked(mv);
        }
        crate::hodges_line(&position, &moves).into()
    };
    if let Question::Mate { .. } = question {
        reply["hodges"] = hodges_of(&reply["pv"]);
    } else if let Some(lines) = reply["lines"].as_array_mut() {
        for line in lines {
            line["hodges"] = hodges_of(&line["pv"]);
        }
    }
    Ok(reply.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(text: &str) -> Result<serde_json::Value, RequestError> {
        answer(text, &mut |_| {}).map(|text| untimed(&text))
    }

    /// An answer without its time, the one part that differs from run to run.
    fn untimed(text: &str) -> serde_json::Value {
        let mut value: serde_json::Value = serde_json::from_str(text).unwrap();
        value.as_object_mut().unwrap().remove("time_ms");
        value
    }

    #[test]
    fn an_analysis_reports_every_iteration_and_ends_with_the_last() {
        let mut iterations = Vec::new();
        let text = answer(
            r#"{"type": "analyse", "variant": "wa", "options": "drops=off", "depth": 3, "lines": 3}"#,
            &mut |so_far| iterations.push(untimed(so_far)),
        )
        .unwrap();
        let last = untimed(&text);
        let depths: Vec<_> = iterations
            .iter()
            .map(|i| i["depth"].as_u64().unwrap())
            .collect();
        assert_eq!(depths, [1, 2, 3]);
        for iteration in &iterations {
            assert_eq!(
                iteration["lines"].as_array().unwrap().len(),
                3,
                "{iteration}"
            );
        }
        assert_eq!(iterations.last(), Some(&last));
        let firsts: std::collections::HashSet<_> = last["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|line| line["move"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(firsts.len(), 3);
    }

    #[test]
    fn a_computer_move_is_the_levels_and_passes_the_check() {
        let question = r#"{"type": "move", "variant": "wa", "options": "drops=off", "moves": ["6k5j"], "level": 2, "random": 7}"#;
        let text = answer(question, &mut |_| {}).unwrap();
        assert_eq!(check_answer(question, &text), Ok(()));
        let refused = answer(
            r#"{"type": "move", "variant": "tori", "level": 0}"#,
            &mut |_| {},
        )
        .unwrap_err();
        assert!(
            refused.to_string().contains("level must be 1 to"),
            "{refused}"
        );
    }

    #[test]
    fn answers_not_of_the_position_asked_are_refused() {
        let mate = r#"{"type": "mate", "variant": "tori", "sfen": "5sk/5s1/6C/7/7/7/K6 b F 1", "max_moves": 3}"#;
        let good = answer(mate, &mut |_| {}).unwrap();
        assert_eq!(check_answer(mate, &good), Ok(()));
        let not_mate = r#"{"result": "mate", "moves": 1, "pv": ["1c1b+"], "hodges": [], "max_moves": 3, "nodes": 1, "time_ms": 1}"#;
        assert!(check_answer(mate, not_mate).is_err());
        let other_depth = good.replace(r#""max_moves":3"#, r#""max_moves":5"#);
        assert!(check_answer(mate, &other_depth).is_err());
        let search = r#"{"type": "analyse", "variant": "tori", "depth": 2}"#;
        for wrong in [
            r#"{"best": "3d3c", "pv": ["3d3c", "3d3c"], "depth": 2}"#,
            r#"{"best": "3d3c", "pv": ["3d3c"], "depth": 0}"#,
            r#"{"best": "3d3c", "pv": ["3d3c"], "depth": 2, "score": "lots"}"#,
            r#"{"best": "3d3c", "pv": [], "depth": 2, "lines": [{"move": "3d3c", "score": "cp 1", "pv": ["4g3f"]}]}"#,
            "[]",
        ] {
            assert!(check_answer(search, wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn a_games_analysis_covers_every_position_and_passes_the_check() {
        // Gote's phoenix mated by a falcon dropped on 1b: the last position has no move.
        let question = r#"{"type": "game", "variant": "tori", "sfen": "5sk/5s1/6C/7/7/7/K6 b F 1", "moves": ["F*1b"], "depth": 3, "movetime_ms": 200}"#;
        let mut progress = Vec::new();
        let text = answer(question, &mut |told| progress.push(told.to_string())).unwrap();
        assert_eq!(
            progress,
            [r#"{"done":1,"total":2}"#, r#"{"done":2,"total":2}"#]
        );
        let reply: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(reply["depth"], 3);
        assert_eq!(reply["movetime_ms"], 200);
        assert_eq!(reply["positions"][0]["pv"][0], "F*1b");
        assert_eq!(
            reply["positions"][1],
            serde_json::json!({"score": null, "pv": []})
        );
        assert_eq!(check_answer(question, &text), Ok(()));
        let wrong = [
            // A position left out.
            r#"{"positions": [{"score": "mate 1", "pv": ["F*1b"]}], "depth": 3, "movetime_ms": 200}"#,
            // Another depth than asked.
            &text.replace(r#""depth":3"#, r#""depth":4"#),
            // A line not of its position.
            r#"{"positions": [{"score": "cp 5", "pv": ["4d4c"]}, {"score": null, "pv": []}], "depth": 3, "movetime_ms": 200}"#,
            // No analysis of a position that has moves.
            r#"{"positions": [{"score": null, "pv": []}, {"score": null, "pv": []}], "depth": 3, "movetime_ms": 200}"#,
            // A line where no move is left.
            r#"{"positions": [{"score": "mate 1", "pv": ["F*1b"]}, {"score": "cp 0", "pv": ["1a1b"]}], "depth": 3, "movetime_ms": 200}"#,
        ];
        for wrong in wrong {
            assert!(check_answer(question, wrong).is_err(), "{wrong}");
        }
        let long = format!(
            r#"{{"type": "game", "variant": "tori", "moves": [{}]}}"#,
            vec![r#""3d3c""#; GAME_ANALYSIS_MAX_PLIES + 1].join(",")
        );
        let refused = answer(&long, &mut |_| {}).unwrap_err();
        assert!(
            refused.to_string().contains("longer than the 600"),
            "{refused}"
        );
        let illegal =
            r#"{"type": "game", "variant": "tori", "moves": ["3d3c", "3c3b"], "depth": 1}"#;
        let refused = answer(illegal, &mut |_| {}).unwrap_err();
        assert_eq!(refused.status(), 422, "{refused}");
        assert!(refused.to_string().contains("move 2 (3c3b)"), "{refused}");
    }

    #[test]
    fn an_answer_shown_has_its_notation_written_again() {
        let mate = r#"{"type": "mate", "variant": "tori", "sfen": "5sk/5s1/6C/7/7/7/K6 b F 1", "max_moves": 3}"#;
        let good = answer(mate, &mut |_| {}).unwrap();
        let forged = good.replace("Fa*1b", "<script>");
        assert_eq!(check_answer(mate, &forged), Ok(()));
        let shown: serde_json::Value =
            serde_json::from_str(&with_own_notation(mate, &forged).unwrap()).unwrap();
        assert_eq!(shown["hodges"], serde_json::json!(["Fa*1b"]));
        let search = r#"{"type": "analyse", "variant": "tori", "depth": 3, "lines": 2}"#;
        let good: serde_json::Value =
            serde_json::from_str(&answer(search, &mut |_| {}).unwrap()).unwrap();
        let mut forged = good.clone();
        for line in forged["lines"].as_array_mut().unwrap() {
            line.as_object_mut().unwrap().remove("hodges");
        }
        let shown: serde_json::Value =
            serde_json::from_str(&with_own_notation(search, &forged.to_string()).unwrap()).unwrap();
        assert_eq!(shown["lines"], good["lines"]);
    }

    #[test]
    fn the_same_question_gets_the_same_answer() {
        let question =
            r#"{"type": "analyse", "variant": "tori", "moves": ["3d3c", "4b3c"], "depth": 6}"#;
        assert_eq!(asked(question).unwrap(), asked(question).unwrap());
    }

    #[test]
    fn a_mate_by_checks_is_found_with_its_notation() {
        let reply = asked(
            r#"{"type": "mate", "variant": "tori", "sfen": "5sk/5s1/6C/7/7/7/K6 b F 1", "max_moves": 3}"#,
        )
        .unwrap();
        assert_eq!(reply["result"], "mate");
        assert_eq!(reply["moves"], 1);
        assert_eq!(reply["pv"], serde_json::json!(["F*1b"]));
        assert_eq!(reply["hodges"], serde_json::json!(["Fa*1b"]));
    }

    #[test]
    fn refusals_name_what_was_wrong_with_the_servers_status() {
        let refused = |text: &str| answer(text, &mut |_| {}).unwrap_err();
        let cases = [
            ("not json", 400, "not a question"),
            (
                r#"{"type": "guess", "variant": "tori"}"#,
                400,
                "unknown variant",
            ),
            (
                r#"{"type": "analyse", "variant": "tori", "depth": 0}"#,
                400,
                "depth must be 1 to 64",
            ),
            (
                r#"{"type": "analyse", "variant": "tori", "lines": 11}"#,
                400,
                "lines must be 1 to 10",
            ),
            (
                r#"{"type": "analyse", "variant": "tori", "cheat": true}"#,
                400,
                "unknown field",
            ),
            (
                r#"{"type": "mate", "variant": "tori", "max_moves": 32}"#,
                400,
                "max_moves must be 1 to 31",
            ),
            (r#"{"type": "analyse", "variant": "chess"}"#, 422, "chess"),
            (
                r#"{"type": "analyse", "variant": "wa", "options": "drops=maybe"}"#,
                422,
                "bad rule options",
            ),
            (
                r#"{"type": "analyse", "variant": "tori", "sfen": "7/7 b - 1"}"#,
                422,
                "bad start position",
            ),
            (
                r#"{"type": "analyse", "variant": "tori", "moves": ["3d3c", "3c3b"]}"#,
                422,
                "move 2 (3c3b)",
            ),
        ];
        for (question, status, said) in cases {
            let error = refused(question);
            assert_eq!(error.status(), status, "{question}: {error}");
            assert!(error.to_string().contains(said), "{question}: {error}");
            let json: serde_json::Value = serde_json::from_str(&error.to_json()).unwrap();
            assert_eq!(json["status"], status);
        }
        let long = format!(
            r#"{{"type": "analyse", "variant": "tori", "sfen": "{}"}}"#,
            "x".repeat(MAX_REQUEST_BYTES)
        );
        assert_eq!(refused(&long).status(), 400);
    }

    #[test]
    fn a_finished_game_is_not_analysed() {
        // Gote's phoenix mated by a falcon dropped on 1b.
        let error = answer(
            r#"{"type": "analyse", "variant": "tori", "sfen": "5sk/5s1/6C/7/7/7/K6 b F 1", "moves": ["F*1b"]}"#,
            &mut |_| {},
        )
        .unwrap_err();
        assert_eq!(error.code(), Some("analysis.game-over"));
        assert_eq!(error.status(), 409);
    }

    #[test]
    fn a_network_the_build_carries_is_never_asked_for_and_a_missing_one_is_named() {
        // A native build carries every network: Wa is answered at once under both rule sets.
        for options in ["drops=off", ""] {
            let question = format!(
                r#"{{"type": "analyse", "variant": "wa", "options": "{options}", "depth": 2}}"#
            );
            let text = answer(&question, &mut |_| {}).unwrap();
            assert!(text.contains(r#""depth":2"#), "{options}: {text}");
        }
        // The browser's engine, which leaves Wa's networks out, refuses every question that
        // evaluates until it is given the one for the rules asked about, and the refusal names
        // it for the page to fetch; the mate search evaluates nothing and is answered.
        let without_wa = |network| network == BuiltInNetwork::Tori;
        let ask = |question: &str| {
            let stop = Arc::new(AtomicBool::new(false));
            answer_with_networks(question, &mut |_| {}, stop, &without_wa)
        };
        let position = r#""variant": "wa", "options": "drops=off", "moves": ["10i10h"]"#;
        for kind in [
            r#""type": "analyse", "depth": 2"#,
            r#""type": "move", "level": 3"#,
            r#""type": "game", "depth": 1, "movetime_ms": 50"#,
        ] {
            let refused = ask(&format!("{{{kind}, {position}}}")).unwrap_err();
            assert!(
                matches!(
                    refused,
                    RequestError::NetworkNeeded(BuiltInNetwork::WaNoDrops)
                ),
                "{kind}: {refused}"
            );
        }
        let mate = ask(&format!(
            r#"{{"type": "mate", "max_moves": 1, {position}}}"#
        ));
        assert!(mate.is_ok(), "{mate:?}");
        // Wa with drops needs its own network; Tori and Tenjiku need no missing one.
        let with_drops = ask(r#"{"type": "analyse", "variant": "wa", "depth": 1}"#);
        assert!(
            matches!(
                with_drops,
                Err(RequestError::NetworkNeeded(BuiltInNetwork::Wa))
            ),
            "{with_drops:?}"
        );
        for game in ["tori", "tenjiku"] {
            let answered = ask(&format!(
                r#"{{"type": "analyse", "variant": "{game}", "depth": 1}}"#
            ));
            assert!(answered.is_ok(), "{game}: {answered:?}");
        }
        let refusal = RequestError::NetworkNeeded(BuiltInNetwork::WaNoDrops);
        let json: serde_json::Value = serde_json::from_str(&refusal.to_json()).unwrap();
        assert_eq!(json["network"], "wa-nodrops");
        assert_eq!(json["status"], 503);
        assert!(json["error"].as_str().unwrap().contains("wa-nodrops"));
        let game_over =
            serde_json::from_str::<serde_json::Value>(&RequestError::GameOver.to_json());
        assert!(game_over.unwrap().get("network").is_none());
    }
}
