//! Puzzles: a position, the one good line from it, its themes and a difficulty.
//!
//! - [`Puzzle`]: what a puzzle is, one JSON object a line in a puzzle file;
//! - [`check`]: a puzzle replayed through the rules (and the mate solver for mates);
//! - [`generate`]: puzzles mined from games with the engine and the mate solver,
//!   deterministically.
//!
//! ```
//! use tsubame_puzzles::{Puzzle, check};
//!
//! let text = r#"{"id":"t1","variant":"tori","options":"","sfen":"5sk/5s1/6C/7/7/7/K6 b F 1",
//!   "moves":["F*1b"],"themes":["mate","mate-in-1","tsume"],"rating":700,"source":"example"}"#;
//! let puzzle: Puzzle = serde_json::from_str(text).unwrap();
//! assert!(check(&puzzle).is_ok());
//! ```

#![deny(missing_docs)]

pub mod deep;
pub mod generate;

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use tsubame_engine::tsume::{MateLimits, MateResult, solve_any};
use tsubame_rules::{AnyGame, AnyPosition, Options, Status, Variant};

/// A puzzle: from `sfen`, the side to move (the player) finds `moves[0]`; the opponent's reply
/// follows, then the player's next move, and so on: the player's moves are at even places and
/// the line ends with one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Puzzle {
    /// A short name derived from the game, options and position.
    pub id: String,
    /// The game's name (`tori`, `wa`, `tenjiku`).
    pub variant: String,
    /// Rule options as `name=value` pairs separated by commas, as the server reads them
    /// (empty for the defaults).
    pub options: String,
    /// The position the player starts from.
    pub sfen: String,
    /// The solution in USI: the player's moves and the opponent's replies, alternately.
    pub moves: Vec<String>,
    /// What the puzzle practises ([`THEMES`]).
    pub themes: Vec<String>,
    /// The difficulty as a rating on the players' scale.
    pub rating: u32,
    /// Where it was found: the games file and game, and the ply.
    pub source: String,
}

/// Every theme a puzzle may have, and what it means.
pub const THEMES: &[(&str, &str)] = &[
    ("mate", "the line ends in checkmate"),
    ("tsume", "every move of the player gives check, to mate"),
    ("mate-in-1", "mate in one move"),
    ("mate-in-2", "mate in two moves"),
    ("mate-in-3", "mate in three moves"),
    ("mate-in-4", "mate in four moves"),
    ("mate-in-5", "mate in five moves"),
    ("mate-in-6", "mate in six moves or more"),
    (
        "advantage",
        "the line wins the game's balance, short of mate",
    ),
    ("material", "the line wins material"),
    ("promotion", "a promotion is part of the answer"),
    ("drop", "the answer starts with a drop"),
    (
        "defence",
        "a position the player had been losing, turned round by the answer",
    ),
    ("endgame", "few pieces are left on the board"),
    ("short", "the answer is one move"),
    ("long", "the answer is three moves or more"),
];

/// The theme of a mate of `moves` moves (`mate-in-6` for six or more).
pub fn mate_theme(moves: usize) -> String {
    format!("mate-in-{}", moves.clamp(1, 6))
}

/// Why a puzzle is not sound.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PuzzleError {
    /// The game, options or position are refused.
    #[error("puzzle {id}: {what}")]
    Setup {
        /// The puzzle.
        id: String,
        /// Why.
        what: String,
    },
    /// A move of the solution is illegal or the line is malformed.
    #[error("puzzle {id}: move {index}: {what}")]
    Move {
        /// The puzzle.
        id: String,
        /// The move's place, from 1.
        index: usize,
        /// Why.
        what: String,
    },
    /// A mate puzzle whose line does not mate, or a theme that does not hold.
    #[error("puzzle {id}: {what}")]
    Claim {
        /// The puzzle.
        id: String,
        /// Why.
        what: String,
    },
}

impl Puzzle {
    /// The game's rule options.
    pub fn rule_options(&self) -> Result<Options, PuzzleError> {
        let setup = |what: String| PuzzleError::Setup {
            id: self.id.clone(),
            what,
        };
        let variant = Variant::from_name(&self.variant)
            .ok_or_else(|| setup(format!("unknown game {:?}", self.variant)))?;
        let mut options = variant.default_options();
        for pair in self
            .options
            .split([',', ' '])
            .filter(|pair| !pair.trim().is_empty())
        {
            options
                .set_pair(pair)
                .map_err(|e| setup(format!("option {pair}: {e}")))?;
        }
        Ok(options)
    }

    /// The start position.
    pub fn position(&self) -> Result<AnyPosition, PuzzleError> {
        AnyPosition::from_sfen(&self.rule_options()?, &self.sfen).map_err(|e| PuzzleError::Setup {
            id: self.id.clone(),
            what: e.to_string(),
        })
    }

    /// Whether the puzzle has a theme.
    pub fn has_theme(&self, theme: &str) -> bool {
        self.themes.iter().any(|t| t == theme)
    }

    /// The evaluation the engine plays its game with.
    pub fn engine_params(&self) -> Result<tsubame_engine::eval::EvalParams, PuzzleError> {
        let options = self.rule_options()?;
        Variant::of(&options).ok_or_else(|| PuzzleError::Setup {
            id: self.id.clone(),
            what: "no game".to_string(),
        })?;
        Ok(tsubame_engine::eval::EvalParams::engine_default(&options))
    }

    /// The line's move at `index` (from 0), read in `position`, the position before it.
    pub fn line_move(
        &self,
        position: &AnyPosition,
        index: usize,
    ) -> Result<tsubame_rules::Move, PuzzleError> {
        let usi = self.moves.get(index).map_or("", String::as_str);
        position.parse_usi(usi).map_err(|e| PuzzleError::Move {
            id: self.id.clone(),
            index: index + 1,
            what: e.to_string(),
        })
    }
}

/// A puzzle's id from its game, options and position: the same position gives the same id.
pub fn puzzle_id(variant: &str, options: &str, sfen: &str) -> String {
    // FNV-1a: stable across builds and platforms, unlike the standard library's hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in variant
        .bytes()
        .chain([0])
        .chain(options.bytes())
        .chain([0])
        .chain(sfen.bytes())
    {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let mut id = String::with_capacity(10);
    let _ = write!(id, "{:010x}", hash >> 24);
    id
}

/// Replays a puzzle through the rules: the position and options are accepted, the line has an
/// odd number of moves (it ends with the player's), every move is legal, and a puzzle marked
/// `mate` ends in checkmate (a `tsume` one with every player move a check, as the mate solver
/// finds it in that many moves).
pub fn check(puzzle: &Puzzle) -> Result<(), PuzzleError> {
    let claim = |what: String| PuzzleError::Claim {
        id: puzzle.id.clone(),
        what,
    };
    let options = puzzle.rule_options()?;
    let start = puzzle.position()?;
    if puzzle.moves.is_empty() || puzzle.moves.len().is_multiple_of(2) {
        return Err(PuzzleError::Move {
            id: puzzle.id.clone(),
            index: puzzle.moves.len(),
            what: "the line must end with the player's move".to_string(),
        });
    }
    let mut game = AnyGame::from_position(start.clone(), options);
    for (index, usi) in puzzle.moves.iter().enumerate() {
        game.play_usi(usi).map_err(|e| PuzzleError::Move {
            id: puzzle.id.clone(),
            index: index + 1,
            what: e.to_string(),
        })?;
    }
    let mated = matches!(game.status(), Status::Finished(outcome)
        if outcome.winner == Some(start.side_to_move())
            && outcome.reason == tsubame_rules::EndReason::Checkmate);
    if puzzle.has_theme("mate") != mated {
        return Err(claim(format!(
            "marked {}as a mate, and the line {} in checkmate",
            if puzzle.has_theme("mate") { "" } else { "not " },
            if mated { "ends" } else { "does not end" }
        )));
    }
    if puzzle.has_theme("tsume") {
        let moves = puzzle.moves.len().div_ceil(2) as u32;
        let limits = MateLimits {
            table_mib: 16,
            ..MateLimits::moves(moves)
        };
        let found = solve_any(&start, &limits, &mut |_| {}).result;
        match found {
            MateResult::Mate(line) if line.len() == puzzle.moves.len() => {}
            other => {
                return Err(claim(format!(
                    "a tsume in {moves}, and the solver finds {other:?}"
                )));
            }
        }
    }
    Ok(())
}

/// Whether the engine, searching each of the player's positions of the line with `nodes` for
/// its two best moves, agrees with the solution: the solution's move is its best, or its second
/// within `margin` centipawns of the best (a search of another size may rank two close moves
/// the other way).
pub fn engine_agrees(puzzle: &Puzzle, nodes: u64, margin: i32) -> Result<(), PuzzleError> {
    let params = puzzle.engine_params()?;
    let mut position = puzzle.position()?;
    for (index, usi) in puzzle.moves.iter().enumerate() {
        let mv = puzzle.line_move(&position, index)?;
        if index % 2 == 0 {
            let seen = generate::look(&position, &params, Some(nodes), None, 2);
            let agrees = seen.as_ref().is_some_and(|seen| {
                seen.best == mv
                    || (seen.second == Some(mv)
                        && seen
                            .second_value
                            .is_some_and(|second| seen.best_value - second <= margin))
            });
            if !agrees {
                return Err(PuzzleError::Claim {
                    id: puzzle.id.clone(),
                    what: format!(
                        "move {} ({usi}): the engine prefers {}",
                        index + 1,
                        seen.map_or_else(|| "nothing".to_string(), |s| position.to_usi(s.best))
                    ),
                });
            }
        }
        position.play_unchecked(mv);
    }
    Ok(())
}

/// The engine's short and long looks at a tactic's answers (nodes): [`engine_confirms`].
pub const CONFIRM_NODES: [u64; 2] = [20_000, 200_000];
/// How far, in centipawns, the solution's move may trail the engine's best as its second.
pub const CONFIRM_MARGIN: i32 = 60;

/// Whether the engine confirms a tactic: [`engine_agrees`] with a short look, and where that
/// prefers another move, with a look ten times as long (a short search's choice between two
/// good moves changes with every change to the search; a deeper one is the arbiter).
pub fn engine_confirms(puzzle: &Puzzle) -> Result<(), PuzzleError> {
    let [short, long] = CONFIRM_NODES;
    engine_agrees(puzzle, short, CONFIRM_MARGIN)
        .or_else(|_| engine_agrees(puzzle, long, CONFIRM_MARGIN))
}

/// Reads a puzzle file: one JSON puzzle a line; blank lines and lines starting with `#` are
/// skipped. An error names the line.
pub fn read_puzzles(text: &str) -> Result<Vec<Puzzle>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(index, line)| {
            serde_json::from_str(line).map_err(|e| format!("line {}: {e}", index + 1))
        })
        .collect()
}

/// Writes puzzles as a puzzle file, one JSON object a line.
pub fn write_puzzles(puzzles: &[Puzzle]) -> String {
    let mut out = String::new();
    for puzzle in puzzles {
        if let Ok(line) = serde_json::to_string(puzzle) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}
